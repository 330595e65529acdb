// SPDX-License-Identifier: MIT
/*
 * A DSO's symbol table as its load from ELF left it (dso.c), kept in
 * $XDG_CACHE_HOME/tally/symtab3-HASH (3: the format's version), HASH the
 * FNV of a key dso.c makes of what decides the table: the file's build id
 * and identity (path, device, inode, size, mtime), the debug files it
 * looked for, the options. Loading node's 150k symbols from ELF is most
 * of a report of it (demangling aliases, perf's tree replay, the PLT's
 * shadow tree); read back, the table is a few reads and a checksum.
 * TALLY_SYMTAB_CACHE=0 turns the cache off.
 *
 * The file: magic, a checksum of all after it (kcache.c's), a header,
 * the key itself (a hash collision is a miss), the symbols (start, end,
 * name offset, binding), perf's tree's nodes (start, end, symbol,
 * children; symtab.c), symsrc and dwarf_path, padding to 32 bytes, then
 * the names, demangled (as every first lookup would, where the options
 * demangle: a C++ file's lookups demangled thousands of names each run).
 * Anything that does not add up is a miss: the table is loaded from ELF
 * again and the file rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cachedir.h"
#include "internal.h"
#include "dso_internal.h"
#include "kcache.h"
#include "symcache.h"

#define SC_MAGIC	"TLYSYMT3"
#define SC_MAX		(1ull << 28)	/* symbols or nodes: more is not a file we wrote */

struct sc_head {
	uint64_t klen, nsyms, nnodes, nlen, slen, plt_lo, plt_hi;
	int32_t root;
	uint32_t status;
	uint64_t alen;			/* from the header to the names, a multiple of 32 */
};

struct sc_sym {
	uint64_t start, end;
	uint32_t name;
	uint8_t binding;
	uint8_t object;			/* tally_symbol's */
	uint8_t pad[2];
};

bool tally__symcache_on(void)
{
	const char *off = getenv("TALLY_SYMTAB_CACHE");

	return !off || strcmp(off, "0");
}

