#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# tally trace record's path strings (issue 32): perf 6.1's file has no
# place for them, so they go in a section of tally's own (feature bit
# 192, after perf's). tally trace -i shows them as live tally trace
# does; perf reads the file as if the section were not there: perf
# trace -i, perf script and perf report --header-only print the same
# for the file and for its copy with bit 192 cleared. A damaged or cut section is
# said, and the trace still printed, with pointers.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/trace_record_strings.$$.XXXXXX); trap 'rm -rf "$tmp"' EXIT

if ! have_tp; then
	skip "no syscall tracepoints here"
	done_testing
	exit 0
fi

a=$tmp/alpha.$$ b=$tmp/beta.$$ c=$tmp/gamma.$$ d=$tmp/delta.$$
for f in "$a" "$b" "$c" "$d"; do echo "$f" >"$f"; done
# three processes: each thread's strings go to its own calls; the last
# path lies on a page its process never touched: read at the call's exit
$TALLY trace record -o "$tmp/s.data" -- \
	sh -c "cat '$a' '$b'; cat '$c'; '$HELPERS/work' fresh-path '$d'" >/dev/null 2>"$tmp/rec.err"
is "record: exit 0" "$?" "0"
if grep -q "no path strings" "$tmp/rec.err"; then
	skip "no BPF here: $(grep "no path strings" "$tmp/rec.err")"
	done_testing
	exit 0
fi
$TALLY trace -i "$tmp/s.data" -o "$tmp/t" 2>"$tmp/t.err"
# the workload's openat paths, in the order they came
paths() { grep -o "openat(dfd: CWD, filename: \"$tmp/[^\"]*\"" "$1" | sed 's/.*filename: //' | tr '\n' ' '; }
is "-i: the workload's paths, in order (the last read at its call's exit)" "$(paths "$tmp/t")" \
	"\"$a\" \"$b\" \"$c\" \"$d\" "
check "-i: the fd read names its file, as live" grep -q "read(fd: 3<$a>, " "$tmp/t"
is "-i: nothing said on stderr" "$(cat "$tmp/t.err")" ""

# the same file with bit 192 (the low bit of byte 96, features[3]) cleared: the file without the section
is "the file has bit 192" "$(od -An -tu1 -j96 -N1 "$tmp/s.data" | tr -d ' ')" "1"
cp -p "$tmp/s.data" "$tmp/n.data"
printf '\0' | dd of="$tmp/n.data" bs=1 seek=96 conv=notrunc status=none
touch -r "$tmp/s.data" "$tmp/n.data"
$TALLY trace -i "$tmp/n.data" -o "$tmp/tn" 2>&1
is "-i without the section: no path string" "$(paths "$tmp/tn")" ""
check "-i without the section: pointers" grep -q 'openat(dfd: CWD, filename: 0x' "$tmp/tn"
$TALLY trace --no-strings -i "$tmp/s.data" -o "$tmp/tns" 2>&1
check "--no-strings -i: the lines of the file without the section" cmp -s "$tmp/tn" "$tmp/tns"

if have_perf; then
	perf trace -i "$tmp/s.data" >"$tmp/ps" 2>&1
	perf trace -i "$tmp/n.data" >"$tmp/pn" 2>&1
	check "perf trace -i: pointers for the paths" grep -q 'openat(dfd: CWD, filename: 0x' "$tmp/ps"
	if cmp -s "$tmp/ps" "$tmp/pn"; then
		ok "perf trace -i: the same output with the section as without ($(wc -l <"$tmp/ps") lines)"
	else
		fail "perf trace -i: the same output with the section as without"
		diff "$tmp/pn" "$tmp/ps" | head -10 | sed 's/^/# /'
	fi
	perf script -i "$tmp/s.data" >"$tmp/ss" 2>&1
	perf script -i "$tmp/n.data" >"$tmp/sn" 2>&1
	check "perf script: the same output with the section as without" cmp -s "$tmp/ss" "$tmp/sn"
	perf report --header-only -i "$tmp/s.data" >"$tmp/hs" 2>&1
	perf report --header-only -i "$tmp/n.data" >"$tmp/hn" 2>&1
	if cmp -s "$tmp/hs" "$tmp/hn"; then
		ok "perf report --header-only: the same with the section as without"
	else
		fail "perf report --header-only: the same with the section as without"
		diff "$tmp/hn" "$tmp/hs" | head -10 | sed 's/^/# /'
	fi
else
	skip "no perf: perf's reading of the file"
fi

# where the section lies: the last {offset, size} of the table after the data
sec_off() {
	python3 -c 'import struct, sys
h = open(sys.argv[1], "rb").read(104)
doff, dsize = struct.unpack_from("<QQ", h, 40)
n = sum(bin(w).count("1") for w in struct.unpack_from("<4Q", h, 72))
f = open(sys.argv[1], "rb"); f.seek(doff + dsize + 16 * (n - 1))
print(struct.unpack("<Q", f.read(8))[0])' "$1"
}
# damaged: the first string's length made 0x7fffffff
cp "$tmp/s.data" "$tmp/d.data"
off=$(sec_off "$tmp/d.data")
printf '\xff\xff\xff\x7f' | dd of="$tmp/d.data" bs=1 seek=$((off + 8 + 20)) conv=notrunc status=none
$TALLY trace -i "$tmp/d.data" -o "$tmp/td" 2>"$tmp/td.err"
is "damaged: exit 0 (the trace was shown)" "$?" "0"
check "damaged: said, with the file and what" \
	grep -q "d.data: the path strings' section is damaged: string 1 is 2147483647 bytes long.*pointers" "$tmp/td.err"
check "damaged: the trace, with pointers" cmp -s "$tmp/td" "$tmp/tn"
# cut short: the section is the file's last part
cp "$tmp/s.data" "$tmp/c.data"
truncate -s -8 "$tmp/c.data"
$TALLY trace -i "$tmp/c.data" -o "$tmp/tc" 2>"$tmp/tc.err"
is "cut short: exit 0" "$?" "0"
check "cut short: said" grep -q "c.data: the path strings' section lies past the end of the file .*truncated" "$tmp/tc.err"
check "cut short: the trace, with pointers" cmp -s "$tmp/tc" "$tmp/tn"
done_testing
