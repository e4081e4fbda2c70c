#!/bin/bash
# bench/diagnose/diagnose.sh: faultline diagnose on a session of 10M fault
# rows and 1M thread_state rows, best of ROUNDS, beside faultline query
# longest-stalls on the same database in the same rounds (the reference:
# the query report ran before diagnose existed), with the ratio; then
# each fingerprint's time and the EXPLAIN QUERY PLAN of the heaviest
# (bench/diagnose/fingerprints).  There is no perf equivalent.
#
# The session (recursive CTEs into a database faultline record made, so
# the schema is the real one; indexes made after the load from
# schema/indexes.sql, as at the end of a recording), over 100 s:
#   8 threads; each takes a fault every 80 us (1.5-2.1 us long, minor),
#   and every 100,000th a 5 ms major fault on a file mapping; its
#   timeline is 1.5 ms running, then 100 us of one of: sleeping (woken),
#   runnable after a wake-up, runnable preempted by another thread, and
#   one interval in 50 is 1.5 ms long (a stall each pattern can find);
#   10,000 'nak' events, one every 10 ms.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
ROUNDS=${ROUNDS:-5}
FINGERPRINTS=${FINGERPRINTS:-$BUILD/bench/fingerprints}
. "$(dirname "$0")/../lib.sh"
db=$BUILD/bench/diagnose.db
T=1700000000000000000	# the session's start, ns since the epoch

mkdir -p "$(dirname "$db")"
rm -f "$db" "$db-wal" "$db-shm"

"$FAULTLINE" record -q -o "$db" -- /bin/true
start=$(now)
{
	sqlite3 "$db" "SELECT 'DROP INDEX ' || name || ';' FROM sqlite_master
		WHERE type = 'index' AND sql IS NOT NULL AND name != 'session_uuid'"
	cat <<SQL
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,
  command_line, options, faultline_version, start_realtime_ns,
  start_monotonic_ns, min_fault_dur, buffer_bytes, cpus)
VALUES (2, $T, $T + 100200000000, 'complete', 'bench', 'bench',
  'bench/diagnose/diagnose.sh', '', 'bench', $T, 0, 0, 4194304, 2);
INSERT INTO thread SELECT 2, 1001 + value, 1000, 'rx-' || value, $T, $T + 100200000000
  FROM (WITH RECURSIVE c(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM c
        WHERE value < 7) SELECT value FROM c);
INSERT INTO mapping VALUES (2, $T, 1000, 1001, 0, 1099511627776, 0, '/data/book.dat',
  NULL, 8, 1, 42, 1, 1, 'proc');
INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip, stack_id)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999999),
s AS (SELECT n, n / 8 AS k, n % 8 AS t FROM c)
SELECT 2, $T + k * 80000 + t * 1000,
       CASE WHEN k % 100000 = 50000 THEN 5000000 ELSE 1500 + (n % 7) * 100 END,
       1001 + t, 1000, t % 2, t % 2,
       CASE WHEN k % 100000 = 50000 THEN 'major' ELSE 'minor' END,
       (n * 4096) % 1099511627776, 4194304, NULL
  FROM s;
INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,
  waker_cpu, preempted, uncertain, stack_id, next_tid, next_comm, waker_comm)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 499999),
s AS (SELECT n / 8 AS p, n % 8 AS t, (n / 8) % 3 AS kind, (n / 8) % 50 = 7 AS long FROM c)
SELECT 2, 1001 + t, 1000, $T + p * 3100000, 1500000, 'running', t % 2, NULL, NULL,
       0, 0, NULL, NULL, NULL, NULL FROM s
UNION ALL
SELECT 2, 1001 + t, 1000, $T + p * 3100000 + 1500000,
       CASE WHEN long THEN 1500000 ELSE 100000 END,
       CASE kind WHEN 0 THEN 'sleeping' ELSE 'runnable' END, NULL,
       CASE kind WHEN 0 THEN 1001 + (t + 1) % 8 END, CASE kind WHEN 0 THEN 1 END,
       kind = 2, 0, NULL,
       CASE kind WHEN 2 THEN 1001 + (t + 1) % 8 END,
       CASE kind WHEN 2 THEN 'rx-' || (t + 1) % 8 END,
       CASE kind WHEN 0 THEN 'rx-' || (t + 1) % 8 END FROM s;
INSERT INTO metric_series VALUES (1, NULL, 'nak', '{}', NULL, 'naks.csv', $T);
INSERT INTO metric
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999)
SELECT 1, $T + n * 10000000 + 3000000, n % 50 + 1 FROM c;
COMMIT;
SQL
	cat schema/indexes.sql
} | sqlite3 "$db"
echo "generated and indexed in $(calc "$(now) - $start" 1) s:" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM fault WHERE session_id = 2) || ' fault, ' ||
		(SELECT count(*) FROM thread_state WHERE session_id = 2) || ' thread_state rows'")"

diag=() ref=()
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	"$FAULTLINE" diagnose "$db" --session 2 --event nak --format json > "$db.json"
	t1=$(now)
	"$FAULTLINE" query "$db" longest-stalls session=2 -f csv > /dev/null
	t2=$(now)
	diag+=("$(calc "$t1 - $t0" 4)")
	ref+=("$(calc "$t2 - $t1" 4)")
done
best_d=$(printf '%s\n' "${diag[@]}" | min)
best_r=$(printf '%s\n' "${ref[@]}" | min)
echo
echo "faultline diagnose DB --session 2 --event nak: $(python3 -c "import json,sys; d=json.load(open('$db.json')); print(len(d['findings']), 'findings,', sum(f['stalls'] for f in d['findings']), 'stalls')")"
echo "  best of $ROUNDS: $(calc "$best_d * 1000" 1) ms; faultline query longest-stalls:" \
	"$(calc "$best_r * 1000" 1) ms; ratio diagnose / longest-stalls $(calc "$best_d / $best_r" 2)"
echo
echo "each fingerprint, heaviest first, with the plans of the four heaviest:"
"$FINGERPRINTS" "$db" 2 3
rm -f "$db" "$db-wal" "$db-shm" "$db.json"	# about 1 GB; made again by each run
