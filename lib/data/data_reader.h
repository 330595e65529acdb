/* SPDX-License-Identifier: MIT */
/*
 * The reader's own layout, for its two files: data_read.c (open, records)
 * and data_read_feat.c (feature sections, event names, file info). The
 * modules above the reader see it opaque (data_read_internal.h).
 */
#ifndef TALLY_DATA_READER_H
#define TALLY_DATA_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/data_read.h>

struct tally__feat_cache;
struct tally__bpf_infos;

struct section { uint64_t offset, size; };

struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t adds_features[4];
};

struct rattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
};

struct tally_data_reader {
	const uint8_t *buf;
	size_t len;
	uint64_t nr_compressed;		/* COMPRESSED records walked (perf's stats count them) */
	bool mapped;
	bool caller_releases;		/* tally__data_reader_caller_releases */
	const uint8_t *map;		/* the file's mapping (buf is a part's during its walk) */
	size_t map_len;
	uintptr_t dropped_to;		/* the mapping's pages below let go (0: none yet) */
	struct file_header h;
	struct rattr *attrs;
	int nr_attrs;
	/* every attr's ids, sorted (id, then attr): a sample's attr by binary search */
	struct id_attr { uint64_t id; int attr; } *id_index;
	size_t nr_id_index;
	struct tally_data_error error;
	bool has_error;
	char **names;		/* EVENT_DESC, parsed on first ask */
	bool names_read;
	/* pipe format: no header sections, everything is a record */
	bool pipe;
	void *owned;		/* stdin read into memory (a stream: its header records) */
	int stream_fd;		/* a pipe stream still to read: records come from here, -1 */
	struct { const void *p; size_t len; } pfeat[256];
	struct { uint64_t id; const char *name; } *pnames;	/* EVENT_UPDATE names */
	size_t nr_pnames;
	bool swap;		/* written in the other byte order */
	void *sfeat[256];	/* its features, in host order */
	void **pcopies;		/* a swapped pipe's header records, in host order */
	size_t nr_pcopies;
	struct tally__feat_cache *fcache;	/* parsed features (data_header.c) */
	void (*fcache_free)(struct tally__feat_cache *c);	/* data_header's: it lies above */
	struct tally__bpf_infos *bpf;	/* BPF_PROG_INFO and BPF_BTF, parsed (bpf_info.c) */
	void (*bpf_free)(struct tally__bpf_infos *b);
	struct { const uint8_t *buf; size_t len; } *parts;	/* a directory's data.N, mapped */
	int nr_parts;
};

/* [off, off+size) inside the file, without overflow. */
static inline bool in_file(const struct tally_data_reader *r, uint64_t off, uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

/* Feature feat as the file has it (its byte order): 0, or -ENOENT. */
int tally__data_raw_feature(const struct tally_data_reader *r, int feat, const void **data,
			    size_t *len);

#endif
