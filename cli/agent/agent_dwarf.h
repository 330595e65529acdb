/* SPDX-License-Identifier: MIT */
/*
 * --dwarf-pid, --dwarf-comm: chosen processes sampled with DWARF call
 * chains (their user stacks copied and unwound), each through an evlist
 * and session of its own; the system-wide frame-pointer event leaves
 * their samples to it. Code built without frame pointers (most distro
 * libraries, -O2 builds) gets whole stacks that way, at the cost of an
 * 8 KB stack copy per sample, paid only by the processes that need it.
 */
#ifndef TALLY_CLI_AGENT_DWARF_H
#define TALLY_CLI_AGENT_DWARF_H

#include <stdbool.h>
#include <stdint.h>
#include "agent.h"

struct agent_agg;
struct agent_dwarf;

struct agent_dwarf *agent_dwarf_new(const struct agent_cfg *c, struct agent_agg *agg);
void agent_dwarf_free(struct agent_dwarf *d);
/* Follow the pids asked for (--dwarf-pid, once) and the new ones of the names (--dwarf-comm). */
void agent_dwarf_scan(struct agent_dwarf *d);
/* Take each followed process's samples into the aggregate. -errno on a failure said. */
int agent_dwarf_poll(struct agent_dwarf *d);
/* The rest, then the processes gone are let go (call right after a flush: their frames' names go). */
void agent_dwarf_reap(struct agent_dwarf *d);
/* Its samples come through DWARF: the system-wide event skips them. */
bool agent_dwarf_follows(const struct agent_dwarf *d, int32_t pid);

#endif
