/* SPDX-License-Identifier: MIT */
/*
 * The event language's parser, shared by its parts: events_parse.c (the
 * parser's state: errors, the events it builds, modifiers),
 * events_suggest.c (closest names), events_terms.c (term lists and
 * PMU/terms events), events_tp.c (tracepoints), events_addr.c
 * (breakpoints, uprobes) and events.c (names, the list). Lib only.
 */
#ifndef TALLY_EVENTS_PARSE_H
#define TALLY_EVENTS_PARSE_H

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/events.h>
#include "events_internal.h"

#define MAX_EVENTS_PER_SPEC 100000
/*
 * The modifier letters: perf's PE_MODIFIER_EVENT, with e (exclusive) and
 * b (perf stat --bpf-counters: tally counts such an event the ordinary
 * way, with the same numbers).
 */
#define MOD_CHARS "ukhGHIpPSDWeb"
/* While parsing only: the event's modifiers named G or H (perf's exclude_GH). */
#define EV_GH_GIVEN (1u << 31)	/* a glob over all tracepoints is ~3000 */

struct parser {
	const char *spec;
	size_t len;
	const char *sysfs;
	const char *tracefs;
	bool no_pfm;
	bool stat_terms;		/* opts->stat_terms */
	struct tally_events evs;	/* built here, appended on success */
	struct tally_parse_error *err;
	int group;			/* current group number or -1 */
	int next_group;
	/* the core PMUs (tally__pmu_core_list), looked up once per parse */
	bool core_listed;
	int ncore;
	char core_pmu[TALLY_MAX_CORE_PMUS][TALLY_PMU_NAME_MAX];
	int core_type[TALLY_MAX_CORE_PMUS];
};

struct best {
	const char *want;
	int cap;
	int dist;
	char name[128];
};

/* Which kind of event the terms are for. */
enum { TERMS_PMU, TERMS_SYM, TERMS_TP };
enum { CG_UNSET, CG_FP, CG_DWARF, CG_LBR, CG_NO };

struct term_ctx {
	const char *pmu;	/* TERMS_PMU: the sysfs PMU */
	int where;		/* TERMS_* */
	struct perf_event_attr *attr;
	char name[128];		/* name= */
	bool has_name;
	double scale;
	char unit[32];
	bool has_unit;
	int callgraph;		/* CG_* */
	uint32_t stack_size;	/* stack-size=, 0 if not given */
};

/* ---- errors (events_parse.c): each returns tally__err(err) ---- */
void tally__ev_set_token(struct tally_parse_error *e, const char *tok, size_t n);
__attribute__((format(printf, 6, 7)))
int tally__ev_err(struct parser *p, int err, size_t col, const char *tok, size_t toklen,
		  const char *fmt, ...);
void tally__ev_set_hint(struct parser *p, const char *hint);

/* ---- the events being built (events_parse.c) ---- */
struct tally_event *tally__ev_add(struct parser *p, const struct perf_event_attr *attr,
				  const char *name, size_t name_len, const char *pmu,
				  size_t col);
int tally__ev_nomem(struct parser *p, size_t col);
int tally__ev_set_str(char **dst, const char *s, size_t n);
const char *tally__ev_pmu_of_type(uint32_t type);
int tally__ev_apply_mods(struct parser *p, size_t first, const char *m, size_t n, size_t col,
			 bool group);

/* ---- closest names, for hints (events_suggest.c) ---- */
void tally__best_init(struct best *b, const char *want);
int tally__best_try(struct best *b, const char *cand);
int tally__best_name_cb(const char *name, void *ctx);
const char *tally__ev_suggest(const char *name, char *buf, size_t len, const char *sysfs,
			      const char *tracefs);

/* ---- term lists (events_terms.c) ---- */
int tally__ev_apply_terms(struct parser *p, struct term_ctx *tc, const char *s, size_t n,
			  size_t col, int depth);
int tally__ev_apply_event_terms(struct parser *p, size_t first, int where, const char *s,
				size_t open, size_t close, size_t col);
int tally__ev_term_list_end(struct parser *p, const char *s, size_t n, size_t col, size_t open,
			    size_t *close);
int tally__ev_parse_pmu(struct parser *p, const char *s, size_t n, size_t col, size_t slash);

/* ---- the other kinds of event (events_tp.c, events_addr.c) ---- */
int tally__ev_parse_tracepoint(struct parser *p, const char *s, size_t n, size_t col,
			       size_t sn, size_t en);
int tally__ev_parse_breakpoint(struct parser *p, const char *s, size_t n, size_t col);
int tally__ev_parse_uprobe(struct parser *p, const char *s, size_t n, size_t col, bool ret_probe);

/* ---- numbers: inline, the scanner calls them per character ---- */


/*
 * A whole number in s[0..n): 0x.. hex, else decimal, as perf's lexer
 * reads them (num_hex, num_dec): "010" is ten, not octal eight.
 */
static inline bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	char buf[32], *end;
	bool hex = n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (n == 0 || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (hex && !isxdigit((unsigned char)buf[2]))
		return false;
	errno = 0;
	*v = strtoull(buf, &end, hex ? 16 : 10);
	return !errno && *end == '\0';
}

/* Could s[0..n) be a modifier string? */
static inline bool is_mods(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(MOD_CHARS, s[i]))
			return false;
	return true;
}

static inline bool is_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

static inline size_t span(const char *s, size_t n, char stop)
{
	const char *c = memchr(s, stop, n);

	return c ? (size_t)(c - s) : n;
}

#endif
