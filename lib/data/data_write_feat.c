// SPDX-License-Identifier: MIT
/*
 * The perf.data header features' payloads (perf's HEADER_* sections):
 * what the writer recorded (attrs, build ids, command line, times) and
 * what the system says (uname, CPUs, memory, topology, clocks). The
 * writer (data_write.c) places them in the file or the pipe.
 * Moved from data_write.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <tally/data_write.h>
#include "internal.h"
#include "data_write_internal.h"
#include "sc_strings_feat.h"

static bool any_tracepoint(const struct tally_data_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.type == PERF_TYPE_TRACEPOINT)
			return true;
	return false;
}

static const struct perf_event_attr *clock_attr(const struct tally_data_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].attr.use_clockid)
			return &w->attrs[i].attr;
	return NULL;
}

static void feat_uname(struct tally__buf *b, int feat)
{
	struct utsname u;

	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	tally__buf_str(b, feat == TALLY_HEADER_HOSTNAME ? u.nodename :
			  feat == TALLY_HEADER_OSRELEASE ? u.release : u.machine);
}

static int max_present_cpu(void)
{
	char buf[256], *p;
	int max = -1;

	if (tally__read_file("/sys/devices/system/cpu/present", buf, sizeof(buf)) < 0)
		return (int)sysconf(_SC_NPROCESSORS_CONF);
	/* "0-3,8-11": the last number is the highest */
	for (p = buf; *p;) {
		long v = strtol(p, &p, 10);

		if (v > max)
			max = (int)v;
		while (*p && (*p < '0' || *p > '9'))
			p++;
	}
	return max + 1;
}

static void feat_cpudesc(struct tally__buf *b)
{
	char line[512], desc[512] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c || (strncmp(line, "model name", 10) && strncmp(line, "Processor", 9) &&
			   strncmp(line, "cpu model", 9)))
			continue;
		c++;
		/* perf squeezes runs of blanks to one and trims */
		size_t n = 0;
		for (; *c && *c != '\n'; c++) {
			if ((*c == ' ' || *c == '\t') && (n == 0 || desc[n - 1] == ' '))
				continue;
			desc[n++] = *c == '\t' ? ' ' : *c;
		}
		while (n && desc[n - 1] == ' ')
			n--;
		desc[n] = 0;
		break;
	}
	if (f)
		fclose(f);
	tally__buf_str(b, desc);
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
static void feat_cpuid(struct tally__buf *b)
{
	unsigned int a, bx, c, d, family, model, step;
	char vendor[13], s[64];

	__cpuid(0, a, bx, c, d);
	memcpy(vendor, &bx, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	__cpuid(1, a, bx, c, d);
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	step = a & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 0x6)
		model += ((a >> 16) & 0xf) << 4;
	snprintf(s, sizeof(s), "%s,%u,%u,%u", vendor, family, model, step);
	tally__buf_str(b, s);
}
#define HAVE_CPUID 1
#endif

static uint64_t meminfo_kb(const char *path, const char *key)
{
	char line[256];
	FILE *f = fopen(path, "r");
	uint64_t v = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);

		if (k && k[strlen(key)] == ':') {
			v = strtoull(k + strlen(key) + 1, NULL, 10);
			break;
		}
	}
	if (f)
		fclose(f);
	return v;
}

static void feat_cmdline(struct tally__buf *b, const struct tally_data_writer *w)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	self[n > 0 ? n : 0] = 0;
	tally__buf_u32(b, (uint32_t)w->cmdline_nr + 1);
	tally__buf_str(b, self);
	for (int i = 0; i < w->cmdline_nr; i++)
		tally__buf_str(b, w->cmdline[i]);
}

static void feat_event_desc(struct tally__buf *b, const struct tally_data_writer *w)
{
	tally__buf_u32(b, (uint32_t)w->nr_attrs);
	tally__buf_u32(b, FILE_ATTR_SIZE);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];

		tally__put_attr(b, &a->attr);
		tally__buf_u32(b, (uint32_t)a->nr_ids);
		tally__buf_str(b, a->name ? a->name : "");
		tally__buf_add(b, a->ids, a->nr_ids * sizeof(uint64_t));
	}
}

/* perf's write_group_desc: the groups whose attrs the file has, in attr order */
static bool feat_group_desc(struct tally__buf *b, const struct tally_data_writer *w)
{
	uint32_t nr = 0;

	for (size_t i = 0; i < w->nr_groups; i++)
		nr += (size_t)w->groups[i].leader + (size_t)w->groups[i].nr <= w->nr_attrs;
	if (!nr)
		return false;
	tally__buf_u32(b, nr);
	for (size_t a = 0; a < w->nr_attrs; a++)
		for (size_t i = 0; i < w->nr_groups; i++) {
			const struct wgroup *g = &w->groups[i];

			if ((size_t)g->leader != a || a + (size_t)g->nr > w->nr_attrs)
				continue;
			tally__buf_str(b, g->name ? g->name : "{anon_group}");
			tally__buf_u32(b, (uint32_t)g->leader);
			tally__buf_u32(b, (uint32_t)g->nr);
		}
	return true;
}

