// SPDX-License-Identifier: MIT
/*
 * perf's build-id cache, read: the copy perf record (or tally record)
 * kept of a file by its build id, DIR/.build-id/xx/<rest>/{elf,vdso},
 * for a file rebuilt or removed since the recording and for [vdso].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "dso_internal.h"
#include "elf_util.h"

char *tally__dso_cached_copy(const struct tally__dso_ctx *ctx, const uint8_t *id, size_t id_sz,
			     const char *file)
{
	char path[4096], idhex[2 * TALLY_BUILD_ID_MAX + 1];
	struct tally__elf_file f;
	uint8_t got[TALLY_BUILD_ID_MAX];
	bool same;

	if (!id_sz || id_sz > TALLY_BUILD_ID_MAX || !ctx->home_debug || !*ctx->home_debug)
		return NULL;
	for (size_t i = 0; i < id_sz; i++)
		sprintf(idhex + 2 * i, "%02x", id[i]);
	if (snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/%s", ctx->home_debug, idhex,
		     idhex + 2, file) >= (int)sizeof(path) ||
	    access(path, R_OK) || tally__elf_file_open(&f, path))
		return NULL;
	same = tally__elf_build_id(f.elf, got, sizeof(got)) == (int)id_sz &&
	       !memcmp(got, id, id_sz);
	tally__elf_file_close(&f);
	return same ? strdup(path) : NULL;
}
