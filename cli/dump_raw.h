/* SPDX-License-Identifier: MIT */
/*
 * perf's -D/--dump-raw-trace, shared by report and script: every record
 * of the file with its offset, its bytes in hex and ASCII and what perf
 * 6.1 decodes of it, in the order perf prints them (its own records as
 * they are read; the kernel's as its time order releases them, the
 * command's own lines for a sample right after its dump).
 *
 *	d = dump_raw_new(stdout, input, DUMP_RAW_REPORT);
 *	dump_raw_attach(d, &so);	// before tally_session__open
 *	ss = tally_session__open(input, &so);
 *	dump_raw_begin(d, ss);
 *	tally_session__run(ss);
 *	dump_raw_free(d);
 */
#ifndef TALLY_CLI_DUMP_RAW_H
#define TALLY_CLI_DUMP_RAW_H

#include <stdio.h>
#include <tally/tally.h>

struct dump_raw;

/* Whose handlers perf runs: which records each decodes, and which it calls unhandled. */
enum dump_raw_tool { DUMP_RAW_REPORT, DUMP_RAW_SCRIPT };

/* input: the -i path as given ("-": perf's "pipe"). NULL without memory. */
struct dump_raw *dump_raw_new(FILE *out, const char *input, enum dump_raw_tool tool);
/*
 * so's callbacks (sample, record, kernel_maps, want) are called as
 * before, each after the dump of its record; so->ctx becomes the dump's
 * and so->raw its hook.
 */
void dump_raw_attach(struct dump_raw *d, struct tally_session_opts *so);
/* Called before the dump writes: what the command keeps in a buffer of its own goes first. */
void dump_raw_set_flush(struct dump_raw *d, void (*flush)(void *ctx), void *ctx);
/* The session is open: perf's first lines (report's hint about --header). */
void dump_raw_begin(struct dump_raw *d, struct tally_session *ss);
void dump_raw_free(struct dump_raw *d);
/* The name an EVENT_UPDATE record gave event idx (perf's stats use it), or NULL. */
const char *dump_raw_event_name(const struct dump_raw *d, int idx);

/* dump_raw_user.c: what perf prints after the name of one of its own records. */
void dump_raw_user(FILE *f, const struct perf_event_header *h, enum dump_raw_tool tool,
		   bool unordered);

#endif
