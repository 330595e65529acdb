/* SPDX-License-Identifier: MIT */
/*
 * kcore.c: the running kernel's code from /proc/kcore, an ELF core file
 * whose PT_LOAD segments map kernel addresses to file offsets (root
 * only), as perf annotate reads it when no vmlinux is at hand.
 */
#ifndef TALLY_KCORE_H
#define TALLY_KCORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tally__kcore;

/* 0 and *out, or -errno: ENOENT (no kcore in this kernel), EACCES (not root), ENOEXEC. */
int tally__kcore_open(const char *path, struct tally__kcore **out);
void tally__kcore_close(struct tally__kcore *k);
/*
 * Up to len bytes at the kernel address addr into buf, within the one
 * segment holding addr: how many, or -ENOENT when none holds it, -EIO.
 */
ssize_t tally__kcore_read(struct tally__kcore *k, uint64_t addr, void *buf, size_t len);

#endif
