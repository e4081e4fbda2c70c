#!/bin/bash
# Builds faultline's Debian package from a built binary:
#
#   mk/deb.sh BUILD/faultline OUTDIR
#
# Stages /usr/bin/faultline, the man pages (gzipped, as Debian ships
# them) and the bash completion under OUTDIR/root, writes DEBIAN/control,
# and builds OUTDIR/faultline_VERSION_ARCH.deb with dpkg-deb, files owned
# by root.  Depends names the package of each library the binary links
# directly (its DT_NEEDED entries, found through ldd and dpkg -S) and of
# each it loads when a command needs it (libpq, export/pq_lib.h: found
# through ldconfig), so it is right for the machine it was built on;
# 'apt install ./faultline_*.deb' on a fresh machine of the same release
# pulls them in.  Prints the package's path.
set -eu

bin=$1
out=$2
root=$out/root
version=$(sed -n 's/^#define FAULTLINE_VERSION "\(.*\)"/\1/p' common/version.h)
arch=$(dpkg --print-architecture)

# The package that holds a library, by its path as ldd resolves it; a
# merged /usr registers some files under /lib, others under /usr/lib.
package_of() {
	local f=$1 p
	for p in "$f" "$(readlink -f "$f")" "${f#/usr}" "/usr$f"; do
		if dpkg -S "$p" 2>/dev/null | sed -n '1s/:.*//p' | grep .; then
			return 0
		fi
	done
	echo "mk/deb.sh: no package holds $f, which $bin links" >&2
	return 1
}

# The libraries faultline opens itself, by soname (dlopen).
LOADED="libpq.so.5"

depends() {
	local lib path
	{
		for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			path=$(ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
			[ -n "$path" ] || { echo "mk/deb.sh: ldd does not find $lib" >&2; return 1; }
			package_of "$path"
		done
		for lib in $LOADED; do
			path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x32|64/ { print $NF; exit }')
			[ -n "$path" ] || path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
			[ -n "$path" ] || { echo "mk/deb.sh: ldconfig does not find $lib" >&2; return 1; }
			package_of "$path"
		done
	} | sort -u | paste -sd, | sed 's/,/, /g'
}

rm -rf "$root"
install -D -m 755 "$bin" "$root/usr/bin/faultline"
strip --strip-unneeded "$root/usr/bin/faultline"
for m in man/*.1 man/*.5; do
	s=${m##*.}
	install -D -m 644 "$m" "$root/usr/share/man/man$s/${m#man/}"
	gzip -9n "$root/usr/share/man/man$s/${m#man/}"
done
install -D -m 644 completion/faultline \
	"$root/usr/share/bash-completion/completions/faultline"
install -D -m 644 README.md "$root/usr/share/doc/faultline/README.md"

mkdir -p "$root/DEBIAN"
cat >"$root/DEBIAN/control" <<CONTROL
Package: faultline
Version: $version
Architecture: $arch
Maintainer: faultline <faultline@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $(depends)
Section: devel
Priority: optional
Description: explain thread stalls with kernel events and wall-clock times
 faultline records what the kernel did to chosen threads (page faults with
 their durations, scheduler states and who woke them, any tracepoint) with
 wall-clock timestamps into a SQLite database beside the application's
 own metrics, and names the cause of each stall.
CONTROL

dpkg-deb --root-owner-group --build "$root" "$out/faultline_${version}_${arch}.deb" >/dev/null
echo "$out/faultline_${version}_${arch}.deb"
