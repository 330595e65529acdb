// SPDX-License-Identifier: MIT
/*
 * The ring buffer reader on a synthetic ring in plain memory: records in
 * order, a record that wraps (read through the bounce buffer), a header
 * that wraps, data_tail written back, PERF_RECORD_LOST counted, corrupt
 * headers refused, an empty ring, and a reader that resumes.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/mmap.h>

#define DATA_OFF 4096
#define DATA_SIZE 256

struct ring {
	unsigned char *mem;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	uint64_t head;		/* the "kernel's" write position */
};

static void ring_init(struct ring *r)
{
	r->mem = calloc(1, DATA_OFF + DATA_SIZE);
	assert_non_null(r->mem);
	r->pc = (void *)r->mem;
	r->pc->data_offset = DATA_OFF;
	r->pc->data_size = DATA_SIZE;
	r->data = r->mem + DATA_OFF;
	r->head = 0;
}

/* The kernel's side: write a record (wrapping as needed), publish head. */
static void ring_put(struct ring *r, uint32_t type, const void *body, uint16_t body_len)
{
	struct perf_event_header h = { .type = type, .misc = 0,
				       .size = (uint16_t)(sizeof(h) + body_len) };
	unsigned char rec[512];

	memcpy(rec, &h, sizeof(h));
	memcpy(rec + sizeof(h), body, body_len);
	for (size_t i = 0; i < h.size; i++)
		r->data[(r->head + i) % DATA_SIZE] = rec[i];
	r->head += h.size;
	__atomic_store_n(&r->pc->data_head, r->head, __ATOMIC_RELEASE);
}

static void put_sample(struct ring *r, uint64_t val, uint16_t nr_words)
{
	uint64_t body[32];

	for (uint16_t i = 0; i < nr_words; i++)
		body[i] = val + i;
	ring_put(r, PERF_RECORD_SAMPLE, body, (uint16_t)(nr_words * 8));
}

static void check_sample(const struct perf_event_header *ev, uint64_t val, uint16_t nr_words)
{
	uint64_t w;

	assert_non_null(ev);
	assert_int_equal(ev->type, PERF_RECORD_SAMPLE);
	assert_int_equal(ev->size, sizeof(*ev) + nr_words * 8);
	for (uint16_t i = 0; i < nr_words; i++) {
		memcpy(&w, (const unsigned char *)ev + sizeof(*ev) + i * 8, 8);
		assert_int_equal(w, val + i);
	}
}

static void test_empty(void **state)
{
	struct ring r;
	struct tally_mmap *m;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	assert_int_equal(tally_mmap__data_size(m), DATA_SIZE);
	assert_int_equal(tally_mmap__fd(m), -1);
	assert_ptr_equal(tally_mmap__page(m), r.pc);
	assert_int_equal(tally_mmap__read_init(m), -EAGAIN);
	assert_null(tally_mmap__read_event(m));
	assert_int_equal(errno, 0);
	tally_mmap__read_done(m);
	assert_int_equal(r.pc->data_tail, 0);
	tally_mmap__free(m);
	free(r.mem);
}

static void test_bad_layout(void **state)
{
	struct ring r;

	(void)state;
	ring_init(&r);
	r.pc->data_size = 200;		/* not a power of two */
	assert_null(tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE));
	assert_int_equal(errno, EINVAL);
	r.pc->data_size = 512;		/* past the memory */
	assert_null(tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE));
	assert_null(tally_mmap__new_mem(NULL, 100));
	assert_null(tally_mmap__new(-1, 1));
	assert_null(tally_mmap__new(0, 3));	/* pages not a power of two */
	assert_int_equal(errno, EINVAL);
	free(r.mem);
}

