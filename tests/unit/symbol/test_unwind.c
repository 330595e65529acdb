// SPDX-License-Identifier: MIT
/*
 * The DWARF unwinder on hostile input: garbage registers, garbage and
 * truncated stack copies, self-referencing frames, addresses outside
 * every map. Nothing may crash (the suite runs this under ASan) and
 * every walk stays within its limit. Plus a real walk: this program's
 * own stack, copied, unwinds through its callers.
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
#include <tally/tally.h>

#define MASK (((1ull << 24) - 1) & ~(0xfull << 12))	/* what record asks for on x86-64 */

static struct tally_machine *m;
static uint64_t text_lo, text_hi;

/* This process's executable maps, as MMAP2 records would give them. */
static int setup(void **state)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];

	m = tally_machine__new();
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, off;
		char perms[8], path[3000] = "";
		struct tally_mmap_event ev = { .pid = getpid(), .tid = getpid() };

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %2999s", &lo, &hi, perms, &off, path) < 4 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		ev.start = lo;
		ev.len = hi - lo;
		ev.pgoff = off;
		ev.filename = path;
		ev.prot = 5;
		assert_int_equal(tally_machine__mmap(m, &ev), 0);
		if (!text_lo && strstr(path, "test_unwind")) {
			text_lo = lo;
			text_hi = hi;
		}
	}
	fclose(f);
	assert_true(text_hi > text_lo);
	return 0;
}

