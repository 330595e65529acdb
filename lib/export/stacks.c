// SPDX-License-Identifier: MIT
/*
 * The stacks model (tally/stacks.h): three hash tables of indices
 * (frames, stack nodes, per-thread counts) over growing arrays, and the
 * text pictures drawn from it: collapsed stacks and the SVG flame graph.
 * pprof is in pprof.c.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "stacks_internal.h"

static uint64_t hstr(uint64_t h, const char *s)
{
	return tally_hash_mix(tally_fnv_str(h, s));
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* open addressing over indices + 1 (0: empty) */
static int tab_grow(struct stk_tab *t, size_t live, uint64_t (*hash)(const void *, int), const void *ctx)
{
	size_t n;
	int *v;

	if ((live + 1) * 2 <= t->size)
		return 0;
	n = t->size ? t->size * 2 : 1024;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->size; i++) {
		size_t k;

		if (!t->v[i])
			continue;
		for (k = hash(ctx, t->v[i] - 1) & (n - 1); v[k]; k = (k + 1) & (n - 1))
			;
		v[k] = t->v[i];
	}
	free(t->v);
	t->v = v;
	t->size = n;
	return 0;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *q;

	if (need <= *cap)
		return p;
	n = *cap ? *cap * 2 : 256;
	while (n < need)
		n *= 2;
	q = realloc(p, n * elem);
	if (q)
		*cap = n;
	return q;
}

static uint64_t frame_hash(const struct stk_frame *f)
{
	uint64_t h = hstr(1469598103934665603ULL, f->name);

	h = hstr(h, f->dso);
	return tally_hash_mix(h ^ (f->name ? 0 : f->addr) ^ f->kernel);
}

static uint64_t frame_hash_i(const void *ctx, int i)
{
	return ((const struct tally_stacks *)ctx)->frames[i].hash;
}

static uint64_t loc_hash(int frame, const char *file, int line)
{
	return tally_hash_mix(hstr((uint64_t)(uint32_t)frame * 0x9e3779b97f4a7c15ULL, file) ^
			      (uint32_t)line);
}

static uint64_t loc_hash_i(const void *ctx, int i)
{
	return ((const struct tally_stacks *)ctx)->locs[i].hash;
}

static uint64_t node_hash(int parent, int frame)
{
	return tally_hash_mix(((uint64_t)(uint32_t)parent << 32) ^ (uint32_t)frame);
}

static uint64_t node_hash_i(const void *ctx, int i)
{
	const struct stk_node *n = &((const struct tally_stacks *)ctx)->nodes[i];

	return node_hash(n->parent, n->loc);
}

static uint64_t agg_hash(int thread, int node)
{
	return tally_hash_mix(((uint64_t)(uint32_t)thread << 32) ^ (uint32_t)node ^ 0x5bd1e995);
}

static uint64_t agg_hash_i(const void *ctx, int i)
{
	const struct stk_agg *a = &((const struct tally_stacks *)ctx)->aggs[i];

	return agg_hash(a->thread, a->node);
}

struct tally_stacks *tally_stacks__new(void)
{
	struct tally_stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return tally__err_ptr(ENOMEM);
	s->last_thread = -1;
	return s;
}

void tally_stacks__free(struct tally_stacks *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nframes; i++) {
		free(s->frames[i].name);
		free(s->frames[i].dso);
		free(s->frames[i].build_id);
	}
	for (size_t i = 0; i < s->nthreads; i++)
		free(s->threads[i].comm);
	for (size_t i = 0; i < s->nlocs; i++)
		free(s->locs[i].file);
	free(s->frames);
	free(s->locs);
	free(s->nodes);
	free(s->threads);
	free(s->aggs);
	free(s->timed);
	free(s->ftab.v);
	free(s->ltab.v);
	free(s->ntab.v);
	free(s->atab.v);
	free(s->info.event);
	free(s->info.unit);
	free(s->info.command);
	free(s);
}

static char *dup_or_null(const char *p, bool *fail)
{
	char *d;

	if (!p)
		return NULL;
	d = strdup(p);
	if (!d)
		*fail = true;
	return d;
}

