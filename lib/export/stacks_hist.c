// SPDX-License-Identifier: MIT
/*
 * The pictures' stacks as a view of the histogram (tally_stacks__from_hist):
 * each shape of an event becomes a stack, its chain's frames resolved
 * through the histogram's address table, root first, at their source
 * lines; the timeline in time order when the histogram kept one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/data_write.h>
#include <tally/hash.h>
#include <tally/session.h>
#include <tally/stacks.h>
#include "internal.h"
#include "hist_internal.h"
#include "stacks_internal.h"

/* By hand: a sprintf per byte, for every frame of every stack, was a quarter of diff --html's time. */
static void hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* One view's walk (tally_stacks__from_hist_flags): what its frames share. */
struct view {
	struct tally_stacks *st;
	struct resolver *res;
	const struct tally_session *ss;
	bool lines;
	/* the file whose recorded build id was asked last: asked again most often */
	const char *bid_path;
	char bid[2 * TALLY_BUILD_ID_MAX + 1];
	enum tally_cpumode modes[CHAIN_MAX];
	/*
	 * Each frame asked for (its name, DSO and mode, its address when it
	 * has no name, its line) and its handle: a picture asks for a
	 * function's frame in every stack it is in, and making it again (its
	 * text hashed and compared) was half the view's time. By the names'
	 * pointers: equal names elsewhere only miss here.
	 */
	struct memo {
		const char *name, *dso;
		uint64_t addr;
		const struct tally_srcline *src;
		bool kernel, used;
		int frame;
	} *memo;
	size_t nmemo, cap;		/* cap: a power of two, or 0 */
};

/*
 * The build id the recording noted for a file (HEADER_BUILD_ID), for maps
 * whose MMAP2 carried none; *out hex.
 */
static bool recorded_build_id(struct view *v, const char *path, char *out)
{
	const struct tally_data_reader *r = tally_session__reader(v->ss);
	uint8_t id[TALLY_BUILD_ID_MAX];
	int n;

	if (!r)
		return false;	/* live: no recording's notes */
	if (path != v->bid_path) {
		v->bid_path = path;
		*v->bid = '\0';
		if ((n = tally_data_reader__build_id(r, path, id)) > 0)
			hex(v->bid, id, (size_t)n);
	}
	strcpy(out, v->bid);
	return *out;
}

/* One frame of the model for a resolved address, at its source line (or NULL). */
static void frame_fields(struct tally_stack_frame *f, const struct where *w, uint64_t ip)
{
	*f = (struct tally_stack_frame){
		.name = w->sym,
		.dso = w->map ? (w->mode == 'k' && w->map->kernel ? w->dso : w->map->path) : NULL,
		.addr = w->map ? w->addr : ip,
		.kernel = w->mode == 'k',
	};
}

static int make_frame(struct view *v, struct tally_stack_frame *f, const struct where *w,
		      const struct tally_srcline *src)
{
	char bid[2 * TALLY_BUILD_ID_MAX + 1];

	if (w->map) {
		f->map_start = w->map->start;
		f->map_end = w->map->end;
		f->map_pgoff = w->map->pgoff;
		if (w->map->build_id_size) {
			hex(bid, w->map->build_id, w->map->build_id_size);
			f->build_id = bid;
		} else if (f->dso && recorded_build_id(v, f->dso, bid)) {
			f->build_id = bid;
		}
	}
	return tally_stacks__frame_at(v->st, f, src ? src->file : NULL, src ? src->line : 0);
}

/* a frame's key as frame_index's: a named one is its name, DSO and mode */
static struct memo memo_key(const struct tally_stack_frame *f, const struct tally_srcline *src)
{
	return (struct memo){ .name = f->name, .dso = f->dso, .addr = f->name ? 0 : f->addr,
			      .src = src, .kernel = f->kernel, .used = true };
}

static size_t memo_slot(const struct view *v, const struct memo *m)
{
	uint64_t h = tally_hash_mix((uint64_t)(uintptr_t)m->name * 0x9e3779b97f4a7c15ull ^
				    (uint64_t)(uintptr_t)m->dso ^ m->addr * 31 ^
				    (uint64_t)(uintptr_t)m->src << 1 ^ m->kernel);
	size_t k = h & (v->cap - 1);

	for (; v->memo[k].used; k = (k + 1) & (v->cap - 1)) {
		const struct memo *x = &v->memo[k];

		if (x->name == m->name && x->dso == m->dso && x->addr == m->addr && x->src == m->src &&
		    x->kernel == m->kernel)
			break;
	}
	return k;
}

