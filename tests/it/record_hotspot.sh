#!/usr/bin/env bash
# Hotspot's parser (hotspot-perfparser, Debian's hotspot package) reads a
# tally record file headless and finds the workload's functions. Hotspot
# is not in make deps (it pulls in KDE): skipped where it is missing.
. "$(dirname "$0")/lib.sh"
P=$(ls /usr/lib/*/libexec/hotspot-perfparser 2>/dev/null | head -1)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if [ -z "$P" ]; then
	skip "hotspot-perfparser is not installed (apt-get install hotspot)"
	done_testing; exit 0
fi
"$TALLY" record -q -F 999 -g -o "$d/h.data" -- "$HELPERS/burn" 300 >/dev/null; rc=$?
is "record -F 999 -g: exit 0" "$rc" 0
QT_QPA_PLATFORM=offscreen timeout 60 "$P" --input "$d/h.data" --output "$d/h.out" 2>"$d/h.err"; rc=$?
is "hotspot-perfparser exits 0" "$rc" 0
# Hotspot 1.3 warns on some features of perf 6.1's own files too; any
# other line is a problem with ours.
is "no complaint beyond its known feature warnings" \
	"$(grep -vE 'feature not properly read|FINISHED_ROUND detected' "$d/h.err" | head -3)" ""
for f in burn_a burn_b burn_c; do
	check "it resolves $f" grep -qa "$f" "$d/h.out"
done
done_testing
