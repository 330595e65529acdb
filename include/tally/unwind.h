/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.2: DWARF unwinding of `--call-graph dwarf` samples on
 * elfutils' libdw CFI: the sample's user registers and its copy of the
 * user stack, the rules of the files the process had mapped. Each file's
 * ELF and CFI are read once for the session and shared by every process
 * mapping it, at each one's load bias; where a file has no rule for a pc,
 * the frame pointer chain is followed (as libdwfl's x86-64 backend).
 *
 *	struct tally_unwind *u = tally_unwind__new();
 *	n = tally_unwind__sample(u, machine, pid, tid, maps_gen, &smp->regs_user,
 *				 smp->stack_user.data, smp->stack_user.dyn_size,
 *				 ips, 127, &why);
 */
#ifndef TALLY_UNWIND_H
#define TALLY_UNWIND_H

#include <stdint.h>
#include <tally/core.h>
#include <tally/record.h>
#include <tally/symbols.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_unwind;

/* Why a chain ended before the process's first frame. */
enum tally_unwind_stop {
	TALLY_UNWIND_DONE,		/* reached the outermost frame (or the limit) */
	TALLY_UNWIND_STACK_SHORT,	/* the stack copy ended (record a bigger --call-graph dwarf,SIZE) */
	TALLY_UNWIND_NO_MAP,		/* an address outside every mapped file (JIT, freed code) */
	TALLY_UNWIND_NO_CFI,		/* a file without .eh_frame/.debug_frame for that address */
	TALLY_UNWIND_NO_REGS,		/* the sample carries no user registers (a kernel thread) */
	TALLY_UNWIND__NR,
};

TALLY_API const char *tally_unwind_stop__str(enum tally_unwind_stop why);

TALLY_API struct tally_unwind *tally_unwind__new(void);
TALLY_API void tally_unwind__free(struct tally_unwind *u);
/*
 * The architecture whose samples u unwinds, as perf's header says it
 * (uname -m: "x86_64", "aarch64"; "arm64" too): its registers and CFI
 * columns. The default is the host's. -EOPNOTSUPP for any other. Added
 * in 0.5.
 */
TALLY_API int tally_unwind__set_arch(struct tally_unwind *u, const char *arch);

/*
 * The user frames of one sample, innermost first: ips[0] is the
 * interrupted user pc, then each caller's return address less one (inside
 * the call, as perf's unwinder gives them). As perf, a pc no map holds
 * ends the chain without it (one in the interrupted pc: no frames, and
 * *why TALLY_UNWIND_NO_MAP). maps_gen is
 * not needed any more (the maps are looked up per frame): pass anything. Returns the frames written (0..max), or -errno;
 * *why says where the chain ended.
 */
TALLY_API int tally_unwind__sample(struct tally_unwind *u, struct tally_machine *m, int32_t pid,
				   int32_t tid, uint64_t maps_gen,
				   const struct tally_sample_regs *regs, const void *stack,
				   uint64_t stack_size, uint64_t *ips, int max,
				   enum tally_unwind_stop *why);

#ifdef __cplusplus
}
#endif

#endif
