#!/usr/bin/env bash
# tally report's perf 6.1 filters and limits, against perf on the same files:
#  - -c/--comms, -S/--symbols (perf's names; --comm stays): a filter of one
#    value elides its column, and the rows keep perf's order without that
#    key (perf_hpp__should_skip), ties and all;
#  - --symbol-filter TEXT: a test of each row (children's too), the
#    header's totals untouched; with --percentage relative the Samples line
#    stays the samples' and the Event count is the kept rows'; perf sets it
#    on the first event's rows alone;
#  - -U/--hide-unresolved: a sample whose own address has no symbol is left
#    out, and so is every such frame of the others' chains;
#  - --max-stack N: N frames of each chain, the first (callee order) or the
#    last (caller order, children's default), as perf walks them;
#  - -f/--force is taken.
# The files: perf's recording of burn (two events, chains), and a crafted
# one whose chains mix burn's functions with addresses no map holds.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 999 -g -e cpu-clock,task-clock -o "$d/two.data" -- "$B" 300 >/dev/null 2>&1
sym() { nm "$B" | awk -v s="$1" '$3 == s { print $1 }'; }
at() { printf '%x' $((0x$(sym "$1") + 4)); }
python3 "$HERE/craft_data.py" chains "$d/mix.data" "$B" "$(at burn_a)" "$(at burn_b)" "$(at main)"
check "the crafted file was written" test -s "$d/mix.data"

# every line but perf's tip and tally's note on unresolved addresses, and '#' alone
pl() { perf report --stdio "$@" 2>/dev/null | grep -v -e '^# (Tip' -e '^$' -e '^#$'; }
tl() { "$TALLY" report --stdio "$@" 2>/dev/null | grep -v -e '^# Addresses without' -e '^#   [/[]' -e '^$' -e '^#$'; }
# (perf 6.1 appends " (inlined)" to fractal's "[...]" from a flag it never sets)
same() {	# FILE OPTS...
	local f=$1; shift
	pl -i "$f" "$@" >"$d/p"; tl -i "$f" "$@" >"$d/t"
	cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
	check "$(basename "$f") $*: perf's lines ($(grep -c '%' "$d/p") with a share)" cmp -s "$d/p" "$d/t"
}

for o in "-c burn" "--comms burn --no-children" "-c burn -g none" "-S burn_a,burn_b" \
	 "-S burn_a --sort sym,comm" "--comm burn -g caller,0.5,callee" "-c burn --percentage relative"; do
	same "$d/two.data" $o
done
for o in "--symbol-filter=burn_" "--symbol-filter=_b" "--symbol-filter=_b --no-children" \
	 "--symbol-filter=burn --percentage relative" "--symbol-filter=_a --percentage relative -g none"; do
	same "$d/two.data" $o
	same "$d/mix.data" $o
done
# the first event's rows alone took the filter: the second's show the rest
tl -i "$d/two.data" --symbol-filter=burn_a -g none --no-children >"$d/t"
is "--symbol-filter: the first event's rows are burn_a's alone" \
	"$(awk '/^# Samples/ { ev++ } ev == 1 && /%/ { print $NF }' "$d/t" | sort -u)" burn_a
check "--symbol-filter: the second event's rows keep burn_b" \
	sh -c "awk '/^# Samples/ { ev++ } ev == 2 && /%/' '$d/t' | grep -q burn_b"

for o in "-U" "-U --no-children" "-U -G" "-U -g callee" "-U -g none" "-U -g folded" \
	 "-U --percentage relative" "-U --sort dso" "-U -n --show-total-period" "-U --symbol-filter=a"; do
	same "$d/mix.data" $o
done
tl -i "$d/mix.data" -U -g none >"$d/t"
is "-U: the sample at an unmapped address is not counted (6 of 7)" \
	"$(awk '/^# Samples/ { print $3 }' "$d/t")" 6
is "-U: no [unknown] row" "$(grep -c '\[unknown\]' "$d/t")" 0
tl -i "$d/mix.data" -g none >"$d/t"
check "without -U: the unmapped frames have rows" grep -q '0x0000000000000020' "$d/t"

for f in "$d/mix.data" "$d/two.data"; do
	for o in "--max-stack 1" "--max-stack 2" "--max-stack 2 --no-children" "--max-stack 2 -G" \
		 "--max-stack 2 -g callee" "--max-stack 3 -U" "--max-stack 1 -g folded"; do
		same "$f" $o
	done
done
# callee order keeps a chain's first frames: burn_a's callers beyond one are gone
tl -i "$d/mix.data" --max-stack 1 --no-children -g callee >"$d/t"
check "--max-stack 1 -g callee: no caller under a row" sh -c "! grep -q -- '--[0-9.]*%--' '$d/t'"
"$TALLY" report --stdio --max-stack 0 -i "$d/mix.data" >/dev/null 2>"$d/err"
is "--max-stack 0 is refused (129)" "$?" 129

tl -f -i "$d/two.data" -g none >"$d/t"
check "-f/--force is taken" grep -q burn_a "$d/t"
done_testing
