// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the record decoder (lib/record.c,
 * tally_record__parse / __id / tally_read_values__entry). The input:
 *
 *   bytes 0-7   sample_type (u64, little-endian; any bits: unknown ones
 *               and WEIGHT|WEIGHT_STRUCT must give -EINVAL)
 *   byte 8      bits 0-4: read_format; bit 5: sample_id_all;
 *               bit 6: PERF_SAMPLE_BRANCH_HW_INDEX in branch_sample_type;
 *               bit 7: decode from an odd address (buf need not be aligned)
 *   byte 9      sample_regs_user (a mask of up to 8 registers)
 *   byte 10     sample_regs_intr
 *   byte 11     unused
 *   the rest    the record (header + body), len = all of it
 *
 * The record sits at the very end of its own heap block, so ASan flags
 * any read past len. Checks: the result is 0, -EBADMSG or -EINVAL (that
 * one exactly when the layout is impossible); a failure leaves only the
 * header; on success every pointer and length lies inside the record's
 * header.size bytes, strings end there, read entries are readable, a
 * sample and any sample_id_all trailer re-serialise to the very bytes
 * they came from, and tally_record__id agrees with the decoded id.
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_record fuzz/corpus/record
 * Every file of fuzz/corpus/record is replayed by `make test`
 * (tests/unit/test_fuzz_replay_engine.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/record.h>

#include "fuzz_check.h"

#define REC_HDR_BYTES	12

/* What the inputs so far exercised (the replay checks the corpus does). */
static unsigned long rec_ok, rec_bad, rec_inval, rec_samples, rec_sids;
static unsigned long rec_types_seen;	/* bit t: kernel type t decoded */

struct span {
	const unsigned char *lo, *hi;	/* the record: [lo, hi) */
};

/* [p, p + n) inside the record; n counted in u64 to avoid overflow. */
static int in_span(const struct span *s, const void *p, uint64_t n)
{
	const unsigned char *c = p;

	if (!p)
		return n == 0;
	return c >= s->lo && c <= s->hi && n <= (uint64_t)(s->hi - c);
}

static int str_in_span(const struct span *s, const char *p)
{
	return p && in_span(s, p, 1) && memchr(p, '\0', (size_t)(s->hi - (const unsigned char *)p));
}

/* A writer that mirrors the man page's layout, to compare with the input. */
struct out {
	unsigned char *b;
	size_t n, cap;
};

static void w(struct out *o, const void *p, size_t n)
{
	FUZZ_CHECK(o->n + n <= o->cap);
	if (n)
		memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void w64(struct out *o, uint64_t v) { w(o, &v, 8); }
static void w32(struct out *o, uint32_t v) { w(o, &v, 4); }

static void w_read(struct out *o, const struct tally_read_values *rv)
{
	uint64_t rf = rv->read_format;
	struct tally_read_entry e;

	if (rf & PERF_FORMAT_GROUP)
		w64(o, rv->nr);
	else
		FUZZ_CHECK(rv->nr == 1);
	for (uint64_t i = 0; i < rv->nr; i++) {
		FUZZ_CHECK(tally_read_values__entry(rv, i, &e) == 0);
		if (i == 0 && !(rf & PERF_FORMAT_GROUP))
			w64(o, e.value);
		if (i == 0) {
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				w64(o, rv->time_enabled);
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				w64(o, rv->time_running);
		}
		if (rf & PERF_FORMAT_GROUP)
			w64(o, e.value);
		if (rf & PERF_FORMAT_ID)
			w64(o, e.id);
		if (rf & PERF_FORMAT_LOST)
			w64(o, e.lost);
	}
	if ((rf & PERF_FORMAT_GROUP) && rv->nr == 0) {
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			w64(o, rv->time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			w64(o, rv->time_running);
	}
	FUZZ_CHECK(tally_read_values__entry(rv, rv->nr, &e) == -ERANGE);
}

static void check_read(const struct span *s, const struct tally_read_values *rv)
{
	uint64_t rf = rv->read_format;
	uint64_t stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP)
		FUZZ_CHECK(rv->nr <= (uint64_t)(s->hi - s->lo) / 8 &&
			   in_span(s, rv->raw, rv->nr * stride * 8));
	else
		FUZZ_CHECK(rv->nr == 1 && in_span(s, rv->raw, 8));
}

static void w_regs(struct out *o, const struct tally_sample_regs *r, uint64_t mask)
{
	FUZZ_CHECK(r->mask == mask);
	w64(o, r->abi);
	FUZZ_CHECK(r->nr == (r->abi ? (uint32_t)__builtin_popcountll(mask) : 0));
	w(o, r->regs, (size_t)r->nr * 8);
}

/* Bounds of every pointer in a sample, then its bytes rebuilt from the struct. */
static void check_sample(const struct span *sp, const struct tally_record_layout *lay,
			 const struct tally_record *rec)
{
	const struct tally_sample *s = &rec->u.sample;
	uint64_t st = lay->sample_type;
	size_t size = (size_t)(sp->hi - sp->lo);
	struct out o = { .b = malloc(size), .cap = size };

	FUZZ_CHECK(o.b != NULL);
	if (st & PERF_SAMPLE_READ)
		check_read(sp, &s->read);
	if (st & PERF_SAMPLE_CALLCHAIN)
		FUZZ_CHECK(s->callchain.nr <= size / 8 &&
			   in_span(sp, s->callchain.ips, s->callchain.nr * 8));
	FUZZ_CHECK(in_span(sp, s->raw.data, s->raw.size));
	if (st & PERF_SAMPLE_BRANCH_STACK)
		FUZZ_CHECK(s->branch_stack.nr <= size / 24 &&
			   in_span(sp, s->branch_stack.entries, s->branch_stack.nr * 24));
	FUZZ_CHECK(in_span(sp, s->regs_user.regs, (uint64_t)s->regs_user.nr * 8));
	FUZZ_CHECK(in_span(sp, s->regs_intr.regs, (uint64_t)s->regs_intr.nr * 8));
	FUZZ_CHECK(in_span(sp, s->stack_user.data, s->stack_user.size));
	FUZZ_CHECK(s->stack_user.dyn_size <= s->stack_user.size);
	FUZZ_CHECK(in_span(sp, s->aux.data, s->aux.size));

	w(&o, sp->lo, sizeof(struct perf_event_header));
	if (st & PERF_SAMPLE_IDENTIFIER)
		w64(&o, s->identifier);
	if (st & PERF_SAMPLE_IP)
		w64(&o, s->ip);
	if (st & PERF_SAMPLE_TID) {
		w32(&o, s->pid);
		w32(&o, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		w64(&o, s->time);
	if (st & PERF_SAMPLE_ADDR)
		w64(&o, s->addr);
	if (st & PERF_SAMPLE_ID)
		w64(&o, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		w64(&o, s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		w32(&o, s->cpu);
		w(&o, sp->lo + o.n, 4);	/* res: not decoded, copied */
	}
	if (st & PERF_SAMPLE_PERIOD)
		w64(&o, s->period);
	if (st & PERF_SAMPLE_READ)
		w_read(&o, &s->read);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		w64(&o, s->callchain.nr);
		w(&o, s->callchain.ips, (size_t)s->callchain.nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		w32(&o, s->raw.size);
		w(&o, s->raw.data, s->raw.size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		w64(&o, s->branch_stack.nr);
		FUZZ_CHECK(s->branch_stack.has_hw_idx ==
			   !!(lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX));
		if (s->branch_stack.has_hw_idx)
			w64(&o, s->branch_stack.hw_idx);
		w(&o, s->branch_stack.entries, (size_t)s->branch_stack.nr * 24);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		w_regs(&o, &s->regs_user, lay->sample_regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		w64(&o, s->stack_user.size);
		if (s->stack_user.size) {
			w(&o, s->stack_user.data, (size_t)s->stack_user.size);
			w64(&o, s->stack_user.dyn_size);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		w64(&o, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		w64(&o, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		w64(&o, s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		w_regs(&o, &s->regs_intr, lay->sample_regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		w64(&o, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		w64(&o, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		w64(&o, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		w64(&o, s->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		w64(&o, s->aux.size);
		w(&o, s->aux.data, (size_t)s->aux.size);
	}
	/* the whole record, no byte more or less */
	FUZZ_CHECK(o.n == size);
	FUZZ_CHECK(!memcmp(o.b, sp->lo, size));
	free(o.b);
}

/* The trailer re-serialised must be the record's last bytes. */
static void check_sid(const struct span *sp, const struct tally_record_layout *lay,
		      const struct tally_record *rec)
{
	uint64_t st = lay->sample_type;
	unsigned char b[64];
	struct out o = { .b = b, .cap = sizeof(b) };
	const struct tally_sample_id *sid = &rec->sid;

	if (st & PERF_SAMPLE_TID) {
		w32(&o, sid->pid);
		w32(&o, sid->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		w64(&o, sid->time);
	if (st & PERF_SAMPLE_ID) {
		/* IDENTIFIER wins in sid.id; the ID slot is checked by position */
		if (st & PERF_SAMPLE_IDENTIFIER)
			w(&o, sp->hi - 8 * (size_t)__builtin_popcountll(st &
				(PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				 PERF_SAMPLE_IDENTIFIER)), 8);
		else
			w64(&o, sid->id);
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		w64(&o, sid->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		w32(&o, sid->cpu);
		w(&o, sp->hi - (st & PERF_SAMPLE_IDENTIFIER ? 12 : 4), 4);	/* res */
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		w64(&o, sid->id);
	FUZZ_CHECK(o.n <= (size_t)(sp->hi - sp->lo) - 8);
	FUZZ_CHECK(!memcmp(o.b, sp->hi - o.n, o.n));
	rec_sids++;
}

static void check_body(const struct span *sp, const struct tally_record *rec)
{
	switch (rec->type) {
	case PERF_RECORD_MMAP:
		FUZZ_CHECK(str_in_span(sp, rec->u.mmap.filename));
		break;
	case PERF_RECORD_COMM:
		FUZZ_CHECK(str_in_span(sp, rec->u.comm.comm));
		break;
	case PERF_RECORD_READ:
		check_read(sp, &rec->u.read.values);
		break;
	case PERF_RECORD_MMAP2:
		FUZZ_CHECK(str_in_span(sp, rec->u.mmap2.filename));
		if (rec->u.mmap2.has_build_id)
			FUZZ_CHECK(rec->u.mmap2.build_id_size <= 20 &&
				   in_span(sp, rec->u.mmap2.build_id, 20));
		else
			FUZZ_CHECK(!rec->u.mmap2.build_id);
		FUZZ_CHECK(rec->u.mmap2.has_build_id ==
			   !!(rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID));
		break;
	case PERF_RECORD_NAMESPACES:
		FUZZ_CHECK(rec->u.namespaces.nr <= (uint64_t)(sp->hi - sp->lo) / 16);
		FUZZ_CHECK(in_span(sp, rec->u.namespaces.link_info, rec->u.namespaces.nr * 16));
		break;
	case PERF_RECORD_KSYMBOL:
		FUZZ_CHECK(str_in_span(sp, rec->u.ksymbol.name));
		break;
	case PERF_RECORD_BPF_EVENT:
		FUZZ_CHECK(in_span(sp, rec->u.bpf_event.tag, 8));
		break;
	case PERF_RECORD_CGROUP:
		FUZZ_CHECK(str_in_span(sp, rec->u.cgroup.path));
		break;
	case PERF_RECORD_TEXT_POKE:
		FUZZ_CHECK(in_span(sp, rec->u.text_poke.bytes,
				   (uint64_t)rec->u.text_poke.old_len + rec->u.text_poke.new_len));
		break;
	}
}

static int fuzz_record_one(const uint8_t *data, size_t size)
{
	struct tally_record_layout lay = { 0 };
	struct perf_event_header h;
	struct tally_record rec;
	unsigned char *blk;
	const unsigned char *buf;
	size_t len, off;
	uint64_t id, st;
	bool impossible;
	int ret, idret;

	if (size < REC_HDR_BYTES)
		return 0;
	memcpy(&lay.sample_type, data, 8);
	lay.read_format = data[8] & 0x1f;
	lay.sample_id_all = data[8] & 0x20;
	lay.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				 (data[8] & 0x40 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
	lay.sample_regs_user = data[9];
	lay.sample_regs_intr = data[10];
	st = lay.sample_type;
	len = size - REC_HDR_BYTES;
	/* the record ends where its heap block does; bit 7: at an odd address */
	off = data[8] & 0x80 ? 1 : 0;
	blk = malloc(len + off ? len + off : 1);
	FUZZ_CHECK(blk != NULL);
	if (len)
		memcpy(blk + off, data + REC_HDR_BYTES, len);
	buf = blk + off;

	impossible = (st & ~(((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT << 1) - 1)) ||
		     ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT));
	memset(&rec, 0x5a, sizeof(rec));
	ret = tally_record__parse(buf, len, &lay, &rec);
	FUZZ_CHECK(ret == 0 || ret == -EBADMSG || ret == -EINVAL);
	if (len >= sizeof(h)) {
		memcpy(&h, buf, sizeof(h));
	} else {
		memset(&h, 0, sizeof(h));
		FUZZ_CHECK(ret == -EBADMSG);
	}
	/* the header is checked first, then the layout, whatever the type */
	if (len >= sizeof(h) && h.size >= sizeof(h) && h.size <= len)
		FUZZ_CHECK((ret == -EINVAL) == impossible);
	else
		FUZZ_CHECK(ret == -EBADMSG);
	if (ret == -EINVAL)
		rec_inval++;
	if (ret) {
		if (ret == -EBADMSG)
			rec_bad++;
		/* nothing but the header (and not even that when it was short) */
		FUZZ_CHECK(!rec.has_sid && rec.sid.pid == 0 && rec.sid.id == 0);
		FUZZ_CHECK(rec.u.sample.ip == 0 && rec.u.mmap.filename == NULL);
		goto out;
	}
	rec_ok++;
	FUZZ_CHECK(rec.type == h.type && rec.misc == h.misc && rec.size == h.size);
	FUZZ_CHECK(h.size >= sizeof(h) && h.size <= len);
	{
		struct span sp = { buf, buf + h.size };
		bool kernel = h.type >= 1 && h.type <= PERF_RECORD_AUX_OUTPUT_HW_ID;

		if (h.type == PERF_RECORD_SAMPLE) {
			rec_samples++;
			FUZZ_CHECK(rec.has_sid);
			check_sample(&sp, &lay, &rec);
		} else if (kernel) {
			FUZZ_CHECK(rec.has_sid == lay.sample_id_all);
			FUZZ_CHECK(h.size % 8 == 0);
			if (rec.has_sid)
				check_sid(&sp, &lay, &rec);
			check_body(&sp, &rec);
		} else {
			FUZZ_CHECK(!rec.has_sid);
		}
		if (kernel)
			rec_types_seen |= 1ul << h.type;
		FUZZ_CHECK(tally_record__type_name(h.type) != NULL ||
			   !kernel);
		/* the fast id lookup agrees with the full decode */
		idret = tally_record__id(buf, len, &lay, &id);
		if ((st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) &&
		    (h.type == PERF_RECORD_SAMPLE || (kernel && lay.sample_id_all))) {
			FUZZ_CHECK(idret == 0);
			FUZZ_CHECK(id == rec.sid.id);
		} else {
			FUZZ_CHECK(idret == -ENOENT);
		}
	}
out:
	free(blk);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_record_one(data, size);
}
#endif
