// SPDX-License-Identifier: MIT
/*
 * The event language: every syntax against its expected attr, with the
 * fake sysfs and tracefs trees of tests/data (see tests/data/README.md),
 * plus the real tracefs and the uprobe PMU where this machine has them.
 * Expected values come from perf's tables and from perf 6.1's own
 * `perf stat -vv` output for the same specs, not from this parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/hw_breakpoint.h>
#include <tally/events.h>
#include "internal.h"
#include "events_internal.h"

#define SYSFS	"tests/data/sysfs"
#define TRACEFS	"tests/data/tracefs"

static struct tally_parse_opts fake = {
	.sz = sizeof(struct tally_parse_opts),
	.sysfs_root = SYSFS,
	.tracefs_root = TRACEFS,
	.no_pfm = true,
};

static struct tally_events parse_ok_opts(const char *spec, const struct tally_parse_opts *o)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error err;
	int ret = tally_parse_events(spec, o, &evs, &err);

	if (ret)
		print_error("'%s': %d col %d tok '%s': %s\n", spec, ret, err.column,
			    err.token, err.msg);
	assert_int_equal(ret, 0);
	assert_true(evs.nr > 0);
	return evs;
}

static struct tally_events parse_ok(const char *spec)
{
	return parse_ok_opts(spec, &fake);
}

/* One event: returns it in *out (copied), frees the list. */
static struct tally_event one(const char *spec, char *name, size_t name_len)
{
	struct tally_events evs = parse_ok(spec);
	struct tally_event ev;

	assert_int_equal(evs.nr, 1);
	ev = evs.ev[0];
	snprintf(name, name_len, "%s", ev.name);
	ev.name = NULL;
	ev.pmu = NULL;
	ev.cpus = NULL;
	ev.unit = NULL;
	tally_events__clear(&evs);
	return ev;
}

static struct tally_parse_error parse_fail_opts(const char *spec,
						const struct tally_parse_opts *o,
						int want_err, int col, const char *tok)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error err;
	int ret = tally_parse_events(spec, o, &evs, &err);

	if (ret != want_err || err.column != col || (tok && strcmp(err.token, tok)))
		print_error("'%s': got %d col %d tok '%s' msg '%s'; want %d col %d tok '%s'\n",
			    spec, ret, err.column, err.token, err.msg, want_err, col,
			    tok ? tok : "(any)");
	assert_int_equal(ret, want_err);
	assert_int_equal(errno, -want_err);
	assert_int_equal(err.err, want_err);
	assert_int_equal(err.column, col);
	if (tok)
		assert_string_equal(err.token, tok);
	assert_true(err.msg[0] != '\0');
	assert_int_equal(evs.nr, 0);
	assert_null(evs.ev);
	return err;
}

static struct tally_parse_error parse_fail(const char *spec, int want_err, int col,
					   const char *tok)
{
	return parse_fail_opts(spec, &fake, want_err, col, tok);
}

/* ---- symbolic ---- */

static void test_symbolic(void **state)
{
	static const struct { const char *name; uint32_t type; uint64_t config; } t[] = {
		{ "cycles", 0, 0 }, { "cpu-cycles", 0, 0 }, { "instructions", 0, 1 },
		{ "cache-references", 0, 2 }, { "cache-misses", 0, 3 },
		{ "branches", 0, 4 }, { "branch-instructions", 0, 4 },
		{ "branch-misses", 0, 5 }, { "bus-cycles", 0, 6 },
		{ "stalled-cycles-frontend", 0, 7 }, { "idle-cycles-frontend", 0, 7 },
		{ "stalled-cycles-backend", 0, 8 }, { "idle-cycles-backend", 0, 8 },
		{ "ref-cycles", 0, 9 },
		{ "cpu-clock", 1, 0 }, { "task-clock", 1, 1 }, { "page-faults", 1, 2 },
		{ "faults", 1, 2 }, { "context-switches", 1, 3 }, { "cs", 1, 3 },
		{ "cpu-migrations", 1, 4 }, { "migrations", 1, 4 },
		{ "minor-faults", 1, 5 }, { "major-faults", 1, 6 },
		{ "alignment-faults", 1, 7 }, { "emulation-faults", 1, 8 },
		{ "dummy", 1, 9 }, { "bpf-output", 1, 10 }, { "cgroup-switches", 1, 11 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct tally_events evs = parse_ok(t[i].name);
		struct tally_event *e = &evs.ev[0];

		assert_int_equal(evs.nr, 1);
		assert_int_equal(e->attr.type, t[i].type);
		assert_int_equal(e->attr.config, t[i].config);
		assert_int_equal(e->attr.size, sizeof(e->attr));
		assert_string_equal(e->name, t[i].name);
		assert_string_equal(e->pmu, t[i].type ? "software" : "cpu");
		assert_int_equal(e->group, -1);
		assert_false(e->leader);
		/* perf's event_attr_init default */
		assert_int_equal(e->attr.exclude_guest, 1);
		assert_int_equal(e->attr.exclude_user | e->attr.exclude_kernel, 0);
		assert_null(e->cpus);
		assert_true(e->scale == 1.0);
		tally_events__clear(&evs);
	}
}

/* ---- perf's tool events ---- */

/*
 * perf 6.1 (add_event_tool): duration_time, user_time, system_time are a
 * software dummy with unit "ns", named as typed with their modifiers
 * (`perf stat -e duration_time:u -x, true` shows "duration_time:u"),
 * and stay in their group ({duration_time,task-clock}: perf makes
 * duration_time the leader).
 */
static void test_tool_events(void **state)
{
	static const struct { const char *spec, *name; unsigned int flags; int ek, precise; } t[] = {
		{ "duration_time", "duration_time", TALLY_EV_TOOL_DURATION, 0, 0 },
		{ "user_time", "user_time", TALLY_EV_TOOL_USER, 0, 0 },
		{ "system_time", "system_time", TALLY_EV_TOOL_SYSTEM, 0, 0 },
		{ "duration_time:u", "duration_time:u", TALLY_EV_TOOL_DURATION, 1, 0 },
		{ "user_time:k", "user_time:k", TALLY_EV_TOOL_USER, 0, 0 },
		{ "duration_time:ppp", "duration_time:ppp", TALLY_EV_TOOL_DURATION, 0, 3 },
		{ "system_time:uW", "system_time:uW",
		  TALLY_EV_TOOL_SYSTEM | TALLY_EV_WEAK_GROUP, 1, 0 },
	};
	struct tally_parse_opts no_tracefs = fake;
	struct tally_events evs;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct tally_event *e;

		evs = parse_ok(t[i].spec);
		assert_int_equal(evs.nr, 1);
		e = &evs.ev[0];
		assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(e->attr.config, PERF_COUNT_SW_DUMMY);
		assert_int_equal(e->attr.size, sizeof(e->attr));
		assert_string_equal(e->name, t[i].name);
		assert_string_equal(e->pmu, "tool");
		assert_non_null(e->unit);
		assert_string_equal(e->unit, "ns");
		assert_true(e->scale == 1.0);
		assert_int_equal(e->flags, t[i].flags);
		assert_int_equal(e->flags & TALLY_EV_TOOL, t[i].flags & TALLY_EV_TOOL);
		assert_int_equal(e->attr.exclude_kernel, t[i].ek);
		assert_int_equal(e->attr.precise_ip, t[i].precise);
		if (!strchr(t[i].spec, ':'))	/* modifiers decide it (test_modifiers) */
			assert_int_equal(e->attr.exclude_guest, 1);
		assert_null(e->cpus);
		assert_int_equal(e->group, -1);
		tally_events__clear(&evs);
	}

	/* in a list and in groups, as perf: the tool event keeps its place */
	evs = parse_ok("cs,user_time:u,duration_time");
	assert_int_equal(evs.nr, 3);
	assert_int_equal(evs.ev[0].flags & TALLY_EV_TOOL, 0);
	assert_null(evs.ev[0].unit);
	assert_int_equal(evs.ev[1].flags, TALLY_EV_TOOL_USER);
	assert_int_equal(evs.ev[2].flags, TALLY_EV_TOOL_DURATION);
	tally_events__clear(&evs);

	evs = parse_ok("{duration_time,task-clock}:u");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].group, 0);
	assert_int_equal(evs.ev[1].group, 0);
	assert_true(evs.ev[0].leader);
	assert_false(evs.ev[1].leader);
	assert_string_equal(evs.ev[0].name, "duration_time");
	assert_int_equal(evs.ev[0].flags, TALLY_EV_TOOL_DURATION);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	assert_int_equal(evs.ev[1].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evs.ev[1].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	tally_events__clear(&evs);

	evs = parse_ok("{task-clock,system_time,cs}");
	assert_int_equal(evs.nr, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(evs.ev[i].group, 0);
		assert_int_equal(evs.ev[i].leader, i == 0);
	}
	assert_int_equal(evs.ev[1].flags, TALLY_EV_TOOL_SYSTEM);
	tally_events__clear(&evs);

	/* "name:mods" is never read as a tracepoint, even without tracefs */
	no_tracefs.tracefs_root = "tests/data/no-such-tracefs";
	evs = parse_ok_opts("duration_time:u", &no_tracefs);
	assert_int_equal(evs.ev[0].flags, TALLY_EV_TOOL_DURATION);
	assert_string_equal(evs.ev[0].pmu, "tool");
	tally_events__clear(&evs);

	/* what perf refuses: other case, a PMU-term form, a "tool" PMU */
	parse_fail("DURATION_TIME", -ENOENT, 0, "DURATION_TIME");
	/* perf 6.1: a tool event takes "//" or ':' but no terms */
	parse_fail("duration_time/x/", -EINVAL, 14, "x");
	parse_fail("tool/duration_time/", -ENOENT, 0, "tool");
	parse_fail("duration_time:x", -EINVAL, 14, "x");
	/* a typo is suggested */
	{
		struct tally_parse_error err = parse_fail("cs,user_tme", -ENOENT, 3, "user_tme");

		assert_string_equal(err.hint, "user_time");
	}
}

/* ---- hardware cache ---- */

