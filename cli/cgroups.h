/* SPDX-License-Identifier: MIT */
/*
 * perf's -G for stat and record: each -G gives its cgroups to the events
 * defined before it that have none (a list: one each, in order; one
 * name: all of them; before any -e: every event), each event opened in
 * its own cgroup.
 */
#ifndef TALLY_CLI_CGROUPS_H
#define TALLY_CLI_CGROUPS_H

#include <tally/tally.h>
#include "event_opts.h"
#include "parse_options.h"
#include "target.h"

struct cli_cgroup_opt {
	int after;			/* the -e options before this -G */
	const char *names;
};

struct cli_cgroups {
	struct cli_cgroup_opt v[32];
	int nr;
};

/* The cgroup directory fds of a run's events. */
struct cg_fds {
	int nr;
	struct {
		char name[256];
		int fd;
	} v[64];
};

/* -G ARG after ev->nr -e options (t: the target it may set). 0 or -1 (cli_error). */
int cli_cgroups_add(struct cli_parse *p, struct cli_cgroups *cg, const struct cli_events *ev,
		    struct cli_target *t, const char *arg);
/* An -e after a -G: that event has no cgroup of its own. */
void cli_cgroups_event(struct cli_cgroups *cg, struct cli_target *t);
/* Give e the cgroup name (one fd per distinct name). 0 or -1 (said why). */
int cg_fds_set(const char *cmd, struct cg_fds *c, struct tally_evsel *e, const char *name,
	       size_t len);
void cg_fds_close(struct cg_fds *c);
/* The -G lists onto the evlist; nbefore[k]: the evsels before the k-th -G. 0 or -1. */
int cli_cgroups_assign(const char *cmd, const struct cli_cgroups *cg, struct tally_evlist *l,
		       const int *nbefore, struct cg_fds *c);

#endif
