// SPDX-License-Identifier: MIT
/*
 * The sort keys' cells and -F's table, as perf 6.1's sort entries print
 * them in report and top alike. See hist_cols.h.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "hist_cols.h"
#include "read_file.h"
#include "script_fields.h"


const struct hist_key_name hist_keys[K__NR] = {
	[K_COMM] = { "comm", "Command" },
	[K_PID] = { "pid", "    Pid:Command" },	/* perf's header, spaces and all */
	[K_DSO] = { "dso", "Shared Object" },
	[K_SYM] = { "sym", "Symbol" },
	[K_CPU] = { "cpu", "CPU" },
	[K_SRCLINE] = { "srcline", "Source:Line" },
	[K_PARENT] = { "parent", "Parent symbol" },
	[K_TRACE] = { "trace", "Trace output" },
	[TALLY_HIST_MEM] = { "mem", "Memory access", 24 },
	[TALLY_HIST_SNOOP] = { "snoop", "Snoop", 12 },
	[TALLY_HIST_TLB] = { "tlb", "TLB access", 22 },
	[TALLY_HIST_LOCKED] = { "locked", "Locked", 6 },
	[TALLY_HIST_BLOCKED] = { "blocked", "Blocked", 10 },
	[TALLY_HIST_PHYS_DADDR] = { "phys_daddr", "Data Physical Address", 22 },
	[TALLY_HIST_DATA_PAGE_SIZE] = { "data_page_size", "Data Page Size", 22 },
	[TALLY_HIST_CODE_PAGE_SIZE] = { "code_page_size", "Code Page Size", 6 },
	[TALLY_HIST_WEIGHT] = { "weight", "Weight", 12 },
	[TALLY_HIST_LOCAL_WEIGHT] = { "local_weight", "Local Weight", 12 },
	[TALLY_HIST_INS_LAT] = { "ins_lat", "INSTR Latency", 13 },
	[TALLY_HIST_LOCAL_INS_LAT] = { "local_ins_lat", "Local INSTR Latency", 13 },
	[TALLY_HIST_SYM_DADDR] = { "symbol_daddr", "Data Symbol" },
	[TALLY_HIST_DSO_DADDR] = { "dso_daddr", "Data Object" },
	[TALLY_HIST_DCACHELINE] = { "dcacheline", "Data Cacheline" },
	[TALLY_HIST_SYM_FROM] = { "symbol_from", "Source Symbol" },
	[TALLY_HIST_SYM_TO] = { "symbol_to", "Target Symbol" },
	[TALLY_HIST_DSO_FROM] = { "dso_from", "Source Shared Object" },
	[TALLY_HIST_DSO_TO] = { "dso_to", "Target Shared Object" },
	[TALLY_HIST_SRCLINE_FROM] = { "srcline_from", "From Source:Line" },
	[TALLY_HIST_SRCLINE_TO] = { "srcline_to", "To Source:Line" },
	[TALLY_HIST_MISPREDICT] = { "mispredict", "Branch Mispredicted", 19 },
	[TALLY_HIST_IN_TX] = { "in_tx", "Branch in transaction", 21 },
	[TALLY_HIST_CYCLES] = { "cycles", "Basic Block Cycles", 18 },
	[TALLY_HIST_SYM_IADDR] = { "symbol_iaddr", "Code Symbol" },
	[TALLY_HIST_TRANSACTION] = { "transaction", "Transaction", 32 },
	[TALLY_HIST_CGROUP] = { "cgroup", "Cgroup" },
	[TALLY_HIST_CGROUP_ID] = { "cgroup_id", "cgroup id (dev/inode)", 20 },
	[TALLY_HIST_ABORT] = { "abort", "Transaction abort", 17 },
	[TALLY_HIST_TIME] = { "time", "Time", 12 },
	[TALLY_HIST_SRCFILE] = { "srcfile", "Source File" },
	[TALLY_HIST_ADDR] = { "addr", "Address", 18 },
	[TALLY_HIST_DSO_SIZE] = { "dso_size", "DSO size", 8 },
	[TALLY_HIST_SYM_SIZE] = { "symbol_size", "Symbol size", 11 },
	[TALLY_HIST_SOCKET] = { "socket", "Socket", 6 },
	[TALLY_HIST_ADDR_FROM] = { "addr_from", "Source Address" },
	[TALLY_HIST_ADDR_TO] = { "addr_to", "Target Address" },
};


/* a branch's end: perf's _hist_entry__sym_snprintf of it */
static int branch_sym(const struct tally_hist_branch_end *b, char *buf, size_t len)
{
	if (b->sym)
		return snprintf(buf, len, "[%c] %s", b->level, b->sym);
	return snprintf(buf, len, b->addr ? "[%c] 0x%016llx" : "[%c] %016llx", b->level,
			(unsigned long long)b->addr);
}

/*
 * The branch keys' cells, as perf 6.1's sort.c prints them. mispredict
 * keeps perf's static (c->mispredict): a branch neither predicted nor
 * mispredicted shows what the row printed before it did ("N/A" first).
 */
