// SPDX-License-Identifier: MIT
/*
 * tally report: perf report --stdio's histogram from a perf.data file (the
 * session layer reads it in time order). Each sample's period goes to
 * its entry, keyed by the --sort keys (comm, dso, sym, pid, cpu); with
 * call chains, as perf's default --children, also to every distinct
 * entry of its chain. Every distinct address is resolved once (a cache
 * in front of the symbol code). Rows, widths and order as perf 6.1
 * prints them with -g none.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "report.h"
#include "report_graph.h"
#include "report_header.h"
#include "read_file.h"
#include "resolve_internal.h"

enum sort_key { K_COMM, K_PID, K_DSO, K_SYM, K_CPU, K_SRCLINE, K_PARENT, K_TRACE, K__NR };

static const struct {
	const char *name, *header;
} keys[K__NR] = {
	[K_COMM] = { "comm", "Command" },
	[K_PID] = { "pid", "    Pid:Command" },	/* perf's header, spaces and all */
	[K_DSO] = { "dso", "Shared Object" },
	[K_SYM] = { "sym", "Symbol" },
	[K_CPU] = { "cpu", "CPU" },
	[K_SRCLINE] = { "srcline", "Source:Line" },
	[K_PARENT] = { "parent", "Parent symbol" },
	[K_TRACE] = { "trace", "Trace output" },
};

struct entry {
	const char *comm;
	const char *trace;		/* a tracepoint's fields as text (interned), "N/A" for others */
	const char *parent;		/* the first caller matching --parent, NULL: [other] */
	uint64_t comm_hash;
	uint64_t hash;			/* of the key */
	int32_t tid;			/* the thread that made the entry */
	int32_t pid;
	int32_t cpu;
	struct where w;
	uint64_t self, children;
	uint64_t nself;			/* its own samples (-F sample) */
	uint64_t last_sample;		/* children: once per sample */
	bool visible;			/* a sample that passed the filters touched it */
	struct cg_node *cg;		/* its call graph */
	uint32_t max_depth;		/* its longest chain (perf orders equal rows by it) */
	struct entry *next;		/* hash chain */
};

struct hist {
	struct entry **tab;
	size_t nbuckets, n;
	uint64_t total, samples;
};

struct report {
	struct tally_session *ss;
	bool no_chain;			/* no chain shown anywhere: a shape is its ip */
	const char *comms, *dsos, *symbols;	/* entry filters, comma lists */
	const char *pids, *tids;
	bool exclude_other;
	double percent_limit;
	bool elide[K__NR];		/* kept in the key, not printed */
	struct report_exports exp;	/* pictures instead of the histogram */
	enum sort_key sort[K__NR];
	int nsort;
	const char *sort_spec;
	bool header, header_only;
	bool show_nr, show_period;	/* -n, --show-total-period: perf's Samples, Period */
	bool quiet;			/* -q: no '#' lines */
	bool need_trace;		/* the trace key: each sample's fields printed */
	/* the distinct trace texts: an open-addressed set, cap a power of two */
	struct tally_strpool *traces;	/* trace texts, one copy each (made on first use) */
	bool has_parent;		/* the parent key: --parent's regex compiled */
	regex_t parent_re;
	const char *last_comm;
	uint64_t last_comm_hash;
	struct cg_param cg;		/* call graphs under the rows (mode none: not drawn) */
	struct shape **stab, **shapes;
	size_t sbuckets, nshapes;
	size_t last_shape;		/* the shape of the sample just counted */
	bool children;
	struct hist *h;			/* per attr */
	struct resolver res;
	uint64_t sample_no;
	uint64_t cur_count;		/* samples of the shape being added */
	/*
	 * -F: the columns, in order: a sort key (0..K__NR-1) or one of the
	 * F_* values below; rows are ordered by them (by -s's keys first).
	 */
	int fields[2 * K__NR + 4];
	int nfields;
	int nsort_given;		/* -s's keys, first in r->sort: they order the rows first */
};

enum { F_OVERHEAD = K__NR, F_CHILDREN, F_PERIOD, F_SAMPLE };

/* ---- histogram ---- */

static int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return !a && !b ? 0 : (!a ? 1 : -1);	/* no name sorts last, as perf */
	return strcmp(a, b);
}

static int cmp_key(const struct entry *a, const struct entry *b, enum sort_key k)
{
	switch (k) {
	case K_COMM:
		return strcmp_null(a->comm, b->comm);
	case K_PID:
		/* perf's "pid" key is the thread: its tid (sort__thread_cmp) */
		return a->tid != b->tid ? (a->tid < b->tid ? -1 : 1) : 0;
	case K_DSO:
		return strcmp_null(a->w.dso, b->w.dso);
	case K_SYM:
		if (!a->w.sym || !b->w.sym) {
			if (a->w.sym || b->w.sym)
				return a->w.sym ? -1 : 1;
			/*
			 * The level is not part of the key: an entry keeps its
			 * first. Addresses compare as perf's _sort__addr_cmp,
			 * by the sign of their difference as an int64.
			 */
			int64_t dif = (int64_t)(b->w.addr - a->w.addr);

			return dif > 0 ? -1 : dif < 0;
		}
		return strcmp_null(a->w.sym, b->w.sym);
	case K_CPU:
		return a->cpu - b->cpu;
	case K_SRCLINE:
		return strcmp_null(a->w.srcline, b->w.srcline);
	case K_PARENT:
		return strcmp_null(a->parent, b->parent);
	case K_TRACE:
		return a->trace == b->trace ? 0 : strcmp_null(a->trace, b->trace);
	default:
		return 0;
	}
}

/*
 * Whether a and b are one entry: as cmp_key, except that a symbol is its
 * DSO and address (perf's sort__sym_cmp: two functions of one name in two
 * DSOs, or two static ones in one, are two rows), and an inlined function
 * its name. cmp_key orders the rows by name, as perf's sort__sym_sort.
 */
static bool same_key(const struct entry *a, const struct entry *b, enum sort_key k)
{
	if (k == K_SYM && a->w.sym && b->w.sym) {
		if (strcmp_null(a->w.dso, b->w.dso))
			return false;
		if (a->w.inlined || b->w.inlined)
			return !strcmp(a->w.sym, b->w.sym);
		return a->w.sym_start == b->w.sym_start && !strcmp(a->w.sym, b->w.sym);
	}
	return !cmp_key(a, b, k);
}

/*
 * The entries' table is walked in bucket order before the rows are sorted,
 * so rows that tie print in the order these hashes give: seeded as they
 * always were (resolve.c's FNV_BASIS, the FNV basis short of a digit), not
 * TALLY_FNV_BASIS, so that no tie moves.
 */
#define ENTRY_SEED 1469598103934665603ULL

