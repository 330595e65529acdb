#!/usr/bin/env bash
# tally record where the kernel's addresses are hidden: as user nobody
# (perf_event_paranoid 2: user-only events, /proc/kallsyms and
# /proc/iomem all zeros) it records as perf does, and as root without
# CAP_SYSLOG (kernel samples allowed, kallsyms hidden) it warns, naming
# /proc/kallsyms, and still writes a whole file: never "writing perf.data:
# Permission denied" and a 264-byte stub.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
chmod 755 "$d"

if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! id nobody >/dev/null 2>&1; then
	for _ in 1 2 3 4 5 6; do skip "needs root, setpriv and user nobody"; done
	done_testing; exit 0
fi
mkdir "$d/nobody" && chown nobody "$d/nobody"
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$d/nobody" "$@"; }

# as nobody: kallsyms must be hidden from it for the test to mean anything
if asnobody head -1 /proc/kallsyms | grep -q '^0*[1-9a-f]'; then
	for _ in 1 2 3; do skip "kallsyms shows addresses to nobody here"; done
else
	(cd "$d/nobody" && asnobody "$TALLY" record -o p.data -- true) >"$d/out" 2>"$d/err"; rc=$?
	is "nobody: record exits 0 ($(head -1 "$d/err"))" "$rc" 0
	check "nobody: no write error said" sh -c "! grep -q 'Permission denied' '$d/err'"
	check "nobody: the file reads back" sh -c \
		"cd '$d/nobody' && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		 '$TALLY' report -i p.data --stdio >/dev/null 2>&1"
fi

# root without CAP_SYSLOG: kernel samples, kallsyms all zeros
if ! setpriv --bounding-set -syslog true 2>/dev/null; then
	for _ in 1 2 3; do skip "setpriv cannot drop CAP_SYSLOG"; done
elif setpriv --bounding-set -syslog head -1 /proc/kallsyms | grep -q '^0*[1-9a-f]'; then
	for _ in 1 2 3; do skip "kallsyms shows addresses without CAP_SYSLOG here"; done
else
	setpriv --bounding-set -syslog "$TALLY" record -e cpu-clock -o "$d/k.data" -- \
		"$HELPERS/burn" 100 >"$d/out" 2>"$d/err"; rc=$?
	is "no CAP_SYSLOG: record exits 0 ($(grep -v '^\[' "$d/err" | head -1))" "$rc" 0
	check "no CAP_SYSLOG: the warning names /proc/kallsyms" \
		grep -q "warning: /proc/kallsyms hides the kernel's addresses" "$d/err"
	check "no CAP_SYSLOG: the file has its samples" sh -c \
		"'$TALLY' report -i '$d/k.data' --stdio -F overhead,sym 2>/dev/null | grep -q '%'"
fi
done_testing
