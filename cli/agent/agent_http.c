// SPDX-License-Identifier: MIT
/*
 * --metrics-listen's HTTP/1.x: the address, a request's head, and the
 * server loop on its own thread. One thread polls every connection
 * without blocking, each with a deadline, so a slow or stuck client
 * holds a slot, never the loop: the next scrape is answered meanwhile.
 * GET and HEAD only; a request with a body is refused (a scrape has none).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "agent_metrics.h"

#define HTTP_MAX_HEAD	8192		/* a request's head, at most */
#define HTTP_MAX_CONNS	32		/* past it the oldest connection goes */
#define HTTP_READ_MS	10000		/* a request, from its first byte */
#define HTTP_IDLE_MS	120000		/* between keep-alive requests (scrapes are <= 1 min apart) */
#define HTTP_WRITE_MS	10000		/* an answer, from its first byte */
#define HTTP_TICK_MS	5000		/* the idle callback */

int http_split_listen(const char *s, char *host, size_t hn, char *port, size_t pn,
		      char *err, size_t en)
{
	const char *colon, *h = s;
	size_t hl;
	char *end;
	long p;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (!rb || rb[1] != ':') {
			snprintf(err, en, "'%s': [IPV6]:PORT, such as [::1]:9464", s);
			return -1;
		}
		h = s + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || memchr(s, ':', (size_t)(colon - s))) {
			snprintf(err, en, "'%s': HOST:PORT, [IPV6]:PORT or :PORT", s);
			return -1;
		}
		hl = (size_t)(colon - s);
	}
	errno = 0;
	p = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || p < 1 || p > 65535 || !isdigit((unsigned char)colon[1])) {
		snprintf(err, en, "'%s': the port must be 1 to 65535", s);
		return -1;
	}
	if (hl >= hn) {
		snprintf(err, en, "'%s': the host is too long", s);
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, pn, "%ld", p);
	return 0;
}

/* q=... in thousandths (0..1000); -1: not a q value */
static int parse_q(const char *s, size_t n)
{
	int q = 0, scale = 100;
	size_t i = 1;

	if (n < 1 || (s[0] != '0' && s[0] != '1'))
		return -1;
	q = (s[0] - '0') * 1000;
	if (n > 1) {
		if (s[1] != '.')
			return -1;
		for (i = 2; i < n && i < 5; i++) {
			if (!isdigit((unsigned char)s[i]))
				return -1;
			q += (s[i] - '0') * scale;
			scale /= 10;
		}
		if (i < n)
			return -1;
	}
	return q > 1000 ? -1 : q;
}

