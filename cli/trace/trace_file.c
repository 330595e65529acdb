// SPDX-License-Identifier: MIT
/*
 * tally trace -i: the syscalls a perf.data file recorded, as perf trace -i
 * shows them: raw_syscalls:sys_enter/sys_exit (perf record -e
 * 'raw_syscalls:*'), and syscalls:sys_enter_NAME/sys_exit_NAME, whose
 * samples are put in raw_syscalls' layout. The records are read whole,
 * put in time order (each CPU's ring went to the file in rounds), then
 * printed by the same code as a live trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/data_read.h>
#include <tally/syscalls.h>
#include "read_file.h"
#include "trace.h"
#include "trace_out.h"

static const char progname[] = "tally trace";

/* What each attr of the file is to the trace. */
enum role { R_NONE, R_RAW_ENTER, R_RAW_EXIT, R_SC_ENTER, R_SC_EXIT };

struct frec {
	uint64_t time, seq;
	int attr;
	struct perf_event_header *h;
};

struct fctx {
	struct tally_data_reader *r;
	int nattrs;
	enum role *roles;
	int *sc_nr;			/* R_SC_*: the syscall of the attr */
	struct tally_record_layout *lays;
	struct frec *v;
	size_t n, cap;
	int err;
};

static int collect(void *arg, const struct perf_event_header *h, uint64_t off, int attr)
{
	struct fctx *c = arg;
	struct tally_record rec;
	struct frec *f;

	(void)off;
	if (h->type != PERF_RECORD_SAMPLE && h->type != PERF_RECORD_COMM &&
	    h->type != PERF_RECORD_LOST && h->type != PERF_RECORD_FORK)
		return 0;
	if (attr < 0) {
		/* several attrs: the record's id says which (IDENTIFIER: any layout finds it) */
		uint64_t id;

		attr = !tally_record__id(h, h->size, &c->lays[0], &id) ?
		       tally_data_reader__attr_of_id(c->r, id) : 0;
	}
	if (attr < 0 || attr >= c->nattrs)
		attr = 0;
	if (h->type == PERF_RECORD_SAMPLE && c->roles[attr] == R_NONE)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		struct frec *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			return c->err = -ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	f = &c->v[c->n];
	f->h = malloc(h->size);
	if (!f->h)
		return c->err = -ENOMEM;
	memcpy(f->h, h, h->size);
	f->attr = attr;
	f->time = 0;
	if (!tally_record__parse(h, h->size, &c->lays[attr], &rec) && rec.has_sid)
		f->time = rec.sid.time;
	f->seq = c->n++;
	return 0;
}

static int frec_cmp(const void *a, const void *b)
{
	const struct frec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

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
static void feed(struct trace_out *o, struct fctx *c, const struct frec *f)
{
	struct tally_record rec;
	enum role role = c->roles[f->attr];
	uint8_t raw[64];

	if (tally_record__parse(f->h, f->h->size, &c->lays[f->attr], &rec))
		return;
	if (rec.type != PERF_RECORD_SAMPLE) {
		trace_out__record(o, &rec, TRACE_OTHER);
		return;
	}
	if (role == R_SC_ENTER || role == R_SC_EXIT) {
		int64_t nr = c->sc_nr[f->attr];
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
	trace_out__record(o, &rec, role == R_RAW_ENTER || role == R_SC_ENTER ? TRACE_ENTER :
			  TRACE_EXIT);
}

int trace_file(const struct trace_config *cfg)
{
	struct fctx c = { 0 };
	struct trace_out o;
	const char *arch;
	bool any = false;
	int ret = 1, err;

	c.r = tally_data_reader__open(cfg->input);
	if (!c.r && (err = cli_bad_file(cfg->input)))
		return err;
	if (!c.r) {
		fprintf(stderr, "%s: cannot read %s: %s\n", progname, cfg->input, strerror(errno));
		return 1;
	}
	/* the recording's syscall numbers, not the host's: an arm64 file read on x86 */
	arch = tally_data_reader__feat_string(c.r, TALLY_HEADER_ARCH);
	if (arch && tally_syscall__set_arch(arch))
		fprintf(stderr, "%s: %s was recorded on %s, whose syscall table tally does not "
			"have: the host's names are shown\n", progname, cfg->input, arch);
	if (trace_out__init(&o, cfg))
		goto out_reader;
	c.nattrs = tally_data_reader__nr_attrs(c.r);
	c.roles = calloc((size_t)c.nattrs + 1, sizeof(*c.roles));
	c.sc_nr = calloc((size_t)c.nattrs + 1, sizeof(*c.sc_nr));
	c.lays = calloc((size_t)c.nattrs + 1, sizeof(*c.lays));
	if (!c.roles || !c.sc_nr || !c.lays) {
		fprintf(stderr, "%s: %s\n", progname, strerror(ENOMEM));
		goto out;
	}
	for (int i = 0; i < c.nattrs; i++) {
		c.roles[i] = role_of(tally_data_reader__event_name(c.r, i), &c.sc_nr[i]);
		any |= c.roles[i] != R_NONE;
		tally_record_layout__from_attr(&c.lays[i], tally_data_reader__attr(c.r, i));
	}
	if (!any) {
		fprintf(stderr, "%s: %s has no syscall events: record them with "
			"-e 'raw_syscalls:*' (or syscalls:sys_enter_NAME,syscalls:sys_exit_NAME)\n",
			progname, cfg->input);
		goto out;
	}
	err = tally_data_reader__foreach(c.r, collect, &c);
	if (c.err) {
		fprintf(stderr, "%s: %s\n", progname, strerror(-c.err));
		goto out;
	}
	qsort(c.v, c.n, sizeof(*c.v), frec_cmp);
	/* losses first: a LOST record comes after the records it stands for */
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].h->type == PERF_RECORD_LOST)
			feed(&o, &c, &c.v[i]);
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].h->type != PERF_RECORD_LOST)
			feed(&o, &c, &c.v[i]);
	trace_out__finish(&o);
	ret = 0;
	if (err) {
		const struct tally_data_error *e = tally_data_reader__error(c.r);

		/* what came before the bad record was shown */
		fprintf(stderr, "%s: %s: %s\n", progname, cfg->input,
			e && e->msg[0] ? e->msg : strerror(-err));
		ret = 1;
	}
out:
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].h);
	free(c.v);
	free(c.roles);
	free(c.sc_nr);
	free(c.lays);
	trace_out__release(&o);
out_reader:
	tally_data_reader__close(c.r);
	return ret;
}
