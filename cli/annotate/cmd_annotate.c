// SPDX-License-Identifier: MIT
/*
 * tally annotate: perf annotate --stdio's text from a perf.data file:
 * each symbol with samples (or the one named), hottest first, its
 * instructions with their share of the symbol's samples and the source
 * lines between them. The library makes the lines (tally/annotate.h);
 * this file reads the options and prints.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include <tally/annotate.h>
#include "annotate_text.h"
#include "cli.h"
#include "sample_filter.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"

struct annotate_cfg {
	const char *input, *symbol, *dsos, *percent_type, *style, *vmlinux, *symfs, *kallsyms;
	bool stdio, tui, no_source, asm_raw, skip_missing, print_line, full_paths, source_only;
	bool show_nr, show_period, quiet, force;	/* -n, --show-total-period, -q, -f */
	struct tally_annotate *a;
	const char *cpu_list;		/* -C/--cpu: only the samples on these CPUs */
	double percent_limit;		/* --percent-limit: symbols under this share of their event left out */
	struct cli_sample_filter sf;
};

static const char *const percent_names[TALLY_PERCENT__NR] = {
	[TALLY_PERCENT_LOCAL_PERIOD] = "local period",
	[TALLY_PERCENT_GLOBAL_PERIOD] = "global period",
	[TALLY_PERCENT_LOCAL_HITS] = "local hits",
	[TALLY_PERCENT_GLOBAL_HITS] = "global hits",
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct annotate_cfg *c = ctx;

	(void)s;
	/* perf's: dropped before anything counts them */
	if (cli_sample_filter_skip(&c->sf, smp->sample))
		return 0;
	return tally_annotate__add(c->a, smp) == -ENOMEM ? -ENOMEM : 0;
}

/* perf's --percent-type: local-period, global-hits... (either order) */
static int parse_percent_type(const char *s)
{
	static const char *const names[TALLY_PERCENT__NR][2] = {
		[TALLY_PERCENT_LOCAL_PERIOD] = { "local-period", "period-local" },
		[TALLY_PERCENT_GLOBAL_PERIOD] = { "global-period", "period-global" },
		[TALLY_PERCENT_LOCAL_HITS] = { "local-hits", "hits-local" },
		[TALLY_PERCENT_GLOBAL_HITS] = { "global-hits", "hits-global" },
	};

	for (int i = 0; i < TALLY_PERCENT__NR; i++)
		if (!strcmp(s, names[i][0]) || !strcmp(s, names[i][1]))
			return i;
	return -1;
}

static char prev_path[512];

struct sum_line {
	char path[512];
	double sum;
};

static int by_sum(const void *x, const void *y)
{
	const struct sum_line *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	return -strcmp(a->path, b->path);	/* perf's tree keeps equal sums by path, descending */
}

/*
 * perf's srcline of a hot instruction: "file.c:12"; where no line table
 * covers it, binutils' file of the function ("crtstuff.c:0",
 * tally_dso__srcline); else "dso[addr]"
 */
static void line_path(const struct tally_annotate_sym *sym, uint64_t addr, char *path, size_t size)
{
	const char *file, *base;
	unsigned disc;
	int ln;

	if (!tally_dso__objdump_line(sym->dso, addr, &file, &ln, &disc) ||
	    !tally_dso__srcline(sym->dso, addr, &file, &ln)) {
		base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
		snprintf(path, size, "%s:%d", base, ln);
	} else {
		base = strrchr(sym->dso_name, '/') ? strrchr(sym->dso_name, '/') + 1 : sym->dso_name;
		snprintf(path, size, "%s[%" PRIx64 "]", base, addr);
	}
}

