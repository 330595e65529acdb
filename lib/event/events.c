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
 *
 * Here: names (symbolic, cache, raw, sysfs alias, libpfm4), one event,
 * the list and its groups, and error messages. The parser's parts:
 * events_parse.h.
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
	ret = tally__ev_apply_terms(p, &tc, terms, (size_t)n, af->col, 1);
	if (ret) {
		af->err = ret;
		return 1;
	}
	ev = tally__ev_add(p, &attr, af->typed, af->typed_len, pmu, af->col);
	if (!ev) {
		af->err = -errno;
		return 1;
	}
	tally__pmu_alias_scale_unit(p->sysfs, pmu, af->name, &scale, unit, sizeof(unit));
	ev->scale = scale;
	if ((unit[0] && !(ev->unit = strdup(unit))) ||
	    (tally__pmu_cpumask(p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
	     !(ev->cpus = strdup(cpus)))) {
		af->err = tally__ev_nomem(p, af->col);
		return 1;
	}
	return 0;
}

/*
 * Hybrid machines: a hardware or cache event counts on each core type's
 * PMU, named in the attr's upper config bits (PERF_PMU_TYPE_SHIFT: Linux
 * 5.13 for Intel's cpu_core/cpu_atom, 6.4 for arm64's PMUs); one event per
 * PMU, named "cpu_core/cycles/" as perf 6.1 does, "armv8_pmuv3_0/cycles/"
 * as perf 6.5 and later do for every core PMU (perf 6.1 expands cpu_*
 * only), each on its PMU's cpus.
 * 0 when added, 1 when the machine is not hybrid, -errno.
 */
static void list_core(struct parser *p)
{
	if (p->core_listed)
		return;
	p->core_listed = true;
	/* Every hardware event asks: read sysfs once per parse, not per event. */
	p->ncore = tally__pmu_core_list(p->sysfs, p->core_pmu, p->core_type,
					TALLY_MAX_CORE_PMUS);
}

static int add_hybrid(struct parser *p, const struct perf_event_attr *attr, const char *s,
		      size_t hn, size_t n, size_t col)
{
	list_core(p);
	if (p->ncore < 2)
		return 1;	/* one core type: the generic event */
	for (int i = 0; i < p->ncore; i++) {
		const char *pmu = p->core_pmu[i];
		struct perf_event_attr a = *attr;
		struct tally_event *ev;
		char name[300], cpus[1024];

		a.config |= (uint64_t)p->core_type[i] << 32;
		snprintf(name, sizeof(name), "%s/%.*s/%.*s", pmu, (int)hn, s,
			 (int)(n > hn + 1 ? n - hn - 1 : 0), s + hn + 1);
		ev = tally__ev_add(p, &a, name, strlen(name), pmu, col);
		if (!ev)
			return -errno;
		if (tally__pmu_cpumask(p->sysfs, pmu, cpus, sizeof(cpus)) > 0 &&
		    !(ev->cpus = strdup(cpus)))
			return tally__ev_nomem(p, col);
	}
	return 0;
}

static int hybrid_index(const struct parser *p, const char *pmu)
{
	for (int i = 0; pmu && i < p->ncore; i++)
		if (!strcmp(pmu, p->core_pmu[i]))
			return i;
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
	bool has[TALLY_MAX_CORE_PMUS] = { false };
	int nkinds = 0, group = p->evs.ev[first].group;

	for (size_t i = first; i < p->evs.nr; i++) {
		int h = hybrid_index(p, p->evs.ev[i].pmu);

		if (h >= 0 && !has[h]) {
			has[h] = true;
			nkinds++;
		}
	}
	if (nkinds < 2)
		return 0;
	tmp = tally__calloc(nr, sizeof(*tmp));
	if (!tmp)
		return tally__ev_nomem(p, 0);
	for (size_t h = 0; h < TALLY_MAX_CORE_PMUS; h++) {
		size_t start = k;

		if (!has[h])
			continue;
		for (size_t i = first; i < p->evs.nr; i++) {
			int hi = hybrid_index(p, p->evs.ev[i].pmu);

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
		return tally__ev_add(p, &attr, s, n, tally__ev_pmu_of_type(se->type), col) ? 0 : -errno;
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
		ev = tally__ev_add(p, &attr, s, n, "tool", col);
		if (!ev)
			return -errno;
		ev->flags |= te->flag;
		if (tally__ev_set_str(&ev->unit, "ns", 2))
			return tally__ev_nomem(p, col);
		return 0;
	}
	ret = tally__cache_parse(s, hn, &config);
	if (ret == -EINVAL)
		return tally__ev_err(p, EINVAL, col, s, hn,
			    "'%.*s' is not a valid cache event: that cache has no such operation",
			    (int)(hn > 64 ? 64 : hn), s);
	if (ret == 0) {
		attr.type = PERF_TYPE_HW_CACHE;
		attr.config = config;
		if ((ret = add_hybrid(p, &attr, s, hn, n, col)) <= 0)
			return ret;
		return tally__ev_add(p, &attr, s, hn, "cpu", col) ? 0 : -errno;
	}
	if (is_raw(s, hn, &config)) {
		attr.type = PERF_TYPE_RAW;
		attr.config = config;
		return tally__ev_add(p, &attr, s, n, "cpu", col) ? 0 : -errno;
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
			return tally__ev_add(p, &attr, s, n, tally__ev_pmu_of_type(enc.type), col) ?
			       0 : -errno;
		}
	}
	return 1;
}

