/* SPDX-License-Identifier: MIT */
/*
 * tally kmem: perf kmem 6.1 over the library's session.
 *   cmd_kmem.c   the options and subcommands; record
 *   kmem_stat.c  the file read in time order, each kmem tracepoint's
 *                fields by name; the slab tables per call site and per
 *                pointer, the slab and page allocators' summaries
 */
#ifndef TALLY_CLI_KMEM_H
#define TALLY_CLI_KMEM_H

#include <stdbool.h>

struct kmem_opts {
	const char *input;
	bool slab, page;		/* --slab, --page (neither: slab) */
	/* --caller, --alloc: the later given is larger (perf's caller_flag, alloc_flag) */
	int caller, alloc;
	const char *caller_sort, *alloc_sort;	/* -s, for the later of them; NULL: frag,hit,bytes */
	int caller_lines, alloc_lines;		/* -l, the same; -1: all */
	bool raw_ip;			/* --raw-ip: call sites as addresses */
};

/* A -s list into keys[max] (NULL-ended): how many, -1 for a name perf's slab sort lacks. */
int kmem_slab_keys(const char *list, const char **keys, int max);

/* The exit status: 0, 1 (the file), 234 (perf's -EINVAL: the events are missing). */
int kmem_stat(const struct kmem_opts *o);

#endif