static uint64_t hash_entry(const struct report *r, const struct entry *e)
{
	uint64_t h = ENTRY_SEED;

	for (int i = 0; i < r->nsort; i++) {
		uint64_t v = 0;

		/* the names' hashes were taken once, where they were made */
		switch (r->sort[i]) {
		case K_COMM: v = e->comm_hash; break;
		case K_PID: v = (uint64_t)e->tid; break;
		case K_DSO: v = e->w.dso_hash; break;
		case K_SYM: v = e->w.sym ? e->w.sym_hash : e->w.addr; break;
		case K_CPU: v = (uint64_t)e->cpu; break;
		case K_SRCLINE: v = e->w.srcline_hash; break;
		case K_PARENT: v = tally_fnv_str(ENTRY_SEED, e->parent); break;
		case K_TRACE: v = (uint64_t)(uintptr_t)e->trace; break;	/* interned */
		default: break;
		}
		h = tally_hash_mix(h ^ v);
	}
	return h;
}

static struct entry *hist_find(struct report *r, struct hist *h, const struct entry *key)
{
	uint64_t hv = hash_entry(r, key);
	size_t b;
	struct entry *e;

	if (h->n >= h->nbuckets) {
		size_t n = h->nbuckets ? h->nbuckets * 2 : 1024;
		struct entry **nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < h->nbuckets; i++)
			while (h->tab[i]) {
				struct entry *x = h->tab[i];

				h->tab[i] = x->next;
				b = x->hash & (n - 1);
				x->next = nt[b];
				nt[b] = x;
			}
		free(h->tab);
		h->tab = nt;
		h->nbuckets = n;
	}
	b = hv & (h->nbuckets - 1);
	for (e = h->tab[b]; e; e = e->next) {
		int i;

		if (e->hash != hv)
			continue;
		for (i = 0; i < r->nsort && same_key(e, key, r->sort[i]); i++)
			;
		if (i == r->nsort)
			return e;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	*e = *key;
	e->hash = hv;
	e->self = e->children = 0;
	e->last_sample = UINT64_MAX;
	e->next = h->tab[b];
	h->tab[b] = e;
	h->n++;
	return e;
}

/*
 * As perf: every sample counts in every entry it touches; a filter
 * (--comm, --dsos, --symbols) tests the sample's own entry, and an entry
 * is shown if the sample that made it passed.
 */
static void add(struct report *r, struct hist *h, struct entry *key, uint64_t period, bool self,
		bool pass)
{
	struct entry *e = hist_find(r, h, key);

	if (!e)
		return;
	if (e->last_sample == UINT64_MAX && !e->self && !e->children)
		e->visible = pass;	/* just made */
	if (self) {
		e->self += period;
		e->nself += r->cur_count;
	}
	if (r->children && e->last_sample != r->sample_no) {
		e->children += period;	/* an entry counts once per sample */
		e->last_sample = r->sample_no;
	}
}

/*
 * --comm, --pid, --tid, --dso, --symbols test the sample (its own entry): perf drops
 * the others, with their callers' entries; percentages stay absolute.
 */
static bool shown(const struct report *r, const struct entry *e)
{
	if (r->comms && !session_in_list(r->comms, e->comm))
		return false;
	if (r->exclude_other && !e->parent)
		return false;
	if (r->pids && !session_in_id_list(r->pids, e->pid))
		return false;
	if (r->tids && !session_in_id_list(r->tids, e->tid))
		return false;
	if (r->dsos && !session_in_list(r->dsos, e->w.dso ? e->w.dso : "[unknown]"))
		return false;
	if (r->symbols && (!e->w.sym || !session_in_list(r->symbols, e->w.sym)))
		return false;
	return true;
}

/*
 * An entry's key for a frame of the chain, as perf's callchain entries:
 * an unresolved frame shows its ip, and one outside any map keeps the
 * level of the frame walked before it (perf reuses that frame's state).
 */
static void frame_key(struct entry *key, const struct where *w, uint64_t ip, char *prev_mode)
{
	key->w = *w;
	if (!key->w.sym)
		key->w.addr = ip;
	if (!key->w.dso)
		key->w.mode = *prev_mode;
	*prev_mode = key->w.mode;
}

static uint64_t shape_hash(int idx, const char *comm, const char *trace,
			   const struct tally_sample *smp, int mode)
{
	uint64_t h = tally_hash_mix((uint64_t)idx ^ ((uint64_t)(uintptr_t)comm << 8) ^
			      ((uint64_t)smp->tid << 32) ^ smp->pid ^ (uint64_t)(uintptr_t)trace);

	h ^= smp->ip ^ ((uint64_t)smp->cpu << 40) ^ ((uint64_t)mode << 56);
	/* one multiply per address, one mix at the end: chains are long */
	for (uint64_t i = 0; i < smp->callchain.nr; i++)
		h = (h ^ smp->callchain.ips[i]) * 0x9e3779b97f4a7c15ULL + (h >> 29);
	return tally_hash_mix(h);
}

/* Count the sample in its shape: true when the shape is new. */
static bool shape_add(struct report *r, int idx, const char *comm, const char *trace,
		      const struct tally_sample *smp, int mode, uint64_t period)
{
	uint64_t hv = shape_hash(idx, comm, trace, smp, mode);
	uint32_t nr = smp->callchain.nr > CHAIN_MAX ? CHAIN_MAX : (uint32_t)smp->callchain.nr;
	struct shape *x;

	if (r->nshapes >= r->sbuckets) {
		size_t n = r->sbuckets ? r->sbuckets * 2 : 4096;
		struct shape **nt = calloc(n, sizeof(*nt));
		struct shape **nv = realloc(r->shapes, n * sizeof(*nv));

		if (!nt || !nv) {
			free(nt);
			if (nv)
				r->shapes = nv;
			return false;
		}
		r->shapes = nv;
		for (size_t i = 0; i < r->nshapes; i++) {
			x = r->shapes[i];
			x->next = nt[x->hash & (n - 1)];
			nt[x->hash & (n - 1)] = x;
		}
		free(r->stab);
		r->stab = nt;
		r->sbuckets = n;
	}
	for (x = r->stab[hv & (r->sbuckets - 1)]; x; x = x->next)
		if (x->hash == hv && x->idx == idx && x->comm == comm && x->trace == trace &&
		    x->tid == (int32_t)smp->tid &&
		    x->pid == (int32_t)smp->pid && x->cpu == (int32_t)smp->cpu && x->mode == mode &&
		    x->ip == smp->ip && x->key_nr == nr &&
		    (!nr || !memcmp(x->ips, smp->callchain.ips, nr * sizeof(uint64_t)))) {
			x->period += period;
			x->count++;
			r->last_shape = x->seq;
			return false;
		}
	x = calloc(1, sizeof(*x));
	if (!x || !(x->ips = malloc((nr + 1) * sizeof(uint64_t)))) {
		free(x);
		return false;
	}
	if (nr)
		memcpy(x->ips, smp->callchain.ips, nr * sizeof(uint64_t));
	x->hash = hv;
	x->idx = idx;
	x->comm = comm;
	x->trace = trace;
	x->pid = (int32_t)smp->pid;
	x->tid = (int32_t)smp->tid;
	x->cpu = (int32_t)smp->cpu;
	x->mode = (uint8_t)mode;
	x->ip = smp->ip;
	x->key_nr = nr;
	x->nr = nr && tally_session__chain_corrupt(smp) ? 0 : nr;
	x->period = period;
	x->count = 1;
	x->next = r->stab[hv & (r->sbuckets - 1)];
	r->stab[hv & (r->sbuckets - 1)] = x;
	x->seq = r->nshapes;
	r->last_shape = x->seq;
	r->shapes[r->nshapes++] = x;
	return true;
}

