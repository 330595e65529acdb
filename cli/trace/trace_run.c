// SPDX-License-Identifier: MIT
/*
 * tally trace, live: raw_syscalls:sys_enter/sys_exit sampled on every hit
 * (an ftrace filter keeps only the -e syscalls), the rings drained by the
 * library's session, which puts their records in time order (a thread
 * moves between CPUs, so between rings), then each record through the
 * library's pairing state machine and out as perf trace 6.1 prints it.
 * Comms come from COMM records.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include <tally/syscalls.h>
#include <tally/syscall_trace.h>
#include <tally/syscall_strings.h>
#include "event_opts.h"
#include "trace.h"
#include "trace_out.h"
#include "wait.h"

static const char progname[] = "tally trace";

/* An event of the list: how its records are read and what they are. */
struct lev {
	struct tally_evsel *e;
	enum trace_kind kind;
	const char *filter;		/* --filter's, or NULL */
};

struct live {
	struct trace_out o;
	struct cli_targets ts;
	struct tally_evlist *l;
	struct tally_session *ss;	/* the rings' records in time order */
	struct lev *lev;		/* per event, in the session's attr order */
	int nlev;
	int err;
};

/* -------------------------------------------------------------------- */
/* the records, in time order */

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct live *lv = ctx;
	const struct lev *ev = smp->attr < lv->nlev ? &lv->lev[smp->attr] : NULL;
	struct tally_record r = {
		.type = PERF_RECORD_SAMPLE, .misc = smp->header->misc, .size = smp->header->size,
		.u.sample = *smp->sample,
	};

	(void)ss;
	if (!ev)
		return 0;
	if (ev->kind == TRACE_EVENT)
		trace_out__event(&lv->o, &r, tally_evsel__name(ev->e));
	else if (ev->kind == TRACE_FAULT_MAJ || ev->kind == TRACE_FAULT_MIN)
		trace_out__fault(&lv->o, &r, ev->kind == TRACE_FAULT_MAJ);
	else
		trace_out__record(&lv->o, &r, ev->kind);
	return 0;
}

/* The side-band: names, children, exits, maps, and losses where they happened (as perf). */
static int on_other(struct tally_session *ss, const struct perf_event_header *h,
		    const struct tally_record *r, void *ctx)
{
	struct live *lv = ctx;

	(void)ss;
	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_LOST ||
	    h->type == PERF_RECORD_EXIT || h->type == PERF_RECORD_FORK ||
	    h->type == PERF_RECORD_MMAP2)
		trace_out__record(&lv->o, r, TRACE_OTHER);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int drain(struct live *lv, bool all)
{
	/*
	 * A record stamped before `now` is in its ring by the time we read
	 * it, give or take the time between its stamp and its write: on a
	 * loaded VM a vCPU the host holds there can take milliseconds (a
	 * COMM and the tracepoint after it crossed with a 1 ms margin), so
	 * 10 ms, still no wait a reader sees (perf trace keeps a second).
	 */
	uint64_t now = mono_ns() - 10000000;
	int err;

	if (lv->err && !all)
		return lv->err;		/* at the end, what was queued is still shown */
	/* the strings first: a call's string is in its ring before the call is in ours */
	if (lv->o.strs)
		tally_sc_strings__read(lv->o.strs);
	/* the end: every ring's last records, then all that is queued */
	if (all)
		err = tally_session__run(lv->ss);
	else if (!(err = tally_session__poll(lv->ss, 0)))
		err = tally_session__flush(lv->ss, now);
	if (err < 0 && !lv->err)
		lv->err = err;
	return lv->err;
}

/* Lines that come slowly (a ring not yet at its wake-up mark) are shown within the tick. */
static void on_tick(void *arg, double now)
{
	(void)now;
	drain(arg, false);
}

static int on_fds(void *arg, struct pollfd *fds, int nfds)
{
	struct live *lv = arg;
	int err = drain(lv, false);

	(void)nfds;
	if (!err && (fds[0].revents & (POLLIN | POLLHUP)))
		tally_evlist__prune_hup(lv->l);
	return err;
}

/* -------------------------------------------------------------------- */
/* the events */

