#!/usr/bin/env bash
# tally script on a first run does not wait for kallsyms: the symbols are
# read on a thread of their own from the session's open, and the lines go
# on being made meanwhile, each kernel frame made in its place once they
# are there (cli/script_defer.c). Here kallsyms is a FIFO under --symfs
# that is written only after the whole recording, streamed on a pipe, has
# been read: tally must have read it all by then (before, the first kernel
# frame waited for kallsyms, so the pipe's writer stayed blocked), and its
# output is the same bytes as a run that read kallsyms from a file.
. "$(dirname "$0")/lib.sh"
d=$(mktemp -d)
wp= tp=
trap 'kill $wp $tp 2>/dev/null; rm -rf "$d"' EXIT
export XDG_CACHE_HOME=$d/cache

# kernel frames in nearly every sample, a stream of some MB (perf's pipe format)
"$TALLY" record -q -F 20000 -g -o - -- dd if=/dev/zero of=/dev/null bs=1M count=16000 \
	>"$d/k.pipe" 2>/dev/null
size=$(stat -c %s "$d/k.pipe")
if [ "$size" -lt 1000000 ] || ! "$TALLY" script -i - <"$d/k.pipe" 2>/dev/null |
	grep -q '(\[kernel.kallsyms\])$'; then
	skip "no kernel call chains recorded here (${size} bytes): not root, or paranoid"
	done_testing; exit 0
fi
mkdir -p "$d/root/proc"
cp /proc/kallsyms "$d/ks"
cp "$d/ks" "$d/root/proc/kallsyms"
timeout 60 "$TALLY" script -i - --symfs "$d/root" <"$d/k.pipe" >"$d/ref.out" 2>/dev/null
rm "$d/root/proc/kallsyms"
mkfifo "$d/root/proc/kallsyms" "$d/in"
XDG_CACHE_HOME=$d/cache2 timeout 60 "$TALLY" script -i - --symfs "$d/root" <"$d/in" \
	>"$d/t.out" 2>"$d/t.err" & tp=$!
cat "$d/k.pipe" >"$d/in" & wp=$!
for _ in $(seq 100); do
	kill -0 $wp 2>/dev/null || break
	sleep 0.1
done
check "the whole stream ($size bytes) is read while kallsyms is not" \
	sh -c "! kill -0 $wp 2>/dev/null"
cat "$d/ks" >"$d/root/proc/kallsyms"
wait $wp
wait $tp; rc=$?
wp= tp=
is "tally script exits 0" "$rc" 0
check "its output is a run's with kallsyms read first ($(wc -l <"$d/ref.out") lines)" \
	cmp -s "$d/t.out" "$d/ref.out"
check "kernel frames named" grep -q ' ([[]kernel.kallsyms[]])$' "$d/t.out"
check "nothing on stderr" test ! -s "$d/t.err"
done_testing
