// SPDX-License-Identifier: MIT
/*
 * Options as data: one struct cli_option table per command both parses
 * argv (cli_parse) and prints the help (cli_usage). Pure: no library
 * calls, so unit tests include it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "parse_options.h"

#define HELP_COL	27	/* where the help text starts, as stat's old usage */

int cli_error(struct cli_parse *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(p->err, "tally %s: ", p->cmd);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fprintf(p->err, " (see 'tally %s --help')\n", p->cmd);
	return -1;
}

int cli_opt_help(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	*(bool *)opt->value = true;
	return CLI_STOP;
}

static bool takes_arg(const struct cli_option *o)
{
	switch (o->kind) {
	case CLI_OPT_INT:
	case CLI_OPT_LONG:
	case CLI_OPT_STRING:
		return true;
	case CLI_OPT_CALLBACK:
		return !(o->flags & CLI_OPT_NOARG);
	default:
		return false;
	}
}

static int bad_number(struct cli_parse *p, const struct cli_option *o, const char *arg)
{
	const char *what = o->argh ? o->argh : "the value";
	long hi = o->kind == CLI_OPT_INT ? INT_MAX : LONG_MAX;

	if (o->max && o->max < hi)
		return cli_error(p, "bad %s '%s': %s must be an integer from %ld to %ld",
				 p->opt_name, arg, what, o->min, o->max);
	return cli_error(p, "bad %s '%s': %s must be an integer >= %ld", p->opt_name, arg,
			 what, o->min);
}

/* Give the option its value; unset: --no-NAME. 0, CLI_STOP or -1. */
static int take(struct cli_parse *p, const struct cli_option *o, const char *arg, bool unset)
{
	long v, hi;
	char *end;

	switch (o->kind) {
	case CLI_OPT_BOOL:
		*(bool *)o->value = !unset;
		return 0;
	case CLI_OPT_COUNT:
		++*(int *)o->value;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case CLI_OPT_INT:
	case CLI_OPT_LONG:
		hi = o->kind == CLI_OPT_INT ? INT_MAX : LONG_MAX;
		if (o->max && o->max < hi)
			hi = o->max;
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < o->min || v > hi)
			return bad_number(p, o, arg);
		if (o->kind == CLI_OPT_INT)
			*(int *)o->value = (int)v;
		else
			*(long *)o->value = v;
		return 0;
	case CLI_OPT_CALLBACK:
		return o->cb(p, o, arg);
	default:
		return cli_error(p, "option '%s' is not handled", p->opt_name);
	}
}

/* Two table entries that do the same thing (an alias): not ambiguous. */
static bool same_effect(const struct cli_option *a, const struct cli_option *b)
{
	return a->kind == b->kind && a->value == b->value && a->cb == b->cb &&
	       a->defval == b->defval;
}

/*
 * The entry for a long name (without "--" and "=val"): exact, then
 * --no-NAME, then an unambiguous prefix of either. NULL after an error.
 */
static const struct cli_option *find_long(struct cli_parse *p, const char *name, size_t len,
					  bool *unset)
{
	const struct cli_option *o, *hit = NULL;
	bool hit_unset = false, ambiguous = false;

	for (o = p->opts; o->kind != CLI_OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len)) {
			*unset = false;
			return o;
		}
	if (len > 3 && !strncmp(name, "no-", 3))
		for (o = p->opts; o->kind != CLI_OPT_END; o++)
			if (o->long_name && (o->flags & CLI_OPT_NEG) &&
			    strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*unset = true;
				return o;
			}
	for (o = p->opts; o->kind != CLI_OPT_END; o++) {
		bool u;

		if (!o->long_name)
			continue;
		if (!strncmp(o->long_name, name, len))
			u = false;
		else if ((o->flags & CLI_OPT_NEG) && len > 3 && !strncmp(name, "no-", 3) &&
			 !strncmp(o->long_name, name + 3, len - 3))
			u = true;
		else
			continue;
		if (hit && !(same_effect(hit, o) && hit_unset == u))
			ambiguous = true;
		if (!hit)
			hit = o, hit_unset = u;
	}
	if (ambiguous)
		return cli_error(p, "ambiguous option '%s'", p->opt_name), NULL;
	if (!hit)
		return cli_error(p, "unknown option '%s'", p->opt_name), NULL;
	*unset = hit_unset;
	return hit;
}

