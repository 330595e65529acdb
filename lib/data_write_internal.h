/* SPDX-License-Identifier: MIT */
/* Shared by the perf.data writer's modules: data_write.c (the file),
 * synth.c (synthesized records), tracing_data.c, build_id.c. */
#ifndef TALLY_DATA_WRITE_INTERNAL_H
#define TALLY_DATA_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "buf.h"

/* Bytes of the sample_id_all trailer attr gives (0 when NULL / none). */
size_t tally__sid_size(const struct perf_event_attr *attr);
/* Append that trailer: pid/tid when PERF_SAMPLE_TID, the rest 0. */
void tally__sid_add(struct tally__buf *b, const struct perf_event_attr *attr,
		    uint32_t pid, uint32_t tid);

/* The TRACING_DATA blob for the tracepoint attrs among attrs[nr]. */
int tally__tracing_data(struct tally__buf *b, const struct perf_event_attr *const *attrs,
			size_t nr);

/* perf.data user record types (perf's enum perf_user_event_type). */
enum {
	TALLY__REC_HEADER_ATTR = 64,
	TALLY__REC_HEADER_TRACING_DATA = 66,
	TALLY__REC_HEADER_BUILD_ID = 67,
	TALLY__REC_FINISHED_ROUND = 68,
	TALLY__REC_EVENT_UPDATE = 78,
	TALLY__REC_HEADER_FEATURE = 80,
	TALLY__REC_COMPRESSED = 81,
};

/* Feature bits (perf's HEADER_*). */
enum {
	TALLY__FEAT_TRACING_DATA = 1,
	TALLY__FEAT_BUILD_ID,
	TALLY__FEAT_HOSTNAME,
	TALLY__FEAT_OSRELEASE,
	TALLY__FEAT_VERSION,
	TALLY__FEAT_ARCH,
	TALLY__FEAT_NRCPUS,
	TALLY__FEAT_CPUDESC,
	TALLY__FEAT_CPUID,
	TALLY__FEAT_TOTAL_MEM,
	TALLY__FEAT_CMDLINE,
	TALLY__FEAT_EVENT_DESC,
	TALLY__FEAT_CPU_TOPOLOGY,
	TALLY__FEAT_NUMA_TOPOLOGY,
	TALLY__FEAT_SAMPLE_TIME = 21,
	TALLY__FEAT_CLOCKID = 23,
	TALLY__FEAT_COMPRESSED = 27,
	TALLY__FEAT_CLOCK_DATA = 29,
	TALLY__FEAT_LAST = 32,		/* perf 6.1's HEADER_LAST_FEATURE */
};

#endif
