// SPDX-License-Identifier: MIT
/*
 * tally test [-v] [--list] [N|SUBSTRING...]: the self-test a user runs on
 * their own machine, like perf test. Each check has an exact oracle the
 * kernel must meet (N calls -> N counts, N samples), runs through the
 * library as tally's commands do, and says Ok, FAILED, or Skip with the
 * reason (no hardware PMU, not permitted). The hardware checks exercise
 * the real rdpmc/mrs, multiplexing and libpfm4 paths where a PMU exists.
 * Exit status 1 when any check failed.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "parse_options.h"

enum verdict { T_OK, T_FAIL, T_SKIP };

struct tctx {
	int verbose;
	char why[512];	/* the reason for a skip or a failure */
};

__attribute__((format(printf, 2, 3)))
static enum verdict skip(struct tctx *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return T_SKIP;
}

__attribute__((format(printf, 2, 3)))
static enum verdict failed(struct tctx *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return T_FAIL;
}

__attribute__((format(printf, 2, 3)))
static void detail(struct tctx *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->verbose)
		return;
	va_start(ap, fmt);
	fputs("    ", stdout);
	vprintf(fmt, ap);
	va_end(ap);
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

/*
 * An evlist of spec on this thread (any CPU), sampling every period
 * events when sample (0: the default), with branch records of branch
 * types (PERF_SAMPLE_BRANCH_*, 0: none); why says why not.
 */
static struct tally_evlist *self_events_opts(struct tctx *t, const char *spec, bool sample,
					     uint64_t period, uint64_t branch, bool *unsupported)
{
	struct tally_parse_error pe = { 0 };
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *thr = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	TALLY_OPTS(tally_config_opts, co, .sample = sample, .no_inherit = true, .period = period,
		   .branch_sample_type = branch);
	int err;

	*unsupported = false;
	if (!l || !thr) {
		failed(t, "out of memory");
		goto fail;
	}
	err = tally_evlist__add_parsed(l, spec, NULL, &pe);
	if (err) {
		*unsupported = err == -ENOENT;
		snprintf(t->why, sizeof(t->why), "%s: %s", spec, pe.msg[0] ? pe.msg : strerror(-err));
		goto fail;
	}
	err = tally_evlist__config(l, &co);
	if (!err) {
		/* counting here starts at enable, not at an exec */
		struct tally_evsel *e;

		tally_evlist__for_each_evsel(l, e)
			tally_evsel__attr(e)->enable_on_exec = 0;
		err = tally_evlist__open(l, NULL, thr, NULL);
	}
	if (err) {
		char buf[256];

		*unsupported = tally_evsel__open_error(tally_evlist__first(l)) &&
			       !tally_evsel__supported(tally_evlist__first(l));
		snprintf(t->why, sizeof(t->why), "%s",
			 tally_strerror(err, tally_evsel__attr(tally_evlist__first(l)), spec, buf,
					sizeof(buf)));
		goto fail;
	}
	tally_thread_map__put(thr);
	return l;
fail:
	tally_thread_map__put(thr);
	tally_evlist__free(l);
	return NULL;
}

static struct tally_evlist *self_events(struct tctx *t, const char *spec, bool sample,
					bool *unsupported)
{
	return self_events_opts(t, spec, sample, 0, 0, unsupported);
}

/* The count of the first event after fn(arg) ran between enable and disable. */
static enum verdict count_exact(struct tctx *t, const char *spec, void (*fn)(long), long n,
				uint64_t want)
{
	bool unsupported;
	struct tally_evlist *l = self_events(t, spec, false, &unsupported);
	const struct tally_counts *c;
	enum verdict v = T_OK;

	if (!l)
		return unsupported ? T_SKIP : T_FAIL;
	tally_evlist__enable(l);
	fn(n);
	tally_evlist__disable(l);
	if (tally_evlist__read(l) || !(c = tally_evsel__counts(tally_evlist__first(l), 0, 0)))
		v = failed(t, "cannot read %s", spec);
	else if (c->val != want)
		v = failed(t, "%s counted %llu, want exactly %llu", spec,
			   (unsigned long long)c->val, (unsigned long long)want);
	else
		detail(t, "%s: %llu as expected\n", spec, (unsigned long long)c->val);
	tally_evlist__free(l);
	return v;
}

