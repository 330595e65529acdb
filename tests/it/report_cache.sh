#!/usr/bin/env bash
# tally's caches: the kallsyms cache (lib/kcache.c): a report that reads
# it prints what a report reading /proc/kallsyms prints; a damaged,
# foreign or switched-off cache is never trusted, and the report stays the
# same. The inflated copies of compressed debug files (lib/debugcache.c):
# the same inline frames from the copy, the original and a damaged copy.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
export XDG_CACHE_HOME=$d/cache
rep() { "$TALLY" report --stdio --no-children --sort dso,sym -i "$d/k.data" 2>&1 | grep -v '^#'; }
"$TALLY" record -q -e cpu-clock -c 50000 -o "$d/k.data" -- "$W" getpid 300000 >/dev/null 2>&1
TALLY_KALLSYMS_CACHE=0 rep >"$d/live"
check "a file with kernel samples: kernel symbols named" grep -q '\[k\] [a-z_]' "$d/live"
is "TALLY_KALLSYMS_CACHE=0: no cache written" "$(ls "$d/cache/tally"/kallsyms3-* 2>/dev/null | wc -l)" 0
rep >"$d/first"
c=$(ls "$d/cache/tally"/kallsyms3-* 2>/dev/null | head -1)
check "the first report writes this boot's cache" test -s "$c"
is "the cache is private to its user" "$(stat -c %a "$c")" 600
rep >"$d/second"
check "a report from the cache equals one from /proc/kallsyms" cmp -s "$d/live" "$d/second"
check "the report that wrote it too" cmp -s "$d/live" "$d/first"
# (that the cache is read where lookups land, not loaded, shows in peak
# memory against a user-only report of another file: a comparison of two
# runs, printed by bench/memory.sh, no longer asserted here)
# Damage found at open (the header's checksum, the size) or where a
# lookup reads a block (each block's checksum): never trusted, the report
# the same, the file written again. "blocks": a byte flipped in every 4 KiB
# after the header, so the first kernel lookup reads a damaged block.
flip_every() { python3 -c 'import sys
f = open(sys.argv[1], "r+b"); n = f.seek(0, 2)
for o in range(65536, n, 4096):
	f.seek(o); b = f.read(1); f.seek(o); f.write(bytes([b[0] ^ 1]))' "$1"; }
for how in truncate flip empty header blocks; do
	case $how in
	header) python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(100); b = f.read(1); f.seek(100); f.write(bytes([b[0] ^ 1]))' "$c" ;;
	blocks) flip_every "$c" ;;
	*) damage "$c" $how 100000 ;;
	esac
	bad=$(md5sum <"$c")
	rep >"$d/$how"
	check "a $how cache is not trusted: the same report" cmp -s "$d/live" "$d/$how"
	# a block in the middle the report never reads is never checked: no need to write it again
	[ $how = flip ] && { rm -f "$c"; rep >/dev/null; continue; }
	check "a $how cache is rewritten" test "$(md5sum <"$c")" != "$bad"
	rep >"$d/again"
	check "the rewritten cache gives the same report" cmp -s "$d/live" "$d/again"
done
# A first run writes the cache off its way: script's output is out before
# the write ends (each rename held 3 s by strace; the symtab caches are
# warm, so the kallsyms cache's is the one rename), and the cache is whole.
if command -v strace >/dev/null; then
	scr() { "$TALLY" script -i "$d/k.data" 2>&1; }
	rep >/dev/null
	TALLY_KALLSYMS_CACHE=0 scr >"$d/slive"
	# three times at most: a loaded machine can put another held rename (a
	# symbol-table cache's, on the output's thread or a helper's it waits
	# for) before the output (twice in a row in CI); waiting for the
	# kallsyms write would hold every try 3 s
	for try in 1 2 3; do
		rm -f "$c"
		strace -f -qq -ttt -T -e trace=rename,write,writev -e inject=rename:delay_exit=3000000 \
			-o "$d/st" "$TALLY" script -i "$d/k.data" >"$d/held" 2>/dev/null
		order=$(python3 - "$d/st" <<-'PY'
	import re, sys
	out = out_pid = done = None
	start, own = {}, []
	for l in open(sys.argv[1]):
	    m = re.match(r"(\d+) +([\d.]+) (.*)", l)
	    if not m:
	        continue
	    pid, ts, rest = m.group(1), float(m.group(2)), m.group(3).strip()
	    if out is None and re.match(r"writev?\(1,", rest):
	        out, out_pid = ts, pid
	    if rest.startswith("rename("):
	        start[pid] = (ts, "kallsyms3-" in rest)
	    t = re.search(r"<([\d.]+)>$", rest)
	    if pid in start and t and (rest.startswith("rename(") or "rename resumed" in rest):
	        ts0, kall = start.pop(pid)
	        if kall and done is None:
	            # -T leaves out the 3 s strace holds it: a reader that waits
	            # for the write is out 3 s after this; half of it is the margin
	            # a loaded machine has (CI: out 2 ms after the kernel's rename)
	            done = ts0 + float(t.group(1)) + 1.5
	        elif not kall and out is None:
	            own.append(pid)     # a symbol table's cache, written before the output
	    if rest.startswith("rename(") and "kallsyms3-" not in rest and out is None:
	        own.append(pid)         # begun before the output, on any thread: a lookup may wait for it
	if out is not None and done is not None and out < done:
	    print("out-first")
	elif own:
	    print("held by a symbol-table cache's rename")
	else:
	    print("out %s, cache written %s" % (out, done))
	PY
	)
		[ "$order" = out-first ] && break
		# a loaded machine can make the reader load a symbol table itself and
		# write its cache (held 3 s too) before the output: not this question
		[ "$order" = "held by a symbol-table cache's rename" ] || break
	done
	if [ "$order" = "held by a symbol-table cache's rename" ]; then
		skip "script's output is out before its kallsyms cache is written (each try's output waited for a symbol table's cache: a loaded machine)"
	else
		is "script's output is out before its kallsyms cache is written" "$order" out-first
	fi
	check "the script held so is the same" cmp -s "$d/slive" "$d/held"
	scr >"$d/sagain"
	check "and its cache is whole: the next script from it the same" cmp -s "$d/slive" "$d/sagain"
	check "(that read the cache)" test -s "$c"
