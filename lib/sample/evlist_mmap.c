// SPDX-License-Identifier: MIT
/*
 * Rings on an event list (as libperf's perf_evlist__mmap): one ring per
 * CPU when the events are per CPU, one per thread when they follow a
 * thread on any CPU. The first fd on a CPU (or thread) gets the mapping;
 * every other event there writes into it through PERF_EVENT_IOC_SET_OUTPUT,
 * so one reader sees them all in the order the kernel wrote them. One
 * epoll set covers every ring. The memory ordering of reading a ring is
 * lib/mmap.c's alone.
 */
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <tally/mmap.h>
#include <tally/sys.h>
#include "internal.h"
#include "evsel_internal.h"

struct tally_ring {
	struct tally_mmap *map;
	int cpu;	/* -1: a per-thread ring */
	pid_t tid;	/* -1: a per-CPU ring */
};

#define DEFAULT_PAGES	128	/* 512 KiB with 4 KiB pages: perf record's -m default */

void tally__evlist_munmap(struct tally_evlist *l)
{
	for (int i = 0; i < l->nr_rings; i++)
		tally_mmap__free(l->rings[i].map);
	free(l->rings);
	l->rings = NULL;
	l->nr_rings = 0;
	l->nr_polled = 0;
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
}

void tally_evlist__munmap(struct tally_evlist *l)
{
	if (l)
		tally__evlist_munmap(l);
}

static int find_ring(const struct tally_evlist *l, int cpu, pid_t tid)
{
	for (int i = 0; i < l->nr_rings; i++)
		if (cpu >= 0 ? l->rings[i].cpu == cpu : l->rings[i].tid == tid)
			return i;
	return -1;
}

static int add_ring(struct tally_evlist *l, int fd, size_t pages, bool overwrite, int cpu,
		    pid_t tid)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct tally_ring *nr;
	struct tally_mmap *m;

	nr = tally__reallocarray(l->rings, (size_t)l->nr_rings + 1, sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	l->rings = nr;
	m = overwrite ? tally_mmap__new_overwrite(fd, pages) : tally_mmap__new(fd, pages);
	if (!m)
		return -errno;
	ev.data.u64 = (uint64_t)fd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		tally_mmap__free(m);
		return err;
	}
	l->rings[l->nr_rings++] = (struct tally_ring){ .map = m, .cpu = cpu, .tid = tid };
	return 0;
}

int tally_evlist__mmap(struct tally_evlist *l, const struct tally_evlist_mmap_opts *opts)
{
	size_t pages = TALLY_OPTS_GET(opts, pages, 0);
	bool overwrite = TALLY_OPTS_GET(opts, overwrite, false);
	int err = 0;

	if (!l || !TALLY_OPTS_VALID(opts, tally_evlist_mmap_opts))
		return tally__err(EINVAL);
	if (!pages)
		pages = DEFAULT_PAGES;
	if (pages & (pages - 1))
		return tally__err(EINVAL);
	if (l->nr_rings)
		return tally__err(EBUSY);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	for (int i = 0; i < l->nr && !err; i++) {
		struct tally_evsel *e = l->ev[i];

		if (!e->opened || !e->fds)
			continue;
		for (int c = 0; c < e->nr_cpus && !err; c++) {
			int cpu = tally_cpu_map__cpu(e->cpus, c).cpu;

			for (int t = 0; t < e->nr_threads && !err; t++) {
				int fd = e->fds[EVSEL_SLOT(e, c, t)];
				pid_t tid = cpu >= 0 ? -1 : tally_thread_map__pid(e->threads, t);
				int r;

				if (fd < 0)
					continue;
				r = find_ring(l, cpu, tid);
				if (r < 0) {
					err = add_ring(l, fd, pages, overwrite, cpu, tid);
				} else {
					/*
					 * Polled too (as libperf does): it wakes on the
					 * shared ring, and its own POLLHUP (its task
					 * exited) is told apart from the others'.
					 */
					struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)fd };

					err = tally_sys_set_output(fd, tally_mmap__fd(l->rings[r].map));
					if (!err && epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev))
						err = -errno;
				}
				if (!err)
					l->nr_polled++;
			}
		}
	}
	if (!err && !l->nr_rings)
		err = -ENOENT;	/* nothing opened */
	if (err) {
		pr_debug("tally: evlist mmap: %s\n", strerror(-err));
		tally__evlist_munmap(l);
		return tally__err(-err);
	}
	return 0;
}

