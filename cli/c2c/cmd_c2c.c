// SPDX-License-Identifier: MIT
/*
 * tally c2c record|report, as perf c2c 6.1: record samples the CPU's
 * memory events (x86: cpu/mem-loads,ldlat=N/P and cpu/mem-stores/P) with
 * their data and physical addresses, weights and CPUs; report shows the
 * cache lines whose loads hit other cores' modified copies (HITMs), from
 * the library's model (tally/c2c.h), in perf's --stdio layout (c2c_print.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "c2c_print.h"
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"
#include "tp_cmd.h"

static const char *const c2c_usage[] = {
	"tally c2c record [-l N] [-u|-k] [RECORD OPTIONS] [COMMAND]",
	"tally c2c report [-i FILE] [--stdio] [--stats] [-d tot|lcl|rmt|peer] [-c pid,tid,iaddr,dso] [-N]",
	NULL,
};

/* the subcommands' usage lines alone */
static const struct cli_option no_opts[] = { CLI_END() };

/* Whether the CPU's PMU offers the event (its sysfs alias). */
static bool have_mem_event(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/cpu/events/%s", name);
	return access(path, F_OK) == 0;
}

/*
 * perf c2c record: perf record -W -d --phys-data --sample-cpu with the
 * load and store events; where the PMU lacks them (perf: "failed: memory
 * events not supported", 255) each missing one is named with what it needs.
 */
static int c2c_record(int argc, char **argv)
{
	long ldlat = 30;
	bool user = false, kernel = false, want_ld = true, want_st = true, missing = false;
	bool verbose = false;
	char loads[64], stores[64], **rargv = calloc((size_t)argc + 16, sizeof(*rargv));
	const char *mod;
	int n = 0, i;

	if (!rargv)
		return 1;
	/* c2c record's own options; the rest is record's, passed on in place */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *v = NULL;
		char *end;

		if (!strcmp(a, "-u") || !strcmp(a, "--all-user")) {
			user = true;
		} else if (!strcmp(a, "-k") || !strcmp(a, "--all-kernel")) {
			kernel = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_usage(stdout, c2c_usage, no_opts);
			free(rargv);
			return 0;
		} else if (!strcmp(a, "-e") || !strcmp(a, "--event") || !strncmp(a, "--event=", 8)) {
			v = a[1] == '-' && a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : "";
			want_ld = strstr(v, "ldlat-loads") != NULL;
			want_st = strstr(v, "ldlat-stores") != NULL;
			if (!want_ld && !want_st) {
				fprintf(stderr, "tally c2c record: -e '%s': ldlat-loads, ldlat-stores\n", v);
				free(rargv);
				return 255;
			}
		} else if (!strcmp(a, "-l") || !strcmp(a, "--ldlat") || !strncmp(a, "--ldlat=", 8)) {
			v = a[1] == '-' && a[7] == '=' ? a + 8 : i + 1 < argc ? argv[++i] : "";
			ldlat = strtol(v, &end, 10);
			if (!*v || *end || ldlat < 1 || ldlat > 65535) {
				fprintf(stderr, "tally c2c record: --ldlat '%s': a number of cycles, 1 to 65535\n", v);
				free(rargv);
				return 129;
			}
		} else {
			if (a[0] != '-')
				break;		/* the command: its words as they are */
			/* perf's -v is c2c's and record's: it says the record command */
			verbose |= !strcmp(a, "-v") || !strcmp(a, "--verbose");
			argv[++n] = argv[i];	/* record's, kept in order after argv[0] */
		}
	}
	for (; i < argc; i++)
		argv[++n] = argv[i];
	argc = n + 1;
	mod = user && !kernel ? "u" : kernel && !user ? "k" : "";
	snprintf(loads, sizeof(loads), "cpu/mem-loads,ldlat=%ld/P%s", ldlat, mod);
	snprintf(stores, sizeof(stores), "cpu/mem-stores/P%s", mod);
	n = 0;
	rargv[n++] = "record";
	if (want_ld)
		rargv[n++] = "-W";
	rargv[n++] = "-d";
	rargv[n++] = "--phys-data";
	rargv[n++] = "--sample-cpu";
	if (want_ld) {
		rargv[n++] = "-e";
		rargv[n++] = loads;
	}
	if (want_st) {
		rargv[n++] = "-e";
		rargv[n++] = stores;
	}
	for (i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	if (verbose) {
		/* perf's pr_debug of its record command, said before the check here */
		fprintf(stderr, "calling: ");
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s ", rargv[i]);
		fprintf(stderr, "\n");
	}
	for (int k = 0; k < 2; k++) {
		const char *ev = k ? "mem-stores" : "mem-loads";

		if (!(k ? want_st : want_ld) || have_mem_event(ev))
			continue;
		fprintf(stderr, "tally c2c record: the %s event %s needs the CPU's PMU 'cpu' with a "
			"precise %s event (Intel's PEBS%s), which this machine lacks "
			"(/sys/bus/event_source/devices/cpu/events/%s is missing: no hardware PMU, "
			"as in a VM without PMU passthrough)\n", k ? "store" : "load",
			k ? stores : loads, ev, k ? "" : " load latency", ev);
		missing = true;
	}
	if (missing) {
		free(rargv);
		return 255;	/* perf's "failed: memory events not supported" */
	}
	i = cmd_record(n, rargv);
	free(rargv);
	return i;
}

