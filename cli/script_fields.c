// SPDX-License-Identifier: MIT
/*
 * tally script's texts for the PMU's sample fields, each as perf 6.1
 * writes it (its mem-events.c, branch.c, units.c), quirks included: a
 * data source's level is "Remote " then the hops or the levels, then the
 * level number; block's text starts with its own space.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample_regs.h"
#include "script_fields.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct sbuf {
	char *p;
	size_t len, used;
};

static void add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->used + 1 >= b->len)
		return;
	if (n > b->len - 1 - b->used)
		n = b->len - 1 - b->used;
	memcpy(b->p + b->used, s, n);
	b->used += n;
	b->p[b->used] = '\0';
}

/* names over a bit mask, " or " between them; how many */
static int bits(struct sbuf *b, uint64_t m, const char *const *names, size_t nr, int printed)
{
	for (size_t i = 0; m && i < nr; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (printed++)
			add(b, " or ");
		add(b, names[i]);
	}
	return printed;
}

static const char *const tlb_access[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
static const char *const mem_lvl[] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
static const char *const mem_lvlnum[16] = {
	[PERF_MEM_LVLNUM_CXL] = "CXL", [PERF_MEM_LVLNUM_IO] = "I/O",
	[PERF_MEM_LVLNUM_ANY_CACHE] = "Any cache", [PERF_MEM_LVLNUM_LFB] = "LFB/MAB",
	[PERF_MEM_LVLNUM_RAM] = "RAM", [PERF_MEM_LVLNUM_PMEM] = "PMEM",
	[PERF_MEM_LVLNUM_NA] = "N/A",
};
static const char *const mem_hops[] = {
	"N/A", "core, same node", "node, same socket", "socket, same board", "board",
};
static const char *const snoop_access[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const snoopx_access[] = { "Fwd", "Peer" };

static void mem_op(struct sbuf *b, union perf_mem_data_src d)
{
	uint64_t op = d.mem_op;

	add(b, op & PERF_MEM_OP_NA ? "N/A" : op & PERF_MEM_OP_LOAD ? "LOAD" :
	       op & PERF_MEM_OP_STORE ? "STORE" : op & PERF_MEM_OP_PFETCH ? "PFETCH" :
	       op & PERF_MEM_OP_EXEC ? "EXEC" : "No");
}

static void mem_lvl_text(struct sbuf *b, union perf_mem_data_src d)
{
	uint64_t m = d.mem_lvl & ~(uint64_t)(PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS);
	size_t start = b->used;
	int printed = 0;
	char t[16];

	if (d.mem_remote)
		add(b, "Remote ");
	/* with hops, the levels are not named: the hops and the level number are */
	if (d.mem_hops) {
		add(b, d.mem_hops < N(mem_hops) ? mem_hops[d.mem_hops] : "");
		add(b, " ");
	} else {
		printed = bits(b, m, mem_lvl, N(mem_lvl), 0);
	}
	if (d.mem_lvl_num) {
		if (printed++)
			add(b, " or ");
		if (mem_lvlnum[d.mem_lvl_num]) {
			add(b, mem_lvlnum[d.mem_lvl_num]);
		} else {
			snprintf(t, sizeof(t), "L%d", (int)d.mem_lvl_num);
			add(b, t);
		}
	}
	if (b->used == start)
		add(b, "N/A");
	if (d.mem_lvl & PERF_MEM_LVL_HIT)
		add(b, " hit");
	if (d.mem_lvl & PERF_MEM_LVL_MISS)
		add(b, " miss");
}

static void mem_snoop(struct sbuf *b, union perf_mem_data_src d)
{
	int n = bits(b, d.mem_snoop, snoop_access, N(snoop_access), 0);

	if (!bits(b, d.mem_snoopx, snoopx_access, N(snoopx_access), n))
		add(b, "N/A");
}

static void mem_tlb(struct sbuf *b, union perf_mem_data_src d)
{
	uint64_t m = d.mem_dtlb & ~(uint64_t)(PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS);

	if (!bits(b, m, tlb_access, N(tlb_access), 0))
		add(b, "N/A");
	if (d.mem_dtlb & PERF_MEM_TLB_HIT)
		add(b, " hit");
	if (d.mem_dtlb & PERF_MEM_TLB_MISS)
		add(b, " miss");
}

static void mem_lock(struct sbuf *b, union perf_mem_data_src d)
{
	add(b, d.mem_lock & PERF_MEM_LOCK_NA ? "N/A" : d.mem_lock & PERF_MEM_LOCK_LOCKED ?
	       "Yes" : "No");
}

static void mem_blk(struct sbuf *b, union perf_mem_data_src d)
{
	if (!d.mem_blk || (d.mem_blk & PERF_MEM_BLK_NA)) {
		add(b, " N/A");
		return;
	}
	if (d.mem_blk & PERF_MEM_BLK_DATA)
		add(b, " Data");
	if (d.mem_blk & PERF_MEM_BLK_ADDR)
		add(b, " Addr");
}

size_t script_mem_part(char *out, size_t len, uint64_t data_src, enum script_mem_part part)
{
	static void (*const fn[])(struct sbuf *, union perf_mem_data_src) = {
		[MEM_PART_LVL] = mem_lvl_text, [MEM_PART_SNOOP] = mem_snoop,
		[MEM_PART_TLB] = mem_tlb, [MEM_PART_LOCK] = mem_lock, [MEM_PART_BLK] = mem_blk,
	};
	struct sbuf b = { out, len, 0 };

	if (!len)
		return 0;
	out[0] = '\0';
	fn[part](&b, (union perf_mem_data_src){ .val = data_src });
	return b.used;
}

size_t script_mem_decode(char *out, size_t len, uint64_t data_src)
{
	union perf_mem_data_src d = { .val = data_src };
	struct sbuf b = { out, len, 0 };

	if (!len)
		return 0;
	out[0] = '\0';
	add(&b, "|OP ");
	mem_op(&b, d);
	add(&b, "|LVL ");
	mem_lvl_text(&b, d);
	add(&b, "|SNP ");
	mem_snoop(&b, d);
	add(&b, "|TLB ");
	mem_tlb(&b, d);
	add(&b, "|LCK ");
	mem_lock(&b, d);
	add(&b, "|BLK ");
	mem_blk(&b, d);
	return b.used;
}

const char *script_branch_type(const struct perf_branch_entry *e)
{
	static const char *const names[] = {
		"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX",
	};
	static const char *const new_names[] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4",
		"ARCH_5",
	};

	if (e->type == PERF_BR_EXTEND_ABI)
		return e->new_type < N(new_names) ? new_names[e->new_type] : "";
	return e->type < N(names) ? names[e->type] : "";
}

void script_page_size(char *out, size_t len, uint64_t size)
{
	static const char units[] = "BKMG";
	int u = 0;

	if (!size) {
		snprintf(out, len, "N/A");
		return;
	}
	/* perf's unit_number__scnprintf: 2048 is 2K, 1024 stays 1024B */
	while (size / 1024 > 1 && u < 3) {
		size /= 1024;
		u++;
	}
	snprintf(out, len, "%llu%c", (unsigned long long)size, units[u]);
}

size_t script_regs(char *out, size_t len, const struct tally_sample_regs *r)
{
	size_t used = 0;
	unsigned i = 0;
	int n;

	out[0] = '\0';
	if (!r->abi || !r->regs)
		return 0;
	n = snprintf(out, len, " ABI:%llu ", (unsigned long long)r->abi);
	used = n > 0 && (size_t)n < len ? (size_t)n : 0;
	for (unsigned b = 0; b < 64 && i < r->nr && used < len; b++) {
		if (!((r->mask >> b) & 1))
			continue;
		n = snprintf(out + used, len - used, "%5s:0x%llx ", sample_reg_name(b),
			     (unsigned long long)r->regs[i++]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return used;
}

void script_cgroups_add(struct script_cgroups *c, uint64_t id, const char *path)
{
	char *p;

	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].id == id)
			return;	/* perf keeps the first name of an id */
	if (c->nr == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct script_cgroup *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return;
		c->v = v;
		c->cap = cap;
	}
	p = strdup(path);
	if (!p)
		return;
	c->v[c->nr].id = id;
	c->v[c->nr++].path = p;
}

const char *script_cgroups_name(const struct script_cgroups *c, uint64_t id)
{
	for (size_t i = 0; i < c->nr; i++)
		if (c->v[i].id == id)
			return c->v[i].path;
	return "unknown";
}

void script_cgroups_free(struct script_cgroups *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->v[i].path);
	free(c->v);
	*c = (struct script_cgroups){ 0 };
}