static void test_cache(void **state)
{
	static const struct { const char *name; uint64_t config; } ok[] = {
		{ "L1-dcache-load-misses", 0x10000 }, { "L1-dcache-loads", 0x0 },
		{ "L1-dcache-stores", 0x100 }, { "L1-dcache-prefetch-misses", 0x10200 },
		{ "l1d-load-miss", 0x10000 }, { "L1-data-read-access", 0x0 },
		{ "L1-dcache", 0x0 }, { "L1-dcache-misses-loads", 0x10000 },
		{ "L1-icache-load-misses", 0x10001 }, { "l1i-prefetches", 0x201 },
		{ "LLC-loads", 0x2 }, { "LLC-store-misses", 0x10102 }, { "L2-loads", 0x2 },
		{ "LLC-misses", 0x10002 }, { "LLC-speculative-read-misses", 0x10202 },
		{ "dTLB-store-misses", 0x10103 }, { "d-tlb-loads", 0x3 },
		{ "Data-TLB-prefetch-Reference", 0x203 },
		{ "iTLB-load-misses", 0x10004 }, { "branch-loads", 0x5 },
		{ "branch-load-misses", 0x10005 }, { "bpu-loads", 0x5 }, { "btb-read", 0x5 },
		{ "node-loads", 0x6 }, { "node-prefetches", 0x206 },
		{ "node-store-misses", 0x10106 },
	};
	static const char *const invalid[] = {
		"L1-icache-stores", "iTLB-stores", "iTLB-prefetches", "branch-prefetches",
		"bpu-store-misses", "L1-icache-store-misses",
	};
	static const char *const unknown[] = {
		"L1-dcache-bogus", "L1d-load-miss", "LLC-loads-stores", "LLC-",
		"LLC-misses-misses", "dTLBs",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct tally_events evs = parse_ok(ok[i].name);

		assert_int_equal(evs.nr, 1);
		assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_HW_CACHE);
		if (evs.ev[0].attr.config != ok[i].config)
			print_error("%s: %#llx\n", ok[i].name,
				    (unsigned long long)evs.ev[0].attr.config);
		assert_int_equal(evs.ev[0].attr.config, ok[i].config);
		assert_string_equal(evs.ev[0].name, ok[i].name);
		tally_events__clear(&evs);
	}
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct tally_parse_error e = parse_fail(invalid[i], -EINVAL, 0, invalid[i]);

		assert_non_null(strstr(e.msg, "not a valid cache event"));
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		parse_fail(unknown[i], -ENOENT, 0, unknown[i]);
	/* with modifiers, perf 6.1 names a cache event without them */
	{
		struct tally_events evs = parse_ok("L1-dcache-loads:u");

		assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
		assert_string_equal(evs.ev[0].name, "L1-dcache-loads");
		tally_events__clear(&evs);
	}
}

static int cache_roundtrip_cb(const char *name, uint64_t config, void *ctx)
{
	uint64_t c = ~0ull;
	int *n = ctx;

	assert_int_equal(tally__cache_parse(name, strlen(name), &c), 0);
	assert_int_equal(c, config);
	(*n)++;
	return 0;
}

/* perf list's cache names, which are exactly the validity table's cells. */
static void test_cache_list(void **state)
{
	int n = 0;

	assert_int_equal(tally__cache_foreach(cache_roundtrip_cb, &n), 0);
	/* L1D 3 ops, L1I 2, LL 3, DTLB 3, ITLB 1, BPU 1, NODE 3: x2 results */
	assert_int_equal(n, 32);
}

/* ---- raw ---- */

static void test_raw(void **state)
{
	char name[64];
	struct tally_event e;

	e = one("r1a8", name, sizeof(name));
	assert_int_equal(e.attr.type, PERF_TYPE_RAW);
	assert_int_equal(e.attr.config, 0x1a8);
	assert_string_equal(name, "r1a8");
	e = one("rFFFFffffFFFFffff:u", name, sizeof(name));
	assert_int_equal(e.attr.config, ~0ull);
	assert_int_equal(e.attr.exclude_kernel, 1);
	assert_string_equal(name, "rFFFFffffFFFFffff:u");
	e = one("r0", name, sizeof(name));
	assert_int_equal(e.attr.config, 0);
	parse_fail("r", -ENOENT, 0, "r");
	parse_fail("r1g", -ENOENT, 0, "r1g");
	parse_fail("r11112222333344445", -ENOENT, 0, "r11112222333344445");
}

/* ---- modifiers ---- */

static void test_modifiers(void **state)
{
	char name_buf[64];
	static const struct {
		const char *spec;
		int eu, ek, eh, eG, eH, precise, idle, pinned;
		unsigned int flags;
	} t[] = {
		{ "cs",     0, 0, 0, 1, 0, 0, 0, 0, 0 },
		{ "cs:u",   0, 1, 1, 1, 0, 0, 0, 0, 0 },
		{ "cs:k",   1, 0, 1, 0, 0, 0, 0, 0, 0 },
		{ "cs:h",   1, 1, 0, 0, 0, 0, 0, 0, 0 },
		{ "cs:uk",  0, 0, 1, 1, 0, 0, 0, 0, 0 },
		{ "cs:ku",  0, 0, 1, 1, 0, 0, 0, 0, 0 },
		{ "cs:ukh", 0, 0, 0, 1, 0, 0, 0, 0, 0 },
		{ "cs:G",   0, 0, 0, 0, 1, 0, 0, 0, 0 },
		{ "cs:H",   0, 0, 0, 1, 0, 0, 0, 0, 0 },
		{ "cs:GH",  0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ "cs:uG",  0, 1, 1, 0, 1, 0, 0, 0, 0 },
		{ "cs:I",   0, 0, 0, 0, 0, 0, 1, 0, 0 },
		{ "cs:p",   0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ "cs:pp",  0, 0, 0, 0, 0, 2, 0, 0, 0 },
		{ "cs:ppp", 0, 0, 0, 0, 0, 3, 0, 0, 0 },
		{ "cs:upp", 0, 1, 1, 1, 0, 2, 0, 0, 0 },
		{ "cs:P",   0, 0, 0, 0, 0, 0, 0, 0, TALLY_EV_MAX_PRECISE },
		{ "cs:S",   0, 0, 0, 0, 0, 0, 0, 0, TALLY_EV_SAMPLE_READ },
		{ "cs:D",   0, 0, 0, 0, 0, 0, 0, 1, TALLY_EV_PINNED },
		{ "cs:W",   0, 0, 0, 0, 0, 0, 0, 0, TALLY_EV_WEAK_GROUP },
		{ "cs:uSW", 0, 1, 1, 1, 0, 0, 0, 0, TALLY_EV_SAMPLE_READ | TALLY_EV_WEAK_GROUP },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[64];
		struct tally_event e = one(t[i].spec, name, sizeof(name));

		if (e.attr.exclude_user != t[i].eu || e.attr.exclude_kernel != t[i].ek ||
		    e.attr.exclude_hv != t[i].eh || e.attr.exclude_guest != t[i].eG ||
		    e.attr.exclude_host != t[i].eH)
			print_error("%s: u%d k%d h%d G%d H%d\n", t[i].spec,
				    e.attr.exclude_user, e.attr.exclude_kernel,
				    e.attr.exclude_hv, e.attr.exclude_guest, e.attr.exclude_host);
		assert_int_equal(e.attr.exclude_user, t[i].eu);
		assert_int_equal(e.attr.exclude_kernel, t[i].ek);
		assert_int_equal(e.attr.exclude_hv, t[i].eh);
		assert_int_equal(e.attr.exclude_guest, t[i].eG);
		assert_int_equal(e.attr.exclude_host, t[i].eH);
		assert_int_equal(e.attr.precise_ip, t[i].precise);
		assert_int_equal(e.attr.exclude_idle, t[i].idle);
		assert_int_equal(e.attr.pinned, t[i].pinned);
		assert_int_equal(e.flags, t[i].flags);
		/* perf names the event as typed, modifiers included */
		assert_string_equal(name, t[i].spec);
	}
	parse_fail("cs:pppp", -EINVAL, 3, "pppp");
	parse_fail("cycles:x", -EINVAL, 7, "x");
	parse_fail("cs:uX", -EINVAL, 4, "uX");
	/* perf 6.1 takes an empty list and names the event as typed */
	{
		struct tally_event e = one("cs:", name_buf, sizeof(name_buf));

		assert_string_equal(name_buf, "cs:");
		assert_int_equal(e.attr.exclude_user, 0);
		assert_int_equal(e.attr.exclude_kernel, 0);
		e = one("cs:e", name_buf, sizeof(name_buf));
		assert_int_equal(e.attr.exclusive, 1);
		/* perf's b (BPF counters): taken, counted the ordinary way */
		e = one("cs:bu", name_buf, sizeof(name_buf));
		assert_string_equal(name_buf, "cs:bu");
		assert_int_equal(e.attr.exclude_kernel, 1);
		parse_fail("cs:bb", -EINVAL, 4, "bb");
	}
	/* perf's check_modifier: no letter twice but p (up to 3) */
	parse_fail("cs:uu", -EINVAL, 4, "uu");
	parse_fail("cs:ukuk", -EINVAL, 5, "ukuk");
	parse_fail("cs:Duu", -EINVAL, 5, "Duu");
	assert_int_equal(one("cs:pup", name_buf, sizeof(name_buf)).attr.precise_ip, 2);
	parse_fail("{cs}:uu", -EINVAL, 6, "uu");
	parse_fail("{cs}:", -EINVAL, 5, "");
}

/* ---- perf 6.1's terms after symbolic, cache, raw and TYPE:CONFIG events ---- */

