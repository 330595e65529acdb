// SPDX-License-Identifier: MIT
/*
 * tally list [--json] [FILTER...]: every event this machine offers,
 * grouped as perf list groups them (hardware, software, tool, cache, kernel
 * PMU events from sysfs, raw and breakpoint syntax, tracepoints, libpfm4
 * events of the host CPU), the SDT events of perf's build-id cache, and
 * perf's metrics and metric groups for the host CPU. A FILTER is a glob
 * ('sched:*'), a kind (hw, sw, tool, cache, pmu, tracepoint, pfm, sdt,
 * metric, metricgroup; sw includes the tool events, as in perf list) or
 * else a substring.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>
#include "cli.h"
#include "parse_options.h"
#include "perf_metrics.h"
#include "sdt_list.h"

struct list_opts {
	bool json;
	bool help;
	const char *sysfs;	/* --sysfs=DIR: another sysfs root (tests) */
	const char *tracefs;	/* --tracefs=DIR: another tracing dir (tests) */
	char **filters;
	int nr_filters;
};

struct entry {
	const char *kind;	/* static */
	char *name;
	char *desc;
	const char *group;	/* a metric's group (static), or NULL */
};

struct entries {
	struct entry *v;
	size_t nr, cap;
	const struct list_opts *o;
	bool oom;
};

static const struct {
	const char *kind;
	const char *label;
	const char *alias;	/* filter word besides the kind */
} kinds[] = {
	{ "hardware", "Hardware event", "hw" },
	{ "software", "Software event", "sw" },
	{ "tool", "Tool event", "sw" },	/* perf list sw shows them too */
	{ "cache", "Hardware cache event", "hwcache" },
	{ "pmu", "Kernel PMU event", NULL },
	{ "raw", "Raw hardware event descriptor", NULL },
	{ "breakpoint", "Hardware breakpoint", "bp" },
	{ "uprobe", "User-space probe", NULL },
	{ "tracepoint", "Tracepoint event", "tp" },
	{ "pfm", "libpfm4 event", NULL },
	{ "sdt", "SDT event", NULL },
	{ "metric", "Metric", NULL },
	{ "metricgroup", "Metric Group", NULL },	/* no entries: a view of the metrics */
};

static const char *kind_label(const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return kinds[i].label;
	return kind;
}

static bool is_kind_word(const char *f, const char *kind)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			return !strcmp(f, kind) || (kinds[i].alias && !strcmp(f, kinds[i].alias));
	return false;
}

static bool any_kind_word(const char *f)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(f, kinds[i].kind) || (kinds[i].alias && !strcmp(f, kinds[i].alias)))
			return true;
	return false;
}

/* One name of "a OR b" against one filter. */
static bool name_matches(const char *name, size_t len, const char *f)
{
	char buf[512];

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (strpbrk(f, "*?["))
		return fnmatch(f, buf, 0) == 0;
	return strstr(buf, f) != NULL;
}

static bool matches(const struct list_opts *o, const char *kind, const char *name)
{
	if (!o->nr_filters)
		return true;
	for (int i = 0; i < o->nr_filters; i++) {
		const char *f = o->filters[i], *p = name;

		if (any_kind_word(f)) {
			if (is_kind_word(f, kind))
				return true;
			continue;
		}
		for (;;) {
			const char *or = strstr(p, " OR ");
			size_t len = or ? (size_t)(or - p) : strlen(p);

			if (name_matches(p, len, f))
				return true;
			if (!or)
				break;
			p = or + 4;
		}
	}
	return false;
}

static int collect_kind(const char *kind, const char *name, const char *desc,
			const char *group, struct entries *es)
{
	struct entry *e;

	if (es->nr == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 256;
		struct entry *v = reallocarray(es->v, cap, sizeof(*v));

		if (!v) {
			es->oom = true;
			return 1;
		}
		es->v = v;
		es->cap = cap;
	}
	e = &es->v[es->nr];
	e->kind = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].kind, kind))
			e->kind = kinds[i].kind;
	if (!e->kind)
		e->kind = "other";
	e->name = strdup(name);
	e->desc = strdup(desc ? desc : "");
	e->group = group;
	if (!e->name || !e->desc) {
		free(e->name);
		free(e->desc);
		es->oom = true;
		return 1;
	}
	es->nr++;
	return 0;
}

