/* SPDX-License-Identifier: MIT */
/* The stacks model's insides, shared by its writers (stacks.c, flamegraph.c, pprof.c). */
#ifndef TALLY_STACKS_INTERNAL_H
#define TALLY_STACKS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/stacks.h>

struct stk_frame {
	char *name, *dso, *build_id;
	uint64_t addr, map_start, map_end, map_pgoff;
	bool kernel;
	uint64_t hash;
};

/* a frame at a source line (tally_stacks__frame's handle) */
struct stk_loc {
	int frame;
	char *file;
	int line;
	uint64_t addr, hash;		/* the first address seen */
};

struct stk_node {
	int parent, frame, loc;
	uint32_t depth;			/* frames from the root, itself included */
};

struct stk_thread {
	int32_t pid, tid;
	char *comm;
};

struct stk_agg {
	int thread, node;
	uint64_t count, weight;
};

struct stk_tab {
	int *v;				/* index + 1, 0 empty */
	size_t size;
};

struct tally_stacks {
	struct stk_frame *frames;
	size_t nframes, cap_frames;
	struct stk_loc *locs;
	size_t nlocs, cap_locs;
	struct stk_node *nodes;
	size_t nnodes, cap_nodes;
	struct stk_thread *threads;
	size_t nthreads, cap_threads;
	int last_thread;
	struct stk_agg *aggs;
	size_t naggs, cap_aggs;
	struct stk_tab ftab, ltab, ntab, atab;
	uint64_t samples, weight;
	/* the timeline (tally_stacks__timed): samples in time order */
	struct stk_timed { int thread, node; uint64_t time, weight; } *timed;
	size_t ntimed, cap_timed;
	struct {
		char *event, *unit, *command;
		uint64_t period, time_ns, duration_ns, lost;
	} info;
};

/* One collapsed-stack text and its samples. */
struct stk_line {
	char *s;
	uint64_t n;
};

size_t tally__stacks_path(const struct tally_stacks *s, int node, int *v);
size_t tally__stacks_max_depth(const struct tally_stacks *s);
/* Every (thread, stack) as collapsed text, merged and sorted; free each s and *out. */
int tally__stacks_lines(const struct tally_stacks *s, struct stk_line **out, size_t *nout);

int tally__stacks_svg(const struct tally_stacks *s, FILE *fp, const char *title, bool inverted);

/*
 * A flame graph fed a stack at a time (flamegraph.c): the command, the
 * frames' names root first (NULL: "[unknown]") and whether each is the
 * kernel's, the samples. Fed in the order tally_stacks__sample met them,
 * it writes what tally_stacks__write_svg writes of those stacks.
 */
struct tally__flame;
struct tally__flame *tally__flame_new(void);
int tally__flame_stack(struct tally__flame *f, const char *comm, const char *const *text,
		       const bool *kernel, size_t n, uint64_t count);
int tally__flame_write(struct tally__flame *f, FILE *fp, const char *title);
void tally__flame_free(struct tally__flame *f);
void tally__json_str(FILE *fp, const char *s);

#endif
