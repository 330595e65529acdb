// SPDX-License-Identifier: MIT
/*
 * The perf event language -> perf_event_attr.
 *
 *   spec    := item (',' item)*
 *   item    := [NAME] '{' event (',' event)* '}' [':' mods] | event
 *   event   := (symbolic | tool) ['/' [terms] '/' mods | ':' [mods]]
 *            | (cache | rHEX | TYPE ':' CONFIG) ['/' [terms] '/'] [':'] [mods]
 *            | PMU '/' [terms] '/' [[':'] mods]
 *            | sys ':' name ['/' [terms] '/'] [':'] [mods]   (globs expand)
 *            | 'mem:' ADDR ['/' LEN] [':' rwx{1,3}] [':'] [mods]
 *            | ('uprobe' | 'uretprobe') ':' PATH ':' SYM ['+' OFF] [':' mods]
 *            | sysfs alias | libpfm4 name     [':' [mods]]
 *   terms   := term (',' term)*   term := KEY ['=' VALUE] | rHEX
 *   mods    := letters of MOD_CHARS, none twice but p (up to 3)
 *
 * That is perf 6.1's grammar (docs/event-grammar.md goes through it rule
 * by rule, with what tally does differently and why).
 *
 * A hand-written scanner over (spec, len): the spec is untrusted input
 * (fuzz/fuzz_events.c), every index is checked against its item's end,
 * and an error names the byte column and the token, with the closest
 * known name as a hint. Everything a call makes is built aside and only
 * appended to the caller's list when the whole spec parsed.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <tally/events.h>
#include <tally/sys.h>
#include <unistd.h>
#include "internal.h"
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
	/* sysfs type of cpu_core/cpu_atom, looked up once per parse (0: not yet) */
	int hybrid_type[2];
};

/* ------------------------------------------------------------------ */
/* errors */

static void set_token(struct tally_parse_error *e, const char *tok, size_t n)
{
	if (n >= sizeof(e->token))
		n = sizeof(e->token) - 1;
	memcpy(e->token, tok, n);
	e->token[n] = '\0';
}

__attribute__((format(printf, 6, 7)))
static int perr(struct parser *p, int err, size_t col, const char *tok, size_t toklen,
		const char *fmt, ...)
{
	struct tally_parse_error *e = p->err;
	va_list ap;

	if (e) {
		memset(e, 0, sizeof(*e));
		e->err = -err;
		e->column = col > INT_MAX ? INT_MAX : (int)col;
		set_token(e, tok, toklen);
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return tally__err(err);
}

static void set_hint(struct parser *p, const char *hint)
{
	if (p->err && hint)
		snprintf(p->err->hint, sizeof(p->err->hint), "%.*s",
			 (int)sizeof(p->err->hint) - 1, hint);
}

/* ------------------------------------------------------------------ */
/* suggestions */

int tally__edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[65], best;

	if (la > 64 || lb > 64)
		return cap + 1;
	if ((la > lb ? la - lb : lb - la) > (size_t)cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j], v;

			v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

struct best {
	const char *want;
	int cap;
	int dist;
	char name[128];
};

static void best_init(struct best *b, const char *want)
{
	size_t n = strlen(want);

	b->want = want;
	/* Typos only: one edit in short names, a third of the length beyond. */
	b->cap = n < 6 ? 1 : (int)(n / 3);
	if (b->cap > 4)
		b->cap = 4;
	b->dist = b->cap + 1;
	b->name[0] = '\0';
}

static int best_try(struct best *b, const char *cand)
{
	int d = tally__edit_distance(b->want, cand, b->dist - 1);

	if (d > 0 && d < b->dist) {
		b->dist = d;
		snprintf(b->name, sizeof(b->name), "%.*s", (int)sizeof(b->name) - 1, cand);
	}
	return 0;
}

static int best_name_cb(const char *name, void *ctx)
{
	return best_try(ctx, name);
}

static int best_cache_cb(const char *name, uint64_t config, void *ctx)
{
	return best_try(ctx, name);
}

struct best_sysfs {
	struct best *b;
	const char *sysfs;
	bool slashed;
};

static int best_alias_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	struct best_sysfs *bs = ctx;
	char buf[300];

	if (bs->slashed) {
		snprintf(buf, sizeof(buf), "%s/%s/", pmu, alias);
		return best_try(bs->b, buf);
	}
	return best_try(bs->b, alias);
}

static int best_pmu_cb(const char *pmu, void *ctx)
{
	struct best_sysfs *bs = ctx;

	return tally__pmu_foreach_alias(bs->sysfs, pmu, best_alias_cb, bs);
}

static int best_tp_cb(const char *sys, const char *ev, void *ctx)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "%s:%s", sys, ev);
	return best_try(ctx, buf);
}

static const char *suggest(const char *name, char *buf, size_t len, const char *sysfs,
			   const char *tracefs)
{
	struct best b;
	struct best_sysfs bs = { .b = &b, .sysfs = sysfs };

	if (!name || !*name || strlen(name) > 64)
		return NULL;
	best_init(&b, name);
	for (size_t i = 0; i < tally__nr_sym_events; i++) {
		best_try(&b, tally__sym_events[i].name);
		if (tally__sym_events[i].alias)
			best_try(&b, tally__sym_events[i].alias);
	}
	for (size_t i = 0; i < tally__nr_tool_events; i++)
		best_try(&b, tally__tool_events[i].name);
	tally__cache_foreach(best_cache_cb, &b);
	bs.slashed = strchr(name, '/') != NULL;
	tally__pmu_foreach(sysfs, best_pmu_cb, &bs);
	if (strchr(name, ':'))
		tally__tp_foreach(tracefs, NULL, NULL, best_tp_cb, &b);
	if (!b.name[0])
		return NULL;
	snprintf(buf, len, "%s", b.name);
	return buf;
}

const char *tally_events__suggest(const char *name, char *buf, size_t len,
				  const struct tally_parse_opts *opts)
{
	const char *r;

	if (!name || !buf || !len || !TALLY_OPTS_VALID(opts, tally_parse_opts))
		return tally__err_ptr(EINVAL);
	r = suggest(name, buf, len, TALLY_OPTS_GET(opts, sysfs_root, NULL) ?: "/sys",
		    TALLY_OPTS_GET(opts, tracefs_root, NULL));
	if (!r)
		errno = ENOENT;
	return r;
}

/* ------------------------------------------------------------------ */
/* events */

static struct tally_event *new_event(struct parser *p)
{
	struct tally_event *ev, *v;

	if (p->evs.nr >= MAX_EVENTS_PER_SPEC)
		return tally__err_ptr(E2BIG);
	v = tally__reallocarray(p->evs.ev, p->evs.nr + 1, sizeof(*v));
	if (!v)
		return tally__err_ptr(ENOMEM);
	p->evs.ev = v;
	ev = &v[p->evs.nr++];
	memset(ev, 0, sizeof(*ev));
	ev->attr.size = sizeof(ev->attr);
	ev->group = p->group;
	ev->scale = 1.0;
	return ev;
}

static void event_free(struct tally_event *ev)
{
	free(ev->name);
	free(ev->pmu);
	free(ev->cpus);
	free(ev->unit);
}

void tally_events__clear(struct tally_events *evs)
{
	if (!evs)
		return;
	for (size_t i = 0; i < evs->nr; i++)
		event_free(&evs->ev[i]);
	free(evs->ev);
	evs->ev = NULL;
	evs->nr = 0;
}

static int set_str(char **dst, const char *s, size_t n)
{
	char *c = strndup(s, n);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static int nomem(struct parser *p, size_t col)
{
	return perr(p, ENOMEM, col, "", 0, "out of memory");
}

/* Who the event belongs to, for evlist's CPU choice and for output. */
static const char *pmu_of_type(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_SOFTWARE:	return "software";
	case PERF_TYPE_TRACEPOINT:	return "tracepoint";
	case PERF_TYPE_BREAKPOINT:	return "breakpoint";
	default:			return "cpu";
	}
}

/* One finished event: name and pmu copied. */
static struct tally_event *add_event(struct parser *p, const struct perf_event_attr *attr,
				     const char *name, size_t name_len, const char *pmu,
				     size_t col)
{
	struct tally_event *ev = new_event(p);

	if (!ev) {
		if (errno == E2BIG)
			perr(p, E2BIG, col, name, name_len, "too many events");
		else
			nomem(p, col);
		return NULL;
	}
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	/* perf's event_attr_init: not counting in guests unless asked (:G) */
	ev->attr.exclude_guest = 1;
	if (set_str(&ev->name, name, name_len) || set_str(&ev->pmu, pmu, strlen(pmu))) {
		nomem(p, col);
		return NULL;
	}
	return ev;
}

/* ------------------------------------------------------------------ */
/* modifiers */

/*
 * perf's get_event_modifier: the first of u/k/h excludes all three
 * levels and each letter then re-includes its own; G/H likewise for
 * guest/host, and :u alone also excludes the guest (perf_guest is off).
 * An event's own modifiers start from nothing, as perf's do; a group's
 * start from what each member already has, so {cycles:k}:u counts both.
 */
