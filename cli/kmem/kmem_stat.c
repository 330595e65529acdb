// SPDX-License-Identifier: MIT
/*
 * tally kmem stat: the file's kmem tracepoints in time order (the
 * library's session), counted as perf 6.1's builtin-kmem counts them:
 * the slab allocator's bytes requested, allocated and freed (a free
 * counts what the last allocation at that address took), its internal
 * fragmentation and cross-node allocations; the page allocator's
 * allocations and frees matched by page (pfn), the failures, and the
 * allocations by order and migrate type. Printed in perf's layout.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "kmem_cmd.h"
#include "kmem_tables.h"
#include "read_file.h"
#include "tp_cmd.h"

#define MAX_PAGE_ORDER		11
#define MAX_MIGRATE_TYPES	6
#define NUMA_NO_NODE		(-1)

enum km_kind { KM_OTHER, KM_ALLOC, KM_ALLOC_NODE, KM_FREE, KM_PAGE_ALLOC, KM_PAGE_FREE };

/*
 * A pointer's allocation or free, applied PTR_LAG samples after it came,
 * its slot's line asked for when it came: the pointers come at random, a
 * cache miss each, half of the samples' time when looked up at once. The
 * table's updates keep their order; what else they touch (the bytes
 * freed, a call site's ping-pongs) is only counted.
 */
struct ptr_op {
	uint64_t ptr, call_site, bytes;
	short cpu;
	bool alloc;
};
#define PTR_LAG 16

struct km {
	const struct kmem_opts *o;
	const char *path;
	struct tally_session *s;
	enum km_kind *kinds;
	int nr_attrs;
	uint64_t page_size;
	struct table ptrs, callers, pages;	/* ptrs: with --alloc */
	struct ptr_table live;			/* the pointers without --alloc */
	struct ptr_op lag[PTR_LAG];		/* live's updates to come, oldest at lag_at */
	unsigned lag_at, lag_n;
	struct kmem_pages *ptabs;	/* --page --caller/--alloc: the page tables */
	struct table csnames;		/* a page call site's kernel symbol, by address */
	regex_t alloc_re;		/* perf's page allocator functions, skipped to the call site */
	bool has_re;
	int *cpu_node;			/* by CPU: its node on this machine (perf's cpu__get_node) */
	int nr_cpu_node;
	/* slab */
	unsigned long total_requested, total_allocated, total_freed, nr_allocs, nr_cross;
	/* page */
	unsigned long nr_page_allocs, nr_page_frees, nr_page_fails, nr_page_nomatch;
	uint64_t page_alloc_bytes, page_free_bytes, page_fail_bytes, page_nomatch_bytes;
	int order_stats[MAX_PAGE_ORDER][MAX_MIGRATE_TYPES];
	struct tally_tp_reader *fields;	/* the kmem fields perf reads */
	struct tally_tp_reader *slab_fields[2];	/* a slab alloc's and free's own (slab_names) */
	uint8_t found_of[1 << 10];	/* the reader's mask to F_* (decode's loop, a sample each) */
	uint64_t start, end;		/* --time, ns; 0: open */
	int bad_fields;
	int out_of_range;		/* page samples of an order or migrate type perf has no cell for */
	bool no_mem;
};

static enum km_kind kind_of(const char *name)
{
	static const struct { const char *name; enum km_kind k; } names[] = {
		{ "kmem:kmalloc", KM_ALLOC }, { "kmem:kmem_cache_alloc", KM_ALLOC },
		{ "kmem:kmalloc_node", KM_ALLOC_NODE }, { "kmem:kmem_cache_alloc_node", KM_ALLOC_NODE },
		{ "kmem:kfree", KM_FREE }, { "kmem:kmem_cache_free", KM_FREE },
		{ "kmem:mm_page_alloc", KM_PAGE_ALLOC }, { "kmem:mm_page_free", KM_PAGE_FREE },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && !strcmp(name, names[i].name))
			return names[i].k;
	return KM_OTHER;
}

/* An update of live (perf's alloc and free of a pointer), applied now. */
static void ptr_apply(struct km *k, const struct ptr_op *op)
{
	struct ptr_slot *ps;
	struct slot *c;

	if (op->alloc) {
		if (!(ps = kmem_ptr_get(&k->live, op->ptr))) {
			k->no_mem = true;
			return;
		}
		ps->call_site = op->call_site;
		ps->bytes = op->bytes;
		ps->cpu = op->cpu;
		return;
	}
	if (!(ps = kmem_ptr_find(&k->live, op->ptr)))
		return;		/* allocated before the recording */
	k->total_freed += ps->bytes;
	if (op->cpu != ps->cpu && (c = kmem_table_find(&k->callers, ps->call_site)))
		c->pingpong++;
	ps->cpu = -1;
}

