// SPDX-License-Identifier: MIT
/*
 * tally_symbols: the DSO cache (each DSO loaded once), the kernel from
 * /proc/kallsyms, address resolution and the account of misses.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <elf.h>
#include <link.h>
#include "internal.h"
#include "buildid_dir.h"
#include "symbols_state.h"
#include "elf_util.h"


/* ---- the DSO cache ---- */

static void dso_free(struct tally_dso *d)
{
	if (!d)
		return;
	tally__dso_unload(d);
	free(d->name);
	free(d->file);
	free(d->detail);
	pthread_mutex_destroy(&d->dw_mu);
	tally__strpool_free(&d->inl_names);
	free(d->tlines);
	free(d);
}

static size_t dso_hash(const char *name, int32_t pid, size_t cap)
{
	return tally_fnv_str(TALLY_FNV_BASIS ^ (uint32_t)pid, name) & (cap - 1);
}

static struct tally_dso **dso_slot(struct tally_symbols *s, const char *name, int32_t pid)
{
	for (size_t h = dso_hash(name, pid, s->cap);; h = (h + 1) & (s->cap - 1)) {
		struct tally_dso *d = s->dsos[h];

		if (!d || (d->pid == pid && !strcmp(d->name, name)))
			return &s->dsos[h];
	}
}

static struct tally_dso *dso_new(struct tally_symbols *s, const char *name, int32_t pid)
{
	struct tally_dso *d;

	if ((s->nr_dsos + 1) * 2 > s->cap) {
		struct tally_dso **old = s->dsos;
		size_t ocap = s->cap;

		s->cap = ocap ? ocap * 2 : 64;
		s->dsos = tally__calloc(s->cap, sizeof(*s->dsos));
		if (!s->dsos) {
			s->dsos = old;
			s->cap = ocap;
			return NULL;
		}
		for (size_t i = 0; i < ocap; i++)
			if (old[i])
				*dso_slot(s, old[i]->name, old[i]->pid) = old[i];
		free(old);
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return NULL;
	}
	/* perf joins the root and the path as strings: "/" and "" are no root */
	if (s->symfs && name[0] == '/' && asprintf(&d->file, "%s%s", s->symfs, name) < 0) {
		free(d->name);
		free(d);
		return NULL;
	}
	d->pid = pid;
	d->dw_fd = -1;
	pthread_mutex_init(&d->dw_mu, NULL);
	d->miss_slot = -1;
	*dso_slot(s, name, pid) = d;
	s->nr_dsos++;
	return d;
}

static struct tally_dso *dso_find(struct tally_symbols *s, const char *name, int32_t pid)
{
	return s->cap ? *dso_slot(s, name, pid) : NULL;
}

static char *dup_or_null(const char *v, const char *def)
{
	const char *x = v ? v : def;

	return x ? strdup(x) : NULL;
}

struct tally_symbols *tally_symbols__new(const struct tally_symbols_opts *opts)
{
	struct tally_symbols *s;
	char home[4096];
	const char *h = getenv("HOME"), *sf;