static void trim(const char **s, const char **e)
{
	while (*s < *e && (**s == ' ' || **s == '\t'))
		(*s)++;
	while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

/* The best q of OpenMetrics text and of the Prometheus text (text/plain, wildcards). */
static void accept_q(const char *v, size_t n, int *om, int *txt)
{
	const char *end = v + n;

	while (v < end) {
		const char *c = memchr(v, ',', (size_t)(end - v)), *me, *p;
		const char *item_end = c ? c : end;
		int q = 1000;

		me = memchr(v, ';', (size_t)(item_end - v));
		if (!me)
			me = item_end;
		/* parameters: only q matters here */
		for (p = me; p < item_end;) {
			const char *ps = p + 1, *pe = memchr(ps, ';', (size_t)(item_end - ps));
			const char *pend = pe ? pe : item_end;

			p = pend;
			trim(&ps, &pend);
			if (pend - ps >= 2 && (ps[0] == 'q' || ps[0] == 'Q') && ps[1] == '=') {
				int x = parse_q(ps + 2, (size_t)(pend - ps - 2));

				q = x < 0 ? 0 : x;
			}
		}
		{
			const char *ts = v, *te = me;

			trim(&ts, &te);
#define IS(lit) ((size_t)(te - ts) == sizeof(lit) - 1 && !strncasecmp(ts, lit, sizeof(lit) - 1))
			if (IS("application/openmetrics-text")) {
				if (q > *om)
					*om = q;
			} else if (IS("text/plain") || IS("text/*") || IS("*/*")) {
				if (q > *txt)
					*txt = q;
			}
#undef IS
		}
		v = c ? c + 1 : end;
	}
}

bool http_accept_openmetrics(const char *v, size_t n)
{
	int om = 0, txt = 0;

	accept_q(v, n, &om, &txt);
	return om > 0 && om >= txt;
}

static bool tchar(int c)
{
	return isalnum(c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Does the comma-separated header value hold token tok? */
static bool has_token(const char *v, size_t n, const char *tok)
{
	size_t tl = strlen(tok);
	const char *end = v + n;

	while (v < end) {
		const char *c = memchr(v, ',', (size_t)(end - v));
		const char *s = v, *e = c ? c : end;

		trim(&s, &e);
		if ((size_t)(e - s) == tl && !strncasecmp(s, tok, tl))
			return true;
		v = c ? c + 1 : end;
	}
	return false;
}

enum http_parse http_parse_request(const char *buf, size_t n, struct http_req *r)
{
	const char *p = buf, *end, *eol, *sp, *target, *q;
	bool host = false, close_ = false, keep = false;
	int om = 0, txt = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	/* the head ends at an empty line (CRLF CRLF; a bare LF is taken too) */
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < n && buf[i + 1] == '\n')
			break;
		if (i + 2 < n && buf[i + 1] == '\r' && buf[i + 2] == '\n') {
			i++;
			break;
		}
	}
	if (i >= n)
		return n >= HTTP_MAX_HEAD ? HTTP_BAD : HTTP_INCOMPLETE;
	end = buf + i + 2;
	r->len = (size_t)(end - buf);
	if (r->len > HTTP_MAX_HEAD)
		return HTTP_BAD;

	/* METHOD SP TARGET SP HTTP/1.x */
	eol = memchr(p, '\n', (size_t)(end - p));
	sp = memchr(p, ' ', (size_t)(eol - p));
	if (!sp || sp == p || (size_t)(sp - p) >= sizeof(r->method))
		return HTTP_BAD;
	for (q = p; q < sp; q++)
		if (!tchar((unsigned char)*q))
			return HTTP_BAD;
	memcpy(r->method, p, (size_t)(sp - p));
	target = sp + 1;
	sp = memchr(target, ' ', (size_t)(eol - target));
	if (!sp || sp == target || target[0] != '/')
		return HTTP_BAD;
	for (q = target; q < sp; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return HTTP_BAD;
	q = memchr(target, '?', (size_t)(sp - target));
	if (!q)
		q = sp;
	if ((size_t)(q - target) >= sizeof(r->path))
		return HTTP_BAD;
	memcpy(r->path, target, (size_t)(q - target));
	q = sp + 1;
	{
		const char *le = eol > q && eol[-1] == '\r' ? eol - 1 : eol;

		if (le - q != 8 || memcmp(q, "HTTP/1.", 7) || !isdigit((unsigned char)q[7]))
			return HTTP_BAD;
		r->minor = q[7] - '0';
	}

	/* header lines: NAME ":" OWS VALUE OWS */
	for (p = eol + 1; p < end; p = eol + 1) {
		const char *colon, *v, *ve;

		eol = memchr(p, '\n', (size_t)(end - p));
		ve = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
		if (ve == p)
			break;			/* the empty line */
		colon = memchr(p, ':', (size_t)(ve - p));
		if (!colon || colon == p)
			return HTTP_BAD;	/* also obsolete line folding */
		for (q = p; q < colon; q++)
			if (!tchar((unsigned char)*q))
				return HTTP_BAD;
		v = colon + 1;
		trim(&v, &ve);
#define NAME(lit) ((size_t)(colon - p) == sizeof(lit) - 1 && !strncasecmp(p, lit, sizeof(lit) - 1))
		if (NAME("host")) {
			if (host)
				return HTTP_BAD;
			host = true;
		} else if (NAME("connection")) {
			close_ |= has_token(v, (size_t)(ve - v), "close");
			keep |= has_token(v, (size_t)(ve - v), "keep-alive");
		} else if (NAME("accept")) {
			accept_q(v, (size_t)(ve - v), &om, &txt);
		} else if (NAME("transfer-encoding")) {
			return HTTP_BAD;	/* a body: never in a scrape */
		} else if (NAME("content-length")) {
			for (q = v; q < ve; q++)
				if (*q != '0')
					return HTTP_BAD;
		}
#undef NAME
	}
	if (r->minor >= 1 && !host)
		return HTTP_BAD;		/* RFC 9112: a 1.1 request names its host */
	r->keep_alive = r->minor >= 1 ? !close_ : keep && !close_;
	r->openmetrics = om > 0 && om >= txt;
	return HTTP_DONE;
}

/* ---- the server ---- */

struct conn {
	int fd;
	int64_t opened;		/* ms: the oldest goes first when full */
	int64_t deadline;	/* ms */
	size_t in_len;
	char in[HTTP_MAX_HEAD];
	char *out;
	size_t out_len, out_off;
	bool writing, close_after;
};

struct http_server {
	int lfd;
	int wake[2];
	pthread_t th;
	bool started;
	http_render_fn render;
	http_tick_fn tick;
	void *arg;
	struct conn *c[HTTP_MAX_CONNS];
	int nc;
	int64_t accept_again;	/* ms: out of fds, the listener rests until then */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int bind_listen(const struct addrinfo *ai, bool dual)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	int one = 1, zero = 0;

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual ? &zero : &one, sizeof(int));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

struct http_server *http_listen(const char *addr, char *err, size_t n)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL, *ai;
	char host[256], port[8];
	struct http_server *s;
	int fd = -ENOENT, rc;

	if (http_split_listen(addr, host, sizeof(host), port, sizeof(port), err, n))
		return NULL;
	if (!host[0]) {
		/* every address: IPv6's any with IPv4 mapped, else IPv4's */
		hints.ai_family = AF_INET6;
		if (!getaddrinfo("::", port, &hints, &res)) {
			fd = bind_listen(res, true);
			freeaddrinfo(res);
			res = NULL;
		}
		/* no IPv6 here (not built, or disabled): IPv4's any */
		if (fd == -EAFNOSUPPORT || fd == -ENOENT || fd == -EADDRNOTAVAIL) {
			hints.ai_family = AF_INET;
			if (!getaddrinfo("0.0.0.0", port, &hints, &res)) {
				fd = bind_listen(res, false);
				freeaddrinfo(res);
				res = NULL;
			}
		}
	} else {
		rc = getaddrinfo(host, port, &hints, &res);
		if (rc) {
			snprintf(err, n, "'%s': %s", host, gai_strerror(rc));
			return NULL;
		}
		for (ai = res; ai; ai = ai->ai_next) {
			fd = bind_listen(ai, false);
			if (fd >= 0)
				break;
		}
		freeaddrinfo(res);
	}
	if (fd < 0) {
		snprintf(err, n, "cannot listen there: %s%s", strerror(-fd),
			 fd == -EADDRINUSE ? " (another process has that port)" : "");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, n, "%s", strerror(errno));
		free(s);
		close(fd);
		return NULL;
	}
	s->lfd = fd;
	return s;
}

