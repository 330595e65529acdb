// SPDX-License-Identifier: MIT
/*
 * tally script: perf script's default text from a perf.data file (the
 * shared session layer reads it in time order): comm, tid, [cpu], time,
 * period, event, then the ip with symbol+offset and DSO, the call chain
 * one frame a line, or a tracepoint's fields.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"
#include "file_header.h"
#include "dump_raw.h"
#include "script.h"

static const struct field {
	const char *name;
	uint64_t bit;
	uint64_t needs;			/* sample_type bit, when the user asks for it */
	const char *needs_name;
} fields[] = {
	{ "comm", F_COMM, PERF_SAMPLE_TID, "TID" },
	{ "tid", F_TID, PERF_SAMPLE_TID, "TID" },
	{ "pid", F_PID, PERF_SAMPLE_TID, "TID" },
	{ "cpu", F_CPU, PERF_SAMPLE_CPU, "CPU" },
	{ "time", F_TIME, PERF_SAMPLE_TIME, "TIME" },
	{ "period", F_PERIOD, 0, NULL },
	{ "event", F_EVENT, 0, NULL },
	{ "trace", F_TRACE, PERF_SAMPLE_RAW, "RAW" },
	{ "ip", F_IP, PERF_SAMPLE_IP, "IP" },
	{ "sym", F_SYM, PERF_SAMPLE_IP, "IP" },
	{ "symoff", F_SYMOFF, PERF_SAMPLE_IP, "IP" },
	{ "srcline", F_SRCLINE, PERF_SAMPLE_IP, "IP" },
	{ "srccode", F_SRCCODE, PERF_SAMPLE_IP, "IP" },
	{ "tod", F_TOD, 0, NULL },
	{ "dso", F_DSO, PERF_SAMPLE_IP, "IP" },
	{ "bpf-output", F_BPF_OUTPUT, 0, NULL },
	{ "addr", F_ADDR, PERF_SAMPLE_ADDR, "ADDR" },
	{ "data_src", F_DATA_SRC, PERF_SAMPLE_DATA_SRC, "DATA_SRC" },
	{ "weight", F_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT" },
	{ "ins_lat", F_INS_LAT, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" },
	{ "cgroup", F_CGROUP, PERF_SAMPLE_CGROUP, "CGROUP" },	/* tally's: not in perf 6.1 */
	{ "iregs", F_IREGS, PERF_SAMPLE_REGS_INTR, "IREGS" },
	{ "uregs", F_UREGS, PERF_SAMPLE_REGS_USER, "UREGS" },
	{ "brstack", F_BRSTACK, 0, NULL },
	{ "brstacksym", F_BRSTACKSYM, 0, NULL },
	{ "brstackoff", F_BRSTACKOFF, 0, NULL },
	{ "phys_addr", F_PHYS_ADDR, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" },
	{ "data_page_size", F_DATA_PAGE_SIZE, PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ "code_page_size", F_CODE_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	{ "misc", F_MISC, 0, NULL },
	{ "flags", F_FLAGS, 0, NULL },
	{ "insn", F_INSN, 0, NULL },
	{ "insnlen", F_INSNLEN, 0, NULL },
	{ "brstackinsn", F_BRSTACKINSN, 0, NULL },
	{ "brstackinsnlen", F_BRSTACKINSN, 0, NULL },
	{ "callindent", F_TRACE_ONLY, 0, NULL },
	{ "ipc", F_TRACE_ONLY, 0, NULL },
	{ "synth", F_TRACE_ONLY, 0, NULL },
	{ "metric", F_TRACE_ONLY, 0, NULL },	/* perf's stat metrics of a sample read: none */
};

#define FIELD_NAMES "comm,tid,pid,cpu,time,period,event,trace,ip,sym,symoff,srcline,srccode,tod," \
	"dso,addr,data_src," \
	"weight,ins_lat,cgroup,iregs,uregs,brstack,brstacksym,brstackoff,phys_addr," \
	"data_page_size,code_page_size,misc,flags,insn,insnlen,brstackinsn,brstackinsnlen,callindent," \
	"ipc,synth,metric,bpf-output"

/* -F's event classes, as perf names them */
static const char *const type_names[T__NR] = { "hw", "sw", "trace", "raw", "break" };

#define DEFAULT_FIELDS (F_COMM | F_TID | F_CPU | F_TIME | F_PERIOD | F_EVENT | F_IP | F_SYM | \
			F_SYMOFF | F_DSO)
/* a software event's: a BPF-output event's data too (record --off-cpu's) */
#define DEFAULT_SW_FIELDS (DEFAULT_FIELDS | F_BPF_OUTPUT)
#define DEFAULT_TP_FIELDS (F_COMM | F_TID | F_CPU | F_TIME | F_EVENT | F_TRACE)
/* a raw event's (a PMU's memory events): its data fields too */
#define DEFAULT_RAW_FIELDS (DEFAULT_FIELDS | F_ADDR | F_DATA_SRC | F_WEIGHT | F_PHYS_ADDR | \
			    F_DATA_PAGE_SIZE | F_CODE_PAGE_SIZE | F_INS_LAT)

static void make_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
		       enum tally_cpumode mode, int chain, uint64_t opts);
/* a frame's srcline line, in the frame cache's 16 bits of options (comm's bit: no frame has it) */
#define FRAME_SRCLINE F_COMM

/*
 * One frame: "\t" in a chain, the address, then sym+off and (dso) as opts
 * say. chain: 0 the sample's ip, 1 a chain frame, 2 one DWARF unwinding found.
 */
static inline struct fc_ent *fc_slot(struct script_ctx *s, const struct tally_sample *smp,
				     uint64_t ip, enum tally_cpumode mode, int chain)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)smp->pid << 7) ^ ((uint64_t)mode << 3) ^
		      (uint64_t)chain) *
		     0x9e3779b97f4a7c15ULL;

	return &s->fc[(h >> 40) & (FC_SLOTS - 1)];
}