	if (!TALLY_OPTS_VALID(opts, tally_symbols_opts))
		return tally__err_ptr(E2BIG);
	s = calloc(1, sizeof(*s));
	if (!s)
		return tally__err_ptr(ENOMEM);
	/* perf's build-id cache: its config's buildid.dir, else ~/.debug */
	if (tally__buildid_dir(home, sizeof(home)))
		snprintf(home, sizeof(home), "%s/.debug", h && *h ? h : "/root");
	s->debug_root = dup_or_null(TALLY_OPTS_GET(opts, debug_root, NULL), "");
	s->home_debug = dup_or_null(TALLY_OPTS_GET(opts, home_debug, NULL), home);
	s->kallsyms = dup_or_null(TALLY_OPTS_GET(opts, kallsyms, NULL), "/proc/kallsyms");
	s->jit_dir = dup_or_null(TALLY_OPTS_GET(opts, jit_dir, NULL), "/tmp");
	if (!s->debug_root || !s->home_debug || !s->kallsyms || !s->jit_dir) {
		tally_symbols__free(s);
		return tally__err_ptr(ENOMEM);
	}
	s->ctx.debug_root = s->debug_root;
	s->ctx.home_debug = s->home_debug;
	sf = TALLY_OPTS_GET(opts, symfs, NULL);
	if (sf && *sf && strcmp(sf, "/")) {
		if (!(s->symfs = strdup(sf))) {
			tally_symbols__free(s);
			return tally__err_ptr(ENOMEM);
		}
		s->ctx.symfs = s->symfs;
		/*
		 * perf reads no local kernel file under a symfs: kallsyms is
		 * the root's copy, if any (unresolved without one, as perf's)
		 */
		/* and its build-id cache is the root's .debug, as perf's symbol__config_symfs */
		if (!TALLY_OPTS_GET(opts, home_debug, NULL)) {
			free(s->home_debug);
			if (asprintf(&s->home_debug, "%s/.debug", sf) < 0) {
				s->home_debug = NULL;
				tally_symbols__free(s);
				return tally__err_ptr(ENOMEM);
			}
			s->ctx.home_debug = s->home_debug;
		}
		if (!TALLY_OPTS_GET(opts, kallsyms, NULL)) {
			free(s->kallsyms);
			if (asprintf(&s->kallsyms, "%s/proc/kallsyms", sf) < 0) {
				s->kallsyms = NULL;
				tally_symbols__free(s);
				return tally__err_ptr(ENOMEM);
			}
		}
	}
	s->kallsyms_given = TALLY_OPTS_GET(opts, kallsyms, NULL) || s->symfs;
	s->ctx.demangle = !TALLY_OPTS_GET(opts, no_demangle, false);
	s->ctx.data_objects = TALLY_OPTS_GET(opts, data_objects, false);
	s->ignore_build_id = TALLY_OPTS_GET(opts, ignore_build_id, false);
	s->build_id = TALLY_OPTS_GET(opts, build_id, NULL);
	s->build_id_ctx = TALLY_OPTS_GET(opts, build_id_ctx, NULL);
	s->no_map_slot = -1;
	return s;
}

void tally_symbols__free(struct tally_symbols *s)
{
	if (!s)
		return;
	if (s->kp_running)
		pthread_join(s->kp_thread, NULL);
	tally__ahead_stop(s);
	tally__dw_stop(s);
	free(s->ahead.q);
	free(s->dw.q);
	tally__kparse_destroy(s->kp);
	for (size_t i = 0; i < s->cap; i++)
		dso_free(s->dsos[i]);
	free(s->dsos);
	tally__kcache_close(s->kc);
	free(s->unres);
	free(s->debug_root);
	free(s->symfs);
	free(s->home_debug);
	free(s->kmismatch);
	free(s->kallsyms);
	free(s->modules);
	free(s->jit_dir);
	free(s);
}

/* "/lib/modules/.../nf_tables.ko.xz" -> "[nf_tables]", as kallsyms tags them. */
void tally__module_name(const char *path, char *out, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t i = 0;

	b = b ? b + 1 : path;
	if (*b == '[') {
		snprintf(out, len, "%s", b);
		return;
	}
	out[i++] = '[';
	for (; *b && *b != '.' && i + 2 < len; b++)
		out[i++] = *b == '-' ? '_' : *b;
	out[i++] = ']';
	out[i] = '\0';
}

