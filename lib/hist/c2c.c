// SPDX-License-Identifier: MIT
/*
 * Shared cache lines (tally/c2c.h), as perf 6.1's c2c report builds them:
 * each sample, as it comes in time order, is classified and counted in
 * its cache line (perf's dcacheline key) and, inside the line, in its
 * entry (offset and the coalesce keys), found through hash tables; the
 * first sample of each names it (address, thread, symbol). At the end the
 * lines and entries are put in the order of perf's keys, then sorted by
 * the display's counts, ties in that key order (perf's rb-trees keep
 * equal entries in insertion order).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/c2c.h>
#include <tally/data_format.h>
#include <tally/data_read.h>
#include "internal.h"
#include "resolved_internal.h"

#define CL 64ull	/* perf's cacheline_size() where the machine does not say */

/* a line (keyed by mode, mapped, pid, dline) or an entry (off, pid, tid, ip, dso) */
struct c2c_ent {
	uint64_t hash;
	uint8_t mode;			/* header cpumode (perf orders lines by it) */
	bool dmapped;
	int32_t pid, tid;
	uint64_t dline;			/* the data address's line, map-relative */
	uint64_t off, ip;
	const struct where *iw;		/* the code address (its first sample's) */
	uint64_t daddr;			/* its first sample's data address */
	const char *comm;
	struct tally_c2c_stats st;
	uint64_t *cpus;
	uint64_t nodeset;		/* the physical addresses' nodes (64 at most) */
	char nodes[32];
	uint64_t paddr, paddr_cnt;
	struct tally_c2c_stats *node_st;
	/*
	 * an entry's samples of each decoded data source (c->idst), then
	 * those of each node: the counts are made from these at the end
	 */
	uint32_t *dc;
	double mean[5], n[5];		/* rmt hitm, lcl hitm, rmt peer, lcl peer, load */
	bool shown;
	size_t ord;			/* its place in the key order (ties keep it) */
	struct c2c_ent *ents;		/* a line's entries */
	size_t nents, aents;
	uint32_t *slots;		/* their hash table: index + 1 */
	size_t nslots;
};

/* decoded data sources kept: a file has tens of distinct ones (32 missed a quarter of samples) */
#define DEC_BITS 8
#define DEC_SLOTS (1 << DEC_BITS)
/*
 * distinct decodes counted by number: a sample adds 1 to its entry's and
 * node's count of its decode, not its 31 counts twice (a fifth of c2c's
 * time); a file with more counts the others as before
 */
#define DEC_IDS 32

struct tally_c2c {
	struct tally_session *ss;
	struct resolver *res, *dres;
	enum tally_c2c_display display;
	enum tally_c2c_key keys[8];
	int nkeys;
	bool show_all;
	uint64_t cl;
	int nr_nodes, nr_cpus, cpu_words;
	uint64_t *node_cpus;		/* nr_nodes bitmaps */
	int *cpu2node;
	uint64_t mem_bsize;		/* MEM_TOPOLOGY: block size, each block's node */
	int *block_node;
	size_t nblocks;
	struct c2c_ent top;		/* the lines, as a line holds its entries */
	struct tally_c2c_stats total, shared;
	int nr_shared;
	/*
	 * decoded data sources (a file has a few): a sample's counts were
	 * zeroed and decoded anew each time, a tenth of the time
	 */
	struct c2c_dec {
		uint64_t data_src;
		uint8_t flags;		/* 1: a data address, 2: mapped, 4: the slot is used */
		int8_t w;		/* the mean it counts in (count's), -1: none */
		int8_t id;		/* its number in idst, -1: none */
		struct tally_c2c_stats st;
	} dec[DEC_SLOTS];
	struct tally_c2c_stats idst[DEC_IDS];	/* the decodes numbered */
	uint64_t idsrc[DEC_IDS];
	uint8_t idflags[DEC_IDS];
	int nids;
	/*
	 * a sample's line and entry by its (mode, pid, tid, ip, address):
	 * what keys them is a function of those (the resolvers' answers
	 * are fixed once made), so a sample seen before skips both lookups
	 * and the two finds (half of the time a sample); indices + 1 (the
	 * arrays move as they grow), 0: an empty slot
	 */
	struct c2c_memo {		/* 32 bytes: the table stays in the first-level cache */
		uint64_t ip, addr;
		int32_t pid, tid;
		uint32_t line;
		uint32_t ent : 24, mode : 7, mapped : 1;	/* mapped: decode's (data and code) */
	} *memo;
	struct c2c_ent **shown;		/* the lines shown */
	size_t nshown;
	int err;
};

