// SPDX-License-Identifier: MIT
/*
 * tally record --off-cpu (perf 6.1's option): the offcpu-time event in
 * the file's attrs (perf's: a BPF-output software event that never
 * fires itself), the BPF program timing the targets' waits, and at the
 * end its sums written as that event's samples, as perf writes them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/data_write.h>
#include <tally/offcpu.h>
#include "record.h"

#define OFFCPU_EVENT "offcpu-time"

int record_offcpu_add_event(struct tally_evlist *l)
{
	/* perf's off_cpu_config(): freq 1, period 1, call chains always */
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_BPF_OUTPUT,
		.freq = 1,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
	};
	struct tally_evsel *e = tally_evsel__new(&a, OFFCPU_EVENT);

	if (!e)
		return -errno;
	tally_evlist__add(l, e);
	return 0;
}

struct tally_offcpu *record_offcpu_open(const struct record_config *cfg,
					const struct cli_targets *ts)
{
	const struct cli_target *t = &cfg->target;
	struct tally_offcpu_opts oo = {
		.sz = sizeof(oo),
		.filtered = !ts->system_wide,
		.by_tid = t->tids != NULL,
		.follow_forks = !t->no_inherit && !cfg->per_thread,
	};
	struct tally_offcpu *o;
	char why[256];
	int err = 0;

	o = tally_offcpu__open(&oo, why, sizeof(why));
	if (!o) {
		fprintf(stderr, "tally record: --off-cpu: %s\n", why);
		return NULL;
	}
	if (ts->wl && ts->wl_is_target) {
		err = tally_offcpu__add_task(o, tally_workload__pid(ts->wl));
	} else if (!ts->system_wide) {
		/* -p: each thread's id (its process's among them), -t: the threads */
		for (int i = 0; !err && i < tally_thread_map__nr(ts->threads); i++)
			err = tally_offcpu__add_task(o, tally_thread_map__pid(ts->threads, i));
	}
	if (err) {
		fprintf(stderr, "tally record: --off-cpu: cannot fill the BPF task filter: %s\n",
			strerror(-err));
		tally_offcpu__close(o);
		return NULL;
	}
	return o;
}

struct offcpu_out {
	struct tally_data_writer *w;
	const struct perf_event_attr *attr;
	uint64_t id;
	uint32_t nth;
};

static int put_one(void *arg, const struct tally_offcpu_entry *e)
{
	struct offcpu_out *out = arg;

	if (out->nth + 1 >= TALLY_OFFCPU_NTH_MAX)
		return 0;	/* 268M sums: the rest stay out */
	return tally_synth__offcpu(out->w, out->attr, out->id, e, out->nth++);
}

int record_offcpu_write(struct tally_offcpu *o, struct tally_evlist *l,
			struct tally_data_writer *w)
{
	struct offcpu_out out = { .w = w };
	struct tally_evsel *e;

	tally_offcpu__enable(o, false);
	tally_evlist__for_each_evsel(l, e)
		if (!strcmp(tally_evsel__name(e), OFFCPU_EVENT))
			break;
	if (!e)
		return -ENOENT;
	out.attr = tally_evsel__attr(e);
	/* the id of its first fd, as perf's evsel->core.id[0] */
	for (int c = 0; c < tally_evsel__nr_cpus(e) && !out.id; c++)
		for (int t = 0; t < tally_evsel__nr_threads(e) && !out.id; t++)
			if (tally_evsel__fd(e, c, t) >= 0)
				tally_evsel__id(e, c, t, &out.id);
	uint64_t lost = tally_offcpu__lost(o);

	/* a wait the BPF maps refused is in no sum: said, never silent */
	if (lost)
		fprintf(stderr, "tally record: --off-cpu: %llu wait%s could not be kept (the BPF "
			"program's maps refused them): the off-CPU times are short of them\n",
			(unsigned long long)lost, lost == 1 ? "" : "s");
	return tally_offcpu__for_each(o, put_one, &out);
}
