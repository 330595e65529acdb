// SPDX-License-Identifier: MIT
/*
 * perf's symbolic event tables: hardware and software names with their
 * aliases, and the hardware cache type/op/result alias tables with the
 * validity table (which ops a cache type has). Names and validity follow
 * perf 6.1 (tools/perf/util/evsel.c, parse-events.l) so that every spec
 * perf accepts parses here to the same attr.
 */
#include <stdio.h>
#include <string.h>
#include <tally/events.h>
#include "internal.h"
#include "events_internal.h"

#define HW(n, a, c, d) { n, a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, d }
#define SW(n, a, c, d) { n, a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, d }

const struct tally_sym_event tally__sym_events[] = {
	HW("cpu-cycles", "cycles", CPU_CYCLES, "CPU cycles"),
	HW("instructions", NULL, INSTRUCTIONS, "Retired instructions"),
	HW("cache-references", NULL, CACHE_REFERENCES, "Cache accesses"),
	HW("cache-misses", NULL, CACHE_MISSES, "Cache misses"),
	HW("branch-instructions", "branches", BRANCH_INSTRUCTIONS, "Retired branch instructions"),
	HW("branch-misses", NULL, BRANCH_MISSES, "Mispredicted branches"),
	HW("bus-cycles", NULL, BUS_CYCLES, "Bus cycles"),
	HW("stalled-cycles-frontend", "idle-cycles-frontend", STALLED_CYCLES_FRONTEND,
	   "Stalled cycles during issue"),
	HW("stalled-cycles-backend", "idle-cycles-backend", STALLED_CYCLES_BACKEND,
	   "Stalled cycles during retirement"),
	HW("ref-cycles", NULL, REF_CPU_CYCLES, "Reference cycles, not scaled by frequency"),
	SW("cpu-clock", NULL, CPU_CLOCK, "CPU clock timer"),
	SW("task-clock", NULL, TASK_CLOCK, "Task clock timer"),
	SW("page-faults", "faults", PAGE_FAULTS, "Page faults"),
	SW("context-switches", "cs", CONTEXT_SWITCHES, "Context switches"),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS, "Migrations to another CPU"),
	SW("minor-faults", NULL, PAGE_FAULTS_MIN, "Faults served without I/O"),
	SW("major-faults", NULL, PAGE_FAULTS_MAJ, "Faults that needed I/O"),
	SW("alignment-faults", NULL, ALIGNMENT_FAULTS, "Alignment fixups"),
	SW("emulation-faults", NULL, EMULATION_FAULTS, "Emulated instructions"),
	SW("dummy", NULL, DUMMY, "Counts nothing; for sideband records"),
	SW("bpf-output", NULL, BPF_OUTPUT, "Output from BPF programs"),
	/* PERF_COUNT_SW_CGROUP_SWITCHES is 11 (Linux 5.13). */
	{ "cgroup-switches", NULL, PERF_TYPE_SOFTWARE, 11, "Context switches to another cgroup" },
};
const size_t tally__nr_sym_events = ARRAY_SIZE(tally__sym_events);

const struct tally_sym_event *tally__sym_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(tally__sym_events); i++) {
		const struct tally_sym_event *e = &tally__sym_events[i];

		if (strlen(e->name) == len && !memcmp(e->name, name, len))
			return e;
		if (e->alias && strlen(e->alias) == len && !memcmp(e->alias, name, len))
			return e;
	}
	return NULL;
}

/* perf's tool events (perf 6.1 util/parse-events.c, event_symbols_tool). */
const struct tally_tool_event tally__tool_events[] = {
	{ "duration_time", TALLY_EV_TOOL_DURATION, "Wall-clock time of the counting" },
	{ "user_time", TALLY_EV_TOOL_USER, "User CPU time of the workload" },
	{ "system_time", TALLY_EV_TOOL_SYSTEM, "System CPU time of the workload" },
};
const size_t tally__nr_tool_events = ARRAY_SIZE(tally__tool_events);

const struct tally_tool_event *tally__tool_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(tally__tool_events); i++) {
		const struct tally_tool_event *t = &tally__tool_events[i];

		if (strlen(t->name) == len && !memcmp(t->name, name, len))
			return t;
	}
	return NULL;
}

#define MAX_ALIASES 8

