// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tally trace's string reader: on raw_syscalls:sys_enter, for each string
 * argument the user space side marked in `string_args` (a bit per argument
 * of each syscall number), copy the string out of the caller's memory
 * into a ring buffer, with the thread, the syscall and the time
 * (CLOCK_MONOTONIC, the clock tally's perf events use) to find its call.
 * A tracepoint program cannot fault a page in: a string on a page the
 * caller has not touched yet cannot be read at the entry. The kernel
 * reads it during the call, so those pointers wait in `pending` and are
 * read at sys_exit.
 * Built with clang -target bpf; loaded by lib/session/syscall_strings.c.
 * It returns 1: a BPF program on a tracepoint that returns 0 drops the
 * hit for the perf events on it too (perf_trace_run_bpf_submit), and
 * those are the trace.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define STR_MAX	256
#define AT_EXIT	0x100

/* the tracepoint's record (events/raw_syscalls/sys_enter/format) */
struct sys_enter_ctx {
	__u64 common;
	long id;
	unsigned long args[6];
};

struct sys_exit_ctx {
	__u64 common;
	long id;
	long ret;
};

struct str_event {
	__u32 tid;
	__u32 nr;
	__u64 time;
	__u32 arg;		/* | AT_EXIT when read at the call's exit */
	__s32 len;		/* bpf_probe_read_user_str's: < 0 when unreadable */
	char str[STR_MAX];
};

/* the strings a thread's call could not give at its entry */
struct pending {
	__u32 nr;
	__u32 mask;
	__u64 args[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 512);
	__type(key, __u32);
	__type(value, __u32);
} string_args SEC(".maps");

/* tally's own process: its calls are not the trace's */
const volatile __u32 self_tgid = 0;

static __always_inline int put(__u32 tid, __u32 nr, __u32 arg, __u64 ptr, int last_try)
{
	struct str_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		return 0;
	e->len = bpf_probe_read_user_str(e->str, sizeof(e->str), (const void *)ptr);
	if (e->len < 0 && !last_try) {
		bpf_ringbuf_discard(e, 0);
		return -1;
	}
	e->tid = tid;
	e->nr = nr;
	e->arg = arg | (last_try ? AT_EXIT : 0);
	e->time = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct sys_enter_ctx *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 nr = (__u32)ctx->id, *mask, tid = (__u32)pid_tgid;
	struct pending p = { .nr = nr };

	if ((__u32)(pid_tgid >> 32) == self_tgid)
		return 1;
	mask = bpf_map_lookup_elem(&string_args, &nr);
	if (!mask || !*mask)
		return 1;
#pragma unroll
	for (int i = 0; i < 6; i++) {
		if (!(*mask & (1u << i)))
			continue;
		p.args[i] = ctx->args[i];
		if (put(tid, nr, i, ctx->args[i], 0))
			p.mask |= 1u << i;	/* not yet in memory: at the exit */
	}
	if (p.mask)
		bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
	return 1;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int on_sys_exit(struct sys_exit_ctx *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &tid);

	if (!p)
		return 1;
	if (p->nr == (__u32)ctx->id) {
#pragma unroll
		for (int i = 0; i < 6; i++)
			if (p->mask & (1u << i))
				put(tid, p->nr, i, p->args[i], 1);
	}
	bpf_map_delete_elem(&pending, &tid);
	return 1;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
