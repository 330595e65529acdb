// SPDX-License-Identifier: MIT
/*
 * perf's -D/--dump-raw-trace for report and script (dump_raw.h): perf
 * 6.1's dump_event, dump_sample and the perf_event__fprintf_* of the
 * kernel's records, byte for byte. perf's own records (ATTR, ID_INDEX,
 * THREAD_MAP...) are dump_raw_user.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "dump_raw.h"

/* where a queued record lies in the file, by the header it will come back with */
struct pend {
	const void *h;
	uint64_t off;
};

struct dump_raw {
	FILE *out;
	const char *label;		/* perf's file_path: the -i path, or "pipe" */
	enum dump_raw_tool tool;
	struct tally_session *ss;
	struct tally_data_reader *rd;
	bool pipe;
	bool unordered;			/* no sample_id_all: perf takes the file in its order */
	int nr_attrs;
	int seen_attrs;			/* a pipe's: the ATTR records read so far */
	int regs_arch;			/* REGS_*'s names: 'x' x86, 'a' arm64, 0 none */
	/* the command's callbacks, called after the dump of their record */
	tally_session_sample_fn sample;
	tally_session_record_fn record;
	void (*kernel_maps)(struct tally_session *s, const struct perf_event_header *h, void *ctx);
	bool (*want)(const char *name, const struct perf_event_attr *attr, void *ctx);
	void *ctx;
	void (*flush)(void *ctx);
	void *flush_ctx;
	struct pend *pend;		/* open addressing, a power of two long */
	size_t cap, npend;
	const void *now_h;		/* a record applied as soon as it is read */
	uint64_t now_off;
};

/* ---- where each record lies ---------------------------------------- */

static size_t pend_home(const struct dump_raw *d, const void *h)
{
	uint64_t x = (uint64_t)(uintptr_t)h * 0x9e3779b97f4a7c15ULL;

	return (size_t)(x >> 32) & (d->cap - 1);
}

static void pend_put(struct dump_raw *d, const void *h, uint64_t off)
{
	size_t i;

	if ((d->npend + 1) * 2 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		struct pend *old = d->pend, *p = calloc(cap, sizeof(*p));
		size_t ocap = d->cap;

		if (!p)
			return;	/* its offset shows as 0: no worse than that */
		d->pend = p;
		d->cap = cap;
		d->npend = 0;
		for (size_t k = 0; k < ocap; k++)
			if (old[k].h)
				pend_put(d, old[k].h, old[k].off);
		free(old);
	}
	for (i = pend_home(d, h); d->pend[i].h && d->pend[i].h != h; i = (i + 1) & (d->cap - 1))
		;
	if (!d->pend[i].h)
		d->npend++;
	/* a copy's place is used again once delivered: the newest record there wins */
	d->pend[i] = (struct pend){ .h = h, .off = off };
}

/* The offset of the record delivered with header h (forgotten: its place may be used again). */
static uint64_t pend_take(struct dump_raw *d, const void *h)
{
	size_t i, j, m = d->cap - 1;
	uint64_t off;

	if (h == d->now_h) {
		d->now_h = NULL;
		return d->now_off;
	}
	if (!d->cap)
		return 0;
	for (i = pend_home(d, h); d->pend[i].h && d->pend[i].h != h; i = (i + 1) & m)
		;
	if (!d->pend[i].h)
		return 0;
	off = d->pend[i].off;
	/* the entries after it that probed past it move back: no tombstones */
	for (j = (i + 1) & m; d->pend[j].h; j = (j + 1) & m) {
		size_t k = pend_home(d, d->pend[j].h);

		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			d->pend[i] = d->pend[j];
			i = j;
		}
	}
	d->pend[i].h = NULL;
	d->npend--;
	return off;
}

/* ---- perf's dump_event ------------------------------------------------ */

static FILE *out(struct dump_raw *d)
{
	if (d->flush)
		d->flush(d->flush_ctx);
	return d->out;
}

/* perf_event__name: the library's names, HEADER_ dropped */
static const char *type_name(uint32_t type)
{
	const char *n = tally_record__type_name(type);

	if (!n)
		return type < TALLY_RECORD_HEADER_MAX ? "UNKNOWN" : "INVALID";
	return strncmp(n, "HEADER_", 7) ? n : n + 7;
}

