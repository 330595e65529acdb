#!/usr/bin/env bash
# tally probe on C++ (tests/helpers/probe_cxx.cpp, g++ -g -O0): the
# uprobe_events lines equal perf probe 6.1's for the specs perf takes
# (methods by their DWARF name, this->member, overloads by a glob, the
# mangled symbol), tally's qualified names (ns::Acc::add, perf's escaped
# ns\:\:Acc\:\:add, which perf 6.1 cannot resolve) give the lines of
# perf's spelling of the same functions; -F lists the functions demangled
# as perf does, -V and -L on a method as perf's. Then the events counted:
# ns::work (three overloads, one event) 3N times, the inlined
# ns::Acc::scaled's two copies 2N times, ns::Acc::add's v and
# this->total read N times in order. -O2 too (inlined copies). Probes
# in a group of this run.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
G=tcx$$
cleanup() {
	"$TALLY" probe -q -d "$G:*" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
if ! command -v g++ >/dev/null 2>&1; then
	skip "g++ not installed"
	done_testing
	exit 0
fi
P=$tmp/probe_cxx
g++ -g -O0 -o "$P" "$(cd "$(dirname "$0")/../helpers" && pwd)/probe_cxx.cpp" || { fail "build probe_cxx"; done_testing; exit 0; }
export HOME=$tmp/home
mkdir -p "$HOME"

if have_perf && [ "$(id -u)" = 0 ]; then
	lines() { "$@" 2>&1 | sed -n 's/^Writing event: //p' | sort; }
	# TALLY_SPEC|PERF_SPEC (the same when perf takes tally's spelling)
	while IFS='|' read -r spec pspec; do
		case $spec in ''|'#'*) continue ;; esac
		want=$(lines perf probe -x "$P" -n -v "${pspec:-$spec}")
		got=$(lines "$TALLY" probe -x "$P" -n -v "$spec")
		if [ -z "$want" ]; then
			fail "perf wrote no event for '${pspec:-$spec}'"
		else
			is "same uprobe_events lines: $spec" "$got" "$want"
		fi
	done <<'EOF2'
add
add v this->total this->scale
add $params
add:2
add;total*
add+4
add%return $retval|add=*Acc??add*%return $retval
myev=add v
twice x
get this
work*
Acc
_ZN2ns3Acc3addEi
main n s
ns::Acc::add v this->total|add v this->total
ns\:\:Acc\:\:add v|add v
ns::Acc::add:2|add:2
ns::Acc::add%return $retval|add=*Acc??add*%return $retval
ns::Acc::twice x|twice x
ns::Box::get this|get this
ns::work|work*
scaled
scaled v
scaled:1
ns::Acc::scaled v|scaled v
EOF2
	# -O2: the inline method's copies, the others' registers
	g++ -g -O2 -o "$P.O2" "$(cd "$(dirname "$0")/../helpers" && pwd)/probe_cxx.cpp"
	for spec in scaled scaled:1 add main 'work*' 'get this'; do
		is "-O2: same uprobe_events lines: $spec" "$(lines "$TALLY" probe -x "$P.O2" -n -v "$spec")" \
			"$(lines perf probe -x "$P.O2" -n -v "$spec")"
	done
	is "-O2: ns::Acc::scaled is perf's scaled" "$(lines "$TALLY" probe -x "$P.O2" -n -v ns::Acc::scaled)" \
		"$(lines perf probe -x "$P.O2" -n -v scaled)"
	for f in scaled add main; do
		perf probe -x "$P.O2" -V $f --range >"$tmp/v.perf" 2>/dev/null
		"$TALLY" probe -x "$P.O2" -V $f --range >"$tmp/v.tally" 2>/dev/null
		check "-O2: -V $f --range as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	done
	# a class's member (perf 6.1 refuses: "this is not a data structure"): the fetch of
	# perf's own 'this' there, dereferenced at the member's offset
	this=$(lines perf probe -x "$P" -n -v 'get this' | sed -n 's/.* this=\([^ ]*\):x64$/\1/p')
	is "this->w of a class" "$(lines "$TALLY" probe -x "$P" -n -v 'ns::Box::get this->w' | sed 's/.* w=/w=/')" \
		"w=+0($this):s32"
	for spec in add get twice main Acc scaled; do
		perf probe -x "$P" -V "$spec" >"$tmp/v.perf" 2>/dev/null
		"$TALLY" probe -x "$P" -V "$spec" >"$tmp/v.tally" 2>/dev/null
		check "-V $spec as perf's" cmp -s "$tmp/v.perf" "$tmp/v.tally"
		perf probe -x "$P" -L "$spec" >"$tmp/l.perf" 2>/dev/null
		"$TALLY" probe -x "$P" -L "$spec" >"$tmp/l.tally" 2>/dev/null
		check "-L $spec as perf's" cmp -s "$tmp/l.perf" "$tmp/l.tally"
	done
	# a qualified name: perf's output for the unqualified one, but the title's name
	perf probe -x "$P" -V add:2 | tail -n +2 >"$tmp/v.perf" 2>/dev/null
	"$TALLY" probe -x "$P" -V ns::Acc::add:2 | tail -n +2 >"$tmp/v.tally" 2>/dev/null
	check "-V ns::Acc::add:2 as perf's -V add:2" cmp -s "$tmp/v.perf" "$tmp/v.tally"
	perf probe -x "$P" -L add | tail -n +2 >"$tmp/l.perf" 2>/dev/null
	"$TALLY" probe -x "$P" -L ns::Acc::add | tail -n +2 >"$tmp/l.tally" 2>/dev/null
	check "-L ns::Acc::add as perf's -L add" cmp -s "$tmp/l.perf" "$tmp/l.tally"
	for f in '' 'ns::*' '*work*'; do
		perf probe -x "$P" -F $f >"$tmp/f.perf" 2>/dev/null
		"$TALLY" probe -x "$P" -F $f >"$tmp/f.tally" 2>/dev/null
		check "-F $f as perf's (demangled, each symbol)" cmp -s "$tmp/f.perf" "$tmp/f.tally"
	done
