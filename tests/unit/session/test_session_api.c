// SPDX-License-Identifier: MIT
/*
 * The session as a library user meets it (issue 29): a second run
 * delivers nothing and says so (-EALREADY), over a file and a pipe; the
 * sample callback and its ctx set after the open; a file that cannot be
 * opened says where and why (tally_data_reader__open_error), and an
 * error from opening a file is not explained as an event's.
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
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>

#define NR_SAMPLES 12

static char file_path[64], pipe_path[64];

static void put(struct tally_data_writer *w, const void *rec)
{
	assert_int_equal(tally_data_writer__write(w, rec,
						  ((const struct perf_event_header *)rec)->size), 0);
}

/* NR_SAMPLES samples of one thread ("work", pid 42), periods 1..NR_SAMPLES. */
static void write_file(char *path, bool pipe)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
		PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, .sample_id_all = 1,
	};
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint32_t id_pid, id_tid;
		uint64_t time;
	} c = { { PERF_RECORD_COMM, 0, sizeof(c) }, 42, 42, "work", 42, 42, 1 };
	TALLY_OPTS(tally_data_writer_opts, wo, .pipe = pipe);
	struct tally_data_writer *w;
	uint64_t id = 1;
	int fd;

	strcpy(path, "/tmp/test_session_api.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, &wo);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	put(w, &c);
	for (uint64_t i = 1; i <= NR_SAMPLES; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time, period;
		} s = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) }, 0x1000 * i,
			42, 42, 10 + i, i };

		put(w, &s);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

struct seen {
	int samples, records;
	uint64_t period;
	void *record_ctx;	/* what the record callback got */
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct seen *v = ctx;

	v->samples++;
	v->period += smp->period;
	return 0;
}

static int on_record(struct tally_session *s, const struct perf_event_header *h,
		     const struct tally_record *rec, void *ctx)
{
	((struct seen *)ctx)->records++;
	return 0;
}

/* Each way in: the file by path, and its pipe-format twin through a real pipe. */
static struct tally_session *open_way(int way, const struct tally_session_opts *o, FILE **p)
{
	char cmd[128];

	*p = NULL;
	if (way == 0)
		return tally_session__open(file_path, o);
	snprintf(cmd, sizeof(cmd), "cat %s", pipe_path);
	*p = popen(cmd, "r");
	assert_non_null(*p);
	return tally_session__open_fd(fileno(*p), o);
}

static void test_second_run_refused(void **state)
{
	for (int way = 0; way < 2; way++) {
		struct seen v = { 0 };
		TALLY_OPTS(tally_session_opts, o, .sample = on_sample, .ctx = &v);
		TALLY_OPTS(tally_session_stats, st);
		FILE *p;
		struct tally_session *s = open_way(way, &o, &p);

		assert_non_null(s);
		assert_int_equal(tally_session__run(s), 0);
		assert_int_equal(v.samples, NR_SAMPLES);
		/* the second: nothing again, and said */
		errno = 0;
		assert_int_equal(tally_session__run(s), -EALREADY);
		assert_int_equal(errno, EALREADY);
		assert_int_equal(v.samples, NR_SAMPLES);
		assert_int_equal(tally_session__stats(s, &st), 0);
		assert_int_equal(st.samples, NR_SAMPLES);
		tally_session__close(s);
		if (p)
			pclose(p);
	}
}

static int stop_at_3(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	return ++((struct seen *)ctx)->samples == 3 ? 5 : 0;
}

/* A run a callback stopped is a run: the next one does not go on from there. */
static void test_stopped_run_not_resumed(void **state)
{
	struct seen v = { 0 };
	TALLY_OPTS(tally_session_opts, o, .sample = stop_at_3, .ctx = &v);
	struct tally_session *s = tally_session__open(file_path, &o);

	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 5);
	assert_int_equal(tally_session__run(s), -EALREADY);
	assert_int_equal(v.samples, 3);
	tally_session__close(s);
}

static void test_set_sample_after_open(void **state)
{
	struct seen first = { 0 }, later = { 0 };
	/* opened with no sample callback: records to first */
	TALLY_OPTS(tally_session_opts, o, .record = on_record, .ctx = &first);
	struct tally_session *s = tally_session__open(file_path, &o);

	assert_non_null(s);
	assert_int_equal(tally_session__set_sample(NULL, on_sample, &later), -EINVAL);
	assert_int_equal(tally_session__set_sample(s, on_sample, &later), 0);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(later.samples, NR_SAMPLES);
	assert_int_equal(later.period, NR_SAMPLES * (NR_SAMPLES + 1) / 2);
	assert_int_equal(first.samples, 0);
	/* the record callback kept the opts' ctx */
	assert_true(first.records >= 1);
	assert_int_equal(later.records, 0);
	tally_session__close(s);

	/* set to none: the samples go by uncounted */
	later = (struct seen){ 0 };
	TALLY_OPTS(tally_session_opts, o2, .sample = on_sample, .ctx = &later);
	s = tally_session__open(file_path, &o2);
	assert_non_null(s);
	assert_int_equal(tally_session__set_sample(s, NULL, NULL), 0);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(later.samples, 0);
	tally_session__close(s);
}

