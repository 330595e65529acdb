// SPDX-License-Identifier: MIT
/*
 * The histogram's entries and rows: the entry blocks, the keys (which
 * samples are one row, perf's filters), and each shape's rows and call
 * graphs made at the resort (tally_hist__resort in hist.c).
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hash.h>
#include <tally/session.h>
#include "fmt.h"
#include "internal.h"
#include "hist_priv.h"
#include "hist_graph.h"
#include "resolved_internal.h"

/* the PMU fields of a shape or row no mem key reads (hist.c uses it too) */
const struct hist_mem tally__hist_mem_none;

static struct entry *entry_new(struct tally_hist *h)
{
	struct entry *e = h->efree;

	if (e) {
		h->efree = e->next;
		return e;
	}
	if (!h->eblk || h->eblk_used == ENTRY_BLK) {
		/* the PMU fields' copies only where they key: 128 bytes an entry */
		struct entry_blk *b = malloc(sizeof(*b) + (h->keep_mem ? ENTRY_BLK * sizeof(b->m[0]) : 0));

		if (!b)
			return NULL;
		b->next = h->eblk;
		h->eblk = b;
		h->eblk_used = 0;
	}
	e = &h->eblk->e[h->eblk_used];
	e->m = h->keep_mem ? &h->eblk->m[h->eblk_used] : &tally__hist_mem_none;
	h->eblk_used++;
	return e;
}

void tally__hist_entry_put(struct tally_hist *h, struct entry *e)
{
	e->next = h->efree;
	h->efree = e;
}

/* ---- keys ---- */

/*
 * Whether a and b are one entry: as cmp_key, except that a symbol is its
 * DSO and address (perf's sort__sym_cmp: two functions of one name in two
 * DSOs, or two static ones in one, are two rows), and an inlined function
 * its name. cmp_key orders the rows by name, as perf's sort__sym_sort.
 */
static bool same_key(const struct tally_hist *h, const struct entry *a, const struct entry *b,
		     enum tally_hist_key k)
{
	if (k == K_SYM && a->sym && b->sym) {
		/* a DSO's symbols are one copy each: equal names are mostly one pointer */
		if (h->sym_by_name)
			return !strcmp_null(a->dso, b->dso) && !strcmp_null(a->sym, b->sym);
		if (strcmp_null(a->dso, b->dso))
			return false;
		if (a->inlined || b->inlined)
			return !strcmp_null(a->sym, b->sym);
		return a->sym_start == b->sym_start && !strcmp_null(a->sym, b->sym);
	}
	return !cmp_key(a, b, k);
}

/*
 * The entries' table is walked in bucket order before the rows are sorted,
 * so rows that tie come in the order these hashes give: seeded as they
 * always were (resolve.c's FNV_BASIS, the FNV basis short of a digit), not
 * TALLY_FNV_BASIS, so that no tie moves.
 */
/*
 * symbol_iaddr's: the ip where a map holds it, whatever the sample's
 * level (perf's thread__find_cpumode_addr_location: user first)
 */
static const struct where *iaddr_where(struct tally_hist *h, const struct shape *x)
{
	const struct where *w = tally__resolver_get(h->res, x->pid, x->tid, x->m->ip,
						    TALLY_CPUMODE_USER);

	if (w && !w->map)
		w = tally__resolver_get(h->res, x->pid, x->tid, x->m->ip, TALLY_CPUMODE_KERNEL);
	return w;
}

#define ENTRY_SEED 1469598103934665603ULL

static uint64_t hash_entry(const struct tally_hist *h, const struct entry *e)
{
	uint64_t v, hv = ENTRY_SEED;

	for (int i = 0; i < h->nsort; i++) {
		/* the names' hashes were taken once, where they were made */
		switch (h->sort[i]) {
		case K_COMM: v = e->comm_hash; break;
		case K_PID: v = (uint64_t)e->tid; break;
		case K_DSO: v = e->w->dso_hash; break;
		case K_SYM: v = e->sym ? e->w->sym_hash : e->addr; break;
		case K_CPU: v = (uint64_t)e->cpu; break;
		case K_SRCLINE:
			v = e->srcline_skip ? tally_fnv_str(ENTRY_SEED, entry_srcline(e)) : e->w->srcline_hash;
			break;
		case K_PARENT: v = tally_fnv_str(ENTRY_SEED, e->parent); break;
		case K_TRACE: v = (uint64_t)(uintptr_t)e->trace; break;	/* interned */
		default: v = tally__hist_mem_ident(e, h->sort[i]); break;
		}
		hv = tally_hash_mix(hv ^ v);
	}
	return hv;
}

