// SPDX-License-Identifier: MIT
/*
 * The histogram (tally/hist.h), perf report's model: each sample counts
 * in its shape as it comes (a new shape's user addresses resolved then,
 * with the maps as at its time); tally_hist__resort makes the rows from
 * the shapes: each shape's period goes to its entry, keyed by the sort
 * keys, and with children also to every distinct entry of its chain;
 * with graphs, each entry's chains merged into its tree. Every distinct
 * address is resolved once (the resolver's table).
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hash.h>
#include <tally/session.h>
#include "fmt.h"
#include "internal.h"
#include "hist_internal.h"
#include "rbtree.h"

#define K_COMM TALLY_HIST_COMM
#define K_PID TALLY_HIST_PID
#define K_DSO TALLY_HIST_DSO
#define K_SYM TALLY_HIST_SYM
#define K_CPU TALLY_HIST_CPU
#define K_SRCLINE TALLY_HIST_SRCLINE
#define K_PARENT TALLY_HIST_PARENT
#define K_TRACE TALLY_HIST_TRACE
#define K__NR TALLY_HIST_KEY__NR

struct entry {
	const char *comm;
	const char *trace;		/* a tracepoint's fields as text (interned), "N/A" for others */
	const char *parent;		/* the first caller matching the parent regex, NULL: [other] */
	uint64_t comm_hash;
	uint64_t hash;			/* of the key */
	int32_t tid;			/* the thread that made the entry */
	int32_t pid;
	int32_t cpu;
	/* where its address resolved (the resolver's, as long as h), less what a chain's frame changes */
	const struct where *w;
	/* the sorts' fields of w, here: following w in every compare tripled top -g's sort */
	const char *dso, *sym;
	uint64_t sym_start;
	uint64_t addr;			/* map-relative; an unresolved frame's ip */
	uint64_t self, children;
	uint64_t nself;			/* its own samples */
	uint64_t last_sample;		/* children: once per sample */
	char mode;			/* 'k' or '.'; a frame outside any map: the one before it's */
	bool inlined;			/* sym is "name (inlined)" */
	bool visible;			/* a sample that passed the filters touched it */
	bool dead;			/* a decay's, freed once out of the kept order */
	bool from_chain;		/* made by a chain's frame (its ip absolute, as perf's he->ip) */
	bool graphed;			/* a chain was its call graph's (cg 0 when graph_min left it out) */
	uint32_t cg;			/* its call graph's root in h->nodes (0: none) */
	uint32_t max_depth;		/* its longest chain (perf orders equal rows by it) */
	uint64_t walk;			/* graph_note's: the last walk that took it */
	size_t seq;			/* the order entries were made in (perf_order) */
	size_t rank;			/* perf_order's: its place before the output sort */
	uint64_t pre;			/* perf_order's: the leading keys' ranks, packed (sort_npre) */
	uint32_t rdso;			/* perf_order's: its DSO name's rank */
	struct entry *next;		/* hash chain */
};

/*
 * The entries come from blocks, all events' (a malloc each was a tenth
 * of the lookups' instructions), and sit in them in the order they were
 * made, which perf_order's passes mostly follow.
 */
#define ENTRY_BLK 256

struct entry_blk {
	struct entry_blk *next;
	struct entry e[ENTRY_BLK];
};

/* One event's rows and totals. */
struct hist_ev {
	struct entry **tab;
	size_t nbuckets, n;
	size_t made;			/* entries made since the table was emptied: the next one's seq */
	uint64_t total, samples, nshapes;
	struct entry **rows;		/* the visible ones, sorted */
	size_t nrows;
	/*
	 * Every entry in cmp_in_seq's order as the last perf_order left them
	 * (when that order was a true one), those made since after
	 * (seq >= in_made): a live view's next refresh sorts its new rows and
	 * merges them in, not every row again. NULL: none kept.
	 */
	struct entry **in;
	size_t nin, in_made;
	struct hist_event_info info;
};

struct tally_hist {
	struct tally_session *ss;
	enum tally_hist_key sort[K__NR];
	int nsort;
	int order[2 * K__NR + 4];	/* tally_hist__sort's; nr_order 0: perf's default */
	int nr_order;
	bool no_chain;			/* no chain needed: a shape is its ip */
	bool children, graph, caller, address;
	bool need_trace, has_parent, timeline;
	bool sym_by_name;		/* a function is its DSO and name alone */
	bool rows_stale;		/* a filter or graph change: the rows made again */
	regex_t parent_re;
	struct tally_hist_filter filter;
	char *filter_str[5];		/* the filter's copies */
	struct tally_strpool *traces;	/* trace texts, one copy each (made on first use) */
	struct hist_ev *ev;
	int nev;
	struct shape **stab, **shapes;
	size_t sbuckets, nshapes;
	size_t last_shape;		/* the shape of the sample just counted */
	struct hist_timed *timed;
	size_t ntimed, cap_timed;
	bool timed_short;		/* out of memory: the timeline lacks samples */
	uint64_t t_first, t_last;
	const char *last_comm;
	uint64_t last_comm_hash;
	uint64_t sample_no;
	uint64_t cur_count;		/* samples of the shape being added */
	struct resolver res;
	struct hist_node_pool nodes;	/* the rows' call-graph trees */
	struct entry_blk *eblk;		/* the entries' blocks, the newest first */
	size_t eblk_used;		/* entries taken from the newest */
	struct entry *efree;		/* entries a decay gave back (linked by next) */
	double graph_min;		/* opts' percent: rows under it get no tree */
	uint64_t walks;			/* graph_note's count */
	/* the walks kept until the counts are in (graph_min): records of graph_note's */
	uint64_t *gbuf;
	size_t ngbuf, cap_gbuf;
};

static struct entry *entry_new(struct tally_hist *h)
{
	struct entry *e = h->efree;

	if (e) {
		h->efree = e->next;
		return e;
	}
	if (!h->eblk || h->eblk_used == ENTRY_BLK) {
		struct entry_blk *b = malloc(sizeof(*b));

		if (!b)
			return NULL;
		b->next = h->eblk;
		h->eblk = b;
		h->eblk_used = 0;
	}
	return &h->eblk->e[h->eblk_used++];
}

static void entry_put(struct tally_hist *h, struct entry *e)
{
	e->next = h->efree;
	h->efree = e;
}

/* ---- keys ---- */

/*
 * Inline, with cmp_key, cmp_in and cmp_rows: perf_order's tree passes make
 * some 300k comparisons on a real file (a fifth of its report).
 */
static __attribute__((always_inline)) inline int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return !a && !b ? 0 : (!a ? 1 : -1);	/* no name sorts last, as perf */
	return strcmp(a, b);
}

