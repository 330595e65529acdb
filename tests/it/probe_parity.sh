#!/usr/bin/env bash
# tally probe against perf probe 6.1 on one binary (probe_prog, -g -O0):
# the uprobe_events line each writes for the same spec (perf probe -n -v
# prints it as "Writing event: ..."; tally probe -n -v too), for a table
# of specs (members, casts, strings, arrays, %return, lines, offsets,
# lazy patterns, inlined copies, globals, raw fetches, SDT); then -L, -V
# and -F outputs byte for byte. Dry runs only: nothing is added.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! have_perf; then
	skip "perf not installed"
	done_testing
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	# perf probe opens uprobe_events for writing even with -n
	skip "perf probe needs root, even for a dry run"
	done_testing
	exit 0
fi
P=$tmp/prog
cc -g -O0 -o "$P" "$(cd "$(dirname "$0")/../helpers" && pwd)/probe_prog.c" || { fail "build probe_prog"; done_testing; exit 0; }
# perf -n still resolves through the probe cache of HOME: keep it here
export HOME=$tmp/home
mkdir -p "$HOME"

# lines by their text, so that edits of the helper keep the table's meaning
SRC=$(cd "$(dirname "$0")/../helpers" && pwd)/probe_prog.c
LDECL=$(grep -n '^int __attribute__((noinline)) parse' "$SRC" | cut -d: -f1)	# parse's declaration
LK=$(grep -n 'int k = s->len' "$SRC" | cut -d: -f1)				# its first statement
lines() { "$@" 2>&1 | sed -n 's/^Writing event: //p' | sort; }
while IFS= read -r spec; do
	case $spec in ''|'#'*) continue ;; esac
	want=$(lines perf probe -x "$P" -n -v "$spec")
	got=$(lines "$TALLY" probe -x "$P" -n -v "$spec")
	if [ -z "$want" ]; then
		fail "perf wrote no event for '$spec' (the table needs specs perf takes)"
	else
		is "same uprobe_events lines: $spec" "$got" "$want"
	fi
done <<EOF
work
work i
work i r
work%return \$retval
myr=work%return \$retval
work:2
work+4
work \$params
work \$vars
work i:s64 i:x16
work %di +8(%sp):u64
myev=work i
grp:myev=work i
parse s->len s->buf[2] name:string n:u32
parse s->name:string
parse s->buf:string
parse s->in.hi s->next->lo
parse s->vals[3] s->flags
parse n:x32 n:s8 n:u
parse nm=name:string ln=s->len
parse \$params
parse \$vars
parse:6
parse;for*
parse@probe_prog.c s
probe_prog.c:$LK
probe_prog.c:$LDECL
probe_prog.c;return*
sum v[2] nr in.lo in.hi
sum \$vars
twice x
main counter label:string
main s.len s.buf[1] s.name:string
main nx.hi
sdt_probe_prog:tick
EOF

# a shared library: what its DWARF names otherwise (libc's malloc is __libc_malloc
# there) found by its symbol, as perf falls back
LIBC=$(ldd "$P" | awk '$1 ~ /^libc\.so/ { print $3 }')
for spec in malloc 'malloc%return $retval' 'malloc+4 %di' free; do
	is "same uprobe_events lines: libc $spec" "$(lines "$TALLY" probe -x "$LIBC" -n -v "$spec")" \
		"$(lines perf probe -x "$LIBC" -n -v "$spec")"
done

# -F on libc: each symbol of the table perf reads, versions kept (memcpy, memcpy@@GLIBC_2.14,
# memcpy@GLIBC_2.2.5 where its debug file's .symtab names them so)
perf probe -x "$LIBC" -F >"$tmp/f.perf" 2>/dev/null
"$TALLY" probe -x "$LIBC" -F >"$tmp/f.tally" 2>/dev/null
check "-F libc as perf's" cmp -s "$tmp/f.perf" "$tmp/f.tally"

# a spec perf refuses is refused too (a line sharing its address)
"$TALLY" probe -x "$P" -n probe_prog.c:$((LDECL + 1)) >/dev/null 2>"$tmp/e"
is "a line sharing its address: exit 254" "$?" 254
check "a line sharing its address: perf's hint" grep -q 'This line is sharing the address with other lines' "$tmp/e"

for spec in parse work twice sum main probe_prog.c:$((LDECL - 11))-$((LK + 2)) probe_prog.c:$((LDECL - 1)) parse@probe_prog.c; do
	perf probe -x "$P" -L "$spec" >"$tmp/l.perf" 2>/dev/null
	"$TALLY" probe -x "$P" -L "$spec" >"$tmp/l.tally" 2>/dev/null
	if [ -s "$tmp/l.perf" ]; then
		check "-L $spec as perf's" cmp -s "$tmp/l.perf" "$tmp/l.tally"
	else
		fail "perf -L $spec printed nothing"
	fi
done
for spec in parse work twice sum main same parse:6 'work%return' probe_prog.c:$LK 'parse;for*' sum+10; do
	perf probe -x "$P" -V "$spec" >"$tmp/v.perf" 2>/dev/null
	"$TALLY" probe -x "$P" -V "$spec" >"$tmp/v.tally" 2>/dev/null
	if [ -s "$tmp/v.perf" ]; then
		check "-V $spec as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	else
		fail "perf -V $spec printed nothing"
	fi
