// SPDX-License-Identifier: MIT
/* The other byte order: attrs, samples and side-band records as a
 * big-endian writer lays them out, brought back field by field; records
 * that lie about their contents stay inside their bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "data_swap.h"

/* A big-endian writer: each value in its own width. */
struct w {
	uint8_t b[512];
	size_t n;
};

static void be(struct w *w, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
		w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void test_attr_flags_mirrored(void **state)
{
	struct perf_event_attr a;
	struct w w = { .n = 0 };

	(void)state;
	be(&w, PERF_TYPE_SOFTWARE, 4);
	be(&w, sizeof(a), 4);
	be(&w, PERF_COUNT_SW_CPU_CLOCK, 8);
	be(&w, 20000, 8);
	be(&w, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 8);
	be(&w, PERF_FORMAT_ID, 8);
	/* disabled (bit 0) and sample_id_all (bit 18): a big-endian compiler
	 * puts bit k at byte k/8 counted from the top of it */
	w.b[w.n++] = 0x80;
	w.b[w.n++] = 0;
	w.b[w.n++] = 0x20;
	memset(w.b + w.n, 0, 5);
	w.n += 5;
	be(&w, 7, 4);			/* wakeup_events */
	be(&w, 0, 4);
	be(&w, 0x1122334455667788ull, 8);	/* config1 */
	be(&w, 0, 8);
	be(&w, 0, 8);
	be(&w, 0xff0ull, 8);		/* sample_regs_user */
	be(&w, 8192, 4);		/* sample_stack_user */
	be(&w, (uint32_t)-1, 4);	/* clockid */
	memset(w.b + w.n, 0, sizeof(a) - w.n);
	memcpy(&a, w.b, sizeof(a));
	tally__swap_attr(&a, sizeof(a));
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.sample_period, 20000);
	assert_int_equal(a.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(a.read_format, PERF_FORMAT_ID);
	assert_int_equal(a.disabled, 1);
	assert_int_equal(a.sample_id_all, 1);
	assert_int_equal(a.inherit, 0);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(a.wakeup_events, 7);
	assert_int_equal(a.config1, 0x1122334455667788ull);
	assert_int_equal(a.sample_regs_user, 0xff0);
	assert_int_equal(a.sample_stack_user, 8192);
	assert_int_equal(a.clockid, -1);
}

static struct perf_event_attr sample_attr(void)
{
	struct perf_event_attr a = { .size = sizeof(a) };

	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.sample_id_all = 1;
	return a;
}

static void test_sample_fields(void **state)
{
	struct perf_event_attr a = sample_attr();
	struct w w = { .n = 0 };
	struct perf_event_header h;
	uint64_t v[8], id;
	uint32_t u[4];

	(void)state;
	be(&w, PERF_RECORD_SAMPLE, 4);
	be(&w, 2, 2);
	be(&w, 8 + 8 * 6 + 8 * 3 + 8, 2);
	be(&w, 42, 8);				/* identifier */
	be(&w, 0xffffffff81000000ull, 8);	/* ip */
	be(&w, 100, 4);				/* pid */
	be(&w, 101, 4);				/* tid */
	be(&w, 123456789, 8);			/* time */
	be(&w, 3, 4);				/* cpu */
	be(&w, 0, 4);
	be(&w, 20000, 8);			/* period */
	be(&w, 2, 8);				/* callchain nr */
	be(&w, 0x401000, 8);
	be(&w, 0x402000, 8);
	be(&w, 4, 4);				/* raw size, then bytes as written */
	memcpy(w.b + w.n, "\x01\x02\x03\x04", 4);
	w.n += 4;
	assert_true(tally__swap_sample_id(w.b, w.n, &a, &id));
	assert_int_equal(id, 42);
	memcpy(&h, w.b, sizeof(h));
	tally__swap_header(&h);
	memcpy(w.b, &h, sizeof(h));
	assert_int_equal(h.type, PERF_RECORD_SAMPLE);
	assert_int_equal(h.size, w.n);
	tally__swap_record(w.b, &a, NULL);
	memcpy(v, w.b + 8, 16);
	assert_int_equal(v[0], 42);
	assert_int_equal(v[1], 0xffffffff81000000ull);
	memcpy(u, w.b + 24, 8);
	assert_int_equal(u[0], 100);
	assert_int_equal(u[1], 101);
	memcpy(v, w.b + 32, 8);
	assert_int_equal(v[0], 123456789);
	memcpy(u, w.b + 40, 8);
	assert_int_equal(u[0], 3);
	memcpy(v, w.b + 48, 32);
	assert_int_equal(v[0], 20000);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 0x401000);
	assert_int_equal(v[3], 0x402000);
	memcpy(u, w.b + 80, 4);
	assert_int_equal(u[0], 4);
	assert_memory_equal(w.b + 84, "\x01\x02\x03\x04", 4);	/* raw bytes untouched */
}

