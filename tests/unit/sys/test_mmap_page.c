// SPDX-License-Identifier: MIT
/*
 * The mmap page arithmetic on a simulated page: seqlock retries (a
 * simulated interrupt and a real second thread rewriting the page while
 * we read), offset + counter, sign extension and masking by pmc_width
 * (40, 48, 64), time_mult/time_shift/time_offset extrapolation with and
 * without cap_user_time_short, time_zero and scaling.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/selfmon.h>

struct sim {
	struct perf_event_mmap_page *pc;
	uint64_t hw;			/* the simulated counter register */
	uint64_t cyc;			/* the simulated clock */
	uint32_t last_idx;
	int counter_calls;
	int time_calls;
	int interrupts;			/* rewrite the page on this many counter reads */
};

static uint64_t sim_counter(void *ctx, uint32_t idx)
{
	struct sim *s = ctx;

	s->counter_calls++;
	s->last_idx = idx;
	if (s->interrupts > 0) {
		/* An "interrupt" between the reader's loads: a full update. */
		s->interrupts--;
		s->pc->lock++;
		s->pc->offset += 1000;
		s->pc->time_enabled += 10;
		s->pc->time_running += 10;
		s->pc->lock++;
	}
	return __atomic_load_n(&s->hw, __ATOMIC_RELAXED);
}

static uint64_t sim_time(void *ctx)
{
	struct sim *s = ctx;

	s->time_calls++;
	return s->cyc;
}

static struct perf_event_mmap_page *new_page(void)
{
	struct perf_event_mmap_page *pc = calloc(1, sizeof(*pc));

	assert_non_null(pc);
	pc->cap_user_rdpmc = 1;
	pc->index = 3;
	pc->pmc_width = 48;
	return pc;
}

static struct tally_page_ops sim_ops(struct sim *s, enum tally_page_width_mode mode)
{
	return (struct tally_page_ops){ .read_counter = sim_counter,
					.read_time = sim_time, .ctx = s,
					.width_mode = mode };
}

static void test_sign_extend(void **state)
{
	(void)state;
	/* 40 bits */
	assert_int_equal(tally_page__sign_extend(0xffffffffffull, 40), UINT64_MAX);
	assert_int_equal(tally_page__sign_extend(0x7fffffffffull, 40), 0x7fffffffffull);
	assert_int_equal(tally_page__sign_extend(0x8000000000ull, 40), 0xffffff8000000000ull);
	assert_int_equal(tally_page__sign_extend(0xdead000000000001ull, 40), 1);
	/* 48 bits */
	assert_int_equal(tally_page__sign_extend(0xffffffffff00ull, 48), (uint64_t)-256);
	assert_int_equal(tally_page__sign_extend(0x7fffffffffffull, 48), 0x7fffffffffffull);
	assert_int_equal(tally_page__sign_extend(0xabcd800000000000ull, 48), 0xffff800000000000ull);
	/* 64 bits and nonsense widths: unchanged */
	assert_int_equal(tally_page__sign_extend(0x8000000000000001ull, 64), 0x8000000000000001ull);
	assert_int_equal(tally_page__sign_extend(0x8000000000000001ull, 0), 0x8000000000000001ull);
	assert_int_equal(tally_page__sign_extend(0x8000000000000001ull, 200), 0x8000000000000001ull);
}

static void test_mask(void **state)
{
	(void)state;
	assert_int_equal(tally_page__mask(0xabcd000000000010ull, 32), 0x10);
	assert_int_equal(tally_page__mask(0xffffffffffffffffull, 40), 0xffffffffffull);
	assert_int_equal(tally_page__mask(0xffffffffffffffffull, 48), 0xffffffffffffull);
	assert_int_equal(tally_page__mask(0xffffffffffffffffull, 64), UINT64_MAX);
}

/* count = offset + sign-extended counter, the counter named by index - 1. */
static void test_read_offset_sext(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_SIGN_EXTEND);
	struct tally_page_read r;
	static const unsigned widths[] = { 40, 48, 64 };

	(void)state;
	s.pc = new_page();
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		unsigned w = widths[i];

		s.pc->pmc_width = w;
		s.pc->offset = 5000;
		/* -256 in w bits, with garbage above bit w (for w < 64) */
		uint64_t mask = w < 64 ? (1ull << w) - 1 : UINT64_MAX;

		s.hw = ((uint64_t)-256 & mask) | (0xa5a5a5a5a5a5a5a5ull & ~mask);
		assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
		assert_true(r.user_read);
		assert_int_equal(s.last_idx, 2);
		assert_int_equal(r.index, 3);
		assert_int_equal(r.pmc_width, w);
		assert_int_equal(r.count, 5000 - 256);
		/* a positive counter value */
		s.hw = 1234;
		assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
		assert_int_equal(r.count, 5000 + 1234);
	}
	/* An offset that is "negative" (the kernel's count - prev_count). */
	s.pc->pmc_width = 48;
	s.pc->offset = (uint64_t)-0x7fffffffff00ll + 100;
	s.hw = 0x7fffffffff00ull;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_int_equal(r.count, 100);
	free(s.pc);
}