/* ---- the checks ---- */

static enum verdict t_tracepoint(struct tctx *t)
{
	char why[256];

	if (!tally_tracing_dir(why, sizeof(why)))
		return skip(t, "%s", why);
	return count_exact(t, "syscalls:sys_enter_getpid", calls, 12345, 12345);
}

static volatile long watched;

static void writes(long n)
{
	for (long i = 0; i < n; i++)
		watched = i;
}

static enum verdict t_breakpoint(struct tctx *t)
{
	char spec[64];

	snprintf(spec, sizeof(spec), "mem:%p:w:u", (void *)&watched);
	return count_exact(t, spec, writes, 1000, 1000);
}

__attribute__((noinline, used)) void tally_test_probe_target(long i);
__attribute__((noinline, used)) void tally_test_probe_target(long i)
{
	__asm__ volatile("" : : "r"(i) : "memory");
}

static void probe_calls(long n)
{
	for (long i = 0; i < n; i++)
		tally_test_probe_target(i);
}

static enum verdict uprobe_check(struct tctx *t, const char *kind)
{
	char exe[PATH_MAX], spec[PATH_MAX + 64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return skip(t, "cannot find this program's file");
	exe[len] = '\0';
	snprintf(spec, sizeof(spec), "%s:%s:tally_test_probe_target", kind, exe);
	return count_exact(t, spec, probe_calls, 777, 777);
}

static enum verdict t_uprobe(struct tctx *t)
{
	return uprobe_check(t, "uprobe");
}

static enum verdict t_uretprobe(struct tctx *t)
{
	return uprobe_check(t, "uretprobe");
}

static enum verdict t_group_read(struct tctx *t)
{
	bool unsupported;
	struct tally_evlist *l = self_events(t, "{task-clock,page-faults,syscalls:sys_enter_getpid}",
					     false, &unsupported);
	const struct tally_counts *c[3];
	struct tally_evsel *e;
	enum verdict v = T_OK;
	int i = 0;

	if (!l)
		return unsupported ? T_SKIP : T_FAIL;
	tally_evlist__enable(l);
	calls(500);
	tally_evlist__disable(l);
	if (tally_evlist__read(l))
		v = failed(t, "group read failed");
	tally_evlist__for_each_evsel(l, e)
		c[i++] = tally_evsel__counts(e, 0, 0);
	if (v == T_OK && (i != 3 || !c[0] || !c[1] || !c[2]))
		v = failed(t, "group of 3 read %d values", i);
	else if (v == T_OK && c[2]->val != 500)
		v = failed(t, "getpid in the group: %llu, want 500", (unsigned long long)c[2]->val);
	else if (v == T_OK && (c[0]->ena != c[1]->ena || c[1]->ena != c[2]->ena))
		v = failed(t, "members enabled for different times (%llu, %llu, %llu)",
			   (unsigned long long)c[0]->ena, (unsigned long long)c[1]->ena,
			   (unsigned long long)c[2]->ena);
	else if (v == T_OK)
		detail(t, "one read() gave 3 values, enabled %llu ns each\n",
		       (unsigned long long)c[0]->ena);
	tally_evlist__free(l);
	return v;
}

static void *thread_calls(void *arg)
{
	calls((long)arg);
	return NULL;
}

static enum verdict t_inherit(struct tctx *t)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = false);
	const struct tally_counts *c;
	enum verdict v = T_OK;
	pthread_t th[4];
	char why[256];

	if (!tally_tracing_dir(why, sizeof(why))) {
		tally_evlist__free(l);
		tally_thread_map__put(thr);
		return skip(t, "%s", why);
	}
	/* the threads are made after the open: only inherit counts them */
	if (tally_evlist__add_parsed(l, "syscalls:sys_enter_getpid", NULL, NULL) ||
	    tally_evlist__config(l, &co) || tally_evlist__open(l, NULL, thr, NULL)) {
		v = failed(t, "cannot open syscalls:sys_enter_getpid: %s", strerror(errno));
		goto out;
	}
	tally_evlist__enable(l);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, thread_calls, (void *)1000L);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	tally_evlist__disable(l);
	tally_evlist__read(l);
	c = tally_evsel__counts(tally_evlist__first(l), 0, 0);
	if (!c || c->val != 4000)
		v = failed(t, "4 threads x 1000 getpid counted %llu, want 4000 (inherit)",
			   c ? (unsigned long long)c->val : 0ull);
	else
		detail(t, "4 threads x 1000 = %llu\n", (unsigned long long)c->val);
