// SPDX-License-Identifier: MIT
/*
 * ns per read of a group of 1, 4 and 8 events on the calling thread:
 *   tally_selfmon__read()   (scaled values; fast path or one group read())
 *   one read() per event     (each event its own fd, not grouped)
 *   one group read()         (PERF_FORMAT_GROUP on the leader)
 *   PAPI_read()              (Debian's libpapi, perf_event component)
 *   bare rdpmc               (only where the selfmon path is rdpmc)
 * on the same software events, so every method reads the same counters.
 * Prints markdown table rows; bench/selfmon.sh wraps them in a section.
 *
 * usage: selfmon [ITERATIONS]
 */
#include <errno.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tally/selfmon.h>
#include <tally/sys.h>

#define REPS 7
#define MAXEV 8

/* The same 8 software events for every method (PAPI names via libpfm4). */
static const struct {
	uint64_t config;
	bool user_only;
	const char *papi;
} events[MAXEV] = {
	{ PERF_COUNT_SW_TASK_CLOCK, false, "perf::TASK-CLOCK" },
	{ PERF_COUNT_SW_PAGE_FAULTS, false, "perf::PAGE-FAULTS" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, false, "perf::CONTEXT-SWITCHES" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS, false, "perf::CPU-MIGRATIONS" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MIN, false, "perf::MINOR-FAULTS" },
	{ PERF_COUNT_SW_PAGE_FAULTS_MAJ, false, "perf::MAJOR-FAULTS" },
	{ PERF_COUNT_SW_CPU_CLOCK, false, "perf::CPU-CLOCK" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, true, "perf::CONTEXT-SWITCHES:u" },
};

static long iters = 200000;
static volatile uint64_t sink;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * ns per call of each fn(ctx), the methods interleaved rep by rep (A B C D,
 * B C D A, ...) so that drift (frequency, the other core's load) hits them
 * alike; the best of REPS reps each (other processes only ever add time). A NULL fn is skipped (-1).
 */
#define NM 5
static void measure_all(int (*fn[NM])(void *), void *ctx[NM], double out[NM])
{
	double r[NM][REPS];

	for (int m = 0; m < NM; m++) {
		out[m] = -1;
		for (long i = 0; fn[m] && i < iters / 10; i++)	/* warm up */
			if (fn[m](ctx[m])) {
				fn[m] = NULL;
				break;
			}
	}
	for (int k = 0; k < REPS; k++) {
		/* Rotate the starting method each rep: no method always goes first. */
		for (int j = 0; j < NM; j++) {
			int m = (j + k) % NM;
			double t0;

			if (!fn[m])
				continue;
			t0 = now_ns();
			for (long i = 0; i < iters; i++)
				fn[m](ctx[m]);
			r[m][k] = (now_ns() - t0) / iters;
		}
	}
	for (int m = 0; m < NM; m++) {
		if (!fn[m])
			continue;
		qsort(r[m], REPS, sizeof(r[m][0]), cmp_double);
		out[m] = r[m][0];	/* best of REPS: the least disturbed */
	}
}

static void attr_of(struct perf_event_attr *a, int i)
{
	tally_attr__init(a, PERF_TYPE_SOFTWARE, events[i].config);
	a->exclude_kernel = events[i].user_only;
}

/* ---- tally_selfmon ---- */
struct sm_ctx {
	struct tally_selfmon *sm;
	uint64_t v[MAXEV];
};

static int sm_read(void *p)
{
	struct sm_ctx *c = p;
	int err = tally_selfmon__read(c->sm, c->v);

	sink += c->v[0];
	return err;
}

/* ---- read() per event ---- */
struct fds_ctx {
	int fd[MAXEV];
	int nr;
};

static int fds_read(void *p)
{
	struct fds_ctx *c = p;
	uint64_t buf[3];	/* value, enabled, running */

	for (int i = 0; i < c->nr; i++)
		if (tally_sys_read(c->fd[i], buf, sizeof(buf)))
			return -1;
	sink += buf[0];
	return 0;
}

/* ---- one group read() ---- */
struct grp_ctx {
	int fd[MAXEV];
	int nr;
	uint64_t buf[3 + MAXEV];
};

static int grp_read(void *p)
{
	struct grp_ctx *c = p;

	if (tally_sys_read(c->fd[0], c->buf, (3 + (size_t)c->nr) * sizeof(uint64_t)))
		return -1;
	sink += c->buf[3];
	return 0;
}

/* ---- PAPI ---- */
struct papi_ctx {
	int es;
	long long v[MAXEV];
};

static int papi_read(void *p)
{
	struct papi_ctx *c = p;

	if (PAPI_read(c->es, c->v) != PAPI_OK)
		return -1;
	sink += (uint64_t)c->v[0];
	return 0;
}

static bool papi_ok;

static int papi_setup(struct papi_ctx *c, int nr, char *why, size_t whylen)
{
	int r;

	c->es = PAPI_NULL;
	if (!papi_ok) {
		snprintf(why, whylen, "PAPI_library_init failed");
		return -1;
	}
	if ((r = PAPI_create_eventset(&c->es)) != PAPI_OK) {
		snprintf(why, whylen, "create_eventset: %s", PAPI_strerror(r));
		return -1;
	}
	for (int i = 0; i < nr; i++) {
		r = PAPI_add_named_event(c->es, events[i].papi);
		if (r != PAPI_OK) {
			snprintf(why, whylen, "%s: %s", events[i].papi, PAPI_strerror(r));
			goto err;
		}
	}
	if ((r = PAPI_start(c->es)) != PAPI_OK) {
		snprintf(why, whylen, "start: %s", PAPI_strerror(r));
		goto err;
	}
	return 0;
err:
	PAPI_cleanup_eventset(c->es);
	PAPI_destroy_eventset(&c->es);
	c->es = PAPI_NULL;
	return -1;
}

static void papi_teardown(struct papi_ctx *c)
{
	if (c->es == PAPI_NULL)
		return;
	PAPI_stop(c->es, c->v);
	PAPI_cleanup_eventset(c->es);
	PAPI_destroy_eventset(&c->es);
}

#if defined(__x86_64__) || defined(__i386__)
struct rdpmc_ctx {
	uint32_t idx[MAXEV];
	int nr;
};

static int bare_rdpmc(void *p)
{
	struct rdpmc_ctx *c = p;
	uint64_t s = 0;

	for (int i = 0; i < c->nr; i++) {
		uint32_t lo, hi;

		__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(c->idx[i]));
		s += lo | (uint64_t)hi << 32;
	}
	sink += s;
	return 0;
}
#endif