static int apply_mods(struct parser *p, size_t first, const char *m, size_t n, size_t col,
		      bool group)
{
	int seen[128] = { 0 };

	/* perf 6.1 takes "task-clock:" (an empty list), but not "{a,b}:" */
	if (n == 0 && group)
		return perr(p, EINVAL, col, "", 0, "empty modifier after ':'");
	for (size_t i = 0; i < n; i++) {
		if (!m[i] || !strchr(MOD_CHARS, m[i]))
			return perr(p, EINVAL, col + i, m, n,
				    "unknown modifier '%c' (valid: u k h G H I p P S D W e b)", m[i]);
		/* perf's check_modifier: only p repeats (up to :ppp) */
		if (++seen[(unsigned char)m[i]] > 1 && m[i] != 'p')
			return perr(p, EINVAL, col + i, m, n,
				    "modifier '%c' repeated (only p may repeat, up to :ppp)", m[i]);
		if (seen['p'] > 3)
			return perr(p, EINVAL, col, m, n,
				    "precise level %d too high: at most 3 (:ppp)", seen['p']);
	}
	for (size_t e = first; e < p->evs.nr; e++) {
		struct tally_event *ev = &p->evs.ev[e];
		struct perf_event_attr *a = &ev->attr;
		int eu = 0, ek = 0, eh = 0, eG = 0, eH = 0, excl_GH = 0;
		int excl, precise = a->precise_ip;

		if (group) {
			eu = a->exclude_user;
			ek = a->exclude_kernel;
			eh = a->exclude_hv;
			eG = a->exclude_guest;
			eH = a->exclude_host;
			excl_GH = !!(ev->flags & EV_GH_GIVEN);
		}
		excl = eu | ek | eh;
		for (size_t i = 0; i < n; i++) {
			switch (m[i]) {
			case 'u':
				if (!excl)
					excl = eu = ek = eh = 1;
				if (!excl_GH)
					eG = 1;
				eu = 0;
				break;
			case 'k':
				if (!excl)
					excl = eu = ek = eh = 1;
				ek = 0;
				break;
			case 'h':
				if (!excl)
					excl = eu = ek = eh = 1;
				eh = 0;
				break;
			case 'G':
				ev->flags |= EV_GH_GIVEN;
				if (!excl_GH)
					excl_GH = eG = eH = 1;
				eG = 0;
				break;
			case 'H':
				ev->flags |= EV_GH_GIVEN;
				if (!excl_GH)
					excl_GH = eG = eH = 1;
				eH = 0;
				break;
			case 'I':
				a->exclude_idle = 1;
				break;
			case 'p':
				precise++;
				break;
			case 'P':
				ev->flags |= TALLY_EV_MAX_PRECISE;
				break;
			case 'S':
				ev->flags |= TALLY_EV_SAMPLE_READ;
				break;
			case 'D':
				ev->flags |= TALLY_EV_PINNED;
				a->pinned = 1;
				break;
			case 'W':
				ev->flags |= TALLY_EV_WEAK_GROUP;
				break;
			case 'e':
				a->exclusive = 1;
				break;
			case 'b':	/* BPF counters in perf: same counts here */
				break;
			}
		}
		if (precise > 3)
			return perr(p, EINVAL, col, m, n,
				    "precise level %d too high: at most 3 (:ppp)", precise);
		a->exclude_user = eu;
		a->exclude_kernel = ek;
		a->exclude_hv = eh;
		a->exclude_guest = eG;
		a->exclude_host = eH;
		a->precise_ip = precise;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* numbers */

/*
 * A whole number in s[0..n): 0x.. hex, else decimal, as perf's lexer
 * reads them (num_hex, num_dec): "010" is ten, not octal eight.
 */
static bool parse_u64(const char *s, size_t n, uint64_t *v)
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
static bool is_mods(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(MOD_CHARS, s[i]))
			return false;
	return true;
}

static bool is_glob(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return true;
	return false;
}

static size_t span(const char *s, size_t n, char stop)
{
	const char *c = memchr(s, stop, n);

	return c ? (size_t)(c - s) : n;
}

/* ------------------------------------------------------------------ */
/* PMU terms */

/*
 * perf 6.1's own terms (its lexer's config keywords), in perf's order,
 * plus config3 (perf 6.3). Which event kinds take each: every kind but
 * a tracepoint takes them all (config_term_common); a tracepoint takes
 * T_TP ones; perf stat keeps only T_STAT ones; tally implements T_OURS.
 */
#define T_STAT	(1u << 0)
#define T_TP	(1u << 1)
#define T_OURS	(1u << 2)
#define T_STR	(1u << 3)	/* a string value; the others are numbers */

static const struct perf_term {
	const char *name;
	unsigned int f;
} perf_terms[] = {
	{ "config",		T_STAT | T_OURS },
	{ "config1",		T_STAT | T_OURS },
	{ "config2",		T_STAT | T_OURS },
	{ "config3",		T_STAT | T_OURS },
	{ "name",		T_STAT | T_OURS | T_STR },
	{ "period",		T_STAT | T_OURS },
	{ "freq",		T_OURS },
	{ "branch_type",	T_STR },
	{ "time",		0 },
	{ "call-graph",		T_TP | T_OURS | T_STR },
	{ "stack-size",		T_TP | T_OURS },
	{ "max-stack",		T_TP },
	{ "nr",			T_TP },
	{ "inherit",		T_TP | T_OURS },
	{ "no-inherit",		T_TP | T_OURS },
	{ "overwrite",		T_TP },
	{ "no-overwrite",	T_TP },
	{ "percore",		T_STAT },
	{ "aux-output",		T_TP },
	{ "aux-sample-size",	T_TP },
	{ "metric-id",		T_STAT | T_OURS | T_STR },
};

/* Which kind of event the terms are for. */
enum { TERMS_PMU, TERMS_SYM, TERMS_TP };
enum { CG_UNSET, CG_FP, CG_DWARF, CG_LBR, CG_NO };

/* perf record's default dwarf stack dump, and the kernel's ceiling */
#define DEFAULT_STACK_SIZE	8192u
#define MAX_STACK_SIZE		65528u

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

static int best_format_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	return best_try(ctx, alias);
}

static int term_hint(struct parser *p, const char *pmu, const char *key)
{
	/* format names perf's PMUs use; only those this PMU has count */
	static const char *const common[] = {
		"event", "umask", "cmask", "edge", "inv", "any", "pc", "ldlat",
		"offcore_rsp", "frontend", "threshold", "threshold_compare",
		"threshold_count", "retprobe", "ref_ctr_offset", "in_tx",
		"in_tx_cp", "rdpmc",
	};
	struct best b;

	best_init(&b, key);
	for (size_t i = 0; i < ARRAY_SIZE(perf_terms); i++)
		if (perf_terms[i].f & T_OURS)
			best_try(&b, perf_terms[i].name);
	tally__pmu_foreach_alias(p->sysfs, pmu, best_format_cb, &b);
	for (size_t i = 0; i < ARRAY_SIZE(common); i++) {
		int w;
		uint64_t m;

		if (!tally__pmu_format(p->sysfs, pmu, common[i], &w, &m))
			best_try(&b, common[i]);
	}
	if (b.name[0])
		set_hint(p, b.name);
	return 0;
}

/* A raw config term, perf's "rHEX" or "r0xHEX" (1 to 16 hex digits). */
static bool raw_term(const char *key, uint64_t *val)
{
	const char *h = key + 1;
	size_t n;

	if (key[0] != 'r')
		return false;
	if (h[0] == '0' && h[1] == 'x')
		h += 2;
	n = strlen(h);
	if (n == 0 || n > 16)
		return false;
	*val = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isxdigit((unsigned char)h[i]))
			return false;
		*val = *val << 4 | (uint64_t)(isdigit((unsigned char)h[i]) ? h[i] - '0' :
					      tolower((unsigned char)h[i]) - 'a' + 10);
	}
	return true;
}

/* The terms an event of tc's kind takes here, comma-separated, for messages. */
static void valid_terms(const struct parser *p, const struct term_ctx *tc, char *buf,
			size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(perf_terms); i++) {
		unsigned int f = perf_terms[i].f;
		int w;

		/* a tracepoint's list is perf's, stat or not ("call-graph,stack-size") */
		if (!(f & T_OURS) || (tc->where == TERMS_TP && !(f & T_TP)) ||
		    (p->stat_terms && !(f & T_STAT) && tc->where != TERMS_TP))
			continue;
		w = snprintf(buf + o, len - o, "%s%s", o ? "," : "", perf_terms[i].name);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
}

static int unknown_term(struct parser *p, const struct term_ctx *tc, const char *key,
			const char *t, size_t klen, size_t col)
{
	char valid[160];

	valid_terms(p, tc, valid, sizeof(valid));
	if (isdigit((unsigned char)key[0]))	/* "call-graph=dwarf,4096" */
		return perr(p, EINVAL, col, t, klen,
			    "term '%s' has no name (a dwarf stack size is stack-size=%s)",
			    key, key);
	return perr(p, EINVAL, col, t, klen, "unknown term '%s' for %s (valid terms: %s)", key,
		    tc->where == TERMS_TP ? "a tracepoint" : "this event", valid);
}

/*
 * One of perf's own terms (perf_terms[]): 0 when applied, or the error.
 * A number term without a value is 1 ("period" is period=1), as in perf.
 */
