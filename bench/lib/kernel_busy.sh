# Sourced by bench/kernel.sh and bench/kernel_ab.sh: one busy machine's
# recording of the sched, lock and kmem tracepoints, by perf.
# kernel_busy_record OUT ERR: perf record -a of SECS seconds while a pipe
# ping-pong, mmap-lock threads and a fork loop run (stopped after), into
# OUT, perf's stderr into ERR; the events in evs. Needs BUILD, HELPERS, SECS.
kernel_busy_record() {
	local out=$1 err=$2 e

	evs=()	# the -e list, for the caller to print too
	make --no-print-directory "$BUILD/helpers/pipewake" "$BUILD/helpers/mmaplock" >/dev/null
	for e in sched:sched_switch sched:sched_stat_runtime sched:sched_process_fork \
		sched:sched_wakeup_new sched:sched_migrate_task sched:sched_waking \
		lock:contention_begin lock:contention_end \
		kmem:kmalloc kmem:kfree kmem:kmem_cache_alloc kmem:kmem_cache_free; do
		# a tracepoint this kernel lacks (sched_stat_runtime in newer ones) is left out
		perf list "$e" 2>/dev/null | grep -q "${e#*:}" && evs+=(-e "$e")
	done
	# the load: one of each kind of work, stopped when the recording ends
	"$HELPERS/pipewake" pingpong 100000000 >/dev/null 2>&1 &
	"$HELPERS/mmaplock" 2 100000000 >/dev/null 2>&1 &
	(while :; do sh -c ':'; done) >/dev/null 2>&1 &
	sleep 0.5
	perf record -q -a -R -c 1 -m 1024 "${evs[@]}" -o "$out" -- sleep "$SECS" >/dev/null 2>"$err"
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
}
