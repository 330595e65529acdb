// SPDX-License-Identifier: MIT
/*
 * The analysis commands' heap on transparent huge pages.
 *
 * A report of a busy machine's file touches 17 MB of heap in its first
 * tens of milliseconds: 4,300 page faults, and in a VM each costs several
 * microseconds. glibc's glibc.malloc.hugetlb=1 tunable (madvise on the
 * heap) would do, but tunables are read before main. So: grow the heap
 * once by RESERVE (address space only: nothing is touched), keep it (no
 * trim; blocks up to 32 MB and the helper threads' blocks from it too)
 * and mark it MADV_HUGEPAGE. Where THP is "never", under a sanitizer or
 * when the growth fails, nothing changes; TALLY_NO_HUGE_HEAP=1 turns it
 * off. Measured: 4,300 -> 200 page faults, wall -25% (system-g), -50%
 * (node-jit); peak RSS 1-2 MB more. The file readers call it once the
 * file is open (read_file.c: not for --call-graph dwarf files), top at
 * its start.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "heap.h"

#define HUGE		(2ul << 20)
#define RESERVE		(256ul << 20)

/* The heap from its top to the first huge page: allocated, never touched past its header. */
static void *gap;

void cli_heap_huge(void)
{
	static bool done;	/* diff opens two files */
	uintptr_t b, lo, hi;

	if (done)
		return;
	done = true;
#if defined(__SANITIZE_ADDRESS__)
	return;			/* ASan's allocator has no brk heap to mark */
#endif
	if (getenv("TALLY_NO_HUGE_HEAP"))
		return;
	/* the helpers' blocks from this heap too: a thread's own arena is small pages */
	(void)mallopt(M_ARENA_MAX, 1);
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 2 * RESERVE) ||
	    !mallopt(M_TOP_PAD, RESERVE))
		return;
	/*
	 * A 2 MB region that one write touched before the madvise stays on
	 * small pages. So the growth is one block, from the top chunk (which
	 * ends at the break b) to a boundary lo: bigger than the top, it
	 * takes the pad with it, and malloc's only writes, its header and
	 * the new top's, fall below lo. What comes next starts at lo. (Were
	 * a free block that big, it would serve instead: no growth, no mark.)
	 */
	b = (uintptr_t)sbrk(0);
	lo = (b + (512ul << 10) + HUGE - 1) & ~(HUGE - 1);
	gap = malloc(lo - b - 64);
	(void)mallopt(M_TOP_PAD, 128 << 10);	/* glibc's default */
	hi = (uintptr_t)sbrk(0) & ~(HUGE - 1);
	if (gap && hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