static __attribute__((always_inline)) inline int cmp_key(const struct entry *a, const struct entry *b,
							 enum tally_hist_key k)
{
	switch (k) {
	case K_COMM:
		return strcmp_null(a->comm, b->comm);
	case K_PID:
		/* perf's "pid" key is the thread: its tid (sort__thread_cmp) */
		return a->tid != b->tid ? (a->tid < b->tid ? -1 : 1) : 0;
	case K_DSO:
		return strcmp_null(a->dso, b->dso);
	case K_SYM:
		if (!a->sym || !b->sym) {
			if (a->sym || b->sym)
				return a->sym ? -1 : 1;
			/*
			 * The level is not part of the key: an entry keeps its
			 * first. Addresses compare as perf's _sort__addr_cmp,
			 * by the sign of their difference as an int64.
			 */
			int64_t dif = (int64_t)(b->addr - a->addr);

			return dif > 0 ? -1 : dif < 0;
		}
		return strcmp_null(a->sym, b->sym);
	case K_CPU:
		return a->cpu - b->cpu;
	case K_SRCLINE:
		return strcmp_null(a->w->srcline, b->w->srcline);
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
static bool same_key(const struct tally_hist *h, const struct entry *a, const struct entry *b,
		     enum tally_hist_key k)
{
	if (k == K_SYM && a->sym && b->sym) {
		/* a DSO's symbols are one copy each: equal names are mostly one pointer */
		if (h->sym_by_name)
			return !strcmp_null(a->dso, b->dso) && !strcmp_null(a->sym, b->sym);
		if (strcmp_null(a->dso, b->dso))
			return false;
		if (a->inlined || b->inlined)
			return !strcmp_null(a->sym, b->sym);
		return a->sym_start == b->sym_start && !strcmp_null(a->sym, b->sym);
	}
	return !cmp_key(a, b, k);
}

/*
 * The entries' table is walked in bucket order before the rows are sorted,
 * so rows that tie come in the order these hashes give: seeded as they
 * always were (resolve.c's FNV_BASIS, the FNV basis short of a digit), not
 * TALLY_FNV_BASIS, so that no tie moves.
 */
#define ENTRY_SEED 1469598103934665603ULL

static uint64_t hash_entry(const struct tally_hist *h, const struct entry *e)
{
	uint64_t v, hv = ENTRY_SEED;

	for (int i = 0; i < h->nsort; i++) {
		/* the names' hashes were taken once, where they were made */
		switch (h->sort[i]) {
		case K_COMM: v = e->comm_hash; break;
		case K_PID: v = (uint64_t)e->tid; break;
		case K_DSO: v = e->w->dso_hash; break;
		case K_SYM: v = e->sym ? e->w->sym_hash : e->addr; break;
		case K_CPU: v = (uint64_t)e->cpu; break;
		case K_SRCLINE: v = e->w->srcline_hash; break;
		case K_PARENT: v = tally_fnv_str(ENTRY_SEED, e->parent); break;
		case K_TRACE: v = (uint64_t)(uintptr_t)e->trace; break;	/* interned */
		default: v = 0; break;
		}
		hv = tally_hash_mix(hv ^ v);
	}
	return hv;
}

static struct entry *hist_find(struct tally_hist *h, struct hist_ev *hs, const struct entry *key)
{
	uint64_t hv = hash_entry(h, key);
	size_t b;
	struct entry *e;

	if (hs->n >= hs->nbuckets) {
		size_t n = hs->nbuckets ? hs->nbuckets * 2 : 1024;
		struct entry **nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		for (size_t i = 0; i < hs->nbuckets; i++)
			while (hs->tab[i]) {
				struct entry *x = hs->tab[i];

				hs->tab[i] = x->next;
				b = x->hash & (n - 1);
				x->next = nt[b];
				nt[b] = x;
			}
		free(hs->tab);
		hs->tab = nt;
		hs->nbuckets = n;
	}
	b = hv & (hs->nbuckets - 1);
	for (e = hs->tab[b]; e; e = e->next) {
		int i;

		if (e->hash != hv)
			continue;
		for (i = 0; i < h->nsort && same_key(h, e, key, h->sort[i]); i++)
			;
		if (i == h->nsort)
			return e;
	}
	e = entry_new(h);	/* not zeroed: the key's copy fills it */
	if (!e)
		return NULL;
	*e = *key;
	e->hash = hv;
	e->self = e->children = 0;
	e->last_sample = UINT64_MAX;
	e->seq = hs->made++;
	e->next = hs->tab[b];
	hs->tab[b] = e;
	hs->n++;
	return e;
}

/*
 * As perf: every sample counts in every entry it touches; a filter tests
 * the sample's own entry, and an entry is shown if the sample that made
 * it passed.
 */
static int add(struct tally_hist *h, struct hist_ev *hs, struct entry *key, uint64_t period,
	       bool self, bool pass, struct entry **out)
{
	struct entry *e = hist_find(h, hs, key);

	if (!(*out = e))
		return -ENOMEM;
	if (e->last_sample == UINT64_MAX && !e->self && !e->children)
		e->visible = pass;	/* just made */
	if (self) {
		e->self += period;
		e->nself += h->cur_count;
	}
	if (h->children && e->last_sample != h->sample_no) {
		e->children += period;	/* an entry counts once per sample */
		e->last_sample = h->sample_no;
	}
	return 0;
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static bool in_id_list(const char *list, int32_t id)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", (int)id);
	return in_list(list, n);
}

/* The filter tests the sample (its own entry): perf drops the others, with their callers' entries. */
static bool shown(const struct tally_hist *h, const struct entry *e)
{
	const struct tally_hist_filter *f = &h->filter;

	if (f->comms && !in_list(f->comms, e->comm))
		return false;
	if (f->exclude_other && !e->parent)
		return false;
	if (f->pids && !in_id_list(f->pids, e->pid))
		return false;
	if (f->tids && !in_id_list(f->tids, e->tid))
		return false;
	if (f->dsos && !in_list(f->dsos, e->dso ? e->dso : "[unknown]"))
		return false;
	if (f->symbols && (!e->sym || !in_list(f->symbols, e->sym)))
		return false;
	return true;
}

/* An entry's key where an address resolved. */
static void key_where(struct entry *key, const struct where *w)
{
	key->w = w;
	key->from_chain = false;
	key->dso = w->dso;
	key->sym = w->sym;
	key->sym_start = w->sym_start;
	key->inlined = w->inlined;
	key->addr = w->addr;
	key->mode = w->mode;
}

/*
 * An entry's key for a frame of the chain, as perf's callchain entries:
 * an unresolved frame shows its ip, and one outside any map keeps the
 * level of the frame walked before it (perf reuses that frame's state).
 */
static void frame_key(struct entry *key, const struct where *w, uint64_t ip, char *prev_mode)
{
	key_where(key, w);
	key->from_chain = true;
	if (!w->sym)
		key->addr = ip;
	if (!w->dso)
		key->mode = *prev_mode;
	*prev_mode = key->mode;
}

/* ---- shapes ---- */

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

/* Count the sample in its shape: 1 when the shape is new, 0, or -ENOMEM. */
static int shape_add(struct tally_hist *h, int idx, const char *comm, const char *trace,
		     const struct tally_sample *smp, int mode, uint64_t period)
{
	uint64_t hv = shape_hash(idx, comm, trace, smp, mode);
	uint32_t nr = smp->callchain.nr > CHAIN_MAX ? CHAIN_MAX : (uint32_t)smp->callchain.nr;
	struct shape *x;

	if (h->nshapes >= h->sbuckets) {
		size_t n = h->sbuckets ? h->sbuckets * 2 : 4096;
		struct shape **nt = calloc(n, sizeof(*nt));
		struct shape **nv = realloc(h->shapes, n * sizeof(*nv));

		if (!nt || !nv) {
			free(nt);
			if (nv)
				h->shapes = nv;
			return -ENOMEM;
		}
		h->shapes = nv;
		for (size_t i = 0; i < h->nshapes; i++) {
			x = h->shapes[i];
			x->next = nt[x->hash & (n - 1)];
			nt[x->hash & (n - 1)] = x;
		}
		free(h->stab);
		h->stab = nt;
		h->sbuckets = n;
	}
	for (x = h->stab[hv & (h->sbuckets - 1)]; x; x = x->next)
		if (x->hash == hv && x->idx == idx && x->comm == comm && x->trace == trace &&
		    x->tid == (int32_t)smp->tid &&
		    x->pid == (int32_t)smp->pid && x->cpu == (int32_t)smp->cpu && x->mode == mode &&
		    x->ip == smp->ip && x->key_nr == nr &&
		    (!nr || !memcmp(x->ips, smp->callchain.ips, nr * sizeof(uint64_t)))) {
			x->period += period;
			x->count++;
			h->last_shape = x->seq;
			return 0;
		}
	/* the chain right after it: one allocation a shape (most -g shapes are seen once) */
	if (!(x = malloc(sizeof(*x) + (nr + 1) * sizeof(uint64_t))))
		return -ENOMEM;
	memset(x, 0, sizeof(*x));
	x->ips = (uint64_t *)(x + 1);
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
	x->next = h->stab[hv & (h->sbuckets - 1)];
	h->stab[hv & (h->sbuckets - 1)] = x;
	x->seq = h->nshapes;
	h->last_shape = x->seq;
	h->shapes[h->nshapes++] = x;
	return 1;
}

static bool kernel_mode(enum tally_cpumode m)
{
	return m == TALLY_CPUMODE_KERNEL || m == TALLY_CPUMODE_GUEST_KERNEL;
}

/* One copy of each distinct text: entries and shapes compare the pointers. */
static const char *trace_intern(struct tally_hist *h, const char *t)
{
	const char *p;

	if (!h->traces && !(h->traces = tally_strpool__new()))
		return "";
	p = tally_strpool__add(h->traces, t);
	return p ? p : "";
}

/* perf's trace key: libtraceevent's text of the sample's fields, "N/A" off tracepoints. */
static const char *trace_text(struct tally_hist *h, const struct perf_event_attr *a,
			      const struct tally_sample *smp)
{
	static const char na[] = "N/A";
	char buf[4096];

	if (a->type != PERF_TYPE_TRACEPOINT)
		return na;
	struct tally_trace_fmt *tf = tally_session__trace_fmt(h->ss);

	if (!tf || !(a->sample_type & PERF_SAMPLE_RAW) ||
	    tally_trace_fmt__print(tf, smp->raw.data, smp->raw.size, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return trace_intern(h, buf);
}

/* The event's slot, made on its first sample (a live session's events are all known at open). */
static struct hist_ev *event_grow(struct tally_hist *h, int idx)
{
	if (idx < 0)
		return NULL;
	if (idx >= h->nev) {
		struct hist_ev *v = realloc(h->ev, (size_t)(idx + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + h->nev, 0, (size_t)(idx + 1 - h->nev) * sizeof(*v));
		h->ev = v;
		h->nev = idx + 1;
	}
	return &h->ev[idx];
}

static inline struct hist_ev *event_of(struct tally_hist *h, int idx)
{
	return idx >= 0 && idx < h->nev ? &h->ev[idx] : event_grow(h, idx);
}

int tally_hist__add(struct tally_hist *h, const struct tally_session_sample *ts)
{
	static enum tally_cpumode modes[CHAIN_MAX];
	const struct tally_sample *smp;
	const struct perf_event_attr *a;
	struct hist_ev *hs;
	const char *comm;
	/* only what a shape keys on: copying the whole sample was a tenth of -g none's time */
	struct tally_sample chain;
	int fresh;

	if (!h || !ts || !ts->sample || !ts->event)
		return -EINVAL;
	if (!(hs = event_of(h, ts->attr)))
		return -ENOMEM;
	smp = ts->sample;
	a = ts->event;
	comm = ts->thread.comm;		/* perf's ":TID" for a thread no COMM named */
	if (!comm && !(comm = tally_session__comm(h->ss, ts)))
		comm = ":-1";
	chain.pid = smp->pid;
	chain.tid = smp->tid;
	chain.cpu = smp->cpu;
	chain.ip = smp->ip;
	chain.callchain = smp->callchain;

	if (!hs->samples)
		hs->info = (struct hist_event_info){
			.sample_type = a->sample_type, .type = a->type, .config = a->config,
			.freq = a->freq, .period = a->freq ? 0 : a->sample_period,
		};
	hs->samples++;
	hs->total += ts->period;
	if (smp->time < h->t_first || !h->t_first)
		h->t_first = smp->time;
	if (smp->time > h->t_last)
		h->t_last = smp->time;
	/* no chain needed anywhere: a shape is its ip */
	if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN) || h->no_chain)
		chain.callchain.nr = 0;
	if (!(a->sample_type & PERF_SAMPLE_CPU))
		chain.cpu = (uint32_t)-1;	/* perf's cpu key shows -001 then */
	fresh = shape_add(h, ts->attr, comm, h->need_trace ? trace_text(h, a, smp) : NULL, &chain,
			  ts->mode, ts->period);
	if (fresh < 0)
		return fresh;
	if (h->timeline) {
		if (h->ntimed == h->cap_timed) {
			size_t n = h->cap_timed ? h->cap_timed * 2 : 4096;
			void *p = realloc(h->timed, n * sizeof(*h->timed));

			if (p) {
				h->timed = p;
				h->cap_timed = n;
			}
		}
		if (h->ntimed < h->cap_timed)
			h->timed[h->ntimed++] = (struct hist_timed){ h->last_shape, smp->time, ts->period };
		else
			h->timed_short = true;
	}
	if (!fresh)
		return 0;
	hs->nshapes++;
	/* a chain perf drops (tally_session__chain_corrupt) resolves no frame */
	chain.callchain.nr = h->shapes[h->last_shape]->nr;
	/*
	 * User addresses now; kernel ones later: the kernel's map does not
	 * change, and kallsyms is still being read on the other thread.
	 */
	if (!kernel_mode(ts->mode))
		tally__resolver_get(&h->res, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, ts->mode);
	tally__chain_modes(&chain, modes);
	for (uint64_t i = 0; i < chain.callchain.nr && i < CHAIN_MAX; i++)
		if (chain.callchain.ips[i] < PERF_CONTEXT_MAX && !kernel_mode(modes[i]))
			tally__resolver_get(&h->res, (int32_t)smp->pid, (int32_t)smp->tid,
					    chain.callchain.ips[i], modes[i]);
	return 0;
}

/* ---- rows ---- */

/*
 * perf's parent: the first symbol of the chain, in its cursor's order,
 * that the parent regex matches (a match is cached per address).
 */
static const char *find_parent(struct tally_hist *h, const struct shape *x,
			       const enum tally_cpumode *modes)
{
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

	for (uint32_t k = 0; k < x->nr; k++) {
		uint32_t i = h->caller ? x->nr - 1 - k : k;
		struct where *w;
		struct where *fw[INL_MAX];
		int nf;

		if (x->ips[i] >= PERF_CONTEXT_MAX)
			continue;
		nf = tally__resolver_frames(&h->res, x->pid, x->tid, x->ips[i], modes[i], i > uw, fw);
		for (int j = 0; j < nf; j++) {
			/* an address's inline frames: outermost first from the root */
			w = fw[h->caller ? nf - 1 - j : j];
			if (!w->sym)
				continue;
			if (!w->pmatch)
				w->pmatch = regexec(&h->parent_re, w->sym, 0, NULL, 0) ? -1 : 1;
			if (w->pmatch > 0)
				return w->sym;
		}
	}
	return NULL;
}

/*
 * A shape's share in the rows, period and count samples of it not yet
 * counted there: its own entry, and with children every entry on its
 * chain once.
 */
static int graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count);
static int graph_note(struct tally_hist *h, int idx, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count);

/*
 * With graph (the trees' walk fused with the counts': graph_shape would
 * resolve and find every frame's entry again), also its share in the call
 * graphs.
 */
static int hist_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count,
		      bool graph)
{
	/* the chain's frames and their entries in the walk's order (the trees keep the frames) */
	static const struct tally_hist_frame *gframes[CHAIN_MAX];
	static struct entry *gents[CHAIN_MAX];
	struct entry *self;
	size_t n = 0;
	struct hist_ev *hs = &h->ev[x->idx];
	struct entry key = { .comm = x->comm, .trace = x->trace, .pid = x->pid, .tid = x->tid,
			     .cpu = x->cpu };
	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	static enum tally_cpumode modes[CHAIN_MAX];
	const struct where *w;
	char prev_mode;
	bool pass;
	int err;

	h->sample_no++;
	if (key.comm != h->last_comm) {
		h->last_comm = key.comm;
		h->last_comm_hash = tally_fnv_str(ENTRY_SEED, key.comm);
	}
	key.comm_hash = h->last_comm_hash;
	tally__chain_modes(&smp, modes);
	if (h->has_parent)
		key.parent = find_parent(h, x, modes);
	w = tally__resolver_get(&h->res, x->pid, x->tid, x->ip, x->mode);
	if (!w)
		return -ENOMEM;
	key_where(&key, w);
	pass = shown(h, &key);
	h->cur_count = count;
	if ((err = add(h, hs, &key, period, true, pass, &self)))
		return err;
	prev_mode = w->mode;
	if (!h->children && !graph)
		return 0;
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
		uint32_t i = h->caller ? x->nr - 1 - k : k;
		uint64_t ip = x->ips[i];
		struct where *fw[INL_MAX];
		int nf;

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		nf = tally__resolver_frames(&h->res, x->pid, x->tid, ip, modes[i], i > uw, fw);
		if (!nf)
			return -ENOMEM;
		for (int j = 0; j < nf; j++) {
			struct where *f = fw[h->caller ? nf - 1 - j : j];
			struct entry *e = NULL;

			if (h->children) {
				frame_key(&key, f, ip, &prev_mode);
				if ((err = add(h, hs, &key, period, false, pass, &e)))
					return err;
			}
			if (graph && n < CHAIN_MAX) {
				gframes[n] = &f->frame;
				gents[n] = e;
			}
			n++;
		}
	}
	if (!graph)
		return 0;
	if (n > CHAIN_MAX)	/* graph_shape keeps the root's end of so long a chain */
		return graph_shape(h, x, period, count);
	return graph_note(h, x->idx, self, gframes, gents, n, period, count);
}

