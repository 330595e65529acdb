// SPDX-License-Identifier: MIT
/*
 * tally sched: the file's samples in time order (the library's session),
 * each sched tracepoint's fields read by name through the file's formats
 * (the library's tally_tp_reader), handed to the subcommand as a sched_ev.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "read_file.h"
#include "sched_cmd.h"
#include "sample_filter.h"

static enum sched_kind kind_of(const char *name)
{
	static const struct { const char *name; enum sched_kind k; } names[] = {
		{ "sched:sched_switch", SK_SWITCH },
		{ "sched:sched_stat_runtime", SK_RUNTIME },
		{ "sched:sched_wakeup", SK_WAKEUP },
		{ "sched:sched_waking", SK_WAKING },
		{ "sched:sched_wakeup_new", SK_WAKEUP_NEW },
		{ "sched:sched_migrate_task", SK_MIGRATE },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (name && !strcmp(name, names[i].name))
			return names[i].k;
	return SK_OTHER;
}

static int32_t s32(uint64_t v)
{
	return (int32_t)(uint32_t)v;
}

/*
 * The fields perf reads by name, per kind, in its reader's order (bit i
 * of its mask: names[i]): each kind reads its own, no more (a sched_switch
 * has no pid, a wake-up no prev_state), and its sched_ev's others are 0,
 * as an event without such a field gives them.
 */
#define KIND_NAMES_MAX 4
static const struct kind_fields {
	const char *names[KIND_NAMES_MAX];
	int nr;
	unsigned needed;	/* a format without one of them (damaged) is no sample to count */
} kind_fields[] = {
	[SK_SWITCH] = { { "prev_pid", "next_pid", "prev_state", "next_comm" }, 4, 7 },
	[SK_RUNTIME] = { { "pid", "runtime" }, 2, 3 },
	[SK_WAKEUP] = { { "pid" }, 1, 1 },
	[SK_WAKING] = { { "pid" }, 1, 1 },
	[SK_WAKEUP_NEW] = { { "pid" }, 1, 1 },
	[SK_MIGRATE] = { { "pid", "orig_cpu", "dest_cpu" }, 3, 7 },
};

/* A sample of no sched kind: its fields as a zeroed sched_ev has them. */
static void sched_ev_clear_fields(struct sched_ev *ev)
{
	ev->prev_pid = ev->next_pid = 0;
	ev->prev_state = 0;
	memset(ev->next_comm, 0, sizeof(ev->next_comm));
	ev->task = 0;
	ev->runtime = 0;
	ev->orig_cpu = ev->dest_cpu = 0;
}

/* Its kind's fields (tally_tp_reader); 0, or -1 when the record lacks one its kind needs. */
static int decode(struct sched_reader *r, struct sched_ev *ev, const struct tally_sample *sm)
{
	const struct kind_fields *kf = &kind_fields[ev->kind];
	struct tally_tp_val v[KIND_NAMES_MAX];
	int got = tally_tp_reader__read(r->fields[ev->kind], sm->raw.data, sm->raw.size, v);

	if (got < 0 || ((unsigned)got & kf->needed) != kf->needed) {
		r->bad_kind = ev->kind;
		return -1;
	}
	ev->prev_pid = ev->next_pid = 0;
	ev->prev_state = 0;
	ev->task = 0;
	ev->runtime = 0;
	ev->orig_cpu = ev->dest_cpu = 0;
	switch (ev->kind) {
	case SK_SWITCH:
		ev->prev_pid = s32(v[0].val);
		ev->next_pid = s32(v[1].val);
		ev->prev_state = (int64_t)v[2].val;
		tally_tp_val__str(&v[3], ev->next_comm, sizeof(ev->next_comm));
		return 0;
	case SK_RUNTIME:
		ev->runtime = v[1].val;
		break;
	case SK_MIGRATE:
		ev->orig_cpu = s32(v[1].val);
		ev->dest_cpu = s32(v[2].val);
		break;
	default:
		break;
	}
	ev->task = s32(v[0].val);
	ev->next_comm[0] = 0;	/* tally_tp_val__str's of a field the event lacks */
	return 0;
}

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct sched_reader *r = ctx;
	const struct tally_sample *sm = smp->sample;
	/*
	 * Field by field: decode sets the rest, an aggregate's zeroing of the
	 * whole (rep stos) was half of this function, a sample each
	 */
	struct sched_ev ev;

	(void)s;
	ev.kind = smp->attr >= 0 && smp->attr < r->nr_attrs ? r->kinds[smp->attr] : SK_OTHER;
	ev.smp = smp;
	ev.time = sm->time;
	ev.cpu = (int)sm->cpu;
	ev.pid = (int32_t)sm->pid;
	ev.tid = (int32_t)sm->tid;
	r->nr_samples++;
	if (ev.kind == SK_OTHER)
		sched_ev_clear_fields(&ev);
	if (ev.kind != SK_OTHER && (!sm->raw.data || decode(r, &ev, sm))) {
		r->bad_fields++;
		return 0;
	}
	return r->fn(r, &ev, r->ctx);
}

