// SPDX-License-Identifier: MIT
/*
 * A session's --call-graph dwarf samples: their user frames unwound from
 * the stack copy (libdwfl, through lib/symbol/unwind.c), the DWARF of the
 * files they run through opened ahead on the symbols' helper thread.
 */
#include <stdlib.h>
#include <tally/session.h>
#include "internal.h"
#include "data_read_internal.h"
#include "session_internal.h"
#include "symbols_internal.h"

/*
 * The files an unwound chain runs through have their DWARF opened on the
 * symbols' helper thread while reading goes on: the inline frames need it
 * later, and decompressing a debug file is most of their cost.
 */
static void warm_dwarf(struct tally_session *s, const struct tally_sample *smp, uint64_t n)
{
	for (uint64_t i = n; i < smp->callchain.nr && s->nwarmed < 64; i++) {
		uint64_t map_ip;
		const struct tally_map *map = tally_machine__find_map(
			s->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->callchain.ips[i],
			TALLY_CPUMODE_USER, &map_ip);
		struct tally_dso *d;
		int k;

		if (!map || map->anon || map->kernel)
			continue;
		for (k = 0; k < s->nwarmed && s->warmed[k] != map->filename; k++)
			;
		if (k < s->nwarmed)
			continue;
		s->warmed[s->nwarmed++] = map->filename;	/* interned by the machine */
		d = tally_symbols__dso(s->syms, map, (int32_t)smp->pid);
		if (d)
			tally_symbols__preload_dwarf(s->syms, d);
	}
}

/* the unwinder's file for a map: the recorded build's copy where the file was rebuilt */
static const char *code_path_of(void *ctx, const struct tally_map *map, int32_t pid)
{
	struct tally_session *s = ctx;
	struct tally_dso *d = tally_symbols__dso(s->syms, map, pid);

	return d ? tally_dso__code_path(d) : NULL;
}

/* perf's --max-stack default */
#define UNWIND_MAX 127
#define UW_CAP (65536 / 8 + UNWIND_MAX + 2)

/*
 * A --call-graph dwarf sample: the kernel's part of its chain as
 * recorded, then our PERF_CONTEXT_USER (TALLY_CONTEXT_UNWOUND) and the user frames libdwfl finds in
 * its stack copy (perf's order: the kernel records no user part there).
 */
void tally__session_unwind_user(struct tally_session *s, struct tally_sample *smp)
{
	enum tally_unwind_stop why;
	uint64_t n = 0;
	int k;

	if (!smp->regs_user.nr || !smp->regs_user.abi)
		return;		/* a kernel thread: no user state */
	/* nothing copied (the kernel could not read the stack): as perf, no user frames */
	if (!smp->stack_user.dyn_size) {
		s->unwind_stops[TALLY_UNWIND_STACK_SHORT]++;
		return;
	}
	if (!s->uw) {
		const char *arch = s->rd ? tally_data_reader__feat_string(s->rd, TALLY_HEADER_ARCH) : NULL;

		if (!(s->uw = tally_unwind__new()))
			return;
		tally__unwind_set_path_of(s->uw, code_path_of, s);
		/* the recording's registers, not the host's: an arm64 file on x86 */
		if (arch && tally_unwind__set_arch(s->uw, arch))
			pr_debug("unwind: no register map for arch %s\n", arch);
	}
	if (!s->uw_ips && !(s->uw_ips = malloc(UW_CAP * sizeof(*s->uw_ips))))
		return;
	for (uint64_t i = 0; i < smp->callchain.nr && n < UW_CAP - UNWIND_MAX - 1; i++) {
		if (smp->callchain.ips[i] == PERF_CONTEXT_USER)
			break;
		s->uw_ips[n++] = smp->callchain.ips[i];
	}
	k = tally_unwind__sample(s->uw, s->m, (int32_t)smp->pid, (int32_t)smp->tid, s->maps_gen,
				 &smp->regs_user, smp->stack_user.data, smp->stack_user.dyn_size,
				 s->uw_ips + n + 1, UNWIND_MAX, &why);
	if (k <= 0)
		return;
	s->uw_ips[n] = TALLY_CONTEXT_UNWOUND;
	smp->callchain.ips = s->uw_ips;
	smp->callchain.nr = n + 1 + (uint64_t)k;
	s->unwound++;
	/* new files come with new maps: look again only when maps changed */
	if (!s->o.no_inline && s->nwarmed < 64 && s->syms && s->warm_gen != s->maps_gen) {
		s->warm_gen = s->maps_gen;
		warm_dwarf(s, smp, n + 1);
	}
	if ((unsigned)why < sizeof(s->unwind_stops) / sizeof(s->unwind_stops[0]))
		s->unwind_stops[why]++;
}

