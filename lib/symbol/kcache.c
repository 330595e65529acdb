// SPDX-License-Identifier: MIT
/*
 * A cache of /proc/kallsyms, parsed and sorted, for this boot.
 *
 * Reading /proc/kallsyms costs ~40 ms of kernel time (it formats 120k
 * lines on every read), more than the whole rest of a small report. Its
 * contents change only with the boot (KASLR), the kernel and the modules
 * loaded, so the parsed symbols are kept in
 * $XDG_CACHE_HOME/tally/kallsyms3-KEY (~/.cache/tally; 3: the format's
 * version), KEY a hash of /proc/sys/kernel/random/boot_id, the kernel's
 * notes (its build id) and each module's name, size and address from /proc/modules. BPF programs
 * ([bpf] in kallsyms) come and go without changing the key; no map ever
 * points at them (tally makes none from KSYMBOL records), so a stale one
 * is never shown. TALLY_KALLSYMS_CACHE=0 turns the cache off.
 *
 * The file: magic, a checksum of the header, directory and indexes, key,
 * _text, the number of DSOs (the kernel first), then per DSO its name and
 * an index of its symbols' blocks (every 64th start, the block's names'
 * range and a checksum of its records and names), the symbols (start,
 * end, name offset, binding), the names. Lookups read and check only the
 * blocks they land in (kcache.h): a whole-file checksum cost a read of
 * its 6 MiB on every report, 1-5 ms. A wrong header checksum or anything
 * that does not add up is a miss at open; a block's wrong checksum
 * (tally__kcache_damaged) makes the symbols read kallsyms again and the
 * file rewritten.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachedir.h"
#include "dso_internal.h"
#include "internal.h"
#include "kcache.h"
#include "symbols_internal.h"

#define KC_MAGIC	"TLYKSYM3"
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

/* Block i of a DSO's symbols: records i * KC_STEP on, their names at [name_lo, name_hi). */
struct kc_idx {
	uint64_t start;			/* its first record's */
	uint64_t sum;			/* block_sum of its records and names */
	uint32_t name_lo, name_hi;
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
	struct kc_idx *idx;		/* every KC_STEP-th record's start, each block's names and sum */
	size_t nidx;
	struct kc_slot **blk;		/* nidx blocks, each NULL until read */
	/* the symbols read so far, by record: open addressing on i + 1 */
	struct kc_made { uint64_t i1; struct tally_symbol *s; } *made;
	size_t nmade, cap;
	char name[KC_NAME];		/* its module's, "" the kernel's */
	const struct tally_symbol *live;	/* damaged: kallsyms read again (c->live's) */
	size_t nlive;
};

/*
 * A block read and checked, with its names, kept to the end: lookups land
 * in a few hundred of kallsyms' 2000 blocks, ten lookups each on a busy
 * machine's file (a ring of 64 read 343 blocks 1462 times there).
 */
struct kc_slot {
	size_t b, n;			/* block b, n records */
	size_t len;			/* of its names, from name_lo */
	struct kc_rec r[KC_STEP];
	char names[];
};

struct tally__kcache {
	int fd;
	uint64_t names_off, nlen;
	size_t ndso;
	struct tally__kcdso *d;
	uint64_t key;
	bool damaged;			/* a block's checksum was wrong: lookups in live */
	struct tally__kimage live;
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

	snprintf(name, sizeof(name), "kallsyms3-%016llx", (unsigned long long)key);
	return tally__cache_path(buf, len, name, create);
}

/* a table and its names: in pool (NULL: each allocated) */
static void syms_drop(struct tally_symbol *v, size_t n, char *pool)
{
	for (size_t i = 0; v && !pool && i < n; i++)
		free((char *)v[i].name);
	free(v);
	free(pool);
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
		for (size_t j = 0; d->blk && j < d->nidx; j++)
			free(d->blk[j]);
		free(d->blk);
		free(d->idx);
	}
	free(c->d);
	tally__kcache_image_free(&c->live);
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
	syms_drop(k->ksyms, k->nk, k->kpool);
	for (size_t i = 0; i < k->nmods; i++) {
		free(k->mnames ? k->mnames[i] : NULL);
		if (k->msyms)
			syms_drop(k->msyms[i], k->nm[i], k->mpools ? k->mpools[i] : NULL);
	}
	free(k->mnames);
	free(k->msyms);
	free(k->mpools);
	free(k->mplen);
	free(k->nm);
	tally__kcache_close(k->kc);
	memset(k, 0, sizeof(*k));
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n;
}

