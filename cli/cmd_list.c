// SPDX-License-Identifier: MIT
/*
 * tally list [--json] [FILTER...]: every event this machine offers,
 * grouped as perf list groups them (hardware, software, tool, cache, kernel
 * PMU events from sysfs, raw and breakpoint syntax, tracepoints, libpfm4
 * events of the host CPU). A FILTER is a glob ('sched:*'), a kind
 * (hw, sw, tool, cache, pmu, tracepoint, pfm; sw includes the tool
 * events, as in perf list) or else a substring.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>
#include "cli.h"
#include "parse_options.h"

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

static int collect(const char *kind, const char *name, const char *desc, void *ctx)
{
	struct entries *es = ctx;
	struct entry *e;

	if (!matches(es->o, kind, name))
		return 0;
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
	if (!e->name || !e->desc) {
		free(e->name);
		free(e->desc);
		es->oom = true;
		return 1;
	}
	es->nr++;
	return 0;
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
		printf(", \"label\": ");
		json_str(stdout, kind_label(e->kind));
		printf("}");
	}
	printf("%s]\n", es->nr ? "\n" : "");
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
	"                           raw, breakpoint, tracepoint, pfm) or a substring",
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
	if (es.oom || ret < 0) {
		fprintf(stderr, "tally list: %s\n", es.oom ? "out of memory" : strerror(-ret));
		ret = 1;
	} else {
		if (o.json)
			print_json(&es);
		else
			print_text(&es);
		ret = 0;
	}
	for (size_t i = 0; i < es.nr; i++) {
		free(es.v[i].name);
		free(es.v[i].desc);
	}
	free(es.v);
	return ret;
}
