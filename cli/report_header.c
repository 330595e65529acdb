// SPDX-License-Identifier: MIT
/*
 * The header block of perf report --header / --header-only: the file's
 * layout, then each feature section it has in perf's words (the big
 * tables only say they are there, as perf does without -I), then the
 * features it lacks.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "report_header.h"

static const char *const feat_names[] = {
	[1] = "TRACING_DATA", [2] = "BUILD_ID", [3] = "HOSTNAME", [4] = "OSRELEASE",
	[5] = "VERSION", [6] = "ARCH", [7] = "NRCPUS", [8] = "CPUDESC", [9] = "CPUID",
	[10] = "TOTAL_MEM", [11] = "CMDLINE", [12] = "EVENT_DESC", [13] = "CPU_TOPOLOGY",
	[14] = "NUMA_TOPOLOGY", [15] = "BRANCH_STACK", [16] = "PMU_MAPPINGS",
	[17] = "GROUP_DESC", [18] = "AUXTRACE", [19] = "STAT", [20] = "CACHE",
	[21] = "SAMPLE_TIME", [22] = "MEM_TOPOLOGY", [23] = "CLOCKID", [24] = "DIR_FORMAT",
	[25] = "BPF_PROG_INFO", [26] = "BPF_BTF", [27] = "COMPRESSED", [28] = "CPU_PMU_CAPS",
	[29] = "CLOCK_DATA", [30] = "HYBRID_TOPOLOGY", [31] = "PMU_CAPS",
};
#define NR_FEATS 32

/* A section read front to back; every read is bounded. */
struct cur {
	const unsigned char *p;
	size_t len, pos;
	bool bad;
};

static uint32_t u32(struct cur *c)
{
	uint32_t v = 0;

	if (c->len - c->pos < 4) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p + c->pos, 4);
	c->pos += 4;
	return v;
}

static uint64_t u64(struct cur *c)
{
	uint64_t v = 0;

	if (c->len - c->pos < 8) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p + c->pos, 8);
	c->pos += 8;
	return v;
}

/* perf's string: u32 length (padded), then the bytes with a NUL inside */
static const char *str(struct cur *c)
{
	uint32_t n = u32(c);
	const char *s;

	if (c->bad || n > c->len - c->pos || !memchr(c->p + c->pos, 0, n)) {
		c->bad = true;
		return "";
	}
	s = (const char *)c->p + c->pos;
	c->pos += n;
	return s;
}

static bool feat(const struct tally_data_reader *rd, int f, struct cur *c)
{
	const void *p;
	size_t len;

	if (tally_data_reader__feature(rd, f, &p, &len))
		return false;
	*c = (struct cur){ .p = p, .len = len };
	return true;
}

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

static void print_events(FILE *fp, struct cur *c)
{
	uint32_t nr = u32(c), asz = u32(c);

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		struct perf_event_attr a = { 0 };
		uint32_t nids;
		const char *name;

		if (asz > c->len - c->pos || asz < PERF_ATTR_SIZE_VER0)
			return;
		memcpy(&a, c->p + c->pos, asz < sizeof(a) ? asz : sizeof(a));
		c->pos += asz;
		nids = u32(c);
		name = str(c);
		if (c->bad)
			return;
		fprintf(fp, "# event : name = %s, ", name);
		if (nids) {
			fprintf(fp, ", id = {");
			for (uint32_t k = 0; k < nids && !c->bad; k++)
				fprintf(fp, "%s %" PRIu64, k ? "," : "", u64(c));
			fprintf(fp, " }");
		}
		print_attr(fp, &a);
		fputc('\n', fp);
	}
}

/* perf's "%lu.%06lu" of a nanosecond time */
static void usec(FILE *fp, uint64_t t)
{
	fprintf(fp, "%" PRIu64 ".%06" PRIu64, (uint64_t)(t / 1000000000U),
		(uint64_t)(t % 1000000000U / 1000));
}

void print_file_header(FILE *fp, const struct tally_data_reader *rd, const char *path)
{
	struct tally_data_file_info fi;
	struct cur c;
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
	if (feat(rd, 3, &c))
		fprintf(fp, "# hostname : %s\n", str(&c));
	if (feat(rd, 4, &c))
		fprintf(fp, "# os release : %s\n", str(&c));
	if (feat(rd, 5, &c))
		fprintf(fp, "# perf version : %s\n", str(&c));
	if (feat(rd, 6, &c))
		fprintf(fp, "# arch : %s\n", str(&c));
	if (feat(rd, 7, &c)) {
		uint32_t avail = u32(&c), online = u32(&c);

		fprintf(fp, "# nrcpus online : %u\n# nrcpus avail : %u\n", online, avail);
	}
	if (feat(rd, 8, &c))
		fprintf(fp, "# cpudesc : %s\n", str(&c));
	if (feat(rd, 9, &c))
		fprintf(fp, "# cpuid : %s\n", str(&c));
	if (feat(rd, 10, &c))
		fprintf(fp, "# total memory : %" PRIu64 " kB\n", u64(&c));
	if (feat(rd, 11, &c)) {
		uint32_t n = u32(&c);

		fprintf(fp, "# cmdline : ");
		for (uint32_t i = 0; i < n && !c.bad; i++)
			fprintf(fp, "%s ", str(&c));
		fputc('\n', fp);
	}
	if (feat(rd, 12, &c))
		print_events(fp, &c);
	if (feat(rd, 13, &c))
		fprintf(fp, "# CPU_TOPOLOGY info available, use -I to display\n");
	if (feat(rd, 14, &c))
		fprintf(fp, "# NUMA_TOPOLOGY info available, use -I to display\n");
	if (feat(rd, 15, &c))
		fprintf(fp, "# contains samples with branch stack\n");
	if (feat(rd, 16, &c)) {
		uint32_t n = u32(&c);

		fprintf(fp, "# pmu mappings: ");
		for (uint32_t i = 0; i < n && !c.bad; i++) {
			uint32_t type = u32(&c);
			const char *name = str(&c);

			fprintf(fp, "%s%s = %u", i ? ", " : "", name, type);
		}
		fputc('\n', fp);
	}
	if (feat(rd, 20, &c))
		fprintf(fp, "# CACHE info available, use -I to display\n");
	if (feat(rd, 21, &c)) {
		uint64_t first = u64(&c), last = u64(&c);

		fprintf(fp, "# time of first sample : ");
		usec(fp, first);
		fprintf(fp, "\n# time of last sample : ");
		usec(fp, last);
		fprintf(fp, "\n# sample duration : %10.3f ms\n", (double)(last - first) / 1e6);
	}
	if (feat(rd, 22, &c))
		fprintf(fp, "# MEM_TOPOLOGY info available, use -I to display\n");
	if (pipe)
		return;
	fprintf(fp, "# missing features: ");
	for (int f = 1; f < NR_FEATS; f++)
		if (!(fi.features[f / 64] >> (f % 64) & 1))
			fprintf(fp, "%s ", feat_names[f]);
	fprintf(fp, "\n# ========\n#\n");
}
