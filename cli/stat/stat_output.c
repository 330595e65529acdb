// SPDX-License-Identifier: MIT
/*
 * tally stat's writers. The human, CSV (-x) and JSON (-j) layouts follow
 * perf 6.1 (tools/perf/util/stat-display.c) byte for byte where it is
 * sane: field widths, field order, the integer pcnt-running of CSV/JSON.
 * Deliberate differences: JSON writes "metric-unit" : "" where perf writes
 * "(null)"; OpenMetrics is ours (one exposition per interval).
 * Machine formats always use the C locale; only for the human layout does
 * cmd_stat.c switch LC_NUMERIC to the user's (the thousands separator of
 * perf's big_num), so nothing here depends on the locale but %'.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

#define METRIC_LEN	35	/* perf 6.1 */
#define UNIT_WIDTH	4
/* The row's cgroup column: its event's own (-G a,b), or -G's for all. */
#define ROW_CGROUP(o, r)	((r)->cgroup ? (r)->cgroup : (o)->cgroup)

static const char *state_str(enum stat_state s)
{
	return s == STAT_S_NOT_SUPPORTED ? "<not supported>" : "<not counted>";
}

static bool row_counted(const struct stat_row *r)
{
	return r->state == STAT_S_COUNTED || r->state == STAT_S_SCALED;
}

/* Display value: clocks count ns and show msec. */
static double display_val(const struct stat_row *r)
{
	return r->kind == STAT_K_CLOCK ? r->val / 1e6 : r->val;
}

/* perf's CSV/JSON pcnt-running: 100, or 100 * run / ena in u64 math. */
static double pcnt_running(const struct stat_row *r)
{
	uint64_t run = (uint64_t)r->run, ena = (uint64_t)r->ena;

	if (run == ena || ena == 0)
		return 100.0;
	return (double)(100 * run / ena);
}

const char *stat_json_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (; s && *s && o + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(buf + o, len - o, "\\u%04x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o] = '\0';
	return buf;
}

/* Prometheus label value escaping: backslash, quote, newline. */
static const char *om_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (; s && *s && o + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[o++] = '\\';
			buf[o++] = *s;
		} else if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = '\0';
	return buf;
}

int stat_aggr_label(enum stat_aggr aggr, const struct stat_row *r, char *buf, size_t len)
{
	switch (aggr) {
	case STAT_AGGR_CPU:
		return snprintf(buf, len, "CPU%d", r->key);
	case STAT_AGGR_THREAD:
		return snprintf(buf, len, "%s-%d", r->comm ? r->comm : "", r->key);
	case STAT_AGGR_CORE:
		return snprintf(buf, len, "S%d-D%d-C%d", r->socket, r->die, r->core);
	case STAT_AGGR_DIE:
		return snprintf(buf, len, "S%d-D%d", r->socket, r->die);
	case STAT_AGGR_SOCKET:
		return snprintf(buf, len, "S%d", r->socket);
	case STAT_AGGR_NODE:
		return snprintf(buf, len, "N%d", r->key);
	case STAT_AGGR_GLOBAL:
	default:
		if (len)
			buf[0] = '\0';
		return 0;
	}
}

static bool aggr_has_nr(enum stat_aggr a)
{
	return a == STAT_AGGR_CORE || a == STAT_AGGR_DIE || a == STAT_AGGR_SOCKET ||
	       a == STAT_AGGR_NODE;
}

