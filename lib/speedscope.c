// SPDX-License-Identifier: MIT
/*
 * The stacks model as speedscope's JSON (its file-format schema): the
 * frames shared, one "sampled" profile per thread, each distinct stack
 * once with its weight (the event's period for a clock, in nanoseconds;
 * else the sample count, unit "none").
 */
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

int tally_stacks__write_speedscope(const struct tally_stacks *s, FILE *fp)
{
	bool ns = s && s->info.unit && !strcmp(s->info.unit, "nanoseconds");
	size_t depth = s ? tally__stacks_max_depth(s) : 0;
	int *path;

	if (!s || !fp)
		return -EINVAL;
	path = malloc((depth + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	fprintf(fp, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		    "\"exporter\":\"tally %s\",\"name\":", tally_version());
	tally__json_str(fp, s->info.event ? s->info.event : "samples");
	fprintf(fp, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[");
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
		uint64_t end = 0;
		bool first = true;
		char name[320];

		for (size_t i = 0; i < s->naggs; i++)
			if (s->aggs[i].thread == (int)t)
				end += ns ? s->aggs[i].weight : s->aggs[i].count;
		snprintf(name, sizeof(name), "%s (%d)", th->comm ? th->comm : "[unknown]", th->tid);
		fprintf(fp, "%s\n{\"type\":\"sampled\",\"name\":", t ? "," : "");
		tally__json_str(fp, name);
		fprintf(fp, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
			ns ? "nanoseconds" : "none", (unsigned long long)end);
		/* stacks root first, as speedscope takes them */
		for (size_t i = 0; i < s->naggs; i++) {
			size_t np;

			if (s->aggs[i].thread != (int)t)
				continue;
			np = tally__stacks_path(s, s->aggs[i].node, path);
			fprintf(fp, "%s[", first ? "" : ",");
			for (size_t k = 0; k < np; k++)
				fprintf(fp, "%s%d", k ? "," : "", path[k]);
			fputc(']', fp);
			first = false;
		}
		fprintf(fp, "],\"weights\":[");
		first = true;
		for (size_t i = 0; i < s->naggs; i++) {
			if (s->aggs[i].thread != (int)t)
				continue;
			fprintf(fp, "%s%llu", first ? "" : ",",
				(unsigned long long)(ns ? s->aggs[i].weight : s->aggs[i].count));
			first = false;
		}
		fprintf(fp, "]}");
	}
	fprintf(fp, "]}\n");
	free(path);
	return ferror(fp) ? -EIO : 0;
}
