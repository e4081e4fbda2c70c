# The rounds a server benchmark runs, sourced by redis.sh and mariadb.sh
# after bench/lib.sh: with $server the server's pid, $tmp a scratch
# directory, $FAULTLINE and $ROUNDS set, and load() printing one figure
# of throughput (higher is better) for one run of the load generator.
#
#   server_rounds         ROUNDS interleaved rounds of bare, perf record
#                         -p and faultline record -p (with FL_ARGS, e.g.
#                         --no-wake-stacks, added), into the arrays
#                         bare, perf and fl; with FLIGHT=1 also perf
#                         record --overwrite (perf_ow) and faultline
#                         record --flight armed, never triggered (flight),
#                         with FLIGHT_ARGS (e.g. --no-wakers) added
#   server_summary UNIT   the three figures, each tool's loss against
#                         bare (medians), faultline's loss / perf's, and
#                         a sign test of the two losses round by round
#
# perf records faultline's default kinds of events: every page fault
# (-c 1), sched:sched_switch, sched:sched_waking with its kernel
# callchain (at most 32 frames, as faultline samples it) and the switch
# records.  perf's sched_waking, on -p, fires for the wake-ups the
# server issues; faultline's for the wake-ups of the server (on every
# CPU, filtered on its threads).  Each
# tool runs on the first CPU, beside the load generator, and gets a
# second to attach before the load starts.

PERF_EVENTS=(-c 1 -e page-faults -e sched:sched_switch
	-e sched:sched_waking/call-graph=fp,max-stack=32/ --kernel-callchains
	--switch-events)
tool=
start_tool() {
	case "$1" in
	perf) taskset -c 0 perf record -q -B "${PERF_EVENTS[@]}" -p "$server" \
		-o "$tmp/perf.data" >/dev/null 2>&1 & ;;
	perf_ow) taskset -c 0 perf record -q -B "${PERF_EVENTS[@]}" --overwrite \
		-p "$server" -o "$tmp/perf.data" >/dev/null 2>&1 & ;;
	fl) rm -f "$tmp"/fl.db*
	    # shellcheck disable=SC2086 # FL_ARGS: words
	    taskset -c 0 "$FAULTLINE" record -q -o "$tmp/fl.db" -p "$server" \
		${FL_ARGS:-} >/dev/null 2>&1 & ;;
	flight) rm -f "$tmp"/fl.db*
	    # shellcheck disable=SC2086 # FLIGHT_ARGS: words
	    taskset -c 0 "$FAULTLINE" record -q -o "$tmp/fl.db" -p "$server" --flight \
		${FLIGHT_ARGS:-} >/dev/null 2>&1 & ;;
	esac
	tool=$!
	sleep 1
}

stop_tool() {
	kill -INT "$tool" 2>/dev/null || true
	wait "$tool" 2>/dev/null || true
	tool=
}

declare -a bare perf fl perf_ow flight
server_variants=(bare perf fl)
[ "${FLIGHT:-0}" = 1 ] && server_variants+=(perf_ow flight)
server_rounds() {
	local r v x
	for ((r = 0; r < ROUNDS; r++)); do
		for v in $(rotate "$r" "${server_variants[@]}"); do
			[ "$v" != bare ] && start_tool "$v"
			x=$(load)
			[ "$v" != bare ] && stop_tool
			eval "$v+=($x)"
		done
	done
}

server_summary() {
	local unit=$1 b p f r
	local -a fl_loss perf_loss
	BEST=max show "bare ($unit)" "${bare[@]}"
	BEST=max show "perf record -p ($unit)" "${perf[@]}"
	BEST=max show "faultline record -p${FL_ARGS:+ $FL_ARGS} ($unit)" "${fl[@]}"
	b=$(printf '%s\n' "${bare[@]}" | median)
	p=$(printf '%s\n' "${perf[@]}" | median)
	f=$(printf '%s\n' "${fl[@]}" | median)
	echo "  throughput lost (medians): perf $(calc "100 * (1 - $p / $b)" 1)%," \
		"faultline $(calc "100 * (1 - $f / $b)" 1)%; faultline / perf:" \
		"$(calc "($b - $f) / ($b - $p)" 2)"
	for ((r = 0; r < ROUNDS; r++)); do
		fl_loss+=("$(calc "${bare[r]} - ${fl[r]}" 2)")
		perf_loss+=("$(calc "${bare[r]} - ${perf[r]}" 2)")
	done
	echo "  throughput lost, round by round:"
	sign_verdict faultline perf "${fl_loss[*]}" "${perf_loss[*]}"
	[ "${FLIGHT:-0}" = 1 ] || return 0
	BEST=max show "perf record -p --overwrite ($unit)" "${perf_ow[@]}"
	BEST=max show "faultline record -p --flight${FLIGHT_ARGS:+ $FLIGHT_ARGS} ($unit)" "${flight[@]}"
	p=$(printf '%s\n' "${perf_ow[@]}" | median)
	f=$(printf '%s\n' "${flight[@]}" | median)
	echo "  throughput lost (medians): perf --overwrite $(calc "100 * (1 - $p / $b)" 1)%," \
		"faultline --flight $(calc "100 * (1 - $f / $b)" 1)% (its goal: under 1%)"
}