/* The frame of w at ip (and line src), made once per view. */
static int frame_of(struct view *v, const struct where *w, uint64_t ip,
		    const struct tally_srcline *src)
{
	struct tally_stack_frame f;
	struct memo m;
	size_t k;

	frame_fields(&f, w, ip);
	m = memo_key(&f, src);
	if ((v->nmemo + 1) * 2 > v->cap) {
		struct memo *old = v->memo;
		size_t ocap = v->cap, cap = ocap ? 2 * ocap : 1024;

		if (!(v->memo = calloc(cap, sizeof(*v->memo)))) {
			v->memo = old;
			return make_frame(v, &f, w, src);	/* unremembered */
		}
		v->cap = cap;
		for (size_t i = 0; i < ocap; i++)
			if (old[i].used)
				v->memo[memo_slot(v, &old[i])] = old[i];
		free(old);
	}
	k = memo_slot(v, &m);
	if (v->memo[k].used)
		return v->memo[k].frame;
	if ((m.frame = make_frame(v, &f, w, src)) >= 0) {
		v->memo[k] = m;
		v->nmemo++;
	}
	return m.frame;
}

/* x's sampled address resolved: the answer the shape kept (a user one), else looked up */
static const struct where *shape_ip(struct view *v, const struct shape *x)
{
	return x->wh[x->key_nr] ? x->wh[x->key_nr] :
	       tally__resolver_get(v->res, x->pid, x->tid, x->ip, x->mode);
}

/*
 * Each address of x's chain that is a frame, root first, with its
 * frames (its outermost function first, then those inlined in it):
 * fn(v, ctx, i, fw, nf), i the address's index in the chain. The
 * chain's levels are in v->modes. 0, fn's error, or -ENOMEM.
 */
static int chain_walk(struct view *v, const struct shape *x, void *ctx,
		      int (*fn)(struct view *v, void *ctx, const struct shape *x, uint32_t i,
				struct where *const *fw, int nf))
{
	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);
	int err;

	tally__chain_modes(&smp, v->modes);
	for (uint32_t i = x->nr; i > 0; i--) {
		struct where *fw[INL_MAX];
		int nf;

		if (x->ips[i - 1] >= PERF_CONTEXT_MAX)
			continue;
		/* the answer the shape kept when it was made (its user frames): no second lookup */
		nf = x->wh[i - 1] ?
		     tally__resolver_where_frames(v->res, x->wh[i - 1], i - 1 > uw, fw) :
		     tally__resolver_frames(v->res, x->pid, x->tid, x->ips[i - 1], v->modes[i - 1],
					    i - 1 > uw, fw);
		if (!nf)
			return -ENOMEM;
		if ((err = fn(v, ctx, x, i - 1, fw, nf)))
			return err;
	}
	return 0;
}

/* stack_of's step: an address's frames pushed, at their source lines. */
static int push_frames(struct view *v, void *ctx, const struct shape *x, uint32_t i,
		       struct where *const *fw, int nf)
{
	int *node = ctx, f, nl;
	uint64_t ip = x->ips[i];
	const struct tally_srcline *src;

	/* after a frame, not a level's marker: a return address */
	nl = !v->lines ? 0 : tally__resolver_lines(v->res, x->pid, x->tid, ip, v->modes[i],
						   i >= 1 && x->ips[i - 1] < PERF_CONTEXT_MAX, &src);
	for (int j = nf - 1; j >= 0; j--) {
		/* the lines end with the out-of-line function's, as the frames */
		int l = j + nl - nf;

		if ((f = frame_of(v, fw[j], ip, l >= 0 && nl ? &src[l] : NULL)) < 0 ||
		    (*node = tally_stacks__push(v->st, *node, f)) < 0)
			return f < 0 ? f : *node;
	}
	return 0;
}

/*
 * A shape's stack, root first: its chain, or the sample's own address when
 * its event records no chains (chained false); -1 for an empty chain.
 */
static int stack_under(struct view *v, const struct shape *x, bool chained, int root)
{
	const struct tally_srcline *src;
	const struct where *w;
	int node = root, f, nl, err;

	if (!x->nr && chained && !x->key_nr)
		return root;	/* an empty chain (perf script shows no frame): the command alone */
	/*
	 * No chain recorded, or one perf drops (a garbage context marker):
	 * the sampled frame alone, as the self column counts it.
	 */
	if (!x->nr) {
		w = shape_ip(v, x);
		if (!w)
			return -ENOMEM;
		nl = v->lines ? tally__resolver_lines(v->res, x->pid, x->tid, x->ip, x->mode, false,
						      &src) : 0;
		f = frame_of(v, w, x->ip, nl ? &src[nl - 1] : NULL);
		return f < 0 ? f : tally_stacks__push(v->st, root, f);
	}
	return (err = chain_walk(v, x, &node, push_frames)) ? err : node;
}

