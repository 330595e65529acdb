#!/usr/bin/env bash
# Print the names of all functions declared TALLY_API in include/tally/*.h.
set -eu
cd "$(dirname "$0")/.."
# Join declarations onto one line, then take the identifier before "(".
cat include/tally/*.h | tr '\n' ' ' | grep -oE 'TALLY_API[^;{]*\(' |
	sed -E 's/\($//' | grep -oE '[A-Za-z_][A-Za-z0-9_]*$' | sort -u