/* key's entry (made when new), hv its hash_entry; NULL without memory */
static struct entry *hist_find_hv(struct tally_hist *h, struct hist_ev *hs, const struct entry *key,
				  uint64_t hv)
{
	const struct hist_mem *own;
	size_t b;
	struct entry *e;

	if (hs->n >= hs->nbuckets) {
		size_t n = hs->nbuckets ? hs->nbuckets * 2 : 1024;
		struct entry **nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		/*
		 * every entry is read for its link and hash: the chains' heads
		 * fetched ahead (each a miss; the growths read each entry about
		 * twice, a quarter of hist_find's time)
		 */
		for (size_t i = 0; i < hs->nbuckets; i++) {
			if (i + 16 < hs->nbuckets && hs->tab[i + 16]) {
				__builtin_prefetch(&hs->tab[i + 16]->hash);
				__builtin_prefetch(&hs->tab[i + 16]->next);
			}
			while (hs->tab[i]) {
				struct entry *x = hs->tab[i];

				hs->tab[i] = x->next;
				b = x->hash & (n - 1);
				x->next = nt[b];
				nt[b] = x;
			}
		}
		free(hs->tab);
		hs->tab = nt;
		hs->nbuckets = n;
	}
	b = hv & (hs->nbuckets - 1);
	for (e = hs->tab[b]; e; e = e->next) {
		int i;

		if (e->hash != hv)
			continue;
		for (i = 0; i < h->nsort && same_key(h, e, key, h->sort[i]); i++)
			;
		if (i == h->nsort)
			return e;
	}
	e = entry_new(h);	/* not zeroed: the key's copy fills it */
	if (!e)
		return NULL;
	own = e->m;		/* its own copy's room, kept by a reused entry too */
	*e = *key;
	if (own != &tally__hist_mem_none) {
		*(struct hist_mem *)own = *key->m;
		e->m = own;
	}
	e->hash = hv;
	e->self = e->children = 0;
	e->last_sample = UINT64_MAX;
	e->seq = hs->made++;
	e->next = hs->tab[b];
	hs->tab[b] = e;
	hs->n++;
	return e;
}

static struct entry *hist_find(struct tally_hist *h, struct hist_ev *hs, const struct entry *key)
{
	return hist_find_hv(h, hs, key, hash_entry(h, key));
}

struct entry *tally__hist_entry_pair(struct tally_hist *h, struct hist_ev *hs, const struct entry *key,
				     bool *made)
{
	size_t seq = hs->made;
	struct entry *e = hist_find(h, hs, key);

	*made = e && hs->made != seq;
	if (*made) {
		/* perf's hists__add_dummy_entry: the key, no counts, no graph; the pair's filter verdict */
		e->nself = 0;
		e->cg = 0;
		e->graphed = false;
		e->max_depth = 0;
		if (e->m != &tally__hist_mem_none) {
			struct hist_mem *m = (struct hist_mem *)e->m;

			m->p_sys = m->p_us = m->p_gsys = m->p_gus = 0;
		}
	}
	return e;
}

static size_t vis_slot_of(const struct tally_hist *h, const void *e)
{
	return (size_t)(((uintptr_t)e >> 4) * 0x9e3779b97f4a7c15ull) & (h->capvis - 1);
}

static const char *vis_get(const struct tally_hist *h, const void *e)
{
	if (!h->capvis)
		return NULL;
	for (size_t i = vis_slot_of(h, e); h->vis[i].e; i = (i + 1) & (h->capvis - 1))
		if (h->vis[i].e == e)
			return h->vis[i].comm;
	return NULL;
}

/* entry e's verdict came from a sample of this name (no memory: the first verdict stays) */
static void vis_note(struct tally_hist *h, const void *e, const char *comm)
{
	size_t i;

	if (2 * (h->nvis + 1) > h->capvis) {
		size_t cap = h->capvis ? h->capvis * 2 : 1024;
		struct vis_slot *v = calloc(cap, sizeof(*v)), *old = h->vis;
		size_t ocap = h->capvis;

		if (!v)
			return;
		h->vis = v;
		h->capvis = cap;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].e) {
				for (i = vis_slot_of(h, old[k].e); v[i].e; i = (i + 1) & (cap - 1))
					;
				v[i] = old[k];
			}
		free(old);
	}
	for (i = vis_slot_of(h, e); h->vis[i].e && h->vis[i].e != e; i = (i + 1) & (h->capvis - 1))
		;
	h->nvis += !h->vis[i].e;
	h->vis[i] = (struct vis_slot){ e, comm };
}

