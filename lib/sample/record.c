// SPDX-License-Identifier: MIT
/*
 * The record decoder (include/tally/record.h). Written from
 * perf_event_open(2) and include/uapi/linux/perf_event.h: a cursor walks
 * [start, end) of one record and every read checks the bytes left first,
 * so a bad size or count ends in -EBADMSG, never in a read past the end.
 */
#include <tally/data_format.h>
#include <tally/record.h>
#include "internal.h"

/* sample_type bits this decoder knows: everything up to 6.1's WEIGHT_STRUCT. */
#define SAMPLE_KNOWN	((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1)
#define FORMAT_KNOWN	((uint64_t)PERF_FORMAT_LOST * 2 - 1)
#define BUILD_ID_MAX	20
/* The last kernel type this decoder knows; later ones are skipped by size. */
#define LAST_KERNEL_TYPE	PERF_RECORD_AUX_OUTPUT_HW_ID

/* Bits of the sample_id_all trailer, in trailer order. */
#define SID_BITS	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

struct cur {
	const unsigned char *p, *end;
};

static size_t cur_left(const struct cur *c)
{
	return (size_t)(c->end - c->p);
}

static int cur_skip(struct cur *c, size_t n, const void **at)
{
	if (n > cur_left(c))
		return -EBADMSG;
	if (at)
		*at = c->p;
	c->p += n;
	return 0;
}

static int cur_u64(struct cur *c, uint64_t *v)
{
	if (cur_left(c) < 8)
		return -EBADMSG;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static int cur_u32(struct cur *c, uint32_t *v)
{
	if (cur_left(c) < 4)
		return -EBADMSG;
	memcpy(v, c->p, 4);
	c->p += 4;
	return 0;
}

static int cur_u16(struct cur *c, uint16_t *v)
{
	if (cur_left(c) < 2)
		return -EBADMSG;
	memcpy(v, c->p, 2);
	c->p += 2;
	return 0;
}

/* The u32 pair TID and CPU use: {pid, tid} or {cpu, res}. */
static int cur_u32x2(struct cur *c, uint32_t *a, uint32_t *b)
{
	if (cur_left(c) < 8)
		return -EBADMSG;
	memcpy(a, c->p, 4);
	memcpy(b, c->p + 4, 4);
	c->p += 8;
	return 0;
}

/* n u64s; n comes from the record, so compare by division (no overflow). */
static int cur_u64s(struct cur *c, uint64_t n, const void **at)
{
	if (n > cur_left(c) / 8)
		return -EBADMSG;
	return cur_skip(c, (size_t)n * 8, at);
}

/* A NUL-terminated string that must end inside [p, end); the cursor moves
 * to the end (the zero padding belongs to the string). */
static int cur_str_rest(struct cur *c, const char **s)
{
	if (!memchr(c->p, '\0', cur_left(c)))
		return -EBADMSG;
	*s = (const char *)c->p;
	c->p = c->end;
	return 0;
}

static int cur_done(const struct cur *c)
{
	return c->p == c->end ? 0 : -EBADMSG;
}

static int layout_valid(const struct tally_record_layout *lay)
{
	if (lay->sample_type & ~SAMPLE_KNOWN || lay->read_format & ~FORMAT_KNOWN)
		return -EINVAL;
	/* perf_event_open() refuses both: there is one weight slot. */
	if ((lay->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (lay->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;
	return 0;
}

void tally_record_layout__from_attr(struct tally_record_layout *lay,
				    const struct perf_event_attr *attr)
{
	lay->sample_type = attr->sample_type;
	lay->read_format = attr->read_format;
	lay->branch_sample_type = attr->branch_sample_type;
	lay->sample_regs_user = attr->sample_regs_user;
	lay->sample_regs_intr = attr->sample_regs_intr;
	lay->sample_id_all = attr->sample_id_all;
}

/* u64s per group entry: value, [id], [lost]. */
static uint64_t read_stride(uint64_t rf)
{
	return 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
}

/*
 * read_format values (perf_event_open(2), "Reading results"):
 *   GROUP:  nr, [enabled], [running], {value, [id], [lost]}[nr]
 *   else:   value, [enabled], [running], [id], [lost]
 */
static int parse_read_values(struct cur *c, uint64_t rf, struct tally_read_values *rv)
{
	uint64_t v;
	int err;

	rv->read_format = rf;
	if (rf & PERF_FORMAT_GROUP) {
		if ((err = cur_u64(c, &rv->nr)))
			return err;
	} else {
		rv->nr = 1;
		rv->raw = c->p;
		if ((err = cur_u64(c, &v)))
			return err;
	}
	if ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) && (err = cur_u64(c, &rv->time_enabled)))
		return err;
	if ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) && (err = cur_u64(c, &rv->time_running)))
		return err;
	if (rf & PERF_FORMAT_GROUP) {
		/* nr <= left / 8 / stride keeps nr * stride from overflowing */
		if (rv->nr > cur_left(c) / 8 / read_stride(rf))
			return -EBADMSG;
		return cur_u64s(c, rv->nr * read_stride(rf), &rv->raw);
	}
	return cur_u64s(c, read_stride(rf) - 1, NULL);
}

