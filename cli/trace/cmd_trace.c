// SPDX-License-Identifier: MIT
/*
 * tally trace: the options. Lines for each system call of the targets as
 * perf trace prints them, or (-s) perf's summary table per thread.
 */
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "parse_options.h"
#include "target.h"
#include "trace.h"

static const char *const trace_usage[] = {
	"tally trace [<options>] [<command>]",
	"tally trace [<options>] -- <command> [<options>]",
	"tally trace -i FILE [<options>]",
	"tally trace [--pf=all|maj|min] record [<record options>] [--] <command>",
	NULL,
};

#define TRACE_NR_OPTS 33

static int opt_duration(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct trace_config *cfg = opt->value;
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || v < 0)
		return cli_error(p, "--duration '%s': a number of milliseconds (0.5, 10)", arg);
	cfg->duration_ms = v;
	return 0;
}

/* --pf[=all|maj|min], maj without a value, as perf's -F */
static int opt_pf(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct trace_config *cfg = opt->value;

	if (!arg || !strcmp(arg, "maj"))
		cfg->pf |= TRACE_PF_MAJ;
	else if (!strcmp(arg, "min"))
		cfg->pf |= TRACE_PF_MIN;
	else if (!strcmp(arg, "all"))
		cfg->pf |= TRACE_PF_MAJ | TRACE_PF_MIN;
	else
		return cli_error(p, "--pf '%s': all, maj or min", arg);
	return 0;
}

/*
 * -u: the processes of a user running now, as perf's thread map by uid
 * (their children are followed; processes started later are not). A
 * "1,2,3" -p list in *out (freed by the caller), or NULL after saying why.
 */
static char *user_pids(struct cli_parse *p, const char *user)
{
	struct passwd *pw = getpwnam(user);
	char *end, *list = NULL;
	size_t len = 0, cap = 0;
	unsigned long uid;
	struct dirent *d;
	DIR *dir;

	if (pw) {
		uid = pw->pw_uid;
	} else {
		uid = strtoul(user, &end, 10);
		if (!*user || *end) {
			cli_error(p, "-u '%s': no such user", user);
			return NULL;
		}
	}
	dir = opendir("/proc");
	if (!dir) {
		cli_error(p, "-u: /proc: %m");
		return NULL;
	}
	while ((d = readdir(dir))) {
		char path[300], line[256];
		unsigned long real;
		FILE *f;

		if (!isdigit((unsigned char)d->d_name[0]) || atoi(d->d_name) == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;	/* gone meanwhile */
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %lu", &real) == 1)
				break;
		fclose(f);
		if (real != uid)
			continue;
		if (len + strlen(d->d_name) + 2 > cap) {
			char *n = realloc(list, cap = cap * 2 + 4096);

			if (!n)
				break;
			list = n;
		}
		len += (size_t)sprintf(list + len, "%s%s", len ? "," : "", d->d_name);
	}
	closedir(dir);
	if (!len) {
		cli_error(p, "-u '%s': the user runs no process", user);
		free(list);
		return NULL;
	}
	return list;
}

/*
 * perf trace record: perf record -m 1024 -c 1 of raw_syscalls'
 * sys_enter/sys_exit, filtered off our own pid (as perf's, for -a), the
 * fault events --pf asked for, then record's options and the command
 * (argv[1..]: -e adds events, as perf). perf 6.1's file has no place for
 * the path arguments' strings: unless --no-strings, they go in a section
 * of tally's that perf skips, for tally trace -i (record_strings.c).
 */
static int trace_record(const struct trace_config *cfg, int argc, char **argv)
{
	char **rargv = calloc((size_t)argc + 16, sizeof(*rargv));
	char filter[64];
	int n = 0, ret;

	if (!rargv)
		return 1;
	snprintf(filter, sizeof(filter), "common_pid != %d", (int)getpid());
	rargv[n++] = "record";
	rargv[n++] = "-m";
	rargv[n++] = "1024";
	rargv[n++] = "-c";
	rargv[n++] = "1";
	rargv[n++] = "-e";
	rargv[n++] = "raw_syscalls:sys_enter";
	rargv[n++] = "--filter";
	rargv[n++] = filter;
	rargv[n++] = "-e";
	rargv[n++] = "raw_syscalls:sys_exit";
	rargv[n++] = "--filter";
	rargv[n++] = filter;
	if (cfg->pf & TRACE_PF_MAJ) {
		rargv[n++] = "-e";
		rargv[n++] = "major-faults";
	}
	if (cfg->pf & TRACE_PF_MIN) {
		rargv[n++] = "-e";
		rargv[n++] = "minor-faults";
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_trace_record(n, rargv, !cfg->no_strings);
	free(rargv);
	return ret;
}

/* Every -e, as one list (perf trace takes -e again and again). NULL: no memory. */
static char *join_events(const struct cli_events *ev)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < ev->nr; i++)
		len += strlen(ev->v[i].spec) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (int i = 0; i < ev->nr; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, ev->v[i].spec);
	}
	return s;
}

