// SPDX-License-Identifier: MIT
/*
 * read_perf_data: the ten hottest symbols of a perf.data file (perf's or
 * tally's) with their shares of the first event's period, as
 * `perf report --stdio --no-children --sort sym -g none` ranks them:
 * a session over the file, a histogram keyed by symbol, one run.
 * Usage: read_perf_data [FILE]   (default perf.data)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tally/tally.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "perf.data";
	static const enum tally_hist_key by_sym[] = { TALLY_HIST_SYM };
	/* no chains kept: a sample's row is its own function's */
	TALLY_OPTS(tally_hist_opts, ho, .keys = by_sym, .nr_keys = 1);
	TALLY_OPTS(tally_session_opts, so, .no_unwind = true);
	TALLY_OPTS(tally_hist_totals, t);
	struct tally_session *s = tally_session__open(path, &so);
	struct tally_hist *h;
	int err, ret = 1;

	if (!s) {
		const struct tally_data_error *why = tally_data_reader__open_error();
		char buf[256];

		/* a damaged file says where and why; else errno, as strerror words it */
		fprintf(stderr, "%s: %s\n", path, why ? why->msg :
			tally_strerror(-errno, NULL, NULL, buf, sizeof(buf)));
		return 1;
	}
	if (!(h = tally_hist__new(s, &ho))) {
		perror("tally_hist__new");
		goto out;
	}
	/* every sample counted, then the rows sorted (self period, biggest first) */
	err = tally_hist__run(h);
	if (err < 0) {
		const struct tally_data_error *de = tally_data_reader__error(tally_session__reader(s));

		fprintf(stderr, "%s: %s\n", path, de ? de->msg : strerror(-err));
		goto out;
	}
	tally_hist__totals(h, 0, &t);
	printf("%s: %llu in all\n", tally_session__event_name(s, 0), (unsigned long long)t.period);
	for (size_t i = 0; i < tally_hist__nr_rows(h, 0) && i < 10; i++) {
		TALLY_OPTS(tally_hist_row, r);
		char pct[32];

		tally_hist__row(h, 0, i, &r);
		/* perf's "%.2f" share of the event's whole period */
		tally_hist__fmt_pct(pct, sizeof(pct), 100.0 * (double)r.self / (double)t.period);
		printf("%6s%%  [%c] ", pct, r.level);
		if (r.sym && r.object)	/* code under a data object's symbol: perf's name+0xOFF */
			printf("%s+0x%llx\n", r.sym, (unsigned long long)r.object_off);
		else if (r.sym)
			printf("%s\n", r.sym);
		else
			printf("0x%016llx\n", (unsigned long long)r.addr);
	}
	ret = 0;
out:
	tally_hist__free(h);
	tally_session__close(s);
	return ret;
}