/* op applied PTR_LAG updates later (ptr_op), its slot asked for now. */
static void ptr_later(struct km *k, const struct ptr_op *op)
{
	if (k->live.cap)
		__builtin_prefetch(&k->live.s[kmem_slot_of(op->ptr, k->live.cap)], 1);
	if (k->lag_n == PTR_LAG) {
		ptr_apply(k, &k->lag[k->lag_at]);
		k->lag[k->lag_at] = *op;
		k->lag_at = (k->lag_at + 1) % PTR_LAG;
		return;
	}
	k->lag[(k->lag_at + k->lag_n++) % PTR_LAG] = *op;
}

/* The updates still to come, applied (the file read). */
static void ptr_drain(struct km *k)
{
	for (; k->lag_n; k->lag_n--, k->lag_at = (k->lag_at + 1) % PTR_LAG)
		ptr_apply(k, &k->lag[k->lag_at]);
}

/* The CPU's NUMA node on this machine, as perf's cpu__get_node reads sysfs; -1 unknown. */
static int cpu_node(struct km *k, int cpu)
{
	if (cpu < 0 || cpu >= 4096)
		return -1;
	if (cpu >= k->nr_cpu_node) {
		int n = cpu + 1, *m = realloc(k->cpu_node, (size_t)n * sizeof(*m));

		if (!m)
			return -1;
		for (int i = k->nr_cpu_node; i < n; i++)
			m[i] = -2;	/* not read yet */
		k->cpu_node = m;
		k->nr_cpu_node = n;
	}
	if (k->cpu_node[cpu] == -2) {
		char path[96];

		k->cpu_node[cpu] = -1;
		for (int node = 0; node < 1024; node++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, node);
			if (access(path, F_OK) == 0) {
				k->cpu_node[cpu] = node;
				break;
			}
		}
	}
	return k->cpu_node[cpu];
}

struct km_ev {
	uint64_t call_site, ptr, page, pfn, bytes_req, bytes_alloc, gfp;
	int64_t node, migrate;
	unsigned order;
	unsigned found;
	bool has_node;			/* the format has "node" (perf then counts cross-node) */
	bool use_pfn;			/* pages by "pfn" (newer kernels), else by "page" */
};
enum { F_PTR = 1, F_REQ = 2, F_ALLOC = 4, F_PAGE = 8, F_ORDER = 16, F_GFP = 32, F_MIGRATE = 64 };

static unsigned needed(enum km_kind k)
{
	switch (k) {
	case KM_ALLOC:
	case KM_ALLOC_NODE: return F_PTR | F_REQ | F_ALLOC;
	case KM_FREE: return F_PTR;
	case KM_PAGE_ALLOC: return F_PAGE | F_ORDER | F_GFP | F_MIGRATE;
	case KM_PAGE_FREE: return F_PAGE | F_ORDER;
	default: return 0;
	}
}

/* The fields perf reads, in the reader's order (bit i of its mask: names[i]). */
enum { N_CALL_SITE, N_PTR, N_REQ, N_ALLOC, N_NODE, N_PFN, N_PAGE, N_ORDER, N_GFP, N_MIGRATE, N_NR };
static const char *const field_names[N_NR] = {
	"call_site", "ptr", "bytes_req", "bytes_alloc", "node", "pfn", "page", "order",
	"gfp_flags", "migratetype",
};

/* found_of: each mask of the reader's names, the F_* flags of the fields it holds */
static void found_init(struct km *k)
{
	static const unsigned flag[N_NR] = {
		[N_PTR] = F_PTR, [N_REQ] = F_REQ, [N_ALLOC] = F_ALLOC, [N_PFN] = F_PAGE,
		[N_PAGE] = F_PAGE, [N_ORDER] = F_ORDER, [N_GFP] = F_GFP, [N_MIGRATE] = F_MIGRATE,
	};
	_Static_assert(N_NR <= 10 && F_MIGRATE < 256, "found_of's size");

	for (unsigned m = 0; m < sizeof(k->found_of); m++) {
		k->found_of[m] = 0;
		for (int i = 0; i < N_NR; i++)
			if (m & (1u << i))
				k->found_of[m] |= (uint8_t)flag[i];
	}
}

/*
 * A slab event's fields read by a reader of its kind's names alone (the
 * ten names' reader read six fields and zeroed ten values a sample, most
 * of them none of a slab event's): what slab_alloc and slab_free read,
 * and "order", which decode checks whatever the kind.
 */