done
# optimized code (-O2): inline functions' copies, functions with an
# out-of-line copy and inlined ones, parameters in registers
cc -g -O2 -o "$tmp/prog2" "$SRC"
for spec in twice 'parse $params' 'sum $params' 'work $params' 'work%return $retval' main \
	'same $params' 'parse;for*'; do
	is "-O2: same uprobe_events lines: $spec" "$(lines "$TALLY" probe -x "$tmp/prog2" -n -v "$spec")" \
		"$(lines perf probe -x "$tmp/prog2" -n -v "$spec")"
done
for f in twice parse sum work main; do
	perf probe -x "$tmp/prog2" -V $f >"$tmp/v.perf" 2>/dev/null
	"$TALLY" probe -x "$tmp/prog2" -V $f >"$tmp/v.tally" 2>/dev/null
	check "-O2: -V $f as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	perf probe -x "$tmp/prog2" -L $f >"$tmp/l.perf" 2>/dev/null
	"$TALLY" probe -x "$tmp/prog2" -L $f >"$tmp/l.tally" 2>/dev/null
	check "-O2: -L $f as perf's" cmp -s "$tmp/l.perf" "$tmp/l.tally"
done

# -O2 lines inside inlined copies: the arguments in perf's best scope (the function
# named, else the one declared nearest above), and the copies' own points
for spec in 'parse:6 k s' 'parse:5 k' 'parse;for* k'; do
	perf probe -x "$tmp/prog2" -V "${spec%% *}" >"$tmp/v.perf" 2>/dev/null
	"$TALLY" probe -x "$tmp/prog2" -V "${spec%% *}" >"$tmp/v.tally" 2>/dev/null
	check "-O2: -V ${spec%% *} as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	is "-O2: same uprobe_events lines: $spec" "$(lines "$TALLY" probe -x "$tmp/prog2" -n -v "$spec")" \
		"$(lines perf probe -x "$tmp/prog2" -n -v "$spec")"
done
# --no-inlines: an inline function's copies are not probed (twice has no other instance)
for spec in twice parse 'parse;for*' 'sum $params'; do
	"$TALLY" probe -x "$tmp/prog2" --no-inlines -n -v "$spec" >"$tmp/ni.tally" 2>&1
	rt=$?
	perf probe -x "$tmp/prog2" --no-inlines -n -v "$spec" >"$tmp/ni.perf" 2>&1
	rp=$?
	is "--no-inlines $spec: perf's exit status" "$rt" "$rp"
	is "--no-inlines $spec: same uprobe_events lines" "$(sed -n 's/^Writing event: //p' "$tmp/ni.tally" | sort)" \
		"$(sed -n 's/^Writing event: //p' "$tmp/ni.perf" | sort)"
done
"$TALLY" probe -x "$tmp/prog2" --no-inlines -n twice >/dev/null 2>"$tmp/e"
check "--no-inlines twice: perf's message" grep -qx "Probe point 'twice' not found." "$tmp/e"
"$TALLY" probe -x "$tmp/prog2" --no-inlines -V twice >/dev/null 2>"$tmp/e"
is "-V --no-inlines twice: perf's exit status" "$?" 254
check "-V --no-inlines twice: perf's message" grep -qx 'Failed to find the address of twice' "$tmp/e"
# -V --range: [VAL]/[INV] and each variable's location ranges; --externs' [EXT]
for b in "$P" "$tmp/prog2"; do
	for spec in parse work sum main twice parse:6 'parse;for*' 'probe_prog.c;return*'; do
		perf probe -x "$b" -V "$spec" --range >"$tmp/v.perf" 2>/dev/null
		"$TALLY" probe -x "$b" -V "$spec" --range >"$tmp/v.tally" 2>/dev/null
		check "-V $spec --range as perf's (${b##*/})" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	done
	perf probe -x "$b" -V main --range --externs >"$tmp/v.perf" 2>/dev/null
	"$TALLY" probe -x "$b" -V main --range --externs >"$tmp/v.tally" 2>/dev/null
	check "-V main --range --externs as perf's (${b##*/})" cmp -s "$tmp/v.perf" "$tmp/v.tally"
done
check "-V --range shows an [INV] variable at -O2" grep -q '\[INV\]' <("$TALLY" probe -x "$tmp/prog2" -V main --range)

# a unit compiled by a relative path (DW_AT_name relative to comp_dir, as make's builds)
(cd "$(dirname "$SRC")/.." && cc -g -O0 -o "$tmp/prog_rel" helpers/probe_prog.c)
perf probe -x "$tmp/prog_rel" -L parse >"$tmp/l.perf" 2>/dev/null
"$TALLY" probe -x "$tmp/prog_rel" -L parse >"$tmp/l.tally" 2>/dev/null
check "-L of a unit named relative to its comp_dir as perf's" cmp -s "$tmp/l.perf" "$tmp/l.tally"
perf probe -x "$P" -V main --externs >"$tmp/v.perf" 2>/dev/null
"$TALLY" probe -x "$P" -V main --externs >"$tmp/v.tally" 2>/dev/null
check "-V main --externs as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
perf probe -x "$P" -F >"$tmp/f.perf" 2>/dev/null
"$TALLY" probe -x "$P" -F >"$tmp/f.tally" 2>/dev/null
check "-F as perf's" cmp -s "$tmp/f.perf" "$tmp/f.tally"
perf probe -x "$P" -F 'p*|w*' >"$tmp/f.perf" 2>/dev/null
"$TALLY" probe -x "$P" -F 'p*|w*' >"$tmp/f.tally" 2>/dev/null
check "-F 'p*|w*' as perf's" cmp -s "$tmp/f.perf" "$tmp/f.tally"
done_testing
