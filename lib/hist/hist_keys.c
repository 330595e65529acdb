// SPDX-License-Identifier: MIT
/*
 * The histogram's keys as numbers (equal keys, equal numbers) for the
 * entries' hashes and perf_order's ranks, and the srcfile key's file:
 * what hist_rows.c and hist_order.c ask of a key beyond its compare
 * (hist_priv.h's cmp_key).
 */
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/hash.h>
#include "hist_priv.h"

/* hist_priv.h's: set by tally_hist__new */
uint64_t tally__hist_cacheline = 64;

/*
 * perf's srcfile: the file of a source line found ("file.c:12"); a line
 * not found ("sym+OFF", "dso+0xOFF", none) has none ("").
 */
const char *tally__hist_srcfile(const struct entry *e, size_t *len)
{
	const char *s = entry_srcline(e), *c, *last, *p;

	*len = 0;
	if (!s || !(c = strchr(s, ':')))
		return "";
	last = strrchr(s, ':');
	for (p = last + 1; *p >= '0' && *p <= '9'; p++)
		;
	if (p == last + 1 || *p || (c - s == 2 && !strncmp(s, "??", 2)))
		return "";	/* no line found: "sym+OFF", "??:0" */
	*len = (size_t)(c - s);
	return s;
}

/* A mem key as a number: equal keys, equal numbers (the data source's part alone). */
uint64_t tally__hist_mem_ident(const struct entry *e, enum tally_hist_key k)
{
	union perf_mem_data_src d = { .val = e->m->data_src };

	switch (k) {
	case K_MEM: return d.mem_lvl;
	case K_SNOOP: return d.mem_snoop;
	case K_TLB: return d.mem_dtlb;
	case K_LOCKED: return d.mem_lock;
	case K_BLOCKED: return d.mem_blk;
	case K_PHYS: return e->m->phys_addr;
	case K_DPAGE: return e->m->dpage;
	case K_CPAGE: return e->m->cpage;
	case K_WEIGHT:
	case K_LWEIGHT: return e->m->weight;
	case K_INS_LAT:
	case K_LINS_LAT: return e->m->ins_lat;
	case K_SYM_DADDR: return e->m->addr;
	case K_DSO_DADDR: return e->dw ? e->dw->dso_hash : 0;
	case K_DCACHELINE: return cl_of(e) ^ e->m->cpumode << 1 ^ (e->dw && e->dw->map) ^
				  (uint64_t)(uint32_t)e->pid << 32;
	/* a symbol is its start (perf's compare), an unresolved end its address */
	case K_SYM_FROM: return e->bf->sym ? bsym_start(e->bf) ^ 1ull << 63 : e->m->bfrom;
	case K_SYM_TO: return e->bt->sym ? bsym_start(e->bt) ^ 1ull << 63 : e->m->bto;
	case K_DSO_FROM: return e->bf->dso_hash;
	case K_DSO_TO: return e->bt->dso_hash;
	case K_SRCLINE_FROM: return e->bf->srcline_hash;
	case K_SRCLINE_TO: return e->bt->srcline_hash;
	case K_MISPREDICT: return e->m->bflags & 3;
	case K_IN_TX: return BR_IN_TX(e->m->bflags);
	case K_ABORT: return BR_ABORT(e->m->bflags);
	case K_CYCLES: return BR_CYCLES(e->m->bflags);
	case K_SYM_IADDR: return e->m->ip;
	case K_TXN: return e->m->txn;
	case K_CGROUP: return e->m->cgroup;
	case K_CGROUP_ID: return tally_hash_mix(e->m->cg_dev) ^ e->m->cg_ino;
	case K_TIME: return e->m->time;
	case K_SRCFILE: {
		size_t l;
		const char *f = tally__hist_srcfile(e, &l);

		return tally_fnv(1469598103934665603ULL, f, l);	/* ENTRY_SEED */
	}
	case K_ADDR: return e->w->ip;
	case K_DSO_SIZE: return map_size(e->w);
	case K_SYM_SIZE: return e->w->sym_size;
	case K_SOCKET: return (uint32_t)e->socket;
	case K_ADDR_FROM: return tally_hash_mix(e->bf->dso_hash) ^ e->m->bfrom;
	case K_ADDR_TO: return tally_hash_mix(e->bt->dso_hash) ^ e->m->bto;
	default: return 0;
	}
}
