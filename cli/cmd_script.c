// SPDX-License-Identifier: MIT
/*
 * tally script: perf script's default text from a perf.data file (the
 * shared session layer reads it in time order): comm, tid, [cpu], time,
 * period, event, then the ip with symbol+offset and DSO, the call chain
 * one frame a line, or a tracepoint's fields.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"
#include "script_fields.h"

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
};
#define F_BRANCHES (F_BRSTACK | F_BRSTACKSYM | F_BRSTACKOFF)
/* what is printed after the sample's address (or the chain) */
#define F_TAIL (F_IREGS | F_UREGS | F_BRANCHES | F_PHYS_ADDR | F_DATA_PAGE_SIZE | \
		F_CODE_PAGE_SIZE | F_INSN | F_INSNLEN)

static const struct field {
	const char *name;
	unsigned bit;
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
};

#define FIELD_NAMES "comm,tid,pid,cpu,time,period,event,trace,ip,sym,symoff,dso,addr,data_src," \
	"weight,ins_lat,cgroup,iregs,uregs,brstack,brstacksym,brstackoff,phys_addr," \
	"data_page_size,code_page_size,misc,flags,insn,insnlen,bpf-output"

/* -F's event classes, as perf names them */
enum { T_HW, T_SW, T_TRACE, T_RAW, T_BREAK, T__NR };
static const char *const type_names[T__NR] = { "hw", "sw", "trace", "raw", "break" };

#define DEFAULT_FIELDS (F_COMM | F_TID | F_CPU | F_TIME | F_PERIOD | F_EVENT | F_IP | F_SYM | \
			F_SYMOFF | F_DSO)
/* a software event's: a BPF-output event's data too (record --off-cpu's) */
#define DEFAULT_SW_FIELDS (DEFAULT_FIELDS | F_BPF_OUTPUT)
#define DEFAULT_TP_FIELDS (F_COMM | F_TID | F_CPU | F_TIME | F_EVENT | F_TRACE)
/* a raw event's (a PMU's memory events): its data fields too */
#define DEFAULT_RAW_FIELDS (DEFAULT_FIELDS | F_ADDR | F_DATA_SRC | F_WEIGHT | F_PHYS_ADDR | \
			    F_DATA_PAGE_SIZE | F_CODE_PAGE_SIZE | F_INS_LAT)

struct script_ctx {
	struct tally_session *ss;
	struct tally_machine *m;
	struct tally_symbols *syms;
	uint64_t gen;			/* the maps' generation at this sample (frame cache key) */
	const char **names;		/* per attr: the event's name */
	int name_width;			/* the longest of them */
	unsigned type_fields[T__NR];	/* what -F asked for each class */
	unsigned strict[T__NR];		/* of those, the ones named (the samples must have them) */
	bool user_set[T__NR];
	unsigned *attr_fields;		/* what each attr prints */
	bool hide_cg;			/* -G: the sampled ip on the line, no chain */
	bool ns;			/* --ns: the time to the nanosecond */
	const char *comms, *pids, *tids;	/* -c, --pid, --tid: only these */
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
	bool no_inline;			/* --no-inline */
	struct script_cgroups cgroups;	/* the file's CGROUP records: id -> path */
	struct tally_symbols *dsyms;	/* with data objects: a page fault's address */
	struct tally_disasm *dis;	/* insn, insnlen: an instruction's length */
	struct code_ent {		/* their files, opened once each */
		char *path;
		int fd;
	} code[64];
	int mem_width;			/* perf pads data_src to the widest so far */
};

/* perf's inline stack of a chain frame is a few deep; more is kept out */
#define INL_MAX 16

#define FC_SLOTS 16384
#define FC_TEXT (4u << 20)

static void ob_flush(struct script_ctx *s)
{
	fwrite(s->buf, 1, s->len, s->out);
	s->len = 0;
	s->flushes++;
}

