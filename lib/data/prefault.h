/* SPDX-License-Identifier: MIT */
/*
 * A thread that maps a mapped file's pages a few MiB ahead of the walk
 * (it reads a byte of each), so the walk's first touch of each page is
 * not a page fault: on a 2-CPU machine the fault work (a third to a half of a
 * walk that reads little of each record: lock report, --sort mem) moves
 * to the other CPU, which the session's main thread often leaves idle.
 */
#ifndef TALLY_DATA_PREFAULT_H
#define TALLY_DATA_PREFAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tally__prefault;

/*
 * Start mapping buf's [from, end) ahead of the positions said by
 * tally__prefault_at. NULL when not worth it or not possible (one CPU,
 * TALLY_THREADS=1, a span under 32 MiB, no thread): the walk then
 * faults its pages itself, as before. The thread leaves early when its
 * first chunks show the pages cheap to fault (large folios).
 */
struct tally__prefault *tally__prefault_start(const uint8_t *buf, uint64_t from, uint64_t end);

/*
 * The walk is at off: the thread keeps a few MiB ahead of it. Returns the
 * offset at which to say it again (a lock each few hundred KiB, not a
 * record); UINT64_MAX with p NULL.
 */
uint64_t tally__prefault_at(struct tally__prefault *p, uint64_t off);

/* Stop and join the thread; the bytes it mapped (for tests). */
uint64_t tally__prefault_stop(struct tally__prefault *p);

/* The thread runs at nice 19; tests on a busy machine turn that off. */
extern bool tally__prefault_idle;

#endif
