// SPDX-License-Identifier: MIT
/*
 * tally report: perf report --stdio's histogram from a perf.data file (the
 * session layer reads it in time order, the library's histogram counts
 * it: tally/hist.h). This file has the options and the printing: the
 * '#' lines, widths and order as perf 6.1 prints them; the rows' lines and
 * the call graphs under them are report_rows.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "report.h"
#include "report_fmt.h"
#include "hist_cols.h"
#include "report_graph.h"
#include "report_header.h"
#include "file_header.h"
#include "report_branch.h"
#include "report_threads.h"
#include "sample_filter.h"
#include "read_file.h"
#include <limits.h>
#include "store_read.h"

#include "report_ctx.h"

/* Each sample counts in the histogram (a new shape's addresses are resolved at its time). */
static int on_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct report *r = arg;
	int err;

	if (cli_sample_filter_skip(&r->sf, ts->sample))
		return 0;
	/* -U: perf's process_sample_event returns first too (the frame is the session's, cached) */
	if (r->hide_unresolved) {
		struct tally_frame f;

		if (!tally_session__resolve(ss, ts, &f) && !f.sym)
			return 0;
	}
	/* a store's sample stands for its row's samples */
	err = r->from.url ? tally_hist__add_count(r->hist, ts, cli_from_count(&r->from, ts)) :
				tally_hist__add(r->hist, ts);

	if (err && !r->hist_err)
		r->hist_err = err;
	return 0;
}

/* -T: the other records, for their READ counts */
static int on_record(struct tally_session *ss, const struct perf_event_header *h,
		     const struct tally_record *rec, void *arg)
{
	struct report *r = arg;

	return report_threads_record(&r->threads, h, rec);
}

/* ---- output ---- */

/*
 * The rows' order, as tally_hist__sort takes it: perf's default, the
 * histogram's own (an elided key left out there); -F: -s's
 * keys, then the fields in turn (the numbers biggest first), then the
 * keys.
 */
static int row_order(const struct report *r, int *order)
{
	/* an elided key: perf's default order without it (tally_hist_opts.elide) */
	if (!r->fields.n)
		return 0;
	return hist_fields_order(&r->fields, r->sort, r->nsort, order);
}

/* The visible rows, in the order they print. */
static struct tally_hist_row *sorted_rows(struct report *r, int idx, size_t *n)
{
	struct tally_hist_row *rows;

	*n = tally_hist__nr_rows(r->hist, idx);
	if (!(rows = malloc((*n + 1) * sizeof(*rows))))
		return NULL;
	hist_rows_at(r->hist, idx, 0, *n, rows);
	return rows;
}

/*
 * The plain table (no -F, no --hierarchy): its rows copied a window at a
 * time. A copy of every row (432 bytes each: 38 MB of a 135k-sample gcc
 * profile's 87k rows) was the largest block of report's heap, and fresh
 * pages cost their zeroing; the widths take a first pass over them.
 */
#define ROWS_WIN	2048

static void print_table(struct report *r, int idx, uint64_t total)
{
	int width[K__NR] = { 0 };
	size_t n = tally_hist__nr_rows(r->hist, idx);
	struct tally_hist_row *win;
	int last;

	if (!(win = malloc(ROWS_WIN * sizeof(*win))))
		return;
	hist_key_widths(&r->cells, r->hist, idx, r->sort, r->nsort, r->ipc_at, win, ROWS_WIN, width);
	report_print_head(r, tally_session__event_name(r->ss, idx), r->gnr && r->gnr[idx] > 1);
	/* perf pads the other columns even when the last one is hidden */
	last = r->nsort - 1;
	report_print_columns(r, 1, width);
	for (size_t from = 0; from < n; from += ROWS_WIN) {
		struct rows_out o = { .r = r, .rows = win, .n = n - from < ROWS_WIN ? n - from : ROWS_WIN,
				      .total = total, .width = width, .last = last };

		hist_rows_at(r->hist, idx, from, o.n, win);
		report_print_rows(&o);
	}
	printf("\n\n");
	free(win);
}

static void print_hist(struct report *r, int idx)
{
	uint64_t total;

	if (r->group_view && r->gnr[idx] > 1) {
		report_group_print(r, idx);
		return;
	}
	r->head = report_shown(r, idx);	/* relative: a pass over the rows, once */
	total = r->head.period;
	r->graph_total = report_totals(r, idx).period;
	struct hist_table t = { .fp = stdout, .cells = &r->cells, .total = total,
				.header = !r->quiet, .children = r->children,
				.percent_limit = r->percent_limit, .show_nr = r->show_nr, .sep = r->sep,
				.show_period = r->show_period, .ipc_level = r->ipc_at + 1,
				.graph = r->cg.mode != CG_NONE ? report_table_graph : NULL, .arg = r };
	struct tally_hist_row *rows;
	size_t n;

	if (!r->fields.n && !r->hierarchy) {
		print_table(r, idx, total);
		return;
	}
	if (!(rows = sorted_rows(r, idx, &n)))
		return;
	report_print_head(r, tally_session__event_name(r->ss, idx), r->gnr && r->gnr[idx] > 1);
	if (r->fields.n)
		hist_fields_print(&r->fields, &t, rows, n);
	else if (hist_hier_print(&t, r->sort, r->nsort, rows, n))
		fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
	printf("\n\n");
	free(rows);
}

