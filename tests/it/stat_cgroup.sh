#!/usr/bin/env bash
# tally stat -G CG -a on a cgroup v2 that is already busy when counting
# starts: N getpid() from the command in the cgroup are counted exactly
# every time, and no event's time is larger than the run (the kernel
# gave a cgroup's fresh per-CPU clock the machine's uptime, or nothing,
# when its events were enabled from another CPU). Fresh cgroups each run,
# removed even on failure.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
N=${N:-5000}
RUNS=${RUNS:-20}

if [ "$(id -u)" != 0 ]; then skip "cgroup tests need root"; done_testing; exit 0; fi
if ! have_tp; then skip "no $TP"; done_testing; exit 0; fi
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG" ]; then skip "no cgroup v2 mounted"; done_testing; exit 0; fi

tmp=$(mktemp -d)
spin=
cgs=()
cleanup() {
	[ -n "$spin" ] && kill "$spin" 2>/dev/null && wait "$spin" 2>/dev/null
	for c in "${cgs[@]}"; do
		# back to the root first: a cgroup with tasks cannot go
		[ -f "$c/cgroup.procs" ] && while read -r p; do
			echo "$p" >"$CG/cgroup.procs" 2>/dev/null
		done <"$c/cgroup.procs"
		rmdir "$c" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ncpu=$(nproc)
bad_count=0 bad_time=0
for i in $(seq "$RUNS"); do
	c=$CG/tally-test-$$-$i
	mkdir "$c" || { fail "mkdir $c"; continue; }
	cgs+=("$c")
	# busy before counting starts: a spinner in the cgroup
	(echo "$BASHPID" >"$c/cgroup.procs" && exec "$W" spin 3000) &
	spin=$!
	sleep 0.05
	t0=$(date +%s%N)
	$TALLY stat -x, -a -G "${c#"$CG"/}" -e $TP,task-clock -- \
		sh -c "echo \$\$ > $c/cgroup.procs && exec $W getpid $N" 2>"$tmp/o.$i"
	t1=$(date +%s%N)
	kill "$spin" 2>/dev/null; wait "$spin" 2>/dev/null; spin=
	got=$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/o.$i")
	if [ "$got" != "$N" ]; then
		bad_count=$((bad_count + 1))
		echo "# run $i: $TP '$got', want $N"; sed 's/^/#   /' "$tmp/o.$i"
	fi
	# runtime (column 5) is summed over the CPUs: at most ncpu * the run
	max=$(( (t1 - t0) * ncpu ))
	if awk -F, -v max=$max '$5 != "" && ($5 + 0 > max + 0 || $5 + 0 == 0) { bad = 1 } END { exit !bad }' "$tmp/o.$i"; then
		bad_time=$((bad_time + 1))
		echo "# run $i: a time is 0 or larger than the run ($max ns)"; sed 's/^/#   /' "$tmp/o.$i"
	fi
	rmdir "$c" 2>/dev/null
done
is "-G -a: the cgroup column is the name as given" \
	"$(awk -F, -v ev=$TP '$3 == ev { print $4 }' "$tmp/o.1")" "tally-test-$$-1"
is "-G -a: exactly $N getpid in each of $RUNS busy fresh cgroups" "$bad_count" 0
is "-G -a: time enabled within the run, never 0, in each of $RUNS runs" "$bad_time" 0

# -G a,b: each event its own cgroup. The command puts 3000 getpid in A
# (a child of the shell in A), then moves to B and makes 7000 there.
A=$CG/tally-test-$$-a B=$CG/tally-test-$$-b
mkdir "$A" "$B" && cgs+=("$A" "$B")
a=${A#"$CG"/} b=${B#"$CG"/}
two="echo \$\$ > $A/cgroup.procs && $W getpid 3000 && echo \$\$ > $B/cgroup.procs && exec $W getpid 7000"
# count and cgroup column of the event rows, "count:cgroup" a line
rows() { awk -F, -v ev=$TP '$3 == ev { printf "%s:%s ", $1, $4 }' "$1"; }
$TALLY stat -x, -a -e $TP,$TP -G "$a,$b" -- sh -c "$two" 2>"$tmp/l"
is "-G a,b: first event in a, second in b" "$(rows "$tmp/l")" "3000:$a 7000:$b "
$TALLY stat -x, -a -e $TP -G "$a" -e $TP -G "$b" -- sh -c "$two" 2>"$tmp/l2"
is "-e x -G a -e y -G b: the same" "$(rows "$tmp/l2")" "3000:$a 7000:$b "
$TALLY stat -x, -a -e $TP,$TP -G "$b" -- sh -c "$two" 2>"$tmp/l3"
is "-e x,y -G b: one name, every event before it" "$(rows "$tmp/l3")" "7000:$b 7000:$b "
# an event after the last -G has none: system-wide, an empty column
$TALLY stat -x, -a -e $TP -G "$a" -e $TP -- sh -c "$two" 2>"$tmp/l4"
got=$(awk -F, -v ev=$TP '$3 == ev && $4 == "" && $1 >= 10000 { n++ } $3 == ev && $4 == "'"$a"'" && $1 == 3000 { n++ } END { print n + 0 }' "$tmp/l4")
is "-e x -G a -e y: y everywhere (empty cgroup column)" "$got" 2
# JSON: a "cgroup" key on every row, empty for an event without one (perf)
$TALLY stat -j -a -e $TP -G "$a" -e $TP -- true 2>"$tmp/j"
is "-j: cgroup keys" "$(grep -o '"cgroup" : "[^"]*"' "$tmp/j" | paste -sd' ')" \
	"\"cgroup\" : \"$a\" \"cgroup\" : \"\""
check "-G a,b,c with two events: refused" \
	bash -c "! $TALLY stat -x, -a -e $TP,$TP -G $a,$b,$a -- true 2>/dev/null"
check "-G a,,b: an empty name skips an event" \
	bash -c "$TALLY stat -x, -a -e $TP,$TP,$TP -G $a,,$b -- sh -c '$two' 2>&1 | awk -F, '\$3 == \"$TP\" { print \$4 }' | paste -sd: | grep -qx '$a::$b'"
if have_perf; then
	perf stat -x, -a -e $TP,$TP -G "$a,$b" -- sh -c "$two" 2>"$tmp/pl"
	is "perf stat -G a,b: the same rows" "$(rows "$tmp/pl")" "$(rows "$tmp/l")"
fi

# --for-each-cgroup a,b: every event once per cgroup, cgroup by cgroup.
$TALLY stat -x, -a -e $TP,task-clock --for-each-cgroup "$a,$b" -- sh -c "$two" 2>"$tmp/f"
is "--for-each-cgroup a,b: each event in each" \
	"$(awk -F, '{ printf "%s:%s ", $3, $4 }' "$tmp/f")" \
	"$TP:$a task-clock:$a $TP:$b task-clock:$b "
is "--for-each-cgroup a,b: the counts" "$(rows "$tmp/f")" "3000:$a 7000:$b "
# Each cgroup's rate is its count over ITS OWN task-clock (perf keys the
# shadow counts by cgroup): "ok" per cgroup when within 1%.
rates() {
	awk -F, -v ev=$TP '
	$3 == "task-clock" { clk[$4] = $1 }
	$3 == ev { n[$4] = $1; m[$4] = $7; u[$4] = $8 }
	END {
		for (c in n) {
			f = 1
			if (u[c] ~ /^K/) f = 1e3
			if (u[c] ~ /^M/) f = 1e6
			if (u[c] ~ /^G/) f = 1e9
			want = n[c] / (clk[c] / 1000)
			printf "%s:%s\n", c, (clk[c] > 0 && m[c] * f > want * 0.99 && m[c] * f < want * 1.01) ? "ok" : m[c] u[c] " want " want
		}
	}' "$1" | sort | paste -sd' '
}
is "--for-each-cgroup a,b: each rate over its own cgroup's task-clock" "$(rates "$tmp/f")" "$a:ok $b:ok"
$TALLY stat -x, -a -e $TP,task-clock,$TP,task-clock -G "$a,$a,$b,$b" -- sh -c "$two" 2>"$tmp/g4"
is "-G a,a,b,b: each rate over its own cgroup's task-clock" "$(rates "$tmp/g4")" "$a:ok $b:ok"
# -G a,,b: the clock counts everywhere, not in a or b: no rate for them (perf 6.1)
$TALLY stat -x, -a -e $TP,task-clock,$TP -G "$a,,$b" -- sh -c "$two" 2>"$tmp/g3"
is "-G a,,b: no rate where the cgroup's clock is not counted" \
	"$(awk -F, -v ev=$TP '$3 == ev { printf "%s:%s ", $4, $7 }' "$tmp/g3")" "$a: $b: "
# -g: one group in each cgroup, not one across them
$TALLY stat -x, -g -a -e $TP,task-clock --for-each-cgroup "$a,$b" -- sh -c "$two" 2>"$tmp/fg"
is "-g --for-each-cgroup a,b: a group per cgroup" "$(rows "$tmp/fg")" "3000:$a 7000:$b "
if have_perf; then
	perf stat -x, -a -e $TP,task-clock --for-each-cgroup "$a,$b" -- sh -c "$two" 2>"$tmp/pf"
	is "perf --for-each-cgroup: the same rows" \
		"$(awk -F, '{ printf "%s:%s ", $3, $4 }' "$tmp/pf") $(rows "$tmp/pf")" \
		"$(awk -F, '{ printf "%s:%s ", $3, $4 }' "$tmp/f") $(rows "$tmp/f")"
fi

# The same counts as perf stat -G on the same workload.
if have_perf; then
	c=$CG/tally-test-$$-perf
	mkdir "$c" && cgs+=("$c")
	perf stat -x, -a -e $TP -G "${c#"$CG"/}" -- \
		sh -c "echo \$\$ > $c/cgroup.procs && exec $W getpid $N" 2>"$tmp/p"
	is "perf stat -G agrees" "$(awk -F, -v ev=$TP '$3 == ev { print $1 }' "$tmp/p")" "$N"
	is "perf's cgroup column: the name as given" "$(awk -F, -v ev=$TP '$3 == ev { print $4 }' "$tmp/p")" \
		"${c#"$CG"/}"
else
	skip "no perf"
fi
done_testing
