// SPDX-License-Identifier: MIT
/*
 * tally top: perf top's live profile. The events sample into rings,
 * read through the live session (side-band records keep the address
 * spaces current; the session synthesizes what ran before from /proc),
 * counted in top_hist; every -d seconds the rows are a --stdio screen or
 * the browser's new view.
 */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <dirent.h>
#include <unistd.h>
#include <tally/tally.h>
#include <tally/annotate.h>
#include "annotate_text.h"
#include "browser.h"
#include "cli.h"
#include "event_opts.h"
#include "parse_options.h"
#include "target.h"
#include "top.h"
#include "wait.h"

#define TOP_FREQ 4000	/* perf top's default frequency */

struct top {
	struct cli_events events;
	struct cli_target target;
	const char *uid, *sort, *callgraph, *plimit;
	const char *fields;	/* --fields (perf top's -F is the frequency) */
	const char *style, *vmlinux;	/* -M, -k: the annotate view's (tally annotate's) */
	const char *kallsyms;		/* --kallsyms */
	uint64_t freq, period;
	bool freq_max, g, stdio_, tui, zero, help, hide_k, hide_u, inherit_off;
	int children;		/* -1: perf's default (children with -g) */
	int verbose, delay, entries, rt;
	int max_stack;		/* --max-stack; -1: the whole chain */
	long mmap_pages;
	enum tally_callchain callchain;
	uint32_t stack_size;
	struct tally_evlist *l;
	struct tally_session *ss;
	struct tally_annotate *ann;	/* the browser's: every sample by instruction, for 'a' */
	struct top_hist *h;
	struct cli_targets ts;
	char *pids_buf;		/* -u's processes as -p */
	int err;		/* a sample callback's failure */
	bool wl_done;
	int wl_status;
	int *shown, nshown;	/* the browser's events: their indexes in the evlist */
	/*
	 * The browser's reader: the rings drained on a thread of their own
	 * whatever the screen waits for (a prompt, the help, a flame view);
	 * mu guards the session and the rows between it and the browser.
	 */
	struct top_reader rd;
	pthread_mutex_t mu;
};

static const char *const top_usage[] = {
	"tally top [-e EVENT] [-g] [-s KEYS] [-p PID|-t TID|-u USER|-C CPUS] [--stdio] [-- COMMAND]",
	"",
	"perf top's live profile: system-wide unless a target or a command is given;",
	"the browser on a terminal (? for its keys), a refreshing text screen with --stdio.",
	NULL,
};

static int opt_event(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	return cli_events_push(p, opt->value, arg);
}

static int opt_freq(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct top *t = opt->value;
	char *end;

	if (!strcmp(arg, "max")) {
		t->freq_max = true;
		return 0;
	}
	t->freq = strtoull(arg, &end, 10);
	if (*end || end == arg || !t->freq)
		return cli_error(p, "-F '%s': a number of samples a second (or 'max')", arg);
	return 0;
}

static int opt_count(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct top *t = opt->value;
	char *end;

	t->period = strtoull(arg, &end, 10);
	if (*end || end == arg)
		return cli_error(p, "-c '%s': a period (events between samples)", arg);
	return 0;
}

static int opt_children(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	*(int *)opt->value = (int)opt->defval;
	return 0;
}

/* perf top's --call-graph: the recording mode, then report's print settings */
static int parse_callgraph(struct top *t, struct cg_param *cg)
{
	const char *s = t->callgraph, *rest;
	size_t n = strcspn(s, ",");

	if (n == 2 && !strncmp(s, "fp", 2)) {
		t->callchain = TALLY_CALLCHAIN_FP;
	} else if (n == 5 && !strncmp(s, "dwarf", 5)) {
		t->callchain = TALLY_CALLCHAIN_DWARF;
	} else {
		/* print settings alone (perf top --call-graph caller): frame pointers, as -g */
		t->callchain = TALLY_CALLCHAIN_FP;
		return cg_parse(cg, s, "top");
	}
	rest = s[n] ? s + n + 1 : "";
	if (t->callchain == TALLY_CALLCHAIN_DWARF && *rest >= '0' && *rest <= '9') {
		char *end;
		unsigned long sz = strtoul(rest, &end, 10);

		if (!sz || sz > 65528 || sz % 8) {
			fprintf(stderr, "tally top: --call-graph '%s': the stack size is a multiple of 8 up to 65528\n", s);
			return -1;
		}
		t->stack_size = (uint32_t)sz;
		rest = *end == ',' ? end + 1 : end;
	}
	return *rest ? cg_parse(cg, rest, "top") : 0;
}

