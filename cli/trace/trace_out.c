// SPDX-License-Identifier: MIT
/*
 * tally trace's lines and summary, in perf trace 6.1's layout
 * (builtin-trace.c): "time (duration): comm/tid name(args) = ret", the
 * result column at 70, a call cut by another thread's line printed as
 * "name(args) ..." and ended by "... [continued]: name())", exit calls
 * at their entry with "= ?". The pairing is the library's.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/record.h>
#include <tally/symbols.h>
#include <tally/syscall_trace.h>
#include <tally/syscall_strings.h>
#include <tally/syscalls.h>
#include <tally/events.h>
#include <tally/evlist.h>
#include <tally/evsel.h>
#include <tally/trace_fmt.h>
#include "trace.h"
#include "trace_fds.h"
#include "trace_out.h"

#define ARGS_ALIGN	70	/* perf's args_alignment: where "= " goes */

struct trace_thread {
	pid_t tid;
	char comm[16];
	bool interrupted;		/* its open call was printed with " ..." */
	char *str[6];			/* the strings of its last call's arguments */
	uint64_t str_time;		/* that call's entry */
	uint64_t pfmaj, pfmin;		/* --pf: its faults */
	struct trace_thread *next;
};

/* -------------------------------------------------------------------- */
/* threads */

static struct trace_thread *thread_find(const struct trace_out *o, pid_t tid)
{
	struct trace_thread *t;

	if (!o->nbuckets)
		return NULL;
	for (t = o->threads[(unsigned)tid & (o->nbuckets - 1)]; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

static void thread_rehash(struct trace_out *o)
{
	size_t nb = o->nbuckets ? o->nbuckets * 2 : 256;
	struct trace_thread **h = calloc(nb, sizeof(*h));

	if (!h)
		return;	/* longer chains, nothing lost */
	for (size_t i = 0; i < o->nbuckets; i++)
		for (struct trace_thread *t = o->threads[i], *n; t; t = n) {
			n = t->next;
			t->next = h[(unsigned)t->tid & (nb - 1)];
			h[(unsigned)t->tid & (nb - 1)] = t;
		}
	free(o->threads);
	o->threads = h;
	o->nbuckets = nb;
}

/* The comm of a thread first seen: /proc while it lives, else ":tid" as perf. */
static void comm_from_proc(struct trace_thread *t, bool live)
{
	char p[64];
	FILE *f;

	snprintf(t->comm, sizeof(t->comm), ":%d", (int)t->tid);
	if (!live)
		return;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)t->tid);
	f = fopen(p, "re");
	if (!f)
		return;
	if (fgets(t->comm, sizeof(t->comm), f))
		t->comm[strcspn(t->comm, "\n")] = '\0';
	fclose(f);
}

static struct trace_thread *thread_get(struct trace_out *o, pid_t tid)
{
	struct trace_thread *t = thread_find(o, tid);