static void conn_close(struct http_server *s, int i)
{
	struct conn *c = s->c[i];

	close(c->fd);
	free(c->out);
	free(c);
	s->c[i] = s->c[--s->nc];
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	default: return "Internal Server Error";
	}
}

/* The answer into c->out; the body is taken (freed here). */
static void respond(struct conn *c, int status, const char *ctype, char *body, size_t blen,
		    bool head_only, bool keep)
{
	char h[512];
	int hl;

	hl = snprintf(h, sizeof(h),
		      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
		      status, reason(status), ctype, blen,
		      status == 405 ? "Allow: GET, HEAD\r\n" : "",
		      keep ? "" : "Connection: close\r\n");
	free(c->out);
	c->out_len = (size_t)hl + (head_only ? 0 : blen);
	c->out = malloc(c->out_len);
	if (!c->out) {
		c->out_len = 0;
		c->close_after = true;
	} else {
		memcpy(c->out, h, (size_t)hl);
		if (!head_only && blen)
			memcpy(c->out + hl, body, blen);
	}
	free(body);
	c->out_off = 0;
	c->writing = true;
	c->close_after |= !keep;
	c->deadline = now_ms() + HTTP_WRITE_MS;
}

static void respond_text(struct conn *c, int status, const char *msg, bool head_only, bool keep)
{
	char *b = strdup(msg);

	respond(c, status, "text/plain; charset=utf-8", b, b ? strlen(b) : 0, head_only, keep);
}

/* A whole request in c->in: answer it. */
static void handle(struct http_server *s, struct conn *c)
{
	struct http_req r;
	enum http_parse st = http_parse_request(c->in, c->in_len, &r);
	bool head;

	if (st == HTTP_INCOMPLETE)
		return;
	if (st == HTTP_BAD) {
		respond_text(c, 400, "bad request\n", false, false);
		c->in_len = 0;
		return;
	}
	memmove(c->in, c->in + r.len, c->in_len - r.len);
	c->in_len -= r.len;
	head = !strcmp(r.method, "HEAD");
	if (strcmp(r.path, "/metrics")) {
		respond_text(c, 404, "not found: the counters are at /metrics\n", head, r.keep_alive);
	} else if (!head && strcmp(r.method, "GET")) {
		respond_text(c, 405, "GET or HEAD\n", false, r.keep_alive);
	} else {
		char *body = NULL;
		size_t len = 0;
		int err = s->render(s->arg, r.openmetrics, &body, &len);

		if (err) {
			char msg[128];

			snprintf(msg, sizeof(msg), "the counters could not be read: %s\n", strerror(-err));
			respond_text(c, 500, msg, head, r.keep_alive);
			return;
		}
		respond(c, 200, r.openmetrics ?
			"application/openmetrics-text; version=1.0.0; charset=utf-8" :
			"text/plain; version=0.0.4; charset=utf-8", body, len, head, r.keep_alive);
	}
}

