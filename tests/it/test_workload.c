// SPDX-License-Identifier: MIT
/* The workload runner: exit codes, exec errors, signals, rusage, counting after exec. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "oracle_util.h"

static void test_exit_code(void **state)
{
	char *argv[] = { (char *)helper_path(), "exit", "3", NULL };
	struct tally_workload *wl;
	struct rusage ru;
	int st;

	if (!have_helper())
		skip();
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_true(tally_workload__pid(wl) > 0);
	assert_int_equal(tally_workload__exit_code(wl), -1);	/* not yet */
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__start(wl), -EINVAL);	/* once */
	assert_int_equal(tally_workload__wait(wl, &st, &ru), 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_int_equal(tally_workload__exit_code(wl), 3);
	/* Waiting again returns the same status. */
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_int_equal(tally_workload__poll(wl, &st, NULL), 1);
	assert_int_equal(tally_workload__kill(wl, SIGTERM), -ESRCH);
	tally_workload__free(wl);
}

static void test_not_found(void **state)
{
	char *argv[] = { "tally-no-such-command-xyz", NULL };
	char *argv2[] = { "/nonexistent/dir/prog", NULL };
	struct tally_workload *wl = tally_workload__new(argv);
	int st;

	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), -ENOENT);
	assert_int_equal(tally_workload__exit_code(wl), 127);
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 127);
	tally_workload__free(wl);
	wl = tally_workload__new(argv2);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), -ENOENT);
	assert_int_equal(tally_workload__exit_code(wl), 127);
	tally_workload__free(wl);
}

static void test_not_executable(void **state)
{
	char path[] = "/tmp/tally-noexec-XXXXXX";
	char *argv[] = { path, NULL };
	struct tally_workload *wl;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\nexit 0\n", 17), 17);
	close(fd);
	chmod(path, 0644);
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), -EACCES);
	assert_int_equal(tally_workload__exit_code(wl), 126);
	tally_workload__free(wl);
	unlink(path);
}

static void test_signal_and_poll(void **state)
{
	char *argv[] = { (char *)helper_path(), "sleep", "60000", NULL };
	struct tally_workload *wl;
	int st;

	if (!have_helper())
		skip();
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), 0);
	/* A 60 s sleeper is still running right after exec. */
	assert_int_equal(tally_workload__poll(wl, &st, NULL), 0);
	assert_int_equal(tally_workload__kill(wl, SIGKILL), 0);
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(tally_workload__exit_code(wl), 128 + SIGKILL);
	tally_workload__free(wl);
}

static void test_free_unstarted(void **state)
{
	char *argv[] = { "true", NULL };
	struct tally_workload *wl = tally_workload__new(argv);
	pid_t pid;

	assert_non_null(wl);
	pid = tally_workload__pid(wl);
	tally_workload__free(wl);
	/* Reaped: no zombie is left behind. */
	assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	tally_workload__free(NULL);
	assert_null(tally_workload__new(NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_rusage(void **state)
{
	char *argv[] = { (char *)helper_path(), "spin", "50", NULL };
	struct tally_workload *wl;
	struct rusage ru;
	int st;

	if (!have_helper())
		skip();
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, &st, &ru), 0);
	assert_true(ru.ru_maxrss > 0);
	assert_true(ru.ru_utime.tv_sec > 0 || ru.ru_utime.tv_usec > 0 ||
		    ru.ru_stime.tv_usec > 0);
	tally_workload__free(wl);
}

/*
 * enable_on_exec: the child's own execve() happens before the counters
 * are enabled, so sys_enter_execve counts 0; enabled from the start
 * (the control) it counts the exec.
 */
static void test_counts_after_exec(void **state)
{
	struct perf_event_attr a;
	char *argv[] = { (char *)helper_path(), "getpid", "10", NULL };
	struct tally_workload *wl;
	struct tally_thread_map *tm;
	struct tally_evlist *l;
	struct tally_evsel *e;
	int st;

	if (!tp_attr(&a, "syscalls", "sys_enter_execve") || !have_helper())
		skip();
	for (int control = 0; control < 2; control++) {
		wl = tally_workload__new(argv);
		assert_non_null(wl);
		tm = tally_thread_map__new_pid(tally_workload__pid(wl));
		l = tally_evlist__new();
		e = tally_evsel__new(&a, "execve");
		tally_evlist__add(l, e);
		if (!control)
			tally_evlist__set_attr_bits(l, true, true, false);
		assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
		assert_int_equal(tally_workload__start(wl), 0);
		assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
		assert_int_equal(tally_evlist__read(l), 0);
		if (control)
			assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 1);
		else
			assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 0);
		tally_evlist__free(l);
		tally_thread_map__put(tm);
		tally_workload__free(wl);
	}
}

/* The parent's blocked signals are not passed on to the workload. */
static void test_signal_mask_reset(void **state)
{
	/* grep itself, not sh: dash clears its own mask at startup. */
	char *argv[] = { "grep", "-q", "^SigBlk:[[:space:]]*0*$", "/proc/self/status", NULL };
	struct tally_workload *wl;
	sigset_t set, old;
	int st;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGINT);
	assert_int_equal(sigprocmask(SIG_BLOCK, &set, &old), 0);
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	assert_int_equal(tally_workload__exit_code(wl), 0);
	tally_workload__free(wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_signal_and_poll),
		cmocka_unit_test(test_free_unstarted),
		cmocka_unit_test(test_rusage),
		cmocka_unit_test(test_counts_after_exec),
		cmocka_unit_test(test_signal_mask_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
