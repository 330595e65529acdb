// SPDX-License-Identifier: MIT
/*
 * The header features of a perf.data file, parsed as perf 6.1 writes them
 * (util/header.c's write_* functions): strings are a u32 length (padded)
 * then the bytes with a NUL inside; every read is bounded by the section.
 * What needs an array is parsed once and kept with the reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/data_read.h>
#include "data_read_internal.h"
#include "internal.h"

struct tally__feat_cache {
	struct tally_event_desc *evs;
	int nr_evs;
	bool evs_done;
	struct tally_pmu_mapping *pmus;
	int nr_pmus;
	bool pmus_done;
	const char **cores, **threads;
	int nr_cores, nr_threads;
	bool topo_done;
	struct tally_numa_node *nodes;
	int nr_nodes;
	bool numa_done;
};

static const char *const feat_names[TALLY_HEADER_LAST_FEATURE] = {
	[1] = "TRACING_DATA", [2] = "BUILD_ID", [3] = "HOSTNAME", [4] = "OSRELEASE",
	[5] = "VERSION", [6] = "ARCH", [7] = "NRCPUS", [8] = "CPUDESC", [9] = "CPUID",
	[10] = "TOTAL_MEM", [11] = "CMDLINE", [12] = "EVENT_DESC", [13] = "CPU_TOPOLOGY",
	[14] = "NUMA_TOPOLOGY", [15] = "BRANCH_STACK", [16] = "PMU_MAPPINGS",
	[17] = "GROUP_DESC", [18] = "AUXTRACE", [19] = "STAT", [20] = "CACHE",
	[21] = "SAMPLE_TIME", [22] = "MEM_TOPOLOGY", [23] = "CLOCKID", [24] = "DIR_FORMAT",
	[25] = "BPF_PROG_INFO", [26] = "BPF_BTF", [27] = "COMPRESSED", [28] = "CPU_PMU_CAPS",
	[29] = "CLOCK_DATA", [30] = "HYBRID_TOPOLOGY", [31] = "PMU_CAPS",
};

const char *tally_header_feature__name(int feat)
{
	if (feat <= 0 || feat >= TALLY_HEADER_LAST_FEATURE)
		return tally__err_ptr(ENOENT);
	return feat_names[feat];
}

/* A section read front to back. */
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

/* 0, or -ENOENT (errno set) when the file lacks the feature. */
static int feat(const struct tally_data_reader *r, int f, struct cur *c)
{
	const void *p;
	size_t len;

	if (tally_data_reader__feature(r, f, &p, &len))
		return tally__err(ENOENT);
	*c = (struct cur){ .p = p, .len = len };
	return 0;
}

static void tally__feat_cache_free(struct tally__feat_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->nr_evs; i++)
		free((void *)c->evs[i].ids);
	free(c->evs);
	free(c->pmus);
	free(c->cores);
	free(c->threads);
	free(c->nodes);
	free(c);
}

static struct tally__feat_cache *cache(const struct tally_data_reader *r)
{
	struct tally__feat_cache **slot = tally__data_reader_feat_cache(r, tally__feat_cache_free);

	if (!*slot)
		*slot = calloc(1, sizeof(**slot));
	return *slot;
}


const char *tally_data_reader__feat_string(const struct tally_data_reader *r, int f)
{
	struct cur c;
	const char *s;

	switch (f) {
	case TALLY_HEADER_HOSTNAME: case TALLY_HEADER_OSRELEASE: case TALLY_HEADER_VERSION:
	case TALLY_HEADER_ARCH: case TALLY_HEADER_CPUDESC: case TALLY_HEADER_CPUID:
		break;
	default:
		return tally__err_ptr(EINVAL);
	}
	if (!r || feat(r, f, &c))
		return tally__err_ptr(r ? ENOENT : EINVAL);
	s = str(&c);
	return c.bad ? tally__err_ptr(EBADMSG) : s;
}

int tally_data_reader__nrcpus(const struct tally_data_reader *r, uint32_t *online,
			      uint32_t *avail)
{
	struct cur c;
	uint32_t a, o;

	if (!r || feat(r, TALLY_HEADER_NRCPUS, &c))
		return tally__err(r ? ENOENT : EINVAL);
	a = u32(&c);
	o = u32(&c);
	if (c.bad)
		return tally__err(EBADMSG);
	if (online)
		*online = o;
	if (avail)
		*avail = a;
	return 0;
}

int tally_data_reader__total_mem(const struct tally_data_reader *r, uint64_t *kib)
{
	struct cur c;
	uint64_t v;

	if (!r || !kib || feat(r, TALLY_HEADER_TOTAL_MEM, &c))
		return tally__err(r && kib ? ENOENT : EINVAL);
	v = u64(&c);
	if (c.bad)
		return tally__err(EBADMSG);
	*kib = v;
	return 0;
}