/* A block's checksum: its records' and its names' (two sums: a partial block's records need no padding). */
static uint64_t block_sum(const struct kc_rec *r, size_t n, const char *names, size_t len)
{
	struct tally__sum a, b;

	tally__sum_init(&a, n * sizeof(*r));
	tally__sum_add(&a, (const unsigned char *)r, n * sizeof(*r));
	tally__sum_init(&b, len);
	tally__sum_add(&b, (const unsigned char *)names, len);
	return tally__sum_end(&a) ^ tally__sum_end(&b) * 0x9e3779b97f4a7c15ull;
}

static bool in_file(uint64_t off, uint64_t n, uint64_t size, size_t each)
{
	return off <= size && n <= (size - off) / each;
}

/*
 * The directory and the indexes from the header's bytes (hb, hlen: all
 * before the records, checked); the records and names stay in the file.
 */
static int open_dsos(struct tally__kcache *c, const struct kc_head *h, const unsigned char *hb,
		     size_t hlen, uint64_t size, struct tally__kimage *k)
{
	struct kc_ent e;

	if (!(c->d = calloc(h->ndso, sizeof(*c->d))) ||
	    !(k->mnames = calloc(h->ndso, sizeof(*k->mnames))) ||
	    !(k->nm = calloc(h->ndso, sizeof(*k->nm))))
		return -ENOMEM;
	for (uint64_t i = 0; i < h->ndso; i++) {
		struct tally__kcdso *d = &c->d[i];

		memcpy(&e, hb + sizeof(*h) + i * sizeof(e), sizeof(e));
		if (!memchr(e.name, 0, KC_NAME) || e.rec_off < 16 + hlen ||
		    !in_file(e.rec_off, e.n, h->names_off, sizeof(struct kc_rec)))
			return -EINVAL;
		d->c = c;
		memcpy(d->name, e.name, KC_NAME);
		d->n = e.n;
		d->rec_off = e.rec_off;
		d->nidx = (e.n + KC_STEP - 1) / KC_STEP;
		/* the index lies in the header's bytes (offsets: the file's) */
		if (e.idx_off < 16 || !in_file(e.idx_off - 16, d->nidx, hlen, sizeof(struct kc_idx)))
			return -EINVAL;
		if (d->nidx && !(d->idx = malloc(d->nidx * sizeof(*d->idx))))
			return -ENOMEM;
		memcpy(d->idx, hb + (e.idx_off - 16), d->nidx * sizeof(*d->idx));
		for (size_t j = 0; j < d->nidx; j++)
			if (d->idx[j].name_lo > d->idx[j].name_hi || d->idx[j].name_hi > h->nlen ||
			    d->idx[j].name_hi - d->idx[j].name_lo > (uint64_t)KC_STEP * KC_SYMNAME)
				return -EINVAL;
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
	unsigned char head[16], *hb = NULL;
	char path[4096];
	uint64_t want, hlen;
	size_t size;
	int fd, err;

	memset(k, 0, sizeof(*k));
	if (!key || cache_path(path, sizeof(path), key, false))
		return -ENOENT;
	fd = tally__cache_open(path, &size);
	if (fd < 0)
		return fd;
	/* the header, directory and indexes end where the first records start */
	if (size < 16 + sizeof(h) || !pread_all(fd, head, 16, 0) || memcmp(head, KC_MAGIC, 8) ||
	    !pread_all(fd, &h, sizeof(h), 16) || h.key != key || !h.ndso || h.ndso > 100000 ||
	    !h.nlen || h.nlen > UINT32_MAX || h.names_off > size || h.names_off + h.nlen != size ||
	    !in_file(16 + sizeof(h), h.ndso, size, sizeof(struct kc_ent)))
		goto bad;
	memcpy(&want, head + 8, 8);
	struct kc_ent e0;

	if (!pread_all(fd, &e0, sizeof(e0), 16 + sizeof(h)) || e0.rec_off < 16 + sizeof(h) ||
	    e0.rec_off > h.names_off)
		goto bad;
	hlen = e0.rec_off - 16;
	/* the directory lies in those bytes too */
	if (hlen < sizeof(h) || (hlen - sizeof(h)) / sizeof(struct kc_ent) < h.ndso)
		goto bad;
	if (!(hb = malloc(hlen)) || !pread_all(fd, hb, hlen, 16) ||
	    tally__kcache_sum(hb, 0, hb, hlen) != want)
		goto bad;
	if (!(c = calloc(1, sizeof(*c)))) {
		free(hb);
		close(fd);
		return -ENOMEM;
	}
	/* the fd stays open for the lookups; a new cache replaces the file (rename) */
	c->fd = fd;
	c->key = key;
	c->names_off = h.names_off;
	c->nlen = h.nlen;
	k->kc = c;
	k->text = h.text;
	k->nonzero = h.nonzero != 0;
	err = open_dsos(c, &h, hb, hlen, size, k);
	free(hb);
	if (err)
		tally__kcache_image_free(k);
	return err;
bad:
	free(hb);
	close(fd);
	return -EINVAL;
}

/*
 * A block was damaged (or the file changed under us): kallsyms read again,
 * each DSO's lookups in its symbols from then on, and the file rewritten.
 * The symbols made before stay (the resolver points at them).
 */
static void damaged(struct tally__kcache *c)
{
	int open_errno;

	c->damaged = true;
	if (tally__kallsyms_read("/proc/kallsyms", &c->live, &open_errno) || !c->live.nonzero)
		return;	/* nothing more is found */
	for (size_t i = 0; i < c->ndso; i++) {
		struct tally__kcdso *d = &c->d[i];

		if (!i) {
			d->live = c->live.ksyms;
			d->nlive = c->live.nk;
			continue;
		}
		for (size_t m = 0; m < c->live.nmods; m++)
			if (!strcmp(c->live.mnames[m], d->name)) {
				d->live = c->live.msyms[m];
				d->nlive = c->live.nm[m];
			}
	}
	(void)tally__kcache_store(c->key, &c->live);
}

/* Record i (r) of block sl as a symbol: made once, its name from the block's. */
static const struct tally_symbol *made(struct tally__kcdso *d, uint64_t i, const struct kc_rec *r,
				       const struct kc_slot *sl)
{
	const uint32_t lo = d->idx[sl->b].name_lo;
	struct tally_symbol *s;
	const char *name, *nul;
	size_t h, nl;

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
	if (r->name < lo || r->name - lo >= sl->len)
		return NULL;	/* outside its block's names: not written so */
	name = sl->names + (r->name - lo);
	if (!(nul = memchr(name, 0, sl->len - (r->name - lo))))
		return NULL;
	nl = (size_t)(nul - name) + 1;
	if (!(s = malloc(sizeof(*s) + nl)))
		return NULL;
	memcpy(s + 1, name, nl);
	*s = (struct tally_symbol){ .start = r->start, .end = r->end, .binding = r->binding,
				    .name = (const char *)(s + 1) };
	d->made[h] = (struct kc_made){ i + 1, s };
	d->nmade++;
	return s;
}

/* Block b of d, read and checked once; NULL if damaged, *oom for lack of memory. */
static const struct kc_slot *block(struct tally__kcdso *d, size_t b, bool *oom)
{
	struct tally__kcache *c = d->c;
	const struct kc_idx *x = &d->idx[b];
	struct kc_slot *sl;
	size_t len = x->name_hi - x->name_lo;

	if (d->blk && d->blk[b])
		return d->blk[b];
	if ((!d->blk && !(d->blk = calloc(d->nidx, sizeof(*d->blk)))) ||
	    !(sl = malloc(sizeof(*sl) + len + 1))) {
		*oom = true;
		return NULL;
	}
	sl->n = d->n - b * KC_STEP < KC_STEP ? d->n - b * KC_STEP : KC_STEP;
	if (!pread_all(c->fd, sl->r, sl->n * sizeof(*sl->r), d->rec_off + b * KC_STEP * sizeof(*sl->r)) ||
	    !pread_all(c->fd, sl->names, len, c->names_off + x->name_lo) ||
	    block_sum(sl->r, sl->n, sl->names, len) != x->sum) {
		free(sl);
		return NULL;
	}
	sl->b = b;
	sl->len = len;
	return d->blk[b] = sl;
}

const struct tally_symbol *tally__kcache_symbol(struct tally__kcdso *d, uint64_t addr)
{
	const struct kc_slot *sl, *pv = NULL;
	size_t lo = 0, hi = d->nidx, lb;
	bool oom = false;

	if (d->c->damaged)
		return d->live ? tally__syms_find(d->live, d->nlive, addr) : NULL;
	/* the block holding the last record that starts at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->idx[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lb = lo - 1;
	if (!(sl = block(d, lb, &oom)))
		goto damaged;
	lo = 0;
	hi = sl->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sl->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* that one and the 4 before it, into the block before (a nested symbol may end early: tally__syms_find) */
	for (size_t i = lo, tries = 0; i > 0 && tries < 4; i--, tries++)
		if (addr < sl->r[i - 1].end)
			return made(d, lb * KC_STEP + i - 1, &sl->r[i - 1], sl);
	for (size_t tries = lo; lb && tries < 4; tries++) {
		size_t i = KC_STEP - 1 - (tries - lo);

		if (!pv && !(pv = block(d, lb - 1, &oom)))
			goto damaged;
		if (addr < pv->r[i].end)
			return made(d, (lb - 1) * KC_STEP + i, &pv->r[i], pv);
	}
	return NULL;
damaged:
	if (!oom)
		damaged(d->c);
	return d->live ? tally__syms_find(d->live, d->nlive, addr) : NULL;
}

/* module mod's vector in v (nmods of them, names in k->mnames), added if new */
static int module_vec(struct tally__kimage *k, struct tally__symvec **mv, const char *mod,
		      struct tally__symvec **v)
{
	size_t i;

	for (i = 0; i < k->nmods && strcmp(k->mnames[i], mod); i++)
		;
	if (i == k->nmods) {
		void *a1 = tally__reallocarray(k->mnames, k->nmods + 1, sizeof(*k->mnames));

		if (!a1)
			return -ENOMEM;
		k->mnames = a1;
		void *a2 = tally__reallocarray(*mv, k->nmods + 1, sizeof(**mv));

		if (!a2)
			return -ENOMEM;
		*mv = a2;
		memset(&(*mv)[k->nmods], 0, sizeof(**mv));
		(*mv)[k->nmods].arena = true;	/* the names in a pool: no allocation each */
		if (!(k->mnames[k->nmods] = strdup(mod)))
			return -ENOMEM;
		k->nmods++;
	}
	*v = &(*mv)[i];
	return 0;
}

/* One line of kallsyms (NUL-terminated, no newline) into k's tables. */
static int take_line(struct tally__kimage *k, struct tally__symvec *kv, struct tally__symvec **mv,
		     char *line)
{
	uint64_t a;
	char type, *name, *mod, tu;
	struct tally__symvec *v = kv;
	int err;

	if (tally__kallsyms_line(line, &a, &type, &name, &mod))
		return 0;
	if (a)
		k->nonzero = true;
	if (!mod && !strcmp(name, "_text"))
		k->text = a;
	tu = (char)toupper((unsigned char)type);
	if (tu != 'T' && tu != 'W' && tu != 'D' && tu != 'B')
		return 0;
	if (mod && (err = module_vec(k, mv, mod, &v)))
		return err;
	uint8_t bind = tu == 'W' ? STB_WEAK : type == tu ? STB_GLOBAL : STB_LOCAL;

	return tally__symvec_add(v, a, 0, bind, name, mod != NULL);
}

#define KREAD (1 << 16)

/*
 * All of kallsyms at once: the kernel's symbols and each module's
 * (perf's dso__split_kallsyms). perf keeps types T, W, D and B.
 */
int tally__kallsyms_read(const char *path, struct tally__kimage *k, int *open_errno)
{
	/* the names in a pool: 122K allocations (and frees) were a third of the reader's own time */
	struct tally__symvec kv = { .arena = true }, *mv = NULL;
	size_t have = 0;
	char *buf;
	int err = 0, fd;

	memset(k, 0, sizeof(*k));
	*open_errno = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*open_errno = errno;
		return 0;
	}
	/*
	 * 64 KiB reads (/proc's files say 1 KiB blocks: stdio made 5,400
	 * reads, a tenth of the kernel's time), split into lines in place
	 */
	if (!(buf = malloc(KREAD))) {
		close(fd);
		return -ENOMEM;
	}
	for (bool eof = false; !eof && !err;) {
		ssize_t r = read(fd, buf + have, KREAD - 1 - have);
		size_t at = 0;

		if (r < 0 && errno == EINTR)
			continue;
		eof = r <= 0;	/* a read error ends it, as fgets's did */
		have += r > 0 ? (size_t)r : 0;
		while (at < have && !err) {
			char *nl = memchr(buf + at, '\n', have - at);

			if (!nl && !eof)
				break;
			if (!nl)
				nl = buf + have;	/* the last line, without its newline */
			*nl = '\0';
			err = take_line(k, &kv, &mv, buf + at);
			at = (size_t)(nl - buf) + 1;
		}
		if (at >= have) {
			have = 0;
		} else if (at) {
			memmove(buf, buf + at, have - at);
			have -= at;
		} else if (have == KREAD - 1) {
			have = 0;	/* a line longer than the buffer: none is (names are 512 at most) */
		}
	}
	close(fd);
	free(buf);
	/* sorting is the other half of the work: done here too */
	if (!err && k->nonzero) {
		k->msyms = calloc(k->nmods + 1, sizeof(*k->msyms));
		k->nm = calloc(k->nmods + 1, sizeof(*k->nm));
		k->mpools = calloc(k->nmods + 1, sizeof(*k->mpools));
		k->mplen = calloc(k->nmods + 1, sizeof(*k->mplen));
		if (!k->msyms || !k->nm || !k->mpools || !k->mplen)
			err = -ENOMEM;
		if (!err && !(err = tally__symvec_finish(&kv, &k->ksyms, &k->nk))) {
			k->kpool = kv.pool;	/* the table's names */
			k->kplen = kv.plen;
			kv.pool = NULL;
		}
		for (size_t i = 0; !err && i < k->nmods; i++) {
			if ((err = tally__symvec_finish(&mv[i], &k->msyms[i], &k->nm[i])))
				break;
			k->mpools[i] = mv[i].pool;
			k->mplen[i] = mv[i].plen;
			mv[i].pool = NULL;
		}
	}
	tally__symvec_free(&kv);
	for (size_t i = 0; i < k->nmods; i++)
		tally__symvec_free(&mv[i]);
	free(mv);
	if (err)
		tally__kcache_image_free(k);
	return err;
}

