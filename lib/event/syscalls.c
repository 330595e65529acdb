// SPDX-License-Identifier: MIT
/*
 * System calls: the x86-64 and arm64 tables, -e lists, and arguments and return
 * values printed as perf trace 6.1 prints them (tools/perf/trace/beauty):
 * the argument names come from the kernel's syscalls:sys_enter_* formats,
 * the decoders are chosen by syscall and argument as perf chooses them.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <tally/syscalls.h>
#include "internal.h"
#include "events_parse.h"

static const char *const x86_64_names[TALLY_SYSCALL_MAX] = {
#include "syscall_names.h"
};

static const char *const arm64_names[TALLY_SYSCALL_MAX] = {
#include "syscall_names_arm64.h"
};

/* perf's header says uname -m; NULL: the host's */
static const char *const *table_of(const char *arch)
{
	if (!arch)
#if defined(__aarch64__)
		return arm64_names;
#else
		return x86_64_names;
#endif
	if (!strcmp(arch, "x86_64"))
		return x86_64_names;
	if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		return arm64_names;
	return NULL;
}

/*
 * The table every other function here uses: the host's until a reader
 * of another machine's recording says (tally_syscall__set_arch).
 */
static const char *const *names_tab;

static inline const char *const *cur_table(void)
{
	return names_tab ? names_tab : table_of(NULL);
}

int tally_syscall__set_arch(const char *arch)
{
	const char *const *t = table_of(arch);

	if (!t)
		return tally__err(EOPNOTSUPP);
	names_tab = t;
	return 0;
}

const char *tally_syscall__name_arch(const char *arch, int nr)
{
	const char *const *t = table_of(arch);

	return t && nr >= 0 && nr < TALLY_SYSCALL_MAX ? t[nr] : NULL;
}

const char *tally_syscall__name(int nr)
{
	return nr >= 0 && nr < TALLY_SYSCALL_MAX ? cur_table()[nr] : NULL;
}

int tally_syscall__nr(const char *name)
{
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		if (cur_table()[i] && !strcmp(cur_table()[i], name))
			return i;
	return -1;
}

bool tally_syscall__is_exit(int nr)
{
	const char *n = tally_syscall__name(nr);

	return n && (!strcmp(n, "exit") || !strcmp(n, "exit_group"));
}

/* -------------------------------------------------------------------- */
/* -e lists */

static int select_item(const char *item, bool *sel, bool on)
{
	int hits = 0;

	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		if (cur_table()[i] && !fnmatch(item, cur_table()[i], 0)) {
			sel[i] = on;
			hits++;
		}
	return hits;
}

int tally_syscall__select(const char *list, bool *sel,
			  int (*other)(void *priv, const char *item), void *priv,
			  char *bad, size_t badlen, char *hint, size_t hintlen)
{
	char *copy, *save = NULL, *item;
	bool any_pos = false;
	int err = 0;

	if (!list || !sel)
		return -EINVAL;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	/* only negations: start from every syscall */
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (item[0] != '!')
			any_pos = true;
	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		sel[i] = !any_pos && cur_table()[i];
	strcpy(copy, list);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		bool neg = item[0] == '!';
		const char *name = item + neg;

		if (select_item(name, sel, !neg))
			continue;
		if (!neg && other && !other(priv, name))
			continue;
		if (bad)
			snprintf(bad, badlen, "%s", name);
		if (hint) {
			struct best b;

			tally__best_init(&b, name);
			for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
				if (cur_table()[i])
					tally__best_try(&b, cur_table()[i]);
			snprintf(hint, hintlen, "%s", b.name);
		}
		err = -ENOENT;
		break;
	}
	free(copy);
	return err;
}

/* -------------------------------------------------------------------- */
/* the argument names */