static bool kernel_mode(enum tally_cpumode m)
{
	return m == TALLY_CPUMODE_KERNEL || m == TALLY_CPUMODE_GUEST_KERNEL;
}

/* One copy of each distinct text: entries and shapes compare the pointers. */
static const char *trace_intern(struct report *r, const char *t)
{
	const char *p;

	if (!r->traces && !(r->traces = tally_strpool__new()))
		return "";
	p = tally_strpool__add(r->traces, t);
	return p ? p : "";
}

/* perf's trace key: libtraceevent's text of the sample's fields, "N/A" off tracepoints. */
static const char *trace_text(struct report *r, struct tally_session *ss, const struct perf_event_attr *a,
			      const struct tally_sample *smp)
{
	static const char na[] = "N/A";
	char buf[4096];

	if (a->type != PERF_TYPE_TRACEPOINT)
		return na;
	struct tally_trace_fmt *tf = tally_session__trace_fmt(ss);

	if (!tf || !(a->sample_type & PERF_SAMPLE_RAW) ||
	    tally_trace_fmt__print(tf, smp->raw.data, smp->raw.size, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return trace_intern(r, buf);
}

/*
 * A sample counts in its shape; a new shape has its addresses resolved
 * now, with the maps as they are at its time (later lookups hit the
 * table). The rows are made from the shapes once reading is done.
 */
static int on_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct report *r = arg;
	int idx = ts->attr;
	const struct tally_sample *smp = ts->sample;
	const struct perf_event_attr *a = ts->event;
	enum tally_cpumode mode = ts->mode;
	uint64_t period = ts->period;
	struct hist *hs = &r->h[idx];
	static enum tally_cpumode modes[CHAIN_MAX];
	const char *comm = ts->thread.comm;	/* perf's ":TID" for a thread no COMM named */
	/* only what a shape keys on: copying the whole sample was a tenth of -g none's time */
	struct tally_sample chain;

	chain.pid = smp->pid;
	chain.tid = smp->tid;
	chain.cpu = smp->cpu;
	chain.ip = smp->ip;
	chain.callchain = smp->callchain;

	hs->samples++;
	hs->total += period;
	if (smp->time < r->exp.t_first || !r->exp.t_first)
		r->exp.t_first = smp->time;
	if (smp->time > r->exp.t_last)
		r->exp.t_last = smp->time;
	/* no chain shown anywhere: a shape is its ip */
	if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN) || r->no_chain)
		chain.callchain.nr = 0;
	if (!(a->sample_type & PERF_SAMPLE_CPU))
		chain.cpu = (uint32_t)-1;	/* perf's cpu key shows -001 then */
	bool fresh = shape_add(r, idx, comm ? comm : ":-1",
			       r->need_trace ? trace_text(r, ss, a, smp) : NULL, &chain, mode, period);

	if ((r->exp.firefox || r->exp.speedscope) && r->nshapes) {
		struct report_exports *x = &r->exp;

		if (x->ntimed == x->cap_timed) {
			size_t n = x->cap_timed ? x->cap_timed * 2 : 4096;
			void *p = realloc(x->timed, n * sizeof(*x->timed));

			if (p) {
				x->timed = p;
				x->cap_timed = n;
			}
		}
		if (x->ntimed < x->cap_timed)
			x->timed[x->ntimed++] = (struct report_timed){ r->last_shape, smp->time, period };
		else
			x->timed_short = true;
	}
	if (!fresh)
		return 0;
	/* a chain perf drops (tally_session__chain_corrupt) resolves no frame */
	chain.callchain.nr = r->shapes[r->last_shape]->nr;
	/*
	 * User addresses now; kernel ones later: the kernel's map does not
	 * change, and kallsyms is still being read on the other thread.
	 */
	if (!kernel_mode(mode))
		tally__resolver_get(&r->res, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode);
	tally__chain_modes(&chain, modes);
	for (uint64_t i = 0; i < chain.callchain.nr && i < CHAIN_MAX; i++)
		if (chain.callchain.ips[i] < PERF_CONTEXT_MAX && !kernel_mode(modes[i]))
			tally__resolver_get(&r->res, (int32_t)smp->pid, (int32_t)smp->tid,
				     chain.callchain.ips[i], modes[i]);
	return 0;
}

/*
 * perf's parent: the first symbol of the chain, in its cursor's order,
 * that --parent's regex matches (a match is cached per address).
 */
static const char *find_parent(struct report *r, const struct shape *x,
			       const enum tally_cpumode *modes)
{
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

	for (uint32_t k = 0; k < x->nr; k++) {
		uint32_t i = r->cg.caller ? x->nr - 1 - k : k;
		struct where *w;

		struct where *fw[INL_MAX];
		int nf;

		if (x->ips[i] >= PERF_CONTEXT_MAX)
			continue;
		nf = tally__resolver_frames(&r->res, x->pid, x->tid, x->ips[i], modes[i], i > uw, fw);
		for (int j = 0; j < nf; j++) {
			/* an address's inline frames: outermost first from the root */
			w = fw[r->cg.caller ? nf - 1 - j : j];
			if (!w->sym)
				continue;
			if (!w->pmatch)
				w->pmatch = regexec(&r->parent_re, w->sym, 0, NULL, 0) ? -1 : 1;
			if (w->pmatch > 0)
				return w->sym;
		}
	}
	return NULL;
}

/* A shape's share in the rows: its own entry, and with --children every
 * entry on its chain once. */
