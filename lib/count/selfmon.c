// SPDX-License-Identifier: MIT
/*
 * Self-monitoring: one group of events on the calling thread, read around
 * a code region. Fast path: the mmap page + rdpmc/mrs (lib/mmap_page.c),
 * no syscall; fallback: one read() of the whole group.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tally/cpumap.h>
#include <tally/events.h>
#include <tally/selfmon.h>
#include <tally/sys.h>
#include "internal.h"
#include "events_internal.h"

#define TIMES_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define GROUP_FORMAT (PERF_FORMAT_GROUP | TIMES_FORMAT)

/* arm64 PMUv3 format bits in config1 (Linux 5.18: "long", "rdpmc"). */
#define ARM64_CONFIG1_LONG	(1ull << 0)
#define ARM64_CONFIG1_RDPMC	(1ull << 1)

struct tally_selfmon {
	size_t nr;
	int *fds;
	void **pages;			/* nr first pages, or NULL: no fast path */
	size_t page_size;
	enum tally_selfmon_path fast;	/* the path to try first */
	enum tally_selfmon_path last;	/* the path the last read took */
	bool started;
	/*
	 * The read buffer: nr, ena, run, v[nr] for a group; a lone event is
	 * read without PERF_FORMAT_GROUP (v, ena, run), which the kernel does
	 * about a fifth faster. grp_val/ena/run index into it.
	 */
	uint64_t *grp;
	size_t grp_len;
	unsigned int grp_val, grp_ena, grp_run;
	struct tally_selfmon_value *start;
	struct tally_selfmon_value *now;
	char **names;			/* nr names, or NULL */
};

static enum tally_selfmon_path native_path(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return TALLY_SELFMON_PATH_RDPMC;
#elif defined(__aarch64__)
	return TALLY_SELFMON_PATH_MRS;
#else
	return TALLY_SELFMON_PATH_READ;
#endif
}

const char *tally_selfmon_path__name(enum tally_selfmon_path path)
{
	switch (path) {
	case TALLY_SELFMON_PATH_READ:	return "read";
	case TALLY_SELFMON_PATH_RDPMC:	return "rdpmc";
	case TALLY_SELFMON_PATH_MRS:	return "mrs";
	}
	return "unknown";
}

/* Events whose PMU never puts them on a counter register (index is 0). */
static bool never_user_readable(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE ||
	       attr->type == PERF_TYPE_TRACEPOINT ||
	       attr->type == PERF_TYPE_BREAKPOINT;
}

/*
 * A core PMU's event: the generic types, or one opened by a core PMU's own
 * type (armv8_pmuv3_0/event=0x11/, as a big.LITTLE machine needs: the
 * kernel gives user access only to a task on one PMU's cores).
 */
static bool is_cpu_pmu_event(const struct perf_event_attr *attr, const char *sysfs)
{
	char names[TALLY_MAX_CORE_PMUS][TALLY_PMU_NAME_MAX];
	int types[TALLY_MAX_CORE_PMUS], n;

	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE ||
	    attr->type == PERF_TYPE_RAW)
		return true;
	if (attr->type < PERF_TYPE_MAX)
		return false;
	n = tally__pmu_core_list(sysfs, names, types, TALLY_MAX_CORE_PMUS);
	for (int i = 0; i < n; i++)
		if ((uint32_t)types[i] == attr->type)
			return true;
	return false;
}

/*
 * arm64 PMUv3 user access (Linux 5.18): config1 bit 1 asks for it; bit 0
 * for a 64-bit counter unless the caller chose a width. Returns whether
 * bit 0 was added here (a PMU without 64-bit counters may refuse it: the
 * open retries with 32). Not a core PMU's event: nothing changes.
 */
bool tally__selfmon_user_bits(struct perf_event_attr *attr, const char *sysfs)
{
	bool added_long;

	if (!is_cpu_pmu_event(attr, sysfs ? sysfs : "/sys"))
		return false;
	added_long = !(attr->config1 & ARM64_CONFIG1_LONG) &&
		     !(attr->config1 & ARM64_CONFIG1_RDPMC);
	if (added_long)
		attr->config1 |= ARM64_CONFIG1_LONG;
	attr->config1 |= ARM64_CONFIG1_RDPMC;
	return added_long;
}

