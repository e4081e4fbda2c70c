#!/bin/bash
# A long recording of a workload that faults and switches without end:
# faultline must hold its memory flat and lose nothing.
#
#   tests/soak.sh        FAULTLINE and WORKLOAD from the environment
#                        (make check-run sets both; `make soak` too)
#
#   SOAK_MINUTES   how long to record (default 30; make check runs 1)
#   SOAK_PER_MS    the workload's pace: faults and pipe round trips a
#                  millisecond (default 4: about 4,000 faults and 16,000
#                  switches a second, a rate the recorder keeps up with
#                  for as long as it lasts on the 2-core VM)
#   SOAK_RSS_GROWTH_MIB  the most the recorder's resident memory may grow
#                  after the warm-up (default 8)
#   SOAK_MODE      record (default), or flight: record --flight
#                  --max-memory 32M --spool-size 16M (what a dump keeps
#                  the engine from taking piles up there), a SIGUSR2
#                  every 20 s from 10 s on;
#                  the flight session then holds no faults, and "nothing
#                  lost" is instead: the dumps were made, a per-minute
#                  histogram was written for each minute, and the
#                  recorder's cost stored (its memory must stay flat all
#                  the same)
#
# fault_workload --storm 0 --per-ms N is recorded with -p and --duration.
# Every 10 s the recorder's VmRSS (/proc/PID/status) and CPU time
# (utime + stime of /proc/PID/stat) are sampled.  The warm-up is the
# first minute (the first half of a 1-minute soak): the spool is resident
# from the start, SQLite's cache and the decoder's tables fill to their
# working size, and after that RSS must stay within SOAK_RSS_GROWTH_MIB
# of its value at the warm-up's end.  Checks, each a pass or a failure:
#   - faultline ends the session complete (exit 0, --duration reached);
#   - nothing lost: no lost row, and the session's lost counts are 0;
#   - RSS flat after the warm-up.
# Prints the recorder's CPU per minute, then
#   soak: N passed, M failed
# (tests/run.sh reads that line), and exits 1 if a check failed.
# Here, not in bench/: it passes or fails, as a test does; bench/ holds
# measurements compared against a reference.
set -u

FAULTLINE=${FAULTLINE:-./faultline}
WORKLOAD=${WORKLOAD:-build/release/tests/fault_workload}
minutes=${SOAK_MINUTES:-30}
per_ms=${SOAK_PER_MS:-4}
growth_mib=${SOAK_RSS_GROWTH_MIB:-8}
mode=${SOAK_MODE:-record}
flight_args=()
[ "$mode" = flight ] && flight_args=(--flight --max-memory 32M --keep 2s,1s --spool-size 16M)
secs=$((minutes * 60))
warmup=60
if [ "$minutes" -le 1 ]; then
	warmup=$((secs / 2))