static void trace_options(struct trace_config *cfg, struct cli_option *out)
{
	struct cli_target *t = &cfg->target;
	const struct cli_option opts[] = {
		CLI_GROUP("What"),
		CLI_CALLBACK('e', "event", &cfg->ev, "LIST", "syscalls to trace: names, globs, '!name' leaves out ('open*,!close');\ntracepoints and other events (sched:*) add their lines", cli_opt_event),
		CLI_CALLBACK(0, "expr", &cfg->ev, "LIST", "the same as -e", cli_opt_event),
		CLI_CALLBACK(0, "filter", &cfg->ev, "EXPR", "ftrace filter for the tracepoints of the -e just before, as perf's", cli_opt_filter),
		CLI_CALLBACK_F('F', "pf", cfg, "all|maj|min", "page faults too: a line each, counts in -s (maj without a value)",
			       opt_pf, CLI_OPT_OPTARG, 0),
		CLI_BOOL(0, "syscalls", &cfg->syscalls, "with --pf or -e events only: the syscalls too"),
		CLI_BOOL(0, "failure", &cfg->failure_only, "show only the calls that failed"),
		CLI_CALLBACK(0, "duration", cfg, "MS", "show only the calls that took MS milliseconds or longer", opt_duration),
		CLI_GROUP("Targets"),
		CLI_STRING('p', "pid", &t->pids, "PID[,PID]", "trace existing processes (all their threads)"),
		CLI_STRING('t', "tid", &t->tids, "TID[,TID]", "trace existing threads"),
		CLI_BOOL('a', "all-cpus", &t->system_wide, "trace every task, on every CPU"),
		CLI_STRING('C', "cpu", &t->cpu_list, "LIST", "trace every task on these CPUs (0-3,7)"),
		CLI_STRING('u', "uid", &cfg->user, "USER", "trace the processes a user (name or uid) runs now"),
		CLI_BOOL(0, "no-inherit", &t->no_inherit, "do not follow the command's children"),
		CLI_STRING('i', "input", &cfg->input, "FILE", "show the syscalls of a perf.data file (recorded with -e 'raw_syscalls:*')"),
		CLI_GROUP("Output"),
		CLI_BOOL('s', "summary", &cfg->summary_only, "only the summary: per thread, each syscall's calls, errors and times"),
		CLI_BOOL('S', "with-summary", &cfg->with_summary, "the calls, then the summary"),
		CLI_BOOL(0, "errno-summary", &cfg->errno_summary, "with -s/-S: the errors of each syscall by errno"),
		CLI_STRING('o', "output", &cfg->output, "FILE", "write the trace to FILE (default: stderr, as perf)"),
		CLI_BOOL('T', "time", &cfg->abs_time, "the full timestamp, not the time since the first event"),
		CLI_BOOL(0, "no-strings", &cfg->no_strings, "path arguments as pointers, as perf 6.1 (fds still name their files)"),
		CLI_BOOL_F(0, "comm", &cfg->comm, "show the thread's comm next to its id (--no-comm: not)", CLI_OPT_NEG),
		CLI_LONG('m', "mmap-pages", &cfg->mmap_pages, "N", "ring size in pages (a power of two)", 1, 1L << 20),
		CLI_HELP(&cfg->help, "this text (man tally-trace for the full manual)"),
		CLI_END(),
	};

	_Static_assert(sizeof(opts) / sizeof(opts[0]) <= TRACE_NR_OPTS, "TRACE_NR_OPTS too small");
	memcpy(out, opts, sizeof(opts));
}

int cmd_trace(int argc, char **argv)
{
	struct trace_config cfg = { .comm = true };
	struct cli_option opts[TRACE_NR_OPTS];
	struct cli_parse p = { .cmd = "trace", .err = stderr };
	int n;

	trace_options(&cfg, opts);
	n = cli_parse("trace", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (cfg.help) {
		cli_usage(stdout, trace_usage, opts);
		return 0;
	}
	cfg.cmd_argv = argv;
	cfg.cmd_argc = n;
	if (cfg.ev.nr && !(cfg.events = join_events(&cfg.ev))) {
		fprintf(stderr, "tally trace: %s\n", strerror(ENOMEM));
		return 1;
	}
	/* as perf: "record" where the command would be is the subcommand, the rest record's */
	if (n > 0 && !strcmp(argv[0], "record")) {
		if (cfg.events || cfg.input || cfg.output || cfg.user || cfg.target.pids ||
		    cfg.target.tids || cli_target_system_wide(&cfg.target)) {
			cli_error(&p, "%s", "record: -e, -o, -i and the targets go after 'record' "
				  "(tally record's options), only --pf and --no-strings before it");
			free(cfg.events);
			return 129;
		}
		free(cfg.events);
		return trace_record(&cfg, n, argv);
	}
	if (cfg.user) {
		if (n > 0 || cfg.target.pids || cfg.target.tids ||
		    cli_target_system_wide(&cfg.target)) {
			cli_error(&p, "%s", "-u picks the processes: no command, -p, -t, -a or -C with it");
			return 129;
		}
		cfg.user_pids = user_pids(&p, cfg.user);
		if (!cfg.user_pids)
			return 129;
		cfg.target.pids = cfg.user_pids;
	}
	if (cfg.input) {
		if (n > 0 || cfg.target.pids || cfg.target.tids || cli_target_system_wide(&cfg.target)) {
			cli_error(&p, "%s", "-i reads a file: no command or target with it");
			goto usage;
		}
	} else if (cli_target_check(&p, &cfg.target, n > 0, "trace")) {
		goto usage;
	}
	if (cfg.mmap_pages && (cfg.mmap_pages & (cfg.mmap_pages - 1))) {
		cli_error(&p, "-m %ld: a power of two", cfg.mmap_pages);
		goto usage;
	}
	n = trace_run(&cfg);
	free(cfg.user_pids);
	free(cfg.events);
	return n;
usage:
	free(cfg.user_pids);
	free(cfg.events);
	return 129;
}
