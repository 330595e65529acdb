#!/usr/bin/env bash
# tally lock report on lockdep's events (lock:lock_acquire, _acquired,
# _contended, _release: CONFIG_LOCKDEP and CONFIG_LOCK_STAT, which this
# kernel lacks) against perf lock report 6.1, line for line, on one file:
# a tally lock recording of the mmap workload rewritten into lockdep
# sequences (lockdep_data.py), with long names (cut by report), spinlock
# classes over several addresses (-c combines them) and broken sequences
# (the debug counts after the table). contention on it says what is
# missing.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then skip "perf is not installed"; done_testing; exit 0; fi
if [ "$(id -u)" != 0 ]; then skip "lock record needs root (kernel tracepoints)"; done_testing; exit 0; fi
if ! "$TALLY" list lock:contention_begin 2>/dev/null | grep -q "lock:contention_begin"; then
	missing "this kernel has no lock:contention_begin"; done_testing; exit 0
fi

"$TALLY" lock record -q -o "$d/c.data" -- "$HELPERS/mmaplock" 4 2000 >/dev/null 2>&1
python3 "$(dirname "$0")/lockdep_data.py" "$d/c.data" "$d/ld.data"
check "a lockdep recording made" test -s "$d/ld.data"
check "perf reads it as lockdep's events" sh -c "perf evlist -i '$d/ld.data' 2>/dev/null | grep -q '^lock:lock_acquire$'"

same() {
	local name=$1; shift
	perf lock report -i "$d/ld.data" "$@" 2>&1 >/dev/null | awk '/^ *Name / { on = 1 } on' >"$d/p.out"
	"$TALLY" lock report -i "$d/ld.data" "$@" >"$d/t.out" 2>"$d/t.err"
	if [ ! -s "$d/p.out" ]; then
		fail "$name: perf printed nothing"
	elif cmp -s "$d/p.out" "$d/t.out"; then
		ok "$name"
	else
		fail "$name: $(diff "$d/p.out" "$d/t.out" | head -6 | tr '\n' '|') $(head -c 200 "$d/t.err")"
	fi
}
same "report"
same "report -k contended" -k contended
same "report -k wait_total -F contended,wait_min" -k wait_total -F contended,wait_min
same "report -t" -t
same "report -c (classes over addresses)" -c
same "report -E 2" -E 2
"$TALLY" lock report -i "$d/ld.data" >"$d/o" 2>/dev/null
check "the long class name is cut as perf cuts it" grep -q "^ &mm->mmap_lock_o\.\.\. " "$d/o"
"$TALLY" lock contention -i "$d/ld.data" >/dev/null 2>"$d/e"; rc=$?
is "contention on lockdep's events: 234" "$rc" 234
check "contention says contention_begin is missing" grep -q "no lock:contention_begin events" "$d/e"
done_testing
