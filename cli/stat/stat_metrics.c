// SPDX-License-Identifier: MIT
/*
 * Derived metrics shown after '#', with perf 6.1's rules and formats
 * (tools/perf/util/stat-shadow.c): a clock event shows CPUs utilized;
 * cycles GHz; instructions insn per cycle; branch-misses and cache-misses
 * a share of their parent event; any other event a rate per second when a
 * clock event ran in the same aggregate. As perf's runtime_stat keys its
 * shadow counts by cgroup too, the event a metric divides by is of the
 * row's own cgroup (--for-each-cgroup, -G a,b): none counted there, no
 * metric.
 */
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include "stat.h"

enum stat_kind stat_kind_of(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_SOFTWARE &&
	    (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK))
		return STAT_K_CLOCK;
	if (type != PERF_TYPE_HARDWARE)
		return STAT_K_OTHER;
	switch (config) {
	case PERF_COUNT_HW_CPU_CYCLES:		return STAT_K_CYCLES;
	case PERF_COUNT_HW_INSTRUCTIONS:	return STAT_K_INSTRUCTIONS;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:	return STAT_K_BRANCHES;
	case PERF_COUNT_HW_BRANCH_MISSES:	return STAT_K_BRANCH_MISSES;
	case PERF_COUNT_HW_CACHE_REFERENCES:	return STAT_K_CACHE_REFS;
	case PERF_COUNT_HW_CACHE_MISSES:	return STAT_K_CACHE_MISSES;
	default:				return STAT_K_OTHER;
	}
}

double stat_convert_unit(double val, char *unit)
{
	*unit = ' ';
	if (val > 1000.0) {
		*unit = 'K';
		val /= 1000.0;
	}
	if (val > 1000.0) {
		*unit = 'M';
		val /= 1000.0;
	}
	if (val > 1000.0) {
		*unit = 'G';
		val /= 1000.0;
	}
	return val;
}

static bool m_counted(const struct stat_row *r)
{
	return r->state == STAT_S_COUNTED || r->state == STAT_S_SCALED;
}

static bool same_cgroup(const struct stat_row *a, const struct stat_row *b)
{
	if (!a->cgroup || !b->cgroup)
		return a->cgroup == b->cgroup;
	return !strcmp(a->cgroup, b->cgroup);
}

/* The first counted row of a kind in the aggregate and r's cgroup, or NULL. */
static const struct stat_row *find_kind(const struct stat_row *rows, int nr,
					const struct stat_row *r, enum stat_kind kind)
{
	for (int i = 0; i < nr; i++)
		if (rows[i].kind == kind && m_counted(&rows[i]) && same_cgroup(&rows[i], r))
			return &rows[i];
	return NULL;
}

static void set_metric(struct stat_row *r, enum stat_mfmt fmt, const char *unit,
		       double val)
{
	r->has_metric = true;
	r->metric_fmt = fmt;
	r->metric = val;
	snprintf(r->metric_unit, sizeof(r->metric_unit), "%s", unit);
}

/* Share of a parent event in percent, when the parent ran. */
static bool share(struct stat_row *r, const struct stat_row *rows, int nr,
		  enum stat_kind parent, const char *unit)
{
	const struct stat_row *p = find_kind(rows, nr, r, parent);

	if (!p)
		return false;
	set_metric(r, STAT_MF_PCT, unit, p->val ? 100.0 * r->val / p->val : 0);
	return true;
}

static void rate(struct stat_row *r, const struct stat_row *clock)
{
	char u, unit[16] = "/sec";
	double raw = clock->val ? 1e9 * r->val / clock->val : 0, v;

	v = stat_convert_unit(raw, &u);
	if (u != ' ')
		snprintf(unit, sizeof(unit), "%c/sec", u);
	set_metric(r, STAT_MF_8_3F, unit, v);
	r->metric_rate = true;
	r->metric_per_sec = raw;
}

void stat_metrics_compute(struct stat_row *rows, int nr, double wall_ns)
{
	for (int i = 0; i < nr; i++) {
		struct stat_row *r = &rows[i];
		const struct stat_row *clock = find_kind(rows, nr, r, STAT_K_CLOCK);
		const struct stat_row *cyc = find_kind(rows, nr, r, STAT_K_CYCLES);

		r->has_metric = false;
		r->metric_rate = false;
		r->metric_unit[0] = '\0';
		if (!m_counted(r))
			continue;
		switch (r->kind) {
		case STAT_K_CLOCK:
			if (wall_ns > 0)
				set_metric(r, STAT_MF_8_3F, "CPUs utilized", r->val / wall_ns);
			continue;
		case STAT_K_CYCLES:
			if (clock && clock->val)
				set_metric(r, STAT_MF_8_3F, "GHz", r->val / clock->val);
			continue;
		case STAT_K_INSTRUCTIONS:
			if (cyc)
				set_metric(r, STAT_MF_7_2F, "insn per cycle",
					   cyc->val ? r->val / cyc->val : 0);
			continue;
		case STAT_K_BRANCH_MISSES:
			share(r, rows, nr, STAT_K_BRANCHES, "of all branches");
			continue;
		case STAT_K_CACHE_MISSES:
			share(r, rows, nr, STAT_K_CACHE_REFS, "of all cache refs");
			continue;
		default:
			break;
		}
		if (clock)
			rate(r, clock);
	}
}
