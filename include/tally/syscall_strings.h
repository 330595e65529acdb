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
#include <tally/data_read.h>

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

/*
 * Added in 0.5: a recording (tally trace record) keeps the strings of
 * the calls it writes, matched at once to their samples. The events'
 * clock must be the program's (CLOCK_MONOTONIC: use_clockid). note: a
 * raw_syscalls sample written, tid's call of nr, its sys_enter's at
 * `time` (at_exit: its sys_exit's); in any order across CPUs. Once
 * read() has run, then every ring was drained, flush(upto) matches the
 * calls noted at or before upto in time order, as take() does, and hands
 * each string found to fn keyed by its call's sample time (what
 * tally_data_writer__add_sc_string keeps); strings that can belong to
 * no later call are dropped (read() keeps the rest until then).
 * 0, -ENOMEM, or fn's non-zero return.
 */
TALLY_API int tally_sc_strings__note(struct tally_sc_strings *s, pid_t tid, int nr,
				     uint64_t time, bool at_exit);
TALLY_API int tally_sc_strings__flush(struct tally_sc_strings *s, uint64_t upto,
				      tally_sc_string_fn fn, void *ctx);
/*
 * Added in 0.5: the strings a tally trace record file carries
 * (tally_data_reader__sc_strings), for take() as the BPF program's are,
 * with the file's samples in time order; read() adds none. No BPF. NULL
 * with errno: ENOENT (no such section), EBADMSG (damaged or cut short:
 * why says where and what), ENOMEM.
 */
TALLY_API struct tally_sc_strings *tally_sc_strings__from_file(const struct tally_data_reader *r,
							       char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
