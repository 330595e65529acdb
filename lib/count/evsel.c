// SPDX-License-Identifier: MIT
/*
 * Event selectors: one attr opened on CPUs x threads, a table of fds and
 * ids, and the last two reads of each slot. Their aggregation is aggr.c's.
 */
#include <stdio.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <tally/sys.h>
#include <tally/probe.h>
#include "internal.h"
#include "evsel_internal.h"
#include "open_retry.h"

static const char *const hw_names[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= "cycles",
	[PERF_COUNT_HW_INSTRUCTIONS]		= "instructions",
	[PERF_COUNT_HW_CACHE_REFERENCES]	= "cache-references",
	[PERF_COUNT_HW_CACHE_MISSES]		= "cache-misses",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= "branches",
	[PERF_COUNT_HW_BRANCH_MISSES]		= "branch-misses",
	[PERF_COUNT_HW_BUS_CYCLES]		= "bus-cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND]	= "stalled-cycles-frontend",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND]	= "stalled-cycles-backend",
	[PERF_COUNT_HW_REF_CPU_CYCLES]		= "ref-cycles",
};

static const char *const sw_names[PERF_COUNT_SW_MAX] = {
	[PERF_COUNT_SW_CPU_CLOCK]		= "cpu-clock",
	[PERF_COUNT_SW_TASK_CLOCK]		= "task-clock",
	[PERF_COUNT_SW_PAGE_FAULTS]		= "page-faults",
	[PERF_COUNT_SW_CONTEXT_SWITCHES]	= "context-switches",
	[PERF_COUNT_SW_CPU_MIGRATIONS]		= "cpu-migrations",
	[PERF_COUNT_SW_PAGE_FAULTS_MIN]		= "minor-faults",
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ]		= "major-faults",
	[PERF_COUNT_SW_ALIGNMENT_FAULTS]	= "alignment-faults",
	[PERF_COUNT_SW_EMULATION_FAULTS]	= "emulation-faults",
	[PERF_COUNT_SW_DUMMY]			= "dummy",
	[PERF_COUNT_SW_BPF_OUTPUT]		= "bpf-output",
#ifdef PERF_COUNT_SW_CGROUP_SWITCHES
	[PERF_COUNT_SW_CGROUP_SWITCHES]		= "cgroup-switches",
#endif
};

static char *default_name(const struct perf_event_attr *a)
{
	char buf[96];

	if (a->type == PERF_TYPE_HARDWARE && a->config < PERF_COUNT_HW_MAX &&
	    hw_names[a->config])
		return strdup(hw_names[a->config]);
	if (a->type == PERF_TYPE_SOFTWARE && a->config < PERF_COUNT_SW_MAX &&
	    sw_names[a->config])
		return strdup(sw_names[a->config]);
	if (a->type == PERF_TYPE_BREAKPOINT) {
		char rwx[4], *p = rwx;

		if (a->bp_type & HW_BREAKPOINT_R)
			*p++ = 'r';
		if (a->bp_type & HW_BREAKPOINT_W)
			*p++ = 'w';
		if (a->bp_type & HW_BREAKPOINT_X)
			*p++ = 'x';
		*p = '\0';
		snprintf(buf, sizeof(buf), "mem:0x%llx:%s",
			 (unsigned long long)a->bp_addr, rwx);
		return strdup(buf);
	}
	if (a->type == PERF_TYPE_RAW) {
		snprintf(buf, sizeof(buf), "r%llx", (unsigned long long)a->config);
		return strdup(buf);
	}
	snprintf(buf, sizeof(buf), "%u:0x%llx", a->type, (unsigned long long)a->config);
	return strdup(buf);
}

/* perf's modifiers after a derived name (evsel__add_modifiers): ":u", ":HG"... */
static int perf_modifiers(const struct perf_event_attr *a, char *bf, size_t size)
{
	size_t r = 0, colon = 0;
	bool guest_default = false;

#define MOD(excl, c) do {								if (!(excl) && r + 1 < size) {							if (!colon)									colon = ++r;							bf[r++] = (c);							}								} while (0)
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	for (unsigned int i = 0; i < a->precise_ip && r + 2 < size; i++)
		MOD(0, 'p');
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	if (colon)
		bf[colon - 1] = ':';
	if (size)
		bf[r < size ? r : size - 1] = '\0';
	return (int)r;
}