static int parse_sort(const char *spec, struct top_hist_opts *o)
{
	static const struct { const char *name; enum top_key k; } names[] = {
		{ "comm", TK_COMM }, { "pid", TK_PID }, { "dso", TK_DSO }, { "sym", TK_SYM },
		{ "symbol", TK_SYM }, { "cpu", TK_CPU },
	};
	char *dup = strdup(spec), *save = NULL;

	if (!dup)
		return -1;
	o->nkeys = 0;
	for (char *k = strtok_r(dup, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]) && strcmp(names[i].name, k); i++)
			;
		if (i == sizeof(names) / sizeof(names[0]) || o->nkeys == TK__NR) {
			fprintf(stderr, "tally top: --sort '%s': keys are comm, pid, dso, sym, cpu\n", k);
			free(dup);
			return -1;
		}
		o->keys[o->nkeys++] = names[i].k;
	}
	free(dup);
	return o->nkeys ? 0 : -1;
}

/* -u: the user's processes now, as -p (perf's thread map of a uid) */
static int uid_pids(struct top *t)
{
	struct passwd *pw = getpwnam(t->uid);
	char *end;
	long uid = pw ? (long)pw->pw_uid : strtol(t->uid, &end, 10);
	size_t len = 0, cap = 0;
	DIR *d;
	struct dirent *de;

	if (!pw && (*end || end == t->uid)) {
		fprintf(stderr, "tally top: -u '%s': no such user\n", t->uid);
		return -1;
	}
	if (!(d = opendir("/proc")))
		return -1;
	while ((de = readdir(d))) {
		char path[300], line[256];
		FILE *f;
		long u = -1;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %*d %ld", &u) == 1)
				break;
		fclose(f);
		if (u != uid)
			continue;
		if (len + strlen(de->d_name) + 2 > cap) {
			char *nb = realloc(t->pids_buf, cap = cap * 2 + 256);

			if (!nb)
				break;
			t->pids_buf = nb;
		}
		len += (size_t)sprintf(t->pids_buf + len, "%s%s", len ? "," : "", de->d_name);
	}
	closedir(d);
	if (!len) {
		fprintf(stderr, "tally top: -u '%s': the user runs no process\n", t->uid);
		return -1;
	}
	t->target.pids = t->pids_buf;
	return 0;
}

/*
 * --max-stack N: the chain's first N frames (leaf first; the context
 * markers kept, not counted), as perf's thread__resolve_callchain stops.
 */
static uint64_t chain_cut(const struct tally_sample *s, int max)
{
	uint64_t i, n = 0;

	for (i = 0; i < s->callchain.nr; i++) {
		if (s->callchain.ips[i] >= PERF_CONTEXT_MAX)
			continue;
		if (n++ == (uint64_t)max)
			break;
	}
	return i;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct top *t = ctx;
	struct tally_session_sample cut;
	struct tally_sample s;
	int err;

	if (t->max_stack >= 0 && smp->sample->callchain.nr &&
	    chain_cut(smp->sample, t->max_stack) < smp->sample->callchain.nr) {
		s = *smp->sample;
		s.callchain.nr = chain_cut(&s, t->max_stack);
		cut = *smp;
		cut.sample = &s;
		smp = &cut;
	}
	err = top_hist_add(t->h, smp);
	if (!err && t->ann && tally_annotate__add(t->ann, smp) == -ENOMEM)
		err = -ENOMEM;

	if (err)
		t->err = err;
	return 0;
}