static int static_term(struct parser *p, struct term_ctx *tc, const struct perf_term *pt,
		       const char *t, size_t n, size_t klen, size_t col)
{
	struct perf_event_attr *a = tc->attr;
	const char *key = pt->name, *vs = t + klen + 1;
	bool has_val = klen < n;
	size_t vlen = has_val ? n - klen - 1 : 0, vcol = col + klen + 1;
	uint64_t val = 1;

	if (tc->where == TERMS_TP && !(pt->f & T_TP))
		return unknown_term(p, tc, key, t, klen, col);
	if (p->stat_terms && !(pt->f & T_STAT))
		return perr(p, EINVAL, col, t, klen,
			    "'%s' is not usable in 'tally stat'", key);
	if (!(pt->f & T_OURS))
		return perr(p, EOPNOTSUPP, col, t, klen,
			    "term '%s' is perf's, but tally does not support it (see docs/event-grammar.md)",
			    key);
	if (pt->f & T_STR) {
		/* perf's name_tag: 'quoted', the quotes dropped, commas allowed */
		if (vlen >= 2 && vs[0] == '\'' && vs[vlen - 1] == '\'') {
			vs++;
			vcol++;
			vlen -= 2;
		}
		if (!has_val || vlen == 0)
			return perr(p, EINVAL, col, t, n, "%s= needs a value", key);
		if (!strcmp(key, "name")) {
			if (vlen >= sizeof(tc->name))
				return perr(p, EINVAL, vcol, vs, vlen, "name too long");
			if (isdigit((unsigned char)vs[0]))	/* perf: a string, not a number */
				return perr(p, EINVAL, vcol, vs, vlen,
					    "name= takes a name, not a number");
			if (!tc->has_name) {	/* the first name= wins, as in perf */
				memcpy(tc->name, vs, vlen);
				tc->name[vlen] = '\0';
				tc->has_name = true;
			}
		} else if (!strcmp(key, "call-graph")) {
			static const char *const modes[] = { "fp", "dwarf", "lbr", "no" };
			int mode = CG_UNSET;

			for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
				if (vlen == strlen(modes[i]) && !memcmp(vs, modes[i], vlen))
					mode = CG_FP + (int)i;
			if (mode == CG_UNSET)
				return perr(p, EINVAL, vcol, vs, vlen,
					    "call-graph '%.*s': use fp, dwarf, lbr or no",
					    (int)(vlen > 32 ? 32 : vlen), vs);
			tc->callgraph = mode;
		}
		/* metric-id: perf's metric expressions use it; tally has none */
		return 0;
	}
	if (has_val && !parse_u64(vs, vlen, &val))
		return perr(p, EINVAL, vcol, vs, vlen,
			    "bad value for term '%s': expected a number", key);
	if (!strcmp(key, "config")) {
		a->config = val;
	} else if (!strcmp(key, "config1")) {
		a->config1 = val;
	} else if (!strcmp(key, "config2")) {
		a->config2 = val;
	} else if (!strcmp(key, "config3")) {
#ifdef PERF_ATTR_SIZE_VER8
		a->config3 = val;
#else
		return perr(p, EOPNOTSUPP, col, t, n,
			    "config3 needs Linux 6.3 UAPI headers at build time");
#endif
	} else if (!strcmp(key, "period")) {
		a->sample_period = val;
		a->freq = 0;
	} else if (!strcmp(key, "freq")) {
		a->sample_freq = val;
		a->freq = 1;
	} else if (!strcmp(key, "stack-size")) {
		/* the kernel takes a multiple of 8 below 64 KiB */
		if (val == 0 || val > MAX_STACK_SIZE)
			return perr(p, ERANGE, has_val ? vcol : col, has_val ? vs : t,
				    has_val ? vlen : n,
				    "stack-size %llu out of range (1..%u bytes)",
				    (unsigned long long)val, MAX_STACK_SIZE);
		tc->stack_size = ((uint32_t)val + 7) & ~7u;
	} else if (!strcmp(key, "inherit") || !strcmp(key, "no-inherit")) {
		a->inherit = key[0] == 'i' ? (val != 0) : 0;
	}
	return 0;
}

/* After the whole term list: the call graph into the attr (events.h). */
static void finish_terms(const struct term_ctx *tc, struct perf_event_attr *a,
			 unsigned int *flags)
{
	switch (tc->callgraph) {
	case CG_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case CG_DWARF:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = tc->stack_size ? tc->stack_size : DEFAULT_STACK_SIZE;
		break;
	case CG_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		break;
	case CG_NO:
		*flags |= TALLY_EV_NO_CALLGRAPH;
		break;
	}
	if (tc->stack_size && tc->callgraph != CG_DWARF)
		a->sample_stack_user = tc->stack_size;
}

static int apply_terms(struct parser *p, struct term_ctx *tc, const char *s, size_t n,
		       size_t col, int depth);

static int apply_term(struct parser *p, struct term_ctx *tc, const char *t, size_t n,
		      size_t col, int depth)
{
	struct perf_event_attr *a = tc->attr;
	size_t klen = span(t, n, '=');
	bool has_val = klen < n;
	const char *vs = t + klen + 1;
	size_t vlen = has_val ? n - klen - 1 : 0;
	char key[128];
	uint64_t val = 1, mask, enc;
	__u64 *word_p;
	int word, ret;

	if (klen == 0)
		return perr(p, EINVAL, col, t, n, "empty term");
	if (klen >= sizeof(key))
		return perr(p, EINVAL, col, t, klen, "term name too long");
	memcpy(key, t, klen);
	key[klen] = '\0';
	if (memchr(key, '\0', klen))
		return perr(p, EINVAL, col, t, klen, "bad term name");

	if (has_val && vlen == 1 && vs[0] == '?') {
		/* An alias term the user must give (perf's "umask=?"). */
		if (depth > 0)
			return 0;
		return perr(p, EINVAL, col + klen + 1, vs, vlen, "term '%s' needs a value", key);
	}
	if (!has_val && raw_term(key, &val)) {
		/* perf's "cpu/r1a8/", "task-clock/r0x2/": config, in hex */
		if (tc->where == TERMS_TP)
			return unknown_term(p, tc, key, t, klen, col);
		a->config = val;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(perf_terms); i++)
		if (!strcmp(key, perf_terms[i].name))
			return static_term(p, tc, &perf_terms[i], t, n, klen, col);
	if (tc->where != TERMS_PMU)
		return unknown_term(p, tc, key, t, klen, col);
	if (has_val && !parse_u64(vs, vlen, &val))
		return perr(p, EINVAL, col + klen + 1, vs, vlen,
			    "bad value for term '%s': expected a number", key);

	ret = tally__pmu_format(p->sysfs, tc->pmu, key, &word, &mask);
	if (ret == 0) {
		/* arm64 FEAT_PMUv3_TH (Armv8.8): caps/threshold_max bounds it. */
		if (!strncmp(key, "threshold", 9)) {
			uint64_t max = 0;

			if (tally__pmu_cap(p->sysfs, tc->pmu, "threshold_max", &max) || !max)
				return perr(p, EOPNOTSUPP, col, t, n,
					    "PMU '%s' does not support thresholds (threshold_max is 0)",
					    tc->pmu);
			if (!strcmp(key, "threshold") && val > max)
				return perr(p, ERANGE, has_val ? col + klen + 1 : col,
					    has_val ? vs : t, has_val ? vlen : n,
					    "threshold %llu is over PMU '%s' threshold_max %llu (0x%llx)",
					    (unsigned long long)val, tc->pmu,
					    (unsigned long long)max, (unsigned long long)max);
		}
		if (!tally__pmu_format_encode(mask, val, &enc)) {
			int bits = tally__pmu_format_bits(mask);
			unsigned long long maxv = bits >= 64 ? ~0ull : (1ull << bits) - 1;

			return perr(p, ERANGE, has_val ? col + klen + 1 : col,
				    has_val ? vs : t, has_val ? vlen : n,
				    "value 0x%llx too big for '%s' (%d bits, max 0x%llx)",
				    (unsigned long long)val, key, bits, maxv);
		}
#ifdef PERF_ATTR_SIZE_VER8
		word_p = word == 1 ? &a->config1 : word == 2 ? &a->config2 :
			 word == 3 ? &a->config3 : &a->config;
#else
		if (word == 3)
			return perr(p, EOPNOTSUPP, col, t, klen,
				    "'%s' is in config3, which needs Linux 6.3 UAPI headers at build time",
				    key);
		word_p = word == 1 ? &a->config1 : word == 2 ? &a->config2 : &a->config;
#endif
		*word_p = (*word_p & ~mask) | enc;
		return 0;
	}
	if (ret != -ENOENT)
		return perr(p, -ret, col, t, klen, "cannot read format of '%s' in PMU '%s'",
			    key, tc->pmu);

	if (!has_val && depth == 0) {
		char terms[512];
		int n2 = tally__pmu_alias(p->sysfs, tc->pmu, key, terms, sizeof(terms));

		if (n2 >= 0) {
			char unit[32];
			double scale;

			ret = apply_terms(p, tc, terms, (size_t)n2, col, depth + 1);
			if (ret) {
				/* point at the alias, say what inside it failed */
				if (p->err) {
					char inner[sizeof(p->err->msg)];

					snprintf(inner, sizeof(inner), "%s", p->err->msg);
					p->err->column = (int)col;
					set_token(p->err, t, n);
					snprintf(p->err->msg, sizeof(p->err->msg),
						 "bad alias '%.40s': %.130s", key, inner);
				}
				return ret;
			}
			tally__pmu_alias_scale_unit(p->sysfs, tc->pmu, key, &scale,
						    unit, sizeof(unit));
			tc->scale = scale;
			if (unit[0]) {
				snprintf(tc->unit, sizeof(tc->unit), "%s", unit);
				tc->has_unit = true;
			}
			return 0;
		}
	}
	ret = perr(p, EINVAL, col, t, klen, "unknown term '%s' for PMU '%s'", key, tc->pmu);
	term_hint(p, tc->pmu, key);
	return ret;
}

