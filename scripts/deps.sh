#!/usr/bin/env bash
# Install what tally needs from Debian 12, only what is missing.
# As root it runs apt-get; otherwise it prints the line to run.
# Then the pictures' own readers, which the tests open tally's files with,
# from npm into a cache outside the tree ($TALLY_NPM, default
# ~/.cache/tally-npm), again only what is missing; not with --no-readers
# (make demo).
set -eu
readers=1
[ "${1:-}" = --no-readers ] && readers=0
pkgs="build-essential pkg-config linux-perf libpfm4-dev libtraceevent-dev
libtracefs-dev libelf-dev libdw-dev libzstd-dev libcmocka-dev libcapstone-dev
libprotobuf-c-dev protobuf-c-compiler libpapi-dev clang python3 liblzma-dev zlib1g-dev
xz-utils golang-go protobuf-compiler chromium nodejs libc6-dbg strace
libbpf-dev bpftool libncurses-dev tmux git libcurl4-openssl-dev clickhouse-server
prometheus"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
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
fi

# The arm64 cross build and its qemu-run unit tests (make test runs them
# when these are here); without them make test runs the rest alone.
if [ "$readers" = 1 ] && ! "$(dirname "$0")/deps-arm64.sh"; then
	echo "deps: no arm64 cross build: make test runs without its arm64 part" >&2
fi

# npm: the Firefox Profiler's importer (profiler-cli bundles it; it wants
# Node >= 24, Debian has 18, so node@24 from npm too), speedscope's page,
# playwright-core to drive Chromium over them.
[ "$readers" = 1 ] || exit 0
npm_dir=${TALLY_NPM:-${HOME:-/root}/.cache/tally-npm}
npm_pkgs="@firefox-devtools/profiler-cli@0.10 node@24 speedscope@1.25 playwright-core@1"
want=""
for p in $npm_pkgs; do
	[ -f "$npm_dir/node_modules/${p%@*}/package.json" ] || want="$want $p"
done
[ -z "$want" ] && exit 0
if ! command -v npm >/dev/null; then
	echo "tally: npm is missing (nodejs): the pictures' readers are not installed" >&2
	exit 1
fi
echo "deps: npm installing$want into $npm_dir"
mkdir -p "$npm_dir"
npm install --silent --no-audit --no-fund --prefix "$npm_dir" $want >/dev/null
