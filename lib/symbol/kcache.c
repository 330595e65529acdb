// SPDX-License-Identifier: MIT
/*
 * A cache of /proc/kallsyms, parsed and sorted, for this boot.
 *
 * Reading /proc/kallsyms costs ~40 ms of kernel time (it formats 120k
 * lines on every read), more than the whole rest of a small report. Its
 * contents change only with the boot (KASLR), the kernel and the modules
 * loaded, so the parsed symbols are kept in
 * $XDG_CACHE_HOME/tally/kallsyms2-KEY (~/.cache/tally; 2: the format's
 * version), KEY a hash of /proc/sys/kernel/random/boot_id, the kernel's
 * notes (its build id) and each module's name, size and address from /proc/modules. BPF programs
 * ([bpf] in kallsyms) come and go without changing the key; no map ever
 * points at them (tally makes none from KSYMBOL records), so a stale one
 * is never shown. TALLY_KALLSYMS_CACHE=0 turns the cache off.
 *
 * The file: magic, a checksum of all after it, key, _text, the number of
 * DSOs (the kernel first), the names, then per DSO its name and symbols
 * (start, end, name offset, binding) with an index of every 64th start,
 * read where lookups land (kcache.h). A wrong checksum or anything that
 * does not add up is a miss: kallsyms is read again and the file
 * rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachedir.h"
#include "internal.h"
#include "kcache.h"

#define KC_MAGIC	"TLYKSYM2"
#define KC_STEP		64	/* records per index entry */
#define KC_NAME		64	/* a module's name, NUL-padded (the kernel's: 56 at most) */
#define KC_SYMNAME	1024	/* a symbol's name, at most (the kernel's: 512) */

/* The file's header after magic and checksum. */
struct kc_head {
	uint64_t key, text;
	uint32_t nonzero, pad;
	uint64_t ndso, nlen, names_off;
};

/* One DSO's entry in the directory after the header (offsets: in the file). */
struct kc_ent {
	uint64_t n, rec_off, idx_off;
	char name[KC_NAME];
};

/* One symbol; its name an offset into the names. */
struct kc_rec {
	uint64_t start, end;
	uint32_t name;
	uint8_t binding;
	uint8_t pad[3];
};

struct tally__kcdso {
	struct tally__kcache *c;
	uint64_t n, rec_off;
	uint64_t *idx;			/* the start of every KC_STEP-th record */
	size_t nidx;
	/* the symbols read so far, by record: open addressing on i + 1 */
	struct kc_made { uint64_t i1; struct tally_symbol *s; } *made;
	size_t nmade, cap;
};

struct tally__kcache {
	int fd;
	uint64_t names_off, nlen;
	size_t ndso;
	struct tally__kcdso *d;
};

/*
 * Over 8-byte words, four lanes of a running sum and a sum of those (a
 * Fletcher checksum mod 2^64: any one damaged word changes the first, a
 * moved one the second), mixed at the end. The file is ~6 MiB: a
 * byte-wise hash cost 5 ms a run, a multiply per word 7M instructions.
 * Fed in pieces whose sizes are multiples of 32 but the last.
 */
void tally__sum_init(struct tally__sum *s, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
}

void tally__sum_add(struct tally__sum *s, const unsigned char *p, size_t n)
{
	/* in locals: stores through s could alias p, so kept in memory */
	uint64_t a0 = s->a[0], a1 = s->a[1], a2 = s->a[2], a3 = s->a[3];
	uint64_t b0 = s->b[0], b1 = s->b[1], b2 = s->b[2], b3 = s->b[3];
	uint64_t w[4];
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		memcpy(w, p + i, 32);
		b0 += a0 += w[0];
		b1 += a1 += w[1];
		b2 += a2 += w[2];
		b3 += a3 += w[3];
	}
	if (i < n) {	/* the last piece's tail, zero-padded */
		memset(w, 0, sizeof(w));
		memcpy(w, p + i, n - i);
		b0 += a0 += w[0];
		b1 += a1 += w[1];
		b2 += a2 += w[2];
		b3 += a3 += w[3];
	}
	s->a[0] = a0, s->a[1] = a1, s->a[2] = a2, s->a[3] = a3;
	s->b[0] = b0, s->b[1] = b1, s->b[2] = b2, s->b[3] = b3;
}

uint64_t tally__sum_end(const struct tally__sum *s)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ s->n;

	for (int j = 0; j < 4; j++) {
		h = (h ^ s->a[j]) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
		h = (h ^ s->b[j]) * 0xc4ceb9fe1a85ec53ull;
		h ^= h >> 32;
	}
	return h;
}

uint64_t tally__kcache_sum(const void *a, size_t na, const void *b, size_t nb)
{
	struct tally__sum s;

	tally__sum_init(&s, na + nb);
	tally__sum_add(&s, a, na);
	tally__sum_add(&s, b, nb);
	return tally__sum_end(&s);
}