static void hist_shape(struct report *r, const struct shape *x)
{
	struct hist *hs = &r->h[x->idx];
	struct entry key = { .comm = x->comm, .trace = x->trace, .pid = x->pid, .tid = x->tid,
			     .cpu = x->cpu };
	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	static enum tally_cpumode modes[CHAIN_MAX];
	const struct where *w;
	char prev_mode;
	bool pass;

	r->sample_no++;
	if (key.comm != r->last_comm) {
		r->last_comm = key.comm;
		r->last_comm_hash = tally_fnv_str(ENTRY_SEED, key.comm);
	}
	key.comm_hash = r->last_comm_hash;
	tally__chain_modes(&smp, modes);
	if (r->has_parent)
		key.parent = find_parent(r, x, modes);
	w = tally__resolver_get(&r->res, x->pid, x->tid, x->ip, x->mode);
	if (!w)
		return;
	key.w = *w;
	pass = shown(r, &key);
	r->cur_count = x->count;
	add(r, hs, &key, x->period, true, pass);
	prev_mode = w->mode;
	if (!r->children)
		return;
	/*
	 * Callers' share, walking the chain as perf's --children does
	 * (from the root in its default caller order). The chain's first
	 * frame is the ip itself: a resolved one lands on the entry above
	 * (counted once per sample); an unresolved one is keyed by its
	 * absolute ip there, so it is an entry of its own, as in perf.
	 */
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

	for (uint32_t k = 0; k < x->nr; k++) {
		/* in perf's cursor order: root first unless callee order */
		uint32_t i = r->cg.caller ? x->nr - 1 - k : k;
		uint64_t ip = x->ips[i];
		struct where *fw[INL_MAX];
		int nf;

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		nf = tally__resolver_frames(&r->res, x->pid, x->tid, ip, modes[i], i > uw, fw);
		if (!nf)
			return;
		for (int j = 0; j < nf; j++) {
			frame_key(&key, fw[r->cg.caller ? nf - 1 - j : j], ip, &prev_mode);
			add(r, hs, &key, x->period, false, pass);
		}
	}
}

/*
 * The call graphs, from the shapes: the row's own entry gets the whole
 * chain; with --children each other entry on the chain (the first time
 * it appears, as perf's he_cache) gets the chain from its frame on.
 */
static void build_graphs(struct report *r)
{
	static struct cg_frame frames[CHAIN_MAX];
	static struct entry *ents[CHAIN_MAX];
	static enum tally_cpumode modes[CHAIN_MAX];
	static struct cg_frame rev[CHAIN_MAX];
	static struct entry *seen_buf[CHAIN_MAX + 1];
	static struct where wheres[CHAIN_MAX];
	bool addr = r->cg.address;

	for (size_t s = 0; s < r->nshapes; s++) {
		const struct shape *x = r->shapes[s];
		struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
		struct hist *hs = &r->h[x->idx];
		struct entry key = { .comm = x->comm, .comm_hash = tally_fnv_str(ENTRY_SEED, x->comm),
				     .trace = x->trace, .pid = x->pid, .tid = x->tid, .cpu = x->cpu };
		struct entry *self, **seen = seen_buf;
		struct where *w = tally__resolver_get(&r->res, x->pid, x->tid, x->ip, x->mode);
		size_t n = 0, nseen = 0;
		char prev_mode;

		if (!w)
			continue;
		key.w = *w;
		self = hist_find(r, hs, &key);
		prev_mode = w->mode;
		tally__chain_modes(&smp, modes);
		uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

		/* frames root first, with each one's entry */
		for (uint32_t i = x->nr; i > 0; i--) {
			uint64_t ip = x->ips[i - 1];
			struct where *fw[INL_MAX];
			int nf;

			if (ip >= PERF_CONTEXT_MAX)
				continue;
			nf = tally__resolver_frames(&r->res, x->pid, x->tid, ip, modes[i - 1], i - 1 > uw, fw);
			if (!nf)
				break;
			/* root first: an address's outermost function before those inlined in it */
			for (int j = nf - 1; j >= 0 && n < CHAIN_MAX; j--) {
				w = fw[j];
				frames[n] = (struct cg_frame){ .sym = w->sym, .dso = w->dso,
							       .dso_id = w->dso_id,
							       .dso_rank = w->dso_rank,
							       .start = w->sym_start, .ip = ip };
				wheres[n++] = *w;
			}
		}
		if (!self || !n)
			continue;
		/* each frame's entry, keyed in the walk's order (as on_sample) */
		for (size_t k = 0; r->children && k < n; k++) {
			size_t i = r->cg.caller ? k : n - 1 - k;

			frame_key(&key, &wheres[i], frames[i].ip, &prev_mode);
			ents[i] = hist_find(r, hs, &key);
		}
		/* caller order shows root first; callee order leaf first */
		for (size_t i = 0; i < n; i++)
			rev[i] = frames[n - 1 - i];
		cg_append(&self->cg, r->cg.caller ? frames : rev, n, x->period, x->count, addr);
		if (n > self->max_depth)
			self->max_depth = (uint32_t)n;
		if (!r->children)
			continue;
		seen[nseen++] = self;
		/* the walk follows the display order, as perf's cursor */
		for (size_t k = 0; k < n; k++) {
			size_t i = r->cg.caller ? k : n - 1 - k;
			struct entry *e = ents[i];
			size_t j;

			for (j = 0; j < nseen && seen[j] != e; j++)
				;
			if (!e || j < nseen)
				continue;
			seen[nseen++] = e;
			if (r->cg.caller)
				cg_append(&e->cg, frames + i, n - i, x->period, x->count, addr);
			else
				cg_append(&e->cg, rev + k, n - k, x->period, x->count, addr);
			if (n - k > e->max_depth)
				e->max_depth = (uint32_t)(n - k);
		}
	}
}

/* ---- output ---- */

static const struct report *sort_ctx;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	const struct report *r = sort_ctx;

	if (r->children && a->children != b->children)
		return a->children > b->children ? -1 : 1;
	/*
	 * perf puts a caller above its callee at equal children: with call
	 * graphs on, the row of the same thread whose longest chain is
	 * longer comes first (shorter first in callee order).
	 */
	if (r->children && r->cg.mode != CG_NONE && a->cg && b->cg && a->tid == b->tid &&
	    a->pid == b->pid && a->max_depth != b->max_depth)
		return (a->max_depth > b->max_depth) == r->cg.caller ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	for (int i = 0; i < r->nsort; i++) {
		/* an elided column does not order the rows either (as perf) */
		int c = r->elide[r->sort[i]] ? 0 : cmp_key(a, b, r->sort[i]);

		if (c)
			return c;
	}
	return 0;
}

/* -F: each field in turn (-s's keys first), the numbers biggest first. */
static int cmp_field(const struct entry *a, const struct entry *b, int f)
{
	uint64_t x, y;

	switch (f) {
	case F_OVERHEAD: case F_PERIOD: x = a->self; y = b->self; break;
	case F_CHILDREN: x = a->children; y = b->children; break;
	case F_SAMPLE: x = a->nself; y = b->nself; break;
	default: return cmp_key(a, b, (enum sort_key)f);
	}
	if (x != y)
		return x > y ? -1 : 1;
	/* equal children: the caller first, as the default layout (cmp_rows) */
	const struct report *r = sort_ctx;

	if (f == F_CHILDREN && r->children && r->cg.mode != CG_NONE && a->cg && b->cg &&
	    a->tid == b->tid && a->pid == b->pid && a->max_depth != b->max_depth)
		return (a->max_depth > b->max_depth) == r->cg.caller ? -1 : 1;
	return 0;
}

