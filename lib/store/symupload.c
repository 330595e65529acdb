// SPDX-License-Identifier: MIT
/*
 * tally agent --upload-symbols: a file's function table into DB.symbols,
 * keyed by its build id, so that a reader names the frames a stripped
 * build of it left (names.c). The table is lib/symbol's (the file's
 * .symtab, a debug file's, or what a stripped file keeps), its starts
 * turned into file offsets, as the frames store theirs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_write.h>
#include <tally/symbols.h>
#include "internal.h"
#include "store_internal.h"

int tally_store__upload_symbols(struct tally_store *s, const char *path)
{
	uint8_t id[TALLY_BUILD_ID_MAX];
	char hexid[2 * TALLY_BUILD_ID_MAX + 1], sql[256];
	struct tally__buf b = { 0 };
	struct tally_symbols *syms;
	struct tally_dso *d;
	int n, sent = 0, err = 0;

	if (!s || !path)
		return -EINVAL;
	if (access(path, R_OK))
		return -errno;
	if ((n = tally_build_id__file(path, id, sizeof(id))) < 0)
		return n == -ENOENT ? n : -ENOEXEC;
	if (!n)
		return -ENODATA;
	for (int i = 0; i < n; i++)
		sprintf(hexid + 2 * i, "%02x", id[i]);
	/* once per build id: an agent restarted, or another host's, sent it already */
	{
		char *ans = NULL;

		snprintf(sql, sizeof(sql), "SELECT count() FROM %s.symbols WHERE build_id = '%s'",
			 s->db, hexid);
		if ((err = tally_store__query(s, sql, NULL, 0, &ans, NULL)))
			return err;
		n = atoi(ans);
		free(ans);
		if (n > 0)
			return 0;
	}
	if (!(syms = tally_symbols__new(NULL)))
		return -ENOMEM;
	d = tally_symbols__dso_path(syms, path);
	if (!d || tally_dso__status(d) == TALLY_DSO_NOT_ELF) {
		err = d ? -ENOEXEC : -errno;
		goto out;
	}
	for (size_t i = 0; i < tally_dso__nr_symbols(d); i++) {
		const struct tally_symbol *sym = tally_dso__symbol_at(d, i);
		uint64_t start;

		if (!sym || !sym->name || sym->object)
			continue;
		start = tally_dso__vaddr_to_map_ip(d, sym->start);
		tally__buf_add(&b, hexid, strlen(hexid));
		tally__buf_add(&b, "\t", 1);
		snprintf(sql, sizeof(sql), "%" PRIu64 "\t%" PRIu64 "\t", start,
			 sym->end > sym->start ? sym->end - sym->start : 0);
		tally__buf_add(&b, sql, strlen(sql));
		tally__tsv_str(&b, sym->name);
		tally__buf_add(&b, "\n", 1);
		sent++;
	}
	if (b.oom) {
		err = -ENOMEM;
		goto out;
	}
	snprintf(sql, sizeof(sql), "INSERT INTO %s.symbols FORMAT TabSeparated", s->db);
	if (sent)
		err = tally_store__query(s, sql, b.p, b.len, NULL, NULL);
out:
	tally__buf_free(&b);
	tally_symbols__free(syms);
	return err ? err : sent;
}
