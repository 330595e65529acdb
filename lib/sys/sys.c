// SPDX-License-Identifier: MIT
/*
 * The only file that calls perf_event_open(2), its ioctls and prctls.
 * Every function returns 0 (or an fd) or -errno with errno set.
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tally/sys.h>
#include "internal.h"
#include "open_retry.h"

static int ret_errno(long r)
{
	return r < 0 ? -errno : (int)r;
}

int tally_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		   int group_fd, unsigned long flags)
{
	long fd;

	if (!attr)
		return tally__err(EINVAL);
	if (!attr->size)
		attr->size = sizeof(*attr);
	flags |= PERF_FLAG_FD_CLOEXEC;
	fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
	if (fd < 0 && errno == E2BIG) {
		if (tally__retry_e2big(attr))
			fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
		else
			errno = E2BIG;
	}
	return ret_errno(fd);
}

static int do_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int tally_sys_enable(int fd, bool group)
{
	return do_ioctl(fd, PERF_EVENT_IOC_ENABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int tally_sys_disable(int fd, bool group)
{
	return do_ioctl(fd, PERF_EVENT_IOC_DISABLE, group ? PERF_IOC_FLAG_GROUP : 0);
}

int tally_sys_reset(int fd, bool group)
{
	return do_ioctl(fd, PERF_EVENT_IOC_RESET, group ? PERF_IOC_FLAG_GROUP : 0);
}

int tally_sys_refresh(int fd, int n)
{
	return do_ioctl(fd, PERF_EVENT_IOC_REFRESH, (unsigned long)n);
}

int tally_sys_period(int fd, uint64_t period)
{
	/* The argument is a pointer to the new period (since Linux 2.6.36). */
	return do_ioctl(fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&period);
}

int tally_sys_set_output(int fd, int target_fd)
{
	return do_ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)(long)target_fd);
}

int tally_sys_set_filter(int fd, const char *filter)
{
	if (!filter)
		return tally__err(EINVAL);
	return do_ioctl(fd, PERF_EVENT_IOC_SET_FILTER, (unsigned long)filter);
}

int tally_sys_id(int fd, uint64_t *id)
{
	if (!id)
		return tally__err(EINVAL);
	return do_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)id);
}

int tally_sys_set_bpf(int fd, int prog_fd)
{
	return do_ioctl(fd, PERF_EVENT_IOC_SET_BPF, (unsigned long)prog_fd);
}

int tally_sys_pause_output(int fd, bool pause)
{
	return do_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0);
}

int tally_sys_query_bpf(int fd, uint32_t *ids, uint32_t *nr)
{
	struct perf_event_query_bpf *q;
	size_t sz;
	int err;

	if (!nr || (*nr && !ids))
		return tally__err(EINVAL);
	sz = sizeof(*q) + (size_t)*nr * sizeof(uint32_t);
	q = calloc(1, sz);
	if (!q)
		return tally__err(ENOMEM);
	q->ids_len = *nr;
	err = do_ioctl(fd, PERF_EVENT_IOC_QUERY_BPF, (unsigned long)q);
	if (!err || err == -ENOSPC) {
		uint32_t n = q->prog_cnt < *nr ? q->prog_cnt : *nr;

		if (n)
			memcpy(ids, q->ids, n * sizeof(uint32_t));
		*nr = q->prog_cnt;
	}
	free(q);
	if (err)
		errno = -err;
	return err;
}

int tally_sys_modify_attributes(int fd, struct perf_event_attr *attr)
{
	if (!attr)
		return tally__err(EINVAL);
	if (!attr->size)
		attr->size = sizeof(*attr);
	return do_ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, (unsigned long)attr);
}

int tally_sys_task_enable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0) < 0 ? -errno : 0;
}

int tally_sys_task_disable(void)
{
	return prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0) < 0 ? -errno : 0;
}

int tally_sys_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return tally__err(EIO);
	return 0;
}