static int apply_terms(struct parser *p, struct term_ctx *tc, const char *s, size_t n,
		       size_t col, int depth)
{
	size_t i = 0;

	while (i < n) {
		size_t tl = 0;
		bool quoted = false;
		int ret;

		/* a ',' inside perf's quoted value (name='a,b') is not a separator */
		while (i + tl < n && (quoted || s[i + tl] != ',')) {
			if (s[i + tl] == '\'')
				quoted = !quoted;
			tl++;
		}
		if (depth)	/* alias files may carry spaces or newlines */
			while (tl && isspace((unsigned char)s[i]))
				i++, tl--;
		ret = apply_term(p, tc, s + i, tl, depth ? col : col + i, depth);
		if (ret)
			return ret;
		i += tl + 1;
		if (i == n && depth == 0)	/* trailing comma */
			return perr(p, EINVAL, col + i - 1, ",", 1, "empty term");
	}
	return 0;
}

/* One PMU's event from "pmu/terms/": terms at s[slash+1..close). */
static int pmu_event_one(struct parser *p, const char *pmu, int type, const char *s,
			 size_t n, size_t col, size_t slash, size_t close)
{
	struct perf_event_attr attr;
	struct term_ctx tc;
	struct tally_event *ev;
	char cpus[1024];
	int ret;

	memset(&attr, 0, sizeof(attr));
	memset(&tc, 0, sizeof(tc));
	attr.type = (uint32_t)type;
	tc.pmu = pmu;
	tc.attr = &attr;
	tc.scale = 1.0;
	ret = apply_terms(p, &tc, s + slash + 1, close - slash - 1, col + slash + 1, 0);
	if (ret)
		return ret;
	/* perf names it as typed ("msr/tsc/u"), unless name= says */
	if (tc.has_name)
		ev = add_event(p, &attr, tc.name, strlen(tc.name), pmu, col);
	else
		ev = add_event(p, &attr, s, n, pmu, col);
	if (!ev)
		return -errno;
	finish_terms(&tc, &ev->attr, &ev->flags);
	ev->scale = tc.scale;
	if (tc.has_unit && !(ev->unit = strdup(tc.unit)))
		return nomem(p, col);
	if (tally__pmu_cpumask(p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
	    !(ev->cpus = strdup(cpus)))
		return nomem(p, col);
	return 0;
}

/* "uncore_imc" stands for uncore_imc_0, uncore_imc_1... (as in perf) */
struct pmu_family {
	struct parser *p;
	const char *prefix;
	const char *s;
	size_t n, col, slash, close;
	int found;
	int err;
};

static int pmu_family_cb(const char *pmu, void *ctx)
{
	struct pmu_family *f = ctx;
	size_t l = strlen(f->prefix);
	const char *name = pmu, *sfx;
	int type;

	/* perf matches "imc" against uncore_imc_0 too: "uncore_" is optional */
	if (!strncmp(pmu, "uncore_", 7) && strncmp(f->prefix, "uncore_", 7))
		name += 7;
	sfx = name + l;
	if (strncmp(name, f->prefix, l) || sfx[0] != '_' || !sfx[1])
		return 0;
	for (sfx++; *sfx; sfx++)
		if (!isdigit((unsigned char)*sfx))
			return 0;
	type = tally__pmu_type(f->p->sysfs, pmu);
	if (type < 0)
		return 0;
	f->found++;
	f->err = pmu_event_one(f->p, pmu, type, f->s, f->n, f->col, f->slash, f->close);
	return f->err ? 1 : 0;
}

/* s[0..n) = "pmu/terms/[mods]". */
static int parse_pmu_event(struct parser *p, const char *s, size_t n, size_t col, size_t slash)
{
	char pmu[128];
	size_t close, first = p->evs.nr, mstart;
	int type, ret;

	if (slash >= sizeof(pmu))
		return perr(p, ENOENT, col, s, slash, "PMU name too long");
	memcpy(pmu, s, slash);
	pmu[slash] = '\0';
	close = slash + 1 + span(s + slash + 1, n - slash - 1, '/');
	if (close >= n)
		return perr(p, EINVAL, col + slash, s, n,
			    "unterminated PMU term list: missing the closing '/'");
	type = tally__pmu_type(p->sysfs, pmu);
	if (type >= 0) {
		ret = pmu_event_one(p, pmu, type, s, n, col, slash, close);
	} else {
		struct pmu_family f = {
			.p = p, .prefix = pmu, .s = s, .n = n, .col = col,
			.slash = slash, .close = close,
		};

		tally__pmu_foreach(p->sysfs, pmu_family_cb, &f);
		if (!f.found) {
			char hint[128];
			struct best b;

			/* cpu/.../ on a VM without a PMU: say why it is missing. */
			if (!tally__pmu_has_core(p->sysfs) &&
			    (!strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4) ||
			     !strncmp(pmu, "armv8", 5)))
				ret = perr(p, ENOENT, col, s, slash,
					   "unknown PMU '%s': this machine has no hardware PMU "
					   "(a VM without PMU passthrough?)", pmu);
			else
				ret = perr(p, ENOENT, col, s, slash, "unknown PMU '%s'", pmu);
			best_init(&b, pmu);
			tally__pmu_foreach(p->sysfs, best_name_cb, &b);
			if (b.name[0]) {
				snprintf(hint, sizeof(hint), "%s", b.name);
				set_hint(p, hint);
			}
			return ret;
		}
		ret = f.err;
	}
	if (ret)
		return ret;
	mstart = close + 1;
	if (mstart < n && s[mstart] == ':')
		mstart++;
	if (mstart < n || (mstart == n && s[n - 1] == ':'))
		return apply_mods(p, first, s + mstart, n - mstart, col + mstart, false);
	return 0;
}

/* ------------------------------------------------------------------ */
/* tracepoints */

static int term_list_end(struct parser *p, const char *s, size_t n, size_t col, size_t open,
			 size_t *close);
static int apply_event_terms(struct parser *p, size_t first, int where, const char *s,
			     size_t open, size_t close, size_t col);

struct tp_ctx {
	struct parser *p;
	size_t col;
	int err;
};

static int tp_add_cb(const char *sys, const char *ev, void *ctx)
{
	struct tp_ctx *tc = ctx;
	struct perf_event_attr attr;
	char name[512];
	int id = tally__tp_id(tc->p->tracefs, sys, ev);

	if (id < 0)
		return 0;	/* an event without an id file cannot be opened */
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if (!add_event(tc->p, &attr, name, strlen(name), "tracepoint", tc->col)) {
		tc->err = -errno;
		return 1;
	}
	return 0;
}

static int tp_hint_cb(const char *sys, const char *ev, void *ctx)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "%s:%s", sys, ev);
	return best_try(ctx, buf);
}

/* sys (sn bytes) ':' ev (en bytes), mods after; col is sys's column. */
static int parse_tracepoint(struct parser *p, const char *s, size_t n, size_t col,
			    size_t sn, size_t en)
{
	char sys[256], ev[256];
	size_t first = p->evs.nr, mpos = sn + 1 + en;
	struct tp_ctx tc = { .p = p, .col = col };
	int ret;

	if (sn >= sizeof(sys) || en >= sizeof(ev))
		return perr(p, ENOENT, col, s, mpos, "tracepoint name too long");
	if (en == 0)
		return perr(p, EINVAL, col + sn + 1, s, mpos, "missing tracepoint name after ':'");
	memcpy(sys, s, sn);
	sys[sn] = '\0';
	memcpy(ev, s + sn + 1, en);
	ev[en] = '\0';
	if (memchr(sys, '\0', sn) || memchr(ev, '\0', en))
		return perr(p, EINVAL, col, s, mpos, "bad tracepoint name");
	if (!tally__tp_dir(p->tracefs)) {
		char why[160];

		tally_tracing_dir(why, sizeof(why));
		return perr(p, ENOENT, col, s, mpos, "tracepoint '%s:%s': %s", sys, ev, why);
	}
	if (is_glob(sys, sn) || is_glob(ev, en)) {
		ret = tally__tp_foreach(p->tracefs, sys, ev, tp_add_cb, &tc);
		if (tc.err)
			return tc.err;
		if (ret == -EACCES || ret == -EPERM)
			return perr(p, -ret, col, s, mpos,
				    "no permission to read tracepoints (run as root or mount tracefs readable)");
		if (ret < 0)
			return perr(p, -ret, col, s, mpos, "cannot read tracepoints: %s",
				    strerror(-ret));
		if (p->evs.nr == first)
			return perr(p, ENOENT, col, s, mpos, "no tracepoint matches '%s:%s'",
				    sys, ev);
	} else {
		ret = tally__tp_id(p->tracefs, sys, ev);
		if (ret < 0) {
			struct best b;
			char want[520];

			if (ret == -EACCES || ret == -EPERM)
				return perr(p, -ret, col, s, mpos,
					    "no permission to read tracepoint '%s:%s' (run as root or mount tracefs readable)",
					    sys, ev);
			ret = perr(p, ENOENT, col, s, mpos, "unknown tracepoint '%s:%s'", sys, ev);
			snprintf(want, sizeof(want), "%s:%s", sys, ev);
			best_init(&b, want);
			tally__tp_foreach(p->tracefs, sys, NULL, tp_hint_cb, &b);
			if (b.name[0])
				set_hint(p, b.name);
			return ret;
		}
		tp_add_cb(sys, ev, &tc);
		if (tc.err)
			return tc.err;
	}
	/* perf 6.1: sys:ev[/terms/][:]mods ("sys:ev/call-graph=fp/u", "sys:ev:") */
	if (mpos < n && s[mpos] == '/') {
		size_t close;

		ret = term_list_end(p, s, n, col, mpos, &close);
		if (!ret)
			ret = apply_event_terms(p, first, TERMS_TP, s, mpos, close, col);
		if (ret)
			return ret;
		mpos = close + 1;
		if (mpos < n && s[mpos] == ':')
			mpos++;
		return apply_mods(p, first, s + mpos, n - mpos, col + mpos, false);
	}
	if (mpos < n)
		return apply_mods(p, first, s + mpos + 1, n - mpos - 1, col + mpos + 1, false);
	return 0;
}