else
	skip "perf probe (root) for the parity checks"
fi
check "-F lists ns::Acc::add demangled" grep -qx 'ns::Acc::add' <("$TALLY" probe -x "$P" -F 'ns::Acc::*')

UE=$("$TALLY" list syscalls:sys_enter_getpid >/dev/null 2>&1; for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do [ -e $d/uprobe_events ] && echo $d/uprobe_events && break; done)
if [ "$(id -u)" != 0 ] || [ -z "$UE" ]; then
	skip "needs root and tracefs's uprobe_events"
	done_testing
	exit 0
fi
N=23
"$TALLY" probe -q -x "$P" -a "$G:w$$=ns::work" -a "$G:a$$=ns::Acc::add v this->total" \
	-a "$G:s$$=ns::Acc::scaled v"
is "ns::work: one event on each of the three overloads" "$(grep -c "^p:$G/w$$ " "$UE")" 3
is "ns::Acc::scaled: one event on each inlined copy" "$(grep -c "^p:$G/s$$ " "$UE")" 2
# the name taken: -f's _1 for every overload, as perf names its glob's
if have_perf; then
	got=$("$TALLY" probe -n -v -f -x "$P" "$G:w$$=ns::work" 2>&1 | sed -n 's/^Writing event: //p' | sort)
	is "-f: the overloads' _1 as perf's" "$got" \
		"$(perf probe -n -v -f -x "$P" "$G:w$$=work*" 2>&1 | sed -n 's/^Writing event: //p' | sort)"
	check "-f: named w$$_1" grep -q "^p:$G/w$$_1 " <<<"$got"
fi
"$TALLY" probe -x "$P" -n "$G:w$$=ns::work" >/dev/null 2>"$tmp/e"
check "without -f the taken name is refused" grep -q "event \"w$$\" already exists" "$tmp/e"
"$TALLY" stat -x, -e "$G:w$$" -e "$G:a$$" -e "$G:s$$" -- "$P" $N >/dev/null 2>"$tmp/st"
is "stat counts the overloads 3N times" "$(awk -F, -v e="$G:w$$" '$3 == e { print $1 }' "$tmp/st")" $((3 * N))
is "stat counts ns::Acc::add N times" "$(awk -F, -v e="$G:a$$" '$3 == e { print $1 }' "$tmp/st")" $N
is "stat counts both copies of ns::Acc::scaled: 2N" "$(awk -F, -v e="$G:s$$" '$3 == e { print $1 }' "$tmp/st")" $((2 * N))
"$TALLY" record -q -o "$tmp/p.data" -e "$G:a$$" -- "$P" $N >/dev/null 2>&1
"$TALLY" script -i "$tmp/p.data" >"$tmp/s" 2>/dev/null
want=$(t=0; for i in $(seq 0 $((N - 1))); do printf 'v=%d total=%d ' $i $t; t=$((t + i)); done)
got=$(sed -n 's/.* \(v=-\?[0-9]* total=-\?[0-9]*\)$/\1/p' "$tmp/s" | tr '\n' ' ')
is "script: v and this->total of each call, in order" "$got" "$want"
"$TALLY" probe -q -d "$G:*"
is "-d removes them" "$(grep -c "^[pr]:$G/" "$UE")" 0
done_testing
