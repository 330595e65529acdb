// SPDX-License-Identifier: MIT
/*
 * Parsed events open and count exactly on this kernel: the attr the
 * parser builds for a tracepoint, a data breakpoint with :u, a uprobe
 * and a uretprobe on this program's own function is what the kernel
 * wants. Each case skips when the kernel refuses for want of privilege
 * or of the PMU (perf_event_paranoid, no tracefs, no uprobe PMU).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/events.h>
#include <tally/sys.h>

#define N 1000

static const struct tally_parse_opts real = { .sz = sizeof(real), .no_pfm = true };

__attribute__((noinline, used)) int tally_test_counted(int x);
__attribute__((noinline, used)) int tally_test_counted(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static volatile long watched;

static int open_one(const char *spec, struct tally_events *evs)
{
	struct tally_parse_error err;
	int ret = tally_parse_events(spec, &real, evs, &err);

	if (ret) {
		print_message("# SKIP %s: %s\n", spec, err.msg);
		return ret;
	}
	assert_int_equal(evs->nr, 1);
	evs->ev[0].attr.disabled = 1;
	ret = tally_sys_open(&evs->ev[0].attr, 0, -1, -1, 0);
	if (ret < 0)
		print_message("# SKIP %s: open: %s\n", spec, strerror(-ret));
	return ret;
}

static uint64_t count_of(int fd)
{
	uint64_t v = 0;

	assert_int_equal(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	close(fd);
	return v;
}

static void test_tracepoint(void **state)
{
	struct tally_events evs = { 0 };
	int fd = open_one("syscalls:sys_enter_getpid", &evs);

	tally_events__clear(&evs);
	if (fd < 0)
		skip();
	assert_int_equal(tally_sys_enable(fd, false), 0);
	for (int i = 0; i < N; i++)
		syscall(SYS_getpid);
	assert_int_equal(tally_sys_disable(fd, false), 0);
	assert_int_equal(count_of(fd), N);
}

static void test_breakpoint(void **state)
{
	struct tally_events evs = { 0 };
	char spec[64];
	int fd;

	snprintf(spec, sizeof(spec), "mem:%p/%zu:w:u", (void *)&watched, sizeof(watched));
	fd = open_one(spec, &evs);
	tally_events__clear(&evs);
	if (fd < 0)
		skip();
	assert_int_equal(tally_sys_enable(fd, false), 0);
	for (int i = 0; i < N; i++)
		watched = i;
	assert_int_equal(tally_sys_disable(fd, false), 0);
	assert_int_equal(count_of(fd), N);
}

static void uprobe(const char *spec)
{
	struct tally_events evs = { 0 };
	int fd = open_one(spec, &evs);
	int x = 0;

	tally_events__clear(&evs);
	if (fd < 0)
		skip();
	assert_int_equal(tally_sys_enable(fd, false), 0);
	for (int i = 0; i < N; i++)
		x = tally_test_counted(x);
	assert_int_equal(tally_sys_disable(fd, false), 0);
	assert_int_equal(x, N);
	assert_int_equal(count_of(fd), N);
}

static void test_uprobe(void **state)
{
	uprobe("uprobe:/proc/self/exe:tally_test_counted");
}

static void test_uretprobe(void **state)
{
	uprobe("uretprobe:/proc/self/exe:tally_test_counted:u");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint),
		cmocka_unit_test(test_breakpoint),
		cmocka_unit_test(test_uprobe),
		cmocka_unit_test(test_uretprobe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
