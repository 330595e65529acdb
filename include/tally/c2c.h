/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.5: shared data cache lines, perf c2c's model. Each memory
 * sample (a load or store with its data source and data address) is
 * classified as perf's c2c_decode_stats does (tally_c2c__decode), then
 * counted in its cache line and, inside the line, in its entry (the
 * offset in the line and the coalesce keys: pid, tid, iaddr, dso). Lines
 * whose loads hit a modified line in another core's cache (HITM) or a
 * peer's are shared; those are the ones shown, sorted by their HITMs.
 *
 *	TALLY_OPTS(tally_c2c_opts, o, .display = TALLY_C2C_TOT);
 *	struct tally_c2c *c = tally_c2c__new(ss, &o);
 *	tally_c2c__run(c);
 *	for (size_t i = 0; i < tally_c2c__nr_lines(c); i++) {
 *		TALLY_OPTS(tally_c2c_line, l);
 *		tally_c2c__line(c, i, &l);
 *		for (size_t j = 0; j < l.nr_entries; j++) ... tally_c2c__entry(c, i, j, &e);
 *	}
 *	tally_c2c__free(c);
 */
#ifndef TALLY_C2C_H
#define TALLY_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/core.h>
#include <tally/session.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's struct c2c_stats: counts of samples by what their data source says */
struct tally_c2c_stats {
	uint32_t nr_entries;		/* samples */
	uint32_t locks;			/* locked loads and stores */
	uint32_t store, st_uncache, st_noadrs, st_l1hit, st_l1miss, st_na;
	uint32_t load, ld_excl, ld_shared, ld_uncache, ld_io, ld_miss, ld_noadrs;
	uint32_t ld_fbhit, ld_l1hit, ld_l2hit, ld_llchit;
	uint32_t lcl_hitm, rmt_hitm, tot_hitm;	/* loads hitting a modified line */
	uint32_t lcl_peer, rmt_peer, tot_peer;	/* loads served by a peer's cache */
	uint32_t rmt_hit, lcl_dram, rmt_dram;
	uint32_t blk_data, blk_addr;	/* blocked by a data or an address conflict */
	uint32_t nomap;			/* a data or code address no map held */
	uint32_t noparse;		/* neither a load nor a store */
};

/*
 * Count one sample in st as perf's c2c_decode_stats: its data source
 * (union perf_mem_data_src), data address (0: none) and whether maps held
 * both its data and its code address. 0, or -1 where perf's returns -1
 * (no address, no map, not a load or store: still counted).
 */
TALLY_API int tally_c2c__decode(struct tally_c2c_stats *st, uint64_t data_src, uint64_t daddr,
				bool mapped);
TALLY_API void tally_c2c_stats__add(struct tally_c2c_stats *to, const struct tally_c2c_stats *add);
/* perf's sums: LLC misses, cache hits, stores, loads (misses + hits), records (loads + stores) */
TALLY_API uint64_t tally_c2c_stats__llc_misses(const struct tally_c2c_stats *st);
TALLY_API uint64_t tally_c2c_stats__loads(const struct tally_c2c_stats *st);
TALLY_API uint64_t tally_c2c_stats__stores(const struct tally_c2c_stats *st);
TALLY_API uint64_t tally_c2c_stats__records(const struct tally_c2c_stats *st);

/* What sorts and filters the lines (perf c2c report -d). */
enum tally_c2c_display {
	TALLY_C2C_TOT,		/* local and remote HITMs */
	TALLY_C2C_LCL,
	TALLY_C2C_RMT,
	TALLY_C2C_PEER,		/* loads from a peer's cache */
};

/* The coalesce keys of a line's entries, after the offset (perf's -c). */
enum tally_c2c_key { TALLY_C2C_PID, TALLY_C2C_TID, TALLY_C2C_IADDR, TALLY_C2C_DSO };

struct tally_c2c_opts {
	size_t sz;
	enum tally_c2c_display display;
	const enum tally_c2c_key *keys;	/* in order; NULL: iaddr alone */
	int nr_keys;
	bool show_all;			/* every line, shared or not (--show-all) */
	bool srcline;			/* the entries' source lines */
	size_t :0;
};
#define tally_c2c_opts__last_field srcline

