// SPDX-License-Identifier: MIT
/*
 * Shared cache lines (tally/c2c.h): each data source's class as perf
 * 6.1's c2c_decode_stats counts it (HITMs local and remote, peers, every
 * load level, stores, and what it rejects), and the lines a file of
 * known samples makes: which are shared, their order by the display's
 * HITMs, their entries by offset and code address, the entries shown, the
 * mean weights.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>

#define P(a, b) PERF_MEM_##a##_##b
#define OP(o) ((uint64_t)P(OP, o) << PERF_MEM_OP_SHIFT)
#define LVL(l) ((uint64_t)(l) << PERF_MEM_LVL_SHIFT)
#define SNP(s) ((uint64_t)(s) << PERF_MEM_SNOOP_SHIFT)
#define SNPX(s) ((uint64_t)(s) << PERF_MEM_SNOOPX_SHIFT)
#define HIT(l) LVL(P(LVL, l) | P(LVL, HIT))

static struct tally_c2c_stats one(uint64_t dsrc, uint64_t daddr, bool mapped, int *ret)
{
	struct tally_c2c_stats st;

	memset(&st, 0, sizeof(st));
	*ret = tally_c2c__decode(&st, dsrc, daddr, mapped);
	assert_int_equal(st.nr_entries, 1);
	return st;
}

static void test_decode_loads(void **state)
{
	struct tally_c2c_stats st;
	int r;

	(void)state;
	/* an LLC hit another core held modified: a local HITM, not an LLC hit */
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)), 0x1000, true, &r);
	assert_int_equal(r, 0);
	assert_int_equal(st.load, 1);
	assert_int_equal(st.lcl_hitm, 1);
	assert_int_equal(st.tot_hitm, 1);
	assert_int_equal(st.ld_llchit, 0);
	assert_int_equal(st.rmt_hitm, 0);
	/* an L2 HITM is local too */
	st = one(OP(LOAD) | HIT(L2) | SNP(P(SNOOP, HITM)), 0x1000, true, &r);
	assert_int_equal(st.lcl_hitm, 1);
	assert_int_equal(st.ld_l2hit, 0);
	/* a remote cache's modified line: a remote HITM, an LLC miss */
	st = one(OP(LOAD) | HIT(REM_CCE1) | SNP(P(SNOOP, HITM)), 0x1000, true, &r);
	assert_int_equal(st.rmt_hitm, 1);
	assert_int_equal(st.tot_hitm, 1);
	assert_int_equal(st.lcl_hitm, 0);
	assert_int_equal(tally_c2c_stats__llc_misses(&st), 1);
	/* Skylake's remote bit without hops: an L3 HITM counts remote too */
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)) | (1ull << PERF_MEM_REMOTE_SHIFT),
		 0x1000, true, &r);
	assert_int_equal(st.lcl_hitm, 1);
	assert_int_equal(st.rmt_hitm, 1);
	assert_int_equal(st.tot_hitm, 2);
	assert_int_equal(st.rmt_dram, 1);
	/* with hops, the remote bit is another core of the node (POWER): local only */
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)) | (1ull << PERF_MEM_REMOTE_SHIFT) |
		 (1ull << PERF_MEM_HOPS_SHIFT), 0x1000, true, &r);
	assert_int_equal(st.rmt_hitm, 0);
	assert_int_equal(st.lcl_hitm, 1);
	/* a remote clean hit */
	st = one(OP(LOAD) | HIT(REM_CCE2) | SNP(P(SNOOP, HIT)), 0x1000, true, &r);
	assert_int_equal(st.rmt_hit, 1);
	assert_int_equal(st.rmt_hitm, 0);
	/* peers: local through L2, remote without a hit bit */
	st = one(OP(LOAD) | HIT(L2) | SNP(P(SNOOP, NONE)) | SNPX(P(SNOOPX, PEER)), 0x1000, true, &r);
	assert_int_equal(st.ld_l2hit, 1);
	assert_int_equal(st.lcl_peer, 1);
	assert_int_equal(st.tot_peer, 1);
	st = one(OP(LOAD) | LVL(P(LVL, REM_CCE1)) | SNPX(P(SNOOPX, PEER)), 0x1000, true, &r);
	assert_int_equal(st.rmt_peer, 1);
	assert_int_equal(st.rmt_hit, 1);
	/* the other levels */
	st = one(OP(LOAD) | HIT(LFB) | HIT(L1), 0x1000, true, &r);
	assert_int_equal(st.ld_fbhit, 1);
	assert_int_equal(st.ld_l1hit, 1);
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HIT)), 0x1000, true, &r);
	assert_int_equal(st.ld_llchit, 1);
	st = one(OP(LOAD) | HIT(LOC_RAM) | SNP(P(SNOOP, HIT)), 0x1000, true, &r);
	assert_int_equal(st.lcl_dram, 1);
	assert_int_equal(st.ld_shared, 1);
	st = one(OP(LOAD) | HIT(REM_RAM2) | SNP(P(SNOOP, MISS)), 0x1000, true, &r);
	assert_int_equal(st.rmt_dram, 1);
	assert_int_equal(st.ld_excl, 1);
	st = one(OP(LOAD) | HIT(UNC) | HIT(IO), 0x1000, true, &r);
	assert_int_equal(st.ld_uncache, 1);
	assert_int_equal(st.ld_io, 1);
	st = one(OP(LOAD) | LVL(P(LVL, L3) | P(LVL, MISS)), 0x1000, true, &r);
	assert_int_equal(st.ld_miss, 1);
	assert_int_equal(st.ld_llchit, 0);
	assert_int_equal(tally_c2c_stats__loads(&st), 0);	/* perf's sums leave misses out */
}