/* What got no symbol, per DSO and why: perf shows only hex addresses. */
static void print_unresolved(struct report *r)
{
	const struct tally_unresolved *u;
	int n = tally_symbols__unresolved(tally_session__symbols(r->ss), &u);

	if (n <= 0 || r->quiet)
		return;
	printf("#\n# Addresses without a symbol (each distinct address once), and why:\n");
	for (int i = 0; i < n; i++) {
		char jit[64];
		int tid, end = 0;
		const char *name = u[i].dso;

		/* a process's JIT code under the name its rows carry */
		if (sscanf(name, "/tmp/perf-%d.map%n", &tid, &end) == 1 && end && !name[end]) {
			snprintf(jit, sizeof(jit), "[JIT] tid %d", tid);
			name = jit;
		}
		printf("#   %-40s %6llu  %s\n", name, (unsigned long long)u[i].addrs,
		       u[i].detail ? u[i].detail : tally_dso_status__str(u[i].status));
	}
	printf("#\n");
}

/* A sort key, and what it needs resolved or matched. */
static bool all_tracepoints(struct tally_data_reader *rd, int n)
{
	for (int i = 0; i < n; i++)
		if (tally_data_reader__attr(rd, i)->type != PERF_TYPE_TRACEPOINT)
			return false;
	return n > 0;
}

/* some event samples bit (perf's combined sample type has it) */
static bool any_sample_type(struct tally_data_reader *rd, int n, uint64_t bit)
{
	for (int i = 0; i < n; i++)
		if (tally_data_reader__attr(rd, i)->sample_type & bit)
			return true;
	return false;
}

/* perf's check for --mem-mode: some event samples data sources */
static bool any_data_src(struct tally_data_reader *rd, int n)
{
	return any_sample_type(rd, n, PERF_SAMPLE_DATA_SRC);
}

static void add_sort_key(struct report *r, enum sort_key k)
{
	r->sort[r->nsort++] = k;
	if (k == K_PARENT)
		r->has_parent = true;
}

static int parse_sort(struct report *r, const char *spec)
{
	char *dup = strdup(spec), *tok, *save = NULL;

	if (!dup)
		return -1;
	r->nsort = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		/* perf takes "symbol" for sym (and adds its IPC column: cmd_report's ipc_at) */
		const char *name = strcmp(tok, "symbol") ? tok : "sym";

		for (k = 0; k < K__NR && !(hist_keys[k].name && !strcmp(name, hist_keys[k].name)); k++)
			;
		if (k == K__NR || r->nsort == K__NR) {
			fprintf(stderr, "tally report: --sort '%s': unknown key '%s' (", spec, tok);
			for (int i = 0, n = 0; i < K__NR; i++)
				if (hist_keys[i].name && !HIST_MEM_MODE_KEY(i))
					fprintf(stderr, "%s%s", n++ ? ", " : "", hist_keys[i].name);
			fprintf(stderr, "; with --mem-mode:");
			for (int i = 0, n = 0; i < K__NR; i++)
				if (hist_keys[i].name && HIST_MEM_MODE_KEY(i))
					fprintf(stderr, "%s %s", n++ ? "," : "", hist_keys[i].name);
			fprintf(stderr, ")\n");
			free(dup);
			return -1;
		}
		if (HIST_MEM_MODE_KEY(k) && !r->mem_mode) {
			fprintf(stderr, "tally report: --sort '%s': key '%s' is a memory key: it needs --mem-mode\n",
				spec, tok);
			free(dup);
			return -1;
		}
		add_sort_key(r, (enum sort_key)k);
	}
	free(dup);
	return r->nsort ? 0 : -1;
}

/*
 * -F as perf: the columns in the order given. Without -s, its keys are the
 * sort keys and the rows are ordered by its fields in turn; with -s, -s's
 * keys order first and those -F lacks are added as last columns.
 */
static int parse_fields(struct report *r, const char *spec, const char *sort)
{
	r->nsort = 0;
	if (sort && parse_sort(r, sort))
		return -1;
	if (hist_fields_parse(&r->fields, spec, r->sort, &r->nsort, ~0ull, "report", "-F"))
		return -1;
	/* perf's IPC column of a -s naming symbol, after the others */
	if (sort && strstr(sort, "symbol") && r->fields.n < HIST_FIELDS_MAX)
		r->fields.col[r->fields.n++] = HF_IPC;
	for (int i = 0; i < r->nsort; i++)
		r->has_parent |= r->sort[i] == K_PARENT;
	return 0;
}

/*
 * Branch mode, as perf decides it (-b, --no-branch-stack, else the file's
 * header), and what it changes: perf's default keys, no IPC column; the
 * branch keys refused without it. 0, or the exit status after saying why.
 */