/*
 * A shape's share in the call graphs (period and count not yet there)
 * apart from its counts' (hist_shape): with the parent key, or a chain
 * of more than CHAIN_MAX frames (its root's end kept). Its frames and
 * entries are found again, for graph_note.
 */
static int graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count)
{
	/* the frames are the resolver's wheres': the trees keep pointers to them */
	static const struct tally_hist_frame *frames[CHAIN_MAX], *rev[CHAIN_MAX];
	static struct entry *ents[CHAIN_MAX];
	static enum tally_cpumode modes[CHAIN_MAX];
	static struct entry *walk_ents[CHAIN_MAX];
	static const struct where *wheres[CHAIN_MAX];

	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	struct hist_ev *hs = &h->ev[x->idx];
	struct entry key = { .comm = x->comm, .comm_hash = tally_fnv_str(ENTRY_SEED, x->comm),
			     .trace = x->trace, .pid = x->pid, .tid = x->tid, .cpu = x->cpu };
	struct entry *self;
	struct where *w = tally__resolver_get(&h->res, x->pid, x->tid, x->ip, x->mode);
	size_t n = 0;
	char prev_mode;

	if (!w)
		return -ENOMEM;
	key_where(&key, w);
	self = hist_find(h, hs, &key);
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
		nf = tally__resolver_frames(&h->res, x->pid, x->tid, ip, modes[i - 1], i - 1 > uw, fw);
		if (!nf)
			break;
		/* root first: an address's outermost function before those inlined in it */
		for (int j = nf - 1; j >= 0 && n < CHAIN_MAX; j--) {
			frames[n] = &fw[j]->frame;
			wheres[n++] = fw[j];
		}
	}
	if (!self || !n)
		return 0;
	/* each frame's entry, keyed in the walk's order (as hist_shape) */
	for (size_t k = 0; h->children && k < n; k++) {
		size_t i = h->caller ? k : n - 1 - k;

		frame_key(&key, wheres[i], frames[i]->ip, &prev_mode);
		ents[i] = hist_find(h, hs, &key);
	}
	/* caller order shows root first; callee order leaf first: the walk's order */
	for (size_t i = 0; i < n; i++)
		rev[i] = frames[n - 1 - i];
	for (size_t k = 0; h->children && k < n; k++)
		walk_ents[k] = ents[h->caller ? k : n - 1 - k];
	return graph_note(h, x->idx, self, h->caller ? frames : rev, walk_ents, n, period, count);
}

