// SPDX-License-Identifier: MIT
/*
 * Shared cache lines (tally/c2c.h), as perf 6.1's c2c report builds them:
 * every sample is kept (its data source, addresses, weight, CPU, thread
 * and code address resolved), then grouped by cache line in perf's order
 * of its dcacheline key, each line's samples by offset and the coalesce
 * keys; lines and entries sorted by the display's counts, ties in the key
 * order (perf's rb-trees keep equal entries in insertion order).
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

struct c2c_smp {
	uint64_t data_src, daddr, dline, phys, weight, ip;
	const struct where *iw;		/* the code address */
	bool dmapped;
	uint8_t mode;			/* header cpumode (perf orders lines by it) */
	int32_t pid, tid, cpu;
	const char *comm;
};

struct c2c_ent {
	struct tally_c2c_stats st;
	size_t first, nr;		/* its samples in the sorted array */
	uint64_t *cpus;
	char nodes[32];
	uint64_t paddr, paddr_cnt;
	struct tally_c2c_stats *node_st;
	double mean[5];			/* rmt hitm, lcl hitm, rmt peer, lcl peer, load */
	bool shown;
	struct c2c_ent *ents;		/* a line's entries, sorted */
	size_t nents;
};

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
	struct c2c_smp *smp;
	size_t nsmp, asmp;
	struct tally_c2c_stats total, shared;
	int nr_shared;
	struct c2c_ent *lines;		/* every line, sorted */
	size_t nlines;
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
	if (!tally_data_reader__feature(r, TALLY_HEADER_MEM_TOPOLOGY, &data, &len) && len >= 24) {
		const uint64_t *w = data, *end = w + len / 8;
		uint64_t nr = w[2];

		c->mem_bsize = w[1];
		w += 3;
		for (uint64_t k = 0; k < nr && w + 3 <= end; k++) {
			uint64_t node = w[0], bits = w[2], words = (bits + 63) / 64;

			if (w + 3 + words > end || bits > (1u << 24))
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
				if (w[3 + b / 64] >> (b % 64) & 1)
					c->block_node[b] = (int)node;
			w += 3 + words;
		}
	}
	return 0;
}

static int phys_node(const struct tally_c2c *c, uint64_t phys)
{
	uint64_t b = c->mem_bsize ? phys / c->mem_bsize : 0;

	return c->mem_bsize && b < c->nblocks ? c->block_node[b] : -1;
}

