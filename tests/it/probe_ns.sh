#!/usr/bin/env bash
# tally probe --target-ns=PID: a binary seen only inside another mount
# namespace. A process unshares its mount namespace and runs a copy of
# probe_prog from a tmpfs mounted there (a path that does not exist out
# here). As perf probe 6.1, tally resolves the path in that namespace and
# writes the uprobe_events line from inside it (the kernel resolves the
# path as the target sees it): the line equals perf's, the kernel lists
# the same probe for both, and the probe counts the N calls of work()
# that process makes. Without the namespace the path is not found; a
# non-root user gets a clear error. The probes live in groups of this run.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
G=tns$$
nspid=
cleanup() {
	[ -n "$nspid" ] && kill "$nspid" 2>/dev/null
	"$TALLY" probe -q -d "$G:*" >/dev/null 2>&1
	"$TALLY" probe -q -d "${G}p:*" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
UE=$("$TALLY" list syscalls:sys_enter_getpid >/dev/null 2>&1; for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -e $d/uprobe_events ] && echo $d/uprobe_events && break; done)
if [ "$(id -u)" != 0 ] || [ -z "$UE" ] || ! command -v unshare >/dev/null; then
	skip "needs root, unshare and tracefs's uprobe_events"
	done_testing
	exit 0
fi
chmod 755 "$tmp"
cc -g -O0 -o "$tmp/prog" "$(dirname "$0")/../helpers/probe_prog.c" || { fail "build probe_prog"; done_testing; exit 0; }
mkdir "$tmp/ns"
N=29
# in its own mount namespace: the copy at $tmp/ns/bin/prog, run N times over once told to
unshare -m --propagation private sh -c 'mount -t tmpfs none "$1/ns" && mkdir "$1/ns/bin" &&
	cp "$1/prog" "$1/ns/bin/prog" && : >"$1/ready" || exit 1
	while [ ! -e "$1/go" ]; do sleep 0.05; done
	"$1/ns/bin/prog" "$2" >/dev/null; : >"$1/done"
	while :; do sleep 1; done' sh "$tmp" $N &
nspid=$!
for _ in $(seq 100); do [ -e "$tmp/ready" ] && break; sleep 0.05; done
Q=$tmp/ns/bin/prog
check "the binary is not there out here" test ! -e "$Q"
export HOME=$tmp/home
mkdir -p "$HOME"

"$TALLY" probe -n -x "$Q" 'work i' >/dev/null 2>"$tmp/e"
check "without --target-ns the path is not found" grep -q "Failed to find the path for $Q" "$tmp/e"
lines() { "$@" 2>&1 | sed -n 's/^Writing event: //p' | sort; }
got=$(lines "$TALLY" probe -n -v --target-ns=$nspid -x "$Q" 'work i')
is "--target-ns: the line names the path the target sees" "$got" "p:probe_prog/work $Q:0x$(printf %x "$(
	"$TALLY" probe -n -v -x "$tmp/prog" 'work i' 2>&1 | sed -n 's/^Writing event: .*:0x\([0-9a-f]*\) .*/0x\1/p')") i=$(
	"$TALLY" probe -n -v -x "$tmp/prog" 'work i' 2>&1 | sed -n 's/^Writing event: .* i=//p')"
if have_perf; then
	is "--target-ns: the same line as perf's" "$got" "$(lines perf probe -n -v --target-ns=$nspid -x "$Q" 'work i')"
	"$TALLY" probe -q --target-ns=$nspid -x "$Q" -a "$G:w$$=work i"
	# (another event name: perf takes a name used in any group as taken)
	perf probe -q --target-ns=$nspid -x "$Q" -a "${G}p:wp$$=work i" >/dev/null 2>&1
	is "the kernel lists tally's probe as perf's" "$(sed -n "s|^p:$G/w$$ ||p" "$UE")" \
		"$(sed -n "s|^p:${G}p/wp$$ ||p" "$UE")"
	"$TALLY" probe -q -d "${G}p:*"
else
	skip "perf not installed"
	"$TALLY" probe -q --target-ns=$nspid -x "$Q" -a "$G:w$$=work i"
fi
check "the probe is added with the path the target sees" grep -q "^p:$G/w$$ $Q:" "$UE"
"$TALLY" stat -x, -a -e "$G:w$$" -- sh -c ': >"$1/go"; while [ ! -e "$1/done" ]; do sleep 0.05; done' sh "$tmp" \
	>/dev/null 2>"$tmp/st"
is "the probe counts the N calls of the target's copy" "$(awk -F, -v e="$G:w$$" '$3 == e { print $1 }' "$tmp/st")" $N

# -V and -L read the binary there too
"$TALLY" probe -x "$tmp/prog" -V work >"$tmp/v.want" 2>&1
"$TALLY" probe --target-ns=$nspid -x "$Q" -V work >"$tmp/v.got" 2>&1
check "-V --target-ns reads the target's copy" cmp -s "$tmp/v.want" "$tmp/v.got"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TALLY" probe -n --target-ns=$nspid -x "$Q" work \
	>/dev/null 2>"$tmp/e"
is "non-root: exit status (-EACCES, as perf's statuses)" "$?" 243
check "non-root: a clear error" grep -q "Failed to enter the mount namespace of $nspid: Permission denied" "$tmp/e"
"$TALLY" probe -q -d "$G:*"
is "-d removes it" "$(grep -c "^[pr]:$G/" "$UE")" 0
done_testing
