// SPDX-License-Identifier: MIT
/*
 * Replays every input of fuzz/corpus/events (seeds and any crasher the
 * fuzzer ever found) through the event parser, with the same fixtures
 * and rules as fuzz/fuzz_events.c: each must parse to events, or fail
 * with a negative errno, a filled error whose column lies in the spec,
 * and a message that formats; the list is untouched on failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/events.h>

#define CORPUS	"fuzz/corpus/events"
#define MAX_SPEC 4096	/* the fuzz target's limit */

/* fuzz/fuzz_events.c's rule: probes only on this program's own file. */
static bool probe_path_ok(const char *spec)
{
	const char *p = spec;

	while ((p = strstr(p, "probe:"))) {
		if (strncmp(p + 6, "/proc/self/exe:", 15))
			return false;
		p += 6;
	}
	return true;
}

static void replay_one(const char *path, const char *root, int *parsed, int *failed)
{
	struct tally_parse_opts opts = {
		.sz = sizeof(opts), .sysfs_root = root,
		.tracefs_root = "tests/data/tracefs", .no_pfm = true,
	};
	struct tally_events evs = { 0 };
	struct tally_parse_error err;
	char spec[MAX_SPEC + 1], msg[1024];
	FILE *f = fopen(path, "rb");
	size_t n;
	int ret;

	assert_non_null(f);
	n = fread(spec, 1, sizeof(spec), f);
	fclose(f);
	if (n > MAX_SPEC)
		return;
	spec[n] = '\0';
	if (!probe_path_ok(spec))
		return;
	ret = tally_parse_events(spec, &opts, &evs, &err);
	if (ret == 0) {
		assert_true(evs.nr > 0);
		for (size_t i = 0; i < evs.nr; i++) {
			assert_non_null(evs.ev[i].name);
			assert_non_null(evs.ev[i].pmu);
		}
		(*parsed)++;
	} else {
		if (err.err != ret || !err.msg[0])
			print_error("%s: ret %d err %d msg '%s'\n", path, ret, err.err, err.msg);
		assert_true(ret < 0);
		assert_int_equal(err.err, ret);
		assert_true(err.msg[0] != '\0');
		assert_in_range(err.column, 0, strlen(spec));
		assert_int_equal(evs.nr, 0);
		assert_true(tally_parse_error__format(&err, spec, msg, sizeof(msg)) > 0);
		(*failed)++;
	}
	tally_events__clear(&evs);
}

static void test_replay(void **state)
{
	DIR *d = opendir(CORPUS);
	struct dirent *de;
	int parsed = 0, failed = 0;
	char path[4096];

	if (!d)
		fail_msg("no %s: run from the top of the tree", CORPUS);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CORPUS, de->d_name);
		/* as the fuzz target: the plain tree, then the hybrid one */
		replay_one(path, "tests/data/sysfs", &parsed, &failed);
		replay_one(path, "tests/data/sysfs-hybrid", &parsed, &failed);
	}
	closedir(d);
	print_message("# %d parses succeeded, %d rejected with an error\n", parsed, failed);
	/* the seeds hold both kinds; an empty corpus would test nothing */
	assert_true(parsed >= 10);
	assert_true(failed >= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
