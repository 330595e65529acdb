/* SPDX-License-Identifier: MIT */
/*
 * The small perf.data files the histogram's unit tests write: a file
 * begun with one cpu-clock attr, its records put one by one, COMM records
 * as sample_id_all lays them out, then finished. Static: each test binary
 * takes what it uses.
 */
#ifndef TESTS_HIST_FILE_H
#define TESTS_HIST_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <tally/tally.h>

static inline void hf_put(struct tally_data_writer *w, const void *rec)
{
	assert_int_equal(tally_data_writer__write(w, rec,
						  ((const struct perf_event_header *)rec)->size), 0);
}

/* A COMM record; its sample_id: TID, TIME and (with cpu, as the attr's sample_type says) CPU. */
static inline void hf_comm(struct tally_data_writer *w, uint32_t pid, const char *name,
			   uint64_t time, bool cpu)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint32_t id_pid, id_tid;
		uint64_t time;
		uint32_t cpu, res;
	} r = { { PERF_RECORD_COMM, 0, sizeof(r) }, pid, pid, "", pid, pid, time, 0, 0 };

	if (!cpu)
		r.h.size -= sizeof(uint64_t);
	snprintf(r.comm, sizeof(r.comm), "%s", name);
	hf_put(w, &r);
}

/* A cpu-clock attr of this sample_type, as the tests' files have it. */
static inline struct perf_event_attr hf_attr(uint64_t sample_type)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 10, .sample_type = sample_type, .sample_id_all = 1,
	};

	return a;
}

/* A fresh file at path (a mkstemp template, filled in) with attr a, begun; its fd in *fd. */
static inline struct tally_data_writer *hf_begin(char *path, const struct perf_event_attr *a, int *fd)
{
	struct tally_data_writer *w;
	uint64_t id = 1;

	*fd = mkstemp(path);
	assert_true(*fd >= 0);
	w = tally_data_writer__new_fd(*fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, a, &id, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	return w;
}

static inline void hf_end(struct tally_data_writer *w, int fd)
{
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

#endif
