/* SPDX-License-Identifier: MIT */
/*
 * perf.data's numbers, in one place: the record types perf's user space
 * writes (its enum perf_user_event_type; the kernel's, PERF_RECORD_MMAP
 * 1 ... PERF_RECORD_LOST_SAMPLES 13 ..., are linux/perf_event.h's) and the
 * header feature bits (perf's HEADER_*, enum in util/header.h), as perf
 * 6.1 numbers them.
 */
#ifndef TALLY_DATA_FORMAT_H
#define TALLY_DATA_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tally_record_user_type {
	TALLY_RECORD_USER_TYPE_START = 64,
	TALLY_RECORD_HEADER_ATTR = 64,
	TALLY_RECORD_HEADER_EVENT_TYPE = 65,	/* deprecated */
	TALLY_RECORD_HEADER_TRACING_DATA = 66,
	TALLY_RECORD_HEADER_BUILD_ID = 67,
	TALLY_RECORD_FINISHED_ROUND = 68,
	TALLY_RECORD_ID_INDEX = 69,
	TALLY_RECORD_AUXTRACE_INFO = 70,
	TALLY_RECORD_AUXTRACE = 71,
	TALLY_RECORD_AUXTRACE_ERROR = 72,
	TALLY_RECORD_THREAD_MAP = 73,
	TALLY_RECORD_CPU_MAP = 74,
	TALLY_RECORD_STAT_CONFIG = 75,
	TALLY_RECORD_STAT = 76,
	TALLY_RECORD_STAT_ROUND = 77,
	TALLY_RECORD_EVENT_UPDATE = 78,
	TALLY_RECORD_TIME_CONV = 79,
	TALLY_RECORD_HEADER_FEATURE = 80,
	TALLY_RECORD_COMPRESSED = 81,
	TALLY_RECORD_FINISHED_INIT = 82,
	TALLY_RECORD_HEADER_MAX,
};

enum tally_header_feature {
	TALLY_HEADER_RESERVED = 0,
	TALLY_HEADER_TRACING_DATA = 1,
	TALLY_HEADER_BUILD_ID,
	TALLY_HEADER_HOSTNAME,
	TALLY_HEADER_OSRELEASE,
	TALLY_HEADER_VERSION,
	TALLY_HEADER_ARCH,
	TALLY_HEADER_NRCPUS,
	TALLY_HEADER_CPUDESC,
	TALLY_HEADER_CPUID,
	TALLY_HEADER_TOTAL_MEM,
	TALLY_HEADER_CMDLINE,
	TALLY_HEADER_EVENT_DESC,
	TALLY_HEADER_CPU_TOPOLOGY,
	TALLY_HEADER_NUMA_TOPOLOGY,
	TALLY_HEADER_BRANCH_STACK,
	TALLY_HEADER_PMU_MAPPINGS,
	TALLY_HEADER_GROUP_DESC,
	TALLY_HEADER_AUXTRACE,
	TALLY_HEADER_STAT,
	TALLY_HEADER_CACHE,
	TALLY_HEADER_SAMPLE_TIME,
	TALLY_HEADER_MEM_TOPOLOGY,
	TALLY_HEADER_CLOCKID,
	TALLY_HEADER_DIR_FORMAT,
	TALLY_HEADER_BPF_PROG_INFO,
	TALLY_HEADER_BPF_BTF,
	TALLY_HEADER_COMPRESSED,
	TALLY_HEADER_CPU_PMU_CAPS,
	TALLY_HEADER_CLOCK_DATA,
	TALLY_HEADER_HYBRID_TOPOLOGY,
	TALLY_HEADER_PMU_CAPS,
	TALLY_HEADER_LAST_FEATURE,		/* 32: perf 6.1's HEADER_LAST_FEATURE */
	/*
	 * tally's own sections, far past perf's: perf 6.1 reads the whole
	 * section table but handles only the bits below its LAST_FEATURE,
	 * in bit order, so a higher bit's section (last in the table) is
	 * skipped without a word. Added in 0.5.
	 */
	TALLY_HEADER_TALLY_FIRST = 192,
	TALLY_HEADER_SC_STRINGS = 192,		/* tally trace record's path strings */
	TALLY_HEADER_FEAT_BITS = 256,
};

/*
 * Added in 0.5: one string of TALLY_HEADER_SC_STRINGS: argument `arg`
 * (0-5, | TALLY_SC_STRING_AT_EXIT when it was read at the call's exit)
 * of thread tid's call of syscall nr whose sys_enter sample (with
 * AT_EXIT: sys_exit sample) has this time. The section, in the writer's
 * byte order: u32 version (1), u32 count, then per string u64 time,
 * u32 tid, u32 nr, u32 arg, u32 len (the string's bytes with its NUL,
 * 1 to 4096), the string padded with NULs to 8 bytes.
 */
#define TALLY_SC_STRING_AT_EXIT	0x100u
struct tally_sc_string {
	uint64_t time;
	uint32_t tid;
	uint32_t nr;
	uint32_t arg;
	const char *str;
};

#ifdef __cplusplus
}
#endif
#endif
