// SPDX-License-Identifier: MIT
/*
 * perf c2c report --stdio's text (builtin-c2c.c, ui/stdio/hist.c): the
 * statistics, then the Shared Data Cache Line Table and the Pareto, whose
 * columns are perf's dimensions: a two-line header (a top text spanning
 * the columns after it), dots, then cells joined by two spaces, each
 * padded to its column but the last. The Pareto's header comes from the
 * first line's columns; each line's rows have their own symbol, object,
 * source and thread widths, as perf's per-line histograms.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "c2c_print.h"

enum col_kind {
	C_IDX, C_CL, C_CL_NODE, C_PA_CNT, C_PCT_COSTLY, C_TOT_HITM, C_LCL_HITM, C_RMT_HITM,
	C_TOT_PEER, C_LCL_PEER, C_RMT_PEER, C_RECS, C_LOADS, C_STORES, C_ST_L1HIT,
	C_ST_L1MISS, C_ST_NA, C_FB, C_L1, C_L2, C_LLCHIT, C_RMTHIT, C_DRAM_LCL, C_DRAM_RMT,
	/* the Pareto's */
	C_NUM, C_NUM_EMPTY, C_PCT_RMT_HITM, C_PCT_LCL_HITM, C_PCT_RMT_PEER, C_PCT_LCL_PEER,
	C_PCT_ST_L1HIT, C_PCT_ST_L1MISS, C_PCT_ST_NA, C_OFFSET, C_OFF_NODE, C_PID, C_TID,
	C_IADDR, C_MEAN_RMT, C_MEAN_LCL, C_MEAN_RMT_PEER, C_MEAN_LCL_PEER, C_MEAN_LOAD,
	C_CPUCNT, C_SYM, C_DSO, C_SRC, C_NODE,
};

struct col {
	enum col_kind k;
	const char *h[2];
	int span;			/* of the top line */
	int width;
};

struct widths {
	int sym, dso, src, tid, off_node;
};

/* a text line being built */
struct ln {
	char b[4096];
	size_t n;
};

