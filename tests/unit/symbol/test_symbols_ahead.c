// SPDX-License-Identifier: MIT
/*
 * Symbol tables read ahead (tally_symbols__preload_file): the files a
 * recording's build-id table names (tally_data_reader__build_id_path)
 * loaded on a helper thread while the kernel's symbols are read, so a
 * first run's lookups find them loaded. The table is the one a lookup
 * alone would load; names that are no file's start no helper; a lookup
 * before the helper gets there, a trim and a close while it works are
 * all safe.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include <tally/symbols.h>
#include "symbols_internal.h"
#include "dso_internal.h"
#include "symbols_state.h"

static const char *libc_path(void)
{
	static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
					     "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], R_OK))
			return paths[i];
	return NULL;
}

/* no symbol cache: each load reads the file */
static int setup(void **state)
{
	(void)state;
	setenv("TALLY_SYMTAB_CACHE", "0", 1);
	return 0;
}

static void same_table(const struct tally_dso *a, const struct tally_dso *b)
{
	assert_int_equal(a->status, b->status);
	assert_int_equal(a->nr_syms, b->nr_syms);
	assert_true(a->nr_syms > 100);
	assert_string_equal(a->symsrc, b->symsrc);
	for (size_t i = 0; i < a->nr_syms; i++) {
		assert_int_equal(a->syms[i].start, b->syms[i].start);
		assert_int_equal(a->syms[i].end, b->syms[i].end);
		assert_string_equal(a->syms[i].name, b->syms[i].name);
	}
}

static void test_preloaded_is_the_lookups_table(void **state)
{
	const char *libc = libc_path();
	struct tally_symbols *ahead, *plain;
	struct tally_dso *a, *b;

	(void)state;
	if (!libc)
		skip();
	ahead = tally_symbols__new(NULL);
	plain = tally_symbols__new(NULL);
	assert_int_equal(tally_symbols__preload_file(ahead, libc), 0);
	/* on a thread of its own, started by the first file */
	assert_true(ahead->ahead.running);
	assert_int_equal(tally_symbols__preload_file(ahead, libc), 0);	/* known: once */
	assert_int_equal(ahead->ahead.n, 1);
	a = tally_symbols__dso_path(ahead, libc);
	b = tally_symbols__dso_path(plain, libc);
	assert_non_null(a);
	assert_non_null(b);
	same_table(a, b);
	assert_int_equal(a->ahead, 0);	/* taken: the lookup's from now on */
	/* its bytes counted as a lookup's load counts them */
	assert_int_equal(a->bytes, b->bytes);
	tally_symbols__free(ahead);
	tally_symbols__free(plain);
}

static void test_not_a_file(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);

	(void)state;
	assert_int_equal(tally_symbols__preload_file(NULL, "/x"), -EINVAL);
	assert_int_equal(tally_symbols__preload_file(s, NULL), -EINVAL);
	assert_int_equal(tally_symbols__preload_file(s, "[kernel.kallsyms]"), 0);
	assert_int_equal(tally_symbols__preload_file(s, "[vdso]"), 0);
	assert_int_equal(tally_symbols__preload_file(s, "//anon"), 0);
	assert_int_equal(tally_symbols__preload_file(s, "/dev/zero (deleted)"), 0);
	assert_int_equal(tally_symbols__preload_file(s, "relative/libx.so"), 0);
	assert_false(s->ahead.running);
	/* a file that is not there: its status, as a lookup's */
	assert_int_equal(tally_symbols__preload_file(s, "/nonexistent/tally-ahead.so"), 0);
	assert_int_equal(tally_symbols__dso_path(s, "/nonexistent/tally-ahead.so")->status,
			 TALLY_DSO_MISSING);
	tally_symbols__free(s);
}

/* Closed and trimmed while the helper has files queued: each left whole, no leak (ASan) */
static void test_close_and_trim_while_queued(void **state)
{
	const char *libc = libc_path();
	struct tally_symbols *s;
	struct tally_dso *d;

	(void)state;
	if (!libc)
		skip();
	s = tally_symbols__new(NULL);
	assert_int_equal(tally_symbols__preload_file(s, libc), 0);
	assert_int_equal(tally_symbols__preload_file(s, "/nonexistent/a.so"), 0);
	tally_symbols__free(s);

	s = tally_symbols__new(NULL);
	assert_int_equal(tally_symbols__set_cache_size(s, 1), 0);
	assert_int_equal(tally_symbols__preload_file(s, libc), 0);
	tally_symbols__trim(s);		/* stops the helper: what it had not begun stays queued */
	assert_false(s->ahead.running);
	d = tally_symbols__dso_path(s, libc);
	assert_non_null(d);
	assert_true(d->nr_syms > 100);
	assert_int_equal(d->ahead, 0);
	/* queued again after a trim: a new helper */
	assert_int_equal(tally_symbols__preload_file(s, "/nonexistent/b.so"), 0);
	assert_true(s->ahead.running);
	tally_symbols__free(s);
}

/* every queued file loaded by the helper (no lookup took one first) */
static void wait_helper(struct tally_symbols *s)
{
	pthread_mutex_lock(&s->ahead.mu);
	for (;;) {
		size_t done = 0;

		for (size_t i = 0; i < s->ahead.n; i++)
			done += s->ahead.q[i]->ahead == 3;	/* AHEAD_DONE */
		if (done == s->ahead.n)
			break;
		pthread_cond_wait(&s->ahead.cv, &s->ahead.mu);
	}
	pthread_mutex_unlock(&s->ahead.mu);
}

/*
 * Queued while held, the helper starts at the release and takes the
 * largest file first (a compiler's table is the one worth starting
 * early), whatever the order the recording names them in.
 */
