// SPDX-License-Identifier: MIT
/*
 * tally record: perf record's command line, declared once as data (the
 * parser and --help come from the same table), checked, then handed to
 * record_run().
 */
#include <errno.h>
#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "record.h"
#include "wait.h"

static const char *const record_usage[] = {
	"tally record [OPTIONS] [--] COMMAND [ARGS...]",
	"tally record [OPTIONS] -p PID | -t TID | -a | -C CPUS [-- COMMAND]",
	"",
	"Sample events into perf.data (perf's format: perf report reads it).",
	"A command given with -p/-t/-a/-C only sets how long to record.",
	NULL,
};

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

static int opt_freq(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;

	if (!strcmp(arg, "max")) {
		cfg->freq_max = true;
		return 0;
	}
	if (parse_u64(arg, &cfg->freq) || !cfg->freq)
		return cli_error(p, "-F '%s': a number of samples a second (or 'max')", arg);
	return 0;
}

/* -c 0 is no period at all, as perf 6.1: the default frequency then. */
static int opt_count(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;

	if (parse_u64(arg, &cfg->period))
		return cli_error(p, "-c '%s': a period (events between samples)", arg);
	return 0;
}

static int set_call_graph(struct cli_parse *p, struct record_config *cfg, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (n == 2 && !strncmp(arg, "fp", 2))
		cfg->callchain = TALLY_CALLCHAIN_FP;
	else if (n == 5 && !strncmp(arg, "dwarf", 5))
		cfg->callchain = TALLY_CALLCHAIN_DWARF;
	else if (n == 3 && !strncmp(arg, "lbr", 3))
		cfg->callchain = TALLY_CALLCHAIN_LBR;
	else
		return cli_error(p, "--call-graph '%s': fp, dwarf[,SIZE] or lbr", arg);
	if (comma) {
		uint64_t sz;

		if (cfg->callchain != TALLY_CALLCHAIN_DWARF || parse_u64(comma + 1, &sz) ||
		    sz == 0 || sz > 65528 || sz % 8)
			return cli_error(p, "--call-graph '%s': the stack size is a multiple of 8 "
					 "up to 65528, for dwarf only", arg);
		cfg->stack_size = (uint32_t)sz;
	}
	return 0;
}

static int opt_call_graph(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	return set_call_graph(p, opt->value, arg);
}

static int opt_g(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	((struct record_config *)opt->value)->callchain = TALLY_CALLCHAIN_FP;
	return 0;
}

/*
 * -m N: data pages per ring, or a size: 512K, 4M (whole pages). As perf
 * 6.1, anything else than a power of two is rounded up to one, and said.
 */
static int opt_mmap_pages(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;
	char *end;
	unsigned long long v, mult = 0, page = 4096, n, pages = 1;
	static const char units[] = "BKMG";
	int u = 0;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || arg[0] == '-')
		goto bad;
	switch (*end) {
	case 0: break;
	case 'B': case 'b': mult = 1; break;
	case 'K': case 'k': mult = 1ull << 10; break;
	case 'M': case 'm': mult = 1ull << 20; break;
	case 'G': case 'g': mult = 1ull << 30; break;
	default: goto bad;
	}
	if (mult) {
		if (end[1] || v > (1ull << 40) / mult)
			goto bad;
		v = (v * mult + page - 1) / page;
	}
	if (v > (1ull << 20))
		goto bad;
	while (pages < v)
		pages <<= 1;
	if (pages != v) {
		/* perf's unit_number__scnprintf: 2048 is 2K, 1024 stays 1024B */
		for (n = pages * page; n / 1024 > 1 && u < 3; u++)
			n /= 1024;
		fprintf(stderr, "rounding mmap pages size to %llu%c (%llu pages)\n", n, units[u],
			pages);
	}
	cfg->mmap_pages = (long)pages;
	return 0;
bad:
	return cli_error(p, "-m '%s': a number of pages (up to 1048576) or a size such as 512K",
			 arg);
}

