// SPDX-License-Identifier: MIT
/*
 * The perf_event_open(2) man page's first example, "count the
 * instructions of a printf", on the self-monitoring API.
 *
 * Machines without a hardware PMU (VMs, containers) have no
 * "instructions": the example says so and measures the same printf with
 * task-clock, which every Linux has.
 *
 *	cc selfmon_printf.c $(pkg-config --cflags --libs tally)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tally/selfmon.h>
#include <tally/sys.h>

int main(void)
{
	struct perf_event_attr attr;
	struct tally_selfmon *sm;
	const char *what = "instructions";
	uint64_t delta;

	tally_attr__init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.exclude_kernel = 1;	/* user space only, as the man page */
	attr.exclude_hv = 1;
	TALLY_OPTS(tally_selfmon_opts, opts, .enable = true);
	sm = tally_selfmon__new(&attr, 1, &opts);
	if (!sm && (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)) {
		printf("instructions: <not supported> here (%s): no hardware PMU; "
		       "using task-clock\n", strerror(errno));
		tally_attr__init(&attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
		what = "ns of task-clock";
		sm = tally_selfmon__new(&attr, 1, &opts);
	}
	if (!sm) {
		fprintf(stderr, "selfmon_printf: %s\n", strerror(errno));
		return 1;
	}

	tally_selfmon__start(sm);
	printf("Measuring %s for this printf\n", what);
	if (tally_selfmon__stop(sm, &delta)) {
		fprintf(stderr, "selfmon_printf: read: %s\n", strerror(errno));
		tally_selfmon__free(sm);
		return 1;
	}
	printf("Used %llu %s (read path: %s)\n", (unsigned long long)delta, what,
	       tally_selfmon_path__name(tally_selfmon__path(sm)));
	tally_selfmon__free(sm);
	return 0;
}
