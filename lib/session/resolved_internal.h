/* SPDX-License-Identifier: MIT */
/*
 * A sample as the session resolved it, for what counts samples (the
 * histogram, lib/hist): its thread's name, its tracepoint's text, its
 * addresses' symbols. Each is resolved once, in the session, and cached
 * there: the addresses in the session's resolvers (one per set of
 * options, shared by the session's own frames and every histogram
 * asking the same), a text for the sample being delivered (one copy of
 * each distinct text for the session). The counting then calls down
 * only, and only these.
 */
#ifndef TALLY_RESOLVED_INTERNAL_H
#define TALLY_RESOLVED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/session.h>
#include "resolve_internal.h"

/* perf's name for ts's thread where the session gave none (no_comm): ":-1" without memory */
const char *tally__session_sample_comm_slow(struct tally_session *s,
					    const struct tally_session_sample *ts);

/*
 * The name of ts's thread: thread.comm, else the session's answer.
 * Inline: most samples' name is the one the session gave them.
 */
static inline const char *tally__session_sample_comm(struct tally_session *s,
						     const struct tally_session_sample *ts)
{
	return ts->thread.comm ? ts->thread.comm : tally__session_sample_comm_slow(s, ts);
}

/*
 * libtraceevent's text of ts's tracepoint fields (one copy per distinct
 * text: compare the pointers), "N/A" off tracepoints, "" when it cannot
 * be printed; cached for the sample being delivered. Valid until the
 * session closes.
 */
const char *tally__session_sample_trace(struct tally_session *s,
					const struct tally_session_sample *ts);

/*
 * ts's addresses into r (the session's, tally__session_resolver): its ip
 * and the first nr frames of its chain (nr: what the caller keeps of it,
 * at most CHAIN_MAX), the user ones now, with the maps as at its time;
 * the kernel ones wait for their first lookup (their map does not
 * change, and kallsyms may still be being read on the other thread).
 * Returns the frames as perf shows the chain: nr, or 0 for a chain perf
 * drops (tally_session__chain_corrupt). out (NULL: none; room for the
 * frames kept and one): each user frame's answer, the ip's last (after
 * min(nr, CHAIN_MAX) frames), NULL for the others, for a caller that
 * keeps them (the histogram's shapes: no second lookup).
 */
uint32_t tally__session_sample_resolve(struct tally_session *s, struct resolver *r,
				       const struct tally_session_sample *ts, uint32_t nr,
				       struct where **out);

/*
 * smp's chain as perf's report walks it (thread__resolve_callchain_sample)
 * into *buf (grown to *cap): max_stack's frames (0: all; the first ones
 * in callee order, the last in caller order, with the context marker they
 * are under), and with hide_unresolved (-U) not the frames r resolves to
 * no symbol (perf's add_callchain_ip appends none). The entries kept, or
 * -ENOMEM.
 */
long tally__session_chain_view(struct resolver *r, const struct tally_sample *smp,
				uint32_t max_stack, bool caller, bool hide_unresolved, uint64_t **buf,
				size_t *cap);

/*
 * A branch's end as perf resolves it (its cpumode is not the sample's:
 * a branch may cross from user to kernel): in ts's thread's maps, else
 * the kernel's. *level: '.', 'k', or perf's 'H' where neither holds it
 * (the user's where returned, no map). NULL without memory. At the
 * sample's time (tally__session_branch_resolve), the user lookups are
 * made with the maps as then; later asks find them.
 */
struct where *tally__session_branch_where(struct resolver *r, int32_t pid, int32_t tid,
					  uint64_t addr, char *level);
void tally__session_branch_resolve(struct tally_session *s, struct resolver *r,
				   const struct tally_session_sample *ts, uint64_t from, uint64_t to);

/*
 * The session's resolver for these options, made at the first ask, held
 * until tally__session_resolver_put (the session frees it at close).
 * NULL without memory.
 */
struct resolver *tally__session_resolver(struct tally_session *s, bool srcline, bool no_inline);
void tally__session_resolver_put(struct resolver *r);

/*
 * The session's resolver of data addresses (perf finds them among a
 * file's data objects as well as its functions: symbols of their own),
 * made at the first ask; put as the others. NULL without memory.
 */
struct resolver *tally__session_data_resolver(struct tally_session *s);

/*
 * session_cgroup.c: the side band's cgroups. A CGROUP record's path for
 * id (the first one's, as perf's), NULL where none named it; a thread's
 * cgroup namespace (dev, ino) from its last NAMESPACES record, 0 and 0
 * without one (perf's cgroup_id key). The notes are the session's
 * record processing's; a FORK forgets the new tid's namespaces.
 */
struct perf_ns_link_info;
void tally__session_cgroup_note(struct tally_session *s, uint64_t id, const char *path);
const char *tally__session_cgroup_name(const struct tally_session *s, uint64_t id);
void tally__session_ns_note(struct tally_session *s, int32_t tid, uint64_t nr,
			    const struct perf_ns_link_info *li);
void tally__session_ns_forget(struct tally_session *s, int32_t tid);
void tally__session_cgroup_ns(const struct tally_session *s, int32_t tid, uint64_t *dev,
			      uint64_t *ino);
void tally__session_cgroups_free(struct tally_session *s);

#endif
