/* SPDX-License-Identifier: MIT */
/* After the kernel refused an open: may the attr be mended and the open
 * tried again? Below sys.c (the E2BIG retry) and evsel.c (the rest). */
#ifndef TALLY_OPEN_RETRY_H
#define TALLY_OPEN_RETRY_H

#include <stdbool.h>

struct perf_event_attr;
/* After E2BIG, may the open be retried at the kernel's attr size? */
bool tally__retry_e2big(struct perf_event_attr *attr);
/* Refused with err; true if exclude_guest/host were dropped: retry. */
bool tally__retry_drop_exclude_guest(struct perf_event_attr *attr, int err);

#endif
