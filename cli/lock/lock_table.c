// SPDX-License-Identifier: MIT
/*
 * tally lock report and contention: the table. perf 6.1's columns
 * (-F, the sort key -k added at the end when not among them), its rows
 * largest first with equal ones in perf's walk order, its time units,
 * the -v call stacks and the debug counts of broken sequences.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lock_cmd.h"

/* perf's lock contention flags (include/trace/events/lock.h) */
#define LCB_F_SPIN	(1u << 0)
#define LCB_F_READ	(1u << 1)
#define LCB_F_WRITE	(1u << 2)
#define LCB_F_RT	(1u << 3)
#define LCB_F_PERCPU	(1u << 4)
#define LCB_F_MUTEX	(1u << 5)

/* The columns: perf's lock_key tables, report's and contention's. */
enum col { C_ACQUIRED, C_CONTENDED, C_AVG, C_TOTAL, C_MAX, C_MIN };
struct lock_key {
	const char *name, *header;
	int len;
	enum col col;
};
static const struct lock_key report_keys[] = {
	{ "acquired", "acquired", 10, C_ACQUIRED }, { "contended", "contended", 10, C_CONTENDED },
	{ "avg_wait", "avg wait", 12, C_AVG }, { "wait_total", "total wait", 12, C_TOTAL },
	{ "wait_max", "max wait", 12, C_MAX }, { "wait_min", "min wait", 12, C_MIN },
};
static const struct lock_key contention_keys[] = {
	{ "contended", "contended", 10, C_CONTENDED }, { "wait_total", "total wait", 12, C_TOTAL },
	{ "wait_max", "max wait", 12, C_MAX }, { "wait_min", "min wait", 12, C_MIN },
	{ "avg_wait", "avg wait", 12, C_AVG },
};

static uint64_t col_val(const struct lock_stat *st, enum col c)
{
	switch (c) {
	case C_ACQUIRED: return st->nr_acquired;
	case C_CONTENDED: return st->nr_contended;
	case C_AVG: return st->avg;
	case C_TOTAL: return st->total;
	case C_MAX: return st->max;
	default: return st->min == ULLONG_MAX ? 0 : st->min;
	}
}

