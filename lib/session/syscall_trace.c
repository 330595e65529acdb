// SPDX-License-Identifier: MIT
/*
 * The syscall tracer's state machine (see syscall_trace.h): a thread
 * table hashed by tid, each with its open call and its statistics by
 * syscall, allocated on the first call of that syscall.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tally/syscall_trace.h>
#include <tally/syscalls.h>

struct sc_thread {
	pid_t tid;
	struct sc_thread *next;		/* hash chain */
	struct tally_sc_call open;	/* valid with is_open */
	bool is_open;
	uint64_t events;
	struct tally_sc_stats *stats[TALLY_SYSCALL_MAX];
};

struct tally_sc_tracer {
	struct sc_thread **hash;
	size_t nbuckets;
	struct sc_thread **order;	/* first-seen order */
	size_t nr, cap;
	uint64_t lost;
	int rt_sigreturn;		/* its exit says syscall -1 */
	int execve, execveat;
	bool clone[TALLY_SYSCALL_MAX];	/* clone, clone3, fork, vfork: the child returns too */
};

struct tally_sc_tracer *tally_sc_tracer__new(void)
{
	struct tally_sc_tracer *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->nbuckets = 256;
	t->rt_sigreturn = tally_syscall__nr("rt_sigreturn");
	t->execve = tally_syscall__nr("execve");
	t->execveat = tally_syscall__nr("execveat");
	for (int i = 0; i < 4; i++) {
		static const char *const forks[] = { "clone", "clone3", "fork", "vfork" };
		int nr = tally_syscall__nr(forks[i]);

		if (nr >= 0)
			t->clone[nr] = true;
	}
	t->hash = calloc(t->nbuckets, sizeof(*t->hash));
	if (!t->hash) {
		free(t);
		return NULL;
	}
	return t;
}

void tally_sc_tracer__free(struct tally_sc_tracer *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		for (int k = 0; k < TALLY_SYSCALL_MAX; k++)
			free(t->order[i]->stats[k]);
		free(t->order[i]);
	}
	free(t->order);
	free(t->hash);
	free(t);
}

static struct sc_thread *lookup(const struct tally_sc_tracer *t, pid_t tid)
{
	struct sc_thread *th = t->hash[(unsigned)tid & (t->nbuckets - 1)];

	while (th && th->tid != tid)
		th = th->next;
	return th;
}

static int grow(struct tally_sc_tracer *t)
{
	size_t nb = t->nbuckets * 2;
	struct sc_thread **h = calloc(nb, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		struct sc_thread *th = t->order[i];
		size_t b = (unsigned)th->tid & (nb - 1);

		th->next = h[b];
		h[b] = th;
	}
	free(t->hash);
	t->hash = h;
	t->nbuckets = nb;
	return 0;
}

static struct sc_thread *findnew(struct tally_sc_tracer *t, pid_t tid)
{
	struct sc_thread *th = lookup(t, tid);
	size_t b;

	if (th)
		return th;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sc_thread **o = realloc(t->order, cap * sizeof(*o));

		if (!o)
			return NULL;
		t->order = o;
		t->cap = cap;
	}
	/* keep chains short: as many buckets as threads */
	if (t->nr >= t->nbuckets && grow(t))
		return NULL;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	b = (unsigned)tid & (t->nbuckets - 1);
	th->next = t->hash[b];
	t->hash[b] = th;
	t->order[t->nr++] = th;
	return th;
}

int tally_sc_tracer__enter(struct tally_sc_tracer *t, pid_t tid, uint64_t time, int nr,
			   const uint64_t args[6], bool noreturn, struct tally_sc_call *unpaired)
{
	struct sc_thread *th = findnew(t, tid);
	int ret = 0;

	if (!th)
		return -ENOMEM;
	th->events++;
	if (th->is_open) {
		/* a thread makes one call at a time: the exit of this one was lost */
		if (unpaired)
			*unpaired = th->open;
		th->is_open = false;
		ret = 1;
	}
	if (noreturn)
		return ret;
	th->open = (struct tally_sc_call){
		.tid = tid, .nr = nr, .enter_time = time, .has_enter = true,
	};
	if (args)
		memcpy(th->open.args, args, sizeof(th->open.args));
	th->is_open = true;
	return ret;
}

static int account(struct sc_thread *th, const struct tally_sc_call *c)
{
	struct tally_sc_stats *s;
	uint64_t d = c->has_enter && c->exit_time > c->enter_time ? c->exit_time - c->enter_time : 0;
	double delta;

	if (c->nr < 0 || c->nr >= TALLY_SYSCALL_MAX)
		return 0;
	s = th->stats[c->nr];
	if (!s) {
		s = th->stats[c->nr] = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->min_ns = UINT64_MAX;
	}
	s->calls++;
	s->total_ns += d;
	if (d < s->min_ns)
		s->min_ns = d;
	if (d > s->max_ns)
		s->max_ns = d;
	delta = (double)d - s->mean;
	s->mean += delta / (double)s->calls;
	s->m2 += delta * ((double)d - s->mean);
	if (c->ret < 0) {
		int e = (int)-c->ret;

		s->errors++;
		if (e < TALLY_SC_MAX_ERRNO)
			s->errnos[e]++;
	}
	return 0;
}

