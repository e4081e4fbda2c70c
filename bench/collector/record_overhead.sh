#!/bin/bash
# bench/collector/record_overhead.sh: what `faultline record` costs the
# fault loop (bench/collector/fault_loop.c), against `perf record` with
# the same three events, side by side in ROUNDS interleaved rounds (each
# round runs bare, perf and faultline once, in a rotating order):
#
#   1. on the target's CPU: the loop's wall time per fault, and its own
#      CPU time per fault (which holds what the kernel does for the
#      recorder in the faulting thread); what each tool adds over bare
#   2. the recorder's own CPU time (the tool's, less the loop's), and
#      what each lost; from runs of FAULTS and of 10 x FAULTS faults,
#      what a million faults more cost each and what a recording costs
#      whatever its length; and SQLite's own CPU for a million fault
#      rows (bench/schema/loader_rate.c), the floor under storing them
#   3. end to end: from the start of recording to a queryable SQLite
#      database: faultline record, against perf record followed by
#      perf's export-to-sqlite.py
#   4. memory: peak RSS of each tool, for FAULTS and 10 x FAULTS faults,
#      and bytes on disk per fault (database row and index entries;
#      perf.data)
#
# Each figure is given as its median over the rounds, its best, and its
# spread (25th to 75th percentile); faultline against perf gets a sign
# test over the rounds and says "within noise" where it is.  The loop
# runs pinned to the last CPU and the tools to the first.
set -euo pipefail

# perf record runs with -B: its build-id step after recording is not
# what is compared, and skipping it only makes perf's figures cheaper.

FAULTLINE=${FAULTLINE:-./faultline}
LOOP=${LOOP:-build/release/bench/fault_loop}
LOADER_RATE=${LOADER_RATE:-build/release/bench/loader_rate}
ROUNDS=${ROUNDS:-15}
FAULTS=${FAULTS:-131072}
EVENTS=page-faults,minor-faults,major-faults
EXPORT=${EXPORT:-/usr/lib/perf-core/scripts/python/export-to-sqlite.py}

last_cpu=$(($(nproc) - 1))
LOOP_PINNED=(taskset -c "$last_cpu" "$LOOP")
TOOL_PIN=(taskset -c 0)
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib.sh"

perf_lost() {	# $1 = perf.data: LOST records, all events
	{ perf report -i "$1" --stats 2>/dev/null || true; } |
		awk '/ LOST events:/ && !n { n = $3 } END { print n + 0 }'
}

# One run of tool $1; appends its figures to the arrays named after it.
declare -a bare_ns bare_cpu bare_wall perf_ns perf_cpu perf_own perf_wall \
	fl_ns fl_cpu fl_own fl_wall fl_self
perf_lost_sum=0
fl_lost_sum=0
# perf writes OUTPUT.data: the end-to-end figure below exports the last
# short round's.
run_tool() {	# $1 = bare, perf or fl; $2 = faults; $3 = output file
	case "$1" in
	bare) timed "$3" "${LOOP_PINNED[@]}" "$2" ;;
	perf) timed "$3" "${TOOL_PIN[@]}" perf record -q -B -c 1 -e "$EVENTS" \
		-o "$3.data" -- "${LOOP_PINNED[@]}" "$2" 2>/dev/null ;;
	fl) rm -f "$tmp"/fl.db*
	    timed "$3" "${TOOL_PIN[@]}" "$FAULTLINE" record -q -o "$tmp/fl.db" \
		-- "${LOOP_PINNED[@]}" "$2" ;;
	esac
}

# The tool's own CPU time in ms (all of it less the loop's) of a run_tool
# output file.
own_ms() { calc "($(cat "$1.cpu") - $(field cpu_ns "$1") / 1e9) * 1e3" 1; }

