// SPDX-License-Identifier: MIT
/*
 * report and script --header -I: the feature sections perf 6.1 only says
 * are there without -I (CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY),
 * read from the sections as they lie in the file and printed in perf's
 * words. A section that does not parse prints what came before its fault.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <tally/data_format.h>
#include "file_header.h"

/* a section's words: u32s and u64s, perf's strings (u32 length, then the padded bytes) */
struct sec {
	const unsigned char *p;
	size_t len, at;
	bool swap;		/* the file's byte order is not ours */
	bool bad;
};

/* the next n-byte word (4 or 8), in our byte order */
static uint64_t word(struct sec *s, size_t n)
{
	uint32_t v4;
	uint64_t v8;

	if (s->bad || s->len - s->at < n) {
		s->bad = true;
		return 0;
	}
	if (n == 4) {
		memcpy(&v4, s->p + s->at, 4);
		v8 = s->swap ? __builtin_bswap32(v4) : v4;
	} else {
		memcpy(&v8, s->p + s->at, 8);
		v8 = s->swap ? __builtin_bswap64(v8) : v8;
	}
	s->at += n;
	return v8;
}

static uint32_t u32(struct sec *s) { return (uint32_t)word(s, 4); }
static uint64_t u64(struct sec *s) { return word(s, 8); }

/* the next string, NUL-terminated within its padded length; NULL when damaged */
static const char *str(struct sec *s)
{
	uint32_t n = u32(s);
	const char *v = (const char *)s->p + s->at;

	if (s->bad || n > s->len - s->at || !memchr(v, '\0', n)) {
		s->bad = true;
		return NULL;
	}
	s->at += n;
	return v;
}

static bool section(const struct tally_data_reader *rd, int feat, struct sec *s)
{
	const void *data;
	size_t len;

	memset(s, 0, sizeof(*s));
	if (tally_data_reader__feature(rd, feat, &data, &len))
		return false;
	s->p = data;
	s->len = len;
	return true;
}

/* perf's: the sibling lists, then each available CPU's core, die and socket */
static void cpu_topology(FILE *fp, const struct tally_data_reader *rd)
{
	struct sec s;
	uint32_t avail = 0, n = 0;
	const char *sock[64], *thr[64], *die[64];
	uint32_t nsock, nthr, ndie = 0;
	uint32_t core[4096], socket[4096], dieid[4096];
	bool ids = false;

	if (!section(rd, TALLY_HEADER_CPU_TOPOLOGY, &s))
		return;
	tally_data_reader__nrcpus(rd, NULL, &avail);
	/* the first count is a handful: larger, the file's order is the other one */
	memcpy(&n, s.p, s.len >= 4 ? 4 : 0);
	s.swap = s.len >= 4 && n > 0xffff && __builtin_bswap32(n) <= 0xffff;
	nsock = u32(&s);
	for (uint32_t i = 0; i < nsock && !s.bad; i++) {
		const char *v = str(&s);

		if (i < 64)
			sock[i] = v;
	}
	nthr = u32(&s);
	for (uint32_t i = 0; i < nthr && !s.bad; i++) {
		const char *v = str(&s);

		if (i < 64)
			thr[i] = v;
	}
	if (s.bad)
		return;
	/* each CPU's core and socket, then the dies' lists and each CPU's die (newer files) */
	if (avail <= 4096 && s.len - s.at >= (size_t)avail * 8) {
		for (uint32_t i = 0; i < avail; i++) {
			core[i] = u32(&s);
			socket[i] = u32(&s);
		}
		ids = true;
		if (s.len - s.at >= 4) {
			ndie = u32(&s);
			for (uint32_t i = 0; i < ndie && !s.bad; i++) {
				const char *v = str(&s);

				if (i < 64)
					die[i] = v;
			}
			for (uint32_t i = 0; i < avail && !s.bad; i++)
				dieid[i] = u32(&s);
			if (s.bad)
				ndie = 0;
		}
	}
	for (uint32_t i = 0; i < nsock && i < 64; i++)
		fprintf(fp, "# sibling sockets : %s\n", sock[i]);
	for (uint32_t i = 0; i < ndie && i < 64; i++)
		fprintf(fp, "# sibling dies    : %s\n", die[i]);
	for (uint32_t i = 0; i < nthr && i < 64; i++)
		fprintf(fp, "# sibling threads : %s\n", thr[i]);
	if (!ids) {
		fprintf(fp, ndie ? "# Core ID, Die ID and Socket ID information is not available\n" :
			"# Core ID and Socket ID information is not available\n");
		return;
	}
	for (uint32_t i = 0; i < avail; i++)
		if (ndie)
			fprintf(fp, "# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i, (int)core[i],
				(int)dieid[i], (int)socket[i]);
		else
			fprintf(fp, "# CPU %u: Core ID %d, Socket ID %d\n", i, (int)core[i],
				(int)socket[i]);
}

