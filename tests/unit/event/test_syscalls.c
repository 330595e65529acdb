// SPDX-License-Identifier: MIT
/* syscalls.c: the table, -e lists, and perf trace 6.1's argument and return printing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <tally/syscalls.h>

static void test_table(void **state)
{
	(void)state;
	assert_string_equal(tally_syscall__name(39), "getpid");
	assert_string_equal(tally_syscall__name(257), "openat");
	assert_int_equal(tally_syscall__nr("openat"), 257);
	assert_int_equal(tally_syscall__nr("no_such"), -1);
	assert_null(tally_syscall__name(-1));
	assert_null(tally_syscall__name(TALLY_SYSCALL_MAX));
	assert_true(tally_syscall__is_exit(231));	/* exit_group */
	assert_true(tally_syscall__is_exit(60));	/* exit */
	assert_false(tally_syscall__is_exit(39));
}

/*
 * arm64's table (asm-generic's numbers), on any host: what an arm64
 * recording's raw_syscalls carry, and the table set for the whole process.
 */
static void test_arm64_table(void **state)
{
	(void)state;
	assert_string_equal(tally_syscall__name_arch("aarch64", 63), "read");
	assert_string_equal(tally_syscall__name_arch("arm64", 64), "write");
	assert_string_equal(tally_syscall__name_arch("aarch64", 56), "openat");
	assert_string_equal(tally_syscall__name_arch("aarch64", 221), "execve");
	assert_string_equal(tally_syscall__name_arch("aarch64", 79), "newfstatat");
	assert_string_equal(tally_syscall__name_arch("aarch64", 451 - 2), "futex_waitv");
	/* x86-64's open is arm64's io_submit; 244.. is the arch's range, unused */
	assert_string_equal(tally_syscall__name_arch("aarch64", 2), "io_submit");
	assert_null(tally_syscall__name_arch("aarch64", 244));
	assert_null(tally_syscall__name_arch("aarch64", 245));
	assert_null(tally_syscall__name_arch("aarch64", 451));
	assert_string_equal(tally_syscall__name_arch("x86_64", 2), "open");
	assert_null(tally_syscall__name_arch("riscv64", 63));
	assert_non_null(tally_syscall__name_arch(NULL, 0));	/* the host's */

	assert_int_equal(tally_syscall__set_arch("riscv64"), -EOPNOTSUPP);
	assert_string_equal(tally_syscall__name(39), "getpid");	/* unchanged */
	assert_int_equal(tally_syscall__set_arch("aarch64"), 0);
	assert_string_equal(tally_syscall__name(63), "read");
	assert_int_equal(tally_syscall__nr("openat"), 56);
	assert_int_equal(tally_syscall__nr("open"), -1);
	assert_true(tally_syscall__is_exit(94));	/* exit_group */
	assert_false(tally_syscall__is_exit(231));
	assert_int_equal(tally_syscall__set_arch("x86_64"), 0);
	assert_string_equal(tally_syscall__name(39), "getpid");
}

/* The cases below use x86-64's numbers, whatever the host. */
static int setup(void **state)
{
	(void)state;
	return tally_syscall__set_arch("x86_64");
}

static int count(const bool *sel)
{
	int n = 0;

	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		n += sel[i];
	return n;
}

static int known(void)
{
	int n = 0;

	for (int i = 0; i < TALLY_SYSCALL_MAX; i++)
		n += tally_syscall__name(i) != NULL;
	return n;
}

static void test_select(void **state)
{
	bool sel[TALLY_SYSCALL_MAX];
	char bad[64], hint[64];

	(void)state;
	assert_int_equal(tally_syscall__select("getpid", sel, NULL, NULL, bad, sizeof(bad), hint,
					       sizeof(hint)), 0);
	assert_int_equal(count(sel), 1);
	assert_true(sel[39]);
	/* globs: open, openat, openat2, open_by_handle_at, open_tree; less close */
	assert_int_equal(tally_syscall__select("open*,!close", sel, NULL, NULL, bad, sizeof(bad),
					       hint, sizeof(hint)), 0);
	assert_true(sel[2] && sel[257] && sel[tally_syscall__nr("openat2")]);
	assert_false(sel[3]);
	assert_int_equal(count(sel), 5);
	/* only negations: every syscall but those */
	assert_int_equal(tally_syscall__select("!getpid,!read", sel, NULL, NULL, bad, sizeof(bad),
					       hint, sizeof(hint)), 0);
	assert_int_equal(count(sel), known() - 2);
	assert_false(sel[39] || sel[0]);
	/* a typo: the closest name */
	assert_int_equal(tally_syscall__select("read,getpidd", sel, NULL, NULL, bad, sizeof(bad),
					       hint, sizeof(hint)), -ENOENT);
	assert_string_equal(bad, "getpidd");
	assert_string_equal(hint, "getpid");
	assert_int_equal(tally_syscall__select("zzzzzzzzzz", sel, NULL, NULL, bad, sizeof(bad), hint,
					       sizeof(hint)), -ENOENT);
	assert_string_equal(hint, "");
}