char *tally__perf_attr_name(const struct perf_event_attr *a)
{
	char bf[160];
	int r;

	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		r = snprintf(bf, sizeof(bf), "%s", a->config < PERF_COUNT_HW_MAX && hw_names[a->config] ?
			     hw_names[a->config] : "unknown-hardware");
		break;
	case PERF_TYPE_SOFTWARE:
		r = snprintf(bf, sizeof(bf), "%s", a->config < PERF_COUNT_SW_MAX && sw_names[a->config] ?
			     sw_names[a->config] : "unknown-software");
		break;
	case PERF_TYPE_HW_CACHE:
		r = tally__cache_name(a->config, bf, sizeof(bf));
		break;
	case PERF_TYPE_RAW:
		r = snprintf(bf, sizeof(bf), "raw 0x%llx", (unsigned long long)a->config);
		break;
	case PERF_TYPE_BREAKPOINT:
		r = snprintf(bf, sizeof(bf), "mem:0x%llx:%s%s%s", (unsigned long long)a->bp_addr,
			     a->bp_type & HW_BREAKPOINT_R ? "r" : "", a->bp_type & HW_BREAKPOINT_W ? "w" : "",
			     a->bp_type & HW_BREAKPOINT_X ? "x" : "");
		break;
	case PERF_TYPE_TRACEPOINT:
		return strdup("unknown tracepoint");
	default:
		snprintf(bf, sizeof(bf), "unknown attr type: %u", a->type);
		return strdup(bf);
	}
	if (r > 0 && (size_t)r < sizeof(bf))
		perf_modifiers(a, bf + r, sizeof(bf) - (size_t)r);
	return strdup(bf);
}

struct tally_evsel *tally_evsel__new(const struct perf_event_attr *attr, const char *name)
{
	struct tally_evsel *e;

	if (!attr)
		return tally__err_ptr(EINVAL);
	e = calloc(1, sizeof(*e));
	if (!e)
		return tally__err_ptr(ENOMEM);
	e->attr = *attr;
	if (!e->attr.size)
		e->attr.size = sizeof(e->attr);
	e->name = name ? strdup(name) : default_name(attr);
	if (!e->name) {
		free(e);
		return tally__err_ptr(ENOMEM);
	}
	e->leader = e;
	e->nr_members = 1;
	e->scale = 1.0;
	return e;
}

static void free_tables(struct tally_evsel *e)
{
	free(e->fds);
	free(e->ids);
	free(e->counts);
	free(e->prev);
	e->fds = NULL;
	e->ids = NULL;
	e->counts = e->prev = NULL;
	e->nr_cpus = e->nr_threads = 0;
}

void tally_evsel__free(struct tally_evsel *e)
{
	if (!e)
		return;
	if (e->evlist) {
		/* Owned by an evlist, which frees it: a second free is a bug. */
		pr_warn("tally: %s belongs to an evlist; not freed\n", e->name);
		return;
	}
	tally_evsel__close(e);
	free_tables(e);
	tally_cpu_map__put(e->own_cpus);
	tally_cpu_map__put(e->cpus);
	tally_thread_map__put(e->threads);
	free(e->name);
	free(e->pmu);
	free(e->filter);
	free(e->cgroup);
	free(e->unit);
	free(e);
}

struct perf_event_attr *tally_evsel__attr(struct tally_evsel *e)
{
	return e ? &e->attr : NULL;
}

const char *tally_evsel__name(const struct tally_evsel *e)
{
	return e ? e->name : NULL;
}

static int set_str(char **dst, const char *s)
{
	char *n = NULL;

	if (s) {
		n = strdup(s);
		if (!n)
			return tally__err(ENOMEM);
	}
	free(*dst);
	*dst = n;
	return 0;
}

