// SPDX-License-Identifier: MIT
/*
 * tally mem record|report, as perf mem 6.1: record samples the CPU's
 * memory events (x86: cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P) with
 * their data addresses and weights; report is report --mem-mode -n with
 * the order perf mem gives it for the operations and fields asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "parse_options.h"
#include "tp_cmd.h"

enum { OP_LOAD = 1, OP_STORE = 2 };

struct mem_opts {
	int ops;
	bool phys, page_size, force, help;
	const char *type, *input;
	int ldlat;		/* the loads' latency threshold, cycles */
};

static const char *const mem_usage[] = {
	"tally mem [-t load|store] [-p] [--data-page-size] record [--ldlat N] [RECORD OPTIONS] [COMMAND]",
	"tally mem [-t load|store] [-p] [--data-page-size] report [-i FILE] [REPORT OPTIONS]",
	NULL,
};

/* perf's -t: "load", "store" or both, comma separated */
static int parse_type(struct mem_opts *o)
{
	char *dup, *tok, *save = NULL;

	o->ops = OP_LOAD | OP_STORE;
	if (!o->type)
		return 0;
	if (!(dup = strdup(o->type)))
		return -1;
	o->ops = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "load")) {
			o->ops |= OP_LOAD;
		} else if (!strcmp(tok, "store")) {
			o->ops |= OP_STORE;
		} else {
			fprintf(stderr, "tally mem: -t '%s': unknown operation '%s' (load, store)\n",
				o->type, tok);
			free(dup);
			return -1;
		}
	}
	free(dup);
	return o->ops ? 0 : -1;
}

/* Whether the CPU's PMU offers the event (its sysfs alias). */
static bool have_mem_event(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/cpu/events/%s", name);
	return access(path, F_OK) == 0;
}

/*
 * perf mem record: perf record -W -d [--phys-data] [--data-page-size] and
 * the memory events asked; an event this machine lacks is said, with its
 * PMU and what it needs (perf: "failed: memory events not supported").
 */
static int mem_record(int argc, char **argv, const struct mem_opts *o)
{
	char loads[64], **rargv = calloc((size_t)argc + 16, sizeof(*rargv));
	int n = 0, ret, ldlat = o->ldlat;

	if (!rargv)
		return 1;
	/* --ldlat is mem record's; the rest is record's, passed on */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {	/* the command's words, as they are */
			while (i < argc)
				argv[++n] = argv[i++];
			break;
		}
		const char *v = !strcmp(argv[i], "--ldlat") ? (i + 1 < argc ? argv[++i] : "") :
				!strncmp(argv[i], "--ldlat=", 8) ? argv[i] + 8 : NULL;
		char *end;

		if (!v) {
			argv[++n] = argv[i];	/* kept in place, after argv[0] */
			continue;
		}
		ldlat = (int)strtol(v, &end, 10);
		if (!*v || *end || ldlat < 1 || ldlat > 65535) {
			fprintf(stderr, "tally mem record: --ldlat '%s': a number of cycles, 1 to 65535\n", v);
			free(rargv);
			return 129;
		}
	}
	argc = n + 1;
	n = 0;
	snprintf(loads, sizeof(loads), "cpu/mem-loads,ldlat=%d/P", ldlat);
	for (int k = 0; k < 2; k++) {
		const char *ev = k ? "mem-stores" : "mem-loads";

		if (!(o->ops & (k ? OP_STORE : OP_LOAD)) || have_mem_event(ev))
			continue;
		fprintf(stderr, "tally mem record: the %s event %s needs the CPU's PMU 'cpu' "
			"with a precise %s event (Intel's PEBS%s), which this machine lacks "
			"(/sys/bus/event_source/devices/cpu/events/%s is missing: no hardware PMU, "
			"as in a VM without PMU passthrough)\n", k ? "store" : "load",
			k ? "cpu/mem-stores/P" : loads, ev,
			k ? "" : " load latency", ev);
		free(rargv);
		return 255;
	}
	rargv[n++] = "record";
	rargv[n++] = "-W";
	rargv[n++] = "-d";
	if (o->phys)
		rargv[n++] = "--phys-data";
	if (o->page_size)
		rargv[n++] = "--data-page-size";
	if (o->ops & OP_LOAD) {
		rargv[n++] = "-e";
		rargv[n++] = loads;
	}
	if (o->ops & OP_STORE) {
		rargv[n++] = "-e";
		rargv[n++] = "cpu/mem-stores/P";
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_record(n, rargv);
	free(rargv);
	return ret;
}

/* perf mem report: report --mem-mode -n, ordered as builtin-mem.c orders it */
static int mem_report(int argc, char **argv, const struct mem_opts *o)
{
	char sort[160], **rargv = calloc((size_t)argc + 16, sizeof(*rargv));
	const char *extra = o->phys ? ",phys_daddr" : o->page_size ? ",data_page_size" : NULL;
	int n = 0, ret;

	if (!rargv)
		return 1;
	rargv[n++] = "report";
	rargv[n++] = "--mem-mode";
	rargv[n++] = "-n";
	if (o->input) {
		rargv[n++] = "-i";
		rargv[n++] = (char *)o->input;
	}
	/* stores have no weight: no weight or snoop column without loads */
	if (!(o->ops & OP_LOAD)) {
		snprintf(sort, sizeof(sort), "--sort=mem,sym,dso,symbol_daddr,dso_daddr,tlb,locked%s",
			 extra ? extra : "");
		rargv[n++] = sort;
	} else if (extra) {
		snprintf(sort, sizeof(sort), "--sort=local_weight,mem,sym,dso,symbol_daddr,dso_daddr,"
			 "snoop,tlb,locked,blocked%s", extra);
		rargv[n++] = sort;
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_report(n, rargv);
	free(rargv);
	return ret;
}

int cmd_mem(int argc, char **argv)
{
	struct mem_opts o = { .ldlat = 30 };
	const struct cli_option opts[] = {
		CLI_STRING('t', "type", &o.type, "load,store", "the memory operations (default load,store)"),
		CLI_BOOL('p', "phys-data", &o.phys, "record and report the samples' physical addresses"),
		CLI_BOOL(0, "data-page-size", &o.page_size, "record and report the data addresses' page sizes"),
		CLI_STRING('i', "input", &o.input, "FILE", "report's perf.data file (default perf.data)"),
		CLI_BOOL('f', "force", &o.force, "don't complain, do it"),
		CLI_HELP(&o.help, "this text (man tally-mem for the full manual)"),
		CLI_END(),
	};
	int n;

	/* perf mem's options come before the subcommand */
	n = cli_parse("mem", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (o.help || n == 0) {
		cli_usage(o.help ? stdout : stderr, mem_usage, opts);
		return o.help ? 0 : 129;
	}
	if (parse_type(&o))
		return 129;
	if (cli_subcmd_is(argv[0], "record", 3))
		return mem_record(n, argv, &o);
	if (cli_subcmd_is(argv[0], "report", 3))
		return mem_report(n, argv, &o);
	fprintf(stderr, "tally mem: unknown subcommand '%s' (record, report)\n", argv[0]);
	cli_usage(stderr, mem_usage, opts);
	return 129;
}
