#!/usr/bin/env bash
# tally test, the self-test users run: every check prints Ok, FAILED or
# Skip with a reason; the exact-count checks pass here (root, tracefs,
# breakpoints and uprobes available); hardware checks pass where a PMU
# exists and skip naming it where none does; the exit status follows.
. "$(dirname "$0")/lib.sh"
out=$("$TALLY" test 2>&1); rc=$?
is "tally test exits 0" "$rc" 0
is "no check failed" "$(echo "$out" | grep -c 'FAILED')" 0
nsw=$(echo "$out" | grep -cE '^ *[0-9]+: ' ); nsw=$((nsw - $(echo "$out" | grep -c 'Hardware:')))
for n in $(seq "$nsw"); do
	line=$(echo "$out" | grep -E "^ *$n: ")
	case $line in *": Ok") ok "check $n is Ok: ${line%%:*}" ;; *) fail "check $n is Ok (got: $line)" ;; esac
done
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ] ||
   ls -d /sys/bus/event_source/devices/armv8* >/dev/null 2>&1; then
	is "with a hardware PMU, the cycles check runs" "$(echo "$out" | grep 'Hardware: cycles' | grep -c ': Ok')" 1
else
	is "without a hardware PMU, hardware checks say so" \
		"$(echo "$out" | grep 'Hardware:' | grep -c 'Skip (no hardware PMU')" 5
fi
# branch records (-b): Ok where the PMU has them (LBR, BRBE), else the
# kernel's refusal as the reason
br=$(echo "$out" | grep 'Hardware: branch stack sampling')
case $br in
*": Ok") ok "branch stack check: Ok" ;;
*"Skip (the kernel refuses branch stack sampling: "?*) ok "branch stack check: skipped with the kernel's reason" ;;
*) fail "branch stack check: Ok or the kernel's reason (got: $br)" ;;
esac
# arm64 thresholds: Ok on an arm64 PMU with FEAT_PMUv3_TH; elsewhere why not
th=$(echo "$out" | grep 'Hardware: arm64 event thresholds')
if [ "$(uname -m)" != aarch64 ]; then
	case $th in *"Skip (not arm64"*) ok "arm64 threshold check: skipped, not arm64" ;;
		*) fail "arm64 threshold check: skipped, not arm64 (got: $th)" ;; esac
elif grep -qsvE '^(0x)?0*$' /sys/bus/event_source/devices/armv8*/caps/threshold_max; then
	case $th in *": Ok") ok "arm64 threshold check: Ok on FEAT_PMUv3_TH" ;;
		*) fail "arm64 threshold check: Ok on FEAT_PMUv3_TH (got: $th)" ;; esac
else
	case $th in *"Skip ("*threshold*) ok "arm64 threshold check: skipped naming the threshold support" ;;
		*) fail "arm64 threshold check: skipped naming the threshold support (got: $th)" ;; esac
fi
is "--list names every check" "$("$TALLY" test --list | wc -l)" "$(echo "$out" | grep -cE '^ *[0-9]+: ')"
is "a check chosen by number runs alone" "$("$TALLY" test 3 | grep -cE '^ *[0-9]+: ')" 1
v=$("$TALLY" test -v 1)
case $v in *"12345 as expected"*) ok "-v shows the oracle's value" ;; *) fail "-v shows the oracle's value (got: $v)" ;; esac
"$TALLY" test --bogus >/dev/null 2>&1
is "an unknown option is a usage error" "$?" 129
# A failing check fails the run: as an unprivileged user under paranoid 2,
# exact kernel-side counting is refused or skipped, never reported Ok silently.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	old=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	nout=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TALLY" test 1 2>&1); nrc=$?
	echo "$old" >/proc/sys/kernel/perf_event_paranoid
	case $nout in *"Ok"*) fail "unprivileged: the tracepoint check is not Ok (got: $nout)" ;;
		*) ok "unprivileged: the tracepoint check is not Ok (rc $nrc)" ;; esac
else
	skip "needs root and the nobody user"
fi
done_testing
