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
#include "hist_priv.h"

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
		err = tally__hist_order_rows(h, hs);
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
