// SPDX-License-Identifier: MIT
/*
 * A perf.data of samples carrying the fields only a PMU gives (data
 * sources, weights, branch stacks, transactions) with known values, for
 * script/report parity with perf on a machine without one. Written here
 * field by field from perf_event_open(2), not by tally's writer.
 *
 *   mkfields OUT all     one event (raw 0x1cd) with IP TID TIME ADDR CPU
 *                        PERIOD BRANCH_STACK REGS_USER WEIGHT_STRUCT DATA_SRC
 *                        TRANSACTION REGS_INTR PHYS_ADDR CGROUP
 *                        DATA_PAGE_SIZE CODE_PAGE_SIZE; data sources over
 *                        every op, level, snoop, TLB, lock and block value;
 *                        CGROUP records, the main thread's NAMESPACES
 *   mkfields OUT hwidx   the same with the branch stack's hw_idx (Linux 5.7)
 *   mkfields OUT pf      page-faults with ADDR: the data addresses named by
 *                        this program's own symbols
 *   mkfields OUT br      branch stacks of 4 to 16 entries (every flag, cycles,
 *                        type), inside this program, into and out of libc (its
 *                        code mapped where this process has it), the kernel
 *                        (its map as perf record writes it) and no map; the
 *                        BRANCH_STACK header feature
 *   mkfields OUT brhw    the same with PERF_SAMPLE_BRANCH_HW_INDEX
 *   mkfields OUT brcg    the br file's stacks with call chains (-g): user
 *                        chains, kernel ones before them, some whose first
 *                        entries are return addresses of the stack's
 *                        branches (perf's overlap), each longer than its
 *                        stack; every tenth stack empty
 *   mkfields OUT brmem [N [DEPTH]]  the br file's stacks with ADDR,
 *                        WEIGHT_STRUCT and DATA_SRC (all's values): N
 *                        samples (40), stacks of DEPTH entries (4 to 16),
 *                        a FINISHED_ROUND every 1024; written as it goes
 *                        (bench/branch.sh's 1M samples)
 *   mkfields OUT ties    the same as all, every period 1000: rows of equal
 *                        shares, in the order of their keys
 *
 * Samples lie in this program's own code (mapped whole at 0x400000: it is
 * built -no-pie), in functions f0..f3, so symbols resolve.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 4242
#define T0 1000000000ull

#define PDBUF_SIZE (1 << 22)
#include "pdbuf.h"

__attribute__((noinline)) int f0(int x) { return x * 3 + 1; }
__attribute__((noinline)) int f1(int x) { return f0(x) * 5 + 2; }
__attribute__((noinline)) int f2(int x) { return f1(x) * 7 + 3; }
__attribute__((noinline)) int f3(int x) { return f2(x) * 11 + 4; }
long data_var[64];

static uint64_t sample_type;
static bool ties;		/* every sample's period the same */
static unsigned br_depth;	/* brmem: every stack's entries (0: 4 to 16) */
static bool br_chain;		/* brcg: call chains with the stacks */

/* sample_id_all trailer: TID TIME [CPU] (as the attr's sample_type has them) */
static void trailer(uint64_t t)
{
	u32(PID);
	u32(PID);
	u64(t);
	if (sample_type & PERF_SAMPLE_CPU)
		u64(0);
}

static uint64_t addr_of(int (*f)(int)) { return (uint64_t)(uintptr_t)f; }

/* data sources: every field's values, alone and mixed */
static uint64_t dsrc(unsigned i)
{
	union perf_mem_data_src d = { .val = 0 };
	static const uint64_t ops[] = { PERF_MEM_OP_NA, PERF_MEM_OP_LOAD, PERF_MEM_OP_STORE,
					PERF_MEM_OP_PFETCH, PERF_MEM_OP_EXEC, 0 };

	d.mem_op = ops[i % 6];
	d.mem_lvl = (i % 3 == 0) ? (1ull << (i % 14)) | PERF_MEM_LVL_HIT :
		    (i % 3 == 1) ? (1ull << (i % 14)) | PERF_MEM_LVL_MISS : (1ull << (i % 14));
	if (i % 7 == 3)
		d.mem_lvl |= PERF_MEM_LVL_L2 | PERF_MEM_LVL_L3;
	d.mem_snoop = 1u << (i % 5);
	if (i % 11 == 5)
		d.mem_snoop = PERF_MEM_SNOOP_HIT | PERF_MEM_SNOOP_HITM;
	d.mem_lock = i % 4 == 0 ? PERF_MEM_LOCK_NA : i % 4 == 1 ? PERF_MEM_LOCK_LOCKED : 0;
	d.mem_dtlb = (1u << (i % 7)) | (i % 2 ? PERF_MEM_TLB_HIT : 0);
	if (i % 9 == 4)
		d.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS;
	d.mem_lvl_num = i % 5 == 2 ? (i / 5) % 16 : 0;
	d.mem_remote = i % 8 == 6;
	d.mem_snoopx = i % 6 == 1 ? PERF_MEM_SNOOPX_FWD : i % 6 == 2 ? 2 : 0;
	d.mem_blk = i % 4;
	d.mem_hops = i % 10 == 7 ? (i / 10) % 5 : 0;
	if (i == 0)
		d.val = 0;
	if (i == 1)	/* the issue's: LOAD L1 hit, no snoop, TLB L1 or L2 hit, unlocked */
		d.val = 0x68100142ull;
	if (i == 2)
		d.val = PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
			PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
	return d.val;
}

