// SPDX-License-Identifier: MIT
/*
 * tally sched timehist: perf sched 6.1's timehist. A line for each
 * sched_switch, for the task switched out: its wait since it last ran
 * (sleep, iowait or preempted: the state it left in), its scheduling
 * delay (woken to running), its run time (since the CPU's previous
 * switch); -w and -M add wake-up and migration lines, -V a column per
 * CPU, -s/-S the per-thread summary (Welford's run-time statistics).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "read_file.h"
#include "sched_cmd.h"
#include "sched_line.h"
#include "tp_cmd.h"

#define MAX_CPUS 4096
#define TASK_RUNNING 0
#define TASK_UNINTERRUPTIBLE 2

struct run_stats {
	double n, mean, M2;
	uint64_t min, max;
};

struct thread_rt {
	uint64_t last_time, dt_run, dt_sleep, dt_iowait, dt_preempt, dt_delay, ready_to_run;
	struct run_stats stats;
	uint64_t total_run_time, total_sleep_time, total_iowait_time, total_preempt_time,
		total_delay_time;
	int64_t last_state;
	uint64_t migrations;
	bool made;
	/* its commstr at its last line, and what made it (a line per switch: built once) */
	bool cvalid;
	uint8_t ccomm_n, cstr_n;
	int32_t cpid;
	char ccomm[32], cstr[32];
};

/* A thread a FORK rebuilt, as perf's dead list keeps it: what its summary line shows. */
struct dead_rt {
	int32_t tid, pid, ppid;
	bool exited;				/* an EXIT came before the FORK */
	char comm[32];
	struct thread_rt rt;
};

struct th_ctx {
	const struct timehist_opts *o;
	struct sched_reader *r;
	struct sched_tids rts;			/* struct thread_rt by tid */
	struct dead_rt *dead;			/* in the order the FORKs dropped them */
	size_t nr_dead, cap_dead;
	struct thread_rt *idle;			/* by CPU: perf's "<idle>" threads */
	int nr_idle;
	int max_cpu;				/* nr_cpus_online, raised by samples */
	int comm_width;
	uint64_t last_switch[MAX_CPUS];		/* the switch event's last time on each CPU */
	uint64_t hist_start, hist_end;
	uint64_t start, end;			/* --time, 0: open */
	uint64_t skipped;
	uint8_t cpus[512];			/* -C */
	bool cpu_filter, chains, printing;
	bool summarize;				/* -s/-S: the run-time statistics are read */
	bool tty;				/* stdout a terminal: a line written when done */
	int failed;
	char commstr[32];
	/* the lines, OUT_BUF bytes a write, flushed before anything else prints */
	struct sched_line out;
	char *outbuf;
};

#define OUT_BUF (128u << 10)

static void stats_init(struct run_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->min = UINT64_MAX;
}

static void stats_update(struct run_stats *s, uint64_t val)
{
	double delta;

	s->n++;
	delta = (double)val - s->mean;
	s->mean += delta / s->n;
	s->M2 += delta * ((double)val - s->mean);
	if (val > s->max)
		s->max = val;
	if (val < s->min)
		s->min = val;
}

static struct thread_rt *rt_of(struct th_ctx *c, int32_t tid)
{
	struct thread_rt *t = sched_tids__get(&c->rts, tid);

	if (!t) {
		c->failed = ENOMEM;
		return NULL;
	}
	if (!t->made) {
		t->made = true;
		stats_init(&t->stats);
	}
	return t;
}

/*
 * A FORK rebuilt tid's thread (sched_drop_fn): the new one counts afresh;
 * the old one's runs stay in the summary, under the pid and name it had,
 * as perf's dead list keeps them.
 */
