// SPDX-License-Identifier: MIT
/*
 * perf 6.1's metric tables (see perf_metrics.h). perf compiles them from
 * JSON into its binary; neither the kernel nor libpfm4 carries them, so
 * tally carries the ones of the CPUs it has met, as `perf list --details
 * metric` prints them. A CPU is matched as perf's mapfile.csv does.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <tally/events.h>
#include "perf_metrics.h"

/* perf 6.1, arch/x86/amdzen3 (mapfile: AuthenticAMD-25-[[:xdigit:]]+) */
static const struct perf_metric amdzen3[] = {
	{ "all_l2_cache_accesses", "l2_cache", "All L2 Cache Accesses",
	  "l2_request_g1.all_no_prefetch + l2_pf_hit_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3" },
	{ "all_l2_cache_hits", "l2_cache", "All L2 Cache Hits",
	  "l2_cache_req_stat.ic_dc_hit_in_l2 + l2_pf_hit_l2" },
	{ "all_l2_cache_misses", "l2_cache", "All L2 Cache Misses",
	  "l2_cache_req_stat.ic_dc_miss_in_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3" },
	{ "all_remote_links_outbound", "data_fabric",
	  "Approximate: Outbound data bytes for all Remote Links for a node (die)",
	  "remote_outbound_data_controller_0 + remote_outbound_data_controller_1 + "
	  "remote_outbound_data_controller_2 + remote_outbound_data_controller_3" },
	{ "branch_misprediction_ratio", "branch_prediction",
	  "Execution-Time Branch Misprediction Ratio (Non-Speculative)",
	  "d_ratio(ex_ret_brn_misp, ex_ret_brn)" },
	{ "ic_fetch_miss_ratio", "l2_cache", "Instruction Cache (32B) Fetch Miss Ratio",
	  "d_ratio(ic_tag_hit_miss.instruction_cache_miss, "
	  "ic_tag_hit_miss.all_instruction_cache_accesses)" },
	{ "l1_itlb_misses", "tlb", "L1 ITLB Misses",
	  "bp_l1_tlb_miss_l2_tlb_hit + bp_l1_tlb_miss_l2_tlb_miss" },
	{ "l2_cache_accesses_from_l2_hwpf", "l2_cache", "L2 Cache Accesses from L2 HWPF",
	  "l2_pf_hit_l2 + l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3" },
	{ "l2_cache_misses_from_l2_hwpf", "l2_cache", "L2 Cache Misses from L2 Cache HWPF",
	  "l2_pf_miss_l2_hit_l3 + l2_pf_miss_l2_l3" },
	{ "l3_read_miss_latency", "l3_cache", "Average L3 Read Miss Latency (in core clocks)",
	  "(xi_sys_fill_latency * 16) / xi_ccx_sdp_req1" },
	{ "macro_ops_dispatched", "decoder", "Macro-ops Dispatched",
	  "de_dis_cops_from_decoder.disp_op_type.any_integer_dispatch + "
	  "de_dis_cops_from_decoder.disp_op_type.any_fp_dispatch" },
	{ "nps1_die_to_dram", "data_fabric",
	  "Approximate: Combined DRAM B/bytes of all channels on a NPS1 node (die) "
	  "(may need --metric-no-group)",
	  "dram_channel_data_controller_0 + dram_channel_data_controller_1 + "
	  "dram_channel_data_controller_2 + dram_channel_data_controller_3 + "
	  "dram_channel_data_controller_4 + dram_channel_data_controller_5 + "
	  "dram_channel_data_controller_6 + dram_channel_data_controller_7" },
	{ "op_cache_fetch_miss_ratio", "l2_cache", "Op Cache (64B) Fetch Miss Ratio",
	  "d_ratio(op_cache_hit_miss.op_cache_miss, op_cache_hit_miss.all_op_cache_accesses)" },
};

static const struct {
	const char *vendor;
	unsigned family;	/* any model */
	const struct perf_metric *v;
	size_t nr;
} tables[] = {
	{ "AuthenticAMD", 25, amdzen3, sizeof(amdzen3) / sizeof(amdzen3[0]) },
};

/* perf's x86 cpuid: vendor, family and model from /proc/cpuinfo. */
static bool host_cpu(char *vendor, size_t vlen, unsigned *family, unsigned *model)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	int got = 0;

	if (!f)
		return false;
	while (got != 7 && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + (v[1] == ' ');
		v[strcspn(v, "\n")] = '\0';
		if (!strncmp(line, "vendor_id", 9) && !(got & 1)) {
			snprintf(vendor, vlen, "%s", v);
			got |= 1;
		} else if (!strncmp(line, "cpu family", 10) && !(got & 2)) {
			*family = (unsigned)strtoul(v, NULL, 10);
			got |= 2;
		} else if (!strncmp(line, "model\t", 6) && !(got & 4)) {
			*model = (unsigned)strtoul(v, NULL, 10);
			got |= 4;
		}
	}
	fclose(f);
	return got == 7;
}