static void ob_mem(struct script_ctx *s, const char *p, size_t n)
{
	if (s->len + n > sizeof(s->buf)) {
		ob_flush(s);
		if (n > sizeof(s->buf)) {
			fwrite(p, 1, n, s->out);
			return;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void ob_str(struct script_ctx *s, const char *p)
{
	ob_mem(s, p, strlen(p));
}

static void ob_chr(struct script_ctx *s, char c)
{
	if (s->len == sizeof(s->buf))
		ob_flush(s);
	s->buf[s->len++] = c;
}

/* p right-aligned in width (printf's %*s) */
static void ob_rstr(struct script_ctx *s, const char *p, int width)
{
	int n = (int)strlen(p);

	for (; n < width; width--)
		ob_chr(s, ' ');
	ob_mem(s, p, (size_t)n);
}

/* v in base 10 or 16, right-aligned in width, padded with pad */
static void ob_num(struct script_ctx *s, unsigned long long v, int base, int width, char pad)
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

static void make_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
		       enum tally_cpumode mode, int chain, unsigned opts);

/*
 * One frame: "\t" in a chain, the address, then sym+off and (dso) as opts
 * say. chain: 0 the sample's ip, 1 a chain frame, 2 one DWARF unwinding found.
 */
static void print_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, int chain, unsigned opts)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)smp->pid << 7) ^ ((uint64_t)mode << 3) ^
		      (uint64_t)chain) *
		     0x9e3779b97f4a7c15ULL;
	struct fc_ent *e = s->fc ? &s->fc[(h >> 40) & (FC_SLOTS - 1)] : NULL;
	size_t before = s->len;
	uint64_t flushes = s->flushes;

	opts &= F_SYM | F_SYMOFF | F_DSO;
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

/* The address, then sym+off and (dso) as opts say, for one chain line. */
static void frame_text(struct script_ctx *s, const struct tally_addr_info *ai, bool found,
		       uint64_t ip, bool chain, unsigned opts, const char *name, bool inlined)
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
	if (inlined)
		ob_str(s, " (inlined)");
	ob_chr(s, '\n');
}

static void make_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
		       enum tally_cpumode mode, int chain, unsigned opts)
{
	struct tally_addr_info ai;
	bool found = !tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid,
					     (int32_t)smp->tid, ip, mode, &ai);
	const char *names[INL_MAX];
	int n;

	/*
	 * perf's --inline: a frame DWARF unwinding found, in code with DWARF,
	 * is each function there, innermost first (perf 6.1 does not look at
	 * frame-pointer chains); a name other than the symbol's is shown
	 * "(inlined)", even for the outermost (perf's addr2line naming).
	 * At the ELF address, as perf asks addr2line (resolve.c).
	 */
	if (chain == 2 && found && !s->no_inline && ai.dso && ai.map && !ai.map->kernel &&
	    (n = tally_dso__inline_funcs(ai.dso, ai.vaddr, names, INL_MAX)) > 0) {
		for (int i = 0; i < n; i++) {
			bool inl = strcmp(names[i], ai.sym->name) != 0;

			frame_text(s, &ai, found, ip, chain, opts, inl ? names[i] : ai.sym->name, inl);
		}
		return;
	}
	frame_text(s, &ai, found, ip, chain, opts, found ? ai.sym->name : NULL, false);
}

/*
 * A BPF-output event's data (none in offcpu-time's samples): perf prints
 * it after the rest, and a line end even when there is none.
 */
static int end_sample(struct script_ctx *s, const struct perf_event_attr *a, unsigned f)
{
	if ((f & F_BPF_OUTPUT) && a->type == PERF_TYPE_SOFTWARE &&
	    a->config == PERF_COUNT_SW_BPF_OUTPUT)
		ob_chr(s, '\n');
	return 0;
}

/* perf's map name of a resolved address (frame_text's) */
static const char *dso_name(const struct tally_addr_info *ai)
{
	if (!ai->map)
		return "[unknown]";
	return ai->map->kernel && !strncmp(ai->map->filename, "[kernel.kallsyms]", 17) ?
	       "[kernel.kallsyms]" : ai->map->filename;
}

static bool resolve_in(struct script_ctx *s, struct tally_symbols *syms,
		       const struct tally_sample *smp, uint64_t a, enum tally_cpumode mode,
		       struct tally_addr_info *ai)
{
	bool found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid,
					     a, mode, ai);

	/* as perf's thread__find_map_fb: a kernel address in a user sample, and back */
	if (!ai->map && mode == TALLY_CPUMODE_USER)
		found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid,
						(int32_t)smp->tid, a, TALLY_CPUMODE_KERNEL, ai);
	else if (!ai->map && mode == TALLY_CPUMODE_KERNEL)
		found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid,
						(int32_t)smp->tid, a, TALLY_CPUMODE_USER, ai);
	return found;
}

