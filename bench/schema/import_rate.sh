#!/bin/bash
# bench/schema/import_rate.sh: rows per second of `faultline import`
# (cli/import.c -> decoder/metric_parse -> schema/metric_store, indexes
# built at the end) on a CSV file of LINES rows, against sqlite3's own
# `.import` of the same file into a plain table (no parsing of numbers or
# timestamps, no index), side by side in one run, best of ROUNDS.
#
# The file (ts with a fraction of a second, an integer value, a host label
# of 4 values) is generated once into build/bench/ and reused.  PARSE
# (bench/schema/import_rate_parse.c) times the parser alone on it.
# Timings on a shared 2-core VM are noisy: read the ratio, not the times.
#
#   FAULTLINE=build/release/faultline PARSE=build/release/bench/import_rate_parse \
#	bench/schema/import_rate.sh
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
PARSE=${PARSE:-build/release/bench/import_rate_parse}
LINES=${LINES:-10000000}
ROUNDS=${ROUNDS:-3}
dir=build/bench
csv=$dir/import_rate_$LINES.csv
tmp=$(mktemp -d /var/tmp/faultline-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/../lib.sh"	# now, min, calc

mkdir -p "$dir"
if [ ! -s "$csv" ]; then
	awk -v n="$LINES" 'BEGIN {
		print "ts,value,host"
		for (i = 0; i < n; i++)
			printf "%d.%06d,%d,rx%d\n", 1795000000 + int(i / 1000),
				(i % 1000) * 1000, i % 977, i % 4
	}' >"$csv.tmp"
	mv "$csv.tmp" "$csv"
fi
# Read once, so that neither tool pays for the first read from disk.
cat "$csv" >/dev/null

declare -a fl sq
for ((r = 0; r < ROUNDS; r++)); do
	rm -f "$tmp"/fl.db*
	t0=$(now)
	"$FAULTLINE" import -q "$tmp/fl.db" "$csv" --metric naks
	t1=$(now)
	rm -f "$tmp"/sq.db*
	sqlite3 "$tmp/sq.db" "PRAGMA journal_mode=WAL" ".import --csv $csv m" >/dev/null
	t2=$(now)
	fl+=("$(calc "$t1 - $t0" 4)")
	sq+=("$(calc "$t2 - $t1" 4)")
done

rows=$(sqlite3 "$tmp/fl.db" "SELECT count(*) FROM metric")
sq_rows=$(sqlite3 "$tmp/sq.db" "SELECT count(*) FROM m")
if [ "$rows" != "$LINES" ] || [ "$sq_rows" != "$LINES" ]; then
	echo "import_rate: expected $LINES rows, faultline stored $rows, sqlite3 $sq_rows" >&2
	exit 1
fi
# The index build's share: drop and make it again, once.
t0=$(now)
sqlite3 "$tmp/fl.db" "DROP INDEX metric_by_series;
	CREATE INDEX metric_by_series ON metric (series_id, ts)"
t1=$(now)
idx=$(calc "$t1 - $t0" 2)

read -r parse_rows parse_s _ < <("$PARSE" "$csv" "$ROUNDS")
[ "$parse_rows" = "$LINES" ] || { echo "import_rate: the parser read $parse_rows rows" >&2; exit 1; }
f=$(printf '%s\n' "${fl[@]}" | min)
s=$(printf '%s\n' "${sq[@]}" | min)
echo "import_rate: $LINES-line CSV ($(du -m "$csv" | cut -f1) MB), best of $ROUNDS"
printf '  %-34s %7.2f s  %10.0f rows/s\n' "faultline import (indexed)" "$f" \
	"$(calc "$LINES / $f" 0)"
printf '  %-34s %7.2f s  %10.0f rows/s\n' "sqlite3 .import (plain table)" "$s" \
	"$(calc "$LINES / $s" 0)"
printf '  %-34s %7.2f s  %10.0f rows/s\n' "the parser alone (no SQLite)" "$parse_s" \
	"$(calc "$LINES / $parse_s" 0)"
echo "  ratio faultline/sqlite3 rows/s: $(calc "$s / $f" 2)" \
	"(rebuilding the metric_by_series index on its own: $idx s)"