static int open_events(struct top *t)
{
	TALLY_OPTS(tally_config_opts, co, .sample = true,
		   .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		   .system_wide = t->ts.system_wide, .no_inherit = t->inherit_off,
		   .enable_on_exec = t->ts.wl && t->ts.wl_is_target,
		   .callchain = t->callchain, .stack_size = t->stack_size);
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .cgroup_fd = -1 };
	uint64_t max = 0;
	struct tally_evsel *e;
	int err;

	if (!(t->l = tally_evlist__new()))
		return -1;
	if (!t->events.nr && cli_events_add(t->l, "cycles", NULL, "top"))
		return -1;
	for (int i = 0; i < t->events.nr; i++)
		if ((err = cli_events_add(t->l, t->events.v[i].spec, t->events.v[i].filter, "top")))
			return err == CLI_EVENTS_USAGE ? 129 : -1;
	if (t->period)
		co.period = t->period;
	else
		co.freq = t->freq ? t->freq : TOP_FREQ;
	co.freq_max_out = &max;
	if (t->freq_max)
		co.freq = 1000000;
	err = tally_evlist__config(t->l, &co);
	if (err == -ERANGE) {	/* above the kernel's maximum: throttled to it, as perf says */
		if (!t->freq_max)
			fprintf(stderr, "warning: Maximum frequency rate (%llu Hz) exceeded, throttling from %llu Hz to %llu Hz.\n",
				(unsigned long long)max, (unsigned long long)co.freq, (unsigned long long)max);
		co.freq = max;
		err = tally_evlist__config(t->l, &co);
	}
	if (err) {
		fprintf(stderr, "tally top: cannot set the events up: %s\n", strerror(-err));
		return -1;
	}
	if (t->ts.cgroup_fd >= 0) {
		oo.flags = PERF_FLAG_PID_CGROUP;
		oo.cgroup_fd = t->ts.cgroup_fd;
	}
	err = tally_evlist__open(t->l, t->ts.cpus, t->ts.threads, &oo);
	/* cycles without a PMU: cpu-clock, as perf's evsel__fallback (said with -v, as perf top) */
	for (bool again = true; err && again;) {
		again = false;
		tally_evlist__for_each_evsel(t->l, e)
			if (tally_evsel__fallback(e)) {
				again = true;
				if (t->verbose)
					fprintf(stderr, "The cycles event is not supported, trying to fall back to cpu-clock-ticks\n");
			}
		if (again) {
			tally_evlist__close(t->l);
			err = tally_evlist__open(t->l, t->ts.cpus, t->ts.threads, &oo);
		}
	}
	if (err) {
		cli_print_open_error("top", t->l, err, &t->target);
		return -1;
	}
	return 0;
}

/* A pass over the rings ended with err: 0, or -1 said (its error or the callbacks'). */
static int pass_said(const struct top *t, int err)
{
	if (err < 0 && err != -EINTR) {
		fprintf(stderr, "tally top: reading the rings: %s\n", strerror(-err));
		return -1;
	}
	if (t->err) {
		fprintf(stderr, "tally top: %s\n", strerror(-t->err));
		return -1;
	}
	return 0;
}

static int drain(struct top *t)
{
	return pass_said(t, tally_session__poll(t->ss, 0));
}

static uint64_t lost(const struct top *t)
{
	TALLY_OPTS(tally_session_stats, st);

	tally_session__stats(t->ss, &st);
	return st.lost;
}

/* perf top's headline: the rate since the last screen, the event, the target */
static void headline(struct top *t, int idx, double secs, FILE *fp, const char *prefix)
{
	struct top_rate r;
	const struct perf_event_attr *a = tally_evsel__attr(tally_evlist__first(t->l));
	int ncpu = t->ts.cpus ? tally_cpu_map__nr(t->ts.cpus) : 1;
	uint64_t l = lost(t);
	char tgt[128];

	top_hist_take_rate(t->h, idx, &r);
	if (t->target.pids || t->uid)
		snprintf(tgt, sizeof(tgt), "(target_pid: %s)", t->target.pids);
	else if (t->target.tids)
		snprintf(tgt, sizeof(tgt), "(target_tid: %s)", t->target.tids);
	else if (t->ts.wl)
		snprintf(tgt, sizeof(tgt), "(command: %s)", t->ts.argv[0]);
	else
		snprintf(tgt, sizeof(tgt), "(all, %d CPU%s)", ncpu, ncpu > 1 ? "s" : "");
	fprintf(fp, "%s   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%  exact: %4.1f%% lost: %llu/%llu drop: 0/0 [",
		prefix, secs > 0 ? (double)r.samples / secs : 0.0,
		r.samples ? 100.0 * (double)r.kernel / (double)r.samples : 0.0, 0.0,
		(unsigned long long)l, (unsigned long long)(l + r.total_samples));
	if (a && a->freq)
		fprintf(fp, "%lluHz ", (unsigned long long)a->sample_freq);
	else if (a)
		fprintf(fp, "%llu ", (unsigned long long)a->sample_period);
	fprintf(fp, "%s],  %s\n", tally_session__event_name(t->ss, idx), tgt);
}

static double last_screen;

