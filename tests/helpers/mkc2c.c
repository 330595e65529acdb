// SPDX-License-Identifier: MIT
/*
 * A perf.data as perf c2c record writes it on a machine with the memory
 * events (x86: cpu/mem-loads,ldlat=30/P and cpu/mem-stores/P), for c2c
 * report parity with perf on a machine without them. Written here field
 * by field from perf_event_open(2) and perf's header format, not by
 * tally's writer.
 *
 *   mkc2c OUT a   two NUMA nodes of two CPUs, loads with WEIGHT;
 *                 HITMs (local and remote) and stores from two threads
 *                 on shared lines, every load level, peers, locks,
 *                 blocks, loads and stores without an address or a map,
 *                 code no map holds, a kernel line, and a second process
 *                 of the program on lines of its own and an unmapped one
 *   mkc2c OUT b   one node of four CPUs, WEIGHT_STRUCT, another mix
 *                 (more lines, ties in the HITM counts)
 *   mkc2c OUT a|b N  the same with the shared lines' samples repeated
 *                 until N in all, a FINISHED_ROUND every 1024 (bench/branch.sh's
 *                 1M), written as it goes
 *
 * Samples lie in this program's own code (mapped whole at 0x400000: it is
 * built -no-pie, with -g), their data in its array `lines', so symbols,
 * data symbols and source lines resolve.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PID 5151
#define PID2 6161	/* another process of the same program: its lines are its own */
#define T0 2000000000ull

#define PDBUF_SIZE (1 << 20)
#include "pdbuf.h"
static unsigned char feat[1 << 16];
static size_t flen;

__attribute__((noinline)) int rd0(int x) { return x * 3 + 1; }
__attribute__((noinline)) int rd1(int x) { return rd0(x) * 5 + 2; }
__attribute__((noinline)) int wr0(int x) { return rd1(x) * 7 + 3; }
/* longer than perf's 30 columns of symbol: --full-symbols shows it whole */
__attribute__((noinline)) int shared_counter_writer_with_a_long_name(int x) { return wr0(x) * 11 + 4; }
struct line { long v[8]; } __attribute__((aligned(64)));
struct line lines[16];

/* sample_id_all trailer: TID TIME ID CPU IDENTIFIER, as the attrs have them */
static void trailer(uint32_t tid, uint64_t t)
{
	u32(tid == PID2 ? PID2 : PID);
	u32(tid);
	u64(t);
	u64(1);
	u64(0);
	u64(1);
}

#define P(a, b) PERF_MEM_##a##_##b
#define ST(lvl) ((uint64_t)P(OP, STORE) << PERF_MEM_OP_SHIFT | (uint64_t)(lvl) << PERF_MEM_LVL_SHIFT)

/* the data sources c2c tells apart */
enum kind { L1, LFB, L2, L3, LHITM, RHITM, RHIT, LDRAM, LDRAMS, RDRAM, LPEER, RPEER, UNC, IO,
	    LMISS, MREM, LOCKED, BLKD, BLKA, ST_HIT, ST_MISS, ST_NA, ST_UNC, PFETCH, NKIND };

static uint64_t dsrc(enum kind k)
{
	uint64_t load = (uint64_t)P(OP, LOAD) << PERF_MEM_OP_SHIFT;
	uint64_t hit = P(LVL, HIT), none = P(SNOOP, NONE), tlb = (uint64_t)(P(TLB, L1) | P(TLB, HIT)) << PERF_MEM_TLB_SHIFT;
#define L(lvl, snp) (load | (uint64_t)(lvl) << PERF_MEM_LVL_SHIFT | (uint64_t)(snp) << PERF_MEM_SNOOP_SHIFT | tlb)
	switch (k) {
	case L1: return L(P(LVL, L1) | hit, none);
	case LFB: return L(P(LVL, LFB) | hit, none);
	case L2: return L(P(LVL, L2) | hit, none);
	case L3: return L(P(LVL, L3) | hit, P(SNOOP, HIT));
	case LHITM: return L(P(LVL, L3) | hit, P(SNOOP, HITM));
	case RHITM: return L(P(LVL, REM_CCE1) | hit, P(SNOOP, HITM));
	case RHIT: return L(P(LVL, REM_CCE1) | hit, P(SNOOP, HIT));
	case LDRAM: return L(P(LVL, LOC_RAM) | hit, P(SNOOP, MISS));
	case LDRAMS: return L(P(LVL, LOC_RAM) | hit, P(SNOOP, HIT));
	case RDRAM: return L(P(LVL, REM_RAM1) | hit, P(SNOOP, MISS));
	case LPEER: return L(P(LVL, L2) | hit, none) | (uint64_t)P(SNOOPX, PEER) << PERF_MEM_SNOOPX_SHIFT;
	case RPEER: return L(P(LVL, REM_CCE2), 0) | (uint64_t)P(SNOOPX, PEER) << PERF_MEM_SNOOPX_SHIFT;
	case UNC: return L(P(LVL, UNC) | hit, none);
	case IO: return L(P(LVL, IO) | hit, none);
	case LMISS: return L(P(LVL, L3) | P(LVL, MISS), none);
	case MREM: return L(P(LVL, L3) | hit, P(SNOOP, HITM)) | (uint64_t)1 << PERF_MEM_REMOTE_SHIFT;
	case LOCKED: return L(P(LVL, L1) | hit, none) | (uint64_t)P(LOCK, LOCKED) << PERF_MEM_LOCK_SHIFT;
	case BLKD: return L(P(LVL, L2) | hit, none) | (uint64_t)P(BLK, DATA) << PERF_MEM_BLK_SHIFT;
	case BLKA: return L(P(LVL, LFB) | hit, none) | (uint64_t)P(BLK, ADDR) << PERF_MEM_BLK_SHIFT;
	case ST_HIT: return ST(P(LVL, L1) | hit);
	case ST_MISS: return ST(P(LVL, L1) | P(LVL, MISS));
	case ST_NA: return ST(P(LVL, NA));
	case ST_UNC: return ST(P(LVL, UNC) | hit) | (uint64_t)P(LOCK, LOCKED) << PERF_MEM_LOCK_SHIFT;
	case PFETCH: return (uint64_t)P(OP, PFETCH) << PERF_MEM_OP_SHIFT;
	default: return 0;
	}
#undef L
}

