// SPDX-License-Identifier: MIT
/*
 * A cache of /proc/kallsyms, parsed and sorted, for this boot.
 *
 * Reading /proc/kallsyms costs ~40 ms of kernel time (it formats 120k
 * lines on every read), more than the whole rest of a small report. Its
 * contents change only with the boot (KASLR), the kernel and the modules
 * loaded, so the parsed symbols are kept in
 * $XDG_CACHE_HOME/tally/kallsyms-KEY (~/.cache/tally), KEY a hash of
 * /proc/sys/kernel/random/boot_id, the kernel's notes (its build id) and
 * each module's name, size and address from /proc/modules. BPF programs
 * ([bpf] in kallsyms) come and go without changing the key; no map ever
 * points at them (tally makes none from KSYMBOL records), so a stale one
 * is never shown. TALLY_KALLSYMS_CACHE=0 turns the cache off.
 *
 * The file: magic, a checksum of all after it, key, _text, the number of
 * DSOs (the kernel first), the names, then per DSO its name and symbols
 * (start, end, binding, name offset). A wrong checksum or anything that
 * does not add up is a miss: kallsyms is read again and the file rewritten.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachedir.h"
#include "internal.h"
#include "kcache.h"

#define KC_MAGIC	"TLYKSYM1"

/* Over 8-byte words (the file is ~5 MiB: a byte-wise hash cost 5 ms). */
static uint64_t sum64(const unsigned char *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p + i, n - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
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

	snprintf(name, sizeof(name), "kallsyms-%016llx", (unsigned long long)key);
	return tally__cache_path(buf, len, name, create);
}

struct rd {
	const unsigned char *p, *end;
};

static bool rd_get(struct rd *r, void *out, size_t n)
{
	if ((size_t)(r->end - r->p) < n)
		return false;
	memcpy(out, r->p, n);
	r->p += n;
	return true;
}

static void syms_drop(struct tally_symbol *v, size_t n, bool own)
{
	for (size_t i = 0; own && v && i < n; i++)
		free((char *)v[i].name);
	free(v);
}

void tally__kcache_image_free(struct tally__kimage *k)
{
	syms_drop(k->ksyms, k->nk, !k->names);
	for (size_t i = 0; i < k->nmods; i++) {
		free(k->mnames ? k->mnames[i] : NULL);
		if (k->msyms)
			syms_drop(k->msyms[i], k->nm[i], !k->names);
	}
	free(k->names);
	free(k->mnames);
	free(k->msyms);
	free(k->nm);
	memset(k, 0, sizeof(*k));
}

/*
 * One DSO's symbols; names are offsets into the block names[0..nlen),
 * which ends in a NUL (checked once), so every offset inside it is a
 * whole string.
 */
static bool read_syms(struct rd *r, const char *names, uint64_t nlen,
		      struct tally_symbol **out, size_t *nout)
{
	uint64_t n;

	if (!rd_get(r, &n, sizeof(n)) || n > (uint64_t)(r->end - r->p) / 21)
		return false;
	struct tally_symbol *v = calloc(n + 1, sizeof(*v));

	if (!v)
		return false;
	for (uint64_t i = 0; i < n; i++) {
		uint32_t off;

		if (!rd_get(r, &v[i].start, 8) || !rd_get(r, &v[i].end, 8) ||
		    !rd_get(r, &v[i].binding, 1) || !rd_get(r, &off, 4) || off >= nlen ||
		    (i && v[i].start < v[i - 1].start)) {
			syms_drop(v, i, false);
			return false;
		}
		v[i].name = names + off;
	}
	*out = v;
	*nout = n;
	return true;
}