/* -z, --compression-level[=N]: zstd, level 1 by default (as perf). */
static int opt_compress(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;
	uint64_t lvl = 1;

	if (arg && (parse_u64(arg, &lvl) || lvl < 1 || lvl > 22))
		return cli_error(p, "--compression-level '%s': 1 to 22", arg);
	cfg->zstd_level = (int)lvl;
	return 0;
}

/* perf's -k names: a number, or a clock's name with or without CLOCK_ */
static int opt_clockid(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
		{ "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "real", CLOCK_REALTIME }, { "boot", CLOCK_BOOTTIME },
	};
	struct record_config *cfg = opt->value;
	const char *s = arg;
	char *end;
	long n;

	if (cfg->use_clockid)
		return cli_error(p, "-k/--clockid given twice");
	n = strtol(arg, &end, 10);
	if (end != arg && !*end && n >= 0 && n < 64) {
		cfg->clockid = (int)n;
		cfg->use_clockid = true;
		return 0;
	}
	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(s, clocks[i].name)) {
			cfg->clockid = clocks[i].id;
			cfg->use_clockid = true;
			return 0;
		}
	return cli_error(p, "-k/--clockid '%s': unknown clock (monotonic, monotonic_raw, "
			 "realtime, boottime, tai, or a clockid number)", arg);
}

/* "N<tag>" with one of tags' letters (perf's parse_tag_value): N * its multiple, or 0 */
static uint64_t tag_value(const char *s, const char *tags, const uint64_t *mult)
{
	char *end;
	unsigned long long v;
	const char *t;

	if (!isdigit((unsigned char)s[0]))
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || !*end || end[1] || !(t = strchr(tags, *end)))
		return 0;
	return v * mult[t - tags];
}

/*
 * perf's --switch-output[=signal|SIZE|TIME]: a new file at SIGUSR2, or
 * once SIZE bytes (B, K, M, G) were written to it, or every TIME (s, m,
 * h, d); the switched files are stamped as --timestamp-filename's
 */
static int opt_switch_output(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	static const uint64_t size_mult[] = { 1, 1 << 10, 1 << 20, 1 << 30 };
	static const uint64_t time_mult[] = { 1, 60, 3600, 86400 };
	struct record_config *cfg = opt->value;
	uint64_t v;

	cfg->switch_output_signal = true;
	if (!arg || !strcmp(arg, "signal"))
		return 0;
	if ((v = tag_value(arg, "BKMG", size_mult))) {
		cfg->switch_output_size = v;
		return 0;
	}
	if ((v = tag_value(arg, "smhd", time_mult)) && v <= UINT_MAX) {
		cfg->switch_output_secs = (unsigned)v;
		return 0;
	}
	return cli_error(p, "--switch-output='%s': signal, a size (10M: B, K, M, G) or a time "
			 "(30s: s, m, h, d)", arg);
}

#define RECORD_NR_OPTS 80

/* -e: an event after -G a has no cgroup of its own (perf's rule) */
static int opt_event(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;

	cli_cgroups_event(&cfg->cg, &cfg->target);
	return cli_events_push(p, &cfg->events, arg);
}

/* -G: perf's cgroup lists, as stat takes them */
static int opt_cgroup(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;

	return cli_cgroups_add(p, &cfg->cg, &cfg->events, &cfg->target, arg);
}

/* perf's --max-size: a number of bytes, or with B, K, M or G */
static int opt_max_size(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || errno || arg[0] == '-')
		goto bad;
	switch (*end) {
	case '\0': case 'B': break;
	case 'K': v <<= 10; break;
	case 'M': v <<= 20; break;
	case 'G': v <<= 30; break;
	default: goto bad;
	}
	if (*end && end[1])
		goto bad;
	cfg->max_size = v;
	return 0;
bad:
	cli_error(p, "--max-size '%s': a size, as 100K, 50M, 1G", arg);
	return -1;
}

