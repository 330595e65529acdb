// SPDX-License-Identifier: MIT
/*
 * The workload runner, as perf's: the child forks and blocks on a cork
 * so counters can be opened on its pid (enable_on_exec); start() uncorks
 * it and learns from a close-on-exec pipe whether exec worked.
 *
 * Between fork() and exec the child of a (possibly multi-threaded) tool
 * may only make async-signal-safe calls (signal-safety(7)): execvp() is
 * not one (it may allocate, and it reads PATH), so the PATH search is
 * done in the parent before fork() and the child only calls execve().
 * The cork is a socket, so that uncorking a child that already died is
 * an EPIPE error (send(MSG_NOSIGNAL)) and not a SIGPIPE that kills the
 * tool.
 *
 * The child is a clone(CLONE_VM) on a stack of its own, not a fork():
 * nothing of the tool's memory is copied or write-protected (fork's
 * page-table copy, the tool's copy-on-write faults after it and the
 * child's teardown of the copy at exec cost ~0.15 ms of a 2 ms
 * `tally stat -- true`). Sharing the memory until exec asks for care:
 *  - the child runs with every signal blocked, and resets the tool's
 *    handlers (a handler would run on the tool's data) before it
 *    unblocks them just ahead of execve();
 *  - it shares the calling thread's errno: the child only fails a call
 *    (execve) after the uncork, while the tool waits in read() with its
 *    signals blocked, so neither sees the other's errno;
 *  - its stack and exec plan live until it is known gone from our
 *    memory: the error pipe's EOF (closed on exec, after the new memory
 *    is in place, or at exit) or its reaping.
 * Valgrind cannot run such a clone (it aborts the tool): under it the
 * child is a plain fork() running the same code.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/workload.h>
#include "internal.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND() false
#endif

extern char **environ;

/*
 * What the child execs, all allocated before the clone: the candidate
 * paths in execvp()'s order, and the argv for running a script that has
 * no #! line through /bin/sh (execvp's ENOEXEC fallback), slot 1 left
 * for the path.
 */
struct exec_plan {
	char **paths;
	int nr;
	char **sh_argv;
	char **argv;	/* a copy: the child reads it after new() returns */
	int argc;
};

#define CHILD_STACK (64 * 1024)

struct tally_workload {
	pid_t pid;
	/* The child's, until it execs or exits (stack_gone()). */
	void *stack;
	struct exec_plan plan;
	int cork_rd, err_wr;	/* the child's ends */
	int cork_wr, err_rd;	/* ours, which the child closes */
	int cork_fd;	/* our end: a byte releases the child, EOF kills it */
	int err_fd;	/* read end: the exec errno, or EOF on success */
	bool started;
	bool reaped;
	int status;	/* wait status once reaped */
	int exec_err;	/* positive errno of a failed exec */
};

static void plan_free(struct exec_plan *p)
{
	if (p->paths)
		for (int i = 0; i < p->nr; i++)
			free(p->paths[i]);
	free(p->paths);
	free(p->sh_argv);
	if (p->argv)
		for (int i = 0; i < p->argc; i++)
			free(p->argv[i]);
	free(p->argv);
}

/* execvp's search, done where allocating is allowed. 0 or -errno. */
static int plan_make(struct exec_plan *p, char *const argv[])
{
	const char *file = argv[0], *path, *dir;
	size_t flen = strlen(file);
	int argc = 0;

	memset(p, 0, sizeof(*p));
	while (argv[argc])
		argc++;
	p->sh_argv = tally__calloc((size_t)argc + 2, sizeof(*p->sh_argv));
	if (!p->sh_argv)
		return -ENOMEM;
	p->argv = tally__calloc((size_t)argc + 1, sizeof(*p->argv));
	if (!p->argv)
		goto nomem;
	for (; p->argc < argc; p->argc++)
		if (!(p->argv[p->argc] = strdup(argv[p->argc])))
			goto nomem;
	p->sh_argv[0] = (char *)"/bin/sh";
	for (int i = 1; i < argc; i++)
		p->sh_argv[i + 1] = p->argv[i];
	if (strchr(file, '/')) {
		p->paths = calloc(1, sizeof(*p->paths));
		if (!p->paths || !(p->paths[0] = strdup(file)))
			goto nomem;
		p->nr = 1;
		return 0;
	}
	if (flen > NAME_MAX) {
		plan_free(p);
		return -ENAMETOOLONG;
	}
	path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";	/* glibc's default, as execvp */
	for (const char *c = path; ; c++) {
		if (*c == ':' || !*c)
			p->nr++;
		if (!*c)
			break;
	}
	p->paths = tally__calloc((size_t)p->nr, sizeof(*p->paths));
	if (!p->paths)
		goto nomem;
	dir = path;
	for (int i = 0; i < p->nr; i++) {
		const char *end = strchrnul(dir, ':');
		size_t dlen = (size_t)(end - dir);

		/* An empty element is the current directory. */
		if (asprintf(&p->paths[i], "%.*s%s%s", (int)dlen, dir, dlen ? "/" : "",
			     file) < 0) {
			p->paths[i] = NULL;
			goto nomem;
		}
		dir = *end ? end + 1 : end;
	}
	return 0;
nomem:
	plan_free(p);
	return -ENOMEM;
}

