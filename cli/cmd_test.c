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
	char why[256];	/* the reason for a skip or a failure */
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

/* An evlist of spec on this thread (any CPU); why says why not. */
static struct tally_evlist *self_events(struct tctx *t, const char *spec, bool sample,
					bool *unsupported)
{
	struct tally_parse_error pe = { 0 };
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *thr = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	TALLY_OPTS(tally_config_opts, co, .sample = sample, .no_inherit = true);
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
