// SPDX-License-Identifier: MIT
/*
 * Pure functions on an event's first mmap page (struct perf_event_mmap_page):
 * the seqlock read loop, the user-space counter read, pmc_width handling and
 * the time extrapolation. See the comment above struct perf_event_mmap_page
 * in <linux/perf_event.h> and perf_event_open(2), "cap_user_rdpmc".
 */
#include <tally/selfmon.h>
#include "internal.h"

/*
 * The capability bits of the page's `capabilities` union, read as one u64
 * so the whole set comes from a single load inside the seqlock.
 */
#define CAP_USER_RDPMC		(1ull << 2)	/* Linux 3.12 */
#define CAP_USER_TIME		(1ull << 3)	/* Linux 3.12 */
#define CAP_USER_TIME_ZERO	(1ull << 4)	/* Linux 3.12 */
#define CAP_USER_TIME_SHORT	(1ull << 5)	/* Linux 5.12 */

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

/* A bound on seqlock retries so a broken writer cannot hang the caller. */
#define MAX_RETRIES 1000000u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("pause" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* ---- The native counter and clock reads ---- */

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_NATIVE 1
#define NATIVE_WIDTH_MODE TALLY_PAGE_SIGN_EXTEND
static inline uint64_t native_counter(uint32_t idx)
{
	uint32_t lo, hi;

	/* idx is index - 1; fixed counters carry bit 30 in it already. */
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return lo | (uint64_t)hi << 32;
}

static inline uint64_t native_time(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}
#elif defined(__aarch64__)
#define HAVE_NATIVE 1
#define NATIVE_WIDTH_MODE TALLY_PAGE_MASK
/*
 * arm64 (Linux 5.18, kernel.perf_user_access = 1, attr.config1 bit 1): the
 * page's index - 1 names the counter; 31 is the cycle counter (the page
 * says 32). The event counters are read by selecting one in PMSELR_EL0 and
 * reading PMXEVCNTR_EL0; the kernel clears PMSELR_EL0 whenever the page's
 * seqlock changes, so a read raced by a context switch is retried.
 */
static inline uint64_t native_counter(uint32_t idx)
{
	uint64_t v;

	if (idx == 31) {
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
	}
	__asm__ volatile("msr pmselr_el0, %0" : : "r"((uint64_t)idx));
	__asm__ volatile("isb" ::: "memory");
	__asm__ volatile("mrs %0, pmxevcntr_el0" : "=r"(v));
	return v;
}

static inline uint64_t native_time(void)
{
	uint64_t v;

	__asm__ volatile("isb" ::: "memory");
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}
#else
#define HAVE_NATIVE 0
#define NATIVE_WIDTH_MODE TALLY_PAGE_SIGN_EXTEND
static inline uint64_t native_counter(uint32_t idx)
{
	(void)idx;
	return 0;
}

static inline uint64_t native_time(void)
{
	return 0;
}
#endif

static uint64_t ops_native_counter(void *ctx, uint32_t idx)
{
	(void)ctx;
	return native_counter(idx);
}

static uint64_t ops_native_time(void *ctx)
{
	(void)ctx;
	return native_time();
}

static const struct tally_page_ops native_ops = {
	.read_counter = HAVE_NATIVE ? ops_native_counter : NULL,
	.read_time = HAVE_NATIVE ? ops_native_time : NULL,
	.width_mode = NATIVE_WIDTH_MODE,
};

const struct tally_page_ops *tally_page__native_ops(void)
{
	return &native_ops;
}

/* ---- Arithmetic ---- */

uint64_t tally_page__sign_extend(uint64_t val, unsigned int width)
{
	if (width == 0 || width >= 64)
		return val;
	/* Shift in unsigned, then an arithmetic right shift of the signed. */
	return (uint64_t)((int64_t)(val << (64 - width)) >> (64 - width));
}

uint64_t tally_page__mask(uint64_t val, unsigned int width)
{
	if (width == 0 || width >= 64)
		return val;
	return val & ((1ull << width) - 1);
}

static inline uint64_t widen(uint64_t val, unsigned int width,
			     enum tally_page_width_mode mode)
{
	return mode == TALLY_PAGE_MASK ? tally_page__mask(val, width) :
		tally_page__sign_extend(val, width);
}

static inline uint64_t mul_shift(uint64_t cyc, uint32_t mult, uint16_t shift)
{
	uint64_t quot, rem;

	if (shift >= 64)
		return 0;
	quot = cyc >> shift;
	rem = cyc & ((1ull << shift) - 1);
	/* The kernel's formula, wrapping exactly as it does. */
	return quot * mult + ((rem * mult) >> shift);
}

uint64_t tally_page__cyc_to_delta(uint64_t cyc, uint32_t mult, uint16_t shift,
				  uint64_t offset, uint64_t time_cycles,
				  uint64_t time_mask)
{
	if (time_mask)
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
	return offset + mul_shift(cyc, mult, shift);
}

