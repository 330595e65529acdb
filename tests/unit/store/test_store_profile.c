// SPDX-License-Identifier: MIT
/*
 * A store's rows as a session (lib/store/profile.c), no server: rows and
 * frames made here, written as the profile's perf.data, opened and run
 * into a histogram. The frames resolve to their stored names (user
 * frames by DSO and file offset, kernel frames by name whatever their
 * address), a row counts its samples, two hosts' same pid stay two
 * threads with their own names, two builds of one path keep their own
 * functions, a stored source line is the srcline key's. And
 * tally_store__parse_time's forms.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>
#include <tally/store.h>
#include "read_internal.h"

static struct tally_store_profile *profile(void)
{
	struct tally_store_profile *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->fd = -1;
	return p;
}

static void frame(struct tally_store_profile *p, char level, const char *func, uint64_t symoff,
		  const char *dso, const char *bid, uint64_t offset)
{
	assert_int_equal(tally__profile_grow((void **)&p->frames, &p->cap_frames, p->nframes + 1,
					     sizeof(*p->frames)), 0);
	p->frames[p->nframes++] = (struct store_frame){
		.level = level, .func = tally__profile_str(p, func), .symoff = symoff,
		.dso = tally__profile_str(p, dso), .build_id = tally__profile_str(p, bid),
		.offset = offset,
	};
}

/* a stack of the frames added since first */
static void stack(struct tally_store_profile *p, uint64_t id, size_t first)
{
	assert_int_equal(tally__profile_grow((void **)&p->stacks, &p->cap_stacks, p->nstacks + 1,
					     sizeof(*p->stacks)), 0);
	p->stacks[p->nstacks++] = (struct store_stack){ .id = id, .first = first,
							.n = p->nframes - first };
}

static void row(struct tally_store_profile *p, const char *host, uint32_t pid, const char *comm,
		uint64_t stack_id, uint64_t value)
{
	assert_int_equal(tally__profile_grow((void **)&p->rows, &p->cap_rows, p->nrows + 1,
					     sizeof(*p->rows)), 0);
	p->rows[p->nrows++] = (struct store_row){
		.host = tally__profile_str(p, host), .comm = tally__profile_str(p, comm),
		.thread = tally__profile_str(p, comm), .event = tally__profile_str(p, "cpu-clock"),
		.pid = pid, .tid = pid, .stack_id = stack_id, .value = value,
		.period = value * 1000, .time = 1700000000,
	};
	p->samples += value;
}

struct run {
	struct tally_hist *h;
	const struct tally_store_profile *p;
};

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct run *r = ctx;

	return tally_hist__add_count(r->h, smp, tally_store_profile__count(r->p, smp));
}

/* The rows, keyed as asked, as "comm pid dso sym samples" lines. */
static char *rows_of(struct tally_store_profile *p, const enum tally_hist_key *keys, int n)
{
	struct run r = { .p = p };
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r);
	TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = n);
	struct tally_session *ss;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(tally__profile_write(p), 0);
	ss = tally_store_profile__session(p, &so);
	assert_non_null(ss);
	assert_non_null(r.h = tally_hist__new(ss, &ho));
	assert_int_equal(tally_session__run(ss), 0);
	assert_int_equal(tally_hist__resort(r.h), 0);
	for (size_t i = 0; i < tally_hist__nr_rows(r.h, 0); i++) {
		TALLY_OPTS(tally_hist_row, v);

		assert_int_equal(tally_hist__row(r.h, 0, i, &v), 0);
		fprintf(out, "%s %d %s %s %llu\n", v.comm, v.pid, v.dso ? v.dso : "-",
			v.sym ? v.sym : "-", (unsigned long long)v.samples);
	}
	fclose(out);
	tally_hist__free(r.h);
	tally_session__close(ss);
	return text;
}

static void test_names_and_counts(void **state)
{
	struct tally_store_profile *p = profile();
	static const enum tally_hist_key keys[] = { TALLY_HIST_COMM, TALLY_HIST_PID,
						    TALLY_HIST_DSO, TALLY_HIST_SYM };
	char *got;

	(void)state;
	/* 1: app's work (build aa) under main; 2: the same pid on h2, another program */
	frame(p, '.', "work", 0x10, "/opt/app", "aa", 0x1110);
	frame(p, '.', "main", 0x20, "/opt/app", "aa", 0x1220);
	stack(p, 1, 0);
	/* 2: the kernel at another address on h2 (KASLR), the same function name */
	frame(p, 'k', "do_syscall_64", 0x30, "[kernel.kallsyms]", "", 0xffffffff81a00030);
	frame(p, '.', "main", 0x8, "/opt/app", "bb", 0x2008);	/* another build of app */
	stack(p, 2, 2);
	frame(p, 'k', "do_syscall_64", 0x44, "[kernel.kallsyms]", "", 0xffffffff9b200044);
	stack(p, 3, 4);
	frame(p, '.', "", 0, "", "", 0x7f0000001234);		/* no map */
	stack(p, 4, 5);
	frame(p, '.', "main", 0x8, "/opt/app", "bb", 0x2008);	/* build bb's main, the leaf */
	stack(p, 5, 6);
	/* build aa at bb's main's offset, unnamed: aa's table has nothing there */
	frame(p, '.', "", 0, "/opt/app", "aa", 0x2008);
	stack(p, 6, 7);
	/* a module's function: its own DSO, shown as report -i shows the map's file */
	frame(p, 'k', "ext4_writepages", 0x10, "/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko", "",
	      0xffffffffc0801010);
	stack(p, 7, 8);
	tally__profile_sort_stacks(p);
	row(p, "h1", 100, "app", 1, 7);
	row(p, "h2", 100, "other", 2, 3);
	row(p, "h1", 100, "app", 3, 2);
	row(p, "h2", 100, "other", 3, 4);
	row(p, "h1", 100, "app", 4, 1);
	row(p, "h2", 100, "other", 5, 5);
	row(p, "h1", 100, "app", 6, 6);
	row(p, "h1", 100, "app", 7, 8);
	got = rows_of(p, keys, 4);
	/*
	 * h2's pid 100 is another process: a number of its own, its own
	 * name; the kernel's function one row from both addresses; each
	 * build its own functions
	 */
	assert_string_equal(got,
			    "app 100 ext4.ko ext4_writepages 8\n"
			    "app 100 app work 7\n"
			    "other 1073741824 [kernel.kallsyms] do_syscall_64 7\n"
			    "app 100 app - 6\n"
			    "other 1073741824 app main 5\n"
			    "app 100 [kernel.kallsyms] do_syscall_64 2\n"
			    "app 100 - - 1\n");
	free(got);
	assert_int_equal(tally_store_profile__samples(p), 36);
	tally_store_profile__free(p);
}