void script_print_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, int chain, uint64_t opts)
{
	struct fc_ent *e = s->fc ? fc_slot(s, smp, ip, mode, chain) : NULL;
	size_t before = s->len;
	uint64_t flushes = s->flushes;

	if (s->deferring && script_defer_frame(s, smp, ip, mode, chain, opts))
		return;		/* a kernel frame: made once kallsyms is read */
	/* the cache's 16 bits: sym, symoff and dso's, srcline's as FRAME_SRCLINE */
	opts = (opts & (F_SYM | F_SYMOFF | F_DSO)) | ((opts & F_SRCLINE) ? FRAME_SRCLINE : 0);
	if (e && e->len && e->ip == ip && e->pid == (int32_t)smp->pid && e->mode == mode &&
	    e->chain == chain && e->opts == opts && e->gen == s->gen) {
		ob_mem(s, s->fc_text + e->off, e->len);
		return;
	}
	make_frame(s, smp, ip, mode, chain, opts);
	if (!e || flushes != s->flushes || s->len - before > UINT16_MAX)
		return;
	if (s->fc_used + (s->len - before) > FC_TEXT) {	/* full: start over */
		memset(s->fc, 0, FC_SLOTS * sizeof(*s->fc));
		s->fc_used = 0;
	}
	memcpy(s->fc_text + s->fc_used, s->buf + before, s->len - before);
	*e = (struct fc_ent){ .ip = ip, .gen = s->gen, .pid = (int32_t)smp->pid,
			      .mode = (uint8_t)mode, .chain = (uint8_t)chain, .opts = (uint16_t)opts,
			      .len = (uint16_t)(s->len - before), .off = (uint32_t)s->fc_used };
	s->fc_used += s->len - before;
}

/*
 * The address, then sym+off and (dso) as opts say, for one chain line;
 * its srcline (a DWARF-unwound frame's, chain 2: ln, or perf's node line)
 */
static void frame_text(struct script_ctx *s, const struct tally_addr_info *ai, bool found,
		       uint64_t ip, int chain, uint64_t opts, const char *name, bool inlined,
		       const struct tally_srcline *ln)
{
	/*
	 * in a chain perf prints the DSO-relative address, else the ip itself;
	 * a kernel DSO's (a KSYMBOL map's map_ip is an offset) is the ip
	 */
	uint64_t shown = chain && ai->map && !ai->map->ksym ? ai->map_ip : ip;

	if (chain)
		ob_chr(s, '\t');
	ob_num(s, shown, 16, 16, ' ');
	if (opts & F_SYM) {
		ob_chr(s, ' ');
		if (found) {
			ob_str(s, name);
			if (opts & F_SYMOFF) {
				ob_str(s, "+0x");
				ob_num(s, ai->sym_off, 16, 0, '0');
			}
		} else {
			ob_str(s, "[unknown]");
		}
	}
	/* an inlined function's line names no DSO: " (inlined)" instead, as perf */
	if ((opts & F_DSO) && !inlined) {
		ob_str(s, " (");
		ob_str(s, ai->map ? (ai->map->kernel &&
				     !strncmp(ai->map->filename, "[kernel.kallsyms]", 17) ?
				     "[kernel.kallsyms]" : ai->map->filename) : "[unknown]");
		ob_chr(s, ')');
	}
	/* perf's node lines where it lists inline frames (not under --no-inline) */
	if ((opts & FRAME_SRCLINE) && chain == 2 && !s->no_inline)
		script_print_node_srcline(s, ai, ln);
	else if (opts & FRAME_SRCLINE)
		script_print_srcline(s, ai);
	if (inlined)	/* after the srcline, as perf's */
		ob_str(s, " (inlined)");
	ob_chr(s, '\n');
}

