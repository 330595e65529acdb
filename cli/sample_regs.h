/* SPDX-License-Identifier: MIT */
/*
 * The sampled registers' names (perf_event_open's PERF_REG_* bits of this
 * architecture), as perf names them: record --intr-regs/--user-regs takes
 * them, script's iregs/uregs print them.
 */
#ifndef TALLY_CLI_SAMPLE_REGS_H
#define TALLY_CLI_SAMPLE_REGS_H

#include <stdint.h>
#include <stdio.h>

/* Bit r's name ("AX"), or "unknown" (perf's word) for a bit this arch has not. */
const char *sample_reg_name(unsigned r);
/* The registers every sample may carry, as perf's default mask (0 on an unknown arch). */
uint64_t sample_regs_default(void);
/* "ax,BX,r8" -> mask (NULL or "": the default); 0, or -1 for an unknown name. */
int sample_regs_parse(const char *list, uint64_t *mask);
/* perf's "available registers: AX BX ... \n" */
void sample_regs_list(FILE *f);

#endif