/* The core PMU an event names: by its type, or a hybrid event's extended type. */
static uint32_t pmu_type_of(const struct perf_event_attr *attr)
{
	if (attr->type >= PERF_TYPE_MAX)
		return attr->type;
	if (attr->type == PERF_TYPE_HARDWARE || attr->type == PERF_TYPE_HW_CACHE)
		return (uint32_t)(attr->config >> 32);
	return 0;
}

/*
 * big.LITTLE: the kernel gives a task user access to a PMU's counters only
 * while it is pinned to that PMU's cores (the kernel's arm64 perf.rst,
 * "About heterogeneous systems"). The cpus (the PMU's cpus file) to pin
 * to: 1 with *set filled; 0 when no event names a core PMU (nothing to
 * pin); -EXDEV when they name two (no one set of cores has both).
 */
int tally__selfmon_pin_set(const struct perf_event_attr *attrs, size_t nr, const char *sysfs,
			   cpu_set_t *set)
{
	char names[TALLY_MAX_CORE_PMUS][TALLY_PMU_NAME_MAX];
	int types[TALLY_MAX_CORE_PMUS], n, pmu = -1;
	struct tally_cpu_map *map;
	struct tally_cpu cpu;
	int idx;

	n = tally__pmu_core_list(sysfs ? sysfs : "/sys", names, types, TALLY_MAX_CORE_PMUS);
	for (size_t i = 0; i < nr; i++) {
		uint32_t t = pmu_type_of(&attrs[i]);

		for (int k = 0; t && k < n; k++) {
			if ((uint32_t)types[k] != t)
				continue;
			if (pmu >= 0 && pmu != k)
				return tally__err(EXDEV);
			pmu = k;
		}
	}
	if (pmu < 0)
		return 0;
	map = tally_cpu_map__new_pmu(sysfs ? sysfs : "/sys", names[pmu]);
	if (!map)
		return -errno;
	CPU_ZERO(set);
	tally_cpu_map__for_each_cpu(cpu, idx, map)
		if (cpu.cpu >= 0 && cpu.cpu < CPU_SETSIZE)
			CPU_SET(cpu.cpu, set);
	tally_cpu_map__put(map);
	return 1;
}

#if defined(__aarch64__)
/* kernel.perf_user_access (Linux 5.18): user counter access is opt-in. */
static bool arm64_user_access_enabled(void)
{
	char buf[16];

	if (tally__read_file("/proc/sys/kernel/perf_user_access", buf, sizeof(buf)) < 0)
		return false;
	return buf[0] == '1';
}
#endif

void tally_selfmon__free(struct tally_selfmon *sm)
{
	if (!sm)
		return;
	for (size_t i = 0; i < sm->nr; i++) {
		if (sm->pages && sm->pages[i])
			munmap(sm->pages[i], sm->page_size);
		if (sm->fds && sm->fds[i] >= 0)
			close(sm->fds[i]);
	}
	if (sm->names)
		for (size_t i = 0; i < sm->nr; i++)
			free(sm->names[i]);
	free(sm->names);
	free(sm->pages);
	free(sm->fds);
	free(sm->grp);
	free(sm->start);
	free(sm->now);
	free(sm);
}

static void unmap_pages(struct tally_selfmon *sm)
{
	if (!sm->pages)
		return;
	for (size_t i = 0; i < sm->nr; i++)
		if (sm->pages[i])
			munmap(sm->pages[i], sm->page_size);
	free(sm->pages);
	sm->pages = NULL;
}

static int open_one(struct perf_event_attr *attr, int group_fd, size_t i,
		    bool added_long)
{
	int fd = tally_sys_open(attr, 0, -1, group_fd, 0);

	if (fd >= 0 || !(attr->config1 & ARM64_CONFIG1_LONG))
		return fd;
	if (fd == -EOPNOTSUPP && added_long) {
		/*
		 * No 64-bit counter without chaining two: take a 32-bit one,
		 * whose upper bits tally_page__read() masks per pmc_width.
		 */
		pr_debug("selfmon: event %zu: no 64-bit user counter, using 32 bits\n", i);
		attr->config1 &= ~ARM64_CONFIG1_LONG;
		return tally_sys_open(attr, 0, -1, group_fd, 0);
	}
	if (fd == -EOPNOTSUPP || fd == -EINVAL) {
		pr_warn("selfmon: event %zu asks for a 64-bit counter (config1 bit 0) with "
			"user access, which this PMU can only give by chaining two 32-bit "
			"counters; chained events cannot be read from user space. Clear "
			"config1 bit 0 (a 32-bit counter) or set no_user_access.\n", i);
		return tally__err(EOPNOTSUPP);
	}
	return fd;
}

