// SPDX-License-Identifier: MIT
/*
 * What the session resolves of a sample for those that count samples
 * (resolved_internal.h): the histogram asks, the session resolves once
 * and keeps the answers, so that the way from a sample to its row goes
 * down only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hash.h>
#include <tally/session.h>
#include "internal.h"
#include "resolve_internal.h"
#include "resolved_internal.h"
#include "session_internal.h"

/* One copy of each distinct text: entries and shapes compare the pointers. */
static const char *trace_intern(struct tally_session *s, const char *t)
{
	const char *p;

	if (!s->traces && !(s->traces = tally_strpool__new()))
		return "";
	p = tally_strpool__add(s->traces, t);
	return p ? p : "";
}

/* perf's trace key: libtraceevent's text of the sample's fields, "N/A" off tracepoints. */
static const char *trace_text(struct tally_session *s, const struct tally_session_sample *ts)
{
	static const char na[] = "N/A";
	const struct perf_event_attr *a = ts->event;
	char buf[4096];

	if (a->type != PERF_TYPE_TRACEPOINT)
		return na;
	if (!s->tf || !(a->sample_type & PERF_SAMPLE_RAW) ||
	    tally_trace_fmt__print(s->tf, ts->sample->raw.data, ts->sample->raw.size, buf,
				   sizeof(buf)) < 0)
		buf[0] = '\0';
	return trace_intern(s, buf);
}

const char *tally__session_sample_comm_slow(struct tally_session *s,
					    const struct tally_session_sample *ts)
{
	const char *c = tally_session__comm(s, ts);	/* perf's ":TID" for a thread no COMM named */

	return c ? c : ":-1";
}

const char *tally__session_sample_trace(struct tally_session *s,
					const struct tally_session_sample *ts)
{
	const char *t;

	if (ts == s->cur && s->cur_seq == s->samples)
		return s->cur_trace;
	t = trace_text(s, ts);
	if (ts == s->cur) {
		s->cur_trace = t;
		s->cur_seq = s->samples;
	}
	return t;
}

static bool kernel_mode(enum tally_cpumode m)
{
	return m == TALLY_CPUMODE_KERNEL || m == TALLY_CPUMODE_GUEST_KERNEL;
}

uint32_t tally__session_sample_resolve(struct tally_session *s, struct resolver *r,
				       const struct tally_session_sample *ts, uint32_t nr,
				       struct where **out)
{
	const struct tally_sample *smp = ts->sample;
	const uint64_t *ips = smp->callchain.ips;
	int32_t pid = (int32_t)smp->pid, tid = (int32_t)smp->tid;
	/* each frame's level from the context marker before it, as tally__chain_modes */
	enum tally_cpumode m = TALLY_CPUMODE_USER;
	/* out's room: the frames asked for, then the ip */
	uint32_t n = nr < CHAIN_MAX ? nr : CHAIN_MAX, ip_at = n;

	if (out)
		memset(out, 0, (n + 1) * sizeof(*out));
	if (nr && tally_session__chain_corrupt(smp))
		nr = n = 0;	/* perf keeps the sample's ip alone: no frame to resolve */
	if (!kernel_mode(ts->mode)) {
		struct where *w = tally__resolver_get(r, pid, tid, smp->ip, ts->mode);

		if (out)
			out[ip_at] = w;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t ip = ips[i];

		if (ip >= PERF_CONTEXT_MAX)
			m = ip == PERF_CONTEXT_KERNEL ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
		else if (!kernel_mode(m)) {
			struct where *w = tally__resolver_get(r, pid, tid, ip, m);

			if (out)
				out[i] = w;
		}
	}
	return nr;
}

struct where *tally__session_branch_where(struct resolver *r, int32_t pid, int32_t tid,
					  uint64_t addr, char *level)
{
	struct where *u = tally__resolver_get(r, pid, tid, addr, TALLY_CPUMODE_USER), *k;

	*level = '.';
	if (!u || u->map)
		return u;
	/* perf's thread__find_cpumode_addr_location: user, kernel, then the guest's ('H') */
	k = tally__resolver_get(r, pid, tid, addr, TALLY_CPUMODE_KERNEL);
	*level = k && k->map ? 'k' : 'H';
	return k && k->map ? k : u;
}

void tally__session_branch_resolve(struct tally_session *s, struct resolver *r,
				   const struct tally_session_sample *ts, uint64_t from, uint64_t to)
{
	int32_t pid = (int32_t)ts->sample->pid, tid = (int32_t)ts->sample->tid;

	(void)s;
	tally__resolver_get(r, pid, tid, from, TALLY_CPUMODE_USER);
	tally__resolver_get(r, pid, tid, to, TALLY_CPUMODE_USER);
}

long tally__session_chain_view(struct resolver *r, const struct tally_sample *smp,
				uint32_t max_stack, bool caller, bool hide_unresolved, uint64_t **buf,
				size_t *cap)
{
	const uint64_t *ips = smp->callchain.ips;
	uint64_t nr = smp->callchain.nr, from = 0, to = nr, n = 0;
	enum tally_cpumode m = TALLY_CPUMODE_USER;
	struct tally_sample v;
	long k = 0;

	if (nr > *cap) {
		uint64_t *p = realloc(*buf, nr * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap = nr;
	}
	if (max_stack && !caller) {
		for (to = 0; to < nr && n < max_stack; to++)
			n += ips[to] < PERF_CONTEXT_MAX;
	} else if (max_stack) {
		for (from = nr; from > 0 && n < max_stack; from--)
			n += ips[from - 1] < PERF_CONTEXT_MAX;
		/* the frames' level: the marker before the first of them (find_prev_cpumode) */
		for (uint64_t i = from; i-- > 0;)
			if (ips[i] >= PERF_CONTEXT_MAX) {
				(*buf)[k++] = ips[i];
				break;
			}
	}
	for (uint64_t i = from; i < to; i++)
		(*buf)[k++] = ips[i];
	v.callchain.ips = *buf;
	v.callchain.nr = (uint64_t)k;
	/* a chain perf discards (the sample's ip alone): nothing to resolve */
	if (!hide_unresolved || tally_session__chain_corrupt(&v))
		return k;
	n = (uint64_t)k;
	k = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ip = (*buf)[i];
		const struct where *w;

		if (ip >= PERF_CONTEXT_MAX) {
			m = ip == PERF_CONTEXT_KERNEL ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
		} else {
			if (!(w = tally__resolver_get(r, (int32_t)smp->pid, (int32_t)smp->tid, ip, m)))
				return -ENOMEM;
			if (!w->sym)
				continue;
		}
		(*buf)[k++] = ip;
	}
	return k;
}
