#!/bin/bash
# bench/servers/redis.sh: the share of a real server's throughput that
# recording it costs.  redis-server runs pinned to the last CPU;
# redis-benchmark (SET and GET, 20 clients) and the recorder share the
# first CPU, as a recorder on a busy box shares a CPU with the clients.
# ROUNDS interleaved rounds, each running every variant once in a
# rotating order:
#
#   bare
#   perf record -p PID with faultline's default events: every page fault
#              (-c 1), sched:sched_switch, sched:sched_waking and the
#              switch records (--switch-events)
#   faultline record -p PID at its defaults
#
# Printed: requests per second of each (SET and GET summed), the share
# lost against bare (medians), and faultline's loss / perf's.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-200000}
PORT=${PORT:-6390}

last_cpu=$(($(nproc) - 1))
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
server=
tool=
cleanup() {
	[ -n "$tool" ] && kill -INT "$tool" 2>/dev/null && wait "$tool" 2>/dev/null
	[ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$(dirname "$0")/../lib.sh"

command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null || {
	echo "redis.sh: needs redis-server and redis-benchmark (apt-get install redis-server redis-tools; make deps-bench)" >&2
	exit 1
}

taskset -c "$last_cpu" redis-server --port "$PORT" --save '' --appendonly no \
	--dir "$tmp" >"$tmp/server.log" 2>&1 &
server=$!
for ((i = 0; i < 100; i++)); do
	redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
	sleep 0.1
done

# One redis-benchmark run: SET and GET requests per second, summed.
load() {
	taskset -c 0 redis-benchmark -p "$PORT" -n "$REQUESTS" -c 20 -t set,get -q 2>/dev/null |
		tr '\r' '\n' | awk '/requests per second/ { s += $2 } END { printf "%.0f\n", s }'
}

# The tool of $1 on the server, started and given a second to attach.
start_tool() {
	case "$1" in
	perf) taskset -c 0 perf record -q -B -c 1 -e page-faults -e sched:sched_switch \
		-e sched:sched_waking --switch-events -p "$server" -o "$tmp/perf.data" \
		>/dev/null 2>&1 & ;;
	fl) rm -f "$tmp"/fl.db*
	    taskset -c 0 "$FAULTLINE" record -q -o "$tmp/fl.db" -p "$server" >/dev/null 2>&1 & ;;
	esac
	tool=$!
	sleep 1
}

stop_tool() {
	kill -INT "$tool" 2>/dev/null || true
	wait "$tool" 2>/dev/null || true
	tool=
}

declare -a bare perf fl
load >/dev/null		# warm the server up once
for ((r = 0; r < ROUNDS; r++)); do
	for v in $(rotate "$r" bare perf fl); do
		[ "$v" != bare ] && start_tool "$v"
		rps=$(load)
		[ "$v" != bare ] && stop_tool
		eval "$v+=($rps)"
	done
done

echo "== redis-server, redis-benchmark -n $REQUESTS -c 20 -t set,get, $ROUNDS interleaved rounds"
DIGITS=0 show "bare (requests/s)" "${bare[@]}"
DIGITS=0 show "perf record -p (requests/s)" "${perf[@]}"
DIGITS=0 show "faultline record -p (requests/s)" "${fl[@]}"
b=$(printf '%s\n' "${bare[@]}" | median)
p=$(printf '%s\n' "${perf[@]}" | median)
f=$(printf '%s\n' "${fl[@]}" | median)
pl=$(calc "100 * (1 - $p / $b)" 1)
fll=$(calc "100 * (1 - $f / $b)" 1)
echo "  throughput lost (medians): perf $pl%, faultline $fll%;" \
	"faultline / perf: $(calc "($b - $f) / ($b - $p)" 2)"
# Round by round, the requests/s each tool cost against that round's bare.
declare -a fl_loss perf_loss
for ((r = 0; r < ROUNDS; r++)); do
	fl_loss+=("$((bare[r] - fl[r]))")
	perf_loss+=("$((bare[r] - perf[r]))")
done
echo "  throughput lost, round by round:"
sign_verdict faultline perf "${fl_loss[*]}" "${perf_loss[*]}"
