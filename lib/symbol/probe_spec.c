// SPDX-License-Identifier: MIT
/*
 * perf probe's PROBEDEF, parsed (a pure function over the string):
 *   [[GROUP:]EVENT=]FUNC[@SRC][:RLN|+OFF|%return|;PTN] [ARG ...]
 *   [[GROUP:]EVENT=]SRC:ALN | SRC;PTN [ARG ...]
 *   [%]sdt_PROVIDER:NAME, %PROVIDER:NAME
 * ARG: [NAME=]VAR[->FIELD|.FIELD|[INDEX]...][:TYPE], $params, $vars,
 * $retval, or a raw fetch as uprobe_events takes it (%di, +8(%sp)).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_internal.h"

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_ident(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/*
 * a C name or a glob of one (perf takes wildcards in FUNC), or a C++
 * qualified one: "ns::Counter::add", "ns::Counter::~Counter", "ns::*"
 */
static bool is_func_glob(const char *s, size_t n)
{
	if (!n || s[0] == ':' || s[n - 1] == ':')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == ':') {
			if (s[i + 1] != ':' || s[i + 2] == ':')
				return false;
			i++;
			continue;
		}
		if (s[i] == '~' && (!i || s[i - 1] != ':'))
			return false;
		if (!isalnum((unsigned char)s[i]) && !strchr("_*?[]!~", s[i]))
			return false;
	}
	return true;
}

/*
 * The head's length in s[0, n): up to '@', ':', '+', '%' or ';', but a
 * C++ "::" and a perf escape ("ns\:\:Counter\:\:add") are part of it.
 */
static size_t head_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i]) {
		if (s[i] == '\\' && i + 1 < n)
			i += 2;
		else if (s[i] == ':' && i + 1 < n && s[i + 1] == ':')
			i += 2;
		else if (strchr("@:+%;", s[i]))
			break;
		else
			i++;
	}
	return i;
}

/* s[0, n) without perf's backslash escapes */
static char *unescape(const char *s, size_t n)
{
	char *o = malloc(n + 1), *q = o;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n)
			i++;
		*q++ = s[i];
	}
	*q = '\0';
	return o;
}

void tally__probe_point_clear(struct probe_point *pp)
{
	for (size_t i = 0; i < pp->nr_args; i++) {
		struct probe_arg *a = &pp->args[i];

		for (size_t j = 0; j < a->nr_fields; j++)
			free(a->fields[j].name);
		free(a->fields);
		free(a->name);
		free(a->var);
		free(a->type);
	}
	free(pp->args);
	free(pp->group);
	free(pp->event);
	free(pp->func);
	free(pp->file);
	free(pp->lazy);
	free(pp->sdt_group);
	free(pp->sdt_name);
	memset(pp, 0, sizeof(*pp));
}

static int parse_num(const char *s, long *v, bool hex_ok)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtol(s, &end, hex_ok ? 0 : 10);
	return *end || errno ? -1 : 0;
}

static int parse_fields(struct probe_arg *a, const char *s, const char *whole, char *err, size_t len)
{
	while (*s) {
		struct probe_field f = { 0 }, *nf;
		const char *e;

		if (*s == '[') {
			char *end;

			errno = 0;
			f.index = strtol(s + 1, &end, 0);
			if (end == s + 1 || *end != ']' || errno)
				return fail(err, len, "Array index must be a number.");
			s = end + 1;
		} else {
			if (!strncmp(s, "->", 2)) {
				f.ref = true;
				s += 2;
			} else if (*s == '.') {
				s++;
			} else {
				return fail(err, len, "Argument parse error: %s", whole);
			}
			for (e = s; *e && (isalnum((unsigned char)*e) || *e == '_'); e++)
				;
			if (e == s)
				return fail(err, len, "Argument parse error: %s", whole);
			if (!(f.name = strndup(s, (size_t)(e - s))))
				return -ENOMEM;
			s = e;
		}
		nf = realloc(a->fields, (a->nr_fields + 1) * sizeof(*nf));
		if (!nf) {
			free(f.name);
			return -ENOMEM;
		}
		a->fields = nf;
		a->fields[a->nr_fields++] = f;
	}
	return 0;
}

