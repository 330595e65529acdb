// SPDX-License-Identifier: MIT
/*
 * The agent's aggregate: each sample's frames as the session resolved
 * them (function, DSO and its build id, file offset), counted by thread
 * and stack; each interval becomes one batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include <tally/hash.h>
#include <tally/symbols.h>
#include "agent_agg.h"

#define MAX_FRAMES 127			/* perf's default max stack */

struct stack {
	uint64_t id;
	int n;
	struct tally_store_frame *f;
};

struct row {
	uint32_t slot;
	int32_t pid, tid;
	const char *comm, *thread, *exe, *cgroup;	/* interned */
	uint64_t stack_id;
	uint64_t value, period;
	uint64_t seq;			/* its first sample's place: a batch lists its rows so */
};

/* A build id per DSO path, looked up once. */
struct bid {
	const char *path;		/* interned */
	uint8_t id[20];
	uint8_t size;
};

/* A pid's exe and cgroup (live), read once per pid and clear. */
struct proc {
	int32_t pid;
	const char *exe, *cgroup;
};

struct agent_agg {
	bool live;
	struct tally_strpool *names;
	struct stack *stacks;		/* open-addressed by id (0: empty) */
	size_t nstacks, cap_stacks;
	struct row *rows;		/* open-addressed by key (value 0: empty) */
	size_t nrows, cap_rows;
	struct bid *bids;
	size_t nbids, cap_bids;
	size_t bids_told;		/* agent_agg_new_dsos's mark */
	uint32_t *bid_tab;		/* index + 1 by the interned path's address: a busy host maps thousands */
	size_t bid_size;
	struct proc *procs;
	size_t nprocs, cap_procs;
	uint64_t *sent;			/* stack ids the store has today (0: empty) */
	size_t nsent, cap_sent;
	char sent_day[16];
	uint64_t samples;
	uint64_t seq;			/* rows made so far */
	uint64_t trims;			/* agent_agg_trim's calls */
	struct tally_frame fr[MAX_FRAMES];
	struct tally_store_frame sf[MAX_FRAMES];
};

struct agent_agg *agent_agg_new(struct tally_session *ss, bool live)
{
	struct agent_agg *a = calloc(1, sizeof(*a));

	if (!a || !(a->names = tally_strpool__new())) {
		free(a);
		return NULL;
	}
	a->live = live;
	return a;
}

static void free_stacks(struct agent_agg *a)
{
	for (size_t i = 0; i < a->cap_stacks; i++)
		free(a->stacks[i].f);
	free(a->stacks);
	a->stacks = NULL;
	a->nstacks = a->cap_stacks = 0;
}

void agent_agg_clear(struct agent_agg *a)
{
	free_stacks(a);
	free(a->rows);
	a->rows = NULL;
	a->nrows = a->cap_rows = 0;
	free(a->procs);		/* a pid may be another process by the next interval */
	a->procs = NULL;
	a->nprocs = a->cap_procs = 0;
	a->samples = 0;
}

void agent_agg_free(struct agent_agg *a)
{
	if (!a)
		return;
	agent_agg_clear(a);
	free(a->bids);
	free(a->bid_tab);
	free(a->sent);
	tally_strpool__free(a->names);
	free(a);
}

/*
 * The names and build ids met are kept across intervals (a build id is
 * read once per file), but a host maps new paths all day (containers,
 * builds): past a bound, or every AGG_FORGET_EVERY intervals, they are
 * forgotten and read again as met.
 */
#define AGG_MAX_BIDS 4096
#define AGG_FORGET_EVERY 360

void agent_agg_trim(struct agent_agg *a)
{
	struct tally_strpool *p;

	if (!a || a->nrows || (++a->trims % AGG_FORGET_EVERY && a->nbids <= AGG_MAX_BIDS))
		return;
	if (!(p = tally_strpool__new()))
		return;
	tally_strpool__free(a->names);
	a->names = p;
	free(a->bids);
	free(a->bid_tab);
	a->bids = NULL;
	a->bid_tab = NULL;
	a->nbids = a->cap_bids = a->bid_size = a->bids_told = 0;
}

