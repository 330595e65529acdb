#!/usr/bin/env bash
# tally record -a with perf's -G lists: `-e x -e y -G a,b` records x in
# cgroup a and y in cgroup b (one name: every event before it). Oracle:
# N getpid() in a, M in b; the file's samples per event are exactly N and
# M, and perf script reads the file.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
if [ "$(id -u)" != 0 ]; then skip "cgroup tests need root"; done_testing; exit 0; fi
if ! have_tp; then skip "no $TP"; done_testing; exit 0; fi
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG" ]; then skip "no cgroup v2 mounted"; done_testing; exit 0; fi
d=$(mktemp -d)
a=$CG/tally-rec-a-$$ b=$CG/tally-rec-b-$$
cleanup() {
	for c in "$a" "$b"; do
		[ -f "$c/cgroup.procs" ] && while read -r p; do
			echo "$p" >"$CG/cgroup.procs" 2>/dev/null
		done <"$c/cgroup.procs"
		rmdir "$c" 2>/dev/null
	done
	rm -rf "$d"
}
trap cleanup EXIT
mkdir "$a" "$b"
$TALLY record -q -a -c 1 -e $TP -e $TP -G "${a#"$CG"/},${b#"$CG"/}" -o "$d/l.data" -- \
	sh -c "echo \$\$ > $a/cgroup.procs; $W getpid 300; echo \$\$ > $b/cgroup.procs; $W getpid 500" 2>"$d/err"
is "record -G a,b: exits 0" "$?" 0
sed 's/^/# /' "$d/err" | head -5
# samples per event, in attr order (one report block each): a's, then b's
got=$("$TALLY" report --stdio -g none --sort comm -i "$d/l.data" 2>/dev/null |
	awk '/^# Samples:/ { print $3 }' | tr '\n' ' ')
is "each event counted its own cgroup's calls exactly" "$got" "300 500 "
"$TALLY" record -q -a -c 1 -e $TP -G "${a#"$CG"/}" -o "$d/o.data" -- \
	sh -c "echo \$\$ > $a/cgroup.procs; $W getpid 300; echo \$\$ > $b/cgroup.procs; $W getpid 500" 2>/dev/null
is "record -G a: only a's calls" "$("$TALLY" script -F event -i "$d/o.data" 2>/dev/null | wc -l)" 300
if have_perf; then
	perf script -i "$d/l.data" >/dev/null 2>"$d/perr"
	is "perf script reads the file" "$?" 0
fi
"$TALLY" record -q -a -e $TP -G "${a#"$CG"/},${b#"$CG"/}" -o "$d/x.data" -- true 2>"$d/e"; rc=$?
check "more cgroups than events: refused (rc $rc)" [ $rc -ne 0 ]
check "more cgroups than events: said" grep -q 'more cgroups than events before it' "$d/e"
done_testing