static const char *const cache_type[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const cache_op[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const cache_result[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

#define OPS(r, w, p) (((r) << PERF_COUNT_HW_CACHE_OP_READ) |	\
		      ((w) << PERF_COUNT_HW_CACHE_OP_WRITE) |	\
		      ((p) << PERF_COUNT_HW_CACHE_OP_PREFETCH))
/* Which ops each cache type has (perf's evsel__hw_cache_stat). */
static const unsigned int cache_valid[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]  = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_L1I]  = OPS(1, 0, 1),
	[PERF_COUNT_HW_CACHE_LL]   = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_DTLB] = OPS(1, 1, 1),
	[PERF_COUNT_HW_CACHE_ITLB] = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_BPU]  = OPS(1, 0, 0),
	[PERF_COUNT_HW_CACHE_NODE] = OPS(1, 1, 1),
};

/*
 * The longest alias of table that s (n bytes) starts with, followed by
 * '-' or the end. Returns the row, *used the alias length; -1 if none.
 */
static int match_alias(const char *s, size_t n, const char *const (*table)[MAX_ALIASES],
		       int rows, size_t *used)
{
	int best = -1;
	size_t best_len = 0;

	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < MAX_ALIASES && table[i][j]; j++) {
			size_t l = strlen(table[i][j]);

			if (l > n || l <= best_len || memcmp(s, table[i][j], l))
				continue;
			if (l < n && s[l] != '-')
				continue;
			best = i;
			best_len = l;
		}
	}
	*used = best_len;
	return best;
}

int tally__cache_parse(const char *name, size_t len, uint64_t *config)
{
	int type, op = -1, result = -1;
	size_t pos, used;

	type = match_alias(name, len, cache_type, PERF_COUNT_HW_CACHE_MAX, &used);
	if (type < 0)
		return -ENOENT;
	pos = used;
	for (int part = 0; part < 2 && pos < len; part++) {
		int r;

		pos++;	/* the '-' */
		if (op < 0) {
			r = match_alias(name + pos, len - pos, cache_op,
					PERF_COUNT_HW_CACHE_OP_MAX, &used);
			if (r >= 0) {
				op = r;
				pos += used;
				continue;
			}
		}
		if (result < 0) {
			r = match_alias(name + pos, len - pos, cache_result,
					PERF_COUNT_HW_CACHE_RESULT_MAX, &used);
			if (r >= 0) {
				result = r;
				pos += used;
				continue;
			}
		}
		return -ENOENT;
	}
	if (pos != len)
		return -ENOENT;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	if (!(cache_valid[type] & (1u << op)))
		return -EINVAL;
	*config = (uint64_t)type | ((uint64_t)op << 8) | ((uint64_t)result << 16);
	return 0;
}

int tally__cache_foreach(int (*cb)(const char *name, uint64_t config, void *ctx), void *ctx)
{
	char name[96];
	int ret;

	for (int t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++) {
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
			if (!(cache_valid[t] & (1u << o)))
				continue;
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				/* perf: "L1-dcache-loads", "L1-dcache-load-misses" */
				if (r == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
					snprintf(name, sizeof(name), "%s-%s",
						 cache_type[t][0], cache_op[o][1]);
				else
					snprintf(name, sizeof(name), "%s-%s-%s",
						 cache_type[t][0], cache_op[o][0],
						 cache_result[r][0]);
				ret = cb(name, (uint64_t)t | ((uint64_t)o << 8) |
					 ((uint64_t)r << 16), ctx);
				if (ret)
					return ret;
			}
		}
	}
	return 0;
}

int tally__cache_name(uint64_t config, char *buf, size_t len)
{
	unsigned int t = config & 0xff, o = (config >> 8) & 0xff, r = (config >> 16) & 0xff;

	/* perf's evsel__hw_cache_name, word for word where a part is out of range */
	if (t >= PERF_COUNT_HW_CACHE_MAX)
		return snprintf(buf, len, "unknown-ext-hardware-cache-type");
	if (o >= PERF_COUNT_HW_CACHE_OP_MAX)
		return snprintf(buf, len, "unknown-ext-hardware-cache-op");
	if (r >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return snprintf(buf, len, "unknown-ext-hardware-cache-result");
	if (!(cache_valid[t] & (1u << o)))
		return snprintf(buf, len, "invalid-cache");
	if (r == PERF_COUNT_HW_CACHE_RESULT_ACCESS)
		return snprintf(buf, len, "%s-%s", cache_type[t][0], cache_op[o][1]);
	return snprintf(buf, len, "%s-%s-%s", cache_type[t][0], cache_op[o][0], cache_result[r][0]);
}
