/* SPDX-License-Identifier: MIT */
/*
 * A workload runner like perf's: fork, the child waits on a cork pipe,
 * counters are opened on the child (enable_on_exec), start() releases the
 * cork and the child execs. An exec failure comes back to the parent.
 */
#ifndef TALLY_WORKLOAD_H
#define TALLY_WORKLOAD_H

#include <sys/types.h>
#include <sys/resource.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_workload;

/* Forks a child that waits; argv[0] is looked up in PATH. */
TALLY_API struct tally_workload *tally_workload__new(char *const argv[]);
TALLY_API pid_t tally_workload__pid(const struct tally_workload *wl);
/*
 * Release the cork and wait until the child has exec'd. Returns 0, or the
 * exec's -errno (-ENOENT: not found, -EACCES: not executable); the child
 * is then reaped and tally_workload__exit_code() gives 127 or 126.
 */
TALLY_API int tally_workload__start(struct tally_workload *wl);
/* Wait for exit (EINTR is returned to the caller, so Ctrl-C can print). */
TALLY_API int tally_workload__wait(struct tally_workload *wl, int *status,
				   struct rusage *ru);
/* Non-blocking: 1 if exited (status filled), 0 if running, -errno. */
TALLY_API int tally_workload__poll(struct tally_workload *wl, int *status,
				   struct rusage *ru);
/* Shell convention: exit code, 128+signal, 127 not found, 126 not runnable. */
TALLY_API int tally_workload__exit_code(const struct tally_workload *wl);
/* Send sig to the child (if alive). */
TALLY_API int tally_workload__kill(struct tally_workload *wl, int sig);
/* Kills (SIGKILL) and reaps a child still waiting or running. */
TALLY_API void tally_workload__free(struct tally_workload *wl);

#ifdef __cplusplus
}
#endif
#endif
