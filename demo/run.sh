#!/bin/bash
# make demo: record a workload that takes many minor faults and one major
# fault (a file page dropped from the page cache, then read), and show
# what faultline found: the summary, and the longest faults with the
# thread and the file behind them.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
WORKLOAD=${WORKLOAD:-build/release/tests/fault_workload}
dir=$(mktemp -d /var/tmp/faultline-demo.XXXXXX)
db=demo.db
rm -f "$db" "$db-wal" "$db-shm"

echo "== faultline record -o $db -- fault_workload --pages 5000 --major-file ..."
"$FAULTLINE" record -o "$db" -- "$WORKLOAD" --name demo-rx --pages 5000 \
	--major-file "$dir/cold.dat" --info "$dir/info"

echo
echo "== the five longest faults (queries/longest-faults.sql)"
sqlite3 -box "$db" \
	".param set :session_id NULL" ".param set :limit 5" \
	".read queries/longest-faults.sql"

echo
echo "== how the major fault was spent (fault_blocked, from thread_state)"
sqlite3 -box "$db" "SELECT kind, dur / 1e3 AS dur_us, blocked_ns / 1e3 AS blocked_us,
       off_cpu_ns / 1e3 AS off_cpu_us
  FROM fault_blocked WHERE kind = 'major' ORDER BY dur DESC LIMIT 3"

echo
echo "== the demo thread's time by state (thread_state)"
sqlite3 -box "$db" "SELECT s.state, count(*) AS intervals, sum(s.dur) / 1e6 AS ms
  FROM thread_state s WHERE s.tid IN (SELECT tid FROM thread WHERE comm = 'demo-rx')
 GROUP BY s.state ORDER BY ms DESC"

echo
echo "== latency histogram of the demo thread (fault_histogram)"
sqlite3 -box "$db" "SELECT h.kind, h.lo_ns, h.hi_ns, h.count
  FROM fault_histogram h JOIN thread t USING (session_id, tid)
 WHERE t.comm = 'demo-rx' ORDER BY h.kind, h.lo_ns"
rm -rf "$dir"
echo
echo "The database is $db; its tables are described in man/faultline-schema.5."
