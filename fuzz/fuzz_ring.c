// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ring-buffer record reader (lib/mmap.c) through
 * its public API over a synthetic ring in plain memory
 * (tally_mmap__new_mem): no perf fd needed. The input plays the kernel:
 *
 *   byte 0     bits 0-4: log2 of the data size (mod 17: 1 B .. 64 KiB);
 *              bit 5: data_offset 4096 instead of right after the page;
 *              bit 6: data_size 0 (the pre-4.1 layout: data after one page);
 *              bit 7: a data_size that is not a power of two (must fail)
 *   bytes 1-8  the data_tail the reader starts at (any u64: wraps)
 *   byte 9     rounds (1..4), then per round 4 bytes of head advance
 *              (any u32: can overrun the ring) and 1 byte of reader
 *              behaviour (consume after each record, read_done or not,
 *              stop after k records)
 *   the rest   the bytes of the data area (repeated to fill it)
 *
 * A reference walk of the same bytes (perf_event_open(2): records are a
 * perf_event_header + body, header.size covers both) says which records
 * the batch holds; the reader must return exactly those, contiguous and
 * byte-identical even when they wrap, stop with EBADMSG on a header that
 * is short, too small, not a multiple of 8 or past data_head, refuse a
 * head more than a ring ahead of the tail or positions not 8-aligned, add
 * up PERF_RECORD_LOST.lost, and store data_tail where the protocol says.
 *
 *   make -f fuzz/Makefile && build-fuzz/fuzz_ring fuzz/corpus/ring
 * Every file of fuzz/corpus/ring is replayed by `make test`
 * (tests/unit/test_fuzz_replay_engine.c includes this file).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/mmap.h>

#include "fuzz_check.h"

#define RING_HDR_BYTES	10
#define RING_MAX_ROUNDS	4

/* What the inputs so far exercised (the replay checks the corpus does). */
static unsigned long ring_records_seen, ring_records_wrapped, ring_records_bad;

struct ring_model {
	const unsigned char *data;
	uint64_t mask;
};

/* Corrupt rings are the point here: keep the reader's warnings quiet. */
static int ring_quiet(enum tally_log_level level, const char *fmt, va_list ap)
{
	return 0;
}

static void ring_copy(const struct ring_model *r, uint64_t pos, void *dst, size_t n)
{
	unsigned char *d = dst;

	for (size_t i = 0; i < n; i++)
		d[i] = r->data[(pos + i) & r->mask];
}

