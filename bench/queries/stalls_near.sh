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
. "$(dirname "$0")/../lib.sh"

start=$(now)
session_10m "$db" bench/queries/stalls_near.sh
echo "generated and indexed in $(calc "$(now) - $start" 1) s:" \
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

times=()
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	rows=$("$FAULTLINE" query "$db" "${args[@]}" -f csv | wc -l)
	times+=("$(calc "$(now) - $t0" 6)")
done
best=$(printf '%s\n' "${times[@]}" | min)
echo
echo "faultline query DB ${args[*]}: $((rows - 1)) rows for $events events;" \
	"best of $ROUNDS: $(calc "$best * 1e3" 1) ms, $(calc "$best * 1e6 / $events" 2) us per event"
echo "(no perf equivalent: perf has neither fault durations nor wall-clock metrics)"
rm -f "$db" "$db-wal" "$db-shm"	# about 1 GB; made again by each run