static void on_drop(struct sched_reader *r, int32_t tid, const struct sched_tinfo *old,
		    const char *comm, void *ctx)
{
	struct th_ctx *c = ctx;
	struct thread_rt *t = sched_tids__find(&c->rts, tid);
	struct dead_rt *d;

	(void)r;
	if (!t || !t->made)
		return;
	if (t->stats.n) {	/* the summary shows no thread that never ran */
		if (c->nr_dead == c->cap_dead) {
			size_t cap = c->cap_dead ? 2 * c->cap_dead : 8;

			if (!(d = realloc(c->dead, cap * sizeof(*d)))) {
				c->failed = ENOMEM;
				return;
			}
			c->dead = d;
			c->cap_dead = cap;
		}
		d = &c->dead[c->nr_dead++];
		d->tid = tid;
		d->pid = old->pid;
		d->ppid = old->ppid;
		d->exited = old->dead;
		snprintf(d->comm, sizeof(d->comm), "%s", comm);
		d->rt = *t;
	}
	memset(t, 0, sizeof(*t));
}

static struct thread_rt *idle_of(struct th_ctx *c, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= c->nr_idle) {
		int n = 1;
		struct thread_rt *v;

		while (n < cpu + 1)
			n <<= 1;	/* perf grows its table to a power of two */
		if (!(v = realloc(c->idle, (size_t)n * sizeof(*v)))) {
			c->failed = ENOMEM;
			return NULL;
		}
		memset(v + c->nr_idle, 0, (size_t)(n - c->nr_idle) * sizeof(*v));
		for (int i = c->nr_idle; i < n; i++)
			stats_init(&v[i].stats);
		c->idle = v;
		c->nr_idle = n;
	}
	c->idle[cpu].made = true;
	return &c->idle[cpu];
}

/* perf's commstr: "comm[tid]", "comm[tid/pid]" in a thread of another, "comm" for pid 0. */
static const char *commstr(struct th_ctx *c, int32_t pid, int32_t tid, const char *comm)
{
	/* built in a line, cut to the buffer as snprintf would: a line per switch */
	struct sched_line l;
	int n;

	sched_line_init(&l, NULL);
	/* past the buffer's 31 bytes nothing shows: no more than that copied */
	sched_line_mem(&l, comm, strnlen(comm, sizeof(c->commstr)));
	if (pid != 0) {
		sched_line_chr(&l, '[');
		sched_line_int(&l, tid, 0, 0);
		if (tid != pid) {
			sched_line_chr(&l, '/');
			sched_line_int(&l, pid, 0, 0);
		}
		sched_line_chr(&l, ']');
	}
	n = l.n > sizeof(c->commstr) - 1 ? (int)sizeof(c->commstr) - 1 : (int)l.n;
	memcpy(c->commstr, l.b, (size_t)n);
	c->commstr[n] = '\0';
	if (n > c->comm_width)
		c->comm_width = n;
	return c->commstr;
}

/* A line ends: on a terminal it goes out now, as stdout's line buffering wrote it. */
static void line_end(struct th_ctx *c, struct sched_line *l)
{
	sched_line_chr(l, '\n');
	if (c->tty)
		sched_line_flush(l);
}

/*
 * commstr of tr's thread, kept in tr while its name's first 31 bytes (all
 * commstr reads) and its pid stay: the same string, comm_width already
 * raised by it.
 */
static const char *commstr_of(struct th_ctx *c, struct thread_rt *tr, int32_t pid, int32_t tid,
			      const char *comm)
{
	size_t n = strnlen(comm, sizeof(tr->ccomm));
	const char *s;

	if (tr->cvalid && tr->cpid == pid && tr->ccomm_n == n && !memcmp(tr->ccomm, comm, n))
		return tr->cstr;
	s = commstr(c, pid, tid, comm);
	tr->cvalid = true;
	tr->cpid = pid;
	tr->ccomm_n = (uint8_t)n;
	memcpy(tr->ccomm, comm, n);
	tr->cstr_n = (uint8_t)strlen(s);
	memcpy(tr->cstr, s, (size_t)tr->cstr_n + 1);
	return tr->cstr;
}

static const char *thread_str(struct th_ctx *c, int32_t tid)
{
	struct sched_tinfo *ti = sched_tids__find(&c->r->tinfo, tid);

	return commstr(c, ti ? ti->pid : -1, tid, sched_comm(c->r, tid));
}

