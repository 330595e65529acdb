// SPDX-License-Identifier: MIT
/*
 * tally sched latency: perf sched 6.1's table. Each thread's last "work
 * atom" (sched out, woken, sched in) measures the delay from wake-up (or
 * preemption) to running; runtime is what sched_stat_runtime and the
 * time between switches on a CPU add up to. Threads are merged by name
 * (-p: kept apart), then sorted by the -s keys, largest first, ties in
 * perf's order (merged: names descending; -p: tids descending). A thread
 * a FORK rebuilds keeps its atoms apart from the new one's, under the
 * name it had, as perf's atoms are its thread objects'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched_cmd.h"

enum atom_state { SLEEPING = 0, WAIT_CPU, SCHED_IN, IGNORE };

struct lat_thread {
	int32_t tid;
	const char *comm;		/* at the end, for the merge and the table */
	/* the last atom */
	enum atom_state state;
	uint64_t sched_out_time, wake_up_time;
	/* the totals */
	uint64_t max_lat, max_lat_start, max_lat_end, total_lat, nb_atoms, total_runtime;
	int num_merged;
	uint32_t gen;			/* its tid's threads before it (perf: a newer object) */
	bool live;			/* the tid's thread now; a dropped one's slot waits for it */
};

struct lat_ctx {
	const struct latency_opts *o;
	struct sched_tids tids;
	uint64_t last_switched[4096];
	int32_t curr_pid[4096];		/* what the last switch put on each CPU, -1 none */
	uint64_t nr_switch_bugs;
	uint64_t nr_timestamps, nr_unordered;
	struct lat_thread *dead;	/* the threads FORKs rebuilt, names set */
	size_t nr_dead, cap_dead;
	int failed;
};

static void sched_out(struct lat_thread *t, char state, uint64_t ts)
{
	t->state = SLEEPING;
	t->sched_out_time = ts;
	if (state == 'R') {
		t->state = WAIT_CPU;
		t->wake_up_time = ts;
	}
}

static void sched_in(struct lat_thread *t, uint64_t ts)
{
	uint64_t delta;

	if (t->state != WAIT_CPU)
		return;
	if (ts < t->wake_up_time) {
		t->state = IGNORE;
		return;
	}
	t->state = SCHED_IN;
	delta = ts - t->wake_up_time;
	t->total_lat += delta;
	if (delta > t->max_lat) {
		t->max_lat = delta;
		t->max_lat_start = t->wake_up_time;
		t->max_lat_end = ts;
	}
	t->nb_atoms++;
}

/*
 * The state's letter as perf 6.1 takes it, "RSDTtZXxKWP"[prev_state]: a
 * preempted task (the kernel's TASK_REPORT_MAX, 0x100) reads past that
 * string, so it is no 'R': its wait for the CPU is not counted (newer
 * perfs count it).
 */
static char out_state(int64_t prev_state)
{
	static const char str[] = "RSDTtZXxKWP";

	return prev_state >= 0 && prev_state < (int64_t)sizeof(str) - 1 ? str[prev_state] : '?';
}

/*
 * A thread met for the first time: perf's atoms list and its first atom.
 * perf's machine makes the thread then (findnew, pid -1), so a FORK of
 * its tid later rebuilds it: the reader is told so (sched_thread).
 */
static struct lat_thread *thread_of(struct sched_reader *r, struct lat_ctx *c, int32_t tid,
				    bool *made)
{
	struct lat_thread *t = sched_tids__find(&c->tids, tid);

	*made = false;
	if (t && t->live)
		return t;
	if (!t && !(t = sched_tids__get(&c->tids, tid))) {
		c->failed = 1;
		return NULL;
	}
	t->tid = tid;
	t->live = true;
	*made = true;
	if (!sched_thread(r, -1, tid)) {
		c->failed = 1;
		return NULL;
	}
	return t;
}

/*
 * A FORK rebuilt tid's thread (sched_drop_fn): perf's atoms are by thread
 * object, so the old one's stay apart, named as it was; the tid's next
 * event starts the new one's.
 */
