#!/bin/bash
# bench/fleet/export_pg.sh: faultline export --to PostgreSQL on loopback
# (a Unix socket), beside the server's own COPY of the same rows from
# files (the physical limit) and perf's own export-to-postgresql.py, in
# the same run, against the same server:
#
#   faultline: session 2 of bench/lib.sh's session_10m (10M fault rows,
#              1M thread_state rows, 1M metric points), into a new schema
#              each round;
#   COPY:      the same rows, as faultline loaded them (dumped once with
#              COPY ... TO, in text and in binary format), loaded by the
#              server itself: COPY ... FROM '/path' as the postgres
#              superuser, into the same tables with the same keys and
#              indexes (pg_dump --schema-only of faultline's schema:
#              tables, then COPY, then keys and indexes), a new schema
#              each round, one transaction; from the text files and from
#              the binary ones;
#   perf:      a perf.data of FAULTS page-fault samples of the same loop
#              the record benchmarks use (perf record -c 1 -e page-faults),
#              into a new database each round (the script creates it).
#
# Each round runs the three, in turns (rotate); per tool it prints rows/s
# (the rows each loaded, over its wall time, table creation, COPY and
# indexes or keys included), the median and best of ROUNDS, faultline's
# time over each COPY's (the goal: within 1.3x) and its rows/s over perf's,
# and where the CPU went: the tool's own (user + system) beside the
# server's (the postmaster's and its children's, from /proc: a backend's
# time lands in the postmaster's cutime/cstime when it exits).  When the
# server's CPU is most of the wall time, the server is the bottleneck.
#
# The server is tests/pg_server.sh's (fsync off, as for the tests: both
# tools get the same).  Timings on a shared 2-core VM are noisy: read the
# ratios.  Needs: postgresql, linux-perf, python3-pyside2.qtsql,
# libqt5sql5-psql (mk/deps.sh bench); about 6 GB of disk under $BUILD.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
LOOP=${LOOP:-$BUILD/bench/fault_loop}
ROUNDS=${ROUNDS:-3}
FAULTS=${FAULTS:-10000000}
JOBS=${JOBS:-2}
T=1700000000000000000	# the session's start, ns since the epoch
dir=$BUILD/bench/fleet
db=$dir/session.db
script=
for s in /usr/lib/perf-core/scripts/python/export-to-postgresql.py \
	/usr/share/perf-core/scripts/python/export-to-postgresql.py; do
	[ -f "$s" ] && script=$s
done
[ -n "$script" ] || { echo "export_pg: perf's export-to-postgresql.py not found (linux-perf)" >&2; exit 1; }

. "$(dirname "$0")/../lib.sh"	# now, calc, stats, show, timed, rotate, session_10m
rm -rf "$dir"
mkdir -p "$dir"
server=
cleanup() {
	[ -z "$server" ] || tests/pg_server.sh stop "$server"
	rm -rf "$dir"
}
trap cleanup EXIT

{ read -r server; read -r url; } < <(tests/pg_server.sh start $$)
export PGHOST=$server PGUSER=postgres	# perf's script takes these, as libpq does
tick=$(getconf CLK_TCK)

# The server's CPU so far, in s: the postmaster's own and that of its
# children, exited (cutime, cstime) and running.
server_cpu() {
	local pm
	pm=$(head -n1 "$server/data/postmaster.pid")
	{
		awk '{ print $14 + $15 + $16 + $17 }' "/proc/$pm/stat"
		for p in $(pgrep -P "$pm"); do
			awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || true
		done
	} | awk -v t="$tick" '{ s += $1 } END { printf "%.3f\n", s / t }'
}

echo "== the data"
start=$(now)
session_10m "$db" bench/fleet/export_pg.sh
echo "  faultline: session 2 made in $(calc "$(now) - $start" 1) s:" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM fault WHERE session_id = 2) || ' fault, ' ||
		(SELECT count(*) FROM thread_state WHERE session_id = 2) || ' thread_state, ' ||
		(SELECT count(*) FROM metric) || ' metric rows'")"
perf record -q -B -c 1 -e page-faults -o "$dir/perf.data" -- "$LOOP" "$FAULTS" \
	>/dev/null 2>&1
