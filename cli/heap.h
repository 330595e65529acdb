/* SPDX-License-Identifier: MIT */
#ifndef TALLY_CLI_HEAP_H
#define TALLY_CLI_HEAP_H

/* Put the heap of a command that reads a file on huge pages (heap.c). */
void cli_heap_huge(void);

#endif
