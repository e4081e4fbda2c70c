#!/bin/bash
# make demo, N times in a row (default 10), alone or beside two CPU hogs
# (HOGS=1; build/release/tests/cpu_hog, as make check-stress uses): each
# run's stall as the demo measured it, the major faults and drops during
# it, the NAKs, and diagnose's first finding.  The demo must end with a
# NAK and the receiver's file-page finding (file-evicted) first every time.
#
#   bench/demo/repeat.sh [N]          HOGS=1 bench/demo/repeat.sh [N]
set -u
cd "$(dirname "$0")/../.."

n=${1:-10}
make -s all build/release/demo/nak_demo build/release/tests/cpu_hog >/dev/null || exit 1
hogs=
trap 'kill $hogs 2>/dev/null' EXIT
if [ "${HOGS:-0}" = 1 ]; then
	for _ in 1 2; do build/release/tests/cpu_hog & hogs="$hogs $!"; done
	echo "beside two CPU hogs (pids$hogs)"
fi

log=$(mktemp)
good=0
for i in $(seq "$n"); do
	make -s demo >"$log" 2>&1
	rc=$?
	stall=$(sed -n 's/^nak_demo: the receiver stalled \([0-9.]*\) ms in \([0-9]*\) major.*dropped \([0-9]*\)$/\1 ms, \2 major faults, \3 dropped/p' "$log")
	naks=$(sed -n 's/^nak_demo: sent .*, \([0-9]*\) NAKs$/\1/p' "$log")
	first=$(awk '/^== faultline diagnose/ { f = 1 } f && /^1\. / { print; exit }' "$log" | cut -c1-60)
	echo "run $i: exit $rc; stall ${stall:-?}; ${naks:-0} NAKs; first: ${first:-none}"
	case "$rc:$first" in
	"0:1. file page not cached"*) [ "${naks:-0}" -gt 0 ] && good=$((good + 1)) ;;
	esac
done
rm -f "$log"
echo "demo: $good of $n runs ended with a NAK and the file-evicted finding first"
[ "$good" -eq "$n" ]
