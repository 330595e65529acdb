// SPDX-License-Identifier: MIT
/*
 * -D's lines for perf's own records (ID_INDEX, THREAD_MAP, CPU_MAP,
 * EVENT_UPDATE, STAT_*, TIME_CONV...), after "PERF_RECORD_NAME": what
 * perf 6.1's handlers of report or script print (perf_event__fprintf_*),
 * ": unhandled!" where the command has none. Each reads only what the
 * record's size holds: a short record prints what it has.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "dump_raw.h"

/* A record's bytes and how far they go. */
struct rd {
	const unsigned char *p;
	size_t len;
};

static uint64_t u64_at(const struct rd *r, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= r->len)
		memcpy(&v, r->p + off, 8);
	return v;
}

static unsigned u16_at(const struct rd *r, size_t off)
{
	uint16_t v = 0;

	if (off + 2 <= r->len)
		memcpy(&v, r->p + off, 2);
	return v;
}

/* A string field: up to its NUL or the record's end. */
static void str_at(FILE *f, const struct rd *r, size_t off)
{
	if (off < r->len)
		fprintf(f, "%.*s", (int)(r->len - off), (const char *)r->p + off);
}

/* ---- CPU maps: perf's cpu_map__new_data and cpu_map__snprint ---------- */

struct cpus {
	int *cpu;
	int nr;
};

/* The map the cpu map data at off holds (perf's PERF_CPU_MAP__CPUS, MASK, RANGE_CPUS); false: none. */
static bool cpus_read(const struct rd *r, size_t off, struct cpus *c)
{
	unsigned type = u16_at(r, off), nr = u16_at(r, off + 2);

	c->nr = 0;
	c->cpu = NULL;
	if (off + 2 > r->len)
		return false;
	if (type == 0) {	/* CPUS: u16 each, (u16)-1 meaning -1 */
		size_t room = r->len > off + 4 ? (r->len - off - 4) / 2 : 0;

		nr = nr < room ? nr : (unsigned)room;
		if (!(c->cpu = malloc((nr + 1) * sizeof(int))))
			return false;
		for (unsigned i = 0; i < nr; i++) {
			unsigned v = u16_at(r, off + 4 + 2 * i);

			c->cpu[c->nr++] = v == 0xffff ? -1 : (int)v;
		}
		return true;
	}
	if (type == 1) {	/* MASK: nr words of long_size bytes, bit n of word i is CPU i*bits+n */
		unsigned ls = u16_at(r, off + 4);
		size_t at = off + (ls == 4 ? 6 : 10);
		size_t room = r->len > at && (ls == 4 || ls == 8) ? (r->len - at) / ls : 0;

		nr = nr < room ? nr : (unsigned)room;
		if (!(c->cpu = malloc(((size_t)nr * 64 + 1) * sizeof(int))))
			return false;
		for (unsigned i = 0; i < nr; i++) {
			uint64_t w = ls == 8 ? u64_at(r, at + 8 * i) : 0;

			if (ls == 4) {	/* room says it is there */
				uint32_t w32;

				memcpy(&w32, r->p + at + 4 * i, 4);
				w = w32;
			}
			for (int b = 0; b < 64; b++)
				if (w & (1ULL << b))
					c->cpu[c->nr++] = b + (int)(i * ls * 8);
		}
		return true;
	}
	if (type == 2) {	/* RANGE_CPUS: -1 first when any_cpu, then start..end */
		bool any = off + 3 <= r->len && r->p[off + 2];
		int start = (int)u16_at(r, off + 4), end = (int)u16_at(r, off + 6);
		int n = end - start + 1 + any;

		if (n < 0 || !(c->cpu = malloc(((size_t)n + 2) * sizeof(int))))
			return false;
		if (any)
			c->cpu[c->nr++] = -1;
		for (int v = start; v <= end; v++)
			c->cpu[c->nr++] = v;
		return true;
	}
	return false;
}

