#!/usr/bin/env bash
# report -F/--fields: perf's columns in the order given (overhead,
# overhead_children, period, sample and the sort keys; -s naming overhead,
# sample or period as -F overhead,KEYS without children), rows ordered by
# them (by -s's keys first, whose missing keys become last columns), with
# and without call chains, children and call graphs: the same lines as
# perf report on the same files. An unknown field is named.
# --hierarchy: a level per key, each entry's share the sum of the rows
# under it, the same lines as perf report --hierarchy; not with -F.
. "$(dirname "$0")/lib.sh"
B=$HELPERS/burn
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT

"$TALLY" report -F overhead,nosuch -i /dev/null 2>"$d/e"; rc=$?
is "-F with an unknown field: usage error" "$rc" 129
check "-F with an unknown field: the field named" grep -q "unknown field 'nosuch'" "$d/e"
"$TALLY" report --hierarchy -F overhead,sym -i /dev/null 2>"$d/e"; rc=$?
is "--hierarchy with -F: usage error" "$rc" 129
check "--hierarchy with -F: said" grep -q "cannot be used together" "$d/e"
if ! have_perf; then
	skip "perf is not installed: no reference to compare with"
	done_testing; exit 0
fi
# what both print besides the table: perf's tips, tally's account of misses
body() { grep -v '^#$\|^$\|^# (Tip\|header info\|^#   \|^# Addresses without'; }
perf record -q -F 2000 -o "$d/f.data" -- "$B" 300 >/dev/null 2>&1
perf record -q -F 2000 -g -o "$d/g.data" -- "$B" 300 >/dev/null 2>&1
"$TALLY" record -q -F 2000 -g -o "$d/t.data" -- "$B" 300 >/dev/null 2>&1
while read -r file args; do
	"$TALLY" report --stdio $args -i "$d/$file.data" 2>/dev/null | body >"$d/a"
	perf report --stdio $args -i "$d/$file.data" 2>/dev/null | body >"$d/b"
	# a rare sample in the PLT: perf names it _init or name@plt by the shape
	# of its symbol tree (see report_parity.sh); without that row, and with
	# the column widths it changed, the rest must still be equal
	if grep -q '_init\|@plt' "$d/a" "$d/b"; then
		for f in a b; do
			grep -v '_init *\|@plt' "$d/$f" | sed 's/  */ /g; s/ *$//' >"$d/$f.n"
			mv "$d/$f.n" "$d/$f"
		done
	fi
	is "$file $args: perf's lines" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	diff "$d/a" "$d/b" | head -14 | sed 's/^/# /'
	check "$file $args: a table" grep -q '^# [A-Z]' "$d/a"
done <<'LIST'
f -F overhead,sym
f -F sym,overhead
f -F overhead,period,sample,comm,dso
f -F comm,overhead
f -F sample,sym
f -F overhead
f -F overhead,cpu
f -F overhead,sym -s dso
f -F sym,overhead -s dso,sym
g -F overhead,sym -g none
g -F overhead_children,overhead,comm,dso,sym
g -F overhead_children,sym -g none
g -F overhead,sym,dso
g -F overhead_children,sym --no-children
g -F overhead,period,sample,sym --no-children
t -F overhead_children,overhead,comm,dso,sym
t -F overhead,sym -s dso --no-children
f -s sample,comm
f -s comm,period
f -s sym,sample
f -s overhead,sym
f -s period
f -s dso,sample,sym
g -s sym,sample --no-children
g -s overhead --no-children
LIST
# --show-cpu-utilization: sys and usr, each row's own period by level, as perf's
for f in f g t; do
	for args in "--show-cpu-utilization" "--show-cpu-utilization -n --show-total-period" \
		    "--show-cpu-utilization --no-children -s dso,sym" "--show-cpu-utilization -t ," \
		    "-F overhead,overhead_sys,overhead_us,sym --no-children" "-F overhead_us,sym -t , --no-children" \
		    "-F overhead_guest_sys,overhead_guest_us,overhead,comm,sym --no-children" \
		    "-F overhead_sys,dso -s dso --no-children" "-F sym,overhead_sys,sample --no-children" \
		    "-F overhead,sym" "-F sym,overhead -g none" "-F overhead,comm,dso,sym -g none"; do
		"$TALLY" report --stdio $args -i "$d/$f.data" 2>/dev/null | body >"$d/a"
		perf report --stdio $args -i "$d/$f.data" 2>/dev/null | body >"$d/b"
		same_lines "$f $args" "$d/a" "$d/b"
	done
done
"$TALLY" report --stdio --no-children -g none -s sym --show-cpu-utilization -i "$d/f.data" >"$d/a" 2>/dev/null
check "--show-cpu-utilization: burn_a all user time (usr = its overhead)" \
	awk '$NF == "burn_a" { exit !($1 == $3 && $2 == "0.00%") }' "$d/a"
check "--show-cpu-utilization: any kernel row all sys" awk '$4 == "[k]" && $1 != $2 { bad++ } END { exit bad > 0 }' "$d/a"
# -F overhead_us: the rows by their user time, biggest first; kernel rows none of it
"$TALLY" report --stdio --no-children -g none -F overhead_us,overhead,sym -i "$d/f.data" >"$d/a" 2>/dev/null
check "-F overhead_us: biggest first" awk '/^ +[0-9.]+%/ { v = $1 + 0; if (seen && v > last) bad++; last = v; seen = 1 } END { exit bad > 0 || !seen }' "$d/a"
check "-F overhead_us: a kernel row has none" awk '$3 == "[k]" && $1 != "0.00%" { bad++ } END { exit bad > 0 }' "$d/a"
# -s naming a count with children (perf's Children and Self beside it): refused, said
"$TALLY" report --stdio -s sym,sample -i "$d/g.data" >/dev/null 2>"$d/e"; rc=$?
is "-s sym,sample with children: usage error" "$rc" 129
check "... said" grep -q "without children only (--no-children)" "$d/e"
while read -r file args; do
	"$TALLY" report --stdio --hierarchy $args -i "$d/$file.data" 2>/dev/null | body >"$d/a"
	perf report --stdio --hierarchy $args -i "$d/$file.data" 2>/dev/null | body >"$d/b"
	is "$file --hierarchy $args: perf's lines" "$(diff "$d/a" "$d/b" | grep -c '^[<>]')" 0
	diff "$d/a" "$d/b" | head -14 | sed 's/^/# /'
	# a second level's shares are three further in (a first's have at most 5 spaces)
	case $args in *"-s sym") continue ;; esac
	check "$file --hierarchy $args: levels under their parents" grep -Eq '^ {6,}[0-9]+\.[0-9]{2}%' "$d/a"
done <<'LIST'
f
f -n --show-total-period
f -s pid,cpu,sym
f -s sym,dso
f -s sym
g
g -g none --percent-limit 1.2
g -s dso,sym -n --percent-limit 1.2 -g none
g --no-children
t -s comm,sym
LIST
done_testing