static bool resolve(struct script_ctx *s, const struct tally_sample *smp, uint64_t a,
		    enum tally_cpumode mode, struct tally_addr_info *ai)
{
	return resolve_in(s, s->syms, smp, a, mode, ai);
}

static void sym_off(struct script_ctx *s, const struct tally_addr_info *ai, bool found)
{
	if (!found) {
		ob_str(s, "[unknown]");
		return;
	}
	ob_str(s, ai->sym->name);
	ob_str(s, "+0x");
	ob_num(s, ai->sym_off, 16, 0, '0');
}

static bool page_fault(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* The data address; a page fault's named by symbol and DSO (perf's rule) */
static void print_addr(struct script_ctx *s, const struct perf_event_attr *a,
		       const struct tally_sample *smp, enum tally_cpumode mode, unsigned f)
{
	struct tally_addr_info ai;
	bool found;

	ob_num(s, smp->addr, 16, 16, ' ');
	if (!page_fault(a))
		return;
	/* perf names data addresses by the files' objects as well as functions */
	if (!s->dsyms) {
		TALLY_OPTS(tally_symbols_opts, so, .data_objects = true);

		s->dsyms = tally_symbols__new(&so);
	}
	found = resolve_in(s, s->dsyms ? s->dsyms : s->syms, smp, smp->addr, mode, &ai);
	if (f & F_SYM) {
		ob_chr(s, ' ');
		if (f & F_SYMOFF)
			sym_off(s, &ai, found);
		else
			ob_str(s, found ? ai.sym->name : "[unknown]");
	}
	if (f & F_DSO) {
		ob_str(s, " (");
		ob_str(s, dso_name(&ai));
		ob_chr(s, ')');
	}
}

/* perf's "%16lx |OP ...", padded to the widest one printed so far, cut at 99 */
static void print_data_src(struct script_ctx *s, uint64_t v)
{
	char decode[256], out[300];
	int n;

	script_mem_decode(decode, 100, v);
	n = snprintf(out, 100, "%16llx %s", (unsigned long long)v, decode);
	if (n > 99)
		n = 99;
	if (n > s->mem_width)
		s->mem_width = n;
	ob_mem(s, out, (size_t)n);
	for (; n < s->mem_width; n++)
		ob_chr(s, ' ');
}

/* A branch's address for brstackoff: in its DSO, unless perf keeps it (ET_EXEC, kernel) */
static uint64_t branch_off(const struct tally_addr_info *ai, uint64_t a)
{
	if (!ai->map || ai->map->kernel || ai->vaddr == a)
		return a;
	return ai->map_ip;
}

static void print_branches(struct script_ctx *s, const struct tally_sample *smp,
			   enum tally_cpumode mode, unsigned f)
{
	const struct perf_branch_entry *e = smp->branch_stack.entries;

	for (uint64_t i = 0; e && i < smp->branch_stack.nr; i++, e++) {
		struct tally_addr_info af, at;
		bool ff = false, ft = false;

		if (f & (F_DSO | F_BRSTACKSYM | F_BRSTACKOFF)) {
			ff = resolve(s, smp, e->from, mode, &af);
			ft = resolve(s, smp, e->to, mode, &at);
		}
		for (int k = 0; k < 2; k++) {
			const struct tally_addr_info *ai = k ? &at : &af;
			uint64_t a = k ? e->to : e->from;

			if (k)
				ob_chr(s, '/');
			if (f & F_BRSTACK) {
				ob_str(s, k ? "0x" : " 0x");
				ob_num(s, a, 16, 0, '0');
			} else if (f & F_BRSTACKSYM) {
				sym_off(s, ai, k ? ft : ff);
			} else {
				ob_str(s, k ? "0x" : " 0x");
				ob_num(s, branch_off(ai, a), 16, 0, '0');
			}
			if (f & F_DSO) {
				ob_chr(s, '(');
				ob_str(s, dso_name(ai));
				ob_chr(s, ')');
			}
		}
		ob_chr(s, '/');
		ob_chr(s, e->mispred ? 'M' : e->predicted ? 'P' : '-');
		ob_chr(s, '/');
		ob_chr(s, e->in_tx ? 'X' : '-');
		ob_chr(s, '/');
		ob_chr(s, e->abort ? 'A' : '-');
		ob_chr(s, '/');
		ob_num(s, e->cycles, 10, 0, ' ');
		ob_chr(s, '/');
		ob_str(s, script_branch_type(e));
		ob_chr(s, ' ');
	}
}