fi
hz=$(getconf CLK_TCK)
# Under AddressSanitizer (make check-san) freed memory waits in a
# quarantine of 256 MB before reuse, so RSS climbs until the quarantine
# is full at whatever pace the recorder frees: a recorder that frees
# less reached the plateau after the warm-up, not before, and "grew".
# A small quarantine measures the recorder's memory, not ASan's.  Other
# builds ignore the variable.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "soak: ok: $*"; }
fail() { failed=$((failed + 1)); echo "soak: FAIL: $*"; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/faultline-soak.XXXXXX") || exit 1
wl=
fl=
cleanup() {
	[ -n "$fl" ] && kill -9 "$fl" 2>/dev/null && wait "$fl" 2>/dev/null
	[ -n "$wl" ] && kill -9 "$wl" 2>/dev/null && wait "$wl" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$WORKLOAD" --storm 0 --per-ms "$per_ms" &
wl=$!
"$FAULTLINE" record -q -o "$dir/soak.db" -p "$wl" --duration "${secs}s" \
	"${flight_args[@]}" 2>"$dir/record.err" &
fl=$!
echo "soak: recording ($mode) fault_workload --storm 0 --per-ms $per_ms (pid $wl)" \
	"for $minutes min, faultline pid $fl"

# The recorder's VmRSS in KiB and CPU in clock ticks, or nothing once gone.
rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$fl/status" 2>/dev/null; }
cpu_ticks() {
	local s
	s=$(cat "/proc/$fl/stat" 2>/dev/null) || return
	s=${s##*) }
	# Fields from 3 on: utime is the 12th here (14th of the line), stime the 13th.
	set -- $s
	echo $((${12} + ${13}))
}

base_rss=
max_rss=0
last_cpu=0
minute_cpu=0
t=0
# The last sample 10 s before --duration ends: from then on the recorder
# ends the session (drains, builds the indexes: SQLite sorts in memory),
# which is no growth of the recording's memory.
while [ $((t + 10)) -lt "$secs" ] && kill -0 "$fl" 2>/dev/null; do
	sleep 10
	t=$((t + 10))
	rss=$(rss_kib)
	cpu=$(cpu_ticks)
	[ -z "$rss" ] || [ -z "$cpu" ] && break
	echo "soak: ${t}s rss $((rss / 1024)) MiB, cpu $(((cpu - last_cpu) * 1000 / hz)) ms in 10 s"
	last_cpu=$cpu
	if [ "$t" -ge "$warmup" ]; then
		[ -z "$base_rss" ] && base_rss=$rss
		[ "$rss" -gt "$max_rss" ] && max_rss=$rss
	fi
	# A dump every 20 s from 10 s on: the first one's memory (decoding
	# a window, SQLite's cache for the writes) comes in the warm-up, and
	# the ones after it must not grow it.
	if [ "$mode" = flight ] && [ $((t % 20)) -eq 10 ]; then
		kill -USR2 "$fl"
	fi
	if [ $((t % 60)) -eq 0 ]; then
		echo "soak: minute $((t / 60)): the recorder used" \
			"$(((cpu - minute_cpu) * 1000 / hz)) ms of CPU"
		minute_cpu=$cpu
	fi
done

wait "$fl"
rc=$?
fl=
# In braces: bash's own "Killed" line for the job goes there too.
{ kill -9 "$wl"; wait "$wl"; } 2>/dev/null
wl=

q() { sqlite3 "$dir/soak.db" "$1" 2>/dev/null; }
status=$(q "SELECT status || ' ' || coalesce(end_reason, '') FROM session
	WHERE session_id = 1")
if [ "$rc" -eq 0 ] && [ "$status" = "complete --duration reached" ]; then
	pass "the session ended complete after $minutes min"
else
	fail "faultline exited $rc, session '$status': $(head -c 2000 "$dir/record.err")"
fi

if [ "$mode" = flight ]; then
	dumps=$(q "SELECT count(*) FROM flight_dump")
	minutes_kept=$(q "SELECT count(DISTINCT minute_ts) FROM flight_minute WHERE session_id = 1")
	costs=$(q "SELECT count(*) FROM flight_cost WHERE session_id = 1")
	if [ "${dumps:-0}" -ge $(((secs - 10) / 20)) ] &&
	   [ "${minutes_kept:-0}" -ge "$minutes" ] && [ "${costs:-0}" -ge 1 ]; then
		pass "flight: $dumps dumps, histograms for $minutes_kept minutes, $costs cost rows"
	else
		fail "flight: ${dumps:-?} dumps, histograms for ${minutes_kept:-?} minutes (want $minutes), ${costs:-?} cost rows"
	fi
	lost=0 faults=1
else
lost=$(q "SELECT coalesce(records_lost, 0) + coalesce(samples_lost, 0) +
	coalesce(records_dropped, 0) + coalesce(rows_unwritten, 0) +
	coalesce(records_unstored, 0) + (SELECT count(*) FROM lost) FROM session")
faults=$(q "SELECT faults_stored FROM session")
fi
if [ "$mode" = flight ]; then
	:
elif [ "$lost" = 0 ] && [ "${faults:-0}" -gt 0 ]; then
	pass "nothing lost, $faults faults stored"
else
	fail "lost ${lost:-?} (records, samples, spool, unwritten, lost rows), $faults faults stored"
	q "SELECT kind, cpu, count FROM lost" | head -5 | sed 's/^/soak:   lost /'
fi

if [ -z "$base_rss" ]; then
	fail "no RSS sample after the ${warmup} s warm-up"
elif [ $((max_rss - base_rss)) -le $((growth_mib * 1024)) ]; then
	pass "RSS flat after ${warmup} s: $((base_rss / 1024)) MiB, at most $((max_rss / 1024)) MiB (bound: +$growth_mib MiB)"
else
	fail "RSS grew after ${warmup} s: from $((base_rss / 1024)) MiB to $((max_rss / 1024)) MiB (bound: +$growth_mib MiB)"
fi

echo "soak: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
