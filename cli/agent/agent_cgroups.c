// SPDX-License-Identifier: MIT
/*
 * --metrics-listen's counters per cgroup (v2): every cgroup down to the
 * asked depth, the root "/" being the whole machine, counted with one
 * event per CPU per cgroup opened with PERF_FLAG_PID_CGROUP (as stat
 * -G). A cgroup's counts take in its descendants' (the kernel matches a
 * task's cgroup or any ancestor). The tree is walked again at a scrape
 * (at most once a second) and on the server's idle tick: new cgroups are
 * opened, removed ones closed (their series go). Event fds are bounded:
 * cgroups past the bound are left out, said on stderr and counted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include "agent_metrics.h"

#define CG_DEFAULT_MAX_FDS	16384

static const struct cg_event {
	const char *name;	/* the event, for messages */
	uint32_t type;
	uint64_t config;
	const char *family;
	const char *unit;
	const char *help;
	bool ns;		/* a time in ns, written as seconds */
} cg_events[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
	  "tally_cgroup_task_clock_seconds", "seconds",
	  "CPU time of the cgroup's tasks (task-clock; the root: every CPU's time, idle too)", true },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "tally_cgroup_context_switches", NULL,
	  "Context switches of the cgroup's tasks (each time one left a CPU)", false },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
	  "tally_cgroup_page_faults", NULL, "Page faults of the cgroup's tasks", false },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  "tally_cgroup_cycles", NULL,
	  "CPU cycles in the cgroup's tasks (scaled where multiplexed)", false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  "tally_cgroup_instructions", NULL,
	  "Instructions retired in the cgroup's tasks (scaled where multiplexed)", false },
};
#define CG_NEV ((int)(sizeof(cg_events) / sizeof(cg_events[0])))

enum hw_state { HW_UNKNOWN, HW_YES, HW_NO };

struct cg_entry {
	char *path;		/* "/" or "/a/b": the label */
	int depth;
	ino_t ino;		/* a cgroup made again under the same name is a new one */
	int dirfd;
	int nfds;		/* event fds held */
	struct tally_evlist *l;
	struct tally_evsel *ev[CG_NEV];
	uint64_t val[CG_NEV];	/* the last read: never less than the one before */
	bool seen;
};

struct cg_set {
	char mnt[4096];
	int depth;
	size_t max_fds, used_fds;
	int verbose;
	struct tally_cpu_map *cpus;
	int ncpus;
	enum hw_state hw[CG_NEV];
	struct cg_entry **v;
	int n;
	int left_out, said_left_out;
	double last_scan;
};

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The cgroup2 mount: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system. */
static int cgroup2_mount(char *buf, size_t n)
{
	FILE *f = setmntent("/proc/mounts", "re");
	struct mntent *m;
	int ret = -1;

	if (!f)
		return -1;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup2") && strlen(m->mnt_dir) < n) {
			snprintf(buf, n, "%s", m->mnt_dir);
			ret = 0;
			break;
		}
	}
	endmntent(f);
	return ret;
}

static void entry_free(struct cg_set *s, struct cg_entry *c)
{
	if (!c)
		return;
	tally_evlist__free(c->l);	/* closes the events before their cgroup fd */
	if (c->dirfd >= 0)
		close(c->dirfd);
	s->used_fds -= (size_t)c->nfds;
	free(c->path);
	free(c);
}

