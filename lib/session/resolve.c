// SPDX-License-Identifier: MIT
/*
 * A table in front of the symbol code: report and its exports meet the
 * same few thousand addresses millions of times.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resolve_internal.h"
#include "strpool.h"
#include "symbols_internal.h"

struct resolver_ent {
	uint64_t ip;
	int32_t pid;
	int8_t mode;
	bool used;
	bool touched;			/* asked for since the last sweep: in a hit's line */
	bool inl_done;			/* inl looked up */
	uint8_t ninl;			/* frames in inl; 0: the address's own alone */
	struct where *inl;
	struct where w;
	struct tally_dso *dso;		/* for the inline lookup */
	uint64_t vaddr;
	/* source lines (tally__resolver_lines): at the address, at a return address's call */
	bool lines_done[2];
	uint8_t nlines[2];
	struct tally_srcline *lines[2];
};

static const char *base(const char *p)
{
	const char *b = strrchr(p, '/');

	return b ? b + 1 : p;
}

/* The DSO column's name: the file's base name; a perf map's "[JIT] tid PID", as perf's dso__set_basename. */
static const char *short_name(struct resolver *r, const char *path)
{
	char buf[64];
	int tid, end = 0;

	/* the prefix first: sscanf for every address of a busy top was 1.5% of it */
	if (!strncmp(path, "/tmp/perf-", 10) &&
	    sscanf(path, "/tmp/perf-%d.map%n", &tid, &end) == 1 && end && !path[end]) {
		snprintf(buf, sizeof(buf), "[JIT] tid %d", tid);
		const char *s = tally__strpool_add(&r->names, buf);

		if (s)
			return s;
	}
	return base(path);
}

/*
 * perf's srcline sort key: "file:line" from the DSO's DWARF (libdw, in
 * process: perf 6.1 forks addr2line), and "??:0" outside any map or in a
 * file on disk without line info (addr2line's answer there: one row for
 * them all); else "sym+offset" (decimal), else "dso[addr]".
 */
static char *srcline_of(const struct tally_addr_info *ai, const char *dso)
{
	const char *file;
	char *out = NULL;
	int line;

	if (!ai->map)
		return strdup("??:0");
	if (ai->dso && !tally_dso__srcline(ai->dso, ai->vaddr, &file, &line)) {
		const char *b = strrchr(file, '/');

		if (asprintf(&out, "%s:%d", b ? b + 1 : file, line) < 0)
			out = NULL;
	} else if (ai->dso && tally_dso__name(ai->dso) && tally_dso__name(ai->dso)[0] == '/') {
		out = strdup("??:0");
	} else if (ai->sym) {
		if (asprintf(&out, "%s+%llu", ai->sym->name, (unsigned long long)ai->sym_off) < 0)
			out = NULL;
	} else if (asprintf(&out, "%s[%llx]", dso, (unsigned long long)ai->vaddr) < 0) {
		out = NULL;
	}
	return out;
}

static uint64_t key_hash(uint64_t ip, int32_t pid, int mode)
{
	return hash_mix(ip ^ ((uint64_t)(uint32_t)pid << 32) ^ (uint64_t)mode);
}

/*
 * A slot: the entry's number + 1 in its low half, its key's hash's high
 * half above: a probe past another key does not read that entry (each
 * entry read was a cache miss: a gcc recording's 87k frames are 16 MB).
 */
static uint64_t slot_val(uint64_t h, uint32_t k)
{
	return (h & 0xffffffff00000000ull) | (k + 1);
}

static uint64_t map_hash(const struct tally_map *m)
{
	return hash_mix(m->start ^ (m->end << 7) ^ m->pgoff ^ (uint64_t)(uintptr_t)m->filename);
}

