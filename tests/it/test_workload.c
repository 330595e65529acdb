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

/*
 * Regression: a child that died before start() (killed, OOM) closed its
 * end of the cork; writing the go byte into a pipe then raised SIGPIPE
 * and killed the whole tool. start() must return -EPIPE instead (this
 * test program dies of SIGPIPE with the old code: SIGPIPE is not ignored
 * here, checked first).
 */
static void test_start_after_child_died(void **state)
{
	char *argv[] = { "true", NULL };
	struct tally_workload *wl = tally_workload__new(argv);
	struct sigaction sa;
	int st = 0, r = 0;

	assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
	assert_true(sa.sa_handler == SIG_DFL);
	assert_non_null(wl);
	assert_int_equal(tally_workload__kill(wl, SIGKILL), 0);
	/* Wait (no deadline asserted) until it is dead and reaped. */
	for (int i = 0; i < 100000 && (r = tally_workload__poll(wl, &st, NULL)) == 0; i++)
		usleep(100);
	assert_int_equal(r, 1);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_int_equal(tally_workload__start(wl), -EPIPE);
	assert_int_equal(errno, EPIPE);
	assert_int_equal(tally_workload__exit_code(wl), 128 + SIGKILL);
	tally_workload__free(wl);
}

/* Writes an executable (or not) file dir/name with body. */
static void put_file(const char *dir, const char *name, const char *body, mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(body, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static int run_exit_code(char *name, int *start_ret)
{
	char *argv[] = { name, NULL };
	struct tally_workload *wl = tally_workload__new(argv);
	int code;

	assert_non_null(wl);
	*start_ret = tally_workload__start(wl);
	if (*start_ret == 0)
		assert_int_equal(tally_workload__wait(wl, NULL, NULL), 0);
	code = tally_workload__exit_code(wl);
	tally_workload__free(wl);
	return code;
}

/*
 * The PATH search is done before fork() (the child may only make
 * async-signal-safe calls, and execvp() is not one): it must keep
 * execvp's rules. A non-executable match is skipped for a later
 * runnable one (EACCES only if nothing runs: 126), a missing command
 * is 127, a script without #! runs through /bin/sh (ENOEXEC), an empty
 * PATH element is the current directory, and arguments are passed on.
 */
static void test_path_search(void **state)
{
	char a[] = "/tmp/tally-wl-a-XXXXXX", b[] = "/tmp/tally-wl-b-XXXXXX";
	char path[256], cwd[4096], *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;
	char name[] = "tally-wl-probe", noshebang[] = "tally-wl-plain";
	char *argv[] = { noshebang, "5", NULL };
	struct tally_workload *wl;
	int r;

	assert_non_null(mkdtemp(a));
	assert_non_null(mkdtemp(b));
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	put_file(a, name, "#!/bin/sh\nexit 3\n", 0644);		/* not runnable */
	put_file(b, name, "#!/bin/sh\nexit 7\n", 0755);
	put_file(b, noshebang, "exit $1\n", 0755);

	snprintf(path, sizeof(path), "%s:%s", a, b);
	setenv("PATH", path, 1);
	assert_int_equal(run_exit_code(name, &r), 7);
	assert_int_equal(r, 0);

	setenv("PATH", a, 1);
	assert_int_equal(run_exit_code(name, &r), 126);
	assert_int_equal(r, -EACCES);

	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(run_exit_code(name, &r), 127);
	assert_int_equal(r, -ENOENT);

	setenv("PATH", b, 1);
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, NULL, NULL), 0);
	assert_int_equal(tally_workload__exit_code(wl), 5);
	tally_workload__free(wl);

	/* "::" -> the current directory */
	assert_int_equal(chdir(b), 0);
	setenv("PATH", "/nonexistent::/nonexistent2", 1);
	assert_int_equal(run_exit_code(name, &r), 7);
	assert_int_equal(chdir(cwd), 0);

	if (saved)
		setenv("PATH", saved, 1);
	else
		unsetenv("PATH");
	free(saved);
	snprintf(path, sizeof(path), "rm -rf %s %s", a, b);
	assert_int_equal(system(path), 0);
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
		cmocka_unit_test(test_start_after_child_died),
		cmocka_unit_test(test_path_search),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