static int cmp_rows_fields(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	const struct report *r = sort_ctx;
	int c;

	for (int i = 0; i < r->nsort_given; i++)
		if ((c = cmp_key(a, b, r->sort[i])))
			return c;
	for (int i = 0; i < r->nfields; i++)
		if ((c = cmp_field(a, b, r->fields[i])))
			return c;
	for (int i = 0; i < r->nsort; i++)
		if ((c = cmp_key(a, b, r->sort[i])))
			return c;
	return 0;
}

static int value(const struct report *r, const struct entry *e, enum sort_key k, char *buf,
		 size_t len)
{
	const char *c;

	switch (k) {
	case K_COMM: return snprintf(buf, len, "%s", e->comm);
	case K_PID:
		/* the thread's tid and the name it has at the end, as perf's thread column */
		c = tally_machine__comm_of(tally_session__machine(r->ss), e->tid);
		return snprintf(buf, len, "%7d:%s", e->tid, c ? c : e->comm);
	case K_DSO: return snprintf(buf, len, "%s", e->w.dso ? e->w.dso : "[unknown]");
	case K_SYM:
		if (e->w.sym)
			return snprintf(buf, len, "[%c] %s", e->w.mode, e->w.sym);
		/* perf's "%-#.*llx": the 0x prefix is not printed for zero */
		return snprintf(buf, len, e->w.addr ? "[%c] 0x%016llx" : "[%c] %016llx", e->w.mode,
				(unsigned long long)e->w.addr);
	case K_CPU: return snprintf(buf, len, "%.3d", e->cpu);	/* perf: -001 without CPUs */
	case K_SRCLINE: return snprintf(buf, len, "%s", e->w.srcline ? e->w.srcline : "??:0");
	case K_PARENT: return snprintf(buf, len, "%s", e->parent ? e->parent : "[other]");
	case K_TRACE: return snprintf(buf, len, "%s", e->trace ? e->trace : "");
	default: return snprintf(buf, len, "?");
	}
}

/* A key column's width: its header's, or its widest value. */
static int key_width(const struct report *r, struct entry **rows, size_t n, enum sort_key k)
{
	char buf[4096];
	int w = (int)strlen(keys[k].header);

	if (k == K_CPU)
		return 3;	/* perf's: "-001" overflows it */
	/*
	 * perf measures a trace text only once a comparison made it: a lone
	 * row never is, and is cut to the header's width.
	 */
	if (k == K_TRACE && n < 2)
		return w;
	for (size_t i = 0; i < n; i++) {
		int l = value(r, rows[i], k, buf, sizeof(buf));

		/*
		 * perf sizes the comm column by each entry's thread's comm at
		 * the end (its cached comm_len), and cuts the entry's own comm
		 * to that: "perf-exec" of a thread that became "sleep" shows
		 * as "perf-ex" if nothing is longer.
		 */
		if (k == K_COMM) {
			const char *c = tally_machine__comm_of(tally_session__machine(r->ss), rows[i]->tid);

			l = (int)strlen(c ? c : rows[i]->comm);
		}
		/* an entry without a symbol widens the DSO column to an address's 16 (without --dsos) */
		if (k == K_DSO && !rows[i]->w.sym && !r->dsos && l < 16)
			l = 16;
		if (l > w)
			w = l;
	}
	return w;
}

/* One key's cell: perf leaves a last symbol or source line unpadded. */
static void print_key(const struct report *r, const struct entry *e, enum sort_key k, int width,
		      bool last)
{
	char buf[4096];

	value(r, e, k, buf, sizeof(buf));
	if (k == K_COMM)
		printf("  %-*.*s", width, width, buf);
	else if (k == K_TRACE)	/* perf's "%-.*s": cut to the width, padded only when not last */
		printf("  %-*.*s", last ? 0 : width, width, buf);
	else if (last && (k == K_SYM || k == K_SRCLINE))
		printf("  %s", buf);
	else
		printf("  %-*s", width, buf);
}

/* Once, before the first event's block, as perf. */
static void print_preamble(const struct report *r, uint64_t lost)
{
	if (r->quiet)
		return;
	if (!r->header)
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
	printf("#\n");
	printf("# Total Lost Samples: %llu\n#\n", (unsigned long long)lost);
}

static void print_head(const struct report *r, int idx)
{
	const struct hist *h = &r->h[idx];
	uint64_t ns = h->samples;
	char unit = ' ';

	if (r->quiet)
		return;
	if (ns > 1000) { ns /= 1000; unit = 'K'; }	/* perf's convert_unit */
	if (ns > 1000) { ns /= 1000; unit = 'M'; }
	printf("# Samples: %llu%c of event '%s'\n", (unsigned long long)ns, unit, tally_session__event_name(r->ss, idx));
	printf("# Event count (approx.): %llu\n#\n", (unsigned long long)h->total);
}

/* The visible rows, in the order they print. */
static struct entry **sorted_rows(struct report *r, struct hist *h, size_t *n)
{
	struct entry **rows = malloc((h->n + 1) * sizeof(*rows));

	*n = 0;
	if (!rows)
		return NULL;
	for (size_t b = 0; b < h->nbuckets; b++)
		for (struct entry *e = h->tab[b]; e; e = e->next)
			if (e->visible)
				rows[(*n)++] = e;
	sort_ctx = r;
	qsort(rows, *n, sizeof(*rows), r->nfields ? cmp_rows_fields : cmp_rows);
	return rows;
}

static void print_graph(const struct report *r, const struct hist *h, const struct entry *e)
{
	if (r->cg.mode != CG_NONE && e->cg)
		cg_print(stdout, e->cg, &r->cg, h->total, r->children ? e->children : e->self,
			 r->sort_spec && !strncmp(r->sort_spec, "sym", 3));
}

/* -F: perf's columns in the order given (counts, shares and keys). */
static void print_hist_fields(struct report *r, int idx)
{
	static const struct { const char *head; int width; } num[] = {
		[F_OVERHEAD - K__NR] = { "Overhead", 8 }, [F_CHILDREN - K__NR] = { "Children", 8 },
		[F_PERIOD - K__NR] = { "Period", 12 }, [F_SAMPLE - K__NR] = { "Samples", 12 },
	};
	struct hist *h = &r->h[idx];
	int width[2 * K__NR + 4];
	double tot = h->total ? (double)h->total : 1;
	size_t n;
	struct entry **rows = sorted_rows(r, h, &n);

	if (!rows)
		return;
	for (int i = 0; i < r->nfields; i++)
		width[i] = r->fields[i] < K__NR ? key_width(r, rows, n, (enum sort_key)r->fields[i]) :
			   num[r->fields[i] - K__NR].width;
	print_head(r, idx);
	for (int i = 0; !r->quiet && i < r->nfields; i++) {
		int f = r->fields[i];

		printf(i ? "  " : "# ");
		if (f < K__NR)
			printf("%-*s", width[i], keys[f].header);
		else
			printf("%*s", width[i], num[f - K__NR].head);
	}
	for (int i = 0; !r->quiet && i < r->nfields; i++) {
		printf(i ? "  " : "\n# ");
		for (int k = 0; k < width[i]; k++)
			putchar('.');
	}
	if (!r->quiet)
		printf("\n#\n");
	for (size_t k = 0; k < n; k++) {
		const struct entry *e = rows[k];

		if (100.0 * (r->children ? e->children : e->self) / tot < r->percent_limit)
			continue;
		for (int i = 0; i < r->nfields; i++) {
			int f = r->fields[i];

			switch (f) {
			case F_OVERHEAD: printf("  %7.2f%%", 100.0 * e->self / tot); break;
			case F_CHILDREN:
				if (r->children)
					printf("  %7.2f%%", 100.0 * e->children / tot);
				else
					printf("  %8s", "N/A");	/* perf's, without --children */
				break;
			case F_PERIOD: printf("  %12llu", (unsigned long long)e->self); break;
			case F_SAMPLE: printf("  %12llu", (unsigned long long)e->nself); break;
			default: print_key(r, e, (enum sort_key)f, width[i], i == r->nfields - 1); break;
			}
		}
		putchar('\n');
		print_graph(r, h, e);
	}
	printf("\n\n");
	free(rows);
}

