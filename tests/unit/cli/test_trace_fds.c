// SPDX-License-Identifier: MIT
/* trace_fds.c: the file behind each fd, followed through the calls in time order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/syscall_trace.h>
#include <tally/syscalls.h>
#include "trace_fds.h"

/* tid's call `name` with its arguments and result, entered and returned. */
static void call(struct trace_fds *f, pid_t tid, const char *name, int64_t ret, uint64_t a0,
		 uint64_t a1, uint64_t a2, const char *str0, const char *str1)
{
	struct tally_sc_call c = { .tid = tid, .nr = tally_syscall__nr(name), .ret = ret,
				   .has_enter = true, .has_exit = true };
	const char *strs[6] = { str0, str1 };

	assert_true(c.nr >= 0);
	c.args[0] = a0;
	c.args[1] = a1;
	c.args[2] = a2;
	trace_fds__enter(f, tid, c.nr, c.args);
	trace_fds__exit(f, &c, strs);
}

static void open_at(struct trace_fds *f, pid_t tid, const char *path, int flags, int fd)
{
	call(f, tid, "openat", fd, (uint64_t)(int64_t)AT_FDCWD, 0, (uint64_t)flags, NULL, path);
}

static void assert_path(struct trace_fds *f, pid_t tid, int fd, const char *want)
{
	const char *p = trace_fds__path(f, tid, fd);

	if (!want)
		assert_null(p);
	else
		assert_string_equal(p ? p : "(null)", want);
}

/* the case: a read of fd 3 names the file open then, not one opened later */
static void test_open_close_reopen(void **state)
{
	struct trace_fds *f = trace_fds__new();

	(void)state;
	open_at(f, 10, "/etc/hostname", O_RDONLY, 3);
	assert_path(f, 10, 3, "/etc/hostname");
	call(f, 10, "close", 0, 3, 0, 0, NULL, NULL);
	assert_path(f, 10, 3, NULL);
	open_at(f, 10, "/etc/passwd", O_RDONLY, 3);
	assert_path(f, 10, 3, "/etc/passwd");
	/* a failed openat changes nothing; one without its string takes the number unnamed */
	open_at(f, 10, "/nonexistent", O_RDONLY, -2);
	assert_path(f, 10, 3, "/etc/passwd");
	call(f, 10, "close", 0, 3, 0, 0, NULL, NULL);
	open_at(f, 10, NULL, O_RDONLY, 3);
	assert_path(f, 10, 3, NULL);
	/* a thread never seen knows nothing */
	assert_path(f, 99, 3, NULL);
	trace_fds__free(f);
}

/* close's own line names the file it closes, though it is out of the table */
static void test_close_line(void **state)
{
	struct trace_fds *f = trace_fds__new();
	struct tally_sc_call c = { .tid = 10, .nr = tally_syscall__nr("close"), .has_enter = true };

	(void)state;
	open_at(f, 10, "/a", 0, 4);
	c.args[0] = 4;
	trace_fds__enter(f, 10, c.nr, c.args);
	assert_path(f, 10, 4, "/a");
	/* a thread sharing the table sees the number free at once */
	trace_fds__fork(f, 10, 11, true);
	assert_path(f, 11, 4, NULL);
	open_at(f, 11, "/b", 0, 4);
	assert_path(f, 11, 4, "/b");
	assert_path(f, 10, 4, "/a");
	trace_fds__exit(f, &c, NULL);
	/* the close's exit does not take the other thread's new file out */
	assert_path(f, 10, 4, "/b");
	trace_fds__free(f);
}