/* trace_event: the record's bytes, 16 a line, then as ASCII */
static void hex_dump(FILE *f, const unsigned char *p, size_t n)
{
	fprintf(f, ".\n. ... raw event: size %zu bytes\n", n);
	for (size_t i = 0; i < n; i += 16) {
		size_t k = n - i < 16 ? n - i : 16;

		fprintf(f, ".  %04zx: ", i);
		for (size_t j = 0; j < 16; j++)
			if (j < k)
				fprintf(f, " %02x", p[i + j]);
			else
				fputs("   ", f);
		fputs("  ", f);
		for (size_t j = 0; j < 16; j++)
			fputc(j >= k ? ' ' : p[i + j] >= 0x20 && p[i + j] < 0x7f ? p[i + j] : '.', f);
		fputc('\n', f);
	}
	fputc('\n', f);
}

static const struct perf_event_attr *attr_at(const struct dump_raw *d, int i)
{
	return tally_data_reader__attr(d->rd, i);
}

/*
 * evlist__print_tstamp: "-1 -1 " for a record other than a sample when
 * the first event has no sample_id_all (or none is known yet: a pipe
 * before its first ATTR), else CPU and time as the events' sample types
 * together carry them
 */
static void tstamp(struct dump_raw *d, FILE *f, bool sample, uint32_t cpu, uint64_t time)
{
	int known = d->pipe ? d->seen_attrs : d->nr_attrs;
	uint64_t all = 0;

	if (known > d->nr_attrs)
		known = d->nr_attrs;
	if (!sample && (!known || !attr_at(d, 0)->sample_id_all)) {
		fputs("-1 -1 ", f);
		return;
	}
	for (int i = 0; i < known; i++)
		all |= attr_at(d, i)->sample_type;
	if (all & PERF_SAMPLE_CPU)
		fprintf(f, "%u ", cpu);
	if (all & PERF_SAMPLE_TIME)
		fprintf(f, "%" PRIu64 " ", time);
}

/* dump_event up to the record's name: where, the bytes, when */
static FILE *dump_head(struct dump_raw *d, const struct perf_event_header *h, uint64_t off,
		       bool sample, uint32_t cpu, uint64_t time)
{
	FILE *f = out(d);

	fprintf(f, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", off, d->label, h->size, h->type);
	hex_dump(f, (const unsigned char *)h, h->size);
	tstamp(d, f, sample, cpu, time);
	fprintf(f, "%#" PRIx64 " [%#x]: PERF_RECORD_%s", off, h->size, type_name(h->type));
	return f;
}

/* ---- a sample: perf's dump_sample and machine__resolve's lines --------- */

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
	const char *comm = tally_session__comm(d->ss, ts);
	const struct tally_map *map = NULL;
	const char *dso = "<not found>";
	char anon[40];
	uint64_t map_ip;

	fprintf(f, " ... thread: %s:%d\n", comm ? comm : "", tid ? (int)s->tid : -1);
	if (ts->mode != TALLY_CPUMODE_KERNEL && ts->mode != TALLY_CPUMODE_USER) {
		fputs(" ...... dso: [hypervisor]\n", f);
		return;
	}
	map = tally_machine__find_map(tally_session__machine(d->ss), (int32_t)s->pid,
				      (int32_t)s->tid, s->ip, ts->mode, &map_ip);
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

static void dump_sample(struct dump_raw *d, const struct tally_session_sample *ts)
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
	if (tally_record__parse(h, h->size, &lay, &r)) {
		f = dump_head(d, h, off, true, UINT32_MAX, UINT64_MAX);
		fputc('\n', f);
		return;
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

		fprintf(f, "... weight: %" PRIu64, st ? (s->weight & 0xffffffff) : s->weight);
		if (st)
			fprintf(f, ",0x%x,0x%x", (unsigned)((s->weight >> 32) & 0xffff),
				(unsigned)(s->weight >> 48));
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
	if (type & PERF_SAMPLE_READ)
		read_print(f, &s->read);
	resolve_print(d, f, ts, s, type & PERF_SAMPLE_TID);
}

/* ---- the kernel's other records -------------------------------------- */

/* The event a record's sample_id_all trailer names (perf's evlist__event2evsel). */
static int record_attr(const struct dump_raw *d, const struct tally_record *r)
{
	int idx;

	if (d->nr_attrs == 1 || !r->has_sid)
		return 0;
	idx = tally_data_reader__attr_of_id(d->rd, r->sid.id);
	return idx < 0 ? 0 : idx;
}

static void ns_print(FILE *f, const struct tally_record_namespaces *ns)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };

	fprintf(f, " %d/%d - nr_namespaces: %u\n\t\t[", (int)ns->pid, (int)ns->tid, (unsigned)ns->nr);
	for (uint32_t i = 0; i < (uint32_t)ns->nr; i++) {
		if (i && !(i % 4))
			fputs("\n\t\t ", f);
		fprintf(f, "%u/%s: %" PRIu64 "/%#" PRIx64 "%s", i, i < 7 ? names[i] : "UNKNOWN",
			(uint64_t)ns->link_info[i].dev, (uint64_t)ns->link_info[i].ino,
			i + 1 != (uint32_t)ns->nr ? ", " : "]\n");
	}
}

