#!/bin/bash
# bench/collector/block_io_overhead.sh: what `record --block-io` adds, on
# two workloads, in ROUNDS interleaved rounds (each runs bare, recorded
# without --block-io and recorded with it, in a rotating order):
#
#   fault loop   bench/collector/fault_loop.c, FAULTS fresh pages: the
#                loop's ns per fault (no block I/O: what the tracefs
#                reader costs a recording that has none)
#   direct reads tests/integration/block_workload.c, READS O_DIRECT reads
#                of SIZE bytes, each one block request: the reads' wall
#                time per read
#
# and for each, the recorder's own CPU (the session row's user + system
# time) per run.  Figures: median, best and spread over the rounds, and
# a sign test of with against without.  The workloads run pinned to the
# last CPU, faultline to the first.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/fault_loop}
READER=${READER:-build/release/tests/block_workload}
ROUNDS=${ROUNDS:-5}
FAULTS=${FAULTS:-131072}
READS=${READS:-2000}
SIZE=${SIZE:-4096}

last_cpu=$(($(nproc) - 1))
PIN=(taskset -c "$last_cpu")
TOOL_PIN=(taskset -c 0)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib.sh"

# The recorder's CPU of the last session in $1, ms.
recorder_ms() {
	sqlite3 "$1" "SELECT (recorder_user_ns + recorder_sys_ns) / 1e6 FROM session
		      ORDER BY session_id DESC LIMIT 1"
}

declare -A fig
add() { fig[$1]="${fig[$1]:-} $2"; }

# run WORKLOAD MODE: one run, its figures appended.
run() {
	local w=$1 mode=$2 db=$tmp/$1-$2.db rec=() out=$tmp/out
	rm -f "$db"* "$tmp/info"
	case $mode in
	without) rec=("${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" --) ;;
	with) rec=("${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" --block-io --) ;;
	esac
	case $w in
	faults) "${rec[@]}" "${PIN[@]}" "$LOOP" "$FAULTS" > "$out"
		add "faults-$mode" "$(sed -n 's/.*ns_per_fault=\([0-9.]*\).*/\1/p' "$out")" ;;
	reads) "${rec[@]}" "${PIN[@]}" "$READER" "$tmp/data" "$READS" "$SIZE" \
		"$tmp/info" > /dev/null
		add "reads-$mode" "$(calc "$(field read_ns "$tmp/info") / $READS" 0)" ;;
	esac
	[ "$mode" = bare ] || add "cpu-$w-$mode" "$(recorder_ms "$db")"
}

for ((i = 0; i < ROUNDS; i++)); do
	for w in faults reads; do
		for mode in $(rotate "$i" bare without with); do
			run "$w" "$mode"
		done
	done
done

echo "record --block-io: $ROUNDS rounds, $FAULTS faults, $READS direct reads of $SIZE bytes"
echo " the target (ns per fault, ns per read):"
for w in faults reads; do
	show "$w, bare" ${fig[$w-bare]}
	for mode in without with; do
		show "$w, $mode --block-io" ${fig[$w-$mode]}
	done
	sign_verdict "with" "without" "${fig[$w-with]}" "${fig[$w-without]}"
done
echo " the recorder's CPU, ms per run:"
for w in faults reads; do
	for mode in without with; do
		show "$w, $mode --block-io" ${fig[cpu-$w-$mode]}
	done
	sign_verdict "with" "without" "${fig[cpu-$w-with]}" "${fig[cpu-$w-without]}"
done