static int branch_value(const struct hist_cells *c, const struct tally_hist_row *e,
			enum tally_hist_key k, char *buf, size_t len)
{
	const char *na = "N/A", **mp = c->mispredict ? c->mispredict : &na;
	uint64_t f = e->br_flags;

	switch (k) {
	case TALLY_HIST_SYM_FROM: return branch_sym(&e->br_from, buf, len);
	/* perf's _hist_entry__addr_snprintf: the symbol and its offset (none at 0), or the address */
	case TALLY_HIST_ADDR_FROM:
	case TALLY_HIST_ADDR_TO: {
		const struct tally_hist_branch_end *b = k == TALLY_HIST_ADDR_FROM ? &e->br_from : &e->br_to;
		uint64_t off = k == TALLY_HIST_ADDR_FROM ? e->br_from_off : e->br_to_off;

		/* the level is the entry's (the sample's), not the end's */
		if (!b->sym || !b->dso)
			return snprintf(buf, len, b->addr ? "[%c] 0x%016llx" : "[%c] %016llx", e->level,
					(unsigned long long)b->addr);
		return off ? snprintf(buf, len, "[%c] %s+0x%llx", e->level, b->sym, (unsigned long long)off) :
			     snprintf(buf, len, "[%c] %s", e->level, b->sym);
	}
	case TALLY_HIST_SYM_TO: return branch_sym(&e->br_to, buf, len);
	case TALLY_HIST_DSO_FROM:
	case TALLY_HIST_DSO_TO: {
		const char *d = (k == TALLY_HIST_DSO_FROM ? &e->br_from : &e->br_to)->dso;

		return snprintf(buf, len, "%s", d ? d : "[unknown]");
	}
	case TALLY_HIST_SRCLINE_FROM:
	case TALLY_HIST_SRCLINE_TO: {
		const char *l = (k == TALLY_HIST_SRCLINE_FROM ? &e->br_from : &e->br_to)->srcline;

		return snprintf(buf, len, "%s", l ? l : "??:0");
	}
	case TALLY_HIST_MISPREDICT:
		if (f >> 1 & 1)
			*mp = "N";
		else if (f & 1)
			*mp = "Y";
		return snprintf(buf, len, "%s", *mp);
	case TALLY_HIST_IN_TX: return snprintf(buf, len, "%s", f >> 2 & 1 ? "T" : ".");
	case TALLY_HIST_ABORT: return snprintf(buf, len, "%s", f >> 3 & 1 ? "A" : ".");
	case TALLY_HIST_CYCLES:
		if (!(f >> 4 & 0xffff))
			return snprintf(buf, len, "-");
		return snprintf(buf, len, "%hd", (short)(f >> 4 & 0xffff));	/* perf's "%hd" */
	default:
		return snprintf(buf, len, "?");
	}
}

/* perf's transaction cell (hist_entry__transaction_snprintf): flags, NEITHER, :abort code */
static int txn_value(uint64_t t, char *buf, size_t len)
{
	static const struct { uint64_t flag; const char *name; } bits[] = {
		{ PERF_TXN_ELISION, "EL " }, { PERF_TXN_TRANSACTION, "TX " },
		{ PERF_TXN_SYNC, "SYNC " }, { PERF_TXN_ASYNC, "ASYNC " },
		{ PERF_TXN_RETRY, "RETRY " }, { PERF_TXN_CONFLICT, "CON " },
		{ PERF_TXN_CAPACITY_WRITE, "CAP-WRITE " }, { PERF_TXN_CAPACITY_READ, "CAP-READ " },
	};
	char out[128] = "";

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (t & bits[i].flag)
			strcat(out, bits[i].name);
	if (t && !(t & (PERF_TXN_SYNC | PERF_TXN_ASYNC)))
		strcat(out, "NEITHER ");
	if (t & PERF_TXN_ABORT_MASK)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), ":%llx",
			 (unsigned long long)((t & PERF_TXN_ABORT_MASK) >> PERF_TXN_ABORT_SHIFT));
	return snprintf(buf, len, "%s", out);
}

static int fmt_addr(char *buf, size_t len, char level, uint64_t addr);

/* perf's mem and sample-field keys' cells (sort.c's hist_entry__*_snprintf) */
static int mem_value(const struct hist_cells *c, const struct tally_hist_row *e,
		     enum tally_hist_key k, char *buf, size_t len)
{
	static const enum script_mem_part part[] = {
		[TALLY_HIST_MEM] = MEM_PART_LVL, [TALLY_HIST_SNOOP] = MEM_PART_SNOOP,
		[TALLY_HIST_TLB] = MEM_PART_TLB, [TALLY_HIST_LOCKED] = MEM_PART_LOCK,
		[TALLY_HIST_BLOCKED] = MEM_PART_BLK,
	};
	char out[64];

