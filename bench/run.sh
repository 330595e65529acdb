#!/usr/bin/env bash
# make bench: run every bench/*.sh (each prints one markdown section that
# compares tally with perf or with the alternatives on the same work) and
# write them to bench/RESULTS.md with how they were produced.
set -eu
BUILD=${BUILD:-build}
export BUILD TALLY="$PWD/$BUILD/tally" HELPERS="$PWD/$BUILD/helpers"
make --no-print-directory "$BUILD/helpers/work" >/dev/null
out=bench/RESULTS.md
tmp=$(mktemp)
{
	echo "# Benchmark results"
	echo
	echo "Produced by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d),"
	echo "$(nproc) CPUs, $(uname -r), $(perf --version 2>/dev/null || echo 'perf missing')."
	echo "Each section names the command it ran. Ratios are tally / reference"
	echo "(below 1 means tally is cheaper)."
	for s in bench/*.sh; do
		[ "$s" = bench/run.sh ] && continue
		echo
		bash "$s"
	done
} | tee "$tmp"
mv "$tmp" "$out"
echo "wrote $out" >&2