/* The one copy of map m (NULL without memory). */
static const struct where_map *map_copy(struct resolver *r, const struct tally_map *m)
{
	uint8_t bsz = m->build_id_size < TALLY_BUILD_ID_MAX ? m->build_id_size : TALLY_BUILD_ID_MAX;
	struct where_map *c;
	size_t b;

	if (r->nmaps >= r->maps_size) {
		size_t n = r->maps_size ? r->maps_size * 2 : 256;
		struct where_map **v = calloc(n, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t i = 0; i < r->maps_size; i++)
			while ((c = r->maps[i])) {
				struct tally_map k = { .start = c->start, .end = c->end, .pgoff = c->pgoff,
						       .filename = c->path };

				r->maps[i] = c->next;
				b = map_hash(&k) & (n - 1);
				c->next = v[b];
				v[b] = c;
			}
		free(r->maps);
		r->maps = v;
		r->maps_size = n;
	}
	b = map_hash(m) & (r->maps_size - 1);
	for (c = r->maps[b]; c; c = c->next)
		if (c->start == m->start && c->end == m->end && c->pgoff == m->pgoff &&
		    c->path == m->filename && c->kernel == m->kernel && c->build_id_size == bsz &&
		    !memcmp(c->build_id, m->build_id, bsz))
			return c;
	if (!(c = calloc(1, sizeof(*c))))
		return NULL;
	c->path = m->filename;
	c->dso = m->kernel && !strncmp(m->filename, "[kernel.kallsyms]", 17) ?
		 "[kernel.kallsyms]" : short_name(r, m->filename);
	/*
	 * perf reading a file makes each DSO at its first MMAP, the kernel's
	 * too (perf_event__process_mmap: not before the events); a kernel
	 * map no MMAP named (ranked 0) stays below the others
	 */
	c->rank = r->file_rank(r->ss, m->filename);
	c->start = m->start;
	c->end = m->end;
	c->pgoff = m->pgoff;
	c->kernel = m->kernel;
	c->build_id_size = bsz;
	memcpy(c->build_id, m->build_id, bsz);
	c->next = r->maps[b];
	r->maps[b] = c;
	r->nmaps++;
	return c;
}

#define BLK 256	/* entries per block */

static struct resolver_ent *ent(const struct resolver *r, uint32_t k)
{
	return &r->blk[k / BLK][k % BLK];
}

/* The entries in use into t, a zeroed table of n slots (the swept ones are on the free list). */
static void fill(const struct resolver *r, uint64_t *t, size_t n)
{
	for (uint32_t k = 0; k < r->used; k++) {
		const struct resolver_ent *e = ent(r, k);
		uint64_t h = key_hash(e->ip, e->pid, e->mode);
		size_t i = h & (n - 1);

		if (!e->used)
			continue;
		while (t[i])
			i = (i + 1) & (n - 1);
		t[i] = slot_val(h, k);
	}
}

static int grow(struct resolver *r)
{
	size_t n = r->size ? r->size * 2 : 1 << 10;
	uint64_t *nt = calloc(n, sizeof(*nt));

	if (!nt)
		return -1;
	fill(r, nt, n);
	free(r->slots);
	r->slots = nt;
	r->size = n;
	return 0;
}

struct where *tally__resolver_get(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
			   enum tally_cpumode mode)
{
	struct resolver_ent *e;
	struct tally_addr_info ai;
	uint64_t h = key_hash(ip, pid, mode), tag = h & 0xffffffff00000000ull;
	uint32_t k;
	size_t i;

	if (!r->size && grow(r))
		return NULL;
	for (i = h & (r->size - 1); r->slots[i]; i = (i + 1) & (r->size - 1)) {
		if ((r->slots[i] & 0xffffffff00000000ull) != tag)
			continue;
		e = ent(r, (uint32_t)r->slots[i] - 1);
		if (e->ip == ip && e->pid == pid && e->mode == (int8_t)mode) {
			e->touched = true;
			return &e->w;
		}
	}
	if (r->live * 2 >= r->size) {
		if (grow(r))
			return NULL;
		for (i = h & (r->size - 1); r->slots[i]; i = (i + 1) & (r->size - 1))
			;
	}
	if (r->free) {
		k = r->free - 1;
		e = ent(r, k);
		r->free = (uint32_t)e->ip;	/* a free entry's ip links the next */
	} else {
		if (r->used == r->nblk * BLK) {
			struct resolver_ent **v = realloc(r->blk, (r->nblk + 1) * sizeof(*v));

			if (!v)
				return NULL;
			r->blk = v;
			if (!(v[r->nblk] = calloc(BLK, sizeof(**v))))
				return NULL;
			r->nblk++;
		}
		k = (uint32_t)r->used++;
		e = ent(r, k);
	}
	r->slots[i] = slot_val(h, k);
	r->live++;
	e->used = true;
	e->touched = true;
	e->ip = ip;
	e->pid = pid;
	e->mode = (int8_t)mode;
	tally_symbols__resolve(r->syms, r->m, pid, tid, ip, mode, &ai);
	e->w.mode = mode == TALLY_CPUMODE_KERNEL || mode == TALLY_CPUMODE_GUEST_KERNEL ? 'k' : '.';
	if (ai.map) {
		if (!(e->w.map = map_copy(r, ai.map))) {
			r->slots[i] = 0;	/* not there: asked again next time */
			r->live--;
			memset(e, 0, sizeof(*e));
			e->ip = r->free;
			r->free = k + 1;
			return NULL;
		}
		e->w.dso = e->w.map->dso;
		if (ai.map->kernel)
			e->w.mode = 'k';
	}
	e->w.dso_id = ai.map ? ai.dso : NULL;
	e->w.ip = ip;
	e->w.frame_mapped = e->w.dso_id != NULL;
	e->dso = ai.map && !ai.map->kernel && ai.sym ? ai.dso : NULL;
	/*
	 * perf 6.1 asks addr2line for the objdump address (map__rip_2objdump):
	 * the ELF one in a non-PIE executable, the map-relative one (equal to
	 * it in the usual layouts) elsewhere.
	 */
	e->vaddr = ai.vaddr;
	e->w.dso_rank = ai.map ? e->w.map->rank : 0;
	e->w.sym = ai.sym ? ai.sym->name : NULL;
	e->w.sym_start = ai.sym ? ai.sym->start : 0;
	e->w.sym_size = ai.sym && ai.sym->end > ai.sym->start ? (uint32_t)(ai.sym->end - ai.sym->start) : 0;
	/* a kernel map shows the address itself (a KSYMBOL map's map_ip is an offset), as perf */
	e->w.addr = ai.map && !ai.map->ksym ? ai.map_ip : ip;
	e->w.object = ai.sym && ai.sym->object;
	if (e->w.object && ai.map)
		e->w.object_off = ai.sym_off + ai.map->pgoff - ai.map->start;
	if (ai.sym)
		e->w.object_symoff = ai.sym_off;
	e->w.dso_hash = tally__fnv_str(FNV_BASIS, e->w.dso);
	e->w.sym_hash = tally__fnv_str(FNV_BASIS, e->w.sym);
	if (r->srcline) {
		e->w.srcline = srcline_of(&ai, e->w.dso ? e->w.dso : "[unknown]");
		r->owning = true;
		e->w.srcline_hash = tally__fnv_str(FNV_BASIS, e->w.srcline);
	}
	return &e->w;
}

