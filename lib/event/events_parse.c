// SPDX-License-Identifier: MIT
/*
 * The event parser's state: its errors (byte column, token, message,
 * hint), the events it builds aside, and perf's modifiers on them.
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

void tally__ev_set_token(struct tally_parse_error *e, const char *tok, size_t n)
{
	if (n >= sizeof(e->token))
		n = sizeof(e->token) - 1;
	memcpy(e->token, tok, n);
	e->token[n] = '\0';
}

__attribute__((format(printf, 6, 7)))
int tally__ev_err(struct parser *p, int err, size_t col, const char *tok, size_t toklen,
		  const char *fmt, ...)
{
	struct tally_parse_error *e = p->err;
	va_list ap;

	if (e) {
		memset(e, 0, sizeof(*e));
		e->err = -err;
		e->column = col > INT_MAX ? INT_MAX : (int)col;
		tally__ev_set_token(e, tok, toklen);
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return tally__err(err);
}

void tally__ev_set_hint(struct parser *p, const char *hint)
{
	if (p->err && hint)
		snprintf(p->err->hint, sizeof(p->err->hint), "%.*s",
			 (int)sizeof(p->err->hint) - 1, hint);
}

static struct tally_event *new_event(struct parser *p)
{
	struct tally_event *ev, *v;

	if (p->evs.nr >= MAX_EVENTS_PER_SPEC)
		return tally__err_ptr(E2BIG);
	v = tally__reallocarray(p->evs.ev, p->evs.nr + 1, sizeof(*v));
	if (!v)
		return tally__err_ptr(ENOMEM);
	p->evs.ev = v;
	ev = &v[p->evs.nr++];
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->group = p->group;
	ev->scale = 1.0;
	return ev;
}

static void event_free(struct tally_event *ev)
{
	free(ev->name);
	free(ev->pmu);
	free(ev->cpus);
	free(ev->unit);
}

void tally_events__clear(struct tally_events *evs)
{
	if (!evs)
		return;
	for (size_t i = 0; i < evs->nr; i++)
		event_free(&evs->ev[i]);
	free(evs->ev);
	evs->ev = NULL;
	evs->nr = 0;
}

int tally__ev_set_str(char **dst, const char *s, size_t n)
{
	char *c = strndup(s, n);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

int tally__ev_nomem(struct parser *p, size_t col)
{
	return tally__ev_err(p, ENOMEM, col, "", 0, "out of memory");
}

/* Who the event belongs to, for evlist's CPU choice and for output. */
const char *tally__ev_pmu_of_type(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_SOFTWARE:	return "software";
	case PERF_TYPE_TRACEPOINT:	return "tracepoint";
	case PERF_TYPE_BREAKPOINT:	return "breakpoint";
	default:			return "cpu";
	}
}

/* One finished event: name and pmu copied. */
struct tally_event *tally__ev_add(struct parser *p, const struct perf_event_attr *attr,
				  const char *name, size_t name_len, const char *pmu,
				  size_t col)
{
	struct tally_event *ev = new_event(p);

	if (!ev) {
		if (errno == E2BIG)
			tally__ev_err(p, E2BIG, col, name, name_len, "too many events");
		else
			tally__ev_nomem(p, col);
		return NULL;
	}
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	/* perf's event_attr_init: not counting in guests unless asked (:G) */
	ev->attr.exclude_guest = 1;
	if (tally__ev_set_str(&ev->name, name, name_len) || tally__ev_set_str(&ev->pmu, pmu, strlen(pmu))) {
		tally__ev_nomem(p, col);
		return NULL;
	}
	return ev;
}

/*
 * perf's get_event_modifier: the first of u/k/h excludes all three
 * levels and each letter then re-includes its own; G/H likewise for
 * guest/host, and :u alone also excludes the guest (perf_guest is off).
 * An event's own modifiers start from nothing, as perf's do; a group's
 * start from what each member already has, so {cycles:k}:u counts both.
 */
int tally__ev_apply_mods(struct parser *p, size_t first, const char *m, size_t n, size_t col,
			 bool group)
{
	int seen[128] = { 0 };

	/* perf 6.1 takes "task-clock:" (an empty list), but not "{a,b}:" */
	if (n == 0 && group)
		return tally__ev_err(p, EINVAL, col, "", 0, "empty modifier after ':'");
	for (size_t i = 0; i < n; i++) {
		if (!m[i] || !strchr(MOD_CHARS, m[i]))
			return tally__ev_err(p, EINVAL, col + i, m, n,
				    "unknown modifier '%c' (valid: u k h G H I p P S D W e b)", m[i]);
		/* perf's check_modifier: only p repeats (up to :ppp) */
		if (++seen[(unsigned char)m[i]] > 1 && m[i] != 'p')
			return tally__ev_err(p, EINVAL, col + i, m, n,
				    "modifier '%c' repeated (only p may repeat, up to :ppp)", m[i]);
		if (seen['p'] > 3)
			return tally__ev_err(p, EINVAL, col, m, n,
				    "precise level %d too high: at most 3 (:ppp)", seen['p']);
	}
	for (size_t e = first; e < p->evs.nr; e++) {
		struct tally_event *ev = &p->evs.ev[e];
		struct perf_event_attr *a = &ev->attr;
		int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, excl_GH = 0;
		int excl, precise = a->precise_ip;

		if (group) {
			eu = a->exclude_user;
			ek = a->exclude_kernel;
			eh = a->exclude_hv;
			eG = a->exclude_guest;
			eH = a->exclude_host;
			excl_GH = !!(ev->flags & EV_GH_GIVEN);
		}
		excl = eu | ek | eh;
		for (size_t i = 0; i < n; i++) {
			switch (m[i]) {
			case 'u':
				if (!excl)
					excl = eu = ek = eh = 1;
				if (!excl_GH)
					eG = 1;
				eu = 0;
				break;
			case 'k':
				if (!excl)
					excl = eu = ek = eh = 1;
				ek = 0;
				break;
			case 'h':
				if (!excl)
					excl = eu = ek = eh = 1;
				eh = 0;
				break;
			case 'G':
				ev->flags |= EV_GH_GIVEN;
				if (!excl_GH)
					excl_GH = eG = eH = 1;
				eG = 0;
				break;
			case 'H':
				ev->flags |= EV_GH_GIVEN;
				if (!excl_GH)
					excl_GH = eG = eH = 1;
				eH = 0;
				break;
			case 'I':
				a->exclude_idle = 1;
				break;
			case 'p':
				precise++;
				break;
			case 'P':
				ev->flags |= TALLY_EV_MAX_PRECISE;
				break;
			case 'S':
				ev->flags |= TALLY_EV_SAMPLE_READ;
				break;
			case 'D':
				ev->flags |= TALLY_EV_PINNED;
				a->pinned = 1;
				break;
			case 'W':
				ev->flags |= TALLY_EV_WEAK_GROUP;
				break;
			case 'e':
				a->exclusive = 1;
				break;
			case 'b':	/* BPF counters in perf: same counts here */
				break;
			}
		}
		if (precise > 3)
			return tally__ev_err(p, EINVAL, col, m, n,
				    "precise level %d too high: at most 3 (:ppp)", precise);
		a->exclude_user = eu;
		a->exclude_kernel = ek;
		a->exclude_hv = eh;
		a->exclude_guest = eG;
		a->exclude_host = eH;
		a->precise_ip = precise;
	}
	return 0;
}
