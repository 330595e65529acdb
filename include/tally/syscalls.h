/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.3: system calls by name and number (x86-64), the argument
 * names the kernel's syscalls:sys_enter_* formats give, and their values
 * printed as perf trace 6.1 prints them: flags, modes and signals by
 * name, fds with their paths, pids with their comms, errno names.
 * Pure functions but for tally_syscall__load_fmt (reads tracefs); what
 * only the tracer knows (an fd's path, a pid's comm) it asks a callback.
 */
#ifndef TALLY_SYSCALLS_H
#define TALLY_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_SYSCALL_MAX	512	/* numbers are below this */

/* The name of syscall nr, or NULL (no such syscall). */
TALLY_API const char *tally_syscall__name(int nr);
/* The number of a syscall name, or -1. */
TALLY_API int tally_syscall__nr(const char *name);
/*
 * arch's name of syscall nr (perf's header's uname -m: "x86_64",
 * "aarch64" or "arm64"; NULL: the host's), NULL when none. Added in 0.5.
 */
TALLY_API const char *tally_syscall__name_arch(const char *arch, int nr);
/*
 * The table that every tally_syscall__* function uses from now on, in
 * this process: a reader of another architecture's recording (trace -i
 * of an arm64 file on x86) sets the file's. The host's until then.
 * -EOPNOTSUPP (nothing changed) for an arch without a table. Added in 0.5.
 */
TALLY_API int tally_syscall__set_arch(const char *arch);
/* exit and exit_group: they never return. */
TALLY_API bool tally_syscall__is_exit(int nr);

/*
 * Select syscalls by a perf trace -e list: names and globs separated by
 * commas, a leading '!' on an item leaves its matches out (a list of
 * only '!' items starts from every syscall). sel has TALLY_SYSCALL_MAX
 * entries. Items that name no syscall are passed to other(priv, item)
 * (a tracepoint the caller adds); without it, or when it returns
 * non-zero, the call fails: -ENOENT, the item in bad and the closest
 * syscall name (or "") in hint. 0 on success.
 */
TALLY_API int tally_syscall__select(const char *list, bool *sel,
				    int (*other)(void *priv, const char *item), void *priv,
				    char *bad, size_t badlen, char *hint, size_t hintlen);

/* The arguments of one syscall as its tracefs format names them. */
struct tally_syscall_fmt {
	int nr_args;
	char name[6][32];
	char type[6][40];
};

/*
 * Read events/syscalls/sys_enter_NAME/format under the tracing dir.
 * 0, or -errno (-ENOENT: the kernel has no tracepoint for it).
 */
TALLY_API int tally_syscall__load_fmt(const char *tracing_dir, int nr,
				      struct tally_syscall_fmt *fmt);

/* What the printer asks of the tracer; either callback may be NULL. */
struct tally_syscall_ctx {
	/* the path fd has in thread tid, or NULL */
	const char *(*fd_path)(void *priv, pid_t tid, int fd);
	/* the comm of thread tid, or NULL */
	const char *(*comm)(void *priv, pid_t tid);
	void *priv;
	/*
	 * The strings the call's arguments point to (tally/syscall_strings.h),
	 * strings[i] for argument i or NULL; NULL: none. A string argument
	 * with one prints it quoted as strace does, not the pointer.
	 */
	const char *const *strings;
};

/*
 * The arguments of a call, as perf trace prints them between the
 * parentheses ("dfd: CWD, filename: 0x..., flags: RDONLY|CLOEXEC"):
 * zero values left out unless named, decoded by name and type. fmt NULL:
 * "arg0: v, ...". Returns the length written (snprintf's).
 */
TALLY_API int tally_syscall__fmt_args(char *buf, size_t len, int nr,
				      const struct tally_syscall_fmt *fmt, const uint64_t args[6],
				      pid_t tid, const struct tally_syscall_ctx *ctx);

/*
 * The return value as perf prints it after "= ": "-1 ENOENT (No such
 * file or directory)", "0x7f..." for addresses, "1234 (comm)" for pids,
 * "0 (Timeout)" for polls.
 */
TALLY_API int tally_syscall__fmt_ret(char *buf, size_t len, int nr, int64_t ret,
				     const struct tally_syscall_ctx *ctx);

/*
 * Which arguments of syscall nr are strings worth reading (paths, names:
 * "const char *" in its format, not a buffer): bit i for argument i.
 */
TALLY_API uint32_t tally_syscall__string_args(const struct tally_syscall_fmt *fmt);

/*
 * Added in 0.3: one field of a tracepoint's record (its format's fields
 * after the common ones), as perf trace prints the tracepoints -e adds
 * next to the syscalls.
 */
struct tally_tp_field {
	const char *name;
	const char *type;		/* as the format says: "pid_t", "__data_loc char[]" */
	uint64_t val;			/* an integer: its bytes, unsigned, as perf reads them */
	const void *data;		/* an array: its bytes in the record; NULL otherwise */
	uint32_t data_len;		/* their length (a dynamic array's from its __data_loc) */
	bool is_pointer, is_array;
};

/*
 * The fields of one tracepoint record as perf trace 6.1 prints them
 * between its parentheses (filename: "/bin/true", pid: 12 (true)): each
 * "name: value", zero values left out, the decoder picked by type and
 * name (strings quoted, pid_t with its comm, fds with their paths,
 * umode_t by name, pointers and "addr" fields in hex). tid: the thread
 * the record is of (its fds). Returns the length written (snprintf's).
 */
TALLY_API int tally_syscall__fmt_tp_fields(char *buf, size_t len, const struct tally_tp_field *f,
					   int n, pid_t tid, const struct tally_syscall_ctx *ctx);

/* "ENOENT" for 2; NULL when unknown. */
TALLY_API const char *tally_errno_name(int err);

#ifdef __cplusplus
}
#endif
#endif