enum { S_CALL_SITE, S_PTR, S_REQ, S_ALLOC, S_NODE, S_ORDER };
static const char *const slab_names[2][6] = {
	{ "call_site", "ptr", "bytes_req", "bytes_alloc", "node", "order" },
	{ "ptr", "order" },
};
static const int slab_nr[2] = { 6, 2 };

static bool decode_slab(struct km *k, enum km_kind kind, const struct tally_sample *sm,
			struct km_ev *ev)
{
	struct tally_tp_val v[6];
	int got;

	if (kind == KM_FREE) {
		got = tally_tp_reader__read(k->slab_fields[1], sm->raw.data, sm->raw.size, v);
		if (got < 0)
			return false;
		ev->found = (got & 1 ? F_PTR : 0) | (got & 2 ? F_ORDER : 0);
		ev->ptr = v[0].val;
		ev->order = (unsigned)v[1].val;
	} else {
		got = tally_tp_reader__read(k->slab_fields[0], sm->raw.data, sm->raw.size, v);
		if (got < 0)
			return false;
		ev->found = (got & (1 << S_PTR) ? F_PTR : 0) | (got & (1 << S_REQ) ? F_REQ : 0) |
			    (got & (1 << S_ALLOC) ? F_ALLOC : 0) |
			    (got & (1 << S_ORDER) ? F_ORDER : 0);
		ev->call_site = v[S_CALL_SITE].val;
		ev->ptr = v[S_PTR].val;
		ev->bytes_req = v[S_REQ].val;
		ev->bytes_alloc = v[S_ALLOC].val;
		ev->has_node = got & (1 << S_NODE);
		ev->node = ev->has_node ? (int32_t)(uint32_t)v[S_NODE].val : NUMA_NO_NODE;
		ev->order = (unsigned)v[S_ORDER].val;
	}
	if ((ev->found & F_ORDER) && ev->order >= 64)
		return false;
	return (ev->found & needed(kind)) == needed(kind);
}

/* The fields perf reads by name (tally_tp_reader); false when the sample lacks one its kind needs. */
static bool decode(struct km *k, enum km_kind kind, const struct tally_sample *sm, struct km_ev *ev)
{
	struct tally_tp_val v[N_NR];
	int got;

	if (!sm->raw.data)
		return false;
	if (kind <= KM_FREE)
		return decode_slab(k, kind, sm, ev);
	got = tally_tp_reader__read(k->fields, sm->raw.data, sm->raw.size, v);
	if (got < 0)
		return false;
	ev->found |= k->found_of[(unsigned)got & (sizeof(k->found_of) - 1)];
	ev->call_site = v[N_CALL_SITE].val;
	ev->ptr = v[N_PTR].val;
	ev->bytes_req = v[N_REQ].val;
	ev->bytes_alloc = v[N_ALLOC].val;
	ev->has_node = got & (1 << N_NODE);
	ev->node = ev->has_node ? (int32_t)(uint32_t)v[N_NODE].val : NUMA_NO_NODE;
	ev->use_pfn = got & (1 << N_PFN);
	ev->page = ev->use_pfn ? v[N_PFN].val : v[N_PAGE].val;
	ev->order = (unsigned)v[N_ORDER].val;
	ev->gfp = v[N_GFP].val;
	ev->migrate = (int32_t)(uint32_t)v[N_MIGRATE].val;
	/* a page's size shifted by an order past 63 means nothing (perf's shift is undefined then) */
	if ((ev->found & F_ORDER) && ev->order >= 64)
		return false;
	return (ev->found & needed(kind)) == needed(kind);
}

/* A call site's kernel symbol, "name+offset" as perf's kmem prints it; NULL: none. */
static char *callsite_name(struct km *k, const struct tally_session_sample *smp, uint64_t addr)
{
	struct tally_sample sm = *smp->sample;
	struct tally_session_sample at = *smp;
	struct tally_frame f;
	char buf[512];

	sm.ip = addr;
	sm.callchain.nr = 0;
	at.sample = &sm;
	at.mode = TALLY_CPUMODE_KERNEL;
	if (tally_session__resolve(k->s, &at, &f) || !f.sym || f.level != 'k')
		return NULL;
	snprintf(buf, sizeof(buf), "%s+%llx", f.sym, (unsigned long long)(f.addr - f.sym_start));
	return strdup(buf);
}

