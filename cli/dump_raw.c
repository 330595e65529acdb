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
#include "dump_raw_internal.h"

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
uint64_t pend_take(struct dump_raw *d, const void *h)
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

const struct perf_event_attr *attr_at(const struct dump_raw *d, int i)
{
	return tally_data_reader__attr(d->rd, i);
}

/* The events perf knows so far: a pipe's as its ATTR records come. */
static int known_attrs(const struct dump_raw *d)
{
	return d->pipe && d->seen_attrs < d->nr_attrs ? d->seen_attrs : d->nr_attrs;
}

/* evlist__combined_sample_type over the events known so far */
static uint64_t combine(const struct dump_raw *d)
{
	uint64_t all = 0;

	for (int i = 0; i < known_attrs(d); i++)
		all |= attr_at(d, i)->sample_type;
	return all;
}

/*
 * evlist__print_tstamp: "-1 -1 " for a record other than a sample when
 * the first event has no sample_id_all (or none is known yet: a pipe
 * before its first ATTR), else CPU and time as the events' sample types
 * together carry them
 */
static void tstamp(struct dump_raw *d, FILE *f, bool sample, uint32_t cpu, uint64_t time)
{
	if (!sample && (!known_attrs(d) || !attr_at(d, 0)->sample_id_all)) {
		fputs("-1 -1 ", f);
		return;
	}
	if (!d->combined)	/* perf computes it when first asked, and keeps it once not 0 */
		d->combined = combine(d);
	if (d->combined & PERF_SAMPLE_CPU)
		fprintf(f, "%u ", cpu);
	if (d->combined & PERF_SAMPLE_TIME)
		fprintf(f, "%" PRIu64 " ", time);
}

/*
 * A pipe's ATTR record taken: report's process_attr computes the
 * combined type anew; script's only for a first event of its type
 * (perf's PMU types past PERF_TYPE_MAX not at all)
 */
static void attr_added(struct dump_raw *d)
{
	const struct perf_event_attr *a;
	int n;

	if (++d->seen_attrs > d->nr_attrs || !(n = known_attrs(d)))
		return;
	a = attr_at(d, n - 1);
	if (d->tool == DUMP_RAW_SCRIPT) {
		if (a->type >= PERF_TYPE_MAX)
			return;
		for (int i = 0; i < n - 1; i++)
			if (attr_at(d, i)->type == a->type)
				return;
	}
	d->combined = combine(d);
}

/* An EVENT_UPDATE naming an event: perf's stats name it so from then on. */
static void name_update(struct dump_raw *d, const struct perf_event_header *h)
{
	uint64_t type, id;
	size_t len;
	int idx;
	char *name;

	if (h->size <= 24)
		return;
	memcpy(&type, (const char *)h + 8, 8);
	memcpy(&id, (const char *)h + 16, 8);
	idx = d->nr_attrs == 1 ? 0 : tally_data_reader__attr_of_id(d->rd, id);
	if (type != 2 || idx < 0 || !d->names)
		return;
	len = strnlen((const char *)h + 24, h->size - 24);
	if (!(name = strndup((const char *)h + 24, len)))
		return;
	free(d->names[idx]);
	d->names[idx] = name;
}

const char *dump_raw_event_name(const struct dump_raw *d, int idx)
{
	return d && d->names && idx >= 0 && idx < d->nr_attrs ? d->names[idx] : NULL;
}

/* dump_event up to the record's name: where, the bytes, when */
FILE *dump_head(struct dump_raw *d, const struct perf_event_header *h, uint64_t off,
		bool sample, uint32_t cpu, uint64_t time)
{
	FILE *f = out(d);

	fprintf(f, "\n%#" PRIx64 "@%s [%#x]: event: %u\n", off, d->label, h->size, h->type);
	hex_dump(f, (const unsigned char *)h, h->size);
	tstamp(d, f, sample, cpu, time);
	fprintf(f, "%#" PRIx64 " [%#x]: PERF_RECORD_%s", off, h->size, type_name(h->type));
	return f;
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
	bool is_out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
	const char *io = !is_out ? "IN         " :
			 !(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ? "OUT        " :
			 "OUT preempt";

	if (h->type == PERF_RECORD_SWITCH) {
		fprintf(f, " %s\n", io);
		return;
	}
	fprintf(f, " %s  %s pid/tid: %5d/%-5d\n", io, is_out ? "next" : "prev",
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
	static const uint64_t bit[] = { PERF_FORMAT_TOTAL_TIME_ENABLED, PERF_FORMAT_TOTAL_TIME_RUNNING,
					PERF_FORMAT_ID, PERF_FORMAT_LOST };

	memcpy(v, (const char *)h + 16, (n < 5 ? n : 5) * 8);
	fprintf(f, ": %d %d %s %" PRIu64 "\n", (int)r->u.read.pid, (int)r->u.read.tid,
		dump_raw_event_name(d, idx) ? dump_raw_event_name(d, idx) :
		tally_session__event_name(d->ss, idx), v[0]);
	for (int k = 0; k < 4; k++)
		if (rf & bit[k])
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
	struct tally_session_sample one;
	int to[64], n = dump_sample(d, ts, to, 64), rc = 0;

	if (!d->sample)
		return 0;
	/* script prints a sample once, as it does without -D (its lines for a group differ) */
	if (d->tool == DUMP_RAW_SCRIPT)
		return d->sample(ss, ts, d->ctx);
	/* report's histogram takes each delivery, under its event */
	for (int i = 0; i < n && !rc; i++) {
		one = *ts;
		one.attr = to[i];
		one.event = attr_at(d, to[i]);
		rc = d->sample(ss, &one, d->ctx);
	}
	return rc;
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
	/* perf takes them after showing their record */
	if (h->type == TALLY_RECORD_HEADER_ATTR)
		attr_added(d);
	else if (h->type == TALLY_RECORD_EVENT_UPDATE)
		name_update(d, h);
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
	d->names = calloc((size_t)d->nr_attrs + 1, sizeof(*d->names));
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
	for (int i = 0; d->names && i < d->nr_attrs; i++)
		free(d->names[i]);
	free(d->names);
	free(d->last);
	free(d->pend);
	free(d);
}
