// SPDX-License-Identifier: MIT
/* The store's credentials and --from's profile: see store_read.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "store_read.h"

int cli_store_auth(const char *cmd, const char *file, char **user, char **password)
{
	const char *u = getenv("TALLY_STORE_USER"), *pw = getenv("TALLY_STORE_PASSWORD");
	char line[512];
	FILE *f;

	*user = *password = NULL;
	if (!file) {
		*user = u ? strdup(u) : NULL;
		*password = pw ? strdup(pw) : NULL;
		return 0;
	}
	if (!(f = fopen(file, "re"))) {
		fprintf(stderr, "tally %s: --store-auth-file %s: %s\n", cmd, file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		if (!strncmp(line, "user=", 5)) {
			free(*user);
			*user = strdup(line + 5);
		} else if (!strncmp(line, "password=", 9)) {
			free(*password);
			*password = strdup(line + 9);
		} else if ((colon = strchr(line, ':')) && !*user) {
			*colon = '\0';
			*user = strdup(line);
			*password = strdup(colon + 1);
		} else {
			fprintf(stderr, "tally %s: --store-auth-file %s: '%s' is not user=, password= or USER:PASSWORD\n",
				cmd, file, line);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!*user) {
		fprintf(stderr, "tally %s: --store-auth-file %s names no user\n", cmd, file);
		return -1;
	}
	return 0;
}

/*
 * A side of diff: "since=2h,until=1h,host=h1": since and until are the
 * range's, the rest the where's (its copy in *where, the caller's).
 */
static int parse_spec(const char *cmd, const char *spec, const char **since, const char **until,
		      char **where, char **copy)
{
	char *save = NULL, *tok;
	size_t len = 0;

	if (!(*copy = strdup(spec)) || !(*where = calloc(1, strlen(spec) + 1)))
		return -ENOMEM;
	for (tok = strtok_r(*copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "since=", 6)) {
			*since = tok + 6;
		} else if (!strncmp(tok, "until=", 6)) {
			*until = tok + 6;
		} else if (!strchr(tok, '=')) {
			fprintf(stderr, "tally %s: '%s': a side is KEY=VALUE,...: since=, until=, "
				"or a --where key (host=, comm=, build=...)\n", cmd, spec);
			return -EINVAL;
		} else {
			len += (size_t)sprintf(*where + len, "%s%s", len ? "," : "", tok);
		}
	}
	return 0;
}

static int time_of(const char *cmd, const char *opt, const char *v, time_t now, time_t *out)
{
	if (!v)
		return 0;
	if (tally_store__parse_time(v, now, out)) {
		fprintf(stderr, "tally %s: %s '%s': a duration before now (30s, 15m, 1h, 2d), "
			"'YYYY-MM-DD HH:MM:SS' (UTC) or @SECONDS\n", cmd, opt, v);
		return -1;
	}
	return 0;
}

int cli_from_read(struct cli_from *f, const char *cmd, const char *spec, const char **path)
{
	const char *since = f->since, *until = f->until, *where = f->where;
	char *spec_where = NULL, *copy = NULL;
	char *user = NULL, *password = NULL;
	time_t now = time(NULL), t0 = 0, t1 = 0;
	int ret = 1;

	if (spec) {
		since = until = NULL;
		if (parse_spec(cmd, spec, &since, &until, &spec_where, &copy)) {
			ret = 129;
			goto out;
		}
		/* --where for both sides, then the side's own */
		if (f->where && *spec_where) {
			char *both;

			if (asprintf(&both, "%s,%s", f->where, spec_where) < 0)
				goto out;
			free(spec_where);
			spec_where = both;
		} else if (f->where) {
			free(spec_where);
			spec_where = strdup(f->where);
		}
		where = spec_where;
	}
	if (time_of(cmd, "--since", since, now, &t0) || time_of(cmd, "--until", until, now, &t1)) {
		ret = 129;
		goto out;
	}
	if (cli_store_auth(cmd, f->auth_file, &user, &password))
		goto out;
	if (!f->store) {
		TALLY_OPTS(tally_store_opts, so, .url = f->url, .user = user, .password = password);

		if (!(f->store = tally_store__open(&so))) {
			fprintf(stderr, "tally %s: --from %s: %s\n", cmd, f->url,
				errno == EINVAL ? "not http(s)://HOST:PORT/?database=DB" : strerror(errno));
			goto out;
		}
	}
	{
		TALLY_OPTS(tally_store_query, q, .since = t0, .until = t1, .where = where,
			   .threads = f->threads);

		tally_store_profile__free(f->profile);
		if (!(f->profile = tally_store__read(f->store, &q))) {
			int e = errno;

			fprintf(stderr, "tally %s: %s%s: %s\n", cmd, e == EINVAL ? "--where " : "",
				e == EINVAL ? where : f->url,
				*tally_store__error(f->store) ? tally_store__error(f->store) : strerror(e));
			ret = e == EINVAL ? 129 : 1;	/* a bad option's status */
			goto out;
		}
	}
	if (!tally_store_profile__samples(f->profile)) {
		/* as perf report of a file without samples, in one line */
		fprintf(stderr, "tally %s: %s: no samples%s%s%s%s%s%s\n", cmd, f->url,
			since ? " since " : "", since ? since : "", until ? " until " : "",
			until ? until : "", where && *where ? " where " : "", where ? where : "");
		goto out;
	}
	*path = tally_store_profile__path(f->profile);
	ret = 0;
out:
	if (password)
		memset(password, 0, strlen(password));
	free(user);
	free(password);
	free(spec_where);
	free(copy);
	return ret;
}

uint64_t cli_from_count(const struct cli_from *f, const struct tally_session_sample *smp)
{
	return f && f->profile ? tally_store_profile__count(f->profile, smp) : 1;
}

void cli_from_free(struct cli_from *f)
{
	tally_store_profile__free(f->profile);
	tally_store__close(f->store);
	f->profile = NULL;
	f->store = NULL;
}