int tally_syscall__load_fmt(const char *tracing_dir, int nr, struct tally_syscall_fmt *fmt)
{
	const char *name = tally_syscall__name(nr);
	char path[512], line[512];
	FILE *f;

	memset(fmt, 0, sizeof(*fmt));
	if (!name || !tracing_dir)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_%s/format", tracing_dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	/* "\tfield:const char * filename;\toffset:24;..." after __syscall_nr */
	while (fgets(line, sizeof(line), f) && fmt->nr_args < 6) {
		char *p = strstr(line, "field:"), *semi, *sp;

		if (!p || strstr(p, "common_") || strstr(p, "__syscall_nr"))
			continue;
		p += 6;
		semi = strchr(p, ';');
		if (!semi)
			continue;
		*semi = '\0';
		sp = strrchr(p, ' ');
		if (!sp)
			continue;
		snprintf(fmt->name[fmt->nr_args], sizeof(fmt->name[0]), "%s", sp + 1);
		while (sp > p && sp[-1] == ' ')
			sp--;
		*sp = '\0';
		snprintf(fmt->type[fmt->nr_args], sizeof(fmt->type[0]), "%s", p);
		fmt->nr_args++;
	}
	fclose(f);
	return 0;
}

/* -------------------------------------------------------------------- */
/* the decoders */

struct out {
	char *buf;
	size_t len, n;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(o->n < o->len ? o->buf + o->n : NULL, o->n < o->len ? o->len - o->n : 0,
		      fmt, ap);
	va_end(ap);
	if (w > 0)
		o->n += (size_t)w;
}

struct flag {
	uint64_t bit;
	const char *name;
};

/* perf's flag printers: names joined by '|', what is left in hex */
static void put_flags(struct out *o, uint64_t v, const struct flag *f)
{
	size_t start = o->n;

	for (; f->name; f++)
		if (f->bit && (v & f->bit) == f->bit) {
			put(o, "%s%s", o->n > start ? "|" : "", f->name);
			v &= ~f->bit;
		}
	if (v)
		put(o, "%s%#llx", o->n > start ? "|" : "", (unsigned long long)v);
}

/* a value named by a table, else the number */
static void put_enum(struct out *o, long v, const char *const *tbl, int n, int base)
{
	if (v >= base && v - base < n && tbl[v - base])
		put(o, "%s", tbl[v - base]);
	else
		put(o, "%ld", v);
}

/* kernel values (the x86-64 ABI), so they do not depend on libc's headers */
static const struct flag open_flags[] = {
	{ 02, "RDWR" }, { 02000, "APPEND" }, { 020000, "ASYNC" }, { 02000000, "CLOEXEC" },
	{ 0100, "CREAT" }, { 040000, "DIRECT" }, { 0200000, "DIRECTORY" }, { 0200, "EXCL" },
	{ 0100000, "LARGEFILE" }, { 0400000, "NOFOLLOW" }, { 020000000, "TMPFILE" },
	{ 01000000, "NOATIME" }, { 0400, "NOCTTY" }, { 04000, "NONBLOCK" },
	{ 010000000, "PATH" }, { 0, NULL },
};

static void put_open_flags(struct out *o, uint64_t v)
{
	size_t start = o->n;

	if ((v & 3) == 0)
		put(o, "RDONLY");
	for (const struct flag *f = open_flags; f->name; f++)
		if (v & f->bit) {
			put(o, "%s%s", o->n > start ? "|" : "", f->name);
			v &= ~f->bit;
		}
	/* as perf: SYNC is O_DSYNC|__O_SYNC and stays in the remainder */
	if ((v & 04010000) == 04010000)
		put(o, "%sSYNC", o->n > start ? "|" : "");
	else if (v & 010000) {
		put(o, "%sDSYNC", o->n > start ? "|" : "");
		v &= ~(uint64_t)010000;
	}
	for (const char *const *f = (const char *const[]){ "TRUNC", "WRONLY", NULL }; *f; f++) {
		uint64_t bit = **f == 'T' ? 01000 : 01;

		if (v & bit) {
			put(o, "%s%s", o->n > start ? "|" : "", *f);
			v &= ~bit;
		}
	}
	if (v)
		put(o, "%s%#llx", o->n > start ? "|" : "", (unsigned long long)v);
}

