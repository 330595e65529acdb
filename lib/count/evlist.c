// SPDX-License-Identifier: MIT
/*
 * Event lists: evsels in order, with groups, opened/enabled/read/closed
 * as a whole, and an id index for sample decoding.
 */
#include <sched.h>
#include <sys/resource.h>
#include <stdio.h>
#include <tally/sys.h>
#include "internal.h"
#include "evsel_internal.h"

struct tally_evlist *tally_evlist__new(void)
{
	struct tally_evlist *l = calloc(1, sizeof(*l));

	if (!l)
		return tally__err_ptr(ENOMEM);
	l->epfd = -1;
	return l;
}

void tally_evlist__free(struct tally_evlist *l)
{
	if (!l)
		return;
	tally_evlist__close(l);
	for (int i = 0; i < l->nr; i++) {
		l->ev[i]->evlist = NULL;
		tally_evsel__free(l->ev[i]);
	}
	free(l->ev);
	free(l->ids);
	tally_cpu_map__put(l->cpus);
	tally_thread_map__put(l->threads);
	free(l);
}

/* Internal: 0 or -ENOMEM (the public add is void, as libperf's). */
static int evlist_add(struct tally_evlist *l, struct tally_evsel *e)
{
	if (l->nr == l->cap) {
		int ncap = l->cap ? l->cap * 2 : 8;
		void *n = tally__reallocarray(l->ev, (size_t)ncap, sizeof(*l->ev));

		if (!n)
			return tally__err(ENOMEM);
		l->ev = n;
		l->cap = ncap;
	}
	e->idx = l->nr;
	e->evlist = l;
	l->ev[l->nr++] = e;
	return 0;
}

void tally_evlist__add(struct tally_evlist *l, struct tally_evsel *e)
{
	if (!l || !e || e->evlist)
		return;
	if (evlist_add(l, e)) {
		/* We own it now: do not leak it. */
		pr_warn("tally: out of memory adding event %s\n", e->name);
		tally_evsel__free(e);
	}
}

int tally_evlist__set_group(struct tally_evlist *l, struct tally_evsel *leader, int nr)
{
	int start;

	if (!l || !leader || leader->evlist != l || nr < 1)
		return tally__err(EINVAL);
	start = leader->idx;
	if (nr > l->nr - start)	/* not start + nr: that can overflow */
		return tally__err(EINVAL);
	for (int i = start; i < start + nr; i++) {
		struct tally_evsel *e = l->ev[i];

		if (e->leader != e || e->nr_members != 1 || e->opened)
			return tally__err(EINVAL);
	}
	/*
	 * Tool events (duration_time...: nothing to open) keep their place
	 * in the list but stay alone; the kernel group is the others, led
	 * by the first of them. (perf 6.1 opens a dummy for them inside the
	 * group, and a dummy leader leaves its members not counted.)
	 */
	{
		struct tally_evsel *first = NULL, *prev = NULL;
		int n = 0;

		for (int i = start; i < start + nr; i++) {
			struct tally_evsel *e = l->ev[i];

			if (tally_evsel__tool(e))
				continue;
			if (!first)
				first = e;
			e->leader = first;
			e->group_next = NULL;
			if (prev)
				prev->group_next = e;
			prev = e;
			n++;
		}
		if (first)
			first->nr_members = n;
	}
	return 0;
}

int tally_evlist__nr(const struct tally_evlist *l)
{
	return l ? l->nr : 0;
}

int tally_evlist__nr_groups(const struct tally_evlist *l)
{
	int n = 0;

	if (!l)
		return 0;
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i]->leader == l->ev[i] && l->ev[i]->nr_members > 1)
			n++;
	return n;
}

struct tally_evsel *tally_evlist__first(const struct tally_evlist *l)
{
	return l && l->nr ? l->ev[0] : NULL;
}

struct tally_evsel *tally_evlist__last(const struct tally_evlist *l)
{
	return l && l->nr ? l->ev[l->nr - 1] : NULL;
}

struct tally_evsel *tally_evlist__next(const struct tally_evlist *l,
				       const struct tally_evsel *prev)
{
	if (!l)
		return NULL;
	if (!prev)
		return tally_evlist__first(l);
	if (prev->evlist != l || prev->idx + 1 >= l->nr)
		return NULL;
	return l->ev[prev->idx + 1];
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_ent *)a)->id, y = ((const struct id_ent *)b)->id;

	return (x > y) - (x < y);
}

