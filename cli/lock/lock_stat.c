// SPDX-License-Identifier: MIT
/*
 * tally lock report and contention: the file's lock tracepoints in time
 * order (the library's session), each thread's sequence on each lock
 * followed as perf 6.1's builtin-lock does (contention_begin, then _end:
 * one wait; lockdep's acquire, contended, acquired, release where the
 * kernel has them), counted per lock address, per caller (contention) or
 * per thread (-t), and printed in perf's layout and order.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "lock_cmd.h"
#include "read_file.h"

#define GOLDEN_64	0x61C8864680B583EBull	/* the kernel's hash_64 */

enum lk_kind { LK_OTHER, LK_ACQUIRE, LK_ACQUIRED, LK_CONTENDED, LK_RELEASE, LK_BEGIN, LK_END };
enum aggr { AGGR_ADDR, AGGR_TASK, AGGR_CALLER };
enum seq_state { SEQ_UNINIT, SEQ_RELEASED, SEQ_ACQUIRING, SEQ_ACQUIRED, SEQ_CONTENDED,
		 SEQ_READ_ACQUIRED };

/* A thread's sequence on one lock (perf's lock_seq_stat), or (addr ~0) that the thread has one. */
struct seq {
	int32_t tid;
	uint64_t addr;
	enum seq_state state;
	int read_count;
	uint64_t prev_time;
	bool used;
};

struct comm {
	int32_t tid;
	char *name;
};

struct lk {
	const struct lock_opts *o;
	const char *cmd, *path;
	struct tally_session *s;
	enum lk_kind *kinds;
	int nr_attrs;
	enum aggr aggr;
	bool contention;
	struct lock_stats stats;
	struct seq *seqs;
	size_t seq_cap, nr_seqs;
	struct comm *comms;		/* what COMM records named, last first found */
	size_t nr_comms, comm_cap;
	int bad_hist[BROKEN_MAX];
	int bad_fields;
	bool no_mem;
	struct lock_callers callers;
	struct tally_tp_reader *fields;	/* the lock fields perf reads */
};

static enum lk_kind kind_of(const char *name)
{
	static const struct { const char *name; enum lk_kind k; } names[] = {
		{ "lock:lock_acquire", LK_ACQUIRE }, { "lock:lock_acquired", LK_ACQUIRED },
		{ "lock:lock_contended", LK_CONTENDED }, { "lock:lock_release", LK_RELEASE },
		{ "lock:contention_begin", LK_BEGIN }, { "lock:contention_end", LK_END },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && !strcmp(name, names[i].name))
			return names[i].k;
	return LK_OTHER;
}

/* The sequence of tid on addr (made, uninitialized, when none); NULL without memory. */
static size_t seq_slot(int32_t tid, uint64_t addr, size_t cap)
{
	return (size_t)((((uint64_t)(uint32_t)tid << 32) ^ addr) * GOLDEN_64 >> 20) & (cap - 1);
}

static struct seq *seq_find(struct lk *l, int32_t tid, uint64_t addr)
{
	if (!l->seq_cap)
		return NULL;
	for (size_t i = seq_slot(tid, addr, l->seq_cap);; i = (i + 1) & (l->seq_cap - 1)) {
		struct seq *q = &l->seqs[i];

		if (!q->used)
			return NULL;
		if (q->tid == tid && q->addr == addr)
			return q;
	}
}

static struct seq *seq_get(struct lk *l, int32_t tid, uint64_t addr)
{
	struct seq *q = seq_find(l, tid, addr);

	if (q)
		return q;
	if ((l->nr_seqs + 1) * 2 > l->seq_cap) {
		size_t cap = l->seq_cap ? l->seq_cap * 2 : 1024;
		struct seq *n = calloc(cap, sizeof(*n));

		if (!n) {
			l->no_mem = true;
			return NULL;
		}
		for (size_t i = 0; i < l->seq_cap; i++) {
			size_t j;

			if (!l->seqs[i].used)
				continue;
			for (j = seq_slot(l->seqs[i].tid, l->seqs[i].addr, cap); n[j].used;
			     j = (j + 1) & (cap - 1))
				;
			n[j] = l->seqs[i];
		}
		free(l->seqs);
		l->seqs = n;
		l->seq_cap = cap;
	}
	for (size_t i = seq_slot(tid, addr, l->seq_cap);; i = (i + 1) & (l->seq_cap - 1)) {
		if (l->seqs[i].used)
			continue;
		l->seqs[i] = (struct seq){ .tid = tid, .addr = addr, .used = true };
		l->nr_seqs++;
		return &l->seqs[i];
	}
}