/* perf's thread__is_filtered: -p and -t. The idle threads are of pid 0. */
static bool filtered(struct th_ctx *c, int32_t pid, int32_t tid)
{
	if (c->o->pids && !session_in_id_list(c->o->pids, pid))
		return true;
	if (c->o->tids && !session_in_id_list(c->o->tids, tid))
		return true;
	return false;
}

static bool skip_sample(struct th_ctx *c, int32_t pid, int32_t tid)
{
	if (filtered(c, pid, tid)) {
		c->skipped++;
		return true;
	}
	return false;
}

static char state_char(int32_t tid, int64_t state)
{
	static const char str[] = "RSDTtZXxKWP";
	unsigned bit = state ? (unsigned)__builtin_ffsll(state) : 0;

	if (tid == 0)
		return 'I';
	return bit < sizeof(str) - 1 ? str[bit] : '?';
}

static void update_runtime(struct thread_rt *r, uint64_t t, uint64_t tprev, bool summarize)
{
	r->dt_delay = r->dt_sleep = r->dt_iowait = r->dt_preempt = r->dt_run = 0;
	if (tprev) {
		r->dt_run = t - tprev;
		if (r->ready_to_run && r->ready_to_run <= tprev)
			r->dt_delay = tprev - r->ready_to_run;
		if (r->last_time && r->last_time <= tprev) {
			uint64_t wait = tprev - r->last_time;

			if (r->last_state == TASK_RUNNING)
				r->dt_preempt = wait;
			else if (r->last_state == TASK_UNINTERRUPTIBLE)
				r->dt_iowait = wait;
			else
				r->dt_sleep = wait;
		}
	}
	/* its divisions only for a summary, the one that reads them: a switch each */
	if (summarize)
		stats_update(&r->stats, r->dt_run);
	else
		r->stats.n++;
	r->total_run_time += r->dt_run;
	r->total_delay_time += r->dt_delay;
	r->total_sleep_time += r->dt_sleep;
	r->total_iowait_time += r->dt_iowait;
	r->total_preempt_time += r->dt_preempt;
}

/* "%15s [%04d] " of the time in sched_usec's form and the CPU */
static void print_time_cpu(struct sched_line *l, uint64_t t, int cpu)
{
	sched_line_usec(l, t, 15);
	if (cpu >= 0 && cpu <= 9999) {	/* most: "%04d" by hand */
		char *p = sched_line_room(l, 8);

		p[0] = ' ';
		p[1] = '[';
		p[2] = (char)('0' + cpu / 1000);
		p[3] = (char)('0' + cpu / 100 % 10);
		p[4] = (char)('0' + cpu / 10 % 10);
		p[5] = (char)('0' + cpu % 10);
		p[6] = ']';
		p[7] = ' ';
		l->n += 8;
		return;
	}
	sched_line_mem(l, " [", 2);
	sched_line_int(l, cpu, 4, 1);
	sched_line_mem(l, "] ", 2);
}

/*
 * The chain, leaf first, " a <- b": perf resolves max_stack + 2 frames
 * and leaves the scheduler's own (schedule, __schedule,
 * preempt_schedule) out of those. A context marker it does not know
 * within them (a misread user stack) makes it drop the whole chain;
 * one further down is never read.
 */
static void print_chain(struct th_ctx *c, const struct sched_ev *ev)
{
	const struct tally_sample *sm = ev->smp->sample;
	struct tally_sample head = *sm;
	struct tally_session_sample smp = *ev->smp;
	struct tally_frame fr[128];
	int max = (int)c->o->max_stack + 2 < 128 ? (int)c->o->max_stack + 2 : 128, n, got = 0;
	bool first = true;
	uint64_t i;

	for (i = 0; i < sm->callchain.nr && got < max; i++) {
		uint64_t ip = sm->callchain.ips[i];

		if (ip < PERF_CONTEXT_MAX)
			got++;
		else if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER &&
			 ip != PERF_CONTEXT_HV && ip != TALLY_CONTEXT_UNWOUND)
			return;
	}
	head.callchain.nr = i;	/* the part perf reads: past it, what is corrupt is not seen */
	smp.sample = &head;
	n = tally_session__frames(c->r->s, &smp, fr, max);
	for (int k = 0; k < n; k++) {
		const char *sym = fr[k].sym;

		if (sym && (!strcmp(sym, "schedule") || !strcmp(sym, "__schedule") ||
			    !strcmp(sym, "preempt_schedule")))
			continue;
		printf("%s %s", first ? "" : " <-", sym ? sym : "[unknown]");
		first = false;
	}
}

