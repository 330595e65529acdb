// SPDX-License-Identifier: MIT
/* A session over a perf.data file: see tally/session.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/hash.h>
#include <tally/session.h>
#include "internal.h"
#include "data_read_internal.h"
#include "resolve_internal.h"
#include "resolved_internal.h"
#include "session_internal.h"
#include "symbols_internal.h"

static int attr_of(struct tally_session *s, const struct perf_event_header *h)
{
	uint64_t id;
	int idx;

	if (s->nr_attrs == 1)
		return 0;
	/* IDENTIFIER: a sample's id right after its header, no layout walked */
	if (s->id_first && h->type == PERF_RECORD_SAMPLE && h->size >= sizeof(*h) + 8)
		memcpy(&id, h + 1, 8);
	else if (tally_record__id(h, h->size, &s->lays[0], &id))
		return 0;
	if (s->live) {
		struct tally_evsel *e = tally_evlist__find_id(s->live, id);

		for (idx = 0; e && idx < s->nr_attrs; idx++)
			if (s->evsels[idx] == e)
				return idx;
		return 0;
	}
	struct session_id_slot *slot = &s->idc[id % 64];

	if (slot->idx1 && slot->id == id)
		return slot->idx1 - 1;
	idx = tally_data_reader__attr_of_id(s->rd, id);
	idx = idx < 0 ? 0 : idx;
	*slot = (struct session_id_slot){ .id = id, .idx1 = idx + 1 };
	return idx;
}

static uint64_t name_hash(const char *p)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

uint32_t tally_session__file_rank(const struct tally_session *s, const char *path)
{
	if (!s->rank_cap || !path)
		return 0;
	for (size_t i = name_hash(path) & (s->rank_cap - 1); s->ranks[i].name;
	     i = (i + 1) & (s->rank_cap - 1))
		if (!strcmp(s->ranks[i].name, path))
			return s->ranks[i].rank;
	return 0;
}

static void rank_file(struct tally_session *s, const char *path)
{
	size_t i;

	if (!path || tally_session__file_rank(s, path))
		return;
	if ((s->nranks + 1) * 2 > s->rank_cap) {
		size_t cap = s->rank_cap ? s->rank_cap * 2 : 256;
		struct session_rank *t = calloc(cap, sizeof(*t));

		if (!t)
			return;
		for (size_t k = 0; k < s->rank_cap; k++) {
			if (!s->ranks[k].name)
				continue;
			for (i = name_hash(s->ranks[k].name) & (cap - 1); t[i].name; i = (i + 1) & (cap - 1))
				;
			t[i] = s->ranks[k];
		}
		free(s->ranks);
		s->ranks = t;
		s->rank_cap = cap;
	}
	for (i = name_hash(path) & (s->rank_cap - 1); s->ranks[i].name; i = (i + 1) & (s->rank_cap - 1))
		;
	if ((s->ranks[i].name = strdup(path)))
		s->ranks[i].rank = (uint32_t)++s->nranks;
}

/* A COMM for tid: the ":TID" name it had, if any, becomes this one. */
static void rename_default(struct tally_session *s, int32_t tid)
{
	for (size_t i = 0; i < s->nrenames; i++)
		if (s->renames[i].tid == tid && !s->renames[i].final)
			s->renames[i].final = tally_machine__comm_of(s->m, tid);
}

/* A sample, unwound, with its thread, to the caller. */
static void deliver(struct tally_session *s, const struct perf_event_header *h, int idx,
		    struct tally_sample *smp)
{
	const struct session_attr_fast *f = &s->fast[idx];
	struct tally_session_sample out;
	int rc;

	s->samples++;
	if (f->unwind)
		tally__session_unwind_user(s, smp);
	if (!s->o.sample)
		return;
	out.header = h;
	out.attr = idx;
	out.event = s->attrs[idx];
	out.sample = smp;
	out.mode = (enum tally_cpumode)(h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	out.period = f->period ? f->period : smp->period;
	out.thread.pid = (int32_t)smp->pid;
	out.thread.tid = (int32_t)smp->tid;
	out.thread.comm = s->o.no_comm ? NULL :
			  tally__session_thread_comm(s, out.thread.pid, out.thread.tid);
	/* what is resolved of it is cached for it (resolved_internal.h) while it is delivered */
	s->cur = &out;
	/* written only to stop: the reader thread reads it for every record */
	rc = s->o.sample(s, &out, s->sample_ctx);
	s->cur = NULL;
	if (rc)
		__atomic_store_n(&s->stop, rc, __ATOMIC_RELAXED);
}

/* Side-band records build the maps; samples go to the caller. */
static void process(struct tally_session *s, const struct perf_event_header *h, int idx)
{
	struct tally_record rec;

	if (h->type >= PERF_RECORD_MAX || s->stop)
		return;
	/* most samples: the short way, into their attr's own (record_fast.h) */
	if (h->type == PERF_RECORD_SAMPLE && s->fsmp[idx]) {
		if (tally__sample_fast(s->fsmp[idx], h))
			s->bad++;
		else
			deliver(s, h, idx, &s->fsmp[idx]->s);
		return;
	}
	if (tally_record__parse(h, h->size, &s->lays[idx], &rec)) {
		s->bad++;
		return;
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		deliver(s, h, idx, &rec.u.sample);
		return;
	}
	if (s->o.kernel_maps && (h->type == PERF_RECORD_KSYMBOL ||
				 ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) &&
				  (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER)))
		s->o.kernel_maps(s, h, s->o.ctx);
	if (h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_LOST_SAMPLES)
		s->maps_gen++;	/* what an address resolves to may differ from now on */
	char jit[64];		/* an anonymous map's perf name */