/* The side-band's own event (system-wide): no rows of its own */
static bool dummy(const struct top *t, int idx)
{
	const char *name = tally_session__event_name(t->ss, idx);

	return !strncmp(name, "dummy", 5) && !top_hist_samples(t->h, idx);
}

static int term_cols(void)
{
	struct winsize ws;

	return !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col ? ws.ws_col : 80;
}

/* The screen's rows as perf's get_term_dimensions: $LINES with $COLUMNS, the terminal's, or 25. */
static int term_rows(void)
{
	const char *l = getenv("LINES"), *c = getenv("COLUMNS");
	struct winsize ws;

	if (l && c && atoi(l) > 0 && atoi(c) > 0)
		return atoi(l);
	return !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col ? ws.ws_row : 25;
}

/* --stdio: perf top's screen, every -d */
static void print_screen(struct top *t, double now)
{
	double secs = last_screen ? (now - last_screen) / 1e9 : t->delay;
	int cols = term_cols();
	uint64_t l = lost(t);

	last_screen = now;
	/* perf top ages the rows at each refresh unless -z zeroes them */
	if ((!t->zero && top_hist_decay(t->h)) || top_hist_resort(t->h)) {
		fprintf(stderr, "tally top: %s\n", strerror(ENOMEM));
		return;
	}
	printf("\033[H\033[2J");
	for (int i = 0; i < top_hist_nr_events(t->h); i++) {
		if (dummy(t, i))
			continue;
		headline(t, i, secs, stdout, "");
		for (int k = 0; k < cols - 1; k++)
			putchar('-');
		printf("\n\n");
		if (l)
			printf("WARNING: LOST %llu samples, Check IO/CPU overload!\n\n", (unsigned long long)l);
		top_hist_print(t->h, i, stdout, false);
		putchar('\n');
	}
	fflush(stdout);
	if (t->zero)
		top_hist_zero(t->h);
}

static void on_tick(void *arg, double now)
{
	struct top *t = arg;

	/*
	 * Twice: a pass delivers only what the pass before it read (perf's
	 * rounds); the rings wake us only at their watermark, so one pass
	 * left the last second for the next screen (0 samples on the first).
	 */
	if (drain(t) || drain(t))
		return;
	print_screen(t, now);
}

static int on_fds(void *arg, struct pollfd *fds, int nfds)
{
	return drain(arg) ? -EIO : 0;
}

/* ---- the browser ---- */

/* With mu held: the reader's records delivered (drain()'s for the browser) */
static int take(struct top *t)
{
	return pass_said(t, top_reader_take(&t->rd));
}

static int tui_refresh(void *ctx, struct view *out)
{
	struct top *t = ctx;
	double now = cli_now_ns(), secs = last_screen ? (now - last_screen) / 1e9 : t->delay;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	int n = top_hist_nr_events(t->h), shown[n], ns = 0;

	pthread_mutex_lock(&t->mu);
	if (take(t) || (!t->zero && top_hist_decay(t->h)) || top_hist_resort(t->h)) {
		pthread_mutex_unlock(&t->mu);
		return -1;
	}
	last_screen = now;
	if (!(mem = open_memstream(&text, &len))) {
		pthread_mutex_unlock(&t->mu);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t l = lost(t);

		if (dummy(t, i))
			continue;
		shown[ns++] = i;
		/* the browser's reading of report's text: an event, its header, the columns */
		fprintf(mem, "# Samples: %llu  of event '%s'\n", (unsigned long long)top_hist_samples(t->h, i),
			tally_session__event_name(t->ss, i));
		headline(t, i, secs, mem, "#");
		fprintf(mem, "# Lost samples: %llu%s\n#\n", (unsigned long long)l,
			t->wl_done ? " (the command exited)" : "");
		top_hist_print(t->h, i, mem, true);
	}
	if (t->zero)
		top_hist_zero(t->h);
	pthread_mutex_unlock(&t->mu);
	/* the text parsed with the reader running */
	if (fclose(mem) || view_parse(out, text)) {
		free(text);
		view_free(out);
		return 1;
	}
	free(text);
	memcpy(t->shown, shown, sizeof(shown[0]) * (size_t)ns);
	t->nshown = ns;
	return 0;
}