static bool is_store(enum kind k) { return k >= ST_HIT && k <= ST_UNC; }

static uint64_t lcg = 12345;
static unsigned rnd(unsigned n)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(lcg >> 33) % n;
}

static bool wstruct;

static void sample_ip(unsigned i, enum kind k, unsigned line, unsigned off, unsigned tid,
		      unsigned cpu, uint64_t weight, int addr_kind, uint64_t ip);

static void sample(unsigned i, enum kind k, unsigned line, unsigned off, unsigned tid,
		   unsigned cpu, uint64_t weight, int addr_kind)
{
	sample_ip(i, k, line, off, tid, cpu, weight, addr_kind, 0);
}

/* ip 0: one of the functions above; else that address (no map holds it) */
static void sample_ip(unsigned i, enum kind k, unsigned line, unsigned off, unsigned tid,
		      unsigned cpu, uint64_t weight, int addr_kind, uint64_t ip)
{
	int (*fns[])(int) = { rd0, rd1, wr0, shared_counter_writer_with_a_long_name };
	bool kernel = ip >> 63;
	size_t at = hdr(PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	uint64_t id = is_store(k) ? 2 : 1, daddr;

	daddr = (uint64_t)(uintptr_t)&lines[line] + off;
	if (addr_kind == 1)
		daddr = 0;			/* no data address */
	else if (addr_kind == 2)
		daddr = 0x7f00aa000000ull + line * 64 + off;	/* no map holds it */
	else if (kernel)
		daddr = 0xffff888000010000ull + line * 64 + off;
	u64(id);				/* IDENTIFIER */
	u64(ip ? ip : (uint64_t)(uintptr_t)fns[(is_store(k) ? 2 : 0) + (off / 8) % 2] + (line % 3) * 2);
	u32(tid == 2 ? PID2 : PID);	/* tid 2: the other process */
	u32(tid == 2 ? PID2 : PID + tid);
	u64(T0 + 1000 + i * 1000003ull);
	u64(daddr);				/* ADDR */
	u64(id);				/* ID */
	u32(cpu);
	u32(0);
	u64(k == ST_HIT ? 20011 : 10007);	/* PERIOD */
	if (wstruct) {
		union perf_sample_weight w = { .var1_dw = is_store(k) ? 0 : (uint32_t)weight,
					       .var2_w = 7 };

		u64(w.full);
	} else {
		u64(is_store(k) ? 0 : weight);
	}
	u64(dsrc(k));				/* DATA_SRC */
	/* PHYS_ADDR: node 0's memory below 1 GiB, node 1's above; a few 0 */
	u64(addr_kind || i % 11 == 3 ? 0 : (line % 2 ? 0x40000000ull : 0x1000000ull) +
	    line * 0x1000 + (i % 3) * 0x200000 + off);
	done(at);
	spill(0);
}

/* perf's header string: u32 length (padded to 64), the bytes */
static void fstr(const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1, padded = (n + 63) / 64 * 64;

	memcpy(feat + flen, &padded, 4);
	flen += 4;
	memset(feat + flen, 0, padded);
	memcpy(feat + flen, s, n);
	flen += padded;
}

static void f32(uint32_t v) { memcpy(feat + flen, &v, 4); flen += 4; }
static void f64(uint64_t v) { memcpy(feat + flen, &v, 8); flen += 8; }

int main(int argc, char **argv)
{
	struct perf_event_attr a[2];
	char self[4096];
	bool b = argc >= 3 && !strcmp(argv[2], "b");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	unsigned nodes = b ? 1 : 2, ncpu = 4;
	unsigned long nsamples = argc == 4 ? strtoul(argv[3], NULL, 10) : 0;
	size_t at;
	int fd;
	struct {
		char magic[8];
		uint64_t size, attr_size;
		uint64_t attrs_off, attrs_size, data_off, data_size, types_off, types_size;
		uint64_t features[4];
	} h = { .magic = "PERFILE2", .size = sizeof(h), .attr_size = sizeof(a[0]) + 16 };

	if (argc < 3 || argc > 4 || n <= 0 || (!b && strcmp(argv[2], "a")) ||
	    nsamples > 100000000 || (argc == 4 && !nsamples)) {
		fprintf(stderr, "usage: mkc2c OUT a|b [N]\n");
		return 2;
	}
	self[n] = 0;
	/* the file: header, ids, two attrs, the data (written as it comes), the features */
	h.attrs_off = sizeof(h) + 2 * sizeof(uint64_t);
	h.attrs_size = 2 * h.attr_size;
	h.data_off = h.attrs_off + h.attrs_size;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || lseek(fd, (off_t)h.data_off, SEEK_SET) < 0) {
		perror(argv[1]);
		return 1;
	}
	spill_to(fd);
	wstruct = b;
	lcg = b ? 777 : 12345;
	memset(a, 0, sizeof(a));
	for (int e = 0; e < 2; e++) {
		a[e].size = sizeof(a[e]);
		a[e].type = PERF_TYPE_RAW;
		a[e].config = e ? 0x82d0 : 0x1cd;
		a[e].config1 = e ? 0 : 30;
		a[e].sample_freq = 4000;
		a[e].freq = 1;
		a[e].precise_ip = e ? 2 : 3;
		a[e].sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				   PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
				   PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER |
				   (b ? PERF_SAMPLE_WEIGHT_STRUCT : PERF_SAMPLE_WEIGHT) |
				   PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR;
		a[e].read_format = PERF_FORMAT_ID;
		a[e].disabled = a[e].inherit = a[e].exclude_guest = 1;
		a[e].sample_id_all = a[e].enable_on_exec = 1;
		a[e].mmap = a[e].comm = a[e].mmap_data = a[e].task = !e;
	}

	/* the side band: the program, its threads' names */
	at = hdr(PERF_RECORD_COMM, 0);
	u32(PID);
	u32(PID);
	str("mkc2c");
	trailer(PID, T0);
	done(at);
	at = hdr(PERF_RECORD_FORK, 0);
	u32(PID);
	u32(PID);
	u32(PID + 1);
	u32(PID);
	u64(T0 + 1);
	trailer(PID + 1, T0 + 1);
	done(at);
	at = hdr(PERF_RECORD_COMM, 0);
	u32(PID);
	u32(PID + 1);
	str("mkc2c-writer");
	trailer(PID + 1, T0 + 2);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(PID);
	u32(PID);
	u64(0x400000);
	u64(0x100000);
	u64(0);
	str(self);
	trailer(PID, T0 + 3);
	done(at);
	at = hdr(PERF_RECORD_COMM, 0);
	u32(PID2);
	u32(PID2);
	str("mkc2c-other");
	trailer(PID2, T0 + 4);
	done(at);
	at = hdr(PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	u32(PID2);
	u32(PID2);
	u64(0x400000);
	u64(0x100000);
	u64(0);
	str(self);
	trailer(PID2, T0 + 5);
	done(at);

	/*
	 * The samples: shared lines (0..5 in a; 0..9 in b) read and written
	 * by both threads, HITMs among the loads; lines 6, 7 (a) read only;
	 * then one of every other kind.
	 */
	unsigned shared = b ? 10 : 6, i = 0;
	do for (unsigned l = 0; l < shared; l++) {
		unsigned nr = 6 + (b ? l % 3 * 2 : l * 3);

		for (unsigned s = 0; s < nr; s++, i++) {
			static const enum kind mix[] = { LHITM, RHITM, ST_HIT, L1, ST_MISS, LFB,
							 L2, L3, RHIT, LDRAM, ST_HIT, RDRAM, LHITM };
			enum kind k = mix[(s + l) % 13];
			unsigned tid = rnd(2), off = rnd(4) * 8 + (s % 2) * 32;

			if (b && l % 4 == 1 && (k == RHITM))
				k = LHITM;
			sample(i, k, l, off, tid, (tid * 2 + rnd(2)) % ncpu, 30 + rnd(400), 0);
			if (nsamples && i % 1024 == 1023)
				round_end();	/* as perf record's files have */
		}
	} while (i < nsamples);
	for (unsigned l = 6; !b && l < 8; l++)
		for (unsigned s = 0; s < 5; s++, i++)
			sample(i, s % 2 ? L1 : L2, l, s * 8, 0, 0, 35 + s, 0);
	for (enum kind k = 0; k < NKIND; k++, i++)
		sample(i, k, 12 + k % 3, (k % 8) * 8, k % 2, k % ncpu, 40 + k, 0);
	sample(i++, LHITM, 13, 0, 0, 1, 99, 1);	/* a load without its address */
	sample(i++, ST_HIT, 13, 0, 1, 2, 0, 1);
	sample(i++, RHITM, 14, 8, 1, 3, 120, 2);	/* an address no map holds */
	sample(i++, LHITM, 14, 16, 0, 0, 80, 2);
	sample(i++, ST_MISS, 14, 24, 1, 2, 0, 2);
	sample_ip(i++, RHITM, 2, 40, 1, 3, 222, 0, 0x7f00bb001234ull);	/* code no map holds */
	sample_ip(i++, ST_HIT, 2, 40, 0, 0, 0, 0, 0x7f00bb001238ull);
	/* the other process on lines 0..2 of its own copy: lines of its own */
	for (unsigned l = 0; l < 3; l++) {
		sample(i++, l ? RHITM : LHITM, l, 8, 2, 3, 250 + l, 0);
		sample(i++, ST_HIT, l, 16, 2, 2, 0, 0);
	}
	/* and at an address no map holds: one line of both processes (perf groups by pid mapped ones only) */
	sample(i++, RHITM, 14, 8, 2, 1, 77, 2);
	/* the kernel's: its lines come first in perf's order */
	sample_ip(i++, LHITM, 3, 8, 0, 1, 150, 0, 0xffffffff81001000ull);
	sample_ip(i++, ST_HIT, 3, 16, 1, 2, 0, 0, 0xffffffff81001010ull);

	/* the features: NRCPUS, EVENT_DESC, NUMA_TOPOLOGY, MEM_TOPOLOGY */
	static const int feats[] = { 7, 12, 14, 22 };
	uint64_t fsec[4][2];
	size_t fat[4];

	fat[0] = flen;
	f32(ncpu);
	f32(ncpu);
	fat[1] = flen;
	f32(2);
	f32(sizeof(a[0]));
	for (int e = 0; e < 2; e++) {
		memcpy(feat + flen, &a[e], sizeof(a[e]));
		flen += sizeof(a[e]);
		f32(1);
		fstr(e ? "cpu/mem-stores/P" : "cpu/mem-loads,ldlat=30/P");
		f64(e + 1);
	}
	fat[2] = flen;
	f32(nodes);
	for (unsigned k = 0; k < nodes; k++) {
		f32(k);
		f64(8u << 20);
		f64(4u << 20);
		fstr(nodes == 1 ? "0-3" : k ? "2-3" : "0-1");
	}
	/* memory in 256 MiB blocks: node 0 the first 4, node 1 the next 4 */
	fat[3] = flen;
	f64(1);
	f64(256u << 20);
	f64(nodes);
	for (unsigned k = 0; k < nodes; k++) {
		f64(k);
		f64(8);
		f64(8);		/* the bitmap's bits, then its words */
		f64(nodes == 1 ? 0xff : k ? 0xf0 : 0x0f);
	}

	uint64_t ids[2] = { 1, 2 }, idsec[2][2];

	spill(1);
	h.data_size = spilled;
	for (int k = 0; k < 4; k++)
		h.features[0] |= 1ull << feats[k];
	uint64_t foff = h.data_off + h.data_size + sizeof(fsec);

	for (int k = 0; k < 4; k++) {
		fsec[k][0] = foff + fat[k];
		fsec[k][1] = (k < 3 ? fat[k + 1] : flen) - fat[k];
	}
	for (int e = 0; e < 2; e++) {
		idsec[e][0] = sizeof(h) + e * 8;
		idsec[e][1] = 8;
	}
	if (write(fd, fsec, sizeof(fsec)) != sizeof(fsec) || write(fd, feat, flen) != (ssize_t)flen ||
	    lseek(fd, 0, SEEK_SET) || write(fd, &h, sizeof(h)) != sizeof(h) ||
	    write(fd, ids, sizeof(ids)) != sizeof(ids) ||
	    write(fd, &a[0], sizeof(a[0])) != sizeof(a[0]) || write(fd, idsec[0], 16) != 16 ||
	    write(fd, &a[1], sizeof(a[1])) != sizeof(a[1]) || write(fd, idsec[1], 16) != 16) {
		perror(argv[1]);
		return 1;
	}
	close(fd);
	return shared_counter_writer_with_a_long_name(0) == 0;	/* keep the functions */
}