/* perf's aggr_printout(): the columns before the value. */
static void aggr_prefix(struct stat_out *o, const struct stat_row *r)
{
	FILE *fp = o->fp;
	char label[160];
	bool csv = o->format == STAT_FMT_CSV;
	const char *sep = csv ? o->sep : " ";

	if (o->format == STAT_FMT_JSON) {
		static const char *const key[] = {
			[STAT_AGGR_CPU] = "cpu", [STAT_AGGR_THREAD] = "thread",
			[STAT_AGGR_CORE] = "core", [STAT_AGGR_DIE] = "die",
			[STAT_AGGR_SOCKET] = "socket", [STAT_AGGR_NODE] = "node",
		};
		char esc[320];

		if (o->aggr == STAT_AGGR_GLOBAL)
			return;
		if (o->aggr == STAT_AGGR_CPU)
			snprintf(label, sizeof(label), "%d", r->key);
		else
			stat_aggr_label(o->aggr, r, label, sizeof(label));
		fprintf(fp, "\"%s\" : \"%s\", ", key[o->aggr],
			stat_json_escape(label, esc, sizeof(esc)));
		if (aggr_has_nr(o->aggr))
			fprintf(fp, "\"aggregate-number\" : %d, ", r->nr);
		return;
	}
	switch (o->aggr) {
	case STAT_AGGR_CPU:
		fprintf(fp, "CPU%*d%s", csv ? 0 : -7, r->key, sep);
		break;
	case STAT_AGGR_THREAD:
		fprintf(fp, "%*s-%*d%s", csv ? 0 : 16, r->comm ? r->comm : "",
			csv ? 0 : -8, r->key, sep);
		break;
	case STAT_AGGR_CORE:
		fprintf(fp, "S%d-D%d-C%*d%s%*d%s", r->socket, r->die, csv ? 0 : -8,
			r->core, sep, csv ? 0 : 4, r->nr, sep);
		break;
	case STAT_AGGR_DIE:
		fprintf(fp, "S%d-D%*d%s%*d%s", r->socket, csv ? 0 : -8, r->die, sep,
			csv ? 0 : 4, r->nr, sep);
		break;
	case STAT_AGGR_SOCKET:
		fprintf(fp, "S%*d%s%*d%s", csv ? 0 : -5, r->socket, sep,
			csv ? 0 : 4, r->nr, sep);
		break;
	case STAT_AGGR_NODE:
		fprintf(fp, "N%*d%s%*d%s", csv ? 0 : -5, r->key, sep,
			csv ? 0 : 4, r->nr, sep);
		break;
	case STAT_AGGR_GLOBAL:
	default:
		break;
	}
}

static void interval_prefix(struct stat_out *o)
{
	unsigned long s = (unsigned long)(o->ts_ns / 1000000000ull);
	unsigned long ns = (unsigned long)(o->ts_ns % 1000000000ull);

	if (!o->interval)
		return;
	if (o->format == STAT_FMT_JSON)
		fprintf(o->fp, "{\"interval\" : %lu.%09lu, ", s, ns);
	else
		fprintf(o->fp, "%6lu.%09lu%s", s, ns,
			o->format == STAT_FMT_CSV ? o->sep : " ");
}

static int metric_snprint(char *buf, size_t len, enum stat_mfmt f, double v)
{
	switch (f) {
	case STAT_MF_PCT:
		return snprintf(buf, len, "%7.2f%%", v);
	case STAT_MF_7_2F:
		return snprintf(buf, len, "%7.2f ", v);
	case STAT_MF_8_3F:
	default:
		return snprintf(buf, len, "%8.3f", v);
	}
}

static int print_metric_val(FILE *fp, enum stat_mfmt f, double v)
{
	char buf[64];

	metric_snprint(buf, sizeof(buf), f, v);
	return fprintf(fp, "%s", buf);
}

