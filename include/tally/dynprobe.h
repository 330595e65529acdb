/* SPDX-License-Identifier: MIT */
/*
 * Dynamic probes, as perf probe defines them (added in 0.5): a perf probe
 * spec ("parse_line len s->buf[2] name:string", "work%return $retval",
 * "prog.c:42", "sdt_app:tick") resolved against a binary's DWARF into
 * uprobe_events lines, and those lines added to, listed from and deleted
 * from tracefs. The events land in perf's groups with perf's names
 * (probe_prog:work, work__return, work_1), so perf and every tally
 * command see them as tracepoints.
 */
#ifndef TALLY_DYNPROBE_H
#define TALLY_DYNPROBE_H

#include <stdio.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One uprobe_events line, resolved. */
struct tally_probe_event {
	char *group;		/* "probe_prog" */
	char *event;		/* "work", "work__return", "work_L1" */
	char *path;		/* the binary, absolute */
	uint64_t offset;	/* file offset of the probed instruction */
	uint64_t ref_ctr;	/* SDT semaphore's file offset, 0: none */
	bool ret;		/* a return probe (r:) */
	char *args;		/* " name=fetch:type ..." as written; "" for none */
	char *where;		/* "work+4", "parse:3@prog.c": for the messages */
	char *argnames;		/* " with i s" (perf's "on ... with" part) or "" */
};

struct tally_probe_events {
	struct tally_probe_event *ev;
	size_t nr;
};

struct tally_probe_opts {
	size_t sz;
	int max_probes;		/* 0: perf's 128 */
	bool force;		/* a taken name gets _1, _2... instead of EEXIST */
	int target_ns;		/* a pid: the binary's path is as it sees it (perf's --target-ns); 0: ours */
	bool no_inlines;	/* perf's --no-inlines: an inline function's copies are not probed */
};

/*
 * Resolve spec (perf probe's PROBEDEF, arguments included) in binary;
 * the names already in uprobe_events decide the _1 suffixes (opts->force)
 * or an -EEXIST. The events are appended to out. On failure a
 * negative errno and a message in err (perf's words where perf has one).
 */
TALLY_API int tally_probe__resolve(const char *binary, const char *spec,
				   const struct tally_probe_opts *opts,
				   struct tally_probe_events *out, char *err, size_t errlen);
TALLY_API void tally_probe_events__clear(struct tally_probe_events *evs);
/* "p:group/event /path:0x1150 i=-20(%bp):s32" (malloc'd). */
TALLY_API char *tally_probe_event__line(const struct tally_probe_event *ev);

/* -L: perf probe's line listing of a function or SRC:LINE-LINE range. */
TALLY_API int tally_probe__show_lines(FILE *fp, const char *binary, const char *spec,
				      char *err, size_t errlen);
/*
 * -V: the variables available at each address a spec resolves to; flags:
 * the global ones too (--externs), perf's --range ([VAL]/[INV]/[EXT] and
 * each variable's location ranges), --no-inlines.
 */
#define TALLY_PROBE_VARS_EXTERNS	1u
#define TALLY_PROBE_VARS_RANGE		2u
#define TALLY_PROBE_VARS_NO_INLINES	4u
TALLY_API int tally_probe__show_vars(FILE *fp, const char *binary, const char *spec,
				     unsigned flags, char *err, size_t errlen);
/*
 * -l: the uprobe events whose "group:event" match one of the globs (a glob
 * without ':' matches the event of any group; none: all), each mapped
 * back to its function, line and file as perf probe -l prints it.
 */
TALLY_API int tally_probe__show_list(FILE *fp, char **globs, size_t nglobs, char *err,
				     size_t errlen);
/* -F: the binary's functions matching filter (a glob; NULL: perf's default). */
TALLY_API int tally_probe__show_funcs(FILE *fp, const char *binary, const char *filter,
				      char *err, size_t errlen);

/*
 * tracefs uprobe_events. add: one line (0, or -errno; EEXIST for a name
 * taken). list: the lines now there, each "p:group/event path:0x... args"
 * as the kernel prints it (malloc'd array of malloc'd strings). del: every
 * event whose "group:event" matches the glob (a glob without ':' matches
 * events of any group); returns how many were removed, or -errno.
 */
TALLY_API int tally_uprobe_events__add(const char *line);
TALLY_API int tally_uprobe_events__list(char ***lines, size_t *nr);
TALLY_API int tally_uprobe_events__del(const char *glob, char ***removed, size_t *nr);
TALLY_API void tally_uprobe_events__free_list(char **lines, size_t nr);
/*
 * --target-ns: the uprobe_events line written from inside pid's mount
 * namespace, so that its path is resolved as pid sees it (perf 6.1 writes
 * it so); pid 0 is add.
 */
TALLY_API int tally_uprobe_events__add_ns(const char *line, int pid);

/*
 * Into pid's mount namespace and back (perf's nsinfo__mountns_enter and
 * exit): -L, -V and -F read a binary there. enter: 0 or -errno (EPERM
 * without CAP_SYS_ADMIN); exit restores the namespace and the working
 * directory.
 */
struct tally_mntns {
	int fd, cwd;
};
TALLY_API int tally_mntns__enter(int pid, struct tally_mntns *back);
TALLY_API void tally_mntns__exit(struct tally_mntns *back);

/* Does this kernel take kprobe events? (false: why, in why) */
TALLY_API bool tally_kprobe_events__available(char *why, size_t len);

#ifdef __cplusplus
}
#endif
#endif
