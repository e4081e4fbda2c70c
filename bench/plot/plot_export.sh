#!/bin/bash
# bench/plot/plot_export.sh: faultline plot (plot/) and faultline export
# (export/) on a session of 10M fault rows and 1M thread_state rows, and
# headless Chromium loading and drawing the page, best of ROUNDS each:
#
#   1. plot: the whole session as a page (HTML) and as a picture (SVG),
#      and a 1 s window of it; the time and the file's size
#   2. Chromium: the page loaded and drawn, as the page itself times it
#      (data-ready-ms: from navigation to the end of its first drawing;
#      data-draw-ms: the drawing alone), and the whole browser run
#      against the same run on an empty page
#   3. export: chrome-trace and csv; the time and the size; against
#      perf script and perf data convert --to-json on a perf.data of
#      FAULTS page-fault samples recorded in the same run (the ratio)
#
# The session is made as bench/queries/stalls_near.sh makes it: recursive
# CTEs into a database faultline record made, indexes dropped for the
# load and made after it (schema/indexes.sql), over 100 s:
#   8 threads; each takes a fault every 80 us (1.5-2.1 us long), 13 of
#   5 ms and one major fault of 150 ms; its timeline alternates 1.5 ms
#   running and 100 us sleeping, but 10 times 1.5 ms blocked;
#   10,000 imported 'nak' events and 990,000 samples of a socket's depth.
#
# Timings on a shared 2-core VM are noisy: read the ratios and the sizes.
# Needs: sqlite3, chromium, linux-perf (mk/deps.sh bench); about 4 GB of
# disk under $BUILD/bench, removed at the end.
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
BUILD=${BUILD:-build/release}
LOOP=${LOOP:-$BUILD/bench/fault_loop}
ROUNDS=${ROUNDS:-3}
FAULTS=${FAULTS:-10000000}
T=1700000000000000000	# the session's start, ns since the epoch
dir=$BUILD/bench/plot
db=$dir/session.db

. "$(dirname "$0")/../lib.sh"	# now, min, calc
rm -rf "$dir"
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT

start=$(now)
session_10m "$db" bench/plot/plot_export.sh
echo "session generated and indexed in $(calc "$(now) - $start" 1) s:" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM fault WHERE session_id = 2) || ' fault, ' ||
		(SELECT count(*) FROM thread_state WHERE session_id = 2) || ' thread_state, ' ||
		(SELECT count(*) FROM metric) || ' metric rows'")"

# best_of NAME CMD...: runs CMD ROUNDS times, prints the best wall time.
best_of() {
	local name=$1 t0 t times=()
	shift
	for ((r = 0; r < ROUNDS; r++)); do
		t0=$(now)
		"$@" >/dev/null 2>&1
		times+=("$(calc "$(now) - $t0" 3)")
	done
	t=$(printf '%s\n' "${times[@]}" | min)
	eval "$name=$t"
}
mb() { calc "$(stat -c %s "$1") / 1e6" 1; }

echo
echo "== faultline plot (best of $ROUNDS)"
best_of p_html "$FAULTLINE" plot "$db" --session 2 -q -o "$dir/all.html"
best_of p_svg "$FAULTLINE" plot "$db" --session 2 -q -o "$dir/all.svg"
best_of p_win "$FAULTLINE" plot "$db" --session 2 -q -o "$dir/win.html" \
	--from +50s --to +51s
"$FAULTLINE" plot "$db" --session 2 -o "$dir/all.html" 2>&1 | sed 's/^/  /'
printf '  %-36s %8s s  %8s MB\n' "whole session, HTML (zoom 4)" "$p_html" "$(mb "$dir/all.html")"
printf '  %-36s %8s s  %8s MB\n' "whole session, SVG" "$p_svg" "$(mb "$dir/all.svg")"
printf '  %-36s %8s s  %8s MB\n' "1 s window, HTML" "$p_win" "$(mb "$dir/win.html")"