static void print_sample(struct th_ctx *c, const struct sched_ev *ev, struct thread_rt *tr,
			 int32_t pid, int32_t tid, const char *comm, uint64_t t)
{
	const struct timehist_opts *o = c->o;
	struct sched_line *l = &c->out;

	if (c->cpu_filter && !sched_cpu_in(c->cpus, ev->cpu))
		return;
	print_time_cpu(l, t, ev->cpu);
	if (o->cpu_visual) {
		sched_line_chr(l, ' ');
		for (int i = 0; i < c->max_cpu + 1; i++)
			sched_line_chr(l, i == ev->cpu ? (tid == 0 ? 'i' : 's') : ' ');
		sched_line_chr(l, ' ');
	}
	{
		const char *s = commstr_of(c, tr, pid, tid, comm);

		sched_line_chr(l, ' ');
		sched_line_left32(l, s, tr->cstr_n, c->comm_width);
		sched_line_chr(l, ' ');
	}
	sched_line_msec(l, tr->dt_sleep + tr->dt_iowait + tr->dt_preempt, 6);
	sched_line_msec(l, tr->dt_delay, 6);
	sched_line_msec(l, tr->dt_run, 6);
	if (o->state) {
		sched_line_pad(l, 5);
		sched_line_chr(l, state_char(tid, ev->prev_state));
		sched_line_chr(l, ' ');
	}
	if (o->next) {
		char nstr[30];

		snprintf(nstr, sizeof(nstr), "next: %s[%d]", ev->next_comm, (int)ev->next_pid);
		sched_line_chr(l, ' ');
		sched_line_left(l, nstr, c->comm_width);
	}
	if (o->wakeups && !o->next) {
		sched_line_pad(l, 2);
		sched_line_pad(l, c->comm_width);
	}
	if (tid != 0 && c->chains) {
		sched_line_pad(l, 2);
		sched_line_flush(l);	/* the chain is printf's */
		print_chain(c, ev);
	}
	line_end(c, l);
}

static int on_switch(struct th_ctx *c, const struct sched_ev *ev)
{
	struct thread_rt *tr = NULL;
	uint64_t t = ev->time, tprev;
	int32_t pid, tid;
	const char *comm;

	if (ev->prev_pid == 0) {	/* the idle task: the CPU's own */
		if (!(tr = idle_of(c, ev->cpu)))
			return c->failed ? -1 : 0;
		pid = tid = 0;
		comm = "<idle>";
		if (skip_sample(c, 0, 0)) {
			tr = NULL;
			goto out;
		}
	} else {
		struct sched_tinfo *ti;	/* blocks of their own: stays valid */

		tid = ev->tid ? ev->tid : ev->pid;
		if (!(ti = sched_thread(c->r, ev->pid, tid)))
			return -1;
		if (c->chains)	/* perf makes the process's main thread for its maps */
			sched_thread(c->r, ev->pid, ev->pid);
		pid = ti->pid;
		comm = sched_comm(c->r, tid);
		if (skip_sample(c, pid, tid))
			goto out;
		if (!(tr = rt_of(c, tid)))
			return -1;
	}
	tprev = ev->cpu >= 0 && ev->cpu < MAX_CPUS ? c->last_switch[ev->cpu] : 0;
	/* --time: a run that began before the window counts from its start, one past it to its end */
	if (c->start && c->start > t)
		goto out;
	if (tprev && c->start > tprev)
		tprev = c->start;
	if (c->end) {
		/* perf 6.1 also passes over a CPU's first switch (no run before it) then */
		if (!tprev || tprev > c->end)
			goto out;
		if (t > c->end)
			t = c->end;
	}
	if (!c->cpu_filter || sched_cpu_in(c->cpus, ev->cpu))
		update_runtime(tr, t, tprev, c->summarize);
	if (c->printing)
		print_sample(c, ev, tr, pid, tid, comm, t);
out:
	if (c->hist_start == 0 && t >= c->start)
		c->hist_start = t;
	if (c->end == 0 || t <= c->end)
		c->hist_end = t;
	if (tr) {
		tr->last_time = ev->time;
		tr->last_state = ev->prev_state;
		tr->ready_to_run = 0;
	}
	if (ev->cpu >= 0 && ev->cpu < MAX_CPUS)
		c->last_switch[ev->cpu] = ev->time;
	return 0;
}

