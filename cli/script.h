/* SPDX-License-Identifier: MIT */
/*
 * tally script's files share this: the fields, the state of a run and
 * the line buffer it writes through.
 *   cmd_script.c    the command: options, -F, each sample's line and frames
 *   script_print.c  the PMU's fields on a line (data address and source,
 *                   weights, registers, branch stacks, instructions)
 *   script_fields.c their texts as perf 6.1 writes them; cgroup names
 *   script_brinsn.c brstackinsn: the instructions between the branches
 *   script_src.c    srcline, srccode, tod, NAMESPACES records
 */
#ifndef TALLY_CLI_SCRIPT_H
#define TALLY_CLI_SCRIPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tally/tally.h>
#include "script_fields.h"
#include "sample_filter.h"

/* perf script's -F fields, printed in this order whatever the list's */
enum {
	F_COMM = 1 << 0, F_TID = 1 << 1, F_PID = 1 << 2, F_CPU = 1 << 3, F_TIME = 1 << 4,
	F_PERIOD = 1 << 5, F_EVENT = 1 << 6, F_TRACE = 1 << 7, F_IP = 1 << 8, F_SYM = 1 << 9,
	F_SYMOFF = 1 << 10, F_DSO = 1 << 11, F_BPF_OUTPUT = 1 << 12, F_ADDR = 1 << 13,
	F_DATA_SRC = 1 << 14, F_WEIGHT = 1 << 15, F_INS_LAT = 1 << 16, F_CGROUP = 1 << 17,
	F_IREGS = 1 << 18, F_UREGS = 1 << 19, F_BRSTACK = 1 << 20, F_BRSTACKSYM = 1 << 21,
	F_BRSTACKOFF = 1 << 22, F_PHYS_ADDR = 1 << 23, F_DATA_PAGE_SIZE = 1 << 24,
	F_CODE_PAGE_SIZE = 1 << 25, F_MISC = 1 << 26, F_FLAGS = 1 << 27, F_INSN = 1 << 28,
	F_INSNLEN = 1 << 29,
	/* perf's fields of hardware traces (BTS, PT) and synthesized events: blank here */
	F_TRACE_ONLY = 1 << 30,
	F_BRSTACKINSN = 1u << 31,	/* and brstackinsnlen (script_ctx.brinsn_len) */
};
/* past an int's bits: the field masks are uint64_t */
#define F_TOD (1ull << 32)
#define F_SRCLINE (1ull << 33)
#define F_SRCCODE (1ull << 34)
#define F_BRANCHES (F_BRSTACK | F_BRSTACKSYM | F_BRSTACKOFF)
/* what is printed after the sample's address (or the chain) */
#define F_TAIL (F_IREGS | F_UREGS | F_BRANCHES | F_PHYS_ADDR | F_DATA_PAGE_SIZE | \
		F_CODE_PAGE_SIZE | F_INSN | F_INSNLEN | F_BRSTACKINSN)

/* -F's event classes (perf's hw, sw, trace, raw, break) */
enum { T_HW, T_SW, T_TRACE, T_RAW, T_BREAK, T__NR };

