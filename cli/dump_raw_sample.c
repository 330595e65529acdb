// SPDX-License-Identifier: MIT
/*
 * -D's samples: perf 6.1's dump_sample (the fields as recorded: the chain
 * before any unwinding, the branch stack, registers, user stack, weight,
 * data source, page sizes, the read values), then machine__resolve's
 * thread and DSO lines for each delivery of the sample.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "dump_raw_internal.h"

/* perf_reg_name for the recording's architecture (perf_env__arch) */
static const char *reg_name(const struct dump_raw *d, unsigned r)
{
	static const char *const x86[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
		"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
	};
	static const char *const xmm[] = {
		"XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7",
		"XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14", "XMM15",
	};
	static const char *const arm64[] = {
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
		"x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
		"x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "lr", "sp", "pc",
	};

	if (d->regs_arch == 'x' && r < sizeof(x86) / sizeof(x86[0]))
		return x86[r];
	if (d->regs_arch == 'x' && r >= 32 && r < 64)
		return xmm[(r - 32) / 2];	/* each XMM register is two u64s, both named */
	if (d->regs_arch == 'a' && r < sizeof(arm64) / sizeof(arm64[0]))
		return arm64[r];
	if (d->regs_arch == 'a' && r == 46)	/* PERF_REG_ARM64_VG: SVE's vector length */
		return "vg";
	return "unknown";
}

static void regs_print(const struct dump_raw *d, FILE *f, const char *which,
		       const struct tally_sample_regs *r)
{
	static const char *const abi[] = { "none", "32-bit", "64-bit" };
	uint32_t i = 0;

	if (!r->abi)
		return;
	fprintf(f, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", which, r->mask,
		r->abi <= 2 ? abi[r->abi] : "unknown");
	for (unsigned b = 0; b < 64 && i < r->nr; b++)
		if (r->mask & (1ULL << b))
			fprintf(f, ".... %-5s 0x%016" PRIx64 "\n", reg_name(d, b), r->regs[i++]);
}

/* branch_type_name / branch_new_type_name (the new ones' names are perf's build's arch's) */
static const char *branch_type(uint64_t flags)
{
	static const char *const types[] = {
		"", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX",
	};
	static const char *const new_types[] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST",
#ifdef __aarch64__
		"ARM64_FIQ", "ARM64_DEBUG_HALT", "ARM64_DEBUG_EXIT", "ARM64_DEBUG_INST",
		"ARM64_DEBUG_DATA",
#else
		"ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5",
#endif
	};
	unsigned type = (flags >> 20) & 0xf, new_type = (flags >> 26) & 0xf;

	if (type != 15)	/* PERF_BR_EXTEND_ABI */
		return types[type];
	/* past perf's table: glibc's printf of its NULL */
	return new_type < sizeof(new_types) / sizeof(new_types[0]) ? new_types[new_type] : "(null)";
}

static void branches_print(FILE *f, const struct tally_sample *s, bool callstack)
{
	const struct perf_branch_entry *e = s->branch_stack.entries;
	uint64_t nr = s->branch_stack.nr;

	fprintf(f, "%s: nr:%" PRIu64 "\n", callstack ? "... branch callstack" : "... branch stack",
		nr + callstack);
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t fl;

		memcpy(&fl, (const char *)&e[i] + 16, 8);	/* the flags' bits as the ABI lays them */
		if (callstack) {
			if (!i)
				fprintf(f, "..... %2" PRIu64 ": %016" PRIx64 "\n", i,
					(uint64_t)e[i].to);
			fprintf(f, "..... %2" PRIu64 ": %016" PRIx64 "\n", i + 1,
				(uint64_t)e[i].from);
			continue;
		}
		fprintf(f, "..... %2" PRIu64 ": %016" PRIx64 " -> %016" PRIx64 " %u cycles %s%s%s%s %x %s\n",
			i, (uint64_t)e[i].from, (uint64_t)e[i].to, (unsigned)((fl >> 4) & 0xffff),
			fl & 1 ? "M" : " ", fl & 2 ? "P" : " ", fl & 8 ? "A" : " ",
			fl & 4 ? "T" : " ", (unsigned)(fl >> 33), branch_type(fl));
	}
}

/* callchain__lbr_callstack_printf: the kernel's part, then the user's from the LBR */
static void lbr_chain_print(FILE *f, const struct tally_sample *s)
{
	uint64_t n = s->callchain.nr, i;

	for (i = 0; i < n && s->callchain.ips[i] != PERF_CONTEXT_USER; i++)
		;
	if (i == n || !s->branch_stack.nr)
		return;
	n = i + 1;
	fprintf(f, "... LBR call chain: nr:%" PRIu64 "\n", n + s->branch_stack.nr + 1);
	for (i = 0; i < n; i++)
		fprintf(f, "..... %2d: %016" PRIx64 "\n", (int)i, s->callchain.ips[i]);
	fprintf(f, "..... %2d: %016" PRIx64 "\n", (int)n, (uint64_t)s->branch_stack.entries[0].to);
	for (i = 0; i < s->branch_stack.nr; i++)
		fprintf(f, "..... %2d: %016" PRIx64 "\n", (int)(i + n + 1),
			(uint64_t)s->branch_stack.entries[i].from);
}

