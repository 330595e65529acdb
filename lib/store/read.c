// SPDX-License-Identifier: MIT
/*
 * The reader's queries (docs/agent.md, "Reading the store"): the rows
 * merged by the server, GROUP BY the stack and the keys a report shows,
 * each batch once; then the frames of the stacks they name. A where's
 * values go in as quoted literals, never as SQL.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "store_internal.h"
#include "read_internal.h"

int tally_store__parse_time(const char *s, time_t now, time_t *out)
{
	struct tm tm = { 0 };
	char *end;
	const char *e;

	if (!s || !*s || !out)
		return -EINVAL;
	if (*s == '@') {
		long long v = strtoll(s + 1, &end, 10);

		if (end == s + 1 || *end || v < 0)
			return -EINVAL;
		*out = (time_t)v;
		return 0;
	}
	if (isdigit((unsigned char)*s) && (e = s + strspn(s, "0123456789")) && e[0] && !e[1] &&
	    strchr("smhd", e[0])) {
		long long v = strtoll(s, &end, 10);
		long long mul = e[0] == 's' ? 1 : e[0] == 'm' ? 60 : e[0] == 'h' ? 3600 : 86400;

		if (v < 0 || v > (long long)now / mul)
			return -EINVAL;
		*out = now - (time_t)(v * mul);
		return 0;
	}
	e = strptime(s, "%Y-%m-%d", &tm);
	if (e && (*e == ' ' || *e == 'T'))
		e = strptime(e + 1, "%H:%M:%S", &tm);
	if (!e || *e)
		return -EINVAL;
	*out = timegm(&tm);
	return 0;
}

/* A ClickHouse string literal of v: quotes and backslashes escaped, so no value is SQL. */
static void sql_str(struct tally__buf *b, const char *v)
{
	tally__buf_add(b, "'", 1);
	for (const char *p = v; *p; p++) {
		switch (*p) {
		case '\\': tally__buf_add(b, "\\\\", 2); break;
		case '\'': tally__buf_add(b, "\\'", 2); break;
		case '\n': tally__buf_add(b, "\\n", 2); break;
		case '\t': tally__buf_add(b, "\\t", 2); break;
		case '\r': tally__buf_add(b, "\\r", 2); break;
		default: tally__buf_add(b, p, 1);
		}
	}
	tally__buf_add(b, "'", 1);
}

static void addf(struct tally__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct tally__buf *b, const char *fmt, ...)
{
	char *t;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	tally__buf_add(b, t, (size_t)n);
	free(t);
}

static const char *const where_keys[] = {
	"host", "comm", "thread", "exe", "cgroup", "kind", "event", "pid", "tid", "build",
};
#define NKEYS (sizeof(where_keys) / sizeof(where_keys[0]))
#define NUMERIC(k) ((k) == 7 || (k) == 8)
#define BUILD 9

/*
 * The WHERE of the samples that q selects, into b ("1" for all). 0, or
 * -EINVAL with why in s->err.
 */
static int conditions(struct tally_store *s, const struct tally_store_query *q, struct tally__buf *b,
		      struct tally__buf *tb)
{
	time_t since = TALLY_OPTS_GET(q, since, 0), until = TALLY_OPTS_GET(q, until, 0);
	const char *where = TALLY_OPTS_GET(q, where, NULL);
	char *copy = where ? strdup(where) : NULL, *save = NULL, *tok;
	/* each key's values, in order: one IN (...) per key */
	char *vals[NKEYS][64];
	int nv[NKEYS] = { 0 };

	if (where && !copy)
		return -ENOMEM;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		size_t k;

