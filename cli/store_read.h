/* SPDX-License-Identifier: MIT */
/*
 * The store's side of the commands (agent, report --from, diff --from):
 * its credentials, and a profile read from it as a perf.data to show.
 */
#ifndef TALLY_CLI_STORE_READ_H
#define TALLY_CLI_STORE_READ_H

#include <tally/tally.h>
#include <tally/store.h>

/*
 * The store's user and password: file's "user=NAME" and
 * "password=SECRET" lines, or one "NAME:SECRET" line; no file:
 * $TALLY_STORE_USER and $TALLY_STORE_PASSWORD (never argv). 0, or -1
 * after saying why ("tally CMD: --store-auth-file ...").
 */
int cli_store_auth(const char *cmd, const char *file, char **user, char **password);

/* --from and its selection */
struct cli_from {
	const char *url;		/* NULL: not from a store */
	const char *since, *until;	/* tally_store__parse_time's */
	const char *where;
	const char *auth_file;
	bool threads;			/* each host's threads apart (tally_store_query's) */
	struct tally_store *store;
	struct tally_store_profile *profile;
};

/*
 * Read the profile that f (its since, until and where: those of spec
 * when spec is not NULL, "since=2h,until=1h,host=h1" for diff's sides)
 * selects; its perf.data's path in *path. 0; else the status to exit
 * with after saying why in one line (1: a store that does not answer or
 * refuses, a bad selection; 129: a bad option).
 */
int cli_from_read(struct cli_from *f, const char *cmd, const char *spec, const char **path);
/* The samples a sample of the profile stands for (1 off a store). */
uint64_t cli_from_count(const struct cli_from *f, const struct tally_session_sample *smp);
void cli_from_free(struct cli_from *f);

#endif
