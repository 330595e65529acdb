// SPDX-License-Identifier: MIT
/*
 * tally trace -i: the syscalls a perf.data file recorded, as perf trace -i
 * shows them: raw_syscalls:sys_enter/sys_exit (perf record -e
 * 'raw_syscalls:*'), and syscalls:sys_enter_NAME/sys_exit_NAME, whose
 * samples are put in raw_syscalls' layout. The session reads the file (or
 * pipe) and puts its records in time order, as for report and script;
 * they are printed by the same code as a live trace, with the path
 * strings tally trace record kept in the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/data_read.h>
#include <tally/syscall_strings.h>
#include <tally/syscalls.h>
#include "read_file.h"
#include "trace.h"
#include "trace_out.h"

static const char progname[] = "tally trace";

/* What each attr of the file is to the trace. */
enum role { R_NONE, R_RAW_ENTER, R_RAW_EXIT, R_SC_ENTER, R_SC_EXIT };

struct fctx {
	struct trace_out *o;
	int nattrs;
	enum role *roles;
	int *sc_nr;			/* R_SC_*: the syscall of the attr */
};

/* An attr's role from its event name. */
static enum role role_of(const char *name, int *nr)
{
	if (!name)
		return R_NONE;
	if (!strcmp(name, "raw_syscalls:sys_enter"))
		return R_RAW_ENTER;
	if (!strcmp(name, "raw_syscalls:sys_exit"))
		return R_RAW_EXIT;
	if (!strncmp(name, "syscalls:sys_enter_", 19) && (*nr = tally_syscall__nr(name + 19)) >= 0)
		return R_SC_ENTER;
	if (!strncmp(name, "syscalls:sys_exit_", 18) && (*nr = tally_syscall__nr(name + 18)) >= 0)
		return R_SC_EXIT;
	return R_NONE;
}

/*
 * syscalls:sys_enter_NAME holds the number (int) at 8 and the arguments
 * it has from 16 on; sys_exit_NAME the number and the return value at
 * 16: both made raw_syscalls' (id at 8, args[6] or ret at 16).
 */
static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct fctx *c = ctx;
	enum role role = smp->attr < c->nattrs ? c->roles[smp->attr] : R_NONE;
	struct tally_record rec = {
		.type = PERF_RECORD_SAMPLE, .misc = smp->header->misc, .size = smp->header->size,
		.u.sample = *smp->sample,
	};
	uint8_t raw[64];

	(void)s;
	if (role == R_NONE)
		return 0;
	if (role == R_SC_ENTER || role == R_SC_EXIT) {
		int64_t nr = c->sc_nr[smp->attr];
		size_t have = rec.u.sample.raw.size > 16 ? rec.u.sample.raw.size - 16 : 0;

		memset(raw, 0, sizeof(raw));
		memcpy(raw + 8, &nr, sizeof(nr));
		if (have > 48)
			have = 48;
		if (role == R_SC_EXIT && have > 8)
			have = 8;
		if (have)
			memcpy(raw + 16, (const uint8_t *)rec.u.sample.raw.data + 16, have);
		rec.u.sample.raw.data = raw;
		rec.u.sample.raw.size = role == R_SC_ENTER ? 64 : 24;
	}
	trace_out__record(c->o, &rec, role == R_RAW_ENTER || role == R_SC_ENTER ? TRACE_ENTER :
			  TRACE_EXIT);
	return 0;
}

/* The side-band the trace uses: names, children, losses (in time order, as perf). */
static int on_other(struct tally_session *s, const struct perf_event_header *h,
		    const struct tally_record *rec, void *ctx)
{
	struct fctx *c = ctx;

	(void)s;
	if (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_LOST ||
	    h->type == PERF_RECORD_FORK)
		trace_out__record(c->o, rec, TRACE_OTHER);
	return 0;
}

int trace_file(const struct trace_config *cfg)
{
	struct fctx c = { 0 };
	/* no addresses resolved: no unwinding, names or kallsyms read ahead */
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .record = on_other, .ctx = &c,
		   .no_unwind = true, .no_inline = true, .no_comm = true, .no_preload = true);
	struct tally_session *s;
	struct trace_out o;
	const char *arch;
	bool any = false;
	int ret = 1, err;

	s = tally_session__open(cfg->input, &so);
	if (!s && (err = cli_bad_file(cfg->input)))
		return err;
	if (!s) {
		fprintf(stderr, "%s: cannot read %s: %s\n", progname, cfg->input,
			errno == ENODATA ? "no events in the file" : strerror(errno));
		return 1;
	}
	/* the recording's syscall numbers, not the host's: an arm64 file read on x86 */
	arch = tally_session__reader(s) ?
	       tally_data_reader__feat_string(tally_session__reader(s), TALLY_HEADER_ARCH) : NULL;
	if (arch && tally_syscall__set_arch(arch))
		fprintf(stderr, "%s: %s was recorded on %s, whose syscall table tally does not "
			"have: the host's names are shown\n", progname, cfg->input, arch);
	if (trace_out__init(&o, cfg))
		goto out_session;
	/* tally trace record's path strings; --no-strings: perf trace -i's lines; -s shows none */
	if (!cfg->no_strings && !cfg->summary_only && tally_session__reader(s)) {
		char why[160];

		o.strs = tally_sc_strings__from_file(tally_session__reader(s), why, sizeof(why));
		if (!o.strs && errno == EBADMSG)
			fprintf(stderr, "%s: %s: %s; paths are shown as pointers\n", progname,
				cfg->input, why);
	}
	c.o = &o;
	c.nattrs = tally_session__nr_events(s);
	c.roles = calloc((size_t)c.nattrs + 1, sizeof(*c.roles));
	c.sc_nr = calloc((size_t)c.nattrs + 1, sizeof(*c.sc_nr));
	if (!c.roles || !c.sc_nr) {
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		goto out;
	}
	for (int i = 0; i < c.nattrs; i++) {
		c.roles[i] = role_of(tally_session__event_name(s, i), &c.sc_nr[i]);
		any |= c.roles[i] != R_NONE;
	}
	if (!any) {
		fprintf(stderr, "%s: %s has no syscall events: record them with "
			"-e 'raw_syscalls:*' (or syscalls:sys_enter_NAME,syscalls:sys_exit_NAME)\n",
			progname, cfg->input);
		goto out;
	}
	err = tally_session__run(s);
	if (err == -ENOMEM) {
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		goto out;
	}
	trace_out__finish(&o);
	ret = 0;
	if (err) {
		const struct tally_data_error *e = tally_data_reader__error(tally_session__reader(s));

		/* what came before the bad record was shown */
		fprintf(stderr, "%s: %s: %s\n", progname, cfg->input,
			e && e->msg[0] ? e->msg : strerror(-err));
		ret = 1;
	}
out:
	free(c.roles);
	free(c.sc_nr);
	trace_out__release(&o);
out_session:
	tally_session__close(s);
	return ret;
}