/* An ftrace filter on the syscall id for -e, "" when every syscall is wanted. */
static char *id_filter(const bool *sel, pid_t self)
{
	size_t cap = 64 + TALLY_SYSCALL_MAX * 16, n = 0;
	char *f = malloc(cap);
	int on = 0, known = 0;
	bool neg;

	if (!f)
		return NULL;
	f[0] = '\0';
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		if (tally_syscall__name(i)) {
			known++;
			on += sel[i];
		}
	/* the shorter of "id == a || id == b" and "id != c && id != d" */
	neg = on > known / 2;
	if (on < known) {
		n += (size_t)snprintf(f + n, cap - n, "(");
		for (int i = 0, k = 0; i < TALLY_SYSCALL_MAX; i++) {
			if (!tally_syscall__name(i) || sel[i] == neg)
				continue;
			n += (size_t)snprintf(f + n, cap - n, "%sid %s %d", k++ ? (neg ? " && " : " || ") : "",
					      neg ? "!=" : "==", i);
		}
		/* rt_sigreturn's exit says -1 (the registers it restored): with it, or not */
		if (on && neg != sel[tally_syscall__nr("rt_sigreturn")])
			n += (size_t)snprintf(f + n, cap - n, neg ? " && id != -1" : " || id == -1");
		if (!on)
			n += (size_t)snprintf(f + n, cap - n, "id == -1");
		n += (size_t)snprintf(f + n, cap - n, ")");
	}
	if (self > 0)
		snprintf(f + n, cap - n, "%scommon_pid != %d", n ? " && " : "", (int)self);
	return f;
}

/* The items of one -e that are no syscall: tracepoints and other events, as perf. */
struct others {
	char *list;		/* "a,b", or NULL */
	size_t len;
	const char *filter;	/* the --filter after that -e, or NULL */
};

static int add_other(void *priv, const char *item)
{
	struct others *ot = priv;
	struct tally_parse_opts po = { .sz = sizeof(po) };
	struct tally_events evs = { 0 };
	char *n;

	/* no "sys:name" and no event either: a mistyped syscall, said as one */
	if (!strchr(item, ':')) {
		if (tally_parse_events(item, &po, &evs, NULL))
			return -ENOENT;
		tally_events__clear(&evs);
	}
	n = realloc(ot->list, ot->len + strlen(item) + 2);
	if (!n)
		return -ENOMEM;
	ot->list = n;
	ot->len += (size_t)sprintf(n + ot->len, "%s%s", ot->len ? "," : "", item);
	return 0;
}