static int teardown(void **state)
{
	tally_machine__free(m);
	return 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_garbage(void **state)
{
	struct tally_unwind *u = tally_unwind__new();
	uint64_t regs[20], seed = 0x9e3779b97f4a7c15ULL, ips[64];
	static uint64_t stack[1024];
	enum tally_unwind_stop why;
	int walks = 0;

	/* x86-64's registers (MASK) on whatever host runs the test */
	assert_int_equal(tally_unwind__set_arch(u, "x86_64"), 0);

	assert_non_null(u);
	for (int it = 0; it < 3000; it++) {
		struct tally_sample_regs r = { .abi = 2, .mask = MASK, .nr = 20, .regs = regs };
		uint64_t size = rnd(&seed) % sizeof(stack);
		int n;

		for (int i = 0; i < 20; i++)
			regs[i] = rnd(&seed);
		/* the pc inside the program (else the walk stops at once) */
		regs[8] = text_lo + rnd(&seed) % (text_hi - text_lo);
		regs[7] = (it % 3) ? (uint64_t)(uintptr_t)stack : rnd(&seed);	/* sp */
		for (size_t i = 0; i < sizeof(stack) / 8; i++)
			stack[i] = it % 2 ? rnd(&seed) :
				   /* self-referencing frames: pointers back into the copy */
				   (uint64_t)(uintptr_t)&stack[rnd(&seed) % 1024];
		n = tally_unwind__sample(u, m, getpid(), getpid(), 1, &r, stack, size, ips, 64, &why);
		assert_true(n >= 0 && n <= 64);
		assert_true((unsigned)why < TALLY_UNWIND__NR);
		walks += n > 0;
	}
	assert_true(walks > 0);
	tally_unwind__free(u);
}

static void test_bad_args(void **state)
{
	struct tally_unwind *u = tally_unwind__new();
	uint64_t regs[20] = { 0 }, ips[4];
	struct tally_sample_regs none = { 0 }, few = { .abi = 2, .mask = 0x3, .nr = 2, .regs = regs };
	enum tally_unwind_stop why;

	assert_int_equal(tally_unwind__set_arch(u, "x86_64"), 0);
	assert_int_equal(tally_unwind__set_arch(NULL, "x86_64"), -EINVAL);
	assert_int_equal(tally_unwind__sample(NULL, m, 1, 1, 0, &few, NULL, 0, ips, 4, &why), -EINVAL);
	assert_int_equal(tally_unwind__sample(u, m, 1, 1, 0, &few, NULL, 0, ips, 0, &why), -EINVAL);
	/* no registers (a kernel thread), or not the ones the walk needs */
	assert_int_equal(tally_unwind__sample(u, m, 1, 1, 0, &none, NULL, 0, ips, 4, &why), 0);
	assert_int_equal(why, TALLY_UNWIND_NO_REGS);
	assert_int_equal(tally_unwind__sample(u, m, 1, 1, 0, &few, NULL, 0, ips, 4, &why), 0);
	assert_int_equal(why, TALLY_UNWIND_NO_REGS);
	/* a pc no map holds (a sample inside execve): no user frame, as perf */
	struct tally_sample_regs r = { .abi = 2, .mask = MASK, .nr = 20, .regs = regs };

	regs[8] = 0x1234;
	ips[0] = 0;
	assert_int_equal(tally_unwind__sample(u, m, 999999, 999999, 0, &r, NULL, 0, ips, 4, &why), 0);
	assert_int_equal(why, TALLY_UNWIND_NO_MAP);
	assert_int_equal(ips[0], 0);
	assert_string_equal(tally_unwind_stop__str(TALLY_UNWIND_STACK_SHORT), "stack copy too short");
	tally_unwind__free(u);
	tally_unwind__free(NULL);
}

/*
 * An arm64 recording's registers, on any host: perf's PERF_REG_ARM64_*
 * (x29 the frame pointer, x30 the link register, 31 sp, 32 pc) walked up
 * the frame records {x29, x30} of a code file without CFI.
 */
static void test_arm64_regs(void **state)
{
	struct tally_unwind *u = tally_unwind__new();
	static uint64_t stack[16];
	uint64_t regs[33] = { 0 }, ips[8], sp = (uint64_t)(uintptr_t)stack;
	struct tally_sample_regs r = { .abi = 2, .mask = (1ull << 33) - 1, .nr = 33, .regs = regs };
	struct tally_mmap_event ev = { .pid = 4242, .tid = 4242, .start = 0x400000, .len = 0x10000,
				       .filename = "/nonexistent/tally-arm64-prog", .prot = 5 };
	enum tally_unwind_stop why;
	int n;

	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	for (int i = 0; i < 29; i++)
		regs[i] = 0xdead0000 + (uint64_t)i;	/* x0..x28: nothing to do with the walk */
	regs[29] = sp + 16;			/* x29: the frame record */
	regs[30] = 0x401f00;			/* lr: a leaf's, not used by the fp walk */
	regs[31] = sp;
	regs[32] = 0x401000;			/* pc */
	stack[2] = sp + 48;			/* [x29] = the caller's frame record */
	stack[3] = 0x402010;			/* [x29 + 8] = the return address */
	stack[6] = 0;				/* the outermost frame */
	stack[7] = 0x403020;

	assert_int_equal(tally_unwind__set_arch(u, "aarch64"), 0);
	n = tally_unwind__sample(u, m, 4242, 4242, 0, &r, stack, sizeof(stack), ips, 8, &why);
	assert_int_equal(n, 3);
	assert_int_equal(ips[0], 0x401000);
	assert_int_equal(ips[1], 0x402010 - 1);
	assert_int_equal(ips[2], 0x403020 - 1);

	/* the same registers read as x86-64's: ip is perf's 8, here x8, not the pc */
	assert_int_equal(tally_unwind__set_arch(u, "x86_64"), 0);
	n = tally_unwind__sample(u, m, 4242, 4242, 0, &r, stack, sizeof(stack), ips, 8, &why);
	assert_true(n == 0 || ips[0] != 0x401000);

	/* an architecture without a map: no frames, never a misread */
	assert_int_equal(tally_unwind__set_arch(u, "riscv64"), -EOPNOTSUPP);
	n = tally_unwind__sample(u, m, 4242, 4242, 0, &r, stack, sizeof(stack), ips, 8, &why);
	assert_int_equal(n, 0);
	assert_int_equal(why, TALLY_UNWIND_NO_REGS);
	assert_int_equal(tally_unwind__set_arch(u, "arm64"), 0);
	assert_int_equal(tally_unwind__sample(u, m, 4242, 4242, 0, &r, stack, sizeof(stack), ips,
					      8, &why), 3);
	tally_unwind__free(u);
}

/*
 * x86-64 frame pointers in a file without CFI whose outermost return
 * address reads 0: the walk ends there, with no frame for it.
 * (libunwind's frame-chain step keeps one, ffffffffffffffff, that perf
 * prints as [unknown]: docs/perf-differences.md.)
 */
static void test_fp_zero_return(void **state)
{
	struct tally_unwind *u = tally_unwind__new();
	static uint64_t stack[16];
	uint64_t regs[20] = { 0 }, ips[8], sp = (uint64_t)(uintptr_t)stack;
	struct tally_sample_regs r = { .abi = 2, .mask = MASK, .nr = 20, .regs = regs };
	struct tally_mmap_event ev = { .pid = 4343, .tid = 4343, .start = 0x400000, .len = 0x10000,
				       .filename = "/nonexistent/tally-x86-prog", .prot = 5 };
	enum tally_unwind_stop why;
	int n;

	(void)state;
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	regs[6] = sp + 16;		/* rbp */
	regs[7] = sp;			/* rsp */
	regs[8] = 0x401000;		/* rip */
	stack[2] = sp + 48;		/* [rbp]: the caller's rbp */
	stack[3] = 0x402010;		/* [rbp + 8]: its return address */
	stack[6] = sp + 96;
	stack[7] = 0;			/* the outermost return address reads 0 */
	assert_int_equal(tally_unwind__set_arch(u, "x86_64"), 0);
	n = tally_unwind__sample(u, m, 4343, 4343, 0, &r, stack, sizeof(stack), ips, 8, &why);
	assert_int_equal(n, 2);
	assert_int_equal(ips[0], 0x401000);
	assert_int_equal(ips[1], 0x402010 - 1);
	assert_int_equal(why, TALLY_UNWIND_NO_MAP);
	/* a walk with room for one frame stops at one */
	assert_int_equal(tally_unwind__sample(u, m, 4343, 4343, 0, &r, stack, sizeof(stack), ips, 1, &why), 1);
	tally_unwind__free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_arm64_regs),
		cmocka_unit_test(test_fp_zero_return),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
