// SPDX-License-Identifier: MIT
/*
 * Replays every input of fuzz/corpus/disasm (seeds and every crasher the
 * fuzzer found) through fuzz/fuzz_disasm.c, its checks as cmocka
 * assertions: real code (compiled C, libc's string and x87 and AVX-512
 * code), truncated instructions, random bytes, in both syntaxes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define TALLY_FUZZ_REPLAY 1
#define FUZZ_CHECK(cond) assert_true(cond)
#include "../../../fuzz/fuzz_disasm.c"

#define REPLAY_MAX (4 << 20)

static void test_replay(void **state)
{
	const char *dir = "fuzz/corpus/disasm";
	struct dirent *de;
	uint8_t *buf = malloc(REPLAY_MAX);
	int n = 0, kinds[2] = { 0 };
	DIR *d = opendir(dir);

	if (!d)
		fail_msg("no %s: run from the top of the tree", dir);
	assert_non_null(buf);
	while ((de = readdir(d))) {
		char path[512];
		size_t len;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "rb");
		assert_non_null(f);
		len = fread(buf, 1, REPLAY_MAX, f);
		fclose(f);
		print_message("# %s (%zu bytes)\n", path, len);
		fuzz_disasm_one(buf, len);
		if (len)
			kinds[buf[0] & 1]++;
		n++;
	}
	closedir(d);
	free(buf);
	/* Every kind of input has seeds: an empty corpus would test nothing. */
	for (int k = 0; k < 2; k++)
		assert_true(kinds[k] >= 1);
	assert_true(n >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
