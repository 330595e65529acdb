/* SPDX-License-Identifier: MIT */
/*
 * Long output on a terminal goes through a pager, as git and perf do:
 * $TALLY_PAGER, else $PAGER, else "less" with LESS=FRX (it quits at once
 * when the text fits the screen). Not a terminal, "cat", an empty pager
 * or `tally --no-pager`: written straight out.
 */
#ifndef TALLY_CLI_PAGER_H
#define TALLY_CLI_PAGER_H

#include <stdbool.h>

/* main sets it for --no-pager */
extern bool pager_disabled;

/* From here on stdout (and stderr, when it is the same terminal) feed the pager. */
void pager_start(void);
/* A pager runs: stdout goes to it (a terminal behind it, for colours). */
bool pager_active(void);

#endif
