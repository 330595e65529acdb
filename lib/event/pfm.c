// SPDX-License-Identifier: MIT
/*
 * libpfm4, its only user: event names of the host CPU's PMU
 * ("INST_RETIRED.ANY", "skl::INST_RETIRED:ANY_P") to a perf_event_attr
 * through pfm_get_os_event_encoding, and the host PMU's event list.
 * libpfm4 always has its generic "perf" tables (perf::PERF_COUNT_SW_CPU_CLOCK),
 * which lets the path be tested on a machine with no hardware PMU.
 */
#define TALLY_PFM_C
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>
#include "internal.h"
#include "events_internal.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status = PFM_ERR_NOINIT;

static void pfm_init(void)
{
	pfm_status = pfm_initialize();
	if (pfm_status != PFM_SUCCESS)
		pr_debug("libpfm4: %s\n", pfm_strerror(pfm_status));
}

static bool pfm_ready(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_status == PFM_SUCCESS;
}

int tally__pfm_encode(const char *name, struct tally_pfm_enc *enc)
{
	pfm_perf_encode_arg_t arg;
	struct perf_event_attr a;
	int ret;

	if (!pfm_ready())
		return tally__err(ENOENT);
	memset(&arg, 0, sizeof(arg));
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	arg.attr = &a;
	arg.size = sizeof(arg);
	/* Default privilege levels user+kernel; modifiers narrow them later. */
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	if (ret != PFM_SUCCESS) {
		pr_debug("libpfm4: %s: %s\n", name, pfm_strerror(ret));
		return tally__err(ENOENT);
	}
	enc->type = a.type;
	enc->config = a.config;
	enc->config1 = a.config1;
	enc->config2 = a.config2;
	return 0;
}

int tally__pfm_foreach(int (*cb)(const char *name, const char *desc, void *ctx), void *ctx)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	char name[256];
	int ret = 0;

	if (!pfm_ready())
		return 0;
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX && !ret; p++) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		/* The generic perf tables are the symbolic events again. */
		if (p == PFM_PMU_PERF_EVENT || p == PFM_PMU_PERF_EVENT_RAW)
			continue;
		for (int i = pinfo.first_event; i != -1 && !ret; i = pfm_get_event_next(i)) {
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT, &einfo) != PFM_SUCCESS)
				continue;
			snprintf(name, sizeof(name), "%s::%s", pinfo.name, einfo.name);
			ret = cb(name, einfo.desc ? einfo.desc : "", ctx);
		}
	}
	return ret;
}
