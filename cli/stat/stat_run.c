// SPDX-License-Identifier: MIT
/*
 * tally stat, one run: build the event list from the -e specs (or the
 * default set), set up the targets (target.c: the forked workload with
 * enable_on_exec, -p/-t threads, CPUs, a -G cgroup), open, watch -p/-t
 * for their exit, wait (wait.c: the workload, the pids, a signal,
 * --timeout, printing every -I interval), run the --pre/--post hooks,
 * read and fold the counts into the caller's grid. No file-scope state.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cgroups.h"
#include "event_opts.h"
#include "stat.h"
#include "target.h"
#include "wait.h"

#define DEFAULT_EVENTS "task-clock,context-switches,cpu-migrations,page-faults," \
		       "cycles,instructions,branches,branch-misses"
/* perf 6.1 counts CPU time system-wide with cpu-clock */
#define DEFAULT_EVENTS_SYSTEM "cpu-clock,context-switches,cpu-migrations,page-faults," \
			      "cycles,instructions,branches,branch-misses"
/* perf 6.1's -d, -dd, -ddd additions to the default set (no -e). */
static const char *const detailed_events[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	("L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
	 "iTLB-loads,iTLB-load-misses"),
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static struct tally_evsel *evsel_at(struct tally_evlist *l, int i)
{
	struct tally_evsel *e = tally_evlist__first(l);

	while (e && i--)
		e = tally_evlist__next(l, e);
	return e;
}

/*
 * The -e specs (or the default set, and -d's). 0, or said why and
 * cli_events_add()'s error (CLI_EVENTS_USAGE: a bad -e).
 */
static int add_events(const struct stat_config *cfg, struct tally_evlist *l, int *nbefore)
{
	int err;

	for (int i = 0; i < cfg->events.nr; i++) {
		err = cli_events_add(l, cfg->events.v[i].spec, cfg->events.v[i].filter, "stat");
		if (err)
			return err;
		for (int k = 0; nbefore && k < cfg->cg.nr; k++)
			if (cfg->cg.v[k].after == i + 1)
				nbefore[k] = tally_evlist__nr(l);
	}
	/*
	 * The default set when no -e; perf's -d levels are appended to
	 * whatever there is (perf does so after -e events too).
	 */
	for (int i = cfg->events.nr ? 0 : -1; i < cfg->detailed && i < 3; i++)
		if (cli_events_add(l, i >= 0 ? detailed_events[i] :
				   cli_target_system_wide(&cfg->target) ? DEFAULT_EVENTS_SYSTEM :
				   DEFAULT_EVENTS, NULL, "stat"))
			return -1;
	return 0;
}

/*
 * The events of -e (or the default set), grouped by -g, with their
 * cgroups. --for-each-cgroup: all of them once per cgroup, cgroup by
 * cgroup (perf's order). NULL: said why, *status the exit status (129
 * for a bad -e, as perf's usage errors; 1 otherwise).
 */
static struct tally_evlist *build_evlist(const struct stat_config *cfg, struct cg_fds *c,
					 int *status)
{
	struct tally_evlist *l = tally_evlist__new();
	int nbefore[sizeof(cfg->cg.v) / sizeof(cfg->cg.v[0])] = { 0 };
	int err = 0;

	if (!l) {
		fprintf(stderr, "tally stat: %s\n", strerror(errno));
		return NULL;
	}
	if (cfg->null_run)
		return l;
	if (cfg->for_each_cgroup) {
		const char *s = cfg->for_each_cgroup;

		for (;;) {
			const char *comma = strchr(s, ',');
			size_t len = comma ? (size_t)(comma - s) : strlen(s);
			int from = tally_evlist__nr(l);

			if (len) {
				err = add_events(cfg, l, NULL);
				if (err)
					goto err;
				for (int i = from; i < tally_evlist__nr(l); i++)
					if (cg_fds_set("stat", c, evsel_at(l, i), s, len))
						goto err;
				/* -g: a group in each cgroup (a group is counted in one) */
				if (cfg->group && tally_evlist__nr(l) - from > 1 &&
				    tally_evlist__set_group(l, evsel_at(l, from),
							    tally_evlist__nr(l) - from)) {
					fprintf(stderr, "tally stat: -g: %s\n",
						"the events already form groups ({...})");
					goto err;
				}
			}
			if (!comma)
				break;
			s = comma + 1;
		}
	} else {
		err = add_events(cfg, l, nbefore);
		if (err)
			goto err;
		if (cfg->target.cgroup_per_event && cli_cgroups_assign("stat", &cfg->cg, l, nbefore, c))
			goto err;
	}
	if (cfg->group && !cfg->for_each_cgroup && cli_events_group_all(l, "stat"))
		goto err;
	return l;
err:
	*status = err == CLI_EVENTS_USAGE ? 129 : 1;
	tally_evlist__free(l);
	return NULL;
}

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

static void print_interval(struct stat_run_ctx *rc, struct tally_evlist *l, double t0,
			   double *last)
{
	double t = cli_now_ns();
	struct stat_out *o = rc->out;

	tally_evlist__read(l);
	/* tool events: the time so far (user/system time: at the end) */
	tally_evlist__set_tool_times(l, (uint64_t)(t - t0), 0, 0);
	if (stat_grid_fold(&rc->interval_grid, l, rc->cfg->aggr, rc->topo, true, true))
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
	stat_grid_print(&rc->interval_grid, o, rc->cfg->aggr, t - *last, false);
	if (o->format == STAT_FMT_OPENMETRICS && rc->cfg->output && !rc->cfg->append)
		om_replace_file(o, rc->cfg->output);
	else if (o->format == STAT_FMT_OPENMETRICS)
		stat_out_om_end(o, NULL);
	fflush(o->fp);
out:
	*last = t;
}

/* One run's resources, released together by run_release(). */
struct run {
	struct tally_evlist *l;
	struct cli_targets ts;
	struct tally_evlist_open_opts oo;
	bool on_exec;		/* counters start at the workload's exec */
	bool counted;		/* something was opened (not -n, not all unsupported) */
	double last;		/* the last -I print */
	struct cli_wait w;
	struct stat_run_ctx *rc;
	struct cg_fds cg;	/* the events' own cgroups */
	struct pollfd ctl_pfd;	/* --control's channel */
};

static void run_release(struct run *r)
{
	cli_targets__release(&r->ts);
	tally_evlist__free(r->l);
	cg_fds_close(&r->cg);
}

/* Open the events. 0 or -1 (message printed). */
static int run_open(struct stat_run_ctx *rc, struct run *r)
{
	const struct stat_config *cfg = rc->cfg;
	struct tally_evsel *e;
	int err;

	/*
	 * Inherit, unless per CPU: -a --per-thread counts on cpu -1, and
	 * as perf a thread's later children count into its row.
	 */
	tally_evlist__set_attr_bits(r->l, true, r->on_exec, !cfg->target.no_inherit &&
				    (!r->ts.system_wide || cfg->aggr == STAT_AGGR_THREAD));
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
	if (tally_evlist__nr(r->l) == 0)
		return 0;	/* -n */
	/* The library does perf's fallbacks (paranoid ":u", exclude_guest). */
	err = tally_evlist__open(r->l, r->ts.cpus, r->ts.threads, &r->oo);
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
		cli_print_open_error("stat", r->l, err, &rc->cfg->target);
		return -1;
	}
	r->counted = !err;
	return 0;
}