int tally_evsel__set_name(struct tally_evsel *e, const char *name)
{
	if (!e || !name)
		return tally__err(EINVAL);
	return set_str(&e->name, name);
}

const char *tally_evsel__pmu(const struct tally_evsel *e)
{
	return e ? e->pmu : NULL;
}

int tally_evsel__set_pmu(struct tally_evsel *e, const char *pmu)
{
	if (!e)
		return tally__err(EINVAL);
	return set_str(&e->pmu, pmu);
}

int tally_evsel__set_unit(struct tally_evsel *e, const char *unit, double scale)
{
	if (!e)
		return tally__err(EINVAL);
	e->scale = scale != 0 ? scale : 1.0;
	return set_str(&e->unit, unit && *unit ? unit : NULL);
}

const char *tally_evsel__unit(const struct tally_evsel *e)
{
	return e ? e->unit : NULL;
}

double tally_evsel__scale(const struct tally_evsel *e)
{
	return e ? e->scale : 1.0;
}

unsigned int tally_evsel__flags(const struct tally_evsel *e)
{
	return e ? e->ev_flags : 0;
}

void tally_evsel__set_flags(struct tally_evsel *e, unsigned int flags)
{
	if (e)
		e->ev_flags = flags;
}

enum tally_tool_event tally_evsel__tool(const struct tally_evsel *e)
{
	if (!e)
		return TALLY_TOOL_NONE;
	if (e->ev_flags & TALLY_EV_TOOL_DURATION)
		return TALLY_TOOL_DURATION;
	if (e->ev_flags & TALLY_EV_TOOL_USER)
		return TALLY_TOOL_USER;
	if (e->ev_flags & TALLY_EV_TOOL_SYSTEM)
		return TALLY_TOOL_SYSTEM;
	return TALLY_TOOL_NONE;
}

void tally_evsel__set_own_cpus(struct tally_evsel *e, struct tally_cpu_map *cpus)
{
	if (!e)
		return;
	tally_cpu_map__get(cpus);
	tally_cpu_map__put(e->own_cpus);
	e->own_cpus = cpus;
}

struct tally_cpu_map *tally_evsel__own_cpus(const struct tally_evsel *e)
{
	return e ? e->own_cpus : NULL;
}

struct tally_cpu_map *tally_evsel__cpus(const struct tally_evsel *e)
{
	return e ? e->cpus : NULL;
}

struct tally_thread_map *tally_evsel__threads(const struct tally_evsel *e)
{
	return e ? e->threads : NULL;
}

int tally_evsel__set_filter(struct tally_evsel *e, const char *filter)
{
	if (!e)
		return tally__err(EINVAL);
	return set_str(&e->filter, filter);
}

const char *tally_evsel__filter(const struct tally_evsel *e)
{
	return e ? e->filter : NULL;
}

int tally_evsel__set_cgroup(struct tally_evsel *e, int fd, const char *name)
{
	char *n = NULL;

	if (!e || (name && fd < 0))
		return tally__err(EINVAL);
	if (e->opened)
		return tally__err(EBUSY);
	if (name && !(n = strdup(name)))
		return tally__err(ENOMEM);
	free(e->cgroup);
	e->cgroup = n;
	e->cgroup_fd = n ? fd : -1;
	return 0;
}

const char *tally_evsel__cgroup(const struct tally_evsel *e)
{
	return e ? e->cgroup : NULL;
}

int tally_evsel__cgroup_fd(const struct tally_evsel *e)
{
	return e && e->cgroup ? e->cgroup_fd : -1;
}

struct tally_evsel *tally_evsel__leader(const struct tally_evsel *e)
{
	return e ? e->leader : NULL;
}

bool tally_evsel__is_leader(const struct tally_evsel *e)
{
	return e && e->leader == e;
}

int tally_evsel__nr_members(const struct tally_evsel *e)
{
	if (!e)
		return 0;
	return e->leader == e ? e->nr_members : e->leader->nr_members;
}

bool tally__err_is_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	       err == -EINVAL || err == -ENXIO;
}