	switch (h->type) {
	case PERF_RECORD_MMAP: {
		struct tally_mmap_event ev = {
			.pid = (int32_t)rec.u.mmap.pid, .tid = (int32_t)rec.u.mmap.tid,
			.start = rec.u.mmap.start, .len = rec.u.mmap.len,
			.pgoff = rec.u.mmap.pgoff, .filename = rec.u.mmap.filename,
		};

		if (!(h->misc & PERF_RECORD_MISC_MMAP_DATA)) {
			tally_machine__mmap(s->m, &ev);
			rank_file(s, tally__map_name(&ev, jit, sizeof(jit)));
		}
		break;
	}
	case PERF_RECORD_MMAP2: {
		struct tally_mmap_event ev = {
			.pid = (int32_t)rec.u.mmap2.pid, .tid = (int32_t)rec.u.mmap2.tid,
			.start = rec.u.mmap2.start, .len = rec.u.mmap2.len,
			.pgoff = rec.u.mmap2.pgoff, .filename = rec.u.mmap2.filename,
			.prot = rec.u.mmap2.prot, .flags = rec.u.mmap2.flags,
			.maj = rec.u.mmap2.maj, .min = rec.u.mmap2.min,
			.ino = rec.u.mmap2.ino, .ino_generation = rec.u.mmap2.ino_generation,
			.build_id = rec.u.mmap2.has_build_id ? rec.u.mmap2.build_id : NULL,
			.build_id_size = rec.u.mmap2.has_build_id ? rec.u.mmap2.build_id_size : 0,
		};

		tally_machine__mmap(s->m, &ev);
		rank_file(s, tally__map_name(&ev, jit, sizeof(jit)));
		break;
	}
	case PERF_RECORD_COMM:
		tally_machine__comm(s->m, (int32_t)rec.u.comm.pid, (int32_t)rec.u.comm.tid,
				    rec.u.comm.comm, h->misc & PERF_RECORD_MISC_COMM_EXEC);
		if (s->nrenames)
			rename_default(s, (int32_t)rec.u.comm.tid);
		break;
	case PERF_RECORD_FORK:
		tally__machine_fork(s->m, (int32_t)rec.u.task.pid, (int32_t)rec.u.task.tid,
				    (int32_t)rec.u.task.ppid, (int32_t)rec.u.task.ptid,
				    h->misc & PERF_RECORD_MISC_FORK_EXEC);
		tally__session_ns_forget(s, (int32_t)rec.u.task.tid);
		break;
	case PERF_RECORD_CGROUP:
		tally__session_cgroup_note(s, rec.u.cgroup.id, rec.u.cgroup.path);
		break;
	case PERF_RECORD_NAMESPACES:
		tally__session_ns_note(s, (int32_t)rec.u.namespaces.tid, rec.u.namespaces.nr,
				       rec.u.namespaces.link_info);
		break;
	case PERF_RECORD_EXIT:
		tally_machine__exit(s->m, (int32_t)rec.u.task.pid, (int32_t)rec.u.task.tid);
		break;
	case PERF_RECORD_LOST:
		s->lost += rec.u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		s->lost_samples += rec.u.lost_samples.lost;
		break;
	case PERF_RECORD_KSYMBOL:
		tally__machine_ksymbol(s->m, rec.u.ksymbol.addr, rec.u.ksymbol.len, rec.u.ksymbol.name,
				       rec.u.ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER);
		break;
	}
	if (s->o.record) {
		int rc = s->o.record(s, h, &rec, s->o.ctx);

		if (rc)
			__atomic_store_n(&s->stop, rc, __ATOMIC_RELAXED);
	}
}

/*
 * Two threads when there are two CPUs: the reader walks the file, copies
 * and orders each round (on_record, flush's sort) and hands the released
 * records over a batch at a time; the main thread applies them (process:
 * decoding, maps, unwinding, the command's callback) in the same order.
 * Batches come back to the reader, which alone owns the chunks.
 */
