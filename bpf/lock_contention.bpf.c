// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tally lock contention -b (perf 6.1's option): on lock:contention_begin
 * a task notes when, its flags and its kernel stack, keyed by the lock; on the
 * matching lock:contention_end the wait is added to `lock_stat`, keyed by
 * that stack (or by the thread with -t). User space reads the sums once
 * the run is over (lib/sample/lockcon.c) and names the callers.
 * The same tracepoints the recording path reads, as classic tracepoint
 * programs: their stacks are the ones a perf event's callchain gets there
 * (the same caller regs), so both paths find the same callers; no BTF.
 * It returns 1: 0 would drop the hit for perf events on the tracepoint
 * (a `tally lock record` running meanwhile).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* the tracepoints' records (events/lock/contention_{begin,end}/format) */
struct begin_ctx {
	__u64 common;
	__u64 lock_addr;
	__u32 flags;
};

struct end_ctx {
	__u64 common;
	__u64 lock_addr;
	__s32 ret;
};

/*
 * A task waiting on a lock: since when, from where. Keyed by both, as the
 * file's reader follows each thread's sequence on each lock: a wait begun
 * inside another (the rwsem's wait_lock spinlock taken while waiting for
 * the rwsem) is a wait of its own.
 */
struct ts_key {
	__u64 lock;
	__u32 tid, pad;
};

struct tstamp {
	__u64 ts;
	__u32 flags;
	__s32 stack_id;
};

/* as lib/sample/lockcon.c reads them */
struct stat_key {
	__s32 stack_id;		/* < 0: none (per thread, or no stack) */
	__u32 tid;		/* per thread: the waiter, else 0 */
};

struct stat_val {
	__u64 total, max, min;
	__u32 count, flags;
	char comm[16];		/* per thread: the waiter's name at its first wait */
};

/* sizes set by user space before load (--max-stack, --map-nr-entries) */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8 * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ts_key);
	__type(value, struct tstamp);
} tstamp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct stat_key);
	__type(value, struct stat_val);
} lock_stat SEC(".maps");

/* the processes (threads with by_tid) watched, when filtered */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

const volatile __u32 filtered = 0;	/* only the tasks in `tasks` */
const volatile __u32 by_tid = 0;	/* `tasks` holds threads, not processes */
const volatile __u32 cpu_filtered = 0;	/* only on the CPUs in `cpus` */
const volatile __u32 per_thread = 0;	/* key by the waiter, no stack */
__u32 enabled = 0;			/* set by user space while watching */
__u64 lost = 0;				/* waits not counted: a map was full */

static __always_inline int wanted(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 k = by_tid ? (__u32)id : (__u32)(id >> 32), cpu;

	if (filtered && !bpf_map_lookup_elem(&tasks, &k))
		return 0;
	if (cpu_filtered) {
		cpu = bpf_get_smp_processor_id();
		if (!bpf_map_lookup_elem(&cpus, &cpu))
			return 0;
	}
	return 1;
}

SEC("tracepoint/lock/contention_begin")
int on_begin(struct begin_ctx *ctx)
{
	struct ts_key tk = { .lock = ctx->lock_addr, .tid = (__u32)bpf_get_current_pid_tgid() };
	struct tstamp n = { 0 };

	if (!enabled || !wanted())
		return 1;
	/* begun again (a mutex spinning first, then sleeping): the first begin counts */
	if (bpf_map_lookup_elem(&tstamp, &tk))
		return 1;
	n.ts = bpf_ktime_get_ns();
	n.flags = ctx->flags;
	n.stack_id = per_thread ? -1 : bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP);
	if (bpf_map_update_elem(&tstamp, &tk, &n, BPF_NOEXIST))
		__sync_fetch_and_add(&lost, 1);
	return 1;
}

SEC("tracepoint/lock/contention_end")
int on_end(struct end_ctx *ctx)
{
	struct ts_key tk = { .lock = ctx->lock_addr, .tid = (__u32)bpf_get_current_pid_tgid() };
	struct stat_key k = { 0 };
	struct stat_val *v, n = { 0 };
	struct tstamp *t;
	__u64 d;

	t = bpf_map_lookup_elem(&tstamp, &tk);
	if (!t)
		return 1;
	d = bpf_ktime_get_ns() - t->ts;
	k.stack_id = t->stack_id;
	k.tid = per_thread ? tk.tid : 0;
	v = bpf_map_lookup_elem(&lock_stat, &k);
	if (!v) {
		n.total = d;
		n.max = d;
		n.min = d;
		n.count = 1;
		n.flags = t->flags;
		if (per_thread)
			bpf_get_current_comm(n.comm, sizeof(n.comm));
		if (!bpf_map_update_elem(&lock_stat, &k, &n, BPF_NOEXIST))
			goto out;
		v = bpf_map_lookup_elem(&lock_stat, &k);	/* another CPU made it meanwhile */
		if (!v) {
			__sync_fetch_and_add(&lost, 1);
			goto out;
		}
	}
	__sync_fetch_and_add(&v->total, d);
	__sync_fetch_and_add(&v->count, 1);
	/* max and min race between CPUs only when two waits on one stack end at once */
	if (v->max < d)
		v->max = d;
	if (v->min > d)
		v->min = d;
out:
	bpf_map_delete_elem(&tstamp, &tk);
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
