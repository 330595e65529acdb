#!/usr/bin/env bash
# tally stat beyond the counts: OpenMetrics text (one exposition per
# interval), -o/--append, --compare (ratio, CI, significance), Ctrl-C on a
# command (counts so far, the workload's status), -D delay, -v, -q, -n,
# -G cgroup, the C locale in machine output.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
TP=syscalls:sys_enter_getpid
tmp=$(mktemp -d)
cg=
cleanup() { [ -n "$cg" ] && rmdir "$cg" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
tp_ok=0
have_tp && tp_ok=1
ev=task-clock; [ $tp_ok = 1 ] && ev="task-clock,$TP"

# OpenMetrics: well formed (every sample line "name{labels} value",
# families contiguous with TYPE before samples, "# EOF" last).
om_check() {
	python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = text.split("# EOF\n")
assert blocks[-1] == "", "text after the last # EOF"
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$')
for b in blocks[:-1]:
    seen, cur, typed = set(), None, set()
    for line in b.splitlines():
        if line.startswith("# TYPE "):
            name = line.split()[2]
            assert name not in seen, "family %s split" % name
            seen.add(name); cur = name; typed.add(name)
            continue
        if line.startswith("#"):
            continue
        m = sample.match(line)
        assert m, "bad sample line: %r" % line
        assert m.group(1) == cur, "sample %s outside its family" % m.group(1)
print(len(blocks) - 1)
PY
}
$TALLY stat --stat-format=openmetrics -e $ev -- "$W" getpid 2500 2>"$tmp/om"
n=$(om_check "$tmp/om" 2>"$tmp/om.err")
is "OpenMetrics: one well-formed exposition" "$n" "1"
[ -s "$tmp/om.err" ] && sed 's/^/# /' "$tmp/om.err"
if [ $tp_ok = 1 ]; then
	check "OpenMetrics: exact getpid value" grep -qx "tally_event_value{event=\"$TP\",unit=\"\"} 2500" "$tmp/om"
else
	skip "no tracepoint"
fi
check "OpenMetrics: elapsed seconds" grep -Eq '^tally_elapsed_seconds [0-9]+\.[0-9]+$' "$tmp/om"
$TALLY stat --stat-format=openmetrics -I 100 -e task-clock -- "$W" sleep 350 2>"$tmp/omi"
n=$(om_check "$tmp/omi" 2>/dev/null)
check "OpenMetrics -I 100 over 350 ms: 4 (+-1) expositions (got $n)" test "${n:-0}" -ge 3 -a "${n:-0}" -le 5
check "OpenMetrics -I: interval end timestamps" grep -q '^tally_interval_end_seconds 0\.' "$tmp/omi"
# -I with -o FILE: each interval replaces the file (a textfile collector
# must see one exposition); the last interval is what remains.
$TALLY stat --stat-format=openmetrics -I 100 -o "$tmp/t.prom" -e task-clock -- "$W" sleep 350 2>/dev/null
is "OpenMetrics -I -o: the file holds one exposition" "$(om_check "$tmp/t.prom" 2>/dev/null)" "1"
check "OpenMetrics -I -o: no temporary file left" sh -c "! ls '$tmp' | grep -q 't.prom.tmp'"
$TALLY stat -a -A --stat-format=openmetrics -e cpu-clock -- "$W" sleep 20 2>"$tmp/oma"
is "OpenMetrics -A: a cpu label per CPU" "$(grep -c '^tally_event_value{event="cpu-clock",cpu="[0-9]*"' "$tmp/oma")" "$(nproc)"

# -o FILE and --append: results go to the file, not stderr.
$TALLY stat -o "$tmp/out" -x, -e task-clock -- "$W" getpid 1 2>"$tmp/err"
check "-o: stderr has no counts" sh -c "! grep -q task-clock '$tmp/err'"
check "-o: file has the row" grep -q ',task-clock,' "$tmp/out"
check "-o: file starts with perf's '# started on'" sh -c "head -1 '$tmp/out' | grep -q '^# started on '"
$TALLY stat -o "$tmp/out" --append -x, -e task-clock -- "$W" getpid 1 2>/dev/null
is "--append: two runs in the file" "$(grep -c ',task-clock,' "$tmp/out")" "2"
$TALLY stat -o "$tmp/out" -x, -e task-clock -- "$W" getpid 1 2>/dev/null
is "-o without --append truncates" "$(grep -c ',task-clock,' "$tmp/out")" "1"
$TALLY stat -o /nonexistent/dir/f -e task-clock -- true 2>/dev/null
is "-o to an unwritable path: exit 1" "$?" "1"

# --compare: exact events differ by exactly 2x and are significant;
# the same command against itself is not.
if [ $tp_ok = 1 ]; then
	$TALLY stat --compare -r 4 -x, -e $TP -- "$W" getpid 1000 ::: "$W" getpid 2000 2>"$tmp/cmp"
	row=$(grep "^$TP," "$tmp/cmp")
	is "--compare CSV: mean A, mean B, ratio" "$(echo "$row" | cut -d, -f3-5)" "1000.000000,2000.000000,2.000000"
	is "--compare: 2x is significant" "$(echo "$row" | cut -d, -f9)" "yes"
	$TALLY stat --compare -r 4 -j -e $TP -- "$W" getpid 1500 ::: "$W" getpid 1500 2>"$tmp/cmpj"
	check "--compare JSON: equal runs not significant" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r = [x for x in rows if x["event"] == sys.argv[2]][0]
assert r["ratio"] == 1.0 and r["significant"] is False and r["mean-a"] == 1500
assert any(x["event"] == "time-elapsed" for x in rows)' "$tmp/cmpj" $TP
	$TALLY stat --compare -r 3 -e $TP -- "$W" getpid 10 ::: "$W" getpid 30 2>"$tmp/cmph"
	check "--compare human: names both commands" grep -q "B: '$W getpid 30'" "$tmp/cmph"
	check "--compare human: ratio 3.000 and a CI" grep -Eq "$TP +10 +30 +3\.000 +\[ *3\.000, +3\.000\] +yes" "$tmp/cmph"
	check "--compare human: says the method" grep -q "delta method" "$tmp/cmph"
else
	for _ in 1 2 3 4 5 6; do skip "no tracepoint"; done
fi
$TALLY stat --compare -e task-clock -- "$W" exit 0 ::: "$W" exit 4 2>/dev/null
is "--compare returns B's failing status" "$?" "4"
# an event the machine lacks (cycles without a PMU): "<not supported>" as
# plain stat and perf say, not "<not counted>" (issue 29)
$TALLY stat -x, -e cycles -- true 2>"$tmp/ns"
if grep -q '<not supported>' "$tmp/ns"; then
	$TALLY stat --compare -r 2 -e cycles,task-clock -- true ::: true 2>"$tmp/nsh"
	check "--compare human: cycles <not supported> on both sides" \
		grep -Eq '^ cycles +<not supported> +<not supported>$' "$tmp/nsh"
	check "--compare human: never <not counted> for it" sh -c "! grep -q 'not counted' '$tmp/nsh'"
	$TALLY stat --compare -r 2 -x, -e cycles -- true ::: true 2>"$tmp/nsc"
	is "--compare CSV: <not supported> in both means" "$(grep '^cycles,' "$tmp/nsc" | cut -d, -f3-4)" \
		"<not supported>,<not supported>"
	$TALLY stat --compare -r 2 -j -e cycles -- true ::: true 2>"$tmp/nsj"
	check "--compare JSON: supported false" grep -q '"event" : "cycles", .*"counted" : false, "supported" : false' "$tmp/nsj"
else
	for _ in 1 2 3 4; do skip "cycles can be counted here"; done
fi

# Ctrl-C (SIGINT to tally) on a command: counts so far, workload's status.
cat >"$tmp/int.py" <<'PY'
import signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(float(sys.argv[1]))
t = time.time()
p.send_signal(signal.SIGINT)
err = p.communicate(timeout=30)[1].decode()
sys.stdout.write(err)
print("rc=%d quick=%d" % (p.returncode, time.time() - t < 3))
PY
python3 "$tmp/int.py" 0.4 "$TALLY" stat -x, -e task-clock -- "$W" sleep 10000 >"$tmp/int"
check "Ctrl-C: counts printed" grep -q ',task-clock,' "$tmp/int"
is "Ctrl-C: the workload's status (SIGINT: 130), promptly" "$(tail -1 "$tmp/int")" "rc=130 quick=1"
python3 "$tmp/int.py" 0.5 "$TALLY" stat -r 20 -e task-clock -- "$W" sleep 200 >"$tmp/int"
check "Ctrl-C during -r 20: stops early, says how many runs" grep -Eq "\(([2-4]) runs\):" "$tmp/int"
is "Ctrl-C during -r 20: status 130" "$(tail -1 "$tmp/int" | cut -d' ' -f1)" "rc=130"
"$W" sleep 10000 & victim=$!
python3 "$tmp/int.py" 0.3 "$TALLY" stat -x, -e task-clock -p $victim >"$tmp/int"
# no command: tally dies by the signal after the counts, as perf (-2: SIGINT)
is "Ctrl-C on -p: dies by SIGINT, promptly" "$(tail -1 "$tmp/int")" "rc=-2 quick=1"
check "Ctrl-C on -p: the process lives on" kill -0 $victim
kill $victim; wait $victim 2>/dev/null

# -D: counting starts after the delay (the first burst is not counted).
if [ $tp_ok = 1 ]; then
	$TALLY stat -x, -D 300 -e $TP -- sh -c "'$W' getpid 700; sleep 0.6; '$W' getpid 55" 2>"$tmp/d"
	is "-D 300: only the getpid after the delay" "$(awk -F, '{ print $1 }' "$tmp/d")" "55"
else
	skip "no tracepoint"
fi

# -v shows the attr; -q prints nothing; -n counts nothing but times.
$TALLY stat -v -e task-clock -- true 2>"$tmp/v"
check "-v prints the perf_event_attr" grep -q 'perf_event_attr: task-clock' "$tmp/v"
check "-v shows the config field" grep -Eq '^ +(type|config) ' "$tmp/v"
$TALLY stat -q -e task-clock -- "$W" exit 5 2>"$tmp/q"
is "-q: exit status still the workload's" "$?" "5"
is "-q: prints nothing" "$(wc -c <"$tmp/q" | tr -d ' ')" "0"
$TALLY stat -n -- "$W" sleep 10 2>"$tmp/n"
check "-n: elapsed time" grep -q 'seconds time elapsed' "$tmp/n"
check "-n: no event rows" sh -c "! grep -q 'task-clock' '$tmp/n'"

# Machine output keeps the C locale whatever LC_ALL says; human output
# uses its separators as perf does. The locale is compiled into a
# scratch LOCPATH so the test does not depend on installed locales.
loc=
if command -v localedef >/dev/null && [ -e /usr/share/i18n/locales/de_DE ]; then
	mkdir -p "$tmp/loc"
	# exit status 1 only means warnings; the compiled locale is what counts
	localedef -i de_DE -f UTF-8 "$tmp/loc/de_DE.UTF-8" >/dev/null 2>&1
	[ -e "$tmp/loc/de_DE.UTF-8/LC_NUMERIC" ] && loc=de_DE.UTF-8
fi
if [ -n "$loc" ] && [ $tp_ok = 1 ]; then
	export LOCPATH=$tmp/loc
	LC_ALL=$loc $TALLY stat -x, -e task-clock -- true 2>"$tmp/l"
	check "CSV under $loc: a '.' decimal point" grep -Eq '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,[0-9]+\.[0-9]{3},' "$tmp/l"
	LC_ALL=$loc $TALLY stat -j -e task-clock -- true 2>"$tmp/l"
	check "JSON under $loc: parses" python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$tmp/l"
	LC_ALL=$loc $TALLY stat --stat-format=openmetrics -e task-clock -- true 2>"$tmp/l"
	check "OpenMetrics under $loc: '.' decimals" grep -Eq '^tally_event_value\{event="task-clock",unit="msec"\} [0-9]+\.[0-9]+$' "$tmp/l"
	LC_ALL=$loc $TALLY stat -e $TP,task-clock -- "$W" getpid 1234567 2>"$tmp/l"
	check "human under $loc: 1.234.567 as perf prints it" grep -Eq '^ +1\.234\.567      syscalls' "$tmp/l"
	check "human under $loc: msec with a decimal comma" grep -Eq '^ +[0-9.]+,[0-9]{2} msec task-clock' "$tmp/l"
	if have_perf; then
		LC_ALL=$loc perf stat -e $TP,task-clock -- "$W" getpid 1234567 2>"$tmp/lp"
		mask() { sed -E 's/[0-9]/N/g' "$1" | grep -v 'Performance counter'; }
		is "human under $loc: same layout as perf" "$(mask "$tmp/l")" "$(mask "$tmp/lp")"
	else
		skip "perf missing"
	fi
	unset LOCPATH
else
	for _ in 1 2 3 4 5 6; do skip "cannot build a de_DE locale (localedef, i18n data) or no tracepoint"; done
fi

# perf's other spellings and common flags: --json-output (perf's name
# for -j), --log-fd, -S/--sync, --all-user/--all-kernel.
$TALLY stat --json-output -e task-clock -- true 2>"$tmp/jo"
check "--json-output is -j" grep -q '^{"counter-value" : "[0-9.]*", "unit" : "msec", "event" : "task-clock"' "$tmp/jo"
$TALLY stat -S --log-fd 3 -x, -e task-clock -- true 3>"$tmp/lfd" 2>"$tmp/lfe"
is "-S --log-fd 3: exit 0" "$?" "0"
check "--log-fd 3: the rows go to fd 3" grep -q ',task-clock,' "$tmp/lfd"
check "--log-fd 3: not to stderr" sh -c "! grep -q task-clock '$tmp/lfe'"
$TALLY stat --log-fd 3 --append -x, -e task-clock -- true 3>>"$tmp/lfd"
is "--log-fd --append: two runs in the file" "$(grep -c ',task-clock,' "$tmp/lfd")" "2"
$TALLY stat --all-user -v -x, -e task-clock -- true 2>"$tmp/au"
check "--all-user: exclude_kernel set on each event" grep -Eq '^ +exclude_kernel +1' "$tmp/au"
$TALLY stat --all-kernel -v -x, -e task-clock -- true 2>"$tmp/ak"
check "--all-kernel: exclude_user set on each event" grep -Eq '^ +exclude_user +1' "$tmp/ak"
if [ $tp_ok = 1 ]; then
	$TALLY stat --all-user -x, -e syscalls:sys_enter_getpid -- "$W" getpid 321 2>"$tmp/au"
	is "--all-user leaves tracepoints counting (as perf): exactly 321" \
	   "$(awk -F, '$3 == "syscalls:sys_enter_getpid" { print $1 }' "$tmp/au")" "321"
else
	skip "no tracepoint"
fi

# --interval-clear: perf's header before every interval (the screen is
# cleared only on a terminal; this is a file).
$TALLY stat -I 100 --interval-clear -e task-clock -- "$W" sleep 250 2>"$tmp/ic"
n=$(grep -c 'task-clock' "$tmp/ic")
check "--interval-clear: intervals printed (got $n)" test "$n" -ge 2
is "--interval-clear: a header per interval" "$(grep -c '^#  *time  *counts unit events' "$tmp/ic")" "$n"
check "--interval-clear: no escape codes into a file" sh -c "! grep -q \"$(printf '\033')\" '$tmp/ic'"

# --pre/--post run around each run (perf's); a failing --pre stops tally
# (perf would print <not supported> rows) before the command runs.
$TALLY stat -r 2 --pre "echo pre >>'$tmp/hk'" --post "echo post >>'$tmp/hk'" -x, -e task-clock \
	-- sh -c "echo run >>'$tmp/hk'" 2>/dev/null
is "--pre/--post: around each of the 2 runs" "$(tr '\n' ' ' <"$tmp/hk")" "pre run post pre run post "
$TALLY stat --pre 'exit 3' -e task-clock -- touch "$tmp/ran" 2>"$tmp/pre"
is "--pre failing: exit 1" "$?" "1"
check "--pre failing: says so" grep -qF -e "--pre 'exit 3' failed (exit 3)" "$tmp/pre"
check "--pre failing: the command did not run" test ! -e "$tmp/ran"
# -g: every event in one group (an already grouped list is refused);
# the group still counts its supported events.
$TALLY stat -g -x, -e task-clock,cycles,page-faults -- true 2>"$tmp/g1"
is "-g: exit 0" "$?" "0"
is "-g: the group's supported events count, cycles <not supported>" \
   "$(awk -F, '{ print ($1 ~ /^</) ? $1 : "n" }' "$tmp/g1" | tr '\n' ' ')" "n <not supported> n "
$TALLY stat -g -e '{task-clock,page-faults}' -- true 2>"$tmp/g2"
is "-g on events already in groups: exit 1" "$?" "1"

# -G: a cgroup v2 counted system-wide gets exactly its members' events.
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ $tp_ok = 1 ] && [ -n "$root" ] && [ "$(id -u)" = 0 ] && mkdir "$root/tally-stat-$$" 2>/dev/null; then
	cg=$root/tally-stat-$$
	sh -c "echo \$\$ >'$cg/cgroup.procs'; sleep 0.4; '$W' getpid 4321; sleep 0.4" &
	$TALLY stat -a -G "tally-stat-$$" -x, -e $TP -- "$W" getpid-sleep 77 1200 2>"$tmp/g"
	wait
	is "-G: exactly the cgroup's 4321 getpid (not tally's workload's 77)" \
	   "$(awk -F, '{ print $1 }' "$tmp/g")" "4321"
else
	skip "needs root, a tracepoint and a writable cgroup v2 hierarchy"
fi

done_testing
