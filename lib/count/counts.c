// SPDX-License-Identifier: MIT
/* Counter values and multiplex scaling: pure functions, no I/O. */
#include <limits.h>
#include <tally/counts.h>
#include "internal.h"
#include "evsel_internal.h"

void tally_counts__scale(const struct tally_counts *c, struct tally_scaled *out)
{
	memset(out, 0, sizeof(*out));
	out->raw = c->val;
	if (c->run == 0) {
		/* Never ran (or was never enabled): nothing to scale. */
		out->state = TALLY_COUNT_NOT_COUNTED;
		out->val = 0;
		out->running = 0;
		return;
	}
	if (c->run >= c->ena) {
		/*
		 * Ran the whole time. run can exceed ena by a few ns because
		 * the kernel samples the two clocks at slightly different
		 * points; that is still an exact count.
		 */
		out->state = TALLY_COUNT_COUNTED;
		out->val = c->val;
		out->running = 1.0;
		return;
	}
	/* Multiplexed. */
	out->val = tally__scale(c->val, c->ena, c->run);
	out->running = (double)c->run / (double)c->ena;
	out->state = TALLY_COUNT_SCALED;
}

static uint64_t sub_clamp(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void tally_counts__sub(struct tally_counts *out, const struct tally_counts *a,
		       const struct tally_counts *b)
{
	struct tally_counts r;

	r.val = sub_clamp(a->val, b->val);
	r.ena = sub_clamp(a->ena, b->ena);
	r.run = sub_clamp(a->run, b->run);
	r.lost = sub_clamp(a->lost, b->lost);
	r.id = a->id;
	*out = r;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void tally_counts__add(struct tally_counts *out, const struct tally_counts *c)
{
	out->val = add_sat(out->val, c->val);
	out->ena = add_sat(out->ena, c->ena);
	out->run = add_sat(out->run, c->run);
	out->lost = add_sat(out->lost, c->lost);
	if (!out->id)
		out->id = c->id;
}

const char *tally_count_state__str(enum tally_count_state s)
{
	switch (s) {
	case TALLY_COUNT_COUNTED:
		return "counted";
	case TALLY_COUNT_SCALED:
		return "scaled";
	case TALLY_COUNT_NOT_COUNTED:
		return "<not counted>";
	case TALLY_COUNT_NOT_SUPPORTED:
		return "<not supported>";
	}
	return "unknown";
}

/*
 * A read() buffer (perf_event_open(2), "Reading results"):
 *   !GROUP: value, [time_enabled], [time_running], [id], [lost]
 *    GROUP: nr, [time_enabled], [time_running], { value, [id], [lost] } x nr
 * The times of a group read are shared by every member.
 */
int tally__parse_read(const void *buf, size_t len, uint64_t rf,
		      void (*land)(void *ctx, int i, const struct tally_counts *c),
		      void *ctx)
{
	const unsigned char *p = buf;
	size_t nwords = len / sizeof(uint64_t), w = 0;
	struct tally_counts c;
	uint64_t nr, ena = 0, run = 0;

#define NEXT(dst)							\
	do {								\
		if (w >= nwords)					\
			return -EINVAL;					\
		memcpy(&(dst), p + w * sizeof(uint64_t), sizeof(uint64_t)); \
		w++;							\
	} while (0)

	if (!buf || len % sizeof(uint64_t))
		return -EINVAL;
	if (!(rf & PERF_FORMAT_GROUP)) {
		memset(&c, 0, sizeof(c));
		NEXT(c.val);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			NEXT(c.ena);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			NEXT(c.run);
		if (rf & PERF_FORMAT_ID)
			NEXT(c.id);
		if (rf & PERF_FORMAT_LOST)
			NEXT(c.lost);
		if (land)
			land(ctx, 0, &c);
		return 1;
	}
	NEXT(nr);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		NEXT(ena);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		NEXT(run);
	/* Check the whole layout first: land nothing from a short buffer. */
	{
		size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

		if (nr > (nwords - w) / per || nr > INT_MAX)
			return -EINVAL;
	}
	for (uint64_t i = 0; i < nr; i++) {
		memset(&c, 0, sizeof(c));
		c.ena = ena;
		c.run = run;
		NEXT(c.val);
		if (rf & PERF_FORMAT_ID)
			NEXT(c.id);
		if (rf & PERF_FORMAT_LOST)
			NEXT(c.lost);
		if (land)
			land(ctx, (int)i, &c);
	}
#undef NEXT
	return (int)nr;
}