static int build_id_index(struct tally_evlist *l)
{
	size_t n = 0, k = 0;

	free(l->ids);
	l->ids = NULL;
	l->nr_ids = 0;
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i]->opened)
			n += (size_t)l->ev[i]->nr_cpus * (size_t)l->ev[i]->nr_threads;
	if (!n)
		return 0;
	l->ids = tally__calloc(n, sizeof(*l->ids));
	if (!l->ids)
		return tally__err(ENOMEM);
	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];

		if (!e->opened)
			continue;
		for (size_t s = 0; s < (size_t)e->nr_cpus * (size_t)e->nr_threads; s++) {
			if (e->fds[s] < 0)
				continue;
			l->ids[k].id = e->ids[s];
			l->ids[k].evsel = e;
			l->ids[k].cpu = tally_cpu_map__cpu(e->cpus, (int)(s / (size_t)e->nr_threads)).cpu;
			l->ids[k].tid = tally_thread_map__pid(e->threads, (int)(s % (size_t)e->nr_threads));
			k++;
		}
	}
	qsort(l->ids, k, sizeof(*l->ids), cmp_id);
	l->nr_ids = k;
	return 0;
}

struct tally_evsel *tally_evlist__find_id(const struct tally_evlist *l, uint64_t id)
{
	return tally_evlist__id_info(l, id, NULL, NULL);
}

struct tally_evsel *tally_evlist__id_info(const struct tally_evlist *l, uint64_t id,
					  int *cpu, pid_t *tid)
{
	struct id_ent key = { .id = id }, *r;

	if (!l || !l->nr_ids)
		return NULL;
	r = bsearch(&key, l->ids, l->nr_ids, sizeof(*l->ids), cmp_id);
	if (!r)
		return NULL;
	if (cpu)
		*cpu = r->cpu;
	if (tid)
		*tid = r->tid;
	return r->evsel;
}

void tally_evlist__set_attr_bits(struct tally_evlist *l, bool disabled,
				 bool enable_on_exec, bool inherit)
{
	if (!l)
		return;
	l->bits_set = true;
	l->disabled = disabled;
	l->enable_on_exec = enable_on_exec;
	l->inherit = inherit;
}

/*
 * disabled and enable_on_exec go on group leaders only: members follow
 * their leader's state (an enabled member of a disabled leader counts
 * nothing until the leader is enabled, which is what we want).
 */
static void apply_attr_bits(struct tally_evlist *l, struct tally_evsel *e)
{
	bool leader = e->leader == e;

	if (!l->bits_set)
		return;
	e->attr.disabled = leader && l->disabled;
	e->attr.enable_on_exec = leader && l->enable_on_exec;
	e->attr.inherit = l->inherit;
	/* record -D: the events wait for tally_evlist__enable, the side-band does not */
	if (l->delayed && !e->side_dummy) {
		e->attr.disabled = leader;
		e->attr.enable_on_exec = 0;
	}
}

/* RLIMIT_NOFILE must cover every fd we are about to open. */
static void ensure_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur != RLIM_INFINITY && need + 64 > rl.rlim_cur)
		tally_raise_nofile_limit();
}

/* Close and ungroup leader's group; returns the leader's index. */
static int break_group(struct tally_evlist *l, struct tally_evsel *leader)
{
	struct tally_evsel *m, *next;

	pr_debug("tally: weak group %s does not fit, opening its events alone\n",
		 leader->name);
	for (m = leader; m; m = next) {
		next = m->group_next;
		tally_evsel__close(m);
		m->leader = m;
		m->group_next = NULL;
		m->nr_members = 1;
		m->attr.read_format &= ~(uint64_t)PERF_FORMAT_GROUP;
		m->unsupported = false;
		m->open_err = 0;
		if (m->enable_after_open) {
			m->attr.disabled = 0;
			m->enable_after_open = false;
		}
		apply_attr_bits(l, m);
	}
	return leader->idx;
}