static int fuzz_ring_one(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *pc;
	struct tally_mmap *m;
	struct ring_model model;
	unsigned char *mem, *rec;
	const uint8_t *ctl, *fill;
	size_t page_size, off, dsize, len, nfill;
	uint64_t tail, head, lost = 0;
	long psz = sysconf(_SC_PAGESIZE);
	int rounds;

	tally_set_print(ring_quiet);
	if (size < RING_HDR_BYTES)
		return 0;
	page_size = psz > 0 ? (size_t)psz : 4096;
	dsize = (size_t)1 << ((data[0] & 31) % 17);
	off = (data[0] & 0x20) ? 4096 : sizeof(*pc);
	if (data[0] & 0x40)
		off = page_size;	/* where the reader looks when data_size is 0 */
	memcpy(&tail, data + 1, sizeof(tail));
	rounds = data[9] % RING_MAX_ROUNDS + 1;
	if (size < RING_HDR_BYTES + (size_t)rounds * 5)
		return 0;
	ctl = data + RING_HDR_BYTES;
	fill = ctl + rounds * 5;
	nfill = size - (size_t)(fill - data);

	len = off + dsize;
	mem = calloc(1, len);
	rec = malloc(65536);
	if (!mem || !rec) {
		free(mem);
		free(rec);
		return 0;
	}
	for (size_t i = 0; i < dsize; i++)
		mem[off + i] = nfill ? fill[i % nfill] : 0;
	pc = (struct perf_event_mmap_page *)mem;
	pc->data_offset = (data[0] & 0x40) ? 0 : off;
	pc->data_size = (data[0] & 0x40) ? 0 : dsize;
	pc->data_tail = tail;
	pc->data_head = tail;
	if (data[0] & 0x80) {
		pc->data_size = dsize + 8;	/* not a power of two, or too big */
		errno = 0;
		FUZZ_CHECK(tally_mmap__new_mem(mem, len) == NULL && errno == EINVAL);
		goto out;
	}
	m = tally_mmap__new_mem(mem, len);
	FUZZ_CHECK(m != NULL);
	FUZZ_CHECK(tally_mmap__data_size(m) == dsize);
	FUZZ_CHECK(tally_mmap__page(m) == pc);
	FUZZ_CHECK(tally_mmap__fd(m) == -1);
	model.data = mem + off;
	model.mask = dsize - 1;

	head = tail;
	for (int r = 0; r < rounds; r++) {
		const struct perf_event_header *ev;
		uint32_t adv;
		uint8_t how;
		uint64_t pos, consumed;
		int ret, k = 0, stop;

		memcpy(&adv, ctl + r * 5, sizeof(adv));
		how = ctl[r * 5 + 4];
		stop = how >> 3;	/* 0: read the whole batch */
		head += adv;
		pc->data_head = head;
		tail = pc->data_tail;

		ret = tally_mmap__read_init(m);
		if (head == tail) {
			FUZZ_CHECK(ret == -EAGAIN);
			FUZZ_CHECK(tally_mmap__read_event(m) == NULL);
			continue;
		}
		if (head - tail > dsize || ((head | tail) & 7)) {
			FUZZ_CHECK(ret == -EBADMSG);
			FUZZ_CHECK(tally_mmap__read_event(m) == NULL);
			tally_mmap__read_done(m);
			FUZZ_CHECK(pc->data_tail == tail);	/* nothing given back */
			head = tail;	/* the "kernel" starts over */
			pc->data_head = head;
			continue;
		}
		FUZZ_CHECK(ret == 0);
		pos = consumed = tail;
		for (;;) {
			struct perf_event_header h;
			uint64_t avail = head - pos;
			bool bad = false;

			if (stop && k == stop)
				break;
			if (avail >= sizeof(h)) {
				ring_copy(&model, pos, &h, sizeof(h));
				bad = h.size < sizeof(h) || h.size > avail || (h.size & 7);
			} else {
				bad = avail != 0;
			}
			errno = -1;
			ev = tally_mmap__read_event(m);
			if (!avail) {
				FUZZ_CHECK(ev == NULL && errno == 0);
				break;
			}
			if (bad) {
				ring_records_bad++;
				FUZZ_CHECK(ev == NULL && errno == EBADMSG);
				pos = head;	/* the rest of the batch is skipped */
				FUZZ_CHECK(tally_mmap__read_event(m) == NULL && errno == 0);
				break;
			}
			FUZZ_CHECK(ev != NULL);
			FUZZ_CHECK(ev->size == h.size && ev->type == h.type);
			ring_copy(&model, pos, rec, h.size);
			FUZZ_CHECK(!memcmp(ev, rec, h.size));
			ring_records_seen++;
			if ((pos & model.mask) + h.size > dsize)
				ring_records_wrapped++;
			if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
				uint64_t l;

				memcpy(&l, rec + sizeof(h) + 8, sizeof(l));
				lost += l;
			}
			FUZZ_CHECK(tally_mmap__lost(m) == lost);
			pos += h.size;
			k++;
			if (how & 1) {
				tally_mmap__consume(m);
				consumed = pos;
				FUZZ_CHECK(pc->data_tail == consumed);
			}
		}
		if (how & 2) {
			tally_mmap__read_done(m);
			consumed = pos;
		}
		FUZZ_CHECK(pc->data_tail == consumed);
	}
	tally_mmap__free(m);
out:
	free(rec);
	free(mem);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_ring_one(data, size);
}
#endif