/* The kernel's and the modules' DSOs, from kallsyms (read now, or joined). */
static int load_kallsyms(struct tally_symbols *s)
{
	struct kparse local = { 0 }, *k = &local;
	struct tally_dso *kd;
	int err;

	if (s->kp) {
		k = s->kp;
		if (s->kp_running) {	/* joined at close: it may still write the cache */
			pthread_mutex_lock(&k->mu);
			while (!k->ready)
				pthread_cond_wait(&k->cv, &k->mu);
			pthread_mutex_unlock(&k->mu);
		}
	} else {
		tally__kallsyms_choose(s);
		if (!s->kmismatch)
			tally__kparse_run(k, s->kallsyms);
	}
	s->kernel_loaded = true;
	kd = dso_new(s, "[kernel.kallsyms]", -1);
	if (!kd) {
		err = -ENOMEM;
		goto out;
	}
	kd->kind = DSO_KERNEL;
	if (s->kmismatch) {	/* another kernel's recording, and no kallsyms of it */
		kd->status = TALLY_DSO_BUILD_ID_MISMATCH;
		kd->detail = strdup(s->kmismatch);
		err = 0;
		goto out;
	}
	kd->symsrc = strdup(s->kallsyms);
	kd->text = k->img.text;
	err = k->err;
	if (k->open_errno) {
		kd->status = TALLY_DSO_KALLSYMS_RESTRICTED;
		if (asprintf(&kd->detail, "%s: %s", s->kallsyms, strerror(k->open_errno)) < 0)
			kd->detail = NULL;
		goto out;
	}
	if (!err && !k->img.nonzero) {
		kd->status = TALLY_DSO_KALLSYMS_RESTRICTED;
		kd->detail = strdup("kallsyms addresses are all zero: "
				    "kernel.kptr_restrict hides them (run as root or "
				    "set kernel.kptr_restrict=0)");
	} else if (!err && k->img.kc) {
		kd->kc = tally__kcache_dso(k->img.kc, 0);	/* symbols read at lookups */
		kd->nr_syms = k->img.nk;
	} else if (!err) {
		kd->syms = k->img.ksyms;
		kd->nr_syms = k->img.nk;
		kd->names = k->img.kpool;	/* the names' pool goes with the table */
		kd->names_len = k->img.kplen;
		k->img.ksyms = NULL;
		k->img.kpool = NULL;
	}
	for (size_t i = 0; !err && i < k->img.nmods; i++) {
		char nm[160];
		struct tally_dso *md;

		snprintf(nm, sizeof(nm), "[%s]", k->img.mnames[i]);
		if (dso_find(s, nm, -1) || !(md = dso_new(s, nm, -1)))
			continue;
		md->kind = DSO_KERNEL;
		md->symsrc = strdup(s->kallsyms);
		if (!k->img.nonzero) {
			md->status = TALLY_DSO_KALLSYMS_RESTRICTED;
		} else if (k->img.kc) {
			md->kc = tally__kcache_dso(k->img.kc, i + 1);
			md->nr_syms = k->img.nm[i];
		} else {
			md->syms = k->img.msyms[i];
			md->nr_syms = k->img.nm[i];
			md->names = k->img.mpools ? k->img.mpools[i] : NULL;
			md->names_len = k->img.mplen ? k->img.mplen[i] : 0;
			k->img.msyms[i] = NULL;
			if (k->img.mpools)
				k->img.mpools[i] = NULL;
		}
	}
out:
	/* the cache lives as long as the DSOs reading it */
	s->kc = k->img.kc;
	k->img.kc = NULL;
	if (k == &local)
		tally__kparse_free(k);	/* else the rest is freed at close, after the join */
	return err;
}

static bool is_anon_name(const char *n)
{
	return !strcmp(n, "//anon") || !strncmp(n, "/dev/zero", 9) ||
	       !strncmp(n, "/anon_hugepage", 14) || !strncmp(n, "[anon", 5);
}

/* A file's bytes, for an image read whole ([vdso]'s kept copy: a page or two). */
static void *read_small(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && n < (1 << 24) &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n)
		*len = (size_t)n;
	else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

/* The build id of an ELF image in memory: its length, 0 if none. */
static size_t image_id(const void *img, size_t len, uint8_t *id)
{
	Elf *elf;
	int n;

	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_memory((char *)img, len)))
		return 0;
	n = tally__elf_build_id(elf, id, TALLY_BUILD_ID_MAX);
	elf_end(elf);
	return n > 0 ? (size_t)n : 0;
}

/*
 * [vdso] is the same image in every process of one kernel: our own, where
 * the recording's build id is ours or unknown. A recording of another
 * kernel's vDSO is read from the copy perf record kept (code_path), else
 * left unresolved as perf does: our symbols would be wrong there.
 */