int tally_evlist__open(struct tally_evlist *l, struct tally_cpu_map *cpus,
		       struct tally_thread_map *threads,
		       const struct tally_evlist_open_opts *opts)
{
	struct tally_cpu_map *any_c = NULL;
	struct tally_thread_map *any_t = NULL;
	bool skip = TALLY_OPTS_GET(opts, skip_unsupported, false);
	unsigned long flags = TALLY_OPTS_GET(opts, flags, 0);
	int cgroup_fd = TALLY_OPTS_GET(opts, cgroup_fd, -1);
	int first_err = 0, nopen = 0, err = 0;

	if (!l || !TALLY_OPTS_VALID(opts, tally_evlist_open_opts))
		return tally__err(EINVAL);
	if (!l->nr)
		return tally__err(EINVAL);
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i]->opened)
			return tally__err(EBUSY);	/* close first; keep what is open */
	if (!cpus)
		cpus = any_c = tally_cpu_map__new_any();
	if (!threads)
		threads = any_t = tally_thread_map__new_any();
	if (!cpus || !threads) {
		err = -ENOMEM;
		goto out;
	}
	if (tally_cpu_map__is_any(cpus) && tally_thread_map__pid(threads, 0) == -1) {
		/* Neither a CPU nor a task: the kernel has nothing to count on. */
		err = -EINVAL;
		goto out;
	}
	tally_cpu_map__get(cpus);
	tally_cpu_map__put(l->cpus);
	l->cpus = cpus;
	tally_thread_map__get(threads);
	tally_thread_map__put(l->threads);
	l->threads = threads;

	ensure_nofile((size_t)l->nr * (size_t)tally_cpu_map__nr(cpus) *
		      (size_t)tally_thread_map__nr(threads));

	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];
		struct tally_cpu_map *ecpus = cpus, *tmp = NULL;

		apply_attr_bits(l, e);
		if (e->leader != e) {
			/* A member opens exactly where its leader did. */
			ecpus = e->leader->cpus ? e->leader->cpus : cpus;
		} else if (e->own_cpus && !tally_cpu_map__is_any(cpus)) {
			tmp = tally_cpu_map__intersect(e->own_cpus, cpus);
			if (!tmp) {
				err = -ENOMEM;
				goto fail;
			}
			ecpus = tmp;
		}
		/*
		 * A member opened into a running group is not scheduled
		 * until the task is next switched in (the kernel adds it
		 * to an active group without rescheduling), so its first
		 * counts would be lost: open a group that should start
		 * enabled disabled, and enable it once it is whole.
		 */
		e->enable_after_open = false;
		if (e->leader == e && e->nr_members > 1 && !e->attr.disabled &&
		    !e->attr.enable_on_exec) {
			e->attr.disabled = 1;
			e->enable_after_open = true;
		}
		if (tally_cpu_map__nr(ecpus) == 0)
			err = -ENODEV;	/* its PMU has none of the asked CPUs */
		else
			err = tally__evsel_open_flags(e, ecpus, threads,
				e->cgroup ? flags | PERF_FLAG_PID_CGROUP : flags,
				e->cgroup ? e->cgroup_fd : cgroup_fd);
		if (err == -ENODEV && !e->opened) {
			e->open_err = err;
			e->unsupported = true;
			if (!e->cpus) {
				e->cpus = tally_cpu_map__get(ecpus);
				e->threads = tally_thread_map__get(threads);
			}
		}
		tally_cpu_map__put(tmp);
		if (!err)
			continue;
		if (e->leader != e && e->leader->opened &&
		    (e->leader->ev_flags & TALLY_EV_WEAK_GROUP)) {
			/*
			 * A weak group (:W) that cannot be scheduled together
			 * is opened as separate events, as perf does.
			 */
			i = break_group(l, e->leader) - 1;
			continue;
		}
		if (e->leader != e && e->leader->unsupported)
			e->unsupported = true;
		if (!first_err)
			first_err = err;
		if (skip && e->unsupported) {
			pr_debug("tally: %s not supported here (%s), skipped\n",
				 e->name, strerror(-err));
			continue;
		}
		goto fail;
	}
	for (int i = 0; i < l->nr; i++)
		nopen += l->ev[i]->opened;
	if (!nopen) {
		err = first_err ? first_err : -ENOENT;
		goto fail;
	}
	err = build_id_index(l);
	if (err)
		goto fail;
	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];

		if (!e->enable_after_open)
			continue;
		e->attr.disabled = 0;
		e->enable_after_open = false;
		for (size_t s = 0; e->opened && s < (size_t)e->nr_cpus * (size_t)e->nr_threads; s++) {
			if (e->fds[s] < 0)
				continue;
			err = tally_sys_enable(e->fds[s], true);
			if (err)
				goto fail;
		}
	}
	goto out;