int tally_data_reader__sample_time(const struct tally_data_reader *r, uint64_t *first,
				   uint64_t *last)
{
	struct cur c;
	uint64_t a, b;

	if (!r || feat(r, TALLY_HEADER_SAMPLE_TIME, &c))
		return tally__err(r ? ENOENT : EINVAL);
	a = u64(&c);
	b = u64(&c);
	if (c.bad)
		return tally__err(EBADMSG);
	if (first)
		*first = a;
	if (last)
		*last = b;
	return 0;
}

int tally_data_reader__cmdline(const struct tally_data_reader *r, const char **argv, int max)
{
	struct cur c;
	uint32_t n;

	if (!r || max < 0 || feat(r, TALLY_HEADER_CMDLINE, &c))
		return tally__err(r && max >= 0 ? ENOENT : EINVAL);
	n = u32(&c);
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		const char *s = str(&c);

		if (!c.bad && (int)i < max)
			argv[i] = s;
	}
	if (c.bad || n > (uint32_t)INT32_MAX)
		return tally__err(EBADMSG);
	return (int)n;
}

int tally_data_reader__event_descs(const struct tally_data_reader *r,
				   const struct tally_event_desc **out)
{
	struct tally__feat_cache *fc;
	struct cur c;
	uint32_t nr, asz;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(fc = cache(r)))
		return tally__err(ENOMEM);
	if (fc->evs_done)
		goto done;
	if (feat(r, TALLY_HEADER_EVENT_DESC, &c))
		return -ENOENT;
	fc->evs_done = true;
	nr = u32(&c);
	asz = u32(&c);
	if (c.bad || nr > c.len / 8 || !(fc->evs = calloc(nr + 1, sizeof(*fc->evs))))
		goto done;
	for (uint32_t i = 0; i < nr && !c.bad; i++) {
		struct tally_event_desc *e = &fc->evs[fc->nr_evs];
		uint64_t *ids;

		if (asz > c.len - c.pos || asz < PERF_ATTR_SIZE_VER0)
			break;
		memcpy(&e->attr, c.p + c.pos, asz < sizeof(e->attr) ? asz : sizeof(e->attr));
		c.pos += asz;
		e->nr_ids = u32(&c);
		e->name = str(&c);
		if (c.bad || e->nr_ids > (c.len - c.pos) / 8)
			break;
		ids = malloc(e->nr_ids * sizeof(*ids) + 1);
		if (!ids)
			break;
		for (uint32_t k = 0; k < e->nr_ids; k++)
			ids[k] = u64(&c);
		e->ids = ids;
		fc->nr_evs++;
	}
done:
	*out = fc->evs;
	return fc->nr_evs;
}

int tally_data_reader__pmu_mappings(const struct tally_data_reader *r,
				    const struct tally_pmu_mapping **out)
{
	struct tally__feat_cache *fc;
	struct cur c;
	uint32_t n;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(fc = cache(r)))
		return tally__err(ENOMEM);
	if (fc->pmus_done)
		goto done;
	if (feat(r, TALLY_HEADER_PMU_MAPPINGS, &c))
		return -ENOENT;
	fc->pmus_done = true;
	n = u32(&c);
	if (c.bad || n > c.len / 8 || !(fc->pmus = calloc(n + 1, sizeof(*fc->pmus))))
		goto done;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t type = u32(&c);
		const char *name = str(&c);

		if (c.bad)
			break;
		fc->pmus[fc->nr_pmus++] = (struct tally_pmu_mapping){ .type = type, .name = name };
	}
done:
	*out = fc->pmus;
	return fc->nr_pmus;
}

/* A u32 count of strings into a new array; -1 when bad. */
static int str_list(struct cur *c, const char ***out)
{
	uint32_t n = u32(c);

	if (c->bad || n > c->len / 4 || !(*out = calloc(n + 1, sizeof(**out))))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		(*out)[i] = str(c);
		if (c->bad)
			return (int)i;
	}
	return (int)n;
}

int tally_data_reader__cpu_topology(const struct tally_data_reader *r,
				    struct tally_cpu_topology *out)
{
	struct tally__feat_cache *fc;
	struct cur c;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(fc = cache(r)))
		return tally__err(ENOMEM);
	if (!fc->topo_done) {
		if (feat(r, TALLY_HEADER_CPU_TOPOLOGY, &c))
			return -ENOENT;
		fc->topo_done = true;
		fc->nr_cores = str_list(&c, &fc->cores);
		fc->nr_threads = fc->nr_cores < 0 ? -1 : str_list(&c, &fc->threads);
		if (fc->nr_cores < 0)
			fc->nr_cores = 0;
		if (fc->nr_threads < 0)
			fc->nr_threads = 0;
	}
	*out = (struct tally_cpu_topology){ .nr_cores = fc->nr_cores, .cores = fc->cores,
					    .nr_threads = fc->nr_threads, .threads = fc->threads };
	return 0;
}

