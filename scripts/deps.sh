#!/usr/bin/env bash
# Install what tally needs from Debian 12, only what is missing.
# As root it runs apt-get; otherwise it prints the line to run.
set -eu
pkgs="build-essential pkg-config linux-perf libpfm4-dev libtraceevent-dev
libtracefs-dev libelf-dev libdw-dev libzstd-dev libcmocka-dev libcapstone-dev
libprotobuf-c-dev protobuf-c-compiler libpapi-dev clang python3 liblzma-dev zlib1g-dev
xz-utils golang-go protobuf-compiler chromium nodejs libc6-dbg"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "tally: missing packages:$missing" >&2
	echo "run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q $missing >/dev/null 2>&1 || {
	apt-get update -q >/dev/null
	apt-get install -y -q $missing >/dev/null
}
