#!/bin/bash
# bench/collector/flight_overhead.sh: what `faultline record --flight`
# costs while armed (no trigger fires), on the fault loop
# (bench/collector/fault_loop.c) and on the switch storm
# (bench/collector/pingpong.c, both threads pinned to the last CPU), side
# by side in ROUNDS interleaved rounds (each round runs every variant
# once, in a rotating order):
#
#   bare
#   perf record             the same events, read continuously
#   perf record --overwrite the same events, read nothing until the end
#   faultline record        the normal recording
#   faultline record --flight
#
# perf records the kinds of events faultline records by default, on both
# workloads: page-faults, minor-faults and major-faults (-c 1),
# sched:sched_switch, sched:sched_waking with its kernel callchain (at
# most 32 frames, as faultline samples it to name what issued a wake-up)
# and the switch records (--switch-events).  faultline's differ in two
# ways perf cannot spell: its sched_waking is opened on every CPU,
# filtered on the targets (the wake-ups of a target, where perf's are
# the wake-ups a target issues; the same ones in the storm), and it adds
# every CPU's switch records (what ran instead).  For each: the workload's wall time per event (on
# the target's CPU: what the kernel does for the recorder there) and the
# recorder's own CPU time per million events (the tool's, less the
# workload's); medians, best and spread.  Then the two ratios the flight
# recorder is held to: on the target, against perf record --overwrite
# (its goal: within 1.1x), and its own CPU per event against perf record
# reading the same events (its goal: at most 1x), both as measured and
# per event more (from runs ten times as long, without what a recording
# costs however short).  Measurements, not
# assertions: the machine is shared.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/fault_loop}
PINGPONG=${PINGPONG:-build/release/bench/pingpong}
ROUNDS=${ROUNDS:-5}
FAULTS=${FAULTS:-131072}
TRIPS=${TRIPS:-100000}
PERF_EVENTS=(-c 1 -e page-faults,minor-faults,major-faults -e sched:sched_switch
	-e sched:sched_waking/call-graph=fp,max-stack=32/ --kernel-callchains
	--switch-events)

last_cpu=$(($(nproc) - 1))
TOOL=(taskset -c 0)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib.sh"

variants=(bare perf perf_ow fl flight)

# run_one WORKLOAD VARIANT [SCALE]: appends to WORKLOAD_VARIANT_ns and
# _own; with SCALE (a run SCALE times as long), to WORKLOAD_VARIANT_long
# (the recorder's own CPU per event) alone.
run_one() {
	local w=$1 v=$2 k=${3:-1} out=$tmp/out wcpu per events wl perf_ev=("${PERF_EVENTS[@]}")
	if [ "$w" = faults ]; then
		wl=(taskset -c "$last_cpu" "$LOOP" "$((FAULTS * k))")
		events=$((FAULTS * k))
	else
		wl=(taskset -c "$last_cpu" "$PINGPONG" "$((TRIPS * k))")
		events=$((TRIPS * 2 * k))
	fi
	rm -f "$tmp"/fl.db* "$tmp/perf.data"
	case "$v" in
	bare) timed "$out" "${wl[@]}" ;;
	perf) timed "$out" "${TOOL[@]}" perf record -q -B "${perf_ev[@]}" \
		-o "$tmp/perf.data" -- "${wl[@]}" 2>/dev/null ;;
	perf_ow) timed "$out" "${TOOL[@]}" perf record -q -B --overwrite \
		"${perf_ev[@]}" -o "$tmp/perf.data" -- "${wl[@]}" 2>/dev/null ;;
	fl) timed "$out" "${TOOL[@]}" "$FAULTLINE" record -q -o "$tmp/fl.db" \
		-- "${wl[@]}" ;;
	flight) timed "$out" "${TOOL[@]}" "$FAULTLINE" record -q -o "$tmp/fl.db" \
		--flight -- "${wl[@]}" ;;
	esac
	wcpu=$(calc "$(field cpu_ns "$out") / 1e9" 4)
	if ((k > 1)); then
		eval "${w}_${v}_long+=(\"$(calc "($(cat "$out.cpu") - $wcpu) * 1e9 / $events" 1)\")"
		return
	fi
	if [ "$w" = faults ]; then
		per=$(field ns_per_fault "$out")
	else
		per=$(calc "$(field ns_per_round_trip "$out") / 2" 1)
	fi
	eval "${w}_${v}_ns+=(\"$per\")"
	eval "${w}_${v}_own+=(\"$(calc "($(cat "$out.cpu") - $wcpu) * 1e9 / $events" 1)\")"
}

med() { local -n a=$1; printf '%s\n' "${a[@]}" | median; }

report() {	# $1 = workload, $2 = what an event is
	local w=$1
	echo "== $w: $ROUNDS interleaved rounds"
	echo "-- on the target's CPU: wall time per $2 (ns)"
	for v in "${variants[@]}"; do
		local -n a=${w}_${v}_ns
		show "$v" "${a[@]}"
	done
	echo "-- the recorder's own CPU per $2 (ns; the tool's less the workload's)"
	for v in perf perf_ow fl flight; do
		local -n b=${w}_${v}_own
		show "$v" "${b[@]}"
	done
	local bare ow fl pown flown
	bare=$(med "${w}_bare_ns")
	ow=$(med "${w}_perf_ow_ns")
	fl=$(med "${w}_flight_ns")
	pown=$(med "${w}_perf_own")
	flown=$(med "${w}_flight_own")
	echo "  target: flight $(calc "$fl / $ow") x perf --overwrite (wall per $2," \
		"medians); added over bare: flight $(calc "$fl - $bare" 0) ns," \
		"--overwrite $(calc "$ow - $bare" 0) ns"
	echo "  recorder: flight $(calc "$flown / $pown") x perf record (own CPU per $2, medians)"
	# A run 10 times as long costs 10 x n x long; one of n costs n x own:
	# the difference over the 9 x n events between is what one more costs.
	local plong fllong
	plong=$(med "${w}_perf_long")
	fllong=$(med "${w}_flight_long")
	pown=$(calc "(10 * $plong - $pown) / 9" 1)
	flown=$(calc "(10 * $fllong - $flown) / 9" 1)
	echo "  recorder, per $2 more (from runs 10 times as long, $LONG_ROUNDS rounds):" \
		"flight $flown ns, perf record $pown ns: $(calc "$flown / $pown") x"
}

for w in faults switches; do
	for v in "${variants[@]}"; do
		declare -a "${w}_${v}_ns=()" "${w}_${v}_own=()"
	done
done
for ((r = 0; r < ROUNDS; r++)); do
	for v in $(rotate "$r" "${variants[@]}"); do
		run_one faults "$v"
		run_one switches "$v"
	done
done
# The figures per event above hold what a recording costs however short
# (perf's is most of its figure); runs ten times as long tell it apart.
LONG_ROUNDS=${LONG_ROUNDS:-3}
for w in faults switches; do
	declare -a "${w}_perf_long=()" "${w}_flight_long=()"
done
for ((r = 0; r < LONG_ROUNDS; r++)); do
	for v in $(rotate "$r" perf flight); do
		run_one faults "$v" 10
		run_one switches "$v" 10
	done
done
report faults fault
report switches switch