/* The flame view's stacks of the view's event ev, as of the last refresh. */
static char *tui_folded(void *ctx, int ev)
{
	struct top *t = ctx;
	char *f = NULL;
	size_t fl = 0;
	FILE *mem;

	if (ev >= t->nshown || !(mem = open_memstream(&f, &fl)))
		return NULL;
	pthread_mutex_lock(&t->mu);
	top_hist_folded(t->h, t->shown[ev], mem);
	pthread_mutex_unlock(&t->mu);
	if (fclose(mem) || !fl) {
		free(f);
		return NULL;
	}
	return f;
}

static void tui_tick(void *ctx)
{
	struct top *t = ctx;

	if (t->ts.wl && !t->wl_done && tally_workload__poll(t->ts.wl, &t->wl_status, NULL) > 0)
		t->wl_done = true;
}

static int tui_key(void *ctx, int key, char *msg, size_t n)
{
	struct top *t = ctx;

	switch (key) {
	case 'z':
		t->zero = !t->zero;
		snprintf(msg, n, "zeroing between refreshes: %s", t->zero ? "on" : "off");
		return 1;
	case 'K':
		t->hide_k = !t->hide_k;
		pthread_mutex_lock(&t->mu);
		top_hist_hide(t->h, t->hide_k, t->hide_u);
		pthread_mutex_unlock(&t->mu);
		snprintf(msg, n, "kernel symbols %s (next refresh)", t->hide_k ? "hidden" : "shown");
		return 1;
	case 'U':
		t->hide_u = !t->hide_u;
		pthread_mutex_lock(&t->mu);
		top_hist_hide(t->h, t->hide_k, t->hide_u);
		pthread_mutex_unlock(&t->mu);
		snprintf(msg, n, "user symbols %s (next refresh)", t->hide_u ? "hidden" : "shown");
		return 1;
	}
	return 0;
}

static int run_stdio(struct top *t)
{
	struct pollfd pfd = { .fd = tally_evlist__pollfd(t->l), .events = POLLIN };
	struct cli_wait w = {
		.ts = &t->ts, .t0 = cli_now_ns(), .interval_ms = t->delay * 1000L,
		.fds = &pfd, .nfds = 1, .arg = t, .on_tick = on_tick, .on_fds = on_fds,
	};
	int err = cli_wait(&w);

	if (err < 0)
		return 1;
	/* what came after the last screen, once more, unless a signal ended it (at once, as perf top) */
	tally_evlist__disable(t->l);
	if (!(cli_interrupted() && !t->ts.wl) && !drain(t))
		print_screen(t, cli_now_ns());
	if (t->ts.wl) {
		t->wl_status = w.status;
		t->wl_done = true;
	}
	return 0;
}

/* The DSO column's name for a path: its base name, as the rows show it */
static bool same_dso(const char *path, const char *shown)
{
	const char *base = strrchr(path, '/');

	return !strcmp(path, shown) || (base && !strcmp(base + 1, shown));
}

/*
 * 'a': the symbol's instructions with the samples top counted for them
 * since it started (perf top keeps the same per-instruction counts).
 */