/* Its events opened on every CPU. 0, or -errno with the reason in err. */
static int entry_open(struct cg_set *s, struct cg_entry *c, char *err, size_t n)
{
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .skip_unsupported = true, .cgroup_fd = -1 };
	int ret, nfds = 1;	/* the directory's, and the events' */
	char no[256] = "";	/* hardware events found unsupported */

	c->l = tally_evlist__new();
	if (!c->l) {
		snprintf(err, n, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (int i = 0; i < CG_NEV; i++) {
		struct perf_event_attr a = { .size = sizeof(a), .type = cg_events[i].type,
					     .config = cg_events[i].config };
		struct tally_evsel *e;

		if (s->hw[i] == HW_NO)
			continue;
		e = tally_evsel__new(&a, cg_events[i].name);
		if (e)
			tally_evlist__add(c->l, e);
		if (!e || tally_evsel__set_cgroup(e, c->dirfd, c->path)) {
			snprintf(err, n, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		c->ev[i] = e;
	}
	ret = tally_evlist__open(c->l, s->cpus, NULL, &oo);
	if (ret) {
		tally_evsel__strerror(tally_evlist__first(c->l), ret, err, n);
		return ret;
	}
	for (int i = 0; i < CG_NEV; i++) {
		if (!c->ev[i])
			continue;
		if (!tally_evsel__is_open(c->ev[i])) {
			if (cg_events[i].type == PERF_TYPE_HARDWARE && s->hw[i] == HW_UNKNOWN) {
				s->hw[i] = HW_NO;
				snprintf(no + strlen(no), sizeof(no) - strlen(no), "%s%s (%s)",
					 no[0] ? ", " : "", cg_events[i].name,
					 strerror(-tally_evsel__open_error(c->ev[i])));
			}
			c->ev[i] = NULL;
			continue;
		}
		if (cg_events[i].type == PERF_TYPE_HARDWARE)
			s->hw[i] = HW_YES;
		nfds += tally_evsel__nr_cpus(c->ev[i]);
	}
	/* once: the first cgroup opened finds it out for all */
	if (no[0] && s->verbose)
		fprintf(stderr, "tally agent: --metrics-listen: not supported here, their series left out: %s\n", no);
	c->nfds = nfds;
	s->used_fds += (size_t)nfds;
	return 0;
}

/* The fds a cgroup would take: an event per CPU for each event still tried, and its directory. */
static size_t entry_cost(const struct cg_set *s)
{
	size_t k = 0;

	for (int i = 0; i < CG_NEV; i++)
		k += s->hw[i] != HW_NO;
	return k * (size_t)s->ncpus + 1;
}

static struct cg_entry *entry_new(struct cg_set *s, const char *path, int depth, char *err, size_t n)
{
	struct cg_entry *c = calloc(1, sizeof(*c));
	char full[8192];
	struct stat st;
	int ret;

	if (!c)
		return NULL;
	c->dirfd = -1;
	c->depth = depth;
	c->path = strdup(path);
	snprintf(full, sizeof(full), "%s%s", s->mnt, strcmp(path, "/") ? path : "");
	c->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!c->path || c->dirfd < 0 || fstat(c->dirfd, &st)) {
		snprintf(err, n, "%s: %s", full, strerror(errno));
		entry_free(s, c);
		return NULL;
	}
	c->ino = st.st_ino;
	ret = entry_open(s, c, err, n);
	if (ret) {
		entry_free(s, c);
		return NULL;
	}
	return c;
}

struct found {
	char *path;
	int depth;
	ino_t ino;
};

static int cmp_found(const void *a, const void *b)
{
	const struct found *x = a, *y = b;

	return x->depth != y->depth ? x->depth - y->depth : strcmp(x->path, y->path);
}

/* Every cgroup down to s->depth, the root first, then by depth and name. */
static int walk(struct cg_set *s, struct found **out)
{
	struct found *v = NULL;
	size_t n = 0, cap = 0;
	char full[8192];

	v = malloc(sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[0] = (struct found){ strdup("/"), 0, 0 };
	n = cap = 1;
	/* breadth first: v grows behind the index */
	for (size_t i = 0; i < n; i++) {
		DIR *d;
		struct dirent *de;

		if (!v[i].path)
			continue;
		snprintf(full, sizeof(full), "%s%s", s->mnt, strcmp(v[i].path, "/") ? v[i].path : "");
		if (v[i].depth >= s->depth || !(d = opendir(full)))
			continue;
		while ((de = readdir(d))) {
			char p[4096];
			struct found *nv;

			if (de->d_type != DT_DIR || de->d_name[0] == '.')
				continue;
			if (snprintf(p, sizeof(p), "%s/%s", strcmp(v[i].path, "/") ? v[i].path : "",
				     de->d_name) >= (int)sizeof(p))
				continue;
			if (n == cap) {
				nv = realloc(v, (cap * 2) * sizeof(*v));
				if (!nv)
					break;
				v = nv;
				cap *= 2;
			}
			v[n++] = (struct found){ strdup(p), v[i].depth + 1, de->d_ino };
		}
		closedir(d);
	}
	qsort(v, n, sizeof(*v), cmp_found);
	*out = v;
	return (int)n;
}

static struct cg_entry *find(struct cg_set *s, const char *path)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i] && !strcmp(s->v[i]->path, path))
			return s->v[i];
	return NULL;
}