out:
	tally_thread_map__put(thr);
	tally_evlist__free(l);
	return v;
}

struct ring_count {
	uint64_t samples, lost;
};

static int ring_cb(void *ctx, const struct perf_event_header *h, int ring)
{
	struct ring_count *rc = ctx;

	(void)ring;
	if (h->type == PERF_RECORD_SAMPLE)
		rc->samples++;
	else if (h->type == PERF_RECORD_LOST)
		rc->lost += ((const uint64_t *)(h + 1))[1];
	return 0;
}

static enum verdict t_sampling(struct tctx *t)
{
	bool unsupported;
	struct tally_evlist *l;
	struct ring_count rc = { 0 };
	enum verdict v = T_OK;
	char why[256];
	int err;

	if (!tally_tracing_dir(why, sizeof(why)))
		return skip(t, "%s", why);
	l = self_events(t, "syscalls:sys_enter_getpid", true, &unsupported);
	if (!l)
		return unsupported ? T_SKIP : T_FAIL;
	err = tally_evlist__mmap(l, NULL);
	if (err) {
		v = failed(t, "mmap: %s", strerror(-err));
		goto out;
	}
	tally_evlist__enable(l);
	for (int i = 0; i < 10; i++) {
		calls(5000);
		tally_evlist__drain(l, ring_cb, NULL, &rc);
	}
	tally_evlist__disable(l);
	tally_evlist__drain(l, ring_cb, NULL, &rc);
	if (rc.samples + rc.lost != 50000)
		v = failed(t, "50000 getpid at period 1: %llu samples + %llu lost",
			   (unsigned long long)rc.samples, (unsigned long long)rc.lost);
	else
		detail(t, "%llu samples, %llu lost\n", (unsigned long long)rc.samples,
		       (unsigned long long)rc.lost);
out:
	tally_evlist__free(l);
	return v;
}

/* ---- perf.data: what the rings gave is written, and read back whole ---- */

struct rt_ctx {
	struct tally_data_writer *w;
	int err;
};

static int rt_out(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct rt_ctx *c = ctx;

	(void)ring;
	if (!c->err)
		c->err = tally_data_writer__writev(c->w, iov, n);
	return c->err;
}

static int rt_count(void *ctx, const struct perf_event_header *h, uint64_t off, int attr)
{
	(void)off;
	(void)attr;
	if (h->type == PERF_RECORD_SAMPLE)
		((struct ring_count *)ctx)->samples++;
	else if (h->type == PERF_RECORD_LOST)
		((struct ring_count *)ctx)->lost += ((const uint64_t *)(h + 1))[1];
	return 0;
}

static enum verdict t_roundtrip(struct tctx *t)
{
	char path[64] = "/tmp/tally-test-XXXXXX", why[256];
	struct tally_data_writer_opts wo = { .sz = sizeof(wo) };
	struct rt_ctx c = { 0 };
	struct ring_count got = { 0 };
	struct tally_data_reader *rd = NULL;
	struct tally_evlist *l;
	struct tally_evsel *e;
	enum verdict v = T_OK;
	bool unsupported;
	uint64_t id;
	int fd, err;

