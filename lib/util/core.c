// SPDX-License-Identifier: MIT
/* Logging, version, opts checks and small file helpers. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "internal.h"

__attribute__((format(printf, 2, 0)))
static int default_print(enum tally_log_level level, const char *fmt, va_list ap)
{
	/* Quiet by default beyond warnings: the library never chatters. */
	if (level > TALLY_LOG_WARN && !getenv("TALLY_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static tally_print_fn_t print_fn = default_print;

tally_print_fn_t tally_set_print(tally_print_fn_t fn)
{
	tally_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void tally__pr(enum tally_log_level level, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	if (!print_fn)
		return;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
	errno = saved;
}

/* The Makefile's VERSION: the release whose node of lib/libtally.map holds the newest symbols. */
const char *tally_version(void)
{
	return TALLY_VERSION;
}

bool tally__opts_valid(const void *opts, size_t known_sz, size_t user_sz)
{
	const unsigned char *p = opts;

	if (user_sz < sizeof(size_t))
		return false;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return false;
	return true;
}

int tally__read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	if (len == 0)
		return tally__err(EINVAL);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return tally__err(err);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int tally__read_filef(char *buf, size_t len, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return tally__err(ENAMETOOLONG);
	return tally__read_file(path, buf, len);
}

bool tally__two_threads(void)
{
	const char *e = getenv("TALLY_THREADS");

	if (e && atoi(e) == 1)
		return false;
	return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

void *tally__calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return tally__err_ptr(ENOMEM);
	return calloc(n ? n : 1, size ? size : 1);
}

void *tally__reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return tally__err_ptr(ENOMEM);
	return realloc(p, (n && size) ? n * size : 1);
}
