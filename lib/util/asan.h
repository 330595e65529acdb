/* SPDX-License-Identifier: MIT */
/*
 * Under AddressSanitizer a fresh file mapping can land where an earlier
 * fake stack left "stack redzone" in the shadow: the mappings we read
 * clear it. Nothing without ASan.
 */
#ifndef TALLY_ASAN_H
#define TALLY_ASAN_H

#include <stddef.h>

/* gcc says __SANITIZE_ADDRESS__, clang (make fuzz) __has_feature */
#if !defined(__SANITIZE_ADDRESS__) && defined(__has_feature)
#if __has_feature(address_sanitizer)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

static inline void tally__asan_unpoison(const void *p, size_t len)
{
#ifdef __SANITIZE_ADDRESS__
	ASAN_UNPOISON_MEMORY_REGION(p, len);
#else
	(void)p;
	(void)len;
#endif
}

#endif
