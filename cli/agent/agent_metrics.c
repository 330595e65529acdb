// SPDX-License-Identifier: MIT
/*
 * --metrics-listen: the endpoint Prometheus scrapes. Each GET /metrics
 * reads the counters (per cgroup, or per process) on the server's
 * thread, then the agent's health (struct agent_health, written by the
 * sampler and the sender) and its own CPU time and memory. The parts are
 * in agent_http.c, agent_expo.c, agent_cgroups.c and agent_procs.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "agent.h"
#include "agent_metrics.h"

struct agent_metrics {
	struct agent_health *health;
	char *host;
	struct http_server *srv;
	struct cg_set *cg;
	struct proc_set *ps;
	uint64_t scrapes[2];	/* answered in the text format, in OpenMetrics */
};

static void render_health(struct agent_health *h, struct expo *e)
{
	char msg[sizeof(h->last_error)];
	int64_t t;

	expo_one(e, "tally_agent_samples_taken", EXPO_COUNTER, NULL,
		 "Samples the agent's rings gave", atomic_load(&h->samples_taken));
	expo_one(e, "tally_agent_samples_sent", EXPO_COUNTER, NULL,
		 "Samples in batches the store accepted", atomic_load(&h->samples_sent));
	expo_one(e, "tally_agent_samples_queued", EXPO_GAUGE, NULL,
		 "Samples in batches waiting to be sent", atomic_load(&h->samples_queued));
	expo_one(e, "tally_agent_samples_dropped", EXPO_COUNTER, NULL,
		 "Samples in batches the bounded queue let go (--queue-size)",
		 atomic_load(&h->samples_dropped));
	expo_one(e, "tally_agent_samples_lost", EXPO_COUNTER, NULL,
		 "Samples the kernel could not write (its LOST records)", atomic_load(&h->samples_lost));
	expo_one(e, "tally_agent_batches_sent", EXPO_COUNTER, NULL,
		 "Batches the store accepted", atomic_load(&h->batches_sent));
	expo_one(e, "tally_agent_batches_failed", EXPO_COUNTER, NULL,
		 "Attempts to send a batch that failed (each retry counts)",
		 atomic_load(&h->batches_failed));
	expo_one(e, "tally_agent_sent_bytes", EXPO_COUNTER, "bytes",
		 "Bytes of the batches the store accepted", atomic_load(&h->bytes_sent));
	expo_one(e, "tally_agent_queued_bytes", EXPO_GAUGE, "bytes",
		 "Bytes of the batches waiting to be sent", atomic_load(&h->bytes_queued));
	pthread_mutex_lock(&h->mu);
	memcpy(msg, h->last_error, sizeof(msg));
	pthread_mutex_unlock(&h->mu);
	msg[sizeof(msg) - 1] = '\0';
	t = atomic_load(&h->last_error_time);
	if (msg[0]) {
		struct expo_label l = { "message", msg };

		expo_family(e, "tally_agent_last_error", EXPO_INFO, NULL,
			    "The agent's last error, its message as a label");
		expo_sample(e, &l, 1, "1");
	}
	expo_one(e, "tally_agent_last_error_timestamp_seconds", EXPO_GAUGE, "seconds",
		 "When the last error came (Unix time; 0: none yet)", t > 0 ? (uint64_t)t : 0);
}

/* The agent's own CPU time and resident memory, as the client libraries name them. */
static void render_self(struct expo *e)
{
	struct rusage ru;
	char b[32];
	FILE *f;
	unsigned long long size, rss = 0;

	if (!getrusage(RUSAGE_SELF, &ru)) {
		uint64_t ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
			      ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;

		expo_family(e, "process_cpu_seconds", EXPO_COUNTER, "seconds",
			    "The agent's CPU time, user and system");
		expo_fmt_ns(b, sizeof(b), ns);
		expo_sample(e, NULL, 0, b);
	}
	f = fopen("/proc/self/statm", "re");
	if (f) {
		if (fscanf(f, "%llu %llu", &size, &rss) == 2)
			expo_one(e, "process_resident_memory_bytes", EXPO_GAUGE, "bytes",
				 "The agent's resident memory", rss * (uint64_t)sysconf(_SC_PAGESIZE));
		fclose(f);
	}
}

static int render(void *arg, bool om, char **body, size_t *len)
{
	struct agent_metrics *m = arg;
	struct expo e = { .om = om, .host = m->host };
	int err = 0;

	*body = NULL;
	e.f = open_memstream(body, len);
	if (!e.f)
		return -errno;
	if (m->cg)
		cg_set_render(m->cg, &e);
	if (m->ps)
		proc_set_render(m->ps, &e);
	m->scrapes[om]++;
	expo_family(&e, "tally_agent_scrapes", EXPO_COUNTER, NULL,
		    "Pages of counters served, by the format asked (this one included)");
	expo_sample_u64(&e, &(struct expo_label){ "format", "text" }, 1, m->scrapes[0]);
	expo_sample_u64(&e, &(struct expo_label){ "format", "openmetrics" }, 1, m->scrapes[1]);
	if (m->health)
		render_health(m->health, &e);
	render_self(&e);
	expo_end(&e);
	if (ferror(e.f))
		err = -ENOMEM;
	if (fclose(e.f) && !err)
		err = -errno;
	if (err) {
		free(*body);
		*body = NULL;
	}
	return err;
}

int agent_metrics_check_listen(const char *addr, char *err, size_t n)
{
	char host[256], port[8];

	return http_split_listen(addr, host, sizeof(host), port, sizeof(port), err, n);
}

static void tick(void *arg)
{
	struct agent_metrics *m = arg;

	if (m->cg)
		cg_set_scan(m->cg, false);
}

struct agent_metrics *agent_metrics_start(const struct agent_metrics_opts *o, char *err, size_t n)
{
	struct agent_metrics *m = calloc(1, sizeof(*m));
	int ret;

	if (!m || !(m->host = strdup(o->host ? o->host : ""))) {
		snprintf(err, n, "%s", strerror(ENOMEM));
		goto fail;
	}
	m->health = o->health;
	m->srv = http_listen(o->listen, err, n);
	if (!m->srv)
		goto fail;
	if (o->per_process) {
		m->ps = proc_set_new();
		if (!m->ps) {
			snprintf(err, n, "%s", strerror(ENOMEM));
			goto fail;
		}
	} else {
		struct cg_set_opts co = { .depth = o->cgroup_depth, .max_fds = o->max_fds,
					  .verbose = o->verbose };
		char why[256];

		m->cg = cg_set_new(&co, why, sizeof(why));
		if (!m->cg) {
			snprintf(err, n, "counting cgroups: %s", why);
			goto fail;
		}
	}
	ret = http_serve(m->srv, render, tick, m);
	if (ret) {
		snprintf(err, n, "%s", strerror(-ret));
		goto fail;
	}
	return m;
fail:
	agent_metrics_stop(m);
	return NULL;
}

void agent_metrics_stop(struct agent_metrics *m)
{
	if (!m)
		return;
	http_stop(m->srv);	/* the thread first: it reads the rest */
	cg_set_free(m->cg);
	proc_set_free(m->ps);
	free(m->host);
	free(m);
}