void cg_set_scan(struct cg_set *s, bool force)
{
	struct found *f = NULL;
	struct cg_entry **nv;
	int nf, nn = 0, left = 0;
	const char *first_left = NULL;
	char err[256];

	if (!force && mono_s() - s->last_scan < 1.0)
		return;
	s->last_scan = mono_s();
	nf = walk(s, &f);
	if (nf < 0)
		return;
	nv = calloc((size_t)nf + 1, sizeof(*nv));
	if (!nv)
		goto out;
	for (int i = 0; i < s->n; i++)
		s->v[i]->seen = false;
	/* kept: still there, the same cgroup (its inode; the root's d_ino is not read) */
	for (int i = 0; i < nf; i++) {
		struct cg_entry *c = f[i].path ? find(s, f[i].path) : NULL;

		if (c && (!f[i].ino || f[i].ino == c->ino))
			c->seen = true;
	}
	for (int i = 0; i < s->n; i++) {
		if (!s->v[i]->seen) {
			entry_free(s, s->v[i]);
			s->v[i] = NULL;
		}
	}
	/* in the walk's order: new ones while the bound allows */
	for (int i = 0; i < nf; i++) {
		struct cg_entry *c;

		if (!f[i].path)
			continue;
		c = find(s, f[i].path);
		if (c && c->seen) {
			nv[nn++] = c;
			continue;
		}
		if (s->used_fds + entry_cost(s) > s->max_fds) {
			if (!left++)
				first_left = f[i].path;
			continue;
		}
		c = entry_new(s, f[i].path, f[i].depth, err, sizeof(err));
		if (c)
			nv[nn++] = c;
		else if (s->verbose > 1)
			fprintf(stderr, "tally agent: --metrics-listen: cgroup %s not counted: %s\n",
				f[i].path, err);
	}
	/* the kept ones were found again; the rest was freed above */
	free(s->v);
	s->v = nv;
	s->n = nn;
	if (left && left != s->said_left_out)
		fprintf(stderr, "tally agent: --metrics-listen: %d cgroup%s not counted (the first: %s): "
			"counting them would pass the bound of %zu event fds (--metrics-max-fds)\n",
			left, left == 1 ? "" : "s", first_left, s->max_fds);
	s->said_left_out = left;
	s->left_out = left;
out:
	for (int i = 0; i < nf; i++)
		free(f[i].path);
	free(f);
}

struct cg_set *cg_set_new(const struct cg_set_opts *o, char *err, size_t n)
{
	struct cg_set *s = calloc(1, sizeof(*s));
	struct rlimit rl;
	struct cg_entry *root;

