// SPDX-License-Identifier: MIT
/*
 * tally stat: count events for a command, pids, threads, CPUs or a cgroup
 * and print them as perf stat does (see docs/tally-stat.1).
 *
 * The command's entry: options (stat_opts.c) -> struct stat_config ->
 * output, locale and signals -> the runs (stat_run.c), folded into a grid
 * of [event][aggregate] cells (stat_grid.c) and printed (stat_output.c).
 * -r N folds N runs into running statistics; --compare (stat_compare.c)
 * keeps two grids, one per command, run alternately.
 */
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tally/tally.h>
#include "cli.h"
#include "stat.h"
#include "wait.h"

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

/*
 * stderr is unbuffered: printed directly, the default events' block is 56
 * write()s. Build it in memory and write it once (measured: -0.2 ms on
 * `tally stat -- true`, see bench/RESULTS.md).
 */
static void print_totals(struct stat_grid *g, struct stat_out *o,
			 const struct stat_config *cfg, const char *target)
{
	FILE *real = o->fp, *mem;
	char *buf = NULL;
	size_t len = 0;

	mem = open_memstream(&buf, &len);
	if (!mem) {
		stat_grid_print_totals(g, o, cfg, target);
		return;
	}
	o->fp = mem;
	stat_grid_print_totals(g, o, cfg, target);
	o->fp = real;
	if (fclose(mem) == 0)
		fwrite(buf, 1, len, real);
	free(buf);
}

/*
 * -M on a machine that cannot count a metric's events: say so, by
 * name, instead of leaving the reader to infer it from the rows.
 */
static void metrics_note(const struct stat_config *cfg, const struct stat_grid *g)
{
	char *dup = strdup(cfg->metrics), *tok, *save = NULL;

	for (tok = dup ? strtok_r(dup, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		const char *ev = stat_metric_events(tok);
		bool missing = false;

		for (int i = 0; ev && i < g->nev; i++)
			if (!g->ev[i].supported && strstr(ev, g->ev[i].name))
				missing = true;
		if (missing)
			fprintf(stderr, "tally stat: metric %s needs %s, which this machine does not count "
				"(no hardware PMU): it cannot be shown\n", tok, ev);
	}
	free(dup);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_config cfg = STAT_CONFIG_INIT;
	struct stat_out out = { 0 };
	struct tally_topology *topo = NULL;
	struct stat_grid grid = { 0 };
	struct stat_run_ctx rc = { .cfg = &cfg, .out = &out, .grid = &grid };
	struct cli_control ctl = { .ctl_fd = -1, .ack_fd = -1 };
	char *target = NULL;
	FILE *fp = NULL;
	int ret = 0;

	if (stat_parse_args(&cfg, argc, argv, stderr))
		return 129;
	if (cfg.help) {
		stat_usage(stdout);
		return 0;
	}
	stat_grid_set_scale(cfg.scale);
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
	if (cli_signals_setup()) {
		ret = 1;
		goto out;
	}
	out = (struct stat_out){
		.fp = fp, .format = cfg.format, .aggr = cfg.aggr, .sep = cfg.csv_sep,
		.big_num = cfg.big_num, .metric_only = cfg.metric_only,
		.cgroup = cfg.target.cgroup_per_event ? NULL : cfg.target.cgroup,
		.cgroup_col = cfg.target.cgroup_per_event,
	};
	if (cfg.compare) {
		ret = stat_compare(&cfg, fp, &out, topo);
		goto out;
	}
	if (cfg.control) {
		ret = cli_control_open(&ctl, cfg.control, "stat");
		if (ret)
			goto out;
		rc.ctl = &ctl;
	}
	rc.topo = topo;
	rc.argv = cfg.cmd_argc ? cfg.cmd_argv : NULL;
	target = stat_target_text(&cfg, cfg.cmd_argv, cfg.cmd_argc);
	for (int i = 0; cfg.repeat == 0 || i < cfg.repeat; i++) {
		ret = stat_run_once(&rc);
		if (ret)
			goto out;
		if (cfg.repeat == 0) {
			/* -r 0, perf's "forever": each run's own totals */
			if (!cfg.quiet && !cfg.interval_ms)
				print_totals(&grid, &out, &cfg, target);
			fflush(fp);
			stat_grid_free(&grid);
		}
		if (cli_interrupted() || rc.targets_exited)
			break;	/* Ctrl-C or -p's exit during -r: print what we have */
	}
	/* -I prints no totals, unless --summary (not OpenMetrics: one
	 * exposition per interval, the file may have been replaced) */
	if (!cfg.quiet && cfg.repeat != 0 && (!cfg.interval_ms ||
			   (cfg.summary && cfg.format != STAT_FMT_OPENMETRICS))) {
		out.csv_summary = cfg.interval_ms && !cfg.no_csv_summary;
		print_totals(&grid, &out, &cfg, target);
	}
	ret = rc.exit_code;
	if (cfg.metrics)
		metrics_note(&cfg, &grid);
out:
	cli_control_close(&ctl);
	if (fp && fp != stderr && fclose(fp)) {
		fprintf(stderr, "tally stat: error writing '%s': %s\n",
			cfg.output ? cfg.output : "--log-fd", strerror(errno));
		ret = ret ? ret : 1;
	} else if (fp == stderr) {
		fflush(stderr);
	}
	stat_out_release(&out);
	stat_grid_free(&grid);
	stat_grid_free(&rc.interval_grid);
	free(target);
	tally_topology__free(topo);
	/*
	 * No command (-a, -p, -C...): Ctrl-C or kill is how counting ends;
	 * the counts are out, now die by the signal as perf does (130/143).
	 */
	if (!cfg.cmd_argc && !cfg.compare && !cfg.help)
		cli_reraise_interrupt();
	return ret;
}
