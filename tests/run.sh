#!/usr/bin/env bash
# Runs every test program and script; each speaks TAP ("ok", "not ok",
# "# SKIP"). Ends with one line: "N passed, N failed".
# TESTS=pattern runs only the tests whose path matches.
set -u
BUILD=${BUILD:-build}
export BUILD TALLY="$PWD/$BUILD/tally" HELPERS="$PWD/$BUILD/helpers"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# Leaks inside outside libraries that we cannot free: see tests/lsan.supp.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
pass=0 fail=0 skip=0
failed_names=()
log=$(mktemp -d /tmp/tally-test.XXXXXX)

run_one() {
	local name=$1; shift
	local out="$log/$(echo "$name" | tr '/' '_').log"
	local t0=$SECONDS
	timeout 300 "$@" >"$out" 2>&1
	local rc=$?
	local secs=$((SECONDS - t0))
	local p f s
	# cmocka's TAP writes a skipped test as "not ok N # SKIP".
	s=$(grep -Eic '^(not )?ok [0-9]+.*# skip' "$out" | tr -d ' ')
	p=$(grep -Ei '^ok [0-9]+' "$out" | grep -Eivc '# skip' | tr -d ' ')
	f=$(grep -Ei '^not ok [0-9]+' "$out" | grep -Eivc '# skip' | tr -d ' ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1  # crashed, timed out or failed outside a test case
		echo "not ok - $name exited $rc" >>"$out"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		failed_names+=("$name")
		printf 'FAIL %-40s %d passed, %d failed (log: %s)\n' "$name" "$p" "$f" "$out"
		grep -Ev '^ok ' "$out" | grep -Eiv '# skip' | head -20 | sed 's/^/    /'
	else
		printf 'ok   %-40s %d passed%s (%ds)\n' "$name" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs"
		grep -Ei '^(not )?ok .*# skip' "$out" | head -3 | sed 's/^/    /'
	fi
}

match() { [ -z "${TESTS:-}" ] || [[ "$1" == *$TESTS* ]]; }

for t in "$BUILD"/tests/unit/*/test_* "$BUILD"/tests/it/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
	match "$t" || continue
	run_one "${t#$BUILD/}" "$t"
done
for t in tests/it/*.sh; do
	[ -f "$t" ] && [[ "$t" != *lib.sh ]] || continue	# lib.sh, tui_lib.sh: sourced
	match "$t" || continue
	run_one "$t" bash "$t"
done

echo "$skip skipped (each names its reason above)"
# The failures again at the end, where a log's tail shows them.
for n in "${failed_names[@]}"; do
	echo "FAILED $n:"
	grep -Ev '^ok ' "$log/$(echo "$n" | tr '/' '_').log" | grep -Eiv '# skip' | head -12 | sed 's/^/    /'
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