static int alloc_tables(struct tally_evsel *e, int ncpu, int nthr)
{
	size_t n;

	if (e->fds && e->nr_cpus == ncpu && e->nr_threads == nthr) {
		for (size_t i = 0; i < (size_t)ncpu * (size_t)nthr; i++)
			e->fds[i] = -1;
		return 0;
	}
	free_tables(e);
	if (ncpu <= 0 || nthr <= 0 || (size_t)ncpu > SIZE_MAX / (size_t)nthr)
		return tally__err(EINVAL);
	n = (size_t)ncpu * (size_t)nthr;
	e->fds = tally__calloc(n, sizeof(*e->fds));
	e->ids = tally__calloc(n, sizeof(*e->ids));
	e->counts = tally__calloc(n, sizeof(*e->counts));
	e->prev = tally__calloc(n, sizeof(*e->prev));
	if (!e->fds || !e->ids || !e->counts || !e->prev) {
		free_tables(e);
		return tally__err(ENOMEM);
	}
	for (size_t i = 0; i < n; i++)
		e->fds[i] = -1;
	e->nr_cpus = ncpu;
	e->nr_threads = nthr;
	return 0;
}

/* read_format the engine needs; GROUP only for a leader with members. */
static void fix_read_format(struct tally_evsel *e)
{
	e->attr.read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	if (e->leader == e && e->nr_members > 1)
		e->attr.read_format |= PERF_FORMAT_GROUP;
	else if (e->leader != e)
		e->attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
}

static int open_one(struct tally_evsel *e, pid_t pid, int cpu, int group_fd,
		    unsigned long flags)
{
	int fd = tally_sys_open(&e->attr, pid, cpu, group_fd, flags);

	if (fd == -EMFILE && tally_raise_nofile_limit() == 0)
		fd = tally_sys_open(&e->attr, pid, cpu, group_fd, flags);
	return fd;
}

static void close_fds(struct tally_evsel *e)
{
	for (size_t i = 0; i < (size_t)e->nr_cpus * (size_t)e->nr_threads; i++) {
		if (e->fds[i] >= 0)
			close(e->fds[i]);
		e->fds[i] = -1;
		e->ids[i] = 0;
	}
}

/*
 * perf's fallback for perf_event_paranoid >= 2 without CAP_PERFMON:
 * the kernel refuses to count kernel mode for us, so count user mode
 * only and say so in the name as perf does ("ev" -> "ev:u", "ev:k" or
 * "pmu/x/" -> append "u"), instead of failing. Not for tracepoints: they
 * fire in kernel mode, so ":u" would count a silent zero. Not for an
 * event that already excludes user space: it would count nothing. True
 * if the attr was changed (old name in *saved) and the open should be
 * retried.
 */
static bool kernel_fallback(struct tally_evsel *e, char **saved)
{
	char *nn;
	size_t n;

	if (*saved || e->attr.exclude_kernel || e->attr.exclude_user ||
	    e->attr.type == PERF_TYPE_TRACEPOINT)
		return false;
	if (!tally_paranoid_user_only())
		return false;
	n = strlen(e->name);
	nn = malloc(n + 3);
	if (!nn)
		return false;
	snprintf(nn, n + 3, "%s%su", e->name,
		 strchr(e->name, '/') || strchr(e->name, ':') ? "" : ":");
	*saved = e->name;
	e->name = nn;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	pr_debug("tally: kernel counting not allowed (perf_event_paranoid >= 2), %s counts "
		 "user space only\n", e->name);
	return true;
}

/*
 * A tool event (duration_time...) is counted by the tool, not the
 * kernel, so nothing is opened: "opening" gives it one slot, the first
 * CPU x the first thread of the maps (where perf shows it with -A or
 * --per-thread), no fd, zeroed counts for tally_evlist__set_tool_times.
 * Opened, so reads rotate it (and leave it alone: no fd) and it counts
 * as open for the evlist. Opening it again starts over.
 */
static int tool_open(struct tally_evsel *e, struct tally_cpu_map *cpus,
		     struct tally_thread_map *threads)
{
	struct tally_cpu_map *c1;
	struct tally_thread_map *t1;
	int cpu, err;
	pid_t tid;

