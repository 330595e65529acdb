// SPDX-License-Identifier: MIT
/*
 * The histogram (tally/hist.h), perf report's model: each sample counts
 * in its shape as it comes, keyed by what the session resolved of it
 * (its thread's name, its trace text, and a new shape's user addresses
 * with the maps as at its time: resolved_internal.h); tally_hist__resort
 * makes the rows from the shapes: each shape's period goes to its entry,
 * keyed by the sort keys, and with children also to every distinct entry
 * of its chain; with graphs, each entry's chains merged into its tree.
 * Every distinct address is resolved once, in the session's resolver,
 * shared by every reader of the session's addresses.
 */
#include <errno.h>
#include <stddef.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/hash.h>
#include <tally/session.h>
#include "fmt.h"
#include "internal.h"
#include "hist_internal.h"
#include "rbtree.h"
#include "hist_priv.h"
#include "resolved_internal.h"

/* A shape's hash, its frames mixed in: one multiply per address, one mix
 * at the end (chains are long); branch_history's stacks (nr 0 otherwise). */
static uint64_t hash_frames(uint64_t h, const struct tally_sample *smp)
{
	for (uint64_t i = 0; i < smp->callchain.nr; i++)
		h = (h ^ smp->callchain.ips[i]) * 0x9e3779b97f4a7c15ULL + (h >> 29);
	for (uint64_t i = 0; i < smp->branch_stack.nr; i++) {
		const struct perf_branch_entry *e = &smp->branch_stack.entries[i];

		h = (h ^ e->from ^ (e->to << 1)) * 0x9e3779b97f4a7c15ULL + (h >> 29);
	}
	return tally_hash_mix(h);
}

static uint64_t shape_hash(int idx, const char *comm, const char *trace,
			   const struct tally_sample *smp, int mode, const struct hist_mem *m)
{
	uint64_t h = tally_hash_mix((uint64_t)idx ^ ((uint64_t)(uintptr_t)comm << 8) ^
			      ((uint64_t)smp->tid << 32) ^ smp->pid ^ (uint64_t)(uintptr_t)trace);

	h ^= smp->ip ^ ((uint64_t)smp->cpu << 40) ^ ((uint64_t)mode << 56);
	if (m)
		h = tally_hash_mix(h ^ m->data_src ^ m->phys_addr ^ (m->addr * 31) ^ (m->dpage << 3) ^
				   (m->cpage << 7) ^ (m->weight << 17) ^ (m->ins_lat << 41) ^
				   (m->txn << 11) ^ (m->cgroup << 23) ^ m->cg_ino ^ (m->cg_dev << 50) ^
				   (m->time * 0x9e3779b97f4a7c15ULL) ^
				   /* branch mode's shapes differ in these alone: one chain of all */
				   tally_hash_mix(m->bfrom ^ (m->bto << 1) ^ (m->bflags << 13) ^ (m->ip << 29)));
	return hash_frames(h, smp);
}

/*
 * shape_hash of a sample whose m keys it by keep's words alone: those
 * words read, not a zeroed copy of m with them made and all of it
 * mixed (a third of --sort mem's counting). Branch mode's lookups and
 * adds both hash this way.
 */
static uint64_t shape_hash_kept(int idx, const char *comm, const char *trace,
				const struct tally_sample *smp, int mode, const struct hist_mem *m,
				const struct hist_keep *keep)
{
	const uint64_t *f = (const uint64_t *)m;
	uint64_t h = tally_hash_mix((uint64_t)idx ^ ((uint64_t)(uintptr_t)comm << 8) ^
			      ((uint64_t)smp->tid << 32) ^ smp->pid ^ (uint64_t)(uintptr_t)trace);

	h ^= smp->ip ^ ((uint64_t)smp->cpu << 40) ^ ((uint64_t)mode << 56);
	for (unsigned j = 0; j < keep->nw; j++)
		h = (h ^ f[keep->w[j]]) * 0x9e3779b97f4a7c15ULL + (h >> 29);
	return hash_frames(h, smp);
}