else
	missing "strace (the cache written off the report's way)"
fi
# the cache is kept to a size: what a write leaves behind (TALLY_CACHE_MAX)
t=$d/cache/tally
head -c 1024 /dev/zero >"$t/kallsyms2-0000000000000001"
head -c 1024 /dev/zero >"$t/symtab2-0000000000000001"
head -c 1024 /dev/zero >"$t/symtab3-0000000000000002.Ab3dEf"
touch -d '2 hours ago' "$t/symtab3-0000000000000002.Ab3dEf"
head -c 3000000 /dev/zero >"$t/symtab3-0000000000000003"
touch -d '10 days ago' "$t/symtab3-0000000000000003"
head -c 1024 /dev/zero >"$t/symtab3-0000000000000004.XyZ123"
rm -f "$c"
TALLY_CACHE_MAX=100G rep >/dev/null
check "a write removes a cache of a retired format" test ! -e "$t/kallsyms2-0000000000000001"
check "and the symbol tables of the format before (mangled names)" test ! -e "$t/symtab2-0000000000000001"
check "and a writer's leftover an hour old" test ! -e "$t/symtab3-0000000000000002.Ab3dEf"
check "not a writer's file of now, nor any file while under the limit" \
	test -e "$t/symtab3-0000000000000004.XyZ123" -a -e "$t/symtab3-0000000000000003"
rm -f "$c"
TALLY_CACHE_MAX=1M rep >"$d/trimmed"
check "over the limit: the least recently used go" test ! -e "$t/symtab3-0000000000000003"
check "the file just written stays, whatever its size" test -s "$c"
check "a report that trimmed the cache is the same" cmp -s "$d/live" "$d/trimmed"
rep >"$d/after"
check "and so is the next one" cmp -s "$d/live" "$d/after"
if id nobody >/dev/null 2>&1; then
	python3 -c 'import sys; f=open(sys.argv[1],"r+b"); f.seek(40); f.write(b"\x00"*64)' "$c"
	chown nobody "$c"
	rep >"$d/foreign"
	check "a cache another user owns is not read" cmp -s "$d/live" "$d/foreign"
fi

# debug files: libc's -dbg DWARF is compressed; inline frames come from it
libc_dbg=$(find /usr/lib/debug/.build-id -name '*.debug' -size +1M 2>/dev/null | head -1)
if [ -z "$libc_dbg" ] || ! readelf -S -W "$libc_dbg" 2>/dev/null | grep -q '\.debug_info.* C '; then
	skip "no compressed debug file installed (libc6-dbg)"
else
	cc -O2 -fomit-frame-pointer -g -o "$d/dw" "$(dirname "$0")/../data/progs/dw.c"
	"$TALLY" record -q -e cpu-clock -c 200000 --call-graph dwarf -o "$d/dw.data" -- "$d/dw" 300 >/dev/null 2>&1
	drep() { "$TALLY" report --stdio --children --sort dso,sym -i "$d/dw.data" 2>&1 | grep -v '^#'; }
	TALLY_DEBUG_CACHE=0 drep >"$d/dlive"
	check "libc's inline frames named from its compressed DWARF" grep -q '__libc_start_main_impl (inlined)' "$d/dlive"
	is "TALLY_DEBUG_CACHE=0: no copy made" "$(ls "$d/cache/tally/debug" 2>/dev/null | wc -l)" 0
	drep >"$d/dfirst"
	cp=$(ls "$d/cache/tally/debug"/*.debug 2>/dev/null | head -1)
	check "the first report makes an inflated copy" test -s "$cp"
	check "the copy has no compressed section" sh -c "! readelf -S -W '$cp' | grep -q '\.debug_.* C '"
	is "the copy carries the build id of the file" \
		"$(readelf -n "$cp" | awk '/Build ID/ { print $3 }')" "$(basename "$cp" .debug)"
	drep >"$d/dsecond"
	check "a report from the copy equals one from the original" cmp -s "$d/dlive" "$d/dsecond"
	check "the report that made it too" cmp -s "$d/dlive" "$d/dfirst"
	truncate -s 4096 "$cp"
	drep >"$d/dbad"
	check "a damaged copy is not used: the same report" cmp -s "$d/dlive" "$d/dbad"
	check "a damaged copy is made again" test "$(stat -c %s "$cp")" -gt 4096
fi
done_testing