/* perf's lock_stat_key_print_time: the unit that fits, its value in float */
static void print_time(unsigned long long nsec, int len)
{
	static const struct { float base; const char *unit; } table[] = {
		{ 1e9 * 3600, "h " }, { 1e9 * 60, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (nsec < table[i].base)
			continue;
		printf("%*.2f %s", len - 3, nsec / table[i].base, table[i].unit);
		return;
	}
	printf("%*llu %s", len - 3, nsec, "ns");
}

static void print_col(const struct lock_key *k, const struct lock_stat *st)
{
	if (k->col == C_ACQUIRED || k->col == C_CONTENDED)
		printf("%*llu", k->len, (unsigned long long)col_val(st, k->col));
	else
		print_time((unsigned long long)col_val(st, k->col), k->len);
}

/* -F then -k as perf: the fields in the order given, the sort key added at the end if not among them. */
static int setup_keys(struct lock_table *l, const char *fields, const char *sort,
		      const struct lock_key **out, int *nout, const struct lock_key **sort_key)
{
	const struct lock_key *keys = l->contention ? contention_keys : report_keys;
	int nk = l->contention ? 5 : 6, n = 0;
	char *dup, *tok, *p;

	*sort_key = NULL;
	if (!fields) {
		for (int i = 0; i < nk; i++)
			out[n++] = &keys[i];
	} else {
		if (!(p = dup = strdup(fields)))
			return -1;
		while ((tok = strsep(&p, ",")) != NULL) {
			int i, j;

			for (i = 0; i < nk && strcmp(keys[i].name, tok); i++)
				;
			if (i == nk) {
				fprintf(stderr, "tally %s: unknown output field: %s (%s)\n", l->cmd, tok,
					l->contention ? "contended, wait_total, wait_max, wait_min, avg_wait"
						      : "acquired, contended, avg_wait, wait_total, wait_max, wait_min");
				free(dup);
				return -1;
			}
			for (j = 0; j < n && out[j] != &keys[i]; j++)
				;
			if (j == n)
				out[n++] = &keys[i];
		}
		free(dup);
	}
	for (int i = 0; i < nk; i++) {
		int j;

		if (strcmp(keys[i].name, sort))
			continue;
		*sort_key = &keys[i];
		for (j = 0; j < n && out[j] != &keys[i]; j++)
			;
		if (j == n)
			out[n++] = &keys[i];
	}
	if (!*sort_key) {
		fprintf(stderr, "tally %s: unknown sort key: %s (%s)\n", l->cmd, sort,
			l->contention ? "contended, wait_total, wait_max, wait_min, avg_wait"
				      : "acquired, contended, avg_wait, wait_total, wait_max, wait_min");
		return -1;
	}
	*nout = n;
	return 0;
}

static enum col sort_col;	/* qsort's: set before each sort */

/* Bigger first; equal ones keep perf's walk order (its tree puts them after). */
static int cmp_rows(const void *a, const void *b)
{
	const struct lock_stat *x = *(struct lock_stat *const *)a, *y = *(struct lock_stat *const *)b;
	uint64_t vx = col_val(x, sort_col), vy = col_val(y, sort_col);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* perf's combine_lock_stats (report -c): the first of each name takes the others in. */
static void combine(struct lock_table *l, struct lock_stat **rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct lock_stat *st = rows[i], *p = NULL;

		for (size_t j = 0; j < i && !p; j++)
			if (!rows[j]->combined && !strcmp(rows[j]->name, st->name))
				p = rows[j];
		if (!p)
			continue;
		p->nr_acquired += st->nr_acquired;
		p->nr_contended += st->nr_contended;
		p->total += st->total;
		if (p->nr_contended)
			p->avg = p->total / p->nr_contended;
		if (p->min > st->min)
			p->min = st->min;
		if (p->max < st->max)
			p->max = st->max;
		p->broken |= st->broken;
		st->combined = true;
	}
	(void)l;
}

static void print_bad(struct lock_table *l, int bad, int total)
{
	static const char *const name[] = { "acquire", "acquired", "contended", "release" };
	int broken = 0;

	for (int i = 0; i < BROKEN_MAX; i++)
		broken += l->bad_hist[i];
	if (!broken && !l->o->verbose)
		return;
	printf("\n=== output for debug===\n\n");
	printf("bad: %d, total: %d\n", bad, total);
	printf("bad rate: %.2f %%\n", (double)bad / (double)total * 100);
	printf("histogram of events caused bad sequence\n");
	for (int i = 0; i < BROKEN_MAX; i++)
		printf(" %10s: %d\n", name[i], l->bad_hist[i]);
}

/* perf's get_type_str: the contention flags' names */
static const char *lock_type(unsigned flags)
{
	static const struct { unsigned flags; const char *name; } table[] = {
		{ 0, "semaphore" }, { LCB_F_SPIN, "spinlock" },
		{ LCB_F_SPIN | LCB_F_READ, "rwlock:R" }, { LCB_F_SPIN | LCB_F_WRITE, "rwlock:W" },
		{ LCB_F_READ, "rwsem:R" }, { LCB_F_WRITE, "rwsem:W" }, { LCB_F_RT, "rtmutex" },
		{ LCB_F_RT | LCB_F_READ, "rwlock-rt:R" }, { LCB_F_RT | LCB_F_WRITE, "rwlock-rt:W" },
		{ LCB_F_PERCPU | LCB_F_READ, "pcpu-sem:R" }, { LCB_F_PERCPU | LCB_F_WRITE, "pcpu-sem:W" },
		{ LCB_F_MUTEX, "mutex" }, { LCB_F_MUTEX | LCB_F_SPIN, "mutex" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].flags == flags)
			return table[i].name;
	return "unknown";
}

static void print_table(struct lock_table *l, struct lock_stat **rows, size_t n, const struct lock_key **cols,
			int ncols)
{
	int bad = 0, total = 0, printed = 0;
	int limit = l->o->entries > 0 ? l->o->entries : INT_MAX;

	if (!l->contention)
		printf("%20s ", "Name");
	for (int i = 0; i < ncols; i++)
		printf("%*s ", cols[i]->len, cols[i]->header);
	if (l->contention)
		printf("  %10s   %s\n\n", l->o->threads ? "pid" : "type", l->o->threads ? "comm" : "caller");
	else
		printf("\n\n");
	for (size_t r = 0; r < n; r++) {
		struct lock_stat *st = rows[r];

		if (l->o->combine && st->combined)
			continue;
		total++;
		if (st->broken)
			bad++;
		if (!l->contention) {
			if (!st->nr_acquired)
				continue;
			if (strlen(st->name) < 20)
				printf("%20s ", l->o->threads ? l->comm(l->ctx, (int32_t)st->key) : st->name);
			else
				printf(" %.16s... ", st->name);	/* perf's cut: 16 and "..." in 20 */
		}
		for (int i = 0; i < ncols; i++) {
			print_col(cols[i], st);
			putchar(' ');
		}
		if (!l->contention) {
			putchar('\n');
		} else if (l->o->threads) {
			printf("  %10d   %s\n", (int)(int32_t)st->key, l->comm(l->ctx, (int32_t)st->key));
		} else {
			printf("  %10s   %s\n", lock_type(st->flags), st->name);
			for (int i = 0; i < st->nr_stack && st->stack[i]; i++)
				printf("\t\t\t%#llx  %s\n", (unsigned long long)st->stack_ip[i], st->stack[i]);
		}
		if (++printed >= limit)
			break;
	}
	print_bad(l, bad, total);
}

int lock_table_keys(struct lock_table *l, const char *fields, const char *sort)
{
	const struct lock_key *sk;

	if (setup_keys(l, fields, sort, l->cols, &l->ncols, &sk))
		return -1;
	l->sort = sk->col;
	return 0;
}

void lock_table_print(struct lock_table *l, struct lock_stat **rows, size_t n)
{
	if (l->o->combine && !l->contention)
		combine(l, rows, n);
	sort_col = (enum col)l->sort;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	print_table(l, rows, n, l->cols, l->ncols);
}