static int sc_path(char *buf, size_t len, const void *key, size_t klen, bool create)
{
	char name[64];

	snprintf(name, sizeof(name), "symtab3-%016llx",
		 (unsigned long long)tally_fnv(TALLY_FNV_BASIS, key, klen));
	return tally__cache_path(buf, len, name, create);
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* the bytes from the header to the names; 0 if they overflow */
static uint64_t a_len(const struct sc_head *h)
{
	if (h->klen > SC_MAX || h->nsyms > SC_MAX || h->nnodes > SC_MAX || h->slen > SC_MAX)
		return 0;
	uint64_t n = sizeof(*h) + pad8(h->klen) + h->nsyms * sizeof(struct sc_sym) +
		     h->nnodes * sizeof(struct tally__symtree_rec) + h->slen;

	return (n + 31) & ~31ull;
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* d's table from a's sections and the names (taken on success) */
static int fill(struct tally_dso *d, const struct sc_head *h, const char *a, char *names)
{
	const char *p = a + sizeof(*h) + pad8(h->klen), *strs, *dwp;
	struct tally_symbol *s = NULL;
	struct tally__symtree *t = NULL;
	struct sc_sym r;

	if (h->status != TALLY_DSO_OK && h->status != TALLY_DSO_STRIPPED)
		return -EINVAL;
	if (h->nlen && names[h->nlen - 1])
		return -EINVAL;
	strs = p + h->nsyms * sizeof(r) + h->nnodes * sizeof(struct tally__symtree_rec);
	/* symsrc, then dwarf_path ("": none) */
	if (h->slen < 2 || strs[h->slen - 1] || strlen(strs) + 1 >= h->slen)
		return -EINVAL;
	dwp = strs + strlen(strs) + 1;
	if (strlen(dwp) + 1 != h->slen - (size_t)(dwp - strs))
		return -EINVAL;
	if (h->nsyms && !(s = tally__calloc(h->nsyms, sizeof(*s))))
		return -ENOMEM;
	for (uint64_t i = 0; i < h->nsyms; i++) {
		memcpy(&r, p + i * sizeof(r), sizeof(r));
		if (r.name >= h->nlen) {
			free(s);
			return -EINVAL;
		}
		s[i] = (struct tally_symbol){ .start = r.start, .end = r.end,
					      .name = names + r.name, .binding = r.binding,
					      .object = r.object != 0 };
	}
	p += h->nsyms * sizeof(r);
	if (h->nnodes) {
		struct tally__symtree_rec *n = malloc(h->nnodes * sizeof(*n));

		if (n) {
			memcpy(n, p, h->nnodes * sizeof(*n));	/* a's records may not be aligned for them */
			t = tally__symtree_make(n, h->nnodes, h->root, h->nsyms);
			free(n);
		}
		if (!t) {
			free(s);
			return -EINVAL;
		}
	} else if (h->root != -1) {
		free(s);
		return -EINVAL;
	}
	d->syms = s;
	d->nr_syms = h->nsyms;
	d->tree = t;
	d->names = names;
	d->names_len = h->nlen;
	d->plt_lo = h->plt_lo;
	d->plt_hi = h->plt_hi;
	d->status = (enum tally_dso_status)h->status;
	free(d->symsrc);
	free(d->dwarf_path);
	d->symsrc = strdup(strs);
	d->dwarf_path = *dwp ? strdup(dwp) : NULL;
	return 0;
}

int tally__symcache_load(const void *key, size_t klen, struct tally_dso *d)
{
	char path[4096], *a = NULL, *names = NULL;
	struct sc_head h;
	uint64_t sum;
	size_t size;
	int fd, err = -EINVAL;

	if (sc_path(path, sizeof(path), key, klen, false))
		return -ENOENT;
	fd = tally__cache_open(path, &size);
	if (fd < 0)
		return fd;
	if (size < 16 + sizeof(h) || !pread_all(fd, &h, sizeof(h), 16) || h.klen != klen ||
	    !h.alen || h.alen != a_len(&h) || h.nlen > SC_MAX * 64 ||
	    size != 16 + h.alen + h.nlen)
		goto out;
	err = -ENOMEM;
	if (!(a = malloc(16 + h.alen)) || !(names = malloc(h.nlen ? h.nlen : 1)))
		goto out;
	err = -EINVAL;
	if (!pread_all(fd, a, 16 + h.alen, 0) || !pread_all(fd, names, h.nlen, 16 + h.alen) ||
	    memcmp(a, SC_MAGIC, 8))
		goto out;
	memcpy(&sum, a + 8, 8);
	if (sum != tally__kcache_sum(a + 16, h.alen, names, h.nlen) ||
	    memcmp(a + 16 + sizeof(h), key, klen))
		goto out;
	err = fill(d, &h, a + 16, names);
	if (!err)
		names = NULL;	/* d's pool now */
out:
	if (err)
		pr_debug("%s: symbol cache %s not used (%s)\n", d->name, path, strerror(-err));
	free(a);
	free(names);
	close(fd);
	return err;
}

/*
 * The file after magic and checksum, written through a buffer that feeds
 * the checksum (a copy of node's table in memory was 7 MB more at the
 * peak of a cold report).
 */
struct out {
	int fd;
	bool ok;
	size_t n;
	struct tally__sum sum;
	unsigned char buf[65536];	/* a multiple of 32: the checksum's pieces */
};

static void out_flush(struct out *o)
{
	tally__sum_add(&o->sum, o->buf, o->n);
	o->ok = o->ok && write(o->fd, o->buf, o->n) == (ssize_t)o->n;
	o->n = 0;
}

static void out_put(struct out *o, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n) {
		size_t k = sizeof(o->buf) - o->n < n ? sizeof(o->buf) - o->n : n;

		memcpy(o->buf + o->n, c, k);
		o->n += k;
		c += k;
		n -= k;
		if (o->n == sizeof(o->buf))
			out_flush(o);
	}
}

int tally__symcache_store(const void *key, size_t klen, const struct tally_dso *d)
{
	static const char zero[32];
	const char *src = d->symsrc ? d->symsrc : "", *dwp = d->dwarf_path ? d->dwarf_path : "";
	struct sc_head h = { .klen = klen, .nsyms = d->nr_syms, .plt_lo = d->plt_lo,
			     .plt_hi = d->plt_hi, .root = -1, .status = (uint32_t)d->status };
	char path[4096], tmp[4200];
	uint64_t off = 0, sum;
	struct out *o;
	size_t at;

	if (d->tree)
		h.nnodes = tally__symtree_nodes(d->tree, &h.root);
	h.slen = strlen(src) + 1 + strlen(dwp) + 1;
	for (size_t i = 0; i < d->nr_syms; i++)
		h.nlen += strlen(d->syms[i].name) + 1;
	h.alen = a_len(&h);
	if (!h.alen || h.nlen > UINT32_MAX || sc_path(path, sizeof(path), key, klen, true))
		return -E2BIG;
	if (!(o = malloc(sizeof(*o))))
		return -ENOMEM;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	o->fd = mkostemp(tmp, O_CLOEXEC);
	if (o->fd < 0) {
		free(o);
		return -errno;
	}
	o->n = 0;
	tally__sum_init(&o->sum, h.alen + h.nlen);
	/* magic and checksum last, at the start */
	o->ok = write(o->fd, zero, 16) == 16;
	out_put(o, &h, sizeof(h));
	out_put(o, key, klen);
	out_put(o, zero, pad8(klen) - klen);
	for (size_t i = 0; i < d->nr_syms; i++) {
		struct sc_sym r = { .start = d->syms[i].start, .end = d->syms[i].end,
				    .name = (uint32_t)off, .binding = d->syms[i].binding,
				    .object = d->syms[i].object };

		off += strlen(d->syms[i].name) + 1;
		out_put(o, &r, sizeof(r));
	}
	for (size_t i = 0; i < h.nnodes; i++) {
		struct tally__symtree_rec r;

		tally__symtree_get(d->tree, i, &r);
		out_put(o, &r, sizeof(r));
	}
	out_put(o, src, strlen(src) + 1);
	out_put(o, dwp, strlen(dwp) + 1);
	at = sizeof(h) + pad8(klen) + h.nsyms * sizeof(struct sc_sym) +
	     h.nnodes * sizeof(struct tally__symtree_rec) + h.slen;
	out_put(o, zero, h.alen - at);
	for (size_t i = 0; i < d->nr_syms; i++)
		out_put(o, d->syms[i].name, strlen(d->syms[i].name) + 1);
	if (o->n)
		out_flush(o);
	sum = tally__sum_end(&o->sum);
	o->ok = o->ok && pwrite(o->fd, SC_MAGIC, 8, 0) == 8 && pwrite(o->fd, &sum, 8, 8) == 8;
	if (close(o->fd) || !o->ok || rename(tmp, path)) {
		unlink(tmp);
		free(o);
		return -EIO;
	}
	free(o);
	(void)tally__cache_trim(path);
	return 0;
}

/* the copy's names: each in its pool, or allocated on its own (demangled) */
static void later_free(struct tally__symcache_later *l)
{
	struct tally_dso *c = l->copy;

	if (c) {
		for (size_t i = 0; c->syms && i < c->nr_syms; i++)
			if (!tally__dso_pooled(c, c->syms[i].name))
				free((char *)c->syms[i].name);
		free(c->syms);
		free(c->names);
		free(c->symsrc);
		free(c->dwarf_path);
		free(c);
	}
	free(l->key);
	memset(l, 0, sizeof(*l));
}

int tally__symcache_later_take(struct tally__symcache_later *l, char *key, size_t klen,
			       const struct tally_dso *d)
{
	struct tally_dso *c = calloc(1, sizeof(*c));

	memset(l, 0, sizeof(*l));
	if (!c)
		return -ENOMEM;
	l->copy = c;
	c->nr_syms = d->nr_syms;
	c->tree = d->tree;
	c->plt_lo = d->plt_lo;
	c->plt_hi = d->plt_hi;
	c->status = d->status;
	c->names_len = d->names_len;
	if (!(c->syms = malloc(d->nr_syms * sizeof(*c->syms))) ||
	    (d->names_len && !(c->names = malloc(d->names_len))) ||
	    (d->symsrc && !(c->symsrc = strdup(d->symsrc))) ||
	    (d->dwarf_path && !(c->dwarf_path = strdup(d->dwarf_path)))) {
		c->nr_syms = 0;
		later_free(l);
		return -ENOMEM;
	}
	if (d->names_len)
		memcpy(c->names, d->names, d->names_len);
	for (size_t i = 0; i < d->nr_syms; i++) {
		const char *n = d->syms[i].name;

		c->syms[i] = d->syms[i];
		c->syms[i].name = tally__dso_pooled(d, n) ? c->names + (n - d->names) : strdup(n);
		if (!c->syms[i].name) {
			c->nr_syms = i;
			later_free(l);
			return -ENOMEM;
		}
	}
	l->demangle = d->demangle_lazy;
	l->key = key;
	l->klen = klen;
	return 0;
}

void tally__symcache_later_store(struct tally__symcache_later *l)
{
	struct tally_dso *c = l->copy;

	if (!c || !l->key) {
		later_free(l);
		return;
	}
	/* as tally__dso_demangle_all would have made them */
	for (size_t i = 0; l->demangle && i < c->nr_syms; i++) {
		const struct tally_symbol *sym = &c->syms[i];
		/* as tally__dso_demangled (dso.c, which calls this module) */
		char *dm = sym->start >= c->plt_lo && sym->start < c->plt_hi ?
			   tally__demangle_plt(sym->name) : tally_demangle(sym->name);

		if (dm) {
			if (!tally__dso_pooled(c, c->syms[i].name))
				free((char *)c->syms[i].name);
			c->syms[i].name = dm;
		}
	}
	(void)tally__symcache_store(l->key, l->klen, c);
	c->tree = NULL;		/* the DSO's */
	later_free(l);
}