	if (tally_cpu_map__nr(cpus) < 1 || tally_thread_map__nr(threads) < 1)
		return tally__err(EINVAL);
	cpu = tally_cpu_map__cpu(cpus, 0).cpu;
	tid = tally_thread_map__pid(threads, 0);
	if (tally_cpu_map__nr(cpus) == 1) {
		c1 = tally_cpu_map__get(cpus);
	} else if (cpu < 0) {
		c1 = tally_cpu_map__new_any();
	} else {
		char buf[16];

		snprintf(buf, sizeof(buf), "%d", cpu);
		c1 = tally_cpu_map__new(buf);
	}
	if (tally_thread_map__nr(threads) == 1)
		t1 = tally_thread_map__get(threads);
	else
		t1 = tid < 0 ? tally_thread_map__new_any() : tally_thread_map__new_pid(tid);
	err = c1 && t1 ? alloc_tables(e, 1, 1) : -ENOMEM;
	if (err) {
		tally_cpu_map__put(c1);
		tally_thread_map__put(t1);
		return tally__err(-err);
	}
	tally_cpu_map__put(e->cpus);
	e->cpus = c1;
	tally_thread_map__put(e->threads);
	e->threads = t1;
	e->ids[0] = 0;
	memset(e->counts, 0, sizeof(*e->counts));
	memset(e->prev, 0, sizeof(*e->prev));
	e->opened = true;
	e->unsupported = false;
	e->open_err = 0;
	return 0;
}

int tally__evsel_open_flags(struct tally_evsel *e, struct tally_cpu_map *cpus,
			    struct tally_thread_map *threads, unsigned long flags,
			    int cgroup_fd)
{
	struct tally_cpu_map *own_c = NULL;
	struct tally_thread_map *own_t = NULL;
	struct tally_evsel *leader;
	char *saved_name = NULL;
	struct perf_event_attr orig;
	bool changed = false, filter_err = false;
	int ncpu, nthr, nok, err = 0;

	if (!e)
		return tally__err(EINVAL);
	if (e->opened && !tally_evsel__tool(e))
		return tally__err(EBUSY);
	leader = e->leader;
	if (!cpus)
		cpus = own_c = tally_cpu_map__new_any();
	if (!threads)
		threads = own_t = tally_thread_map__new_any();
	if (!cpus || !threads) {
		err = -ENOMEM;
		goto out;
	}
	if (tally_evsel__tool(e)) {
		err = tool_open(e, cpus, threads);
		goto out;
	}
	ncpu = tally_cpu_map__nr(cpus);
	nthr = tally_thread_map__nr(threads);
	if (leader != e && (!leader->opened || leader->nr_cpus != ncpu ||
			    leader->nr_threads != nthr)) {
		err = leader->open_err ? leader->open_err : -EBADF;
		goto fail;
	}
	err = alloc_tables(e, ncpu, nthr);
	if (err)
		goto out;
	tally_cpu_map__get(cpus);
	tally_cpu_map__put(e->cpus);
	e->cpus = cpus;
	tally_thread_map__get(threads);
	tally_thread_map__put(e->threads);
	e->threads = threads;
	fix_read_format(e);

	orig = e->attr;
retry:
	nok = 0;
	for (int c = 0; c < ncpu; c++) {
		int cpu = tally_cpu_map__cpu(cpus, c).cpu;

		for (int t = 0; t < nthr; t++) {
			pid_t pid = tally_thread_map__pid(threads, t);
			int group_fd = -1, fd;
			size_t s = EVSEL_SLOT(e, c, t);

			if (flags & PERF_FLAG_PID_CGROUP)
				pid = cgroup_fd;
			if (leader != e) {
				group_fd = leader->fds[s];
				if (group_fd < 0)
					continue;	/* the leader's thread was gone */
			}
			fd = open_one(e, pid, cpu, group_fd, flags);
			if (fd == -ESRCH && nthr > 1 && !(flags & PERF_FLAG_PID_CGROUP)) {
				/* One thread of many exited meanwhile, as perf: go on. */
				pr_debug("tally: thread %d exited, %s not opened on it\n",
					 (int)pid, e->name);
				continue;
			}
			if ((fd == -EACCES || fd == -EPERM) && kernel_fallback(e, &saved_name)) {
				changed = true;
				close_fds(e);
				goto retry;
			}
			if (tally__retry_drop_exclude_guest(&e->attr, fd)) {
				pr_debug("tally: %s: switching off exclude_guest/exclude_host\n",
					 e->name);
				changed = true;
				close_fds(e);
				goto retry;
			}
			if (fd < 0) {
				err = fd;
				pr_debug("tally: open %s on cpu %d pid %d: %s\n", e->name,
					 cpu, (int)pid, strerror(-err));
				goto fail_close;
			}
			nok++;
			e->fds[s] = fd;
			err = tally_sys_id(fd, &e->ids[s]);
			if (err)
				goto fail_close;
			if (e->filter) {
				err = tally_sys_set_filter(fd, e->filter);
				if (err) {
					pr_debug("tally: filter '%s' rejected for %s\n",
						 e->filter, e->name);
					filter_err = true;
					goto fail_close;
				}
			}
		}
	}
	if (!nok) {
		err = -ESRCH;	/* every thread was gone */
		goto fail_close;
	}
	memset(e->counts, 0, (size_t)ncpu * (size_t)nthr * sizeof(*e->counts));
	memset(e->prev, 0, (size_t)ncpu * (size_t)nthr * sizeof(*e->prev));
	e->opened = true;
	e->unsupported = false;
	e->open_err = 0;
	e->filter_rejected = false;
	goto out;

fail_close:
	close_fds(e);
	if (changed) {
		/* The fallback retries failed too: leave the event as it was. */
		e->attr = orig;
		if (saved_name) {
			free(e->name);
			e->name = saved_name;
			saved_name = NULL;
		}
	}
fail:
	e->open_err = err;
	e->filter_rejected = filter_err;
	if (tally__err_is_unsupported(err) ||
	    (leader != e && leader->unsupported))
		e->unsupported = true;
out:
	free(saved_name);
	tally_cpu_map__put(own_c);
	tally_thread_map__put(own_t);
	if (err)
		errno = -err;
	return err;
}