/* Records in order; data_tail moves only on consume/read_done. */
static void test_in_order_and_tail(void **state)
{
	struct ring r;
	struct tally_mmap *m;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	put_sample(&r, 100, 2);		/* 24 bytes */
	put_sample(&r, 200, 3);		/* 32 bytes */
	assert_int_equal(tally_mmap__read_init(m), 0);
	check_sample(tally_mmap__read_event(m), 100, 2);
	assert_int_equal(r.pc->data_tail, 0);	/* not consumed yet */
	tally_mmap__consume(m);
	assert_int_equal(r.pc->data_tail, 24);
	check_sample(tally_mmap__read_event(m), 200, 3);
	/* A record published after read_init is not part of this batch. */
	put_sample(&r, 300, 1);
	assert_null(tally_mmap__read_event(m));
	assert_int_equal(errno, 0);
	tally_mmap__read_done(m);
	assert_int_equal(r.pc->data_tail, 56);
	/* The next batch has it. */
	assert_int_equal(tally_mmap__read_init(m), 0);
	check_sample(tally_mmap__read_event(m), 300, 1);
	assert_null(tally_mmap__read_event(m));
	tally_mmap__read_done(m);
	assert_int_equal(r.pc->data_tail, 72);
	assert_int_equal(tally_mmap__read_init(m), -EAGAIN);
	tally_mmap__free(m);
	free(r.mem);
}

/* Many laps round the ring: wrapped records come whole from the bounce buffer. */
static void test_wrap(void **state)
{
	struct ring r;
	struct tally_mmap *m;
	uint64_t seen = 0, wrapped = 0;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	for (uint64_t i = 0; i < 1000; i++) {
		/* sizes 16..96 bytes so records straddle the end at many offsets */
		uint16_t words = (uint16_t)(1 + i % 11);
		uint64_t start = r.head % DATA_SIZE;
		const struct perf_event_header *ev;

		put_sample(&r, i * 1000, words);
		if (start + 8 + words * 8u > DATA_SIZE)
			wrapped++;
		assert_int_equal(tally_mmap__read_init(m), 0);
		ev = tally_mmap__read_event(m);
		check_sample(ev, i * 1000, words);
		if (start + 8 + words * 8u > DATA_SIZE) {
			/* not a pointer into the ring */
			assert_true((const unsigned char *)ev < r.data ||
				    (const unsigned char *)ev >= r.data + DATA_SIZE);
		} else {
			assert_ptr_equal(ev, r.data + start);
		}
		assert_null(tally_mmap__read_event(m));
		tally_mmap__read_done(m);
		assert_int_equal(r.pc->data_tail, r.head);
		seen++;
	}
	assert_int_equal(seen, 1000);
	assert_true(wrapped > 10);
	tally_mmap__free(m);
	free(r.mem);
}

/* A batch that spans the end of the ring, several records at once. */
static void test_batch_across_end(void **state)
{
	struct ring r;
	struct tally_mmap *m;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	/* Move to 200 bytes in, consumed. */
	for (int i = 0; i < 5; i++)
		put_sample(&r, 1, 4);	/* 40 bytes each */
	assert_int_equal(tally_mmap__read_init(m), 0);
	while (tally_mmap__read_event(m))
		;
	tally_mmap__read_done(m);
	/* 200 + 3 * 40 = 320 > 256 */
	for (int i = 0; i < 3; i++)
		put_sample(&r, 10 * (uint64_t)i, 4);
	assert_int_equal(tally_mmap__read_init(m), 0);
	for (int i = 0; i < 3; i++)
		check_sample(tally_mmap__read_event(m), 10 * (uint64_t)i, 4);
	assert_null(tally_mmap__read_event(m));
	tally_mmap__read_done(m);
	tally_mmap__free(m);
	free(r.mem);
}