/* Every event of l from `from` on (NULL: all) read as kind. 0, -ENOMEM. */
static int note_events(struct live *lv, struct tally_evsel *from, enum trace_kind kind)
{
	struct tally_evsel *e = from;

	for (; e; e = tally_evlist__next(lv->l, e)) {
		struct lev *n = realloc(lv->lev, (size_t)(lv->nlev + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		lv->lev = n;
		lv->lev[lv->nlev++] = (struct lev){ .e = e, .kind = kind };
	}
	return 0;
}

/*
 * One -e's events, with the --filter after it on each (as perf's, on
 * every event of the last -e, each a tracepoint). 0, or as cli_events_add.
 */
static int add_others(struct live *lv, const struct others *ot)
{
	struct tally_evsel *last = tally_evlist__last(lv->l), *e;
	int err = cli_events_add(lv->l, ot->list, NULL, "trace");

	if (err)
		return err;
	e = last ? tally_evlist__next(lv->l, last) : tally_evlist__first(lv->l);
	if ((err = note_events(lv, e, TRACE_EVENT)))
		return err;
	for (int i = lv->nlev - 1; ot->filter && i >= 0 && lv->lev[i].e != last; i--) {
		if (tally_evsel__attr(lv->lev[i].e)->type != PERF_TYPE_TRACEPOINT) {
			fprintf(stderr, "%s: --filter '%s' must follow a tracepoint event (%s is none)\n",
				progname, ot->filter, tally_evsel__name(lv->lev[i].e));
			return CLI_EVENTS_USAGE;
		}
		lv->lev[i].filter = ot->filter;
		if ((err = tally_evsel__set_filter(lv->lev[i].e, ot->filter))) {
			fprintf(stderr, "%s: --filter '%s': %s\n", progname, ot->filter,
				strerror(-err));
			return -1;
		}
	}
	return 0;
}

static int open_events(struct live *lv, const struct trace_config *cfg, const bool *sel,
		       const struct others *ots, int nots)
{
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .cgroup_fd = -1 };
	struct tally_config_opts co = {
		.sz = sizeof(co),
		.sample = true,
		.period = 1,
		.system_wide = lv->ts.system_wide,
		.no_inherit = cfg->target.no_inherit,
		.enable_on_exec = lv->ts.wl && lv->ts.wl_is_target,
		.no_sideband = true,
		.use_clockid = true,
		.clockid = CLOCK_MONOTONIC,
		/*
		 * tracepoints have it: every event's then, so that the side-band's
		 * trailers read alike whichever event wrote them
		 */
		.sample_type = PERF_SAMPLE_CPU,
	};
	/* system-wide, tally's own calls would feed themselves */
	char *filter = id_filter(sel, lv->ts.system_wide ? getpid() : 0);
	struct tally_evsel *last;
	struct perf_event_attr *a;
	int err = 0;

	lv->l = tally_evlist__new();
	if (!lv->l || !filter) {
		free(filter);
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		return -1;
	}
	if (lv->o.trace_syscalls) {
		err = cli_events_add(lv->l, "raw_syscalls:sys_enter", filter[0] ? filter : NULL,
				     "trace");
		if (!err)
			err = cli_events_add(lv->l, "raw_syscalls:sys_exit",
					     filter[0] ? filter : NULL, "trace");
		if (!err)
			err = note_events(lv, tally_evlist__first(lv->l), TRACE_ENTER);
		if (!err)
			lv->lev[1].kind = TRACE_EXIT;
	}
	free(filter);
	for (int k = 0; !err && k < nots; k++)
		if (ots[k].list)
			err = add_others(lv, &ots[k]);
	/* --pf: the software fault events, sampling each with its address */
	for (int k = 0; !err && k < 2; k++) {
		if (!(cfg->pf & (k ? TRACE_PF_MIN : TRACE_PF_MAJ)))
			continue;
		last = tally_evlist__last(lv->l);
		err = cli_events_add(lv->l, k ? "minor-faults" : "major-faults", NULL, "trace");
		if (!err)
			err = note_events(lv, last ? tally_evlist__next(lv->l, last) :
					  tally_evlist__first(lv->l), k ? TRACE_FAULT_MIN : TRACE_FAULT_MAJ);
		co.sample_type |= PERF_SAMPLE_ADDR;
	}
	if (err)
		return err == CLI_EVENTS_USAGE ? 129 : -1;
	/* system-wide, tally's own tracepoint hits would feed themselves, as perf's */
	for (int i = 0; lv->ts.system_wide && i < lv->nlev; i++) {
		char own[4200];

		if (lv->lev[i].kind != TRACE_EVENT ||
		    tally_evsel__attr(lv->lev[i].e)->type != PERF_TYPE_TRACEPOINT)
			continue;
		if (lv->lev[i].filter)	/* the user's, and ours */
			snprintf(own, sizeof(own), "(%s) && common_pid != %d", lv->lev[i].filter,
				 (int)getpid());
		else
			snprintf(own, sizeof(own), "common_pid != %d", (int)getpid());
		if ((err = tally_evsel__set_filter(lv->lev[i].e, own))) {
			fprintf(stderr, "%s: %s: %s\n", progname, tally_evsel__name(lv->lev[i].e),
				strerror(-err));
			return -1;
		}
	}
	if ((err = tally_evlist__config(lv->l, &co))) {
		fprintf(stderr, "%s: cannot configure the events: %s\n", progname, strerror(-err));
		return -1;
	}
	/* comms and exits on the first event; the maps only for --pf, on its event */
	a = tally_evsel__attr(lv->lev[0].e);
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	for (int i = 0; i < lv->nlev; i++) {
		/* where faults land: every map, data ones too, once (on the first fault event) */
		if ((lv->lev[i].kind == TRACE_FAULT_MAJ || lv->lev[i].kind == TRACE_FAULT_MIN) &&
		    (i == 0 || (lv->lev[i - 1].kind != TRACE_FAULT_MAJ))) {
			tally_evsel__attr(lv->lev[i].e)->mmap2 = 1;
			tally_evsel__attr(lv->lev[i].e)->mmap_data = 1;
		}
		/*
		 * a tracepoint that counts more than one a hit (sched_stat_runtime's
		 * runtime) would give a sample per unit: with the period in it, one
		 */
		if (lv->lev[i].kind == TRACE_EVENT)
			tally_evsel__attr(lv->lev[i].e)->sample_type |= PERF_SAMPLE_PERIOD;
		tally_evsel__attr(lv->lev[i].e)->sample_id_all = 1;
	}
	if ((err = trace_out__formats(&lv->o, lv->l)))
		return -1;
	err = tally_evlist__open(lv->l, lv->ts.cpus, lv->ts.threads, &oo);
	if (err) {
		cli_print_open_error("trace", lv->l, err, &cfg->target);
		return -1;
	}
	return 0;
}

/* The session over the rings: their records to on_sample and on_other, in time order. */
static int open_session(struct live *lv)
{
	/* no addresses resolved: no unwinding, names or kallsyms read ahead */
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .record = on_other, .ctx = lv,
		   .no_unwind = true, .no_inline = true, .no_comm = true, .no_preload = true);

	lv->ss = tally_session__open_evlist(lv->l, &so);
	if (!lv->ss) {
		fprintf(stderr, "%s: %s\n", progname, strerror(errno));
		return -1;
	}
	/* the session's attrs are the list's events, in order, as lev */
	if (tally_session__nr_events(lv->ss) != lv->nlev) {
		fprintf(stderr, "%s: %s\n", progname, strerror(EINVAL));
		return -1;
	}
	return 0;
}

