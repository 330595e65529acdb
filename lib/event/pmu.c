// SPDX-License-Identifier: MIT
/*
 * sysfs PMUs: /sys/bus/event_source/devices/PMU/ with type, format/TERM,
 * events/ALIAS, cpumask or cpus, caps/CAP. The format files say where a term's bits go in
 * attr.config/config1/config2/config3 ("config:0-7,21"); event aliases
 * are term lists ("event=0x3c,umask=0x00") with optional .scale/.unit.
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "events_internal.h"

/* Names that could escape the PMU directory are never looked up. */
static bool safe_name(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	return !strchr(s, '/');
}

int tally__pmu_parse_format(const char *buf, size_t len, int *word, uint64_t *mask)
{
	size_t i = 0;
	uint64_t m = 0;
	int w;

	if (len >= 6 && !memcmp(buf, "config", 6)) {
		i = 6;
		w = 0;
		if (i < len && buf[i] >= '1' && buf[i] <= '3')
			w = buf[i++] - '0';
	} else {
		return -EINVAL;
	}
	if (i >= len || buf[i] != ':')
		return -EINVAL;
	i++;
	for (;;) {
		unsigned long lo = 0, hi;
		size_t start = i;

		while (i < len && isdigit((unsigned char)buf[i]) && lo < 64)
			lo = lo * 10 + (unsigned long)(buf[i++] - '0');
		if (i == start || lo > 63)
			return -EINVAL;
		hi = lo;
		if (i < len && buf[i] == '-') {
			i++;
			start = i;
			hi = 0;
			while (i < len && isdigit((unsigned char)buf[i]) && hi < 64)
				hi = hi * 10 + (unsigned long)(buf[i++] - '0');
			if (i == start || hi > 63 || hi < lo)
				return -EINVAL;
		}
		for (unsigned long b = lo; b <= hi; b++)
			m |= 1ull << b;
		if (i < len && buf[i] == ',') {
			i++;
			continue;
		}
		break;
	}
	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i != len)
		return -EINVAL;
	*word = w;
	*mask = m;
	return 0;
}

int tally__pmu_format_bits(uint64_t mask)
{
	return __builtin_popcountll(mask);
}

bool tally__pmu_format_encode(uint64_t mask, uint64_t val, uint64_t *out)
{
	uint64_t r = 0;
	int vbit = 0;

	for (int b = 0; b < 64; b++) {
		if (!(mask & (1ull << b)))
			continue;
		if (val & (1ull << vbit))
			r |= 1ull << b;
		vbit++;
	}
	if (vbit < 64 && (val >> vbit))
		return false;
	*out = r;
	return true;
}

static int pmu_read(const char *sysfs, const char *pmu, const char *file,
		    char *buf, size_t len)
{
	if (!safe_name(pmu))
		return tally__err(ENOENT);
	return tally__read_filef(buf, len, "%s" TALLY_PMU_PATH "/%s/%s", sysfs, pmu, file);
}

bool tally__pmu_exists(const char *sysfs, const char *pmu)
{
	char buf[32];

	return pmu_read(sysfs, pmu, "type", buf, sizeof(buf)) > 0;
}

