// SPDX-License-Identifier: MIT
/* Address spaces on synthetic maps: overlap splits, fork/exec/exit, map_ip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/symbols.h>
#include "symbols_internal.h"

static void mmap_(struct tally_machine *m, int pid, int tid, uint64_t start,
		  uint64_t len, uint64_t pgoff, const char *file)
{
	struct tally_mmap_event ev = {
		.pid = pid, .tid = tid, .start = start, .len = len,
		.pgoff = pgoff, .filename = file,
	};

	assert_int_equal(tally_machine__mmap(m, &ev), 0);
}

static const char *name_at(struct tally_machine *m, int pid, uint64_t ip,
			   uint64_t *map_ip)
{
	const struct tally_map *map = tally_machine__find_map(m, pid, pid, ip,
							      TALLY_CPUMODE_USER, map_ip);

	return map ? map->filename : NULL;
}

static void test_lookup_and_map_ip(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip = 0;

	/* A PIE text mapping: file offset 0x1000 at 0x555555555000. */
	mmap_(m, 10, 10, 0x555555555000, 0x2000, 0x1000, "/bin/prog");
	mmap_(m, 10, 10, 0x7f0000000000, 0x10000, 0x26000, "/lib/libc.so.6");
	assert_string_equal(name_at(m, 10, 0x555555555123, &mip), "/bin/prog");
	assert_int_equal(mip, 0x1123);
	assert_string_equal(name_at(m, 10, 0x7f0000000010, &mip), "/lib/libc.so.6");
	assert_int_equal(mip, 0x26010);
	/* end is exclusive */
	assert_null(name_at(m, 10, 0x555555557000, &mip));
	assert_null(name_at(m, 10, 0x1000, &mip));
	/* another process sees nothing */
	assert_null(name_at(m, 11, 0x555555555123, &mip));
	/* kernel ips do not search user maps */
	assert_null(tally_machine__find_map(m, 10, 10, 0x555555555123,
					    TALLY_CPUMODE_KERNEL, &mip));
	tally_machine__free(m);
}

static void test_overlap_split(void **state)
{
	struct tally_machine *m = tally_machine__new();
	const struct tally_map *a, *b, *c;
	uint64_t mip;

	mmap_(m, 1, 1, 0x10000, 0x10000, 0x0, "/old");
	/* New map in the middle: old survives on both sides. */
	mmap_(m, 1, 1, 0x14000, 0x2000, 0x0, "/new");
	assert_int_equal(tally_machine__nr_maps(m, 1), 3);
	a = tally_machine__map_at(m, 1, 0);
	b = tally_machine__map_at(m, 1, 1);
	c = tally_machine__map_at(m, 1, 2);
	assert_string_equal(a->filename, "/old");
	assert_int_equal(a->start, 0x10000);
	assert_int_equal(a->end, 0x14000);
	assert_int_equal(a->pgoff, 0);
	assert_string_equal(b->filename, "/new");
	assert_string_equal(c->filename, "/old");
	assert_int_equal(c->start, 0x16000);
	assert_int_equal(c->end, 0x20000);
	/* The tail's pgoff moves with its start. */
	assert_int_equal(c->pgoff, 0x6000);
	assert_string_equal(name_at(m, 1, 0x17000, &mip), "/old");
	assert_int_equal(mip, 0x7000);

	/* A map covering several: all replaced, edges trimmed. */
	mmap_(m, 1, 1, 0x12000, 0x6000, 0x100000, "/big");
	assert_int_equal(tally_machine__nr_maps(m, 1), 3);
	a = tally_machine__map_at(m, 1, 0);
	b = tally_machine__map_at(m, 1, 1);
	c = tally_machine__map_at(m, 1, 2);
	assert_int_equal(a->end, 0x12000);
	assert_string_equal(b->filename, "/big");
	assert_int_equal(c->start, 0x18000);
	assert_int_equal(c->pgoff, 0x8000);
	assert_string_equal(name_at(m, 1, 0x12000, &mip), "/big");
	assert_int_equal(mip, 0x100000);

	/* Exact replacement. */
	mmap_(m, 1, 1, 0x12000, 0x6000, 0, "/same");
	assert_int_equal(tally_machine__nr_maps(m, 1), 3);
	assert_string_equal(name_at(m, 1, 0x17fff, &mip), "/same");
	tally_machine__free(m);
}

