// SPDX-License-Identifier: MIT
/* report's closing note on DWARF unwinding (the file's header: cli/file_header.c). */
#include "report_header.h"

/* --call-graph dwarf: how many chains ended early, and why (perf does not say). */
void report_print_unwind(const struct tally_session *ss, bool quiet)
{
	uint64_t early = 0;
	TALLY_OPTS(tally_session_stats, st);

	if (tally_session__stats(ss, &st) || !st.unwound)
		return;
	for (int w = 1; w < TALLY_UNWIND__NR; w++)
		early += st.unwind_stops[w];
	if (quiet)
		return;
	printf("#\n# DWARF unwinding: %llu samples' user stacks unwound, %llu chains ended early%s\n",
	       (unsigned long long)st.unwound, (unsigned long long)early, early ? ":" : "");
	for (int w = 1; w < TALLY_UNWIND__NR; w++)
		if (st.unwind_stops[w])
			printf("#   %-40s %llu\n", tally_unwind_stop__str((enum tally_unwind_stop)w),
			       (unsigned long long)st.unwind_stops[w]);
	printf("#\n");
}
