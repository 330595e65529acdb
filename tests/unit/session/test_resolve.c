// SPDX-License-Identifier: MIT
/*
 * report's address table: a where stays put while the table grows; the
 * addresses of one map share its one copy; a where is its frame; top's
 * sweep keeps what is pointed at.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <tally/tally.h>
#include <tally/symbols.h>
#include "resolve_internal.h"

static uint32_t no_rank(const struct tally_session *ss, const char *path)
{
	return 0;
}

/*
 * The picture's walk holds an address's frames while it asks that
 * address's source lines: that second look-up, a hit, must not grow the
 * table under the frames (a crash on a `-a -g` file of ~8k addresses).
 */
static void test_hit_keeps_where(void **state)
{
	struct resolver r = { .file_rank = no_rank };
	struct where *fw[INL_MAX], *w;
	const struct tally_srcline *src;
	size_t n = 1 << 10;	/* the table's first size: fill it up to its load limit */

	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	for (uint64_t ip = 0x1000; ; ip += 16) {
		assert_int_equal(tally__resolver_frames(&r, 1, 1, ip, TALLY_CPUMODE_USER, false, fw), 1);
		w = fw[0];
		tally__resolver_lines(&r, 1, 1, ip, TALLY_CPUMODE_USER, false, &src);
		assert_ptr_equal(tally__resolver_get(&r, 1, 1, ip, TALLY_CPUMODE_USER), w);
		assert_null(w->map);
		if (r.size > n)
			break;	/* grown once, on an address added */
	}
	/* every address is still found after the move */
	for (uint64_t ip = 0x1000; ip < 0x1000 + 16 * (n / 2); ip += 16)
		assert_null(tally__resolver_get(&r, 1, 1, ip, TALLY_CPUMODE_USER)->map);
	assert_int_equal(r.used, n / 2 + 1);
	tally__resolver_free(&r);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

/*
 * A where stays put while addresses are added: callers keep the first
 * frames of a chain while its later ones are resolved (the table of
 * entries moved them when it grew; now it only renumbers them).
 */
static void test_where_stays_put(void **state)
{
	struct resolver r = { .file_rank = no_rank };
	struct where *w0;

	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	w0 = tally__resolver_get(&r, 7, 7, 0x1000, TALLY_CPUMODE_USER);
	assert_non_null(w0);
	for (uint64_t ip = 0x2000; ip < 0x2000 + 16 * 20000; ip += 16)
		assert_non_null(tally__resolver_get(&r, 7, 7, ip, TALLY_CPUMODE_USER));
	assert_true(r.size >= 2 * 20000);	/* grown several times */
	assert_ptr_equal(tally__resolver_get(&r, 7, 7, 0x1000, TALLY_CPUMODE_USER), w0);
	assert_int_equal(w0->addr, 0x1000);
	tally__resolver_free(&r);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

/*
 * The addresses of one map point at one copy of it (a top's 100k
 * addresses each kept their own, 70 bytes): one per distinct map, by
 * its place, file and build id, and the copy says what the map said.
 */
static void test_maps_shared(void **state)
{
	static const uint8_t bid[] = { 0xde, 0xad, 0xbe, 0xef };
	struct resolver r = { .file_rank = no_rank };
	struct tally_mmap_event a = { .pid = 5, .tid = 5, .start = 0x400000, .len = 0x10000,
				      .pgoff = 0x1000, .filename = "/nonexistent/a.so",
				      .prot = 5, .build_id = bid, .build_id_size = sizeof(bid) };
	struct tally_mmap_event b = { .pid = 5, .tid = 5, .start = 0x800000, .len = 0x10000,
				      .filename = "/nonexistent/b.so", .prot = 5 };
	struct tally_mmap_event a6 = a;	/* the same file at the same place in another process */
	const struct where_map *ma, *mb;
	struct where *w;

	a6.pid = a6.tid = 6;
	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	assert_int_equal(tally_machine__mmap(r.m, &a), 0);
	assert_int_equal(tally_machine__mmap(r.m, &b), 0);
	assert_int_equal(tally_machine__mmap(r.m, &a6), 0);
	w = tally__resolver_get(&r, 5, 5, 0x400010, TALLY_CPUMODE_USER);
	assert_non_null(w);
	ma = w->map;
	assert_non_null(ma);
	assert_int_equal(ma->start, 0x400000);
	assert_int_equal(ma->end, 0x410000);
	assert_int_equal(ma->pgoff, 0x1000);
	assert_string_equal(ma->path, "/nonexistent/a.so");
	assert_int_equal(ma->build_id_size, sizeof(bid));
	assert_memory_equal(ma->build_id, bid, sizeof(bid));
	assert_string_equal(w->dso, "a.so");
	/* the where is the address's frame, as the call graphs point at it */
	assert_ptr_equal(w->frame.dso, w->dso);
	assert_int_equal(w->frame.ip, 0x400010);
	assert_ptr_equal(w->frame.sym, w->sym);
	for (uint64_t ip = 0x400020; ip < 0x400000 + 0x10000; ip += 0x100)
		assert_ptr_equal(tally__resolver_get(&r, 5, 5, ip, TALLY_CPUMODE_USER)->map, ma);
	assert_ptr_equal(tally__resolver_get(&r, 6, 6, 0x400010, TALLY_CPUMODE_USER)->map, ma);
	mb = tally__resolver_get(&r, 5, 5, 0x800010, TALLY_CPUMODE_USER)->map;
	assert_non_null(mb);
	assert_ptr_not_equal(mb, ma);
	assert_int_equal(mb->build_id_size, 0);
	assert_null(tally__resolver_get(&r, 5, 5, 0x900000, TALLY_CPUMODE_USER)->map);
	assert_int_equal(r.nmaps, 2);
	tally__resolver_free(&r);
	assert_int_equal(r.nmaps, 0);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

/*
 * top's bound (tally__resolver_sweep): after a refresh, the addresses
 * nobody asked for since the last one go, but those a row or a tree
 * still points at (held) stay where they are; one asked for again is
 * resolved again in a freed entry, and the table finds every address.
 */
static void test_sweep(void **state)
{
	struct resolver r = { .file_rank = no_rank };
	struct where *kept, *asked;
	size_t used;

	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	for (uint64_t ip = 0x1000; ip < 0x1000 + 16 * 3000; ip += 16)
		assert_non_null(tally__resolver_get(&r, 3, 3, ip, TALLY_CPUMODE_USER));
	kept = tally__resolver_get(&r, 3, 3, 0x1000 + 16 * 10, TALLY_CPUMODE_USER);
	asked = tally__resolver_get(&r, 3, 3, 0x1000 + 16 * 20, TALLY_CPUMODE_USER);
	used = r.used;
	kept->held = true;
	/* everything was asked for since the table began: nothing goes */
	assert_int_equal(tally__resolver_sweep(&r), 0);
	assert_int_equal(r.live, 3000);
	assert_ptr_equal(tally__resolver_get(&r, 3, 3, 0x1000 + 16 * 20, TALLY_CPUMODE_USER), asked);
	kept->held = true;	/* the marks last one sweep */
	assert_int_equal(tally__resolver_sweep(&r), 2998);
	assert_int_equal(r.live, 2);
	/* the two that stayed are where they were */
	assert_ptr_equal(tally__resolver_get(&r, 3, 3, 0x1000 + 16 * 10, TALLY_CPUMODE_USER), kept);
	assert_ptr_equal(tally__resolver_get(&r, 3, 3, 0x1000 + 16 * 20, TALLY_CPUMODE_USER), asked);
	assert_int_equal(kept->addr, 0x1000 + 16 * 10);
	/* the others come back, in freed entries: the blocks do not grow */
	for (uint64_t ip = 0x1000; ip < 0x1000 + 16 * 3000; ip += 16)
		assert_int_equal(tally__resolver_get(&r, 3, 3, ip, TALLY_CPUMODE_USER)->addr, ip);
	assert_int_equal(r.used, used);
	assert_int_equal(r.live, 3000);
	/* and more than were freed: new entries after them, all found */
	for (uint64_t ip = 0x100000; ip < 0x100000 + 16 * 5000; ip += 16)
		assert_non_null(tally__resolver_get(&r, 4, 4, ip, TALLY_CPUMODE_USER));
	for (uint64_t ip = 0x1000; ip < 0x1000 + 16 * 3000; ip += 16)
		assert_int_equal(tally__resolver_get(&r, 3, 3, ip, TALLY_CPUMODE_USER)->addr, ip);
	for (uint64_t ip = 0x100000; ip < 0x100000 + 16 * 5000; ip += 16)
		assert_int_equal(tally__resolver_get(&r, 4, 4, ip, TALLY_CPUMODE_USER)->addr, ip);
	assert_int_equal(r.live, 8000);
	assert_int_equal(r.used, 8000);
	tally__resolver_free(&r);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_keeps_where),
		cmocka_unit_test(test_where_stays_put),
		cmocka_unit_test(test_maps_shared),
		cmocka_unit_test(test_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
