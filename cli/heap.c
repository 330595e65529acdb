// SPDX-License-Identifier: MIT
/*
 * The analysis commands' heap on transparent huge pages.
 *
 * A report of a busy machine's file touches 17 MB of heap in its first
 * tens of milliseconds: 4,300 page faults, and in a VM each costs several
 * microseconds. glibc's glibc.malloc.hugetlb=1 tunable (madvise on the
 * heap) would do, but tunables are read before main. So: grow the heap
 * once by RESERVE (address space only: nothing is touched), keep it (no
 * trim; blocks up to 32 MB from it too) and mark it MADV_HUGEPAGE. Where
 * THP is "never", under a sanitizer or when the growth fails, nothing
 * changes; TALLY_NO_HUGE_HEAP=1 turns it off.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "heap.h"

#define HUGE		(2ul << 20)
#define RESERVE		(256ul << 20)

void cli_heap_huge(void)
{
	uintptr_t lo, hi;
	void *volatile p;	/* volatile: the compiler drops a malloc whose block is only freed */

#if defined(__SANITIZE_ADDRESS__)
	return;			/* ASan's allocator has no brk heap to mark */
#endif
	if (getenv("TALLY_NO_HUGE_HEAP"))
		return;
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 2 * RESERVE) ||
	    !mallopt(M_TOP_PAD, RESERVE))
		return;
	/* one block past the heap's top: the growth takes the pad with it, touching its first page */
	lo = (uintptr_t)sbrk(0);
	p = malloc(1 << 20);
	free(p);
	hi = (uintptr_t)sbrk(0);
	(void)mallopt(M_TOP_PAD, 128 << 10);	/* glibc's default */
	lo = (lo + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
	hi &= ~(uintptr_t)(HUGE - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
