// SPDX-License-Identifier: MIT
/*
 * The record decoder on records built byte by byte from perf_event_open(2):
 * every PERF_RECORD_* type with and without the sample_id_all trailer,
 * samples under every sample_type bit and the combinations that move
 * offsets (group reads with id and lost, callchain, RAW padding, branch
 * stack with and without hw_idx, regs with abi 0, stack size 0), one
 * sample laid out by hand at known offsets, and every truncation of each
 * valid record: it must fail with -EBADMSG, and (SAN=1) never read past
 * the bytes given, which sit at the very end of a malloc'd block.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/record.h>

/* ---- a record builder ------------------------------------------------ */

struct rb {
	unsigned char b[8192];
	size_t n;
};

static void put(struct rb *r, const void *p, size_t n)
{
	assert_true(r->n + n <= sizeof(r->b));
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void u64(struct rb *r, uint64_t v) { put(r, &v, 8); }
static void u32(struct rb *r, uint32_t v) { put(r, &v, 4); }
static void u16(struct rb *r, uint16_t v) { put(r, &v, 2); }

static void pad8(struct rb *r)
{
	while (r->n & 7)
		r->b[r->n++] = 0;
}

/* NUL-terminated, zero padded to 8 as the kernel writes names. */
static void str(struct rb *r, const char *s)
{
	put(r, s, strlen(s) + 1);
	pad8(r);
}

static void begin(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	r->n = 0;
	put(r, &h, sizeof(h));
}

static void finish(struct rb *r)
{
	uint16_t sz = (uint16_t)r->n;

	memcpy(r->b + 6, &sz, 2);
}

/* The trailer for st: known values derived from one seed. */
#define SID_PID 1001
#define SID_TID 1002
#define SID_TIME 0x1111222233334444ull
#define SID_ID 77
#define SID_ID_SLOT 76	/* the ID slot; IDENTIFIER holds SID_ID (the kernel writes one value twice) */
#define SID_STREAM 78
#define SID_CPU 5

static void sid(struct rb *r, uint64_t st)
{
	if (st & PERF_SAMPLE_TID) {
		u32(r, SID_PID);
		u32(r, SID_TID);
	}
	if (st & PERF_SAMPLE_TIME)
		u64(r, SID_TIME);
	if (st & PERF_SAMPLE_ID)
		u64(r, SID_ID_SLOT);
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(r, SID_STREAM);
	if (st & PERF_SAMPLE_CPU) {
		u32(r, SID_CPU);
		u32(r, 0xdead);	/* res: ignored */
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		u64(r, SID_ID);
}

static void check_sid(const struct tally_record *rec, uint64_t st)
{
	assert_true(rec->has_sid);
	assert_int_equal(rec->sid.pid, st & PERF_SAMPLE_TID ? SID_PID : 0);
	assert_int_equal(rec->sid.tid, st & PERF_SAMPLE_TID ? SID_TID : 0);
	assert_int_equal(rec->sid.time, st & PERF_SAMPLE_TIME ? SID_TIME : 0);
	/* IDENTIFIER wins when both are there */
	assert_int_equal(rec->sid.id, st & PERF_SAMPLE_IDENTIFIER ? SID_ID :
				      st & PERF_SAMPLE_ID ? SID_ID_SLOT : 0);
	assert_int_equal(rec->sid.stream_id, st & PERF_SAMPLE_STREAM_ID ? SID_STREAM : 0);
	assert_int_equal(rec->sid.cpu, st & PERF_SAMPLE_CPU ? SID_CPU : 0);
}

/* Parse from a heap block of exactly len bytes so ASan sees any overread. */
static int parse_exact(const void *buf, size_t len, const struct tally_record_layout *lay,
		       struct tally_record *out)
{
	void *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	ret = tally_record__parse(copy, len, lay, out);
	/* pointers into copy are dead now: callers check them before this */
	free(copy);
	return ret;
}

/*
 * Every way to cut a valid record short fails: the buffer shorter than
 * header.size, and header.size itself shrunk with it (by 1..7 bytes: not
 * a multiple of 8; by 8, 16, ...: a field, string or trailer missing).
 * A failed parse leaves only the header.
 */
static void check_truncations(const struct rb *r, const struct tally_record_layout *lay)
{
	struct tally_record rec;
	struct rb t;

	for (size_t cut = 0; cut < r->n; cut++) {
		assert_int_equal(parse_exact(r->b, cut, lay, &rec), -EBADMSG);
		t = *r;
		t.n = cut;
		if (cut < sizeof(struct perf_event_header))
			continue;
		finish(&t);
		errno = 0;
		if (parse_exact(t.b, t.n, lay, &rec) != -EBADMSG)
			fail_msg("type %u cut to %zu of %zu bytes parsed", (unsigned)rec.type,
				 cut, r->n);
		assert_int_equal(errno, EBADMSG);
		assert_int_equal(rec.size, cut);
		assert_false(rec.has_sid);
		assert_null(rec.u.mmap.filename);	/* the union is zeroed */
	}
}

/* ---- non-sample records ---------------------------------------------- */

#define ALL_SID (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Layouts the trailer tests run under: none, perf record's, all six fields, ID without IDENTIFIER. */
static const struct {
	uint64_t st;
	bool all;
} sid_layouts[] = {
	{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, false },
	{ PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, true },
	{ ALL_SID | PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, true },
	{ PERF_SAMPLE_ID | PERF_SAMPLE_CPU, true },
	{ PERF_SAMPLE_IP, true },	/* sample_id_all with an empty trailer */
	{ PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, true },	/* IDENTIFIER, no ID */
};

/* The read_format build_kernel_record writes PERF_RECORD_READ with. */
#define READ_RF (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		 PERF_FORMAT_ID | PERF_FORMAT_LOST)

/* Builds one record of type t for layout lay into r (body, then trailer). */
static void build_kernel_record(struct rb *r, uint32_t t, uint16_t misc,
				const struct tally_record_layout *lay)
{
	begin(r, t, misc);
	switch (t) {
	case PERF_RECORD_MMAP:
		u32(r, 10); u32(r, 11); u64(r, 0x400000); u64(r, 0x1000); u64(r, 0x2000);
		str(r, "/usr/lib/x86_64-linux-gnu/libc.so.6");
		break;
	case PERF_RECORD_LOST:
		u64(r, 99); u64(r, 1234);
		break;
	case PERF_RECORD_COMM:
		u32(r, 12); u32(r, 13); str(r, "abcdefg");	/* 7 chars: one NUL, no padding */
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		u32(r, 20); u32(r, 21); u32(r, 22); u32(r, 23); u64(r, 24);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		u64(r, 30); u64(r, 31); u64(r, 32);
		break;
	case PERF_RECORD_READ:	/* READ_RF */
		u32(r, 40); u32(r, 41); u64(r, 42); u64(r, 43); u64(r, 44); u64(r, 45); u64(r, 46);
		break;
	case PERF_RECORD_MMAP2:
		u32(r, 50); u32(r, 51); u64(r, 0x7f0000000000); u64(r, 0x3000); u64(r, 0x1000);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned char bid[24] = { 20, 0xee, 0xee, 0xee };

			for (int i = 0; i < 20; i++)
				bid[4 + i] = (unsigned char)(0xa0 + i);
			put(r, bid, sizeof(bid));
		} else {
			u32(r, 8); u32(r, 1); u64(r, 123456); u64(r, 7);
		}
		u32(r, 5); u32(r, 2); str(r, "/tmp/abcdefgh");	/* 13 chars + 3 NULs */
		break;
	case PERF_RECORD_AUX:
		u64(r, 60); u64(r, 61); u64(r, PERF_AUX_FLAG_TRUNCATED);
		break;
	case PERF_RECORD_ITRACE_START:
		u32(r, 70); u32(r, 71);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		u64(r, 80);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		u32(r, 90); u32(r, 91);
		break;
	case PERF_RECORD_NAMESPACES:
		u32(r, 100); u32(r, 101); u64(r, 3);
		for (int i = 0; i < 3; i++) {
			u64(r, 110 + (uint64_t)i);	/* dev */
			u64(r, 120 + (uint64_t)i);	/* ino */
		}
		break;
	case PERF_RECORD_KSYMBOL:
		u64(r, 0xffffffffc0000000); u32(r, 0x80); u16(r, PERF_RECORD_KSYMBOL_TYPE_BPF);
		u16(r, 0); str(r, "bpf_prog_0123456789abcdef_x");	/* 27 + 5 NULs */
		break;
	case PERF_RECORD_BPF_EVENT:
		u16(r, PERF_BPF_EVENT_PROG_LOAD); u16(r, 0); u32(r, 130);
		put(r, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
		break;
	case PERF_RECORD_CGROUP:
		u64(r, 140); str(r, "/sys.slice/abcdefghijklmno");	/* 26 + 6 NULs */
		break;
	case PERF_RECORD_TEXT_POKE:
		u64(r, 0xffffffff81000000); u16(r, 3); u16(r, 2);
		put(r, "\x90\x90\x90\xeb\x01", 5);
		pad8(r);	/* 12 + 5 = 17 -> 24: 7 bytes of padding, the most there is */
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		u64(r, 150);
		break;
	}
	if (lay->sample_id_all)
		sid(r, lay->sample_type);
	finish(r);
}

static void check_kernel_record(const struct tally_record *rec, const struct rb *r,
				const void *base, uint32_t t, uint16_t misc)
{
	assert_int_equal(rec->type, t);
	assert_int_equal(rec->misc, misc);
	assert_int_equal(rec->size, r->n);
	switch (t) {
	case PERF_RECORD_MMAP:
		assert_int_equal(rec->u.mmap.pid, 10);
		assert_int_equal(rec->u.mmap.tid, 11);
		assert_int_equal(rec->u.mmap.start, 0x400000);
		assert_int_equal(rec->u.mmap.len, 0x1000);
		assert_int_equal(rec->u.mmap.pgoff, 0x2000);
		assert_string_equal(rec->u.mmap.filename, "/usr/lib/x86_64-linux-gnu/libc.so.6");
		assert_ptr_equal(rec->u.mmap.filename, (const char *)base + 40);
		break;
	case PERF_RECORD_LOST:
		assert_int_equal(rec->u.lost.id, 99);
		assert_int_equal(rec->u.lost.lost, 1234);
		break;
	case PERF_RECORD_COMM:
		assert_int_equal(rec->u.comm.pid, 12);
		assert_int_equal(rec->u.comm.tid, 13);
		assert_string_equal(rec->u.comm.comm, "abcdefg");
		assert_ptr_equal(rec->u.comm.comm, (const char *)base + 16);
		break;
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK:
		assert_int_equal(rec->u.task.pid, 20);
		assert_int_equal(rec->u.task.ppid, 21);
		assert_int_equal(rec->u.task.tid, 22);
		assert_int_equal(rec->u.task.ptid, 23);
		assert_int_equal(rec->u.task.time, 24);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		assert_int_equal(rec->u.throttle.time, 30);
		assert_int_equal(rec->u.throttle.id, 31);
		assert_int_equal(rec->u.throttle.stream_id, 32);
		break;
	case PERF_RECORD_READ: {
		struct tally_read_entry e;

		assert_int_equal(rec->u.read.pid, 40);
		assert_int_equal(rec->u.read.tid, 41);
		assert_int_equal(rec->u.read.values.nr, 1);
		assert_int_equal(rec->u.read.values.time_enabled, 43);
		assert_int_equal(rec->u.read.values.time_running, 44);
		assert_int_equal(tally_read_values__entry(&rec->u.read.values, 0, &e), 0);
		assert_int_equal(e.value, 42);
		assert_int_equal(e.id, 45);
		assert_int_equal(e.lost, 46);
		assert_int_equal(tally_read_values__entry(&rec->u.read.values, 1, &e), -ERANGE);
		break;
	}
	case PERF_RECORD_MMAP2: {
		const struct tally_record_mmap2 *m = &rec->u.mmap2;

		assert_int_equal(m->pid, 50);
		assert_int_equal(m->tid, 51);
		assert_int_equal(m->start, 0x7f0000000000);
		assert_int_equal(m->len, 0x3000);
		assert_int_equal(m->pgoff, 0x1000);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			assert_true(m->has_build_id);
			assert_int_equal(m->build_id_size, 20);
			assert_ptr_equal(m->build_id, (const unsigned char *)base + 44);
			for (int i = 0; i < 20; i++)
				assert_int_equal(m->build_id[i], 0xa0 + i);
			assert_int_equal(m->maj, 0);
			assert_int_equal(m->ino, 0);
		} else {
			assert_false(m->has_build_id);
			assert_null(m->build_id);
			assert_int_equal(m->maj, 8);
			assert_int_equal(m->min, 1);
			assert_int_equal(m->ino, 123456);
			assert_int_equal(m->ino_generation, 7);
		}
		assert_int_equal(m->prot, 5);
		assert_int_equal(m->flags, 2);
		assert_string_equal(m->filename, "/tmp/abcdefgh");
		assert_ptr_equal(m->filename, (const char *)base + 72);
		break;
	}
	case PERF_RECORD_AUX:
		assert_int_equal(rec->u.aux.aux_offset, 60);
		assert_int_equal(rec->u.aux.aux_size, 61);
		assert_int_equal(rec->u.aux.flags, PERF_AUX_FLAG_TRUNCATED);
		break;
	case PERF_RECORD_ITRACE_START:
		assert_int_equal(rec->u.itrace_start.pid, 70);
		assert_int_equal(rec->u.itrace_start.tid, 71);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		assert_int_equal(rec->u.lost_samples.lost, 80);
		break;
	case PERF_RECORD_SWITCH:
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		assert_int_equal(rec->u.switch_cpu_wide.next_prev_pid, 90);
		assert_int_equal(rec->u.switch_cpu_wide.next_prev_tid, 91);
		break;
	case PERF_RECORD_NAMESPACES: {
		struct perf_ns_link_info li;

		assert_int_equal(rec->u.namespaces.pid, 100);
		assert_int_equal(rec->u.namespaces.tid, 101);
		assert_int_equal(rec->u.namespaces.nr, 3);
		assert_ptr_equal(rec->u.namespaces.link_info, (const char *)base + 24);
		for (int i = 0; i < 3; i++) {
			memcpy(&li, &rec->u.namespaces.link_info[i], sizeof(li));
			assert_int_equal(li.dev, 110 + i);
			assert_int_equal(li.ino, 120 + i);
		}
		break;
	}
	case PERF_RECORD_KSYMBOL:
		assert_int_equal(rec->u.ksymbol.addr, 0xffffffffc0000000);
		assert_int_equal(rec->u.ksymbol.len, 0x80);
		assert_int_equal(rec->u.ksymbol.ksym_type, PERF_RECORD_KSYMBOL_TYPE_BPF);
		assert_int_equal(rec->u.ksymbol.flags, 0);
		assert_string_equal(rec->u.ksymbol.name, "bpf_prog_0123456789abcdef_x");
		break;
	case PERF_RECORD_BPF_EVENT:
		assert_int_equal(rec->u.bpf_event.type, PERF_BPF_EVENT_PROG_LOAD);
		assert_int_equal(rec->u.bpf_event.id, 130);
		assert_memory_equal(rec->u.bpf_event.tag, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
		break;
	case PERF_RECORD_CGROUP:
		assert_int_equal(rec->u.cgroup.id, 140);
		assert_string_equal(rec->u.cgroup.path, "/sys.slice/abcdefghijklmno");
		break;
	case PERF_RECORD_TEXT_POKE:
		assert_int_equal(rec->u.text_poke.addr, 0xffffffff81000000);
		assert_int_equal(rec->u.text_poke.old_len, 3);
		assert_int_equal(rec->u.text_poke.new_len, 2);
		assert_memory_equal(rec->u.text_poke.bytes, "\x90\x90\x90\xeb\x01", 5);
		assert_ptr_equal(rec->u.text_poke.bytes, (const char *)base + 20);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		assert_int_equal(rec->u.aux_output_hw_id.hw_id, 150);
		break;
	default:
		fail_msg("no check for type %u", (unsigned)t);
	}
}

static void test_kernel_records(void **state)
{
	int n = 0;

	for (size_t l = 0; l < sizeof(sid_layouts) / sizeof(sid_layouts[0]); l++) {
		struct tally_record_layout lay = {
			.sample_type = sid_layouts[l].st, .sample_id_all = sid_layouts[l].all,
			.read_format = READ_RF,
		};

		for (uint32_t t = PERF_RECORD_MMAP; t <= PERF_RECORD_AUX_OUTPUT_HW_ID; t++) {
			if (t == PERF_RECORD_SAMPLE)
				continue;
			for (int bid = 0; bid < (t == PERF_RECORD_MMAP2 ? 2 : 1); bid++) {
				uint16_t misc = PERF_RECORD_MISC_USER |
						(bid ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
				struct tally_record rec;
				struct rb r;

				build_kernel_record(&r, t, misc, &lay);
				assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
				check_kernel_record(&rec, &r, r.b, t, misc);
				if (lay.sample_id_all)
					check_sid(&rec, lay.sample_type);
				else
					assert_false(rec.has_sid);
				/* bytes past header.size are the caller's, not the record's */
				assert_int_equal(tally_record__parse(r.b, sizeof(r.b), &lay, &rec), 0);
				assert_int_equal(rec.size, r.n);
				check_truncations(&r, &lay);
				n++;
			}
		}
	}
	assert_int_equal(n, 6 * 21);
}

/* A trailer that does not fit, or a layout without the trailer on a record with one. */
static void test_trailer_mismatch(void **state)
{
	struct tally_record_layout lay = { .sample_type = ALL_SID, .sample_id_all = true };
	struct tally_record_layout none = { .sample_type = ALL_SID };
	struct tally_record rec;
	struct rb r;

	build_kernel_record(&r, PERF_RECORD_SWITCH, 0, &lay);
	assert_int_equal(r.n, 8 + 48);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
	assert_int_equal(tally_record__parse(r.b, r.n, &none, &rec), -EBADMSG);
	build_kernel_record(&r, PERF_RECORD_LOST, 0, &lay);
	assert_int_equal(tally_record__parse(r.b, r.n, &none, &rec), -EBADMSG);
	/* A string record parses without it, but the trailer cannot end in its name. */
	build_kernel_record(&r, PERF_RECORD_COMM, 0, &none);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
}

/*
 * perf record's side-band BPF_EVENT (an unload) comes 32 bytes longer than
 * its fields and the trailer: perf reads the fields and the trailer from
 * the end, and so does the parse
 */
static void test_bpf_event_longer(void **state)
{
	struct tally_record_layout lay = { .sample_type = ALL_SID, .sample_id_all = true };
	struct tally_record rec;
	struct rb r;

	(void)state;
	begin(&r, PERF_RECORD_BPF_EVENT, 0);
	u16(&r, PERF_BPF_EVENT_PROG_UNLOAD); u16(&r, 0); u32(&r, 131);
	u64(&r, 0x1122334455667788ull);	/* the tag */
	for (int i = 0; i < 4; i++)
		u64(&r, 0xababababababababull);	/* what perf leaves unread */
	sid(&r, ALL_SID);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
	assert_int_equal(rec.u.bpf_event.type, PERF_BPF_EVENT_PROG_UNLOAD);
	assert_int_equal(rec.u.bpf_event.id, 131);
	check_sid(&rec, ALL_SID);
	/* a LOST so long is still refused: its fields are all it holds */
	begin(&r, PERF_RECORD_LOST, 0);
	u64(&r, 99); u64(&r, 1234); u64(&r, 0);
	sid(&r, ALL_SID);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
}

static void test_bad_bodies(void **state)
{
	struct tally_record_layout lay = { .sample_type = PERF_SAMPLE_TID };
	struct tally_record rec;
	struct rb r;

	/* a name without its NUL */
	begin(&r, PERF_RECORD_COMM, 0);
	u32(&r, 1); u32(&r, 2); put(&r, "abcdefgh", 8);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	assert_null(rec.u.comm.comm);
	/* a name that is empty: there are no bytes for the NUL */
	begin(&r, PERF_RECORD_CGROUP, 0);
	u64(&r, 1);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	/* namespaces with a count that would overflow nr * 16 */
	begin(&r, PERF_RECORD_NAMESPACES, 0);
	u32(&r, 1); u32(&r, 2); u64(&r, (UINT64_MAX >> 4) + 2); u64(&r, 0); u64(&r, 0);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	/* a build id longer than the 20 bytes its slot holds */
	begin(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_MMAP_BUILD_ID);
	u32(&r, 1); u32(&r, 2); u64(&r, 0); u64(&r, 0); u64(&r, 0);
	u64(&r, 21); u64(&r, 0); u64(&r, 0);
	u32(&r, 0); u32(&r, 0); str(&r, "x");
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	r.b[40] = 20;	/* the same record with 20 is fine */
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
	assert_int_equal(rec.u.mmap2.build_id_size, 20);
	/* text_poke bytes longer than the record */
	begin(&r, PERF_RECORD_TEXT_POKE, 0);
	u64(&r, 0); u16(&r, 0xffff); u16(&r, 0xffff); u32(&r, 0);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	/* 8 more bytes after text_poke's padding: not padding any more */
	begin(&r, PERF_RECORD_TEXT_POKE, 0);
	u64(&r, 0); u16(&r, 1); u16(&r, 1); u16(&r, 0x9090); u16(&r, 0); u64(&r, 0);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	/* a fixed body with 8 bytes too many */
	begin(&r, PERF_RECORD_LOST, 0);
	u64(&r, 1); u64(&r, 2); u64(&r, 3);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	/* header sizes the ring would also refuse */
	begin(&r, PERF_RECORD_LOST, 0);
	finish(&r);
	r.b[6] = 4;
	assert_int_equal(tally_record__parse(r.b, 8, &lay, &rec), -EBADMSG);
	assert_int_equal(tally_record__parse(r.b, 7, &lay, &rec), -EBADMSG);
	assert_int_equal(tally_record__parse(r.b, 0, &lay, &rec), -EBADMSG);
}

/* Types the decoder does not own: header only, whatever the body. */
static void test_other_types(void **state)
{
	struct tally_record_layout lay = { .sample_type = ALL_SID, .sample_id_all = true };
	const uint32_t types[] = { 0, 22, 63, 64, 68, 81, 82,
				   200, 0xffffffff };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct tally_record rec;
		struct rb r;

		begin(&r, types[i], 0x1234);
		put(&r, "\x01\x02\x03", 3);	/* user records need not be 8-aligned (pipe mode) */
		finish(&r);
		memset(&rec, 0xa5, sizeof(rec));
		assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
		assert_int_equal(rec.type, types[i]);
		assert_int_equal(rec.misc, 0x1234);
		assert_int_equal(rec.size, 11);
		assert_false(rec.has_sid);
		assert_int_equal(rec.u.lost.id, 0);
		assert_int_equal(rec.sid.pid, 0);
	}
}

static void test_bad_args(void **state)
{
	struct tally_record_layout lay = { 0 };
	struct tally_record rec;
	struct rb r;
	uint64_t id;

	build_kernel_record(&r, PERF_RECORD_LOST, 0, &lay);
	assert_int_equal(tally_record__parse(NULL, r.n, &lay, &rec), -EINVAL);
	assert_int_equal(tally_record__parse(r.b, r.n, NULL, &rec), -EINVAL);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, NULL), -EINVAL);
	assert_int_equal(tally_record__id(NULL, r.n, &lay, &id), -EINVAL);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, NULL), -EINVAL);
	assert_int_equal(tally_read_values__entry(NULL, 0, NULL), -EINVAL);
	/* layouts no kernel accepts */
	lay.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EINVAL);
	lay.sample_type = (uint64_t)PERF_SAMPLE_WEIGHT_STRUCT << 1;
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EINVAL);
	assert_int_equal(errno, EINVAL);
	lay.sample_type = 0;
	lay.read_format = PERF_FORMAT_LOST << 1;
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EINVAL);
	lay.read_format = 0;
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
}