/* perf frees a broken sequence: the next event on that lock starts a new one. */
static void seq_reset(struct seq *q)
{
	q->state = SEQ_UNINIT;
	q->read_count = 0;
	q->prev_time = 0;
}

#define THREAD_MARK UINT64_MAX	/* a seq keyed so says the thread has stats (perf's thread_stat) */

static bool thread_known(struct lk *l, int32_t tid)
{
	return seq_find(l, tid, THREAD_MARK) != NULL;
}

/*
 * The sample's frames, leaf first, as perf resolves its chain for lock
 * contention: at most max_stack of them. perf's lock command reads no
 * MMAP2 record, so only kernel frames have names. A context marker perf
 * does not know among them (a misread user stack) makes perf drop the
 * chain: -1 then (its key is -1, its caller "Unknown").
 */
static int frames(struct lk *l, const struct tally_session_sample *smp, struct tally_frame *fr)
{
	const struct tally_sample *sm = smp->sample;
	struct tally_sample head = *sm;
	struct tally_session_sample at = *smp;
	int max = l->o->max_stack > 0 ? l->o->max_stack : 8, got = 0;
	uint64_t i;

	if (max > 128)
		max = 128;
	for (i = 0; i < sm->callchain.nr && got < max; i++) {
		uint64_t ip = sm->callchain.ips[i];

		if (ip < PERF_CONTEXT_MAX)
			got++;
		else if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
			 ip != PERF_CONTEXT_HV && ip != TALLY_CONTEXT_UNWOUND)
			return -1;
	}
	if (!got)
		return 0;	/* no chain: perf has no frame (the session would give the ip) */
	head.callchain.nr = i;	/* the part perf reads: past it, what is corrupt is not seen */
	at.sample = &head;
	return tally_session__frames(l->s, &at, fr, max);
}

/* The kernel's symbol at ip, "name+0xoff" (perf's machine__find_kernel_symbol); "" when none. */
static void kernel_name(struct lk *l, const struct tally_session_sample *smp, uint64_t ip,
			char *buf, size_t len)
{
	struct tally_sample sm = *smp->sample;
	struct tally_session_sample at = *smp;
	struct tally_frame f;

	sm.ip = ip;
	sm.callchain.nr = 0;
	at.sample = &sm;
	at.mode = TALLY_CPUMODE_KERNEL;
	if (tally_session__resolve(l->s, &at, &f) || !lock_frame_name(&f, buf, len))
		buf[0] = 0;
}

/*
 * -v: the first sample's stack (perf's get_callstack): the chain's
 * first max_stack addresses, markers left out, each named as a kernel
 * symbol, for contention's lines under the row.
 */
static void keep_stack(struct lk *l, struct lock_stat *st, const struct tally_session_sample *smp)
{
	const struct tally_sample *sm = smp->sample;
	int max = l->o->max_stack > 0 ? l->o->max_stack : 8;

	if (!(st->stack = calloc((size_t)max, sizeof(*st->stack))) ||
	    !(st->stack_ip = calloc((size_t)max, sizeof(*st->stack_ip)))) {
		free(st->stack);
		st->stack = NULL;
		l->no_mem = true;
		return;
	}
	for (uint64_t i = 0; i < sm->callchain.nr && st->nr_stack < max; i++) {
		uint64_t ip = sm->callchain.ips[i];
		char buf[256];

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		kernel_name(l, smp, ip, buf, sizeof(buf));
		st->stack_ip[st->nr_stack] = ip;
		if (!(st->stack[st->nr_stack] = strdup(buf))) {
			l->no_mem = true;
			return;
		}
		st->nr_stack++;
	}
}