/*
 * The thread whose execve returns as tid: a thread but the leader that
 * execs takes the leader's tid (de_thread), so its exit comes as another
 * thread's. The latest execve still open elsewhere, or NULL.
 */
static struct sc_thread *exec_caller(const struct tally_sc_tracer *t, pid_t tid, int nr)
{
	struct sc_thread *best = NULL;

	if (nr != t->execve && nr != t->execveat)
		return NULL;
	for (size_t i = 0; i < t->nr; i++) {
		struct sc_thread *o = t->order[i];

		if (o->tid != tid && o->is_open && o->open.nr == nr &&
		    (!best || o->open.enter_time > best->open.enter_time))
			best = o;
	}
	return best;
}

int tally_sc_tracer__exit(struct tally_sc_tracer *t, pid_t tid, uint64_t time, int nr,
			  int64_t ret, struct tally_sc_call *call, struct tally_sc_call *unpaired)
{
	struct sc_thread *th = findnew(t, tid), *caller;
	struct tally_sc_call c;
	int rc = 1;

	if (!th)
		return -ENOMEM;
	th->events++;
	/*
	 * rt_sigreturn restores the registers of the code the signal cut,
	 * orig_ax -1 among them: its exit says syscall -1, and the return
	 * value it restored
	 */
	if (th->is_open && (th->open.nr == nr || (nr == -1 && th->open.nr == t->rt_sigreturn))) {
		c = th->open;
	} else if (ret == 0 && (caller = exec_caller(t, tid, nr))) {
		if (th->is_open) {
			/* the leader's own call, ended by the exec */
			if (unpaired)
				*unpaired = th->open;
			rc |= 2;
			th->is_open = false;
		}
		c = caller->open;
		caller->is_open = false;
		th = caller;	/* the call and its count are the caller's */
	} else {
		if (th->is_open) {
			/* this exit's enter was lost, and that call's exit */
			if (unpaired)
				*unpaired = th->open;
			rc |= 2;
		}
		/*
		 * No enter: lost, unless this is the thread's first record (a
		 * child's return from clone, the execve tracing began in).
		 */
		c = (struct tally_sc_call){ .tid = tid, .nr = nr,
					    .after_lost = t->lost > 0 && th->events > 1 };
	}
	th->is_open = false;
	c.exit_time = time;
	c.ret = ret;
	c.has_exit = true;
	if (call)
		*call = c;
	/* a call is counted once, as strace -c -f counts it: not again at a child's return */
	if (!c.has_enter && ret == 0 && nr >= 0 && nr < TALLY_SYSCALL_MAX && t->clone[nr])
		return rc;
	if (account(th, &c))
		return -ENOMEM;
	return rc;
}

void tally_sc_tracer__lost(struct tally_sc_tracer *t, uint64_t n)
{
	t->lost += n;
	for (size_t i = 0; i < t->nr; i++)
		if (t->order[i]->is_open)
			t->order[i]->open.after_lost = true;
}

uint64_t tally_sc_tracer__nr_lost(const struct tally_sc_tracer *t)
{
	return t->lost;
}

const struct tally_sc_call *tally_sc_tracer__open_call(const struct tally_sc_tracer *t, pid_t tid)
{
	const struct sc_thread *th = lookup(t, tid);

	return th && th->is_open ? &th->open : NULL;
}

void tally_sc_tracer__for_each_open(const struct tally_sc_tracer *t,
				    void (*fn)(void *priv, const struct tally_sc_call *c), void *priv)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->order[i]->is_open)
			fn(priv, &t->order[i]->open);
}

void tally_sc_tracer__count_event(struct tally_sc_tracer *t, pid_t tid)
{
	struct sc_thread *th = findnew(t, tid);

	if (th)
		th->events++;
}

int tally_sc_tracer__threads(const struct tally_sc_tracer *t, pid_t *tids, int max)
{
	for (size_t i = 0; i < t->nr && (int)i < max; i++)
		tids[i] = t->order[i]->tid;
	return (int)t->nr;
}

uint64_t tally_sc_tracer__events(const struct tally_sc_tracer *t, pid_t tid)
{
	uint64_t n = 0;

	if (tid != -1) {
		const struct sc_thread *th = lookup(t, tid);

		return th ? th->events : 0;
	}
	for (size_t i = 0; i < t->nr; i++)
		n += t->order[i]->events;
	return n;
}

const struct tally_sc_stats *tally_sc_tracer__stats(const struct tally_sc_tracer *t, pid_t tid,
						    int nr)
{
	const struct sc_thread *th = lookup(t, tid);

	if (!th || nr < 0 || nr >= TALLY_SYSCALL_MAX)
		return NULL;
	return th->stats[nr];
}

double tally_sc_stats__stddev_pct(const struct tally_sc_stats *s)
{
	double var;

	/* perf's stddev_stats(): the mean's own deviation */
	if (!s || s->calls < 2 || s->mean == 0)
		return 0.0;
	var = s->m2 / (double)(s->calls - 1);
	return 100.0 * sqrt(var / (double)s->calls) / s->mean;
}
