// SPDX-License-Identifier: MIT
/*
 * The agent's loop: sample every CPU at a low rate, aggregate each
 * interval's samples by stack (agent_agg.c), hand the batch to the
 * sender (agent_send.c), which delivers it to the store on its own
 * thread. Or replay a perf.data file as if it were live.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tally/cpumap.h>
#include <tally/evlist.h>
#include <tally/hash.h>
#include <tally/session.h>
#include <tally/store.h>
#include <tally/threadmap.h>
#include "agent.h"
#include "agent_agg.h"
#include "agent_dwarf.h"
#include "agent_send.h"
#include "event_opts.h"
#include "target.h"
#include "wait.h"

struct run {
	struct agent_cfg *c;
	struct agent_agg *agg;
	struct agent_dwarf *dw;		/* --dwarf-pid, --dwarf-comm; NULL: none */
	struct ch_sink *chs;		/* the store's sink (--upload-symbols) */
	uint64_t seq;			/* batches made */
	uint64_t salt;			/* this run's: batch ids differ across restarts */
	int err;			/* the first error of a callback */
	/* replay */
	uint64_t t0;			/* the first sample's time */
	uint32_t nslots;
};

/* The ClickHouse sink: the sender thread's own store object. */
struct ch_sink {
	struct tally_store *st;
	int retention_days;
	long day;			/* the UTC day retention last ran */
	int verbose;
	/* --upload-symbols: the DSO files met since, uploaded before the next batch */
	pthread_mutex_t mu;
	char **uploads;
	size_t nuploads, cap_uploads;
};

/* From the sampling thread: a DSO to upload (the sender's thread does it). */
static void queue_upload(void *ctx, const char *path)
{
	struct ch_sink *k = ctx;
	char *p = strdup(path);

	pthread_mutex_lock(&k->mu);
	if (p && k->nuploads == k->cap_uploads) {
		size_t n = k->cap_uploads ? k->cap_uploads * 2 : 16;
		char **v = realloc(k->uploads, n * sizeof(*v));

		if (v) {
			k->uploads = v;
			k->cap_uploads = n;
		}
	}
	if (p && k->nuploads < k->cap_uploads)
		k->uploads[k->nuploads++] = p;
	else
		free(p);
	pthread_mutex_unlock(&k->mu);
}

/*
 * Each file's function table, keyed by its build id (once per build id:
 * the store says which it has). A file gone or without a build id is let
 * go; a store that does not answer keeps the rest for the next batch.
 */
static int upload(struct ch_sink *k, char *err, size_t n)
{
	int rc = 0;

	pthread_mutex_lock(&k->mu);
	while (k->nuploads) {
		char *path = k->uploads[k->nuploads - 1];

		pthread_mutex_unlock(&k->mu);
		rc = tally_store__upload_symbols(k->st, path);
		pthread_mutex_lock(&k->mu);
		if (rc < 0 && rc != -ENOENT && rc != -ENODATA && rc != -ENOEXEC) {
			snprintf(err, n, "uploading %s's functions: %s", path,
				 tally_store__error(k->st)[0] ? tally_store__error(k->st) : strerror(-rc));
			break;
		}
		if (k->verbose)
			fprintf(stderr, "tally agent: --upload-symbols %s: %s\n", path,
				rc > 0 ? "uploaded" : rc == 0 ? "had them or none" : strerror(-rc));
		free(path);
		k->nuploads--;
		rc = 0;
	}
	pthread_mutex_unlock(&k->mu);
	return rc;
}