static void row_human(struct stat_out *o, const struct stat_row *r)
{
	FILE *fp = o->fp;
	const char *unit = r->unit ? r->unit : "";

	if (!row_counted(r)) {
		fprintf(fp, "%18s ", state_str(r->state));
		fprintf(fp, "%-*s ", UNIT_WIDTH, unit);
		fprintf(fp, "%-25s", r->event);
		if (ROW_CGROUP(o, r) || o->cgroup_col)
			fprintf(fp, " %s", ROW_CGROUP(o, r) ? ROW_CGROUP(o, r) : "");
		fprintf(fp, "%-*s", METRIC_LEN, "");
	} else {
		double v = display_val(r);
		bool frac = r->frac;

		if (o->big_num)
			fprintf(fp, frac ? "%'18.2f " : "%'18.0f ", v);
		else
			fprintf(fp, frac ? "%18.2f " : "%18.0f ", v);
		fprintf(fp, "%-*s ", UNIT_WIDTH, unit);
		fprintf(fp, "%-32s", r->event);
		if (ROW_CGROUP(o, r) || o->cgroup_col)
			fprintf(fp, " %s", ROW_CGROUP(o, r) ? ROW_CGROUP(o, r) : "");
		if (r->has_metric) {
			int n = fprintf(fp, " # ");

			n += print_metric_val(fp, r->metric_fmt, r->metric);
			fprintf(fp, " %-*s", METRIC_LEN - n - 1, r->metric_unit);
		} else {
			fprintf(fp, "%-*s", METRIC_LEN, "");
		}
	}
	if (r->has_noise && r->noise_pct != 0)
		fprintf(fp, "  ( +-%6.2f%% )", r->noise_pct);
	if (r->run != r->ena && r->ena > 0)
		fprintf(fp, "  (%.2f%%)", 100.0 * r->run / r->ena);
	fputc('\n', fp);
}

static void row_csv(struct stat_out *o, const struct stat_row *r)
{
	FILE *fp = o->fp;
	const char *sep = o->sep;

	if (!row_counted(r))
		fprintf(fp, "%s%s", state_str(r->state), sep);
	else if (r->frac)
		fprintf(fp, "%.2f%s", display_val(r), sep);
	else
		fprintf(fp, "%.0f%s", display_val(r), sep);
	fprintf(fp, "%s%s%s", r->unit ? r->unit : "", sep, r->event);
	/* as perf: with per-event cgroups, an empty column for an event without */
	if (ROW_CGROUP(o, r) || o->cgroup_col)
		fprintf(fp, "%s%s", sep, ROW_CGROUP(o, r) ? ROW_CGROUP(o, r) : "");
	if (r->has_noise)
		fprintf(fp, "%s%.2f%%", sep, r->noise_pct);
	fprintf(fp, "%s%" PRIu64 "%s%.2f", sep, (uint64_t)r->run, sep, pcnt_running(r));
	if (row_counted(r) && r->has_metric) {
		/* perf's print_metric_csv: the number without padding or '%'. */
		char buf[64], *v, *end;

		metric_snprint(buf, sizeof(buf), r->metric_fmt, r->metric);
		for (v = buf; *v == ' '; v++)
			;
		for (end = v; (*end >= '0' && *end <= '9') || *end == '.' || *end == '-'; end++)
			;
		*end = '\0';
		fprintf(fp, "%s%s%s%s", sep, v, sep, r->metric_unit);
	} else {
		fprintf(fp, "%s%s", sep, sep);
	}
	fputc('\n', fp);
}

