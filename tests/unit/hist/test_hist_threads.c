// SPDX-License-Identifier: MIT
/*
 * Two histograms, of two files of different samples and with different
 * keys, orders and graphs, made again and sorted at the same time on
 * two threads, many times: each time their rows and trees must be what
 * the same histogram gave on one thread, and so must their flame graphs.
 * The sort's state, the chain walks' room and the flame graph's frames
 * were once file-scope: the two threads then read each other's keys and
 * frames.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>
#include "hist_file.h"

#define NSAMPLES 3000
#define ROUNDS 30
#define DUMP_MAX (4 << 20)

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * NSAMPLES samples drawn from seed: a few threads, user chains of 1 to 8
 * frames at addresses no map holds (each a row of its own, keyed by
 * address; spread of them), so the rows are many and their sort long.
 * Its path.
 */
static char *write_file(uint64_t seed, uint64_t spread)
{
	char *path = strdup("/tmp/test_hist_threads.XXXXXX");
	struct perf_event_attr a = hf_attr(SAMPLE_TYPE);
	struct tally_data_writer *w;
	int fd;

	assert_non_null(path);
	w = hf_begin(path, &a, &fd);
	for (uint32_t p = 0; p < 6; p++) {
		char name[16];

		snprintf(name, sizeof(name), "t%u", (unsigned)(seed % 7 + p));
		hf_comm(w, 100 + p, name, 1, true);
	}
	for (int i = 0; i < NSAMPLES; i++) {
		struct {
			struct perf_event_header h;
			uint64_t ip;
			uint32_t pid, tid;
			uint64_t time;
			uint32_t cpu, res;
			uint64_t period, nr, ips[9];
		} r;
		int nr = 1 + (int)(next(&seed) % 8);

		memset(&r, 0, sizeof(r));
		r.h = (struct perf_event_header){ PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };

		r.pid = r.tid = 100 + (uint32_t)(next(&seed) % 6);
		r.time = 100 + (uint64_t)i;
		r.cpu = (uint32_t)(next(&seed) % 4);
		r.period = 1 + next(&seed) % 50;
		r.nr = (uint64_t)nr + 1;
		r.ips[0] = PERF_CONTEXT_USER;
		for (int k = 1; k <= nr; k++)
			r.ips[k] = 0x400000 + 0x10 * (next(&seed) % spread);
		r.ip = r.ips[1];
		r.h.size = (uint16_t)(offsetof(typeof(r), ips) + (size_t)(nr + 1) * sizeof(uint64_t));
		hf_put(w, &r);
	}
	hf_end(w, fd);
	return path;
}

/* One histogram and how it is made again each round. */
struct side {
	uint64_t seed;
	const enum tally_hist_key *keys;
	int nkeys;
	enum tally_hist_cg_order order;
	const int *sort;		/* tally_hist__sort's after each resort; NULL: perf's order */
	int nsort;
	struct tally_session *ss;
	struct tally_hist *h;
	char *want, *got;		/* the rows as text: on one thread, then each round */
	char *svg;			/* the flame graph, on one thread */
	int bad;			/* rows or pictures that differed */
	int err;
};

static int dump_tree(const struct tally_hist_node *n, int depth, char **p, size_t *left)
{
	TALLY_OPTS(tally_hist_node_info, ni);
	int w;

	if (tally_hist_node__info(n, &ni))
		return -1;
	w = snprintf(*p, *left, "%*s%llx %llu/%llu %llu/%llu\n", 2 * depth, "",
		     (unsigned long long)ni.frame.ip, (unsigned long long)ni.self,
		     (unsigned long long)ni.self_samples, (unsigned long long)ni.below,
		     (unsigned long long)ni.below_samples);
	if (w < 0 || (size_t)w >= *left)
		return -1;
	*p += w;
	*left -= (size_t)w;
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c))
		if (dump_tree(c, depth + 1, p, left))
			return -1;
	return 0;
}

