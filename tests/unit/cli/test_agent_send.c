// SPDX-License-Identifier: MIT
/*
 * The agent's queue and sender against a fake sink: a batch the sink
 * took with its reply lost is never dropped by a full queue (the store
 * would count samples the agent counts as dropped); what the sink holds,
 * each batch once, is what the agent counts as sent; taken = sent +
 * dropped.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/store.h>
#include "agent.h"
#include "agent_send.h"

enum mode { UP, LOSE_REPLY, DOWN };

struct sink {
	pthread_mutex_t mu;
	enum mode mode;
	int calls;
	uint64_t held[64];		/* batch ids the store holds, each once */
	uint64_t samples[64];
	int n;
};

static int fake_send(void *ctx, const struct tally_store_batch *b, char *err, size_t n)
{
	struct sink *k = ctx;
	uint64_t id = tally_store_batch__id(b);
	int i, rc = 0;

	pthread_mutex_lock(&k->mu);
	k->calls++;
	if (k->mode == DOWN) {
		snprintf(err, n, "Couldn't connect to server");
		rc = -ECONNREFUSED;
	} else {
		for (i = 0; i < k->n && k->held[i] != id; i++)
			;
		if (i == k->n && k->n < 64) {
			k->held[k->n] = id;
			k->samples[k->n++] = tally_store_batch__samples(b);
		}
		if (k->mode == LOSE_REPLY) {
			snprintf(err, n, "Server returned nothing (no headers, no data)");
			rc = -EIO;
		}
	}
	pthread_mutex_unlock(&k->mu);
	return rc;
}

static struct tally_store_batch *batch(uint64_t id, uint64_t samples)
{
	struct tally_store_frame f = { .level = '.', .func = "main", .dso = "/bin/x", .offset = 0x10 + id };
	struct tally_store_batch *b = tally_store_batch__new("h", id, 1700000000);
	uint64_t sid;

	assert_non_null(b);
	sid = tally_store_batch__stack(b, &f, 1);
	assert_int_not_equal(sid, 0);
	assert_int_equal(tally_store_batch__add(b, &(struct tally_store_row){
		.pid = 1, .tid = 1, .comm = "x", .thread = "x", .exe = "/bin/x", .cgroup = "",
		.kind = "cpu", .event = "cpu-clock", .stack_id = sid, .value = samples,
		.period = samples * 1000 }), 0);
	return b;
}

static int calls(struct sink *k)
{
	int c;

	pthread_mutex_lock(&k->mu);
	c = k->calls;
	pthread_mutex_unlock(&k->mu);
	return c;
}

static void set_mode(struct sink *k, enum mode m)
{
	pthread_mutex_lock(&k->mu);
	k->mode = m;
	pthread_mutex_unlock(&k->mu);
}

static void test_reply_lost_then_full(void **state)
{
	static struct sink k = { .mu = PTHREAD_MUTEX_INITIALIZER, .mode = LOSE_REPLY };
	struct agent_health h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct agent_sink sink = { "fake", fake_send, &k };
	struct tally_store_batch *first = batch(1, 7);
	size_t one = tally_store_batch__bytes(first);
	struct agent_sender *s;
	uint64_t taken = 0, held = 0;
	int i, first_held = 0;

	(void)state;
	/* room for two batches: the third push must drop one */
	s = agent_sender_new(&sink, one * 2 + one / 2, &h);
	assert_non_null(s);
	agent_sender_push(s, first, false);
	taken += 7;
	for (i = 0; i < 500 && calls(&k) < 1; i++)
		usleep(2000);
	assert_true(calls(&k) >= 1);	/* the store took batch 1; its reply was lost */
	set_mode(&k, DOWN);
	for (i = 2; i <= 6; i++) {
		agent_sender_push(s, batch((uint64_t)i, (uint64_t)i), false);
		taken += (uint64_t)i;
	}
	assert_true(atomic_load(&h.samples_dropped) > 0);
	set_mode(&k, UP);
	agent_sender_finish(s, 10000);

	for (i = 0; i < k.n; i++) {
		held += k.samples[i];
		first_held += k.held[i] == 1;
	}
	assert_int_equal(first_held, 1);
	assert_int_equal(atomic_load(&h.samples_queued), 0);
	/* the store counts what the agent sent; nothing went uncounted */
	assert_int_equal(held, atomic_load(&h.samples_sent));
	assert_int_equal(atomic_load(&h.samples_sent) + atomic_load(&h.samples_dropped), taken);
}

/* a store down from the start: the oldest batches go, counted, and the rest arrive once it is up */
static void test_down_oldest_go(void **state)
{
	static struct sink k = { .mu = PTHREAD_MUTEX_INITIALIZER, .mode = DOWN };
	struct agent_health h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct agent_sink sink = { "fake", fake_send, &k };
	struct tally_store_batch *b = batch(1, 1);
	size_t one = tally_store_batch__bytes(b);
	struct agent_sender *s = agent_sender_new(&sink, one * 3 + one / 2, &h);
	uint64_t held = 0;
	int i;

	(void)state;
	assert_non_null(s);
	agent_sender_push(s, b, false);
	for (i = 2; i <= 10; i++)
		agent_sender_push(s, batch((uint64_t)i, 1), false);
	set_mode(&k, UP);
	agent_sender_finish(s, 10000);
	for (i = 0; i < k.n; i++)
		held += k.samples[i];
	assert_true(k.n <= 4);	/* the newest, and a head once tried */
	assert_true(atomic_load(&h.samples_dropped) > 0);
	assert_int_equal(held, atomic_load(&h.samples_sent));
	assert_int_equal(atomic_load(&h.samples_sent) + atomic_load(&h.samples_dropped), 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply_lost_then_full),
		cmocka_unit_test(test_down_oldest_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
