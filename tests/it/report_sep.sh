#!/usr/bin/env bash
# tally report -t/--field-separator SEP against perf 6.1 on the same files:
# the columns joined by SEP, unpadded after the last, the shares " %.2f%%"
# and counts " %llu" padded to their widths elsewhere, no dots under the
# header (the hierarchy keeps its own), SEP's first character inside a
# cell turned to '.', an unresolved row not widening the DSO column; the
# plain table, -F, --hierarchy, -n, --show-total-period, with chains and
# without. Files: perf's and tally's recordings of burn, a crafted file of
# unresolved addresses, perf's -a recording.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -e cpu-clock,task-clock -o "$d/two.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 999 -g -o "$d/tally.data" -- "$B" 200 >/dev/null 2>&1
perf record -q -a -F 499 -o "$d/all.data" -- "$B" 200 >/dev/null 2>&1
sym() { nm "$B" | awk -v s="$1" '$3 == s { print $1 }'; }
at() { printf '%x' $((0x$(sym "$1") + 4)); }
python3 "$HERE/craft_data.py" chains "$d/mix.data" "$B" "$(at burn_a)" "$(at burn_b)" "$(at main)"
check "the crafted file was written" test -s "$d/mix.data"

# every line but perf's tip, tally's note on unresolved addresses, and empty ones
pl() { perf report --stdio "$@" 2>/dev/null | grep -v -e '^# (Tip' -e '^$' -e '^#$'; }
tl() { "$TALLY" report --stdio "$@" 2>/dev/null | grep -v -e '^# Addresses without' -e '^#   [/[]' -e '^$' -e '^#$'; }
same() {	# FILE OPTS...
	local f=$1; shift
	pl -i "$f" "$@" >"$d/p"; tl -i "$f" "$@" >"$d/t"
	cmp -s "$d/p" "$d/t" || { diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'; keep "$f"; }
	check "$(basename "$f") $*: perf's lines ($(grep -c '%' "$d/p") with a share)" cmp -s "$d/p" "$d/t"
}

for f in two tally mix all; do
	for o in "-t ," "-t | --no-children" "-t , -g none -n --show-total-period" \
		 "-t ; --sort dso,sym -g none" "-t , -F overhead,sym,period -g none" \
		 "-t , -F sample,sym,overhead -g none" "-t , --hierarchy -g none"; do
		# (-F with the symbol key: an -a file's unresolved rows of equal
		# counts trade places, -t or not: perf-differences.md)
		case "$f $o" in "all "*-F*) continue ;; esac
		same "$d/$f.data" $o
	done
done
# a separator that is in the cells: its first character becomes '.'
same "$d/two.data" -t "b:" --sort comm,sym -g none
check "the cells lost their separator's character" sh -c "grep -q 'b:\.urn *b:' '$d/t' && ! grep -q 'burn' '$d/t'"
same "$d/mix.data" -t "::" --sort pid,dso -g none
same "$d/two.data" -t , --hierarchy -n --show-total-period -g none

"$TALLY" report --stdio -t . -i "$d/two.data" >/dev/null 2>"$d/err"
is "-t .: refused as perf refuses it" "$?" 129
check "-t .: the reason said" grep -q "'\.' is the only non valid --field-separator" "$d/err"
done_testing