static void make_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
		       enum tally_cpumode mode, int chain, uint64_t opts)
{
	struct tally_addr_info ai;
	bool found = !tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid,
					     (int32_t)smp->tid, ip, mode, &ai);
	const char *names[INL_MAX];
	struct tally_srcline lines[INL_MAX];
	int n, nl;

	/*
	 * perf's --inline: a frame DWARF unwinding found, in code with DWARF,
	 * is each function there, innermost first (perf 6.1 does not look at
	 * frame-pointer chains); a name other than the symbol's is shown
	 * "(inlined)", even for the outermost (perf's addr2line naming).
	 * At the ELF address, as perf asks addr2line (resolve.c).
	 */
	if (chain == 2 && found && !s->no_inline && ai.dso && ai.map && !ai.map->kernel &&
	    (n = tally_dso__inline_funcs(ai.dso, ai.vaddr, names, INL_MAX)) > 0) {
		/* each function's line: the address's, then each call site (perf's inline list) */
		nl = (opts & FRAME_SRCLINE) ? tally_dso__srcline_inlines(ai.dso, ai.vaddr, lines,
									 INL_MAX) : 0;
		for (int i = 0; i < n; i++) {
			bool inl = strcmp(names[i], ai.sym->name) != 0;

			frame_text(s, &ai, found, ip, chain, opts, inl ? names[i] : ai.sym->name, inl,
				   i < nl ? &lines[i] : NULL);
		}
		return;
	}
	frame_text(s, &ai, found, ip, chain, opts, found ? ai.sym->name : NULL, false, NULL);
}

/*
 * A BPF-output event's data (none in offcpu-time's samples): perf prints
 * it after the rest, and a line end even when there is none.
 */
static int end_sample(struct script_ctx *s, const struct tally_session_sample *ts, uint64_t f)
{
	const struct perf_event_attr *a = ts->event;

	if ((f & F_BPF_OUTPUT) && a->type == PERF_TYPE_SOFTWARE &&
	    a->config == PERF_COUNT_SW_BPF_OUTPUT)
		ob_chr(s, '\n');
	if (f & F_SRCCODE)	/* the sample's own line of source, after its line */
		script_print_srccode(s, ts->sample, ts->mode);
	return 0;
}

/*
 * perf's perf_sample__fprintf_start: comm (unpadded when a chain follows),
 * pid/tid, [cpu], misc, tod, time; a sample's and a side-band record's
 */
void script_print_start(struct script_ctx *s, uint64_t f, const char *comm, bool chain,
			int32_t pid, int32_t tid, uint32_t cpu, uint16_t misc, uint64_t time)
{
	uint64_t who = f & (F_COMM | F_PID | F_TID);
	const char *c = comm ? comm : ":-1";
	struct start_memo *pm = &s->start_memo;
	size_t before = s->len;
	uint64_t flushes = s->flushes;

	/* a thread's samples come in runs: its "comm tid " made once per run */
	if (who && pm->len && pm->who == who && pm->chain == chain && pm->pid == pid &&
	    pm->tid == tid && !strcmp(pm->comm, c)) {
		ob_mem(s, pm->text, pm->len);
		who = 0;
	}
	if (who & F_COMM) {
		/* padded unless a call chain follows on lines of its own */
		ob_rstr(s, c, chain ? 0 : 16);
		ob_chr(s, ' ');
	}
	if (who & (F_PID | F_TID)) {
		/* perf's "%5d/%-5d " or "%5d " (snprintf was a fifth of script's time) */
		if ((f & F_PID) && (f & F_TID)) {
			ob_int(s, (int)pid, 5, false);
			ob_chr(s, '/');
			ob_int(s, (int)tid, 5, true);
		} else {
			ob_int(s, (int)((f & F_PID) ? pid : tid), 5, false);
		}
		ob_chr(s, ' ');
	}
	if (who && flushes == s->flushes && s->len - before <= sizeof(pm->text) &&
	    strlen(c) < sizeof(pm->comm)) {
		memcpy(pm->text, s->buf + before, s->len - before);
		pm->len = s->len - before;
		strcpy(pm->comm, c);
		pm->who = who;
		pm->chain = chain;
		pm->pid = pid;
		pm->tid = tid;
	}
	if (f & F_CPU) {
		ob_chr(s, '[');
		ob_num(s, cpu, 10, 3, '0');
		ob_str(s, "] ");
	}
	if (f & F_MISC)
		script_print_misc(s, misc);
	if (f & F_TOD)
		script_print_tod(s, time);
	if (f & F_TIME) {
		/* perf's arithmetic: a time before the first (a synthesized 0) wraps */
		if (s->reltime) {
			if (!s->time0)
				s->time0 = time;
			time -= s->time0;
		} else if (s->deltatime) {
			uint64_t t = s->time_prev ? time - s->time_prev : 0;

			s->time_prev = time;
			time = t;
		}
		ob_num(s, time / 1000000000ull, 10, 5, ' ');
		ob_chr(s, '.');
		if (s->ns)
			ob_num(s, time % 1000000000ull, 10, 9, '0');
		else
			ob_num(s, time % 1000000000ull / 1000, 10, 6, '0');
		ob_str(s, ": ");
	}
}

/*
 * The frame cache's slots of a chain's frames asked for before its lines
 * are made, and the text of those found: a 2 MiB table and its 8 MiB of
 * text probed at random, each frame's lookup was a miss to memory (a
 * fifth of script's time on a compiler's recording).
 */
