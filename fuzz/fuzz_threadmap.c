// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the thread list parser ("PID[,PID...]") through
 * tally_thread_map__new_list(text, all_tasks = false). Which pids exist
 * depends on the machine, so the target checks what holds either way:
 * NULL with errno EINVAL/ESRCH/ENOMEM, or a map of 1..(commas + 1)
 * distinct positive tids, each one written in the text, with a
 * NUL-terminated comm; and text that is not digits-and-commas (or has an
 * empty item) never parses.
 *
 *   make -f fuzz/Makefile && build-fuzz/fuzz_threadmap fuzz/corpus/threadmap
 * Every file of fuzz/corpus/threadmap is replayed by `make test`
 * (tests/unit/test_fuzz_replay_engine.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/threadmap.h>

#include "fuzz_check.h"

#define THREADMAP_MAX_INPUT	4096

/* Is tid one of the comma-separated decimal items of s? */
static int threadmap_listed(const char *s, pid_t tid)
{
	const char *p = s;

	while (*p) {
		long v = 0;

		while (*p >= '0' && *p <= '9' && v <= 0x7fffffff)
			v = v * 10 + (*p++ - '0');
		if (v == tid)
			return 1;
		while (*p && *p != ',')
			p++;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Digits and commas only, no empty item: the only text that can parse. */
static int threadmap_well_formed(const char *s)
{
	const char *p = s;

	if (!*p)
		return 0;
	for (;;) {
		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

static int fuzz_threadmap_one(const uint8_t *data, size_t size)
{
	struct tally_thread_map *m;
	size_t items = 1;
	char *s;
	int nr;

	if (size > THREADMAP_MAX_INPUT)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (const char *p = s; *p; p++)
		items += *p == ',';

	errno = 0;
	m = tally_thread_map__new_list(s, false);
	if (!m) {
		FUZZ_CHECK(errno == EINVAL || errno == ESRCH || errno == ENOMEM);
		free(s);
		return 0;
	}
	FUZZ_CHECK(threadmap_well_formed(s));
	nr = tally_thread_map__nr(m);
	FUZZ_CHECK(nr >= 1 && (size_t)nr <= items);
	for (int i = 0; i < nr; i++) {
		pid_t tid = tally_thread_map__pid(m, i);
		const char *comm = tally_thread_map__comm(m, i);

		FUZZ_CHECK(tid > 0);
		FUZZ_CHECK(threadmap_listed(s, tid));
		for (int j = 0; j < i; j++)
			FUZZ_CHECK(tally_thread_map__pid(m, j) != tid);
		FUZZ_CHECK(comm != NULL && strnlen(comm, 64) < 64);	/* kworker names exceed TASK_COMM_LEN */
	}
	FUZZ_CHECK(tally_thread_map__pid(m, nr) == -1);
	FUZZ_CHECK(tally_thread_map__pid(m, -1) == -1);
	FUZZ_CHECK(tally_thread_map__get(m) == m);
	tally_thread_map__put(m);
	tally_thread_map__put(m);
	free(s);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_threadmap_one(data, size);
}
#endif
