// SPDX-License-Identifier: MIT
/*
 * report's branch mode: perf 6.1's choice of it (cmd_report's
 * has_br_stack) and its branch statistics (util/branch.c's
 * branch_type_count and branch_type_stat_display); the files
 * --branch-history reads.
 */
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/tally.h>
#include "report_branch.h"

bool report_branch_data(struct tally_data_reader *rd, int nr_events)
{
	for (int i = 0; i < nr_events; i++)
		if (tally_data_reader__attr(rd, i)->sample_type & PERF_SAMPLE_BRANCH_STACK)
			return true;
	return false;
}

bool report_branch_mode(struct tally_data_reader *rd, int nr_events, int opt)
{
	struct tally_data_file_info fi;

	if (opt >= 0)
		return opt;
	if (tally_data_reader__is_pipe(rd) || tally_data_reader__file_info(rd, &fi) ||
	    !(fi.features[TALLY_HEADER_BRANCH_STACK / 64] >> (TALLY_HEADER_BRANCH_STACK % 64) & 1))
		return false;
	/* perf: a user stack (--call-graph dwarf) leaves branch mode off */
	for (int i = 0; i < nr_events; i++)
		if (tally_data_reader__attr(rd, i)->sample_type & PERF_SAMPLE_STACK_USER)
			return false;
	return true;
}

/* perf's cross_area: the two addresses in different aligned blocks of size */
static bool cross(uint64_t a, uint64_t b, uint64_t size)
{
	return (a & ~(size - 1)) != (b & ~(size - 1));
}

void report_branch_count(struct report_branch_stat *st, const struct tally_hist_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct tally_hist_row *e = &rows[i];
		unsigned type = e->br_flags >> 20 & 15, new_type = e->br_flags >> 26 & 15;
		uint64_t from = e->br_from.raw, to = e->br_to.raw, c = e->samples;

		if (type == PERF_BR_UNKNOWN || !from)
			continue;
		if (type == PERF_BR_EXTEND_ABI) {
			if (new_type < 8)
				st->new_counts[new_type] += c;
		} else {
			st->counts[type] += c;
			if (type == PERF_BR_COND) {
				if (to > from)
					st->cond_fwd += c;
				else
					st->cond_bwd += c;
			}
		}
		if (cross(from, to, 2 << 20))
			st->cross_2m += c;
		else if (cross(from, to, 4096))
			st->cross_4k += c;
	}
}

int report_branch_stats(struct tally_hist *h, const struct tally_hist_filter *f, int nr_events,
			struct report_branch_stat *st)
{
	bool filtered = f->comms || f->pids || f->tids || f->dsos || f->symbols || f->exclude_other;
	TALLY_OPTS(tally_hist_filter, none);
	TALLY_OPTS(tally_hist_row, row);
	int err = 0;

	if (filtered && ((err = tally_hist__set_filter(h, &none)) || (err = tally_hist__resort(h))))
		return err;
	for (int i = 0; i < nr_events; i++)
		for (size_t k = 0; k < tally_hist__nr_rows(h, i); k++)
			if (!tally_hist__row(h, i, k, &row))
				report_branch_count(st, &row, 1);
	if (filtered && !(err = tally_hist__set_filter(h, f)))
		err = tally_hist__resort(h);
	return err;
}

void report_branch_print(FILE *fp, const struct report_branch_stat *st)
{
	static const char *const names[16] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI",
	};
	static const char *const new_names[8] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4",
		"ARCH_5",
	};
	const struct { const char *name; uint64_t n; } parts[] = {
		{ "COND_FWD", st->cond_fwd }, { "COND_BWD", st->cond_bwd },
		{ "CROSS_4K", st->cross_4k }, { "CROSS_2M", st->cross_2m },
	};
	uint64_t total = 0;

	for (int i = 0; i < 16; i++)
		total += st->counts[i];
	if (!total)
		return;
	fprintf(fp, "\n#\n# Branch Statistics:\n#");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i].n)
			fprintf(fp, "\n%8s: %5.1f%%", parts[i].name, 100.0 * (double)parts[i].n / (double)total);
	for (int i = 0; i < 16; i++)
		if (st->counts[i])
			fprintf(fp, "\n%8s: %5.1f%%", names[i], 100.0 * (double)st->counts[i] / (double)total);
	for (int i = 0; i < 8; i++)
		if (st->new_counts[i])
			fprintf(fp, "\n%8s: %5.1f%%", new_names[i],
				100.0 * (double)st->new_counts[i] / (double)total);
}

/*
 * --branch-history's file: stacks perf reads (its header's BRANCH_STACK
 * feature, as branch mode's default). 0, or the exit status after saying why.
 */
int report_brhist_setup(struct tally_data_reader *rd, int nr_events)
{
	if (!report_branch_mode(rd, nr_events, -1)) {
		/* perf's words: it shows branch counts only where the header says stacks */
		fprintf(stderr, "Error:\nSelected -g or --branch-history.\nBut no callchain or branch data.\n"
			"Did you call 'perf record' without -g or -b?\n");
		return 1;
	}
	return 0;
}