struct sched_tinfo *sched_thread(struct sched_reader *r, int32_t pid, int32_t tid)
{
	struct sched_tinfo *t = sched_tids__get(&r->tinfo, tid);

	if (!t) {
		r->no_mem = true;
		return NULL;
	}
	if (!t->seen) {
		t->seen = true;
		t->pid = -1;
		t->ppid = -1;
	}
	if (t->pid == -1 && pid != -1)
		t->pid = pid;
	return t;
}

/* t's name as the machine has it now (after the record that set it). */
static void note_name(struct sched_reader *r, struct sched_tinfo *t, int32_t tid)
{
	const char *c = tally_machine__comm_of(tally_session__machine(r->s), tid);

	snprintf(t->name, sizeof(t->name), "%s", c ? c : "");
}

/* perf keeps the thread a FORK rebuilds: the subcommand may keep what it knows of it */
static void drop(struct sched_reader *r, int32_t tid, const struct sched_tinfo *old,
		 const char *comm)
{
	char dflt[24];

	if (!r->drop)
		return;
	if (!comm) {	/* as sched_comm said before the FORK renamed it */
		snprintf(dflt, sizeof(dflt), ":%d", (int)tid);
		comm = old->comm_lost || !old->name[0] ? dflt : old->name;
	}
	r->drop(r, tid, old, comm, r->ctx);
}

/* COMM, FORK and EXIT as perf's machine takes them. */
static int on_record(struct tally_session *s, const struct perf_event_header *h,
		     const struct tally_record *rec, void *ctx)
{
	struct sched_reader *r = ctx;
	struct sched_tinfo *t;
	int32_t tid;
	bool lost;

	(void)s;
	switch (h->type) {
	case PERF_RECORD_COMM:
		if (!(t = sched_thread(r, (int32_t)rec->u.comm.pid, (int32_t)rec->u.comm.tid)))
			break;
		t->comm_lost = false;
		note_name(r, t, (int32_t)rec->u.comm.tid);
		/*
		 * perf marks the thread of the record's sample id, not the one
		 * named: a synthesized COMM's id is zero, the idle task's.
		 */
		t = sched_tids__find(&r->tinfo, rec->has_sid ? (int32_t)rec->sid.tid
							     : (int32_t)rec->u.comm.tid);
		if (t)
			t->comm_changed = true;
		break;
	case PERF_RECORD_FORK:
		/*
		 * A parent known by another pid (a thread first met as the
		 * task a wake-up named, of pid 0) is not the parent: perf
		 * drops it and makes a new one.
		 */
		tid = (int32_t)rec->u.task.ptid;
		t = sched_thread(r, (int32_t)rec->u.task.ppid, tid);
		if (t && t->pid != (int32_t)rec->u.task.ppid) {	/* its name goes with it */
			drop(r, tid, t, sched_comm(r, tid));
			*t = (struct sched_tinfo){ .seen = true, .pid = (int32_t)rec->u.task.ppid,
						   .ppid = -1, .gen = t->gen + 1, .comm_lost = true };
		}
		lost = t && t->comm_lost;
		/* a thread of that tid before is another: perf makes a new one, named as its parent */
		tid = (int32_t)rec->u.task.tid;
		if ((t = sched_tids__find(&r->tinfo, tid)) && t->seen)
			drop(r, tid, t, NULL);
		if ((t = sched_thread(r, -1, tid))) {
			*t = (struct sched_tinfo){ .seen = true, .pid = (int32_t)rec->u.task.pid,
						   .ppid = (int32_t)rec->u.task.ptid,
						   .gen = t->gen + 1, .comm_lost = lost };
			note_name(r, t, tid);
		}
		break;
	case PERF_RECORD_EXIT:
		if ((t = sched_tids__find(&r->tinfo, (int32_t)rec->u.task.tid)))
			t->dead = true;
		break;
	}
	return 0;
}