static int ch_send(void *ctx, const struct tally_store_batch *b, char *err, size_t n)
{
	struct ch_sink *k = ctx;
	struct tally_store *st = k->st;
	time_t now = time(NULL);
	int rc;

	/* retention: once a day, the first batch of the day drops the days past it */
	if (k->retention_days && now / 86400 != k->day) {
		rc = tally_store__drop_days_before(st, now - (time_t)k->retention_days * 86400);
		if (rc < 0) {
			snprintf(err, n, "dropping the days past --retention: %s",
				 tally_store__error(st)[0] ? tally_store__error(st) : strerror(-rc));
			return rc;
		}
		if (rc > 0)
			fprintf(stderr, "tally agent: --retention %d: dropped %d old partitions\n",
				k->retention_days, rc);
		k->day = now / 86400;
	}
	if ((rc = upload(k, err, n)))
		return rc;
	rc = tally_store__send(st, b);

	if (rc)
		snprintf(err, n, "%s", tally_store__error(st)[0] ? tally_store__error(st) : strerror(-rc));
	return rc;
}

static struct tally_store *store_open(const struct agent_cfg *c)
{
	TALLY_OPTS(tally_store_opts, so, .url = c->store, .user = c->user, .password = c->password,
		   .timeout_ms = (int)c->store_timeout_ms);
	struct tally_store *st = tally_store__open(&so);

	if (!st)
		fprintf(stderr, "tally agent: --store %s: %s\n", c->store,
			errno == EINVAL ? "not http://HOST:PORT/?database=NAME (a name of letters, digits and _)" :
			errno == ENOSYS ? "libcurl cannot be loaded (install libcurl4: make deps)" : strerror(errno));
	return st;
}

static uint64_t batch_id(struct run *r)
{
	uint64_t h = tally_fnv_str(TALLY_FNV_BASIS, r->c->host);

	h = tally_fnv(h, &r->salt, sizeof(r->salt));
	h = tally_fnv(h, &r->seq, sizeof(r->seq));
	r->seq++;
	return tally_hash_mix(h) | 1;
}

static void end_line(const struct agent_cfg *c)
{
	const struct agent_health *h = &c->health;

	fprintf(stderr, "tally agent: %" PRIu64 " samples taken, %" PRIu64 " batches sent (%" PRIu64
		" samples), %" PRIu64 " samples queued, %" PRIu64 " samples dropped, %" PRIu64
		" samples lost\n",
		atomic_load(&h->samples_taken), atomic_load(&h->batches_sent), atomic_load(&h->samples_sent),
		atomic_load(&h->samples_queued), atomic_load(&h->samples_dropped),
		atomic_load(&h->samples_lost));
}

/* ---- live ---- */

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct run *r = ctx;
	int err;

	if (r->dw && agent_dwarf_follows(r->dw, (int32_t)smp->sample->pid))
		return 0;	/* its DWARF session has it */
	atomic_fetch_add(&r->c->health.samples_taken, 1);
	if ((err = agent_agg_add(r->agg, ss, smp, 0)) && !r->err)
		r->err = err;
	return 0;
}

static int open_events(struct agent_cfg *c, struct tally_evlist **out)
{
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = (uint64_t)c->freq,
		   .sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
		   .system_wide = true, .callchain = TALLY_CALLCHAIN_FP,
		   /* wake at half a ring: the interval's drain does the rest */
		   .wakeup_watermark = 64 * 4096);
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .cgroup_fd = -1 };
	TALLY_OPTS(tally_evlist_mmap_opts, mo, .pages = 128);
	struct tally_cpu_map *cpus = c->cpu_list ? tally_cpu_map__new(c->cpu_list) : tally_cpu_map__new_online();
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_evlist *l = tally_evlist__new();
	int err = -ENOMEM;

	*out = l;
	if (!cpus || !any || !l) {
		if (c->cpu_list && !cpus)
			fprintf(stderr, "tally agent: -C %s: not a CPU list of this machine\n", c->cpu_list);
		else
			fprintf(stderr, "tally agent: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (cli_events_add(l, "cpu-clock", NULL, "agent")) {
		err = -EINVAL;
		goto out;
	}
	if ((err = tally_evlist__config(l, &co))) {
		fprintf(stderr, "tally agent: cannot set the events up: %s\n", strerror(-err));
		goto out;
	}
	if ((err = tally_evlist__open(l, cpus, any, &oo))) {
		struct cli_target t = { .system_wide = true };

		cli_print_open_error("agent", l, err, &t);
		goto out;
	}
	if ((err = tally_evlist__mmap(l, &mo)))
		fprintf(stderr, "tally agent: cannot map the ring buffers: %s\n%s", strerror(-err),
			err == -EPERM || err == -ENOMEM ?
			"Each ring is locked memory: raise /proc/sys/kernel/perf_event_mlock_kb.\n" : "");
out:
	tally_cpu_map__put(cpus);
	tally_thread_map__put(any);
	return err;
}