static void put_mode(struct out *o, uint64_t mode)
{
	static const struct flag modes[] = {
		{ 07777, "IALLUGO" }, { 0777, "IRWXUGO" }, { 0444, "IRUGO" }, { 0222, "IWUGO" },
		{ 0111, "IXUGO" }, { 0170000, "IFMT" }, { 0140000, "IFSOCK" }, { 0120000, "IFLNK" },
		{ 0100000, "IFREG" }, { 060000, "IFBLK" }, { 040000, "IFDIR" }, { 020000, "IFCHR" },
		{ 010000, "IFIFO" }, { 04000, "ISUID" }, { 02000, "ISGID" }, { 01000, "ISVTX" },
		{ 0700, "IRWXU" }, { 0400, "IRUSR" }, { 0200, "IWUSR" }, { 0100, "IXUSR" },
		{ 070, "IRWXG" }, { 040, "IRGRP" }, { 020, "IWGRP" }, { 010, "IXGRP" },
		{ 07, "IRWXO" }, { 04, "IROTH" }, { 02, "IWOTH" }, { 01, "IXOTH" }, { 0, NULL },
	};
	size_t start = o->n;

	for (const struct flag *f = modes; f->name; f++)
		if ((mode & f->bit) == f->bit) {
			put(o, "%s%s", o->n > start ? "|" : "", f->name);
			mode &= ~f->bit;
		}
	if (mode)
		put(o, "%s%#llo", o->n > start ? "|" : "", (unsigned long long)mode);
}

/* perf 6.1 generates these from the kernel's headers: in bit order */
static const struct flag mmap_prot[] = {
	{ 1, "READ" }, { 2, "WRITE" }, { 4, "EXEC" }, { 0x1000000, "GROWSDOWN" },
	{ 0x2000000, "GROWSUP" }, { 0, NULL },
};

static const struct flag mmap_flags[] = {
	{ 0x01, "SHARED" }, { 0x02, "PRIVATE" }, { 0x10, "FIXED" }, { 0x20, "ANONYMOUS" },
	{ 0x40, "32BIT" }, { 0x100, "GROWSDOWN" }, { 0x800, "DENYWRITE" },
	{ 0x1000, "EXECUTABLE" }, { 0x2000, "LOCKED" }, { 0x4000, "NORESERVE" },
	{ 0x8000, "POPULATE" }, { 0x10000, "NONBLOCK" }, { 0x20000, "STACK" },
	{ 0x40000, "HUGETLB" }, { 0x80000, "SYNC" }, { 0x100000, "FIXED_NOREPLACE" },
	{ 0x4000000, "UNINITIALIZED" }, { 0, NULL },
};

static const struct flag statx_flags[] = {
	{ 0x100, "SYMLINK_NOFOLLOW" }, { 0x200, "REMOVEDIR" }, { 0x400, "SYMLINK_FOLLOW" },
	{ 0x800, "NO_AUTOMOUNT" }, { 0x1000, "EMPTY_PATH" }, { 0x2000, "STATX_FORCE_SYNC" },
	{ 0x4000, "STATX_DONT_SYNC" }, { 0, NULL },
};

static const struct flag statx_mask[] = {
	{ 0x1, "TYPE" }, { 0x2, "MODE" }, { 0x4, "NLINK" }, { 0x8, "UID" }, { 0x10, "GID" },
	{ 0x20, "ATIME" }, { 0x40, "MTIME" }, { 0x80, "CTIME" }, { 0x100, "INO" },
	{ 0x200, "SIZE" }, { 0x400, "BLOCKS" }, { 0x800, "BTIME" }, { 0x1000, "MNT_ID" },
	{ 0, NULL },
};

/* the tty ioctls, 0x5401 on (perf's ioctl table) */
static const char *const tty_ioctls[] = {
	"TCGETS", "TCSETS", "TCSETSW", "TCSETSF", "TCGETA", "TCSETA", "TCSETAW", "TCSETAF",
	"TCSBRK", "TCXONC", "TCFLSH", "TIOCEXCL", "TIOCNXCL", "TIOCSCTTY", "TIOCGPGRP",
	"TIOCSPGRP", "TIOCOUTQ", "TIOCSTI", "TIOCGWINSZ", "TIOCSWINSZ", "TIOCMGET", "TIOCMBIS",
	"TIOCMBIC", "TIOCMSET", "TIOCGSOFTCAR", "TIOCSSOFTCAR", "FIONREAD", "TIOCLINUX",
	"TIOCCONS", "TIOCGSERIAL", "TIOCSSERIAL", "TIOCPKT", "FIONBIO", "TIOCNOTTY", "TIOCSETD",
	"TIOCGETD", "TCSBRKP",
};