void tally__put_build_id(struct tally__buf *b, const struct wbid *e, uint32_t type)
{
	size_t n = strlen(e->name) + 1, len = (n + 63) & ~(size_t)63;
	struct perf_event_header h = {
		.type = type,
		.misc = (uint16_t)(e->misc | 0x8000),	/* BUILD_ID_SIZE */
		.size = (uint16_t)(8 + 4 + 24 + len),
	};
	uint8_t id[24] = { 0 };

	memcpy(id, e->id, e->len);
	id[20] = e->len;
	tally__buf_add(b, &h, sizeof(h));
	tally__buf_add(b, &e->pid, 4);
	tally__buf_add(b, id, sizeof(id));
	tally__buf_add(b, e->name, n);
	tally__buf_zero(b, len - n);
}

static void feat_build_id(struct tally__buf *b, const struct tally_data_writer *w)
{
	for (size_t i = 0; i < w->nr_bids; i++)
		tally__put_build_id(b, &w->bids[i], 0);
}

/* Unique strings, in first-seen order. */
struct strlist {
	char **s;
	size_t nr;
};

static void strlist_add(struct strlist *l, const char *s)
{
	char **n;

	for (size_t i = 0; i < l->nr; i++)
		if (!strcmp(l->s[i], s))
			return;
	n = realloc(l->s, (l->nr + 1) * sizeof(*n));
	if (!n)
		return;
	l->s = n;
	if ((l->s[l->nr] = strdup(s)))
		l->nr++;
}

static void strlist_put(struct tally__buf *b, struct strlist *l)
{
	tally__buf_u32(b, (uint32_t)l->nr);
	for (size_t i = 0; i < l->nr; i++) {
		tally__buf_str(b, l->s[i]);
		free(l->s[i]);
	}
	free(l->s);
	l->s = NULL;
	l->nr = 0;
}

static int topo_read(int cpu, const char *file, const char *alt, char *buf, size_t len)
{
	int n = tally__read_filef(buf, len, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);

	if (n < 0 && alt)
		n = tally__read_filef(buf, len, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, alt);
	return n;
}

static int topo_int(int cpu, const char *file)
{
	char buf[32];

	return topo_read(cpu, file, NULL, buf, sizeof(buf)) < 0 ? -1 : atoi(buf);
}

static void feat_cpu_topology(struct tally__buf *b)
{
	struct strlist core = { 0 }, thread = { 0 }, die = { 0 };
	int nr = max_present_cpu();
	char buf[4096];
	bool dies = true;

	for (int c = 0; c < nr; c++) {
		if (topo_read(c, "package_cpus_list", "core_siblings_list", buf, sizeof(buf)) >= 0)
			strlist_add(&core, buf);
		if (topo_read(c, "core_cpus_list", "thread_siblings_list", buf, sizeof(buf)) >= 0)
			strlist_add(&thread, buf);
		if (topo_read(c, "die_cpus_list", NULL, buf, sizeof(buf)) >= 0)
			strlist_add(&die, buf);
		else if (access("/sys/devices/system/cpu/cpu0/topology", F_OK) == 0 && c == 0)
			dies = false;
	}
	strlist_put(b, &core);
	strlist_put(b, &thread);
	for (int c = 0; c < nr; c++) {
		tally__buf_u32(b, (uint32_t)topo_int(c, "core_id"));
		tally__buf_u32(b, (uint32_t)topo_int(c, "physical_package_id"));
	}
	if (!dies || !die.nr) {
		strlist_put(b, &die);	/* frees */
		b->len -= 4;
		return;
	}
	strlist_put(b, &die);
	for (int c = 0; c < nr; c++)
		tally__buf_u32(b, (uint32_t)topo_int(c, "die_id"));
}

static void feat_numa_topology(struct tally__buf *b)
{
	char buf[4096], path[128];
	int nodes[1024], nr = 0;
	char *p;

	if (tally__read_file("/sys/devices/system/node/online", buf, sizeof(buf)) < 0)
		strcpy(buf, "0");
	for (p = buf; *p && nr < (int)ARRAY_SIZE(nodes);) {
		long lo = strtol(p, &p, 10), hi = lo;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		for (long n = lo; n <= hi && nr < (int)ARRAY_SIZE(nodes); n++)
			nodes[nr++] = (int)n;
		if (*p == ',')
			p++;
		else
			break;
	}
	tally__buf_u32(b, (uint32_t)nr);
	for (int i = 0; i < nr; i++) {
		uint64_t total, free_kb;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", nodes[i]);
		total = meminfo_kb(path, "MemTotal");
		free_kb = meminfo_kb(path, "MemFree");
		if (!total && nr == 1) {
			total = meminfo_kb("/proc/meminfo", "MemTotal");
			free_kb = meminfo_kb("/proc/meminfo", "MemFree");
		}
		tally__buf_u32(b, (uint32_t)nodes[i]);
		tally__buf_u64(b, total);
		tally__buf_u64(b, free_kb);
		if (tally__read_filef(buf, sizeof(buf), "/sys/devices/system/node/node%d/cpulist",
				      nodes[i]) < 0)
			snprintf(buf, sizeof(buf), "0-%d", max_present_cpu() - 1);
		tally__buf_str(b, buf);
	}
}