static void load_vdso(struct tally_dso *d, const uint8_t *id, size_t id_sz, bool demangle)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	uint8_t own[TALLY_BUILD_ID_MAX];
	size_t len = 0, own_sz;
	void *copy;

	d->kind = DSO_ANON;
	d->status = TALLY_DSO_ANON;
	if (eh && !memcmp(eh->e_ident, ELFMAG, SELFMAG))
		len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	own_sz = len ? image_id(eh, len, own) : 0;
	if (len && (!id_sz || (own_sz == id_sz && !memcmp(own, id, id_sz)))) {
		d->status = TALLY_DSO_OK;
		if (tally__dso_load_image(d, eh, len, demangle))
			d->status = TALLY_DSO_ANON;
		return;
	}
	if (d->code_path && (copy = read_small(d->code_path, &len))) {
		d->status = TALLY_DSO_OK;
		if (tally__dso_load_image(d, copy, len, demangle))
			d->status = TALLY_DSO_ANON;
		free(copy);
		return;
	}
	if (len)
		d->status = TALLY_DSO_BUILD_ID_MISMATCH;
}

/*
 * A KSYMBOL's DSO: the symbol's name, one symbol over the map (from 0:
 * map_ip is the offset into it), as perf's
 * machine__process_ksymbol_register makes it ("bpf_prog_<tag>_<name>+0x3b"
 * in the DSO of the same name).
 */
static struct tally_dso *ksym_dso(struct tally_symbols *s, const struct tally_map *map)
{
	struct tally__symvec v = { 0 };
	struct tally_dso *d;
	char key[512];
	int err;

	/* a program loaded again has the same name at another address: a DSO each, as perf */
	snprintf(key, sizeof(key), "%s@%" PRIx64, map->filename, map->start);
	if ((d = dso_find(s, key, -1)))
		return d;
	if (!(d = dso_new(s, key, -1)))
		return tally__err_ptr(ENOMEM);
	d->kind = DSO_KERNEL;
	err = tally__symvec_add(&v, 0, map->end - map->start, STB_GLOBAL, map->filename,
				false);
	if (!err)
		err = tally__symvec_finish(&v, &d->syms, &d->nr_syms);
	tally__symvec_free(&v);
	return err ? tally__err_ptr(-err) : d;
}

/* A file's table, as it was first loaded or again after a trim let it go; its bytes counted. */
static int load_file(struct tally_symbols *s, struct tally_dso *d)
{
	int err = tally__dso_load_elf(d, &s->ctx, d->load_id_sz ? d->load_id : NULL,
				      s->ignore_build_id ? 0 : d->load_id_sz);

	d->unloaded = false;
	d->used = s->epoch;
	d->bytes = tally__dso_table_bytes(d);
	s->loaded += d->bytes;
	return err;
}

/* A table read ahead, its bytes counted as load_file's; or loaded now if not begun */
static int take_ahead(struct tally_symbols *s, struct tally_dso *d)
{
	int err = tally__ahead_take(s, d);

	if (err == 1)
		return load_file(s, d);
	d->used = s->epoch;
	d->bytes = tally__dso_table_bytes(d);
	s->loaded += d->bytes;
	return err;
}

/*
 * The build id a file's table is loaded against when its map carries
 * none: the recording's, where perf's build-id cache keeps that build
 * (else the file is read as it is now, as perf report does).
 */
static void recorded_id(struct tally_symbols *s, const char *path, uint8_t *id, size_t *id_sz)
{
	uint8_t bid[TALLY_BUILD_ID_MAX];
	int n;
	char *copy;

	if (!s->build_id || s->ignore_build_id)
		return;
	n = s->build_id(s->build_id_ctx, path, bid, sizeof(bid));
	copy = n > 0 && (size_t)n <= sizeof(bid) ?
	       tally__dso_cached_copy(&s->ctx, bid, (size_t)n,
				      strcmp(path, "[vdso]") ? "elf" : "vdso") : NULL;
	if (copy) {
		memcpy(id, bid, (size_t)n);
		*id_sz = (size_t)n;
	}
	free(copy);
}

/* An unloaded table loaded again: the same file, the same names. */
static int reload(struct tally_symbols *s, struct tally_dso *d)
{
	char *detail = d->detail;
	int err;

	d->detail = NULL;
	d->status = TALLY_DSO_OK;
	err = load_file(s, d);
	s->reloads++;
	/* the account of misses points at the detail: the new one's */
	if (d->miss_slot >= 0 && (size_t)d->miss_slot < s->nr_unres) {
		s->unres[d->miss_slot].detail = d->detail;
		s->unres[d->miss_slot].status = d->status;
	}
	free(detail);
	return err;
}