fail:
	for (int i = 0; i < l->nr; i++) {
		if (l->ev[i]->enable_after_open) {
			l->ev[i]->attr.disabled = 0;
			l->ev[i]->enable_after_open = false;
		}
	}
	tally_evlist__close(l);
out:
	tally_cpu_map__put(any_c);
	tally_thread_map__put(any_t);
	if (err)
		errno = -err;
	return err;
}

void tally_evlist__close(struct tally_evlist *l)
{
	if (!l)
		return;
	tally__evlist_munmap(l);
	/* Members before leaders: the reverse of the open order. */
	for (int i = l->nr - 1; i >= 0; i--)
		tally_evsel__close(l->ev[i]);
	free(l->ids);
	l->ids = NULL;
	l->nr_ids = 0;
}

static int group_ioctl(struct tally_evlist *l, int (*fn)(int fd, bool group))
{
	int first = 0, max_cpus = 0;
	cpu_set_t saved, one;
	bool pinned = false;

	if (!l)
		return tally__err(EINVAL);
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i]->opened && l->ev[i]->nr_cpus > max_cpus)
			max_cpus = l->ev[i]->nr_cpus;
	bool affine = max_cpus > 1 && !sched_getaffinity(0, sizeof(saved), &saved);
	/*
	 * CPU by CPU, every event of a CPU together (as perf's evlist__enable):
	 * a CPU's cgroup events then start from one cgroup clock.
	 */
	for (int c = 0; c < max_cpus; c++) {
		int cpu = -1;

		for (int i = 0; i < l->nr && cpu < 0; i++)
			if (l->ev[i]->opened && l->ev[i]->cpus && c < l->ev[i]->nr_cpus)
				cpu = tally_cpu_map__cpu(l->ev[i]->cpus, c).cpu;
		/*
		 * On the CPU itself, as perf: the kernel takes the cgroup of
		 * the task running there when a CPU's first cgroup event is
		 * enabled; from here that is our own, not a counted task.
		 */
		if (affine && cpu >= 0 && cpu < CPU_SETSIZE) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			pinned |= !sched_setaffinity(0, sizeof(one), &one);
		}
		for (int i = 0; i < l->nr; i++) {
			struct tally_evsel *e = l->ev[i];
			bool group = e->nr_members > 1;

			/*
			 * One ioctl per leader with PERF_IOC_FLAG_GROUP covers the
			 * members; an open member of an unopened leader cannot exist.
			 */
			if (e->leader != e || !e->opened || c >= e->nr_cpus)
				continue;
			for (int t = 0; t < e->nr_threads; t++) {
				int fd = e->fds[EVSEL_SLOT(e, c, t)], err;

				if (fd < 0)
					continue;
				err = fn(fd, group);
				if (err && !first)
					first = err;
			}
		}
	}
	if (pinned)
		sched_setaffinity(0, sizeof(saved), &saved);
	if (first)
		errno = -first;
	return first;
}

int tally_evlist__enable(struct tally_evlist *l)
{
	return group_ioctl(l, tally_sys_enable);
}

int tally_evlist__disable(struct tally_evlist *l)
{
	return group_ioctl(l, tally_sys_disable);
}

int tally_evlist__reset(struct tally_evlist *l)
{
	return group_ioctl(l, tally_sys_reset);
}

int tally_evlist__read(struct tally_evlist *l)
{
	int first = 0;

	if (!l)
		return tally__err(EINVAL);
	for (int i = 0; i < l->nr; i++)
		if (l->ev[i]->opened)
			tally__evsel_rotate(l->ev[i]);
	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];

		if (!e->opened)
			continue;
		/* A group read by the leader already landed the members. */
		if (e->leader != e && (e->leader->attr.read_format & PERF_FORMAT_GROUP) &&
		    e->leader->opened)
			continue;
		for (int c = 0; c < e->nr_cpus; c++)
			for (int t = 0; t < e->nr_threads; t++) {
				int err = tally__evsel_read_slot(e, c, t);

				if (err && !first)
					first = err;
			}
	}
	if (first)
		errno = -first;
	return first;
}