/* n bytes of path at off: its fd kept open (the first 64 files), else opened for this read */
static ssize_t read_at(struct script_ctx *s, const char *path, void *buf, size_t n, uint64_t off)
{
	const size_t max = sizeof(s->code) / sizeof(s->code[0]);
	ssize_t got;
	size_t i;
	int fd;

	for (i = 0; i < max && s->code[i].path; i++)
		if (!strcmp(s->code[i].path, path))
			return s->code[i].fd < 0 ? -1 : pread(s->code[i].fd, buf, n, (off_t)off);
	if (i < max && (s->code[i].path = strdup(path))) {
		s->code[i].fd = open(path, O_RDONLY | O_CLOEXEC);
		return s->code[i].fd < 0 ? -1 : pread(s->code[i].fd, buf, n, (off_t)off);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = pread(fd, buf, n, (off_t)off);
	close(fd);
	return got;
}

/*
 * perf's insnlen and insn: the instruction at the sample's address, read
 * from its file at the map's offset as perf reads it (16 bytes at most;
 * none from the kernel's, anonymous or JIT code)
 */
static void print_insn(struct script_ctx *s, const struct tally_sample *smp,
		       enum tally_cpumode mode, unsigned f)
{
	struct tally_addr_info ai;
	uint8_t bytes[16];
	ssize_t len = 0;
	int n = 0;
	char text[256];

	if (smp->ip && !s->dis)
		s->dis = tally_disasm__new(TALLY_DISASM_ATT);
	tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode,
			       &ai);
	if (smp->ip && s->dis && ai.map && !ai.map->kernel && !ai.map->anon &&
	    ai.map->filename[0] == '/' &&
	    (len = read_at(s, ai.map->filename, bytes, sizeof(bytes), ai.map_ip)) > 0) {
		n = tally_disasm__insn(s->dis, bytes, (size_t)len, ai.vaddr, NULL, NULL, text,
				       sizeof(text));
		/* what capstone cannot decode, perf's decoder does not length either */
		if (n <= 0 || n > len || !strncmp(text, "(bad)", 5))
			n = 0;
	}
	if (f & F_INSNLEN) {
		ob_str(s, " ilen: ");
		ob_num(s, (unsigned)n, 10, 0, ' ');
	}
	if ((f & F_INSN) && n > 0) {
		ob_str(s, " insn:");
		for (int i = 0; i < n; i++) {
			ob_chr(s, ' ');
			ob_num(s, bytes[i], 16, 2, '0');
		}
	}
}

/* After the address or chain: registers, branches, physical address, page sizes */
static void print_tail(struct script_ctx *s, const struct tally_sample *smp,
		       enum tally_cpumode mode, unsigned f)
{
	char t[4096];

	if (f & F_IREGS) {
		script_regs(t, sizeof(t), &smp->regs_intr);
		ob_str(s, t);
	}
	if (f & F_UREGS) {
		script_regs(t, sizeof(t), &smp->regs_user);
		ob_str(s, t);
	}
	/* one of them, in this order (perf's) */
	if (f & F_BRANCHES)
		print_branches(s, smp, mode, f & F_BRSTACK ? f & ~(F_BRSTACKSYM | F_BRSTACKOFF) :
				  f & F_BRSTACKSYM ? f & ~F_BRSTACKOFF : f);
	if (f & (F_INSN | F_INSNLEN))
		print_insn(s, smp, mode, f);
	if (f & F_PHYS_ADDR)
		ob_num(s, smp->phys_addr, 16, 16, ' ');
	if (f & F_DATA_PAGE_SIZE) {
		script_page_size(t, sizeof(t), smp->data_page_size);
		ob_chr(s, ' ');
		ob_str(s, t);
	}
	if (f & F_CODE_PAGE_SIZE) {
		script_page_size(t, sizeof(t), smp->code_page_size);
		ob_chr(s, ' ');
		ob_str(s, t);
	}
}