struct tally_dso *tally_symbols__dso(struct tally_symbols *s, const struct tally_map *map,
				     int32_t pid)
{
	char name[4096];
	struct tally_dso *d;
	uint8_t bid[TALLY_BUILD_ID_MAX];
	const uint8_t *id;
	size_t id_sz;
	int err;

	if (!s || !map || !map->filename)
		return tally__err_ptr(EINVAL);
	if (map->ksym)
		return ksym_dso(s, map);
	id = map->build_id;
	id_sz = map->build_id_size;
	if (map->kernel) {
		if (!strncmp(map->filename, "[kernel.kallsyms]", 17) ||
		    !strncmp(map->filename, "[guest.kernel", 13))
			snprintf(name, sizeof(name), "[kernel.kallsyms]");
		else
			tally__module_name(map->filename, name, sizeof(name));
		if (!s->kernel_loaded && (err = load_kallsyms(s)))
			return tally__err_ptr(-err);
		d = dso_find(s, name, -1);
		if (!d && (d = dso_new(s, name, -1))) {
			/* A module kallsyms does not list: loaded after it was read. */
			d->kind = DSO_KERNEL;
			d->status = TALLY_DSO_MISSING;
		}
		return d ? d : tally__err_ptr(ENOMEM);
	}
	if (map->anon) {
		snprintf(name, sizeof(name), "%s/perf-%d.map", s->jit_dir, (int)pid);
		if ((d = dso_find(s, name, pid)))
			return d;
		if (!(d = dso_new(s, name, pid)))
			return tally__err_ptr(ENOMEM);
		d->kind = DSO_JIT;
		if ((err = tally__dso_load_jit(d, name, s->ctx.demangle)))
			return tally__err_ptr(-err);
		return d;
	}
	if ((d = dso_find(s, map->filename, -1))) {
		/* read ahead (tally_symbols__preload_file): done, under way, or ours now */
		if (__atomic_load_n(&d->ahead, __ATOMIC_ACQUIRE) && (err = take_ahead(s, d)))
			return tally__err_ptr(-err);
		d->used = s->epoch;
		if (d->unloaded && (err = reload(s, d)))
			return tally__err_ptr(-err);
		return d;
	}
	if (!(d = dso_new(s, map->filename, -1)))
		return tally__err_ptr(ENOMEM);
	/*
	 * No build id in the map: the recording's table may have one. As
	 * perf report, a file rebuilt since is still read for its symbols,
	 * unless perf's build-id cache keeps the recorded build: then that.
	 */
	if (!map->build_id_size) {
		recorded_id(s, map->filename, bid, &id_sz);
		id = id_sz ? bid : NULL;
	}
	if (!strcmp(map->filename, "[vdso]")) {
		/* the recorded build, whether or not a copy of it is kept */
		if (!map->build_id_size && s->build_id && !s->ignore_build_id) {
			int n = s->build_id(s->build_id_ctx, map->filename, bid, sizeof(bid));

			id_sz = n > 0 && (size_t)n <= sizeof(bid) ? (size_t)n : 0;
			id = id_sz ? bid : NULL;
		}
		/* its code: the copy perf record keeps in the build-id cache */
		d->code_path = tally__dso_cached_copy(&s->ctx, id, id_sz, "vdso");
		load_vdso(d, id, id_sz, s->ctx.demangle);
		return d;
	}
	if (map->filename[0] == '[' || is_anon_name(map->filename)) {
		d->kind = DSO_ANON;		/* [stack], [heap], [vsyscall] */
		d->status = TALLY_DSO_ANON;
		return d;
	}
	d->kind = DSO_ELF;
	if (id_sz > sizeof(d->load_id))
		id_sz = sizeof(d->load_id);
	if (id && id_sz)
		memcpy(d->load_id, id, id_sz);
	d->load_id_sz = (uint8_t)id_sz;
	err = load_file(s, d);
	if (err)
		return tally__err_ptr(-err);
	return d;
}

/*
 * A DSO whose functions its caller knows (a store's profile, read on
 * another host than the one that ran it): no file is read for it; the
 * kernel's replaces kallsyms, which is this host's.
 */
