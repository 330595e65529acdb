/* SPDX-License-Identifier: MIT */
/*
 * What a sample's addresses resolve to, for the session's frames and the
 * commands that aggregate samples (report, its exports, diff): each
 * distinct (pid, ip, level) goes to the symbol code once, then comes from
 * a table. Internal: the command reaches it through this header.
 */
#ifndef TALLY_RESOLVE_INTERNAL_H
#define TALLY_RESOLVE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/tally.h>
#include <tally/hist.h>
#include "strpool.h"

struct tally_session;

/*
 * A map as an address found it, copied (the machine keeps its maps in
 * arrays that move as they grow, and rows are drawn after the whole file
 * is read): one copy per distinct map, the wheres point at it, where each
 * kept its own (70 bytes of each of a top's 100k addresses).
 */
struct where_map {
	const char *path;		/* the whole file name */
	const char *dso;		/* its DSO column's name (where.dso) */
	uint32_t rank;			/* its where.dso_rank: once per map, not per address */
	uint64_t start, end, pgoff;
	bool kernel;
	uint8_t build_id_size;
	uint8_t build_id[TALLY_BUILD_ID_MAX];
	bool held;			/* a trim's mark: an entry points here */
	struct where_map *next;		/* the resolver's hash chain */
};

/* What an address resolved to. */
struct where {
	/*
	 * Its first fields are the address as a call graph's frame
	 * (tally/hist.h's): the trees' nodes point at it, where each kept a
	 * copy.
	 */
	union {
		struct tally_hist_frame frame;
		struct {
			const char *sym;	/* NULL: unresolved */
			const char *dso;	/* shown name (basename, "[kernel.kallsyms]"); NULL: no map */
			uint64_t ip;		/* the address looked up */
			uint64_t sym_start;	/* the symbol's ELF address */
			uint32_t dso_rank;	/* perf's DSOs in the order it made them (kernel 0) */
			bool frame_mapped;	/* dso_id set: the frame's mapped */
		};
	};
	/* the map, NULL: none held the address */
	const struct where_map *map;
	const struct tally_dso *dso_id;	/* NULL: no map */
	uint64_t dso_hash, sym_hash;	/* of the names: keyed without rehashing */
	char *srcline;			/* "file.c:12", as perf's srcline key (resolver.srcline) */
	uint64_t srcline_hash;
	uint64_t addr;			/* map-relative address (absolute without a map) */
	char mode;			/* 'k' or '.' */
	bool inlined;			/* a function inlined here: sym is "name (inlined)" */
	bool held;			/* the sweep's mark: a row or a tree's node points here */
	bool object;			/* sym is a data object's (tally_symbol's) */
	uint32_t sym_size;		/* its end less its start (perf's symbol_size), 0: none */
	/*
	 * perf's offset for it (hist_entry__sym_snprintf): the entry's ip less
	 * the symbol's start mapped. A sample's own ip is map-relative there
	 * (pgoff - start + off), a chain frame's absolute (the offset itself).
	 * object_symoff is the address less its symbol's start for any symbol.
	 */
	uint64_t object_off, object_symoff;
};

struct resolver {
	struct tally_session *ss;	/* the callers' back pointer: resolve.c never follows it */
	uint32_t users;			/* its holders (the session's): a live view sweeps it alone */
	/* what resolving needs of the session (tally__resolver_bind): resolve sits below it */
	struct tally_symbols *syms;
	struct tally_machine *m;
	uint32_t (*file_rank)(const struct tally_session *ss, const char *path);
	bool srcline;			/* also the source line of each address */
	/*
	 * The addresses in blocks that never move, found through a table of
	 * their numbers: a table of the entries themselves (216 bytes each,
	 * 16k of them at first) touched all its 3.5 MB at random.
	 */
	uint64_t *slots;		/* entry number + 1, its hash's high half above; 0 empty */
	size_t size, used;		/* used: entries ever made, the swept ones included */
	size_t live;			/* entries in the table */
	uint32_t free;			/* a swept entry's number + 1, the next in its ip; 0 none */
	struct resolver_ent **blk;
	size_t nblk;
	bool no_inline;			/* --no-inline: a chain frame is its symbol alone */
	bool owning;			/* an entry holds memory of its own (a srcline, inline frames, lines) */
	struct where_map **maps;	/* the maps' copies, hashed */
	size_t nmaps, maps_size;
	/* "name (inlined)", one copy per name (call graphs compare pointers) */
	struct tally__strpool names;
};

