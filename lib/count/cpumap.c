// SPDX-License-Identifier: MIT
/* CPU maps: sorted, de-duplicated sets of CPU numbers, reference counted. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <tally/cpumap.h>
#include "internal.h"
#include "evsel_internal.h"

/* Upper bound on a CPU number we accept from text (the kernel's NR_CPUS max). */
#define TALLY_MAX_CPU 8192

struct tally_cpu_map {
	int refcnt;
	int nr;
	int cpus[];
};

static struct tally_cpu_map *map_alloc(int nr)
{
	struct tally_cpu_map *m;

	if (nr < 0 || (size_t)nr > (SIZE_MAX - sizeof(*m)) / sizeof(int))
		return tally__err_ptr(ENOMEM);
	m = calloc(1, sizeof(*m) + (size_t)nr * sizeof(int));
	if (!m)
		return tally__err_ptr(ENOMEM);
	m->refcnt = 1;
	m->nr = nr;
	return m;
}

static int parse_num(const char **pp, const char *end, int *out)
{
	const char *p = *pp;
	long v = 0;

	if (p >= end || !isdigit((unsigned char)*p))
		return -EINVAL;
	while (p < end && isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v > TALLY_MAX_CPU)
			return -ERANGE;
		p++;
	}
	*pp = p;
	*out = (int)v;
	return 0;
}

/*
 * Parse "0-3,7" (also "0-7:2" strides are not accepted: the kernel never
 * writes them in cpulists we read). Pure: (buf, len). Returns a map or
 * NULL + errno.
 *
 * The CPUs go into a bitmap of [0, TALLY_MAX_CPU]: overlapping or
 * repeated ranges ("0-8192,0-8192") are valid lists and cost nothing
 * extra, and the work is linear in the text and the ranges it names.
 */
struct tally_cpu_map *tally__cpu_map_parse(const char *buf, size_t len)
{
	uint64_t set[TALLY_MAX_CPU / 64 + 1] = { 0 };
	struct tally_cpu_map *m;
	const char *p = buf, *end = buf + len;
	int n = 0, maxc = -1, j = 0;

	/* Trailing whitespace/newline as sysfs writes it. */
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	while (p < end) {
		int lo, hi, err;

		err = parse_num(&p, end, &lo);
		if (err)
			goto bad;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			err = parse_num(&p, end, &hi);
			if (err)
				goto bad;
			if (hi < lo)
				goto bad;
		}
		for (int c = lo; c <= hi; c++) {
			uint64_t bit = (uint64_t)1 << (c % 64);

			if (!(set[c / 64] & bit)) {
				set[c / 64] |= bit;
				n++;
			}
		}
		if (hi > maxc)
			maxc = hi;
		if (p < end) {
			if (*p != ',')
				goto bad;
			p++;
			if (p == end)
				goto bad;
		}
	}
	if (n == 0)
		goto bad;
	m = map_alloc(n);
	if (!m)
		return NULL;
	for (int c = 0; c <= maxc; c++)
		if (set[c / 64] & ((uint64_t)1 << (c % 64)))
			m->cpus[j++] = c;
	return m;
bad:
	return tally__err_ptr(EINVAL);
}

struct tally_cpu_map *tally_cpu_map__new_online(void)
{
	char buf[4096];
	int n = tally__read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));

	if (n > 0)
		return tally__cpu_map_parse(buf, (size_t)n);
	/* No sysfs (a container): fall back to the configured count. */
	{
		long nr = sysconf(_SC_NPROCESSORS_ONLN);
		struct tally_cpu_map *m;

		if (nr <= 0)
			nr = 1;
		if (nr > TALLY_MAX_CPU)
			nr = TALLY_MAX_CPU;
		m = map_alloc((int)nr);
		if (!m)
			return NULL;
		for (int i = 0; i < nr; i++)
			m->cpus[i] = i;
		return m;
	}
}