uint64_t agent_agg_samples(const struct agent_agg *a)
{
	return a->samples;
}

/* Grow an open-addressed table of elem-sized slots to double, rehashing by key_of. */
#define GROW(tab, n, cap, type, empty, hash)						\
	do {										\
		if (((n) + 1) * 2 > (cap)) {						\
			size_t nc = (cap) ? (cap) * 2 : 256;				\
			type *nt = calloc(nc, sizeof(type));				\
			if (!nt)							\
				return -ENOMEM;						\
			for (size_t k = 0; k < (cap); k++) {				\
				if (empty((tab)[k]))					\
					continue;					\
				size_t j = hash((tab)[k]) & (nc - 1);			\
				while (!empty(nt[j]))					\
					j = (j + 1) & (nc - 1);				\
				nt[j] = (tab)[k];					\
			}								\
			free(tab);							\
			(tab) = nt;							\
			(cap) = nc;							\
		}									\
	} while (0)

#define STACK_EMPTY(s) (!(s).id)
#define STACK_HASH(s) ((s).id)
#define ROW_EMPTY(r) (!(r).value)
#define ROW_HASH(r) row_hash(&(r))
#define U64_EMPTY(v) (!(v))
#define U64_HASH(v) (v)

static uint64_t row_hash(const struct row *r)
{
	uint64_t h = r->stack_id ^ ((uint64_t)(uint32_t)r->tid << 32 | (uint32_t)r->pid);

	h ^= (uint64_t)(uintptr_t)r->thread * 0x9e3779b97f4a7c15ULL;
	h ^= (uint64_t)(uintptr_t)r->comm * 0xc2b2ae3d27d4eb4fULL;
	return tally_hash_mix(h ^ r->slot);
}

static const struct bid *bid_of(struct agent_agg *a, struct tally_session *ss, const char *path)
{
	struct tally_data_reader *rd;
	struct bid *b;
	size_t k;
	int n;

	if ((a->nbids + 1) * 2 > a->bid_size) {
		size_t ns = a->bid_size ? a->bid_size * 2 : 256;
		uint32_t *t = calloc(ns, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t i = 0; i < a->nbids; i++) {
			for (k = tally_hash_mix((uintptr_t)a->bids[i].path) & (ns - 1); t[k]; k = (k + 1) & (ns - 1))
				;
			t[k] = (uint32_t)i + 1;
		}
		free(a->bid_tab);
		a->bid_tab = t;
		a->bid_size = ns;
	}
	for (k = tally_hash_mix((uintptr_t)path) & (a->bid_size - 1); a->bid_tab[k]; k = (k + 1) & (a->bid_size - 1))
		if (a->bids[a->bid_tab[k] - 1].path == path)
			return &a->bids[a->bid_tab[k] - 1];
	if (a->nbids == a->cap_bids) {
		size_t nc = a->cap_bids ? a->cap_bids * 2 : 64;
		struct bid *v = realloc(a->bids, nc * sizeof(*v));

		if (!v)
			return NULL;
		a->bids = v;
		a->cap_bids = nc;
	}
	a->bid_tab[k] = (uint32_t)a->nbids + 1;
	b = &a->bids[a->nbids++];
	memset(b, 0, sizeof(*b));
	b->path = path;
	/* a recording's own table first: the file may have changed since */
	rd = tally_session__reader(ss);
	n = rd ? tally_data_reader__build_id(rd, path, b->id) : -1;
	if (n <= 0 && a->live) {
		if (!strncmp(path, "[kernel.kallsyms]", 17))
			n = tally_build_id__kernel(b->id, sizeof(b->id));
		else if (!strcmp(path, "[vdso]"))
			n = tally_build_id__vdso(b->id, sizeof(b->id));
		else if (path[0] == '/')
			n = tally_build_id__file(path, b->id, sizeof(b->id));
	}
	b->size = n > 0 && n <= 20 ? (uint8_t)n : 0;
	return b;
}

