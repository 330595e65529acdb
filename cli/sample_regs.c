// SPDX-License-Identifier: MIT
/*
 * The sampled registers' names: perf's (arch/x86/include/perf_regs.h
 * order on x86-64, arm64's x0..x30, sp, pc).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sample_regs.h"

#if defined(__x86_64__)
static const char *const names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};
/* DS ES FS GS are not sampled (perf's PERF_REGS_MASK) */
#define DEFAULT_MASK (((1ull << 24) - 1) & ~(0xfull << 12))
#elif defined(__aarch64__)
static const char *const names[] = {
	"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
	"x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23", "x24",
	"x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc",
};
#define DEFAULT_MASK ((1ull << 33) - 1)
#else
static const char *const names[] = { NULL };
#define DEFAULT_MASK 0ull
#endif

#define NR_NAMES (sizeof(names) / sizeof(names[0]))

const char *sample_reg_name(unsigned r)
{
	return r < NR_NAMES && names[r] ? names[r] : "unknown";
}

uint64_t sample_regs_default(void)
{
	return DEFAULT_MASK;
}

int sample_regs_parse(const char *list, uint64_t *mask)
{
	char *dup, *tok, *save = NULL;
	uint64_t m = 0;
	int ret = 0;

	if (!list || !*list) {
		*mask = DEFAULT_MASK;
		return DEFAULT_MASK ? 0 : -1;
	}
	dup = strdup(list);
	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		unsigned r;

		for (r = 0; r < NR_NAMES; r++)
			if (names[r] && ((DEFAULT_MASK >> r) & 1) && !strcasecmp(names[r], tok))
				break;
		if (r == NR_NAMES)
			ret = -1;
		else
			m |= 1ull << r;
	}
	free(dup);
	if (!ret)
		*mask = m;
	return ret;
}

void sample_regs_list(FILE *f)
{
	fputs("available registers: ", f);
	for (unsigned r = 0; r < NR_NAMES; r++)
		if (names[r] && ((DEFAULT_MASK >> r) & 1))
			fprintf(f, "%s ", names[r]);
	fputc('\n', f);
}