static void feat_clockid(struct tally__buf *b, const struct perf_event_attr *a)
{
	struct timespec res;
	uint64_t ns = 0;

	if (clock_getres(a->clockid, &res) == 0)
		ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	tally__buf_u64(b, ns);
}

static void feat_clock_data(struct tally__buf *b, const struct perf_event_attr *a)
{
	struct timespec tod, clk;

	clock_gettime(CLOCK_REALTIME, &tod);
	clock_gettime(a->clockid, &clk);
	tally__buf_u32(b, 1);
	tally__buf_u32(b, (uint32_t)a->clockid);
	/* perf's wall clock is gettimeofday's: whole microseconds */
	tally__buf_u64(b, (uint64_t)tod.tv_sec * 1000000000ull + (uint64_t)tod.tv_nsec / 1000 * 1000);
	tally__buf_u64(b, (uint64_t)clk.tv_sec * 1000000000ull + (uint64_t)clk.tv_nsec);
}

static void feat_compressed(struct tally__buf *b, const struct tally_data_writer *w)
{
	uint64_t ratio = w->zbytes ? (w->uncompressed + w->zbytes / 2) / w->zbytes : 1;
	uint64_t mmap_len = w->zmax_chunk > ZMMAP_LEN ? w->zmax_chunk : ZMMAP_LEN;

	tally__buf_u32(b, 0);			/* version */
	tally__buf_u32(b, 1);			/* zstd */
	tally__buf_u32(b, (uint32_t)w->level);
	tally__buf_u32(b, (uint32_t)(ratio ? ratio : 1));
	tally__buf_u32(b, (uint32_t)mmap_len);	/* decompressed bytes per record at most */
}

bool tally__data_write_feature(struct tally_data_writer *w, int feat, struct tally__buf *b)
{
	const struct perf_event_attr *ca = clock_attr(w);

	switch (feat) {
	case TALLY_HEADER_TRACING_DATA: {
		const struct perf_event_attr **v;
		int err;

		if (!any_tracepoint(w))
			return false;
		v = tally__calloc(w->nr_attrs, sizeof(*v));
		if (!v) {
			b->oom = true;
			return true;
		}
		for (size_t i = 0; i < w->nr_attrs; i++)
			v[i] = &w->attrs[i].attr;
		err = tally__tracing_data(b, v, w->nr_attrs);
		free(v);
		if (err < 0) {
			pr_warn("perf.data: no tracing data (%s): perf will not read the tracepoints\n",
				strerror(-err));
			return false;
		}
		return true;
	}
	case TALLY_HEADER_BUILD_ID:
		feat_build_id(b, w);
		return true;
	case TALLY_HEADER_HOSTNAME:
	case TALLY_HEADER_OSRELEASE:
	case TALLY_HEADER_ARCH:
		feat_uname(b, feat);
		return true;
	case TALLY_HEADER_VERSION: {
		char v[64];

		snprintf(v, sizeof(v), "tally %s", tally_version());
		tally__buf_str(b, v);
		return true;
	}
	case TALLY_HEADER_NRCPUS:
		tally__buf_u32(b, (uint32_t)max_present_cpu());
		tally__buf_u32(b, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
		return true;
	case TALLY_HEADER_CPUDESC:
		feat_cpudesc(b);
		return true;
#ifdef HAVE_CPUID
	case TALLY_HEADER_CPUID:
		feat_cpuid(b);
		return true;
#endif
	case TALLY_HEADER_TOTAL_MEM:
		tally__buf_u64(b, meminfo_kb("/proc/meminfo", "MemTotal"));
		return true;
	case TALLY_HEADER_CMDLINE:
		feat_cmdline(b, w);
		return true;
	case TALLY_HEADER_EVENT_DESC:
		feat_event_desc(b, w);
		return true;
	case TALLY_HEADER_CPU_TOPOLOGY:
		feat_cpu_topology(b);
		return true;
	case TALLY_HEADER_NUMA_TOPOLOGY:
		feat_numa_topology(b);
		return true;
	case TALLY_HEADER_GROUP_DESC:
		return feat_group_desc(b, w);
	case TALLY_HEADER_SAMPLE_TIME:
		if (w->pipe || !w->last_time)
			return false;
		tally__buf_u64(b, w->first_time);
		tally__buf_u64(b, w->last_time);
		return true;
	case TALLY_HEADER_CLOCKID:
		if (!ca)
			return false;
		feat_clockid(b, ca);
		return true;
	case TALLY_HEADER_CLOCK_DATA:
		if (!ca)
			return false;
		feat_clock_data(b, ca);
		return true;
	case TALLY_HEADER_COMPRESSED:
		if (!w->level)
			return false;
		feat_compressed(b, w);
		return true;
	case TALLY_HEADER_SC_STRINGS:
		if (!w->nr_scs)
			return false;
		tally__buf_u32(b, TALLY__SC_STRINGS_VERSION);
		tally__buf_u32(b, w->nr_scs);
		tally__buf_add(b, w->scs.p, w->scs.len);
		return true;
	default:
		return false;
	}
}
