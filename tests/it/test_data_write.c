// SPDX-License-Identifier: MIT
/*
 * The perf.data writer against perf 6.1 as the oracle: a real sampling
 * evlist's records go through tally_data_writer, then `perf script`
 * must list exactly the N getpid() samples made, `perf report` must read
 * the file with rc 0 and nothing on stderr, and our own reader must
 * see the same N samples. Also: task-clock with call chains resolves
 * this program's hot function (synthesized MMAP2 + build ids), pipe
 * mode, zstd COMPRESSED records, and a full disk (a 256 KiB tmpfs):
 * -ENOSPC comes back and perf still reads what was saved.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "oracle_util.h"

static char dir[64];

static bool have_perf(void)
{
	return system("perf --version >/dev/null 2>&1") == 0;
}

/* Run cmd (sh), stdout and stderr to files; the exit code. */
static int run(const char *cmd, const char *out, const char *err)
{
	char full[2048];
	int st;

	snprintf(full, sizeof(full), "%s >%s 2>%s", cmd, out, err);
	st = system(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	if (n && fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = 0;
	fclose(f);
	return buf;
}

static long count_lines(const char *text, const char *needle)
{
	long n = 0;

	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (memmem(l, len, needle, strlen(needle)))
			n++;
		l = e ? e + 1 : NULL;
	}
	return n;
}

struct rec {
	struct tally_evlist *l;
	struct tally_data_writer *w;
	int werr;		/* first writer error */
};

static int out_cb(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct rec *r = ctx;
	int err = tally_data_writer__writev(r->w, iov, n);

	if (err < 0 && !r->werr)
		r->werr = err;
	(void)ring;
	return err < 0;
}

static struct tally_evlist *sampler(const char *spec, const struct tally_config_opts *o)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());

	assert_non_null(l);
	assert_int_equal(tally_evlist__add_parsed(l, spec, NULL, NULL), 0);
	assert_int_equal(tally_evlist__config(l, o), 0);
	assert_int_equal(tally_evlist__open(l, cpus, thr, NULL), 0);
	assert_int_equal(tally_evlist__mmap(l, NULL), 0);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
	return l;
}

static void add_attrs(struct tally_data_writer *w, struct tally_evlist *l)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(l, e) {
		int nc = tally_evsel__nr_cpus(e), nt = tally_evsel__nr_threads(e);
		uint64_t *ids = calloc((size_t)(nc * nt) + 1, sizeof(*ids));
		size_t n = 0;

		assert_non_null(ids);
		for (int c = 0; c < nc; c++)
			for (int t = 0; t < nt; t++)
				if (tally_evsel__id(e, c, t, &ids[n]) == 0)
					n++;
		assert_int_equal(tally_data_writer__add_attr(w, tally_evsel__attr(e), ids, n,
							     tally_evsel__name(e)), 0);
		free(ids);
	}
}

static void add_build_ids(struct tally_data_writer *w)
{
	uint8_t id[20];
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int len;

	len = tally_build_id__kernel(id, sizeof(id));
	if (len > 0)
		assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, id,
								 (size_t)len, "[kernel.kallsyms]"), 0);
	assert_true(n > 0);
	self[n] = 0;
	len = tally_build_id__file(self, id, sizeof(id));
	if (len > 0)
		assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, id,
								 (size_t)len, self), 0);
}

typedef void (*work_fn)(long n);

struct rec_opts {
	const char *spec;
	struct tally_config_opts *cfg;
	bool pipe;
	int zstd;
	work_fn work;
	long n;
	int expect_finish;	/* 0, or -ENOSPC */
};