	if (!tally_tracing_dir(why, sizeof(why)))
		return skip(t, "%s", why);
	l = self_events(t, "syscalls:sys_enter_getpid", true, &unsupported);
	if (!l)
		return unsupported ? T_SKIP : T_FAIL;
	fd = mkstemp(path);
	if (fd < 0) {
		v = failed(t, "%s: %s", path, strerror(errno));
		goto out;
	}
	unlink(path);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	e = tally_evlist__first(l);
	c.w = tally_data_writer__new_fd(fd, &wo);
	err = tally_evlist__mmap(l, NULL);
	if (!err && !c.w)
		err = -errno;
	if (!err)
		err = tally_evsel__id(e, 0, 0, &id);
	if (!err)
		err = tally_data_writer__add_attr(c.w, tally_evsel__attr(e), &id, 1,
						  tally_evsel__name(e));
	if (!err)
		err = tally_data_writer__begin(c.w);
	if (err) {
		v = failed(t, "writer: %s", strerror(-err));
		goto out;
	}
	tally_evlist__enable(l);
	calls(5000);
	tally_evlist__disable(l);
	tally_evlist__drain(l, NULL, rt_out, &c);
	err = c.err ? c.err : tally_data_writer__finish(c.w);
	if (err) {
		v = failed(t, "writing: %s", strerror(-err));
		goto out;
	}
	rd = tally_data_reader__open(path);
	if (!rd) {
		v = failed(t, "our reader: %s", strerror(errno));
		goto out;
	}
	err = tally_data_reader__foreach(rd, rt_count, &got);
	if (err < 0 || got.samples + got.lost != 5000)
		v = failed(t, "5000 getpid written, read back %llu samples + %llu lost (%s)",
			   (unsigned long long)got.samples, (unsigned long long)got.lost,
			   err < 0 ? strerror(-err) : "no error");
	else
		detail(t, "%llu samples read back from %llu bytes\n",
		       (unsigned long long)got.samples,
		       (unsigned long long)tally_data_writer__bytes(c.w));
out:
	tally_data_reader__close(rd);
	tally_data_writer__free(c.w);
	if (fd >= 0)
		close(fd);
	tally_evlist__free(l);
	return v;
}

/* ---- hardware paths: they need a PMU, and say so when there is none ---- */

static enum verdict hw_or_skip(struct tctx *t, enum verdict v, bool unsupported)
{
	if (v == T_FAIL && unsupported)
		return skip(t, "no hardware PMU here: the kernel has no such event");
	return v;
}

static enum verdict t_hw_cycles(struct tctx *t)
{
	bool unsupported;
	struct tally_evlist *l = self_events(t, "cycles:u,instructions:u", false, &unsupported);
	const struct tally_counts *c;
	enum verdict v = T_OK;

	if (!l)
		return hw_or_skip(t, T_FAIL, unsupported);
	tally_evlist__enable(l);
	calls(10000);
	tally_evlist__disable(l);
	tally_evlist__read(l);
	c = tally_evsel__counts(tally_evlist__last(l), 0, 0);
	/* 10000 syscalls are far more than 10000 user instructions */
	if (!c || c->val < 10000)
		v = failed(t, "instructions:u counted %llu for 10000 loop rounds",
			   c ? (unsigned long long)c->val : 0ull);
	tally_evlist__free(l);
	return v;
}

static enum verdict t_selfmon(struct tctx *t)
{
	struct tally_selfmon *sm = tally_selfmon__new_events("instructions:u", NULL);
	uint64_t d[1];
	enum verdict v = T_OK;

	if (!sm)
		return skip(t, "no hardware PMU here: instructions cannot be opened (%s)",
			    strerror(errno));
	if (tally_selfmon__path(sm) == TALLY_SELFMON_PATH_READ) {
		tally_selfmon__free(sm);
		return skip(t, "the kernel gives no user-space counter access here (read() path)");
	}
	tally_selfmon__start(sm);
	calls(1000);
	if (tally_selfmon__stop(sm, d) || d[0] < 1000)
		v = failed(t, "%s read %llu instructions for 1000 loop rounds",
			   tally_selfmon_path__name(tally_selfmon__path(sm)), (unsigned long long)d[0]);
	else
		detail(t, "%s: %llu instructions\n", tally_selfmon_path__name(tally_selfmon__path(sm)),
		       (unsigned long long)d[0]);
	tally_selfmon__free(sm);
	return v;
}

/* More hardware events than counters: the kernel multiplexes, we scale. */
static enum verdict t_multiplex(struct tctx *t)
{
	static const char spec[] =
		"cycles:u,instructions:u,branches:u,branch-misses:u,cache-references:u,"
		"cache-misses:u,cycles:u,instructions:u,branches:u,branch-misses:u,"
		"cache-references:u,cache-misses:u";
	bool unsupported;
	struct tally_evlist *l = self_events(t, spec, false, &unsupported);
	struct tally_evsel *e;
	enum verdict v = T_OK;
	bool scaled = false;