static void test_fork_thread_vs_process(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip;

	mmap_(m, 100, 100, 0x400000, 0x1000, 0, "/bin/parent");
	assert_int_equal(tally_machine__comm(m, 100, 100, "parent", false), 0);
	/* A thread shares the address space: later maps show up in both. */
	assert_int_equal(tally_machine__fork(m, 100, 101, 100, 100), 0);
	/* A process gets a copy: later maps of either stay apart. */
	assert_int_equal(tally_machine__fork(m, 200, 200, 100, 100), 0);
	assert_string_equal(tally_machine__comm_of(m, 200), "parent");
	mmap_(m, 100, 100, 0x500000, 0x1000, 0, "/lib/after");
	mmap_(m, 200, 200, 0x600000, 0x1000, 0, "/lib/child");

	assert_non_null(tally_machine__find_map(m, 100, 101, 0x500000,
						TALLY_CPUMODE_USER, &mip));
	assert_string_equal(name_at(m, 200, 0x400000, &mip), "/bin/parent");
	assert_null(name_at(m, 200, 0x500000, &mip));
	assert_null(name_at(m, 100, 0x600000, &mip));
	/* A map added through the thread is the process's. */
	mmap_(m, 100, 101, 0x700000, 0x1000, 0, "/lib/bythread");
	assert_string_equal(name_at(m, 100, 0x700000, &mip), "/lib/bythread");
	/* the idle task's children are named swapper (perf's idle thread), an unnamed parent's not */
	assert_int_equal(tally_machine__fork(m, 1, 1, 0, 0), 0);
	assert_string_equal(tally_machine__comm_of(m, 1), "swapper");
	assert_int_equal(tally_machine__fork(m, 301, 301, 300, 300), 0);
	assert_null(tally_machine__comm_of(m, 301));
	tally_machine__free(m);
}

static void test_exec_and_exit(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip;

	mmap_(m, 5, 5, 0x400000, 0x1000, 0, "/bin/sh");
	assert_int_equal(tally_machine__comm(m, 5, 5, "sh", false), 0);
	assert_string_equal(name_at(m, 5, 0x400000, &mip), "/bin/sh");
	/*
	 * exec: the old maps stay until the new program's replace them (a
	 * sample inside execve() still has the old stack), as perf.
	 */
	assert_int_equal(tally_machine__comm(m, 5, 5, "prog", true), 0);
	assert_string_equal(name_at(m, 5, 0x400000, &mip), "/bin/sh");
	assert_string_equal(tally_machine__comm_of(m, 5), "prog");
	mmap_(m, 5, 5, 0x400000, 0x1000, 0, "/bin/prog");
	assert_string_equal(name_at(m, 5, 0x400000, &mip), "/bin/prog");
	assert_int_equal(tally_machine__thread_dead(m, 5), 0);
	assert_int_equal(tally_machine__exit(m, 5, 5), 0);
	assert_int_equal(tally_machine__thread_dead(m, 5), 1);
	/* Dead threads keep their maps for samples still in flight. */
	assert_string_equal(name_at(m, 5, 0x400000, &mip), "/bin/prog");
	assert_int_equal(tally_machine__thread_dead(m, 77), -ENOENT);
	/* the idle task has perf's name without a COMM record */
	assert_string_equal(tally_machine__comm_of(m, 0), "swapper");
	assert_null(tally_machine__comm_of(m, 77));
	tally_machine__free(m);
}