int tally_read_values__entry(const struct tally_read_values *rv, uint64_t i,
			     struct tally_read_entry *e)
{
	const unsigned char *p;
	uint64_t rf;

	if (!rv || !e || !rv->raw)
		return tally__err(EINVAL);
	if (i >= rv->nr)
		return tally__err(ERANGE);
	rf = rv->read_format;
	memset(e, 0, sizeof(*e));
	p = rv->raw;
	if (rf & PERF_FORMAT_GROUP) {
		p += i * read_stride(rf) * 8;
		memcpy(&e->value, p, 8);
		p += 8;
	} else {
		memcpy(&e->value, p, 8);
		/* id and lost follow the times in the single-event layout */
		p += 8 * (1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));
	}
	if (rf & PERF_FORMAT_ID) {
		memcpy(&e->id, p, 8);
		p += 8;
	}
	if (rf & PERF_FORMAT_LOST)
		memcpy(&e->lost, p, 8);
	return 0;
}

/* abi, then popcount(mask) regs unless abi is PERF_SAMPLE_REGS_ABI_NONE. */
static int parse_regs(struct cur *c, uint64_t mask, struct tally_sample_regs *r)
{
	const void *at;
	int err;

	r->mask = mask;
	if ((err = cur_u64(c, &r->abi)))
		return err;
	if (!r->abi)
		return 0;
	r->nr = (uint32_t)__builtin_popcountll(mask);
	if ((err = cur_u64s(c, r->nr, &at)))
		return err;
	r->regs = at;
	return 0;
}

