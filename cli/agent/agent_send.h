/* SPDX-License-Identifier: MIT */
/*
 * The agent's send path: a bounded queue of batches and a thread that
 * delivers them to a sink, retrying with backoff and jitter while the
 * sink is down, so that sampling never waits on the network. A sink is
 * one call: ClickHouse today (agent_run.c's), OTLP profiles next.
 */
#ifndef TALLY_CLI_AGENT_SEND_H
#define TALLY_CLI_AGENT_SEND_H

#include <stdbool.h>
#include <stddef.h>
#include "agent.h"

struct tally_store_batch;

struct agent_sink {
	const char *name;		/* "ClickHouse at http://..." for messages */
	/* deliver b: 0, or -errno with the reason in err */
	int (*send)(void *ctx, const struct tally_store_batch *b, char *err, size_t n);
	void *ctx;
};

struct agent_sender;

struct agent_sender *agent_sender_new(const struct agent_sink *sink, size_t max_bytes,
				      struct agent_health *h);
/*
 * Queue b (the sender's from now on). Never waits on the network: past
 * max_bytes the oldest queued batches go (counted as dropped, said on
 * stderr; their stacks move to the next batch), never one already
 * offered to the sink (it may hold it, the reply lost: kept, its retry
 * counts once), so the queue may pass max_bytes by that one. With wait (a replay,
 * where nothing is sampled meanwhile) it waits for room instead.
 */
void agent_sender_push(struct agent_sender *s, struct tally_store_batch *b, bool wait);
/*
 * Deliver what is queued, trying until deadline_ms from now, then stop
 * the thread and free it. What could not be sent stays counted as
 * queued.
 */
void agent_sender_finish(struct agent_sender *s, long deadline_ms);

#endif
