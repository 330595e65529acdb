/* SPDX-License-Identifier: MIT */
/* Shared by maps.c, dso.c, symbols.c and demangle.c. */
#ifndef TALLY_SYMBOLS_INTERNAL_H
#define TALLY_SYMBOLS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/symbols.h>

/* One /proc/kallsyms line, split in place. 0 or -EINVAL. */
int tally__kallsyms_line(char *line, uint64_t *addr, char *type, char **name,
			 char **module);

/* A number no other machine of this process had: a cache key. */
uint64_t tally__machine_id(const struct tally_machine *m);
/* A thread's name until a COMM gives one (":TID"): not inherited by a fork, as perf's. */
/* The map of the kernel's text ([kernel.kallsyms]_text), or NULL. */
const struct tally_map *tally__machine_kernel_map(const struct tally_machine *m);
/* A KSYMBOL record: a map of its own named by the symbol, or its map gone. 0 or -errno. */
int tally__machine_ksymbol(struct tally_machine *m, uint64_t addr, uint32_t len,
			   const char *name, bool unregister);
/*
 * tally_machine__fork, and exec: the record says PERF_RECORD_MISC_FORK_EXEC
 * (perf's synthesized processes): a new process's maps start empty, not
 * its parent's, as perf's machine__process_fork_event.
 */
int tally__machine_fork(struct tally_machine *m, int32_t pid, int32_t tid, int32_t ppid,
			int32_t ptid, bool exec);
/*
 * The file the unwinder reads a map's CFI from: fn's answer where it has
 * one (a rebuilt file's recorded build, kept in perf's build-id cache),
 * else the map's path.
 */
struct tally_unwind;
void tally__unwind_set_path_of(struct tally_unwind *u,
			       const char *(*fn)(void *ctx, const struct tally_map *map, int32_t pid),
			       void *ctx);
int tally__machine_default_comm(struct tally_machine *m, int32_t pid, int32_t tid,
				const char *comm);

/*
 * maps.c: the name a mapping's file gets in the machine, as perf's
 * map__new names it: ev's own, or "/tmp/perf-PID.map" (in buf) for
 * executable anonymous memory.
 */
struct tally_mmap_event;
const char *tally__map_name(const struct tally_mmap_event *ev, char *buf, size_t len);

/* "/lib/modules/.../nf_tables.ko.xz" -> "[nf_tables]": a module's DSO name (the store's reader too). */
void tally__module_name(const char *path, char *out, size_t len);

/* symbols.c: d asked for in this trim's epoch (a resolver's kept answer is a use). */
struct tally_dso;
void tally__symbols_touch(struct tally_symbols *s, struct tally_dso *d);
/*
 * hold true: the files tally_symbols__preload_file queues wait until
 * hold false, so that the helper, which takes the largest first, sees
 * them all (else it starts on the first queued while the rest come).
 */
void tally__symbols_ahead_hold(struct tally_symbols *s, bool hold);
/* d's table was let go by a trim (anything resolved through it before is stale). */
bool tally__dso_unloaded(const struct tally_dso *d);

#endif