static void on_drop(struct sched_reader *r, int32_t tid, const struct sched_tinfo *old,
		    const char *comm, void *ctx)
{
	struct lat_ctx *c = ctx;
	struct lat_thread *t = sched_tids__find(&c->tids, tid), *d;
	uint32_t gen;

	(void)r;
	(void)old;
	if (!t || !t->live)
		return;
	if (c->nr_dead == c->cap_dead) {
		size_t cap = c->cap_dead ? 2 * c->cap_dead : 8;

		if (!(d = realloc(c->dead, cap * sizeof(*d)))) {
			c->failed = 1;
			return;
		}
		c->dead = d;
		c->cap_dead = cap;
	}
	d = &c->dead[c->nr_dead];
	*d = *t;
	if (!(d->comm = strdup(comm))) {
		c->failed = 1;
		return;
	}
	c->nr_dead++;
	gen = t->gen + 1;
	memset(t, 0, sizeof(*t));
	t->gen = gen;
}

static int on_switch(struct sched_reader *r, struct lat_ctx *c, const struct sched_ev *ev)
{
	struct lat_thread *out, *in;
	uint64_t ts = ev->time, ts0;
	int64_t delta = 0;
	bool made;

	if (ev->cpu < 0 || ev->cpu >= 4096)
		return 0;
	/* switched away from a task the last switch did not put there */
	if (c->curr_pid[ev->cpu] != -1 && c->curr_pid[ev->cpu] != ev->prev_pid)
		c->nr_switch_bugs++;
	c->curr_pid[ev->cpu] = ev->next_pid;
	ts0 = c->last_switched[ev->cpu];
	c->last_switched[ev->cpu] = ts;
	if (ts0)
		delta = (int64_t)(ts - ts0);
	if (delta < 0) {
		fprintf(stderr, "tally sched latency: hm, delta: %lld < 0 ?\n", (long long)delta);
		return -1;
	}
	if (!(out = thread_of(r, c, ev->prev_pid, &made)))
		return -1;
	/* perf measures delta but counts only sched_stat_runtime's runtime */
	sched_out(out, out_state(ev->prev_state), ts);
	if (!(in = thread_of(r, c, ev->next_pid, &made)))
		return -1;
	if (made)
		sched_out(in, 'R', ts);	/* came in unheard of: runnable till now */
	sched_in(in, ts);
	return 0;
}

static int on_event(struct sched_reader *r, const struct sched_ev *ev, void *ctx)
{
	struct lat_ctx *c = ctx;
	struct lat_thread *t;
	bool made;

	switch (ev->kind) {
	case SK_SWITCH:
		return on_switch(r, c, ev);
	case SK_RUNTIME:
		if (!(t = thread_of(r, c, ev->task, &made)))
			return -1;
		if (made)
			sched_out(t, 'R', ev->time);
		t->total_runtime += ev->runtime;
		return 0;
	case SK_WAKEUP:
	case SK_WAKEUP_NEW:
		if (!(t = thread_of(r, c, ev->task, &made)))
			return -1;
		if (made)
			sched_out(t, 'S', ev->time);
		/* a wake-up of a task still on the run queue only sets its state: not counted */
		if (c->o->cpu == -1 && t->state != SLEEPING)
			return 0;
		c->nr_timestamps++;
		if (t->sched_out_time > ev->time) {
			c->nr_unordered++;
			return 0;
		}
		t->state = WAIT_CPU;
		t->wake_up_time = ev->time;
		return 0;
	case SK_MIGRATE:
		/* only when profiling one CPU */
		if (c->o->cpu == -1)
			return 0;
		if (!(t = thread_of(r, c, ev->task, &made)))
			return -1;
		if (made)
			sched_out(t, 'R', ev->time);
		t->sched_out_time = t->wake_up_time = ev->time;
		c->nr_timestamps++;
		return 0;
	default:
		return 0;
	}
}

/* The -s keys, as perf's comparators (each < 0, 0, > 0). */
enum key { K_PID, K_RUNTIME, K_SWITCH, K_AVG, K_MAX };

static const char *const key_names[] = { "pid", "runtime", "switch", "avg", "max" };

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int key_cmp(enum key k, const struct lat_thread *l, const struct lat_thread *r)
{
	switch (k) {
	case K_PID:
		return l->tid < r->tid ? -1 : l->tid > r->tid;
	case K_RUNTIME:
		return cmp_u64(l->total_runtime, r->total_runtime);
	case K_SWITCH:
		return cmp_u64(l->nb_atoms, r->nb_atoms);
	case K_AVG:
		if (!l->nb_atoms)
			return -1;
		if (!r->nb_atoms)
			return 1;
		return cmp_u64(l->total_lat / l->nb_atoms, r->total_lat / r->nb_atoms);
	case K_MAX:
		return cmp_u64(l->max_lat, r->max_lat);
	}
	return 0;
}

