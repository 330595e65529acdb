// SPDX-License-Identifier: MIT
/*
 * The stacks model as speedscope's JSON (its file-format schema): the
 * frames shared, one "sampled" profile per thread, its samples in time
 * order (the timeline; a run of one stack as one sample of the run's
 * weight, which keeps the order) so that speedscope's Time Order view is
 * the recording's, each with its weight (the event's period for a clock,
 * in nanoseconds; else the sample count, unit "none"). The file opens on
 * the busiest thread. A model without a timeline gives each distinct
 * stack once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "stacks_internal.h"

void tally__json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20)
			fprintf(fp, "\\u%04x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

struct ss_run {
	int node;
	uint64_t weight;
};

/*
 * Every thread's samples, thread t's at v + off[t], n[t] of them, of
 * total[t] in all: in time order with a timeline, else each stack once.
 */
static void thread_samples(const struct tally_stacks *s, bool ns, struct ss_run *v, size_t *off,
			   size_t *n, uint64_t *total)
{
	size_t m = s->ntimed ? s->ntimed : s->naggs;

	for (size_t i = 0; i < m; i++)
		off[(s->ntimed ? s->timed[i].thread : s->aggs[i].thread) + 1]++;
	for (size_t t = 0; t < s->nthreads; t++)
		off[t + 1] += off[t];
	for (size_t i = 0; i < m; i++) {
		int t = s->ntimed ? s->timed[i].thread : s->aggs[i].thread;
		int node = s->ntimed ? s->timed[i].node : s->aggs[i].node;
		uint64_t w = s->ntimed ? (ns ? s->timed[i].weight : 1) :
			     (ns ? s->aggs[i].weight : s->aggs[i].count);
		struct ss_run *r = v + off[t];

		total[t] += w;
		if (n[t] && r[n[t] - 1].node == node)
			r[n[t] - 1].weight += w;
		else
			r[n[t]++] = (struct ss_run){ node, w };
	}
}

int tally_stacks__write_speedscope(const struct tally_stacks *s, FILE *fp)
{
	bool ns = s && s->info.unit && !strcmp(s->info.unit, "nanoseconds");
	size_t depth = s ? tally__stacks_max_depth(s) : 0, busiest = 0, *off = NULL, *n = NULL;
	const char *ev = s && s->info.event ? s->info.event : "samples";
	uint64_t *total = NULL;
	struct ss_run *v = NULL;
	char *name = NULL;
	int *path, err = 0;

	if (!s || !fp)
		return -EINVAL;
	path = malloc((depth + 1) * sizeof(*path));
	v = malloc(((s->ntimed > s->naggs ? s->ntimed : s->naggs) + 1) * sizeof(*v));
	off = calloc(s->nthreads + 1, sizeof(*off));
	n = calloc(s->nthreads + 1, sizeof(*n));
	total = calloc(s->nthreads + 1, sizeof(*total));
	/* the group's title: what was recorded, and of which event */
	name = malloc((s->info.command ? strlen(s->info.command) + 3 : 0) + strlen(ev) + 1);
	if (!path || !v || !off || !n || !total || !name) {
		err = -ENOMEM;
		goto out;
	}
	if (s->info.command)
		sprintf(name, "%s (%s)", s->info.command, ev);
	else
		strcpy(name, ev);
	thread_samples(s, ns, v, off, n, total);
	/* opened on the busiest thread (the first of equals) */
	for (size_t t = 1; t < s->nthreads; t++)
		if (total[t] > total[busiest])
			busiest = t;
	fprintf(fp, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		    "\"exporter\":\"tally@%s\",\"name\":", tally_version());
	tally__json_str(fp, name);
	fprintf(fp, ",\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[", busiest);
	for (size_t i = 0; i < s->nframes; i++) {
		const struct stk_frame *f = &s->frames[i];
		char buf[64];

		fprintf(fp, "%s\n{\"name\":", i ? "," : "");
		if (f->name) {
			tally__json_str(fp, f->name);
		} else {
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)f->addr);
			tally__json_str(fp, buf);
		}
		if (f->dso) {
			fprintf(fp, ",\"file\":");
			tally__json_str(fp, f->dso);
		}
		fputc('}', fp);
	}
	fprintf(fp, "]},\n\"profiles\":[");
	for (size_t t = 0; t < s->nthreads; t++) {
		const struct stk_thread *th = &s->threads[t];
		const struct ss_run *r = v + off[t];
		char tname[320];

		snprintf(tname, sizeof(tname), "%s (%d)", th->comm ? th->comm : "[unknown]", th->tid);
		fprintf(fp, "%s\n{\"type\":\"sampled\",\"name\":", t ? "," : "");
		tally__json_str(fp, tname);
		/* values from 0: speedscope lays each sample after those before it */
		fprintf(fp, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
			ns ? "nanoseconds" : "none", (unsigned long long)total[t]);
		/* stacks root first, as speedscope takes them */
		for (size_t i = 0; i < n[t]; i++) {
			size_t np = tally__stacks_path(s, r[i].node, path);

			fprintf(fp, "%s[", i ? "," : "");
			for (size_t k = 0; k < np; k++)
				fprintf(fp, "%s%d", k ? "," : "", path[k]);
			fputc(']', fp);
		}
		fprintf(fp, "],\"weights\":[");
		for (size_t i = 0; i < n[t]; i++)
			fprintf(fp, "%s%llu", i ? "," : "", (unsigned long long)r[i].weight);
		fprintf(fp, "]}");
	}
	fprintf(fp, "]}\n");
	if (ferror(fp))
		err = -EIO;
out:
	free(path);
	free(v);
	free(off);
	free(n);
	free(total);
	free(name);
	return err;
}
