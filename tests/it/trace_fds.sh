#!/usr/bin/env bash
# run.sh: apart (it loads BPF programs on the syscall tracepoints: other tests' kernel call chains would pass through them)
# tally trace names the file an fd had when the call was made, followed
# through the calls (open, close, dup2 over an open fd, close-on-exec,
# threads sharing the table, -p's table read at the attach), never the
# file it names when the line is printed; an fd whose origin was not
# seen has no path. The work helper reads each file with its own count
# (hostname 11, passwd 12, group 13) and sleeps at the end with other
# files on those numbers, so a wrong name shows on its line.
. "$(dirname "$0")/lib.sh"
W=$HELPERS/work
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# the helper's reads in file $1 (counts 11 to 13): "count path" of each, path "-" when none is shown
reads() { sed -nE 's/.* read\(fd: [0-9]+(<([^>]*)>)?, buf: [^,]*, count: (1[123])\).*/\3 \2/p' "$1" |
	awk '{ print $1, (NF > 1 ? $2 : "-") }'; }
# each read names the file its count says; $2: how many reads to see
right_files() {
	local bad
	bad=$(reads "$1" | awk '!($1 == 11 && $2 == "/etc/hostname" || $1 == 12 && $2 == "/etc/passwd" ||
		$1 == 13 && $2 == "/etc/group")')
	[ -z "$bad" ] && [ "$(reads "$1" | wc -l)" = "$2" ] && return 0
	sed 's/^/# /' "$1" | grep -E 'read|open|close|dup' >&2
	return 1
}

if ! have_tp; then
	skip "no syscall tracepoints here"
	done_testing
	exit 0
fi
sc=read,openat,close,dup2
$TALLY trace -e $sc -o "$tmp/f" -- "$W" fds 2>"$tmp/err"
if grep -q 'shown as pointers' "$tmp/err"; then
	skip "no BPF here, no path strings: $(cat "$tmp/err")"
	done_testing
	exit 0
fi
check "open, read, close, open again on the same fd, dup2 over it: each read names its file" \
	right_files "$tmp/f" 4
is "close names the file it closes" "$(grep -c 'close(fd: [0-9]*</etc/hostname>)' "$tmp/f")" 2
grep -Eq 'dup2\(oldfd: [0-9]+</etc/hostname>, newfd: [0-9]+</etc/passwd>\)' "$tmp/f" &&
	ok "dup2's arguments name the files before it" || fail "dup2's arguments ($(grep dup2 "$tmp/f"))"

# -e read alone: the opens, closes and dup2 are followed though not shown
$TALLY trace -e read -o "$tmp/r" -- "$W" fds
check "-e read alone: each read names its file" right_files "$tmp/r" 4
is "-e read alone: no other line" "$(grep -vc ' read(' "$tmp/r")" 0

# --no-strings: the arguments as pointers, as perf, the fds still named
$TALLY trace --no-strings -e read,openat -o "$tmp/n" -- "$W" fds
check "--no-strings: each read names its file" right_files "$tmp/n" 4
is "--no-strings: the 4 openat's paths pointers" "$(grep -c 'openat(dfd: CWD, filename: 0x[0-9a-f]*)' "$tmp/n")" 4

# the issue's program: os.read of /etc/hostname named /etc/passwd, opened after
if command -v python3 >/dev/null; then
	$TALLY trace -e read,openat,close -o "$tmp/py" -- python3 -c \
		'import os,time;fd=os.open("/etc/hostname",0);os.read(fd,10);os.close(fd);os.open("/etc/passwd",0);time.sleep(0.3)'
	grep -Eq ' read\(fd: [0-9]+</etc/hostname>, buf: [^,]*, count: 10\)' "$tmp/py" &&
		ok "python3's read of /etc/hostname names it" ||
		fail "python3's read of /etc/hostname ($(grep 'count: 10)' "$tmp/py"))"
else
	skip "no python3"
fi

# execve: the kept fd names its file, the close-on-exec one is gone (EBADF, no
# path, though /etc/group has its number when the line prints)
$TALLY trace -e $sc -o "$tmp/x" -- "$W" fds-exec
grep -v 'count: 12)' "$tmp/x" >"$tmp/xk"
check "exec: the kept fd names its file, the new one its own" right_files "$tmp/xk" 2
grep -Eq ' read\(fd: [0-9]+, buf: [^,]*, count: 12\) += -1 EBADF' "$tmp/x" &&
	ok "exec: the close-on-exec fd, EBADF, with no path" || fail "exec: the close-on-exec fd ($(grep 'count: 12' "$tmp/x"))"

# threads share their table: main reads what its thread opened
$TALLY trace -e $sc -o "$tmp/t" -- "$W" fds-threads
check "threads: main reads the file its thread opened" right_files "$tmp/t" 2

# -p: the table read when tally attaches (the file was opened before)
"$W" fds-wait 600 &
wp=$!
sleep 0.2
timeout 20 $TALLY trace -e $sc -p $wp -o "$tmp/p"
wait $wp
check "-p: an fd opened before the attach, then reopened: each read names its file" right_files "$tmp/p" 4

# -i: no strings in a file, so no openat's path: an fd prints without one, never a guess
$TALLY record -q -e 'raw_syscalls:*' -o "$tmp/r.data" -- "$W" fds
$TALLY trace -i "$tmp/r.data" -o "$tmp/i"
is "-i: the 4 reads, none with a path" "$(reads "$tmp/i" | awk '$2 == "-"' | wc -l)" 4
done_testing