int tally_data_reader__cpu_sockets(const struct tally_data_reader *r, int32_t *out, int n)
{
	uint32_t avail = 0, lists;
	struct cur c;
	int got = 0;

	if (!r || (!out && n > 0))
		return tally__err(EINVAL);
	if (feat(r, TALLY_HEADER_CPU_TOPOLOGY, &c) || tally_data_reader__nrcpus(r, NULL, &avail))
		return 0;
	/* the cores' and the threads' sibling lists, skipped */
	for (int l = 0; l < 2 && !c.bad; l++)
		for (lists = u32(&c); lists && !c.bad; lists--)
			str(&c);
	if (c.bad || avail > (c.len - c.pos) / 8)
		return 0;	/* no ids: perf before 4.x */
	for (uint32_t i = 0; i < avail; i++) {
		int32_t sock;

		u32(&c);	/* core id */
		sock = (int32_t)u32(&c);
		if ((int)i < n)
			out[got++] = sock;
	}
	return got;
}

int tally_data_reader__groups(const struct tally_data_reader *r, struct tally_event_group *out,
			      int n)
{
	int nattrs = r ? tally_data_reader__nr_attrs(r) : 0;
	uint32_t nr;
	struct cur c;

	if (!r || (!out && n > 0))
		return tally__err(EINVAL);
	if (feat(r, TALLY_HEADER_GROUP_DESC, &c))
		return 0;
	nr = u32(&c);
	if (c.bad || nr > (uint32_t)nattrs)
		return tally__err(EINVAL);
	for (uint32_t i = 0; i < nr; i++) {
		const char *name = str(&c);
		uint32_t leader = u32(&c), members = u32(&c);

		/* a group is the leader and the attrs after it, two at least */
		if (c.bad || leader >= (uint32_t)nattrs || members < 2 ||
		    members > (uint32_t)nattrs - leader)
			return tally__err(EINVAL);
		if ((int)i < n)
			out[i] = (struct tally_event_group){
				.name = strcmp(name, "{anon_group}") ? name : NULL,
				.leader = (int)leader, .nr_members = (int)members };
	}
	return (int)nr;
}

int tally_data_reader__numa_nodes(const struct tally_data_reader *r,
				  const struct tally_numa_node **out)
{
	struct tally__feat_cache *fc;
	struct cur c;
	uint32_t n;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(fc = cache(r)))
		return tally__err(ENOMEM);
	if (fc->numa_done)
		goto done;
	if (feat(r, TALLY_HEADER_NUMA_TOPOLOGY, &c))
		return -ENOENT;
	fc->numa_done = true;
	n = u32(&c);
	if (c.bad || n > c.len / 20 || !(fc->nodes = calloc(n + 1, sizeof(*fc->nodes))))
		goto done;
	for (uint32_t i = 0; i < n; i++) {
		struct tally_numa_node v;

		v.node = u32(&c);
		v.mem_total = u64(&c);
		v.mem_free = u64(&c);
		v.cpus = str(&c);
		if (c.bad)
			break;
		fc->nodes[fc->nr_nodes++] = v;
	}
done:
	*out = fc->nodes;
	return fc->nr_nodes;
}

/* perf's build_id_event: {header; pid; u8 id[20], size, pad[3]; name} */
int tally_data_reader__build_id(const struct tally_data_reader *r, const char *path,
				uint8_t id[20])
{
	const unsigned char *p;
	const void *v;
	size_t len, pos = 0;

	if (!r || !path || tally_data_reader__feature(r, TALLY_HEADER_BUILD_ID, &v, &len))
		return 0;
	p = v;
	while (len - pos >= 36) {
		struct perf_event_header h;
		size_t n = 20;

		memcpy(&h, p + pos, sizeof(h));
		if (h.size < 36 || h.size > len - pos)
			break;
		if (h.misc & 0x8000 && p[pos + 32] <= 20)	/* BUILD_ID_SIZE: the size is given */
			n = p[pos + 32];
		if (memchr(p + pos + 36, 0, h.size - 36) && !strcmp((const char *)p + pos + 36, path)) {
			memcpy(id, p + pos + 12, n);
			return (int)n;
		}
		pos += h.size;
	}
	return 0;
}

const char *tally_data_reader__build_id_path(const struct tally_data_reader *r, size_t i)
{
	const unsigned char *p;
	const void *v;
	size_t len, pos = 0;

	if (!r || tally_data_reader__feature(r, TALLY_HEADER_BUILD_ID, &v, &len))
		return NULL;
	p = v;
	while (len - pos >= 36) {
		struct perf_event_header h;

		memcpy(&h, p + pos, sizeof(h));
		if (h.size < 36 || h.size > len - pos)
			break;
		if (memchr(p + pos + 36, 0, h.size - 36) && !i--)
			return (const char *)p + pos + 36;
		pos += h.size;
	}
	return NULL;
}