/* cpu_map__snprint: runs as "a-b", apart by commas; perf 6.1 prints an empty map as 0 */
static void cpus_print(FILE *f, const struct cpus *c)
{
	int start = -1;
	bool first = true;

	if (!c->nr) {
		fputs("0\n", f);
		return;
	}
	for (int i = 0; i < c->nr + 1; i++) {
		bool last = i == c->nr;
		int cpu = last ? INT_MAX : c->cpu[i];

		if (start == -1) {
			start = i;
			if (last)
				fprintf(f, "%s%d", first ? "" : ",", i < c->nr ? c->cpu[i] : -1);
		} else if (i - start != cpu - c->cpu[start] || last) {
			int end = i - 1;

			if (start == end)
				fprintf(f, "%s%d", first ? "" : ",", c->cpu[start]);
			else
				fprintf(f, "%s%d-%d", first ? "" : ",", c->cpu[start], c->cpu[end]);
			first = false;
			start = i;
		}
	}
	fputc('\n', f);
}

static void cpu_map_print(FILE *f, const struct rd *r, size_t off, const char *fail)
{
	struct cpus c;

	if (cpus_read(r, off, &c))
		cpus_print(f, &c);
	else
		fputs(fail, f);
	free(c.cpu);
}

/* ---- the records ----------------------------------------------------- */

/* perf_event__process_id_index: each id's event index, CPU and thread (and guest, when written) */
static void id_index_print(FILE *f, const struct rd *r)
{
	uint64_t nr = u64_at(r, 8);
	size_t room = r->len > 16 ? (r->len - 16) / 32 : 0;
	bool e2;

	if (nr > room)
		return;	/* perf refuses it before printing */
	e2 = r->len - 16 >= nr * (32 + 16);
	fprintf(f, " nr: %zu\n", (size_t)nr);
	for (uint64_t i = 0; i < nr; i++) {
		size_t at = 16 + 32 * i;

		fprintf(f, " ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %" PRId64 "  tid: %" PRId64,
			u64_at(r, at), u64_at(r, at + 8), (int64_t)u64_at(r, at + 16),
			(int64_t)u64_at(r, at + 24));
		if (e2) {
			size_t at2 = 16 + 32 * nr + 16 * i;

			fprintf(f, "  machine_pid: %" PRId64 "  vcpu: %" PRIu64 "\n",
				(int64_t)u64_at(r, at2), u64_at(r, at2 + 8));
		} else {
			fputc('\n', f);
		}
	}
}

static void thread_map_print(FILE *f, const struct rd *r)
{
	uint64_t nr = u64_at(r, 8);
	size_t room = r->len > 16 ? (r->len - 16) / 24 : 0;

	if (nr > room)
		nr = room;
	fprintf(f, " nr: %d thread%s: ", (int)nr, (int)nr > 1 ? "s" : "");
	for (uint64_t i = 0; i < nr; i++)
		fprintf(f, "%s%d", i ? ", " : "", (int)u64_at(r, 16 + 24 * i));
	fputc('\n', f);
}

static void event_update_print(FILE *f, const struct rd *r)
{
	uint64_t type = u64_at(r, 8);
	double scale;

	fprintf(f, "\n... id:    %" PRIu64 "\n", u64_at(r, 16));
	switch (type) {
	case 0:	/* UNIT */
		fputs("... unit:  ", f);
		str_at(f, r, 24);
		fputc('\n', f);
		break;
	case 1: {	/* SCALE */
		uint64_t bits = u64_at(r, 24);

		memcpy(&scale, &bits, 8);
		fprintf(f, "... scale: %f\n", scale);
		break;
	}
	case 2:	/* NAME */
		fputs("... name:  ", f);
		str_at(f, r, 24);
		fputc('\n', f);
		break;
	case 3:	/* CPUS */
		fputs("... ", f);
		cpu_map_print(f, r, 24, "failed to get cpus\n");
		break;
	default:
		fputs("... unknown type\n", f);
		break;
	}
}

