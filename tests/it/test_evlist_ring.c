// SPDX-License-Identifier: MIT
/*
 * tally_evlist__config + rings on the evlist, on the real kernel, with
 * exact oracles: N getpid() calls sampled at period 1 give exactly N
 * samples of our pid through the evlist's rings (one per CPU, the other
 * events redirected with SET_OUTPUT); two tracepoints are told apart by
 * PERF_SAMPLE_IDENTIFIER; a ring too small gives samples + lost == N;
 * the raw drain hands out exactly the bytes of the records walked.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "oracle_util.h"

struct seen {
	struct tally_evlist *l;
	pid_t pid;
	uint64_t samples, mine, by_ev[2], lost, mmap2_self, records;
	struct tally_evsel *ev[2];
	unsigned char *raw;
	size_t raw_len, raw_cap;
};

static int on_record(void *ctx, const struct perf_event_header *h, int ring)
{
	struct seen *s = ctx;
	const unsigned char *p = (const unsigned char *)(h + 1);

	s->records++;
	if (h->type == PERF_RECORD_SAMPLE) {
		uint64_t id;
		uint32_t pid;

		s->samples++;
		/* IDENTIFIER first when there are several events, then IP, TID */
		if (tally_evsel__attr(s->ev[0])->sample_type & PERF_SAMPLE_IDENTIFIER) {
			struct tally_evsel *e;

			memcpy(&id, p, 8);
			p += 8;
			e = tally_evlist__find_id(s->l, id);
			assert_non_null(e);
			s->by_ev[e == s->ev[1]]++;
		}
		memcpy(&pid, p + 8, 4);
		s->mine += pid == (uint32_t)s->pid;
	} else if (h->type == PERF_RECORD_LOST) {
		uint64_t lost;

		memcpy(&lost, p + 8, 8);
		s->lost += lost;
	} else if (h->type == PERF_RECORD_MMAP2) {
		uint32_t pid;

		memcpy(&pid, p, 4);
		s->mmap2_self += pid == (uint32_t)s->pid &&
				 memmem(h, h->size, "libc", 4) == NULL;
	}
	(void)ring;
	return 0;
}

static int on_bytes(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct seen *s = ctx;

	for (int i = 0; i < n; i++) {
		if (s->raw_len + iov[i].iov_len > s->raw_cap) {
			s->raw_cap = (s->raw_len + iov[i].iov_len) * 2;
			s->raw = realloc(s->raw, s->raw_cap);
			assert_non_null(s->raw);
		}
		memcpy(s->raw + s->raw_len, iov[i].iov_base, iov[i].iov_len);
		s->raw_len += iov[i].iov_len;
	}
	(void)ring;
	return 0;
}

/* An evlist of spec sampling this thread on every online CPU; NULL to skip. */
static struct tally_evlist *sampler(const char *spec, const struct tally_config_opts *o,
				    size_t pages)
{
	TALLY_OPTS(tally_evlist_mmap_opts, mo, .pages = pages);
	struct tally_evlist *l = tally_evlist__new();
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());

	assert_non_null(l);
	if (tp_id("syscalls", "sys_enter_getpid") < 0 ||
	    tally_evlist__add_parsed(l, spec, NULL, NULL) < 0) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(thr);
		return NULL;
	}
	assert_int_equal(tally_evlist__config(l, o), 0);
	assert_int_equal(tally_evlist__open(l, cpus, thr, NULL), 0);
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
	return l;
}

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void test_exact_samples_per_cpu_rings(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true);
	struct seen s = { .pid = getpid() };
	struct tally_evlist *l = sampler("syscalls:sys_enter_getpid", &o, 0);
	const long n = 20000;

	if (!l)
		skip();
	/* the parser leaves the period; config samples every tracepoint hit */
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	assert_int_equal(tally_evsel__attr(s.ev[0])->sample_period, 1);
	assert_true(tally_evsel__attr(s.ev[0])->sample_id_all);
	assert_int_equal(tally_evlist__nr_mmaps(l), tally_cpu_map__nr(tally_evlist__cpus(l)));
	assert_int_equal(tally_evlist__enable(l), 0);
	for (int k = 0; k < 10; k++) {	/* drain as we go: rings wrap many times */
		calls(n / 10);
		assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	}
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	assert_int_equal(s.lost, 0);
	assert_int_equal(s.mine, n);
	assert_int_equal(s.samples, n);
	tally_evlist__free(l);
}

static void test_identifier_routes_two_events(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true);
	struct seen s = { .pid = getpid() };
	struct tally_evlist *l = sampler("syscalls:sys_enter_getpid,syscalls:sys_enter_getppid",
					 &o, 0);

	if (!l)
		skip();
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	s.ev[1] = tally_evlist__next(l, s.ev[0]);
	assert_true(tally_evsel__attr(s.ev[1])->sample_type & PERF_SAMPLE_IDENTIFIER);
	/* two events per CPU, one ring per CPU: the second goes through SET_OUTPUT */
	assert_int_equal(tally_evlist__nr_mmaps(l), tally_cpu_map__nr(tally_evlist__cpus(l)));
	assert_int_equal(tally_evlist__enable(l), 0);
	calls(300);
	for (int i = 0; i < 700; i++)
		syscall(SYS_getppid);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	assert_int_equal(s.by_ev[0], 300);
	assert_int_equal(s.by_ev[1], 700);
	tally_evlist__free(l);
}