/* what keys a branch's shape: the fields branch_key sets (the others are 0 in all of them) */
static const struct hist_keep branch_keep = {
	.mask = { .bfrom = ~0ull, .bto = ~0ull, .bflags = ~0ull, .cpumode = ~0ull },
	.nw = 4,
	.w = { offsetof(struct hist_mem, bfrom) / 8, offsetof(struct hist_mem, bto) / 8,
	       offsetof(struct hist_mem, bflags) / 8, offsetof(struct hist_mem, cpumode) / 8 },
};

/*
 * a and b equal in the fields keep has (all of them without keep): the
 * kept words alone read (--sort mem's one of sixteen; branch mode's four,
 * one line of the shape)
 */
static bool mem_eq(const struct hist_mem *a, const struct hist_mem *b, const struct hist_keep *keep)
{
	const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
	uint64_t d = 0;

	if (!keep) {
		for (size_t i = 0; i < sizeof(*a) / sizeof(*x); i++)
			d |= x[i] ^ y[i];
		return !d;
	}
	for (unsigned j = 0; j < keep->nw; j++)
		d |= x[keep->w[j]] ^ y[keep->w[j]];
	return !d;
}

/* h->stab (zeroed) filled with h->shapes */
void tally__hist_stab_fill(struct tally_hist *h)
{
	size_t mask = h->sbuckets - 1;

	for (size_t k = 0; k < h->nshapes; k++) {
		struct shape *x = h->shapes[k];
		size_t i;

		for (i = x->hash & mask; h->stab[i].x; i = (i + 1) & mask)
			;
		h->stab[i] = (struct shape_slot){ x->hash, x };
	}
}

#define SBLK	(1u << 20)

/* a block of shapes: its link in the line before them (each shape starts a line) */
struct shape_blk {
	struct shape_blk *next;
};

/* sz bytes for a shape, on a line's start: a block's, else its own (x->own) */
static struct shape *shape_alloc(struct tally_hist *h, size_t sz)
{
	struct shape *x;

	sz = (sz + 63) & ~(size_t)63;
	if (h->shape_own || sz > SBLK / 8) {
		if (posix_memalign((void **)&x, 64, sz))
			return NULL;
		x->own = true;
		return x;
	}
	if (!h->sblk || h->sblk_used + sz > SBLK) {
		struct shape_blk *b;

		if (posix_memalign((void **)&b, 64, 64 + SBLK))
			return NULL;
		b->next = h->sblk;
		h->sblk = b;
		h->sblk_used = 0;
	}
	x = (struct shape *)((char *)h->sblk + 64 + h->sblk_used);
	h->sblk_used += sz;
	x->own = false;
	return x;
}

static void shape_free(struct shape *x)
{
	if (x->own)
		free(x);	/* its chain with it; a block's go with the blocks */
}

/*
 * Count the sample in its shape: 1 when the shape is new, 0, or -ENOMEM.
 * keep: the fields of m that key the shape (NULL: all); a new shape keeps
 * the whole of its first sample's m.
 */
static int shape_add_hv(struct tally_hist *h, uint64_t hv, int idx, const char *comm,
			const char *trace, const struct tally_sample *smp, int mode,
			const struct hist_mem *m, const struct hist_keep *keep, uint64_t period,
			uint64_t count);

static int shape_add(struct tally_hist *h, int idx, const char *comm, const char *trace,
		     const struct tally_sample *smp, int mode, const struct hist_mem *m,
		     const struct hist_keep *keep, uint64_t period, uint64_t count)
{
	uint64_t hv = m && keep ? shape_hash_kept(idx, comm, trace, smp, mode, m, keep) :
		      shape_hash(idx, comm, trace, smp, mode, m);

	return shape_add_hv(h, hv, idx, comm, trace, smp, mode, m, keep, period, count);
}