#define PIPE_INFLIGHT 8
/*
 * and no more bytes than this once one batch is out: the records in
 * flight are resident, and --call-graph dwarf rounds of 8 KiB samples
 * made eight of them 2 MiB on a 5 MiB file. Not 512 KiB: a round of
 * 1024 memory samples with branch stacks (868 KiB) went alone, and the
 * two threads took turns.
 */
#define PIPE_BYTES (2u << 20)

struct session_batch {
	struct ordered_event *e;
	size_t n, cap, bytes;
	size_t copies;			/* records copied into the queue's chunks: 0, none to give back */
	const unsigned char *lo, *hi;	/* the bytes its records in the file lie in; lo NULL: none */
	struct session_batch *next;
};

struct session_pipeline {
	pthread_mutex_t mu;
	pthread_cond_t to_main, to_reader;
	struct session_batch *head, *tail;	/* for the main thread, in order */
	struct session_batch *done;		/* applied: their chunks can go */
	int inflight;
	size_t bytes;				/* of the records in flight */
	bool finished;
	int err;
	/*
	 * the reader's: rounds released, gathered until a batch is worth its
	 * hand-off (a line apart from head, which the main thread spins on)
	 */
	_Alignas(64) struct ordered_event *pend;
	size_t npend, cap_pend, pend_bytes, pend_copies;
	const unsigned char *pend_lo, *pend_hi;	/* tally__ordered_span of pend, kept as it grows */
	bool stream;			/* a pipe: each round at once, whatever its size */
};

/*
 * A hand-off costs the main thread a wake-up and the pages a madvise:
 * perf record -a writes a round at each wake-up, 6 records each in a
 * syscall trace (10k rounds in 7 MB), so rounds go over together up to
 * this many records or bytes (a round larger goes alone, as it came).
 * Not a pipe's: its reader may be following a recording as it is made.
 */
#define PIPE_BATCH_RECORDS 1024
/* the file's pages of applied records let go when they span this much */
#define RELEASE_SPAN (2u << 20)
#define PIPE_BATCH_BYTES (64u << 10)

/*
 * Records applied: the pages of those in the file's mapping can leave the
 * resident set. Here, behind the records applied, not behind the walk:
 * with two threads the walk runs rounds ahead, and pages it dropped came
 * back when the main thread read them (a --call-graph dwarf file stayed
 * resident whole, 8 KiB of stack a sample).
 */
static void release_applied(struct tally_session *s, const struct ordered_event *e, size_t n)
{
	const unsigned char *lo, *hi;

	if (s->rd && tally__ordered_span(e, n, &lo, &hi))
		tally__data_reader_release(s->rd, lo, hi);
}

/*
 * The reader frees what the main thread is done with; a batch's array
 * becomes the next gathering's when that has none (no malloc a batch).
 */
static void reclaim(struct tally_session *s, struct session_batch *b)
{
	struct session_pipeline *pl = s->pl;

	while (b) {
		struct session_batch *next = b->next;

		if (b->copies)	/* a file's records are where they lie: nothing to give back */
			tally__ordered_release(&s->oe, b->e, b->n);
		if (pl && !pl->pend) {
			pl->pend = b->e;
			pl->cap_pend = b->cap;
		} else {
			free(b->e);
		}
		free(b);
		b = next;
	}
}

/* The gathered records, pend, go to the main thread: the array with them. */
static int hand_off(struct tally_session *s)
{
	struct session_pipeline *pl = s->pl;
	struct session_batch *b = malloc(sizeof(*b)), *done;

	if (!b)
		return -ENOMEM;
	*b = (struct session_batch){ .e = pl->pend, .n = pl->npend, .cap = pl->cap_pend,
				     .bytes = pl->pend_bytes, .copies = pl->pend_copies,
				     .lo = pl->pend_lo, .hi = pl->pend_hi };
	pl->pend = NULL;
	pl->npend = pl->cap_pend = pl->pend_bytes = pl->pend_copies = 0;
	pl->pend_lo = pl->pend_hi = NULL;
	pthread_mutex_lock(&pl->mu);
	while ((pl->inflight >= PIPE_INFLIGHT || (pl->inflight && pl->bytes >= PIPE_BYTES)) &&
	       !pl->done)
		pthread_cond_wait(&pl->to_reader, &pl->mu);
	done = pl->done;
	pl->done = NULL;
	if (pl->tail)
		pl->tail->next = b;
	else
		__atomic_store_n(&pl->head, b, __ATOMIC_RELEASE);
	pl->tail = b;
	pl->inflight++;
	pl->bytes += b->bytes;
	pthread_cond_signal(&pl->to_main);
	pthread_mutex_unlock(&pl->mu);
	reclaim(s, done);
	return 0;
}

