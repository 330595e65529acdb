// SPDX-License-Identifier: MIT
/*
 * Lock contention through BPF (see lockcon.h): loads
 * bpf/lock_contention.bpf.c's skeleton sized as asked, fills its task and
 * CPU filters, and at the end walks its sums with their stacks. The sums
 * stay in the kernel while the workload runs: nothing is read meanwhile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <tally/lockcon.h>
#include "internal.h"
#include "lock_contention.skel.h"

#define MAX_STACK	128

struct stat_key {		/* the program's */
	int32_t stack_id;
	uint32_t tid;
};

struct stat_val {
	uint64_t total, max, min;
	uint32_t count, flags;
	char comm[16];
};

struct tally_lockcon {
	struct lock_contention *skel;
	int max_stack;
};

static const char *attach_why(int err)
{
	switch (err) {
	case ENOENT:
		return " (this kernel has no lock:contention_begin/end, or tracefs is not mounted)";
	case EPERM:
	case EACCES:
		return " (BPF needs root, or CAP_BPF and CAP_PERFMON)";
	default:
		return "";
	}
}

struct tally_lockcon *tally_lockcon__open(const struct tally_lockcon_opts *opts, char *why,
					  size_t len)
{
	struct tally_lockcon *c;
	int err, entries;

	if (!TALLY_OPTS_VALID(opts, tally_lockcon_opts)) {
		snprintf(why, len, "%s", strerror(EINVAL));
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	c->max_stack = TALLY_OPTS_GET(opts, max_stack, 0);
	if (c->max_stack <= 0)
		c->max_stack = 8;
	if (c->max_stack > MAX_STACK)
		c->max_stack = MAX_STACK;
	entries = TALLY_OPTS_GET(opts, map_entries, 0);
	if (entries <= 0)
		entries = 16384;
	libbpf_set_print(NULL);	/* the verifier's log is no user's business */
	c->skel = lock_contention__open();
	if (!c->skel) {
		err = errno;
		snprintf(why, len, "cannot open the BPF program: %s", strerror(err));
		goto fail;
	}
	c->skel->rodata->filtered = TALLY_OPTS_GET(opts, filtered, false);
	c->skel->rodata->by_tid = TALLY_OPTS_GET(opts, by_tid, false);
	c->skel->rodata->cpu_filtered = TALLY_OPTS_GET(opts, cpu_filtered, false);
	c->skel->rodata->per_thread = TALLY_OPTS_GET(opts, per_thread, false);
	/* perf's sizing: a stack of max_stack frames, every map of map_entries */
	if ((err = -bpf_map__set_value_size(c->skel->maps.stacks,
					    (uint32_t)c->max_stack * sizeof(uint64_t))) ||
	    (err = -bpf_map__set_max_entries(c->skel->maps.stacks, (uint32_t)entries)) ||
	    (err = -bpf_map__set_max_entries(c->skel->maps.tstamp, (uint32_t)entries)) ||
	    (err = -bpf_map__set_max_entries(c->skel->maps.lock_stat, (uint32_t)entries))) {
		snprintf(why, len, "cannot size the BPF maps: %s", strerror(err));
		goto fail;
	}
	if ((err = -lock_contention__load(c->skel))) {
		snprintf(why, len, "cannot load the BPF program: %s%s", strerror(err),
			 err == EPERM || err == EACCES ?
			 " (BPF needs root, or CAP_BPF and CAP_PERFMON)" : "");
		goto fail;
	}
	if ((err = -lock_contention__attach(c->skel))) {
		snprintf(why, len, "cannot attach the BPF program to lock:contention_begin/end: %s%s",
			 strerror(err), attach_why(err));
		goto fail;
	}
	return c;
fail:
	tally_lockcon__close(c);
	errno = err ? err : EINVAL;
	return NULL;
}

static int add_one(struct bpf_map *m, uint32_t k)
{
	uint8_t one = 1;

	if (bpf_map__update_elem(m, &k, sizeof(k), &one, sizeof(one), BPF_ANY))
		return -errno;
	return 0;
}

int tally_lockcon__add_task(struct tally_lockcon *c, pid_t pid)
{
	if (!c || pid <= 0)
		return -EINVAL;
	return add_one(c->skel->maps.tasks, (uint32_t)pid);
}

int tally_lockcon__add_cpu(struct tally_lockcon *c, int cpu)
{
	if (!c || cpu < 0)
		return -EINVAL;
	return add_one(c->skel->maps.cpus, (uint32_t)cpu);
}

void tally_lockcon__enable(struct tally_lockcon *c, bool on)
{
	if (c)
		__atomic_store_n(&c->skel->bss->enabled, on ? 1u : 0u, __ATOMIC_SEQ_CST);
}

uint64_t tally_lockcon__lost(const struct tally_lockcon *c)
{
	return c ? __atomic_load_n(&c->skel->bss->lost, __ATOMIC_RELAXED) : 0;
}

int tally_lockcon__for_each(struct tally_lockcon *c, tally_lockcon_fn cb, void *arg)
{
	struct stat_key prev, key;
	struct stat_val v;
	uint64_t ips[MAX_STACK];
	char comm[sizeof(v.comm) + 1];
	int fd, sfd, ret;
	void *at = NULL;	/* the first key: bpf_map_get_next_key(NULL) */

	if (!c || !cb)
		return -EINVAL;
	fd = bpf_map__fd(c->skel->maps.lock_stat);
	sfd = bpf_map__fd(c->skel->maps.stacks);
	while (!bpf_map_get_next_key(fd, at, &key)) {
		struct tally_lockcon_entry e = { .stack = ips };

		prev = key;
		at = &prev;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;	/* gone meanwhile */
		e.tid = (pid_t)key.tid;
		memcpy(comm, v.comm, sizeof(v.comm));
		comm[sizeof(v.comm)] = 0;
		e.comm = key.tid ? comm : NULL;
		e.flags = v.flags;
		e.count = v.count;
		e.total = v.total;
		e.max = v.max;
		e.min = v.min;
		if (key.stack_id >= 0 && !bpf_map_lookup_elem(sfd, &key.stack_id, ips))
			while (e.nr_stack < c->max_stack && ips[e.nr_stack])
				e.nr_stack++;
		if ((ret = cb(arg, &e)))
			return ret;
	}
	return errno == ENOENT ? 0 : -errno;
}

void tally_lockcon__close(struct tally_lockcon *c)
{
	if (!c)
		return;
	lock_contention__destroy(c->skel);
	free(c);
}
