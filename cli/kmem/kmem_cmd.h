/* SPDX-License-Identifier: MIT */
/*
 * tally kmem: perf kmem 6.1 over the library's session.
 *   cmd_kmem.c   the options and subcommands; record
 *   kmem_stat.c  the file read in time order, each kmem tracepoint's
 *                fields by name; the slab and page allocators' summaries
 */
#ifndef TALLY_CLI_KMEM_H
#define TALLY_CLI_KMEM_H

#include <stdbool.h>

struct kmem_opts {
	const char *input;
	bool slab, page;		/* --slab, --page (neither: slab) */
};

/* The exit status: 0, 1 (the file), 234 (perf's -EINVAL: the events are missing). */
int kmem_stat(const struct kmem_opts *o);

#endif
