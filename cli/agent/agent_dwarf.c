// SPDX-License-Identifier: MIT
/* DWARF call chains for chosen processes: see agent_dwarf.h. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/cpumap.h>
#include <tally/evlist.h>
#include <tally/session.h>
#include <tally/threadmap.h>
#include "agent_agg.h"
#include "agent_dwarf.h"
#include "event_opts.h"

#define MAX_FOLLOW 16

struct follow {
	int32_t pid;
	struct tally_evlist *l;
	struct tally_session *ss;
};

struct agent_dwarf {
	const struct agent_cfg *c;
	struct agent_agg *agg;
	struct follow f[MAX_FOLLOW];
	int n;
	bool pids_done;
	bool said_full;
	int err;
};

struct agent_dwarf *agent_dwarf_new(const struct agent_cfg *c, struct agent_agg *agg)
{
	struct agent_dwarf *d = calloc(1, sizeof(*d));

	if (d) {
		d->c = c;
		d->agg = agg;
	}
	return d;
}

static void let_go(struct follow *f)
{
	tally_session__close(f->ss);
	tally_evlist__free(f->l);
	memset(f, 0, sizeof(*f));
}

void agent_dwarf_free(struct agent_dwarf *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->n; i++)
		let_go(&d->f[i]);
	free(d);
}

bool agent_dwarf_follows(const struct agent_dwarf *d, int32_t pid)
{
	for (int i = 0; d && i < d->n; i++)
		if (d->f[i].pid == pid)
			return true;
	return false;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct agent_dwarf *d = ctx;
	int err;

	atomic_fetch_add(&((struct agent_cfg *)d->c)->health.samples_taken, 1);
	if ((err = agent_agg_add(d->agg, ss, smp, 0)) && !d->err)
		d->err = err;
	return 0;
}

/* pid's threads (inherited by its children) on every CPU, DWARF chains. */
static int follow(struct agent_dwarf *d, int32_t pid)
{
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = (uint64_t)d->c->freq,
		   .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		   .callchain = TALLY_CALLCHAIN_DWARF);
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .cgroup_fd = -1 };
	TALLY_OPTS(tally_evlist_mmap_opts, mo, .pages = 64);
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = d, .no_inline = true,
		   .srcline = d->c->srcline);
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *th = tally_thread_map__new_tasks(pid);
	struct follow f = { .pid = pid };
	int err = -ENOMEM;

	if (d->n == MAX_FOLLOW) {
		if (!d->said_full)
			fprintf(stderr, "tally agent: DWARF chains for %d processes at most: pid %d keeps frame pointers\n",
				MAX_FOLLOW, pid);
		d->said_full = true;
		err = 0;
		goto out;
	}
	if (!th) {
		err = -errno;
		goto out;
	}
	if (!cpus || !(f.l = tally_evlist__new()) || cli_events_add(f.l, "cpu-clock", NULL, "agent"))
		goto out;
	if ((err = tally_evlist__config(f.l, &co)) || (err = tally_evlist__open(f.l, cpus, th, &oo)) ||
	    (err = tally_evlist__mmap(f.l, &mo)))
		goto out;
	if (!(f.ss = tally_session__open_evlist(f.l, &so))) {
		err = -errno;
		goto out;
	}
	tally_session__set_unwind(f.ss, true);
	tally_session__synthesize(f.ss, &pid, 1);
	tally_evlist__enable(f.l);
	if (d->c->verbose)
		fprintf(stderr, "tally agent: DWARF chains for pid %d\n", pid);
	d->f[d->n++] = f;
	f.l = NULL;
	f.ss = NULL;
	err = 0;
out:
	if (err && err != -ESRCH)
		fprintf(stderr, "tally agent: DWARF chains for pid %d: %s (its samples keep frame pointers)\n",
			pid, strerror(-err));
	if (f.l)
		let_go(&f);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(th);
	return err;
}

static bool listed(const char *list, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len == n && !strncmp(p, item, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

void agent_dwarf_scan(struct agent_dwarf *d)
{
	if (d->c->dwarf_pids && !d->pids_done) {
		d->pids_done = true;
		for (const char *p = d->c->dwarf_pids; p && *p;) {
			char *end;
			long pid = strtol(p, &end, 10);

			if (end == p || pid <= 0 || (*end && *end != ',')) {
				fprintf(stderr, "tally agent: --dwarf-pid '%s': pids separated by commas\n", d->c->dwarf_pids);
				break;
			}
			if (follow(d, (int32_t)pid) == -ESRCH)
				fprintf(stderr, "tally agent: --dwarf-pid %ld: no such process\n", pid);
			p = *end ? end + 1 : NULL;
		}
	}
	if (d->c->dwarf_comms) {
		DIR *dir = opendir("/proc");
		struct dirent *e;

		while (dir && (e = readdir(dir))) {
			char path[64], comm[64] = "";
			long pid = strtol(e->d_name, NULL, 10);
			FILE *f;

			if (pid <= 0 || agent_dwarf_follows(d, (int32_t)pid))
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
			if (!(f = fopen(path, "re")))
				continue;
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
			if (listed(d->c->dwarf_comms, comm))
				follow(d, (int32_t)pid);
		}
		if (dir)
			closedir(dir);
	}
}

int agent_dwarf_poll(struct agent_dwarf *d)
{
	for (int i = 0; i < d->n; i++) {
		int err = tally_session__poll(d->f[i].ss, 0);

		if (err < 0 && err != -EINTR)
			return err;
	}
	return d->err;
}

void agent_dwarf_reap(struct agent_dwarf *d)
{
	for (int i = 0; i < d->n;) {
		if (kill(d->f[i].pid, 0) && errno == ESRCH) {
			let_go(&d->f[i]);
			d->f[i] = d->f[--d->n];
			continue;
		}
		i++;
	}
}