/* The gathered rounds to the main thread. */
static int hand_off_pending(struct tally_session *s)
{
	struct session_pipeline *pl = s->pl;
	int err;

	if (!pl->npend)
		return 0;
	err = hand_off(s);
	return err;
}

static int gather(struct tally_session *s, const struct ordered_event *e, size_t n)
{
	struct session_pipeline *pl = s->pl;

	if (pl->npend + n > pl->cap_pend) {
		size_t cap = (pl->npend + n) * 2;
		struct ordered_event *p = realloc(pl->pend, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		pl->pend = p;
		pl->cap_pend = cap;
	}
	memcpy(pl->pend + pl->npend, e, n * sizeof(*e));
	pl->npend += n;
	/* one pass: the bytes in flight and the file's span the main thread lets go */
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)e[i].h;

		pl->pend_bytes += e[i].size;
		if (e[i].c) {	/* a copy, in a chunk */
			pl->pend_copies++;
			continue;
		}
		if (!pl->pend_lo || p < pl->pend_lo)
			pl->pend_lo = p;
		if (!pl->pend_hi || p + e[i].size > pl->pend_hi)
			pl->pend_hi = p + e[i].size;
	}
	if (!pl->stream && pl->npend < PIPE_BATCH_RECORDS && pl->pend_bytes < PIPE_BATCH_BYTES)
		return 0;
	if (!hand_off_pending(s))
		return 0;
	/* refused: this round stays the queue's (the flush keeps it), the rounds before ours */
	pl->npend -= n;
	for (size_t i = 0; i < n; i++) {
		pl->pend_bytes -= e[i].size;
		pl->pend_copies -= e[i].c != NULL;
	}
	tally__ordered_span(pl->pend, pl->npend, &pl->pend_lo, &pl->pend_hi);
	return -ENOMEM;
}

/*
 * Records released by the time order: to the main thread with two, else
 * applied here, their chunks given back and their pages let go.
 */
static int apply(void *ctx, struct ordered_event *e, size_t n)
{
	struct tally_session *s = ctx;

	if (s->pl)
		return gather(s, e, n);
	for (size_t i = 0; i < n; i++)
		process(s, e[i].h, e[i].attr);
	tally__ordered_release(&s->oe, e, n);
	release_applied(s, e, n);
	return 0;
}

/* Release the queued records up to limit (all with UINT64_MAX), in time order. */
static int flush(struct tally_session *s, uint64_t limit)
{
	return tally__ordered_flush(&s->oe, limit, apply, s);
}

/* A round ended: release what is older than the previous round's newest (perf's rule). */
static int flush_round(struct tally_session *s)
{
	return tally__ordered_flush_round(&s->oe, apply, s);
}

/*
 * perf's -D (opts.raw): the record shown as read, then applied at once
 * where perf applies it at once (no time, or a file perf takes unordered),
 * else queued as any and shown where it lies in the queue.
 */
static int raw_record(struct tally_session *s, const struct perf_event_header *h, uint64_t off,
		      int idx, uint64_t t)
{
	int err;

	if (!t || t == UINT64_MAX || s->unordered) {
		s->o.raw(s, h, off, NULL, s->o.raw_ctx);
		process(s, h, idx);
		return 0;
	}
	err = tally__ordered_queue(&s->oe, t, idx, h,
				   !(s->rd && tally_data_reader__record_stays(s->rd, h)));
	if (!err)
		s->o.raw(s, h, off, s->oe.q[s->oe.nq - 1].h, s->o.raw_ctx);
	return err;
}