/* ------------------------------------------------------------------ */
/* breakpoints: mem:ADDR[/LEN][:rwx][:mods] */

static int parse_breakpoint(struct parser *p, const char *s, size_t n, size_t col)
{
	struct perf_event_attr attr;
	size_t i = 4, alen, first = p->evs.nr;
	uint64_t addr, len = 0;
	bool has_len = false, mods = false;
	int bp_type = 0;
	char name[64];

	alen = 0;
	while (i + alen < n && s[i + alen] != '/' && s[i + alen] != ':')
		alen++;
	if (!parse_u64(s + i, alen, &addr))
		return perr(p, EINVAL, col + i, s + i, alen ? alen : n - i,
			    "bad breakpoint address: expected a number like 0x4010a0");
	i += alen;
	if (i < n && s[i] == '/') {
		size_t l = 0;

		i++;
		while (i + l < n && s[i + l] != ':')
			l++;
		if (!parse_u64(s + i, l, &len) || (len != 1 && len != 2 && len != 4 && len != 8))
			return perr(p, EINVAL, col + i, s + i, l,
				    "bad breakpoint length: use 1, 2, 4 or 8");
		has_len = true;
		i += l;
	}
	/*
	 * ":ACCESS" then modifiers, in one token or two: perf's lexer takes
	 * up to three of r/w/x first ("mem:0x1000:wu" is w, then u;
	 * "mem:0x1000:u" is u alone), then an optional ':' before the
	 * modifiers, which may be empty ("mem:0x1000:w:").
	 */
	if (i < n && s[i] == ':') {
		size_t l = 0;

		i++;
		while (l < 3 && i + l < n && s[i + l] && strchr("rwx", s[i + l]))
			l++;
		for (size_t k = 0; k < l; k++) {
			int bit = s[i + k] == 'r' ? HW_BREAKPOINT_R :
				  s[i + k] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;

			if (bp_type & bit)	/* perf refuses "ww" too */
				return perr(p, EINVAL, col + i + k, s + i, l,
					    "breakpoint access '%c' repeated", s[i + k]);
			bp_type |= bit;
		}
		if ((bp_type & HW_BREAKPOINT_X) && (bp_type & HW_BREAKPOINT_RW))
			return perr(p, EINVAL, col + i, s + i, l,
				    "an execute breakpoint cannot also watch reads or writes");
		i += l;
		if (l && i < n && s[i] == ':')
			i++;	/* the ':' before modifiers */
		mods = true;
	} else if (i < n) {
		return perr(p, EINVAL, col + i, s + i, n - i, "unexpected text after breakpoint");
	}
	if (!bp_type)
		bp_type = HW_BREAKPOINT_RW;
	if (!has_len)	/* perf: an instruction is sizeof(long), data 4 bytes */
		len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_addr = addr;
	attr.bp_type = (uint32_t)bp_type;
	attr.bp_len = len;
	if (has_len) {	/* perf 6.1 names a sized breakpoint "mem:ADDR" */
		snprintf(name, sizeof(name), "mem:%.*s", (int)alen, s + 4);
		if (!add_event(p, &attr, name, strlen(name), "breakpoint", col))
			return -errno;
	} else if (!add_event(p, &attr, s, n, "breakpoint", col)) {
		return -errno;
	}
	if (mods)
		return apply_mods(p, first, s + i, n - i, col + i, false);
	return 0;
}

/* ------------------------------------------------------------------ */
/* uprobes: uprobe:PATH:SYM[+OFF][:mods], uretprobe:... */

static int parse_uprobe(struct parser *p, const char *s, size_t n, size_t col, bool ret_probe)
{
	struct perf_event_attr attr;
	size_t i = ret_probe ? 10 : 7, plen, slen, first = p->evs.nr;
	char path[PATH_MAX], real[PATH_MAX], sym[256];
	const char *interned;
	uint64_t off = 0, add = 0, mask;
	int type, word, ret;
	char *plus;

	plen = span(s + i, n - i, ':');
	if (plen == 0 || i + plen >= n)
		return perr(p, EINVAL, col + i, s + i, plen ? plen : n - i,
			    "uprobe needs PATH:SYMBOL");
	if (plen >= sizeof(path))
		return perr(p, ENAMETOOLONG, col + i, s + i, plen, "path too long");
	memcpy(path, s + i, plen);
	path[plen] = '\0';
	i += plen + 1;
	slen = span(s + i, n - i, ':');
	if (slen == 0 || slen >= sizeof(sym))
		return perr(p, EINVAL, col + i, s + i, slen, "bad uprobe symbol");
	memcpy(sym, s + i, slen);
	sym[slen] = '\0';
	if (memchr(path, '\0', plen) || memchr(sym, '\0', slen))
		return perr(p, EINVAL, col, s, n, "bad uprobe");
	plus = strchr(sym, '+');
	if (plus) {
		if (!parse_u64(plus + 1, strlen(plus + 1), &add))
			return perr(p, EINVAL, col + i + (size_t)(plus - sym), plus,
				    strlen(plus), "bad offset after '+'");
		*plus = '\0';
	}
	type = tally__pmu_type(p->sysfs, "uprobe");
	if (type < 0)
		return perr(p, ENOENT, col, s, i - 1, "this kernel has no uprobe PMU");
	if (!realpath(path, real))
		return perr(p, errno ? errno : ENOENT, col + (ret_probe ? 10 : 7), path, plen,
			    "cannot open '%s': %s", path, strerror(errno));
	if (isdigit((unsigned char)sym[0])) {
		if (!parse_u64(sym, strlen(sym), &off))
			return perr(p, EINVAL, col + i, sym, strlen(sym), "bad file offset");
	} else {
		ret = tally__elf_sym_offset(real, sym, &off);
		if (ret == -ENOENT)
			return perr(p, ENOENT, col + i, sym, strlen(sym),
				    "no symbol '%s' in %s", sym, real);
		if (ret)
			return perr(p, -ret, col + i, sym, strlen(sym),
				    "cannot read the symbols of %s: %s", real, strerror(-ret));
	}
	interned = tally__intern(real);
	if (!interned)
		return nomem(p, col);
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)interned;
	attr.config2 = off + add;
	if (ret_probe) {
		if (tally__pmu_format(p->sysfs, "uprobe", "retprobe", &word, &mask) || word != 0)
			mask = 1;	/* config:0 on every kernel so far */
		attr.config |= mask;
	}
	i += slen;
	if (!add_event(p, &attr, s, n, "uprobe", col))	/* as typed, like perf's names */
		return -errno;
	if (i < n)
		return apply_mods(p, first, s + i + 1, n - i - 1, col + i + 1, false);
	return 0;
}

/* ------------------------------------------------------------------ */
/* names: symbolic, cache, raw, sysfs alias, libpfm4 */

struct alias_find {
	struct parser *p;
	const char *name;
	const char *typed;
	size_t typed_len;
	size_t col;
	int err;
};

