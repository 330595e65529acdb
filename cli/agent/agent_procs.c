// SPDX-License-Identifier: MIT
/*
 * --metrics-per-process: the counters per process, from /proc, not from
 * perf events. Counting events per process would take an fd per event
 * per thread (inherit follows only the threads made after the open), so
 * thousands of fds on a busy host and the threads that ran before the
 * agent saw them missed; the kernel keeps these counts per task anyway:
 * CPU time (utime + stime of /proc/PID/stat, its exited threads too, in
 * clock ticks), page faults (minflt + majflt, the same) and context
 * switches (voluntary + nonvoluntary of each live thread's status). An
 * exited thread's switches leave that sum: the series is kept from going
 * down (a counter never does) and resumes growing from there. Kernel
 * threads are left out (no page faults, and a hundred series of little use).
 */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agent_metrics.h"

#define PF_KTHREAD_FLAG 0x00200000	/* include/linux/sched.h */

struct proc_row {
	pid_t pid;
	uint64_t start;		/* starttime: a reused pid is another process */
	uint64_t ticks, faults, cs;
	char comm[64];
	char cgroup[256];
};

struct proc_set {
	struct proc_row *prev;	/* the last scrape's, by pid */
	size_t nprev;
	long tck;
};

struct proc_set *proc_set_new(void)
{
	struct proc_set *s = calloc(1, sizeof(*s));

	if (s) {
		s->tck = sysconf(_SC_CLK_TCK);
		if (s->tck <= 0)
			s->tck = 100;
	}
	return s;
}

void proc_set_free(struct proc_set *s)
{
	if (!s)
		return;
	free(s->prev);
	free(s);
}

static ssize_t read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return -1;
	got = read(fd, buf, n - 1);
	close(fd);
	if (got < 0)
		return -1;
	buf[got] = '\0';
	return got;
}

/* /proc/PID/stat: comm, flags, faults, times, start. 0, or -1 (gone, a kernel thread). */
static int read_stat(pid_t pid, struct proc_row *r)
{
	char path[64], buf[1024], *open_, *close_, *p, *end;
	unsigned long long f[23] = { 0 };
	size_t cl;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -1;
	open_ = strchr(buf, '(');
	close_ = strrchr(buf, ')');	/* a comm may hold ')' */
	if (!open_ || !close_ || close_ < open_)
		return -1;
	cl = (size_t)(close_ - open_ - 1);
	if (cl >= sizeof(r->comm))
		cl = sizeof(r->comm) - 1;
	memcpy(r->comm, open_ + 1, cl);
	r->comm[cl] = '\0';
	/* fields from 3 (state) on; f[k] is field k */
	p = close_ + 1;
	if (p[0] != ' ' || !p[1] || p[2] != ' ')
		return -1;
	p += 3;		/* the space, the state letter and its space */
	for (int k = 4; k <= 22; k++) {
		f[k] = strtoull(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	if (f[9] & PF_KTHREAD_FLAG)
		return -1;
	r->faults = f[10] + f[12];
	r->ticks = f[14] + f[15];
	r->start = f[22];
	return 0;
}

static uint64_t status_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Every live thread's switches. */
static uint64_t read_switches(pid_t pid)
{
	char path[96], buf[2048];
	struct dirent *de;
	uint64_t sum = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/status", (int)pid, de->d_name);
		if (read_small(path, buf, sizeof(buf)) <= 0)
			continue;
		sum += status_field(buf, "\nvoluntary_ctxt_switches:") +
		       status_field(buf, "\nnonvoluntary_ctxt_switches:");
	}
	closedir(d);
	return sum;
}

static void read_cgroup(pid_t pid, struct proc_row *r)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	r->cgroup[0] = '\0';
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return;
	/* the v2 line, "0::/path" (a hybrid system has v1 lines first) */
	p = !strncmp(buf, "0::", 3) ? buf : strstr(buf, "\n0::");
	if (!p)
		return;
	p += p == buf ? 3 : 4;
	snprintf(r->cgroup, sizeof(r->cgroup), "%.*s", (int)strcspn(p, "\n"), p);
}

static const struct proc_row *find_prev(const struct proc_set *s, pid_t pid)
{
	size_t lo = 0, hi = s->nprev;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->prev[mid].pid == pid)
			return &s->prev[mid];
		if (s->prev[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

void proc_set_render(struct proc_set *s, struct expo *e)
{
	struct proc_row *v = NULL, *nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir("/proc");
	char pid_s[16], b[32];

	while (d && (de = readdir(d))) {
		struct proc_row r = { 0 };
		const struct proc_row *p;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		r.pid = (pid_t)pid;
		if (read_stat(r.pid, &r))
			continue;
		r.cs = read_switches(r.pid);
		read_cgroup(r.pid, &r);
		p = find_prev(s, r.pid);
		if (p && p->start == r.start && p->cs > r.cs)
			r.cs = p->cs;
		if (n == cap) {
			nv = realloc(v, (cap ? cap * 2 : 256) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
			cap = cap ? cap * 2 : 256;
		}
		v[n++] = r;
	}
	if (d)
		closedir(d);
	qsort(v, n, sizeof(*v), cmp_pid);

	static const char *const fam[] = { "tally_process_task_clock_seconds",
		"tally_process_context_switches", "tally_process_page_faults" };
	static const char *const help[] = {
		"CPU time of the process (utime + stime of /proc/PID/stat, in clock ticks)",
		"Context switches of the process's live threads (/proc/PID/task/*/status)",
		"Page faults of the process (minflt + majflt of /proc/PID/stat)" };
	for (int k = 0; k < 3; k++) {
		expo_family(e, fam[k], EXPO_COUNTER, k ? NULL : "seconds", help[k]);
		for (size_t i = 0; i < n; i++) {
			struct expo_label l[3] = { { "pid", pid_s }, { "comm", v[i].comm },
						   { "cgroup", v[i].cgroup } };

			snprintf(pid_s, sizeof(pid_s), "%d", (int)v[i].pid);
			if (k == 0) {
				expo_fmt_ns(b, sizeof(b), v[i].ticks * (1000000000u / (uint64_t)s->tck));
				expo_sample(e, l, 3, b);
			} else {
				expo_sample_u64(e, l, 3, k == 1 ? v[i].cs : v[i].faults);
			}
		}
	}
	expo_one(e, "tally_agent_processes", EXPO_GAUGE, NULL, "Processes counted", n);
	free(s->prev);
	s->prev = v;
	s->nprev = n;
}
