// SPDX-License-Identifier: MIT
/*
 * A DSO's symbols as loaded from ELF (the symbol cache off): in address
 * order, one per address, their names in one pool, and its PLT entries'
 * names demangled at their first lookup, not at the load (libstdc++'s
 * 800 mangled entries cost 900 demangles a report). Kept in the cache,
 * the names are demangled once, as those lookups would have them.
 */
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
#include "dso_internal.h"

static const char *const libstdcxx[] = {
	"/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/lib/x86_64-linux-gnu/libstdc++.so.6",
};

static struct tally_dso *load(struct tally_symbols *s, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!access(paths[i], R_OK))
			return tally_symbols__dso_path(s, paths[i]);
	return NULL;
}

static bool is_plt_mangled(const char *name)
{
	size_t n = strlen(name);

	return !strncmp(name, "_Z", 2) && n > 4 && !strcmp(name + n - 4, "@plt");
}

static void test_plt_demangled_at_lookup(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_dso *d = load(s, libstdcxx, 2);
	const struct tally_symbol *sym;
	size_t raw = 0, first = 0;
	char *dm, *want, prefix[512];

	(void)state;
	if (!d) {
		tally_symbols__free(s);
		skip();	/* no libstdc++ here */
	}
	for (size_t i = 0; i < d->nr_syms; i++)
		if (is_plt_mangled(d->syms[i].name) && !raw++)
			first = i;
	/* loaded as the file names them: none demangled yet */
	assert_true(raw > 100);
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(d->syms[first].name) - 4),
		 d->syms[first].name);
	sym = tally_dso__find_symbol(d, d->syms[first].start);
	assert_non_null(sym);
	dm = tally_demangle(prefix);
	assert_non_null(dm);
	assert_int_not_equal(asprintf(&want, "%s@plt", dm), -1);
	/* the lookup's name: the entry's function demangled, "@plt" after it */
	assert_string_equal(sym->name, want);
	free(want);
	free(dm);
	tally_symbols__free(s);
}

/* the names in one pool the DSO owns, not an allocation each (150k in node) */
static void test_names_pooled(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_dso *d = load(s, libstdcxx, 2);
	size_t pooled = 0;

	(void)state;
	if (!d) {
		tally_symbols__free(s);
		skip();
	}
	for (size_t i = 0; i < d->nr_syms; i++)
		pooled += tally__dso_pooled(d, d->syms[i].name);
	assert_int_equal(pooled, d->nr_syms);
	/* a lookup's demangled name is its own; the pool's stay */
	for (size_t i = 0; i < d->nr_syms; i++)
		assert_non_null(tally_dso__find_symbol(d, d->syms[i].start));
	assert_true(d->nr_syms > 1000);
	tally_symbols__free(s);
}

/* start order, one symbol per address: the sort and the alias choice */
static void test_sorted_unique(void **state)
{
	static const char *const libc[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
	};
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_dso *d;

	(void)state;
	for (int k = 0; k < 2; k++) {
		d = k ? load(s, libstdcxx, 2) : load(s, libc, 2);
		if (!d)
			continue;
		assert_true(d->nr_syms > 100);
		for (size_t i = 1; i < d->nr_syms; i++)
			assert_true(d->syms[i - 1].start < d->syms[i].start);
	}
	tally_symbols__free(s);
}

/*
 * The cache's table: written demangled by the load that made it, read
 * back demangled, every name the one a lookup of the ELF load gives.
 */
static void test_cache_demangled(void **state)
{
	char dir[] = "/tmp/tally-dso-load.XXXXXX", cmd[64];
	struct tally_symbols *lazy, *made, *cached;
	struct tally_dso *dl, *dm, *dc;
	size_t mangled = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("XDG_CACHE_HOME", dir, 1);
	lazy = tally_symbols__new(NULL);
	dl = load(lazy, libstdcxx, 2);
	unsetenv("TALLY_SYMTAB_CACHE");
	made = tally_symbols__new(NULL);
	dm = load(made, libstdcxx, 2);
	cached = tally_symbols__new(NULL);
	dc = load(cached, libstdcxx, 2);
	setenv("TALLY_SYMTAB_CACHE", "0", 1);
	if (!dl) {
		tally_symbols__free(lazy);
		tally_symbols__free(made);
		tally_symbols__free(cached);
		skip();
	}
	assert_non_null(dm);
	assert_non_null(dc);
	assert_int_equal(dl->nr_syms, dc->nr_syms);
	assert_int_equal(dm->nr_syms, dc->nr_syms);
	for (size_t i = 0; i < dl->nr_syms; i++) {
		const char *raw = dl->syms[i].name;

		mangled += !strncmp(raw, "_Z", 2);
		/* the ELF load's, once looked up; the cache's as read */
		assert_string_equal(tally_dso__find_symbol(dl, dl->syms[i].start)->name,
				    dc->syms[i].name);
		assert_string_equal(dm->syms[i].name, dc->syms[i].name);
	}
	assert_true(mangled > 1000);
	tally_symbols__free(lazy);
	tally_symbols__free(made);
	tally_symbols__free(cached);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	unsetenv("XDG_CACHE_HOME");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plt_demangled_at_lookup),
		cmocka_unit_test(test_names_pooled),
		cmocka_unit_test(test_sorted_unique),
		cmocka_unit_test(test_cache_demangled),
	};

	/* the ELF load's own ways: not a table the cache kept */
	setenv("TALLY_SYMTAB_CACHE", "0", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