/*
 * execvp() from a plan, async-signal-safe: execve() only. Errors that
 * mean "not in this directory" go on to the next one; EACCES is
 * remembered (a later directory may have a runnable one); anything else
 * stops the search. Returns the errno to report.
 */
static int plan_exec(const struct exec_plan *p, char *const argv[])
{
	bool eacces = false;
	int e = ENOENT;

	for (int i = 0; i < p->nr; i++) {
		execve(p->paths[i], argv, environ);
		e = errno;
		if (e == ENOEXEC) {
			p->sh_argv[1] = p->paths[i];
			execve(p->sh_argv[0], p->sh_argv, environ);
			return ENOEXEC;
		}
		if (e == EACCES) {
			eacces = true;
			continue;
		}
		if (e != ENOENT && e != ENOTDIR && e != ESTALE && e != ENODEV &&
		    e != ETIMEDOUT)
			return e;
	}
	return eacces ? EACCES : e;
}

/*
 * Child side, in the tool's memory (CLONE_VM), every signal blocked:
 * never returns. Only async-signal-safe calls, none that can fail before
 * the uncork (see the top of the file).
 */
static int child(void *arg)
{
	struct tally_workload *wl = arg;
	struct sigaction sa;
	sigset_t none, handled;
	char c;
	ssize_t n;
	int e;

	/*
	 * The signals the tool handles; 32 and 33 are glibc's own (EINVAL,
	 * which would write errno), real-time signals start at SIGRTMIN.
	 */
	/* Our cork end open in the child would hide our EOF from it. */
	close(wl->cork_wr);
	close(wl->err_rd);
	sigemptyset(&handled);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction old;

		if (sig >= 32 && sig < SIGRTMIN)
			continue;
		if (!sigaction(sig, NULL, &old) && old.sa_handler != SIG_DFL &&
		    old.sa_handler != SIG_IGN)
			sigaddset(&handled, sig);
	}
	/* Blocked signals: no EINTR. EOF: the tool freed us unstarted. */
	n = read(wl->cork_rd, &c, 1);
	if (n != 1)
		_exit(127);
	close(wl->cork_rd);
	/*
	 * The tool's handlers would run on its memory: the signals that
	 * came while corked are dropped (SIG_IGN discards a pending one),
	 * as the handlers of a forked child would have taken them, and the
	 * workload starts with the default action, as exec gives it.
	 * Ignored signals stay ignored, as across fork and exec.
	 */
	memset(&sa, 0, sizeof(sa));
	for (int sig = 1; sig < NSIG; sig++) {
		if (sigismember(&handled, sig) != 1)
			continue;
		sa.sa_handler = SIG_IGN;
		sigaction(sig, &sa, NULL);
		sa.sa_handler = SIG_DFL;
		sigaction(sig, &sa, NULL);
	}
	/*
	 * A tool often blocks signals it reads through signalfd (SIGINT,
	 * SIGCHLD); a blocked mask survives exec, and the workload could
	 * then never be interrupted. Start it with nothing blocked.
	 */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	e = plan_exec(&wl->plan, wl->plan.argv);
	/* The tool waits for this in read(), its signals blocked: no EINTR. */
	n = write(wl->err_wr, &e, sizeof(e));
	(void)n;
	_exit(e == ENOENT ? 127 : 126);
}

/* The child has exec'd or exited: its stack and plan are ours again. */
static void stack_gone(struct tally_workload *wl)
{
	if (wl->stack) {
		munmap(wl->stack, CHILD_STACK);
		wl->stack = NULL;
	}
	plan_free(&wl->plan);
	memset(&wl->plan, 0, sizeof(wl->plan));
}

struct tally_workload *tally_workload__new(char *const argv[])
{
	struct tally_workload *wl;
	sigset_t all, old;
	int cork[2], errp[2], e;

