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
. "$(dirname "$0")/rounds.sh"

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

load >/dev/null		# warm the server up once
server_rounds

echo "== redis-server, redis-benchmark -n $REQUESTS -c 20 -t set,get, $ROUNDS interleaved rounds"
DIGITS=0 server_summary "requests/s"
