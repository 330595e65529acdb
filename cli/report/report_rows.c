// SPDX-License-Identifier: MIT
/*
 * tally report's plain table: each row's line (perf's percentages and
 * key columns) and its call graph, many rows printed in chunks by two
 * threads and written in order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "read_file.h"
#include "report_ctx.h"
#include "report_fmt.h"

void report_print_graph(FILE *fp, const struct report *r, uint64_t total,
			const struct tally_hist_row *e)
{
	if (r->cg.mode != CG_NONE && e->graph)
		cg_print_base(fp, e->graph, &r->cg, r->relative ? r->graph_total : total,
			      r->relative ? r->graph_base : total,
			      r->children ? e->children : e->self,
			      r->sort_spec && !strncmp(r->sort_spec, "sym", 3));
}

/* print_graph as hist_table's callback */
void report_table_graph(FILE *fp, const struct tally_hist_row *e, uint64_t total, void *arg)
{
	report_print_graph(fp, arg, total, e);
}



#define ROWS_CHUNK	32
#define ROWS_MT		256	/* rows (with graphs: 32) from which a second thread helps */

/* -t: the row's cells joined by the separator (perf's field_sep) */
static void print_row_sep(struct line *ln, const struct rows_out *o, const struct tally_hist_row *e,
			  double tot)
{
	const struct report *r = o->r;
	const char *sep = r->sep;

	if (r->children)
		line_sep_pct(ln, sep, true, 100.0 * e->children / tot, 8, false);
	line_sep_pct(ln, sep, !r->children, 100.0 * e->self / tot, 8, false);
	if (r->cpu_util) {
		line_sep_pct(ln, sep, false, 100.0 * e->period_sys / tot, 8, false);
		line_sep_pct(ln, sep, false, 100.0 * e->period_us / tot, 8, false);
	}
	if (r->show_nr)
		line_sep_u64(ln, sep, false, (unsigned long long)e->samples, 12, false);
	if (r->show_period)
		line_sep_u64(ln, sep, false, (unsigned long long)e->self, 12, false);
	for (int i = 0; i < r->nsort; i++)
		if (i == r->ipc_at) {
			char ipc[] = "-      -            ";	/* perf's ipc_null */

			line_sep_text(ln, sep, false, ipc, sizeof(ipc) - 1);
		} else if (!r->elide[r->sort[i]]) {
			hist_key_put_sep(ln, sep, false, &r->cells, e, r->sort[i], o->width[i],
					 i == o->last);
		}
	/*
	 * perf writes the row into a buffer of its columns' widths, their
	 * "  " separators and 4 (hists__fprintf's linesz): a -t row is cut
	 * there (an inlined name's " (inlined)" that overflows its column)
	 */
	size_t w = (r->children ? 10 : 0) + 8 + (r->cpu_util ? 20 : 0) + (r->show_nr ? 14 : 0) +
		   (r->show_period ? 14 : 0);

	for (int i = 0; i < r->nsort; i++)
		if (i == r->ipc_at)
			w += 22;
		else if (!r->elide[r->sort[i]])
			w += 2 + (size_t)o->width[i];
	if (ln->n > w + 3)
		ln->n = w + 3;
	line_putc(ln, '\n');
	line_flush(ln);
}

static void print_row(FILE *fp, const struct rows_out *o, const struct tally_hist_row *e)
{
	const struct report *r = o->r;
	double tot = o->total ? (double)o->total : 1;

	/* --percent-limit hides rows; the widths were taken over all */
	if (100.0 * (r->children ? e->children : e->self) / tot < r->percent_limit)
		return;
	struct line ln = { .fp = fp };
	char num[32];

	if (r->sep) {
		print_row_sep(&ln, o, e, tot);
		report_print_graph(fp, r, o->total, e);
		return;
	}
	if (r->children) {
		line_put(&ln, "  ", 2);
		line_pct(&ln, 100.0 * e->children / tot, 7);
	}
	line_put(&ln, "  ", 2);
	line_pct(&ln, 100.0 * e->self / tot, 7);
	if (r->cpu_util) {	/* perf's sys and usr: the row's own period by level */
		line_put(&ln, "  ", 2);
		line_pct(&ln, 100.0 * e->period_sys / tot, 7);
		line_put(&ln, "  ", 2);
		line_pct(&ln, 100.0 * e->period_us / tot, 7);
	}
	if (r->show_nr)
		line_put(&ln, num, (size_t)snprintf(num, sizeof(num), "  %12llu",
						    (unsigned long long)e->samples));
	if (r->show_period)
		line_put(&ln, num, (size_t)snprintf(num, sizeof(num), "  %12llu",
						    (unsigned long long)e->self));
	for (int i = 0; i < r->nsort; i++)
		if (i == r->ipc_at)
			line_put(&ln, "  -      -            ", 22);	/* perf's ipc_null */
		else if (!r->elide[r->sort[i]])
			hist_key_put(&ln, &r->cells, e, r->sort[i], o->width[i], i == o->last);
	line_putc(&ln, '\n');
	line_flush(&ln);
	report_print_graph(fp, r, o->total, e);
}

