// SPDX-License-Identifier: MIT
/*
 * The stacks model as the Firefox Profiler's Gecko JSON (the format its
 * importer takes, as perf's gecko script and samply write it): per
 * thread a string table, a frame table, a stack table (prefix, frame)
 * and the samples with their times in milliseconds, holding only what
 * that thread used.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "stacks_internal.h"

/* per thread: old index -> new index + 1 (0: unused); ancestors first */
static void mark_stack(const struct tally_stacks *s, int node, int *nmap, int *fmap,
		       size_t *nn, size_t *nf, int *norder, int *forder)
{
	int f;

	if (node < 0 || nmap[node])
		return;
	mark_stack(s, s->nodes[node].parent, nmap, fmap, nn, nf, norder, forder);
	f = s->nodes[node].frame;
	if (!fmap[f]) {
		forder[*nf] = f;
		fmap[f] = (int)++*nf;
	}
	norder[*nn] = node;
	nmap[node] = (int)++*nn;
}

int tally_stacks__write_firefox(const struct tally_stacks *s, FILE *fp)
{
	int *nmap, *fmap, *norder, *forder;
	uint64_t t0 = UINT64_MAX;
	int err = 0;

	if (!s || !fp)
		return -EINVAL;
	nmap = calloc(s->nnodes + 1, sizeof(*nmap));
	fmap = calloc(s->nframes + 1, sizeof(*fmap));
	norder = calloc(s->nnodes + 1, sizeof(*norder));
	forder = calloc(s->nframes + 1, sizeof(*forder));
	if (!nmap || !fmap || !norder || !forder) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->ntimed; i++)
		if (s->timed[i].time < t0)
			t0 = s->timed[i].time;
	if (t0 == UINT64_MAX)
		t0 = 0;
	fprintf(fp, "{\"meta\":{\"version\":24,\"interval\":%.6f,\"startTime\":%.3f,"
		    "\"shutdownTime\":null,\"processType\":0,\"product\":\"tally %s\",\"stackwalk\":1,"
		    "\"debug\":false,\"presymbolicated\":true,\"abi\":\"\",\"oscpu\":\"\",\"platform\":\"Linux\","
		    "\"misc\":\"\",\"toolkit\":\"\",\"appBuildID\":\"\",\"sourceURL\":\"\",\"physicalCPUs\":0,"
		    "\"logicalCPUs\":0,\"extensions\":{\"schema\":{\"id\":0,\"name\":1,\"baseURL\":2},\"data\":[]},"
		    "\"categories\":[{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
		    "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":[\"Other\"]}],"
		    "\"markerSchema\":[]},\n\"libs\":[],\"pausedRanges\":[],\"processes\":[],\n\"threads\":[",
		s->info.period && s->info.unit && !strcmp(s->info.unit, "nanoseconds") ?
			(double)s->info.period / 1e6 : 1.0,
		(double)s->info.time_ns / 1e6, tally_version());
	for (size_t t = 0; t < s->nthreads; t++) {
		const struct stk_thread *th = &s->threads[t];
		size_t nn = 0, nf = 0;
		bool first = true;

		memset(nmap, 0, (s->nnodes + 1) * sizeof(*nmap));
		memset(fmap, 0, (s->nframes + 1) * sizeof(*fmap));
		for (size_t i = 0; i < s->ntimed; i++)
			if (s->timed[i].thread == (int)t)
				mark_stack(s, s->timed[i].node, nmap, fmap, &nn, &nf, norder, forder);
		fprintf(fp, "%s\n{\"name\":", t ? "," : "");
		tally__json_str(fp, th->comm ? th->comm : "[unknown]");
		fprintf(fp, ",\"processType\":\"default\",\"processName\":");
		tally__json_str(fp, th->comm ? th->comm : "[unknown]");
		fprintf(fp, ",\"pid\":%d,\"tid\":%d,\"registerTime\":0,\"unregisterTime\":null,"
			    "\"processStartupTime\":0,"
			    "\"markers\":{\"schema\":{\"name\":0,\"startTime\":1,\"endTime\":2,\"phase\":3,"
			    "\"category\":4,\"data\":5},\"data\":[]},\n"
			    "\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"responsiveness\":2},\"data\":[",
			th->pid, th->tid);
		for (size_t i = 0; i < s->ntimed; i++) {
			const struct stk_timed *x = &s->timed[i];

			if (x->thread != (int)t)
				continue;
			fprintf(fp, "%s[", first ? "" : ",");
			if (x->node >= 0)
				fprintf(fp, "%d", nmap[x->node] - 1);
			else
				fputs("null", fp);
			fprintf(fp, ",%.6f,0]", (double)(x->time - t0) / 1e6);
			first = false;
		}
		fprintf(fp, "]},\n\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,"
			    "\"innerWindowID\":2,\"implementation\":3,\"optimizations\":4,\"line\":5,"
			    "\"column\":6,\"category\":7,\"subcategory\":8},\"data\":[");
		for (size_t i = 0; i < nf; i++)
			fprintf(fp, "%s[%zu,false,0,null,null,null,null,%d,0]", i ? "," : "", i,
				s->frames[forder[i]].kernel ? 1 : 0);
		fprintf(fp, "]},\n\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},\"data\":[");
		for (size_t i = 0; i < nn; i++) {
			const struct stk_node *n = &s->nodes[norder[i]];

			fprintf(fp, "%s[", i ? "," : "");
			if (n->parent >= 0)
				fprintf(fp, "%d", nmap[n->parent] - 1);
			else
				fputs("null", fp);
			fprintf(fp, ",%d]", fmap[n->frame] - 1);
		}
		fprintf(fp, "]},\n\"stringTable\":[");
		for (size_t i = 0; i < nf; i++) {
			const struct stk_frame *f = &s->frames[forder[i]];
			char buf[600];

			if (f->name)
				snprintf(buf, sizeof(buf), "%s%s%s%s", f->name, f->dso ? " (" : "",
					 f->dso ? f->dso : "", f->dso ? ")" : "");
			else
				snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)f->addr);
			fputs(i ? "," : "", fp);
			tally__json_str(fp, buf);
		}
		fprintf(fp, "]}");
	}
	fprintf(fp, "]}\n");
	if (ferror(fp))
		err = -EIO;
out:
	free(nmap);
	free(fmap);
	free(norder);
	free(forder);
	return err;
}
