/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader: a file (mapped), perf's pipe format (streamed from a
 * pipe or stdin), perf record --threads' directory; written in either
 * byte order (a file from the other one is brought to this machine's as
 * it is read). Offsets stored in the file are checked against its size;
 * a bad or truncated record stops the walk and is reported by __error()
 * while every record before it has been delivered. A file that cannot
 * be opened at all says where and why through __open_error().
 */
#ifndef TALLY_DATA_READ_H
#define TALLY_DATA_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/data_format.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_data_reader;

struct tally_data_error {
	uint64_t offset;	/* file offset of the first bad record */
	uint32_t type;		/* its header type (0 when unreadable) */
	int err;		/* -EBADMSG, -ENODATA (truncated) */
	char msg[128];
};

typedef int (*tally_data_record_fn)(void *ctx,
				    const struct perf_event_header *h,
				    uint64_t file_offset, int attr_idx);

/* A file, "-" (stdin), or perf record --threads' directory (DIR/data, then each DIR/data.N). */
TALLY_API struct tally_data_reader *tally_data_reader__open(const char *path);
/* Added in 0.3: over an open fd (a file, mapped; a pipe, streamed). The fd stays the caller's. */
TALLY_API struct tally_data_reader *tally_data_reader__open_fd(int fd);
/* buf must outlive the reader; it is not copied. */
TALLY_API struct tally_data_reader *tally_data_reader__open_mem(const void *buf,
								size_t len);
TALLY_API void tally_data_reader__close(struct tally_data_reader *r);
TALLY_API int tally_data_reader__nr_attrs(const struct tally_data_reader *r);
TALLY_API const struct perf_event_attr *
tally_data_reader__attr(const struct tally_data_reader *r, int idx);
TALLY_API int tally_data_reader__attr_of_id(const struct tally_data_reader *r,
					    uint64_t id);
/* File order; stops at the first bad record or a non-zero fn return. */
TALLY_API int tally_data_reader__foreach(struct tally_data_reader *r,
					 tally_data_record_fn fn, void *ctx);
/*
 * Added in 0.2: whether a record foreach handed over lies in the file's
 * own mapping, and so stays readable until close without a copy (pages
 * the walk left behind come back from the page cache when read again).
 * False for records of a pipe, a COMPRESSED record, an unaligned or
 * byte-swapped one: those are valid only during the call.
 */
TALLY_API bool tally_data_reader__record_stays(const struct tally_data_reader *r,
					       const struct perf_event_header *h);
/*
 * Added in 0.2: a feature section (HEADER_* bit: 1 TRACING_DATA, 12
 * EVENT_DESC...) as it lies in the file: 0, or -ENOENT when the file has
 * no such section or it runs past the end.
 */
TALLY_API int tally_data_reader__feature(const struct tally_data_reader *r, int feat,
					 const void **data, size_t *len);
/* Added in 0.2: where the file's parts lie, and which features it has. */
struct tally_data_file_info {
	uint64_t data_offset, data_size;	/* 0 for a pipe */
	uint64_t feat_offset;			/* the feature table */
	uint64_t features[4];			/* HEADER_* bits (a pipe: the ones its records carried) */
	uint64_t file_size;
};
TALLY_API int tally_data_reader__file_info(const struct tally_data_reader *r,
					   struct tally_data_file_info *out);
/* The file is in pipe format (perf's `-o -`); `-i -` reads stdin. */
TALLY_API bool tally_data_reader__is_pipe(const struct tally_data_reader *r);
/* The event's name from EVENT_DESC (attr idx), else perf's name for its attr; NULL without memory. */
TALLY_API const char *tally_data_reader__event_name(struct tally_data_reader *r, int idx);
TALLY_API const struct tally_data_error *
tally_data_reader__error(const struct tally_data_reader *r);
/*
 * Added in 0.4: why the last open on this thread (tally_data_reader__open*,
 * tally_session__open*) failed on the file's content, as __error() says
 * after a walk: the offset, the reason in msg ("not a perf.data file (no
 * PERFILE2 magic) at offset 0"), err -EBADMSG (damaged, not perf.data; an
 * empty file) or -ENODATA (no events). NULL when that open succeeded or
 * failed before reading anything (ENOENT, EACCES, ENOMEM: errno says).
 * Valid until the next open on this thread.
 */
TALLY_API const struct tally_data_error *tally_data_reader__open_error(void);

/*
 * Added in 0.3: the header features, parsed (what perf report --header
 * shows). Each returns -ENOENT (errno set) when the file lacks the
 * feature, -EBADMSG when it does not parse; what it hands out stays
 * valid until close. feat: TALLY_HEADER_* (tally/data_format.h).
 */
/* "HOSTNAME", ... for a feature bit; NULL (ENOENT) past perf 6.1's. */
TALLY_API const char *tally_header_feature__name(int feat);
/* HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: the string, or NULL + errno. */
TALLY_API const char *tally_data_reader__feat_string(const struct tally_data_reader *r, int feat);
/* NRCPUS: online and available CPUs (either pointer may be NULL). */
TALLY_API int tally_data_reader__nrcpus(const struct tally_data_reader *r, uint32_t *online,
					uint32_t *avail);