/* shape_add with the hash already made of the sample's keys (shape_hash) */
static int shape_add_hv(struct tally_hist *h, uint64_t hv, int idx, const char *comm,
			const char *trace, const struct tally_sample *smp, int mode,
			const struct hist_mem *m, const struct hist_keep *keep, uint64_t period,
			uint64_t count)
{
	uint32_t nr = smp->callchain.nr > CHAIN_MAX ? CHAIN_MAX : (uint32_t)smp->callchain.nr;
	/* a stack longer than perf reads (BR_DEPTH_MAX) is kept as its length alone: no tree */
	uint32_t nbr = (uint32_t)(smp->branch_stack.nr > 255 ? 255 : smp->branch_stack.nr);
	size_t brsz = smp->branch_stack.nr > 127 ? 0 : nbr * sizeof(struct hist_brent);
	struct shape *x;

	size_t i, mask;

	/* at most half full; the shapes' array holds as many as the table may */
	if (2 * (h->nshapes + 1) > h->sbuckets) {
		size_t n = h->sbuckets ? h->sbuckets * 2 : 1024;
		struct shape_slot *nt = calloc(n, sizeof(*nt));
		struct shape **nv = realloc(h->shapes, n / 2 * sizeof(*nv));

		if (!nt || !nv) {
			free(nt);
			if (nv)
				h->shapes = nv;
			return -ENOMEM;
		}
		h->shapes = nv;
		/* from the old slots, which carry each hash: no shape read (a miss each) */
		for (size_t k = 0; k < h->sbuckets; k++) {
			size_t j;

			if (!h->stab[k].x)
				continue;
			for (j = h->stab[k].hash & (n - 1); nt[j].x; j = (j + 1) & (n - 1))
				;
			nt[j] = h->stab[k];
		}
		free(h->stab);
		h->stab = nt;
		h->sbuckets = n;
	}
	mask = h->sbuckets - 1;
	for (i = hv & mask; (x = h->stab[i].x); i = (i + 1) & mask)
		if (h->stab[i].hash == hv && x->idx == idx && x->comm == comm && x->trace == trace &&
		    x->tid == (int32_t)smp->tid &&
		    x->pid == (int32_t)smp->pid && x->cpu == (int32_t)smp->cpu && x->mode == mode &&
		    x->ip == smp->ip && x->key_nr == nr &&
		    (!m || mem_eq(x->m, m, keep)) &&
		    (!nr || !memcmp(x->ips, smp->callchain.ips, nr * sizeof(uint64_t))) &&
		    x->nbr == nbr && (!brsz || !memcmp(x->br, smp->branch_stack.entries, brsz))) {
			x->period += period;
			x->count += count;
			h->last_shape = x->seq;
			return 0;
		}
	/*
	 * its PMU fields where they key it right after it, its chain, its
	 * branch stack, its frames' answers: one allocation a shape (most
	 * -g shapes are seen once), on a line's start (a lookup's keys are
	 * then its first lines)
	 */
	if (!(x = shape_alloc(h, sizeof(*x) + (nr + 1) * (sizeof(uint64_t) + sizeof(struct where *)) +
				 brsz + (m ? sizeof(*m) : 0))))
		return -ENOMEM;
	{
		bool own = x->own;

		memset(x, 0, sizeof(*x));
		x->own = own;
	}
	x->m = &tally__hist_mem_none;
	if (m) {
		/* right after it: branch mode's keys (m's first words) in the line after its own */
		struct hist_mem *c = (struct hist_mem *)(x + 1);

		*c = *m;
		x->m = c;
	}
	x->ips = (uint64_t *)((char *)(x + 1) + (m ? sizeof(*m) : 0));
	if (nr)
		memcpy(x->ips, smp->callchain.ips, nr * sizeof(uint64_t));
	/* perf_branch_entry is hist_brent's three words */
	x->nbr = nbr;
	x->br = (const struct hist_brent *)(x->ips + nr + 1);
	if (brsz)
		memcpy(x->ips + nr + 1, smp->branch_stack.entries, brsz);
	x->hash = hv;
	x->idx = idx;
	x->comm = x->comm0 = comm;
	x->trace = trace;
	x->pid = (int32_t)smp->pid;
	x->tid = (int32_t)smp->tid;
	x->cpu = (int32_t)smp->cpu;
	x->mode = (uint8_t)mode;
	x->ip = smp->ip;
	x->key_nr = nr;
	x->wh = (struct where **)((char *)(x->ips + nr + 1) + brsz);
	memset(x->wh, 0, (nr + 1) * sizeof(*x->wh));
	x->nr = nr;	/* the session's answer replaces it (tally__session_sample_resolve) */
	x->period = period;
	x->count = count;
	h->stab[i] = (struct shape_slot){ hv, x };
	x->seq = h->nshapes;
	h->last_shape = x->seq;
	h->shapes[h->nshapes++] = x;
	return 1;
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

/*
 * perf's branch mode: each branch of the sample's stack counts as a
 * sample of period 1 (perf's "pseudo period"), a shape of its own keyed
 * by its ends and flags at its target; the sample itself counts not.
 */
/*
 * branch i's shape key: its ends and flags, at its target, in an m the
 * caller zeroed once a sample (zeroing it each branch, twice, was half of
 * the time outside the lookups)
 */
static inline void branch_key(const struct tally_session_sample *ts, const struct perf_branch_entry *be,
			      struct hist_mem *m, struct tally_sample *one)
{
	m->bfrom = be->from;
	m->bto = be->to;
	m->cpumode = ts->mode;
	/* the bit fields' word, as the file has it (BR_* read it) */
	memcpy(&m->bflags, (const char *)be + 2 * sizeof(uint64_t), sizeof(m->bflags));
	one->ip = be->to;
}

/* branches looked up together: their buckets, then their shapes, fetched ahead */
#define BR_AHEAD 32

static int branch_add(struct tally_hist *h, const struct tally_session_sample *ts,
		      struct hist_ev *hs, uint64_t count)
{
	const struct tally_sample *smp = ts->sample;
	const struct perf_branch_entry *be = smp->branch_stack.entries;
	const char *comm = tally__session_sample_comm(h->ss, ts);
	const char *trace = h->need_trace ? tally__session_sample_trace(h->ss, ts) : NULL;
	struct tally_sample one = { .pid = smp->pid, .tid = smp->tid, .cpu = smp->cpu };
	uint64_t nr = smp->branch_stack.nr;

	if (!(ts->event->sample_type & PERF_SAMPLE_BRANCH_STACK) || !be)
		return 0;
	struct hist_mem m = { 0 };

	if (!(ts->event->sample_type & PERF_SAMPLE_CPU))
		one.cpu = (uint32_t)-1;
	for (uint64_t base = 0; base < nr; base += BR_AHEAD) {
		uint64_t n = nr - base < BR_AHEAD ? nr - base : BR_AHEAD, hv[BR_AHEAD];
		bool have_hv = h->sbuckets;	/* the first sample's make the table */

		/*
		 * a 32-branch stack's shapes lie all over a big table: each
		 * lookup waited on its bucket, then on its shape; fetched
		 * together, the waits overlap; each hash made once (a table
		 * grown meanwhile takes its other bits)
		 */
		if (have_hv) {
			for (uint64_t j = 0; j < n; j++) {
				branch_key(ts, &be[base + j], &m, &one);
				hv[j] = shape_hash_kept(ts->attr, comm, trace, &one, ts->mode, &m,
							&branch_keep);
				__builtin_prefetch(&h->stab[hv[j] & (h->sbuckets - 1)]);
			}
			for (uint64_t j = 0; j < n; j++) {
				size_t mask = h->sbuckets - 1, i;
				const struct shape *x;

				/* the shape of the same hash: the one a lookup reads */
				for (i = hv[j] & mask; (x = h->stab[i].x); i = (i + 1) & mask)
					if (h->stab[i].hash == hv[j])
						break;
				/* its keys and counts, then the branch's (m right after it) */
				if (x) {
					__builtin_prefetch(x);
					__builtin_prefetch((const char *)x + 64);
					__builtin_prefetch(x->m);
				}
			}
		}
		for (uint64_t i = base; i < base + n; i++) {
			int fresh;

			branch_key(ts, &be[i], &m, &one);
			fresh = have_hv ?
				shape_add_hv(h, hv[i - base], ts->attr, comm, trace, &one, ts->mode, &m,
					     &branch_keep, count, count) :
				shape_add(h, ts->attr, comm, trace, &one, ts->mode, &m, &branch_keep,
					  count, count);
			if (fresh < 0)
				return fresh;
			hs->samples += count;
			hs->total += count;
			if (!fresh)
				continue;
			hs->nshapes++;
			h->shapes[h->last_shape]->nr = 0;
			tally__session_branch_resolve(h->ss, h->res, ts, be[i].from, be[i].to);
		}
	}
	return 0;
}

/* h->mem_keep: the fields of struct hist_mem its mem keys read (all of them for a key not named) */
static void mem_keep(struct tally_hist *h)
{
	struct hist_mem *k = &h->mem_keep.mask;
	const uint64_t all = ~0ull;

	for (int i = 0; i < h->nsort; i++) {
		switch (h->sort[i]) {
		case K_MEM: case K_SNOOP: case K_TLB: case K_LOCKED: case K_BLOCKED:
			k->data_src = all;
			break;
		case K_PHYS: k->phys_addr = all; break;
		case K_DPAGE: k->dpage = all; break;
		case K_CPAGE: k->cpage = all; break;
		case K_WEIGHT: case K_LWEIGHT: k->weight = all; break;
		case K_INS_LAT: case K_LINS_LAT: k->ins_lat = all; break;
		case K_SYM_DADDR: case K_DSO_DADDR: case K_DCACHELINE:
			k->addr = k->cpumode = all;
			break;
		case K_SYM_IADDR: k->ip = all; break;
		case K_TXN: k->txn = all; break;
		case K_CGROUP: k->cgroup = all; break;
		case K_CGROUP_ID: k->cg_dev = k->cg_ino = all; break;
		case K_TIME: k->time = all; break;
		default:
			if (h->sort[i] >= K_MEM && !BRANCH_KEY(h->sort[i]) && !ADDR_KEY(h->sort[i]))
				memset(k, 0xff, sizeof(*k));
			break;
		}
	}
	h->mem_keep.nw = 0;
	for (size_t i = 0; i < sizeof(*k) / sizeof(uint64_t); i++)
		if (((const uint64_t *)k)[i])
			h->mem_keep.w[h->mem_keep.nw++] = (uint8_t)i;
}

/*
 * count samples of ts's shape whose periods sum to ts->period: what the
 * session resolved of it (its thread's name, its trace text, a new
 * shape's addresses) keyed and counted
 */
static int hist_add(struct tally_hist *h, const struct tally_session_sample *ts, uint64_t count)
{
	struct tally_session_sample uts;	/* -U's, --max-stack's: the sample with chain_view's */
	struct tally_sample usmp;
	const struct tally_sample *smp;
	const struct perf_event_attr *a;
	struct hist_ev *hs;
	/* only what a shape keys on: copying the whole sample was a tenth of -g none's time */
	struct tally_sample chain;
	struct shape *x;
	struct hist_mem m;
	uint64_t period;
	int fresh;

	if (!h || !ts || !ts->sample || !ts->event)
		return -EINVAL;
	if (!(hs = event_of(h, ts->attr)))
		return -ENOMEM;
	smp = ts->sample;
	a = ts->event;
	if ((h->hide_unresolved || h->max_stack) && (a->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    smp->callchain.nr) {
		long k = tally__session_chain_view(h->res, smp, h->max_stack, h->caller,
						   h->hide_unresolved, &h->uchain, &h->uchain_cap);

		if (k < 0)
			return (int)k;
		usmp = *smp;
		usmp.callchain.ips = h->uchain;
		usmp.callchain.nr = (uint64_t)k;
		uts = *ts;
		uts.sample = &usmp;
		ts = &uts;
		smp = &usmp;
	}
	chain.pid = smp->pid;
	chain.tid = smp->tid;
	chain.cpu = smp->cpu;
	chain.ip = smp->ip;
	chain.callchain = smp->callchain;
	chain.branch_stack.nr = 0;
	if (h->branch_history && (a->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	    smp->branch_stack.entries) {
		chain.branch_stack.nr = smp->branch_stack.nr;
		chain.branch_stack.entries = smp->branch_stack.entries;
	}

	if (!hs->samples)
		hs->info = (struct hist_event_info){
			.sample_type = a->sample_type, .type = a->type, .config = a->config,
			.freq = a->freq, .period = a->freq ? 0 : a->sample_period,
		};
	if (smp->time < h->t_first || !h->t_first)
		h->t_first = smp->time;
	if (smp->time > h->t_last)
		h->t_last = smp->time;
	if (h->branch)
		return branch_add(h, ts, hs, count);
	period = ts->period;
	if (h->need_mem || h->mem_mode) {
		bool wst = a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT;

		/*
		 * perf's sample weight: WEIGHT_STRUCT's first word, its second
		 * the latency. Every field set, none zeroed first: the
		 * compiler's `rep stos` before them was half of this function.
		 */
		m.bfrom = m.bto = m.bflags = 0;
		m.cpumode = ts->mode;
		m.data_src = smp->data_src;
		m.phys_addr = smp->phys_addr;
		m.dpage = smp->data_page_size;
		m.cpage = smp->code_page_size;
		m.weight = wst ? (uint32_t)smp->weight : smp->weight;
		m.ins_lat = wst ? (uint16_t)(smp->weight >> 32) : 0;
		m.addr = smp->addr;
		m.ip = smp->ip;
		m.txn = smp->transaction;
		m.cgroup = smp->cgroup;
		m.cg_dev = m.cg_ino = 0;
		/* perf's hist_time; a division a sample only where the time key asks for it */
		m.time = h->mem_keep.mask.time ? smp->time / h->time_quantum * h->time_quantum : 0;
		m.p_sys = m.p_us = m.p_gsys = m.p_gus = 0;
		_Static_assert(sizeof(m) == 21 * sizeof(uint64_t), "every field of hist_mem set here");
		if (h->need_cgid)	/* the thread's namespaces as of the sample, perf's */
			tally__session_cgroup_ns(h->ss, (int32_t)smp->tid, &m.cg_dev, &m.cg_ino);
		/* --mem-mode's cost: the weight, 1 without one (count samples of it each) */
		if (h->mem_mode)
			period = (m.weight ? m.weight : 1) * count;
	}
	hs->samples += count;
	hs->total += period;
	/* no chain needed anywhere: a shape is its ip */
	if (!(a->sample_type & PERF_SAMPLE_CALLCHAIN) || h->no_chain)
		chain.callchain.nr = 0;
	if (!(a->sample_type & PERF_SAMPLE_CPU))
		chain.cpu = (uint32_t)-1;	/* perf's cpu key shows -001 then */
	fresh = shape_add(h, ts->attr, tally__session_sample_comm(h->ss, ts),
			  h->need_trace ? tally__session_sample_trace(h->ss, ts) : NULL, &chain, ts->mode,
			  h->need_mem ? &m : NULL, &h->mem_keep, period, count);
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
			h->timed[h->ntimed++] = (struct hist_timed){ h->last_shape, smp->time, period };
		else
			h->timed_short = true;
	}
	if (!fresh)
		return 0;
	hs->nshapes++;
	/* a new shape's addresses, resolved by the session; the chain as perf shows it */
	x = h->shapes[h->last_shape];
	x->nr = tally__session_sample_resolve(h->ss, h->res, ts, x->key_nr, x->wh);
	return 0;
}

int tally_hist__add(struct tally_hist *h, const struct tally_session_sample *ts)
{
	return hist_add(h, ts, 1);
}

int tally_hist__add_count(struct tally_hist *h, const struct tally_session_sample *ts,
			  uint64_t count)
{
	return count ? hist_add(h, ts, count) : -EINVAL;
}


static void free_rows(struct tally_hist *h)
{
	for (int i = 0; i < h->nev; i++) {
		struct hist_ev *hs = &h->ev[i];

		free(hs->tab);
		free(hs->rows);
		free(hs->in);
		free(hs->gpair);
		hs->tab = NULL;
		hs->rows = NULL;
		hs->in = NULL;
		hs->gpair = NULL;
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
	free(h->vis);
	h->vis = NULL;
	h->nvis = h->capvis = 0;
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
	h->vis_on = false;
	for (size_t i = 0; i < h->nshapes; i++) {
		const char *c = tally_session__final_comm(h->ss, h->shapes[i]->comm);

		again |= c != h->shapes[i]->comm && h->shapes[i]->rows_count;
		h->shapes[i]->comm = c;
		/* -c meets a renamed thread: the entries' verdicts follow perf's order of names */
		h->vis_on |= h->comm_keyed && h->filter.comms && c != h->shapes[i]->comm0;
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

	err = tally__hist_shapes_in(h, fused);
	for (size_t i = 0; i < h->nshapes && !err && h->graph && !fused; i++) {
		struct shape *x = h->shapes[i];

		if (x->count != x->rows_count)
			err = tally__hist_graph_shape(h, x, x->period - x->rows_period, x->count - x->rows_count);
	}
	if (!err && h->ngroups)
		err = tally__hist_group_link(h);	/* the leaders' rows of their members' keys */
	/*
	 * The counts in: the rows' order (on a second thread where it pays)
	 * beside the kept walks growing the trees of the rows that show them.
	 * Neither reads what the other writes: the trees and each entry's cg,
	 * against the order's own fields and each event's rows.
	 */
	struct hist_order_job job;
	bool bg = !err && h->gbuf && tally__hist_order_start(h, &job);

	if (!err)
		err = tally__hist_graph_replay(h, false);
	tally__hist_gbuf_free(h);	/* its megabytes serve the rows' copies next */
	for (size_t i = 0; i < h->nshapes; i++) {
		h->shapes[i]->rows_period = h->shapes[i]->period;
		h->shapes[i]->rows_count = h->shapes[i]->count;
	}
	if (bg) {
		int oerr = tally__hist_order_join(&job);

		err = err ? err : oerr;
	} else if (!err) {
		err = tally__hist_order_all(h);
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
	for (size_t i = 0; i < h->nshapes; i++)
		shape_free(h->shapes[i]);
	while (h->sblk) {
		struct shape_blk *b = h->sblk;

		h->sblk = b->next;
		free(b);
	}
	h->sblk_used = 0;
	h->nshapes = 0;
	if (h->stab)
		memset(h->stab, 0, h->sbuckets * sizeof(*h->stab));
	for (int i = 0; i < h->nev; i++)
		h->ev[i].samples = h->ev[i].total = h->ev[i].nshapes = 0;
	h->ntimed = 0;
	h->timed_short = false;
	h->t_first = h->t_last = 0;
}

struct tally_hist *tally_hist__new(struct tally_session *ss, const struct tally_hist_opts *opts)
{
	static const enum tally_hist_key def_keys[] = { K_COMM, K_DSO, K_SYM };
	const enum tally_hist_key *keys;
	const char *parent;
	struct tally_hist *h;
	bool srcline = false;
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
		if ((unsigned)keys[i] >= K__NR ||
		    ((int)keys[i] >= TALLY_HIST_BY_SELF && (int)keys[i] <= TALLY_HIST_BY_SAMPLES) ||
		    (BRANCH_KEY(keys[i]) && !TALLY_OPTS_GET(opts, branch, false)))
			return tally__err_ptr(EINVAL);	/* a branch key: of branch mode's rows */
	if (!(h = calloc(1, sizeof(*h))))
		return tally__err_ptr(ENOMEM);
	if (!(h->scr = malloc(sizeof(*h->scr)))) {
		free(h);
		return tally__err_ptr(ENOMEM);
	}
	h->ss = ss;
	memcpy(h->sort, keys, (size_t)nkeys * sizeof(*keys));
	h->nsort = nkeys;
	for (int i = 0; i < nkeys; i++) {
		srcline |= keys[i] == K_SRCLINE || keys[i] == K_SRCLINE_FROM || keys[i] == K_SRCLINE_TO ||
			   keys[i] == K_SRCFILE;
		h->has_parent |= keys[i] == K_PARENT;
		h->comm_keyed |= keys[i] == K_COMM;
		h->need_trace |= keys[i] == K_TRACE;
		h->need_mem |= keys[i] >= K_MEM && !BRANCH_KEY(keys[i]) && !ADDR_KEY(keys[i]);
	}
	h->mem_mode = TALLY_OPTS_GET(opts, mem_mode, false);
	h->branch = TALLY_OPTS_GET(opts, branch, false);
	h->branch_history = TALLY_OPTS_GET(opts, branch_history, false);
	h->elide = TALLY_OPTS_GET(opts, elide, 0);
	h->hide_unresolved = TALLY_OPTS_GET(opts, hide_unresolved, false);
	h->max_stack = TALLY_OPTS_GET(opts, max_stack, 0);
	h->time_quantum = TALLY_OPTS_GET(opts, time_quantum, 0);
	if (!h->time_quantum)
		h->time_quantum = 100000000;	/* perf's 100 ms */
	h->nodes.branch = h->branch_history;
	srcline |= h->branch_history;	/* the trees' labels */
	h->cpu_util = TALLY_OPTS_GET(opts, cpu_util, false);
	/* what hands shape_add PMU fields; cpu_util: the entries' own copies hold its sums */
	h->keep_mem = h->need_mem || h->branch || h->cpu_util;
	for (int i = 0; i < nkeys; i++)
		h->need_daddr |= keys[i] == K_SYM_DADDR || keys[i] == K_DSO_DADDR ||
				 keys[i] == K_DCACHELINE;
	for (int i = 0; i < nkeys; i++) {
		h->need_iaddr |= keys[i] == K_SYM_IADDR;
		h->need_cgid |= keys[i] == K_CGROUP_ID;
		if (keys[i] == K_SOCKET && !h->sockets) {
			/* each CPU's socket, from the file's topology: none (a live session) is -1 for all */
			struct tally_data_reader *rd = tally_session__reader(ss);
			uint32_t avail = 0;

			if (rd && !tally_data_reader__nrcpus(rd, NULL, &avail) && avail &&
			    avail < 1u << 20 && (h->sockets = malloc(avail * sizeof(*h->sockets))))
				h->nsockets = tally_data_reader__cpu_sockets(rd, h->sockets, (int)avail);
		}
	}
	mem_keep(h);
	h->children = TALLY_OPTS_GET(opts, children, false);
	h->graph = TALLY_OPTS_GET(opts, graph, false);
	h->caller = TALLY_OPTS_GET(opts, order, TALLY_HIST_CALLEE) == TALLY_HIST_CALLER;
	h->address = TALLY_OPTS_GET(opts, address, false);
	h->timeline = TALLY_OPTS_GET(opts, timeline, false);
	h->sym_by_name = TALLY_OPTS_GET(opts, sym_by_name, false);
	/* each end's counts go in as the trees grow: every row's tree is made */
	h->graph_min = h->branch_history ? 0.0 : TALLY_OPTS_GET(opts, graph_min, 0.0);
	if (h->branch_history && (h->branch || !h->graph)) {
		tally_hist__free(h);
		return tally__err_ptr(EINVAL);
	}
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
	/* the session's resolver of these options: an address resolved once for all its readers */
	if (!(h->res = tally__session_resolver(ss, srcline, TALLY_OPTS_GET(opts, no_inline, false)))) {
		tally_hist__free(h);
		return tally__err_ptr(ENOMEM);
	}
	{
		/* perf's cacheline_size(): this machine's, 64 when it does not say */
		long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

		if (cl > 0 && !(cl & (cl - 1)))
			tally__hist_cacheline = (uint64_t)cl;
	}
	/* data addresses: the session's resolver over data objects as well as functions */
	if (h->need_daddr && !(h->dres = tally__session_data_resolver(ss))) {
		tally_hist__free(h);
		return tally__err_ptr(ENOMEM);
	}
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
	free(h->uchain);
	free(h->sockets);
	free(h->groups);
	tally__hist_free_filter(h);
	if (h->has_parent)
		regfree(&h->parent_re);
	tally__session_resolver_put(h->res);
	tally__session_resolver_put(h->dres);
	free(h->pmatch);
	tally__hist_gbuf_free(h);
	free(h->scr);
	free(h);
}
