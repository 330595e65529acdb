// SPDX-License-Identifier: MIT
/*
 * The fuzz targets' check: abort with where and what (libFuzzer keeps
 * the input). The replay tests define FUZZ_CHECK first, as a cmocka
 * assertion, and include the targets' sources.
 */
#ifndef TALLY_FUZZ_CHECK_H
#define TALLY_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_CHECK
#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)
#endif

#endif
