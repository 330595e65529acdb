/* SPDX-License-Identifier: MIT */
/*
 * Numbers as printf writes them, without printf: pictures and reports of
 * real programs write tens of thousands, and glibc's float formatting was
 * a sixth of their time.
 */
#ifndef TALLY_FMT_H
#define TALLY_FMT_H

#include <stddef.h>
#include <stdint.h>

/* snprintf(buf, len, "%.*f", prec, v) for prec 1 or 2; len at least 32. */
int tally__fmt_fixed(char *buf, size_t len, double v, int prec);
/* snprintf(buf, len, "%llu", v); len at least 21. */
int tally__fmt_u64(char *buf, size_t len, uint64_t v);

#endif