static int parse_sample(struct cur *c, const struct tally_record_layout *lay,
			struct tally_sample *s)
{
	uint64_t st = lay->sample_type;
	uint32_t res;
	const void *at;
	int err = 0;

#define U64(bit, dst) \
	if ((st & (bit)) && (err = cur_u64(c, (dst)))) return err
	U64(PERF_SAMPLE_IDENTIFIER, &s->identifier);
	U64(PERF_SAMPLE_IP, &s->ip);
	if ((st & PERF_SAMPLE_TID) && (err = cur_u32x2(c, &s->pid, &s->tid)))
		return err;
	U64(PERF_SAMPLE_TIME, &s->time);
	U64(PERF_SAMPLE_ADDR, &s->addr);
	U64(PERF_SAMPLE_ID, &s->id);
	U64(PERF_SAMPLE_STREAM_ID, &s->stream_id);
	if ((st & PERF_SAMPLE_CPU) && (err = cur_u32x2(c, &s->cpu, &res)))
		return err;
	U64(PERF_SAMPLE_PERIOD, &s->period);
	if ((st & PERF_SAMPLE_READ) && (err = parse_read_values(c, lay->read_format, &s->read)))
		return err;
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if ((err = cur_u64(c, &s->callchain.nr)) ||
		    (err = cur_u64s(c, s->callchain.nr, &at)))
			return err;
		s->callchain.ips = at;
	}
	if (st & PERF_SAMPLE_RAW) {
		if ((err = cur_u32(c, &s->raw.size)) ||
		    (err = cur_skip(c, s->raw.size, &s->raw.data)))
			return err;
		/* the kernel pads u32 size + data to 8 bytes, size included */
		if ((s->raw.size + 4) & 7)
			return -EBADMSG;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if ((err = cur_u64(c, &s->branch_stack.nr)))
			return err;
		if (lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			s->branch_stack.has_hw_idx = true;
			if ((err = cur_u64(c, &s->branch_stack.hw_idx)))
				return err;
		}
		if (s->branch_stack.nr > cur_left(c) / sizeof(struct perf_branch_entry))
			return -EBADMSG;
		if ((err = cur_skip(c, s->branch_stack.nr * sizeof(struct perf_branch_entry), &at)))
			return err;
		s->branch_stack.entries = at;
	}
	if ((st & PERF_SAMPLE_REGS_USER) &&
	    (err = parse_regs(c, lay->sample_regs_user, &s->regs_user)))
		return err;
	if (st & PERF_SAMPLE_STACK_USER) {
		if ((err = cur_u64(c, &s->stack_user.size)))
			return err;
		if (s->stack_user.size) {
			/* the kernel rounds the dump up to u64s */
			if (s->stack_user.size & 7)
				return -EBADMSG;
			if ((err = cur_u64s(c, s->stack_user.size / 8, &s->stack_user.data)) ||
			    (err = cur_u64(c, &s->stack_user.dyn_size)))
				return err;
			if (s->stack_user.dyn_size > s->stack_user.size)
				return -EBADMSG;
		}
	}
	U64(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, &s->weight);
	U64(PERF_SAMPLE_DATA_SRC, &s->data_src);
	U64(PERF_SAMPLE_TRANSACTION, &s->transaction);
	if ((st & PERF_SAMPLE_REGS_INTR) &&
	    (err = parse_regs(c, lay->sample_regs_intr, &s->regs_intr)))
		return err;
	U64(PERF_SAMPLE_PHYS_ADDR, &s->phys_addr);
	U64(PERF_SAMPLE_CGROUP, &s->cgroup);
	U64(PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size);
	U64(PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size);
#undef U64
	if (st & PERF_SAMPLE_AUX) {
		if ((err = cur_u64(c, &s->aux.size)))
			return err;
		if (s->aux.size > cur_left(c))	/* before the cast to size_t */
			return -EBADMSG;
		if ((err = cur_skip(c, (size_t)s->aux.size, &s->aux.data)))
			return err;
	}
	/* anything left means the layout is not the one the record was written with */
	return cur_done(c);
}

/* the fields a sample may hold whose size is not one u64 (or two u32s) besides the two arrays */
#define SAMPLE_SLOW	(PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER | \
			 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX)
/* the u64 slots before the call chain, and after the branch stack */
#define SAMPLE_HEAD	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define SAMPLE_TAIL	(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | \
			 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
			 PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

/*
 * The bits set in sample_type's low 32 bits (all of those above): the
 * builtin is a libgcc call a sample without -mpopcnt.
 */
_Static_assert(((uint64_t)(SAMPLE_HEAD | SAMPLE_TAIL) >> 32) == 0, "bits32 counts the low 32 bits");

static unsigned bits32(uint64_t v)
{
	uint32_t x = (uint32_t)v;

	x -= (x >> 1) & 0x55555555u;
	x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
	x = (x + (x >> 4)) & 0x0f0f0f0fu;
	return (x * 0x01010101u) >> 24;
}

/*
 * parse_sample for a layout of u64 slots around a call chain and a
 * branch stack (no SAMPLE_SLOW field): the slots' bytes checked once
 * for each run of them, not a field at a time (the cursor's checks
 * were half of a memory sample's decoding). Same result, same -EBADMSG.
 */
