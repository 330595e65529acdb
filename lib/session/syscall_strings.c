// SPDX-License-Identifier: MIT
/*
 * The strings of syscall arguments through BPF (see syscall_strings.h):
 * the one module that talks to libbpf. bpf/syscall_strings.bpf.c, built
 * by clang and turned into a skeleton by bpftool at build time, puts each
 * string in a BPF ring buffer; here they wait in a small queue per
 * thread until the tracer's call of the same thread, syscall and time
 * takes them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <tally/data_read.h>
#include <tally/syscall_strings.h>
#include "syscall_strings.skel.h"

#define STR_MAX		256	/* as the BPF program's */
#define QMAX		65536	/* strings queued per thread: a batch's, with room */
#define KEEP_NS		2000000000ull	/* a string no call took in 2 s never will */
#define AT_EXIT		0x100	/* the string was read at the call's exit */
#define MATCH_NS	1000000	/* a string and its call: the same tracepoint hit, µs apart */

struct str_event {		/* the BPF program's record */
	uint32_t tid, nr;
	uint64_t time;
	uint32_t arg;
	int32_t len;
	char str[STR_MAX];
};

/* a string waiting for its call */
struct sent {
	uint64_t time;
	uint32_t nr, arg;
	char *str;		/* NULL: unreadable */
};

/* a thread's strings, oldest first: v[head, head + n) */
struct sq {
	pid_t tid;
	struct sq *next;
	size_t head, n, cap;
	struct sent *v;
};

/* a recording's syscall sample, waiting for its strings */
struct call {
	uint64_t time;
	pid_t tid;
	int nr;
	bool at_exit;
};

struct tally_sc_strings {
	struct syscall_strings *skel;	/* NULL: a file's strings */
	struct ring_buffer *rb;
	struct sq *hash[1024];
	uint64_t newest;		/* the latest string's time */
	bool recording;			/* note/flush: strings wait for flush, not 2 s */
	struct call *calls;		/* noted, not flushed */
	size_t nr_calls, cap_calls;
	char out[6][STR_MAX];	/* what take returns */
};

static struct sq *queue(struct tally_sc_strings *s, pid_t tid, bool create)
{
	struct sq **b = &s->hash[(unsigned)tid % 1024], *q;

