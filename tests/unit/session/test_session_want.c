// SPDX-License-Identifier: MIT
/*
 * opts.want: a session over a file of two events that wants one delivers
 * only that event's samples, in time order; every side-band record
 * (COMM, FORK, EXIT) still comes; stats count every sample, the dropped
 * ones included (samples, records[SAMPLE], dropped), and the dropped
 * ones' largest CPU (dropped_cpu_max). Without want, all.
 */
#include <errno.h>
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

#define NR_A 7		/* cpu-clock samples (id 1) */
#define NR_B 5		/* task-clock samples (id 2) */
#define NR_SIDE 3	/* COMM, FORK, EXIT */

static char file_path[64];
static int32_t max_cpu[2] = { -1, -1 };	/* each event's samples' largest CPU */

static void put(struct tally_data_writer *w, const void *rec)
{
	assert_int_equal(tally_data_writer__write(w, rec,
						  ((const struct perf_event_header *)rec)->size), 0);
}

/* the id trailer of a side-band record (sample_id_all: TID, TIME, CPU, IDENTIFIER) */
struct sid { uint32_t pid, tid; uint64_t time; uint32_t cpu, res; uint64_t id; };

/*
 * Samples of the two events interleaved (A at even times, B at odd), the
 * side-band records among them: a COMM first, a FORK and an EXIT midway.
 */
static void write_file(char *path)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
	};
	struct perf_event_attr b = a;
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		struct sid sid;
	} c = { { PERF_RECORD_COMM, 0, sizeof(c) }, 42, 42, "work", { .pid = 42, .tid = 42, .time = 1, .id = 1 } };
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
		struct sid sid;
	} f = { { PERF_RECORD_FORK, 0, sizeof(f) }, 43, 42, 43, 42, 15, { .pid = 43, .tid = 43, .time = 15, .id = 2 } },
	  e = { { PERF_RECORD_EXIT, 0, sizeof(e) }, 43, 42, 43, 42, 21, { .pid = 43, .tid = 43, .time = 21, .id = 1 } };
	struct tally_data_writer *w;
	uint64_t id_a = 1, id_b = 2;
	int fd, na = 0, nb = 0;

	b.config = PERF_COUNT_SW_TASK_CLOCK;
	strcpy(path, "/tmp/test_session_want.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id_a, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__add_attr(w, &b, &id_b, 1, "task-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	put(w, &c);
	for (uint64_t t = 10; na < NR_A || nb < NR_B; t++) {
		bool is_a = (t % 2 == 0 && na < NR_A) || nb == NR_B;
		struct {
			struct perf_event_header h;
			uint64_t id, ip;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t period;
		} s = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(s) }, is_a ? 1 : 2,
			0x1000 * t, 42, 42, t, is_a ? (uint32_t)(t % 3) : (uint32_t)(3 + t % 5), 0,
			is_a ? 1 : 100 };

		if ((int32_t)s.cpu > max_cpu[!is_a])
			max_cpu[!is_a] = (int32_t)s.cpu;

		if (t == 15)
			put(w, &f);
		if (t == 21)
			put(w, &e);
		put(w, &s);
		is_a ? na++ : nb++;
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

struct seen {
	int samples, records, asked;
	int attr_seen[2];
	uint64_t last_time;
	bool unordered;
	const char *want;	/* the event wanted; NULL: say true to all */
};

static bool want(const char *name, const struct perf_event_attr *attr, void *ctx)
{
	struct seen *v = ctx;

	v->asked++;
	assert_non_null(attr);
	return !v->want || !strcmp(name, v->want);
}

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct seen *v = ctx;

	v->samples++;
	assert_true(smp->attr == 0 || smp->attr == 1);
	v->attr_seen[smp->attr]++;
	if (smp->sample->time < v->last_time)
		v->unordered = true;
	v->last_time = smp->sample->time;
	return 0;
}

static int on_record(struct tally_session *s, const struct perf_event_header *h,
		     const struct tally_record *rec, void *ctx)
{
	struct seen *v = ctx;

	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK ||
	    h->type == PERF_RECORD_EXIT)
		v->records++;
	return 0;
}

static void run_wanting(struct seen *v, struct tally_session_stats *st)
{
	TALLY_OPTS(tally_session_opts, o, .sample = on_sample, .record = on_record, .ctx = v,
		   .want = want);
	struct tally_session *s = tally_session__open(file_path, &o);

	assert_non_null(s);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(tally_session__stats(s, st), 0);
	tally_session__close(s);
}

