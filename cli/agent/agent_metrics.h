/* SPDX-License-Identifier: MIT */
/*
 * --metrics-listen's parts, shared by their files: the HTTP side
 * (agent_http.c: addresses, requests, the server loop), the exposition
 * writer (agent_expo.c: both text formats), the counters per cgroup
 * (agent_cgroups.c) and per process (agent_procs.c). agent_metrics.c
 * puts them together behind agent.h's start and stop.
 */
#ifndef TALLY_CLI_AGENT_METRICS_H
#define TALLY_CLI_AGENT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- agent_http.c ---- */

/*
 * "HOST:PORT", "[V6]:PORT", ":PORT" (every address) split; host "" for
 * every address. 0, or -1 with the reason in err.
 */
int http_split_listen(const char *s, char *host, size_t hn, char *port, size_t pn,
		      char *err, size_t en);

struct http_req {
	char method[16];
	char path[512];		/* the target without its query */
	int minor;		/* HTTP/1.minor */
	bool keep_alive;
	bool openmetrics;	/* Accept prefers application/openmetrics-text */
	size_t len;		/* bytes of the request (headers), to consume */
};
enum http_parse { HTTP_INCOMPLETE, HTTP_DONE, HTTP_BAD };
/* One request's head from buf[0..n): pure, bounds-checked. */
enum http_parse http_parse_request(const char *buf, size_t n, struct http_req *r);
/* An Accept value: true when OpenMetrics text is preferred (q > 0, >= text/plain's). */
bool http_accept_openmetrics(const char *v, size_t n);

/* Renders the page for a request: 0 with a malloc'd body, or -errno. */
typedef int (*http_render_fn)(void *arg, bool openmetrics, char **body, size_t *len);
/* Called when the loop is idle for a while (rescans). */
typedef void (*http_tick_fn)(void *arg);

struct http_server;
/* Bound and listening on return; NULL with the reason in err. */
struct http_server *http_listen(const char *addr, char *err, size_t n);
/* The loop, on its own thread until http_stop. */
int http_serve(struct http_server *s, http_render_fn render, http_tick_fn tick, void *arg);
void http_stop(struct http_server *s);	/* joins and frees; NULL-safe */

/* ---- agent_expo.c ---- */

enum expo_type { EXPO_COUNTER, EXPO_GAUGE, EXPO_INFO };
struct expo_label {
	const char *name, *value;
};
struct expo {
	FILE *f;
	bool om;		/* OpenMetrics 1.0, else Prometheus text 0.0.4 */
	const char *host;	/* the host label, first on every series */
	/* the family being written */
	const char *name;
	enum expo_type type;
};
/* A family's head: name without _total/_info; unit (NULL: none) ends name. */
void expo_family(struct expo *e, const char *name, enum expo_type type, const char *unit,
		 const char *help);
/* One series of the current family: host, then the n labels, then value. */
void expo_sample(struct expo *e, const struct expo_label *l, int n, const char *value);
void expo_sample_u64(struct expo *e, const struct expo_label *l, int n, uint64_t v);
/* A family with one series of one value, no labels but host. */
void expo_one(struct expo *e, const char *name, enum expo_type type, const char *unit,
	      const char *help, uint64_t v);
/* ns as seconds, exactly ("1.000000002"), in the C locale. */
void expo_fmt_ns(char *buf, size_t n, uint64_t ns);
/* A label value escaped ('\\', '"', '\n'; invalid UTF-8 as U+FFFD). */
void expo_escape(FILE *f, const char *s);
void expo_end(struct expo *e);		/* "# EOF" for OpenMetrics */

/* ---- agent_cgroups.c ---- */

struct cg_set;
struct cg_set_opts {
	int depth;
	size_t max_fds;		/* event fds at most; 0: the default */
	int verbose;
};
/* The root is counted on return; NULL with the reason in err. */
struct cg_set *cg_set_new(const struct cg_set_opts *o, char *err, size_t n);
void cg_set_free(struct cg_set *s);
/* New cgroups counted, removed ones closed; at most once a second unless forced. */
void cg_set_scan(struct cg_set *s, bool force);
void cg_set_render(struct cg_set *s, struct expo *e);

/* ---- agent_procs.c ---- */

struct proc_set;
struct proc_set *proc_set_new(void);
void proc_set_free(struct proc_set *s);
void proc_set_render(struct proc_set *s, struct expo *e);

#endif
