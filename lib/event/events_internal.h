/* SPDX-License-Identifier: MIT */
/*
 * Internals of the event language: the symbolic tables (event_tables.c),
 * sysfs PMUs (pmu.c), tracepoints (tp.c, the only libtracefs user),
 * libpfm4 (pfm.c, the only libpfm user) and ELF symbols (elf.c, the only
 * libelf user). Shared by lib/ only.
 */
#ifndef TALLY_EVENTS_INTERNAL_H
#define TALLY_EVENTS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
/* pfm.c gets perf_event_attr from libpfm4's own copy of the header. */
#ifndef TALLY_PFM_C
#include <linux/perf_event.h>
#endif

/* ---- event_tables.c ---- */
struct tally_sym_event {
	const char *name;	/* perf's canonical name */
	const char *alias;	/* second name or NULL ("cs") */
	uint32_t type;		/* PERF_TYPE_HARDWARE / PERF_TYPE_SOFTWARE */
	uint64_t config;
	const char *desc;
};
extern const struct tally_sym_event tally__sym_events[];
extern const size_t tally__nr_sym_events;

/* The symbolic event named exactly `name` (len bytes), or NULL. */
const struct tally_sym_event *tally__sym_lookup(const char *name, size_t len);

/* perf's tool events: counted by the tool (time, rusage), not the kernel. */
struct tally_tool_event {
	const char *name;	/* "duration_time", "user_time", "system_time" */
	unsigned int flag;	/* TALLY_EV_TOOL_* */
	const char *desc;
};
extern const struct tally_tool_event tally__tool_events[];
extern const size_t tally__nr_tool_events;
/* The tool event named exactly `name` (len bytes; case-sensitive), or NULL. */
const struct tally_tool_event *tally__tool_lookup(const char *name, size_t len);

/*
 * A hardware cache event name ("L1-dcache-load-misses", "LLC-loads",
 * "dTLB-store-misses", "branch-loads") as perf's lexer accepts it: a type
 * alias, then up to two op/result aliases, '-' separated, case-sensitive.
 * 0 with *config set; -ENOENT when not a cache name; -EINVAL when the
 * names are right but perf's validity table rejects the combination
 * (L1-icache-stores).
 */
int tally__cache_parse(const char *name, size_t len, uint64_t *config);
/* Every valid cache event in perf's list order ("L1-dcache-loads"...). */
int tally__cache_foreach(int (*cb)(const char *name, uint64_t config, void *ctx),
			 void *ctx);

/* ---- pmu.c: /sys/bus/event_source/devices/PMU ---- */
#define TALLY_PMU_PATH "/bus/event_source/devices"

/*
 * A format spec ("config:0-7,21", "config1:0-63", "config2:3"): which
 * config word (0..3) and which bits. Pure: (buf, len). 0 or -EINVAL.
 */
int tally__pmu_parse_format(const char *buf, size_t len, int *word, uint64_t *mask);
/* Scatter val over mask's set bits, low to high. false if val needs
 * more bits than mask has. */
bool tally__pmu_format_encode(uint64_t mask, uint64_t val, uint64_t *out);
/* Number of set bits: the largest value a format field takes is 2^n-1. */
int tally__pmu_format_bits(uint64_t mask);

bool tally__pmu_exists(const char *sysfs, const char *pmu);
int tally__pmu_type(const char *sysfs, const char *pmu);	/* type or -errno */
int tally__pmu_format(const char *sysfs, const char *pmu, const char *term,
		      int *word, uint64_t *mask);
/* The terms of events/ALIAS ("event=0x3c,umask=0x00"). len or -errno. */
int tally__pmu_alias(const char *sysfs, const char *pmu, const char *alias,
		     char *buf, size_t len);
/* events/ALIAS.scale (1.0 if absent) and .unit ("" if absent). */
void tally__pmu_alias_scale_unit(const char *sysfs, const char *pmu, const char *alias,
				 double *scale, char *unit, size_t unit_len);
/* The PMU's cpumask (or cpus) file; -ENOENT if neither. */
int tally__pmu_cpumask(const char *sysfs, const char *pmu, char *buf, size_t len);
/* caps/NAME as a number; -ENOENT if absent. */
int tally__pmu_cap(const char *sysfs, const char *pmu, const char *cap, uint64_t *val);
/* Is there a hardware (core) PMU? Without one libpfm4's names are moot. */
bool tally__pmu_has_core(const char *sysfs);
#define TALLY_PMU_NAME_MAX	64
#define TALLY_MAX_CORE_PMUS	8
int tally__pmu_core_list(const char *sysfs, char (*names)[TALLY_PMU_NAME_MAX], int *types,
			 int max);
/* PMU names (sorted), then alias names of one PMU (sorted, no .scale/.unit). */
int tally__pmu_foreach(const char *sysfs, int (*cb)(const char *pmu, void *ctx), void *ctx);
int tally__pmu_foreach_alias(const char *sysfs, const char *pmu,
			     int (*cb)(const char *pmu, const char *alias,
				       const char *terms, void *ctx), void *ctx);

/* ---- tp.c: tracepoints through libtracefs ---- */
/* The tracing directory: root if given, else the mounted tracefs; NULL if none. */
const char *tally__tp_dir(const char *root);
/* The id of sys:ev (events/SYS/EV/id), or -errno. */
int tally__tp_id(const char *root, const char *sys, const char *ev);
/* 1: events/SYS exists, 0: it does not, -1: cannot tell (no tracefs, EACCES). */
int tally__tp_system_state(const char *root, const char *sys);
/*
 * Every tracepoint whose system matches sys_glob and name matches ev_glob
 * (fnmatch): sorted by system then name (as perf list), or unsorted in
 * tracefs' directory order (readdir), the order perf 6.1's glob expansion
 * adds them in. A non-zero cb return stops the walk and is returned.
 * -ENOENT without a tracing directory, -EACCES when it cannot be read.
 */
int tally__tp_foreach(const char *root, const char *sys_glob, const char *ev_glob, bool sorted,
		      int (*cb)(const char *sys, const char *ev, void *ctx), void *ctx);

/* ---- pfm.c: libpfm4 ---- */
struct tally_pfm_enc {
	uint32_t type;
	uint64_t config, config1, config2;
};
/* Encode a libpfm4 event name; 0, or -ENOENT when pfm does not know it. */
int tally__pfm_encode(const char *name, struct tally_pfm_enc *enc);
/* Events of the host's hardware PMUs (not pfm's generic "perf" tables). */
int tally__pfm_foreach(int (*cb)(const char *name, const char *desc, void *ctx), void *ctx);

/* ---- elf.c: libelf ---- */
/*
 * The file offset of symbol `sym` in the ELF file at path (symtab, then
 * dynsym): st_value mapped through the PT_LOAD segment containing it.
 * 0, -ENOENT (no such symbol), or -errno.
 */
int tally__elf_sym_offset(const char *path, const char *sym, uint64_t *off);

/* ---- events.c ---- */
/* Levenshtein distance, capped: returns > cap early. */
int tally__edit_distance(const char *a, const char *b, int cap);

#endif
