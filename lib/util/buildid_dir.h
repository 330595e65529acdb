/* SPDX-License-Identifier: MIT */
/* buildid_dir.c: where perf's build-id cache is (~/.debug). */
#ifndef TALLY_BUILDID_DIR_H
#define TALLY_BUILDID_DIR_H

#include <stddef.h>

/*
 * perf's build-id cache directory into buf: perf's config's [buildid]
 * dir (perf's files: $PERF_CONFIG alone when set, else /etc/perfconfig
 * then ~/.perfconfig, the later winning), else $HOME/.debug. 0, -ENOENT
 * (no HOME and no config), -ENAMETOOLONG.
 */
int tally__buildid_dir(char *buf, size_t len);

#endif
