// SPDX-License-Identifier: MIT
/* The pager of report, script and list: see pager.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pager.h"

bool pager_disabled;
static pid_t pager_pid = -1;

static void pager_wait(void)
{
	if (pager_pid < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	/* the pager sees end of input when our copies of the pipe go */
	close(STDOUT_FILENO);
	close(STDERR_FILENO);
	while (waitpid(pager_pid, NULL, 0) < 0 && errno == EINTR)
		;
	pager_pid = -1;
}

bool pager_active(void)
{
	return pager_pid >= 0;
}

void pager_start(void)
{
	const char *pager = getenv("TALLY_PAGER");
	int fd[2];
	bool err_tty;

	if (pager_disabled || pager_pid >= 0 || !isatty(STDOUT_FILENO))
		return;
	if (!pager)
		pager = getenv("PAGER");
	if (!pager)
		pager = "less";
	if (!*pager || !strcmp(pager, "cat"))
		return;
	if (pipe(fd))
		return;
	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (!pager_pid) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRX", 0);
		execl("/bin/sh", "sh", "-c", pager, (char *)NULL);
		_exit(127);
	}
	err_tty = isatty(STDERR_FILENO);
	dup2(fd[1], STDOUT_FILENO);
	if (err_tty)
		dup2(fd[1], STDERR_FILENO);
	close(fd[0]);
	close(fd[1]);
	/* quitting the pager early must not kill us with SIGPIPE mid-write */
	signal(SIGPIPE, SIG_IGN);
	atexit(pager_wait);
}