/*
 * A file cut short loses what perf.data keeps after the samples: the
 * event names and the tracepoint formats. Said so, rather than that the
 * events are missing; true when it was.
 */
static bool truncated(struct sched_reader *r)
{
	struct tally_data_file_info fi;
	struct tally_data_reader *rd = tally_session__reader(r->s);

	if (!rd || tally_data_reader__is_pipe(rd) || tally_data_reader__file_info(rd, &fi) ||
	    fi.data_offset + fi.data_size <= fi.file_size)
		return false;
	fprintf(stderr, "tally %s: %s: the file is truncated: its samples end at offset %#llx, "
		"the file at %#llx (the event names and tracepoint formats after them are lost)\n",
		r->cmd, r->path, (unsigned long long)(fi.data_offset + fi.data_size),
		(unsigned long long)fi.file_size);
	sched_close(r);
	return true;
}

/* The kinds the subcommand reads: the session drops the rest's samples unqueued. */
static bool want_event(const char *name, const struct perf_event_attr *attr, void *ctx)
{
	const struct sched_reader *r = ctx;

	(void)attr;
	return r->want & SCHED_WANT(kind_of(name));
}

int sched_open(struct sched_reader *r, const char *cmd, const char *path, bool unwind,
	       unsigned want, const char *symfs, const char *kallsyms, sched_ev_fn fn, void *ctx)
{
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .record = on_record, .ctx = r,
		   .no_comm = true, .want = want_event, .symfs = symfs, .kallsyms = kallsyms);
	bool has_switch = false;
	int ret;

	memset(r, 0, sizeof(*r));
	r->tinfo.size = sizeof(struct sched_tinfo);
	r->cmd = cmd;
	r->path = path;
	r->fn = fn;
	r->ctx = ctx;
	r->want = want;
	r->s = cli_session_open(cmd, path, &so, &ret);
	if (!r->s)
		return ret;
	tally_session__set_unwind(r->s, unwind);
	r->nr_attrs = tally_session__nr_events(r->s);
	r->kinds = calloc(r->nr_attrs > 0 ? (size_t)r->nr_attrs : 1, sizeof(*r->kinds));
	if (!r->kinds) {
		sched_close(r);
		return 1;
	}
	for (int i = 0; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a =
			tally_data_reader__attr(tally_session__reader(r->s), i);

		r->kinds[i] = kind_of(tally_session__event_name(r->s, i));
		has_switch |= r->kinds[i] == SK_SWITCH;
		if (r->kinds[i] != SK_OTHER && a && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
			r->callchains = true;
	}
	if (!has_switch && truncated(r))
		return 1;
	if (!has_switch) {
		/* perf's words; it goes on and prints nothing, tally says it and fails */
		fprintf(stderr, "tally %s: %s: no sched:sched_switch events found. "
			"Have you run 'tally sched record'?\n", cmd, path);
		sched_close(r);
		return 1;
	}
	if (!tally_session__trace_fmt(r->s)) {
		fprintf(stderr, "tally %s: %s: the file has no tracepoint formats (tracing data)\n",
			cmd, path);
		sched_close(r);
		return 1;
	}
	for (int k = SK_SWITCH; k <= SK_MIGRATE; k++)
		if (!(r->fields[k] = tally_tp_reader__new(tally_session__trace_fmt(r->s),
							  kind_fields[k].names, kind_fields[k].nr))) {
			fprintf(stderr, "tally %s: %s\n", cmd, strerror(errno));
			sched_close(r);
			return 1;
		}
	return 0;
}