/* What an entry holds besides itself. */
static void ent_release(struct resolver_ent *e)
{
	/* most hold nothing: a free(NULL) each was most of a session's close */
	if (e->w.srcline)
		free(e->w.srcline);
	if (e->inl) {
		for (int k = 0; k < e->ninl; k++)
			free(e->inl[k].srcline);
		free(e->inl);
	}
	if (e->lines[0] || e->lines[1]) {
		free(e->lines[0]);
		free(e->lines[1]);
	}
}

/* drop: the entries to let go (k: a sweep's, t: a trim's, u: those of unloaded tables) */
static size_t sweep(struct resolver *r, char mode)
{
	size_t gone = 0;

	for (uint32_t k = 0; k < r->used; k++) {
		struct resolver_ent *e = ent(r, k);
		bool keep;

		if (!e->used)
			continue;
		if (mode == 'u') {
			keep = !tally__dso_unloaded(e->w.dso_id);
		} else {
			keep = e->touched || e->w.held;
			e->touched = e->w.held = false;
			for (int j = 0; j < e->ninl; j++) {
				keep |= e->inl[j].held;
				e->inl[j].held = false;
			}
			/* a kept answer is a use of its file's table: the symbols' cache keeps the used */
			if (keep && mode == 't' && e->w.dso_id)
				tally__symbols_touch(r->syms, (struct tally_dso *)e->w.dso_id);
		}
		if (keep)
			continue;
		ent_release(e);
		memset(e, 0, sizeof(*e));
		e->ip = r->free;
		r->free = k + 1;
		r->live--;
		gone++;
	}
	if (gone) {
		/* open addressing has no deletes: the table is made again, in place, from what stays */
		memset(r->slots, 0, r->size * sizeof(*r->slots));
		fill(r, r->slots, r->size);
	}
	return gone;
}

size_t tally__resolver_sweep(struct resolver *r)
{
	return sweep(r, 'k');
}

/* The maps' copies no entry points at any more (a process gone: its maps at its own addresses). */
static void maps_sweep(struct resolver *r)
{
	for (uint32_t k = 0; k < r->used; k++) {
		struct resolver_ent *e = ent(r, k);

		if (e->used && e->w.map)
			((struct where_map *)e->w.map)->held = true;
	}
	for (size_t i = 0; i < r->maps_size; i++)
		for (struct where_map **p = &r->maps[i]; *p;) {
			struct where_map *c = *p;

			if (c->held) {
				c->held = false;
				p = &c->next;
				continue;
			}
			*p = c->next;
			free(c);
			r->nmaps--;
		}
}

size_t tally__resolver_trim(struct resolver *r)
{
	size_t gone = sweep(r, 't');

	if (gone)
		maps_sweep(r);
	return gone;
}

