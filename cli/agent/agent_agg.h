/* SPDX-License-Identifier: MIT */
/*
 * One interval's samples, aggregated by thread and stack as the session
 * resolved them, made into a store batch at the interval's end.
 */
#ifndef TALLY_CLI_AGENT_AGG_H
#define TALLY_CLI_AGENT_AGG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <tally/session.h>
#include <tally/store.h>

struct agent_agg;

/* live: the exe and cgroup of a pid read from /proc; a replay has neither */
struct agent_agg *agent_agg_new(struct tally_session *ss, bool live);
void agent_agg_free(struct agent_agg *a);
/* Count one sample (from the session's callback) in slot (an interval's number). 0 or -ENOMEM. */
int agent_agg_add(struct agent_agg *a, struct tally_session *ss, const struct tally_session_sample *smp,
		  uint32_t slot);
/* Samples counted since the last clear. */
uint64_t agent_agg_samples(const struct agent_agg *a);
/*
 * Slot's rows as a batch (NULL + errno ENOMEM; NULL with errno 0: none).
 * Stacks the store has (sent in an earlier batch of the same UTC day:
 * stacks are stored per day) are not put again. The rows stay (a
 * replay's repeats send them again, shifted).
 */
struct tally_store_batch *agent_agg_batch(struct agent_agg *a, uint32_t slot, const char *host,
					  uint64_t batch_id, time_t start);
/* Forget the rows (the stacks' frames too; the set of stacks sent stays). */
void agent_agg_clear(struct agent_agg *a);
/*
 * After a clear, between intervals: the names and build ids kept across
 * intervals forgotten when many or old (read again as met).
 */
void agent_agg_trim(struct agent_agg *a);
/* Each DSO file with a build id first seen since the last call: fn(ctx, path). */
void agent_agg_new_dsos(struct agent_agg *a, void (*fn)(void *ctx, const char *path), void *ctx);
/* --stdio: slot's top functions by samples. */
void agent_agg_print_top(const struct agent_agg *a, uint32_t slot, FILE *fp, time_t start, int n);

#endif
