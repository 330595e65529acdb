// SPDX-License-Identifier: MIT
/*
 * tally stat: count events for a command, pids, threads, CPUs or a cgroup
 * and print them as perf stat does (see docs/tally-stat.1).
 *
 * One run: build the event list from the -e specs, open it on the target
 * (the forked workload with enable_on_exec, or -p/-t threads, or CPUs),
 * wait (for the workload, the pids, Ctrl-C, --timeout, printing every -I
 * interval), read, and fold the aggregates into a grid of
 * [event][aggregate] cells. -r N folds N runs into running statistics;
 * --compare keeps two grids, one per command, run alternately.
 */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "stat.h"

_Static_assert((int)STAT_AGGR_NODE == (int)TALLY_AGGR_NODE &&
	       (int)STAT_AGGR_CORE == (int)TALLY_AGGR_CORE &&
	       (int)STAT_AGGR_THREAD == (int)TALLY_AGGR_THREAD,
	       "enum stat_aggr mirrors enum tally_aggr_mode");

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults," \
		       "cycles,instructions,branches,branch-misses"
/* perf 6.1's -d, -dd, -ddd additions to the default set (no -e). */
static const char *const detailed_events[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	("L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
	 "iTLB-loads,iTLB-load-misses"),
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static volatile sig_atomic_t got_signal;	/* taken by the wait loop */
static volatile sig_atomic_t interrupted;	/* stays set: no more -r runs */

static void on_signal(int sig)
{
	got_signal = sig;
	interrupted = 1;
}

/* ---- the grid: every event x every aggregate, across runs ---- */

struct agkey {
	int key, socket, die, core, nr;
	char comm[32];
};

struct cell {
	bool present;
	bool counted, scaled;
	struct stat_acc val, run, ena;
};

struct grid_ev {
	char *name;
	char *unit;
	enum stat_kind kind;
	double scale;
	bool supported;
};

struct grid {
	int nev, nag, agcap;
	struct grid_ev *ev;
	struct agkey *ag;
	struct cell *cells;	/* [ev][ag], row stride agcap */
	struct stat_acc elapsed;
	double user_s, sys_s;
	bool rusage;
	double *run_s;		/* each run's elapsed seconds (--table) */
	int nrun_s, run_cap;
	/* -a --per-thread: perf omits the (many) threads that counted 0 */
	bool skip_zero;
	/* The workload's tid and comm: its map entry was read before exec. */
	pid_t wl_tid;
	char wl_comm[16];
};

static struct cell *grid_cell(struct grid *g, int e, int a)
{
	return &g->cells[(size_t)e * (size_t)g->agcap + (size_t)a];
}

static void grid_free(struct grid *g)
{
	for (int i = 0; i < g->nev; i++) {
		free(g->ev[i].name);
		free(g->ev[i].unit);
	}
	free(g->ev);
	free(g->run_s);
	free(g->ag);
	free(g->cells);
	memset(g, 0, sizeof(*g));
}

static int grid_find_ag(struct grid *g, const struct tally_aggr *a)
{
	for (int i = 0; i < g->nag; i++)
		if (g->ag[i].key == a->key && g->ag[i].socket == a->socket &&
		    g->ag[i].die == a->die && g->ag[i].core == a->core)
			return i;
	return -1;
}

/* Add an aggregate column, growing every event's row. */
static int grid_add_ag(struct grid *g, const struct tally_aggr *a)
{
	if (g->nag == g->agcap) {
		int cap = g->agcap ? g->agcap * 2 : 4;
		struct cell *c = calloc((size_t)g->nev * (size_t)cap, sizeof(*c));
		struct agkey *k = reallocarray(g->ag, (size_t)cap, sizeof(*k));

		if (!c || !k) {
			free(c);
			if (k)
				g->ag = k;
			return -ENOMEM;
		}
		for (int e = 0; e < g->nev && g->nag; e++)
			memcpy(&c[(size_t)e * (size_t)cap], &g->cells[(size_t)e * (size_t)g->agcap],
			       (size_t)g->nag * sizeof(*c));
		free(g->cells);
		g->cells = c;
		g->ag = k;
		g->agcap = cap;
	}
	g->ag[g->nag] = (struct agkey){ .key = a->key, .socket = a->socket,
					.die = a->die, .core = a->core, .nr = a->nr };
	return g->nag++;
}

static enum stat_kind kind_of(struct tally_evsel *e)
{
	const struct perf_event_attr *attr = tally_evsel__attr(e);

	return stat_kind_of(attr->type, attr->config);
}

/* The first run fixes the events; later runs must have the same ones. */
static int grid_init_events(struct grid *g, struct tally_evlist *l)
{
	struct tally_evsel *e;
	int i = 0, n = tally_evlist__nr(l);

	if (g->ev)
		return g->nev == n ? 0 : -EINVAL;
	g->ev = calloc((size_t)(n ? n : 1), sizeof(*g->ev));
	if (!g->ev)
		return -ENOMEM;
	g->nev = n;
	tally_evlist__for_each_evsel(l, e) {
		const char *u = tally_evsel__unit(e);
		struct grid_ev *ge = &g->ev[i++];

		ge->supported = true;
		ge->name = strdup(tally_evsel__name(e));
		ge->kind = kind_of(e);
		ge->scale = tally_evsel__scale(e);
		if (!(ge->scale > 0))
			ge->scale = 1.0;
		if (ge->kind == STAT_K_CLOCK)
			u = "msec";
		ge->unit = strdup(u ? u : "");
		if (!ge->name || !ge->unit)
			return -ENOMEM;
	}
	return 0;
}

static void comm_of(struct tally_thread_map *m, pid_t tid, char *buf, size_t len)
{
	for (int i = 0; i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) == tid) {
			snprintf(buf, len, "%s", tally_thread_map__comm(m, i));
			return;
		}
	snprintf(buf, len, "?");
}

/*
 * Fold the evlist's stored counts (delta: the last interval) into g.
 * With reset, the cells are cleared first (intervals).
 */