static void test_merged(void **state)
{
	struct tally_store_profile *p = profile();
	static const enum tally_hist_key keys[] = { TALLY_HIST_COMM, TALLY_HIST_SYM };
	char *got;

	(void)state;
	p->merged = true;	/* rows per name: no host, no pid */
	frame(p, '.', "work", 0, "/opt/app", "aa", 0x1100);
	stack(p, 1, 0);
	row(p, "", 0, "app", 1, 5);
	row(p, "", 0, "sh", 1, 2);
	got = rows_of(p, keys, 2);
	/* a process per name, numbers of the profile's */
	assert_string_equal(got, "app 1073741824 app work 5\nsh 1073741825 app work 2\n");
	free(got);
	tally_store_profile__free(p);
}

static void test_srclines(void **state)
{
	struct tally_store_profile *p = profile();
	static const enum tally_hist_key keys[] = { TALLY_HIST_SRCLINE };
	struct tally_store_profile *q;
	char *got;

	(void)state;
	/* the leaf's stored line is the srcline key's; a frame without one says perf's ??:0 */
	frame(p, '.', "work", 0x10, "/opt/app", "aa", 0x1110);
	p->frames[p->nframes - 1].srcline = tally__profile_str(p, "src/app.c:42");
	stack(p, 1, 0);
	frame(p, '.', "main", 0x20, "/opt/app", "aa", 0x1220);
	stack(p, 2, 1);
	row(p, "h1", 100, "app", 1, 3);
	row(p, "h1", 100, "app", 2, 1);
	got = rows_of(p, keys, 1);
	assert_non_null(strstr(got, " work 3\n"));
	free(got);
	tally_store_profile__free(p);

	/* the same through the session's resolver: the srcline key's text */
	q = profile();
	frame(q, '.', "work", 0x10, "/opt/app", "aa", 0x1110);
	q->frames[q->nframes - 1].srcline = tally__profile_str(q, "src/app.c:42");
	stack(q, 1, 0);
	row(q, "h1", 100, "app", 1, 3);
	{
		struct run r = { .p = q };
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r, .srcline = true);
		TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = 1);
		TALLY_OPTS(tally_hist_row, v);
		struct tally_session *ss;

		assert_int_equal(tally__profile_write(q), 0);
		assert_non_null(ss = tally_store_profile__session(q, &so));
		assert_non_null(r.h = tally_hist__new(ss, &ho));
		assert_int_equal(tally_session__run(ss), 0);
		assert_int_equal(tally_hist__resort(r.h), 0);
		assert_int_equal(tally_hist__row(r.h, 0, 0, &v), 0);
		assert_string_equal(v.srcline, "app.c:42");
		tally_hist__free(r.h);
		tally_session__close(ss);
	}
	tally_store_profile__free(q);
}

static void test_parse_time(void **state)
{
	time_t t = 0, now = 1700000000;

	(void)state;
	assert_int_equal(tally_store__parse_time("1h", now, &t), 0);
	assert_int_equal(t, now - 3600);
	assert_int_equal(tally_store__parse_time("90s", now, &t), 0);
	assert_int_equal(t, now - 90);
	assert_int_equal(tally_store__parse_time("2d", now, &t), 0);
	assert_int_equal(t, now - 2 * 86400);
	assert_int_equal(tally_store__parse_time("15m", now, &t), 0);
	assert_int_equal(t, now - 900);
	assert_int_equal(tally_store__parse_time("2023-11-14 22:13:20", now, &t), 0);
	assert_int_equal(t, 1700000000);
	assert_int_equal(tally_store__parse_time("2023-11-14", now, &t), 0);
	assert_int_equal(t, 1699920000);
	assert_int_equal(tally_store__parse_time("@123", now, &t), 0);
	assert_int_equal(t, 123);
	assert_int_equal(tally_store__parse_time("1x", now, &t), -EINVAL);
	assert_int_equal(tally_store__parse_time("h", now, &t), -EINVAL);
	assert_int_equal(tally_store__parse_time("2023-11-14 25:00", now, &t), -EINVAL);
	assert_int_equal(tally_store__parse_time("", now, &t), -EINVAL);
	assert_int_equal(tally_store__parse_time("@", now, &t), -EINVAL);
	assert_int_equal(tally_store__parse_time("99999999999d", now, &t), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_counts),
		cmocka_unit_test(test_merged),
		cmocka_unit_test(test_srclines),
		cmocka_unit_test(test_parse_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
