// SPDX-License-Identifier: MIT
/*
 * Enumeration of every event the machine has (perf list): symbolic,
 * cache (those that open), PMU aliases, tracepoints, libpfm4.
 * Moved from events.c.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <tally/events.h>
#include <tally/sys.h>
#include <unistd.h>
#include "internal.h"
#include "events_internal.h"
#include "events_parse.h"

struct list_ctx {
	tally_event_cb cb;
	void *ctx;
	const char *sysfs;
};

/* perf list shows hardware and cache events only when they open. */
static bool can_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = tally_sys_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int list_cache_cb(const char *name, uint64_t config, void *ctx)
{
	struct list_ctx *lc = ctx;

	if (!can_open(PERF_TYPE_HW_CACHE, config))
		return 0;
	return lc->cb("cache", name, "Hardware cache event", lc->ctx);
}

static int list_alias_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	struct list_ctx *lc = ctx;
	char name[300];

	snprintf(name, sizeof(name), "%s/%s/", pmu, alias);
	return lc->cb("pmu", name, terms, lc->ctx);
}

static int list_pmu_cb(const char *pmu, void *ctx)
{
	struct list_ctx *lc = ctx;

	return tally__pmu_foreach_alias(lc->sysfs, pmu, list_alias_cb, lc);
}

static int list_tp_cb(const char *sys, const char *ev, void *ctx)
{
	struct list_ctx *lc = ctx;
	char name[520];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return lc->cb("tracepoint", name, "", lc->ctx);
}

static int list_pfm_cb(const char *name, const char *desc, void *ctx)
{
	struct list_ctx *lc = ctx;

	return lc->cb("pfm", name, desc, lc->ctx);
}

int tally_events__foreach(const struct tally_parse_opts *opts, tally_event_cb cb, void *ctx)
{
	struct list_ctx lc = { .cb = cb, .ctx = ctx };
	char name[128];
	int ret;

	if (!cb || !TALLY_OPTS_VALID(opts, tally_parse_opts))
		return tally__err(EINVAL);
	lc.sysfs = TALLY_OPTS_GET(opts, sysfs_root, NULL) ?: "/sys";
	for (int pass = 0; pass < 2; pass++) {
		uint32_t type = pass ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;

		for (size_t i = 0; i < tally__nr_sym_events; i++) {
			const struct tally_sym_event *e = &tally__sym_events[i];

			if (e->type != type)
				continue;
			if (type == PERF_TYPE_HARDWARE && !can_open(e->type, e->config))
				continue;
			if (e->alias)
				snprintf(name, sizeof(name), "%s OR %s", e->name, e->alias);
			else
				snprintf(name, sizeof(name), "%s", e->name);
			ret = cb(pass ? "software" : "hardware", name, e->desc, ctx);
			if (ret)
				return ret;
		}
	}
	/* perf list: the tool events follow the software events */
	for (size_t i = 0; i < tally__nr_tool_events; i++) {
		ret = cb("tool", tally__tool_events[i].name, tally__tool_events[i].desc, ctx);
		if (ret)
			return ret;
	}
	ret = tally__cache_foreach(list_cache_cb, &lc);
	if (ret)
		return ret;
	ret = tally__pmu_foreach(lc.sysfs, list_pmu_cb, &lc);
	if (ret)
		return ret;
	ret = cb("raw", "rNNN", "Raw hardware event descriptor", ctx);
	if (!ret)
		ret = cb("raw", "cpu/t1=v1[,t2=v2,t3 ...]/modifier",
			 "Raw hardware event descriptor", ctx);
	if (!ret)
		ret = cb("breakpoint", "mem:<addr>[/len][:access]", "Hardware breakpoint", ctx);
	if (!ret)
		ret = cb("uprobe", "uprobe:<path>:<symbol>[+off]", "User-space probe", ctx);
	if (ret)
		return ret;
	ret = tally__tp_foreach(TALLY_OPTS_GET(opts, tracefs_root, NULL), NULL, NULL, true,
				list_tp_cb, &lc);
	if (ret == -ENOENT || ret == -EACCES)	/* none to list here (as perf) */
		ret = 0;
	if (ret)
		return ret;
	if (!TALLY_OPTS_GET(opts, no_pfm, false) && tally__pmu_has_core(lc.sysfs))
		ret = tally__pfm_foreach(list_pfm_cb, &lc);
	return ret;
}
