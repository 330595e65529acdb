// SPDX-License-Identifier: MIT
/*
 * tally stat -a --per-thread stands on tally_thread_map__new_all() (every
 * tid in /proc) and on the open skipping threads that exit between the
 * listing and the open (ESRCH).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>

static pthread_barrier_t bar;

static void *parked(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pthread_barrier_wait(&bar);	/* started */
	pthread_barrier_wait(&bar);	/* may exit */
	return NULL;
}

static int find(const struct tally_thread_map *m, pid_t tid)
{
	for (int i = 0; i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) == tid)
			return i;
	return -1;
}

/* Our threads and another process's are listed, once each, sorted. */
static void test_new_all(void **state)
{
	struct tally_thread_map *m;
	pthread_t th;
	pid_t tid = 0, child;
	int i;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	pthread_barrier_init(&bar, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, parked, &tid), 0);
	pthread_barrier_wait(&bar);

	m = tally_thread_map__new_all();
	assert_non_null(m);
	assert_true(find(m, getpid()) >= 0);
	i = find(m, tid);
	assert_true(i >= 0);
	assert_true(find(m, child) >= 0);
	assert_true(find(m, 1) >= 0);		/* init, not ours */
	assert_true(find(m, -1) < 0);		/* no "any thread" entry */
	for (int k = 1; k < tally_thread_map__nr(m); k++)
		assert_true(tally_thread_map__pid(m, k - 1) < tally_thread_map__pid(m, k));
	/* the comm is read for every entry */
	assert_true(tally_thread_map__comm(m, find(m, getpid()))[0] != '\0');
	tally_thread_map__put(m);

	pthread_barrier_wait(&bar);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&bar);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

/*
 * A process in the map that has exited (and been reaped) by the open is
 * skipped: the open succeeds on the others, with no fd for the dead one.
 */
static void test_open_skips_exited(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *m;
	struct tally_cpu_map *any = tally_cpu_map__new_any();
	struct tally_evsel *e;
	pid_t child;
	int err, i, me;

	(void)state;
	assert_non_null(l);
	assert_non_null(any);
	assert_int_equal(tally_evlist__add_parsed(l, "task-clock", NULL, NULL), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	m = tally_thread_map__new_all();
	assert_non_null(m);
	i = find(m, child);
	me = find(m, getpid());
	assert_true(i >= 0 && me >= 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	err = tally_evlist__open(l, any, m, NULL);
	if (err == -ENOSYS)
		print_message("# SKIP no perf_event_open here (qemu-user)\n");
	if (err == -EACCES || err == -EPERM || err == -ENOSYS) {
		tally_evlist__free(l);
		tally_thread_map__put(m);
		tally_cpu_map__put(any);
		skip();
	}
	assert_int_equal(err, 0);
	e = tally_evlist__first(l);
	assert_int_equal(tally_evsel__nr_threads(e), tally_thread_map__nr(m));
	assert_true(tally_evsel__fd(e, 0, i) < 0);	/* the exited one */
	assert_true(tally_evsel__fd(e, 0, me) >= 0);
	tally_evlist__free(l);
	tally_thread_map__put(m);
	tally_cpu_map__put(any);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_all),
		cmocka_unit_test(test_open_skips_exited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