/*
 * As perf: every sample counts in every entry it touches; a filter tests
 * the sample's own entry, and an entry is shown if the sample that made
 * it passed.
 */
static int add_hv(struct tally_hist *h, struct hist_ev *hs, struct entry *key, uint64_t hv,
		  uint64_t period, bool self, bool pass, struct entry **out)
{
	struct entry *e = hist_find_hv(h, hs, key, hv);

	if (!(*out = e))
		return -ENOMEM;
	if (e->last_sample == UINT64_MAX && !e->self && !e->children) {
		e->visible = pass;	/* just made */
		if (h->vis_on)
			vis_note(h, e, h->cur_comm0);
	} else if (h->vis_on) {
		/*
		 * a thread renamed (":TID", then its first COMM): perf keyed
		 * its samples by the name then, one entry per name, and merged
		 * them under the new one in the names' order, the first
		 * entry's verdict kept
		 */
		const char *vc = vis_get(h, e);

		if (vc && h->cur_comm0 && h->cur_comm0 != vc && strcmp(h->cur_comm0, vc) < 0) {
			e->visible = pass;
			vis_note(h, e, h->cur_comm0);
		}
	}
	if (self) {
		e->self += period;
		e->nself += h->cur_count;
		if (h->cpu_util) {	/* perf's he_stat__add_cpumode_period */
			struct hist_mem *m = (struct hist_mem *)e->m;

			switch (h->cur_mode) {
			case TALLY_CPUMODE_KERNEL: m->p_sys += period; break;
			case TALLY_CPUMODE_USER: m->p_us += period; break;
			case TALLY_CPUMODE_GUEST_KERNEL: m->p_gsys += period; break;
			case TALLY_CPUMODE_GUEST_USER: m->p_gus += period; break;
			default: break;
			}
		}
	}
	if (h->children && e->last_sample != h->sample_no) {
		e->children += period;	/* an entry counts once per sample */
		e->last_sample = h->sample_no;
	}
	return 0;
}

static int add(struct tally_hist *h, struct hist_ev *hs, struct entry *key, uint64_t period,
	       bool self, bool pass, struct entry **out)
{
	return add_hv(h, hs, key, hash_entry(h, key), period, self, pass, out);
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static bool in_id_list(const char *list, int32_t id)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", (int)id);
	return in_list(list, n);
}

/* The filter tests the sample (its own entry): perf drops the others, with their callers' entries. */
static bool shown(const struct tally_hist *h, const struct entry *e)
{
	const struct tally_hist_filter *f = &h->filter;

	if (f->comms && !in_list(f->comms, e->comm))
		return false;
	if (f->exclude_other && !e->parent)
		return false;
	if (f->pids && !in_id_list(f->pids, e->pid))
		return false;
	if (f->tids && !in_id_list(f->tids, e->tid))
		return false;
	if (f->dsos && !in_list(f->dsos, e->dso ? e->dso : "[unknown]"))
		return false;
	if (f->symbols && (!e->sym || !in_list(f->symbols, e->sym)))
		return false;
	return true;
}

/* An entry's key where an address resolved. */
static void key_where(struct entry *key, const struct where *w)
{
	key->w = w;
	key->from_chain = false;
	key->srcline_skip = 0;
	key->dso = w->dso;
	key->sym = w->sym;
	key->sym_start = w->sym_start;
	key->inlined = w->inlined;
	key->addr = w->addr;
	key->mode = w->mode;
}

/*
 * An entry's key for a frame of the chain, as perf's callchain entries:
 * an unresolved frame shows its ip, and one outside any map keeps the
 * level of the frame walked before it (perf reuses that frame's state).
 */
static void frame_key(struct entry *key, const struct where *w, uint64_t ip, char *prev_mode)
{
	key_where(key, w);
	key->from_chain = true;
	if (!w->sym)
		key->addr = ip;
	if (!w->dso)
		key->mode = *prev_mode;
	*prev_mode = key->mode;
}

/* ---- shapes ---- */

