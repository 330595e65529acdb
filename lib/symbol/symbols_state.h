/* SPDX-License-Identifier: MIT */
/*
 * tally_symbols' state, shared by symbols.c (the DSO cache, resolution)
 * and symbols_ahead.c (its helper threads: kallsyms, symbol tables and
 * DWARF read ahead).
 */
#ifndef TALLY_SYMBOLS_STATE_H
#define TALLY_SYMBOLS_STATE_H

#include <pthread.h>
#include "dso_internal.h"
#include "kcache.h"

/*
 * kallsyms read and sorted, before any DSO is made of it: this part runs
 * on a thread of its own when the reader asked for it early.
 */
struct kparse {
	struct tally__kimage img;	/* read, or from the cache (img.kc) */
	int open_errno;		/* fopen failed */
	int err;
	/* on the thread: img is ready (the cache is written after) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool ready;
};

struct tally_symbols {
	struct tally__dso_ctx ctx;
	char *debug_root, *home_debug, *kallsyms, *modules, *jit_dir, *symfs;
	struct tally_dso **dsos;	/* open addressing on (name, pid) */
	size_t nr_dsos, cap;
	bool kernel_loaded;
	bool ignore_build_id;
	int (*build_id)(void *ctx, const char *path, uint8_t *id, size_t max);
	void *build_id_ctx;
	/* kallsyms chosen for the recording's kernel (tally__kallsyms_choose) */
	bool ksrc_chosen, kallsyms_given;
	char *kmismatch;		/* no kallsyms of the recorded kernel: why, perf's words */
	struct kparse *kp;		/* kallsyms being read ahead, or NULL */
	struct tally__kcache *kc;	/* the kallsyms cache: the kernel DSOs' symbols */
	pthread_t kp_thread;
	bool kp_running;
	/* ELF symbol tables read ahead on a helper thread (tally_symbols__preload_file) */
	struct {
		pthread_t thread;
		bool running, closing;
		bool held;		/* queued, not started (tally__symbols_ahead_hold) */
		pthread_mutex_t mu;
		pthread_cond_t cv;	/* to the helper: more queued; from it: one loaded */
		struct tally_dso **q;
		size_t next, n, cap;	/* next: the first the helper has not looked at */
	} ahead;
	/* DWARF opened ahead on a helper thread (tally_symbols__preload_dwarf) */
	struct {
		pthread_t thread;
		bool running, closing;
		pthread_mutex_t mu;
		pthread_cond_t cv;
		struct tally_dso **q;
		size_t head, n, cap;
	} dw;
	struct tally_unresolved *unres;
	size_t nr_unres, alloc_unres;
	int no_map_slot;
	/*
	 * The machine interns filenames, so a map's name pointer identifies
	 * its DSO: a direct-mapped cache skips hashing the path per sample.
	 */
	struct {
		const char *filename;
		uint64_t machine;	/* tally__machine_id(): pointers may be reused */
		int32_t pid;
		struct tally_dso *dso;
	} last[64];
	/* the file tables' budget (tally_symbols__set_cache_size): 0, none */
	size_t budget, loaded;		/* loaded: the bytes of the tables in memory */
	uint64_t epoch;			/* trims so far: a DSO's used is the epoch it was last asked for in */
	uint64_t evictions, reloads;
};

/* symbols_ahead.c: kallsyms read into k (cached for next time), k's rest freed, k freed */
void tally__kparse_run(struct kparse *k, const char *path);
void tally__kparse_free(struct kparse *k);
void tally__kparse_destroy(struct kparse *k);
/*
 * d's table read ahead (tally_symbols__preload_file): 1 when the helper
 * had not started it (the caller loads it), else the helper's load's
 * result once it is done. Either way d is the caller's from then on.
 */
int tally__ahead_take(struct tally_symbols *s, struct tally_dso *d);
/* d queued for the helper (started at the first): 0; 1 when it could not be (the caller loads it) */
int tally__ahead_queue(struct tally_symbols *s, struct tally_dso *d);
/* The helper stopped (what it had not started stays queued: taken then), for trims and close. */
void tally__ahead_stop(struct tally_symbols *s);
/* The DWARF helper told to close and joined */
void tally__dw_stop(struct tally_symbols *s);

/*
 * The kallsyms that names the recorded kernel: /proc/kallsyms where the
 * recording's kernel build id is the running kernel's or none was
 * recorded, else perf's kept copy ([kernel.kallsyms]/<id>/kallsyms in the
 * build-id cache), else none (kmismatch set): this kernel's addresses
 * would name other functions. An explicit kallsyms (or symfs) stays.
 */
void tally__kallsyms_choose(struct tally_symbols *s);

#endif
