// SPDX-License-Identifier: MIT
/*
 * Replays every input of the engine's fuzz corpora (seeds and every
 * crasher the fuzzers found) through the very code the libFuzzer targets
 * run: this file includes fuzz/fuzz_{cpumap,threadmap,counts,ring,record,
 * data_read,trace_fmt}.c with
 * TALLY_FUZZ_REPLAY set (no LLVMFuzzerTestOneInput, no fuzzer runtime)
 * and their checks turned into cmocka assertions. Each target checks the
 * parser against its own model of the format (see the targets' headers):
 *   cpumap    sorted/unique/bounded maps that round-trip through snprint
 *   threadmap only well-formed lists parse, to distinct listed tids
 *   counts    tally__parse_read lands exactly the man page's layout
 *   ring      tally_mmap__read_event returns exactly the records a
 *             reference walk finds, and data_tail/lost follow the protocol
 *   record    tally_record__parse stays inside the record, rebuilds the
 *             sample and trailer bytes it decoded, agrees with __id
 *   trace_fmt a perf.data file's tracing data parsed and its tracepoint
 *             samples printed through libtraceevent without a fault, the
 *             damaged formats named (the files of issue 17 among them)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define TALLY_FUZZ_REPLAY 1
#define FUZZ_CHECK(cond) assert_true(cond)
#include "../../../fuzz/fuzz_cpumap.c"
#include "../../../fuzz/fuzz_threadmap.c"
#include "../../../fuzz/fuzz_counts.c"
#include "../../../fuzz/fuzz_ring.c"
#include "../../../fuzz/fuzz_record.c"
#include "../../../fuzz/fuzz_data_read.c"
#include "../../../fuzz/fuzz_trace_fmt.c"

#include "replay.h"

static void test_cpumap(void **state)
{
	/* The seeds alone are 26 inputs: an empty corpus would test nothing. */
	assert_true(replay_dir("cpumap", fuzz_cpumap_one, NULL, 0) >= 20);
}

static void test_threadmap(void **state)
{
	assert_true(replay_dir("threadmap", fuzz_threadmap_one, NULL, 0) >= 15);
}

static void test_counts(void **state)
{
	assert_true(replay_dir("counts", fuzz_counts_one, NULL, 0) >= 15);
}

static void test_ring(void **state)
{
	assert_true(replay_dir("ring", fuzz_ring_one, NULL, 0) >= 10);
	/* Not only rejections: whole records, records that wrap, bad ones. */
	print_message("# %lu records read, %lu wrapped, %lu corrupt\n", ring_records_seen,
		      ring_records_wrapped, ring_records_bad);
	assert_true(ring_records_seen >= 10);
	assert_true(ring_records_wrapped >= 1);
	assert_true(ring_records_bad >= 1);
}

static void test_record(void **state)
{
	assert_true(replay_dir("record", fuzz_record_one, NULL, 0) >= 25);
	/* Every kernel type decoded at least once, samples, trailers, rejections. */
	print_message("# %lu decoded (%lu samples, %lu trailers), %lu bad, %lu bad layouts, "
		      "types %#lx\n", rec_ok, rec_samples, rec_sids, rec_bad, rec_inval,
		      rec_types_seen);
	assert_int_equal(rec_types_seen, ((1ul << 22) - 1) & ~1ul);
	assert_true(rec_samples >= 4);
	assert_true(rec_sids >= 15);
	assert_true(rec_bad >= 2);
	assert_true(rec_inval >= 1);
}

static void test_data_read(void **state)
{
	assert_true(replay_dir("data_read", fuzz_data_read_one, NULL, 0) >= 6);
	/* perf-written records read, and corrupt or cut files stopped */
	assert_true(dr_files_opened >= 4);
	assert_true(dr_records_seen >= 10);
	assert_true(dr_errors_seen >= 2);
}

static void test_trace_fmt(void **state)
{
	assert_true(replay_dir("trace_fmt", fuzz_trace_fmt_one, NULL, 0) >= 9);
	/* good and damaged formats, samples printed, a bad __data_loc refused */
	print_message("# %lu tracing data parsed, %lu damaged formats, %lu samples printed, "
		      "%lu refused\n", tf_parsed, tf_damaged, tf_printed, tf_refused);
	assert_true(tf_parsed >= 9);
	assert_true(tf_damaged >= 6);
	assert_true(tf_printed >= 100);
	assert_true(tf_refused >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpumap),
		cmocka_unit_test(test_threadmap),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_data_read),
		cmocka_unit_test(test_trace_fmt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