run_one() {
	local t0 t1 out=$tmp/out wcpu
	t0=$(now)
	run_tool "$1" "$FAULTS" "$out"
	t1=$(now)
	wcpu=$(calc "$(field cpu_ns "$out") / 1e9" 4)
	eval "$1_ns+=(\"$(field ns_per_fault "$out")\")"
	eval "$1_cpu+=(\"$(calc "$wcpu * 1e9 / $FAULTS" 1)\")"
	eval "$1_wall+=(\"$(calc "$t1 - $t0" 4)\")"
	case "$1" in
	perf) perf_own+=("$(own_ms "$out")")
	      perf_lost_sum=$((perf_lost_sum + $(perf_lost "$out.data"))) ;;
	fl) fl_own+=("$(own_ms "$out")")
	    fl_self+=("$(sqlite3 "$tmp/fl.db" "SELECT (recorder_user_ns +
		recorder_sys_ns) / 1e6 FROM session")")
	    fl_lost_sum=$((fl_lost_sum + $(sqlite3 "$tmp/fl.db" "SELECT
		records_lost + samples_lost + records_dropped FROM session"))) ;;
	esac
}

for ((r = 0; r < ROUNDS; r++)); do
	for t in $(rotate "$r" bare perf fl); do
		run_one "$t"
	done
done

fl_rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM fault")

# What one more fault costs each recorder, apart from what a recording
# costs however short: its own CPU for 10 x FAULTS faults, in LONG_ROUNDS
# rounds of their own, less that for FAULTS, over the 9 x FAULTS faults
# between.  The figure for FAULTS alone holds both; perf's part that does
# not grow with the recording is most of its figure there.
LONG_ROUNDS=${LONG_ROUNDS:-3}
declare -a perf_long fl_long
for ((r = 0; r < LONG_ROUNDS; r++)); do
	for t in $(rotate "$r" perf fl); do
		run_tool "$t" "$((FAULTS * 10))" "$tmp/long"
		eval "${t}_long+=(\"$(own_ms "$tmp/long")\")"
		case "$t" in
		perf) perf_lost_sum=$((perf_lost_sum + $(perf_lost "$tmp/long.data"))) ;;
		fl) fl_lost_sum=$((fl_lost_sum + $(sqlite3 "$tmp/fl.db" "SELECT
			records_lost + samples_lost + records_dropped FROM session"))) ;;
		esac
	done
done

# Added cost, round by round: tool minus that round's bare run.
added() {	# $1 = array name of the tool, $2 = of bare
	local -n a=$1 b=$2
	for ((i = 0; i < ${#a[@]}; i++)); do calc "${a[$i]} - ${b[$i]}" 1; echo; done
}
mapfile -t perf_add < <(added perf_ns bare_ns)
mapfile -t fl_add < <(added fl_ns bare_ns)
mapfile -t perf_cadd < <(added perf_cpu bare_cpu)
mapfile -t fl_cadd < <(added fl_cpu bare_cpu)

echo "== fault loop, $FAULTS minor faults, $ROUNDS interleaved rounds"
echo "-- on the target's CPU: wall time per fault (ns)"
show "bare" "${bare_ns[@]}"
show "perf record -c 1" "${perf_ns[@]}"
show "faultline record" "${fl_ns[@]}"
show "perf adds" "${perf_add[@]}"
show "faultline adds" "${fl_add[@]}"
echo "  faultline's added cost / perf's (medians):" \
	"$(calc "$(printf '%s\n' "${fl_add[@]}" | median) / $(printf '%s\n' "${perf_add[@]}" | median)")"
sign_verdict faultline perf "${fl_ns[*]}" "${perf_ns[*]}"
echo "-- on the target's CPU: the loop's own CPU time per fault (ns)"
show "bare" "${bare_cpu[@]}"
show "perf adds" "${perf_cadd[@]}"
show "faultline adds" "${fl_cadd[@]}"
sign_verdict faultline perf "${fl_cpu[*]}" "${perf_cpu[*]}"
echo "-- the recorder's own CPU time (ms for $FAULTS faults; the tool's, less the loop's)"
show "perf record" "${perf_own[@]}"
show "faultline record" "${fl_own[@]}"
show "  (faultline's session row says)" "${fl_self[@]}"
echo "-- the recorder's own CPU time for $((FAULTS * 10)) faults (ms; $LONG_ROUNDS rounds)"
show "perf record" "${perf_long[@]}"
show "faultline record" "${fl_long[@]}"
# per_million SHORT LONG: ms per million faults between the two medians;
# fixed SHORT LONG: ms a recording costs whatever its length.
per_million() { calc "($2 - $1) * 1e6 / ($FAULTS * 9)" 0; }
fixed_ms() { calc "$1 - ($2 - $1) / 9" 0; }
perf_short=$(printf '%s\n' "${perf_own[@]}" | median)
perf_long_ms=$(printf '%s\n' "${perf_long[@]}" | median)
fl_short=$(printf '%s\n' "${fl_own[@]}" | median)
fl_long_ms=$(printf '%s\n' "${fl_long[@]}" | median)
echo "  per million faults more (medians): perf $(per_million "$perf_short" "$perf_long_ms") ms," \
	"faultline $(per_million "$fl_short" "$fl_long_ms") ms:" \
	"$(calc "($fl_long_ms - $fl_short) / ($perf_long_ms - $perf_short)" 1)x"
echo "  a recording's fixed cost (medians): perf $(fixed_ms "$perf_short" "$perf_long_ms") ms," \
	"faultline $(fixed_ms "$fl_short" "$fl_long_ms") ms"
# SQLite's own part of a stored fault (bench/schema/loader_rate.c): the
# floor under any recorder that keeps a row per fault in SQLite, held
# against perf's figure just above.
if [ -x "$LOADER_RATE" ]; then
	floor=$(taskset -c 0 "$LOADER_RATE" 1000000 "$tmp" |
		awk '/^  no index/ { b = $3 } /^  the two fault indexes/ { i = $5 }
		     END { print b, i }')
	read -r floor_bare floor_idx <<<"$floor"
	perf_pm=$(per_million "$perf_short" "$perf_long_ms")
	# ns a row is ms a million rows.
	echo "  SQLite alone, per million fault rows (best of 3):" \
		"no index $floor_bare ms ($(calc "$floor_bare / $perf_pm" 1)x perf's)," \
		"the two fault indexes $floor_idx ms ($(calc "$floor_idx / $perf_pm" 1)x)"
else
	echo "  SQLite alone: $LOADER_RATE is not built (make bench builds it)"
fi
echo "-- lost over all rounds, the longer included: perf $perf_lost_sum LOST records, faultline $fl_lost_sum" \
	"(kernel and spool); faultline stored $fl_rows fault rows a round"

# End to end: perf's database needs perf script + export-to-sqlite.py.
echo
echo "== end to end: start of recording to a queryable database (s)"
DIGITS=3 show "bare loop" "${bare_wall[@]}"
DIGITS=3 show "faultline record" "${fl_wall[@]}"
declare -a export_s perf_total
export_ok=1
for ((r = 0; r < 3 && export_ok; r++)); do
	rm -f "$tmp/perf.db"
	t0=$(now)
	if ! (cd "$tmp" && perf script -i out.data -s "$EXPORT" perf.db >/dev/null 2>&1); then
		export_ok=0
		break
	fi
	t1=$(now)
	export_s+=("$(calc "$t1 - $t0" 4)")
done
bw=$(printf '%s\n' "${bare_wall[@]}" | median)
fw=$(printf '%s\n' "${fl_wall[@]}" | median)
if ((export_ok)); then
	ew=$(printf '%s\n' "${export_s[@]}" | median)
	for w in "${perf_wall[@]}"; do perf_total+=("$(calc "$w + $ew" 4)"); done
	pt=$(printf '%s\n' "${perf_total[@]}" | median)
	perf_rows=$(sqlite3 "$tmp/perf.db" "SELECT count(*) FROM samples" 2>/dev/null || echo 0)
	DIGITS=3 show "perf record + export-to-sqlite.py" "${perf_total[@]}"
	echo "  export-to-sqlite.py alone (median of 3): $(calc "$ew" 3) s for $perf_rows rows"
	echo "  time added over bare (medians): faultline $(calc "$fw - $bw" 3) s," \
		"perf + export $(calc "$pt - $bw" 3) s: perf / faultline = $(calc "($pt - $bw) / ($fw - $bw)" 1)"
else
	echo "  perf script -s export-to-sqlite.py failed here: no perf figure this run"
fi

# Peak memory and bytes on disk, in runs of their own (nothing timed).
# Peak RSS is the kernel's, from wait4 (GNU time's %M), the same way for
# both: it covers the whole run, faultline's index build at the end
# included, and the command each tool forks (which after its exec holds
# far less than the tool).  The session row's own figure is read before
# the indexes are built, and is shown beside it.
peak_kb() {	# the rest: a command line; prints its peak RSS in KiB
	/usr/bin/time -f '%M' -o "$tmp/peak" "$@" >/dev/null 2>&1 || true
	tail -n 1 "$tmp/peak"
}
echo
echo "== memory: peak RSS (MiB), and bytes on disk per fault"
for n in "$FAULTS" "$((FAULTS * 10))"; do
	rm -f "$tmp"/fl.db*
	fl_kb=$(peak_kb "$FAULTLINE" record -q -o "$tmp/fl.db" -- "$LOOP" "$n")
	p_kb=$(peak_kb perf record -q -B -c 1 -e "$EVENTS" -o "$tmp/perf.data" -- "$LOOP" "$n")
	rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM fault")
	printf '  %9s faults: faultline %7s MiB (session row: %s MiB, spool %s MiB at most of %s),' \
		"$n" "$(calc "$fl_kb / 1024" 1)" \
		"$(sqlite3 "$tmp/fl.db" "SELECT round(recorder_max_rss_bytes / 1048576.0, 1) FROM session")" \
		"$(sqlite3 "$tmp/fl.db" "SELECT round(spool_peak_bytes / 1048576.0, 1) FROM session")" \
		"$(sqlite3 "$tmp/fl.db" "SELECT spool_bytes / 1048576 FROM session")"
	printf ' perf %7s MiB: %s\n' "$(calc "$p_kb / 1024" 1)" "$(calc "$fl_kb / $p_kb" 1)x"
	printf '  %9s faults: database %s bytes per fault row (table %s, indexes %s), perf.data %s per fault\n' \
		"$n" "$(calc "$(stat -c %s "$tmp/fl.db") / $rows" 1)" \
		"$(sqlite3 "$tmp/fl.db" "SELECT round(sum(pgsize) * 1.0 / $rows, 1) FROM dbstat WHERE name = 'fault'")" \
		"$(sqlite3 "$tmp/fl.db" "SELECT round(sum(pgsize) * 1.0 / $rows, 1) FROM dbstat WHERE name LIKE 'fault_by_%'")" \
		"$(calc "$(stat -c %s "$tmp/perf.data") / $n" 1)"
done
