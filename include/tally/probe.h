/* SPDX-License-Identifier: MIT */
/*
 * What this kernel accepts, asked once and remembered (as libbpf's
 * features.c): each probe opens a software dummy event on the calling
 * thread, user mode only (so perf_event_paranoid 2 does not hide the
 * answer), with the one bit under test set, and closes it.
 */
#ifndef TALLY_PROBE_H
#define TALLY_PROBE_H

#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tally_feature {
	TALLY_FEAT_SAMPLE_ID_ALL,	/* 2.6.38: trailers on side-band records */
	TALLY_FEAT_MMAP2,		/* 3.16: MMAP2 records */
	TALLY_FEAT_COMM_EXEC,		/* 3.16: COMM records flag exec */
	TALLY_FEAT_CLOCKID,		/* 4.1: use_clockid */
	TALLY_FEAT_CONTEXT_SWITCH,	/* 4.3: SWITCH records */
	TALLY_FEAT_KSYMBOL,		/* 5.1: KSYMBOL records */
	TALLY_FEAT_BPF_EVENT,		/* 5.1: BPF_EVENT records */
	TALLY_FEAT_CGROUP,		/* 5.7: CGROUP records */
	TALLY_FEAT_TEXT_POKE,		/* 5.9: TEXT_POKE records */
	TALLY_FEAT_MMAP2_BUILD_ID,	/* 5.12: build ids inside MMAP2 */
	TALLY_FEAT_READ_LOST,		/* 6.0: PERF_FORMAT_LOST */
	TALLY_FEAT_INHERIT_GROUP_READ,	/* 6.2ish: inherit + PERF_FORMAT_GROUP */
	TALLY_FEAT__NR,
};

/* True when the running kernel accepts the feature (cached per process). */
TALLY_API bool tally_kernel_has(enum tally_feature feat);
/* Its name ("mmap2_build_id"), or NULL for an unknown value. */
TALLY_API const char *tally_feature__name(enum tally_feature feat);

/*
 * perf_event_paranoid >= 2 and an event that counts kernel mode was
 * refused: count user mode only instead (perf's ":u" fallback).
 */
TALLY_API bool tally_paranoid_user_only(void);

#ifdef __cplusplus
}
#endif
#endif
