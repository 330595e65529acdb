/* SPDX-License-Identifier: MIT */
/*
 * The reader's insides, for its files: read.c (the queries and their
 * answers), names.c (names for the frames that came without one),
 * profile.c (the answers as a perf.data and the function tables) and
 * profile_data.c (the data all three share).
 */
#ifndef TALLY_STORE_READ_INTERNAL_H
#define TALLY_STORE_READ_INTERNAL_H

#include <stdint.h>
#include <tally/store.h>
#include <tally/symbols.h>
#include "buf.h"
#include "strpool.h"

/* A frame as stored; strings interned in the profile's pool ("" for none). */
struct store_frame {
	char level;			/* 'k' or '.' */
	const char *func;		/* "" unnamed (names.c may name it) */
	const char *dso;
	const char *build_id;		/* hex, "" none */
	const char *srcline;		/* "file.c:12", "" none */
	uint64_t symoff, offset;
	uint64_t fstart, fend;		/* names.c: the function's [start, end) as file offsets */
};

struct store_stack {
	uint64_t id;
	size_t first, n;		/* in the profile's frames */
};

/* A row as the server merged it. */
struct store_row {
	const char *host, *comm, *thread, *event;
	uint32_t pid, tid;
	uint64_t stack_id;
	uint64_t value, period;
	uint64_t time;			/* its first interval's start, s */
	uint64_t first;			/* its row's number in that interval's batch */
};

/* A DSO's function table and lines, as tally_symbols__set_table and __set_lines take them. */
struct store_table {
	const char *name;
	struct tally_symbol *syms;
	size_t n, cap;
	struct tally_symbol_line *lines;
	size_t nlines, cap_lines;
};

struct tally_store_profile {
	struct tally__strpool pool;
	struct store_row *rows;
	size_t nrows, cap_rows;
	struct store_frame *frames;
	size_t nframes, cap_frames;
	struct store_stack *stacks;	/* sorted by id */
	size_t nstacks, cap_stacks;
	struct store_table *tables;
	size_t ntables;
	uint64_t samples;
	bool merged;			/* rows per thread name, not per host and thread */
	int fd;
	char path[64];
};

/* An interned copy of s ("" for NULL), NULL without memory. */
const char *tally__profile_str(struct tally_store_profile *p, const char *s);
/* v grown to hold need items of size (capacity doubled). 0 or -ENOMEM. */
int tally__profile_grow(void **v, size_t *cap, size_t need, size_t size);
/* The stacks in id order, for tally__profile_stack. */
void tally__profile_sort_stacks(struct tally_store_profile *p);
/* The stack of id, or NULL (a row whose stack the store lacks). */
const struct store_stack *tally__profile_stack(const struct tally_store_profile *p, uint64_t id);

/*
 * names.c: a name for every user frame that came without one, from a
 * debug file of its build id on this host, else from DB.symbols (s). 0
 * or -ENOMEM; a symbols query that fails is no error (frames stay
 * unnamed).
 */
int tally__profile_names(struct tally_store_profile *p, struct tally_store *s);

/* profile.c: the rows as a perf.data in a memfd, and the tables. 0 or -errno. */
int tally__profile_write(struct tally_store_profile *p);

#endif