static void test_comm_trailer(void **state)
{
	struct perf_event_attr a = sample_attr();
	struct w w = { .n = 0 };
	struct perf_event_header h;
	uint32_t u[2];
	uint64_t t, id;

	(void)state;
	be(&w, PERF_RECORD_COMM, 4);
	be(&w, 0, 2);
	be(&w, 8 + 8 + 8 + 32, 2);
	be(&w, 7, 4);
	be(&w, 8, 4);
	memcpy(w.b + w.n, "burn\0\0\0\0", 8);
	w.n += 8;
	/* trailer: tid, time, cpu, identifier */
	be(&w, 7, 4);
	be(&w, 8, 4);
	be(&w, 99, 8);
	be(&w, 1, 4);
	be(&w, 0, 4);
	be(&w, 5, 8);
	memcpy(&h, w.b, sizeof(h));
	tally__swap_header(&h);
	memcpy(w.b, &h, sizeof(h));
	tally__swap_record(w.b, NULL, &a);
	memcpy(u, w.b + 8, 8);
	assert_int_equal(u[0], 7);
	assert_int_equal(u[1], 8);
	assert_string_equal((char *)w.b + 16, "burn");
	memcpy(u, w.b + 24, 8);
	assert_int_equal(u[1], 8);
	memcpy(&t, w.b + 32, 8);
	assert_int_equal(t, 99);
	memcpy(&id, w.b + 48, 8);
	assert_int_equal(id, 5);
}

/* A callchain count far past the record: nothing written outside it. */
static void test_lying_sizes_stay_inside(void **state)
{
	struct perf_event_attr a = sample_attr();
	uint8_t *rec = malloc(40);
	struct w w = { .n = 0 };

	(void)state;
	be(&w, 0, 8);
	be(&w, 0, 8);
	be(&w, 0, 8);
	be(&w, 0, 8);
	be(&w, 0x7fffffffffffffffull, 8);	/* no room for the rest */
	memcpy(rec, w.b, 40);
	((struct perf_event_header *)rec)->type = PERF_RECORD_SAMPLE;
	((struct perf_event_header *)rec)->size = 40;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	tally__swap_record(rec, &a, NULL);	/* ASan: any write past 40 fails */
	((struct perf_event_header *)rec)->type = PERF_RECORD_MMAP2;
	tally__swap_record(rec, NULL, &a);
	((struct perf_event_header *)rec)->type = PERF_RECORD_NAMESPACES;
	tally__swap_record(rec, NULL, &a);
	((struct perf_event_header *)rec)->type = 74;	/* CPU_MAP */
	tally__swap_record(rec, NULL, &a);
	assert_false(tally__swap_feature(13, rec + 8, 32));	/* not a layout read here */
	assert_true(tally__swap_feature(12, rec + 8, 32));	/* EVENT_DESC, counts too big */
	free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attr_flags_mirrored),
		cmocka_unit_test(test_sample_fields),
		cmocka_unit_test(test_comm_trailer),
		cmocka_unit_test(test_lying_sizes_stay_inside),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