static void test_decode_stores_rejects(void **state)
{
	struct tally_c2c_stats st;
	int r;

	(void)state;
	st = one(OP(STORE) | HIT(L1) | ((uint64_t)P(LOCK, LOCKED) << PERF_MEM_LOCK_SHIFT),
		 0x1000, true, &r);
	assert_int_equal(st.store, 1);
	assert_int_equal(st.st_l1hit, 1);
	assert_int_equal(st.locks, 1);
	st = one(OP(STORE) | LVL(P(LVL, L1) | P(LVL, MISS)), 0x1000, true, &r);
	assert_int_equal(st.st_l1miss, 1);
	st = one(OP(STORE) | LVL(P(LVL, NA)), 0x1000, true, &r);
	assert_int_equal(st.st_na, 1);
	assert_int_equal(tally_c2c_stats__stores(&st), 1);
	st = one(OP(STORE) | HIT(UNC), 0x1000, true, &r);
	assert_int_equal(st.st_uncache, 1);
	assert_int_equal(tally_c2c_stats__stores(&st), 0);
	/* no data address: counted as such, nothing else */
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)), 0, true, &r);
	assert_int_equal(r, -1);
	assert_int_equal(st.ld_noadrs, 1);
	assert_int_equal(st.tot_hitm, 0);
	st = one(OP(STORE) | HIT(L1), 0, true, &r);
	assert_int_equal(st.st_noadrs, 1);
	assert_int_equal(st.st_l1hit, 0);
	/* no map: classified, then rejected */
	st = one(OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)), 0x1000, false, &r);
	assert_int_equal(r, -1);
	assert_int_equal(st.lcl_hitm, 1);
	assert_int_equal(st.nomap, 1);
	/* neither load nor store; blocks count whatever the op */
	st = one(OP(PFETCH) | ((uint64_t)(P(BLK, DATA) | P(BLK, ADDR)) << PERF_MEM_BLK_SHIFT),
		 0x1000, true, &r);
	assert_int_equal(st.noparse, 1);
	assert_int_equal(st.load + st.store, 0);
	assert_int_equal(st.blk_data, 1);
	assert_int_equal(st.blk_addr, 1);
}

/* samples: line (0x10000 + 64 * line), offset, tid, cpu, weight, data source */
struct smp { int line, off, tid, cpu; uint64_t weight, dsrc; };
#define LHITM (OP(LOAD) | HIT(L3) | SNP(P(SNOOP, HITM)))
#define RHITM (OP(LOAD) | HIT(REM_CCE1) | SNP(P(SNOOP, HITM)))
#define L1HIT (OP(LOAD) | HIT(L1) | SNP(P(SNOOP, NONE)))
#define STHIT (OP(STORE) | HIT(L1))
static const struct smp smps[] = {
	{ 0, 0, 1, 0, 100, LHITM }, { 0, 0, 1, 1, 200, LHITM }, { 0, 8, 1, 0, 0, STHIT },
	{ 0, 16, 2, 1, 30, L1HIT },
	{ 1, 32, 1, 0, 300, RHITM }, { 1, 32, 2, 1, 400, RHITM }, { 1, 32, 2, 1, 500, RHITM },
	{ 2, 0, 1, 0, 50, L1HIT }, { 2, 8, 2, 1, 0, STHIT },
};
#define NS (sizeof(smps) / sizeof(smps[0]))

static char path[64];

