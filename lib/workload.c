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
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/workload.h>
#include "internal.h"

extern char **environ;

struct tally_workload {
	pid_t pid;
	int cork_fd;	/* our end: a byte releases the child, EOF kills it */
	int err_fd;	/* read end: the exec errno, or EOF on success */
	bool started;
	bool reaped;
	int status;	/* wait status once reaped */
	int exec_err;	/* positive errno of a failed exec */
};

/*
 * What the child execs, all allocated before fork(): the candidate paths
 * in execvp()'s order, and the argv for running a script that has no #!
 * line through /bin/sh (execvp's ENOEXEC fallback), slot 1 left for the
 * path.
 */
struct exec_plan {
	char **paths;
	int nr;
	char **sh_argv;
};

static void plan_free(struct exec_plan *p)
{
	if (p->paths)
		for (int i = 0; i < p->nr; i++)
			free(p->paths[i]);
	free(p->paths);
	free(p->sh_argv);
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
	p->sh_argv[0] = (char *)"/bin/sh";
	for (int i = 1; i < argc; i++)
		p->sh_argv[i + 1] = argv[i];
	if (strchr(file, '/')) {
		p->paths = calloc(1, sizeof(*p->paths));
		if (!p->paths || !(p->paths[0] = strdup(file)))
			goto nomem;
		p->nr = 1;
		return 0;
	}
	if (flen > NAME_MAX)
		return -ENAMETOOLONG;
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

/* Child side: never returns. Only async-signal-safe calls after fork. */
__attribute__((noreturn))
static void child(const struct exec_plan *plan, char *const argv[], int cork_rd,
		  int err_wr)
{
	char c;
	ssize_t n;
	int e;

	do
		n = read(cork_rd, &c, 1);
	while (n < 0 && errno == EINTR);
	/* EOF without a byte: the parent went away or freed us unstarted. */
	if (n != 1)
		_exit(127);
	close(cork_rd);
	/*
	 * A tool often blocks signals it reads through signalfd (SIGINT,
	 * SIGCHLD); a blocked mask survives exec, and the workload could
	 * then never be interrupted. Start it with nothing blocked.
	 */
	{
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	e = plan_exec(plan, argv);
	while (write(err_wr, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

struct tally_workload *tally_workload__new(char *const argv[])
{
	struct tally_workload *wl;
	struct exec_plan plan;
	int cork[2], errp[2], e;

	if (!argv || !argv[0] || !argv[0][0])
		return tally__err_ptr(EINVAL);
	e = plan_make(&plan, argv);
	if (e)
		return tally__err_ptr(-e);
	wl = calloc(1, sizeof(*wl));
	if (!wl) {
		e = ENOMEM;
		goto err_plan;
	}
	wl->cork_fd = wl->err_fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cork)) {
		e = errno;
		goto err_free;
	}
	if (pipe2(errp, O_CLOEXEC)) {
		e = errno;
		goto err_cork;
	}
	fflush(NULL);	/* no stdio buffer is written twice */
	wl->pid = fork();
	if (wl->pid < 0) {
		e = errno;
		goto err_pipes;
	}
	if (wl->pid == 0) {
		close(cork[1]);
		close(errp[0]);
		child(&plan, argv, cork[0], errp[1]);
	}
	close(cork[0]);
	close(errp[1]);
	wl->cork_fd = cork[1];
	wl->err_fd = errp[0];
	plan_free(&plan);
	return wl;

err_pipes:
	close(errp[0]);
	close(errp[1]);
err_cork:
	close(cork[0]);
	close(cork[1]);
err_free:
	free(wl);
err_plan:
	plan_free(&plan);
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
	if (ru)
		*ru = r;
	return 1;
}

int tally_workload__start(struct tally_workload *wl)
{
	char go = 1;
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
	/* EOF: the pipe closed on exec. sizeof(int): exec failed with e. */
	do
		n = read(wl->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(wl->err_fd);
	wl->err_fd = -1;
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
	free(wl);
}
