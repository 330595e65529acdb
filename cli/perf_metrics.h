/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's metric tables (tools/perf/pmu-events), for the CPUs tally
 * carries them for: what `perf list metric` / `perf list metricgroup`
 * show, and the events each metric's expression reads, so -M can say
 * which of them this machine cannot count.
 */
#ifndef TALLY_CLI_PERF_METRICS_H
#define TALLY_CLI_PERF_METRICS_H

#include <stddef.h>

struct perf_metric {
	const char *name;
	const char *group;	/* perf's MetricGroup */
	const char *desc;	/* BriefDescription */
	const char *expr;	/* MetricExpr */
};

/*
 * The host CPU's table, by name, as perf sorts it; NULL (*nr 0) when
 * tally carries none for it. cpuid: perf's "Vendor-family-model" of the
 * host (for messages), may be NULL.
 */
const struct perf_metric *perf_metrics_host(size_t *nr, char *cpuid, size_t len);
/*
 * The events of m's expression, in order, one per call: *pos starts at
 * 0; the name goes to buf. 0 at the end.
 */
int perf_metric_next_event(const struct perf_metric *m, size_t *pos, char *buf, size_t len);

/*
 * -M NAME where NAME is one of perf's metrics or metric groups for this
 * CPU: 1 with the first event of theirs this machine cannot count in
 * event (and why in why), 0 when all can be counted (their events then
 * go to events, comma-separated), -1 when NAME is none of perf's (why
 * says what there is). sysfs: another sysfs root (tests), or NULL.
 */
int perf_metric_resolve(const char *name, const char *sysfs, char *event, size_t elen,
			char *events, size_t evlen, char *why, size_t wlen);

#endif
