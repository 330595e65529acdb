/* SPDX-License-Identifier: MIT */
/*
 * tally kmem: perf kmem 6.1 over the library's session.
 *   cmd_kmem.c   the options and subcommands; record
 *   kmem_stat.c  the file read in time order, each kmem tracepoint's
 *                fields by name; the slab tables per call site and per
 *                pointer, the slab and page allocators' summaries
 *   kmem_page.c  the page allocator's tables per call site and per pfn,
 *                and their GFP flags legend
 */
#ifndef TALLY_CLI_KMEM_H
#define TALLY_CLI_KMEM_H

#include <stdbool.h>
#include <stdint.h>

struct kmem_opts {
	const char *input;
	bool slab, page;		/* --slab, --page (neither: slab) */
	/* --caller, --alloc: the later given is larger (perf's caller_flag, alloc_flag) */
	int caller, alloc;
	/* --slab, --page: the later given is larger too (perf's kmem_slab, kmem_page) */
	int slab_at, page_at;
	/* -s, for the later of --caller and --alloc, of the later of --slab and --page; NULL: default */
	const char *caller_sort, *alloc_sort;		/* slab: frag,hit,bytes */
	const char *page_caller_sort, *page_alloc_sort;	/* page: bytes,hit */
	int caller_lines, alloc_lines;		/* -l, the same; -1: all */
	bool raw_ip;			/* --raw-ip: call sites as addresses */
	const char *time;		/* --time START,STOP: only the samples between */
	bool live;			/* --live: the pages still allocated at the end */
};

/* A -s list into keys[max] (NULL-ended): how many, -1 for a name perf's slab sort lacks. */
int kmem_slab_keys(const char *list, const char **keys, int max);
/* A comma list of names[0..nnames) into keys (NULL-ended, max with it): the count, -1 for a name not there. */
int kmem_keys(const char *list, const char *const *names, size_t nnames, const char **keys, int max);

/* The page allocator's tables (kmem_page.c). */
struct kmem_pages;
/* live: --live's tables (the pages not freed; the callers' net allocations). */
struct kmem_pages *kmem_pages_new(bool live);
void kmem_pages_free(struct kmem_pages *p);
/* The flags were met already: their text is known. */
bool kmem_pages_gfp_known(const struct kmem_pages *p, unsigned flags);
/* Their text: the "gfp_flags=..." word of the event's text (info). 0, -1 without memory. */
int kmem_pages_add_gfp(struct kmem_pages *p, unsigned flags, const char *info);
/* One allocation: 0, -1 without memory. */
int kmem_pages_alloc(struct kmem_pages *p, uint64_t page, bool use_pfn, unsigned order, int migrate,
		     unsigned gfp, uint64_t bytes, uint64_t callsite, const char *cs_name);
/* A page freed (--live: out of the tables, its caller's row less bytes). */
void kmem_pages_freed(struct kmem_pages *p, uint64_t page, unsigned order, uint64_t bytes);
/* The GFP legend, then --caller's and --alloc's tables. */
void kmem_pages_print(struct kmem_pages *p, const struct kmem_opts *o);
/* A -s list of the page allocator's keys, as kmem_slab_keys. */
int kmem_page_keys(const char *list, const char **keys, int max);

/* The exit status: 0, 1 (the file), 234 (perf's -EINVAL: the events are missing). */
int kmem_stat(const struct kmem_opts *o);

#endif