echo
echo "== headless Chromium loading and drawing the page"
flags=(--headless --disable-gpu --no-first-run --disable-extensions
	--disable-background-networking --disable-component-update --disable-sync
	--host-resolver-rules="MAP * ~NOTFOUND" --window-size=1600,1000
	--user-data-dir="$dir/profile")
[ "$(id -u)" -ne 0 ] || flags+=(--no-sandbox)
echo '<!DOCTYPE html><title>empty</title>' > "$dir/empty.html"
best_of c_empty chromium "${flags[@]}" --dump-dom "file://$PWD/$dir/empty.html"
for page in all win; do
	ready=() draw=()
	for ((r = 0; r < ROUNDS; r++)); do
		dom=$(chromium "${flags[@]}" --dump-dom "file://$PWD/$dir/$page.html" \
			2>/dev/null || true)
		ready+=("$(sed -n 's/.*data-ready-ms="\([0-9.]*\)".*/\1/p' <<<"$dom" | head -n1)")
		draw+=("$(sed -n 's/.*data-draw-ms="\([0-9.]*\)".*/\1/p' <<<"$dom" | head -n1)")
	done
	best_of c_run chromium "${flags[@]}" --dump-dom "file://$PWD/$dir/$page.html"
	printf '  %-10s loaded and drawn in %s ms (drawing %s ms); browser run %s s,' \
		"$page.html" "$(printf '%s\n' "${ready[@]}" | min)" \
		"$(printf '%s\n' "${draw[@]}" | min)" "$c_run"
	printf ' %s s more than on an empty page\n' "$(calc "$c_run - $c_empty" 2)"
done

echo
echo "== faultline export (best of $ROUNDS)"
best_of e_trace "$FAULTLINE" export "$db" --session 2 -q --format chrome-trace \
	-o "$dir/trace.json"
trace_mb=$(mb "$dir/trace.json")
rm -f "$dir/trace.json"
best_of e_csv "$FAULTLINE" export "$db" --session 2 -q --format csv -o "$dir/csv"
csv_mb=$(calc "$(du -sb "$dir/csv" | cut -f1) / 1e6" 1)
events=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM fault WHERE session_id = 2) +
	(SELECT count(*) FROM thread_state WHERE session_id = 2) + (SELECT count(*) FROM metric)")
rm -rf "$dir/csv" "$db" "$db-wal" "$db-shm"
printf '  %-36s %8s s  %8s MB\n' "chrome-trace (10M faults, 1M states)" "$e_trace" "$trace_mb"
printf '  %-36s %8s s  %8s MB\n' "csv" "$e_csv" "$csv_mb"

echo
echo "== perf on a perf.data of $FAULTS page-fault samples, same run"
perf record -q -B -c 1 -e page-faults -o "$dir/perf.data" -- "$LOOP" "$FAULTS" \
	>/dev/null 2>&1
samples=$(perf report -i "$dir/perf.data" --stats 2>/dev/null |
	sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -n1)
best_of p_script sh -c "perf script -i '$dir/perf.data' > '$dir/perf.txt'"
script_mb=$(mb "$dir/perf.txt")
rm -f "$dir/perf.txt"
best_of p_json perf data convert -i "$dir/perf.data" --to-json "$dir/perf.json" --force
json_mb=$(mb "$dir/perf.json" 2>/dev/null || echo 0)
printf '  %-36s %8s s  %8s MB\n' "perf script ($samples samples)" "$p_script" "$script_mb"
printf '  %-36s %8s s  %8s MB\n' "perf data convert --to-json" "$p_json" "$json_mb"
echo
echo "chrome-trace export / perf script: $(calc "$e_trace / $p_script") (time)," \
	"per event: $(calc "$e_trace / $events * 1e9" 0) ns ($events events) against" \
	"$(calc "$p_script / ${samples:-1} * 1e9" 0) ns"
echo "chrome-trace export / perf data convert --to-json: $(calc "$e_trace / $p_json") (time)," \
	"per event: $(calc "$p_json / ${samples:-1} * 1e9" 0) ns for perf"