/* arm64: the bits above pmc_width are unknown and masked off. */
static void test_read_mask_mode(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_MASK);
	struct tally_page_read r;

	(void)state;
	s.pc = new_page();
	s.pc->index = 32;	/* the cycle counter */
	s.pc->pmc_width = 32;
	s.pc->offset = 7;
	s.hw = 0xabcd0000fffffff0ull;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_int_equal(s.last_idx, 31);
	assert_int_equal(r.count, 7 + 0xfffffff0ull);
	s.pc->pmc_width = 64;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_int_equal(r.count, 7 + 0xabcd0000fffffff0ull);
	free(s.pc);
}

/* index 0 or no cap_user_rdpmc: no counter read, -EOPNOTSUPP, times valid. */
static void test_read_fallback(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_SIGN_EXTEND);
	struct tally_page_read r;

	(void)state;
	s.pc = new_page();
	s.pc->index = 0;
	s.pc->time_enabled = 11;
	s.pc->time_running = 11;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), -EOPNOTSUPP);
	assert_false(r.user_read);
	assert_int_equal(r.enabled, 11);
	assert_int_equal(r.running, 11);
	assert_int_equal(s.counter_calls, 0);

	s.pc->index = 2;
	s.pc->cap_user_rdpmc = 0;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), -EOPNOTSUPP);
	assert_int_equal(s.counter_calls, 0);

	/* No counter read in ops (an architecture without one). */
	s.pc->cap_user_rdpmc = 1;
	ops.read_counter = NULL;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), -EOPNOTSUPP);
	assert_int_equal(tally_page__read(NULL, &ops, 0, &r), -EINVAL);
	free(s.pc);
}

static void test_cyc_to_delta(void **state)
{
	(void)state;
	/* mult/2^shift = 1: delta = offset + cyc */
	assert_int_equal(tally_page__cyc_to_delta(123456, 1u << 10, 10, 1000, 0, 0),
			 124456);
	/* quot = 500, rem = 1: 500 * 3 + (3 >> 1) = 1501 */
	assert_int_equal(tally_page__cyc_to_delta(1001, 3, 1, 0, 0, 0), 1501);
	/* Against the exact product where it fits (x * 0.75 ns per cycle). */
	for (uint64_t cyc = 1; cyc < (1ull << 40); cyc = cyc * 7 + 3) {
		uint64_t want = (uint64_t)(((unsigned __int128)cyc * 0xc0000000u) >> 32);

		assert_int_equal(tally_page__cyc_to_delta(cyc, 0xc0000000u, 32, 0, 0, 0), want);
	}
	/* A negative offset (u64 wrap), as the kernel writes time_offset. */
	assert_int_equal(tally_page__cyc_to_delta(2000, 1, 0, (uint64_t)-1500, 0, 0), 500);
	/* cap_user_time_short: cyc folded into the window of time_cycles */
	assert_int_equal(tally_page__cyc_to_delta(0x1234, 1, 0, 0, 0x1000, 0xff),
			 0x1000 + ((0x1234 - 0x1000) & 0xff));
	assert_int_equal(tally_page__cyc_to_delta(0x10, 1, 0, 0, 0xfff0, 0xffff),
			 0xfff0 + ((0x10 - 0xfff0) & 0xffff));
}

