// SPDX-License-Identifier: MIT
/*
 * The merged rows as a perf.data in memory, for a session to run as it
 * runs a recording: one attr per event, a COMM per thread, an MMAP2 per
 * process and DSO (with its build id) at an address range of its own,
 * and a sample per row whose WEIGHT is the row's samples and PERIOD their
 * periods' sum (tally_hist__add_count takes the two). Frames resolve
 * through function tables the profile gives the session's symbols
 * (tally_symbols__set_table), so the names are the agent's (or names.c's)
 * and no file of this host is read for them:
 *  - a user frame: its DSO's range + its file offset; a DSO path stored
 *    with two builds gets two ranges whose file offsets differ by the
 *    build's window (pgoff), one table for the path;
 *  - a kernel frame: a slot per function name (the hosts' kernels differ,
 *    KASLR moves them: by name they merge), the slot + its offset in the
 *    function; a module's in a range of the module's (its map's file the
 *    stored one, as report -i shows it); unnamed, its own address;
 *  - no DSO: its own address.
 * Threads keep their pids; a pid two hosts used gets a number of its own
 * for the second (a thread's name and maps are per host). Rows merged
 * across hosts (no pids) get a process per name, a thread per name in it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <tally/data_write.h>
#include <tally/session.h>
#include "internal.h"
#include "store_internal.h"
#include "read_internal.h"
#include "symbols_internal.h"

#define USER_BASE 0x2000000000000000ull
#define OBJ_SHIFT 40			/* a DSO's range: 1 TB of file offsets */
#define KBASE 0xfe00000000000000ull
#define MBASE 0xfd00000000000000ull	/* kernel modules: a range each below the kernel's */
#define MOD_SHIFT 40
#define KSLOT_SHIFT 24			/* a kernel function's slot: 16 MB */
#define KEND 0xffffffffffff0000ull
#define SYNTH_PID 0x40000000u		/* the first number given to a pid two hosts used */
#define MAX_FRAMES 1024
#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | \
		     PERF_SAMPLE_WEIGHT)

/* An open-addressed map of u64 keys (never 0: callers add 1) to u64 values. */
struct u64map {
	uint64_t *k, *v;
	size_t n, cap;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The value slot of key (added, value 0, when new: *fresh); NULL without memory. */
static uint64_t *map_get(struct u64map *m, uint64_t key, bool *fresh)
{
	size_t i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		uint64_t *k = calloc(cap, sizeof(*k)), *v = calloc(cap, sizeof(*v));

		if (!k || !v) {
			free(k);
			free(v);
			return NULL;
		}
		for (size_t j = 0; j < m->cap; j++)
			if (m->k[j]) {
				for (i = mix(m->k[j]) & (cap - 1); k[i]; i = (i + 1) & (cap - 1))
					;
				k[i] = m->k[j];
				v[i] = m->v[j];
			}
		free(m->k);
		free(m->v);
		m->k = k;
		m->v = v;
		m->cap = cap;
	}
	for (i = mix(key) & (m->cap - 1); m->k[i]; i = (i + 1) & (m->cap - 1))
		if (m->k[i] == key) {
			*fresh = false;
			return &m->v[i];
		}
	m->k[i] = key;
	m->v[i] = 0;
	m->n++;
	*fresh = true;
	return &m->v[i];
}

static void map_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
}

/* A DSO of a build: its range and window. */
struct obj {
	const char *dso, *bid;
	uint64_t start, pgoff;
	size_t table;
};

struct writer {
	struct tally_store_profile *p;
	struct tally__buf b;
	struct u64map ids;		/* (host, pid) -> the session's pid */
	struct u64map taken;		/* pids given */
	struct u64map objs;		/* (dso, build) -> obj + 1 */
	struct u64map kslots;		/* kernel function name (and module) -> slot + 1 */
	struct u64map mods;		/* module (its stored path) -> index + 1, table << 32 */
	struct tally__buf kmaps;	/* the modules' maps */
	uint64_t nmods;
	struct u64map maps;		/* (session pid, obj) mapped */
	struct obj *obj;
	size_t nobj, cap_obj;
	uint64_t next_pid, nslots;
	size_t ktable;			/* the kernel's table + 1 (0: none yet) */
	const char *events[64];
	int nev;
};

