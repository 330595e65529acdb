// SPDX-License-Identifier: MIT
/* perf's build-id cache directory: perf's config files' [buildid] dir, else ~/.debug. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "buildid_dir.h"

static char tmp[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(tmp, sizeof(tmp), "/tmp/tally-bdir.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	setenv("HOME", tmp, 1);
	return 0;
}

static int teardown(void **state)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/.perfconfig", tmp);
	unlink(p);
	snprintf(p, sizeof(p), "%s/cfg", tmp);
	unlink(p);
	rmdir(tmp);
	return 0;
}

static void test_perf_config_only(void **state)
{
	char cfg[128], home_cfg[128], buf[4096], want[128];

	if (!access("/etc/perfconfig", F_OK))
		skip();		/* the machine's own config would weigh in */
	snprintf(cfg, sizeof(cfg), "%s/cfg", tmp);
	snprintf(home_cfg, sizeof(home_cfg), "%s/.perfconfig", tmp);
	/* other sections' dir, comments, case, quotes: perf's config syntax */
	put(cfg, "[core]\n\tdir = /not/this\n[BuildId]\n# dir = /nor/this\n"
		 "\t; dir = /nor/that\n\tDir = \"/the/cache\"  \n[other]\ndir = /no\n");
	put(home_cfg, "[buildid]\ndir = /home/one\n");
	setenv("PERF_CONFIG", cfg, 1);
	assert_int_equal(tally__buildid_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/the/cache");
	/* PERF_CONFIG empty: no file at all, ~/.perfconfig neither */
	setenv("PERF_CONFIG", "", 1);
	snprintf(want, sizeof(want), "%s/.debug", tmp);
	assert_int_equal(tally__buildid_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* unset: ~/.perfconfig */
	unsetenv("PERF_CONFIG");
	assert_int_equal(tally__buildid_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/one");
	/* a [buildid] without dir: ~/.debug */
	put(home_cfg, "[buildid]\n\tcache = x\n");
	assert_int_equal(tally__buildid_dir(buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* too small a buffer, no HOME */
	assert_int_equal(tally__buildid_dir(buf, 4), -ENAMETOOLONG);
	unsetenv("HOME");
	assert_int_equal(tally__buildid_dir(buf, sizeof(buf)), -ENOENT);
	setenv("HOME", tmp, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_perf_config_only, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
