// SPDX-License-Identifier: MIT
/* The session's messages and the list filters: see read_file.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "heap.h"
#include "read_file.h"

/*
 * The heap on huge pages (heap.c) unless the samples carry user stacks:
 * a --call-graph dwarf file's time is libdw's unwinding, far under perf's
 * either way, and the 2 MB pages' rounding only added to its peak RSS
 * (python-dwarf: 21.3 -> 24.6 MB, perf's 42.7).
 */
static void heap_for(const struct tally_session *s)
{
	const struct tally_data_reader *rd = tally_session__reader(s);

	for (int i = 0; i < tally_data_reader__nr_attrs(rd); i++)
		if (tally_data_reader__attr(rd, i)->sample_type & PERF_SAMPLE_STACK_USER)
			return;
	cli_heap_huge();
}

int cli_bad_file(const char *path)
{
	const struct tally_data_error *de = tally_data_reader__open_error();
	struct stat st;

	/* what a perf record that failed leaves: perf's words and status */
	if (!stat(path, &st) && S_ISREG(st.st_mode) && !st.st_size) {
		fprintf(stderr, "zero-sized data (%s), nothing to do!\n", path);
		return 255;
	}
	if (de && de->err == -EBADMSG) {
		/* perf's words and status, then where and why */
		fprintf(stderr, "incompatible file format: %s: %s\n", path, de->msg);
		return 255;
	}
	return 0;
}

struct tally_session *cli_session_open(const char *cmd, const char *path,
				       const struct tally_session_opts *opts, int *ret)
{
	struct tally_session *s;
	const char *ev, *why;
	int raw;

	*ret = 1;
	/* perf refuses it too ("Invalid file"); read later, it would only leave the kernel unnamed */
	if (opts->kallsyms && access(opts->kallsyms, R_OK)) {
		fprintf(stderr, "tally %s: --kallsyms %s: %s\n", cmd, opts->kallsyms, strerror(errno));
		return NULL;
	}
	s = tally_session__open(path, opts);
	if (!s && cli_bad_file(path)) {
		*ret = 255;
		return NULL;
	}
	if (!s) {
		fprintf(stderr, "tally %s: %s: %s\n", cmd, path,
			errno == ENODATA ? "no events in the file" : strerror(errno));
		return NULL;
	}
	/* tracepoint formats the file damaged: named once, their fields shown raw or not */
	for (int i = 0; (raw = tally_trace_fmt__damaged(tally_session__trace_fmt(s), i, &ev,
							&why)) >= 0; i++)
		fprintf(stderr, "tally %s: the format of event %s in the file's tracing data is "
			"damaged (%s): %s\n", cmd, ev, why,
			raw ? "its fields cannot be shown" : "its fields are shown raw");
	heap_for(s);
	*ret = 0;	/* opened: a caller that stops here (--header-only) succeeded */
	return s;
}

int cli_session_run(struct tally_session *s, const char *cmd, const char *path)
{
	return cli_session_end(s, cmd, path, tally_session__run(s));
}

int cli_session_end(struct tally_session *s, const char *cmd, const char *path, int err)
{
	const struct tally_data_error *de = tally_data_reader__error(tally_session__reader(s));
	TALLY_OPTS(tally_session_stats, st);

	fflush(stdout);
	tally_session__stats(s, &st);
	if (de)
		fprintf(stderr, "tally %s: %s: %s (record type %u at offset %#llx); "
			"everything before it is shown\n", cmd, path, de->msg, de->type,
			(unsigned long long)de->offset);
	else if (err < 0)
		fprintf(stderr, "tally %s: %s: %s\n", cmd, path, strerror(-err));
	/* the kernel's final count (LOST_SAMPLES) where the file has it: it covers the rest */
	if (st.lost || st.lost_samples)
		fprintf(stderr, "tally %s: %llu samples were lost while recording\n", cmd,
			(unsigned long long)(st.lost_samples > st.lost ? st.lost_samples : st.lost));
	if (st.bad)
		fprintf(stderr, "tally %s: %llu records could not be decoded\n", cmd,
			(unsigned long long)st.bad);
	/* perf's warning, in our words: those came after newer ones */
	if (st.unordered)
		fprintf(stderr, "tally %s: %llu out of order events recorded (shown after newer "
			"ones)\n", cmd, (unsigned long long)st.unordered);
	return de || err < 0 ? 1 : 0;
}

bool session_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

bool session_in_id_list(const char *list, int32_t id)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", (int)id);
	return session_in_list(list, n);
}

bool cli_two_threads(void)
{
	const char *e = getenv("TALLY_THREADS");

	return !(e && atoi(e) == 1) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

int cli_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	int n = 127;

	if (f) {
		if (fscanf(f, "%d", &n) != 1 || n < 0)
			n = 127;
		fclose(f);
	}
	return n;
}