static void test_symbolic_terms(void **state)
{
	static const struct {
		const char *spec, *name;
		uint32_t type;
		uint64_t config, period, freq;
		int ek;
	} t[] = {
		/* names and attrs as perf 6.1's perf stat -vv shows them */
		{ "task-clock/period=1000/", "task-clock/period=1000/", 1, 1, 1000, 0, 0 },
		{ "task-clock/period=1000,name=foo/u", "foo", 1, 1, 1000, 0, 1 },
		{ "cpu-clock/name=bar/", "bar", 1, 0, 0, 0, 0 },
		{ "task-clock/period=0x10/", "task-clock/period=0x10/", 1, 1, 16, 0, 0 },
		{ "task-clock/period/", "task-clock/period/", 1, 1, 1, 0, 0 },
		{ "task-clock/freq=100/", "task-clock/freq=100/", 1, 1, 0, 100, 0 },
		{ "task-clock/config=2/", "task-clock/config=2/", 1, 2, 0, 0, 0 },
		{ "task-clock/name=foo,name=bar/", "foo", 1, 1, 0, 0, 0 },
		{ "task-clock/metric-id=x/", "task-clock/metric-id=x/", 1, 1, 0, 0, 0 },
		{ "task-clock//", "task-clock//", 1, 1, 0, 0, 0 },
		{ "task-clock//u", "task-clock//u", 1, 1, 0, 0, 1 },
		{ "cs/period=1/", "cs/period=1/", 1, 3, 1, 0, 0 },
		/* perf's numbers: 0x.. hex, else decimal (010 is ten) */
		{ "task-clock/period=010/", "task-clock/period=010/", 1, 1, 10, 0, 0 },
		/* perf's quoted name_tag: quotes dropped, ',' ':' '=' kept */
		{ "task-clock/name='x,y'/", "x,y", 1, 1, 0, 0, 0 },
		{ "task-clock/name='a:b=c',period=2/u", "a:b=c", 1, 1, 2, 0, 1 },
		{ "cycles/period=7/k", "cycles/period=7/k", 0, 0, 7, 0, 0 },
		/* cache events: named without terms or modifiers; ':' allowed */
		{ "L1-dcache-loads/period=1/", "L1-dcache-loads", 3, 0, 1, 0, 0 },
		{ "L1-dcache-loads/period=1/:u", "L1-dcache-loads", 3, 0, 1, 0, 1 },
		{ "L1-dcache-loads/period=1/u", "L1-dcache-loads", 3, 0, 1, 0, 1 },
		{ "L1-dcache-loads//", "L1-dcache-loads", 3, 0, 0, 0, 0 },
		{ "r1a8/period=1/", "r1a8/period=1/", 4, 0x1a8, 1, 0, 0 },
		{ "r1a8/name=raw/:u", "raw", 4, 0x1a8, 0, 0, 1 },
		/* perf's raw config term, rHEX or r0xHEX */
		{ "task-clock/r2/", "task-clock/r2/", 1, 2, 0, 0, 0 },
		{ "task-clock/r0x3,period=4/", "task-clock/r0x3,period=4/", 1, 3, 4, 0, 0 },
		/* perf's TYPE:CONFIG */
		{ "1:1", "1:1", 1, 1, 0, 0, 0 },
		{ "1:1/name=z/", "z", 1, 1, 0, 0, 0 },
		{ "0x1:0x3:u", "0x1:0x3:u", 1, 3, 0, 0, 1 },
		{ "1:2/period=5/:u", "1:2/period=5/:u", 1, 2, 5, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[64];
		struct tally_event e = one(t[i].spec, name, sizeof(name));

		if (strcmp(name, t[i].name))
			print_error("%s: named '%s'\n", t[i].spec, name);
		assert_string_equal(name, t[i].name);
		assert_int_equal(e.attr.type, t[i].type);
		assert_int_equal(e.attr.config, t[i].config);
		if (t[i].freq) {
			assert_int_equal(e.attr.freq, 1);
			assert_int_equal(e.attr.sample_freq, t[i].freq);
		} else {
			assert_int_equal(e.attr.freq, 0);
			assert_int_equal(e.attr.sample_period, t[i].period);
		}
		assert_int_equal(e.attr.exclude_kernel, t[i].ek);
		assert_int_equal(e.attr.sample_type, 0);
	}
	/* a tool event takes "//" and modifiers */
	{
		char name[64];
		struct tally_event e = one("duration_time//", name, sizeof(name));

		assert_string_equal(name, "duration_time//");
		assert_int_equal(e.flags, TALLY_EV_TOOL_DURATION);
	}

	/* errors name the term (or the text) at its column */
	{
		struct tally_parse_error err = parse_fail("task-clock/foo=1/", -EINVAL, 11, "foo");

		assert_non_null(strstr(err.msg, "unknown term 'foo'"));
		assert_non_null(strstr(err.msg, "valid terms: config,config1,config2,config3,name,"
					       "period,freq,call-graph,stack-size,inherit,"
					       "no-inherit,metric-id"));
		err = parse_fail("task-clock/period=1,bogus/", -EINVAL, 20, "bogus");
		assert_non_null(strstr(err.msg, "'bogus'"));
		/* perf: "call-graph=dwarf,4096" is two terms; the size is stack-size= */
		err = parse_fail("task-clock/call-graph=dwarf,4096/", -EINVAL, 28, "4096");
		assert_non_null(strstr(err.msg, "stack-size=4096"));
		err = parse_fail("task-clock/time=1/", -EOPNOTSUPP, 11, "time");
		assert_non_null(strstr(err.msg, "'time'"));
		parse_fail("task-clock/percore=1/", -EOPNOTSUPP, 11, "percore");
		parse_fail("task-clock/max-stack=3/", -EOPNOTSUPP, 11, "max-stack");
		parse_fail("task-clock/branch_type=any/", -EOPNOTSUPP, 11, "branch_type");
	}
	parse_fail("task-clock/period=1/:u", -EINVAL, 20, ":u");
	parse_fail("task-clock//:u", -EINVAL, 12, ":u");
	parse_fail("task-clock/period=x/", -EINVAL, 18, "x");
	parse_fail("task-clock/name=1/", -EINVAL, 16, "1");
	parse_fail("task-clock/name=/", -EINVAL, 11, "name=");
	parse_fail("task-clock/period=1", -EINVAL, 10, NULL);
	parse_fail("task-clock/period=1/uu", -EINVAL, 21, "uu");
	parse_fail("L1-dcache-loads/foo/", -EINVAL, 16, "foo");
	parse_fail("r1a8/foo=2/", -EINVAL, 5, "foo");
	parse_fail("duration_time/period=1/", -EINVAL, 14, "period=1");
	parse_fail("1:zz", -EINVAL, 2, "zz");
	parse_fail("1:1:q", -EINVAL, 4, "q");
	parse_fail("1:1/foo/", -EINVAL, 4, "foo");
}

/* call-graph and stack-size, carried in the attr (see events.h) */
static void test_callgraph_terms(void **state)
{
	static const struct {
		const char *spec;
		uint64_t sample_type;
		uint32_t stack;
		unsigned int flags;
	} t[] = {
		{ "page-faults/call-graph=fp/", PERF_SAMPLE_CALLCHAIN, 0, 0 },
		{ "page-faults/call-graph=dwarf/", PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		  PERF_SAMPLE_STACK_USER, 8192, 0 },
		{ "page-faults/call-graph=dwarf,stack-size=4000/", PERF_SAMPLE_CALLCHAIN |
		  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 4000, 0 },
		{ "page-faults/stack-size=4001,call-graph=dwarf/", PERF_SAMPLE_CALLCHAIN |
		  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 4008, 0 },
		{ "page-faults/call-graph=lbr/", PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK, 0, 0 },
		{ "page-faults/call-graph=no/", 0, 0, TALLY_EV_NO_CALLGRAPH },
		{ "page-faults/stack-size=512/", 0, 512, 0 },
		{ "L1-dcache-loads/call-graph=fp/", PERF_SAMPLE_CALLCHAIN, 0, 0 },
		{ "sched:sched_switch/call-graph=fp/", PERF_SAMPLE_CALLCHAIN, 0, 0 },
		{ "sched:sched_switch/call-graph=dwarf,stack-size=1024/u", PERF_SAMPLE_CALLCHAIN |
		  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 1024, 0 },
		{ "sched:sched_switch/stack-size=64/", 0, 64, 0 },
		{ "cpu/event=1,call-graph=dwarf/", PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
		  PERF_SAMPLE_STACK_USER, 8192, 0 },
		{ "cpu/event=1,call-graph=no/", 0, 0, TALLY_EV_NO_CALLGRAPH },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[64];
		struct tally_event e = one(t[i].spec, name, sizeof(name));

		if (e.attr.sample_type != t[i].sample_type)
			print_error("%s: sample_type 0x%llx\n", t[i].spec,
				    (unsigned long long)e.attr.sample_type);
		assert_int_equal(e.attr.sample_type, t[i].sample_type);
		assert_int_equal(e.attr.sample_stack_user, t[i].stack);
		assert_int_equal(e.attr.sample_regs_user, 0);	/* the record config's */
		assert_int_equal(e.attr.branch_sample_type, 0);
		assert_int_equal(e.attr.sample_period, 0);
		assert_int_equal(e.flags & TALLY_EV_NO_CALLGRAPH, t[i].flags);
	}
	parse_fail("task-clock/call-graph=bogus/", -EINVAL, 22, "bogus");
	parse_fail("task-clock/call-graph/", -EINVAL, 11, "call-graph");
	parse_fail("task-clock/stack-size=70000/", -ERANGE, 22, "70000");
	parse_fail("task-clock/stack-size=0/", -ERANGE, 22, "0");
}

/* perf stat's shrunk term set (tally stat asks for it) */
static void test_stat_terms(void **state)
{
	struct tally_parse_opts o = fake;
	struct tally_parse_error err;
	struct tally_events evs;

	o.stat_terms = true;
	evs = parse_ok_opts("task-clock/period=1000,name=foo,metric-id=m,config=1/u", &o);
	assert_string_equal(evs.ev[0].name, "foo");
	tally_events__clear(&evs);
	evs = parse_ok_opts("cpu/event=1,config1=2/", &o);
	tally_events__clear(&evs);

	err = parse_fail_opts("page-faults/call-graph=fp/", &o, -EINVAL, 12, "call-graph");
	assert_string_equal(err.msg, "'call-graph' is not usable in 'tally stat'");
	parse_fail_opts("task-clock/freq=100/", &o, -EINVAL, 11, "freq");
	parse_fail_opts("cpu/event=1,inherit/", &o, -EINVAL, 12, "inherit");
	parse_fail_opts("sched:sched_switch/stack-size=8/", &o, -EINVAL, 19, "stack-size");
	/* a tracepoint's own rule first: period is unknown there */
	err = parse_fail_opts("sched:sched_switch/period=1/", &o, -EINVAL, 19, "period");
	assert_non_null(strstr(err.msg, "valid terms: call-graph,stack-size"));
	err = parse_fail_opts("task-clock/foo/", &o, -EINVAL, 11, "foo");
	assert_non_null(strstr(err.msg, "valid terms: config,config1,config2,config3,name,"
				       "period,metric-id)"));
}

/* sys:ev/terms/ as perf 6.1 takes it: call-graph and stack-size only */
static void test_tracepoint_terms(void **state)
{
	struct tally_parse_error err;
	struct tally_events evs;

	evs = parse_ok("sched:sched_switch//");
	assert_string_equal(evs.ev[0].name, "sched:sched_switch");
	tally_events__clear(&evs);
	evs = parse_ok("sched:sched_switch:");
	assert_string_equal(evs.ev[0].name, "sched:sched_switch");
	tally_events__clear(&evs);
	evs = parse_ok("sched:sched_w*/call-graph=fp/:k");
	assert_int_equal(evs.nr, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(evs.ev[i].attr.sample_type, PERF_SAMPLE_CALLCHAIN);
		assert_int_equal(evs.ev[i].attr.exclude_user, 1);
	}
	tally_events__clear(&evs);
	/* the ',' inside the term list does not end the event */
	evs = parse_ok("sched:sched_switch/call-graph=dwarf,stack-size=16/,cs");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].attr.sample_stack_user, 16);
	assert_string_equal(evs.ev[1].name, "cs");
	tally_events__clear(&evs);

	err = parse_fail("sched:sched_switch/period=1/", -EINVAL, 19, "period");
	assert_non_null(strstr(err.msg, "unknown term 'period' for a tracepoint"));
	assert_non_null(strstr(err.msg, "valid terms: call-graph,stack-size"));
	parse_fail("sched:sched_switch/name=x/", -EINVAL, 19, "name");
	parse_fail("sched:sched_switch/r1/", -EINVAL, 19, "r1");
	parse_fail("sched:sched_switch/call-graph=fp/uu", -EINVAL, 34, "uu");
	parse_fail("sched:sched_switch/call-graph=fp", -EINVAL, 18, NULL);
}