static int alias_find_cb(const char *pmu, void *ctx)
{
	struct alias_find *af = ctx;
	struct parser *p = af->p;
	char terms[512], cpus[1024], unit[32];
	struct perf_event_attr attr;
	struct term_ctx tc;
	struct tally_event *ev;
	double scale;
	int n, type, ret;

	n = tally__pmu_alias(p->sysfs, pmu, af->name, terms, sizeof(terms));
	if (n < 0)
		return 0;
	type = tally__pmu_type(p->sysfs, pmu);
	if (type < 0)
		return 0;
	memset(&attr, 0, sizeof(attr));
	memset(&tc, 0, sizeof(tc));
	attr.type = (uint32_t)type;
	tc.pmu = pmu;
	tc.attr = &attr;
	ret = apply_terms(p, &tc, terms, (size_t)n, af->col, 1);
	if (ret) {
		af->err = ret;
		return 1;
	}
	ev = add_event(p, &attr, af->typed, af->typed_len, pmu, af->col);
	if (!ev) {
		af->err = -errno;
		return 1;
	}
	tally__pmu_alias_scale_unit(p->sysfs, pmu, af->name, &scale, unit, sizeof(unit));
	ev->scale = scale;
	if ((unit[0] && !(ev->unit = strdup(unit))) ||
	    (tally__pmu_cpumask(p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
	     !(ev->cpus = strdup(cpus)))) {
		af->err = nomem(p, af->col);
		return 1;
	}
	return 0;
}

/*
 * Hybrid x86 (Alder Lake and later): a hardware or cache event counts
 * on each core type's PMU, named in the attr's upper config bits
 * (PERF_PMU_TYPE_SHIFT, Linux 5.13); one event per PMU, named
 * "cpu_core/cycles/" as perf 6.1 does, on that PMU's cpus.
 * 0 when added, 1 when the machine is not hybrid, -errno.
 */
struct hybrid_ctx {
	struct parser *p;
	const struct perf_event_attr *attr;
	const char *s;
	size_t hn, n, col;
	int found, err;
};

static const char *const hybrid_pmus[] = { "cpu_core", "cpu_atom" };

static int hybrid_cb(size_t i, struct hybrid_ctx *h)
{
	const char *pmu = hybrid_pmus[i];
	struct perf_event_attr attr = *h->attr;
	struct tally_event *ev;
	char name[300], cpus[1024];
	int type;

	/* Every hardware event asks: read sysfs once per parse, not per event. */
	if (!h->p->hybrid_type[i]) {
		type = tally__pmu_type(h->p->sysfs, pmu);
		h->p->hybrid_type[i] = type < 0 ? -1 : type + 1;
	}
	type = h->p->hybrid_type[i] - 1;
	if (type < 0)
		return 0;
	attr.config |= (uint64_t)type << 32;
	snprintf(name, sizeof(name), "%s/%.*s/%.*s", pmu, (int)h->hn, h->s,
		 (int)(h->n > h->hn + 1 ? h->n - h->hn - 1 : 0), h->s + h->hn + 1);
	ev = add_event(h->p, &attr, name, strlen(name), pmu, h->col);
	if (!ev) {
		h->err = -errno;
		return 1;
	}
	if (tally__pmu_cpumask(h->p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
	    !(ev->cpus = strdup(cpus))) {
		h->err = nomem(h->p, h->col);
		return 1;
	}
	h->found++;
	return 0;
}

static int add_hybrid(struct parser *p, const struct perf_event_attr *attr, const char *s,
		      size_t hn, size_t n, size_t col)
{
	struct hybrid_ctx h = { .p = p, .attr = attr, .s = s, .hn = hn, .n = n, .col = col };

	/* perf's order: the big cores first */
	for (size_t i = 0; i < ARRAY_SIZE(hybrid_pmus) && !h.err; i++)
		hybrid_cb(i, &h);
	if (h.err)
		return h.err;
	return h.found ? 0 : 1;
}

static int hybrid_index(const char *pmu)
{
	for (size_t i = 0; i < ARRAY_SIZE(hybrid_pmus); i++)
		if (pmu && !strcmp(pmu, hybrid_pmus[i]))
			return (int)i;
	return -1;
}

/*
 * A group cannot span two core types: the kernel refuses it. Split
 * {cycles,instructions} on a hybrid machine into one group per core
 * PMU, as perf does; other members (software) stay with the first.
 */
static int split_hybrid_group(struct parser *p, size_t first)
{
	size_t nr = p->evs.nr - first, k = 0;
	struct tally_event *tmp;
	bool has[ARRAY_SIZE(hybrid_pmus)] = { false };
	int nkinds = 0, group = p->evs.ev[first].group;

	for (size_t i = first; i < p->evs.nr; i++) {
		int h = hybrid_index(p->evs.ev[i].pmu);

		if (h >= 0 && !has[h]) {
			has[h] = true;
			nkinds++;
		}
	}
	if (nkinds < 2)
		return 0;
	tmp = tally__calloc(nr, sizeof(*tmp));
	if (!tmp)
		return nomem(p, 0);
	for (size_t h = 0; h < ARRAY_SIZE(hybrid_pmus); h++) {
		size_t start = k;

		if (!has[h])
			continue;
		for (size_t i = first; i < p->evs.nr; i++) {
			int hi = hybrid_index(p->evs.ev[i].pmu);

			/* non-core members go with the first core type */
			if (hi == (int)h || (hi < 0 && start == 0))
				tmp[k++] = p->evs.ev[i];
		}
		for (size_t j = start; j < k; j++) {
			tmp[j].group = start == 0 ? group : p->next_group;
			tmp[j].leader = j == start;
		}
		if (start != 0)
			p->next_group++;
	}
	memcpy(p->evs.ev + first, tmp, nr * sizeof(*tmp));
	free(tmp);
	return 0;
}

static bool is_raw(const char *s, size_t n, uint64_t *config)
{
	uint64_t v = 0;

	if (n < 2 || n > 17 || s[0] != 'r')
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0' :
					(tolower((unsigned char)s[i]) - 'a' + 10));
	}
	*config = v;
	return true;
}

/*
 * A name (head, hn bytes of the n typed) that is not a tracepoint:
 * symbolic, cache, raw, sysfs alias on any PMU, then libpfm4. 1 if not
 * found. Named as typed, modifiers included ("cycles:u"), as perf 6.1
 * does, except cache events, which perf names without them.
 */
static int parse_named(struct parser *p, const char *s, size_t hn, size_t n, size_t col)
{
	const struct tally_sym_event *se;
	const struct tally_tool_event *te;
	struct perf_event_attr attr;
	uint64_t config;
	char name[256];
	int ret;

	memset(&attr, 0, sizeof(attr));
	se = tally__sym_lookup(s, hn);
	if (se) {
		attr.type = se->type;
		attr.config = se->config;
		if (se->type == PERF_TYPE_HARDWARE && (ret = add_hybrid(p, &attr, s, hn, n, col)) <= 0)
			return ret;
		return add_event(p, &attr, s, n, pmu_of_type(se->type), col) ? 0 : -errno;
	}
	te = tally__tool_lookup(s, hn);
	if (te) {
		/*
		 * perf 6.1's add_event_tool: a software dummy (which we never
		 * open) named as typed, modifiers included, unit "ns".
		 */
		struct tally_event *ev;

		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_DUMMY;
		ev = add_event(p, &attr, s, n, "tool", col);
		if (!ev)
			return -errno;
		ev->flags |= te->flag;
		if (set_str(&ev->unit, "ns", 2))
			return nomem(p, col);
		return 0;
	}
	ret = tally__cache_parse(s, hn, &config);
	if (ret == -EINVAL)
		return perr(p, EINVAL, col, s, hn,
			    "'%.*s' is not a valid cache event: that cache has no such operation",
			    (int)(hn > 64 ? 64 : hn), s);
	if (ret == 0) {
		attr.type = PERF_TYPE_HW_CACHE;
		attr.config = config;
		if ((ret = add_hybrid(p, &attr, s, hn, n, col)) <= 0)
			return ret;
		return add_event(p, &attr, s, hn, "cpu", col) ? 0 : -errno;
	}
	if (is_raw(s, hn, &config)) {
		attr.type = PERF_TYPE_RAW;
		attr.config = config;
		return add_event(p, &attr, s, n, "cpu", col) ? 0 : -errno;
	}
	if (hn == 0 || hn >= sizeof(name) || memchr(s, '\0', hn))
		return 1;
	memcpy(name, s, hn);
	name[hn] = '\0';
	if (!strchr(name, '/')) {
		struct alias_find af = { .p = p, .name = name, .typed = s,
					 .typed_len = n, .col = col };
		size_t before = p->evs.nr;

		tally__pmu_foreach(p->sysfs, alias_find_cb, &af);
		if (af.err)
			return af.err;
		if (p->evs.nr > before)
			return 0;
	}
	/* libpfm4 knows the CPU from cpuid even when the kernel has no PMU */
	if (!p->no_pfm && tally__pmu_has_core(p->sysfs)) {
		struct tally_pfm_enc enc;

		if (!tally__pfm_encode(name, &enc)) {
			attr.type = enc.type;
			attr.config = enc.config;
			attr.config1 = enc.config1;
			attr.config2 = enc.config2;
			return add_event(p, &attr, s, n, pmu_of_type(enc.type), col) ?
			       0 : -errno;
		}
	}
	return 1;
}

static int unknown_event(struct parser *p, const char *s, size_t n, size_t col)
{
	char name[128], hint[128];
	int ret;

	ret = perr(p, ENOENT, col, s, n, "unknown event '%.*s'", (int)(n > 64 ? 64 : n), s);
	if (n < sizeof(name) && !memchr(s, '\0', n)) {
		memcpy(name, s, n);
		name[n] = '\0';
		if (suggest(name, hint, sizeof(hint), p->sysfs, p->tracefs))
			set_hint(p, hint);
	}
	return ret;
}

/*
 * The terms s[open+1..close) of an event already added (events first..),
 * applied to each of them, then name=, call-graph= and stack-size=.
 */
static int apply_event_terms(struct parser *p, size_t first, int where, const char *s,
			     size_t open, size_t close, size_t col)
{
	for (size_t e = first; e < p->evs.nr; e++) {
		struct tally_event *ev = &p->evs.ev[e];
		/* a hybrid event's PMU type in config's upper half survives config= */
		uint64_t pmu_bits = ev->attr.config & ~0xffffffffull;
		bool hw = ev->attr.type == PERF_TYPE_HARDWARE ||
			  ev->attr.type == PERF_TYPE_HW_CACHE;
		struct term_ctx tc;
		int ret;

		memset(&tc, 0, sizeof(tc));
		tc.where = where;
		tc.attr = &ev->attr;
		tc.scale = 1.0;
		ret = apply_terms(p, &tc, s + open + 1, close - open - 1, col + open + 1, 0);
		if (ret)
			return ret;
		if (hw && pmu_bits)
			ev->attr.config = (ev->attr.config & 0xffffffffull) | pmu_bits;
		finish_terms(&tc, &ev->attr, &ev->flags);
		if (tc.has_name && set_str(&ev->name, tc.name, strlen(tc.name)))
			return nomem(p, col);
	}
	return 0;
}

/* The closing '/' of a term list opened at s[open], or an error. */
static int term_list_end(struct parser *p, const char *s, size_t n, size_t col, size_t open,
			 size_t *close)
{
	*close = open + 1 + span(s + open + 1, n - open - 1, '/');
	if (*close >= n)
		return perr(p, EINVAL, col + open, s, n,
			    "unterminated term list: missing the closing '/'");
	return 0;
}

/*
 * A symbolic, tool, cache or raw event with a term list: s[0..slash) is
 * the name, "/terms/" follows, then modifiers. perf 6.1's grammar: a
 * symbolic event's "/terms/" and a tool event's "//" take the modifiers
 * straight after ("task-clock/period=1/u"; a ':' there is a syntax
 * error), a cache or raw event's may have a ':' between
 * ("L1-dcache-loads/period=1/:u"); a tool event takes no terms.
 */