/*
 * Where the shape's address resolved; in branch mode its branch's ends
 * into key too (the address is the target's, as perf's al there).
 */
static const struct where *branch_ends(struct tally_hist *h, const struct shape *x,
				       struct entry *key)
{
	if (!h->branch)
		return x->wh[x->key_nr] ? x->wh[x->key_nr] :
		       tally__resolver_get(h->res, x->pid, x->tid, x->ip, x->mode);
	key->bf = tally__session_branch_where(h->res, x->pid, x->tid, x->m->bfrom, &key->blf);
	key->bt = tally__session_branch_where(h->res, x->pid, x->tid, x->m->bto, &key->blt);
	return key->bf ? key->bt : NULL;
}


/* ---- rows ---- */

/*
 * Whether the parent regex matches sym, tried once per name (a DSO's
 * names are one copy each; a copy elsewhere is tried again). The
 * answers are the histogram's: the wheres are the session's, shared
 * with histograms of other regexes.
 */
static bool parent_match(struct tally_hist *h, const char *sym)
{
	size_t b;

	if (h->npmatch * 2 >= h->cap_pmatch) {
		size_t cap = h->cap_pmatch ? 2 * h->cap_pmatch : 256;
		struct hist_pmatch *t = calloc(cap, sizeof(*t));

		if (!t)	/* no room to keep it: asked every time */
			return !regexec(&h->parent_re, sym, 0, NULL, 0);
		for (size_t i = 0; i < h->cap_pmatch; i++) {
			if (!h->pmatch[i].sym)
				continue;
			b = tally_hash_mix((uintptr_t)h->pmatch[i].sym) & (cap - 1);
			while (t[b].sym)
				b = (b + 1) & (cap - 1);
			t[b] = h->pmatch[i];
		}
		free(h->pmatch);
		h->pmatch = t;
		h->cap_pmatch = cap;
	}
	b = tally_hash_mix((uintptr_t)sym) & (h->cap_pmatch - 1);
	while (h->pmatch[b].sym && h->pmatch[b].sym != sym)
		b = (b + 1) & (h->cap_pmatch - 1);
	if (!h->pmatch[b].sym) {
		h->pmatch[b] = (struct hist_pmatch){ sym, !regexec(&h->parent_re, sym, 0, NULL, 0) };
		h->npmatch++;
	}
	return h->pmatch[b].match;
}

/*
 * perf's parent: the first symbol of the chain, in its cursor's order,
 * that the parent regex matches (a match is cached per address).
 */
static const char *find_parent(struct tally_hist *h, const struct shape *x,
			       const enum tally_cpumode *modes)
{
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

	for (uint32_t k = 0; k < x->nr; k++) {
		uint32_t i = h->caller ? x->nr - 1 - k : k;
		struct where *w;
		struct where *fw[INL_MAX];
		int nf;

		if (x->ips[i] >= PERF_CONTEXT_MAX)
			continue;
		nf = tally__resolver_frames(h->res, x->pid, x->tid, x->ips[i], modes[i], i > uw, fw);
		for (int j = 0; j < nf; j++) {
			/* an address's inline frames: outermost first from the root */
			w = fw[h->caller ? nf - 1 - j : j];
			if (!w->sym)
				continue;
			if (parent_match(h, w->sym))
				return w->sym;
		}
	}
	return NULL;
}

/*
 * A shape's share in the rows, period and count samples of it not yet
 * counted there: its own entry, and with children every entry on its
 * chain once.
 */
int tally__hist_graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count);
static int graph_note(struct tally_hist *h, int idx, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count);

/*
 * --branch-history: the callers' share over the branch stack's ends and
 * the chain after them (perf's cursor there), then self's tree of them.
 */
static int brhist_shape(struct tally_hist *h, struct hist_ev *hs, struct entry *key,
			struct entry *self, const struct shape *x, uint64_t period, uint64_t count,
			bool pass, char prev_mode)
{
	const struct where **wh = h->scr->wheres;
	struct entry **ents = h->scr->ents;
	int n = tally__hist_brhist_chain(h, x, wh), err;

	for (int i = 0; h->children && i < n; i++) {
		const struct where *w = wh[i];

		frame_key(key, w, w->frame.ip, &prev_mode);
		/* perf's node srcline (callchain_srcline): no line known, "+OFF" without the name */
		if (w->sym && w->srcline) {
			size_t l = strlen(w->sym);

			if (l <= UINT16_MAX && !strncmp(w->srcline, w->sym, l) && w->srcline[l] == '+')
				key->srcline_skip = (uint16_t)l;
		}
		if ((err = add(h, hs, key, period, false, pass, &ents[i])))
			return err;
	}
	return n < 0 ? n : tally__hist_brhist_add(h, self, h->children ? ents : NULL, wh, n, period, count);
}

