#!/usr/bin/env bash
# run.sh: slow (it starts first in the pool)
# perf's names on real programs, recorded by perf and by tally: GCC clone
# suffixes go from C++ names ("sum_flags", not "sum_flags [clone
# .constprop.0]": libiberty reads them only with DMGL_PARAMS) and stay on
# C names ("sum_flags.constprop.0"); thunks keep "virtual thunk to" /
# "non-virtual thunk to" and the inner function's parameters, as
# libiberty prints a special name's encoding whole. Two names at one
# address: perf keeps the one choose_best_symbol prefers on the demangled
# names; a label inside a function: the one of the two perf's symbol tree
# meets first (the function where the label comes later in the table).
# Code under a data object's symbol is that object's row ("name+0xOFF"
# as perf prints objects); a library mapped twice (dlmopen) is one row.
. "$(dirname "$0")/lib.sh"
P=$(cd "$(dirname "$0")/../data/progs" && pwd)
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
if ! command -v g++ >/dev/null; then
	skip "no C++ compiler"
	done_testing; exit 0
fi
# The thunks are only sampled when GCC calls them rather than guessing the target.
g++ -O2 -g -fno-omit-frame-pointer -fno-devirtualize -fno-devirtualize-speculatively \
	-o "$d/names" "$P/names.cc" || { fail "building names.cc"; done_testing; exit 0; }
cc -O2 -g -fno-omit-frame-pointer -o "$d/clones" "$P/clones.c" || { fail "building clones.c"; done_testing; exit 0; }
g++ -O2 -g -fno-omit-frame-pointer -o "$d/aliases" "$P/aliases.cc" || { fail "building aliases.cc"; done_testing; exit 0; }
cc -O1 -g -fno-omit-frame-pointer -o "$d/objects" "$P/objects.c" || { fail "building objects.c"; done_testing; exit 0; }
cc -O1 -fno-omit-frame-pointer -o "$d/nodebug" "$P/nodebug.c" || { fail "building nodebug.c"; done_testing; exit 0; }
printf 'volatile long x;\n__attribute__((noinline)) void hot(long n) { for (long i = 0; i < n; i++) x += i; }\n' >"$d/hot.c"
cc -O1 -g -fPIC -shared -o "$d/libhot.so" "$d/hot.c" &&
	cc -O1 -g -fno-omit-frame-pointer -DLIB="\"$d/libhot.so\"" -o "$d/twice" "$P/twice.c" -ldl ||
	{ fail "building twice.c"; done_testing; exit 0; }
# report's header and rows; perf's tip and tally's account of unresolved addresses aside
out() { "$1" report --stdio "${@:3}" -i "$2" 2>/dev/null | grep -v '^$' | grep -v '^#$' |
	grep -v -e '^# (Tip' -e '^# Addresses without' -e '^#   [/[]'; }
