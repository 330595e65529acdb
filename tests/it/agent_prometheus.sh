#!/usr/bin/env bash
# tally agent --metrics-listen scraped by a real Prometheus (every 1 s),
# read back through Prometheus's HTTP API: a workload in a test cgroup
# that touches N fresh pages and sleeps M times shows exactly N more page
# faults and M + 1 more context switches (its sleeps and its block for the
# next command) between a scrape taken while it was blocked before and
# one after; task-clock grows by the cgroup's own CPU time (cpu.stat);
# Prometheus reads the exposition as OpenMetrics without an error; label
# values are escaped; removed cgroups' series go; the HTTP side (404,
# 405, 400, a stuck client, IPv6, a port in use); the fd bound; per process.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store_lib.sh"
N=${N:-300}
NCPU=$(getconf _NPROCESSORS_ONLN)	# the agent counts on the online CPUs
M=${M:-7}

if [ "$(id -u)" != 0 ]; then skip "counting cgroups needs root"; done_testing; exit 0; fi
if ! have_prometheus; then missing "no prometheus (make deps installs it)"; done_testing; exit 0; fi
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG" ]; then skip "no cgroup v2 mounted"; done_testing; exit 0; fi

tmp=$(mktemp -d /tmp/tally-agent-prom.XXXXXX)
_store_dirs="$_store_dirs $tmp"
HOST=tally-test-$$
W=$CG/tally-test-$$-w B=$CG/tally-test-$$-b Q="$CG/tally-test-$$-q\"b\\s"
pids=()
cleanup() {
	exec 3>&- 2>/dev/null
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	for c in "$W" "$B" "$Q"; do
		# back to the root first: a cgroup with tasks cannot go
		[ -f "$c/cgroup.procs" ] && while read -r p; do
			echo "$p" >"$CG/cgroup.procs" 2>/dev/null
		done <"$c/cgroup.procs"
		rmdir "$c" 2>/dev/null
	done
	store_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_http PORT: the agent answers (0) within 10 s
wait_http() {
	for _ in $(seq 100); do
		curl -sf -o /dev/null "http://127.0.0.1:$1/metrics" && return 0
		sleep 0.1
	done
	return 1
}
now_s() { date +%s.%N; }
# promq QUERY: "TIMESTAMP VALUE" of each series, the latest sample
promq() {
	curl -sf "http://127.0.0.1:$PROM/api/v1/query" --data-urlencode "query=$1" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    print("%.3f %s" % (r["value"][0], r["value"][1]))'
}
# after T SELECTOR: the value of the one series SELECTOR names from the
# first scrape that began after T (unix seconds; the samples' own
# timestamps, from a range query); "" after 20 s without one
after() {
	local t=$1 q=$2 v
	for _ in $(seq 100); do
		v=$(curl -sf "http://127.0.0.1:$PROM/api/v1/query" --data-urlencode "query=$q[30s]" |
			python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
if len(r) == 1:
    for ts, v in r[0]["values"]:
        if ts > float(sys.argv[1]):
            print(v)
            break' "$t")
		[ -n "$v" ] && { echo "$v"; return; }
		sleep 0.2
	done
}
# blocked PID: its state is S (sleeping: here, in read)
blocked() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = S ]; }
# switches PID: voluntary and nonvoluntary context switches, "V I"
switches() {
	awk '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { i = $2 }
	     END { print v, i }' "/proc/$1/status"
}
wait_for() {	# wait_for CMD...: up to 10 s
	for _ in $(seq 100); do "$@" && return 0; sleep 0.1; done
	return 1
}

# the store at a port nobody listens on: the health series have something to say
P=$(free_port) DEAD=$(free_port)
$TALLY agent --metrics-listen "127.0.0.1:$P" --host-name "$HOST" -v \
	--store "http://127.0.0.1:$DEAD/?database=t" --interval 1s 2>"$tmp/agent.err" &
pids+=($!)
if ! wait_http "$P"; then
	fail "the agent answers on 127.0.0.1:$P"; sed 's/^/#   /' "$tmp/agent.err"; done_testing; exit 1
fi
if ! start_prometheus PROM "127.0.0.1:$P" 1s; then fail "prometheus starts"; done_testing; exit 1; fi