/* The function's index in frames. */
static int frame_index(struct tally_stacks *s, const struct tally_stack_frame *f)
{
	struct stk_frame key;
	bool fail = false;
	size_t k;
	void *p;

	key = (struct stk_frame){ .name = (char *)f->name, .dso = (char *)f->dso, .addr = f->addr,
				  .kernel = f->kernel };
	key.hash = frame_hash(&key);
	if (tab_grow(&s->ftab, s->nframes, frame_hash_i, s))
		return -ENOMEM;
	for (k = key.hash & (s->ftab.size - 1); s->ftab.v[k]; k = (k + 1) & (s->ftab.size - 1)) {
		const struct stk_frame *x = &s->frames[s->ftab.v[k] - 1];

		if (x->hash == key.hash && x->kernel == key.kernel && same_str(x->name, key.name) &&
		    same_str(x->dso, key.dso) && (key.name || x->addr == key.addr))
			return s->ftab.v[k] - 1;
	}
	p = grow(s->frames, &s->cap_frames, s->nframes + 1, sizeof(*s->frames));
	if (!p)
		return -ENOMEM;
	s->frames = p;
	key.name = dup_or_null(f->name, &fail);
	key.dso = dup_or_null(f->dso, &fail);
	key.build_id = dup_or_null(f->build_id, &fail);
	key.map_start = f->map_start;
	key.map_end = f->map_end;
	key.map_pgoff = f->map_pgoff;
	if (fail) {
		free(key.name);
		free(key.dso);
		free(key.build_id);
		return -ENOMEM;
	}
	s->frames[s->nframes] = key;
	s->ftab.v[k] = (int)++s->nframes;
	return (int)s->nframes - 1;
}

int tally_stacks__frame(struct tally_stacks *s, const struct tally_stack_frame *f)
{
	return tally_stacks__frame_at(s, f, NULL, 0);
}

/* A handle: the function at a source line (every line one, without lines). */
int tally_stacks__frame_at(struct tally_stacks *s, const struct tally_stack_frame *f,
			   const char *src_file, int src_line)
{
	const char *file;
	int fi, line;
	uint64_t h;
	size_t k;
	void *p;

	if (!s || !f)
		return -EINVAL;
	if ((fi = frame_index(s, f)) < 0)
		return fi;
	file = src_line > 0 ? src_file : NULL;
	line = file ? src_line : 0;
	h = loc_hash(fi, file, line);
	if (tab_grow(&s->ltab, s->nlocs, loc_hash_i, s))
		return -ENOMEM;
	for (k = h & (s->ltab.size - 1); s->ltab.v[k]; k = (k + 1) & (s->ltab.size - 1)) {
		const struct stk_loc *x = &s->locs[s->ltab.v[k] - 1];

		if (x->hash == h && x->frame == fi && x->line == line && same_str(x->file, file))
			return s->ltab.v[k] - 1;
	}
	p = grow(s->locs, &s->cap_locs, s->nlocs + 1, sizeof(*s->locs));
	if (!p)
		return -ENOMEM;
	s->locs = p;
	s->locs[s->nlocs] = (struct stk_loc){ .frame = fi, .line = line, .hash = h,
					      .addr = f->addr };
	if (file && !(s->locs[s->nlocs].file = strdup(file)))
		return -ENOMEM;
	s->ltab.v[k] = (int)++s->nlocs;
	return (int)s->nlocs - 1;
}

int tally_stacks__push(struct tally_stacks *s, int parent, int loc)
{
	uint64_t h = node_hash(parent, loc);
	size_t k;
	void *p;

	if (!s || loc < 0 || (size_t)loc >= s->nlocs || parent < -1 ||
	    (parent >= 0 && (size_t)parent >= s->nnodes))
		return -EINVAL;
	if (tab_grow(&s->ntab, s->nnodes, node_hash_i, s))
		return -ENOMEM;
	for (k = h & (s->ntab.size - 1); s->ntab.v[k]; k = (k + 1) & (s->ntab.size - 1)) {
		const struct stk_node *n = &s->nodes[s->ntab.v[k] - 1];

		if (n->parent == parent && n->loc == loc)
			return s->ntab.v[k] - 1;
	}
	p = grow(s->nodes, &s->cap_nodes, s->nnodes + 1, sizeof(*s->nodes));
	if (!p)
		return -ENOMEM;
	s->nodes = p;
	s->nodes[s->nnodes] = (struct stk_node){
		.parent = parent, .frame = s->locs[loc].frame, .loc = loc,
		.depth = parent < 0 ? 1 : s->nodes[parent].depth + 1,
	};
	s->ntab.v[k] = (int)++s->nnodes;
	return (int)s->nnodes - 1;
}

int tally_stacks__thread(struct tally_stacks *s, int32_t pid, int32_t tid, const char *comm)
{
	void *p;
	bool fail = false;

	if (!s)
		return -EINVAL;
	/* threads are few; the last one asked for is asked again most often */
	if (s->last_thread >= 0 && (size_t)s->last_thread < s->nthreads) {
		const struct stk_thread *t = &s->threads[s->last_thread];

		if (t->tid == tid && t->pid == pid && same_str(t->comm, comm))
			return s->last_thread;
	}
	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid && s->threads[i].pid == pid &&
		    same_str(s->threads[i].comm, comm))
			return s->last_thread = (int)i;
	p = grow(s->threads, &s->cap_threads, s->nthreads + 1, sizeof(*s->threads));
	if (!p)
		return -ENOMEM;
	s->threads = p;
	s->threads[s->nthreads] = (struct stk_thread){ .pid = pid, .tid = tid,
						       .comm = dup_or_null(comm, &fail) };
	if (fail)
		return -ENOMEM;
	return s->last_thread = (int)s->nthreads++;
}