int tally__pmu_type(const char *sysfs, const char *pmu)
{
	char buf[32], *end;
	long v;
	int n;

	n = pmu_read(sysfs, pmu, "type", buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	v = strtol(buf, &end, 0);
	if (errno || end == buf || v < 0 || v > INT_MAX)
		return tally__err(EINVAL);
	return (int)v;
}

int tally__pmu_format(const char *sysfs, const char *pmu, const char *term,
		      int *word, uint64_t *mask)
{
	char file[300], buf[256];
	int n;

	if (!safe_name(term) || strlen(term) > 200)
		return tally__err(ENOENT);
	snprintf(file, sizeof(file), "format/%s", term);
	n = pmu_read(sysfs, pmu, file, buf, sizeof(buf));
	if (n < 0)
		return n;
	if (tally__pmu_parse_format(buf, (size_t)n, word, mask))
		return tally__err(EINVAL);
	return 0;
}

int tally__pmu_alias(const char *sysfs, const char *pmu, const char *alias,
		     char *buf, size_t len)
{
	char file[300];

	if (!safe_name(alias) || strlen(alias) > 200)
		return tally__err(ENOENT);
	snprintf(file, sizeof(file), "events/%s", alias);
	return pmu_read(sysfs, pmu, file, buf, len);
}

void tally__pmu_alias_scale_unit(const char *sysfs, const char *pmu, const char *alias,
				 double *scale, char *unit, size_t unit_len)
{
	char file[300], buf[64];

	*scale = 1.0;
	if (unit_len)
		unit[0] = '\0';
	if (!safe_name(alias) || strlen(alias) > 200)
		return;
	snprintf(file, sizeof(file), "events/%s.scale", alias);
	if (pmu_read(sysfs, pmu, file, buf, sizeof(buf)) > 0) {
		char *end;
		double d = strtod(buf, &end);

		if (end != buf && d > 0)
			*scale = d;
	}
	snprintf(file, sizeof(file), "events/%s.unit", alias);
	if (unit_len && pmu_read(sysfs, pmu, file, buf, sizeof(buf)) > 0)
		snprintf(unit, unit_len, "%s", buf);
}

int tally__pmu_cpumask(const char *sysfs, const char *pmu, char *buf, size_t len)
{
	int n = pmu_read(sysfs, pmu, "cpumask", buf, len);

	if (n < 0)
		n = pmu_read(sysfs, pmu, "cpus", buf, len);
	if (n == 0)
		return tally__err(ENOENT);
	return n;
}

int tally__pmu_cap(const char *sysfs, const char *pmu, const char *cap, uint64_t *val)
{
	char file[300], buf[64], *end;
	int n;

	if (!safe_name(cap) || strlen(cap) > 200)
		return tally__err(ENOENT);
	snprintf(file, sizeof(file), "caps/%s", cap);
	n = pmu_read(sysfs, pmu, file, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	/* caps are printed in hex with a 0x prefix or in decimal */
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return tally__err(EINVAL);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of a directory, skipping dot files; NULL-terminated. */
static char **list_dir(const char *path, int *nr)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **v = NULL, **nv;
	int n = 0, cap = 0;

	*nr = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 16;
			nv = tally__reallocarray(v, (size_t)cap, sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			break;
		n++;
	}
	closedir(d);
	if (!v)
		return NULL;
	v[n] = NULL;
	qsort(v, (size_t)n, sizeof(*v), cmp_str);
	*nr = n;
	return v;
}

static void free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int tally__pmu_foreach(const char *sysfs, int (*cb)(const char *pmu, void *ctx), void *ctx)
{
	char path[PATH_MAX];
	char **v;
	int n, ret = 0;

	snprintf(path, sizeof(path), "%s" TALLY_PMU_PATH, sysfs);
	v = list_dir(path, &n);
	if (!v)
		return 0;
	for (int i = 0; i < n && !ret; i++)
		ret = cb(v[i], ctx);
	free_list(v);
	return ret;
}

int tally__pmu_foreach_alias(const char *sysfs, const char *pmu,
			     int (*cb)(const char *pmu, const char *alias,
				       const char *terms, void *ctx), void *ctx)
{
	char path[PATH_MAX], terms[512];
	char **v;
	int n, ret = 0;

	if (!safe_name(pmu))
		return 0;
	snprintf(path, sizeof(path), "%s" TALLY_PMU_PATH "/%s/events", sysfs, pmu);
	v = list_dir(path, &n);
	if (!v)
		return 0;
	for (int i = 0; i < n && !ret; i++) {
		const char *dot = strrchr(v[i], '.');

		if (dot && (!strcmp(dot, ".scale") || !strcmp(dot, ".unit") ||
			    !strcmp(dot, ".per-pkg") || !strcmp(dot, ".snapshot")))
			continue;
		if (tally__pmu_alias(sysfs, pmu, v[i], terms, sizeof(terms)) < 0)
			continue;
		ret = cb(pmu, v[i], terms, ctx);
	}
	free_list(v);
	return ret;
}

static int core_cb(const char *pmu, void *ctx)
{
	const char *sysfs = ctx;

	/* x86's core PMU takes PERF_TYPE_RAW's number; arm64 names its own */
	if (!strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom") ||
	    !strncmp(pmu, "armv8_", 6) || !strncmp(pmu, "armv7_", 6))
		return 1;
	return tally__pmu_type(sysfs, pmu) == PERF_TYPE_RAW;
}

bool tally__pmu_has_core(const char *sysfs)
{
	return tally__pmu_foreach(sysfs, core_cb, (void *)sysfs) > 0;
}

/*
 * The core PMUs an event without a PMU counts on: each one with a cpus
 * file (newer perf's is_sysfs_pmu_core, tools/perf/util/pmu.c since 6.5:
 * Intel's cpu_core and cpu_atom, arm64's armv8_pmuv3_N on big.LITTLE;
 * a machine of one core type has a "cpu" PMU, and then no other counts
 * here, or one arm PMU whose events need no prefix). cpu_core, cpu_atom first, as perf 6.1 orders them,
 * then the others by name. Returns how many (up to max).
 */
struct core_ctx {
	const char *sysfs;
	char (*names)[TALLY_PMU_NAME_MAX];
	int *types;
	int n, max;
};

static int core_list_cb(const char *pmu, void *arg)
{
	struct core_ctx *c = arg;
	char buf[16];
	int type;

	if (c->n >= c->max || strlen(pmu) >= TALLY_PMU_NAME_MAX ||
	    pmu_read(c->sysfs, pmu, "cpus", buf, sizeof(buf)) < 0)
		return 0;
	type = tally__pmu_type(c->sysfs, pmu);
	if (type < 0)
		return 0;
	strcpy(c->names[c->n], pmu);
	c->types[c->n++] = type;
	return 0;
}

int tally__pmu_core_list(const char *sysfs, char (*names)[TALLY_PMU_NAME_MAX], int *types,
			 int max)
{
	struct core_ctx c = { .sysfs = sysfs, .names = names, .types = types, .max = max };
	static const char *const first[] = { "cpu_core", "cpu_atom" };
	int k = 0;

	/* x86 of one core type: "cpu" is the core PMU, whatever else has cpus */
	if (tally__pmu_exists(sysfs, "cpu"))
		return 0;
	tally__pmu_foreach(sysfs, core_list_cb, &c);
	/* perf 6.1's order for Intel's: the big cores first */
	for (size_t f = 0; f < ARRAY_SIZE(first); f++)
		for (int i = k; i < c.n; i++)
			if (!strcmp(names[i], first[f])) {
				char tn[TALLY_PMU_NAME_MAX];
				int tt = types[i];

				memcpy(tn, names[i], sizeof(tn));
				memmove(names + k + 1, names + k, (size_t)(i - k) * sizeof(*names));
				memmove(types + k + 1, types + k, (size_t)(i - k) * sizeof(*types));
				memcpy(names[k], tn, sizeof(tn));
				types[k++] = tt;
				break;
			}
	return c.n;
}
