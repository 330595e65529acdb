// SPDX-License-Identifier: MIT
/*
 * The workload runner, as perf's: the child forks and blocks on a cork
 * pipe so counters can be opened on its pid (enable_on_exec); start()
 * uncorks it and learns from a close-on-exec pipe whether exec worked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/workload.h>
#include "internal.h"

struct tally_workload {
	pid_t pid;
	int cork_fd;	/* write end: closing it releases the child */
	int err_fd;	/* read end: the exec errno, or EOF on success */
	bool started;
	bool reaped;
	int status;	/* wait status once reaped */
	int exec_err;	/* positive errno of a failed exec */
};

/* Child side: never returns. Only async-signal-safe calls after fork. */
__attribute__((noreturn))
static void child(char *const argv[], int cork_rd, int err_wr)
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
	execvp(argv[0], argv);
	e = errno;
	while (write(err_wr, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(e == ENOENT ? 127 : 126);
}

struct tally_workload *tally_workload__new(char *const argv[])
{
	struct tally_workload *wl;
	int cork[2], errp[2];

	if (!argv || !argv[0] || !argv[0][0])
		return tally__err_ptr(EINVAL);
	wl = calloc(1, sizeof(*wl));
	if (!wl)
		return tally__err_ptr(ENOMEM);
	wl->cork_fd = wl->err_fd = -1;
	if (pipe2(cork, O_CLOEXEC))
		goto err_free;
	if (pipe2(errp, O_CLOEXEC))
		goto err_cork;
	fflush(NULL);	/* no stdio buffer is written twice */
	wl->pid = fork();
	if (wl->pid < 0)
		goto err_pipes;
	if (wl->pid == 0) {
		close(cork[1]);
		close(errp[0]);
		child(argv, cork[0], errp[1]);
	}
	close(cork[0]);
	close(errp[1]);
	wl->cork_fd = cork[1];
	wl->err_fd = errp[0];
	return wl;

err_pipes:
	{
		int e = errno;

		close(errp[0]);
		close(errp[1]);
		errno = e;
	}
err_cork:
	{
		int e = errno;

		close(cork[0]);
		close(cork[1]);
		errno = e;
	}
err_free:
	{
		int e = errno;

		free(wl);
		return tally__err_ptr(e);
	}
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
	int e = 0;

	if (!wl || wl->started || wl->cork_fd < 0)
		return tally__err(EINVAL);
	wl->started = true;
	do
		n = write(wl->cork_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	close(wl->cork_fd);
	wl->cork_fd = -1;
	if (n != 1)
		return tally__err(errno ? errno : EPIPE);
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
