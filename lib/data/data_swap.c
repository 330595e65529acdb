// SPDX-License-Identifier: MIT
/*
 * The other byte order (data_swap.h). A big-endian machine writes each
 * field in its own width, so each is swapped in its own width here; the
 * attr's flag bits, allocated from the other end of each byte there,
 * are mirrored within each byte (bytes stay where they are). Raw
 * tracepoint data, stack copies and AUX data are the machine's own
 * memory and stay as they are.
 */
#include <stdbool.h>
#include <string.h>
#include <tally/data_format.h>
#include "data_swap.h"

/* A cursor over a record; a field past the end is left and ends the walk. */
struct cur {
	uint8_t *p;
	size_t len, pos;
};

static bool room(struct cur *c, size_t n)
{
	return c->len - c->pos >= n;
}

static bool sw16(struct cur *c)
{
	uint16_t v;

	if (!room(c, 2))
		return false;
	memcpy(&v, c->p + c->pos, 2);
	v = __builtin_bswap16(v);
	memcpy(c->p + c->pos, &v, 2);
	c->pos += 2;
	return true;
}

static bool sw32(struct cur *c)
{
	uint32_t v;

	if (!room(c, 4))
		return false;
	memcpy(&v, c->p + c->pos, 4);
	v = __builtin_bswap32(v);
	memcpy(c->p + c->pos, &v, 4);
	c->pos += 4;
	return true;
}

/* Swaps the u64 at the cursor; *out gets the host value. */
static bool sw64v(struct cur *c, uint64_t *out)
{
	uint64_t v;

	if (!room(c, 8))
		return false;
	memcpy(&v, c->p + c->pos, 8);
	v = __builtin_bswap64(v);
	memcpy(c->p + c->pos, &v, 8);
	c->pos += 8;
	if (out)
		*out = v;
	return true;
}

static bool sw64(struct cur *c)
{
	return sw64v(c, NULL);
}

static bool sw64n(struct cur *c, uint64_t n)
{
	if (n > (c->len - c->pos) / 8)
		return false;
	while (n--)
		sw64(c);
	return true;
}

static bool skip(struct cur *c, uint64_t n)
{
	if (n > c->len - c->pos)
		return false;
	c->pos += n;
	return true;
}

void tally__swap_header(struct perf_event_header *h)
{
	h->type = __builtin_bswap32(h->type);
	h->misc = __builtin_bswap16(h->misc);
	h->size = __builtin_bswap16(h->size);
}

static uint8_t mirror8(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	return (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
}

void tally__swap_attr(void *attr, size_t size)
{
	struct cur c = { attr, size, 0 };

	/* type size config period sample_type read_format, then the flag bits */
	if (!(sw32(&c) && sw32(&c) && sw64(&c) && sw64(&c) && sw64(&c) && sw64(&c)) ||
	    !room(&c, 8))
		return;
	for (int i = 0; i < 8; i++)
		c.p[c.pos + i] = mirror8(c.p[c.pos + i]);
	c.pos += 8;
	/* wakeup bp_type config1 config2 branch_sample_type regs_user stack_user
	 * clockid regs_intr aux_watermark max_stack reserved aux_sample_size
	 * reserved sig_data config3 */
	(void)(sw32(&c) && sw32(&c) && sw64(&c) && sw64(&c) && sw64(&c) && sw64(&c) &&
	       sw32(&c) && sw32(&c) && sw64(&c) && sw32(&c) && sw16(&c) && sw16(&c) &&
	       sw32(&c) && sw32(&c) && sw64(&c) && sw64(&c));
}

/* sample_id_all's trailer at the record's end, by the attr's sample_type. */
static void swap_trailer(struct cur *c, const struct perf_event_attr *a)
{
	uint64_t st, n;

	if (!a || !a->sample_id_all)
		return;
	st = a->sample_type;
	n = !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
	    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
	    !!(st & PERF_SAMPLE_IDENTIFIER);
	if (n * 8 > c->len - c->pos)
		return;
	c->pos = c->len - n * 8;
	if (st & PERF_SAMPLE_TID)
		sw32(c), sw32(c);
	if (st & PERF_SAMPLE_TIME)
		sw64(c);
	if (st & PERF_SAMPLE_ID)
		sw64(c);
	if (st & PERF_SAMPLE_STREAM_ID)
		sw64(c);
	if (st & PERF_SAMPLE_CPU)
		sw32(c), sw32(c);
	if (st & PERF_SAMPLE_IDENTIFIER)
		sw64(c);
}

static bool swap_read_values(struct cur *c, uint64_t rf)
{
	uint64_t nr = 1;
	int per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

	if (rf & PERF_FORMAT_GROUP) {
		if (!sw64v(c, &nr))
			return false;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			sw64(c);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			sw64(c);
		if (nr > (c->len - c->pos) / 8 / (uint64_t)per)
			return false;
		return sw64n(c, nr * (uint64_t)per);
	}
	/* value, enabled, running, id, lost */
	return sw64(c) && (!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) || sw64(c)) &&
	       (!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) || sw64(c)) &&
	       (!(rf & PERF_FORMAT_ID) || sw64(c)) && (!(rf & PERF_FORMAT_LOST) || sw64(c));
}