static void test_type_names(void **state)
{
	assert_string_equal(tally_record__type_name(PERF_RECORD_MMAP), "MMAP");
	assert_string_equal(tally_record__type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	assert_string_equal(tally_record__type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(tally_record__type_name(PERF_RECORD_SWITCH_CPU_WIDE), "SWITCH_CPU_WIDE");
	assert_string_equal(tally_record__type_name(PERF_RECORD_AUX_OUTPUT_HW_ID),
			    "AUX_OUTPUT_HW_ID");
	/* perf's user types (tools/lib/perf/include/perf/event.h) */
	assert_string_equal(tally_record__type_name(64), "HEADER_ATTR");
	assert_string_equal(tally_record__type_name(68), "FINISHED_ROUND");
	assert_string_equal(tally_record__type_name(69), "ID_INDEX");
	assert_string_equal(tally_record__type_name(71), "AUXTRACE");
	assert_string_equal(tally_record__type_name(74), "CPU_MAP");
	assert_string_equal(tally_record__type_name(79), "TIME_CONV");
	assert_string_equal(tally_record__type_name(81), "COMPRESSED");
	assert_string_equal(tally_record__type_name(82), "FINISHED_INIT");
	for (uint32_t t = 1; t <= 21; t++)
		assert_non_null(tally_record__type_name(t));
	for (uint32_t t = 64; t <= 82; t++)
		assert_non_null(tally_record__type_name(t));
	const uint32_t none[] = { 0, 22, 63, 83, 0xffffffff };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		errno = 0;
		assert_null(tally_record__type_name(none[i]));
		assert_int_equal(errno, ENOENT);
	}
}

static void test_layout_from_attr(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .sample_type = 0x10187, .read_format = 0x1c,
		.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX,
		.sample_regs_user = 0xff0, .sample_regs_intr = 0x3, .sample_id_all = 1,
	};
	struct tally_record_layout lay;

	memset(&lay, 0xa5, sizeof(lay));
	tally_record_layout__from_attr(&lay, &a);
	assert_int_equal(lay.sample_type, 0x10187);
	assert_int_equal(lay.read_format, 0x1c);
	assert_int_equal(lay.branch_sample_type, a.branch_sample_type);
	assert_int_equal(lay.sample_regs_user, 0xff0);
	assert_int_equal(lay.sample_regs_intr, 0x3);
	assert_true(lay.sample_id_all);
	a.sample_id_all = 0;
	tally_record_layout__from_attr(&lay, &a);
	assert_false(lay.sample_id_all);
}

