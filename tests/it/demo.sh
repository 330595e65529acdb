#!/usr/bin/env bash
# make demo (demo/run.sh) as a new user sees it: it ends well, points at a
# page to open, and its profile's call graph shows callers: a chain of at
# least 3 of the demo's own functions (main > sort_keys > merge_pass >
# merge ...), where libc's qsort without frame pointers gave one frame.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

rm -f "$BUILD/demo/profile.html" "$BUILD/demo/perf.data"
BUILD=$BUILD demo/run.sh >"$d/out" 2>&1; rc=$?
is "make demo's script exits 0" "$rc" 0
[ "$rc" -eq 0 ] || sed -n '$p' "$d/out" | sed 's/^/# /'
check "it says which page to open" grep -q "^open $BUILD/demo/profile.html" "$d/out"
check "the page is there" grep -q '<html' "$BUILD/demo/profile.html"

# the demo's own functions, as its symbol table names them
nm --defined-only "$BUILD/demo/demo" | awk '$2 ~ /^[tT]$/ { print $3 }' >"$d/own"
"$TALLY" report -i "$BUILD/demo/perf.data" --folded >"$d/folded" 2>/dev/null
deepest=$(awk 'NR == FNR { own[$1] = 1; next }
	{
		sub(/ [0-9]+$/, ""); n = split($0, f, ";"); run = 0
		for (i = 2; i <= n; i++) {
			run = (f[i] in own) ? run + 1 : 0
			if (run > best) { best = run; chain = $0 }
		}
	}
	END { print best + 0; print chain > "/dev/stderr" }' "$d/own" "$d/folded" 2>"$d/chain")
check "a call chain of at least 3 of the demo's own functions (got $deepest: $(cat "$d/chain"))" \
	[ "$deepest" -ge 3 ]
# the hot path's callers, in the report's call graph as printed
callers() { grep -A3 -- "---$1\$" "$d/out" | grep -Eq "(^ *|--)$2\$"; }
check "report's call graph: merge called from merge_pass" callers merge merge_pass
done_testing
