// SPDX-License-Identifier: MIT
/*
 * tally sched map: perf sched 6.1's map. A line per sched_switch: a
 * column per CPU with the two-letter name of what runs there ('*' on the
 * CPU that switched, '.' for idle), the time, and "XY => comm:tid" when a
 * task gets its name or changed it. The columns are the machine's CPUs
 * (sysconf, as perf), or with --compact those seen so far. On a
 * terminal (or its pager) --color-pids' threads are blue and
 * --color-cpus' '*' on red, as perf's colours.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pager.h"
#include "read_file.h"
#include "sched_cmd.h"

#define MAX_CPUS 4096
#define COLOR_PIDS	"\033[34m"	/* perf's PERF_COLOR_BLUE */
#define COLOR_CPUS	"\033[41m"	/* PERF_COLOR_BG_RED */
#define COLOR_RESET	"\033[m"

struct map_thread {
	char shortname[3];
	uint32_t gen;		/* the sched_tinfo generation it was named in */
};

struct map_ctx {
	const struct map_opts *o;
	struct sched_tids names;		/* struct map_thread by tid */
	int32_t curr[MAX_CPUS];			/* what runs on each CPU; -1 nothing seen */
	uint64_t last_switched[MAX_CPUS];
	int max_cpu;
	char next1, next2;
	int comp_cpus[MAX_CPUS], nr_comp;
	uint8_t comp_seen[512], cpus[512];
	bool cpu_filter;
	bool color;				/* a terminal: --color-* apply */
	uint8_t color_cpus[512];
	int32_t *color_tids;			/* --color-pids */
	size_t nr_color_tids;
	int failed;
};

static bool colored(const struct map_ctx *c, int32_t tid)
{
	for (size_t i = 0; i < c->nr_color_tids; i++)
		if (c->color_tids[i] == tid)
			return true;
	return false;
}

/* s in color (NULL: none), as perf's color_fprintf: the code, the text, the reset */
static void put(const struct map_ctx *c, const char *color, const char *s)
{
	if (c->color && color)
		printf("%s%s%s", color, s, COLOR_RESET);
	else
		fputs(s, stdout);
}