/* Record work(n) into path; returns the writer's uncompressed bytes. */
static uint64_t record(const char *path, const struct rec_opts *o)
{
	static const char *argv[] = { "test_data_write", "record" };
	TALLY_OPTS(tally_data_writer_opts, wo, .pipe = o->pipe, .zstd_level = o->zstd,
		   .cmdline = argv, .cmdline_nr = 2);
	struct rec r = { 0 };
	const struct perf_event_attr *a;
	uint64_t unc;
	int fd, err;

	r.l = sampler(o->spec, o->cfg);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	r.w = tally_data_writer__new_fd(fd, &wo);
	assert_non_null(r.w);
	add_attrs(r.w, r.l);
	a = tally_evsel__attr(tally_evlist__first(r.l));
	assert_int_equal(tally_data_writer__begin(r.w), 0);
	assert_int_equal(tally_synth__kernel_mmap(r.w, a), 0);
	assert_int_equal(tally_synth__process(r.w, a, getpid(), true), 0);
	assert_int_equal(tally_evlist__enable(r.l), 0);
	for (int k = 0; k < 10; k++) {
		o->work(o->n / 10);
		if (!r.werr) {
			err = tally_evlist__drain(r.l, NULL, out_cb, &r);
			assert_true(err >= 0 || (err == -ECANCELED && r.werr));
			if (!r.werr)
				assert_int_equal(tally_data_writer__finished_round(r.w), 0);
		}
	}
	assert_int_equal(tally_evlist__disable(r.l), 0);
	if (!r.werr) {
		err = tally_evlist__drain(r.l, NULL, out_cb, &r);
		assert_true(err >= 0 || (err == -ECANCELED && r.werr));
	}
	add_build_ids(r.w);
	err = tally_data_writer__finish(r.w);
	if (o->expect_finish) {
		assert_int_equal(r.werr, o->expect_finish);
		assert_int_equal(err, o->expect_finish);
	} else {
		assert_int_equal(r.werr, 0);
		assert_int_equal(err, 0);
	}
	unc = tally_data_writer__uncompressed(r.w);
	if (!o->zstd && !o->expect_finish)
		assert_true(tally_data_writer__bytes(r.w) > unc);
	tally_data_writer__free(r.w);
	close(fd);
	tally_evlist__free(r.l);
	return unc;
}

static void getpids(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void getpid_close(long n)
{
	for (long i = 0; i < n; i++) {
		syscall(SYS_getpid);
		syscall(SYS_close, -100);
	}
}

static volatile uint64_t sink;

__attribute__((noinline)) void tally_test_hot_loop(long n);
__attribute__((noinline)) void tally_test_hot_loop(long n)
{
	/* n ms of CPU */
	struct timespec t0, t;
	uint64_t x = sink;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < n);
	sink = x;
}

/* n ms of CPU, mostly in the kernel (reading /dev/zero) */
static void kernel_work(long n)
{
	static char buf[1 << 20];
	struct timespec t0, t;
	int fd = open("/dev/zero", O_RDONLY);

	assert_true(fd >= 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		assert_true(read(fd, buf, sizeof(buf)) > 0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < n);
	close(fd);
}

struct counted {
	struct tally_data_reader *r;
	long samples, mine;
	pid_t pid;
};

static int on_rec(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	struct counted *c = ctx;
	struct tally_record_layout lay;
	struct tally_record rec;

	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	c->samples++;
	if (idx < 0) {	/* several attrs: PERF_SAMPLE_IDENTIFIER first */
		uint64_t id;

		memcpy(&id, h + 1, 8);
		idx = tally_data_reader__attr_of_id(c->r, id);
		assert_true(idx >= 0);
	}
	tally_record_layout__from_attr(&lay, tally_data_reader__attr(c->r, idx));
	assert_int_equal(tally_record__parse(h, h->size, &lay, &rec), 0);
	c->mine += rec.u.sample.pid == (uint32_t)c->pid;
	(void)off;
	(void)idx;
	return 0;
}

static long reader_samples(const char *path)
{
	struct tally_data_reader *r = tally_data_reader__open(path);
	struct counted c = { .r = r, .pid = getpid() };

	assert_non_null(r);
	assert_true(tally_data_reader__foreach(r, on_rec, &c) >= 0);
	assert_null(tally_data_reader__error(r));
	tally_data_reader__close(r);
	assert_int_equal(c.mine, c.samples);
	return c.samples;
}

/* perf script / report over path (or over stdin when pipe). */
static void perf_check(const char *path, bool pipe, long n_getpid, const char *must_see)
{
	char cmd[1024], out[128], err[128];
	char *o, *e;
	int rc;

	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	if (pipe)
		snprintf(cmd, sizeof(cmd), "cat %s | perf script -i -", path);
	else
		snprintf(cmd, sizeof(cmd), "perf script -i %s", path);
	rc = run(cmd, out, err);
	o = slurp(out);
	e = slurp(err);
	if (rc || *e)
		print_message("perf script rc %d stderr: %s\n", rc, e);
	assert_int_equal(rc, 0);
	assert_string_equal(e, "");
	if (n_getpid >= 0)
		assert_int_equal(count_lines(o, "sys_enter_getpid"), n_getpid);
	/* tracepoint fields print through TRACING_DATA: close(-100) */
	if (n_getpid > 0 && strstr(o, "sys_enter_close"))
		assert_int_equal(count_lines(o, "fd: 0xffffff9c"), n_getpid);
	free(o);
	free(e);

	if (pipe)
		snprintf(cmd, sizeof(cmd), "cat %s | perf report --stdio -i - --sort dso,sym", path);
	else
		snprintf(cmd, sizeof(cmd), "perf report --stdio -i %s --sort dso,sym", path);
	rc = run(cmd, out, err);
	o = slurp(out);
	e = slurp(err);
	if (rc || *e)
		print_message("perf report rc %d stderr: %s\n", rc, e);
	assert_int_equal(rc, 0);
	assert_string_equal(e, "");
	if (must_see) {
		if (!strstr(o, must_see))
			print_message("perf report:\n%s\n", o);
		assert_non_null(strstr(o, must_see));
	}
	free(o);
	free(e);
}

static bool can_trace(void)
{
	return tp_id("syscalls", "sys_enter_getpid") >= 0;
}

static void test_getpid_file(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true);
	struct rec_opts o = { .spec = "syscalls:sys_enter_getpid,syscalls:sys_enter_close",
			      .cfg = &cfg, .work = getpid_close, .n = 5000 };
	char path[128];

	if (!have_perf() || !can_trace())
		skip();
	snprintf(path, sizeof(path), "%s/getpid.data", dir);
	record(path, &o);
	perf_check(path, false, o.n, NULL);
	assert_int_equal(reader_samples(path), 2 * o.n);
}

