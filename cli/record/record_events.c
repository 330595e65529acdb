// SPDX-License-Identifier: MIT
/*
 * tally record's event list: the -e specs (with --filter and -G lists) or
 * perf's default, and the kernel's sampling-rate ceiling (-F max).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tally/tally.h>
#include "record.h"

/* The kernel's perf_event_max_sample_rate (-F max), 4000 when unreadable. */
uint64_t record_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 4000;
}

/*
 * The events of cfg (-e, --filter, -G), or dflt's (perf's default and its
 * cpu-clock fallback); NULL said on stderr (*usage_err: the user's spec).
 */
struct tally_evlist *record_build_events(const struct record_config *cfg, const char *dflt,
					 struct cg_fds *cg, bool *usage_err)
{
	int err;

	struct tally_evlist *l = tally_evlist__new();

	if (!l) {
		fprintf(stderr, "%s: %s\n", "tally record", strerror(errno));
		return NULL;
	}
	if (dflt && !strcmp(dflt, "cpu-clock")) {
		/*
		 * perf's default is cycles:P (precise_ip 3, no exclude_guest);
		 * its fallback keeps that attr on cpu-clock and names it from
		 * the attr: cpu-clock:ppp, as the file's EVENT_DESC says.
		 */
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.precise_ip = 3,
		};
		struct tally_evsel *e = tally_evsel__new(&a, "cpu-clock:ppp");

		if (!e) {
			fprintf(stderr, "%s: %s\n", "tally record", strerror(errno));
			goto err;
		}
		tally_evlist__add(l, e);
		return l;
	}
	if (dflt) {
		if ((err = cli_events_add(l, dflt, NULL, "record")))
			goto err;
		return l;
	}
	int nbefore[sizeof(cfg->cg.v) / sizeof(cfg->cg.v[0])] = { 0 };

	for (int i = 0; i < cfg->events.nr; i++) {
		if ((err = cli_events_add(l, cfg->events.v[i].spec, cfg->events.v[i].filter,
					  "record"))) {
			*usage_err = err == CLI_EVENTS_USAGE;
			goto err;
		}
		for (int k = 0; k < cfg->cg.nr; k++)
			if (cfg->cg.v[k].after == i + 1)
				nbefore[k] = tally_evlist__nr(l);
	}
	if (cfg->target.cgroup_per_event && cli_cgroups_assign("record", &cfg->cg, l, nbefore, cg))
		goto err;
	return l;
err:
	tally_evlist__free(l);
	return NULL;
}
