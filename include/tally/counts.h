/* SPDX-License-Identifier: MIT */
/* Counter values, multiplex scaling and their states. Pure functions. */
#ifndef TALLY_COUNTS_H
#define TALLY_COUNTS_H

#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One read of one counter (read_format TOTAL_TIME_ENABLED|RUNNING|ID). */
struct tally_counts {
	uint64_t val;
	uint64_t ena;	/* time enabled, ns */
	uint64_t run;	/* time running, ns */
	uint64_t id;	/* kernel's event id (PERF_FORMAT_ID) */
	uint64_t lost;	/* PERF_FORMAT_LOST (Linux 6.0), 0 if not asked */
};

enum tally_count_state {
	TALLY_COUNT_COUNTED,		/* ran the whole time: exact */
	TALLY_COUNT_SCALED,		/* multiplexed: val = raw * ena / run */
	TALLY_COUNT_NOT_COUNTED,	/* never ran (run == 0) */
	TALLY_COUNT_NOT_SUPPORTED,	/* open failed for this event only */
};

struct tally_scaled {
	uint64_t val;		/* scaled value (raw when COUNTED) */
	uint64_t raw;
	double running;		/* run / ena, 0..1 (1 when ena == 0 and run == 0 is not counted) */
	enum tally_count_state state;
};

/*
 * Scale for multiplexing: raw * ena / run computed without overflow (128-bit
 * intermediate), saturating at UINT64_MAX. run == 0 -> NOT_COUNTED, val 0.
 */
TALLY_API void tally_counts__scale(const struct tally_counts *c,
				   struct tally_scaled *out);
/* a - b field by field (for interval deltas); never underflows (clamps). */
TALLY_API void tally_counts__sub(struct tally_counts *out,
				 const struct tally_counts *a,
				 const struct tally_counts *b);
/* out += c */
TALLY_API void tally_counts__add(struct tally_counts *out,
				 const struct tally_counts *c);

TALLY_API const char *tally_count_state__str(enum tally_count_state s);

#ifdef __cplusplus
}
#endif
#endif