/* Readable: the bytes in; a whole request answered. false: close it. */
static bool on_read(struct http_server *s, struct conn *c)
{
	ssize_t got = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, 0);

	if (got == 0)
		return false;
	if (got < 0)
		return errno == EAGAIN || errno == EINTR;
	if (!c->in_len)
		c->deadline = now_ms() + HTTP_READ_MS;
	c->in_len += (size_t)got;
	handle(s, c);
	return true;
}

/* Writable: more of the answer out; at its end the next request (pipelined) or idle. */
static bool on_write(struct http_server *s, struct conn *c)
{
	while (c->out_off < c->out_len) {
		ssize_t w = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_off += (size_t)w;
	}
	if (c->close_after)
		return false;
	free(c->out);
	c->out = NULL;
	c->writing = false;
	c->deadline = now_ms() + (c->in_len ? HTTP_READ_MS : HTTP_IDLE_MS);
	if (c->in_len)
		handle(s, c);
	return true;
}

static void on_accept(struct http_server *s)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;

		if (fd < 0) {
			/*
			 * Out of fds: the connection stays queued and the
			 * listener readable; rest it a while rather than spin.
			 */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				s->accept_again = now_ms() + 100;
			return;
		}
		if (s->nc == HTTP_MAX_CONNS) {
			int old = 0;

			for (int i = 1; i < s->nc; i++)
				if (s->c[i]->opened < s->c[old]->opened)
					old = i;
			conn_close(s, old);
		}
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			return;
		}
		c->fd = fd;
		c->opened = now_ms();
		c->deadline = c->opened + HTTP_READ_MS;
		s->c[s->nc++] = c;
	}
}

static void *serve(void *arg)
{
	struct http_server *s = arg;
	struct pollfd pf[2 + HTTP_MAX_CONNS];
	int64_t next_tick = now_ms() + HTTP_TICK_MS;

	for (;;) {
		int64_t now = now_ms(), wait = next_tick - now;
		int np = 2, nc = s->nc;

		pf[0] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = s->lfd, .events = now >= s->accept_again ? POLLIN : 0 };
		if (now < s->accept_again && s->accept_again - now < wait)
			wait = s->accept_again - now;
		for (int i = 0; i < nc; i++) {
			pf[np++] = (struct pollfd){ .fd = s->c[i]->fd,
						    .events = s->c[i]->writing ? POLLOUT : POLLIN };
			if (s->c[i]->deadline - now < wait)
				wait = s->c[i]->deadline - now;
		}
		if (poll(pf, (nfds_t)np, wait < 0 ? 0 : (int)wait) < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		/* from the last: conn_close moves the last into the gap */
		for (int i = nc - 1; i >= 0; i--) {
			struct conn *c = s->c[i];
			bool keep = true;

			if (pf[2 + i].revents & (POLLERR | POLLNVAL))
				keep = false;
			else if (pf[2 + i].revents & (POLLIN | POLLHUP) && !c->writing)
				keep = on_read(s, c);
			else if (pf[2 + i].revents & (POLLOUT | POLLHUP) && c->writing)
				keep = on_write(s, c);
			/* an answer made: try it at once (it usually fits the socket) */
			if (keep && c->writing && !(pf[2 + i].revents & POLLOUT))
				keep = on_write(s, c);
			if (keep && now_ms() > c->deadline)
				keep = false;	/* too slow: the slot goes */
			if (!keep)
				conn_close(s, i);
		}
		if (pf[1].revents & POLLIN)
			on_accept(s);
		if (now_ms() >= next_tick) {
			if (s->tick)
				s->tick(s->arg);
			next_tick = now_ms() + HTTP_TICK_MS;
		}
	}
	return NULL;
}

int http_serve(struct http_server *s, http_render_fn render, http_tick_fn tick, void *arg)
{
	sigset_t all, old;
	int err;

	s->render = render;
	s->tick = tick;
	s->arg = arg;
	/* signals are the main thread's: its waits end on them (EINTR) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->th, NULL, serve, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	s->started = true;
	return 0;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	if (s->started) {
		ssize_t w = write(s->wake[1], "x", 1);

		(void)w;
		pthread_join(s->th, NULL);
	}
	while (s->nc)
		conn_close(s, s->nc - 1);
	close(s->lfd);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s);
}