static bool swap_regs(struct cur *c, uint64_t mask)
{
	uint64_t abi;

	if (!sw64v(c, &abi))
		return false;
	return !abi || sw64n(c, (uint64_t)__builtin_popcountll(mask));
}

static void swap_sample(struct cur *c, const struct perf_event_attr *a)
{
	uint64_t st = a->sample_type, n;
	uint32_t sz;

#define U64(bit) if ((st & (bit)) && !sw64(c)) return
	U64(PERF_SAMPLE_IDENTIFIER);
	U64(PERF_SAMPLE_IP);
	if ((st & PERF_SAMPLE_TID) && !(sw32(c) && sw32(c)))
		return;
	U64(PERF_SAMPLE_TIME);
	U64(PERF_SAMPLE_ADDR);
	U64(PERF_SAMPLE_ID);
	U64(PERF_SAMPLE_STREAM_ID);
	if ((st & PERF_SAMPLE_CPU) && !(sw32(c) && sw32(c)))
		return;
	U64(PERF_SAMPLE_PERIOD);
	if ((st & PERF_SAMPLE_READ) && !swap_read_values(c, a->read_format))
		return;
	if ((st & PERF_SAMPLE_CALLCHAIN) && !(sw64v(c, &n) && sw64n(c, n)))
		return;
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size, the event's bytes as the kernel wrote them, padded to 8 */
		if (!sw32(c))
			return;
		memcpy(&sz, c->p + c->pos - 4, 4);
		if (!skip(c, sz))
			return;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (!sw64v(c, &n))
			return;
		if ((a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && !sw64(c))
			return;
		if (n > (c->len - c->pos) / 24 || !sw64n(c, n * 3))
			return;
	}
	if ((st & PERF_SAMPLE_REGS_USER) && !swap_regs(c, a->sample_regs_user))
		return;
	if (st & PERF_SAMPLE_STACK_USER) {
		if (!sw64v(c, &n) || !skip(c, n) || (n && !sw64(c)))
			return;
	}
	if (st & PERF_SAMPLE_WEIGHT_STRUCT) {
		if (!(sw32(c) && sw16(c) && sw16(c)))
			return;
	} else {
		U64(PERF_SAMPLE_WEIGHT);
	}
	U64(PERF_SAMPLE_DATA_SRC);
	U64(PERF_SAMPLE_TRANSACTION);
	if ((st & PERF_SAMPLE_REGS_INTR) && !swap_regs(c, a->sample_regs_intr))
		return;
	U64(PERF_SAMPLE_PHYS_ADDR);
	if ((st & PERF_SAMPLE_AUX) && !(sw64v(c, &n) && skip(c, n)))
		return;
	U64(PERF_SAMPLE_CGROUP);
	U64(PERF_SAMPLE_DATA_PAGE_SIZE);
	U64(PERF_SAMPLE_CODE_PAGE_SIZE);
#undef U64
}

bool tally__swap_sample_id(const void *rec, size_t size, const struct perf_event_attr *first,
			   uint64_t *id)
{
	uint64_t st = first->sample_type, off = sizeof(struct perf_event_header), v;

	if (st & PERF_SAMPLE_IDENTIFIER)
		goto at;
	if (!(st & PERF_SAMPLE_ID))
		return false;
	off += 8 * (!!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
		    !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR));
at:
	if (off + 8 > size)
		return false;
	memcpy(&v, (const uint8_t *)rec + off, 8);
	*id = __builtin_bswap64(v);
	return true;
}

/* The kernel's side-band records (1..21): fixed fields, then the trailer. */
static void swap_kernel_record(struct cur *c, uint32_t type, uint16_t misc,
			       const struct perf_event_attr *t)
{
	uint64_t n;

	switch (type) {
	case PERF_RECORD_MMAP:
		sw32(c), sw32(c), sw64(c), sw64(c), sw64(c);
		break;
	case PERF_RECORD_MMAP2:
		sw32(c), sw32(c), sw64(c), sw64(c), sw64(c);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			skip(c, 24);	/* u8 size, 3 reserved, 20 bytes of build id */
		else
			sw32(c), sw32(c), sw64(c), sw64(c);
		sw32(c), sw32(c);
		break;
	case PERF_RECORD_LOST:
		sw64(c), sw64(c);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		sw32(c), sw32(c);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		sw32(c), sw32(c), sw32(c), sw32(c), sw64(c);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_AUX:
		sw64(c), sw64(c), sw64(c);
		break;
	case PERF_RECORD_READ:
		sw32(c), sw32(c);
		if (t)
			swap_read_values(c, t->read_format);
		break;
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		sw64(c);
		break;
	case PERF_RECORD_NAMESPACES:
		sw32(c), sw32(c);
		if (sw64v(c, &n))
			sw64n(c, n * 2);
		break;
	case PERF_RECORD_KSYMBOL:
		sw64(c), sw32(c), sw16(c), sw16(c);
		break;
	case PERF_RECORD_BPF_EVENT:
		sw16(c), sw16(c), sw32(c);
		break;
	case PERF_RECORD_TEXT_POKE:
		sw64(c), sw16(c), sw16(c);
		break;
	default:
		break;
	}
	swap_trailer(c, t);
}

