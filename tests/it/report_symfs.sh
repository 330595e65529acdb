#!/usr/bin/env bash
# --symfs DIR, as perf 6.1's: a program recorded, then moved under a
# scratch root (its recorded path gone): without --symfs its frames are
# unresolved, with it they are named, report's rows and script's lines
# perf's on the same file. No fallback to the host's path: a root without
# the file leaves it unresolved though it is back in place. The global
# debug dir is under the root too (a stripped copy's debug file). The
# .build-id and .debug cases too: tally record's build-id table carries
# perf's pid -1 (a process's pid once made perf 6.1 file the ids under a
# guest machine, with none for the program). The build-id
# cache is the root's .debug, kallsyms the root's: kernel addresses stay
# unnamed without it, as perf's.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
export HOME=$d/home XDG_CACHE_HOME=$d/cache
mkdir -p "$HOME"
cat >"$d/p.c" <<'EOF'
int __attribute__((noinline)) spin(int n) { volatile int s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int main(void) { for (int k = 0; k < 300; k++) spin(1000000); return 0; }
EOF
cc -O1 -g -Wl,--build-id -o "$d/prog" "$d/p.c"
# no build-id cache: the moved program is found under the root or nowhere
ev=task-clock; [ "$(id -u)" = 0 ] || ev=task-clock:u	# the kernel's samples as root
"$TALLY" record -N -e $ev -o "$d/p.data" -- "$d/prog" >/dev/null 2>&1
root=$d/root
mkdir -p "$root$d" "$d/empty"
mv "$d/prog" "$root$d/prog"

# TOOL [OPTION...]: its rows, its lines
rows() { local t=$1; shift; "$t" report -i "$d/p.data" --stdio -q --sort comm,dso,sym "$@" 2>/dev/null | grep -v '^$'; }
lines() { local t=$1; shift; "$t" script -i "$d/p.data" -F comm,tid,ip,sym,dso "$@" 2>/dev/null; }

check "no --symfs: the moved program's frames are unresolved" \
	bash -c '! grep -q "\] spin" <<<"$1"' _ "$(rows "$TALLY")"
check "--symfs: report names spin" grep -q '\] spin' <<<"$(rows "$TALLY" --symfs "$root")"
check "--symfs: script names spin" grep -q ' spin ' <<<"$(lines "$TALLY" --symfs "$root")"
ann() { "$TALLY" annotate -i "$d/p.data" --stdio "$@" spin 2>/dev/null; }
check "no --symfs: annotate finds no spin" bash -c '! grep -q "<spin>:" <<<"$1"' _ "$(ann)"
check "--symfs: annotate disassembles spin" grep -q '<spin>:' <<<"$(ann --symfs "$root")"
check "--symfs: diff names spin" \
	grep -q ' spin' <<<"$("$TALLY" diff --symfs "$root" "$d/p.data" "$d/p.data" 2>/dev/null)"
# stripped under the root, its debug file in the root's global debug dir:
# root2 by path (perf's Fedora layout), root3 by build id
id=$(readelf -n "$root$d/prog" | sed -n 's/.*Build ID: //p')
mkdir -p "$d/root2$d" "$d/root2/usr/lib/debug$d" "$d/root3$d" "$d/root3/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$root$d/prog" "$d/root2/usr/lib/debug$d/prog.debug"
objcopy --only-keep-debug "$root$d/prog" "$d/root3/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
strip -s -o "$d/root2$d/prog" "$root$d/prog"
cp "$d/root2$d/prog" "$d/root3$d/prog"
# perf's build-id cache under a symfs is the root's .debug, not ~/.debug
mkdir -p "$d/root4/.debug/.build-id/${id:0:2}/${id:2}" "$HOME/.debug/.build-id/${id:0:2}/${id:2}"
cp "$root$d/prog" "$d/root4/.debug/.build-id/${id:0:2}/${id:2}/elf"
check "--symfs: the root's .debug build-id cache gives the file" \
	grep -q '\] spin' <<<"$(rows "$TALLY" --symfs "$d/root4")"
cp "$root$d/prog" "$HOME/.debug/.build-id/${id:0:2}/${id:2}/elf"
check "--symfs: ~/.debug is not looked in" \
	bash -c '! grep -q "\] spin" <<<"$1"' _ "$(rows "$TALLY" --symfs "$d/empty")"
check "no --symfs: ~/.debug gives the file" grep -q '\] spin' <<<"$(rows "$TALLY")"
rm -r "$HOME/.debug"
check "--symfs: the root's /usr/lib/debug/PATH.debug gives a stripped file's symbols" \
	grep -q '\] spin' <<<"$(rows "$TALLY" --symfs "$d/root2")"
check "--symfs: the root's /usr/lib/debug/.build-id gives a stripped file's symbols" \
	grep -q '\] spin' <<<"$(rows "$TALLY" --symfs "$d/root3")"
# kernel symbols: none without the kernel's files under the root, as perf
check "--symfs: no kernel symbol from this machine's kallsyms" \
	bash -c '! grep -q "\[k\] [a-z_]" <<<"$1"' _ "$(rows "$TALLY" --symfs "$root")"
# the program back in place, the root without it: perf does not fall back
cp "$root$d/prog" "$d/prog"
check "--symfs without the file: unresolved, no fallback to the host's path" \
	bash -c '! grep -q "\] spin" <<<"$1"' _ "$(rows "$TALLY" --symfs "$d/empty")"
rm "$d/prog"

# sched timehist's chains: the kernel's frames unnamed under the root, as perf's
if have_tp && have_perf; then
	cat >"$d/n.c" <<'EOF'
#include <unistd.h>
void __attribute__((noinline)) nap(void) { usleep(2000); }
int main(void) { for (int k = 0; k < 10; k++) nap(); return 0; }
EOF
	cc -O1 -g -o "$d/nap" "$d/n.c"
	"$TALLY" record -N -e sched:sched_switch -g -o "$d/s.data" -- "$d/nap" >/dev/null 2>&1
	mv "$d/nap" "$root$d/nap"
	th() { "$1" sched timehist -i "$d/s.data" --symfs "$root" 2>/dev/null | grep ' nap\['; }
	check "sched timehist --symfs: nap's switches listed" test -n "$(th "$TALLY")"
	check "sched timehist --symfs: the chains unnamed" bash -c '! grep -q do_nanosleep <<<"$1"' _ "$(th "$TALLY")"
	is "sched timehist --symfs: lines are perf's" "$(th "$TALLY")" "$(th perf)"
else
	skip "no tracepoints or no perf: sched timehist --symfs not checked"
fi

if have_perf; then
	for r in "" "--symfs=$root" "--symfs=$d/root2" "--symfs=$d/root3" "--symfs=$d/root4" "--symfs=$d/empty"; do
		# shellcheck disable=SC2086
		is "report ${r:-(no --symfs)}: rows are perf's" "$(rows "$TALLY" $r)" "$(rows perf $r)"
		# shellcheck disable=SC2086
		is "script ${r:-(no --symfs)}: lines are perf's" "$(lines "$TALLY" $r)" "$(lines perf $r)"
	done
else
	skip "perf is not installed: no reference to compare with"
fi
done_testing