static void mark_broken(struct lk *l, struct lock_stat *st, enum lock_broken b)
{
	if (!st->broken) {
		st->broken = true;
		l->bad_hist[b]++;
	}
}

/* The fields the lock tracepoints carry; false when the sample lacks one its kind needs. */
struct lk_ev {
	uint64_t addr;
	unsigned flags;
	char name[128];
};

/* The fields perf reads, in the reader's order (bit i of its mask: names[i]). */
enum { F_LOCK_ADDR, F_LOCKDEP_ADDR, F_FLAGS, F_NAME, F_NR };
static const char *const field_names[F_NR] = { "lock_addr", "lockdep_addr", "flags", "name" };

static bool decode(struct lk *l, enum lk_kind k, const struct tally_sample *sm, struct lk_ev *ev)
{
	struct tally_tp_val v[F_NR];
	int addr = k >= LK_BEGIN ? F_LOCK_ADDR : F_LOCKDEP_ADDR;
	int got;

	if (!sm->raw.data)
		return false;
	got = tally_tp_reader__read(l->fields, sm->raw.data, sm->raw.size, v);
	if (got < 0 || !(got & (1 << addr)))
		return false;
	ev->addr = v[addr].val;
	ev->flags = (unsigned)v[F_FLAGS].val;
	tally_tp_val__str(&v[F_NAME], ev->name, sizeof(ev->name));
	return true;
}

/* A contended wait of term ns, ended: the lock's total, min and max. */
static void wait_add(struct lock_stat *st, uint64_t term)
{
	st->total += term;
	if (term < st->min)
		st->min = term;
	if (st->max < term)
		st->max = term;
}

/* lockdep's events (CONFIG_LOCKDEP, CONFIG_LOCK_STAT): perf's report_lock_*_event */
static int lockdep_event(struct lk *l, enum lk_kind k, const struct tally_sample *sm,
			 const struct lk_ev *ev)
{
	uint64_t key = l->aggr == AGGR_TASK ? (uint64_t)sm->tid : ev->addr;
	struct lock_stat *st = lock_stats_findnew(&l->stats, key, ev->name, 0);
	struct seq *q;

	if (!st || !seq_get(l, (int32_t)sm->tid, THREAD_MARK) ||
	    !(q = seq_get(l, (int32_t)sm->tid, ev->addr)))
		return -1;
	switch (k) {
	case LK_ACQUIRE:
		switch (q->state) {
		case SEQ_UNINIT:
		case SEQ_RELEASED:
			if (!ev->flags) {
				q->state = SEQ_ACQUIRING;
			} else {
				if (ev->flags & 1)
					st->nr_trylock++;
				if (ev->flags & 2)
					st->nr_readlock++;
				q->state = SEQ_READ_ACQUIRED;
				q->read_count = 1;
				st->nr_acquired++;
			}
			break;
		case SEQ_READ_ACQUIRED:
			if (ev->flags & 2) {
				q->read_count++;
				st->nr_acquired++;
				return 0;
			}
			/* fallthrough */
		default:
			mark_broken(l, st, BROKEN_ACQUIRE);
			seq_reset(q);
			return 0;
		}
		st->nr_acquire++;
		q->prev_time = sm->time;
		return 0;
	case LK_ACQUIRED:
		switch (q->state) {
		case SEQ_UNINIT:
			return 0;
		case SEQ_ACQUIRING:
			break;
		case SEQ_CONTENDED:
			wait_add(st, sm->time - q->prev_time);
			break;
		default:
			mark_broken(l, st, BROKEN_ACQUIRED);
			seq_reset(q);
			return 0;
		}
		q->state = SEQ_ACQUIRED;
		st->nr_acquired++;
		st->avg = st->nr_contended ? st->total / st->nr_contended : 0;
		q->prev_time = sm->time;
		return 0;
	case LK_CONTENDED:
		switch (q->state) {
		case SEQ_UNINIT:
			return 0;
		case SEQ_ACQUIRING:
			break;
		default:
			mark_broken(l, st, BROKEN_CONTENDED);
			seq_reset(q);
			return 0;
		}
		q->state = SEQ_CONTENDED;
		st->nr_contended++;
		st->avg = st->total / st->nr_contended;
		q->prev_time = sm->time;
		return 0;
	default:	/* LK_RELEASE */
		switch (q->state) {
		case SEQ_UNINIT:
			return 0;
		case SEQ_ACQUIRED:
			break;
		case SEQ_READ_ACQUIRED:
			if (--q->read_count > 0) {
				st->nr_release++;
				return 0;
			}
			break;
		default:
			mark_broken(l, st, BROKEN_RELEASE);
			seq_reset(q);
			return 0;
		}
		st->nr_release++;
		seq_reset(q);
		return 0;
	}
}