struct tally_selfmon *tally_selfmon__new(const struct perf_event_attr *attrs, size_t nr,
					 const struct tally_selfmon_opts *opts)
{
	struct tally_selfmon *sm;
	bool enable, fast, user_access;
	long psz;
	int err;

	if (!attrs || !nr || !TALLY_OPTS_VALID(opts, tally_selfmon_opts))
		return tally__err_ptr(EINVAL);
	/* Far beyond any PMU's counters or the kernel's group read size. */
	if (nr > 4096)
		return tally__err_ptr(E2BIG);
	enable = TALLY_OPTS_GET(opts, enable, false);
	fast = !TALLY_OPTS_GET(opts, no_fast, false) &&
	       native_path() != TALLY_SELFMON_PATH_READ;
	user_access = fast && !TALLY_OPTS_GET(opts, no_user_access, false);
#if defined(__aarch64__)
	if (user_access && !arm64_user_access_enabled()) {
		pr_debug("selfmon: kernel.perf_user_access is 0: read() only\n");
		user_access = false;
	}
	if (user_access && !TALLY_OPTS_GET(opts, no_pin, false)) {
		cpu_set_t set;
		int r = tally__selfmon_pin_set(attrs, nr, NULL, &set);

		if (r < 0 || (r == 1 && sched_setaffinity(0, sizeof(set), &set))) {
			pr_debug("selfmon: cannot pin to one core PMU's cpus: read() only\n");
			user_access = false;
		}
	}
#endif
	for (size_t i = 0; i < nr; i++)
		if (never_user_readable(&attrs[i]))
			fast = false;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return tally__err_ptr(ENOMEM);
	sm->nr = nr;
	psz = sysconf(_SC_PAGESIZE);
	sm->page_size = psz > 0 ? (size_t)psz : 4096;
	sm->fds = tally__calloc(nr, sizeof(*sm->fds));
	if (nr == 1) {
		sm->grp_len = 3 * sizeof(uint64_t);
		sm->grp_val = 0, sm->grp_ena = 1, sm->grp_run = 2;
	} else {
		sm->grp_len = (3 + nr) * sizeof(uint64_t);
		sm->grp_val = 3, sm->grp_ena = 1, sm->grp_run = 2;
	}
	/* Cache-line aligned: the kernel copies the whole group into it. */
	sm->grp = aligned_alloc(64, (sm->grp_len + 63) & ~(size_t)63);
	sm->start = tally__calloc(nr, sizeof(*sm->start));
	sm->now = tally__calloc(nr, sizeof(*sm->now));
	if (!sm->fds || !sm->grp || !sm->start || !sm->now) {
		err = -ENOMEM;
		goto err;
	}
	for (size_t i = 0; i < nr; i++)
		sm->fds[i] = -1;

	for (size_t i = 0; i < nr; i++) {
		struct perf_event_attr attr = attrs[i];
		bool added_long = false;
		int fd;

		attr.read_format = nr > 1 ? GROUP_FORMAT : TIMES_FORMAT;
		/*
		 * The leader opens disabled even when asked to count at once:
		 * a member added to a group that is already counting is not
		 * scheduled until the group next is (a context switch), and
		 * counts nothing until then. It is enabled below.
		 */
		attr.disabled = i == 0;
#if defined(__aarch64__)
		if (user_access)
			added_long = tally__selfmon_user_bits(&attr, NULL);
#endif
		(void)user_access;
		fd = open_one(&attr, i ? sm->fds[0] : -1, i, added_long);
		if (fd < 0) {
			err = fd;
			pr_debug("selfmon: event %zu (type %u config %#llx): open: %s\n", i,
				 attr.type, (unsigned long long)attr.config, strerror(-err));
			goto err;
		}
		sm->fds[i] = fd;
	}

	if (fast) {
		sm->pages = tally__calloc(nr, sizeof(*sm->pages));
		if (!sm->pages) {
			err = -ENOMEM;
			goto err;
		}
		for (size_t i = 0; i < nr; i++) {
			void *p = mmap(NULL, sm->page_size, PROT_READ, MAP_SHARED,
				       sm->fds[i], 0);

			if (p == MAP_FAILED) {
				pr_debug("selfmon: mmap of event %zu: %s: read() only\n",
					 i, strerror(errno));
				unmap_pages(sm);
				fast = false;
				break;
			}
			sm->pages[i] = p;
		}
	}
	sm->fast = fast ? native_path() : TALLY_SELFMON_PATH_READ;
	sm->last = sm->fast;
	if (enable) {
		err = tally_sys_enable(sm->fds[0], true);
		if (err)
			goto err;
	}
	return sm;
err:
	tally_selfmon__free(sm);
	return tally__err_ptr(-err);
}

