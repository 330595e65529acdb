// SPDX-License-Identifier: MIT
/*
 * Workloads whose sample fields are known, for record -d/--phys-data/
 * --data-page-size and --intr-regs/--user-regs tests (built -no-pie, so
 * its symbols' addresses are fixed):
 *   fields pages N      print the address of N fresh anonymous pages, then
 *                       write the first byte of each (N page faults there)
 *   fields addr         print &fields_target
 *   fields write N      write fields_target once, print "VIRT PHYS" (PHYS
 *                       from /proc/self/pagemap: 0 unless root), then N-1
 *                       more writes (mem:&fields_target:w sees N)
 *   fields huge ADDR N  map 4 MiB at ADDR (2 MiB aligned) asking for a
 *                       transparent huge page, write ADDR once, print
 *                       "VIRT PHYS HUGE_KB" (smaps' AnonHugePages of it),
 *                       then N-1 more writes
 *   fields bp           print the address of fields_bp (x86-64)
 *   fields regs N       N times: known values in AX BX CX DX SI DI R8-R15
 *                       (REG_VALUE(r)), then the instruction at fields_bp
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

volatile uint64_t fields_target;

static uint64_t phys_of(const volatile void *p)
{
	uint64_t v = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &v, 8, (off_t)((uintptr_t)p / page * 8)) != 8)
		v = 0;
	close(fd);
	/* present, and a PFN the reader may see (root) */
	if (!(v & (1ull << 63)) || !(v & ((1ull << 55) - 1)))
		return 0;
	return (v & ((1ull << 55) - 1)) * page + (uintptr_t)p % page;
}

/* smaps' AnonHugePages (kB) of the mapping that holds p */
static long huge_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	bool in = false;
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

#if defined(__x86_64__)
/* REG_VALUE(r): the value in perf's register r (AX = 0, ... R15 = 23) */
#define LOAD(reg, v) "movabs $" #v ", %%" reg "\n\t"
__attribute__((noinline)) static void regs_once(void)
{
	__asm__ volatile(LOAD("rax", 0xa0a0a0a0a0a0a0a0) LOAD("rbx", 0xb1b1b1b1b1b1b1b1)
			 LOAD("rcx", 0xc2c2c2c2c2c2c2c2) LOAD("rdx", 0xd3d3d3d3d3d3d3d3)
			 LOAD("rsi", 0x5151515151515151) LOAD("rdi", 0xd1d1d1d1d1d1d1d1)
			 LOAD("r8", 0x0808080808080808) LOAD("r9", 0x0909090909090909)
			 LOAD("r10", 0x1010101010101010) LOAD("r11", 0x1111111111111111)
			 LOAD("r12", 0x1212121212121212) LOAD("r13", 0x1313131313131313)
			 LOAD("r14", 0x1414141414141414) LOAD("r15", 0x1515151515151515)
			 ".globl fields_bp\n"
			 "fields_bp:\n\t"
			 "nop\n\t"
			 ::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
			 "r12", "r13", "r14", "r15", "memory");
}
extern char fields_bp[];
#endif

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[argc - 1]) : 0;

	if (!strcmp(cmd, "pages") && n > 0) {
		long page = sysconf(_SC_PAGESIZE);
		volatile char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		printf("%p\n", (void *)p);
		fflush(stdout);
		for (long i = 0; i < n; i++)
			p[i * page] = 1;
		return 0;
	}
	if (!strcmp(cmd, "addr")) {
		printf("%p\n", (void *)&fields_target);
		return 0;
	}
	if (!strcmp(cmd, "write") && n > 0) {
		fields_target = 1;
		printf("%p %#" PRIx64 "\n", (void *)&fields_target, phys_of(&fields_target));
		fflush(stdout);
		for (long i = 1; i < n; i++)
			fields_target = (uint64_t)i;
		return 0;
	}
	if (!strcmp(cmd, "huge") && argc == 4 && n > 0) {
		uintptr_t a = strtoull(argv[2], NULL, 0);
		volatile uint64_t *p = mmap((void *)a, 4 << 20, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED || (uintptr_t)p != a)
			return 1;
		madvise((void *)p, 4 << 20, MADV_HUGEPAGE);
		*p = 1;
		printf("%p %#" PRIx64 " %ld\n", (void *)p, phys_of(p), huge_kb((void *)p));
		fflush(stdout);
		for (long i = 1; i < n; i++)
			*p = (uint64_t)i;
		return 0;
	}
#if defined(__x86_64__)
	if (!strcmp(cmd, "bp")) {
		printf("%p\n", (void *)fields_bp);
		return 0;
	}
	if (!strcmp(cmd, "regs") && n > 0) {
		for (long i = 0; i < n; i++)
			regs_once();
		return 0;
	}
#endif
	fprintf(stderr, "usage: fields pages N | addr | write N | huge ADDR N | bp | regs N\n");
	return 2;
}