/* perf_event__read_stat_config: the terms perf knows, the last of each kept */
static void stat_config_print(FILE *f, const struct rd *r)
{
	uint64_t nr = u64_at(r, 8);
	size_t room = r->len > 16 ? (r->len - 16) / 16 : 0;
	int aggr = 0;
	unsigned interval = 0;
	bool scale = false;

	for (uint64_t i = 0; i < nr && i < room; i++) {
		uint64_t tag = u64_at(r, 16 + 16 * i), val = u64_at(r, 24 + 16 * i);

		if (tag == 0)
			aggr = (int)val;
		else if (tag == 1)
			interval = (unsigned)val;
		else if (tag == 2)
			scale = val != 0;
	}
	fprintf(f, "\n... aggr_mode %d\n... scale     %d\n... interval  %u\n", aggr, scale,
		interval);
}

static void stat_print(FILE *f, const struct rd *r)
{
	uint32_t cpu = 0, thread = 0;

	if (r->len >= 20)
		memcpy(&cpu, r->p + 16, 4);
	if (r->len >= 24)
		memcpy(&thread, r->p + 20, 4);
	fprintf(f, "\n... id %" PRIu64 ", cpu %d, thread %d\n", u64_at(r, 8), (int)cpu, (int)thread);
	fprintf(f, "... value %" PRIu64 ", enabled %" PRIu64 ", running %" PRIu64 "\n",
		u64_at(r, 24), u64_at(r, 32), u64_at(r, 40));
}

static void time_conv_print(FILE *f, const struct rd *r)
{
	fprintf(f, "\n... Time Shift      %" PRIu64 "\n", u64_at(r, 8));
	fprintf(f, "... Time Muliplier  %" PRIu64 "\n", u64_at(r, 16));
	fprintf(f, "... Time Zero       %" PRIu64 "\n", u64_at(r, 24));
	/* the fields Linux 5.12 added, when the record has them */
	if (r->len > 32) {
		fprintf(f, "... Time Cycles     %" PRIu64 "\n", u64_at(r, 32));
		fprintf(f, "... Time Mask       %#" PRIx64 "\n", u64_at(r, 40));
		fprintf(f, "... Cap Time Zero   %d\n", r->len > 48 ? r->p[48] : 0);
		fprintf(f, "... Cap Time Short  %d\n", r->len > 49 ? r->p[49] : 0);
	}
}

void dump_raw_user(FILE *f, const struct perf_event_header *h, enum dump_raw_tool tool,
		   bool unordered)
{
	const struct rd r = { .p = (const unsigned char *)h, .len = h->size };
	bool report = tool == DUMP_RAW_REPORT;

	switch (h->type) {
	case TALLY_RECORD_FINISHED_ROUND:
		/* ordered events flush a round; unordered, nothing handles it */
		fputs(unordered ? ": unhandled!\n" : "\n", f);
		break;
	case TALLY_RECORD_ID_INDEX:
		id_index_print(f, &r);
		break;
	case TALLY_RECORD_THREAD_MAP:
		thread_map_print(f, &r);
		if (report)
			fputs(": unhandled!\n", f);
		break;
	case TALLY_RECORD_CPU_MAP:
		fputs(": ", f);
		cpu_map_print(f, &r, 8, "failed to get cpumap from event\n");
		if (report)
			fputs(": unhandled!\n", f);
		break;
	case TALLY_RECORD_EVENT_UPDATE:
		event_update_print(f, &r);
		break;
	case TALLY_RECORD_STAT_CONFIG:	/* script reads these for its stat output */
		if (report) {
			stat_config_print(f, &r);
			fputs(": unhandled!\n", f);
		}
		break;
	case TALLY_RECORD_STAT:
		if (report) {
			stat_print(f, &r);
			fputs(": unhandled!\n", f);
		}
		break;
	case TALLY_RECORD_STAT_ROUND:
		if (report) {
			fprintf(f, "\n... time %" PRIu64 ", type %s\n", u64_at(&r, 16),
				u64_at(&r, 8) == 1 ? "FINAL" : "INTERVAL");
			fputs(": unhandled!\n", f);
		}
		break;
	case TALLY_RECORD_TIME_CONV:	/* neither command handles it in perf 6.1 */
		time_conv_print(f, &r);
		fputs(": unhandled!\n", f);
		break;
	case TALLY_RECORD_FINISHED_INIT:
		fputs(": unhandled!\n", f);
		break;
	default:	/* ATTR, FEATURE, BUILD_ID, TRACING_DATA...: handled, nothing said */
		break;
	}
}
