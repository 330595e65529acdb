// SPDX-License-Identifier: MIT
/* probe_spec.c: perf probe's PROBEDEF and ARG syntax, and its errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "probe_internal.h"

static char err[512];

static void point_forms(void **state)
{
	struct probe_point pp;

	assert_int_equal(tally__probe_parse("grp:ev=parse@src/a.c:3", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.group, "grp");
	assert_string_equal(pp.event, "ev");
	assert_string_equal(pp.func, "parse");
	assert_string_equal(pp.file, "src/a.c");
	assert_true(pp.has_line);
	assert_int_equal(pp.line, 3);
	tally__probe_point_clear(&pp);

	assert_int_equal(tally__probe_parse("work+0x10", &pp, err, sizeof(err)), 0);
	assert_int_equal(pp.offset, 16);
	tally__probe_point_clear(&pp);

	assert_int_equal(tally__probe_parse("work%return $retval", &pp, err, sizeof(err)), 0);
	assert_true(pp.ret);
	assert_int_equal(pp.nr_args, 1);
	assert_string_equal(pp.args[0].var, "$retval");
	tally__probe_point_clear(&pp);

	/* a head with '.' or '/' is a file: SRC:ALN, SRC;PTN */
	assert_int_equal(tally__probe_parse("prog.c:42", &pp, err, sizeof(err)), 0);
	assert_null(pp.func);
	assert_string_equal(pp.file, "prog.c");
	assert_int_equal(pp.line, 42);
	tally__probe_point_clear(&pp);
	assert_int_equal(tally__probe_parse("prog.c;return*", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.lazy, "return*");
	tally__probe_point_clear(&pp);

	assert_int_equal(tally__probe_parse("sdt_app:tick", &pp, err, sizeof(err)), 0);
	assert_true(pp.sdt);
	assert_string_equal(pp.sdt_group, "sdt_app");
	assert_string_equal(pp.sdt_name, "tick");
	tally__probe_point_clear(&pp);
	assert_int_equal(tally__probe_parse("%app:tick", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.sdt_group, "sdt_app");
	tally__probe_point_clear(&pp);
}

static void args(void **state)
{
	struct probe_point pp;
	const struct probe_arg *a;

	assert_int_equal(tally__probe_parse("f s->in.hi buf[2] nm=name:string %di +8(%sp):u64",
					    &pp, err, sizeof(err)), 0);
	assert_int_equal(pp.nr_args, 5);
	a = &pp.args[0];
	assert_string_equal(a->var, "s");
	assert_int_equal(a->nr_fields, 2);
	assert_true(a->fields[0].ref);
	assert_string_equal(a->fields[0].name, "in");
	assert_false(a->fields[1].ref);
	assert_string_equal(a->fields[1].name, "hi");
	a = &pp.args[1];
	assert_string_equal(a->var, "buf");
	assert_null(a->fields[0].name);
	assert_int_equal(a->fields[0].index, 2);
	a = &pp.args[2];
	assert_string_equal(a->name, "nm");
	assert_string_equal(a->var, "name");
	assert_string_equal(a->type, "string");
	assert_true(pp.args[3].raw);
	assert_string_equal(pp.args[3].var, "%di");
	assert_true(pp.args[4].raw);
	assert_string_equal(pp.args[4].var, "+8(%sp)");
	assert_string_equal(pp.args[4].type, "u64");
	tally__probe_point_clear(&pp);
}

static void errors(void **state)
{
	struct probe_point pp;
	static const char *const bad[] = {
		"", "work:x", "work%entry", "work+1:2", "prog.c", "work s->", "work buf[x]",
		"work%return i", "1bad=work", "work;", "work i:", "f@a.c@b.c",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(tally__probe_parse(bad[i], &pp, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
	tally__probe_parse("work%return i", &pp, err, sizeof(err));
	assert_string_equal(err, "You can't specify local variable for kretprobe.");
	tally__probe_parse("work s->", &pp, err, sizeof(err));
	assert_string_equal(err, "Argument parse error: s->");
	tally__probe_parse("work:x", &pp, err, sizeof(err));
	assert_string_equal(err, "There is non-digit char in line number.");
}

/* C++: a qualified name (perf's escaped form too); its "::" is no line's ':' */
static void cxx_names(void **state)
{
	struct probe_point pp;

	assert_int_equal(tally__probe_parse("ns::Acc::add:2 v this->total", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.func, "ns::Acc::add");
	assert_true(pp.has_line);
	assert_int_equal(pp.line, 2);
	assert_int_equal(pp.nr_args, 2);
	assert_string_equal(pp.args[1].var, "this");
	assert_string_equal(pp.args[1].fields[0].name, "total");
	tally__probe_point_clear(&pp);

	assert_int_equal(tally__probe_parse("ns\\:\\:Acc\\:\\:add%return", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.func, "ns::Acc::add");
	assert_true(pp.ret);
	tally__probe_point_clear(&pp);

	assert_int_equal(tally__probe_parse("ns::Box::~Box", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.func, "ns::Box::~Box");
	tally__probe_point_clear(&pp);
	assert_int_equal(tally__probe_parse("ns::*@a.cpp", &pp, err, sizeof(err)), 0);
	assert_string_equal(pp.func, "ns::*");
	assert_string_equal(pp.file, "a.cpp");
	tally__probe_point_clear(&pp);

	/* one ':' too many or too few is still perf's line error */
	assert_int_equal(tally__probe_parse("ns:::add", &pp, err, sizeof(err)), -EINVAL);
	assert_int_equal(tally__probe_parse("add:x", &pp, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "There is non-digit char in line number.");
	assert_int_equal(tally__probe_parse("a~b", &pp, err, sizeof(err)), -EINVAL);
}

static void lazy(void **state)
{
	/* perf's strlazymatch: blanks do not count, the whole line is matched */
	assert_true(tally__probe_lazy_match("k+=*", "\tk += strlen(name);"));
	assert_true(tally__probe_lazy_match("k +=*", "k+=1;"));
	assert_false(tally__probe_lazy_match("k*", "\tint k = 0;"));
	assert_true(tally__probe_lazy_match("*3*", "int r = 3 * i;"));
	assert_false(tally__probe_lazy_match("return*", "x = 1;"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(point_forms),
		cmocka_unit_test(args),
		cmocka_unit_test(errors),
		cmocka_unit_test(cxx_names),
		cmocka_unit_test(lazy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
