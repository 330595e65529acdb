/* SPDX-License-Identifier: MIT */
/*
 * report's and script's --time and -C/--cpu, as perf 6.1's: the samples
 * outside the time ranges or on other CPUs are dropped before anything
 * counts them (perf's process_sample_event returns first).
 */
#ifndef TALLY_CLI_SAMPLE_FILTER_H
#define TALLY_CLI_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/tally.h>

struct cli_time_range {
	uint64_t start, end;	/* ns; 0: open on that side */
};

struct cli_sample_filter {
	struct cli_time_range *tr;
	int ntr;		/* 0: no --time */
	uint8_t *cpus;		/* -C: a bit per CPU below 4096; NULL: every CPU */
};

/*
 * perf's --time: "START,STOP" in seconds (either left out), several
 * such separated by spaces, or percents of the recording's span
 * (SAMPLE_TIME's first and last sample): "10%/2" (the second tenth),
 * "0%-10%,30%-40%", "25%". 0, or -1 with why (at most len bytes).
 */
int cli_time_ranges_parse(const char *s, uint64_t first, uint64_t last, struct cli_time_range **out,
			  int *n, char *why, size_t len);
/* perf_time__ranges_skip_sample: a sample at time t (0: untimed, kept) falls outside. */
bool cli_time_ranges_skip(const struct cli_time_range *tr, int n, uint64_t t);

/*
 * A CPU list ("0-3,7") into bits (set, not cleared) below max: 0, or -1
 * with *bad the CPU past max, or -1 when s is no list.
 */
int cli_cpu_bits(const char *s, uint8_t *bits, long max, long *bad);
/*
 * Both options for cmd on ss's file (either NULL): 0, or the exit
 * status after saying why (129 a bad value, 1 a file they cannot apply to).
 */
int cli_sample_filter_init(struct cli_sample_filter *f, const char *cmd, struct tally_session *ss,
			   const char *time, const char *cpus);
void cli_sample_filter_free(struct cli_sample_filter *f);

static inline bool cli_sample_filter_skip(const struct cli_sample_filter *f,
					  const struct tally_sample *s)
{
	if (f->ntr && cli_time_ranges_skip(f->tr, f->ntr, s->time))
		return true;
	return f->cpus && (s->cpu >= 4096 || !(f->cpus[s->cpu / 8] & (1u << (s->cpu % 8))));
}

#endif
