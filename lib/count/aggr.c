// SPDX-License-Identifier: MIT
/*
 * Aggregation (perf stat's --per-* modes): an evsel's slots summed by
 * CPU, core, die, socket, node or thread. Above evsel.c and evlist.c:
 * an evsel of an evlist counts on the evlist's maps.
 */
#include <tally/evlist.h>
#include "internal.h"
#include "evsel_internal.h"

struct aggr_key {
	int key, socket, die, core;
};

static int aggr_key_of(const struct tally_evsel *e, enum tally_aggr_mode mode,
		       const struct tally_topology *topo, struct tally_cpu cpu,
		       pid_t tid, struct aggr_key *k)
{
	k->key = 0;
	k->socket = k->die = k->core = -1;
	switch (mode) {
	case TALLY_AGGR_GLOBAL:
		return 0;
	case TALLY_AGGR_CPU:
		k->key = cpu.cpu;
		return 0;
	case TALLY_AGGR_THREAD:
		k->key = tid;
		return 0;
	case TALLY_AGGR_CORE:
	case TALLY_AGGR_DIE:
	case TALLY_AGGR_SOCKET:
	case TALLY_AGGR_NODE:
		if (!topo)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	k->socket = tally_topology__socket(topo, cpu);
	switch (mode) {
	case TALLY_AGGR_CORE:
		k->die = tally_topology__die(topo, cpu);
		k->core = tally_topology__core(topo, cpu);
		k->key = k->core;
		break;
	case TALLY_AGGR_DIE:
		k->die = tally_topology__die(topo, cpu);
		k->key = k->die;
		break;
	case TALLY_AGGR_SOCKET:
		k->key = k->socket;
		break;
	default: /* NODE: nodes are not inside sockets */
		k->socket = -1;
		k->key = tally_topology__node(topo, cpu);
		break;
	}
	(void)e;
	return 0;
}

static int cmp_aggr(const void *a, const void *b)
{
	const struct tally_aggr *x = a, *y = b;

	if (x->socket != y->socket)
		return (x->socket > y->socket) - (x->socket < y->socket);
	if (x->die != y->die)
		return (x->die > y->die) - (x->die < y->die);
	if (x->core != y->core)
		return (x->core > y->core) - (x->core < y->core);
	return (x->key > y->key) - (x->key < y->key);
}

int tally_evsel__aggregate(const struct tally_evsel *e, enum tally_aggr_mode mode,
			   const struct tally_topology *topo, bool delta,
			   struct tally_aggr **out)
{
	const struct tally_cpu_map *cpus;
	const struct tally_thread_map *threads;
	struct tally_aggr *v = NULL;
	int ncpu, nthr, n = 0, cap = 0;

	if (!e || !out)
		return tally__err(EINVAL);
	*out = NULL;
	cpus = e->cpus ? e->cpus : e->leader->cpus;
	threads = e->threads ? e->threads : e->leader->threads;
	if (!cpus && e->evlist)
		cpus = tally_evlist__cpus(e->evlist);
	if (!threads && e->evlist)
		threads = tally_evlist__threads(e->evlist);
	ncpu = tally_cpu_map__nr(cpus);
	nthr = tally_thread_map__nr(threads);
	if (e->counts && (ncpu != e->nr_cpus || nthr != e->nr_threads))
		return tally__err(EINVAL);
	for (int c = 0; c < ncpu; c++) {
		struct tally_cpu cpu = tally_cpu_map__cpu(cpus, c);

		for (int t = 0; t < nthr; t++) {
			struct tally_counts cnt = { 0 };
			struct aggr_key k;
			int i, err;

			err = aggr_key_of(e, mode, topo, cpu,
					  tally_thread_map__pid(threads, t), &k);
			if (err) {
				free(v);
				return tally__err(-err);
			}
			if (e->counts) {
				size_t s = EVSEL_SLOT(e, c, t);

				if (delta)
					tally_counts__sub(&cnt, &e->counts[s], &e->prev[s]);
				else
					cnt = e->counts[s];
			}
			for (i = 0; i < n; i++)
				if (v[i].key == k.key && v[i].socket == k.socket &&
				    v[i].die == k.die && v[i].core == k.core)
					break;
			if (i == n) {
				if (n == cap) {
					int ncap = cap ? cap * 2 : 8;
					void *nv = tally__reallocarray(v, (size_t)ncap, sizeof(*v));

					if (!nv) {
						free(v);
						return tally__err(ENOMEM);
					}
					v = nv;
					cap = ncap;
				}
				memset(&v[n], 0, sizeof(v[n]));
				v[n].key = k.key;
				v[n].socket = k.socket;
				v[n].die = k.die;
				v[n].core = k.core;
				n++;
			}
			tally_counts__add(&v[i].counts, &cnt);
			v[i].nr++;
		}
	}
	for (int i = 0; i < n; i++) {
		if (e->unsupported || !e->counts) {
			memset(&v[i].scaled, 0, sizeof(v[i].scaled));
			v[i].scaled.state = e->unsupported ? TALLY_COUNT_NOT_SUPPORTED :
							     TALLY_COUNT_NOT_COUNTED;
		} else {
			tally_counts__scale(&v[i].counts, &v[i].scaled);
		}
	}
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), cmp_aggr);
	*out = v;
	return n;
}