	for (q = *b; q; q = q->next)
		if (q->tid == tid)
			return q;
	if (!create || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->tid = tid;
	q->next = *b;
	*b = q;
	return q;
}

/* A string for tid's queue (str NULL: unreadable), copied. 0 or -ENOMEM. */
static int push(struct tally_sc_strings *s, pid_t tid, uint64_t time, uint32_t nr, uint32_t arg,
		const char *str)
{
	struct sent *n;
	struct sq *q;

	q = queue(s, tid, true);
	if (!q)
		return -ENOMEM;	/* a pointer shown instead */
	/* a thread no call takes from (not traced): its oldest go (a file's are all kept) */
	if (q->n == QMAX && s->skel) {
		free(q->v[q->head].str);
		q->head++;
		q->n--;
	}
	if (q->head + q->n == q->cap) {
		if (q->head) {	/* room at the front: move down */
			memmove(q->v, q->v + q->head, q->n * sizeof(*q->v));
			q->head = 0;
		} else {
			size_t cap = q->cap ? q->cap * 2 : 64;

			if (!(n = realloc(q->v, cap * sizeof(*n))))
				return -ENOMEM;
			q->v = n;
			q->cap = cap;
		}
	}
	n = &q->v[q->head + q->n];
	if (time > s->newest)
		s->newest = time;
	n->time = time;
	n->nr = nr;
	n->arg = arg;
	n->str = str ? strndup(str, STR_MAX - 1) : NULL;
	if (str && !n->str)
		return -ENOMEM;
	q->n++;
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct str_event *e = data;

	if (size >= sizeof(*e))
		push(ctx, (pid_t)e->tid, e->time, e->nr, e->arg, e->len > 0 ? e->str : NULL);
	return 0;
}

struct tally_sc_strings *tally_sc_strings__open(const uint32_t *masks, int nr_masks, pid_t self,
						char *why, size_t len)
{
	struct tally_sc_strings *s = calloc(1, sizeof(*s));
	int err = 0;

	if (!s) {
		snprintf(why, len, "%s", strerror(ENOMEM));
		errno = ENOMEM;
		return NULL;
	}
	libbpf_set_print(NULL);	/* the verifier's log is no user's business */
	s->skel = syscall_strings__open();
	if (!s->skel) {
		err = errno;
		snprintf(why, len, "cannot open the BPF program: %s", strerror(err));
		goto fail;
	}
	s->skel->rodata->self_tgid = (uint32_t)self;
	if ((err = -syscall_strings__load(s->skel))) {
		snprintf(why, len, "cannot load the BPF program: %s%s", strerror(err),
			 err == EPERM ? " (it needs root or CAP_BPF and CAP_PERFMON)" : "");
		goto fail;
	}
	for (uint32_t nr = 0; nr < (uint32_t)nr_masks && nr < 512; nr++)
		if (masks[nr] &&
		    bpf_map__update_elem(s->skel->maps.string_args, &nr, sizeof(nr), &masks[nr],
					 sizeof(masks[nr]), BPF_ANY)) {
			err = errno;
			snprintf(why, len, "cannot fill the BPF map: %s", strerror(err));
			goto fail;
		}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_event, s, NULL);
	if (!s->rb) {
		err = errno;
		snprintf(why, len, "cannot map the BPF ring buffer: %s", strerror(err));
		goto fail;
	}
	if ((err = -syscall_strings__attach(s->skel))) {
		snprintf(why, len, "cannot attach the BPF program to raw_syscalls:sys_enter: %s",
			 strerror(err));
		goto fail;
	}
	return s;
fail:
	tally_sc_strings__close(s);
	errno = err ? err : EINVAL;
	return NULL;
}

void tally_sc_strings__close(struct tally_sc_strings *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	syscall_strings__destroy(s->skel);
	for (int i = 0; i < 1024; i++)
		for (struct sq *q = s->hash[i], *n; q; q = n) {
			n = q->next;
			for (size_t k = 0; k < q->n; k++)
				free(q->v[q->head + k].str);
			free(q->v);
			free(q);
		}
	free(s->calls);
	free(s);
}

/*
 * The program reads every task's strings (the trace's children are not
 * known to it): those of tasks outside the trace are dropped once old.
 */
static void drop_old(struct tally_sc_strings *s)
{
	if (s->newest < KEEP_NS)
		return;
	for (int i = 0; i < 1024; i++)
		for (struct sq *q = s->hash[i]; q; q = q->next)
			while (q->n && q->v[q->head].time < s->newest - KEEP_NS) {
				free(q->v[q->head].str);
				q->head++;
				q->n--;
			}
}

int tally_sc_strings__read(struct tally_sc_strings *s)
{
	int n;

	if (!s->skel)
		return 0;	/* a file's: all there from the start */
	n = ring_buffer__consume(s->rb);

	if (n < 0)
		return -errno;
	if (!s->recording)
		drop_old(s);
	return n;
}

int tally_sc_strings__take(struct tally_sc_strings *s, pid_t tid, int nr, uint64_t time,
			   bool at_exit, const char *strs[6])
{
	struct sq *q = queue(s, tid, false);
	int got = 0;

	for (int i = 0; i < 6; i++)
		strs[i] = NULL;
	/*
	 * On a tracepoint hit the BPF program runs before the perf events
	 * take their sample (perf_trace_run_bpf_submit), on the same clock:
	 * a call's strings are stamped at or before its record, after the
	 * thread's call before. What is at or before `time` is this call's,
	 * or an earlier call's the trace did not keep (dropped).
	 */
	while (q && q->n && q->v[q->head].time <= time) {
		struct sent *e = &q->v[q->head];
		unsigned arg = e->arg & ~AT_EXIT;

		if ((int)e->nr == nr && !(e->arg & AT_EXIT) == !at_exit &&
		    e->time + MATCH_NS >= time && e->str && arg < 6) {
			if (!strs[arg])
				got++;
			snprintf(s->out[arg], STR_MAX, "%s", e->str);
			strs[arg] = s->out[arg];
		}
		free(e->str);
		q->head++;
		q->n--;
	}
	return got;
}

