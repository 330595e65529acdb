// SPDX-License-Identifier: MIT
/*
 * The exposition: OpenMetrics 1.0 text, or Prometheus's text 0.0.4 for
 * a scraper that does not ask for it. They differ in the family lines: a
 * counter's family is NAME (OpenMetrics) or NAME_total (0.0.4), its
 * series NAME_total in both; OpenMetrics has # UNIT and info families and
 * ends with # EOF; 0.0.4 writes an info family as a gauge of value 1.
 * Numbers are written by hand, never through the locale.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "agent_metrics.h"

/* The length of a valid UTF-8 sequence at s, else 0. */
static int utf8_len(const unsigned char *s)
{
	int n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		n = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		n = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also the string's end */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void expo_escape(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = utf8_len(p);

		if (!n) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD: a parser rejects invalid UTF-8 */
			p++;
			continue;
		}
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '"')
			fputs("\\\"", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n;
	}
}

/* HELP text: 0.0.4 escapes backslash and newline, OpenMetrics also '"'. */
static void escape_help(struct expo *e, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", e->f);
		else if (*s == '\n')
			fputs("\\n", e->f);
		else if (*s == '"' && e->om)
			fputs("\\\"", e->f);
		else
			fputc(*s, e->f);
	}
}

void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help)
{
	const char *suffix = "", *tname = "gauge";

	e->name = name;
	e->type = type;
	if (type == EXPO_COUNTER) {
		tname = "counter";
		suffix = e->om ? "" : "_total";
	} else if (type == EXPO_INFO) {
		tname = e->om ? "info" : "gauge";
		suffix = e->om ? "" : "_info";
	}
	fprintf(e->f, "# TYPE %s%s %s\n", name, suffix, tname);
	if (unit && e->om)
		fprintf(e->f, "# UNIT %s %s\n", name, unit);
	fprintf(e->f, "# HELP %s%s ", name, suffix);
	escape_help(e, help);
	fputc('\n', e->f);
}

void expo_sample(struct expo *e, const struct expo_label *l, int n, const char *value)
{
	fprintf(e->f, "%s%s{host=\"", e->name,
		e->type == EXPO_COUNTER ? "_total" : e->type == EXPO_INFO ? "_info" : "");
	expo_escape(e->f, e->host);
	fputc('"', e->f);
	for (int i = 0; i < n; i++) {
		fprintf(e->f, ",%s=\"", l[i].name);
		expo_escape(e->f, l[i].value);
		fputc('"', e->f);
	}
	fprintf(e->f, "} %s\n", value);
}

void expo_sample_u64(struct expo *e, const struct expo_label *l, int n, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	expo_sample(e, l, n, b);
}

void expo_one(struct expo *e, const char *name, enum expo_type type, const char *unit,
	      const char *help, uint64_t v)
{
	expo_family(e, name, type, unit, help);
	expo_sample_u64(e, NULL, 0, v);
}

void expo_fmt_ns(char *buf, size_t n, uint64_t ns)
{
	snprintf(buf, n, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, ns % 1000000000u);
}

void expo_end(struct expo *e)
{
	if (e->om)
		fputs("# EOF\n", e->f);
}