/* get_page_size_name: unit_number__scnprintf's 1024s, whose first step needs twice 1024 */
static const char *page_size(uint64_t n, char *buf, size_t len)
{
	const char *unit = "BKMG";
	int i = 0;

	if (!n)
		return "N/A";
	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", n, unit[i]);
	return buf;
}

static void read_print(FILE *f, const struct tally_read_values *rv)
{
	struct tally_read_entry e;
	uint64_t rf = rv->read_format;

	fputs("... sample_read:\n", f);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		fprintf(f, "...... time enabled %016" PRIx64 "\n", rv->time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		fprintf(f, "...... time running %016" PRIx64 "\n", rv->time_running);
	if (rf & PERF_FORMAT_GROUP)
		fprintf(f, ".... group nr %" PRIu64 "\n", rv->nr);
	for (uint64_t i = 0; !tally_read_values__entry(rv, i, &e); i++) {
		fprintf(f, "..... id %016" PRIx64 ", value %016" PRIx64, e.id, e.value);
		if (rf & PERF_FORMAT_LOST)
			fprintf(f, ", lost %" PRIu64, e.lost);
		fputc('\n', f);
	}
}

/* Where the STACK_USER size lies in the sample: perf prints that offset. */
static size_t ustack_offset(const struct tally_sample *s, uint64_t type)
{
	size_t off = 8 + 8 * (size_t)__builtin_popcountll(type & (PERF_SAMPLE_IDENTIFIER |
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD));
	uint64_t rf = s->read.read_format;
	size_t per = 8 * (1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
	size_t times = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));

	if (type & PERF_SAMPLE_READ)
		off += (rf & PERF_FORMAT_GROUP) ? 8 + times + per * s->read.nr : times + per;
	if (type & PERF_SAMPLE_CALLCHAIN)
		off += 8 + 8 * s->callchain.nr;
	if (type & PERF_SAMPLE_RAW)
		off += 4 + s->raw.size;
	if (type & PERF_SAMPLE_BRANCH_STACK)
		off += 8 + 8 * s->branch_stack.has_hw_idx + 24 * s->branch_stack.nr;
	if (type & PERF_SAMPLE_REGS_USER)
		off += 8 + 8 * s->regs_user.nr;
	return off;
}

/*
 * machine__resolve's lines: the thread's name now, and the long name of
 * the DSO of the map holding the sample's address ("<not found>"), the
 * kernel's for a kernel sample; none looked for at another level
 */
static void resolve_print(struct dump_raw *d, FILE *f, const struct tally_session_sample *ts,
			  const struct tally_sample *s, bool tid)
{
	int32_t pid = tid ? (int32_t)s->pid : -1, t = tid ? (int32_t)s->tid : -1;
	const char *comm = tid ? tally_session__comm(d->ss, ts) : NULL;
	const struct tally_map *map = NULL;
	const char *dso = "<not found>";
	char anon[40];
	uint64_t map_ip;

	/* perf's thread without a COMM (samples without TID: thread -1) is ":TID" */
	if (comm)
		fprintf(f, " ... thread: %s:%d\n", comm, (int)t);
	else
		fprintf(f, " ... thread: :%d:%d\n", (int)t, (int)t);
	/* a guest's level too: perf reads no guest's maps unless asked (--guest) */
	if (ts->mode != TALLY_CPUMODE_KERNEL && ts->mode != TALLY_CPUMODE_USER) {
		fputs(" ...... dso: [hypervisor]\n", f);
		return;
	}
	map = tally_machine__find_map(tally_session__machine(d->ss), pid, t, s->ip, ts->mode,
				      &map_ip);
	if (map && map->kernel && !map->ksym &&
	    !strncmp(map->filename, "[kernel.kallsyms]", 17))
		dso = "[kernel.kallsyms]";
	else if (map && map->anon && (map->prot & PROT_EXEC)) {
		/* map__new's name for code in anonymous memory (a JIT's) */
		snprintf(anon, sizeof(anon), "/tmp/perf-%d.map", (int)s->pid);
		dso = anon;
	} else if (map) {
		dso = map->filename;
	}
	fprintf(f, " ...... dso: %s\n", dso);
}

/* The count last read of each id (perf's sid->period): a group's samples carry running totals. */
static uint64_t *last_count(struct dump_raw *d, uint64_t id)
{
	struct last_read *l;

	for (size_t i = 0; i < d->nlast; i++)
		if (d->last[i].id == id)
			return &d->last[i].value;
	if (!(l = realloc(d->last, (d->nlast + 1) * sizeof(*l))))
		return NULL;
	d->last = l;
	d->last[d->nlast] = (struct last_read){ .id = id };
	return &d->last[d->nlast++].value;
}

/*
 * deliver_sample_value: a sample that reads its events' counts goes to
 * each event whose count moved since its last sample, period the
 * difference (ids no event has: none)
 */
