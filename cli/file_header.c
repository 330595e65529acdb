// SPDX-License-Identifier: MIT
/*
 * The header block of perf report's and script's --header / --header-only: the file's
 * layout, then each feature section it has in perf's words (the big
 * tables only say they are there, as perf does without -I), then the
 * features it lacks.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "file_header.h"

static const char *const st_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
	"RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
	"TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};
static const char *const rf_names[] = {
	"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST",
};
static const char *const br_names[] = {
	"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL", "ABORT_TX", "IN_TX",
	"NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE",
	"HW_INDEX", "PRIV_SAVE",
};

/* perf's flag words: known bits by name, "|", the rest in hex */
static void bits(FILE *fp, const char *name, uint64_t v, const char *const *names, size_t n)
{
	bool first = true;

	fprintf(fp, ", %s = ", name);
	for (size_t i = 0; i < n; i++)
		if (v & (1ULL << i)) {
			fprintf(fp, "%s%s", first ? "" : "|", names[i]);
			first = false;
			v &= ~(1ULL << i);
		}
	if (v)
		fprintf(fp, "%s%#" PRIx64, first ? "" : "|", v);
}

/* perf's bpf_event__print_bpf_prog_info: one line, or a line per function */
static void print_bpf_progs(FILE *fp, const struct tally_data_reader *rd)
{
	const struct tally_bpf_prog *p;
	int n = tally_data_reader__bpf_progs(rd, &p);

	for (int i = 0; i < n; i++) {
		if (p[i].nr_funcs == 1) {
			fprintf(fp, "# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n", p[i].id,
				p[i].funcs[0].name, p[i].funcs[0].addr, p[i].funcs[0].size);
			continue;
		}
		fprintf(fp, "# bpf_prog_info %u:\n", p[i].id);
		for (uint32_t f = 0; f < p[i].nr_funcs; f++)
			fprintf(fp, "# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n", f,
				p[i].funcs[f].name, p[i].funcs[f].addr, p[i].funcs[f].size);
	}
}

#define FLAG(f) do { if (a->f) fprintf(fp, ", %s = %u", #f, (unsigned)a->f); } while (0)

/* perf_event_attr__fprintf's order and names, non-zero fields only */
static void print_attr(FILE *fp, const struct perf_event_attr *a)
{
	if (a->type)
		fprintf(fp, ", type = %u", a->type);
	if (a->size)
		fprintf(fp, ", size = %u", a->size);
	if (a->config)
		fprintf(fp, ", config = %#llx", (unsigned long long)a->config);
	if (a->sample_period)
		fprintf(fp, ", { sample_period, sample_freq } = %llu", (unsigned long long)a->sample_period);
	if (a->sample_type)
		bits(fp, "sample_type", a->sample_type, st_names, sizeof(st_names) / sizeof(*st_names));
	if (a->read_format)
		bits(fp, "read_format", a->read_format, rf_names, sizeof(rf_names) / sizeof(*rf_names));
	FLAG(disabled); FLAG(inherit); FLAG(pinned); FLAG(exclusive); FLAG(exclude_user);
	FLAG(exclude_kernel); FLAG(exclude_hv); FLAG(exclude_idle); FLAG(mmap); FLAG(comm);
	FLAG(freq); FLAG(inherit_stat); FLAG(enable_on_exec); FLAG(task); FLAG(watermark);
	FLAG(precise_ip); FLAG(mmap_data); FLAG(sample_id_all); FLAG(exclude_host);
	FLAG(exclude_guest); FLAG(exclude_callchain_kernel); FLAG(exclude_callchain_user);
	FLAG(mmap2); FLAG(comm_exec); FLAG(use_clockid); FLAG(context_switch);
	FLAG(write_backward); FLAG(namespaces); FLAG(ksymbol); FLAG(bpf_event); FLAG(aux_output);
	FLAG(cgroup); FLAG(text_poke); FLAG(build_id); FLAG(inherit_thread); FLAG(remove_on_exec);
	FLAG(sigtrap);
	if (a->wakeup_events)
		fprintf(fp, ", { wakeup_events, wakeup_watermark } = %u", a->wakeup_events);
	if (a->bp_type)
		fprintf(fp, ", bp_type = %u", a->bp_type);
	if (a->bp_addr)
		fprintf(fp, ", { bp_addr, config1 } = %#llx", (unsigned long long)a->bp_addr);
	if (a->bp_len)
		fprintf(fp, ", { bp_len, config2 } = %#llx", (unsigned long long)a->bp_len);
	if (a->branch_sample_type)
		bits(fp, "branch_sample_type", a->branch_sample_type, br_names,
		     sizeof(br_names) / sizeof(*br_names));
	if (a->sample_regs_user)
		fprintf(fp, ", sample_regs_user = %#llx", (unsigned long long)a->sample_regs_user);
	if (a->sample_stack_user)
		fprintf(fp, ", sample_stack_user = %u", a->sample_stack_user);
	if (a->clockid)
		fprintf(fp, ", clockid = %d", a->clockid);
	if (a->sample_regs_intr)
		fprintf(fp, ", sample_regs_intr = %#llx", (unsigned long long)a->sample_regs_intr);
	if (a->aux_watermark)
		fprintf(fp, ", aux_watermark = %u", a->aux_watermark);
	if (a->sample_max_stack)
		fprintf(fp, ", sample_max_stack = %u", a->sample_max_stack);
	if (a->aux_sample_size)
		fprintf(fp, ", aux_sample_size = %u", a->aux_sample_size);
	if (a->sig_data)
		fprintf(fp, ", sig_data = %llu", (unsigned long long)a->sig_data);
}

