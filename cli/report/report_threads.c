// SPDX-License-Identifier: MIT
/*
 * report -T: perf 6.1's util/values.c in its output. A thread's counts
 * come from the READ records perf record -s writes as each inherited
 * thread exits; a thread read twice for an event adds up (as 6.1 does).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "report_threads.h"

void report_threads_init(struct report_threads *t, struct tally_data_reader *rd, int nr_events)
{
	*t = (struct report_threads){ .rd = rd, .nr_events = nr_events };
}

/* The READ's event, as perf's evlist__event2evsel finds it: the only one, or by id. */
static int event_of(const struct report_threads *t, const struct tally_record *rec)
{
	if (t->nr_events == 1)
		return 0;
	if (!rec->has_sid)
		return -1;
	return tally_data_reader__attr_of_id(t->rd, rec->sid.id);
}

static struct report_thread *thread_of(struct report_threads *t, uint32_t pid, uint32_t tid)
{
	struct report_thread *th;

	for (int i = 0; i < t->nth; i++)
		if (t->th[i].pid == pid && t->th[i].tid == tid)
			return &t->th[i];
	if (t->nth == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;

		th = realloc(t->th, (size_t)cap * sizeof(*th));
		if (!th)
			return NULL;
		t->th = th;
		t->cap = cap;
	}
	th = &t->th[t->nth];
	/* every event can become a column: room for all of them at once */
	th->val = calloc((size_t)t->nr_events, sizeof(*th->val));
	if (!th->val)
		return NULL;
	th->pid = pid;
	th->tid = tid;
	t->nth++;
	return th;
}

static int column_of(struct report_threads *t, int idx)
{
	for (int i = 0; i < t->ncol; i++)
		if (t->col[i] == idx)
			return i;
	if (!t->col && !(t->col = calloc((size_t)t->nr_events, sizeof(*t->col))))
		return -1;
	t->col[t->ncol] = idx;
	return t->ncol++;
}

int report_threads_record(struct report_threads *t, const struct perf_event_header *h,
			  const struct tally_record *rec)
{
	struct report_thread *th;
	uint64_t v;
	int idx, c;

	if (rec->type != PERF_RECORD_READ || t->err)
		return 0;
	/* perf's event->read.value: the u64 after pid and tid, whatever read_format says */
	if (h->size < sizeof(*h) + 16)
		return 0;
	memcpy(&v, (const char *)h + sizeof(*h) + 8, sizeof(v));
	idx = event_of(t, rec);
	if (idx < 0 || idx >= t->nr_events)
		return 0;
	th = thread_of(t, rec->u.read.pid, rec->u.read.tid);
	c = th ? column_of(t, idx) : -1;
	if (c < 0) {
		t->err = -ENOMEM;
		return 0;
	}
	th->val[c] += v;
	return 0;
}

static int width_d(long long v)
{
	return snprintf(NULL, 0, "%lld", v);
}

static int width_u(uint64_t v)
{
	return snprintf(NULL, 0, "%" PRIu64, v);
}

static const char *col_name(const struct report_threads *t, int c)
{
	const char *n = tally_data_reader__event_name(t->rd, t->col[c]);

	return n ? n : "";
}

/* The PID and TID columns' widths: the widest id, at least the given ones. */
static void id_widths(const struct report_threads *t, int *pidw, int *tidw)
{
	for (int i = 0; i < t->nth; i++) {
		if (width_d((int)t->th[i].pid) > *pidw)
			*pidw = width_d((int)t->th[i].pid);
		if (width_d((int)t->th[i].tid) > *tidw)
			*tidw = width_d((int)t->th[i].tid);
	}
}

static void print_pretty(FILE *fp, const struct report_threads *t)
{
	int pidw = 3, tidw = 3, w[t->ncol ? t->ncol : 1];

	for (int c = 0; c < t->ncol; c++)
		w[c] = (int)strlen(col_name(t, c));
	id_widths(t, &pidw, &tidw);
	for (int i = 0; i < t->nth; i++)
		for (int c = 0; c < t->ncol; c++)
			if (width_u(t->th[i].val[c]) > w[c])
				w[c] = width_u(t->th[i].val[c]);
	fprintf(fp, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (int c = 0; c < t->ncol; c++)
		fprintf(fp, "  %*s", w[c], col_name(t, c));
	fputc('\n', fp);
	for (int i = 0; i < t->nth; i++) {
		fprintf(fp, "  %*d  %*d", pidw, (int)t->th[i].pid, tidw, (int)t->th[i].tid);
		for (int c = 0; c < t->ncol; c++)
			fprintf(fp, "  %*" PRIu64, w[c], t->th[i].val[c]);
		fputc('\n', fp);
	}
}

/*
 * --pretty=raw: a row per thread and event with the event's index (perf's
 * "Raw", in hex). perf 6.1 ends these rows without a newline; tally ends
 * each with one.
 */
static void print_raw(FILE *fp, const struct report_threads *t)
{
	int pidw = 3, tidw = 3, namew = 4, raww = 3, cntw = 5;

	id_widths(t, &pidw, &tidw);
	for (int i = 0; i < t->nth; i++)
		for (int c = 0; c < t->ncol; c++)
			if (width_u(t->th[i].val[c]) > cntw)
				cntw = width_u(t->th[i].val[c]);
	for (int c = 0; c < t->ncol; c++) {
		if ((int)strlen(col_name(t, c)) > namew)
			namew = (int)strlen(col_name(t, c));
		if (snprintf(NULL, 0, "%x", t->col[c]) > raww)
			raww = snprintf(NULL, 0, "%x", t->col[c]);
	}
	fprintf(fp, "# %*s  %*s  %*s  %*s  %*s\n", pidw, "PID", tidw, "TID", namew, "Name",
		raww, "Raw", cntw, "Count");
	for (int i = 0; i < t->nth; i++)
		for (int c = 0; c < t->ncol; c++)
			fprintf(fp, "  %*d  %*d  %*s  %*x  %*" PRIu64 "\n", pidw, (int)t->th[i].pid,
				tidw, (int)t->th[i].tid, namew, col_name(t, c), raww, t->col[c],
				cntw, t->th[i].val[c]);
}

void report_threads_print(FILE *fp, const struct report_threads *t, bool raw)
{
	if (raw)
		print_raw(fp, t);
	else
		print_pretty(fp, t);
}

void report_threads_free(struct report_threads *t)
{
	for (int i = 0; i < t->nth; i++)
		free(t->th[i].val);
	free(t->th);
	free(t->col);
	*t = (struct report_threads){ 0 };
}