static void test_task_clock_callchain(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true, .freq = 1000,
		   .callchain = TALLY_CALLCHAIN_FP);
	struct rec_opts o = { .spec = "task-clock", .cfg = &cfg, .work = tally_test_hot_loop,
			      .n = 400 };
	char path[128];

	if (!have_perf())
		skip();
	snprintf(path, sizeof(path), "%s/clock.data", dir);
	record(path, &o);
	perf_check(path, false, -1, "tally_test_hot_loop");
	assert_true(reader_samples(path) > 50);
}

/* The synthesized kernel map resolves kernel samples through kallsyms. */
static void test_kernel_symbols(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true, .freq = 1000);
	struct rec_opts o = { .spec = "task-clock", .cfg = &cfg, .work = kernel_work, .n = 300 };
	char path[128], cmd[256], out[128], err[128];
	char *text;
	long k, unknown;

	if (!have_perf())
		skip();
	snprintf(path, sizeof(path), "%s/kernel.data", dir);
	record(path, &o);
	perf_check(path, false, -1, "[kernel.kallsyms]");
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "perf script -F ip,sym,dso -i %s", path);
	assert_int_equal(run(cmd, out, err), 0);
	text = slurp(out);
	k = count_lines(text, "([kernel.kallsyms])");
	unknown = count_lines(text, "[unknown] ([kernel.kallsyms])");
	if (k == 0 || unknown)
		print_message("# kernel samples %ld, unresolved %ld\n", k, unknown);
	assert_true(k > 50);
	assert_int_equal(unknown, 0);
	free(text);
}

static void test_pipe(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true);
	struct rec_opts o = { .spec = "syscalls:sys_enter_getpid,syscalls:sys_enter_close",
			      .cfg = &cfg, .work = getpid_close, .n = 3000, .pipe = true };
	char path[128];

	if (!have_perf() || !can_trace())
		skip();
	snprintf(path, sizeof(path), "%s/pipe.data", dir);
	record(path, &o);
	perf_check(path, true, o.n, NULL);
}

static void test_pipe_task_clock(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true, .freq = 1000,
		   .callchain = TALLY_CALLCHAIN_FP);
	struct rec_opts o = { .spec = "task-clock", .cfg = &cfg, .work = tally_test_hot_loop,
			      .n = 300, .pipe = true };
	char path[128];

	if (!have_perf())
		skip();
	snprintf(path, sizeof(path), "%s/pipe2.data", dir);
	record(path, &o);
	perf_check(path, true, -1, "tally_test_hot_loop");
}