size_t tally__resolver_forget_unloaded(struct resolver *r)
{
	size_t gone = sweep(r, 'u');

	if (gone)
		maps_sweep(r);
	return gone;
}

void tally__resolver_free(struct resolver *r)
{
	for (uint32_t i = 0; i < r->used && r->owning; i++)
		ent_release(ent(r, i));
	r->owning = false;
	for (size_t b = 0; b < r->nblk; b++)
		free(r->blk[b]);
	free(r->blk);
	free(r->slots);
	for (size_t i = 0; i < r->maps_size; i++)
		while (r->maps[i]) {
			struct where_map *c = r->maps[i];

			r->maps[i] = c->next;
			free(c);
		}
	free(r->maps);
	r->maps = NULL;
	r->nmaps = r->maps_size = 0;
	r->blk = NULL;
	r->slots = NULL;
	r->size = r->used = r->nblk = r->live = 0;
	r->free = 0;
	tally__strpool_free(&r->names);
}

/* "name (inlined)", one copy per name. */
static const char *inl_name(struct resolver *r, const char *name)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s (inlined)", name);
	return tally__strpool_add(&r->names, buf);
}

/* The inline frames of e, looked up once. */
static void inl_lookup(struct resolver *r, struct resolver_ent *e)
{
	const char *names[INL_MAX];
	int n;

	e->inl_done = true;
	if (r->no_inline || !e->dso || !e->w.sym ||
	    (n = tally_dso__inline_funcs(e->dso, e->vaddr, names, INL_MAX)) <= 0)
		return;
	if (n == 1 && !strcmp(names[0], e->w.sym))
		return;		/* nothing inlined: the address's own frame */
	r->owning = true;
	if (!(e->inl = calloc((size_t)n, sizeof(*e->inl))))
		return;
	for (int k = 0; k < n; k++) {
		struct where *w = &e->inl[k];

		*w = e->w;
		w->srcline = e->w.srcline ? strdup(e->w.srcline) : NULL;
		if (!strcmp(names[k], e->w.sym))
			continue;
		w->sym = inl_name(r, names[k]);
		if (!w->sym) {
			w->sym = e->w.sym;
			continue;
		}
		w->inlined = true;
		w->sym_hash = tally__fnv_str(FNV_BASIS, w->sym);
	}
	e->ninl = (uint8_t)n;
}

int tally__resolver_frames(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
		    enum tally_cpumode mode, bool unwound, struct where **out)
{
	return tally__resolver_where_frames(r, tally__resolver_get(r, pid, tid, ip, mode), unwound,
					    out);
}

int tally__resolver_where_frames(struct resolver *r, struct where *w, bool unwound,
				 struct where **out)
{
	struct resolver_ent *e;

	if (!w)
		return 0;
	if (!unwound) {
		out[0] = w;
		return 1;
	}
	e = (struct resolver_ent *)((char *)w - offsetof(struct resolver_ent, w));
	if (!e->inl_done)
		inl_lookup(r, e);
	if (!e->ninl) {
		out[0] = w;
		return 1;
	}
	for (int k = 0; k < e->ninl; k++)
		out[k] = &e->inl[k];
	return e->ninl;
}

uint32_t tally__chain_unwound_at(const uint64_t *ips, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (ips[i] == TALLY_CONTEXT_UNWOUND)
			return i;
	return nr;
}

void tally__chain_modes(const struct tally_sample *smp, enum tally_cpumode *modes)
{
	enum tally_cpumode m = TALLY_CPUMODE_USER;

	for (uint64_t i = 0; i < smp->callchain.nr && i < CHAIN_MAX; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX)
			m = ip == PERF_CONTEXT_KERNEL ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
		modes[i] = m;
	}
}

int tally__resolver_lines(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
		   enum tally_cpumode mode, bool ret, const struct tally_srcline **out)
{
	struct where *w = tally__resolver_get(r, pid, tid, ip, mode);
	struct tally_srcline v[INL_MAX];
	struct resolver_ent *e;
	int n;

	if (!w)
		return 0;
	e = (struct resolver_ent *)((char *)w - offsetof(struct resolver_ent, w));
	if (!e->lines_done[ret]) {
		e->lines_done[ret] = true;
		/* a return address is the instruction after its call: the call's line is before it */
		n = e->dso ? tally_dso__srcline_inlines(e->dso, e->vaddr - ret, v, INL_MAX) : 0;
		r->owning = true;
		if (n > 0 && (e->lines[ret] = malloc((size_t)n * sizeof(*v)))) {
			memcpy(e->lines[ret], v, (size_t)n * sizeof(*v));
			e->nlines[ret] = (uint8_t)n;
		}
	}
	*out = e->lines[ret];
	return e->nlines[ret];
}
