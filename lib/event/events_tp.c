// SPDX-License-Identifier: MIT
/*
 * Tracepoint events "sys:name" (globs expand through tracefs).
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

struct tp_ctx {
	struct parser *p;
	size_t col;
	int err;
};

static int tp_add_cb(const char *sys, const char *ev, void *ctx)
{
	struct tp_ctx *tc = ctx;
	struct perf_event_attr attr;
	char name[512];
	int id = tally__tp_id(tc->p->tracefs, sys, ev);

	if (id < 0)
		return 0;	/* an event without an id file cannot be opened */
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if (!tally__ev_add(tc->p, &attr, name, strlen(name), "tracepoint", tc->col)) {
		tc->err = -errno;
		return 1;
	}
	return 0;
}

static int tp_hint_cb(const char *sys, const char *ev, void *ctx)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "%s:%s", sys, ev);
	return tally__best_try(ctx, buf);
}

/* sys (sn bytes) ':' ev (en bytes), mods after; col is sys's column. */
int tally__ev_parse_tracepoint(struct parser *p, const char *s, size_t n, size_t col,
			       size_t sn, size_t en)
{
	char sys[256], ev[256];
	size_t first = p->evs.nr, mpos = sn + 1 + en;
	struct tp_ctx tc = { .p = p, .col = col };
	int ret;

	if (sn >= sizeof(sys) || en >= sizeof(ev))
		return tally__ev_err(p, ENOENT, col, s, mpos, "tracepoint name too long");
	if (en == 0)
		return tally__ev_err(p, EINVAL, col + sn + 1, s, mpos, "missing tracepoint name after ':'");
	memcpy(sys, s, sn);
	sys[sn] = '\0';
	memcpy(ev, s + sn + 1, en);
	ev[en] = '\0';
	if (memchr(sys, '\0', sn) || memchr(ev, '\0', en))
		return tally__ev_err(p, EINVAL, col, s, mpos, "bad tracepoint name");
	if (!tally__tp_dir(p->tracefs)) {
		char why[160];

		tally_tracing_dir(why, sizeof(why));
		return tally__ev_err(p, ENOENT, col, s, mpos, "tracepoint '%s:%s': %s", sys, ev, why);
	}
	if (is_glob(sys, sn) || is_glob(ev, en)) {
		ret = tally__tp_foreach(p->tracefs, sys, ev, false, tp_add_cb, &tc);
		if (tc.err)
			return tc.err;
		if (ret == -EACCES || ret == -EPERM)
			return tally__ev_err(p, -ret, col, s, mpos,
				    "no permission to read tracepoints (run as root or mount tracefs readable)");
		if (ret < 0)
			return tally__ev_err(p, -ret, col, s, mpos, "cannot read tracepoints: %s",
				    strerror(-ret));
		if (p->evs.nr == first)
			return tally__ev_err(p, ENOENT, col, s, mpos, "no tracepoint matches '%s:%s'",
				    sys, ev);
	} else {
		ret = tally__tp_id(p->tracefs, sys, ev);
		if (ret < 0) {
			struct best b;
			char want[520];

			if (ret == -EACCES || ret == -EPERM)
				return tally__ev_err(p, -ret, col, s, mpos,
					    "no permission to read tracepoint '%s:%s' (run as root or mount tracefs readable)",
					    sys, ev);
			ret = tally__ev_err(p, ENOENT, col, s, mpos, "unknown tracepoint '%s:%s'", sys, ev);
			snprintf(want, sizeof(want), "%s:%s", sys, ev);
			tally__best_init(&b, want);
			tally__tp_foreach(p->tracefs, sys, NULL, true, tp_hint_cb, &b);
			if (b.name[0])
				tally__ev_set_hint(p, b.name);
			return ret;
		}
		tp_add_cb(sys, ev, &tc);
		if (tc.err)
			return tc.err;
	}
	/* perf 6.1: sys:ev[/terms/][:]mods ("sys:ev/call-graph=fp/u", "sys:ev:") */
	if (mpos < n && s[mpos] == '/') {
		size_t close;

		ret = tally__ev_term_list_end(p, s, n, col, mpos, &close);
		if (!ret)
			ret = tally__ev_apply_event_terms(p, first, TERMS_TP, s, mpos, close, col);
		if (ret)
			return ret;
		mpos = close + 1;
		if (mpos < n && s[mpos] == ':')
			mpos++;
		return tally__ev_apply_mods(p, first, s + mpos, n - mpos, col + mpos, false);
	}
	if (mpos < n)
		return tally__ev_apply_mods(p, first, s + mpos + 1, n - mpos - 1, col + mpos + 1, false);
	return 0;
}