static int parse_arg(struct probe_arg *a, const char *s, char *err, size_t len)
{
	const char *eq = strchr(s, '='), *colon, *v;
	size_t n;

	/* NAME= only where what precedes '=' is a name (not "+8(%sp)") */
	if (eq && is_ident(s, (size_t)(eq - s))) {
		if (!(a->name = strndup(s, (size_t)(eq - s))))
			return -ENOMEM;
		s = eq + 1;
	}
	/* the type is after the last ':' that is no part of "->" */
	colon = strrchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	if (colon) {
		if (!colon[1])
			return fail(err, len, "Argument parse error: %s", s);
		if (!(a->type = strdup(colon + 1)))
			return -ENOMEM;
	}
	if (!n)
		return fail(err, len, "Argument parse error: %s", s);
	if (*s == '%' || *s == '@' || *s == '+' || *s == '-' || isdigit((unsigned char)*s)) {
		a->raw = true;	/* perf passes kprobe-tracer forms through */
		return (a->var = strndup(s, n)) ? 0 : -ENOMEM;
	}
	for (v = s; v < s + n && (isalnum((unsigned char)*v) || *v == '_' || *v == '$'); v++)
		;
	if (!(a->var = strndup(s, (size_t)(v - s))))
		return -ENOMEM;
	if (!is_ident(a->var, strlen(a->var)) && strcmp(a->var, "$retval") &&
	    strcmp(a->var, "$params") && strcmp(a->var, "$vars") && strncmp(a->var, "$arg", 4))
		return fail(err, len, "Argument parse error: %.*s", (int)n, s);
	if (v < s + n) {
		char *rest = strndup(v, (size_t)(s + n - v));
		int e;

		if (!rest)
			return -ENOMEM;
		e = parse_fields(a, rest, s, err, len);
		free(rest);
		return e;
	}
	return 0;
}

/* "[GROUP:]EVENT=" at the head of the point, if present */
static int parse_name(struct probe_point *pp, const char **sp, char *err, size_t len)
{
	const char *s = *sp, *eq = strchr(s, '='), *stop = strpbrk(s, ";@+%");
	const char *c;

	if (!eq || (stop && stop < eq))
		return 0;
	c = memchr(s, ':', (size_t)(eq - s));
	if (c) {
		if (!is_ident(s, (size_t)(c - s)))
			return fail(err, len, "Group name %.*s is bad for event name.",
				    (int)(c - s), s);
		if (!(pp->group = strndup(s, (size_t)(c - s))))
			return -ENOMEM;
		s = c + 1;
	}
	if (!is_ident(s, (size_t)(eq - s)))
		return fail(err, len, "%.*s is bad for event name -it must follow C symbol-naming rule.",
			    (int)(eq - s), s);
	if (!(pp->event = strndup(s, (size_t)(eq - s))))
		return -ENOMEM;
	*sp = eq + 1;
	return 0;
}

static int parse_sdt(struct probe_point *pp, const char *s, char *err, size_t len)
{
	const char *c = strchr(s, ':');

	if (*s == '%')
		s++;
	c = strchr(s, ':');
	if (!c || !is_ident(s, (size_t)(c - s)) || !is_ident(c + 1, strlen(c + 1)))
		return fail(err, len, "SDT event must be sdt_PROVIDER:NAME: %s", s);
	pp->sdt = true;
	if (!strncmp(s, "sdt_", 4))
		pp->sdt_group = strndup(s, (size_t)(c - s));
	else if (asprintf(&pp->sdt_group, "sdt_%.*s", (int)(c - s), s) < 0)
		pp->sdt_group = NULL;
	pp->sdt_name = strdup(c + 1);
	return pp->sdt_group && pp->sdt_name ? 0 : -ENOMEM;
}