/* A sample field of a bool option: its PERF_SAMPLE_* bits (opt->value) added */
#define SAMPLE_OPT(s, l, bits, h) \
	CLI_CALLBACK_F((s), (l), cfg, NULL, (h), opt_sample_bits, CLI_OPT_NOARG, (bits))

static int opt_sample_bits(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	(void)p;
	(void)arg;
	((struct record_config *)opt->value)->sample_type |= (uint64_t)opt->defval;
	return 0;
}

static int opt_branch_any(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	(void)p;
	(void)arg;
	((struct record_config *)opt->value)->branch_filter |= PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

static int opt_branch_filter(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct record_config *cfg = opt->value;
	uint64_t v;

	if (record_branch_filter(arg, &v))
		return cli_error(p, "-j '%s': a list of %s", arg, RECORD_BRANCH_NAMES);
	cfg->branch_filter |= v;
	return 0;
}

static int opt_regs(struct cli_parse *p, const struct cli_option *opt, const char *arg,
		    uint64_t *mask)
{
	if (arg && !strcmp(arg, "?")) {
		sample_regs_list(stderr);	/* and a usage error, as perf */
		return -1;
	}
	if (sample_regs_parse(arg, mask))
		return cli_error(p, "--%s '%s': a list of registers (--%s=? lists them)",
				 opt->long_name, arg, opt->long_name);
	return 0;
}

static int opt_intr_regs(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	((struct record_config *)opt->value)->sample_type |= PERF_SAMPLE_REGS_INTR;
	return opt_regs(p, opt, arg, &((struct record_config *)opt->value)->intr_regs);
}

static int opt_user_regs(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	((struct record_config *)opt->value)->sample_type |= PERF_SAMPLE_REGS_USER;
	return opt_regs(p, opt, arg, &((struct record_config *)opt->value)->user_regs);
}

static void record_options(struct record_config *cfg, struct cli_option *out)
{
	struct cli_target *t = &cfg->target;
	const struct cli_option opts[] = {
		CLI_GROUP("Events"),
		CLI_CALLBACK('e', "event", cfg, "SPEC", "events to sample (repeatable; see tally list)", opt_event),
		CLI_CALLBACK(0, "filter", &cfg->events, "EXPR", "ftrace filter for the tracepoint just before", cli_opt_filter),
		CLI_CALLBACK('F', "freq", cfg, "N", "N samples a second ('max': the kernel's limit)", opt_freq),
		CLI_BOOL(0, "strict-freq", &cfg->strict_freq, "-F above the kernel's maximum is an error, not throttled"),
		CLI_CALLBACK('c', "count", cfg, "N", "a sample every N events", opt_count),
		CLI_CALLBACK('g', NULL, cfg, NULL, "record call chains (frame pointers)", opt_g),
		CLI_CALLBACK(0, "call-graph", cfg, "MODE", "fp, dwarf[,SIZE] (user regs and stack) or lbr", opt_call_graph),
		CLI_BOOL(0, "user-callchains", &cfg->user_callchains, "call chains in user space only (exclude_callchain_kernel)"),
		CLI_BOOL(0, "kernel-callchains", &cfg->kernel_callchains, "call chains in the kernel only (exclude_callchain_user)"),
		CLI_BOOL(0, "sample-cpu", &cfg->sample_cpu, "record the CPU of each sample"),
		CLI_BOOL(0, "switch-events", &cfg->switch_events, "record context switches"),
		CLI_BOOL(0, "off-cpu", &cfg->off_cpu, "record the time tasks wait off the CPU, with their stacks (BPF: root)"),
		CLI_LONG('D', "delay", &cfg->delay_ms, "MS", "start sampling MS after the command starts (the maps made meanwhile are kept; -1: when --control says enable)", -1, 86400000),
		CLI_STRING(0, "control", &cfg->control, "fifo:CTL[,ACK]|fd:CTL[,ACK]", "enable/disable commands from another program (perf's)"),
		CLI_BOOL(0, "all-user", &cfg->all_user, "every event in user space only (exclude_kernel)"),
		CLI_BOOL(0, "all-kernel", &cfg->all_kernel, "every event in the kernel only (exclude_user)"),
		CLI_GROUP("Sample fields"),
		SAMPLE_OPT('d', "data", PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC, "the data address (and data source) of each sample"),
		SAMPLE_OPT(0, "phys-data", PERF_SAMPLE_PHYS_ADDR, "the physical address of the data"),
		SAMPLE_OPT(0, "data-page-size", PERF_SAMPLE_DATA_PAGE_SIZE, "the size of the data's page"),
		SAMPLE_OPT(0, "code-page-size", PERF_SAMPLE_CODE_PAGE_SIZE, "the size of the code's page"),
		SAMPLE_OPT('W', "weight", RECORD_WEIGHT_BIT, "the sample's weight (a load's latency)"),
		SAMPLE_OPT(0, "transaction", PERF_SAMPLE_TRANSACTION, "the transaction flags (TSX aborts)"),
		SAMPLE_OPT(0, "sample-identifier", PERF_SAMPLE_IDENTIFIER, "an event id first in every sample, even for one event"),
		SAMPLE_OPT('T', "timestamp", PERF_SAMPLE_TIME, "the time of each sample (always recorded)"),
		SAMPLE_OPT('P', "period", PERF_SAMPLE_PERIOD, "the period in each sample (also with -c)"),
		SAMPLE_OPT('R', "raw-samples", PERF_SAMPLE_RAW | PERF_SAMPLE_CPU | PERF_SAMPLE_TIME,
			   "the raw data of each sample, with its CPU and time"),
		CLI_CALLBACK_F('b', "branch-any", cfg, NULL, "the taken branches before each sample (-j any)", opt_branch_any, CLI_OPT_NOARG, 0),
		CLI_CALLBACK('j', "branch-filter", cfg, "LIST", "the branch stack, these branches: " RECORD_BRANCH_NAMES, opt_branch_filter),
		CLI_CALLBACK_F(0, "intr-regs", cfg, "REGS", "the registers at the interrupt (default all; =? lists)", opt_intr_regs, CLI_OPT_OPTARG, 0),
		CLI_CALLBACK_F(0, "user-regs", cfg, "REGS", "the user registers (default all; =? lists)", opt_user_regs, CLI_OPT_OPTARG, 0),
		CLI_BOOL(0, "all-cgroups", &cfg->all_cgroups, "each sample's cgroup, and CGROUP records naming them"),
		CLI_BOOL(0, "namespaces", &cfg->namespaces, "NAMESPACES records: each task's namespaces (dev/inode)"),
		CLI_CALLBACK('k', "clockid", cfg, "CLOCK", "the events' clock (monotonic, realtime, ...): script's tod", opt_clockid),
		CLI_BOOL('s', "stat", &cfg->inherit_stat, "per-thread counts (inherit_stat: a READ record at each thread's exit)"),
		CLI_GROUP("Targets"),
		CLI_STRING('p', "pid", &t->pids, "PID[,PID]", "record existing processes (all their threads)"),
		CLI_STRING('t', "tid", &t->tids, "TID[,TID]", "record existing threads"),
		CLI_STRING('u', "uid", &t->uid, "USER", "record the threads of USER's processes (a name or a number)"),
		CLI_BOOL('a', "all-cpus", &t->system_wide, "record system-wide on every CPU"),
		CLI_STRING('C', "cpu", &t->cpu_list, "LIST", "record system-wide on these CPUs (0-3,7)"),
		CLI_CALLBACK('G', "cgroup", cfg, "LIST", "record only tasks of these cgroups (with -a); a list: one per event before it", opt_cgroup),
		CLI_BOOL('i', "no-inherit", &t->no_inherit, "do not follow the command's children"),
		CLI_BOOL(0, "per-thread", &cfg->per_thread, "one ring per thread, no CPU rings (no inherit)"),
		CLI_GROUP("Output"),
		CLI_STRING('o', "output", &cfg->output, "FILE", "write FILE (default perf.data; '-': stdout, pipe format)"),
		CLI_CALLBACK('m', "mmap-pages", cfg, "N", "ring size: pages (a power of two) or 512K, 4M", opt_mmap_pages),
		CLI_CALLBACK_F('z', "compression-level", cfg, "N", "zstd-compress the data (level N, default 1)", opt_compress, CLI_OPT_OPTARG, 0),
		CLI_BOOL(0, "overwrite", &cfg->overwrite, "flight recorder: rings keep the newest data"),
		CLI_CALLBACK_F(0, "switch-output", cfg, "signal|SIZE|TIME", "FILE.<time> written and a new FILE started at SIGUSR2, each SIZE (10M) or each TIME (30s)", opt_switch_output, CLI_OPT_OPTARG, 0),
		CLI_INT(0, "switch-max-files", &cfg->switch_max_files, "N", "with --switch-output: keep the last N files, remove older ones", 1, INT_MAX),
		CLI_INT('r', "realtime", &cfg->realtime, "PRIO", "record at this SCHED_FIFO priority (the command keeps its own)", 1, 99),
		CLI_BOOL(0, "no-buffering", &cfg->no_buffering, "a wake-up per sample, not per quarter ring"),
		CLI_BOOL('B', "no-buildid", &cfg->no_buildid, "do not collect build ids"),
		CLI_BOOL('N', "no-buildid-cache", &cfg->no_buildid_cache, "do not keep the sampled files in perf's build-id cache (~/.debug)"),
		CLI_STRING(0, "html", &cfg->html, "FILE", "also write one offline page of the profile (tally report --html)"),
		CLI_CALLBACK(0, "max-size", cfg, "SIZE", "stop once the file holds SIZE bytes (B, K, M, G), the command sent SIGTERM", opt_max_size),
		CLI_BOOL(0, "timestamp-filename", &cfg->timestamp_filename, "end the file's name with the time it was written (FILE.YYYYMMDDHHMMSScc)"),
		CLI_BOOL(0, "dry-run", &cfg->dry_run, "check the options, then exit"),
		CLI_BOOL('q', "quiet", &cfg->quiet, "print nothing but errors"),
		CLI_COUNT('v', "verbose", &cfg->verbose, "say more (each event's perf_event_attr)"),
		CLI_HELP(&cfg->help, "this text (man tally-record for the full manual)"),
		CLI_END(),
	};

	_Static_assert(sizeof(opts) / sizeof(opts[0]) <= RECORD_NR_OPTS, "RECORD_NR_OPTS too small");
	memcpy(out, opts, sizeof(opts));
}

static int record_parse_args(struct record_config *cfg, int argc, char **argv, FILE *err)
{
	struct cli_option opts[RECORD_NR_OPTS];
	struct cli_parse p = { .cmd = "record", .err = err };
	int n;

	record_options(cfg, opts);
	n = cli_parse("record", opts, argc, argv, err, 0);
	if (n < 0)
		return 129;
	if (cfg->help) {
		cli_usage(stdout, record_usage, opts);
		return -1;
	}
	cfg->cmd_argv = argv;
	cfg->cmd_argc = n;
	if (cli_target_check(&p, &cfg->target, n > 0, "record"))
		return 129;
	if ((cfg->freq || cfg->freq_max) && cfg->period) {
		cli_error(&p, "%s", "-F and -c do not mix: a frequency or a period");
		return 129;
	}
	if (cfg->per_thread && cli_target_system_wide(&cfg->target)) {
		cli_error(&p, "%s", "--per-thread follows threads, not CPUs: not with -a or -C");
		return 129;
	}
	if (cfg->html && cfg->output && !strcmp(cfg->output, "-")) {
		cli_error(&p, "%s", "--html reads the written file back: not with -o -");
		return 129;
	}
	if (cfg->off_cpu && (cfg->switch_output_signal || cfg->target.cgroup_per_event ||
			     cfg->target.cgroup)) {
		cli_error(&p, "%s", "--off-cpu writes its samples at the end of one file, for "
			  "all cgroups: not with --switch-output or -G");
		return 129;
	}
	if (cfg->switch_output_signal && cfg->output && !strcmp(cfg->output, "-")) {
		cli_error(&p, "%s", "--switch-output writes files: not with -o -");
		return 129;
	}
	if (cfg->timestamp_filename && ((cfg->output && !strcmp(cfg->output, "-")) || cfg->html ||
					cfg->switch_output_signal)) {
		cli_error(&p, "%s", "--timestamp-filename renames the file at the end: not with -o -, "
			  "--html or --switch-output");
		return 129;
	}
	if (cfg->user_callchains && cfg->kernel_callchains) {
		cli_error(&p, "%s", "--user-callchains and --kernel-callchains: one or the other");
		return 129;
	}
	return 0;
}

/*
 * An output written only once the workload is over (--html) is checked
 * first: a bad path must not cost the whole run. Its folder exists and
 * takes files; an existing one is a file we may write. 0, or -1 said.
 */
static int output_writable(const char *opt, const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int err = 0;

	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			err = EISDIR;
		else if (access(path, W_OK))
			err = errno;
	} else if (errno != ENOENT) {
		err = errno;
	} else {
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
		if (access(dir, W_OK | X_OK))
			err = errno;
	}
	if (!err)
		return 0;
	fprintf(stderr, "tally record: cannot write %s %s: %s\n", opt, path, strerror(err));
	return -1;
}

