#!/bin/bash
# bench/collector/record_overhead.sh: what `faultline record` costs the
# fault loop (bench/collector/fault_loop.c), against `perf record` with
# the same three events, side by side in one run, best of ROUNDS.
#
#   1. per-fault cost: bare loop, under perf record -c 1, under faultline
#      (all faults stored); the cost each adds over bare, and the ratio
#   2. end to end: from the start of recording to a queryable SQLite
#      database: faultline record, against perf record followed by perf's
#      export-to-sqlite.py; the time each adds over the bare run, and rows/s
#   3. memory: faultline's peak RSS for FAULTS and 10 x FAULTS faults
#
# Timings on a shared 2-core VM are noisy: read the ratios, not the times.
# The loop runs pinned to the last CPU and the tool to the first, so both
# tools meet the same placement in every round.
set -euo pipefail

# perf record runs with -B: its build-id step after recording is not
# what is compared, and skipping it only makes perf's figures cheaper.

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/fault_loop}
ROUNDS=${ROUNDS:-9}
FAULTS=${FAULTS:-131072}
EVENTS=page-faults,minor-faults,major-faults
EXPORT=${EXPORT:-/usr/lib/perf-core/scripts/python/export-to-sqlite.py}

last_cpu=$(($(nproc) - 1))
LOOP_PINNED=(taskset -c "$last_cpu" "$LOOP")
TOOL_PIN=(taskset -c 0)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ns_of() { sed -n 's/.*ns_per_fault=\([0-9.]*\).*/\1/p'; }
. "$(dirname "$0")/../lib.sh"	# now, min, calc

declare -a bare perf fl bare_wall perf_wall fl_wall
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	bare+=("$("${LOOP_PINNED[@]}" "$FAULTS" | ns_of)")
	t1=$(now)
	perf+=("$("${TOOL_PIN[@]}" perf record -q -B -c 1 -e "$EVENTS" -o "$tmp/perf.data" \
		-- "${LOOP_PINNED[@]}" "$FAULTS" 2>/dev/null | ns_of)")
	t2=$(now)
	rm -f "$tmp"/fl.db*
	fl+=("$("${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$tmp/fl.db" \
		-- "${LOOP_PINNED[@]}" "$FAULTS" | ns_of)")
	t3=$(now)
	bare_wall+=("$(calc "$t1 - $t0" 4)")
	perf_wall+=("$(calc "$t2 - $t1" 4)")
	fl_wall+=("$(calc "$t3 - $t2" 4)")
done

b=$(printf '%s\n' "${bare[@]}" | min)
p=$(printf '%s\n' "${perf[@]}" | min)
f=$(printf '%s\n' "${fl[@]}" | min)
fl_lost=$(sqlite3 "$tmp/fl.db" "SELECT records_lost + samples_lost FROM session")
fl_rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM fault")
# The first "LOST events: N (x%)" line is the aggregate over all events.
perf_lost=$(perf report -i "$tmp/perf.data" --stats 2>/dev/null |
	awk '/ LOST events:/ && !n { n = $3 } END { print n + 0 }')

echo "== per-fault cost, fault loop of $FAULTS faults, best of $ROUNDS (ns per fault)"
printf '  bare                 %8.1f\n' "$b"
printf '  perf record -c 1     %8.1f   adds %7.1f\n' "$p" "$(calc "$p - $b" 1)"
printf '  faultline record     %8.1f   adds %7.1f\n' "$f" "$(calc "$f - $b" 1)"
echo "  faultline's added cost / perf's: $(calc "($f - $b) / ($p - $b)")"
echo "  lost: faultline $fl_lost records, perf $perf_lost LOST records; faultline stored $fl_rows fault rows"

# End to end: perf's database needs perf script + export-to-sqlite.py.
bw=$(printf '%s\n' "${bare_wall[@]}" | min)
fw=$(printf '%s\n' "${fl_wall[@]}" | min)
pw=$(printf '%s\n' "${perf_wall[@]}" | min)
export_best=""
export_ok=1
for ((r = 0; r < ROUNDS && export_ok; r++)); do
	rm -f "$tmp/perf.db"
	t0=$(now)
	if ! (cd "$tmp" && perf script -i perf.data -s "$EXPORT" perf.db >/dev/null 2>&1); then
		export_ok=0
		break
	fi
	t1=$(now)
	export_best=$(printf '%s\n%s\n' "$(calc "$t1 - $t0" 4)" "$export_best" | grep . | min)
done
echo
echo "== end to end: start of recording to a queryable database (s, best of $ROUNDS)"
printf '  bare loop                          %7.3f\n' "$bw"
printf '  faultline record                   %7.3f   adds %6.3f  %8s rows  %9s rows/s\n' \
	"$fw" "$(calc "$fw - $bw" 3)" "$fl_rows" "$(calc "$fl_rows / $fw" 0)"
if ((export_ok)); then
	perf_rows=$(sqlite3 "$tmp/perf.db" "SELECT count(*) FROM samples" 2>/dev/null || echo 0)
	pt=$(calc "$pw + $export_best" 4)
	printf '  perf record + export-to-sqlite.py  %7.3f   adds %6.3f  %8s rows  %9s rows/s\n' \
		"$pt" "$(calc "$pt - $bw" 3)" "$perf_rows" "$(calc "$perf_rows / $pt" 0)"
	echo "  export-to-sqlite.py alone: $(calc "$export_best" 3) s, $(calc "$perf_rows / $export_best" 0) rows/s"
	echo "  time added: perf / faultline = $(calc "($pt - $bw) / ($fw - $bw)" 1)"
	echo "  rows/s over the time each adds: faultline $(calc "$fl_rows / ($fw - $bw)" 0)," \
		"perf $(calc "$perf_rows / ($pt - $bw)" 0), ratio $(calc "($fl_rows / ($fw - $bw)) / ($perf_rows / ($pt - $bw))" 1)"
else
	echo "  perf script -s export-to-sqlite.py failed here: no perf figure this run"
fi
echo
echo "== memory: faultline peak RSS (KiB)"
for n in "$FAULTS" "$((FAULTS * 10))"; do
	rm -f "$tmp"/fl.db*
	rss=$( { /usr/bin/time -f 'rss=%M' "$FAULTLINE" record -q -o "$tmp/fl.db" -- \
		"$LOOP" "$n" >/dev/null; } 2>&1 | sed -n 's/^rss=//p')
	rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM fault")
	printf '  %9s faults: %8s KiB, %9s rows stored\n' "$n" "$rss" "$rows"
done