/* An inherited event is mapped per CPU only: follow the threads on every CPU, as record. */
static int cpus_for_threads(struct live *lv)
{
	if (lv->ts.system_wide)
		return 0;
	tally_cpu_map__put(lv->ts.cpus);
	lv->ts.cpus = tally_cpu_map__new_online();
	if (!lv->ts.cpus) {
		fprintf(stderr, "%s: online CPUs: %s\n", progname, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The comms of the threads that exist now, as perf synthesizes them: the
 * calls are read at the end with -s, when short-lived tasks are gone
 * from /proc; the new ones come with COMM records.
 */
static void know_threads(struct live *lv)
{
	struct tally_thread_map *m = lv->ts.threads;

	if (lv->ts.system_wide)
		m = tally_thread_map__new_all();
	else if (lv->ts.wl && lv->ts.wl_is_target)
		return;
	for (int i = 0; m && i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) > 0)
			trace_out__thread(&lv->o, tally_thread_map__pid(m, i),
					  tally_thread_map__comm(m, i));
	if (m != lv->ts.threads)
		tally_thread_map__put(m);
}

/*
 * The fd tables of the targets as they are now, once their calls are
 * traced (a file opened meanwhile is in both, one closed in neither):
 * the workload's, still corked (what tally left it, its exec closes the
 * close-on-exec ones), or -p/-t's. Not -a's: its fds are those it is
 * seen to open.
 */
static void seed_fds(struct live *lv)
{
	struct tally_thread_map *m = lv->ts.threads;

	if (lv->ts.wl && lv->ts.wl_is_target) {
		trace_out__seed_fds(&lv->o, tally_workload__pid(lv->ts.wl));
		return;
	}
	for (int i = 0; !lv->ts.system_wide && m && i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) > 0)
			trace_out__seed_fds(&lv->o, tally_thread_map__pid(m, i));
}

/* --pf: the processes there are now, so that a fault lands in their maps */
static int seed_faults(struct live *lv)
{
	struct tally_thread_map *m = lv->ts.threads;
	int *pids, n = 0, err;

	if (lv->ts.wl && lv->ts.wl_is_target)
		return trace_out__faults(&lv->o, NULL, -1);	/* its exec maps it all */
	if (lv->ts.system_wide)
		return trace_out__faults(&lv->o, NULL, 0);
	pids = calloc((size_t)tally_thread_map__nr(m) + 1, sizeof(*pids));
	if (!pids)
		return trace_out__faults(&lv->o, NULL, -1);
	for (int i = 0; i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) > 0)
			pids[n++] = tally_thread_map__pid(m, i);
	err = trace_out__faults(&lv->o, pids, n);
	free(pids);
	return err;
}

/*
 * The path strings, through BPF: where it cannot be had, pointers as
 * perf shows them, and why, once.
 */
