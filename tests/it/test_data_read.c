// SPDX-License-Identifier: MIT
/*
 * perf.data reader against perf 6.1: a file perf records here must give
 * the same number of SAMPLE records as `perf script` prints, and a copy cut
 * inside the data section must give every whole record before the cut and
 * an error at the cut. The header features read through the reader's
 * accessors say what perf report --header says; a session over the file
 * delivers the samples perf script prints, in time order, with threads
 * and symbols.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/data_read.h>
#include <tally/session.h>

static char dir[] = "/tmp/tally-dr.XXXXXX";
static char data[256];

struct counts { uint64_t samples, records, last_end; };

static int count(void *ctx, const struct perf_event_header *h,
		 uint64_t off, int idx)
{
	struct counts *c = ctx;

	c->records++;
	c->samples += h->type == PERF_RECORD_SAMPLE;
	c->last_end = off + h->size;
	return 0;
}

static uint64_t run_count(const char *cmd)
{
	FILE *f = popen(cmd, "r");
	unsigned long long n = 0;

	assert_non_null(f);
	if (fscanf(f, "%llu", &n) != 1)
		n = ~0ULL;
	pclose(f);
	return n;
}

static void test_samples_match_perf_script(void **state)
{
	char cmd[600];
	struct tally_data_reader *r;
	struct counts c = { 0 };

	if (!data[0])
		skip();
	r = tally_data_reader__open(data);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__nr_attrs(r), 1);
	assert_int_equal(tally_data_reader__foreach(r, count, &c), 0);
	assert_null(tally_data_reader__error(r));
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s -F pid,tid,time 2>/dev/null | wc -l", data);
	assert_true(c.samples > 0);
	assert_int_equal(c.samples, run_count(cmd));
	tally_data_reader__close(r);
}

static void test_truncated_keeps_records_before_cut(void **state)
{
	struct tally_data_reader *r;
	struct counts full = { 0 }, cut = { 0 };
	const struct tally_data_error *e;
	char path[300], cmd[700];
	struct stat st;

	if (!data[0])
		skip();
	r = tally_data_reader__open(data);
	assert_non_null(r);
	tally_data_reader__foreach(r, count, &full);
	tally_data_reader__close(r);
	assert_int_equal(stat(data, &st), 0);
	/* cut in the middle of the records: perf's data section ends before
	 * the feature sections, so half of last_end lies inside it */
	snprintf(path, sizeof(path), "%s/cut.data", dir);
	snprintf(cmd, sizeof(cmd), "head -c %llu %s > %s",
		 (unsigned long long)full.last_end / 2 + 3, data, path);
	assert_int_equal(system(cmd), 0);
	r = tally_data_reader__open(path);
	assert_non_null(r);
	assert_int_equal(tally_data_reader__foreach(r, count, &cut), -ENODATA);
	e = tally_data_reader__error(r);
	assert_non_null(e);
	assert_int_equal(e->offset, cut.last_end);
	/* the bad record is the one the cut went through */
	assert_true(e->offset <= full.last_end / 2 + 3);
	assert_true(cut.records > 0 && cut.records < full.records);
	tally_data_reader__close(r);
}

static void test_garbage_is_rejected(void **state)
{
	static const uint8_t junk[200] = { 'P', 'E', 'R', 'F' };

	assert_null(tally_data_reader__open_mem(junk, sizeof(junk)));
	assert_int_equal(errno, EBADMSG);
}

/* perf report --header-only's value for "# LABEL : " */
static void perf_header(const char *label, char *out, size_t len)
{
	char cmd[700];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "perf report --header-only -i %s 2>/dev/null | "
		 "sed -n 's/^# %s : //p' | head -1", data, label);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	pclose(f);
}

