#!/bin/bash
# bench/collector/syscall_overhead.sh: what timing system calls costs a
# loop of one-byte preads of /dev/zero (bench/collector/syscall_loop.c),
# side by side in ROUNDS interleaved rounds:
#
#   bare
#   perf trace -e pread64 --duration 1          (prints calls of 1 ms or
#                                                more, none here)
#   perf record -e raw_syscalls:sys_enter,sys_exit --filter 'id == N'
#                                                (the same events and
#                                                filter faultline opens)
#   faultline record --syscalls=pread64          (default threshold: 1 ms)
#
# For each: the loop's wall time per call and its own CPU time per call
# (what the kernel does for the recorder in the calling thread), what each
# tool adds over bare, and the recorder's own CPU per million calls;
# medians, best and spread, a sign test of faultline against perf record.
# The loop runs pinned to the last CPU, the tools to the first.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/syscall_loop}
ROUNDS=${ROUNDS:-9}
CALLS=${CALLS:-500000}

last_cpu=$(($(nproc) - 1))
WL=(taskset -c "$last_cpu" "$LOOP" "$CALLS")
TOOL=(taskset -c 0)
NR=$(printf '#include <sys/syscall.h>\nSYS_pread64\n' | cc -E -P - | tail -n1)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib.sh"

variants=(bare trace perf fl)
for v in "${variants[@]}"; do
	declare -a "${v}_ns=()" "${v}_cpu=()" "${v}_own=()"
done

run_one() {
	local out=$tmp/out wcpu
	rm -f "$tmp"/fl.db* "$tmp/perf.data"
	case "$1" in
	bare) timed "$out" "${WL[@]}" ;;
	trace) timed "$out" "${TOOL[@]}" perf trace -e pread64 --duration 1 \
		-o "$tmp/trace.txt" -- "${WL[@]}" ;;
	perf) timed "$out" "${TOOL[@]}" perf record -q -B -e raw_syscalls:sys_enter \
		--filter "id == $NR" -e raw_syscalls:sys_exit --filter "id == $NR" \
		-o "$tmp/perf.data" -- "${WL[@]}" 2>/dev/null ;;
	fl) timed "$out" "${TOOL[@]}" "$FAULTLINE" record -q --syscalls=pread64 \
		-o "$tmp/fl.db" -- "${WL[@]}" ;;
	esac
	wcpu=$(calc "$(field cpu_ns "$out") / 1e9" 4)
	eval "$1_ns+=(\"$(field ns_per_call "$out")\")"
	eval "$1_cpu+=(\"$(calc "$wcpu * 1e9 / $CALLS" 1)\")"
	eval "$1_own+=(\"$(calc "($(cat "$out.cpu") - $wcpu) * 1e9 / $CALLS" 1)\")"
	if [ "$1" = fl ]; then
		sqlite3 "$tmp/fl.db" "SELECT sum(count) FROM syscall_histogram
			WHERE name = 'pread64'" >"$tmp/fl.counted"
	fi
}

for ((r = 0; r < ROUNDS; r++)); do
	for v in $(rotate "$r" "${variants[@]}"); do
		run_one "$v"
	done
done

added() {	# $1 = a variant's array: less bare's, round by round
	local -n a=$1 b=bare_${1##*_}
	for ((i = 0; i < ${#a[@]}; i++)); do calc "${a[$i]} - ${b[$i]}" 1; echo; done
}
med() { local -n a=$1; printf '%s\n' "${a[@]}" | median; }
label() {
	case "$1" in
	trace) echo "perf trace -e pread64 --duration 1" ;;
	perf) echo "perf record raw_syscalls, filtered" ;;
	fl) echo "faultline record --syscalls=pread64" ;;
	esac
}

echo "== pread64 loop, $CALLS calls, $ROUNDS interleaved rounds"
echo "-- on the loop's CPU: wall time per call (ns)"
show "bare" "${bare_ns[@]}"
for v in trace perf fl; do
	mapfile -t add < <(added "${v}_ns")
	show "$(label "$v") adds" "${add[@]}"
	eval "${v}_add=(\"\${add[@]}\")"
done
for v in trace perf; do
	echo "  faultline / $(label "$v"), added cost (medians): $(calc "$(med fl_add) / $(med "${v}_add")")"
done
sign_verdict faultline "perf record" "${fl_ns[*]}" "${perf_ns[*]}"
# perf trace's own CPU is not shown: its rusage less the loop's came out
# negative (about -20 us a call here), so its rusage does not hold the
# loop's and the difference is no figure of its own.
echo "-- the recorder's own CPU per call (ns; the tool's, less the loop's)"
for v in perf fl; do
	show "$(label "$v")" $(eval echo "\${${v}_own[@]}")
done
echo "  faultline / perf record, own CPU (medians): $(calc "$(med fl_own) / $(med perf_own)")"
echo "-- faultline counted $(cat "$tmp/fl.counted") preads in its last round (the loop made $CALLS, plus the loader's)"