static const char *read_small(struct agent_agg *a, const char *path, bool link)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (link) {
		n = readlink(path, buf, sizeof(buf) - 1);
	} else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return "";
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	if (n <= 0)
		return "";
	buf[n] = '\0';
	if (!link) {
		/* cgroup v2's line "0::/path" (the last line: v1 hierarchies come first) */
		char *p = strstr(buf, "0::");

		if (!p)
			return "";
		p += 3;
		p[strcspn(p, "\n")] = '\0';
		return tally_strpool__add(a->names, p);
	}
	return tally_strpool__add(a->names, buf);
}

static const struct proc *proc_of(struct agent_agg *a, int32_t pid)
{
	char path[64];
	struct proc *p;

	for (size_t i = 0; i < a->nprocs; i++)
		if (a->procs[i].pid == pid)
			return &a->procs[i];
	if (a->nprocs == a->cap_procs) {
		size_t nc = a->cap_procs ? a->cap_procs * 2 : 64;
		struct proc *v = realloc(a->procs, nc * sizeof(*v));

		if (!v)
			return NULL;
		a->procs = v;
		a->cap_procs = nc;
	}
	p = &a->procs[a->nprocs++];
	p->pid = pid;
	p->exe = p->cgroup = "";
	if (a->live && pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		p->exe = read_small(a, path, true);
		snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
		p->cgroup = read_small(a, path, false);
	}
	if (!p->exe || !p->cgroup)
		return NULL;
	return p;
}

/* The function's start in the file's addresses: the offset less the frame's distance into it. */
static uint64_t symoff_of(struct tally_session *ss, const struct tally_frame *f)
{
	struct tally_dso *d;

	if (!f->sym)
		return 0;
	if (f->level == 'k' || !f->path || f->path[0] != '/')
		return f->addr >= f->sym_start ? f->addr - f->sym_start : 0;
	d = tally_symbols__dso_path(tally_session__symbols(ss), f->path);
	if (!d)
		return 0;
	uint64_t va = tally_dso__map_ip_to_vaddr(d, f->addr);

	return va >= f->sym_start ? va - f->sym_start : 0;
}

static int stack_put(struct agent_agg *a, uint64_t id, const struct tally_store_frame *f, int n)
{
	size_t i;

	GROW(a->stacks, a->nstacks, a->cap_stacks, struct stack, STACK_EMPTY, STACK_HASH);
	for (i = id & (a->cap_stacks - 1); a->stacks[i].id; i = (i + 1) & (a->cap_stacks - 1))
		if (a->stacks[i].id == id)
			return 0;
	if (!(a->stacks[i].f = malloc((size_t)(n ? n : 1) * sizeof(*f))))
		return -ENOMEM;
	memcpy(a->stacks[i].f, f, (size_t)n * sizeof(*f));
	a->stacks[i].id = id;
	a->stacks[i].n = n;
	a->nstacks++;
	return 0;
}

static const struct stack *stack_get(const struct agent_agg *a, uint64_t id)
{
	if (!a->cap_stacks)
		return NULL;
	for (size_t i = id & (a->cap_stacks - 1); a->stacks[i].id; i = (i + 1) & (a->cap_stacks - 1))
		if (a->stacks[i].id == id)
			return &a->stacks[i];
	return NULL;
}

static int row_put(struct agent_agg *a, const struct row *r)
{
	uint64_t h;
	size_t i;

	GROW(a->rows, a->nrows, a->cap_rows, struct row, ROW_EMPTY, ROW_HASH);
	h = row_hash(r);
	for (i = h & (a->cap_rows - 1); a->rows[i].value; i = (i + 1) & (a->cap_rows - 1)) {
		struct row *o = &a->rows[i];

		if (o->slot == r->slot && o->pid == r->pid && o->tid == r->tid && o->stack_id == r->stack_id &&
		    o->thread == r->thread && o->comm == r->comm) {
			o->value += r->value;
			o->period += r->period;
			return 0;
		}
	}
	a->rows[i] = *r;
	a->rows[i].seq = a->seq++;
	a->nrows++;
	return 0;
}