int tally_stacks__sample(struct tally_stacks *s, int thread, int stack, uint64_t count,
			 uint64_t weight)
{
	uint64_t h = agg_hash(thread, stack);
	size_t k;
	void *p;

	if (!s || thread < 0 || (size_t)thread >= s->nthreads || stack < -1 ||
	    (stack >= 0 && (size_t)stack >= s->nnodes))
		return -EINVAL;
	s->samples += count;
	s->weight += weight;
	if (tab_grow(&s->atab, s->naggs, agg_hash_i, s))
		return -ENOMEM;
	for (k = h & (s->atab.size - 1); s->atab.v[k]; k = (k + 1) & (s->atab.size - 1)) {
		struct stk_agg *a = &s->aggs[s->atab.v[k] - 1];

		if (a->thread == thread && a->node == stack) {
			a->count += count;
			a->weight += weight;
			return 0;
		}
	}
	p = grow(s->aggs, &s->cap_aggs, s->naggs + 1, sizeof(*s->aggs));
	if (!p)
		return -ENOMEM;
	s->aggs = p;
	s->aggs[s->naggs] = (struct stk_agg){ .thread = thread, .node = stack, .count = count,
					      .weight = weight };
	s->atab.v[k] = (int)++s->naggs;
	return 0;
}

int tally_stacks__timed(struct tally_stacks *s, int thread, int stack, uint64_t time_ns)
{
	return tally_stacks__timed_weight(s, thread, stack, time_ns, 1);
}

int tally_stacks__timed_weight(struct tally_stacks *s, int thread, int stack, uint64_t time_ns,
			       uint64_t weight)
{
	void *p;

	if (!s || thread < 0 || (size_t)thread >= s->nthreads || stack < -1 ||
	    (stack >= 0 && (size_t)stack >= s->nnodes))
		return -EINVAL;
	p = grow(s->timed, &s->cap_timed, s->ntimed + 1, sizeof(*s->timed));
	if (!p)
		return -ENOMEM;
	s->timed = p;
	s->timed[s->ntimed++] = (struct stk_timed){ .thread = thread, .node = stack, .time = time_ns,
						   .weight = weight };
	return 0;
}

int tally_stacks__set_info(struct tally_stacks *s, const struct tally_stacks_info *info)
{
	bool fail = false;

	if (!s || !info)
		return -EINVAL;
	/* copied before the old ones go: info may be tally_stacks__info's */
	char *event = dup_or_null(info->event, &fail), *unit = dup_or_null(info->unit, &fail);
	char *command = dup_or_null(info->command, &fail);

	free(s->info.event);
	free(s->info.unit);
	free(s->info.command);
	s->info.event = event;
	s->info.unit = unit;
	s->info.command = command;
	s->info.period = info->period;
	s->info.time_ns = info->time_ns;
	s->info.duration_ns = info->duration_ns;
	s->info.lost = info->lost;
	return fail ? -ENOMEM : 0;
}

int tally_stacks__info(const struct tally_stacks *s, struct tally_stacks_info *out)
{
	if (!s || !out)
		return -EINVAL;
	*out = (struct tally_stacks_info){
		.event = s->info.event, .unit = s->info.unit, .period = s->info.period,
		.time_ns = s->info.time_ns, .duration_ns = s->info.duration_ns,
		.command = s->info.command, .lost = s->info.lost,
	};
	return 0;
}

uint64_t tally_stacks__samples(const struct tally_stacks *s)
{
	return s ? s->samples : 0;
}

/* ---- collapsed stacks ---- */

/* The frames of node, root first, into v (depth entries). */
size_t tally__stacks_path(const struct tally_stacks *s, int node, int *v)
{
	size_t n = node < 0 ? 0 : s->nodes[node].depth;

	for (size_t i = n; i > 0; i--, node = s->nodes[node].parent)
		v[i - 1] = s->nodes[node].frame;
	return n;
}

size_t tally__stacks_max_depth(const struct tally_stacks *s)
{
	size_t m = 0;

	for (size_t i = 0; i < s->nnodes; i++)
		if (s->nodes[i].depth > m)
			m = s->nodes[i].depth;
	return m;
}

/*
 * "name" or "name_[k]" as collapsed stacks write a frame; an inlined
 * function's "name (inlined)" is its name there, as stackcollapse-perf
 * reads perf script's "(inlined)" in place of the DSO.
 */
