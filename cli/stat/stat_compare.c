// SPDX-License-Identifier: MIT
/*
 * tally stat --compare A ::: B: both commands run alternately -r times;
 * each event's mean B / mean A with a 95% confidence interval (delta
 * method, Welch t) and whether it excludes 1.
 */
#include <math.h>
#include <stdlib.h>
#include "stat.h"
#include "wait.h"

static const char not_supported[] = "<not supported>";

/*
 * A side's state: NULL when counted, else what plain stat (and perf)
 * writes in its place: an event the machine lacks is "<not supported>".
 */
static const char *side_state(const struct stat_grid *g, int e, const struct stat_cell *c)
{
	if (!g->ev[e].supported)
		return not_supported;
	if (!g->nag || !c->counted)
		return "<not counted>";
	return NULL;
}

static void compare_row(FILE *fp, enum stat_format fmt, const char *sep, const char *event,
			const char *unit, const struct stat_acc *a, const struct stat_acc *b,
			const char *st_a, const char *st_b)
{
	struct stat_ratio r = { 0 };
	bool ok_a = !st_a, ok_b = !st_b;
	char esc[512];

	if (ok_a && ok_b)
		stat_ratio_ci(a, b, 0.95, &r);
	switch (fmt) {
	case STAT_FMT_CSV:
		if (!ok_a || !ok_b) {
			fprintf(fp, "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n", event, sep, unit, sep,
				ok_a ? "" : st_a, sep, ok_b ? "" : st_b,
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
			/* "supported" false: a side the machine lacks the event for */
			fprintf(fp, "\"counted\" : false, \"supported\" : %s}\n",
				st_a == not_supported || st_b == not_supported ? "false" : "true");
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
		fprintf(fp, " %-32s %18s %18s\n", event, ok_a ? "" : st_a, ok_b ? "" : st_b);
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

static void print_compare(const struct stat_config *cfg, FILE *fp, struct stat_grid *ga,
			  struct stat_grid *gb, const char *ta, const char *tb)
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
		struct stat_cell *a = stat_grid_cell(ga, e, 0), *b = stat_grid_cell(gb, e, 0);
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
			    side_state(ga, e, a), side_state(gb, e, b));
	}
	compare_row(fp, cfg->format, sep,
		    cfg->format == STAT_FMT_HUMAN ? "seconds time elapsed" : "time-elapsed",
		    cfg->format == STAT_FMT_HUMAN ? "" : "seconds",
		    &ga->elapsed, &gb->elapsed, NULL, NULL);
	if (cfg->format == STAT_FMT_HUMAN || cfg->format == STAT_FMT_OPENMETRICS)
		fprintf(fp, "\n 95%% CI: delta method on the ratio of means, Welch t quantile;\n"
			    " significant: the interval excludes 1 and Welch's p < 0.05.\n\n");
}

/*
 * --compare: -r rounds of A then B, alternating, each into its own grid;
 * then the table of ratios. Returns an exit status.
 */
int stat_compare(struct stat_config *cfg, FILE *fp, struct stat_out *o,
			const struct tally_topology *topo)
{
	struct stat_grid ga = { 0 }, gb = { 0 };
	struct stat_run_ctx ra = { .cfg = cfg, .out = o, .grid = &ga, .topo = topo,
				   .argv = cfg->cmd_argv };
	struct stat_run_ctx rb = { .cfg = cfg, .out = o, .grid = &gb, .topo = topo,
				   .argv = cfg->cmd_b_argv };
	char *ta = stat_target_text(cfg, cfg->cmd_argv, cfg->cmd_argc);
	char *tb = stat_target_text(cfg, cfg->cmd_b_argv, cfg->cmd_b_argc);
	int ret = 0;

	for (int i = 0; i < cfg->repeat && !ret; i++) {
		ret = stat_run_once(&ra);
		if (!ret)
			ret = stat_run_once(&rb);
		if (!ret && cli_interrupted())
			break;
	}
	if (!ret && !cfg->quiet)
		print_compare(cfg, fp, &ga, &gb, ta ? ta : "", tb ? tb : "");
	if (!ret)
		ret = rb.exit_code ? rb.exit_code : ra.exit_code;
	stat_grid_free(&ga);
	stat_grid_free(&gb);
	stat_grid_free(&ra.interval_grid);
	stat_grid_free(&rb.interval_grid);
	free(ta);
	free(tb);
	return ret;
}