static void flush(struct run *r, struct agent_sender *snd, time_t start)
{
	struct tally_store_batch *b;

	if (r->c->stdio_)
		agent_agg_print_top(r->agg, 0, stdout, start, 10);
	if (r->c->upload_symbols && r->chs)
		agent_agg_new_dsos(r->agg, queue_upload, r->chs);
	b = agent_agg_batch(r->agg, 0, r->c->host, batch_id(r), start);
	if (!b && errno)
		fprintf(stderr, "tally agent: out of memory making a batch: %" PRIu64 " samples dropped\n",
			agent_agg_samples(r->agg));
	if (!b && errno)
		atomic_fetch_add(&r->c->health.samples_dropped, agent_agg_samples(r->agg));
	agent_agg_clear(r->agg);
	if (b)
		agent_sender_push(snd, b, false);
}

static void note_lost(struct run *r, struct tally_session *ss)
{
	TALLY_OPTS(tally_session_stats, st);

	if (!tally_session__stats(ss, &st))
		atomic_store(&r->c->health.samples_lost, st.lost);
}

/* -v: what the symbol tables' budget did (--symbol-cache-size) */
static void say_symbol_cache(struct tally_session *ss)
{
	TALLY_OPTS(tally_symbols_cache_stats, st);

	if (tally_symbols__cache_stats(tally_session__symbols(ss), &st))
		return;
	fprintf(stderr, "tally agent: symbol tables: %" PRIu64 " loaded (%" PRIu64 " bytes, budget %" PRIu64
		"), %" PRIu64 " let go, %" PRIu64 " loaded again; %d threads known\n",
		st.tables, st.bytes, st.budget, st.evictions, st.reloads,
		tally_machine__nr_threads(tally_session__machine(ss)));
}