static void set_bit(uint64_t *b, int n) { b[n / 64] |= 1ull << (n % 64); }
static bool test_bit(const uint64_t *b, int n) { return b[n / 64] >> (n % 64) & 1; }

/* "0-1,4" into bits (up to nbits) */
static void parse_list(const char *s, uint64_t *bits, int nbits)
{
	while (s && *s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long k = a; k <= b && k < nbits; k++)
			if (k >= 0)
				set_bit(bits, (int)k);
		s = *end == ',' ? end + 1 : NULL;
	}
}

/* perf's bitmap_scnprintf: "0-1,3" */
static void list_str(const uint64_t *bits, int nbits, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < nbits && n < len; i++) {
		int j = i;

		if (!test_bit(bits, i))
			continue;
		while (j + 1 < nbits && test_bit(bits, j + 1))
			j++;
		n += (size_t)snprintf(buf + n, len - n, i < j ? "%s%d-%d" : "%s%d", n ? "," : "", i, j);
		i = j;
	}
}

/* word i of a feature (a file's sections need not be aligned) */
static uint64_t rd64(const void *p, size_t i)
{
	uint64_t v;

	memcpy(&v, (const char *)p + 8 * i, 8);
	return v;
}

/* NRCPUS, NUMA_TOPOLOGY and MEM_TOPOLOGY, as perf's setup_nodes and mem2node read them */
static int read_nodes(struct tally_c2c *c)
{
	struct tally_data_reader *r = tally_session__reader(c->ss);
	const struct tally_numa_node *nodes;
	const void *data;
	uint32_t avail = 0;
	size_t len;
	int n;

	if (!r || tally_data_reader__nrcpus(r, NULL, &avail) || !avail ||
	    (n = tally_data_reader__numa_nodes(r, &nodes)) <= 0)
		return -ENODEV;
	/* a damaged count: each line and entry holds a bitmap of the CPUs */
	if (avail > 65536 || n > 4096)
		return -EBADMSG;
	c->nr_nodes = n;
	c->nr_cpus = (int)avail;
	c->cpu_words = (c->nr_cpus + 63) / 64;
	if (!(c->node_cpus = calloc((size_t)n * c->cpu_words, 8)) ||
	    !(c->cpu2node = calloc(avail, sizeof(int))))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		uint64_t *set = c->node_cpus + (size_t)i * c->cpu_words;

		parse_list(nodes[i].cpus, set, c->nr_cpus);
		for (int k = 0; k < c->nr_cpus; k++)
			if (test_bit(set, k))
				c->cpu2node[k] = i;
	}
	/* version 1, block size, nodes; each: node, size, bitmap (bits, words) */
	if (!tally_data_reader__feature(r, TALLY_HEADER_MEM_TOPOLOGY, &data, &len) && len >= 24 &&
	    rd64(data, 0) == 1) {
		size_t nw = len / 8, at = 3;
		uint64_t nr = rd64(data, 2);

		c->mem_bsize = rd64(data, 1);
		for (uint64_t k = 0; k < nr && at + 3 <= nw; k++) {
			uint64_t node = rd64(data, at), bits = rd64(data, at + 2), words = (bits + 63) / 64;

			if (bits > (1u << 20) || at + 3 + words > nw)
				break;
			if (bits > c->nblocks) {
				int *nb = realloc(c->block_node, bits * sizeof(int));

				if (!nb)
					return -ENOMEM;
				for (size_t b = c->nblocks; b < bits; b++)
					nb[b] = -1;
				c->block_node = nb;
				c->nblocks = bits;
			}
			for (uint64_t b = 0; b < bits; b++)
				if (rd64(data, at + 3 + b / 64) >> (b % 64) & 1)
					c->block_node[b] = (int)node;
			at += 3 + words;
		}
	}
	return 0;
}