static void test_zstd(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true);
	struct rec_opts o = { .spec = "syscalls:sys_enter_getpid", .cfg = &cfg, .work = getpids,
			      .n = 20000, .zstd = 3 };
	char path[128];
	struct stat st;
	uint64_t unc;

	if (!have_perf() || !can_trace())
		skip();
	snprintf(path, sizeof(path), "%s/z.data", dir);
	unc = record(path, &o);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size < unc / 2);
	perf_check(path, false, o.n, NULL);
}

static void test_zstd_pipe(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true);
	struct rec_opts o = { .spec = "syscalls:sys_enter_getpid", .cfg = &cfg, .work = getpids,
			      .n = 20000, .zstd = 1, .pipe = true };
	char path[128];

	if (!have_perf() || !can_trace())
		skip();
	snprintf(path, sizeof(path), "%s/zp.data", dir);
	record(path, &o);
	perf_check(path, true, o.n, NULL);
}

static void test_full_disk(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true);
	struct rec_opts o = { .spec = "syscalls:sys_enter_getpid", .cfg = &cfg, .work = getpids,
			      .n = 50000, .expect_finish = -ENOSPC };
	char mnt[128], path[160], cmd[256], out[128], err[128];
	long seen, in_script;
	char *text;

	if (!have_perf() || !can_trace())
		skip();
	snprintf(mnt, sizeof(mnt), "%s/small", dir);
	assert_int_equal(mkdir(mnt, 0755), 0);
	if (mount("none", mnt, "tmpfs", 0, "size=256k") < 0) {
		rmdir(mnt);
		skip();
	}
	snprintf(path, sizeof(path), "%s/full.data", mnt);
	record(path, &o);
	/* what was saved reads back: perf and our reader agree on the count */
	seen = reader_samples(path);
	print_message("# saved %ld of %ld samples\n", seen, o.n);
	assert_true(seen > 100 && seen < o.n);
	snprintf(cmd, sizeof(cmd), "perf script -i %s", path);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	assert_int_equal(run(cmd, out, err), 0);
	text = slurp(out);
	in_script = count_lines(text, "sys_enter_getpid");
	free(text);
	assert_int_equal(in_script, seen);
	perf_check(path, false, seen, NULL);
	umount(mnt);
	rmdir(mnt);
}

/* perf -a's prologue: FORK + COMM for every thread, MMAP2 of the leaders. */
static void test_synth_all(void **state)
{
	struct perf_event_attr a;
	struct tally_data_writer *w;
	char path[128], cmd[256], out[128], err[128], mine[64];
	char *o, *e;
	int fd;

	if (!have_perf())
		skip();
	snprintf(path, sizeof(path), "%s/all.data", dir);
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.sample_period = 100000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.sample_id_all = 1;
	a.mmap = a.comm = a.task = a.mmap2 = 1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	assert_int_equal(tally_synth__kernel_mmap(w, &a), 0);
	assert_int_equal(tally_synth__all(w, &a), 0);
	assert_int_equal(tally_synth__process(w, &a, 0, false), -EINVAL);
	assert_int_equal(tally_synth__process(w, &a, 0x7ffffff0, false), -ESRCH);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);

	snprintf(cmd, sizeof(cmd), "perf script --show-task-events --show-mmap-events -i %s", path);
	assert_int_equal(run(cmd, out, err), 0);
	o = slurp(out);
	e = slurp(err);
	assert_string_equal(e, "");
	assert_true(count_lines(o, "PERF_RECORD_FORK") >= 10);
	assert_true(count_lines(o, "PERF_RECORD_COMM") == count_lines(o, "PERF_RECORD_FORK"));
	assert_true(count_lines(o, "PERF_RECORD_MMAP2") >= 10);
	/* this very thread, with its own executable mapped */
	snprintf(mine, sizeof(mine), "PERF_RECORD_COMM: test_data_write:%d/%d", getpid(), getpid());
	assert_non_null(strstr(o, mine));
	free(o);
	free(e);
}