static int grid_fold(struct grid *g, struct tally_evlist *l, enum stat_aggr mode,
		     const struct tally_topology *topo, bool delta, bool reset)
{
	struct tally_evsel *e;
	int i = 0, err;

	err = grid_init_events(g, l);
	if (err)
		return err;
	if (reset)
		for (int k = 0; k < g->nev * g->agcap; k++)
			memset(&g->cells[k], 0, sizeof(g->cells[k]));
	tally_evlist__for_each_evsel(l, e) {
		struct tally_aggr *a = NULL;
		int n = tally_evsel__aggregate(e, (enum tally_aggr_mode)mode, topo, delta, &a);
		int ev = i++;

		if (!tally_evsel__supported(e))
			g->ev[ev].supported = false;
		if (n < 0)
			return n;
		for (int j = 0; j < n; j++) {
			int ag = grid_find_ag(g, &a[j]);
			struct cell *c;
			double s = g->ev[ev].scale;

			if (ag < 0)
				ag = grid_add_ag(g, &a[j]);
			if (ag < 0) {
				free(a);
				return ag;
			}
			if (mode == STAT_AGGR_THREAD && !g->ag[ag].comm[0] && g->wl_tid &&
			    a[j].key == g->wl_tid)
				snprintf(g->ag[ag].comm, sizeof(g->ag[ag].comm), "%s", g->wl_comm);
			else if (mode == STAT_AGGR_THREAD && !g->ag[ag].comm[0])
				comm_of(tally_evsel__threads(e) ? tally_evsel__threads(e) :
					tally_evlist__threads(l), a[j].key,
					g->ag[ag].comm, sizeof(g->ag[ag].comm));
			c = grid_cell(g, ev, ag);
			c->present = true;
			if (a[j].scaled.state == TALLY_COUNT_COUNTED ||
			    a[j].scaled.state == TALLY_COUNT_SCALED) {
				c->counted = true;
				c->scaled |= a[j].scaled.state == TALLY_COUNT_SCALED;
			}
			stat_acc_add(&c->val, (double)a[j].scaled.val * s);
			stat_acc_add(&c->run, (double)a[j].counts.run);
			stat_acc_add(&c->ena, (double)a[j].counts.ena);
		}
		free(a);
	}
	return 0;
}

static void cell_row(struct grid *g, int e, int a, bool noise, struct stat_row *r)
{
	struct cell *c = grid_cell(g, e, a);
	struct agkey *k = &g->ag[a];

	memset(r, 0, sizeof(*r));
	r->event = g->ev[e].name;
	r->unit = g->ev[e].unit;
	r->kind = g->ev[e].kind;
	if (!g->ev[e].supported)
		r->state = STAT_S_NOT_SUPPORTED;
	else if (!c->counted)
		r->state = STAT_S_NOT_COUNTED;
	else
		r->state = c->scaled ? STAT_S_SCALED : STAT_S_COUNTED;
	r->key = k->key;
	r->socket = k->socket;
	r->die = k->die;
	r->core = k->core;
	r->nr = k->nr;
	r->comm = k->comm;
	r->val = stat_acc_mean(&c->val);
	r->run = stat_acc_mean(&c->run);
	r->ena = stat_acc_mean(&c->ena);
	r->has_noise = noise;
	r->noise_pct = stat_acc_rel_pct(&c->val);
}

static int cmp_row_val_desc(const void *x, const void *y)
{
	const struct stat_row *a = x, *b = y;

	return (a->val < b->val) - (a->val > b->val);
}

/*
 * Print the grid in perf's order: event-major for global, per-CPU and
 * per-thread (threads by count, largest first); aggregate-major for
 * core/die/socket/node.
 */
static int grid_print(struct grid *g, struct stat_out *o, enum stat_aggr mode,
		      double wall_ns, bool noise)
{
	struct stat_row *rows = calloc((size_t)(g->nev * g->nag + 1), sizeof(*rows));
	struct stat_row *col = calloc((size_t)(g->nev + 1), sizeof(*col));
	int *colidx = calloc((size_t)(g->nev + 1), sizeof(*colidx));

	if (!rows || !col || !colidx) {
		free(rows);
		free(col);
		free(colidx);
		return -ENOMEM;
	}
	/* Metrics look across the events of one aggregate. */
	for (int a = 0; a < g->nag; a++) {
		int n = 0;

		for (int e = 0; e < g->nev; e++) {
			if (!grid_cell(g, e, a)->present)
				continue;
			cell_row(g, e, a, noise, &col[n]);
			colidx[n++] = e;
		}
		stat_metrics_compute(col, n, wall_ns);
		for (int i = 0; i < n; i++)
			rows[colidx[i] * g->nag + a] = col[i];
	}
	if (mode == STAT_AGGR_CORE || mode == STAT_AGGR_DIE || mode == STAT_AGGR_SOCKET ||
	    mode == STAT_AGGR_NODE) {
		for (int a = 0; a < g->nag; a++)
			for (int e = 0; e < g->nev; e++)
				if (grid_cell(g, e, a)->present)
					stat_out_row(o, &rows[e * g->nag + a]);
	} else {
		for (int e = 0; e < g->nev; e++) {
			struct stat_row *r = &rows[e * g->nag];
			int n = 0;

			for (int a = 0; a < g->nag; a++)
				if (grid_cell(g, e, a)->present &&
				    !(g->skip_zero && rows[e * g->nag + a].val == 0))
					r[n++] = rows[e * g->nag + a];
			if (mode == STAT_AGGR_THREAD)
				qsort(r, (size_t)n, sizeof(*r), cmp_row_val_desc);
			for (int i = 0; i < n; i++)
				stat_out_row(o, &r[i]);
		}
	}
	free(rows);
	free(col);
	free(colidx);
	return 0;
}

