/* SPDX-License-Identifier: MIT */
/*
 * The record decoder: one perf record (struct perf_event_header + body,
 * as the ring or a perf.data file holds it) -> a struct, given the layout
 * its attr implies. A pure function of (buf, len, layout): no allocation,
 * no state, never reads outside [buf, buf + len).
 *
 * Zero copy: every pointer in the result points into buf and lives as
 * long as buf. Scalars are loaded with memcpy, so buf may have any
 * alignment; the typed array pointers (callchain ips, branch entries,
 * regs, namespaces) are 8-byte aligned when buf is, which the ring
 * (tally_mmap__read_event) and perf.data records always are. The decoder
 * enforces the kernel's own padding rules (RAW and STACK_USER keep the
 * fields after them 8-aligned) so that promise holds.
 *
 *	struct tally_record_layout lay;
 *	struct tally_record r;
 *
 *	tally_record_layout__from_attr(&lay, &attr);
 *	while ((ev = tally_mmap__read_event(m)))
 *		if (!tally_record__parse(ev, ev->size, &lay, &r) &&
 *		    r.type == PERF_RECORD_SAMPLE)
 *			use(r.u.sample.ip, r.u.sample.callchain.nr, ...);
 *
 * With several attrs on one ring, tally_record__id() finds the event id
 * of any record (PERF_SAMPLE_IDENTIFIER makes that layout-independent)
 * so the reader can pick the attr and its layout first.
 */
#ifndef TALLY_RECORD_H
#define TALLY_RECORD_H

#include <linux/perf_event.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an attr says about the layout of its records. */
struct tally_record_layout {
	uint64_t sample_type;		/* PERF_SAMPLE_* */
	uint64_t read_format;		/* PERF_FORMAT_* */
	uint64_t branch_sample_type;	/* only PERF_SAMPLE_BRANCH_HW_INDEX matters */
	uint64_t sample_regs_user;	/* popcount = regs in REGS_USER */
	uint64_t sample_regs_intr;	/* popcount = regs in REGS_INTR */
	bool sample_id_all;		/* non-sample records end with a tally_sample_id */
};

/* Copies the layout fields out of attr. */
TALLY_API void tally_record_layout__from_attr(struct tally_record_layout *lay,
					      const struct perf_event_attr *attr);

/*
 * The sample_id_all trailer (TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER in
 * that order, each only if its bit is in sample_type). Fields whose bit is
 * absent are 0. id is the IDENTIFIER when present, else ID.
 */
struct tally_sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/*
 * read_format values, inside a SAMPLE (PERF_SAMPLE_READ) or a
 * PERF_RECORD_READ. nr is 1 without PERF_FORMAT_GROUP. raw points at the
 * first u64 of the values in buf; read them with tally_read_values__entry().
 */
struct tally_read_values {
	uint64_t read_format;
	uint64_t nr;
	uint64_t time_enabled;		/* PERF_FORMAT_TOTAL_TIME_ENABLED */
	uint64_t time_running;		/* PERF_FORMAT_TOTAL_TIME_RUNNING */
	const void *raw;
};

struct tally_read_entry {
	uint64_t value;
	uint64_t id;			/* PERF_FORMAT_ID, else 0 */
	uint64_t lost;			/* PERF_FORMAT_LOST (Linux 6.0), else 0 */
};

/* Entry i (0 .. nr-1) of rv. 0, or -ERANGE for i >= nr, -EINVAL for NULL. */
TALLY_API int tally_read_values__entry(const struct tally_read_values *rv, uint64_t i,
				       struct tally_read_entry *e);

/* REGS_USER / REGS_INTR: no regs when abi == PERF_SAMPLE_REGS_ABI_NONE (0). */
struct tally_sample_regs {
	uint64_t abi;
	uint64_t mask;			/* the attr's sample_regs_* */
	uint32_t nr;			/* popcount(mask), or 0 when abi == 0 */
	const uint64_t *regs;		/* nr values, in mask bit order */
};

/*
 * PERF_RECORD_SAMPLE, fields in the man page's order. A field whose
 * PERF_SAMPLE_* bit is not in the layout is 0 / NULL.
 */
