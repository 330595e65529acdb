/* SPDX-License-Identifier: MIT */
/* libtally: common definitions, errors and logging. */
#ifndef TALLY_CORE_H
#define TALLY_CORE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_API __attribute__((visibility("default")))

/*
 * Error rule (every exported function): int functions return 0 (or a
 * count) on success and a negative errno on failure, with errno set too;
 * pointer functions return NULL and set errno.
 */

/*
 * Extensible options, as libbpf does: the first member of every *_opts
 * struct is `size_t sz`; the library ignores fields past sz and rejects
 * non-zero bytes it does not know (-E2BIG). NULL opts means defaults.
 */
#define TALLY_OPTS(TYPE, NAME, ...)					\
	struct TYPE NAME = ({						\
		struct TYPE ___##NAME;					\
		__builtin_memset(&___##NAME, 0, sizeof(___##NAME));	\
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };\
	})

enum tally_log_level {
	TALLY_LOG_WARN,
	TALLY_LOG_INFO,
	TALLY_LOG_DEBUG,
};

/* One callback for all library logging; the library never prints itself. */
typedef int (*tally_print_fn_t)(enum tally_log_level level, const char *fmt,
				va_list ap);
TALLY_API tally_print_fn_t tally_set_print(tally_print_fn_t fn);

TALLY_API const char *tally_version(void);

/*
 * Human message for a negative (or positive) errno returned by libtally.
 * `event` (may be NULL) is put first as "event: " for context (an event's
 * name, a path).
 *
 * attr NULL, any call's error: strerror's text and the errno's name, as
 * "No such file or directory (ENOENT)".
 *
 * attr set: err is the kernel's answer to opening that event
 * (perf_event_open; tally_evsel__strerror passes the evsel's), explained
 * with what to do: EACCES/EPERM name perf_event_paranoid (with its
 * current value) and CAP_PERFMON; EMFILE names RLIMIT_NOFILE; ENOENT and
 * EOPNOTSUPP on hardware events say the machine has no hardware PMU;
 * EINVAL, E2BIG, EBUSY, ESRCH, ENOSPC, EOVERFLOW... what they mean there.
 * (Before 0.4 every errno got the open's advice, attr or not.)
 *
 * Returns buf ("" when buf is NULL or len 0).
 */
struct perf_event_attr;
TALLY_API const char *tally_strerror(int err, const struct perf_event_attr *attr,
				     const char *event, char *buf, size_t len);

/* Raise RLIMIT_NOFILE's soft limit to the hard limit. 0 or -errno. */
TALLY_API int tally_raise_nofile_limit(void);

#ifdef __cplusplus
}
#endif
#endif