static void test_dup(void **state)
{
	struct trace_fds *f = trace_fds__new();

	(void)state;
	open_at(f, 10, "/x", 0, 3);
	open_at(f, 10, "/y", 0, 5);
	call(f, 10, "dup", 4, 3, 0, 0, NULL, NULL);
	assert_path(f, 10, 4, "/x");
	/* dup2 over an open fd: it names the old fd's file now */
	call(f, 10, "dup2", 5, 3, 5, 0, NULL, NULL);
	assert_path(f, 10, 5, "/x");
	call(f, 10, "dup3", 7, 5, 7, O_CLOEXEC, NULL, NULL);
	assert_path(f, 10, 7, "/x");
	call(f, 10, "fcntl", 9, 3, F_DUPFD, 8, NULL, NULL);
	assert_path(f, 10, 9, "/x");
	/* a failed dup2 leaves both */
	open_at(f, 10, "/z", 0, 6);
	call(f, 10, "dup2", -9, 30, 6, 0, NULL, NULL);
	assert_path(f, 10, 6, "/z");
	/* dup of an fd not known: the new one is not either, whatever was there */
	call(f, 10, "dup2", 6, 40, 6, 0, NULL, NULL);
	assert_path(f, 10, 6, NULL);
	trace_fds__free(f);
}

static void test_exec_cloexec(void **state)
{
	struct trace_fds *f = trace_fds__new();

	(void)state;
	open_at(f, 10, "/keep", O_RDONLY, 3);
	open_at(f, 10, "/drop", O_RDONLY | O_CLOEXEC, 4);
	call(f, 10, "dup3", 5, 3, 5, O_CLOEXEC, NULL, NULL);
	call(f, 10, "dup3", 6, 4, 6, 0, NULL, NULL);
	open_at(f, 10, "/setfd", O_RDONLY, 7);
	call(f, 10, "fcntl", 0, 7, F_SETFD, FD_CLOEXEC, NULL, NULL);
	/* a failed execve closes nothing */
	call(f, 10, "execve", -2, 0, 0, 0, NULL, NULL);
	assert_path(f, 10, 4, "/drop");
	call(f, 10, "execve", 0, 0, 0, 0, NULL, NULL);
	assert_path(f, 10, 3, "/keep");
	assert_path(f, 10, 4, NULL);
	assert_path(f, 10, 5, NULL);
	assert_path(f, 10, 6, "/drop");
	assert_path(f, 10, 7, NULL);
	trace_fds__free(f);
}

static void test_fork_share_copy(void **state)
{
	struct trace_fds *f = trace_fds__new();

	(void)state;
	open_at(f, 10, "/p", 0, 3);
	trace_fds__fork(f, 10, 11, true);	/* a thread */
	trace_fds__fork(f, 10, 12, false);	/* a child process */
	assert_path(f, 11, 3, "/p");
	assert_path(f, 12, 3, "/p");
	open_at(f, 11, "/t", 0, 4);
	assert_path(f, 10, 4, "/t");
	assert_path(f, 12, 4, NULL);
	call(f, 12, "close", 0, 3, 0, 0, NULL, NULL);
	assert_path(f, 10, 3, "/p");
	/* the process execs: its own table from then on, the threads' not changed */
	open_at(f, 10, "/c", O_CLOEXEC, 5);
	call(f, 11, "execve", 0, 0, 0, 0, NULL, NULL);
	assert_path(f, 11, 5, NULL);
	assert_path(f, 10, 5, "/c");
	/* a tid used again starts from its new parent's */
	trace_fds__gone(f, 12);
	trace_fds__fork(f, 11, 12, false);
	assert_path(f, 12, 3, "/p");
	assert_path(f, 12, 4, "/t");
	trace_fds__free(f);
}

