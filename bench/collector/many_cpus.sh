#!/bin/bash
# many_cpus: faultline record and perf record side by side on storms spread
# over every CPU but two, as a machine with many CPUs makes them: a
# context-switch storm (bench/collector/pingpong.c, one per CPU) and a
# fault loop (bench/collector/fault_loop.c, one per CPU), each recorded
# as the command.  On a few CPUs the rings' records outrun what one thread
# decodes and stores; this shows what each tool then keeps, loses, spends
# and how long it takes to a queryable result.  faultline record --flight
# (armed, no trigger) runs beside them for its own CPU, which the flight
# recorder holds to perf record's; it stores no records, so it has no
# other figure here.
#
# Per tool and storm, medians of ROUNDS interleaved rounds:
#   records   what the tool read: faultline's records (samples and switch
#             records, its summary's count), perf's samples
#   lost      records lost, by the kernel or by the tool (perf: LOST
#             events of perf report --stats)
#   spilled   MB that waited in faultline's spill file (--spill-size)
#   own CPU   the tool's CPU time less its workloads' own (ms)
#   seconds   from start to the tool's exit: for faultline a database
#             with its indexes, for perf a perf.data file
# and the ratio of faultline's own CPU to perf's.
#
# Usage: bench/collector/many_cpus.sh   (as root; make first)
#   ROUNDS=3 TRIPS=30000 FAULTS=131072 WORKERS=<nproc - 2> FL_ARGS=...
set -eu
cd "$(dirname "$0")/../.."
FAULTLINE=${FAULTLINE:-./faultline}
PINGPONG=${PINGPONG:-build/release/bench/pingpong}
LOOP=${LOOP:-build/release/bench/fault_loop}
ROUNDS=${ROUNDS:-3}
TRIPS=${TRIPS:-30000}
FAULTS=${FAULTS:-131072}
ncpu=$(nproc)
WORKERS=${WORKERS:-$((ncpu > 3 ? ncpu - 2 : 1))}
TOOL_PIN=(taskset -c "$((ncpu - 1))")
for b in "$FAULTLINE" "$PINGPONG" "$LOOP"; do
	[ -x "$b" ] || { echo "many_cpus: $b is missing; run make first" >&2; exit 1; }
done
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. bench/lib.sh

# One worker per CPU from 0, each writing its figures to $tmp/w.N.
storm() {	# $1 = pingpong or loop
	local cmd
	case "$1" in
	pingpong) cmd="$PINGPONG $TRIPS" ;;
	loop) cmd="$LOOP $FAULTS" ;;
	esac
	echo "for i in \$(seq 0 $((WORKERS - 1))); do taskset -c \$i $cmd > $tmp/w.\$i & done; wait"
}

# The workloads' own CPU (s), summed.
workers_cpu() { cat "$tmp"/w.* | sed -n 's/.*cpu_ns=\([0-9]*\).*/\1/p' |
	awk '{ s += $1 } END { printf "%.3f", s / 1e9 }'; }

perf_figures() {	# $1 = perf.data: "records lost"
	{ perf report -i "$1" --stats 2>/dev/null || true; } | awk '
		/^ *SAMPLE events:/ && !s { s = $3 }
		/^ *LOST events:/ && !l { l = $3 }
		END { print s + 0, l + 0 }'
}

fl_figures() {	# $1 = summary: "records lost spilled_MB"
	local read lost spilled
	read=$(sed -n 's/^ *\([0-9]*\) records read.*/\1/p' "$1" | head -n1)
	lost=$(sqlite3 "$tmp/fl.db" "SELECT records_lost + samples_lost + \
		records_dropped FROM session")
	spilled=$(sed -n 's/.*: \([0-9.]*\) MB of records waited.*/\1/p' "$1" | head -n1)
	echo "${read:-0} ${lost:-0} ${spilled:-0}"
}

declare -A fig	# "tool storm" -> lines of "records lost spilled own_ms seconds"
run_one() {	# $1 = fl, flight or perf; $2 = pingpong or loop
	local out=$tmp/out t0 t1 f own
	rm -f "$tmp"/fl.db* "$tmp"/perf.data "$tmp"/w.*
	t0=$(now)
	case "$1$2" in
	perfpingpong) timed "$out" "${TOOL_PIN[@]}" perf record -q -B \
		-e sched:sched_switch -e sched:sched_waking -o "$tmp/perf.data" \
		-- sh -c "$(storm pingpong)" 2>/dev/null ;;
	perfloop) timed "$out" "${TOOL_PIN[@]}" perf record -q -B -c 1 \
		-e page-faults,minor-faults,major-faults -o "$tmp/perf.data" \
		-- sh -c "$(storm loop)" 2>/dev/null ;;
	flight*) timed "$out" "${TOOL_PIN[@]}" "$FAULTLINE" record --flight \
		-o "$tmp/fl.db" -- sh -c "$(storm "$2")" 2>"$out.err" ;;
	fl*) timed "$out" "${TOOL_PIN[@]}" "$FAULTLINE" record ${FL_ARGS:-} \
		-o "$tmp/fl.db" -- sh -c "$(storm "$2")" 2>"$out.err" ;;
	esac
	t1=$(now)
	own=$(calc "($(cat "$out.cpu") - $(workers_cpu)) * 1e3" 0)
	case "$1" in
	perf) f="$(perf_figures "$tmp/perf.data") 0" ;;
	flight) f="0 0 0" ;;
	*) f=$(fl_figures "$out.err") ;;
	esac
	fig["$1 $2"]+="$f ${own} $(calc "$t1 - $t0" 2)"$'\n'
}

for ((r = 0; r < ROUNDS; r++)); do
	for s in pingpong loop; do
		for t in $(rotate "$r" fl flight perf); do
			run_one "$t" "$s"
		done
	done
done

col() {	# $1 = key, $2 = column: the median of that column
	printf '%s' "${fig[$1]}" | awk -v c="$2" 'NF { print $c }' | median
}
echo "== $WORKERS CPUs of $ncpu busy, $ROUNDS interleaved rounds, medians"
for s in pingpong loop; do
	case "$s" in
	pingpong) echo "-- switch storm: $TRIPS pipe round trips per CPU" ;;
	loop) echo "-- fault loop: $FAULTS faults per CPU" ;;
	esac
	for t in fl perf; do
		printf '  %-10s records %9.0f  lost %8.0f  spilled %7.1f MB  own CPU %7.0f ms  %6.2f s\n' \
			"$([ "$t" = fl ] && echo faultline || echo perf)" \
			"$(col "$t $s" 1)" "$(col "$t $s" 2)" "$(col "$t $s" 3)" \
			"$(col "$t $s" 4)" "$(col "$t $s" 5)"
	done
	printf '  %-10s own CPU %7.0f ms  %6.2f s (armed, no trigger)\n' "--flight" \
		"$(col "flight $s" 4)" "$(col "flight $s" 5)"
	echo "  faultline's own CPU / perf's: $(calc "$(col "fl $s" 4) / $(col "perf $s" 4)" 1)x;" \
		"time to a result: $(calc "$(col "fl $s" 5) / $(col "perf $s" 5)" 1)x;" \
		"armed flight recorder's own CPU / perf's: $(calc "$(col "flight $s" 4) / $(col "perf $s" 4)" 1)x"
done