int agent_agg_add(struct agent_agg *a, struct tally_session *ss, const struct tally_session_sample *smp,
		  uint32_t slot)
{
	const struct tally_sample *s = smp->sample;
	int n = tally_session__frames(ss, smp, a->fr, MAX_FRAMES);
	const char *comm, *thread;
	const struct proc *p;
	struct row r;
	uint64_t id;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const struct tally_frame *f = &a->fr[i];
		struct tally_store_frame *o = &a->sf[i];
		const struct bid *b = NULL;

		memset(o, 0, sizeof(*o));
		o->level = f->level;
		o->func = f->sym;
		/* the kernel's map is "[kernel.kallsyms]_text" in a recording: one name in the store */
		o->dso = !f->path ? NULL : f->level == 'k' && !strncmp(f->path, "[kernel.kallsyms]", 17) ?
			 "[kernel.kallsyms]" : tally_strpool__add(a->names, f->path);
		if (o->dso && !(b = bid_of(a, ss, o->dso)))
			return -ENOMEM;
		if (b && b->size) {
			o->build_id = b->id;
			o->build_id_size = b->size;
		}
		o->offset = f->path ? f->addr : f->ip;
		/* "file.c:12" only: perf's srcline falls back to "sym+off" or "dso[addr]", which the other fields hold */
		o->srcline = f->srcline && strchr(f->srcline, ':') && !strchr(f->srcline, '[') &&
			     strncmp(f->srcline, "??", 2) &&
			     !strchr(f->srcline, '+') ? f->srcline : NULL;
		o->symoff = symoff_of(ss, f);
	}
	id = tally_store__stack_id(a->sf, n);
	if (!id || stack_put(a, id, a->sf, n))
		return -ENOMEM;
	thread = tally_session__comm(ss, smp);
	comm = tally_machine__comm_of(tally_session__machine(ss), (int32_t)s->pid);
	if (!(p = proc_of(a, (int32_t)s->pid)))
		return -ENOMEM;
	r = (struct row){
		.slot = slot, .pid = (int32_t)s->pid, .tid = (int32_t)s->tid,
		.comm = tally_strpool__add(a->names, comm ? comm : thread ? thread : ""),
		.thread = tally_strpool__add(a->names, thread ? thread : ""),
		.exe = p->exe, .cgroup = p->cgroup, .stack_id = id, .value = 1, .period = smp->period,
	};
	if (!r.comm || !r.thread || row_put(a, &r))
		return -ENOMEM;
	a->samples++;
	return 0;
}

static int sent_add(struct agent_agg *a, uint64_t id)
{
	size_t i;

	GROW(a->sent, a->nsent, a->cap_sent, uint64_t, U64_EMPTY, U64_HASH);
	for (i = id & (a->cap_sent - 1); a->sent[i]; i = (i + 1) & (a->cap_sent - 1))
		if (a->sent[i] == id)
			return 1;
	a->sent[i] = id;
	a->nsent++;
	return 0;
}

static int cmp_seq(const void *x, const void *y)
{
	uint64_t a = (*(const struct row *const *)x)->seq, b = (*(const struct row *const *)y)->seq;

	return a < b ? -1 : a > b;
}

