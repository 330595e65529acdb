// SPDX-License-Identifier: MIT
/*
 * Names as perf 6.1 prints them: C++ without parameters, return type or
 * clone suffix (libiberty's DMGL_NO_OPTS; `c++filt -p` prints the same),
 * Rust legacy without its hash; and perf's rules for aliases and sizes,
 * on kallsyms text (no ELF needed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/symbols.h>

static void check(const char *mangled, const char *want)
{
	char *got = tally_demangle(mangled);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_cxx(void **state)
{
	check("_ZN3geo6detail3AccIdE3addEd", "geo::detail::Acc<double>::add");
	/* A template function's return type goes too. */
	check("_ZN3geo3runIdEET_l", "geo::run<double>");
	check("_ZN12_GLOBAL__N_18anon_hotEl", "(anonymous namespace)::anon_hot");
	check("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
	check("_ZNSt6vectorIiSaIiEE9push_backERKi",
	      "std::vector<int, std::allocator<int> >::push_back");
	check("_ZN3FooltERKS_", "Foo::operator<");
	check("_ZN3FoolsEi", "Foo::operator<<");
	check("_ZN3FoocviEv", "Foo::operator int");
	/* a template operator: the space before its arguments is no return type's (perf -F) */
	check("_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St5_Setw",
	      "std::operator<< <char, std::char_traits<char> >");
	check("_ZNK3Foo3getEv", "Foo::get");
	/* GCC clones: libiberty reads the suffix only with DMGL_PARAMS. */
	check("_ZN3geo3runIdEET_l.cold", "geo::run<double>");
	check("_ZL9sum_flagsPKiiil.constprop.0", "sum_flags");
	check("_ZN6shapes7Spinner4turnEl.isra.0", "shapes::Spinner::turn");
	check("_ZN1A1fIiEEvv.isra.0.cold", "A::f<int>");
	check("_ZZ4mainENKUliE_clEi.constprop.0", "main::{lambda(int)#1}::operator()");
	check("_ZL3foo.part.0", "foo");		/* __cxa_demangle refuses it whole */
	/* Special names print the encoding they wrap whole, as libiberty. */
	check("_ZThn16_N6shapes7Spinner4spinEl", "non-virtual thunk to shapes::Spinner::spin(long)");
	check("_ZTv0_n32_N6shapes6Roller4rollEl", "virtual thunk to shapes::Roller::roll(long)");
	check("_ZTv0_n24_N6shapes6RollerD1Ev", "virtual thunk to shapes::Roller::~Roller()");
	check("_ZThn16_N1A1fIiEEvv", "non-virtual thunk to void A::f<int>()");
	check("_ZTch0_h16_N1B1fEv", "covariant return thunk to B::f()");
	check("_ZGTtN1A1fEv", "transaction clone for A::f()");
	/* A local name: the enclosing function's signature stays. */
	check("_ZZ3fooiE1x", "foo(int)::x");
	check("_ZZN1A1fEvE1x_0", "A::f()::x");
	check("_ZZ3fooiENKUlvE_clEv", "foo(int)::{lambda()#1}::operator()");
	check("_ZNKR3Foo3getEv", "Foo::get");
	check("_Z3fooPFviE", "foo");
	check("main", NULL);
	check("_Z", NULL);
}

static void test_rust(void **state)
{
	check("_ZN4core3fmt9Formatter3pad17h0123456789abcdefE", "core::fmt::Formatter::pad");
	check("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0123456789abcdefE",
	      "std::rt::lang_start::{{closure}}");
	check("_ZN59_$LT$core..fmt..Arguments$u20$as$u20$core..fmt..Display$GT$3fmt17h0123456789abcdefE",
	      "<core::fmt::Arguments as core::fmt::Display>::fmt");
	/* v0 names stay as they are: perf 6.1 does not decode them either. */
	check("_RNvCs1234_7mycrate3foo", NULL);
}