/* perf's evsel__process_alloc_event (and its "node" count of cross allocations). */
static void slab_alloc(struct km *k, const struct tally_session_sample *smp, const struct km_ev *ev)
{
	bool made;
	struct slot *c;

	if (k->o->alloc) {	/* the pointers' table is printed: its counts too */
		struct slot *sl = kmem_table_get(&k->ptrs, ev->ptr, &made);

		if (!sl) {
			k->no_mem = true;
			return;
		}
		sl->hit++;
		sl->bytes_req += ev->bytes_req;
		sl->bytes_alloc += ev->bytes_alloc;
		sl->call_site = ev->call_site;
		sl->bytes = ev->bytes_alloc;
		sl->cpu = (short)smp->sample->cpu;
	} else {
		ptr_later(k, &(struct ptr_op){ .ptr = ev->ptr, .call_site = ev->call_site,
					       .bytes = ev->bytes_alloc,
					       .cpu = (short)smp->sample->cpu, .alloc = true });
	}
	if (!(c = kmem_table_get(&k->callers, ev->call_site, &made))) {
		k->no_mem = true;
		return;
	}
	if (made)
		c->name = callsite_name(k, smp, ev->call_site);
	c->hit++;
	c->bytes_req += ev->bytes_req;
	c->bytes_alloc += ev->bytes_alloc;
	c->call_site = ev->call_site;
	k->total_requested += ev->bytes_req;
	k->total_allocated += ev->bytes_alloc;
	k->nr_allocs++;
	if (ev->has_node && ev->node != NUMA_NO_NODE &&
	    cpu_node(k, (int)smp->sample->cpu) != ev->node)
		k->nr_cross++;
}

/* perf's evsel__process_free_event: a free on another CPU than the allocation is a ping-pong. */
static void slab_free(struct km *k, const struct tally_session_sample *smp, const struct km_ev *ev)
{
	struct slot *c;

	if (!k->o->alloc) {
		ptr_later(k, &(struct ptr_op){ .ptr = ev->ptr, .cpu = (short)smp->sample->cpu });
		return;
	}
	struct slot *sl = kmem_table_find(&k->ptrs, ev->ptr);

	if (!sl)
		return;		/* allocated before the recording */
	k->total_freed += sl->bytes;
	if ((short)smp->sample->cpu != sl->cpu) {
		sl->pingpong++;
		if ((c = kmem_table_find(&k->callers, sl->call_site)))
			c->pingpong++;
	}
	sl->cpu = -1;
}

static bool valid_page(const struct km_ev *ev)
{
	return ev->use_pfn ? ev->page != (uint64_t)-1 : ev->page != 0;
}

/* perf's evsel__process_page_alloc_event: a page allocated keeps its first order and type till freed. */
static void page_tables(struct km *k, const struct tally_session_sample *smp, const struct km_ev *ev,
			uint64_t bytes);

static void page_alloc(struct km *k, const struct tally_session_sample *smp, const struct km_ev *ev)
{
	uint64_t bytes = k->page_size << ev->order;
	struct slot *sl;
	bool made;

	k->nr_page_allocs++;
	k->page_alloc_bytes += bytes;
	if (!valid_page(ev)) {
		k->nr_page_fails++;
		k->page_fail_bytes += bytes;
		return;
	}
	if (!(sl = kmem_table_get(&k->pages, ev->page, &made))) {
		k->no_mem = true;
		return;
	}
	if (made || !sl->live) {
		sl->order = ev->order;
		sl->gfp = (unsigned)ev->gfp;
		sl->migrate = (int)ev->migrate;
		sl->live = true;
	}
	if (k->ptabs)
		page_tables(k, smp, ev, bytes);
	if (ev->order >= MAX_PAGE_ORDER || ev->migrate < 0 || ev->migrate >= MAX_MIGRATE_TYPES) {
		k->out_of_range++;
		return;
	}
	k->order_stats[ev->order][ev->migrate]++;
}

/*
 * perf's find_callsite: the first of the sample's first 16 frames outside
 * the page allocator's functions (perf's "^_?_?(alloc|get_free|get_zeroed)_pages?",
 * which newer kernels' __alloc_frozen_pages_noprof escapes), mapped back
 * through its map as perf 6.1 does: the kernel map's start added to an
 * address that already is one. The sample's ip when none is.
 */
