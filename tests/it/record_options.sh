#!/usr/bin/env bash
# tally record's options where scripts depend on perf 6.1's behaviour, each
# run against perf here: -F above the kernel's maximum is throttled to it
# with perf's warning (--strict-freq refuses); -m rounds up to a power of
# two with perf's line; -c 0 is the default frequency; event names in the
# file are perf's; a filter the kernel refuses is named as such.
. "$(dirname "$0")/lib.sh"
TP=syscalls:sys_enter_getpid
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

if ! have_perf; then
	skip "perf is not installed: nothing to compare with"
	done_testing; exit 0
fi
# "sample_freq period" of the first event of a file, as perf evlist -v says
freq_of() {
	perf evlist -v -i "$1" 2>/dev/null | head -1 |
		sed -n 's/.*{ sample_period, sample_freq }: \([0-9]*\).*/\1/p'
}

# -F above the maximum
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
over=$((max * 2))
perf record -e cpu-clock -F $over -o "$d/p.data" -- true >/dev/null 2>"$d/p.err"; prc=$?
"$TALLY" record -e cpu-clock -F $over -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"; rc=$?
is "-F $over (max $max): records as perf does (perf rc $prc)" "$rc" "$prc"
is "-F $over: throttled to the maximum, as perf's file" "$(freq_of "$d/t.data")" "$(freq_of "$d/p.data")"
is "-F $over: perf's warning line" "$(grep '^warning: Maximum' "$d/t.err")" \
	"$(grep '^warning: Maximum' "$d/p.err")"
check "-F $over: the warning says how to refuse instead" grep -q -- '--strict-freq' "$d/t.err"
"$TALLY" record -q -e cpu-clock -F $over -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"
is "-F $over -q: no warning (perf -q neither)" "$(grep -c '^warning' "$d/t.err")" 0
"$TALLY" record --strict-freq -e cpu-clock -F $over -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"; rc=$?
is "--strict-freq -F $over: refused" "$rc" 1
check "--strict-freq: the maximum is named" grep -q "maximum of $max" "$d/t.err"

# -m: perf rounds up to a power of two of pages, and says so
for m in 3 0 5 1025K 6K 512K 2; do
	perf record -m $m -e cpu-clock -o "$d/p.data" -- true >/dev/null 2>"$d/p.err"; prc=$?
	"$TALLY" record -q -m $m -e cpu-clock -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"; rc=$?
	is "-m $m: exit as perf's" "$rc" "$prc"
	is "-m $m: perf's rounding line (or none)" "$(grep '^rounding' "$d/t.err")" \
		"$(grep '^rounding' "$d/p.err")"
done

# -c 0: no period, so perf's default frequency
perf record -c 0 -e cpu-clock -o "$d/p.data" -- true >/dev/null 2>&1; prc=$?
"$TALLY" record -q -c 0 -e cpu-clock -o "$d/t.data" -- true >/dev/null 2>&1; rc=$?
is "-c 0: exit as perf's" "$rc" "$prc"
is "-c 0: the default frequency, as perf's file" "$(freq_of "$d/t.data")" "$(freq_of "$d/p.data")"

# the names in EVENT_DESC, as perf's for the same events (the default: on a
# machine without cycles, perf's cycles:P falls back to cpu-clock, keeps
# precise_ip 3 and is named from the attr: cpu-clock:ppp; an asked-for
# cycles falls back the same way, named from its bits: cpu-clock:uH)
names() { perf evlist -i "$1" 2>/dev/null | grep -v '^#' | tr '\n' ' '; }
for ev in "" "-e cpu-clock" "-e task-clock" "-e cpu-clock:u" "-e task-clock:k" "-e cpu-clock:ppp" \
	  "-e cpu-clock,task-clock:u" "-e cycles" "-e cycles:u" "-e cycles:k" \
	  "-e {cycles,cpu-clock}"; do
	perf record -q $ev -F 999 -o "$d/p.data" -- true >/dev/null 2>&1
	"$TALLY" record -q $ev -F 999 -o "$d/t.data" -- true >/dev/null 2>&1
	is "record ${ev:-(default event)} -F 999: the event names perf writes" "$(names "$d/t.data")" \
		"$(names "$d/p.data")"
done
prec() { perf evlist -v -i "$1" 2>/dev/null | head -1 | grep -o 'precise_ip: [0-9]*'; }
perf record -q -o "$d/p.data" -- true >/dev/null 2>&1
"$TALLY" record -q -o "$d/t.data" -- true >/dev/null 2>&1
is "default event: perf's precise_ip" "$(prec "$d/t.data")" "$(prec "$d/p.data")"

# a filter the kernel refuses: said as such, naming filter and event
if have_tp; then
	"$TALLY" record -q -e $TP --filter 'nonsense ==' -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"; rc=$?
	is "rejected --filter: exit 1" "$rc" 1
	check "rejected --filter: the filter and the event are named" \
		grep -q "failed to set filter \"nonsense ==\" on event $TP" "$d/t.err"
	check "rejected --filter: the event's attributes are not blamed" \
		sh -c "! grep -q 'tally list\|attributes' '$d/t.err'"
else
	skip "no syscalls tracepoints"
fi
# a bad -e or --filter on a non-tracepoint is a usage error: 129, as perf
for ev in bogus 'cpu-clock/foo=1/'; do
	"$TALLY" record -q -e "$ev" -o "$d/t.data" -- true 2>/dev/null; rc=$?
	perf record -q -e "$ev" -o "$d/p.data" -- true >/dev/null 2>&1; prc=$?
	is "-e '$ev': usage error, exit as perf's (129)" "$rc" "$prc"
done
"$TALLY" record -q -e cpu-clock --filter x -o "$d/t.data" -- true 2>/dev/null; rc=$?
is "--filter after a software event: usage error (129)" "$rc" 129

# -F max: perf's line names the rate, the kernel's maximum, which the file has
perf record -F max -e cpu-clock -o "$d/p.data" -- true >/dev/null 2>"$d/p.err"
"$TALLY" record -F max -e cpu-clock -o "$d/t.data" -- true >/dev/null 2>"$d/t.err"
is "-F max: perf's info line" "$(grep '^info:' "$d/t.err")" "$(grep '^info:' "$d/p.err")"
check "-F max: the line's rate is the file's" \
	grep -q "rate of $(freq_of "$d/t.data") Hz" "$d/t.err"

# -z: perf's ", compressed (original X MB, ratio is R)"; R as the file's header has it
"$TALLY" record -z -e cpu-clock -o "$d/z.data" -- "$HELPERS/burn" 200 >/dev/null 2>"$d/t.err"
line=$(grep 'Captured and wrote' "$d/t.err")
check "-z: the summary says compressed ($line)" sh -c "echo '$line' | grep -Eq \
	'Captured and wrote [0-9.]+ MB $d/z.data \([0-9]+ samples\), compressed \(original [0-9.]+ MB, ratio is [0-9.]+\) \]$'"
ratio=$(echo "$line" | sed -n 's/.*ratio is \([0-9.]*\)).*/\1/p')
hdr=$(perf report --header-only -i "$d/z.data" 2>/dev/null | sed -n 's/^# compressed : .*ratio = \([0-9]*\).*/\1/p')
is "-z: the ratio rounds to the header's ($ratio)" "$(printf '%.0f' "$ratio" 2>/dev/null)" "$hdr"
done_testing