/* perf's own record types (64..): no trailer. */
static void swap_user_record(struct cur *c, uint32_t type)
{
	uint64_t n;
	uint16_t t16, n16;

	switch (type) {
	case TALLY_RECORD_HEADER_ATTR:	/* the attr, then its ids */
		if (room(c, 8)) {
			uint32_t asz;

			memcpy(&asz, c->p + c->pos + 4, 4);
			asz = __builtin_bswap32(asz);
			if (asz >= PERF_ATTR_SIZE_VER0 && asz <= c->len - c->pos) {
				tally__swap_attr(c->p + c->pos, asz);
				c->pos += asz;
				sw64n(c, (c->len - c->pos) / 8);
			}
		}
		break;
	case TALLY_RECORD_HEADER_TRACING_DATA:	/* u32 size (its blob follows the record) */
		sw32(c);
		break;
	case TALLY_RECORD_ID_INDEX:	/* nr, then id idx cpu tid each */
		if (sw64v(c, &n) && n <= (c->len - c->pos) / 32)
			sw64n(c, n * 4);
		break;
	case TALLY_RECORD_THREAD_MAP:	/* nr, then pid and comm[16] each */
		if (sw64v(c, &n) && n <= (c->len - c->pos) / 24)
			for (uint64_t i = 0; i < n; i++)
				sw64(c), skip(c, 16);
		break;
	case TALLY_RECORD_CPU_MAP:	/* u16 type, then a list, a mask or a range */
		if (!sw16(c))
			break;
		memcpy(&t16, c->p + c->pos - 2, 2);
		if (t16 == 0 && sw16(c)) {		/* nr, cpus */
			memcpy(&n16, c->p + c->pos - 2, 2);
			while (n16-- && sw16(c))
				;
		} else if (t16 == 2) {			/* any_cpu, pad, start, end */
			skip(c, 2), sw16(c), sw16(c);
		} else if (t16 == 1 && sw16(c) && sw16(c)) {	/* nr, long_size, mask */
			memcpy(&n16, c->p + c->pos - 4, 2);
			memcpy(&t16, c->p + c->pos - 2, 2);
			if (t16 == 8 && sw32(c))
				sw64n(c, n16);
			else
				while (n16-- && sw32(c))
					;
		}
		break;
	case TALLY_RECORD_STAT:	/* id, cpu, thread, val ena run */
		sw64(c), sw32(c), sw32(c), sw64(c), sw64(c), sw64(c);
		break;
	case TALLY_RECORD_HEADER_BUILD_ID:	/* pid, build id, name */
		sw32(c);
		break;
	case TALLY_RECORD_AUXTRACE_INFO:	/* type, reserved, then u64s */
		sw32(c), sw32(c);
		sw64n(c, (c->len - c->pos) / 8);
		break;
	case TALLY_RECORD_AUXTRACE:	/* size offset reference, idx tid cpu reserved */
		sw64(c), sw64(c), sw64(c), sw32(c), sw32(c), sw32(c), sw32(c);
		break;
	case TALLY_RECORD_STAT_CONFIG:	/* nr, then tag and val each */
	case TALLY_RECORD_STAT_ROUND:	/* type, time */
	case TALLY_RECORD_TIME_CONV:	/* u64s */
		sw64n(c, (c->len - c->pos) / 8);
		break;
	case TALLY_RECORD_EVENT_UPDATE:	/* type, id, then by type */
		if (sw64v(c, &n) && sw64(c) && n == 1)	/* SCALE: a double */
			sw64(c);
		break;
	case TALLY_RECORD_HEADER_FEATURE:	/* feat, then its section */
		if (sw64v(c, &n))
			tally__swap_feature((int)n, c->p + c->pos, c->len - c->pos);
		break;
	default:	/* FINISHED_ROUND, FINISHED_INIT, COMPRESSED: nothing more */
		break;
	}
}