/*
 * Frame i of x's chain as functions (fw, innermost first: inlined ones,
 * then the symbol's): from its kept answer where the shape has one. The
 * count, 0 without memory.
 */
static int shape_frames(struct tally_hist *h, const struct shape *x, uint32_t i,
			enum tally_cpumode mode, uint32_t uw, struct where **fw)
{
	return x->wh[i] ? tally__resolver_where_frames(h->res, x->wh[i], i > uw, fw) :
	       tally__resolver_frames(h->res, x->pid, x->tid, x->ips[i], mode, i > uw, fw);
}

/*
 * A chain of more than CHAIN_MAX frames: its entries' share, walking it
 * again (hist_shape kept only the first frames), and its call graphs by
 * graph_shape, which keeps the root's end.
 */
int tally__hist_graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count);

static int frames_long(struct tally_hist *h, const struct shape *x, struct entry *key,
		       uint64_t period, uint64_t count, bool pass, char prev_mode, bool graph)
{
	enum tally_cpumode *modes = h->scr->modes;
	struct hist_ev *hs = &h->ev[x->idx];
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);
	int err;

	for (uint32_t k = 0; h->children && k < x->nr; k++) {
		uint32_t i = h->caller ? x->nr - 1 - k : k;
		uint64_t ip = x->ips[i];
		struct where *fw[INL_MAX];
		struct entry *e;
		int nf;

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		nf = shape_frames(h, x, i, modes[i], uw, fw);
		if (!nf)
			return -ENOMEM;
		for (int j = 0; j < nf; j++) {
			frame_key(key, fw[h->caller ? nf - 1 - j : j], ip, &prev_mode);
			if ((err = add(h, hs, key, period, false, pass, &e)))
				return err;
		}
	}
	return graph ? tally__hist_graph_shape(h, x, period, count) : 0;
}

/*
 * With graph (the trees' walk fused with the counts': graph_shape would
 * resolve and find every frame's entry again), also its share in the call
 * graphs.
 */
