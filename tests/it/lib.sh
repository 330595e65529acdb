# Shared helpers for shell integration tests: TAP output.
# Source it, call ok/fail/skip, then `done_testing` at the end.
_n=0
: "${TALLY:=$PWD/build/tally}" "${HELPERS:=$PWD/build/helpers}"
ok()   { _n=$((_n+1)); echo "ok $_n - $*"; }
fail() { _n=$((_n+1)); echo "not ok $_n - $*"; }
skip() { _n=$((_n+1)); echo "ok $_n # SKIP $*"; }
# check NAME CMD...: ok when CMD succeeds
check() { local n=$1; shift; if "$@"; then ok "$n"; else fail "$n"; fi; }
# is NAME GOT WANT
is() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (got '$2', want '$3')"; fi; }
done_testing() { echo "1..$_n"; }
# keep FILE...: a failed check's input copied where the next session can
# read it (TALLY_KEEP, default /tmp/tally-kept): the rare failures of
# live recordings are not reproduced at will
keep() {
	local k=${TALLY_KEEP:-/tmp/tally-kept}/$(basename "$0" .sh).$$
	mkdir -p "$k" && cp -r "$@" "$k/" 2>/dev/null && echo "# kept in $k: $*"
}
# damage FILE HOW [SIZE]: a cache file truncated (to SIZE bytes), a byte
# in its middle flipped, or emptied: what a reader must not trust
damage() {
	case $2 in
	truncate) truncate -s "$3" "$1" ;;
	flip) python3 -c 'import sys; f = open(sys.argv[1], "r+b"); n = f.seek(0, 2); f.seek(n // 2)
b = f.read(1); f.seek(n // 2); f.write(bytes([b[0] ^ 1]))' "$1" ;;
	empty) : >"$1" ;;
	esac
}
# The pictures' readers from npm, where `make deps` installs them.
NPM_DIR=${TALLY_NPM:-${HOME:-/root}/.cache/tally-npm}
# missing REASON: a reader `make deps` installs is absent: a skip, but a
# failure under CI=true (there make test has installed it).
missing() { if [ "${CI:-}" = true ]; then fail "$*"; else skip "$*"; fi; }
have_perf() { command -v perf >/dev/null 2>&1; }
# The getpid tracepoint can be used: asked through tally, which mounts
# tracefs on a fresh machine as perf does (never skip merely because
# nobody mounted it yet).
have_tp() { "$TALLY" list syscalls:sys_enter_getpid 2>/dev/null | grep -q 'syscalls:sys_enter_getpid'; }
# perf script's call chains folded as stackcollapse-perf does: comm, then
# frames root first; a frame
# is its symbol without +0x..., "[unknown]" as is, kernel ones with _[k].
fold_perf() {
	perf script -i "$1" 2>/dev/null | awk -v RS= '
	{
		n = split($0, L, "\n"); split(L[1], h, " "); st = h[1]
		for (i = n; i >= 2; i--) {
			line = L[i]; sub(/^[ \t]+[0-9a-f]+ /, "", line)
			k = (line ~ /\(\[kernel\.kallsyms\]\)$/)
			sub(/ \([^()]*\)$/, "", line); sub(/\+0x[0-9a-f]+$/, "", line)
			st = st ";" line (k ? "_[k]" : "")
		}
		c[st]++
	}
	END { for (s in c) print s, c[s] }' | LC_ALL=C sort
}

# report_lines perf|tally ARGS...: report --stdio's lines as parity tests
# compare them: without blank and bare '#' lines, perf's tips, tally's
# closing notes (addresses without a symbol, DWARF unwinding)
report_lines() {
	local who=$1; shift
	if [ "$who" = perf ]; then
		perf report --stdio "$@" 2>/dev/null | grep -v '^# (Tip:' | grep -v '^#$' | grep -v '^$'
	else
		"$TALLY" report --stdio "$@" 2>/dev/null |
			awk '/^# (Addresses without a symbol|DWARF unwinding)/ { exit } { print }' |
			grep -v '^#$' | grep -v '^$'
	fi
}
# same_lines NAME TALLY_OUT PERF_OUT: "NAME: perf's lines", every line equal
# (the first differences shown); its status whether they were
same_lines() {
	local n
	n=$(diff "$2" "$3" | grep -c '^[<>]')
	is "$1: perf's lines" "$n" 0
	[ "$n" = 0 ] || diff "$2" "$3" | head -8 | sed 's/^/# /'
	[ "$n" = 0 ]
}