static void row_json(struct stat_out *o, const struct stat_row *r)
{
	FILE *fp = o->fp;
	char esc[512];

	if (!row_counted(r))
		fprintf(fp, "\"counter-value\" : \"%s\", ", state_str(r->state));
	else
		fprintf(fp, "\"counter-value\" : \"%f\", ", display_val(r));
	fprintf(fp, "\"unit\" : \"%s\", ", r->unit ? r->unit : "");
	fprintf(fp, "\"event\" : \"%s\", ", stat_json_escape(r->event, esc, sizeof(esc)));
	if (ROW_CGROUP(o, r) || o->cgroup_col)
		fprintf(fp, "\"cgroup\" : \"%s\", ",
			stat_json_escape(ROW_CGROUP(o, r) ? ROW_CGROUP(o, r) : "", esc, sizeof(esc)));
	if (r->has_noise)
		fprintf(fp, "\"variance\" : %.2f, ", r->noise_pct);
	fprintf(fp, "\"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f, ",
		(uint64_t)r->run, pcnt_running(r));
	if (row_counted(r) && r->has_metric)
		fprintf(fp, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n",
			r->metric, r->metric_unit);
	else
		fprintf(fp, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n", 0.0, "");
}

static void om_keep(struct stat_out *o, const struct stat_row *r)
{
	if (o->om_nr == o->om_cap) {
		int cap = o->om_cap ? o->om_cap * 2 : 16;
		struct stat_row *n = reallocarray(o->om_rows, (size_t)cap, sizeof(*n));

		if (!n)
			return;	/* a row lost to ENOMEM; the rest still prints */
		o->om_rows = n;
		o->om_cap = cap;
	}
	o->om_rows[o->om_nr++] = *r;
}

void stat_out_row(struct stat_out *o, const struct stat_row *r)
{
	if (o->format == STAT_FMT_OPENMETRICS) {
		om_keep(o, r);
		return;
	}
	interval_prefix(o);
	if (o->format == STAT_FMT_CSV && o->csv_summary && !o->interval)
		fprintf(o->fp, "%16s%s", "summary", o->sep);	/* perf's */
	if (o->format == STAT_FMT_JSON && !o->interval)
		fputc('{', o->fp);
	aggr_prefix(o, r);
	switch (o->format) {
	case STAT_FMT_CSV:
		row_csv(o, r);
		break;
	case STAT_FMT_JSON:
		row_json(o, r);
		break;
	default:
		row_human(o, r);
		break;
	}
}

void stat_out_header(struct stat_out *o, const char *target, int runs)
{
	o->mo_header = o->metric_only;
	if (o->format != STAT_FMT_HUMAN || o->interval)
		return;
	fprintf(o->fp, "\n Performance counter stats for %s", target);
	if (runs > 1)
		fprintf(o->fp, " (%d runs)", runs);
	fprintf(o->fp, ":\n\n");
}

void stat_out_interval_header(struct stat_out *o)
{
	FILE *fp = o->fp;

	if (o->metric_only) {
		/* the metric header, repeated as perf repeats its own */
		o->mo_header = o->nr_intervals++ % 25 == 0;
		return;
	}
	if (o->format != STAT_FMT_HUMAN)
		return;
	if (o->nr_intervals++ % 25)
		return;
	switch (o->aggr) {
	case STAT_AGGR_NODE:
		fprintf(fp, "#           time node   cpus");
		break;
	case STAT_AGGR_SOCKET:
		fprintf(fp, "#           time socket cpus");
		break;
	case STAT_AGGR_DIE:
		fprintf(fp, "#           time die          cpus");
		break;
	case STAT_AGGR_CORE:
		fprintf(fp, "#           time core            cpus");
		break;
	case STAT_AGGR_CPU:
		fprintf(fp, "#           time CPU    ");
		fprintf(fp, "                counts %*s events\n", UNIT_WIDTH, "unit");
		return;
	case STAT_AGGR_THREAD:
		fprintf(fp, "#           time             comm-pid");
		fprintf(fp, "                  counts %*s events\n", UNIT_WIDTH, "unit");
		return;
	case STAT_AGGR_GLOBAL:
	default:
		fprintf(fp, "#           time");
		break;
	}
	fprintf(fp, "             counts %*s events\n", UNIT_WIDTH, "unit");
}

/* ---- --metric-only ---- */

#define METRIC_ONLY_LEN	20	/* perf's column width */

/*
 * The column a row has in --metric-only, or NULL: perf's
 * valid_only_metric() leaves out rates (/sec) and CPUs utilized, and
 * fixunit() names a share's event ("branch-misses of all branches").
 * The column exists whether or not the row counted, so every line of
 * a run has the same columns.
 */
static const char *mo_unit(const struct stat_row *r, char *buf, size_t len)
{
	switch (r->kind) {
	case STAT_K_CYCLES:
		return "GHz";
	case STAT_K_INSTRUCTIONS:
		return "insn per cycle";
	case STAT_K_BRANCH_MISSES:
		snprintf(buf, len, "%s of all branches", r->event);
		return buf;
	case STAT_K_CACHE_MISSES:
		snprintf(buf, len, "%s of all cache refs", r->event);
		return buf;
	default:
		return NULL;
	}
}

/* The metric as CSV and JSON carry it: no padding, no '%'. */
static const char *mo_bare(const struct stat_row *r, char *buf, size_t len)
{
	char *v, *end;

	if (!row_counted(r) || !r->has_metric) {
		buf[0] = '\0';
		return buf;
	}
	metric_snprint(buf, len, r->metric_fmt, r->metric);
	for (v = buf; *v == ' '; v++)
		;
	for (end = v; (*end >= '0' && *end <= '9') || *end == '.' || *end == '-'; end++)
		;
	*end = '\0';
	return v;
}

static int mo_width(const char *unit)
{
	int n = (int)strlen(unit);

	return n < METRIC_ONLY_LEN ? METRIC_ONLY_LEN : n + 1;
}

/* perf's aggr_header_csv: the names of the columns before the metrics */
static const char *mo_csv_aggr_header(enum stat_aggr a)
{
	switch (a) {
	case STAT_AGGR_CPU:	return "cpu";
	case STAT_AGGR_THREAD:	return "comm-pid";
	case STAT_AGGR_CORE:	return "core,cpus";
	case STAT_AGGR_DIE:	return "die,cpus";
	case STAT_AGGR_SOCKET:	return "socket,cpus";
	case STAT_AGGR_NODE:	return "node,cpus";
	default:		return NULL;
	}
}

static void mo_header(struct stat_out *o, const struct stat_row *rows, int n)
{
	FILE *fp = o->fp;
	char buf[320];
	const char *u;

	if (o->format == STAT_FMT_JSON)
		return;		/* each JSON line names its metrics */
	if (o->format == STAT_FMT_CSV) {
		const char *a = mo_csv_aggr_header(o->aggr);

		if (o->interval)
			fprintf(fp, "time%s", o->sep);
		if (a)
			fprintf(fp, "%s%s", a, o->sep);
		for (int i = 0; i < n; i++)
			if ((u = mo_unit(&rows[i], buf, sizeof(buf))))
				fprintf(fp, "%s%s", u, o->sep);
		fputc('\n', fp);
		return;
	}
	/* as wide as the line's own prefix, so the units sit over their values */
	if (o->interval)
		fprintf(fp, "#%16s", "time ");
	{
		FILE *save = o->fp;
		char *pre = NULL;
		size_t plen = 0;
		FILE *m = open_memstream(&pre, &plen);

		if (m) {
			o->fp = m;
			aggr_prefix(o, &rows[0]);
			fclose(m);
			o->fp = save;
			fprintf(fp, "%*s", (int)plen, "");
			free(pre);
		}
	}
	for (int i = 0; i < n; i++)
		if ((u = mo_unit(&rows[i], buf, sizeof(buf))))
			fprintf(fp, "%*s ", mo_width(u), u);
	fputc('\n', fp);
}

void stat_out_metric_line(struct stat_out *o, const struct stat_row *rows, int n)
{
	FILE *fp = o->fp;
	char ubuf[320], vbuf[64], esc[320];
	const char *u;
	bool first = true;

	if (n <= 0)
		return;
	if (o->mo_header) {
		mo_header(o, rows, n);
		o->mo_header = false;
	}
	interval_prefix(o);
	if (o->format == STAT_FMT_JSON && !o->interval)
		fputc('{', fp);
	aggr_prefix(o, &rows[0]);
	for (int i = 0; i < n; i++) {
		const struct stat_row *r = &rows[i];

		if (!(u = mo_unit(r, ubuf, sizeof(ubuf))))
			continue;
		switch (o->format) {
		case STAT_FMT_JSON:
			fprintf(fp, "%s\"%s\" : \"%s\"", first ? "" : ", ",
				stat_json_escape(u, esc, sizeof(esc)), mo_bare(r, vbuf, sizeof(vbuf)));
			break;
		case STAT_FMT_CSV:
			fprintf(fp, "%s%s", mo_bare(r, vbuf, sizeof(vbuf)), o->sep);
			break;
		default:
			if (row_counted(r) && r->has_metric)
				metric_snprint(vbuf, sizeof(vbuf), r->metric_fmt, r->metric);
			else
				vbuf[0] = '\0';
			fprintf(fp, "%*s ", mo_width(u), vbuf);
			break;
		}
		first = false;
	}
	if (o->format == STAT_FMT_JSON)
		fputc('}', fp);
	fputc('\n', fp);
}

/* --table, as perf's print_table(): each run, its deviation, a bar. */
static void print_table(FILE *fp, const struct stat_footer *f, int prec)
{
	char tmp[64];
	int indent = 0;
	double avg = f->elapsed_s;

	snprintf(tmp, sizeof(tmp), " %17.*f", prec, avg);
	while (tmp[indent] == ' ')
		indent++;
	fprintf(fp, "%*s# Table of individual measurements:\n", indent, "");
	for (int i = 0; i < f->ntable; i++) {
		double run = f->table[i];
		int n = run != 0 ? 1 + abs((int)(100.0 * (run - avg) / run) / 5) : 1;

		fprintf(fp, " %17.*f (%+.*f) ", prec, run, prec, run - avg);
		for (int h = 0; h < n; h++)
			fputc('#', fp);
		fputc('\n', fp);
	}
	fprintf(fp, "\n%*s# Final result:\n", indent, "");
}

void stat_out_footer(struct stat_out *o, const struct stat_footer *f)
{
	FILE *fp = o->fp;

	if (o->format != STAT_FMT_HUMAN || o->interval)
		return;
	if (!f->null_run)
		fprintf(fp, "\n");
	if (f->runs <= 1) {
		fprintf(fp, " %17.9f seconds time elapsed", f->elapsed_s);
		if (f->show_rusage) {
			fprintf(fp, "\n\n");
			fprintf(fp, " %17.9f seconds user\n", f->user_s);
			fprintf(fp, " %17.9f seconds sys\n", f->sys_s);
		}
	} else {
		int prec = stat_precision(f->elapsed_sd) + 2;

		if (f->table && f->ntable > 0)
			print_table(fp, f, prec);
		fprintf(fp, " %17.*f +- %.*f seconds time elapsed", prec, f->elapsed_s,
			prec, f->elapsed_sd);
		if (f->elapsed_s && f->elapsed_sd)
			fprintf(fp, "  ( +-%6.2f%% )", 100.0 * f->elapsed_sd / f->elapsed_s);
	}
	fprintf(fp, "\n\n");
}

/* ---- OpenMetrics ---- */

void stat_out_om_begin(struct stat_out *o)
{
	o->om_nr = 0;
}

/* The labels of a row: event="..." and where it was counted. */
static void om_labels(struct stat_out *o, const struct stat_row *r, char *buf, size_t len)
{
	char e1[256], e2[192];
	int n = snprintf(buf, len, "event=\"%s\"", om_escape(r->event, e1, sizeof(e1)));

	if (n < 0 || (size_t)n >= len)
		return;
	switch (o->aggr) {
	case STAT_AGGR_CPU:
		snprintf(buf + n, len - (size_t)n, ",cpu=\"%d\"", r->key);
		break;
	case STAT_AGGR_THREAD:
		snprintf(buf + n, len - (size_t)n, ",tid=\"%d\",comm=\"%s\"", r->key,
			 om_escape(r->comm, e2, sizeof(e2)));
		break;
	case STAT_AGGR_CORE:
		snprintf(buf + n, len - (size_t)n, ",socket=\"%d\",die=\"%d\",core=\"%d\"",
			 r->socket, r->die, r->core);
		break;
	case STAT_AGGR_DIE:
		snprintf(buf + n, len - (size_t)n, ",socket=\"%d\",die=\"%d\"", r->socket, r->die);
		break;
	case STAT_AGGR_SOCKET:
		snprintf(buf + n, len - (size_t)n, ",socket=\"%d\"", r->socket);
		break;
	case STAT_AGGR_NODE:
		snprintf(buf + n, len - (size_t)n, ",node=\"%d\"", r->key);
		break;
	default:
		break;
	}
	n = (int)strlen(buf);
	if (ROW_CGROUP(o, r) && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",cgroup=\"%s\"",
			 om_escape(ROW_CGROUP(o, r), e2, sizeof(e2)));
}

/* The shortest of %.15g / %.17g that reads back as the same double. */
static const char *om_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
	return buf;
}