static struct annot_view *tui_annotate(void *ctx, int ev, const char *dso, const char *sym,
				       char *msg, size_t n)
{
	struct top *t = ctx;
	struct annot_view *v = NULL;
	int nr;

	if (ev >= t->nshown || !t->ann)
		return NULL;
	pthread_mutex_lock(&t->mu);
	nr = tally_annotate__sort(t->ann);
	for (int i = 0; i < nr; i++) {
		const struct tally_annotate_sym *s = tally_annotate__sym(t->ann, i);

		if (s->attr == t->shown[ev] && !strcmp(s->name, sym) && same_dso(s->dso_name, dso)) {
			v = annotate_view_of(t->ann, t->ss, i, msg, n);
			break;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (!v && !msg[0])
		snprintf(msg, n, "annotate: no samples of %s in %s yet", sym, dso);
	return v;
}

static int run_tui(struct top *t)
{
	struct view v = { 0 };
	const struct browser_ops ops = {
		.title = "tally top", .delay_ms = t->delay * 1000, .refresh = tui_refresh,
		.tick = tui_tick, .key = tui_key, .folded = tui_folded, .annotate = tui_annotate,
		.ctx = t,
	};
	int rc;

	if ((rc = top_reader_start(&t->rd, t->l, t->ss, &t->mu))) {
		fprintf(stderr, "tally top: cannot start the reader: %s\n", strerror(-rc));
		return 1;
	}
	rc = browser_run(&v, &ops);
	top_reader_stop(&t->rd);
	/* q: 0; a signal: 128 + it, as report's browser; -1: no terminal to draw on */
	return rc;
}

int cmd_top(int argc, char **argv)
{
	struct top t = { .children = -1, .delay = 2, .ts = CLI_TARGETS_INIT("top"), .max_stack = -1,
			 .mu = PTHREAD_MUTEX_INITIALIZER };
	struct top_hist_opts ho = { .cg = { .mode = CG_GRAPH, .min_percent = 0.5 },
				    .filter = { .sz = sizeof(struct tally_hist_filter) } };
	const struct cli_option opts[] = {
		CLI_GROUP("Events"),
		CLI_CALLBACK('e', "event", &t.events, "SPEC", "events to sample (default cycles, cpu-clock without a PMU)", opt_event),
		CLI_CALLBACK('F', "freq", &t, "N", "N samples a second (default 4000; 'max')", opt_freq),
		CLI_CALLBACK('c', "count", &t, "N", "a sample every N events", opt_count),
		CLI_BOOL('g', NULL, &t.g, "call chains (frame pointers), shown under the rows"),
		CLI_STRING(0, "call-graph", &t.callgraph, "MODE[,...]", "fp or dwarf[,SIZE], then report's -g print settings"),
		CLI_INT(0, "max-stack", &t.max_stack, "N", "the chains' first N frames only", 0, 1 << 20),
		CLI_GROUP("Targets (default: system-wide)"),
		CLI_STRING('p', "pid", &t.target.pids, "PID[,PID]", "existing processes"),
		CLI_STRING('t', "tid", &t.target.tids, "TID[,TID]", "existing threads"),
		CLI_STRING('u', "uid", &t.uid, "USER", "the user's processes"),
		CLI_BOOL('a', "all-cpus", &t.target.system_wide, "system-wide on every CPU (the default)"),
		CLI_STRING('C', "cpu", &t.target.cpu_list, "LIST", "system-wide on these CPUs"),
		CLI_CALLBACK('G', "cgroup", &t.target, "NAME", "only tasks of this cgroup", cli_opt_cgroup),
		CLI_BOOL('i', "no-inherit", &t.inherit_off, "not the children of the targets"),
		CLI_LONG('m', "mmap-pages", &t.mmap_pages, "N", "data pages per ring (a power of two)", 1, 1 << 20),
		CLI_INT('r', "realtime", &t.rt, "PRIO", "collect with this SCHED_FIFO priority", 1, 99),
		CLI_GROUP("Display"),
		CLI_STRING('s', "sort", &t.sort, "KEYS", "comm, pid, dso, sym, cpu (default dso,sym)"),
		CLI_STRING(0, "fields", &t.fields, "FIELDS", "the columns: overhead, overhead_children, period, sample and sort keys"),
		CLI_BOOL(0, "hierarchy", &ho.hierarchy, "a level per sort key, each entry under its parent (text)"),
		CLI_CALLBACK_F(0, "children", &t.children, NULL, "callers' share too (the default with -g)", opt_children, CLI_OPT_NOARG, 1),
		CLI_CALLBACK_F(0, "no-children", &t.children, NULL, "self overhead only", opt_children, CLI_OPT_NOARG, 0),
		CLI_BOOL('K', "hide_kernel_symbols", &t.hide_k, "hide kernel symbols"),
		CLI_BOOL('U', "hide_user_symbols", &t.hide_u, "hide user symbols"),
		CLI_INT('d', "delay", &t.delay, "SECS", "seconds between refreshes (default 2)", 1, 3600),
		CLI_BOOL('z', "zero", &t.zero, "zero the rows at each refresh"),
		CLI_INT('E', "entries", &t.entries, "N", "show this many rows", 1, 1 << 20),
		CLI_STRING(0, "percent-limit", &t.plimit, "PCT", "hide rows below PCT percent"),
		CLI_BOOL('n', "show-nr-samples", &ho.show_nr, "a Samples column (the rows' own samples)"),
		CLI_BOOL(0, "show-total-period", &ho.show_period, "a Period column (the rows' own period)"),
		CLI_STRING(0, "comms", &ho.filter.comms, "LIST", "only these commands"),
		CLI_STRING(0, "dsos", &ho.filter.dsos, "LIST", "only these shared objects"),
		CLI_STRING(0, "symbols", &ho.filter.symbols, "LIST", "only these symbols"),
		CLI_STRING('M', "disassembler-style", &t.style, "STYLE", "the a view's: att (default) or intel"),
		CLI_STRING('k', "vmlinux", &t.vmlinux, "FILE", "the a view's kernel code (default: /proc/kcore)"),
		CLI_STRING(0, "kallsyms", &t.kallsyms, "FILE", "the kernel's symbols from FILE (a copy of /proc/kallsyms)"),
		CLI_BOOL(0, "stdio", &t.stdio_, "a refreshing text screen (perf top --stdio)"),
		CLI_BOOL(0, "tui", &t.tui, "the browser (the default on a terminal)"),
		CLI_COUNT('v', "verbose", &t.verbose, "say more (the cycles fallback)"),
		CLI_HELP(&t.help, "this text (man tally-top for the full manual)"),
		CLI_END(),
	};
	struct cli_parse p = { .cmd = "top", .err = stderr };
	int n, ret = 1;

	n = cli_parse("top", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (t.help) {
		cli_usage(stdout, top_usage, opts);
		return 0;
	}
	if (t.freq && t.period) {
		cli_error(&p, "%s", "-F and -c do not mix: a frequency or a period");
		return 129;
	}
	if (parse_sort(t.sort ? t.sort : "dso,sym", &ho))
		return 129;
	if (ho.hierarchy && t.fields) {
		/* perf says so too (and exits 0) */
		cli_error(&p, "%s", "--hierarchy and --fields options cannot be used together");
		return 129;
	}
	if (t.fields && top_hist_parse_fields(&ho, t.fields, t.sort != NULL))
		return 129;
	if (t.g)
		t.callchain = TALLY_CALLCHAIN_FP;
	if (t.callgraph && parse_callgraph(&t, &ho.cg))
		return 129;
	if (t.plimit) {
		char *end;

		ho.percent_limit = strtod(t.plimit, &end);
		if (end == t.plimit || *end || ho.percent_limit < 0 || ho.percent_limit > 100) {
			cli_error(&p, "--percent-limit '%s': a percentage, 0 to 100", t.plimit);
			return 129;
		}
	}
	if (t.style && strcmp(t.style, "att") && strcmp(t.style, "intel")) {
		cli_error(&p, "-M '%s': att or intel", t.style);
		return 129;
	}
	/* perf: "Invalid file" */
	if (t.kallsyms && access(t.kallsyms, R_OK)) {
		fprintf(stderr, "tally top: --kallsyms %s: %s\n", t.kallsyms, strerror(errno));
		return 1;
	}
	if (t.vmlinux && access(t.vmlinux, R_OK)) {
		fprintf(stderr, "tally top: --vmlinux %s: %s\n", t.vmlinux, strerror(errno));
		return 1;
	}
	if (t.uid && (t.target.pids || t.target.tids)) {
		cli_error(&p, "%s", "-u and -p/-t do not mix");
		return 129;
	}
	if (t.uid && uid_pids(&t))
		return 129;
	/* perf top's target: system-wide unless told otherwise */
	if (!n && !t.target.pids && !t.target.tids && !t.target.cpu_list)
		t.target.system_wide = true;
	if (cli_target_check(&p, &t.target, n > 0, "profile"))
		return 129;
	ho.chains = t.callchain != TALLY_CALLCHAIN_NONE;
	ho.inline_frames = t.callchain == TALLY_CALLCHAIN_DWARF;
	/* perf top's hierarchy has no callers' share, its graphs leaf first */
	ho.children = ho.chains && t.children != 0 && !ho.hierarchy;
	if (!ho.chains)
		ho.cg.mode = CG_NONE;
	if (!ho.cg.order_set)
		ho.cg.caller = ho.children;
	ho.hide_kernel = t.hide_k;
	ho.hide_user = t.hide_u;
	if (!t.stdio_ && !t.tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		t.stdio_ = true;
	/* the browser's rows are flat: the hierarchy is the text screen's */
	if (ho.hierarchy)
		t.stdio_ = true;
	/*
	 * Without -E, --stdio prints the rows a screen holds less perf's
	 * five header lines, as perf top: 20 off a terminal. Every row with
	 * its call graph was most of a -g refresh's cost.
	 */
	ho.entries = t.entries ? t.entries : t.stdio_ ? term_rows() - 5 > 0 ? term_rows() - 5 : 1 : 0;
	if (t.rt) {
		struct sched_param sp = { .sched_priority = t.rt };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr, "tally top: -r %d: %s\n", t.rt, strerror(errno));
			return 1;
		}
	}
	if (cli_targets__open(&t.ts, &t.target, n ? argv : NULL, 0))
		goto out;
	/* threads followed with inheritance need a ring per CPU, as record's */
	if (!t.ts.system_wide) {
		tally_cpu_map__put(t.ts.cpus);
		t.ts.cpus = tally_cpu_map__new_online();
	}
	if ((ret = open_events(&t)) != 0) {
		ret = ret == 129 ? 129 : 1;
		goto out;
	}
	ret = 1;
	{
		TALLY_OPTS(tally_evlist_mmap_opts, mo, .pages = t.mmap_pages > 0 ? (size_t)t.mmap_pages : 0);
		/* inline frames only come with DWARF unwinding (perf 6.1): no DWARF reading otherwise */
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &t,
			   .no_inline = t.callchain != TALLY_CALLCHAIN_DWARF, .kallsyms = t.kallsyms);
		int err = tally_evlist__mmap(t.l, &mo);

		if (err) {
			fprintf(stderr, "tally top: cannot map the ring buffers: %s\n%s", strerror(-err),
				err == -EPERM || err == -ENOMEM ?
				"Each ring is locked memory: raise /proc/sys/kernel/perf_event_mlock_kb "
				"or ask for fewer pages with -m.\n" : "");
			goto out;
		}
		if (!(t.shown = calloc((size_t)tally_evlist__nr(t.l), sizeof(*t.shown))) ||
		    !(t.ss = tally_session__open_evlist(t.l, &so)) ||
		    !(t.h = top_hist_new(t.ss, tally_evlist__nr(t.l), &ho))) {
			fprintf(stderr, "tally top: %s\n", strerror(errno));
			goto out;
		}
	}
	tally_session__set_unwind(t.ss, t.callchain == TALLY_CALLCHAIN_DWARF);
	if (!t.stdio_) {	/* the browser's 'a' */
		TALLY_OPTS(tally_annotate_opts, ao, .vmlinux = t.vmlinux,
			   .syntax = t.style && !strcmp(t.style, "intel") ? TALLY_DISASM_INTEL : TALLY_DISASM_ATT);

		if (!(t.ann = tally_annotate__new(t.ss, &ao))) {
			fprintf(stderr, "tally top: %s\n", strerror(errno));
			goto out;
		}
	}
	/* what runs already: its maps and names from /proc */
	if (t.ts.system_wide) {
		tally_session__synthesize(t.ss, NULL, 0);
	} else {
		int pids[CLI_TARGET_MAX_WATCH], np = 0;
		const char *s = t.target.pids ? t.target.pids : t.target.tids;

		for (char *end; s && *s && np < CLI_TARGET_MAX_WATCH; s = *end ? end + 1 : end)
			pids[np++] = (int)strtol(s, &end, 10);
		tally_session__synthesize(t.ss, pids, np ? np : -1);
	}
	cli_targets__watch(&t.ts, &t.target);
	/*
	 * Until now a signal kills top at once (128 + N to the shell): the
	 * setup (opening a thread's events per CPU, reading /proc) can take
	 * seconds on a busy machine and holds nothing to give back.
	 */
	if (cli_signals_setup())
		goto out;
	if (!(t.ts.wl && t.ts.wl_is_target))
		tally_evlist__enable(t.l);
	if ((ret = cli_targets__start(&t.ts)) != 0)
		goto out;
	ret = t.stdio_ ? run_stdio(&t) : run_tui(&t);
	if (ret < 0)	/* a terminal curses cannot drive (said why): perf top's text */
		ret = run_stdio(&t);
	if (!ret && t.ts.wl) {
		/* the command's own status, as the other commands give it */
		if (!t.wl_done && tally_workload__poll(t.ts.wl, &t.wl_status, NULL) == 0) {
			tally_workload__kill(t.ts.wl, SIGTERM);	/* q before the command ended */
			while (tally_workload__wait(t.ts.wl, &t.wl_status, NULL) == -EINTR)
				;
		}
		ret = tally_workload__exit_code(t.ts.wl);
	}
out:
	top_hist_free(t.h);
	tally_annotate__free(t.ann);
	tally_session__close(t.ss);
	tally_evlist__free(t.l);
	/* --stdio ended by a signal with no command to give a status: 128 + N, as the shell's */
	if (!ret && !t.ts.wl)
		cli_reraise_interrupt();
	cli_targets__release(&t.ts);
	free(t.pids_buf);
	free(t.shown);
	return ret;
}
