// SPDX-License-Identifier: MIT
/*
 * Off-CPU time through BPF (see offcpu.h): loads bpf/off_cpu.bpf.c's
 * skeleton, fills its task filter, and at the end walks its sums with
 * their stacks. The program keeps the sums in the kernel: nothing is read
 * while recording, so a switch-heavy workload costs the map updates only.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <tally/offcpu.h>
#include "internal.h"
#include "off_cpu.skel.h"

#define MAX_DEPTH	127	/* as the program's stack map */

struct off_cpu_key {		/* the program's struct key */
	uint32_t pid, tgid;
	int32_t kstack, ustack;
	uint32_t state, pad;
};

struct tally_offcpu {
	struct off_cpu *skel;
};

struct tally_offcpu *tally_offcpu__open(const struct tally_offcpu_opts *opts, char *why,
					size_t len)
{
	struct tally_offcpu *o;
	int err;

	if (!TALLY_OPTS_VALID(opts, tally_offcpu_opts)) {
		snprintf(why, len, "%s", strerror(EINVAL));
		errno = EINVAL;
		return NULL;
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	libbpf_set_print(NULL);	/* the verifier's log is no user's business */
	o->skel = off_cpu__open();
	if (!o->skel) {
		err = errno;
		snprintf(why, len, "cannot open the BPF program: %s", strerror(err));
		goto fail;
	}
	o->skel->rodata->filtered = TALLY_OPTS_GET(opts, filtered, false);
	o->skel->rodata->by_tid = TALLY_OPTS_GET(opts, by_tid, false);
	o->skel->rodata->follow_forks = TALLY_OPTS_GET(opts, follow_forks, false);
	if ((err = -off_cpu__load(o->skel))) {
		snprintf(why, len, "cannot load the BPF program: %s%s", strerror(err),
			 err == EPERM || err == EACCES ?
			 " (BPF needs root, or CAP_BPF and CAP_PERFMON)" : "");
		goto fail;
	}
	if ((err = -off_cpu__attach(o->skel))) {
		snprintf(why, len, "cannot attach the BPF program to sched:sched_switch: %s%s",
			 strerror(err), err == ENOENT ? " (no such tracepoint: is tracefs mounted?)" :
			 "");
		goto fail;
	}
	return o;
fail:
	tally_offcpu__close(o);
	errno = err ? err : EINVAL;
	return NULL;
}

int tally_offcpu__add_task(struct tally_offcpu *o, pid_t pid)
{
	uint32_t k = (uint32_t)pid;
	uint8_t one = 1;

	if (!o || pid <= 0)
		return -EINVAL;
	if (bpf_map__update_elem(o->skel->maps.tasks, &k, sizeof(k), &one, sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

void tally_offcpu__enable(struct tally_offcpu *o, bool on)
{
	if (o)
		__atomic_store_n(&o->skel->bss->enabled, on ? 1u : 0u, __ATOMIC_SEQ_CST);
}

/* A stack's frames, innermost first, up to the first zero: how many. */
static int stack_of(int fd, int32_t id, uint64_t *ips)
{
	uint32_t k = (uint32_t)id;
	int n = 0;

	if (id < 0 || bpf_map_lookup_elem(fd, &k, ips))
		return 0;
	while (n < MAX_DEPTH && ips[n])
		n++;
	return n;
}

int tally_offcpu__for_each(struct tally_offcpu *o, tally_offcpu_fn cb, void *arg)
{
	struct off_cpu_key prev, key;
	uint64_t kips[MAX_DEPTH], uips[MAX_DEPTH], ns;
	int fd, sfd, ret;
	void *at = NULL;	/* the first key: bpf_map_get_next_key(NULL) */

	if (!o || !cb)
		return -EINVAL;
	fd = bpf_map__fd(o->skel->maps.off_cpu);
	sfd = bpf_map__fd(o->skel->maps.stacks);
	while (!bpf_map_get_next_key(fd, at, &key)) {
		struct tally_offcpu_entry e = {
			.pid = (pid_t)key.tgid,
			.tid = (pid_t)key.pid,
			.state = key.state,
			.kstack = kips,
			.ustack = uips,
		};

		prev = key;
		at = &prev;
		if (bpf_map_lookup_elem(fd, &key, &ns))
			continue;	/* gone meanwhile */
		e.ns = ns;
		e.nr_kstack = stack_of(sfd, key.kstack, kips);
		e.nr_ustack = stack_of(sfd, key.ustack, uips);
		if ((ret = cb(arg, &e)))
			return ret;
	}
	return errno == ENOENT ? 0 : -errno;
}

uint64_t tally_offcpu__lost(const struct tally_offcpu *o)
{
	return o ? __atomic_load_n(&o->skel->bss->lost, __ATOMIC_SEQ_CST) : 0;
}

void tally_offcpu__close(struct tally_offcpu *o)
{
	if (!o)
		return;
	off_cpu__destroy(o->skel);
	free(o);
}
