// SPDX-License-Identifier: MIT
/*
 * Signals and the wait loop shared by the commands (see wait.h). The two
 * signal flags are the only file-scope state: a handler has nowhere else
 * to write.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tally/tally.h>
#include "target.h"
#include "wait.h"

static volatile sig_atomic_t got_signal;	/* taken by the wait loop */
static volatile sig_atomic_t interrupted;	/* the signal; stays set: no more runs */

static void on_signal(int sig)
{
	got_signal = sig;
	interrupted = sig;
}

int cli_signals_setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll/wait return EINTR so the loop sees the signal. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	return 0;
}

bool cli_interrupted(void)
{
	return interrupted != 0;
}

void cli_reraise_interrupt(void)
{
	int sig = interrupted;

	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

double cli_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int cli_wait(struct cli_wait *w)
{
	struct cli_targets *ts = w->ts;
	struct tally_workload *wl = ts ? ts->wl : NULL;
	double next_tick = 0, deadline = 0, ival = w->interval_ms * 1e6;
	bool done = false, child_done = false, enabled = w->enable_at == 0;
	struct pollfd *pf;
	int nsig = 0, ret = 0;

	/* slot 0: the workload's pidfd (fd -1 is ignored by poll), then fds */
	pf = calloc((size_t)w->nfds + 1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	if (w->interval_ms)
		next_tick = w->t0 + ival;
	if (w->timeout_ms)
		deadline = w->t0 + w->timeout_ms * 1e6;
	if (wl && ts->wl_pidfd < 0)
		ts->wl_pidfd = cli_pidfd_open(tally_workload__pid(wl));
	pf[0] = (struct pollfd){ .fd = wl ? ts->wl_pidfd : -1, .events = POLLIN };

	while (!done) {
		double t = cli_now_ns(), wake = INFINITY;
		int timeout, n;

		if (next_tick && next_tick < wake)
			wake = next_tick;
		if (deadline && deadline < wake)
			wake = deadline;
		if (!enabled && w->enable_at < wake)
			wake = w->enable_at;
		if ((wl && ts->wl_pidfd < 0) || (ts && ts->npids))
			wake = fmin(wake, t + 100e6);	/* poll for exits */
		timeout = isinf(wake) ? -1 : (int)fmax(0, ceil((wake - t) / 1e6));
		for (int i = 0; i < w->nfds; i++)
			pf[i + 1] = w->fds[i];
		/* A signal interrupts the poll (no SA_RESTART). */
		n = poll(pf, (nfds_t)w->nfds + 1, timeout);

		if (n > 0 && w->nfds && w->on_fds) {
			int r;

			for (int i = 0; i < w->nfds; i++)
				w->fds[i].revents = pf[i + 1].revents;
			r = w->on_fds(w->arg, w->fds, w->nfds);
			if (r < 0) {
				ret = r;
				if (wl && !child_done)
					tally_workload__kill(wl, SIGTERM);
				done = true;
			} else if (r > 0) {
				done = true;
			}
		}
		if (got_signal) {
			int sig = got_signal;

			got_signal = 0;
			if (wl && !child_done)
				/* Like a terminal's Ctrl-C: the workload gets it too. */
				tally_workload__kill(wl, ++nsig > 2 ? SIGKILL : sig);
			else
				done = true;
		}
		t = cli_now_ns();
		if (!enabled && t >= w->enable_at) {
			if (w->on_enable)
				w->on_enable(w->arg, t);
			enabled = true;
			w->t0 = t;
			if (next_tick)
				next_tick = t + ival;
		}
		if (wl && !child_done && tally_workload__poll(wl, &w->status, &w->ru) == 1)
			child_done = done = true;
		if (ts && ts->npids && cli_targets__gone(ts))
			done = true;
		if (deadline && t >= deadline) {
			if (wl && !child_done) {
				tally_workload__kill(wl, SIGTERM);
				w->timed_out = true;
				deadline = 0;
			} else {
				done = true;
			}
		}
		if (next_tick && t >= next_tick && !done) {
			if (enabled && w->on_tick)
				w->on_tick(w->arg, t);
			next_tick += ival;
			if (next_tick < t)
				next_tick = t + ival;
			if (w->interval_count && ++w->nticks >= w->interval_count) {
				/*
				 * As perf: no more intervals, but a command
				 * is left to finish and gives the status.
				 */
				next_tick = 0;
				if (!wl || child_done)
					done = true;
			}
		}
	}
	if (wl && !child_done)
		while (tally_workload__wait(wl, &w->status, &w->ru) == -EINTR)
			;
	w->t1 = cli_now_ns();
	free(pf);
	return ret;
}