static int stack_of(struct view *v, const struct shape *x, bool chained)
{
	return stack_under(v, x, chained, -1);
}

/* The flame graph's frames of a shape: each one's name and whether it is the kernel's. */
struct flame_frames {
	const char *text[CHAIN_MAX * INL_MAX];
	bool kernel[CHAIN_MAX * INL_MAX];
	size_t n;
};

/* flame_of's step: an address's frames named, as the stacks' frame_fields */
static int name_frames(struct view *v, void *ctx, const struct shape *x, uint32_t i,
		       struct where *const *fw, int nf)
{
	struct flame_frames *ff = ctx;

	(void)v;
	(void)x;
	(void)i;
	for (int j = nf - 1; j >= 0; j--) {
		ff->text[ff->n] = fw[j]->sym;
		ff->kernel[ff->n++] = fw[j]->mode == 'k';
	}
	return 0;
}

/* A shape's stack fed to the flame graph: stack_of's frames, by name. */
static int flame_of(struct view *v, struct flame_frames *ff, struct tally__flame *fl,
		    const struct shape *x, bool chained, const char *comm)
{
	const struct where *w;
	int err;

	ff->n = 0;
	if (!x->nr && !(chained && !x->key_nr)) {
		if (!(w = shape_ip(v, x)))
			return -ENOMEM;
		ff->text[0] = w->sym;
		ff->kernel[ff->n++] = w->mode == 'k';
	} else if (x->nr && (err = chain_walk(v, x, ff, name_frames))) {
		return err;
	}
	return tally__flame_stack(fl, comm, ff->text, ff->kernel, ff->n, x->count);
}

int tally_stacks__svg_from_hist(struct tally_hist *h, int event, FILE *fp, const char *title)
{
	const struct hist_event_info *ev = h ? tally__hist_event(h, event) : NULL;
	struct tally__flame *fl;
	struct view *v = NULL;
	/* a walk's frames: malloc'd, not static (two pictures drawn on two threads) */
	struct flame_frames *ff = NULL;
	struct shape *const *shapes;
	struct tally_session *ss;
	size_t n;
	int err = 0;

	if (!ev || !fp)
		return -EINVAL;
	if (!(fl = tally__flame_new()) || !(v = malloc(sizeof(*v))) || !(ff = malloc(sizeof(*ff)))) {
		tally__flame_free(fl);
		free(v);
		return -ENOMEM;
	}
	ss = tally__hist_session(h);
	*v = (struct view){ .res = tally__hist_resolver(h), .ss = ss };
	shapes = tally__hist_shapes(h, &n);
	/* in the shapes' order: tally_stacks__sample's, which the graph's frames are numbered in */
	for (size_t i = 0; i < n && !err; i++) {
		const struct shape *sh = shapes[i];

		if (sh->idx != event)
			continue;
		/* what was counted under ":TID" carries the name the thread got next */
		err = flame_of(v, ff, fl, sh, ev->sample_type & PERF_SAMPLE_CALLCHAIN,
			       tally_session__final_comm(ss, sh->comm));
	}
	free(ff);
	free(v);
	if (!err)
		err = tally__flame_write(fl, fp, title);
	tally__flame_free(fl);
	return err;
}

/* The recorded command line (HEADER_CMDLINE: u32 count, then perf strings). */
static char *cmdline(const struct tally_session *ss)
{
	const unsigned char *p;
	const void *v;
	size_t len, pos = 4;
	uint32_t n;
	char *out = NULL;
	size_t olen = 0;
	FILE *m;

	if (!tally_session__reader(ss) ||
	    tally_data_reader__feature(tally_session__reader(ss), TALLY_HEADER_CMDLINE, &v, &len) || len < 4)
		return NULL;
	p = v;
	memcpy(&n, p, 4);
	m = open_memstream(&out, &olen);
	if (!m)
		return NULL;
	for (uint32_t i = 0; i < n && len - pos >= 4; i++) {
		uint32_t sl;

		memcpy(&sl, p + pos, 4);
		pos += 4;
		if (sl > len - pos || !memchr(p + pos, 0, sl))
			break;
		fprintf(m, "%s%s", i ? " " : "", (const char *)p + pos);
		pos += sl;
	}
	fclose(m);
	return out;
}

struct tally_stacks *tally_stacks__from_hist(struct tally_hist *h, int event)
{
	return tally_stacks__from_hist_flags(h, event, 0);
}

