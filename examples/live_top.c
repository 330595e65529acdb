// SPDX-License-Identifier: MIT
/*
 * live_top: the hottest symbols of a command while it runs, taken from
 * the live rings of a tally_evlist through the same session callback a
 * perf.data file goes through (the path `top` takes): a line a second,
 * then the five hottest of the whole run.
 * Usage: live_top [COMMAND...]   (default: a shell busy for ~2 s)
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <tally/tally.h>

#define ROWS 64

struct top {
	struct { const char *sym; unsigned long n; } rows[ROWS];
	int nrows;
	unsigned long samples, resolved;
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct top *t = ctx;
	struct tally_frame f;
	int i;

	t->samples++;
	if (tally_session__resolve(s, smp, &f) || !f.sym)
		return 0;
	t->resolved++;
	for (i = 0; i < t->nrows && strcmp(t->rows[i].sym, f.sym); i++)
		;
	if (i == t->nrows && t->nrows < ROWS)
		t->rows[t->nrows++].sym = f.sym;	/* the session's string: valid until close */
	if (i < t->nrows)
		t->rows[i].n++;
	return 0;
}

int main(int argc, char **argv)
{
	char *busy[] = { "sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done", NULL };
	struct tally_workload *wl = tally_workload__new(argc > 1 ? argv + 1 : busy);
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = wl ? tally_thread_map__new_pid(tally_workload__pid(wl)) : NULL;
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 999, .enable_on_exec = true);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	struct top t = { 0 };
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &t);
	struct tally_session *s = NULL;
	int status, err = 1;

	if (!wl || !l || !cpus || !thr || tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) < 0 ||
	    tally_evlist__config(l, &co) || tally_evlist__open(l, cpus, thr, NULL) ||
	    tally_evlist__mmap(l, &mo) || !(s = tally_session__open_evlist(l, &so)) ||
	    tally_workload__start(wl)) {
		perror("live_top: setting up");
		goto out;
	}
	/* samples are delivered a round (one pass over the rings) behind the newest */
	for (time_t last = time(NULL); tally_workload__poll(wl, &status, NULL) == 0;) {
		if (tally_session__poll(s, 100) < 0)
			break;
		tally_evlist__prune_hup(l);	/* an exiting task's fds: no busy polling */
		if (time(NULL) != last) {
			last = time(NULL);
			printf("%lu samples so far\n", t.samples);
		}
	}
	tally_evlist__disable(l);
	tally_session__run(s);		/* what the rings still hold */
	printf("%lu samples, %lu with a symbol\n", t.samples, t.resolved);
	for (int k = 0; k < 5 && k < t.nrows; k++) {
		int best = k;

		for (int i = k + 1; i < t.nrows; i++)
			if (t.rows[i].n > t.rows[best].n)
				best = i;
		if (best != k) {
			__typeof__(t.rows[0]) tmp = t.rows[k];

			t.rows[k] = t.rows[best];
			t.rows[best] = tmp;
		}
		printf("%6.2f%%  %s\n", 100.0 * (double)t.rows[k].n / (double)t.samples, t.rows[k].sym);
	}
	err = 0;
out:
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
	tally_workload__free(wl);
	return err;
}