# a client that connects, sends half a request and stops: dropped after
# 10 s (checked at the end)
exec 6<>"/dev/tcp/127.0.0.1/$P"
printf 'GET /metrics HTTP/1.1\r\nHo' >&6
t_stuck=$(date +%s)

# the test cgroups, then the workload blocked in its own
mkdir "$W" "$B" "$Q" || { fail "mkdir the test cgroups"; done_testing; exit 1; }
mkfifo "$tmp/ctl"
sh -c "echo \$\$ > '$W/cgroup.procs' && exec '$HELPERS/cgwork' $N $M" <"$tmp/ctl" >"$tmp/st" 2>&1 &
wpid=$!
pids+=($wpid)
exec 3>"$tmp/ctl"
wait_for grep -q ready "$tmp/st" && wait_for blocked "$wpid" ||
	fail "the workload is ready"

w=${W#"$CG"}
pf="tally_cgroup_page_faults_total{host=\"$HOST\",cgroup=\"$w\"}"
cs="tally_cgroup_context_switches_total{host=\"$HOST\",cgroup=\"$w\"}"
for round in 1 2; do
	t=$(now_s)
	pf0=$(after "$t" "$pf"); cs0=$(after "$t" "$cs")
	read -r v0 i0 < <(switches "$wpid")
	echo g >&3
	done_again() { [ "$(grep -c done "$tmp/st")" = "$round" ] && blocked "$wpid"; }
	if ! wait_for done_again; then
		fail "round $round: the workload did its work and blocked again"
		continue
	fi
	read -r v1 i1 < <(switches "$wpid")
	t=$(now_s)
	pf1=$(after "$t" "$pf"); cs1=$(after "$t" "$cs")
	if [ -z "$pf0" ] || [ -z "$pf1" ] || [ -z "$cs0" ] || [ -z "$cs1" ]; then
		fail "round $round: the cgroup's series were scraped (pf '$pf0' '$pf1', cs '$cs0' '$cs1')"
		continue
	fi
	is "round $round: exactly $N more page faults in the cgroup" "$((pf1 - pf0))" "$N"
	is "round $round: the workload's voluntary switches: $M sleeps and its block" "$((v1 - v0))" "$((M + 1))"
	# a preemption (a busy machine) is a switch too: the kernel's count of them
	is "round $round: exactly $M + 1 more context switches (+ $((i1 - i0)) preemptions)" \
		"$((cs1 - cs0))" "$((M + 1 + i1 - i0))"
done

# task-clock: a burner's CPU time in B, as the cgroup's own cpu.stat says
b=${B#"$CG"}
tc="tally_cgroup_task_clock_seconds_total{host=\"$HOST\",cgroup=\"$b\"}"
tc0=$(after "$(now_s)" "$tc")
u0=$(awk '$1 == "usage_usec" { print $2 }' "$B/cpu.stat")
# a fixed amount of work (~0.5 CPU s): 700 ms of wall once gave 0.056 s on a loaded machine
sh -c "echo \$\$ > '$B/cgroup.procs' && exec '$HELPERS/burn' -r 2000 >/dev/null"
u1=$(awk '$1 == "usage_usec" { print $2 }' "$B/cpu.stat")
tc1=$(after "$(now_s)" "$tc")
if [ -n "$tc0" ] && [ -n "$tc1" ]; then
	d=$(awk -v a="$tc0" -v b="$tc1" 'BEGIN { printf "%.6f", b - a }')
	cpu=$(awk -v a="$u0" -v b="$u1" 'BEGIN { printf "%.6f", (b - a) / 1e6 }')
	check "task-clock grew by the burner's CPU time ($d s; cpu.stat: $cpu s)" \
		awk -v d="$d" -v c="$cpu" 'BEGIN { e = d - c; if (e < 0) e = -e; exit !(c > 0.1 && e <= 0.02 + c * 0.05) }'
else
	fail "task-clock of $b scraped ('$tc0' '$tc1')"
fi

# the exposition: Prometheus took it (OpenMetrics, as it asks), no error
read -r up < <(promq "up{job=\"tally\"}" | awk '{ print $2 }')
is "Prometheus: up is 1" "$up" 1
curl -sf "http://127.0.0.1:$PROM/api/v1/targets" >"$tmp/targets"
is "Prometheus: the target's last scrape had no error" \
	"$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["data"]["activeTargets"]; print(len(t), repr(t[0]["lastError"]), t[0]["health"])' "$tmp/targets")" \
	"1 '' up"
om=$(promq "tally_agent_scrapes_total{host=\"$HOST\",format=\"openmetrics\"}" | awk '{ print $2 }')
check "Prometheus asked for and read OpenMetrics ($om pages)" test "${om:-0}" -gt 2
curl -sf -D "$tmp/h" -o "$tmp/om" -H 'Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1' "http://127.0.0.1:$P/metrics"
check "OpenMetrics: its content type" grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' "$tmp/h"
is "OpenMetrics: ends with # EOF" "$(tail -1 "$tmp/om")" "# EOF"
check "OpenMetrics: a counter's family and its _total series, # UNIT" \
	grep -qx '# UNIT tally_cgroup_task_clock_seconds seconds' "$tmp/om"
curl -sf -D "$tmp/h0" -o "$tmp/txt" "http://127.0.0.1:$P/metrics"
check "no Accept: the text format 0.0.4" grep -qi '^Content-Type: text/plain; version=0.0.4' "$tmp/h0"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$tmp/txt" 2>&1)
	is "promtool check metrics: no problem" "$?:$out" "0:"
else
	skip "no promtool"
fi

# the health series, the agent's own
for s in tally_agent_samples_taken_total tally_agent_samples_sent_total tally_agent_samples_queued \
	tally_agent_samples_dropped_total tally_agent_samples_lost_total tally_agent_batches_sent_total \
	tally_agent_batches_failed_total tally_agent_sent_bytes_total tally_agent_queued_bytes \
	tally_agent_last_error_timestamp_seconds process_cpu_seconds_total process_resident_memory_bytes; do
	got=$(promq "$s{host=\"$HOST\"}" | wc -l)
	[ "$got" = 1 ] || { fail "health series $s in Prometheus ($got)"; continue; }
	ok "health series $s in Prometheus"
done
val() { promq "$1{host=\"$HOST\"}" | awk '{ print $2 }'; }
check "health: samples taken ($(val tally_agent_samples_taken_total)) and queued ($(val tally_agent_samples_queued)), the store down" \
	test "$(val tally_agent_samples_taken_total)" -gt 0 -a "$(val tally_agent_samples_queued)" -gt 0
check "health: failed batches counted ($(val tally_agent_batches_failed_total))" \
	test "$(val tally_agent_batches_failed_total)" -gt 0
msg=$(curl -sf "http://127.0.0.1:$PROM/api/v1/query" --data-urlencode "query=tally_agent_last_error_info{host=\"$HOST\"}" |
	python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(len(r), r[0]["metric"]["message"] if r else "")')
check "health: the last error, its message a label ($msg)" \
	bash -c "[[ '${msg//\'/}' == '1 '*'$DEAD'* ]]"
check "health: the last error's time is now" \
	test $(( $(date +%s) - $(val tally_agent_last_error_timestamp_seconds) )) -lt 60
rss=$(promq "process_resident_memory_bytes{host=\"$HOST\"}" | awk '{ print $2 }')
check "the agent's RSS is a real size ($rss bytes)" test "${rss:-0}" -gt 100000

# cycles and instructions: counted where a PMU is, else left out and said once (-v)
if grep -q '^tally_cgroup_cycles_total{' "$tmp/txt"; then
	is "a PMU: cycles and instructions counted, nothing said" \
		"$(grep -c '^tally_cgroup_instructions_total{' "$tmp/txt"):$(grep -c 'not supported here' "$tmp/agent.err")" "$(grep -c '^tally_cgroup_cycles_total{' "$tmp/txt"):0"
else
	is "no PMU: no cycles or instructions series, said once naming both" \
		"$(grep -c '^tally_cgroup_instructions_total' "$tmp/txt"):$(grep 'not supported here' "$tmp/agent.err" | grep -c 'cycles.*instructions')" "0:1"
fi

# a label value with '"' and '\': escaped, and read back the same by Prometheus
q=${Q#"$CG"}
got=$(promq "tally_cgroup_page_faults_total{host=\"$HOST\"}" | wc -l)
qesc=$(printf '%s' "$q" | sed 's/\\/\\\\/g; s/"/\\"/g')
check "escaped in the exposition" grep -qF "cgroup=\"$qesc\"" "$tmp/txt"
check "Prometheus has the cgroup named '$q'" \
	test "$(promq "tally_cgroup_page_faults_total{host=\"$HOST\",cgroup=\"$qesc\"}" | wc -l)" = 1

# removed: its events closed and its series gone at the next scrape
rmdir "$Q"
sleep 1.2
curl -sf "http://127.0.0.1:$P/metrics" >"$tmp/after_rm"
check "a removed cgroup's series go" bash -c "! grep -qF 'cgroup=\"$qesc\"' '$tmp/after_rm'"
check "the others stay" grep -qF "cgroup=\"$w\"" "$tmp/after_rm"
fds() { grep -o '^tally_agent_event_fds{[^}]*} [0-9]*' "$1" | awk '{ print $2 }'; }
nev=$(grep -c '^# TYPE tally_cgroup_.* counter' "$tmp/txt")
is "a removed cgroup's fds closed ($nev events on each CPU, its directory)" \
	"$(( $(fds "$tmp/txt") - $(fds "$tmp/after_rm") ))" "$((nev * NCPU + 1))"

# HTTP: 404 elsewhere, 405 for another method, 400 for a bad request
is "GET /nope: 404" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/nope")" 404
is "POST /metrics: 405" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$P/metrics")" 405
is "HEAD /metrics: 200" "$(curl -s -I -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P/metrics")" 200
raw() {	# raw BYTES: the status line the agent answers
	python3 - "$P" "$1" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
print(s.makefile("rb").readline().decode().strip())
PY
}
is "a garbled request line: 400" "$(raw 'BAD\r\n\r\n')" "HTTP/1.1 400 Bad Request"
is "HTTP/1.1 without Host: 400" "$(raw 'GET /metrics HTTP/1.1\r\n\r\n')" "HTTP/1.1 400 Bad Request"
is "a body: 400" "$(raw 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc')" "HTTP/1.1 400 Bad Request"
is "HTTP/1.0: 200" "$(raw 'GET /metrics HTTP/1.0\r\n\r\n')" "HTTP/1.1 200 OK"
# a client that sends half a request and stops: the next scrape is answered at once
exec 4<>"/dev/tcp/127.0.0.1/$P"
printf 'GET /metr' >&4
exec 5<>"/dev/tcp/127.0.0.1/$P"	# and one that sends nothing
check "a stuck client does not hold the next scrape" \
	curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$P/metrics"
exec 4>&- 5>&-

# a port in use: exit 1, naming the address
$TALLY agent --metrics-listen "127.0.0.1:$P" --duration 1s 2>"$tmp/busy.err"
is "a port in use: exit 1" "$?" 1
check "... naming the address" grep -q "127.0.0.1:$P.*in use" "$tmp/busy.err"

# a malformed address is a usage error (129); one this host does not have, 1
$TALLY agent --metrics-listen 9464 2>"$tmp/addr.err"
is "--metrics-listen 9464 (no colon): exit 129" "$?" 129
check "... saying the forms" grep -q 'HOST:PORT, \[IPV6\]:PORT or :PORT' "$tmp/addr.err"
$TALLY agent --metrics-listen "[::1]$P" 2>/dev/null
is "--metrics-listen [::1]PORT: exit 129" "$?" 129
$TALLY agent --metrics-listen 127.0.0.1:70000 2>/dev/null
is "--metrics-listen with port 70000: exit 129" "$?" 129
$TALLY agent --metrics-listen 192.0.2.1:$P --duration 1s 2>"$tmp/addr2.err"
is "an address this host does not have: exit 1" "$?" 1
check "... naming it" grep -q "192.0.2.1:$P: cannot listen there" "$tmp/addr2.err"

# [::1]:PORT and :PORT (every address)
if python3 -c 'import socket; socket.create_server(("::1", 0), family=socket.AF_INET6)' 2>/dev/null; then
	P6=$(free_port)
	$TALLY agent --metrics-listen "[::1]:$P6" --duration 5s 2>/dev/null &
	pids+=($!)
	check "[::1]:PORT answers on IPv6" wait_for curl -sfg -o /dev/null "http://[::1]:$P6/metrics"
else
	skip "no IPv6 loopback"
fi
PA=$(free_port)
$TALLY agent --metrics-listen ":$PA" --duration 5s 2>/dev/null &
pids+=($!)
check ":PORT answers on 127.0.0.1" wait_http "$PA"

# the fd bound: room for the root only (3 events on each CPU and its
# directory): the others are left out, said and counted
PB=$(free_port)
$TALLY agent --metrics-listen "127.0.0.1:$PB" --metrics-max-fds $((3 * NCPU + 1)) --duration 5s 2>"$tmp/bound.err" &
pids+=($!)
wait_http "$PB"
curl -sf "http://127.0.0.1:$PB/metrics" >"$tmp/bound"
is "--metrics-max-fds: only the root counted" \
	"$(grep -c '^tally_cgroup_page_faults_total' "$tmp/bound"):$(grep -o '^tally_agent_cgroups{[^}]*} [0-9]*' "$tmp/bound" | awk '{ print $2 }')" "1:1"
check "--metrics-max-fds: the cgroups left out counted" \
	grep -Eq '^tally_agent_cgroups_left_out\{[^}]*\} [1-9]' "$tmp/bound"
check "--metrics-max-fds: said on stderr" grep -q 'not counted.*--metrics-max-fds' "$tmp/bound.err"

# --metrics-per-process: the blocked workload's counts are /proc's, exactly
PP=$(free_port)
$TALLY agent --metrics-listen "127.0.0.1:$PP" --metrics-per-process --duration 5s 2>"$tmp/pp.err" &
pids+=($!)
wait_http "$PP"
curl -sf "http://127.0.0.1:$PP/metrics" >"$tmp/pp"
read -r mf jf < <(awk '{ print $10, $12 }' "/proc/$wpid/stat")
read -r v i < <(switches "$wpid")
is "per process: the workload's page faults, pid and cgroup labels" \
	"$(grep "^tally_process_page_faults_total{[^}]*pid=\"$wpid\",comm=\"cgwork\",cgroup=\"$w\"}" "$tmp/pp" | awk '{ print $NF }')" \
	"$((mf + jf))"
is "per process: its context switches" \
	"$(grep "^tally_process_context_switches_total{[^}]*pid=\"$wpid\"," "$tmp/pp" | awk '{ print $NF }')" \
	"$((v + i))"
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <"$tmp/pp" 2>&1)
	is "per process: promtool check metrics: no problem" "$?:$out" "0:"