static void switch_print(FILE *f, const struct perf_event_header *h, const struct tally_record *r)
{
	bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *io = !out ? "IN         " :
			 !(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT        " :
			 "OUT preempt";

	if (h->type == PERF_RECORD_SWITCH) {
		fprintf(f, " %s\n", io);
		return;
	}
	fprintf(f, " %s  %s pid/tid: %5d/%-5d\n", io, out ? "next" : "prev",
		(int)r->u.switch_cpu_wide.next_prev_pid, (int)r->u.switch_cpu_wide.next_prev_tid);
}

/* perf_event__fprintf_text_poke: where, the kernel's symbol there, the bytes */
static void poke_print(struct dump_raw *d, FILE *f, const struct tally_record_text_poke *p)
{
	struct tally_addr_info ai;
	const uint8_t *b = p->bytes;

	fprintf(f, " %" PRIx64 " ", p->addr);
	if (!tally_symbols__resolve(tally_session__symbols(d->ss), tally_session__machine(d->ss),
				    -1, -1, p->addr, TALLY_CPUMODE_KERNEL, &ai) && ai.sym)
		fprintf(f, "%s+0x%" PRIx64, ai.sym->name, ai.sym_off);
	fprintf(f, " old len %u new len %u\n", p->old_len, p->new_len);
	for (int old = 1; old >= 0; old--) {
		unsigned n = old ? p->old_len : p->new_len;

		for (unsigned i = 0; i < n; i++) {
			if (!(i % 16))
				fprintf(f, "            %s bytes:", old ? "Old" : "New");
			fprintf(f, " %02x", b[i]);
			if (i % 16 == 15 || i == n - 1)
				fputc('\n', f);
		}
		b += n;
	}
}

/* READ: dump_read, at perf 6.1's fixed places whatever the read_format */
static void read_record_print(struct dump_raw *d, FILE *f, const struct perf_event_header *h,
			      const struct tally_record *r, int idx)
{
	const uint64_t rf = attr_at(d, idx)->read_format;
	uint64_t v[5] = { 0 };
	size_t n = h->size > 16 ? (h->size - 16) / 8 : 0;
	static const char *const what[] = { "time enabled", "time running", "id          ",
					    "lost        " };

	memcpy(v, (const char *)h + 16, (n < 5 ? n : 5) * 8);
	fprintf(f, ": %d %d %s %" PRIu64 "\n", (int)r->u.read.pid, (int)r->u.read.tid,
		tally_session__event_name(d->ss, idx), v[0]);
	for (int k = 0; k < 4; k++)
		if (rf & (PERF_FORMAT_TOTAL_TIME_ENABLED << k))
			fprintf(f, "... %s : %" PRIu64 "\n", what[k], v[k + 1]);
}

static void dump_record(struct dump_raw *d, const struct perf_event_header *h,
			const struct tally_record *r)
{
	int idx = record_attr(d, r);
	uint64_t type = attr_at(d, idx)->sample_type, off = pend_take(d, h);
	bool sid = r->has_sid;
	bool script = d->tool == DUMP_RAW_SCRIPT;
	FILE *f = dump_head(d, h, off, false,
			    sid && (type & PERF_SAMPLE_CPU) ? r->sid.cpu : UINT32_MAX,
			    sid && (type & PERF_SAMPLE_TIME) ? r->sid.time : UINT64_MAX);

	switch (h->type) {
	case PERF_RECORD_MMAP:
		fprintf(f, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]: %c %s\n",
			(int)r->u.mmap.pid, (int)r->u.mmap.tid, r->u.mmap.start, r->u.mmap.len,
			r->u.mmap.pgoff, (h->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x',
			r->u.mmap.filename);
		break;
	case PERF_RECORD_MMAP2: {
		const struct tally_record_mmap2 *m = &r->u.mmap2;

		fprintf(f, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int)m->pid,
			(int)m->tid, m->start, m->len, m->pgoff);
		if (m->has_build_id) {
			fputs(" <", f);
			for (unsigned i = 0; i < m->build_id_size; i++)
				fprintf(f, "%02x", m->build_id[i]);
			fputc('>', f);
		} else {
			fprintf(f, " %02x:%02x %" PRIu64 " %" PRIu64, m->maj, m->min, m->ino,
				m->ino_generation);
		}
		fprintf(f, "]: %c%c%c%c %s\n", (m->prot & PROT_READ) ? 'r' : '-',
			(m->prot & PROT_WRITE) ? 'w' : '-', (m->prot & PROT_EXEC) ? 'x' : '-',
			(m->flags & MAP_SHARED) ? 's' : 'p', m->filename);
		break;
	}
	case PERF_RECORD_COMM:
		fprintf(f, "%s: %s:%d/%d\n", (h->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec" : "",
			r->u.comm.comm, (int)r->u.comm.pid, (int)r->u.comm.tid);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fprintf(f, "(%d:%d):(%d:%d)\n", (int)r->u.task.pid, (int)r->u.task.tid,
			(int)r->u.task.ppid, (int)r->u.task.ptid);
		break;
	case PERF_RECORD_LOST:
		fprintf(f, ": id:%" PRIu64 ": lost:%" PRIu64 "\n", r->u.lost.id, r->u.lost.lost);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		fprintf(f, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n",
			sid && (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? r->sid.id :
			UINT64_MAX, r->u.lost_samples.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (!script)
			fputs(": unhandled!\n", f);
		break;
	case PERF_RECORD_READ:
		read_record_print(d, f, h, r, idx);
		if (script)
			fputs(": unhandled!\n", f);
		break;
	case PERF_RECORD_AUX:
		fprintf(f, " offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#" PRIx64 " [%s%s%s]\n",
			r->u.aux.aux_offset, r->u.aux.aux_size, r->u.aux.flags,
			(r->u.aux.flags & PERF_AUX_FLAG_TRUNCATED) ? "T" : "",
			(r->u.aux.flags & PERF_AUX_FLAG_OVERWRITE) ? "O" : "",
			(r->u.aux.flags & PERF_AUX_FLAG_PARTIAL) ? "P" : "");
		break;
	case PERF_RECORD_ITRACE_START:
		fprintf(f, " pid: %u tid: %u\n", r->u.itrace_start.pid, r->u.itrace_start.tid);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		switch_print(f, h, r);
		break;
	case PERF_RECORD_NAMESPACES:
		ns_print(f, &r->u.namespaces);
		break;
	case PERF_RECORD_KSYMBOL:
		fprintf(f, " addr %" PRIx64 " len %u type %u flags 0x%x name %s\n",
			r->u.ksymbol.addr, r->u.ksymbol.len, r->u.ksymbol.ksym_type,
			r->u.ksymbol.flags, r->u.ksymbol.name);
		break;
	case PERF_RECORD_BPF_EVENT:
		fprintf(f, " type %u, flags %u, id %u\n", r->u.bpf_event.type, r->u.bpf_event.flags,
			r->u.bpf_event.id);
		break;
	case PERF_RECORD_CGROUP:
		fprintf(f, " cgroup: %" PRIu64 " %s\n", r->u.cgroup.id, r->u.cgroup.path);
		break;
	case PERF_RECORD_TEXT_POKE:
		poke_print(d, f, &r->u.text_poke);
		break;
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
		fprintf(f, " hw_id: %#" PRIx64 "\n", r->u.aux_output_hw_id.hw_id);
		break;
	default:
		break;
	}
}

/* ---- the session's callbacks, wrapped ------------------------------- */

static int on_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct dump_raw *d = arg;

	dump_sample(d, ts);
	return d->sample ? d->sample(ss, ts, d->ctx) : 0;
}

static int on_record(struct tally_session *ss, const struct perf_event_header *h,
		     const struct tally_record *rec, void *arg)
{
	struct dump_raw *d = arg;

	dump_record(d, h, rec);
	return d->record ? d->record(ss, h, rec, d->ctx) : 0;
}

static void on_kernel_maps(struct tally_session *ss, const struct perf_event_header *h, void *arg)
{
	struct dump_raw *d = arg;

	if (d->kernel_maps)
		d->kernel_maps(ss, h, d->ctx);
}

static bool on_want(const char *name, const struct perf_event_attr *attr, void *arg)
{
	struct dump_raw *d = arg;

	return d->want(name, attr, d->ctx);
}

/* Each record as read: perf's own ones shown now, the kernel's where they lie noted. */
static void on_raw(struct tally_session *ss, const struct perf_event_header *h, uint64_t off,
		   const struct perf_event_header *queued, void *arg)
{
	struct dump_raw *d = arg;

	(void)ss;
	if (d->pipe)
		off -= off >= 16 ? 16 : off;	/* perf counts a pipe's offsets past its header */
	if (h->type < TALLY_RECORD_USER_TYPE_START) {
		if (queued) {
			pend_put(d, queued, off);
		} else {
			d->now_h = h;
			d->now_off = off;
		}
		return;
	}
	FILE *f = dump_head(d, h, off, false, 0, 0);

	dump_raw_user(f, h, d->tool, d->unordered);
	if (h->type == TALLY_RECORD_HEADER_ATTR)
		d->seen_attrs++;	/* perf adds the event after showing its record */
}

/* ---- the dump's life ------------------------------------------------- */

struct dump_raw *dump_raw_new(FILE *f, const char *input, enum dump_raw_tool tool)
{
	struct dump_raw *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->out = f;
	d->label = input;
	d->tool = tool;
	return d;
}

void dump_raw_attach(struct dump_raw *d, struct tally_session_opts *so)
{
	d->sample = so->sample;
	d->record = so->record;
	d->kernel_maps = so->kernel_maps;
	d->want = so->want;
	d->ctx = so->ctx;
	so->sample = on_sample;
	so->record = on_record;
	so->kernel_maps = on_kernel_maps;
	so->want = d->want ? on_want : NULL;
	so->ctx = d;
	so->raw = on_raw;
	so->raw_ctx = d;
}

void dump_raw_set_flush(struct dump_raw *d, void (*flush)(void *ctx), void *ctx)
{
	d->flush = flush;
	d->flush_ctx = ctx;
}

void dump_raw_begin(struct dump_raw *d, struct tally_session *ss)
{
	const char *arch;
	struct utsname u;
	FILE *f;

	d->ss = ss;
	d->rd = tally_session__reader(ss);
	d->nr_attrs = tally_data_reader__nr_attrs(d->rd);
	d->pipe = tally_data_reader__is_pipe(d->rd);
	if (d->pipe || !strcmp(d->label, "-"))
		d->label = "pipe";
	d->unordered = !d->pipe && !attr_at(d, 0)->sample_id_all;
	/* the recording's machine (its ARCH feature), else this one's, as perf_env__arch */
	arch = tally_data_reader__feat_string(d->rd, TALLY_HEADER_ARCH);
	if (!arch && !uname(&u))
		arch = u.machine;
	if (arch && (!strcmp(arch, "x86_64") || !strncmp(arch, "i", 1) || !strcmp(arch, "x86")))
		d->regs_arch = 'x';
	else if (arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")))
		d->regs_arch = 'a';
	f = out(d);
	if (d->unordered)
		fputs("WARNING: No sample_id_all support, falling back to unordered processing\n", f);
	if (d->tool == DUMP_RAW_REPORT)
		fputs("# To display the perf.data header info, please use --header/--header-only "
		      "options.\n#\n", f);
}

void dump_raw_free(struct dump_raw *d)
{
	if (!d)
		return;
	free(d->pend);
	free(d);
}