static void test_kernel_maps(void **state)
{
	struct tally_machine *m = tally_machine__new();
	const struct tally_map *map;
	uint64_t mip;
	char ks[] = "/tmp/tally-test-kallsyms-XXXXXX";
	char mods[] = "/tmp/tally-test-modules-XXXXXX";
	int fd1 = mkstemp(ks), fd2 = mkstemp(mods);
	FILE *f;

	assert_true(fd1 >= 0 && fd2 >= 0);
	f = fdopen(fd1, "w");
	fprintf(f, "ffffffff81000000 T _text\nffffffff81000100 T start_kernel\n"
		   "ffffffff81e00000 T _etext\nffffffffc0000000 t mod_fn\t[kmod]\n");
	fclose(f);
	f = fdopen(fd2, "w");
	fprintf(f, "kmod 16384 0 - Live 0xffffffffc0000000\n");
	fclose(f);
	assert_int_equal(tally_machine__add_kernel_maps(m, ks, mods), 0);
	map = tally_machine__find_map(m, -1, 0, 0xffffffff81000150,
				      TALLY_CPUMODE_KERNEL, &mip);
	assert_non_null(map);
	assert_string_equal(map->filename, "[kernel.kallsyms]_text");
	assert_int_equal(map->pgoff, 0xffffffff81000000);
	assert_int_equal(mip, 0xffffffff81000150);	/* identity, as perf */
	map = tally_machine__find_map(m, 3, 3, 0xffffffffc0000010,
				      TALLY_CPUMODE_KERNEL, &mip);
	assert_non_null(map);
	assert_string_equal(map->filename, "[kmod]");
	assert_int_equal(mip, 0xffffffffc0000010);

	/* kptr_restrict: every address zero -> -EACCES, nothing mapped. */
	f = fopen(ks, "w");
	fprintf(f, "0000000000000000 T _text\n0000000000000000 T start_kernel\n");
	fclose(f);
	struct tally_machine *m2 = tally_machine__new();

	assert_int_equal(tally_machine__add_kernel_maps(m2, ks, mods), -EACCES);
	tally_machine__free(m2);
	unlink(ks);
	unlink(mods);
	tally_machine__free(m);
}

/*
 * A file's kernel map ends where its record says (perf 6.1 sets start +
 * len): a BPF program's JIT code above _etext, in no module's map, is
 * [unknown] to perf, so no map here. A zero-length record takes the top.
 */
static void test_kernel_map_end(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip;

	mmap_(m, -1, 0, 0xffffffff81000000, 0x1276f48, 0xffffffff81000000,
	      "[kernel.kallsyms]_text");
	assert_non_null(tally_machine__find_map(m, 5, 5, 0xffffffff82276f47,
						TALLY_CPUMODE_KERNEL, &mip));
	assert_null(tally_machine__find_map(m, 5, 5, 0xffffffff82276f48,
					    TALLY_CPUMODE_KERNEL, &mip));
	assert_null(tally_machine__find_map(m, 5, 5, 0xffffffffc00011fa,
					    TALLY_CPUMODE_KERNEL, &mip));
	/* a module's map above it is found as before */
	mmap_(m, -1, 0, 0xffffffffc0002000, 0x1000, 0, "/lib/modules/x/kmod.ko");
	assert_non_null(tally_machine__find_map(m, 5, 5, 0xffffffffc0002010,
						TALLY_CPUMODE_KERNEL, &mip));
	tally_machine__free(m);
}

/*
 * What perf 6.1 finds past the text map's end: init text with a kallsyms
 * symbol (start_kernel in the idle chain) is the kernel's; an address
 * above the kernel's symbols, in no map (BPF code without KSYMBOL), is not.
 */
static void test_kernel_past_etext(void **state)
{
	char ks[] = "/tmp/tally-test-kallsyms-XXXXXX";
	int fd = mkstemp(ks);
	FILE *f = fdopen(fd, "w");
	struct tally_machine *m = tally_machine__new();
	struct tally_addr_info ai;

	(void)state;
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _text\nffffffff81000100 T do_thing\n"
		   "ffffffff81e00000 T _etext\nffffffff83780000 T _sinittext\n"
		   "ffffffff83780b10 T start_kernel\nffffffff837f6810 T _einittext\n");
	fclose(f);
	TALLY_OPTS(tally_symbols_opts, so, .kallsyms = ks);
	struct tally_symbols *s = tally_symbols__new(&so);

	assert_non_null(s);
	mmap_(m, -1, 0, 0xffffffff81000000, 0xe00000, 0xffffffff81000000, "[kernel.kallsyms]_text");
	assert_int_equal(tally_symbols__resolve(s, m, 7, 7, 0xffffffff83781254,
						TALLY_CPUMODE_KERNEL, &ai), 0);
	assert_non_null(ai.map);
	assert_string_equal(ai.map->filename, "[kernel.kallsyms]_text");
	assert_string_equal(ai.sym->name, "start_kernel");
	assert_int_equal(ai.sym_off, 0x744);
	tally_symbols__resolve(s, m, 7, 7, 0xffffffffc00011fa, TALLY_CPUMODE_KERNEL, &ai);
	assert_null(ai.map);
	tally_symbols__free(s);
	tally_machine__free(m);
	unlink(ks);
}

