/* SPDX-License-Identifier: MIT */
/*
 * The syscall, its ioctls and prctls, and the attr builder.
 * lib/sys.c is the only file that calls perf_event_open(2) or ioctl(2).
 */
#ifndef TALLY_SYS_H
#define TALLY_SYS_H

#include <stdio.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * perf_event_open(2). Returns an fd or -errno. attr->size is filled in if
 * zero. On E2BIG (an older kernel) the call is retried with the size the
 * kernel wrote back, provided every byte past it is zero; otherwise
 * -E2BIG stays, because silently dropping a requested field is wrong data.
 * PERF_FLAG_FD_CLOEXEC is always added.
 */
TALLY_API int tally_sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			     int group_fd, unsigned long flags);

/* Every ioctl of the man page. 0 or -errno. */
TALLY_API int tally_sys_enable(int fd, bool group);
TALLY_API int tally_sys_disable(int fd, bool group);
TALLY_API int tally_sys_reset(int fd, bool group);
TALLY_API int tally_sys_refresh(int fd, int n);
TALLY_API int tally_sys_period(int fd, uint64_t period);
TALLY_API int tally_sys_set_output(int fd, int target_fd); /* -1 stops output */
TALLY_API int tally_sys_set_filter(int fd, const char *filter);
TALLY_API int tally_sys_id(int fd, uint64_t *id);
TALLY_API int tally_sys_set_bpf(int fd, int prog_fd);
TALLY_API int tally_sys_pause_output(int fd, bool pause);
/* ids: caller array of *nr entries; on return *nr is the kernel's count. */
TALLY_API int tally_sys_query_bpf(int fd, uint32_t *ids, uint32_t *nr);
TALLY_API int tally_sys_modify_attributes(int fd, struct perf_event_attr *attr);

/* PR_TASK_PERF_EVENTS_ENABLE/DISABLE: all counters of the calling task. */
TALLY_API int tally_sys_task_enable(void);
TALLY_API int tally_sys_task_disable(void);

/* Read exactly len bytes (a counter read); -errno, or -EIO on a short read. */
TALLY_API int tally_sys_read(int fd, void *buf, size_t len);

/*
 * The attr builder. tally_attr__init() zeroes and sets size. Every field
 * named in the man page can also be set and read by name ("exclude_kernel",
 * "sample_period", "bp_addr", "config1", ...) so that tools and parsers
 * share one table; it is also what `tally stat -v` prints.
 */
TALLY_API void tally_attr__init(struct perf_event_attr *attr, uint32_t type,
				uint64_t config);
/* 0, or -ENOENT for an unknown name, -ERANGE if val does not fit. */
TALLY_API int tally_attr__set(struct perf_event_attr *attr, const char *field,
			      uint64_t val);
TALLY_API int tally_attr__get(const struct perf_event_attr *attr,
			      const char *field, uint64_t *val);
/* Iterate the field table: name of field i, NULL past the end. */
TALLY_API const char *tally_attr__field_name(size_t i);
/* Print the non-zero fields, one "  name  value" per line, as perf -vv. */
TALLY_API int tally_attr__fprint(const struct perf_event_attr *attr, FILE *fp);

#ifdef __cplusplus
}
#endif
#endif