/* Aliases and sizes on kallsyms text: perf's fixup_end, then fixup_duplicate. */
static void test_alias_rules(void **state)
{
	char ks[] = "/tmp/tally-test-ks-XXXXXX";
	int fd = mkstemp(ks);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fprintf(f,
		/* All unsized: the last of the group gets the room, so it wins. */
		"ffffffff81000000 T _text\n"
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T alias_last\n"
		/* Unsized, unsized, unsized again: the last one is global. */
		"ffffffff81000100 W weak_one\n"
		"ffffffff81000100 t local_one\n"
		"ffffffff81000100 T __global_one\n"
		"ffffffff81000200 T next_fn\n"
		"ffffffff81001000 T _etext\n"
		"ffffffffc0000000 t mod_fn\t[kmod]\n"
		"ffffffffc0000040 t mod_fn2\t[kmod]\n");
	fclose(f);
	TALLY_OPTS(tally_symbols_opts, o, .kallsyms = ks);
	struct tally_symbols *s = tally_symbols__new(&o);
	struct tally_map km = { .filename = "[kernel.kallsyms]_text", .kernel = true };
	struct tally_map mm = { .filename = "[kmod]", .kernel = true };
	struct tally_dso *d = tally_symbols__dso(s, &km, -1);
	const struct tally_symbol *sym;

	assert_non_null(d);
	assert_int_equal(tally_dso__status(d), TALLY_DSO_OK);
	sym = tally_dso__find_symbol(d, 0xffffffff81000010);
	assert_non_null(sym);
	assert_string_equal(sym->name, "alias_last");
	assert_int_equal(sym->end, 0xffffffff81000100);
	sym = tally_dso__find_symbol(d, 0xffffffff81000180);
	assert_string_equal(sym->name, "__global_one");
	sym = tally_dso__find_symbol(d, 0xffffffff81000fff);
	assert_string_equal(sym->name, "next_fn");
	/* Module symbols live in the module's DSO, the last one a page long. */
	assert_null(tally_dso__find_symbol(d, 0xffffffffc0000000));
	d = tally_symbols__dso(s, &mm, -1);
	assert_string_equal(tally_dso__name(d), "[kmod]");
	assert_string_equal(tally_dso__find_symbol(d, 0xffffffffc0000010)->name, "mod_fn");
	sym = tally_dso__find_symbol(d, 0xffffffffc0000fff);
	assert_non_null(sym);
	assert_string_equal(sym->name, "mod_fn2");
	assert_int_equal(sym->end, 0xffffffffc0002000);	/* roundup(start, 4096) + 4096 */
	assert_null(tally_dso__find_symbol(d, 0xffffffffc0002000));
	tally_symbols__free(s);
	unlink(ks);
}

/* JIT map rules: sized symbols first among aliases, weak never here. */
static void test_jit_aliases(void **state)
{
	char dir[] = "/tmp/tally-test-jit-XXXXXX";
	char path[64];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-7.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "1000 0 unsized_first\n1000 20 sized\n1000 20 sized_longer_name\n"
		   "2000 10 _under\n2000 10 plain\n");
	fclose(f);
	TALLY_OPTS(tally_symbols_opts, o, .jit_dir = dir);
	struct tally_symbols *s = tally_symbols__new(&o);
	struct tally_map am = { .filename = "//anon", .anon = true, .start = 0, .end = 1 << 20 };
	struct tally_dso *d = tally_symbols__dso(s, &am, 7);

	assert_non_null(d);
	assert_string_equal(tally_dso__find_symbol(d, 0x1010)->name, "sized_longer_name");
	assert_string_equal(tally_dso__find_symbol(d, 0x2000)->name, "plain");
	assert_null(tally_dso__find_symbol(d, 0x1020));
	tally_symbols__free(s);
	unlink(path);
	rmdir(dir);
}

/*
 * Names are demangled at their first lookup (not at load): a found symbol
 * is demangled every time it is found, the same string each time, and
 * with no_demangle never.
 */
static void test_demangled_at_lookup(void **state)
{
	char dir[] = "/tmp/tally-test-jitdm-XXXXXX";
	char path[64];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-8.map", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "1000 20 _ZN6shapes7Spinner4turnEl\n2000 10 _ZN2ns3barEi\n3000 10 plain\n");
	fclose(f);
	for (int raw = 0; raw < 2; raw++) {
		TALLY_OPTS(tally_symbols_opts, o, .jit_dir = dir, .no_demangle = raw);
		struct tally_symbols *s = tally_symbols__new(&o);
		struct tally_map am = { .filename = "//anon", .anon = true, .start = 0, .end = 1 << 20 };
		struct tally_dso *d = tally_symbols__dso(s, &am, 8);
		const struct tally_symbol *a, *b;

		assert_non_null(d);
		a = tally_dso__find_symbol(d, 0x1010);
		assert_string_equal(a->name, raw ? "_ZN6shapes7Spinner4turnEl" : "shapes::Spinner::turn");
		b = tally_dso__find_symbol(d, 0x1000);
		assert_ptr_equal(a, b);
		assert_ptr_equal(a->name, b->name);	/* demangled once */
		assert_string_equal(tally_dso__find_symbol(d, 0x2004)->name,
				    raw ? "_ZN2ns3barEi" : "ns::bar");
		assert_string_equal(tally_dso__find_symbol(d, 0x3000)->name, "plain");
		tally_symbols__free(s);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_alias_rules),
		cmocka_unit_test(test_jit_aliases),
		cmocka_unit_test(test_demangled_at_lookup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