int tally_evlist__set_tool_times(struct tally_evlist *l, uint64_t duration_ns,
				 uint64_t user_ns, uint64_t system_ns)
{
	int n = 0;

	if (!l)
		return tally__err(EINVAL);
	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];
		uint64_t v;

		switch (tally_evsel__tool(e)) {
		case TALLY_TOOL_DURATION:
			v = duration_ns;
			break;
		case TALLY_TOOL_USER:
			v = user_ns;
			break;
		case TALLY_TOOL_SYSTEM:
			v = system_ns;
			break;
		default:
			continue;
		}
		if (!e->opened || !e->counts)
			continue;
		/* as perf stat: ena = run = val, so a zero is "not counted" */
		memset(e->counts, 0,
		       (size_t)e->nr_cpus * (size_t)e->nr_threads * sizeof(*e->counts));
		e->counts[0].val = e->counts[0].ena = e->counts[0].run = v;
		n++;
	}
	return n;
}

struct tally_cpu_map *tally_evlist__cpus(const struct tally_evlist *l)
{
	return l ? l->cpus : NULL;
}

struct tally_thread_map *tally_evlist__threads(const struct tally_evlist *l)
{
	return l ? l->threads : NULL;
}

/* One evsel from one parsed event: name, PMU, unit/scale, PMU cpumask, flags. */
static struct tally_evsel *evsel_from_event(const struct tally_event *ev)
{
	struct tally_evsel *e = tally_evsel__new(&ev->attr, ev->name);
	int err = 0;

	if (!e)
		return NULL;
	if (ev->pmu)
		err = tally_evsel__set_pmu(e, ev->pmu);
	if (!err && ev->unit)
		err = tally_evsel__set_unit(e, ev->unit, ev->scale);
	else if (!err && ev->scale != 0 && ev->scale != 1.0)
		err = tally_evsel__set_unit(e, NULL, ev->scale);
	if (!err && ev->cpus && *ev->cpus) {
		struct tally_cpu_map *m = tally_cpu_map__new(ev->cpus);

		if (!m)
			err = -errno;
		tally_evsel__set_own_cpus(e, m);
		tally_cpu_map__put(m);
	}
	e->ev_flags = ev->flags;
	if (err) {
		tally_evsel__free(e);
		return tally__err_ptr(-err);
	}
	return e;
}

int tally_evlist__add_parsed(struct tally_evlist *l, const char *spec,
			     const struct tally_parse_opts *opts,
			     struct tally_parse_error *perr)
{
	struct tally_events evs = { 0 };
	struct tally_evsel **made;
	int err, base;

	if (!l || !spec)
		return tally__err(EINVAL);
	err = tally_parse_events(spec, opts, &evs, perr);
	if (err)
		return err < 0 ? err : tally__err(EINVAL);
	made = tally__calloc(evs.nr, sizeof(*made));
	if (!made) {
		tally_events__clear(&evs);
		return tally__err(ENOMEM);
	}
	/* Build everything first so a failure appends nothing. */
	for (size_t i = 0; i < evs.nr; i++) {
		made[i] = evsel_from_event(&evs.ev[i]);
		if (!made[i]) {
			err = -errno;
			goto fail;
		}
	}
	base = l->nr;
	for (size_t i = 0; i < evs.nr; i++) {
		err = evlist_add(l, made[i]);
		if (err) {
			/* Undo: the evsels from made[i] on are still ours. */
			for (size_t j = 0; j < i; j++) {
				made[j]->evlist = NULL;
				l->nr--;
			}
			goto fail;
		}
	}
	/* Groups: a run of events with the same group number >= 0. */
	for (size_t i = 0; i < evs.nr;) {
		size_t j = i + 1;

		if (evs.ev[i].group < 0) {
			i++;
			continue;
		}
		while (j < evs.nr && evs.ev[j].group == evs.ev[i].group && !evs.ev[j].leader)
			j++;
		if (j - i > 1) {
			err = tally_evlist__set_group(l, l->ev[base + (int)i], (int)(j - i));
			if (err)
				pr_warn("tally: could not group %s\n", evs.ev[i].name);
		}
		i = j;
	}
	free(made);
	tally_events__clear(&evs);
	return 0;
fail:
	for (size_t i = 0; i < evs.nr; i++)
		tally_evsel__free(made[i]);
	free(made);
	tally_events__clear(&evs);
	return tally__err(-err);
}
