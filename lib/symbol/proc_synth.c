// SPDX-License-Identifier: MIT
/*
 * What ran before a live recording (tally/symbols.h's
 * tally_machine__synthesize): the rings only say what starts, execs and
 * maps from now on, so the processes already running are read from /proc
 * into a machine's address spaces, as perf's synthesized COMM and MMAP
 * records give them to perf top and perf trace, and the kernel's maps
 * from kallsyms and modules.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tally/tally.h>

/* The process's executable maps, as MMAP2 records of it. */
static void synth_maps(struct tally_machine *m, int pid)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perm[8], *nl;
		int n = 0;
		struct tally_mmap_event ev = { .pid = pid, .tid = pid };

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perm, &pgoff,
			   &maj, &min, &ino, &n) < 7 || perm[2] != 'x')
			continue;
		if ((nl = strchr(line + n, '\n')))
			*nl = 0;
		ev.start = start;
		ev.len = end - start;
		ev.pgoff = pgoff;
		ev.filename = line[n] ? line + n : "//anon";
		ev.prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
		ev.flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		ev.maj = maj;
		ev.min = min;
		ev.ino = ino;
		tally_machine__mmap(m, &ev);
	}
	fclose(f);
}

/* A process: its name, its threads (FORK and COMM each), its maps. 0, -ENOENT when gone. */
static int synth_one(struct tally_machine *m, int pid)
{
	char path[64], comm[64] = "";
	DIR *d;
	FILE *f;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!(f = fopen(path, "re")))
		return -ENOENT;	/* gone meanwhile */
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	tally_machine__comm(m, pid, pid, comm, false);
	if ((d = opendir(path))) {
		while ((de = readdir(d)))
			if (isdigit((unsigned char)de->d_name[0]) && atoi(de->d_name) != pid) {
				int tid = atoi(de->d_name);

				tally_machine__fork(m, pid, tid, pid, pid);
				tally_machine__comm(m, pid, tid, comm, false);
			}
		closedir(d);
	}
	synth_maps(m, pid);
	return 0;
}

int tally_machine__synthesize(struct tally_machine *m, const int *pids, int npids)
{
	DIR *d;
	struct dirent *de;
	int found = 0;

	if (!m || (npids > 0 && !pids))
		return -EINVAL;
	/* without kallsyms' addresses (kptr_restrict) kernel samples stay unnamed, not wrong */
	tally_machine__add_kernel_maps(m, NULL, NULL);
	if (npids > 0) {
		for (int i = 0; i < npids; i++)
			found += !synth_one(m, pids[i]);
		return found ? 0 : -ENOENT;
	}
	if (!(d = opendir("/proc")))
		return -errno;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			synth_one(m, atoi(de->d_name));
	closedir(d);
	return 0;
}