static void test_small_ring_samples_plus_lost(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true);
	struct seen s = { .pid = getpid() };
	struct tally_evlist *l = sampler("syscalls:sys_enter_getpid", &o, 1);
	const long n = 50000;

	if (!l)
		skip();
	/*
	 * One CPU, so one ring: the kernel writes a ring's LOST record only
	 * at that ring's next sample, and a thread that moved to the other
	 * CPU would leave the first ring's losses unwritten (1 run in 5).
	 */
	cpu_set_t one, old;

	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	assert_int_equal(tally_evlist__enable(l), 0);
	calls(n);	/* never drained meanwhile: a 4 KiB ring overflows */
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	/* the kernel writes its LOST record once there is room again */
	calls(1);
	assert_int_equal(tally_evlist__disable(l), 0);
	sched_setaffinity(0, sizeof(old), &old);
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	assert_true(s.lost > 0);
	assert_int_equal(s.samples + s.lost, n + 1);
	assert_int_equal(tally_evlist__lost(l), s.lost);
	tally_evlist__free(l);
}

/* The bytes handed out are exactly the records walked, in order. */
static void test_raw_drain_bytes(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true);
	struct seen s = { .pid = getpid() }, again = { 0 };
	struct tally_evlist *l = sampler("syscalls:sys_enter_getpid", &o, 2);
	size_t off = 0;

	if (!l)
		skip();
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	assert_int_equal(tally_evlist__enable(l), 0);
	for (int k = 0; k < 20; k++) {	/* 8 KiB rings wrap: two-piece copies */
		calls(97);
		assert_true(tally_evlist__drain(l, on_record, on_bytes, &s) >= 0);
	}
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_true(tally_evlist__drain(l, on_record, on_bytes, &s) >= 0);
	assert_int_equal(s.mine, 20 * 97);
	again.l = l;
	again.pid = s.pid;
	again.ev[0] = s.ev[0];
	while (off < s.raw_len) {
		const struct perf_event_header *h = (const void *)(s.raw + off);

		assert_true(h->size >= 8 && off + h->size <= s.raw_len);
		on_record(&again, h, 0);
		off += h->size;
	}
	assert_int_equal(again.records, s.records);
	assert_int_equal(again.mine, s.mine);
	free(s.raw);
	tally_evlist__free(l);
}

/* Side-band: an executable mapping made while sampling is an MMAP2 record. */
static void test_sideband_mmap2(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true);
	struct seen s = { .pid = getpid() };
	struct tally_evlist *l = sampler("syscalls:sys_enter_getpid", &o, 0);
	void *p;
	int fd;

	if (!l)
		skip();
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	assert_true(tally_evsel__attr(s.ev[0])->mmap2 && tally_evsel__attr(s.ev[0])->comm);
	fd = open(helper_path(), O_RDONLY);
	if (fd < 0) {
		tally_evlist__free(l);
		skip();
	}
	assert_int_equal(tally_evlist__enable(l), 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	assert_int_equal(s.mmap2_self, 1);
	munmap(p, 4096);
	close(fd);
	tally_evlist__free(l);
}

/* Counting: config clears what sampling would need; counts stay exact. */
static void test_counting_config(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = false);
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	const struct tally_counts *c;
	char spec[64];

	if (tp_id("syscalls", "sys_enter_getpid") < 0)
		skip();

	/* a user's period= term, which counting must not turn into overflows */
	snprintf(spec, sizeof(spec), "tracepoint/config=%ld,period=7/",
		 tp_id("syscalls", "sys_enter_getpid"));
	assert_int_equal(tally_evlist__add_parsed(l, spec, NULL, NULL), 0);
	assert_int_equal(tally_evsel__attr(tally_evlist__first(l))->sample_period, 7);
	assert_int_equal(tally_evlist__config(l, &o), 0);
	assert_int_equal(tally_evsel__attr(tally_evlist__first(l))->sample_period, 0);
	assert_int_equal(tally_evlist__open(l, NULL, thr, NULL), 0);
	assert_int_equal(tally_evlist__enable(l), 0);
	calls(1234);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	c = tally_evsel__counts(tally_evlist__first(l), 0, 0);
	assert_non_null(c);
	assert_int_equal(c->val, 1234);
	tally_thread_map__put(thr);
	tally_evlist__free(l);
}