/* contention_begin and _end: perf's report_lock_contention_{begin,end}_event */
static int contention_event(struct lk *l, enum lk_kind k, const struct tally_session_sample *smp,
			    const struct lk_ev *ev)
{
	const struct tally_sample *sm = smp->sample;
	struct tally_frame fr[128];
	int n = 0;
	uint64_t key;
	struct lock_stat *st;
	struct seq *q;

	if (l->aggr != AGGR_TASK)
		n = frames(l, smp, fr);
	key = l->aggr == AGGR_ADDR ? ev->addr : l->aggr == AGGR_TASK ? (uint64_t)sm->tid
			: n < 0 ? UINT64_MAX : lock_callchain_id(&l->callers, fr, n);	/* perf's -1: a dropped chain */
	st = lock_stats_find(&l->stats, key);
	if (k == LK_BEGIN) {
		if (!st) {
			char buf[256];

			/* per thread, the name is the thread's */
			if (l->aggr == AGGR_TASK || !lock_caller(&l->callers, fr, n, buf, sizeof(buf)))
				strcpy(buf, "Unknown");
			if (!(st = lock_stats_findnew(&l->stats, key, buf, ev->flags)))
				return -1;
			if (l->aggr == AGGR_CALLER && l->o->verbose)
				keep_stack(l, st, smp);
		}
		if (!seq_get(l, (int32_t)sm->tid, THREAD_MARK) ||
		    !(q = seq_get(l, (int32_t)sm->tid, ev->addr)))
			return -1;
		switch (q->state) {
		case SEQ_UNINIT:
		case SEQ_ACQUIRED:
			break;
		case SEQ_CONTENDED:
			return 0;	/* nested (a mutex spinning first): the first begin counts */
		default:
			mark_broken(l, st, BROKEN_CONTENDED);
			seq_reset(q);
			return 0;
		}
		q->state = SEQ_CONTENDED;
		q->prev_time = sm->time;
		st->nr_contended++;
		return 0;
	}
	if (!st || !thread_known(l, (int32_t)sm->tid))
		return 0;
	if (!(q = seq_get(l, (int32_t)sm->tid, ev->addr)))
		return -1;
	switch (q->state) {
	case SEQ_UNINIT:
		return 0;
	case SEQ_CONTENDED:
		wait_add(st, sm->time - q->prev_time);
		break;
	default:
		mark_broken(l, st, BROKEN_ACQUIRED);
		seq_reset(q);
		return 0;
	}
	q->state = SEQ_ACQUIRED;
	st->nr_acquired++;
	st->avg = st->total / st->nr_acquired;
	return 0;
}

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct lk *l = ctx;
	enum lk_kind k = smp->attr >= 0 && smp->attr < l->nr_attrs ? l->kinds[smp->attr] : LK_OTHER;
	struct lk_ev ev = { .addr = 0 };

	(void)s;
	/* contention reads only contention_begin and _end; report reads them all */
	if (k == LK_OTHER || (l->contention && k < LK_BEGIN))
		return 0;
	if (!decode(l, k, smp->sample, &ev)) {
		l->bad_fields++;
		return 0;
	}
	if ((k >= LK_BEGIN ? contention_event(l, k, smp, &ev)
			   : lockdep_event(l, k, smp->sample, &ev)) < 0)
		return -1;	/* out of memory */
	return 0;
}