_Static_assert(offsetof(struct where, sym) == offsetof(struct tally_hist_frame, sym) &&
	       offsetof(struct where, dso) == offsetof(struct tally_hist_frame, dso) &&
	       offsetof(struct where, ip) == offsetof(struct tally_hist_frame, ip) &&
	       offsetof(struct where, sym_start) == offsetof(struct tally_hist_frame, sym_start) &&
	       offsetof(struct where, dso_rank) == offsetof(struct tally_hist_frame, dso_rank) &&
	       offsetof(struct where, frame_mapped) == offsetof(struct tally_hist_frame, mapped),
	       "a where begins with its frame");

/* perf's inline stack of a chain frame is a few deep; more is kept out */
#define INL_MAX 16

/* a record is at most 64 KiB: so many u64 frames at most */
#define CHAIN_MAX (65536 / 8)

/* NULL only without memory. The where stays put as long as r. */
struct where *tally__resolver_get(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
			   enum tally_cpumode mode);
void tally__resolver_free(struct resolver *r);
/*
 * A live view's bound (top): forget the addresses not asked for since the
 * last sweep whose wheres (or inline frames) are not held (the caller
 * marks the ones its rows and trees point at; the marks are cleared
 * here). An address asked for again is resolved again. Returns how many
 * went.
 */
size_t tally__resolver_sweep(struct resolver *r);
/*
 * A long session's bound (tally_session__trim), where nothing outside
 * holds a where: the sweep, the maps' copies no entry points at let go,
 * and each kept entry's file marked used in the symbols' cache.
 */
size_t tally__resolver_trim(struct resolver *r);
/* The entries resolved through a table a trim let go (their names are gone with it). */
size_t tally__resolver_forget_unloaded(struct resolver *r);
/*
 * What a call chain's address stands for, innermost first (perf's
 * --inline): each function inlined there, then the address's own frame.
 * A name other than the symbol's is a frame "name (inlined)" (perf names
 * the outermost that way too when DWARF and the symbol table disagree).
 * Only for frames DWARF unwinding found (unwound), as perf 6.1.
 * Returns 1..INL_MAX frames (out holds INL_MAX), 0 without memory.
 */
int tally__resolver_frames(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
		    enum tally_cpumode mode, bool unwound, struct where **out);
/* The same of w, an answer of r's (NULL: 0). */
int tally__resolver_where_frames(struct resolver *r, struct where *w, bool unwound,
				 struct where **out);
/*
 * The source lines of ip (DWARF), innermost first as tally__resolver_frames's
 * frames: the line-table row, then each inlined call's site, the last in
 * the out-of-line function; ret: ip is a return address (its call's
 * line). Looked up once. 0: none (no DWARF, kernel, no symbol).
 */
int tally__resolver_lines(struct resolver *r, int32_t pid, int32_t tid, uint64_t ip,
		   enum tally_cpumode mode, bool ret, const struct tally_srcline **out);
/* Where a chain's DWARF-unwound user part begins (its marker's index), or nr. */
uint32_t tally__chain_unwound_at(const uint64_t *ips, uint32_t nr);

/*
 * Each frame's level, from the context marker before it in the chain
 * (leaf first); modes holds CHAIN_MAX.
 */
void tally__chain_modes(const struct tally_sample *smp, enum tally_cpumode *modes);

/*
 * The names' hashes (dso_hash, sym_hash...) seed FNV-1a with the value
 * they always had (the FNV basis short of a digit): the report's rows are
 * walked in bucket order before a stable sort, so another seed would move
 * ties. The hash itself is tally/hash.h's.
 */
#define FNV_BASIS 1469598103934665603ULL
#define tally__fnv_str tally_fnv_str
#define hash_mix tally_hash_mix

/*
 * Ties r to a session (its address spaces, symbols, files' order). Inline:
 * the session's accessors are called by the binder (session, a command),
 * never by resolve.c, which lies below the session.
 */
static inline void tally__resolver_bind(struct resolver *r, struct tally_session *ss)
{
	r->ss = ss;
	r->syms = tally_session__symbols(ss);
	r->m = tally_session__machine(ss);
	r->file_rank = tally_session__file_rank;
}

#endif