static int collect(const char *kind, const char *name, const char *desc, void *ctx)
{
	struct entries *es = ctx;

	if (!matches(es->o, kind, name))
		return 0;
	return collect_kind(kind, name, desc, NULL, es);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_json(const struct entries *es)
{
	printf("[");
	for (size_t i = 0; i < es->nr; i++) {
		const struct entry *e = &es->v[i];
		const char *p = e->name, *or = strstr(p, " OR ");

		printf("%s\n  {\"kind\": ", i ? "," : "");
		json_str(stdout, e->kind);
		printf(", \"name\": ");
		if (or) {
			char first[512];
			size_t len = (size_t)(or - p);

			if (len >= sizeof(first))
				len = sizeof(first) - 1;
			memcpy(first, p, len);
			first[len] = '\0';
			json_str(stdout, first);
			printf(", \"aliases\": [");
			for (bool comma = false; or; comma = true) {
				const char *next;

				p = or + 4;
				next = strstr(p, " OR ");
				len = next ? (size_t)(next - p) : strlen(p);
				if (len >= sizeof(first))
					len = sizeof(first) - 1;
				memcpy(first, p, len);
				first[len] = '\0';
				printf("%s", comma ? ", " : "");
				json_str(stdout, first);
				or = next;
			}
			printf("]");
		} else {
			json_str(stdout, p);
		}
		printf(", \"desc\": ");
		json_str(stdout, e->desc);
		if (e->group) {
			printf(", \"group\": ");
			json_str(stdout, e->group);
		}
		printf(", \"label\": ");
		json_str(stdout, kind_label(e->kind));
		printf("}");
	}
	printf("%s]\n", es->nr ? "\n" : "");
}

static int collect_sdt(const char *name, void *ctx)
{
	return collect("sdt", name, "", ctx);
}

enum metric_view { MV_NONE, MV_GROUPED, MV_METRICS, MV_GROUP_NAMES };

/*
 * How perf 6.1 shows its metrics for these filters: by group in a full
 * list (or for a group's name), "Metrics:" for 'metric' or a name, the
 * group names alone for 'metricgroup'.
 */
static enum metric_view metric_view(const struct list_opts *o, const struct perf_metric *m)
{
	enum metric_view v = MV_NONE;

	if (!o->nr_filters)
		return MV_GROUPED;
	for (int i = 0; i < o->nr_filters && v == MV_NONE; i++) {
		const char *f = o->filters[i];

		if (!strcmp(f, "metric"))
			v = MV_METRICS;
		else if (!strcmp(f, "metricgroup"))
			v = MV_GROUP_NAMES;
		else if (!strcmp(f, m->group))
			v = MV_GROUPED;
		else if (!any_kind_word(f) && name_matches(m->name, strlen(m->name), f))
			v = MV_METRICS;
	}
	return v;
}

static int cmp_metric_group(const void *a, const void *b)
{
	const struct perf_metric *x = *(const struct perf_metric *const *)a;
	const struct perf_metric *y = *(const struct perf_metric *const *)b;
	int c = strcmp(x->group, y->group);

	return c ? c : strcmp(x->name, y->name);
}

/* JSON: each metric an entry, its group in "group". */
static int collect_metrics(struct entries *es)
{
	size_t nr;
	const struct perf_metric *m = perf_metrics_host(&nr, NULL, 0);

	for (size_t i = 0; i < nr; i++)
		if (metric_view(es->o, &m[i]) != MV_NONE &&
		    collect_kind("metric", m[i].name, m[i].desc, m[i].group, es))
			return 1;
	return 0;
}

/* after_events: the event list's blank line is already out */
static void print_metrics(const struct list_opts *o, bool after_events)
{
	size_t nr, n = 0;
	const struct perf_metric *m = perf_metrics_host(&nr, NULL, 0), **v;
	enum metric_view view = MV_NONE;
	const char *last = NULL;

	v = calloc(nr ? nr : 1, sizeof(*v));
	if (!v)
		return;
	for (size_t i = 0; i < nr; i++) {
		enum metric_view mv = metric_view(o, &m[i]);

		if (mv == MV_NONE)
			continue;
		v[n++] = &m[i];
		if (view == MV_NONE || mv == MV_GROUPED)
			view = mv;
	}
	if (!n) {
		/*
		 * perf 6.1 heads the section even when its CPU has no metrics,
		 * unless a name filter asked (its !filter || groups test)
		 */
		bool metric = !o->nr_filters, group = !o->nr_filters;

		for (int i = 0; i < o->nr_filters; i++) {
			metric |= !strcmp(o->filters[i], "metric");
			group |= !strcmp(o->filters[i], "metricgroup");
		}
		if (o->nr_filters && metric)
			printf("%sMetrics:\n\n", after_events ? "" : "\n");
		if (group)
			printf("%sMetric Groups:\n\n", after_events ? "" : "\n");
		free(v);
		return;
	}
	if (view == MV_METRICS) {
		printf("%sMetrics:\n\n", after_events ? "" : "\n");
		for (size_t i = 0; i < n; i++)
			printf("  %s\n       [%s]\n", v[i]->name, v[i]->desc);
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_metric_group);
	printf("%sMetric Groups:\n\n", after_events ? "" : "\n");
	for (size_t i = 0; i < n; i++) {
		if (!last || strcmp(last, v[i]->group))
			printf(view == MV_GROUP_NAMES ? "%s\n" : "%s:\n", v[i]->group);
		if (view != MV_GROUP_NAMES)
			printf("  %s\n       [%s]\n", v[i]->name, v[i]->desc);
		last = v[i]->group;
	}
	free(v);
}

static void print_text(const struct entries *es)
{
	if (!es->nr)
		return;
	printf("\nList of pre-defined events (to be used in -e):\n\n");
	for (size_t i = 0; i < es->nr; i++) {
		const struct entry *e = &es->v[i];

		if (!strcmp(e->kind, "pfm")) {
			/* libpfm4 names are long and come with a description */
			printf("  %s\n", e->name);
			if (e->desc[0])
				printf("       [%s]\n", e->desc);
			continue;
		}
		printf("  %-50s [%s]\n", e->name, kind_label(e->kind));
	}
	printf("\n");
}

/* perf list shows tracepoints without a word when it cannot: we say why. */
static void warn_no_tracepoints(const struct list_opts *o)
{
	char why[200];
	bool want = o->nr_filters == 0;

	for (int i = 0; i < o->nr_filters && !want; i++)
		want = !any_kind_word(o->filters[i]) || is_kind_word(o->filters[i], "tracepoint");
	if (want && !o->tracefs && !tally_tracing_dir(why, sizeof(why)))
		fprintf(stderr, "tally list: tracepoints are not listed: %s\n", why);
}

static const char *const list_usage[] = {
	"tally list [--json] [FILTER...]",
	"",
	"List the events this machine offers, grouped as perf list groups them.",
	"",
	"  FILTER                   a glob ('sched:*'), a kind (hw, sw, tool, cache, pmu,",
	"                           raw, breakpoint, tracepoint, pfm, sdt, metric,",
	"                           metricgroup) or a substring",
	NULL,
};

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { 0 };
	struct entries es = { 0 };
	struct tally_parse_opts popts = { .sz = sizeof(popts) };
	const struct cli_option opts[] = {
		CLI_BOOL('j', "json", &o.json, "one JSON array of {kind, name, aliases, desc, label}"),
		CLI_STRING(0, "sysfs", &o.sysfs, "DIR", "read PMUs under DIR/bus/event_source/devices (testing)"),
		CLI_STRING(0, "tracefs", &o.tracefs, "DIR", "read tracepoints under DIR/events (testing)"),
		CLI_HELP(&o.help, "this text"),
		CLI_END(),
	};
	int n, ret;

	/* filters may come before or after options: parse on past them */
	n = cli_parse("list", opts, argc, argv, stderr, CLI_PARSE_KEEP_GOING);
	if (n < 0)
		return 2;
	if (o.help) {
		cli_usage(stdout, list_usage, opts);
		return 0;
	}
	o.filters = argv;
	o.nr_filters = n;
	popts.sysfs_root = o.sysfs;
	popts.tracefs_root = o.tracefs;
	es.o = &o;
	warn_no_tracepoints(&o);
	ret = tally_events__foreach(&popts, collect, &es);
	/* after the tracepoints, as perf; no cache under --sysfs (tests) */
	if (ret >= 0 && !es.oom && !o.sysfs)
		ret = sdt_list_foreach(collect_sdt, &es);
	if (ret >= 0 && !es.oom && o.json && !o.sysfs)
		ret = collect_metrics(&es);
	if (es.oom || ret < 0) {
		fprintf(stderr, "tally list: %s\n", es.oom ? "out of memory" : strerror(-ret));
		ret = 1;
	} else {
		if (o.json) {
			print_json(&es);
		} else {
			print_text(&es);
			if (!o.sysfs)
				print_metrics(&o, es.nr > 0);
		}
		ret = 0;
	}
	for (size_t i = 0; i < es.nr; i++) {
		free(es.v[i].name);
		free(es.v[i].desc);
	}
	free(es.v);
	return ret;
}