static int on_record(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	struct tally_session *s = ctx;
	uint64_t t = 0;

	s->records[h->type < 128 ? h->type : 127]++;
	/* perf's own records are shown as they come, before what a round releases */
	if (s->o.raw && h->type >= PERF_RECORD_MAX)
		s->o.raw(s, h, off, NULL, s->o.raw_ctx);
	if (h->type == TALLY_RECORD_FINISHED_ROUND) {
		/* a callback asked to stop: no more reading (looked at once a round) */
		if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED))
			return s->stop;
		if (s->o.round)
			s->o.round(s, s->o.ctx);
		return flush_round(s);
	}
	if (h->type >= PERF_RECORD_MAX)
		return 0;	/* perf's own header records */
	if (idx < 0)
		idx = attr_of(s, h);
	/* an event the reader does not want: not worth a copy and a place in the queue */
	if (h->type == PERF_RECORD_SAMPLE && s->fast[idx].drop) {
		uint32_t at = s->fast[idx].cpu_off;
		int32_t cpu;

		__atomic_store_n(&s->dropped, s->dropped + 1, __ATOMIC_RELAXED);
		/* its time still ends its round where perf's ends (the order of the rest) */
		if (s->time_off[idx] && h->size >= s->time_off[idx] + 8u) {
			memcpy(&t, (const unsigned char *)h + s->time_off[idx], 8);
			tally__ordered_seen(&s->oe, t);
		}
		/* its CPU, in place: a reader counting CPUs (timehist) needs no more of it */
		if (at && h->size >= at + 4u) {
			memcpy(&cpu, (const unsigned char *)h + at, 4);
			if (cpu > s->dropped_cpu_max)
				__atomic_store_n(&s->dropped_cpu_max, cpu, __ATOMIC_RELAXED);
		}
		return 0;
	}
	/* a sample's time sits at a fixed offset of its attr: read it there */
	if (h->type == PERF_RECORD_SAMPLE && s->time_off[idx] && h->size >= s->time_off[idx] + 8u)
		memcpy(&t, (const unsigned char *)h + s->time_off[idx], 8);
	else if (tally_record__time(h, h->size, &s->lays[idx], &t))
		t = 0;
	if (s->o.raw)
		return raw_record(s, h, off, idx, t);
	if (s->o.round) {	/* perf script --show-round-events: its ordering off, file order */
		process(s, h, idx);
		return 0;
	}
	/* a record in the file's mapping is used where it lies; the others are copied */
	return tally__ordered_queue(&s->oe, t, idx, h,
				    !(s->rd && tally_data_reader__record_stays(s->rd, h)));
}

/*
 * %pS fields of tracepoints (kmalloc's call_site): the kernel symbol, as
 * perf's machine__resolve_kernel_addr gives libtraceevent.
 */
static const char *trace_ksym(void *priv, uint64_t *addr)
{
	struct tally_session *s = priv;
	struct tally_addr_info ai;

	if (tally_symbols__resolve(s->syms, s->m, -1, -1, *addr, TALLY_CPUMODE_KERNEL, &ai))
		return NULL;
	*addr -= ai.sym_off;
	return ai.sym->name;
}

/* The reader's work done: ready to run. */
/* perf.data's build-id table, for tally_symbols_opts.build_id */
static int header_build_id(void *ctx, const char *path, uint8_t *id, size_t max)
{
	uint8_t got[20];
	int n = tally_data_reader__build_id(ctx, path, got);

	if (n <= 0 || (size_t)n > max)
		return 0;
	memcpy(id, got, (size_t)n);
	return n;
}

