// SPDX-License-Identifier: MIT
/*
 * Every ioctl and prctl of perf_event_open(2) through lib/sys.c, and the
 * open flags FD_CLOEXEC, FD_NO_GROUP, FD_OUTPUT and PID_CGROUP, each
 * checked by its effect on a count where it has one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "oracle_util.h"

#define N 200

static void do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static uint64_t val(int fd)
{
	uint64_t v = UINT64_MAX;

	assert_int_equal(tally_sys_read(fd, &v, sizeof(v)), 0);
	return v;
}

/* A getpid tracepoint on this thread; disabled as asked. -1 if none. */
static int open_getpid(bool disabled, int group_fd, unsigned long flags)
{
	struct perf_event_attr a;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		return -1;
	a.disabled = disabled;
	return tally_sys_open(&a, 0, -1, group_fd, flags);
}

static void test_cloexec_and_read(void **state)
{
	int fd = open_getpid(false, -1, 0);
	uint64_t two[2];

	if (fd == -1)
		skip();
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* Too small a buffer: the kernel's ENOSPC. Too big: a short read, EIO. */
	assert_int_equal(tally_sys_read(fd, two, 4), -ENOSPC);
	assert_int_equal(tally_sys_read(fd, two, sizeof(two)), -EIO);
	close(fd);
}

static void test_enable_disable_reset(void **state)
{
	int lead = open_getpid(true, -1, 0), mem;

	if (lead == -1)
		skip();
	mem = open_getpid(false, lead, 0);
	assert_true(mem >= 0);
	do_getpid(N);
	assert_int_equal(val(lead), 0);
	assert_int_equal(val(mem), 0);	/* its group is off */
	assert_int_equal(tally_sys_enable(lead, true), 0);
	do_getpid(N);
	assert_int_equal(val(lead), N);
	assert_int_equal(val(mem), N);
	/* Without the group flag only that event stops. */
	assert_int_equal(tally_sys_disable(mem, false), 0);
	do_getpid(N);
	assert_int_equal(val(lead), 2 * N);
	assert_int_equal(val(mem), N);
	assert_int_equal(tally_sys_reset(lead, true), 0);
	assert_int_equal(val(lead), 0);
	assert_int_equal(val(mem), 0);
	assert_int_equal(tally_sys_disable(lead, true), 0);
	do_getpid(N);
	assert_int_equal(val(lead), 0);
	close(mem);
	close(lead);
}

static void test_no_group_flag(void **state)
{
	int lead = open_getpid(true, -1, 0), alone;

	if (lead == -1)
		skip();
	/* FD_NO_GROUP: group_fd is ignored, so the disabled leader does not hold it. */
	alone = open_getpid(false, lead, PERF_FLAG_FD_NO_GROUP);
	assert_true(alone >= 0);
	do_getpid(N);
	assert_int_equal(val(alone), N);
	assert_int_equal(val(lead), 0);
	close(alone);
	close(lead);
}