static void print_wakeup(struct th_ctx *c, const struct sched_ev *ev, int32_t wakee_pid)
{
	struct sched_tinfo *ti = sched_thread(c->r, ev->pid, ev->tid);
	struct sched_line *l = &c->out;
	char awakened[32];

	if (!ti)
		return;
	/* shown unless both the waker and the woken are filtered out */
	if (skip_sample(c, ti->pid, ev->tid) & skip_sample(c, wakee_pid, ev->task))
		return;
	print_time_cpu(l, ev->time, ev->cpu);
	if (c->o->cpu_visual)
		sched_line_pad(l, 1 + (c->max_cpu + 1) + 1);
	{
		const char *s = commstr(c, ti->pid, ev->tid, sched_comm(c->r, ev->tid));

		sched_line_chr(l, ' ');
		sched_line_left(l, s, c->comm_width);
		sched_line_chr(l, ' ');
	}
	sched_line_pad(l, 2 + 9 + 2 + 9 + 2 + 9 + 1);
	snprintf(awakened, sizeof(awakened), "%s", thread_str(c, ev->task));
	sched_line_str(l, "awakened: ");
	sched_line_str(l, awakened);
	line_end(c, l);
}

static void print_migration(struct th_ctx *c, const struct sched_ev *ev, int32_t mig_pid)
{
	struct sched_tinfo *ti = sched_thread(c->r, ev->pid, ev->tid);
	struct sched_line *l = &c->out;

	if (!ti)
		return;
	if (skip_sample(c, ti->pid, ev->tid) & skip_sample(c, mig_pid, ev->task))
		return;
	print_time_cpu(l, ev->time, ev->cpu);
	if (c->o->cpu_visual) {
		sched_line_pad(l, 2);
		for (int i = 0; i < c->max_cpu + 1; i++)
			sched_line_chr(l, i == ev->cpu ? 'm' : ' ');
		sched_line_pad(l, 2);
	}
	{
		const char *s = commstr(c, ti->pid, ev->tid, sched_comm(c->r, ev->tid));

		sched_line_chr(l, ' ');
		sched_line_left(l, s, c->comm_width);
		sched_line_chr(l, ' ');
	}
	sched_line_pad(l, 2 + 9 + 2 + 9 + 2 + 9 + 1);
	sched_line_str(l, "migrated: ");
	sched_line_str(l, thread_str(c, ev->task));
	sched_line_str(l, " cpu ");
	sched_line_int(l, ev->orig_cpu, 0, 0);
	sched_line_str(l, " => ");
	sched_line_int(l, ev->dest_cpu, 0, 0);
	line_end(c, l);
}

/* The lines kept back, out before the session's messages and the summary. */
static void out_flush(struct sched_reader *r, void *ctx)
{
	struct th_ctx *c = ctx;

	(void)r;
	if (c->outbuf)
		sched_line_flush(&c->out);
}

static int on_event(struct sched_reader *r, const struct sched_ev *ev, void *ctx)
{
	struct th_ctx *c = ctx;
	struct sched_tinfo *ti;
	struct thread_rt *tr;

	(void)r;
	if (ev->cpu > c->max_cpu && ev->cpu < MAX_CPUS)
		c->max_cpu = ev->cpu;
	switch (ev->kind) {
	case SK_SWITCH:
		return on_switch(c, ev) ? -1 : c->failed ? -1 : 0;
	case SK_WAKEUP:
	case SK_WAKING:
	case SK_WAKEUP_NEW:
		/* the woken task, not the sample's: perf makes it of pid 0 when unknown */
		if (!(ti = sched_thread(c->r, 0, ev->task)) || !(tr = rt_of(c, ev->task)))
			return -1;
		if (tr->ready_to_run == 0)
			tr->ready_to_run = ev->time;
		/* -s shows the summary alone */
		if (c->o->wakeups && c->printing && !(c->start && ev->time < c->start) &&
		    !(c->end && ev->time > c->end))
			print_wakeup(c, ev, ti->pid);
		return 0;
	case SK_MIGRATE:
		if (!c->o->migrations)
			return 0;
		if (!(ti = sched_thread(c->r, 0, ev->task)) || !(tr = rt_of(c, ev->task)))
			return -1;
		tr->migrations++;
		if (c->printing)
			print_migration(c, ev, ti->pid);
		return 0;
	default:
		return 0;
	}
}