static int branch_setup(struct report *r, struct tally_data_reader *rd, int nr_events, int opt,
			const char *sort, const char *fields, const char *input)
{
	r->branch = report_branch_mode(rd, nr_events, opt);
	if (r->branch && r->mem_mode) {
		fprintf(stderr, "tally report: branch and mem mode incompatible: --mem-mode with %s "
			"(--no-branch-stack reads the samples themselves)\n",
			opt > 0 ? "-b" : "a file whose header says its samples have branch stacks");
		return 1;
	}
	if (r->branch && !report_branch_data(rd, nr_events)) {
		fprintf(stderr, "tally report: -b but no event of %s has branch stacks "
			"(PERF_SAMPLE_BRANCH_STACK): was it recorded without -b?\n", input);
		return 1;
	}
	if (!r->branch) {
		for (int i = 0; i < r->nsort; i++)
			if (HIST_BRANCH_KEY(r->sort[i])) {
				fprintf(stderr, "tally report: key '%s' is a branch key: it needs branch mode (-b)\n",
					hist_keys[r->sort[i]].name);
				return 129;
			}
		return 0;
	}
	if (!sort && !fields) {
		bool parent = r->has_parent;

		if (parse_sort(r, REPORT_BRANCH_SORT))
			return 1;
		if (parent)	/* --parent's key, after them as before */
			add_sort_key(r, K_PARENT);
	}
	/* perf 6.1's IPC column of a "symbol" key crashes it in branch mode: none here */
	if (r->fields.n && r->fields.col[r->fields.n - 1] == HF_IPC)
		r->fields.n--;
	if (r->ipc_at >= 0) {
		memmove(&r->sort[r->ipc_at], &r->sort[r->ipc_at + 1],
			(size_t)(r->nsort - r->ipc_at - 1) * sizeof(r->sort[0]));
		r->nsort--;
		r->ipc_at = -1;
	}
	return 0;
}

static int opt_children(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	*(int *)opt->value = (int)opt->defval;
	return 0;
}

/*
 * -g and --percent-limit in the order given: both set the call graphs'
 * threshold in perf, the later one wins.
 */
struct in_order {
	const char *arg[2];
	int at[2], seq;
};

static int opt_in_order(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct in_order *o = opt->value;

	o->arg[opt->defval] = arg;
	o->at[opt->defval] = ++o->seq;
	return 0;
}

static const char *const report_usage[] = {
	"tally report [--stdio] [-i FILE] [--sort KEYS] [--children|--no-children]",
	"",
	"perf report's histogram of a perf.data file (tally's or perf's), as text,",
	"with perf's call graphs under the rows when the samples have chains.",
	"tally report --from URL [--since T] [--until T] [--where host=h1,...]: the",
	"fleet's merged profile from a store (ClickHouse) that tally agent fills.",
	NULL,
};

