// SPDX-License-Identifier: MIT
/*
 * What the file's reader (lock_stat.c) and -b's (lock_bpf.c) share: the
 * rows in perf's hash table (its walk order is the order of equal rows),
 * and perf's rules for a contended lock's caller: the kernel's lock and
 * scheduler text left out, the chain's id and the first named frame.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "lock_cmd.h"

#define GOLDEN_64	0x61C8864680B583EBull	/* the kernel's hash_64 */

static unsigned bucket(uint64_t key)
{
	return (unsigned)((key * GOLDEN_64) >> (64 - LOCK_HASH_BITS));
}

struct lock_stat *lock_stats_find(struct lock_stats *h, uint64_t key)
{
	for (struct lock_stat *st = h->hash[bucket(key)]; st; st = st->next)
		if (st->key == key)
			return st;
	return NULL;
}

struct lock_stat *lock_stats_findnew(struct lock_stats *h, uint64_t key, const char *name,
				     unsigned flags)
{
	struct lock_stat *st = lock_stats_find(h, key);
	unsigned b = bucket(key);

	if (st)
		return st;
	if (!(st = calloc(1, sizeof(*st))) || !(st->name = strdup(name))) {
		free(st);
		h->no_mem = true;
		return NULL;
	}
	st->key = key;
	st->flags = flags;
	st->min = ULLONG_MAX;
	st->next = h->hash[b];
	h->hash[b] = st;
	h->nr++;
	return st;
}

struct lock_stat **lock_stats_rows(struct lock_stats *h, size_t *n)
{
	struct lock_stat **rows = malloc((h->nr ? h->nr : 1) * sizeof(*rows));

	*n = 0;
	if (!rows)
		return NULL;
	/* perf's walk: buckets in order, each newest first */
	for (size_t b = 0; b < (1u << LOCK_HASH_BITS); b++)
		for (struct lock_stat *st = h->hash[b]; st; st = st->next) {
			st->ord = *n;
			rows[(*n)++] = st;
		}
	return rows;
}

void lock_stats_free(struct lock_stats *h)
{
	for (size_t b = 0; b < (1u << LOCK_HASH_BITS); b++) {
		for (struct lock_stat *st = h->hash[b], *nx; st; st = nx) {
			nx = st->next;
			for (int i = 0; i < st->nr_stack; i++)
				free(st->stack[i]);
			free(st->stack);
			free(st->stack_ip);
			free(st->name);
			free(st);
		}
		h->hash[b] = NULL;
	}
	h->nr = 0;
}

/* __sched_text_* and __lock_text_* from the running kernel's symbols, as perf finds them. */
static void read_text(struct lock_callers *c)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int got = 0;

	c->text_state = -1;
	if (!f)
		return;
	while (got < 4 && fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[256];

		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3 || !strstr(name, "_text_"))
			continue;
		if (!strcmp(name, "__sched_text_start"))
			c->sched_start = a, got++;
		else if (!strcmp(name, "__sched_text_end"))
			c->sched_end = a, got++;
		else if (!strcmp(name, "__lock_text_start"))
			c->lock_start = a, got++;
		else if (!strcmp(name, "__lock_text_end"))
			c->lock_end = a, got++;
	}
	fclose(f);
	/* hidden addresses (kptr_restrict) read as 0: perf finds no symbol then */
	if (c->sched_start)
		c->text_state = 1;
}

static bool is_lock_function(struct lock_callers *c, uint64_t ip)
{
	if (!c->text_state)
		read_text(c);
	if (c->text_state < 0)
		return false;
	return (c->sched_start <= ip && ip < c->sched_end) ||
	       (c->lock_start <= ip && ip < c->lock_end);
}

bool lock_frame_name(const struct tally_frame *f, char *buf, size_t len)
{
	uint64_t off;

	if (f->level != 'k' || !f->sym)
		return false;
	off = f->addr - f->sym_start;
	if (off)
		snprintf(buf, len, "%s+%#llx", f->sym, (unsigned long long)off);
	else
		snprintf(buf, len, "%s", f->sym);
	return true;
}

uint64_t lock_callchain_id(struct lock_callers *c, const struct tally_frame *fr, int n)
{
	uint64_t hash = 0;

	for (int i = 0; i < n; i++) {
		if (i < c->o->stack_skip)
			continue;
		if (fr[i].level == 'k' && fr[i].sym && is_lock_function(c, fr[i].ip))
			continue;
		hash ^= (uint32_t)(fr[i].ip * GOLDEN_64);	/* perf's hash_long returns a u32 */
	}
	return hash;
}

bool lock_caller(struct lock_callers *c, const struct tally_frame *fr, int n, char *buf,
		 size_t len)
{
	for (int i = c->o->stack_skip > 0 ? c->o->stack_skip : 0; i < n; i++)
		if (!is_lock_function(c, fr[i].ip) && lock_frame_name(&fr[i], buf, len))
			return true;
	return false;
}