/*
 * A chunk's text grows here: a stream on a cookie buffers as stdout does
 * (open_memstream's writes of a few bytes go byte by byte).
 */
static ssize_t buf_write(void *cookie, const char *p, size_t n)
{
	struct rows_buf *b = cookie;
	char *v;

	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16384;

		while (cap < b->len + n)
			cap *= 2;
		if (!(v = realloc(b->text, cap)))
			return -1;
		b->text = v;
		b->cap = cap;
	}
	memcpy(b->text + b->len, p, n);
	b->len += n;
	return (ssize_t)n;
}

/* Chunk c's rows to fp. */
static void print_rows_of(FILE *fp, const struct rows_out *o, size_t c)
{
	size_t end = (c + 1) * ROWS_CHUNK < o->n ? (c + 1) * ROWS_CHUNK : o->n;

	for (size_t k = c * ROWS_CHUNK; k < end; k++)
		print_row(fp, o, &o->rows[k]);
}

/* Chunk c's rows into memory; failed (no memory) has the writer print them again. */
static void print_chunk(struct rows_out *o, size_t c)
{
	struct rows_buf b = { .done = true, .failed = true };
	FILE *fp = fopencookie(&b, "w", (cookie_io_functions_t){ .write = buf_write });

	if (fp) {
		__fsetlocking(fp, FSETLOCKING_BYCALLER);
		print_rows_of(fp, o, c);
		b.failed = fclose(fp) != 0;
	}
	if (b.failed) {
		free(b.text);
		b.text = NULL;
		b.len = 0;
	}
	pthread_mutex_lock(&o->mu);
	o->buf[c] = b;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

/* The next chunk nobody took, or SIZE_MAX. */
static size_t take_chunk(struct rows_out *o)
{
	size_t c;

	pthread_mutex_lock(&o->mu);
	c = o->next < o->nchunk ? o->next++ : SIZE_MAX;
	pthread_mutex_unlock(&o->mu);
	return c;
}

static void *rows_helper(void *arg)
{
	struct rows_out *o = arg;

	for (size_t c; (c = take_chunk(o)) != SIZE_MAX;)
		print_chunk(o, c);
	return NULL;
}

/*
 * The rows in order. A busy machine's 10,000 lines of rows and graphs are
 * a quarter of a report's time: from ROWS_MT rows a second thread prints
 * chunks into memory beside this one, which writes each chunk in order
 * (the one it takes when it is next straight to stdout). The output is
 * the same, byte for byte.
 */
void report_print_rows(struct rows_out *o)
{
	size_t min = o->r->cg.mode != CG_NONE ? ROWS_MT / 8 : ROWS_MT;
	bool helper;
	pthread_t th;

	o->nchunk = (o->n + ROWS_CHUNK - 1) / ROWS_CHUNK;
	/* a mispredict cell shows what the row before it did (perf's static): in order */
	for (int i = 0; i < o->r->nsort; i++)
		if (o->r->sort[i] == TALLY_HIST_MISPREDICT)
			min = SIZE_MAX;
	if (o->n < min || !cli_two_threads() || !(o->buf = calloc(o->nchunk, sizeof(*o->buf)))) {
		for (size_t k = 0; k < o->n; k++)
			print_row(stdout, o, &o->rows[k]);
		return;
	}
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	helper = !pthread_create(&th, NULL, rows_helper, o);
	for (size_t c = 0; c < o->nchunk; c++) {
		size_t mine = SIZE_MAX;

		/* until chunk c is done: print the next free one, or wait for the helper's */
		for (;;) {
			pthread_mutex_lock(&o->mu);
			if (!o->buf[c].done && o->next < o->nchunk)
				mine = o->next++;	/* c itself when nobody took it: straight out */
			else
				while (!o->buf[c].done)
					pthread_cond_wait(&o->cv, &o->mu);
			pthread_mutex_unlock(&o->mu);
			if (mine == c || mine == SIZE_MAX)
				break;
			print_chunk(o, mine);
			mine = SIZE_MAX;
		}
		if (mine == c || o->buf[c].failed)	/* a failed chunk is printed here */
			print_rows_of(stdout, o, c);
		else if (o->buf[c].len)	/* none: every row of it under --percent-limit */
			fwrite_unlocked(o->buf[c].text, 1, o->buf[c].len, stdout);
		free(o->buf[c].text);
	}
	if (helper)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	free(o->buf);
}