/* PERF_RECORD_LOST: the lost counts add up, the record is still returned. */
static void test_lost(void **state)
{
	struct ring r;
	struct tally_mmap *m;
	const struct perf_event_header *ev;
	uint64_t lost1[2] = { 7 /* id */, 5 /* lost */ };
	uint64_t lost2[2] = { 7, 11 };
	int n = 0;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	put_sample(&r, 1, 1);
	ring_put(&r, PERF_RECORD_LOST, lost1, sizeof(lost1));
	put_sample(&r, 2, 1);
	ring_put(&r, PERF_RECORD_LOST, lost2, sizeof(lost2));
	assert_int_equal(tally_mmap__lost(m), 0);
	assert_int_equal(tally_mmap__read_init(m), 0);
	while ((ev = tally_mmap__read_event(m))) {
		n++;
		if (n == 2 || n == 4)
			assert_int_equal(ev->type, PERF_RECORD_LOST);
	}
	tally_mmap__read_done(m);
	assert_int_equal(n, 4);
	assert_int_equal(tally_mmap__lost(m), 16);
	tally_mmap__free(m);
	free(r.mem);
}

/* Corrupt sizes stop the batch with EBADMSG instead of reading past it. */
static void test_corrupt(void **state)
{
	struct ring r;
	struct tally_mmap *m;
	struct perf_event_header h;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);

	/* size 0 */
	put_sample(&r, 1, 1);
	memset(&h, 0, sizeof(h));
	h.type = PERF_RECORD_SAMPLE;
	memcpy(r.data + 16, &h, sizeof(h));
	r.head += 16;
	r.pc->data_head = r.head;
	assert_int_equal(tally_mmap__read_init(m), 0);
	check_sample(tally_mmap__read_event(m), 1, 1);
	assert_null(tally_mmap__read_event(m));
	assert_int_equal(errno, EBADMSG);
	tally_mmap__read_done(m);
	assert_int_equal(r.pc->data_tail, r.head);	/* the batch was skipped */

	/* a size bigger than what head says was written */
	h.size = 200;
	memcpy(r.data + r.head % DATA_SIZE, &h, sizeof(h));
	r.head += 16;
	r.pc->data_head = r.head;
	assert_int_equal(tally_mmap__read_init(m), 0);
	assert_null(tally_mmap__read_event(m));
	assert_int_equal(errno, EBADMSG);
	tally_mmap__read_done(m);

	/* a size that is not a multiple of 8 */
	h.size = 12;
	memcpy(r.data + r.head % DATA_SIZE, &h, sizeof(h));
	r.head += 16;
	r.pc->data_head = r.head;
	assert_int_equal(tally_mmap__read_init(m), 0);
	assert_null(tally_mmap__read_event(m));
	assert_int_equal(errno, EBADMSG);
	tally_mmap__read_done(m);

	/* head more than a ring ahead of tail */
	r.pc->data_head = r.head + DATA_SIZE + 8;
	assert_int_equal(tally_mmap__read_init(m), -EBADMSG);
	assert_null(tally_mmap__read_event(m));
	tally_mmap__free(m);
	free(r.mem);
}

/* A new reader starts at the data_tail a previous one left. */
static void test_resume(void **state)
{
	struct ring r;
	struct tally_mmap *m;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	put_sample(&r, 1, 1);
	put_sample(&r, 2, 1);
	assert_int_equal(tally_mmap__read_init(m), 0);
	check_sample(tally_mmap__read_event(m), 1, 1);
	tally_mmap__consume(m);
	tally_mmap__free(m);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_int_equal(tally_mmap__read_init(m), 0);
	check_sample(tally_mmap__read_event(m), 2, 1);
	tally_mmap__read_done(m);
	tally_mmap__free(m);
	free(r.mem);
}

/*
 * Garbage in the ring (the records are untrusted input): the reader stays
 * inside the batch, never returns a record longer than what is left, and
 * always ends. Run under ASan (make test SAN=1) for the bounds.
 */