static int run_live(struct agent_cfg *c, struct run *r, struct agent_sender *snd)
{
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = r, .no_inline = true,
		   .srcline = c->srcline);
	struct tally_evlist *l = NULL;
	struct tally_session *ss = NULL;
	double t_end = c->duration_ms ? cli_now_ns() + (double)c->duration_ms * 1e6 : INFINITY;
	double next, reaped;
	time_t start;
	int ret = 1, err;

	if (open_events(c, &l))
		goto out;
	if (!(ss = tally_session__open_evlist(l, &so)) || !(r->agg = agent_agg_new(ss, true))) {
		fprintf(stderr, "tally agent: %s\n", strerror(errno));
		goto out;
	}
	tally_symbols__set_cache_size(tally_session__symbols(ss), c->symbol_cache_bytes);
	tally_session__synthesize(ss, NULL, 0);
	if ((c->dwarf_pids || c->dwarf_comms) && !(r->dw = agent_dwarf_new(c, r->agg))) {
		fprintf(stderr, "tally agent: %s\n", strerror(errno));
		goto out;
	}
	tally_evlist__enable(l);
	if (r->dw)
		agent_dwarf_scan(r->dw);
	start = time(NULL);
	next = cli_now_ns() + (double)c->interval_ms * 1e6;
	reaped = cli_now_ns();
	while (!cli_interrupted() && cli_now_ns() < t_end) {
		double now = cli_now_ns(), wake = next < t_end ? next : t_end;
		long ms = (long)((wake - now) / 1e6) + 1;

		err = tally_session__poll(ss, ms > 1000 ? 1000 : ms < 0 ? 0 : (int)ms);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "tally agent: reading the rings: %s\n", strerror(-err));
			goto out;
		}
		/*
		 * exited processes' threads and maps, every second (a second's
		 * grace for late samples): a host that starts a hundred
		 * processes a second keeps a few seconds' worth, not an
		 * interval's. The aggregate holds none of theirs: names are
		 * the machine's and the aggregate's own copies.
		 */
		if (cli_now_ns() - reaped >= 1e9) {
			tally_machine__release_exited(tally_session__machine(ss));
			reaped = cli_now_ns();
		}
		if (!r->err && r->dw)
			r->err = agent_dwarf_poll(r->dw);
		if (r->err) {
			fprintf(stderr, "tally agent: %s\n", strerror(-r->err));
			goto out;
		}
		if (cli_now_ns() >= next) {
			note_lost(r, ss);
			flush(r, snd, start);
			/*
			 * right after the flush: the aggregate holds none of their
			 * names now. An all-day session's bound: exited processes,
			 * addresses not asked for again, tables past the budget.
			 */
			tally_session__trim(ss);
			agent_agg_trim(r->agg);
#ifdef __GLIBC__
			/* what went back to the heap back to the system: the peak stays the peak, not the floor */
			malloc_trim(0);
#endif
			if (r->dw) {
				agent_dwarf_reap(r->dw);
				agent_dwarf_scan(r->dw);
			}
			start += (time_t)(c->interval_ms / 1000 ? c->interval_ms / 1000 : 1);
			next += (double)c->interval_ms * 1e6;
		}
	}
	/* the last interval: what the rings still hold, then its batch */
	tally_evlist__disable(l);
	tally_session__run(ss);
	if (r->dw)
		agent_dwarf_poll(r->dw);
	note_lost(r, ss);
	flush(r, snd, start);
	if (c->verbose)
		say_symbol_cache(ss);
	ret = 0;
out:
	agent_agg_free(r->agg);
	r->agg = NULL;
	agent_dwarf_free(r->dw);
	r->dw = NULL;
	tally_session__close(ss);
	tally_evlist__free(l);
	return ret;
}

/* ---- replay ---- */

static int on_replay(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct run *r = ctx;
	uint64_t t = smp->sample->time;
	uint32_t slot;
	int err;

	if (!r->t0)
		r->t0 = t ? t : 1;
	slot = (uint32_t)((t > r->t0 ? t - r->t0 : 0) / ((uint64_t)r->c->interval_ms * 1000000ULL));
	if (slot + 1 > r->nslots)
		r->nslots = slot + 1;
	atomic_fetch_add(&r->c->health.samples_taken, 1);
	if ((err = agent_agg_add(r->agg, ss, smp, slot)) && !r->err)
		r->err = err;
	return 0;
}

static int run_replay(struct agent_cfg *c, struct run *r, struct agent_sender *snd)
{
	TALLY_OPTS(tally_session_opts, so, .sample = on_replay, .ctx = r, .no_inline = true,
		   .srcline = c->srcline);
	struct tally_session *ss = tally_session__open(c->replay, &so);
	time_t span, start;
	uint64_t taken;
	int err, ret = 1;

	if (!ss) {
		fprintf(stderr, "tally agent: --replay %s: %s\n", c->replay, strerror(errno));
		return 1;
	}
	if (!(r->agg = agent_agg_new(ss, false))) {
		fprintf(stderr, "tally agent: %s\n", strerror(errno));
		goto out;
	}
	err = tally_session__run(ss);
	if (err < 0 || r->err) {
		fprintf(stderr, "tally agent: --replay %s: %s\n", c->replay, strerror(-(err < 0 ? err : r->err)));
		goto out;
	}
	/* each repeat follows the last; the whole ends now, as if it had just been sampled */
	span = (time_t)r->nslots * (time_t)(c->interval_ms / 1000 ? c->interval_ms / 1000 : 1);
	start = c->replay_start ? c->replay_start : time(NULL) - span * c->replay_repeat;
	taken = atomic_load(&c->health.samples_taken);
	for (long k = 0; k < c->replay_repeat && !cli_interrupted(); k++) {
		for (uint32_t s = 0; s < r->nslots; s++) {
			struct tally_store_batch *b;
			time_t t = start + k * span + (time_t)s * (span / (time_t)r->nslots);

			if (c->stdio_)
				agent_agg_print_top(r->agg, s, stdout, t, 10);
			if (c->upload_symbols && r->chs)
				agent_agg_new_dsos(r->agg, queue_upload, r->chs);
			if (!(b = agent_agg_batch(r->agg, s, c->host, batch_id(r), t))) {
				if (errno) {
					fprintf(stderr, "tally agent: out of memory making a batch\n");
					goto out;
				}
				continue;
			}
			agent_sender_push(snd, b, true);
		}
		if (k)
			atomic_fetch_add(&c->health.samples_taken, taken);
	}
	ret = 0;
out:
	agent_agg_free(r->agg);
	r->agg = NULL;
	tally_session__close(ss);
	return ret;
}

