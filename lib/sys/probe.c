// SPDX-License-Identifier: MIT
/*
 * Kernel feature probes, one place for "does this kernel take X": each
 * opens a dummy software event on this thread with X set (user mode
 * only, so perf_event_paranoid 2 still answers) and remembers the
 * verdict. record's configuration asks here before it sets a bit an old
 * kernel would refuse with a bare EINVAL. The user-only
 * counting under perf_event_paranoid lives here too; the mending of a
 * refused attr is open_retry.c's.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <tally/probe.h>
#include <tally/sys.h>
#include "internal.h"

static const char *const names[TALLY_FEAT__NR] = {
	[TALLY_FEAT_SAMPLE_ID_ALL]	= "sample_id_all",
	[TALLY_FEAT_MMAP2]		= "mmap2",
	[TALLY_FEAT_COMM_EXEC]		= "comm_exec",
	[TALLY_FEAT_CLOCKID]		= "clockid",
	[TALLY_FEAT_CONTEXT_SWITCH]	= "context_switch",
	[TALLY_FEAT_KSYMBOL]		= "ksymbol",
	[TALLY_FEAT_BPF_EVENT]		= "bpf_event",
	[TALLY_FEAT_CGROUP]		= "cgroup",
	[TALLY_FEAT_TEXT_POKE]		= "text_poke",
	[TALLY_FEAT_MMAP2_BUILD_ID]	= "mmap2_build_id",
	[TALLY_FEAT_READ_LOST]		= "read_lost",
	[TALLY_FEAT_INHERIT_GROUP_READ]	= "inherit_group_read",
};

/* 0 unknown, 1 yes, 2 no */
static unsigned char verdict[TALLY_FEAT__NR];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void base_attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static bool try_open(struct perf_event_attr *a, int group_fd)
{
	int fd = tally_sys_open(a, 0, -1, group_fd, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* inherit with a group read: open a leader and a member, both inherit. */
static bool probe_inherit_group(void)
{
	struct perf_event_attr a;
	int lead;
	bool ok;

	base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.inherit = 1;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	lead = tally_sys_open(&a, 0, -1, -1, 0);
	if (lead < 0)
		return false;
	a.disabled = 0;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	ok = try_open(&a, lead);
	close(lead);
	return ok;
}

static bool probe(enum tally_feature f)
{
	struct perf_event_attr a;

	base_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	switch (f) {
	case TALLY_FEAT_SAMPLE_ID_ALL:	a.sample_id_all = 1; break;
	case TALLY_FEAT_MMAP2:		a.mmap2 = 1; break;
	case TALLY_FEAT_COMM_EXEC:	a.comm = 1; a.comm_exec = 1; break;
	case TALLY_FEAT_CLOCKID:	a.use_clockid = 1; a.clockid = 1; break; /* MONOTONIC */
	case TALLY_FEAT_CONTEXT_SWITCH:	a.context_switch = 1; break;
	case TALLY_FEAT_KSYMBOL:	a.ksymbol = 1; break;
	case TALLY_FEAT_BPF_EVENT:	a.bpf_event = 1; break;
	case TALLY_FEAT_CGROUP:		a.cgroup = 1; break;
	case TALLY_FEAT_TEXT_POKE:	a.text_poke = 1; break;
	case TALLY_FEAT_MMAP2_BUILD_ID:	a.mmap = 1; a.mmap2 = 1; a.build_id = 1; break;
	case TALLY_FEAT_READ_LOST:	a.read_format = PERF_FORMAT_LOST; break;
	case TALLY_FEAT_INHERIT_GROUP_READ: return probe_inherit_group();
	default: return false;
	}
	return try_open(&a, -1);
}

bool tally_kernel_has(enum tally_feature f)
{
	bool yes;

	if ((unsigned)f >= TALLY_FEAT__NR)
		return false;
	pthread_mutex_lock(&lock);
	if (!verdict[f]) {
		verdict[f] = probe(f) ? 1 : 2;
		pr_debug("tally: kernel feature %s: %s\n", names[f],
			 verdict[f] == 1 ? "yes" : "no");
	}
	yes = verdict[f] == 1;
	pthread_mutex_unlock(&lock);
	return yes;
}

const char *tally_feature__name(enum tally_feature f)
{
	return (unsigned)f < TALLY_FEAT__NR ? names[f] : NULL;
}

bool tally_paranoid_user_only(void)
{
	char buf[16];

	return tally__read_file("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf)) > 0 &&
	       atoi(buf) >= 2;
}
