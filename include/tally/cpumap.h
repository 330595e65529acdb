/* SPDX-License-Identifier: MIT */
/* CPU maps: an ordered set of CPU numbers, shared (get/put). */
#ifndef TALLY_CPUMAP_H
#define TALLY_CPUMAP_H

#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A typed CPU number, so a CPU is never confused with an index into a map. */
struct tally_cpu {
	int cpu;
};

struct tally_cpu_map;

/*
 * "0-3,7" -> map (sorted, duplicates removed). NULL or "" -> online CPUs.
 * Bad text -> NULL with errno EINVAL.
 */
TALLY_API struct tally_cpu_map *tally_cpu_map__new(const char *list);
/* The "any CPU" map: one entry, cpu -1 (per-thread counting). */
TALLY_API struct tally_cpu_map *tally_cpu_map__new_any(void);
TALLY_API struct tally_cpu_map *tally_cpu_map__new_online(void);
/* A PMU's cpumask (sysfs devices/PMU/cpumask or cpus); NULL+ENOENT if none. */
TALLY_API struct tally_cpu_map *tally_cpu_map__new_pmu(const char *sysfs_root,
							const char *pmu);
TALLY_API struct tally_cpu_map *tally_cpu_map__get(struct tally_cpu_map *map);
TALLY_API void tally_cpu_map__put(struct tally_cpu_map *map);

TALLY_API int tally_cpu_map__nr(const struct tally_cpu_map *map);
/* CPU at index idx; {-1} past the end. */
TALLY_API struct tally_cpu tally_cpu_map__cpu(const struct tally_cpu_map *map,
					      int idx);
/* Index of cpu, or -1. */
TALLY_API int tally_cpu_map__idx(const struct tally_cpu_map *map,
				 struct tally_cpu cpu);
TALLY_API bool tally_cpu_map__is_any(const struct tally_cpu_map *map);
/* Maps a ∩ b (new reference). */
TALLY_API struct tally_cpu_map *tally_cpu_map__intersect(const struct tally_cpu_map *a,
							  const struct tally_cpu_map *b);
/* Writes "0-3,7" into buf; returns length or -ENOSPC. */
TALLY_API int tally_cpu_map__snprint(const struct tally_cpu_map *map, char *buf,
				     size_t len);

#define tally_cpu_map__for_each_cpu(cpu, idx, map)			\
	for ((idx) = 0, (cpu) = tally_cpu_map__cpu(map, 0);		\
	     (idx) < tally_cpu_map__nr(map);				\
	     (idx)++, (cpu) = tally_cpu_map__cpu(map, idx))

/*
 * CPU topology from sysfs (devices/system/cpu/cpuN/topology/ and node*),
 * for per-core/socket/die/node aggregation. sysfs_root NULL means "/sys".
 * Unknown ids read as -1.
 */
struct tally_topology;
TALLY_API struct tally_topology *tally_topology__new(const char *sysfs_root);
TALLY_API void tally_topology__free(struct tally_topology *topo);
TALLY_API int tally_topology__socket(const struct tally_topology *t, struct tally_cpu cpu);
TALLY_API int tally_topology__die(const struct tally_topology *t, struct tally_cpu cpu);
TALLY_API int tally_topology__core(const struct tally_topology *t, struct tally_cpu cpu);
TALLY_API int tally_topology__node(const struct tally_topology *t, struct tally_cpu cpu);

#ifdef __cplusplus
}
#endif
#endif
