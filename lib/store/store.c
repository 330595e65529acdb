// SPDX-License-Identifier: MIT
/*
 * The store: a ClickHouse database over its HTTP interface. Statements
 * name their tables with the database (db.samples), so no request
 * depends on a default database that may not exist yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "store_internal.h"

/* LowCardinality is experimental in 18.16: every request allows it. */
#define SETTINGS "allow_experimental_low_cardinality_type=1"

static bool db_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/* http://HOST[:PORT]/[?database=DB&...]: base, database, the rest */
static int parse_url(struct tally_store *s, const char *url)
{
	const char *q, *p;
	size_t n;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return -EINVAL;
	q = strchr(url, '?');
	n = q ? (size_t)(q - url) : strlen(url);
	if (!(s->base = malloc(n + 2)) || !(s->extra = calloc(1, strlen(url) + 2)))
		return -ENOMEM;
	memcpy(s->base, url, n);
	s->base[n] = '\0';
	if (n && s->base[n - 1] != '/')
		strcat(s->base, "/");
	snprintf(s->db, sizeof(s->db), "tally");
	for (p = q ? q + 1 : NULL; p && *p;) {
		const char *end = strchr(p, '&');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > 9 && !strncmp(p, "database=", 9)) {
			if (len - 9 >= sizeof(s->db))
				return -EINVAL;
			memcpy(s->db, p + 9, len - 9);
			s->db[len - 9] = '\0';
		} else if (len) {
			strcat(s->extra, "&");
			strncat(s->extra, p, len);
		}
		p = end ? end + 1 : NULL;
	}
	return db_name_ok(s->db) ? 0 : -EINVAL;
}

struct tally_store *tally_store__open(const struct tally_store_opts *o)
{
	struct tally_store *s;
	int err;

	if (!TALLY_OPTS_VALID(o, tally_store_opts) || !o || !o->url) {
		errno = EINVAL;
		return NULL;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		errno = ENOMEM;
		return NULL;
	}
	if ((err = parse_url(s, o->url)) ||
	    (o->user && !(s->user = strdup(o->user))) ||
	    (o->password && !(s->password = strdup(o->password)))) {
		tally_store__close(s);
		errno = err ? -err : ENOMEM;
		return NULL;
	}
	s->timeout_ms = TALLY_OPTS_GET(o, timeout_ms, 0);
	if (!(s->http = tally__http_new(s->err, sizeof(s->err)))) {
		err = errno;
		tally__pr(TALLY_LOG_WARN, "%s\n", s->err);
		tally_store__close(s);
		errno = err;
		return NULL;
	}
	return s;
}

void tally_store__close(struct tally_store *s)
{
	if (!s)
		return;
	tally__http_free(s->http);
	free(s->base);
	free(s->extra);
	free(s->user);
	if (s->password)
		memset(s->password, 0, strlen(s->password));
	free(s->password);
	tally__buf_free(&s->ans);
	free(s);
}

const char *tally_store__database(const struct tally_store *s)
{
	return s ? s->db : NULL;
}

const char *tally_store__error(const struct tally_store *s)
{
	return s ? s->err : "";
}

/* The server's message, on one line, without its C++ tail */
static void server_error(struct tally_store *s, long status)
{
	char *m = s->ans.len ? (char *)s->ans.p : "";
	size_t n = s->ans.len;
	char *w;

	while (n && (m[n - 1] == '\n' || m[n - 1] == ' ' || m[n - 1] == '\r'))
		n--;
	snprintf(s->err, sizeof(s->err), "HTTP %ld: %.*s", status, (int)(n > 400 ? 400 : n), m);
	if ((w = strstr(s->err, ", e.what() = ")))
		*w = '\0';
	for (w = s->err; *w; w++)
		if (*w == '\n')
			*w = ' ';
}