#define NR_SAMPLES 96
#define REGS_MASK 0xff0fffull	/* perf's x86-64 set */

static void sample(uint64_t st, unsigned i, bool hwidx)
{
	int (*fns[])(int) = { f0, f1, f2, f3 };
	size_t at = hdr(PERF_RECORD_SAMPLE, i % 13 == 5 ? PERF_RECORD_MISC_KERNEL :
			PERF_RECORD_MISC_USER);
	uint64_t ip = addr_of(fns[i % 4]) + (i % 3);

	u64(ip);
	u32(PID);
	u32(PID + (i % 2));
	u64(T0 + 1000 + i * 1000003ull);
	if (st & PERF_SAMPLE_ADDR)
		u64(i % 5 == 0 ? 0 : (uint64_t)(uintptr_t)&data_var[i % 64] + (i % 8) * 0x10000ull);
	if (st & PERF_SAMPLE_CPU) {
		u32(i % 4);
		u32(0);
	}
	u64(ties ? 1000 : 1000 + i);	/* PERIOD */
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		unsigned nr = i % 6;

		u64(nr);
		if (hwidx)
			u64(i % 3 == 0 ? (uint64_t)-1 : i % 32);
		for (unsigned k = 0; k < nr; k++) {
			struct perf_branch_entry e = {
				.from = addr_of(fns[(i + k) % 4]) + k,
				.to = k == 2 ? 0xffffffff81000000ull + i : addr_of(fns[(i + k + 1) % 4]),
				.mispred = (i + k) % 3 == 1,
				.predicted = (i + k) % 3 == 2,
				.in_tx = (i + k) % 5 == 1,
				.abort = (i + k) % 7 == 1,
				.cycles = (i * 37 + k) % 1000,
				.type = (i + k) % 16,
				.new_type = (i / 16 + k) % 8,
				.spec = (i + k) % 4,
				.priv = (i + k) % 4,
			};

			put(&e, sizeof(e));
		}
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		u64(i % 9 == 8 ? PERF_SAMPLE_REGS_ABI_NONE : PERF_SAMPLE_REGS_ABI_64);
		if (i % 9 != 8)
			for (unsigned r = 0; r < 20; r++)
				u64(r * 0x1111 + i);
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		union perf_sample_weight w = { .var1_dw = i * 41 % 5000, .var2_w = (uint16_t)(i * 13),
					       .var3_w = (uint16_t)(i * 7) };

		u64(w.full);
	}
	if (st & PERF_SAMPLE_DATA_SRC)
		u64(dsrc(i));
	if (st & PERF_SAMPLE_TRANSACTION)
		u64(i % 4 == 0 ? 0 : ((uint64_t)(i % 256) << 32) | (1u << (i % 9)));
	if (st & PERF_SAMPLE_REGS_INTR) {
		u64(PERF_SAMPLE_REGS_ABI_64);
		for (unsigned r = 0; r < 20; r++)
			u64(0xdead0000ull + r * 0x101 + i);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		u64(i % 6 == 0 ? 0 : 0x12345000ull + i * 0x40);
	if (st & PERF_SAMPLE_CGROUP)
		u64(i % 3 == 0 ? 1 : i % 3 == 1 ? 77 : 99);	/* 99: no CGROUP record */
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE) {
		static const uint64_t ps[] = { 4096, 2 << 20, 0, 1 << 30, 65536, 1024 };

		u64(ps[i % 6]);
	}
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		u64(i % 4 == 3 ? 2 << 20 : 4096);
	done(at);
}