/* "12,34": perf's tid list; -1 on anything else */
static int tid_list(const char *s, struct map_ctx *c)
{
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		int32_t *n;

		if (end == s || v < 0 || v > INT32_MAX || (*end && *end != ','))
			return -1;
		if (!(n = realloc(c->color_tids, (c->nr_color_tids + 1) * sizeof(*n))))
			return -1;
		c->color_tids = n;
		n[c->nr_color_tids++] = (int32_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static struct map_thread *name_of(struct map_ctx *c, struct sched_reader *r, int32_t tid)
{
	struct map_thread *t = sched_tids__get(&c->names, tid);
	struct sched_tinfo *ti = sched_tids__find(&r->tinfo, tid);

	if (!t)
		return NULL;
	/* a FORK made a new thread of that tid: a new name */
	if (ti && ti->gen != t->gen) {
		memset(t, 0, sizeof(*t));
		t->gen = ti->gen;
	}
	return t;
}

static int on_event(struct sched_reader *r, const struct sched_ev *ev, void *ctx)
{
	struct map_ctx *c = ctx;
	struct map_thread *in;
	struct sched_tinfo *ti;
	int cpu = ev->cpu, cpus_nr;
	bool new_cpu = false, new_name = false;
	uint64_t ts0;
	char stamp[32];

	if (ev->kind != SK_SWITCH)
		return 0;
	if (cpu < 0 || cpu >= MAX_CPUS) {
		fprintf(stderr, "tally sched map: a sample of CPU %d\n", cpu);
		return -1;
	}
	if (cpu > c->max_cpu)
		c->max_cpu = cpu;
	if (c->o->compact) {
		cpus_nr = c->nr_comp;
		if (!sched_cpu_in(c->comp_seen, cpu)) {
			c->comp_seen[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
			c->comp_cpus[c->nr_comp++] = cpu;
			cpus_nr = c->nr_comp;
			new_cpu = true;
		}
	} else {
		cpus_nr = c->max_cpu;	/* perf's: the machine's CPUs, not one more */
	}
	ts0 = c->last_switched[cpu];
	c->last_switched[cpu] = ev->time;
	if (ts0 && ev->time < ts0) {
		fprintf(stderr, "tally sched map: hm, delta: %lld < 0 ?\n",
			(long long)(ev->time - ts0));
		return -1;
	}
	if (!(ti = sched_thread(r, -1, ev->next_pid)) || !(in = name_of(c, r, ev->next_pid))) {
		c->failed = ENOMEM;
		return -1;
	}
	c->curr[cpu] = ev->next_pid;
	printf("  ");
	if (!in->shortname[0]) {
		if (!strcmp(sched_comm(r, ev->next_pid), "swapper")) {
			in->shortname[0] = '.';	/* the idle task gets no letters */
			in->shortname[1] = ' ';
		} else {
			in->shortname[0] = c->next1;
			in->shortname[1] = c->next2;
			if (c->next1 < 'Z') {
				c->next1++;
			} else {
				c->next1 = 'A';
				c->next2 = c->next2 < '9' ? (char)(c->next2 + 1) : '0';
			}
		}
		new_name = true;
	}
	for (int i = 0; i < cpus_nr; i++) {
		int col = c->o->compact ? c->comp_cpus[i] : i;
		struct map_thread *t;

		char cell[8];

		if (c->cpu_filter && !sched_cpu_in(c->cpus, col))
			continue;
		if (col != cpu)
			putchar(' ');
		else
			put(c, sched_cpu_in(c->color_cpus, col) ? COLOR_CPUS : NULL, "*");
		if (c->curr[col] != -1 && (t = name_of(c, r, c->curr[col]))) {
			snprintf(cell, sizeof(cell), "%2s ", t->shortname);
			put(c, colored(c, c->curr[col]) ? COLOR_PIDS : NULL, cell);
		} else {
			printf("   ");
		}
	}
	if (!c->cpu_filter || sched_cpu_in(c->cpus, cpu)) {
		sched_usec(stamp, sizeof(stamp), ev->time);
		printf("  %12s secs ", stamp);
		if (new_name || ti->comm_changed || (c->o->verbose && ev->next_pid)) {
			char line[128];

			snprintf(line, sizeof(line), "%s => %s:%d", in->shortname,
				 sched_comm(r, ev->next_pid), (int)ev->next_pid);
			put(c, colored(c, ev->next_pid) ? COLOR_PIDS : NULL, line);
			ti->comm_changed = false;
		}
		if (c->o->compact && new_cpu)
			printf(" (CPU %d)", cpu);
	}
	putchar('\n');
	return 0;
}

int sched_map(const char *path, const struct map_opts *o)
{
	struct map_ctx *c = calloc(1, sizeof(*c));
	struct sched_reader r;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int ret;

	if (!c)
		return 1;
	c->o = o;
	c->names.size = sizeof(struct map_thread);
	c->next1 = 'A';
	c->next2 = '0';
	c->max_cpu = ncpu > 0 && ncpu < MAX_CPUS ? (int)ncpu : 1;
	memset(c->curr, 0xff, sizeof(c->curr));
	if (o->cpus) {
		if (sched_cpu_list(o->cpus, c->cpus)) {
			fprintf(stderr, "tally sched map: --cpus '%s': a list of CPUs (0-3,7)\n",
				o->cpus);
			free(c);
			return 129;
		}
		c->cpu_filter = true;
	}
	if (o->color_cpus && sched_cpu_list(o->color_cpus, c->color_cpus)) {
		fprintf(stderr, "tally sched map: --color-cpus '%s': a list of CPUs (0-3,7)\n",
			o->color_cpus);
		free(c);
		return 129;
	}
	if (o->color_pids && tid_list(o->color_pids, c)) {
		fprintf(stderr, "tally sched map: --color-pids '%s': a list of thread ids (12,34)\n",
			o->color_pids);
		free(c->color_tids);
		free(c);
		return 129;
	}
	c->color = isatty(STDOUT_FILENO) || pager_active();
	/* the switches alone draw the map */
	if ((ret = sched_open(&r, "sched map", path, false, SCHED_WANT(SK_SWITCH), NULL, NULL, on_event,
			      c))) {
		free(c->color_tids);
		free(c);
		return ret;
	}
	ret = sched_run(&r);
	if (!ret && (c->failed || r.no_mem)) {
		fprintf(stderr, "tally sched map: %s\n", strerror(ENOMEM));
		ret = 1;
	}
	sched_close(&r);
	sched_tids__free(&c->names);
	free(c->color_tids);
	free(c);
	return ret;
}