/* TOTAL_MEM, in KiB. */
TALLY_API int tally_data_reader__total_mem(const struct tally_data_reader *r, uint64_t *kib);
/*
 * BUILD_ID: the build id the recording noted for the file at path (perf's
 * build_id_event entries), copied to id (20 bytes at most): its length,
 * 0 when the file noted none (or has no such section).
 */
TALLY_API int tally_data_reader__build_id(const struct tally_data_reader *r, const char *path,
					  uint8_t id[20]);
/*
 * Added in 0.5: the path of the BUILD_ID table's i-th entry (from 0), or
 * NULL past its end (or without the section): the files the recording
 * noted, which its samples fell in.
 */
TALLY_API const char *tally_data_reader__build_id_path(const struct tally_data_reader *r,
						       size_t i);
/* SAMPLE_TIME: the first and last sample's times. */
TALLY_API int tally_data_reader__sample_time(const struct tally_data_reader *r, uint64_t *first,
					     uint64_t *last);
/* CMDLINE: up to max arguments into argv; returns how many the file has. */
TALLY_API int tally_data_reader__cmdline(const struct tally_data_reader *r, const char **argv,
					 int max);
/* EVENT_DESC: each event's name, attr (as written, zero-extended) and ids. */
struct tally_event_desc {
	const char *name;
	struct perf_event_attr attr;
	uint32_t nr_ids;
	const uint64_t *ids;
};
/* The count of events, *out the array. */
TALLY_API int tally_data_reader__event_descs(const struct tally_data_reader *r,
					     const struct tally_event_desc **out);
/* PMU_MAPPINGS: each PMU's type number and name. */
struct tally_pmu_mapping {
	uint32_t type;
	const char *name;
};
TALLY_API int tally_data_reader__pmu_mappings(const struct tally_data_reader *r,
					      const struct tally_pmu_mapping **out);
/* CPU_TOPOLOGY: the sibling lists ("0-1", ...) of cores and of threads. */
struct tally_cpu_topology {
	int nr_cores;
	const char **cores;
	int nr_threads;
	const char **threads;
};
TALLY_API int tally_data_reader__cpu_topology(const struct tally_data_reader *r,
					      struct tally_cpu_topology *out);
/*
 * Added in 0.5: CPU_TOPOLOGY's socket (physical package) of each of the
 * NRCPUS available CPUs, after the sibling lists (perf's
 * env->cpu[].socket_id): the first n into out. How many CPUs it gives;
 * 0 where the file records none (an older perf's section).
 */
TALLY_API int tally_data_reader__cpu_sockets(const struct tally_data_reader *r, int32_t *out,
					     int n);
/*
 * Added in 0.5: GROUP_DESC, the event groups recorded ({a,b}): each
 * group's leader (an attr index), its size (the leader and the attrs
 * after it) and its name (NULL: perf's "{anon_group}", no name). The
 * first n into out; how many the file records (0: none, or no such
 * section), -EINVAL where the section is damaged or a group's attrs are
 * not the file's.
 */
struct tally_event_group {
	const char *name;
	int leader;
	int nr_members;
};
TALLY_API int tally_data_reader__groups(const struct tally_data_reader *r,
					struct tally_event_group *out, int n);
/* NUMA_TOPOLOGY: each node, its memory (KiB) and CPU list. */
struct tally_numa_node {
	uint32_t node;
	uint64_t mem_total, mem_free;
	const char *cpus;
};
TALLY_API int tally_data_reader__numa_nodes(const struct tally_data_reader *r,
					    const struct tally_numa_node **out);

/*
 * Added in 0.4: the BPF programs loaded while the file was recorded
 * (HEADER_BPF_PROG_INFO), in id order, each with its JIT'ed functions
 * named as perf names them ("bpf_prog_<tag>_<name>", the name from the
 * file's BTF where it has it); and the ids of the BTF blobs the file
 * carries (HEADER_BPF_BTF), in order. The count (0 without the section),
 * or -errno; the arrays live as long as the reader.
 */
struct tally_bpf_func {
	const char *name;
	uint64_t addr;
	uint32_t size;
};
struct tally_bpf_prog {
	uint32_t id;
	uint32_t nr_funcs;
	const struct tally_bpf_func *funcs;
};
TALLY_API int tally_data_reader__bpf_progs(const struct tally_data_reader *r,
					   const struct tally_bpf_prog **out);
TALLY_API int tally_data_reader__btf_ids(const struct tally_data_reader *r, const uint32_t **out);

/*
 * Added in 0.5: tally trace record's path strings (TALLY_HEADER_SC_STRINGS,
 * a section of tally's that perf skips; struct tally_sc_string in
 * tally/data_format.h), each handed to fn (NULL: only counted) in the
 * file's order. The section is checked whole first: a damaged one hands
 * none. The count; -ENOENT without the section; -EBADMSG when it is
 * damaged or cut short (*err, when not NULL: its file offset and why);
 * or fn's non-zero return. The strings lie in the file: valid until close.
 */
typedef int (*tally_sc_string_fn)(void *ctx, const struct tally_sc_string *s);
TALLY_API int tally_data_reader__sc_strings(const struct tally_data_reader *r,
					    tally_sc_string_fn fn, void *ctx,
					    struct tally_data_error *err);

#ifdef __cplusplus
}
#endif

#endif