static const struct flag clone_flags[] = {
	{ 0x100, "VM" }, { 0x200, "FS" }, { 0x400, "FILES" }, { 0x800, "SIGHAND" },
	{ 0x1000, "PIDFD" }, { 0x2000, "PTRACE" }, { 0x4000, "VFORK" }, { 0x8000, "PARENT" },
	{ 0x10000, "THREAD" }, { 0x20000, "NEWNS" }, { 0x40000, "SYSVSEM" }, { 0x80000, "SETTLS" },
	{ 0x100000, "PARENT_SETTID" }, { 0x200000, "CHILD_CLEARTID" }, { 0x400000, "DETACHED" },
	{ 0x800000, "UNTRACED" }, { 0x1000000, "CHILD_SETTID" }, { 0x2000000, "NEWCGROUP" },
	{ 0x4000000, "NEWUTS" }, { 0x8000000, "NEWIPC" }, { 0x10000000, "NEWUSER" },
	{ 0x20000000, "NEWPID" }, { 0x40000000, "NEWNET" }, { 0x80000000, "IO" }, { 0, NULL },
};

static const struct flag getrandom_flags[] = {
	{ 1, "NONBLOCK" }, { 2, "RANDOM" }, { 4, "INSECURE" }, { 0, NULL },
};

static const char *const signals[] = {
	NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1",
	"SEGV", "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP",
	"TTIN", "TTOU", "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

static const char *const rlimits[] = {
	"CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS",
	"LOCKS", "SIGPENDING", "MSGQUEUE", "NICE", "RTPRIO", "RTTIME",
};

static const char *const whences[] = { "SET", "CUR", "END", "DATA", "HOLE" };
static const char *const sigprocmask_how[] = { "BLOCK", "UNBLOCK", "SETMASK" };
static const char *const fcntl_cmds[] = {
	"DUPFD", "GETFD", "SETFD", "GETFL", "SETFL", "GETLK", "SETLK", "SETLKW", "SETOWN",
	"GETOWN", "SETSIG", "GETSIG", "GETLK64", "SETLK64", "SETLKW64", "SETOWN_EX",
	"GETOWN_EX", "GETOWNER_UIDS",
};
static const char *const futex_cmds[] = {
	"WAIT", "WAKE", "FD", "REQUEUE", "CMP_REQUEUE", "WAKE_OP", "LOCK_PI", "UNLOCK_PI",
	"TRYLOCK_PI", "WAIT_BITSET", "WAKE_BITSET", "WAIT_REQUEUE_PI", "CMP_REQUEUE_PI",
	"LOCK_PI2",
};

static const char *const madv[] = {
	"NORMAL", "RANDOM", "SEQUENTIAL", "WILLNEED", "DONTNEED", NULL, NULL, NULL, "FREE",
	"REMOVE", "DONTFORK", "DOFORK", "MERGEABLE", "UNMERGEABLE", "HUGEPAGE", "NOHUGEPAGE",
	"DONTDUMP", "DODUMP", "WIPEONFORK", "KEEPONFORK", "COLD", "PAGEOUT", "POPULATE_READ",
	"POPULATE_WRITE",
};

static void put_signal(struct out *o, long sig)
{
	if (sig > 0 && sig < (long)ARRAY_SIZE(signals))
		put(o, "%s", signals[sig]);
	else
		put(o, "%ld", sig);
}

static void put_fd(struct out *o, long fd, pid_t tid, const struct tally_syscall_ctx *ctx)
{
	const char *path;

	put(o, "%d", (int)fd);
	if ((int)fd >= 0 && ctx && ctx->fd_path && (path = ctx->fd_path(ctx->priv, tid, (int)fd)))
		put(o, "<%s>", path);
}

static void put_pid(struct out *o, long pid, const struct tally_syscall_ctx *ctx)
{
	const char *comm;

	put(o, "%d", (int)pid);
	if ((int)pid > 0 && ctx && ctx->comm && (comm = ctx->comm(ctx->priv, (pid_t)pid)))
		put(o, " (%s)", comm);
}

static bool is(const char *a, const char *b)
{
	return !strcmp(a, b);
}

uint32_t tally_syscall__string_args(const struct tally_syscall_fmt *fmt)
{
	uint32_t m = 0;

	for (int i = 0; fmt && i < fmt->nr_args && i < 6; i++)
		if (is(fmt->type[i], "const char *") && !is(fmt->name[i], "buf"))
			m |= 1u << i;
	return m;
}

/* A string as strace quotes it: C escapes, octal for what does not print. */
static void put_string(struct out *o, const char *str)
{
	put(o, "\"");
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		switch (*p) {
		case '"': put(o, "\\\""); break;
		case '\\': put(o, "\\\\"); break;
		case '\n': put(o, "\\n"); break;
		case '\t': put(o, "\\t"); break;
		case '\r': put(o, "\\r"); break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				put(o, "\\%o", *p);
			else
				put(o, "%c", *p);
		}
	}
	put(o, "\"");
}