static void om_family(FILE *fp, const char *name, const char *type, const char *unit,
		      const char *help)
{
	fprintf(fp, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(fp, "# UNIT %s %s\n", name, unit);
	fprintf(fp, "# HELP %s %s\n", name, help);
}

void stat_out_om_end(struct stat_out *o, const struct stat_footer *f)
{
	FILE *fp = o->fp;
	char lab[512], e[256], num[40];
	bool any_metric = false;

	om_family(fp, "tally_event_value", "gauge", NULL,
		  "Event count over the run or interval (scaled when multiplexed; clock events in msec).");
	for (int i = 0; i < o->om_nr; i++) {
		const struct stat_row *r = &o->om_rows[i];

		if (!row_counted(r))
			continue;
		om_labels(o, r, lab, sizeof(lab));
		fprintf(fp, "tally_event_value{%s,unit=\"%s\"} %s\n", lab,
			r->unit ? r->unit : "", om_num(display_val(r), num, sizeof(num)));
	}
	om_family(fp, "tally_event_counted", "gauge", NULL,
		  "1 when the event was counted, 0 when not counted or not supported.");
	for (int i = 0; i < o->om_nr; i++) {
		const struct stat_row *r = &o->om_rows[i];

		om_labels(o, r, lab, sizeof(lab));
		fprintf(fp, "tally_event_counted{%s} %d\n", lab, row_counted(r) ? 1 : 0);
	}
	om_family(fp, "tally_event_running_ratio", "gauge", "ratio",
		  "Share of the enabled time the event was on the PMU (1 unless multiplexed).");
	for (int i = 0; i < o->om_nr; i++) {
		const struct stat_row *r = &o->om_rows[i];

		if (!row_counted(r))
			continue;
		om_labels(o, r, lab, sizeof(lab));
		fprintf(fp, "tally_event_running_ratio{%s} %s\n", lab,
			om_num(r->ena > 0 ? r->run / r->ena : 1.0, num, sizeof(num)));
	}
	for (int i = 0; i < o->om_nr; i++)
		any_metric |= row_counted(&o->om_rows[i]) && o->om_rows[i].has_metric;
	if (any_metric) {
		om_family(fp, "tally_event_metric", "gauge", NULL,
			  "Derived metric of an event (CPUs utilized, rates, IPC, miss share).");
		for (int i = 0; i < o->om_nr; i++) {
			const struct stat_row *r = &o->om_rows[i];

			if (!row_counted(r) || !r->has_metric)
				continue;
			om_labels(o, r, lab, sizeof(lab));
			/*
			 * A rate always in /sec: perf's K/M/G prefix follows the
			 * value, and a label that changes is a new series.
			 */
			fprintf(fp, "tally_event_metric{%s,metric=\"%s\"} %s\n", lab,
				r->metric_rate ? "/sec" : om_escape(r->metric_unit, e, sizeof(e)),
				om_num(r->metric_rate ? r->metric_per_sec : r->metric, num,
				       sizeof(num)));
		}
	}
	if (o->interval) {
		om_family(fp, "tally_interval_end_seconds", "gauge", "seconds",
			  "End of this interval, in seconds since counting started.");
		fprintf(fp, "tally_interval_end_seconds %.9f\n", o->ts_ns / 1e9);
	} else if (f) {
		om_family(fp, "tally_elapsed_seconds", "gauge", "seconds",
			  "Wall-clock time of the run (mean over -r runs).");
		fprintf(fp, "tally_elapsed_seconds %.9f\n", f->elapsed_s);
		if (f->show_rusage) {
			om_family(fp, "tally_cpu_seconds", "gauge", "seconds",
				  "CPU time of the workload and its children.");
			fprintf(fp, "tally_cpu_seconds{mode=\"user\"} %.6f\n", f->user_s);
			fprintf(fp, "tally_cpu_seconds{mode=\"system\"} %.6f\n", f->sys_s);
		}
	}
	fprintf(fp, "# EOF\n");
	o->om_nr = 0;
}

void stat_out_release(struct stat_out *o)
{
	free(o->om_rows);
	o->om_rows = NULL;
	o->om_nr = o->om_cap = 0;
}