static void print_hist(struct report *r, int idx)
{
	struct hist *h = &r->h[idx];
	int width[K__NR] = { 0 };
	size_t n;
	struct entry **rows;
	int last;

	if (r->nfields) {
		print_hist_fields(r, idx);
		return;
	}
	if (!(rows = sorted_rows(r, h, &n)))
		return;
	for (int i = 0; i < r->nsort; i++)
		width[i] = key_width(r, rows, n, r->sort[i]);
	print_head(r, idx);
	/* perf pads the other columns even when the last one is hidden */
	last = r->nsort - 1;
	if (!r->quiet) {
		printf("# %s%s%s", r->children ? "Children      Self" : "Overhead",
		       r->show_nr ? "       Samples" : "", r->show_period ? "        Period" : "");
		for (int i = 0; i < r->nsort; i++)
			if (!r->elide[r->sort[i]])
				printf("  %-*s", width[i], keys[r->sort[i]].header);
		printf("\n# %s%s%s", r->children ? "........  ........" : "........",
		       r->show_nr ? "  ............" : "", r->show_period ? "  ............" : "");
		for (int i = 0; i < r->nsort; i++) {
			if (r->elide[r->sort[i]])
				continue;
			printf("  ");
			for (int k = 0; k < width[i]; k++)
				putchar('.');
		}
		printf("\n#\n");
	}
	for (size_t k = 0; k < n; k++) {
		const struct entry *e = rows[k];
		double tot = h->total ? (double)h->total : 1;

		/* --percent-limit hides rows; the widths were taken over all */
		if (100.0 * (r->children ? e->children : e->self) / tot < r->percent_limit)
			continue;
		if (r->children)
			printf("  %7.2f%%  %7.2f%%", 100.0 * e->children / tot, 100.0 * e->self / tot);
		else
			printf("  %7.2f%%", 100.0 * e->self / tot);
		if (r->show_nr)
			printf("  %12llu", (unsigned long long)e->nself);
		if (r->show_period)
			printf("  %12llu", (unsigned long long)e->self);
		for (int i = 0; i < r->nsort; i++)
			if (!r->elide[r->sort[i]])
				print_key(r, e, r->sort[i], width[i], i == last);
		putchar('\n');
		print_graph(r, h, e);
	}
	printf("\n\n");
	free(rows);
}

/* --call-graph dwarf: how many chains ended early, and why (perf does not say). */
static void print_unwind(const struct tally_session *ss, bool quiet)
{
	uint64_t early = 0;
	TALLY_OPTS(tally_session_stats, st);

	if (tally_session__stats(ss, &st) || !st.unwound)
		return;
	for (int w = 1; w < TALLY_UNWIND__NR; w++)
		early += st.unwind_stops[w];
	if (quiet)
		return;
	printf("#\n# DWARF unwinding: %llu samples' user stacks unwound, %llu chains ended early%s\n",
	       (unsigned long long)st.unwound, (unsigned long long)early, early ? ":" : "");
	for (int w = 1; w < TALLY_UNWIND__NR; w++)
		if (st.unwind_stops[w])
			printf("#   %-40s %llu\n", tally_unwind_stop__str((enum tally_unwind_stop)w),
			       (unsigned long long)st.unwind_stops[w]);
	printf("#\n");
}

/* What got no symbol, per DSO and why: perf shows only hex addresses. */
static void print_unresolved(struct report *r)
{
	const struct tally_unresolved *u;
	int n = tally_symbols__unresolved(tally_session__symbols(r->ss), &u);

	if (n <= 0 || r->quiet)
		return;
	printf("#\n# Addresses without a symbol (each distinct address once), and why:\n");
	for (int i = 0; i < n; i++) {
		char jit[64];
		int tid, end = 0;
		const char *name = u[i].dso;

		/* a process's JIT code under the name its rows carry */
		if (sscanf(name, "/tmp/perf-%d.map%n", &tid, &end) == 1 && end && !name[end]) {
			snprintf(jit, sizeof(jit), "[JIT] tid %d", tid);
			name = jit;
		}
		printf("#   %-40s %6llu  %s\n", name, (unsigned long long)u[i].addrs,
		       u[i].detail ? u[i].detail : tally_dso_status__str(u[i].status));
	}
	printf("#\n");
}

/* A sort key, and what it needs resolved or matched. */
static bool all_tracepoints(struct tally_data_reader *rd, int n)
{
	for (int i = 0; i < n; i++)
		if (tally_data_reader__attr(rd, i)->type != PERF_TYPE_TRACEPOINT)
			return false;
	return n > 0;
}

static void add_sort_key(struct report *r, enum sort_key k)
{
	r->sort[r->nsort++] = k;
	if (k == K_SRCLINE)
		r->res.srcline = true;
	if (k == K_PARENT)
		r->has_parent = true;
	if (k == K_TRACE)
		r->need_trace = true;
}

static int parse_sort(struct report *r, const char *spec)
{
	char *dup = strdup(spec), *tok, *save = NULL;

	if (!dup)
		return -1;
	r->nsort = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k < K__NR && strcmp(tok, keys[k].name); k++)
			;
		if (k == K__NR || r->nsort == K__NR) {
			fprintf(stderr, "tally report: --sort '%s': unknown key '%s' (comm, pid, dso, sym, cpu, srcline, parent, trace)\n",
				spec, tok);
			free(dup);
			return -1;
		}
		add_sort_key(r, (enum sort_key)k);
	}
	free(dup);
	return r->nsort ? 0 : -1;
}

/*
 * -F as perf: the columns in the order given. Without -s, its keys are the
 * sort keys and the rows are ordered by its fields in turn; with -s, -s's
 * keys order first and those -F lacks are added as last columns.
 */