/*
 * kallsyms is read up to _text and no further (the rest is ~40 ms of the
 * kernel's formatting, seconds on a busy machine): a FIFO gives the first
 * lines and then nothing until told the maps are added; reading on would
 * wait, and after 5 s the writer gives up, writes the rest and says so.
 */
static void test_kernel_maps_read_to_text(void **state)
{
	char dir[] = "/tmp/tally-test-kfifo-XXXXXX", ks[64], mods[64];
	int done[2], st;
	pid_t pid;
	struct tally_machine *m = tally_machine__new();
	const struct tally_map *map;
	uint64_t mip;

	assert_non_null(mkdtemp(dir));
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(mods, sizeof(mods), "%s/modules", dir);
	assert_int_equal(mkfifo(ks, 0600), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(ks, O_WRONLY);
		struct pollfd p = { .fd = done[0], .events = POLLIN };
		static const char head[] = "ffffffff81000000 T _stext\nffffffff81000000 T _text\n";
		static const char rest[] = "ffffffff81000100 T start_kernel\nffffffff81e00000 T _etext\n";

		close(done[1]);
		if (fd < 0 || write(fd, head, sizeof(head) - 1) < 0)
			_exit(2);
		if (poll(&p, 1, 5000) == 1)
			_exit(0);
		/* not told: the reader waited on past _text */
		_exit(write(fd, rest, sizeof(rest) - 1) < 0 ? 2 : 1);
	}
	close(done[0]);
	assert_int_equal(tally_machine__add_kernel_maps(m, ks, mods), 0);
	close(done[1]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	map = tally_machine__find_map(m, -1, 0, 0xffffffff81000150, TALLY_CPUMODE_KERNEL, &mip);
	assert_non_null(map);
	assert_string_equal(map->filename, "[kernel.kallsyms]_text");
	assert_int_equal(map->pgoff, 0xffffffff81000000);
	unlink(ks);
	rmdir(dir);
	tally_machine__free(m);
}

/*
 * KSYMBOL records: a BPF program's code is a map of its own, one symbol
 * named as it (perf's "bpf_prog_<tag>_<name>+0x4b"); the same program
 * loaded twice stands at two addresses, each found; unregistered, gone.
 */
static void test_ksymbol(void **state)
{
	struct tally_machine *m = tally_machine__new();
	struct tally_symbols *s = tally_symbols__new(NULL);
	const char *n = "bpf_prog_e6a3a76248025504_on_sys_enter";
	struct tally_addr_info ai;

	(void)state;
	assert_int_equal(tally__machine_ksymbol(m, 0xffffffffc0001000, 0x5bf, n, false), 0);
	assert_int_equal(tally__machine_ksymbol(m, 0xffffffffc0003000, 0x5bf, n, false), 0);
	for (int k = 0; k < 2; k++) {	/* twice: the second from the caches */
		for (uint64_t base = 0xffffffffc0001000; base <= 0xffffffffc0003000; base += 0x2000) {
			assert_int_equal(tally_symbols__resolve(s, m, 9, 9, base + 0x4b,
								TALLY_CPUMODE_KERNEL, &ai), 0);
			assert_string_equal(ai.map->filename, n);
			assert_string_equal(ai.sym->name, n);
			assert_int_equal(ai.sym_off, 0x4b);
			assert_int_equal(ai.sym->start, 0);	/* perf's: one row for both */
		}
	}
	assert_int_equal(tally__machine_ksymbol(m, 0xffffffffc0001000, 0x5bf, n, true), 0);
	assert_null(tally_machine__find_map(m, 9, 9, 0xffffffffc000104b, TALLY_CPUMODE_KERNEL,
					    &ai.map_ip));
	assert_non_null(tally_machine__find_map(m, 9, 9, 0xffffffffc000304b, TALLY_CPUMODE_KERNEL,
						&ai.map_ip));
	tally_symbols__free(s);
	tally_machine__free(m);
}

static void test_anon_identity(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip;
	const struct tally_map *map;

	mmap_(m, 9, 9, 0x7f00000000, 0x10000, 0, "//anon");
	map = tally_machine__find_map(m, 9, 9, 0x7f00000042, TALLY_CPUMODE_USER, &mip);
	assert_non_null(map);
	assert_true(map->anon);
	assert_int_equal(mip, 0x7f00000042);
	tally_machine__free(m);
}

static void test_bad_args(void **state)
{
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = { .pid = 1, .tid = 1, .start = UINT64_MAX - 1,
				       .len = 16, .filename = "/x" };

	assert_int_equal(tally_machine__mmap(m, &ev), -EINVAL);	/* wraps */
	ev.start = 0x1000;
	ev.len = 0;
	assert_int_equal(tally_machine__mmap(m, &ev), -EINVAL);
	assert_int_equal(tally_machine__mmap(NULL, &ev), -EINVAL);
	tally_machine__free(m);
	tally_machine__free(NULL);
}

/* Many processes: the thread table grows and keeps every one. */
static void test_many_threads(void **state)
{
	struct tally_machine *m = tally_machine__new();
	uint64_t mip;
	char name[32];

	for (int p = 1; p <= 2000; p++) {
		snprintf(name, sizeof(name), "/p%d", p);
		mmap_(m, p, p, 0x1000, 0x1000, 0, name);
	}
	for (int p = 1; p <= 2000; p += 97) {
		snprintf(name, sizeof(name), "/p%d", p);
		assert_string_equal(name_at(m, p, 0x1800, &mip), name);
	}
	tally_machine__free(m);
}

struct seen {
	int n;
	int32_t ppid[8], tid[8];
	bool dead[8];
};

static int note(const struct tally_thread_info *t, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8) {
		s->tid[s->n] = t->tid;
		s->ppid[s->n] = t->ppid;
		s->dead[s->n] = t->dead;
	}
	s->n++;
	return 0;
}

