#!/usr/bin/env bash
# run.sh: alone (it unmounts tracefs, which every other test reads)
# A fresh machine has no tracefs mounted until someone mounts it: perf
# mounts it itself, so tally must too. Each check starts with tracefs
# unmounted; the state the machine had is restored at the end.
. "$(dirname "$0")/lib.sh"
TP=/sys/kernel/tracing

if [ "$(id -u)" -ne 0 ]; then
	skip "fresh-machine tracefs checks need root (they unmount tracefs)"
	done_testing; exit 0
fi
was_mounted=0
grep -q " $TP tracefs " /proc/mounts && was_mounted=1
restore() {
	if [ $was_mounted = 1 ]; then
		grep -q " $TP tracefs " /proc/mounts || mount -t tracefs nodev $TP
	else
		umount $TP 2>/dev/null || true
	fi
}
trap restore EXIT

# Unmount every tracefs (a busy one cannot be: then these checks cannot run).
unmount_all() {
	local m
	for m in $(awk '$3 == "tracefs" { print $2 }' /proc/mounts); do
		umount "$m" 2>/dev/null || return 1
	done
	! grep -q ' tracefs ' /proc/mounts
}
if ! unmount_all; then
	skip "tracefs is busy and cannot be unmounted here"
	done_testing; exit 0
fi

# tally list: tracepoints listed, tracefs mounted by tally
out=$("$TALLY" list 'syscalls:sys_enter_getpid' 2>&1)
case $out in *"syscalls:sys_enter_getpid"*) ok "tally list shows tracepoints with tracefs unmounted" ;;
	*) fail "tally list shows tracepoints with tracefs unmounted (got: $out)" ;; esac
check "tally mounted tracefs at $TP" grep -q " $TP tracefs " /proc/mounts

# tally stat: the exact-count oracle
unmount_all
n=$("$TALLY" stat -x, -e syscalls:sys_enter_getpid -- "$HELPERS/work" getpid 777 2>&1 >/dev/null | cut -d, -f1)
is "tally stat counts 777 getpid exactly with tracefs unmounted" "$n" 777

# The library's own oracles (C tests) run instead of skipping.
unmount_all
t="$PWD/$BUILD/tests/it/test_oracles"
if [ -x "$t" ]; then
	out=$("$t" 2>&1); rc=$?
	is "test_oracles passes with tracefs unmounted" "$rc" 0
	is "test_oracles skips nothing for tracefs" "$(echo "$out" | grep -ci 'skip.*trac')" 0
else
	fail "test_oracles not built ($t)"
fi

# Without the right to mount: the error says the exact command to run.
unmount_all
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TALLY" stat -e syscalls:sys_enter_getpid -- true 2>&1); rc=$?
	check "unprivileged: tracepoint refused (rc $rc)" [ "$rc" -ne 0 ]
	case $out in *"mount -t tracefs nodev $TP"*) ok "unprivileged: the error gives the mount command" ;;
		*) fail "unprivileged: the error gives the mount command (got: $out)" ;; esac
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$TALLY" list tracepoint 2>&1 >/dev/null)
	case $out in *"tracepoints are not listed"*"mount -t tracefs"*) ok "unprivileged: tally list says why no tracepoints" ;;
		*) fail "unprivileged: tally list says why no tracepoints (got: $out)" ;; esac
else
	skip "no nobody user or setpriv"
fi

# make demo's steps, as a new user runs them on a machine where perf never ran.
unmount_all
out=$(BUILD=$BUILD demo/run.sh 2>&1); rc=$?
is "demo/run.sh exits 0 with tracefs unmounted" "$rc" 0
case $out in *"=> the same counts"*) ok "demo: tally and perf agree" ;;
	*) fail "demo: tally and perf agree (got: $(echo "$out" | tail -20))" ;; esac
done_testing
