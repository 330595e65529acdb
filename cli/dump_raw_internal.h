/* SPDX-License-Identifier: MIT */
/* -D's state, shared by its files: dump_raw.c (records), dump_raw_sample.c (samples). */
#ifndef TALLY_CLI_DUMP_RAW_INTERNAL_H
#define TALLY_CLI_DUMP_RAW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "dump_raw.h"

/* where a queued record lies in the file, by the header it will come back with */
struct pend {
	const void *h;
	uint64_t off;
};

struct dump_raw {
	FILE *out;
	const char *label;		/* perf's file_path: the -i path, or "pipe" */
	enum dump_raw_tool tool;
	struct tally_session *ss;
	struct tally_data_reader *rd;
	bool pipe;
	bool unordered;			/* no sample_id_all: perf takes the file in its order */
	int nr_attrs;
	int seen_attrs;			/* a pipe's: the ATTR records read so far */
	/*
	 * perf's combined sample type (its events' types or'ed), cached as
	 * perf caches it: a pipe's grows as its ATTR records come, at each
	 * in report, in script only with a type of event not seen before
	 */
	uint64_t combined;
	char **names;			/* EVENT_UPDATE's names, by event: perf renames it */
	int regs_arch;			/* REGS_*'s names: 'x' x86, 'a' arm64, 0 none */
	/* the command's callbacks, called after the dump of their record */
	tally_session_sample_fn sample;
	tally_session_record_fn record;
	void (*kernel_maps)(struct tally_session *s, const struct perf_event_header *h, void *ctx);
	bool (*want)(const char *name, const struct perf_event_attr *attr, void *ctx);
	void *ctx;
	void (*flush)(void *ctx);
	void *flush_ctx;
	struct pend *pend;		/* open addressing, a power of two long */
	size_t cap, npend;
	const void *now_h;		/* a record applied as soon as it is read */
	uint64_t now_off;
	struct last_read {		/* PERF_SAMPLE_READ: each id's count at its last sample */
		uint64_t id, value;
	} *last;
	size_t nlast;
};

/* The file offset of the record delivered with header h. */
uint64_t pend_take(struct dump_raw *d, const void *h);
/* dump_event up to the record's name: where, the bytes, when; the stream to go on with. */
FILE *dump_head(struct dump_raw *d, const struct perf_event_header *h, uint64_t off,
		bool sample, uint32_t cpu, uint64_t time);
const struct perf_event_attr *attr_at(const struct dump_raw *d, int i);
/*
 * dump_raw_sample.c: a sample's dump and perf's lines for each delivery
 * of it; the events (attr indexes) perf hands it to, in *to (at most
 * max): one, or a group's members whose counts moved (PERF_SAMPLE_READ).
 * Returns how many.
 */
int dump_sample(struct dump_raw *d, const struct tally_session_sample *ts, int *to, int max);

#endif