static void numa_topology(FILE *fp, const struct tally_data_reader *rd)
{
	const struct tally_numa_node *nodes;
	int n = tally_data_reader__numa_nodes(rd, &nodes);

	for (int i = 0; i < n; i++) {
		fprintf(fp, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n",
			nodes[i].node, nodes[i].mem_total, nodes[i].mem_free);
		fprintf(fp, "# node%u cpu list : %s\n", nodes[i].node, nodes[i].cpus ? nodes[i].cpus : "");
	}
}

/* perf's: version 1, then each level's numbers and its type, size and CPU map */
static void cache(FILE *fp, const struct tally_data_reader *rd)
{
	struct sec s;
	uint32_t ver, cnt;

	if (!section(rd, TALLY_HEADER_CACHE, &s))
		return;
	ver = u32(&s);
	if (ver != 1 && __builtin_bswap32(ver) == 1) {
		s.swap = true;
		ver = 1;
	}
	cnt = u32(&s);
	if (s.bad || ver != 1 || cnt > 4096)
		return;
	fprintf(fp, "# CPU cache info:\n");
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t level = u32(&s);
		const char *type, *size, *map;

		u32(&s);	/* line size */
		u32(&s);	/* sets */
		u32(&s);	/* ways */
		type = str(&s);
		size = str(&s);
		map = str(&s);
		if (s.bad)
			return;
		fprintf(fp, "#  L%d %-15s %8s [%s]\n", (int)level, type, size, map);
	}
}

/* perf's unit_number__scnprintf: divided by 1024 while more than 1024 is left, up to G */
static void units(char *buf, size_t n, uint64_t v)
{
	static const char unit[] = "BKMG";
	int i = 0;

	while (v / 1024 > 1 && i < 3) {
		v /= 1024;
		i++;
	}
	snprintf(buf, n, "%" PRIu64 "%c", v, unit[i]);
}

/* perf's: version 1, block size, nodes: each its node, its size, then the bitmap (bits, words) */
static void mem_topology(FILE *fp, const struct tally_data_reader *rd)
{
	struct sec s;
	uint64_t ver, bsize, nr;

	if (!section(rd, TALLY_HEADER_MEM_TOPOLOGY, &s))
		return;
	ver = u64(&s);
	if (ver != 1 && __builtin_bswap64(ver) == 1) {
		s.swap = true;
		ver = 1;
	}
	bsize = u64(&s);
	nr = u64(&s);
	if (s.bad || ver != 1 || nr > 4096)
		return;
	fprintf(fp, "# memory nodes (nr %d, block size 0x%llx):\n", (int)nr, (unsigned long long)bsize);
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t node = u64(&s), bits, words, weight = 0;
		size_t at, len = 0;
		char map[100] = "", size[50];

		u64(&s);	/* the node's size (the bitmap's bits again) */
		bits = u64(&s);
		words = (bits + 63) / 64;
		at = s.at;
		if (s.bad || bits > (1u << 24) || (s.len - s.at) / 8 < words)
			return;
		/* perf's bitmap_scnprintf: "0-23,32-199", cut at 100 bytes */
		for (uint64_t b = 0; b < bits; b++) {
			uint64_t w, e;

			memcpy(&w, s.p + at + b / 64 * 8, 8);
			if (s.swap)
				w = __builtin_bswap64(w);
			if (!(w >> (b % 64) & 1))
				continue;
			for (e = b; e + 1 < bits; e++) {
				uint64_t w2;

				memcpy(&w2, s.p + at + (e + 1) / 64 * 8, 8);
				if (s.swap)
					w2 = __builtin_bswap64(w2);
				if (!(w2 >> ((e + 1) % 64) & 1))
					break;
			}
			weight += e - b + 1;
			if (len < sizeof(map))
				len += (size_t)snprintf(map + len, sizeof(map) - len,
							b < e ? "%s%" PRIu64 "-%" PRIu64 : "%s%" PRIu64,
							len ? "," : "", b, e);
			b = e;
		}
		s.at += words * 8;
		units(size, sizeof(size), bsize * weight);
		fprintf(fp, "#  %3" PRIu64 " [%s]: %s\n", node, size, map);
	}
}

bool print_header_info(FILE *fp, const struct tally_data_reader *rd, int feat)
{
	switch (feat) {
	case TALLY_HEADER_CPU_TOPOLOGY: cpu_topology(fp, rd); return true;
	case TALLY_HEADER_NUMA_TOPOLOGY: numa_topology(fp, rd); return true;
	case TALLY_HEADER_CACHE: cache(fp, rd); return true;
	case TALLY_HEADER_MEM_TOPOLOGY: mem_topology(fp, rd); return true;
	}
	return false;
}