/* perf's lock command keeps thread names from COMM records only (no FORK: ":TID" till one). */
static int on_record(struct tally_session *s, const struct perf_event_header *h,
		     const struct tally_record *rec, void *ctx)
{
	struct lk *l = ctx;
	char *name;

	(void)s;
	if (h->type != PERF_RECORD_COMM || !l->o->threads)
		return 0;
	if (!(name = strdup(rec->u.comm.comm)))
		return -1;
	for (size_t i = 0; i < l->nr_comms; i++) {
		if (l->comms[i].tid == (int32_t)rec->u.comm.tid) {
			free(l->comms[i].name);
			l->comms[i].name = name;
			return 0;
		}
	}
	if (l->nr_comms == l->comm_cap) {
		size_t cap = l->comm_cap ? l->comm_cap * 2 : 64;
		struct comm *c = realloc(l->comms, cap * sizeof(*c));

		if (!c) {
			free(name);
			return -1;
		}
		l->comms = c;
		l->comm_cap = cap;
	}
	l->comms[l->nr_comms++] = (struct comm){ .tid = (int32_t)rec->u.comm.tid, .name = name };
	return 0;
}

static const char *comm_of(void *ctx, int32_t tid)
{
	struct lk *l = ctx;
	static char buf[24];

	for (size_t i = 0; i < l->nr_comms; i++)
		if (l->comms[i].tid == tid)
			return l->comms[i].name;
	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	return buf;
}

static void lk_free(struct lk *l)
{
	lock_stats_free(&l->stats);
	for (size_t i = 0; i < l->nr_comms; i++)
		free(l->comms[i].name);
	free(l->comms);
	free(l->seqs);
	free(l->kinds);
	tally_tp_reader__free(l->fields);
	if (l->s)
		tally_session__close(l->s);
	free(l);
}

/* The events on_sample reads: the session drops the others' samples unqueued. */
static bool want_event(const char *name, const struct perf_event_attr *attr, void *ctx)
{
	const struct lk *l = ctx;
	enum lk_kind k = kind_of(name);

	(void)attr;
	return k != LK_OTHER && !(l->contention && k < LK_BEGIN);
}

/* What the file has: 1 some contention_begin, 2 lockdep's acquire, 0 neither. */
static int open_file(struct lk *l, int *ret)
{
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .record = on_record, .ctx = l,
		   .no_comm = true, .no_unwind = true, .no_inline = true, .want = want_event);
	int has = 0;

	l->s = cli_session_open(l->cmd, l->path, &so, ret);
	if (!l->s)
		return -1;
	l->nr_attrs = tally_session__nr_events(l->s);
	if (!(l->kinds = calloc(l->nr_attrs > 0 ? (size_t)l->nr_attrs : 1, sizeof(*l->kinds)))) {
		*ret = 1;
		return -1;
	}
	for (int i = 0; i < l->nr_attrs; i++) {
		l->kinds[i] = kind_of(tally_session__event_name(l->s, i));
		if (l->kinds[i] == LK_BEGIN)
			has |= 1;
		else if (l->kinds[i] == LK_ACQUIRE)
			has |= 2;
	}
	return has;
}

/* Where the file's feature sections end (perf's table after the data: offset, size each). */
static uint64_t features_end(const char *path, const struct tally_data_file_info *fi)
{
	uint64_t end = fi->feat_offset, sec[2];
	int n = 0, fd;

	for (int i = 0; i < 4; i++)
		n += __builtin_popcountll(fi->features[i]);
	end += (uint64_t)n * sizeof(sec);
	if (end > fi->file_size || (fd = open(path, O_RDONLY)) < 0)
		return end;
	for (int i = 0; i < n; i++) {
		if (pread(fd, sec, sizeof(sec), (off_t)(fi->feat_offset + (uint64_t)i * sizeof(sec))) !=
		    (ssize_t)sizeof(sec))
			break;
		if (sec[0] + sec[1] > end && sec[0] + sec[1] >= sec[0])
			end = sec[0] + sec[1];
	}
	close(fd);
	return end;
}