/* ---- one run ---- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int pidfd_open_compat(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int print_parse_error(const char *spec, const struct tally_parse_error *pe, int err)
{
	char buf[1024];

	if (err == -ENOSYS) {
		fprintf(stderr, "tally stat: the event parser is not available in this build\n");
		return 1;
	}
	if (pe->msg[0] && tally_parse_error__format(pe, spec, buf, sizeof(buf)) >= 0)
		fprintf(stderr, "%s\n", buf);
	else
		fprintf(stderr, "event syntax error: '%s': %s\n", spec, strerror(-err));
	fprintf(stderr, "Run 'tally list' for a list of valid events\n");
	return 1;
}

/* The events of -e (or the default set), ungrouped by -g. */
static struct tally_evlist *build_events(const struct stat_config *cfg, bool quiet_err)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_parse_error pe;
	int err;

	if (!l) {
		fprintf(stderr, "tally stat: %s\n", strerror(errno));
		return NULL;
	}
	if (cfg->null_run)
		return l;
	for (int i = 0; i < cfg->nr_events; i++) {
		memset(&pe, 0, sizeof(pe));
		err = tally_evlist__add_parsed(l, cfg->events[i].spec, NULL, &pe);
		if (err) {
			if (!quiet_err)
				print_parse_error(cfg->events[i].spec, &pe, err);
			tally_evlist__free(l);
			return NULL;
		}
		if (cfg->events[i].filter) {
			struct tally_evsel *last = tally_evlist__last(l);

			if (!last || tally_evsel__attr(last)->type != PERF_TYPE_TRACEPOINT) {
				if (!quiet_err)
					fprintf(stderr, "tally stat: --filter '%s' must follow a tracepoint event\n",
						cfg->events[i].filter);
				tally_evlist__free(l);
				return NULL;
			}
			err = tally_evsel__set_filter(last, cfg->events[i].filter);
			if (err) {
				fprintf(stderr, "tally stat: --filter: %s\n", strerror(-err));
				tally_evlist__free(l);
				return NULL;
			}
		}
	}
	/*
	 * The default set when no -e; perf's -d levels are appended to
	 * whatever there is (perf does so after -e events too).
	 */
	for (int i = cfg->nr_events ? 0 : -1; i < cfg->detailed && i < 3; i++) {
		const char *spec = i < 0 ? DEFAULT_EVENTS : detailed_events[i];

		memset(&pe, 0, sizeof(pe));
		err = tally_evlist__add_parsed(l, spec, NULL, &pe);
		if (err) {
			if (!quiet_err)
				print_parse_error(spec, &pe, err);
			tally_evlist__free(l);
			return NULL;
		}
	}
	return l;
}

/* Build the event list; on a bad spec print where and return NULL. */
static struct tally_evlist *build_evlist(const struct stat_config *cfg, bool quiet_err)
{
	struct tally_evlist *l = build_events(cfg, quiet_err);
	int nr = l ? tally_evlist__nr(l) : 0, err;

	if (!l || !cfg->group || nr < 2)
		return l;
	/* -g, as perf: one group of every event, led by the first */
	err = tally_evlist__set_group(l, tally_evlist__first(l), nr);
	if (err) {
		if (!quiet_err)
			fprintf(stderr, "tally stat: -g: %s\n", err == -EINVAL ?
				"the events already form groups ({...})" : strerror(-err));
		tally_evlist__free(l);
		return NULL;
	}
	return l;
}

struct run_ctx {
	const struct stat_config *cfg;
	struct stat_out *out;
	struct grid *grid;		/* where the run's totals go */
	struct grid interval_grid;	/* scratch for -I */
	const struct tally_topology *topo;
	char *const *argv;		/* the command, or NULL */
	const char *target;		/* "'cmd args'", "'system wide'"... */
	int exit_code;
	bool exec_failed;
	bool counted;			/* something was opened */
	bool targets_exited;		/* -p/-t: all gone, no more -r runs */
};

static void print_attrs(struct tally_evlist *l)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(l, e) {
		fprintf(stderr, "------------------------------------------------------------\n");
		fprintf(stderr, "perf_event_attr: %s\n", tally_evsel__name(e));
		tally_attr__fprint(tally_evsel__attr(e), stderr);
	}
	fprintf(stderr, "------------------------------------------------------------\n");
}

static void print_verbose_counts(struct tally_evlist *l)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(l, e) {
		struct tally_aggr *a = NULL;
		int n = tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &a);

		if (n > 0)
			fprintf(stderr, "%s: %llu %llu %llu\n", tally_evsel__name(e),
				(unsigned long long)a[0].counts.val,
				(unsigned long long)a[0].counts.ena,
				(unsigned long long)a[0].counts.run);
		free(a);
	}
}

/* The open failed for every event: say why, with the library's hint. */
static void print_open_error(struct tally_evlist *l, int err)
{
	struct tally_evsel *e, *culprit = tally_evlist__first(l);
	char buf[1024];

	tally_evlist__for_each_evsel(l, e)
		if (tally_evsel__open_error(e)) {
			culprit = e;
			break;
		}
	if (culprit && tally_evsel__open_error(culprit))
		err = tally_evsel__open_error(culprit);
	tally_strerror(err, culprit ? tally_evsel__attr(culprit) : NULL,
		       culprit ? tally_evsel__name(culprit) : NULL, buf, sizeof(buf));
	fprintf(stderr, "tally stat: %s\n", buf);
}

static bool all_unsupported(struct tally_evlist *l)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(l, e)
		if (tally_evsel__supported(e))
			return false;
	return true;
}

/*
 * OpenMetrics intervals into -o FILE: each interval replaces the file
 * (written aside, then renamed), so a node-exporter textfile collector
 * always reads one whole exposition, never a half-written or doubled one.
 */
static void om_replace_file(struct stat_out *o, const char *path)
{
	size_t len = strlen(path) + 16;
	char *tmp = malloc(len);
	FILE *keep = o->fp, *f;

	if (!tmp) {
		stat_out_om_end(o, NULL);
		return;
	}
	snprintf(tmp, len, "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, "tally stat: %s: %s\n", tmp, strerror(errno));
		stat_out_om_end(o, NULL);	/* still lands in the open file */
		free(tmp);
		return;
	}
	o->fp = f;
	stat_out_om_end(o, NULL);
	o->fp = keep;
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, "tally stat: %s: %s\n", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
}

static void print_interval(struct run_ctx *rc, struct tally_evlist *l, double t0,
			   double *last)
{
	double t = now_ns();
	struct stat_out *o = rc->out;

	tally_evlist__read(l);
	/* tool events: the time so far (user/system time: at the end) */
	tally_evlist__set_tool_times(l, (uint64_t)(t - t0), 0, 0);
	if (grid_fold(&rc->interval_grid, l, rc->cfg->aggr, rc->topo, true, true))
		return;
	if (rc->cfg->quiet)
		goto out;
	o->interval = true;
	o->ts_ns = (uint64_t)(t - t0);
	if (rc->cfg->interval_clear && o->format != STAT_FMT_OPENMETRICS) {
		/* as perf: a header each time; clear only a terminal */
		if (isatty(fileno(o->fp)))
			fputs("\033[H\033[2J\n", o->fp);
		o->nr_intervals = 0;
	}
	if (o->format == STAT_FMT_OPENMETRICS)
		stat_out_om_begin(o);
	else
		stat_out_interval_header(o);
	grid_print(&rc->interval_grid, o, rc->cfg->aggr, t - *last, false);
	if (o->format == STAT_FMT_OPENMETRICS && rc->cfg->output && !rc->cfg->append)
		om_replace_file(o, rc->cfg->output);
	else if (o->format == STAT_FMT_OPENMETRICS)
		stat_out_om_end(o, NULL);
	fflush(o->fp);
out:
	*last = t;
}