static int parse_sym_terms(struct parser *p, const char *s, size_t n, size_t col,
			   size_t slash, bool colon_ok, bool tool)
{
	size_t close, m, first = p->evs.nr;
	int ret;

	ret = term_list_end(p, s, n, col, slash, &close);
	if (ret)
		return ret;
	if (tool && close > slash + 1)
		return perr(p, EINVAL, col + slash + 1, s + slash + 1, close - slash - 1,
			    "'%.*s' is a tool event: it takes no terms", (int)slash, s);
	m = close + 1;
	if (m < n && s[m] == ':') {
		if (!colon_ok)
			return perr(p, EINVAL, col + m, s + m, n - m,
				    "no ':' after the term list of '%.*s': modifiers follow the '/' (as in perf)",
				    (int)(slash > 64 ? 64 : slash), s);
		m++;
	}
	ret = parse_named(p, s, slash, n, col);
	if (ret)
		return ret < 0 ? ret : unknown_event(p, s, slash, col);
	ret = apply_event_terms(p, first, TERMS_SYM, s, slash, close, col);
	if (ret)
		return ret;
	return apply_mods(p, first, s + m, n - m, col + m, false);
}

/* perf's "TYPE:CONFIG[/terms/][:mods]": a raw attr type and config, in C numbers. */
static int parse_numeric(struct parser *p, const char *s, size_t n, size_t col)
{
	struct perf_event_attr attr;
	size_t tl = span(s, n, ':'), cl, i, first = p->evs.nr;
	uint64_t type, config;
	int ret;

	if (tl >= n || !parse_u64(s, tl, &type) || type > UINT32_MAX)
		return perr(p, EINVAL, col, s, tl, "bad event type: TYPE:CONFIG takes two numbers");
	i = tl + 1;
	cl = 0;
	while (i + cl < n && s[i + cl] != ':' && s[i + cl] != '/')
		cl++;
	if (!parse_u64(s + i, cl, &config))
		return perr(p, EINVAL, col + i, s + i, cl,
			    "bad event config: TYPE:CONFIG takes two numbers");
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)type;
	attr.config = config;
	if (!add_event(p, &attr, s, n, pmu_of_type(attr.type), col))
		return -errno;
	i += cl;
	if (i < n && s[i] == '/') {
		size_t close;

		ret = term_list_end(p, s, n, col, i, &close);
		if (!ret)
			ret = apply_event_terms(p, first, TERMS_SYM, s, i, close, col);
		if (ret)
			return ret;
		i = close + 1;
	}
	if (i < n && s[i] == ':')
		i++;
	else if (i < n)
		return perr(p, EINVAL, col + i, s + i, n - i, "unexpected text after '%.*s'",
			    (int)i, s);
	return apply_mods(p, first, s + i, n - i, col + i, false);
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* One event, s[0..n) at column col. */
static int parse_event(struct parser *p, const char *s, size_t n, size_t col)
{
	size_t colon, slash, first = p->evs.nr;
	int ret;

	if (n == 0)
		return perr(p, EINVAL, col, "", 0, "empty event");
	if (n >= 4 && !memcmp(s, "mem:", 4))
		return parse_breakpoint(p, s, n, col);
	if (n >= 7 && !memcmp(s, "uprobe:", 7))
		return parse_uprobe(p, s, n, col, false);
	if (n >= 10 && !memcmp(s, "uretprobe:", 10))
		return parse_uprobe(p, s, n, col, true);

	colon = span(s, n, ':');
	slash = span(s, n, '/');
	if (isdigit((unsigned char)s[0]) && colon < n && colon < slash)
		return parse_numeric(p, s, n, col);
	if (slash < n && slash < colon && slash > 0) {
		uint64_t cfg;
		int c = tally__cache_parse(s, slash, &cfg);

		/* perf's lexer knows these names before any PMU's */
		if (tally__sym_lookup(s, slash) || is_raw(s, slash, &cfg) || c == 0)
			return parse_sym_terms(p, s, n, col, slash, !tally__sym_lookup(s, slash),
					       false);
		if (tally__tool_lookup(s, slash))
			return parse_sym_terms(p, s, n, col, slash, false, true);
	}
	if (slash < n && slash < colon) {
		for (size_t i = 0; i < slash; i++)
			if (!ident_char(s[i]))
				return perr(p, EINVAL, col + i, s, slash, "bad PMU name");
		if (slash == 0)
			return perr(p, EINVAL, col, s, n, "missing PMU name before '/'");
		return parse_pmu_event(p, s, n, col, slash);
	}
	/* libpfm4's full syntax: pmu::event[:umask...] */
	if (colon + 1 < n && s[colon + 1] == ':') {
		char name[256];
		struct tally_pfm_enc enc;
		struct perf_event_attr attr;

		if (p->no_pfm || n >= sizeof(name) || memchr(s, '\0', n))
			return unknown_event(p, s, n, col);
		memcpy(name, s, n);
		name[n] = '\0';
		if (tally__pfm_encode(name, &enc))
			return unknown_event(p, s, n, col);
		memset(&attr, 0, sizeof(attr));
		attr.type = enc.type;
		attr.config = enc.config;
		attr.config1 = enc.config1;
		attr.config2 = enc.config2;
		return add_event(p, &attr, s, n, pmu_of_type(enc.type), col) ? 0 : -errno;
	}

	if (colon < n && colon > 0 && !tally__sym_lookup(s, colon) &&
	    !tally__tool_lookup(s, colon) && !is_raw(s, colon, &(uint64_t){0})) {
		uint64_t cfg;

		if (tally__cache_parse(s, colon, &cfg) == -ENOENT) {
			size_t en = span(s + colon + 1, n - colon - 1, ':');
			size_t en_slash = span(s + colon + 1, n - colon - 1, '/');

			if (en_slash < en)	/* sys:ev/terms/ */
				en = en_slash;
			bool sys_exists, mods_tail = is_mods(s + colon + 1, n - colon - 1);
			char sys[256];

			/*
			 * sys:name, unless "name:mods" with a name we may know;
			 * when tracefs cannot be read, a tail of modifier
			 * letters still reads as modifiers.
			 */
			if (colon < sizeof(sys) && !memchr(s, '\0', colon)) {
				int st;

				memcpy(sys, s, colon);
				sys[colon] = '\0';
				st = tally__tp_system_state(p->tracefs, sys);
				sys_exists = is_glob(s, colon) || is_glob(s + colon + 1, en) ||
					     st == 1 || (st < 0 && !mods_tail);
				if (sys_exists)
					return parse_tracepoint(p, s, n, col, colon, en);
			}
		}
	}
	ret = parse_named(p, s, colon, n, col);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		/* neither a known name nor a tracepoint: blame the name */
		if (colon < n && colon > 0 && !is_mods(s + colon + 1, n - colon - 1))
			return unknown_event(p, s, n, col);
		return unknown_event(p, s, colon, col);
	}
	if (colon < n)
		return apply_mods(p, first, s + colon + 1, n - colon - 1, col + colon + 1, false);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the list */

/*
 * End of the event starting at i: the next ',' or (in a group) '}',
 * but a PMU's term list "pmu/a=1,b=2/" is skipped whole.
 */
static size_t event_end(const char *s, size_t i, size_t n, bool in_group)
{
	size_t j = i;
	bool prefix = (n - i >= 4 && !memcmp(s + i, "mem:", 4)) ||
		      (n - i >= 7 && !memcmp(s + i, "uprobe:", 7)) ||
		      (n - i >= 10 && !memcmp(s + i, "uretprobe:", 10));

	/* NAME, sys:ev (globs too) or TYPE:CONFIG before a term list */
	while (!prefix && j < n && (ident_char(s[j]) || strchr(":*?[]", s[j])) && s[j])
		j++;
	if (j > i && j < n && s[j] == '/') {
		const char *c = memchr(s + j + 1, '/', n - j - 1);

		if (!c)
			return n;
		j = (size_t)(c - s) + 1;
	} else {
		j = i;
	}
	while (j < n && s[j] != ',' && !(in_group && (s[j] == '}' || s[j] == '{')))
		j++;
	return j;
}

static void trim(const char *s, size_t *i, size_t *j)
{
	while (*i < *j && isspace((unsigned char)s[*i]))
		(*i)++;
	while (*j > *i && isspace((unsigned char)s[*j - 1]))
		(*j)--;
}

static int parse_group(struct parser *p, size_t *pos)
{
	const char *s = p->spec;
	size_t n = p->len, open = *pos, i = open + 1, first = p->evs.nr, end;
	int ret;

	p->group = p->next_group++;
	for (;;) {
		size_t a, b;

		end = event_end(s, i, n, true);
		a = i;
		b = end;
		trim(s, &a, &b);
		if (end < n && s[end] == '{')
			return perr(p, EINVAL, end, "{", 1, "groups cannot nest");
		if (end >= n)
			return perr(p, EINVAL, open, s + open, n - open,
				    "unterminated group: missing '}'");
		if (a == b)
			return perr(p, EINVAL, a, s + open, end + 1 - open,
				    s[end] == '}' && p->evs.nr == first ? "empty group" :
				    "empty event in group");
		ret = parse_event(p, s + a, b - a, a);
		if (ret)
			return ret;
		i = end + 1;
		if (s[end] == '}')
			break;
	}
	p->group = -1;
	p->evs.ev[first].leader = true;
	if (i < n && s[i] == ':') {
		size_t m = i + 1, me = m;

		while (me < n && s[me] != ',')
			me++;
		ret = apply_mods(p, first, s + m, me - m, m, true);
		if (ret)
			return ret;
		i = me;
	}
	ret = split_hybrid_group(p, first);
	if (ret)
		return ret;
	*pos = i;
	return 0;
}