static void prefetch_chain(struct script_ctx *s, const struct tally_sample *smp,
			   enum tally_cpumode mode)
{
	uint64_t n = smp->callchain.nr < 64 ? smp->callchain.nr : 64;
	struct fc_ent *slot[64];
	int chain = 1, m = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = TALLY_CPUMODE_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = TALLY_CPUMODE_USER;
			else if (ip == TALLY_CONTEXT_UNWOUND)
				mode = TALLY_CPUMODE_USER, chain = 2;
			continue;
		}
		slot[m] = fc_slot(s, smp, ip, mode, chain);
		__builtin_prefetch(slot[m++]);
	}
	for (int i = 0; i < m; i++)
		if (slot[i]->len && slot[i]->gen == s->gen)
			__builtin_prefetch(s->fc_text + slot[i]->off);
}

/*
 * perf drops a chain whose walk meets a context value it does not know
 * (garbage): its walk stops after --max-stack frames, so what lies past
 * them drops nothing (tally_session__chain_corrupt's, within max)
 */
static bool corrupt_within(const struct tally_sample *smp, uint32_t max)
{
	uint32_t n = 0;

	for (uint64_t i = 0; i < smp->callchain.nr && n < max; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip < PERF_CONTEXT_MAX)
			n++;
		else if (ip != PERF_CONTEXT_HV && ip != PERF_CONTEXT_KERNEL &&
			 ip != PERF_CONTEXT_USER && ip != TALLY_CONTEXT_UNWOUND)
			return true;
	}
	return false;
}

/* An -S entry that is an address (perf's: all of it hex, "0x" or not): that one, or UINT64_MAX. */
static uint64_t list_addr(const char *p, size_t l)
{
	char buf[32], *end;
	uint64_t a;

	if (!l || l >= sizeof(buf))
		return UINT64_MAX;
	memcpy(buf, p, l);
	buf[l] = '\0';
	errno = 0;
	a = strtoull(buf, &end, 16);
	return errno || end == buf || *end ? UINT64_MAX : a;
}

/*
 * perf script's -S and --dsos (machine__resolve's filters): the sample's
 * own address in a listed shared object (its file's name or path), and
 * in a listed symbol by name; an entry that reads as a hex number
 * (perf's test: "add" is one) is an address, the sampled one.
 */
static bool where_wanted(struct script_ctx *s, const struct tally_sample *smp, enum tally_cpumode mode)
{
	struct tally_addr_info ai;

	tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode, &ai);
	if (s->dsos) {
		const char *path = ai.map ? script_dso_name(&ai) : NULL, *b;

		if (!path)
			return false;
		b = strrchr(path, '/');
		if (!session_in_list(s->dsos, b ? b + 1 : path) && !session_in_list(s->dsos, path))
			return false;
	}
	if (!s->symbols)
		return true;
	for (const char *p = s->symbols; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		uint64_t a = list_addr(p, l);

		/* an address entry is the sampled address (perf moves it off the names) */
		if (a != UINT64_MAX ? ai.map && a == smp->ip :
		    ai.sym && strlen(ai.sym->name) == l && !strncmp(ai.sym->name, p, l))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* --per-event-dump: what follows goes to event idx's file (the line so far to the last one's) */
static void dump_to(struct script_ctx *s, int idx)
{
	s->dump_samples[idx]++;
	if (s->dump_cur == idx)
		return;
	ob_flush(s);
	s->out = s->dump[idx];
	s->dump_cur = idx;
}

/*
 * The files of --per-event-dump, perf's names (INPUT.EVENT.dump), each
 * opened before the first sample: 0, or 1 after saying which failed
 */