static int phys_node(const struct tally_c2c *c, uint64_t phys)
{
	/* a power of two (perf's are): a shift, not a division a sample */
	uint64_t b = !c->mem_bsize ? 0 : !(c->mem_bsize & (c->mem_bsize - 1)) ?
		     phys >> __builtin_ctzll(c->mem_bsize) : phys / c->mem_bsize;

	return c->mem_bsize && b < c->nblocks ? c->block_node[b] : -1;
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* the sample's line key, in a zeroed ent */
static void line_key(const struct tally_c2c *c, struct c2c_ent *k)
{
	/* perf compares pids only for a user map's lines (an anonymous map's) */
	if (!k->dmapped || k->mode == PERF_RECORD_MISC_KERNEL)
		k->pid = 0;
	k->hash = mix(mix(mix(k->mode, k->dmapped), (uint64_t)(uint32_t)k->pid), k->dline);
	(void)c;
}

static bool line_eq(const struct c2c_ent *a, const struct c2c_ent *b)
{
	return a->mode == b->mode && a->dmapped == b->dmapped && a->pid == b->pid &&
	       a->dline == b->dline;
}

static const char *dso_of(const struct c2c_ent *e)
{
	return e->iw->map ? e->iw->dso : NULL;
}

static void ent_key(const struct tally_c2c *c, struct c2c_ent *k)
{
	uint64_t h = mix(0, k->off);

	for (int i = 0; i < c->nkeys; i++) {
		switch (c->keys[i]) {
		case TALLY_C2C_PID: h = mix(h, (uint32_t)k->pid); break;
		case TALLY_C2C_TID: h = mix(h, (uint32_t)k->tid); break;
		case TALLY_C2C_IADDR: h = mix(h, k->ip); break;
		case TALLY_C2C_DSO: h = mix(h, dso_of(k) ? k->iw->dso_hash : 0); break;
		}
	}
	k->hash = h;
}

static int cmp_name(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : !a ? 1 : -1;	/* no map last */
	return strcmp(a, b);
}

/* an entry's keys in perf's insertion order: offset up, pid down, tid, iaddr, dso up */
static int cmp_ent_keys(const struct tally_c2c *c, const struct c2c_ent *a, const struct c2c_ent *b)
{
	int r = cmp_u64(a->off, b->off);

	for (int k = 0; !r && k < c->nkeys; k++) {
		switch (c->keys[k]) {
		case TALLY_C2C_PID: r = a->pid == b->pid ? 0 : a->pid > b->pid ? -1 : 1; break;
		case TALLY_C2C_TID: r = a->tid == b->tid ? 0 : a->tid < b->tid ? -1 : 1; break;
		case TALLY_C2C_IADDR: r = cmp_u64(a->ip, b->ip); break;
		case TALLY_C2C_DSO: r = cmp_name(dso_of(a), dso_of(b)); break;
		}
	}
	return r;
}

/* perf's sort__dcacheline_cmp, in its entries' order (lower level, mapped, pid, line first) */
static int cmp_line_keys(const struct c2c_ent *a, const struct c2c_ent *b)
{
	int r;

	if ((r = cmp_u64(a->mode, b->mode)))
		return r;
	if (a->dmapped != b->dmapped)
		return a->dmapped ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return cmp_u64(a->dline, b->dline);
}

/* a sample's key fields (an entry is 400 bytes: zeroing and copying them all was a third of the time) */
static void key_copy(struct c2c_ent *to, const struct c2c_ent *k)
{
	to->hash = k->hash;
	to->mode = k->mode;
	to->dmapped = k->dmapped;
	to->pid = k->pid;
	to->tid = k->tid;
	to->dline = k->dline;
	to->off = k->off;
	to->ip = k->ip;
	to->iw = k->iw;
	to->daddr = k->daddr;
	to->comm = k->comm;
}

/* p's child of key k (k's hash set): found, or made from k's key fields; NULL without memory */
static struct c2c_ent *find(struct tally_c2c *c, struct c2c_ent *p, const struct c2c_ent *k,
			    bool line)
{
	size_t i;

	if (2 * (p->nents + 1) > p->nslots) {
		size_t ns = p->nslots ? p->nslots * 2 : 16;
		uint32_t *sl = calloc(ns, sizeof(*sl));

		if (!sl)
			return NULL;
		for (size_t e = 0; e < p->nents; e++) {
			for (i = p->ents[e].hash & (ns - 1); sl[i]; i = (i + 1) & (ns - 1))
				;
			sl[i] = (uint32_t)e + 1;
		}
		free(p->slots);
		p->slots = sl;
		p->nslots = ns;
	}
	for (i = k->hash & (p->nslots - 1); p->slots[i]; i = (i + 1) & (p->nslots - 1)) {
		struct c2c_ent *e = &p->ents[p->slots[i] - 1];

		if (e->hash == k->hash && (line ? line_eq(e, k) : !cmp_ent_keys(c, e, k)))
			return e;
	}
	if (p->nents == p->aents) {
		size_t na = p->aents ? p->aents * 2 : 8;
		struct c2c_ent *ne = realloc(p->ents, na * sizeof(*ne));

		if (!ne)
			return NULL;
		p->ents = ne;
		p->aents = na;
	}
	p->slots[i] = (uint32_t)p->nents + 1;
	memset(&p->ents[p->nents], 0, sizeof(p->ents[p->nents]));
	key_copy(&p->ents[p->nents], k);
	if (!(p->ents[p->nents].cpus = calloc((size_t)c->cpu_words, 8)) ||
	    (!line && (!(p->ents[p->nents].node_st = calloc((size_t)c->nr_nodes,
							    sizeof(struct tally_c2c_stats))) ||
		       !(p->ents[p->nents].dc = calloc((size_t)(1 + c->nr_nodes) * DEC_IDS,
						       sizeof(uint32_t)))))) {
		free(p->ents[p->nents].cpus);
		free(p->ents[p->nents].node_st);
		p->slots[i] = 0;
		return NULL;
	}
	return &p->ents[p->nents++];
}

/* tally_c2c_stats__add, inlined: two a sample */
static inline void stats_add(struct tally_c2c_stats *restrict to,
			     const struct tally_c2c_stats *restrict add)
{
	uint32_t *t = (uint32_t *)to;
	const uint32_t *a = (const uint32_t *)add;

#pragma GCC unroll 32
	for (size_t i = 0; i < sizeof(*to) / sizeof(*t); i++)
		t[i] += a[i];
}

/* k samples of add's counts into to */
static void stats_add_n(struct tally_c2c_stats *restrict to,
			const struct tally_c2c_stats *restrict add, uint32_t k)
{
	uint32_t *t = (uint32_t *)to;
	const uint32_t *a = (const uint32_t *)add;

	for (size_t i = 0; i < sizeof(*to) / sizeof(*t); i++)
		t[i] += a[i] * k;
}

/* an entry's counts and its nodes', from its numbered decodes' counts */
static void ent_counts(const struct tally_c2c *c, struct c2c_ent *e)
{
	for (int n = -1; n < c->nr_nodes; n++) {
		struct tally_c2c_stats *st = n < 0 ? &e->st : &e->node_st[n];
		const uint32_t *k = e->dc + (size_t)(1 + n) * DEC_IDS;

		for (int i = 0; i < c->nids; i++)
			if (k[i])
				stats_add_n(st, &c->idst[i], k[i]);
	}
}

/*
 * One sample's counts in its entry e of line l: the counts, CPUs, the
 * physical addresses' nodes, the node counts and means. The line's
 * counts, CPUs and nodes are its entries' (added up at the end); only
 * its run of physical addresses is its own.
 */
static void count(struct tally_c2c *c, struct c2c_ent *l, struct c2c_ent *e,
		  const struct c2c_dec *d, int cpu, uint64_t phys, uint64_t weight)
{
	int node, w = d->w;

	if (d->id >= 0)
		e->dc[d->id]++;
	else
		stats_add(&e->st, &d->st);
	if (cpu >= 0 && cpu < c->nr_cpus)
		set_bit(e->cpus, cpu);
	/* perf's c2c_he__set_node: an address no node holds counts no change */
	if (phys && (node = phys_node(c, phys)) >= 0) {
		if (node < 64)
			e->nodeset |= 1ull << node;
		if (e->paddr != phys) {
			e->paddr_cnt++;
			e->paddr = phys;
		}
		if (l->paddr != phys) {
			l->paddr_cnt++;
			l->paddr = phys;
		}
	}
	/* a sample without a CPU counts in node 0, as perf's */
	if (cpu < c->nr_cpus) {
		node = cpu < 0 ? 0 : c->cpu2node[cpu];
		if (d->id >= 0)
			e->dc[(1 + node) * DEC_IDS + d->id]++;
		else
			stats_add(&e->node_st[node], &d->st);
	}
	/* perf's compute_stats: a running mean as its update_stats */
	if (w >= 0) {
		e->n[w]++;
		e->mean[w] += ((double)weight - e->mean[w]) / e->n[w];
	}
}

/* tally_c2c__decode's counts of one sample, as the cache has them */
static const struct c2c_dec *decode(struct tally_c2c *c, uint64_t data_src, uint64_t daddr,
				    bool mapped)
{
	uint8_t flags = (uint8_t)(4 | !!daddr | (mapped ? 2 : 0));
	struct c2c_dec *d = &c->dec[((data_src ^ flags) * 0x9e3779b97f4a7c15ull) >> (64 - DEC_BITS)];

	if (d->flags != flags || d->data_src != data_src) {
		const struct tally_c2c_stats *one = &d->st;

		memset(&d->st, 0, sizeof(d->st));
		tally_c2c__decode(&d->st, data_src, daddr, mapped);
		d->data_src = data_src;
		d->flags = flags;
		/* perf's compute_stats: the first that applies */
		d->w = (int8_t)(one->rmt_hitm ? 0 : one->lcl_hitm ? 1 : one->rmt_peer ? 2 :
				one->lcl_peer ? 3 : one->load ? 4 : -1);
		d->id = -1;
		for (int i = 0; i < c->nids && d->id < 0; i++)
			if (c->idsrc[i] == data_src && c->idflags[i] == flags)
				d->id = (int8_t)i;
		if (d->id < 0 && c->nids < DEC_IDS) {
			d->id = (int8_t)c->nids++;
			c->idsrc[d->id] = data_src;
			c->idflags[d->id] = flags;
			c->idst[d->id] = d->st;
		}
	}
	return d;
}

#define MEMO_BITS 10

static bool memo_is(const struct c2c_memo *m, uint8_t mode, int32_t pid, int32_t tid, uint64_t ip,
		    uint64_t addr)
{
	return m->line && m->ip == ip && m->addr == addr && m->pid == pid && m->tid == tid &&
	       m->mode == mode;
}

/*
 * the sample's slot of the memo (an ip and an address seen together come
 * back): two ways a set, the last used first (one way missed a sample in
 * nine on the 1M file's 218 keys); a miss gets the first, its old key
 * the second
 */
static struct c2c_memo *memo_slot(struct tally_c2c *c, uint8_t mode, int32_t pid, int32_t tid,
				  uint64_t ip, uint64_t addr, bool *hit)
{
	uint64_t h = mix(mix(mix(ip, addr), (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid), mode);
	struct c2c_memo *set = &c->memo[(h >> (64 - MEMO_BITS)) & ~(uint64_t)1], t;

	*hit = true;
	if (memo_is(&set[0], mode, pid, tid, ip, addr))
		return set;
	t = set[1];
	set[1] = set[0];
	set[0] = t;
	*hit = memo_is(set, mode, pid, tid, ip, addr);
	return set;
}

static int add_sample(struct tally_session *s, const struct tally_session_sample *ts, void *ctx)
{
	struct tally_c2c *c = ctx;
	const struct tally_sample *x = ts->sample;
	struct c2c_ent *l, *e;
	uint64_t weight = x->weight;
	int cpu = ts->event->sample_type & PERF_SAMPLE_CPU ? (int)x->cpu : -1;
	uint8_t mode = (uint8_t)(ts->header->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	bool hit;
	struct c2c_memo *m = memo_slot(c, mode, ts->thread.pid, ts->thread.tid, x->ip, x->addr, &hit);

	(void)s;
	/* WEIGHT_STRUCT's first word is perf's weight */
	if (ts->event->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		weight &= 0xffffffffu;
	if (!hit) {
		const struct where *dw = NULL;
		struct c2c_ent k, lk;	/* their key fields alone (key_copy's) */

		k.hash = 0;
		k.mode = mode;
		k.pid = ts->thread.pid;
		k.tid = ts->thread.tid;
		k.ip = x->ip;
		k.daddr = x->addr;
		k.comm = ts->thread.comm;
		k.off = x->addr & (c->cl - 1);
		if (!(k.iw = tally__resolver_get(c->res, k.pid, k.tid, x->ip, ts->mode)) ||
		    (x->addr && !(dw = tally__resolver_get(c->dres, k.pid, k.tid, x->addr, ts->mode))))
			return c->err = -ENOMEM;
		k.dmapped = dw && dw->map;
		k.dline = (dw ? dw->addr : x->addr) & ~(c->cl - 1);
		key_copy(&lk, &k);
		line_key(c, &lk);
		if (!(l = find(c, &c->top, &lk, true)))
			return c->err = -ENOMEM;
		ent_key(c, &k);
		if (!(e = find(c, l, &k, false)))
			return c->err = -ENOMEM;
		/* an entry past the bits' reach (16M in a line) is found each time */
		if ((size_t)(e - l->ents) + 1 >= (1u << 24)) {
			count(c, l, e, decode(c, x->data_src, x->addr, k.dmapped && k.iw->map), cpu,
			      x->phys_addr, weight);
			return 0;
		}
		*m = (struct c2c_memo){
			.ip = x->ip, .addr = x->addr, .pid = k.pid, .tid = k.tid,
			.line = (uint32_t)(l - c->top.ents) + 1, .ent = (uint32_t)(e - l->ents) + 1,
			.mode = mode, .mapped = k.dmapped && k.iw->map,
		};
	}
	l = &c->top.ents[m->line - 1];
	e = &l->ents[m->ent - 1];
	count(c, l, e, decode(c, x->data_src, x->addr, m->mapped), cpu, x->phys_addr, weight);
	return 0;
}

/* the display's counts, in the order its sort compares them */
static void metric(const struct tally_c2c *c, const struct tally_c2c_stats *st, bool lines,
		   uint64_t m[2])
{
	m[1] = 0;
	switch (c->display) {
	case TALLY_C2C_TOT: m[0] = (uint64_t)st->lcl_hitm + st->rmt_hitm; break;
	case TALLY_C2C_LCL: m[0] = st->lcl_hitm; m[1] = lines ? 0 : st->rmt_hitm; break;
	case TALLY_C2C_RMT: m[0] = st->rmt_hitm; m[1] = lines ? 0 : st->lcl_hitm; break;
	case TALLY_C2C_PEER: m[0] = st->tot_peer; break;
	}
}

static uint32_t shown_count(const struct tally_c2c *c, const struct tally_c2c_stats *st)
{
	switch (c->display) {
	case TALLY_C2C_LCL: return st->lcl_hitm;
	case TALLY_C2C_RMT: return st->rmt_hitm;
	case TALLY_C2C_PEER: return st->tot_peer;
	default: return st->tot_hitm;
	}
}

static const struct tally_c2c *sort_c2c;	/* qsort's context (one sort at a time) */
static bool sort_lines;

static int cmp_keys(const void *pa, const void *pb)
{
	return sort_lines ? cmp_line_keys(pa, pb) : cmp_ent_keys(sort_c2c, pa, pb);
}

/*
 * Biggest first, ties in the key order (perf's output rb-tree puts an
 * equal entry after the ones before it); entries by offset first.
 */
static int cmp_metric(const void *pa, const void *pb)
{
	const struct c2c_ent *a = pa, *b = pb;
	uint64_t ma[2], mb[2];

	if (!sort_lines && a->off != b->off)
		return a->off < b->off ? -1 : 1;
	metric(sort_c2c, &a->st, sort_lines, ma);
	metric(sort_c2c, &b->st, sort_lines, mb);
	if (ma[0] != mb[0])
		return ma[0] > mb[0] ? -1 : 1;
	if (ma[1] != mb[1])
		return ma[1] > mb[1] ? -1 : 1;
	return cmp_u64(a->ord, b->ord);
}

/* key order, then the display's */
static void sort_ents(const struct tally_c2c *c, struct c2c_ent *e, size_t n, bool lines)
{
	sort_c2c = c;
	sort_lines = lines;
	qsort(e, n, sizeof(*e), cmp_keys);
	for (size_t i = 0; i < n; i++)
		e[i].ord = i;
	qsort(e, n, sizeof(*e), cmp_metric);
}

static void set_nodes(const struct tally_c2c *c, struct c2c_ent *e)
{
	list_str(&e->nodeset, c->nr_nodes < 64 ? c->nr_nodes : 64, e->nodes, sizeof(e->nodes));
	if (!e->nodes[0])
		strcpy(e->nodes, "N/A");
}

int tally_c2c__run(struct tally_c2c *c)
{
	int err;

	if (!c)
		return tally__err(EINVAL);
	if (c->shown)
		return tally__err(EALREADY);	/* a session runs once */
	tally_session__set_sample(c->ss, add_sample, c);
	err = tally_session__run(c->ss);
	tally_session__set_sample(c->ss, NULL, NULL);
	if (c->err)
		return tally__err(-c->err);
	free(c->memo);
	c->memo = NULL;
	/* the lines' counts, and the total, are their entries' (counted in those alone) */
	for (size_t i = 0; i < c->top.nents; i++) {
		struct c2c_ent *l = &c->top.ents[i];

		for (size_t j = 0; j < l->nents; j++) {
			struct c2c_ent *e = &l->ents[j];

			ent_counts(c, e);
			stats_add(&l->st, &e->st);
			l->nodeset |= e->nodeset;
			for (int w = 0; w < c->cpu_words; w++)
				l->cpus[w] |= e->cpus[w];
		}
		stats_add(&c->total, &l->st);
	}
	if (err < 0 && err != -EALREADY && !c->top.nents)
		return tally__err(-err);
	/* the hash tables are done with: the arrays move now */
	for (size_t i = 0; i < c->top.nents; i++) {
		struct c2c_ent *l = &c->top.ents[i];

		free(l->slots);
		l->slots = NULL;
		set_nodes(c, l);
		for (size_t j = 0; j < l->nents; j++) {
			struct c2c_ent *e = &l->ents[j];

			set_nodes(c, e);
			/* perf's is_valid_hist_entry: stores, or loads of the display's kind */
			e->shown = e->st.store || shown_count(c, &e->st);
		}
		sort_ents(c, l->ents, l->nents, false);
		if (l->st.lcl_hitm || l->st.rmt_hitm || l->st.lcl_peer || l->st.rmt_peer) {
			c->nr_shared++;
			tally_c2c_stats__add(&c->shared, &l->st);
		}
	}
	free(c->top.slots);
	c->top.slots = NULL;
	sort_ents(c, c->top.ents, c->top.nents, true);
	if (!(c->shown = calloc(c->top.nents + 1, sizeof(*c->shown))))
		return tally__err(ENOMEM);
	for (size_t i = 0; i < c->top.nents; i++) {
		uint32_t v = shown_count(c, &c->top.ents[i].st), sum = shown_count(c, &c->shared);

		/* perf's filter_display: a line under 0.1% of the shared lines' is left out */
		if (c->show_all || (sum && (double)v / sum >= 0.001))
			c->shown[c->nshown++] = &c->top.ents[i];
	}
	return err < 0 && err != -EALREADY ? tally__err(-err) : 0;
}

struct tally_c2c *tally_c2c__new(struct tally_session *ss, const struct tally_c2c_opts *opts)
{
	struct tally_c2c *c;
	const enum tally_c2c_key *keys;
	long cl;
	int err;

	if (!ss || !TALLY_OPTS_VALID(opts, tally_c2c_opts))
		return tally__err_ptr(EINVAL);
	keys = TALLY_OPTS_GET(opts, keys, NULL);
	if (!(c = calloc(1, sizeof(*c))))
		return tally__err_ptr(ENOMEM);
	c->ss = ss;
	c->display = TALLY_OPTS_GET(opts, display, TALLY_C2C_TOT);
	c->show_all = TALLY_OPTS_GET(opts, show_all, false);
	c->nkeys = keys ? TALLY_OPTS_GET(opts, nr_keys, 0) : 1;
	if (c->nkeys < 0 || c->nkeys > 8 || (unsigned)c->display > TALLY_C2C_PEER) {
		free(c);
		return tally__err_ptr(EINVAL);
	}
	for (int i = 0; i < c->nkeys; i++)
		c->keys[i] = keys ? keys[i] : TALLY_C2C_IADDR;
	cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	c->cl = cl > 0 && !(cl & (cl - 1)) ? (uint64_t)cl : CL;
	if (!(c->memo = calloc((size_t)1 << MEMO_BITS, sizeof(*c->memo)))) {
		free(c);
		return tally__err_ptr(ENOMEM);
	}
	if ((err = read_nodes(c)) ||
	    !(c->res = tally__session_resolver(ss, TALLY_OPTS_GET(opts, srcline, false), true)) ||
	    !(c->dres = tally__session_data_resolver(ss))) {
		tally_c2c__free(c);
		return tally__err_ptr(err ? -err : ENOMEM);
	}
	return c;
}

static void free_ent(struct c2c_ent *e)
{
	free(e->cpus);
	free(e->node_st);
	free(e->dc);
	for (size_t i = 0; i < e->nents; i++)
		free_ent(&e->ents[i]);
	free(e->ents);
	free(e->slots);
}

void tally_c2c__free(struct tally_c2c *c)
{
	if (!c)
		return;
	free_ent(&c->top);
	free(c->memo);
	free(c->shown);
	free(c->node_cpus);
	free(c->cpu2node);
	free(c->block_node);
	tally__session_resolver_put(c->res);
	tally__session_resolver_put(c->dres);
	free(c);
}

const struct tally_c2c_stats *tally_c2c__totals(const struct tally_c2c *c)
{
	return c ? &c->total : NULL;
}

const struct tally_c2c_stats *tally_c2c__shared(const struct tally_c2c *c, int *nr)
{
	if (c && nr)
		*nr = c->nr_shared;
	return c ? &c->shared : NULL;
}

int tally_c2c__nr_nodes(const struct tally_c2c *c) { return c ? c->nr_nodes : 0; }
int tally_c2c__nr_cpus(const struct tally_c2c *c) { return c ? c->nr_cpus : 0; }

const uint64_t *tally_c2c__node_cpus(const struct tally_c2c *c, int node)
{
	return c && node >= 0 && node < c->nr_nodes ? c->node_cpus + (size_t)node * c->cpu_words : NULL;
}

size_t tally_c2c__nr_lines(const struct tally_c2c *c)
{
	return c ? c->nshown : 0;
}

int tally_c2c__line(const struct tally_c2c *c, size_t i, struct tally_c2c_line *out)
{
	const struct c2c_ent *l;

	if (!c || i >= c->nshown || !out || !TALLY_OPTS_VALID(out, tally_c2c_line))
		return tally__err(EINVAL);
	l = c->shown[i];
	*out = (struct tally_c2c_line){
		.sz = out->sz, .stats = &l->st, .addr = l->daddr & ~(c->cl - 1),
		.idx = (unsigned)i, .nodes = l->nodes, .paddr_cnt = l->paddr_cnt, .cpus = l->cpus,
		.nr_entries = l->nents,
	};
	return 0;
}

int tally_c2c__entry(const struct tally_c2c *c, size_t i, size_t j, struct tally_c2c_entry *out)
{
	const struct c2c_ent *e;
	const struct where *w;

	if (!c || i >= c->nshown || j >= c->shown[i]->nents || !out ||
	    !TALLY_OPTS_VALID(out, tally_c2c_entry))
		return tally__err(EINVAL);
	e = &c->shown[i]->ents[j];
	w = e->iw;
	*out = (struct tally_c2c_entry){
		.sz = out->sz, .stats = &e->st, .shown = e->shown, .offset = e->off,
		.nodes = e->nodes, .paddr_cnt = e->paddr_cnt, .pid = e->pid, .tid = e->tid,
		.comm = e->comm ? tally_session__final_comm(c->ss, e->comm) : NULL,
		.iaddr = e->ip, .level = w->mode, .sym = w->sym, .object = w->object,
		.object_off = w->object_off, .dso = w->map ? w->dso : NULL, .srcline = w->srcline,
		.mean_rmt_hitm = e->mean[0], .mean_lcl_hitm = e->mean[1], .mean_rmt_peer = e->mean[2],
		.mean_lcl_peer = e->mean[3], .mean_load = e->mean[4], .cpus = e->cpus,
		.node_stats = e->node_st,
	};
	return 0;
}