	if (!argv || !argv[0] || !argv[0][0])
		return tally__err_ptr(EINVAL);
	wl = calloc(1, sizeof(*wl));
	if (!wl)
		return tally__err_ptr(ENOMEM);
	e = plan_make(&wl->plan, argv);
	if (e) {
		free(wl);
		return tally__err_ptr(-e);
	}
	wl->cork_fd = wl->err_fd = -1;
	wl->stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (wl->stack == MAP_FAILED) {
		wl->stack = NULL;
		e = errno;
		goto err_free;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cork)) {
		e = errno;
		goto err_free;
	}
	if (pipe2(errp, O_CLOEXEC)) {
		e = errno;
		goto err_cork;
	}
	wl->cork_rd = cork[0];
	wl->err_wr = errp[1];
	wl->cork_wr = cork[1];
	wl->err_rd = errp[0];
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if (UNDER_VALGRIND()) {
		fflush(NULL);	/* no stdio buffer is written twice */
		wl->pid = fork();
		if (wl->pid == 0)
			child(wl);
	} else {
		wl->pid = clone(child, (char *)wl->stack + CHILD_STACK, CLONE_VM | SIGCHLD, wl);
	}
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (wl->pid < 0)
		goto err_pipes;
	close(cork[0]);
	close(errp[1]);
	wl->cork_fd = cork[1];
	wl->err_fd = errp[0];
	return wl;

err_pipes:
	close(errp[0]);
	close(errp[1]);
err_cork:
	close(cork[0]);
	close(cork[1]);
err_free:
	stack_gone(wl);
	free(wl);
	return tally__err_ptr(e);
}

pid_t tally_workload__pid(const struct tally_workload *wl)
{
	return wl ? wl->pid : -1;
}

static int reap(struct tally_workload *wl, int options, struct rusage *ru)
{
	struct rusage r;
	int st;
	pid_t p;

	p = wait4(wl->pid, &st, options, &r);
	if (p < 0)
		return -errno;
	if (p == 0)
		return 0;
	wl->reaped = true;
	wl->status = st;
	stack_gone(wl);
	if (ru)
		*ru = r;
	return 1;
}

int tally_workload__start(struct tally_workload *wl)
{
	char go = 1;
	sigset_t all, old;
	ssize_t n;
	int e = 0, werr;

	if (!wl || wl->started || wl->cork_fd < 0)
		return tally__err(EINVAL);
	wl->started = true;
	/* A child that died already: EPIPE here, not SIGPIPE for the tool. */
	do
		n = send(wl->cork_fd, &go, 1, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	werr = n < 0 ? errno : EPIPE;
	close(wl->cork_fd);
	wl->cork_fd = -1;
	if (n != 1)
		return tally__err(werr);
	/*
	 * EOF: the pipe closed on exec. sizeof(int): exec failed with e.
	 * Signals blocked: the child's errno is ours until it execs.
	 */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	n = read(wl->err_fd, &e, sizeof(e));
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(wl->err_fd);
	wl->err_fd = -1;
	if (n == 0)
		stack_gone(wl);	/* exec'd (or exited): out of our memory */
	if (n == (ssize_t)sizeof(e) && e > 0) {
		wl->exec_err = e;
		while (reap(wl, 0, NULL) == -EINTR)
			;
		return tally__err(e);
	}
	return 0;
}

int tally_workload__wait(struct tally_workload *wl, int *status, struct rusage *ru)
{
	int r;

	if (!wl)
		return tally__err(EINVAL);
	if (!wl->reaped) {
		r = reap(wl, 0, ru);
		if (r < 0)
			return tally__err(-r);	/* EINTR: the caller decides */
	} else if (ru) {
		memset(ru, 0, sizeof(*ru));
	}
	if (status)
		*status = wl->status;
	return 0;
}

int tally_workload__poll(struct tally_workload *wl, int *status, struct rusage *ru)
{
	int r;

	if (!wl)
		return tally__err(EINVAL);
	if (!wl->reaped) {
		r = reap(wl, WNOHANG, ru);
		if (r < 0)
			return tally__err(-r);
		if (r == 0)
			return 0;
	}
	if (status)
		*status = wl->status;
	return 1;
}

int tally_workload__exit_code(const struct tally_workload *wl)
{
	if (!wl)
		return -1;
	if (wl->exec_err)
		return wl->exec_err == ENOENT ? 127 : 126;
	if (!wl->reaped)
		return -1;
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return -1;
}

int tally_workload__kill(struct tally_workload *wl, int sig)
{
	if (!wl || wl->pid <= 0)
		return tally__err(EINVAL);
	if (wl->reaped)
		return tally__err(ESRCH);
	return kill(wl->pid, sig) ? -errno : 0;
}

void tally_workload__free(struct tally_workload *wl)
{
	if (!wl)
		return;
	if (wl->cork_fd >= 0)
		close(wl->cork_fd);	/* an unstarted child sees EOF and exits */
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	if (!wl->reaped && wl->pid > 0) {
		kill(wl->pid, SIGKILL);
		while (waitpid(wl->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	stack_gone(wl);
	free(wl);
}