int tally__hist_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count,
		      bool graph)
{
	/* the chain's frames and their entries in the walk's order (the trees keep the frames) */
	const struct tally_hist_frame **gframes = h->scr->frames;
	struct entry **gents = h->scr->ents;
	enum tally_cpumode *modes = h->scr->modes;
	struct entry *self;
	size_t n = 0;
	struct hist_ev *hs = &h->ev[x->idx];
	struct entry key = { .comm = x->comm, .trace = x->trace, .pid = x->pid, .tid = x->tid,
			     .cpu = x->cpu, .socket = hist_socket(h, x->cpu), .m = x->m };
	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	const struct where *w;
	char prev_mode;
	bool pass;
	int err;

	h->sample_no++;
	if (key.comm != h->last_comm) {
		h->last_comm = key.comm;
		h->last_comm_hash = tally_fnv_str(ENTRY_SEED, key.comm);
	}
	key.comm_hash = h->last_comm_hash;
	tally__chain_modes(&smp, modes);
	if (h->has_parent)
		key.parent = find_parent(h, x, modes);
	w = branch_ends(h, x, &key);
	if (!w)
		return -ENOMEM;
	key_where(&key, w);
	if (h->branch)	/* perf's al->level there: the sample's */
		key.mode = x->mode == TALLY_CPUMODE_KERNEL || x->mode == TALLY_CPUMODE_GUEST_KERNEL ? 'k' : '.';
	if (h->need_daddr && !(key.dw = tally__resolver_get(h->dres, x->pid, x->tid, x->m->addr, x->mode)))
		return -ENOMEM;
	if (h->need_iaddr && !(key.iw = iaddr_where(h, x)))
		return -ENOMEM;
	/* perf's -c tests the name the thread had then, whatever it shows later */
	key.comm = x->comm0;
	pass = shown(h, &key);
	key.comm = x->comm;
	h->cur_count = count;
	h->cur_mode = (enum tally_cpumode)x->mode;
	h->cur_comm0 = x->comm0;
	if ((err = add(h, hs, &key, period, true, pass, &self)))
		return err;
	prev_mode = w->mode;
	if (!h->children && !graph)
		return 0;
	if (h->branch_history)	/* the walk is the branch stack's, then the chain's */
		return brhist_shape(h, hs, &key, self, x, period, count, pass, prev_mode);
	/*
	 * Callers' share, walking the chain as perf's --children does
	 * (from the root in its default caller order). The chain's first
	 * frame is the ip itself: a resolved one lands on the entry above
	 * (counted once per sample); an unresolved one is keyed by its
	 * absolute ip there, so it is an entry of its own, as in perf.
	 */
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);
	const struct where **fws = h->scr->wheres;
	uint64_t *fips = h->scr->ips, *hvs = h->scr->hashes;

	/* the frames in the walk's order (in perf's cursor order: root first unless callee order) */
	for (uint32_t k = 0; k < x->nr; k++) {
		uint32_t i = h->caller ? x->nr - 1 - k : k;
		uint64_t ip = x->ips[i];
		struct where *fw[INL_MAX];
		int nf;

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		nf = shape_frames(h, x, i, modes[i], uw, fw);
		if (!nf)
			return -ENOMEM;
		for (int j = 0; j < nf; j++, n++)
			if (n < CHAIN_MAX) {
				fws[n] = fw[h->caller ? nf - 1 - j : j];
				fips[n] = ip;
			}
	}
	if (n > CHAIN_MAX)	/* graph_shape keeps the root's end of so long a chain */
		return frames_long(h, x, &key, period, count, pass, prev_mode, graph);
	/*
	 * Their entries' buckets fetched together, then their first entries:
	 * a frame's lookup was two misses in a row (bucket, entry), a fifth
	 * of a big report's time.
	 */
	if (h->children) {
		char pm = prev_mode;

		for (size_t k = 0; k < n; k++) {
			frame_key(&key, fws[k], fips[k], &pm);
			hvs[k] = hash_entry(h, &key);
			__builtin_prefetch(&hs->tab[hvs[k] & (hs->nbuckets - 1)]);
		}
		for (size_t k = 0; k < n; k++) {
			const struct entry *e = hs->tab[hvs[k] & (hs->nbuckets - 1)];

			if (e)
				__builtin_prefetch(&e->hash);
		}
	}
	for (size_t k = 0; k < n; k++) {
		struct entry *e = NULL;

		if (h->children) {
			frame_key(&key, fws[k], fips[k], &prev_mode);
			if ((err = add_hv(h, hs, &key, hvs[k], period, false, pass, &e)))
				return err;
		}
		gframes[k] = &fws[k]->frame;
		gents[k] = e;
	}
	if (!graph)
		return 0;
	return graph_note(h, x->idx, self, gframes, gents, n, period, count);
}

/* Every shape's share not yet in the rows (fused: its call graphs' too). */
int tally__hist_shapes_in(struct tally_hist *h, bool fused)
{
	int err = 0;

	for (size_t i = 0; i < h->nshapes && !err; i++) {
		struct shape *x = h->shapes[i];

		/*
		 * the shapes and the wheres their keys read lie anywhere: a
		 * shape 8 ahead fetched, then the wheres of the one 4 ahead
		 */
		if (i + 8 < h->nshapes) {
			__builtin_prefetch(h->shapes[i + 8]);
			__builtin_prefetch(&h->shapes[i + 8]->wh);
		}
		if (i + 4 < h->nshapes) {
			const struct shape *y = h->shapes[i + 4];

			for (uint32_t k = 0; k < y->nr && k < 16; k++)
				if (y->wh[k]) {
					__builtin_prefetch(y->wh[k]);
					__builtin_prefetch(&y->wh[k]->addr);
				}
			if (y->wh[y->key_nr]) {
				__builtin_prefetch(y->wh[y->key_nr]);
				__builtin_prefetch(&y->wh[y->key_nr]->addr);
			}
		}
		if (x->count != x->rows_count)
			err = tally__hist_shape(h, x, x->period - x->rows_period, x->count - x->rows_count,
					 fused);
	}
	return err;
}

/*
 * A shape's share in the call graphs (period and count not yet there)
 * apart from its counts' (hist_shape): with the parent key, or a chain
 * of more than CHAIN_MAX frames (its root's end kept). Its frames and
 * entries are found again, for graph_note.
 */