static int frame_text(const struct stk_frame *f, char *buf, size_t len)
{
	static const char inl[] = " (inlined)";
	const char *n = f->name ? f->name : "[unknown]";
	size_t l = strlen(n);

	if (l > sizeof(inl) - 1 && !strcmp(n + l - (sizeof(inl) - 1), inl))
		l -= sizeof(inl) - 1;
	return snprintf(buf, len, "%.*s%s", (int)l, n, f->kernel ? "_[k]" : "");
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct stk_line *)a)->s, ((const struct stk_line *)b)->s);
}

/* Equal texts (threads of one command) are merged. */
int tally__stacks_lines(const struct tally_stacks *s, struct stk_line **out, size_t *nout)
{
	size_t depth = tally__stacks_max_depth(s), n = 0, cap = 0, len, k;
	int *path = malloc((depth + 1) * sizeof(*path));
	struct stk_line *v = NULL;
	char *buf = NULL;
	size_t bcap = 0;
	int err = 0;

	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < s->naggs && !err; i++) {
		const struct stk_agg *a = &s->aggs[i];
		size_t np = tally__stacks_path(s, a->node, path);
		const char *comm = s->threads[a->thread].comm;
		void *p;

		len = 0;
		for (k = 0; k <= np; k++) {
			char tmp[4096];
			int w = k == 0 ? snprintf(tmp, sizeof(tmp), "%s", comm ? comm : "[unknown]") :
				frame_text(&s->frames[path[k - 1]], tmp, sizeof(tmp));

			if (w < 0)
				continue;
			if ((size_t)w >= sizeof(tmp))
				w = sizeof(tmp) - 1;
			p = grow(buf, &bcap, len + (size_t)w + 2, 1);
			if (!p) {
				err = -ENOMEM;
				break;
			}
			buf = p;
			if (k)
				buf[len++] = ';';
			memcpy(buf + len, tmp, (size_t)w);
			len += (size_t)w;
			buf[len] = '\0';
		}
		if (err)
			break;
		p = grow(v, &cap, n + 1, sizeof(*v));
		if (!p || !(((struct stk_line *)p)[n].s = strdup(buf ? buf : ""))) {
			v = p ? p : v;
			err = -ENOMEM;
			break;
		}
		v = p;
		v[n++].n = a->count;
	}
	free(path);
	free(buf);
	if (err) {
		for (size_t i = 0; i < n; i++)
			free(v[i].s);
		free(v);
		return err;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_line);
	/* equal texts (threads of one command) become one line */
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].s, v[i].s)) {
			v[k - 1].n += v[i].n;
			free(v[i].s);
			continue;
		}
		v[k++] = v[i];
	}
	*out = v;
	*nout = k;
	return 0;
}

int tally_stacks__write_folded(const struct tally_stacks *s, FILE *fp)
{
	struct stk_line *v;
	size_t n;
	int err;

	if (!s || !fp)
		return -EINVAL;
	err = tally__stacks_lines(s, &v, &n);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "%s %llu\n", v[i].s, (unsigned long long)v[i].n);
		free(v[i].s);
	}
	free(v);
	return ferror(fp) ? -EIO : 0;
}

/* fn into fp, then flushed and closed: the first error. */
static int write_through(FILE *fp, tally_stacks_draw_fn fn, void *arg)
{
	int err, werr;

	errno = 0;
	err = fn(fp, arg);
	werr = errno;
	/* stdio keeps a write's error to the flush: each step is checked */
	if (fflush(fp) && !err)
		err = -errno;
	/* a writer saw its stream fail (-EIO): the failed write's errno says why */
	if (err == -EIO && werr && werr != EIO)
		err = -werr;
	if (ferror(fp) && !err)
		err = -EIO;
	if (fclose(fp) && !err)
		err = -errno;
	return err;
}

int tally_stacks__write_file(const char *path, tally_stacks_draw_fn fn, void *arg)
{
	struct stat sb;
	char *tmp;
	FILE *fp;
	int fd, err;
	mode_t um;

	if (!path || !fn)
		return -EINVAL;
	/* a device or a pipe (/dev/stdout) is written in place, never replaced */
	if (!stat(path, &sb) && !S_ISREG(sb.st_mode)) {
		if (!(fp = fopen(path, "we")))
			return -errno;
		return write_through(fp, fn, arg);
	}
	if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		err = -errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return err;
	}
	/* readable as a file open(2) makes (mkostemp's is 0600) */
	um = umask(0);
	umask(um);
	err = fchmod(fd, 0666 & ~um) ? -errno : 0;
	if (err)
		fclose(fp);
	else
		err = write_through(fp, fn, arg);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
