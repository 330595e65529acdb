// SPDX-License-Identifier: MIT
/*
 * --metrics-listen's pure parts: the listen address, a request's head
 * (complete, partial, bad), the Accept negotiation Prometheus relies on,
 * and the exposition's escaping and family lines in both formats.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "agent_metrics.h"

static int split(const char *s, char *host, char *port)
{
	char err[128];

	return http_split_listen(s, host, 64, port, 8, err, sizeof(err));
}

static void test_listen_address(void **state)
{
	char h[64], p[8];

	(void)state;
	assert_int_equal(split("127.0.0.1:9464", h, p), 0);
	assert_string_equal(h, "127.0.0.1");
	assert_string_equal(p, "9464");
	assert_int_equal(split("[::1]:80", h, p), 0);
	assert_string_equal(h, "::1");
	assert_int_equal(split(":9100", h, p), 0);
	assert_string_equal(h, "");
	assert_string_equal(p, "9100");
	assert_int_equal(split("localhost:65535", h, p), 0);
	/* no port, a bad one, v6 without brackets */
	assert_int_equal(split("9464", h, p), -1);
	assert_int_equal(split("host:0", h, p), -1);
	assert_int_equal(split("host:65536", h, p), -1);
	assert_int_equal(split("host:12a", h, p), -1);
	assert_int_equal(split("host:", h, p), -1);
	assert_int_equal(split("host:-1", h, p), -1);
	assert_int_equal(split("[::1]80", h, p), -1);
	assert_int_equal(split("::1:80", h, p), -1);
}

#define PROM_ACCEPT "application/openmetrics-text;version=1.0.0,application/openmetrics-text;" \
	"version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

static enum http_parse parse(const char *s, struct http_req *r)
{
	return http_parse_request(s, strlen(s), r);
}

static void test_request(void **state)
{
	struct http_req r;
	const char *two = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n";

	(void)state;
	assert_int_equal(parse("GET /metrics?x=1 HTTP/1.1\r\nHost: h:1\r\nAccept: " PROM_ACCEPT "\r\n\r\n", &r),
			 HTTP_DONE);
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(r.minor, 1);
	assert_true(r.keep_alive);
	assert_true(r.openmetrics);
	/* pipelined: the first request's length */
	assert_int_equal(parse(two, &r), HTTP_DONE);
	assert_int_equal(r.len, strlen("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n"));
	/* partial */
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\n", &r), HTTP_INCOMPLETE);
	assert_int_equal(parse("GET /met", &r), HTTP_INCOMPLETE);
	assert_int_equal(parse("", &r), HTTP_INCOMPLETE);
	/* bare LFs; 1.0 closes unless asked; Connection: close */
	assert_int_equal(parse("GET /metrics HTTP/1.0\n\n", &r), HTTP_DONE);
	assert_false(r.keep_alive);
	assert_false(r.openmetrics);
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r), HTTP_DONE);
	assert_true(r.keep_alive);
	assert_string_equal(r.method, "HEAD");
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: foo, close\r\n\r\n", &r), HTTP_DONE);
	assert_false(r.keep_alive);
	assert_int_equal(parse("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", &r), HTTP_DONE);
	/* bad */
	assert_int_equal(parse("BAD\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n\r\n", &r), HTTP_BAD);	/* no Host */
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\nHost: a\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1 x\r\nHost: a\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("G(T /metrics HTTP/1.1\r\nHost: a\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost a\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", &r), HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", &r),
			 HTTP_BAD);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", &r),
			 HTTP_BAD);
	assert_int_equal(parse("GET /a\x01 HTTP/1.1\r\nHost: a\r\n\r\n", &r), HTTP_BAD);
}

static void test_request_too_long(void **state)
{
	size_t n = 8192;
	char *b = malloc(n);
	struct http_req r;

	(void)state;
	memset(b, 'a', n);
	memcpy(b, "GET /metrics HTTP/1.1\r\nX: ", 26);
	/* the buffer is full and no empty line came: refused, not waited for */
	assert_int_equal(http_parse_request(b, n, &r), HTTP_BAD);
	assert_int_equal(http_parse_request(b, n - 1, &r), HTTP_INCOMPLETE);
	free(b);
}