static const char dashes[] =
	"--------------------------------------------------------------------------------"
	"--------------------------------------------------------------------------------";

static void print_header(struct th_ctx *c)
{
	const struct timehist_opts *o = c->o;
	int ncpus = c->max_cpu + 1, w = c->comm_width;

	printf("%15s %6s ", "time", "cpu");
	if (o->cpu_visual) {
		putchar(' ');
		for (int i = 0, j = 0; i < ncpus; ++i) {
			printf("%x", j++);
			if (j > 15)
				j = 0;
		}
		putchar(' ');
	}
	printf(" %-*s  %9s  %9s  %9s", w, "task name", "wait time", "sch delay", "run time");
	if (o->state)
		printf("  %s", "state");
	printf("\n");
	printf("%15s %-6s ", "", "");
	if (o->cpu_visual)
		printf(" %*s ", ncpus, "");
	printf(" %-*s  %9s  %9s  %9s", w, "[tid/pid]", "(msec)", "(msec)", "(msec)");
	if (o->state)
		printf("  %5s", "");
	printf("\n");
	printf("%.15s %.6s ", dashes, dashes);
	if (o->cpu_visual)
		printf(" %.*s ", ncpus, dashes);
	printf(" %.*s  %.9s  %.9s  %.9s", w, dashes, dashes, dashes, dashes);
	if (o->state)
		printf("  %.5s", dashes);
	printf("\n");
}

struct totals {
	uint64_t sched_count, task_count, total_run_time;
};

static void print_thread(struct th_ctx *c, int32_t pid, int32_t tid, int32_t ppid,
			 const char *comm, const struct thread_rt *r)
{
	const char *s = commstr(c, pid, tid, comm);

	printf("%*s   %5d  %9llu ", c->comm_width, s, (int)ppid, (unsigned long long)r->stats.n);
	sched_print_time(r->total_run_time, 8);
	if (c->o->state) {
		sched_print_time(r->total_sleep_time, 6);
		printf(" ");
		sched_print_time(r->total_iowait_time, 6);
		printf(" ");
		sched_print_time(r->total_preempt_time, 6);
		printf(" ");
		sched_print_time(r->total_delay_time, 6);
		printf("\n");
	} else {
		double mean = r->stats.mean, sd = 0;
		float rel;

		if (r->stats.n >= 2)
			sd = sqrt(r->stats.M2 / (r->stats.n - 1) / r->stats.n);
		rel = (float)(mean ? 100.0 * sd / mean : 0.0);
		sched_print_time(r->stats.min, 6);
		printf(" ");
		sched_print_time((uint64_t)mean, 6);
		printf(" ");
		sched_print_time(r->stats.max, 6);
		printf("  ");
		printf("%5.2f", rel);
		printf("   %5llu\n", (unsigned long long)r->migrations);
	}
}

/* A summary row: a thread by tid, or (dropped > 0) c->dead[dropped - 1]. */
struct th_row {
	int32_t tid;
	uint32_t dropped;
};

