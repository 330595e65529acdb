// SPDX-License-Identifier: MIT
/* perf's -G lists for stat and record: see cgroups.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cgroups.h"

static struct tally_evsel *evsel_at(struct tally_evlist *l, int i)
{
	struct tally_evsel *e = tally_evlist__first(l);

	while (e && i--)
		e = tally_evlist__next(l, e);
	return e;
}

void cli_cgroups_event(struct cli_cgroups *cg, struct cli_target *t)
{
	/* after -G a: an event of its own, with no cgroup (perf's) */
	if (cg->nr && cg->v[0].after)
		t->cgroup_per_event = true;
}

/*
 * -G: as perf, a cgroup for each event defined before it (a list: one
 * each, in order; one name: all of them). Before any -e (an error in
 * perf) one name counts every event.
 */
int cli_cgroups_add(struct cli_parse *p, struct cli_cgroups *cg, const struct cli_events *ev,
		    struct cli_target *t, const char *arg)
{
	if (!*arg || !strcmp(arg, ","))
		return cli_error(p, "%s", "-G needs a cgroup");
	if (cg->nr && cg->v[0].after == 0)
		return cli_error(p, "%s", "-G given twice: a -G before any -e counts every event");
	if (!ev->nr && strchr(arg, ','))
		return cli_error(p, "-G '%s': a list needs the events before it (-e first)", arg);
	if (cg->nr == (int)(sizeof(cg->v) / sizeof(cg->v[0])))
		return cli_error(p, "%s", "too many -G");
	cg->v[cg->nr].after = ev->nr;
	cg->v[cg->nr++].names = arg;
	if (!t->cgroup)
		t->cgroup = arg;
	/* one cgroup for every event, or each event its own */
	t->cgroup_per_event |= cg->nr > 1 || strchr(arg, ',');
	return 0;
}

void cg_fds_close(struct cg_fds *c)
{
	for (int i = 0; i < c->nr; i++)
		close(c->v[i].fd);
	c->nr = 0;
}

int cg_fds_set(const char *cmd, struct cg_fds *c, struct tally_evsel *e, const char *name,
	       size_t len)
{
	int i;

	if (len >= sizeof(c->v[0].name)) {
		fprintf(stderr, "tally %s: cgroup '%.*s': name too long\n", cmd, (int)len, name);
		return -1;
	}
	for (i = 0; i < c->nr; i++)
		if (strlen(c->v[i].name) == len && !strncmp(c->v[i].name, name, len))
			break;
	if (i == c->nr) {
		if (c->nr == (int)(sizeof(c->v) / sizeof(c->v[0]))) {
			fprintf(stderr, "tally %s: %s\n", cmd, "too many cgroups");
			return -1;
		}
		memcpy(c->v[i].name, name, len);
		c->v[i].name[len] = 0;
		c->v[i].fd = cli_cgroup_open(cmd, c->v[i].name);
		if (c->v[i].fd < 0)
			return -1;
		c->nr++;
	}
	if (tally_evsel__set_cgroup(e, c->v[i].fd, c->v[i].name)) {
		fprintf(stderr, "tally %s: %s\n", cmd, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * -G lists, as perf: each -G's names go to the events before it that
 * have none, one each in order (an empty name skips one); a single name
 * to all of them. nbefore[k]: the evsels before the k-th -G.
 */
int cli_cgroups_assign(const char *cmd, const struct cli_cgroups *cg, struct tally_evlist *l,
		       const int *nbefore, struct cg_fds *c)
{
	int cursor = 0;

	for (int k = 0; k < cg->nr; k++) {
		const char *s = cg->v[k].names;
		bool list = strchr(s, ',') != NULL;

		if (cursor >= nbefore[k]) {
			fprintf(stderr, "tally %s: -G '%s': no event before it without a cgroup\n", cmd, s);
			return -1;
		}
		while (*s) {
			const char *comma = strchr(s, ',');
			size_t len = comma ? (size_t)(comma - s) : strlen(s);
			int to = list ? cursor + 1 : nbefore[k];

			if (cursor >= nbefore[k]) {
				fprintf(stderr, "tally %s: -G '%s': more cgroups than events before it\n",
					cmd, cg->v[k].names);
				return -1;
			}
			for (; cursor < to; cursor++)
				if (len && cg_fds_set(cmd, c, evsel_at(l, cursor), s, len))
					return -1;
			if (!comma)
				break;
			s = comma + 1;
		}
	}
	return 0;
}