	switch (k) {
	case TALLY_HIST_MEM: case TALLY_HIST_SNOOP: case TALLY_HIST_TLB:
	case TALLY_HIST_LOCKED: case TALLY_HIST_BLOCKED:
		script_mem_part(out, sizeof(out), e->data_src, part[k]);	/* perf's out[64] */
		return snprintf(buf, len, "%s", out);
	case TALLY_HIST_PHYS_DADDR:	/* perf's "[%c] %-#.*llx": no 0x for zero */
		return snprintf(buf, len, e->phys_addr ? "[%c] 0x%016llx" : "[%c] %016llx", e->level,
				(unsigned long long)e->phys_addr);
	case TALLY_HIST_DATA_PAGE_SIZE:
	case TALLY_HIST_CODE_PAGE_SIZE:
		script_page_size(out, sizeof(out), k == TALLY_HIST_DATA_PAGE_SIZE ? e->data_page_size :
			       e->code_page_size);
		return snprintf(buf, len, "%s", out);
	case TALLY_HIST_WEIGHT:		/* the global ones: times the row's samples */
		return snprintf(buf, len, "%llu", (unsigned long long)(e->weight * e->samples));
	case TALLY_HIST_LOCAL_WEIGHT:
		return snprintf(buf, len, "%llu", (unsigned long long)e->weight);
	case TALLY_HIST_INS_LAT:
		return snprintf(buf, len, "%llu", (unsigned long long)(e->ins_lat * e->samples));
	case TALLY_HIST_LOCAL_INS_LAT:
		return snprintf(buf, len, "%llu", (unsigned long long)e->ins_lat);
	case TALLY_HIST_SYM_DADDR:	/* perf's _hist_entry__sym_snprintf of the data address */
		if (e->data_sym && e->data_object)
			return snprintf(buf, len, "[%c] %s+0x%llx", e->level, e->data_sym,
					(unsigned long long)e->data_off);
		if (e->data_sym)
			return snprintf(buf, len, "[%c] %s", e->level, e->data_sym);
		return fmt_addr(buf, len, e->level, e->daddr);
	case TALLY_HIST_DSO_DADDR:
		return snprintf(buf, len, "%s", e->data_dso ? e->data_dso : "[unknown]");
	case TALLY_HIST_DCACHELINE: {
		/*
		 * perf's: the line map-relative, [X] without a map, a data
		 * object's offset from its mapped start (wrapping, as perf's)
		 */
		char level = e->data_mapped ? e->level : 'X';

		if (e->data_sym && e->data_object)
			return snprintf(buf, len, "[%c] %s+0x%llx", level, e->data_sym,
					(unsigned long long)(e->data_cacheline - (e->daddr - e->data_off)));
		if (e->data_sym)
			return snprintf(buf, len, "[%c] %s", level, e->data_sym);
		return fmt_addr(buf, len, level, e->data_cacheline);
	}
	case TALLY_HIST_SYM_IADDR:	/* the same of the sample's ip */
		if (e->iaddr_sym && e->iaddr_object)
			return snprintf(buf, len, "[%c] %s+0x%llx", e->level, e->iaddr_sym,
					(unsigned long long)e->iaddr_off);
		if (e->iaddr_sym)
			return snprintf(buf, len, "[%c] %s", e->level, e->iaddr_sym);
		return fmt_addr(buf, len, e->level, e->iaddr);
	case TALLY_HIST_TRANSACTION:
		return txn_value(e->transaction, buf, len);
	case TALLY_HIST_CGROUP:		/* perf's: N/A for no cgroup, unknown for an unnamed id */
		return snprintf(buf, len, "%s", !e->cgroup ? "N/A" :
				e->cgroup_name ? e->cgroup_name : "unknown");
	case TALLY_HIST_CGROUP_ID:
		return snprintf(buf, len, "%llu/0x%llx", (unsigned long long)e->cgroup_dev,
				(unsigned long long)e->cgroup_ino);
	case TALLY_HIST_SRCFILE:
		return snprintf(buf, len, "%.*s", (int)e->srcfile_len, e->srcfile_len ? e->srcline : "");
	case TALLY_HIST_ADDR:	/* perf's "%-#*llx": no 0x for 0 */
		return snprintf(buf, len, "%#llx", (unsigned long long)e->ip);
	/* perf's "%*d" at the header's width, "unknown" without a map or symbol */
	case TALLY_HIST_DSO_SIZE:
		return e->dso_size ? snprintf(buf, len, "%8d", (int)e->dso_size) : snprintf(buf, len, "%8s", "unknown");
	case TALLY_HIST_SYM_SIZE:
		return e->sym ? snprintf(buf, len, "%11d", (int)e->sym_size) : snprintf(buf, len, "%11s", "unknown");
	case TALLY_HIST_SOCKET:	/* perf's "%*.*d", width 6 and 3 digits: -001 unknown */
		return snprintf(buf, len, "%6.3d", e->socket);
	case TALLY_HIST_TIME:	/* perf's "%-.*s" of its timestamp: cut at the column's 12 (16) */
		snprintf(out, sizeof(out), c->ns ? "%llu.%09llu" : "%llu.%06llu",
			 (unsigned long long)(e->time / 1000000000),
			 (unsigned long long)(e->time % 1000000000 / (c->ns ? 1 : 1000)));
		return snprintf(buf, len, "%.*s", c->ns ? 16 : 12, out);
	default:
		return snprintf(buf, len, "?");
	}
}