static void test_header_features_match_perf(void **state)
{
	struct tally_data_reader *r;
	const struct tally_event_desc *ev;
	const char *argv[8];
	char want[512], got[64];
	uint32_t online, avail;
	uint64_t kib;

	if (!data[0])
		skip();
	r = tally_data_reader__open(data);
	assert_non_null(r);
	perf_header("hostname", want, sizeof(want));
	assert_string_equal(tally_data_reader__feat_string(r, TALLY_HEADER_HOSTNAME), want);
	perf_header("os release", want, sizeof(want));
	assert_string_equal(tally_data_reader__feat_string(r, TALLY_HEADER_OSRELEASE), want);
	perf_header("arch", want, sizeof(want));
	assert_string_equal(tally_data_reader__feat_string(r, TALLY_HEADER_ARCH), want);
	perf_header("cpuid", want, sizeof(want));
	assert_string_equal(tally_data_reader__feat_string(r, TALLY_HEADER_CPUID), want);
	assert_int_equal(tally_data_reader__nrcpus(r, &online, &avail), 0);
	perf_header("nrcpus online", want, sizeof(want));
	snprintf(got, sizeof(got), "%u", online);
	assert_string_equal(got, want);
	assert_int_equal(tally_data_reader__total_mem(r, &kib), 0);
	perf_header("total memory", want, sizeof(want));
	snprintf(got, sizeof(got), "%llu kB", (unsigned long long)kib);
	assert_string_equal(got, want);
	/* perf record's own argv: "perf record -q -o FILE ..." */
	assert_true(tally_data_reader__cmdline(r, argv, 8) >= 4);
	assert_string_equal(argv[1], "record");
	assert_int_equal(tally_data_reader__event_descs(r, &ev), 1);
	assert_string_equal(ev[0].name, tally_data_reader__event_name(r, 0));
	assert_int_equal(ev[0].attr.sample_type, tally_data_reader__attr(r, 0)->sample_type);
	assert_true(ev[0].nr_ids >= 1);
	/* not a string feature; one the file lacks */
	assert_null(tally_data_reader__feat_string(r, TALLY_HEADER_NRCPUS));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(tally_header_feature__name(TALLY_HEADER_PMU_CAPS), "PMU_CAPS");
	assert_null(tally_header_feature__name(TALLY_HEADER_LAST_FEATURE));
	tally_data_reader__close(r);
}

struct seen { uint64_t n, last_time, with_comm, with_sym, frames; int stop_at; bool ordered; };

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct seen *v = ctx;
	struct tally_frame f[64];
	int n;

	v->ordered &= smp->sample->time >= v->last_time;
	v->last_time = smp->sample->time;
	v->with_comm += smp->thread.comm && !strcmp(smp->thread.comm, "work");
	n = tally_session__frames(s, smp, f, 64);
	assert_true(n >= 1);
	v->frames += (uint64_t)n;
	v->with_sym += f[0].sym && f[0].ip == smp->sample->ip;
	return ++v->n == (uint64_t)v->stop_at ? 7 : 0;
}

static void test_session_delivers_perf_script_samples(void **state)
{
	char cmd[600];
	struct seen v = { .ordered = true };
	TALLY_OPTS(tally_session_opts, o, .sample = on_sample, .ctx = &v);
	TALLY_OPTS(tally_session_stats, st);
	struct tally_session *s;
	uint64_t want;
	FILE *p;

	if (!data[0])
		skip();
	snprintf(cmd, sizeof(cmd), "perf script -F ip -G -i %s 2>/dev/null | wc -l", data);
	want = run_count(cmd);
	s = tally_session__open(data, &o);
	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(v.n, want);
	assert_true(v.ordered);
	/* the workload's samples carry its name; their leaf resolves */
	assert_true(v.with_comm > v.n / 2);
	assert_true(v.with_sym > v.n / 2);
	assert_true(v.frames > v.n);	/* -g: chains */
	assert_int_equal(tally_session__stats(s, &st), 0);
	assert_int_equal(st.samples, want);
	assert_int_equal(st.records[PERF_RECORD_SAMPLE], want);
	assert_true(st.records[PERF_RECORD_COMM] >= 1);
	assert_true(st.records[TALLY_RECORD_FINISHED_ROUND] >= 1);
	tally_session__close(s);

	/* a callback's non-zero return stops the run there */
	v = (struct seen){ .ordered = true, .stop_at = 10 };
	s = tally_session__open(data, &o);
	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 7);
	assert_int_equal(v.n, 10);
	tally_session__close(s);

	/* the same file through a pipe's fd */
	v = (struct seen){ .ordered = true };
	snprintf(cmd, sizeof(cmd), "cat %s", data);
	p = popen(cmd, "r");
	assert_non_null(p);
	s = tally_session__open_fd(fileno(p), &o);
	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(v.n, want);
	tally_session__close(s);
	pclose(p);

	/* unknown option bytes are refused */
	struct { struct tally_session_opts o; uint64_t more; } big = { .o = o, .more = 1 };

	big.o.sz = sizeof(big);
	assert_null(tally_session__open(data, &big.o));
	assert_int_equal(errno, E2BIG);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_samples_match_perf_script),
		cmocka_unit_test(test_truncated_keeps_records_before_cut),
		cmocka_unit_test(test_garbage_is_rejected),
		cmocka_unit_test(test_header_features_match_perf),
		cmocka_unit_test(test_session_delivers_perf_script_samples),
	};
	const char *h = getenv("HELPERS");
	char cmd[600];

	if (mkdtemp(dir)) {
		snprintf(data, sizeof(data), "%s/a.data", dir);
		snprintf(cmd, sizeof(cmd),
			 "perf record -q -o %s -F 999 -g -- %s/work spin 200 "
			 ">/dev/null 2>&1", data, h ? h : "build/helpers");
		if (system(cmd) != 0)
			data[0] = 0;
	}
	int rc = cmocka_run_group_tests(t, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {}
	return rc;
}