struct script_ctx {
	struct tally_session *ss;
	struct tally_machine *m;
	struct tally_symbols *syms;
	uint64_t gen;			/* the maps' generation at this sample (frame cache key) */
	const char **names;		/* per attr: the event's name */
	int name_width;			/* the longest of them */
	uint64_t type_fields[T__NR];	/* what -F asked for each class */
	uint64_t strict[T__NR];		/* of those, the ones named (the samples must have them) */
	bool user_set[T__NR];
	uint64_t *attr_fields;		/* what each attr prints */
	bool hide_cg;			/* -G: the sampled ip on the line, no chain */
	bool ns;			/* --ns: the time to the nanosecond */
	bool reltime, deltatime;	/* --reltime, --deltatime */
	int max_stack;			/* --max-stack: a chain's frames shown */
	uint64_t time0, time_prev;	/* their first time, the last one shown */
	const char *comms, *pids, *tids;	/* -c, --pid, --tid: only these */
	const char *symbols, *dsos;		/* -S, --dsos: only the samples there */
	const char *time_str, *cpu_list;	/* --time, -C */
	struct cli_sample_filter sf;
	FILE *out;
	/* lines are built here by hand: printf was most of the time */
	char buf[1 << 16];
	size_t len;
	uint64_t flushes;
	/*
	 * Frame lines already made, by (pid, ip, level, chain) while the maps
	 * stay as they were: a profile repeats a few thousand frames.
	 */
	struct fc_ent {
		uint64_t ip, gen;
		int32_t pid;
		uint8_t mode, chain;
		uint16_t opts, len;
		uint32_t off;
	} *fc;
	char *fc_text;
	size_t fc_used;
	struct start_memo {		/* the last "comm tid " made (print_start) */
		char text[96], comm[32];
		size_t len;		/* 0: none */
		uint64_t who;
		bool chain;
		int32_t pid, tid;
	} start_memo;
	bool no_inline;			/* --no-inline */
	const char *symfs;		/* --symfs */
	const char *kallsyms;		/* --kallsyms */
	struct script_cgroups cgroups;	/* the file's CGROUP records: id -> path */
	struct tally_symbols *dsyms;	/* with data objects: a page fault's address */
	/*
	 * Branch ends' text, by (pid, address, level, fields) while the maps
	 * stay as they were: 32-entry stacks show the same few thousand ends
	 * again and again (len 0: an empty slot).
	 */
	struct bc_ent {
		uint64_t a, gen, f;
		int32_t pid;
		uint8_t mode, len;
		char text[98];
	} *bc;
	struct tally_disasm *dis;	/* insn, insnlen: an instruction's length */
	struct code_ent {		/* their files, opened once each */
		char *path;
		int fd;
	} code[64];
	struct {			/* [vdso]'s code: the image record kept (build-id cache) */
		const struct tally_dso *dso;
		char *path;		/* NULL: none kept */
	} vdso;
	int mem_width;			/* perf pads data_src to the widest so far */
	bool brinsn_len;		/* brstackinsnlen: each instruction's length too */
	/* --per-event-dump: a file per event (INPUT.EVENT.dump), its samples; -1: none yet */
	FILE **dump;
	uint64_t *dump_samples;
	int dump_cur;
	/* tod: the file's CLOCK_DATA (the events' clock at a wall-clock time) */
	bool clock_ok;
	uint64_t tod_ns, clockid_ns;
	bool show_ns_events;		/* --show-namespace-events */
	bool show_task_events, show_mmap_events;	/* --show-task-events, --show-mmap-events */
	bool show_switch_events, show_lost_events;	/* --show-switch-events, --show-lost-events */
	bool show_bpf_events, show_cgroup_events;	/* --show-bpf-events, --show-cgroup-events */
	bool show_round_events;		/* --show-round-events: each FINISHED_ROUND, where perf shows it */
	/* srccode: each thread's last line shown, the source files read */
	struct src_last { int32_t tid; char *file; int line; } *src_last;
	size_t nsrc_last;
	struct src_file { char *path, *text; size_t len; } src_files[32];
	int nsrc_files;
	/*
	 * While kallsyms is still read on its thread (a first run): the
	 * lines kept here, each kernel frame left out and noted where it
	 * goes, to be made once the symbols are there (script_defer.c)
	 */
	bool deferring;
	char *dtext;
	size_t dlen, dcap;
	struct dframe {
		size_t at;		/* where in dtext */
		uint64_t ip, opts;
		int32_t pid, tid;
		uint8_t mode, chain;
	} *dfr;
	size_t ndfr, cdfr;
};

/* perf's inline stack of a chain frame is a few deep; more is kept out */
#define INL_MAX 16

#define FC_SLOTS 65536
#define FC_TEXT (8u << 20)
#define BC_SLOTS 8192

/* script_defer.c: n bytes kept (the line buffer's, or p's) while deferring */
void script_defer_keep(struct script_ctx *s, const char *p, size_t n);

static inline void ob_flush(struct script_ctx *s)
{
	if (s->deferring)
		script_defer_keep(s, s->buf, s->len);
	else
		fwrite(s->buf, 1, s->len, s->out);
	s->len = 0;
	s->flushes++;
}