	if (!l)
		return hw_or_skip(t, T_FAIL, unsupported);
	tally_evlist__enable(l);
	calls(200000);
	tally_evlist__disable(l);
	tally_evlist__read(l);
	tally_evlist__for_each_evsel(l, e) {
		const struct tally_counts *c = tally_evsel__counts(e, 0, 0);

		if (c && c->run && c->run < c->ena)
			scaled = true;
		if (c && c->run > c->ena)
			v = failed(t, "%s ran longer than enabled", tally_evsel__name(e));
	}
	if (v == T_OK && !scaled)
		detail(t, "12 events fit the counters: nothing was multiplexed\n");
	tally_evlist__free(l);
	return v;
}

static enum verdict t_pfm(struct tctx *t)
{
	static const char *const names[] = { "INST_RETIRED.ANY", "INST_RETIRED", "INST_RETIRED:ANY_P",
					     "RETIRED_INSTRUCTIONS", "INST_RETIRED.ANY_P" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct tally_events evs = { 0 };

		if (tally_parse_events(names[i], NULL, &evs, NULL) == 0) {
			detail(t, "%s -> type %u config 0x%llx\n", names[i], evs.ev[0].attr.type,
			       (unsigned long long)evs.ev[0].attr.config);
			tally_events__clear(&evs);
			return T_OK;
		}
	}
	return skip(t, "no hardware PMU here: libpfm4 names are offered only with one");
}

static enum verdict t_precise(struct tctx *t)
{
	bool unsupported;
	struct tally_evlist *l = self_events(t, "cycles:pp", true, &unsupported);

	if (!l)
		return hw_or_skip(t, T_FAIL, unsupported || errno == EOPNOTSUPP);
	tally_evlist__free(l);
	return T_OK;
}

/* ---- branch records (LBR, BRBE): PERF_SAMPLE_BRANCH_STACK ---- */

static volatile long branch_sink;

/* Data-dependent branches the CPU must take both ways. */
__attribute__((noinline)) static void branchy(long n)
{
	for (long i = 0; i < n; i++) {
		if ((i * 2654435761u) & 0x100)
			branch_sink += i;
		else
			branch_sink -= 1;
	}
}

struct br_ctx {
	struct tally_record_layout lay;
	uint64_t samples, with_branches, entries, near, bad;
	uintptr_t fn;
};

static int br_cb(void *ctx, const struct perf_event_header *h, int ring)
{
	struct br_ctx *c = ctx;
	struct tally_record r;

	(void)ring;
	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	if (tally_record__parse(h, h->size, &c->lay, &r)) {
		c->bad++;
		return 0;
	}
	c->samples++;
	if (r.u.sample.branch_stack.nr)
		c->with_branches++;
	for (uint64_t i = 0; i < r.u.sample.branch_stack.nr; i++) {
		const struct perf_branch_entry *e = &r.u.sample.branch_stack.entries[i];

		c->entries++;
		/* the loop's own branches: within a page of its entry */
		if (e->from - c->fn < 4096 && e->to - c->fn < 4096)
			c->near++;
	}
	return 0;
}

/*
 * perf record -b: user branches sampled with cycles. Every sample must
 * carry records, and the loop's own branches must be among them.
 */
static enum verdict t_branch_stack(struct tctx *t)
{
	bool unsupported;
	struct tally_evlist *l = self_events_opts(t, "cycles:u", true, 100003,
						  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER,
						  &unsupported);
	struct br_ctx c = { .fn = (uintptr_t)branchy };
	enum verdict v = T_OK;
	int err;

