#!/usr/bin/env bash
# tally report -D and tally script -D against perf 6.1's on the same
# files, every line equal: perf's recordings and tally's (call chains,
# -a, a tracepoint, zstd, DWARF stacks, a pipe, switches and namespaces,
# reads, a breakpoint, sample fields), the sample fields only a PMU gives
# (mkfields, mkc2c), perf stat record's file, and crafted files of every
# record type (dump_data.py). A cut file: what came before is shown, the
# cut named.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
B=$HELPERS/burn
PY="python3 $(dirname "$0")/dump_data.py"
PY_CHAINS="python3 $(dirname "$0")/chains_cmp.py"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi

# perf renames the vDSO's DSO to a copy it makes of it, a random name
# (/tmp/perf-vdso.so-XXXXXX), once it has read its symbols: its first name
# stands for it (tally keeps that one)
vdso() { sed -E 's|/tmp/perf-vdso\.so-[A-Za-z0-9]{6}|[vdso]|g'; }

# same NAME FILE [CMDS] [DWARF]: tally CMD -D and perf CMD -D print the same
# lines for each CMD (report and script by default); FILE "-PATH": read from
# stdin; DWARF: the chains perf's unwinder ends early excepted
same() {
	local name=$1 file=$2 cmds=${3:-report script} c in
	for c in $cmds; do
		if [ "${file#-}" != "$file" ]; then
			in=${file#-}
			"$TALLY" $c -D -i - <"$in" 2>"$d/t.err" >"$d/t.out"; local rc=$?
			perf $c -D -i - <"$in" 2>/dev/null | vdso >"$d/p.out"
		else
			"$TALLY" $c -D -i "$file" 2>"$d/t.err" >"$d/t.out"; local rc=$?
			perf $c -D -i "$file" 2>/dev/null | vdso >"$d/p.out"
		fi
		is "$name: tally $c -D exits 0" "$rc" 0
		if [ -n "$4" ]; then
			# a chain perf's unwinder ends with its all-ones frame (a sample in
			# ld.so, docs/perf-differences.md) is tally's longer one: the rest equal
			$PY_CHAINS "$d/t.out" "$d/p.out" >"$d/cmp"; local crc=$?
			is "$name: $c -D every line equal (chains perf ends at all ones: $(head -c 40 "$d/cmp"))" "$crc" 0
			[ $crc = 0 ] || { sed -n '1,12s/^/# /p' "$d/cmp"; keep "$file"; }
		else
			is "$name: $c -D as many lines as perf" "$(wc -l <"$d/t.out")" "$(wc -l <"$d/p.out")"
			diff "$d/t.out" "$d/p.out" >"$d/diff"
			is "$name: $c -D every line equal" "$(grep -c '^[<>]' "$d/diff")" 0
			grep -q '^[<>]' "$d/diff" && sed -n '1,12s/^/# /p' "$d/diff" && keep "$file"
		fi
		check "$name: $c -D shows records" grep -q 'PERF_RECORD_' "$d/p.out"
	done
}

# (--no-bpf-event: perf record's BPF side band costs it a second a run)
for who in perf tally; do
	if [ $who = perf ]; then rec="perf record --no-bpf-event"; else rec="$TALLY record"; fi
	# perf's -g with its side band's records: switches, namespaces, cgroups
	opt=; [ $who = perf ] && opt="--switch-events --namespaces --all-cgroups"
	$rec -q -c 200000 -g $opt -o "$d/$who-g.data" -- "$B" 60 >/dev/null 2>&1
	same "$who -g $opt" "$d/$who-g.data"
	$rec -q -a -c 2000000 -o "$d/$who-a.data" -- sleep 0.05 >/dev/null 2>&1
	same "$who -a" "$d/$who-a.data"
	$rec -q -z --call-graph dwarf,1024 -c 1000000 -o "$d/$who-zdw.data" -- "$B" 40 >/dev/null 2>&1
	same "$who -z --call-graph dwarf (zstd, user stacks)" "$d/$who-zdw.data" "report script" dwarf
	$rec -q -z -c 300000 -o "$d/$who-z.data" -- "$B" 30 >/dev/null 2>&1
	same "$who -z" "$d/$who-z.data"
	if have_tp; then
		$rec -q -e syscalls:sys_enter_getpid -c 1 -o - -- "$W" getpid 5 2>/dev/null \
			>"$d/$who-tp.pipe"
		same "$who tracepoint, a pipe (TRACING_DATA)" "-$d/$who-tp.pipe"
		same "$who tracepoint, a pipe's file by its path" "$d/$who-tp.pipe"
	fi
done
# several events (a breakpoint among them), reads at exit (-s), the fields
# perf's options add
addr=$(nm "$W" | awk '$3 == "target" { print $1 }')
perf record --no-bpf-event -q -e "mem:0x$addr:w" -e cpu-clock -s -d --phys-data --data-page-size \
	--code-page-size -W --transaction -I --user-regs=ax,bx --sample-identifier --sample-cpu \
	-c 300000 -o "$d/many.data" -- sh -c "$W write 20; $B 30" >/dev/null 2>&1
same "perf breakpoint, -s, sample fields" "$d/many.data"
# a group read at each sample (:S): report hands it to each member whose
# count moved (tally script prints such a sample once, not per member)
perf record --no-bpf-event -q -e '{cpu-clock,task-clock}:S' -c 300000 -o "$d/grp.data" -- \
	"$B" 30 >/dev/null 2>&1
same "perf group read" "$d/grp.data" report
# perf stat record: its records, no sample_id_all (perf's unordered, its
# warning); script's own output of the counts (a table) is not tally script's
perf stat record -o "$d/stat.data" -e task-clock,cpu-clock -- true >/dev/null 2>&1
same "perf stat record" "$d/stat.data" report

for c in all hwidx br brcg; do
	"$HELPERS/mkfields" "$d/mf-$c.data" $c >/dev/null 2>&1
	same "mkfields $c" "$d/mf-$c.data"
done
"$HELPERS/mkfields" "$d/mf-brmem.data" brmem 40 8 >/dev/null 2>&1
same "mkfields brmem (branch mode's counts)" "$d/mf-brmem.data"
"$HELPERS/mkc2c" "$d/c2c.data" a 50 >/dev/null 2>&1
same "mkc2c" "$d/c2c.data"

for c in kinds nosid notime pipe; do
	$PY $c "$d/cr-$c.data"
	same "crafted $c" "$d/cr-$c.data"
done
# perf script's own lines for LBR call stacks and guest samples are not
# tally script's: report only
$PY corners "$d/cr-corners.data"
same "crafted corners" "$d/cr-corners.data" report

# the option in the help
check "report --help names -D" sh -c "'$TALLY' report --help | grep -q -- '-D, --dump-raw-trace'"
check "script --help names -D" sh -c "'$TALLY' script --help | grep -q -- '-D, --dump-raw-trace'"

# A cut file: the records before the cut shown, the cut named, exit 1 (perf
# stops with nothing of it shown)
cut=$(python3 -c 'import struct, sys
off, size = struct.unpack("<QQ", open(sys.argv[1], "rb").read()[40:56])
print((off + size * 2 // 3) | 3)' "$d/perf-g.data")
head -c "$cut" "$d/perf-g.data" >"$d/cut.data"
for c in report script; do
	"$TALLY" $c -D -i "$d/cut.data" >"$d/cut-$c.out" 2>"$d/cut.err"; rc=$?
	is "cut file: $c -D exits 1" "$rc" 1
	check "cut file: $c -D names the offset" grep -q 'offset 0x' "$d/cut.err"
	check "cut file: $c -D shows the records before" grep -q 'PERF_RECORD_SAMPLE' "$d/cut-$c.out"
done
check "cut file: report -D counts what it read" grep -q 'Aggregated stats' "$d/cut-report.out"
# A damaged one (bytes flipped in its data): an error or output, never a crash
cp "$d/perf-g.data" "$d/bad.data"
python3 -c 'import struct, sys
f = open(sys.argv[1], "r+b"); b = f.read(); off, size = struct.unpack("<QQ", b[40:56])
for k in range(1, 40):
    f.seek(off + size * k // 41); f.write(bytes([b[off + size * k // 41] ^ 0x5a]))' "$d/bad.data"
for c in report script; do
	"$TALLY" $c -D -i "$d/bad.data" >/dev/null 2>"$d/bad.err"; rc=$?
	check "damaged file: $c -D does not crash (rc $rc)" [ "$rc" -lt 128 ]
	# (the sanitized build's complaints end in a plain exit status)
	check "damaged file: $c -D reads nothing it should not" \
		sh -c "! grep -q 'Sanitizer\|runtime error' '$d/bad.err'"
done
done_testing