const struct perf_metric *perf_metrics_host(size_t *nr, char *cpuid, size_t len)
{
	char vendor[64];
	unsigned family = 0, model = 0;

	*nr = 0;
	if (cpuid && len)
		snprintf(cpuid, len, "unknown");
	if (!host_cpu(vendor, sizeof(vendor), &family, &model))
		return NULL;
	if (cpuid && len)
		snprintf(cpuid, len, "%s-%u-%X", vendor, family, model);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!strcmp(tables[i].vendor, vendor) && tables[i].family == family) {
			*nr = tables[i].nr;
			return tables[i].v;
		}
	return NULL;
}

/* An expression's identifiers are its events, except functions and numbers. */
int perf_metric_next_event(const struct perf_metric *m, size_t *pos, char *buf, size_t len)
{
	const char *s = m->expr;

	for (size_t i = *pos; s[i];) {
		size_t n = 0;

		if (!isalpha((unsigned char)s[i]) && s[i] != '_') {
			/* skip numbers whole (1e-3 is not an event) */
			while (s[i] && (isalnum((unsigned char)s[i]) || s[i] == '.'))
				i++;
			if (s[i] && !isalpha((unsigned char)s[i]) && s[i] != '_')
				i++;
			continue;
		}
		while (isalnum((unsigned char)s[i + n]) || s[i + n] == '_' || s[i + n] == '.')
			n++;
		*pos = i + n;
		if (s[i + n] == '(') {		/* d_ratio(...), min(...) */
			i += n;
			continue;
		}
		snprintf(buf, len, "%.*s", (int)n, s + i);
		return 1;
	}
	*pos = strlen(s);
	return 0;
}

/*
 * perf's JSON events live on a PMU: the data fabric ones on amd_df, the
 * others on the core PMU ("cpu" on x86).
 */
static const char *metric_pmu(const struct perf_metric *m)
{
	return !strcmp(m->group, "data_fabric") ? "amd_df" : "cpu";
}

static bool have_pmu(const char *sysfs, const char *pmu)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/type",
		 sysfs ? sysfs : "/sys", pmu);
	f = fopen(path, "re");
	if (f)
		fclose(f);
	return f != NULL;
}

int perf_metric_resolve(const char *name, const char *sysfs, char *event, size_t elen,
			char *events, size_t evlen, char *why, size_t wlen)
{
	char cpuid[96], ev[128];
	size_t nr, used = 0;
	const struct perf_metric *t = perf_metrics_host(&nr, cpuid, sizeof(cpuid));
	bool found = false;

	if (evlen)
		events[0] = '\0';
	for (size_t i = 0; i < nr; i++) {
		const struct perf_metric *m = &t[i];
		size_t pos = 0;

		if (strcasecmp(m->name, name) && strcasecmp(m->group, name))
			continue;
		found = true;
		while (perf_metric_next_event(m, &pos, ev, sizeof(ev))) {
			struct tally_parse_opts po = { .sz = sizeof(po), .sysfs_root = sysfs };
			struct tally_events evs = { 0 };
			struct tally_parse_error pe;
			int err = tally_parse_events(ev, &po, &evs, &pe);

			tally_events__clear(&evs);
			if (err) {
				snprintf(event, elen, "%s", ev);
				if (!have_pmu(sysfs, metric_pmu(m)))
					snprintf(why, wlen, "this machine has no '%s' PMU (no %s counters)",
						 metric_pmu(m), strcmp(metric_pmu(m), "cpu") ?
						 "data fabric" : "hardware");
				else
					snprintf(why, wlen, "tally does not carry perf's JSON encoding of it");
				return 1;
			}
			if (used + strlen(ev) + 2 < evlen)
				used += (size_t)snprintf(events + used, evlen - used, "%s%s",
							 used ? "," : "", ev);
		}
	}
	if (found)
		return 0;
	if (!t)
		snprintf(why, wlen, "perf 6.1 has no metric table for this CPU (%s)", cpuid);
	else
		snprintf(why, wlen, "not one of perf's metrics or metric groups for this CPU "
			 "(%s; see 'tally list metric')", cpuid);
	return -1;
}