		for (k = 0; eq && k < NKEYS; k++)
			if ((size_t)(eq - tok) == strlen(where_keys[k]) &&
			    !strncmp(tok, where_keys[k], (size_t)(eq - tok)))
				break;
		if (!eq || k == NKEYS) {
			snprintf(s->err, sizeof(s->err),
				 "'%s': KEY=VALUE with KEY host, comm, thread, exe, cgroup, "
				 "kind, event, pid, tid or build", tok);
			goto bad;
		}
		if ((NUMERIC(k) && (!eq[1] || strspn(eq + 1, "0123456789") != strlen(eq + 1) ||
				    strlen(eq + 1) > 10)) ||
		    (k == BUILD && (!eq[1] || strspn(eq + 1, "0123456789abcdefABCDEF") != strlen(eq + 1) ||
				    strlen(eq + 1) > 2 * TALLY_BUILD_ID_MAX))) {
			snprintf(s->err, sizeof(s->err), "'%s': %s", tok,
				 k == BUILD ? "a build id in hex" : "a number");
			goto bad;
		}
		if (nv[k] == 64) {
			snprintf(s->err, sizeof(s->err), "more than 64 values of %s", where_keys[k]);
			goto bad;
		}
		for (char *c = eq + 1; k == BUILD && *c; c++)
			*c = (char)tolower((unsigned char)*c);
		vals[k][nv[k]++] = eq + 1;
	}
	/* the day first: ClickHouse skips the partitions outside it */
	tally__buf_add(tb, "1", 1);
	if (since)
		addf(tb, " AND date >= toDate(toDateTime(%lld)) AND time >= toDateTime(%lld)",
		     (long long)since, (long long)since);
	if (until)
		addf(tb, " AND date <= toDate(toDateTime(%lld)) AND time < toDateTime(%lld)",
		     (long long)until, (long long)until);
	tally__buf_add(b, tb->p, tb->len);
	for (size_t k = 0; k < NKEYS; k++) {
		if (!nv[k])
			continue;
		if (k == BUILD)
			/* GLOBAL: over Distributed tables the subquery runs once, on the initiator */
			addf(b, " AND stack_id GLOBAL IN (SELECT stack_id FROM %s.stacks WHERE hasAny(build_ids, [",
			     s->db);
		else
			addf(b, " AND %s IN (", where_keys[k]);
		for (int i = 0; i < nv[k]; i++) {
			if (i)
				tally__buf_add(b, ",", 1);
			if (NUMERIC(k))
				tally__buf_add(b, vals[k][i], strlen(vals[k][i]));
			else
				sql_str(b, vals[k][i]);
		}
		tally__buf_add(b, k == BUILD ? "]))" : ")", k == BUILD ? 3 : 1);
	}
	free(copy);
	tally__buf_add(b, "", 1);
	tally__buf_add(tb, "", 1);
	return b->oom || tb->oom ? -ENOMEM : 0;
bad:
	free(copy);
	return -EINVAL;
}

/* One TSV field unescaped in place (ClickHouse's TabSeparated escapes). */
static char *unescape(char *f)
{
	char *w = f;

	for (char *r = f; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		switch (*++r) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case '0': *w++ = '\0'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		default: *w++ = *r;
		}
	}
	*w = '\0';
	return f;
}

/* Split line into n fields (exactly n: else -1). */
static int fields(char *line, char **f, int n)
{
	int i = 0;

	for (char *p = line; i < n; i++) {
		char *t = strchr(p, '\t');

		f[i] = p;
		if (!t) {
			i++;
			break;
		}
		*t = '\0';
		p = t + 1;
	}
	if (i != n)
		return -1;
	for (i = 0; i < n; i++)
		unescape(f[i]);
	return 0;
}

