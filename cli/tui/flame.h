/* SPDX-License-Identifier: MIT */
/*
 * The browser's pictures of collapsed stacks ("comm;root;...;leaf N"
 * lines, tally_stacks__write_folded's): an icicle drawn in the terminal,
 * widths by share, and the HTML page, of the stacks that pass the
 * filters (comm: the thread's name; sym: a frame holding it).
 */
#ifndef TALLY_CLI_FLAME_H
#define TALLY_CLI_FLAME_H

#include <stdio.h>

/* Rows y0..y0+h-1 of the screen, the root on top. */
void flame_draw(const char *folded, const char *comm, const char *sym, int y0, int h);
/* The HTML page (lib/export's). 0, -ENODATA (no stack passes), or -errno. */
int flame_write_html(const char *folded, const char *event, const char *comm, const char *sym,
		     FILE *fp);

/* Each stack passing the filters: its frames (root first, comm first) and count. */
typedef int (*flame_stack_fn)(char **frames, int n, unsigned long long count, void *arg);
int flame_each(const char *folded, const char *comm, const char *sym, flame_stack_fn fn, void *arg);

#endif
