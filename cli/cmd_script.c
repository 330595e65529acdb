// SPDX-License-Identifier: MIT
/*
 * tally script: perf script's default text from a perf.data file, in
 * time order (records of a FINISHED_ROUND round sorted and released as
 * perf's ordered events do), with the per-process maps built from the
 * side-band records and symbols from the library. perf 6.1's layout:
 * comm, tid, [cpu], time, period, event, then the ip with symbol+offset
 * and DSO, or the call chain one frame a line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "parse_options.h"

#define PERF_RECORD_FINISHED_ROUND 68	/* perf's own record type */

/* One record waiting for its round to end. */
struct queued {
	uint64_t time;
	uint64_t seq;		/* arrival: ties keep file order */
	uint64_t off;		/* into the file (the reader's buffer) */
	struct perf_event_header *h;
	int attr;
};

struct script {
	struct tally_data_reader *rd;
	struct tally_machine *m;
	struct tally_symbols *syms;
	struct tally_record_layout *lays;
	int nr_attrs;
	const char **names;
	char **own_names;	/* fallbacks made from the attr */
	int name_width;		/* event names right-aligned to the longest, as perf */
	struct queued *q;
	size_t nq, cap;
	uint64_t seq, next_flush, max_time;
	FILE *out;
	struct tally_trace_fmt *tf;	/* TRACING_DATA: tracepoint fields */
	uint64_t samples, lost, bad;
};

static int attr_of(struct script *s, const struct perf_event_header *h)
{
	uint64_t id;
	int idx;

	if (s->nr_attrs == 1)
		return 0;
	if (tally_record__id(h, h->size, &s->lays[0], &id))
		return 0;
	idx = tally_data_reader__attr_of_id(s->rd, id);
	return idx < 0 ? 0 : idx;
}

static void print_frame(struct script *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, bool chain)
{
	struct tally_addr_info ai;
	bool found = !tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid,
					     ip, mode, &ai);
	/* in a chain perf prints the DSO-relative address, else the ip itself */
	uint64_t shown = chain && ai.map ? ai.map_ip : ip;

	if (chain)
		fprintf(s->out, "\t%16llx ", (unsigned long long)shown);
	else
		fprintf(s->out, "%16llx ", (unsigned long long)shown);
	if (found)
		fprintf(s->out, "%s+0x%llx", ai.sym->name, (unsigned long long)ai.sym_off);
	else
		fputs("[unknown]", s->out);
	fprintf(s->out, " (%s)\n", ai.map ? (ai.map->kernel && !strncmp(ai.map->filename,
				"[kernel.kallsyms]", 17) ? "[kernel.kallsyms]" :
				ai.map->filename) : "[unknown]");
}

static void print_sample(struct script *s, const struct perf_event_header *h, int idx)
{
	const struct perf_event_attr *a = tally_data_reader__attr(s->rd, idx);
	struct tally_record rec;
	const struct tally_sample *smp = &rec.u.sample;
	const char *comm;
	enum tally_cpumode mode = (enum tally_cpumode)(h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	bool chain = a->sample_type & PERF_SAMPLE_CALLCHAIN;
	bool tp = a->type == PERF_TYPE_TRACEPOINT;

	if (tally_record__parse(h, h->size, &s->lays[idx], &rec)) {
		s->bad++;
		return;
	}
	s->samples++;
	comm = tally_machine__comm_of(s->m, (int32_t)smp->tid);
	if (!comm)
		comm = ":-1";
	if (chain && !tp)
		fprintf(s->out, "%s ", comm);
	else
		fprintf(s->out, "%16s ", comm);
	fprintf(s->out, "%5d ", (int)smp->tid);
	if (a->sample_type & PERF_SAMPLE_CPU)
		fprintf(s->out, "[%03u] ", smp->cpu);
	fprintf(s->out, "%5llu.%06llu: ", (unsigned long long)(smp->time / 1000000000ull),
		(unsigned long long)(smp->time % 1000000000ull / 1000));
	if (!tp && (a->sample_type & PERF_SAMPLE_PERIOD))
		fprintf(s->out, "%10llu ", (unsigned long long)smp->period);
	fprintf(s->out, "%*s: ", s->name_width, s->names[idx]);
	if (tp) {
		char info[4096];

		if (s->tf && (a->sample_type & PERF_SAMPLE_RAW) && smp->raw.size &&
		    tally_trace_fmt__print(s->tf, smp->raw.data, smp->raw.size, info,
					   sizeof(info)) > 0)
			fputs(info, s->out);
		fputc('\n', s->out);
		return;
	}
	if (!chain) {
		fputc(' ', s->out);
		print_frame(s, smp, smp->ip, mode, false);
		return;
	}
	fputc('\n', s->out);
	for (uint64_t i = 0; i < smp->callchain.nr; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = TALLY_CPUMODE_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = TALLY_CPUMODE_USER;
			continue;
		}
		print_frame(s, smp, ip, mode, true);
	}
	fputc('\n', s->out);
}

