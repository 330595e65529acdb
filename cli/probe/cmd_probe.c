// SPDX-License-Identifier: MIT
/*
 * tally probe: perf probe 6.1 for user space. Defines uprobe events from
 * perf's PROBEDEF syntax (functions, lines, lazy patterns, returns, SDT
 * markers, arguments by their DWARF names), deletes and lists them, and
 * shows the lines, variables and functions a binary offers. The DWARF
 * work and tracefs are the library's (tally/dynprobe.h); this file is
 * options and messages in perf's words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/dynprobe.h>
#include <tally/events.h>
#include "cli.h"
#include "parse_options.h"

static const char *const probe_usage[] = {
	"tally probe [<options>] 'PROBEDEF' ['PROBEDEF' ...]",
	"tally probe [<options>] --add 'PROBEDEF' [--add 'PROBEDEF' ...]",
	"tally probe [<options>] --del '[GROUP:]EVENT' ...",
	"tally probe --list [GROUP:]EVENT ...",
	"tally probe [<options>] --line 'LINEDESC'",
	"tally probe [<options>] --vars 'PROBEPOINT'",
	"tally probe [<options>] --funcs [FILTER]",
	"",
	"PROBEDEF: [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return|;PTN] [ARG ...],",
	"          [[GROUP:]EVENT=]SRC:ALN|SRC;PTN [ARG ...], or sdt_PROVIDER:NAME",
	"ARG:      [NAME=]VAR[->FIELD|.FIELD|[INDEX]][:TYPE], $params, $vars, $retval",
	NULL,
};

struct probe_cli {
	const char *exec;
	const char **adds, **dels;
	int nr_adds, nr_dels;
	const char *line, *vars, *funcs;
	bool list, funcs_set, dry_run, force, quiet, externs, range, no_inlines, help;
	int verbose, max_probes, target_ns;
};

static int push(const char ***v, int *nr, const char *s)
{
	const char **nv = realloc(*v, (size_t)(*nr + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	nv[(*nr)++] = s;
	return 0;
}

static int opt_add(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct probe_cli *c = opt->value;

	return push(&c->adds, &c->nr_adds, arg) ? cli_error(p, "out of memory") : 0;
}

static int opt_del(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct probe_cli *c = opt->value;

	return push(&c->dels, &c->nr_dels, arg) ? cli_error(p, "out of memory") : 0;
}

static int opt_funcs(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct probe_cli *c = opt->value;

	c->funcs_set = true;
	c->funcs = arg;
	return 0;
}

/* perf's exit status: the negative errno, as a byte */
static int status(int err)
{
	return err < 0 ? (256 + err) & 0xff : err;
}

static void print_added(const struct tally_probe_events *evs, size_t from)
{
	const struct tally_probe_event *last = NULL;

	fprintf(stderr, "Added new event%s:\n", evs->nr - from > 1 ? "s" : "");
	for (size_t i = from; i < evs->nr; i++) {
		const struct tally_probe_event *ev = &evs->ev[i];
		char name[600];

		snprintf(name, sizeof(name), "%s:%s", ev->group, ev->event);
		fprintf(stderr, "  %-20s (on %s in %s%s)\n", name, ev->where, ev->path, ev->argnames);
		last = ev;
	}
	if (last)
		fprintf(stderr, "\nYou can now use it in all tally tools, such as:\n\n"
			"\ttally record -e %s:%s -aR sleep 1\n\n", last->group, last->event);
}