/* the thread's name at the end, as perf's comm and pid columns size and show it */
static const char *last_comm(const struct hist_cells *c, const struct tally_hist_row *e)
{
	const char *s = c->ss ? tally_machine__comm_of(tally_session__machine(c->ss), e->tid) : NULL;

	return s ? s : e->comm ? e->comm : "";
}

/* snprintf(buf, len, addr ? "[%c] 0x%016llx" : "[%c] %016llx", level, addr), len at least 23 */
static int fmt_addr(char *buf, size_t len, char level, uint64_t addr)
{
	int n = 0;

	if (len < 23)
		return snprintf(buf, len, addr ? "[%c] 0x%016llx" : "[%c] %016llx", level,
				(unsigned long long)addr);
	buf[n++] = '[';
	buf[n++] = level;
	buf[n++] = ']';
	buf[n++] = ' ';
	if (addr) {
		buf[n++] = '0';
		buf[n++] = 'x';
	}
	for (int sh = 60; sh >= 0; sh -= 4)
		buf[n++] = "0123456789abcdef"[addr >> sh & 15];
	buf[n] = '\0';
	return n;
}

static int value(const struct hist_cells *c, const struct tally_hist_row *e,
		 enum tally_hist_key k, char *buf, size_t len)
{
	switch (k) {
	case K_COMM: return snprintf(buf, len, "%s", e->comm);
	case K_PID:
		/* the thread's tid and the name it has at the end, as perf's thread column */
		return snprintf(buf, len, "%7d:%s", e->tid, last_comm(c, e));
	case K_DSO: return snprintf(buf, len, "%s", e->dso ? e->dso : "[unknown]");
	case K_SYM:
		if (e->sym && e->object)	/* perf's hist_entry__sym_snprintf for STT_OBJECT */
			return snprintf(buf, len, "[%c] %s+0x%llx", e->level, e->sym,
					(unsigned long long)e->object_off);
		if (e->sym)
			return snprintf(buf, len, "[%c] %s", e->level, e->sym);
		/* perf's "%-#.*llx": the 0x prefix is not printed for zero */
		return fmt_addr(buf, len, e->level, e->addr);
	case K_CPU: return snprintf(buf, len, "%.3d", e->cpu);	/* perf: -001 without CPUs */
	case K_SRCLINE: return snprintf(buf, len, "%s", e->srcline ? e->srcline : "??:0");
	case K_PARENT: return snprintf(buf, len, "%s", e->parent ? e->parent : "[other]");
	case K_TRACE: return snprintf(buf, len, "%s", e->trace ? e->trace : "");
	default:
		return HIST_BRANCH_KEY(k) ? branch_value(c, e, k, buf, len) : mem_value(c, e, k, buf, len);
	}
}

/*
 * A key's text where it is a string (a symbol's after its "[l] "), so
 * that widths and cells need no formatting; NULL: value() formats it.
 */
static const char *key_text(const struct tally_hist_row *e, enum tally_hist_key k)
{
	switch (k) {
	case K_COMM: return e->comm;
	case K_DSO: return e->dso ? e->dso : "[unknown]";
	case K_SYM: return e->object ? NULL : e->sym;
	case K_SRCLINE: return e->srcline ? e->srcline : "??:0";
	case K_PARENT: return e->parent ? e->parent : "[other]";
	case K_TRACE: return e->trace ? e->trace : "";
	default: return NULL;
	}
}

/*
 * perf's hists__calc_col_len of a branch key: a symbol's name and 4, 22
 * unresolved; a DSO's name where the symbol resolved, else 16; a source
 * line's; the flags' and cycles' headers alone.
 */
static int branch_width(const struct tally_hist_row *rows, size_t n, enum tally_hist_key k, int w)
{
	if (hist_keys[k].width)
		return w > hist_keys[k].width ? w : hist_keys[k].width;
	for (size_t i = 0; i < n; i++) {
		bool from = k == TALLY_HIST_SYM_FROM || k == TALLY_HIST_DSO_FROM ||
			    k == TALLY_HIST_SRCLINE_FROM || k == TALLY_HIST_ADDR_FROM;
		const struct tally_hist_branch_end *b = from ? &rows[i].br_from : &rows[i].br_to;
		int l;

		if (k == TALLY_HIST_SRCLINE_FROM || k == TALLY_HIST_SRCLINE_TO)
			l = (int)strlen(b->srcline ? b->srcline : "??:0");
		else if (k == TALLY_HIST_SYM_FROM || k == TALLY_HIST_SYM_TO ||
			 k == TALLY_HIST_ADDR_FROM || k == TALLY_HIST_ADDR_TO)	/* perf sizes them alike */
			l = b->sym ? (int)strlen(b->sym) + 4 : 22;
		else
			l = b->sym && b->dso ? (int)strlen(b->dso) : 16;
		if (l > w)
			w = l;
	}
	return w;
}

int hist_key_width(const struct hist_cells *c, const struct tally_hist_row *rows, size_t n,
		   enum tally_hist_key k)
{
	char buf[4096];
	int w = (int)strlen(hist_keys[k].header);