static void open_strings(struct live *lv, const struct trace_config *cfg, const bool *sel)
{
	uint32_t masks[TALLY_SYSCALL_MAX];
	char why[256];
	bool any = false;

	if (lv->o.summary_only)
		return;
	trace_out__string_masks(&lv->o, sel, masks);
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++) {
		/* --no-strings: pointers, as perf, but the opens' paths for the fd tables */
		if (cfg->no_strings && !trace_out__fd_paths(&lv->o, i))
			masks[i] = 0;
		any |= masks[i] != 0;
	}
	if (!any)
		return;
	lv->o.strs = tally_sc_strings__open(masks, TALLY_SYSCALL_MAX, getpid(), why, sizeof(why));
	if (!lv->o.strs && !cfg->no_strings)
		fprintf(stderr, "%s: path arguments shown as pointers: %s\n", progname, why);
}

/*
 * The syscalls come from raw_syscalls' tracepoints, which the user did
 * not name: when tracefs will not let them be read, say that and what
 * to do, as perf does, not an error in an event spec nobody typed.
 * 0, or 1 said.
 */
static int check_tracefs(void)
{
	char why[256], id[4200];
	const char *dir = tally_tracing_dir(why, sizeof(why));
	int paranoid = 2;
	FILE *f;

	if (dir) {
		snprintf(id, sizeof(id), "%s/events/raw_syscalls/sys_enter/id", dir);
		if (!access(id, R_OK))
			return 0;
		if (errno != EACCES && errno != EPERM) {
			fprintf(stderr, "%s: %s: %s (the kernel has no syscall tracepoints?)\n",
				progname, id, strerror(errno));
			return 1;
		}
	} else if (errno != EACCES) {
		fprintf(stderr, "%s: %s\n", progname, why);
		return 1;
	}
	if ((f = fopen("/proc/sys/kernel/perf_event_paranoid", "re"))) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = 2;
		fclose(f);
	}
	if (!dir)
		dir = "/sys/kernel/tracing";
	fprintf(stderr, "%s: no permission to read %s/events/raw_syscalls/sys_(enter|exit)\n"
		"hint: as root, 'mount -o remount,mode=755 %s/'", progname, dir, dir);
	if (paranoid > -1)
		fprintf(stderr, ", and 'sysctl kernel.perf_event_paranoid=-1' (it is %d: the "
			"syscalls' records need -1 or CAP_PERFMON)", paranoid);
	fprintf(stderr, "; or run tally trace as root\n");
	return 1;
}

/*
 * -e: the syscalls, or the closest name for one that is none; the other
 * events of each -e into ot[] (with its --filter). 0, or 129 said.
 */
static int select_syscalls(const struct trace_config *cfg, bool *sel, struct others *ot)
{
	bool scratch[TALLY_SYSCALL_MAX];
	struct others all = { 0 };
	char bad[128], hint[64];
	int err;

	if (!cfg->events) {
		for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
			sel[i] = tally_syscall__name(i) != NULL;
		return 0;
	}
	/* the syscalls of all the -e together ('!' leaves out of every one), then each one's events */
	err = tally_syscall__select(cfg->events, sel, add_other, &all, bad, sizeof(bad), hint,
				    sizeof(hint));
	free(all.list);
	for (int k = 0; !err && k < cfg->ev.nr; k++) {
		ot[k].filter = cfg->ev.v[k].filter;
		err = tally_syscall__select(cfg->ev.v[k].spec, scratch, add_other, &ot[k], bad,
					    sizeof(bad), hint, sizeof(hint));
		if (!err && ot[k].filter && !ot[k].list) {
			fprintf(stderr, "%s: --filter '%s' must follow a tracepoint event "
				"(-e '%s' names syscalls)\n", progname, ot[k].filter,
				cfg->ev.v[k].spec);
			return 129;
		}
	}
	if (!err)
		return 0;
	if (err == -ENOENT) {
		fprintf(stderr, "%s: -e '%s': no such syscall", progname, bad);
		if (hint[0])
			fprintf(stderr, " (did you mean '%s'?)", hint);
		fprintf(stderr, "\n");
	} else {
		fprintf(stderr, "%s: -e: %s\n", progname, strerror(-err));
	}
	return 129;
}

static void free_others(struct others *ot)
{
	for (int k = 0; k < CLI_MAX_EVENTS; k++)
		free(ot[k].list);
}