int sched_run(struct sched_reader *r)
{
	int ret = tally_session__run(r->s);

	if (r->ran)
		r->ran(r, r->ctx);
	ret = cli_session_end(r->s, r->cmd, r->path, ret);

	static const char *const names[] = {
		[SK_SWITCH] = "sched_switch", [SK_RUNTIME] = "sched_stat_runtime",
		[SK_WAKEUP] = "sched_wakeup", [SK_WAKING] = "sched_waking",
		[SK_WAKEUP_NEW] = "sched_wakeup_new", [SK_MIGRATE] = "sched_migrate_task",
	};

	if (r->bad_fields) {
		fprintf(stderr, "tally %s: %s: %d sched samples were left out: their fields could not "
			"be read (the last: a %s without the fields perf reads, or past its data)\n",
			r->cmd, r->path, r->bad_fields,
			r->bad_kind > SK_OTHER && r->bad_kind <= SK_MIGRATE ? names[r->bad_kind] : "sample");
		if (!ret)
			ret = 1;
	}
	return ret;
}

void sched_close(struct sched_reader *r)
{
	if (r->s)
		tally_session__close(r->s);
	free(r->kinds);
	for (int k = 0; k <= SK_MIGRATE; k++) {
		tally_tp_reader__free(r->fields[k]);
		r->fields[k] = NULL;
	}
	sched_tids__free(&r->tinfo);
	r->s = NULL;
	r->kinds = NULL;
}

const char *sched_comm(struct sched_reader *r, int32_t tid)
{
	static char bufs[4][24];
	static int next;
	const char *c = tally_machine__comm_of(tally_session__machine(r->s), tid);
	struct sched_tinfo *t = sched_tids__find(&r->tinfo, tid);
	char *b;

	if (c && !(t && t->comm_lost))
		return c;
	if (tid == 0)
		return "swapper";	/* perf's idle thread */
	b = bufs[next++ % 4];
	snprintf(b, sizeof(bufs[0]), ":%d", (int)tid);
	return b;
}

int sched_nr_cpus_online(struct sched_reader *r)
{
	uint32_t online = 0;

	if (tally_data_reader__nrcpus(tally_session__reader(r->s), &online, NULL))
		return 0;
	return (int)online;
}

void sched_usec(char *buf, size_t len, uint64_t t)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(t / 1000000000ull),
		 (unsigned long long)(t % 1000000000ull / 1000));
}

void sched_print_time(uint64_t nsecs, int width)
{
	unsigned long msecs = (unsigned long)(nsecs / 1000000);
	unsigned long usecs = (unsigned long)(nsecs % 1000000 / 1000);

	printf("%*lu.%03lu ", width, msecs, usecs);
}

int sched_cpu_list(const char *s, uint8_t *bits)
{
	long bad;

	memset(bits, 0, 512);
	return s && *s ? cli_cpu_bits(s, bits, 4096, &bad) : 0;
}

static size_t tid_slot(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

void *sched_tids__find(const struct sched_tids *t, int32_t tid)
{
	if (!t->cap)
		return NULL;
	for (size_t i = tid_slot(tid, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (!t->vals[i])
			return NULL;
		if (t->keys[i] == tid)
			return t->vals[i];
	}
}

static int tids_grow(struct sched_tids *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	int32_t *keys = calloc(cap, sizeof(*keys)), *order = realloc(t->order, cap * sizeof(*order));
	void **vals = calloc(cap, sizeof(*vals));

	if (order)
		t->order = order;
	if (!keys || !vals || !order) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->vals[i])
			continue;
		for (j = tid_slot(t->keys[i], cap); vals[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = t->keys[i];
		vals[j] = t->vals[i];
	}
	free(t->keys);
	free(t->vals);
	t->keys = keys;
	t->vals = vals;
	t->cap = cap;
	return 0;
}

void *sched_tids__get(struct sched_tids *t, int32_t tid)
{
	void *v = sched_tids__find(t, tid);
	size_t i;

	if (v)
		return v;
	if ((t->nr + 1) * 2 > t->cap && tids_grow(t))
		return NULL;
	if (!(v = calloc(1, t->size)))
		return NULL;
	for (i = tid_slot(tid, t->cap); t->vals[i]; i = (i + 1) & (t->cap - 1))
		;
	t->keys[i] = tid;
	t->vals[i] = v;
	t->order[t->nr++] = tid;
	return v;
}

void sched_tids__free(struct sched_tids *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->vals[i]);
	free(t->keys);
	free(t->vals);
	free(t->order);
	memset(t, 0, sizeof(*t));
}