/* How one argument prints; SHOW: also when zero. */
enum how {
	H_LONG, H_HEX, H_PTR, H_FILENAME, H_FD, H_FDAT, H_PID, H_MODE, H_OPEN, H_PROT,
	H_MMAP, H_ACCESS, H_SIG, H_RLIMIT, H_WHENCE, H_HOW, H_FCNTL, H_FUTEX, H_CLONE,
	H_RANDOM, H_ARCH_PRCTL, H_PLAIN, H_STATX_FLAGS, H_STATX_MASK, H_IOCTL, H_MADV,
	H_FUTEX_VAL3,
	SHOW = 0x100,
};

/* The decoder perf's syscall_fmts or its name/type rules pick. */
static int arg_how(const char *sc, int i, const char *name, const char *type)
{
	size_t nl = strlen(name);

	if (is(sc, "openat") || is(sc, "open")) {
		int fl = is(sc, "open") ? 1 : 2;

		if (is(sc, "openat") && i == 0)
			return H_FDAT;
		if (i == fl)
			return H_OPEN;
	}
	if ((is(sc, "newfstatat") || is(sc, "statx") || is(sc, "faccessat") ||
	     is(sc, "faccessat2") || is(sc, "unlinkat") || is(sc, "mkdirat") ||
	     is(sc, "readlinkat") || is(sc, "fchmodat") || is(sc, "fchownat") ||
	     is(sc, "utimensat") || is(sc, "mknodat") || is(sc, "execveat")) && i == 0)
		return H_FDAT;
	if (is(sc, "mmap")) {
		static const int m[6] = { H_HEX, H_LONG, H_PROT | SHOW, H_MMAP, H_PLAIN, H_HEX };

		return m[i];
	}
	if (is(sc, "mprotect") || is(sc, "pkey_mprotect"))
		return i == 0 ? H_HEX : i == 2 ? H_PROT | SHOW : H_LONG;
	if ((is(sc, "munmap") || is(sc, "brk") || is(sc, "mremap") || is(sc, "madvise")) && i == 0)
		return H_HEX;
	if ((is(sc, "access") || is(sc, "faccessat")) && is(name, "mode"))
		return H_ACCESS;
	if ((is(sc, "kill") || is(sc, "tkill") || is(sc, "rt_sigaction")) &&
	    is(name, "sig"))
		return H_SIG;
	if (is(sc, "tgkill") && i == 2)
		return H_SIG;
	if ((is(sc, "prlimit64") && i == 1) ||
	    ((is(sc, "getrlimit") || is(sc, "setrlimit")) && i == 0))
		return H_RLIMIT;
	if (is(sc, "lseek") && i == 2)
		return H_WHENCE;
	if (is(sc, "rt_sigprocmask") && i == 0)
		return H_HOW | SHOW;
	if (is(sc, "fcntl") && i == 1)
		return H_FCNTL | SHOW;
	if (is(sc, "futex") && i == 1)
		return H_FUTEX | SHOW;
	if (is(sc, "clone") && i == 0)
		return H_CLONE;
	if (is(sc, "madvise") && i == 2)
		return H_MADV;
	if (is(sc, "futex") && i == 5)
		return H_FUTEX_VAL3;
	if (is(sc, "statx") && i == 2)
		return H_STATX_FLAGS;
	if (is(sc, "statx") && i == 3)
		return H_STATX_MASK;
	if (is(sc, "ioctl") && i == 1)
		return H_IOCTL;
	if (is(sc, "ioctl") && i == 2)
		return H_HEX;
	if (is(sc, "getrandom") && i == 2)
		return H_RANDOM;
	if (is(sc, "arch_prctl")) {
		if (i == 0)
			return H_ARCH_PRCTL;
		return H_HEX;
	}
	/* perf's rules by type and name (syscall__set_arg_fmts) */
	if (is(type, "const char *") &&
	    (is(name, "filename") || is(name, "path") || is(name, "pathname")))
		return H_FILENAME;
	if (strchr(type, '*'))
		return H_PTR;
	if (is(type, "pid_t"))
		return H_PID;
	if (is(type, "umode_t"))
		return H_MODE;
	if ((is(type, "int") || is(type, "unsigned int") || is(type, "long")) && nl >= 2 &&
	    is(name + nl - 2, "fd"))
		return H_FD;
	return H_LONG;
}

