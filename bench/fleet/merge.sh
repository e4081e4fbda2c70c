#!/bin/bash
# bench/fleet/merge.sh: faultline merge (schema/merge.c) of one session
# of 10M fault rows and 1M thread_state rows into a new database, rows
# per second, best of ROUNDS; beside it, in interleaved rounds, sqlite3
# itself copying the same two tables (CREATE TABLE AS SELECT from an
# attached file, the same indexes built after, one transaction, the
# same page size and journal): the floor of a set-wise copy in SQLite,
# which the ratio holds merge to.  perf has no merge of its files.
#
# The session is generated as bench/queries/stalls_near.sh makes its
# own (recursive CTEs into a database faultline record made, so the
# schema is the real one): 8 threads over 100 s, a fault every 80 us
# per thread, a timeline alternating 1.5 ms running and 100 us sleeping.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
ROUNDS=${ROUNDS:-3}
dir=$BUILD/bench/fleet
in=$dir/in.db
T=1700000000000000000	# the session's start, ns since the epoch
. "$(dirname "$0")/../lib.sh"

mkdir -p "$dir"
rm -f "$dir"/*.db "$dir"/*.db-*
"$FAULTLINE" record -q -o "$in" -- /bin/true
start=$(now)
{
	sqlite3 "$in" "SELECT 'DROP INDEX ' || name || ';' FROM sqlite_master
		WHERE type = 'index' AND sql IS NOT NULL AND name != 'session_uuid'"
	cat <<SQL
PRAGMA synchronous = OFF;
BEGIN;
INSERT INTO session (session_id, start_ts, end_ts, status, host, kernel,
  command_line, options, faultline_version, start_realtime_ns,
  start_monotonic_ns, min_fault_dur, buffer_bytes, cpus, uuid, labels)
VALUES (2, $T, $T + 100200000000, 'complete', 'bench', 'bench',
  'bench/fleet/merge.sh', '', 'bench', $T, 0, 0, 4194304, 2,
  lower(hex(randomblob(16))), '{"run":"1"}');
INSERT INTO thread SELECT 2, 1001 + value, 1000, 'rx-' || value, $T, $T + 100200000000
  FROM (WITH RECURSIVE c(value) AS (SELECT 0 UNION ALL SELECT value + 1 FROM c
        WHERE value < 7) SELECT value FROM c);
INSERT INTO fault (session_id, ts, dur, tid, pid, cpu, exit_cpu, kind, addr, ip, stack_id)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999999)
SELECT 2, $T + (n / 8) * 80000 + (n % 8) * 1000, 1500 + (n % 7) * 100,
       1001 + n % 8, 1000, n % 2, n % 2, 'minor', (n * 4096) % 1099511627776,
       4194304, NULL FROM c;
INSERT INTO thread_state (session_id, tid, pid, ts, dur, state, cpu, waker_tid,
  waker_cpu, preempted, uncertain, stack_id)
WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 499999)
SELECT 2, 1001 + n % 8, 1000, $T + (n / 8) * 1600000, 1500000, 'running', n % 2,
       NULL, NULL, 0, 0, NULL FROM c
UNION ALL
SELECT 2, 1001 + n % 8, 1000, $T + (n / 8) * 1600000 + 1500000, 100000, 'sleeping',
       n % 2, 1001 + (n + 1) % 8, NULL, 0, 0, NULL FROM c;
COMMIT;
SQL
	cat schema/indexes.sql
} | sqlite3 "$in"
rows=$(sqlite3 "$in" "SELECT (SELECT count(*) FROM fault) + (SELECT count(*) FROM thread_state)")
echo "generated in $(calc "$(now) - $start" 1) s: $(sqlite3 "$in" "SELECT
	(SELECT count(*) FROM fault) || ' fault, ' ||
	(SELECT count(*) FROM thread_state) || ' thread_state rows'")"

# The two tables and their indexes, as faultline's schema has them.
plain_copy() {
	cat <<SQL
PRAGMA page_size = 65536;
PRAGMA journal_mode = DELETE;
PRAGMA synchronous = NORMAL;
ATTACH '$in' AS src;
BEGIN;
CREATE TABLE fault AS SELECT * FROM src.fault;
CREATE TABLE thread_state AS SELECT * FROM src.thread_state;
$(grep -E 'ON (fault|thread_state) ' schema/indexes.sql)
COMMIT;
SQL
}

fl_times=() sq_times=()
for ((r = 0; r < ROUNDS; r++)); do
	for tool in $(rotate "$r" faultline sqlite3); do
		if [ "$tool" = faultline ]; then
			rm -f "$dir/out.db"
			t0=$(now)
			"$FAULTLINE" merge "$dir/out.db" "$in" > /dev/null
			fl_times+=("$(calc "$(now) - $t0" 3)")
		else
			rm -f "$dir/ref.db"
			t0=$(now)
			plain_copy | sqlite3 "$dir/ref.db" > /dev/null
			sq_times+=("$(calc "$(now) - $t0" 3)")
		fi
	done
done
fl=$(printf '%s\n' "${fl_times[@]}" | min)
sq=$(printf '%s\n' "${sq_times[@]}" | min)
merged=$(sqlite3 "$dir/out.db" "SELECT (SELECT count(*) FROM fault) + (SELECT count(*) FROM thread_state)")
[ "$merged" -eq "$rows" ] || { echo "merge copied $merged of $rows rows" >&2; exit 1; }
echo "faultline merge OUT IN: $rows fault + thread_state rows (and the session's"
echo "  few others, indexes built), best of $ROUNDS: $fl s, $(calc "$rows / $fl" 0) rows/s"
echo "sqlite3 CREATE TABLE AS SELECT of the two tables + their indexes, best of $ROUNDS:"
echo "  $sq s, $(calc "$rows / $sq" 0) rows/s"
echo "merge / plain copy time: $(calc "$fl / $sq" 2) (rounds: faultline ${fl_times[*]};" \
	"sqlite3 ${sq_times[*]})"
rm -f "$dir"/*.db "$dir"/*.db-*	# about 1.5 GB; made again by each run