static int read_deliveries(struct dump_raw *d, FILE *f, const struct tally_session_sample *ts,
			   const struct tally_sample *s, int *to, int max)
{
	struct tally_read_entry e;
	int n = 0;

	for (uint64_t i = 0; !tally_read_values__entry(&s->read, i, &e); i++) {
		int idx = tally_data_reader__attr_of_id(d->rd, e.id);
		uint64_t *last = idx >= 0 ? last_count(d, e.id) : NULL, moved;

		if (!last)
			continue;
		moved = e.value - *last;
		*last = e.value;
		if (!moved)
			continue;
		resolve_print(d, f, ts, s, ts->event->sample_type & PERF_SAMPLE_TID);
		if (n < max)
			to[n++] = idx;
	}
	return n;
}

int dump_sample(struct dump_raw *d, const struct tally_session_sample *ts, int *to, int max)
{
	const struct perf_event_header *h = ts->header;
	const struct perf_event_attr *a = ts->event;
	uint64_t type = a->sample_type, off = pend_take(d, h);
	struct tally_record_layout lay;
	struct tally_record r;
	const struct tally_sample *s = &r.u.sample;
	char buf[32];
	FILE *f;

	tally_record_layout__from_attr(&lay, a);
	/* the recorded chain, not the session's (DWARF-unwound) one */
	to[0] = ts->attr;
	if (tally_record__parse(h, h->size, &lay, &r)) {
		f = dump_head(d, h, off, true, UINT32_MAX, UINT64_MAX);
		fputc('\n', f);
		return 1;
	}
	f = dump_head(d, h, off, true, (type & PERF_SAMPLE_CPU) ? s->cpu : UINT32_MAX,
		      (type & PERF_SAMPLE_TIME) ? s->time : UINT64_MAX);
	fprintf(f, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64 " addr: %#" PRIx64 "\n",
		h->misc, (type & PERF_SAMPLE_TID) ? (int)s->pid : -1,
		(type & PERF_SAMPLE_TID) ? (int)s->tid : -1, s->ip,
		(type & PERF_SAMPLE_PERIOD) ? s->period : (uint64_t)a->sample_period, s->addr);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if ((a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
		    (type & PERF_SAMPLE_BRANCH_STACK))
			lbr_chain_print(f, s);
		fprintf(f, "... FP chain: nr:%" PRIu64 "\n", s->callchain.nr);
		for (uint64_t i = 0; i < s->callchain.nr; i++)
			fprintf(f, "..... %2d: %016" PRIx64 "\n", (int)i, s->callchain.ips[i]);
	}
	if ((type & PERF_SAMPLE_BRANCH_STACK) && a->branch_sample_type)
		branches_print(f, s, a->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK);
	if (type & PERF_SAMPLE_REGS_USER)
		regs_print(d, f, "user", &s->regs_user);
	if (type & PERF_SAMPLE_REGS_INTR)
		regs_print(d, f, "intr", &s->regs_intr);
	if (type & PERF_SAMPLE_STACK_USER)
		fprintf(f, "... ustack: size %" PRIu64 ", offset 0x%zx\n", s->stack_user.dyn_size,
			ustack_offset(s, type));
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		bool st = type & PERF_SAMPLE_WEIGHT_STRUCT;

		/*
		 * perf's arch_perf_parse_sample_weight: x86 takes the struct's
		 * first two parts, powerpc all three, the others the whole u64
		 */
#if defined(__x86_64__) || defined(__i386__)
		uint64_t w = st ? (s->weight & 0xffffffff) : s->weight;
		unsigned lat = st ? (unsigned)((s->weight >> 32) & 0xffff) : 0, stage = 0;
#elif defined(__powerpc__)
		uint64_t w = st ? (s->weight & 0xffffffff) : s->weight;
		unsigned lat = st ? (unsigned)((s->weight >> 32) & 0xffff) : 0;
		unsigned stage = st ? (unsigned)(s->weight >> 48) : 0;
#else
		uint64_t w = s->weight;
		unsigned lat = 0, stage = 0;
#endif

		fprintf(f, "... weight: %" PRIu64, w);
		if (st)
			fprintf(f, ",0x%x,0x%x", lat, stage);
		fputc('\n', f);
	}
	if (type & PERF_SAMPLE_DATA_SRC)
		fprintf(f, " . data_src: 0x%" PRIx64 "\n", s->data_src);
	if (type & PERF_SAMPLE_PHYS_ADDR)
		fprintf(f, " .. phys_addr: 0x%" PRIx64 "\n", s->phys_addr);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		fprintf(f, " .. data page size: %s\n", page_size(s->data_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		fprintf(f, " .. code page size: %s\n", page_size(s->code_page_size, buf, sizeof(buf)));
	if (type & PERF_SAMPLE_TRANSACTION)
		fprintf(f, "... transaction: %" PRIx64 "\n", s->transaction);
	if (!(type & PERF_SAMPLE_READ)) {
		resolve_print(d, f, ts, s, type & PERF_SAMPLE_TID);
		return 1;
	}
	read_print(f, &s->read);
	return read_deliveries(d, f, ts, s, to, max);
}