static void fmt(char *buf, size_t len, double ns)
{
	if (ns < 0)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%.1f", ns);
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 1, 4, 8 };
	char papi_why[160] = "";

	if (argc > 1)
		iters = atol(argv[1]) > 0 ? atol(argv[1]) : iters;
	papi_ok = PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT;

	printf("| events | tally_selfmon__read | read() per event | group read() | PAPI_read | bare rdpmc | path | selfmon / group read | selfmon / PAPI |\n");
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		int nr = sizes[s];
		struct perf_event_attr a[MAXEV];
		struct sm_ctx smc = { 0 };
		struct fds_ctx fc = { .nr = nr };
		struct grp_ctx gc = { .nr = nr };
		struct papi_ctx pc;
		double t[NM], t_sm, t_fds, t_grp, t_papi, t_rdpmc;
		char b1[32], b2[32], b3[32], b4[32], b5[32];
		const char *path;
		int (*fn[NM])(void *) = { sm_read, fds_read, grp_read, papi_read, NULL };
		void *ctx[NM] = { &smc, &fc, &gc, &pc, NULL };
#if defined(__x86_64__) || defined(__i386__)
		struct rdpmc_ctx rc = { .nr = nr };
#endif

		for (int i = 0; i < nr; i++)
			attr_of(&a[i], i);
		TALLY_OPTS(tally_selfmon_opts, o, .enable = true);
		smc.sm = tally_selfmon__new(a, (size_t)nr, &o);
		if (!smc.sm) {
			fprintf(stderr, "selfmon: open %d events: %s\n", nr, strerror(errno));
			return 1;
		}
		/* One read decides the path (fast when every event is on a PMU). */
		sm_read(&smc);
#if defined(__x86_64__) || defined(__i386__)
		if (tally_selfmon__path(smc.sm) == TALLY_SELFMON_PATH_RDPMC) {
			for (int i = 0; i < nr; i++)
				rc.idx[i] = tally_selfmon__page(smc.sm, (size_t)i)->index - 1;
			fn[4] = bare_rdpmc;
			ctx[4] = &rc;
		}
#endif
		for (int i = 0; i < nr; i++) {
			struct perf_event_attr x = a[i];

			x.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING;
			fc.fd[i] = tally_sys_open(&x, 0, -1, -1, 0);
			if (fc.fd[i] < 0) {
				fprintf(stderr, "selfmon: open: %s\n", strerror(-fc.fd[i]));
				return 1;
			}
		}
		for (int i = 0; i < nr; i++) {
			struct perf_event_attr x = a[i];

			x.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING;
			gc.fd[i] = tally_sys_open(&x, 0, -1, i ? gc.fd[0] : -1, 0);
			if (gc.fd[i] < 0) {
				fprintf(stderr, "selfmon: open: %s\n", strerror(-gc.fd[i]));
				return 1;
			}
		}
		if (papi_setup(&pc, nr, papi_why, sizeof(papi_why)))
			fn[3] = NULL;

		measure_all(fn, ctx, t);
		t_sm = t[0];
		t_fds = t[1];
		t_grp = t[2];
		t_papi = t[3];
		t_rdpmc = t[4];
		path = tally_selfmon_path__name(tally_selfmon__path(smc.sm));

		papi_teardown(&pc);
		for (int i = nr - 1; i >= 0; i--) {
			close(gc.fd[i]);
			close(fc.fd[i]);
		}
		tally_selfmon__free(smc.sm);

		fmt(b1, sizeof(b1), t_sm);
		fmt(b2, sizeof(b2), t_fds);
		fmt(b3, sizeof(b3), t_grp);
		fmt(b4, sizeof(b4), t_papi);
		fmt(b5, sizeof(b5), t_rdpmc);
		printf("| %d | %s | %s | %s | %s | %s | %s | %.2f | ", nr, b1, b2, b3, b4, b5,
		       path, t_sm / t_grp);
		if (t_papi > 0)
			printf("%.2f |\n", t_sm / t_papi);
		else
			printf("n/a |\n");
	}
	if (papi_why[0])
		printf("\nPAPI could not run every size: %s\n", papi_why);
	return 0;
}