/* -l: the source lines holding more than 0.5% each, summed, as perf's print_summary */
static void print_summary(const struct tally_annotate_sym *sym, const struct tally_annotate_lines *l,
			  int ptype)
{
	struct sum_line *v = calloc((size_t)l->nr + 1, sizeof(*v));
	int nr = 0;

	printf("\nSorted summary for file %s\n", sym->dso_name);
	printf("----------------------------------------------\n\n");
	if (!v)
		return;
	for (int i = 0; i < l->nr; i++) {
		const struct tally_annotate_line *al = &l->v[i];
		char path[512];
		int k;

		if (al->offset < 0 || al->percent[ptype] <= 0.5)
			continue;
		line_path(sym, al->addr, path, sizeof(path));
		for (k = 0; k < nr && strcmp(v[k].path, path); k++)
			;
		if (k == nr)
			snprintf(v[nr++].path, sizeof(v[0].path), "%s", path);
		v[k].sum += al->percent[ptype];
	}
	if (!nr)
		printf(" Nothing higher than %1.1f%%\n", 0.5);
	qsort(v, (size_t)nr, sizeof(*v), by_sum);
	for (int k = 0; k < nr; k++)
		printf(" %7.2f %s\n", v[k].sum, v[k].path);
	free(v);
}

static void print_symbol(const struct annotate_cfg *c, struct tally_session *ss,
			 const struct tally_annotate_sym *sym, const struct tally_annotate_lines *l,
			 int ptype)
{
	char path[4096];
	const char *name;
	int n;

	/* the file the code came from: kernel code's is a vmlinux or kcore */
	snprintf(path, sizeof(path), "%s", l->file ? l->file : sym->dso_name);
	name = c->full_paths ? path : basename(path);
	enum annot_col col = c->show_period ? ANNOT_PERIOD : c->show_nr ? ANNOT_SAMPLES :
			     ANNOT_PERCENT;
	int w = col == ANNOT_PERIOD ? 12 : 8;

	/*
	 * perf keeps a pointer to the last path printed in a static, but
	 * frees the symbol's lines after printing it: the next symbol's
	 * first hot line compares with freed memory, and prints its path
	 */
	prev_path[0] = '\0';

	n = printf(" %-*.*s|\tSource code & Disassembly of %s for %s (%" PRIu64
		   " samples, percent: %s)\n", w, w,
		   col == ANNOT_PERIOD ? "Period" : col == ANNOT_SAMPLES ? "Samples" : "Percent", name,
		   tally_session__event_name(ss, sym->attr), sym->nr_samples, percent_names[ptype]);
	for (int i = 0; i < n; i++)
		putchar('-');
	printf("----\n");
	for (int i = 0; i < l->nr; i++) {
		const struct tally_annotate_line *al = &l->v[i];
		char text[8192], *big = NULL;
		int len = annotate_line_text_col(l, i, ptype, col, text, sizeof(text));

		/* a source line longer than the buffer: printed whole all the same */
		if (len >= (int)sizeof(text) && (big = malloc((size_t)len + 1)))
			annotate_line_text_col(l, i, ptype, col, big, (size_t)len + 1);
		fputs(big ? big : text, stdout);
		free(big);
		/* -l: a hot line's source, where it changes within the symbol (as perf) */
		if (al->offset >= 0 && c->print_line && al->percent[ptype] > 0.5) {
			char src[512];

			line_path(sym, al->addr, src, sizeof(src));
			if (strcmp(src, prev_path)) {
				printf(" // %s", src);
				snprintf(prev_path, sizeof(prev_path), "%s", src);
			}
		}
		putchar('\n');
	}
}

static bool failed(const struct tally_dso *const *v, int nr, const struct tally_dso *d)
{
	for (int i = 0; i < nr; i++)
		if (v[i] == d)
			return true;
	return false;
}

/* Samples in files that could not be read cannot be annotated: say which and why. */
static void report_unreadable(struct tally_session *ss)
{
	struct tally_session_stats st = { .sz = sizeof(st) };

	if (tally_session__stats(ss, &st))
		return;
	for (int i = 0; i < st.nr_unresolved; i++) {
		const struct tally_unresolved *u = &st.unresolved[i];

		if (u->status != TALLY_DSO_MISSING && u->status != TALLY_DSO_BUILD_ID_MISMATCH &&
		    u->status != TALLY_DSO_NOT_ELF)
			continue;
		if (!strcmp(u->dso, "[unknown]"))
			continue;
		fprintf(stderr, "tally annotate: %" PRIu64 " samples in %s not annotated: %s%s%s\n",
			u->addrs, u->dso, tally_dso_status__str(u->status), u->detail ? ": " : "",
			u->detail ? u->detail : "");
	}
}