static int parse_fields(struct report *r, const char *spec, const char *sort)
{
	static const struct { const char *name; int f; } nums[] = {
		{ "overhead", F_OVERHEAD }, { "overhead_children", F_CHILDREN },
		{ "period", F_PERIOD }, { "sample", F_SAMPLE }, { "symbol", K_SYM },
	};
	char *dup = strdup(spec), *tok, *save = NULL;
	bool have[K__NR + 4] = { false };

	if (!dup)
		return -1;
	if (sort && parse_sort(r, sort)) {
		free(dup);
		return -1;
	}
	if (!sort)
		r->nsort = 0;
	r->nsort_given = sort ? r->nsort : 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int f = -1;

		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && f < 0; i++)
			if (!strcmp(tok, nums[i].name))
				f = nums[i].f;
		for (int k = 0; k < K__NR && f < 0; k++)
			if (!strcmp(tok, keys[k].name))
				f = k;
		if (f < 0) {
			fprintf(stderr, "tally report: -F '%s': unknown field '%s' (overhead, "
				"overhead_children, period, sample, comm, pid, dso, sym, cpu, srcline, "
				"parent)\n", spec, tok);
			free(dup);
			return -1;
		}
		if (have[f])
			continue;
		have[f] = true;
		r->fields[r->nfields++] = f;
		if (f >= K__NR)
			continue;
		bool in_sort = false;

		for (int i = 0; i < r->nsort; i++)
			in_sort |= r->sort[i] == (enum sort_key)f;
		if (!in_sort && r->nsort < K__NR)
			add_sort_key(r, (enum sort_key)f);
	}
	free(dup);
	/* -s's keys -F does not name: columns at the end */
	for (int i = 0; i < r->nsort; i++)
		if (!have[r->sort[i]])
			r->fields[r->nfields++] = r->sort[i];
	return 0;
}

static int opt_children(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	*(int *)opt->value = (int)opt->defval;
	return 0;
}

/*
 * -g and --percent-limit in the order given: both set the call graphs'
 * threshold in perf, the later one wins.
 */
struct in_order {
	const char *arg[2];
	int at[2], seq;
};

static int opt_in_order(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct in_order *o = opt->value;

	o->arg[opt->defval] = arg;
	o->at[opt->defval] = ++o->seq;
	return 0;
}