/* cli_wait's callbacks: -D's end, and each -I interval. */
static void run_on_enable(void *arg, double now)
{
	struct run *r = arg;

	if (r->counted)
		tally_evlist__enable(r->l);
	r->last = now;
}

/* --control's commands: perf's words on stderr as the counting turns on and off */
static void run_on_ctl_cmd(void *arg, enum cli_ctl_cmd cmd)
{
	struct run *r = arg;

	if (cmd == CLI_CTL_ENABLE || cmd == CLI_CTL_DISABLE) {
		if (r->counted) {
			if (cmd == CLI_CTL_ENABLE)
				tally_evlist__enable(r->l);
			else
				tally_evlist__disable(r->l);
		}
		fprintf(stderr, cmd == CLI_CTL_ENABLE ? "Events enabled\n" : "Events disabled\n");
	} else if (cmd == CLI_CTL_STOP && r->counted) {
		tally_evlist__disable(r->l);
	}
}

static int run_on_ctl(void *arg, struct pollfd *fds, int nfds)
{
	struct run *r = arg;
	struct cli_control *c = r->rc->ctl;
	int stop = cli_control_read(c, run_on_ctl_cmd, r);

	(void)nfds;
	if (c->closed)
		fds[0].fd = -1;	/* its writers gone: not polled again */
	return stop == CLI_CTL_STOP;
}

