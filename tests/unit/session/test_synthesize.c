// SPDX-License-Identifier: MIT
/*
 * tally_session__synthesize: a live session over this process's own
 * samples (its maps made before the rings opened, as any process top
 * finds running) names their function only when the session synthesized
 * what runs from /proc; its thread gets its name; bad input says so.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>

struct seen {
	unsigned long samples, named;	/* named: resolved to spin_here */
};

static int on_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct seen *v = ctx;
	struct tally_frame f;

	v->samples++;
	if (!tally_session__resolve(s, smp, &f) && f.sym && !strcmp(f.sym, "spin_here"))
		v->named++;
	return 0;
}

/* The function the samples land in: 300 ms of CPU. */
__attribute__((noinline)) void spin_here(void);
__attribute__((noinline)) void spin_here(void)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 300000000L);
}

/* This process sampled while it spins, through a live session; synthesize first or not. */
static struct seen sample_self(bool synth)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 999);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	struct seen v = { 0 };
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &v);
	struct tally_session *s = NULL;
	int me = getpid();

	assert_non_null(l);
	assert_non_null(cpus);
	assert_non_null(thr);
	assert_true(tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) >= 0);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	if (tally_evlist__open(l, cpus, thr, NULL)) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		skip();		/* perf_event_paranoid: no events here */
	}
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_non_null(s = tally_session__open_evlist(l, &so));
	if (synth) {
		char want[64] = "";
		FILE *f = fopen("/proc/self/comm", "re");

		assert_int_equal(tally_session__synthesize(s, &me, 1), 0);
		assert_non_null(f);
		assert_non_null(fgets(want, sizeof(want), f));
		fclose(f);
		want[strcspn(want, "\n")] = 0;
		assert_string_equal(tally_machine__comm_of(tally_session__machine(s), me), want);
	}
	tally_evlist__enable(l);
	spin_here();
	tally_evlist__disable(l);
	assert_int_equal(tally_session__run(s), 0);
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
	return v;
}

static void test_names_what_ran_before(void **state)
{
	struct seen before = sample_self(false), after = sample_self(true);

	(void)state;
	assert_true(before.samples > 20);
	assert_int_equal(before.named, 0);	/* no MMAP of this program came in the rings */
	assert_true(after.samples > 20);
	assert_true(after.named * 2 > after.samples);	/* most in spin_here, by name */
}

static void test_bad_input(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	TALLY_OPTS(tally_config_opts, co, .sample = true, .freq = 99);
	TALLY_OPTS(tally_evlist_mmap_opts, mo);
	TALLY_OPTS(tally_session_opts, so);
	struct tally_session *s;
	int gone = 0x3ffffff0;	/* above pid_max's ceiling: no such process */

	(void)state;
	assert_int_equal(tally_session__synthesize(NULL, NULL, 0), -EINVAL);
	assert_true(tally_evlist__add_parsed(l, "cpu-clock", NULL, NULL) >= 0);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	if (tally_evlist__open(l, cpus, thr, NULL)) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		skip();
	}
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_non_null(s = tally_session__open_evlist(l, &so));
	assert_int_equal(tally_session__synthesize(s, NULL, 2), -EINVAL);
	assert_int_equal(tally_session__synthesize(s, &gone, 1), -ENOENT);
	assert_null(tally_machine__comm_of(tally_session__machine(s), gone));
	tally_session__close(s);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_what_ran_before),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