/*
 * The adds of a shape's chain, frames[0..n-1] in the walk's (display)
 * order: the row's own entry gets the whole chain; with children each
 * entry of ents (NULL: none there, or not that entry's first time on
 * the chain) gets the chain from its frame on. Entries whose share is
 * under min get nothing.
 */
static int graph_walk(struct tally_hist *h, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count, uint64_t min)
{
	int err = 0;

	if ((h->children ? self->children : self->self) >= min)
		err = tally__hist_graph_add(&h->nodes, &self->cg, frames, n, period, count,
					    h->address);
	for (size_t k = 0; h->children && k < n && !err; k++)
		if (ents[k] && ents[k]->children >= min)
			err = tally__hist_graph_add(&h->nodes, &ents[k]->cg, frames + k, n - k,
						    period, count, h->address);
	return err;
}

/* Words of a walk's record: self, n, its event, period, count, n frames, n entries. */
#define REC_WORDS(n) (5 + 2 * (n))
/* The records kept at most (words): past it, they are walked at once, whole. */
#define GBUF_MAX ((size_t)4 << 20)

/* The kept walks, in order: the trees of the entries at or over min of their event's total. */
static int graph_replay(struct tally_hist *h, bool all)
{
	static const struct tally_hist_frame *frames[CHAIN_MAX];
	static struct entry *ents[CHAIN_MAX];
	int err = 0;

	for (size_t i = 0; i < h->ngbuf && !err;) {
		const uint64_t *rec = &h->gbuf[i];
		size_t n = rec[1];
		/* perf's threshold: the event's whole period times the percent, as an integer */
		uint64_t min = all ? 0 : (uint64_t)((double)h->ev[rec[2]].total *
						    (h->graph_min / 100.0));

		for (size_t k = 0; k < n; k++) {
			frames[k] = (const struct tally_hist_frame *)(uintptr_t)rec[5 + k];
			ents[k] = (struct entry *)(uintptr_t)rec[5 + n + k];
		}
		err = graph_walk(h, (struct entry *)(uintptr_t)rec[0], frames, ents, n, rec[3], rec[4],
				 min);
		i += REC_WORDS(n);
	}
	h->ngbuf = 0;
	return err;
}

/*
 * A shape's chain for the call graphs: frames[0..n-1] in the walk's
 * order, each one's entry (ents, with children). What the row order
 * reads of the trees is noted here (graphed, max_depth); the trees are
 * grown now, or, with graph_min, once the counts say which rows show
 * theirs (most of a big profile's rows are under the threshold: three
 * quarters of the adds).
 */
static int graph_note(struct tally_hist *h, int idx, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count)
{
	/* each entry of ents at its first place on the chain, NULL elsewhere */
	static struct entry *firsts[CHAIN_MAX];
	uint64_t walk = ++h->walks;
	uint64_t *rec = NULL;

	if (!self || !n)
		return 0;
	if (h->graph_min > 0) {
		if (h->ngbuf + REC_WORDS(n) > GBUF_MAX) {
			int err = graph_replay(h, true);	/* so much kept: the trees whole, in order */

			if (err)
				return err;
		}
		if (h->ngbuf + REC_WORDS(n) > h->cap_gbuf) {
			size_t cap = h->cap_gbuf ? 2 * h->cap_gbuf : 65536;
			uint64_t *v;

			while (cap < h->ngbuf + REC_WORDS(n))
				cap *= 2;
			if (!(v = realloc(h->gbuf, cap * sizeof(*v))))
				return -ENOMEM;
			h->gbuf = v;
			h->cap_gbuf = cap;
		}
		rec = &h->gbuf[h->ngbuf];
		rec[0] = (uint64_t)(uintptr_t)self;
		rec[1] = n;
		rec[2] = (uint64_t)idx;
		rec[3] = period;
		rec[4] = count;
		for (size_t k = 0; k < n; k++)
			rec[5 + k] = (uint64_t)(uintptr_t)frames[k];
		h->ngbuf += REC_WORDS(n);
	}
	self->graphed = true;
	self->walk = walk;
	if (n > self->max_depth)
		self->max_depth = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		struct entry *e = h->children ? ents[k] : NULL;

		firsts[k] = NULL;
		if (!e || e->walk == walk)
			continue;
		e->walk = walk;
		e->graphed = true;
		if (n - k > e->max_depth)
			e->max_depth = (uint32_t)(n - k);
		firsts[k] = e;
	}
	if (!rec)
		return graph_walk(h, self, frames, firsts, n, period, count, 0);
	for (size_t k = 0; k < n; k++)
		rec[5 + n + k] = (uint64_t)(uintptr_t)firsts[k];
	return 0;
}

/* ---- order ---- */

static const struct tally_hist *sort_ctx;
/*
 * perf_order's: how many of the leading sort keys (none a symbol) each
 * entry's pre packs, as ranks in cmp_key's order, and whether rdso is
 * set: one integer compare where each key's was a switch and a strcmp.
 * 0 and false outside perf_order.
 */
static int sort_npre;
static bool sort_rdso;

/* One order item: a key ascending, a count biggest first. */
static int cmp_item(const struct entry *a, const struct entry *b, int f)
{
	const struct tally_hist *h = sort_ctx;
	uint64_t x, y;

	switch (f) {
	case TALLY_HIST_BY_SELF: x = a->self; y = b->self; break;
	case TALLY_HIST_BY_CHILDREN: x = a->children; y = b->children; break;
	case TALLY_HIST_BY_SAMPLES: x = a->nself; y = b->nself; break;
	default: return cmp_key(a, b, (enum tally_hist_key)f);
	}
	if (x != y)
		return x > y ? -1 : 1;
	/*
	 * perf puts a caller above its callee at equal children: with call
	 * graphs on, the row of the same thread whose longest chain is
	 * longer comes first (shorter first in callee order).
	 */
	if (f == TALLY_HIST_BY_CHILDREN && h->children && h->graph && a->graphed && b->graphed &&
	    a->tid == b->tid && a->pid == b->pid && a->max_depth != b->max_depth)
		return (a->max_depth > b->max_depth) == h->caller ? -1 : 1;
	return 0;
}

/*
 * perf's first tests of two rows, on entries or their row_key copies (the
 * same fields): children when counted, the caller above its callee at
 * equal children within one thread (the longer chain first, shorter in
 * callee order), then self. Returns from the caller where they differ.
 */
#define CMP_COUNTS(h, a, b)									\
	do {											\
		if ((h)->children && (a)->children != (b)->children)				\
			return (a)->children > (b)->children ? -1 : 1;				\
		if ((h)->children && (h)->graph && (a)->graphed && (b)->graphed &&			\
		    (a)->tid == (b)->tid &&								\
		    (a)->pid == (b)->pid && (a)->max_depth != (b)->max_depth)			\
			return ((a)->max_depth > (b)->max_depth) == (h)->caller ? -1 : 1;	\
		if ((a)->self != (b)->self)							\
			return (a)->self > (b)->self ? -1 : 1;					\
	} while (0)