static bool u64_of(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

/* The merged rows: host pid tid comm thread event stack_id value period time first */
static int parse_rows(struct tally_store_profile *p, char *ans)
{
	char *save = NULL, *f[11];

	for (char *line = strtok_r(ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct store_row r;
		uint64_t pid, tid;

		if (fields(line, f, 11) || !u64_of(f[1], &pid) || !u64_of(f[2], &tid) ||
		    !u64_of(f[6], &r.stack_id) || !u64_of(f[7], &r.value) ||
		    !u64_of(f[8], &r.period) || !u64_of(f[9], &r.time) || !u64_of(f[10], &r.first))
			return -EBADMSG;
		r.pid = (uint32_t)pid;
		r.tid = (uint32_t)tid;
		if (!(r.host = tally__profile_str(p, f[0])) || !(r.comm = tally__profile_str(p, f[3])) ||
		    !(r.thread = tally__profile_str(p, f[4])) || !(r.event = tally__profile_str(p, f[5])) ||
		    tally__profile_grow((void **)&p->rows, &p->cap_rows, p->nrows + 1, sizeof(r)))
			return -ENOMEM;
		if (!r.value)
			continue;
		p->rows[p->nrows++] = r;
		p->samples += r.value;
	}
	return 0;
}

/* The frames, one a line in each stack's order: stack_id level func symoff dso build_id offset srcline */
static int parse_frames(struct tally_store_profile *p, char *ans)
{
	char *save = NULL, *f[8];
	struct store_stack *cur = NULL;

	for (char *line = strtok_r(ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct store_frame fr = { 0 };
		uint64_t id, level;

		if (fields(line, f, 8) || !u64_of(f[0], &id) || !u64_of(f[1], &level) ||
		    !u64_of(f[3], &fr.symoff) || !u64_of(f[6], &fr.offset))
			return -EBADMSG;
		fr.level = level == 'k' ? 'k' : '.';
		if (!(fr.func = tally__profile_str(p, f[2])) || !(fr.dso = tally__profile_str(p, f[4])) ||
		    !(fr.build_id = tally__profile_str(p, f[5])) ||
		    !(fr.srcline = tally__profile_str(p, f[7])) ||
		    tally__profile_grow((void **)&p->frames, &p->cap_frames, p->nframes + 1, sizeof(fr)))
			return -ENOMEM;
		if (!cur || cur->id != id) {
			if (tally__profile_grow((void **)&p->stacks, &p->cap_stacks, p->nstacks + 1, sizeof(*cur)))
				return -ENOMEM;
			cur = &p->stacks[p->nstacks++];
			*cur = (struct store_stack){ .id = id, .first = p->nframes };
		}
		p->frames[p->nframes++] = fr;
		cur->n++;
	}
	tally__profile_sort_stacks(p);
	return 0;
}

static int run(struct tally_store *s, struct tally__buf *sql, char **ans)
{
	tally__buf_add(&*sql, "", 1);
	if (sql->oom)
		return -ENOMEM;
	return tally_store__query(s, (const char *)sql->p, NULL, 0, ans, NULL);
}

/*
 * The batches of the range stored more than once (a retry after a lost
 * reply): more rows than its row numbers. FINAL would collapse them too,
 * but 18.16 merges for it on one thread: 3.3 s where this and the plain
 * GROUP BY take 0.3 s each, over 7.7 M rows (bench/store_read.sh). A
 * batch is found by its batch-level keys only (the time), so that a
 * where on a row's keys cannot hide its copy. Their ids into ids
 * ("" none), comma-separated.
 */
static int duplicated(struct tally_store *s, const char *tcond, struct tally__buf *ids)
{
	struct tally__buf sql = { 0 };
	char *ans = NULL, *save = NULL;
	int err;

	addf(&sql, "SELECT DISTINCT batch_id FROM (SELECT host, batch_id FROM %s.samples WHERE %s "
		   "GROUP BY host, batch_id HAVING count() > max(row) + 1) FORMAT TabSeparated",
	     s->db, tcond);
	err = run(s, &sql, &ans);
	for (char *l = err ? NULL : strtok_r(ans, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strspn(l, "0123456789") != strlen(l)) {
			err = -EBADMSG;
			break;
		}
		if (ids->len)
			tally__buf_add(ids, ",", 1);
		tally__buf_add(ids, l, strlen(l));
	}
	tally__buf_add(ids, "", 1);
	if (!err && ids->oom)
		err = -ENOMEM;
	free(ans);
	tally__buf_free(&sql);
	return err;
}

/* what the merge reads of a row */
#define COLS "host, pid, tid, comm, thread, event, stack_id, value, period, time, row"

/*
 * The stacks the rows name, as a condition: their ids when they are few
 * enough for a statement (ClickHouse's max_query_size, 256 KiB), else
 * the rows' query again.
 */
static void stack_ids(const struct tally_store_profile *p, struct tally__buf *b, const char *db,
		      const char *cond)
{
	uint64_t last = 0;
	size_t n = 0;

	/* GLOBAL: over Distributed tables the subquery runs once, on the initiator */
	if (p->nrows > 8192) {
		addf(b, "stack_id GLOBAL IN (SELECT stack_id FROM %s.samples WHERE %s)", db, cond);
		return;
	}
	tally__buf_add(b, "stack_id IN (", 13);
	for (size_t i = 0; i < p->nrows; i++) {
		/* the rows come by host, thread, stack: most repeats are apart, the IN takes them */
		if (p->rows[i].stack_id == last && n)
			continue;
		last = p->rows[i].stack_id;
		addf(b, "%s%" PRIu64, n++ ? "," : "", last);
	}
	tally__buf_add(b, ")", 1);
}

struct tally_store_profile *tally_store__read(struct tally_store *s,
					      const struct tally_store_query *q)
{
	struct tally__buf cond = { 0 }, tcond = { 0 }, dups = { 0 }, from = { 0 }, sql = { 0 }, ids = { 0 };
	bool threads = TALLY_OPTS_GET(q, threads, false);
	const char *keys = threads ? "host, pid, tid, comm, thread, event, stack_id" :
				     "comm, thread, event, stack_id";
	struct tally_store_profile *p;
	char *ans = NULL;
	int err;

	if (!s || (q && !TALLY_OPTS_VALID(q, tally_store_query))) {
		errno = EINVAL;
		return NULL;
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		errno = ENOMEM;
		return NULL;
	}
	p->fd = -1;
	p->merged = !threads;
	if ((err = conditions(s, q, &cond, &tcond)) || (err = duplicated(s, (char *)tcond.p, &dups)))
		goto out;
	/* each batch once: those stored twice row by row (LIMIT 1 BY), the rest as they are */
	if (dups.len > 1)
		addf(&from, "(SELECT %s FROM %s.samples WHERE (%s) AND batch_id NOT IN (%s) UNION ALL "
			    "SELECT %s FROM (SELECT %s, batch_id FROM %s.samples WHERE (%s) AND "
			    "batch_id IN (%s) LIMIT 1 BY host, batch_id, row))",
		     COLS, s->db, (char *)cond.p, (char *)dups.p, COLS, COLS, s->db, (char *)cond.p,
		     (char *)dups.p);
	else
		addf(&from, "%s.samples WHERE %s", s->db, (char *)cond.p);
	tally__buf_add(&from, "", 1);
	if (from.oom) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * The merge, in the server: a row per stack and the keys a report
	 * shows. With threads, per host and thread (pids are per host); else
	 * per thread name across hosts and processes.
	 */
	/* with its first interval's row number: the order the agent first saw the rows in */
	addf(&sql, "SELECT %s, %s, sum(value), sum(period), toUInt32(min(time)), "
		   "argMin(row, time) FROM %s "
		   "GROUP BY %s ORDER BY %s FORMAT TabSeparated",
	     threads ? "host, pid, tid" : "'', 0, 0", "comm, thread, event, stack_id",
	     (char *)from.p, keys, keys);
	if ((err = run(s, &sql, &ans)) || (err = parse_rows(p, ans)))
		goto out;
	free(ans);
	ans = NULL;
	sql.len = 0;
	/* the stacks those rows name, once each (a stack sent on two days is two rows) */
	stack_ids(p, &ids, s->db, (char *)cond.p);
	tally__buf_add(&ids, "", 1);
	addf(&sql, "SELECT stack_id, lv, fn, so, ds, bi, fo, sl FROM (SELECT stack_id, levels, funcs, "
		   "symoffs, dsos, build_ids, offsets, srclines FROM %s.stacks WHERE %s "
		   "LIMIT 1 BY stack_id) "
		   "ARRAY JOIN levels AS lv, funcs AS fn, symoffs AS so, dsos AS ds, "
		   "build_ids AS bi, offsets AS fo, srclines AS sl FORMAT TabSeparated",
	     s->db, (char *)ids.p);
	if (p->nrows && ((err = run(s, &sql, &ans)) || (err = parse_frames(p, ans))))
		goto out;
	if ((err = tally__profile_names(p, s)) || (err = tally__profile_write(p)))
		goto out;
out:
	if (err == -EBADMSG)
		snprintf(s->err, sizeof(s->err), "the server's answer is not the schema's rows");
	free(ans);
	tally__buf_free(&cond);
	tally__buf_free(&tcond);
	tally__buf_free(&dups);
	tally__buf_free(&from);
	tally__buf_free(&ids);
	tally__buf_free(&sql);
	if (err) {
		tally_store_profile__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

void tally_store_profile__free(struct tally_store_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->ntables; i++) {
		free(p->tables[i].syms);
		for (size_t k = 0; k < p->tables[i].nlines; k++)
			free((char *)p->tables[i].lines[k].file);
		free(p->tables[i].lines);
	}
	free(p->tables);
	free(p->rows);
	free(p->frames);
	free(p->stacks);
	tally__strpool_free(&p->pool);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

uint64_t tally_store_profile__samples(const struct tally_store_profile *p)
{
	return p ? p->samples : 0;
}

size_t tally_store_profile__rows(const struct tally_store_profile *p)
{
	return p ? p->nrows : 0;
}