int tally_evlist__nr_mmaps(const struct tally_evlist *l)
{
	return l ? l->nr_rings : 0;
}

struct tally_mmap *tally_evlist__mmap_at(const struct tally_evlist *l, int idx, int *cpu,
					 pid_t *tid)
{
	if (!l || idx < 0 || idx >= l->nr_rings)
		return tally__err_ptr(EINVAL);
	if (cpu)
		*cpu = l->rings[idx].cpu;
	if (tid)
		*tid = l->rings[idx].tid;
	return l->rings[idx].map;
}

int tally_evlist__pollfd(const struct tally_evlist *l)
{
	if (!l || l->epfd < 0)
		return tally__err(EINVAL);
	return l->epfd;
}

int tally_evlist__poll(struct tally_evlist *l, int timeout_ms)
{
	struct epoll_event evs[16];
	int n;

	if (!l || l->epfd < 0)
		return tally__err(EINVAL);
	n = epoll_wait(l->epfd, evs, 16, timeout_ms);
	return n < 0 ? -errno : n;
}

int tally_evlist__prune_hup(struct tally_evlist *l)
{
	struct epoll_event evs[64];
	int n;

	if (!l || l->epfd < 0)
		return tally__err(EINVAL);
	do {
		n = epoll_wait(l->epfd, evs, 64, 0);
		for (int i = 0; i < n; i++) {
			if (!(evs[i].events & (EPOLLHUP | EPOLLERR)))
				continue;
			/* its data stays in the ring: every drain walks every ring */
			if (!epoll_ctl(l->epfd, EPOLL_CTL_DEL, (int)evs[i].data.u64, NULL))
				l->nr_polled--;
		}
	} while (n == 64);
	return n < 0 ? -errno : l->nr_polled;
}

int tally_evlist__drain(struct tally_evlist *l, tally_record_fn fn,
			tally_ring_out_fn out, void *ctx)
{
	int total = 0;

	if (!l)
		return tally__err(EINVAL);
	for (int r = 0; r < l->nr_rings; r++) {
		struct tally_mmap *m = l->rings[r].map;
		const struct perf_event_header *ev;
		int err = 0;

		if (tally_mmap__read_init(m))
			continue;	/* empty (or corrupt: already said) */
		while ((ev = tally_mmap__read_event(m))) {
			total++;
			if (fn && (err = fn(ctx, ev, r)))
				break;
		}
		if (!err && out) {
			struct iovec iov[2];
			int n = tally_mmap__read_iov(m, iov);

			if (n > 0)
				err = out(ctx, iov, n, r);
		}
		if (err) {
			/*
			 * Not given back: the records stay in the ring for a
			 * later pass rather than being lost.
			 */
			return err < 0 ? err : -ECANCELED;
		}
		tally_mmap__read_done(m);
	}
	return total;
}

int tally_evlist__pause(struct tally_evlist *l, bool pause)
{
	int first = 0;

	if (!l)
		return tally__err(EINVAL);
	for (int i = 0; i < l->nr_rings; i++) {
		int err = tally_sys_pause_output(tally_mmap__fd(l->rings[i].map), pause);

		if (err && !first)
			first = err;
	}
	return first;
}

uint64_t tally_evlist__lost(const struct tally_evlist *l)
{
	uint64_t n = 0;

	for (int i = 0; l && i < l->nr_rings; i++)
		n += tally_mmap__lost(l->rings[i].map);
	return n;
}