	if (k == K_CPU)
		return 3;	/* perf's: "-001" overflows it */
	if (k == K_TIME)
		return c->ns ? 16 : 12;
	/* perf sizes these by a fixed width alone: a longer cell overflows */
	if ((k >= K_MEM && k < K_SYM_DADDR) || k == K_TXN || k == K_CGROUP_ID || k == K_ADDR ||
	    k == K_DSO_SIZE || k == K_SYM_SIZE || k == K_SOCKET)
		return w > hist_keys[k].width ? w : hist_keys[k].width;
	/* perf's: a named cgroup's name (unknown's), N/A rows not measured */
	for (size_t i = 0; k == K_CGROUP && i < n; i++) {
		const char *s = rows[i].cgroup_name ? rows[i].cgroup_name : "unknown";

		if (rows[i].cgroup && (int)strlen(s) > w)
			w = (int)strlen(s);
	}
	if (k == K_CGROUP)
		return w;
	/*
	 * the data keys by their names (perf's hists__calc_col_len): a
	 * symbol's with 22 more, or 22; a file's, or an address's 16
	 */
	for (size_t i = 0; (k == K_SYM_DADDR || k == K_DSO_DADDR || k == K_DCACHELINE ||
			    k == K_SYM_IADDR) && i < n; i++) {
		const char *s = k == K_DSO_DADDR ? rows[i].data_dso :
				k == K_SYM_IADDR ? rows[i].iaddr_sym : rows[i].data_sym;
		int l = k == K_DSO_DADDR ? (s ? (int)strlen(s) : 16) : s ? (int)strlen(s) + 22 : 22;

		if (k == K_DCACHELINE && s)
			l++;	/* perf's symlen + 1 */

		if (l > w)
			w = l;
	}
	if (k == K_SYM_DADDR || k == K_DSO_DADDR || k == K_DCACHELINE || k == K_SYM_IADDR)
		return w;
	if (HIST_BRANCH_KEY(k))
		return branch_width(rows, n, k, w);
	/*
	 * perf measures a trace text only once a comparison made it: a lone
	 * row never is, and is cut to the header's width.
	 */
	if (k == K_TRACE && n < 2)
		return w;
	for (size_t i = 0; i < n; i++) {
		const char *s = key_text(&rows[i], k);
		int l;

		/*
		 * perf sizes the comm column by each entry's thread's comm at
		 * the end (its cached comm_len), and cuts the entry's own comm
		 * to that: "perf-exec" of a thread that became "sleep" shows
		 * as "perf-ex" if nothing is longer.
		 */
		if (k == K_COMM) {
			l = (int)strlen(last_comm(c, &rows[i]));
		} else if (s) {
			l = (int)strlen(s) + (k == K_SYM ? 4 : 0);
			/* perf's namelen: an inlined function's name alone, its " (inlined)" overflows */
			if (k == K_SYM && rows[i].inlined)
				l -= (int)strlen(" (inlined)");
		} else if (k == K_SYM && rows[i].object) {
			l = (int)strlen(rows[i].sym) + 4;	/* perf's namelen: the "+0x..." overflows */
		} else if (k == K_SYM) {
			l = 22;	/* perf's for any unresolved entry, though "0000000000000000" is 20 */
		} else {
			l = value(c, &rows[i], k, buf, sizeof(buf));
		}
		/* an entry without a symbol widens the DSO column to an address's 16 (without --dsos, -t) */
		if (k == K_DSO && !rows[i].sym && !c->dsos && !c->sep && l < 16)
			l = 16;
		if (l > w)
			w = l;
	}
	return w;
}

void hist_rows_at(const struct tally_hist *h, int idx, size_t from, size_t n,
		  struct tally_hist_row *rows)
{
	for (size_t i = 0; i < n; i++) {
		rows[i].sz = sizeof(rows[i]);
		tally_hist__row(h, idx, from + i, &rows[i]);
	}
}

/* One range's widths (hist_key_widths' work, a thread's share of it). */
struct widths_job {
	const struct hist_cells *c;
	const struct tally_hist *h;
	int idx;
	const enum tally_hist_key *keys;
	int nkeys, ipc_at;
	struct tally_hist_row *win;
	size_t nwin, lo, hi;		/* rows lo..hi */
	int width[K__NR];
};

static void *widths_range(void *arg)
{
	struct widths_job *j = arg;

	for (int i = 0; i < j->nkeys; i++)
		j->width[i] = 0;
	/*
	 * each window two rows or more where there are two: a trace cell is
	 * measured only among two (hist_key_width); a row measured twice
	 * changes no maximum
	 */
	for (size_t from = j->lo; from < j->hi || from == j->lo; from += j->nwin) {
		size_t at = from && j->hi - from < 2 ? from - 1 : from;
		size_t m = j->hi - at < j->nwin ? j->hi - at : j->nwin;

		hist_rows_at(j->h, j->idx, at, m, j->win);
		for (int i = 0; i < j->nkeys; i++) {
			int w = i == j->ipc_at ? 20 : hist_key_width(j->c, j->win, m, j->keys[i]);

			if (w > j->width[i])
				j->width[i] = w;
		}
		if (j->hi <= j->lo)
			break;
	}
	return NULL;
}