static __attribute__((always_inline)) inline int cmp_rows(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	const struct tally_hist *h = sort_ctx;
	int c;

	if (h->nr_order) {
		for (int i = 0; i < h->nr_order; i++)
			if ((c = cmp_item(a, b, h->order[i])))
				return c;
		return 0;
	}
	/* perf's default: children (when counted), self, then the keys (cmp_item's, inline) */
	CMP_COUNTS(h, a, b);
	if (sort_npre && a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	for (int i = sort_npre; i < h->nsort; i++) {
		/* perf's sort__sym_sort: two unresolved rows tie (the input order decides) */
		if (h->sort[i] == K_SYM && !a->sym && !b->sym)
			continue;
		if ((c = cmp_key(a, b, h->sort[i])))
			return c;
	}
	return 0;
}

/*
 * perf's hist_entry__cmp, the order of its input trees: whether entry a,
 * put into a tree, goes left of b (< 0). As cmp_key, except that a symbol
 * is its DSO and address (sort__sym_cmp), and addresses, unresolved ones'
 * and symbols' starts, compare by the sign of their difference as an
 * int64 (so not transitively: 0x7f.. comes before 0x00.., which comes
 * before 0xc3..).
 */
static __attribute__((always_inline)) inline int cmp_in(const struct tally_hist *h, const struct entry *a,
							const struct entry *b)
{
	int c;

	if (sort_npre && a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	for (int i = sort_npre; i < h->nsort; i++) {
		if (h->sort[i] == K_SYM && (a->sym || b->sym)) {
			if (sort_rdso && a->rdso != b->rdso)
				return a->rdso < b->rdso ? -1 : 1;
			if (!sort_rdso && (c = strcmp_null(a->dso, b->dso)))
				return c;
			if (!a->sym || !b->sym)
				return a->sym ? -1 : 1;
			if ((a->inlined || b->inlined) && (c = strcmp(b->sym, a->sym)))
				return c;
			int64_t d = (int64_t)(a->sym_start - b->sym_start);

			if (d)
				return d < 0 ? -1 : 1;
			continue;
		}
		if ((c = cmp_key(a, b, h->sort[i])))
			return c;
	}
	return 0;
}

/*
 * With the usual keys (all but a last symbol packed in pre), the tree
 * passes compare copies of the fields they read, side by side: an entry
 * is 200 bytes, scattered, and the passes touch each one some 40 times.
 */
struct in_key {			/* cmp_in's */
	uint64_t pre;
	uint64_t at;			/* the symbol's start, else the unresolved address */
	const char *sym;		/* an inlined function's name */
	uint32_t rdso;
	bool resolved, inlined;
};

struct row_key {		/* cmp_rows' */
	uint64_t children, self, pre;
	const char *sym;
	int32_t tid, pid;
	uint32_t max_depth;
	bool graphed;
};

/* Whether the keys' copies hold all that cmp_in and cmp_rows read: every key in pre but a last symbol. */
static bool keys_packed(const struct tally_hist *h)
{
	return !h->nr_order && (sort_npre == h->nsort ||
				(sort_npre == h->nsort - 1 && h->sort[h->nsort - 1] == K_SYM && sort_rdso));
}

static void in_key_of(struct in_key *k, const struct entry *e)
{
	*k = (struct in_key){ .pre = e->pre, .at = e->sym ? e->sym_start : e->addr, .sym = e->sym,
			      .rdso = e->rdso, .resolved = e->sym != NULL, .inlined = e->inlined };
}

static void row_key_of(struct row_key *k, const struct entry *e)
{
	*k = (struct row_key){ .children = e->children, .self = e->self, .pre = e->pre,
			       .sym = e->sym, .tid = e->tid, .pid = e->pid,
			       .max_depth = e->max_depth, .graphed = e->graphed };
}

/* cmp_in on the copies (keys_packed) */
static __attribute__((always_inline)) inline int cmp_in_key(const struct in_key *a, const struct in_key *b)
{
	int64_t d;
	int c;

	if (a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	if (!a->resolved && !b->resolved) {
		d = (int64_t)(b->at - a->at);	/* cmp_key's two unresolved addresses */
		return d > 0 ? -1 : d < 0;
	}
	if (a->rdso != b->rdso)
		return a->rdso < b->rdso ? -1 : 1;
	if (!a->resolved || !b->resolved)
		return a->resolved ? -1 : 1;
	if ((a->inlined || b->inlined) && (c = strcmp(b->sym, a->sym)))
		return c;
	d = (int64_t)(a->at - b->at);
	return d ? (d < 0 ? -1 : 1) : 0;
}

/* cmp_rows on the copies (keys_packed) */
static __attribute__((always_inline)) inline int cmp_row_key(const struct tally_hist *h,
							     const struct row_key *a,
							     const struct row_key *b)
{
	CMP_COUNTS(h, a, b);
	if (a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	if (sort_npre == h->nsort || (!a->sym && !b->sym))
		return 0;	/* perf's sort__sym_sort: two unresolved rows tie */
	return strcmp_null(a->sym, b->sym);
}

enum pass_cmp { BY_IN, BY_ROWS, BY_IN_KEY, BY_ROW_KEY };

/* The inserts of a tree pass, by one comparison (a constant: each caller gets its own loop). */
static __attribute__((always_inline)) inline void tree_insert(const struct tally_hist *h,
							      struct tally__rbt *t, struct entry **in,
							      const struct in_key *ik,
							      const struct row_key *rk, size_t n,
							      enum pass_cmp by)
{
	t->root = -1;
	for (size_t i = 0; i < n; i++) {
		int32_t x = t->root, p = -1;
		bool left = false;

		while (x >= 0) {
			p = x;
			switch (by) {
			case BY_IN: left = cmp_in(h, in[i], in[x]) < 0; break;
			case BY_ROWS: left = cmp_rows(&in[i], &in[x]) < 0; break;
			case BY_IN_KEY: left = cmp_in_key(&ik[i], &ik[x]) < 0; break;
			case BY_ROW_KEY: left = cmp_row_key(h, &rk[i], &rk[x]) < 0; break;
			}
			x = left ? t->n[x].l : t->n[x].r;
		}
		tally__rb_link(t, (int32_t)i, p, left);
	}
}

/*
 * Each entry of in[] (n) into a red-black tree by cmp (cmp_in or, output,
 * cmp_rows), read back in order; on copies of the keys' fields in kb
 * (room for n of the larger) when keys_packed, else on the entries.
 */
static void tree_pass(const struct tally_hist *h, struct tally__rbt *t, struct entry **in,
		      struct entry **out, size_t n, bool output, void *kb)
{
	struct in_key *ik = kb;
	struct row_key *rk = kb;
	size_t k = 0;

	for (size_t i = 0; kb && i < n; i++)
		if (output)
			row_key_of(&rk[i], in[i]);
		else
			in_key_of(&ik[i], in[i]);
	if (kb && output)
		tree_insert(h, t, in, ik, rk, n, BY_ROW_KEY);
	else if (kb)
		tree_insert(h, t, in, ik, rk, n, BY_IN_KEY);
	else if (output)
		tree_insert(h, t, in, ik, rk, n, BY_ROWS);
	else
		tree_insert(h, t, in, ik, rk, n, BY_IN);
	for (int32_t x = tally__rb_first(t); x >= 0; x = tally__rb_next(t, x))
		out[k++] = in[x];
}

/* cmp_in, ties in the order the entries were made (a tree's insertion order) */
static int cmp_in_seq(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	int c = cmp_in(sort_ctx, a, b);

	return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

static int by_seq(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* cmp_rows, ties in their order before (rank) */
static int cmp_rows_rank(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	int c = cmp_rows(pa, pb);

	return c ? c : (a->rank < b->rank ? -1 : a->rank > b->rank);
}

/*
 * cmp_in is a true order here when the unresolved addresses all lie
 * within 2^63 of each other (a DSO's symbols always do), and cmp_rows
 * when its caller-above-callee rule holds between every two rows (one
 * thread, each with a call graph).
 */
static bool in_transitive(struct entry **e, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < n; i++)
		if (!e[i]->sym) {
			lo = e[i]->addr < lo ? e[i]->addr : lo;
			hi = e[i]->addr > hi ? e[i]->addr : hi;
		}
	return lo > hi || hi - lo <= (uint64_t)INT64_MAX;
}

static bool rows_transitive(const struct tally_hist *h, struct entry **e, size_t n)
{
	if (!h->children || !h->graph)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!e[i]->graphed || e[i]->tid != e[0]->tid || e[i]->pid != e[0]->pid)
			return false;
	return true;
}

/*
 * in[] (n, every entry) in cmp_in_seq's order: the order kept from the
 * last time with the entries made since sorted and merged in (out: n of
 * room), else all sorted; kept for the next time.
 */
static void in_order(struct hist_ev *hs, struct entry **in, struct entry **out, size_t n)
{
	size_t m = 0, a = 0, b = 0, k = 0;

	if (!hs->in) {
		qsort(in, n, sizeof(*in), cmp_in_seq);
	} else {
		/* the new ones, sorted */
		for (size_t i = 0; i < n; i++)
			if (in[i]->seq >= hs->in_made)
				out[m++] = in[i];
		if (m + hs->nin != n) {
			/* not the entries kept plus the new ones: sort them all */
			free(hs->in);
			hs->in = NULL;
			qsort(in, n, sizeof(*in), cmp_in_seq);
			goto keep;
		}
		qsort(out, m, sizeof(*out), cmp_in_seq);
		while (a < hs->nin && b < m)
			in[k++] = cmp_in_seq(&hs->in[a], &out[b]) < 0 ? hs->in[a++] : out[b++];
		while (a < hs->nin)
			in[k++] = hs->in[a++];
		while (b < m)
			in[k++] = out[b++];
	}
keep:
	if (!hs->in || hs->nin < n) {
		struct entry **v = realloc(hs->in, (n ? n : 1) * sizeof(*v));

		if (!v) {
			free(hs->in);
			hs->in = NULL;
			hs->nin = 0;
			return;	/* sorted; nothing kept */
		}
		hs->in = v;
	}
	memcpy(hs->in, in, n * sizeof(*in));
	hs->nin = n;
	hs->in_made = hs->made;
}

/* What a key is, as a number: equal numbers, equal keys (unequal ones may still compare equal: strings not interned). */
static uint64_t key_ident(const struct entry *e, enum tally_hist_key k)
{
	switch (k) {
	case K_COMM: return (uintptr_t)e->comm;
	case K_PID: return (uint32_t)e->tid;
	case K_DSO: return (uintptr_t)e->dso;
	case K_CPU: return (uint32_t)e->cpu;
	case K_SRCLINE: return (uintptr_t)e->w->srcline;
	case K_PARENT: return (uintptr_t)e->parent;
	case K_TRACE: return (uintptr_t)e->trace;
	default: return 0;
	}
}

static enum tally_hist_key rank_k;

static int cmp_rep(const void *pa, const void *pb)
{
	return cmp_key(*(struct entry *const *)pa, *(struct entry *const *)pb, rank_k);
}

/*
 * Each entry's key k as its rank (out[i], from 0) among the values the
 * entries have, in cmp_key's order: the distinct values by a hash of
 * their numbers, then those few sorted. Returns how many ranks, or
 * -ENOMEM.
 */
static long rank_key(struct entry **in, size_t n, enum tally_hist_key k, uint32_t *out)
{
	struct slot {
		uint64_t id;
		uint32_t ix;		/* its distinct value's index + 1; 0: empty */
	} *tab;
	size_t cap = 64, d = 0, rcap = 0;
	struct entry **reps = NULL;
	uint32_t *rank = NULL;
	long r = -1;

	if (!(tab = calloc(cap, sizeof(*tab))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = key_ident(in[i], k);
		size_t b = tally_hash_mix(id) & (cap - 1);

		while (tab[b].ix && tab[b].id != id)
			b = (b + 1) & (cap - 1);
		if (tab[b].ix) {
			out[i] = tab[b].ix - 1;
			continue;
		}
		if (d == rcap) {
			struct entry **v = realloc(reps, (rcap = rcap ? 2 * rcap : 16) * sizeof(*v));

			if (!v)
				goto out;
			reps = v;
		}
		tab[b].id = id;
		tab[b].ix = (uint32_t)++d;
		reps[d - 1] = in[i];
		out[i] = (uint32_t)(d - 1);
		if (d >= cap / 2) {
			struct slot *nt = calloc(cap * 2, sizeof(*nt));

			if (!nt)
				goto out;
			for (size_t j = 0; j < cap; j++) {
				if (!tab[j].ix)
					continue;
				b = tally_hash_mix(tab[j].id) & (2 * cap - 1);
				while (nt[b].ix)
					b = (b + 1) & (2 * cap - 1);
				nt[b] = tab[j];
			}
			free(tab);
			tab = nt;
			cap *= 2;
		}
	}
	if (!d) {
		r = 0;
		goto out;
	}
	/* the distinct values in order: each rep's index rides in its rank slot */
	struct entry **sorted = malloc(d * sizeof(*sorted));

	if (!sorted || !(rank = malloc(d * sizeof(*rank)))) {
		free(sorted);
		goto out;
	}
	memcpy(sorted, reps, d * sizeof(*sorted));
	rank_k = k;
	qsort(sorted, d, sizeof(*sorted), cmp_rep);
	/* a rep's index: its id in the table */
	r = 0;
	for (size_t j = 0; j < d; j++) {
		uint64_t id = key_ident(sorted[j], k);
		size_t b = tally_hash_mix(id) & (cap - 1);

		while (tab[b].id != id)
			b = (b + 1) & (cap - 1);
		if (j && cmp_key(sorted[j - 1], sorted[j], k))
			r++;
		rank[tab[b].ix - 1] = (uint32_t)r;
	}
	r++;
	for (size_t i = 0; i < n; i++)
		out[i] = rank[out[i]];
	free(sorted);
out:
	free(tab);
	free(reps);
	free(rank);
	return r;
}

/*
 * The entries' leading keys (those before the symbol) as one packed
 * number, and their DSOs' ranks for cmp_in's symbol compare: set
 * sort_npre and sort_rdso for cmp_in and cmp_rows. Any key that does not
 * fit, or for lack of memory, is compared as it was.
 */
static void rank_entries(const struct tally_hist *h, struct entry **in, size_t n, uint32_t *tmp)
{
	int bits = 0, npre = 0;
	bool sym = false, rdso = false;

	for (size_t j = 0; j < n; j++)
		in[j]->pre = 0;
	for (int i = 0; i < h->nsort; i++)
		sym |= h->sort[i] == K_SYM;
	for (int i = 0; i < h->nsort && h->sort[i] != K_SYM; i++) {
		long d = rank_key(in, n, h->sort[i], tmp);
		int b = 0;

		if (d < 0)
			break;
		while (b < 64 && ((uint64_t)1 << b) < (uint64_t)d)
			b++;
		if (bits + b > 64)
			break;
		for (size_t j = 0; j < n && b; j++)
			in[j]->pre = in[j]->pre << b | tmp[j];
		/* the DSO's ranks serve the symbol's compare too: not ranked twice */
		for (size_t j = 0; j < n && h->sort[i] == K_DSO; j++)
			in[j]->rdso = tmp[j];
		rdso |= h->sort[i] == K_DSO;
		bits += b;
		npre++;
	}
	sort_npre = npre;
	sort_rdso = false;
	if (sym && (rdso || rank_key(in, n, K_DSO, tmp) >= 0)) {
		for (size_t j = 0; j < n && !rdso; j++)
			in[j]->rdso = tmp[j];
		sort_rdso = true;
	}
}

/* in[] (n) in the order the entries were made: placed by seq where few were taken out since, else sorted */
static void seq_order(const struct hist_ev *hs, struct entry **in, size_t n)
{
	struct entry **at;
	size_t k = 0;

	if (hs->made > 2 * n || !(at = calloc(hs->made, sizeof(*at)))) {
		qsort(in, n, sizeof(*in), by_seq);
		return;
	}
	for (size_t i = 0; i < n; i++)
		at[in[i]->seq] = in[i];
	for (size_t i = 0; i < hs->made; i++)
		if (at[i])
			in[k++] = at[i];
	free(at);
}

/*
 * perf's default row order, which no sort gives in general: its rows
 * come out of three red-black trees. The entries go into
 * hists->entries_in as the samples make them, then in that tree's order
 * into entries_collapsed (both by cmp_in), then in that one's order into
 * the output tree by cmp_rows; each goes left of a node it sorts before,
 * right otherwise. cmp_in's int64 differences and cmp_rows' caller-above-
 * callee rule (within one thread) are not transitive: there the trees'
 * shapes decide, and they are replayed, on every entry (filtered ones
 * too, as perf's). Where the order is a true one, a stable sort gives the
 * same rows for less.
 */
static int perf_order(const struct tally_hist *h, struct hist_ev *hs)
{
	size_t n = hs->n;
	struct tally__rbt t = { NULL, -1 };
	struct entry **in, **out;

	hs->nrows = 0;
	if (!n)
		return 0;
	if (n > INT32_MAX)
		return -ENOMEM;
	in = malloc(n * sizeof(*in));
	out = malloc(n * sizeof(*out));
	t.n = malloc(n * sizeof(*t.n));
	if (!in || !out || !t.n) {
		free(in);
		free(out);
		free(t.n);
		return -ENOMEM;
	}
	n = 0;
	for (size_t b = 0; b < hs->nbuckets; b++)
		for (struct entry *e = hs->tab[b]; e; e = e->next)
			in[n++] = e;
	sort_ctx = h;
	/* out[] is free until the first pass: the ranks' room */
	rank_entries(h, in, n, (uint32_t *)out);
	/* without room for the copies, the passes read the entries */
	void *kb = keys_packed(h) ? malloc(n * (sizeof(struct row_key) > sizeof(struct in_key) ?
						sizeof(struct row_key) : sizeof(struct in_key))) : NULL;

	if (in_transitive(in, n)) {
		in_order(hs, in, out, n);
	} else {
		free(hs->in);
		hs->in = NULL;
		hs->nin = 0;
		seq_order(hs, in, n);
		tree_pass(h, &t, in, out, n, false, kb);
		tree_pass(h, &t, out, in, n, false, kb);
	}
	if (rows_transitive(h, in, n)) {
		for (size_t i = 0; i < n; i++)
			in[i]->rank = i;
		qsort(in, n, sizeof(*in), cmp_rows_rank);
	} else {
		tree_pass(h, &t, in, out, n, true, kb);
		memcpy(in, out, n * sizeof(*in));
	}
	free(kb);
	sort_npre = 0;
	sort_rdso = false;
	for (size_t i = 0; i < n; i++)
		if (in[i]->visible)
			hs->rows[hs->nrows++] = in[i];
	free(in);
	free(out);
	free(t.n);
	return 0;
}

/* hs's rows in h's order: perf's by default, else the one tally_hist__sort was given. */
static int order_rows(const struct tally_hist *h, struct hist_ev *hs)
{
	if (!h->nr_order)
		return perf_order(h, hs);
	/* the table's order: rows that tie keep it */
	hs->nrows = 0;
	for (size_t b = 0; b < hs->nbuckets; b++)
		for (struct entry *e = hs->tab[b]; e; e = e->next)
			if (e->visible)
				hs->rows[hs->nrows++] = e;
	sort_ctx = h;
	qsort(hs->rows, hs->nrows, sizeof(*hs->rows), cmp_rows);
	return 0;
}

int tally_hist__sort(struct tally_hist *h, const int *order, int n)
{
	if (!h || n < 0 || n > (int)(sizeof(h->order) / sizeof(h->order[0])) || (n && !order))
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if ((order[i] < 0 || order[i] >= K__NR) &&
		    (order[i] < TALLY_HIST_BY_SELF || order[i] > TALLY_HIST_BY_SAMPLES))
			return -EINVAL;
	memcpy(h->order, order, (size_t)n * sizeof(*order));
	h->nr_order = n;
	for (int e = 0; e < h->nev; e++)
		if (h->ev[e].rows && order_rows(h, &h->ev[e]))
			return -ENOMEM;
	return 0;
}

/* ---- life ---- */

static void free_rows(struct tally_hist *h)
{
	for (int i = 0; i < h->nev; i++) {
		struct hist_ev *hs = &h->ev[i];

		free(hs->tab);
		free(hs->rows);
		free(hs->in);
		hs->tab = NULL;
		hs->rows = NULL;
		hs->in = NULL;
		hs->nin = 0;
		hs->nbuckets = hs->n = hs->nrows = hs->made = 0;
	}
	while (h->eblk) {	/* every event's entries */
		struct entry_blk *b = h->eblk;

		h->eblk = b->next;
		free(b);
	}
	h->eblk_used = 0;
	h->efree = NULL;
	tally__hist_graph_free_all(&h->nodes);	/* every row's tree */
}

/*
 * The rows count what came since the last resort (a shape's samples not
 * yet in them), so a live view's refresh costs the new samples' shapes
 * and the sort, not every shape again. They are made again from all the
 * shapes when a filter or the graph changed, or a thread's name did.
 */
int tally_hist__resort(struct tally_hist *h)
{
	bool again = h && h->rows_stale;
	int err = 0;

	if (!h)
		return -EINVAL;
	/* what was counted under ":TID" carries the name the thread got next, as perf shows it */
	for (size_t i = 0; i < h->nshapes; i++) {
		const char *c = tally_session__final_comm(h->ss, h->shapes[i]->comm);

		again |= c != h->shapes[i]->comm && h->shapes[i]->rows_count;
		h->shapes[i]->comm = c;
	}
	if (again) {
		free_rows(h);
		for (size_t i = 0; i < h->nshapes; i++)
			h->shapes[i]->rows_period = h->shapes[i]->rows_count = 0;
	}
	h->rows_stale = false;
	for (int i = 0; i < h->nev; i++) {
		free(h->ev[i].rows);
		h->ev[i].rows = NULL;
		h->ev[i].nrows = 0;
	}
	h->last_comm = NULL;
	/*
	 * Each shape's counts and its graphs at once: a graph's walk finds
	 * the entries its counts made, so they are made in the same order as
	 * all the counts first. Except with the parent key: the graphs' keys
	 * have no parent (their entries are other ones), so they come after.
	 */
	bool fused = h->graph && !h->has_parent;

	for (size_t i = 0; i < h->nshapes && !err; i++) {
		struct shape *x = h->shapes[i];

		if (x->count != x->rows_count)
			err = hist_shape(h, x, x->period - x->rows_period, x->count - x->rows_count,
					 fused);
	}
	for (size_t i = 0; i < h->nshapes && !err && h->graph && !fused; i++) {
		struct shape *x = h->shapes[i];

		if (x->count != x->rows_count)
			err = graph_shape(h, x, x->period - x->rows_period, x->count - x->rows_count);
	}
	/* the counts in: the kept walks grow the trees of the rows that show them */
	if (!err)
		err = graph_replay(h, false);
	free(h->gbuf);		/* its megabyte serves the rows' copies next */
	h->gbuf = NULL;
	h->ngbuf = h->cap_gbuf = 0;
	for (size_t i = 0; i < h->nshapes; i++) {
		h->shapes[i]->rows_period = h->shapes[i]->period;
		h->shapes[i]->rows_count = h->shapes[i]->count;
	}
	for (int i = 0; i < h->nev && !err; i++) {
		struct hist_ev *hs = &h->ev[i];

		if (!(hs->rows = malloc((hs->n + 1) * sizeof(*hs->rows)))) {
			err = -ENOMEM;
			break;
		}
		err = order_rows(h, hs);
	}
	if (err) {
		free_rows(h);
		h->rows_stale = true;	/* half counted: all again next time */
	}
	return err;
}

int tally_hist__set_graph(struct tally_hist *h, bool graph, enum tally_hist_cg_order order,
			  bool address)
{
	if (!h || (graph && h->no_chain) || (order != TALLY_HIST_CALLER && order != TALLY_HIST_CALLEE))
		return -EINVAL;
	h->graph = graph;
	h->caller = order == TALLY_HIST_CALLER;
	h->address = address;
	h->rows_stale = true;
	return 0;
}

void tally_hist__zero(struct tally_hist *h)
{
	if (!h)
		return;
	free_rows(h);
	for (size_t i = 0; i < h->nshapes; i++) {
		free(h->shapes[i]);	/* its chain with it */
	}
	h->nshapes = 0;
	if (h->stab)
		memset(h->stab, 0, h->sbuckets * sizeof(*h->stab));
	for (int i = 0; i < h->nev; i++)
		h->ev[i].samples = h->ev[i].total = h->ev[i].nshapes = 0;
	h->ntimed = 0;
	h->timed_short = false;
	h->t_first = h->t_last = 0;
}

/*
 * A live view's addresses: each process's own (pid, ip) entries, so a
 * machine that starts processes all the time (a build) grew them without
 * end. After a decay, those not asked for since the last one go unless a
 * row or a tree's node still points at them (a process that exited is
 * out of the new samples: its rows keep their own).
 */
static void sweep_resolver(struct tally_hist *h)
{
	for (int i = 0; i < h->nev; i++)
		for (size_t b = 0; b < h->ev[i].nbuckets; b++)
			for (const struct entry *e = h->ev[i].tab[b]; e; e = e->next)
				((struct where *)e->w)->held = true;
	/* a node's frame is its where's first fields, but the root's */
	for (uint32_t i = 1; i < h->nodes.used; i++)
		if (!h->nodes.n[i].dead && !tally__hist_graph_is_root(h->nodes.n[i].f))
			((struct where *)h->nodes.n[i].f)->held = true;
	tally__resolver_sweep(&h->res);
}

/*
 * perf top's hists__decay_entries: what the rows counted loses an eighth
 * (their periods, samples, trees and the totals), and a row whose own
 * period is zero after, or was before (a caller's row of children
 * alone), goes. The shapes age the same way so that rows made again
 * (a filter, the flame view) agree, and go at zero: a long run's memory
 * stays that of its last minutes.
 */
int tally_hist__decay(struct tally_hist *h)
{
	size_t kept = 0;
	int err;

	if (!h)
		return -EINVAL;
	for (int i = 0; i < h->nev; i++) {
		struct hist_ev *hs = &h->ev[i];
		struct entry *dead = NULL;

		for (size_t b = 0; b < hs->nbuckets; b++)
			for (struct entry **link = &hs->tab[b], *e; (e = *link);) {
				uint64_t prev = e->self;

				if (prev) {
					e->self = prev * 7 / 8;
					e->nself = e->nself * 7 / 8;
					e->children = e->children * 7 / 8;
					tally__hist_graph_decay(&h->nodes, e->cg);
					hs->total -= prev - e->self;
				}
				if (e->self) {
					link = &e->next;
					continue;
				}
				*link = e->next;
				tally__hist_graph_put(&h->nodes, e->cg);
				e->dead = true;
				e->next = dead;
				dead = e;
				hs->n--;
			}
		/* out of the kept order, then freed */
		if (hs->in) {
			size_t k = 0;

			for (size_t j = 0; j < hs->nin; j++)
				if (!hs->in[j]->dead)
					hs->in[k++] = hs->in[j];
			hs->nin = k;
		}
		while (dead) {
			struct entry *e = dead;

			dead = e->next;
			entry_put(h, e);
		}
		/* the rows are made again at the next resort */
		free(hs->rows);
		hs->rows = NULL;
		hs->nrows = 0;
	}
	if ((err = tally__hist_graph_reindex(&h->nodes)))
		return err;
	/* the part of a shape the rows have ages; what came since joins them at the next resort */
	for (size_t i = 0; i < h->nshapes; i++) {
		struct shape *x = h->shapes[i];
		uint64_t new_period = x->period - x->rows_period, new_count = x->count - x->rows_count;

		x->rows_period = x->rows_period * 7 / 8;
		x->rows_count = x->rows_count * 7 / 8;
		x->period = x->rows_period + new_period;
		x->count = x->rows_count + new_count;
		if (x->count || x->period || h->timeline) {	/* the timeline's samples name their shapes' indexes */
			x->seq = kept;
			h->shapes[kept++] = x;
			continue;
		}
		h->ev[x->idx].nshapes--;
		free(x);	/* its chain with it */
	}
	if (kept != h->nshapes) {
		h->nshapes = kept;
		memset(h->stab, 0, h->sbuckets * sizeof(*h->stab));
		for (size_t i = 0; i < kept; i++) {
			struct shape *x = h->shapes[i];

			x->next = h->stab[x->hash & (h->sbuckets - 1)];
			h->stab[x->hash & (h->sbuckets - 1)] = x;
		}
	}
	sweep_resolver(h);
	return 0;
}

static void free_filter(struct tally_hist *h)
{
	for (size_t i = 0; i < sizeof(h->filter_str) / sizeof(h->filter_str[0]); i++) {
		free(h->filter_str[i]);
		h->filter_str[i] = NULL;
	}
	memset(&h->filter, 0, sizeof(h->filter));
}

int tally_hist__set_filter(struct tally_hist *h, const struct tally_hist_filter *f)
{
	const char *in[5];
	char *out[5] = { NULL };

	if (!h || !TALLY_OPTS_VALID(f, tally_hist_filter))
		return -EINVAL;
	in[0] = TALLY_OPTS_GET(f, comms, NULL);
	in[1] = TALLY_OPTS_GET(f, pids, NULL);
	in[2] = TALLY_OPTS_GET(f, tids, NULL);
	in[3] = TALLY_OPTS_GET(f, dsos, NULL);
	in[4] = TALLY_OPTS_GET(f, symbols, NULL);
	for (int i = 0; i < 5; i++)
		if (in[i] && !(out[i] = strdup(in[i]))) {
			while (i--)
				free(out[i]);
			return -ENOMEM;
		}
	free_filter(h);
	memcpy(h->filter_str, out, sizeof(out));
	h->filter.comms = out[0];
	h->filter.pids = out[1];
	h->filter.tids = out[2];
	h->filter.dsos = out[3];
	h->filter.symbols = out[4];
	h->filter.exclude_other = TALLY_OPTS_GET(f, exclude_other, false);
	h->rows_stale = true;
	return 0;
}

struct tally_hist *tally_hist__new(struct tally_session *ss, const struct tally_hist_opts *opts)
{
	static const enum tally_hist_key def_keys[] = { K_COMM, K_DSO, K_SYM };
	const enum tally_hist_key *keys;
	const char *parent;
	struct tally_hist *h;
	int nkeys, n;

	if (!ss || !TALLY_OPTS_VALID(opts, tally_hist_opts))
		return tally__err_ptr(EINVAL);
	keys = TALLY_OPTS_GET(opts, keys, NULL);
	nkeys = TALLY_OPTS_GET(opts, nr_keys, 0);
	if (!keys) {
		keys = def_keys;
		nkeys = 3;
		/* every event a tracepoint: perf's default key is the trace text */
		struct tally_data_reader *rd = tally_session__reader(ss);
		int i, nev = tally_session__nr_events(ss);

		for (i = 0; rd && i < nev && tally_data_reader__attr(rd, i)->type == PERF_TYPE_TRACEPOINT; i++)
			;
		if (rd && nev > 0 && i == nev) {
			static const enum tally_hist_key trace_key[] = { K_TRACE };

			keys = trace_key;
			nkeys = 1;
		}
	}
	if (nkeys < 0 || nkeys > K__NR)	/* no key: one row of every sample (-F overhead) */
		return tally__err_ptr(EINVAL);
	for (int i = 0; i < nkeys; i++)
		if ((unsigned)keys[i] >= K__NR)
			return tally__err_ptr(EINVAL);
	if (!(h = calloc(1, sizeof(*h))))
		return tally__err_ptr(ENOMEM);
	h->ss = ss;
	memcpy(h->sort, keys, (size_t)nkeys * sizeof(*keys));
	h->nsort = nkeys;
	for (int i = 0; i < nkeys; i++) {
		h->res.srcline |= keys[i] == K_SRCLINE;
		h->has_parent |= keys[i] == K_PARENT;
		h->need_trace |= keys[i] == K_TRACE;
	}
	h->children = TALLY_OPTS_GET(opts, children, false);
	h->graph = TALLY_OPTS_GET(opts, graph, false);
	h->caller = TALLY_OPTS_GET(opts, order, TALLY_HIST_CALLEE) == TALLY_HIST_CALLER;
	h->address = TALLY_OPTS_GET(opts, address, false);
	h->timeline = TALLY_OPTS_GET(opts, timeline, false);
	h->sym_by_name = TALLY_OPTS_GET(opts, sym_by_name, false);
	h->graph_min = TALLY_OPTS_GET(opts, graph_min, 0.0);
	h->res.no_inline = TALLY_OPTS_GET(opts, no_inline, false);
	/* rows of the sampled functions alone need no chain */
	h->no_chain = !TALLY_OPTS_GET(opts, chains, false) && !h->children && !h->graph &&
		      !h->has_parent && !h->timeline;
	parent = TALLY_OPTS_GET(opts, parent, NULL);
	if (h->has_parent && regcomp(&h->parent_re, parent ? parent : "^sys_|^do_page_fault",
				     REG_EXTENDED | REG_NOSUB)) {
		h->has_parent = false;
		tally_hist__free(h);
		return tally__err_ptr(EINVAL);
	}
	tally__resolver_bind(&h->res, ss);
	n = tally_session__nr_events(ss);
	if (n > 0 && !event_of(h, n - 1)) {
		tally_hist__free(h);
		return tally__err_ptr(ENOMEM);
	}
	return h;
}

void tally_hist__free(struct tally_hist *h)
{
	if (!h)
		return;
	tally_hist__zero(h);
	free(h->ev);
	free(h->shapes);
	free(h->stab);
	free(h->timed);
	free_filter(h);
	if (h->has_parent)
		regfree(&h->parent_re);
	tally__resolver_free(&h->res);
	tally_strpool__free(h->traces);
	free(h->gbuf);
	free(h);
}

/* ---- reading ---- */

int tally_hist__nr_events(const struct tally_hist *h)
{
	return h ? h->nev : 0;
}

int tally_hist__totals(const struct tally_hist *h, int event, struct tally_hist_totals *out)
{
	size_t sz;

	if (!h || event < 0 || event >= h->nev || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_totals v = {
		.sz = sz, .samples = h->ev[event].samples, .period = h->ev[event].total,
		.shapes = h->ev[event].nshapes, .time_first = h->t_first, .time_last = h->t_last,
	};

	memcpy(out, &v, sz);
	return 0;
}

size_t tally_hist__nr_rows(const struct tally_hist *h, int event)
{
	return h && event >= 0 && event < h->nev ? h->ev[event].nrows : 0;
}

int tally_hist__row(const struct tally_hist *h, int event, size_t i, struct tally_hist_row *out)
{
	const struct entry *e;
	size_t sz;

	if (!h || event < 0 || event >= h->nev || i >= h->ev[event].nrows || !out ||
	    out->sz < sizeof(size_t))
		return -EINVAL;
	e = h->ev[event].rows[i];
	/*
	 * The rows are asked for in order, their entries lie anywhere: the
	 * next ones fetched ahead, and their wheres once they are in (a
	 * cache miss each was two thirds of a busy machine's row copies).
	 */
	if (i + 8 < h->ev[event].nrows)
		__builtin_prefetch(h->ev[event].rows[i + 8]);
	if (i + 4 < h->ev[event].nrows) {
		const struct entry *a = h->ev[event].rows[i + 4];

		__builtin_prefetch(a->w);
		__builtin_prefetch(&a->w->object_symoff);	/* a where is three lines */
	}
	if (i + 2 < h->ev[event].nrows && h->ev[event].rows[i + 2]->w->map)
		__builtin_prefetch(h->ev[event].rows[i + 2]->w->map);
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_row v = {
		.sz = sz, .self = e->self, .children = e->children, .samples = e->nself,
		.comm = e->comm, .pid = e->pid, .tid = e->tid, .cpu = e->cpu,
		.dso = e->dso, .path = e->w->map ? e->w->map->path : NULL, .sym = e->sym, .addr = e->addr,
		.sym_start = e->sym_start, .level = e->mode, .inlined = e->inlined,
		.srcline = e->w->srcline, .parent = e->parent, .trace = e->trace,
		.graph = tally__hist_graph_node(&h->nodes, e->cg), .max_depth = e->max_depth,
		.object = e->sym && e->w->object && !e->inlined,
		/* perf's he->ip: a frame's absolute ip, the sample's own map-relative */
		.object_off = e->from_chain ? e->w->object_symoff : e->w->object_off,
	};

	memcpy(out, &v, sz);
	return 0;
}

/* ---- the views' access (hist_internal.h) ---- */

struct shape *const *tally__hist_shapes(const struct tally_hist *h, size_t *n)
{
	*n = h->nshapes;
	return h->shapes;
}

const struct hist_timed *tally__hist_timeline(const struct tally_hist *h, size_t *n, bool *shorted)
{
	*n = h->ntimed;
	*shorted = h->timed_short;
	return h->timed;
}

const struct hist_event_info *tally__hist_event(const struct tally_hist *h, int event)
{
	return event >= 0 && event < h->nev ? &h->ev[event].info : NULL;
}

struct resolver *tally__hist_resolver(struct tally_hist *h)
{
	return &h->res;
}

struct tally_session *tally__hist_session(const struct tally_hist *h)
{
	return h->ss;
}

int tally_hist__fmt_pct(char *buf, size_t len, double pct)
{
	return buf ? tally__fmt_fixed(buf, len, pct, 2) : -EINVAL;
}
