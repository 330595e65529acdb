// SPDX-License-Identifier: MIT
/* The bounded queue and the sender thread: see agent_send.h. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tally/store.h>
#include "agent_send.h"

struct qent {
	struct tally_store_batch *b;
	size_t bytes;
	uint64_t samples;
	bool tried;		/* offered to the sink once: it may hold it (a reply lost) */
	struct qent *next;
};

struct agent_sender {
	struct agent_sink sink;
	struct agent_health *h;
	size_t max_bytes, bytes;
	struct qent *head, *tail;
	size_t n;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* work came, room came, or stop */
	pthread_t thread;
	bool stop;
	struct timespec deadline;	/* with stop: the last try's start */
	struct qent *inflight;		/* the head while the thread sends it: never dropped */
	/* nor once tried: the store may have taken it with the reply lost, so
	 * dropping it would count as dropped samples the store counts as sent;
	 * kept, its retry counts once (same batch id) */
	bool down;			/* the last try failed */
	char said[512];			/* the last error said on stderr */
	unsigned seed;
};

static struct timespec in_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

static bool past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/*
 * The oldest queued batch not being sent goes (mu held), its stacks to
 * the batch after it. false: none to drop.
 */
static bool drop_oldest(struct agent_sender *s, struct tally_store_batch *next_fallback)
{
	struct qent **pq = s->head && (s->head == s->inflight || s->head->tried) ? &s->head->next : &s->head;
	struct qent *q = *pq, *prev = pq == &s->head ? NULL : s->head;
	struct tally_store_batch *to;

	if (!q)
		return false;
	*pq = q->next;
	if (s->tail == q)
		s->tail = prev;
	s->n--;
	s->bytes -= q->bytes;
	to = q->next ? q->next->b : next_fallback;
	/* without memory for the move, the stacks come again: the next ones may lack one */
	if (to && tally_store_batch__give_stacks(q->b, to) == 0 && q->next) {
		size_t nb = tally_store_batch__bytes(to);

		s->bytes += nb - q->next->bytes;
		q->next->bytes = nb;
	}
	atomic_fetch_sub(&s->h->samples_queued, q->samples);
	atomic_fetch_sub(&s->h->bytes_queued, q->bytes);
	atomic_fetch_add(&s->h->samples_dropped, q->samples);
	fprintf(stderr, "tally agent: queue full (%zu bytes, --queue-size): dropped a batch of %llu samples\n",
		s->max_bytes, (unsigned long long)q->samples);
	tally_store_batch__free(q->b);
	free(q);
	return true;
}

void agent_sender_push(struct agent_sender *s, struct tally_store_batch *b, bool wait)
{
	struct qent *q = calloc(1, sizeof(*q));

	if (!q) {
		atomic_fetch_add(&s->h->samples_dropped, tally_store_batch__samples(b));
		fprintf(stderr, "tally agent: out of memory: dropped a batch\n");
		tally_store_batch__free(b);
		return;
	}
	q->b = b;
	q->bytes = tally_store_batch__bytes(b);
	q->samples = tally_store_batch__samples(b);
	pthread_mutex_lock(&s->mu);
	while (wait && s->head && s->bytes + q->bytes > s->max_bytes && !s->stop)
		pthread_cond_wait(&s->cv, &s->mu);
	while (s->head && s->bytes + q->bytes > s->max_bytes && drop_oldest(s, b))
		;
	if (s->tail)
		s->tail->next = q;
	else
		s->head = q;
	s->tail = q;
	s->n++;
	s->bytes += q->bytes;
	atomic_fetch_add(&s->h->samples_queued, q->samples);
	atomic_fetch_add(&s->h->bytes_queued, q->bytes);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* 0.5 s doubling to 30 s, each wait drawn from its upper half: hosts that lost the same server do not come back in step */
static long backoff_ms(struct agent_sender *s, int tries)
{
	long d = 500L << (tries < 6 ? tries : 6);

	if (d > 30000)
		d = 30000;
	return d / 2 + (long)(rand_r(&s->seed) % (unsigned)(d / 2 + 1));
}

static void *run(void *arg)
{
	struct agent_sender *s = arg;
	int tries = 0;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		struct qent *q;
		char err[512] = "";
		int rc;

		while (!s->head && !s->stop)
			pthread_cond_wait(&s->cv, &s->mu);
		if (!s->head || (s->stop && past(&s->deadline)))
			break;
		q = s->inflight = s->head;	/* stays queued while it is sent: counted as queued until it is in */
		pthread_mutex_unlock(&s->mu);
		rc = s->sink.send(s->sink.ctx, q->b, err, sizeof(err));
		pthread_mutex_lock(&s->mu);
		s->inflight = NULL;
		q->tried = true;
		if (!rc) {
			if (s->down)
				fprintf(stderr, "tally agent: %s answers again: sending the %zu batches queued\n",
					s->sink.name, s->n);
			s->down = false;
			s->said[0] = '\0';
			tries = 0;
			s->head = q->next;
			if (!s->head)
				s->tail = NULL;
			s->n--;
			s->bytes -= q->bytes;
			atomic_fetch_sub(&s->h->samples_queued, q->samples);
			atomic_fetch_sub(&s->h->bytes_queued, q->bytes);
			atomic_fetch_add(&s->h->samples_sent, q->samples);
			atomic_fetch_add(&s->h->bytes_sent, q->bytes);
			atomic_fetch_add(&s->h->batches_sent, 1);
			tally_store_batch__free(q->b);
			free(q);
			pthread_cond_broadcast(&s->cv);
			continue;
		}
		atomic_fetch_add(&s->h->batches_failed, 1);
		agent_health_error(s->h, "%s", err);
		{
			long wait = backoff_ms(s, tries++);
			struct timespec until = in_ms(wait);

			/* said once per kind of failure, with what waits: not a line per retry */
			if (strcmp(s->said, err)) {
				fprintf(stderr, "tally agent: %s: %s; retrying with backoff, %zu batches (%zu bytes, %llu samples) queued\n",
					s->sink.name, err, s->n, s->bytes,
					(unsigned long long)atomic_load(&s->h->samples_queued));
				snprintf(s->said, sizeof(s->said), "%s", err);
			}
			s->down = true;
			while (!past(&until) && !(s->stop && past(&s->deadline)))
				if (pthread_cond_timedwait(&s->cv, &s->mu, s->stop && s->deadline.tv_sec < until.tv_sec ?
							   &s->deadline : &until) == ETIMEDOUT)
					break;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

struct agent_sender *agent_sender_new(const struct agent_sink *sink, size_t max_bytes,
				      struct agent_health *h)
{
	struct agent_sender *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s)
		return NULL;
	s->sink = *sink;
	s->h = h;
	s->max_bytes = max_bytes;
	s->seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&s->thread, NULL, run, s)) {
		free(s);
		return NULL;
	}
	return s;
}

void agent_sender_finish(struct agent_sender *s, long deadline_ms)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	s->deadline = in_ms(deadline_ms);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	while (s->head) {
		struct qent *q = s->head;

		s->head = q->next;
		tally_store_batch__free(q->b);
		free(q);
	}
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s);
}