static struct tally_syscall_fmt fmt(int n, const char *const *names, const char *const *types)
{
	struct tally_syscall_fmt f = { .nr_args = n };

	for (int i = 0; i < n; i++) {
		snprintf(f.name[i], sizeof(f.name[i]), "%s", names[i]);
		snprintf(f.type[i], sizeof(f.type[i]), "%s", types[i]);
	}
	return f;
}

static const char *path_cb(void *priv, pid_t tid, int fd)
{
	(void)priv;
	(void)tid;
	return fd == 3 ? "/etc/passwd" : NULL;
}

static const char *comm_cb(void *priv, pid_t tid)
{
	(void)priv;
	return tid == 42 ? "ls" : NULL;
}

/* The lines perf trace 6.1 printed for ls on this machine. */
static void test_args(void **state)
{
	static const char *const on[] = { "dfd", "filename", "flags", "mode" };
	static const char *const ot[] = { "int", "const char *", "int", "umode_t" };
	static const char *const mn[] = { "addr", "len", "prot", "flags", "fd", "off" };
	static const char *const mt[] = { "unsigned long", "unsigned long", "unsigned long",
					  "unsigned long", "unsigned long", "unsigned long" };
	static const char *const rn[] = { "fd", "buf", "count" };
	static const char *const rt[] = { "unsigned int", "char *", "size_t" };
	static const char *const kn[] = { "pid", "sig" };
	static const char *const kt[] = { "pid_t", "int" };
	struct tally_syscall_ctx ctx = { .fd_path = path_cb, .comm = comm_cb };
	struct tally_syscall_fmt f;
	char buf[512];

	(void)state;
	f = fmt(4, on, ot);
	tally_syscall__fmt_args(buf, sizeof(buf), 257, &f,
				(uint64_t[6]){ (uint64_t)-100, 0x7f0069f670b1, 02000000, 0644 }, 1, &ctx);
	/* mode is left out without O_CREAT; the name's pointer in 32 bits, as perf */
	assert_string_equal(buf, "dfd: CWD, filename: 0x69f670b1, flags: RDONLY|CLOEXEC");
	tally_syscall__fmt_args(buf, sizeof(buf), 257, &f,
				(uint64_t[6]){ 3, 0x1000, 01 | 0100 | 01000, 0644 }, 1, &ctx);
	assert_string_equal(buf, "dfd: 3</etc/passwd>, filename: 0x1000, flags: CREAT|TRUNC|WRONLY, "
			    "mode: IRUGO|IWUSR");
	f = fmt(6, mn, mt);
	tally_syscall__fmt_args(buf, sizeof(buf), 9, &f,
				(uint64_t[6]){ 0, 8192, 3, 0x22, (uint64_t)-1, 0 }, 1, &ctx);
	/* anonymous: no fd, no offset */
	assert_string_equal(buf, "len: 8192, prot: READ|WRITE, flags: PRIVATE|ANONYMOUS");
	tally_syscall__fmt_args(buf, sizeof(buf), 9, &f,
				(uint64_t[6]){ 0x7fef69f01000, 110592, 5, 0x812, 3, 0x7000 }, 1, &ctx);
	assert_string_equal(buf, "addr: 0x7fef69f01000, len: 110592, prot: READ|EXEC, "
			    "flags: PRIVATE|FIXED|DENYWRITE, fd: 3, off: 0x7000");
	tally_syscall__fmt_args(buf, sizeof(buf), 9, &f, (uint64_t[6]){ 0, 4096, 0, 0x22 }, 1, &ctx);
	assert_string_equal(buf, "len: 4096, prot: NONE, flags: PRIVATE|ANONYMOUS");
	/* zero arguments are left out: read(fd 0) prints "read()" */
	f = fmt(3, rn, rt);
	tally_syscall__fmt_args(buf, sizeof(buf), 0, &f, (uint64_t[6]){ 0 }, 1, &ctx);
	assert_string_equal(buf, "");
	tally_syscall__fmt_args(buf, sizeof(buf), 0, &f, (uint64_t[6]){ 3, 0x55aa, 832 }, 1, &ctx);
	assert_string_equal(buf, "fd: 3</etc/passwd>, buf: 0x55aa, count: 832");
	f = fmt(2, kn, kt);
	tally_syscall__fmt_args(buf, sizeof(buf), 62, &f, (uint64_t[6]){ 42, 10 }, 1, &ctx);
	assert_string_equal(buf, "pid: 42 (ls), sig: USR1");
	/* no format: the raw arguments */
	tally_syscall__fmt_args(buf, sizeof(buf), 39, NULL, (uint64_t[6]){ 0, 7 }, 1, NULL);
	assert_string_equal(buf, "arg1: 7");
	/* a short buffer is cut, never overrun; the length says what it needed */
	f = fmt(3, rn, rt);
	assert_int_equal(tally_syscall__fmt_args(buf, 8, 0, &f, (uint64_t[6]){ 3, 0x55aa, 832 }, 1,
						 NULL), 30);
	assert_string_equal(buf, "fd: 3, ");
}

