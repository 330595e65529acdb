// SPDX-License-Identifier: MIT
/*
 * tally_session__feed: the rings of a live session drained elsewhere
 * (tally_evlist__drain's out, as top's reader thread does) and fed in:
 * every sample the rings held is delivered once, whether fed in one
 * piece or record by record, and a record running past the buffer is
 * refused. tally_session__flush delivers what is queued up to a time, in
 * time order, without waiting for the next pass.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static int append(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct buf *b = ctx;

	for (int i = 0; i < n; i++) {
		if (b->len + iov[i].iov_len > b->cap) {
			b->cap = (b->len + iov[i].iov_len) * 2;
			assert_non_null(b->p = realloc(b->p, b->cap));
		}
		memcpy(b->p + b->len, iov[i].iov_base, iov[i].iov_len);
		b->len += iov[i].iov_len;
	}
	return 0;
}

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	(*(unsigned long *)ctx)++;
	return 0;
}

static void spin(void)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000000L);
}

static unsigned long count_samples(const struct buf *b)
{
	unsigned long n = 0;

	for (size_t off = 0; off < b->len; off += ((const struct perf_event_header *)(b->p + off))->size)
		n += ((const struct perf_event_header *)(b->p + off))->type == PERF_RECORD_SAMPLE;
	return n;
}

/* by_record: one feed per record, else the whole buffer at once */
static void feed_self(bool by_record)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 999);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	unsigned long got = 0, want;
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &got);
	struct tally_session *s;
	struct buf b = { 0 };

	assert_non_null(l);
	assert_true(tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) >= 0);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	if (tally_evlist__open(l, cpus, thr, NULL)) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		skip();		/* perf_event_paranoid: no events here */
	}
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_non_null(s = tally_session__open_evlist(l, &so));
	tally_evlist__enable(l);
	spin();
	tally_evlist__disable(l);
	assert_true(tally_evlist__drain(l, NULL, append, &b) >= 0);
	want = count_samples(&b);
	assert_true(want > 20);
	if (by_record) {
		for (size_t off = 0, sz; off < b.len; off += sz) {
			sz = ((const struct perf_event_header *)(b.p + off))->size;
			assert_int_equal(tally_session__feed(s, b.p + off, sz), 0);
		}
	} else {
		assert_int_equal(tally_session__feed(s, b.p, b.len), 0);
	}
	/* the last round is held until the next: an empty pass ends it */
	assert_int_equal(tally_session__feed(s, NULL, 0), 0);
	assert_int_equal(tally_session__feed(s, NULL, 0), 0);
	assert_int_equal(got, want);
	/* the rings were drained here: the session's own reading finds nothing more */
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(got, want);
	/* a record whose size runs past the buffer */
	assert_int_equal(tally_session__feed(s, b.p, b.len - 8), -EINVAL);
	assert_int_equal(tally_session__feed(NULL, b.p, b.len), -EINVAL);
	free(b.p);
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
}

struct times {
	uint64_t t[1 << 16];
	size_t n;
};

static int on_time(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct times *tm = ctx;

	if (tm->n < sizeof(tm->t) / sizeof(tm->t[0]))
		tm->t[tm->n++] = smp->sample->time;
	return 0;
}

/* flush up to a time: the samples up to it, in order, before the next pass; the rest after */
static void test_flush_time(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 999);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	struct times *tm = calloc(1, sizeof(*tm));
	TALLY_OPTS(tally_session_opts, so, .sample = on_time, .ctx = tm);
	struct tally_record_layout lay;
	struct tally_session *s;
	struct buf b = { 0 };
	uint64_t mid = 0, t;
	size_t k = 0, want, upto = 0;

	assert_non_null(l);
	assert_non_null(tm);
	assert_true(tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) >= 0);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	if (tally_evlist__open(l, cpus, thr, NULL)) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		free(tm);
		skip();		/* perf_event_paranoid: no events here */
	}
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_non_null(s = tally_session__open_evlist(l, &so));
	tally_evlist__enable(l);
	spin();
	tally_evlist__disable(l);
	assert_true(tally_evlist__drain(l, NULL, append, &b) >= 0);
	want = count_samples(&b);
	assert_true(want > 20);
	/* the time of the middle sample */
	tally_record_layout__from_attr(&lay, tally_evsel__attr(tally_evlist__first(l)));
	for (size_t off = 0; off < b.len; off += ((const struct perf_event_header *)(b.p + off))->size) {
		const struct perf_event_header *h = (const void *)(b.p + off);

		if (h->type != PERF_RECORD_SAMPLE || tally_record__time(h, h->size, &lay, &t))
			continue;
		if (k++ == want / 2)
			mid = t;
	}
	assert_true(mid > 0);
	/* one pass: its round waits for the next */
	assert_int_equal(tally_session__feed(s, b.p, b.len), 0);
	assert_int_equal(tm->n, 0);
	assert_int_equal(tally_session__flush(s, mid), 0);
	assert_true(tm->n > 0 && tm->n < want);
	for (size_t i = 0; i < tm->n; i++)
		assert_true(tm->t[i] <= mid);
	upto = tm->n;
	assert_int_equal(tally_session__flush(s, UINT64_MAX), 0);
	assert_int_equal(tm->n, want);
	for (size_t i = 1; i < tm->n; i++)
		assert_true(tm->t[i - 1] <= tm->t[i]);
	for (size_t i = upto; i < tm->n; i++)
		assert_true(tm->t[i] > mid);
	assert_int_equal(tally_session__flush(NULL, 0), -EINVAL);
	assert_int_equal(tally_session__run(s), 0);
	assert_int_equal(tally_session__flush(s, UINT64_MAX), -EALREADY);
	free(b.p);
	free(tm);
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
}

static void test_whole(void **state)
{
	feed_self(false);
}

static void test_by_record(void **state)
{
	feed_self(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_by_record),
		cmocka_unit_test(test_flush_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
