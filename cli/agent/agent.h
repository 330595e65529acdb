/* SPDX-License-Identifier: MIT */
/*
 * tally agent: continuous whole-machine profiling into a store
 * (ClickHouse) and counters for Prometheus. Shared by its files:
 * cmd_agent.c (options), agent_run.c (sampling, intervals),
 * agent_send.c (the bounded queue and the sender thread), agent_metrics.c
 * (the OpenMetrics endpoint and its per-cgroup counters).
 */
#ifndef TALLY_CLI_AGENT_H
#define TALLY_CLI_AGENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <time.h>

/*
 * The agent's own health, written by the sampler and the sender, read by
 * the metrics endpoint and the end-of-run line.
 */
struct agent_health {
	_Atomic uint64_t samples_taken;		/* samples the rings gave */
	_Atomic uint64_t samples_sent;		/* in batches the store accepted */
	_Atomic uint64_t samples_queued;	/* in batches waiting to be sent */
	_Atomic uint64_t samples_dropped;	/* in batches the bounded queue let go */
	_Atomic uint64_t samples_lost;		/* the kernel's LOST records */
	_Atomic uint64_t batches_sent;
	_Atomic uint64_t batches_failed;	/* attempts that failed (each retry counts) */
	_Atomic uint64_t bytes_sent;
	_Atomic uint64_t bytes_queued;
	pthread_mutex_t mu;			/* guards last_error */
	char last_error[256];			/* "" none */
	_Atomic int64_t last_error_time;	/* unix seconds, 0 none */
};

void agent_health_error(struct agent_health *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --metrics-listen: agent_metrics.c */
struct agent_metrics;
struct agent_metrics_opts {
	const char *listen;		/* "HOST:PORT", ":PORT" */
	int cgroup_depth;		/* cgroups counted: those this deep under the root (default 2) */
	bool per_process;		/* per process, not per cgroup */
	struct agent_health *health;
	const char *host;		/* the host label */
	size_t max_fds;			/* --metrics-max-fds: event fds at most; 0: the default */
	int verbose;			/* -v: say what is not counted here */
};
/* Listening (its own thread) on return; NULL with the reason in err. */
struct agent_metrics *agent_metrics_start(const struct agent_metrics_opts *o, char *err, size_t n);
void agent_metrics_stop(struct agent_metrics *m);
/* The address's syntax ("HOST:PORT", "[V6]:PORT", ":PORT"): 0, or -1 with the reason in err. */
int agent_metrics_check_listen(const char *addr, char *err, size_t n);

/*
 * --symbol-cache-size's default: the files' symbol tables a day's agent
 * keeps between intervals (docs/agent.md, "Memory"); the kernel's are
 * apart.
 */
#define AGENT_SYMBOL_CACHE (4u << 20)

/* What the user asked for (cmd_agent.c fills it). */
struct agent_cfg {
	const char *store;		/* --store URL; NULL: no store (metrics only) */
	const char *auth_file;		/* --store-auth-file */
	char *user, *password;		/* from the file or the environment */
	const char *host;		/* --host-name, else the machine's */
	const char *replay;		/* --replay FILE */
	long replay_repeat;		/* --replay-repeat N: the file N times back to back */
	time_t replay_start;		/* --replay-start: its first interval (default: so it ends now) */
	int freq;			/* -F, default 19 */
	long interval_ms;		/* --interval, default 10 s */
	long duration_ms;		/* --duration, 0: until a signal */
	long store_timeout_ms;		/* --store-timeout: one request's limit */
	size_t queue_bytes;		/* --queue-size, default 4 MiB */
	size_t symbol_cache_bytes;	/* --symbol-cache-size: the files' symbol tables (0: no bound) */
	bool no_create;
	int retention_days;		/* --retention: older days dropped (0: never) */
	bool dwarf;			/* --call-graph dwarf for every process */
	const char *dwarf_pids;		/* --dwarf-pid LIST */
	const char *dwarf_comms;	/* --dwarf-comm LIST */
	const char *cpu_list;		/* -C */
	bool stdio_;			/* --stdio: top functions per interval */
	bool srcline;			/* --srcline: frames carry file:line (DWARF read on the host) */
	bool upload_symbols;		/* --upload-symbols */
	int verbose;
	struct agent_metrics_opts metrics;
	struct agent_health health;
};

/* "10s", "500ms", "2m", "1h" (a bare number: seconds) in ms; -1: not one. */
long agent_parse_duration(const char *s);

/* agent_run.c: sample (or replay) into the store until told to stop; the exit status. */
int agent_run(struct agent_cfg *c);

#endif
