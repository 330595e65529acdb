/* SPDX-License-Identifier: MIT */
/* The DSO object, shared by dso.c (loading) and symbols.c (the cache). */
#ifndef TALLY_DSO_INTERNAL_H
#define TALLY_DSO_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <tally/symbols.h>
#include "strpool.h"
#include "symbols_internal.h"

struct Dwarf;
typedef struct Elf Elf;

enum tally__dso_kind { DSO_ELF, DSO_KERNEL, DSO_JIT, DSO_ANON };

struct tally__fnidx;
struct tally__fnfiles;
struct tally__symtree;
struct tally__kcdso;

struct tally__seg {
	uint64_t off, vaddr, size;
};

struct tally_dso {
	char *name;
	char *file;			/* name under --symfs (tally__dso_file), or NULL */
	int32_t pid;			/* JIT DSOs are per process; else -1 */
	enum tally__dso_kind kind;
	enum tally_dso_status status;
	char *symsrc;
	char *detail;
	struct tally_symbol *syms;	/* sorted by start, one per address */
	struct tally__symtree *tree;	/* perf's lookup, where symbols nest; NULL: syms' */
	/*
	 * Names are demangled at their first lookup (tally__dso_symbol), not
	 * at load: node's 150k C++ symbols cost 0.3 s a run for the few
	 * dozen a profile shows. dm_done: a bit per symbol, made at the first.
	 */
	bool demangle_lazy;
	uint8_t *dm_done;
	char *names;			/* the pool most names are in (not freed one by one) */
	size_t names_len;
	uint64_t plt_lo, plt_hi;	/* the name@plt entries: demangled without "@plt" */
	struct tally__kcdso *kc;	/* symbols in the kallsyms cache (syms NULL) */
	size_t nr_syms;
	struct tally__seg *segs;	/* PT_LOAD: file offset -> vaddr */
	size_t nr_segs;
	char *dwarf_path;		/* the file with .debug_info, if any */
	/*
	 * The recorded build's code where the file at name is another (or
	 * [vdso]): its copy in perf's build-id cache; NULL: name itself.
	 */
	char *code_path;
	/* dwarf_tried and dw*: under dw_mu (a helper thread may open them) */
	pthread_mutex_t dw_mu;
	bool dw_queued;			/* handed to the helper thread */
	bool dwarf_tried;
	struct Dwarf *dw;
	Elf *dw_elf;
	int dw_fd;
	void *dw_map;			/* dw_elf's file mapping, NULL: not one we may drop */
	size_t dw_map_len;
	uint64_t dw_info_off, dw_info_len;	/* .debug_info in it; 0: not read there */
	unsigned dw_walks;		/* scope chains walked since its pages were last dropped */
	/* per CU, the ranges of its top-level scopes (srcline.c), made at its first address */
	struct tally__cu_scopes *cu_scopes;
	size_t nr_cu_scopes;
	uint64_t text;			/* kernel: _text in the kallsyms read */
	bool demangle;			/* the symbols were demangled (inline names follow) */
	struct tally__strpool inl_names;	/* demangled inline function names */
	struct tally__fnidx *fnidx;	/* the last unit's functions, for objdump's names (srcline.c) */
	struct tally__fnfiles *fnfiles;	/* binutils' files of functions, where no line is (fnfile.c) */
	bool fnfiles_tried;
	uint64_t misses;		/* resolve() calls that found no symbol */
	/* a table DSO's source lines (tally_symbols__set_lines), by address; files in inl_names */
	struct tally_symbol_line *tlines;
	size_t ntlines;
	int miss_slot;			/* index in the unresolved list, -1 */
	/*
	 * The cache's budget (tally_symbols__set_cache_size): a file's table
	 * may be unloaded at a trim and loaded again at its next use, from
	 * the same file with the same build id.
	 */
	size_t bytes;			/* its table's, as loaded (tally__dso_table_bytes) */
	uint64_t used;			/* the symbols' epoch at its last use */
	bool unloaded;			/* its table let go: loaded again when next asked for */
	uint8_t load_id_sz;
	uint8_t load_id[TALLY_BUILD_ID_MAX];	/* the build id it was loaded against */
	/* its table read ahead (symbols_ahead.c): the state under ahead.mu, the load's result */
	uint8_t ahead;
	int ahead_err;
	uint64_t ahead_size;		/* its file's size when queued: the helper takes the largest first */
};