/* a file at path of one memory-load event, its samples IP, TID, TIME, ADDR, CPU, WEIGHT, DATA_SRC */
static struct tally_data_writer *c2c_writer(int *fd)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_RAW, .size = sizeof(a), .config = 0x1cd, .sample_period = 1000,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC,
	};
	uint64_t id = 1;
	struct tally_data_writer *w;

	strcpy(path, "/tmp/test_c2c.XXXXXX");
	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	w = tally_data_writer__new_fd(*fd, NULL);	/* NRCPUS, NUMA_TOPOLOGY: this machine's */
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "cpu/mem-loads,ldlat=30/P"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	return w;
}

static void write_file(void)
{
	int fd;
	struct tally_data_writer *w = c2c_writer(&fd);
	for (size_t i = 0; i < NS; i++) {
		uint64_t r[8];
		struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) };

		r[1] = 0x1000 + 4 * (uint64_t)smps[i].off + (uint64_t)smps[i].tid;	/* IP */
		r[2] = (uint64_t)(uint32_t)smps[i].tid << 32 | 1;	/* pid 1, tid */
		r[3] = 100 + i;						/* TIME */
		r[4] = 0x10000 + 64 * (uint64_t)smps[i].line + (uint64_t)smps[i].off;
		r[5] = (uint64_t)smps[i].cpu;
		r[6] = smps[i].weight;
		r[7] = smps[i].dsrc;
		memcpy(r, &h, sizeof(h));
		assert_int_equal(tally_data_writer__write(w, r, sizeof(r)), 0);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

static struct tally_c2c *model(struct tally_session **ss, enum tally_c2c_display d, bool all)
{
	TALLY_OPTS(tally_c2c_opts, o, .display = d, .show_all = all);
	struct tally_c2c *c;

	*ss = tally_session__open(path, NULL);
	assert_non_null(*ss);
	c = tally_c2c__new(*ss, &o);
	assert_non_null(c);
	assert_int_equal(tally_c2c__run(c), 0);
	return c;
}

static void test_lines(void **state)
{
	struct tally_session *ss;
	struct tally_c2c *c;
	TALLY_OPTS(tally_c2c_line, l);
	TALLY_OPTS(tally_c2c_entry, e);
	int nr;

	(void)state;
	write_file();
	c = model(&ss, TALLY_C2C_TOT, false);
	/* every sample counted; two lines have HITMs */
	assert_int_equal(tally_c2c__totals(c)->nr_entries, NS);
	assert_int_equal(tally_c2c__totals(c)->tot_hitm, 5);
	assert_int_equal(tally_c2c__shared(c, &nr)->store, 1);
	assert_int_equal(nr, 2);
	assert_int_equal(tally_c2c__nr_lines(c), 2);
	/* most HITMs first: line 1 (3 remote), then line 0 (2 local) */
	assert_int_equal(tally_c2c__line(c, 0, &l), 0);
	assert_int_equal(l.addr, 0x10040);
	assert_int_equal(l.stats->rmt_hitm, 3);
	assert_int_equal(l.nr_entries, 2);	/* two code addresses at one offset */
	assert_int_equal(tally_c2c__entry(c, 0, 0, &e), 0);
	assert_int_equal(e.offset, 32);
	assert_int_equal(e.stats->rmt_hitm, 2);	/* the bigger entry first */
	assert_true(e.mean_rmt_hitm == 450.0);
	assert_int_equal(tally_c2c__line(c, 1, &l), 0);
	assert_int_equal(l.addr, 0x10000);
	assert_int_equal(l.idx, 1);
	assert_int_equal(l.nr_entries, 3);
	/* offset 0: both local HITMs, their mean; 8: the store; 16: a plain hit, not shown */
	assert_int_equal(tally_c2c__entry(c, 1, 0, &e), 0);
	assert_int_equal(e.offset, 0);
	assert_int_equal(e.stats->lcl_hitm, 2);
	assert_true(e.mean_lcl_hitm == 150.0);
	assert_true(e.shown);
	assert_int_equal(tally_c2c__entry(c, 1, 1, &e), 0);
	assert_int_equal(e.offset, 8);
	assert_true(e.shown);
	assert_int_equal(tally_c2c__entry(c, 1, 2, &e), 0);
	assert_int_equal(e.offset, 16);
	assert_false(e.shown);
	assert_true(e.mean_load == 30.0);
	assert_int_equal(tally_c2c__entry(c, 1, 3, &e), -EINVAL);
	assert_int_equal(tally_c2c__line(c, 2, &l), -EINVAL);
	assert_int_equal(tally_c2c__run(c), -EALREADY);	/* once: the lines stay */
	assert_int_equal(tally_c2c__nr_lines(c), 2);
	tally_c2c__free(c);
	tally_session__close(ss);

	/* local HITMs alone: line 0 only */
	c = model(&ss, TALLY_C2C_LCL, false);
	assert_int_equal(tally_c2c__nr_lines(c), 1);
	assert_int_equal(tally_c2c__line(c, 0, &l), 0);
	assert_int_equal(l.addr, 0x10000);
	tally_c2c__free(c);
	tally_session__close(ss);

	/* every line: the unshared one last */
	c = model(&ss, TALLY_C2C_TOT, true);
	assert_int_equal(tally_c2c__nr_lines(c), 3);
	assert_int_equal(tally_c2c__line(c, 2, &l), 0);
	assert_int_equal(l.addr, 0x10080);
	tally_c2c__free(c);
	tally_session__close(ss);
	unlink(path);
}

