// SPDX-License-Identifier: MIT
/*
 * A memory sample's class, as perf 6.1's c2c_decode_stats (util/mem-events.c)
 * counts it: loads by the level that served them (HITM when another core
 * held the line modified, peer when its cache served it), stores by their
 * L1 outcome. Written from perf_event_open(2)'s data source fields.
 */
#include <linux/perf_event.h>
#include <tally/c2c.h>

#define P(a, b) PERF_MEM_##a##_##b

int tally_c2c__decode(struct tally_c2c_stats *st, uint64_t data_src, uint64_t daddr, bool mapped)
{
	union perf_mem_data_src d = { .val = data_src };
	uint64_t op = d.mem_op, lvl = d.mem_lvl, snoop = d.mem_snoop, snoopx = d.mem_snoopx;
	/* Skylake's remote bit without hops; POWER's remote with hops is another core */
	bool mrem = d.mem_remote && !d.mem_hops;

	st->nr_entries++;
	if (d.mem_lock & P(LOCK, LOCKED))
		st->locks++;
	if (d.mem_blk & P(BLK, DATA))
		st->blk_data++;
	if (d.mem_blk & P(BLK, ADDR))
		st->blk_addr++;

	if (op & P(OP, LOAD)) {
		st->load++;
		if (!daddr) {
			st->ld_noadrs++;
			return -1;
		}
		if (lvl & P(LVL, HIT)) {
			st->ld_uncache += !!(lvl & P(LVL, UNC));
			st->ld_io += !!(lvl & P(LVL, IO));
			st->ld_fbhit += !!(lvl & P(LVL, LFB));
			st->ld_l1hit += !!(lvl & P(LVL, L1));
			for (int l = 0; l < 2; l++) {
				if (!(lvl & (l ? P(LVL, L3) : P(LVL, L2))))
					continue;
				if (snoop & P(SNOOP, HITM)) {
					st->lcl_hitm++;
					st->tot_hitm++;
				} else if (l) {
					st->ld_llchit++;
				} else {
					st->ld_l2hit++;
				}
				if (snoopx & P(SNOOPX, PEER)) {
					st->lcl_peer++;
					st->tot_peer++;
				}
			}
			if (lvl & P(LVL, LOC_RAM)) {
				st->lcl_dram++;
				if (snoop & P(SNOOP, HIT))
					st->ld_shared++;
				else
					st->ld_excl++;
			}
			if ((lvl & (P(LVL, REM_RAM1) | P(LVL, REM_RAM2))) || mrem) {
				st->rmt_dram++;
				if (snoop & P(SNOOP, HIT))
					st->ld_shared++;
				else
					st->ld_excl++;
			}
		}
		if ((lvl & (P(LVL, REM_CCE1) | P(LVL, REM_CCE2))) || mrem) {
			if (snoop & P(SNOOP, HIT)) {
				st->rmt_hit++;
			} else if (snoop & P(SNOOP, HITM)) {
				st->rmt_hitm++;
				st->tot_hitm++;
			} else if (snoopx & P(SNOOPX, PEER)) {
				st->rmt_hit++;
				st->rmt_peer++;
				st->tot_peer++;
			}
		}
		if (lvl & P(LVL, MISS))
			st->ld_miss++;
	} else if (op & P(OP, STORE)) {
		st->store++;
		if (!daddr) {
			st->st_noadrs++;
			return -1;
		}
		if (lvl & P(LVL, HIT)) {
			st->st_uncache += !!(lvl & P(LVL, UNC));
			st->st_l1hit += !!(lvl & P(LVL, L1));
		}
		if ((lvl & P(LVL, MISS)) && (lvl & P(LVL, L1)))
			st->st_l1miss++;
		if (lvl & P(LVL, NA))
			st->st_na++;
	} else {
		st->noparse++;
		return -1;
	}
	if (!mapped) {
		st->nomap++;
		return -1;
	}
	return 0;
}

void tally_c2c_stats__add(struct tally_c2c_stats *restrict to, const struct tally_c2c_stats *restrict add)
{
	uint32_t *t = (uint32_t *)to;
	const uint32_t *a = (const uint32_t *)add;

	/* every field is a count; unrolled: c2c adds four a sample, the loop was half of it */
#pragma GCC unroll 32
	for (size_t i = 0; i < sizeof(*to) / sizeof(*t); i++)
		t[i] += a[i];
}

uint64_t tally_c2c_stats__llc_misses(const struct tally_c2c_stats *st)
{
	return (uint64_t)st->lcl_dram + st->rmt_dram + st->rmt_hitm + st->rmt_hit;
}

uint64_t tally_c2c_stats__loads(const struct tally_c2c_stats *st)
{
	return tally_c2c_stats__llc_misses(st) + st->ld_fbhit + st->ld_l1hit + st->ld_l2hit +
	       st->ld_llchit + st->lcl_hitm;
}

uint64_t tally_c2c_stats__stores(const struct tally_c2c_stats *st)
{
	return (uint64_t)st->st_l1hit + st->st_l1miss + st->st_na;
}

uint64_t tally_c2c_stats__records(const struct tally_c2c_stats *st)
{
	return tally_c2c_stats__loads(st) + tally_c2c_stats__stores(st);
}
