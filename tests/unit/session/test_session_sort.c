// SPDX-License-Identifier: MIT
/* A round's records in time order: merged from their ascending runs (one
 * per ring), or radix-sorted when there are many; stable either way (ties
 * keep file order), for any mix of runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <tally/tally.h>
#include "session_internal.h"

/* n records in k ascending runs, times drawn from few values (many ties) */
static void fill(struct tally_session *s, size_t n, size_t k, unsigned seed)
{
	s->q = calloc(n, sizeof(*s->q));
	s->tmp = calloc(n, sizeof(*s->tmp));
	s->nq = n;
	srand(seed);
	for (size_t r = 0, i = 0; r < k; r++) {
		size_t len = r + 1 == k ? n - i : n / k;
		uint64_t t = (uint64_t)(rand() % 50);

		for (size_t j = 0; j < len; j++, i++) {
			t += (uint64_t)(rand() % 3);	/* ascending, ties included */
			s->q[i].time = t;
			s->q[i].attr = (int)i;		/* file order, to see stability */
		}
	}
}

static void check_sorted(const struct tally_session *s)
{
	for (size_t i = 1; i < s->nq; i++) {
		assert_true(s->q[i - 1].time <= s->q[i].time);
		if (s->q[i - 1].time == s->q[i].time)
			assert_true(s->q[i - 1].attr < s->q[i].attr);
	}
}

static void test_runs(void **state)
{
	(void)state;
	/* 1..40 runs: the merge up to 32, the radix sort past it */
	for (size_t k = 1; k <= 40; k++) {
		for (unsigned seed = 1; seed <= 3; seed++) {
			struct tally_session s = { 0 };

			fill(&s, 997, k, seed * 131 + (unsigned)k);
			tally__session_sort_queue(&s);
			check_sorted(&s);
			free(s.q);
			free(s.tmp);
		}
	}
}

static void test_shuffled(void **state)
{
	struct tally_session s = { 0 };

	(void)state;
	fill(&s, 5000, 1, 7);
	for (size_t i = 0; i < s.nq; i++)	/* every record its own run */
		s.q[i].time = (uint64_t)(rand() % 1000);
	tally__session_sort_queue(&s);
	check_sorted(&s);
	free(s.q);
	free(s.tmp);
}

static void test_tiny(void **state)
{
	struct tally_session s = { 0 };

	(void)state;
	tally__session_sort_queue(&s);			/* empty */
	fill(&s, 1, 1, 3);
	tally__session_sort_queue(&s);
	check_sorted(&s);
	free(s.q);
	free(s.tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_shuffled),
		cmocka_unit_test(test_tiny),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
