// SPDX-License-Identifier: MIT
/*
 * Names for the frames a host stored without one (a stripped binary:
 * its build id and file offset only), found when the profile is read:
 * first a file of that build on this host (perf's build-id cache, the
 * debug directories by build id, the path itself when its build id is
 * the frame's: lib/symbol's own search), then DB.symbols, which
 * `tally agent --upload-symbols` fills (tally_store__upload_symbols).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_write.h>
#include "internal.h"
#include "buildid_dir.h"
#include "store_internal.h"
#include "read_internal.h"

static bool unnamed(const struct store_frame *f)
{
	return f->level != 'k' && !*f->func && *f->build_id && *f->dso;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int unhex(const char *h, uint8_t *id, size_t max)
{
	size_t n = strlen(h) / 2;

	if (n > max || strlen(h) % 2)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);

		if (a < 0 || b < 0)
			return -1;
		id[i] = (uint8_t)(a << 4 | b);
	}
	return (int)n;
}

/* Name f from d, an ELF of its build: 1 named, 0 not. */
static int name_from(struct tally_store_profile *p, struct tally_dso *d, struct store_frame *f)
{
	uint64_t vaddr = tally_dso__map_ip_to_vaddr(d, f->offset);
	const struct tally_symbol *sym = tally_dso__find_symbol(d, vaddr);
	const char *name;

	if (!sym || !sym->name || !(name = tally__profile_str(p, sym->name)))
		return 0;
	f->func = name;
	f->symoff = vaddr - sym->start;
	f->fstart = f->offset - f->symoff;
	f->fend = f->fstart + (sym->end > sym->start ? sym->end - sym->start : 1);
	return 1;
}

/* The file this host has of build id (hex) for dso: a loaded DSO, or NULL. */
static struct tally_dso *local_file(struct tally_symbols *syms, const char *hexid, const char *dso)
{
	char path[4096], dir[2048];
	uint8_t want[TALLY_BUILD_ID_MAX], got[TALLY_BUILD_ID_MAX];
	int nw = unhex(hexid, want, sizeof(want)), ng;
	struct tally_dso *d;
	const char *cands[4];
	char bufs[3][4096];
	int n = 0;

	if (nw <= 0 || strlen(hexid) < 3)
		return NULL;
	/* the path itself when it is that build (its debug files are then lib/symbol's to find) */
	ng = tally_build_id__file(dso, got, sizeof(got));
	if (ng == nw && !memcmp(got, want, (size_t)nw))
		cands[n++] = dso;
	if (!tally__buildid_dir(dir, sizeof(dir))) {
		snprintf(bufs[0], sizeof(bufs[0]), "%s/.build-id/%.2s/%s/debug", dir, hexid, hexid + 2);
		snprintf(bufs[1], sizeof(bufs[1]), "%s/.build-id/%.2s/%s/elf", dir, hexid, hexid + 2);
		cands[n++] = bufs[0];
		cands[n++] = bufs[1];
	}
	snprintf(bufs[2], sizeof(bufs[2]), "/usr/lib/debug/.build-id/%.2s/%s.debug", hexid, hexid + 2);
	cands[n++] = bufs[2];
	for (int i = 0; i < n; i++) {
		if (access(cands[i], R_OK))
			continue;
		ng = tally_build_id__file(cands[i], got, sizeof(got));
		if (ng != nw || memcmp(got, want, (size_t)nw))
			continue;
		snprintf(path, sizeof(path), "%s", cands[i]);
		d = tally_symbols__dso_path(syms, path);
		if (d && tally_dso__status(d) == TALLY_DSO_OK && tally_dso__nr_symbols(d))
			return d;
	}
	return NULL;
}

/* the builds a profile names: a few dozen (a host's programs and libraries) */
#define MAX_BIDS 4096

static bool seen_bid(const char *const *v, size_t n, const char *bid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == bid)	/* interned */
			return true;
	return false;
}

struct dbsym {
	const char *bid;		/* interned */
	uint64_t start, size;
	const char *name;
};

static int cmp_dbsym(const void *a, const void *b)
{
	const struct dbsym *x = a, *y = b;
	int c = strcmp(x->bid, y->bid);

	return c ? c : x->start < y->start ? -1 : x->start > y->start;
}