echo "  perf: $(perf report -i "$dir/perf.data" --stats 2>/dev/null |
	sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n1) page-fault samples"

# The COPY reference: faultline's rows of session 2 loaded once into
# schema fl_copy_src, dumped to a file per table (by the server, which
# owns them) and its DDL to pre.sql (tables) and post.sql (keys, indexes)
# for schema fl_copy.
ref=$dir/copy
mkdir -p "$ref"
chown postgres: "$ref"
"$FAULTLINE" export "$db" --session 2 --to "$url" --schema fl_copy_src \
	--jobs "$JOBS" 2>/dev/null
for section in pre-data post-data; do
	pg_dump --schema-only --no-owner --no-privileges --section="$section" \
		-n fl_copy_src "$url" | sed 's/fl_copy_src/fl_copy/g' >"$ref/${section%-data}.sql"
done
: >"$ref/copy.sql"
: >"$ref/copy_bin.sql"
for t in $(psql -qAtX "$url" -c "SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'fl_copy_src' AND table_type = 'BASE TABLE'
		ORDER BY table_name"); do
	psql -qX "$url" -c "COPY fl_copy_src.\"$t\" TO '$(realpath "$ref")/$t.tsv'" \
		-c "COPY fl_copy_src.\"$t\" TO '$(realpath "$ref")/$t.bin' (FORMAT binary)" \
		>/dev/null
	echo "COPY fl_copy.\"$t\" FROM '$(realpath "$ref")/$t.tsv';" >>"$ref/copy.sql"
	echo "COPY fl_copy.\"$t\" FROM '$(realpath "$ref")/$t.bin' (FORMAT binary);" \
		>>"$ref/copy_bin.sql"
done
copy_rows=$(cat "$ref"/*.tsv | wc -l)
psql -qX "$url" -c "SET client_min_messages = warning" \
	-c "DROP SCHEMA fl_copy_src CASCADE" >/dev/null
echo "  COPY: $copy_rows rows in $(ls "$ref"/*.tsv | wc -l) files," \
	"$(cat "$ref"/*.tsv | wc -c | awk '{ printf "%.0f", $1 / 1048576 }') MB of text," \
	"$(cat "$ref"/*.bin | wc -c | awk '{ printf "%.0f", $1 / 1048576 }') MB binary"

fl_rate=() fl_cpu=() fl_srv=() fl_wall=()
cp_rate=() cp_cpu=() cp_srv=() cp_wall=()
cb_rate=() cb_cpu=() cb_srv=() cb_wall=()
pf_rate=() pf_cpu=() pf_srv=() pf_wall=()

run_faultline() {
	local s0 t0 wall rows
	psql -qX "$url" -c "SET client_min_messages = warning" \
		-c "DROP SCHEMA IF EXISTS bench CASCADE" >/dev/null
	s0=$(server_cpu)
	t0=$(now)
	timed "$dir/fl.out" "$FAULTLINE" export "$db" --session 2 --to "$url" \
		--schema bench --jobs "$JOBS" 2>"$dir/fl.err"
	wall=$(calc "$(now) - $t0" 3)
	rows=$(sed -n 's/.* \([0-9]*\) rows in .*/\1/p' "$dir/fl.err" | tail -n1)
	fl_wall+=("$wall")
	fl_rate+=("$(calc "$rows / $wall" 0)")
	fl_cpu+=("$(cat "$dir/fl.out.cpu")")
	fl_srv+=("$(calc "$(server_cpu) - $s0" 3)")
	fl_rows=$rows
}

# copy_from cp|cb FILE: the COPY statements of FILE between the DDL.
copy_from() {
	local s0 t0 wall t=$1
	psql -qX "$url" -c "SET client_min_messages = warning" \
		-c "DROP SCHEMA IF EXISTS fl_copy CASCADE" >/dev/null
	s0=$(server_cpu)
	t0=$(now)
	timed "$dir/$t.out" psql -qX -v ON_ERROR_STOP=1 --single-transaction "$url" \
		-f "$ref/pre.sql" -f "$2" -f "$ref/post.sql" >/dev/null
	wall=$(calc "$(now) - $t0" 3)
	eval "${t}_wall+=(\"$wall\")"
	eval "${t}_rate+=(\"$(calc "$copy_rows / $wall" 0)\")"
	eval "${t}_cpu+=(\"$(cat "$dir/$t.out.cpu")\")"
	eval "${t}_srv+=(\"$(calc "$(server_cpu) - $s0" 3)\")"
}
run_copy() { copy_from cp "$ref/copy.sql"; }
run_copybin() { copy_from cb "$ref/copy_bin.sql"; }

run_perf() {
	local s0 t0 wall rows
	PGOPTIONS='-c client_min_messages=warning' psql -qX "$url" \
		-c "DROP DATABASE IF EXISTS perfbench" >/dev/null
	s0=$(server_cpu)
	t0=$(now)
	(cd "$dir" && timed perf.out perf script -i perf.data -s "$script" perfbench \
		2>perf.err)
	wall=$(calc "$(now) - $t0" 3)
	rows=$(psql -qAtX -d perfbench -c "SELECT count(*) FROM samples")
	pf_wall+=("$wall")
	pf_rate+=("$(calc "$rows / $wall" 0)")
	pf_cpu+=("$(cat "$dir/perf.out.cpu")")
	pf_srv+=("$(calc "$(server_cpu) - $s0" 3)")
	pf_rows=$rows
}

echo
echo "== $ROUNDS rounds, in turns"
for ((r = 0; r < ROUNDS; r++)); do
	for tool in $(rotate "$r" faultline copy copybin perf); do
		"run_$tool"
	done
	echo "  round $((r + 1)): faultline ${fl_wall[-1]} s, COPY text ${cp_wall[-1]} s," \
		"COPY binary ${cb_wall[-1]} s, perf ${pf_rate[-1]} rows/s (${pf_wall[-1]} s)"
done

echo
echo "== wall s (faultline: $fl_rows rows of session 2, every table; perf: $pf_rows samples)"
DIGITS=2 show "faultline export --to" "${fl_wall[@]}"
DIGITS=2 show "server COPY FROM text file" "${cp_wall[@]}"
DIGITS=2 show "server COPY FROM binary file" "${cb_wall[@]}"
DIGITS=2 show "perf export-to-postgresql.py" "${pf_wall[@]}"
fl_wmed=$(printf '%s\n' "${fl_wall[@]}" | median)
cp_wmed=$(printf '%s\n' "${cp_wall[@]}" | median)
cb_wmed=$(printf '%s\n' "${cb_wall[@]}" | median)
echo "  faultline's time / COPY's time (medians; the goal: within 1.3):" \
	"$(calc "$fl_wmed / $cp_wmed") of text COPY, $(calc "$fl_wmed / $cb_wmed") of binary COPY"
fl_med=$(printf '%s\n' "${fl_rate[@]}" | median)
pf_med=$(printf '%s\n' "${pf_rate[@]}" | median)
fl_best=$(printf '%s\n' "${fl_rate[@]}" | sort -g | tail -n1)
pf_best=$(printf '%s\n' "${pf_rate[@]}" | sort -g | tail -n1)
echo "  rows/s, median (best): faultline $fl_med ($fl_best), perf $pf_med ($pf_best)"
echo "  ratio faultline / perf, rows/s (medians): $(calc "$fl_med / $pf_med")"
echo
echo "== CPU s per run (median): the tool beside the server"
for t in fl cp cb pf; do
	case $t in
	fl) name=faultline ;;
	cp) name="COPY text" ;;
	cb) name="COPY bin" ;;
	*) name=perf ;;
	esac
	eval "wall=(\"\${${t}_wall[@]}\") cpu=(\"\${${t}_cpu[@]}\") srv=(\"\${${t}_srv[@]}\")"
	w=$(printf '%s\n' "${wall[@]}" | median)
	c=$(printf '%s\n' "${cpu[@]}" | median)
	s=$(printf '%s\n' "${srv[@]}" | median)
	printf '  %-10s wall %8.1f s   itself %8.1f s (%3.0f%%)   server %8.1f s (%3.0f%%)\n' \
		"$name" "$w" "$c" "$(calc "$c / $w * 100" 0)" "$s" "$(calc "$s / $w * 100" 0)"
done
