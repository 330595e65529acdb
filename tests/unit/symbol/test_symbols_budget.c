// SPDX-License-Identifier: MIT
/*
 * The files' symbol tables under a budget (tally_symbols__set_cache_size,
 * tally_symbols__trim): a trim lets the least recently asked-for tables
 * go until the rest fit; a table let go is loaded again at its next ask
 * and answers every lookup as before (the same names at the same
 * addresses); without a budget nothing goes. Once from ELF (the symbol
 * cache off) and once through the on-disk symbol cache.
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
#include <tally/symbols.h>

static char dir[] = "/tmp/tally-symbudget-XXXXXX";

static const char *const files[] = {
	"/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
};
#define NF (sizeof(files) / sizeof(files[0]))
#define PROBES 400

/* What a table answers: probes at spread addresses, copied (the table's own strings go with it). */
struct answers {
	size_t nsyms;
	uint64_t addr[PROBES];
	char *name[PROBES];
	uint64_t start[PROBES];
};

static void take(struct tally_dso *d, struct answers *a)
{
	a->nsyms = tally_dso__nr_symbols(d);
	assert_true(a->nsyms > 100);
	for (int i = 0; i < PROBES; i++) {
		const struct tally_symbol *at = tally_dso__symbol_at(d, (size_t)i * a->nsyms / PROBES);
		const struct tally_symbol *s;

		assert_non_null(at);
		/* a few bytes into the function, as a sample's address is */
		a->addr[i] = at->start + (at->end > at->start + 3 ? 3 : 0);
		s = tally_dso__find_symbol(d, a->addr[i]);
		a->name[i] = s ? strdup(s->name) : NULL;
		a->start[i] = s ? s->start : 0;
	}
}

static void same(struct tally_dso *d, const struct answers *a)
{
	assert_int_equal(tally_dso__nr_symbols(d), a->nsyms);
	for (int i = 0; i < PROBES; i++) {
		const struct tally_symbol *s = tally_dso__find_symbol(d, a->addr[i]);

		if (!a->name[i]) {
			assert_null(s);
			continue;
		}
		assert_non_null(s);
		assert_string_equal(s->name, a->name[i]);
		assert_int_equal(s->start, a->start[i]);
	}
}

static void answers_free(struct answers *a)
{
	for (int i = 0; i < PROBES; i++)
		free(a->name[i]);
}

static void stats(struct tally_symbols *s, struct tally_symbols_cache_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	assert_int_equal(tally_symbols__cache_stats(s, st), 0);
}

static void evict_reload(bool disk_cache)
{
	static struct answers ans[NF];
	struct tally_symbols_cache_stats st;
	struct tally_symbols *s;
	struct tally_dso *d[NF];
	uint64_t total;

	if (disk_cache)
		unsetenv("TALLY_SYMTAB_CACHE");
	else
		setenv("TALLY_SYMTAB_CACHE", "0", 1);
	for (size_t i = 0; i < NF; i++)
		if (access(files[i], R_OK))
			skip();
	assert_non_null(s = tally_symbols__new(NULL));
	for (size_t i = 0; i < NF; i++) {
		assert_non_null(d[i] = tally_symbols__dso_path(s, files[i]));
		take(d[i], &ans[i]);
	}
	stats(s, &st);
	assert_int_equal(st.tables, NF);
	assert_int_equal(st.budget, 0);
	total = st.bytes;
	assert_true(total > 0);
	/* no budget: a trim keeps them all */
	assert_int_equal(tally_symbols__trim(s), 0);
	for (size_t i = 0; i < NF; i++)
		assert_int_equal(tally_dso__nr_symbols(d[i]), ans[i].nsyms);

	/*
	 * libm asked for since that trim, the others not: room for all but a
	 * byte lets one go, the least recently asked for (by name among
	 * equals: libc)
	 */
	assert_non_null(tally_symbols__dso_path(s, files[3]));
	assert_int_equal(tally_symbols__set_cache_size(s, (size_t)total - 1), 0);
	assert_int_equal(tally_symbols__trim(s), 1);
	stats(s, &st);
	assert_true(st.bytes <= st.budget);
	assert_int_equal(st.tables, NF - 1);
	assert_int_equal(st.evictions, 1);
	assert_int_equal(st.reloads, 0);
	assert_int_equal(tally_dso__nr_symbols(d[0]), 0);
	for (size_t i = 1; i < NF; i++)
		same(d[i], &ans[i]);

	/* asked for again: loaded again, the same answers */
	for (size_t i = 0; i < NF; i++) {
		struct tally_dso *again = tally_symbols__dso_path(s, files[i]);

		assert_ptr_equal(again, d[i]);
		same(again, &ans[i]);
	}
	stats(s, &st);
	assert_int_equal(st.reloads, 1);
	assert_int_equal(st.tables, NF);

	/* a budget of a byte: every table goes at a trim, every one comes back */
	assert_int_equal(tally_symbols__set_cache_size(s, 1), 0);
	assert_int_equal(tally_symbols__trim(s), NF);
	stats(s, &st);
	assert_int_equal(st.tables, 0);
	assert_int_equal(st.bytes, 0);
	for (size_t i = 0; i < NF; i++)
		same(tally_symbols__dso_path(s, files[i]), &ans[i]);
	/*
	 * trims without an ask: unloaded, then not asked for since the trim
	 * before, the DSOs are forgotten whole; asked for again, new ones
	 * answer the same
	 */
	stats(s, &st);
	total = st.dsos;
	for (int k = 0; k < 3; k++)
		tally_symbols__trim(s);
	stats(s, &st);
	assert_int_equal(st.tables, 0);
	assert_int_equal(st.dsos, total - NF);
	for (size_t i = 0; i < NF; i++) {
		same(tally_symbols__dso_path(s, files[i]), &ans[i]);
		answers_free(&ans[i]);
	}
	tally_symbols__free(s);
}

static void test_from_elf(void **state)
{
	(void)state;
	evict_reload(false);
}

static void test_from_disk_cache(void **state)
{
	(void)state;
	evict_reload(true);
}

static void test_bad_args(void **state)
{
	struct tally_symbols_cache_stats st = { .sz = 1 };

	(void)state;
	assert_int_equal(tally_symbols__set_cache_size(NULL, 1), -EINVAL);
	assert_int_equal(tally_symbols__trim(NULL), 0);
	assert_int_equal(tally_symbols__cache_stats(NULL, &st), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_elf),
		cmocka_unit_test(test_from_disk_cache),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