struct tally_stacks *tally_stacks__from_hist_flags(struct tally_hist *h, int event, unsigned flags)
{
	/*
	 * The flame graph and the folded stacks name functions alone; the
	 * DWARF line lookups were most of their time (python3 -g
	 * --flamegraph 0.10 s, 47 MB -> 0.03 s, 19 MB).
	 */
	bool lines = !(flags & TALLY_STACKS_FUNCTIONS);
	const struct hist_event_info *ev = h ? tally__hist_event(h, event) : NULL;
	struct tally_stacks *st;
	struct tally_session *ss;
	struct view *v = NULL;
	TALLY_OPTS(tally_session_stats, sst);
	TALLY_OPTS(tally_hist_totals, tot);
	struct shape *const *shapes;
	const struct hist_timed *timed;
	size_t n, ntimed;
	bool timed_short, chained;
	int *sthread = NULL, *snode = NULL, err = 0;
	char *cmd;

	if (!ev || tally_hist__totals(h, event, &tot))
		return tally__err_ptr(EINVAL);
	if (!(st = tally_stacks__new()))
		return NULL;
	ss = tally__hist_session(h);
	shapes = tally__hist_shapes(h, &n);
	timed = tally__hist_timeline(h, &ntimed, &timed_short);
	chained = ev->sample_type & PERF_SAMPLE_CALLCHAIN;
	if (!(sthread = calloc(n + 1, sizeof(*sthread))) || !(snode = calloc(n + 1, sizeof(*snode))) ||
	    !(v = malloc(sizeof(*v))))
		err = -ENOMEM;
	else
		*v = (struct view){ .st = st, .res = tally__hist_resolver(h), .ss = ss, .lines = lines };
	for (size_t i = 0; i < n && !err; i++) {
		const struct shape *sh = shapes[i];
		int t, node;

		sthread[i] = -1;
		if (sh->idx != event)
			continue;
		/* what was counted under ":TID" carries the name the thread got next */
		t = tally_stacks__thread(st, sh->pid, sh->tid, tally_session__final_comm(ss, sh->comm));
		node = t < 0 ? t : stack_of(v, sh, chained);
		/* -1: an empty stack (the thread alone); below it, -errno */
		err = node < -1 ? node : tally_stacks__sample(st, t, node, sh->count, sh->period);
		sthread[i] = t;
		snode[i] = node;
	}
	/* the timeline, in time order as read; one with samples missing would mislead */
	if (timed_short)
		err = -ENOMEM;
	for (size_t i = 0; i < ntimed && !err; i++) {
		size_t k = timed[i].shape;

		if (k < n && sthread[k] >= 0)
			err = tally_stacks__timed_weight(st, sthread[k], snode[k], timed[i].time,
							 timed[i].period);
	}
	free(sthread);
	free(snode);
	if (v)
		free(v->memo);
	free(v);
	if (!err) {
		struct tally_stacks_info info = {
			.event = tally_session__event_name(ss, event),
			/* the clocks' periods are nanoseconds */
			.unit = ev->type == PERF_TYPE_SOFTWARE &&
				(ev->config == PERF_COUNT_SW_CPU_CLOCK ||
				 ev->config == PERF_COUNT_SW_TASK_CLOCK) ? "nanoseconds" : "count",
			.period = ev->period,
			.time_ns = tot.time_first,
			.duration_ns = tot.time_last - tot.time_first,
			.lost = tally_session__stats(ss, &sst) ? 0 : sst.lost_samples,
		};

		info.command = cmd = cmdline(ss);
		err = tally_stacks__set_info(st, &info);
		free(cmd);
	}
	if (err) {
		tally_stacks__free(st);
		return tally__err_ptr(-err);
	}
	return st;
}

/* A root frame of the on/off-CPU view: what the stacks under it are. */
static int kind_root(struct tally_stacks *st, const char *name)
{
	struct tally_stack_frame f = { .name = name };
	int fr = tally_stacks__frame(st, &f);

	return fr < 0 ? fr : tally_stacks__push(st, -1, fr);
}

/* The view's counts: microseconds, so both times share the pictures' widths. */
static uint64_t us(uint64_t ns)
{
	return (ns + 500) / 1000;
}

static bool is_clock(const struct hist_event_info *ev)
{
	return ev->type == PERF_TYPE_SOFTWARE && (ev->config == PERF_COUNT_SW_CPU_CLOCK ||
						  ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * On- and off-CPU time side by side (record --off-cpu): each thread's
 * stacks of the clock event `on` under a root frame "[on-CPU]", those of
 * offcpu-time (`off`) under "[off-CPU S: sleeping]" or "[off-CPU D:
 * uninterruptible]", the state its sample's time carries (perf's dummy
 * time: tally_synth__offcpu), read from the histogram's timeline. Both
 * weigh nanoseconds. Without the timeline, one "[off-CPU]" root.
 */