int tally_evsel__open(struct tally_evsel *e, struct tally_cpu_map *cpus,
		      struct tally_thread_map *threads)
{
	return tally__evsel_open_flags(e, cpus, threads, 0, -1);
}

void tally_evsel__close(struct tally_evsel *e)
{
	if (!e || !e->fds)
		return;
	for (size_t i = 0; i < (size_t)e->nr_cpus * (size_t)e->nr_threads; i++) {
		if (e->fds[i] >= 0)
			close(e->fds[i]);
		e->fds[i] = -1;
	}
	e->opened = false;
}

bool tally_evsel__is_open(const struct tally_evsel *e)
{
	return e && e->opened;
}

bool tally_evsel__supported(const struct tally_evsel *e)
{
	return e && !e->unsupported;
}

int tally_evsel__open_error(const struct tally_evsel *e)
{
	return e ? e->open_err : 0;
}

const char *tally_evsel__strerror(const struct tally_evsel *e, int err, char *buf, size_t len)
{
	if (!e)
		return tally_strerror(err ? err : EINVAL, NULL, NULL, buf, len);
	return tally_strerror(err ? err : e->open_err, &e->attr, tally_evsel__name(e), buf, len);
}

bool tally_evsel__filter_rejected(const struct tally_evsel *e)
{
	return e && e->open_err && e->filter_rejected;
}