static int parse_sample_slots(const unsigned char *p, const unsigned char *end,
			      const struct tally_record_layout *lay, struct tally_sample *s)
{
	uint64_t st = lay->sample_type, n;

	if ((size_t)(end - p) < 8 * (size_t)bits32(st & SAMPLE_HEAD))
		return -EBADMSG;
#define SLOT(bit, dst) \
	if (st & (bit)) { memcpy((dst), p, 8); p += 8; }
	SLOT(PERF_SAMPLE_IDENTIFIER, &s->identifier);
	SLOT(PERF_SAMPLE_IP, &s->ip);
	if (st & PERF_SAMPLE_TID) {
		memcpy(&s->pid, p, 4);
		memcpy(&s->tid, p + 4, 4);
		p += 8;
	}
	SLOT(PERF_SAMPLE_TIME, &s->time);
	SLOT(PERF_SAMPLE_ADDR, &s->addr);
	SLOT(PERF_SAMPLE_ID, &s->id);
	SLOT(PERF_SAMPLE_STREAM_ID, &s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		memcpy(&s->cpu, p, 4);	/* the u32 after it is reserved */
		p += 8;
	}
	SLOT(PERF_SAMPLE_PERIOD, &s->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8)
			return -EBADMSG;
		memcpy(&n, p, 8);
		p += 8;
		if (n > (size_t)(end - p) / 8)
			return -EBADMSG;
		s->callchain.nr = n;
		s->callchain.ips = (const uint64_t *)(const void *)p;
		p += n * 8;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (end - p < 8)
			return -EBADMSG;
		memcpy(&n, p, 8);
		p += 8;
		if (lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			s->branch_stack.has_hw_idx = true;
			if (end - p < 8)
				return -EBADMSG;
			memcpy(&s->branch_stack.hw_idx, p, 8);
			p += 8;
		}
		if (n > (size_t)(end - p) / sizeof(struct perf_branch_entry))
			return -EBADMSG;
		s->branch_stack.nr = n;
		s->branch_stack.entries = (const struct perf_branch_entry *)(const void *)p;
		p += n * sizeof(struct perf_branch_entry);
	}
	/* what is left is the tail's slots, exactly */
	if ((size_t)(end - p) != 8 * (size_t)bits32(st & SAMPLE_TAIL))
		return -EBADMSG;
	SLOT(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, &s->weight);
	SLOT(PERF_SAMPLE_DATA_SRC, &s->data_src);
	SLOT(PERF_SAMPLE_TRANSACTION, &s->transaction);
	SLOT(PERF_SAMPLE_PHYS_ADDR, &s->phys_addr);
	SLOT(PERF_SAMPLE_CGROUP, &s->cgroup);
	SLOT(PERF_SAMPLE_DATA_PAGE_SIZE, &s->data_page_size);
	SLOT(PERF_SAMPLE_CODE_PAGE_SIZE, &s->code_page_size);
#undef SLOT
	return 0;
}

static size_t sid_size(uint64_t st)
{
	return 8 * (size_t)__builtin_popcountll(st & SID_BITS);
}

/* The trailer sits at [end - sid_size, end); c covers exactly that. */
static void parse_sid(struct cur *c, uint64_t st, struct tally_sample_id *sid)
{
	uint32_t res;

	/* the caller sized the cursor from st: these cannot fail */
	if (st & PERF_SAMPLE_TID)
		cur_u32x2(c, &sid->pid, &sid->tid);
	if (st & PERF_SAMPLE_TIME)
		cur_u64(c, &sid->time);
	if (st & PERF_SAMPLE_ID)
		cur_u64(c, &sid->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		cur_u64(c, &sid->stream_id);
	if (st & PERF_SAMPLE_CPU)
		cur_u32x2(c, &sid->cpu, &res);
	if (st & PERF_SAMPLE_IDENTIFIER)
		cur_u64(c, &sid->id);
}

static int parse_mmap2(struct cur *c, uint16_t misc, struct tally_record_mmap2 *m)
{
	const void *at;
	uint8_t bsz;
	int err;

	if ((err = cur_u32x2(c, &m->pid, &m->tid)) || (err = cur_u64(c, &m->start)) ||
	    (err = cur_u64(c, &m->len)) || (err = cur_u64(c, &m->pgoff)))
		return err;
	if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		/* u8 size, u8 + u16 reserved, u8 build_id[20]: the 24 bytes of maj..ino_generation */
		if ((err = cur_skip(c, 24, &at)))
			return err;
		bsz = *(const uint8_t *)at;
		if (bsz > BUILD_ID_MAX)
			return -EBADMSG;
		m->has_build_id = true;
		m->build_id_size = bsz;
		m->build_id = (const uint8_t *)at + 4;
	} else if ((err = cur_u32x2(c, &m->maj, &m->min)) || (err = cur_u64(c, &m->ino)) ||
		   (err = cur_u64(c, &m->ino_generation))) {
		return err;
	}
	if ((err = cur_u32x2(c, &m->prot, &m->flags)))
		return err;
	return cur_str_rest(c, &m->filename);
}