static int dump_open(struct script_ctx *s, const char *input, int n)
{
	if (!(s->dump = calloc((size_t)n, sizeof(*s->dump))) ||
	    !(s->dump_samples = calloc((size_t)n, sizeof(*s->dump_samples)))) {
		fprintf(stderr, "tally script: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s.%s.dump", input, s->names[i]);
		if (!(s->dump[i] = fopen(path, "w"))) {
			fprintf(stderr, "tally script: cannot write %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	/* side-band lines (--show-*-events) go to the first event's file */
	s->dump_cur = 0;
	s->out = s->dump[0];
	return 0;
}

/* The files closed, each said as perf says it: 0, or 1 where one could not be written. */
static int dump_close(struct script_ctx *s, const char *input, int n)
{
	int ret = 0;

	for (int i = 0; s->dump && i < n; i++) {
		char path[4096];
		long size;

		if (!s->dump[i])
			continue;
		snprintf(path, sizeof(path), "%s.%s.dump", input, s->names[i]);
		size = ftell(s->dump[i]);
		if (fclose(s->dump[i]) || size < 0) {
			fprintf(stderr, "tally script: writing %s: %s\n", path, strerror(errno));
			ret = 1;
			continue;
		}
		fprintf(stderr, "[ tally script: Wrote %.3f MB %s (%llu samples) ]\n",
			(double)size / 1048576.0, path, (unsigned long long)s->dump_samples[i]);
	}
	free(s->dump);
	free(s->dump_samples);
	s->dump = NULL;
	s->out = stdout;
	return ret;
}

static int print_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct script_ctx *s = arg;
	int idx = ts->attr;
	const struct perf_event_attr *a = ts->event;
	const struct tally_sample *smp = ts->sample;
	uint64_t f = s->attr_fields[idx];
	enum tally_cpumode mode = ts->mode;
	bool chain = (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !s->hide_cg;
	bool dropped = chain && corrupt_within(smp, (uint32_t)s->max_stack);	/* as perf: no frame line */
	bool tp = a->type == PERF_TYPE_TRACEPOINT;
	bool unwound = false;

	s->gen = tally_session__maps_gen(ss);	/* fixed during a sample */
	script_defer_poll(s);
	if (cli_sample_filter_skip(&s->sf, smp))
		return 0;
	/* nothing left to print for this event ('trace' of a software one): perf prints no line */
	if (!(tp ? f & ~F_FLAGS : f & ~(F_TRACE | F_FLAGS)))
		return 0;
	if ((s->pids && !session_in_id_list(s->pids, (int32_t)smp->pid)) ||
	    (s->tids && !session_in_id_list(s->tids, (int32_t)smp->tid)))
		return 0;
	if (s->comms) {
		const char *c = tally_machine__comm_of(s->m, (int32_t)smp->tid);

		if (!c || !session_in_list(s->comms, c))
			return 0;
	}
	if ((s->symbols || s->dsos) && !where_wanted(s, smp, mode))
		return 0;
	if (s->dump)
		dump_to(s, idx);
	/* perf's layout: comm, pid/tid, [cpu], time, period, event, then the rest */
	{
		const char *comm = (f & F_COMM) ? tally_machine__comm_of(s->m, (int32_t)smp->tid) : NULL;

		if ((f & F_COMM) && !comm)
			comm = tally_session__comm(ss, ts);	/* perf's ":TID" */
		script_print_start(s, f, comm, (f & F_IP) && chain, (int32_t)smp->pid, (int32_t)smp->tid,
			    smp->cpu, ts->header->misc, smp->time);
	}
	if (f & F_PERIOD) {
		/* without PERIOD in the samples, the attr's fixed one (as perf) */
		ob_num(s, (a->sample_type & PERF_SAMPLE_PERIOD) ? smp->period : a->sample_period,
		       10, 10, ' ');
		ob_chr(s, ' ');
	}
	if (f & F_EVENT) {
		ob_rstr(s, s->names[idx], s->name_width);
		ob_str(s, ": ");
	}
	/* perf's sample flags (branch kinds) come from hardware traces alone: none here */
	if (f & F_FLAGS)
		ob_str(s, "                        ");
	if ((f & F_TRACE) && tp) {
		char info[4096];

		struct tally_trace_fmt *tf = tally_session__trace_fmt(ss);

		if (tf && (a->sample_type & PERF_SAMPLE_RAW) && smp->raw.size &&
		    tally_trace_fmt__print(tf, smp->raw.data, smp->raw.size, info,
					   sizeof(info)) > 0)
			ob_str(s, info);
	}
	if (f & F_ADDR)
		script_print_addr(s, a, smp, mode, f);
	if (f & F_DATA_SRC)
		script_print_data_src(s, smp->data_src);
	if (f & F_WEIGHT)
		ob_num(s, (a->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) ? (uint32_t)smp->weight :
		       smp->weight, 10, 16, ' ');
	if (f & F_INS_LAT)
		ob_num(s, (uint16_t)(smp->weight >> 32), 10, 16, ' ');
	if (f & F_CGROUP) {
		ob_chr(s, ' ');
		ob_str(s, script_cgroups_name(&s->cgroups, smp->cgroup));
	}
	if (!(f & F_IP)) {
		script_print_tail(s, smp, mode, f);
		ob_chr(s, '\n');
		return end_sample(s, ts, f);
	}
	if (!chain) {
		ob_chr(s, ' ');
		script_print_frame(s, smp, smp->ip, mode, 0, f);
		if (f & F_TAIL) {
			s->len--;	/* the frame's line end: the tail goes before it */
			script_print_tail(s, smp, mode, f);
			ob_chr(s, '\n');
		}
		return end_sample(s, ts, f);
	}
	ob_chr(s, '\n');
	if (!dropped && s->fc)
		prefetch_chain(s, smp, mode);
	/*
	 * --max-stack: perf's cursor takes that many of the recorded chain's
	 * frames, and as many again of those DWARF unwinding found
	 */
	uint32_t shown = 0;

	for (uint64_t i = 0; !dropped && i < smp->callchain.nr; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL) {
				mode = TALLY_CPUMODE_KERNEL;
			} else if (ip == PERF_CONTEXT_USER) {
				mode = TALLY_CPUMODE_USER;
			} else if (ip == TALLY_CONTEXT_UNWOUND) {
				mode = TALLY_CPUMODE_USER;
				unwound = true;
				shown = 0;
			}
			continue;
		}
		if (shown++ >= (uint32_t)s->max_stack)
			continue;
		script_print_frame(s, smp, ip, mode, unwound ? 2 : 1, f);
	}
	script_print_tail(s, smp, mode, f);
	ob_chr(s, '\n');
	return end_sample(s, ts, f);
}


/* Kernel frames kept for later are made before the kernel's maps change (none kept: go on) */
static void kernel_maps(struct tally_session *ss, const struct perf_event_header *h, void *arg)
{
	struct script_ctx *s = arg;

	(void)ss;
	(void)h;
	if (s->ndfr)
		script_defer_end(s);
}

/* The file's CGROUP records name the samples' cgroup ids */
static int on_record(struct tally_session *ss, const struct perf_event_header *h,
		     const struct tally_record *rec, void *arg)
{
	struct script_ctx *s = arg;

	(void)ss;
	if (h->type == PERF_RECORD_CGROUP && rec)
		script_cgroups_add(&s->cgroups, rec->u.cgroup.id, rec->u.cgroup.path);
	if (rec && s->attr_fields)
		script_print_event(s, h, rec);
	return 0;
}

static int type_class(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		return T_HW;
	case PERF_TYPE_SOFTWARE:
		return T_SW;
	case PERF_TYPE_TRACEPOINT:
		return T_TRACE;
	case PERF_TYPE_BREAKPOINT:
		return T_BREAK;
	default:
		return T_RAW;
	}
}