/* perf's misc letters, padded to 6 */
static void print_misc(struct script_ctx *s, uint16_t misc)
{
	unsigned m = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int n = 0;

#define HAS(x) ((m & (x)) == (x))
	if (HAS(PERF_RECORD_MISC_KERNEL))
		ob_chr(s, 'K'), n++;
	if (HAS(PERF_RECORD_MISC_USER))
		ob_chr(s, 'U'), n++;
	if (HAS(PERF_RECORD_MISC_HYPERVISOR))
		ob_chr(s, 'H'), n++;
	if (HAS(PERF_RECORD_MISC_GUEST_KERNEL))
		ob_chr(s, 'G'), n++;
	if (HAS(PERF_RECORD_MISC_GUEST_USER))
		ob_chr(s, 'g'), n++;
#undef HAS
	/* perf's "%*s" of 6 - n over " ": at least one space */
	for (int w = 6 - n < 1 ? 1 : 6 - n; w > 0; w--)
		ob_chr(s, ' ');
}

static int print_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct script_ctx *s = arg;
	int idx = ts->attr;
	const struct perf_event_attr *a = ts->event;
	const struct tally_sample *smp = ts->sample;
	unsigned f = s->attr_fields[idx];
	enum tally_cpumode mode = ts->mode;
	bool chain = (a->sample_type & PERF_SAMPLE_CALLCHAIN) && !s->hide_cg;
	bool dropped = chain && tally_session__chain_corrupt(smp);	/* as perf: no frame line */
	bool tp = a->type == PERF_TYPE_TRACEPOINT;
	bool unwound = false;

	s->gen = tally_session__maps_gen(ss);	/* fixed during a sample */
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
	/* perf's layout: comm, pid/tid, [cpu], time, period, event, then the rest */
	if (f & F_COMM) {
		const char *comm = tally_machine__comm_of(s->m, (int32_t)smp->tid);

		if (!comm)
			comm = tally_session__comm(ss, ts);	/* perf's ":TID" */
		/* padded unless a call chain follows on lines of its own */
		ob_rstr(s, comm ? comm : ":-1", (f & F_IP) && chain ? 0 : 16);
		ob_chr(s, ' ');
	}
	if (f & (F_PID | F_TID)) {
		char t[32];

		if ((f & F_PID) && (f & F_TID))
			snprintf(t, sizeof(t), "%5d/%-5d ", (int)smp->pid, (int)smp->tid);
		else
			snprintf(t, sizeof(t), "%5d ", (int)((f & F_PID) ? smp->pid : smp->tid));
		ob_str(s, t);
	}
	if (f & F_CPU) {
		ob_chr(s, '[');
		ob_num(s, smp->cpu, 10, 3, '0');
		ob_str(s, "] ");
	}
	if (f & F_MISC)
		print_misc(s, ts->header->misc);
	if (f & F_TIME) {
		ob_num(s, smp->time / 1000000000ull, 10, 5, ' ');
		ob_chr(s, '.');
		if (s->ns)
			ob_num(s, smp->time % 1000000000ull, 10, 9, '0');
		else
			ob_num(s, smp->time % 1000000000ull / 1000, 10, 6, '0');
		ob_str(s, ": ");
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
		print_addr(s, a, smp, mode, f);
	if (f & F_DATA_SRC)
		print_data_src(s, smp->data_src);
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
		print_tail(s, smp, mode, f);
		ob_chr(s, '\n');
		return end_sample(s, a, f);
	}
	if (!chain) {
		ob_chr(s, ' ');
		print_frame(s, smp, smp->ip, mode, 0, f);
		if (f & F_TAIL) {
			s->len--;	/* the frame's line end: the tail goes before it */
			print_tail(s, smp, mode, f);
			ob_chr(s, '\n');
		}
		return end_sample(s, a, f);
	}
	ob_chr(s, '\n');
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
			}
			continue;
		}
		print_frame(s, smp, ip, mode, unwound ? 2 : 1, f);
	}
	print_tail(s, smp, mode, f);
	ob_chr(s, '\n');
	return end_sample(s, a, f);
}