/* ---- samples ---------------------------------------------------------- */

/*
 * One set of sample values, written by build_sample in the man page's
 * order and compared field by field by check_sample. Every value is
 * distinct so a field read from the wrong offset shows.
 */
struct sv {
	uint64_t group_nr;	/* entries with PERF_FORMAT_GROUP */
	uint64_t callchain_nr;
	uint32_t raw_size;	/* u32 size + data is a multiple of 8 */
	uint64_t branch_nr;
	uint64_t regs_abi_user, regs_abi_intr;
	uint64_t stack_size, stack_dyn;
	uint64_t aux_size;
};

#define V(k) (0x0100000000000000ull * (k) + 0x0101)

static void build_sample(struct rb *r, const struct tally_record_layout *lay, const struct sv *v)
{
	uint64_t st = lay->sample_type, rf = lay->read_format;

	begin(r, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		u64(r, V(1));
	if (st & PERF_SAMPLE_IP)
		u64(r, V(2));
	if (st & PERF_SAMPLE_TID) {
		u32(r, 3);
		u32(r, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		u64(r, V(5));
	if (st & PERF_SAMPLE_ADDR)
		u64(r, V(6));
	if (st & PERF_SAMPLE_ID)
		u64(r, V(1));
	if (st & PERF_SAMPLE_STREAM_ID)
		u64(r, V(7));
	if (st & PERF_SAMPLE_CPU) {
		u32(r, 8);
		u32(r, 0xffff);	/* res */
	}
	if (st & PERF_SAMPLE_PERIOD)
		u64(r, V(9));
	if (st & PERF_SAMPLE_READ) {
		if (rf & PERF_FORMAT_GROUP) {
			u64(r, v->group_nr);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				u64(r, V(10));
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				u64(r, V(11));
			for (uint64_t i = 0; i < v->group_nr; i++) {
				u64(r, 1000 + i);
				if (rf & PERF_FORMAT_ID)
					u64(r, 2000 + i);
				if (rf & PERF_FORMAT_LOST)
					u64(r, 3000 + i);
			}
		} else {
			u64(r, 1000);
			if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
				u64(r, V(10));
			if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
				u64(r, V(11));
			if (rf & PERF_FORMAT_ID)
				u64(r, 2000);
			if (rf & PERF_FORMAT_LOST)
				u64(r, 3000);
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		u64(r, v->callchain_nr);
		for (uint64_t i = 0; i < v->callchain_nr; i++)
			u64(r, i ? 0x401000 + i : (uint64_t)PERF_CONTEXT_USER);
	}
	if (st & PERF_SAMPLE_RAW) {
		u32(r, v->raw_size);
		for (uint32_t i = 0; i < v->raw_size; i++)
			r->b[r->n++] = (unsigned char)(0x30 + i);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		u64(r, v->branch_nr);
		if (lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			u64(r, V(12));
		for (uint64_t i = 0; i < v->branch_nr; i++) {
			u64(r, 0x500000 + i);	/* from */
			u64(r, 0x600000 + i);	/* to */
			u64(r, 1);		/* flags: mispred */
		}
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		u64(r, v->regs_abi_user);
		if (v->regs_abi_user)
			for (int i = 0; i < __builtin_popcountll(lay->sample_regs_user); i++)
				u64(r, 4000 + (uint64_t)i);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		u64(r, v->stack_size);
		if (v->stack_size) {
			for (uint64_t i = 0; i < v->stack_size; i++)
				r->b[r->n++] = (unsigned char)i;
			u64(r, v->stack_dyn);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		u64(r, V(13));
	if (st & PERF_SAMPLE_DATA_SRC)
		u64(r, V(14));
	if (st & PERF_SAMPLE_TRANSACTION)
		u64(r, V(15));
	if (st & PERF_SAMPLE_REGS_INTR) {
		u64(r, v->regs_abi_intr);
		if (v->regs_abi_intr)
			for (int i = 0; i < __builtin_popcountll(lay->sample_regs_intr); i++)
				u64(r, 5000 + (uint64_t)i);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		u64(r, V(16));
	if (st & PERF_SAMPLE_CGROUP)
		u64(r, V(17));
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		u64(r, V(18));
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		u64(r, V(19));
	if (st & PERF_SAMPLE_AUX) {
		u64(r, v->aux_size);
		for (uint64_t i = 0; i < v->aux_size; i++)
			r->b[r->n++] = (unsigned char)(0x80 + i);
	}
	finish(r);
}

#define CHK(bit, field, val) assert_int_equal(s->field, st & (bit) ? (val) : 0)

static void check_sample(const struct tally_record *rec, const struct rb *r,
			 const struct tally_record_layout *lay, const struct sv *v)
{
	const struct tally_sample *s = &rec->u.sample;
	uint64_t st = lay->sample_type, rf = lay->read_format;
	const unsigned char *end = r->b + r->n;

	assert_int_equal(rec->type, PERF_RECORD_SAMPLE);
	assert_int_equal(rec->size, r->n);
	CHK(PERF_SAMPLE_IDENTIFIER, identifier, V(1));
	CHK(PERF_SAMPLE_IP, ip, V(2));
	CHK(PERF_SAMPLE_TID, pid, 3);
	CHK(PERF_SAMPLE_TID, tid, 4);
	CHK(PERF_SAMPLE_TIME, time, V(5));
	CHK(PERF_SAMPLE_ADDR, addr, V(6));
	CHK(PERF_SAMPLE_ID, id, V(1));
	CHK(PERF_SAMPLE_STREAM_ID, stream_id, V(7));
	CHK(PERF_SAMPLE_CPU, cpu, 8);
	CHK(PERF_SAMPLE_PERIOD, period, V(9));
	/* the sample fills sid too */
	assert_true(rec->has_sid);
	assert_int_equal(rec->sid.pid, s->pid);
	assert_int_equal(rec->sid.time, s->time);
	assert_int_equal(rec->sid.cpu, s->cpu);
	assert_int_equal(rec->sid.id, st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER) ? V(1) : 0);
	if (st & PERF_SAMPLE_READ) {
		uint64_t nr = rf & PERF_FORMAT_GROUP ? v->group_nr : 1;
		struct tally_read_entry e;

		assert_int_equal(s->read.nr, nr);
		assert_int_equal(s->read.read_format, rf);
		assert_int_equal(s->read.time_enabled,
				 rf & PERF_FORMAT_TOTAL_TIME_ENABLED ? V(10) : 0);
		assert_int_equal(s->read.time_running,
				 rf & PERF_FORMAT_TOTAL_TIME_RUNNING ? V(11) : 0);
		for (uint64_t i = 0; i < nr; i++) {
			assert_int_equal(tally_read_values__entry(&s->read, i, &e), 0);
			assert_int_equal(e.value, 1000 + i);
			assert_int_equal(e.id, rf & PERF_FORMAT_ID ? 2000 + i : 0);
			assert_int_equal(e.lost, rf & PERF_FORMAT_LOST ? 3000 + i : 0);
		}
		assert_int_equal(tally_read_values__entry(&s->read, nr, &e), -ERANGE);
	} else {
		assert_int_equal(s->read.nr, 0);
		assert_null(s->read.raw);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		assert_int_equal(s->callchain.nr, v->callchain_nr);
		assert_true((const unsigned char *)(s->callchain.ips + v->callchain_nr) <= end);
		for (uint64_t i = 0; i < v->callchain_nr; i++)
			assert_int_equal(s->callchain.ips[i],
					 i ? 0x401000 + i : (uint64_t)PERF_CONTEXT_USER);
	} else {
		assert_null(s->callchain.ips);
	}
	if (st & PERF_SAMPLE_RAW) {
		assert_int_equal(s->raw.size, v->raw_size);
		for (uint32_t i = 0; i < v->raw_size; i++)
			assert_int_equal(((const unsigned char *)s->raw.data)[i], 0x30 + i);
	} else {
		assert_null(s->raw.data);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		bool hw = lay->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;

		assert_int_equal(s->branch_stack.nr, v->branch_nr);
		assert_int_equal(s->branch_stack.has_hw_idx, hw);
		assert_int_equal(s->branch_stack.hw_idx, hw ? V(12) : 0);
		for (uint64_t i = 0; i < v->branch_nr; i++) {
			assert_int_equal(s->branch_stack.entries[i].from, 0x500000 + i);
			assert_int_equal(s->branch_stack.entries[i].to, 0x600000 + i);
			assert_int_equal(s->branch_stack.entries[i].mispred, 1);
		}
	} else {
		assert_null(s->branch_stack.entries);
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		assert_int_equal(s->regs_user.abi, v->regs_abi_user);
		assert_int_equal(s->regs_user.mask, lay->sample_regs_user);
		assert_int_equal(s->regs_user.nr, v->regs_abi_user ?
				 __builtin_popcountll(lay->sample_regs_user) : 0);
		if (!v->regs_abi_user)
			assert_null(s->regs_user.regs);
		for (uint32_t i = 0; i < s->regs_user.nr; i++)
			assert_int_equal(s->regs_user.regs[i], 4000 + i);
	} else {
		assert_int_equal(s->regs_user.abi, 0);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		assert_int_equal(s->stack_user.size, v->stack_size);
		assert_int_equal(s->stack_user.dyn_size, v->stack_size ? v->stack_dyn : 0);
		if (!v->stack_size)
			assert_null(s->stack_user.data);
		for (uint64_t i = 0; i < v->stack_size; i++)
			assert_int_equal(((const unsigned char *)s->stack_user.data)[i], (unsigned char)i);
	}
	CHK(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, weight, V(13));
	CHK(PERF_SAMPLE_DATA_SRC, data_src, V(14));
	CHK(PERF_SAMPLE_TRANSACTION, transaction, V(15));
	if (st & PERF_SAMPLE_REGS_INTR) {
		assert_int_equal(s->regs_intr.abi, v->regs_abi_intr);
		assert_int_equal(s->regs_intr.nr, v->regs_abi_intr ?
				 __builtin_popcountll(lay->sample_regs_intr) : 0);
		for (uint32_t i = 0; i < s->regs_intr.nr; i++)
			assert_int_equal(s->regs_intr.regs[i], 5000 + i);
	}
	CHK(PERF_SAMPLE_PHYS_ADDR, phys_addr, V(16));
	CHK(PERF_SAMPLE_CGROUP, cgroup, V(17));
	CHK(PERF_SAMPLE_DATA_PAGE_SIZE, data_page_size, V(18));
	CHK(PERF_SAMPLE_CODE_PAGE_SIZE, code_page_size, V(19));
	if (st & PERF_SAMPLE_AUX) {
		assert_int_equal(s->aux.size, v->aux_size);
		/* the last field: it ends where the record does */
		assert_ptr_equal((const unsigned char *)s->aux.data + v->aux_size, end);
		for (uint64_t i = 0; i < v->aux_size; i++)
			assert_int_equal(((const unsigned char *)s->aux.data)[i], 0x80 + i);
	}
}

/* Parse r (already built for lay), check it, and every truncation. */
static void sample_roundtrip(const struct tally_record_layout *lay, const struct sv *v)
{
	struct tally_record rec;
	struct rb r, t;
	uint64_t id;

	build_sample(&r, lay, v);
	if (tally_record__parse(r.b, r.n, lay, &rec))
		fail_msg("sample_type %#llx read_format %#llx: %d",
			 (unsigned long long)lay->sample_type,
			 (unsigned long long)lay->read_format, tally_record__parse(r.b, r.n, lay, &rec));
	check_sample(&rec, &r, lay, v);
	if (lay->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) {
		assert_int_equal(tally_record__id(r.b, r.n, lay, &id), 0);
		assert_int_equal(id, V(1));
	} else {
		assert_int_equal(tally_record__id(r.b, r.n, lay, &id), -ENOENT);
	}
	check_truncations(&r, lay);
	/* a sample is consumed exactly: 8 more bytes mean another layout */
	t = r;
	u64(&t, 0);
	finish(&t);
	assert_int_equal(tally_record__parse(t.b, t.n, lay, &rec), -EBADMSG);
}

static const struct sv sv_rich = {
	.group_nr = 3, .callchain_nr = 4, .raw_size = 12, .branch_nr = 2,
	.regs_abi_user = PERF_SAMPLE_REGS_ABI_64, .regs_abi_intr = PERF_SAMPLE_REGS_ABI_64,
	.stack_size = 24, .stack_dyn = 17, .aux_size = 16,
};

/* Each sample_type bit on its own, under a layout that uses it fully. */
/* tally_record__time: the same time the full decoder finds, for every layout and type */
static void test_record_time(void **state)
{
	static const uint64_t types[] = {
		ALL_SID | PERF_SAMPLE_IP,
		PERF_SAMPLE_TIME,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID,
	};
	struct tally_record_layout lay;
	struct tally_record rec;
	struct rb r;
	uint64_t t;
	int n = 0;

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		lay = (struct tally_record_layout){ .sample_type = types[k], .read_format = READ_RF,
						    .sample_id_all = true };
		build_sample(&r, &lay, &sv_rich);
		assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), 0);
		assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
		assert_int_equal(rec.sid.time, t);
		for (uint32_t ty = 1; ty <= 21; ty++, n++) {
			if (ty == PERF_RECORD_SAMPLE)
				continue;
			build_kernel_record(&r, ty, 0, &lay);
			t = 0;
			assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), 0);
			assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
			assert_int_equal(rec.sid.time, t);
			assert_true(t != 0);
		}
	}
	assert_true(n > 50);
	/* no TIME bit; no trailer; a user type; too short */
	lay = (struct tally_record_layout){ .sample_type = PERF_SAMPLE_IP, .sample_id_all = true };
	build_sample(&r, &lay, &sv_rich);
	assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), -ENOENT);
	lay = (struct tally_record_layout){ .sample_type = ALL_SID, .sample_id_all = false };
	build_kernel_record(&r, PERF_RECORD_COMM, 0, &lay);
	assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), -ENOENT);
	lay.sample_id_all = true;
	begin(&r, 68, 0);
	finish(&r);
	assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), -ENOENT);
	begin(&r, PERF_RECORD_SAMPLE, 0);
	finish(&r);
	assert_int_equal(tally_record__time(r.b, r.n, &lay, &t), -EBADMSG);
	assert_int_equal(tally_record__time(r.b, 4, &lay, &t), -EBADMSG);
	assert_int_equal(tally_record__time(NULL, 4, &lay, &t), -EINVAL);
}

