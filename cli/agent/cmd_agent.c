// SPDX-License-Identifier: MIT
/*
 * tally agent: its options. The sampling and the store are agent_run.c's,
 * the queue agent_send.c's, the counters agent_metrics.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "parse_options.h"
#include "agent.h"
#include "store_read.h"

static const char *const agent_usage[] = {
	"tally agent --store http://HOST:8123/?database=DB [<options>]",
	"tally agent --metrics-listen [HOST]:PORT [<options>]",
	"tally agent --replay FILE --host-name NAME --store URL",
	NULL,
};

void agent_health_error(struct agent_health *h, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&h->mu);
	va_start(ap, fmt);
	vsnprintf(h->last_error, sizeof(h->last_error), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&h->mu);
	atomic_store(&h->last_error_time, (int64_t)time(NULL));
}

/* "10s", "500ms", "2m", "1h"; a bare number is seconds. -1: not one. */
long agent_parse_duration(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	if (!*end || !strcmp(end, "s"))
		v *= 1000;
	else if (!strcmp(end, "m"))
		v *= 60000;
	else if (!strcmp(end, "h"))
		v *= 3600000;
	else if (strcmp(end, "ms"))
		return -1;
	return v > 1e12 ? -1 : (long)v;
}

static int opt_duration(struct cli_parse *p, const struct cli_option *o, const char *arg)
{
	long v = agent_parse_duration(arg);

	if (v <= 0) {
		cli_error(p, "'%s': a duration such as 10s, 500ms, 2m", arg);
		return -1;
	}
	*(long *)o->value = v;
	return 0;
}

static int opt_size(struct cli_parse *p, const struct cli_option *o, const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || errno || *arg == '-')
		goto bad;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v < 4096)
		goto bad;
	*(size_t *)o->value = (size_t)v;
	return 0;
bad:
	cli_error(p, "'%s': a size of at least 4K, such as 512K or 8M", arg);
	return -1;
}

/* The store's user and password (cli/store_read.c: a file, else the environment). */
static int read_auth(struct agent_cfg *c)
{
	return cli_store_auth("agent", c->auth_file, &c->user, &c->password);
}

/* --symbol-cache-size: a size as --queue-size's, or 0 (no bound) */
static int opt_cache_size(struct cli_parse *p, const struct cli_option *o, const char *arg)
{
	if (!strcmp(arg, "0")) {
		*(size_t *)o->value = 0;
		return 0;
	}
	return opt_size(p, o, arg);
}

