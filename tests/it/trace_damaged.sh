#!/usr/bin/env bash
# A damaged event format in a file's tracing data (issue 17: a REC->field
# of no field inside __print_flags crashed libtraceevent's parser, a '%'
# by 0 its printing): tally report and script name the event on stderr,
# print its fields raw, and are otherwise as on the good file (same
# report, same samples). The two damaged files the issue came with
# (fuzz/corpus/trace_fmt/corrupt-*.data) end without a signal.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
C=fuzz/corpus/trace_fmt
msg="the format of event sched:sched_switch in the file's tracing data is damaged"

for f in "$C/corrupt-print-fmt.data" "$C/corrupt-tracing-data-16k.data"; do
	n=$(basename "$f")
	"$TALLY" report -i "$f" --stdio >/dev/null 2>"$d/e"; rc=$?
	check "$n: report ends without a signal (rc $rc)" [ "$rc" -lt 128 ]
	check "$n: report names the damaged event" grep -q "tally report: $msg" "$d/e"
	"$TALLY" script -i "$f" -F comm,tid,time,ip,sym,trace >/dev/null 2>"$d/e"; rc=$?
	check "$n: script -F ...,trace ends without a signal (rc $rc)" [ "$rc" -lt 128 ]
	check "$n: script names the damaged event" grep -q "tally script: $msg" "$d/e"
done

if ! have_tp; then
	skip "tracepoints cannot be used here"
	done_testing; exit 0
fi
"$TALLY" record -q -e sched:sched_switch -o "$d/good.data" -- sh -c 'sleep 0.01; sleep 0.01' \
	>/dev/null 2>&1
"$TALLY" record -q -e sched:sched_switch -o - -- sh -c 'sleep 0.01; sleep 0.01' \
	>"$d/good-pipe.data" 2>/dev/null
# The issue's two damages, each the same length as what it replaces.
python3 - "$d" <<'EOF'
import sys
d = sys.argv[1]
for src in ("good", "good-pipe"):
    b = open("%s/%s.data" % (d, src), "rb").read()
    for name, old, new in (("flags", b"__print_flags(REC->prev_state", b"__print_flags(REC->pre\xd5_state"),
                           ("mod", b"__print_flags(REC->prev_state & ((((0x00000000",
                                   b"__print_flags(REC->prev_state & ((((0x000000%0")):
        assert old in b
        open("%s/%s-%s.data" % (d, src, name), "wb").write(b.replace(old, new, 1))
EOF

for src in good good-pipe; do
	# a tracepoint file's report sorts by the trace text, as perf's
	"$TALLY" report -i "$d/$src.data" --stdio -s comm,pid >"$d/want.rep" 2>/dev/null
	"$TALLY" script -i "$d/$src.data" -F comm,tid,time,event >"$d/want.scr" 2>/dev/null
	check "$src: the good file has samples" grep -q 'sched:sched_switch' "$d/want.scr"
	for dmg in flags mod; do
		f="$d/$src-$dmg.data"; n="$src-$dmg"
		"$TALLY" report -i "$f" --stdio >"$d/got.tr" 2>"$d/e"; rc=$?
		is "$n: report exits 0" "$rc" 0
		check "$n: report names the event and says its fields are shown raw" \
			grep -q "tally report: $msg (.*): its fields are shown raw" "$d/e"
		is "$n: report counts every sample" \
			"$(grep '^# Samples' "$d/got.tr")" "$(grep '^# Samples' "$d/want.rep")"
		check "$n: report's trace key shows the fields raw" \
			grep -q '%  \[FAILED TO PARSE\] prev_comm=.* next_prio=' "$d/got.tr"
		"$TALLY" report -i "$f" --stdio -s comm,pid >"$d/got.rep" 2>/dev/null
		check "$n: report -s comm,pid as for the good file" cmp -s "$d/got.rep" "$d/want.rep"
		"$TALLY" script -i "$f" -F comm,tid,time,event >"$d/got.scr" 2>/dev/null; rc=$?
		is "$n: script exits 0" "$rc" 0
		check "$n: script shows the good file's samples" cmp -s "$d/got.scr" "$d/want.scr"
		"$TALLY" script -i "$f" -F comm,tid,time,ip,sym,trace >"$d/got.tr" 2>/dev/null; rc=$?
		is "$n: script -F comm,tid,time,ip,sym,trace exits 0" "$rc" 0
		is "$n: every sample's fields shown raw" \
			"$(grep -c '\[FAILED TO PARSE\] prev_comm=.* next_prio=' "$d/got.tr")" \
			"$(wc -l <"$d/want.scr")"
	done
done
done_testing