static void test_sample_each_bit(void **state)
{
	int n = 0;

	for (int bit = 0; bit <= 24; bit++) {
		struct tally_record_layout lay = {
			.sample_type = 1ull << bit,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID,
			.branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
			.sample_regs_user = 0x7, .sample_regs_intr = 0x18,
		};

		sample_roundtrip(&lay, &sv_rich);
		n++;
	}
	assert_int_equal(n, 25);
}

/* Everything at once (WEIGHT, then WEIGHT_STRUCT), then the offset-moving variants. */
static void test_sample_all_bits(void **state)
{
	const uint64_t all = ((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1) &
			     ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
	const uint64_t rfs[] = {
		0,
		PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID | PERF_FORMAT_LOST,
		PERF_FORMAT_ID | PERF_FORMAT_LOST,
		PERF_FORMAT_LOST,
		PERF_FORMAT_GROUP,
		PERF_FORMAT_GROUP | PERF_FORMAT_ID,
		PERF_FORMAT_GROUP | PERF_FORMAT_LOST,
		PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
			PERF_FORMAT_LOST,
		PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID | PERF_FORMAT_LOST,
	};
	int n = 0;

	for (int w = 0; w < 2; w++) {
		for (size_t f = 0; f < sizeof(rfs) / sizeof(rfs[0]); f++) {
			for (int variant = 0; variant < 8; variant++) {
				struct tally_record_layout lay = {
					.sample_type = w ? (all & ~(uint64_t)PERF_SAMPLE_WEIGHT) |
						       PERF_SAMPLE_WEIGHT_STRUCT : all,
					.read_format = rfs[f],
					.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
						(variant & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0),
					.sample_regs_user = 0xff00ff, .sample_regs_intr = 0x1,
				};
				struct sv v = sv_rich;

				if (variant & 2) {	/* abi NONE: no regs follow */
					v.regs_abi_user = 0;
					v.regs_abi_intr = 0;
				}
				if (variant & 4) {	/* size 0: no data, no dyn_size */
					v.stack_size = 0;
					v.raw_size = 4;	/* the smallest padded RAW: 4 + 4 */
					v.group_nr = 0;
					v.callchain_nr = 0;
					v.branch_nr = 0;
					v.aux_size = 0;
				}
				sample_roundtrip(&lay, &v);
				n++;
			}
		}
	}
	assert_int_equal(n, 2 * 9 * 8);
}

/*
 * The layouts of u64 slots around a call chain and a branch stack (no
 * READ, RAW, regs, stack or AUX), which a shorter path decodes: all of
 * their bits, WEIGHT or WEIGHT_STRUCT, hw_idx or not, empty and full
 * arrays, and c2c's and a branch file's layouts, each value and every
 * truncation and extension as the cursor's path has them.
 */
static void test_sample_slots(void **state)
{
	const uint64_t slow = PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_REGS_USER |
			      PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX;
	const uint64_t all = ((uint64_t)PERF_SAMPLE_WEIGHT_STRUCT * 2 - 1) & ~slow &
			     ~(uint64_t)PERF_SAMPLE_WEIGHT_STRUCT;
	const uint64_t types[] = {
		all,
		(all & ~(uint64_t)PERF_SAMPLE_WEIGHT) | PERF_SAMPLE_WEIGHT_STRUCT,
		/* perf c2c record's: no arrays */
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_PHYS_ADDR,
		/* record -b -d -W: a branch stack between the slots */
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK |
			PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC,
		/* record -g: a chain, nothing after it */
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN |
			PERF_SAMPLE_PERIOD,
		/* nothing before the chain, the tail alone after it */
		PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_CODE_PAGE_SIZE,
	};
	int n = 0;

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		for (int variant = 0; variant < 4; variant++) {
			struct tally_record_layout lay = {
				.sample_type = types[k],
				.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
					(variant & 1 ? PERF_SAMPLE_BRANCH_HW_INDEX : 0),
				.sample_id_all = true,
			};
			struct sv v = sv_rich;

			if (variant & 2) {
				v.callchain_nr = 0;
				v.branch_nr = 0;
			} else {
				v.branch_nr = 32;
			}
			sample_roundtrip(&lay, &v);
			n++;
		}
	}
	assert_int_equal(n, 6 * 4);
}

