/* SPDX-License-Identifier: MIT */
/*
 * tally trace's fd tables: which file each fd of a traced thread names,
 * followed through the calls in time order (open*, creat, dup*,
 * fcntl(F_DUPFD*), close*, execve's close-on-exec, clone with and
 * without CLONE_FILES), not read from /proc when a line is printed (the
 * process has moved on by then: perf 6.1 shows the wrong file there). An
 * fd whose origin was not seen has no path, never a guess; the tables of
 * processes that existed before the trace are read from /proc once, at
 * its start (seed).
 */
#ifndef TALLY_CLI_TRACE_FDS_H
#define TALLY_CLI_TRACE_FDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_fds;
struct tally_sc_call;

struct trace_fds *trace_fds__new(void);
void trace_fds__free(struct trace_fds *f);

/* The path fd has in tid's table, or NULL: not known. Valid until the next change. */
const char *trace_fds__path(struct trace_fds *f, pid_t tid, int fd);

/*
 * tid enters syscall nr: a close takes its fd out of the table now (a
 * thread sharing it may get the number back before the close returns);
 * the call's own lines still name it until tid's next call.
 */
void trace_fds__enter(struct trace_fds *f, pid_t tid, int nr, const uint64_t args[6]);
/*
 * A call returned (c: tally_sc_tracer's, has_enter for its arguments);
 * strs[i]: argument i's string where it was read (a path), or NULL.
 */
void trace_fds__exit(struct trace_fds *f, const struct tally_sc_call *c,
		     const char *const *strs);
/*
 * The calls of tid that -e leaves out but that change its table, fed to
 * it alone: entered (the arguments kept), then returned.
 */
void trace_fds__enter_hidden(struct trace_fds *f, pid_t tid, int nr, const uint64_t args[6]);
void trace_fds__exit_hidden(struct trace_fds *f, pid_t tid, int nr, int64_t ret,
			    const char *const *strs);
/* Syscall nr's path argument goes into a table (open*, creat, chdir). */
bool trace_fds__wants_path(const struct trace_fds *f, int nr);
/* Syscall nr changes fd tables: traced (if not shown) for the paths. */
bool trace_fds__wants(const struct trace_fds *f, int nr);
/*
 * tid was made by ptid: it shares ptid's table (a thread, CLONE_FILES)
 * or starts with a copy of it.
 */
void trace_fds__fork(struct trace_fds *f, pid_t ptid, pid_t tid, bool share);
/* tid is gone: its hold on its table let go. */
void trace_fds__gone(struct trace_fds *f, pid_t tid);

/* Low level, for the seed and the tests: fd in tid's table (path NULL: taken out). */
void trace_fds__set(struct trace_fds *f, pid_t tid, int fd, const char *path, bool cloexec);
/*
 * tid's table read from /proc now (its process's fds, shared with the
 * threads of that process seeded before). 0, or -errno.
 */
int trace_fds__seed(struct trace_fds *f, pid_t tid);

#endif