	if (!l) {
		int oe = errno;
		char why[sizeof(t->why)];

		/* the kernel's answer: no PMU, or one without branch records */
		snprintf(why, sizeof(why), "%s", t->why);
		if (unsupported || oe == EOPNOTSUPP || oe == ENOENT || oe == EINVAL)
			return skip(t, "the kernel refuses branch stack sampling: %s", why);
		return T_FAIL;
	}
	tally_record_layout__from_attr(&c.lay, tally_evsel__attr(tally_evlist__first(l)));
	err = tally_evlist__mmap(l, NULL);
	if (err) {
		v = failed(t, "mmap: %s", strerror(-err));
		goto out;
	}
	tally_evlist__enable(l);
	for (int i = 0; i < 20; i++) {
		branchy(2000000);
		tally_evlist__drain(l, br_cb, NULL, &c);
	}
	tally_evlist__disable(l);
	tally_evlist__drain(l, br_cb, NULL, &c);
	if (c.bad)
		v = failed(t, "%llu samples did not parse", (unsigned long long)c.bad);
	else if (!c.samples)
		v = failed(t, "no samples in 40M loop rounds at period 100003");
	else if (c.with_branches < c.samples)
		v = failed(t, "%llu of %llu samples carry no branch records",
			   (unsigned long long)(c.samples - c.with_branches),
			   (unsigned long long)c.samples);
	else if (!c.near)
		v = failed(t, "%llu branch records, none of the sampled loop's own",
			   (unsigned long long)c.entries);
	else
		detail(t, "%llu samples, %llu branch records, %llu in the loop\n",
		       (unsigned long long)c.samples, (unsigned long long)c.entries,
		       (unsigned long long)c.near);
out:
	tally_evlist__free(l);
	return v;
}

/* ---- arm64 event thresholds (FEAT_PMUv3_TH, Armv8.8; Linux 6.9) ---- */

#ifdef __aarch64__
#define ON_ARM64 1
#else
#define ON_ARM64 0
#endif

/* A sysfs file's first line into buf; false when it cannot be read. */
static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, (int)len, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/*
 * val placed as the PMU's format file NAME says ("config1:5-16"): the
 * attr field's index (0 config, 1 config1, 2 config2) and its bits.
 * false when the format is missing or val does not fit.
 */
static bool format_place(const char *pmu_dir, const char *name, uint64_t val, int *field,
			 uint64_t *bits)
{
	char path[PATH_MAX], fmt[128], *p;
	int lo, hi, n;

	snprintf(path, sizeof(path), "%s/format/%s", pmu_dir, name);
	if (!read_line(path, fmt, sizeof(fmt)) || strncmp(fmt, "config", 6))
		return false;
	*field = fmt[6] == ':' ? 0 : fmt[6] - '0';
	p = strchr(fmt, ':');
	if (!p)
		return false;
	n = sscanf(p + 1, "%d-%d", &lo, &hi);
	if (n < 1)
		return false;
	if (n == 1)
		hi = lo;
	if (hi - lo < 63 && val >> (hi - lo + 1))
		return false;
	*bits = val << lo;
	return true;
}

/* The counts of spec on this thread over n rounds of branchy(). */
static bool count_of(struct tctx *t, const char *spec, long n, uint64_t *val, int *err)
{
	bool unsupported;
	struct tally_evlist *l = self_events(t, spec, false, &unsupported);
	const struct tally_counts *c;

	*err = l ? 0 : errno;
	if (!l)
		return false;
	tally_evlist__enable(l);
	branchy(n);
	tally_evlist__disable(l);
	c = tally_evlist__read(l) ? NULL : tally_evsel__counts(tally_evlist__first(l), 0, 0);
	if (c)
		*val = c->val;
	tally_evlist__free(l);
	return c != NULL;
}

/*
 * PMU/event=0x11,threshold=T,threshold_compare=C[,threshold_count]/: the
 * parser puts the values where the PMU's format files say; CPU_CYCLES
 * (one a cycle) with "count when >= 1" counts, with ">= 2" never does; a
 * threshold above caps/threshold_max is refused by the kernel.
 */
static enum verdict t_arm64_threshold(struct tctx *t)
{
	static const char devs[] = "/sys/bus/event_source/devices";
	char pmu[256] = "", dir[PATH_MAX], path[PATH_MAX + 32], buf[64], spec[512];
	struct tally_events evs = { 0 };
	struct tally_parse_error pe = { 0 };
	uint64_t want[3] = { 0 }, bits, max, n1 = 0, n2 = 1;
	struct dirent *d;
	int field, err;
	DIR *dd;