static void test_relative_and_pathless(void **state)
{
	struct trace_fds *f = trace_fds__new();

	(void)state;
	/* cwd not known: the path as the call gave it */
	open_at(f, 10, "rel", 0, 3);
	assert_path(f, 10, 3, "rel");
	call(f, 10, "chdir", 0, 0, 0, 0, "/tmp", NULL);
	open_at(f, 10, "rel", 0, 4);
	assert_path(f, 10, 4, "/tmp/rel");
	open_at(f, 10, "/srv", O_DIRECTORY, 5);
	call(f, 10, "openat", 6, 5, 0, 0, NULL, "x/y");
	assert_path(f, 10, 6, "/srv/x/y");
	call(f, 10, "openat", 9, 5, 0, 0, NULL, "./d//e/");
	assert_path(f, 10, 9, "/srv/d/e");
	call(f, 10, "fchdir", 0, 5, 0, 0, NULL, NULL);
	open_at(f, 10, "z", 0, 7);
	assert_path(f, 10, 7, "/srv/z");
	/* a socket takes a number a missed close left named: no path now */
	trace_fds__set(f, 10, 8, "/stale", false);
	call(f, 10, "socket", 8, 2, 1, 0, NULL, NULL);
	assert_path(f, 10, 8, NULL);
	/* an open whose enter was not seen: the number is taken, by what is not known */
	{
		struct tally_sc_call c = { .tid = 10, .nr = tally_syscall__nr("openat"), .ret = 3,
					   .has_exit = true };

		trace_fds__exit(f, &c, NULL);
		assert_path(f, 10, 3, NULL);
	}
	/* close_range: a range out; with CLOEXEC, marked for the exec */
	open_at(f, 10, "/r1", 0, 20);
	open_at(f, 10, "/r2", 0, 21);
	open_at(f, 10, "/r3", 0, 30);
	call(f, 10, "close_range", 0, 20, 21, 0, NULL, NULL);
	assert_path(f, 10, 20, NULL);
	assert_path(f, 10, 21, NULL);
	assert_path(f, 10, 30, "/r3");
	call(f, 10, "close_range", 0, 25, ~0u, 1u << 2, NULL, NULL);
	assert_path(f, 10, 30, "/r3");
	call(f, 10, "execve", 0, 0, 0, 0, NULL, NULL);
	assert_path(f, 10, 30, NULL);
	/* bad numbers are no crash */
	trace_fds__set(f, 10, -1, "/neg", false);
	trace_fds__set(f, 10, 1 << 30, "/huge", false);
	assert_path(f, 10, -1, NULL);
	assert_path(f, 10, 1 << 30, NULL);
	trace_fds__free(f);
}

/* -e read: the openat and close not shown still change the table */
static void test_hidden(void **state)
{
	struct trace_fds *f = trace_fds__new();
	const char *strs[6] = { NULL, "/h" };
	uint64_t a[6] = { (uint64_t)(int64_t)AT_FDCWD, 0, O_CLOEXEC };

	(void)state;
	assert_true(trace_fds__wants(f, tally_syscall__nr("openat")));
	assert_true(trace_fds__wants(f, tally_syscall__nr("close")));
	assert_false(trace_fds__wants(f, tally_syscall__nr("read")));
	trace_fds__enter_hidden(f, 10, tally_syscall__nr("openat"), a);
	trace_fds__exit_hidden(f, 10, tally_syscall__nr("openat"), 3, strs);
	assert_path(f, 10, 3, "/h");
	a[0] = 3;
	trace_fds__enter_hidden(f, 10, tally_syscall__nr("close"), a);
	trace_fds__exit_hidden(f, 10, tally_syscall__nr("close"), 0, NULL);
	assert_path(f, 10, 3, NULL);
	/* an exit whose enter was not the thread's last: its arguments are not known */
	trace_fds__exit_hidden(f, 10, tally_syscall__nr("openat"), 3, strs);
	assert_path(f, 10, 3, NULL);
	trace_fds__free(f);
}

/* /proc's table of this very process: an fd opened here is there, with its flag */
static void test_seed(void **state)
{
	struct trace_fds *f = trace_fds__new();
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	struct tally_sc_call c = { .tid = getpid(), .nr = tally_syscall__nr("execve"),
				   .has_enter = true, .has_exit = true };

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(trace_fds__seed(f, getpid()), 0);
	assert_path(f, getpid(), fd, "/dev/null");
	trace_fds__exit(f, &c, NULL);
	assert_path(f, getpid(), fd, NULL);
	close(fd);
	assert_int_not_equal(trace_fds__seed(f, -5), 0);
	trace_fds__free(f);
}

/* The cases use x86-64's syscall numbers, whatever the host. */
static int setup(void **state)
{
	(void)state;
	return tally_syscall__set_arch("x86_64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_close_reopen),
		cmocka_unit_test(test_close_line),
		cmocka_unit_test(test_dup),
		cmocka_unit_test(test_exec_cloexec),
		cmocka_unit_test(test_fork_share_copy),
		cmocka_unit_test(test_relative_and_pathless),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_seed),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
