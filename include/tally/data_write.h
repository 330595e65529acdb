/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer (what perf record writes, perf 6.1 reads it), the
 * records perf synthesizes for what already runs (kernel map, COMM,
 * FORK, MMAP2) and build ids.
 *
 *	w = tally_data_writer__new_fd(fd, &opts);
 *	tally_data_writer__add_attr(w, attr, ids, nr_ids, "cycles");   one per evsel
 *	tally_data_writer__begin(w);
 *	tally_synth__kernel_mmap(w, attr); tally_synth__process(w, attr, pid, true);
 *	tally_data_writer__write(w, records, len);  ... finished_round() ...
 *	tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, id, n, path);
 *	tally_data_writer__finish(w);
 *	tally_data_writer__free(w);
 *
 * Errors are negative errnos. A failed write (-ENOSPC) is returned, the
 * writer keeps the data written so far in whole records, and finish()
 * still patches the header (dropping features, then trailing data when
 * space is short) so perf reads what was saved.
 */
#ifndef TALLY_DATA_WRITE_H
#define TALLY_DATA_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/perf_event.h>
#include <tally/core.h>
#include <tally/data_format.h>
#include <tally/offcpu.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_data_writer;

struct tally_data_writer_opts {
	size_t sz;
	bool pipe;			/* pipe format (perf's `-o -`): no seeks, header records */
	int zstd_level;			/* >0: data records go out as PERF_RECORD_COMPRESSED (81) */
	const char *const *cmdline;	/* CMDLINE feature (argv of the tool) */
	int cmdline_nr;
	size_t :0;
};
#define tally_data_writer_opts__last_field cmdline_nr

/* NULL + errno. The fd is not closed by the writer. File mode writes
 * from offset 0 and seeks (begin: -ESPIPE on a pipe, -EINVAL at another
 * offset); pipe mode only ever write()s. */
TALLY_API struct tally_data_writer *
tally_data_writer__new_fd(int fd, const struct tally_data_writer_opts *opts);
/*
 * Before begin: one per evsel; ids = every kernel id of that evsel, name
 * for EVENT_DESC (NULL: none). attr.size above 128 (what perf 6.1 reads)
 * is written as 128.
 */
TALLY_API int tally_data_writer__add_attr(struct tally_data_writer *w,
					  const struct perf_event_attr *attr,
					  const uint64_t *ids, size_t nr_ids, const char *name);
/*
 * Added in 0.5, before begin: attrs leader..leader+nr-1 (added or to
 * come) were recorded as one group (-e '{a,b}'), written as perf's
 * GROUP_DESC (a group whose attrs the file lacks is left out). name
 * NULL: an anonymous group. 0, -EINVAL (nr < 2, or an attr in two
 * groups), -EBUSY (begun), -ENOMEM.
 */
TALLY_API int tally_data_writer__add_group(struct tally_data_writer *w, int leader, int nr,
					   const char *name);
/*
 * File: the header placeholder, the ids and attrs. Pipe: the 16-byte
 * header, HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA and
 * EVENT_UPDATE (names) records.
 */
TALLY_API int tally_data_writer__begin(struct tally_data_writer *w);
/* Data records (whole records), any number; compressed when zstd_level > 0. */
TALLY_API int tally_data_writer__write(struct tally_data_writer *w, const void *buf, size_t len);
TALLY_API int tally_data_writer__writev(struct tally_data_writer *w, const struct iovec *iov,
					int n);
/* A PERF_RECORD_FINISHED_ROUND (68). */
TALLY_API int tally_data_writer__finished_round(struct tally_data_writer *w);
/* Before finish: one BUILD_ID entry (pid -1 for the host; misc = cpumode). */
TALLY_API int tally_data_writer__add_build_id(struct tally_data_writer *w, int32_t pid,
					      uint16_t misc, const uint8_t *id, size_t id_len,
					      const char *filename);
/*
 * Added in 0.5: one path string for the TALLY_HEADER_SC_STRINGS section
 * (tally/data_format.h; tally trace record's), copied; written by finish
 * after perf's sections, which perf 6.1 reads as if it were not there.
 * File mode only: -EOPNOTSUPP on a pipe (perf 6.1 warns of a feature
 * record it does not know); -EINVAL for an arg past 5 or a string
 * longer than 4095 bytes; -ENOMEM.
 */
TALLY_API int tally_data_writer__add_sc_string(struct tally_data_writer *w,
					       const struct tally_sc_string *s);
/*
 * File: the features after the data, the header patched (data.size...).
 * Pipe: build ids as HEADER_BUILD_ID records. 0, or the first error
 * (-ENOSPC...) met since new_fd.
 */
TALLY_API int tally_data_writer__finish(struct tally_data_writer *w);
/* Bytes written to the fd so far. */
TALLY_API uint64_t tally_data_writer__bytes(const struct tally_data_writer *w);
/*
 * SAMPLE records that reached the file whole (after a failed write or a
 * finish that cut data to make room: those the file keeps).
 */
TALLY_API uint64_t tally_data_writer__samples(const struct tally_data_writer *w);
/* Data bytes handed to write/writev, before compression. */
TALLY_API uint64_t tally_data_writer__uncompressed(const struct tally_data_writer *w);
/* Added in 0.4: bytes of the COMPRESSED records written (0 without zstd_level). */
TALLY_API uint64_t tally_data_writer__compressed(const struct tally_data_writer *w);
/* Does not close the fd. NULL-safe. */
TALLY_API void tally_data_writer__free(struct tally_data_writer *w);