int tally_page__cyc_to_time(const struct perf_event_mmap_page *pc, uint64_t cyc,
			    uint64_t *time)
{
	uint64_t caps, zero, cycles = 0, mask = 0;
	uint32_t seq, mult, tries = 0;
	uint16_t shift;

	if (!pc || !time)
		return tally__err(EINVAL);
	for (;;) {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		if (!(seq & 1)) {
			caps = READ_ONCE(pc->capabilities);
			mult = READ_ONCE(pc->time_mult);
			shift = READ_ONCE(pc->time_shift);
			zero = READ_ONCE(pc->time_zero);
			if (caps & CAP_USER_TIME_SHORT) {
				cycles = READ_ONCE(pc->time_cycles);
				mask = READ_ONCE(pc->time_mask);
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) == seq)
				break;
		}
		if (++tries >= MAX_RETRIES)
			return tally__err(EBUSY);
		cpu_relax();
	}
	if (!(caps & CAP_USER_TIME_ZERO))
		return tally__err(EOPNOTSUPP);
	*time = tally_page__cyc_to_delta(cyc, mult, shift, zero, cycles, mask);
	return 0;
}

uint64_t tally_page__scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (!running || running >= enabled)
		return count;
	return tally__scale(count, enabled, running);
}

/* ---- The seqlock loop ---- */

/*
 * The writer is perf_event_update_userpage(): ++lock; barrier(); fields;
 * barrier(); ++lock. It normally runs on the reader's own CPU (a context
 * switch or an interrupt between two of our loads), so a changed lock is
 * the common retry; an odd lock means an update is under way on another
 * CPU (or, in tests, another thread) and is waited out. The acquire load
 * of the lock and the acquire fence before re-reading it are the reader
 * half of the seqlock (smp_rmb() in the kernel's terms; compiler barriers
 * on x86).
 *
 * `native` is a compile-time constant in each caller so that the native
 * instance has rdpmc/mrs inlined and the ops instance calls through ops.
 */
static __attribute__((always_inline)) inline int
page_read(const struct perf_event_mmap_page *pc, const struct tally_page_ops *ops,
	  unsigned int flags, struct tally_page_read *out, const bool native)
{
	uint64_t caps, count, enabled, running, cyc = 0, toff = 0;
	uint64_t tcycles = 0, tmask = 0;
	uint32_t seq, idx, mult = 0, retries = 0;
	uint16_t width = 0, shift = 0;
	bool can_count, can_time, have_time;
	enum tally_page_width_mode mode;

	if (native) {
		can_count = HAVE_NATIVE;
		can_time = HAVE_NATIVE;
		mode = NATIVE_WIDTH_MODE;
	} else {
		can_count = ops && ops->read_counter;
		can_time = ops && ops->read_time;
		mode = ops ? ops->width_mode : TALLY_PAGE_SIGN_EXTEND;
	}

	for (;;) {
		seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		if (seq & 1)
			goto again;
		caps = READ_ONCE(pc->capabilities);
		enabled = READ_ONCE(pc->time_enabled);
		running = READ_ONCE(pc->time_running);
		have_time = false;
		if (can_time && (caps & CAP_USER_TIME) &&
		    (enabled != running || (flags & TALLY_PAGE_ALWAYS_TIME))) {
			cyc = native ? native_time() : ops->read_time(ops->ctx);
			toff = READ_ONCE(pc->time_offset);
			mult = READ_ONCE(pc->time_mult);
			shift = READ_ONCE(pc->time_shift);
			if (caps & CAP_USER_TIME_SHORT) {
				tcycles = READ_ONCE(pc->time_cycles);
				tmask = READ_ONCE(pc->time_mask);
			} else {
				tcycles = tmask = 0;
			}
			have_time = true;
		}
		idx = READ_ONCE(pc->index);
		count = READ_ONCE(pc->offset);
		width = READ_ONCE(pc->pmc_width);
		if (can_count && (caps & CAP_USER_RDPMC) && idx) {
			uint64_t pmc = native ? native_counter(idx - 1) :
				ops->read_counter(ops->ctx, idx - 1);

			count += widen(pmc, width, mode);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) == seq)
			break;
again:
		if (++retries >= MAX_RETRIES)
			return tally__err(EBUSY);
		cpu_relax();
	}

	if (have_time) {
		uint64_t delta = tally_page__cyc_to_delta(cyc, mult, shift, toff,
							  tcycles, tmask);

		enabled += delta;
		/* time_running only advances while the event is on the PMU. */
		if (idx)
			running += delta;
	}
	out->count = count;
	out->enabled = enabled;
	out->running = running;
	out->index = idx;
	out->retries = retries;
	out->pmc_width = width;
	out->time_valid = have_time;
	out->user_read = can_count && (caps & CAP_USER_RDPMC) && idx;
	if (!out->user_read)
		return tally__err(EOPNOTSUPP);
	return 0;
}

int tally_page__read(const struct perf_event_mmap_page *pc,
		     const struct tally_page_ops *ops, unsigned int flags,
		     struct tally_page_read *out)
{
	if (!pc || !out)
		return tally__err(EINVAL);
	return page_read(pc, ops, flags, out, false);
}

int tally__page_read_native(const struct perf_event_mmap_page *pc,
			    unsigned int flags, struct tally_page_read *out)
{
	return page_read(pc, NULL, flags, out, true);
}