	if (!ON_ARM64)
		return skip(t, "not arm64: event thresholds are an Armv8.8 PMU feature "
			       "(FEAT_PMUv3_TH)");
	dd = opendir(devs);
	while (dd && (d = readdir(dd)) && !pmu[0]) {
		snprintf(path, sizeof(path), "%s/%s/format/threshold", devs, d->d_name);
		if (!strncmp(d->d_name, "armv8", 5) && !access(path, R_OK))
			snprintf(pmu, sizeof(pmu), "%s", d->d_name);
	}
	if (dd)
		closedir(dd);
	if (!pmu[0])
		return skip(t, "no arm64 PMU with a threshold format in %s (a PMU driver "
			       "before Linux 6.9, or no PMU)", devs);
	snprintf(dir, sizeof(dir), "%s/%s", devs, pmu);
	snprintf(path, sizeof(path), "%s/caps/threshold_max", dir);
	if (!read_line(path, buf, sizeof(buf)) || !(max = strtoull(buf, NULL, 0)))
		return skip(t, "%s: caps/threshold_max is 0: this CPU has no FEAT_PMUv3_TH", pmu);

	/* the attr the parser builds, against the format files */
	if (!format_place(dir, "event", 0x11, &field, &bits))
		return failed(t, "%s: no usable format/event", pmu);
	want[field] |= bits;
	if (!format_place(dir, "threshold", max < 3 ? max : 3, &field, &bits))
		return failed(t, "%s: format/threshold unusable", pmu);
	want[field] |= bits;
	if (!format_place(dir, "threshold_compare", 2, &field, &bits))
		return failed(t, "%s: format/threshold_compare unusable", pmu);
	want[field] |= bits;
	if (!format_place(dir, "threshold_count", 1, &field, &bits))
		return failed(t, "%s: format/threshold_count unusable", pmu);
	want[field] |= bits;
	snprintf(spec, sizeof(spec), "%s/event=0x11,threshold=%llu,threshold_compare=2,"
		 "threshold_count/", pmu, (unsigned long long)(max < 3 ? max : 3));
	err = tally_parse_events(spec, NULL, &evs, &pe);
	if (err)
		return failed(t, "%s: %s", spec, pe.msg[0] ? pe.msg : strerror(-err));
	if (evs.ev[0].attr.config != want[0] || evs.ev[0].attr.config1 != want[1] ||
	    evs.ev[0].attr.config2 != want[2]) {
		failed(t, "%s: config %#llx/%#llx/%#llx, the format files say %#llx/%#llx/%#llx",
		       spec, (unsigned long long)evs.ev[0].attr.config,
		       (unsigned long long)evs.ev[0].attr.config1,
		       (unsigned long long)evs.ev[0].attr.config2, (unsigned long long)want[0],
		       (unsigned long long)want[1], (unsigned long long)want[2]);
		tally_events__clear(&evs);
		return T_FAIL;
	}
	tally_events__clear(&evs);

	/* counting: cycles come one at a time */
	snprintf(spec, sizeof(spec), "%s/event=0x11,threshold=1,threshold_compare=2/u", pmu);
	if (!count_of(t, spec, 1000000, &n1, &err))
		return failed(t, "%s: %s", spec, t->why);
	snprintf(spec, sizeof(spec), "%s/event=0x11,threshold=2,threshold_compare=2/u", pmu);
	if (!count_of(t, spec, 1000000, &n2, &err))
		return failed(t, "%s: %s", spec, t->why);
	if (!n1 || n2)
		return failed(t, "CPU_CYCLES >= 1 a cycle counted %llu (want > 0), >= 2 counted "
			       "%llu (want 0)", (unsigned long long)n1, (unsigned long long)n2);
	detail(t, "%s: threshold_max %llu; cycles >= 1: %llu, >= 2: 0\n", pmu,
	       (unsigned long long)max, (unsigned long long)n1);
	/* above the maximum: the kernel says no (the parser allows 12 bits) */
	if (max < 4095) {
		snprintf(spec, sizeof(spec), "%s/event=0x11,threshold=%llu/u", pmu,
			 (unsigned long long)max + 1);
		if (count_of(t, spec, 1000, &n2, &err))
			return failed(t, "%s opened: a threshold above threshold_max (%llu)", spec,
				      (unsigned long long)max);
	}
	return T_OK;
}

