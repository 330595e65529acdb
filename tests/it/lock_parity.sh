#!/usr/bin/env bash
# tally lock against perf lock 6.1, line for line, on the same files:
# threads mapping and unmapping memory (they wait on the mmap lock, an
# rwsem) recorded once by perf lock record and once by tally lock record,
# each file read by both tools: contention (default, -k and -F, -t, -E,
# -v's call stacks, --stack-skip) and report (default, -k, -F, -t, -c,
# -E). perf prints its tables on stderr, tally on stdout; the lines
# compared are the table's (perf's messages before it left out).
. "$(dirname "$0")/lib.sh"
ML=$HELPERS/mmaplock
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "lock record needs root (kernel tracepoints, paranoid 2)"; done_testing; exit 0; fi
if ! "$TALLY" list lock:contention_begin 2>/dev/null | grep -q "lock:contention_begin"; then
	missing "this kernel has no lock:contention_begin"; done_testing; exit 0
fi

perf lock record -o "$d/perf.data" -- "$ML" 4 3000 >/dev/null 2>"$d/perf.err"
check "perf lock record of the mmap workload" test -s "$d/perf.data"
"$TALLY" lock record -q -o "$d/tally.data" -- "$ML" 4 3000 >/dev/null 2>"$d/tally.err"
is "tally lock record exits 0" "$?" 0
check "tally lock record wrote its file" test -s "$d/tally.data"

# same NAME FILE ARGS...: perf lock ARGS and tally lock ARGS print the same table on FILE
same() {
	local name=$1 f=$2; shift 2
	# perf's table is on stderr, after its messages (from the header's line on)
	perf lock "$@" -i "$f" 2>&1 >/dev/null |
		awk '/^ *(Name|contended|acquired|avg wait|total wait|max wait|min wait) / { on = 1 } on' >"$d/p.out"
	"$TALLY" lock "$@" -i "$f" >"$d/t.out" 2>"$d/t.err"
	if [ ! -s "$d/p.out" ]; then
		fail "$name: perf printed nothing"
	elif cmp -s "$d/p.out" "$d/t.out"; then
		ok "$name"
	else
		fail "$name: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|') $(head -c 200 "$d/t.err")"
	fi
}

for f in perf tally; do
	F=$d/$f.data
	same "$f's file: contention" "$F" contention
	same "$f's file: contention -k contended" "$F" contention -k contended
	same "$f's file: contention -k wait_min (added as a column)" "$F" contention -k wait_min
	same "$f's file: contention -F contended,wait_min,avg_wait -k avg_wait" "$F" contention -F contended,wait_min,avg_wait -k avg_wait
	same "$f's file: contention -t" "$F" contention -t
	same "$f's file: contention -E 3 -v (call stacks)" "$F" contention -E 3 -v
	same "$f's file: contention --stack-skip 2" "$F" contention --stack-skip 2
	same "$f's file: contention --stack-skip 0 (lock functions left out by address)" "$F" contention --stack-skip 0
	same "$f's file: contention --max-stack 5 -E 6" "$F" contention --max-stack 5 -E 6
	same "$f's file: report" "$F" report
	same "$f's file: report -k wait_total" "$F" report -k wait_total
	same "$f's file: report -F contended,wait_max -k contended" "$F" report -F contended,wait_max -k contended
	same "$f's file: report -t" "$F" report -t
	same "$f's file: report -c -E 4" "$F" report -c -E 4
done

# chains made corrupt: each PERF_CONTEXT_USER marker (-512) in the samples
# turned into one perf does not know (-3000): perf drops such a chain when
# the marker is among the frames it reads (key -1, caller "Unknown"),
# while -v's stack still lists its addresses, markers left out
corrupt() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
o, n = struct.unpack_from("<QQ", b, 40)
b[o:o + n] = bytes(b[o:o + n]).replace(struct.pack("<q", -512), struct.pack("<q", -3000))
open(sys.argv[2], "wb").write(b)
PY
}
for f in perf tally; do
	corrupt "$d/$f.data" "$d/$f-corrupt.data"
	F=$d/$f-corrupt.data
	same "$f's file, chains corrupt: contention" "$F" contention
	same "$f's file, chains corrupt: contention -v -E 6" "$F" contention -v -E 6
	same "$f's file, chains corrupt: contention -k contended --max-stack 5" "$F" contention -k contended --max-stack 5
	same "$f's file, chains corrupt: report" "$F" report
done

# a recording without call chains (tally record -e of the two events):
# every wait is one "Unknown" caller per lock type, as perf's (whose -v
# crashes on it: tally's prints the rows, no stacks)
"$TALLY" record -q -e lock:contention_begin -e lock:contention_end -o "$d/nochain.data" \
	-- "$ML" 4 1000 >/dev/null 2>&1
same "no chains: contention" "$d/nochain.data" contention
same "no chains: contention --stack-skip 0" "$d/nochain.data" contention --stack-skip 0
same "no chains: report" "$d/nochain.data" report
"$TALLY" lock contention -v -i "$d/nochain.data" >"$d/o" 2>"$d/e"; rc=$?
is "no chains: contention -v exits 0" "$rc" 0
check "no chains: contention -v prints the rows" grep -q "Unknown" "$d/o"

# the oracle: the mmap lock is contended, for writing (mmap, munmap) and reading (faults)
"$TALLY" lock contention -i "$d/tally.data" >"$d/c.out" 2>/dev/null
check "the mmap lock shows contended for writing (rwsem:W)" grep -q " rwsem:W " "$d/c.out"
check "... from munmap or mmap's system calls" grep -Eq "rwsem:W +(__x64_sys_munmap|do_syscall_64|__vm_munmap|vm_mmap_pgoff|__x64_sys_mmap)" "$d/c.out"
done_testing
