#!/bin/bash
# bench/fleet/export_pg_jobs.sh: does export --to gain from more
# connections?  A file of SESSIONS real recordings of the fault loop (each
# one's fault rows multiplied to about 1.3M with INSERT ... SELECT), loaded
# into a new schema with --jobs 1, 2 and 4 in turns, ROUNDS rounds; the
# wall time of each (median, best, spread) and the speed-up over --jobs 1.
# With --jobs N the sessions go side by side, each in its own transaction
# on one of N connections, then N connections build the indexes.
# Needs: postgresql (mk/deps.sh bench).  Timings on a shared 2-core VM are
# noisy: read the ratios.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
WORKLOAD=${WORKLOAD:-$BUILD/tests/fault_workload}
ROUNDS=${ROUNDS:-3}
SESSIONS=${SESSIONS:-4}
dir=$BUILD/bench/fleet-jobs
db=$dir/sessions.db

. "$(dirname "$0")/../lib.sh"	# now, calc, show, median, rotate
rm -rf "$dir"
mkdir -p "$dir"
server=
cleanup() {
	[ -z "$server" ] || tests/pg_server.sh stop "$server"
	rm -rf "$dir"
}
trap cleanup EXIT
{ read -r server; read -r url; } < <(tests/pg_server.sh start $$)

for ((i = 0; i < SESSIONS; i++)); do
	"$FAULTLINE" record -q -o "$db" -- "$WORKLOAD" --pages 20000
done
for ((i = 0; i < 6; i++)); do
	sqlite3 "$db" "INSERT INTO fault SELECT * FROM fault"
done
echo "== $SESSIONS sessions, $(sqlite3 "$db" "SELECT count(*) FROM fault") fault rows in all"

t1=() t2=() t4=()
for ((r = 0; r < ROUNDS; r++)); do
	for j in $(rotate "$r" 1 2 4); do
		PGOPTIONS='-c client_min_messages=warning' psql -qX "$url" \
			-c "DROP SCHEMA IF EXISTS jobs CASCADE" >/dev/null
		t0=$(now)
		"$FAULTLINE" export "$db" --to "$url" --schema jobs --jobs "$j" -q
		eval "t$j+=(\"$(calc "$(now) - $t0" 3)\")"
	done
done
echo "== wall s, $ROUNDS rounds"
DIGITS=2 show "--jobs 1" "${t1[@]}"
DIGITS=2 show "--jobs 2" "${t2[@]}"
DIGITS=2 show "--jobs 4" "${t4[@]}"
m1=$(printf '%s\n' "${t1[@]}" | median)
echo "  speed-up over --jobs 1 (medians): --jobs 2 $(calc "$m1 / $(printf '%s\n' "${t2[@]}" | median)")," \
	"--jobs 4 $(calc "$m1 / $(printf '%s\n' "${t4[@]}" | median)")"
