#!/usr/bin/env bash
# `make deps ARCH=arm64`: what the arm64 cross build (make ARCH=arm64) and
# its tests under qemu-aarch64 (make test ARCH=arm64) need, only what is
# missing: Debian's aarch64 cross compiler and qemu-user, then the field
# libraries' arm64 packages unpacked into a sysroot outside the tree
# ($TALLY_ARM64_SYSROOT, default ~/.cache/tally-arm64).
# Why a sysroot and not `apt-get install libfoo-dev:arm64`: multiarch wants
# every Multi-Arch: same library at one version on both architectures, and
# libc6-dev:arm64's dependencies (krb5, openssl, liblzma) would upgrade the
# host's amd64 ones. The arm64 packages are only downloaded (apt-get
# download, from the arm64 lists of `dpkg --add-architecture arm64`) and
# unpacked; the build links them statically (libcmocka has no .a: the
# tests find its .so through their rpath).
set -eu
sysroot=${TALLY_ARM64_SYSROOT:-${HOME:-/root}/.cache/tally-arm64}
# libc6-dev-arm64-cross (and with it linux-libc-dev-arm64-cross): arm64's
# C library headers and <asm/unistd.h>, which the cross build and the
# syscall table tests need; libstdc++-12-dev-arm64-cross: the static
# link's -lstdc++. Only recommended by the compiler, so not there with
# --no-install-recommends on a machine that lacks them.
tools="gcc-aarch64-linux-gnu qemu-user libc6-dev-arm64-cross linux-libc-dev-arm64-cross
libstdc++-12-dev-arm64-cross"
libs="libpfm4-dev libtraceevent-dev libtracefs-dev libelf-dev libdw-dev
libzstd-dev libcmocka-dev libcmocka0 libcapstone-dev libprotobuf-c-dev liblzma-dev
zlib1g-dev libbpf-dev libncurses-dev libbz2-dev libcurl4-openssl-dev"

root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "tally: arm64 build needs, as root: $*" >&2
		exit 1
	fi
}

missing=""
for p in $tools; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	root "apt-get install -y --no-install-recommends$missing"
	echo "deps: installing$missing"
	apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
		apt-get update -q >/dev/null
		apt-get install -y -q --no-install-recommends $missing >/dev/null
	}
fi

# The sysroot is current when its stamp lists the same packages.
want=$(echo $libs)
[ "$(cat "$sysroot/.packages" 2>/dev/null)" = "$want" ] && exit 0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	root "dpkg --add-architecture arm64 && apt-get update"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
fi
echo "deps: unpacking the arm64 libraries into $sysroot"
dl=$(mktemp -d /tmp/tally-arm64-debs.XXXXXX)
trap 'rm -rf "$dl"' EXIT
chmod 755 "$dl"
# shellcheck disable=SC2046
if ! (cd "$dl" && apt-get download -q $(printf '%s:arm64 ' $libs) >/dev/null 2>&1); then
	apt-get update -q >/dev/null
	(cd "$dl" && apt-get download -q $(printf '%s:arm64 ' $libs) >/dev/null)
fi
rm -rf "$sysroot.new"
mkdir -p "$sysroot.new"
for d in "$dl"/*.deb; do
	dpkg-deb -x "$d" "$sysroot.new"
done
echo "$want" >"$sysroot.new/.packages"
rm -rf "$sysroot"
mv "$sysroot.new" "$sysroot"
