#!/bin/bash
# bench/queries/stalls_near.sh: the stalls-near query (queries/
# stalls-near.sql, run by faultline query) on a session of 10M fault rows,
# 1M thread_state rows and 1M metric rows, best of ROUNDS; it prints the
# time, the time per metric event, and the EXPLAIN QUERY PLAN that shows
# which indexes it uses.  There is no perf equivalent to compare with.
#
# The session (generated with recursive CTEs into a database that
# faultline record made, so the schema is the real one; indexes dropped
# for the load and made after it from schema/indexes.sql, as at the end
# of a recording), over 100 s:
#   8 threads; each takes a fault every 80 us (1.5-2.1 us long), 13 of
#   5 ms and one major fault of 150 ms (both with a stack), with nothing
#   else during those; its timeline alternates 1.5 ms running and 100 us
#   sleeping, but 10 times 1.5 ms blocked;
#   10,000 'nak' events (one every 10 ms, imported) and 990,000 samples
#   of the socket depth (one every 101 us).
# stalls-near metric=nak window=200ms min_dur=1ms finds, for each event,
# the stalls of 1 ms or more in the 200 ms before it.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
ROUNDS=${ROUNDS:-5}
db=$BUILD/bench/stalls_near.db
T=1700000000000000000	# the session's start, ns since the epoch

mkdir -p "$(dirname "$db")"
rm -f "$db" "$db-wal" "$db-shm"
now() { date +%s%N; }
calc() { awk "BEGIN { printf \"%.${2:-3}f\", $1 }"; }

"$FAULTLINE" record -q -o "$db" -- /bin/true
start=$(now)
{
	sqlite3 "$db" "SELECT 'DROP INDEX ' || name || ';' FROM sqlite_master
		WHERE type = 'index' AND sql IS NOT NULL"
	cat <<SQL
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,
  command_line, options, faultline_version, start_realtime_ns,
  start_monotonic_ns, min_fault_dur, buffer_bytes, cpus)
VALUES (2, $T, $T + 100200000000, 'complete', 'bench', 'bench',
  'bench/queries/stalls_near.sh', '', 'bench', $T, 0, 0, 4194304, 2);
INSERT INTO thread SELECT 2, 1001 + value, 1000, 'rx-' || value, $T, $T + 100200000000
  FROM (WITH RECURSIVE c(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM c
        WHERE value < 7) SELECT value FROM c);
INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip, stack_id)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 10030000),
s AS (SELECT n, n / 8 AS k, n % 8 AS t FROM c)
SELECT 2, $T + k * 80000 + t * 1000,
       CASE WHEN k % 1000000 = 500000 THEN 150000000
            WHEN k % 100000 = 50000 THEN 5000000 ELSE 1500 + (n % 7) * 100 END,
       1001 + t, 1000, t % 2, t % 2,
       CASE WHEN k % 1000000 = 500000 THEN 'major' ELSE 'minor' END,
       (n * 4096) % 1099511627776, 4194304,
       CASE WHEN k % 100000 = 50000 OR k % 1000000 = 500000 THEN 1 END
  FROM s
 WHERE k % 1000000 NOT BETWEEN 500001 AND 501875
   AND k % 100000 NOT BETWEEN 50001 AND 50063
 LIMIT 10000000;
INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,
  waker_cpu, preempted, uncertain, stack_id)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 499999),
s AS (SELECT n / 8 AS p, n % 8 AS t, (n / 8) % 6250 = 3125 AS blocked FROM c)
SELECT 2, 1001 + t, 1000, $T + p * 1600000, CASE WHEN blocked THEN 100000 ELSE 1500000 END,
       'running', t % 2, NULL, NULL, 0, 0, NULL FROM s
UNION ALL
SELECT 2, 1001 + t, 1000, $T + p * 1600000 + CASE WHEN blocked THEN 100000 ELSE 1500000 END,
       CASE WHEN blocked THEN 1500000 ELSE 100000 END,
       CASE WHEN blocked THEN 'blocked' ELSE 'sleeping' END, t % 2,
       CASE WHEN blocked THEN NULL ELSE 1001 + (t + 1) % 8 END, NULL, 0, 0,
       CASE WHEN blocked THEN 2 END FROM s;
INSERT INTO metric_series VALUES (1, NULL, 'nak', '{}', NULL, 'naks.csv', $T),
  (2, 2, 'udp_rx_queue_bytes', '{"port":9000,"inode":77}', 'bytes', 'sampler', $T);
INSERT INTO metric
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 989999)
SELECT 2, $T + n * 101000, (n * 7919) % 212992 FROM c;
INSERT INTO metric
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999)
SELECT 1, $T + n * 10000000 + 3000000, n % 50 + 1 FROM c;
INSERT INTO stack VALUES (2, 1, 1000, 3, 'fp', NULL), (2, 2, 1000, 2, 'fp', NULL);
INSERT INTO stack_frame VALUES (2, 1, 0, 1), (2, 1, 1, 2), (2, 1, 2, 3), (2, 2, 0, 4), (2, 2, 1, 3);
INSERT INTO frame VALUES (2, 1, 1000, 4096, 0, 0, '/lib/ld.so', 4096, NULL, 'ok'),
  (2, 2, 1000, 8192, 0, 1, '/lib/ld.so', 8192, NULL, 'ok'),
  (2, 3, 1000, 12288, 0, 1, '/usr/bin/rx', 12288, NULL, 'ok'),
  (2, 4, -1, -4096, 1, 0, '[kernel.kallsyms]', NULL, NULL, 'ok');
INSERT INTO symbol VALUES (2, 1, 0, '_dl_fixup', 0, NULL, NULL, NULL, 0),
  (2, 2, 0, '_dl_runtime_resolve', 0, NULL, NULL, NULL, 0),
  (2, 3, 0, 'main', 0, NULL, NULL, NULL, 0), (2, 4, 0, 'io_schedule', 0, NULL, NULL, NULL, 0);
COMMIT;
SQL
	cat schema/indexes.sql
} | sqlite3 "$db"
echo "generated and indexed in $(calc "($(now) - $start) / 1e9" 1) s:" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM fault WHERE session_id = 2) || ' fault, ' ||
		(SELECT count(*) FROM thread_state WHERE session_id = 2) || ' thread_state, ' ||
		(SELECT count(*) FROM metric) || ' metric rows'")"

events=$(sqlite3 "$db" "SELECT count(*) FROM metric WHERE series_id = 1")
args=(stalls-near metric=nak window=200ms min_dur=1ms)

echo
echo "EXPLAIN QUERY PLAN of queries/stalls-near.sql:"
sqlite3 "$db" ".param set :metric nak" ".param set :window 200000000" \
	".param set :min_dur 1000000" ".param set :tid NULL" ".param set :session NULL" \
	"EXPLAIN QUERY PLAN $(cat queries/stalls-near.sql)"

best=
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	rows=$("$FAULTLINE" query "$db" "${args[@]}" -f csv | wc -l)
	t=$(($(now) - t0))
	if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
done
echo
echo "faultline query DB ${args[*]}: $((rows - 1)) rows for $events events;" \
	"best of $ROUNDS: $(calc "$best / 1e6" 1) ms, $(calc "$best / 1e3 / $events" 2) us per event"
echo "(no perf equivalent: perf has neither fault durations nor wall-clock metrics)"
rm -f "$db" "$db-wal" "$db-shm"	# about 1 GB; made again by each run
