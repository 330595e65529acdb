/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.3: the strings of syscall arguments (paths), read from the
 * caller's memory at sys_enter by a small BPF program (libbpf), for a
 * tracer that gets the calls themselves from the tracepoints' rings.
 * Each string comes with its thread, syscall and time (CLOCK_MONOTONIC),
 * and is taken by the call it belongs to. Needs BPF (CAP_BPF or root, a
 * kernel with BPF ring buffers: Linux 5.8); where it cannot be had, open
 * says why and the tracer shows pointers.
 */
#ifndef TALLY_SYSCALL_STRINGS_H
#define TALLY_SYSCALL_STRINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_sc_strings;

/*
 * Load and attach the program. masks[nr] (nr < nr_masks <= 512): bit i
 * set when argument i of syscall nr is a string to read. The calls of
 * process `self` are left out. NULL with errno, and why in `why`.
 */
TALLY_API struct tally_sc_strings *tally_sc_strings__open(const uint32_t *masks, int nr_masks,
							  pid_t self, char *why, size_t len);
TALLY_API void tally_sc_strings__close(struct tally_sc_strings *s);
/* Move what the BPF ring holds into the threads' queues; how many strings, or -errno. */
TALLY_API int tally_sc_strings__read(struct tally_sc_strings *s);
/*
 * The strings of tid's call of syscall nr that entered at `time`, or
 * with at_exit that exited at `time` (strings on pages the caller had
 * not touched yet are read once the call has: at its exit): strs[i] for
 * argument i, NULL where none was read. Take at the call's entry, then
 * at its exit. Strings stay valid until the next take or read. Returns
 * how many.
 */
TALLY_API int tally_sc_strings__take(struct tally_sc_strings *s, pid_t tid, int nr,
				     uint64_t time, bool at_exit, const char *strs[6]);

#ifdef __cplusplus
}
#endif
#endif