static void print_events(FILE *fp, const struct tally_data_reader *rd)
{
	const struct tally_event_desc *ev;
	int n = tally_data_reader__event_descs(rd, &ev);

	for (int i = 0; i < n; i++) {
		fprintf(fp, "# event : name = %s, ", ev[i].name);
		if (ev[i].nr_ids) {
			fprintf(fp, ", id = {");
			for (uint32_t k = 0; k < ev[i].nr_ids; k++)
				fprintf(fp, "%s %" PRIu64, k ? "," : "", ev[i].ids[k]);
			fprintf(fp, " }");
		}
		print_attr(fp, &ev[i].attr);
		fputc('\n', fp);
	}
}

/* The file has feature f. */
static bool has(const struct tally_data_reader *rd, int f)
{
	const void *p;
	size_t len;

	return !tally_data_reader__feature(rd, f, &p, &len);
}

/* A string feature's line, when the file has it. */
static void str_line(FILE *fp, const struct tally_data_reader *rd, int f, const char *label)
{
	const char *v;

	if (!has(rd, f))
		return;
	v = tally_data_reader__feat_string(rd, f);
	fprintf(fp, "# %s : %s\n", label, v ? v : "");
}

/* perf's "%lu.%06lu" of a nanosecond time */
static void usec(FILE *fp, uint64_t t)
{
	fprintf(fp, "%" PRIu64 ".%06" PRIu64, (uint64_t)(t / 1000000000U),
		(uint64_t)(t % 1000000000U / 1000));
}

/* perf's clockid_name: the first of its -k names for the clock */
static const char *clock_name(uint32_t id)
{
	static const char *const names[] = {
		[CLOCK_MONOTONIC] = "monotonic", [CLOCK_MONOTONIC_RAW] = "monotonic_raw",
		[CLOCK_REALTIME] = "realtime", [CLOCK_BOOTTIME] = "boottime", [CLOCK_TAI] = "tai",
	};

	return id < sizeof(names) / sizeof(names[0]) && names[id] ? names[id] : "(n/a)";
}