static int unknown_event(struct parser *p, const char *s, size_t n, size_t col)
{
	char name[128], hint[128];
	int ret;

	ret = tally__ev_err(p, ENOENT, col, s, n, "unknown event '%.*s'", (int)(n > 64 ? 64 : n), s);
	if (n < sizeof(name) && !memchr(s, '\0', n)) {
		memcpy(name, s, n);
		name[n] = '\0';
		if (tally__ev_suggest(name, hint, sizeof(hint), p->sysfs, p->tracefs))
			tally__ev_set_hint(p, hint);
	}
	return ret;
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

	ret = tally__ev_term_list_end(p, s, n, col, slash, &close);
	if (ret)
		return ret;
	if (tool && close > slash + 1)
		return tally__ev_err(p, EINVAL, col + slash + 1, s + slash + 1, close - slash - 1,
			    "'%.*s' is a tool event: it takes no terms", (int)slash, s);
	m = close + 1;
	if (m < n && s[m] == ':') {
		if (!colon_ok)
			return tally__ev_err(p, EINVAL, col + m, s + m, n - m,
				    "no ':' after the term list of '%.*s': modifiers follow the '/' (as in perf)",
				    (int)(slash > 64 ? 64 : slash), s);
		m++;
	}
	ret = parse_named(p, s, slash, n, col);
	if (ret)
		return ret < 0 ? ret : unknown_event(p, s, slash, col);
	ret = tally__ev_apply_event_terms(p, first, TERMS_SYM, s, slash, close, col);
	if (ret)
		return ret;
	return tally__ev_apply_mods(p, first, s + m, n - m, col + m, false);
}

/* perf's "TYPE:CONFIG[/terms/][:mods]": a raw attr type and config, in C numbers. */
static int parse_numeric(struct parser *p, const char *s, size_t n, size_t col)
{
	struct perf_event_attr attr;
	size_t tl = span(s, n, ':'), cl, i, first = p->evs.nr;
	uint64_t type, config;
	int ret;

	if (tl >= n || !parse_u64(s, tl, &type) || type > UINT32_MAX)
		return tally__ev_err(p, EINVAL, col, s, tl, "bad event type: TYPE:CONFIG takes two numbers");
	i = tl + 1;
	cl = 0;
	while (i + cl < n && s[i + cl] != ':' && s[i + cl] != '/')
		cl++;
	if (!parse_u64(s + i, cl, &config))
		return tally__ev_err(p, EINVAL, col + i, s + i, cl,
			    "bad event config: TYPE:CONFIG takes two numbers");
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)type;
	attr.config = config;
	if (!tally__ev_add(p, &attr, s, n, tally__ev_pmu_of_type(attr.type), col))
		return -errno;
	i += cl;
	if (i < n && s[i] == '/') {
		size_t close;

		ret = tally__ev_term_list_end(p, s, n, col, i, &close);
		if (!ret)
			ret = tally__ev_apply_event_terms(p, first, TERMS_SYM, s, i, close, col);
		if (ret)
			return ret;
		i = close + 1;
	}
	if (i < n && s[i] == ':')
		i++;
	else if (i < n)
		return tally__ev_err(p, EINVAL, col + i, s + i, n - i, "unexpected text after '%.*s'",
			    (int)i, s);
	return tally__ev_apply_mods(p, first, s + i, n - i, col + i, false);
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
		return tally__ev_err(p, EINVAL, col, "", 0, "empty event");
	if (n >= 4 && !memcmp(s, "mem:", 4))
		return tally__ev_parse_breakpoint(p, s, n, col);
	if (n >= 7 && !memcmp(s, "uprobe:", 7))
		return tally__ev_parse_uprobe(p, s, n, col, false);
	if (n >= 10 && !memcmp(s, "uretprobe:", 10))
		return tally__ev_parse_uprobe(p, s, n, col, true);

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
				return tally__ev_err(p, EINVAL, col + i, s, slash, "bad PMU name");
		if (slash == 0)
			return tally__ev_err(p, EINVAL, col, s, n, "missing PMU name before '/'");
		return tally__ev_parse_pmu(p, s, n, col, slash);
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
		return tally__ev_add(p, &attr, s, n, tally__ev_pmu_of_type(enc.type), col) ? 0 : -errno;
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
					return tally__ev_parse_tracepoint(p, s, n, col, colon, en);
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
		return tally__ev_apply_mods(p, first, s + colon + 1, n - colon - 1, col + colon + 1, false);
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
			return tally__ev_err(p, EINVAL, end, "{", 1, "groups cannot nest");
		if (end >= n)
			return tally__ev_err(p, EINVAL, open, s + open, n - open,
				    "unterminated group: missing '}'");
		if (a == b)
			return tally__ev_err(p, EINVAL, a, s + open, end + 1 - open,
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
		ret = tally__ev_apply_mods(p, first, s + m, me - m, m, true);
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
				return tally__ev_err(p, EINVAL, i, s + i, end < n ? 1 : 0, "empty event");
			ret = parse_event(p, s + a, b - a, a);
			if (ret)
				return ret;
			i = end;
		}
		if (i >= n)
			return 0;
		if (s[i] != ',')
			return tally__ev_err(p, EINVAL, i, s + i, 1, "unexpected '%c'", s[i]);
		i++;
		if (i >= n)
			return tally__ev_err(p, EINVAL, i - 1, ",", 1, "empty event after ','");
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
		return tally__ev_err(&p, ENOMEM, 0, "", 0, "out of memory");
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
