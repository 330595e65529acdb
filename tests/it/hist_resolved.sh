#!/usr/bin/env bash
# The histogram counts what the session resolved (issue 31): a sample's
# thread name, its tracepoint's text and its addresses' symbols are the
# session's answers, resolved once there (lib/session/resolved_internal.h),
# and lib/hist only keys and counts. Read from the built objects: no
# histogram object calls the lookups themselves (the machine's names, the
# trace printer, a resolver's life, the symbols), which it once did for
# every sample, climbing back up into the session that called it.
. tests/it/lib.sh
objs=$(ls "$BUILD"/lib/hist/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	fail "the histogram's objects are built ($BUILD/lib/hist/*.o)"
	done_testing
	exit 0
fi
calls=$(nm -u $objs | awk '{print $NF}' | sort -u)
for f in tally_session__comm tally_machine__comm_of tally_session__trace_fmt tally_trace_fmt__print \
	 tally_session__chain_corrupt tally_session__symbols tally_session__machine \
	 tally_session__file_rank tally__resolver_free tally_strpool__new; do
	if echo "$calls" | grep -qx "$f"; then
		fail "lib/hist calls $f: the session resolves it"
	else
		ok "lib/hist does not call $f"
	fi
done
# ...and asks the session for them instead
for f in tally__session_sample_trace tally__session_sample_resolve tally__session_resolver; do
	check "lib/hist asks the session: $f" sh -c "echo '$calls' | grep -qx '$f'"
done
done_testing
