// SPDX-License-Identifier: MIT
/*
 * tally report --stats: perf 6.1's "Aggregated stats": how many records
 * of each type the file holds (and their share), then each event's
 * samples and lost samples, the empty ones left out as perf's default
 * --skip-empty. Nothing is resolved: the session only counts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "dump_raw.h"
#include "read_file.h"
#include "report.h"
#include "report_branch.h"

/* perf's names: the library's, its HEADER_ prefix dropped (perf_event__name's) */
static const char *type_name(int t)
{
	const char *n = tally_record__type_name((uint32_t)t);

	if (n && !strncmp(n, "HEADER_", 7))
		n += 7;
	return n;
}

struct counts {
	uint64_t *samples, *lost;	/* by event */
	int n;
	int branch;			/* -D: 1 in branch mode (its histogram counts each branch), else 0; -1 --stats */
};

static int count_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct counts *c = arg;

	(void)ss;
	if (ts->attr < 0 || ts->attr >= c->n)
		return 0;
	if (c->branch <= 0)
		c->samples[ts->attr]++;
	else if (ts->event->sample_type & PERF_SAMPLE_BRANCH_STACK)
		c->samples[ts->attr] += ts->sample->branch_stack.nr;
	return 0;
}

/* perf's LOST_SAMPLES per event: the records' counts, by their sample id's event */
static int count_record(struct tally_session *ss, const struct perf_event_header *h,
			const struct tally_record *rec, void *arg)
{
	struct counts *c = arg;
	int idx;

	/* perf's -D runs report's handlers, which count none per event */
	if (h->type != PERF_RECORD_LOST_SAMPLES || !rec->has_sid || c->branch >= 0)
		return 0;
	idx = tally_data_reader__attr_of_id(tally_session__reader(ss), rec->sid.id);
	if (idx >= 0 && idx < c->n)
		c->lost[idx] += rec->u.lost_samples.lost;
	return 0;
}

int report_stats(const char *input, bool dump, int branch)
{
	struct counts c = { 0 };
	TALLY_OPTS(tally_session_opts, so, .sample = count_sample, .record = count_record, .ctx = &c,
		   .no_comm = true);
	TALLY_OPTS(tally_session_stats, st);
	struct tally_session *ss;
	struct dump_raw *d = NULL;
	uint64_t total = 0;
	int ret;

	if (dump) {
		if (!(d = dump_raw_new(stdout, input, DUMP_RAW_REPORT)))
			return 1;
		dump_raw_attach(d, &so);
	}
	if (!(ss = cli_session_open("report", input, &so, &ret))) {
		dump_raw_free(d);
		return ret;
	}
	if (d)
		dump_raw_begin(d, ss);
	c.n = tally_session__nr_events(ss);
	c.branch = dump ? report_branch_mode(tally_session__reader(ss), c.n, branch) : -1;
	c.samples = calloc((size_t)c.n + 1, sizeof(*c.samples));
	c.lost = calloc((size_t)c.n + 1, sizeof(*c.lost));
	if (!c.samples || !c.lost) {
		free(c.samples);
		free(c.lost);
		tally_session__close(ss);
		dump_raw_free(d);
		return 1;
	}
	ret = cli_session_run(ss, "report", input);
	tally_session__stats(ss, &st);
	for (int t = 1; t < 128; t++)
		total += st.records[t];
	printf("\nAggregated stats:\n");
	printf("%16s events: %10d\n", "TOTAL", (int)total);
	for (int t = 1; t < 128; t++) {
		const char *name = type_name(t);

		if (!name || !st.records[t])
			continue;
		printf("%16s events: %10d  (%4.1f%%)\n", name, (int)st.records[t],
		       100.0 * (double)st.records[t] / (double)total);
	}
	for (int i = 0; i < c.n; i++) {
		if (!c.samples[i] && !c.lost[i])
			continue;
		printf("%s stats:\n", dump_raw_event_name(d, i) ? dump_raw_event_name(d, i) :
		       tally_session__event_name(ss, i));
		if (c.samples[i])
			printf("%16s events: %10d\n", "SAMPLE", (int)c.samples[i]);
		if (c.lost[i])
			printf("%16s events: %10d\n", "LOST_SAMPLES", (int)c.lost[i]);
	}
	free(c.samples);
	free(c.lost);
	tally_session__close(ss);
	dump_raw_free(d);
	return ret;
}
