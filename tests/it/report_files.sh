#!/usr/bin/env bash
# Files as perf leaves them on a real machine, read as perf 6.1 reads them:
# a zero-sized perf.data (a perf record that failed) gets perf's words and
# its status 255. perf's directory format (record --threads: the header in
# DIR/data, each thread's records in DIR/data.N) read as perf reads it:
# report's rows and script's lines in time order across the files.
# --sort srcline on a program without DWARF: one "??:0" row, as perf.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# the message and exit status of `TOOL CMD -i FILE`
said() { local t=$1 c=$2; shift 2; "$t" "$c" "$@" 2>&1 >/dev/null </dev/null; echo "rc=$?"; }
: >"$d/empty.data"
for c in report script; do
	is "zero-sized file: $c's message and status are perf's" \
		"$(cd "$d" && said "$TALLY" $c -i empty.data)" "$(cd "$d" && said perf $c -i empty.data)"
done
is "zero-sized file: diff's status is perf's" \
	"$(cd "$d" && said "$TALLY" diff empty.data empty.data | tail -1)" \
	"$(cd "$d" && said perf diff empty.data empty.data | tail -1)"
# report's header and rows; perf's closing tip and tally's unresolved account aside
rows() { "$1" report --stdio "${@:3}" -i "$2" 2>/dev/null | grep -v '^$' | grep -v '^#$' |
	grep -v -e '^# (Tip' -e '^# Addresses without' -e '^#   [/[]'; }
if perf record -q --threads -g -F 999 -o "$d/dir.data" -- \
	sh -c "$HELPERS/burn 300 & $HELPERS/burn 300; wait" >/dev/null 2>&1 && [ -d "$d/dir.data" ]; then
	for o in "--no-children" "--sort pid,sym -g none" "-g none"; do
		rows perf "$d/dir.data" $o >"$d/p"; rows "$TALLY" "$d/dir.data" $o >"$d/t"
		# children: rows of equal share in another order (issue 19's own item): the set
		[ "$o" = "-g none" ] && { sort -o "$d/p" "$d/p"; sort -o "$d/t" "$d/t"; }
		cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
		check "directory format: report $o is perf's ($(grep -c '%' "$d/p") rows)" cmp -s "$d/p" "$d/t"
	done
	perf script -i "$d/dir.data" >"$d/ps" 2>/dev/null
	"$TALLY" script -i "$d/dir.data" >"$d/ts" 2>"$d/te"
	check "directory format: script's lines are perf's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
	is "directory format: nothing said on stderr" "$(cat "$d/te")" ""
	# a data.N cut inside a record: named with its file, not passed over
	big=$(cd "$d/dir.data" && ls -S data.* | head -1)
	printf 'garbage!' >>"$d/dir.data/$big"
	"$TALLY" script -i "$d/dir.data" >/dev/null 2>"$d/te"
	is "directory format: a damaged $big: status 1" "$?" 1
	check "directory format: a damaged $big is named" grep -q "in $big (record type" "$d/te"
else
	skip "perf record --threads cannot record here"
fi
# a program built without -g: addr2line's "??:0" for every address, one row
printf '%s\n' 'volatile unsigned long x;' \
	'__attribute__((noinline)) void fa(long n) { for (long i = 0; i < n; i++) x += i * 3; }' \
	'__attribute__((noinline)) void fb(long n) { for (long i = 0; i < n; i++) x ^= i * 7; }' \
	'int main(void) { for (int k = 0; k < 20; k++) { fa(3000000); fb(3000000); } return 0; }' >"$d/spin.c"
if cc -O1 -o "$d/spin" "$d/spin.c" 2>/dev/null &&
   perf record -q -F 999 -o "$d/spin.data" -- "$d/spin" >/dev/null 2>&1; then
	# the program's rows (perf cuts a kernel symbol's srcline to the header's width: left aside)
	for o in "--sort srcline" "--sort dso,srcline" "--sort sym,srcline"; do
		rows perf "$d/spin.data" --no-children $o | grep '%.*??:0' | tr -s ' ' >"$d/p"
		rows "$TALLY" "$d/spin.data" --no-children $o | grep '%.*??:0' | tr -s ' ' >"$d/t"
		cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
		check "no DWARF: report $o is perf's ($(grep -c '%' "$d/p") rows)" cmp -s "$d/p" "$d/t"
	done
	is "no DWARF: one ??:0 row" "$(rows "$TALLY" "$d/spin.data" --sort srcline | grep -c '%.*??:0')" 1
else
	skip "cannot build or record a program here"
fi
# JIT code (anonymous executable memory): perf names its DSO after the
# process's perf map, "[JIT] tid PID" in report's rows (one per process, a
# map file or not) and (/tmp/perf-PID.map) in script; tally said anon/(//anon)
if [ "$(uname -m)" = x86_64 ] && cc -O1 -o "$d/jit" tests/data/progs/jit.c 2>/dev/null; then
	for who in perf "$TALLY"; do
		w=$(basename "$who")
		"$who" record -q -F 999 -g -o "$d/jit-$w.data" -- \
			sh -c "$d/jit; $d/jit; $d/jit --no-map" >/dev/null 2>&1
		for o in "--no-children" "--no-children --sort pid,dso,sym" "--children -g none"; do
			rows perf "$d/jit-$w.data" $o | sort >"$d/p"
			rows "$TALLY" "$d/jit-$w.data" $o | sort >"$d/t"
			cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
			check "JIT ($w's file): report $o rows are perf's" cmp -s "$d/p" "$d/t"
		done
		# each of the three processes named [JIT] tid PID (the no-map one
		# may have a row per address: unresolved rows are per address, as perf's)
		is "JIT ($w's file): each process's code named [JIT] tid PID" \
			"$(rows "$TALLY" "$d/jit-$w.data" --no-children -g none |
				grep -o '\[JIT\] tid [0-9]* ' | sort -u | wc -l)" 3
		perf script -i "$d/jit-$w.data" >"$d/p" 2>/dev/null
		"$TALLY" script -i "$d/jit-$w.data" >"$d/t" 2>/dev/null
		check "JIT ($w's file): script's lines are perf's, (/tmp/perf-PID.map) included" \
			sh -c "cmp -s '$d/p' '$d/t' && grep -q '(/tmp/perf-[0-9]*.map)' '$d/t'"
	done
	"$TALLY" report --stdio -i "$d/jit-perf.data" >"$d/t" 2>/dev/null
	check "JIT: the unresolved account names the process's code as its rows do" \
		sh -c "grep -q '^#   \[JIT\] tid [0-9]* ' '$d/t' && ! grep -qw 'anon' '$d/t'"
	# the programs' map files, left for the readers above
	for f in "$d"/jit-*.data; do
		perf script -F pid -i "$f" 2>/dev/null | sort -u | sed 's|^ *\([0-9]*\).*|/tmp/perf-\1.map|' | xargs rm -f
	done
else
	skip "JIT: not x86-64, or no compiler"
fi
done_testing