/* Rows from which a second thread measures half of them (its start and window: some 100 us). */
#define WIDTHS_MT 16384

void hist_key_widths(const struct hist_cells *c, const struct tally_hist *h, int idx,
		     const enum tally_hist_key *keys, int nkeys, int ipc_at,
		     struct tally_hist_row *win, size_t nwin, int *width)
{
	size_t n = tally_hist__nr_rows(h, idx);
	struct widths_job a = { .c = c, .h = h, .idx = idx, .keys = keys, .nkeys = nkeys,
				.ipc_at = ipc_at, .win = win, .nwin = nwin, .lo = 0, .hi = n };
	struct widths_job b = a;
	bool two = false;
	pthread_t th;

	/*
	 * a big table's second half on a second thread (the rows' copies wait
	 * on memory: a tenth of a 87k-row report): the widest of the two
	 */
	if (n >= WIDTHS_MT && cli_two_threads() && (b.win = malloc(nwin * sizeof(*b.win)))) {
		b.lo = a.hi = n / 2;
		two = !pthread_create(&th, NULL, widths_range, &b);
		if (!two) {
			free(b.win);
			a.hi = n;
		}
	}
	widths_range(&a);
	for (int i = 0; i < nkeys; i++)
		width[i] = a.width[i];
	if (!two)
		return;
	pthread_join(th, NULL);
	free(b.win);
	for (int i = 0; i < nkeys; i++)
		if (b.width[i] > width[i])
			width[i] = b.width[i];
}

/* The cell alone: pad 0 leaves it unpadded; a comm or trace is cut to width. */
static void put_cell(struct line *ln, const struct hist_cells *c, const struct tally_hist_row *e,
		     enum tally_hist_key k, int width, int pad)
{
	char buf[4096];
	const char *s = key_text(e, k);
	size_t l;

	if (s && k == K_SYM) {
		char lv[4] = { '[', e->level, ']', ' ' };

		line_put(ln, lv, sizeof(lv));
		width -= 4;
		pad = pad ? pad - 4 : 0;
	} else if (!s) {
		value(c, e, k, buf, sizeof(buf));
		s = buf;
	}
	l = strlen(s);
	/* perf's "%-*.*s": cut to the width; locked's, blocked's ("%.*s") and phys_daddr's */
	if ((k == K_COMM || k == K_TRACE || k == K_LOCKED || k == K_BLOCKED || k == K_PHYS) &&
	    l > (size_t)width)
		l = (size_t)width;
	line_left(ln, s, l, pad);
}

/*
 * a trace padded only when not last; a symbol, source line, lock or
 * block ("%.*s" cells) unpadded when last
 */
static int key_pad(enum tally_hist_key k, int width, bool last)
{
	return last && (k == K_SYM || k == K_SRCLINE || k == K_TRACE || k == K_LOCKED ||
			k == K_BLOCKED || k == K_SYM_DADDR || k == K_DCACHELINE ||
			k == TALLY_HIST_SYM_FROM || k == TALLY_HIST_SYM_TO || k == K_SYM_IADDR ||
			k == TALLY_HIST_ADDR_FROM || k == TALLY_HIST_ADDR_TO ||
			k == K_CGROUP || k == K_CGROUP_ID || k == K_TIME || k == K_SRCFILE) ? 0 : width;
}

void hist_key_put(struct line *ln, const struct hist_cells *c, const struct tally_hist_row *e,
		  enum tally_hist_key k, int width, bool last)
{
	line_put(ln, "  ", 2);
	put_cell(ln, c, e, k, width, key_pad(k, width, last));
}

void hist_key_put_sep(struct line *ln, const char *sep, bool first, const struct hist_cells *c,
		      const struct tally_hist_row *e, enum tally_hist_key k, int width, bool last)
{
	struct line cell = { .fp = NULL };

	put_cell(&cell, c, e, k, width, key_pad(k, width, last));
	line_sep_text(ln, sep, first, cell.b, cell.n);
}

void hist_key_put_level(struct line *ln, const struct hist_cells *c,
			const struct tally_hist_row *e, enum tally_hist_key k, int width)
{
	/* perf's skip_spaces of the cell: "%7d:" loses its leading spaces, keeps the padding */
	if (k == K_PID) {
		char buf[4096];
		int l = snprintf(buf, sizeof(buf), "%d:%s", e->tid, last_comm(c, e)),
		    lead = 7 - snprintf(NULL, 0, "%d", e->tid);

		line_left(ln, buf, (size_t)(l < (int)sizeof(buf) ? l : (int)sizeof(buf) - 1),
			  width - (lead > 0 ? lead : 0));
		return;
	}
	/* "%*d" right-aligned at the header's width: its leading spaces skipped, nothing after */
	if (k == K_DSO_SIZE || k == K_SYM_SIZE || k == K_SOCKET) {
		char buf[64];
		const char *s = buf;

		value(c, e, k, buf, sizeof(buf));
		while (*s == ' ')
			s++;
		line_put(ln, s, strlen(s));
		return;
	}
	/* sym, srcline and trace are perf's unpadded cells ("%.*s", "%-.*s"), cgroup's "%s" */
	put_cell(ln, c, e, k, width, k == K_SYM || k == K_SRCLINE || k == K_TRACE ||
		 k == K_SYM_IADDR || k == K_CGROUP || k == K_CGROUP_ID || k == K_TIME || k == K_SRCFILE ||
		 k == TALLY_HIST_ADDR_FROM || k == TALLY_HIST_ADDR_TO ||
		 (k == K_TXN && !e->transaction) ? 0 : width);	/* no flags: spaces, all skipped */
}