	if (t)
		return t;
	if (o->nthreads >= o->nbuckets)
		thread_rehash(o);
	if (!o->nbuckets || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->tid = tid;
	comm_from_proc(t, o->live);
	t->next = o->threads[(unsigned)tid & (o->nbuckets - 1)];
	o->threads[(unsigned)tid & (o->nbuckets - 1)] = t;
	o->nthreads++;
	return t;
}

void trace_out__thread(struct trace_out *o, pid_t tid, const char *comm)
{
	struct trace_thread *t = thread_get(o, tid);

	if (t && comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static const char *comm_cb(void *priv, pid_t tid)
{
	struct trace_thread *t = thread_find(priv, tid);

	return t ? t->comm : NULL;
}

/* the file the thread's table says: followed through its calls, not read from /proc now */
static const char *fd_path_cb(void *priv, pid_t tid, int fd)
{
	struct trace_out *o = priv;

	return trace_fds__path(o->fds, tid, fd);
}

/* -------------------------------------------------------------------- */
/* lines */

static const struct tally_syscall_fmt *fmt_of(struct trace_out *o, int nr)
{
	if (nr < 0 || nr >= TALLY_SYSCALL_MAX)
		return NULL;
	if (!o->fmt_tried[nr]) {
		o->fmt_tried[nr] = true;
		o->fmts[nr] = malloc(sizeof(*o->fmts[nr]));
		if (o->fmts[nr] && tally_syscall__load_fmt(o->tracing_dir, nr, o->fmts[nr])) {
			free(o->fmts[nr]);
			o->fmts[nr] = NULL;
		}
	}
	return o->fmts[nr];
}

static void print_head(struct trace_out *o, pid_t tid, uint64_t time, bool has_time,
		       uint64_t dur, bool has_dur)
{
	struct trace_thread *t = thread_get(o, tid);

	if (has_time)
		fprintf(o->fp, "%10.3f ", (double)(o->cfg->abs_time ? time : time - o->base_time) / 1e6);
	else
		fprintf(o->fp, "         ? ");
	if (has_dur)
		fprintf(o->fp, "(%6.3f ms): ", (double)dur / 1e6);
	else if (o->trace_syscalls)
		fprintf(o->fp, "(         ): ");
	if (o->multiple_threads) {
		if (o->cfg->comm)
			fprintf(o->fp, "%.14s/", t ? t->comm : "");
		fprintf(o->fp, "%d ", (int)tid);
	}
}

static const char *sc_name(int nr, char *buf, size_t len)
{
	const char *n = tally_syscall__name(nr);

	if (n)
		return n;
	snprintf(buf, len, "syscall_%d", nr);
	return buf;
}

/* "name(args" without the closing parenthesis, as perf's entry_str */
static int entry_str(struct trace_out *o, const struct tally_sc_call *c, char *buf, size_t len)
{
	struct tally_syscall_ctx ctx = { .comm = comm_cb, .fd_path = fd_path_cb, .priv = o };
	struct trace_thread *t = thread_find(o, c->tid);
	char nb[32];

	/* the strings the thread's last call read are this call's only if it is that call */
	if (t && c->has_enter && t->str_time == c->enter_time && !o->cfg->no_strings)
		ctx.strings = (const char *const *)t->str;
	int n = snprintf(buf, len, "%s(", sc_name(c->nr, nb, sizeof(nb)));

	if (n < 0 || (size_t)n >= len)
		return n;
	return n + tally_syscall__fmt_args(buf + n, len - (size_t)n, c->nr, fmt_of(o, c->nr),
					   c->args, c->tid, &ctx);
}

static bool quiet_lines(const struct trace_out *o)
{
	return o->summary_only || o->cfg->duration_ms > 0;
}

/*
 * The current thread's call, cut by another line: "name(args) ...", perf's
 * interrupted entry. A syscall's line cuts it only when lines are shown
 * (not with -s, --duration); an event's line always does, as perf's.
 */
static void print_interrupted(struct trace_out *o, bool by_event)
{
	const struct tally_sc_call *c;
	struct trace_thread *t;
	char buf[1024];
	int len;

	if (o->cfg->failure_only || (quiet_lines(o) && !by_event) || !o->current)
		return;
	c = tally_sc_tracer__open_call(o->sc, o->current);
	t = thread_find(o, o->current);
	if (!c || !t || t->interrupted)
		return;
	print_head(o, c->tid, c->enter_time, true, 0, false);
	entry_str(o, c, buf, sizeof(buf));
	len = fprintf(o->fp, "%s)", buf);
	if (len < ARGS_ALIGN - 4)
		fprintf(o->fp, "%-*s", ARGS_ALIGN - 4 - len, " ");
	fprintf(o->fp, " ...\n");
	t->interrupted = true;
}

/* An enter whose exit never came (lost): its line, marked, never paired with another exit. */
static void print_unpaired(struct trace_out *o, const struct tally_sc_call *c)
{
	struct trace_thread *t = thread_find(o, c->tid);
	char buf[1024];
	int len;

	o->unpaired++;
	if (o->cfg->failure_only || quiet_lines(o))
		return;
	print_head(o, c->tid, c->enter_time, true, 0, false);
	if (t && t->interrupted) {	/* its "name(args) ..." is out already */
		char nb[32];

		fprintf(o->fp, " ... [exit lost]: %s()\n", sc_name(c->nr, nb, sizeof(nb)));
		return;
	}
	entry_str(o, c, buf, sizeof(buf));
	len = fprintf(o->fp, "%s)", buf);
	if (len < ARGS_ALIGN - 4)
		fprintf(o->fp, "%-*s", ARGS_ALIGN - 4 - len, " ");
	fprintf(o->fp, " ... [exit lost]\n");
}

static void print_exit_line(struct trace_out *o, const struct tally_sc_call *c, bool continued)
{
	struct tally_syscall_ctx ctx = { .comm = comm_cb, .priv = o };
	char buf[1024], ret[256], nb[32];
	int printed, align = ARGS_ALIGN;

	print_head(o, c->tid, c->enter_time, c->has_enter, c->exit_time - c->enter_time,
		   c->has_enter);
	if (!continued) {
		entry_str(o, c, buf, sizeof(buf));
		printed = fprintf(o->fp, "%s", buf);
	} else {
		printed = fprintf(o->fp, " ... [continued]: %s()", sc_name(c->nr, nb, sizeof(nb)));
	}
	printed++;	/* the closing ')' */
	align = align > printed ? align - printed : 0;
	tally_syscall__fmt_ret(ret, sizeof(ret), c->nr, c->ret, &ctx);
	fprintf(o->fp, ")%*s= %s%s\n", align, " ", ret,
		c->after_lost && !c->has_enter ? " [enter lost]" : "");
}

/* The strings of tid's call entering now: the thread's, until its next call. */
static void take_strings(struct trace_out *o, struct trace_thread *t, pid_t tid, int nr,
			 uint64_t time)
{
	const char *got[6];

	if (!o->strs || !t)
		return;
	tally_sc_strings__take(o->strs, tid, nr, time, false, got);
	for (int i = 0; i < 6; i++) {
		free(t->str[i]);
		t->str[i] = got[i] ? strdup(got[i]) : NULL;
	}
	t->str_time = time;
}

/* ... and those read at its exit (pages it faulted in), where none was at its entry */
static void take_exit_strings(struct trace_out *o, struct trace_thread *t, pid_t tid, int nr,
			      uint64_t time)
{
	const char *got[6];

	if (o->strs && t && tally_sc_strings__take(o->strs, tid, nr, time, true, got))
		for (int i = 0; i < 6; i++)
			if (got[i] && !t->str[i])
				t->str[i] = strdup(got[i]);
}

static void on_enter(struct trace_out *o, pid_t tid, uint64_t time, const uint8_t *raw)
{
	struct tally_sc_call unpaired, now;
	int64_t nr;
	uint64_t args[6];
	bool noreturn;
	struct trace_thread *t = thread_get(o, tid);
	int rc;

	memcpy(&nr, raw + 8, sizeof(nr));
	memcpy(args, raw + 16, sizeof(args));
	if (nr >= 0 && nr < TALLY_SYSCALL_MAX && !o->show[nr]) {
		take_strings(o, t, tid, (int)nr, time);
		trace_fds__enter_hidden(o->fds, tid, (int)nr, args);
		return;
	}
	noreturn = tally_syscall__is_exit((int)nr);
	print_interrupted(o, false);
	take_strings(o, t, tid, (int)nr, time);
	rc = tally_sc_tracer__enter(o->sc, tid, time, (int)nr, args, noreturn, &unpaired);
	if (rc == 1)
		print_unpaired(o, &unpaired);
	trace_fds__enter(o->fds, tid, (int)nr, args);
	if (t)
		t->interrupted = false;
	if (noreturn && !quiet_lines(o) && !o->cfg->failure_only) {
		char buf[1024];
		int printed, align;

		now = (struct tally_sc_call){ .tid = tid, .nr = (int)nr, .enter_time = time,
					      .has_enter = true };
		memcpy(now.args, args, sizeof(args));
		print_head(o, tid, time, true, 0, false);
		entry_str(o, &now, buf, sizeof(buf));
		printed = fprintf(o->fp, "%s)", buf);
		align = ARGS_ALIGN > printed ? ARGS_ALIGN - printed : 0;
		fprintf(o->fp, "%*s= ?\n", align, " ");
	}
	o->current = tid;
}

/* A returned call's line is shown: not with -s, and as --duration and --failure say. */
static bool shown(const struct trace_out *o, const struct tally_sc_call *c)
{
	if (o->summary_only)
		return false;
	if (o->cfg->duration_ms > 0 &&
	    (!c->has_enter || (double)(c->exit_time - c->enter_time) < o->cfg->duration_ms * 1e6))
		return false;
	return !(o->cfg->failure_only && c->ret >= 0);
}

static void on_exit_(struct trace_out *o, pid_t tid, uint64_t time, const uint8_t *raw)
{
	struct tally_sc_call c, unpaired;
	struct trace_thread *t = thread_get(o, tid);
	int64_t nr, ret;
	bool continued;
	int rc;

	memcpy(&nr, raw + 8, sizeof(nr));
	memcpy(&ret, raw + 16, sizeof(ret));
	if (nr >= 0 && nr < TALLY_SYSCALL_MAX && !o->show[nr]) {
		take_exit_strings(o, t, tid, (int)nr, time);
		trace_fds__exit_hidden(o->fds, tid, (int)nr, ret, t ? (const char *const *)t->str : NULL);
		return;
	}
	rc = tally_sc_tracer__exit(o->sc, tid, time, (int)nr, ret, &c, &unpaired);
	if (rc < 0)
		return;
	/* an execve of a thread but the leader returns as the leader: the caller's call */
	if (c.tid != tid)
		t = thread_get(o, c.tid);
	/* strings on pages the call faulted in were read at its exit */
	if (t && c.has_enter && t->str_time == c.enter_time)
		take_exit_strings(o, t, tid, (int)nr, time);
	if (rc & 2)
		print_unpaired(o, &unpaired);
	continued = !c.has_enter || (t && t->interrupted);
	if (t)
		t->interrupted = false;
	if (shown(o, &c))
		print_exit_line(o, &c, continued);
	/* after its line: a dup2's arguments name the files before it */
	trace_fds__exit(o->fds, &c, t && c.has_enter && t->str_time == c.enter_time ?
			(const char *const *)t->str : NULL);
	if (c.tid != tid)	/* the leader goes on with the table the exec left */
		trace_fds__fork(o->fds, c.tid, tid, true);
}

/*
 * A new task's fd table: its parent's, shared by a thread (CLONE_THREAD
 * comes with CLONE_FILES from every threads library) or by clone's
 * CLONE_FILES, else a copy. clone3's flags are in memory the trace does
 * not hold: a process made by it gets a copy, as fork's.
 */
static void fork_fds(struct trace_out *o, const struct tally_record_task *k)
{
	const struct tally_sc_call *c = tally_sc_tracer__open_call(o->sc, (pid_t)k->ptid);
	bool share = k->pid == k->ppid;

	if (c && c->nr == o->nr_clone && (c->args[0] & CLONE_FILES))
		share = true;
	trace_fds__fork(o->fds, (pid_t)k->ptid, (pid_t)k->tid, share);
}

void trace_out__select(struct trace_out *o, const bool *sel, bool *wants)
{
	for (int nr = 0; nr < TALLY_SYSCALL_MAX; nr++) {
		o->show[nr] = sel[nr];
		/* no lines, no paths to name: -s reads only what it counts */
		wants[nr] = sel[nr] || (!o->summary_only && trace_fds__wants(o->fds, nr));
	}
}

bool trace_out__fd_paths(const struct trace_out *o, int nr)
{
	return trace_fds__wants_path(o->fds, nr);
}

void trace_out__seed_fds(struct trace_out *o, pid_t tid)
{
	trace_fds__seed(o->fds, tid);
}

void trace_out__record(struct trace_out *o, const struct tally_record *r, enum trace_kind k)
{
	struct trace_thread *t;

	switch (r->type) {
	case PERF_RECORD_SAMPLE: {
		const struct tally_sample *s = &r->u.sample;

		/* raw_syscalls: id at 8, then args[6] (enter) or ret (exit) at 16 */
		if ((k != TRACE_ENTER && k != TRACE_EXIT) ||
		    s->raw.size < (k == TRACE_ENTER ? 64 : 24))
			return;
		if (!o->base_time)
			o->base_time = s->time;
		if (k == TRACE_ENTER)
			on_enter(o, (pid_t)s->tid, s->time, s->raw.data);
		else
			on_exit_(o, (pid_t)s->tid, s->time, s->raw.data);
		break;
	}
	case PERF_RECORD_COMM:
		t = thread_get(o, (pid_t)r->u.comm.tid);
		if (t)
			snprintf(t->comm, sizeof(t->comm), "%s", r->u.comm.comm);
		if (o->mach)
			tally_machine__comm(o->mach, (int32_t)r->u.comm.pid, (int32_t)r->u.comm.tid,
					    r->u.comm.comm, r->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_MMAP2:
		if (o->mach) {
			const struct tally_record_mmap2 *m = &r->u.mmap2;
			struct tally_mmap_event ev = {
				.pid = (int32_t)m->pid, .tid = (int32_t)m->tid,
				.start = m->start, .len = m->len, .pgoff = m->pgoff,
				.filename = m->filename, .prot = m->prot, .flags = m->flags,
				.maj = m->maj, .min = m->min, .ino = m->ino,
				.ino_generation = m->ino_generation,
				.build_id = m->has_build_id ? m->build_id : NULL,
				.build_id_size = m->has_build_id ? m->build_id_size : 0,
			};

			tally_machine__mmap(o->mach, &ev);
		}
		break;
	case PERF_RECORD_EXIT:
		trace_fds__gone(o->fds, (pid_t)r->u.task.tid);
		if (o->mach)
			tally_machine__exit(o->mach, (int32_t)r->u.task.pid, (int32_t)r->u.task.tid);
		break;
	case PERF_RECORD_FORK:
		if (o->mach)
			tally_machine__fork(o->mach, (int32_t)r->u.task.pid, (int32_t)r->u.task.tid,
					    (int32_t)r->u.task.ppid, (int32_t)r->u.task.ptid);
		fork_fds(o, &r->u.task);
		/* a new thread starts with its parent's comm */
		t = thread_find(o, (pid_t)r->u.task.ptid);
		if (t) {
			struct trace_thread *c = thread_get(o, (pid_t)r->u.task.tid);

			if (c)
				memcpy(c->comm, t->comm, sizeof(c->comm));
		}
		break;
	case PERF_RECORD_LOST:
		o->lost += r->u.lost.lost;
		tally_sc_tracer__lost(o->sc, r->u.lost.lost);
		break;
	}
}

/* A pid field's comm: a thread seen, else the process's now, as perf reads it */
static const char *tp_comm_cb(void *priv, pid_t pid)
{
	struct trace_out *o = priv;
	struct trace_thread *t = thread_find(o, pid);
	static char comm[16];
	char p[64];
	FILE *f;

	if (t)
		return t->comm;
	if (!o->live)
		return NULL;
	snprintf(p, sizeof(p), "/proc/%d/comm", (int)pid);
	if (!(f = fopen(p, "re")))
		return NULL;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return comm[0] ? comm : NULL;
}

/*
 * perf's trace__event_handler: "time (         ): comm/tid name(fields)",
 * shown whatever -s, --failure or --duration say; it cuts the current
 * thread's call as any other line does.
 */
void trace_out__event(struct trace_out *o, const struct tally_record *r, const char *name)
{
	const struct tally_sample *s = &r->u.sample;
	struct tally_syscall_ctx ctx = { .comm = tp_comm_cb, .fd_path = fd_path_cb, .priv = o };
	struct tally_tp_field fields[64];
	char buf[4096];
	int n = -ENOENT;

	if (!o->base_time)
		o->base_time = s->time;
	print_interrupted(o, true);
	print_head(o, (pid_t)s->tid, s->time, true, 0, false);
	buf[0] = '\0';
	if (o->tpf && s->raw.data)
		n = tally_trace_fmt__fields(o->tpf, s->raw.data, s->raw.size, fields,
					    (int)(sizeof(fields) / sizeof(fields[0])));
	if (n > 0)
		tally_syscall__fmt_tp_fields(buf, sizeof(buf), fields,
					     n < 64 ? n : 64, (pid_t)s->tid, &ctx);
	fprintf(o->fp, "%s(%s)\n", name, buf);
}

/* -------------------------------------------------------------------- */
/* page faults */

int trace_out__faults(struct trace_out *o, const int *pids, int npids)
{
	struct tally_symbols_opts so = { .sz = sizeof(so) };

	o->mach = tally_machine__new();
	o->syms = tally_symbols__new(&so);
	if (!o->mach || !o->syms) {
		fprintf(stderr, "tally trace: %s\n", strerror(ENOMEM));
		return -1;
	}
	/* the processes' executable maps, as perf synthesizes them; without
	 * kallsyms' addresses (kptr_restrict) a kernel fault's ip stays a number */
	tally_machine__synthesize(o->mach, pids, npids);
	return 0;
}

/* perf's map__map_ip: anonymous memory, the heap and stacks by address, files by offset */
static uint64_t map_ip(const struct tally_map *m, uint64_t addr)
{
	const char *f = m->filename ? m->filename : "";

	if (m->anon || !strncmp(f, "//anon", 6) || !strncmp(f, "[stack", 6) ||
	    !strcmp(f, "[heap]") || !strncmp(f, "/SYSV", 5))
		return addr;
	return addr - m->start + m->pgoff;
}

/*
 * perf's trace__pgfault: "time ( 0.000 ms): comm/tid minfault [sym+off]
 * => file@offset (d.)": where the faulting code is (its symbol, else its
 * map's offset, else the faulting address, as perf) and the address in
 * its map ("?" for none; "." a user fault, "k" one in the kernel). It
 * cuts no call's line, as perf's does not.
 */
void trace_out__fault(struct trace_out *o, const struct tally_record *r, bool maj)
{
	const struct tally_sample *s = &r->u.sample;
	enum tally_cpumode cm = (enum tally_cpumode)(r->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	struct trace_thread *t = thread_get(o, (pid_t)s->tid);
	const struct tally_map *map;
	struct tally_addr_info ai = { 0 };
	uint64_t mip;

	if (!o->base_time)
		o->base_time = s->time;
	tally_sc_tracer__count_event(o->sc, (pid_t)s->tid);
	if (t)
		*(maj ? &t->pfmaj : &t->pfmin) += 1;
	if (o->summary_only || !o->mach)
		return;
	print_head(o, (pid_t)s->tid, s->time, true, 0, true);
	fprintf(o->fp, "%sfault [", maj ? "maj" : "min");
	if (!tally_symbols__resolve(o->syms, o->mach, (int32_t)s->pid, (int32_t)s->tid, s->ip, cm,
				    &ai) && ai.sym)
		fprintf(o->fp, "%s+0x%llx", ai.sym->name, (unsigned long long)ai.sym_off);
	else if (ai.map)
		fprintf(o->fp, "0x%llx", (unsigned long long)map_ip(ai.map, s->ip));
	else
		fprintf(o->fp, "0x%llx", (unsigned long long)s->addr);
	fprintf(o->fp, "] => ");
	map = tally_machine__find_map(o->mach, (int32_t)s->pid, (int32_t)s->tid, s->addr, cm, &mip);
	if (map)
		fprintf(o->fp, "%s@0x%llx", map->filename, (unsigned long long)map_ip(map, s->addr));
	else
		fprintf(o->fp, "0x%llx", (unsigned long long)s->addr);
	fprintf(o->fp, " (%c%c)\n", map ? 'd' : '?',
		cm == TALLY_CPUMODE_KERNEL ? 'k' : cm == TALLY_CPUMODE_USER ? '.' :
		cm == TALLY_CPUMODE_GUEST_KERNEL ? 'g' : cm == TALLY_CPUMODE_GUEST_USER ? 'u' : 'H');
}

int trace_out__formats(struct trace_out *o, struct tally_evlist *l)
{
	const struct perf_event_attr **attrs;
	struct tally_evsel *e;
	size_t n = 0;

	attrs = calloc((size_t)tally_evlist__nr(l) + 1, sizeof(*attrs));
	if (!attrs) {
		fprintf(stderr, "tally trace: %s\n", strerror(ENOMEM));
		return -1;
	}
	tally_evlist__for_each_evsel(l, e) {
		const struct perf_event_attr *a = tally_evsel__attr(e);

		/* the syscalls' own are read by their numbers */
		if (a->type == PERF_TYPE_TRACEPOINT && strncmp(tally_evsel__name(e), "raw_syscalls:", 13))
			attrs[n++] = a;
	}
	if (n && !(o->tpf = tally_trace_fmt__new_live(attrs, n)))
		fprintf(stderr, "tally trace: the tracepoints' formats: %s (their fields are not shown)\n",
			strerror(errno));
	free(attrs);
	return 0;
}

void trace_out__string_masks(struct trace_out *o, const bool *sel, uint32_t *masks)
{
	for (int nr = 0; nr < TALLY_SYSCALL_MAX; nr++)
		masks[nr] = sel[nr] ? tally_syscall__string_args(fmt_of(o, nr)) : 0;
}

void trace_out__lost(struct trace_out *o, uint64_t lost)
{
	if (lost > o->lost) {
		tally_sc_tracer__lost(o->sc, lost - o->lost);
		o->lost = lost;
	}
}

/* -------------------------------------------------------------------- */
/* the summary */

struct row {
	int nr;
	const struct tally_sc_stats *s;
};

/*
 * perf's total: the calls times the running mean, not the sum of the
 * times (they differ in the last digit), and its rows sorted by it.
 */
static double row_msecs(const struct tally_sc_stats *s)
{
	return (double)s->calls * (s->mean / 1e6);
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double mx = row_msecs(x->s), my = row_msecs(y->s);

	if (mx != my)
		return mx > my ? -1 : 1;
	return x->nr - y->nr;
}

static void thread_summary(struct trace_out *o, pid_t tid, uint64_t all)
{
	struct trace_thread *t = thread_find(o, tid);
	uint64_t ev = tally_sc_tracer__events(o->sc, tid);
	struct row rows[TALLY_SYSCALL_MAX];
	int n = 0;

	fprintf(o->fp, " %s (%d), %llu events, %.1f%%", t ? t->comm : "", (int)tid,
		(unsigned long long)ev, all ? 100.0 * (double)ev / (double)all : 0.0);
	if (t && t->pfmaj)
		fprintf(o->fp, ", %llu majfaults", (unsigned long long)t->pfmaj);
	if (t && t->pfmin)
		fprintf(o->fp, ", %llu minfaults", (unsigned long long)t->pfmin);
	fprintf(o->fp, "\n");
	fprintf(o->fp, "\n");
	fprintf(o->fp, "   syscall            calls  errors  total       min       avg       max       stddev\n");
	fprintf(o->fp, "                                     (msec)    (msec)    (msec)    (msec)        (%%)\n");
	fprintf(o->fp, "   --------------- --------  ------ -------- --------- --------- ---------     ------\n");
	for (int nr = 0; nr < TALLY_SYSCALL_MAX; nr++) {
		const struct tally_sc_stats *s = tally_sc_tracer__stats(o->sc, tid, nr);

		if (s && s->calls)
			rows[n++] = (struct row){ nr, s };
	}
	qsort(rows, (size_t)n, sizeof(rows[0]), row_cmp);
	for (int i = 0; i < n; i++) {
		const struct tally_sc_stats *s = rows[i].s;
		char nb[32];

		fprintf(o->fp, "   %-15s", sc_name(rows[i].nr, nb, sizeof(nb)));
		fprintf(o->fp, " %8llu %6llu %9.3f %9.3f %9.3f", (unsigned long long)s->calls,
			(unsigned long long)s->errors, row_msecs(s),
			(double)s->min_ns / 1e6, s->mean / 1e6);
		fprintf(o->fp, " %9.3f %9.2f%%\n", (double)s->max_ns / 1e6,
			tally_sc_stats__stddev_pct(s));
		if (o->cfg->errno_summary && s->errors)
			for (int e = 1; e < TALLY_SC_MAX_ERRNO; e++)
				if (s->errnos[e])
					fprintf(o->fp, "\t\t\t\t%s: %u\n", tally_errno_name(e) ?
						tally_errno_name(e) : "E?", s->errnos[e]);
	}
	fprintf(o->fp, "\n\n");
}

struct trow {
	pid_t tid;
	uint64_t events;
};

static int trow_cmp(const void *a, const void *b)
{
	const struct trow *x = a, *y = b;

	if (x->events != y->events)
		return x->events > y->events ? -1 : 1;
	return x->tid - y->tid;
}

static void summary(struct trace_out *o)
{
	int n = tally_sc_tracer__threads(o->sc, NULL, 0);
	pid_t *tids = calloc((size_t)n + 1, sizeof(*tids));
	struct trow *rows = calloc((size_t)n + 1, sizeof(*rows));
	uint64_t all = tally_sc_tracer__events(o->sc, -1);

	if (!tids || !rows) {
		free(tids);
		free(rows);
		return;
	}
	tally_sc_tracer__threads(o->sc, tids, n);
	for (int i = 0; i < n; i++)
		rows[i] = (struct trow){ tids[i], tally_sc_tracer__events(o->sc, tids[i]) };
	/* as perf: the threads by their count of events, most first */
	qsort(rows, (size_t)n, sizeof(*rows), trow_cmp);
	fprintf(o->fp, "\n Summary of events:\n\n");
	for (int i = 0; i < n; i++)
		thread_summary(o, rows[i].tid, all);
	free(tids);
	free(rows);
}

void trace_out__finish(struct trace_out *o)
{
	if (o->summary)
		summary(o);
	if (o->lost)
		fprintf(stderr, "tally trace: LOST %llu events: the rings were full, calls around "
			"them may show as unpaired (a bigger -m keeps them)\n",
			(unsigned long long)o->lost);
	if (o->unpaired && o->lost)
		fprintf(stderr, "tally trace: %llu calls whose exit was lost\n",
			(unsigned long long)o->unpaired);
	fflush(o->fp);
}

int trace_out__init(struct trace_out *o, const struct trace_config *cfg)
{
	static char dir[4096];
	char why[256];
	const char *d;

	memset(o, 0, sizeof(*o));
	o->cfg = cfg;
	o->fp = stderr;
	o->summary_only = cfg->summary_only;
	o->summary = cfg->summary_only || cfg->with_summary;
	o->multiple_threads = true;
	o->trace_syscalls = true;
	if (cfg->output) {
		o->fp = fopen(cfg->output, "we");
		if (!o->fp) {
			fprintf(stderr, "tally trace: cannot create %s: %s\n", cfg->output,
				strerror(errno));
			return -1;
		}
		o->own_fp = true;
	}
	d = tally_tracing_dir(why, sizeof(why));
	if (d) {
		snprintf(dir, sizeof(dir), "%s", d);
		o->tracing_dir = dir;
	}
	o->sc = tally_sc_tracer__new();
	o->fds = trace_fds__new();
	o->nr_clone = tally_syscall__nr("clone");
	for (int nr = 0; nr < TALLY_SYSCALL_MAX; nr++)
		o->show[nr] = true;	/* -i: every syscall of the file */
	if (!o->sc || !o->fds) {
		fprintf(stderr, "tally trace: %s\n", strerror(ENOMEM));
		return -1;
	}
	return 0;
}

void trace_out__release(struct trace_out *o)
{
	for (size_t i = 0; i < o->nbuckets; i++)
		for (struct trace_thread *t = o->threads[i], *n; t; t = n) {
			n = t->next;
			for (int k = 0; k < 6; k++)
				free(t->str[k]);
			free(t);
		}
	free(o->threads);
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		free(o->fmts[i]);
	tally_sc_tracer__free(o->sc);
	trace_fds__free(o->fds);
	tally_trace_fmt__free(o->tpf);
	tally_symbols__free(o->syms);
	tally_machine__free(o->mach);
	tally_sc_strings__close(o->strs);
	if (o->own_fp && o->fp)
		fclose(o->fp);
	o->fp = NULL;
}
