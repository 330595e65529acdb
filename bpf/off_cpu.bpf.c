// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tally record --off-cpu: on sched:sched_switch, a task that leaves the
 * CPU to wait (state S or D, not a preemption) notes when, its state and
 * its kernel and user stacks where it went to sleep; when it is switched
 * in again the time it waited is added to `off_cpu`, keyed by the task,
 * the stacks and the state. User space reads the sums at the end of the
 * recording (lib/sample/offcpu.c) and writes them as perf's offcpu-time
 * samples. A classic tracepoint: its record has prev_state, and the
 * stacks are the sleeping task's (it is still current there), so no BTF
 * is needed to build or load it.
 * It returns 1: 0 would drop the hit for perf events on sched_switch.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_DEPTH	127	/* the kernel's PERF_MAX_STACK_DEPTH */
#define WAIT_STATES	3	/* TASK_INTERRUPTIBLE (S) | TASK_UNINTERRUPTIBLE (D) */

/* the tracepoint's records (events/sched/<name>/format) */
struct switch_ctx {
	__u64 common;
	char prev_comm[16];
	__s32 prev_pid;
	__s32 prev_prio;
	long prev_state;
	char next_comm[16];
	__s32 next_pid;
	__s32 next_prio;
};

struct fork_ctx {
	__u64 common;
	__u32 parent_comm;
	__s32 parent_pid;
	__u32 child_comm;
	__s32 child_pid;
};

/* a task asleep: since when, where */
struct start {
	__u64 ts;
	__u32 tgid;
	__u32 state;
	__s32 kstack;
	__s32 ustack;
};

/* as lib/sample/offcpu.c reads them */
struct key {
	__u32 pid;	/* the thread */
	__u32 tgid;
	__s32 kstack;	/* < 0: none */
	__s32 ustack;
	__u32 state;	/* 1: S, 2: D */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct start);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct key);
	__type(value, __u64);
} off_cpu SEC(".maps");

/* the processes (threads with by_tid) recorded, when filtered */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tasks SEC(".maps");

const volatile __u32 filtered = 0;	/* only the tasks in `tasks` */
const volatile __u32 by_tid = 0;	/* `tasks` holds threads (-t), not processes */
const volatile __u32 follow_forks = 0;	/* a recorded process's children are too */
__u32 enabled = 0;			/* set by user space while recording */
/*
 * waits the maps refused (a bucket's lock that timed out or a map full):
 * counted, so that the recording says how many are missing
 */
__u64 lost = 0;

static __always_inline int wanted(__u32 tid, __u32 tgid)
{
	__u32 k = by_tid ? tid : tgid;

	return !filtered || bpf_map_lookup_elem(&tasks, &k);
}

SEC("tracepoint/sched/sched_switch")
int on_switch(struct switch_ctx *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 prev = (__u32)ctx->prev_pid, next = (__u32)ctx->next_pid;
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct start *s;

	if (!enabled)
		return 1;
	if (prev && (ctx->prev_state & WAIT_STATES) && wanted(prev, tgid)) {
		struct start n = {
			.ts = now,
			.tgid = tgid,
			/* D wins when both bits are set (TASK_KILLABLE is D) */
			.state = (ctx->prev_state & 2) ? 2 : 1,
			.kstack = bpf_get_stackid(ctx, &stacks, 0),
			.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK),
		};

		if (bpf_map_update_elem(&start, &prev, &n, BPF_ANY))
			__sync_fetch_and_add(&lost, 1);
	}
	s = bpf_map_lookup_elem(&start, &next);
	if (s) {
		struct key k = {
			.pid = next,
			.tgid = s->tgid,
			.kstack = s->kstack,
			.ustack = s->ustack,
			.state = s->state,
		};
		__u64 d = now - s->ts, *v;

		v = bpf_map_lookup_elem(&off_cpu, &k);
		if (v)
			__sync_fetch_and_add(v, d);
		else if (bpf_map_update_elem(&off_cpu, &k, &d, BPF_NOEXIST)) {
			if ((v = bpf_map_lookup_elem(&off_cpu, &k)))
				__sync_fetch_and_add(v, d);	/* another CPU made it meanwhile */
			else
				__sync_fetch_and_add(&lost, 1);
		}
		bpf_map_delete_elem(&start, &next);
	}
	return 1;
}

/* A recorded process's new child is recorded too (a thread already is). */
SEC("tracepoint/sched/sched_process_fork")
int on_fork(struct fork_ctx *ctx)
{
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), child = (__u32)ctx->child_pid;
	__u8 one = 1;

	/* a child the filter cannot take: its waits are lost, counted as one */
	if (follow_forks && filtered && !by_tid && bpf_map_lookup_elem(&tasks, &tgid) &&
	    bpf_map_update_elem(&tasks, &child, &one, BPF_ANY))
		__sync_fetch_and_add(&lost, 1);
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