static int parse(const unsigned char *buf, size_t len, uint64_t key, struct tally__kimage *k)
{
	struct rd r = { buf, buf + len };
	char magic[8];
	uint64_t fkey, ndso, nlen, sum;
	uint32_t nonzero;
	const char *names;

	if (!rd_get(&r, magic, 8) || memcmp(magic, KC_MAGIC, 8) || !rd_get(&r, &sum, 8) ||
	    sum != sum64(r.p, (size_t)(r.end - r.p)) || !rd_get(&r, &fkey, 8) ||
	    fkey != key || !rd_get(&r, &k->text, 8) || !rd_get(&r, &nonzero, 4) ||
	    !rd_get(&r, &ndso, 8) || ndso == 0 || ndso > 100000 || !rd_get(&r, &nlen, 8) ||
	    nlen > (uint64_t)(r.end - r.p))
		return -EINVAL;
	if (!nlen || r.p[nlen - 1] != '\0' || !(k->names = malloc(nlen)))
		return -EINVAL;
	memcpy(k->names, r.p, nlen);
	names = k->names;
	r.p += nlen;
	k->nonzero = nonzero != 0;
	k->nmods = 0;
	k->mnames = calloc(ndso, sizeof(*k->mnames));
	k->msyms = calloc(ndso, sizeof(*k->msyms));
	k->nm = calloc(ndso, sizeof(*k->nm));
	if (!k->mnames || !k->msyms || !k->nm)
		return -ENOMEM;
	if (!read_syms(&r, names, nlen, &k->ksyms, &k->nk))
		return -EINVAL;
	for (uint64_t i = 1; i < ndso; i++) {
		uint32_t off;

		if (!rd_get(&r, &off, 4) || off >= nlen ||
		    !(k->mnames[k->nmods] = strdup(names + off)))
			return -EINVAL;
		if (!read_syms(&r, names, nlen, &k->msyms[k->nmods], &k->nm[k->nmods])) {
			free(k->mnames[k->nmods]);
			k->mnames[k->nmods] = NULL;
			return -EINVAL;
		}
		k->nmods++;
	}
	return r.p == r.end ? 0 : -EINVAL;
}

int tally__kcache_load(uint64_t key, struct tally__kimage *k)
{
	char path[4096];
	size_t size;
	int fd, err;
	void *m;

	memset(k, 0, sizeof(*k));
	if (!key || cache_path(path, sizeof(path), key, false))
		return -ENOENT;
	fd = tally__cache_open(path, &size);
	if (fd < 0)
		return fd;
	if (size < 8) {
		close(fd);
		return -EINVAL;
	}
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -errno;
	err = parse(m, size, key, k);
	munmap(m, size);
	if (err)
		tally__kcache_image_free(k);
	return err;
}

static void put_syms(FILE *f, const struct tally_symbol *v, size_t n, uint64_t *off)
{
	uint64_t nn = n;

	fwrite(&nn, 8, 1, f);
	for (size_t i = 0; i < n; i++) {
		uint32_t o = (uint32_t)*off;

		fwrite(&v[i].start, 8, 1, f);
		fwrite(&v[i].end, 8, 1, f);
		fwrite(&v[i].binding, 1, 1, f);
		fwrite(&o, 4, 1, f);
		*off += strlen(v[i].name) + 1;
	}
}

int tally__kcache_store(uint64_t key, const struct tally__kimage *k)
{
	char path[4096], tmp[4200];
	uint64_t nlen = 0, off = 0, ndso = k->nmods + 1;
	uint32_t nonzero = k->nonzero;
	char *body = NULL;
	size_t blen = 0;
	uint64_t sum;
	bool ok;
	FILE *f;
	int fd;

	if (!key || cache_path(path, sizeof(path), key, true))
		return -ENOENT;
	for (size_t i = 0; i < k->nk; i++)
		nlen += strlen(k->ksyms[i].name) + 1;
	for (size_t m = 0; m < k->nmods; m++) {
		nlen += strlen(k->mnames[m]) + 1;
		for (size_t i = 0; i < k->nm[m]; i++)
			nlen += strlen(k->msyms[m][i].name) + 1;
	}
	if (nlen > UINT32_MAX)
		return -E2BIG;
	/* built in memory first: the checksum leads the file */
	f = open_memstream(&body, &blen);
	if (!f)
		return -ENOMEM;
	fwrite(&key, 8, 1, f);
	fwrite(&k->text, 8, 1, f);
	fwrite(&nonzero, 4, 1, f);
	fwrite(&ndso, 8, 1, f);
	fwrite(&nlen, 8, 1, f);
	/* the names, in the order the entries below take their offsets */
	for (size_t i = 0; i < k->nk; i++)
		fwrite(k->ksyms[i].name, strlen(k->ksyms[i].name) + 1, 1, f);
	for (size_t m = 0; m < k->nmods; m++) {
		fwrite(k->mnames[m], strlen(k->mnames[m]) + 1, 1, f);
		for (size_t i = 0; i < k->nm[m]; i++)
			fwrite(k->msyms[m][i].name, strlen(k->msyms[m][i].name) + 1, 1, f);
	}
	put_syms(f, k->ksyms, k->nk, &off);
	for (size_t m = 0; m < k->nmods; m++) {
		uint32_t o = (uint32_t)off;

		fwrite(&o, 4, 1, f);
		off += strlen(k->mnames[m]) + 1;
		put_syms(f, k->msyms[m], k->nm[m], &off);
	}
	if (fclose(f)) {
		free(body);
		return -ENOMEM;
	}
	sum = sum64((const unsigned char *)body, blen);
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
