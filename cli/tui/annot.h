/* SPDX-License-Identifier: MIT */
/*
 * The browser's annotate view of one symbol: the lines as `tally annotate
 * --stdio` prints them, the hottest instruction selected, scrolling,
 * ENTER/RIGHT on a jump or call to its target within the function.
 * The caller (report) makes the lines; no library here.
 */
#ifndef TALLY_CLI_ANNOT_H
#define TALLY_CLI_ANNOT_H

#include <stdbool.h>
#include <stdint.h>

struct annot_view {
	char *title;		/* "burn_a in burn for cpu-clock:ppp (104 samples, ...)" */
	char **line;		/* as --stdio prints them */
	uint64_t *addr;		/* the instruction's address */
	bool *insn;		/* the line is an instruction */
	double *percent;
	int nr;
};

/* A view of nr lines (all NULL/0), or NULL out of memory. */
struct annot_view *annot_new(int nr);
void annot_free(struct annot_view *a);
/* Line i holding the address, or -1 (for the tests and ENTER). */
int annot_find(const struct annot_view *a, uint64_t addr);
/* The hottest instruction's line (the first of equals), or -1: none. */
int annot_hottest(const struct annot_view *a);
/*
 * The jump or call target of line i's instruction ("jne 4011d6 <f+0x20>"):
 * 0 and *to, or -1 when it is none (objdump's text names it so).
 */
int annot_target(const struct annot_view *a, int i, uint64_t *to);
/* Browse a until LEFT, ESC or q: 0; TUI_KEY_QUIT when a signal ends it all. */
int annot_run(const struct annot_view *a, const char *prog);

#endif
