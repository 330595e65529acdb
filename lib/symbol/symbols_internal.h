/* SPDX-License-Identifier: MIT */
/* Shared by maps.c, dso.c, symbols.c and demangle.c. */
#ifndef TALLY_SYMBOLS_INTERNAL_H
#define TALLY_SYMBOLS_INTERNAL_H

#include <stdint.h>
#include <tally/symbols.h>

/* One /proc/kallsyms line, split in place. 0 or -EINVAL. */
int tally__kallsyms_line(char *line, uint64_t *addr, char *type, char **name,
			 char **module);

/* A number no other machine of this process had: a cache key. */
uint64_t tally__machine_id(const struct tally_machine *m);

#endif