/*
 * perf record -g's layout (IP|TID|TIME|CALLCHAIN|PERIOD, 0x127) and a
 * tracepoint's (TID|PERIOD|RAW) written out by hand, word by word, at the
 * man page's offsets: independent of build_sample.
 */
static void test_sample_by_hand(void **state)
{
	uint64_t g[8] = {
		9ull | 2ull << 32 | 64ull << 48,	/* type 9, misc 2 (user), size 64 */
		0x401136,				/* ip */
		1234ull | 1235ull << 32,		/* pid, tid */
		987654321,				/* time */
		100,					/* period: before the callchain */
		2,					/* callchain nr */
		0xfffffffffffffe00,			/* PERF_CONTEXT_USER */
		0x401136,
	};
	uint64_t tp[7] = {
		9ull | 56ull << 48,			/* size 56 */
		7ull | 256ull << 32,			/* pid 7, tid 256 */
		5,					/* period */
		28ull | 0xaabbccddull << 32,		/* raw size 28, data from +4 */
		0x1122334455667788, 0x99aabbccddeeff00, 0,
	};
	struct tally_record_layout lay = { .sample_type = 0x127 };
	struct tally_record rec;

	assert_int_equal(tally_record__parse(g, sizeof(g), &lay, &rec), 0);
	assert_int_equal(rec.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(rec.u.sample.ip, 0x401136);
	assert_int_equal(rec.u.sample.pid, 1234);
	assert_int_equal(rec.u.sample.tid, 1235);
	assert_int_equal(rec.u.sample.time, 987654321);
	assert_int_equal(rec.u.sample.period, 100);
	assert_int_equal(rec.u.sample.callchain.nr, 2);
	assert_ptr_equal(rec.u.sample.callchain.ips, &g[6]);
	assert_int_equal(rec.u.sample.callchain.ips[0], PERF_CONTEXT_USER);
	assert_int_equal(rec.u.sample.callchain.ips[1], 0x401136);

	lay.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	assert_int_equal(tally_record__parse(tp, sizeof(tp), &lay, &rec), 0);
	assert_int_equal(rec.u.sample.pid, 7);
	assert_int_equal(rec.u.sample.tid, 256);
	assert_int_equal(rec.u.sample.period, 5);
	assert_int_equal(rec.u.sample.raw.size, 28);
	assert_ptr_equal(rec.u.sample.raw.data, (const char *)&tp[3] + 4);
	assert_memory_equal(rec.u.sample.raw.data, "\xdd\xcc\xbb\xaa\x88\x77", 6);
	assert_int_equal(tally_record__parse(tp, sizeof(tp) - 1, &lay, &rec), -EBADMSG);
	/*
	 * RAW 4 + 8 = 12 bytes and a 4-byte AUX after it fill a record of 32:
	 * only the RAW padding rule refuses it (it keeps later fields aligned).
	 */
	{
		uint64_t ra[4] = {
			9ull | 32ull << 48,
			8ull | 0x11111111ull << 32,		/* raw size 8, data... */
			0x22222222ull | 4ull << 32,		/* ...data, aux size 4 (low half) */
			0x4141414100000000ull,			/* aux size (high half), aux data */
		};

		lay.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_AUX;
		assert_int_equal(tally_record__parse(ra, sizeof(ra), &lay, &rec), -EBADMSG);
		/* the same bytes with RAW 12 (16, aligned) and AUX 0 decode */
		ra[1] = 12ull | 0x11111111ull << 32;
		ra[3] = 0;
		assert_int_equal(tally_record__parse(ra, sizeof(ra), &lay, &rec), 0);
		assert_int_equal(rec.u.sample.raw.size, 12);
		assert_int_equal(rec.u.sample.aux.size, 0);
		lay.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW;
	}
	/* a RAW size that breaks the kernel's padding (4 + 24 is not a multiple of 8) */
	tp[3] = 24;
	assert_int_equal(tally_record__parse(tp, sizeof(tp), &lay, &rec), -EBADMSG);
}

/* Counts that would overflow a multiplication or run past the record. */
static void test_sample_bad_counts(void **state)
{
	const uint64_t huge[] = { UINT64_MAX, UINT64_MAX / 8 + 1, UINT64_MAX / 24 + 1,
				  UINT64_MAX / 16 + 1, 1ull << 61, 3 };
	const uint64_t types[] = { PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_BRANCH_STACK,
				   PERF_SAMPLE_READ, PERF_SAMPLE_STACK_USER, PERF_SAMPLE_AUX };

	for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
		for (size_t h = 0; h < sizeof(huge) / sizeof(huge[0]); h++) {
			struct tally_record_layout lay = {
				.sample_type = types[t],
				.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
					       PERF_FORMAT_LOST,
			};
			struct tally_record rec;
			struct rb r;

			begin(&r, PERF_RECORD_SAMPLE, 0);
			u64(&r, huge[h] * (types[t] == PERF_SAMPLE_STACK_USER ? 8 : 1));
			u64(&r, 0);	/* 16 bytes follow: fewer than any count asks */
			u64(&r, 0);
			finish(&r);
			assert_int_equal(parse_exact(r.b, r.n, &lay, &rec), -EBADMSG);
		}
	}
}