/* Are the -p/-t targets all gone? pidfds when we have them, else kill(0). */
static bool targets_gone(const int *pidfds, const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++) {
		if (pidfds[i] >= 0) {
			struct pollfd p = { .fd = pidfds[i], .events = POLLIN };

			if (poll(&p, 1, 0) == 1)
				continue;
			return false;
		}
		if (kill(pids[i], 0) == 0 || errno == EPERM)
			return false;
	}
	return n > 0;
}

/*
 * Where -G names are relative to: the cgroup2 mount (on a hybrid system
 * /sys/fs/cgroup/unified), or a v1 hierarchy with the perf_event
 * controller, from /proc/self/mounts.
 */
static int cgroup_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[4096], dev[256], dir[1024], type[64], opts[1024];
	int found = -1;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %1023s %63s %1023s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup2") ||
		    (!strcmp(type, "cgroup") && strstr(opts, "perf_event"))) {
			snprintf(buf, len, "%s", dir);
			found = 0;
			if (!strcmp(type, "cgroup2"))
				break;
		}
	}
	fclose(f);
	return found;
}

/* One run's resources, released together by run_release(). */
struct run {
	struct tally_evlist *l;
	struct tally_workload *wl;
	struct tally_cpu_map *cpus;
	struct tally_thread_map *threads;
	struct tally_evlist_open_opts oo;
	bool system_wide;
	bool on_exec;		/* counters start at the workload's exec */
	int cgfd, wl_pidfd;
	int npids;		/* -p/-t targets watched for their exit */
	pid_t pids[64];
	int pidfds[64];
	/* filled by run_wait() */
	double t0, t1, last;
	int status;
	struct rusage ru;
	long nticks;
	bool timed_out;		/* --timeout sent the command SIGTERM */
};

static void run_release(struct run *r)
{
	if (r->wl_pidfd >= 0)
		close(r->wl_pidfd);
	for (int i = 0; i < r->npids; i++)
		if (r->pidfds[i] >= 0)
			close(r->pidfds[i]);
	if (r->cgfd >= 0)
		close(r->cgfd);
	tally_workload__free(r->wl);
	tally_evlist__free(r->l);
	tally_cpu_map__put(r->cpus);
	tally_thread_map__put(r->threads);
}

/* -G: the cgroup directory fd for PERF_FLAG_PID_CGROUP. 0 or -1. */
static int run_cgroup(const struct stat_config *cfg, struct run *r)
{
	char path[4096], mnt[1024];

	if (cgroup_mount(mnt, sizeof(mnt))) {
		fprintf(stderr, "tally stat: no cgroup v2 (or v1 perf_event) hierarchy is mounted\n");
		return -1;
	}
	if (!strncmp(cfg->cgroup, mnt, strlen(mnt)))
		snprintf(path, sizeof(path), "%s", cfg->cgroup);
	else
		snprintf(path, sizeof(path), "%s/%s", mnt, cfg->cgroup + (cfg->cgroup[0] == '/'));
	r->cgfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->cgfd < 0) {
		fprintf(stderr, "tally stat: cgroup '%s': %s\n", path, strerror(errno));
		return -1;
	}
	r->oo.flags = PERF_FLAG_PID_CGROUP;
	r->oo.cgroup_fd = r->cgfd;
	return 0;
}