static void put(struct ln *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct ln *l, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (l->n >= sizeof(l->b) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(l->b + l->n, sizeof(l->b) - l->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		l->n += (size_t)r < sizeof(l->b) - l->n ? (size_t)r : sizeof(l->b) - 1 - l->n;
}

static int col_width(const struct col *c, const struct widths *w)
{
	switch (c->k) {
	case C_SYM: return w->sym;
	case C_DSO: return w->dso;
	case C_SRC: return w->src;
	case C_TID: return w->tid;
	case C_OFF_NODE: return w->off_node;
	default: return c->width;
	}
}

static bool is_se(enum col_kind k)
{
	return k == C_SYM || k == C_DSO || k == C_SRC || k == C_TID;
}

/* perf's fprintf_line over its c2c_header: a spanning text shows once its span ends */
static void print_headers(FILE *fp, const struct col *cols, int n, const struct widths *w)
{
	for (int line = 0; line < 2; line++) {
		struct ln l = { .n = 0 }, cell = { .n = 0 };
		int span = 0;

		put(&l, "# ");
		for (int i = 0; i < n; i++) {
			const char *t = cols[i].h[line];

			if (i && !span)
				put(&l, "  ");
			if (is_se(cols[i].k)) {
				cell.n = 0;
				put(&cell, "%*s", col_width(&cols[i], w), t ? t : "");
			} else if (span) {
				span--;
			} else {
				span = line ? 0 : cols[i].span;
				cell.n = 0;
				put(&cell, "%*s", col_width(&cols[i], w), t ? t : "");
			}
			if (!span)
				put(&l, "%s", cell.b);
		}
		fprintf(fp, "%s\n", l.b);
	}
	fprintf(fp, "# ");
	for (int i = 0; i < n; i++) {
		if (i)
			fprintf(fp, "  ");
		for (int k = col_width(&cols[i], w); k > 0; k--)
			fputc('.', fp);
	}
	fprintf(fp, "\n#\n");
}

static double pct(uint32_t v, uint32_t tot)
{
	return tot ? 100. * (double)v / (double)tot : 0;
}

/* "%.2F%%" in the column */
static void put_pct(struct ln *l, int width, double p)
{
	char b[16];

	snprintf(b, sizeof(b), "%.2F%%", p);
	put(l, "%*s", width, b);
}

static void put_mean(struct ln *l, int width, double m)
{
	char b[16];

	snprintf(b, sizeof(b), "%6.0f", m);
	put(l, "%*s", width, b);
}

static int popcount(const uint64_t *bits, int nbits)
{
	int n = 0;

	/* the library sets no bit past nbits */
	for (int w = 0; w < (nbits + 63) / 64; w++)
		n += __builtin_popcountll(bits[w]);
	return n;
}

static uint32_t disp_count(enum tally_c2c_display d, const struct tally_c2c_stats *st)
{
	switch (d) {
	case TALLY_C2C_LCL: return st->lcl_hitm;
	case TALLY_C2C_RMT: return st->rmt_hitm;
	case TALLY_C2C_PEER: return st->tot_peer;
	default: return st->tot_hitm;
	}
}

/* perf's node_entry: the nodes of the entry's CPUs, with -N their shares, -NN their CPUs */
static void put_nodes(struct ln *l, const struct c2c_print *p, const struct tally_c2c_entry *e)
{
	int nodes = tally_c2c__nr_nodes(p->c), ncpu = tally_c2c__nr_cpus(p->c);
	bool first = true;

	for (int node = 0; node < nodes; node++) {
		const uint64_t *set = tally_c2c__node_cpus(p->c, node);
		uint64_t both[1024];	/* the library's bound: 65536 CPUs */
		int num = 0, words = (ncpu + 63) / 64;

		for (int k = 0; k < words && k < 1024; k++) {
			both[k] = set[k] & e->cpus[k];
			num += __builtin_popcountll(both[k]);
		}
		if (!num) {
			if (p->node_info == 1)
				put(l, "%21s", " ");
			continue;
		}
		if (!first)
			put(l, " ");
		first = false;
		if (p->node_info == 0) {
			put(l, "%2d", node);
		} else if (p->node_info == 1) {
			const struct tally_c2c_stats *ns = &e->node_stats[node];
			uint32_t sum = disp_count(p->display, e->stats);

			put(l, "%2d{%2d ", node, num);
			if (sum)
				put(l, "%5.1f%% ", pct(disp_count(p->display, ns), sum));
			else
				put(l, "%6s ", "n/a");
			if (e->stats->store)
				put(l, "%5.1f%%}", pct(ns->store, e->stats->store));
			else
				put(l, "%6s}", "n/a");
		} else {
			put(l, "%2d{", node);
			for (int k = 0, any = 0; k < ncpu && k < 65536; k++) {
				int j = k;

				if (!(both[k / 64] >> (k % 64) & 1))
					continue;
				while (j + 1 < ncpu && j + 1 < 65536 && (both[(j + 1) / 64] >> ((j + 1) % 64) & 1))
					j++;
				put(l, k < j ? "%s%d-%d" : "%s%d", any++ ? "," : "", k, j);
				k = j;
			}
			put(l, "}");
		}
	}
}

/* perf's sort_sym cell: "[.] name", cut to the column */
static void put_sym(struct ln *l, const struct tally_c2c_entry *e, int width)
{
	put(l, "[%c] ", e->level);
	if (e->sym && e->object)
		put(l, "%s+0x%llx", e->sym, (unsigned long long)e->object_off);
	else if (e->sym)
		put(l, "%.*s", width - 4 > 0 ? width - 4 : 0, e->sym);
	else
		put(l, "%-#.*llx", 16, (unsigned long long)e->iaddr);
}

/* one cell; the line's stats for the table's, the entry's in the Pareto */
static void put_cell(struct ln *l, const struct c2c_print *p, const struct col *c, int width,
		     const struct tally_c2c_line *ln, const struct tally_c2c_entry *e)
{
	const struct tally_c2c_stats *st = e ? e->stats : ln->stats, *tl = ln->stats;
	const struct tally_c2c_stats *all = tally_c2c__totals(p->c);
	char b[64];

	switch (c->k) {
	case C_IDX: case C_NUM:
		snprintf(b, sizeof(b), "%u", ln->idx);
		put(l, "%*s", width, b);
		break;
	case C_NUM_EMPTY: put(l, "%*s", width, ""); break;
	case C_CL:
		snprintf(b, sizeof(b), "0x%llx", (unsigned long long)ln->addr);
		put(l, "%*s", width, b);
		break;
	case C_CL_NODE: case C_OFF_NODE: put(l, "%*s", width, e ? e->nodes : ln->nodes); break;
	case C_PA_CNT: put(l, "%*llu", width, (unsigned long long)(e ? e->paddr_cnt : ln->paddr_cnt)); break;
	case C_PCT_COSTLY: {
		uint32_t v = p->display == TALLY_C2C_PEER ? st->tot_peer : p->display == TALLY_C2C_LCL ?
			     st->lcl_hitm : p->display == TALLY_C2C_RMT ? st->rmt_hitm : st->tot_hitm;
		uint32_t t = p->display == TALLY_C2C_PEER ? all->tot_peer : p->display == TALLY_C2C_LCL ?
			     all->lcl_hitm : p->display == TALLY_C2C_RMT ? all->rmt_hitm : all->tot_hitm;

		/* perf's int division's share */
		put_pct(l, width, 100 * (t ? (double)v / t : 0));
		break;
	}
	case C_TOT_HITM: put(l, "%*u", width, st->lcl_hitm + st->rmt_hitm); break;
	case C_LCL_HITM: put(l, "%*u", width, st->lcl_hitm); break;
	case C_RMT_HITM: put(l, "%*u", width, st->rmt_hitm); break;
	case C_TOT_PEER: put(l, "%*u", width, st->tot_peer); break;
	case C_LCL_PEER: put(l, "%*u", width, st->lcl_peer); break;
	case C_RMT_PEER: put(l, "%*u", width, st->rmt_peer); break;
	case C_RECS: put(l, "%*llu", width, (unsigned long long)tally_c2c_stats__records(st)); break;
	case C_LOADS: put(l, "%*llu", width, (unsigned long long)tally_c2c_stats__loads(st)); break;
	case C_STORES: put(l, "%*u", width, st->store); break;
	case C_ST_L1HIT: put(l, "%*u", width, st->st_l1hit); break;
	case C_ST_L1MISS: put(l, "%*u", width, st->st_l1miss); break;
	case C_ST_NA: put(l, "%*u", width, st->st_na); break;
	case C_FB: put(l, "%*u", width, st->ld_fbhit); break;
	case C_L1: put(l, "%*u", width, st->ld_l1hit); break;
	case C_L2: put(l, "%*u", width, st->ld_l2hit); break;
	case C_LLCHIT: put(l, "%*u", width, st->ld_llchit); break;
	case C_RMTHIT: put(l, "%*u", width, st->rmt_hit); break;
	case C_DRAM_LCL: put(l, "%*u", width, st->lcl_dram); break;
	case C_DRAM_RMT: put(l, "%*u", width, st->rmt_dram); break;
	case C_PCT_RMT_HITM: put_pct(l, width, pct(st->rmt_hitm, tl->rmt_hitm)); break;
	case C_PCT_LCL_HITM: put_pct(l, width, pct(st->lcl_hitm, tl->lcl_hitm)); break;
	case C_PCT_RMT_PEER: put_pct(l, width, pct(st->rmt_peer, tl->rmt_peer)); break;
	case C_PCT_LCL_PEER: put_pct(l, width, pct(st->lcl_peer, tl->lcl_peer)); break;
	case C_PCT_ST_L1HIT: put_pct(l, width, pct(st->st_l1hit, tl->st_l1hit)); break;
	case C_PCT_ST_L1MISS: put_pct(l, width, pct(st->st_l1miss, tl->st_l1miss)); break;
	case C_PCT_ST_NA: put_pct(l, width, pct(st->st_na, tl->st_na)); break;
	case C_OFFSET:
		snprintf(b, sizeof(b), "0x%llx", (unsigned long long)e->offset);
		put(l, "%*s", width, b);
		break;
	case C_PID: put(l, "%*d", width, e->pid); break;
	case C_TID: {
		int w = (width > 7 ? width : 7) - 8;

		put(l, "%7d:%-*.*s", e->tid, w, w, e->comm ? e->comm : "");
		break;
	}
	case C_IADDR:
		snprintf(b, sizeof(b), "0x%llx", (unsigned long long)e->iaddr);
		put(l, "%*s", width, b);
		break;
	case C_MEAN_RMT: put_mean(l, width, e->mean_rmt_hitm); break;
	case C_MEAN_LCL: put_mean(l, width, e->mean_lcl_hitm); break;
	case C_MEAN_RMT_PEER: put_mean(l, width, e->mean_rmt_peer); break;
	case C_MEAN_LCL_PEER: put_mean(l, width, e->mean_lcl_peer); break;
	case C_MEAN_LOAD: put_mean(l, width, e->mean_load); break;
	case C_CPUCNT:
		snprintf(b, sizeof(b), "%d", popcount(e->cpus, tally_c2c__nr_cpus(p->c)));
		put(l, "%*s", width, b);
		break;
	case C_SYM: put_sym(l, e, width); break;
	case C_DSO: put(l, "%-*.*s", width, width, e->dso ? e->dso : "[unknown]"); break;
	case C_SRC: put(l, "%-.*s", width, e->srcline ? e->srcline : "??:0"); break;
	case C_NODE: put_nodes(l, p, e); break;
	}
}

/* "  " before every cell, each padded to its column but the last (perf's alignment) */
static void print_row(FILE *fp, const struct c2c_print *p, const struct col *cols, int n,
		      const struct widths *w, const struct tally_c2c_line *ln,
		      const struct tally_c2c_entry *e, bool pad_last)
{
	struct ln l = { .n = 0 };

	for (int i = 0; i < n; i++) {
		int width = col_width(&cols[i], w);
		size_t at;

		put(&l, "  ");
		at = l.n;
		put_cell(&l, p, &cols[i], width, ln, e);
		if ((i < n - 1 || pad_last) && l.n - at < (size_t)width)
			put(&l, "%-*s", (int)(width - (l.n - at)), " ");
	}
	fprintf(fp, "%s\n", l.b);
}

/* perf's fill_line: the name centred in dashes */
static void fill_line(char *buf, const char *name, int len)
{
	int i, j = len / 2 - (int)strlen(name) / 2, olen = (int)strlen(name);

	for (i = 0; i < j - 1; i++)
		buf[i] = '-';
	buf[i++] = ' ';
	memcpy(buf + i, name, (size_t)olen);
	i += olen;
	buf[i++] = ' ';
	for (; i < len; i++)
		buf[i] = '-';
	buf[i > len ? i : len] = 0;
}

static void print_stats(FILE *fp, const struct c2c_print *p)
{
	const struct tally_c2c_stats *st = tally_c2c__totals(p->c), *sh;
	int llc = (int)tally_c2c_stats__llc_misses(st), nr_shared;
	static const char *const bar = "=================================================\n";

	fprintf(fp, "%s            Trace Event Information              \n%s", bar, bar);
#define L(name, v) fprintf(fp, "  %-34s: %10d\n", name, (int)(v))
#define PCT(name, v) fprintf(fp, "  %-34s: %10.1f%%\n", name, ((double)(v) / (double)llc) * 100.)
	L("Total records", st->nr_entries);
	L("Locked Load/Store Operations", st->locks);
	L("Load Operations", st->load);
	L("Loads - uncacheable", st->ld_uncache);
	L("Loads - IO", st->ld_io);
	L("Loads - Miss", st->ld_miss);
	L("Loads - no mapping", st->ld_noadrs);
	L("Load Fill Buffer Hit", st->ld_fbhit);
	L("Load L1D hit", st->ld_l1hit);
	L("Load L2D hit", st->ld_l2hit);
	L("Load LLC hit", st->ld_llchit + st->lcl_hitm);
	L("Load Local HITM", st->lcl_hitm);
	L("Load Remote HITM", st->rmt_hitm);
	L("Load Remote HIT", st->rmt_hit);
	L("Load Local DRAM", st->lcl_dram);
	L("Load Remote DRAM", st->rmt_dram);
	L("Load MESI State Exclusive", st->ld_excl);
	L("Load MESI State Shared", st->ld_shared);
	L("Load LLC Misses", llc);
	L("Load access blocked by data", st->blk_data);
	L("Load access blocked by address", st->blk_addr);
	L("Load HIT Local Peer", st->lcl_peer);
	L("Load HIT Remote Peer", st->rmt_peer);
	PCT("LLC Misses to Local DRAM", st->lcl_dram);
	PCT("LLC Misses to Remote DRAM", st->rmt_dram);
	PCT("LLC Misses to Remote cache (HIT)", st->rmt_hit);
	PCT("LLC Misses to Remote cache (HITM)", st->rmt_hitm);
	L("Store Operations", st->store);
	L("Store - uncacheable", st->st_uncache);
	L("Store - no mapping", st->st_noadrs);
	L("Store L1D Hit", st->st_l1hit);
	L("Store L1D Miss", st->st_l1miss);
	L("Store No available memory level", st->st_na);
	L("No Page Map Rejects", st->nomap);
	L("Unable to parse data source", st->noparse);

	sh = tally_c2c__shared(p->c, &nr_shared);
	fprintf(fp, "\n%s    Global Shared Cache Line Event Information   \n%s", bar, bar);
	L("Total Shared Cache Lines", nr_shared);
	L("Load HITs on shared lines", sh->load);
	L("Fill Buffer Hits on shared lines", sh->ld_fbhit);
	L("L1D hits on shared lines", sh->ld_l1hit);
	L("L2D hits on shared lines", sh->ld_l2hit);
	L("LLC hits on shared lines", sh->ld_llchit + sh->lcl_hitm);
	L("Load hits on peer cache or nodes", sh->lcl_peer + sh->rmt_peer);
	L("Locked Access on shared lines", sh->locks);
	L("Blocked Access on shared lines", sh->blk_data + sh->blk_addr);
	L("Store HITs on shared lines", sh->store);
	L("Store L1D hits on shared lines", sh->st_l1hit);
	L("Store No available memory level", sh->st_na);
	L("Total Merged records", sh->lcl_hitm + sh->rmt_hitm + sh->store);
#undef L
#undef PCT

	fprintf(fp, "\n%s                 c2c details                     \n%s", bar, bar);
	for (int i = 0; i < tally_session__nr_events(p->ss); i++)
		fprintf(fp, "%-36s: %s\n", i ? "" : "  Events", tally_session__event_name(p->ss, i));
	static const char *const disp[] = { "Total HITMs", "Local HITMs", "Remote HITMs", "Peer Snoop" };
	fprintf(fp, "  Cachelines sort on                : %s\n", disp[p->display]);
	fprintf(fp, "  Cacheline data grouping           : offset,%s\n", p->coalesce);
}

#define COL(k, h0, h1, span, w) ((struct col){ (k), { (h0), (h1) }, (span), (w) })

/* the widths of line i's columns, from all its entries as perf's per-line histogram's */
static void line_widths(const struct c2c_print *p, size_t i, struct widths *w, int off_node)
{
	TALLY_OPTS(tally_c2c_line, ln);
	int comm = 0;

	memset(w, 0, sizeof(*w));
	w->off_node = off_node;
	tally_c2c__line(p->c, i, &ln);
	for (size_t j = 0; j < ln.nr_entries; j++) {
		TALLY_OPTS(tally_c2c_entry, e);
		int s;

		tally_c2c__entry(p->c, i, j, &e);
		s = e.sym ? (int)strlen(e.sym) + 4 : 16 + 4 + 2;
		if (s > w->sym)
			w->sym = s;
		if (!e.sym && w->dso < 16)
			w->dso = 16;
		if (e.dso && (int)strlen(e.dso) > w->dso)
			w->dso = (int)strlen(e.dso);
		if (e.comm && (int)strlen(e.comm) > comm)
			comm = (int)strlen(e.comm);
		if (p->show_src) {
			s = (int)strlen(e.srcline ? e.srcline : "??:0");
			if (s < 11)
				s = 11;
			if (s > w->src)
				w->src = s;
		}
	}
	w->tid = comm ? comm + 8 : 0;
	if (!p->full_symbols) {
		w->sym = w->sym < 30 ? w->sym : 30;
		w->src = w->src < 30 ? w->src : 30;
	}
}

int c2c_print(const struct c2c_print *p, FILE *fp)
{
	static const char *const bar = "=================================================\n";
	bool peer = p->display == TALLY_C2C_PEER;
	static const char *const costly[][2] = { { "Tot", "Hitm" }, { "Lcl", "Hitm" },
						 { "Rmt", "Hitm" }, { "Peer", "Snoop" } };
	char cl_top[64], off_top[64];
	size_t nl = tally_c2c__nr_lines(p->c);
	int off_node = 4;
	struct widths w0 = { 0 };

	print_stats(fp, p);
	if (p->stats_only)
		return fflush(fp) || ferror(fp) ? -1 : 0;

	/* perf widens the offsets' Node column to the longest node list shown */
	for (size_t i = 0; i < nl; i++) {
		TALLY_OPTS(tally_c2c_line, ln);

		tally_c2c__line(p->c, i, &ln);
		if ((int)strlen(ln.nodes) > off_node)
			off_node = (int)strlen(ln.nodes);
		for (size_t j = 0; j < ln.nr_entries; j++) {
			TALLY_OPTS(tally_c2c_entry, e);

			tally_c2c__entry(p->c, i, j, &e);
			if ((int)strlen(e.nodes) > off_node)
				off_node = (int)strlen(e.nodes);
		}
	}
	fill_line(cl_top, "Cacheline", 18 + 4 + 6 + 4);
	fill_line(off_top, "Data address", 18 + off_node + 6 + 4);

	const struct col table[] = {
		COL(C_IDX, NULL, "Index", 0, 5),
		COL(C_CL, cl_top, "Address", 2, 18),
		COL(C_CL_NODE, NULL, "Node", 0, 4),
		COL(C_PA_CNT, NULL, "PA cnt", 0, 6),
		COL(C_PCT_COSTLY, costly[p->display][0], costly[p->display][1], 0, 7),
		peer ? COL(C_TOT_PEER, "------- Load Peer -------", "Total", 2, 7) :
		       COL(C_TOT_HITM, "------- Load Hitm -------", "Total", 2, 7),
		peer ? COL(C_LCL_PEER, NULL, "Local", 0, 7) : COL(C_LCL_HITM, NULL, "LclHitm", 0, 7),
		peer ? COL(C_RMT_PEER, NULL, "Remote", 0, 7) : COL(C_RMT_HITM, NULL, "RmtHitm", 0, 7),
		COL(C_RECS, "Total", "records", 0, 7),
		COL(C_LOADS, "Total", "Loads", 0, 7),
		COL(C_STORES, "Total", "Stores", 0, 7),
		COL(C_ST_L1HIT, "--------- Stores --------", "L1Hit", 2, 7),
		COL(C_ST_L1MISS, NULL, "L1Miss", 0, 7),
		COL(C_ST_NA, NULL, "N/A", 0, 7),
		COL(C_FB, "----- Core Load Hit -----", "FB", 2, 7),
		COL(C_L1, NULL, "L1", 0, 7),
		COL(C_L2, NULL, "L2", 0, 7),
		COL(C_LLCHIT, "- LLC Load Hit --", "LclHit", 1, 8),
		COL(C_LCL_HITM, NULL, "LclHitm", 0, 7),
		COL(C_RMTHIT, "- RMT Load Hit --", "RmtHit", 1, 8),
		COL(C_RMT_HITM, NULL, "RmtHitm", 0, 7),
		COL(C_DRAM_LCL, "--- Load Dram ----", "Lcl", 1, 8),
		COL(C_DRAM_RMT, NULL, "Rmt", 0, 8),
	};
	int nt = (int)(sizeof(table) / sizeof(table[0]));

	fprintf(fp, "\n%s           Shared Data Cache Line Table          \n%s#\n", bar, bar);
	print_headers(fp, table, nt, &w0);
	for (size_t i = 0; i < nl; i++) {
		TALLY_OPTS(tally_c2c_line, ln);

		tally_c2c__line(p->c, i, &ln);
		print_row(fp, p, table, nt, &w0, &ln, NULL, false);
	}

	const struct col cl_row[] = {
		COL(C_NUM, NULL, "Num", 0, 5),
		peer ? COL(C_RMT_PEER, NULL, NULL, 0, 7) : COL(C_RMT_HITM, NULL, NULL, 0, 7),
		peer ? COL(C_LCL_PEER, NULL, NULL, 0, 7) : COL(C_LCL_HITM, NULL, NULL, 0, 7),
		COL(C_ST_L1HIT, NULL, NULL, 0, 7),
		COL(C_ST_L1MISS, NULL, NULL, 0, 7),
		COL(C_ST_NA, NULL, NULL, 0, 7),
		COL(C_CL, NULL, NULL, 0, 18),
	};
	struct col pareto[32];
	int np = 0;
	static const char *const node_hdr[] = { "Node", NULL, "Node{cpu list}" };

	pareto[np++] = COL(C_NUM_EMPTY, NULL, "Num", 0, 5);
	if (peer) {
		pareto[np++] = COL(C_PCT_RMT_PEER, "-- Peer Snoop --", "Rmt", 1, 7);
		pareto[np++] = COL(C_PCT_LCL_PEER, NULL, "Lcl", 0, 7);
	} else {
		pareto[np++] = COL(C_PCT_RMT_HITM, "----- HITM -----", "RmtHitm", 1, 7);
		pareto[np++] = COL(C_PCT_LCL_HITM, NULL, "LclHitm", 0, 7);
	}
	pareto[np++] = COL(C_PCT_ST_L1HIT, "------- Store Refs ------", "L1 Hit", 2, 7);
	pareto[np++] = COL(C_PCT_ST_L1MISS, NULL, "L1 Miss", 0, 7);
	pareto[np++] = COL(C_PCT_ST_NA, NULL, "N/A", 0, 7);
	pareto[np++] = COL(C_OFFSET, off_top, "Offset", 2, 18);
	pareto[np++] = COL(C_OFF_NODE, NULL, "Node", 0, 4);
	pareto[np++] = COL(C_PA_CNT, NULL, "PA cnt", 0, 6);
	if (p->show_pid)
		pareto[np++] = COL(C_PID, NULL, "Pid", 0, 7);
	if (p->show_tid)
		pareto[np++] = COL(C_TID, NULL, "Tid", 0, 0);
	if (p->show_iaddr)
		pareto[np++] = COL(C_IADDR, NULL, "Code address", 0, 18);
	if (peer) {
		pareto[np++] = COL(C_MEAN_RMT_PEER, "---------- cycles ----------", "rmt peer", 2, 8);
		pareto[np++] = COL(C_MEAN_LCL_PEER, NULL, "lcl peer", 0, 8);
	} else {
		pareto[np++] = COL(C_MEAN_RMT, "---------- cycles ----------", "rmt hitm", 2, 8);
		pareto[np++] = COL(C_MEAN_LCL, NULL, "lcl hitm", 0, 8);
	}
	pareto[np++] = COL(C_MEAN_LOAD, NULL, "load", 0, 8);
	pareto[np++] = COL(C_RECS, "Total", "records", 0, 7);
	pareto[np++] = COL(C_CPUCNT, "cpu", "cnt", 0, 8);
	if (p->show_iaddr)
		pareto[np++] = COL(C_SYM, NULL, "Symbol", 0, 0);
	if (p->show_dso)
		pareto[np++] = COL(C_DSO, "Shared", "Object", 0, 0);
	if (p->show_src)
		pareto[np++] = COL(C_SRC, NULL, "Source:Line", 0, 0);
	pareto[np++] = COL(C_NODE, NULL,
		p->node_info == 1 ? (peer ? "Node{cpus %peers %stores}" : "Node{cpus %hitms %stores}") :
		node_hdr[p->node_info > 2 ? 2 : p->node_info], 0, 4);

	fprintf(fp, "\n%s      Shared Cache Line Distribution Pareto      \n%s#\n", bar, bar);
	for (size_t i = 0; i < nl; i++) {
		TALLY_OPTS(tally_c2c_line, ln);
		struct widths w;

		tally_c2c__line(p->c, i, &ln);
		line_widths(p, i, &w, off_node);
		if (!i)
			print_headers(fp, pareto, np, &w);
		else
			fprintf(fp, "\n");
		fprintf(fp, "  ----------------------------------------------------------------------\n");
		print_row(fp, p, cl_row, (int)(sizeof(cl_row) / sizeof(cl_row[0])), &w, &ln, NULL, true);
		fprintf(fp, "  ----------------------------------------------------------------------\n");
		for (size_t j = 0; j < ln.nr_entries; j++) {
			TALLY_OPTS(tally_c2c_entry, e);

			tally_c2c__entry(p->c, i, j, &e);
			if (e.shown)
				print_row(fp, p, pareto, np, &w, &ln, &e, false);
		}
	}
	return fflush(fp) || ferror(fp) ? -1 : 0;
}
