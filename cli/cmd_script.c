// SPDX-License-Identifier: MIT
/*
 * tally script: perf script's default text from a perf.data file (the
 * shared session layer reads it in time order): comm, tid, [cpu], time,
 * period, event, then the ip with symbol+offset and DSO, the call chain
 * one frame a line, or a tracepoint's fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "cli.h"
#include "parse_options.h"
#include "session.h"

struct script_ctx {
	struct session *ss;
	FILE *out;
};

static void print_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, bool chain)
{
	struct tally_addr_info ai;
	bool found = !tally_symbols__resolve(s->ss->syms, s->ss->m, (int32_t)smp->pid, (int32_t)smp->tid,
					     ip, mode, &ai);
	/* in a chain perf prints the DSO-relative address, else the ip itself */
	uint64_t shown = chain && ai.map ? ai.map_ip : ip;

	if (chain)
		fprintf(s->out, "\t%16llx ", (unsigned long long)shown);
	else
		fprintf(s->out, "%16llx ", (unsigned long long)shown);
	if (found)
		fprintf(s->out, "%s+0x%llx", ai.sym->name, (unsigned long long)ai.sym_off);
	else
		fputs("[unknown]", s->out);
	fprintf(s->out, " (%s)\n", ai.map ? (ai.map->kernel && !strncmp(ai.map->filename,
				"[kernel.kallsyms]", 17) ? "[kernel.kallsyms]" :
				ai.map->filename) : "[unknown]");
}

static void print_sample(struct session *ss, const struct perf_event_header *h, int idx,
			 const struct tally_record *rec, void *arg)
{
	struct script_ctx *s = arg;
	const struct perf_event_attr *a = tally_data_reader__attr(ss->rd, idx);
	const struct tally_sample *smp = &rec->u.sample;
	const char *comm;
	enum tally_cpumode mode = (enum tally_cpumode)(h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	bool chain = a->sample_type & PERF_SAMPLE_CALLCHAIN;
	bool tp = a->type == PERF_TYPE_TRACEPOINT;

	comm = tally_machine__comm_of(ss->m, (int32_t)smp->tid);
	if (!comm)
		comm = ":-1";
	if (chain && !tp)
		fprintf(s->out, "%s ", comm);
	else
		fprintf(s->out, "%16s ", comm);
	fprintf(s->out, "%5d ", (int)smp->tid);
	if (a->sample_type & PERF_SAMPLE_CPU)
		fprintf(s->out, "[%03u] ", smp->cpu);
	fprintf(s->out, "%5llu.%06llu: ", (unsigned long long)(smp->time / 1000000000ull),
		(unsigned long long)(smp->time % 1000000000ull / 1000));
	if (!tp && (a->sample_type & PERF_SAMPLE_PERIOD))
		fprintf(s->out, "%10llu ", (unsigned long long)smp->period);
	fprintf(s->out, "%*s: ", ss->name_width, ss->names[idx]);
	if (tp) {
		char info[4096];

		if (ss->tf && (a->sample_type & PERF_SAMPLE_RAW) && smp->raw.size &&
		    tally_trace_fmt__print(ss->tf, smp->raw.data, smp->raw.size, info,
					   sizeof(info)) > 0)
			fputs(info, s->out);
		fputc('\n', s->out);
		return;
	}
	if (!chain) {
		fputc(' ', s->out);
		print_frame(s, smp, smp->ip, mode, false);
		return;
	}
	fputc('\n', s->out);
	for (uint64_t i = 0; i < smp->callchain.nr; i++) {
		uint64_t ip = smp->callchain.ips[i];

		if (ip >= PERF_CONTEXT_MAX) {
			if (ip == PERF_CONTEXT_KERNEL)
				mode = TALLY_CPUMODE_KERNEL;
			else if (ip == PERF_CONTEXT_USER)
				mode = TALLY_CPUMODE_USER;
			continue;
		}
		print_frame(s, smp, ip, mode, true);
	}
	fputc('\n', s->out);
}

static const char *const script_usage[] = {
	"tally script [-i FILE]",
	"",
	"Print the samples of a perf.data file (tally's or perf's) as perf script does.",
	NULL,
};

int cmd_script(int argc, char **argv)
{
	const char *input = "perf.data";
	bool help = false;
	const struct cli_option opts[] = {
		CLI_STRING('i', "input", &input, "FILE", "the perf.data file (default perf.data)"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	struct session ss = { 0 };
	struct script_ctx s = { .ss = &ss, .out = stdout };
	int ret;

	if (cli_parse("script", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, script_usage, opts);
		return 0;
	}
	ss.on_sample = print_sample;
	ss.arg = &s;
	ret = session_open(&ss, "script", input);
	if (!ret)
		ret = session_run(&ss);
	session_close(&ss);
	return ret;
}
