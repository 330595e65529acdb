/* SPDX-License-Identifier: MIT */
/*
 * Signals and the wait loop shared by the commands: wait for the workload
 * to exit, -p/-t targets to go, Ctrl-C, a timeout, ticking every interval
 * (stat -I), and (record) for extra fds such as ring buffers to become
 * readable. The signal flags are this layer's only file-scope state.
 */
#ifndef TALLY_CLI_WAIT_H
#define TALLY_CLI_WAIT_H

#include <poll.h>
#include <stdbool.h>
#include <sys/resource.h>

struct cli_targets;

/* CLOCK_MONOTONIC in ns. */
double cli_now_ns(void);

/*
 * SIGINT, SIGTERM and SIGHUP end the wait (the workload gets them first,
 * as from a terminal), without SA_RESTART so poll() returns. 0 or -errno.
 */
int cli_signals_setup(void);
/* A signal came: no more runs (-r, --compare rounds). */
bool cli_interrupted(void);
/*
 * After a signal ended counting with no workload (-a, -p): die by it with
 * the default action, as perf's sig_atexit(), so a shell sees 128 + sig.
 * Returns when no signal came.
 */
void cli_reraise_interrupt(void);

struct cli_wait {
	/* in */
	struct cli_targets *ts;		/* the workload and watched targets; NULL: none */
	double t0;			/* start, cli_now_ns(); moved to the enable time */
	long interval_ms;		/* on_tick every interval; 0: none */
	long interval_count;		/* no ticks after this many; 0: no limit */
	long timeout_ms;		/* stop (the workload: SIGTERM) after it; 0: none */
	double enable_at;		/* a delay: on_enable then (cli_now_ns()); 0: none */
	struct pollfd *fds;		/* extra fds to poll (ring buffers), or NULL */
	int nfds;
	void *arg;			/* the callbacks' */
	/* counting starts (after the delay) */
	void (*on_enable)(void *arg, double now);
	/* an interval passed (not before on_enable) */
	void (*on_tick)(void *arg, double now);
	/*
	 * Some of fds have revents. 0: go on; > 0: done (every ring hung
	 * up); < 0: an error, ends the wait and cli_wait() returns it.
	 */
	int (*on_fds)(void *arg, struct pollfd *fds, int nfds);
	/* out */
	double t1;			/* when the wait ended */
	long nticks;
	int status;			/* the workload's wait status */
	struct rusage ru;		/* its rusage */
	bool timed_out;			/* the timeout sent the workload SIGTERM */
};

/*
 * Wait until the workload exits (reaped: status, ru), the watched targets
 * are gone, a signal (forwarded to a running workload; SIGKILL at the
 * third), the timeout, the last interval without a workload, or on_fds
 * says so. 0, or a negative errno (-ENOMEM, on_fds' error).
 */
int cli_wait(struct cli_wait *w);

#endif
