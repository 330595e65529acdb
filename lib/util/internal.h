/* SPDX-License-Identifier: MIT */
/* libtally internals: shared by the lib directory only, never installed. */
#ifndef TALLY_INTERNAL_H
#define TALLY_INTERNAL_H

#include <sched.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tally/core.h>
#include <tally/hash.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

__attribute__((format(printf, 2, 3)))
void tally__pr(enum tally_log_level level, const char *fmt, ...);
#define pr_warn(...)  tally__pr(TALLY_LOG_WARN, __VA_ARGS__)
#define pr_info(...)  tally__pr(TALLY_LOG_INFO, __VA_ARGS__)
#define pr_debug(...) tally__pr(TALLY_LOG_DEBUG, __VA_ARGS__)

/* trace_fmt_check.c: the size of an event's field by name, -1 if none. */
typedef int (*tally__trace_field_fn)(void *ctx, const char *name);
/*
 * trace_fmt_check.c: 0 if libtraceevent may parse and print the print
 * format text (what follows "print fmt:"), 1 if it is the kernel's but
 * libtraceevent cannot read it (a statement expression: its fields are
 * printed raw, as perf's), else -EBADMSG and why.
 */
int tally__trace_fmt_check(const char *text, size_t len, tally__trace_field_fn field, void *ctx,
			   char *why, size_t whylen);
/*
 * trace_fmt_check.c: 0 if libtraceevent may parse a format's text before
 * its print format (name, ID, fields), else -EBADMSG and why.
 */
int tally__trace_fmt_check_fields(const char *text, size_t len, char *why, size_t whylen);

/* Return -err and set errno = err (err positive). */
static inline int tally__err(int err)
{
	errno = err;
	return -err;
}

/* NULL with errno = err. */
static inline void *tally__err_ptr(int err)
{
	errno = err;
	return NULL;
}

/*
 * libbpf-style opts check: opts may be NULL; sz must be at least the
 * size of the first member and bytes past what we know must be zero.
 */
bool tally__opts_valid(const void *opts, size_t known_sz, size_t user_sz);
#define TALLY_OPTS_VALID(opts, type)					\
	(!(opts) || tally__opts_valid(opts, sizeof(struct type), (opts)->sz))
#define TALLY_OPTS_GET(opts, field, def)				\
	((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field) ?	\
	 (opts)->field : (def))
#ifndef offsetofend
#define offsetofend(TYPE, FIELD) \
	(__builtin_offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))
#endif

/*
 * Multiplex scaling, the one implementation: val * ena / run in 128 bits,
 * saturating at UINT64_MAX. Callers handle run == 0 (never ran) and
 * run >= ena (ran the whole time: exact) themselves.
 */
static inline uint64_t tally__scale(uint64_t val, uint64_t ena, uint64_t run)
{
	unsigned __int128 v = (unsigned __int128)val * ena / run;

	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Read a small sysfs/procfs file into buf (NUL-terminated, trailing
 * newline stripped). Returns length or -errno. */
int tally__read_file(const char *path, char *buf, size_t len);
/* Same, path built with printf. */
__attribute__((format(printf, 3, 4)))
int tally__read_filef(char *buf, size_t len, const char *fmt, ...);

/* n * size with overflow check; NULL+ENOMEM on overflow or failure. */
/* Two CPUs or more, unless TALLY_THREADS=1 asks for one thread: whether a helper may help. */
bool tally__two_threads(void);
void *tally__calloc(size_t n, size_t size);
void *tally__reallocarray(void *p, size_t n, size_t size);

/* lib/mmap_page.c: tally_page__read() with this machine's rdpmc/mrs inlined. */
struct perf_event_mmap_page;
struct tally_page_read;
int tally__page_read_native(const struct perf_event_mmap_page *pc,
			    unsigned int flags, struct tally_page_read *out);
/* lib/count/selfmon.c: arm64's user-access config1 bits on a core PMU's event. */
struct perf_event_attr;
bool tally__selfmon_user_bits(struct perf_event_attr *attr, const char *sysfs);
/* ... and the cores of the one core PMU its events name: 1, 0 (none), -EXDEV (two). */
int tally__selfmon_pin_set(const struct perf_event_attr *attrs, size_t nr, const char *sysfs,
			   cpu_set_t *set);

/*
 * strpool.c: a copy of s that lives as long as the process (a string
 * pool, mutex protected, still reachable at exit so LeakSanitizer stays
 * quiet). For strings the kernel reads through a pointer in an attr: the
 * uprobe path in config1. Equal strings share one copy. NULL + errno on error.
 */
const char *tally__intern(const char *s);

/* perf's name of a cache event's config ("L1-dcache-load-misses"); snprintf's return. */
int tally__cache_name(uint64_t config, char *buf, size_t len);
/*
 * The name perf gives an attr nobody named (evsel__name: a file without
 * EVENT_DESC): "cpu-clock:HG", "raw 0x1c2:u", "unknown tracepoint". malloc'd.
 */
struct perf_event_attr;
char *tally__perf_attr_name(const struct perf_event_attr *attr);

#endif