static int do_add(const struct probe_cli *c, const char **specs, int nr)
{
	TALLY_OPTS(tally_probe_opts, opts, .max_probes = c->max_probes, .force = c->force,
		   .target_ns = c->target_ns, .no_inlines = c->no_inlines);
	struct tally_probe_events evs = { 0 };
	char err[2048];
	int e = 0;
	size_t added = 0;

	if (!c->exec) {
		char why[256];

		if (!tally_kprobe_events__available(why, sizeof(why))) {
			fprintf(stderr, "Kernel probes are not available: %s.\n"
				"  Error: Failed to add events. (use -x BINARY for user-space probes)\n", why);
			return status(-EOPNOTSUPP);
		}
		fprintf(stderr, "  Error: kernel probes are not supported by tally probe yet; "
			"use -x BINARY for user-space probes.\n");
		return status(-EOPNOTSUPP);
	}
	for (int i = 0; i < nr && !e; i++) {
		e = tally_probe__resolve(c->exec, specs[i], &opts, &evs, err, sizeof(err));
		if (e)
			fprintf(stderr, "%s\n  Error: Failed to add events.\n", err);
	}
	for (size_t i = 0; !e && i < evs.nr; i++) {
		char *line = tally_probe_event__line(&evs.ev[i]);

		if (!line) {
			e = -ENOMEM;
			break;
		}
		if (c->verbose || c->dry_run)
			if (c->verbose)
				fprintf(stderr, "Writing event: %s\n", line);
		if (!c->dry_run && (e = tally_uprobe_events__add_ns(line, c->target_ns)) < 0) {
			char why[256];

			fprintf(stderr, "Failed to write event: %s (%s)\n  Error: Failed to add events.\n",
				strerror(-e), tally_tracing_dir(why, sizeof(why)) ? line : why);
		}
		free(line);
		if (!e)
			added++;
	}
	/* a failed add leaves no half-made event: the ones written go again */
	if (e && added && !c->dry_run) {
		for (size_t i = 0; i < added; i++) {
			char glob[600], **rm;
			size_t n;

			snprintf(glob, sizeof(glob), "%s:%s", evs.ev[i].group, evs.ev[i].event);
			if (tally_uprobe_events__del(glob, &rm, &n) >= 0)
				tally_uprobe_events__free_list(rm, n);
		}
	}
	if (!e && !c->quiet && evs.nr)
		print_added(&evs, 0);
	tally_probe_events__clear(&evs);
	return status(e);
}

static int do_del(const struct probe_cli *c)
{
	int rc = 0;

	for (int i = 0; i < c->nr_dels; i++) {
		char **rm;
		size_t n;
		int e = tally_uprobe_events__del(c->dels[i], &rm, &n);

		if (e < 0) {
			fprintf(stderr, "Failed to delete events: %s\n", strerror(-e));
			rc = status(e);
			continue;
		}
		if (!e) {
			fprintf(stderr, "\"%s\" does not hit any event.\n  Error: Failed to delete events.\n",
				c->dels[i]);
			rc = status(-ENOENT);
		}
		for (size_t k = 0; k < n && !c->quiet; k++)
			fprintf(stderr, "Removed event: %s\n", rm[k]);
		tally_uprobe_events__free_list(rm, n);
	}
	return rc;
}

/* perf's -l: each event matching the filters, mapped back to its place */
static int do_list(char **filters, int nf)
{
	char err[512];
	int e = tally_probe__show_list(stdout, filters, (size_t)nf, err, sizeof(err));

	if (e)
		fprintf(stderr, "%s\n", err);
	return status(e);
}