/* libc's code as this process maps it: the r-x mapping of libc.so.6 */
static int libc_text(uint64_t *start, uint64_t *end, uint64_t *pgoff, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], perm[8], file[4096];
	unsigned long long s, e, o;
	int ok = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e, perm, &o, file) == 5 &&
		    perm[2] == 'x' && strstr(file, "/libc.so")) {
			*start = s;
			*end = e;
			*pgoff = o;
			snprintf(path, len, "%s", file);
			ok = 0;
			break;
		}
	if (f)
		fclose(f);
	return ok;
}

/* a kernel symbol's address from /proc/kallsyms (0 where it is hidden or absent) */
static uint64_t ksym(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t r = 0;

	while (f && !r && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			r = a;
	if (f)
		fclose(f);
	return r;
}

/*
 * brcg's chain: a kernel part for kernel samples, then the user part, the
 * ip then return addresses in f0..f3 and libc, longer than the
 * stack; every third's user entries after the ip are its branches' sources
 * + 2 (the returns of calls perf's chain skips after the branches).
 */
static void br_callchain(unsigned i, unsigned nr, const struct perf_branch_entry *be,
			 const uint64_t *site)
{
	uint64_t ips[96];
	unsigned n = 0, nu = nr + 2 + i % 3;

	if (i % 11 == 4) {
		ips[n++] = PERF_CONTEXT_KERNEL;
		ips[n++] = site[10] + 0x11 + i % 5;	/* __x64_sys_getpid's */
		ips[n++] = site[9] + 0x40;		/* _text's */
	}
	ips[n++] = PERF_CONTEXT_USER;
	ips[n++] = site[i % 4] + i % 3;
	for (unsigned k = 1; k < nu; k++) {
		if (i % 3 == 0 && k < 4 && k < nr)
			ips[n++] = be[k].from + 2;
		else
			ips[n++] = k % 5 == 4 ? site[4 + (i + k) % 5] + 2 : site[(i + k) % 4] + 5 + k % 3;
	}
	u64(n);
	put(ips, n * sizeof(ips[0]));
}

/*
 * A branch stack sample: nr entries whose ends go round sites in this
 * program, libc, the kernel and no map, with every flag and type.
 */
static void br_sample(unsigned i, bool hwidx, const uint64_t *site, unsigned nsites)
{
	size_t at = hdr(PERF_RECORD_SAMPLE, i % 11 == 4 ? PERF_RECORD_MISC_KERNEL :
			PERF_RECORD_MISC_USER);
	unsigned nr = br_depth ? br_depth : br_chain && i % 10 == 7 ? 0 : 4 + (i * 5) % 13;

	u64(site[i % 4] + i % 3);	/* IP: in f0..f3 */
	u32(PID);
	u32(PID + (i % 3 == 2));
	u64(T0 + 1000 + i * 1000003ull);
	if (sample_type & PERF_SAMPLE_ADDR)
		u64(i % 5 == 0 ? 0 : (uint64_t)(uintptr_t)&data_var[i % 64] + (i % 8) * 0x10000ull);
	u32(i % 2);	/* CPU */
	u32(0);
	u64(br_chain ? 1000 + (i * i * 7) % 1009 : 1000 + i);	/* PERIOD (brcg: fewer equal sums) */
	struct perf_branch_entry be[64];

	for (unsigned k = 0; k < nr; k++) {
		unsigned a = (i * 7 + k * 3) % nsites, b = (i * 3 + k * 5 + 1) % nsites;

		be[k] = (struct perf_branch_entry){
			.from = site[a] + (k % 4),
			.to = site[b] + (i % 2) * (k % 3),
			.mispred = (i + k) % 4 == 1,
			.predicted = (i + k) % 4 == 2,
			.in_tx = (i * k) % 5 == 3,
			.abort = (i + 2 * k) % 9 == 4,
			.cycles = (i + k) % 6 == 0 ? 0 : (i * 13 + k * 7) % 40,
			.type = (i + k) % 16,
			.new_type = (i + k) % 8,
		};
	}
	if (br_chain)
		br_callchain(i, nr, be, site);
	u64(nr);
	if (hwidx)
		u64(i % 4 == 0 ? (uint64_t)-1 : i % 16);
	put(be, nr * sizeof(be[0]));
	if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT) {
		union perf_sample_weight w = { .var1_dw = i * 41 % 5000, .var2_w = (uint16_t)(i * 13),
					       .var3_w = (uint16_t)(i * 7) };

		u64(w.full);
	}
	if (sample_type & PERF_SAMPLE_DATA_SRC)
		u64(dsrc(i % NR_SAMPLES));
	done(at);
}

