// SPDX-License-Identifier: MIT
/*
 * report's and script's --time and -C (sample_filter.h): perf 6.1's
 * time-range syntax (its time-utils) and CPU list, checked the way perf
 * checks them, so a string perf refuses is refused here too.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sample_filter.h"

/* "SEC[.FRAC]", FRAC at most 9 digits (ns); 0, -1 */
static int parse_ns(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long sec = strtoull(s, &end, 10);
	uint64_t frac = 0;
	size_t nd;

	if (*end != '.' && *end)
		return -1;
	if (*end == '.') {
		const char *f = end + 1;

		nd = strlen(f);
		if (nd > 9)
			return -1;
		for (size_t i = 0; i < nd; i++) {
			if (!isdigit((unsigned char)f[i]))
				return -1;
			frac = frac * 10 + (uint64_t)(f[i] - '0');
		}
		for (; nd < 9; nd++)
			frac *= 10;
	}
	*out = (uint64_t)sec * 1000000000ull + frac;
	return 0;
}

/* "START,STOP", either empty, or "START" alone (open end) */
static int parse_range(char *s, struct cli_time_range *r)
{
	char *comma = strchr(s, ',');

	r->start = r->end = 0;
	if (comma)
		*comma = 0;
	if (*s && parse_ns(s, &r->start))
		return -1;
	if (comma && comma[1] && parse_ns(comma + 1, &r->end))
		return -1;
	return r->end && r->end < r->start ? -1 : 0;
}

/* perf's absolute form: a range per comma, the ranges separated by blanks, in order */
static int parse_abs(char *s, struct cli_time_range *tr, int num)
{
	char *p = s;
	int i;

	for (i = 0; i < num - 1; i++) {
		char *arg = p;

		p = strchr(p, ',') + 1;
		while (isspace((unsigned char)*p))
			p++;
		/* the stop: no blank or comma in it */
		while (*p && !isspace((unsigned char)*p))
			if (*p++ == ',')
				return -1;
		if (*p)
			*p++ = 0;
		if (parse_range(arg, &tr[i]))
			return -1;
	}
	if (parse_range(p, &tr[i]))
		return -1;
	for (i = 0; i < num - 1; i++)
		if (tr[i].end >= tr[i + 1].start)
			return -1;	/* overlapping or out of order */
	return num;
}

/* "P%" (what follows the sign is not read, as perf's) into a fraction */
static int percent(char *s, double *out)
{
	char *pc = strchr(s, '%'), *end;

	if (!pc)
		return -1;
	*pc = 0;
	*out = strtod(s, &end) / 100.0;
	return end == s + strlen(s) ? 0 : -1;
}

/* the span's fractions [a, b] as times; perf ends a slice 1 ns short unless at the last sample */
static int slice(struct cli_time_range *r, double a, double b, uint64_t first, uint64_t last)
{
	uint64_t total = last - first;

	if (a < 0.0 || a > 1.0 || b < 0.0 || b > 1.0)
		return -1;
	r->start = first + (uint64_t)round(a * (double)total);
	r->end = first + (uint64_t)round(b * (double)total);
	if (r->end > r->start && r->end != last)
		r->end--;
	return 0;
}

/* "P%/N": the Nth slice of P% */
static int pct_slash(char *s, struct cli_time_range *r, uint64_t first, uint64_t last)
{
	char *slash = strchr(s, '/'), *end;
	double p;
	long n;

	if (!slash)
		return -1;
	*slash = 0;
	if (percent(s, &p))
		return -1;
	n = strtol(slash + 1, &end, 10);
	if (*end || p <= 0.0)
		return -1;
	return slice(r, p * (double)(n - 1), p * (double)n, first, last);
}

/* "A%-B%" */
static int pct_dash(char *s, struct cli_time_range *r, uint64_t first, uint64_t last)
{
	char *dash = strchr(s, '-');
	double a, b;

	if (!dash)
		return -1;
	*dash = 0;
	if (percent(s, &a) || percent(dash + 1, &b))
		return -1;
	return slice(r, a, b, first, last);
}

