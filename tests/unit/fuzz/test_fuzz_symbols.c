// SPDX-License-Identifier: MIT
/*
 * Replays every input of fuzz/corpus/symbols (seeds and every crasher the
 * fuzzer found) through fuzz/fuzz_symbols.c, its checks as cmocka
 * assertions: machine op streams, ELF files, kallsyms text, JIT maps.
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
#include "../../../fuzz/fuzz_symbols.c"

#include "replay.h"

static void test_replay(void **state)
{
	int kinds[4] = { 0 };

	assert_true(replay_dir("symbols", fuzz_symbols_one, kinds, 4) >= 6);
	/* every kind of input has seeds: an empty corpus would test nothing */
	for (int k = 0; k < 4; k++)
		assert_true(kinds[k] >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