static uint64_t fnv_file(uint64_t h, const char *path, bool modules)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return tally_fnv(h, "-", 1);
	if (!modules) {
		size_t n;

		while ((n = fread(line, 1, sizeof(line), f)) > 0)
			h = tally_fnv(h, line, n);
	} else {
		/* name size refcount deps state address: refcounts change */
		while (fgets(line, sizeof(line), f)) {
			char name[128], addr[32];
			unsigned long size;

			if (sscanf(line, "%127s %lu %*s %*s %*s %31s", name, &size, addr) == 3) {
				h = tally_fnv(h, name, strlen(name) + 1);
				h = tally_fnv(h, &size, sizeof(size));
				h = tally_fnv(h, addr, strlen(addr) + 1);
			}
		}
	}
	fclose(f);
	return h;
}

uint64_t tally__kcache_key(void)
{
	const char *off = getenv("TALLY_KALLSYMS_CACHE");
	uint64_t h = TALLY_FNV_BASIS;
	char boot[64] = "";
	FILE *f;

	if (off && !strcmp(off, "0"))
		return 0;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (!f)
		return 0;	/* no boot id: no way to tell boots apart */
	if (!fgets(boot, sizeof(boot), f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	h = tally_fnv(h, boot, strlen(boot));
	h = fnv_file(h, "/sys/kernel/notes", false);
	h = fnv_file(h, "/proc/modules", true);
	/* what a reader may see of the addresses depends on who reads */
	uid_t uid = geteuid();

	h = tally_fnv(h, &uid, sizeof(uid));
	return h ? h : 1;
}

static int cache_path(char *buf, size_t len, uint64_t key, bool create)
{
	char name[64];

	snprintf(name, sizeof(name), "kallsyms2-%016llx", (unsigned long long)key);
	return tally__cache_path(buf, len, name, create);
}

static void syms_drop(struct tally_symbol *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free((char *)v[i].name);
	free(v);
}

void tally__kcache_close(struct tally__kcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ndso; i++) {
		struct tally__kcdso *d = &c->d[i];

		for (size_t j = 0; j < d->cap; j++)
			free(d->made[j].s);
		free(d->made);
		free(d->idx);
	}
	free(c->d);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

struct tally__kcdso *tally__kcache_dso(struct tally__kcache *c, size_t i)
{
	return c && i < c->ndso ? &c->d[i] : NULL;
}

void tally__kcache_image_free(struct tally__kimage *k)
{
	syms_drop(k->ksyms, k->nk);
	for (size_t i = 0; i < k->nmods; i++) {
		free(k->mnames ? k->mnames[i] : NULL);
		if (k->msyms)
			syms_drop(k->msyms[i], k->nm[i]);
	}
	free(k->mnames);
	free(k->msyms);
	free(k->nm);
	tally__kcache_close(k->kc);
	memset(k, 0, sizeof(*k));
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* The whole file's checksum, read through a buffer. */
static bool sum_ok(int fd, size_t size)
{
	unsigned char buf[65536], head[16];
	uint64_t want;
	struct tally__sum s;
	size_t off = 16;

	if (!pread_all(fd, head, 16, 0) || memcmp(head, KC_MAGIC, 8))
		return false;
	memcpy(&want, head + 8, 8);
	tally__sum_init(&s, size - 16);
	while (off < size) {
		ssize_t n = pread(fd, buf, size - off < sizeof(buf) ? size - off : sizeof(buf),
				  (off_t)off);

		if (n <= 0 || (n % 32 && off + (size_t)n < size))
			return false;	/* short: the file changed under us */
		tally__sum_add(&s, buf, (size_t)n);
		off += (size_t)n;
	}
	return tally__sum_end(&s) == want;
}

static bool in_file(uint64_t off, uint64_t n, uint64_t size, size_t each)
{
	return off <= size && n <= (size - off) / each;
}

/* The directory and the indexes; the records and names stay in the file. */
static int open_dsos(struct tally__kcache *c, const struct kc_head *h, uint64_t size,
		     struct tally__kimage *k)
{
	struct kc_ent e;

	if (!(c->d = calloc(h->ndso, sizeof(*c->d))) ||
	    !(k->mnames = calloc(h->ndso, sizeof(*k->mnames))) ||
	    !(k->nm = calloc(h->ndso, sizeof(*k->nm))))
		return -ENOMEM;
	for (uint64_t i = 0; i < h->ndso; i++) {
		struct tally__kcdso *d = &c->d[i];

		if (!pread_all(c->fd, &e, sizeof(e), 16 + sizeof(*h) + i * sizeof(e)) ||
		    !memchr(e.name, 0, KC_NAME) || !in_file(e.rec_off, e.n, size, sizeof(struct kc_rec)))
			return -EINVAL;
		d->c = c;
		d->n = e.n;
		d->rec_off = e.rec_off;
		d->nidx = (e.n + KC_STEP - 1) / KC_STEP;
		if (!in_file(e.idx_off, d->nidx, size, 8))
			return -EINVAL;
		if (d->nidx && (!(d->idx = malloc(d->nidx * 8)) ||
				!pread_all(c->fd, d->idx, d->nidx * 8, e.idx_off)))
			return d->idx ? -EINVAL : -ENOMEM;
		c->ndso++;
		if (!i) {
			k->nk = e.n;
		} else {
			if (!(k->mnames[k->nmods] = strdup(e.name)))
				return -ENOMEM;
			k->nm[k->nmods++] = e.n;
		}
	}
	return 0;
}

int tally__kcache_load(uint64_t key, struct tally__kimage *k)
{
	struct tally__kcache *c;
	struct kc_head h;
	char path[4096];
	size_t size;
	int fd, err;

	memset(k, 0, sizeof(*k));
	if (!key || cache_path(path, sizeof(path), key, false))
		return -ENOENT;
	fd = tally__cache_open(path, &size);
	if (fd < 0)
		return fd;
	if (size < 16 + sizeof(h) || !sum_ok(fd, size) || !pread_all(fd, &h, sizeof(h), 16) ||
	    h.key != key || !h.ndso || h.ndso > 100000 ||
	    !in_file(16 + sizeof(h), h.ndso, size, sizeof(struct kc_ent)) || !h.nlen ||
	    !in_file(h.names_off, h.nlen, size, 1)) {
		close(fd);
		return -EINVAL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		close(fd);
		return -ENOMEM;
	}
	/* the fd stays open for the lookups; a new cache replaces the file (rename) */
	c->fd = fd;
	c->names_off = h.names_off;
	c->nlen = h.nlen;
	k->kc = c;
	k->text = h.text;
	k->nonzero = h.nonzero != 0;
	err = open_dsos(c, &h, size, k);
	if (err)
		tally__kcache_image_free(k);
	return err;
}

/* Record i (r, read) as a symbol: made once, its name read from the file. */
static const struct tally_symbol *made(struct tally__kcdso *d, uint64_t i, const struct kc_rec *r)
{
	struct tally__kcache *c = d->c;
	char name[KC_SYMNAME];
	struct tally_symbol *s;
	size_t h, len;
	ssize_t n;

	if ((d->nmade + 1) * 2 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct kc_made *v = calloc(cap, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t j = 0; j < d->cap; j++)
			if (d->made[j].i1) {
				for (h = (d->made[j].i1 * 0x9e3779b97f4a7c15ull) >> 32 & (cap - 1);
				     v[h].i1; h = (h + 1) & (cap - 1))
					;
				v[h] = d->made[j];
			}
		free(d->made);
		d->made = v;
		d->cap = cap;
	}
	for (h = ((i + 1) * 0x9e3779b97f4a7c15ull) >> 32 & (d->cap - 1); d->made[h].i1;
	     h = (h + 1) & (d->cap - 1))
		if (d->made[h].i1 == i + 1)
			return d->made[h].s;
	if (r->name >= c->nlen)
		return NULL;	/* not written so: the checksum matched a file of another tally */
	len = c->nlen - r->name < sizeof(name) ? c->nlen - r->name : sizeof(name);
	n = pread(c->fd, name, len, (off_t)(c->names_off + r->name));
	if (n <= 0 || !memchr(name, 0, (size_t)n))
		return NULL;
	len = strlen(name) + 1;
	if (!(s = malloc(sizeof(*s) + len)))
		return NULL;
	memcpy(s + 1, name, len);
	*s = (struct tally_symbol){ .start = r->start, .end = r->end, .binding = r->binding,
				    .name = (const char *)(s + 1) };
	d->made[h] = (struct kc_made){ i + 1, s };
	d->nmade++;
	return s;
}

const struct tally_symbol *tally__kcache_symbol(struct tally__kcdso *d, uint64_t addr)
{
	struct kc_rec r[KC_STEP + 4];
	size_t lo = 0, hi = d->nidx;
	uint64_t first, cnt;

	/* the block holding the last record that starts at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->idx[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* with the 4 before it: a nested symbol may end early (tally__syms_find) */
	first = (lo - 1) * KC_STEP;
	first = first >= 4 ? first - 4 : 0;
	cnt = (lo * KC_STEP < d->n ? lo * KC_STEP : d->n) - first;
	if (!pread_all(d->c->fd, r, cnt * sizeof(*r), d->rec_off + first * sizeof(*r)))
		return NULL;
	lo = 0;
	hi = cnt;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, tries = 0; i > 0 && tries < 4; i--, tries++)
		if (addr < r[i - 1].end)
			return made(d, first + i - 1, &r[i - 1]);
	return NULL;
}

/* a DSO's directory entry, then (later) its index and its records */
static void put_dir(FILE *f, const char *name, size_t n, uint64_t *idx_off, uint64_t *rec_off)
{
	struct kc_ent e = { .n = n, .rec_off = *rec_off, .idx_off = *idx_off };

	snprintf(e.name, sizeof(e.name), "%s", name);
	fwrite(&e, sizeof(e), 1, f);
	*idx_off += (n + KC_STEP - 1) / KC_STEP * 8;
	*rec_off += n * sizeof(struct kc_rec);
}

static void put_idx(FILE *f, const struct tally_symbol *v, size_t n)
{
	for (size_t i = 0; i < n; i += KC_STEP)
		fwrite(&v[i].start, 8, 1, f);
}

static void put_recs(FILE *f, const struct tally_symbol *v, size_t n, uint64_t *off)
{
	for (size_t i = 0; i < n; i++) {
		struct kc_rec r = {
			.start = v[i].start, .end = v[i].end, .name = (uint32_t)*off,
			.binding = v[i].binding,
		};

		fwrite(&r, sizeof(r), 1, f);
		*off += strlen(v[i].name) + 1;
	}
}

int tally__kcache_store(uint64_t key, const struct tally__kimage *k)
{
	char path[4096], tmp[4200];
	struct kc_head h = { .key = key, .text = k->text, .nonzero = k->nonzero,
			     .ndso = k->nmods + 1 };
	uint64_t idx_off, rec_off, off = 0;
	char *body = NULL;
	size_t blen = 0;
	struct tally__sum s;
	uint64_t sum;
	bool ok;
	FILE *f;
	int fd;

	if (!key || !k->ksyms || cache_path(path, sizeof(path), key, true))
		return -ENOENT;
	for (size_t i = 0; i < k->nk; i++)
		h.nlen += strlen(k->ksyms[i].name) + 1;
	for (size_t m = 0; m < k->nmods; m++)
		for (size_t i = 0; i < k->nm[m]; i++)
			h.nlen += strlen(k->msyms[m][i].name) + 1;
	if (!h.nlen || h.nlen > UINT32_MAX)
		return -E2BIG;
	/* header, directory, the indexes, the records, the names */
	idx_off = 16 + sizeof(h) + h.ndso * sizeof(struct kc_ent);
	rec_off = idx_off + (k->nk + KC_STEP - 1) / KC_STEP * 8;
	for (size_t m = 0; m < k->nmods; m++)
		rec_off += (k->nm[m] + KC_STEP - 1) / KC_STEP * 8;
	h.names_off = rec_off + k->nk * sizeof(struct kc_rec);
	for (size_t m = 0; m < k->nmods; m++)
		h.names_off += k->nm[m] * sizeof(struct kc_rec);
	/* built in memory first: the checksum leads the file */
	f = open_memstream(&body, &blen);
	if (!f)
		return -ENOMEM;
	fwrite(&h, sizeof(h), 1, f);
	put_dir(f, "", k->nk, &idx_off, &rec_off);
	for (size_t m = 0; m < k->nmods; m++)
		put_dir(f, k->mnames[m], k->nm[m], &idx_off, &rec_off);
	put_idx(f, k->ksyms, k->nk);
	for (size_t m = 0; m < k->nmods; m++)
		put_idx(f, k->msyms[m], k->nm[m]);
	put_recs(f, k->ksyms, k->nk, &off);
	for (size_t m = 0; m < k->nmods; m++)
		put_recs(f, k->msyms[m], k->nm[m], &off);
	/* the names, in the order the records took their offsets */
	for (size_t i = 0; i < k->nk; i++)
		fwrite(k->ksyms[i].name, strlen(k->ksyms[i].name) + 1, 1, f);
	for (size_t m = 0; m < k->nmods; m++)
		for (size_t i = 0; i < k->nm[m]; i++)
			fwrite(k->msyms[m][i].name, strlen(k->msyms[m][i].name) + 1, 1, f);
	if (fclose(f)) {
		free(body);
		return -ENOMEM;
	}
	tally__sum_init(&s, blen);
	tally__sum_add(&s, (const unsigned char *)body, blen);
	sum = tally__sum_end(&s);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(body);
		return -errno;
	}
	ok = write(fd, KC_MAGIC, 8) == 8 && write(fd, &sum, 8) == 8 &&
	     write(fd, body, blen) == (ssize_t)blen;
	free(body);
	if (close(fd) || !ok || rename(tmp, path)) {
		unlink(tmp);
		return -EIO;
	}
	return 0;
}
