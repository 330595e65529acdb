// SPDX-License-Identifier: MIT
/*
 * tally stat, one run: build the event list from the -e specs, pick the
 * targets (the forked workload with enable_on_exec, -p/-t threads, CPUs,
 * a -G cgroup), open, watch -p/-t for their exit, wait (for the workload,
 * the pids, a signal, --timeout, printing every -I interval), run the
 * --pre/--post hooks, read and fold the counts into the caller's grid.
 * The signal flags are the only file-scope state (signal handlers).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include "stat.h"

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
	struct tally_parse_opts stat_popts = { .sz = sizeof(stat_popts), .stat_terms = true };
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
		/* perf stat's term set: sampling terms are "not usable" here */
		err = tally_evlist__add_parsed(l, cfg->events[i].spec, &stat_popts, &pe);
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

static void print_interval(struct stat_run_ctx *rc, struct tally_evlist *l, double t0,
			   double *last)
{
	double t = now_ns();
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
	bool counted;		/* something was opened (not -n, not all unsupported) */
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
static int run_targets(struct stat_run_ctx *rc, struct run *r)
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
static int run_open(struct stat_run_ctx *rc, struct run *r)
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
	r->counted = !err;
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
static void run_wait(struct stat_run_ctx *rc, struct run *r, bool enabled, double enable_at)
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
			if (r->counted)
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
			if (r->counted && enabled)
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
int stat_run_once(struct stat_run_ctx *rc)
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
	} else if (!r.on_exec && r.counted) {
		tally_evlist__enable(r.l);
	}
	if (r.wl) {
		err = tally_workload__start(r.wl);
		if (err) {
			rc->exit_code = tally_workload__exit_code(r.wl);
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

	if (r.counted) {
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
	err = stat_grid_fold(rc->grid, r.l, cfg->aggr, rc->topo, false, false);
	if (err) {
		fprintf(stderr, "tally stat: %s\n", strerror(-err));
		goto out;
	}
	if (cfg->post_cmd && run_hook("--post", cfg->post_cmd))
		goto out;
	stat_grid_add_run(rc->grid, (r.t1 - r.t0) / 1e9, r.wl && !r.system_wide ? &r.ru : NULL);
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

/* The header's target: "'cmd args'", "'system wide'", "process id '1'"... */
char *stat_target_text(const struct stat_config *cfg, char **argv, int argc)
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

/* SIGINT, SIGTERM, SIGHUP end the wait (and -r); see stat_interrupted(). */
int stat_signals_setup(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll/wait return EINTR so the loop sees the signal. */
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGHUP, &sa, NULL))
		return -errno;
	return 0;
}

/* A signal came: no more -r runs (or --compare rounds). */
bool stat_interrupted(void)
{
	return interrupted;
}