/* CPUs and threads to count on; forks the (corked) workload. 0 or -1. */
static int run_targets(struct run_ctx *rc, struct run *r)
{
	const struct stat_config *cfg = rc->cfg;

	if (r->system_wide && cfg->aggr == STAT_AGGR_THREAD) {
		/* every thread: listed below, once the workload is forked */
	} else if (r->system_wide) {
		r->cpus = tally_cpu_map__new(cfg->cpu_list);
		r->threads = tally_thread_map__new_any();
		if (!r->cpus) {
			fprintf(stderr, "tally stat: bad CPU list '%s'\n", cfg->cpu_list);
			return -1;
		}
	} else if (cfg->pids || cfg->tids) {
		const char *list = cfg->pids ? cfg->pids : cfg->tids;

		r->cpus = tally_cpu_map__new_any();
		r->threads = tally_thread_map__new_list(list, cfg->pids != NULL);
		if (!r->threads) {
			if (errno == ESRCH)
				fprintf(stderr, "tally stat: no such process: %s\n", list);
			else
				fprintf(stderr, "tally stat: bad %s list '%s'\n",
					cfg->pids ? "pid" : "tid", list);
			return -1;
		}
	}
	if (cfg->cgroup && run_cgroup(cfg, r))
		return -1;
	if (rc->argv) {
		r->wl = tally_workload__new(rc->argv);
		if (!r->wl) {
			fprintf(stderr, "tally stat: cannot start '%s': %s\n", rc->argv[0],
				strerror(errno));
			return -1;
		}
		if (!r->system_wide) {
			r->cpus = tally_cpu_map__new_any();
			r->threads = tally_thread_map__new_pid(tally_workload__pid(r->wl));
			r->on_exec = cfg->delay_ms == 0;
		}
	}
	if (r->system_wide && cfg->aggr == STAT_AGGR_THREAD) {
		/*
		 * -a --per-thread, as perf: every thread in the system (the
		 * workload's too: it is forked, corked, above) on any CPU
		 * (cpu -1). Threads that exit before the open are skipped
		 * by the library (ESRCH).
		 */
		r->cpus = tally_cpu_map__new_any();
		r->threads = tally_thread_map__new_all();
	}
	if (!r->cpus || !r->threads) {
		fprintf(stderr, "tally stat: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Open the events. 0 or -1 (message printed). */
static int run_open(struct run_ctx *rc, struct run *r)
{
	const struct stat_config *cfg = rc->cfg;
	struct tally_evsel *e;
	int err;

	/*
	 * Inherit, unless per CPU: -a --per-thread counts on cpu -1, and
	 * as perf a thread's later children count into its row.
	 */
	tally_evlist__set_attr_bits(r->l, true, r->on_exec, !cfg->no_inherit &&
				    (!r->system_wide || cfg->aggr == STAT_AGGR_THREAD));
	/*
	 * Counting, not sampling: the parser gives tracepoints sample_period
	 * 1 (for record); an overflow per event would cost the workload
	 * dearly. perf's create_perf_stat_counter clears it too.
	 */
	tally_evlist__for_each_evsel(r->l, e) {
		struct perf_event_attr *a = tally_evsel__attr(e);

		a->sample_period = 0;
		a->freq = 0;
		/*
		 * --all-user/--all-kernel, as the :u/:k modifiers on every
		 * event; not tracepoints (they fire in the kernel: user-only
		 * would count nothing; perf leaves them counting too).
		 */
		if ((cfg->all_user || cfg->all_kernel) && a->type != PERF_TYPE_TRACEPOINT) {
			a->exclude_kernel = cfg->all_user;
			a->exclude_user = cfg->all_kernel;
			a->exclude_hv = 1;
		}
	}
	if (cfg->verbose)
		print_attrs(r->l);
	rc->counted = false;
	if (tally_evlist__nr(r->l) == 0)
		return 0;	/* -n */
	/* The library does perf's fallbacks (paranoid ":u", exclude_guest). */
	err = tally_evlist__open(r->l, r->cpus, r->threads, &r->oo);
	/*
	 * A --filter the kernel refuses is a user error, not an event this
	 * machine lacks: fail as perf does rather than count nothing.
	 */
	tally_evlist__for_each_evsel(r->l, e) {
		int oe = tally_evsel__open_error(e);

		if (tally_evsel__filter(e) && !tally_evsel__is_open(e) && oe == -EINVAL) {
			fprintf(stderr, "failed to set filter \"%s\" on event %s with %d (%s)\n",
				tally_evsel__filter(e), tally_evsel__name(e), -oe, strerror(-oe));
			return -1;
		}
	}
	if (err && !all_unsupported(r->l)) {
		print_open_error(r->l, err);
		return -1;
	}
	rc->counted = !err;
	return 0;
}

/* -p/-t: remember the targets to notice their exit (pidfds, Linux 5.3). */
static void run_watch(const struct stat_config *cfg, struct run *r)
{
	const char *p = cfg->pids ? cfg->pids : cfg->tids;

	while (p && *p && r->npids < (int)(sizeof(r->pids) / sizeof(r->pids[0]))) {
		char *end;

		r->pids[r->npids] = (pid_t)strtol(p, &end, 10);
		/* A pidfd refers to a process; a tid is watched with kill(0). */
		r->pidfds[r->npids] = cfg->pids ? pidfd_open_compat(r->pids[r->npids]) : -1;
		r->npids++;
		p = *end == ',' ? end + 1 : NULL;
	}
}

/*
 * Count until the workload exits, the targets are gone, a signal, the
 * timeout or the interval count; print intervals on the way.
 */
static void run_wait(struct run_ctx *rc, struct run *r, bool enabled, double enable_at)
{
	const struct stat_config *cfg = rc->cfg;
	double next_tick = 0, deadline = 0;
	bool done = false, child_done = false;
	int nsig = 0;

	r->last = r->t0;
	if (cfg->interval_ms)
		next_tick = r->t0 + cfg->interval_ms * 1e6;
	if (cfg->timeout_ms)
		deadline = r->t0 + cfg->timeout_ms * 1e6;
	r->wl_pidfd = r->wl ? pidfd_open_compat(tally_workload__pid(r->wl)) : -1;

	while (!done) {
		double t = now_ns(), wake = INFINITY;
		struct pollfd pf = { .fd = r->wl_pidfd, .events = POLLIN };
		int timeout;

		if (next_tick && next_tick < wake)
			wake = next_tick;
		if (deadline && deadline < wake)
			wake = deadline;
		if (!enabled && enable_at < wake)
			wake = enable_at;
		if ((r->wl && r->wl_pidfd < 0) || r->npids)
			wake = fmin(wake, t + 100e6);	/* poll for exits */
		timeout = isinf(wake) ? -1 : (int)fmax(0, ceil((wake - t) / 1e6));
		/* A signal interrupts the poll (no SA_RESTART). */
		poll(r->wl_pidfd >= 0 ? &pf : NULL, r->wl_pidfd >= 0 ? 1 : 0, timeout);

		if (got_signal) {
			int sig = got_signal;

			got_signal = 0;
			if (r->wl && !child_done)
				/* Like a terminal's Ctrl-C: the workload gets it too. */
				tally_workload__kill(r->wl, ++nsig > 2 ? SIGKILL : sig);
			else
				done = true;
		}
		t = now_ns();
		if (!enabled && t >= enable_at) {
			if (rc->counted)
				tally_evlist__enable(r->l);
			enabled = true;
			r->t0 = r->last = t;
			if (next_tick)
				next_tick = t + cfg->interval_ms * 1e6;
		}
		if (r->wl && !child_done && tally_workload__poll(r->wl, &r->status, &r->ru) == 1)
			child_done = done = true;
		if (r->npids && targets_gone(r->pidfds, r->pids, r->npids))
			done = true;
		if (deadline && t >= deadline) {
			if (r->wl && !child_done) {
				tally_workload__kill(r->wl, SIGTERM);
				r->timed_out = true;
				deadline = 0;
			} else {
				done = true;
			}
		}
		if (next_tick && t >= next_tick && !done) {
			if (rc->counted && enabled)
				print_interval(rc, r->l, r->t0, &r->last);
			next_tick += cfg->interval_ms * 1e6;
			if (next_tick < t)
				next_tick = t + cfg->interval_ms * 1e6;
			if (cfg->interval_count && ++r->nticks >= cfg->interval_count) {
				/*
				 * As perf: no more intervals, but a command
				 * is left to finish and gives the status.
				 */
				next_tick = 0;
				if (!r->wl || child_done)
					done = true;
			}
		}
	}
	if (r->wl && !child_done)
		while (tally_workload__wait(r->wl, &r->status, &r->ru) == -EINTR)
			;
	r->t1 = now_ns();
}

/* --pre/--post: sh -c CMD; 0, or 1 after saying how it failed. */
static int run_hook(const char *opt, const char *cmd)
{
	int st;

	fflush(stdout);
	fflush(stderr);
	st = system(cmd);
	if (st == 0)
		return 0;
	if (st < 0)
		fprintf(stderr, "tally stat: %s '%s': %s\n", opt, cmd, strerror(errno));
	else if (WIFEXITED(st))
		fprintf(stderr, "tally stat: %s '%s' failed (exit %d)\n", opt, cmd, WEXITSTATUS(st));
	else
		fprintf(stderr, "tally stat: %s '%s' failed (%s)\n", opt, cmd,
			WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "?");
	return 1;
}

/*
 * Count once. Returns 0, or an exit status for an error that ends
 * tally (1: bad events or open error; 126/127: the command could not
 * run). rc->exit_code gets the workload's status.
 */
static int run_once(struct run_ctx *rc)
{
	const struct stat_config *cfg = rc->cfg;
	struct run r = {
		.oo = { .sz = sizeof(r.oo), .skip_unsupported = true, .cgroup_fd = -1 },
		.system_wide = cfg->system_wide || cfg->cpu_list,
		.cgfd = -1,
		.wl_pidfd = -1,
	};
	bool enabled = true;
	double enable_at = 0;
	int ret = 1, err;

	r.l = build_evlist(cfg, false);
	if (!r.l)
		return 1;
	if (cfg->pre_cmd && run_hook("--pre", cfg->pre_cmd))
		goto out;
	if (cfg->sync)
		sync();		/* -S, as perf: before each run */
	if (run_targets(rc, &r))
		goto out;
	if (r.system_wide && cfg->aggr == STAT_AGGR_THREAD) {
		rc->grid->skip_zero = rc->interval_grid.skip_zero = true;
		if (r.wl) {
			const char *b = strrchr(rc->argv[0], '/');

			/* the comm exec will give it: the basename, 15 bytes */
			rc->grid->wl_tid = rc->interval_grid.wl_tid = tally_workload__pid(r.wl);
			snprintf(rc->grid->wl_comm, sizeof(rc->grid->wl_comm), "%s",
				 b ? b + 1 : rc->argv[0]);
			memcpy(rc->interval_grid.wl_comm, rc->grid->wl_comm,
			       sizeof(rc->grid->wl_comm));
		}
	}
	if (run_open(rc, &r))
		goto out;
	run_watch(cfg, &r);

	r.t0 = now_ns();
	if (cfg->delay_ms) {
		enabled = false;
		enable_at = r.t0 + cfg->delay_ms * 1e6;
	} else if (!r.on_exec && rc->counted) {
		tally_evlist__enable(r.l);
	}
	if (r.wl) {
		err = tally_workload__start(r.wl);
		if (err) {
			rc->exit_code = tally_workload__exit_code(r.wl);
			rc->exec_failed = true;
			if (err == -ENOENT)
				fprintf(stderr, "tally: command '%s' not found\n", rc->argv[0]);
			else
				fprintf(stderr, "tally: cannot run '%s': %s\n", rc->argv[0],
					strerror(-err));
			ret = rc->exit_code;
			goto out;
		}
	}
	run_wait(rc, &r, enabled, enable_at);
	if (r.npids && targets_gone(r.pidfds, r.pids, r.npids))
		rc->targets_exited = true;

	if (rc->counted) {
		tally_evlist__disable(r.l);
		/* the last, partial interval */
		if (cfg->interval_ms && !(cfg->interval_count && r.nticks >= cfg->interval_count))
			print_interval(rc, r.l, r.t0, &r.last);
		tally_evlist__read(r.l);
		/*
		 * perf's tool events: duration_time is the run's elapsed
		 * time, user_time/system_time the command's rusage.
		 */
		tally_evlist__set_tool_times(r.l, (uint64_t)(r.t1 - r.t0),
			r.wl ? (uint64_t)r.ru.ru_utime.tv_sec * 1000000000ull +
			       (uint64_t)r.ru.ru_utime.tv_usec * 1000ull : 0,
			r.wl ? (uint64_t)r.ru.ru_stime.tv_sec * 1000000000ull +
			       (uint64_t)r.ru.ru_stime.tv_usec * 1000ull : 0);
	}
	/* perf's psignal(): "work: Terminated" when a signal ended it */
	if (r.wl && WIFSIGNALED(r.status))
		fprintf(stderr, "%s: %s\n", rc->argv[0], strsignal(WTERMSIG(r.status)));
	if (cfg->verbose)
		print_verbose_counts(r.l);
	err = grid_fold(rc->grid, r.l, cfg->aggr, rc->topo, false, false);
	if (err) {
		fprintf(stderr, "tally stat: %s\n", strerror(-err));
		goto out;
	}
	if (cfg->post_cmd && run_hook("--post", cfg->post_cmd))
		goto out;
	stat_acc_add(&rc->grid->elapsed, (r.t1 - r.t0) / 1e9);
	if (rc->grid->nrun_s == rc->grid->run_cap) {
		int cap = rc->grid->run_cap ? rc->grid->run_cap * 2 : 8;
		double *n = reallocarray(rc->grid->run_s, (size_t)cap, sizeof(*n));

		if (n) {
			rc->grid->run_s = n;
			rc->grid->run_cap = cap;
		}
	}
	if (rc->grid->nrun_s < rc->grid->run_cap)
		rc->grid->run_s[rc->grid->nrun_s++] = (r.t1 - r.t0) / 1e9;
	if (r.wl && !r.system_wide) {
		rc->grid->rusage = true;
		rc->grid->user_s = r.ru.ru_utime.tv_sec + r.ru.ru_utime.tv_usec / 1e6;
		rc->grid->sys_s = r.ru.ru_stime.tv_sec + r.ru.ru_stime.tv_usec / 1e6;
	}
	rc->exit_code = r.wl ? tally_workload__exit_code(r.wl) : 0;
	/*
	 * A command ended by --timeout's own SIGTERM is counting stopped
	 * as asked, not a failure: status 0, as perf (and as -p/-a).
	 */
	if (r.timed_out && WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGTERM)
		rc->exit_code = 0;
	ret = 0;
out:
	run_release(&r);
	return ret;
}

/* ---- printing the totals ---- */

static char *target_text(const struct stat_config *cfg, char **argv, int argc)
{
	size_t len = 64;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (cfg->pids)
		len += strlen(cfg->pids);
	if (cfg->tids)
		len += strlen(cfg->tids);
	if (cfg->cpu_list)
		len += strlen(cfg->cpu_list);
	s = malloc(len);
	if (!s)
		return NULL;
	if (cfg->system_wide)
		snprintf(s, len, "'system wide'");
	else if (cfg->cpu_list)
		snprintf(s, len, "'CPU(s) %s'", cfg->cpu_list);
	else if (cfg->pids)
		snprintf(s, len, "process id '%s'", cfg->pids);
	else if (cfg->tids)
		snprintf(s, len, "thread id '%s'", cfg->tids);
	else {
		p = s;
		*p++ = '\'';
		for (int i = 0; i < argc; i++)
			p += sprintf(p, "%s%s", i ? " " : "", argv[i]);
		*p++ = '\'';
		*p = '\0';
	}
	return s;
}

static void print_totals(struct run_ctx *rc)
{
	struct stat_out *o = rc->out;
	struct grid *g = rc->grid;
	struct stat_footer f = {
		.runs = (int)g->elapsed.n,	/* fewer than -r after Ctrl-C */
		.elapsed_s = stat_acc_mean(&g->elapsed),
		.elapsed_sd = stat_acc_sem(&g->elapsed),
		.show_rusage = g->rusage && g->elapsed.n == 1,
		.user_s = g->user_s,
		.sys_s = g->sys_s,
		.null_run = rc->cfg->null_run,
		.table = rc->cfg->table ? g->run_s : NULL,
		.ntable = g->nrun_s,
	};

	o->interval = false;
	if (o->format == STAT_FMT_OPENMETRICS) {
		stat_out_om_begin(o);
		grid_print(g, o, rc->cfg->aggr, f.elapsed_s * 1e9, f.runs > 1);
		stat_out_om_end(o, &f);
		return;
	}
	stat_out_header(o, rc->target, f.runs);
	grid_print(g, o, rc->cfg->aggr, f.elapsed_s * 1e9, f.runs > 1);
	stat_out_footer(o, &f);
}

/* ---- --compare ---- */

static void compare_row(FILE *fp, enum stat_format fmt, const char *sep, const char *event,
			const char *unit, const struct stat_acc *a, const struct stat_acc *b,
			bool ok_a, bool ok_b)
{
	struct stat_ratio r = { 0 };
	char esc[512];

	if (ok_a && ok_b)
		stat_ratio_ci(a, b, 0.95, &r);
	switch (fmt) {
	case STAT_FMT_CSV:
		if (!ok_a || !ok_b) {
			fprintf(fp, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n", event, sep, unit, sep,
				ok_a ? "" : "<not counted>", sep, ok_b ? "" : "<not counted>",
				sep, "", sep, "", sep, "", sep, "");
			return;
		}
		fprintf(fp, "%s%s%s%s%f%s%f%s%f%s%f%s%f%s%f%s%s\n", event, sep, unit, sep,
			a->mean, sep, b->mean, sep, r.ratio, sep, r.lo, sep, r.hi, sep,
			r.p, sep, r.valid ? (r.significant ? "yes" : "no") : "unknown");
		return;
	case STAT_FMT_JSON:
		fprintf(fp, "{\"event\" : \"%s\", \"unit\" : \"%s\", ",
			stat_json_escape(event, esc, sizeof(esc)), unit);
		if (!ok_a || !ok_b) {
			fprintf(fp, "\"counted\" : false}\n");
			return;
		}
		fprintf(fp, "\"mean-a\" : %f, \"mean-b\" : %f, \"stddev-a\" : %f, \"stddev-b\" : %f, ",
			a->mean, b->mean, sqrt(stat_acc_var(a)), sqrt(stat_acc_var(b)));
		if (r.valid)
			fprintf(fp, "\"ratio\" : %f, \"ci-low\" : %f, \"ci-high\" : %f, ",
				r.ratio, r.lo, r.hi);
		fprintf(fp, "\"p-value\" : %f, \"significant\" : %s}\n",
			isnan(r.p) ? 1.0 : r.p,
			r.valid && r.significant ? "true" : "false");
		return;
	default:
		break;
	}
	if (!ok_a || !ok_b) {
		fprintf(fp, " %-32s %18s %18s\n", event, ok_a ? "" : "<not counted>",
			ok_b ? "" : "<not counted>");
		return;
	}
	if (unit[0] || a->mean != floor(a->mean) || b->mean != floor(b->mean))
		fprintf(fp, " %-32s %'18.6g %'18.6g", event, a->mean, b->mean);
	else
		fprintf(fp, " %-32s %'18.0f %'18.0f", event, a->mean, b->mean);
	if (r.valid)
		fprintf(fp, " %8.3f  [%7.3f, %7.3f]  %-3s  p=%.3g\n", r.ratio, r.lo, r.hi,
			r.significant ? "yes" : "no", r.p);
	else if (!isnan(r.ratio))
		fprintf(fp, " %8.3f  %-18s  %-3s\n", r.ratio, "[undefined]", "?");
	else
		fprintf(fp, " %8s  %-18s  %-3s\n", "-", "[A is zero]", "?");
}

static void print_compare(const struct stat_config *cfg, FILE *fp, struct grid *ga,
			  struct grid *gb, const char *ta, const char *tb)
{
	const char *sep = cfg->format == STAT_FMT_CSV ? cfg->csv_sep : ",";

	if (cfg->format == STAT_FMT_HUMAN || cfg->format == STAT_FMT_OPENMETRICS) {
		fprintf(fp, "\n Performance counter comparison (%d runs each, alternating):\n",
			cfg->repeat);
		fprintf(fp, "   A: %s\n   B: %s\n\n", ta, tb);
		fprintf(fp, " %-32s %18s %18s %8s  %-18s  %-3s\n", "event", "mean A", "mean B",
			"B/A", "95% CI of B/A", "significant");
	}
	for (int e = 0; e < ga->nev && e < gb->nev; e++) {
		struct cell *a = grid_cell(ga, e, 0), *b = grid_cell(gb, e, 0);
		char name[300];
		struct stat_acc sa = a->val, sb = b->val;
		bool clock = ga->ev[e].kind == STAT_K_CLOCK;

		if (clock) {	/* show msec */
			sa.mean /= 1e6;
			sa.m2 /= 1e12;
			sb.mean /= 1e6;
			sb.m2 /= 1e12;
		}
		if (cfg->format == STAT_FMT_HUMAN && ga->ev[e].unit[0])
			snprintf(name, sizeof(name), "%s (%s)", ga->ev[e].name, ga->ev[e].unit);
		else
			snprintf(name, sizeof(name), "%s", ga->ev[e].name);
		compare_row(fp, cfg->format, sep, name,
			    cfg->format == STAT_FMT_HUMAN ? "" : ga->ev[e].unit, &sa, &sb,
			    ga->nag && a->counted && ga->ev[e].supported,
			    gb->nag && b->counted && gb->ev[e].supported);
	}
	compare_row(fp, cfg->format, sep,
		    cfg->format == STAT_FMT_HUMAN ? "seconds time elapsed" : "time-elapsed",
		    cfg->format == STAT_FMT_HUMAN ? "" : "seconds",
		    &ga->elapsed, &gb->elapsed, true, true);
	if (cfg->format == STAT_FMT_HUMAN || cfg->format == STAT_FMT_OPENMETRICS)
		fprintf(fp, "\n 95%% CI: delta method on the ratio of means, Welch t quantile;\n"
			    " significant: the interval excludes 1 and Welch's p < 0.05.\n\n");
}

/* ---- the command ---- */

/*
 * Does the environment name an LC_NUMERIC other than C/POSIX (whose
 * thousands separator is empty)? Saves loading locale files, a good part
 * of a short run's cost, when it cannot change the output.
 */
static bool user_numeric_locale(void)
{
	const char *v = getenv("LC_ALL");

	if (!v || !*v)
		v = getenv("LC_NUMERIC");
	if (!v || !*v)
		v = getenv("LANG");
	if (!v || !*v)
		return false;
	return strcmp(v, "C") && strcmp(v, "POSIX") && strncmp(v, "C.", 2);
}

static int setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll/wait return EINTR so the loop sees the signal. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	return 0;
}

static FILE *open_output(const struct stat_config *cfg)
{
	FILE *fp;
	time_t t;

	if (cfg->log_fd >= 0) {
		fp = fdopen(cfg->log_fd, cfg->append ? "a" : "w");
		if (!fp)
			fprintf(stderr, "tally stat: --log-fd %d: %s\n", cfg->log_fd,
				strerror(errno));
		return fp;
	}
	if (!cfg->output)
		return stderr;
	fp = fopen(cfg->output, cfg->append ? "ae" : "we");
	if (!fp) {
		fprintf(stderr, "tally stat: cannot open '%s': %s\n", cfg->output, strerror(errno));
		return NULL;
	}
	if (cfg->format != STAT_FMT_OPENMETRICS) {
		t = time(NULL);
		fprintf(fp, "# started on %s\n", ctime(&t));
	}
	return fp;
}

static int stat_compare(struct stat_config *cfg, FILE *fp, struct stat_out *o,
			const struct tally_topology *topo)
{
	struct grid ga = { 0 }, gb = { 0 };
	struct run_ctx ra = { .cfg = cfg, .out = o, .grid = &ga, .topo = topo,
			      .argv = cfg->cmd_argv };
	struct run_ctx rb = { .cfg = cfg, .out = o, .grid = &gb, .topo = topo,
			      .argv = cfg->cmd_b_argv };
	char *ta = target_text(cfg, cfg->cmd_argv, cfg->cmd_argc);
	char *tb = target_text(cfg, cfg->cmd_b_argv, cfg->cmd_b_argc);
	int ret = 0;

	for (int i = 0; i < cfg->repeat && !ret; i++) {
		ret = run_once(&ra);
		if (!ret)
			ret = run_once(&rb);
		if (!ret && interrupted)
			break;
	}
	if (!ret && !cfg->quiet)
		print_compare(cfg, fp, &ga, &gb, ta ? ta : "", tb ? tb : "");
	if (!ret)
		ret = rb.exit_code ? rb.exit_code : ra.exit_code;
	grid_free(&ga);
	grid_free(&gb);
	grid_free(&ra.interval_grid);
	grid_free(&rb.interval_grid);
	free(ta);
	free(tb);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_config cfg = STAT_CONFIG_INIT;
	struct stat_out out = { 0 };
	struct tally_topology *topo = NULL;
	struct grid grid = { 0 };
	struct run_ctx rc = { .cfg = &cfg, .out = &out, .grid = &grid };
	FILE *fp = NULL;
	int ret = 0;

	if (stat_parse_args(&cfg, argc, argv, stderr))
		return 129;
	if (cfg.help) {
		stat_usage(stdout);
		return 0;
	}
	if (cfg.aggr >= STAT_AGGR_CORE) {
		topo = tally_topology__new(NULL);
		if (!topo) {
			fprintf(stderr, "tally stat: cannot read the CPU topology: %s\n",
				strerror(errno));
			return 1;
		}
	}
	fp = open_output(&cfg);
	if (!fp) {
		tally_topology__free(topo);
		return 1;
	}
	/*
	 * Human output only: the user's thousands separator and decimal
	 * point, as perf. CSV, JSON and OpenMetrics stay in the C locale.
	 */
	if (cfg.format == STAT_FMT_HUMAN && cfg.big_num &&
	    user_numeric_locale())
		setlocale(LC_NUMERIC, "");
	if (setup_signals()) {
		ret = 1;
		goto out;
	}
	out = (struct stat_out){
		.fp = fp, .format = cfg.format, .aggr = cfg.aggr, .sep = cfg.csv_sep,
		.big_num = cfg.big_num, .cgroup = cfg.cgroup,
	};
	if (cfg.compare) {
		ret = stat_compare(&cfg, fp, &out, topo);
		goto out;
	}
	rc.topo = topo;
	rc.argv = cfg.cmd_argc ? cfg.cmd_argv : NULL;
	rc.target = target_text(&cfg, cfg.cmd_argv, cfg.cmd_argc);
	for (int i = 0; cfg.repeat == 0 || i < cfg.repeat; i++) {
		ret = run_once(&rc);
		if (ret)
			goto out;
		if (cfg.repeat == 0) {
			/* -r 0, perf's "forever": each run's own totals */
			if (!cfg.quiet && !cfg.interval_ms)
				print_totals(&rc);
			fflush(fp);
			grid_free(&grid);
		}
		if (interrupted || rc.targets_exited)
			break;	/* Ctrl-C or -p's exit during -r: print what we have */
	}
	/* -I prints no totals, unless --summary (not OpenMetrics: one
	 * exposition per interval, the file may have been replaced) */
	if (!cfg.quiet && cfg.repeat != 0 && (!cfg.interval_ms ||
			   (cfg.summary && cfg.format != STAT_FMT_OPENMETRICS))) {
		out.csv_summary = cfg.interval_ms && !cfg.no_csv_summary;
		print_totals(&rc);
	}
	ret = rc.exit_code;
out:
	if (fp && fp != stderr && fclose(fp)) {
		fprintf(stderr, "tally stat: error writing '%s': %s\n",
			cfg.output ? cfg.output : "--log-fd", strerror(errno));
		ret = ret ? ret : 1;
	} else if (fp == stderr) {
		fflush(stderr);
	}
	stat_out_release(&out);
	grid_free(&grid);
	grid_free(&rc.interval_grid);
	free((char *)rc.target);
	tally_topology__free(topo);
	return ret;
}