static char *join(char **argv, int n)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(argv[i]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cli c = { 0 };
	const struct cli_option opts[] = {
		CLI_STRING('x', "exec", &c.exec, "executable|path", "target executable name or path"),
		CLI_CALLBACK('a', "add", &c, "PROBEDEF", "probe point definition (see the usage above)", opt_add),
		CLI_CALLBACK('d', "del", &c, "[GROUP:]EVENT", "delete probe events (globs allowed)", opt_del),
		CLI_BOOL('l', "list", &c.list, "list up probe events ([GROUP:]EVENT filters follow)"),
		CLI_STRING('L', "line", &c.line, "FUNC[@SRC]|SRC:ALN[-ALN|+NUM]",
			   "show source code lines, the probe-able ones numbered"),
		CLI_STRING('V', "vars", &c.vars, "FUNC[@SRC][+OFF|%return|:RL|;PT]|SRC:AL|SRC;PT",
			   "show the variables available at each probe point"),
		CLI_BOOL(0, "externs", &c.externs, "show external variables too (with --vars)"),
		CLI_BOOL(0, "range", &c.range, "show variables' location ranges (with --vars)"),
		CLI_BOOL(0, "no-inlines", &c.no_inlines, "search only for non-inlined functions"),
		CLI_CALLBACK_F('F', "funcs", &c, "FILTER", "show the functions (FILTER: perf's, default \"!_* & !*@plt\")",
			       opt_funcs, CLI_OPT_OPTARG, 0),
		CLI_BOOL('n', "dry-run", &c.dry_run, "resolve and show, but write no event"),
		CLI_BOOL('f', "force", &c.force, "forcibly add events with existing name (_1, _2...)"),
		CLI_BOOL('q', "quiet", &c.quiet, "be quiet (do not show any messages)"),
		CLI_COUNT('v', "verbose", &c.verbose, "be more verbose (show the uprobe_events lines)"),
		CLI_INT(0, "max-probes", &c.max_probes, "N", "set the maximum number of probe points for an event (default 128)",
			1, 1 << 20),
		CLI_INT(0, "target-ns", &c.target_ns, "PID", "target pid for namespace contexts (its mount namespace's paths)",
			1, 1 << 30),
		CLI_HELP(&c.help, "this text (man tally-probe for the full manual)"),
		CLI_END(),
	};
	char err[2048];
	int n, rc = 0;
	struct tally_mntns ns = { -1, -1 };

	n = cli_parse("probe", opts, argc, argv, stderr, CLI_PARSE_KEEP_GOING);
	if (n < 0 || c.help) {
		cli_usage(c.help ? stdout : stderr, probe_usage, opts);
		rc = c.help ? 0 : 129;
		goto out;
	}
	if ((c.line || c.vars || c.funcs_set) && !c.exec) {
		fprintf(stderr, "tally probe: -L, -V and -F need -x BINARY: this kernel's own debug info "
			"is not searched (see 'tally probe --help')\n");
		rc = 129;
		goto out;
	}
	/* -F, -L, -V read the binary as the target sees it (perf's nsinfo) */
	if ((c.funcs_set || c.line || c.vars) && c.target_ns && (rc = tally_mntns__enter(c.target_ns, &ns))) {
		fprintf(stderr, "Failed to enter the mount namespace of %d: %s\n", c.target_ns, strerror(-rc));
		rc = status(rc);
		goto out;
	}
	if (c.funcs_set) {
		rc = tally_probe__show_funcs(stdout, c.exec, c.funcs ? c.funcs : (n ? argv[0] : NULL),
					     err, sizeof(err));
		if (rc)
			fprintf(stderr, "%s\n", err);
		rc = status(rc);
		goto out;
	}
	if (c.line) {
		rc = tally_probe__show_lines(stdout, c.exec, c.line, err, sizeof(err));
		if (rc)
			fprintf(stderr, "%s\n  Error: Failed to show lines.\n", err);
		rc = status(rc);
		goto out;
	}
	if (c.vars) {
		rc = tally_probe__show_vars(stdout, c.exec, c.vars,
					    (c.externs ? TALLY_PROBE_VARS_EXTERNS : 0) |
					    (c.range ? TALLY_PROBE_VARS_RANGE : 0) |
					    (c.no_inlines ? TALLY_PROBE_VARS_NO_INLINES : 0), err, sizeof(err));
		if (rc)
			fprintf(stderr, "%s\n  Error: Failed to show vars.\n", err);
		rc = status(rc);
		goto out;
	}
	if (c.list) {
		rc = do_list(argv, n);
		goto out;
	}
	if (c.nr_dels) {
		rc = do_del(&c);
		if (rc || (!c.nr_adds && !n))
			goto out;
	}
	if (n) {
		char *spec = join(argv, n);

		if (!spec || push(&c.adds, &c.nr_adds, spec)) {
			free(spec);
			rc = 1;
			goto out;
		}
	}
	if (!c.nr_adds) {
		cli_usage(stderr, probe_usage, opts);
		rc = 129;
		goto out;
	}
	rc = do_add(&c, c.adds, c.nr_adds);
	if (n)
		free((char *)c.adds[c.nr_adds - 1]);
out:
	tally_mntns__exit(&ns);
	free(c.adds);
	free(c.dels);
	return rc;
}