void tally__swap_record(void *rec, const struct perf_event_attr *sample,
			const struct perf_event_attr *trailer)
{
	struct perf_event_header *h = rec;
	struct cur c = { rec, h->size, sizeof(*h) };

	if (h->size < sizeof(*h))
		return;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (sample)
			swap_sample(&c, sample);
	} else if (h->type < TALLY_RECORD_USER_TYPE_START) {
		swap_kernel_record(&c, h->type, h->misc, trailer);
	} else {
		swap_user_record(&c, h->type);
	}
}

/* perf's string: u32 length, then the (padded) bytes. */
static bool swap_str(struct cur *c)
{
	uint32_t n;

	if (!sw32(c))
		return false;
	memcpy(&n, c->p + c->pos - 4, 4);
	return skip(c, n);
}

static bool swap_strs(struct cur *c)
{
	uint32_t n;

	if (!sw32(c))
		return false;
	memcpy(&n, c->p + c->pos - 4, 4);
	while (n-- && swap_str(c))
		;
	return true;
}

bool tally__swap_feature(int feat, void *p, size_t len)
{
	struct cur c = { p, len, 0 };
	uint32_t n, asz, nids;

	switch (feat) {
	case TALLY_HEADER_TRACING_DATA:		/* its own header says its byte order */
		return true;
	case TALLY_HEADER_BUILD_ID:		/* build_id records, headers and pids */
		while (room(&c, sizeof(struct perf_event_header))) {
			struct perf_event_header *h = (void *)(c.p + c.pos);
			struct perf_event_header hh;

			memcpy(&hh, h, sizeof(hh));
			tally__swap_header(&hh);
			memcpy(h, &hh, sizeof(hh));
			if (hh.size < sizeof(hh) + 4 || hh.size > c.len - c.pos)
				break;
			c.pos += sizeof(hh);
			sw32(&c);
			c.pos += hh.size - sizeof(hh) - 4;
		}
		return true;
	case TALLY_HEADER_HOSTNAME: case TALLY_HEADER_OSRELEASE: case TALLY_HEADER_VERSION:
	case TALLY_HEADER_ARCH: case TALLY_HEADER_CPUDESC: case TALLY_HEADER_CPUID:	/* strings */
		swap_str(&c);
		return true;
	case TALLY_HEADER_NRCPUS:		/* avail, online */
		sw32(&c), sw32(&c);
		return true;
	case TALLY_HEADER_TOTAL_MEM: case TALLY_HEADER_CLOCKID:	/* a u64 */
		sw64(&c);
		return true;
	case TALLY_HEADER_CMDLINE:	/* a string list */
		swap_strs(&c);
		return true;
	case TALLY_HEADER_EVENT_DESC:	/* nr, attr size, then attr, nr ids, name, ids */
		if (!sw32(&c) || !sw32(&c))
			return true;
		memcpy(&n, c.p, 4);
		memcpy(&asz, c.p + 4, 4);
		while (n-- && asz >= PERF_ATTR_SIZE_VER0 && room(&c, asz)) {
			tally__swap_attr(c.p + c.pos, asz);
			c.pos += asz;
			if (!sw32(&c))
				break;
			memcpy(&nids, c.p + c.pos - 4, 4);
			if (!swap_str(&c) || !sw64n(&c, nids))
				break;
		}
		return true;
	case TALLY_HEADER_PMU_MAPPINGS:	/* nr, then type and name each */
		if (!sw32(&c))
			return true;
		memcpy(&n, c.p, 4);
		while (n-- && sw32(&c) && swap_str(&c))
			;
		return true;
	case TALLY_HEADER_GROUP_DESC:	/* nr, then name, leader, nr_members each */
		if (!sw32(&c))
			return true;
		memcpy(&n, c.p, 4);
		while (n-- && swap_str(&c) && sw32(&c) && sw32(&c))
			;
		return true;
	case TALLY_HEADER_SAMPLE_TIME:	/* first, last */
		sw64(&c), sw64(&c);
		return true;
	case TALLY_HEADER_COMPRESSED:	/* version type level ratio mmap_len */
		for (int i = 0; i < 5; i++)
			sw32(&c);
		return true;
	case TALLY_HEADER_SC_STRINGS:	/* version count, then time tid nr arg len and the string each */
		if (!sw32(&c) || !sw32(&c))
			return true;
		memcpy(&n, c.p + 4, 4);
		while (n-- && sw64(&c) && sw32(&c) && sw32(&c) && sw32(&c) && sw32(&c)) {
			uint32_t slen;

			memcpy(&slen, c.p + c.pos - 4, 4);
			if (!room(&c, ((size_t)slen + 7) & ~(size_t)7))
				break;
			c.pos += ((size_t)slen + 7) & ~(size_t)7;
		}
		return true;
	case TALLY_HEADER_CLOCK_DATA:	/* version, clockid, wall clock ns, clock ns */
		sw32(&c), sw32(&c), sw64(&c), sw64(&c);
		return true;
	default:
		return false;
	}
}
