/* SPDX-License-Identifier: MIT */
/*
 * One line of an annotation as `tally annotate --stdio` prints it: the
 * command and the browser's annotate view write the same text.
 */
#ifndef TALLY_CLI_ANNOTATE_TEXT_H
#define TALLY_CLI_ANNOTATE_TEXT_H

#include <stddef.h>
#include <tally/annotate.h>

/* Line i of l with percent type ptype (without -l's "// file:line") into buf: its length. */
int annotate_line_text(const struct tally_annotate_lines *l, int i, int ptype, char *buf, size_t n);
/* perf's first column: the share (ptype's), -n's samples or --show-total-period's period */
enum annot_col { ANNOT_PERCENT, ANNOT_SAMPLES, ANNOT_PERIOD };
int annotate_line_text_col(const struct tally_annotate_lines *l, int i, int ptype,
			   enum annot_col col, char *buf, size_t n);

struct annot_view;
struct tally_session;
/*
 * The browser's annotate view of symbol idx of a (sorted): the lines
 * tally annotate --stdio prints, percent: local period. NULL with why in
 * msg (perf's words on one line).
 */
struct annot_view *annotate_view_of(struct tally_annotate *a, struct tally_session *ss, int idx,
				    char *msg, size_t n);

#endif