struct tally_store_batch *agent_agg_batch(struct agent_agg *a, uint32_t slot, const char *host,
					  uint64_t batch_id, time_t start)
{
	struct tally_store_batch *b;
	const struct row **order = NULL;
	char day[16];
	struct tm tm;
	size_t rows = 0, n = 0;

	errno = 0;
	for (size_t i = 0; i < a->cap_rows; i++)
		rows += a->rows[i].value && a->rows[i].slot == slot;
	if (!rows)
		return NULL;
	if (!(b = tally_store_batch__new(host, batch_id, start)))
		return NULL;
	/* stacks are stored per day (partitions dropped whole): a new day sends them again */
	gmtime_r(&start, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	if (strcmp(day, a->sent_day)) {
		free(a->sent);
		a->sent = NULL;
		a->nsent = a->cap_sent = 0;
		snprintf(a->sent_day, sizeof(a->sent_day), "%s", day);
	}
	/*
	 * in the order their first samples came (a row's number in the batch):
	 * a reader shows equal call-graph branches in that order, as perf
	 * report does a recording's
	 */
	if (!(order = malloc(rows * sizeof(*order))))
		goto oom;
	for (size_t i = 0; i < a->cap_rows; i++)
		if (a->rows[i].value && a->rows[i].slot == slot)
			order[n++] = &a->rows[i];
	qsort(order, n, sizeof(*order), cmp_seq);
	for (size_t k = 0; k < n; k++) {
		const struct row *r = order[k];
		const struct stack *st;
		int known;

		if (!(st = stack_get(a, r->stack_id)) || (known = sent_add(a, r->stack_id)) < 0)
			goto oom;
		if (!known && !tally_store_batch__stack(b, st->f, st->n))
			goto oom;
		if (tally_store_batch__add(b, &(struct tally_store_row){
				.pid = r->pid, .tid = r->tid, .comm = r->comm, .thread = r->thread,
				.exe = r->exe, .cgroup = r->cgroup, .kind = "cpu", .event = "cpu-clock",
				.stack_id = r->stack_id, .value = r->value, .period = r->period }))
			goto oom;
	}
	free(order);
	return b;
oom:
	free(order);
	tally_store_batch__free(b);
	errno = ENOMEM;
	return NULL;
}

void agent_agg_new_dsos(struct agent_agg *a, void (*fn)(void *ctx, const char *path), void *ctx)
{
	for (; a->bids_told < a->nbids; a->bids_told++) {
		const struct bid *b = &a->bids[a->bids_told];

		if (b->size && b->path[0] == '/')
			fn(ctx, b->path);
	}
}

struct topf {
	const char *func, *dso;
	char level;
	uint64_t n;
};

static int by_n(const void *x, const void *y)
{
	const struct topf *a = x, *b = y;

	return a->n != b->n ? (a->n < b->n ? 1 : -1) : strcmp(a->func, b->func);
}

void agent_agg_print_top(const struct agent_agg *a, uint32_t slot, FILE *fp, time_t start, int n)
{
	struct topf *v = calloc(a->nrows + 1, sizeof(*v));
	size_t nv = 0;
	uint64_t total = 0;
	char when[32];
	struct tm tm;

	if (!v)
		return;
	for (size_t i = 0; i < a->cap_rows; i++) {
		const struct row *r = &a->rows[i];
		const struct stack *st;
		const char *func, *dso;
		size_t k;

		if (!r->value || r->slot != slot || !(st = stack_get(a, r->stack_id)))
			continue;
		total += r->value;
		func = st->n && st->f[0].func ? st->f[0].func : "[unknown]";
		dso = st->n && st->f[0].dso ? st->f[0].dso : "[unknown]";
		for (k = 0; k < nv && !(v[k].func == func || !strcmp(v[k].func, func)); k++)
			;
		if (k == nv)
			v[nv++] = (struct topf){ func, dso, st->n ? st->f[0].level : '.', 0 };
		v[k].n += r->value;
	}
	qsort(v, nv, sizeof(*v), by_n);
	gmtime_r(&start, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(fp, "# %s UTC: %" PRIu64 " samples\n", when, total);
	for (size_t i = 0; i < nv && (int)i < n; i++) {
		const char *base = strrchr(v[i].dso, '/');

		fprintf(fp, "%7.2f%%  %-24s [%c] %s\n", 100.0 * (double)v[i].n / (double)(total ? total : 1),
			base ? base + 1 : v[i].dso, v[i].level, v[i].func);
	}
	fflush(fp);
	free(v);
}