/* mem:ADDR[/LEN][:ACCESS][[:]MODS] as perf's lexer splits it */
static void test_breakpoint_mods(void **state)
{
	static const struct {
		const char *spec, *name;
		uint64_t len;
		uint32_t type;
		int ek, eu;
	} t[] = {
		{ "mem:0x1000:wu", "mem:0x1000:wu", 4, HW_BREAKPOINT_W, 1, 0 },
		{ "mem:0x1000/8:wu", "mem:0x1000", 8, HW_BREAKPOINT_W, 1, 0 },
		{ "mem:0x1000:rwu", "mem:0x1000:rwu", 4, HW_BREAKPOINT_RW, 1, 0 },
		{ "mem:0x1000:rk", "mem:0x1000:rk", 4, HW_BREAKPOINT_R, 0, 1 },
		{ "mem:0x1000:xu", "mem:0x1000:xu", sizeof(long), HW_BREAKPOINT_X, 1, 0 },
		{ "mem:0x1000:", "mem:0x1000:", 4, HW_BREAKPOINT_RW, 0, 0 },
		{ "mem:0x1000:w:", "mem:0x1000:w:", 4, HW_BREAKPOINT_W, 0, 0 },
		{ "mem:0x1000:w:u", "mem:0x1000:w:u", 4, HW_BREAKPOINT_W, 1, 0 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char name[64];
		struct tally_event e = one(t[i].spec, name, sizeof(name));

		assert_string_equal(name, t[i].name);
		assert_int_equal(e.attr.bp_addr, 0x1000);
		assert_int_equal(e.attr.bp_len, t[i].len);
		assert_int_equal(e.attr.bp_type, t[i].type);
		assert_int_equal(e.attr.exclude_kernel, t[i].ek);
		assert_int_equal(e.attr.exclude_user, t[i].eu);
	}
	{
		struct tally_parse_error err = parse_fail("mem:0x1000:ww", -EINVAL, 12, "ww");

		assert_non_null(strstr(err.msg, "'w' repeated"));
	}
	{
		char name[64];
		struct tally_event e = one("mem:010", name, sizeof(name));

		assert_int_equal(e.attr.bp_addr, 10);	/* decimal, as perf reads it */
	}
	parse_fail("mem:0x1000:rr", -EINVAL, 12, "rr");
	parse_fail("mem:0x1000::u", -EINVAL, 11, ":u");
	parse_fail("mem:0x1000:wuu", -EINVAL, 13, "uu");
	parse_fail("mem:0x1000:rwxw", -EINVAL, 11, "rwx");
}

/* perf 6.1's "NAME{...}": a named group (the name is not kept) */
static void test_named_group(void **state)
{
	struct tally_events evs = parse_ok("foo{cs,faults}:u,bar{task-clock}");

	assert_int_equal(evs.nr, 3);
	assert_int_equal(evs.ev[0].group, 0);
	assert_true(evs.ev[0].leader);
	assert_int_equal(evs.ev[1].group, 0);
	assert_int_equal(evs.ev[1].attr.exclude_kernel, 1);
	assert_string_equal(evs.ev[1].name, "faults");
	assert_int_equal(evs.ev[2].group, 1);
	tally_events__clear(&evs);
}

/* ---- groups and lists ---- */

static void test_groups(void **state)
{
	struct tally_events evs;

	evs = parse_ok("{cs,cpu-clock}");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].group, 0);
	assert_int_equal(evs.ev[1].group, 0);
	assert_true(evs.ev[0].leader);
	assert_false(evs.ev[1].leader);
	tally_events__clear(&evs);

	/* the group modifier applies to each member; names stay the members' */
	evs = parse_ok("{cs,cpu-clock}:u");
	assert_int_equal(evs.nr, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(evs.ev[i].attr.exclude_kernel, 1);
		assert_int_equal(evs.ev[i].attr.exclude_user, 0);
	}
	assert_string_equal(evs.ev[0].name, "cs");
	assert_string_equal(evs.ev[1].name, "cpu-clock");
	tally_events__clear(&evs);

	/* merged with a member's own: :k then the group's :u counts both */
	evs = parse_ok("{cs:k,cpu-clock}:u");
	assert_int_equal(evs.ev[0].attr.exclude_user, 0);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 0);
	assert_int_equal(evs.ev[0].attr.exclude_hv, 1);
	assert_int_equal(evs.ev[1].attr.exclude_kernel, 1);
	assert_string_equal(evs.ev[0].name, "cs:k");
	tally_events__clear(&evs);

	evs = parse_ok("cs,{cpu-clock,task-clock},{faults}:W");
	assert_int_equal(evs.nr, 4);
	assert_int_equal(evs.ev[0].group, -1);
	assert_int_equal(evs.ev[1].group, 0);
	assert_int_equal(evs.ev[2].group, 0);
	assert_int_equal(evs.ev[3].group, 1);
	assert_true(evs.ev[3].leader);
	assert_int_equal(evs.ev[3].flags, TALLY_EV_WEAK_GROUP);
	assert_int_equal(evs.ev[1].flags, 0);
	tally_events__clear(&evs);

	/* a glob inside a group: all members, one leader */
	evs = parse_ok("{sched:sched_w*,cs}");
	assert_int_equal(evs.nr, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(evs.ev[i].group, 0);
		assert_int_equal(evs.ev[i].leader, i == 0);
	}
	tally_events__clear(&evs);

	/* PMU terms with commas inside a group */
	evs = parse_ok("{cpu/event=1,umask=2/,cs}");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].attr.config, 0x201);
	tally_events__clear(&evs);

	parse_fail("{cycles", -EINVAL, 0, "{cycles");
	parse_fail("{}", -EINVAL, 1, "{}");
	parse_fail("{cs,{faults}}", -EINVAL, 4, "{");
	parse_fail("{cs}x", -EINVAL, 4, "x");
	parse_fail("{cs}:x", -EINVAL, 5, "x");
	parse_fail("{cs,}", -EINVAL, 4, NULL);
}

static void test_group_numbers_append(void **state)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error err;

	assert_int_equal(tally_parse_events("{cs,faults}", &fake, &evs, &err), 0);
	assert_int_equal(tally_parse_events("{cpu-clock},task-clock", &fake, &evs, &err), 0);
	assert_int_equal(evs.nr, 4);
	assert_int_equal(evs.ev[0].group, 0);
	assert_int_equal(evs.ev[2].group, 1);
	assert_true(evs.ev[2].leader);
	assert_int_equal(evs.ev[3].group, -1);
	/* a failing spec leaves the list as it was */
	assert_int_equal(tally_parse_events("cs,bogus", &fake, &evs, &err), -ENOENT);
	assert_int_equal(err.column, 3);
	assert_int_equal(evs.nr, 4);
	assert_string_equal(evs.ev[3].name, "task-clock");
	tally_events__clear(&evs);
	assert_int_equal(evs.nr, 0);
	assert_null(evs.ev);
	tally_events__clear(&evs);
	tally_events__clear(NULL);
}

static void test_lists(void **state)
{
	struct tally_events evs = parse_ok("cs, faults ,cpu-clock");

	assert_int_equal(evs.nr, 3);
	assert_string_equal(evs.ev[1].name, "faults");
	assert_int_equal(evs.ev[2].attr.config, 0);
	tally_events__clear(&evs);
	parse_fail("", -EINVAL, 0, NULL);
	parse_fail("cs,", -EINVAL, 2, ",");
	parse_fail(",cs", -EINVAL, 0, NULL);
	parse_fail("cs,,faults", -EINVAL, 3, NULL);
}

/* ---- sysfs PMUs ---- */

