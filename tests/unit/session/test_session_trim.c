// SPDX-License-Identifier: MIT
/*
 * tally_session__trim, a long session's bound: over a live stream (this
 * process's rings, inherited by the children it starts) where many
 * processes start and exit, the session's machine keeps every thread
 * until trims say otherwise, and two trims after their EXITs (one trim's
 * grace for late samples) only the living are left, their maps intact.
 * The machine's own call (tally_machine__release_exited) is checked on
 * made-up records too: a tid used again is a new thread, not released.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>

#define CHILDREN 40

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static int append(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct buf *b = ctx;

	for (int i = 0; i < n; i++) {
		if (b->len + iov[i].iov_len > b->cap) {
			b->cap = (b->len + iov[i].iov_len) * 2;
			assert_non_null(b->p = realloc(b->p, b->cap));
		}
		memcpy(b->p + b->len, iov[i].iov_base, iov[i].iov_len);
		b->len += iov[i].iov_len;
	}
	return 0;
}

struct seen {
	int32_t pids[CHILDREN];
	int exits;
};

static int on_record(struct tally_session *s, const struct perf_event_header *h,
		     const struct tally_record *rec, void *ctx)
{
	struct seen *sn = ctx;

	/* the children's: a thread of this process (the session's kallsyms reader) exits too */
	for (int i = 0; h->type == PERF_RECORD_EXIT && i < CHILDREN; i++)
		if ((int32_t)rec->u.task.pid == sn->pids[i])
			sn->exits++;
	return 0;
}

static void test_live_exits(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 99);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	struct seen sn = { .exits = 0 };
	TALLY_OPTS(tally_session_opts, so, .record = on_record, .ctx = &sn);
	struct tally_session *s;
	struct tally_machine *m;
	struct buf b = { 0 };
	int32_t self = getpid();
	int before, maps;

	(void)state;
	assert_non_null(l);
	assert_true(tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) >= 0);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	if (tally_evlist__open(l, cpus, thr, NULL)) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		skip();		/* perf_event_paranoid: no events here */
	}
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_non_null(s = tally_session__open_evlist(l, &so));
	assert_int_equal(tally_session__synthesize(s, &self, 1), 0);
	m = tally_session__machine(s);
	maps = tally_machine__nr_maps(m, self);
	assert_true(maps > 0);
	tally_evlist__enable(l);
	for (int i = 0; i < CHILDREN; i++) {
		pid_t c = fork();

		assert_true(c >= 0);
		if (!c)
			_exit(0);
		sn.pids[i] = c;
		assert_int_equal(waitpid(c, NULL, 0), c);
	}
	tally_evlist__disable(l);
	assert_true(tally_evlist__drain(l, NULL, append, &b) >= 0);
	assert_int_equal(tally_session__feed(s, b.p, b.len), 0);
	assert_int_equal(tally_session__feed(s, NULL, 0), 0);
	assert_int_equal(tally_session__feed(s, NULL, 0), 0);
	assert_int_equal(sn.exits, CHILDREN);

	/* every child is known, dead */
	before = tally_machine__nr_threads(m);
	assert_true(before >= CHILDREN + 1);
	for (int i = 0; i < CHILDREN; i++)
		assert_int_equal(tally_machine__thread_dead(m, sn.pids[i]), 1);
	/* the first trim after their EXITs: a grace, for samples that come late */
	assert_int_equal(tally_session__trim(s), 0);
	assert_int_equal(tally_machine__nr_threads(m), before);
	/*
	 * the second: only the living (the session's own kallsyms reader, a
	 * thread of this process, may have exited in the window too)
	 */
	assert_int_equal(tally_session__trim(s), 0);
	assert_true(tally_machine__nr_threads(m) <= before - CHILDREN);
	assert_true(tally_machine__nr_threads(m) >= 1);
	for (int i = 0; i < CHILDREN; i++)
		assert_int_equal(tally_machine__thread_dead(m, sn.pids[i]), -ENOENT);
	assert_int_equal(tally_machine__thread_dead(m, self), 0);
	assert_int_equal(tally_machine__nr_maps(m, self), maps);
	assert_int_equal(tally_session__trim(NULL), -EINVAL);

	free(b.p);
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
}

static void test_machine_release(void **state)
{
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = { .pid = 100, .tid = 100, .start = 0x400000, .len = 0x1000,
				       .filename = "/bin/true" };

	(void)state;
	assert_non_null(m);
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	/* 100's thread 101, and two processes forked, one exiting */
	assert_int_equal(tally_machine__fork(m, 100, 101, 100, 100), 0);
	assert_int_equal(tally_machine__fork(m, 200, 200, 100, 100), 0);
	assert_int_equal(tally_machine__fork(m, 300, 300, 100, 100), 0);
	assert_int_equal(tally_machine__nr_threads(m), 4);
	assert_int_equal(tally_machine__exit(m, 100, 101), 0);
	assert_int_equal(tally_machine__exit(m, 200, 200), 0);
	assert_int_equal(tally_machine__release_exited(m), 0);
	assert_int_equal(tally_machine__nr_threads(m), 4);
	/* 300 exits after the first call, and 200's pid is used again */
	assert_int_equal(tally_machine__exit(m, 300, 300), 0);
	assert_int_equal(tally_machine__fork(m, 200, 200, 100, 100), 0);
	/* 101 goes (its process's maps stay with 100); 200 is a new process; 300 waits a call */
	assert_int_equal(tally_machine__release_exited(m), 1);
	assert_int_equal(tally_machine__nr_threads(m), 3);
	assert_int_equal(tally_machine__thread_dead(m, 101), -ENOENT);
	assert_int_equal(tally_machine__thread_dead(m, 200), 0);
	assert_int_equal(tally_machine__thread_dead(m, 300), 1);
	assert_int_equal(tally_machine__nr_maps(m, 100), 1);
	assert_int_equal(tally_machine__nr_maps(m, 200), 1);
	assert_int_equal(tally_machine__release_exited(m), 1);
	assert_int_equal(tally_machine__nr_threads(m), 2);
	assert_int_equal(tally_machine__nr_maps(m, 100), 1);
	assert_int_equal(tally_machine__release_exited(NULL), -EINVAL);
	tally_machine__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_machine_release),
		cmocka_unit_test(test_live_exits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
