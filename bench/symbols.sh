#!/usr/bin/env bash
# Symbolization cost: prints the "Symbols" section of bench/RESULTS.md
# (bench/run.sh collects it). Needs build/bench/symbols (make bench builds it).
set -eu
BUILD=${BUILD:-build}
bin=$BUILD/bench/symbols
n=${SYMBOLS_LOOKUPS:-1000000}
echo "## Symbols (bench/symbols.sh)"
echo
if [ ! -x "$bin" ]; then
	echo "$bin is missing (make bench builds it)."
	exit 0
fi
echo "Command: \`$bin $n\`. Medians of 7 runs: loading libc's symbols (a fresh"
echo "tally_symbols each run: ELF, build-id debug file when installed), $n"
echo "lookups of random addresses in libc's text after the load (the symbol"
echo "table alone, then the whole path: map, DSO cache, symbol), kallsyms, and"
echo "one source line through libdw in process against one forked addr2line,"
echo "which is how Debian's perf 6.1 gets source lines."
echo
echo "| what | cost |"
echo "| --- | --- |"
"$bin" "$n" 2>/dev/null
