#!/usr/bin/env bash
# Every program in examples/ runs with no arguments, exits 0 on this
# machine and prints the line that shows it did its job; the numbers in
# that line are checked where the example's workload fixes them.
. tests/it/lib.sh
EX=${BUILD:-build}/examples

# Under SAN=1: libtracefs 1.6 leaks a strdup()ed path per
# tracefs_tracing_dir_is_mounted() call (reached through
# tally_parse_events); suppress leaks allocated inside libtracefs only.
supp=$(mktemp)
trap 'rm -f "$supp"' EXIT
echo "leak:libtracefs.so" >"$supp"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$supp"

run() {	# run NAME: sets $out and $rc
	out=$(timeout 60 "$EX/$1" 2>&1); rc=$?
}

if [ ! -d "$EX" ]; then
	skip "no $EX (make examples)"
	done_testing
	exit 0
fi

run selfmon_printf
is "selfmon_printf exits 0" "$rc" 0
check "selfmon_printf: 'Used N instructions' or N ns of task-clock" \
	grep -Eq '^Used [1-9][0-9]* (instructions|ns of task-clock) \(read path: (read|rdpmc|mrs)\)$' <<<"$out"

run selfmon_group
is "selfmon_group exits 0" "$rc" 0
pf=$(awk '$2 == "page-faults" {print $1}' <<<"$out")
check "selfmon_group: page-faults >= 256 pages touched (got '$pf')" \
	test -n "$pf" -a "${pf:-0}" -ge 256
tc=$(awk '$2 == "task-clock" {print $1}' <<<"$out")
check "selfmon_group: task-clock > 0 (got '$tc')" test -n "$tc" -a "${tc:-0}" -gt 0
if grep -q 'syscalls:sys_enter_getpid' <<<"$out"; then
	is "selfmon_group: exactly 1000 getpid" \
		"$(awk '$2 == "syscalls:sys_enter_getpid" {print $1}' <<<"$out")" 1000
else
	skip "selfmon_group: no syscalls tracepoint here"
fi

run overflow_signal
is "overflow_signal exits 0" "$rc" 0
if grep -q 'getpid() calls' <<<"$out"; then
	check "overflow_signal: 20 signals for 2000 getpid() calls" \
		grep -Eq '^20 signals for 2000 getpid\(\) calls \(one every 100\)$' <<<"$out"
else
	check "overflow_signal: a signal per 100 page faults" \
		grep -Eq '^[1-9][0-9]* signals for [0-9]+ page faults' <<<"$out"
fi

run ring_sampler
is "ring_sampler exits 0" "$rc" 0
if grep -q 'sys_enter_getpid' <<<"$out"; then
	check "ring_sampler: 1000 samples, 0 lost" \
		grep -Eq '^1000 samples of syscalls:sys_enter_getpid, 0 lost, 0 other records$' <<<"$out"
else
	check "ring_sampler: some cpu-clock samples" \
		grep -Eq '^[1-9][0-9]* samples of cpu-clock' <<<"$out"
fi

# read_perf_data reads a file: one recorded here, its rows those of tally
# report on the same file (install.sh does the same built against the
# installed library, on perf's file and tally's)
top10() {	# the first ten "PCT [L] NAME" rows; rows tied with the tenth's share are counted, not named
	local rows p10
	rows=$(grep -E '^ *[0-9]+\.[0-9]+%' | head -10 | awk '{$1=$1; print}')
	p10=$(tail -1 <<<"$rows" | cut -d' ' -f1)
	grep -v "^$p10 " <<<"$rows" | sort
	echo "tied at $p10: $(grep -c "^$p10 " <<<"$rows")"
}
if [ -x "$EX/read_perf_data" ]; then
	f=$(mktemp)
	"$TALLY" record -q -F 999 -g -o "$f" -- "$HELPERS/burn" 200 >/dev/null 2>&1
	out=$(timeout 60 "$EX/read_perf_data" "$f" 2>&1); rc=$?
	is "read_perf_data exits 0" "$rc" 0
	check "read_perf_data: burn_a among the hottest symbols" grep -Eq '^ *[0-9]+\.[0-9]{2}%  \[\.\] burn_a$' <<<"$out"
	rep=$("$TALLY" report --stdio --no-children --sort sym -g none -i "$f" 2>/dev/null)
	check "read_perf_data: rows" [ "$(top10 <<<"$out" | wc -l)" -gt 1 ]
	is "read_perf_data: its top ten are tally report's (same file)" \
		"$(top10 <<<"$out")" "$(top10 <<<"$rep")"
	is "read_perf_data: its total is the report's event period" \
		"$(sed -n 's/^[^ ]*: \([0-9]*\) in all$/\1/p' <<<"$out")" \
		"$(sed -n 's/^# Event count (approx.): //p' <<<"$rep" | head -1)"
	out=$(timeout 60 "$EX/read_perf_data" "$f.missing" 2>&1); rc=$?
	is "read_perf_data on a missing file exits 1" "$rc" 1
	is "read_perf_data on a missing file says so" "$out" "$f.missing: No such file or directory (ENOENT)"
	head -c 100 "$f" >"$f.cut"
	out=$(timeout 60 "$EX/read_perf_data" "$f.cut" 2>&1); rc=$?
	is "read_perf_data on a cut header exits 1" "$rc" 1
	is "read_perf_data on a cut header says where and why" "$out" \
		"$f.cut: the file ends inside its header (100 of 104 bytes) at offset 0x64"
	rm -f "$f" "$f.cut"
fi

# live_top follows a command's samples through the session over live rings
run live_top
is "live_top exits 0" "$rc" 0
n=$(awk '/ samples, [0-9]+ with a symbol$/ {print $1}' <<<"$out")
check "live_top: the busy shell sampled (got '$n' samples)" test "${n:-0}" -gt 100
check "live_top: a hottest symbol by name" grep -Eq '^ *[0-9]+\.[0-9]{2}%  [A-Za-z_]' <<<"$out"

# Every example is covered above: a new one must be added here.
# store_symbols needs a store: without one it says how it is used; with a
# real ClickHouse it uploads burn's functions, which the store then holds
run store_symbols
is "store_symbols without a store: usage, exit 2" "$rc/$out" "2/usage: store_symbols URL FILE..."
. tests/it/store_lib.sh
_store_dirs="$_store_dirs $supp"	# its trap replaces ours: it removes the file too
if have_clickhouse && start_clickhouse chp; then
	out=$("$EX/store_symbols" "http://127.0.0.1:$chp/?database=ex" "$HELPERS/burn" 2>&1); rc=$?
	is "store_symbols exits 0" "$rc" 0
	n=$(sed -n 's/.*: \([0-9]*\) functions$/\1/p' <<<"$out")
	bid=$(readelf -n "$HELPERS/burn" | sed -n 's/.*Build ID: //p')
	is "store_symbols: the functions it says it sent are in the store under burn's build id" \
		"$(chq "$chp" "SELECT count() FROM ex.symbols WHERE build_id = '$bid'")" "${n:-none}"
else
	missing "clickhouse-server is not installed (make deps): store_symbols not run"
fi

for f in "$EX"/*; do
	n=$(basename "$f")
	case $n in
	selfmon_printf|selfmon_group|overflow_signal|ring_sampler|read_perf_data|live_top|store_symbols) ;;
	*.d) ;;
	*) run "$n"; is "$n exits 0 (no output check yet)" "$rc" 0 ;;
	esac
done
done_testing