/* The body of a non-sample kernel record, c covering it without the trailer. */
static int parse_body(struct cur *c, const struct tally_record_layout *lay, uint32_t type,
		      uint16_t misc, struct tally_record *out)
{
	const void *at;
	int err = 0;

	switch (type) {
	case PERF_RECORD_MMAP: {
		struct tally_record_mmap *m = &out->u.mmap;

		if ((err = cur_u32x2(c, &m->pid, &m->tid)) || (err = cur_u64(c, &m->start)) ||
		    (err = cur_u64(c, &m->len)) || (err = cur_u64(c, &m->pgoff)))
			return err;
		return cur_str_rest(c, &m->filename);
	}
	case PERF_RECORD_LOST:
		err = cur_u64(c, &out->u.lost.id) ?: cur_u64(c, &out->u.lost.lost);
		break;
	case PERF_RECORD_COMM:
		if ((err = cur_u32x2(c, &out->u.comm.pid, &out->u.comm.tid)))
			return err;
		return cur_str_rest(c, &out->u.comm.comm);
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK: {
		struct tally_record_task *t = &out->u.task;

		err = cur_u32x2(c, &t->pid, &t->ppid) ?: cur_u32x2(c, &t->tid, &t->ptid) ?:
		      cur_u64(c, &t->time);
		break;
	}
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: {
		struct tally_record_throttle *t = &out->u.throttle;

		err = cur_u64(c, &t->time) ?: cur_u64(c, &t->id) ?: cur_u64(c, &t->stream_id);
		break;
	}
	case PERF_RECORD_READ:
		err = cur_u32x2(c, &out->u.read.pid, &out->u.read.tid) ?:
		      parse_read_values(c, lay->read_format, &out->u.read.values);
		break;
	case PERF_RECORD_MMAP2:
		return parse_mmap2(c, misc, &out->u.mmap2);
	case PERF_RECORD_AUX: {
		struct tally_record_aux *a = &out->u.aux;

		err = cur_u64(c, &a->aux_offset) ?: cur_u64(c, &a->aux_size) ?:
		      cur_u64(c, &a->flags);
		break;
	}
	case PERF_RECORD_ITRACE_START:
		err = cur_u32x2(c, &out->u.itrace_start.pid, &out->u.itrace_start.tid);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		err = cur_u64(c, &out->u.lost_samples.lost);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		err = cur_u32x2(c, &out->u.switch_cpu_wide.next_prev_pid,
				&out->u.switch_cpu_wide.next_prev_tid);
		break;
	case PERF_RECORD_NAMESPACES: {
		struct tally_record_namespaces *n = &out->u.namespaces;

		if ((err = cur_u32x2(c, &n->pid, &n->tid)) || (err = cur_u64(c, &n->nr)))
			return err;
		/* {dev, ino} pairs: 2 u64s each */
		if (n->nr > cur_left(c) / sizeof(struct perf_ns_link_info))
			return -EBADMSG;
		err = cur_skip(c, n->nr * sizeof(struct perf_ns_link_info), &at);
		n->link_info = at;
		break;
	}
	case PERF_RECORD_KSYMBOL: {
		struct tally_record_ksymbol *k = &out->u.ksymbol;

		if ((err = cur_u64(c, &k->addr)) || (err = cur_u32(c, &k->len)) ||
		    (err = cur_u16(c, &k->ksym_type)) || (err = cur_u16(c, &k->flags)))
			return err;
		return cur_str_rest(c, &k->name);
	}
	case PERF_RECORD_BPF_EVENT: {
		struct tally_record_bpf_event *b = &out->u.bpf_event;

		err = cur_u16(c, &b->type) ?: cur_u16(c, &b->flags) ?: cur_u32(c, &b->id) ?:
		      cur_skip(c, 8, &at);
		b->tag = at;
		/*
		 * perf record's side-band thread writes its unload records
		 * 32 bytes longer (its own attr's trailer, zeros here): perf
		 * reads the fields and takes the trailer from the end, so
		 * the bytes between are left unread, as perf leaves them
		 */
		if (!err)
			c->p = c->end;
		break;
	}
	case PERF_RECORD_CGROUP:
		if ((err = cur_u64(c, &out->u.cgroup.id)))
			return err;
		return cur_str_rest(c, &out->u.cgroup.path);
	case PERF_RECORD_TEXT_POKE: {
		struct tally_record_text_poke *t = &out->u.text_poke;

		if ((err = cur_u64(c, &t->addr)) || (err = cur_u16(c, &t->old_len)) ||
		    (err = cur_u16(c, &t->new_len)) ||
		    (err = cur_skip(c, (size_t)t->old_len + t->new_len, &at)))
			return err;
		t->bytes = at;
		/* the bytes are zero-padded to 8: at most 7 left */
		return cur_left(c) < 8 ? 0 : -EBADMSG;
	}
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		err = cur_u64(c, &out->u.aux_output_hw_id.hw_id);
		break;
	}
	/* fixed-size bodies: leftover bytes mean a wrong layout or a bad size */
	return err ?: cur_done(c);
}