/* ---- -F ---- */

int hist_fields_parse(struct hist_fields *f, const char *spec, enum tally_hist_key *keys,
		      int *nkeys, uint64_t allowed, const char *cmd, const char *opt)
{
	static const struct { const char *name; int f; } nums[] = {
		{ "overhead", HF_OVERHEAD }, { "overhead_children", HF_CHILDREN },
		{ "period", HF_PERIOD }, { "sample", HF_SAMPLE }, { "symbol", K_SYM },
		{ "overhead_sys", HF_SYS }, { "overhead_us", HF_US },
		{ "overhead_guest_sys", HF_GUEST_SYS }, { "overhead_guest_us", HF_GUEST_US },
	};
	char *dup = strdup(spec), *tok, *save = NULL;
	bool have[64] = { false };

	if (!dup)
		return -1;
	f->n = 0;
	f->nsort_given = *nkeys;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int v = -1;

		for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]) && v < 0; i++)
			if (!strcmp(tok, nums[i].name))
				v = nums[i].f;
		for (int k = 0; k < K__NR && v < 0; k++)
			if (hist_keys[k].name && !strcmp(tok, hist_keys[k].name))
				v = k;
		if (v < 0 || (HIST_IS_KEY(v) && !(allowed & 1ull << v))) {
			fprintf(stderr, "tally %s: %s '%s': unknown field '%s' (overhead, "
				"overhead_sys, overhead_us, overhead_guest_sys, overhead_guest_us, "
				"overhead_children, period, sample", cmd, opt, spec, tok);
			for (int k = 0; k < K__NR; k++)
				if (hist_keys[k].name && allowed & 1ull << k && k != K_TRACE)
					fprintf(stderr, ", %s", hist_keys[k].name);
			fprintf(stderr, ")\n");
			free(dup);
			return -1;
		}
		if (have[v])
			continue;
		have[v] = true;
		f->col[f->n++] = v;
		if (!HIST_IS_KEY(v))
			continue;
		bool in_sort = false;

		for (int i = 0; i < *nkeys; i++)
			in_sort |= keys[i] == (enum tally_hist_key)v;
		if (!in_sort && *nkeys < K__NR)
			keys[(*nkeys)++] = (enum tally_hist_key)v;
	}
	free(dup);
	/* -s's keys -F does not name: columns at the end */
	for (int i = 0; i < *nkeys; i++)
		if (!have[keys[i]])
			f->col[f->n++] = keys[i];
	return 0;
}

bool hist_fields_cpu_util(const struct hist_fields *f)
{
	for (int i = 0; i < f->n; i++)
		if (f->col[i] >= HF_SYS && f->col[i] <= HF_GUEST_US)
			return true;
	return false;
}

int hist_fields_order(const struct hist_fields *f, const enum tally_hist_key *keys, int nkeys,
		      int *order)
{
	int n = 0;

	/* -s's keys: compared as perf keys its rows (an unresolved symbol by its address) */
	for (int i = 0; i < f->nsort_given; i++)
		order[n++] = keys[i] | TALLY_HIST_ORDER_AS_KEY;
	for (int i = 0; i < f->n; i++)
		if (f->col[i] != HF_IPC)	/* a column of no value: nothing to order by */
			order[n++] = f->col[i] == HF_PERIOD ? HF_OVERHEAD :
				     f->col[i] >= HF_SYS ? TALLY_HIST_BY_SYS + (f->col[i] - HF_SYS) :
				     f->col[i];
	for (int i = 0; i < nkeys; i++)
		order[n++] = keys[i];
	return n;
}

