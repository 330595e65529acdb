/* SPDX-License-Identifier: MIT */
/*
 * report -T/--threads: the per-thread counts of the events that perf
 * record -s (inherit_stat) writes as READ records when a thread exits,
 * printed after the rows as perf 6.1's perf_read_values_display does.
 */
#ifndef TALLY_CLI_REPORT_THREADS_H
#define TALLY_CLI_REPORT_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct perf_event_header;
struct tally_data_reader;
struct tally_record;

struct report_thread {
	uint32_t pid, tid;
	uint64_t *val;			/* one per column */
};

struct report_threads {
	struct tally_data_reader *rd;
	struct report_thread *th;	/* in the order first read */
	int nth, cap;
	int *col;			/* event index of each column, first read first */
	int ncol, nr_events;
	int err;			/* the first failure (-ENOMEM) */
};

void report_threads_init(struct report_threads *t, struct tally_data_reader *rd, int nr_events);
/* A record of the session: READ ones add their count. 0 (errors kept in t->err). */
int report_threads_record(struct report_threads *t, const struct perf_event_header *h,
			  const struct tally_record *rec);
/* perf's table: "#   PID    TID  event..." (raw: --pretty=raw's rows). */
void report_threads_print(FILE *fp, const struct report_threads *t, bool raw);
void report_threads_free(struct report_threads *t);

#endif