/* The file being made, in one buffer of its final size: offsets in it are the file's. */
struct kc_out {
	char *b;
	size_t idx, rec, name;		/* where the next index entry, record and name go */
	uint32_t noff;			/* the next name's offset among the names */
	const uint32_t *len;		/* each symbol's name's length, NUL included, in file order */
};

/* a DSO's directory entry at *at; its index and records placed from *idx_off and *rec_off */
static void put_dir(char *b, size_t *at, const char *name, size_t n, uint64_t *idx_off,
		    uint64_t *rec_off)
{
	struct kc_ent e = { .n = n, .rec_off = *rec_off, .idx_off = *idx_off };

	snprintf(e.name, sizeof(e.name), "%s", name);
	memcpy(b + *at, &e, sizeof(e));
	*at += sizeof(e);
	*idx_off += (n + KC_STEP - 1) / KC_STEP * sizeof(struct kc_idx);
	*rec_off += n * sizeof(struct kc_rec);
}

/* v's index (each block's names and checksum), records and names; o->len moves past v's */
static void put_syms(struct kc_out *o, const struct tally_symbol *v, size_t n)
{
	struct kc_rec r[KC_STEP];

	for (size_t i = 0; i < n; i += KC_STEP) {
		size_t m = n - i < KC_STEP ? n - i : KC_STEP, len = 0;
		struct kc_idx x = { .start = v[i].start, .name_lo = o->noff };
		char *names = o->b + o->name;

		for (size_t j = 0; j < m; j++) {
			uint32_t l = *o->len++;

			memcpy(names + len, v[i + j].name, l);
			r[j] = (struct kc_rec){ .start = v[i + j].start, .end = v[i + j].end,
						.name = o->noff + (uint32_t)len,
						.binding = v[i + j].binding };
			len += l;
		}
		o->noff += (uint32_t)len;
		o->name += len;
		x.name_hi = o->noff;
		x.sum = block_sum(r, m, names, len);
		memcpy(o->b + o->idx, &x, sizeof(x));
		o->idx += sizeof(x);
		memcpy(o->b + o->rec, r, m * sizeof(*r));
		o->rec += m * sizeof(*r);
	}
}

