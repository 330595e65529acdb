// SPDX-License-Identifier: MIT
/*
 * A session's setters and what callers ask of it once open: its parts,
 * names and counts, and the symbols of a sample (resolve, frames; the
 * resolvers they and the histograms share). The reading and ordering of
 * records is session.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/session.h>
#include "internal.h"
#include "data_read_internal.h"
#include "resolve_internal.h"
#include "resolved_internal.h"
#include "session_internal.h"
#include "symbols_internal.h"

int tally_session__set_sample(struct tally_session *s, tally_session_sample_fn fn, void *ctx)
{
	if (!s)
		return tally__err(EINVAL);
	s->o.sample = fn;
	s->sample_ctx = ctx;
	return 0;
}

struct tally_data_reader *tally_session__reader(const struct tally_session *s)
{
	return s->rd;
}

const char *tally_session__symfs(const struct tally_session *s)
{
	return s ? s->o.symfs : NULL;
}

const char *tally_session__kallsyms(const struct tally_session *s)
{
	return s ? s->o.kallsyms : NULL;
}

struct tally_machine *tally_session__machine(const struct tally_session *s)
{
	return s->m;
}

struct tally_symbols *tally_session__symbols(const struct tally_session *s)
{
	return s->syms;
}

int tally_session__nr_events(const struct tally_session *s)
{
	return s->nr_attrs;
}

const char *tally_session__event_name(const struct tally_session *s, int attr)
{
	if (attr < 0 || attr >= s->nr_attrs) {
		errno = EINVAL;
		return NULL;
	}
	return s->names[attr];
}

struct tally_trace_fmt *tally_session__trace_fmt(const struct tally_session *s)
{
	return s->tf;
}

uint64_t tally_session__maps_gen(const struct tally_session *s)
{
	return s->maps_gen;
}

const char *tally_session__comm(struct tally_session *s, const struct tally_session_sample *smp)
{
	const char *c = tally_machine__comm_of(s->m, smp->thread.tid);

	return c ? c : tally__session_unnamed_comm(s, smp->thread.pid, smp->thread.tid);
}

int tally_session__stats(const struct tally_session *s, struct tally_session_stats *st)
{
	struct tally_session_stats v = { .sz = sizeof(v) };

	if (!s || !st || st->sz < sizeof(size_t))
		return tally__err(EINVAL);
	memcpy(v.records, s->records, sizeof(v.records));
	/* the walk unpacks those itself: counted there, as perf counts them */
	v.records[TALLY_RECORD_COMPRESSED] += tally__data_reader_nr_compressed(s->rd);
	v.dropped = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED);
	v.dropped_cpu_max = __atomic_load_n(&s->dropped_cpu_max, __ATOMIC_RELAXED);
	v.samples = s->samples + v.dropped;
	v.lost = s->lost;
	v.lost_samples = s->lost_samples;
	v.bad = s->bad;
	v.unwound = s->unwound;
	memcpy(v.unwind_stops, s->unwind_stops, sizeof(v.unwind_stops));
	v.nr_unresolved = tally_symbols__unresolved(s->syms, &v.unresolved);
	if (v.nr_unresolved < 0)
		v.nr_unresolved = 0;
	v.unordered = tally__ordered_late(&s->oe);
	v.sz = st->sz;
	memcpy(st, &v, st->sz < sizeof(v) ? st->sz : sizeof(v));
	return 0;
}

struct resolver *tally__session_resolver(struct tally_session *s, bool srcline, bool no_inline)
{
	int i = (srcline ? 1 : 0) | (no_inline ? 2 : 0);
	struct resolver *r = s->res[i];

	if (!r) {
		if (!(r = calloc(1, sizeof(*r))))
			return NULL;
		tally__resolver_bind(r, s);
		r->srcline = srcline;
		r->no_inline = no_inline;
		s->res[i] = r;
	}
	r->users++;
	return r;
}

struct resolver *tally__session_data_resolver(struct tally_session *s)
{
	struct resolver *r = s->dres;

	if (!r) {
		TALLY_OPTS(tally_symbols_opts, so, .data_objects = true, .symfs = s->o.symfs,
			   .kallsyms = s->o.kallsyms, .no_demangle = s->o.no_demangle);

		if (!(r = calloc(1, sizeof(*r))))
			return NULL;
		if (!(s->dsyms = tally_symbols__new(&so))) {
			free(r);
			return NULL;
		}
		tally__resolver_bind(r, s);
		r->syms = s->dsyms;
		s->dres = r;
	}
	r->users++;
	return r;
}

void tally__session_resolver_put(struct resolver *r)
{
	if (r && r->users)
		r->users--;
}

/* The session's own cache of resolved addresses (shared with histograms of its options), made at the first question. */
static struct resolver *session_resolver(struct tally_session *s)
{
	if (!s->own)
		s->own = tally__session_resolver(s, s->o.srcline, s->o.no_inline);
	return s->own;
}