	if (!s) {
		snprintf(err, n, "%s", strerror(ENOMEM));
		return NULL;
	}
	s->depth = o->depth;
	s->verbose = o->verbose;
	s->max_fds = o->max_fds;
	if (!s->max_fds) {
		s->max_fds = CG_DEFAULT_MAX_FDS;
		/* half of what this process may open: the rest for the sampler, the sockets */
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_max != RLIM_INFINITY &&
		    rl.rlim_max / 2 < s->max_fds)
			s->max_fds = rl.rlim_max / 2;
	}
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < s->max_fds + 256) {
		rl.rlim_cur = s->max_fds + 256 < rl.rlim_max ? s->max_fds + 256 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (cgroup2_mount(s->mnt, sizeof(s->mnt))) {
		snprintf(err, n, "no cgroup v2 hierarchy is mounted (--metrics-per-process counts without one)");
		goto fail;
	}
	s->cpus = tally_cpu_map__new_online();
	if (!s->cpus) {
		snprintf(err, n, "the online CPUs: %s", strerror(errno));
		goto fail;
	}
	s->ncpus = tally_cpu_map__nr(s->cpus);
	/* the bound is for the others: the root is counted whatever it takes */
	if ((size_t)s->ncpus * 3 + 1 > s->max_fds) {
		snprintf(err, n, "--metrics-max-fds %zu: the root cgroup alone needs %zu", s->max_fds,
			 (size_t)s->ncpus * 3 + 1);
		goto fail;
	}
	/* the root, now: an error here (no privilege) is the agent's at start */
	root = entry_new(s, "/", 0, err, n);
	if (!root)
		goto fail;
	s->v = malloc(sizeof(*s->v));
	if (!s->v) {
		entry_free(s, root);
		goto fail;
	}
	s->v[0] = root;
	s->n = 1;
	cg_set_scan(s, true);
	return s;
fail:
	cg_set_free(s);
	return NULL;
}

void cg_set_free(struct cg_set *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		entry_free(s, s->v[i]);
	free(s->v);
	tally_cpu_map__put(s->cpus);
	free(s);
}

/* Every CPU's count summed (hardware: each scaled for its multiplexing). */
static void entry_read(struct cg_entry *c)
{
	if (tally_evlist__read(c->l))
		return;
	for (int i = 0; i < CG_NEV; i++) {
		uint64_t sum = 0;

		if (!c->ev[i])
			continue;
		for (int k = 0; k < tally_evsel__nr_cpus(c->ev[i]); k++) {
			const struct tally_counts *x = tally_evsel__counts(c->ev[i], k, 0);
			struct tally_scaled sc;

			if (!x)
				continue;
			if (cg_events[i].type == PERF_TYPE_HARDWARE) {
				tally_counts__scale(x, &sc);
				sum += sc.val;
			} else {
				sum += x->val;
			}
		}
		/* a counter never goes down (a scaled estimate could) */
		if (sum > c->val[i])
			c->val[i] = sum;
	}
}

void cg_set_render(struct cg_set *s, struct expo *e)
{
	cg_set_scan(s, false);
	for (int j = 0; j < s->n; j++)
		entry_read(s->v[j]);
	for (int i = 0; i < CG_NEV; i++) {
		bool any = false;

		for (int j = 0; j < s->n && !any; j++)
			any = s->v[j]->ev[i] != NULL;
		if (!any)
			continue;
		expo_family(e, cg_events[i].family, EXPO_COUNTER, cg_events[i].unit, cg_events[i].help);
		for (int j = 0; j < s->n; j++) {
			struct expo_label l = { "cgroup", s->v[j]->path };
			char b[32];

			if (!s->v[j]->ev[i])
				continue;
			if (cg_events[i].ns) {
				expo_fmt_ns(b, sizeof(b), s->v[j]->val[i]);
				expo_sample(e, &l, 1, b);
			} else {
				expo_sample_u64(e, &l, 1, s->v[j]->val[i]);
			}
		}
	}
	expo_one(e, "tally_agent_cgroups", EXPO_GAUGE, NULL, "Cgroups counted", (uint64_t)s->n);
	expo_one(e, "tally_agent_cgroups_left_out", EXPO_GAUGE, NULL,
		 "Cgroups not counted: their events would pass the bound of event fds (--metrics-max-fds)",
		 (uint64_t)s->left_out);
	expo_one(e, "tally_agent_event_fds", EXPO_GAUGE, NULL,
		 "File descriptors the cgroups' counters hold", (uint64_t)s->used_fds);
}