int tally_syscall__fmt_args(char *buf, size_t len, int nr, const struct tally_syscall_fmt *fmt,
			    const uint64_t args[6], pid_t tid, const struct tally_syscall_ctx *ctx)
{
	const char *sc = tally_syscall__name(nr);
	struct out o = { .buf = buf, .len = len };
	unsigned mask = 0;	/* arguments another one hides */
	int n = fmt ? fmt->nr_args : 6;

	if (len)
		buf[0] = '\0';
	if (!sc)
		sc = "";
	for (int i = 0; i < n && i < 6; i++) {
		const char *name = fmt ? fmt->name[i] : NULL;
		int how = fmt ? arg_how(sc, i, name, fmt->type[i]) : H_LONG;
		uint64_t v = args[i];
		size_t vstart;

		if (mask & (1u << i))
			continue;
		if (v == 0 && !(how & SHOW))
			continue;
		if (ctx && ctx->strings && ctx->strings[i] && fmt &&
		    is(fmt->type[i], "const char *")) {
			put(&o, "%s%s: ", o.n ? ", " : "", name);
			put_string(&o, ctx->strings[i]);
			continue;
		}
		if (name)
			put(&o, "%s%s: ", o.n ? ", " : "", name);
		else
			put(&o, "%sarg%d: ", o.n ? ", " : "", i);
		vstart = o.n;
		switch (how & ~SHOW) {
		case H_HEX:
			put(&o, "%#llx", (unsigned long long)v);
			break;
		case H_PTR:
			put(&o, "%#llx", (unsigned long long)v);
			break;
		case H_FILENAME:	/* perf 6.1 prints its low 32 bits so */
			put(&o, "%#x", (unsigned)v);
			break;
		case H_FD:
			put_fd(&o, (long)v, tid, ctx);
			break;
		case H_FDAT:
			if ((int)v == -100)
				put(&o, "CWD");
			else
				put_fd(&o, (long)v, tid, ctx);
			break;
		case H_PID:
			put_pid(&o, (long)v, ctx);
			break;
		case H_MODE:
			put_mode(&o, v);
			break;
		case H_OPEN:
			if (!(v & 0100) && !((v & 020200000) == 020200000))
				mask |= 1u << (i + 1);	/* mode only with CREAT/TMPFILE */
			put_open_flags(&o, v);
			break;
		case H_PROT:
			if (v == 0)
				put(&o, "NONE");
			else
				put_flags(&o, v, mmap_prot);
			break;
		case H_MMAP:
			if (v & 0x20)
				mask |= (1u << 4) | (1u << 5);	/* no fd, no offset */
			put_flags(&o, v, mmap_flags);
			break;
		case H_ACCESS:
			if (v & 4)
				put(&o, "R");
			if (v & 2)
				put(&o, "W");
			if (v & 1)
				put(&o, "X");
			if (v & ~7ull)
				put(&o, "|%#llx", (unsigned long long)(v & ~7ull));
			break;
		case H_SIG:
			put_signal(&o, (long)v);
			break;
		case H_RLIMIT:
			put_enum(&o, (long)v, rlimits, (int)ARRAY_SIZE(rlimits), 0);
			break;
		case H_WHENCE:
			put_enum(&o, (long)v, whences, (int)ARRAY_SIZE(whences), 0);
			break;
		case H_HOW:
			put_enum(&o, (long)v, sigprocmask_how, (int)ARRAY_SIZE(sigprocmask_how), 0);
			break;
		case H_FCNTL:
			put_enum(&o, (long)v, fcntl_cmds, (int)ARRAY_SIZE(fcntl_cmds), 0);
			break;
		case H_FUTEX: {
			/* perf's futex_op: the arguments this op does not use are left out */
			static const unsigned hide[] = {
				[FUTEX_WAIT] = 0x30, [FUTEX_WAKE] = 0x38, [FUTEX_FD] = 0x38,
				[FUTEX_REQUEUE] = 0x28, [FUTEX_CMP_REQUEUE] = 0x08,
				[FUTEX_LOCK_PI] = 0x38, [FUTEX_UNLOCK_PI] = 0x38,
				[FUTEX_TRYLOCK_PI] = 0x30, [FUTEX_WAIT_BITSET] = 0x10,
				[FUTEX_WAKE_BITSET] = 0x10, [FUTEX_CMP_REQUEUE_PI] = 0x08,
			};
			long cmd = (long)(v & FUTEX_CMD_MASK);

			if (cmd >= 0 && cmd < (long)ARRAY_SIZE(hide))
				mask |= hide[cmd];

			put_enum(&o, cmd, futex_cmds, (int)ARRAY_SIZE(futex_cmds), 0);
			if (v & FUTEX_PRIVATE_FLAG)
				put(&o, "|PRIVATE_FLAG");
			if (v & FUTEX_CLOCK_REALTIME)
				put(&o, "|CLOCK_REALTIME");
			break;
		}
		case H_CLONE: {
			uint64_t sig = v & 0xff;

			put_flags(&o, v & ~0xffull, clone_flags);
			if (sig)
				put(&o, "%s%#llx", o.n > vstart ? "|" : "", (unsigned long long)sig);
			break;
		}
		case H_MADV:
			if (v < ARRAY_SIZE(madv) && madv[v])
				put(&o, "MADV_%s", madv[v]);
			else
				put(&o, "%ld", (long)v);
			break;
		case H_FUTEX_VAL3:	/* FUTEX_BITSET_MATCH_ANY */
			if ((uint32_t)v == 0xffffffffu)
				put(&o, "MATCH_ANY");
			else
				put(&o, "%#llx", (unsigned long long)v);
			break;
		case H_STATX_FLAGS:
			put_flags(&o, v, statx_flags);
			break;
		case H_STATX_MASK:
			put_flags(&o, v, statx_mask);
			break;
		case H_IOCTL:
			if (v >= 0x5401 && v - 0x5401 < ARRAY_SIZE(tty_ioctls))
				put(&o, "%s", tty_ioctls[v - 0x5401]);
			else
				put(&o, "%#llx", (unsigned long long)v);
			break;
		case H_RANDOM:
			put_flags(&o, v, getrandom_flags);
			break;
		case H_ARCH_PRCTL: {
			static const char *const codes[] = { "SET_GS", "SET_FS", "GET_FS", "GET_GS" };
			static const char *const cpuid[] = { "GET_CPUID", "SET_CPUID" };

			if (v >= 0x1001 && v <= 0x1004)
				put(&o, "%s", codes[v - 0x1001]);
			else if (v == 0x1011 || v == 0x1012)
				put(&o, "%s", cpuid[v - 0x1011]);
			else
				put(&o, "%#llx", (unsigned long long)v);
			break;
		}
		case H_PLAIN:
			put(&o, "%d", (int)v);
			break;
		default:
			put(&o, "%ld", (long)v);
			break;
		}
	}
	return (int)o.n;
}