static int add_sample(struct tally_session *s, const struct tally_session_sample *ts, void *ctx)
{
	struct tally_c2c *c = ctx;
	const struct tally_sample *x = ts->sample;
	struct c2c_smp *m;
	const struct where *dw = NULL;

	(void)s;
	if (c->nsmp == c->asmp) {
		size_t n = c->asmp ? c->asmp * 2 : 4096;
		struct c2c_smp *ns = realloc(c->smp, n * sizeof(*ns));

		if (!ns)
			return c->err = -ENOMEM;
		c->smp = ns;
		c->asmp = n;
	}
	m = &c->smp[c->nsmp];
	memset(m, 0, sizeof(*m));
	m->data_src = x->data_src;
	m->daddr = x->addr;
	m->phys = x->phys_addr;
	/* WEIGHT_STRUCT's first word is perf's weight */
	m->weight = ts->event->sample_type & PERF_SAMPLE_WEIGHT_STRUCT ? x->weight & 0xffffffffu :
		    x->weight;
	m->ip = x->ip;
	m->mode = (uint8_t)(ts->header->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	m->pid = ts->thread.pid;
	m->tid = ts->thread.tid;
	m->cpu = ts->event->sample_type & PERF_SAMPLE_CPU ? (int32_t)x->cpu : -1;
	m->comm = ts->thread.comm;
	if (!(m->iw = tally__resolver_get(c->res, m->pid, m->tid, x->ip, ts->mode)) ||
	    (x->addr && !(dw = tally__resolver_get(c->dres, m->pid, m->tid, x->addr, ts->mode))))
		return c->err = -ENOMEM;
	m->dmapped = dw && dw->map;
	m->dline = (dw ? dw->addr : x->addr) & ~(c->cl - 1);
	c->nsmp++;
	return 0;
}

static const struct tally_c2c *sort_c2c;	/* qsort's context (one sort at a time) */

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

/* perf's sort__dcacheline_cmp, in its entries' order (lower level, mapped, pid, line first) */
static int cmp_line(const void *pa, const void *pb)
{
	const struct c2c_smp *a = &sort_c2c->smp[*(const size_t *)pa];
	const struct c2c_smp *b = &sort_c2c->smp[*(const size_t *)pb];
	int r;

	if ((r = cmp_u64(a->mode, b->mode)))
		return r;
	if (a->dmapped != b->dmapped)
		return a->dmapped ? -1 : 1;
	if (a->dmapped && a->mode != PERF_RECORD_MISC_KERNEL && (r = cmp_u64((uint64_t)a->pid, (uint64_t)b->pid)))
		return a->pid < b->pid ? -1 : 1;
	if ((r = cmp_u64(a->dline, b->dline)))
		return r;
	return cmp_u64(*(const size_t *)pa, *(const size_t *)pb);	/* time order */
}

static int cmp_name(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : !a ? 1 : -1;	/* no map last */
	return strcmp(a, b);
}

/* an entry's keys in perf's insertion order: offset up, pid down, tid, iaddr, dso up */
static int cmp_ent_keys(const struct c2c_smp *a, const struct c2c_smp *b)
{
	int r = cmp_u64(a->daddr & (sort_c2c->cl - 1), b->daddr & (sort_c2c->cl - 1));

	for (int k = 0; !r && k < sort_c2c->nkeys; k++) {
		switch (sort_c2c->keys[k]) {
		case TALLY_C2C_PID: r = a->pid == b->pid ? 0 : a->pid > b->pid ? -1 : 1; break;
		case TALLY_C2C_TID: r = a->tid == b->tid ? 0 : a->tid < b->tid ? -1 : 1; break;
		case TALLY_C2C_IADDR: r = cmp_u64(a->ip, b->ip); break;
		case TALLY_C2C_DSO: r = cmp_name(a->iw->map ? a->iw->dso : NULL,
						 b->iw->map ? b->iw->dso : NULL); break;
		}
	}
	return r;
}

static int cmp_ent(const void *pa, const void *pb)
{
	int r = cmp_ent_keys(&sort_c2c->smp[*(const size_t *)pa], &sort_c2c->smp[*(const size_t *)pb]);

	return r ? r : cmp_u64(*(const size_t *)pa, *(const size_t *)pb);
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

/* biggest first; a stable insertion sort keeps the key order of ties */
static void sort_by_metric(const struct tally_c2c *c, struct c2c_ent *e, size_t n, bool lines)
{
	for (size_t i = 1; i < n; i++) {
		struct c2c_ent t = e[i];
		uint64_t mt[2], mj[2];
		size_t j = i;

		metric(c, &t.st, lines, mt);
		for (; j > 0; j--) {
			struct c2c_ent *p = &e[j - 1];

			metric(c, &p->st, lines, mj);
			if (!lines) {
				uint64_t op = c->smp[p->first].daddr & (c->cl - 1);
				uint64_t ot = c->smp[t.first].daddr & (c->cl - 1);

				if (op != ot) {
					if (op < ot)
						break;
					e[j] = *p;
					continue;
				}
			}
			if (mj[0] > mt[0] || (mj[0] == mt[0] && mj[1] >= mt[1]))
				break;
			e[j] = *p;
		}
		e[j] = t;
	}
}

/* counts, CPUs, nodes and mean weights of the samples idx[first..first+nr) */
static int fill(struct tally_c2c *c, struct c2c_ent *e, const size_t *idx, bool entry)
{
	uint64_t *nodes = calloc(((size_t)c->nr_nodes + 63) / 64, 8);
	double n[5] = { 0 };

	e->cpus = calloc((size_t)c->cpu_words, 8);
	e->node_st = entry ? calloc((size_t)c->nr_nodes, sizeof(*e->node_st)) : NULL;
	if (!nodes || !e->cpus || (entry && !e->node_st)) {
		free(nodes);
		return -ENOMEM;
	}
	for (size_t k = 0; k < e->nr; k++) {
		const struct c2c_smp *m = &c->smp[idx[e->first + k]];
		struct tally_c2c_stats one = { 0 };
		int cpu = m->cpu < 0 ? 0 : m->cpu, node, w;

		tally_c2c__decode(&one, m->data_src, m->daddr, m->dmapped && m->iw->map);
		tally_c2c_stats__add(&e->st, &one);
		if (m->cpu >= 0 && m->cpu < c->nr_cpus)
			set_bit(e->cpus, m->cpu);
		if (m->phys && (node = phys_node(c, m->phys)) >= 0 && node < c->nr_nodes) {
			set_bit(nodes, node);
			if (e->paddr != m->phys) {
				e->paddr_cnt++;
				e->paddr = m->phys;
			}
		}
		if (!entry)
			continue;
		if (cpu < c->nr_cpus)
			tally_c2c_stats__add(&e->node_st[c->cpu2node[cpu]], &one);
		/* perf's compute_stats: the first that applies, a running mean as its update_stats */
		w = one.rmt_hitm ? 0 : one.lcl_hitm ? 1 : one.rmt_peer ? 2 : one.lcl_peer ? 3 :
		    one.load ? 4 : -1;
		if (w >= 0) {
			n[w]++;
			e->mean[w] += ((double)m->weight - e->mean[w]) / n[w];
		}
	}
	list_str(nodes, c->nr_nodes, e->nodes, sizeof(e->nodes));
	if (!e->nodes[0])
		strcpy(e->nodes, "N/A");
	free(nodes);
	return 0;
}

static int build_line(struct tally_c2c *c, struct c2c_ent *l, size_t *idx)
{
	size_t *sub = idx + l->first, n = 0;

	/* the line's samples by entry, each entry's in time order */
	qsort(sub, l->nr, sizeof(*sub), cmp_ent);
	for (size_t k = 0; k < l->nr; k++)
		n += !k || cmp_ent_keys(&c->smp[sub[k - 1]], &c->smp[sub[k]]);
	if (!(l->ents = calloc(n, sizeof(*l->ents))))
		return -ENOMEM;
	for (size_t k = 0; k < l->nr; k++) {
		if (!k || cmp_ent_keys(&c->smp[sub[k - 1]], &c->smp[sub[k]]))
			l->ents[l->nents++].first = l->first + k;
		l->ents[l->nents - 1].nr++;
	}
	for (size_t k = 0; k < l->nents; k++) {
		struct c2c_ent *e = &l->ents[k];

		if (fill(c, e, idx, true))
			return -ENOMEM;
		/* perf's is_valid_hist_entry: stores, or loads of the display's kind */
		e->shown = e->st.store || shown_count(c, &e->st);
		e->first = idx[e->first];	/* from now on: its first sample */
	}
	sort_by_metric(c, l->ents, l->nents, false);
	return 0;
}

int tally_c2c__run(struct tally_c2c *c)
{
	size_t *idx;
	int err;

	if (!c)
		return tally__err(EINVAL);
	tally_session__set_sample(c->ss, add_sample, c);
	err = tally_session__run(c->ss);
	tally_session__set_sample(c->ss, NULL, NULL);
	if (c->err)
		return tally__err(-c->err);
	if (err < 0 && err != -EALREADY && !c->nsmp)
		return tally__err(-err);
	if (!(idx = malloc((c->nsmp + 1) * sizeof(*idx))))
		return tally__err(ENOMEM);
	for (size_t i = 0; i < c->nsmp; i++)
		idx[i] = i;
	sort_c2c = c;
	qsort(idx, c->nsmp, sizeof(*idx), cmp_line);
	for (size_t i = 0; i < c->nsmp; i++) {
		const struct c2c_smp *a = i ? &c->smp[idx[i - 1]] : NULL, *b = &c->smp[idx[i]];

		if (!a || a->mode != b->mode || a->dmapped != b->dmapped || a->dline != b->dline ||
		    (b->dmapped && b->mode != PERF_RECORD_MISC_KERNEL && a->pid != b->pid)) {
			struct c2c_ent *nl = realloc(c->lines, (c->nlines + 1) * sizeof(*nl));

			if (!nl)
				goto nomem;
			c->lines = nl;
			memset(&nl[c->nlines], 0, sizeof(*nl));
			nl[c->nlines++].first = i;
		}
		c->lines[c->nlines - 1].nr++;
	}
	for (size_t i = 0; i < c->nlines; i++) {
		struct c2c_ent *l = &c->lines[i];

		if (fill(c, l, idx, false) || build_line(c, l, idx))
			goto nomem;
		tally_c2c_stats__add(&c->total, &l->st);
		if (l->st.lcl_hitm || l->st.rmt_hitm || l->st.lcl_peer || l->st.rmt_peer) {
			c->nr_shared++;
			tally_c2c_stats__add(&c->shared, &l->st);
		}
		l->first = idx[l->first];
	}
	sort_by_metric(c, c->lines, c->nlines, true);
	if (!(c->shown = calloc(c->nlines + 1, sizeof(*c->shown))))
		goto nomem;
	for (size_t i = 0; i < c->nlines; i++) {
		uint32_t v = shown_count(c, &c->lines[i].st), sum = shown_count(c, &c->shared);

		/* perf's filter_display: a line under 0.1% of the shared lines' is left out */
		if (c->show_all || (sum && (double)v / sum >= 0.001))
			c->shown[c->nshown++] = &c->lines[i];
	}
	free(idx);
	sort_c2c = NULL;
	return err < 0 && err != -EALREADY ? tally__err(-err) : 0;
nomem:
	free(idx);
	sort_c2c = NULL;
	return tally__err(ENOMEM);
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
	for (size_t i = 0; i < e->nents; i++)
		free_ent(&e->ents[i]);
	free(e->ents);
}

void tally_c2c__free(struct tally_c2c *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nlines; i++)
		free_ent(&c->lines[i]);
	free(c->lines);
	free(c->shown);
	free(c->smp);
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
		.sz = out->sz, .stats = &l->st, .addr = c->smp[l->first].daddr & ~(c->cl - 1),
		.idx = (unsigned)i, .nodes = l->nodes, .paddr_cnt = l->paddr_cnt, .cpus = l->cpus,
		.nr_entries = l->nents,
	};
	return 0;
}

