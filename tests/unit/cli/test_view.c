// SPDX-License-Identifier: MIT
/* The browser's reading of --stdio's text (cli/tui/view.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "view.h"

static const char report_text[] =
	"# To display the perf.data header info, please use --header/--header-only options.\n"
	"#\n"
	"# Total Lost Samples: 0\n"
	"#\n"
	"# Samples: 600  of event 'cpu-clock:ppp'\n"
	"# Event count (approx.): 600600600\n"
	"#\n"
	"# Children      Self  Command  Shared Object      Symbol            \n"
	"# ........  ........  .......  .................  ..................\n"
	"#\n"
	"   100.00%     0.00%  burn     libc.so.6          [.] __libc_start_call_main\n"
	"            |\n"
	"            ---__libc_start_call_main\n"
	"               main\n"
	"\n"
	"    57.67%    57.67%  burn     burn               [.] burn_a\n"
	"     0.17%     0.17%  burn     [kernel.kallsyms]  [k] handle_softirqs\n"
	"\n"
	"\n"
	"# Samples: 3  of event 'page-faults'\n"
	"# Event count (approx.): 3\n"
	"#\n"
	"# Overhead  Command  Shared Object  Symbol\n"
	"# ........  .......  .............  ......\n"
	"#\n"
	"   100.00%  ls       ld.so          [.] _start\n"
	"#\n"
	"# Addresses without a symbol (each distinct address once), and why:\n";

static void test_events_rows_graphs(void **state)
{
	struct view v;

	assert_int_equal(view_parse(&v, report_text), 0);
	assert_int_equal(v.npre, 4);
	assert_int_equal(v.nev, 2);
	assert_string_equal(v.ev[0].name, "cpu-clock:ppp");
	assert_string_equal(v.ev[1].name, "page-faults");
	/* the columns' names are not header info */
	assert_int_equal(v.ev[0].nhead, 3);
	assert_string_equal(v.ev[0].head[1], "# Event count (approx.): 600600600");
	assert_int_equal(v.ev[0].ncols, 5);
	assert_string_equal(v.ev[0].col[3].name, "Shared Object");
	assert_int_equal(v.ev[0].nrows, 3);
	assert_int_equal(v.ev[0].rows[0].ngraph, 3);
	assert_string_equal(v.ev[0].rows[0].graph[2], "               main");
	assert_int_equal(v.ev[0].rows[1].ngraph, 0);
	/* '#' lines after the rows are no rows */
	assert_int_equal(v.ev[1].nrows, 1);
	view_free(&v);
}

static void test_fields_and_filters(void **state)
{
	struct view v;
	char buf[64];
	struct view_event *e;

	assert_int_equal(view_parse(&v, report_text), 0);
	e = &v.ev[0];
	assert_string_equal(view_field(e, e->rows[2].line, view_col(e, "Shared Object"), buf, sizeof(buf)),
			    "[kernel.kallsyms]");
	assert_string_equal(view_field(e, e->rows[2].line, view_col(e, "Symbol"), buf, sizeof(buf)),
			    "handle_softirqs");
	assert_string_equal(view_field(e, e->rows[1].line, view_col(e, "Command"), buf, sizeof(buf)), "burn");
	assert_int_equal(view_col(e, "Pid"), -1);
	assert_true(view_match(e, &e->rows[1], "burn", "burn", NULL, "burn_"));
	assert_false(view_match(e, &e->rows[1], NULL, "libc.so.6", NULL, NULL));
	assert_false(view_match(e, &e->rows[0], NULL, NULL, NULL, "burn_a"));
	/* the filter is of the symbol, not the line's other columns */
	assert_false(view_match(e, &e->rows[2], NULL, NULL, NULL, "burn"));
	assert_true(view_match(e, &e->rows[2], NULL, NULL, "handle_softirqs", NULL));
	view_free(&v);
}

static void test_no_events(void **state)
{
	struct view v;

	assert_int_equal(view_parse(&v, "# nothing\nplain text\n"), 0);
	assert_int_equal(v.nev, 0);
	assert_int_equal(v.npre, 1);
	view_free(&v);
	assert_int_equal(view_parse(&v, ""), 0);
	view_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_events_rows_graphs),
		cmocka_unit_test(test_fields_and_filters),
		cmocka_unit_test(test_no_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