struct tally_selfmon *tally_selfmon__new_events(const char *spec,
						const struct tally_selfmon_opts *opts)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error perr;
	struct perf_event_attr *attrs = NULL;
	struct tally_selfmon *sm = NULL;
	int err;

	if (!spec)
		return tally__err_ptr(EINVAL);
	err = tally_parse_events(spec, NULL, &evs, &perr);
	if (err) {
		char msg[512];

		if (tally_parse_error__format(&perr, spec, msg, sizeof(msg)) >= 0)
			pr_warn("%s\n", msg);
		return tally__err_ptr(-err);
	}
	if (!evs.nr) {
		err = -EINVAL;
		goto out;
	}
	attrs = tally__calloc(evs.nr, sizeof(*attrs));
	if (!attrs) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < evs.nr; i++) {
		attrs[i] = evs.ev[i].attr;
		/*
		 * Counting only: the parser gives tracepoints perf record's
		 * sample_period 1, which would make every hit an overflow.
		 */
		attrs[i].sample_period = 0;
		attrs[i].freq = 0;
	}
	sm = tally_selfmon__new(attrs, evs.nr, opts);
	if (!sm) {
		err = -errno;
		goto out;
	}
	sm->names = tally__calloc(evs.nr, sizeof(*sm->names));
	if (!sm->names) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < evs.nr; i++) {
		sm->names[i] = strdup(evs.ev[i].name ? evs.ev[i].name : "");
		if (!sm->names[i]) {
			err = -ENOMEM;
			goto out;
		}
	}
	err = 0;
out:
	free(attrs);
	tally_events__clear(&evs);
	if (err) {
		tally_selfmon__free(sm);
		return tally__err_ptr(-err);
	}
	return sm;
}

const char *tally_selfmon__name(const struct tally_selfmon *sm, size_t idx)
{
	static const char *generic[] = { "event0", "event1", "event2", "event3",
					 "event4", "event5", "event6", "event7" };

	if (!sm || idx >= sm->nr)
		return tally__err_ptr(EINVAL);
	if (sm->names)
		return sm->names[idx];
	return idx < ARRAY_SIZE(generic) ? generic[idx] : "event";
}

int tally_selfmon__nr(const struct tally_selfmon *sm)
{
	if (!sm)
		return tally__err(EINVAL);
	return (int)sm->nr;
}

int tally_selfmon__fd(const struct tally_selfmon *sm, size_t idx)
{
	if (!sm || idx >= sm->nr)
		return tally__err(EINVAL);
	return sm->fds[idx];
}

const struct perf_event_mmap_page *tally_selfmon__page(const struct tally_selfmon *sm,
						       size_t idx)
{
	if (!sm || idx >= sm->nr)
		return tally__err_ptr(EINVAL);
	if (!sm->pages)
		return tally__err_ptr(ENODATA);
	return sm->pages[idx];
}

enum tally_selfmon_path tally_selfmon__path(const struct tally_selfmon *sm)
{
	return sm ? sm->last : TALLY_SELFMON_PATH_READ;
}

int tally_selfmon__enable(struct tally_selfmon *sm)
{
	if (!sm)
		return tally__err(EINVAL);
	return tally_sys_enable(sm->fds[0], true);
}

int tally_selfmon__disable(struct tally_selfmon *sm)
{
	if (!sm)
		return tally__err(EINVAL);
	return tally_sys_disable(sm->fds[0], true);
}

int tally_selfmon__reset(struct tally_selfmon *sm)
{
	if (!sm)
		return tally__err(EINVAL);
	return tally_sys_reset(sm->fds[0], true);
}

static int read_group(struct tally_selfmon *sm, struct tally_selfmon_value *vals)
{
	const uint64_t *g = sm->grp;
	int err;

	err = tally_sys_read(sm->fds[0], sm->grp, sm->grp_len);
	if (err < 0)
		return err;
	if (sm->nr > 1 && g[0] != sm->nr)
		return tally__err(EIO);
	for (size_t i = 0; i < sm->nr; i++) {
		vals[i].val = g[sm->grp_val + i];
		vals[i].enabled = g[sm->grp_ena];
		vals[i].running = g[sm->grp_run];
	}
	sm->last = TALLY_SELFMON_PATH_READ;
	return 0;
}