static uint64_t find_callsite(struct km *k, const struct tally_session_sample *smp)
{
	const struct tally_sample *sm = smp->sample;
	struct tally_sample head = *sm;
	struct tally_session_sample at = *smp;
	struct tally_frame fr[16];
	uint64_t i;
	int n, got = 0;

	/* no chain, or one perf drops (a marker it does not know among its 16 frames): the ip */
	for (i = 0; i < sm->callchain.nr && got < 16; i++) {
		uint64_t ip = sm->callchain.ips[i];

		if (ip < PERF_CONTEXT_MAX)
			got++;
		else if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
			 ip != PERF_CONTEXT_HV && ip != TALLY_CONTEXT_UNWOUND)
			return sm->ip;
	}
	if (!got)
		return sm->ip;
	head.callchain.nr = i;
	at.sample = &head;
	if (!k->has_re) {
		if (regcomp(&k->alloc_re, "^_?_?(alloc|get_free|get_zeroed)_pages?", REG_EXTENDED | REG_NOSUB))
			return sm->ip;
		k->has_re = true;
	}
	n = tally_session__frames(k->s, &at, fr, 16);
	for (int j = 0; j < n; j++) {
		if (fr[j].sym && regexec(&k->alloc_re, fr[j].sym, 0, NULL, 0) == 0)
			continue;
		return fr[j].dso ? fr[j].ip + fr[j].map_start - (fr[j].level == 'k' ? 0 : fr[j].map_pgoff)
				 : fr[j].ip;
	}
	return sm->ip;
}

/* The kernel symbol at a page call site, as perf names it in the tables; NULL: none. */
static const char *callsite_sym(struct km *k, const struct tally_session_sample *smp, uint64_t addr)
{
	struct tally_sample sm = *smp->sample;
	struct tally_session_sample at = *smp;
	struct tally_frame f;
	struct slot *sl;
	bool made;

	if (!(sl = kmem_table_get(&k->csnames, addr, &made)))
		return NULL;
	if (!made)
		return sl->name;
	sm.ip = addr;
	sm.callchain.nr = 0;
	at.sample = &sm;
	at.mode = TALLY_CPUMODE_KERNEL;
	if (!tally_session__resolve(k->s, &at, &f) && f.sym && f.level == 'k')
		sl->name = strdup(f.sym);
	return sl->name;
}

/* --caller, --alloc: the allocation into the page tables, its flags' text met once */
static void page_tables(struct km *k, const struct tally_session_sample *smp, const struct km_ev *ev,
			uint64_t bytes)
{
	const struct tally_sample *sm = smp->sample;
	uint64_t cs;

	if (!kmem_pages_gfp_known(k->ptabs, (unsigned)ev->gfp)) {
		char info[4096];

		if (tally_trace_fmt__print(tally_session__trace_fmt(k->s), sm->raw.data, sm->raw.size,
					   info, sizeof(info)) >= 0 &&
		    kmem_pages_add_gfp(k->ptabs, (unsigned)ev->gfp, info)) {
			k->no_mem = true;
			return;
		}
	}
	cs = find_callsite(k, smp);
	if (kmem_pages_alloc(k->ptabs, ev->page, ev->use_pfn, ev->order, (int)ev->migrate,
			     (unsigned)ev->gfp, bytes, cs, callsite_sym(k, smp, cs)))
		k->no_mem = true;
}

static void page_free(struct km *k, const struct km_ev *ev)
{
	uint64_t bytes = k->page_size << ev->order;
	struct slot *sl = kmem_table_find(&k->pages, ev->page);

	k->nr_page_frees++;
	k->page_free_bytes += bytes;
	if (!sl || !sl->live) {
		k->nr_page_nomatch++;
		k->page_nomatch_bytes += bytes;
		return;
	}
	sl->live = false;
	if (k->ptabs)
		kmem_pages_freed(k->ptabs, ev->page, ev->order, bytes);
	/* --live: the order table counts the pages left (the free's order, the allocation's type) */
	if (k->o->live && ev->order < MAX_PAGE_ORDER && sl->migrate >= 0 &&
	    sl->migrate < MAX_MIGRATE_TYPES)
		k->order_stats[ev->order][sl->migrate]--;
}

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct km *k = ctx;
	enum km_kind kind = smp->attr >= 0 && smp->attr < k->nr_attrs ? k->kinds[smp->attr] : KM_OTHER;
	/* decode sets the rest: an initializer's zeroing (rep stos) was an eighth of this function */
	struct km_ev ev;

	ev.found = 0;

	(void)s;
	if (kind == KM_OTHER)
		return 0;
	/* perf_time__skip_sample: outside --time's window, as if not recorded */
	if ((k->start && smp->sample->time < k->start) || (k->end && smp->sample->time > k->end))
		return 0;
	if ((kind <= KM_FREE && !k->o->slab) || (kind >= KM_PAGE_ALLOC && !k->o->page))
		return 0;
	if (!decode(k, kind, smp->sample, &ev)) {
		k->bad_fields++;
		return 0;
	}
	switch (kind) {
	case KM_ALLOC:
	case KM_ALLOC_NODE:
		slab_alloc(k, smp, &ev);
		break;
	case KM_FREE:
		slab_free(k, smp, &ev);
		break;
	case KM_PAGE_ALLOC:
		page_alloc(k, smp, &ev);
		break;
	default:
		page_free(k, &ev);
		break;
	}
	return k->no_mem ? -1 : 0;
}