/* The file's CGROUP records name the samples' cgroup ids */
static int on_record(struct tally_session *ss, const struct perf_event_header *h,
		     const struct tally_record *rec, void *arg)
{
	struct script_ctx *s = arg;

	(void)ss;
	if (h->type == PERF_RECORD_CGROUP && rec)
		script_cgroups_add(&s->cgroups, rec->u.cgroup.id, rec->u.cgroup.path);
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
	unsigned set = 0, add = 0, del = 0;
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
		if (sign == '+')
			add |= fields[i].bit, plus++;
		else if (sign == '-')
			del |= fields[i].bit, plus++;
		else
			set |= fields[i].bit, plain++;
	}
	free(dup);
	if (plus && plain) {
		fprintf(stderr, "tally script: -F '%s': +field and -field change the default fields; "
			"they do not mix with a list that replaces them\n", spec);
		return -1;
	}
	for (int t = 0; t < T__NR; t++) {
		unsigned def = t == T_TRACE ? DEFAULT_TP_FIELDS :
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
	unsigned tp_default = DEFAULT_TP_FIELDS;

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
		unsigned f = s->user_set[t] ? s->type_fields[t] :
			     t == T_TRACE ? tp_default : t == T_SW ? DEFAULT_SW_FIELDS :
			     t == T_RAW ? DEFAULT_RAW_FIELDS : DEFAULT_FIELDS;

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
	bool help = false;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_STRING('F', "fields", &fspec, "[TYPE:]LIST",
			   FIELD_NAMES "; +f/-f change the defaults"),
		CLI_BOOL(0, "no-inline", &s.no_inline, "a chain frame is its symbol alone, not the functions inlined there"),
		CLI_BOOL('G', "hide-call-graph", &s.hide_cg, "the sampled address on the sample's line, no chain"),
		CLI_BOOL(0, "ns", &s.ns, "times to the nanosecond"),
		CLI_STRING('c', "comms", &s.comms, "LIST", "only the samples of these commands"),
		CLI_STRING(0, "pid", &s.pids, "LIST", "only the samples of these processes"),
		CLI_STRING(0, "tid", &s.tids, "LIST", "only the samples of these threads"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	struct tally_session *ss;
	int ret;

	if (cli_parse("script", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, script_usage, opts);
		return 0;
	}
	if (fspec && parse_fields(&s, fspec))
		return 129;
	pager_start();
	s.out = stdout;
	s.fc = calloc(FC_SLOTS, sizeof(*s.fc));
	s.fc_text = malloc(FC_TEXT);
	if (!s.fc_text) {	/* no cache then: every frame made anew */
		free(s.fc);
		s.fc = NULL;
	}
	{
		/* the comm is looked up where a line shows it */
		TALLY_OPTS(tally_session_opts, so, .sample = print_sample, .record = on_record,
			   .ctx = &s,
			   .no_inline = s.no_inline, .no_comm = true);

		ss = cli_session_open("script", input, &so, &ret);
	}
	ret = ss ? 0 : ret;
	if (ss) {
		s.ss = ss;
		s.m = tally_session__machine(ss);
		s.syms = tally_session__symbols(ss);
	}
	if (!ret) {
		int e = attr_fields(&s);

		ret = e == -2 ? 255 : e ? 1 : 0;
	}
	if (!ret)
		ret = cli_session_run(ss, "script", input);
	ob_flush(&s);
	tally_session__close(ss);
	free(s.fc);
	free(s.fc_text);
	free(s.attr_fields);
	free(s.names);
	script_cgroups_free(&s.cgroups);
	tally_symbols__free(s.dsyms);
	tally_disasm__free(s.dis);
	for (size_t i = 0; i < sizeof(s.code) / sizeof(s.code[0]) && s.code[i].path; i++) {
		free(s.code[i].path);
		if (s.code[i].fd >= 0)
			close(s.code[i].fd);
	}
	return ret;
}