static int record_main(int argc, char **argv, bool syscall_strings)
{
	struct record_config cfg = { .zstd_level = 0, .syscall_strings = syscall_strings };
	/* the CMDLINE feature wants argv as typed: the parse reorders it */
	char **orig = malloc(((size_t)argc + 1) * sizeof(*orig));
	int ret;

	if (!orig)
		return 1;
	memcpy(orig, argv, (size_t)argc * sizeof(*orig));
	orig[argc] = NULL;
	cfg.orig_argv = orig;
	cfg.orig_argc = argc;
	ret = record_parse_args(&cfg, argc, argv, stderr);
	/* perf's --dry-run: the options and the events checked, nothing opened */
	if (!ret && cfg.dry_run) {
		struct cg_fds cg = { 0 };
		bool usage_err = false;
		struct tally_evlist *l = record_build_events(&cfg, cfg.events.nr ? NULL : "cycles",
							     &cg, &usage_err);

		ret = l ? 0 : usage_err ? 129 : 1;
		tally_evlist__free(l);
		cg_fds_close(&cg);
		free(orig);
		return ret;
	}
	if (!ret && cfg.html && output_writable("--html", cfg.html))
		ret = 1;	/* as a -o that cannot be created */
	if (!ret) {
		ret = record_run(&cfg);
		if (cfg.html && ret >= 0) {
			/* the page from the file just written, as tally report --html would */
			char *rargv[] = { "report", "-i",
					  (char *)(cfg.output ? cfg.output : "perf.data"), "--html",
					  (char *)cfg.html, NULL };

			pager_disabled = true;
			if (cmd_report(5, rargv))
				ret = ret ? ret : 1;
			else if (!cfg.quiet)
				fprintf(stderr, "[ tally record: wrote %s ]\n", cfg.html);
		}
	}
	free(orig);
	/*
	 * Without a command (-a, -p, -C), a signal is how a recording ends:
	 * the file written, it ends tally too, as perf's record__sig_exit
	 * (SIGTERM: 143, SIGINT: 130). With one, its status is tally's.
	 */
	if (ret <= 0 && !cfg.cmd_argc && cli_interrupted())
		cli_reraise_interrupt();
	return ret < 0 ? 0 : ret;
}

int cmd_record(int argc, char **argv)
{
	return record_main(argc, argv, false);
}

int cmd_trace_record(int argc, char **argv, bool syscall_strings)
{
	return record_main(argc, argv, syscall_strings);
}