int tally__hist_graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count)
{
	/* the frames are the resolver's wheres': the trees keep pointers to them */
	const struct tally_hist_frame **frames = h->scr->frames, **rev = h->scr->rev;
	struct entry **ents = h->scr->ents, **walk_ents = h->scr->walk_ents;
	enum tally_cpumode *modes = h->scr->modes;
	const struct where **wheres = h->scr->wheres;

	struct tally_sample smp = { .callchain = { .nr = x->nr, .ips = x->ips } };
	struct hist_ev *hs = &h->ev[x->idx];
	struct entry key = { .comm = x->comm, .comm_hash = tally_fnv_str(ENTRY_SEED, x->comm),
			     .trace = x->trace, .pid = x->pid, .tid = x->tid, .cpu = x->cpu,
			     .socket = hist_socket(h, x->cpu), .m = x->m };
	struct entry *self;
	const struct where *w = branch_ends(h, x, &key);
	size_t n = 0;
	char prev_mode;

	if (!w)
		return -ENOMEM;
	key_where(&key, w);
	if (h->branch)
		key.mode = x->mode == TALLY_CPUMODE_KERNEL || x->mode == TALLY_CPUMODE_GUEST_KERNEL ? 'k' : '.';
	if (h->need_daddr && !(key.dw = tally__resolver_get(h->dres, x->pid, x->tid, x->m->addr, x->mode)))
		return -ENOMEM;
	if (h->need_iaddr && !(key.iw = iaddr_where(h, x)))
		return -ENOMEM;
	self = hist_find(h, hs, &key);
	if (h->branch_history)
		return tally__hist_brhist_note(h, self, x, period, count);
	prev_mode = w->mode;
	tally__chain_modes(&smp, modes);
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);

	/* frames root first, with each one's entry */
	for (uint32_t i = x->nr; i > 0; i--) {
		uint64_t ip = x->ips[i - 1];
		struct where *fw[INL_MAX];
		int nf;

		if (ip >= PERF_CONTEXT_MAX)
			continue;
		nf = shape_frames(h, x, i - 1, modes[i - 1], uw, fw);
		if (!nf)
			break;
		/* root first: an address's outermost function before those inlined in it */
		for (int j = nf - 1; j >= 0 && n < CHAIN_MAX; j--) {
			frames[n] = &fw[j]->frame;
			wheres[n++] = fw[j];
		}
	}
	if (!self || !n)
		return 0;
	/* each frame's entry, keyed in the walk's order (as hist_shape) */
	for (size_t k = 0; h->children && k < n; k++) {
		size_t i = h->caller ? k : n - 1 - k;

		frame_key(&key, wheres[i], frames[i]->ip, &prev_mode);
		ents[i] = hist_find(h, hs, &key);
	}
	/* caller order shows root first; callee order leaf first: the walk's order */
	for (size_t i = 0; i < n; i++)
		rev[i] = frames[n - 1 - i];
	for (size_t k = 0; h->children && k < n; k++)
		walk_ents[k] = ents[h->caller ? k : n - 1 - k];
	return graph_note(h, x->idx, self, h->caller ? frames : rev, walk_ents, n, period, count);
}

/*
 * The adds of a shape's chain, frames[0..n-1] in the walk's (display)
 * order: the row's own entry gets the whole chain; with children each
 * entry of ents (NULL: none there, or not that entry's first time on
 * the chain) gets the chain from its frame on. Entries whose share is
 * under min get nothing.
 */
static int graph_walk(struct tally_hist *h, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count, uint64_t min)
{
	int err = 0;

	if ((h->children ? self->children : self->self) >= min)
		err = tally__hist_graph_add(&h->nodes, &self->cg, frames, n, period, count,
					    h->address);
	for (size_t k = 0; h->children && k < n && !err; k++)
		if (ents[k] && ents[k]->children >= min)
			err = tally__hist_graph_add(&h->nodes, &ents[k]->cg, frames + k, n - k,
						    period, count, h->address);
	return err;
}

/* Words of a walk's record: self, n, its event, period, count, n frames, n entries. */
#define REC_WORDS(n) (5 + 2 * (n))
/* The records kept at most (words): past it, they are walked at once, whole. */
#define GBUF_MAX ((size_t)4 << 20)

/* A kept walks' block's words (2 MB): a chain of up to CHAIN_MAX frames fits in one. */
#define GBLK_WORDS ((size_t)256 << 10)