static int parse_pct(char *s, struct cli_time_range *tr, int size, uint64_t first, uint64_t last)
{
	int (*one)(char *, struct cli_time_range *, uint64_t, uint64_t);
	char *p = s, *end = s + strlen(s);
	int i = 0;

	if (strchr(s, '/')) {
		one = pct_slash;
	} else if (strchr(s, '-')) {
		one = pct_dash;
	} else {
		/* "P%": its first slice; the sign must end the string */
		char *pc = strchr(s, '%');

		if (!pc || pc[1])
			return -1;
		*pc = 0;
		double pcnt;
		char *e;

		pcnt = strtod(s, &e) / 100.0;
		if (*e || pcnt <= 0.0)
			return -1;
		return slice(&tr[0], 0.0, pcnt, first, last) ? -1 : 1;
	}
	while (p < end) {
		char *comma = strchr(p, ',');

		if (i >= size)
			return -1;
		if (comma)
			*comma = 0;
		if (one(p, &tr[i], first, last))
			return -1;
		i++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return i;
}

int cli_time_ranges_parse(const char *s, uint64_t first, uint64_t last, struct cli_time_range **out,
			  int *n, char *why, size_t len)
{
	int commas = 0, num;
	struct cli_time_range *tr;
	char *dup;

	*out = NULL;
	*n = 0;
	for (const char *c = s; *c; c++)
		commas += *c == ',';
	if (!(tr = calloc((size_t)commas + 1, sizeof(*tr))) || !(dup = strdup(s))) {
		free(tr);
		snprintf(why, len, "%s", strerror(ENOMEM));
		return -1;
	}
	if (strchr(s, '%')) {
		if (!first && !last) {
			snprintf(why, len, "the file has no first and last sample times (its SAMPLE_TIME "
				 "header) for a percent of its span: give START,STOP in seconds");
			num = -2;
		} else {
			num = parse_pct(dup, tr, commas + 1, first, last);
		}
	} else {
		/* perf wants a comma: START, or START,STOP */
		num = commas ? parse_abs(dup, tr, commas) : -1;
	}
	free(dup);
	if (num < 0) {
		if (num == -1)
			snprintf(why, len, "not a time range: START,STOP in seconds (either left out; "
				 "several in order, separated by spaces), or percents of the "
				 "recording (10%%/2, 0%%-10%%,30%%-40%%, 25%%)");
		free(tr);
		return -1;
	}
	*out = tr;
	*n = num;
	return 0;
}

bool cli_time_ranges_skip(const struct cli_time_range *tr, int n, uint64_t t)
{
	if (!tr || !n || !t)
		return false;
	if (n == 1)
		return (tr[0].start && t < tr[0].start) || (tr[0].end && t > tr[0].end);
	for (int i = 0; i < n; i++)
		if (t >= tr[i].start && (!tr[i].end || t <= tr[i].end))
			return false;
	return true;
}

int cli_cpu_bits(const char *s, uint8_t *bits, long max, long *bad)
{
	*bad = -1;
	if (!*s)
		return -1;
	while (*s) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*s))
			return -1;
		a = b = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtol(s, &end, 10);
			if (b < a)
				return -1;
		}
		for (long c = a; c <= b; c++) {
			if (c >= max) {
				*bad = c;
				return -1;
			}
			bits[c / 8] |= (uint8_t)(1u << (c % 8));
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return 0;
}

int cli_sample_filter_init(struct cli_sample_filter *f, const char *cmd, struct tally_session *ss,
			   const char *time, const char *cpus)
{
	struct tally_data_reader *rd = tally_session__reader(ss);
	char why[256];

	memset(f, 0, sizeof(*f));
	if (time) {
		uint64_t first = 0, last = 0;

		if (rd)
			(void)tally_data_reader__sample_time(rd, &first, &last);
		if (cli_time_ranges_parse(time, first, last, &f->tr, &f->ntr, why, sizeof(why))) {
			fprintf(stderr, "tally %s: --time '%s': %s\n", cmd, time, why);
			return 129;
		}
	}
	if (cpus) {
		uint32_t avail = 0;
		long max = 4096, bad;
		bool seen[PERF_TYPE_MAX] = { false };

		/* perf looks at each type's first event: without CPU, no -C */
		for (int i = 0; rd && i < tally_session__nr_events(ss); i++) {
			const struct perf_event_attr *a = tally_data_reader__attr(rd, i);

			if (!a || a->type >= PERF_TYPE_MAX || seen[a->type])
				continue;
			seen[a->type] = true;
			if (!(a->sample_type & PERF_SAMPLE_CPU)) {
				fprintf(stderr, "tally %s: -C: the file's samples have no CPU "
					"(recorded without PERF_SAMPLE_CPU): remove -C\n", cmd);
				cli_sample_filter_free(f);
				return 1;
			}
		}
		/* perf takes the CPUs the recording's machine had (its NRCPUS header) */
		if (rd && !tally_data_reader__nrcpus(rd, NULL, &avail) && avail && avail < 4096)
			max = avail;
		if (!(f->cpus = calloc(512, 1))) {
			cli_sample_filter_free(f);
			return 1;
		}
		if (cli_cpu_bits(cpus, f->cpus, max, &bad)) {
			if (bad >= 0)
				fprintf(stderr, "tally %s: -C %s: CPU %ld is not one the recording's "
					"machine had (%ld)\n", cmd, cpus, bad, max);
			else
				fprintf(stderr, "tally %s: -C '%s': not a CPU list (0-3,7)\n", cmd, cpus);
			cli_sample_filter_free(f);
			return 129;
		}
	}
	return 0;
}

void cli_sample_filter_free(struct cli_sample_filter *f)
{
	free(f->tr);
	free(f->cpus);
	memset(f, 0, sizeof(*f));
}
