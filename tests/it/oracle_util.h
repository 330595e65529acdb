/* SPDX-License-Identifier: MIT */
/*
 * Shared by the engine's integration tests (test_oracles, test_evlist,
 * test_workload, test_ioctl): attrs built by hand for the events that
 * work without a hardware PMU, the helper workload's path and its
 * symbols. Header-only so each test stays one program.
 */
#ifndef TALLY_TESTS_ORACLE_UTIL_H
#define TALLY_TESTS_ORACLE_UTIL_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/hw_breakpoint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>

static inline const char *helper_path(void)
{
	static char path[4096];
	const char *h = getenv("HELPERS");

	snprintf(path, sizeof(path), "%s/work", h && *h ? h : "build/helpers");
	return path;
}

static inline bool have_helper(void)
{
	return access(helper_path(), X_OK) == 0;
}

/*
 * Tracepoint id of SYS:NAME, or -1. The tracing dir comes from the
 * library, which mounts tracefs when a fresh machine has none mounted:
 * these oracles must not skip merely because nobody mounted it yet.
 */
static inline long tp_id(const char *sys, const char *name)
{
	const char *dir = tally_tracing_dir(NULL, 0);
	char path[512];
	long id = -1;
	FILE *f;

	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static inline bool tp_attr(struct perf_event_attr *a, const char *sys, const char *name)
{
	long id = tp_id(sys, name);

	if (id < 0)
		return false;
	tally_attr__init(a, PERF_TYPE_TRACEPOINT, (uint64_t)id);
	return true;
}

static inline void bp_attr(struct perf_event_attr *a, uint64_t addr)
{
	tally_attr__init(a, PERF_TYPE_BREAKPOINT, 0);
	a->bp_type = HW_BREAKPOINT_W;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sample_period = 1;	/* the kernel wants a period for breakpoints */
}

static inline int uprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int t = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &t) != 1)
		t = -1;
	fclose(f);
	return t;
}

/* File offset of symbol sym in ELF path (vaddr -> PT_LOAD offset). 0 if not found. */
static inline uint64_t elf_sym_offset(const char *path, const char *sym)
{
	uint64_t vaddr = 0, off = 0;
	Elf_Scn *scn = NULL;
	size_t nph;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return 0;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL && !vaddr) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			n = elf_strptr(elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, sym)) {
				vaddr = s.st_value;
				break;
			}
		}
	}
	if (vaddr && elf_getphdrnum(elf, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				off = vaddr - ph.p_vaddr + ph.p_offset;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return off;
}

/* `work addr` (the helper is -no-pie, so &target is fixed). 0 on failure. */
static inline uint64_t helper_target_addr(void)
{
	char cmd[4200];
	unsigned long long a = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s addr", helper_path());
	p = popen(cmd, "r");
	if (!p)
		return 0;
	if (fscanf(p, "%llx", &a) != 1)
		a = 0;
	pclose(p);
	return a;
}

/* Count one attr on a fresh run of `work ARGS...` (enable_on_exec). */
static inline int count_workload(const struct perf_event_attr *attr, char *const args[],
				 struct tally_counts *out, int *exit_code)
{
	char *argv[16];
	struct tally_workload *wl;
	struct tally_thread_map *tm;
	struct tally_evlist *l;
	struct tally_evsel *e;
	int n = 0, err, st;

	argv[n++] = (char *)helper_path();
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	wl = tally_workload__new(argv);
	if (!wl)
		return -errno;
	tm = tally_thread_map__new_pid(tally_workload__pid(wl));
	l = tally_evlist__new();
	e = tally_evsel__new(attr, NULL);
	tally_evlist__add(l, e);
	tally_evlist__set_attr_bits(l, true, true, tally_evsel__attr(e)->inherit);
	err = tally_evlist__open(l, NULL, tm, NULL);
	if (!err)
		err = tally_workload__start(wl);
	if (!err)
		err = tally_workload__wait(wl, &st, NULL);
	if (!err)
		err = tally_evlist__read(l);
	if (!err) {
		struct tally_aggr *a;
		int k = tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &a);

		if (k == 1)
			*out = a[0].counts;
		else
			err = k < 0 ? k : -EIO;
		free(a);
	}
	if (exit_code)
		*exit_code = tally_workload__exit_code(wl);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
	tally_workload__free(wl);
	return err;
}

#endif
