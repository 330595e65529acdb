// SPDX-License-Identifier: MIT
/* The pages of a mapped file mapped ahead of its walk, on another thread. */
#include "prefault.h"

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"

/*
 * this far ahead of the walk: the resident set grows by no more (8 MiB
 * put tests/it/dwarf_memory.sh's 17 MB file 9 MB over its bound)
 */
#define LEAD (2u << 20)
/* mapped between two looks at the walk's position */
#define CHUNK (256u << 10)
/* the walk says where it is each time it has moved this far */
#define SAY (128u << 10)
/*
 * under this, a thread costs more than the faults it saves, and its lead
 * would be a large share of the resident set
 */
#define MIN_SPAN (32u << 20)

bool tally__prefault_idle = true;

struct tally__prefault {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const uint8_t *buf;
	uint64_t pos, end;	/* the thread's: mapped up to pos */
	uint64_t walk;		/* the walk's position, as last said */
	uint64_t mapped;	/* bytes mapped */
	bool waiting, stop;
	bool cheap;		/* its pages judged cheap to fault: the thread left */
	pthread_t t;
};

/*
 * A page read is a fault taken here, not in the walk. Not
 * MADV_POPULATE_READ: it holds the mmap lock across the range and
 * yields the CPU inside it, so a thread of the lowest priority there
 * stalled the whole process (a malloc's mmap waits for that lock) while
 * other programs kept both CPUs busy; a fault holds it a few pages.
 */
static void touch(const uint8_t *p, size_t n)
{
	for (size_t o = 0; o < n; o += 4096)
		(void)*(const volatile uint8_t *)(p + o);
}

/* chunks timed to judge the pages' cost, and the cost a page under which they are left to the walk */
#define PROBE_CHUNKS 8
#define CHEAP_NS_PER_PAGE 20

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *prefault_main(void *arg)
{
	struct tally__prefault *p = arg;

	/*
	 * Mostly on a CPU nothing else wants: where both the session's
	 * threads are busy (report --sort mem) this one mapping the same
	 * pages cost them more than the faults it saved (9% wall). Nice 19,
	 * not SCHED_IDLE: a fault it takes holds a lock the other threads
	 * may wait for, and SCHED_IDLE got no CPU for seconds on a machine
	 * other programs kept busy.
	 */
	if (tally__prefault_idle)
		setpriority(PRIO_PROCESS, (id_t)gettid(), 19);

	uint64_t probe_ns = 0, probe_pages = 0;
	int probes = 0;

	pthread_mutex_lock(&p->mu);
	while (!p->stop && p->pos < p->end) {
		if (p->pos >= p->walk + LEAD) {
			p->waiting = true;
			pthread_cond_wait(&p->cv, &p->mu);
			p->waiting = false;
			continue;
		}
		/*
		 * behind the walk (this thread had no CPU): the walk faults
		 * its pages itself; mapping the same ones at once only
		 * contends for their page table's lock
		 */
		if (p->walk + CHUNK / 2 > p->pos) {
			p->pos = (p->walk + CHUNK / 2) & ~(uint64_t)4095;
			if (p->pos >= p->end)
				break;
		}
		uint64_t at = p->pos, n = p->end - at < CHUNK ? p->end - at : CHUNK;
		uint64_t t0 = probes < PROBE_CHUNKS ? now_ns() : 0;

		pthread_mutex_unlock(&p->mu);
		touch(p->buf + at, n);
		if (probes < PROBE_CHUNKS) {
			probe_ns += now_ns() - t0;
			probe_pages += n / 4096;
		}
		pthread_mutex_lock(&p->mu);
		p->pos = at + n;
		p->mapped += n;
		/*
		 * the file's pages in large folios (read from disk, 2 MiB
		 * at a time): a PMD maps 512 of them at once and the walk's
		 * own faults cost next to nothing, while this thread's
		 * wake-ups still cost the other threads' CPU (lock report
		 * 0.057 s with it, 0.048 s without); small folios (a file
		 * just written) cost a fault each 16 pages, which this
		 * thread takes off the walk (sched latency 0.106 s without
		 * it, 0.082 s with it). Judged on its first chunks.
		 */
		if (++probes == PROBE_CHUNKS && probe_pages &&
		    probe_ns / probe_pages < CHEAP_NS_PER_PAGE)
			p->cheap = true;
		if (p->cheap)
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct tally__prefault *tally__prefault_start(const uint8_t *buf, uint64_t from, uint64_t end)
{
	struct tally__prefault *p;

	if (!buf || end <= from || end - from < MIN_SPAN || !tally__two_threads())
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->buf = buf;
	/* whole pages: madvise wants an aligned start (the mapping is) */
	p->pos = from & ~(uint64_t)4095;
	p->walk = from;
	p->end = end;
	if (pthread_create(&p->t, NULL, prefault_main, p)) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p);
		return NULL;
	}
	return p;
}

uint64_t tally__prefault_at(struct tally__prefault *p, uint64_t off)
{
	if (!p)
		return UINT64_MAX;
	pthread_mutex_lock(&p->mu);
	p->walk = off;
	if (p->waiting)
		pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return off + SAY;
}

uint64_t tally__prefault_stop(struct tally__prefault *p)
{
	uint64_t mapped;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->t, NULL);
	mapped = p->mapped;
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	return mapped;
}