static double fragmentation(unsigned long n_req, unsigned long n_alloc)
{
	return n_alloc == 0 ? 0.0 : 100.0 - (100.0 * n_req / n_alloc);
}

static void print_slab_summary(struct km *k)
{
	printf("\nSUMMARY (SLAB allocator)");
	printf("\n========================\n");
	printf("Total bytes requested: %lu\n", k->total_requested);
	printf("Total bytes allocated: %lu\n", k->total_allocated);
	printf("Total bytes freed:     %lu\n", k->total_freed);
	if (k->total_allocated > k->total_freed)
		printf("Net total bytes allocated: %lu\n", k->total_allocated - k->total_freed);
	printf("Total bytes wasted on internal fragmentation: %lu\n",
	       k->total_allocated - k->total_requested);
	printf("Internal fragmentation: %f%%\n", fragmentation(k->total_requested, k->total_allocated));
	printf("Cross CPU allocations: %lu/%lu\n", k->nr_cross, k->nr_allocs);
}

/* perf's slab sort keys: larger first */
static int cmp_key(const struct slot *a, const struct slot *b, const char *key)
{
	double x, y;

	if (!strcmp(key, "ptr") || !strcmp(key, "callsite")) {
		uint64_t u = !strcmp(key, "ptr") ? a->key : a->call_site;
		uint64_t v = !strcmp(key, "ptr") ? b->key : b->call_site;

		return u < v ? -1 : u > v;
	}
	if (!strcmp(key, "hit"))
		return a->hit < b->hit ? -1 : a->hit > b->hit;
	if (!strcmp(key, "bytes"))
		return a->bytes_alloc < b->bytes_alloc ? -1 : a->bytes_alloc > b->bytes_alloc;
	if (!strcmp(key, "pingpong"))
		return a->pingpong < b->pingpong ? -1 : a->pingpong > b->pingpong;
	x = fragmentation(a->bytes_req, a->bytes_alloc);	/* frag */
	y = fragmentation(b->bytes_req, b->bytes_alloc);
	return x < y ? -1 : x > y;
}

static const char *const *sort_keys;	/* qsort's: the keys, NULL-ended */

/* The first key that differs, larger first; equal rows keep their order (perf's tree). */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct slot *a = *(const struct slot *const *)pa, *b = *(const struct slot *const *)pb;

	for (int i = 0; sort_keys[i]; i++) {
		int c = cmp_key(a, b, sort_keys[i]);

		if (c)
			return -c;
	}
	return a->key < b->key ? -1 : a->key > b->key;	/* perf's walk: by pointer or call site */
}

int kmem_keys(const char *list, const char *const *names, size_t nnames, const char **keys, int max)
{
	char buf[256], *p = buf, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", list);
	while ((tok = strsep(&p, ",")) != NULL) {
		size_t i;

		for (i = 0; i < nnames && strcmp(names[i], tok); i++)
			;
		if (i == nnames || n == max - 1)
			return -1;
		keys[n++] = names[i];
	}
	keys[n] = NULL;
	return n;
}

int kmem_slab_keys(const char *list, const char **keys, int max)
{
	static const char *const names[] = { "ptr", "callsite", "hit", "bytes", "frag", "pingpong" };

	return kmem_keys(list, names, sizeof(names) / sizeof(names[0]), keys, max);
}

/* perf's __print_slab_result: the rows of one table, sorted, n_lines of them (-1: all). */
static int print_slab_table(struct km *k, struct table *t, bool is_caller, const char *sort,
			    int n_lines)
{
	static const char dots[] = "---------------------------------------------------------"
				   "------------------------------------------------";
	const char *keys[16];
	struct slot **rows = malloc((t->nr ? t->nr : 1) * sizeof(*rows));
	size_t n = 0, r;

	if (!rows || kmem_slab_keys(sort ? sort : "frag,hit,bytes", keys, 16) < 0) {
		free(rows);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->s[i].used)
			rows[n++] = &t->s[i];
	sort_keys = keys;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	printf("%.105s\n", dots);
	printf(" %-34s |", is_caller ? "Callsite" : "Alloc Ptr");
	printf(" Total_alloc/Per | Total_req/Per   | Hit      | Ping-pong | Frag\n");
	printf("%.105s\n", dots);
	for (r = 0; r < n && n_lines--; r++) {
		const struct slot *d = rows[r];
		char buf[512];

		if (is_caller && !k->o->raw_ip && d->name)
			snprintf(buf, sizeof(buf), "%s", d->name);
		else
			snprintf(buf, sizeof(buf), "%#llx", (unsigned long long)(is_caller ? d->call_site : d->key));
		printf(" %-34s |", buf);
		printf(" %9llu/%-5lu | %9llu/%-5lu | %8lu | %9lu | %6.3f%%\n",
		       (unsigned long long)d->bytes_alloc, (unsigned long)(d->bytes_alloc / d->hit),
		       (unsigned long long)d->bytes_req, (unsigned long)(d->bytes_req / d->hit),
		       d->hit, d->pingpong, fragmentation(d->bytes_req, d->bytes_alloc));
	}
	if (n_lines == -1)
		printf(" ...                                | ...             | ...             | ...      | ...       | ...   \n");
	printf("%.105s\n", dots);
	free(rows);
	return 0;
}

