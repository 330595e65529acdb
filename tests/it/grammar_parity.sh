#!/usr/bin/env bash
# perf 6.1's event grammar, row by row: each spec goes through
# `perf stat -x, -e SPEC true` and `tally stat -x, -e SPEC true`.
#   same WORD   both accept with the same event names (CSV field 3), or
#               both refuse and tally's message names WORD (the term,
#               modifier or text at fault; "-" when no word is checked)
#   differs WHO WORD  a difference docs/event-grammar.md writes down:
#               WHO is "tally" when only tally accepts, "perf" when only
#               perf does (and tally's message names WORD)
# A row whose first field is pmu=NAME needs that sysfs PMU: skipped
# (with the reason) where this machine lacks it.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! have_perf; then
	skip "perf is not installed: nothing to compare with"
	done_testing
	exit 0
fi
tp=yes
have_tp || tp=

# names in CSV field 3, sorted (a glob's order is readdir's in perf)
names() { grep -v '^#' "$1" | awk -F, 'NF >= 3 { print $3 }' | sort | paste -sd'|'; }

row() {
	local need=$1 spec=$2 kind=$3 a=$4 b=${5:-}
	if [ "$need" != - ]; then
		case $need in
		tp) [ -n "$tp" ] || { skip "$spec: no tracepoints here (tracefs)"; return; } ;;
		pmu=*) [ -d "/sys/bus/event_source/devices/${need#pmu=}" ] ||
			{ skip "$spec: this machine has no '${need#pmu=}' PMU"; return; } ;;
		esac
	fi
	perf stat -x, -e "$spec" true >/dev/null 2>"$tmp/p"; local pr=$?
	"$TALLY" stat -x, -e "$spec" true >/dev/null 2>"$tmp/t"; local tr=$?
	case $kind in
	same)
		if [ $pr = 0 ] && [ $tr = 0 ]; then
			is "'$spec': both accept, same names" "$(names "$tmp/t")" "$(names "$tmp/p")"
		elif [ $pr != 0 ] && [ $tr != 0 ]; then
			if [ "$a" = - ] || grep -q -- "$a" "$tmp/t"; then
				ok "'$spec': both refuse"
			else
				fail "'$spec': both refuse, but tally's message does not name '$a': $(tr '\n' ' ' <"$tmp/t")"
			fi
		else
			fail "'$spec': perf exit $pr, tally exit $tr: perf: $(head -3 "$tmp/p" | tr '\n' ' ') tally: $(head -3 "$tmp/t" | tr '\n' ' ')"
		fi ;;
	differs)
		if [ "$a" = tally ]; then
			[ $pr != 0 ] && [ $tr = 0 ] && ok "'$spec': only tally accepts (documented)" ||
				fail "'$spec': want perf to refuse and tally to accept; perf $pr tally $tr"
		else
			if [ $pr = 0 ] && [ $tr != 0 ] && grep -q -- "$b" "$tmp/t"; then
				ok "'$spec': only perf accepts (documented); tally names '$b'"
			else
				fail "'$spec': want perf to accept, tally to refuse naming '$b'; perf $pr tally $tr: $(tr '\n' ' ' <"$tmp/t")"
			fi
		fi ;;
	esac
}

while IFS='|' read -r need spec kind a b; do
	case $need in ''|'#'*) continue ;; esac
	row "$need" "$spec" "$kind" "$a" "$b"