static enum verdict t_probes(struct tctx *t)
{
	for (int f = 0; f < TALLY_FEAT__NR; f++)
		detail(t, "%-20s %s\n", tally_feature__name(f), tally_kernel_has(f) ? "yes" : "no");
	if (!tally_kernel_has(TALLY_FEAT_SAMPLE_ID_ALL) || !tally_kernel_has(TALLY_FEAT_MMAP2))
		return failed(t, "this kernel lacks sample_id_all or mmap2 (Linux < 3.16?)");
	return T_OK;
}

static const struct check {
	const char *name;
	enum verdict (*fn)(struct tctx *t);
} checks[] = {
	{ "Tracepoint counts exactly (12345 getpid)", t_tracepoint },
	{ "Breakpoint mem:ADDR:w:u counts exactly (1000 writes)", t_breakpoint },
	{ "Uprobe counts exactly (777 calls)", t_uprobe },
	{ "Uretprobe counts exactly (777 returns)", t_uretprobe },
	{ "Group read: one read() for 3 events", t_group_read },
	{ "Inherit: 4 threads x 1000 getpid", t_inherit },
	{ "Sampling into the rings: samples + lost == calls", t_sampling },
	{ "perf.data round trip: 5000 samples written and read back", t_roundtrip },
	{ "Kernel features record needs", t_probes },
	{ "Hardware: cycles and instructions count", t_hw_cycles },
	{ "Hardware: self-monitoring reads (rdpmc/mrs)", t_selfmon },
	{ "Hardware: multiplexed events scale", t_multiplex },
	{ "Hardware: libpfm4 event names", t_pfm },
	{ "Hardware: precise sampling (cycles:pp)", t_precise },
	{ "Hardware: branch stack sampling (-b)", t_branch_stack },
	{ "Hardware: arm64 event thresholds (FEAT_PMUv3_TH)", t_arm64_threshold },
};

static bool selected(int i, char **want, int nwant)
{
	if (!nwant)
		return true;
	for (int k = 0; k < nwant; k++) {
		char *end;
		long n = strtol(want[k], &end, 10);

		if (*end == '\0' ? n == i + 1 : strcasestr(checks[i].name, want[k]) != NULL)
			return true;
	}
	return false;
}

static const char *const test_usage[] = {
	"tally test [-v] [--list] [N|SUBSTRING...]",
	"",
	"Run tally's self-test on this machine, as perf test does: each check",
	"has an exact oracle (N calls -> N counts) and prints Ok, FAILED or",
	"Skip with the reason. Exit status 1 when a check failed.",
	NULL,
};

int cmd_test(int argc, char **argv)
{
	struct tctx t = { 0 };
	bool list = false, help = false;
	const struct cli_option opts[] = {
		CLI_COUNT('v', "verbose", &t.verbose, "show each check's details"),
		CLI_BOOL('l', "list", &list, "list the checks"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	char **want = argv;
	int nwant, nfail = 0;

	nwant = cli_parse("test", opts, argc, argv, stderr, CLI_PARSE_KEEP_GOING);
	if (nwant < 0)
		return 129;
	if (help) {
		cli_usage(stdout, test_usage, opts);
		return 0;
	}
	for (int i = 0; i < (int)(sizeof(checks) / sizeof(checks[0])); i++) {
		enum verdict v;

		if (!selected(i, want, nwant))
			continue;
		if (list) {
			printf("%3d: %s\n", i + 1, checks[i].name);
			continue;
		}
		printf("%3d: %-60s:", i + 1, checks[i].name);
		if (t.verbose)
			printf("\n");
		fflush(stdout);
		t.why[0] = '\0';
		v = checks[i].fn(&t);
		if (t.verbose)
			printf("%3d: %-60s:", i + 1, checks[i].name);
		if (v == T_OK)
			printf(" Ok\n");
		else if (v == T_SKIP)
			printf(" Skip (%s)\n", t.why);
		else
			printf(" FAILED!%s%s\n", t.why[0] ? " " : "", t.why);
		nfail += v == T_FAIL;
		fflush(stdout);
	}
	return nfail ? 1 : 0;
}