int tally_symbols__set_table(struct tally_symbols *s, const char *name,
			     const struct tally_symbol *syms, size_t n, const char *symsrc)
{
	struct tally__symvec v = { 0 };
	struct tally_dso *d;
	bool kernel;
	int err = 0;

	if (!s || !name || (n && !syms))
		return -EINVAL;
	kernel = !strcmp(name, "[kernel.kallsyms]");
	if (kernel && !s->kernel_loaded) {
		if (s->kp_running)
			pthread_join(s->kp_thread, NULL);
		s->kp_running = false;
		tally__kparse_destroy(s->kp);
		s->kp = NULL;
		s->kernel_loaded = true;
	}
	if (dso_find(s, name, -1))
		return -EEXIST;
	for (size_t i = 0; i < n && !err; i++)
		if (syms[i].name)
			err = tally__symvec_add(&v, syms[i].start,
						syms[i].end > syms[i].start ? syms[i].end - syms[i].start : 0,
						syms[i].binding ? syms[i].binding : STB_GLOBAL,
						syms[i].name, false);
	if (!err && !(d = dso_new(s, name, -1)))
		err = -ENOMEM;
	if (!err) {
		d->kind = kernel ? DSO_KERNEL : DSO_JIT;	/* addresses as they come: map_ip */
		d->symsrc = strdup(symsrc ? symsrc : "table");
		err = tally__symvec_finish(&v, &d->syms, &d->nr_syms);
		if (!err && !d->nr_syms)
			d->status = TALLY_DSO_STRIPPED;
	}
	tally__symvec_free(&v);
	return err;
}

