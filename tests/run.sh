#!/usr/bin/env bash
# Runs every test program and script; each speaks TAP ("ok", "not ok",
# "# SKIP"). Ends with one line: "N passed, N failed".
# TESTS=pattern runs only the tests whose path matches.
# TEST_JOBS=N runs N tests at a time (default: twice the CPUs; 1: one by
# one). Most tests wait on workloads, perf and readers more than they
# compute, so a pool keeps both cores busy. A script that changes state
# every other test sees says so with a line "# run.sh: alone" (it
# unmounts tracefs) and runs by itself after the pools; a script that
# changes what others record says "# run.sh: apart" (it loads BPF
# programs on the syscall tracepoints: every process's kernel call
# chains then pass through them, and perf's files name them) and runs in
# a second pool, with its kind only.
# Each test gets a scratch HOME and XDG_CACHE_HOME of its own: every
# run is a newcomer's first run (cold symbol caches, no ~/.debug), and no
# test reads what another wrote.
set -u
BUILD=${BUILD:-build}
export BUILD TALLY="$PWD/$BUILD/tally" HELPERS="$PWD/$BUILD/helpers"
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
# Leaks inside outside libraries that we cannot free: see tests/lsan.supp.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The pictures' readers stay where `make deps` put them, whatever HOME is.
export TALLY_NPM=${TALLY_NPM:-${HOME:-/root}/.cache/tally-npm}
jobs=${TEST_JOBS:-$(($(nproc) * 2))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
log=$(mktemp -d /tmp/tally-test.XXXXXX)
t_start=$SECONDS

# run_one NAME CMD...: runs the test in its own HOME; leaves NAME's TAP in
# $log/NAME.log and "passed failed skipped seconds" in $log/NAME.res.
run_one() {
	local name=$1; shift
	local base
	base="$log/$(echo "$name" | tr '/' '_')"
	local home
	home=$(mktemp -d /tmp/tally-home.XXXXXX)
	local t0=$SECONDS
	HOME=$home XDG_CACHE_HOME=$home/.cache timeout 300 "$@" >"$base.log" 2>&1
	local rc=$?
	local secs=$((SECONDS - t0))
	rm -rf "$home"
	local p f s
	# cmocka's TAP writes a skipped test as "not ok N # SKIP".
	s=$(grep -Eic '^(not )?ok [0-9]+.*# skip' "$base.log" | tr -d ' ')
	p=$(grep -Ei '^ok [0-9]+' "$base.log" | grep -Eivc '# skip' | tr -d ' ')
	f=$(grep -Ei '^not ok [0-9]+' "$base.log" | grep -Eivc '# skip' | tr -d ' ')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1  # crashed, timed out or failed outside a test case
		echo "not ok - $name exited $rc" >>"$base.log"
	fi
	echo "$p $f $s $secs" >"$base.res"
}

# report NAME: its line (and a failure's first lines), as it ends
report() {
	local base p f s secs
	base="$log/$(echo "$1" | tr '/' '_')"
	read -r p f s secs <"$base.res"
	if [ "$f" -gt 0 ]; then
		printf 'FAIL %-40s %d passed, %d failed, %ds (log: %s)\n' "$1" "$p" "$f" "$secs" "$base.log"
		grep -Ev '^ok ' "$base.log" | grep -Eiv '# skip' | head -20 | sed 's/^/    /'
	else
		printf 'ok   %-40s %d passed%s (%ds)\n' "$1" "$p" "$([ "$s" -gt 0 ] && echo ", $s skipped")" "$secs"
		grep -Ei '^(not )?ok .*# skip' "$base.log" | head -3 | sed 's/^/    /'
	fi
}

match() { [ -z "${TESTS:-}" ] || [[ "$1" == *$TESTS* ]]; }

names=() cmds=() alone=() apart=()
for t in "$BUILD"/tests/unit/*/test_* "$BUILD"/tests/it/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
	match "$t" || continue
	names+=("${t#$BUILD/}"); cmds+=("$t")
done
for t in tests/it/*.sh; do
	[ -f "$t" ] && [[ "$t" != *lib.sh ]] || continue	# lib.sh, tui_lib.sh: sourced
	match "$t" || continue
	if grep -q '^# run.sh: alone' "$t"; then
		alone+=("$t")
	elif grep -q '^# run.sh: apart' "$t"; then
		apart+=("$t")
	else
		names+=("$t"); cmds+=("bash $t")
	fi
done

# run_pool N NAME... : the named tests (their commands in cmd_of), N at a
# time, each reported as it ends
declare -A cmd_of=()
run_pool() {
	local n=$1; shift
	local -A pid_name=()
	local done_pid
	for name in "$@"; do
		while [ "${#pid_name[@]}" -ge "$n" ]; do
			wait -n -p done_pid
			report "${pid_name[$done_pid]}"
			unset "pid_name[$done_pid]"
		done
		# shellcheck disable=SC2086
		run_one "$name" ${cmd_of[$name]} &
		pid_name[$!]=$name
	done
	while [ "${#pid_name[@]}" -gt 0 ]; do
		wait -n -p done_pid
		report "${pid_name[$done_pid]}"
		unset "pid_name[$done_pid]"
	done
}

# The first pool: the scripts first, the slowest ahead (the quick
# programs after them fill the gaps instead of one long script ending
# alone).
# A script that says "# run.sh: slow" (over a minute alone) starts first.
first=() rest=()
for ((i = ${#names[@]} - 1; i >= 0; i--)); do
	cmd_of[${names[$i]}]=${cmds[$i]}
	if [[ ${names[$i]} == *.sh ]] && grep -q '^# run.sh: slow' "${names[$i]}"; then
		first+=("${names[$i]}")
	else
		rest+=("${names[$i]}")
	fi
done
first+=("${rest[@]}")
run_pool "$jobs" "${first[@]}"
for t in "${apart[@]}"; do cmd_of[$t]="bash $t"; names+=("$t"); done
[ "${#apart[@]}" -gt 0 ] && run_pool "$jobs" "${apart[@]}"
for t in "${alone[@]}"; do cmd_of[$t]="bash $t"; names+=("$t"); done
[ "${#alone[@]}" -gt 0 ] && run_pool 1 "${alone[@]}"

pass=0 fail=0 skip=0
failed_names=()
for n in "${names[@]}"; do
	read -r p f s _ <"$log/$(echo "$n" | tr '/' '_').res"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_names+=("$n")
done
echo "$skip skipped (each names its reason above)"
# The failures again at the end, where a log's tail shows them.
for n in "${failed_names[@]}"; do
	echo "FAILED $n:"
	grep -Ev '^ok ' "$log/$(echo "$n" | tr '/' '_').log" | grep -Eiv '# skip' | head -12 | sed 's/^/    /'
done
echo "suite: $((SECONDS - t_start))s, $jobs at a time"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
