// SPDX-License-Identifier: MIT
/*
 * tally kmem: perf kmem 6.1's record and stat. record is tally record
 * with perf kmem's events and options; stat reads the file through the
 * library's session (kmem_stat.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "kmem_cmd.h"
#include "pager.h"
#include "parse_options.h"
#include "tp_cmd.h"

static const char *const kmem_usage[] = {
	"tally kmem [--slab] [--page] [-i FILE] {record|stat} [OPTIONS]",
	"",
	"Kernel memory allocation, as perf kmem: record the kmem tracepoints",
	"system-wide, then show the slab and page allocators' summaries.",
	NULL,
};

struct kmem_common {
	struct kmem_opts o;
	int verbose;
	bool force, help;
};

/* --caller and --alloc: the later one given is what -s and -l apply to (perf's flags) */
static int opt_caller(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;

	o->caller = o->alloc + 1;
	return 0;
}

static int opt_alloc(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;

	o->alloc = o->caller + 1;
	return 0;
}

static int opt_slab(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;

	o->slab = true;
	o->slab_at = o->page_at + 1;
	return 0;
}

static int opt_page(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;

	o->page = true;
	o->page_at = o->slab_at + 1;
	return 0;
}

static int opt_sort(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;
	const char *keys[16];

	/* perf: the page allocator's keys when --page came after --slab */
	if (o->page_at > o->slab_at) {
		if (kmem_page_keys(arg, keys, 16) < 0)
			return cli_error(p, "unknown page --sort key in '%s' (page, callsite, bytes, hit, "
					 "order, migtype, gfp)", arg);
		if (o->caller > o->alloc)
			o->page_caller_sort = arg;
		else
			o->page_alloc_sort = arg;
		return 0;
	}
	if (kmem_slab_keys(arg, keys, 16) < 0)
		return cli_error(p, "unknown slab --sort key in '%s' (ptr, callsite, bytes, hit, "
				 "pingpong, frag)", arg);
	if (o->caller > o->alloc)
		o->caller_sort = arg;
	else
		o->alloc_sort = arg;
	return 0;
}

static int opt_lines(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct kmem_opts *o = opt->value;
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 0 || n > 1 << 30)
		return cli_error(p, "-l '%s': a number of lines", arg);
	if (o->caller > o->alloc)
		o->caller_lines = (int)n;
	else
		o->alloc_lines = (int)n;
	return 0;
}

#define KMEM_COMMON(c)								\
	CLI_STRING('i', "input", &(c)->o.input, "FILE", "input file name (default perf.data)"), \
	CLI_CALLBACK(0, "slab", &(c)->o, NULL, "Analyze slab allocator", opt_slab), \
	CLI_CALLBACK(0, "page", &(c)->o, NULL, "Analyze page allocator", opt_page), \
	CLI_CALLBACK(0, "caller", &(c)->o, NULL, "show per-callsite statistics", opt_caller), \
	CLI_CALLBACK(0, "alloc", &(c)->o, NULL, "show per-allocation statistics", opt_alloc), \
	CLI_CALLBACK('s', "sort", &(c)->o, "KEY[,KEY...]",			\
		     "sort by keys: ptr, callsite, bytes, hit, pingpong, frag, page, order, migtype, gfp", \
		     opt_sort),								\
	CLI_CALLBACK('l', "line", &(c)->o, "NUM", "show n lines", opt_lines),	\
	CLI_BOOL(0, "raw-ip", &(c)->o.raw_ip, "show raw ip instead of symbol"),	\
	CLI_BOOL(0, "live", &(c)->o.live, "Show live page stat"),		\
	CLI_STRING(0, "time", &(c)->o.time, "START,STOP",			\
		   "Time span of interest (start,stop), in seconds"),		\
	CLI_COUNT('v', "verbose", &(c)->verbose, "be more verbose"),		\
	CLI_BOOL('f', "force", &(c)->force, "don't complain, do it"),		\
	CLI_HELP(&(c)->help, "this text (man tally-kmem for the full manual)")