static void test_sample_stack_rules(void **state)
{
	struct tally_record_layout lay = { .sample_type = PERF_SAMPLE_STACK_USER };
	struct tally_record rec;
	struct rb r;

	/* dyn_size may not exceed the bytes dumped */
	begin(&r, PERF_RECORD_SAMPLE, 0);
	u64(&r, 8); u64(&r, 0); u64(&r, 9);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
	r.b[24] = 8;
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
	assert_int_equal(rec.u.sample.stack_user.dyn_size, 8);
	/* a dump size the kernel would have rounded to 8 */
	begin(&r, PERF_RECORD_SAMPLE, 0);
	u64(&r, 4); u64(&r, 0); u64(&r, 4);
	finish(&r);
	assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), -EBADMSG);
}

/* ---- ids -------------------------------------------------------------- */

static void test_record_id(void **state)
{
	struct tally_record_layout lay;
	struct tally_record rec;
	struct rb r;
	uint64_t id;

	/* IDENTIFIER: first u64 of a sample, last of a trailer */
	lay = (struct tally_record_layout){ .sample_type = ALL_SID | PERF_SAMPLE_IP,
					    .read_format = READ_RF, .sample_id_all = true };
	build_sample(&r, &lay, &sv_rich);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), 0);
	assert_int_equal(id, V(1));
	for (uint32_t t = 1; t <= 21; t++) {
		if (t == PERF_RECORD_SAMPLE)
			continue;
		build_kernel_record(&r, t, 0, &lay);
		id = 0;
		assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), 0);
		assert_int_equal(id, SID_ID);
		/* the same id the full decoder finds */
		assert_int_equal(tally_record__parse(r.b, r.n, &lay, &rec), 0);
		assert_int_equal(rec.sid.id, id);
	}
	/* ID alone: after IP, TID, TIME, ADDR in a sample; after TID, TIME in a trailer */
	lay.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			  PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	build_sample(&r, &lay, &sv_rich);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), 0);
	assert_int_equal(id, V(1));
	for (uint32_t t = 1; t <= 21; t++) {
		if (t == PERF_RECORD_SAMPLE)
			continue;
		build_kernel_record(&r, t, 0, &lay);
		assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), 0);
		assert_int_equal(id, SID_ID_SLOT);
	}
	/* no sample_id_all: only samples carry an id */
	lay.sample_id_all = false;
	build_kernel_record(&r, PERF_RECORD_COMM, 0, &lay);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -ENOENT);
	/* no ID bit at all */
	lay.sample_type = PERF_SAMPLE_IP;
	build_sample(&r, &lay, &sv_rich);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -ENOENT);
	/* user types carry no trailer */
	lay = (struct tally_record_layout){ .sample_type = ALL_SID, .sample_id_all = true };
	begin(&r, 68, 0);
	finish(&r);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -ENOENT);
	/* too short for the id the layout promises */
	begin(&r, PERF_RECORD_SAMPLE, 0);
	finish(&r);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -EBADMSG);
	begin(&r, PERF_RECORD_SWITCH, 0);
	u64(&r, 1);
	finish(&r);
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -EBADMSG);
	assert_int_equal(tally_record__id(r.b, 4, &lay, &id), -EBADMSG);
	r.b[6] = 200;	/* size past len */
	assert_int_equal(tally_record__id(r.b, r.n, &lay, &id), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_layout_from_attr),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_kernel_records),
		cmocka_unit_test(test_trailer_mismatch),
		cmocka_unit_test(test_bpf_event_longer),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_other_types),
		cmocka_unit_test(test_sample_each_bit),
		cmocka_unit_test(test_sample_all_bits),
		cmocka_unit_test(test_sample_slots),
		cmocka_unit_test(test_sample_by_hand),
		cmocka_unit_test(test_sample_bad_counts),
		cmocka_unit_test(test_sample_stack_rules),
		cmocka_unit_test(test_record_id),
		cmocka_unit_test(test_record_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