/*
 * -F [TYPE:]FIELD,...: the fields for every class, or one; "+f"/"-f"
 * items change the default set instead of replacing it (not both).
 * 0, or -1 after saying why.
 */
static int parse_fields(struct script_ctx *s, const char *spec)
{
	char *dup = strdup(spec), *list, *tok, *save = NULL;
	int type = -1, plus = 0, plain = 0;
	uint64_t set = 0, add = 0, del = 0;
	char *colon;

	if (!dup)
		return -1;
	list = dup;
	colon = strchr(dup, ':');
	if (colon) {
		*colon = '\0';
		for (type = 0; type < T__NR && strcmp(type_names[type], dup); type++)
			;
		if (type == T__NR) {
			fprintf(stderr, "tally script: -F '%s': unknown event type '%s' (hw, sw, trace, raw, break)\n",
				spec, dup);
			free(dup);
			return -1;
		}
		list = colon + 1;
	}
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char sign = *tok == '+' || *tok == '-' ? *tok : 0;
		const char *name = sign ? tok + 1 : tok;
		size_t i;

		for (i = 0; i < sizeof(fields) / sizeof(fields[0]) && strcmp(fields[i].name, name); i++)
			;
		if (i == sizeof(fields) / sizeof(fields[0])) {
			fprintf(stderr, "tally script: -F '%s': unknown field '%s' (%s)\n", spec, name,
				FIELD_NAMES);
			free(dup);
			return -1;
		}
		if (!strcmp(name, "brstackinsnlen") && sign != '-')
			s->brinsn_len = true;
		if (!strcmp(name, "brstackinsnlen") && sign == '-') {
			s->brinsn_len = false;	/* its lengths gone, not brstackinsn */
			plus++;
			continue;
		}
		if (sign == '+')
			add |= fields[i].bit, plus++;
		else if (sign == '-')
			del |= fields[i].bit, plus++;
		else
			set |= fields[i].bit, plain++;
	}
	free(dup);
	/* brstackinsnlen is a field of its own in perf: -brstackinsn leaves it */
	if (s->brinsn_len) {
		set |= plain ? F_BRSTACKINSN : 0;
		add |= plus ? F_BRSTACKINSN : 0;
		del &= ~(uint64_t)F_BRSTACKINSN;
	}
	if (plus && plain) {
		fprintf(stderr, "tally script: -F '%s': +field and -field change the default fields; "
			"they do not mix with a list that replaces them\n", spec);
		return -1;
	}
	for (int t = 0; t < T__NR; t++) {
		uint64_t def = t == T_TRACE ? DEFAULT_TP_FIELDS :
			       t == T_SW ? DEFAULT_SW_FIELDS : t == T_RAW ? DEFAULT_RAW_FIELDS :
			       DEFAULT_FIELDS;

		if (type >= 0 && t != type)
			continue;
		s->type_fields[t] = plain ? set : (def | add) & ~del;
		s->strict[t] = plain ? set : add;
		s->user_set[t] = true;
	}
	return 0;
}

/*
 * Each attr's fields: what -F asked must be in its samples (an error
 * otherwise, as perf); a default field the samples lack is left out.
 */
