/* SPDX-License-Identifier: MIT */
/* Thread maps: an ordered list of tids (or -1 for "any thread"). */
#ifndef TALLY_THREADMAP_H
#define TALLY_THREADMAP_H

#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_thread_map;

/* One entry, -1: counting per CPU for every task (system-wide). */
TALLY_API struct tally_thread_map *tally_thread_map__new_any(void);
/* One entry: pid (a workload, or one thread). */
TALLY_API struct tally_thread_map *tally_thread_map__new_pid(pid_t pid);
/* Every tid of pid, from /proc/PID/task. NULL+ESRCH if pid is gone. */
TALLY_API struct tally_thread_map *tally_thread_map__new_tasks(pid_t pid);
/*
 * Every tid of every process in /proc, sorted (perf stat -a --per-thread).
 * Threads may exit before they are opened: the evsel open skips those.
 */
TALLY_API struct tally_thread_map *tally_thread_map__new_all(void);
/*
 * Added in 0.5: every tid of the processes uid owns (their /proc/PID's
 * owner, as perf's -u), sorted. NULL+ESRCH when it owns none.
 */
TALLY_API struct tally_thread_map *tally_thread_map__new_uid(uid_t uid);
/*
 * "PID[,PID...]": with all_tasks, each pid expands to its tids.
 * Bad text -> NULL+EINVAL; a pid that does not exist -> NULL+ESRCH.
 */
TALLY_API struct tally_thread_map *tally_thread_map__new_list(const char *list,
							       bool all_tasks);
TALLY_API struct tally_thread_map *tally_thread_map__get(struct tally_thread_map *map);
TALLY_API void tally_thread_map__put(struct tally_thread_map *map);

TALLY_API int tally_thread_map__nr(const struct tally_thread_map *map);
/* tid at idx, or -1 past the end (or for the "any" map). */
TALLY_API pid_t tally_thread_map__pid(const struct tally_thread_map *map, int idx);
/* Thread's comm from /proc (cached at map creation); "" if unknown. */
TALLY_API const char *tally_thread_map__comm(const struct tally_thread_map *map, int idx);

#ifdef __cplusplus
}
#endif
#endif