/*
 * perf kmem record: perf record -a -R -c 1, the slab events (--slab, the
 * default: kmalloc, kfree, kmem_cache_alloc, kmem_cache_free and the
 * _node ones where the kernel still has them) and the page events
 * (--page: mm_page_alloc, mm_page_free, with call chains), then the
 * user's arguments. tally record takes a tracepoint's raw data without -R.
 */
static int kmem_record(int argc, char **argv, const struct kmem_opts *o)
{
	static const char *const slab[] = {
		"kmalloc", "kmalloc_node", "kfree", "kmem_cache_alloc", "kmem_cache_alloc_node",
		"kmem_cache_free",
	};
	static const char *const page[] = { "mm_page_alloc", "mm_page_free" };
	char **rargv = calloc((size_t)argc + 32, sizeof(*rargv));
	char evs[8][64];
	int n = 0, ne = 0, ret;

	if (!rargv)
		return 1;
	rargv[n++] = "record";
	rargv[n++] = "-a";
	rargv[n++] = "-c";
	rargv[n++] = "1";
	if (o->slab) {
		for (size_t i = 0; i < sizeof(slab) / sizeof(slab[0]); i++) {
			int has = cli_have_tp("kmem", slab[i]);

			/* the _node events went into kmalloc and kmem_cache_alloc in 6.0 */
			if (!has && strstr(slab[i], "_node"))
				continue;
			if (!has) {
				fprintf(stderr, "tally kmem record: tracepoint kmem:%s is not on this kernel\n",
					slab[i]);
				free(rargv);
				return 1;
			}
			snprintf(evs[ne], sizeof(evs[ne]), "kmem:%s", slab[i]);
			rargv[n++] = "-e";
			rargv[n++] = evs[ne++];
		}
	}
	if (o->page) {
		rargv[n++] = "-g";
		for (size_t i = 0; i < 2; i++) {
			if (!cli_have_tp("kmem", page[i])) {
				fprintf(stderr, "tally kmem record: tracepoint kmem:%s is not on this kernel\n",
					page[i]);
				free(rargv);
				return 1;
			}
			snprintf(evs[ne], sizeof(evs[ne]), "kmem:%s", page[i]);
			rargv[n++] = "-e";
			rargv[n++] = evs[ne++];
		}
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_record(n, rargv);
	free(rargv);
	return ret;
}

static const char *const stat_usage[] = { "tally kmem [--slab] [--page] stat [OPTIONS]", NULL };

int cmd_kmem(int argc, char **argv)
{
	struct kmem_common c = { .o.caller_lines = -1, .o.alloc_lines = -1 };
	const struct cli_option opts[] = {
		KMEM_COMMON(&c),
		CLI_END(),
	};
	const char *sub;
	int n;

	/* perf kmem's options come before the subcommand */
	n = cli_parse("kmem", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (c.help || n == 0) {
		cli_usage(c.help ? stdout : stderr, kmem_usage, opts);
		return c.help ? 0 : 129;
	}
	sub = argv[0];
	if (!c.o.slab && !c.o.page)
		c.o.slab = true;	/* perf's default */
	if (cli_subcmd_is(sub, "record", 3))
		return kmem_record(n, argv, &c.o);
	if (cli_subcmd_is(sub, "stat", 3)) {
		const struct cli_option sopts[] = {
			KMEM_COMMON(&c),
			CLI_END(),
		};

		if (cli_parse("kmem stat", sopts, n, argv, stderr, 0) < 0)
			return 129;
		if (c.help) {
			cli_usage(stdout, stat_usage, sopts);
			return 0;
		}
		if (!c.o.slab && !c.o.page)
			c.o.slab = true;
		pager_start();
		return kmem_stat(&c.o);
	}
	fprintf(stderr, "tally kmem: unknown subcommand '%s' (record, stat)\n", sub);
	cli_usage(stderr, kmem_usage, opts);
	return 129;
}
