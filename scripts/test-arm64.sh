#!/usr/bin/env bash
# make test ARCH=arm64: the arm64 unit tests under qemu-aarch64 user
# emulation, two at a time; each speaks TAP. Ends as tests/run.sh does:
# "N passed, N failed". qemu-user has no perf_event_open (ENOSYS): the
# tests that need the kernel's events skip, naming why (TALLY_QEMU=1).
# TESTS=pattern runs only the tests whose path matches; ARM64_ONLY a list.
set -u
BUILD=${BUILD:-build-arm64}
export CMOCKA_MESSAGE_OUTPUT=TAP TALLY_QEMU=1
# the cross compiler's glibc and dynamic loader
export QEMU_LD_PREFIX=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
log=$(mktemp -d /tmp/tally-arm64-test.XXXXXX)
trap 'rm -rf "$log"' EXIT
t_start=$SECONDS

run_one() {
	local t=$1 base home rc p f s t0=$SECONDS
	base="$log/$(echo "${t#$BUILD/}" | tr '/' '_')"
	home=$(mktemp -d /tmp/tally-home.XXXXXX)
	HOME=$home XDG_CACHE_HOME=$home/.cache timeout 300 qemu-aarch64 "$t" >"$base.log" 2>&1
	rc=$?
	rm -rf "$home"
	s=$(grep -Eic '^(not )?ok [0-9]+.*# skip' "$base.log")
	p=$(grep -Ei '^ok [0-9]+' "$base.log" | grep -Eivc '# skip')
	f=$(grep -Ei '^not ok [0-9]+' "$base.log" | grep -Eivc '# skip')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - ${t#$BUILD/} exited $rc" >>"$base.log"
	fi
	if [ "$f" -gt 0 ]; then
		# the logs go with the run: a failure's is kept for the next look
		mkdir -p /tmp/tally-kept && cp "$base.log" "/tmp/tally-kept/arm64-$(basename "$base").$$.log"
		printf 'FAIL %-40s %d passed, %d failed (log kept: %s)\n' "${t#$BUILD/}" "$p" "$f" \
			"/tmp/tally-kept/arm64-$(basename "$base").$$.log"
		grep -Ev '^ok ' "$base.log" | grep -Eiv '# skip' | head -20 | sed 's/^/    /'
	else
		printf 'ok   %-40s %d passed%s (%ds)\n' "${t#$BUILD/}" "$p" \
			"$([ "$s" -gt 0 ] && echo ", $s skipped")" "$((SECONDS - t0))"
	fi
	echo "$p $f $s" >"$base.res"
}

# Arch-neutral tests that take qemu's soft floating point or a big
# exhaustive loop past ~15 s each (the whole arm64 part stays near a
# minute); TALLY_ARM64_ALL=1 runs them too.
slow="util/test_fmt cli/test_report_fmt symbol/test_scopes data/test_trace_fmt
symbol/test_symcache hist/test_hist_threads"
tests=() skipped=0
for t in "$BUILD"/tests/unit/*/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
	[ -z "${TESTS:-}" ] || [[ "$t" == *$TESTS* ]] || continue
	# ARM64_ONLY="dir/test_x ...": those alone (make test's arm64 part)
	[ -z "${ARM64_ONLY:-}" ] || [[ " $(echo $ARM64_ONLY) " == *" ${t#$BUILD/tests/unit/} "* ]] || continue
	if [ -z "${TALLY_ARM64_ALL:-}" ] && [[ " $(echo $slow) " == *" ${t#$BUILD/tests/unit/} "* ]]; then
		echo "skip ${t#$BUILD/}: arch-neutral and slow under qemu (TALLY_ARM64_ALL=1 runs it)"
		skipped=$((skipped + 1))
		continue
	fi
	tests+=("$t")
done
if [ "${#tests[@]}" -eq 0 ]; then
	echo "arm64: no unit tests in $BUILD (make ARCH=arm64 arm64-tests)" >&2
	exit 1
fi
jobs=${TEST_JOBS:-2}
running=0
for t in "${tests[@]}"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait

pass=0 fail=0 skip=$skipped
for r in "$log"/*.res; do
	read -r p f s <"$r"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
done
echo "arm64 (qemu-aarch64): $skip skipped, $((SECONDS - t_start))s"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