struct tally_sample {
	uint64_t identifier;		/* IDENTIFIER */
	uint64_t ip;			/* IP */
	uint32_t pid, tid;		/* TID */
	uint64_t time;			/* TIME */
	uint64_t addr;			/* ADDR */
	uint64_t id;			/* ID */
	uint64_t stream_id;		/* STREAM_ID */
	uint32_t cpu;			/* CPU (the u32 after it is reserved) */
	uint64_t period;		/* PERIOD */
	struct tally_read_values read;	/* READ */
	struct {			/* CALLCHAIN; PERF_CONTEXT_* markers included */
		uint64_t nr;
		const uint64_t *ips;
	} callchain;
	struct {			/* RAW; size includes the kernel's padding */
		uint32_t size;
		const void *data;
	} raw;
	struct {			/* BRANCH_STACK */
		uint64_t nr;
		uint64_t hw_idx;	/* with PERF_SAMPLE_BRANCH_HW_INDEX (Linux 5.7) */
		bool has_hw_idx;
		const struct perf_branch_entry *entries;
	} branch_stack;
	struct tally_sample_regs regs_user;	/* REGS_USER */
	struct {			/* STACK_USER */
		uint64_t size;
		const void *data;
		uint64_t dyn_size;	/* bytes of data actually valid; 0 when size == 0 */
	} stack_user;
	uint64_t weight;		/* WEIGHT, or WEIGHT_STRUCT (union perf_sample_weight) */
	uint64_t data_src;		/* DATA_SRC (union perf_mem_data_src) */
	uint64_t transaction;		/* TRANSACTION */
	struct tally_sample_regs regs_intr;	/* REGS_INTR */
	uint64_t phys_addr;		/* PHYS_ADDR */
	uint64_t cgroup;		/* CGROUP */
	uint64_t data_page_size;	/* DATA_PAGE_SIZE */
	uint64_t code_page_size;	/* CODE_PAGE_SIZE */
	struct {			/* AUX */
		uint64_t size;
		const void *data;
	} aux;
};

/* Bodies of the other kernel records (perf_event_open(2), PERF_RECORD_*). */
struct tally_record_mmap {		/* MMAP */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	const char *filename;
};

struct tally_record_lost {		/* LOST */
	uint64_t id, lost;
};

struct tally_record_comm {		/* COMM; misc PERF_RECORD_MISC_COMM_EXEC on exec */
	uint32_t pid, tid;
	const char *comm;
};