/* CLOCK_DATA (record -k) as perf's print_clock_data: the clock and its reference times */
static void print_clock_data(FILE *fp, const struct tally_data_reader *rd)
{
	const unsigned char *p;
	const void *data;
	uint64_t tod, clk;
	uint32_t id;
	size_t len;
	char date[64] = "<error>";
	struct tm tm;
	time_t sec;

	if (tally_data_reader__feature(rd, TALLY_HEADER_CLOCK_DATA, &data, &len) || len < 24) {
		fprintf(fp, "# reference time disabled\n");
		return;
	}
	p = data;
	memcpy(&id, p + 4, 4);
	memcpy(&tod, p + 8, 8);
	memcpy(&clk, p + 16, 8);
	sec = (time_t)(tod / 1000000000U);
	if (localtime_r(&sec, &tm)) {
		strftime(date, sizeof(date), "%F %T", &tm);
		snprintf(date + strlen(date), sizeof(date) - strlen(date), ".%06d",
			 (int)(tod % 1000000000U / 1000));
	}
	fprintf(fp, "# clockid: %s (%u)\n", clock_name(id), id);
	fprintf(fp, "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n", date,
		(long)sec, (int)(tod % 1000000000U / 1000), (long)(clk / 1000000000U),
		(long)(clk % 1000000000U), clock_name(id));
}

/* perf's print_group_desc: "# group: NAME{leader,member,...}" each */
static void print_groups(FILE *fp, const struct tally_data_reader *rd)
{
	const struct tally_event_desc *ev;
	int nev = tally_data_reader__event_descs(rd, &ev), n = tally_data_reader__groups(rd, NULL, 0);
	struct tally_event_group g[n > 0 ? n : 1];

	if (n <= 0 || tally_data_reader__groups(rd, g, n) != n)
		return;
	for (int i = 0; i < n; i++) {
		fprintf(fp, "# group: %s{", g[i].name ? g[i].name : "");
		for (int k = 0; k < g[i].nr_members; k++) {
			int a = g[i].leader + k;

			fprintf(fp, "%s%s", k ? "," : "", a < nev && ev[a].name ? ev[a].name : "");
		}
		fprintf(fp, "}\n");
	}
}

void print_file_header(FILE *fp, const struct tally_data_reader *rd, const char *path)
{
	print_file_header_part(fp, rd, path, true, false);
}