/*
 * The model of ss's samples (ss outlives it). The file's NRCPUS and
 * NUMA_TOPOLOGY features give the nodes (ENODEV without them), its
 * MEM_TOPOLOGY the physical addresses' nodes. NULL + errno: EINVAL,
 * ENODEV, EBADMSG (over 65536 CPUs or 4096 nodes: a damaged header), ENOMEM.
 */
TALLY_API struct tally_c2c *tally_c2c__new(struct tally_session *ss,
					   const struct tally_c2c_opts *opts);
TALLY_API void tally_c2c__free(struct tally_c2c *c);
/*
 * Runs the session, counting every sample, then sorts: tally_session__run's
 * return (-EALREADY: run before), or -ENOMEM.
 */
TALLY_API int tally_c2c__run(struct tally_c2c *c);

/* Every sample's counts, and the shared lines' (with their number in *nr). */
TALLY_API const struct tally_c2c_stats *tally_c2c__totals(const struct tally_c2c *c);
TALLY_API const struct tally_c2c_stats *tally_c2c__shared(const struct tally_c2c *c, int *nr);
/* The nodes (NUMA_TOPOLOGY), the CPUs (NRCPUS' available) and node n's CPUs as a bitmap. */
TALLY_API int tally_c2c__nr_nodes(const struct tally_c2c *c);
TALLY_API int tally_c2c__nr_cpus(const struct tally_c2c *c);
TALLY_API const uint64_t *tally_c2c__node_cpus(const struct tally_c2c *c, int node);

struct tally_c2c_line {
	size_t sz;
	const struct tally_c2c_stats *stats;
	uint64_t addr;			/* the line's address (its first sample's, rounded down) */
	unsigned idx;			/* its index among the lines shown */
	const char *nodes;		/* the nodes of its physical addresses ("0-1"), "N/A" */
	uint64_t paddr_cnt;		/* physical address changes seen */
	const uint64_t *cpus;		/* the CPUs its samples ran on, a bitmap */
	size_t nr_entries;		/* its entries, shown or not (tally_c2c_entry.shown) */
	size_t :0;
};
#define tally_c2c_line__last_field nr_entries

struct tally_c2c_entry {
	size_t sz;
	const struct tally_c2c_stats *stats;
	bool shown;			/* it has stores, or loads of the display's kind */
	uint64_t offset;		/* in the line */
	const char *nodes;
	uint64_t paddr_cnt;
	int32_t pid, tid;
	const char *comm;		/* its thread's name */
	uint64_t iaddr;			/* the code address */
	char level;			/* '.' or 'k' */
	const char *sym;		/* NULL: unresolved */
	bool object;			/* sym is a data object: perf shows "name+0xOFF" */
	uint64_t object_off;
	const char *dso;		/* NULL: no map */
	const char *srcline;		/* opts.srcline: perf's ("file.c:12", "??:0") */
	/* the mean weight (cycles) of its remote and local HITMs, peers and other loads */
	double mean_rmt_hitm, mean_lcl_hitm, mean_rmt_peer, mean_lcl_peer, mean_load;
	const uint64_t *cpus;
	const struct tally_c2c_stats *node_stats;	/* per node, by the samples' CPUs */
	size_t :0;
};
#define tally_c2c_entry__last_field node_stats

/* The lines shown, sorted (the display's HITMs or peers, most first). */
TALLY_API size_t tally_c2c__nr_lines(const struct tally_c2c *c);
/* 0, -EINVAL. */
TALLY_API int tally_c2c__line(const struct tally_c2c *c, size_t i, struct tally_c2c_line *out);
/* Entry j of line i, sorted (offset, then the display's counts, most first). 0, -EINVAL. */
TALLY_API int tally_c2c__entry(const struct tally_c2c *c, size_t i, size_t j,
			       struct tally_c2c_entry *out);

#ifdef __cplusplus
}
#endif
#endif