/* "--name[=val]" at argv[*i]; may take argv[*i + 1]. 0, CLI_STOP or -1. */
static int parse_long(struct cli_parse *p, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cli_option *o;
	bool unset = false;
	char shown[128];

	snprintf(shown, sizeof(shown), "--%.*s", (int)len, name);
	p->opt_name = shown;
	o = find_long(p, name, len, &unset);
	if (!o)
		return -1;
	/* the option's own name, not the prefix the user typed */
	snprintf(shown, sizeof(shown), "--%s%s", unset ? "no-" : "", o->long_name);
	if (!takes_arg(o) || unset) {
		if (eq)
			return cli_error(p, "option '%s' takes no value", shown);
		return take(p, o, NULL, unset);
	}
	if (eq)
		return take(p, o, eq + 1, false);
	if ((o->flags & CLI_OPT_OPTARG) ||
	    ((o->flags & CLI_OPT_OPTNEXT) && (*i + 1 >= argc || argv[*i + 1][0] == '-')))
		return take(p, o, NULL, false);
	if (*i + 1 >= argc)
		return cli_error(p, "option '%s' needs a value", shown);
	return take(p, o, argv[++*i], false);
}

/* "-abc", "-I100", "-I 100" at argv[*i]. 0, CLI_STOP or -1. */
static int parse_short(struct cli_parse *p, int argc, char **argv, int *i)
{
	const char *s = argv[*i] + 1;
	char shown[3] = "-?";

	p->opt_name = shown;
	for (; *s; s++) {
		const struct cli_option *o;
		int rc;

		shown[1] = *s;
		for (o = p->opts; o->kind != CLI_OPT_END; o++)
			if (o->short_name && o->short_name == *s)
				break;
		if (o->kind == CLI_OPT_END)
			return cli_error(p, "unknown option '%s'", shown);
		if (!takes_arg(o)) {
			rc = take(p, o, NULL, false);
			if (rc)
				return rc;
			continue;
		}
		/* the rest of the word is the value, else the next word */
		if (s[1])
			return take(p, o, s + 1, false);
		if ((o->flags & CLI_OPT_OPTARG) ||
		    ((o->flags & CLI_OPT_OPTNEXT) && (*i + 1 >= argc || argv[*i + 1][0] == '-')))
			return take(p, o, NULL, false);
		if (*i + 1 >= argc)
			return cli_error(p, "option '%s' needs a value", shown);
		return take(p, o, argv[++*i], false);
	}
	return 0;
}

int cli_parse(const char *cmd, const struct cli_option *opts, int argc, char **argv,
	      FILE *err, unsigned flags)
{
	struct cli_parse p = { .cmd = cmd, .opts = opts, .err = err };
	int i, n = 0, rc = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (!(flags & CLI_PARSE_KEEP_GOING))
				break;
			argv[n++] = argv[i];	/* n < i: in place is safe */
			continue;
		}
		rc = a[1] == '-' ? parse_long(&p, argc, argv, &i) : parse_short(&p, argc, argv, &i);
		if (rc < 0)
			return -1;
		if (rc == CLI_STOP) {
			i++;
			break;
		}
	}
	while (i < argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	return n;
}

/* The left column of one option: "  -p, --pid PID". Its length. */
static int option_label(FILE *fp, const struct cli_option *o)
{
	int len = 0;
	const char *argh = takes_arg(o) ? (o->argh ? o->argh : "VAL") : NULL;
	bool opt = o->flags & (CLI_OPT_OPTARG | CLI_OPT_OPTNEXT);

	if (o->short_name)
		len += fprintf(fp, "  -%c", o->short_name);
	else
		len += fprintf(fp, "    ");
	if (o->long_name) {
		len += fprintf(fp, "%s--%s", o->short_name ? ", " : "  ", o->long_name);
		if (o->flags & CLI_OPT_NEG)
			len += fprintf(fp, ", --no-%s", o->long_name);
	}
	if (argh) {
		if (opt)
			len += fprintf(fp, o->long_name ? "[=%s]" : "[%s]", argh);
		else
			len += fprintf(fp, " %s", argh);
	}
	return len;
}

void cli_usage(FILE *fp, const char *const *usage, const struct cli_option *opts)
{
	const struct cli_option *o;
	bool text = false;

	for (int i = 0; usage && usage[i]; i++) {
		if (!*usage[i] && !text) {
			text = true;
			fputc('\n', fp);
			continue;
		}
		if (text)
			fprintf(fp, "%s\n", usage[i]);
		else
			fprintf(fp, "%s%s\n", i ? "       " : "usage: ", usage[i]);
	}
	fputc('\n', fp);
	for (o = opts; o->kind != CLI_OPT_END; o++) {
		const char *h = o->help ? o->help : "";
		int len;

		if (o->kind == CLI_OPT_GROUP) {
			fprintf(fp, "%s\n", h);
			continue;
		}
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		len = option_label(fp, o);
		/* too wide for the column: the help starts on the next line */
		if (len > HELP_COL - 2) {
			fputc('\n', fp);
			len = 0;
		}
		for (;;) {
			const char *nl = strchr(h, '\n');
			int n = nl ? (int)(nl - h) : (int)strlen(h);

			fprintf(fp, "%*s%.*s\n", HELP_COL - len, "", n, h);
			if (!nl)
				break;
			h = nl + 1;
			len = 0;
		}
	}
}
