// SPDX-License-Identifier: MIT
/*
 * tally top's engine driven from a recorded file, for deterministic
 * measures of its cost (callgrind's instructions, /usr/bin/time's peak
 * RSS) where the live bench (bench/top.sh) moves with the machine's
 * load. The samples go into a histogram as top's (dso,sym; with -g
 * children, caller graphs, no inline frames); at every SECS of sample
 * time the rows age as perf top's (tally_hist__decay) and are made
 * again (tally_hist__resort), and the first rows are printed with a
 * digest of their call graphs, so that two builds' runs compare byte for
 * byte.
 *
 * usage: top_replay FILE [-g] [SECS (default 2)] [ROWS (default 20)]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/hash.h>
#include <tally/hist.h>
#include <tally/session.h>

struct replay {
	struct tally_hist *h;
	uint64_t every, next;
	int rows, refreshes;
};

/* A subtree folded into h: what a printer reads of each node (a digest, not text: printing was a fifth of the run). */
static uint64_t walk(const struct tally_hist_node *n, uint64_t h)
{
	for (; n; n = tally_hist_node__next(n)) {
		TALLY_OPTS(tally_hist_node_info, ni);

		tally_hist_node__info(n, &ni);
		h = tally_fnv_str(h, ni.frame.sym ? ni.frame.sym : "?");
		h = tally_hash_mix(h ^ ni.frame.ip ^ ni.self * 3 ^ ni.self_samples * 5 ^ ni.below * 7 ^
				   ni.below_samples * 11 ^ ni.nr_children);
		h = walk(tally_hist_node__child(n), h) * 31;
	}
	return h;
}

static int refresh(struct replay *r)
{
	size_t n;

	if (tally_hist__decay(r->h) || tally_hist__resort(r->h))
		return -1;
	n = tally_hist__nr_rows(r->h, 0);
	printf("refresh %d: %zu rows\n", ++r->refreshes, n);
	for (size_t i = 0; i < n && i < (size_t)r->rows; i++) {
		TALLY_OPTS(tally_hist_row, row);

		if (tally_hist__row(r->h, 0, i, &row))
			return -1;
		printf("%" PRIu64 " %" PRIu64 " %s %s %#" PRIx64 "\n", row.children, row.self,
		       row.dso ? row.dso : "[unknown]", row.sym ? row.sym : "?", row.addr);
		if (row.graph)
			printf(" graph %016" PRIx64 "\n", walk(tally_hist_node__child(row.graph), 1));
	}
	return 0;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct replay *r = ctx;
	uint64_t t = smp->sample->time;

	if (!r->next)
		r->next = t + r->every;
	if (t >= r->next) {
		r->next = t + r->every;
		if (refresh(r))
			return -1;
	}
	return tally_hist__add(r->h, smp);
}

int main(int argc, char **argv)
{
	static const enum tally_hist_key keys[] = { TALLY_HIST_DSO, TALLY_HIST_SYM };
	struct replay r = { .every = 2000000000ULL, .rows = 20 };
	bool g = false;
	struct tally_session *ss;
	int a = 2;

	if (argc < 2) {
		fprintf(stderr, "usage: top_replay FILE [-g] [SECS] [ROWS]\n");
		return 129;
	}
	if (argc > a && !strcmp(argv[a], "-g")) {
		g = true;
		a++;
	}
	if (argc > a)
		r.every = (uint64_t)(atof(argv[a++]) * 1e9);
	if (argc > a)
		r.rows = atoi(argv[a++]);
	{
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r, .no_inline = true);

		if (!(ss = tally_session__open(argv[1], &so))) {
			perror(argv[1]);
			return 1;
		}
	}
	{
		TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = 2, .chains = g, .children = g,
			   .graph = g, .order = g ? TALLY_HIST_CALLER : TALLY_HIST_CALLEE,
			   .no_inline = true);

		if (!(r.h = tally_hist__new(ss, &ho)) || tally_session__run(ss) || refresh(&r)) {
			fprintf(stderr, "top_replay: failed\n");
			return 1;
		}
	}
	tally_hist__free(r.h);
	tally_session__close(ss);
	return 0;
}
