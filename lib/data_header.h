/* SPDX-License-Identifier: MIT */
/* The reader's parsed header features (data_header.c), kept until close. */
#ifndef TALLY_DATA_HEADER_H
#define TALLY_DATA_HEADER_H

struct tally__feat_cache;
struct tally_data_reader;

void tally__feat_cache_free(struct tally__feat_cache *c);
/* The reader's cache slot (made on first ask). */
struct tally__feat_cache **tally__data_reader_feat_cache(const struct tally_data_reader *r);

#endif