/*
 * The file made in one buffer of its size, names measured once: a stdio
 * memstream grown by doubling and a write per name were most of the
 * 30-50 ms a first run spent writing it.
 */
int tally__kcache_store(uint64_t key, const struct tally__kimage *k)
{
	char path[4096], tmp[4200];
	struct kc_head h = { .key = key, .text = k->text, .nonzero = k->nonzero,
			     .ndso = k->nmods + 1 };
	uint64_t idx_off, rec_off, sum, nsyms = k->nk, total;
	struct kc_out o = { 0 };
	uint32_t *len;
	size_t at, li = 0;
	bool ok;
	int fd;

	if (!key || !k->ksyms || cache_path(path, sizeof(path), key, true))
		return -ENOENT;
	for (size_t m = 0; m < k->nmods; m++)
		nsyms += k->nm[m];
	if (!(len = malloc((nsyms ? nsyms : 1) * sizeof(*len))))
		return -ENOMEM;
	for (size_t i = 0; i < k->nk; i++)
		h.nlen += len[li++] = (uint32_t)strlen(k->ksyms[i].name) + 1;
	for (size_t m = 0; m < k->nmods; m++)
		for (size_t i = 0; i < k->nm[m]; i++)
			h.nlen += len[li++] = (uint32_t)strlen(k->msyms[m][i].name) + 1;
	if (!h.nlen || h.nlen > UINT32_MAX) {
		free(len);
		return -E2BIG;
	}
	/* magic and checksum, header, directory, the indexes, the records, the names */
	idx_off = 16 + sizeof(h) + h.ndso * sizeof(struct kc_ent);
	rec_off = idx_off + (k->nk + KC_STEP - 1) / KC_STEP * sizeof(struct kc_idx);
	for (size_t m = 0; m < k->nmods; m++)
		rec_off += (k->nm[m] + KC_STEP - 1) / KC_STEP * sizeof(struct kc_idx);
	h.names_off = rec_off + nsyms * sizeof(struct kc_rec);
	total = h.names_off + h.nlen;
	if (!(o.b = malloc(total))) {
		free(len);
		return -ENOMEM;
	}
	o.idx = idx_off;
	o.rec = rec_off;
	o.name = h.names_off;
	o.len = len;
	memcpy(o.b, KC_MAGIC, 8);
	memcpy(o.b + 16, &h, sizeof(h));
	at = 16 + sizeof(h);
	put_dir(o.b, &at, "", k->nk, &idx_off, &rec_off);
	for (size_t m = 0; m < k->nmods; m++)
		put_dir(o.b, &at, k->mnames[m], k->nm[m], &idx_off, &rec_off);
	put_syms(&o, k->ksyms, k->nk);
	for (size_t m = 0; m < k->nmods; m++)
		put_syms(&o, k->msyms[m], k->nm[m]);
	free(len);
	/* the checksum: of the header, directory and indexes (each block has its own) */
	sum = tally__kcache_sum(o.b + 16, 0, o.b + 16, o.idx - 16);
	memcpy(o.b + 8, &sum, 8);
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(o.b);
		return -errno;
	}
	ok = write(fd, o.b, total) == (ssize_t)total;
	free(o.b);
	if (close(fd) || !ok || rename(tmp, path)) {
		unlink(tmp);
		return -EIO;
	}
	(void)tally__cache_trim(path);
	return 0;
}