/* --source-only: the function's lines with the sum of their instructions' shares */
static int print_source(const struct annotate_cfg *c, struct tally_session *ss,
			const struct tally_annotate_sym *sym, int idx, int ptype)
{
	struct tally_annotate_source src;
	char path[4096];
	int n, err;

	if ((err = tally_annotate__source(c->a, idx, &src)))
		return err;
	snprintf(path, sizeof(path), "%s", sym->dso_name);
	n = printf(" %-*.*s|\tSource of %s in %s for %s (%" PRIu64 " samples, percent: %s)\n", 8, 8,
		   "Percent", sym->name, c->full_paths ? path : basename(path),
		   tally_session__event_name(ss, sym->attr), sym->nr_samples, percent_names[ptype]);
	for (int i = 0; i < n; i++)
		putchar('-');
	printf("----\n");
	if (!src.nr)
		printf(" %8s: (no line information: built without -g?)\n", " ");
	for (int i = 0; i < src.nr; i++) {
		const struct tally_annotate_srcline *l = &src.v[i];
		char text[4096];
		size_t k = 0, col = 0;

		if (l->file)
			printf(" %8s: %s\n", " ", l->file);
		/* tabs expanded: the percent column would push them */
		for (const char *p = l->text; *p && k < sizeof(text) - 9; p++, col++) {
			if (*p != '\t') {
				text[k++] = *p;
				continue;
			}
			do
				text[k++] = ' ';
			while (++col % 8);
			col--;
		}
		text[k] = '\0';
		if (l->nr_samples)
			printf(" %7.2f : %-5d %s\n", l->percent[ptype], l->line, text);
		else
			printf(" %8s: %-5d %s\n", " ", l->line, text);
	}
	tally_annotate_source__free(&src);
	return 0;
}

static const char *const annotate_usage[] = {
	"tally annotate [--stdio] [-i FILE] [SYMBOL]",
	"",
	"Show where in each function the samples of a perf.data file fell, instruction by",
	"instruction and line by line, as perf annotate --stdio does.",
	NULL,
};