struct sort_ctx {
	enum key keys[16];
	int nkeys;
};

static int parse_sort(const char *spec, struct sort_ctx *sc)
{
	char *dup = strdup(spec), *save = NULL;

	if (!dup)
		return -1;
	sc->nkeys = 0;
	for (char *tok = strtok_r(dup, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t k;

		for (k = 0; k < sizeof(key_names) / sizeof(key_names[0]); k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == sizeof(key_names) / sizeof(key_names[0])) {
			fprintf(stderr, "tally sched latency: unknown --sort key: `%s' "
				"(pid, runtime, switch, avg, max)\n", tok);
			free(dup);
			return -1;
		}
		if (sc->nkeys < 16)
			sc->keys[sc->nkeys++] = (enum key)k;
	}
	free(dup);
	return 0;
}

/* Insertion into perf's tree: after every row not smaller, before the first smaller. */
static int row_cmp(const struct sort_ctx *sc, const struct lat_thread *l,
		   const struct lat_thread *r)
{
	for (int i = 0; i < sc->nkeys; i++) {
		int c = key_cmp(sc->keys[i], l, r);

		if (c)
			return c;
	}
	return 0;
}

/* a tid's newer thread first (perf orders one tid's objects by address) */
static int by_tid_desc(const void *a, const void *b)
{
	const struct lat_thread *l = *(struct lat_thread *const *)a, *r = *(struct lat_thread *const *)b;

	if (l->tid != r->tid)
		return l->tid < r->tid ? 1 : -1;
	return l->gen < r->gen ? 1 : l->gen > r->gen ? -1 : 0;
}

static int by_comm_desc(const void *a, const void *b)
{
	const struct lat_thread *l = *(struct lat_thread *const *)a, *r = *(struct lat_thread *const *)b;

	int c = strcmp(l->comm, r->comm);

	if (c)
		return -c;
	return by_tid_desc(a, b);
}

/* A stable sort, largest first (rows are few: insertion into the sorted part). */
static void sort_rows(const struct sort_ctx *sc, struct lat_thread **v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct lat_thread *x = v[i];
		size_t j = i;

		while (j > 0 && row_cmp(sc, x, v[j - 1]) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static void print_table(struct sched_reader *r, struct lat_ctx *c, struct lat_thread **v, size_t n)
{
	uint64_t all_runtime = 0, all_count = 0;
	TALLY_OPTS(tally_session_stats, st);

	printf("\n -------------------------------------------------------------------------------------------------------------------------------------------\n");
	printf("  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n");
	printf(" -------------------------------------------------------------------------------------------------------------------------------------------\n");
	for (size_t i = 0; i < n; i++) {
		const struct lat_thread *t = v[i];
		char start[32], end[32];
		int w;

		if (!t->nb_atoms || !strcmp(t->comm, "swapper"))
			continue;
		all_runtime += t->total_runtime;
		all_count += t->nb_atoms;
		if (t->num_merged > 1)
			w = printf("  %s:(%d) ", t->comm, t->num_merged);
		else
			w = printf("  %s:%d ", t->comm, (int)t->tid);
		for (int k = 0; k < 24 - w; k++)
			putchar(' ');
		sched_usec(start, sizeof(start), t->max_lat_start);
		sched_usec(end, sizeof(end), t->max_lat_end);
		printf("|%11.3f ms |%9llu | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max end: %12s s\n",
		       (double)t->total_runtime / 1e6, (unsigned long long)t->nb_atoms,
		       (double)(t->total_lat / t->nb_atoms) / 1e6, (double)t->max_lat / 1e6,
		       start, end);
	}
	printf(" -----------------------------------------------------------------------------------------------------------------\n");
	printf("  TOTAL:                |%11.3f ms |%9llu |\n", (double)all_runtime / 1e6,
	       (unsigned long long)all_count);
	printf(" ---------------------------------------------------\n");
	if (c->nr_unordered && c->nr_timestamps)
		printf("  INFO: %.3f%% unordered timestamps (%llu out of %llu)\n",
		       (double)c->nr_unordered / (double)c->nr_timestamps * 100.0,
		       (unsigned long long)c->nr_unordered, (unsigned long long)c->nr_timestamps);
	tally_session__stats(r->s, &st);
	if (st.lost) {
		uint64_t events = 0;

		for (int i = 0; i < 128; i++)
			events += st.records[i];
		if (events)
			printf("  INFO: %.3f%% lost events (%llu out of %llu, in %llu chunks)\n",
			       (double)st.lost / (double)events * 100.0, (unsigned long long)st.lost,
			       (unsigned long long)events,
			       (unsigned long long)st.records[PERF_RECORD_LOST]);
	}
	if (c->nr_switch_bugs && c->nr_timestamps) {
		printf("  INFO: %.3f%% context switch bugs (%llu out of %llu)",
		       (double)c->nr_switch_bugs / (double)c->nr_timestamps * 100.0,
		       (unsigned long long)c->nr_switch_bugs, (unsigned long long)c->nr_timestamps);
		if (st.lost)
			printf(" (due to lost events?)");
		printf("\n");
	}
	printf("\n");
}

int sched_latency(const char *path, const struct latency_opts *o)
{
	struct lat_ctx *c = calloc(1, sizeof(*c));
	struct sort_ctx sc;
	struct sched_reader r;
	struct lat_thread **v = NULL;
	size_t n = 0;
	int ret;

	if (!c)
		return 1;
	c->o = o;
	memset(c->curr_pid, 0xff, sizeof(c->curr_pid));
	c->tids.size = sizeof(struct lat_thread);
	if (parse_sort(o->sort ? o->sort : "avg, max, switch, runtime", &sc)) {
		free(c);
		return 129;
	}
	/* perf 6.1's latency reads no sched_waking, and migrations only with -C */
	if ((ret = sched_open(&r, "sched latency", path, false,
			      SCHED_WANT(SK_SWITCH) | SCHED_WANT(SK_RUNTIME) | SCHED_WANT(SK_WAKEUP) |
				      SCHED_WANT(SK_WAKEUP_NEW) |
				      (o->cpu != -1 ? SCHED_WANT(SK_MIGRATE) : 0),
			      NULL, NULL, on_event, c))) {
		free(c);
		return ret;
	}
	r.drop = on_drop;
	ret = sched_run(&r);
	if (!ret && c->failed)
		ret = 1;
	if (!ret && !(v = calloc(c->tids.nr + c->nr_dead + 1, sizeof(*v))))
		ret = 1;
	if (!ret) {
		for (size_t i = 0; i < c->nr_dead; i++)
			v[n++] = &c->dead[i];
		for (size_t i = 0; i < c->tids.nr; i++) {
			struct lat_thread *t = sched_tids__find(&c->tids, c->tids.order[i]);

			if (!t->live)	/* dropped, and no event since: perf made no atoms for it */
				continue;
			t->comm = sched_comm(&r, t->tid);
			/* the name is at the end: copied, as sched_comm's buffers are reused */
			t->comm = strdup(t->comm);
			if (!t->comm) {
				ret = 1;
				break;
			}
			v[n++] = t;
		}
	}
	if (!ret) {
		/* perf's tree of atoms is by tid, largest first; merging takes them so */
		qsort(v, n, sizeof(*v), by_tid_desc);
		if (!o->per_pid) {
			size_t m = 0;

			/* merged by name: the first of a name (the largest tid) takes the rest */
			qsort(v, n, sizeof(*v), by_comm_desc);	/* names descending, as perf's merged tree */
			for (size_t i = 0; i < n; i++) {
				struct lat_thread *t = v[i];

				if (m && !strcmp(v[m - 1]->comm, t->comm)) {
					struct lat_thread *h = v[m - 1];

					h->num_merged++;
					h->total_runtime += t->total_runtime;
					h->nb_atoms += t->nb_atoms;
					h->total_lat += t->total_lat;
					if (h->max_lat < t->max_lat) {
						h->max_lat = t->max_lat;
						h->max_lat_start = t->max_lat_start;
						h->max_lat_end = t->max_lat_end;
					}
					continue;
				}
				t->num_merged = 1;
				v[m++] = t;
			}
			n = m;
		}
		sort_rows(&sc, v, n);
		print_table(&r, c, v, n);
	}
	for (size_t i = 0; i < c->tids.nr; i++) {
		struct lat_thread *t = sched_tids__find(&c->tids, c->tids.order[i]);

		free((char *)t->comm);
	}
	for (size_t i = 0; i < c->nr_dead; i++)
		free((char *)c->dead[i].comm);
	free(c->dead);
	free(v);
	sched_close(&r);
	sched_tids__free(&c->tids);
	free(c);
	return ret;
}