static int32_t ppid_of(const struct seen *s, int32_t tid)
{
	for (int i = 0; i < s->n && i < 8; i++)
		if (s->tid[i] == tid)
			return s->ppid[i];
	return -99;	/* not a thread */
}

/* perf's thread->ppid: the forking thread's tid; -1 without a FORK; an EXIT makes no thread */
static void test_threads_and_parents(void **state)
{
	struct tally_machine *m = tally_machine__new();
	struct seen s = { 0 };

	(void)state;
	assert_non_null(m);
	assert_int_equal(tally_machine__comm(m, 10, 10, "sh", false), 0);
	assert_int_equal(tally_machine__fork(m, 20, 20, 10, 10), 0);	/* a process */
	assert_int_equal(tally_machine__fork(m, 20, 21, 20, 20), 0);	/* its thread */
	assert_int_equal(tally_machine__exit(m, 20, 21), 0);
	assert_int_equal(tally_machine__exit(m, 99, 99), 0);	/* nothing made it */
	assert_int_equal(tally_machine__for_each_thread(m, note, &s), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(ppid_of(&s, 10), -1);
	assert_int_equal(ppid_of(&s, 20), 10);
	assert_int_equal(ppid_of(&s, 21), 20);
	assert_int_equal(ppid_of(&s, 99), -99);
	assert_int_equal(tally_machine__thread_dead(m, 21), 1);
	assert_int_equal(tally_machine__thread_dead(m, 99), -ENOENT);
	/* a tid forked again is a new thread of its new parent */
	assert_int_equal(tally_machine__fork(m, 21, 21, 10, 10), 0);
	s.n = 0;
	assert_int_equal(tally_machine__for_each_thread(m, note, &s), 0);
	assert_int_equal(ppid_of(&s, 21), 10);
	assert_int_equal(tally_machine__thread_dead(m, 21), 0);
	assert_int_equal(tally_machine__for_each_thread(NULL, note, &s), -EINVAL);
	/* perf's FORK_EXEC (a synthesized process): none of the parent's maps; a live fork: all */
	mmap_(m, 10, 10, 0x400000, 0x1000, 0, "/bin/sh");
	assert_int_equal(tally__machine_fork(m, 30, 30, 10, 10, true), 0);
	assert_int_equal(tally_machine__nr_maps(m, 30), 0);
	assert_int_equal(tally__machine_fork(m, 31, 31, 10, 10, false), 0);
	assert_int_equal(tally_machine__nr_maps(m, 31), 1);
	tally_machine__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_and_map_ip),
		cmocka_unit_test(test_overlap_split),
		cmocka_unit_test(test_fork_thread_vs_process),
		cmocka_unit_test(test_exec_and_exit),
		cmocka_unit_test(test_kernel_maps),
		cmocka_unit_test(test_kernel_map_end),
		cmocka_unit_test(test_kernel_past_etext),
		cmocka_unit_test(test_ksymbol),
		cmocka_unit_test(test_kernel_maps_read_to_text),
		cmocka_unit_test(test_anon_identity),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_threads_and_parents),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
