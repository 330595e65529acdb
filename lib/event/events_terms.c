// SPDX-License-Identifier: MIT
/*
 * Term lists ("/config=1,name=x/"): perf's own terms, a PMU's sysfs
 * formats, the call graph terms; and PMU events "pmu/terms/".
 * Moved from events.c.
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
#include "events_parse.h"

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

/* perf record's default dwarf stack dump, and the kernel's ceiling */
#define DEFAULT_STACK_SIZE	8192u
#define MAX_STACK_SIZE		65528u

static int best_format_cb(const char *pmu, const char *alias, const char *terms, void *ctx)
{
	return tally__best_try(ctx, alias);
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

	tally__best_init(&b, key);
	for (size_t i = 0; i < ARRAY_SIZE(perf_terms); i++)
		if (perf_terms[i].f & T_OURS)
			tally__best_try(&b, perf_terms[i].name);
	tally__pmu_foreach_alias(p->sysfs, pmu, best_format_cb, &b);
	for (size_t i = 0; i < ARRAY_SIZE(common); i++) {
		int w;
		uint64_t m;

		if (!tally__pmu_format(p->sysfs, pmu, common[i], &w, &m))
			tally__best_try(&b, common[i]);
	}
	if (b.name[0])
		tally__ev_set_hint(p, b.name);
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
		return tally__ev_err(p, EINVAL, col, t, klen,
			    "term '%s' has no name (a dwarf stack size is stack-size=%s)",
			    key, key);
	return tally__ev_err(p, EINVAL, col, t, klen, "unknown term '%s' for %s (valid terms: %s)", key,
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
		return tally__ev_err(p, EINVAL, col, t, klen,
			    "'%s' is not usable in 'tally stat'", key);
	if (!(pt->f & T_OURS))
		return tally__ev_err(p, EOPNOTSUPP, col, t, klen,
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
			return tally__ev_err(p, EINVAL, col, t, n, "%s= needs a value", key);
		if (!strcmp(key, "name")) {
			if (vlen >= sizeof(tc->name))
				return tally__ev_err(p, EINVAL, vcol, vs, vlen, "name too long");
			if (isdigit((unsigned char)vs[0]))	/* perf: a string, not a number */
				return tally__ev_err(p, EINVAL, vcol, vs, vlen,
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
				return tally__ev_err(p, EINVAL, vcol, vs, vlen,
					    "call-graph '%.*s': use fp, dwarf, lbr or no",
					    (int)(vlen > 32 ? 32 : vlen), vs);
			tc->callgraph = mode;
		}
		/* metric-id: perf's metric expressions use it; tally has none */
		return 0;
	}
	if (has_val && !parse_u64(vs, vlen, &val))
		return tally__ev_err(p, EINVAL, vcol, vs, vlen,
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
		return tally__ev_err(p, EOPNOTSUPP, col, t, n,
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
			return tally__ev_err(p, ERANGE, has_val ? vcol : col, has_val ? vs : t,
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
		return tally__ev_err(p, EINVAL, col, t, n, "empty term");
	if (klen >= sizeof(key))
		return tally__ev_err(p, EINVAL, col, t, klen, "term name too long");
	memcpy(key, t, klen);
	key[klen] = '\0';
	if (memchr(key, '\0', klen))
		return tally__ev_err(p, EINVAL, col, t, klen, "bad term name");

	if (has_val && vlen == 1 && vs[0] == '?') {
		/* An alias term the user must give (perf's "umask=?"). */
		if (depth > 0)
			return 0;
		return tally__ev_err(p, EINVAL, col + klen + 1, vs, vlen, "term '%s' needs a value", key);
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
		return tally__ev_err(p, EINVAL, col + klen + 1, vs, vlen,
			    "bad value for term '%s': expected a number", key);

	ret = tally__pmu_format(p->sysfs, tc->pmu, key, &word, &mask);
	if (ret == 0) {
		/* arm64 FEAT_PMUv3_TH (Armv8.8): caps/threshold_max bounds it. */
		if (!strncmp(key, "threshold", 9)) {
			uint64_t max = 0;

			if (tally__pmu_cap(p->sysfs, tc->pmu, "threshold_max", &max) || !max)
				return tally__ev_err(p, EOPNOTSUPP, col, t, n,
					    "PMU '%s' does not support thresholds (threshold_max is 0)",
					    tc->pmu);
			if (!strcmp(key, "threshold") && val > max)
				return tally__ev_err(p, ERANGE, has_val ? col + klen + 1 : col,
					    has_val ? vs : t, has_val ? vlen : n,
					    "threshold %llu is over PMU '%s' threshold_max %llu (0x%llx)",
					    (unsigned long long)val, tc->pmu,
					    (unsigned long long)max, (unsigned long long)max);
		}
		if (!tally__pmu_format_encode(mask, val, &enc)) {
			int bits = tally__pmu_format_bits(mask);
			unsigned long long maxv = bits >= 64 ? ~0ull : (1ull << bits) - 1;

			return tally__ev_err(p, ERANGE, has_val ? col + klen + 1 : col,
				    has_val ? vs : t, has_val ? vlen : n,
				    "value 0x%llx too big for '%s' (%d bits, max 0x%llx)",
				    (unsigned long long)val, key, bits, maxv);
		}
#ifdef PERF_ATTR_SIZE_VER8
		word_p = word == 1 ? &a->config1 : word == 2 ? &a->config2 :
			 word == 3 ? &a->config3 : &a->config;
#else
		if (word == 3)
			return tally__ev_err(p, EOPNOTSUPP, col, t, klen,
				    "'%s' is in config3, which needs Linux 6.3 UAPI headers at build time",
				    key);
		word_p = word == 1 ? &a->config1 : word == 2 ? &a->config2 : &a->config;
#endif
		*word_p = (*word_p & ~mask) | enc;
		return 0;
	}
	if (ret != -ENOENT)
		return tally__ev_err(p, -ret, col, t, klen, "cannot read format of '%s' in PMU '%s'",
			    key, tc->pmu);

	if (!has_val && depth == 0) {
		char terms[512];
		int n2 = tally__pmu_alias(p->sysfs, tc->pmu, key, terms, sizeof(terms));

		if (n2 >= 0) {
			char unit[32];
			double scale;

			ret = tally__ev_apply_terms(p, tc, terms, (size_t)n2, col, depth + 1);
			if (ret) {
				/* point at the alias, say what inside it failed */
				if (p->err) {
					char inner[sizeof(p->err->msg)];

					snprintf(inner, sizeof(inner), "%s", p->err->msg);
					p->err->column = (int)col;
					tally__ev_set_token(p->err, t, n);
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
	ret = tally__ev_err(p, EINVAL, col, t, klen, "unknown term '%s' for PMU '%s'", key, tc->pmu);
	term_hint(p, tc->pmu, key);
	return ret;
}

int tally__ev_apply_terms(struct parser *p, struct term_ctx *tc, const char *s, size_t n,
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
			return tally__ev_err(p, EINVAL, col + i - 1, ",", 1, "empty term");
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
	ret = tally__ev_apply_terms(p, &tc, s + slash + 1, close - slash - 1, col + slash + 1, 0);
	if (ret)
		return ret;
	/* perf names it as typed ("msr/tsc/u"), unless name= says */
	if (tc.has_name)
		ev = tally__ev_add(p, &attr, tc.name, strlen(tc.name), pmu, col);
	else
		ev = tally__ev_add(p, &attr, s, n, pmu, col);
	if (!ev)
		return -errno;
	finish_terms(&tc, &ev->attr, &ev->flags);
	ev->scale = tc.scale;
	if (tc.has_unit && !(ev->unit = strdup(tc.unit)))
		return tally__ev_nomem(p, col);
	if (tally__pmu_cpumask(p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
	    !(ev->cpus = strdup(cpus)))
		return tally__ev_nomem(p, col);
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
int tally__ev_parse_pmu(struct parser *p, const char *s, size_t n, size_t col, size_t slash)
{
	char pmu[128];
	size_t close, first = p->evs.nr, mstart;
	int type, ret;

	if (slash >= sizeof(pmu))
		return tally__ev_err(p, ENOENT, col, s, slash, "PMU name too long");
	memcpy(pmu, s, slash);
	pmu[slash] = '\0';
	close = slash + 1 + span(s + slash + 1, n - slash - 1, '/');
	if (close >= n)
		return tally__ev_err(p, EINVAL, col + slash, s, n,
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
				ret = tally__ev_err(p, ENOENT, col, s, slash,
					   "unknown PMU '%s': this machine has no hardware PMU "
					   "(a VM without PMU passthrough?)", pmu);
			else
				ret = tally__ev_err(p, ENOENT, col, s, slash, "unknown PMU '%s'", pmu);
			tally__best_init(&b, pmu);
			tally__pmu_foreach(p->sysfs, tally__best_name_cb, &b);
			if (b.name[0]) {
				snprintf(hint, sizeof(hint), "%s", b.name);
				tally__ev_set_hint(p, hint);
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
		return tally__ev_apply_mods(p, first, s + mstart, n - mstart, col + mstart, false);
	return 0;
}

/*
 * The terms s[open+1..close) of an event already added (events first..),
 * applied to each of them, then name=, call-graph= and stack-size=.
 */
int tally__ev_apply_event_terms(struct parser *p, size_t first, int where, const char *s,
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
		ret = tally__ev_apply_terms(p, &tc, s + open + 1, close - open - 1, col + open + 1, 0);
		if (ret)
			return ret;
		if (hw && pmu_bits)
			ev->attr.config = (ev->attr.config & 0xffffffffull) | pmu_bits;
		finish_terms(&tc, &ev->attr, &ev->flags);
		if (tc.has_name && tally__ev_set_str(&ev->name, tc.name, strlen(tc.name)))
			return tally__ev_nomem(p, col);
	}
	return 0;
}

/* The closing '/' of a term list opened at s[open], or an error. */
int tally__ev_term_list_end(struct parser *p, const char *s, size_t n, size_t col, size_t open,
			    size_t *close)
{
	*close = open + 1 + span(s + open + 1, n - open - 1, '/');
	if (*close >= n)
		return tally__ev_err(p, EINVAL, col + open, s, n,
			    "unterminated term list: missing the closing '/'");
	return 0;
}