static int attr_fields(struct script_ctx *s)
{
	struct tally_session *ss = s->ss;
	struct tally_data_reader *rd = tally_session__reader(ss);
	int nr = tally_session__nr_events(ss);

	s->attr_fields = calloc((size_t)nr + 1, sizeof(*s->attr_fields));
	s->names = calloc((size_t)nr + 1, sizeof(*s->names));
	if (!s->attr_fields || !s->names)
		return -1;
	uint64_t tp_default = DEFAULT_TP_FIELDS;

	/* perf: when a tracepoint has call chains, tracepoints show them (not under -G) */
	for (int i = 0; !s->hide_cg && i < nr; i++) {
		const struct perf_event_attr *a = tally_data_reader__attr(rd, i);

		if (a->type == PERF_TYPE_TRACEPOINT && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
			tp_default |= F_IP | F_SYM | F_SYMOFF | F_DSO;
	}
	for (int i = 0; i < nr; i++) {
		const struct perf_event_attr *a = tally_data_reader__attr(rd, i);
		int t = type_class(a);
		int w = (int)strlen(s->names[i] = tally_session__event_name(ss, i));

		if (w > s->name_width)
			s->name_width = w;
		uint64_t f = s->user_set[t] ? s->type_fields[t] :
			     t == T_TRACE ? tp_default : t == T_SW ? DEFAULT_SW_FIELDS :
			     t == T_RAW ? DEFAULT_RAW_FIELDS : DEFAULT_FIELDS;

		/* perf's words, and its exit status */
		if ((f & F_BRSTACKINSN) && !(a->branch_sample_type & PERF_SAMPLE_BRANCH_ANY)) {
			fprintf(stderr, "Display of branch stack assembler requested, but non all-branch filter set\n"
				"Hint: run 'perf record -b ...'\n");
			return -2;
		}
		if ((f & (F_SRCLINE | F_SRCCODE)) && !(f & F_IP)) {
			fprintf(stderr, "Display of source line number requested but sample IP is not\n"
				"selected. Hence, no address to lookup the source line number.\n");
			return -2;
		}
		/* perf's words (its missing space too), and its exit status */
		if ((f & F_SYMOFF) && !(f & F_SYM)) {
			fprintf(stderr, "Display of offsets requested but symbol is notselected.\n");
			return -2;
		}
		for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
			if (!(f & fields[k].bit) || !fields[k].needs ||
			    (a->sample_type & fields[k].needs))
				continue;
			if (s->user_set[t] && (s->strict[t] & fields[k].bit) &&
			    !(t != T_TRACE && fields[k].bit == F_TRACE)) {
				fprintf(stderr, "tally script: samples for '%s' event do not have %s "
					"attribute set. Cannot print '%s' field.\n",
					tally_session__event_name(ss, i), fields[k].needs_name, fields[k].name);
				return -2;	/* perf's status: 255 */
			}
			f &= ~fields[k].bit;
		}
		s->attr_fields[i] = f;
	}
	return 0;
}

/* -D: the sample lines made so far go out before the next record's dump */
static void raw_flush(void *arg)
{
	ob_flush(arg);
}

static const char *const script_usage[] = {
	"tally script [-i FILE] [-F [TYPE:]FIELDS]",
	"",
	"Print the samples of a perf.data file (tally's or perf's) as perf script does.",
	NULL,
};

