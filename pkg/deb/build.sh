#!/bin/sh
# SPDX-License-Identifier: MIT
# pkg/deb/build.sh SRCDIR OUTDIR — build gmpsched_VERSION_ARCH.deb in OUTDIR
# from the sources in SRCDIR: configure a fresh build tree for /usr (the
# library in /usr/lib/TRIPLET/gmpsched), build, `make install` into a
# staging root, strip, compress the manual pages, add the copyright and
# changelog, and pack it with dpkg-deb (no debhelper needed). Prints the
# package's path last.
set -eu
src=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$src/pkg/deb
readme=$src/README.md

arch=$(dpkg --print-architecture)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
version=$(sed -n 's/^AC_INIT(\[gmpsched\], \[\([^]]*\)\].*/\1/p' "$src/configure.ac")
[ -n "$version" ] || { echo "build.sh: no version in configure.ac" >&2; exit 1; }

work=$(mktemp -d /tmp/gmpsched-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
build=$work/build
stage=$work/stage
mkdir -p "$build" "$stage"

[ -x "$src/configure" ] || (cd "$src" && ./bootstrap)
if [ -f "$src/config.status" ]; then
	# configured in place, where a second build tree cannot be: build
	# from the files its distribution would hold
	make -C "$src" -s distdir distdir="$work/src" >/dev/null
	src=$work/src
fi
log=$work/build.log
if ! { (cd "$build" && "$src/configure" -q --prefix=/usr --libdir="/usr/lib/$triplet" \
	--libexecdir=/usr/libexec CFLAGS="-O2 -g") &&
	make -C "$build" -s -j"$(nproc)" libgmp.la gmprun demo/threads &&
	make -C "$build" -s install-pkglibLTLIBRARIES install-binPROGRAMS install-man \
		install-pkglibexecPROGRAMS DESTDIR="$stage"; } >"$log" 2>&1; then
	tail -30 "$log" >&2
	echo "build.sh: building or installing failed" >&2
	exit 1
fi

lib=$stage/usr/lib/$triplet/gmpsched
rm -f "$lib"/*.la
chmod 0644 "$lib/libgmp.so"
for f in "$lib/libgmp.so" "$stage/usr/bin/gmprun" "$stage/usr/libexec/gmpsched/threads"; do
	strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done
gzip -9n "$stage"/usr/share/man/man*/*
doc=$stage/usr/share/doc/gmpsched
mkdir -p "$doc"
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9nc "$here/changelog" >"$doc/changelog.gz"
gzip -9nc "$readme" >"$doc/README.md.gz"
chmod 0644 "$doc"/*

# what the binaries link to directly (NEEDED), as the distribution's packages
deps=$(for f in "$lib/libgmp.so" "$stage/usr/bin/gmprun"; do
	for n in $(objdump -p "$f" | awk '$1 == "NEEDED" {print $2}'); do
		ldd "$f" | awk -v n="$n" '$1 == n && $3 ~ /^\// {print $3}'
	done
done | sort -u | while read -r so; do
	dpkg -S "$(readlink -f "$so")" 2>/dev/null || dpkg -S "$so" 2>/dev/null || true
done | cut -d: -f1 | sort -u)
depends=""
for p in $deps; do
	v=$(dpkg-query -W -f '${Version}' "$p" | sed 's/-[^-]*$//')
	case $p in
	libc6) depends="$depends, libc6 (>= 2.36), libc6 (<< 2.37)" ;;
	*) depends="$depends, $p (>= $v)" ;;
	esac
done
depends=${depends#, }

mkdir -p "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
	-e "s/@DEPENDS@/$depends/" -e "/^#/d" "$here/control.in" >"$stage/DEBIAN/control"
(cd "$stage" && find usr -type f -exec md5sum {} + | sort -k2) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +

deb=$out/gmpsched_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