struct tally_stacks *tally_stacks__from_hist_offcpu(struct tally_hist *h, int on, int off,
						    unsigned flags)
{
	static const char *const kinds[4] = {
		"[off-CPU]", "[off-CPU S: sleeping]", "[off-CPU D: uninterruptible]", "[off-CPU]",
	};
	const struct hist_event_info *eon = h ? tally__hist_event(h, on) : NULL;
	const struct hist_event_info *eoff = h ? tally__hist_event(h, off) : NULL;
	TALLY_OPTS(tally_hist_totals, ton);
	TALLY_OPTS(tally_hist_totals, toff);
	struct shape *const *shapes;
	const struct hist_timed *timed;
	struct tally_session *ss;
	struct tally_stacks *st;
	struct view *v = NULL;
	size_t n, ntimed;
	bool timed_short;
	int roots[5], *sthread = NULL, *snode = NULL, err = 0;

	if (!eon || !eoff || on == off || !is_clock(eon) || tally_hist__totals(h, on, &ton) ||
	    tally_hist__totals(h, off, &toff))
		return tally__err_ptr(EINVAL);
	if (!(st = tally_stacks__new()))
		return NULL;
	ss = tally__hist_session(h);
	shapes = tally__hist_shapes(h, &n);
	timed = tally__hist_timeline(h, &ntimed, &timed_short);
	if (timed_short || !timed)
		ntimed = 0;
	/* per shape: its thread, and its stack under each of the 4 off-CPU roots (0: not yet) */
	if (!(sthread = calloc(n + 1, sizeof(*sthread))) ||
	    !(snode = calloc(4 * (n + 1), sizeof(*snode))) || !(v = malloc(sizeof(*v))))
		err = -ENOMEM;
	else
		*v = (struct view){ .st = st, .res = tally__hist_resolver(h), .ss = ss,
				    .lines = !(flags & TALLY_STACKS_FUNCTIONS) };
	for (int k = 0; k < 5 && !err; k++)
		if ((roots[k] = kind_root(st, k == 4 ? "[on-CPU]" : kinds[k])) < 0)
			err = roots[k];
	for (size_t i = 0; i < n && !err; i++) {
		const struct shape *sh = shapes[i];
		bool chained;
		int t, node;

		if (sh->idx != on && sh->idx != off)
			continue;
		t = tally_stacks__thread(st, sh->pid, sh->tid, tally_session__final_comm(ss, sh->comm));
		sthread[i] = t;
		if (t < 0) {
			err = t;
			break;
		}
		chained = (sh->idx == on ? eon : eoff)->sample_type & PERF_SAMPLE_CALLCHAIN;
		if (sh->idx == off && ntimed)
			continue;	/* by state, from the timeline below */
		node = stack_under(v, sh, chained, sh->idx == on ? roots[4] : roots[0]);
		err = node < 0 ? node : tally_stacks__sample(st, t, node, us(sh->period), sh->period);
	}
	for (size_t i = 0; i < ntimed && !err; i++) {
		size_t k = timed[i].shape;
		unsigned state = TALLY_OFFCPU_STATE(timed[i].time);
		int *node;

		if (k >= n || shapes[k]->idx != off)
			continue;
		node = &snode[4 * k + state];
		if (!*node) {
			int r = stack_under(v, shapes[k], eoff->sample_type & PERF_SAMPLE_CALLCHAIN,
					    roots[state]);

			if (r < 0) {
				err = r;
				break;
			}
			*node = r + 1;
		}
		err = tally_stacks__sample(st, sthread[k], *node - 1, us(timed[i].period),
					   timed[i].period);
	}
	free(sthread);
	free(snode);
	if (v)
		free(v->memo);
	free(v);
	if (!err) {
		char name[256];
		struct tally_stacks_info info = {
			.event = name,
			.unit = "microseconds",	/* the counts: the pictures' widths */
			.time_ns = ton.time_first,
			.duration_ns = ton.time_last - ton.time_first,
		};
		char *cmd = cmdline(ss);

		snprintf(name, sizeof(name), "%s + %s", tally_session__event_name(ss, on),
			 tally_session__event_name(ss, off));
		info.command = cmd;
		err = tally_stacks__set_info(st, &info);
		free(cmd);
	}
	if (err) {
		tally_stacks__free(st);
		return tally__err_ptr(-err);
	}
	return st;
}