int trace_run(const struct trace_config *cfg)
{
	struct live lv = { .ts = CLI_TARGETS_INIT("trace") };
	struct tally_evlist_mmap_opts mo = { .sz = sizeof(mo), .pages = 256 };
	struct others ot[CLI_MAX_EVENTS] = { { 0 } };
	bool sel[TALLY_SYSCALL_MAX], traced[TALLY_SYSCALL_MAX], any_sc = false;
	struct pollfd pfd;
	struct cli_wait w;
	int ret = 1, err;
	bool wl_ran = false;

	if (cfg->input)
		return trace_file(cfg);
	if ((ret = select_syscalls(cfg, sel, ot))) {
		free_others(ot);
		return ret;
	}
	ret = 1;
	if (trace_out__init(&lv.o, cfg)) {
		free_others(ot);
		return 1;
	}
	/*
	 * -e with events and no syscall, or --pf alone: those events alone,
	 * as perf; --syscalls brings them back (all of them, unless -e named some)
	 */
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		any_sc |= sel[i];
	lv.o.trace_syscalls = cfg->events ? any_sc : !cfg->pf;
	if (cfg->syscalls && !lv.o.trace_syscalls)
		for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
			sel[i] = tally_syscall__name(i) != NULL;
	lv.o.trace_syscalls |= cfg->syscalls;
	if (lv.o.trace_syscalls && check_tracefs())
		goto out;
	if (cli_signals_setup())
		goto out;
	if (cli_targets__open(&lv.ts, &cfg->target, cfg->cmd_argc ? cfg->cmd_argv : NULL, 0) ||
	    cpus_for_threads(&lv))
		goto out;
	/* the calls that change fd tables too, if not shown: the paths of the others' fds */
	trace_out__select(&lv.o, sel, traced);
	if ((err = open_events(&lv, cfg, traced, ot, cfg->ev.nr))) {
		ret = err == 129 ? 129 : 1;
		goto out;
	}
	know_threads(&lv);
	if (cfg->pf && seed_faults(&lv))
		goto out;
	open_strings(&lv, cfg, traced);
	/* a single thread, not followed into children: no comm/tid column, as perf */
	lv.o.multiple_threads = !(cfg->target.tids && !strchr(cfg->target.tids, ',') &&
				  cfg->target.no_inherit);
	lv.o.live = true;
	if (cfg->mmap_pages > 0)
		mo.pages = (size_t)cfg->mmap_pages;
	err = tally_evlist__mmap(lv.l, &mo);
	if (err) {
		fprintf(stderr, "%s: cannot map the ring buffers (%zu pages each): %s\n", progname,
			mo.pages, strerror(-err));
		goto out;
	}
	if (open_session(&lv))
		goto out;
	cli_targets__watch(&lv.ts, &cfg->target);
	if (!(lv.ts.wl && lv.ts.wl_is_target))
		tally_evlist__enable(lv.l);
	seed_fds(&lv);
	err = cli_targets__start(&lv.ts);
	if (err) {
		ret = err;	/* 127/126, said why */
		goto out;
	}
	wl_ran = lv.ts.wl != NULL;
	pfd = (struct pollfd){ .fd = tally_evlist__pollfd(lv.l), .events = POLLIN };
	w = (struct cli_wait){
		.ts = &lv.ts,
		.t0 = cli_now_ns(),
		.fds = &pfd,
		.nfds = 1,
		.arg = &lv,
		.on_fds = on_fds,
		/* ticks drain the rings for lines that arrive slowly */
		.interval_ms = lv.o.summary_only ? 0 : 100,
		.on_tick = on_tick,
	};
	err = cli_wait(&w);
	tally_evlist__disable(lv.l);
	drain(&lv, true);
	trace_out__lost(&lv.o, tally_evlist__lost(lv.l));
	trace_out__finish(&lv.o);
	ret = lv.err ? 1 : 0;
	if (lv.err)
		fprintf(stderr, "%s: %s\n", progname, strerror(-lv.err));
	if (err && !lv.err)
		fprintf(stderr, "%s: %s\n", progname, strerror(-err));
	if (wl_ran) {
		ret = tally_workload__exit_code(lv.ts.wl);
		if (WIFSIGNALED(w.status) && lv.ts.wl_is_target)
			fprintf(stderr, "%s: %s: %s\n", progname, cfg->cmd_argv[0],
				strsignal(WTERMSIG(w.status)));
	} else if (!ret) {
		cli_reraise_interrupt();
	}
out:
	tally_session__close(lv.ss);
	free(lv.lev);
	free_others(ot);
	tally_evlist__free(lv.l);
	cli_targets__release(&lv.ts);
	trace_out__release(&lv.o);
	return ret;
}