/*
 * A file cut short loses what perf.data keeps after the samples: the
 * event names and the tracepoint formats. Said so, rather than that the
 * events are missing; true when it was.
 */
static bool truncated(struct lk *l)
{
	struct tally_data_file_info fi;
	struct tally_data_reader *rd = tally_session__reader(l->s);
	uint64_t end;

	if (!rd || tally_data_reader__is_pipe(rd) || tally_data_reader__file_info(rd, &fi))
		return false;
	end = fi.data_offset + fi.data_size;
	if (end <= fi.file_size && (end = features_end(l->path, &fi)) <= fi.file_size)
		return false;
	fprintf(stderr, "tally %s: %s: the file is truncated: its %s end at offset %#llx, "
		"the file at %#llx (the event names and tracepoint formats after them are lost)\n",
		l->cmd, l->path, end == fi.data_offset + fi.data_size ? "samples" : "feature sections",
		(unsigned long long)end, (unsigned long long)fi.file_size);
	return true;
}

static int run(const struct lock_opts *o, bool contention)
{
	struct lk *l = calloc(1, sizeof(*l));
	struct lock_table t = { .o = o, .contention = contention, .comm = comm_of };
	struct lock_stat **rows = NULL;
	int ret = 0, has;
	size_t n = 0;

	if (!l)
		return 1;
	l->o = o;
	l->callers.o = o;
	l->contention = contention;
	l->cmd = contention ? "lock contention" : "lock report";
	l->path = o->input ? o->input : "perf.data";
	has = open_file(l, &ret);
	if (has < 0)
		goto out;
	if (!(contention ? has & 1 : has) && truncated(l)) {
		ret = 1;
		goto out;
	}
	if (!(contention ? has & 1 : has)) {
		/* perf: "lock contention evsel not found" (report prints an empty table) */
		fprintf(stderr, "tally %s: %s: no %s events found%s. Have you run 'tally lock record' "
			"on a kernel with them?\n", l->cmd, l->path,
			contention ? "lock:contention_begin" : "lock:contention_begin or lock:lock_acquire",
			contention ? "" : " (lock_acquire needs CONFIG_LOCKDEP)");
		ret = 234;
		goto out;
	}
	if (!tally_session__trace_fmt(l->s)) {
		fprintf(stderr, "tally %s: %s: the file has no tracepoint formats (tracing data)\n",
			l->cmd, l->path);
		ret = 1;
		goto out;
	}
	if (!(l->fields = tally_tp_reader__new(tally_session__trace_fmt(l->s), field_names, F_NR))) {
		fprintf(stderr, "tally %s: %s\n", l->cmd, strerror(errno));
		ret = 1;
		goto out;
	}
	t.cmd = l->cmd;
	t.bad_hist = l->bad_hist;
	t.ctx = l;
	if (lock_table_keys(&t, o->fields ? o->fields : contention ? "contended,wait_total,wait_max,avg_wait" : NULL,
			    o->key ? o->key : contention ? "wait_total" : "acquired")) {
		ret = 234;
		goto out;
	}
	l->aggr = o->threads ? AGGR_TASK : contention ? AGGR_CALLER : AGGR_ADDR;
	ret = cli_session_run(l->s, l->cmd, l->path);
	if (l->no_mem || l->stats.no_mem) {
		fprintf(stderr, "tally %s: out of memory\n", l->cmd);
		ret = 1;
		goto out;
	}
	if (l->bad_fields) {
		fprintf(stderr, "tally %s: %s: %d lock samples were left out: their fields could not "
			"be read (no lock address, or past the sample's data)\n", l->cmd, l->path,
			l->bad_fields);
		ret = 1;
	}
	if (!(rows = lock_stats_rows(&l->stats, &n))) {
		ret = 1;
		goto out;
	}
	lock_table_print(&t, rows, n);
out:
	free(rows);
	lk_free(l);
	return ret;
}

int lock_report(const struct lock_opts *o)
{
	return run(o, false);
}

int lock_contention(const struct lock_opts *o)
{
	return run(o, true);
}