/* enabled and running extrapolated to "now" with the page's clock fields. */
static void test_time_extrapolation(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_SIGN_EXTEND);
	struct tally_page_read r;

	(void)state;
	s.pc = new_page();
	s.pc->cap_user_time = 1;
	s.pc->time_enabled = 1000;
	s.pc->time_running = 500;	/* multiplexed: times differ */
	s.pc->time_mult = 3;
	s.pc->time_shift = 1;
	s.pc->time_offset = (uint64_t)-1000;
	s.cyc = 1001;			/* 1501 - 1000 = 501 ns since the update */
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_true(r.time_valid);
	assert_int_equal(r.enabled, 1501);
	assert_int_equal(r.running, 1001);
	assert_int_equal(s.time_calls, 1);

	/* Off the PMU (index 0): running does not advance. */
	s.pc->index = 0;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), -EOPNOTSUPP);
	assert_int_equal(r.enabled, 1501);
	assert_int_equal(r.running, 500);
	s.pc->index = 3;

	/* Equal times: the clock is not read unless asked for. */
	s.pc->time_running = 1000;
	s.time_calls = 0;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_false(r.time_valid);
	assert_int_equal(s.time_calls, 0);
	assert_int_equal(r.enabled, 1000);
	assert_int_equal(tally_page__read(s.pc, &ops, TALLY_PAGE_ALWAYS_TIME, &r), 0);
	assert_int_equal(s.time_calls, 1);
	assert_int_equal(r.enabled, 1501);
	assert_int_equal(r.running, 1501);

	/* cap_user_time_short (arm64): the clock is folded by time_mask first. */
	s.pc->cap_user_time_short = 1;
	s.pc->time_cycles = 0x1000;
	s.pc->time_mask = 0xfff;
	s.pc->time_mult = 1;
	s.pc->time_shift = 0;
	s.pc->time_offset = (uint64_t)-0x1000;
	s.cyc = 0xabc1010;		/* folds to 0x1010: 16 ns */
	assert_int_equal(tally_page__read(s.pc, &ops, TALLY_PAGE_ALWAYS_TIME, &r), 0);
	assert_int_equal(r.enabled, 1000 + 16);

	/* No cap_user_time: no clock read, the page's times as they are. */
	s.pc->cap_user_time = 0;
	s.time_calls = 0;
	assert_int_equal(tally_page__read(s.pc, &ops, TALLY_PAGE_ALWAYS_TIME, &r), 0);
	assert_int_equal(s.time_calls, 0);
	assert_int_equal(r.enabled, 1000);
	free(s.pc);
}

static void test_time_zero(void **state)
{
	struct perf_event_mmap_page *pc = new_page();
	uint64_t t = 0;

	(void)state;
	pc->time_mult = 1u << 31;	/* 0.5 ns per cycle */
	pc->time_shift = 32;
	pc->time_zero = 1000000;
	assert_int_equal(tally_page__cyc_to_time(pc, 4000, &t), -EOPNOTSUPP);
	pc->cap_user_time_zero = 1;
	assert_int_equal(tally_page__cyc_to_time(pc, 4000, &t), 0);
	assert_int_equal(t, 1000000 + 2000);
	free(pc);
}

static void test_scale(void **state)
{
	(void)state;
	assert_int_equal(tally_page__scale(100, 200, 100), 200);
	assert_int_equal(tally_page__scale(100, 200, 0), 100);
	assert_int_equal(tally_page__scale(100, 300, 300), 100);
	/* count * enabled overflows 64 bits: still exact */
	assert_int_equal(tally_page__scale(1ull << 40, 1ull << 40, 1ull << 39), 1ull << 41);
	assert_int_equal(tally_page__scale(3, 10, 4), 7);	/* 7.5 truncated */
}

/* This CPU's ops: x86 sign-extends, arm64 masks; NULL ops read no counter. */
static void test_native_ops(void **state)
{
	const struct tally_page_ops *ops = tally_page__native_ops();
	struct perf_event_mmap_page *pc = new_page();
	struct tally_page_read r;

	(void)state;
	assert_non_null(ops);
#if defined(__x86_64__) || defined(__i386__)
	assert_non_null(ops->read_counter);
	assert_non_null(ops->read_time);
	assert_int_equal(ops->width_mode, TALLY_PAGE_SIGN_EXTEND);
#elif defined(__aarch64__)
	assert_non_null(ops->read_counter);
	assert_int_equal(ops->width_mode, TALLY_PAGE_MASK);
#endif
	pc->offset = 42;
	assert_int_equal(tally_page__read(pc, NULL, 0, &r), -EOPNOTSUPP);
	assert_false(r.user_read);
	assert_int_equal(r.count, 42);
	free(pc);
}

/* An update between the reader's loads makes it go round again. */
static void test_retry_on_interrupt(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_SIGN_EXTEND);
	struct tally_page_read r;

	(void)state;
	s.pc = new_page();
	s.pc->offset = 100;
	s.pc->time_enabled = s.pc->time_running = 50;
	s.hw = 1;
	s.interrupts = 3;
	assert_int_equal(tally_page__read(s.pc, &ops, 0, &r), 0);
	assert_int_equal(r.retries, 3);
	assert_int_equal(s.counter_calls, 4);
	/* The values of the last, undisturbed pass: */
	assert_int_equal(r.count, 100 + 3 * 1000 + 1);
	assert_int_equal(r.enabled, 50 + 3 * 10);
	assert_int_equal(r.running, 50 + 3 * 10);
	assert_int_equal(s.pc->lock, 6);
	free(s.pc);
}