/* Symbols while loading: perf's fixups run on these. */
struct tally__rawsym {
	uint64_t start, end;
	char *name;			/* in the pool: NULL until finish, at noff */
	size_t idx, noff;
	uint8_t binding;
	bool object;			/* STT_OBJECT (in a text section: perf looks them up too) */
	bool module_edge;		/* kallsyms: belongs to a module */
	bool tree_only;			/* in perf's tree, not in tally's table (a shadowed PLT entry) */
	bool late;			/* perf adds it after its fixups (a PLT entry) */
	uint32_t dm;			/* symtab.c's cand_best: its demangled name's length and underscores */
};

/*
 * A data object: in perf's tree, never in tally's table. Read only for a
 * file whose symbols nest (tally__symvec_nested), without its name: its
 * leading underscores and length decide where it ties with an alias.
 */
struct tally__rawobj {
	uint64_t start, end;
	size_t idx;
	uint8_t binding;
	uint16_t unders, len;
};

/*
 * arena: the names go into one pool (an ELF file's 150k names were a
 * strdup each), which finish leaves in pool for the table's owner to take.
 */
struct tally__symvec {
	struct tally__rawsym *v;
	size_t nr, alloc;
	struct tally__rawobj *obj;
	size_t nobj, aobj;
	size_t seq;			/* the next symbol's idx (a symbol table's: its index there) */
	size_t symtab_base;		/* the idx of the last symbol table's first entry */
	bool demangle;			/* perf compares aliases' demangled names */
	bool perf_tree;			/* an ELF file's: replay perf's tree where symbols nest */
	bool data_objects;		/* every data object a symbol (tally__dso_ctx's) */
	bool arena;
	char *pool;
	size_t plen, pcap;
};

struct tally__dso_ctx {
	const char *debug_root;
	const char *home_debug;
	const char *symfs;		/* perf's --symfs: NULL or the root files are read under */
	bool demangle;
	bool data_objects;		/* tally_symbols_opts' */
};

/* The file on disk: its recorded name, under --symfs where one is given (perf's symbol__join_symfs). */
static inline const char *tally__dso_file(const struct tally_dso *d)
{
	return d->file ? d->file : d->name;
}

/* name is in d's pool (else allocated on its own: demangled, from kallsyms) */
static inline bool tally__dso_pooled(const struct tally_dso *d, const char *name)
{
	return d->names && name >= d->names && name < d->names + d->names_len;
}

/* a start and its entry's index: sorted stably by start (tally__sort_keys) */
struct tally__skey {
	uint64_t start;
	size_t i;
};

/* a in start order, equal starts kept in their order (a radix sort); 0 or -ENOMEM */
int tally__sort_keys(struct tally__skey *a, size_t n);
int tally__symvec_add(struct tally__symvec *v, uint64_t start, uint64_t size,
		      uint8_t binding, const char *name, bool module_edge);
int tally__symvec_finish(struct tally__symvec *v, struct tally_symbol **out,
			 size_t *nr_out);
/* As tally__symvec_finish; *tree: perf's lookup where v->perf_tree and symbols nest, else NULL. */
int tally__symvec_finish_tree(struct tally__symvec *v, struct tally_symbol **out,
			      size_t *nr_out, struct tally__symtree **tree);
/* An object (STT_OBJECT) for perf's tree, idx its place among the symbols; 0 or -ENOMEM. */
int tally__symvec_add_object(struct tally__symvec *v, size_t idx, uint64_t start,
			     uint64_t size, uint8_t binding, const char *name);
/* Sorts v; true when a symbol starts inside an earlier one (perf's tree decides there). */
bool tally__symvec_nested(struct tally__symvec *v);
/* Back to n symbols and nobj objects (a file's, not used after all). */
void tally__symvec_trim(struct tally__symvec *v, size_t n, size_t nobj);
void tally__symvec_free(struct tally__symvec *v);
const struct tally_symbol *tally__syms_find(const struct tally_symbol *s, size_t n,
					    uint64_t addr);
/* The symbol of s that perf's tree t finds at addr; NULL. */
const struct tally_symbol *tally__symtree_find(const struct tally__symtree *t,
					       const struct tally_symbol *s, uint64_t addr);
