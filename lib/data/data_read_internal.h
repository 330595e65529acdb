/* SPDX-License-Identifier: MIT */
/*
 * The reader's slot for its parsed header features: data_header.c (above
 * the reader) fills it and hands the function that frees it, which the
 * reader calls at close. And the pages of records a caller has applied.
 */
#ifndef TALLY_DATA_READ_INTERNAL_H
#define TALLY_DATA_READ_INTERNAL_H

#include <stdint.h>

struct tally__feat_cache;
struct tally__bpf_infos;
struct tally_data_reader;

/* The reader's cache slot (made on first ask); release frees it at close. */
struct tally__feat_cache **tally__data_reader_feat_cache(const struct tally_data_reader *r,
							 void (*release)(struct tally__feat_cache *));
/* The same for bpf_info.c's parse of BPF_PROG_INFO and BPF_BTF. */
struct tally__bpf_infos **tally__data_reader_bpf_infos(const struct tally_data_reader *r,
						      void (*release)(struct tally__bpf_infos *));

/*
 * The caller is done with the records in [lo, hi) of the file's mapping:
 * the pages they touch leave the resident set (a record still queued on
 * one of them faults it back from the page cache). Nothing for records
 * outside the mapping.
 */
void tally__data_reader_release(struct tally_data_reader *r, const void *lo, const void *hi);
/*
 * The caller releases the records' pages (above): the walk keeps its
 * own hands off them (with two threads it runs rounds ahead of the
 * records applied, and pages it let go faulted back in).
 */
void tally__data_reader_caller_releases(struct tally_data_reader *r);
/* COMPRESSED records walked so far (their records go to the walk's callback, not they) */
uint64_t tally__data_reader_nr_compressed(const struct tally_data_reader *r);

/*
 * An open above the reader (the session's) fails on the file's content:
 * what tally_data_reader__open_error says next on this thread. err: -EBADMSG,
 * -ENODATA.
 */
void tally__data_open_fail(uint64_t off, int err, const char *why);

/* Rebuild r's sorted id index after its attrs changed. 0 or -ENOMEM. */
int tally__data_reader_index_ids(struct tally_data_reader *r);

#endif
