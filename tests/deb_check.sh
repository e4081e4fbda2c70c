#!/bin/bash
# Holds the Debian package (mk/deb.sh, make deb) to what it must carry,
# without touching this machine's packages:
#
#   tests/deb_check.sh path/to/faultline
#
# Builds the package from the binary into a scratch directory, reads its
# fields and contents with dpkg-deb (-f, -c), unpacks it into a scratch
# root with dpkg -x, and runs what it unpacked: the binary answers
# --version, the man pages read back, the completion completes.
#
# Prints a line for each failed check, then one closing line:
#   deb_check: N passed, M failed
set -u

bin=${1:?usage: tests/deb_check.sh path/to/faultline}
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() {	# check WHAT COMMAND...: passes when COMMAND succeeds
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $what"
	fi
}

cd "$(dirname "$0")/.." || exit 1
deb=$(mk/deb.sh "$bin" "$tmp/out") || { echo "deb_check: 0 passed, 1 failed"; exit 1; }
version=$(sed -n 's/^#define FAULTLINE_VERSION "\(.*\)"/\1/p' common/version.h)
check "the package is named faultline_VERSION_ARCH.deb" \
	test "$(basename "$deb")" = "faultline_${version}_$(dpkg --print-architecture).deb"

field() { dpkg-deb -f "$deb" "$1"; }
check "Package is faultline" test "$(field Package)" = faultline
check "Version is $version" test "$(field Version)" = "$version"
# Depends: the package of every library the binary links directly, and
# of libpq, which it loads when a command connects (export/pq_lib.h).
for lib in libc6 libdw1 libelf1 libsqlite3-0 libtraceevent1 libtracefs1 libpfm4 \
	   libipt2 libpq5; do
	check "Depends names $lib" grep -qE "(^|, )$lib(,|$| )" <<<"$(field Depends)"
done

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' >"$tmp/list"
has() { grep -qx "$1" "$tmp/list"; }
check "the binary is usr/bin/faultline" has usr/bin/faultline
check "the completion is under bash-completion's completions" \
	has usr/share/bash-completion/completions/faultline
for m in man/*.1 man/*.5; do
	s=${m##*.}
	check "$m is usr/share/man/man$s/${m#man/}.gz" has "usr/share/man/man$s/${m#man/}.gz"
done
check "every file belongs to root" \
	test -z "$(dpkg-deb -c "$deb" | awk '$2 != "root/root"')"

# Unpacked into a scratch root: what it holds runs.
dpkg -x "$deb" "$tmp/root"
check "the unpacked binary says its version" \
	grep -q "$version" <<<"$("$tmp/root/usr/bin/faultline" --version 2>&1)"
check "the unpacked man page reads back" \
	grep -q "^\.TH FAULTLINE.-RECORD 1" <<<"$(zcat "$tmp/root/usr/share/man/man1/faultline-record.1.gz")"
check "the unpacked completion completes a command" \
	bash -c '. "$1"; PATH=$2:$PATH; COMP_WORDS=(faultline rec); COMP_CWORD=1;
		 _faultline; [ "${COMPREPLY[*]}" = record ]' _ \
	"$tmp/root/usr/share/bash-completion/completions/faultline" "$tmp/root/usr/bin"

echo "deb_check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