static int parse_spec(struct parser *p)
{
	const char *s = p->spec;
	size_t n = p->len, i = 0;
	int ret;

	for (;;) {
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		{
			/*
			 * perf 6.1's "NAME{a,b}": a group with a name, which
			 * perf shows only in report's group headers; tally
			 * keeps no group names, so the name is dropped.
			 */
			size_t j = i;

			while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
				j++;
			if (j > i && j < n && s[j] == '{')
				i = j;
		}
		if (i < n && s[i] == '{') {
			ret = parse_group(p, &i);
			if (ret)
				return ret;
			while (i < n && isspace((unsigned char)s[i]))
				i++;
		} else {
			size_t end = event_end(s, i, n, false), a = i, b = end;

			trim(s, &a, &b);
			if (a == b)
				return perr(p, EINVAL, i, s + i, end < n ? 1 : 0, "empty event");
			ret = parse_event(p, s + a, b - a, a);
			if (ret)
				return ret;
			i = end;
		}
		if (i >= n)
			return 0;
		if (s[i] != ',')
			return perr(p, EINVAL, i, s + i, 1, "unexpected '%c'", s[i]);
		i++;
		if (i >= n)
			return perr(p, EINVAL, i - 1, ",", 1, "empty event after ','");
	}
}

int tally_parse_events(const char *spec, const struct tally_parse_opts *opts,
		       struct tally_events *out, struct tally_parse_error *err)
{
	struct parser p = { .group = -1 };
	struct tally_event *v;
	int ret;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!spec || !out)
		return tally__err(EINVAL);
	if (!TALLY_OPTS_VALID(opts, tally_parse_opts)) {
		if (err) {
			err->err = -EINVAL;
			snprintf(err->msg, sizeof(err->msg), "bad tally_parse_opts");
		}
		return tally__err(EINVAL);
	}
	p.spec = spec;
	p.len = strlen(spec);
	p.sysfs = TALLY_OPTS_GET(opts, sysfs_root, NULL) ?: "/sys";
	p.tracefs = TALLY_OPTS_GET(opts, tracefs_root, NULL);
	p.no_pfm = TALLY_OPTS_GET(opts, no_pfm, false);
	p.stat_terms = TALLY_OPTS_GET(opts, stat_terms, false);
	p.err = err;
	for (size_t i = 0; i < out->nr; i++)
		if (out->ev[i].group >= p.next_group)
			p.next_group = out->ev[i].group + 1;

	ret = parse_spec(&p);
	if (ret) {
		tally_events__clear(&p.evs);
		return tally__err(-ret);
	}
	v = tally__reallocarray(out->ev, out->nr + p.evs.nr, sizeof(*v));
	if (!v) {
		tally_events__clear(&p.evs);
		return perr(&p, ENOMEM, 0, "", 0, "out of memory");
	}
	for (size_t i = 0; i < p.evs.nr; i++)
		p.evs.ev[i].flags &= ~EV_GH_GIVEN;
	memcpy(v + out->nr, p.evs.ev, p.evs.nr * sizeof(*v));
	out->ev = v;
	out->nr += p.evs.nr;
	free(p.evs.ev);
	return 0;
}

/*
 * perf's __parse_events_print_error(): the line is "event syntax error: '"
 * + the window + "'", the window at most (width - 2) - 20 characters,
 * starting 13 before the bad token; a cut end's two characters become "..".
 */
#define PE_MAX_WIDTH	1000	/* perf's MAX_WIDTH */
#define PE_MAX_ERR_IDX	13	/* perf's max_err_idx */
#define PE_MIN_WINDOW	16	/* below it perf's window is meaningless */

int tally_parse_error__format_width(const struct tally_parse_error *err, const char *spec,
				    int width, char *buf, size_t len)
{
	static const char prefix[] = "event syntax error: '";
	size_t slen, cut = 0, show, start, end;
	bool head = false, tail = false;
	int n, col;

	if (!err || !buf || !len)
		return tally__err(EINVAL);
	if (!spec)
		spec = "";
	slen = strlen(spec);
	col = err->column;
	if (col < 0 || (size_t)col > slen)
		col = 0;
	show = slen;
	if (width > 0) {
		long max_len = (width > PE_MAX_WIDTH ? PE_MAX_WIDTH : width) - 2 -
			       (long)(sizeof(prefix) - 2);

		if (max_len < PE_MIN_WINDOW)
			max_len = PE_MIN_WINDOW;
		if (col > PE_MAX_ERR_IDX) {
			cut = (size_t)(col - PE_MAX_ERR_IDX);
			head = true;
		}
		show = slen - cut;	/* >= 13: the token is at or before the end */
		if (show > (size_t)max_len) {
			show = (size_t)max_len;
			tail = true;
		}
	}
	start = cut + (head ? 2 : 0);
	end = cut + show - (tail ? 2 : 0);
	n = snprintf(buf, len, "%s%s%.*s%s'\n%*s\\___ %s%s%s%s", prefix, head ? ".." : "",
		     (int)(end - start), spec + start, tail ? ".." : "",
		     (int)(sizeof(prefix) - 1) + col - (int)cut, "",
		     err->msg[0] ? err->msg : "syntax error",
		     err->hint[0] ? " (did you mean '" : "", err->hint,
		     err->hint[0] ? "'?)" : "");
	if (n < 0)
		return tally__err(EINVAL);
	return n;
}

int tally_parse_error__format(const struct tally_parse_error *err, const char *spec,
			      char *buf, size_t len)
{
	return tally_parse_error__format_width(err, spec, 0, buf, len);
}

/* ------------------------------------------------------------------ */
/* enumeration */

struct list_ctx {
	tally_event_cb cb;
	void *ctx;
	const char *sysfs;
};

/* perf list shows hardware and cache events only when they open. */
static bool can_open(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = tally_sys_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int list_cache_cb(const char *name, uint64_t config, void *ctx)
{
	struct list_ctx *lc = ctx;

	if (!can_open(PERF_TYPE_HW_CACHE, config))
		return 0;
	return lc->cb("cache", name, "Hardware cache event", lc->ctx);
}

static int list_alias_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	struct list_ctx *lc = ctx;
	char name[300];

	snprintf(name, sizeof(name), "%s/%s/", pmu, alias);
	return lc->cb("pmu", name, terms, lc->ctx);
}

static int list_pmu_cb(const char *pmu, void *ctx)
{
	struct list_ctx *lc = ctx;

	return tally__pmu_foreach_alias(lc->sysfs, pmu, list_alias_cb, lc);
}

static int list_tp_cb(const char *sys, const char *ev, void *ctx)
{
	struct list_ctx *lc = ctx;
	char name[520];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return lc->cb("tracepoint", name, "", lc->ctx);
}

static int list_pfm_cb(const char *name, const char *desc, void *ctx)
{
	struct list_ctx *lc = ctx;

	return lc->cb("pfm", name, desc, lc->ctx);
}

int tally_events__foreach(const struct tally_parse_opts *opts, tally_event_cb cb, void *ctx)
{
	struct list_ctx lc = { .cb = cb, .ctx = ctx };
	char name[128];
	int ret;

	if (!cb || !TALLY_OPTS_VALID(opts, tally_parse_opts))
		return tally__err(EINVAL);
	lc.sysfs = TALLY_OPTS_GET(opts, sysfs_root, NULL) ?: "/sys";
	for (int pass = 0; pass < 2; pass++) {
		uint32_t type = pass ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;

		for (size_t i = 0; i < tally__nr_sym_events; i++) {
			const struct tally_sym_event *e = &tally__sym_events[i];

			if (e->type != type)
				continue;
			if (type == PERF_TYPE_HARDWARE && !can_open(e->type, e->config))
				continue;
			if (e->alias)
				snprintf(name, sizeof(name), "%s OR %s", e->name, e->alias);
			else
				snprintf(name, sizeof(name), "%s", e->name);
			ret = cb(pass ? "software" : "hardware", name, e->desc, ctx);
			if (ret)
				return ret;
		}
	}
	/* perf list: the tool events follow the software events */
	for (size_t i = 0; i < tally__nr_tool_events; i++) {
		ret = cb("tool", tally__tool_events[i].name, tally__tool_events[i].desc, ctx);
		if (ret)
			return ret;
	}
	ret = tally__cache_foreach(list_cache_cb, &lc);
	if (ret)
		return ret;
	ret = tally__pmu_foreach(lc.sysfs, list_pmu_cb, &lc);
	if (ret)
		return ret;
	ret = cb("raw", "rNNN", "Raw hardware event descriptor", ctx);
	if (!ret)
		ret = cb("raw", "cpu/t1=v1[,t2=v2,t3 ...]/modifier",
			 "Raw hardware event descriptor", ctx);
	if (!ret)
		ret = cb("breakpoint", "mem:<addr>[/len][:access]", "Hardware breakpoint", ctx);
	if (!ret)
		ret = cb("uprobe", "uprobe:<path>:<symbol>[+off]", "User-space probe", ctx);
	if (ret)
		return ret;
	ret = tally__tp_foreach(TALLY_OPTS_GET(opts, tracefs_root, NULL), NULL, NULL,
				list_tp_cb, &lc);
	if (ret == -ENOENT || ret == -EACCES)	/* none to list here (as perf) */
		ret = 0;
	if (ret)
		return ret;
	if (!TALLY_OPTS_GET(opts, no_pfm, false) && tally__pmu_has_core(lc.sysfs))
		ret = tally__pfm_foreach(list_pfm_cb, &lc);
	return ret;
}
