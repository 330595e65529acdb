// SPDX-License-Identifier: MIT
/*
 * A sample decoded the short way: see record_fast.h. Checked as
 * record.c's parse_sample checks (each read within the record, RAW's
 * padding, nothing left over), without its cursor, its zeroing of the
 * whole record and the bits it tests that these layouts never have.
 */
#include <errno.h>
#include <string.h>
#include "record_fast.h"

/* a u64 field of the layout (st) at p, moved past */
#define U64(bit, dst)                   \
	if (st & (bit)) {               \
		memcpy((dst), p, 8);    \
		p += 8;                 \
	}

void tally__sample_fast_init(struct tally_sample_fast *f, const struct tally_record_layout *lay)
{
	memset(f, 0, sizeof(*f));
	f->st = lay->sample_type;
	/* every field before CALLCHAIN a u64, TID and CPU two u32s */
	f->fixed = 8u * (size_t)__builtin_popcountll(f->st & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
									   PERF_SAMPLE_RAW |
									   TALLY_SAMPLE_FAST_MORE));
	f->tail = 8u * (size_t)__builtin_popcountll(f->st & TALLY_SAMPLE_FAST_MORE &
						    ~(uint64_t)PERF_SAMPLE_BRANCH_STACK);
	f->hw_idx = (f->st & PERF_SAMPLE_BRANCH_STACK) &&
		    (lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX);
	/* a layout's, whether or not a record comes: as the parser sets it */
	f->s.branch_stack.has_hw_idx = f->hw_idx;
}

int tally__sample_fast(struct tally_sample_fast *f, const struct perf_event_header *h)
{
	const unsigned char *p = (const unsigned char *)(h + 1);
	struct tally_sample *s = &f->s;
	uint64_t st = f->st;
	size_t left;
	uint32_t res;

	if (h->size < sizeof(*h) || (h->size & 7))
		return -EBADMSG;
	left = h->size - sizeof(*h);
	if (left < f->fixed)
		return -EBADMSG;
	U64(PERF_SAMPLE_IDENTIFIER, &s->identifier);
	U64(PERF_SAMPLE_IP, &s->ip);
	if (st & PERF_SAMPLE_TID) {
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	U64(PERF_SAMPLE_TIME, &s->time);
	U64(PERF_SAMPLE_ADDR, &s->addr);
	U64(PERF_SAMPLE_ID, &s->id);
	U64(PERF_SAMPLE_STREAM_ID, &s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&s->cpu, p, 4);
		memcpy(&res, p + 4, 4);
		p += 8;
	}
	U64(PERF_SAMPLE_PERIOD, &s->period);
	left = (size_t)((const unsigned char *)h + h->size - p);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (left < 8)
			return -EBADMSG;
		memcpy(&s->callchain.nr, p, 8);
		p += 8;
		left -= 8;
		if (s->callchain.nr > left / 8)
			return -EBADMSG;
		s->callchain.ips = (const uint64_t *)(const void *)p;
		p += s->callchain.nr * 8;
		left -= s->callchain.nr * 8;
	}
	if (st & PERF_SAMPLE_RAW) {
		if (left < 4)
			return -EBADMSG;
		memcpy(&s->raw.size, p, 4);
		p += 4;
		left -= 4;
		if (s->raw.size > left)
			return -EBADMSG;
		s->raw.data = p;
		left -= s->raw.size;
		/* the kernel pads u32 size + data to 8 bytes, size included */
		if ((s->raw.size + 4) & 7)
			return -EBADMSG;
		p += s->raw.size;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t nr;

		if (left < 8u + (f->hw_idx ? 8u : 0u))
			return -EBADMSG;
		memcpy(&nr, p, 8);
		p += 8;
		left -= 8;
		if (f->hw_idx) {
			memcpy(&s->branch_stack.hw_idx, p, 8);
			p += 8;
			left -= 8;
		}
		if (nr > left / sizeof(struct perf_branch_entry))
			return -EBADMSG;
		s->branch_stack.nr = nr;
		s->branch_stack.entries = (const struct perf_branch_entry *)(const void *)p;
		p += nr * sizeof(struct perf_branch_entry);
		left -= nr * sizeof(struct perf_branch_entry);
	}
	if (left != f->tail)
		return -EBADMSG;
	if (!f->tail)
		return 0;
	U64(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, &s->weight);
	U64(PERF_SAMPLE_DATA_SRC, &s->data_src);
	U64(PERF_SAMPLE_TRANSACTION, &s->transaction);
	U64(PERF_SAMPLE_PHYS_ADDR, &s->phys_addr);
	U64(PERF_SAMPLE_CGROUP, &s->cgroup);
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size);
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size);
	return 0;
}