static void frame_of(struct tally_frame *f, const struct where *w, uint64_t ip,
		     enum tally_cpumode mode, bool unwound)
{
	*f = (struct tally_frame){
		.ip = ip, .mode = mode, .level = w->mode, .dso = w->dso,
		.addr = w->addr, .sym = w->sym, .sym_start = w->sym_start,
		.inlined = w->inlined, .unwound = unwound, .srcline = w->srcline,
	};
	if (w->map) {
		f->path = w->map->path;
		f->map_start = w->map->start;
		f->map_end = w->map->end;
		f->map_pgoff = w->map->pgoff;
	}
}

int tally_session__resolve(struct tally_session *s, const struct tally_session_sample *smp,
			   struct tally_frame *out)
{
	struct resolver *r;
	struct where *w;

	if (!s || !smp || !out)
		return tally__err(EINVAL);
	if (!(r = session_resolver(s)) ||
	    !(w = tally__resolver_get(r, smp->thread.pid, smp->thread.tid, smp->sample->ip, smp->mode)))
		return tally__err(ENOMEM);
	frame_of(out, w, smp->sample->ip, smp->mode, false);
	return 0;
}

int tally_session__frames(struct tally_session *s, const struct tally_session_sample *smp,
			  struct tally_frame *out, int max)
{
	const struct tally_sample *x;
	struct resolver *r;
	enum tally_cpumode mode = TALLY_CPUMODE_USER;
	uint32_t uw;
	int n = 0;

	if (!s || !smp || !out || max < 0)
		return tally__err(EINVAL);
	x = smp->sample;
	if (!(smp->event->sample_type & PERF_SAMPLE_CALLCHAIN) || !x->callchain.nr ||
	    tally_session__chain_corrupt(x)) {
		if (!max)
			return 0;
		return tally_session__resolve(s, smp, out) ? -ENOMEM : 1;
	}
	if (!(r = session_resolver(s)))
		return tally__err(ENOMEM);
	uw = tally__chain_unwound_at(x->callchain.ips, (uint32_t)x->callchain.nr);
	for (uint64_t i = 0; i < x->callchain.nr && n < max; i++) {
		uint64_t ip = x->callchain.ips[i];
		struct where *fw[INL_MAX];
		int nf;

		if (ip >= PERF_CONTEXT_MAX) {
			mode = ip == PERF_CONTEXT_KERNEL ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
			continue;
		}
		nf = tally__resolver_frames(r, smp->thread.pid, smp->thread.tid, ip, mode, i > uw, fw);
		if (!nf)
			return tally__err(ENOMEM);
		for (int k = 0; k < nf && n < max; k++)
			frame_of(&out[n++], fw[k], ip, mode, i > uw);
	}
	return n;
}

int tally_session__synthesize(struct tally_session *s, const int *pids, int npids)
{
	if (!s)
		return -EINVAL;
	s->maps_gen++;	/* addresses resolved before may resolve now */
	return tally_machine__synthesize(s->m, pids, npids);
}

bool tally_session__chain_corrupt(const struct tally_sample *smp)
{
	for (uint64_t i = 0; i < smp->callchain.nr; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX && ip != PERF_CONTEXT_HV && ip != PERF_CONTEXT_KERNEL &&
		    ip != PERF_CONTEXT_USER && ip != TALLY_CONTEXT_UNWOUND)
			return true;
	}
	return false;
}

const char *tally_session__final_comm(const struct tally_session *s, const char *comm)
{
	for (size_t i = 0; i < s->nrenames; i++)
		if (s->renames[i].dflt == comm && s->renames[i].final)
			return s->renames[i].final;
	return comm;
}

int tally_session__trim(struct tally_session *s)
{
	struct resolver *rs[5];
	int n = 0, released;
	bool held = false;

	if (!s)
		return tally__err(EINVAL);
	/*
	 * a histogram holding the session's answers marks them itself (top's
	 * decay): its resolver is left to it, and no table goes under it
	 */
	for (int i = 0; i < 4; i++) {
		if (!s->res[i])
			continue;
		if (s->res[i]->users <= (s->res[i] == s->own ? 1u : 0u))
			rs[n++] = s->res[i];
		else
			held = true;
	}
	if (s->dres && !s->dres->users)
		rs[n++] = s->dres;
	else if (s->dres)
		held = true;
	released = tally_machine__release_exited(s->m);
	if (released > 0) {
		s->maps_gen++;		/* the thread names cached for the last samples' tids */
	}
	for (int i = 0; i < n; i++)
		tally__resolver_trim(rs[i]);
	if (held)
		return released < 0 ? released : 0;
	if (tally_symbols__trim(s->syms))
		for (int i = 0; i < n; i++)
			if (rs[i]->syms == s->syms)
				tally__resolver_forget_unloaded(rs[i]);
	if (s->dsyms && tally_symbols__trim(s->dsyms) && s->dres)
		tally__resolver_forget_unloaded(s->dres);
	return released < 0 ? released : 0;
}
