/* SPDX-License-Identifier: MIT */
/*
 * The mmap ring buffer reader: the kernel writes records (struct
 * perf_event_header + body) into 2^n data pages after the event's first
 * page; user space reads them and hands the space back.
 *
 * The protocol, in one place:
 *
 *	if (tally_mmap__read_init(m) == 0) {		// snapshot data_head
 *		const struct perf_event_header *ev;
 *
 *		while ((ev = tally_mmap__read_event(m))) {
 *			handle(ev);			// valid until the next call
 *			tally_mmap__consume(m);		// optional: give space back now
 *		}
 *		tally_mmap__read_done(m);		// give everything read back
 *	}
 *
 *  - read_init loads data_head with acquire semantics (pairs with the
 *    kernel's smp_wmb() between writing a record and publishing data_head,
 *    "(B)" in kernel/events/ring_buffer.c) and takes [tail, head) as the
 *    batch. -EAGAIN when the ring is empty; -EBADMSG when head is more
 *    than a ring ahead of tail or either is not 8-byte aligned.
 *  - read_event returns the next record of the batch, or NULL at its end
 *    (errno 0) or on a corrupt header (size below 8, not a multiple of 8,
 *    or past head: errno EBADMSG, and the rest of the batch is skipped). A record that wraps past the end of the data area is
 *    copied to a bounce buffer so the caller always sees it contiguous.
 *    PERF_RECORD_LOST records are counted (tally_mmap__lost) and still
 *    returned.
 *  - consume stores data_tail (everything returned so far) with release
 *    semantics: our loads of the records happen before the kernel can see
 *    the space as free. It pairs with the smp_mb() "(A)" the kernel puts
 *    between reading data_tail and writing records in perf_output_begin().
 *  - read_done = consume + end of the batch.
 *
 * Forward rings are mapped PROT_READ|PROT_WRITE so data_tail can be
 * written. Added in 0.2, overwrite (flight-recorder) rings for events
 * with attr.write_backward: mapped read-only, the kernel overwrites the
 * oldest records and never waits; pause the output
 * (tally_sys_pause_output) before read_init, which then walks from
 * data_head up: the newest records first, as many as the ring still
 * holds whole, down to where the batch before read_done began (each batch
 * holds only what was written since the previous one). consume/read_done
 * write nothing to the ring.
 */
#ifndef TALLY_MMAP_H
#define TALLY_MMAP_H

#include <linux/perf_event.h>
#include <sys/uio.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_mmap;

/*
 * Map fd's ring: 1 + pages pages (pages a power of two, >= 1). The fd stays
 * the caller's. NULL + errno (EINVAL for a bad page count, the mmap
 * error otherwise: EPERM/ENOMEM past perf_event_mlock_kb).
 */
TALLY_API struct tally_mmap *tally_mmap__new(int fd, size_t pages);

/*
 * A ring in plain memory (tests, replays): base is a struct
 * perf_event_mmap_page whose data_offset/data_size (Linux 4.1) say where
 * the data area is inside the len bytes at base; data_size must be a power
 * of two. The memory stays the caller's and must outlive the reader.
 */
/* Added in 0.2: an overwrite ring (attr.write_backward must be set). */
TALLY_API struct tally_mmap *tally_mmap__new_overwrite(int fd, size_t pages);
TALLY_API bool tally_mmap__is_overwrite(const struct tally_mmap *m);

TALLY_API struct tally_mmap *tally_mmap__new_mem(void *base, size_t len);

/* Unmaps (for __new) and frees. NULL is fine. */
TALLY_API void tally_mmap__free(struct tally_mmap *m);

TALLY_API int tally_mmap__read_init(struct tally_mmap *m);
TALLY_API const struct perf_event_header *tally_mmap__read_event(struct tally_mmap *m);
TALLY_API void tally_mmap__consume(struct tally_mmap *m);
TALLY_API void tally_mmap__read_done(struct tally_mmap *m);

/*
 * Added in 0.2: the bytes of the records returned since the last
 * consume, where they lie in the ring: one piece, or two when they wrap
 * the end of the data area. For copying records out unchanged (into a
 * perf.data file) with no bounce copy; valid until consume/read_done.
 * Returns the number of pieces: 0, 1 or 2.
 */
TALLY_API int tally_mmap__read_iov(const struct tally_mmap *m, struct iovec *iov /* [2] */);

/* Records lost by the kernel (sum of PERF_RECORD_LOST.lost seen so far). */
TALLY_API uint64_t tally_mmap__lost(const struct tally_mmap *m);
/* The control page (also the event's self-monitoring page). */
TALLY_API struct perf_event_mmap_page *tally_mmap__page(const struct tally_mmap *m);
/* Bytes in the data area. */
TALLY_API size_t tally_mmap__data_size(const struct tally_mmap *m);
/* The fd given to __new, -1 for __new_mem. */
TALLY_API int tally_mmap__fd(const struct tally_mmap *m);

#ifdef __cplusplus
}
#endif
#endif
