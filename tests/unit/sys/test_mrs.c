// SPDX-License-Identifier: MIT
/*
 * arm64's native page read (lib/sys/mmap_page.c): the seqlock loop with
 * its real `msr pmselr_el0` / `mrs pmxevcntr_el0` / `mrs pmccntr_el0` and
 * `mrs cntvct_el0`, against a simulated page. Without user access (qemu-user,
 * or a kernel with perf_user_access 0) the PMU registers trap with SIGILL;
 * the test's handler plays the PMU: it decodes the trapped instruction and
 * gives the simulated register, which a second thread moves with the page.
 * On x86 there is nothing to run: each case skips.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <cmocka.h>
#include <tally/selfmon.h>

/* lib/util/internal.h's: the native instance of the loop */
int tally__page_read_native(const struct perf_event_mmap_page *pc, unsigned int flags,
			    struct tally_page_read *out);

#if defined(__aarch64__)
/* The simulated PMU: 31 event counters and the cycle counter (31). */
static uint64_t pmc[32];
static uint64_t pmselr;
static unsigned long traps;
/* what the last counter read selected: 0..30, or 31 for pmccntr */
static int last_read = -1;

#define INSN_RT(i)	((i) & 31u)
#define MRS_PMCCNTR	0xd53b9d00u	/* mrs xN, pmccntr_el0 */
#define MRS_PMXEVCNTR	0xd53b9d40u	/* mrs xN, pmxevcntr_el0 */
#define MSR_PMSELR	0xd51b9ca0u	/* msr pmselr_el0, xN */

static void on_sigill(int sig, siginfo_t *si, void *arg)
{
	ucontext_t *uc = arg;
	uint32_t insn = *(const uint32_t *)uc->uc_mcontext.pc;
	unsigned int rt = INSN_RT(insn);
	uint64_t *x = (uint64_t *)uc->uc_mcontext.regs;
	uint64_t v;

	(void)si;
	switch (insn & ~31u) {
	case MRS_PMCCNTR:
		v = __atomic_load_n(&pmc[31], __ATOMIC_RELAXED);
		last_read = 31;
		break;
	case MRS_PMXEVCNTR:
		/* PMSELR_EL0.SEL is 5 bits; 31 there would be the cycle counter */
		last_read = (int)(pmselr & 31);
		v = __atomic_load_n(&pmc[last_read], __ATOMIC_RELAXED);
		break;
	case MSR_PMSELR:
		pmselr = rt == 31 ? 0 : x[rt];
		traps++;
		uc->uc_mcontext.pc += 4;
		return;
	default:
		signal(sig, SIG_DFL);	/* not ours: die of it */
		return;
	}
	if (rt != 31)
		x[rt] = v;
	traps++;
	uc->uc_mcontext.pc += 4;
}

/* Per test: cmocka sets its own SIGILL handler around each one. */
static void play_pmu(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigill, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGILL, &sa, NULL), 0);
}

static uint64_t cntvct(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

/* The registers must be the simulated ones: a PMU that lets us read really would not trap. */
static void need_traps(unsigned long before)
{
	if (traps == before) {
		print_message("# SKIP this machine gives user access to the PMU: no simulation\n");
		skip();
	}
}
#define ARCH_ONLY() play_pmu()
#else
#define ARCH_ONLY() do { \
		print_message("# SKIP aarch64 only (make test ARCH=arm64 runs it)\n"); \
		skip(); \
	} while (0)
#endif

#if defined(__aarch64__)
static struct perf_event_mmap_page *new_page(uint32_t index, uint16_t width)
{
	struct perf_event_mmap_page *pc = calloc(1, sizeof(*pc));

	assert_non_null(pc);
	pc->cap_user_rdpmc = 1;
	pc->index = index;
	pc->pmc_width = width;
	return pc;
}
#endif

/* index - 1 selects an event counter through PMSELR_EL0; 32 is the cycle counter. */
static void test_counter_select(void **state)
{
	(void)state;
	ARCH_ONLY();
#if defined(__aarch64__)
	struct perf_event_mmap_page *pc = new_page(4, 64);
	struct tally_page_read r;
	unsigned long t0 = traps;

	pmc[3] = 1234;
	pmc[31] = 99999;
	pc->offset = 100;
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	need_traps(t0);
	assert_int_equal(last_read, 3);
	assert_int_equal(pmselr, 3);
	assert_true(r.user_read);
	assert_int_equal(r.count, 100 + 1234);

	pc->index = 32;
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	assert_int_equal(last_read, 31);
	assert_int_equal(r.count, 100 + 99999);

	/* index 0: the event is off the PMU, no register is read */
	last_read = -1;
	pc->index = 0;
	assert_int_equal(tally__page_read_native(pc, 0, &r), -EOPNOTSUPP);
	assert_int_equal(last_read, -1);
	assert_false(r.user_read);
	free(pc);
#endif
}