static void test_strings(void **state)
{
	static const char *const on[] = { "dfd", "filename", "flags", "mode" };
	static const char *const ot[] = { "int", "const char *", "int", "umode_t" };
	static const char *const wn[] = { "fd", "buf", "count" };
	static const char *const wt[] = { "unsigned int", "const char *", "size_t" };
	const char *strs[6] = { NULL, "/tmp/a \"b\"\n\\\x01" };
	struct tally_syscall_ctx ctx = { .strings = strs };
	struct tally_syscall_fmt f = fmt(4, on, ot);
	char buf[256];

	(void)state;
	assert_int_equal(tally_syscall__string_args(&f), 1u << 1);
	/* write's buf is a buffer, not a string */
	f = fmt(3, wn, wt);
	assert_int_equal(tally_syscall__string_args(&f), 0);
	assert_int_equal(tally_syscall__string_args(NULL), 0);
	f = fmt(4, on, ot);
	/* quoted and escaped as strace does */
	tally_syscall__fmt_args(buf, sizeof(buf), 257, &f,
				(uint64_t[6]){ (uint64_t)-100, 0x1000, 0 }, 1, &ctx);
	assert_string_equal(buf, "dfd: CWD, filename: \"/tmp/a \\\"b\\\"\\n\\\\\\1\"");
	/* no string for it: the pointer */
	strs[1] = NULL;
	tally_syscall__fmt_args(buf, sizeof(buf), 257, &f,
				(uint64_t[6]){ (uint64_t)-100, 0x1000, 0 }, 1, &ctx);
	assert_string_equal(buf, "dfd: CWD, filename: 0x1000");
}

static void test_ret(void **state)
{
	struct tally_syscall_ctx ctx = { .comm = comm_cb };
	char buf[128];

	(void)state;
	tally_syscall__fmt_ret(buf, sizeof(buf), 257, -ENOENT, &ctx);
	assert_string_equal(buf, "-1 ENOENT (No such file or directory)");
	tally_syscall__fmt_ret(buf, sizeof(buf), 9, 0x7fef69f34000, &ctx);
	assert_string_equal(buf, "0x7fef69f34000");
	tally_syscall__fmt_ret(buf, sizeof(buf), 218, 42, &ctx);	/* set_tid_address */
	assert_string_equal(buf, "42 (ls)");
	tally_syscall__fmt_ret(buf, sizeof(buf), 39, 42, &ctx);	/* getpid: a number */
	assert_string_equal(buf, "42");
	tally_syscall__fmt_ret(buf, sizeof(buf), 7, 0, &ctx);	/* poll */
	assert_string_equal(buf, "0 (Timeout)");
	assert_string_equal(tally_errno_name(EAGAIN), "EAGAIN");
}

/* A tracepoint's fields, by perf trace 6.1's rules (builtin-trace.c's syscall_arg_fmt__init_array). */
static void test_tp_fields(void **state)
{
	struct tally_syscall_ctx ctx = { .fd_path = path_cb, .comm = comm_cb };
	static const char comm[16] = "ls";
	const struct tally_tp_field f[] = {
		{ .name = "filename", .type = "__data_loc char[]", .data = "/bin/true\0junk",
		  .data_len = 10, .is_array = true },
		{ .name = "pid", .type = "pid_t", .val = 42 },
		{ .name = "old_pid", .type = "pid_t", .val = 0 },	/* zero: left out */
		{ .name = "prio", .type = "int", .val = 0xffffffff },	/* unsigned, as perf reads it */
		{ .name = "comm", .type = "char", .data = comm, .data_len = 16, .is_array = true },
		{ .name = "fd", .type = "int", .val = 3 },
		{ .name = "mode", .type = "umode_t", .val = 0644 },
		{ .name = "name", .type = "const char *", .val = 0x7f0069f670b1, .is_pointer = true },
		{ .name = "skb", .type = "void *", .val = 0xffff888001234500, .is_pointer = true },
		{ .name = "skbaddr", .type = "unsigned long", .val = 0x1000 },
		{ .name = "delta", .type = "s64", .val = (uint64_t)-5 },
	};
	char buf[512];

	(void)state;
	tally_syscall__fmt_tp_fields(buf, sizeof(buf), f, 3, 42, &ctx);
	assert_string_equal(buf, "filename: \"/bin/true\", pid: 42 (ls)");
	tally_syscall__fmt_tp_fields(buf, sizeof(buf), f, (int)(sizeof(f) / sizeof(f[0])), 42, &ctx);
	assert_string_equal(buf, "filename: \"/bin/true\", pid: 42 (ls), prio: 4294967295, "
			    "comm: \"ls\", fd: 3</etc/passwd>, mode: IRUGO|IWUSR, name: 0x69f670b1, "
			    "skb: 0xffff888001234500, skbaddr: 0x1000, delta: -5");
	/* a pid with no comm known, and nothing at all */
	tally_syscall__fmt_tp_fields(buf, sizeof(buf), &f[1], 1, 42, NULL);
	assert_string_equal(buf, "pid: 42");
	assert_int_equal(tally_syscall__fmt_tp_fields(buf, sizeof(buf), &f[2], 1, 42, &ctx), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_arm64_table),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_ret),
		cmocka_unit_test(test_tp_fields),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
