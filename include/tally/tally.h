/* SPDX-License-Identifier: MIT */
/* Everything libtally offers. */
#ifndef TALLY_TALLY_H
#define TALLY_TALLY_H

#ifdef __cplusplus
extern "C" {
#endif

#include <tally/core.h>
#include <tally/hash.h>
#include <tally/sys.h>
#include <tally/cpumap.h>
#include <tally/threadmap.h>
#include <tally/counts.h>
#include <tally/events.h>
#include <tally/evsel.h>
#include <tally/evlist.h>
#include <tally/workload.h>
#include <tally/selfmon.h>
#include <tally/mmap.h>
#include <tally/probe.h>
#include <tally/record.h>
#include <tally/symbols.h>
#include <tally/data_format.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include <tally/trace_fmt.h>
#include <tally/stacks.h>
#include <tally/unwind.h>
#include <tally/session.h>
#include <tally/hist.h>
#include <tally/c2c.h>
#include <tally/syscalls.h>
#include <tally/syscall_trace.h>
#include <tally/syscall_strings.h>
#include <tally/disasm.h>
#include <tally/annotate.h>

#ifdef __cplusplus
}
#endif
#endif
