/* SPDX-License-Identifier: MIT */
/*
 * The commands that show a perf.data file (script, report, diff) over the
 * library's session: its messages in the command's words, and the
 * filters of their options.
 */
#ifndef TALLY_CLI_READ_FILE_H
#define TALLY_CLI_READ_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/tally.h>

/*
 * Open path; NULL after saying why ("tally CMD: PATH: ...") with the
 * command's exit status in *ret (1; 255 for an empty or damaged file, as
 * perf, in perf's words: "incompatible file format", then where and why);
 * *ret is 0 when it opened.
 */
struct tally_session *cli_session_open(const char *cmd, const char *path,
				       const struct tally_session_opts *opts, int *ret);
/*
 * After an open of path failed: an empty file ("zero-sized data") or one
 * whose header is damaged ("incompatible file format: PATH: what, where")
 * said in perf's words, and perf's status for them, 255; else 0, nothing
 * said.
 */
int cli_bad_file(const char *path);
/*
 * Deliver every sample; 0, or 1 after saying what could not be read
 * (the samples before it were delivered), then what was lost.
 */
int cli_session_run(struct tally_session *s, const char *cmd, const char *path);
/*
 * cli_session_run's second half, for a command that writes what it kept
 * between the run and the complaints (tally_session__run's err)
 */
int cli_session_end(struct tally_session *s, const char *cmd, const char *path, int err);

/*
 * Whether a command frees what it read before it exits. Only under the
 * sanitizers, whose leak check wants it: the kernel takes a process's
 * memory back at once, where freeing a report's 40k allocations one by
 * one cost 2-4 ms of a 50 ms report.
 */
static inline bool cli_free_at_exit(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
	return false;
#endif
}

/* A second thread may help (two CPUs or more, TALLY_THREADS not 1): the session's rule. */
bool cli_two_threads(void);
/* perf's default --max-stack: kernel.perf_event_max_stack, else 127 */
int cli_max_stack(void);

/* name is one of list's comma-separated items (--comm, --dsos...); id as a number's text. */
bool session_in_list(const char *list, const char *name);
bool session_in_id_list(const char *list, int32_t id);

#endif
