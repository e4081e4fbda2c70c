#!/bin/bash
# bench/collector/switch_overhead.sh: what recording scheduler events
# costs a context-switch storm (bench/collector/pingpong.c: two threads
# passing a byte through pipes, both pinned to the last CPU, so every
# round trip is two switches and two wake-ups there), side by side in
# ROUNDS interleaved rounds (each round runs every variant once, in a
# rotating order):
#
#   bare
#   every CPU:  perf record -e sched:sched_switch -e sched:sched_wakeup -a
#               faultline record -a (its switch records, sched_switch,
#               sched_waking and the fault events), thread_state rows
#               built as it goes
#   the storm as the command:
#               perf record -e sched:sched_switch -e sched:sched_waking
#               faultline record (per-thread events, sched_waking
#               filtered on the targets in the kernel, every thread's
#               switches on every CPU for what ran instead)
#               faultline record --no-ran-instead (without those)
#
# For each: the storm's wall time per switch and its own CPU time per
# switch (what the kernel does for the recorder in its threads), the
# recorder's own CPU per million switches (and, from runs ten times as
# long, per million switches more and its fixed cost; and SQLite's own
# CPU for the thread_state rows of a million switches, the floor under
# storing them), and what each lost; medians,
# best and spread over the rounds, and a sign test of faultline against
# perf ("within noise" where it is).  The tools run pinned to the first
# CPU.
set -euo pipefail

# perf record runs with -B: its build-id step after recording is not
# what is compared, and skipping it only makes perf's figures cheaper.

FAULTLINE=${FAULTLINE:-./faultline}
PINGPONG=${PINGPONG:-build/release/bench/pingpong}
ROUNDS=${ROUNDS:-15}
TRIPS=${TRIPS:-100000}

last_cpu=$(($(nproc) - 1))
TOOL=(taskset -c 0)
SWITCHES=$((TRIPS * 2))
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib.sh"

perf_lost() {	# $1 = perf.data: LOST records and samples
	{ perf report -i "$1" --stats 2>/dev/null || true; } |
		awk '/LOST/ { s += $NF } END { print s + 0 }'
}

variants=(bare perf_a fl_a perf_t fl_t fl_tn)
declare -A lost peak
for v in "${variants[@]}"; do
	declare -a "${v}_ns=()" "${v}_cpu=()" "${v}_own=()"
	lost[$v]=0
	peak[$v]=0
done

run_variant() {	# $1 = variant, $2 = round trips, $3 = output file
	local wl=(taskset -c "$last_cpu" "$PINGPONG" "$2")
	rm -f "$tmp"/fl.db* "$tmp/perf.data"
	case "$1" in
	bare) timed "$3" "${wl[@]}" ;;
	perf_a) timed "$3" "${TOOL[@]}" perf record -q -B -a -e sched:sched_switch \
		-e sched:sched_wakeup -o "$tmp/perf.data" -- "${wl[@]}" 2>/dev/null ;;
	fl_a) timed "$3" "${TOOL[@]}" "$FAULTLINE" record -q -a -o "$tmp/fl.db" -- "${wl[@]}" ;;
	perf_t) timed "$3" "${TOOL[@]}" perf record -q -B -e sched:sched_switch \
		-e sched:sched_waking -o "$tmp/perf.data" -- "${wl[@]}" 2>/dev/null ;;
	fl_t) timed "$3" "${TOOL[@]}" "$FAULTLINE" record -q -o "$tmp/fl.db" -- "${wl[@]}" ;;
	fl_tn) timed "$3" "${TOOL[@]}" "$FAULTLINE" record -q --no-ran-instead \
		-o "$tmp/fl.db" -- "${wl[@]}" ;;
	esac
}

# The tool's own CPU time in ms (all of it less the storm's) of a
# run_variant output file.
own_ms() { calc "($(cat "$1.cpu") - $(field cpu_ns "$1") / 1e9) * 1e3" 1; }