/* perf's -c: pid, tid, iaddr, dso (offset is always first) */
static int parse_coalesce(const char *s, enum tally_c2c_key *keys, int *n)
{
	char *dup = strdup(s ? s : "iaddr"), *tok, *save = NULL;

	if (!dup)
		return -1;
	*n = 0;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		static const char *const names[] = { "pid", "tid", "iaddr", "dso" };
		int k = 0;

		while (k < 4 && strcmp(tok, names[k]))
			k++;
		if (k == 4 && strcmp(tok, "offset")) {
			fprintf(stderr, "tally c2c report: -c: unrecognized sort token: %s "
				"(pid, tid, iaddr, dso)\n", tok);
			free(dup);
			return -1;
		}
		if (k < 4 && *n < 8)
			keys[(*n)++] = (enum tally_c2c_key)k;
	}
	free(dup);
	return 0;
}

static int c2c_report(int argc, char **argv)
{
	struct c2c_print p = { .display = TALLY_C2C_TOT };
	const char *input = NULL, *display = NULL, *coalesce = NULL;
	bool stdio_ = false, no_source = false, help = false, force = false;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "file", "the input file (default perf.data)"),
		CLI_COUNT('N', "node-info", &p.node_info, "show extra node info (repeat for more)"),
		CLI_BOOL(0, "stdio", &stdio_, "use the stdio interface (the only one)"),
		CLI_BOOL(0, "stats", &p.stats_only, "only the statistics tables"),
		CLI_BOOL(0, "full-symbols", &p.full_symbols, "symbols and source lines uncut"),
		CLI_BOOL(0, "no-source", &no_source, "no Source:Line column"),
		CLI_BOOL(0, "show-all", &p.show_all, "every cache line, shared or not"),
		CLI_STRING('d', "display", &display, "tot,lcl,rmt,peer", "what sorts the lines"),
		CLI_STRING('c', "coalesce", &coalesce, "fields", "coalesce fields: pid,tid,iaddr,dso"),
		CLI_BOOL('f', "force", &force, "don't complain, do it"),
		CLI_HELP(&help, "this text (man tally-c2c for the full manual)"),
		CLI_END(),
	};
	enum tally_c2c_key keys[8];
	struct tally_session *ss = NULL;
	struct tally_c2c *c = NULL;
	int n, ret = 0, nkeys;

	n = cli_parse("c2c report", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (help || n > 0) {
		cli_usage(help ? stdout : stderr, c2c_usage, opts);
		return help ? 0 : 129;
	}
	(void)stdio_;
	(void)force;
	if (display) {
		static const char *const names[] = { "tot", "lcl", "rmt", "peer" };
		int k = 0;

		while (k < 4 && strcmp(display, names[k]))
			k++;
		if (k == 4) {
			fprintf(stderr, "tally c2c report: -d: unknown display type: %s (tot, lcl, rmt, peer)\n",
				display);
			return 255;
		}
		p.display = (enum tally_c2c_display)k;
	}
	if (parse_coalesce(coalesce, keys, &nkeys))
		return 255;
	p.coalesce = coalesce ? coalesce : "iaddr";
	for (int k = 0; k < nkeys; k++) {
		p.show_pid |= keys[k] == TALLY_C2C_PID;
		p.show_tid |= keys[k] == TALLY_C2C_TID;
		p.show_iaddr |= keys[k] == TALLY_C2C_IADDR;
		p.show_dso |= keys[k] == TALLY_C2C_DSO || keys[k] == TALLY_C2C_IADDR;
	}
	p.show_src = p.show_iaddr && !no_source;
	{
		TALLY_OPTS(tally_session_opts, so, .no_inline = true);

		/* perf c2c: 255 for a file it cannot open, as for a damaged one */
		if (!(ss = cli_session_open("c2c report", input ? input : "perf.data", &so, &ret)))
			return ret == 1 ? 255 : ret;
	}
	{
		TALLY_OPTS(tally_c2c_opts, co, .display = p.display, .keys = keys, .nr_keys = nkeys,
			   .show_all = p.show_all, .srcline = p.show_src);

		if (!(c = tally_c2c__new(ss, &co)) && errno != ENODEV) {
			fprintf(stderr, "tally c2c report: %s: %s\n", input ? input : "perf.data",
				errno == EBADMSG ? "its NRCPUS or NUMA_TOPOLOGY header is damaged "
				"(more than 65536 CPUs or 4096 nodes)" : strerror(errno));
			tally_session__close(ss);
			return 1;
		}
		if (!c) {
			/* perf: "Failed setup nodes", -EINVAL */
			fprintf(stderr, "tally c2c report: %s has no NUMA_TOPOLOGY or NRCPUS header "
				"(perf c2c record writes them): no nodes to set up\n",
				input ? input : "perf.data");
			tally_session__close(ss);
			return 234;
		}
	}
	if ((ret = tally_c2c__run(c)) < 0) {
		fprintf(stderr, "tally c2c report: failed to process samples: %s\n", strerror(-ret));
		ret = 1;
		goto out;
	}
	pager_start();
	p.c = c;
	p.ss = ss;
	ret = c2c_print(&p, stdout) ? 1 : 0;
out:
	tally_c2c__free(c);
	tally_session__close(ss);
	return ret;
}

int cmd_c2c(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cli_usage(argc < 2 ? stderr : stdout, c2c_usage, no_opts);
		return argc < 2 ? 129 : 0;
	}
	if (cli_subcmd_is(argv[1], "record", 3))
		return c2c_record(argc - 1, argv + 1);
	if (cli_subcmd_is(argv[1], "report", 3))
		return c2c_report(argc - 1, argv + 1);
	fprintf(stderr, "tally c2c: unknown subcommand '%s' (record, report)\n", argv[1]);
	cli_usage(stderr, c2c_usage, no_opts);
	return 129;
}
