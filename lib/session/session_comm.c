// SPDX-License-Identifier: MIT
/*
 * The names of a session's threads as its samples carry them: perf's
 * ":TID" for a thread no COMM named, and the last sample's answer kept
 * for the next (session_internal.h). Below session.c and its queries,
 * which both ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <tally/session.h>
#include "internal.h"
#include "session_internal.h"
#include "symbols_internal.h"

const char *tally__session_unnamed_comm(struct tally_session *s, int32_t pid, int32_t tid)
{
	char name[24];
	const char *c;
	struct session_rename *n;

	snprintf(name, sizeof(name), ":%d", (int)tid);
	if (tally__machine_default_comm(s->m, pid, tid, name) ||
	    !(c = tally_machine__comm_of(s->m, tid)))
		return NULL;
	n = realloc(s->renames, (s->nrenames + 1) * sizeof(*n));
	if (n) {
		s->renames = n;
		n[s->nrenames++] = (struct session_rename){ .tid = tid, .dflt = c };
	}
	return c;
}

const char *tally__session_thread_comm_slow(struct tally_session *s, int32_t pid, int32_t tid)
{
	const char *c = tally_machine__comm_of(s->m, tid);

	if (!c)
		c = tally__session_unnamed_comm(s, pid, tid);
	s->comms[(uint32_t)tid % SESSION_COMM_SLOTS] =
		(struct session_comm_slot){ .comm = c, .tid = tid, .gen = s->maps_gen };
	return c;
}
