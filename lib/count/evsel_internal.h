/* SPDX-License-Identifier: MIT */
/* Layouts of the counting engine's objects: lib/ only, never installed. */
#ifndef TALLY_EVSEL_INTERNAL_H
#define TALLY_EVSEL_INTERNAL_H

#include <tally/evsel.h>
#include <tally/evlist.h>
#include <sys/types.h>

struct tally_evsel {
	struct perf_event_attr attr;
	char *name;
	char *pmu;
	char *filter;
	char *cgroup;			/* its own cgroup's name, or NULL */
	int cgroup_fd;			/* with cgroup: the directory fd (not ours) */
	struct tally_cpu_map *own_cpus;	/* PMU cpumask, or NULL */
	struct tally_cpu_map *cpus;	/* opened (or last tried) on */
	struct tally_thread_map *threads;
	struct tally_evsel *leader;	/* itself when alone or leading */
	struct tally_evsel *group_next;	/* next member, leader first */
	int nr_members;			/* leader: group size incl. itself */
	int idx;			/* position in the evlist */
	struct tally_evlist *evlist;	/* owner, or NULL */
	unsigned int ev_flags;		/* TALLY_EV_* from the parser */
	char *unit;
	double scale;
	int nr_cpus, nr_threads;
	int *fds;			/* [nr_cpus][nr_threads], -1 = none */
	uint64_t *ids;			/* kernel ids, same shape */
	struct tally_counts *counts;	/* last read */
	struct tally_counts *prev;	/* the read before */
	bool unsupported;
	bool opened;
	bool enable_after_open;		/* leader opened disabled by the evlist */
	bool side_dummy;		/* the dummy carrying the side-band (tally_evlist__config's) */
	int open_err;			/* -errno of the last failed open */
	bool filter_rejected;		/* that error was the kernel refusing the filter */
};

struct id_ent {
	uint64_t id;
	struct tally_evsel *evsel;
	int cpu;		/* the CPU it was opened on, -1 any */
	pid_t tid;		/* the thread, -1 any */
};

struct tally_ring;

struct tally_evlist {
	struct tally_evsel **ev;
	int nr, cap;
	struct tally_cpu_map *cpus;
	struct tally_thread_map *threads;
	struct id_ent *ids;	/* sorted by id, built at open */
	size_t nr_ids;
	bool bits_set, disabled, enable_on_exec, inherit;
	bool delayed;			/* config's: all but the side-band dummy start disabled */
	/* rings (lib/evlist_mmap.c) */
	struct tally_ring *rings;
	int nr_rings;
	int epfd;		/* -1 until the first ring */
	int nr_polled;		/* event fds in epfd (hung-up ones leave) */
};

/* lib/evlist_mmap.c: unmap the rings (close does it first). */
void tally__evlist_munmap(struct tally_evlist *l);

#define EVSEL_SLOT(e, c, t) ((size_t)(c) * (size_t)(e)->nr_threads + (size_t)(t))

/* Open with perf_event_open flags (PERF_FLAG_*) and a cgroup fd. */
int tally__evsel_open_flags(struct tally_evsel *evsel, struct tally_cpu_map *cpus,
			    struct tally_thread_map *threads, unsigned long flags,
			    int cgroup_fd);
/* Read slot (c, t) into the stored tables (a leader's group read lands
 * every member's value by id). prev is NOT rotated here. */
int tally__evsel_read_slot(struct tally_evsel *evsel, int c, int t);
/* prev := cur for every slot. */
void tally__evsel_rotate(struct tally_evsel *evsel);
/* true for errors meaning "this event cannot be counted here". */
bool tally__err_is_unsupported(int err);
/* Pure parser of a cpulist ("0-3,7\n"); NULL + errno on bad text. */
struct tally_cpu_map *tally__cpu_map_parse(const char *buf, size_t len);
/* Parse one perf read() buffer by read_format. Pure: (buf, len).
 * For GROUP, calls land(ctx, i, &counts) for each of the nr entries
 * (i == 0 is the leader). Returns the number of entries or -EINVAL. */
int tally__parse_read(const void *buf, size_t len, uint64_t read_format,
		      void (*land)(void *ctx, int i, const struct tally_counts *c),
		      void *ctx);

#endif