run_one() {
	local out=$tmp/out wcpu
	run_variant "$1" "$TRIPS" "$out"
	wcpu=$(calc "$(field cpu_ns "$out") / 1e9" 4)
	eval "$1_ns+=(\"$(calc "$(field ns_per_round_trip "$out") / 2" 1)\")"
	eval "$1_cpu+=(\"$(calc "$wcpu * 1e9 / $SWITCHES" 1)\")"
	eval "$1_own+=(\"$(own_ms "$out")\")"
	case "$1" in
	perf_*) lost[$1]=$((lost[$1] + $(perf_lost "$tmp/perf.data"))) ;;
	fl_*) lost[$1]=$((lost[$1] + $(sqlite3 "$tmp/fl.db" "SELECT records_lost +
		samples_lost + records_dropped FROM session")))
	      p=$(sqlite3 "$tmp/fl.db" "SELECT spool_peak_bytes FROM session")
	      ((p > peak[$1])) && peak[$1]=$p
	      sqlite3 "$tmp/fl.db" "SELECT records_seen FROM session" >"$tmp/$1.records" ;;
	esac
}

for ((r = 0; r < ROUNDS; r++)); do
	for v in $(rotate "$r" "${variants[@]}"); do
		run_one "$v"
	done
done

# What a million switches more cost each recorder, apart from what a
# recording costs however short: its own CPU for 10 x TRIPS round trips,
# in LONG_ROUNDS rounds of their own, less that for TRIPS.  perf's part
# that does not grow with the recording is much of its figure per
# million switches above.
LONG_ROUNDS=${LONG_ROUNDS:-3}
long_variants=(perf_a fl_a perf_t fl_t)
for v in "${long_variants[@]}"; do declare -a "${v}_long=()"; done
declare -A long_lost long_dropped	# all lost; faultline's dropped by its spool
for ((r = 0; r < LONG_ROUNDS; r++)); do
	for v in $(rotate "$r" "${long_variants[@]}"); do
		run_variant "$v" "$((TRIPS * 10))" "$tmp/long"
		eval "${v}_long+=(\"$(own_ms "$tmp/long")\")"
		case "$v" in
		perf_*) n=$(perf_lost "$tmp/perf.data") ;;
		fl_*) n=$(sqlite3 "$tmp/fl.db" "SELECT records_lost + samples_lost +
			records_dropped FROM session")
			long_dropped[$v]=$((${long_dropped[$v]:-0} + $(sqlite3 "$tmp/fl.db" \
				"SELECT records_dropped FROM session"))) ;;
		esac
		long_lost[$v]=$((${long_lost[$v]:-0} + n))
	done
done

added() {	# $1 = a variant's array (perf_a_ns): less bare's (bare_ns), round by round
	local -n a=$1 b=bare_${1##*_}
	for ((i = 0; i < ${#a[@]}; i++)); do calc "${a[$i]} - ${b[$i]}" 1; echo; done
}
med() { local -n a=$1; printf '%s\n' "${a[@]}" | median; }
label() {
	case "$1" in
	perf_a) echo "perf record sched_switch+wakeup -a" ;;
	fl_a) echo "faultline record -a" ;;
	perf_t) echo "perf record sched_switch+waking CMD" ;;
	fl_t) echo "faultline record CMD" ;;
	fl_tn) echo "faultline record --no-ran-instead CMD" ;;
	esac
}

echo "== context-switch storm, $TRIPS round trips ($SWITCHES switches), $ROUNDS interleaved rounds"
echo "-- on the storm's CPU: wall time per switch (ns)"
show "bare" "${bare_ns[@]}"
for v in perf_a fl_a perf_t fl_t fl_tn; do
	mapfile -t add < <(added "${v}_ns")
	show "$(label "$v") adds" "${add[@]}"
	eval "${v}_add=(\"\${add[@]}\")"
done
for pair in "fl_a perf_a" "fl_t perf_t" "fl_tn perf_t"; do
	set -- $pair
	echo "  $(label "$1") / $(label "$2"), added cost (medians): $(calc "$(med "${1}_add") / $(med "${2}_add")")"
	fa="${1}_ns[*]" pa="${2}_ns[*]"
	sign_verdict faultline perf "${!fa}" "${!pa}"
done
echo "-- on the storm's CPU: its own CPU time per switch (ns)"
show "bare" "${bare_cpu[@]}"
for v in perf_a fl_a perf_t fl_t fl_tn; do
	mapfile -t add < <(added "${v}_cpu")
	show "$(label "$v") adds" "${add[@]}"