done <<'ROWS'
# symbolic events with terms, then modifiers
-|task-clock/period=1000/|same|-
-|task-clock/period=1000,name=foo/u|same|-
-|cpu-clock/name=bar/|same|-
-|task-clock/period/|same|-
-|task-clock/period=0x10/|same|-
-|task-clock/config=2/|same|-
-|task-clock/name=foo,name=bar/|same|-
-|task-clock/metric-id=x/|same|-
-|task-clock/period=010/|same|-
-|task-clock/name='x,y'/|same|-
-|task-clock/name='a:b=c',period=2/u|same|-
-|task-clock//|same|-
-|task-clock//u|same|-
-|cs/period=1/|same|-
-|L1-dcache-loads/period=1/|same|-
-|L1-dcache-loads/period=1/:u|same|-
-|L1-dcache-loads/period=1/u|same|-
-|r1a8/period=1/|same|-
-|1:1|same|-
-|1:1/name=z/|same|-
-|duration_time//|same|-
-|duration_time:u|same|-
# terms refused: unknown, unusable in stat, bad values, bad places
-|task-clock/foo=1/|same|unknown term 'foo'
-|task-clock/foo/|same|unknown term 'foo'
-|task-clock/config3=1/|same|config3
-|page-faults/call-graph=fp/|same|'call-graph' is not usable
-|task-clock/freq=100/|same|'freq' is not usable
-|task-clock/stack-size=10/|same|'stack-size' is not usable
-|task-clock/inherit/|same|'inherit' is not usable
-|task-clock/time=1/|same|'time' is not usable
-|task-clock/percore=1/|differs|perf|'percore'
-|task-clock/period=x/|same|bad value for term 'period'
-|task-clock/name=1/|same|name= takes a name
-|task-clock/period=1/:u|same|no ':' after the term list
-|duration_time/period=1/|same|takes no terms
-|software/cpu-clock/|same|unknown term 'cpu-clock'
# tracepoints: call-graph and stack-size only
tp|syscalls:sys_enter_getpid//|same|-
tp|syscalls:sys_enter_getpid:|same|-
tp|syscalls:sys_enter_getp*//|same|-
tp|syscalls:sys_enter_getpid/period=1/|same|unknown term 'period' for a tracepoint
tp|syscalls:sys_enter_getpid/call-graph=fp/|same|'call-graph' is not usable
tp|syscalls:sys_enter_getpid/stack-size=8/:u|same|'stack-size' is not usable
# modifiers
-|task-clock:|same|-
-|task-clock:e|same|-
-|task-clock:b|same|-
-|task-clock:bb|same|modifier 'b' repeated
-|{task-clock}:b|same|-
-|task-clock:ppp|same|-
-|task-clock:pup|same|-
-|task-clock:ukhGHpPSDIWe|same|-
-|task-clock:uu|same|modifier 'u' repeated
-|task-clock:ukuk|same|modifier 'u' repeated
-|task-clock:pppp|same|precise level 4
-|task-clock:u:k|same|unknown modifier ':'
-|{task-clock}:uu|same|modifier 'u' repeated
-|{task-clock}:|same|empty modifier
# breakpoints: access and modifiers in one token or two
-|mem:0x1000:wu|same|-
-|mem:0x1000/8:wu|same|-
-|mem:0x1000:rwu|same|-
-|mem:0x1000:u|same|-
-|mem:0x1000:|same|-
-|mem:010|same|-
-|mem:0x1000:w:u|same|-
-|mem:0x1000:ww|same|'w' repeated
-|mem:0x1000:rr|same|'r' repeated
-|mem:0x1000/3:w|differs|perf|bad breakpoint length
-|mem:0x1000:rwx|differs|perf|an execute breakpoint
# groups
-|foo{task-clock,page-faults}:u|same|-
-|{task-clock,page-faults}:u|same|-
-|{task-clock/period=1,name=x/u,cs}:k|same|-
-|g{cs/name=y/,L1-dcache-loads/period=1/:u}|same|-
-|task-clock/period=1/,1:3,cs/name=foo/k|same|-
tp|{syscalls:sys_enter_getpid/call-graph=no/,cs}|same|'call-graph' is not usable
# PMU events
-|msr/tsc/u|same|-
-|msr/r0x1/|same|-
-|task-clock/r2/|same|-
tp|syscalls:sys_enter_getpid/r1/|same|unknown term 'r1'
-|msr/tsc/:u|differs|tally
-|msr/tsc,call-graph=fp/|same|'call-graph' is not usable
pmu=cpu|cpu/event=0x3c,period=1000,name=x/u|same|-
pmu=cpu|cpu/event=0x3c,freq=10/|same|'freq' is not usable
ROWS
done_testing
