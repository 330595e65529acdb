/* SPDX-License-Identifier: MIT */
/* Shared by the perf.data writer's modules: data_write.c (the file),
 * data_write_feat.c (its features), synth.c (synthesized records), tracing_data.c, build_id.c. */
#ifndef TALLY_DATA_WRITE_INTERNAL_H
#define TALLY_DATA_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/data_format.h>
#include "buf.h"

/* Bytes of the sample_id_all trailer attr gives (0 when NULL / none). */
size_t tally__sid_size(const struct perf_event_attr *attr);
/* Append that trailer: pid/tid when PERF_SAMPLE_TID, the rest 0. */
void tally__sid_add(struct tally__buf *b, const struct perf_event_attr *attr,
		    uint32_t pid, uint32_t tid);

/* The TRACING_DATA blob for the tracepoint attrs among attrs[nr]. */
int tally__tracing_data(struct tally__buf *b, const struct perf_event_attr *const *attrs,
			size_t nr);

/* The writer's state, shared by data_write.c (the file and its records)
 * and data_write_feat.c (the header features' payloads). */
#define FILE_ATTR_SIZE	128		/* perf 6.1's sizeof(struct perf_event_attr) */
#define ZMMAP_LEN	528384		/* what perf's COMPRESSED feature says: 129 pages */

struct tally__zstd;

struct wattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
};

struct wbid {
	int32_t pid;
	uint16_t misc;
	uint8_t id[20];
	uint8_t len;
	char *name;
};

struct tally_data_writer {
	int fd;
	bool pipe, begun, finished;
	int level;
	char **cmdline;
	int cmdline_nr;
	struct wattr *attrs;
	size_t nr_attrs;
	struct wbid *bids;
	size_t nr_bids;
	uint64_t bytes;		/* to the fd */
	uint64_t uncompressed;	/* handed to write/writev */
	uint64_t zbytes;	/* COMPRESSED record bytes */
	uint64_t zmax_chunk;
	uint64_t attrs_off, data_off;
	int time_off;		/* of TIME in every sample (same for all attrs), or -1 */
	uint64_t first_time, last_time;	/* SAMPLE_TIME feature */
	uint64_t good;		/* file: end of the last whole write */
	uint64_t samples;	/* SAMPLE records before good (pipe: written whole) */
	int err;		/* first write error (positive) */
	struct mark {		/* record boundaries, >= 4 KiB apart */
		uint64_t off, samples;
	} *marks;
	size_t nr_marks, cap_marks;
	struct wgroup {		/* GROUP_DESC's: attrs leader..leader+nr-1 */
		int leader, nr;
		char *name;	/* NULL: anonymous */
	} *groups;
	size_t nr_groups;
	struct tally__buf scs;	/* SC_STRINGS' entries (sc_strings_feat.c) */
	uint32_t nr_scs;
	struct tally__zstd *z;
	struct tally__buf zin;
	unsigned char *zout;
	size_t zout_cap;
};

/* The attr as the file holds it: FILE_ATTR_SIZE bytes. */
static inline void tally__put_attr(struct tally__buf *b, const struct perf_event_attr *attr)
{
	unsigned char tmp[sizeof(*attr) > FILE_ATTR_SIZE ? sizeof(*attr) : FILE_ATTR_SIZE];

	memset(tmp, 0, sizeof(tmp));
	memcpy(tmp, attr, sizeof(*attr));
	tally__buf_add(b, tmp, FILE_ATTR_SIZE);
}

/* One BUILD_ID entry; type 0 in the feature, HEADER_BUILD_ID as a record. */
void tally__put_build_id(struct tally__buf *b, const struct wbid *e, uint32_t type);
/* The payload of feature `feat` into b; false when this writer has none. */
bool tally__data_write_feature(struct tally_data_writer *w, int feat, struct tally__buf *b);

#endif