int agent_run(struct agent_cfg *c)
{
	struct run r = { .c = c };
	struct agent_metrics *m = NULL;
	struct tally_store *st = NULL;
	struct agent_sender *snd = NULL;
	char err[256];
	struct timespec ts;
	int ret = 1;

	clock_gettime(CLOCK_REALTIME, &ts);
	r.salt = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + ((uint64_t)getpid() << 40);
	if (cli_signals_setup())
		return 1;
	if (c->store) {
		struct agent_sink sink = { .send = ch_send };
		static struct ch_sink chs;
		static char name[512];	/* the sender thread reads it until the end */
		int rc;

		if (!(st = store_open(c)))
			return 1;
		/* tables first: a store that refuses them is said now, not an interval later */
		if (!c->no_create && (rc = tally_store__create(st))) {
			fprintf(stderr, "tally agent: --store %s: creating the tables: %s%s\n", c->store,
				tally_store__error(st),
				rc == -EPROTO ? "" : " (is ClickHouse running there? --no-create leaves the tables to an operator)");
			if (rc == -EPROTO || c->replay)
				goto out;
			/* unreachable now: sampling starts, batches wait in the queue */
			fprintf(stderr, "tally agent: sampling on; batches queue until it answers\n");
		}
		snprintf(name, sizeof(name), "ClickHouse at %s", c->store);
		sink.name = name;
		chs = (struct ch_sink){ .st = st, .retention_days = c->retention_days,
					.verbose = c->verbose, .mu = PTHREAD_MUTEX_INITIALIZER };
		sink.ctx = &chs;
		r.chs = &chs;
		if (!(snd = agent_sender_new(&sink, c->queue_bytes, &c->health))) {
			fprintf(stderr, "tally agent: cannot start the sender: %s\n", strerror(errno));
			goto out;
		}
	}
	if (c->metrics.listen && !(m = agent_metrics_start(&c->metrics, err, sizeof(err)))) {
		fprintf(stderr, "tally agent: --metrics-listen %s: %s\n", c->metrics.listen, err);
		goto out;
	}
	if (c->replay)
		ret = run_replay(c, &r, snd);
	else if (snd)
		ret = run_live(c, &r, snd);
	else {
		double t_end = c->duration_ms ? cli_now_ns() + (double)c->duration_ms * 1e6 : INFINITY;

		while (!cli_interrupted() && cli_now_ns() < t_end)
			poll(NULL, 0, 100);
		ret = 0;
	}
out:
	/* the last batches: a replay waits for all, a stop gives the store a few seconds */
	if (snd)
		agent_sender_finish(snd, c->replay ? 600000 : 5000);
	if (r.chs) {
		while (r.chs->nuploads)
			free(r.chs->uploads[--r.chs->nuploads]);
		free(r.chs->uploads);
	}
	agent_metrics_stop(m);
	if (st) {
		tally_store__close(st);
		end_line(c);
	}
	return ret;
}