static void print_page_summary(struct km *k)
{
	static const char dots[] = "------------";
	unsigned long alloc_freed = k->nr_page_frees - k->nr_page_nomatch;
	uint64_t alloc_freed_bytes = k->page_free_bytes - k->page_nomatch_bytes;

	printf("\nSUMMARY (page allocator)");
	printf("\n========================\n");
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total allocation requests", k->nr_page_allocs,
	       (unsigned long long)(k->page_alloc_bytes / 1024));
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total free requests", k->nr_page_frees,
	       (unsigned long long)(k->page_free_bytes / 1024));
	printf("\n");
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total alloc+freed requests", alloc_freed,
	       (unsigned long long)(alloc_freed_bytes / 1024));
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total alloc-only requests",
	       k->nr_page_allocs - alloc_freed,
	       (unsigned long long)((k->page_alloc_bytes - alloc_freed_bytes) / 1024));
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total free-only requests", k->nr_page_nomatch,
	       (unsigned long long)(k->page_nomatch_bytes / 1024));
	printf("\n");
	printf("%-30s: %16lu   [ %16llu KB ]\n", "Total allocation failures", k->nr_page_fails,
	       (unsigned long long)(k->page_fail_bytes / 1024));
	printf("\n");
	printf("%5s  %12s  %12s  %12s  %12s  %12s\n", "Order", "Unmovable", "Reclaimable", "Movable",
	       "Reserved", "CMA/Isolated");
	printf("%.5s  %.12s  %.12s  %.12s  %.12s  %.12s\n", dots, dots, dots, dots, dots, dots);
	for (int o = 0; o < MAX_PAGE_ORDER; o++) {
		printf("%5d", o);
		for (int m = 0; m < MAX_MIGRATE_TYPES - 1; m++) {
			if (k->order_stats[o][m])
				printf("  %12d", k->order_stats[o][m]);
			else
				printf("  %12c", '.');
		}
		printf("\n");
	}
}

/* A file cut in its samples: said so, rather than that the events are missing. */
static bool truncated(struct km *k)
{
	struct tally_data_file_info fi;
	struct tally_data_reader *rd = tally_session__reader(k->s);

	if (!rd || tally_data_reader__is_pipe(rd) || tally_data_reader__file_info(rd, &fi) ||
	    fi.data_offset + fi.data_size <= fi.file_size)
		return false;
	fprintf(stderr, "tally kmem stat: %s: the file is truncated: its samples end at offset %#llx, "
		"the file at %#llx (the event names and tracepoint formats after them are lost)\n",
		k->path, (unsigned long long)(fi.data_offset + fi.data_size),
		(unsigned long long)fi.file_size);
	return true;
}

/* The events on_sample reads (--slab, --page): the session drops the others' samples unqueued. */
static bool want_event(const char *name, const struct perf_event_attr *attr, void *ctx)
{
	const struct km *k = ctx;
	enum km_kind kind = kind_of(name);

	(void)attr;
	return kind != KM_OTHER && !((kind <= KM_FREE && !k->o->slab) ||
				     (kind >= KM_PAGE_ALLOC && !k->o->page));
}