int cmd_annotate(int argc, char **argv)
{
	static struct annotate_cfg c = { .input = "perf.data" };
	bool help = false, demangle = true;
	const char *plimit = NULL;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &c.input, "FILE", "the perf.data file (default perf.data)"),
		CLI_STRING('s', "symbol", &c.symbol, "SYMBOL", "only this symbol"),
		CLI_STRING('d', "dsos", &c.dsos, "DSO[,DSO]", "only symbols of these DSOs"),
		CLI_BOOL(0, "stdio", &c.stdio, "text output (the only one yet)"),
		CLI_BOOL(0, "tui", &c.tui, "the terminal browser (not yet: says so)"),
		CLI_BOOL_F(0, "source", &c.no_source, "interleave source lines (--no-source: not)", 0),
		CLI_BOOL(0, "asm-raw", &c.asm_raw, "show the instructions' bytes"),
		CLI_BOOL(0, "source-only", &c.source_only,
			 "each function's source lines with their share, no instructions"),
		CLI_STRING(0, "percent-type", &c.percent_type, "TYPE",
			   "local-period (default), global-period, local-hits, global-hits"),
		CLI_STRING('M', "disassembler-style", &c.style, "STYLE", "att (default) or intel"),
		CLI_BOOL(0, "skip-missing", &c.skip_missing, "skip symbols that cannot be annotated"),
		CLI_BOOL('l', "print-line", &c.print_line, "first a summary of the hot source lines"),
		CLI_BOOL('P', "full-paths", &c.full_paths, "the DSO's full path in the header"),
		CLI_BOOL('n', "show-nr-samples", &c.show_nr, "each instruction's samples instead of its share"),
		CLI_BOOL(0, "show-total-period", &c.show_period, "each instruction's period instead of its share"),
		CLI_BOOL('q', "quiet", &c.quiet, "no warnings (the files that could not be read)"),
		CLI_BOOL('f', "force", &c.force, "perf's: read a file another user owns (tally always does)"),
		CLI_STRING('C', "cpu", &c.cpu_list, "LIST", "only the samples on these CPUs (0-3,7)"),
		CLI_STRING(0, "percent-limit", &plimit, "PCT", "leave out symbols under PCT percent of their event"),
		CLI_STRING(0, "symfs", &c.symfs, "DIR", "look for files with symbols relative to DIR"),
		CLI_BOOL_F(0, "demangle", &demangle, "C++ and Rust symbols demangled (default; --no-demangle: their linkage names)", CLI_OPT_NEG),
		CLI_STRING(0, "kallsyms", &c.kallsyms, "FILE", "the kernel's symbols from FILE (a copy of /proc/kallsyms)"),
		CLI_STRING('k', "vmlinux", &c.vmlinux, "FILE",
			   "the kernel's code from this ELF file (else /proc/kcore, as root)"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	struct tally_session *ss;
	struct tally_annotate *a = NULL;
	enum tally_disasm_syntax syntax = TALLY_DISASM_ATT;
	int n, ret, ptype = TALLY_PERCENT_LOCAL_PERIOD, shown = 0, nr_warned = 0, nr_failed = 0;
	bool no_kernel_code = false;
	const struct tally_dso *warned[256];
	bool source = true;

	/* --source/--no-source: a bool that is on by default */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--no-source")) {
			source = false;
			argv[i] = "--no-source-hidden";
		} else if (!strcmp(argv[i], "--source")) {
			source = true;
			argv[i] = "--source-hidden";
		}
	}
	{
		struct cli_option all[sizeof(opts) / sizeof(opts[0]) + 2];
		bool dummy;
		size_t k = 0;

		for (; opts[k].kind != CLI_OPT_END; k++)
			all[k] = opts[k];
		all[k++] = (struct cli_option)CLI_BOOL_F(0, "no-source-hidden", &dummy, NULL, CLI_OPT_HIDDEN);
		all[k++] = (struct cli_option)CLI_BOOL_F(0, "source-hidden", &dummy, NULL, CLI_OPT_HIDDEN);
		all[k] = (struct cli_option)CLI_END();
		if ((n = cli_parse("annotate", all, argc, argv, stderr, CLI_PARSE_KEEP_GOING)) < 0)
			return 129;
	}
	if (help) {
		cli_usage(stdout, annotate_usage, opts);
		return 0;
	}
	if (plimit) {
		char *end;

		c.percent_limit = strtod(plimit, &end);
		if (end == plimit || *end || c.percent_limit < 0) {
			fprintf(stderr, "tally annotate: --percent-limit '%s': a share in percent (5, 0.5)\n",
				plimit);
			return 129;
		}
	}
	if (c.show_nr && c.show_period) {
		fprintf(stderr, "tally annotate: -n and --show-total-period: one column or the other\n");
		return 129;
	}
	if (n > 1) {
		fprintf(stderr, "tally annotate: one symbol at most, got '%s' and '%s'\n", argv[0], argv[1]);
		return 129;
	}
	if (n == 1)
		c.symbol = argv[0];
	if (c.percent_type && (ptype = parse_percent_type(c.percent_type)) < 0) {
		fprintf(stderr, "tally annotate: --percent-type: '%s' is none of local-period, "
			"global-period, local-hits, global-hits\n", c.percent_type);
		return 129;
	}
	if (c.style) {
		if (!strcmp(c.style, "intel"))
			syntax = TALLY_DISASM_INTEL;
		else if (strcmp(c.style, "att")) {
			fprintf(stderr, "tally annotate: -M: '%s' is neither att nor intel\n", c.style);
			return 129;
		}
	}
	/* perf: "Invalid file" */
	if (c.vmlinux && access(c.vmlinux, R_OK)) {
		fprintf(stderr, "tally annotate: --vmlinux %s: %s\n", c.vmlinux, strerror(errno));
		return 1;
	}
	if (c.tui)
		fprintf(stderr, "tally annotate: no terminal browser yet: printing as --stdio\n");
	{
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &c, .no_unwind = true,
			   .no_comm = true, .symfs = c.symfs,
			   .kallsyms = c.kallsyms, .no_demangle = !demangle);

		ss = cli_session_open("annotate", c.input, &so, &ret);
	}
	if (!ss)
		return ret;
	{
		TALLY_OPTS(tally_annotate_opts, ao, .symbol = c.symbol, .dsos = c.dsos, .no_source = !source,
			   .asm_raw = c.asm_raw, .syntax = syntax, .vmlinux = c.vmlinux,
			   /* tests only: a kernel without kcore, on any kernel */
			   .kcore = getenv("TALLY_KCORE"));

		a = c.a = tally_annotate__new(ss, &ao);
	}
	if (!a) {
		fprintf(stderr, "tally annotate: %s\n", strerror(errno));
		tally_session__close(ss);
		return 1;
	}
	if ((ret = cli_sample_filter_init(&c.sf, "annotate", ss, NULL, c.cpu_list))) {
		tally_annotate__free(a);
		tally_session__close(ss);
		return ret;
	}
	ret = cli_session_run(ss, "annotate", c.input);
	n = tally_annotate__sort(a);
	pager_start();
	/* a truncated file: what was read before the damage is annotated */
	for (int i = 0; i < n; i++) {
		const struct tally_annotate_sym *sym = tally_annotate__sym(a, i);
		struct tally_annotate_lines l;
		int err;

		if (failed(warned, nr_warned, sym->dso))
			continue;
		/*
		 * perf's --percent-limit: the symbol's share of its event's
		 * samples counted (those -d, -s and -C keep), in perf's float
		 */
		if (c.percent_limit > 0) {
			uint64_t nr, tot;
			float pct = 0;

			tally_annotate__totals(a, sym->attr, &nr, &tot);
			if (tot)
				pct = (float)(100.0 * (double)sym->period / (double)tot);
			if (pct < (float)c.percent_limit)
				continue;
		}
		if (c.source_only) {
			if ((err = print_source(&c, ss, sym, i, ptype))) {
				if (!c.skip_missing && (err != -ENOEXEC || !no_kernel_code))
					fprintf(stderr, "Error:\n%s", tally_annotate__strerror(a));
				no_kernel_code |= err == -ENOEXEC;
				nr_failed++;
				if (err != -ENOMEM && nr_warned < (int)(sizeof(warned) / sizeof(warned[0])))
					warned[nr_warned++] = sym->dso;
				continue;
			}
			shown++;
			continue;
		}
		if ((err = tally_annotate__lines(a, i, &l))) {
			/*
			 * as perf: one message per DSO, its other symbols
			 * skipped; no kernel code at all: said once, not for
			 * each module again
			 */
			if (!c.skip_missing && (err != -ENOEXEC || !no_kernel_code))
				fprintf(stderr, "Error:\n%s", tally_annotate__strerror(a));
			no_kernel_code |= err == -ENOEXEC;
			nr_failed++;
			if (err != -ENOMEM && nr_warned < (int)(sizeof(warned) / sizeof(warned[0])))
				warned[nr_warned++] = sym->dso;
			continue;
		}
		if (c.print_line)
			print_summary(sym, &l, ptype);
		print_symbol(&c, ss, sym, &l, ptype);
		tally_annotate_lines__free(&l);
		shown++;
	}
	if (!ret && !n && c.symbol)
		fprintf(stderr, "tally annotate: no samples in symbol '%s'\n", c.symbol);
	/* symbols with samples, none of them annotated: a failure */
	if (!ret && nr_failed && !shown)
		ret = 1;
	if (!c.quiet)
		report_unreadable(ss);
	tally_annotate__free(a);
	tally_session__close(ss);
	cli_sample_filter_free(&c.sf);
	return ret;
}