int tally_store__query(struct tally_store *s, const char *sql, const void *body, size_t len,
		       char **out, size_t *out_len)
{
	struct tally__http_req r = {
		.user = s->user, .password = s->password, .timeout_ms = s->timeout_ms,
	};
	char *url, *esc = NULL;
	long status;
	int err;

	if (out)
		*out = NULL;
	if (!s || !sql)
		return -EINVAL;
	s->err[0] = '\0';
	/* with rows to send, the statement rides in the URL; alone, it is the body */
	if (body && !(esc = tally__http_escape(s->http, sql)))
		return -ENOMEM;
	if (asprintf(&url, "%s?" SETTINGS "%s%s%s", s->base, s->extra, esc ? "&query=" : "",
		     esc ? esc : "") < 0) {
		free(esc);
		return -ENOMEM;
	}
	free(esc);
	r.url = url;
	r.body = body ? body : sql;
	r.len = body ? len : strlen(sql);
	err = tally__http_post(s->http, &r, &s->ans, &status, s->err, sizeof(s->err));
	free(url);
	if (err)
		return err;
	if (status != 200) {
		server_error(s, status);
		return -EPROTO;
	}
	if (out) {
		tally__buf_add(&s->ans, "", 1);
		if (s->ans.oom || !(*out = malloc(s->ans.len)))
			return -ENOMEM;
		memcpy(*out, s->ans.p, s->ans.len);
		if (out_len)
			*out_len = s->ans.len - 1;
	}
	return 0;
}

/* docs/agent.md's schema: keep the two the same */
static const char *const ddl[] = {
	"CREATE DATABASE IF NOT EXISTS @",
	"CREATE TABLE IF NOT EXISTS @.samples (date Date, time DateTime, host LowCardinality(String), "
	"batch_id UInt64, row UInt32, kind LowCardinality(String), event LowCardinality(String), "
	"pid UInt32, tid UInt32, comm LowCardinality(String), thread LowCardinality(String), "
	"exe LowCardinality(String), cgroup LowCardinality(String), "
	"stack_id UInt64, value UInt64, period UInt64) "
	"ENGINE = ReplacingMergeTree PARTITION BY date ORDER BY (host, time, batch_id, row)",
	"CREATE TABLE IF NOT EXISTS @.stacks (date Date, stack_id UInt64, levels Array(UInt8), "
	"funcs Array(String), symoffs Array(UInt64), dsos Array(String), build_ids Array(String), "
	"offsets Array(UInt64), srclines Array(String)) "
	"ENGINE = ReplacingMergeTree PARTITION BY date ORDER BY stack_id",
	"CREATE TABLE IF NOT EXISTS @.symbols (build_id String, start UInt64, size UInt64, name String) "
	"ENGINE = ReplacingMergeTree ORDER BY (build_id, start)",
};

int tally_store__create(struct tally_store *s)
{
	char sql[1024];
	int err;

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(ddl) / sizeof(ddl[0]); i++) {
		const char *at = strchr(ddl[i], '@');

		/* the database's name where the text has its '@' */
		snprintf(sql, sizeof(sql), "%.*s%s%s", (int)(at - ddl[i]), ddl[i], s->db, at + 1);
		if ((err = tally_store__query(s, sql, NULL, 0, NULL, NULL)))
			return err;
	}
	return 0;
}

int tally_store__drop_days_before(struct tally_store *s, time_t t)
{
	char sql[512], day[16], *ans = NULL, *line, *save = NULL;
	struct tm tm;
	int err, n = 0;

	if (!s)
		return -EINVAL;
	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	snprintf(sql, sizeof(sql),
		 "SELECT DISTINCT table, partition FROM system.parts WHERE database = '%s' AND "
		 "table IN ('samples', 'stacks') AND active AND partition < '%s' ORDER BY partition",
		 s->db, day);
	if ((err = tally_store__query(s, sql, NULL, 0, &ans, NULL)))
		return err;
	for (line = strtok_r(ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tab = strchr(line, '\t');

		/* a partition is a day, YYYY-MM-DD: anything else is not ours to drop */
		if (!tab || strlen(tab + 1) != 10 || strspn(tab + 1, "0123456789-") != 10)
			continue;
		*tab = '\0';
		snprintf(sql, sizeof(sql), "ALTER TABLE %s.%s DROP PARTITION '%s'", s->db, line, tab + 1);
		if ((err = tally_store__query(s, sql, NULL, 0, NULL, NULL))) {
			free(ans);
			return err;
		}
		n++;
	}
	free(ans);
	return n;
}