/* Side-band records build the maps; samples print. */
static void process(struct script *s, const struct perf_event_header *h, int idx)
{
	struct tally_record rec;

	if (h->type == PERF_RECORD_SAMPLE) {
		print_sample(s, h, idx);
		return;
	}
	if (h->type >= PERF_RECORD_MAX)
		return;
	if (tally_record__parse(h, h->size, &s->lays[idx], &rec)) {
		s->bad++;
		return;
	}
	switch (h->type) {
	case PERF_RECORD_MMAP: {
		struct tally_mmap_event ev = {
			.pid = (int32_t)rec.u.mmap.pid, .tid = (int32_t)rec.u.mmap.tid,
			.start = rec.u.mmap.start, .len = rec.u.mmap.len,
			.pgoff = rec.u.mmap.pgoff, .filename = rec.u.mmap.filename,
		};

		if (!(h->misc & PERF_RECORD_MISC_MMAP_DATA))
			tally_machine__mmap(s->m, &ev);
		break;
	}
	case PERF_RECORD_MMAP2: {
		struct tally_mmap_event ev = {
			.pid = (int32_t)rec.u.mmap2.pid, .tid = (int32_t)rec.u.mmap2.tid,
			.start = rec.u.mmap2.start, .len = rec.u.mmap2.len,
			.pgoff = rec.u.mmap2.pgoff, .filename = rec.u.mmap2.filename,
			.prot = rec.u.mmap2.prot, .flags = rec.u.mmap2.flags,
			.maj = rec.u.mmap2.maj, .min = rec.u.mmap2.min,
			.ino = rec.u.mmap2.ino, .ino_generation = rec.u.mmap2.ino_generation,
			.build_id = rec.u.mmap2.has_build_id ? rec.u.mmap2.build_id : NULL,
			.build_id_size = rec.u.mmap2.has_build_id ? rec.u.mmap2.build_id_size : 0,
		};

		tally_machine__mmap(s->m, &ev);
		break;
	}
	case PERF_RECORD_COMM:
		tally_machine__comm(s->m, (int32_t)rec.u.comm.pid, (int32_t)rec.u.comm.tid,
				    rec.u.comm.comm, h->misc & PERF_RECORD_MISC_COMM_EXEC);
		break;
	case PERF_RECORD_FORK:
		tally_machine__fork(s->m, (int32_t)rec.u.task.pid, (int32_t)rec.u.task.tid,
				    (int32_t)rec.u.task.ppid, (int32_t)rec.u.task.ptid);
		break;
	case PERF_RECORD_EXIT:
		tally_machine__exit(s->m, (int32_t)rec.u.task.pid, (int32_t)rec.u.task.tid);
		break;
	case PERF_RECORD_LOST:
		s->lost += rec.u.lost.lost;
		break;
	}
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Release the queued records up to limit (all with UINT64_MAX), in time order. */
static void flush(struct script *s, uint64_t limit)
{
	size_t n = 0, keep = 0;

	qsort(s->q, s->nq, sizeof(*s->q), cmp_queued);
	while (n < s->nq && s->q[n].time <= limit) {
		process(s, s->q[n].h, s->q[n].attr);
		free(s->q[n].h);
		n++;
	}
	for (size_t i = n; i < s->nq; i++)
		s->q[keep++] = s->q[i];
	s->nq = keep;
}

static int on_record(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	struct script *s = ctx;
	struct tally_record rec;
	uint64_t t = 0;

	if (h->type == PERF_RECORD_FINISHED_ROUND) {
		/* perf's rule: release what is older than the previous round's newest */
		flush(s, s->next_flush);
		s->next_flush = s->max_time;
		return 0;
	}
	if (h->type >= PERF_RECORD_MAX)
		return 0;	/* perf's own header records */
	if (idx < 0)
		idx = attr_of(s, h);
	if (!tally_record__parse(h, h->size, &s->lays[idx], &rec) && rec.has_sid)
		t = rec.sid.time;
	if (t > s->max_time)
		s->max_time = t;
	if (s->nq == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		struct queued *q = realloc(s->q, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		s->q = q;
		s->cap = cap;
	}
	s->q[s->nq] = (struct queued){ .time = t, .seq = s->seq++, .off = off, .attr = idx };
	s->q[s->nq].h = malloc(h->size);
	if (!s->q[s->nq].h)
		return -ENOMEM;
	memcpy(s->q[s->nq].h, h, h->size);
	s->nq++;
	return 0;
}

static const char *const script_usage[] = {
	"tally script [-i FILE]",
	"",
	"Print the samples of a perf.data file (tally's or perf's) as perf script does.",
	NULL,
};

int cmd_script(int argc, char **argv)
{
	const char *input = "perf.data";
	bool help = false;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	struct script s = { .out = stdout };
	const struct tally_data_error *de;
	int n, ret = 1, err;

	n = cli_parse("script", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (help) {
		cli_usage(stdout, script_usage, opts);
		return 0;
	}
	s.rd = tally_data_reader__open(input);
	if (!s.rd) {
		fprintf(stderr, "tally script: %s: %s\n", input, strerror(errno));
		return 1;
	}
	s.nr_attrs = tally_data_reader__nr_attrs(s.rd);
	s.lays = calloc((size_t)s.nr_attrs + 1, sizeof(*s.lays));
	s.names = calloc((size_t)s.nr_attrs + 1, sizeof(*s.names));
	s.own_names = calloc((size_t)s.nr_attrs + 1, sizeof(*s.own_names));
	s.m = tally_machine__new();
	s.syms = tally_symbols__new(NULL);
	if (!s.lays || !s.names || !s.own_names || !s.m || !s.syms || !s.nr_attrs) {
		fprintf(stderr, "tally script: %s: %s\n", input,
			s.nr_attrs ? strerror(ENOMEM) : "no events in the file");
		goto out;
	}
	for (int i = 0; i < s.nr_attrs; i++) {
		tally_record_layout__from_attr(&s.lays[i], tally_data_reader__attr(s.rd, i));
		s.names[i] = tally_data_reader__event_name(s.rd, i);
		if (!s.names[i]) {
			/* no EVENT_DESC (a cut file): the attr's own name, as perf */
			struct tally_evsel *e = tally_evsel__new(tally_data_reader__attr(s.rd, i), NULL);

			s.own_names[i] = e ? strdup(tally_evsel__name(e)) : NULL;
			tally_evsel__free(e);
			s.names[i] = s.own_names[i] ? s.own_names[i] : "unknown";
		}
		if ((int)strlen(s.names[i]) > s.name_width)
			s.name_width = (int)strlen(s.names[i]);
	}
	{
		const void *td;
		size_t tdlen;

		if (!tally_data_reader__feature(s.rd, 1, &td, &tdlen))	/* HEADER_TRACING_DATA */
			s.tf = tally_trace_fmt__new(td, tdlen);
	}
	err = tally_data_reader__foreach(s.rd, on_record, &s);
	flush(&s, UINT64_MAX);
	fflush(stdout);
	de = tally_data_reader__error(s.rd);
	if (de)
		fprintf(stderr, "tally script: %s: %s (record type %u at offset %#llx); "
			"everything before it is shown\n", input, de->msg, de->type,
			(unsigned long long)de->offset);
	else if (err < 0)
		fprintf(stderr, "tally script: %s: %s\n", input, strerror(-err));
	if (s.lost)
		fprintf(stderr, "tally script: %llu samples were lost while recording\n",
			(unsigned long long)s.lost);
	if (s.bad)
		fprintf(stderr, "tally script: %llu records could not be decoded\n",
			(unsigned long long)s.bad);
	ret = de || err < 0 ? 1 : 0;
out:
	free(s.q);
	free(s.lays);
	free(s.names);
	for (int i = 0; s.own_names && i < s.nr_attrs; i++)
		free(s.own_names[i]);
	free(s.own_names);
	tally_trace_fmt__free(s.tf);
	tally_symbols__free(s.syms);
	tally_machine__free(s.m);
	tally_data_reader__close(s.rd);
	return ret;
}
