// SPDX-License-Identifier: MIT
/*
 * store_symbols: what `tally agent --upload-symbols` does for one file:
 * its function table (its own, or its debug file's: lib/symbol finds it
 * by build id) into the store's DB.symbols, keyed by its build id, so
 * that `tally report --from` names the frames a stripped build of it
 * left on a host that has no debug file.
 * Usage: store_symbols URL FILE...   (http://HOST:8123/?database=DB;
 * user and password from $TALLY_STORE_USER, $TALLY_STORE_PASSWORD)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/store.h>

int main(int argc, char **argv)
{
	TALLY_OPTS(tally_store_opts, so, .user = getenv("TALLY_STORE_USER"),
		   .password = getenv("TALLY_STORE_PASSWORD"));
	struct tally_store *st;
	int ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: store_symbols URL FILE...\n");
		return 2;
	}
	so.url = argv[1];
	if (!(st = tally_store__open(&so))) {
		fprintf(stderr, "store_symbols: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* the tables where missing, as the agent makes them */
	if (tally_store__create(st)) {
		fprintf(stderr, "store_symbols: %s: %s\n", argv[1], tally_store__error(st));
		tally_store__close(st);
		return 1;
	}
	for (int i = 2; i < argc; i++) {
		int n = tally_store__upload_symbols(st, argv[i]);

		if (n < 0) {
			fprintf(stderr, "store_symbols: %s: %s\n", argv[i],
				n == -EPROTO || n == -ECONNREFUSED ? tally_store__error(st) : strerror(-n));
			ret = 1;
		} else {
			printf("%s: %d functions\n", argv[i], n);
		}
	}
	tally_store__close(st);
	return ret;
}