struct tally_cpu_map *tally_cpu_map__new(const char *list)
{
	if (!list || !*list)
		return tally_cpu_map__new_online();
	return tally__cpu_map_parse(list, strlen(list));
}

struct tally_cpu_map *tally_cpu_map__new_any(void)
{
	struct tally_cpu_map *m = map_alloc(1);

	if (m)
		m->cpus[0] = -1;
	return m;
}

struct tally_cpu_map *tally_cpu_map__new_pmu(const char *sysfs_root, const char *pmu)
{
	static const char *const files[] = { "cpumask", "cpus" };
	char buf[4096];

	if (!pmu || !*pmu || strchr(pmu, '/'))
		return tally__err_ptr(EINVAL);
	if (!sysfs_root)
		sysfs_root = "/sys";
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		int n = tally__read_filef(buf, sizeof(buf),
					  "%s/bus/event_source/devices/%s/%s",
					  sysfs_root, pmu, files[i]);
		if (n > 0)
			return tally__cpu_map_parse(buf, (size_t)n);
	}
	return tally__err_ptr(ENOENT);
}

struct tally_cpu_map *tally_cpu_map__get(struct tally_cpu_map *map)
{
	if (map)
		map->refcnt++;
	return map;
}

void tally_cpu_map__put(struct tally_cpu_map *map)
{
	if (map && --map->refcnt == 0)
		free(map);
}

int tally_cpu_map__nr(const struct tally_cpu_map *map)
{
	return map ? map->nr : 0;
}

struct tally_cpu tally_cpu_map__cpu(const struct tally_cpu_map *map, int idx)
{
	struct tally_cpu c = { -1 };

	if (map && idx >= 0 && idx < map->nr)
		c.cpu = map->cpus[idx];
	return c;
}

int tally_cpu_map__idx(const struct tally_cpu_map *map, struct tally_cpu cpu)
{
	int lo = 0, hi;

	if (!map)
		return -1;
	hi = map->nr - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (map->cpus[mid] == cpu.cpu)
			return mid;
		if (map->cpus[mid] < cpu.cpu)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

bool tally_cpu_map__is_any(const struct tally_cpu_map *map)
{
	return !map || (map->nr == 1 && map->cpus[0] == -1);
}

struct tally_cpu_map *tally_cpu_map__intersect(const struct tally_cpu_map *a,
						const struct tally_cpu_map *b)
{
	struct tally_cpu_map *m;
	int i = 0, j = 0, n = 0;

	if (!a || !b)
		return tally__err_ptr(EINVAL);
	m = map_alloc(a->nr < b->nr ? a->nr : b->nr);
	if (!m)
		return NULL;
	while (i < a->nr && j < b->nr) {
		if (a->cpus[i] == b->cpus[j]) {
			m->cpus[n++] = a->cpus[i];
			i++;
			j++;
		} else if (a->cpus[i] < b->cpus[j]) {
			i++;
		} else {
			j++;
		}
	}
	m->nr = n;
	return m;
}

int tally_cpu_map__snprint(const struct tally_cpu_map *map, char *buf, size_t len)
{
	size_t off = 0;

	if (!map || !buf || !len)
		return tally__err(EINVAL);
	buf[0] = '\0';
	for (int i = 0; i < map->nr;) {
		int j = i;
		int w;

		while (j + 1 < map->nr && map->cpus[j + 1] == map->cpus[j] + 1 &&
		       map->cpus[i] >= 0)
			j++;
		if (j > i)
			w = snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "",
				     map->cpus[i], map->cpus[j]);
		else
			w = snprintf(buf + off, len - off, "%s%d", off ? "," : "",
				     map->cpus[i]);
		if (w < 0 || (size_t)w >= len - off) {
			buf[0] = '\0';
			return tally__err(ENOSPC);
		}
		off += (size_t)w;
		i = j + 1;
	}
	return (int)off;
}
