#!/bin/bash
# bench/collector/udp_sampling.sh: what `record --udp-port` costs
# faultline itself (collector/udp_sampler.c, on the thread of
# collector/sampler_thread.c, every --sample-interval, through
# cli/record_udp.c into the loader), as CPU time of the faultline
# process over DURATION, with and without sampling, best of ROUNDS:
#
#   faultline record -p PID --duration DURATION
#   faultline record -p PID --duration DURATION --udp-port PORT
#
# PID is tests/integration/udp_workload --staged holding one bound UDP
# socket with 20 datagrams queued (it polls for a file every 5 ms, so
# the recording has a little to do).  There is no perf equivalent: the
# figures are % of one core, and the cost of one sample.  Beside them,
# the floor: bench/collector/wake_loop.c, a thread that only wakes at
# the same interval (on a paravirtualized VM a timer wake-up alone costs
# tens of us).  Timings on a shared 2-core VM are noisy: several rounds,
# the lowest kept.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
UDP_WORKLOAD=${UDP_WORKLOAD:-build/release/tests/udp_workload}
WAKE_LOOP=${WAKE_LOOP:-build/release/bench/wake_loop}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}	# seconds
INTERVAL_US=${INTERVAL_US:-1000}

tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
wl_pid=
cleanup() {
	# wait returns the workload's SIGTERM status: under set -e that
	# would end the trap before the rm.
	if [ -n "$wl_pid" ] && kill "$wl_pid" 2>/dev/null; then
		wait "$wl_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

"$UDP_WORKLOAD" --staged "$tmp/info" "$tmp" 20 0 &
wl_pid=$!
until grep -q '^stage=0' "$tmp/info" 2>/dev/null; do sleep 0.01; done
touch "$tmp/go1"
until grep -q '^stage=1' "$tmp/info"; do sleep 0.01; done
port=$(sed -n 's/^port=//p' "$tmp/info")

# The user+system CPU seconds of a command (bash's `times` in a
# subshell: its second line is the children's); stderr into $tmp/err.
cpu_of() {
	(
		"$@" 2>"$tmp/err"
		times
	) | tail -n1 | awk '{
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.3f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
}
record() {
	rm -f "$tmp"/fl.db*
	cpu_of "$FAULTLINE" record -o "$tmp/fl.db" -p "$wl_pid" \
		--duration "${DURATION}s" "$@"
}
. "$(dirname "$0")/../lib.sh"	# now, min, calc

declare -a off on floor
for ((r = 0; r < ROUNDS; r++)); do
	floor+=("$(cpu_of "$WAKE_LOOP" "$((INTERVAL_US * 1000))" "$((DURATION * 1000000 / INTERVAL_US))")")
	off+=("$(record)")
	on+=("$(record --udp-port "$port" --sample-interval "${INTERVAL_US}us")")
	summary=$(grep 'udp sampling' "$tmp/err" || true)
	missed=$(grep 'MISSED' "$tmp/err" || true)
	rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM metric")
	size=$(stat -c %s "$tmp/fl.db")
done
a=$(printf '%s\n' "${off[@]}" | min)
b=$(printf '%s\n' "${on[@]}" | min)
w=$(printf '%s\n' "${floor[@]}" | min)
n=$((DURATION * 1000000 / INTERVAL_US))
echo "== CPU time over ${DURATION} s, sampling every ${INTERVAL_US} us, best of $ROUNDS" \
	"(seconds; rounds: ${floor[*]} / ${off[*]} / ${on[*]})"
printf '  wake_loop (wakes only)                 %7.3f  %6s%% of a core\n' "$w" "$(calc "100 * $w / $DURATION")"
printf '  faultline record -p PID                %7.3f  %6s%% of a core\n' "$a" "$(calc "100 * $a / $DURATION")"
printf '  faultline record -p PID --udp-port P   %7.3f  %6s%% of a core\n' "$b" "$(calc "100 * $b / $DURATION")"
echo "  socket sampling costs $(calc "100 * ($b - $a) / $DURATION")% of a core," \
	"$(calc "1e6 * ($b - $a) / $n" 1) us of CPU a sample; waking alone" \
	"$(calc "1e6 * $w / $n" 1) us ($(calc "100 * $w / $DURATION")% of a core)"
echo "  last round's summary:${summary#*:}"
[ -n "$missed" ] && echo "  ${missed# }"
echo "  last round: $rows metric rows, database $(calc "$size / 1e6" 1) MB"