/* use_clockid: CLOCKID and CLOCK_DATA features; perf still reads it all. */
static void test_clockid(void **state)
{
	TALLY_OPTS(tally_config_opts, cfg, .sample = true, .freq = 1000, .use_clockid = true,
		   .clockid = CLOCK_MONOTONIC);
	struct rec_opts o = { .spec = "task-clock", .cfg = &cfg, .work = tally_test_hot_loop,
			      .n = 200 };
	char path[128], cmd[256], out[128], err[128];
	char *text;

	if (!have_perf())
		skip();
	snprintf(path, sizeof(path), "%s/clockid.data", dir);
	record(path, &o);
	perf_check(path, false, -1, "tally_test_hot_loop");
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s", path);
	assert_int_equal(run(cmd, out, err), 0);
	text = slurp(out);
	assert_non_null(strstr(text, "clockid frequency"));
	assert_null(strstr(text, "missing features: TRACING_DATA BUILD_ID"));
	assert_non_null(strstr(text, "# time of first sample : "));
	assert_null(strstr(text, "SAMPLE_TIME"));	/* not among the missing */
	free(text);
}

static void test_build_ids(void **state)
{
	uint8_t id[20], id2[20];
	char cmd[512], out[128], err[128], hex[41];
	char *text;
	int n;

	n = tally_build_id__kernel(id, sizeof(id));
	assert_int_equal(n, 20);
	/* /proc/self/exe: the same id perf sees */
	n = tally_build_id__file("/proc/self/exe", id2, sizeof(id2));
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id2[i]);
	if (!have_perf())
		return;
	snprintf(out, sizeof(out), "%s/out.txt", dir);
	snprintf(err, sizeof(err), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i /proc/self/exe");
	/* buildid-list -i ELF prints the build id of that file */
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i /proc/%d/exe", getpid());
	assert_int_equal(run(cmd, out, err), 0);
	text = slurp(out);
	assert_non_null(strstr(text, hex));
	free(text);
	assert_int_equal(tally_build_id__file("/nonexistent", id, sizeof(id)), -ENOENT);
	assert_int_equal(tally_build_id__file("/proc/self/status", id, sizeof(id)), -ENOEXEC);
}

/* The build ids written are the ones the reader finds, by the file's path. */
static void test_build_id_lookup(void **state)
{
	uint8_t a_id[20], b_id[16], got[20];
	struct perf_event_attr a;
	struct tally_data_writer *w;
	struct tally_data_reader *r;
	char path[128];
	int fd;

	for (int i = 0; i < 20; i++)
		a_id[i] = (uint8_t)(0xa0 + i);
	for (int i = 0; i < 16; i++)
		b_id[i] = (uint8_t)(0x10 + i);
	snprintf(path, sizeof(path), "%s/bid.data", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(tally_data_writer__add_attr(w, &a, NULL, 0, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, a_id, 20,
							 "/usr/lib/a.so"), 0);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, b_id, 16,
							 "/usr/lib/b.so"), 0);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);

	r = tally_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__build_id(r, "/usr/lib/a.so", got), 20);
	assert_memory_equal(got, a_id, 20);
	assert_int_equal(tally_data_reader__build_id(r, "/usr/lib/b.so", got), 16);
	assert_memory_equal(got, b_id, 16);
	assert_int_equal(tally_data_reader__build_id(r, "/usr/lib/c.so", got), 0);
	assert_int_equal(tally_data_reader__build_id(r, "/usr/lib/a", got), 0);
	assert_int_equal(tally_data_reader__build_id(NULL, "/usr/lib/a.so", got), 0);
	tally_data_reader__close(r);
}

static void test_errors(void **state)
{
	struct perf_event_attr a;
	struct tally_data_writer *w;
	int p[2];

	assert_null(tally_data_writer__new_fd(-1, NULL));
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pipe(p), 0);
	w = tally_data_writer__new_fd(p[1], NULL);
	assert_non_null(w);
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(tally_data_writer__add_attr(w, &a, NULL, 0, "task-clock"), 0);
	/* a pipe without opts.pipe: file mode needs to seek */
	assert_int_equal(tally_data_writer__begin(w), -ESPIPE);
	assert_int_equal(tally_data_writer__write(w, "x", 1), -EINVAL);
	tally_data_writer__free(w);
	close(p[0]);
	close(p[1]);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/tally-dw.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	/* a failed full-disk test leaves its tmpfs mounted */
	snprintf(cmd, sizeof(cmd), "%s/small", dir);
	if (umount2(cmd, MNT_DETACH) == 0)
		rmdir(cmd);
	if (getenv("KEEP"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getpid_file),
		cmocka_unit_test(test_task_clock_callchain),
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_synth_all),
		cmocka_unit_test(test_clockid),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_kernel_symbols),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_pipe_task_clock),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_zstd_pipe),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_build_id_lookup),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