/* The histogram's flame graph (malloc'd), or NULL. */
static char *svg_of(struct side *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int err;

	if (!fp)
		return NULL;
	err = tally_stacks__svg_from_hist(s->h, 0, fp, "t");
	if (fclose(fp) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Made again from its shapes (the graph set anew makes every row stale), sorted, written out. */
static int remake(struct side *s, char *out)
{
	char *p = out;
	size_t left = DUMP_MAX;
	int err;

	if ((err = tally_hist__set_graph(s->h, true, s->order, false)) ||
	    (err = tally_hist__resort(s->h)) ||
	    (s->sort && (err = tally_hist__sort(s->h, s->sort, s->nsort))))
		return err;
	for (size_t i = 0; i < tally_hist__nr_rows(s->h, 0); i++) {
		TALLY_OPTS(tally_hist_row, x);
		int w;

		if (tally_hist__row(s->h, 0, i, &x))
			return -EINVAL;
		w = snprintf(p, left, "%s %d %d %llx %llu %llu %llu %u\n", x.comm, (int)x.tid, (int)x.cpu,
			     (unsigned long long)x.addr, (unsigned long long)x.self,
			     (unsigned long long)x.children, (unsigned long long)x.samples,
			     x.max_depth);
		if (w < 0 || (size_t)w >= left)
			return -ENOSPC;
		p += w;
		left -= (size_t)w;
		if (x.graph && dump_tree(x.graph, 1, &p, &left))
			return -ENOSPC;
	}
	return 0;
}

static void side_open(struct side *s)
{
	char *path = write_file(s->seed, 400);
	TALLY_OPTS(tally_hist_opts, o, .keys = s->keys, .nr_keys = s->nkeys, .children = true,
		   .graph = true, .order = s->order);

	s->ss = tally_session__open(path, NULL);
	assert_non_null(s->ss);
	s->h = tally_hist__new(s->ss, &o);
	assert_non_null(s->h);
	assert_int_equal(tally_hist__run(s->h), 0);
	unlink(path);
	free(path);
	assert_non_null(s->want = malloc(DUMP_MAX));
	assert_non_null(s->got = malloc(DUMP_MAX));
	assert_int_equal(remake(s, s->want), 0);
	assert_non_null(s->svg = svg_of(s));
	assert_true(tally_hist__nr_rows(s->h, 0) > 500);	/* a sort long enough to be caught in */
}

static void side_close(struct side *s)
{
	tally_hist__free(s->h);
	tally_session__close(s->ss);
	free(s->want);
	free(s->got);
	free(s->svg);
}

static pthread_barrier_t start;

static void *rounds(void *arg)
{
	struct side *s = arg;

	pthread_barrier_wait(&start);
	for (int i = 0; i < ROUNDS && !s->err; i++) {
		char *svg;

		if ((s->err = remake(s, s->got)))
			break;
		if (strcmp(s->got, s->want))
			s->bad++;
		if (!(svg = svg_of(s))) {
			s->err = -ENOMEM;
			break;
		}
		if (strcmp(svg, s->svg))
			s->bad++;
		free(svg);
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	static const enum tally_hist_key ka[] = { TALLY_HIST_COMM, TALLY_HIST_DSO, TALLY_HIST_SYM };
	static const enum tally_hist_key kb[] = { TALLY_HIST_SYM, TALLY_HIST_CPU, TALLY_HIST_PID };
	static const int ob[] = { TALLY_HIST_BY_SAMPLES, TALLY_HIST_SYM, TALLY_HIST_CPU,
				  TALLY_HIST_PID };
	struct side a = { .seed = 0x9e3779b97f4a7c15ULL, .keys = ka, .nkeys = 3,
			  .order = TALLY_HIST_CALLER };
	struct side b = { .seed = 0x2545f4914f6cdd1dULL, .keys = kb, .nkeys = 3,
			  .order = TALLY_HIST_CALLEE, .sort = ob, .nsort = 4 };
	pthread_t ta, tb;

	(void)state;
	side_open(&a);
	side_open(&b);
	assert_string_not_equal(a.want, b.want);
	/* one thread again first: a round gives what the first one gave */
	assert_int_equal(remake(&a, a.got), 0);
	assert_string_equal(a.got, a.want);
	assert_int_equal(pthread_barrier_init(&start, NULL, 2), 0);
	assert_int_equal(pthread_create(&ta, NULL, rounds, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, rounds, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	pthread_barrier_destroy(&start);
	assert_int_equal(a.err, 0);
	assert_int_equal(b.err, 0);
	if (a.bad || b.bad)
		print_error("rows or pictures that differed from one thread's: %d of %d, %d of %d\n",
			    a.bad, ROUNDS, b.bad, ROUNDS);
	assert_int_equal(a.bad, 0);
	assert_int_equal(b.bad, 0);
	side_close(&a);
	side_close(&b);
}

/*
 * A histogram of more than 8192 rows with a call graph threshold sorts
 * its rows on a second thread while the kept walks grow the trees
 * (tally__hist_order_start): its rows, trees and picture, made again
 * several times, are what one thread (TALLY_THREADS=1) made.
 */
static void test_order_beside_replay(void **state)
{
	static const enum tally_hist_key k[] = { TALLY_HIST_COMM, TALLY_HIST_DSO, TALLY_HIST_SYM };
	struct side s = { .keys = k, .nkeys = 3, .order = TALLY_HIST_CALLER };
	char *path;
	TALLY_OPTS(tally_hist_opts, o, .keys = k, .nr_keys = 3, .children = true, .graph = true,
		   .order = TALLY_HIST_CALLER, .graph_min = 0.5);

	(void)state;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();		/* one CPU: no second thread to check */
	path = write_file(0x9e3779b97f4a7c15ULL, 100000);
	assert_non_null(s.ss = tally_session__open(path, NULL));
	assert_non_null(s.h = tally_hist__new(s.ss, &o));
	assert_int_equal(tally_hist__run(s.h), 0);
	unlink(path);
	free(path);
	assert_non_null(s.want = malloc(DUMP_MAX));
	assert_non_null(s.got = malloc(DUMP_MAX));
	assert_int_equal(setenv("TALLY_THREADS", "1", 1), 0);
	assert_int_equal(remake(&s, s.want), 0);
	assert_non_null(s.svg = svg_of(&s));
	assert_int_equal(unsetenv("TALLY_THREADS"), 0);
	assert_true(tally_hist__nr_rows(s.h, 0) > 8192);
	for (int i = 0; i < 5; i++) {
		char *svg;

		assert_int_equal(remake(&s, s.got), 0);
		assert_string_equal(s.got, s.want);
		assert_non_null(svg = svg_of(&s));
		assert_string_equal(svg, s.svg);
		free(svg);
	}
	side_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_order_beside_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