/* The hot path: no allocation, no syscall unless some event is off the PMU. */
int tally_selfmon__read_raw(struct tally_selfmon *sm, struct tally_selfmon_value *vals)
{
	if (__builtin_expect(!sm || !vals, 0))
		return tally__err(EINVAL);
	if (sm->fast != TALLY_SELFMON_PATH_READ) {
		struct tally_page_read r;
		size_t i;

		for (i = 0; i < sm->nr; i++) {
			if (tally__page_read_native(sm->pages[i], 0, &r))
				break;
			vals[i].val = r.count;
			vals[i].enabled = r.enabled;
			vals[i].running = r.running;
		}
		if (i == sm->nr) {
			sm->last = sm->fast;
			return 0;
		}
	}
	return read_group(sm, vals);
}

int tally_selfmon__read(struct tally_selfmon *sm, uint64_t *vals)
{
	int err;

	if (!sm || !vals)
		return tally__err(EINVAL);
	if (sm->fast == TALLY_SELFMON_PATH_READ) {
		/* Scale straight out of the group buffer: no copy. */
		const uint64_t *g = sm->grp;

		err = tally_sys_read(sm->fds[0], sm->grp, sm->grp_len);
		if (err < 0)
			return err;
		if (sm->nr > 1 && g[0] != sm->nr)
			return tally__err(EIO);
		if (g[sm->grp_ena] == g[sm->grp_run]) {
			memcpy(vals, g + sm->grp_val, sm->nr * sizeof(*vals));
		} else {
			for (size_t i = 0; i < sm->nr; i++)
				vals[i] = tally_page__scale(g[sm->grp_val + i], g[sm->grp_ena],
							    g[sm->grp_run]);
		}
		sm->last = TALLY_SELFMON_PATH_READ;
		return 0;
	}
	err = tally_selfmon__read_raw(sm, sm->now);
	if (err)
		return err;
	for (size_t i = 0; i < sm->nr; i++)
		vals[i] = tally_page__scale(sm->now[i].val, sm->now[i].enabled,
					    sm->now[i].running);
	return 0;
}

int tally_selfmon__start(struct tally_selfmon *sm)
{
	int err;

	if (!sm)
		return tally__err(EINVAL);
	err = tally_selfmon__read_raw(sm, sm->start);
	sm->started = !err;
	return err;
}

int tally_selfmon__stop(struct tally_selfmon *sm, uint64_t *deltas)
{
	int err;

	if (!sm || !deltas)
		return tally__err(EINVAL);
	if (!sm->started)
		return tally__err(EINVAL);
	err = tally_selfmon__read_raw(sm, sm->now);
	if (err)
		return err;
	for (size_t i = 0; i < sm->nr; i++) {
		const struct tally_selfmon_value *a = &sm->start[i], *b = &sm->now[i];

		/*
		 * Each delta is scaled by its own window's enabled/running.
		 * On the fast path the times are only extrapolated when they
		 * differ, so equal times mean "not multiplexed": ratio 1.
		 */
		deltas[i] = tally_page__scale(b->val - a->val, b->enabled - a->enabled,
					      b->running - a->running);
	}
	return 0;
}

int tally_selfmon__set_signal(struct tally_selfmon *sm, size_t idx, int signo)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID };
	int fd, fl;

	if (!sm || idx >= sm->nr || signo < 0)
		return tally__err(EINVAL);
	fd = sm->fds[idx];
	owner.pid = gettid();
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0)
		return tally__err(errno);
	if (fcntl(fd, F_SETSIG, signo) < 0)
		return tally__err(errno);
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) < 0)
		return tally__err(errno);
	return 0;
}

int tally_selfmon__refresh(struct tally_selfmon *sm, size_t idx, int n)
{
	if (!sm || idx >= sm->nr)
		return tally__err(EINVAL);
	return tally_sys_refresh(sm->fds[idx], n);
}

int tally_selfmon__set_period(struct tally_selfmon *sm, size_t idx, uint64_t period)
{
	if (!sm || idx >= sm->nr)
		return tally__err(EINVAL);
	return tally_sys_period(sm->fds[idx], period);
}

int tally_selfmon__id(struct tally_selfmon *sm, size_t idx, uint64_t *id)
{
	if (!sm || idx >= sm->nr || !id)
		return tally__err(EINVAL);
	return tally_sys_id(sm->fds[idx], id);
}
