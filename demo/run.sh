#!/bin/bash
# make demo: the stall faultline is built to explain, end to end.
#
# demo/nak_demo.c: a publisher thread sends sequenced UDP datagrams at
# 2000 a second over loopback to a receiver thread (nak-rx) whose socket
# has a small receive buffer; the receiver logs each sequence gap (a NAK)
# with its wall-clock time.  Partway through, nak-rx reads a file whose
# pages were dropped from the page cache, in random order: one major fault
# after another until it has stalled 150 ms (however many faults that
# takes on this disk) and its socket has dropped.  The receiver NAKs.
#
# faultline records it (faults with their stacks, thread states, the
# socket's depth and drops every millisecond, the kernel's kfree_skb drop
# events), imports the NAK log, and lines the NAK up with what happened
# just before it.
#
# Environment: FAULTLINE, NAK_DEMO (the binaries), DB (default demo.db),
# DEMO_DIR (where the NAK log, the demo's info file and the cold file
# go; a temporary folder, removed at the end, when not given).
set -euo pipefail

FAULTLINE=${FAULTLINE:-./faultline}
NAK_DEMO=${NAK_DEMO:-build/release/demo/nak_demo}
db=${DB:-demo.db}
if [ -n "${DEMO_DIR:-}" ]; then
	dir=$DEMO_DIR
else
	dir=$(mktemp -d /var/tmp/faultline-demo.XXXXXX)
	trap 'rm -rf "$dir"' EXIT
fi
rm -f "$db" "$db-wal" "$db-shm"

# A UDP port no socket has now.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		if ! grep -qi ":$(printf %04X "$p") " /proc/net/udp /proc/net/udp6; then
			echo "$p"
			return
		fi
	done
}
port=$(free_port)
q() { sqlite3 -box "$db" "$@"; }

echo "== faultline record -o $db --udp-port $port -e skb:kfree_skb --stacks dwarf --stacks-on major -- nak_demo --port $port ..."
"$FAULTLINE" record -o "$db" --udp-port "$port" -e skb:kfree_skb \
	--stacks dwarf --stacks-on major -- \
	"$NAK_DEMO" --port "$port" --naks "$dir/naks.csv" --cold "$dir/cold.dat" \
	--info "$dir/info"
rx_tid=$(sed -n 's/^rx_tid=//p' "$dir/info")
rcvbuf=$(sed -n 's/^rcvbuf=//p' "$dir/info")

echo
echo "== the receiver's NAK log ($dir/naks.csv)"
cat "$dir/naks.csv"

echo
echo "== faultline import $db naks.csv --metric nak --value-column gap"
"$FAULTLINE" import "$db" "$dir/naks.csv" --metric nak --value-column gap

echo
echo "== faultline query $db stalls-near metric=nak tid=$rx_tid"
echo "   (what held nak-rx up for 1 ms or more in the 200 ms before each NAK:"
echo "   its major faults, and the time it spent blocked or waiting for a CPU)"
stalls=$("$FAULTLINE" query "$db" stalls-near metric=nak tid="$rx_tid")
head -n 12 <<<"$stalls"
if [ "$(wc -l <<<"$stalls")" -gt 12 ]; then
	echo "... $(($(wc -l <<<"$stalls") - 12)) more rows"
fi

# Each NAK and the last 300 ms before it, from the tables themselves.
nak_window="WITH nak AS (
  SELECT m.ts FROM metric m JOIN metric_series s USING (series_id)
   WHERE s.name = 'nak')"

echo
echo "== nak-rx's major faults in the 300 ms before each NAK (fault)"
q "$nak_window
SELECT strftime('%H:%M:%f', nak.ts / 1e9, 'unixepoch') AS nak_utc,
       count(f.ts) AS major_faults, round(sum(f.dur) / 1e6, 1) AS fault_ms,
       round((nak.ts - min(f.ts)) / 1e6, 1) AS first_ms_before,
       round((nak.ts - max(f.ts + f.dur)) / 1e6, 1) AS last_ended_ms_before
  FROM nak LEFT JOIN fault f
    ON f.tid = $rx_tid AND f.kind = 'major'
   AND f.ts >= nak.ts - 300000000 AND f.ts + f.dur <= nak.ts
 GROUP BY nak.ts"

echo
echo "== the socket's receive queue before each NAK (udp_rx_queue_bytes and udp_drops,"
echo "   the highest of each 20 ms; the kernel set its buffer to $rcvbuf bytes)"
q "$nak_window
SELECT strftime('%H:%M:%f', nak.ts / 1e9, 'unixepoch') AS nak_utc,
       (m.ts - nak.ts + 1000000000) / 20000000 * 20 - 1000 AS ms_from_nak,
       max(m.value) AS depth_bytes, max(d.drops) AS drops
  FROM nak
  JOIN metric_series s ON s.name = 'udp_rx_queue_bytes'
  JOIN metric m ON m.series_id = s.series_id
   AND m.ts >= nak.ts - 300000000 AND m.ts < nak.ts + 40000000
  LEFT JOIN (SELECT m2.ts, m2.value AS drops FROM metric m2
               JOIN metric_series s2 USING (series_id)
              WHERE s2.name = 'udp_drops') d ON d.ts = m.ts
 GROUP BY nak.ts, ms_from_nak
 ORDER BY nak.ts, ms_from_nak"

echo
echo "== drops: the socket's counter, the host's, and the kernel's events"
q "SELECT s.name, s.labels, max(m.value) - min(m.value) AS increase,
       max(m.value) AS last
  FROM metric_series s JOIN metric m USING (series_id)
 WHERE s.name IN ('udp_drops', 'udp_rcvbuf_errors')
 GROUP BY s.series_id"
q "SELECT name, json_extract(fields, '$.reason') AS reason, count(*) AS events,
       strftime('%H:%M:%f', min(ts) / 1e9, 'unixepoch') AS first_utc,
       strftime('%H:%M:%f', max(ts) / 1e9, 'unixepoch') AS last_utc
  FROM tracepoint_event GROUP BY name, reason"

echo
echo "== faultline report $db"
"$FAULTLINE" report "$db"
echo
echo "== faultline diagnose $db --tid $rx_tid --event nak"
echo "   (the answer: the finding that explains the NAK, worst first)"
"$FAULTLINE" diagnose "$db" --tid "$rx_tid" --event nak
echo
echo "The database is $db; man/faultline-schema.5 describes its tables."