int cmd_agent(int argc, char **argv)
{
	struct agent_cfg c = {
		.freq = 19, .interval_ms = 10000, .queue_bytes = 4u << 20,
		.symbol_cache_bytes = AGENT_SYMBOL_CACHE,
		.metrics = { .cgroup_depth = 2 },
		.health = { .mu = PTHREAD_MUTEX_INITIALIZER },
	};
	char hostbuf[256];
	bool help = false;
	long replay_start = 0, maxfds = 0;
	const char *cg = NULL;
	const struct cli_option opts[] = {
		CLI_GROUP("Store (ClickHouse)"),
		CLI_STRING(0, "store", &c.store, "URL", "http://HOST:8123/?database=DB: ClickHouse's HTTP interface"),
		CLI_STRING(0, "store-auth-file", &c.auth_file, "FILE", "user=NAME and password=SECRET lines (else $TALLY_STORE_USER, $TALLY_STORE_PASSWORD)"),
		CLI_CALLBACK(0, "store-timeout", &c.store_timeout_ms, "DUR", "one request's limit (default 10s): past it, the batch is retried", opt_duration),
		CLI_INT(0, "retention", &c.retention_days, "DAYS", "drop the store's days older than DAYS (default: never; an operator's job)", 1, 100000),
		CLI_BOOL(0, "no-create", &c.no_create, "do not create the database and tables (an operator does)"),
		CLI_CALLBACK(0, "interval", &c.interval_ms, "DUR", "one batch per interval (default 10s)", opt_duration),
		CLI_CALLBACK(0, "queue-size", &c.queue_bytes, "SIZE", "batches kept while the store is down (default 4M); the oldest go past it, counted", opt_size),
		CLI_STRING(0, "host-name", &c.host, "NAME", "the host's name in the store (default: the machine's)"),
		CLI_BOOL(0, "upload-symbols", &c.upload_symbols, "put each build id's function table in the store once"),
		CLI_GROUP("Sampling (default: every CPU, 19 Hz, frame-pointer chains)"),
		CLI_INT('F', "freq", &c.freq, "N", "N samples a second on each CPU (default 19)", 1, 100000),
		CLI_STRING('C', "cpu", &c.cpu_list, "LIST", "only these CPUs"),
		CLI_CALLBACK(0, "symbol-cache-size", &c.symbol_cache_bytes, "SIZE", "the files' symbol tables kept between intervals (default 4M; 0: all)", opt_cache_size),
		CLI_BOOL(0, "srcline", &c.srcline, "store each frame's file:line (reads the DSOs' DWARF here: memory)"),
		CLI_STRING(0, "dwarf-pid", &c.dwarf_pids, "PID[,PID]", "DWARF call chains for these processes"),
		CLI_STRING(0, "dwarf-comm", &c.dwarf_comms, "COMM[,COMM]", "DWARF call chains for processes of these names"),
		CLI_CALLBACK(0, "duration", &c.duration_ms, "DUR", "stop after DUR (default: at SIGTERM or SIGINT)", opt_duration),
		CLI_STRING(0, "replay", &c.replay, "FILE", "push a perf.data file's samples as if live (with --host-name)"),
		CLI_LONG(0, "replay-repeat", &c.replay_repeat, "N", "the file N times back to back (a long profile from a short file)", 1, 1000000),
		CLI_LONG(0, "replay-start", &replay_start, "UNIXTIME", "the replay's first interval (default: so that it ends now)", 1, 1L << 40),
		CLI_GROUP("Counters (Prometheus)"),
		CLI_STRING(0, "metrics-listen", &c.metrics.listen, "[HOST]:PORT", "serve OpenMetrics at http://HOST:PORT/metrics"),
		CLI_STRING(0, "metrics-cgroups", &cg, "DEPTH", "count the cgroups this deep under the root (default 2)"),
		CLI_BOOL(0, "metrics-per-process", &c.metrics.per_process, "count per process, not per cgroup"),
		CLI_LONG(0, "metrics-max-fds", &maxfds, "N", "event fds the cgroups' counters may hold (default 16384, at most half the fd limit)", 1, 1 << 24),
		CLI_GROUP("Output"),
		CLI_BOOL(0, "stdio", &c.stdio_, "print each interval's top functions"),
		CLI_COUNT('v', "verbose", &c.verbose, "say more"),
		CLI_HELP(&help, "this text (man tally-agent for the full manual)"),
		CLI_END(),
	};
	struct cli_parse p = { .cmd = "agent", .err = stderr };
	int n, ret;

	n = cli_parse("agent", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (help) {
		cli_usage(stdout, agent_usage, opts);
		return 0;
	}
	if (n > 0) {
		cli_error(&p, "'%s': the agent takes no command; it profiles the whole machine", argv[argc - n]);
		return 129;
	}
	if (cg) {
		char *end;
		long d = strtol(cg, &end, 10);

		if (end == cg || *end || d < 0 || d > 16) {
			cli_error(&p, "--metrics-cgroups '%s': a depth, 0 to 16", cg);
			return 129;
		}
		c.metrics.cgroup_depth = (int)d;
	}
	c.metrics.max_fds = (size_t)maxfds;
	if (c.metrics.listen) {
		char why[256];

		if (agent_metrics_check_listen(c.metrics.listen, why, sizeof(why))) {
			cli_error(&p, "--metrics-listen %s", why);
			return 129;
		}
	}
	if (!c.store && !c.metrics.listen) {
		cli_error(&p, "%s", "nothing to do: --store URL, --metrics-listen ADDR, or both");
		return 129;
	}
	if (c.replay && !c.store) {
		cli_error(&p, "%s", "--replay needs --store");
		return 129;
	}
	if (c.dwarf_pids && c.dwarf_comms) {
		cli_error(&p, "%s", "--dwarf-pid and --dwarf-comm: one or the other");
		return 129;
	}
	if (!c.host) {
		if (gethostname(hostbuf, sizeof(hostbuf)))
			snprintf(hostbuf, sizeof(hostbuf), "localhost");
		hostbuf[sizeof(hostbuf) - 1] = '\0';
		c.host = hostbuf;
	}
	if (read_auth(&c)) {
		ret = 1;
		goto out;
	}
	c.replay_start = (time_t)replay_start;
	if (c.replay_repeat < 1)
		c.replay_repeat = 1;
	c.metrics.health = &c.health;
	c.metrics.host = c.host;
	c.metrics.verbose = c.verbose;
	ret = agent_run(&c);
out:
	free(c.user);
	free(c.password);
	return ret;
}
