#!/bin/bash
# bench/servers/mariadb.sh: the share of a real database's throughput
# that recording it costs, as the latency-tracker slides measured on
# MySQL: sysbench oltp_read_write against MariaDB.  mariadbd runs pinned
# to the last CPU in a data directory of its own; sysbench (4 threads)
# and the recorder share the first CPU.  ROUNDS interleaved rounds, each
# running every variant once in a rotating order:
#
#   bare
#   perf record -p PID with faultline's default events: every page fault
#              (-c 1), sched:sched_switch, sched:sched_waking and the
#              switch records (--switch-events)
#   faultline record -p PID at its defaults
#
# Printed: transactions per second of each, the share lost against bare
# (medians), faultline's loss / perf's, and a sign test of the two
# losses round by round.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
ROUNDS=${ROUNDS:-5}
SECONDS_EACH=${SECONDS_EACH:-12}

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

for c in mariadbd mariadb-install-db mariadb sysbench; do
	command -v "$c" >/dev/null || PATH=$PATH:/usr/sbin
	command -v "$c" >/dev/null || {
		echo "mariadb.sh: needs $c (apt-get install mariadb-server sysbench; make deps-bench)" >&2
		exit 1
	}
done

# The server, in a directory of its own, as the mysql user.
chmod 755 "$tmp"
mkdir "$tmp/data"
chown mysql:mysql "$tmp/data"
mariadb-install-db --user=mysql --datadir="$tmp/data" >"$tmp/install.log" 2>&1
sock=$tmp/data/m.sock
taskset -c "$last_cpu" mariadbd --user=mysql --datadir="$tmp/data" --socket="$sock" \
	--skip-networking --innodb-buffer-pool-size=256M >"$tmp/server.log" 2>&1 &
server=$!
for ((i = 0; i < 300; i++)); do
	mariadb -S "$sock" -u root -e "SELECT 1" >/dev/null 2>&1 && break
	sleep 0.1
done
mariadb -S "$sock" -u root -e "CREATE DATABASE sbtest;
	CREATE USER sb@localhost IDENTIFIED BY 'sb'; GRANT ALL ON sbtest.* TO sb@localhost;"
SB=(sysbench oltp_read_write --db-driver=mysql --mysql-socket="$sock" --mysql-user=sb
    --mysql-password=sb --mysql-db=sbtest --tables=4 --table-size=20000)
"${SB[@]}" prepare >/dev/null

# One sysbench run: transactions per second.
load() {
	taskset -c 0 "${SB[@]}" --threads=4 --time="$SECONDS_EACH" run 2>/dev/null |
		awk '/transactions:/ { gsub(/[(]/, "", $3); print $3 }'
}

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
SECONDS_EACH=3 load >/dev/null	# warm the buffer pool up once
for ((r = 0; r < ROUNDS; r++)); do
	for v in $(rotate "$r" bare perf fl); do
		[ "$v" != bare ] && start_tool "$v"
		tps=$(load)
		[ "$v" != bare ] && stop_tool
		eval "$v+=($tps)"
	done
done

echo "== MariaDB, sysbench oltp_read_write --threads=4 --time=$SECONDS_EACH, $ROUNDS interleaved rounds"
show "bare (transactions/s)" "${bare[@]}"
show "perf record -p (transactions/s)" "${perf[@]}"
show "faultline record -p (transactions/s)" "${fl[@]}"
b=$(printf '%s\n' "${bare[@]}" | median)
p=$(printf '%s\n' "${perf[@]}" | median)
f=$(printf '%s\n' "${fl[@]}" | median)
echo "  throughput lost (medians): perf $(calc "100 * (1 - $p / $b)" 1)%," \
	"faultline $(calc "100 * (1 - $f / $b)" 1)%; faultline / perf: $(calc "($b - $f) / ($b - $p)" 2)"
declare -a fl_loss perf_loss
for ((r = 0; r < ROUNDS; r++)); do
	fl_loss+=("$(calc "${bare[r]} - ${fl[r]}" 2)")
	perf_loss+=("$(calc "${bare[r]} - ${perf[r]}" 2)")
done
echo "  throughput lost, round by round:"
sign_verdict faultline perf "${fl_loss[*]}" "${perf_loss[*]}"