/* The br files: COMM, this program's and libc's code, the samples; the BRANCH_STACK feature. */
static int branch_file(const char *out, const char *self, bool hwidx, bool mem, unsigned nsamples)
{
	static const char *const libc_fns[] = { "abs", "atoi", "qsort", "getpid", "labs" };
	struct perf_event_attr a = { .size = sizeof(a), .sample_period = 1000, .type = PERF_TYPE_RAW,
				     .config = 0x1c4 };
	uint64_t site[16], ls, le, lo;
	unsigned ns = 0;
	char lpath[4096];
	size_t at;
	int fd;

	if (libc_text(&ls, &le, &lo, lpath, sizeof(lpath)))
		return 2;
	site[ns++] = addr_of(f0);
	site[ns++] = addr_of(f1);
	site[ns++] = addr_of(f2);
	site[ns++] = addr_of(f3);
	for (unsigned k = 0; k < sizeof(libc_fns) / sizeof(libc_fns[0]); k++) {
		void *p = dlsym(RTLD_DEFAULT, libc_fns[k]);

		if (!p || (uint64_t)(uintptr_t)p < ls || (uint64_t)(uintptr_t)p >= le)
			return 2;
		site[ns++] = (uint64_t)(uintptr_t)p;
	}
	/* the kernel, its map as perf record writes it (kallsyms hidden: where it usually lies) */
	uint64_t kt = ksym("_text"), ke = ksym("_etext"), kf = ksym("__x64_sys_getpid");

	if (!kt || !ke || ke <= kt || kf <= kt || kf >= ke) {
		kt = 0xffffffff81000000ull;
		ke = kt + (16 << 20);
		kf = kt + 0x234560;
	}
	site[ns++] = kt;
	site[ns++] = kf;
	site[ns++] = 0x10000;			/* user space no map holds */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
	if (br_chain)
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (mem)
		a.sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | (hwidx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
	a.mmap = a.comm = a.sample_id_all = a.exclude_guest = 1;
	sample_type = a.sample_type;
	at = hdr(PERF_RECORD_COMM, 0);
	u32(PID);
	u32(PID);
	str("mkfields");
	trailer(T0);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(PID);
	u32(PID);
	u64(0x400000);
	u64(0x100000);
	u64(0);
	str(self);
	trailer(T0 + 1);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(PID);
	u32(PID);
	u64(ls);
	u64(le - ls);
	u64(lo);
	str(lpath);
	trailer(T0 + 2);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	u32((uint32_t)-1);
	u32(0);
	u64(kt);
	u64(ke - kt);
	u64(kt);
	str("[kernel.kallsyms]_text");
	trailer(T0 + 3);
	done(at);

	/* header, one attr, the data, the feature table (BRANCH_STACK's section is empty) */
	struct {
		char magic[8];
		uint64_t size, attr_size;
		uint64_t attrs_off, attrs_size, data_off, data_size, types_off, types_size;
		uint64_t features[4];
	} h = { .magic = "PERFILE2", .size = sizeof(h), .attr_size = sizeof(a) + 16 };
	uint64_t ids[2] = { 0, 0 }, sec[2];

	h.attrs_off = sizeof(h);
	h.attrs_size = sizeof(a) + 16;
	h.data_off = h.attrs_off + h.attrs_size;
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || lseek(fd, (off_t)h.data_off, SEEK_SET) < 0) {
		perror(out);
		return 1;
	}
	spill_to(fd);
	for (unsigned i = 0; i < nsamples; i++) {
		br_sample(i, hwidx, site, ns);
		if (mem && i % 1024 == 1023)
			round_end();	/* brmem: rounds, as perf record's files have */
		spill(0);
	}
	spill(1);
	h.data_size = spilled;
	h.features[0] = 1ull << 15;	/* HEADER_BRANCH_STACK */
	sec[0] = h.data_off + h.data_size + sizeof(sec);
	sec[1] = 0;
	if (write(fd, sec, sizeof(sec)) != sizeof(sec) || lseek(fd, 0, SEEK_SET) ||
	    write(fd, &h, sizeof(h)) != sizeof(h) || write(fd, &a, sizeof(a)) != sizeof(a) ||
	    write(fd, ids, sizeof(ids)) != sizeof(ids)) {
		perror(out);
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_event_attr a = { .size = sizeof(a), .sample_period = 1000 };
	char self[4096];
	bool hwidx = argc == 3 && !strcmp(argv[2], "hwidx");
	bool pf = argc == 3 && !strcmp(argv[2], "pf");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t at;
	int fd;

	bool br = argc == 3 && (!strcmp(argv[2], "br") || !strcmp(argv[2], "brhw") ||
				!strcmp(argv[2], "brcg"));
	bool brmem = argc >= 3 && argc <= 5 && !strcmp(argv[2], "brmem");
	unsigned long nsamples = argc >= 4 ? strtoul(argv[3], NULL, 10) : 40;

	br_depth = argc == 5 ? (unsigned)strtoul(argv[4], NULL, 10) : 0;
	if ((argc != 3 && !brmem) || n <= 0 || nsamples < 1 || nsamples > 100000000 ||
	    br_depth > 64 ||
	    (!hwidx && !pf && !br && !brmem && strcmp(argv[2], "all") && strcmp(argv[2], "ties"))) {
		fprintf(stderr, "usage: mkfields OUT all|hwidx|pf|br|brhw|brcg|ties, mkfields OUT brmem [N [DEPTH]]\n");
		return 2;
	}
	self[n] = 0;
	br_chain = br && !strcmp(argv[2], "brcg");
	if (br || brmem)
		return branch_file(argv[1], self, !strcmp(argv[2], "brhw"), brmem,
				   (unsigned)nsamples) || f3(0) == 0;
	ties = !strcmp(argv[2], "ties");
	if (pf) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_PAGE_FAULTS;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD;
	} else {
		a.type = PERF_TYPE_RAW;
		a.config = 0x1cd;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
				PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |
				PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
				PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_REGS_INTR |
				PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
				PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
		a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				       (hwidx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
		a.sample_regs_user = REGS_MASK;
		a.sample_regs_intr = REGS_MASK;
		a.cgroup = 1;
	}
	a.mmap = a.comm = a.sample_id_all = a.exclude_guest = 1;
	sample_type = a.sample_type;
	a.mmap_data = pf;

	/* the side band: the program, its name, its data (pf), two cgroups */
	at = hdr(PERF_RECORD_COMM, 0);
	u32(PID);
	u32(PID);
	str("mkfields");
	trailer(T0);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(PID);
	u32(PID);
	u64(0x400000);
	u64(0x100000);
	u64(0);
	str(self);
	trailer(T0 + 1);
	done(at);
	if (a.cgroup) {	/* the main thread's namespaces (cgroup_id), none for PID + 1 */
		at = hdr(PERF_RECORD_NAMESPACES, 0);
		u32(PID);
		u32(PID);
		u64(NR_NAMESPACES);
		for (unsigned k = 0; k < NR_NAMESPACES; k++) {
			u64(k == CGROUP_NS_INDEX ? 4 : 3);
			u64(0xeffff000ull + k);
		}
		trailer(T0 + 2);
		done(at);
	}
	if (a.cgroup) {
		static const struct { uint64_t id; const char *path; } cg[] = {
			{ 1, "/" }, { 77, "/tally-fields/a b" },
		};

		for (unsigned k = 0; k < 2; k++) {
			at = hdr(PERF_RECORD_CGROUP, 0);
			u64(cg[k].id);
			str(cg[k].path);
			trailer(T0 + 2);
			done(at);
		}
	}
	for (unsigned i = 0; i < NR_SAMPLES; i++)
		sample(a.sample_type, i, hwidx);

	/* the file: header, one attr without ids, the data; no features */
	struct {
		char magic[8];
		uint64_t size, attr_size;
		uint64_t attrs_off, attrs_size, data_off, data_size, types_off, types_size;
		uint64_t features[4];
	} h = { .magic = "PERFILE2", .size = sizeof(h), .attr_size = sizeof(a) + 16 };
	uint64_t ids[2] = { 0, 0 };

	h.attrs_off = sizeof(h);
	h.attrs_size = sizeof(a) + 16;
	h.data_off = h.attrs_off + h.attrs_size;
	h.data_size = len;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, &h, sizeof(h)) != sizeof(h) || write(fd, &a, sizeof(a)) != sizeof(a) ||
	    write(fd, ids, sizeof(ids)) != sizeof(ids) || write(fd, buf, len) != (ssize_t)len) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	return f3(0) == 0;	/* keep f0..f3 */
}
