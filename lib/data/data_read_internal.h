/* SPDX-License-Identifier: MIT */
/*
 * The reader's slot for its parsed header features: data_header.c (above
 * the reader) fills it and hands the function that frees it, which the
 * reader calls at close.
 */
#ifndef TALLY_DATA_READ_INTERNAL_H
#define TALLY_DATA_READ_INTERNAL_H

struct tally__feat_cache;
struct tally_data_reader;

/* The reader's cache slot (made on first ask); release frees it at close. */
struct tally__feat_cache **tally__data_reader_feat_cache(const struct tally_data_reader *r,
							 void (*release)(struct tally__feat_cache *));

#endif
