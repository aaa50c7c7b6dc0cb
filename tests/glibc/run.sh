#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/glibc/run.sh — build and test libgmp on another glibc, in a Debian
# root made with debootstrap.
#
#   tests/glibc/run.sh SUITE [WHAT]
#
# SUITE is a Debian release: trixie (glibc 2.41), bookworm (2.36),
# bullseye (2.31). WHAT is what runs inside the root, in a copy of this
# source tree: check (default: build, then make check), demo (build, then
# the demo and gmprun --compare of it), passthrough (build libgmp and a
# few test programs, then tests/glibc/passthrough.sh: for a glibc where
# libgmp does not take over, such as bullseye's), build, or shell.
#
# The root is made the first time (debootstrap --variant=minbase from
# Debian's archive, then the build dependencies) under
# $GMP_GLIBC_ROOTS/SUITE (default /var/tmp/gmpsched-glibc/SUITE) and
# reused after that. /proc, /dev and /dev/shm are mounted in the root
# only while something runs there, and unmounted on the way out. Needs
# root. The exit status is that of what ran in the root.
set -eu

suite=${1:-}
what=${2:-check}
case "$suite" in
trixie|bookworm|bullseye) ;;
*) echo "usage: tests/glibc/run.sh trixie|bookworm|bullseye [check|demo|passthrough|build|shell]" >&2; exit 2 ;;
esac
case "$what" in
check|demo|passthrough|build|shell) ;;
*) echo "tests/glibc/run.sh: WHAT is check, demo, passthrough, build or shell, not '$what'" >&2; exit 2 ;;
esac
if [ "$(id -u)" -ne 0 ]; then
	echo "tests/glibc/run.sh: must run as root (debootstrap, chroot, mount)" >&2
	exit 2
fi

src=$(cd "$(dirname "$0")/../.." && pwd)
roots=${GMP_GLIBC_ROOTS:-/var/tmp/gmpsched-glibc}
root=$roots/$suite
mirror=${GMP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs="gcc g++ make autoconf automake libtool pkg-config libcriterion-dev libunwind-dev
python3 libjemalloc-dev liburing-dev man-db dpkg-dev lintian procps ca-certificates"
stamp=$root/.gmpsched-root

mounted=""
unmount_all() {
	for m in $mounted; do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	mounted=""
}
trap 'unmount_all' EXIT
trap 'unmount_all; exit 130' INT TERM

mount_in_root() {	# TYPE-or-bind SOURCE TARGET
	# never mount twice (a run left over from an interrupted one)
	if grep -q " $3 " /proc/self/mounts; then
		return 0
	fi
	if [ "$1" = bind ]; then
		mount --bind "$2" "$3"
	else
		mount -t "$1" "$2" "$3"
	fi
	mounted="$3 $mounted"
}

make_root() {
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ]; then
		return 0
	fi
	if ! command -v debootstrap >/dev/null 2>&1; then
		echo "tests/glibc/run.sh: installing debootstrap"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
	fi
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		rm -rf "$root"
		mkdir -p "$roots"
		echo "tests/glibc/run.sh: debootstrap $suite into $root"
		debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$roots/$suite.log" 2>&1 || {
			tail -20 "$roots/$suite.log" >&2
			exit 1
		}
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	mount_in_root proc proc "$root/proc"
	echo "tests/glibc/run.sh: installing the build dependencies in $root"
	chroot "$root" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $(echo $pkgs)" \
		>"$roots/$suite-apt.log" 2>&1 || {
		tail -20 "$roots/$suite-apt.log" >&2
		exit 1
	}
	unmount_all
	echo "$pkgs" >"$stamp"
}

copy_tree() {
	rm -rf "$root/src"
	mkdir -p "$root/src"
	if [ -d "$src/.git" ] && command -v git >/dev/null 2>&1; then
		# the files of the tree, committed or not, without build output
		(cd "$src" && git ls-files -z --cached --others --exclude-standard |
			tar cf - --null --no-recursion -T - 2>/dev/null) | tar xf - -C "$root/src"
	else
		(cd "$src" && tar cf - --exclude=./.git .) | tar xf - -C "$root/src"
		(cd "$root/src" && { [ ! -f Makefile ] || make distclean >/dev/null 2>&1 || true; })
	fi
}

make_root
copy_tree
mount_in_root proc proc "$root/proc"
mount_in_root bind /dev "$root/dev"
mount_in_root bind /dev/pts "$root/dev/pts"
mount_in_root tmpfs tmpfs "$root/dev/shm"

configure='cd /src && ./bootstrap >/dev/null 2>&1 && ./configure -q 2>/dev/null'
build="$configure"' && make -j"$(nproc)" >/dev/null'
progs=$(sh "$src/tests/glibc/passthrough.sh" --programs)
glibc=$(chroot "$root" /usr/bin/ldd --version | head -1)
echo "tests/glibc/run.sh: $suite: $glibc"
rc=0
case "$what" in
build) chroot "$root" /bin/sh -c "$build" || rc=$? ;;
check) chroot "$root" /bin/sh -c "$build && { make -j1 check || { cat test-suite.log; exit 1; }; }" || rc=$? ;;
demo) chroot "$root" /bin/sh -c "$build && make demo" || rc=$? ;;
passthrough)
	chroot "$root" /bin/sh -c "$configure && make -j\"\$(nproc)\" libgmp.la $progs >/dev/null &&
		tests/glibc/passthrough.sh /src" || rc=$? ;;
shell) chroot "$root" /bin/sh -c "cd /src; exec /bin/sh" || rc=$? ;;
esac
unmount_all
echo "tests/glibc/run.sh: $suite $what: exit $rc"
exit $rc