static void test_want_one_event(void **state)
{
	/* each event in turn: the other's samples never come */
	static const char *const names[2] = { "cpu-clock", "task-clock" };
	static const int nr[2] = { NR_A, NR_B };

	for (int i = 0; i < 2; i++) {
		struct seen v = { .want = names[i] };
		TALLY_OPTS(tally_session_stats, st);

		run_wanting(&v, &st);
		assert_int_equal(v.asked, 2);
		assert_int_equal(v.samples, nr[i]);
		assert_int_equal(v.attr_seen[i], nr[i]);
		assert_int_equal(v.attr_seen[!i], 0);
		assert_false(v.unordered);
		/* the side-band records all came */
		assert_int_equal(v.records, NR_SIDE);
		/* and every sample is counted, the dropped ones too */
		assert_int_equal(st.samples, NR_A + NR_B);
		assert_int_equal(st.records[PERF_RECORD_SAMPLE], NR_A + NR_B);
		assert_int_equal(st.dropped, nr[!i]);
		/* the dropped samples' largest CPU, read as they went (the other's is lower or higher) */
		assert_int_equal(st.dropped_cpu_max, max_cpu[!i]);
	}
}

static void test_want_all(void **state)
{
	struct seen v = { .want = NULL };
	TALLY_OPTS(tally_session_stats, st);

	run_wanting(&v, &st);
	assert_int_equal(v.samples, NR_A + NR_B);
	assert_int_equal(v.records, NR_SIDE);
	assert_int_equal(st.samples, NR_A + NR_B);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.dropped_cpu_max, -1);
}

/* Threads: the reader thread drops, the caller's gets the rest, with one thread or two. */
static void test_want_one_thread(void **state)
{
	struct seen v = { .want = "task-clock" };
	TALLY_OPTS(tally_session_stats, st);

	setenv("TALLY_THREADS", "1", 1);
	run_wanting(&v, &st);
	unsetenv("TALLY_THREADS");
	assert_int_equal(v.samples, NR_B);
	assert_int_equal(v.records, NR_SIDE);
	assert_int_equal(st.dropped, NR_A);
	assert_int_equal(st.dropped_cpu_max, max_cpu[0]);
}

/*
 * Rounds as perf ends them: a dropped sample that is its round's newest
 * (X at 100) still sets the next round's limit, so what comes late for
 * perf comes late here too. Round 1: A 10, X 100; round 2: B 50, C 20;
 * round 3: D 30. perf (and a session that wants X) delivers A C B at
 * round 2's end (all <= 100), then D, late (30 < 50): A C B D. Had X's
 * time been forgotten, round 2 would end at 10 and D come in order:
 * A C D B.
 */
static char round_path[64];
static uint64_t order[8];
static int nr_order;

static int on_order(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	(void)s;
	(void)ctx;
	if (nr_order < 8)
		order[nr_order++] = smp->sample->time;
	return 0;
}

static void write_rounds(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 1, .sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
	};
	struct perf_event_attr b = a;
	static const struct { uint64_t id, t; } recs[] = {
		{ 1, 10 }, { 2, 100 }, { 0, 0 }, { 1, 50 }, { 1, 20 }, { 0, 0 }, { 1, 30 }, { 0, 0 },
	};
	struct tally_data_writer *w;
	uint64_t id_a = 1, id_b = 2;
	int fd;

	b.config = PERF_COUNT_SW_TASK_CLOCK;
	strcpy(round_path, "/tmp/test_session_want_r.XXXXXX");
	fd = mkstemp(round_path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id_a, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__add_attr(w, &b, &id_b, 1, "task-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++) {
		struct {
			struct perf_event_header h;
			uint64_t id, ip;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t period;
		} smp = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, sizeof(smp) }, recs[i].id,
			  0x1000, 42, 42, recs[i].t, 0, 0, 1 };

		if (!recs[i].id)
			assert_int_equal(tally_data_writer__finished_round(w), 0);
		else
			put(w, &smp);
	}
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

static void run_rounds(const char *want_name, const char *threads)
{
	struct seen v = { .want = want_name };
	TALLY_OPTS(tally_session_opts, o, .sample = on_order, .ctx = &v, .want = want);
	struct tally_session *s;

	setenv("TALLY_THREADS", threads, 1);
	s = tally_session__open(round_path, &o);
	assert_non_null(s);
	nr_order = 0;
	assert_int_equal(tally_session__run(s), 0);
	tally_session__close(s);
	unsetenv("TALLY_THREADS");
}

static void test_want_rounds(void **state)
{
	static const uint64_t perf_order[] = { 10, 20, 50, 30 };
	static const char *const threads[] = { "1", "2" };

	(void)state;
	write_rounds();
	for (int k = 0; k < 2; k++) {
		/* everything: perf's order, X among it */
		run_rounds(NULL, threads[k]);
		assert_int_equal(nr_order, 5);
		assert_int_equal(order[0], 10);
		assert_int_equal(order[4], 30);
		/* X dropped: the others in the same order */
		run_rounds("cpu-clock", threads[k]);
		assert_int_equal(nr_order, 4);
		for (int i = 0; i < 4; i++)
			assert_int_equal(order[i], perf_order[i]);
	}
	unlink(round_path);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_want_one_event),
		cmocka_unit_test(test_want_all),
		cmocka_unit_test(test_want_one_thread),
		cmocka_unit_test(test_want_rounds),
	};
	int rc;

	write_file(file_path);
	rc = cmocka_run_group_tests(t, NULL, NULL);
	unlink(file_path);
	return rc;
}
