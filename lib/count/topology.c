// SPDX-License-Identifier: MIT
/* CPU topology from sysfs: socket, die, core and NUMA node per CPU. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <tally/cpumap.h>
#include "internal.h"
#include "evsel_internal.h"

struct cpu_topo {
	int socket, die, core, node;
};

struct tally_topology {
	int nr;			/* entries: max cpu + 1 */
	struct cpu_topo *cpu;
};

static int read_int(const char *root, int cpu, const char *file)
{
	char buf[32], *end;
	long v;

	if (tally__read_filef(buf, sizeof(buf), "%s/devices/system/cpu/cpu%d/topology/%s",
			      root, cpu, file) <= 0)
		return -1;
	v = strtol(buf, &end, 10);
	if (*end || v < -1 || v > 0x7fffffff)
		return -1;
	return (int)v;
}

/* Largest N of a cpuN directory, or -1. */
static int max_cpu(const char *root)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int max = -1;

	snprintf(path, sizeof(path), "%s/devices/system/cpu", root);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long n;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		n = strtol(de->d_name + 3, &end, 10);
		if (*end || n > 8191)
			continue;
		if (n > max)
			max = (int)n;
	}
	closedir(d);
	return max;
}

/* Nodes from devices/system/node/nodeN/cpulist. */
static void read_nodes(struct tally_topology *t, const char *root)
{
	char path[4096], buf[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		struct tally_cpu_map *m;
		char *end;
		long node;
		int n;

		if (strncmp(de->d_name, "node", 4) || !isdigit((unsigned char)de->d_name[4]))
			continue;
		node = strtol(de->d_name + 4, &end, 10);
		if (*end || node > 0xffff)
			continue;
		n = tally__read_filef(buf, sizeof(buf), "%s/%s/cpulist", path, de->d_name);
		if (n <= 0)
			continue;
		m = tally__cpu_map_parse(buf, (size_t)n);
		for (int i = 0; i < tally_cpu_map__nr(m); i++) {
			int c = tally_cpu_map__cpu(m, i).cpu;

			if (c >= 0 && c < t->nr)
				t->cpu[c].node = (int)node;
		}
		tally_cpu_map__put(m);
	}
	closedir(d);
}

struct tally_topology *tally_topology__new(const char *root)
{
	struct tally_topology *t;
	int max;

	if (!root)
		root = "/sys";
	max = max_cpu(root);
	if (max < 0)
		return tally__err_ptr(ENOENT);
	t = calloc(1, sizeof(*t));
	if (!t)
		return tally__err_ptr(ENOMEM);
	t->nr = max + 1;
	t->cpu = tally__calloc((size_t)t->nr, sizeof(*t->cpu));
	if (!t->cpu) {
		free(t);
		return tally__err_ptr(ENOMEM);
	}
	for (int c = 0; c < t->nr; c++) {
		t->cpu[c].socket = read_int(root, c, "physical_package_id");
		t->cpu[c].die = read_int(root, c, "die_id");
		t->cpu[c].core = read_int(root, c, "core_id");
		t->cpu[c].node = -1;
		/* No die_id file (before Linux 5.2, or non-x86): one die per socket. */
		if (t->cpu[c].die < 0 && t->cpu[c].socket >= 0)
			t->cpu[c].die = 0;
	}
	read_nodes(t, root);
	return t;
}

void tally_topology__free(struct tally_topology *t)
{
	if (!t)
		return;
	free(t->cpu);
	free(t);
}

static const struct cpu_topo *get(const struct tally_topology *t, struct tally_cpu cpu)
{
	if (!t || cpu.cpu < 0 || cpu.cpu >= t->nr)
		return NULL;
	return &t->cpu[cpu.cpu];
}

int tally_topology__socket(const struct tally_topology *t, struct tally_cpu cpu)
{
	const struct cpu_topo *c = get(t, cpu);

	return c ? c->socket : -1;
}

int tally_topology__die(const struct tally_topology *t, struct tally_cpu cpu)
{
	const struct cpu_topo *c = get(t, cpu);

	return c ? c->die : -1;
}

int tally_topology__core(const struct tally_topology *t, struct tally_cpu cpu)
{
	const struct cpu_topo *c = get(t, cpu);

	return c ? c->core : -1;
}

int tally_topology__node(const struct tally_topology *t, struct tally_cpu cpu)
{
	const struct cpu_topo *c = get(t, cpu);

	return c ? c->node : -1;
}