int cmd_report(int argc, char **argv)
{
	const char *input = "perf.data", *sort = NULL, *parent = NULL;
	struct in_order gp = { 0 };	/* -g, --percent-limit */
	const char *graph, *plimit;
	bool graph_threshold;		/* -g set the graphs' threshold */
	const char *fields = NULL, *pretty = NULL, *cpu_list = NULL, *percentage = NULL;
	struct tally_session *ss = NULL;
	struct report r = { 0 };
	int nr_events = 0;
	struct tally_data_reader *rd;
	TALLY_OPTS(tally_session_stats, st);
	bool help = false, stdio_ = false, inverted = false, tui = false, no_tui = false;
	bool branch_history = false, stats = false, force = false, show_info = false;
	bool tasks = false, mmaps = false, demangle = true;
	bool dump_raw = false;
	int max_stack = -1;	/* not given: every frame */
	char *text = NULL;	/* the browser's: what --stdio prints */
	size_t text_len = 0;
	FILE *tty_out = NULL, *mem = NULL;
	int children = -1;	/* the last of --children/--no-children wins, as perf */
	int group = -1;		/* --group 1, --no-group 0: the file's groups decide */
	int group_sort = 0;	/* --group-sort-idx */
	int branch = -1;	/* -b, --no-branch-stack; -1: as the file's header says */
	const char *time_quantum = NULL;
	char sort_as_fields[4096];	/* -s naming a count, as perf's -F */
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_BOOL('f', "force", &force, "perf's: read a file another user owns (tally always does)"),
		CLI_STRING(0, "from", &r.from.url, "URL", "a store's profile, http://HOST:8123/?database=DB, instead of a file"),
		CLI_STRING(0, "since", &r.from.since, "T", "--from: rows since T: 1h (that long ago), 'YYYY-MM-DD HH:MM:SS' (UTC)"),
		CLI_STRING(0, "until", &r.from.until, "T", "--from: rows before T"),
		CLI_STRING(0, "where", &r.from.where, "K=V,...", "--from: host, comm, thread, exe, cgroup, pid, tid, kind, event, build"),
		CLI_STRING(0, "store-auth-file", &r.from.auth_file, "FILE", "--from: user=NAME and password=SECRET lines (else $TALLY_STORE_USER, $TALLY_STORE_PASSWORD)"),
		CLI_STRING('s', "sort", &sort, "KEYS", "comm, pid, dso, sym, cpu, srcline, parent, trace, the sample fields' keys (man tally-report) (default comm,dso,sym; trace when every event is a tracepoint)"),
		CLI_STRING('F', "fields", &fields, "FIELDS",
			   "the columns: overhead, overhead_children, period, sample and sort keys"),
		CLI_CALLBACK_F(0, "children", &children, NULL, "add callers' share (default with call chains)", opt_children, 0, 1),
		CLI_CALLBACK_F(0, "no-children", &children, NULL, "self overhead only", opt_children, 0, 0),
		CLI_CALLBACK_F(0, "group", &group, NULL, "a group's events in one table (default for recorded groups; without any: all events)", opt_children, 0, 1),
		CLI_CALLBACK_F(0, "no-group", &group, NULL, "each event of a group in a table of its own", opt_children, 0, 0),
		CLI_INT(0, "group-sort-idx", &group_sort, "N", "groups' rows by member N first (0: the leader)", 0, INT_MAX),
		CLI_CALLBACK_F('g', "call-graph", &gp, "MODE,...",
			       "graph|fractal|flat|folded|none, threshold %, limit, caller|callee, function|address, percent|period|count (default graph,0.5,caller)",
			       opt_in_order, CLI_OPT_OPTNEXT, 0),
		CLI_BOOL('G', "inverted", &inverted, "call graphs root first (-g caller)"),
		CLI_STRING('p', "parent", &parent, "REGEX", "the parent key's callers (default ^sys_|^do_page_fault)"),
		CLI_BOOL('x', "exclude-other", &r.filter.exclude_other, "only rows with a parent"),
		CLI_STRING('c', "comms", &r.filter.comms, "LIST", "only these commands"),
		CLI_STRING_F(0, "comm", &r.filter.comms, "LIST", NULL, CLI_OPT_HIDDEN),
		CLI_STRING(0, "pid", &r.filter.pids, "LIST", "only these processes"),
		CLI_STRING(0, "tid", &r.filter.tids, "LIST", "only these threads"),
		CLI_STRING('d', "dsos", &r.filter.dsos, "LIST", "only these shared objects"),
		CLI_STRING('S', "symbols", &r.filter.symbols, "LIST", "only these symbols"),
		CLI_STRING(0, "symbol-filter", &r.filter.symbol_filter, "TEXT",
			   "only rows whose symbol holds TEXT (callers' rows tested too)"),
		CLI_BOOL('U', "hide-unresolved", &r.hide_unresolved,
			 "leave out samples whose address has no symbol, and such frames of chains"),
		CLI_INT(0, "max-stack", &max_stack, "N",
			"at most N frames of each call chain (the outermost with caller order, as perf) (default: kernel.perf_event_max_stack)",
			1, INT_MAX),
		CLI_STRING(0, "time", &r.time_str, "RANGES", "only samples in START,STOP (seconds; several: space-separated) or percents of the recording (10%/2, 0%-10%)"),
		CLI_STRING('C', "cpu", &cpu_list, "LIST", "only samples on these CPUs (0-3,7)"),
		CLI_STRING(0, "time-quantum", &time_quantum, "TIME", "the time key's step: N[s|ms|us|ns] (default 100ms; no unit: ns)"),
		CLI_BOOL(0, "ns", &r.ns, "the time key in nanoseconds"),
		CLI_STRING(0, "percentage", &percentage, "relative|absolute", "with filters: percentages of what they keep, or of the whole (default absolute)"),
		CLI_CALLBACK_F(0, "percent-limit", &gp, "PCT",
			       "hide rows and call graph branches below PCT percent", opt_in_order, 0, 1),
		CLI_BOOL(0, "stdio", &stdio_, "text output (the default off a terminal)"),
		CLI_BOOL(0, "tui", &tui, "the interactive browser (the default on a terminal)"),
		CLI_BOOL(0, "no-tui", &no_tui, "text output, on a terminal too"),
		CLI_STRING(0, "symfs", &r.symfs, "DIR", "look for files with symbols relative to DIR"),
		CLI_BOOL_F(0, "demangle", &demangle, "C++ and Rust symbols demangled (default; --no-demangle: their linkage names)", CLI_OPT_NEG),
		CLI_STRING(0, "kallsyms", &r.kallsyms, "FILE", "the kernel's symbols from FILE (a copy of /proc/kallsyms)"),
		CLI_BOOL(0, "no-inline", &r.no_inline,
			 "an unwound frame is its symbol alone, not the functions inlined there"),
		CLI_BOOL('n', "show-nr-samples", &r.show_nr, "a Samples column (the rows' own samples)"),
		CLI_BOOL(0, "show-total-period", &r.show_period, "a Period column (the rows' own period)"),
		CLI_BOOL(0, "show-cpu-utilization", &r.cpu_util, "sys and usr columns: the rows' own shares in the kernel and in user space"),
		CLI_BOOL(0, "hierarchy", &r.hierarchy, "a level per sort key, each entry under its parent"),
		CLI_CALLBACK_F('b', "branch-stack", &branch, NULL, "a row per branch of the samples' branch stacks (default when the file has them)", opt_children, 0, 1),
		CLI_CALLBACK_F(0, "no-branch-stack", &branch, NULL, "rows of the samples, not their branches", opt_children, 0, 0),
		CLI_BOOL(0, "branch-history", &branch_history, "call graphs of the samples' branch stacks, each frame's branch counts (-g implied)"),
		CLI_BOOL(0, "mem-mode", &r.mem_mode, "memory access profile: samples weigh their weights; the mem keys"),
		CLI_BOOL('q', "quiet", &r.quiet, "rows and graphs only: no '#' lines"),
		CLI_STRING('t', "field-separator", &r.sep, "SEP",
			   "the columns joined by SEP, not padded apart (SEP's first character in a cell becomes '.')"),
		CLI_BOOL('T', "threads", &r.show_threads, "per-thread counts of the events (perf record -s) after the rows"),
		CLI_STRING(0, "pretty", &pretty, "KEY", "-T's layout: normal or raw"),
		CLI_BOOL(0, "header", &r.header, "show the file's header first"),
		CLI_BOOL(0, "header-only", &r.header_only, "show only the file's header"),
		CLI_BOOL('I', "show-info", &show_info, "with --header: the topology, caches and memory in full"),
		CLI_BOOL(0, "stats", &stats, "only the records' counts by type, and each event's samples"),
		CLI_BOOL(0, "tasks", &tasks, "only the threads, each under the one that forked it"),
		CLI_BOOL(0, "mmaps", &mmaps, "as --tasks, with each thread's maps"),
		CLI_BOOL('D', "dump-raw-trace", &dump_raw, "every record in hex and decoded, as perf report -D, then --stats"),
		CLI_BOOL(0, "folded", &r.exp.folded, "collapsed stacks for flame graphs: comm;root;...;leaf count"),
		CLI_STRING(0, "flamegraph", &r.exp.flamegraph, "FILE.svg", "an interactive flame graph (SVG)"),
		CLI_STRING(0, "pprof", &r.exp.pprof, "FILE", "pprof's profile.proto, gzipped (go tool pprof)"),
		CLI_STRING(0, "speedscope", &r.exp.speedscope, "FILE", "speedscope's JSON, a profile per thread in time order"),
		CLI_STRING(0, "html", &r.exp.html, "FILE", "one offline page: summary, functions, flame graph, callers"),
		CLI_STRING(0, "firefox", &r.exp.firefox, "FILE", "the Firefox Profiler's (Gecko) JSON, with the timeline"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	int ret = 0;

	if (cli_parse("report", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, report_usage, opts);
		return 0;
	}
	if (stats || dump_raw)
		return report_stats(input, dump_raw, branch);
	if (tasks || mmaps)
		return report_tasks(input, mmaps);
	if (percentage && strcmp(percentage, "relative") && strcmp(percentage, "absolute")) {
		fprintf(stderr, "tally report: --percentage '%s': relative or absolute\n", percentage);
		return 129;
	}
	r.relative = percentage && !strcmp(percentage, "relative");
	if (time_quantum && report_parse_time_quantum(time_quantum, &r.time_quantum))
		return 129;
	/* perf's rule: a '.' stands in for the separator inside cells */
	if (r.sep && !strcmp(r.sep, ".")) {
		fprintf(stderr, "tally report: '.' is the only non valid --field-separator argument\n");
		return 129;
	}
	if (r.sep && !*r.sep)
		r.sep = NULL;
	/* perf takes any other word for normal */
	if (pretty && strcmp(pretty, "normal") && strcmp(pretty, "raw")) {
		fprintf(stderr, "tally report: --pretty '%s': normal or raw\n", pretty);
		return 129;
	}
	/* a bare -g is perf's default value, given: caller order, and chains wanted */
	graph = gp.at[0] && !gp.arg[0] ? "graph,0.5,caller,function,percent" : gp.arg[0];
	plimit = gp.arg[1];
	r.cg = (struct cg_param){ .mode = CG_GRAPH, .min_percent = -1 };
	if (graph && cg_parse(&r.cg, graph, "report"))
		return 129;
	graph_threshold = r.cg.min_percent >= 0;
	if (!graph_threshold)
		r.cg.min_percent = 0.5;
	if (inverted)
		r.cg.caller = r.cg.order_set = true;
	/* perf's --branch-history sets its keys as if given (-F adds them as columns) */
	if (branch_history && !sort && !r.mem_mode)
		sort = "srcline,symbol,dso";
	r.sort_spec = sort;
	if (fields)
		r.cpu_util = false;	/* -F's columns alone, as perf */
	if (r.hierarchy && r.cpu_util) {
		fprintf(stderr, "tally report: --show-cpu-utilization with --hierarchy: its columns are not made there\n");
		return 129;
	}
	if (r.hierarchy && fields) {
		/* perf says so too (and exits 0) */
		fprintf(stderr, "tally report: --hierarchy and --fields options cannot be used together\n");
		return 129;
	}
	/*
	 * perf's -s naming a count (overhead, sample, period): a column in
	 * its place after Overhead, the rows ordered by overhead then the
	 * list, as -F overhead,LIST orders them
	 */
	if (sort && !fields && report_sort_names_count(sort)) {
		if (report_sort_count_fields(sort, sort_as_fields, sizeof(sort_as_fields))) {
			fprintf(stderr, "tally report: --sort '%s': too long\n", sort);
			return 129;
		}
		fields = sort_as_fields;
		sort = NULL;
		r.cpu_util = false;	/* as -F's */
	}
	/* perf 6.1's default order in memory mode (its local_p_stage_cyc is POWER's alone) */
	if (fields ? parse_fields(&r, fields, sort) :
	    parse_sort(&r, sort ? sort : r.mem_mode ? "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,"
			   "snoop,tlb,locked,blocked,local_ins_lat" : "comm,dso,sym"))
		return 129;
	/*
	 * perf adds its ipc_null column (a key of the sampled function, no
	 * IPC without branch stacks) to any -s naming "symbol" (symbol_daddr)
	 */
	r.ipc_at = -1;
	if (sort && !fields && strstr(sort, "symbol") && r.nsort < K__NR) {
		r.ipc_at = r.nsort;
		r.sort[r.nsort++] = K_SYM;
	}
	/* a --parent of one's own adds the key, as perf */
	if (parent && !r.has_parent && r.nsort < K__NR) {
		r.sort[r.nsort++] = K_PARENT;
		r.has_parent = true;
	}
	if (r.has_parent) {
		/* the histogram compiles it again; here, to say what is wrong with it */
		regex_t re;
		int rc = regcomp(&re, parent ? parent : "^sys_|^do_page_fault", REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			fprintf(stderr, "tally report: --parent '%s': %s\n", parent, msg);
			return 129;
		}
		regfree(&re);
	}
	/* one --comm, --dsos or --symbols value: its column says nothing, perf drops it */
	r.elide[K_COMM] = r.filter.comms && !strchr(r.filter.comms, ',');
	r.elide[K_DSO] = r.filter.dsos && !strchr(r.filter.dsos, ',');
	r.elide[K_SYM] = r.filter.symbols && !strchr(r.filter.symbols, ',');
	if (plimit) {
		char *end;

		r.percent_limit = strtod(plimit, &end);
		if (end == plimit || *end || r.percent_limit < 0 || r.percent_limit > 100) {
			fprintf(stderr, "tally report: --percent-limit '%s': a percentage, 0 to 100\n", plimit);
			return 129;
		}
		/* perf: it is the graphs' threshold too, unless a -g threshold came later */
		if (gp.at[1] > gp.at[0] || !graph_threshold)
			r.cg.min_percent = r.percent_limit;
	}
	if (!r.from.url && (r.from.since || r.from.until || r.from.where)) {
		fprintf(stderr, "tally report: --since, --until and --where select a store's rows: with --from\n");
		return 129;
	}
	/* perf's choice: the browser on a terminal, text for --stdio or a pipe */
	if (!tui && !stdio_ && !no_tui && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		tui = true;
	/* the browser reads the '#' header: -q's rows alone stay text; its rows are flat */
	if (stdio_ || no_tui || r.quiet || r.hierarchy || r.header || r.header_only || report_exports_any(&r.exp))
		tui = false;
	/*
	 * The store's merged profile, as a perf.data in memory: per host and
	 * thread where a row or a picture shows threads (the pid key, --pid
	 * and --tid, the browser's thread zoom, the per-thread timelines),
	 * else the server merges each thread name's rows across hosts.
	 */
	if (r.from.url) {
		for (int i = 0; i < r.nsort; i++)
			r.from.threads |= r.sort[i] == K_PID;
		r.from.threads |= tui || r.exp.speedscope || r.exp.firefox || r.filter.pids ||
				  r.filter.tids;
		if ((ret = cli_from_read(&r.from, "report", NULL, &input)))
			goto out;
		r.exp.name = r.from.url;	/* the pictures' titles: the store, not the memfd */
	}
	if (!tui)
		pager_start();
	/* one thread writes the report: no lock per stdio call (80k calls on a compiler's profile) */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	{
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r,
			   .record = r.show_threads ? on_record : NULL, .no_inline = r.no_inline,
			   .symfs = r.symfs, .kallsyms = r.kallsyms, .no_demangle = !demangle);

		if (!(ss = cli_session_open("report", input, &so, &ret)))
			goto out;
		if (r.from.url && (ret = tally_store_profile__apply(r.from.profile, ss))) {
			fprintf(stderr, "tally report: %s\n", strerror(-ret));
			ret = 1;
			goto out;
		}
	}
	rd = tally_session__reader(ss);
	nr_events = tally_session__nr_events(ss);
	if ((ret = cli_sample_filter_init(&r.sf, "report", ss, r.time_str, cpu_list)))
		goto out;
	r.ss = ss;
	r.mispredict = "N/A";
	r.cells = (struct hist_cells){ .ss = ss, .dsos = r.filter.dsos != NULL, .sep = r.sep != NULL,
				       .mispredict = &r.mispredict, .ns = r.ns };
	report_threads_init(&r.threads, rd, nr_events);
	if (r.header || r.header_only)
		print_file_header_part(stdout, rd, input, true, show_info);
	if (r.header_only)
		goto out;
	/* --branch-history: the samples' rows (no branch mode), their stacks in the graphs */
	if ((ret = branch_setup(&r, rd, nr_events, branch_history ? 0 : branch, sort, fields, input)) ||
	    (branch_history && (ret = report_brhist_setup(rd, nr_events))))
		goto out;
	if (r.mem_mode && !tally_data_reader__is_pipe(rd) && !any_data_src(rd, nr_events)) {
		fprintf(stderr, "tally report: --mem-mode but no event of %s has data sources "
			"(PERF_SAMPLE_DATA_SRC): was it recorded without -d?\n", input);
		ret = 1;
		goto out;
	}
	/*
	 * perf's report__setup_sample_type: call graphs or the parent key
	 * asked of a file without chains. The parent key would be [other]
	 * for all: refused, as perf. -g: said, and the rows shown without
	 * graphs (perf shows nothing and exits 0: docs/perf-differences.md).
	 */
	if (!tally_data_reader__is_pipe(rd) && !r.from.url && !any_sample_type(rd, nr_events, PERF_SAMPLE_CALLCHAIN)) {
		if (r.has_parent) {
			fprintf(stderr, "tally report: --sort parent, but no event of %s has call chains: was it recorded without -g?\n",
				input);
			ret = 1;
			goto out;
		}
		if (graph && r.cg.mode != CG_NONE && !branch_history)
			fprintf(stderr, "tally report: -g, but no event of %s has call chains (recorded without -g?): the rows without call graphs\n",
				input);
	}
	/* every event a tracepoint: perf's default key is the trace text */
	if (!r.branch && !sort && !fields && all_tracepoints(rd, nr_events)) {
		r.nsort = 0;
		add_sort_key(&r, K_TRACE);
		if (r.has_parent)	/* --parent's key, after it as before */
			r.sort[r.nsort++] = K_PARENT;
	}
	/*
	 * perf's default: children when the samples have call chains (only
	 * then), decided before reading: a pipe's attrs come too late for it,
	 * so a pipe gets self overhead only, --children or not (as perf 6.1).
	 */
	for (int i = 0; i < nr_events && !tally_data_reader__is_pipe(rd); i++)
		if (tally_data_reader__attr(rd, i)->sample_type & PERF_SAMPLE_CALLCHAIN)
			r.children = children != 0;
	/*
	 * perf shows children's graphs root first, self graphs leaf first.
	 * perf orders graphs from the root whenever children are asked for
	 * (the default) before it reads: on a pipe too, where it then shows
	 * self overhead only. An explicit --no-children keeps leaf first.
	 */
	if (!r.cg.order_set)
		r.cg.caller = r.children ||
			      (tally_data_reader__is_pipe(rd) && children != 0);
	/* perf's hierarchy has no callers' share (the graphs' order decided as with it) */
	if (r.hierarchy || r.mem_mode)	/* mem-mode too: perf's cumulate_callchain off */
		r.children = false;
	/* perf keeps its Children and Self columns beside such a -s's counts: not made here */
	if (r.children && fields == sort_as_fields) {
		fprintf(stderr, "tally report: --sort naming overhead, sample or period is taken without children only (--no-children)\n");
		ret = 129;
		goto out;
	}
	/*
	 * --branch-history: perf's callers' share as above (on where the
	 * samples have chains), its order that of --children (root first
	 * unless --no-children) with chains or without
	 */
	if (branch_history && !r.cg.order_set)
		r.cg.caller = children != 0;
	/* every key elided: perf shows them all again (the '#' lines still name the values) */
	bool all_elided = r.nsort > 0;

	for (int i = 0; i < r.nsort; i++)
		all_elided &= r.elide[r.sort[i]];
	if (all_elided)
		memset(r.elide, 0, sizeof(r.elide));
	{
		int order[3 * K__NR + 4];
		uint64_t elide = 0;

		for (int i = 0; i < r.nsort; i++)
			if (r.elide[r.sort[i]])
				elide |= 1ull << r.sort[i];
		TALLY_OPTS(tally_hist_opts, ho, .keys = r.sort, .nr_keys = r.nsort, .elide = elide,
			   .hide_unresolved = r.hide_unresolved,
			   .max_stack = max_stack > 0 ? (uint32_t)max_stack : 0,
			   .time_quantum = r.time_quantum,
			   .cpu_util = fields ? hist_fields_cpu_util(&r.fields) : r.cpu_util,
			   .chains = report_exports_any(&r.exp) || tui, .children = r.children,
			   .graph = r.cg.mode != CG_NONE || branch_history,
			   .order = r.cg.caller ? TALLY_HIST_CALLER : TALLY_HIST_CALLEE,
			   .address = r.cg.address, .no_inline = r.no_inline, .parent = parent,
			   .timeline = r.exp.firefox || r.exp.speedscope ||
				       ((r.exp.flamegraph || r.exp.html) &&
					report_offcpu_event(ss) >= 0),
			   /* text's graphs have one threshold: rows under it print no tree, none is made */
			   .graph_min = !tui && r.cg.mode == CG_GRAPH && !r.relative ? r.cg.min_percent : 0,
			   .mem_mode = r.mem_mode, .branch = r.branch, .branch_history = branch_history);

		r.filter.sz = sizeof(r.filter);
		if (!(r.hist = tally_hist__new(ss, &ho)) || tally_hist__set_filter(r.hist, &r.filter) ||
		    tally_hist__sort(r.hist, order, row_order(&r, order))) {
			fprintf(stderr, "tally report: %s\n", strerror(r.hist ? ENOMEM : errno));
			ret = 1;
			goto out;
		}
		if ((ret = report_group_setup(&r, rd, nr_events, group, group_sort)))
			goto out;
		if (branch_history) {
			r.cg.brhist = r.hist;
			r.cg.calltrace = r.hierarchy;
		}
	}
	/* rows of the sampled functions alone need no unwinding */
	tally_session__set_unwind(ss, !(!r.children && r.cg.mode == CG_NONE && !r.has_parent &&
					 !report_exports_any(&r.exp) && !tui));
	ret = cli_session_run(ss, "report", input);
	tally_session__stats(ss, &st);
	if (!ret && r.threads.err) {
		fprintf(stderr, "tally report: -T: %s\n", strerror(-r.threads.err));
		ret = 1;
	}
	if (!ret && r.hist_err) {
		fprintf(stderr, "tally report: counting the samples: %s\n", strerror(-r.hist_err));
		ret = 1;
	}
	if (!ret && !st.samples) {
		/* perf's words (and its status, 0); no picture of nothing is written */
		fprintf(stderr, "Error:\nThe %s data has no samples!\n", input ? input : "perf.data");
		goto out;
	}
	if (report_exports_any(&r.exp)) {
		/* the pictures are of the first event with samples */
		int idx = 0;

		while (idx + 1 < nr_events && !report_totals(&r, idx).samples)
			idx++;
		if (report_export(&r.exp, r.hist, ss, input, idx))
			ret = 1;
		goto out;
	}
	if (tally_hist__resort(r.hist) ||
	    (r.branch && report_branch_stats(r.hist, &r.filter, nr_events, &r.brstat))) {
		fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
		ret = 1;
		goto out;
	}
	/* the browser reads the very text --stdio prints */
	if (tui && (mem = open_memstream(&text, &text_len))) {
		tty_out = stdout;
		stdout = mem;
		/* the browser's 'i': the file's header, as perf's (host, kernel, command, CPUs) */
		print_file_header(stdout, rd, input);
		r.header = true;
	}
	for (int i = 0, first = 1; i < nr_events; i++)
		if (report_totals(&r, i).samples && (!r.group_view || r.gnr[i])) {
			if (first)
				report_print_preamble(&r, st.lost_samples);
			first = 0;
			/* perf sets --symbol-filter on the first event's rows alone */
			if (i > 0 && r.filter.symbol_filter && !r.sf_other) {
				r.sf_other = true;
				report_symbol_filter_on(&r, false);
			}
			print_hist(&r, i);
		}
	/* text only, as perf's: the browser would take the table for a row's graph */
	if (r.show_threads && !tty_out)
		report_threads_print(stdout, &r.threads, pretty && !strcmp(pretty, "raw"));
	print_unresolved(&r);
	report_print_unwind(ss, r.quiet);
	if (r.branch && !tty_out)	/* perf's last lines */
		report_branch_print(stdout, &r.brstat);
	if (tty_out) {
		int idx[nr_events], n = 0;

		stdout = tty_out;
		tty_out = NULL;
		if (fclose(mem)) {
			fprintf(stderr, "tally report: out of memory for the browser\n");
			ret = 1;
			goto out;
		}
		for (int i = 0; i < nr_events; i++)
			if (report_totals(&r, i).samples && (!r.group_view || r.gnr[i]))
				idx[n++] = i;
		ret = report_browse(text, r.hist, ss, input, idx, n);
	}
out:
	free(text);
	report_threads_free(&r.threads);
	report_group_free(&r);
	cli_sample_filter_free(&r.sf);
	if (cli_free_at_exit())
		tally_hist__free(r.hist);
	tally_session__close(ss);	/* joins the helpers: the kallsyms cache they write */
	cli_from_free(&r.from);
	return ret;
}
