/* SPDX-License-Identifier: MIT */
/*
 * The SDT events perf list shows: those of the binaries in perf's
 * build-id cache (~/.debug) whose probe cache
 * (<dir>/<path>/<build-id>/probes) has '%group:event' entries, named as
 * perf 6.1's print_sdt_events() names them.
 */
#ifndef TALLY_CLI_SDT_LIST_H
#define TALLY_CLI_SDT_LIST_H

/*
 * cb once per event in perf's order: "group:event", or
 * "group:event@/path(build-id12)" where several binaries have one of that
 * name. A nonzero cb return stops the walk and is returned; 0 otherwise
 * (no cache: none).
 */
int sdt_list_foreach(int (*cb)(const char *name, void *ctx), void *ctx);

#endif