static int by_bucket(const void *a, const void *b)
{
	const struct th_row *x = a, *y = b;
	int bx = (int)((uint32_t)x->tid % 256), by = (int)((uint32_t)y->tid % 256);

	if (bx != by)
		return bx < by ? -1 : 1;
	if (x->dropped != y->dropped)	/* the live ones by tid, then the dropped as dropped */
		return x->dropped < y->dropped ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void add_thread(struct th_ctx *c, struct totals *tot, int32_t pid, int32_t tid,
		       int32_t ppid, const char *comm, const struct thread_rt *r)
{
	if (!r->stats.n || filtered(c, pid, tid))
		return;
	tot->task_count++;
	tot->sched_count += (uint64_t)r->stats.n;
	tot->total_run_time += r->total_run_time;
	print_thread(c, pid, tid, ppid, comm, r);
}

/*
 * perf walks its threads by tid % 256: in each, the live ones by tid,
 * then those a FORK dropped (its dead list) as they were dropped; once
 * those that did not exit, once those that did.
 */
static void print_threads(struct th_ctx *c, struct totals *tot, bool dead)
{
	size_t n = c->r->tinfo.nr, nr = n + c->nr_dead;
	struct th_row *rows = malloc((nr ? nr : 1) * sizeof(*rows));

	if (!rows) {
		c->failed = ENOMEM;
		return;
	}
	for (size_t i = 0; i < n; i++)
		rows[i] = (struct th_row){ .tid = c->r->tinfo.order[i] };
	for (size_t i = 0; i < c->nr_dead; i++)
		rows[n + i] = (struct th_row){ .tid = c->dead[i].tid, .dropped = (uint32_t)i + 1 };
	qsort(rows, nr, sizeof(*rows), by_bucket);
	for (size_t i = 0; i < nr; i++) {
		int32_t tid = rows[i].tid;

		if (rows[i].dropped) {
			const struct dead_rt *d = &c->dead[rows[i].dropped - 1];

			if (d->exited == dead)
				add_thread(c, tot, d->pid, tid, d->ppid, d->comm, &d->rt);
		} else {
			struct sched_tinfo *ti = sched_tids__find(&c->r->tinfo, tid);
			struct thread_rt *r = sched_tids__find(&c->rts, tid);

			if (r && ti->dead == dead)
				add_thread(c, tot, ti->pid, tid, ti->ppid, sched_comm(c->r, tid), r);
		}
	}
	free(rows);
}

static void print_summary(struct th_ctx *c)
{
	struct totals tot = { 0 };
	uint64_t hist = c->hist_end - c->hist_start;

	if (c->o->state) {
		printf("\nWait-time summary\n");
		printf("%*s  parent   sched-in  ", c->comm_width, "comm");
		printf("   run-time      sleep      iowait     preempt       delay\n");
	} else {
		printf("\nRuntime summary\n");
		printf("%*s  parent   sched-in  ", c->comm_width, "comm");
		printf("   run-time    min-run     avg-run     max-run  stddev  migrations\n");
	}
	printf("%*s            (count)  ", c->comm_width, "");
	printf("     (msec)     (msec)      (msec)      (msec)       %s\n",
	       c->o->state ? "(msec)" : "%");
	printf("%.117s\n", dashes);
	print_threads(c, &tot, false);
	if (!tot.task_count)
		printf("<no still running tasks>\n");
	printf("\nTerminated tasks:\n");
	{
		uint64_t live = tot.task_count;

		print_threads(c, &tot, true);
		if (tot.task_count == live)
			printf("<no terminated tasks>\n");
	}
	/* CPU idle stats not tracked when samples were skipped */
	if (c->skipped)
		return;
	printf("\nIdle stats:\n");
	for (int i = 0; i < c->nr_idle; ++i) {
		struct thread_rt *r = &c->idle[i];

		if (c->cpu_filter && !sched_cpu_in(c->cpus, i))
			continue;
		if (!r->made)
			continue;
		if (r->total_run_time) {
			tot.sched_count += (uint64_t)r->stats.n;
			printf("    CPU %2d idle for ", i);
			sched_print_time(r->total_run_time, 6);
			printf(" msec  (%6.2f%%)\n", 100.0 * (double)r->total_run_time / (double)hist);
		} else {
			printf("    CPU %2d idle entire time window\n", i);
		}
	}
	printf("\n"
	       "    Total number of unique tasks: %llu\n"
	       "Total number of context switches: %llu\n",
	       (unsigned long long)tot.task_count, (unsigned long long)tot.sched_count);
	printf("           Total run time (msec): ");
	sched_print_time(tot.total_run_time, 2);
	printf("\n");
	printf("    Total scheduling time (msec): ");
	sched_print_time(hist, 2);
	printf(" (x %d)\n", c->max_cpu);
}

int sched_timehist(const char *path, const struct timehist_opts *o)
{
	struct th_ctx *c = calloc(1, sizeof(*c));
	struct sched_reader r;
	int ret;

	if (!c)
		return 1;
	c->o = o;
	c->r = &r;
	c->comm_width = 30;
	c->rts.size = sizeof(struct thread_rt);
	if (o->cpu_list) {
		if (sched_cpu_list(o->cpu_list, c->cpus)) {
			fprintf(stderr, "tally sched timehist: -C '%s': a list of CPUs (0-3,7)\n",
				o->cpu_list);
			free(c);
			return 129;
		}
		c->cpu_filter = true;
	}
	if (o->time && cli_time_window(o->time, &c->start, &c->end)) {
		fprintf(stderr, "tally sched timehist: --time '%s': START,STOP in seconds "
			"(either may be left out)\n", o->time);
		free(c);
		return 129;
	}
	/*
	 * perf's CPU count (max_cpu) takes every sample's CPU, the other
	 * events' too: with -V each line shows it as it grows, so every
	 * sample comes; else only the summary's end reads it, and the
	 * session, dropping what timehist does not read (sched_stat_runtime,
	 * migrations without -M, the other events) unparsed, gives their
	 * largest CPU (below)
	 */
	if ((ret = sched_open(&r, "sched timehist", path, o->callchain,
			      o->cpu_visual ? SCHED_WANT_ALL :
			      SCHED_WANT(SK_SWITCH) | SCHED_WANT(SK_WAKEUP) | SCHED_WANT(SK_WAKING) |
				      SCHED_WANT(SK_WAKEUP_NEW) |
				      (o->migrations ? SCHED_WANT(SK_MIGRATE) : 0),
			      o->symfs, o->kallsyms, on_event, c))) {
		free(c);
		return ret;
	}
	r.drop = on_drop;
	r.ran = out_flush;
	c->chains = o->callchain && r.callchains;
	if (o->callchain && !r.callchains)
		fprintf(stderr, "Samples do not have callchains.\n");
	c->max_cpu = sched_nr_cpus_online(&r);
	if (c->max_cpu == 0)
		c->max_cpu = 4;
	/* perf makes the first nr_cpus_online idle threads up front */
	if (!(c->idle = calloc((size_t)c->max_cpu, sizeof(*c->idle)))) {
		sched_close(&r);
		free(c);
		return 1;
	}
	c->nr_idle = c->max_cpu;
	for (int i = 0; i < c->nr_idle; i++) {
		stats_init(&c->idle[i].stats);
		c->idle[i].made = true;
	}
	c->printing = !o->summary;
	c->summarize = o->summary || o->with_summary;
	if (c->printing) {
		if (!(c->outbuf = malloc(OUT_BUF))) {
			sched_close(&r);
			free(c->idle);
			free(c);
			return 1;
		}
		sched_line_init_buf(&c->out, stdout, c->outbuf, OUT_BUF);
		c->tty = isatty(fileno(stdout));
	}
	if (c->printing)
		print_header(c);
	ret = sched_run(&r);
	if (!o->cpu_visual) {
		TALLY_OPTS(tally_session_stats, st);

		if (!tally_session__stats(r.s, &st) && st.dropped_cpu_max > c->max_cpu &&
		    st.dropped_cpu_max < MAX_CPUS)
			c->max_cpu = st.dropped_cpu_max;
	}
	if (!ret && (c->failed || r.no_mem)) {
		fprintf(stderr, "tally sched timehist: %s\n", strerror(c->failed ? c->failed : ENOMEM));
		ret = 1;
	}
	if (!ret && (o->summary || o->with_summary))
		print_summary(c);
	sched_close(&r);
	sched_tids__free(&c->rts);
	free(c->dead);
	free(c->idle);
	free(c->outbuf);
	free(c);
	return ret;
}