fi

# per process needs no privilege: /proc is readable by all
PQ=$(free_port)
setpriv --reuid=65534 --regid=65534 --clear-groups \
	$TALLY agent --metrics-listen "127.0.0.1:$PQ" --metrics-per-process --duration 5s 2>"$tmp/ppn.err" &
pids+=($!)
wait_http "$PQ"
is "per process, not root: the workload's page faults" \
	"$(curl -sf "http://127.0.0.1:$PQ/metrics" | grep "^tally_process_page_faults_total{[^}]*pid=\"$wpid\"," | awk '{ print $NF }')" \
	"$((mf + jf))"

# --metrics-cgroups 0: the root alone
P0=$(free_port)
$TALLY agent --metrics-listen "127.0.0.1:$P0" --metrics-cgroups 0 --duration 5s 2>/dev/null &
pids+=($!)
wait_http "$P0"
is "--metrics-cgroups 0: the root alone" \
	"$(curl -sf "http://127.0.0.1:$P0/metrics" | grep '^tally_cgroup_page_faults_total' | grep -o 'cgroup="[^"]*"')" 'cgroup="/"'

# the half request of the start: closed by the agent, unanswered
sleep $(( t_stuck + 11 - $(date +%s) > 0 ? t_stuck + 11 - $(date +%s) : 0 ))
is "a stuck client is dropped after 10 s (EOF, no answer)" "$(timeout 2 cat <&6; echo "rc $?")" "rc 0"
exec 6>&-

# not root: a clear error, exit 1
PN=$(free_port)
setpriv --reuid=65534 --regid=65534 --clear-groups \
	$TALLY agent --metrics-listen "127.0.0.1:$PN" --duration 1s 2>"$tmp/nobody.err"
is "not root: exit 1" "$?" 1
check "not root: says why" grep -q 'counting cgroups' "$tmp/nobody.err"
sed 's/^/# /' "$tmp/nobody.err"
done_testing
