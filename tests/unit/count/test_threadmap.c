// SPDX-License-Identifier: MIT
/* Thread maps from pids, /proc/PID/task and lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/threadmap.h>

static void test_any(void **state)
{
	struct tally_thread_map *m = tally_thread_map__new_any();

	assert_non_null(m);
	assert_int_equal(tally_thread_map__nr(m), 1);
	assert_int_equal(tally_thread_map__pid(m, 0), -1);
	assert_int_equal(tally_thread_map__pid(m, 1), -1);
	assert_string_equal(tally_thread_map__comm(m, 0), "");
	tally_thread_map__put(m);
}

static void test_pid_comm(void **state)
{
	struct tally_thread_map *m = tally_thread_map__new_pid(getpid());
	char comm[64] = "";
	FILE *f = fopen("/proc/self/comm", "r");

	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	assert_non_null(m);
	assert_int_equal(tally_thread_map__nr(m), 1);
	assert_int_equal(tally_thread_map__pid(m, 0), getpid());
	assert_string_equal(tally_thread_map__comm(m, 0), comm);
	assert_ptr_equal(tally_thread_map__get(m), m);
	tally_thread_map__put(m);
	tally_thread_map__put(m);
	assert_null(tally_thread_map__new_pid(0));
	assert_int_equal(errno, EINVAL);
}

static pthread_barrier_t bar;

static void *parked(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pthread_barrier_wait(&bar);	/* started */
	pthread_barrier_wait(&bar);	/* may exit */
	return NULL;
}

/* The process's threads now: qemu-user (the arm64 tests) adds its own. */
static int nr_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_tasks(void **state)
{
	pthread_t th[2];
	pid_t tids[2];
	struct tally_thread_map *m;
	int found = 0, before = nr_tasks();

	pthread_barrier_init(&bar, NULL, 3);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, parked, &tids[i]), 0);
	pthread_barrier_wait(&bar);
	m = tally_thread_map__new_tasks(getpid());
	assert_non_null(m);
	assert_int_equal(tally_thread_map__nr(m), before + 2);
	/* The main thread's tid is the pid, and the list is sorted. */
	assert_int_equal(tally_thread_map__pid(m, 0), getpid());
	for (int i = 0; i < before + 2; i++) {
		pid_t t = tally_thread_map__pid(m, i);

		found += t == tids[0] || t == tids[1];
		if (i)
			assert_true(t > tally_thread_map__pid(m, i - 1));
	}
	assert_int_equal(found, 2);
	tally_thread_map__put(m);

	/* A list with all_tasks expands each pid to its threads. */
	{
		char list[64];

		snprintf(list, sizeof(list), "%d", (int)getpid());
		m = tally_thread_map__new_list(list, true);
		assert_non_null(m);
		assert_int_equal(tally_thread_map__nr(m), before + 2);
		tally_thread_map__put(m);
		m = tally_thread_map__new_list(list, false);
		assert_non_null(m);
		assert_int_equal(tally_thread_map__nr(m), 1);
		tally_thread_map__put(m);
	}
	pthread_barrier_wait(&bar);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bar);
}

static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void test_gone(void **state)
{
	pid_t p = dead_pid();
	char list[64];

	errno = 0;
	assert_null(tally_thread_map__new_tasks(p));
	assert_int_equal(errno, ESRCH);
	snprintf(list, sizeof(list), "%d,%d", (int)getpid(), (int)p);
	errno = 0;
	assert_null(tally_thread_map__new_list(list, false));
	assert_int_equal(errno, ESRCH);
}

static void test_list(void **state)
{
	static const char *const bad[] = { "", "abc", "1,,2", "1,", ",1", "-1", "1 2", "0",
					   "99999999999" };
	struct tally_thread_map *m;
	char list[64];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(tally_thread_map__new_list(bad[i], false));
		assert_int_equal(errno, EINVAL);
	}
	/* pid 1 exists everywhere; a repeated pid appears once, in order. */
	snprintf(list, sizeof(list), "%d,1,%d", (int)getpid(), (int)getpid());
	m = tally_thread_map__new_list(list, false);
	assert_non_null(m);
	assert_int_equal(tally_thread_map__nr(m), 2);
	assert_int_equal(tally_thread_map__pid(m, 0), getpid());
	assert_int_equal(tally_thread_map__pid(m, 1), 1);
	tally_thread_map__put(m);
}

/* A pid given twice (-p 1,1) is the same threads once, not "gone". */
static void test_repeated_pid(void **state)
{
	char list[64];
	struct tally_thread_map *once, *twice;

	snprintf(list, sizeof(list), "%d", (int)getpid());
	once = tally_thread_map__new_list(list, true);
	snprintf(list, sizeof(list), "%d,%d", (int)getpid(), (int)getpid());
	twice = tally_thread_map__new_list(list, true);
	assert_non_null(once);
	assert_non_null(twice);
	assert_int_equal(tally_thread_map__nr(twice), tally_thread_map__nr(once));
	tally_thread_map__put(once);
	tally_thread_map__put(twice);
	twice = tally_thread_map__new_list(list, false);
	assert_non_null(twice);
	assert_int_equal(tally_thread_map__nr(twice), 1);
	tally_thread_map__put(twice);
}

/* Kernel workers' comm can be longer than TASK_COMM_LEN: keep it whole, as perf. */
static void test_long_comm(void **state)
{
	char path[300], comm[128];
	struct dirent *de;
	DIR *d = opendir("/proc");
	pid_t found = 0;

	assert_non_null(d);
	while (!found && (de = readdir(d)) != NULL) {
		FILE *f;

		if (atoi(de->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			if (strlen(comm) > 15)
				found = atoi(de->d_name);
		}
		fclose(f);
	}
	closedir(d);
	if (!found)
		skip();	/* no task here has a long comm */
	struct tally_thread_map *m = tally_thread_map__new_pid(found);
	assert_non_null(m);
	assert_string_equal(tally_thread_map__comm(m, 0), comm);
	tally_thread_map__put(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_any),
		cmocka_unit_test(test_pid_comm),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_repeated_pid),
		cmocka_unit_test(test_long_comm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