static void test_fd_output_flag(void **state)
{
	int a = open_getpid(false, -1, 0), b;

	if (a == -1)
		skip();
	/* FD_OUTPUT (+NO_GROUP): output redirected to a, no group; still counts. */
	b = open_getpid(false, a, PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
	if (b == -EINVAL) {
		close(a);
		skip();	/* the man page: broken since Linux 2.6.35 */
	}
	assert_true(b >= 0);
	do_getpid(N);
	assert_int_equal(val(b), N);
	close(b);
	close(a);
}

static void test_id(void **state)
{
	struct perf_event_attr a;
	uint64_t id = 0, buf[2];
	int fd;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	a.read_format = PERF_FORMAT_ID;
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(tally_sys_id(fd, &id), 0);
	assert_true(id != 0);
	assert_int_equal(tally_sys_read(fd, buf, sizeof(buf)), 0);
	assert_true(buf[1] == id);
	assert_int_equal(tally_sys_id(fd, NULL), -EINVAL);
	close(fd);
}

static void test_filter(void **state)
{
	struct perf_event_attr a;
	char f[64];
	int fd;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	snprintf(f, sizeof(f), "common_pid != %d", (int)syscall(SYS_gettid));
	assert_int_equal(tally_sys_set_filter(fd, f), 0);
	do_getpid(N);
	assert_int_equal(val(fd), 0);
	/* A tracepoint event takes one filter for its life. */
	assert_int_equal(tally_sys_set_filter(fd, f), -EEXIST);
	close(fd);
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	snprintf(f, sizeof(f), "common_pid == %d", (int)syscall(SYS_gettid));
	assert_int_equal(tally_sys_set_filter(fd, f), 0);
	do_getpid(N);
	assert_int_equal(val(fd), N);
	close(fd);
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_true(tally_sys_set_filter(fd, "no_such_field == (") < 0);
	assert_int_equal(tally_sys_set_filter(fd, NULL), -EINVAL);
	close(fd);
}

/* The evsel filter is applied at open. */
static void test_evsel_filter(void **state)
{
	struct perf_event_attr a;
	struct tally_thread_map *tm = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	e = tally_evsel__new(&a, NULL);
	assert_int_equal(tally_evsel__set_filter(e, "common_pid == 1"), 0);
	assert_string_equal(tally_evsel__filter(e), "common_pid == 1");
	tally_evlist__add(l, e);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	do_getpid(N);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 0);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

static void test_period_refresh(void **state)
{
	struct perf_event_attr a;
	int fd, cnt;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	/* Counting event: no period to change. */
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(tally_sys_period(fd, 10), -EINVAL);
	close(fd);
	a.sample_period = 1;
	a.disabled = 1;
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(tally_sys_period(fd, 5), 0);
	assert_int_equal(tally_sys_period(fd, 1), 0);
	/* REFRESH 1: enable until one overflow, then the kernel disables it. */
	assert_int_equal(tally_sys_refresh(fd, 1), 0);
	do_getpid(N);
	cnt = (int)val(fd);
	assert_true(cnt >= 1 && cnt < N);
	close(fd);
}

static void *map_ring(int fd)
{
	void *p = mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void test_output_and_pause(void **state)
{
	struct perf_event_attr a;
	int a_fd, b_fd, nul;
	void *ring;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID;
	a_fd = tally_sys_open(&a, 0, -1, -1, 0);
	b_fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(a_fd >= 0 && b_fd >= 0);
	/* No ring yet: nothing to pause. */
	assert_int_equal(tally_sys_pause_output(a_fd, true), -EINVAL);
	ring = map_ring(a_fd);
	assert_non_null(ring);
	assert_int_equal(tally_sys_pause_output(a_fd, true), 0);
	assert_int_equal(tally_sys_pause_output(a_fd, false), 0);
	assert_int_equal(tally_sys_set_output(b_fd, a_fd), 0);
	assert_int_equal(tally_sys_set_output(b_fd, -1), 0);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_true(tally_sys_set_output(b_fd, nul) < 0);
	close(nul);
	munmap(ring, 2 * (size_t)sysconf(_SC_PAGESIZE));
	close(b_fd);
	close(a_fd);
}

static void test_bpf_ioctls(void **state)
{
	struct perf_event_attr a;
	uint32_t ids[4], nr = 4;
	int fd, err, sw;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(fd >= 0);
	/* Not a BPF program fd. */
	err = tally_sys_set_bpf(fd, 0);
	assert_true(err == -EBADF || err == -EINVAL);
	assert_int_equal(errno, -err);
	err = tally_sys_query_bpf(fd, ids, &nr);
	assert_int_equal(err, 0);
	assert_int_equal(nr, 0);	/* no program attached */
	assert_int_equal(tally_sys_query_bpf(fd, NULL, NULL), -EINVAL);
	close(fd);
	/* QUERY_BPF is for tracepoints. */
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	sw = tally_sys_open(&a, 0, -1, -1, 0);
	assert_true(sw >= 0);
	nr = 4;
	assert_int_equal(tally_sys_query_bpf(sw, ids, &nr), -EINVAL);
	close(sw);
}

static volatile uint64_t v1, v2;

static void test_modify_attributes(void **state)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, (uint64_t)(uintptr_t)&v1);
	fd = tally_sys_open(&a, 0, -1, -1, 0);
	if (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENOSPC)
		skip();
	assert_true(fd >= 0);
	for (int i = 0; i < 10; i++)
		v1 = (uint64_t)i;
	assert_int_equal(val(fd), 10);
	/* Move the breakpoint to v2 (Linux 4.17, breakpoints only). */
	a.bp_addr = (uint64_t)(uintptr_t)&v2;
	assert_int_equal(tally_sys_modify_attributes(fd, &a), 0);
	for (int i = 0; i < 5; i++) {
		v1 = (uint64_t)i;
		v2 = (uint64_t)i;
	}
	assert_int_equal(val(fd), 15);
	close(fd);
	assert_int_equal(tally_sys_modify_attributes(fd, NULL), -EINVAL);
}

