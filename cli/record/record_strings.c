// SPDX-License-Identifier: MIT
/*
 * tally trace record's path strings: the BPF program live tally trace
 * uses reads each path argument at sys_enter; each raw_syscalls sample
 * written is noted, and after every drain the library matches the
 * strings to the samples (by thread, syscall and time: the events then
 * use the program's clock, CLOCK_MONOTONIC) and the writer keeps them
 * in a section of tally's own, which perf 6.1 skips
 * (docs/perf-differences.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include <tally/data_write.h>
#include <tally/syscall_strings.h>
#include <tally/syscalls.h>
#include "record.h"

/* a sample stamped this long before a drain began has reached its ring */
#define SETTLE_NS	10000000ull

struct record_strings {
	struct tally_sc_strings *scs;
	struct tally_evsel *enter, *exit;
	struct tally_record_layout lay;	/* raw_syscalls': both have it */
	uint64_t upto;			/* the drain's: flush to here after it */
	uint64_t kept, dropped;
	int err;			/* the first failure to keep one (-errno) */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct record_strings *record_strings_open(bool quiet)
{
	uint32_t masks[TALLY_SYSCALL_MAX];
	struct tally_syscall_fmt fmt;
	struct record_strings *rs;
	char why[256];
	const char *dir = tally_tracing_dir(why, sizeof(why));
	bool any = false;

	/* the strings live tally trace reads: each syscall's string arguments */
	for (int nr = 0; nr < TALLY_SYSCALL_MAX; nr++) {
		masks[nr] = dir && !tally_syscall__load_fmt(dir, nr, &fmt) ?
			    tally_syscall__string_args(&fmt) : 0;
		any |= masks[nr] != 0;
	}
	if (!any)
		return NULL;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return NULL;
	rs->scs = tally_sc_strings__open(masks, TALLY_SYSCALL_MAX, getpid(), why, sizeof(why));
	if (!rs->scs) {
		if (!quiet)
			fprintf(stderr, "tally trace record: no path strings in the file (tally "
				"trace -i shows pointers): %s\n", why);
		free(rs);
		return NULL;
	}
	return rs;
}

void record_strings_events(struct record_strings *rs, struct tally_evlist *l)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(l, e) {
		if (!strcmp(tally_evsel__name(e), "raw_syscalls:sys_enter"))
			rs->enter = e;
		else if (!strcmp(tally_evsel__name(e), "raw_syscalls:sys_exit"))
			rs->exit = e;
		else
			continue;
		tally_record_layout__from_attr(&rs->lay, tally_evsel__attr(e));
	}
}

void record_strings_sample(struct record_strings *rs, struct tally_evlist *l,
			   const struct perf_event_header *h)
{
	struct tally_record rec;
	struct tally_evsel *e;
	uint64_t id;
	int64_t nr;

	if (!rs->enter || tally_record__id(h, h->size, &rs->lay, &id) ||
	    !(e = tally_evlist__find_id(l, id)) || (e != rs->enter && e != rs->exit) ||
	    tally_record__parse(h, h->size, &rs->lay, &rec) || rec.u.sample.raw.size < 16)
		return;
	memcpy(&nr, (const uint8_t *)rec.u.sample.raw.data + 8, sizeof(nr));
	if (tally_sc_strings__note(rs->scs, (pid_t)rec.u.sample.tid, (int)nr, rec.u.sample.time,
				   e == rs->exit) && !rs->err)
		rs->err = -ENOMEM;
}

void record_strings_before_drain(struct record_strings *rs)
{
	uint64_t now = mono_ns();

	/* the strings first: a call's string is out before its sample */
	rs->upto = now > SETTLE_NS ? now - SETTLE_NS : 0;
	tally_sc_strings__read(rs->scs);
}

static int keep(void *ctx, const struct tally_sc_string *s)
{
	struct tally_data_writer *w = ((void **)ctx)[0];
	struct record_strings *rs = ((void **)ctx)[1];
	int err = tally_data_writer__add_sc_string(w, s);

	if (!err)
		rs->kept++;
	else if (rs->dropped++, !rs->err)
		rs->err = err;
	return 0;
}

void record_strings_flush(struct record_strings *rs, struct tally_data_writer *w, bool last)
{
	void *ctx[2] = { w, rs };

	if (last)
		tally_sc_strings__read(rs->scs);
	tally_sc_strings__flush(rs->scs, last ? UINT64_MAX : rs->upto, keep, ctx);
}

void record_strings_close(struct record_strings *rs, bool quiet)
{
	if (!rs)
		return;
	if (rs->err && !quiet)
		fprintf(stderr, "tally trace record: %llu path strings could not be kept: %s\n",
			(unsigned long long)rs->dropped, strerror(-rs->err));
	tally_sc_strings__close(rs->scs);
	free(rs);
}
