// SPDX-License-Identifier: MIT
/*
 * tally record's sample fields beyond the defaults: perf's -j branch
 * filter names, and what to say when the kernel refuses a field no PMU
 * here can give (a branch stack on a machine without one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "record.h"

static const struct {
	const char *name;
	uint64_t bit;
} branch_modes[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },	/* perf's name */
	{ "call_stack", PERF_SAMPLE_BRANCH_CALL_STACK },
};

#define PRIV_ONLY (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

int record_branch_filter(const char *list, uint64_t *mode)
{
	char *dup = strdup(list), *tok, *save = NULL;
	uint64_t m = 0;
	int ret = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(branch_modes) / sizeof(branch_modes[0]); i++)
			if (!strcasecmp(branch_modes[i].name, tok))
				break;
		if (i == sizeof(branch_modes) / sizeof(branch_modes[0]))
			ret = -1;
		else
			m |= branch_modes[i].bit;
	}
	free(dup);
	if (ret || !m)
		return -1;
	/* privilege levels alone: every branch of those (perf's default) */
	if (!(m & ~PRIV_ONLY))
		m |= PERF_SAMPLE_BRANCH_ANY;
	*mode = m;
	return 0;
}

/*
 * The kernel refused an event with a branch stack: the PMUs that record
 * branches are hardware ones (Intel LBR, AMD BRS and LbrExtV2, Arm BRBE),
 * and software events, tracepoints and breakpoints have none. A sentence
 * naming the field, the event's PMU and what would be needed; true when
 * said (not a branch stack's refusal: false, said elsewhere).
 */
bool record_branch_refused(const struct record_config *cfg, const char *event,
			   const struct perf_event_attr *a, int err)
{
	static const char *const pmus[] = {
		[PERF_TYPE_HARDWARE] = "cpu", [PERF_TYPE_SOFTWARE] = "software",
		[PERF_TYPE_TRACEPOINT] = "tracepoint", [PERF_TYPE_HW_CACHE] = "cpu",
		[PERF_TYPE_RAW] = "cpu", [PERF_TYPE_BREAKPOINT] = "breakpoint",
	};
	const char *pmu = a && a->type < sizeof(pmus) / sizeof(pmus[0]) ? pmus[a->type] : NULL;
	bool hw_pmu = !access("/sys/bus/event_source/devices/cpu/caps/branches", F_OK);

	if (!cfg->branch_filter || !a || !(a->sample_type & PERF_SAMPLE_BRANCH_STACK) ||
	    (err != -EOPNOTSUPP && err != -EINVAL && err != -ENOENT))
		return false;
	fprintf(stderr, "tally record: %s: the %s PMU cannot sample the branch stack "
		"(-b/-j, PERF_SAMPLE_BRANCH_STACK): that needs a hardware PMU that records "
		"taken branches (Intel LBR, AMD BRS or LbrExtV2, Arm BRBE) and a hardware event "
		"(cycles, instructions)%s.\n", event, pmu ? pmu : "event's",
		hw_pmu ? ", with filters it supports" :
		"; this machine has none (no /sys/bus/event_source/devices/cpu/caps/branches)");
	return true;
}

/*
 * The kernel gives a sample's physical address only to a user it lets see
 * the kernel (perf_allow_kernel): refused otherwise, which the general
 * advice would not tie to --phys-data. True when said.
 */
bool record_phys_refused(const char *event, const struct perf_event_attr *a, int err)
{
	char buf[32] = "";
	FILE *f;

	if (!a || !(a->sample_type & PERF_SAMPLE_PHYS_ADDR) || (err != -EACCES && err != -EPERM))
		return false;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		buf[strcspn(buf, "\n")] = '\0';
	}
	fprintf(stderr, "tally record: %s: the kernel gives the data's physical address "
		"(--phys-data, PERF_SAMPLE_PHYS_ADDR) only to a user allowed to see the kernel: "
		"perf_event_paranoid is %s here; lower it to 1 or below, or run with CAP_PERFMON "
		"(CAP_SYS_ADMIN before Linux 5.8).\n", event, buf[0] ? buf : "unknown");
	return true;
}

/*
 * The kernel gives NAMESPACES records only to a perfmon-capable user
 * (perf_event_open: -EACCES otherwise), whatever perf_event_paranoid
 * says. Said where that is the reason: the event left the kernel out
 * (else the kernel-profiling check, before it, may be). True when said.
 */
bool record_namespaces_refused(const char *event, const struct perf_event_attr *a, int err)
{
	if (!a || !a->namespaces || !a->exclude_kernel || (err != -EACCES && err != -EPERM))
		return false;
	fprintf(stderr, "tally record: %s: the kernel gives NAMESPACES records (--namespaces) "
		"only to a user with CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8), whatever "
		"perf_event_paranoid says: run as root or with that capability, or record "
		"without --namespaces.\n", event);
	return true;
}