done
for pair in "fl_a perf_a" "fl_t perf_t" "fl_tn perf_t"; do
	set -- $pair
	fa="${1}_cpu[*]" pa="${2}_cpu[*]"
	sign_verdict "$(label "$1")" perf "${!fa}" "${!pa}"
done
echo "-- the recorder's own CPU (ms per million switches; the tool's, less the storm's)"
for v in perf_a fl_a perf_t fl_t fl_tn; do
	mapfile -t own < <(for x in $(eval echo "\${${v}_own[@]}"); do calc "$x * 1e6 / $SWITCHES" 0; echo; done)
	show "$(label "$v")" "${own[@]}"
done
echo "-- the recorder's own CPU per million switches more, from $SWITCHES and $((SWITCHES * 10))" \
	"switches ($LONG_ROUNDS rounds of the longer; medians), and its fixed cost"
for pair in "fl_a perf_a" "fl_t perf_t"; do
	set -- $pair
	for v in "$2" "$1"; do
		short=$(med "${v}_own")
		long=$(med "${v}_long")
		eval "${v}_more=$(calc "($long - $short) * 1e6 / ($SWITCHES * 9)" 0)"
		printf '  %-40s %6s ms a million more, %5s ms fixed\n' "$(label "$v")" \
			"$(eval echo "\$${v}_more")" "$(calc "$short - ($long - $short) / 9" 0)"
	done
	echo "  $(label "$1") / $(label "$2"), a million more:" \
		"$(calc "$(eval echo "\$${1}_more") / $(eval echo "\$${2}_more")" 1)x"
done
# SQLite's own part of a stored switch: the thread_state rows of a
# longer recording of the storm as the command, copied by the sqlite3
# shell into an empty table of the same schema, less reading them: the
# floor under any recorder that keeps the whole timeline in SQLite,
# before decoding and before any index.  Best of 3.
run_variant fl_t "$((TRIPS * 10))" "$tmp/long"
sqlite3 "$tmp/fl.db" ".schema thread_state" >"$tmp/ts.sql"
shell_cpu() {	# $1 = database, $2 = SQL: the CPU (user + sys, s) of its last statement
	printf '.read %s\nATTACH %s AS src;\n.timer on\n%s;\n' "$tmp/ts.sql" \
		"'file:$tmp/fl.db?mode=ro'" "$2" | sqlite3 "$1" |
		awk '/^Run Time:/ { c = $6 + $8 } END { print c + 0 }'
}
ts_rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM thread_state")
floor=$(for i in 1 2 3; do
	rm -f "$tmp"/floor.db*
	copy=$(shell_cpu "$tmp/floor.db" "INSERT INTO main.thread_state SELECT * FROM src.thread_state")
	rm -f "$tmp"/floor.db*
	read=$(shell_cpu "$tmp/floor.db" "SELECT max(ts + dur + length(state) + ifnull(waker_tid, 0)
		+ ifnull(length(next_comm), 0) + ifnull(length(waker_comm), 0)) FROM src.thread_state")
	calc "($copy - $read) * 1e9 / ($SWITCHES * 10)" 0; echo
done | min)
echo "  SQLite alone, the thread_state rows of a switch ($(calc "$ts_rows / ($SWITCHES * 10)" 1) rows," \
	"no index): $floor ms a million switches, $(calc "$floor / $perf_t_more" 1)x perf CMD's a million more"
echo "  lost in the longer runs: perf -a ${long_lost[perf_a]}, faultline -a ${long_lost[fl_a]}" \
	"(${long_dropped[fl_a]} of them by its spool), perf CMD ${long_lost[perf_t]}," \
	"faultline CMD ${long_lost[fl_t]} (${long_dropped[fl_t]} by its spool; a tool" \
	"that loses does less: its figure is then too low)"
echo "-- lost over all $ROUNDS rounds (faultline: kernel and spool), records read, spool peak"
for v in perf_a fl_a perf_t fl_t fl_tn; do
	case "$v" in
	fl_*) extra=", $(cat "$tmp/$v.records") records read in the last round, spool peak $(calc "${peak[$v]} / 1048576" 1) MiB" ;;
	*) extra="" ;;
	esac
	printf '  %-40s %d lost%s\n' "$(label "$v")" "${lost[$v]}" "$extra"
done
