#!/usr/bin/env bash
# tally probe's events, counted exactly: a program calling work(i) for
# i = 0..N-1 (tests/helpers/probe_prog.c, built here with -g -O0):
# stat -e on the probe counts N; record + script shows the N values of i
# in order (and perf script reads the same file the same way); %return
# with $retval shows 3i; the SDT marker probe_prog:tick counts N. Then
# add/list/delete with globs, -f's _1, a taken name, a failed add
# leaving no half-made event, a debug file found by .gnu_debuglink and in
# debuginfod's cache, the kernel probe message, and non-root runs.
# Every probe lives in a group of this run (tp<pid>) and goes on exit.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
G=tpo$$
# event names of this run too: perf (and tally, as perf) take a name used in any group as taken
E=ow$$
cleanup() {
	"$TALLY" probe -q -d "$G:*" >/dev/null 2>&1
	"$TALLY" probe -q -d "${G}x:*" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
UE=$("$TALLY" list syscalls:sys_enter_getpid >/dev/null 2>&1; for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -e $d/uprobe_events ] && echo $d/uprobe_events && break; done)
mine() { grep -c "^[pr]:$G/" "$UE" 2>/dev/null || true; }

if [ "$(id -u)" != 0 ] || [ -z "$UE" ]; then
	skip "needs root and tracefs's uprobe_events"
	done_testing
	exit 0
fi
mkdir -p "$tmp/bin"
P=$tmp/bin/prog
cc -g -O0 -o "$P" "$(dirname "$0")/../helpers/probe_prog.c" || { fail "build probe_prog"; done_testing; exit 0; }
N=37

# (a) add with names, args by DWARF name, %return, SDT
"$TALLY" probe -q -x "$P" -a "$G:${E}=work i" -a "$G:${E}r=work%return \$retval" \
	-a "$G:t${E}=sdt_probe_prog:tick"
is "three events added" "$(mine)" 3
"$TALLY" stat -x, -e "$G:${E}" -e "$G:${E}r__return" -e "$G:t${E}" -- "$P" $N >/dev/null 2>"$tmp/st"
is "stat counts work N times" "$(awk -F, -v e="$G:${E}" '$3 == e { print $1 }' "$tmp/st")" $N
is "stat counts work's returns N times" "$(awk -F, -v e="$G:${E}r__return" '$3 == e { print $1 }' "$tmp/st")" $N
is "stat counts the SDT marker N times" "$(awk -F, -v e="$G:t${E}" '$3 == e { print $1 }' "$tmp/st")" $N

"$TALLY" record -q -o "$tmp/p.data" -e "$G:${E}" -e "$G:${E}r__return" -e "$G:t${E}" -- "$P" $N >/dev/null 2>&1
"$TALLY" script -i "$tmp/p.data" >"$tmp/s.tally" 2>/dev/null
want_i=$(seq 0 $((N - 1)) | tr '\n' ' ')
got_i=$(grep " $G:${E}: " "$tmp/s.tally" | sed -n 's/.* i=\(-\?[0-9]*\)$/\1/p' | tr '\n' ' ')
is "script: the N values of i in order" "$got_i" "$want_i"
want_r=$(for i in $(seq 0 $((N - 1))); do printf '0x%x ' $((3 * i)); done)
got_r=$(grep " $G:${E}r__return: " "$tmp/s.tally" | sed -n 's/.* arg1=\(0x[0-9a-f]*\)$/\1/p' | tr '\n' ' ')
is "script: \$retval is 3i" "$got_r" "$want_r"
got_t=$(grep " $G:t${E}: " "$tmp/s.tally" | sed -n 's/.* arg1=\(-\?[0-9]*\)$/\1/p' | tr '\n' ' ')
is "script: the SDT argument is i" "$got_t" "$want_i"
if have_perf; then
	perf script -i "$tmp/p.data" >"$tmp/s.perf" 2>/dev/null
	check "perf script reads tally's probe recording as tally script does" cmp -s "$tmp/s.perf" "$tmp/s.tally"
else
	skip "perf not installed"
fi