static void test_pmu_format(void **state)
{
	struct tally_events evs;
	char name[64];
	struct tally_event e;

	evs = parse_ok("cpu/event=0x3c,umask=0x1,edge,cmask=2/");
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.type, 4);
	assert_int_equal(evs.ev[0].attr.config, 0x3c | 1 << 8 | 1 << 18 | 2u << 24);
	assert_string_equal(evs.ev[0].pmu, "cpu");
	assert_string_equal(evs.ev[0].cpus, "0-1");
	assert_string_equal(evs.ev[0].name, "cpu/event=0x3c,umask=0x1,edge,cmask=2/");
	tally_events__clear(&evs);

	e = one("cpu/event=0xd0,ldlat=0x20,frontend=0x11/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0xd0);
	assert_int_equal(e.attr.config1, 0x20);
	assert_int_equal(e.attr.config2, 0x11);
	/* a bit list with a gap: value bits fill 32-35 then 40-43 */
	e = one("cpu/split=0xa5/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x5ull << 32 | 0xaull << 40);
	e = one("cpu/config=0x1234,config1=5,config2=6/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x1234);
	assert_int_equal(e.attr.config1, 5);
	assert_int_equal(e.attr.config2, 6);
	e = one("cpu/event=1,period=1000,name=foo/", name, sizeof(name));
	assert_int_equal(e.attr.sample_period, 1000);
	assert_int_equal(e.attr.freq, 0);
	assert_string_equal(name, "foo");
	e = one("cpu/event=1,freq=4000/", name, sizeof(name));
	assert_int_equal(e.attr.sample_freq, 4000);
	assert_int_equal(e.attr.freq, 1);
	e = one("cpu/event=1,inherit/", name, sizeof(name));
	assert_int_equal(e.attr.inherit, 1);
	e = one("cpu/event=1,no-inherit/", name, sizeof(name));
	assert_int_equal(e.attr.inherit, 0);
	/* later terms win */
	e = one("cpu/event=0x3c,event=0x3d/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x3d);
	/* a term without a value is 1, as in perf ("config" is config=1) */
	e = one("cpu/config/", name, sizeof(name));
	assert_int_equal(e.attr.config, 1);
	e = one("cpu/r1a8/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x1a8);
	e = one("cpu/r0x20000038f/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x20000038fULL);
	e = one("cpu/event=1,call-graph=fp/", name, sizeof(name));
	assert_int_equal(e.attr.sample_type, PERF_SAMPLE_CALLCHAIN);
	e = one("cpu//", name, sizeof(name));
	assert_int_equal(e.attr.config, 0);
	assert_int_equal(e.attr.type, 4);
	/* modifiers right after the slash (perf) or after a colon */
	e = one("cpu/event=1/u", name, sizeof(name));
	assert_int_equal(e.attr.exclude_kernel, 1);
	assert_string_equal(name, "cpu/event=1/u");
	e = one("cpu/event=1/:k", name, sizeof(name));
	assert_int_equal(e.attr.exclude_user, 1);

	/* errors name the value or the term, at its column */
	{
		struct tally_parse_error err = parse_fail("cpu/event=0x1ff/", -ERANGE, 10, "0x1ff");

		assert_non_null(strstr(err.msg, "too big"));
		assert_non_null(strstr(err.msg, "0xff"));
	}
	parse_fail("cpu/split=0x100/", -ERANGE, 10, "0x100");
	{
		struct tally_parse_error err = parse_fail("cpu/evnt=1/", -EINVAL, 4, "evnt");

		assert_string_equal(err.hint, "event");
	}
	{
		struct tally_parse_error err = parse_fail("cpux/event=1/", -ENOENT, 0, "cpux");

		assert_string_equal(err.hint, "cpu");
	}
	parse_fail("cpu/event=1", -EINVAL, 3, NULL);
	parse_fail("cpu/event=zz/", -EINVAL, 10, "zz");
	parse_fail("cpu/event=1,/", -EINVAL, 11, ",");
	parse_fail("cpu/name=/", -EINVAL, 4, NULL);
	parse_fail("broken/event=1/", -EINVAL, 7, "event");
	parse_fail("c$u/event=1/", -EINVAL, 1, NULL);
}

static void test_pmu_aliases(void **state)
{
	struct tally_events evs;
	char name[64];
	struct tally_event e;

	e = one("cpu/mem-loads/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0xcd | 1 << 8);
	assert_int_equal(e.attr.config1, 3);
	assert_string_equal(name, "cpu/mem-loads/");
	e = one("cpu/mem-loads,ldlat=5/", name, sizeof(name));
	assert_int_equal(e.attr.config1, 5);
	e = one("cpu/cycles-ct/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x3c | 1 << 8 | 1 << 18);
	e = one("cpu/needs-umask,umask=3/", name, sizeof(name));
	assert_int_equal(e.attr.config, 0x51 | 3 << 8);

	evs = parse_ok("cpu/energy-cores/");
	assert_true(evs.ev[0].scale == 2.3283064365386962890625e-10);
	assert_string_equal(evs.ev[0].unit, "Joules");
	tally_events__clear(&evs);
	evs = parse_ok("cpu/topdown-total-slots/");
	assert_true(evs.ev[0].scale == 2.0);
	assert_null(evs.ev[0].unit);
	tally_events__clear(&evs);

	{
		struct tally_parse_error err = parse_fail("cpu/bad-alias/", -ERANGE, 4, "bad-alias");

		assert_non_null(strstr(err.msg, "bad alias"));
	}

	e = one("msr/tsc/", name, sizeof(name));
	assert_int_equal(e.attr.type, 9);
	assert_int_equal(e.attr.config, 0);
	assert_string_equal(name, "msr/tsc/");
	e = one("msr/smi/", name, sizeof(name));
	assert_int_equal(e.attr.config, 4);

	/* a bare alias name finds its PMU; on several PMUs, one event each */
	evs = parse_ok("tsc");
	assert_int_equal(evs.nr, 1);
	assert_string_equal(evs.ev[0].pmu, "msr");
	assert_string_equal(evs.ev[0].name, "tsc");
	tally_events__clear(&evs);
	evs = parse_ok("stall_slot:u");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].attr.type, 10);
	assert_string_equal(evs.ev[0].cpus, "0-1");
	assert_int_equal(evs.ev[1].attr.type, 11);
	assert_string_equal(evs.ev[1].cpus, "1");
	assert_int_equal(evs.ev[1].attr.config, 0x3f);
	assert_int_equal(evs.ev[1].attr.exclude_kernel, 1);
	tally_events__clear(&evs);
	/* a PMU family: uncore_imc stands for uncore_imc_0 and uncore_imc_1 */
	evs = parse_ok("uncore_imc/cas_count_read/");
	assert_int_equal(evs.nr, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(evs.ev[i].attr.type, 20 + i);
		assert_int_equal(evs.ev[i].attr.config, 0x304);
		assert_string_equal(evs.ev[i].pmu, i ? "uncore_imc_1" : "uncore_imc_0");
		assert_string_equal(evs.ev[i].name, "uncore_imc/cas_count_read/");
		assert_string_equal(evs.ev[i].unit, "MiB");
		assert_true(evs.ev[i].scale == 6.103515625e-5);
		assert_string_equal(evs.ev[i].cpus, "0");
	}
	tally_events__clear(&evs);
	/* perf's PMU match ignores the "uncore_" prefix: imc is uncore_imc_N */
	evs = parse_ok("imc/cas_count_read/u");
	assert_int_equal(evs.nr, 2);
	assert_string_equal(evs.ev[1].pmu, "uncore_imc_1");
	assert_string_equal(evs.ev[1].name, "imc/cas_count_read/u");
	assert_int_equal(evs.ev[1].attr.exclude_kernel, 1);
	tally_events__clear(&evs);
	evs = parse_ok("uncore_imc_1/event=2/");
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.type, 21);
	tally_events__clear(&evs);
	parse_fail("uncore_imc/event=0x1ff/", -ERANGE, 17, "0x1ff");
	parse_fail("uncore/event=1/", -ENOENT, 0, "uncore");
	/* a symbolic name wins over a sysfs alias of the same name */
	e = one("instructions", name, sizeof(name));
	assert_int_equal(e.attr.type, PERF_TYPE_HARDWARE);
	e = one("cpu/instructions/", name, sizeof(name));
	assert_int_equal(e.attr.type, 4);
	assert_int_equal(e.attr.config, 0xc0);
}

/* arm64 FEAT_PMUv3_TH: the threshold terms and caps/threshold_max. */
static void test_thresholds(void **state)
{
	char name[96];
	struct tally_event e;
	struct tally_parse_error err;

	e = one("armv8_pmuv3_0/stall_slot,threshold=2,threshold_compare=2/", name, sizeof(name));
	assert_int_equal(e.attr.type, 10);
	assert_int_equal(e.attr.config, 0x3f);
	assert_int_equal(e.attr.config1, 2 << 5 | 2 << 2);
	e = one("armv8_pmuv3_0/dtlb_walk,threshold=10,threshold_compare=3,threshold_count/",
		name, sizeof(name));
	assert_int_equal(e.attr.config, 0x34);
	assert_int_equal(e.attr.config1, 10 << 5 | 3 << 2 | 1 << 4);
	e = one("armv8_pmuv3_0/event=0x3f,threshold=255/", name, sizeof(name));
	assert_int_equal(e.attr.config1, 255 << 5);

	err = parse_fail("armv8_pmuv3_0/event=0x3f,threshold=256/", -ERANGE, 35, "256");
	assert_non_null(strstr(err.msg, "threshold_max 255"));
	parse_fail("armv8_pmuv3_0/event=0x3f,threshold=4096/", -ERANGE, 35, "4096");
	err = parse_fail("armv8_pmuv3_1/stall_slot,threshold=1/", -EOPNOTSUPP, 25,
			 "threshold=1");
	assert_non_null(strstr(err.msg, "threshold_max is 0"));
	parse_fail("armv8_pmuv3_1/stall_slot,threshold_compare=1/", -EOPNOTSUPP, 25, NULL);
	/* no caps directory at all: no thresholds either */
	parse_fail("armv8_cortex_a53/event=1,threshold=1/", -EOPNOTSUPP, 25, NULL);
}

/* The format file parser is pure and takes untrusted text. */
static void test_format_spec(void **state)
{
	static const struct { const char *s; int word; uint64_t mask; } ok[] = {
		{ "config:0-7", 0, 0xff }, { "config:0-7,21", 0, 0x2000ff },
		{ "config1:0-63", 1, ~0ull }, { "config2:3", 2, 8 },
		{ "config3:1-2", 3, 6 }, { "config:63", 0, 1ull << 63 },
		{ "config:32-35,40-43", 0, 0xf0full << 32 },
	};
	static const char *const bad[] = {
		"", "config", "config:", "config:8-7", "config:64", "config4:1",
		"conf:1", "config:1,", "config:1-2-3", "config:-1", "config:1x",
		"config:99999999999999999999",
	};
	bool fits;
	uint64_t out;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int w = -1;
		uint64_t m = 0;

		assert_int_equal(tally__pmu_parse_format(ok[i].s, strlen(ok[i].s), &w, &m), 0);
		assert_int_equal(w, ok[i].word);
		assert_int_equal(m, ok[i].mask);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int w;
		uint64_t m;

		if (tally__pmu_parse_format(bad[i], strlen(bad[i]), &w, &m) != -EINVAL)
			print_error("accepted '%s'\n", bad[i]);
		assert_int_equal(tally__pmu_parse_format(bad[i], strlen(bad[i]), &w, &m), -EINVAL);
	}
	/* the length bounds the parse, not a NUL */
	{
		int w;
		uint64_t m;

		assert_int_equal(tally__pmu_parse_format("config:0-7,21", 10, &w, &m), 0);
		assert_int_equal(m, 0xff);
	}
	fits = tally__pmu_format_encode(~0ull, ~0ull, &out);
	assert_true(fits);
	assert_int_equal(out, ~0ull);
	assert_false(tally__pmu_format_encode(0xff, 0x100, &out));
	assert_true(tally__pmu_format_encode(0x2000ff, 0x1ff, &out));
	assert_int_equal(out, 0x2000ff);
	assert_int_equal(tally__pmu_format_bits(0x2000ff), 9);
}

/* Hybrid x86: hardware and cache events on each core type, groups split. */
static void test_hybrid(void **state)
{
	struct tally_parse_opts o = fake;
	struct tally_events evs;

	o.sysfs_root = "tests/data/sysfs-hybrid";
	evs = parse_ok_opts("cycles:u", &o);
	assert_int_equal(evs.nr, 2);
	assert_string_equal(evs.ev[0].name, "cpu_core/cycles/u");
	assert_string_equal(evs.ev[0].pmu, "cpu_core");
	assert_string_equal(evs.ev[0].cpus, "0-7");
	assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(evs.ev[0].attr.config, 4ull << 32 | PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	assert_string_equal(evs.ev[1].name, "cpu_atom/cycles/u");
	assert_string_equal(evs.ev[1].cpus, "8-15");
	assert_int_equal(evs.ev[1].attr.config, 10ull << 32 | PERF_COUNT_HW_CPU_CYCLES);
	tally_events__clear(&evs);

	/* terms go to each core type's event; config= keeps the PMU type */
	evs = parse_ok_opts("cycles/period=1000,config=1/u", &o);
	assert_int_equal(evs.nr, 2);
	assert_string_equal(evs.ev[0].name, "cpu_core/cycles/period=1000,config=1/u");
	assert_int_equal(evs.ev[0].attr.config, 4ull << 32 | 1);
	assert_int_equal(evs.ev[1].attr.config, 10ull << 32 | 1);
	assert_int_equal(evs.ev[1].attr.sample_period, 1000);
	assert_int_equal(evs.ev[1].attr.exclude_kernel, 1);
	tally_events__clear(&evs);

	evs = parse_ok_opts("LLC-loads", &o);
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[1].attr.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(evs.ev[1].attr.config, 10ull << 32 | 2);
	tally_events__clear(&evs);

	/* software events are not per core type */
	evs = parse_ok_opts("cs", &o);
	assert_int_equal(evs.nr, 1);
	tally_events__clear(&evs);

	/* one group per core type; software members stay with the first */
	evs = parse_ok_opts("{cycles,cs,instructions}:u", &o);
	assert_int_equal(evs.nr, 5);
	assert_string_equal(evs.ev[0].name, "cpu_core/cycles/");
	assert_string_equal(evs.ev[1].name, "cs");
	assert_string_equal(evs.ev[2].name, "cpu_core/instructions/");
	assert_string_equal(evs.ev[3].name, "cpu_atom/cycles/");
	assert_string_equal(evs.ev[4].name, "cpu_atom/instructions/");
	for (int i = 0; i < 5; i++) {
		assert_int_equal(evs.ev[i].group, i < 3 ? 0 : 1);
		assert_int_equal(evs.ev[i].leader, i == 0 || i == 3);
		assert_int_equal(evs.ev[i].attr.exclude_kernel, 1);
	}
	tally_events__clear(&evs);
	/* a group on one core type is left alone */
	evs = parse_ok_opts("{cpu_atom/event=0x3c/,cpu_atom/event=0xc0/},cycles", &o);
	assert_int_equal(evs.nr, 4);
	assert_int_equal(evs.ev[1].group, 0);
	assert_int_equal(evs.ev[2].group, -1);
	tally_events__clear(&evs);
}

/*
 * big.LITTLE: an event without a PMU counts on every core PMU (each with a
 * cpus file), named by it as perf 6.5 and later name arm64's, on its cpus.
 */
static void test_biglittle(void **state)
{
	struct tally_parse_opts o = fake;
	struct tally_events evs;

	o.sysfs_root = "tests/data/sysfs-biglittle";
	evs = parse_ok_opts("cycles:u", &o);
	assert_int_equal(evs.nr, 2);
	assert_string_equal(evs.ev[0].name, "armv8_pmuv3_0/cycles/u");
	assert_string_equal(evs.ev[0].pmu, "armv8_pmuv3_0");
	assert_string_equal(evs.ev[0].cpus, "0-3");
	assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(evs.ev[0].attr.config, 8ull << 32 | PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	assert_string_equal(evs.ev[1].name, "armv8_pmuv3_1/cycles/u");
	assert_string_equal(evs.ev[1].cpus, "4-7");
	assert_int_equal(evs.ev[1].attr.config, 9ull << 32 | PERF_COUNT_HW_CPU_CYCLES);
	tally_events__clear(&evs);

	evs = parse_ok_opts("L1-dcache-load-misses", &o);
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[1].attr.type, PERF_TYPE_HW_CACHE);
	assert_int_equal(evs.ev[1].attr.config >> 32, 9);
	tally_events__clear(&evs);

	/* a group cannot span the two clusters: one per PMU */
	evs = parse_ok_opts("{cycles,instructions}", &o);
	assert_int_equal(evs.nr, 4);
	assert_string_equal(evs.ev[2].name, "armv8_pmuv3_1/cycles/");
	assert_int_equal(evs.ev[2].group, 1);
	assert_int_equal(evs.ev[2].leader, 1);
	tally_events__clear(&evs);

	/* a PMU named: that PMU alone, its own type; software events once */
	evs = parse_ok_opts("armv8_pmuv3_1/event=0x11/,cs", &o);
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].attr.type, 9);
	assert_int_equal(evs.ev[0].attr.config, 0x11);
	tally_events__clear(&evs);

	/* x86's "cpu" PMU: one core type, whatever else has cpus (the fake tree's arm PMUs) */
	o.sysfs_root = "tests/data/sysfs";
	evs = parse_ok_opts("cycles", &o);
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	tally_events__clear(&evs);
}

/* ---- tracepoints ---- */

static void test_tracepoints_fake(void **state)
{
	struct tally_events evs;
	struct tally_parse_error err;

	evs = parse_ok("sched:sched_switch");
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(evs.ev[0].attr.config, 316);
	/* the parser says what was written: sampling is tally_evlist__config's */
	assert_int_equal(evs.ev[0].attr.sample_period, 0);
	assert_string_equal(evs.ev[0].pmu, "tracepoint");
	assert_string_equal(evs.ev[0].name, "sched:sched_switch");
	tally_events__clear(&evs);

	/* perf names a tracepoint without its modifiers */
	evs = parse_ok("sched:sched_switch:u");
	assert_string_equal(evs.ev[0].name, "sched:sched_switch");
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	tally_events__clear(&evs);

	/* a glob's events come in the directory's order (perf's readdir), any order here */
	evs = parse_ok("sched:sched_w*");
	assert_int_equal(evs.nr, 2);
	{
		int wk = strcmp(evs.ev[0].name, "sched:sched_wakeup") ? 1 : 0;

		assert_string_equal(evs.ev[wk].name, "sched:sched_wakeup");
		assert_int_equal(evs.ev[wk].attr.config, 318);
		assert_string_equal(evs.ev[!wk].name, "sched:sched_waking");
		assert_int_equal(evs.ev[!wk].attr.config, 319);
	}
	tally_events__clear(&evs);

	evs = parse_ok("syscalls:sys_enter_getp*:k");
	assert_int_equal(evs.nr, 2);
	assert_int_equal(evs.ev[0].attr.config + evs.ev[1].attr.config, 309 + 307);
	assert_true(evs.ev[0].attr.config == 309 || evs.ev[0].attr.config == 307);
	assert_int_equal(evs.ev[1].attr.exclude_user, 1);
	tally_events__clear(&evs);

	/* and that order is readdir's, the events perf 6.1 adds first first */
	{
		char want[16][300];
		int nw = 0;
		DIR *dir = opendir(TRACEFS "/events/sched");
		struct dirent *de;

		assert_non_null(dir);
		while ((de = readdir(dir)) && nw < 16)
			if (!strncmp(de->d_name, "sched_", 6))
				snprintf(want[nw++], sizeof(want[0]), "sched:%s", de->d_name);
		closedir(dir);
		evs = parse_ok("sched:*");
		assert_int_equal(evs.nr, nw);
		for (int i = 0; i < nw; i++)
			assert_string_equal(evs.ev[i].name, want[i]);
		tally_events__clear(&evs);
	}

	evs = parse_ok("*:sys_enter_getpid");
	assert_int_equal(evs.nr, 1);
	tally_events__clear(&evs);
	evs = parse_ok("sched:*,block:block_rq_issue");
	assert_int_equal(evs.nr, 4);
	assert_int_equal(evs.ev[3].attr.config, 1200);
	tally_events__clear(&evs);

	parse_fail("sched:nope*", -ENOENT, 0, "sched:nope*");
	err = parse_fail("sched:sched_swich", -ENOENT, 0, "sched:sched_swich");
	assert_string_equal(err.hint, "sched:sched_switch");
	parse_fail("sched:", -EINVAL, 6, NULL);
	parse_fail("sched:sched_switch:q", -EINVAL, 19, "q");
	parse_fail("nosys:foo", -ENOENT, 0, "nosys:foo");
	/* a name in a system that exists is still checked against the files */
	parse_fail("sched:..", -ENOENT, 0, NULL);
}

/* No tracefs at the given root: a clean error, and name:mods still work. */
static void test_tracepoints_no_tracefs(void **state)
{
	struct tally_parse_opts o = fake;
	struct tally_parse_error err;
	struct tally_events evs;

	o.tracefs_root = "tests/data/does-not-exist";
	parse_fail_opts("sched:sched_switch", &o, -ENOENT, 0, "sched:sched_switch");
	parse_fail_opts("sched:sched_*", &o, -ENOENT, 0, "sched:sched_*");
	err = parse_fail_opts("instrutions:u", &o, -ENOENT, 0, "instrutions");
	assert_string_equal(err.hint, "instructions");
	evs = parse_ok_opts("cs:u", &o);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	tally_events__clear(&evs);
}

static int read_int_file(const char *path)
{
	char buf[32];

	if (tally__read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/* The real tracefs: ids agree with the files the kernel publishes. */
static void test_tracepoints_real(void **state)
{
	static const char *const tps[] = { "syscalls:sys_enter_getpid", "sched:sched_switch" };
	const char *dir = tally__tp_dir(NULL);
	struct tally_parse_opts o = { .sz = sizeof(o), .no_pfm = true };

	if (!dir) {
		print_message("# SKIP tracefs is not mounted\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		char path[PATH_MAX], sys[64];
		const char *ev = strchr(tps[i], ':') + 1;
		struct tally_events evs;
		int id;

		snprintf(sys, sizeof(sys), "%.*s", (int)(ev - 1 - tps[i]), tps[i]);
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, ev);
		id = read_int_file(path);
		if (id < 0) {
			print_message("# SKIP %s: no readable %s\n", tps[i], path);
			skip();
		}
		evs = parse_ok_opts(tps[i], &o);
		assert_int_equal(evs.nr, 1);
		assert_int_equal(evs.ev[0].attr.config, id);
		tally_events__clear(&evs);
	}
	/* a glob over the real tree: every sys_enter_ event of syscalls */
	{
		struct tally_events evs = parse_ok_opts("syscalls:sys_enter_getp*", &o);

		assert_true(evs.nr >= 2);	/* getpid, getppid, getpgid, getpgrp... */
		for (size_t i = 0; i < evs.nr; i++)
			assert_int_equal(strncmp(evs.ev[i].name, "syscalls:sys_enter_getp", 23), 0);
		tally_events__clear(&evs);
	}
}

/* ---- breakpoints ---- */

static void test_breakpoints(void **state)
{
	static const struct {
		const char *spec, *name;
		uint64_t addr, len;
		uint32_t type;
		int ek;
	} t[] = {
		{ "mem:0x1000", "mem:0x1000", 0x1000, 4, HW_BREAKPOINT_RW, 0 },
		{ "mem:0x1000:x", "mem:0x1000:x", 0x1000, sizeof(long), HW_BREAKPOINT_X, 0 },
		{ "mem:0x1000:r", "mem:0x1000:r", 0x1000, 4, HW_BREAKPOINT_R, 0 },
		{ "mem:0x1000:w", "mem:0x1000:w", 0x1000, 4, HW_BREAKPOINT_W, 0 },
		{ "mem:0x1000/2:w", "mem:0x1000", 0x1000, 2, HW_BREAKPOINT_W, 0 },
		{ "mem:0x1000:rw:u", "mem:0x1000:rw:u", 0x1000, 4, HW_BREAKPOINT_RW, 1 },
		{ "mem:0x1000:wr", "mem:0x1000:wr", 0x1000, 4, HW_BREAKPOINT_RW, 0 },
		{ "mem:0x1000:u", "mem:0x1000:u", 0x1000, 4, HW_BREAKPOINT_RW, 1 },
		{ "mem:4096/8", "mem:4096", 4096, 8, HW_BREAKPOINT_RW, 0 },
		{ "mem:0x1000/8:x:u", "mem:0x1000", 0x1000, 8, HW_BREAKPOINT_X, 1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct tally_events evs = parse_ok(t[i].spec);
		struct tally_event *e = &evs.ev[0];

		assert_int_equal(evs.nr, 1);
		assert_int_equal(e->attr.type, PERF_TYPE_BREAKPOINT);
		assert_int_equal(e->attr.config, 0);
		assert_int_equal(e->attr.bp_addr, t[i].addr);
		assert_int_equal(e->attr.bp_len, t[i].len);
		assert_int_equal(e->attr.bp_type, t[i].type);
		assert_int_equal(e->attr.sample_period, 0);
		assert_int_equal(e->attr.exclude_kernel, t[i].ek);
		assert_string_equal(e->name, t[i].name);
		assert_string_equal(e->pmu, "breakpoint");
		tally_events__clear(&evs);
	}
	parse_fail("mem:zz", -EINVAL, 4, "zz");
	parse_fail("mem:", -EINVAL, 4, NULL);
	parse_fail("mem:0x1000/3", -EINVAL, 11, "3");
	parse_fail("mem:0x1000/", -EINVAL, 11, NULL);
	parse_fail("mem:0x1000:xw", -EINVAL, 11, "xw");
	parse_fail("mem:0x1000:q", -EINVAL, 11, "q");
	parse_fail("mem:0x1000zz", -EINVAL, 4, "0x1000zz");
}

/* ---- uprobes ---- */

__attribute__((noinline, used)) int tally_test_probe_target(int x);
__attribute__((noinline, used)) int tally_test_probe_target(int x)
{
	return x * 3 + 1;
}

/* The file bytes at the offset the parser found are the function's code. */
static void check_offset_is_function(const char *path, uint64_t off)
{
	unsigned char file[16];
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, file, sizeof(file), (off_t)off), (ssize_t)sizeof(file));
	close(fd);
	assert_memory_equal(file, (const void *)(uintptr_t)&tally_test_probe_target,
			    sizeof(file));
}

static void test_uprobes(void **state)
{
	char self[PATH_MAX];
	struct tally_events evs;
	uint64_t off, cfg1;

	assert_non_null(realpath("/proc/self/exe", self));
	evs = parse_ok("uprobe:/proc/self/exe:tally_test_probe_target");
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.type, 8);	/* the fake tree's uprobe type */
	assert_int_equal(evs.ev[0].attr.config, 0);
	assert_string_equal((const char *)(uintptr_t)evs.ev[0].attr.config1, self);
	assert_string_equal(evs.ev[0].pmu, "uprobe");
	assert_string_equal(evs.ev[0].name, "uprobe:/proc/self/exe:tally_test_probe_target");
	off = evs.ev[0].attr.config2;
	cfg1 = evs.ev[0].attr.config1;
	check_offset_is_function(self, off);
	tally_events__clear(&evs);

	/* the path string is interned: it outlives the list, one copy */
	assert_string_equal((const char *)(uintptr_t)cfg1, self);
	evs = parse_ok("uretprobe:/proc/self/exe:tally_test_probe_target:u");
	assert_int_equal(evs.ev[0].attr.config1, cfg1);
	assert_int_equal(evs.ev[0].attr.config, 1);	/* format/retprobe config:0 */
	assert_int_equal(evs.ev[0].attr.config2, off);
	assert_int_equal(evs.ev[0].attr.exclude_kernel, 1);
	assert_string_equal(evs.ev[0].name, "uretprobe:/proc/self/exe:tally_test_probe_target:u");
	tally_events__clear(&evs);

	evs = parse_ok("uprobe:/proc/self/exe:tally_test_probe_target+4");
	assert_int_equal(evs.ev[0].attr.config2, off + 4);
	tally_events__clear(&evs);
	evs = parse_ok("uprobe:/proc/self/exe:0x1234");
	assert_int_equal(evs.ev[0].attr.config2, 0x1234);
	tally_events__clear(&evs);

	parse_fail("uprobe:/proc/self/exe:no_such_symbol_xyz", -ENOENT, 22,
		   "no_such_symbol_xyz");
	parse_fail("uprobe:/nonexistent/bin:main", -ENOENT, 7, "/nonexistent/bin");
	parse_fail("uprobe:/proc/self/exe", -EINVAL, 7, NULL);
	parse_fail("uprobe:/proc/self/exe:tally_test_probe_target+zz", -EINVAL, 45, "+zz");
	/* not a regular file: refused before libelf could block on it */
	parse_fail("uprobe:/dev/null:main", -ENOEXEC, 17, "main");
}

/* The real uprobe PMU: its sysfs type. */
static void test_uprobe_real_type(void **state)
{
	struct tally_parse_opts o = { .sz = sizeof(o), .no_pfm = true };
	int type = read_int_file("/sys/bus/event_source/devices/uprobe/type");
	struct tally_events evs;

	if (type < 0) {
		print_message("# SKIP no uprobe PMU in /sys\n");
		skip();
	}
	evs = parse_ok_opts("uprobe:/proc/self/exe:tally_test_probe_target", &o);
	assert_int_equal(evs.ev[0].attr.type, type);
	tally_events__clear(&evs);
}

/* ---- libpfm4 ---- */

static void test_pfm(void **state)
{
	struct tally_parse_opts o = fake;
	struct tally_parse_opts nocore = fake;
	struct tally_events evs = { 0 };
	struct tally_parse_error err;

	o.no_pfm = false;
	/* pfm's generic perf tables are there on every machine */
	if (tally_parse_events("perf::PERF_COUNT_SW_CPU_CLOCK", &o, &evs, &err)) {
		print_message("# SKIP libpfm4 does not initialise here: %s\n", err.msg);
		skip();
	}
	assert_int_equal(evs.nr, 1);
	assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evs.ev[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_string_equal(evs.ev[0].pmu, "software");
	tally_events__clear(&evs);

	/* a bare name goes to pfm only when a core PMU exists (the fake cpu) */
	evs = parse_ok_opts("PERF_COUNT_SW_PAGE_FAULTS", &o);
	assert_int_equal(evs.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(evs.ev[0].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	tally_events__clear(&evs);
	nocore.no_pfm = false;
	nocore.sysfs_root = "tests/data/does-not-exist";
	parse_fail_opts("PERF_COUNT_SW_PAGE_FAULTS", &nocore, -ENOENT, 0, NULL);

	/* no_pfm: not asked at all */
	parse_fail("perf::PERF_COUNT_SW_CPU_CLOCK", -ENOENT, 0, NULL);
	parse_fail_opts("NOT_AN_EVENT_ANYWHERE", &o, -ENOENT, 0, "NOT_AN_EVENT_ANYWHERE");
	parse_fail_opts("nosuchpmu::FOO", &o, -ENOENT, 0, "nosuchpmu::FOO");
}

/* ---- errors and suggestions ---- */

static void test_errors(void **state)
{
	struct tally_parse_error err;
	char buf[512];

	err = parse_fail("cycles,instrutions", -ENOENT, 7, "instrutions");
	assert_string_equal(err.hint, "instructions");
	assert_true(tally_parse_error__format(&err, "cycles,instrutions", buf, sizeof(buf)) > 0);
	assert_string_equal(buf,
		"event syntax error: 'cycles,instrutions'\n"
		"                            \\___ unknown event 'instrutions' "
		"(did you mean 'instructions'?)");
	err = parse_fail("instrutions:u", -ENOENT, 0, "instrutions");
	assert_string_equal(err.hint, "instructions");
	err = parse_fail("cache-mises", -ENOENT, 0, "cache-mises");
	assert_string_equal(err.hint, "cache-misses");
	err = parse_fail("L1-dcache-load-mises", -ENOENT, 0, NULL);
	assert_string_equal(err.hint, "L1-dcache-load-misses");
	err = parse_fail("task-clok", -ENOENT, 0, NULL);
	assert_string_equal(err.hint, "task-clock");
	err = parse_fail("msr/tsx/", -EINVAL, 4, "tsx");
	assert_string_equal(err.hint, "tsc");
	err = parse_fail("xyzzy", -ENOENT, 0, "xyzzy");
	assert_string_equal(err.hint, "");
	err = parse_fail("{cycles", -EINVAL, 0, NULL);
	assert_non_null(strstr(err.msg, "unterminated group"));
	assert_true(tally_parse_error__format(&err, "{cycles", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\n                     \\___ unterminated group"));
	err = parse_fail("cycles:x", -EINVAL, 7, "x");
	assert_true(tally_parse_error__format(&err, "cycles:x", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\n                            \\___ unknown modifier 'x'"));

	/* a short buffer: truncated, the full length returned */
	assert_int_equal(tally_parse_error__format(&err, "cycles:x", buf, 8),
			 (int)strlen("event syntax error: 'cycles:x'\n") + 28 +
			 (int)strlen("\\___ ") + (int)strlen(err.msg));
	assert_int_equal(strlen(buf), 7);
	assert_int_equal(tally_parse_error__format(NULL, "x", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(tally_parse_error__format(&err, "x", NULL, 0), -EINVAL);
}

/*
 * A long bad spec: perf 6.1's window (13 characters before the token, the
 * line cut to the terminal, ".." at each cut end), the caret under the
 * token and the reason kept. The expected lines are perf's own for the
 * same specs (COLUMNS=80 / 40, LINES=20).
 */
static void test_error_window(void **state)
{
	struct tally_parse_error err;
	char spec[4096], want[256], *buf;
	int n, p = 0;

	(void)state;
	for (int i = 0; i < 100; i++)
		p += snprintf(spec + p, sizeof(spec) - (size_t)p, "minor-faults,");
	p += snprintf(spec + p, sizeof(spec) - (size_t)p, "bogus");
	for (int i = 0; i < 100; i++)
		p += snprintf(spec + p, sizeof(spec) - (size_t)p, ",major-faults");
	err = parse_fail(spec, -ENOENT, 1300, "bogus");
	n = tally_parse_error__format_width(&err, spec, 80, want, 1);
	assert_true(n > 0);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(tally_parse_error__format_width(&err, spec, 80, buf, (size_t)n + 1), n);
	assert_string_equal(buf,
		"event syntax error: '..nor-faults,bogus,major-faults,major-faults,major-fault..'\n"
		"                                  \\___ unknown event 'bogus'");
	free(buf);
	assert_true(tally_parse_error__format_width(&err, spec, 40, want, sizeof(want)) > 0);
	assert_string_equal(want, "event syntax error: '..nor-faults,bog..'\n"
				  "                                  \\___ unknown event 'bogus'");
	/* wider than perf's MAX_WIDTH: a 1000-column line */
	n = tally_parse_error__format_width(&err, spec, 5000, want, 1);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	tally_parse_error__format_width(&err, spec, 5000, buf, (size_t)n + 1);
	assert_int_equal(strchr(buf, '\n') - buf, 1000);
	free(buf);
	/* short: only the head is cut (the token is past column 13) */
	err = parse_fail("task-clock,task-clock,bogus", -ENOENT, 22, "bogus");
	assert_true(tally_parse_error__format_width(&err, "task-clock,task-clock,bogus", 80,
						    want, sizeof(want)) > 0);
	assert_string_equal(want, "event syntax error: '..task-clock,bogus'\n"
				  "                                  \\___ unknown event 'bogus'");
	/* width 0: the whole spec, as tally_parse_error__format */
	assert_true(tally_parse_error__format_width(&err, "task-clock,task-clock,bogus", 0,
						    want, sizeof(want)) > 0);
	assert_non_null(strstr(want, "'task-clock,task-clock,bogus'"));
}

/* cpu/.../ where there is no core PMU says why, not just "unknown PMU". */
static void test_no_core_pmu(void **state)
{
	TALLY_OPTS(tally_parse_opts, nopmu, .sysfs_root = "tests/data/sysfs-nopmu",
		   .tracefs_root = "tests/data/tracefs", .no_pfm = true);
	struct tally_parse_error e;

	e = parse_fail_opts("cpu/event=0x3c/", &nopmu, -ENOENT, 0, "cpu");
	assert_non_null(strstr(e.msg, "no hardware PMU"));
	e = parse_fail_opts("foo/event=0x3c/", &nopmu, -ENOENT, 0, "foo");
	assert_null(strstr(e.msg, "no hardware PMU"));
	/* Where the cpu PMU exists, a bad PMU name gets no such claim. */
	e = parse_fail("cpux/event=0x3c/", -ENOENT, 0, "cpux");
	assert_null(strstr(e.msg, "no hardware PMU"));
}

static void test_bad_args(void **state)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error err;
	struct {
		struct tally_parse_opts o;
		char extra[8];
	} big = { .o = { .sz = sizeof(big) } };

	assert_int_equal(tally_parse_events(NULL, NULL, &evs, &err), -EINVAL);
	assert_int_equal(tally_parse_events("cs", NULL, NULL, &err), -EINVAL);
	/* opts: a size too small, unknown non-zero bytes past the known ones */
	big.o.sz = 4;
	assert_int_equal(tally_parse_events("cs", &big.o, &evs, &err), -EINVAL);
	big.o.sz = sizeof(big);
	big.extra[3] = 1;
	assert_int_equal(tally_parse_events("cs", &big.o, &evs, &err), -EINVAL);
	big.extra[3] = 0;
	big.o.sysfs_root = SYSFS;
	assert_int_equal(tally_parse_events("cs", &big.o, &evs, &err), 0);
	/* NULL opts: the real machine; NULL err: fine */
	assert_int_equal(tally_parse_events("cs", NULL, &evs, NULL), 0);
	assert_int_equal(tally_parse_events("bogus-event", NULL, &evs, NULL), -ENOENT);
	assert_int_equal(evs.nr, 2);
	tally_events__clear(&evs);
}

static void test_long_spec(void **state)
{
	size_t n = 10000;
	char *s = malloc(n + 1);
	struct tally_parse_error err;

	assert_non_null(s);
	memset(s, 'a', n);
	s[n] = '\0';
	err = parse_fail(s, -ENOENT, 0, NULL);
	assert_int_equal(strlen(err.token), sizeof(err.token) - 1);
	/* many commas: many empty events, the first one reported */
	memset(s, ',', n);
	parse_fail(s, -EINVAL, 0, NULL);
	free(s);
}

static void test_suggest(void **state)
{
	char buf[64];

	assert_string_equal(tally_events__suggest("instrutions", buf, sizeof(buf), &fake),
			    "instructions");
	assert_string_equal(tally_events__suggest("sched:sched_swich", buf, sizeof(buf), &fake),
			    "sched:sched_switch");
	assert_string_equal(tally_events__suggest("cpu/mem-load/", buf, sizeof(buf), &fake),
			    "cpu/mem-loads/");
	assert_null(tally_events__suggest("qqqqqqqqqq", buf, sizeof(buf), &fake));
	assert_int_equal(errno, ENOENT);
	assert_null(tally_events__suggest(NULL, buf, sizeof(buf), &fake));
	assert_int_equal(errno, EINVAL);
	/* an exact name is not a suggestion */
	assert_null(tally_events__suggest("cycles", buf, sizeof(buf), &fake));
	assert_int_equal(tally__edit_distance("kitten", "sitting", 5), 3);
	assert_int_equal(tally__edit_distance("", "abc", 5), 3);
	assert_true(tally__edit_distance("aaaaaaaaaa", "b", 2) > 2);
}

/* ---- enumeration ---- */

struct seen {
	int n, sw_cs, pmu_memloads, tp_switch, raw, scale_files, order_bad, pfm, tool;
	char tools[64];
	int last_rank;
};

static int kind_rank(const char *kind)
{
	static const char *const order[] = {
		"hardware", "software", "tool", "cache", "pmu", "raw", "breakpoint", "uprobe",
		"tracepoint", "pfm",
	};

	for (int i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++)
		if (!strcmp(order[i], kind))
			return i;
	return -1;
}

static int seen_cb(const char *kind, const char *name, const char *desc, void *ctx)
{
	struct seen *s = ctx;
	int r = kind_rank(kind);

	assert_true(r >= 0);
	assert_non_null(desc);
	if (r < s->last_rank)
		s->order_bad++;
	s->last_rank = r;
	s->n++;
	if (!strcmp(kind, "software") && !strcmp(name, "context-switches OR cs"))
		s->sw_cs++;
	if (!strcmp(kind, "pmu") && !strcmp(name, "cpu/mem-loads/")) {
		s->pmu_memloads++;
		assert_non_null(strstr(desc, "ldlat=3"));
	}
	if (!strcmp(kind, "tracepoint") && !strcmp(name, "sched:sched_switch"))
		s->tp_switch++;
	if (!strcmp(kind, "raw") && !strcmp(name, "rNNN"))
		s->raw++;
	if (strstr(name, ".scale") || strstr(name, ".unit"))
		s->scale_files++;
	if (!strcmp(kind, "pfm"))
		s->pfm++;
	if (!strcmp(kind, "tool")) {
		size_t l = strlen(s->tools);

		s->tool++;
		snprintf(s->tools + l, sizeof(s->tools) - l, "%s%s", l ? "," : "", name);
		assert_true(desc[0] != '\0');
	}
	return 0;
}

static int stop_cb(const char *kind, const char *name, const char *desc, void *ctx)
{
	(*(int *)ctx)++;
	return 7;
}

static void test_foreach(void **state)
{
	struct seen s = { 0 };
	int calls = 0;

	assert_int_equal(tally_events__foreach(&fake, seen_cb, &s), 0);
	assert_int_equal(s.sw_cs, 1);
	assert_int_equal(s.pmu_memloads, 1);
	assert_int_equal(s.tp_switch, 1);
	assert_int_equal(s.raw, 1);
	assert_int_equal(s.scale_files, 0);
	assert_int_equal(s.order_bad, 0);
	assert_int_equal(s.pfm, 0);
	/* perf list's "Tool event" lines, in its order, right after software */
	assert_int_equal(s.tool, 3);
	assert_string_equal(s.tools, "duration_time,user_time,system_time");
	/* 12 software, 14 fake sysfs aliases, 7 fake tracepoints at least */
	assert_true(s.n >= 12 + 14 + 7);
	assert_int_equal(tally_events__foreach(&fake, stop_cb, &calls), 7);
	assert_int_equal(calls, 1);
	assert_int_equal(tally_events__foreach(&fake, NULL, NULL), -EINVAL);
}

static void test_intern(void **state)
{
	const char *a = tally__intern("/usr/bin/true");
	const char *b = tally__intern("/usr/bin/true");
	const char *c = tally__intern("/usr/bin/false");
	char buf[32];

	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_string_equal(c, "/usr/bin/false");
	/* a copy: later changes to the source do not show */
	snprintf(buf, sizeof(buf), "xyz");
	a = tally__intern(buf);
	buf[0] = 'q';
	assert_string_equal(a, "xyz");
	assert_null(tally__intern(NULL));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbolic),
		cmocka_unit_test(test_tool_events),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_list),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_symbolic_terms),
		cmocka_unit_test(test_callgraph_terms),
		cmocka_unit_test(test_stat_terms),
		cmocka_unit_test(test_tracepoint_terms),
		cmocka_unit_test(test_breakpoint_mods),
		cmocka_unit_test(test_named_group),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_group_numbers_append),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_pmu_format),
		cmocka_unit_test(test_pmu_aliases),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_hybrid),
		cmocka_unit_test(test_biglittle),
		cmocka_unit_test(test_format_spec),
		cmocka_unit_test(test_tracepoints_fake),
		cmocka_unit_test(test_tracepoints_real),
		cmocka_unit_test(test_tracepoints_no_tracefs),
		cmocka_unit_test(test_breakpoints),
		cmocka_unit_test(test_uprobes),
		cmocka_unit_test(test_uprobe_real_type),
		cmocka_unit_test(test_pfm),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_window),
		cmocka_unit_test(test_no_core_pmu),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_long_spec),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_foreach),
		cmocka_unit_test(test_intern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
