// SPDX-License-Identifier: MIT
/*
 * read_perf_data: the ten hottest symbols of a perf.data file (perf's or
 * tally's) with their shares of the first event's period, as
 * `perf report --stdio --no-children --sort sym -g none` ranks them.
 * Usage: read_perf_data [FILE]   (default perf.data)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>

struct row {
	const char *sym;	/* the session's string: valid until close */
	char level;		/* perf's: 'k' kernel, '.' user */
	uint64_t addr;		/* no symbol: its address keys the row */
	uint64_t period;
};

struct top {
	struct row *rows;
	size_t n, cap;
	uint64_t total;
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct top *t = ctx;
	struct tally_frame f;
	size_t i;

	if (smp->attr != 0 || tally_session__resolve(s, smp, &f))
		return 0;
	/* perf's sym key: the name (an unresolved address is its own row); a row keeps its first level */
	uint64_t addr = f.sym ? 0 : f.addr;

	t->total += smp->period;
	for (i = 0; i < t->n; i++)
		if (f.sym ? t->rows[i].sym && !strcmp(t->rows[i].sym, f.sym) :
			    !t->rows[i].sym && t->rows[i].addr == addr)
			break;
	if (i == t->n) {
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			if (!(t->rows = realloc(t->rows, t->cap * sizeof(*t->rows))))
				return -1;
		}
		t->rows[t->n++] = (struct row){ .sym = f.sym, .level = f.level, .addr = addr };
	}
	t->rows[i].period += smp->period;
	return 0;
}

static int by_period(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->period != y->period ? (x->period < y->period ? 1 : -1) :
	       strcmp(x->sym ? x->sym : "", y->sym ? y->sym : "");
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	struct top t = { 0 };
	TALLY_OPTS(tally_session_opts, opts, .sample = on_sample, .ctx = &t, .no_unwind = true);
	struct tally_session *s = tally_session__open(path, &opts);

	if (!s) {
		perror(path);
		return 1;
	}
	if (tally_session__run(s) < 0) {
		fprintf(stderr, "%s: could not be read to its end\n", path);
		tally_session__close(s);
		return 1;
	}
	qsort(t.rows, t.n, sizeof(*t.rows), by_period);
	printf("%s: %llu in all\n", tally_session__event_name(s, 0), (unsigned long long)t.total);
	for (size_t i = 0; i < t.n && i < 10; i++) {
		printf("%6.2f%%  [%c] ", 100.0 * (double)t.rows[i].period / (double)t.total,
		       t.rows[i].level);
		if (t.rows[i].sym)
			printf("%s\n", t.rows[i].sym);
		else
			printf("0x%016llx\n", (unsigned long long)t.rows[i].addr);
	}
	tally_session__close(s);
	free(t.rows);
	return 0;
}