/* -F's count cell v of row e (every member's in a group, each of its total), -t's or padded */
static void count_cell(struct line *ln, const struct hist_table *t, int v, int i, bool last,
		       const struct tally_hist_row *e, double tot)
{
	int nr = t->gnr ? t->gnr : 1, w = 0;
	/* a member's width: perf's column's (its name's where longer: "guest sys") */
	int each = v == HF_PERIOD || v == HF_SAMPLE ? 12 : v >= HF_GUEST_SYS ? 9 : 8;
	char nb[64];

	if (t->sep && i)
		line_put(ln, t->sep, strlen(t->sep));
	else if (!t->sep)
		line_put(ln, "  ", 2);
	for (int k = 0; k < nr; k++) {
		const struct tally_hist_row *m = t->gnr ? &e[k] : e;
		double all = t->gnr ? (t->gtot[k] ? t->gtot[k] : 1) : tot;
		uint64_t c = v == HF_CHILDREN ? m->children : v == HF_SAMPLE ? m->samples :
			     v == HF_SYS ? m->period_sys : v == HF_US ? m->period_us :
			     v == HF_GUEST_SYS ? m->period_guest_sys :
			     v == HF_GUEST_US ? m->period_guest_us : m->self;
		int n;

		if (v == HF_PERIOD || v == HF_SAMPLE) {
			n = snprintf(nb, sizeof(nb), t->sep ? " %llu" : "%12llu", (unsigned long long)c);
		} else if (v == HF_CHILDREN && !t->children) {
			n = snprintf(nb, sizeof(nb), "     N/A");	/* perf's "%8s" */
		} else if (t->sep) {
			nb[0] = ' ';
			n = 1 + tally_hist__fmt_pct(nb + 1, sizeof(nb) - 2, 100.0 * (double)c / all);
			nb[n++] = '%';
		} else {
			struct line cell = { 0 };

			line_pct(&cell, 100.0 * (double)c / all, each - 1);
			memcpy(nb, cell.b, cell.n);
			n = (int)cell.n;
		}
		line_put(ln, nb, (size_t)n);
		w += n;
	}
	/* -t: perf pads a cell to its column's width unless it is the last */
	for (int width = nr * each; t->sep && !last && w < width; w++)
		line_putc(ln, ' ');
}

void hist_fields_print(const struct hist_fields *f, const struct hist_table *t,
		       const struct tally_hist_row *rows, size_t n)
{
	static const struct { int f; const char *head; int width; } num[] = {
		{ HF_OVERHEAD, "Overhead", 8 }, { HF_CHILDREN, "Children", 8 },
		{ HF_PERIOD, "Period", 12 }, { HF_SAMPLE, "Samples", 12 },
		{ HF_SYS, "sys", 8 }, { HF_US, "usr", 8 },
		{ HF_GUEST_SYS, "guest sys", 9 }, { HF_GUEST_US, "guest usr", 9 },
		{ HF_IPC, "IPC   [IPC Coverage]", 20 },
	};
	enum { NCOUNT = 8 };	/* num's counts, before IPC */
	int width[HIST_FIELDS_MAX], col[HIST_FIELDS_MAX], printed = 0;
	double tot = t->total ? (double)t->total : 1;
	FILE *fp = t->fp;

	int nr = t->gnr ? t->gnr : 1;

	for (int i = 0; i < f->n; i++) {
		for (col[i] = 0; col[i] < NCOUNT && num[col[i]].f != f->col[i]; col[i]++)
			;
		width[i] = HIST_IS_KEY(f->col[i]) ?
			   hist_key_width(t->cells, rows, n, (enum tally_hist_key)f->col[i]) :
			   num[col[i]].width * (col[i] < NCOUNT ? nr : 1);
	}
	for (int i = 0; t->header && i < f->n; i++) {
		fputs(i ? t->sep ? t->sep : "  " : "# ", fp);
		if (HIST_IS_KEY(f->col[i]))
			fprintf(fp, "%-*s", width[i], hist_keys[f->col[i]].header);
		else
			fprintf(fp, "%*s", width[i], num[col[i]].head);
	}
	if (t->sep && t->header)
		fputc('\n', fp);	/* -t: no dots */
	for (int i = 0; t->header && !t->sep && i < f->n; i++) {
		fputs(i ? "  " : "\n# ", fp);
		for (int k = 0; k < width[i]; k++)
			fputc('.', fp);
	}
	if (t->header && !t->sep)
		fputs("\n#\n", fp);
	for (size_t k = 0; k < n; k++) {
		const struct tally_hist_row *e = &rows[k];
		struct line ln = { .fp = fp };

		if (100.0 * (double)(t->children ? e->children : e->self) / tot < t->percent_limit)
			continue;
		if (t->entries && printed++ >= t->entries)
			break;
		for (int i = 0; i < f->n; i++) {
			int v = f->col[i];
			bool last = i == f->n - 1;

			if (v == HF_IPC) {	/* perf's ipc_null: no IPC without branch counts */
				char ipc[] = "-      -            ";

				if (t->sep)
					line_sep_text(&ln, t->sep, !i, ipc, sizeof(ipc) - 1);
				else
					line_put(&ln, "  -      -            ", 22);
			} else if (!HIST_IS_KEY(v)) {
				count_cell(&ln, t, v, i, last, t->gnr ? &t->grows[k * (size_t)nr] : e, tot);
			} else if (t->sep) {
				hist_key_put_sep(&ln, t->sep, !i, t->cells, e, (enum tally_hist_key)v, width[i],
						 last);
			} else {
				hist_key_put(&ln, t->cells, e, (enum tally_hist_key)v, width[i], last);
			}
		}
		line_putc(&ln, '\n');
		line_flush(&ln);
		if (t->graph)
			t->graph(fp, e, t->total, t->arg);
	}
}