/*
 * More distinct (tid, code address, data address) than c2c's memo has
 * slots, each three times round: the memo's evictions and the finds
 * behind them count every sample in its own line and entry; a thread
 * not a key (iaddr's) shares the entry of the same address, one that is
 * (tid's) has its own; the lines' counts and CPUs are their entries'.
 */
#define MK 3000
#define MLINES 1000

static void put_many(struct tally_data_writer *w, int k, uint32_t tid, int cpu, uint64_t *t)
{
	uint64_t r[8];
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(r) };

	r[1] = 0x1000 + 4 * (uint64_t)k;					/* IP */
	r[2] = (uint64_t)tid << 32 | 1;						/* pid 1 */
	r[3] = (*t)++;
	r[4] = 0x10000 + 64 * (uint64_t)(k % MLINES) + 8 * (uint64_t)(k / MLINES);
	r[5] = (uint64_t)cpu;
	r[6] = 100;
	r[7] = LHITM;
	memcpy(r, &h, sizeof(h));
	assert_int_equal(tally_data_writer__write(w, r, sizeof(r)), 0);
}

static void write_many(void)
{
	uint64_t t = 100;
	int fd;
	struct tally_data_writer *w = c2c_writer(&fd);
	for (int round = 0; round < 3; round++)
		for (int k = 0; k < MK; k++) {
			put_many(w, k, 1, round % 2, &t);
			/* an odd key's third sample, then one of another thread (the memo holds the first's) */
			if (round == 2 && k % 2)
				put_many(w, k, 2, 0, &t);
		}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

static void test_memo(void **state)
{
	static const enum tally_c2c_key keys[2] = { TALLY_C2C_TID, TALLY_C2C_IADDR };
	struct tally_session *ss;
	struct tally_c2c *c;
	TALLY_OPTS(tally_c2c_line, l);
	TALLY_OPTS(tally_c2c_entry, e);
	size_t split = 0;
	uint32_t odd;

	(void)state;
	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		skip();
	write_many();
	c = model(&ss, TALLY_C2C_TOT, true);
	assert_int_equal(tally_c2c__totals(c)->nr_entries, 3 * MK + MK / 2);
	assert_int_equal(tally_c2c__totals(c)->lcl_hitm, 3 * MK + MK / 2);
	assert_int_equal(tally_c2c__nr_lines(c), MLINES);
	for (size_t i = 0; i < MLINES; i++) {
		assert_int_equal(tally_c2c__line(c, i, &l), 0);
		assert_int_equal(l.nr_entries, MK / MLINES);
		/* a line's keys are all odd or all even (MLINES is even) */
		odd = (l.addr / 64) % 2;
		assert_int_equal(l.stats->nr_entries, (3 + odd) * MK / MLINES);
		assert_int_equal(l.cpus[0] & 3, 3);	/* rounds on CPUs 0 and 1 */
		for (size_t j = 0; j < l.nr_entries; j++) {
			assert_int_equal(tally_c2c__entry(c, i, j, &e), 0);
			assert_int_equal(e.stats->nr_entries, 3 + odd);
			assert_int_equal(e.cpus[0] & 3, 3);
		}
	}
	tally_c2c__free(c);
	tally_session__close(ss);

	/* tid a key: a key's samples from thread 2 an entry of their own */
	{
		TALLY_OPTS(tally_c2c_opts, o, .show_all = true, .keys = keys, .nr_keys = 2);

		ss = tally_session__open(path, NULL);
		assert_non_null(ss);
		c = tally_c2c__new(ss, &o);
		assert_non_null(c);
		assert_int_equal(tally_c2c__run(c), 0);
	}
	assert_int_equal(tally_c2c__totals(c)->nr_entries, 3 * MK + MK / 2);
	assert_int_equal(tally_c2c__nr_lines(c), MLINES);
	for (size_t i = 0; i < MLINES; i++) {
		uint32_t n = 0;

		assert_int_equal(tally_c2c__line(c, i, &l), 0);
		odd = (l.addr / 64) % 2;
		assert_int_equal(l.stats->nr_entries, (3 + odd) * MK / MLINES);
		assert_int_equal(l.nr_entries, (1 + odd) * MK / MLINES);
		for (size_t j = 0; j < l.nr_entries; j++) {
			assert_int_equal(tally_c2c__entry(c, i, j, &e), 0);
			assert_int_equal(e.stats->nr_entries, e.tid == 2 ? 1 : 3);
			n += e.stats->nr_entries;
			split += e.tid == 2;
		}
		assert_int_equal(n, (3 + odd) * MK / MLINES);
	}
	assert_int_equal(split, MK / 2);
	tally_c2c__free(c);
	tally_session__close(ss);
	unlink(path);
}

/*
 * 48 distinct data sources (c2c counts a decode's samples by number, for
 * its first 32, and the rest one by one) over four entries of one line,
 * three rounds on CPUs 0 and 1: each entry's counts, its nodes' and the
 * line's are the sums of tally_c2c__decode's for its samples.
 */
#define NSRC 48

static uint64_t src_of(int i)
{
	static const uint64_t base[] = { LHITM, RHITM, L1HIT, STHIT };

	/* the TLB bits tell them apart (decode ignores them for some) */
	return base[i % 4] | ((uint64_t)(i / 4 + 1) << PERF_MEM_TLB_SHIFT);
}

static void write_sources(void)
{
	uint64_t t = 100;
	int fd;
	struct tally_data_writer *w = c2c_writer(&fd);
	for (int round = 0; round < 3; round++)
		for (int ent = 0; ent < 4; ent++)
			for (int i = 0; i < NSRC; i++) {
				uint64_t r[8];
				struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
							       sizeof(r) };

				r[1] = 0x1000 + 4 * (uint64_t)ent;		/* IP */
				r[2] = (uint64_t)1 << 32 | 1;
				r[3] = t++;
				r[4] = 0x10000 + 8 * (uint64_t)ent;
				r[5] = (uint64_t)((i + round) % 2);
				r[6] = 10 + (uint64_t)i;
				r[7] = src_of(i + ent);
				memcpy(r, &h, sizeof(h));
				assert_int_equal(tally_data_writer__write(w, r, sizeof(r)), 0);
			}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

static void add_to(struct tally_c2c_stats *to, const struct tally_c2c_stats *a, uint32_t k)
{
	uint32_t *t = (uint32_t *)to;
	const uint32_t *f = (const uint32_t *)a;

	for (size_t i = 0; i < sizeof(*to) / 4; i++)
		t[i] += k * f[i];
}

static void test_many_sources(void **state)
{
	struct tally_session *ss;
	struct tally_c2c *c;
	TALLY_OPTS(tally_c2c_line, l);
	TALLY_OPTS(tally_c2c_entry, e);
	struct tally_c2c_stats line = { 0 };
	int r, nodes;

	(void)state;
	write_sources();
	c = model(&ss, TALLY_C2C_TOT, true);
	nodes = tally_c2c__nr_nodes(c);
	assert_true(nodes >= 1);
	assert_int_equal(tally_c2c__nr_lines(c), 1);
	assert_int_equal(tally_c2c__line(c, 0, &l), 0);
	assert_int_equal(l.nr_entries, 4);
	for (size_t j = 0; j < 4; j++) {
		struct tally_c2c_stats want = { 0 }, sum = { 0 };
		int ent;

		assert_int_equal(tally_c2c__entry(c, 0, j, &e), 0);
		ent = (int)(e.offset / 8);
		for (int i = 0; i < NSRC; i++) {
			struct tally_c2c_stats st = one(src_of(i + ent), 0x10000 + 8 * (uint64_t)ent,
							false, &r);

			add_to(&want, &st, 3);
		}
		assert_memory_equal(e.stats, &want, sizeof(want));
		/* every sample on a CPU of the file: the nodes' counts add up to the entry's */
		for (int n = 0; n < nodes; n++)
			add_to(&sum, &e.node_stats[n], 1);
		assert_memory_equal(&sum, &want, sizeof(want));
		add_to(&line, &want, 1);
	}
	assert_memory_equal(l.stats, &line, sizeof(line));
	assert_memory_equal(tally_c2c__totals(c), &line, sizeof(line));
	tally_c2c__free(c);
	tally_session__close(ss);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_loads),
		cmocka_unit_test(test_decode_stores_rejects),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_memo),
		cmocka_unit_test(test_many_sources),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