int tally_c2c__entry(const struct tally_c2c *c, size_t i, size_t j, struct tally_c2c_entry *out)
{
	const struct c2c_ent *e;
	const struct c2c_smp *m;
	const struct where *w;

	if (!c || i >= c->nshown || j >= c->shown[i]->nents || !out ||
	    !TALLY_OPTS_VALID(out, tally_c2c_entry))
		return tally__err(EINVAL);
	e = &c->shown[i]->ents[j];
	m = &c->smp[e->first];
	w = m->iw;
	*out = (struct tally_c2c_entry){
		.sz = out->sz, .stats = &e->st, .shown = e->shown, .offset = m->daddr & (c->cl - 1),
		.nodes = e->nodes, .paddr_cnt = e->paddr_cnt, .pid = m->pid, .tid = m->tid,
		.comm = m->comm ? tally_session__final_comm(c->ss, m->comm) : NULL,
		.iaddr = m->ip, .level = w->mode, .sym = w->sym, .object = w->object,
		.object_off = w->object_off, .dso = w->map ? w->dso : NULL, .srcline = w->srcline,
		.mean_rmt_hitm = e->mean[0], .mean_lcl_hitm = e->mean[1], .mean_rmt_peer = e->mean[2],
		.mean_lcl_peer = e->mean[3], .mean_load = e->mean[4], .cpus = e->cpus,
		.node_stats = e->node_st,
	};
	return 0;
}
