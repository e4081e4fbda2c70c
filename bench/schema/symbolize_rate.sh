#!/bin/bash
# bench/schema/symbolize_rate.sh: what naming recorded stacks costs.
#
#   1. throughput: bench/schema/symbolize_rate.c, symbolize_session (read,
#      gather, name, write) on a synthetic session of STACKS stacks
#      (frames/s, stacks/s)
#   2. side by side on one run of the fault loop (bench/collector/
#      fault_loop.c, FAULTS minor faults, a stack on each): faultline
#      record --stacks=fp --stacks-on faults --no-symbolize, then
#      `faultline symbolize`; against perf record -g on the same events,
#      then `perf script` printing every sample's frames with names, and
#      again with source lines (srcline: faultline's frames carry lines
#      too).  Best of ROUNDS; the ratio is perf's time over faultline's.
#
# faultline names each distinct frame once (stacks are stored
# deduplicated); perf script names every frame of every sample, through
# its own caches.  The figures are the time from a recording to named
# stacks, not the same unit of work.  Timings on a shared 2-core VM are
# noisy: read the ratios.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/fault_loop}
RATE=${RATE:-build/release/bench/symbolize_rate}
STACKS=${STACKS:-100000}
FAULTS=${FAULTS:-65536}
ROUNDS=${ROUNDS:-3}

tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/../lib.sh"	# now, min, calc

echo "1. symbolize_session on a synthetic session"
"$RATE" "$STACKS" "$tmp"

echo
echo "2. the fault loop, $FAULTS faults with a stack each, best of $ROUNDS"
"$FAULTLINE" record -q -o "$tmp/fl.db" --stacks=fp --stacks-on faults \
	--no-symbolize -- "$LOOP" "$FAULTS" >/dev/null
perf record -q -g -e page-faults -c 1 -B -o "$tmp/perf.data" -- \
	"$LOOP" "$FAULTS" >/dev/null 2>&1
declare -a fl names lines
for ((r = 0; r < ROUNDS; r++)); do
	t0=$(now)
	"$FAULTLINE" symbolize --redo "$tmp/fl.db" >/dev/null
	t1=$(now)
	perf script -i "$tmp/perf.data" -F ip,sym,symoff,dso >"$tmp/names" 2>/dev/null
	t2=$(now)
	perf script -i "$tmp/perf.data" -F ip,sym,symoff,dso,srcline >/dev/null 2>&1
	t3=$(now)
	fl+=("$(calc "$t1 - $t0" 3)")
	names+=("$(calc "$t2 - $t1" 3)")
	lines+=("$(calc "$t3 - $t2" 3)")
done
fl_s=$(printf '%s\n' "${fl[@]}" | min)
names_s=$(printf '%s\n' "${names[@]}" | min)
lines_s=$(printf '%s\n' "${lines[@]}" | min)
q() { sqlite3 "$tmp/fl.db" "$1"; }
events=$(q "SELECT count(*) FROM fault WHERE stack_id IS NOT NULL")
refs=$(q "SELECT count(*) FROM fault f JOIN stack_frame sf ON sf.session_id = f.session_id AND sf.stack_id = f.stack_id")
frames=$(q "SELECT count(*) FROM frame")
samples=$(perf script -i "$tmp/perf.data" -F tid 2>/dev/null | wc -l)
perf_frames=$(awk 'NF' "$tmp/names" | wc -l)
echo "  faultline: $events stacked faults, $refs frames in their stacks," \
	"$frames distinct frames"
echo "  perf:      $samples samples, $perf_frames frames"
echo "  faultline symbolize:              ${fl_s} s"
echo "  perf script (names):              ${names_s} s  ratio $(calc "$names_s / $fl_s")"
echo "  perf script (names and srcline):  ${lines_s} s  ratio $(calc "$lines_s / $fl_s")"
