// SPDX-License-Identifier: MIT
/*
 * Closest known names for a mistyped event (edit distance over the
 * symbolic, tool, cache, PMU and tracepoint names), for hints.
 * Moved from events.c.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <tally/events.h>
#include <tally/sys.h>
#include <unistd.h>
#include "internal.h"
#include "events_internal.h"
#include "events_parse.h"

int tally__edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[65], best;

	if (la > 64 || lb > 64)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > (size_t)cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], v;

			v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

void tally__best_init(struct best *b, const char *want)
{
	size_t n = strlen(want);

	b->want = want;
	/* Typos only: one edit in short names, a third of the length beyond. */
	b->cap = n < 6 ? 1 : (int)(n / 3);
	if (b->cap > 4)
		b->cap = 4;
	b->dist = b->cap + 1;
	b->name[0] = '\0';
}

int tally__best_try(struct best *b, const char *cand)
{
	int d = tally__edit_distance(b->want, cand, b->dist - 1);

	if (d > 0 && d < b->dist) {
		b->dist = d;
		snprintf(b->name, sizeof(b->name), "%.*s", (int)sizeof(b->name) - 1, cand);
	}
	return 0;
}

int tally__best_name_cb(const char *name, void *ctx)
{
	return tally__best_try(ctx, name);
}

static int best_cache_cb(const char *name, uint64_t config, void *ctx)
{
	return tally__best_try(ctx, name);
}

struct best_sysfs {
	struct best *b;
	const char *sysfs;
	bool slashed;
};

static int best_alias_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	struct best_sysfs *bs = ctx;
	char buf[300];

	if (bs->slashed) {
		snprintf(buf, sizeof(buf), "%s/%s/", pmu, alias);
		return tally__best_try(bs->b, buf);
	}
	return tally__best_try(bs->b, alias);
}

static int best_pmu_cb(const char *pmu, void *ctx)
{
	struct best_sysfs *bs = ctx;

	return tally__pmu_foreach_alias(bs->sysfs, pmu, best_alias_cb, bs);
}

static int best_tp_cb(const char *sys, const char *ev, void *ctx)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "%s:%s", sys, ev);
	return tally__best_try(ctx, buf);
}

const char *tally__ev_suggest(const char *name, char *buf, size_t len, const char *sysfs,
			      const char *tracefs)
{
	struct best b;
	struct best_sysfs bs = { .b = &b, .sysfs = sysfs };

	if (!name || !*name || strlen(name) > 64)
		return NULL;
	tally__best_init(&b, name);
	for (size_t i = 0; i < tally__nr_sym_events; i++) {
		tally__best_try(&b, tally__sym_events[i].name);
		if (tally__sym_events[i].alias)
			tally__best_try(&b, tally__sym_events[i].alias);
	}
	for (size_t i = 0; i < tally__nr_tool_events; i++)
		tally__best_try(&b, tally__tool_events[i].name);
	tally__cache_foreach(best_cache_cb, &b);
	bs.slashed = strchr(name, '/') != NULL;
	tally__pmu_foreach(sysfs, best_pmu_cb, &bs);
	if (strchr(name, ':'))
		tally__tp_foreach(tracefs, NULL, NULL, true, best_tp_cb, &b);
	if (!b.name[0])
		return NULL;
	snprintf(buf, len, "%s", b.name);
	return buf;
}

const char *tally_events__suggest(const char *name, char *buf, size_t len,
				  const struct tally_parse_opts *opts)
{
	const char *r;

	if (!name || !buf || !len || !TALLY_OPTS_VALID(opts, tally_parse_opts))
		return tally__err_ptr(EINVAL);
	r = tally__ev_suggest(name, buf, len, TALLY_OPTS_GET(opts, sysfs_root, NULL) ?: "/sys",
		    TALLY_OPTS_GET(opts, tracefs_root, NULL));
	if (!r)
		errno = ENOENT;
	return r;
}
