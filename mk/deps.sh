#!/bin/sh
# Checks that the Debian packages faultline needs are installed.  As root
# it installs the missing ones (apt-get only when something is missing);
# otherwise it prints the exact command and fails.
#
#   mk/deps.sh build      compile faultline
#   mk/deps.sh check      build + run the tests (cmocka, clang for fuzzing;
#                         g++: a C++ program whose names stacks demangles;
#                         libc6-dbg: the dynamic linker's local names, which
#                         the stack tests expect in its resolver's frames;
#                         groff-base: the man pages are formatted with
#                         warnings on; chromium and python3: faultline
#                         plot's page is loaded by headless Chromium, and
#                         the exports are parsed back with python3's json
#                         and csv; linux-perf: the storm tests size
#                         their storm against perf record; postgresql:
#                         export --to and query run against a real server
#                         that the tests start)
#   mk/deps.sh demo       build + the demo (sqlite3 prints the results)
#   mk/deps.sh bench      check + perf for side-by-side benchmarks (perf's
#                         export-to-sqlite.py and export-to-postgresql.py
#                         need python3-pyside2.qtsql and the Qt SQL drivers)
set -eu

build="gcc make pkg-config libpfm4-dev libelf-dev libdw-dev libsqlite3-dev libtraceevent-dev libtracefs-dev libipt-dev libpq-dev libiberty-dev"
case "${1:-build}" in
build) want="$build" ;;
check) want="$build libcmocka-dev clang g++ sqlite3 binutils libc6-dbg groff-base chromium python3 linux-perf postgresql" ;;
demo)  want="$build sqlite3" ;;
bench) want="$build sqlite3 linux-perf time python3-pyside2.qtsql libqt5sql5-sqlite libqt5sql5-psql postgresql chromium redis-server redis-tools mariadb-server sysbench" ;;
*) echo "mk/deps.sh: unknown set '$1'" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "faultline: missing Debian packages:$missing" >&2
	echo "install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "faultline: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq $missing >&2
