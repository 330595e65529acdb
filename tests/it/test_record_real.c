// SPDX-License-Identifier: MIT
/*
 * The record decoder on records the running kernel writes: sample the
 * syscalls:sys_enter_getpid tracepoint (period 1) with a rich layout
 * (IDENTIFIER|IP|TID|TIME|ID|CPU|PERIOD|READ|CALLCHAIN|RAW, a group read
 * with a task-clock member, sample_id_all, comm and mmap2 side-band),
 * make N getpid() calls, a prctl(PR_SET_NAME) and an executable mmap,
 * and decode every record: exactly N samples, all ours, the ids those of
 * PERF_EVENT_IOC_ID, the tracepoint's own fields inside RAW, a COMM and
 * an MMAP2 that say what we did, and every record's trailer ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>
#include "oracle_util.h"
#include <tally/mmap.h>
#include <tally/record.h>
#include <tally/sys.h>

#define N_CALLS 1000
#define COMM_NAME "tally-rec-it"

struct seen {
	uint32_t pid, tid;
	uint64_t leader_id, member_id;
	long tp_id;
	uint64_t samples, comms, mmap2s, others, last_time;
	uint64_t last_member_value;
	ino_t exe_ino;
};

/* The tracepoint id, mounting tracefs first if nobody has. */
static long getpid_tp_id(void)
{
	long id = tp_id("syscalls", "sys_enter_getpid");

	if (id < 0 && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		id = tp_id("syscalls", "sys_enter_getpid");
	return id;
}

static void check_sample(struct seen *s, const struct tally_record *rec)
{
	const struct tally_sample *sm = &rec->u.sample;
	struct tally_read_entry e;
	uint16_t common_type;
	int32_t common_pid, nr;
	uint64_t i;

	assert_int_equal(sm->pid, s->pid);
	assert_int_equal(sm->tid, s->tid);
	assert_int_equal(sm->identifier, s->leader_id);
	assert_int_equal(sm->id, s->leader_id);
	assert_int_equal(sm->period, 1);
	assert_true(sm->cpu < (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
	assert_true(sm->time >= s->last_time);
	s->last_time = sm->time;
	assert_true(sm->ip != 0);
	/* the group read: leader then the task-clock member, each with its id */
	assert_int_equal(sm->read.nr, 2);
	assert_true(sm->read.time_enabled >= sm->read.time_running);
	assert_int_equal(tally_read_values__entry(&sm->read, 0, &e), 0);
	assert_int_equal(e.id, s->leader_id);
	assert_int_equal(e.lost, 0);
	assert_int_equal(tally_read_values__entry(&sm->read, 1, &e), 0);
	assert_int_equal(e.id, s->member_id);
	assert_true(e.value >= s->last_member_value);	/* task-clock ns only grow */
	s->last_member_value = e.value;
	/*
	 * The chain opens with a context marker; syscall tracepoints hand perf
	 * the task's user regs (6.18 writes no kernel part), so the user part
	 * is there whatever comes before it.
	 */
	assert_true(sm->callchain.nr >= 2);
	assert_true(sm->callchain.ips[0] == PERF_CONTEXT_KERNEL ||
		    sm->callchain.ips[0] == PERF_CONTEXT_USER);
	for (i = 0; i < sm->callchain.nr && sm->callchain.ips[i] != PERF_CONTEXT_USER; i++)
		;
	assert_true(i + 1 < sm->callchain.nr);	/* the marker and at least one user ip */
	/* RAW is the tracepoint's record: common_type, common_pid, __syscall_nr
	 * (offsets 0, 4 and 8 in events/syscalls/sys_enter_getpid/format) */
	assert_true(sm->raw.size >= 12);
	memcpy(&common_type, sm->raw.data, 2);
	memcpy(&common_pid, (const char *)sm->raw.data + 4, 4);
	memcpy(&nr, (const char *)sm->raw.data + 8, 4);
	assert_int_equal(common_type, s->tp_id);
	assert_int_equal(common_pid, s->tid);
	assert_int_equal(nr, SYS_getpid);
	s->samples++;
}

static void drain(struct tally_mmap *m, const struct tally_record_layout *lay, struct seen *s)
{
	const struct perf_event_header *ev;
	struct tally_record rec;
	uint64_t id;

	if (tally_mmap__read_init(m))
		return;
	while ((ev = tally_mmap__read_event(m))) {
		int ret = tally_record__parse(ev, ev->size, lay, &rec);

		if (ret)
			fail_msg("%s record (%u bytes) did not decode: %d",
				 tally_record__type_name(ev->type) ?: "unknown", ev->size, ret);
		assert_non_null(tally_record__type_name(rec.type));
		/* every kernel record carries the leader's id, where __id finds it */
		assert_int_equal(tally_record__id(ev, ev->size, lay, &id), 0);
		assert_int_equal(id, s->leader_id);
		assert_true(rec.has_sid);
		assert_int_equal(rec.sid.id, s->leader_id);
		if (rec.type == PERF_RECORD_SAMPLE) {
			check_sample(s, &rec);
			continue;
		}
		/* side-band records of our own thread, with our trailer */
		assert_int_equal(rec.sid.pid, s->pid);
		assert_int_equal(rec.sid.tid, s->tid);
		if (rec.type == PERF_RECORD_COMM) {
			assert_string_equal(rec.u.comm.comm, COMM_NAME);
			assert_int_equal(rec.u.comm.pid, s->pid);
			assert_int_equal(rec.u.comm.tid, s->tid);
			s->comms++;
		} else if (rec.type == PERF_RECORD_MMAP2) {
			const struct tally_record_mmap2 *mm = &rec.u.mmap2;

			if (strstr(mm->filename, "test_record_real")) {
				assert_int_equal(mm->pid, s->pid);
				assert_false(mm->has_build_id);	/* attr.build_id not set */
				assert_int_equal(mm->ino, s->exe_ino);
				assert_true(mm->prot & PROT_EXEC);
				assert_int_equal(mm->pgoff, 0);
				s->mmap2s++;
			}
		} else {
			s->others++;
		}
	}
	assert_int_equal(errno, 0);
	tally_mmap__read_done(m);
}

static void test_real_records(void **state)
{
	struct perf_event_attr a, b;
	struct tally_record_layout lay;
	struct seen s = { .pid = (uint32_t)getpid(), .tid = (uint32_t)syscall(SYS_gettid) };
	char old_comm[17] = "";
	struct tally_mmap *m;
	struct stat st;
	void *map;
	int lfd, mfd, efd;

	s.tp_id = getpid_tp_id();
	if (s.tp_id < 0)
		skip();	/* no tracefs and cannot mount it: not root? */
	tally_attr__init(&a, PERF_TYPE_TRACEPOINT, (uint64_t)s.tp_id);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_LOST;
	a.sample_id_all = 1;
	a.comm = 1;
	a.mmap2 = 1;
	a.mmap = 1;
	a.disabled = 1;
	lfd = tally_sys_open(&a, 0, -1, -1, 0);
	if (lfd == -EINVAL) {	/* PERF_FORMAT_LOST is Linux 6.0 */
		a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		lfd = tally_sys_open(&a, 0, -1, -1, 0);
	}
	assert_true(lfd >= 0);
	tally_attr__init(&b, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	b.read_format = a.read_format;
	mfd = tally_sys_open(&b, 0, -1, lfd, 0);
	assert_true(mfd >= 0);
	assert_int_equal(tally_sys_id(lfd, &s.leader_id), 0);
	assert_int_equal(tally_sys_id(mfd, &s.member_id), 0);
	assert_true(s.leader_id != s.member_id);
	tally_record_layout__from_attr(&lay, &a);

	m = tally_mmap__new(lfd, 256);
	assert_non_null(m);
	efd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(efd >= 0);
	assert_int_equal(fstat(efd, &st), 0);
	s.exe_ino = st.st_ino;
	prctl(PR_GET_NAME, old_comm);

	assert_int_equal(tally_sys_enable(lfd, true), 0);
	for (long i = 0; i < N_CALLS; i++) {
		syscall(SYS_getpid);
		if (i % 100 == 99)
			drain(m, &lay, &s);
	}
	assert_int_equal(prctl(PR_SET_NAME, COMM_NAME), 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, efd, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(tally_sys_disable(lfd, true), 0);
	drain(m, &lay, &s);

	print_message("# %llu samples, %llu comm, %llu mmap2 of ours, %llu other records\n",
		      (unsigned long long)s.samples, (unsigned long long)s.comms,
		      (unsigned long long)s.mmap2s, (unsigned long long)s.others);
	assert_int_equal(s.samples, N_CALLS);
	assert_int_equal(tally_mmap__lost(m), 0);
	assert_int_equal(s.comms, 1);
	assert_int_equal(s.mmap2s, 1);
	assert_true(s.last_member_value > 0);

	munmap(map, 4096);
	prctl(PR_SET_NAME, old_comm);
	close(efd);
	tally_mmap__free(m);
	close(mfd);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