static void test_prctl(void **state)
{
	int fd = open_getpid(false, -1, 0);

	if (fd == -1)
		skip();
	assert_int_equal(tally_sys_task_disable(), 0);
	do_getpid(N);
	assert_int_equal(val(fd), 0);
	assert_int_equal(tally_sys_task_enable(), 0);
	do_getpid(N);
	assert_int_equal(val(fd), N);
	close(fd);
}

/* PID_CGROUP: count only tasks of a fresh cgroup (v2), on every CPU. */
static void test_pid_cgroup(void **state)
{
	char dir[128], procs[160], pidbuf[32];
	struct perf_event_attr a;
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_evlist *l;
	struct tally_evsel *e;
	struct tally_aggr *g;
	int cg, go[2], st, err, pfd;
	pid_t child;

	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified",
					     "/sys/fs/cgroup/perf_event" };
	const char *root = NULL;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !root; i++) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", roots[i]);
		if (!access(procs, W_OK))
			root = roots[i];
	}
	if (!tp_attr(&a, "syscalls", "sys_enter_getpid") || !root)
		skip();
	snprintf(dir, sizeof(dir), "%s/tally-test-%d", root, (int)getpid());
	if (mkdir(dir, 0755))
		skip();
	cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(cg >= 0);
	l = tally_evlist__new();
	a.disabled = 0;
	e = tally_evsel__new(&a, NULL);
	tally_evlist__add(l, e);
	TALLY_OPTS(tally_evlist_open_opts, o, .flags = PERF_FLAG_PID_CGROUP, .cgroup_fd = cg);
	err = tally_evlist__open(l, cpus, any, &o);
	assert_int_equal(err, 0);
	assert_int_equal(pipe(go), 0);
	child = fork();
	if (child == 0) {
		char c;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		do_getpid(N);
		_exit(0);
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	pfd = open(procs, O_WRONLY | O_CLOEXEC);
	assert_true(pfd >= 0);
	snprintf(pidbuf, sizeof(pidbuf), "%d", (int)child);
	assert_true(write(pfd, pidbuf, strlen(pidbuf)) > 0);
	close(pfd);
	do_getpid(N);	/* ours are outside the cgroup: not counted */
	assert_int_equal(write(go[1], "g", 1), 1);
	waitpid(child, &st, 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &g), 1);
	assert_int_equal(g[0].counts.val, N);
	free(g);
	tally_evlist__free(l);
	close(go[0]);
	close(go[1]);
	close(cg);
	rmdir(dir);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(any);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cloexec_and_read),
		cmocka_unit_test(test_enable_disable_reset),
		cmocka_unit_test(test_no_group_flag),
		cmocka_unit_test(test_fd_output_flag),
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_evsel_filter),
		cmocka_unit_test(test_period_refresh),
		cmocka_unit_test(test_output_and_pause),
		cmocka_unit_test(test_bpf_ioctls),
		cmocka_unit_test(test_modify_attributes),
		cmocka_unit_test(test_prctl),
		cmocka_unit_test(test_pid_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