static struct tally_session *session_new(struct tally_data_reader *rd, struct tally_evlist *live,
					 const char *path, const struct tally_session_opts *opts)
{
	struct tally_session *s;
	const void *td;
	size_t tdlen;
	int err = ENOMEM;

	if (!rd && !live)
		return NULL;
	if (opts && !tally__opts_valid(opts, sizeof(*opts), opts->sz)) {
		tally_data_reader__close(rd);
		errno = opts->sz < sizeof(size_t) ? EINVAL : E2BIG;
		return NULL;
	}
	/* the reader's lines apart from the main thread's (session_internal.h) */
	if (!(s = aligned_alloc(_Alignof(struct tally_session), sizeof(*s)))) {
		tally_data_reader__close(rd);
		errno = ENOMEM;
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->dropped_cpu_max = -1;
	if (opts)
		memcpy(&s->o, opts, opts->sz < sizeof(s->o) ? opts->sz : sizeof(s->o));
	s->o.sz = sizeof(s->o);
	s->sample_ctx = s->o.ctx;
	s->path = path;
	s->rd = rd;
	tally__data_reader_caller_releases(rd);	/* release_applied, run_pipelined */
	s->live = live;
	s->nr_attrs = rd ? tally_data_reader__nr_attrs(rd) : tally_evlist__nr(live);
	s->evsels = live ? calloc((size_t)s->nr_attrs + 1, sizeof(*s->evsels)) : NULL;
	s->lays = calloc((size_t)s->nr_attrs + 1, sizeof(*s->lays));
	s->attrs = calloc((size_t)s->nr_attrs + 1, sizeof(*s->attrs));
	s->time_off = calloc((size_t)s->nr_attrs + 1, sizeof(*s->time_off));
	s->fast = calloc((size_t)s->nr_attrs + 1, sizeof(*s->fast));
	s->fsmp = calloc((size_t)s->nr_attrs + 1, sizeof(*s->fsmp));
	s->names = calloc((size_t)s->nr_attrs + 1, sizeof(*s->names));
	s->m = tally_machine__new();
	{
		/* a file's recorded build id from the header when its MMAP2 has none */
		TALLY_OPTS(tally_symbols_opts, so, .build_id = rd ? header_build_id : NULL,
			   .build_id_ctx = (void *)rd, .symfs = s->o.symfs,
			   .kallsyms = s->o.kallsyms, .no_demangle = s->o.no_demangle);

		s->syms = tally_symbols__new(&so);
	}
	if (!s->nr_attrs && rd) {
		/* a header with an empty attrs section (the reader takes it) */
		struct tally_data_file_info fi;

		tally_data_reader__file_info(rd, &fi);
		err = ENODATA;
		tally__data_open_fail(fi.data_offset, -ENODATA, "no events (no attrs) before the data");
	}
	if (!s->lays || !s->attrs || !s->time_off || !s->fast || !s->fsmp || !s->names || !s->m ||
	    !s->syms ||
	    !s->nr_attrs || (live && !s->evsels)) {
		tally_session__close(s);
		errno = err;
		return NULL;
	}
	for (int i = 0; i < s->nr_attrs; i++) {
		if (live) {
			s->evsels[i] = i ? tally_evlist__next(live, s->evsels[i - 1]) :
				       tally_evlist__first(live);
			s->attrs[i] = tally_evsel__attr(s->evsels[i]);
		} else {
			s->attrs[i] = tally_data_reader__attr(rd, i);
		}
	}
	/* kernel samples to come: kallsyms is read on the other core meanwhile */
	for (int i = 0; i < s->nr_attrs && !s->o.no_preload; i++)
		if (!s->attrs[i]->exclude_kernel) {
			tally_symbols__preload_kernel(s->syms);
			break;
		}
	/* and the files the recording noted: their symbol tables read on a helper meanwhile */
	tally__symbols_ahead_hold(s->syms, true);	/* all queued first: the largest starts */
	for (size_t i = 0; rd && !s->o.no_preload && tally_data_reader__build_id_path(rd, i); i++)
		tally_symbols__preload_file(s->syms, tally_data_reader__build_id_path(rd, i));
	tally__symbols_ahead_hold(s->syms, false);
	for (int i = 0; i < s->nr_attrs; i++) {
		const struct perf_event_attr *a = s->attrs[i];

		tally_record_layout__from_attr(&s->lays[i], a);
		/* samples without PERIOD: a freq event's count 1 each, else its
		 * fixed period (0 leaves the parsed, zeroed, field) */
		if (!(a->sample_type & PERF_SAMPLE_PERIOD))
			s->fast[i].period = a->freq ? 1 : a->sample_period;
	}
	tally_session__set_unwind(s, !s->o.no_unwind);
	s->id_first = !!(s->lays[0].sample_type & PERF_SAMPLE_IDENTIFIER);
	for (int i = 0; i < s->nr_attrs; i++) {
		if (s->lays[i].sample_type & PERF_SAMPLE_TIME)
			s->time_off[i] = (uint32_t)(sizeof(struct perf_event_header) +
				8 * __builtin_popcountll(s->lays[i].sample_type &
					(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID)));
		s->names[i] = rd ? tally_data_reader__event_name(rd, i) :
			      tally_evsel__name(s->evsels[i]);
		if (!s->names[i])
			s->names[i] = "unknown";
		/* -D (opts.raw) shows every record: none dropped unread */
		if (s->o.want && !s->o.raw)
			s->fast[i].drop = !s->o.want(s->names[i], s->attrs[i], s->o.ctx);
		if (s->lays[i].sample_type & PERF_SAMPLE_CPU)
			s->fast[i].cpu_off = (uint32_t)(sizeof(struct perf_event_header) +
				8 * __builtin_popcountll(s->lays[i].sample_type &
					(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
					 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
					 PERF_SAMPLE_STREAM_ID)));
	}
	if (rd && !tally_data_reader__feature(rd, TALLY_HEADER_TRACING_DATA, &td, &tdlen))
		s->tf = tally_trace_fmt__new(td, tdlen);
	if (s->tf)
		tally_trace_fmt__set_resolver(s->tf, trace_ksym, s);
	return s;
}

struct tally_session *tally_session__open(const char *path, const struct tally_session_opts *opts)
{
	return session_new(tally_data_reader__open(path), NULL, path, opts);
}

struct tally_session *tally_session__open_fd(int fd, const struct tally_session_opts *opts)
{
	return session_new(tally_data_reader__open_fd(fd), NULL, NULL, opts);
}

struct tally_session *tally_session__open_evlist(struct tally_evlist *l,
						 const struct tally_session_opts *opts)
{
	if (!l || !tally_evlist__nr(l) || !tally_evlist__nr_mmaps(l))
		return tally__err_ptr(EINVAL);
	return session_new(NULL, l, NULL, opts);
}

/* A ring's record: queued as a file's would be (copied: the ring's space goes back). */
static int live_record(void *ctx, const struct perf_event_header *h, int ring)
{
	return on_record(ctx, h, 0, -1);
}

int tally_session__poll(struct tally_session *s, int timeout_ms)
{
	int err;

	if (!s || !s->live)
		return tally__err(EINVAL);
	if (s->ran)
		return tally__err(EALREADY);
	err = tally_evlist__poll(s->live, timeout_ms);
	if (err < 0 && err != -EINTR)
		return err;
	err = tally_evlist__drain(s->live, live_record, NULL, s);
	if (err < 0 && !s->stop)
		return err;
	/* a pass over every ring ends a round, as perf record's FINISHED_ROUND */
	err = flush_round(s);
	if (s->stop)
		return s->stop;
	return err < 0 ? tally__err(-err) : 0;
}

int tally_session__feed(struct tally_session *s, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t off = 0;
	int err;

	if (!s || !s->live || (len && !buf))
		return tally__err(EINVAL);
	while (len - off >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(p + off);

		if (h->size < sizeof(*h) || h->size > len - off)
			return tally__err(EINVAL);
		err = on_record(s, h, 0, -1);
		if (err) {
			if (err < 0 && !s->stop)
				return err;
			break;
		}
		off += h->size;
	}
	/* the passes end a round, as in tally_session__poll */
	err = flush_round(s);
	if (s->stop)
		return s->stop;
	return err < 0 ? tally__err(-err) : 0;
}

int tally_session__flush(struct tally_session *s, uint64_t time)
{
	int err;

	if (!s || !s->live)
		return tally__err(EINVAL);
	if (s->ran)
		return tally__err(EALREADY);
	err = flush(s, time);
	if (s->stop)
		return s->stop;
	return err < 0 ? tally__err(-err) : 0;
}

static int read_all(struct tally_session *s)
{
	int err = tally_data_reader__foreach(s->rd, on_record, s);
	int ferr = flush(s, UINT64_MAX);

	return err ? err : ferr;
}

static void *reader_main(void *arg)
{
	struct tally_session *s = arg;
	int err = read_all(s);
	/* what was released before an error too */
	int perr = hand_off_pending(s);

	if (!err)
		err = perr;
	pthread_mutex_lock(&s->pl->mu);
	s->pl->err = err;
	__atomic_store_n(&s->pl->finished, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&s->pl->to_main);
	pthread_mutex_unlock(&s->pl->mu);
	return NULL;
}

/* The main thread's half: each batch applied, then given back. */
static int run_pipelined(struct tally_session *s)
{
	struct session_pipeline *pl = s->pl;
	/* the applied batches' span, let go a few MiB at a time (below) */
	const unsigned char *rel_lo = NULL, *rel_hi = NULL;
	pthread_t t;
	int err;

	if (pthread_create(&t, NULL, reader_main, s))
		return -EAGAIN;
	for (;;) {
		struct session_batch *b;

		/*
		 * A short spin before sleeping: a round is a few hundred
		 * microseconds of work, a wake-up in a VM tens of them.
		 */
		for (int spin = 0; spin < 256; spin++) {
			if (__atomic_load_n(&pl->head, __ATOMIC_ACQUIRE) ||
			    __atomic_load_n(&pl->finished, __ATOMIC_ACQUIRE))
				break;
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#elif defined(__aarch64__)
			__asm__ volatile("yield" ::: "memory");
#endif
		}
		pthread_mutex_lock(&pl->mu);
		while (!pl->head && !pl->finished)
			pthread_cond_wait(&pl->to_main, &pl->mu);
		b = pl->head;
		if (b) {
			__atomic_store_n(&pl->head, b->next, __ATOMIC_RELAXED);
			if (!b->next)
				pl->tail = NULL;
		}
		pthread_mutex_unlock(&pl->mu);
		if (!b)
			break;
		for (size_t i = 0; i < b->n; i++) {
			/* the records were written on the other core: ask for them ahead */
			if (i + 8 < b->n) {
				const char *p = (const char *)b->e[i + 8].h;
				unsigned sz = b->e[i + 8].size;

				/*
				 * its first lines (header, fixed fields, a chain's
				 * start) and its last: the fields after a branch
				 * stack (data source, weight) are read too
				 */
				for (unsigned o = 0; o < sz && o < 192; o += 64)
					__builtin_prefetch(p + o);
				if (sz > 192)
					__builtin_prefetch(p + sz - 8);
			}
			process(s, b->e[i].h, b->e[i].attr);
		}
		/*
		 * Each madvise unmaps and, with the reader on the other CPU,
		 * interrupts it to flush its TLB: a batch's 100 KiB at a time
		 * was 2,000 of them in a 250 MB file. A page of a record not yet
		 * applied that falls in the span comes back from the page cache.
		 */
		if (s->rd && b->lo) {
			if (!rel_lo || b->lo < rel_lo)
				rel_lo = b->lo;
			if (!rel_hi || b->hi > rel_hi)
				rel_hi = b->hi;
			if ((size_t)(rel_hi - rel_lo) >= RELEASE_SPAN) {
				tally__data_reader_release(s->rd, rel_lo, rel_hi);
				rel_lo = rel_hi = NULL;
			}
		}
		pthread_mutex_lock(&pl->mu);
		b->next = pl->done;
		pl->done = b;
		pl->inflight--;
		pl->bytes -= b->bytes;
		/*
		 * a reader waiting for room is woken once half of it is
		 * free, not at each batch: each wake-up was a futex call
		 * here, and the reader woken often took this CPU. At one
		 * batch left at the latest: big batches (dwarf stacks) keep
		 * the reader going while this thread has one to apply.
		 */
		if (pl->inflight <= 1 ||
		    (pl->inflight <= PIPE_INFLIGHT / 2 && pl->bytes <= PIPE_BYTES / 2))
			pthread_cond_signal(&pl->to_reader);
		pthread_mutex_unlock(&pl->mu);
	}
	pthread_join(t, NULL);
	if (rel_lo)
		tally__data_reader_release(s->rd, rel_lo, rel_hi);
	reclaim(s, pl->done);
	pl->done = NULL;
	/* rounds a failed hand-off left behind */
	tally__ordered_release(&s->oe, pl->pend, pl->npend);
	free(pl->pend);
	err = pl->err;
	return err;
}

int tally_session__run(struct tally_session *s)
{
	struct session_pipeline pl = { .mu = PTHREAD_MUTEX_INITIALIZER,
				       .to_main = PTHREAD_COND_INITIALIZER,
				       .to_reader = PTHREAD_COND_INITIALIZER };
	int err;

	if (!s)
		return tally__err(EINVAL);
	/*
	 * Once: the reader's walk is not rewound (a pipe cannot be), and the
	 * address spaces are as the end of the file left them.
	 */
	if (s->ran)
		return tally__err(EALREADY);
	s->ran = true;
	if (s->live) {
		/* the rings' last records, then everything queued */
		err = tally_evlist__drain(s->live, live_record, NULL, s);
		if (err >= 0)
			err = flush(s, UINT64_MAX);
		if (s->stop)
			return s->stop;
		return err < 0 ? tally__err(-err) : 0;
	}
	/* -D: what is read and what is applied interleave as perf prints them */
	s->unordered = s->o.raw && !tally_data_reader__is_pipe(s->rd) && !s->attrs[0]->sample_id_all;
	if (tally__two_threads() && !s->o.raw && !s->o.round) {
		pl.stream = tally_data_reader__is_pipe(s->rd);
		s->pl = &pl;
		err = run_pipelined(s);
		s->pl = NULL;
		if (err == -EAGAIN && !pl.finished)	/* no thread: read here */
			err = read_all(s);
	} else {
		err = read_all(s);
	}
	if (s->stop)
		return s->stop;
	if (!err && tally_data_reader__error(s->rd))
		err = tally_data_reader__error(s->rd)->err;
	if (err < 0)
		errno = -err;
	return err < 0 ? err : 0;
}

void tally_session__close(struct tally_session *s)
{
	if (!s)
		return;
	tally__ordered_exit(&s->oe);
	tally_unwind__free(s->uw);
	free(s->uw_ips);
	for (size_t i = 0; i < s->rank_cap; i++)
		free((char *)s->ranks[i].name);
	free(s->ranks);
	free(s->renames);
	for (int i = 0; i < 4; i++)
		if (s->res[i]) {
			tally__resolver_free(s->res[i]);
			free(s->res[i]);
		}
	if (s->dres) {
		tally__resolver_free(s->dres);
		free(s->dres);
	}
	tally_symbols__free(s->dsyms);
	tally_strpool__free(s->traces);
	tally__session_cgroups_free(s);
	free(s->lays);
	for (int i = 0; s->fsmp && i < s->nr_attrs; i++)
		free(s->fsmp[i]);
	free(s->fsmp);
	free(s->fast);
	free(s->attrs);
	free(s->evsels);
	free(s->time_off);
	free(s->names);
	tally_trace_fmt__free(s->tf);
	tally_symbols__free(s->syms);
	tally_machine__free(s->m);
	tally_data_reader__close(s->rd);
	free(s);
}

void tally_session__set_unwind(struct tally_session *s, bool on)
{
	if (!s)
		return;
	s->o.no_unwind = !on;
	for (int i = 0; i < s->nr_attrs; i++) {
		s->fast[i].unwind = on && (s->lays[i].sample_type & (PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER)) == (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
		/* the short way's sample (no stack to unwind in its layouts); none: parsed */
		if (!s->fsmp[i] && tally__sample_fast_ok(&s->lays[i]) && !s->fast[i].unwind &&
		    (s->fsmp[i] = malloc(sizeof(*s->fsmp[i]))))
			tally__sample_fast_init(s->fsmp[i], &s->lays[i]);
	}
}