static void run_on_tick(void *arg, double now)
{
	struct run *r = arg;

	if (r->counted)
		print_interval(r->rc, r->l, r->w.t0, &r->last);
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
 * tally (129: a bad -e; 1: an open error; 126/127: the command could
 * not run). rc->exit_code gets the workload's status.
 */
int stat_run_once(struct stat_run_ctx *rc)
{
	const struct stat_config *cfg = rc->cfg;
	const struct cli_target *t = &cfg->target;
	struct run r = {
		.oo = { .sz = sizeof(r.oo), .skip_unsupported = true, .cgroup_fd = -1 },
		.ts = CLI_TARGETS_INIT("stat"),
		.rc = rc,
	};
	struct cli_wait *w = &r.w;
	struct tally_workload *wl;
	int ret = 1, err;

	r.l = build_evlist(cfg, &r.cg, &ret);
	if (!r.l)
		return ret;
	if (cfg->pre_cmd && run_hook("--pre", cfg->pre_cmd))
		goto out;
	if (cfg->sync)
		sync();		/* -S, as perf: before each run */
	if (cli_targets__open(&r.ts, t, rc->argv,
			      cfg->aggr == STAT_AGGR_THREAD ? CLI_TARGET_ALL_THREADS : 0))
		goto out;
	wl = r.ts.wl;
	if (r.ts.cgroup_fd >= 0) {
		r.oo.flags = PERF_FLAG_PID_CGROUP;
		r.oo.cgroup_fd = r.ts.cgroup_fd;
	}
	r.on_exec = wl && r.ts.wl_is_target && cfg->delay_ms == 0;
	if (rc->ctl)
		r.ctl_pfd = (struct pollfd){ .fd = rc->ctl->ctl_fd, .events = POLLIN };
	if (r.ts.system_wide && cfg->aggr == STAT_AGGR_THREAD) {
		rc->grid->skip_zero = rc->interval_grid.skip_zero = true;
		if (wl) {
			const char *b = strrchr(rc->argv[0], '/');

			/* the comm exec will give it: the basename, 15 bytes */
			rc->grid->wl_tid = rc->interval_grid.wl_tid = tally_workload__pid(wl);
			snprintf(rc->grid->wl_comm, sizeof(rc->grid->wl_comm), "%s",
				 b ? b + 1 : rc->argv[0]);
			memcpy(rc->interval_grid.wl_comm, rc->grid->wl_comm,
			       sizeof(rc->grid->wl_comm));
		}
	}
	if (run_open(rc, &r))
		goto out;
	cli_targets__watch(&r.ts, t);

	*w = (struct cli_wait){
		.ts = &r.ts,
		.t0 = cli_now_ns(),
		.interval_ms = cfg->interval_ms,
		.interval_count = cfg->interval_count,
		.timeout_ms = cfg->timeout_ms,
		.arg = &r,
		.on_enable = run_on_enable,
		.on_tick = run_on_tick,
	};
	r.last = w->t0;
	if (rc->ctl) {
		w->fds = &r.ctl_pfd;
		w->nfds = 1;
		w->on_fds = run_on_ctl;
	}
	/* -D -1: off until --control enables, as perf says */
	if (cfg->delay_ms < 0)
		fprintf(stderr, "Events disabled\n");
	else if (cfg->delay_ms)
		w->enable_at = w->t0 + cfg->delay_ms * 1e6;
	else if (!r.on_exec && r.counted)
		tally_evlist__enable(r.l);
	err = cli_targets__start(&r.ts);
	if (err) {
		rc->exit_code = ret = err;
		goto out;
	}
	err = cli_wait(w);
	if (err) {
		fprintf(stderr, "tally stat: %s\n", strerror(-err));
		goto out;
	}
	if (cli_targets__gone(&r.ts))
		rc->targets_exited = true;

	if (r.counted) {
		tally_evlist__disable(r.l);
		/* the last, partial interval */
		if (cfg->interval_ms && !(cfg->interval_count && w->nticks >= cfg->interval_count))
			print_interval(rc, r.l, w->t0, &r.last);
		tally_evlist__read(r.l);
		/*
		 * perf's tool events: duration_time is the run's elapsed
		 * time, user_time/system_time the command's rusage.
		 */
		tally_evlist__set_tool_times(r.l, (uint64_t)(w->t1 - w->t0),
			wl ? (uint64_t)w->ru.ru_utime.tv_sec * 1000000000ull +
			     (uint64_t)w->ru.ru_utime.tv_usec * 1000ull : 0,
			wl ? (uint64_t)w->ru.ru_stime.tv_sec * 1000000000ull +
			     (uint64_t)w->ru.ru_stime.tv_usec * 1000ull : 0);
	}
	/* perf's psignal(): "work: Terminated" when a signal ended it */
	if (wl && WIFSIGNALED(w->status))
		fprintf(stderr, "%s: %s\n", rc->argv[0], strsignal(WTERMSIG(w->status)));
	if (cfg->verbose)
		print_verbose_counts(r.l);
	err = stat_grid_fold(rc->grid, r.l, cfg->aggr, rc->topo, false, false);
	if (err) {
		fprintf(stderr, "tally stat: %s\n", strerror(-err));
		goto out;
	}
	if (cfg->post_cmd && run_hook("--post", cfg->post_cmd))
		goto out;
	stat_grid_add_run(rc->grid, (w->t1 - w->t0) / 1e9,
			  r.ts.wl_is_target ? &w->ru : NULL);
	rc->exit_code = wl ? tally_workload__exit_code(wl) : 0;
	/*
	 * A command ended by --timeout's own SIGTERM is counting stopped
	 * as asked, not a failure: status 0, as perf (and as -p/-a).
	 */
	if (w->timed_out && WIFSIGNALED(w->status) && WTERMSIG(w->status) == SIGTERM)
		rc->exit_code = 0;
	ret = 0;
out:
	run_release(&r);
	return ret;
}

/* The header's target: "'cmd args'", "'system wide'", "process id '1'"... */
char *stat_target_text(const struct stat_config *cfg, char **argv, int argc)
{
	size_t len = 64;
	char *s, *p;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	if (cfg->target.pids)
		len += strlen(cfg->target.pids);
	if (cfg->target.tids)
		len += strlen(cfg->target.tids);
	if (cfg->target.cpu_list)
		len += strlen(cfg->target.cpu_list);
	s = malloc(len);
	if (!s)
		return NULL;
	if (cfg->target.system_wide)
		snprintf(s, len, "'system wide'");
	else if (cfg->target.cpu_list)
		snprintf(s, len, "'CPU(s) %s'", cfg->target.cpu_list);
	else if (cfg->target.pids)
		snprintf(s, len, "process id '%s'", cfg->target.pids);
	else if (cfg->target.tids)
		snprintf(s, len, "thread id '%s'", cfg->target.tids);
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