/* -------------------------------------------------------------------- */
/* a recording: the strings matched to the samples written, then kept in the file */

int tally_sc_strings__note(struct tally_sc_strings *s, pid_t tid, int nr, uint64_t time,
			   bool at_exit)
{
	if (!s)
		return -EINVAL;
	s->recording = true;
	if (s->nr_calls == s->cap_calls) {
		size_t cap = s->cap_calls ? s->cap_calls * 2 : 1024;
		struct call *c = realloc(s->calls, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		s->calls = c;
		s->cap_calls = cap;
	}
	s->calls[s->nr_calls++] = (struct call){ .time = time, .tid = tid, .nr = nr,
						 .at_exit = at_exit };
	return 0;
}

static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->at_exit - (int)y->at_exit;
}

int tally_sc_strings__flush(struct tally_sc_strings *s, uint64_t upto, tally_sc_string_fn fn,
			    void *ctx)
{
	size_t done = 0;
	int err = 0;

	if (!s)
		return -EINVAL;
	/* the rings give each CPU's samples in order, a thread's across CPUs not */
	if (s->nr_calls)
		qsort(s->calls, s->nr_calls, sizeof(*s->calls), call_cmp);
	for (; done < s->nr_calls && s->calls[done].time <= upto && !err; done++) {
		const struct call *c = &s->calls[done];
		const char *strs[6];

		if (!tally_sc_strings__take(s, c->tid, c->nr, c->time, c->at_exit, strs))
			continue;
		for (uint32_t i = 0; i < 6 && !err; i++) {
			struct tally_sc_string e = {
				.time = c->time, .tid = (uint32_t)c->tid, .nr = (uint32_t)c->nr,
				.arg = i | (c->at_exit ? TALLY_SC_STRING_AT_EXIT : 0), .str = strs[i],
			};

			if (strs[i])
				err = fn(ctx, &e);
		}
	}
	if (done) {	/* (an empty array is NULL: memmove's arguments must not be) */
		memmove(s->calls, s->calls + done, (s->nr_calls - done) * sizeof(*s->calls));
		s->nr_calls -= done;
	}
	/* a string belongs to a call sampled at most MATCH_NS later: older ones never will */
	for (int i = 0; i < 1024 && upto > MATCH_NS; i++)
		for (struct sq *q = s->hash[i]; q; q = q->next)
			while (q->n && q->v[q->head].time + MATCH_NS < upto) {
				free(q->v[q->head].str);
				q->head++;
				q->n--;
			}
	return err;
}

/* -------------------------------------------------------------------- */
/* a file's strings, taken as the BPF program's are */

static int from_file_one(void *ctx, const struct tally_sc_string *e)
{
	return push(ctx, (pid_t)e->tid, e->time, e->nr, e->arg, e->str);
}

static int time_cmp(const void *a, const void *b)
{
	const struct sent *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

struct tally_sc_strings *tally_sc_strings__from_file(const struct tally_data_reader *r,
						     char *why, size_t len)
{
	struct tally_sc_strings *s = calloc(1, sizeof(*s));
	struct tally_data_error derr;
	int n;

	if (why && len)
		why[0] = '\0';
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	n = tally_data_reader__sc_strings(r, from_file_one, s, &derr);
	if (n < 0) {
		int err = n == -EBADMSG || n == -ENOENT || n == -EINVAL ? -n : ENOMEM;

		if (why && len)
			snprintf(why, len, "%s", err == EBADMSG ? derr.msg : strerror(err));
		tally_sc_strings__close(s);
		errno = err;
		return NULL;
	}
	/* each thread's in its calls' order: the file has them as the recording matched them */
	for (int i = 0; i < 1024; i++)
		for (struct sq *q = s->hash[i]; q; q = q->next)
			qsort(q->v + q->head, q->n, sizeof(*q->v), time_cmp);
	return s;
}