static bool om(const char *v)
{
	return http_accept_openmetrics(v, strlen(v));
}

static void test_accept(void **state)
{
	(void)state;
	assert_true(om(PROM_ACCEPT));
	assert_true(om("application/openmetrics-text"));
	assert_true(om("Application/OpenMetrics-Text; version=1.0.0"));
	assert_true(om("application/openmetrics-text;q=1.0, text/plain;q=1"));	/* a tie: ours */
	assert_true(om("text/plain;q=0.2, application/openmetrics-text ; q=0.3"));
	assert_false(om(""));
	assert_false(om("*/*"));
	assert_false(om("text/plain;version=0.0.4"));
	assert_false(om("application/openmetrics-text;q=0"));
	assert_false(om("application/openmetrics-text;q=0.5, text/plain"));
	assert_false(om("application/openmetrics-text;q=bad"));
	assert_false(om("application/openmetrics-textx"));
}

/* What fn writes into a memory stream. */
static char *capture(void (*fn)(struct expo *e), bool openmetrics)
{
	char *buf = NULL;
	size_t len = 0;
	struct expo e = { .om = openmetrics, .host = "h\"1" };

	e.f = open_memstream(&buf, &len);
	assert_non_null(e.f);
	fn(&e);
	fclose(e.f);
	return buf;
}

static void write_some(struct expo *e)
{
	struct expo_label l = { "cgroup", "/a\"b\\c\nd\xff\xc3\xa9" };
	char b[32];

	expo_family(e, "x_time_seconds", EXPO_COUNTER, "seconds", "Time \\ \"spent\"\nhere");
	expo_fmt_ns(b, sizeof(b), 1000000002);
	expo_sample(e, &l, 1, b);
	expo_family(e, "x_err", EXPO_INFO, NULL, "e");
	expo_sample(e, NULL, 0, "1");
	expo_one(e, "x_queued", EXPO_GAUGE, NULL, "q", 18446744073709551615ull);
	expo_end(e);
}

static void test_exposition(void **state)
{
	char *t = capture(write_some, false), *o = capture(write_some, true);

	(void)state;
	assert_string_equal(t,
		"# TYPE x_time_seconds_total counter\n"
		"# HELP x_time_seconds_total Time \\\\ \"spent\"\\nhere\n"
		"x_time_seconds_total{host=\"h\\\"1\",cgroup=\"/a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\"} 1.000000002\n"
		"# TYPE x_err_info gauge\n"
		"# HELP x_err_info e\n"
		"x_err_info{host=\"h\\\"1\"} 1\n"
		"# TYPE x_queued gauge\n"
		"# HELP x_queued q\n"
		"x_queued{host=\"h\\\"1\"} 18446744073709551615\n");
	assert_string_equal(o,
		"# TYPE x_time_seconds counter\n"
		"# UNIT x_time_seconds seconds\n"
		"# HELP x_time_seconds Time \\\\ \\\"spent\\\"\\nhere\n"
		"x_time_seconds_total{host=\"h\\\"1\",cgroup=\"/a\\\"b\\\\c\\nd\xef\xbf\xbd\xc3\xa9\"} 1.000000002\n"
		"# TYPE x_err info\n"
		"# HELP x_err e\n"
		"x_err_info{host=\"h\\\"1\"} 1\n"
		"# TYPE x_queued gauge\n"
		"# HELP x_queued q\n"
		"x_queued{host=\"h\\\"1\"} 18446744073709551615\n"
		"# EOF\n");
	free(t);
	free(o);
}

static void escaped(const char *in, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	expo_escape(f, in);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_utf8(void **state)
{
	(void)state;
	escaped("plain", "plain");
	escaped("\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80");	/* 3 and 4 bytes */
	escaped("\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");			/* overlong '/' */
	escaped("\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");	/* a surrogate */
	escaped("a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd");			/* cut at the end */
	escaped("\t", "\t");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_address),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_request_too_long),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