int tally_symbols__set_lines(struct tally_symbols *s, const char *name,
			     const struct tally_symbol_line *v, size_t n)
{
	struct tally_dso *d;

	if (!s || !name || (n && !v))
		return -EINVAL;
	if (!(d = dso_find(s, name, -1)) || !d->symsrc || d->kind == DSO_ELF)
		return -ENOENT;
	free(d->tlines);
	d->ntlines = 0;
	if (!n)
		return 0;
	if (!(d->tlines = malloc(n * sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *f = v[i].file ? tally__strpool_add(&d->inl_names, v[i].file) : NULL;

		if (v[i].file && !f)
			return -ENOMEM;
		d->tlines[d->ntlines++] = (struct tally_symbol_line){ v[i].addr, f, v[i].line };
	}
	qsort(d->tlines, d->ntlines, sizeof(*d->tlines), tally__symbol_line_cmp);
	return 0;
}

struct tally_dso *tally_symbols__dso_path(struct tally_symbols *s, const char *path)
{
	struct tally_map m = { .filename = path };

	if (!path)
		return tally__err_ptr(EINVAL);
	return tally_symbols__dso(s, &m, -1);
}

int tally_symbols__preload_file(struct tally_symbols *s, const char *path)
{
	struct tally_dso *d;
	struct stat st;
	size_t id_sz = 0;

	if (!s || !path)
		return -EINVAL;
	/* a file's own table: not the kernel's, [vdso], anonymous memory or a JIT's */
	if (path[0] != '/' || is_anon_name(path) || dso_find(s, path, -1))
		return 0;
	if (!(d = dso_new(s, path, -1)))
		return -ENOMEM;
	d->kind = DSO_ELF;
	recorded_id(s, path, d->load_id, &id_sz);
	d->load_id_sz = (uint8_t)id_sz;
	if (!stat(tally__dso_file(d), &st))
		d->ahead_size = (uint64_t)st.st_size;
	return tally__ahead_queue(s, d) == 1 ? load_file(s, d) : 0;
}

/* Count a miss against its DSO (or against "no map"). */
static void note_miss(struct tally_symbols *s, struct tally_dso *d, enum tally_dso_status st)
{
	int *slot = d ? &d->miss_slot : &s->no_map_slot;

	if (*slot < 0) {
		if (s->nr_unres == s->alloc_unres) {
			size_t n = s->alloc_unres ? s->alloc_unres * 2 : 16;
			void *p = tally__reallocarray(s->unres, n, sizeof(*s->unres));

			if (!p)
				return;		/* the account is best effort */
			s->unres = p;
			s->alloc_unres = n;
		}
		*slot = (int)s->nr_unres++;
		s->unres[*slot] = (struct tally_unresolved){
			.dso = d ? d->name : "[unknown]", .status = st,
			.detail = d ? d->detail : "no map holds the address",
		};
	}
	s->unres[*slot].addrs++;
}

/*
 * A kernel address past the text map's end (_etext) and in none of the
 * modules' maps: perf 6.1 still finds it in the kernel (init text:
 * start_kernel in the idle task's chain) where kallsyms has a kernel
 * symbol for it, and nowhere when it has none (a BPF program's code
 * without a KSYMBOL record, above the kernel's last symbol). The map
 * is the kernel's, map_ip the address.
 */
static const struct tally_map *kernel_past_etext(struct tally_symbols *s, struct tally_machine *m,
						 uint64_t ip, uint64_t *map_ip)
{
	const struct tally_map *km = tally__machine_kernel_map(m);
	struct tally_dso *d;
	uint64_t vaddr;

	if (!km || ip < km->end)
		return NULL;
	d = tally_symbols__dso(s, km, -1);
	if (!d || d->kind != DSO_KERNEL)
		return NULL;
	vaddr = ip;
	if (d->text && km->pgoff)
		vaddr += d->text - km->pgoff;
	if (!tally__dso_symbol(d, vaddr))
		return NULL;
	*map_ip = ip - km->start + km->pgoff;
	return km;
}

int tally_symbols__resolve(struct tally_symbols *s, struct tally_machine *m, int32_t pid,
			   int32_t tid, uint64_t ip, enum tally_cpumode cpumode,
			   struct tally_addr_info *out)
{
	if (!s || !m || !out)
		return tally__err(EINVAL);
	memset(out, 0, sizeof(*out));
	out->map = tally_machine__find_map(m, pid, tid, ip, cpumode, &out->map_ip);
	if (!out->map && (cpumode == TALLY_CPUMODE_KERNEL || cpumode == TALLY_CPUMODE_GUEST_KERNEL))
		out->map = kernel_past_etext(s, m, ip, &out->map_ip);
	if (!out->map) {
		out->status = TALLY_DSO_MISSING;
		note_miss(s, NULL, TALLY_DSO_MISSING);
		return tally__err(ENOENT);
	}
	size_t c = ((uintptr_t)out->map->filename >> 4) % ARRAY_SIZE(s->last);

	uint64_t mid = tally__machine_id(m);

	/* a KSYMBOL map's name may stand at several addresses: a DSO each */
	if (!out->map->ksym && s->last[c].filename == out->map->filename && s->last[c].machine == mid &&
	    (!out->map->anon || s->last[c].pid == pid)) {
		out->dso = s->last[c].dso;
		out->dso->used = s->epoch;
	} else {
		out->dso = tally_symbols__dso(s, out->map, pid);
		if (!out->dso)
			return -errno;
		s->last[c].filename = out->map->filename;
		s->last[c].machine = mid;
		s->last[c].pid = pid;
		s->last[c].dso = out->dso;
	}
	out->status = out->dso->status;
	out->vaddr = out->dso->kind == DSO_ELF || out->dso->kind == DSO_ANON ?
		     tally_dso__map_ip_to_vaddr(out->dso, out->map_ip) : out->map_ip;
	/*
	 * The recording's kernel map says where _text was (pgoff); kallsyms
	 * says where it is now. They differ when the data comes from another
	 * boot (KASLR): move the address by the difference, as perf's
	 * ref_reloc_sym does.
	 */
	if (out->dso->kind == DSO_KERNEL && out->dso->text && out->map->pgoff &&
	    !strcmp(out->map->filename, "[kernel.kallsyms]_text"))
		out->vaddr += out->dso->text - out->map->pgoff;
	out->sym = tally__dso_symbol(out->dso, out->vaddr);
	if (!out->sym) {
		note_miss(s, out->dso, out->dso->status);
		return tally__err(ENOENT);
	}
	out->sym_off = out->vaddr - out->sym->start;
	return 0;
}

int tally_symbols__unresolved(struct tally_symbols *s, const struct tally_unresolved **out)
{
	if (!s || !out)
		return tally__err(EINVAL);
	*out = s->unres;
	return (int)s->nr_unres;
}

/* ---- the file tables' budget ---- */

int tally_symbols__set_cache_size(struct tally_symbols *s, size_t bytes)
{
	if (!s)
		return tally__err(EINVAL);
	s->budget = bytes;
	return 0;
}

void tally__symbols_touch(struct tally_symbols *s, struct tally_dso *d)
{
	if (s && d)
		d->used = s->epoch;
}

bool tally__dso_unloaded(const struct tally_dso *d)
{
	return d && d->unloaded;
}

static int by_used(const void *a, const void *b)
{
	const struct tally_dso *x = *(struct tally_dso *const *)a, *y = *(struct tally_dso *const *)b;

	return x->used != y->used ? (x->used < y->used ? -1 : 1) : strcmp(x->name, y->name);
}

/*
 * A file's DSO let go whole: unloaded, not asked for since the trim
 * before the last (nothing resolved through it is kept; a caller's
 * pointer to it stays good for a trim), no misses counted against it
 * (the account names it) and never handed to the DWARF helper (its queue
 * may still hold it). A busy host maps new paths all day (containers).
 */
static bool forgettable(const struct tally_symbols *s, const struct tally_dso *d)
{
	return d->unloaded && d->used + 1 < s->epoch && d->miss_slot < 0 && !d->dw_queued;
}

size_t tally_symbols__trim(struct tally_symbols *s)
{
	struct tally_dso **v;
	size_t n = 0, gone = 0, dropped = 0;

	if (!s)
		return 0;
	tally__ahead_stop(s);	/* the tables it read are weighed (taken at their next lookup) */
	if (s->budget) {
		/* names demangled at their first lookup grew the tables since their load */
		s->loaded = 0;
		for (size_t i = 0; i < s->cap; i++) {
			struct tally_dso *d = s->dsos[i];

			if (d && d->kind == DSO_ELF && !d->unloaded && !d->ahead) {
				d->bytes = tally__dso_table_bytes(d);
				s->loaded += d->bytes;
			}
		}
	}
	if (s->budget && s->loaded > s->budget && (v = malloc(s->nr_dsos * sizeof(*v)))) {
		/* files' tables only: the kernel's is in use all the time, the others are small */
		for (size_t i = 0; i < s->cap; i++) {
			struct tally_dso *d = s->dsos[i];

			if (d && d->kind == DSO_ELF && d->pid == -1 && !d->unloaded && d->bytes &&
			    !d->ahead)
				v[n++] = d;
		}
		qsort(v, n, sizeof(*v), by_used);
		for (size_t i = 0; i < n && s->loaded > s->budget; i++) {
			s->loaded -= v[i]->bytes;
			tally__dso_unload(v[i]);
			gone++;
		}
		s->evictions += gone;
		free(v);
	}
	for (size_t i = 0; i < s->cap; i++)
		dropped += s->dsos[i] && forgettable(s, s->dsos[i]);
	if (dropped) {
		/* open addressing has no deletes: the rest placed again in a new table */
		struct tally_dso **old = s->dsos, **nt = tally__calloc(s->cap, sizeof(*nt));

		if (!nt) {
			dropped = 0;	/* kept till a trim with memory */
		} else {
			s->dsos = nt;
			for (size_t i = 0; i < s->cap; i++) {
				if (!old[i])
					continue;
				if (forgettable(s, old[i])) {
					dso_free(old[i]);
					s->nr_dsos--;
				} else {
					*dso_slot(s, old[i]->name, old[i]->pid) = old[i];
				}
			}
			free(old);
		}
	}
	/* the fast path's answers may be those let go */
	if (gone || dropped)
		memset(s->last, 0, sizeof(s->last));
	s->epoch++;
	return gone;
}

int tally_symbols__cache_stats(const struct tally_symbols *s, struct tally_symbols_cache_stats *st)
{
	struct tally_symbols_cache_stats v = { .sz = sizeof(v) };

	if (!s || !st || st->sz < sizeof(size_t))
		return tally__err(EINVAL);
	for (size_t i = 0; i < s->cap; i++)
		v.tables += s->dsos[i] && s->dsos[i]->kind == DSO_ELF && !s->dsos[i]->unloaded;
	v.budget = s->budget;
	v.bytes = s->loaded;
	v.dsos = s->nr_dsos;
	v.evictions = s->evictions;
	v.reloads = s->reloads;
	v.sz = st->sz;
	memcpy(st, &v, st->sz < sizeof(v) ? st->sz : sizeof(v));
	return 0;
}