/*
 * Synthesized records written through the writer (time 0). sid_attr
 * gives the sample_id_all trailer (NULL or without sample_id_all: none):
 * pid/tid filled when PERF_SAMPLE_TID is set, the rest 0.
 */
/* The kernel map "[kernel.kallsyms]_text", start = pgoff = _text
 * (/proc/kallsyms), len up to _edata, then one MMAP per module
 * (/proc/modules, path from modules.dep). -EACCES when kptr_restrict
 * hides the addresses (nothing written). */
TALLY_API int tally_synth__kernel_mmap(struct tally_data_writer *w,
				       const struct perf_event_attr *sid_attr);
/* COMM for every thread of pid; with mmaps, MMAP2 of its executable maps.
 * -ESRCH when pid does not exist (any more). */
TALLY_API int tally_synth__process(struct tally_data_writer *w,
				   const struct perf_event_attr *sid_attr, pid_t pid, bool mmaps);
/* Every process in /proc as perf -a: FORK + COMM per thread, MMAP2 of the
 * executable maps; processes exiting meanwhile are skipped. */
TALLY_API int tally_synth__all(struct tally_data_writer *w,
			       const struct perf_event_attr *sid_attr);

/*
 * PERF_RECORD_LOST_SAMPLES (13), as perf 6.1 writes one per event fd at the
 * end from its PERF_FORMAT_LOST count: lost, then the trailer of sid_attr
 * with id (the fd's kernel id) in its ID/IDENTIFIER slots, the rest 0.
 * perf report's "Total Lost Samples" is the sum of these.
 */
TALLY_API int tally_synth__lost_samples(struct tally_data_writer *w,
					const struct perf_event_attr *sid_attr, uint64_t id,
					uint64_t lost);

/*
 * Added in 0.4: one offcpu-time sample (tally record --off-cpu) as perf
 * 6.1 writes them at the end of a recording: attr the offcpu-time
 * event's (its sample_type within IDENTIFIER IP TID TIME ID CPU PERIOD
 * CALLCHAIN, else -EINVAL), id its kernel id, nth its rank among them
 * (below TALLY_OFFCPU_NTH_MAX). The time is perf's dummy, past any real
 * one, with the wait state in bits 28-29: TALLY_OFFCPU_STATE() reads it.
 */
#define TALLY_OFFCPU_TIME		(~0ull << 32)
#define TALLY_OFFCPU_NTH_MAX		(1u << 28)
#define TALLY_OFFCPU_STATE(time)	((time) >= TALLY_OFFCPU_TIME ? \
					 (unsigned)((time) >> 28) & 3 : 0)
TALLY_API int tally_synth__offcpu(struct tally_data_writer *w,
				  const struct perf_event_attr *attr, uint64_t id,
				  const struct tally_offcpu_entry *e, uint32_t nth);

/*
 * Added in 0.5: a PERF_RECORD_CGROUP for every cgroup there is (record
 * --all-cgroups), as perf 6.1 writes them: the hierarchy of the
 * perf_event controller (v1), else the cgroup2 mount, walked depth
 * first; each id the kernel's (its file handle), each path from that
 * mount ("/", "/a", "/a/b"). -ENOENT with no cgroup fs mounted.
 */
TALLY_API int tally_synth__cgroups(struct tally_data_writer *w,
				   const struct perf_event_attr *sid_attr);

/*
 * Added in 0.5: a PERF_RECORD_NAMESPACES for every thread of pid (record
 * --namespaces), every process's with pid -1, as perf 6.1 synthesizes
 * them: its 7 namespaces (net, uts, ipc, pid, user, mnt, cgroup: the
 * kernel's link_info order), each /proc/TID/ns/NAME's device and inode,
 * 0 and 0 where it cannot be read. -ESRCH when pid does not exist (any
 * more); processes exiting meanwhile are skipped with -1.
 */
TALLY_API int tally_synth__namespaces(struct tally_data_writer *w,
				      const struct perf_event_attr *sid_attr, pid_t pid);

/* NT_GNU_BUILD_ID of an ELF file: its length, 0 when it has none, or -errno. */
TALLY_API int tally_build_id__file(const char *path, uint8_t *id, size_t max);
/* The running kernel's, from /sys/kernel/notes: length or -errno. */
TALLY_API int tally_build_id__kernel(uint8_t *id, size_t max);
/* Added in 0.4: this process's [vdso] image's (the kernel's): length or -errno. */
TALLY_API int tally_build_id__vdso(uint8_t *id, size_t max);
/*
 * Added in 0.4: keeps name, whose build id is id, in perf's build-id
 * cache as perf record does, so the recorded code outlives a rebuild:
 * DIR/<real path>/<id>/elf (a hard link, else a copy) and the link
 * DIR/.build-id/<xx>/<rest> -> ../../<real path>/<id>; name "[vdso]":
 * this process's vdso image as DIR/[vdso]/<id>/vdso. dir NULL: perf's
 * (its config's buildid.dir, else $HOME/.debug). An entry already there
 * is kept. 0, or -errno (EINVAL for a name that is neither a path nor
 * [vdso]).
 */
TALLY_API int tally_build_id_cache__add(const char *dir, const char *name, const uint8_t *id,
					size_t id_len);

#ifdef __cplusplus
}
#endif
#endif