static void test_largest_first(void **state)
{
	const char *libc = libc_path(), *small = "/usr/bin/true";
	struct tally_symbols *s;
	struct tally_dso *big;

	(void)state;
	if (!libc || access(small, R_OK))
		skip();
	s = tally_symbols__new(NULL);
	tally__symbols_ahead_hold(s, true);
	assert_int_equal(tally_symbols__preload_file(s, small), 0);
	assert_int_equal(tally_symbols__preload_file(s, "/nonexistent/tally-ahead-c.so"), 0);
	assert_int_equal(tally_symbols__preload_file(s, libc), 0);
	assert_false(s->ahead.running);	/* held: nothing begun */
	assert_int_equal(s->ahead.n, 3);
	tally__symbols_ahead_hold(s, false);
	assert_true(s->ahead.running);
	/* all three loaded by the helper (no lookup took one), then its order */
	wait_helper(s);
	big = s->ahead.q[0];
	assert_string_equal(big->name, libc);
	assert_string_equal(s->ahead.q[1]->name, small);
	/* each the lookup's table as usual */
	assert_ptr_equal(tally_symbols__dso_path(s, libc), big);
	assert_true(big->nr_syms > 100);
	assert_true(tally_symbols__dso_path(s, small)->nr_syms > 0 ||
		    tally_symbols__dso_path(s, small)->status != TALLY_DSO_OK);
	tally_symbols__free(s);

	/* released with nothing queued, or held twice: no helper */
	s = tally_symbols__new(NULL);
	tally__symbols_ahead_hold(s, true);
	tally__symbols_ahead_hold(s, true);
	tally__symbols_ahead_hold(s, false);
	assert_false(s->ahead.running);
	tally__symbols_ahead_hold(NULL, true);
	tally_symbols__free(s);
}

/* dir's one symtab3-* file (the symbol cache's), read whole into *len bytes */
static char *cache_file(const char *dir, size_t *len)
{
	char cmd[512], path[600];
	FILE *p, *f;
	char *buf;

	snprintf(cmd, sizeof(cmd), "ls %s/tally/symtab3-* 2>/dev/null", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(path, sizeof(path), p));
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(*len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/*
 * A table the symbol cache keeps, read ahead: the reader gets it before
 * the cache's file is made (every name demangled for the file: 30 ms of a
 * compiler's, on the reader's way when done first), so its names are
 * still demangled at their lookups; the file the helper writes after is
 * the one a lookup's own load writes.
 */
static void test_cache_written_after_handover(void **state)
{
	const char *lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6";
	char ahead_dir[] = "/tmp/test_symbols_ahead.cacheA.XXXXXX";
	char plain_dir[] = "/tmp/test_symbols_ahead.cacheB.XXXXXX";
	struct tally_symbols *s;
	struct tally_dso *d;
	size_t la, lb;
	char *a, *b, cmd[256];

	(void)state;
	if (access(lib, R_OK))
		skip();
	assert_non_null(mkdtemp(ahead_dir));
	assert_non_null(mkdtemp(plain_dir));
	unsetenv("TALLY_SYMTAB_CACHE");
	setenv("XDG_CACHE_HOME", ahead_dir, 1);
	s = tally_symbols__new(NULL);
	assert_int_equal(tally_symbols__preload_file(s, lib), 0);
	wait_helper(s);		/* the helper's load, not the lookup's */
	d = tally_symbols__dso_path(s, lib);
	assert_non_null(d);
	assert_true(d->nr_syms >= 1000);	/* one the cache keeps */
	assert_true(d->demangle_lazy);		/* handed over as loaded */
	tally_symbols__free(s);			/* joins the helper: its file written */

	setenv("XDG_CACHE_HOME", plain_dir, 1);
	s = tally_symbols__new(NULL);
	d = tally_symbols__dso_path(s, lib);
	assert_non_null(d);
	assert_false(d->demangle_lazy);		/* a lookup's load demangles for the file */
	tally_symbols__free(s);

	a = cache_file(ahead_dir, &la);
	b = cache_file(plain_dir, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", ahead_dir, plain_dir);
	assert_int_equal(system(cmd), 0);
	unsetenv("XDG_CACHE_HOME");
	setenv("TALLY_SYMTAB_CACHE", "0", 1);
}

/* The build-id table's paths, in order, NULL past its end */
static void test_build_id_paths(void **state)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 10, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	};
	char path[] = "/tmp/test_symbols_ahead.XXXXXX";
	uint8_t id[20];
	uint64_t eid = 1;
	struct tally_data_writer *w;
	struct tally_data_reader *r;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	memset(id, 0x11, sizeof(id));
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &eid, 1, "cpu-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, id,
							 sizeof(id), "/usr/bin/one"), 0);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, id,
							 sizeof(id), "[kernel.kallsyms]"), 0);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, id,
							 sizeof(id), "/lib/two.so"), 0);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
	r = tally_data_reader__open(path);
	unlink(path);
	assert_non_null(r);
	assert_string_equal(tally_data_reader__build_id_path(r, 0), "/usr/bin/one");
	assert_string_equal(tally_data_reader__build_id_path(r, 1), "[kernel.kallsyms]");
	assert_string_equal(tally_data_reader__build_id_path(r, 2), "/lib/two.so");
	assert_null(tally_data_reader__build_id_path(r, 3));
	assert_null(tally_data_reader__build_id_path(NULL, 0));
	tally_data_reader__close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preloaded_is_the_lookups_table),
		cmocka_unit_test(test_not_a_file),
		cmocka_unit_test(test_close_and_trim_while_queued),
		cmocka_unit_test(test_largest_first),
		cmocka_unit_test(test_cache_written_after_handover),
		cmocka_unit_test(test_build_id_paths),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