/* path: the good file with len bytes of it, then bytes at off replaced. */
static void damaged(char *path, size_t len, size_t off, const void *bytes, size_t n)
{
	FILE *in = fopen(file_path, "rb");
	char *buf = malloc(len + 1);
	size_t got;
	int fd;

	assert_non_null(in);
	assert_non_null(buf);
	got = fread(buf, 1, len, in);
	fclose(in);
	assert_int_equal(got, len);
	if (n)
		memcpy(buf + off, bytes, n);
	strcpy(path, "/tmp/test_session_api.bad.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

static void test_open_error_says_where(void **state)
{
	static const uint64_t far = 1ULL << 40, tiny = 8;
	static const char junk[8] = "NOTPERF!";
	struct {
		size_t len, off;	/* len 0: the whole file */
		const void *bytes;
		size_t n;
		int err;
		uint64_t at;
		const char *why;
	} c[] = {
		{ 1, 0, NULL, 0, -EBADMSG, 0, "not a perf.data file" },
		{ 0, 0, junk, 8, -EBADMSG, 0, "not a perf.data file (no PERFILE2 magic) at offset 0" },
		{ 100, 0, NULL, 0, -EBADMSG, 100, "the file ends inside its header (100 of 104 bytes)" },
		{ 0, 16, &tiny, 8, -EBADMSG, 16, "attr size 8 is too small" },
		{ 0, 24, &far, 8, -EBADMSG, 24, "the attrs section [0x10000000000," },
		{ 0, 40, &far, 8, -EBADMSG, 40, "the data section's offset 0x10000000000 is past" },
	};
	long size;
	FILE *f = fopen(file_path, "rb");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char path[64], want[32];
		const struct tally_data_error *e;

		damaged(path, c[i].len ? c[i].len : (size_t)size, c[i].off, c[i].bytes, c[i].n);
		errno = 0;
		assert_null(tally_session__open(path, NULL));
		assert_int_equal(errno, -c[i].err);
		e = tally_data_reader__open_error();
		assert_non_null(e);
		assert_int_equal(e->err, c[i].err);
		assert_int_equal(e->offset, c[i].at);
		assert_non_null(strstr(e->msg, c[i].why));
		snprintf(want, sizeof(want), "at offset %#llx", (unsigned long long)c[i].at);
		assert_non_null(strstr(e->msg, want));
		/* the reader's own open says the same */
		assert_null(tally_data_reader__open(path));
		assert_non_null(strstr(tally_data_reader__open_error()->msg, c[i].why));
		unlink(path);
	}
	/* an empty file */
	{
		char path[] = "/tmp/test_session_api.empty.XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_null(tally_session__open_fd(fd, NULL));
		assert_int_equal(errno, EBADMSG);
		assert_non_null(tally_data_reader__open_error());
		assert_string_equal(tally_data_reader__open_error()->msg, "empty file at offset 0");
		close(fd);
		unlink(path);
	}
	/* not the file's content: errno alone, nothing left from before */
	assert_null(tally_session__open("/nonexistent/perf.data", NULL));
	assert_int_equal(errno, ENOENT);
	assert_null(tally_data_reader__open_error());
	/* a good open clears it */
	assert_null(tally_data_reader__open_mem("junk", 4));
	assert_non_null(tally_data_reader__open_error());
	{
		struct tally_session *s = tally_session__open(file_path, NULL);

		assert_non_null(s);
		assert_null(tally_data_reader__open_error());
		tally_session__close(s);
	}
}

/* Opening a file is no event's open: no perf_event_open advice. */
static void test_file_error_not_an_events(void **state)
{
	char buf[512];
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a) };

	assert_null(tally_session__open("/nonexistent/perf.data", NULL));
	tally_strerror(-errno, NULL, "/nonexistent/perf.data", buf, sizeof(buf));
	assert_string_equal(buf, "/nonexistent/perf.data: No such file or directory (ENOENT)");
	tally_strerror(-EINVAL, NULL, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "Invalid argument (EINVAL)");
	tally_strerror(-E2BIG, NULL, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "Argument list too long (E2BIG)");
	/* an event's open still gets the advice */
	tally_strerror(-ENOENT, &a, "cpu-clock", buf, sizeof(buf));
	assert_non_null(strstr(buf, "tally list"));
	tally_strerror(-E2BIG, &a, "cpu-clock", buf, sizeof(buf));
	assert_non_null(strstr(buf, "older than this tool"));
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_second_run_refused),
		cmocka_unit_test(test_stopped_run_not_resumed),
		cmocka_unit_test(test_set_sample_after_open),
		cmocka_unit_test(test_open_error_says_where),
		cmocka_unit_test(test_file_error_not_an_events),
	};
	int rc;

	write_file(file_path, false);
	write_file(pipe_path, true);
	rc = cmocka_run_group_tests(t, NULL, NULL);
	unlink(file_path);
	unlink(pipe_path);
	return rc;
}