/* A 32-bit counter's upper bits are unknown: arm64 masks to pmc_width, never sign-extends. */
static void test_pmc_width_mask(void **state)
{
	(void)state;
	ARCH_ONLY();
#if defined(__aarch64__)
	struct perf_event_mmap_page *pc = new_page(1, 32);
	struct tally_page_read r;
	unsigned long t0 = traps;

	pmc[0] = 0xdeadbeef80000005ull;	/* bit 31 set: sign extension would go negative */
	pc->offset = 1000;
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	need_traps(t0);
	assert_int_equal(r.pmc_width, 32);
	assert_int_equal(r.count, 1000 + 0x80000005ull);
	assert_int_equal(tally_page__native_ops()->width_mode, TALLY_PAGE_MASK);

	pc->pmc_width = 64;	/* the 64-bit counter (config1 bit 0): all bits */
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	assert_int_equal(r.count, 1000 + 0xdeadbeef80000005ull);
	free(pc);
#endif
}

/*
 * cap_user_time: enabled and running extrapolated from cntvct_el0 with the
 * page's time_mult/shift/offset; the test brackets the read by its own
 * cntvct reads.
 */
static void test_user_time(void **state)
{
	(void)state;
	ARCH_ONLY();
#if defined(__aarch64__)
	struct perf_event_mmap_page *pc = new_page(2, 64);
	struct tally_page_read r;
	uint64_t before, after, lo, hi;

	pc->cap_user_time = 1;
	pc->time_mult = 3 << 10;	/* 3 ns a tick */
	pc->time_shift = 10;
	pc->time_offset = -(int64_t)3000;	/* so delta = 3 * cyc - 3000 */
	pc->time_enabled = 500;
	pc->time_running = 200;		/* multiplexed: times are extrapolated */
	before = cntvct();
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	after = cntvct();
	assert_true(r.time_valid);
	lo = 3 * before - 3000;
	hi = 3 * after - 3000;
	assert_in_range(r.enabled - 500, lo, hi);
	assert_int_equal(r.running - 200, r.enabled - 500);

	/* time_zero for a raw cntvct value: tally_page__cyc_to_time */
	pc->cap_user_time_zero = 1;
	pc->time_zero = 7;
	uint64_t t;

	assert_int_equal(tally_page__cyc_to_time(pc, 1000, &t), 0);
	assert_int_equal(t, 7 + 3000);
	free(pc);
#endif
}

#if defined(__aarch64__)
/* The second thread: the kernel's perf_event_update_userpage() and the PMU. */
struct writer {
	struct perf_event_mmap_page *pc;
	int stop;
	uint64_t gens;
	uint64_t reads;
};

static void *writer_fn(void *arg)
{
	struct writer *w = arg;
	struct perf_event_mmap_page *pc = w->pc;
	volatile struct perf_event_mmap_page *vpc = pc;

	for (uint64_t g = 1; !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE); g++) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_RELAXED);
		uint32_t idx = (uint32_t)(g % 3) ? (uint32_t)(g % 3) : 32;	/* 32: pmccntr */
		uint64_t seen;

		__atomic_store_n(&pc->lock, seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		vpc->offset = g * 1000;
		for (volatile int i = 0; i < 20; i++)
			;
		vpc->index = idx;
		__atomic_store_n(&pmc[idx - 1], g, __ATOMIC_RELAXED);
		for (volatile int i = 0; i < 20; i++)
			;
		vpc->time_enabled = vpc->time_running = g * 3;
		__atomic_store_n(&pc->lock, seq + 2, __ATOMIC_RELEASE);
		w->gens = g;
		seen = __atomic_load_n(&w->reads, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&w->reads, __ATOMIC_ACQUIRE) == seen &&
		       !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
			sched_yield();
	}
	return NULL;
}
#endif

/*
 * The seqlock: whatever the writer is doing, a read's offset, index, the
 * register it selected and its value all come from one generation.
 */
static void test_concurrent_writer(void **state)
{
	(void)state;
	ARCH_ONLY();
#if defined(__aarch64__)
	struct perf_event_mmap_page *pc = new_page(1, 64);	/* generation 1's */
	struct writer w = { .pc = pc };
	struct tally_page_read r;
	uint64_t reads = 0, retries = 0, torn = 0, distinct = 0, last_g = 0;
	unsigned long t0 = traps;
	pthread_t t;

	pc->offset = 1000;
	pc->time_enabled = pc->time_running = 3;
	pmc[0] = 1;
	assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
	need_traps(t0);
	assert_int_equal(pthread_create(&t, NULL, writer_fn, &w), 0);
	while (reads < 20000 || retries < 10 || distinct < 10) {
		if (reads >= 5000000)
			break;
		assert_int_equal(tally__page_read_native(pc, 0, &r), 0);
		reads++;
		__atomic_store_n(&w.reads, reads, __ATOMIC_RELEASE);
		retries += r.retries;

		uint64_t g = r.enabled / 3;
		int want = r.index == 32 ? 31 : (int)r.index - 1;

		if (r.enabled != r.running || r.enabled % 3 || r.count != g * 1001 ||
		    r.index != ((g % 3) ? g % 3 : 32) || last_read != want)
			torn++;
		if (g != last_g)
			distinct++;
		last_g = g;
	}
	__atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	print_message("# %llu reads, %llu retries, %llu generations seen, writer wrote %llu\n",
		      (unsigned long long)reads, (unsigned long long)retries,
		      (unsigned long long)distinct, (unsigned long long)w.gens);
	assert_int_equal(torn, 0);
	assert_true(retries >= 10);
	assert_true(distinct >= 10);
	free(pc);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_select),
		cmocka_unit_test(test_pmc_width_mask),
		cmocka_unit_test(test_user_time),
		cmocka_unit_test(test_concurrent_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