struct tally_record_task {		/* EXIT and FORK */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct tally_record_throttle {		/* THROTTLE and UNTHROTTLE */
	uint64_t time, id, stream_id;
};

struct tally_record_read {		/* READ */
	uint32_t pid, tid;
	struct tally_read_values values;
};

struct tally_record_mmap2 {		/* MMAP2 */
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	/* misc PERF_RECORD_MISC_MMAP_BUILD_ID (Linux 5.12): build id, else maj..ino_generation */
	bool has_build_id;
	uint8_t build_id_size;		/* <= 20 */
	const uint8_t *build_id;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	const char *filename;
};

struct tally_record_aux {		/* AUX */
	uint64_t aux_offset, aux_size, flags;	/* flags: PERF_AUX_FLAG_* */
};

struct tally_record_itrace_start {	/* ITRACE_START */
	uint32_t pid, tid;
};

struct tally_record_lost_samples {	/* LOST_SAMPLES */
	uint64_t lost;
};

struct tally_record_switch_cpu_wide {	/* SWITCH_CPU_WIDE; SWITCH has no body */
	uint32_t next_prev_pid, next_prev_tid;
};

struct tally_record_namespaces {	/* NAMESPACES */
	uint32_t pid, tid;
	uint64_t nr;
	const struct perf_ns_link_info *link_info;
};

struct tally_record_ksymbol {		/* KSYMBOL */
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	const char *name;
};

struct tally_record_bpf_event {		/* BPF_EVENT */
	uint16_t type, flags;
	uint32_t id;
	const uint8_t *tag;		/* 8 bytes (BPF_TAG_SIZE) */
};

struct tally_record_cgroup {		/* CGROUP */
	uint64_t id;
	const char *path;
};

struct tally_record_text_poke {		/* TEXT_POKE */
	uint64_t addr;
	uint16_t old_len, new_len;
	const uint8_t *bytes;		/* old_len old bytes, then new_len new ones */
};

struct tally_record_aux_output_hw_id {	/* AUX_OUTPUT_HW_ID */
	uint64_t hw_id;
};

struct tally_record {
	uint32_t type;			/* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;			/* header.size: the caller steps by it */
	union {
		struct tally_sample sample;
		struct tally_record_mmap mmap;
		struct tally_record_lost lost;
		struct tally_record_comm comm;
		struct tally_record_task task;		/* EXIT, FORK */
		struct tally_record_throttle throttle;	/* THROTTLE, UNTHROTTLE */
		struct tally_record_read read;
		struct tally_record_mmap2 mmap2;
		struct tally_record_aux aux;
		struct tally_record_itrace_start itrace_start;
		struct tally_record_lost_samples lost_samples;
		struct tally_record_switch_cpu_wide switch_cpu_wide;
		struct tally_record_namespaces namespaces;
		struct tally_record_ksymbol ksymbol;
		struct tally_record_bpf_event bpf_event;
		struct tally_record_cgroup cgroup;
		struct tally_record_text_poke text_poke;
		struct tally_record_aux_output_hw_id aux_output_hw_id;
	} u;
	/*
	 * has_sid: the trailer of a non-sample kernel record was decoded
	 * (layout.sample_id_all). For a SAMPLE, sid holds the sample's own
	 * pid/tid/time/id/stream_id/cpu and has_sid is true too, so a reader
	 * that sorts or routes by time or id looks in one place.
	 */
	struct tally_sample_id sid;
	bool has_sid;
};

/*
 * Decode the record at buf (header.size <= len; bytes past header.size
 * are ignored) into *out, all of which is overwritten.
 *   0         decoded. A type the decoder does not know (perf's user
 *             types >= 64 included: PERF_RECORD_HEADER_ATTR, ...) gives
 *             0 with only type/misc/size filled: skip it by size.
 *   -EBADMSG  the bytes contradict the layout: header.size below 8, past
 *             len or (kernel types) not a multiple of 8, a field or count that runs past the record, a string
 *             without its NUL, bytes left over after a sample's last field
 *             or a fixed-size body, RAW/STACK_USER sizes that break the
 *             kernel's 8-byte padding, dyn_size > size, build_id_size > 20.
 *   -EINVAL   NULL argument, or a layout no kernel accepts (sample_type or
 *             read_format bits unknown to this version, WEIGHT together
 *             with WEIGHT_STRUCT).
 */
TALLY_API int tally_record__parse(const void *buf, size_t len,
				  const struct tally_record_layout *lay,
				  struct tally_record *out);

/*
 * The event id of the record at buf, without decoding it: the first u64
 * of a sample with PERF_SAMPLE_IDENTIFIER or the last u64 of a trailer
 * with it; otherwise PERF_SAMPLE_ID at the position the layout gives.
 * 0, -ENOENT (the layout or record carries no id: no ID/IDENTIFIER bit,
 * no sample_id_all, a user type), -EBADMSG (too short), -EINVAL (NULL).
 */
TALLY_API int tally_record__id(const void *buf, size_t len,
			       const struct tally_record_layout *lay, uint64_t *id);

/*
 * Added in 0.2: the record's time (the sample's TIME, or the
 * sample_id_all trailer's) without decoding the rest, for readers that
 * order records before they decode them. 0, -ENOENT (no TIME bit, no
 * sample_id_all, a user type), -EBADMSG (too short), -EINVAL (NULL).
 */
TALLY_API int tally_record__time(const void *buf, size_t len,
				 const struct tally_record_layout *lay, uint64_t *time);

/*
 * "SAMPLE", "MMAP2", ... for the kernel's types (1..21) and perf's user
 * types (64..82: "HEADER_ATTR", "FINISHED_ROUND", "COMPRESSED", ...).
 * NULL with errno ENOENT for any other type.
 */
TALLY_API const char *tally_record__type_name(uint32_t type);

#ifdef __cplusplus
}
#endif
#endif
