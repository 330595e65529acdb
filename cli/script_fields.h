/* SPDX-License-Identifier: MIT */
/*
 * tally script's texts for the fields only a PMU fills (data sources,
 * branch types, page sizes, registers) and the cgroup names a file's
 * CGROUP records give, each as perf 6.1 writes it.
 */
#ifndef TALLY_CLI_SCRIPT_FIELDS_H
#define TALLY_CLI_SCRIPT_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/record.h>

/* perf's "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A"; its length */
size_t script_mem_decode(char *out, size_t len, uint64_t data_src);
/* One part of a data source as perf's report keys show it: "L1 hit", "HitM", "Yes", " Data" */
enum script_mem_part { MEM_PART_LVL, MEM_PART_SNOOP, MEM_PART_TLB, MEM_PART_LOCK, MEM_PART_BLK };
size_t script_mem_part(char *out, size_t len, uint64_t data_src, enum script_mem_part part);
/* A branch's type as perf's brstack shows it ("" for unknown, "COND", ...) */
const char *script_branch_type(const struct perf_branch_entry *e);
/* perf's page size: "4K", "2M", "1024B"; "N/A" for 0 */
void script_page_size(char *out, size_t len, uint64_t size);
/* " ABI:2    AX:0x1 ..." (nothing without registers); its length */
size_t script_regs(char *out, size_t len, const struct tally_sample_regs *r);

/* cgroup id -> path, from the file's CGROUP records */
struct script_cgroups {
	struct script_cgroup {
		uint64_t id;
		char *path;
	} *v;
	size_t nr, cap;
};
void script_cgroups_add(struct script_cgroups *c, uint64_t id, const char *path);
/* Its path, or "unknown" */
const char *script_cgroups_name(const struct script_cgroups *c, uint64_t id);
void script_cgroups_free(struct script_cgroups *c);

#endif
