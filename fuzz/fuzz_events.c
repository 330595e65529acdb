// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the event language: any bytes as a spec, against
 * the fake sysfs trees (plain and hybrid) and the fake tracefs of
 * tests/data (deterministic, no machine state), libpfm4 off (not our
 * parser). Checks the parser's contract, not just that it survives: 0
 * with events, or -errno with the error filled, its column inside the
 * spec, a formattable message and the list left empty.
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_events fuzz/corpus/events
 * Run from the top of the tree (the fixtures are found relative to it,
 * or under $TALLY_SRCDIR). Crashers go into fuzz/corpus/events, which
 * tests/unit/test_fuzz_replay.c replays in every `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/events.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SPEC 4096

static char sysfs[4096], hybrid[4096], tracefs[4096];

static void init_paths(void)
{
	const char *top = getenv("TALLY_SRCDIR");

	if (sysfs[0])
		return;
	snprintf(sysfs, sizeof(sysfs), "%s/tests/data/sysfs", top ? top : ".");
	snprintf(hybrid, sizeof(hybrid), "%s/tests/data/sysfs-hybrid", top ? top : ".");
	snprintf(tracefs, sizeof(tracefs), "%s/tests/data/tracefs", top ? top : ".");
}

/*
 * Uprobe specs name files to open; keep the fuzzer to this program (the
 * same rule is in tests/unit/test_fuzz_replay.c), so that it never reads
 * /proc/kcore or waits on a FIFO.
 */
static int probe_path_ok(const char *spec)
{
	const char *p = spec;

	while ((p = strstr(p, "probe:"))) {
		if (strncmp(p + 6, "/proc/self/exe:", 15))
			return 0;
		p += 6;
	}
	return 1;
}

static void parse_one(const char *spec, size_t len, const char *root)
{
	struct tally_events evs = { 0 };
	struct tally_parse_error err;
	struct tally_parse_opts opts = {
		.sz = sizeof(opts), .sysfs_root = root, .tracefs_root = tracefs,
		.no_pfm = true,
	};
	char msg[1024];
	int ret;

	ret = tally_parse_events(spec, &opts, &evs, &err);
	if (ret == 0) {
		if (!evs.nr)
			abort();
		for (size_t i = 0; i < evs.nr; i++)
			if (!evs.ev[i].name || !evs.ev[i].pmu ||
			    evs.ev[i].attr.size != sizeof(evs.ev[i].attr))
				abort();
	} else {
		if (ret >= 0 || err.err != ret || !err.msg[0] || err.column < 0 ||
		    (size_t)err.column > len || evs.nr || evs.ev)
			abort();
		if (tally_parse_error__format(&err, spec, msg, sizeof(msg)) <= 0)
			abort();
	}
	tally_events__clear(&evs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec;

	init_paths();
	if (size > MAX_SPEC)
		return 0;
	spec = malloc(size + 1);
	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (probe_path_ok(spec)) {
		/* the plain fixture tree, then the hybrid one */
		parse_one(spec, strlen(spec), sysfs);
		parse_one(spec, strlen(spec), hybrid);
	}
	free(spec);
	return 0;
}