static int parse(const void *buf, size_t len, const struct tally_record_layout *lay,
		 struct tally_record *out)
{
	struct perf_event_header h;
	struct cur c;
	int err;

	/*
	 * libc's memset (vector stores), not the compiler's inlined `rep
	 * stos`, whose start-up was half the time of parsing a sample.
	 */
	static void *(*volatile zero)(void *, int, size_t) = memset;

	zero(out, 0, sizeof(*out));
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return -EBADMSG;
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	if ((err = layout_valid(lay)))
		return err;
	c.p = (const unsigned char *)buf + sizeof(h);
	c.end = (const unsigned char *)buf + h.size;

	if (h.type == PERF_RECORD_SAMPLE) {
		struct tally_sample *s = &out->u.sample;

		if (h.size & 7)
			return -EBADMSG;
		if ((err = !(lay->sample_type & SAMPLE_SLOW) ? parse_sample_slots(c.p, c.end, lay, s) :
			   parse_sample(&c, lay, s)))
			return err;
		out->sid = (struct tally_sample_id){
			.pid = s->pid, .tid = s->tid, .time = s->time,
			.id = (lay->sample_type & PERF_SAMPLE_IDENTIFIER) ? s->identifier : s->id,
			.stream_id = s->stream_id, .cpu = s->cpu,
		};
		out->has_sid = true;
		return 0;
	}
	/* unknown and user types (>= 64, never with a trailer): header only */
	if (h.type == 0 || h.type > LAST_KERNEL_TYPE)
		return 0;
	/* the kernel (and perf, synthesizing these) pads every record to 8 */
	if (h.size & 7)
		return -EBADMSG;
	if (lay->sample_id_all) {
		struct cur t;
		size_t n = sid_size(lay->sample_type);

		if (n > cur_left(&c))
			return -EBADMSG;
		c.end -= n;
		t.p = c.end;
		t.end = c.end + n;
		parse_sid(&t, lay->sample_type, &out->sid);
		out->has_sid = true;
	}
	return parse_body(&c, lay, h.type, h.misc, out);
}

int tally_record__parse(const void *buf, size_t len, const struct tally_record_layout *lay,
			struct tally_record *out)
{
	int err;