/* A user's period= term wins over the default; -c wins over nothing else. */
static void test_user_period_kept(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true, .period = 10);
	struct seen s = { .pid = getpid() };
	struct tally_evlist *l;
	char spec[96];

	snprintf(spec, sizeof(spec), "tracepoint/config=%ld,period=100/,syscalls:sys_enter_getppid",
		 tp_id("syscalls", "sys_enter_getpid"));
	l = sampler(spec, &o, 0);
	if (!l)
		skip();
	s.l = l;
	s.ev[0] = tally_evlist__first(l);
	s.ev[1] = tally_evlist__next(l, s.ev[0]);
	assert_int_equal(tally_evsel__attr(s.ev[0])->sample_period, 100);
	assert_int_equal(tally_evsel__attr(s.ev[1])->sample_period, 10);
	assert_int_equal(tally_evlist__enable(l), 0);
	calls(1000);
	for (int i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_true(tally_evlist__drain(l, on_record, NULL, &s) >= 0);
	assert_int_equal(s.by_ev[0], 10);
	assert_int_equal(s.by_ev[1], 100);
	tally_evlist__free(l);
}

static void test_freq_above_max(void **state)
{
	uint64_t max = 0;
	TALLY_OPTS(tally_config_opts, o, .sample = true, .freq = UINT64_C(1) << 40,
		   .freq_max_out = &max);
	struct tally_evlist *l = tally_evlist__new();

	assert_int_equal(tally_evlist__add_parsed(l, "task-clock", NULL, NULL), 0);
	assert_int_equal(tally_evlist__config(l, &o), -ERANGE);
	assert_true(max > 0);
	tally_evlist__free(l);
}

struct newest {
	uint64_t samples, last_time, size;
	bool newest_first, same_size;
	size_t off_time;
};

static int on_backward(void *ctx, const struct perf_event_header *h, int ring)
{
	struct newest *n = ctx;
	uint64_t t;

	if (h->type != PERF_RECORD_SAMPLE)
		return 0;
	/* IP, TID, TIME: time is the third u64 of the body */
	memcpy(&t, (const unsigned char *)(h + 1) + 16, 8);
	if (n->samples && t > n->last_time)
		n->newest_first = false;
	if (n->samples && h->size != n->size)
		n->same_size = false;
	n->size = h->size;
	n->last_time = t;
	n->samples++;
	(void)ring;
	return 0;
}

/* A flight recorder keeps exactly the newest records that fit, newest first. */
static void test_overwrite_ring(void **state)
{
	TALLY_OPTS(tally_config_opts, o, .sample = true, .overwrite = true, .no_sideband = true);
	TALLY_OPTS(tally_evlist_mmap_opts, mo, .pages = 2, .overwrite = true);
	struct tally_evlist *l = tally_evlist__new();
	struct tally_thread_map *thr = tally_thread_map__new_pid(getpid());
	struct tally_cpu_map *cpus = tally_cpu_map__new("0");
	long psz = sysconf(_SC_PAGESIZE);

	if (tp_id("syscalls", "sys_enter_getpid") < 0)
		skip();
	assert_int_equal(tally_evlist__add_parsed(l, "syscalls:sys_enter_getpid", NULL, NULL), 0);
	assert_int_equal(tally_evlist__config(l, &o), 0);
	assert_true(tally_evsel__attr(tally_evlist__first(l))->write_backward);
	assert_int_equal(tally_evlist__open(l, cpus, thr, NULL), 0);
	assert_int_equal(tally_evlist__mmap(l, &mo), 0);
	assert_true(tally_mmap__is_overwrite(tally_evlist__mmap_at(l, 0, NULL, NULL)));
	for (int round = 0; round < 2; round++) {
		struct newest n = { .newest_first = true, .same_size = true };
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
		assert_int_equal(tally_evlist__enable(l), 0);
		calls(5000);	/* far more than 8 KiB holds */
		assert_int_equal(tally_evlist__disable(l), 0);
		assert_int_equal(tally_evlist__pause(l, true), 0);
		assert_true(tally_evlist__drain(l, on_backward, NULL, &n) > 0);
		assert_int_equal(tally_evlist__pause(l, false), 0);
		assert_true(n.newest_first);
		assert_true(n.same_size);
		assert_int_equal(n.samples, (uint64_t)(2 * psz) / n.size);
	}
	tally_cpu_map__put(cpus);
	tally_thread_map__put(thr);
	tally_evlist__free(l);
}

static void test_probes(void **state)
{
	/* every kernel this runs on (>= 5.12) has these; names are stable */
	assert_true(tally_kernel_has(TALLY_FEAT_SAMPLE_ID_ALL));
	assert_true(tally_kernel_has(TALLY_FEAT_MMAP2));
	assert_true(tally_kernel_has(TALLY_FEAT_MMAP2_BUILD_ID));
	assert_string_equal(tally_feature__name(TALLY_FEAT_READ_LOST), "read_lost");
	assert_null(tally_feature__name(TALLY_FEAT__NR));
	assert_false(tally_kernel_has(TALLY_FEAT__NR));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_samples_per_cpu_rings),
		cmocka_unit_test(test_identifier_routes_two_events),
		cmocka_unit_test(test_small_ring_samples_plus_lost),
		cmocka_unit_test(test_raw_drain_bytes),
		cmocka_unit_test(test_sideband_mmap2),
		cmocka_unit_test(test_counting_config),
		cmocka_unit_test(test_user_period_kept),
		cmocka_unit_test(test_freq_above_max),
		cmocka_unit_test(test_overwrite_ring),
		cmocka_unit_test(test_probes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