int cmd_script(int argc, char **argv)
{
	static struct script_ctx s;
	const char *input = "perf.data", *fspec = NULL;
	bool help = false, header = false, header_only = false, force = false, show_info = false;
	bool per_event_dump = false, dump_raw = false;
	struct dump_raw *raw = NULL;
	bool demangle = true;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_STRING('F', "fields", &fspec, "[TYPE:]LIST",
			   FIELD_NAMES "; +f/-f change the defaults"),
		CLI_STRING(0, "symfs", &s.symfs, "DIR", "look for files with symbols relative to DIR"),
		CLI_BOOL_F(0, "demangle", &demangle, "C++ and Rust symbols demangled (default; --no-demangle: their linkage names)", CLI_OPT_NEG),
		CLI_STRING(0, "kallsyms", &s.kallsyms, "FILE", "the kernel's symbols from FILE (a copy of /proc/kallsyms)"),
		CLI_BOOL(0, "no-inline", &s.no_inline, "a chain frame is its symbol alone, not the functions inlined there"),
		CLI_BOOL('G', "hide-call-graph", &s.hide_cg, "the sampled address on the sample's line, no chain"),
		CLI_BOOL(0, "ns", &s.ns, "times to the nanosecond"),
		CLI_BOOL(0, "reltime", &s.reltime, "times since the first one shown"),
		CLI_INT(0, "max-stack", &s.max_stack, "N", "at most N frames of a call chain (default: kernel.perf_event_max_stack, as perf)", 0, INT_MAX),
		CLI_BOOL(0, "deltatime", &s.deltatime, "times since the one shown before"),
		CLI_BOOL(0, "show-namespace-events", &s.show_ns_events, "the NAMESPACES records too (record --namespaces)"),
		CLI_BOOL(0, "show-task-events", &s.show_task_events, "the COMM, FORK and EXIT records too"),
		CLI_BOOL(0, "show-mmap-events", &s.show_mmap_events, "the MMAP and MMAP2 records too"),
		CLI_BOOL(0, "show-switch-events", &s.show_switch_events, "the SWITCH records too (record --switch-events)"),
		CLI_BOOL(0, "show-lost-events", &s.show_lost_events, "the LOST records too"),
		CLI_BOOL(0, "show-bpf-events", &s.show_bpf_events, "the KSYMBOL and BPF_EVENT records too"),
		CLI_BOOL(0, "show-cgroup-events", &s.show_cgroup_events, "the CGROUP records too (record --all-cgroups)"),
		CLI_BOOL(0, "show-round-events", &s.show_round_events, "the FINISHED_ROUND records too, each before what it releases"),
		CLI_STRING('c', "comms", &s.comms, "LIST", "only the samples of these commands"),
		CLI_STRING('S', "symbols", &s.symbols, "LIST", "only the samples in these symbols (names, starts 0x..., or sampled addresses)"),
		CLI_STRING(0, "dsos", &s.dsos, "LIST", "only the samples in these shared objects"),
		CLI_STRING(0, "pid", &s.pids, "LIST", "only the samples of these processes"),
		CLI_STRING(0, "tid", &s.tids, "LIST", "only the samples of these threads"),
		CLI_STRING(0, "time", &s.time_str, "RANGES", "only samples in START,STOP (seconds; several: space-separated) or percents of the recording (10%/2, 0%-10%)"),
		CLI_STRING('C', "cpu", &s.cpu_list, "LIST", "only samples on these CPUs (0-3,7)"),
		CLI_BOOL(0, "header", &header, "the file's header first, as report --header"),
		CLI_BOOL(0, "header-only", &header_only, "the file's header alone"),
		CLI_BOOL(0, "per-event-dump", &per_event_dump, "each event's lines into INPUT.EVENT.dump, not stdout"),
		CLI_BOOL('D', "dump-raw-trace", &dump_raw, "every record in hex and decoded, each sample's lines after it (perf script -D)"),
		CLI_BOOL('I', "show-info", &show_info, "with --header: the topology, caches and memory in full"),
		CLI_BOOL('f', "force", &force, "perf's: read a file another user owns (tally always does)"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	struct tally_session *ss;
	int ret;

	s.max_stack = -1;	/* not given */
	if (cli_parse("script", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, script_usage, opts);
		return 0;
	}
	if (s.max_stack < 0)
		s.max_stack = cli_max_stack();
	if (s.reltime && s.deltatime) {
		fprintf(stderr, "tally script: --reltime and --deltatime: one or the other\n");
		return 129;
	}
	if (fspec && parse_fields(&s, fspec))
		return 129;
	if (dump_raw && !(raw = dump_raw_new(stdout, input, DUMP_RAW_SCRIPT)))
		return 1;
	pager_start();
	s.out = stdout;
	{
		/* the comm is looked up where a line shows it */
		TALLY_OPTS(tally_session_opts, so, .sample = print_sample, .record = on_record,
			   .round = s.show_round_events ? script_round : NULL,
			   .kernel_maps = kernel_maps, .ctx = &s,
			   .no_inline = s.no_inline, .no_comm = true, .symfs = s.symfs,
			   .kallsyms = s.kallsyms, .no_demangle = !demangle);

		if (raw) {
			dump_raw_attach(raw, &so);
			dump_raw_set_flush(raw, raw_flush, &s);
		}
		ss = cli_session_open("script", input, &so, &ret);
		if (ss && raw)
			dump_raw_begin(raw, ss);
	}
	ret = ss ? 0 : ret;
	if (ss) {
		/*
		 * after the open: from the heap it put on huge pages, so that
		 * the frames' random probes of these 10 MB miss no TLB entry
		 */
		s.fc = calloc(FC_SLOTS, sizeof(*s.fc));
		s.fc_text = malloc(FC_TEXT);
		if (!s.fc_text) {	/* no cache then: every frame made anew */
			free(s.fc);
			s.fc = NULL;
		}
		s.ss = ss;
		s.m = tally_session__machine(ss);
		s.syms = tally_session__symbols(ss);
		if (header || header_only)
			print_file_header_part(stdout, tally_session__reader(ss), input, !header_only,
					       show_info);
	}
	if (!ret && !header_only) {
		int e = attr_fields(&s);

		ret = e == -2 ? 255 : e ? 1 : 0;
	}
	if (!ret && !header_only)
		ret = cli_sample_filter_init(&s.sf, "script", ss, s.time_str, s.cpu_list);
	if (!ret && !header_only) {
		bool tod = false;

		for (int t = 0; t < T__NR; t++)
			tod |= (s.type_fields[t] & F_TOD) != 0;
		if (script_clock_init(&s, tod))
			ret = 255;	/* perf's -1 */
	}
	if (!ret && !header_only) {
		int err, dump_err = 0;
		/* perf's INPUT.EVENT.dump: the -i name, perf.data by default */
		const char *dump_in = input ? input : "perf.data";

		script_defer_start(&s);
		/* a filter asks for the kernel's symbols at once: no line kept for them */
		if (s.symbols || s.dsos)
			s.deferring = false;
		/* -D: each sample's lines right after its record's */
		if (raw)
			s.deferring = false;
		/* a file per event: no kept text to interleave (kernel frames wait for kallsyms) */
		if (per_event_dump) {
			s.deferring = false;
			dump_err = dump_open(&s, dump_in, tally_session__nr_events(ss));
		}
		err = dump_err ? 0 : tally_session__run(ss);
		/*
		 * the kept lines (a first run's, waiting for kallsyms) before the
		 * file's complaint: the same bytes in the same order as a run
		 * that waited
		 */
		script_defer_end(&s);
		ob_flush(&s);
		ret = dump_err ? 1 : cli_session_end(ss, "script", input, err);
		if (per_event_dump && dump_close(&s, dump_in, tally_session__nr_events(ss)))
			ret = ret ? ret : 1;
	}
	script_defer_end(&s);
	ob_flush(&s);
	tally_session__close(ss);
	free(s.fc);
	free(s.fc_text);
	free(s.bc);
	free(s.attr_fields);
	free(s.names);
	script_cgroups_free(&s.cgroups);
	cli_sample_filter_free(&s.sf);
	script_print_release(&s);
	script_src_release(&s);
	dump_raw_free(raw);
	return ret;
}
