/* SPDX-License-Identifier: MIT */
/*
 * The test generators' file bytes (mkfields, mkc2c): records put one after
 * another into buf, each header's size filled in when the record is done,
 * strings NUL-ended and padded to 8 as perf lays them out. Written by the
 * tests themselves, not by tally's writer. PDBUF_SIZE: buf's bytes.
 * Files larger than buf (the benches' millions of samples): spill_to()
 * names the file, already open at its data's offset, and spill() between
 * records writes what buf holds there; spilled counts those bytes.
 */
#ifndef TESTS_HELPERS_PDBUF_H
#define TESTS_HELPERS_PDBUF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <linux/perf_event.h>

#ifndef PDBUF_SIZE
#define PDBUF_SIZE (1 << 22)
#endif

static unsigned char buf[PDBUF_SIZE];
static size_t len;
static int spill_fd = -1;
static uint64_t spilled;

static void put(const void *p, size_t n)
{
	if (len + n > sizeof(buf))
		exit(2);
	memcpy(buf + len, p, n);
	len += n;
}

static void u64(uint64_t v) { put(&v, 8); }
static void u32(uint32_t v) { put(&v, 4); }

/* A record begun: its header, the size left for done() */
static size_t hdr(uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t at = len;

	put(&h, sizeof(h));
	return at;
}

static void done(size_t at)
{
	((struct perf_event_header *)(buf + at))->size = (uint16_t)(len - at);
}

static void spill_to(int fd) { spill_fd = fd; }

/* PERF_RECORD_FINISHED_ROUND (68), as perf record ends each pass over its rings */
static void round_end(void)
{
	struct perf_event_header h = { .type = 68, .size = sizeof(h) };

	put(&h, sizeof(h));
}

/* between records: buf's bytes to the file once it is half full (or now, when all) */
static void spill(int all)
{
	if (spill_fd < 0 || (!all && len < sizeof(buf) / 2))
		return;
	if (write(spill_fd, buf, len) != (ssize_t)len) {
		perror("spill");
		exit(1);
	}
	spilled += len;
	len = 0;
}

static void str(const char *s)
{
	size_t n = strlen(s) + 1;

	put(s, n);
	while (n++ % 8)
		put("", 1);
}

#endif