static inline void ob_mem(struct script_ctx *s, const char *p, size_t n)
{
	if (s->len + n > sizeof(s->buf)) {
		ob_flush(s);
		if (n > sizeof(s->buf)) {
			if (s->deferring)
				script_defer_keep(s, p, n);
			else
				fwrite(p, 1, n, s->out);
			return;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static inline void ob_str(struct script_ctx *s, const char *p)
{
	ob_mem(s, p, strlen(p));
}

static inline void ob_chr(struct script_ctx *s, char c)
{
	if (s->len == sizeof(s->buf))
		ob_flush(s);
	s->buf[s->len++] = c;
}

/* p right-aligned in width (printf's %*s) */
static inline void ob_rstr(struct script_ctx *s, const char *p, int width)
{
	int n = (int)strlen(p);

	for (; n < width; width--)
		ob_chr(s, ' ');
	ob_mem(s, p, (size_t)n);
}

/* v in base 10 or 16, right-aligned in width, padded with pad */
static inline void ob_num(struct script_ctx *s, unsigned long long v, int base, int width, char pad)
{
	char t[48];
	int n = 0, w = width > 24 ? 24 : width;

	/* constant bases: shifts and multiplies, not divisions */
	if (base == 16) {
		do {
			t[sizeof(t) - 1 - n++] = "0123456789abcdef"[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			t[sizeof(t) - 1 - n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	while (n < w)
		t[sizeof(t) - 1 - n++] = pad;
	ob_mem(s, t + sizeof(t) - n, (size_t)n);
}

/* v in base 10 as printf's %*d (left: %-*d): the pid/tid columns, hand-made as ob_num */
static inline void ob_int(struct script_ctx *s, int v, int width, bool left)
{
	char t[16];
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)(long long)v : (unsigned)v;
	int n = 0;

	do {
		t[sizeof(t) - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		t[sizeof(t) - 1 - n++] = '-';
	for (int w = n; !left && w < width; w++)
		ob_chr(s, ' ');
	ob_mem(s, t + sizeof(t) - n, (size_t)n);
	for (int w = n; left && w < width; w++)
		ob_chr(s, ' ');
}

/* One frame's line (cmd_script.c): chain 0 the sample's ip, 1 a chain frame, 2 an unwound one */
void script_print_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, int chain, uint64_t opts);

/* script_print.c: each prints its fields as perf script 6.1 does */
void script_print_addr(struct script_ctx *s, const struct perf_event_attr *a,
		       const struct tally_sample *smp, enum tally_cpumode mode, uint64_t f);
void script_print_data_src(struct script_ctx *s, uint64_t data_src);
/* After the address or chain: registers, branches, instruction, physical address, page sizes */
void script_print_tail(struct script_ctx *s, const struct tally_sample *smp,
		       enum tally_cpumode mode, uint64_t f);
void script_print_misc(struct script_ctx *s, uint16_t misc);
/* n bytes of path at off (its fd kept open): what read, -1 */
ssize_t script_read_at(struct script_ctx *s, const char *path, void *buf, size_t n, uint64_t off);
const char *script_code_file(struct script_ctx *s, const struct tally_addr_info *ai);
/* perf's name of the map of a resolved address: its file's path, "[kernel.kallsyms]", "[unknown]" */
const char *script_dso_name(const struct tally_addr_info *ai);

/* script_brinsn.c: brstackinsn's blocks after a newline (len_too: brstackinsnlen) */
void script_print_brstackinsn(struct script_ctx *s, const struct tally_sample *smp, bool len_too);
/* Whether a disassembled instruction's text (tally/disasm.h's) jumps, as perf's arch_is_branch */
bool script_insn_is_branch(const char *text);

/* script_src.c: source lines, wall-clock times, NAMESPACES records */
/* The file's CLOCK_DATA read: 0, or -1 after perf's words where tod needs it */
int script_clock_init(struct script_ctx *s, bool need);
/* perf's tod: the time as the wall clock's "YYYY-MM-DD HH:MM:SS.uuuuuu" and a space */
void script_print_tod(struct script_ctx *s, uint64_t time);
/* perf's srcline of an address: "\n  file.c:12" ("\n  dso[addr]"), nothing where unknown */
void script_print_srcline(struct script_ctx *s, const struct tally_addr_info *ai);
/*
 * A DWARF-unwound frame's srcline, as perf prints its chain node's: ln's
 * (an inline frame's), else the address's, "??:0" where none is known
 */
void script_print_node_srcline(struct script_ctx *s, const struct tally_addr_info *ai,
			       const struct tally_srcline *ln);
/* perf's srccode: the sample's source line "|N        text\n", once per thread and line */
void script_print_srccode(struct script_ctx *s, const struct tally_sample *smp,
			  enum tally_cpumode mode);
/* A NAMESPACES record's text after its prefix (perf_event__fprintf_namespaces) */
void script_print_namespaces(struct script_ctx *s, const struct tally_record_namespaces *n);
/*
 * perf's perf_sample__fprintf_start: comm (unpadded when a chain
 * follows), pid/tid, [cpu], misc, tod, time; a sample's and a side-band
 * record's (cmd_script.c)
 */
void script_print_start(struct script_ctx *s, uint64_t f, const char *comm, bool chain,
			int32_t pid, int32_t tid, uint32_t cpu, uint16_t misc, uint64_t time);
/* script_events.c: a side-band record's line, when its --show-*-events asked for it */
/* --show-round-events: the session's round callback (ctx the script_ctx) */
void script_round(struct tally_session *ss, void *ctx);
void script_print_event(struct script_ctx *s, const struct perf_event_header *h,
			const struct tally_record *rec);
void script_src_release(struct script_ctx *s);

/*
 * script_defer.c: a first run's kernel frames while kallsyms is read.
 * Start: deferring while the symbols' thread reads it. Frame: kept for
 * later (true), or to be made now (false). End: the kept text written
 * with its frames made (waiting for kallsyms if need be).
 */
void script_defer_start(struct script_ctx *s);
bool script_defer_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, int chain, uint64_t opts);
void script_defer_end(struct script_ctx *s);
/* each sample: the end once kallsyms is read */
static inline void script_defer_poll(struct script_ctx *s)
{
	if (s->deferring && !tally_symbols__kernel_pending(s->syms))
		script_defer_end(s);
}
/* What the printers opened (data symbols, the disassembler, files) */
void script_print_release(struct script_ctx *s);

#endif