void tally__hist_gbuf_free(struct tally_hist *h)
{
	while (h->gbuf) {
		struct gbuf_blk *b = h->gbuf;

		h->gbuf = b->next;
		free(b);
	}
	h->gbuf_last = NULL;
	h->ngbuf = 0;
}

/* One kept walk (rec) into its trees. */
static int replay_rec(struct tally_hist *h, const uint64_t *rec, bool all)
{
	const struct tally_hist_frame **frames = h->scr->replay_frames;
	struct entry **ents = h->scr->replay_ents;
	size_t n = rec[1];
	/* perf's threshold: the event's whole period times the percent, as an integer */
	uint64_t min = all ? 0 : (uint64_t)((double)h->ev[rec[2]].total * (h->graph_min / 100.0));

	for (size_t k = 0; k < n; k++) {
		frames[k] = (const struct tally_hist_frame *)(uintptr_t)rec[5 + k];
		ents[k] = (struct entry *)(uintptr_t)rec[5 + n + k];
	}
	return graph_walk(h, (struct entry *)(uintptr_t)rec[0], frames, ents, n, rec[3], rec[4], min);
}

/* The kept walks, in order: the trees of the entries at or over min of their event's total. */
int tally__hist_graph_replay(struct tally_hist *h, bool all)
{
	int err = 0;

	for (const struct gbuf_blk *b = h->gbuf; b && !err; b = b->next)
		for (size_t i = 0; i < b->used && !err; i += REC_WORDS(b->w[i + 1]))
			err = replay_rec(h, &b->w[i], all);
	tally__hist_gbuf_free(h);
	return err;
}

/*
 * A shape's chain for the call graphs: frames[0..n-1] in the walk's
 * order, each one's entry (ents, with children). What the row order
 * reads of the trees is noted here (graphed, max_depth); the trees are
 * grown now, or, with graph_min, once the counts say which rows show
 * theirs (most of a big profile's rows are under the threshold: three
 * quarters of the adds).
 */
static int graph_note(struct tally_hist *h, int idx, struct entry *self,
		      const struct tally_hist_frame *const *frames, struct entry *const *ents, size_t n,
		      uint64_t period, uint64_t count)
{
	/* each entry of ents at its first place on the chain, NULL elsewhere */
	struct entry **firsts = h->scr->firsts;
	uint64_t walk = ++h->walks;
	uint64_t *rec = NULL;

	if (!self || !n)
		return 0;
	if (h->graph_min > 0) {
		if (h->ngbuf + REC_WORDS(n) > GBUF_MAX) {
			int err = tally__hist_graph_replay(h, true);	/* so much kept: the trees whole, in order */

			if (err)
				return err;
		}
		struct gbuf_blk *b = h->gbuf_last;

		if (!b || b->cap - b->used < REC_WORDS(n)) {
			size_t cap = REC_WORDS(n) > GBLK_WORDS ? REC_WORDS(n) : GBLK_WORDS;

			if (!(b = malloc(sizeof(*b) + cap * sizeof(uint64_t))))
				return -ENOMEM;
			b->next = NULL;
			b->used = 0;
			b->cap = cap;
			if (h->gbuf_last)
				h->gbuf_last->next = b;
			else
				h->gbuf = b;
			h->gbuf_last = b;
		}
		rec = &b->w[b->used];
		b->used += REC_WORDS(n);
		rec[0] = (uint64_t)(uintptr_t)self;
		rec[1] = n;
		rec[2] = (uint64_t)idx;
		rec[3] = period;
		rec[4] = count;
		for (size_t k = 0; k < n; k++)
			rec[5 + k] = (uint64_t)(uintptr_t)frames[k];
		h->ngbuf += REC_WORDS(n);
	}
	self->graphed = true;
	self->walk = walk;
	if (n > self->max_depth)
		self->max_depth = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		struct entry *e = h->children ? ents[k] : NULL;

		firsts[k] = NULL;
		if (!e || e->walk == walk)
			continue;
		e->walk = walk;
		e->graphed = true;
		if (n - k > e->max_depth)
			e->max_depth = (uint32_t)(n - k);
		firsts[k] = e;
	}
	if (!rec)
		return graph_walk(h, self, frames, firsts, n, period, count, 0);
	for (size_t k = 0; k < n; k++)
		rec[5 + n + k] = (uint64_t)(uintptr_t)firsts[k];
	return 0;
}

/* ---- life ---- */