bool tally_evsel__fallback(struct tally_evsel *e)
{
	char *name;
	struct perf_event_attr a;

	if (!e || e->opened || (e->open_err != -ENOENT && e->open_err != -ENXIO &&
				e->open_err != -ENODEV))
		return false;
	if (e->attr.type != PERF_TYPE_HARDWARE || e->attr.config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	a = e->attr;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	/* perf drops the name and derives it from the attr again */
	if (!(name = tally__perf_attr_name(&a)))
		return false;
	free(e->name);
	e->name = name;
	e->attr = a;
	e->open_err = 0;
	e->unsupported = false;
	return true;
}

static bool slot_ok(const struct tally_evsel *e, int c, int t)
{
	return e && e->fds && c >= 0 && t >= 0 && c < e->nr_cpus && t < e->nr_threads;
}

int tally_evsel__fd(const struct tally_evsel *e, int c, int t)
{
	return slot_ok(e, c, t) ? e->fds[EVSEL_SLOT(e, c, t)] : -1;
}

int tally_evsel__nr_cpus(const struct tally_evsel *e)
{
	return e ? e->nr_cpus : 0;
}

int tally_evsel__nr_threads(const struct tally_evsel *e)
{
	return e ? e->nr_threads : 0;
}

int tally_evsel__id(const struct tally_evsel *e, int c, int t, uint64_t *id)
{
	if (!slot_ok(e, c, t) || !id || e->fds[EVSEL_SLOT(e, c, t)] < 0)
		return tally__err(EINVAL);
	*id = e->ids[EVSEL_SLOT(e, c, t)];
	return 0;
}

static int ioctl_all(struct tally_evsel *e, int (*fn)(int fd, bool group))
{
	int first = 0;

	if (!e)
		return tally__err(EINVAL);
	if (!e->opened)
		return tally__err(EBADF);
	for (size_t i = 0; i < (size_t)e->nr_cpus * (size_t)e->nr_threads; i++) {
		int err;

		if (e->fds[i] < 0)
			continue;
		err = fn(e->fds[i], false);
		if (err && !first)
			first = err;
	}
	if (first)
		errno = -first;
	return first;
}

int tally_evsel__enable(struct tally_evsel *e)
{
	return ioctl_all(e, tally_sys_enable);
}

int tally_evsel__disable(struct tally_evsel *e)
{
	return ioctl_all(e, tally_sys_disable);
}

int tally_evsel__reset(struct tally_evsel *e)
{
	return ioctl_all(e, tally_sys_reset);
}

/* Size of one read() of e's fd, with `nr` open events in a group read. */
static size_t read_size(uint64_t rf, int nr)
{
	size_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		     !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP)
		return (1 + hdr + per * (size_t)nr) * sizeof(uint64_t);
	return (hdr + per) * sizeof(uint64_t);
}

struct land_ctx {
	struct tally_evsel *leader;
	size_t slot;
	struct tally_counts *first;	/* entry 0 (the reader's own) */
	int landed;
};

static void land_group(void *vctx, int i, const struct tally_counts *c)
{
	struct land_ctx *ctx = vctx;

	if (i == 0 && ctx->first)
		*ctx->first = *c;
	/* Land by id: the kernel lists members in its sibling order. */
	for (struct tally_evsel *m = ctx->leader; m; m = m->group_next) {
		if (m->opened && m->fds[ctx->slot] >= 0 && m->ids[ctx->slot] == c->id) {
			m->counts[ctx->slot] = *c;
			ctx->landed++;
			return;
		}
	}
}

static void land_first(void *vctx, int i, const struct tally_counts *c)
{
	if (i == 0)
		*(struct tally_counts *)vctx = *c;
}

/* Number of events of leader's group open in slot s. */
static int open_in_group(const struct tally_evsel *leader, size_t s)
{
	int n = 0;

	for (const struct tally_evsel *m = leader; m; m = m->group_next)
		if (m->opened && m->fds[s] >= 0)
			n++;
	return n;
}

/*
 * perf_event_open(2), "pinned": a pinned event (group) that cannot go on
 * the PMU is in an error state where read() returns end-of-file until it
 * is enabled or disabled again. That is "not counted" (run == 0) for the
 * whole group in that slot, not an I/O error.
 */
static void land_not_counted(struct tally_evsel *e, size_t slot,
			     struct tally_counts *out, bool store)
{
	struct tally_counts zero = { .id = e->ids[slot] };