/* -------------------------------------------------------------------- */
/* tracepoint fields */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* perf's syscall_arg_fmt__init_array: the decoder a field's type and name pick */
static int tp_field_how(const struct tally_tp_field *f)
{
	if (is(f->type, "const char *") && (ends_with(f->name, "name") || strstr(f->name, "path")))
		return H_FILENAME;
	if (f->is_pointer || strstr(f->name, "addr"))
		return H_PTR;
	if (is(f->type, "pid_t"))
		return H_PID;
	if (is(f->type, "umode_t"))
		return H_MODE;
	if (f->is_array && strstr(f->type, "char"))
		return H_PLAIN;		/* the string, quoted */
	if ((is(f->type, "int") || is(f->type, "unsigned int") || is(f->type, "long")) &&
	    ends_with(f->name, "fd"))
		return H_FD;
	return H_LONG;
}

int tally_syscall__fmt_tp_fields(char *buf, size_t len, const struct tally_tp_field *f, int n,
				 pid_t tid, const struct tally_syscall_ctx *ctx)
{
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	for (int i = 0; f && i < n; i++) {
		int how = tp_field_how(&f[i]);
		uint64_t v = f[i].val;

		/* an array is never zero: perf's value is its address */
		if (!f[i].is_array && v == 0)
			continue;
		put(&o, "%s%s: ", o.n ? ", " : "", f[i].name);
		if (f[i].is_array) {
			const char *d = f[i].data;

			if (how == H_PLAIN) {	/* up to its NUL, as "%.*s" */
				put(&o, "\"%.*s\"", (int)strnlen(d ? d : "", d ? f[i].data_len : 0),
				    d ? d : "");
			} else {
				/* perf prints where the bytes sit in its memory: the bytes, here */
				put(&o, "0x");
				for (uint32_t k = 0; d && k < f[i].data_len; k++)
					put(&o, "%02x", (unsigned char)d[k]);
			}
			continue;
		}
		switch (how) {
		case H_FILENAME:	/* the low 32 bits, as perf 6.1 */
			put(&o, "%#x", (unsigned)v);
			break;
		case H_PTR:
			put(&o, "%#llx", (unsigned long long)v);
			break;
		case H_PID:
			put_pid(&o, (long)(int)v, ctx);
			break;
		case H_MODE:
			put_mode(&o, v);
			break;
		case H_FD:
			put_fd(&o, (long)(int)v, tid, ctx);
			break;
		default:	/* perf's "%ld" of the unsigned value */
			put(&o, "%ld", (long)v);
			break;
		}
	}
	return (int)o.n;
}