/* A second thread rewrites the page the whole time the reader reads. */
struct writer {
	struct sim *s;
	int stop;
	uint64_t gens;
	uint64_t reads;		/* the reader's finished reads */
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	struct perf_event_mmap_page *pc = w->s->pc;
	volatile struct perf_event_mmap_page *vpc = pc;

	for (uint64_t g = 1; !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); g++) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_RELAXED);

		__atomic_store_n(&pc->lock, seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		/* Fields written one by one, with time in between to be torn. */
		vpc->offset = g * 1000;
		vpc->index = (uint32_t)(g % 4) + 1;
		for (volatile int i = 0; i < 20; i++)
			;
		vpc->time_enabled = g * 3;
		__atomic_store_n(&w->s->hw, g, __ATOMIC_RELAXED);
		for (volatile int i = 0; i < 20; i++)
			;
		vpc->time_running = g * 3;
		__atomic_store_n(&pc->lock, seq + 2, __ATOMIC_RELEASE);
		w->gens = g;
		/*
		 * A quiet spell, as between a real kernel's updates: until the
		 * reader has finished a read (under qemu-user a read outlasts
		 * any fixed spin, and every one would retry).
		 */
		uint64_t seen = __atomic_load_n(&w->reads, __ATOMIC_ACQUIRE);

		for (volatile int i = 0; i < 200; i++)
			;
		while (__atomic_load_n(&w->reads, __ATOMIC_ACQUIRE) == seen &&
		       !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	return NULL;
}

static void test_concurrent_writer(void **state)
{
	struct sim s = { 0 };
	struct tally_page_ops ops = sim_ops(&s, TALLY_PAGE_SIGN_EXTEND);
	struct writer w = { .s = &s };
	struct tally_page_read r;
	uint64_t reads = 0, retries = 0, torn = 0, distinct = 0, last_g = 0, busy = 0;
	pthread_t t;

	(void)state;
	s.pc = new_page();
	s.pc->pmc_width = 64;
	s.pc->offset = 1000;		/* generation 1's values, consistent */
	s.pc->time_enabled = s.pc->time_running = 3;
	s.hw = 1;
	s.pc->index = 2;
	assert_int_equal(pthread_create(&t, NULL, writer_fn, &w), 0);
	/*
	 * Read until the loop has demonstrably had to retry and has seen the
	 * page change under it; the cap only bounds a broken build.
	 */
	while (reads < 200000 || retries < 10 || distinct < 10) {
		if (reads >= 50000000 || busy >= 100)
			break;
		int rc = tally_page__read(s.pc, &ops, 0, &r);

		/*
		 * The writer is a thread here, not the kernel: preempted
		 * mid-update on a loaded machine (qemu's, in CI) it holds the
		 * lock odd past the read's retry bound, and the read says
		 * EBUSY, as it should. Let it run, and read again.
		 */
		if (rc == -EBUSY) {
			busy++;
			sched_yield();
			continue;
		}
		assert_int_equal(rc, 0);
		reads++;
		__atomic_store_n(&w.reads, reads, __ATOMIC_RELEASE);
		retries += r.retries;
		/* Everything must come from one generation g. */
		uint64_t g = r.enabled / 3;

		if (r.enabled != r.running || r.enabled % 3 || r.count != g * 1001 ||
		    r.index != (uint32_t)(g % 4) + 1 || s.last_idx != r.index - 1)
			torn++;
		if (g != last_g)
			distinct++;
		last_g = g;
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	print_message("# %llu reads, %llu retries, %llu generations seen, writer wrote %llu, %llu busy\n",
		      (unsigned long long)reads, (unsigned long long)retries,
		      (unsigned long long)distinct, (unsigned long long)w.gens, (unsigned long long)busy);
	assert_int_equal(torn, 0);
	assert_true(retries >= 10);
	assert_true(distinct >= 10);
	free(s.pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sign_extend),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_read_offset_sext),
		cmocka_unit_test(test_read_mask_mode),
		cmocka_unit_test(test_read_fallback),
		cmocka_unit_test(test_cyc_to_delta),
		cmocka_unit_test(test_time_extrapolation),
		cmocka_unit_test(test_time_zero),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_native_ops),
		cmocka_unit_test(test_retry_on_interrupt),
		cmocka_unit_test(test_concurrent_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