	if (out)
		*out = zero;
	if (!store)
		return;
	if (!(e->attr.read_format & PERF_FORMAT_GROUP)) {
		e->counts[slot] = zero;
		return;
	}
	for (struct tally_evsel *m = e; m; m = m->group_next) {
		if (m->opened && m->fds[slot] >= 0) {
			memset(&m->counts[slot], 0, sizeof(m->counts[slot]));
			m->counts[slot].id = m->ids[slot];
		}
	}
}

static int read_fd(struct tally_evsel *e, int c, int t, struct tally_counts *out,
		   bool store)
{
	uint64_t stackbuf[64];
	uint64_t *buf = stackbuf;
	uint64_t rf = e->attr.read_format;
	size_t slot = EVSEL_SLOT(e, c, t);
	size_t sz;
	struct land_ctx ctx = { .leader = e, .slot = slot, .first = out };
	int err = 0, n;

	if (!slot_ok(e, c, t))
		return tally__err(EBADF);
	if (e->fds[slot] < 0) {
		/* A thread that was gone at open: nothing to read, counts stay 0. */
		if (store && e->opened)
			return 0;
		return tally__err(EBADF);
	}
	sz = read_size(rf, (rf & PERF_FORMAT_GROUP) ? open_in_group(e, slot) : 1);
	if (sz > sizeof(stackbuf)) {
		buf = malloc(sz);
		if (!buf)
			return tally__err(ENOMEM);
	}
	{
		ssize_t got;

		do
			got = read(e->fds[slot], buf, sz);
		while (got < 0 && errno == EINTR);
		if (got < 0) {
			err = -errno;
			goto out;
		}
		if (got == 0) {
			land_not_counted(e, slot, out, store);
			err = 0;
			goto out;
		}
		if ((size_t)got != sz) {
			err = -EIO;
			goto out;
		}
	}
	if (!store)
		ctx.leader = NULL;
	if (rf & PERF_FORMAT_GROUP) {
		n = tally__parse_read(buf, sz, rf, land_group, &ctx);
	} else {
		struct tally_counts tmp;

		n = tally__parse_read(buf, sz, rf, land_first, &tmp);
		if (n > 0) {
			if (out)
				*out = tmp;
			if (store)
				e->counts[slot] = tmp;
		}
	}
	if (n < 0)
		err = tally__err(EIO);
out:
	if (buf != stackbuf)
		free(buf);
	if (err)
		errno = -err;
	return err;
}

int tally_evsel__read(struct tally_evsel *e, int c, int t, struct tally_counts *out)
{
	if (!e || !out)
		return tally__err(EINVAL);
	return read_fd(e, c, t, out, false);
}

int tally__evsel_read_slot(struct tally_evsel *e, int c, int t)
{
	return read_fd(e, c, t, NULL, true);
}

void tally__evsel_rotate(struct tally_evsel *e)
{
	if (!e->counts)
		return;
	memcpy(e->prev, e->counts,
	       (size_t)e->nr_cpus * (size_t)e->nr_threads * sizeof(*e->prev));
}

const struct tally_counts *tally_evsel__counts(const struct tally_evsel *e, int c, int t)
{
	if (!e || !e->counts || c < 0 || t < 0 || c >= e->nr_cpus || t >= e->nr_threads)
		return NULL;
	return &e->counts[EVSEL_SLOT(e, c, t)];
}

const struct tally_counts *tally_evsel__prev_counts(const struct tally_evsel *e, int c, int t)
{
	if (!e || !e->prev || c < 0 || t < 0 || c >= e->nr_cpus || t >= e->nr_threads)
		return NULL;
	return &e->prev[EVSEL_SLOT(e, c, t)];
}

int tally_evsel__read_all(struct tally_evsel *e)
{
	int err;

	if (!e)
		return tally__err(EINVAL);
	if (!e->opened)
		return tally__err(EBADF);
	tally__evsel_rotate(e);
	for (int c = 0; c < e->nr_cpus; c++)
		for (int t = 0; t < e->nr_threads; t++) {
			err = tally__evsel_read_slot(e, c, t);
			if (err)
				return err;
		}
	return 0;
}