/* -------------------------------------------------------------------- */
/* return values */

static bool in_list(const char *sc, const char *const *l)
{
	for (; *l; l++)
		if (is(sc, *l))
			return true;
	return false;
}

const char *tally_errno_name(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

int tally_syscall__fmt_ret(char *buf, size_t len, int nr, int64_t ret,
			   const struct tally_syscall_ctx *ctx)
{
	static const char *const hexret[] = { "mmap", "brk", "mremap", "shmat", NULL };
	static const char *const errpid[] = {
		"clone", "clone3", "fork", "vfork", "set_tid_address", "wait4", "waitid", NULL,
	};
	static const char *const timeout[] = {
		"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
		"epoll_pwait2", NULL,
	};
	const char *sc = tally_syscall__name(nr);
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	if (ret < 0) {
		const char *e = tally_errno_name((int)-ret);

		put(&o, "-1 %s (%s)", e ? e : "E?", strerror((int)-ret));
	} else if (!sc) {
		put(&o, "%lld", (long long)ret);
	} else if (ret == 0 && in_list(sc, timeout)) {
		put(&o, "0 (Timeout)");
	} else if (in_list(sc, hexret)) {
		put(&o, "%#llx", (unsigned long long)ret);
	} else if (in_list(sc, errpid)) {
		put_pid(&o, (long)ret, ctx);
	} else {
		put(&o, "%lld", (long long)ret);
	}
	return (int)o.n;
}
