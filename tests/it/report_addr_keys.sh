#!/usr/bin/env bash
# tally report's keys of a row's address as perf 6.1's on the same files,
# without children: srcfile (the source line's file, "" where none is
# found), addr (the address, "%-#18llx"), dso_size and symbol_size ("%*d"
# at the header's width, "unknown" without one), alone, together, under
# --hierarchy, -F and -t; and socket (the sample's CPU's, from the file's
# topology). Where they differ on purpose (docs/perf-differences.md):
# the kernel's dso_size is its MMAP record's length here, and perf's
# children mode maps a caller's address twice (addr) and sizes srcfile
# unmeasured: those are not compared. (perf's --hierarchy with --dsos and
# no dso key shows nothing: the dso key leads there.)
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed: no reference to compare with"; done_testing; exit 0; fi

perf record -q -F 1999 -g -o "$d/perf.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 1999 -g -o "$d/tally.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 499 -a -o "$d/all.data" -- "$B" 200 >/dev/null 2>&1
pl() { report_lines perf --no-children "$@"; }
tl() { report_lines tally --no-children "$@"; }
# (a symbol key on a busy machine's -a file: --comm burn, as unresolved rows
# of equal counts tie in another order: docs/perf-differences.md)
# the user-space files: the kernel's dso_size is its own (above); ld.so's
# inlined lines name another file in perf (docs/perf-differences.md)
user=burn,libc.so.6
for f in perf tally all; do
	for o in "--sort addr" "--sort comm,addr" "--sort addr,dso" "--sort symbol_size,sym --comm burn" \
		 "--sort sym,symbol_size -g none --dsos $user" "--hierarchy --sort dso,dso_size --dsos $user" \
		 "--hierarchy --sort dso,sym,symbol_size --dsos $user" \
		 "--sort srcfile --dsos $user,[kernel.kallsyms]" "--sort comm,srcfile --dsos $user" \
		 "--sort dso_size --dsos $user" "--sort dso_size,sym --dsos $user" \
		 "-F overhead,srcfile,addr --dsos $user" "--sort srcfile,addr -t ; --dsos $user" \
		 "--sort srcfile,symbol_size,dso_size,sym --dsos $user"; do
		# a busy machine's -a file: other programs' lines (perf's addr2line fails
		# on a memfd's code and says nothing of its lines) not compared
		case "$f:$o" in all:*srcfile*) continue;; esac
		# _init (no ELF size): perf sizes it to the next symbol before its PLT
		# entries, tally to the next of all (docs/perf-differences.md)
		tl $o -i "$d/$f.data" | grep -v '\] _init ' >"$d/t.out"
		pl $o -i "$d/$f.data" | grep -v '\] _init ' >"$d/p.out"
		same_lines "$f $o" "$d/t.out" "$d/p.out"
		check "$f $o: rows" grep -qE '^ +[0-9.]+%' "$d/t.out"
	done
done
# what the keys say: burn's functions are in burn.c; an address per row;
# burn_a's size is its symbol's (nm -S)
tl --sort srcfile,sym -g none --dsos burn -i "$d/tally.data" >"$d/t.out"
check "srcfile: burn_a's file is burn.c" grep -qE '^ +[0-9.]+%  burn\.c +\[\.\] burn_a' "$d/t.out"
size=$((16#$(nm -S "$B" | awk '$4 == "burn_a" { print $2 }')))
tl --sort symbol_size,sym -g none --symbols burn_a -i "$d/tally.data" >"$d/t.out"
check "symbol_size: burn_a's is nm's ($size)" grep -qE "^ +[0-9.]+% +$size " "$d/t.out"
n=$(tl --sort addr -g none -i "$d/tally.data" | grep -cE '^ +[0-9.]+%')
u=$(tl --sort addr -g none -i "$d/tally.data" | awk '/^ +[0-9.]+%/ { print $2 }' | sort -u | wc -l)
is "addr: one row per address" "$u" "$n"
# the kernel's dso_size: the length of its MMAP record (an idle machine's samples)
"$TALLY" record -q -a -o "$d/idle.data" -- sleep 0.2 >/dev/null 2>&1
klen=$(perf script --show-mmap-events -i "$d/idle.data" 2>/dev/null |
	sed -n 's/.*PERF_RECORD_MMAP.*(\(0x[0-9a-f]*\)) @ .*\[kernel.kallsyms\].*/\1/p' | head -1)
ks=$(tl --sort dso_size --dsos '[kernel.kallsyms]' -i "$d/idle.data" | awk '/^ +[0-9.]+%/ { print $2; exit }')
if [ -n "$klen" ] && [ -n "$ks" ]; then
	is "dso_size: the kernel's is its MMAP record's length" "$ks" "$((klen))"
else
	fail "dso_size: a kernel sample and its map in an idle machine's -a recording"
fi
# the socket key: each CPU's socket from the file's topology, -001 without
# CPUs. One socket here: a copy of an -a file whose topology puts CPU i in
# socket i (retopo_sockets.py) stands for a machine of several.
("$B" 300 & "$B" 300 & perf record -q -a -F 999 -o "$d/two.data" -- sleep 0.3; wait) >/dev/null 2>&1
python3 "$(dirname "$0")/retopo_sockets.py" "$d/two.data" "$d/sock.data"
is "retopo_sockets.py: a file of as many sockets as CPUs" "$?" 0
for o in "--sort socket" "--sort socket,comm" "--sort comm,socket" "--hierarchy --sort socket,comm" \
	 "-F overhead,socket,cpu" "--sort cpu,socket -t ,"; do
	tl $o -i "$d/sock.data" >"$d/t.out"
	pl $o -i "$d/sock.data" >"$d/p.out"
	same_lines "sockets $o" "$d/t.out" "$d/p.out" || keep "$d/two.data"
done
tl --sort socket,cpu -g none -i "$d/sock.data" >"$d/t.out"
check "sockets: CPU 1's samples in socket 001" grep -qE '^ +[0-9.]+% +001 +001' "$d/t.out"
tl --sort socket,cpu -g none -i "$d/two.data" >"$d/t.out"
check "one socket: CPU 1's samples in socket 000" grep -qE '^ +[0-9.]+% +000 +001' "$d/t.out"
tl --sort socket -g none -i "$d/perf.data" >"$d/t.out"
check "no CPUs sampled: socket -001" grep -qE '^ +100\.00% +-001' "$d/t.out"
"$TALLY" report --stdio --sort srcfile -g none -i "$d/tally.data" >/dev/null 2>"$d/e"
is "srcfile: exits 0" "$?" 0
done_testing