static int open_file(struct km *k, int *ret)
{
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = k, .no_comm = true,
		   .no_unwind = true, .no_inline = true, .want = want_event);
	bool has_slab = false, has_page = false;

	if (!(k->s = cli_session_open("kmem stat", k->path, &so, ret)))
		return -1;
	k->nr_attrs = tally_session__nr_events(k->s);
	if (!(k->kinds = calloc(k->nr_attrs > 0 ? (size_t)k->nr_attrs : 1, sizeof(*k->kinds)))) {
		*ret = 1;
		return -1;
	}
	for (int i = 0; i < k->nr_attrs; i++) {
		const char *name = tally_session__event_name(k->s, i);

		k->kinds[i] = kind_of(name);
		has_slab |= name && !strcmp(name, "kmem:kmalloc");
		has_page |= k->kinds[i] == KM_PAGE_ALLOC;
	}
	if ((k->o->slab && !has_slab) || (k->o->page && !has_page)) {
		const char *what = k->o->slab && !has_slab ? "slab" : "page";

		if (truncated(k)) {
			*ret = 1;
			return -1;
		}
		/* perf's words; its status for them, -EINVAL */
		fprintf(stderr, "tally kmem stat: %s: no %s allocation events found (kmem:%s). Have you "
			"run 'tally kmem record --%s'?\n", k->path, what,
			!strcmp(what, "slab") ? "kmalloc" : "mm_page_alloc", what);
		*ret = 234;
		return -1;
	}
	if (!tally_session__trace_fmt(k->s)) {
		fprintf(stderr, "tally kmem stat: %s: the file has no tracepoint formats (tracing data)\n",
			k->path);
		*ret = 1;
		return -1;
	}
	found_init(k);
	if (!(k->fields = tally_tp_reader__new(tally_session__trace_fmt(k->s), field_names, N_NR)) ||
	    !(k->slab_fields[0] = tally_tp_reader__new(tally_session__trace_fmt(k->s), slab_names[0],
							slab_nr[0])) ||
	    !(k->slab_fields[1] = tally_tp_reader__new(tally_session__trace_fmt(k->s), slab_names[1],
							slab_nr[1]))) {
		fprintf(stderr, "tally kmem stat: %s\n", strerror(errno));
		*ret = 1;
		return -1;
	}
	/* perf takes the tracing data's page size: this machine's, as the library does not read it */
	k->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	return 0;
}

int kmem_stat(const struct kmem_opts *o)
{
	struct km *k = calloc(1, sizeof(*k));
	int ret = 0;

	if (!k)
		return 1;
	k->o = o;
	k->path = o->input ? o->input : "perf.data";
	if (o->time && cli_time_window(o->time, &k->start, &k->end)) {
		/* perf's "Invalid time string", -EINVAL */
		fprintf(stderr, "tally kmem stat: --time '%s': START,STOP in seconds "
			"(either may be left out)\n", o->time);
		ret = 234;
		goto out;
	}
	if (open_file(k, &ret))
		goto out;
	if (o->page && (o->caller || o->alloc) && !(k->ptabs = kmem_pages_new(o->live))) {
		ret = 1;
		goto out;
	}
	ret = cli_session_run(k->s, "kmem stat", k->path);
	ptr_drain(k);
	if (k->no_mem) {
		fprintf(stderr, "tally kmem stat: out of memory\n");
		ret = 1;
		goto out;
	}
	if (k->bad_fields) {
		fprintf(stderr, "tally kmem stat: %s: %d kmem samples were left out: their fields could "
			"not be read (a format without the fields perf reads, or past the sample's data)\n",
			k->path, k->bad_fields);
		ret = 1;
	}
	if (k->out_of_range)
		fprintf(stderr, "tally kmem stat: %s: %d page allocations of an order above %d or a "
			"migrate type above %d are not in the order table\n", k->path, k->out_of_range,
			MAX_PAGE_ORDER - 1, MAX_MIGRATE_TYPES - 1);
	if (o->slab) {
		if (o->caller)
			print_slab_table(k, &k->callers, true, o->caller_sort, o->caller_lines);
		if (o->alloc)
			print_slab_table(k, &k->ptrs, false, o->alloc_sort, o->alloc_lines);
		print_slab_summary(k);
	}
	if (o->page) {
		if (k->ptabs)
			kmem_pages_print(k->ptabs, o);
		print_page_summary(k);
	}
out:
	if (k->s)
		tally_session__close(k->s);
	for (size_t i = 0; i < k->callers.cap; i++)
		free(k->callers.s[i].name);
	for (size_t i = 0; i < k->csnames.cap; i++)
		free(k->csnames.s[i].name);
	free(k->csnames.s);
	kmem_pages_free(k->ptabs);
	if (k->has_re)
		regfree(&k->alloc_re);
	free(k->callers.s);
	free(k->ptrs.s);
	free(k->live.s);
	free(k->pages.s);
	free(k->cpu_node);
	free(k->kinds);
	tally_tp_reader__free(k->fields);
	tally_tp_reader__free(k->slab_fields[0]);
	tally_tp_reader__free(k->slab_fields[1]);
	free(k);
	return ret;
}