void print_file_header_part(FILE *fp, const struct tally_data_reader *rd, const char *path,
			    bool features, bool info)
{
	struct tally_data_file_info fi;
	struct stat st;
	char when[64] = "";

	if (tally_data_reader__file_info(rd, &fi))
		return;
	bool pipe = tally_data_reader__is_pipe(rd);

	fprintf(fp, "# ========\n");
	if (path && (!strcmp(path, "-") ? !fstat(0, &st) : !stat(path, &st))) {
		struct tm tm;

		if (localtime_r(&st.st_mtime, &tm))
			strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
		fprintf(fp, "# captured on    : %s\n", when);
	}
	fprintf(fp, "# header version : 1\n");
	fprintf(fp, "# data offset    : %" PRIu64 "\n", fi.data_offset);
	fprintf(fp, "# data size      : %" PRIu64 "\n", fi.data_size);
	fprintf(fp, "# feat offset    : %" PRIu64 "\n", fi.feat_offset);
	/* a pipe's features come as records, after the header perf closes here */
	if (pipe)
		fprintf(fp, "# ========\n#\n");
	if (pipe && !features)
		return;
	str_line(fp, rd, TALLY_HEADER_HOSTNAME, "hostname");
	str_line(fp, rd, TALLY_HEADER_OSRELEASE, "os release");
	str_line(fp, rd, TALLY_HEADER_VERSION, "perf version");
	str_line(fp, rd, TALLY_HEADER_ARCH, "arch");
	if (has(rd, TALLY_HEADER_NRCPUS)) {
		uint32_t avail = 0, online = 0;

		tally_data_reader__nrcpus(rd, &online, &avail);
		fprintf(fp, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
	}
	str_line(fp, rd, TALLY_HEADER_CPUDESC, "cpudesc");
	str_line(fp, rd, TALLY_HEADER_CPUID, "cpuid");
	if (has(rd, TALLY_HEADER_TOTAL_MEM)) {
		uint64_t kib = 0;

		tally_data_reader__total_mem(rd, &kib);
		fprintf(fp, "# total memory : %" PRIu64 " kB\n", kib);
	}
	if (has(rd, TALLY_HEADER_CMDLINE)) {
		const char *argv[256];
		int n = tally_data_reader__cmdline(rd, argv, 256);

		fprintf(fp, "# cmdline : ");
		for (int i = 0; i < n && i < 256; i++)
			fprintf(fp, "%s ", argv[i]);
		fputc('\n', fp);
	}
	if (has(rd, TALLY_HEADER_EVENT_DESC))
		print_events(fp, rd);
	if (has(rd, TALLY_HEADER_CPU_TOPOLOGY) && !(info && print_header_info(fp, rd, TALLY_HEADER_CPU_TOPOLOGY)))
		fprintf(fp, "# CPU_TOPOLOGY info available, use -I to display\n");
	if (has(rd, TALLY_HEADER_NUMA_TOPOLOGY) && !(info && print_header_info(fp, rd, TALLY_HEADER_NUMA_TOPOLOGY)))
		fprintf(fp, "# NUMA_TOPOLOGY info available, use -I to display\n");
	if (has(rd, TALLY_HEADER_BRANCH_STACK))
		fprintf(fp, "# contains samples with branch stack\n");
	if (has(rd, TALLY_HEADER_PMU_MAPPINGS)) {
		const struct tally_pmu_mapping *pm;
		int n = tally_data_reader__pmu_mappings(rd, &pm);

		fprintf(fp, "# pmu mappings: ");
		for (int i = 0; i < n; i++)
			fprintf(fp, "%s%s = %u", i ? ", " : "", pm[i].name, pm[i].type);
		fputc('\n', fp);
	}
	if (has(rd, TALLY_HEADER_GROUP_DESC))
		print_groups(fp, rd);
	if (has(rd, TALLY_HEADER_CACHE) && !(info && print_header_info(fp, rd, TALLY_HEADER_CACHE)))
		fprintf(fp, "# CACHE info available, use -I to display\n");
	if (has(rd, TALLY_HEADER_SAMPLE_TIME)) {
		uint64_t first = 0, last = 0;

		tally_data_reader__sample_time(rd, &first, &last);
		fprintf(fp, "# time of first sample : ");
		usec(fp, first);
		fprintf(fp, "\n# time of last sample : ");
		usec(fp, last);
		fprintf(fp, "\n# sample duration : %10.3f ms\n", (double)(last - first) / 1e6);
	}
	if (has(rd, TALLY_HEADER_MEM_TOPOLOGY) && !(info && print_header_info(fp, rd, TALLY_HEADER_MEM_TOPOLOGY)))
		fprintf(fp, "# MEM_TOPOLOGY info available, use -I to display\n");
	if (has(rd, TALLY_HEADER_CLOCKID)) {
		const void *data;
		uint64_t res = 0;
		size_t len;

		/* perf's: the clock's resolution in ns, times 1000 */
		if (!tally_data_reader__feature(rd, TALLY_HEADER_CLOCKID, &data, &len) && len >= 8)
			memcpy(&res, data, 8);
		fprintf(fp, "# clockid frequency: %" PRIu64 " MHz\n", res * 1000);
	}
	if (has(rd, TALLY_HEADER_BPF_PROG_INFO))
		print_bpf_progs(fp, rd);
	if (has(rd, TALLY_HEADER_BPF_BTF)) {
		const uint32_t *ids;
		int n = tally_data_reader__btf_ids(rd, &ids);

		for (int i = 0; i < n; i++)
			fprintf(fp, "# btf info of id %u\n", ids[i]);
	}
	if (has(rd, TALLY_HEADER_CLOCK_DATA))
		print_clock_data(fp, rd);
	if (pipe)
		return;
	fprintf(fp, "# missing features: ");
	for (int f = 1; f < TALLY_HEADER_LAST_FEATURE; f++)
		if (!(fi.features[f / 64] >> (f % 64) & 1))
			fprintf(fp, "%s ", tally_header_feature__name(f));
	fprintf(fp, "\n# ========\n#\n");
}
