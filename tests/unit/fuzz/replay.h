// SPDX-License-Identifier: MIT
/*
 * The replay loop the corpus tests share: every file of fuzz/corpus/NAME,
 * in name order, through a fuzz target's one-input function, its checks
 * as cmocka assertions. Include after <cmocka.h> and the target's source.
 */
#ifndef TALLY_TESTS_FUZZ_REPLAY_H
#define TALLY_TESTS_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLAY_MAX (4 << 20)	/* libFuzzer's default -max_len is far below */

static int replay_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Feeds every input to one and returns how many there were. Where kinds
 * is given, kinds[first byte % nkinds] counts the inputs of each kind
 * (the targets pick a kind from the first byte).
 */
static int replay_dir(const char *name, int (*one)(const uint8_t *, size_t),
		      int *kinds, int nkinds)
{
	char dir[256], path[512], **names = NULL;
	struct dirent *de;
	int n = 0, cap = 0;
	uint8_t *buf;
	DIR *d;

	snprintf(dir, sizeof(dir), "fuzz/corpus/%s", name);
	d = opendir(dir);
	if (!d)
		fail_msg("no %s: run from the top of the tree", dir);
	while ((de = readdir(d))) {
		/* a corpus may say how it was made in a README: not an input */
		if (de->d_name[0] == '.' || !strncmp(de->d_name, "README", 6))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, (size_t)cap * sizeof(*names));
			assert_non_null(names);
		}
		names[n] = strdup(de->d_name);
		assert_non_null(names[n]);
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof(*names), replay_cmp_str);	/* a stable order */
	buf = malloc(REPLAY_MAX);
	assert_non_null(buf);
	for (int i = 0; i < n; i++) {
		FILE *f;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "rb");
		assert_non_null(f);
		len = fread(buf, 1, REPLAY_MAX, f);
		fclose(f);
		print_message("# %s (%zu bytes)\n", path, len);
		one(buf, len);
		if (kinds && len)
			kinds[buf[0] % nkinds]++;
		free(names[i]);
	}
	free(names);
	free(buf);
	return n;
}

#endif