void tally__symtree_free(struct tally__symtree *t);
/* perf's tree as the symbol cache (symcache.c) keeps it: a node's range, symbol and children */
struct tally__symtree_rec {
	uint64_t start, end;
	int32_t sym, l, r, pad;
};
/* t's number of nodes (indices 0..n-1), and *root */
size_t tally__symtree_nodes(const struct tally__symtree *t, int32_t *root);
void tally__symtree_get(const struct tally__symtree *t, size_t i, struct tally__symtree_rec *r);
/* A tree for lookups in a table of nsyms symbols; NULL: r is not one (or -ENOMEM). */
struct tally__symtree *tally__symtree_make(const struct tally__symtree_rec *r, size_t nn,
					   int32_t root, size_t nsyms);
/* d's symbol holding vaddr (tally__syms_find), its name demangled if d's are; NULL. */
const struct tally_symbol *tally__dso_symbol(struct tally_dso *d, uint64_t vaddr);
/* Symbol i's name as its first lookup leaves it: demangled, once (its dm_done bit set). */
void tally__dso_demangle_one(struct tally_dso *d, size_t i);
/*
 * Every name of d demangled now, as their first lookups would (the
 * symbol cache keeps them so: a C++ file's lookups demangled thousands
 * each run). 0 or -ENOMEM (the rest lazily then).
 */
int tally__dso_demangle_all(struct tally_dso *d);
/*
 * bidcache.c: the copy perf's build-id cache (ctx->home_debug) keeps of the file
 * whose build id is id: .build-id/xx/rest/<file> ("elf", "vdso") when it
 * is there with that build id; NULL otherwise. The caller frees it.
 */
char *tally__dso_cached_copy(const struct tally__dso_ctx *ctx, const uint8_t *id, size_t id_sz,
			     const char *file);
int tally__dso_load_elf(struct tally_dso *d, const struct tally__dso_ctx *ctx,
			const uint8_t *want_id, size_t want_sz);
/*
 * tally__dso_load_elf with the symbol cache's file left to later: where
 * the table is one the cache keeps, *later takes a copy of it (and the
 * key), to write with tally__symcache_later_store once d is handed over.
 */
struct tally__symcache_later;
int tally__dso_load_elf_later(struct tally_dso *d, const struct tally__dso_ctx *ctx,
			      const uint8_t *want_id, size_t want_sz,
			      struct tally__symcache_later *later);
/* sym's name demangled as d's lookups demangle it (a PLT entry's as perf's); NULL if not mangled */
char *tally__dso_demangled(const struct tally_dso *d, const struct tally_symbol *sym);
/* demangle.c: "name@plt" with name demangled (perf's PLT entries), else s demangled; NULL if not mangled */
char *tally__demangle_plt(const char *s);
int tally__dso_load_image(struct tally_dso *d, const void *img, size_t len,
			  bool demangle);
int tally__dso_load_jit(struct tally_dso *d, const char *path, bool demangle);
/* fnfile.c: binutils' file of the function holding vaddr, where no line table covers it; 0 or -ENOENT */
int tally__dso_fnfile(struct tally_dso *d, uint64_t vaddr, const char **file);
void tally__fnfiles_free(struct tally__fnfiles *ff);
int tally__dso_srcline(struct tally_dso *d, uint64_t vaddr, const char **file,
		       int *line);
int tally__dso_inline_funcs(struct tally_dso *d, uint64_t vaddr, const char **names, int max);
int tally__dso_srcline_inlines(struct tally_dso *d, uint64_t vaddr,
			       struct tally_srcline *out, int max);
void tally__dso_dwarf_close(struct tally_dso *d);
int tally__dso_objdump_line(struct tally_dso *d, uint64_t vaddr, const char **file, int *line,
			    unsigned *disc);
const char *tally__dso_comp_dir(struct tally_dso *d, uint64_t vaddr);
int tally__dso_objdump_func(struct tally_dso *d, uint64_t vaddr, char *buf, size_t size);
/* Opens d's DWARF if nobody did (takes dw_mu): any thread. */
void tally__dso_dwarf_ready(struct tally_dso *d);

/* dso_budget.c: the bytes d's loaded table takes (symbols, names, tree, segments). */
size_t tally__dso_table_bytes(const struct tally_dso *d);
/*
 * d's table and what was read with it let go, as before its load (its
 * name, status, detail and inline names stay): loaded again by the
 * symbols' next ask. Takes dw_mu (the DWARF helper may hold d).
 */
void tally__dso_unload(struct tally_dso *d);

/* struct tally_symbol_line by address (a table DSO's lines: sorted, then searched) */
int tally__symbol_line_cmp(const void *a, const void *b);

#endif
