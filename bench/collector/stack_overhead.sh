#!/bin/bash
# bench/collector/stack_overhead.sh: what `faultline record --stacks` adds
# to each fault of the fault loop (bench/collector/fault_loop.c), against
# `perf record -g` and `perf record --call-graph dwarf` on the same three
# events, side by side in one run, best of ROUNDS.
#
#   bare loop; faultline --stacks=none, fp, dwarf with the default
#   --stacks-on (major faults and blocking switch-outs: the loop's faults
#   are minor, so this is the price of having stacks on), and with
#   --stacks-on faults (a stack on every fault completion); perf record
#   -c 1 without stacks, with -g, with --call-graph dwarf.
#
# Prints ns per fault, what each adds over the bare loop, the ratio of
# faultline's added cost to perf's for the same kind of stack, what each
# lost (a stack copy per fault fills rings fast), and faultline's stacks.
# Timings on a shared 2-core VM are noisy: read the ratios.  The loop runs
# pinned to the last CPU and the tool to the first.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/fault_loop}
ROUNDS=${ROUNDS:-5}
# A dwarf stack is 8 KiB a sample: perf.data for --call-graph dwarf grows
# by about 25 KiB a fault (three events), so the loop is kept short.
FAULTS=${FAULTS:-16384}
EVENTS=page-faults,minor-faults,major-faults

last_cpu=$(($(nproc) - 1))
LOOP_PINNED=(taskset -c "$last_cpu" "$LOOP")
TOOL_PIN=(taskset -c 0)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ns_of() { sed -n 's/.*ns_per_fault=\([0-9.]*\).*/\1/p'; }
. "$(dirname "$0")/../lib.sh"	# now, min, calc

# name -> command prefix (the loop and its arguments follow)
names=(bare fl-none fl-fp fl-dwarf fl-fp-faults fl-dwarf-faults
       perf perf-g perf-dwarf)
run_one() {	# $1 = name; prints ns per fault
	local db="$tmp/$1.db" data="$tmp/$1.data"

	rm -f "$db"* "$data"
	case "$1" in
	bare) "${LOOP_PINNED[@]}" "$FAULTS" ;;
	fl-none) "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" \
		-- "${LOOP_PINNED[@]}" "$FAULTS" ;;
	fl-fp) "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" --stacks=fp \
		-- "${LOOP_PINNED[@]}" "$FAULTS" ;;
	fl-dwarf) "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" --stacks=dwarf \
		-- "${LOOP_PINNED[@]}" "$FAULTS" ;;
	fl-fp-faults) "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" \
		--stacks=fp --stacks-on=faults -- "${LOOP_PINNED[@]}" "$FAULTS" ;;
	fl-dwarf-faults) "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$db" \
		--stacks=dwarf --stacks-on=faults -- "${LOOP_PINNED[@]}" "$FAULTS" ;;
	perf) "${TOOL_PIN[@]}" perf record -q -B -c 1 -e "$EVENTS" -o "$data" \
		-- "${LOOP_PINNED[@]}" "$FAULTS" 2>/dev/null ;;
	perf-g) "${TOOL_PIN[@]}" perf record -q -B -c 1 -g -e "$EVENTS" -o "$data" \
		-- "${LOOP_PINNED[@]}" "$FAULTS" 2>/dev/null ;;
	perf-dwarf) "${TOOL_PIN[@]}" perf record -q -B -c 1 --call-graph dwarf \
		-e "$EVENTS" -o "$data" -- "${LOOP_PINNED[@]}" "$FAULTS" 2>/dev/null ;;
	esac | ns_of
}

declare -A best
for ((r = 0; r < ROUNDS; r++)); do
	for n in "${names[@]}"; do
		v=$(run_one "$n")
		if [ -z "${best[$n]:-}" ] || [ "$(calc "$v < ${best[$n]}" 0)" = 1 ]; then
			best[$n]=$v
		fi
	done
done

# What each recorded: faultline's session counts; perf's samples and
# LOST records as its --stats counts them (perf report -D, which would
# give lost sample counts, aborts on large files here).  Each fault makes
# two samples: entry and completion.
lost_fl() {
	sqlite3 "$tmp/$1.db" "SELECT faults_stored || ' faults, lost ' ||
		(records_lost + samples_lost) || ' records' FROM session"
}
lost_perf() {
	{ perf report --stats -i "$tmp/$1.data" 2>/dev/null || true; } | awk '
		/ SAMPLE events:/ && !s { s = $3 }
		/ LOST events:/ && !l { l = $3 }
		END { printf "%d samples, %d LOST records", s, l }'
}
stacks_fl() { sqlite3 "$tmp/$1.db" "SELECT count(*) FROM fault WHERE stack_id IS NOT NULL"; }

b=${best[bare]}
echo "== per-fault cost of stacks, fault loop of $FAULTS minor faults, best of $ROUNDS (ns per fault)"
printf '  %-44s %8.1f\n' "bare" "$b"
for n in "${names[@]:1}"; do
	case "$n" in
	fl-*) extra="$(lost_fl "$n"), faults with a stack $(stacks_fl "$n")" ;;
	*) extra="$(lost_perf "$n")" ;;
	esac
	label=$n
	case "$n" in
	fl-none) label="faultline record" ;;
	fl-fp) label="faultline --stacks=fp" ;;
	fl-dwarf) label="faultline --stacks=dwarf" ;;
	fl-fp-faults) label="faultline --stacks=fp --stacks-on=faults" ;;
	fl-dwarf-faults) label="faultline --stacks=dwarf --stacks-on=faults" ;;
	perf) label="perf record -c 1" ;;
	perf-g) label="perf record -c 1 -g" ;;
	perf-dwarf) label="perf record -c 1 --call-graph dwarf" ;;
	esac
	printf '  %-44s %8.1f   adds %8.1f   (%s)\n' "$label" "${best[$n]}" \
		"$(calc "${best[$n]} - $b" 1)" "$extra"
done
added() { calc "${best[$1]} - $b" 1; }
ratio() { calc "(${best[$1]} - $b) / (${best[$2]} - $b)"; }
echo "  stacks on major faults only, over no stacks: fp adds $(calc "${best[fl-fp]} - ${best[fl-none]}" 1)," \
	"dwarf adds $(calc "${best[fl-dwarf]} - ${best[fl-none]}" 1) ns a fault"
echo "  faultline's added cost / perf's, stacks on every fault: fp $(ratio fl-fp-faults perf-g)," \
	"dwarf $(ratio fl-dwarf-faults perf-dwarf); without stacks $(ratio fl-none perf)"