/* the point: the first word of the spec */
static int parse_point(struct probe_point *pp, const char *s, char *err, size_t len)
{
	const char *p;
	size_t n;
	int e;

	if ((e = parse_name(pp, &s, err, len)))
		return e;
	if (*s == '%' || (!strncmp(s, "sdt_", 4) && strchr(s, ':')))
		return parse_sdt(pp, s, err, len);
	/* ;PTN takes the rest of the word */
	p = strchr(s, ';');
	if (p) {
		if (!p[1])
			return fail(err, len, "Lazy pattern must not be empty.");
		if (!(pp->lazy = strdup(p + 1)))
			return -ENOMEM;
	}
	n = p ? (size_t)(p - s) : strlen(s);
	p = s;
	/* the head: FUNC, or SRC when it is no C name (has '.' or '/') */
	{
		size_t h = head_len(p, n);

		if (!h)
			return fail(err, len, "No function or file name in '%s'.", s);
		if (memchr(p, '.', h) || memchr(p, '/', h)) {
			if (!(pp->file = strndup(p, h)))
				return -ENOMEM;
		} else {
			if (!(pp->func = unescape(p, h)))
				return -ENOMEM;
			if (!is_func_glob(pp->func, strlen(pp->func)))
				return fail(err, len, "%.*s is bad for a function name.", (int)h, p);
		}
		p += h;
	}
	while (p < s + n) {
		const char *q = p + 1;
		size_t t = strcspn(q, "@:+%;");
		char tok[256];
		long v;

		if (q + t > s + n)
			t = (size_t)(s + n - q);
		if (t >= sizeof(tok))
			return fail(err, len, "Too long probe point: %s", s);
		memcpy(tok, q, t);
		tok[t] = '\0';
		switch (*p) {
		case '@':
			if (!pp->func || pp->file)
				return fail(err, len, "SRC@SRC is not allowed.");
			if (!t || !(pp->file = strdup(tok)))
				return t ? -ENOMEM : fail(err, len, "File name is empty.");
			break;
		case ':':
			if (pp->has_line || pp->ret || pp->offset)
				return fail(err, len, "Line number is not allowed with an offset or %%return.");
			if (parse_num(tok, &v, false) || v < 0)
				return fail(err, len, "There is non-digit char in line number.");
			pp->line = v;
			pp->has_line = true;
			break;
		case '+':
			if (!pp->func || pp->has_line || pp->ret)
				return fail(err, len, "Offset can't be used with line number or %%return.");
			if (parse_num(tok, &v, true) || v < 0)
				return fail(err, len, "There is non-digit character in offset.");
			pp->offset = (uint64_t)v;
			break;
		case '%':
			if (strcmp(tok, "return"))
				return fail(err, len, "%%%s is not supported.", tok);
			if (!pp->func || pp->has_line || pp->offset)
				return fail(err, len, "%%return must be on a function with no offset or line.");
			pp->ret = true;
			break;
		default:
			return fail(err, len, "Probe point parse error: %s", s);
		}
		p = q + t;
	}
	if (pp->file && !pp->func && !pp->has_line && !pp->lazy)
		return fail(err, len, "File always requires line number or lazy pattern.");
	if (pp->lazy && (pp->has_line || pp->ret || pp->offset))
		return fail(err, len, "Lazy pattern can't be used with line number, offset or %%return.");
	return 0;
}

/* split on blanks: the point, then the arguments */
int tally__probe_parse(const char *spec, struct probe_point *pp, char *err, size_t len)
{
	char *copy = strdup(spec), *s, *word, *save = NULL;
	int e = 0;

	memset(pp, 0, sizeof(*pp));
	if (!copy)
		return -ENOMEM;
	s = copy;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s) {
		free(copy);
		return fail(err, len, "No probe point is given.");
	}
	/* the point ends at the first blank, its lazy pattern too (as perf splits) */
	{
		size_t w = strcspn(s, " \t");

		word = strndup(s, w);
		s += w;
	}
	if (!word) {
		free(copy);
		return -ENOMEM;
	}
	e = parse_point(pp, word, err, len);
	free(word);
	for (word = strtok_r(s, " \t", &save); !e && word; word = strtok_r(NULL, " \t", &save)) {
		struct probe_arg *na = realloc(pp->args, (pp->nr_args + 1) * sizeof(*na));

		if (!na) {
			e = -ENOMEM;
			break;
		}
		pp->args = na;
		memset(&na[pp->nr_args], 0, sizeof(*na));
		pp->nr_args++;
		e = parse_arg(&na[pp->nr_args - 1], word, err, len);
	}
	free(copy);
	if (!e && pp->ret)
		for (size_t i = 0; i < pp->nr_args; i++)
			if (!pp->args[i].raw && strcmp(pp->args[i].var, "$retval"))
				e = fail(err, len, "You can't specify local variable for kretprobe.");
	if (e)
		tally__probe_point_clear(pp);
	return e;
}

/* perf's strlazymatch: a glob where blanks in either string do not count */
static bool lazy_glob(const char *p, const char *s)
{
	while (*p) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		while (isspace((unsigned char)*s))
			s++;
		if (*p == '*') {
			for (p++; ; s++) {
				if (lazy_glob(p, s))
					return true;
				if (!*s)
					return false;
			}
		}
		if (!*s)
			return false;
		if (*p == '?' || *p == *s) {
			p++;
			s++;
			continue;
		}
		if (*p == '\\' && p[1] == *s) {
			p += 2;
			s++;
			continue;
		}
		return false;
	}
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

bool tally__probe_lazy_match(const char *pattern, const char *line)
{
	/* perf matches the pattern against the whole line, as a glob */
	return lazy_glob(pattern, line);
}