static const char *const report_usage[] = {
	"tally report [--stdio] [-i FILE] [--sort KEYS] [--children|--no-children]",
	"",
	"perf report's histogram of a perf.data file (tally's or perf's), as text,",
	"with perf's call graphs under the rows when the samples have chains.",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	const char *input = "perf.data", *sort = NULL, *parent = NULL;
	struct in_order gp = { 0 };	/* -g, --percent-limit */
	const char *graph, *plimit;
	bool graph_threshold;		/* -g set the graphs' threshold */
	const char *fields = NULL;
	struct tally_session *ss = NULL;
	struct report r = { 0 };
	int nr_events = 0;
	struct tally_data_reader *rd;
	TALLY_OPTS(tally_session_stats, st);
	bool help = false, stdio_ = false, inverted = false, tui = false, no_tui = false;
	char *text = NULL;	/* the browser's: what --stdio prints */
	size_t text_len = 0;
	FILE *tty_out = NULL, *mem = NULL;
	int children = -1;	/* the last of --children/--no-children wins, as perf */
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_STRING('s', "sort", &sort, "KEYS", "comm, pid, dso, sym, cpu, srcline, parent, trace (default comm,dso,sym; trace when every event is a tracepoint)"),
		CLI_STRING('F', "fields", &fields, "FIELDS",
			   "the columns: overhead, overhead_children, period, sample and sort keys"),
		CLI_CALLBACK_F(0, "children", &children, NULL, "add callers' share (default with call chains)", opt_children, 0, 1),
		CLI_CALLBACK_F(0, "no-children", &children, NULL, "self overhead only", opt_children, 0, 0),
		CLI_CALLBACK_F('g', "call-graph", &gp, "MODE,...",
			       "graph|fractal|flat|folded|none, threshold %, limit, caller|callee, function|address, percent|period|count (default graph,0.5,caller)",
			       opt_in_order, 0, 0),
		CLI_BOOL('G', "inverted", &inverted, "call graphs root first (-g caller)"),
		CLI_STRING('p', "parent", &parent, "REGEX", "the parent key's callers (default ^sys_|^do_page_fault)"),
		CLI_BOOL('x', "exclude-other", &r.exclude_other, "only rows with a parent"),
		CLI_STRING(0, "comm", &r.comms, "LIST", "only these commands"),
		CLI_STRING(0, "pid", &r.pids, "LIST", "only these processes"),
		CLI_STRING(0, "tid", &r.tids, "LIST", "only these threads"),
		CLI_STRING('d', "dsos", &r.dsos, "LIST", "only these shared objects"),
		CLI_STRING(0, "symbols", &r.symbols, "LIST", "only these symbols"),
		CLI_CALLBACK_F(0, "percent-limit", &gp, "PCT",
			       "hide rows and call graph branches below PCT percent", opt_in_order, 0, 1),
		CLI_BOOL(0, "stdio", &stdio_, "text output (the default off a terminal)"),
		CLI_BOOL(0, "tui", &tui, "the interactive browser (the default on a terminal)"),
		CLI_BOOL(0, "no-tui", &no_tui, "text output, on a terminal too"),
		CLI_BOOL(0, "no-inline", &r.res.no_inline,
			 "an unwound frame is its symbol alone, not the functions inlined there"),
		CLI_BOOL('n', "show-nr-samples", &r.show_nr, "a Samples column (the rows' own samples)"),
		CLI_BOOL(0, "show-total-period", &r.show_period, "a Period column (the rows' own period)"),
		CLI_BOOL('q', "quiet", &r.quiet, "rows and graphs only: no '#' lines"),
		CLI_BOOL(0, "header", &r.header, "show the file's header first"),
		CLI_BOOL(0, "header-only", &r.header_only, "show only the file's header"),
		CLI_BOOL(0, "folded", &r.exp.folded, "collapsed stacks for flame graphs: comm;root;...;leaf count"),
		CLI_STRING(0, "flamegraph", &r.exp.flamegraph, "FILE.svg", "an interactive flame graph (SVG)"),
		CLI_STRING(0, "pprof", &r.exp.pprof, "FILE", "pprof's profile.proto, gzipped (go tool pprof)"),
		CLI_STRING(0, "speedscope", &r.exp.speedscope, "FILE", "speedscope's JSON, a profile per thread in time order"),
		CLI_STRING(0, "html", &r.exp.html, "FILE", "one offline page: summary, functions, flame graph, callers"),
		CLI_STRING(0, "firefox", &r.exp.firefox, "FILE", "the Firefox Profiler's (Gecko) JSON, with the timeline"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	int ret = 0;

	if (cli_parse("report", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, report_usage, opts);
		return 0;
	}
	graph = gp.arg[0];
	plimit = gp.arg[1];
	r.cg = (struct cg_param){ .mode = CG_GRAPH, .min_percent = -1 };
	if (graph && cg_parse(&r.cg, graph, "report"))
		return 129;
	graph_threshold = r.cg.min_percent >= 0;
	if (!graph_threshold)
		r.cg.min_percent = 0.5;
	if (inverted)
		r.cg.caller = r.cg.order_set = true;
	r.sort_spec = sort;
	if (fields ? parse_fields(&r, fields, sort) : parse_sort(&r, sort ? sort : "comm,dso,sym"))
		return 129;
	/* a --parent of one's own adds the key, as perf */
	if (parent && !r.has_parent && r.nsort < K__NR) {
		r.sort[r.nsort++] = K_PARENT;
		r.has_parent = true;
	}
	if (r.has_parent) {
		int rc = regcomp(&r.parent_re, parent ? parent : "^sys_|^do_page_fault",
				 REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &r.parent_re, msg, sizeof(msg));
			fprintf(stderr, "tally report: --parent '%s': %s\n", parent, msg);
			return 129;
		}
	}
	/* one --comm, --dsos or --symbols value: its column says nothing, perf drops it */
	r.elide[K_COMM] = r.comms && !strchr(r.comms, ',');
	r.elide[K_DSO] = r.dsos && !strchr(r.dsos, ',');
	r.elide[K_SYM] = r.symbols && !strchr(r.symbols, ',');
	if (plimit) {
		char *end;

		r.percent_limit = strtod(plimit, &end);
		if (end == plimit || *end || r.percent_limit < 0 || r.percent_limit > 100) {
			fprintf(stderr, "tally report: --percent-limit '%s': a percentage, 0 to 100\n", plimit);
			return 129;
		}
		/* perf: it is the graphs' threshold too, unless a -g threshold came later */
		if (gp.at[1] > gp.at[0] || !graph_threshold)
			r.cg.min_percent = r.percent_limit;
	}
	/* perf's choice: the browser on a terminal, text for --stdio or a pipe */
	if (!tui && !stdio_ && !no_tui && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		tui = true;
	if (stdio_ || no_tui || r.header || r.header_only || r.exp.folded || report_exports_any(&r.exp))
		tui = false;
	if (!tui)
		pager_start();
	{
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r,
			   .no_inline = r.res.no_inline);

		if (!(ss = cli_session_open("report", input, &so, &ret)))
			goto out;
	}
	rd = tally_session__reader(ss);
	nr_events = tally_session__nr_events(ss);
	r.ss = ss;
	tally__resolver_bind(&r.res, ss);
	if (r.header || r.header_only)
		print_file_header(stdout, rd, input);
	if (r.header_only)
		goto out;
	/* every event a tracepoint: perf's default key is the trace text */
	if (!sort && !fields && all_tracepoints(rd, nr_events)) {
		r.nsort = 0;
		add_sort_key(&r, K_TRACE);
		if (r.has_parent)	/* --parent's key, after it as before */
			r.sort[r.nsort++] = K_PARENT;
	}
	r.h = calloc((unsigned)nr_events, sizeof(*r.h));
	if (!r.h) {
		ret = 1;
		goto out;
	}
	/*
	 * perf's default: children when the samples have call chains (only
	 * then), decided before reading: a pipe's attrs come too late for it,
	 * so a pipe gets self overhead only, --children or not (as perf 6.1).
	 */
	for (int i = 0; i < nr_events && !tally_data_reader__is_pipe(rd); i++)
		if (tally_data_reader__attr(rd, i)->sample_type & PERF_SAMPLE_CALLCHAIN)
			r.children = children != 0;
	/*
	 * perf shows children's graphs root first, self graphs leaf first.
	 * perf orders graphs from the root whenever children are asked for
	 * (the default) before it reads: on a pipe too, where it then shows
	 * self overhead only. An explicit --no-children keeps leaf first.
	 */
	if (!r.cg.order_set)
		r.cg.caller = r.children ||
			      (tally_data_reader__is_pipe(rd) && children != 0);
	/* rows of the sampled functions alone need no unwinding */
	r.no_chain = !r.children && r.cg.mode == CG_NONE && !r.has_parent &&
		     !report_exports_any(&r.exp) && !tui;
	tally_session__set_unwind(ss, !r.no_chain);
	ret = cli_session_run(ss, "report", input);
	tally_session__stats(ss, &st);
	/* what was counted under ":TID" carries the name the thread got next, as perf shows it */
	for (size_t i = 0; i < r.nshapes; i++)
		r.shapes[i]->comm = tally_session__final_comm(ss, r.shapes[i]->comm);
	if (!ret && !st.samples) {
		/* perf's words (and its status, 0); no picture of nothing is written */
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", input ? input : "perf.data");
		goto out;
	}
	if (report_exports_any(&r.exp)) {
		/* the pictures are of the first event with samples */
		int idx = 0;

		while (idx + 1 < nr_events && !r.h[idx].samples)
			idx++;
		if (report_export(&r.exp, ss, input, &r.res, r.shapes, r.nshapes, idx))
			ret = 1;
		goto out;
	}
	for (size_t i = 0; i < r.nshapes; i++)
		hist_shape(&r, r.shapes[i]);
	if (r.cg.mode != CG_NONE)
		build_graphs(&r);
	/* the browser reads the very text --stdio prints */
	if (tui && (mem = open_memstream(&text, &text_len))) {
		tty_out = stdout;
		stdout = mem;
	}
	{
		for (int i = 0, first = 1; i < nr_events; i++)
			if (r.h[i].samples) {
				if (first)
					print_preamble(&r, st.lost_samples);
				first = 0;
				print_hist(&r, i);
			}
		print_unresolved(&r);
		print_unwind(ss, r.quiet);
	}
	if (tty_out) {
		int idx[nr_events], n = 0;

		stdout = tty_out;
		tty_out = NULL;
		if (fclose(mem)) {
			fprintf(stderr, "tally report: out of memory for the browser\n");
			ret = 1;
			goto out;
		}
		for (int i = 0; i < nr_events; i++)
			if (r.h[i].samples)
				idx[n++] = i;
		ret = report_browse(text, ss, input, &r.res, r.shapes, r.nshapes, idx, n);
	}
out:
	free(text);
	for (int i = 0; r.h && i < nr_events; i++) {
		for (size_t b = 0; b < r.h[i].nbuckets; b++)
			while (r.h[i].tab[b]) {
				struct entry *e = r.h[i].tab[b];

				r.h[i].tab[b] = e->next;
				cg_free(e->cg);
				free(e);
			}
		free(r.h[i].tab);
	}
	free(r.h);
	tally__resolver_free(&r.res);
	if (r.has_parent)
		regfree(&r.parent_re);
	for (size_t i = 0; i < r.nshapes; i++) {
		free(r.shapes[i]->ips);
		free(r.shapes[i]);
	}
	free(r.shapes);
	tally_strpool__delete(r.traces);
	free(r.stab);
	free(r.exp.timed);
	tally_session__close(ss);
	return ret;
}
