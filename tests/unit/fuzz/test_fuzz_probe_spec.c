// SPDX-License-Identifier: MIT
/*
 * Replays every input of fuzz/corpus/probe_spec (seeds and any crasher
 * the fuzzer finds) through fuzz/fuzz_probe_spec.c's checks, included
 * with TALLY_FUZZ_REPLAY set and its checks as cmocka assertions.
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
#include "../../../fuzz/fuzz_probe_spec.c"

#include "replay.h"

static void test_probe_spec(void **state)
{
	assert_true(replay_dir("probe_spec", fuzz_probe_spec_one, NULL, 0) >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
