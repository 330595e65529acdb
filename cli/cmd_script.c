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
		uint16_t len;
		uint32_t off;
	} *fc;
	char *fc_text;
	size_t fc_used;
};

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
		       enum tally_cpumode mode, bool chain);

static void print_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
			enum tally_cpumode mode, bool chain)
{
	uint64_t h = (ip ^ (ip >> 17) ^ ((uint64_t)smp->pid << 7) ^ ((uint64_t)mode << 3) ^ chain) *
		     0x9e3779b97f4a7c15ULL;
	struct fc_ent *e = s->fc ? &s->fc[(h >> 40) & (FC_SLOTS - 1)] : NULL;
	size_t before = s->len;
	uint64_t flushes = s->flushes;

	if (e && e->len && e->ip == ip && e->pid == (int32_t)smp->pid && e->mode == mode &&
	    e->chain == chain && e->gen == s->ss->maps_gen) {
		ob_mem(s, s->fc_text + e->off, e->len);
		return;
	}
	make_frame(s, smp, ip, mode, chain);
	if (!e || flushes != s->flushes || s->len - before > UINT16_MAX)
		return;
	if (s->fc_used + (s->len - before) > FC_TEXT) {	/* full: start over */
		memset(s->fc, 0, FC_SLOTS * sizeof(*s->fc));
		s->fc_used = 0;
	}
	memcpy(s->fc_text + s->fc_used, s->buf + before, s->len - before);
	*e = (struct fc_ent){ .ip = ip, .gen = s->ss->maps_gen, .pid = (int32_t)smp->pid,
			      .mode = (uint8_t)mode, .chain = chain,
			      .len = (uint16_t)(s->len - before), .off = (uint32_t)s->fc_used };
	s->fc_used += s->len - before;
}

static void make_frame(struct script_ctx *s, const struct tally_sample *smp, uint64_t ip,
		       enum tally_cpumode mode, bool chain)
{
	struct tally_addr_info ai;
	bool found = !tally_symbols__resolve(s->ss->syms, s->ss->m, (int32_t)smp->pid,
					     (int32_t)smp->tid, ip, mode, &ai);
	/* in a chain perf prints the DSO-relative address, else the ip itself */
	uint64_t shown = chain && ai.map ? ai.map_ip : ip;

	if (chain)
		ob_chr(s, '\t');
	ob_num(s, shown, 16, 16, ' ');
	ob_chr(s, ' ');
	if (found) {
		ob_str(s, ai.sym->name);
		ob_str(s, "+0x");
		ob_num(s, ai.sym_off, 16, 0, '0');
	} else {
		ob_str(s, "[unknown]");
	}
	ob_str(s, " (");
	ob_str(s, ai.map ? (ai.map->kernel && !strncmp(ai.map->filename, "[kernel.kallsyms]", 17) ?
			    "[kernel.kallsyms]" : ai.map->filename) : "[unknown]");
	ob_str(s, ")\n");
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
		comm = unnamed_comm(ss->m, (int32_t)smp->pid, (int32_t)smp->tid);
	if (!comm)
		comm = ":-1";
	/* perf's layout: comm, tid, [cpu], time, period, event */
	ob_rstr(s, comm, chain && !tp ? 0 : 16);
	ob_chr(s, ' ');
	if ((int)smp->tid < 0) {
		char t[16];

		snprintf(t, sizeof(t), "%d", (int)smp->tid);
		ob_rstr(s, t, 5);
	} else {
		ob_num(s, smp->tid, 10, 5, ' ');
	}
	ob_chr(s, ' ');
	if (a->sample_type & PERF_SAMPLE_CPU) {
		ob_chr(s, '[');
		ob_num(s, smp->cpu, 10, 3, '0');
		ob_str(s, "] ");
	}
	ob_num(s, smp->time / 1000000000ull, 10, 5, ' ');
	ob_chr(s, '.');
	ob_num(s, smp->time % 1000000000ull / 1000, 10, 6, '0');
	ob_str(s, ": ");
	if (!tp) {
		/* without PERIOD in the samples, the attr's fixed one (as perf) */
		ob_num(s, (a->sample_type & PERF_SAMPLE_PERIOD) ? smp->period : a->sample_period,
		       10, 10, ' ');
		ob_chr(s, ' ');
	}
	ob_rstr(s, ss->names[idx], ss->name_width);
	ob_str(s, ": ");
	if (tp) {
		char info[4096];

		if (ss->tf && (a->sample_type & PERF_SAMPLE_RAW) && smp->raw.size &&
		    tally_trace_fmt__print(ss->tf, smp->raw.data, smp->raw.size, info,
					   sizeof(info)) > 0)
			ob_str(s, info);
		ob_chr(s, '\n');
		return;
	}
	if (!chain) {
		ob_chr(s, ' ');
		print_frame(s, smp, smp->ip, mode, false);
		return;
	}
	ob_chr(s, '\n');
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
	ob_chr(s, '\n');
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
	static struct script_ctx s;
	int ret;

	if (cli_parse("script", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (help) {
		cli_usage(stdout, script_usage, opts);
		return 0;
	}
	s.ss = &ss;
	s.out = stdout;
	s.fc = calloc(FC_SLOTS, sizeof(*s.fc));
	s.fc_text = malloc(FC_TEXT);
	if (!s.fc_text) {	/* no cache then: every frame made anew */
		free(s.fc);
		s.fc = NULL;
	}
	ss.on_sample = print_sample;
	ss.arg = &s;
	ret = session_open(&ss, "script", input);
	if (!ret)
		ret = session_run(&ss);
	ob_flush(&s);
	session_close(&ss);
	free(s.fc);
	free(s.fc_text);
	return ret;
}