static int table_of(struct tally_store_profile *p, const char *name, size_t *out)
{
	for (size_t i = 0; i < p->ntables; i++)
		if (p->tables[i].name == name) {
			*out = i;
			return 0;
		}
	struct store_table *t = realloc(p->tables, (p->ntables + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	p->tables = t;
	t[p->ntables] = (struct store_table){ .name = name };
	*out = p->ntables++;
	return 0;
}

static int table_add(struct store_table *t, uint64_t start, uint64_t end, const char *name)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct tally_symbol *v = realloc(t->syms, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->syms = v;
		t->cap = cap;
	}
	t->syms[t->n++] = (struct tally_symbol){ .start = start, .end = end, .name = name };
	return 0;
}

/* the frame's "file.c:12" at addr, where it has one */
static int line_add(struct store_table *t, uint64_t addr, const char *srcline)
{
	const char *colon = strrchr(srcline, ':');
	char *end;
	long line;

	if (!colon || colon == srcline || !colon[1])
		return 0;
	line = strtol(colon + 1, &end, 10);
	if (*end || line < 0)
		return 0;
	if (t->nlines == t->cap_lines) {
		size_t cap = t->cap_lines ? t->cap_lines * 2 : 64;
		struct tally_symbol_line *v = realloc(t->lines, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->lines = v;
		t->cap_lines = cap;
	}
	/* the file's name cut at its colon, in the table's own copy (set_lines copies it) */
	char *f = strndup(srcline, (size_t)(colon - srcline));

	if (!f)
		return -ENOMEM;
	t->lines[t->nlines++] = (struct tally_symbol_line){ addr, f, (int)line };
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct tally_symbol *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* One symbol per start, its end the farthest seen (each frame saw part of its function). */
static void table_settle(struct store_table *t)
{
	size_t w = 0;

	qsort(t->syms, t->n, sizeof(*t->syms), cmp_sym);
	for (size_t i = 0; i < t->n; i++) {
		if (w && t->syms[w - 1].start == t->syms[i].start) {
			if (t->syms[i].end > t->syms[w - 1].end)
				t->syms[w - 1].end = t->syms[i].end;
			continue;
		}
		t->syms[w++] = t->syms[i];
	}
	t->n = w;
}

/* The key of two interned pointers */
static uint64_t pkey(const void *a, uint64_t b)
{
	return mix((uint64_t)(uintptr_t)a) ^ (b * 0x9e3779b97f4a7c15ull) ^ 1;
}

/* The session's number for a host's pid or tid. */
static int session_id(struct writer *w, const char *host, uint32_t id, uint32_t *out)
{
	bool fresh;
	uint64_t *v = map_get(&w->ids, pkey(host, id) | 1, &fresh), *t;

	if (!v)
		return -ENOMEM;
	if (fresh) {
		if (!(t = map_get(&w->taken, (uint64_t)id + 1, &fresh)))
			return -ENOMEM;
		if (fresh) {
			*v = id;
		} else {
			*v = w->next_pid++;
			if (!(t = map_get(&w->taken, *v + 1, &fresh)))
				return -ENOMEM;
		}
	}
	*out = (uint32_t)*v;
	return 0;
}

/*
 * A merged row's thread (its name's across hosts and processes): a pid
 * per process name, a tid per (process, thread) name; numbers of the
 * profile's own.
 */
static int merged_ids(struct writer *w, const struct store_row *r, uint32_t *pid, uint32_t *tid)
{
	bool fresh;
	uint64_t *v = map_get(&w->ids, pkey(r->comm, 0) | 1, &fresh), *t;

	if (!v)
		return -ENOMEM;
	if (fresh)
		*v = w->next_pid++;
	*pid = (uint32_t)*v;
	/* the process's own thread: the one named as the process */
	if (r->thread == r->comm || !*r->thread) {
		*tid = *pid;
		return 0;
	}
	if (!(t = map_get(&w->taken, pkey(r->thread, (uint64_t)(uintptr_t)r->comm) | 1, &fresh)))
		return -ENOMEM;
	if (fresh)
		*t = w->next_pid++;
	*tid = (uint32_t)*t;
	return 0;
}

static int obj_of(struct writer *w, const struct store_frame *f, struct obj **out)
{
	bool fresh;
	uint64_t *v = map_get(&w->objs, pkey(f->dso, (uint64_t)(uintptr_t)f->build_id), &fresh);
	uint64_t builds = 0;
	struct obj *o;

	if (!v)
		return -ENOMEM;
	if (!fresh) {
		*out = &w->obj[*v - 1];
		return 0;
	}
	if (w->nobj == w->cap_obj) {
		size_t cap = w->cap_obj ? w->cap_obj * 2 : 64;

		if (!(o = realloc(w->obj, cap * sizeof(*o))))
			return -ENOMEM;
		w->obj = o;
		w->cap_obj = cap;
	}
	for (size_t i = 0; i < w->nobj; i++)
		builds += w->obj[i].dso == f->dso;
	o = &w->obj[w->nobj];
	*o = (struct obj){ .dso = f->dso, .bid = f->build_id,
			   .start = USER_BASE + ((uint64_t)w->nobj << OBJ_SHIFT),
			   .pgoff = builds << OBJ_SHIFT };
	if (table_of(w->p, f->dso, &o->table))
		return -ENOMEM;
	*v = ++w->nobj;
	*out = o;
	return 0;
}

static void put_hdr(struct tally__buf *b, uint32_t type, uint16_t misc, uint16_t size);
static void put_sid(struct tally__buf *b, uint32_t pid, uint32_t tid);
static size_t pad8(size_t n);

/* A module's range (its map, from pid -1, made at its first frame) and its table. */
static int module_of(struct writer *w, const char *dso, uint64_t *base, size_t *table)
{
	bool fresh;
	uint64_t *v = map_get(&w->mods, pkey(dso, 7), &fresh);
	char name[256];
	size_t n = strlen(dso), sz = 8 + 8 + 24 + pad8(n) + 24;
	int err;

	if (!v)
		return -ENOMEM;
	if (fresh) {
		tally__module_name(dso, name, sizeof(name));
		if ((err = table_of(w->p, tally__profile_str(w->p, name), table)))
			return err;
		*v = (++w->nmods) | (uint64_t)*table << 32;
		put_hdr(&w->kmaps, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, (uint16_t)sz);
		tally__buf_u32(&w->kmaps, (uint32_t)-1);
		tally__buf_u32(&w->kmaps, 0);
		tally__buf_u64(&w->kmaps, MBASE + ((w->nmods - 1) << MOD_SHIFT));
		tally__buf_u64(&w->kmaps, 1ull << MOD_SHIFT);
		tally__buf_u64(&w->kmaps, MBASE + ((w->nmods - 1) << MOD_SHIFT));
		tally__buf_add(&w->kmaps, dso, n);
		tally__buf_zero(&w->kmaps, pad8(n) - n);
		put_sid(&w->kmaps, (uint32_t)-1, 0);
	}
	*base = MBASE + (((*v & 0xffffffffu) - 1) << MOD_SHIFT);
	*table = (size_t)(*v >> 32);
	return 0;
}

/*
 * A kernel frame's address: a slot per function name (per module for a
 * module's), its offset in the function within; unnamed, its own
 * address (in the kernel's map, as an unresolved kernel address is).
 */
static int kernel_ip(struct writer *w, const struct store_frame *f, uint64_t *ip)
{
	bool module = *f->dso && strcmp(f->dso, "[kernel.kallsyms]") && *f->func;
	uint64_t base = KBASE, *slot;
	size_t table;
	bool fresh;
	int err;

	if (!w->ktable) {
		if ((err = table_of(w->p, tally__profile_str(w->p, "[kernel.kallsyms]"), &w->ktable)))
			return err;
		w->ktable++;
	}
	table = w->ktable - 1;
	if (!*f->func) {
		*ip = f->offset >= KEND ? KEND - 1 : f->offset < KBASE ? KBASE : f->offset;
		return 0;
	}
	if (module && (err = module_of(w, f->dso, &base, &table)))
		return err;
	if (!(slot = map_get(&w->kslots, pkey(f->func, module ? (uint64_t)(uintptr_t)f->dso : 0),
			     &fresh)))
		return -ENOMEM;
	if (fresh) {
		*slot = ++w->nslots;
		uint64_t s = base + ((*slot - 1) << KSLOT_SHIFT);

		if ((err = table_add(&w->p->tables[table], s, s + (1ull << KSLOT_SHIFT), f->func)))
			return err;
	}
	*ip = base + ((*slot - 1) << KSLOT_SHIFT) +
	      (f->symoff < (1ull << KSLOT_SHIFT) ? f->symoff : (1ull << KSLOT_SHIFT) - 1);
	return 0;
}

/* A frame's address in the profile (its object in *o, NULL for the kernel's or none). */
static int frame_ip(struct writer *w, const struct store_frame *f, uint64_t *ip, struct obj **o)
{
	uint64_t off = f->offset & ((1ull << OBJ_SHIFT) - 1);
	int err;

	*o = NULL;
	if (f->level == 'k')
		return kernel_ip(w, f, ip);
	if (!*f->dso || !strcmp(f->dso, "[unknown]")) {
		*ip = f->offset;
		return 0;
	}
	if ((err = obj_of(w, f, o)))
		return err;
	*ip = (*o)->start + off;
	if (f->srcline && *f->srcline &&
	    (err = line_add(&w->p->tables[(*o)->table], (*o)->pgoff + off, f->srcline)))
		return err;
	if (*f->func)
		return table_add(&w->p->tables[(*o)->table], (*o)->pgoff + off - f->symoff,
				 f->fend > f->fstart ? (*o)->pgoff + f->fend :
						       (*o)->pgoff + off + 1, f->func);
	return 0;
}

static int event_of(struct writer *w, const char *ev)
{
	for (int i = 0; i < w->nev; i++)
		if (w->events[i] == ev)
			return i;
	if (w->nev == (int)(sizeof(w->events) / sizeof(w->events[0])))
		return 0;	/* more kinds than a report shows: the first's */
	w->events[w->nev] = ev;
	return w->nev++;
}

static void put_hdr(struct tally__buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	tally__buf_add(b, &h, sizeof(h));
}

/* sample_id_all's trailer: TID, TIME, IDENTIFIER */
static void put_sid(struct tally__buf *b, uint32_t pid, uint32_t tid)
{
	tally__buf_u32(b, pid);
	tally__buf_u32(b, tid);
	tally__buf_u64(b, 0);
	tally__buf_u64(b, 1);
}

static size_t pad8(size_t n)
{
	return (n + 8) & ~(size_t)7;	/* the string's NUL included */
}

static void put_comm(struct tally__buf *b, uint32_t pid, uint32_t tid, const char *name)
{
	size_t n = strnlen(name, 15), sz = 8 + 8 + pad8(n) + 24;
	char s[24] = { 0 };

	memcpy(s, name, n);
	put_hdr(b, PERF_RECORD_COMM, 0, (uint16_t)sz);
	tally__buf_u32(b, pid);
	tally__buf_u32(b, tid);
	tally__buf_add(b, s, pad8(n));
	put_sid(b, pid, tid);
}

static int unhex(const char *h, uint8_t *id)
{
	size_t n = strlen(h) / 2;

	if (n > 20)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(h + 2 * i, "%2x", &v) != 1)
			return 0;
		id[i] = (uint8_t)v;
	}
	return (int)n;
}

static void put_mmap2(struct tally__buf *b, uint32_t pid, const struct obj *o)
{
	size_t n = strlen(o->dso), sz = 8 + 8 + 24 + 24 + 8 + pad8(n) + 24;
	uint8_t id[24] = { 0 };
	int nid = unhex(o->bid, id);
	char name[4096] = { 0 };

	if (n >= sizeof(name))
		return;
	memcpy(name, o->dso, n);
	put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | (nid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
		(uint16_t)sz);
	tally__buf_u32(b, pid);
	tally__buf_u32(b, pid);
	tally__buf_u64(b, o->start);
	tally__buf_u64(b, 1ull << OBJ_SHIFT);
	tally__buf_u64(b, o->pgoff);
	if (nid) {
		uint8_t head[4] = { (uint8_t)nid, 0, 0, 0 };

		tally__buf_add(b, head, 4);
		tally__buf_add(b, id, 20);
	} else {
		tally__buf_zero(b, 24);	/* maj, min, ino, ino_generation */
	}
	tally__buf_u32(b, 5);		/* PROT_READ | PROT_EXEC */
	tally__buf_u32(b, 2);		/* MAP_PRIVATE */
	tally__buf_add(b, name, pad8(n));
	put_sid(b, pid, pid);
}

static void put_kernel_mmap(struct tally__buf *b)
{
	static const char name[] = "[kernel.kallsyms]_text";
	size_t sz = 8 + 8 + 24 + pad8(sizeof(name) - 1) + 24;
	char s[32] = { 0 };

	memcpy(s, name, sizeof(name) - 1);
	put_hdr(b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, (uint16_t)sz);
	tally__buf_u32(b, (uint32_t)-1);
	tally__buf_u32(b, 0);
	tally__buf_u64(b, KBASE);
	tally__buf_u64(b, KEND - KBASE);
	tally__buf_u64(b, KBASE);	/* perf's pgoff for the kernel: its start (map_ip = ip) */
	tally__buf_add(b, s, pad8(sizeof(name) - 1));
	put_sid(b, (uint32_t)-1, 0);
}

/* The side-band of row r (its thread's COMM, its DSOs' maps) into sb, its sample into out. */
static int put_row(struct writer *w, const struct store_row *r, uint64_t time,
		   struct tally__buf *sb, struct tally__buf *out)
{
	const struct store_stack *st = tally__profile_stack(w->p, r->stack_id);
	size_t n = st ? (st->n > MAX_FRAMES ? MAX_FRAMES : st->n) : 0;
	uint64_t ips[MAX_FRAMES * 2 + 1];
	size_t nips = 0;
	char level = 0;
	uint32_t pid, tid;
	bool fresh;
	uint64_t ip = 0, *seen;
	int err, ev = event_of(w, r->event);

	if (w->p->merged)
		err = merged_ids(w, r, &pid, &tid);
	else if (!(err = session_id(w, r->host, r->pid, &pid)))
		err = session_id(w, r->host, r->tid, &tid);
	if (err)
		return err;
	/* the thread's name, once (its pid's key with the tid's) */
	if (!(seen = map_get(&w->maps, ((uint64_t)tid << 32 | 0xffffffffu) + 1, &fresh)))
		return -ENOMEM;
	if (fresh)
		put_comm(sb, pid, tid, *r->thread ? r->thread : r->comm);
	for (size_t i = 0; i < n; i++) {
		const struct store_frame *f = &w->p->frames[st->first + i];
		struct obj *o;
		uint64_t a;

		if ((err = frame_ip(w, f, &a, &o)))
			return err;
		if (o) {
			if (!(seen = map_get(&w->maps, ((uint64_t)pid << 32 | (uint64_t)(o - w->obj)) + 1,
					     &fresh)))
				return -ENOMEM;
			if (fresh)
				put_mmap2(sb, pid, o);
		}
		if (f->level != level) {
			ips[nips++] = f->level == 'k' ? PERF_CONTEXT_KERNEL : PERF_CONTEXT_USER;
			level = f->level;
		}
		if (!i)
			ip = a;
		ips[nips++] = a;
	}
	size_t sz = 8 + 8 * 5 + 8 + 8 * nips + 8;

	put_hdr(out, PERF_RECORD_SAMPLE,
		n && w->p->frames[st->first].level == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		(uint16_t)sz);
	tally__buf_u64(out, (uint64_t)ev + 1);	/* IDENTIFIER */
	tally__buf_u64(out, ip);
	tally__buf_u32(out, pid);
	tally__buf_u32(out, tid);
	tally__buf_u64(out, time);
	tally__buf_u64(out, r->period);
	tally__buf_u64(out, nips);
	tally__buf_add(out, ips, nips * 8);
	tally__buf_u64(out, r->value);		/* WEIGHT: the samples it stands for */
	return 0;
}

static int cmp_time(const void *a, const void *b)
{
	const struct store_row *x = *(const struct store_row *const *)a;
	const struct store_row *y = *(const struct store_row *const *)b;

	/* as the agent first saw them: interval, then the row's place in its batch */
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int write_file(struct writer *w, const struct tally__buf *sb, const struct tally__buf *smp)
{
	struct tally_data_writer *dw = tally_data_writer__new_fd(w->p->fd, NULL);
	int err = dw ? 0 : -errno;

	for (int i = 0; !err && i < (w->nev ? w->nev : 1); i++) {
		const char *name = w->nev ? w->events[i] : "cpu-clock";
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
			.config = !strcmp(name, "task-clock") ? PERF_COUNT_SW_TASK_CLOCK :
								PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = 1, .sample_type = SAMPLE_TYPE, .sample_id_all = 1,
			/* its kernel is the profile's table: this host's kallsyms is not read */
			.exclude_kernel = 1,
		};
		uint64_t id = (uint64_t)i + 1;

		err = tally_data_writer__add_attr(dw, &a, &id, 1, name);
	}
	if (!err)
		err = tally_data_writer__begin(dw);
	if (!err && w->kmaps.len)
		err = tally_data_writer__write(dw, w->kmaps.p, w->kmaps.len);
	if (!err && sb->len)
		err = tally_data_writer__write(dw, sb->p, sb->len);
	if (!err && smp->len)
		err = tally_data_writer__write(dw, smp->p, smp->len);
	if (!err)
		err = tally_data_writer__finish(dw);
	tally_data_writer__free(dw);
	return err;
}

int tally__profile_write(struct tally_store_profile *p)
{
	struct writer w = { .p = p, .next_pid = SYNTH_PID };
	struct tally__buf sb = { 0 }, smp = { 0 };
	const struct store_row **order = NULL;
	uint64_t last = UINT64_MAX, seq = 0;
	int err = 0;

	if ((p->fd = memfd_create("tally-store-profile", MFD_CLOEXEC)) < 0)
		return -errno;
	snprintf(p->path, sizeof(p->path), "/proc/self/fd/%d", p->fd);
	if (p->nrows && !(order = malloc(p->nrows * sizeof(*order))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nrows; i++)
		order[i] = &p->rows[i];
	/* in time order, as a recording's; the rows of one second apart by a nanosecond */
	if (p->nrows)
		qsort(order, p->nrows, sizeof(*order), cmp_time);
	put_kernel_mmap(&sb);
	for (size_t i = 0; i < p->nrows && !err; i++) {
		seq = order[i]->time == last ? seq + 1 : 0;
		last = order[i]->time;
		err = put_row(&w, order[i], order[i]->time * 1000000000ull + seq, &sb, &smp);
	}
	for (size_t i = 0; i < p->ntables; i++)
		table_settle(&p->tables[i]);
	if (!err && (sb.oom || smp.oom || w.kmaps.oom))
		err = -ENOMEM;
	if (!err)
		err = write_file(&w, &sb, &smp);
	free(order);
	free(w.obj);
	map_free(&w.ids);
	map_free(&w.taken);
	map_free(&w.objs);
	map_free(&w.kslots);
	map_free(&w.mods);
	tally__buf_free(&w.kmaps);
	map_free(&w.maps);
	tally__buf_free(&sb);
	tally__buf_free(&smp);
	return err;
}

const char *tally_store_profile__path(const struct tally_store_profile *p)
{
	return p ? p->path : NULL;
}

int tally_store_profile__apply(const struct tally_store_profile *p, struct tally_session *ss)
{
	struct tally_symbols *syms = ss ? tally_session__symbols(ss) : NULL;

	if (!p || !syms)
		return -EINVAL;
	for (size_t i = 0; i < p->ntables; i++) {
		int err = tally_symbols__set_table(syms, p->tables[i].name, p->tables[i].syms,
						   p->tables[i].n, "store");

		if (err && err != -EEXIST)
			return err;
		if (p->tables[i].nlines &&
		    (err = tally_symbols__set_lines(syms, p->tables[i].name, p->tables[i].lines,
						    p->tables[i].nlines)))
			return err;
	}
	return 0;
}

struct tally_session *tally_store_profile__session(const struct tally_store_profile *p,
						   const struct tally_session_opts *opts)
{
	struct tally_session *ss;
	int err;

	if (!p) {
		errno = EINVAL;
		return NULL;
	}
	if (!(ss = tally_session__open(p->path, opts)))
		return NULL;
	if ((err = tally_store_profile__apply(p, ss))) {
		tally_session__close(ss);
		errno = -err;
		return NULL;
	}
	return ss;
}

uint64_t tally_store_profile__count(const struct tally_store_profile *p,
				    const struct tally_session_sample *smp)
{
	if (!p || !smp || !smp->event || !smp->sample ||
	    !(smp->event->sample_type & PERF_SAMPLE_WEIGHT) || !smp->sample->weight)
		return 1;
	return smp->sample->weight;
}