/* Name f from DB.symbols' rows v (sorted): 1 named, 0 not. */
static int name_from_db(const struct dbsym *v, size_t n, struct store_frame *f)
{
	size_t lo = 0, hi = n;

	/* the last function of f's build starting at or before its offset */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(v[mid].bid, f->build_id);

		if (c < 0 || (!c && v[mid].start <= f->offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || strcmp(v[lo - 1].bid, f->build_id))
		return 0;
	const struct dbsym *s = &v[lo - 1];
	uint64_t end = s->size ? s->start + s->size :
		       lo < n && !strcmp(v[lo].bid, f->build_id) ? v[lo].start : UINT64_MAX;

	if (f->offset >= end)
		return 0;
	f->func = s->name;
	f->symoff = f->offset - s->start;
	f->fstart = s->start;
	f->fend = end == UINT64_MAX ? f->offset + 1 : end;
	return 1;
}

static int from_db(struct tally_store_profile *p, struct tally_store *s)
{
	struct tally__buf sql = { 0 };
	struct dbsym *v = NULL;
	size_t n = 0, cap = 0, nbid = 0;
	char *ans = NULL, *save = NULL;
	const char *seen[MAX_BIDS];
	size_t nseen = 0;
	int err = 0;

	tally__buf_add(&sql, "SELECT build_id, start, size, name FROM ", 40);
	tally__buf_add(&sql, s->db, strlen(s->db));
	tally__buf_add(&sql, ".symbols FINAL WHERE build_id IN (", 34);
	for (size_t i = 0; i < p->nframes; i++) {
		const struct store_frame *f = &p->frames[i];

		if (!unnamed(f) || strspn(f->build_id, "0123456789abcdef") != strlen(f->build_id) ||
		    seen_bid(seen, nseen, f->build_id))
			continue;
		if (nseen < MAX_BIDS)
			seen[nseen++] = f->build_id;
		tally__buf_add(&sql, nbid ? ",'" : "'", nbid ? 2 : 1);
		nbid++;
		tally__buf_add(&sql, f->build_id, strlen(f->build_id));
		tally__buf_add(&sql, "'", 1);
	}
	tally__buf_add(&sql, ") FORMAT TabSeparated", 22);
	if (!nbid || sql.oom)
		goto out;
	/* no table, no server: the frames stay unnamed, as a report of a stripped file's */
	if (tally_store__query(s, (const char *)sql.p, NULL, 0, &ans, NULL))
		goto out;
	for (char *line = strtok_r(ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[4], *t = line;
		int k;

		for (k = 0; k < 4 && t; k++) {
			f[k] = t;
			if ((t = strchr(t, '\t')))
				*t++ = '\0';
		}
		if (k < 4)
			continue;
		if (n == cap) {
			void *nv = realloc(v, (cap = cap ? cap * 2 : 1024) * sizeof(*v));

			if (!nv) {
				err = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		v[n] = (struct dbsym){ .bid = tally__profile_str(p, f[0]),
				       .start = strtoull(f[1], NULL, 10),
				       .size = strtoull(f[2], NULL, 10),
				       .name = tally__profile_str(p, f[3]) };
		if (!v[n].bid || !v[n].name) {
			err = -ENOMEM;
			goto out;
		}
		n++;
	}
	qsort(v, n, sizeof(*v), cmp_dbsym);
	for (size_t i = 0; i < p->nframes; i++)
		if (unnamed(&p->frames[i]))
			name_from_db(v, n, &p->frames[i]);
out:
	free(v);
	free(ans);
	tally__buf_free(&sql);
	return err;
}

int tally__profile_names(struct tally_store_profile *p, struct tally_store *s)
{
	struct tally_symbols *syms = NULL;
	/* each build's local file, looked for once */
	const char *bids[MAX_BIDS];
	struct tally_dso *dsos[MAX_BIDS];
	size_t nb = 0;
	bool left = false;

	for (size_t i = 0; i < p->nframes; i++) {
		struct store_frame *f = &p->frames[i];
		struct tally_dso *d = NULL;
		size_t b;

		if (!unnamed(f))
			continue;
		if (!syms && !(syms = tally_symbols__new(NULL)))
			return -ENOMEM;
		for (b = 0; b < nb && bids[b] != f->build_id; b++)
			;
		if (b < nb) {
			d = dsos[b];
		} else {
			d = local_file(syms, f->build_id, f->dso);
			if (nb < MAX_BIDS) {
				bids[nb] = f->build_id;
				dsos[nb++] = d;
			}
		}
		if (d && name_from(p, d, f))
			continue;
		left = true;
	}
	tally_symbols__free(syms);
	return left ? from_db(p, s) : 0;
}