# trace -e takes them as tracepoints: one line per call, with i
timeout 60 "$TALLY" trace -e "$G:${E}" -- "$P" 4 >/dev/null 2>"$tmp/tr"
is "trace -e shows the probe once per call" "$(grep -c "$G:${E}(" "$tmp/tr")" 4
check "trace shows i's values" grep -q "i: 3)" "$tmp/tr"

# -l maps them back to their places as perf's -l does
if have_perf; then
	perf probe -l "$G:*" >"$tmp/l.perf" 2>/dev/null
	"$TALLY" probe -l "$G:*" >"$tmp/l.tally" 2>&1
	check "-l as perf's -l" cmp -s "$tmp/l.perf" "$tmp/l.tally"
fi

# more places for -l: an offset, inlined copies (their call sites), a line, an entry
if have_perf; then
	"$TALLY" probe -q -x "$P" -a "${G}x:o${E}=parse+8" -a "${G}x:i${E}=twice x" \
		-a "${G}x:l${E}=parse:4 k s->len" -a "${G}x:m${E}=main"
	perf probe -l "${G}x:*" >"$tmp/l.perf" 2>/dev/null
	"$TALLY" probe -l "${G}x:*" >"$tmp/l.tally" 2>&1
	check "-l of offsets, inlined copies, lines as perf's -l" cmp -s "$tmp/l.perf" "$tmp/l.tally"
	"$TALLY" probe -q -d "${G}x:*"
fi

# -l lists them; a taken name is refused (perf's EEXIST, 239), -f adds work_1
"$TALLY" probe -l "$G:*" >"$tmp/l"
is "-l lists this group's three" "$(grep -c "^  $G:" "$tmp/l")" 3
"$TALLY" probe -x "$P" -a "$G:${E}=work" >/dev/null 2>"$tmp/e"
is "a taken name: exit 239" "$?" 239
check "a taken name: perf's message" grep -q "event \"${E}\" already exists" "$tmp/e"
"$TALLY" probe -q -f -x "$P" -a "$G:${E}=work"
check "-f names the duplicate ${E}_1" grep -q "^p:$G/${E}_1 " "$UE"
"$TALLY" stat -x, -e "$G:${E}_1" -- "$P" 5 >/dev/null 2>"$tmp/st"
is "${E}_1 counts too" "$(awk -F, '{ print $1 }' "$tmp/st")" 5

# -d with a glob removes exactly what it matches
"$TALLY" probe -d "$G:${E}*" 2>"$tmp/d"
is "-d '$G:${E}*' removed three" "$(grep -c '^Removed event' "$tmp/d")" 3
is "the SDT event is left" "$(mine)" 1
"$TALLY" probe -d "$G:nothing*" 2>"$tmp/d"
is "-d matching nothing: exit 254" "$?" 254
check "-d matching nothing: perf's message" grep -q 'does not hit any event' "$tmp/d"
"$TALLY" probe -q -d "$G:*"
is "-d '$G:*' leaves none" "$(mine)" 0

# a failed add leaves no half-made event: resolved first, written all or none
"$TALLY" probe -x "$P" -a "$G:a${E}=work i" -a "$G:b${E}=work nosuchvar" >/dev/null 2>"$tmp/e"
is "an unknown variable: exit 254" "$?" 254
check "an unknown variable: perf's message" grep -q "Failed to find the location of the 'nosuchvar' variable" "$tmp/e"
is "nothing added" "$(mine)" 0
# the kernel refuses the second line: the first one written goes again
"$TALLY" probe -x "$P" -a "$G:a${E}=work i" -a "$G:b${E}=work +0(%nosuchreg):u32" >/dev/null 2>"$tmp/e"
check "a line the kernel refuses fails the add" test $? -ne 0
is "and the line written before it is removed" "$(mine)" 0

# a name that is nowhere, and one optimized out at -O2 (parse's k at its entry): perf's words
"$TALLY" probe -n -x "$P" 'work nosuch' 2>"$tmp/e" >/dev/null
check "a missing variable: 'Perhaps it has been optimized out'" grep -q 'Perhaps it has been optimized out' "$tmp/e"
cc -g -O2 -o "$tmp/bin/prog2" "$(dirname "$0")/../helpers/probe_prog.c"
"$TALLY" probe -n -x "$tmp/bin/prog2" 'parse k' >/dev/null 2>"$tmp/e"
is "optimized out: exit 254" "$?" 254
check "optimized out: perf's message" grep -q "Failed to find the location of the 'k' variable at this address" "$tmp/e"
# a location computed by an expression (r = 3 * i at -O2): refused, not fetched wrong
"$TALLY" probe -n -x "$tmp/bin/prog2" 'work r' >/dev/null 2>"$tmp/e"
check "a computed location is refused" grep -q "don't support this variable location" "$tmp/e"

# separate debug files: .gnu_debuglink and debuginfod's cache give the same line
line() { "$TALLY" probe -n -v -x "$1" "$G:${E}=work i" 2>&1 | sed -n 's/^Writing event: //p' | sed 's|/[^ ]*:0x|BIN:0x|'; }
want=$(line "$P")
objcopy --only-keep-debug "$P" "$tmp/bin/prog.debug"
objcopy --strip-debug --add-gnu-debuglink="$tmp/bin/prog.debug" "$P" "$tmp/bin/prog_dl"
is "a .gnu_debuglink debug file gives the same event" "$(line "$tmp/bin/prog_dl")" "$want"
bid=$(readelf -n "$P" | sed -n 's/.*Build ID: //p')
objcopy --strip-debug "$P" "$tmp/bin/prog_bare"
mkdir -p "$tmp/dcache/$bid" && cp "$tmp/bin/prog.debug" "$tmp/dcache/$bid/debuginfo"
is "debuginfod's cache gives the same event" \
	"$(DEBUGINFOD_CACHE_PATH=$tmp/dcache line "$tmp/bin/prog_bare")" "$want"
"$TALLY" probe -n -x "$tmp/bin/prog_bare" 'work i' >/dev/null 2>"$tmp/e"
check "no debug info anywhere: perf's message" grep -q 'has no debug information' "$tmp/e"

# a shared library, perf's naming (probe_libc:malloc): N mallocs more count N more
LIBC=$(ldd "$P" | awk '$1 ~ /^libc\.so/ { print $3 }')
"$TALLY" probe -q -x "$LIBC" -a "$G:m${E}=malloc"
"$TALLY" stat -x, -e "$G:m${E}" -- "$P" 0 malloc >/dev/null 2>"$tmp/m0"
"$TALLY" stat -x, -e "$G:m${E}" -- "$P" 250 malloc >/dev/null 2>"$tmp/m1"
m0=$(awk -F, '{ print $1 }' "$tmp/m0"); m1=$(awk -F, '{ print $1 }' "$tmp/m1")
is "libc's malloc: 250 calls more count 250 more" "$((m1 - m0))" 250
is "its default name is perf's" "$("$TALLY" probe -n -v -x "$LIBC" malloc 2>&1 | sed -n 's/^Writing event: \([pr]:[^ ]*\).*/\1/p')" "p:probe_libc/malloc"
"$TALLY" probe -q -d "$G:m${E}"

# kernel probes: a clear message naming what the kernel lacks
if [ -e "${UE%/*}/kprobe_events" ] || [ -e /sys/bus/event_source/devices/kprobe ]; then
	skip "this kernel has kprobe events (the message is for kernels without)"
else
	"$TALLY" probe -n do_sys_open >/dev/null 2>"$tmp/e"
	check "a kernel probe fails" test $? -ne 0
	check "its message names kprobe_events" grep -q 'no kprobe_events in tracefs' "$tmp/e"
fi

# the default group and name are perf's: probe_<binary up to '-' or '.'>
cp "$P" "$tmp/bin/my-app.bin"
is "default group: probe_my" "$("$TALLY" probe -n -v -x "$tmp/bin/my-app.bin" work 2>&1 | sed -n 's/^Writing event: \([pr]:[^ ]*\).*/\1/p')" "p:probe_my/work"

# non-root: -n resolves as nobody; adding says why it cannot
if command -v setpriv >/dev/null; then
	chmod -R go+rX "$tmp"
	nb=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TALLY" probe -n -v -x "$P" "$G:${E}=work i" 2>&1 | sed -n 's/^Writing event: //p' | sed 's|/[^ ]*:0x|BIN:0x|')
	is "non-root -n gives the same line" "$nb" "$want"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TALLY" probe -x "$P" "$G:${E}=work i" >/dev/null 2>"$tmp/e"
	check "non-root add fails" test $? -ne 0
	check "with the reason" grep -qi 'permission denied' "$tmp/e"
	is "and adds nothing" "$(mine)" 0
else
	skip "setpriv missing"
fi
done_testing