	if (!buf || !lay || !out)
		return tally__err(EINVAL);
	err = parse(buf, len, lay, out);
	if (err) {
		/* only the header survives a failure: no half-decoded body */
		struct tally_record keep = { .type = out->type, .misc = out->misc,
					     .size = out->size };

		*out = keep;
		return tally__err(-err);
	}
	return 0;
}

/*
 * One u64 of the sample_id set without decoding the record: in a SAMPLE
 * after the fixed slots in sample_before, in a non-sample record's
 * trailer after those in trailer_before, or the trailer's last u64 when
 * last. -ENOENT where the record carries no trailer (no sample_id_all,
 * a user type).
 */
static int sid_u64(const void *buf, size_t len, const struct tally_record_layout *lay,
		   uint64_t sample_before, uint64_t trailer_before, bool last, uint64_t *out)
{
	struct perf_event_header h;
	uint64_t st = lay->sample_type;
	size_t off;

	if (len < sizeof(h))
		return tally__err(EBADMSG);
	memcpy(&h, buf, sizeof(h));
	if (h.size < sizeof(h) || h.size > len)
		return tally__err(EBADMSG);
	if (h.type == PERF_RECORD_SAMPLE) {
		off = sizeof(h) + 8 * (size_t)__builtin_popcountll(st & sample_before);
	} else {
		size_t n = sid_size(st);

		if (h.type == 0 || h.type > LAST_KERNEL_TYPE || !lay->sample_id_all)
			return tally__err(ENOENT);
		if (n > h.size - sizeof(h))
			return tally__err(EBADMSG);
		off = last ? h.size - 8u :
		      h.size - n + 8 * (size_t)__builtin_popcountll(st & trailer_before);
	}
	if (off + 8 > h.size)
		return tally__err(EBADMSG);
	memcpy(out, (const unsigned char *)buf + off, 8);
	return 0;
}

int tally_record__id(const void *buf, size_t len, const struct tally_record_layout *lay,
		     uint64_t *id)
{
	if (!buf || !lay || !id)
		return tally__err(EINVAL);
	if (!(lay->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID)))
		return tally__err(ENOENT);
	/* IDENTIFIER: first u64 of a sample, last of a trailer */
	if (lay->sample_type & PERF_SAMPLE_IDENTIFIER)
		return sid_u64(buf, len, lay, 0, 0, true, id);
	/* ID after IP, TID, TIME, ADDR in a sample; after TID, TIME in a trailer */
	return sid_u64(buf, len, lay,
		       PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR,
		       PERF_SAMPLE_TID | PERF_SAMPLE_TIME, false, id);
}

static const char *const kernel_names[] = {
	[PERF_RECORD_MMAP] = "MMAP",
	[PERF_RECORD_LOST] = "LOST",
	[PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT",
	[PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
	[PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ",
	[PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2",
	[PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START",
	[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH",
	[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	[PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
	[PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
	[PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
};

/* perf's enum perf_user_event_type (tools/lib/perf/include/perf/event.h), from 64. */
static const char *const user_names[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
	"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
	"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
	"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
};

const char *tally_record__type_name(uint32_t type)
{
	if (type < ARRAY_SIZE(kernel_names) && kernel_names[type])
		return kernel_names[type];
	if (type >= TALLY_RECORD_USER_TYPE_START && type - TALLY_RECORD_USER_TYPE_START < ARRAY_SIZE(user_names))
		return user_names[type - TALLY_RECORD_USER_TYPE_START];
	return tally__err_ptr(ENOENT);
}

int tally_record__time(const void *buf, size_t len, const struct tally_record_layout *lay,
		       uint64_t *time)
{
	if (!buf || !lay || !time)
		return tally__err(EINVAL);
	if (!(lay->sample_type & PERF_SAMPLE_TIME))
		return tally__err(ENOENT);
	/* TIME after IDENTIFIER, IP, TID in a sample; after TID in a trailer */
	return sid_u64(buf, len, lay, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		       PERF_SAMPLE_TID, false, time);
}
