#!/usr/bin/env bash
# tally record keeps what it sampled in perf's build-id cache, as perf
# record does: HOME/.debug/<path>/<build id>/elf, [vdso]/<build id>/vdso
# and the .build-id/xx/rest links (perf's buildid.dir from PERF_CONFIG;
# none with -N). A program rebuilt after the recording is then annotated
# from the recorded copy (its own code, not the rebuilt one's), by
# annotate and by the HTML page; [vdso] too.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
export HOME=$d/home PERF_CONFIG=
mkdir "$HOME"
cat >hot.c <<'EOC'
static volatile long sink;
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += (i * 7) ^ (s >> 3);
	return s;
}
int main(void) { sink = work(40000000); return 0; }
EOC
cat >vdso.c <<'EOC'
#include <time.h>
int main(void)
{
	struct timespec t;
	for (long i = 0; i < 3000000; i++)
		clock_gettime(CLOCK_MONOTONIC, &t);
	return 0;
}
EOC
bid() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'; }
# the instructions of work in FILE as objdump prints them (mnemonic and operands)
insns() { objdump -d --no-show-raw-insn "$1" | awk '/<work>:/ { on = 1; next } on && !NF { exit }
	on { sub(/^ *[0-9a-f]+:\t/, ""); print }'; }

cc -O2 -g -o prog hot.c && cc -O2 -o vdso vdso.c || { skip "no compiler"; done_testing; exit 0; }
old=$(bid prog)
insns prog >old.insns
"$TALLY" record -q -e cpu-clock -o p.data ./prog 2>err; rc=$?
is "record exits 0 ($(head -1 err))" "$rc" 0
c=$HOME/.debug
check "the file is kept as .debug/<path>/<build id>/elf" cmp -s prog "$c$d/prog/$old/elf"
is "the .build-id link points at it" "$(readlink "$c/.build-id/${old:0:2}/${old:2}")" "../..$d/prog/$old"

# rebuilt: other code at the same addresses
sed -i 's/i \* 7/i * 9/' hot.c && cc -O2 -g -o prog hot.c
insns prog >new.insns
check "the rebuild changed work's code" sh -c '! cmp -s old.insns new.insns'
"$TALLY" annotate --stdio --no-source -i p.data work >out 2>err; rc=$?
is "annotate after a rebuild exits 0 ($(head -1 err))" "$rc" 0
check "annotate names the DSO" grep -q 'Source code & Disassembly of prog for' out
# the annotated instructions are the recorded build's, not the rebuilt one's
awk -F': +[0-9a-f]+: +' 'NF > 1 { print $2 }' out | sed 's/ *<.*//; s/  */ /g' >got.insns
sed 's/ *<.*//; s/[ \t][ \t]*/ /g; s/ *$//' old.insns >want.insns
sed -i 's/ *$//' got.insns
check "annotate shows the recorded build's instructions" cmp -s got.insns want.insns
"$TALLY" report -i p.data --html page.html >/dev/null 2>err; rc=$?
is "report --html after a rebuild exits 0" "$rc" 0
check "the page's annotation of work is there" sh -c "! grep -A2 'data-fn=\"work\"' page.html | grep -q 'No annotation'"

# [vdso]: its image kept as [vdso]/<build id>/vdso and annotated from it
"$TALLY" record -q -e cpu-clock -o v.data ./vdso 2>err; rc=$?
vb=$(ls "$c/[vdso]" 2>/dev/null | head -1)
check "[vdso] is kept as [vdso]/<build id>/vdso" test -s "$c/[vdso]/$vb/vdso"
is "its build id is the image's" "$(bid "$c/[vdso]/$vb/vdso")" "$vb"
"$TALLY" annotate --stdio --no-source -i v.data -d '[vdso]' >out 2>err; rc=$?
is "annotate [vdso] exits 0 ($(head -1 err))" "$rc" 0
check "annotate [vdso] shows its code" grep -Eq '^ +[0-9]+\.[0-9]+ : +[0-9a-f]+: +[a-z]' out

# [vdso] of another kernel (its recorded build id not ours): not read from
# our own vDSO, whose symbols would be wrong there; from a kept copy of
# that build where there is one, else unresolved, as perf
python3 - v.data o.data "$vb" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = bytes.fromhex(sys.argv[3])
assert b.count(i) >= 1
open(sys.argv[2], 'wb').write(b.replace(i, bytes(x ^ 0xff for x in i)))
PY
ob=$(python3 -c "import sys; print(bytes(x ^ 0xff for x in bytes.fromhex(sys.argv[1])).hex())" "$vb")
vsyms() { HOME=$1 "$TALLY" report --stdio --sort dso,sym -i "$2" 2>/dev/null | grep -F '[vdso]'; }
mkdir -p "$d/empty"
vsyms "$d/empty" v.data >vown
check "[vdso] of this kernel, no copy kept: our own vDSO's symbols" grep -q '__vdso_clock_gettime' vown
vsyms "$d/empty" o.data >voth
check "[vdso] of another kernel, no copy: unresolved ($(head -1 voth))" sh -c '[ -s voth ] && ! grep -q __vdso_ voth'
# the kept copy: that other build (our image with the build id changed alike)
k=$d/kept/.debug/.build-id/${ob:0:2}/${ob:2}; mkdir -p "$k"
python3 - "$c/[vdso]/$vb/vdso" "$k/vdso" "$vb" <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
i = bytes.fromhex(sys.argv[3])
open(sys.argv[2], 'wb').write(b.replace(i, bytes(x ^ 0xff for x in i)))
PY
vsyms "$d/kept" o.data >vkept
check "[vdso] of another kernel, its copy kept: read from the copy" grep -q '__vdso_clock_gettime' vkept

# -N: nothing kept
HOME=$d/home2; mkdir "$HOME"
"$TALLY" record -q -N -e cpu-clock -o n.data ./vdso 2>err
check "-N keeps nothing in ~/.debug" test ! -e "$HOME/.debug"

# -o -: as perf, a pipe's recording keeps no copies
HOME=$d/home3; mkdir "$HOME"
"$TALLY" record -q -e cpu-clock -o - ./vdso 2>err >pipe.data
check "-o -: nothing kept in ~/.debug" test ! -e "$HOME/.debug"

# perf's buildid.dir: ~/.perfconfig's, and PERF_CONFIG's alone when set
printf '[buildid]\n\tdir = %s\n' "$d/hbids" >"$HOME/.perfconfig"
env -u PERF_CONFIG "$TALLY" record -q -e cpu-clock -o h.data ./prog 2>err
check "buildid.dir of ~/.perfconfig is where the copy goes" cmp -s prog "$d/hbids$d/prog/$(bid prog)/elf"
printf '[buildid]\n\tdir = %s\n' "$d/bids" >perfconfig
PERF_CONFIG=$d/perfconfig "$TALLY" record -q -e cpu-clock -o c.data ./prog 2>err
new=$(bid prog)
check "buildid.dir of PERF_CONFIG is where the copy goes" cmp -s prog "$d/bids$d/prog/$new/elf"
check "and not ~/.debug" test ! -e "$HOME/.debug"

# perf's own cache is read the same way: perf record, a rebuild, tally annotate
if have_perf; then
	HOME=$d/home4; mkdir "$HOME"
	sed -i 's/i \* 9/i * 5/' hot.c && cc -O2 -g -o prog hot.c && insns prog >old.insns
	perf record -q -e cpu-clock -o perf.data ./prog >/dev/null 2>&1
	sed -i 's/i \* 5/i * 3/' hot.c && cc -O2 -g -o prog hot.c
	"$TALLY" annotate --stdio --no-source -i perf.data work >out 2>err; rc=$?
	is "perf's recording after a rebuild: annotate exits 0 ($(head -1 err))" "$rc" 0
	awk -F': +[0-9a-f]+: +' 'NF > 1 { print $2 }' out | sed 's/ *<.*//; s/  */ /g; s/ *$//' >got.insns
	sed 's/ *<.*//; s/[ \t][ \t]*/ /g; s/ *$//' old.insns >want.insns
	check "perf's recording: the copy perf kept is annotated" cmp -s got.insns want.insns
else
	skip "no perf"; skip "no perf"
fi
done_testing