static void test_garbage(void **state)
{
	struct ring r;
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	ring_init(&r);
	for (int round = 0; round < 2000; round++) {
		struct tally_mmap *m;
		const struct perf_event_header *ev;
		uint64_t tail, head, got = 0;

		for (size_t i = 0; i < DATA_SIZE; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			r.data[i] = (unsigned char)x;
		}
		tail = x % 100000 & ~7ull;
		head = tail + ((x >> 20) % (DATA_SIZE + 1) & ~7ull);
		if (round % 10 == 0)	/* now and then a misaligned head */
			head |= 4;
		r.pc->data_tail = tail;
		r.pc->data_head = head;
		m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
		assert_non_null(m);
		if (head & 7) {
			assert_int_equal(tally_mmap__read_init(m), -EBADMSG);
		} else if (tally_mmap__read_init(m) == 0) {
			while ((ev = tally_mmap__read_event(m))) {
				assert_true(ev->size >= sizeof(*ev));
				assert_int_equal(ev->size % 8, 0);
				assert_int_equal((uintptr_t)ev % 8, 0);
				got += ev->size;
				assert_true(got <= head - tail);
				/* touch every byte the reader vouched for */
				for (size_t i = 0; i < ev->size; i++)
					x += ((const unsigned char *)ev)[i];
			}
			tally_mmap__read_done(m);
			assert_int_equal(r.pc->data_tail, head);
		}
		tally_mmap__free(m);
	}
	free(r.mem);
}

/*
 * A producer thread playing the kernel (waits for space by data_tail,
 * writes, publishes data_head with release) against the reader: every
 * record arrives once, in order, intact, wrapped or not.
 */
#define PRODUCED 200000

struct producer {
	struct ring *r;
};

static void *producer_fn(void *arg)
{
	struct ring *r = ((struct producer *)arg)->r;
	uint64_t head = 0;

	for (uint64_t seq = 0; seq < PRODUCED; seq++) {
		uint16_t words = (uint16_t)(1 + seq % 13);
		uint16_t size = (uint16_t)(8 + words * 8);
		struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
		unsigned char rec[8 + 13 * 8];

		/* The kernel's view: wait until the reader has freed the space. */
		while (head + size - __atomic_load_n(&r->pc->data_tail, __ATOMIC_ACQUIRE) >
		       DATA_SIZE)
			;
		memcpy(rec, &h, sizeof(h));
		for (uint16_t i = 0; i < words; i++) {
			uint64_t w = seq * 100 + i;

			memcpy(rec + 8 + i * 8, &w, 8);
		}
		for (size_t i = 0; i < size; i++)
			r->data[(head + i) % DATA_SIZE] = rec[i];
		head += size;
		__atomic_store_n(&r->pc->data_head, head, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_concurrent_producer(void **state)
{
	struct ring r;
	struct producer p = { .r = &r };
	struct tally_mmap *m;
	const struct perf_event_header *ev;
	uint64_t seq = 0, bad = 0;
	pthread_t t;

	(void)state;
	ring_init(&r);
	m = tally_mmap__new_mem(r.mem, DATA_OFF + DATA_SIZE);
	assert_non_null(m);
	assert_int_equal(pthread_create(&t, NULL, producer_fn, &p), 0);
	while (seq < PRODUCED) {
		if (tally_mmap__read_init(m))
			continue;
		while ((ev = tally_mmap__read_event(m))) {
			uint16_t words = (uint16_t)(1 + seq % 13);
			uint64_t w;

			if (ev->type != PERF_RECORD_SAMPLE || ev->size != 8 + words * 8)
				bad++;
			for (uint16_t i = 0; i < words && ev->size == 8 + words * 8; i++) {
				memcpy(&w, (const unsigned char *)ev + 8 + i * 8, 8);
				if (w != seq * 100 + i)
					bad++;
			}
			seq++;
			if (seq % 3 == 0)
				tally_mmap__consume(m);	/* give space back mid-batch */
		}
		assert_int_equal(errno, 0);
		tally_mmap__read_done(m);
	}
	pthread_join(t, NULL);
	assert_int_equal(bad, 0);
	assert_int_equal(seq, PRODUCED);
	assert_int_equal(tally_mmap__read_init(m), -EAGAIN);
	tally_mmap__free(m);
	free(r.mem);
}

/* The corrupt-ring cases warn by design; keep the TAP output readable. */
static int quiet(enum tally_log_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_layout),
		cmocka_unit_test(test_in_order_and_tail),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_batch_across_end),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_concurrent_producer),
	};

	tally_set_print(quiet);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