same() {	# NAME FILE OPTS...
	local n=$1 f=$2; shift 2
	out perf "$f" "$@" >"$d/p"; out "$TALLY" "$f" "$@" >"$d/t"
	cmp -s "$d/p" "$d/t" || diff "$d/p" "$d/t" | head -8 | sed 's/^/# /'
	check "$n $*: header and rows are perf's ($(grep -c '%' "$d/p") rows)" cmp -s "$d/p" "$d/t"
}
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record"; else rec="$TALLY record"; fi
	for prog in names clones aliases objects twice nodebug; do
		f="$d/$who-$prog.data"
		$rec -q -g -o "$f" -- "$d/$prog" >/dev/null 2>&1
		for o in "--no-children -g none --sort sym" "--no-children" ""; do
			same "$who-written $prog:" "$f" $o
		done
		perf script -i "$f" >"$d/ps" 2>/dev/null
		"$TALLY" script -i "$f" >"$d/ts" 2>/dev/null
		cmp -s "$d/ps" "$d/ts" || diff "$d/ps" "$d/ts" | head -6 | sed 's/^/# /'
		check "$who-written $prog: script lines are perf's ($(wc -l <"$d/ps") lines)" cmp -s "$d/ps" "$d/ts"
	done
	# --no-demangle: the linkage names, as perf prints them (report's rows, script's frames)
	for prog in names aliases; do
		f="$d/$who-$prog.data"
		same "$who-written $prog:" "$f" --no-demangle --no-children -g none --sort sym
		same "$who-written $prog:" "$f" --no-demangle
		perf script --no-demangle -i "$f" >"$d/ps" 2>/dev/null
		"$TALLY" script --no-demangle -i "$f" >"$d/ts" 2>/dev/null
		cmp -s "$d/ps" "$d/ts" || diff "$d/ps" "$d/ts" | head -6 | sed 's/^/# /'
		check "$who-written $prog: script --no-demangle's lines are perf's ($(grep -c _Z "$d/ps") with _Z names)" \
			cmp -s "$d/ps" "$d/ts"
	done
	check "$who-written names --no-demangle: the thunk's linkage name" \
		grep -q '_ZThn16_N6shapes7Spinner4spinEl' <<<"$(out "$TALLY" "$d/$who-names.data" --no-demangle --no-children -g none --sort sym)"
	# The names themselves, in tally's rows (so the comparison above saw them).
	t=$(out "$TALLY" "$d/$who-names.data" --no-children -g none --sort sym)
	check "$who-written names: 'sum_flags' without its clone suffix" \
		grep -q '\] sum_flags$' <<<"$t"
	check "$who-written names: 'non-virtual thunk to shapes::Spinner::spin(long)'" \
		grep -qF '] non-virtual thunk to shapes::Spinner::spin(long)' <<<"$t"
	check "$who-written names: 'virtual thunk to shapes::Roller::roll(long)'" \
		grep -qF '] virtual thunk to shapes::Roller::roll(long)' <<<"$t"
	check "$who-written clones: the C clone keeps its suffix" \
		grep -q '\] sum_flags\.constprop\.0$' <<<"$(out "$TALLY" "$d/$who-clones.data" --no-children -g none --sort sym)"
	t=$(out "$TALLY" "$d/$who-aliases.data" --no-children -g none --sort sym)
	check "$who-written aliases: 'operator new[]' for _Znam and _Znwm" \
		grep -qF '] operator new[]' <<<"$t"
	check "$who-written aliases: 'shapes::spin_the_wheel', not its alias 'spinw'" \
		grep -qF '] shapes::spin_the_wheel' <<<"$t"
	check "$who-written aliases: a static function keeps the samples past its label" \
		grep -q '\] phase_a$' <<<"$t"
	check "$who-written aliases: \"phase_a_mid\" not named" \
		eval '! grep -q phase_a_mid <<<"$t"'
	check "$who-written aliases: a global function's label is named" \
		grep -q '\] phase_d_mid$' <<<"$t"
	t=$(out "$TALLY" "$d/$who-objects.data" --no-children -g none --sort sym)
	check "$who-written objects: code under a data object is its row, as perf's 'objloop+0xOFF'" \
		grep -q '\] objloop+0x[0-9a-f]*$' <<<"$t"
	check "$who-written objects: a function and an object at one address: the longer name" \
		grep -q '\] tie_object+0x[0-9a-f]*$' <<<"$t"
	check "$who-written twice: a library mapped twice is one row" \
		test "$(out "$TALLY" "$d/$who-twice.data" --no-children -g none --sort dso,sym | grep -c 'libhot.so .*\] hot$')" = 1
done
# source lines where no line table is: binutils' file of the function
# ("nodebug.c:0" for the static one, "??:0" for the global), and crtstuff's
# code in a program built with -g; the program's rows as perf's
for who in perf tally; do
	for prog in nodebug objects; do
		for t in perf "$TALLY"; do
			"$t" report --stdio --no-children --sort dso,sym,srcline -i "$d/$who-$prog.data" 2>/dev/null |
				grep " $prog " >"$d/sl-$prog-$(basename "$t")"
		done
		cmp -s "$d/sl-$prog-perf" "$d/sl-$prog-tally" ||
			diff "$d/sl-$prog-perf" "$d/sl-$prog-tally" | head -6 | sed 's/^/# /'
		check "$who-written $prog: source lines without a line table as perf's ($(wc -l <"$d/sl-$prog-perf") rows)" \
			cmp -s "$d/sl-$prog-perf" "$d/sl-$prog-tally"
	done
	check "$who-written nodebug: the static function's file from the symbol table" \
		grep -q '\] local_hot  *nodebug\.c:0$' "$d/sl-nodebug-tally"
done
# perf diff shows an object's row as report does (the baseline's offset)
perf diff "$d/perf-objects.data" "$d/tally-objects.data" >"$d/pd" 2>/dev/null
"$TALLY" diff "$d/perf-objects.data" "$d/tally-objects.data" >"$d/td" 2>/dev/null
cmp -s "$d/pd" "$d/td" || diff "$d/pd" "$d/td" | head -6 | sed 's/^/# /'
check "diff of two objects recordings: perf diff's rows ($(grep -c '%' "$d/pd") rows)" cmp -s "$d/pd" "$d/td"
done_testing
