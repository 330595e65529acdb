// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the symbol side: the first byte picks the input.
 *   0  a stream of machine ops (mmap/fork/comm/exit, 16 bytes each):
 *      after every mmap the thread's maps stay sorted and disjoint, and
 *      the new map is the one found at its start
 *   1  an ELF file (through a memfd, the whole loader: symtab, dynsym,
 *      notes, debuglink, .gnu_debugdata): symbols come out sorted, one
 *      per address, each with start < end, and lookups find a holder
 *   2  /proc/kallsyms text, 3  a perf-PID.map: the same checks
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_symbols fuzz/corpus/symbols
 * Every file of fuzz/corpus/symbols is replayed by `make test`
 * (tests/unit/test_fuzz_symbols.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <tally/symbols.h>

#include "fuzz_check.h"

static uint64_t rd(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void check_maps(struct tally_machine *m, int32_t tid)
{
	int n = tally_machine__nr_maps(m, tid);

	for (int i = 1; i < n; i++) {
		const struct tally_map *a = tally_machine__map_at(m, tid, (size_t)i - 1);
		const struct tally_map *b = tally_machine__map_at(m, tid, (size_t)i);

		FUZZ_CHECK(a && b && a->start < a->end && a->end <= b->start);
	}
}

static void fuzz_ops(const uint8_t *d, size_t n)
{
	struct tally_machine *m = tally_machine__new();
	static const char *const names[] = { "/a", "/b", "//anon", "[vdso]",
					     "[kernel.kallsyms]_text", "/lib/x.so" };

	for (; n >= 16; d += 16, n -= 16) {
		int32_t pid = d[1] % 8, tid = pid + d[2] % 3;
		uint64_t start = rd(d + 3, 3) << 12, len = (rd(d + 6, 2) + 1) << 12;
		uint64_t pgoff = rd(d + 8, 3) << 12;
		struct tally_mmap_event ev = {
			.pid = pid, .tid = tid, .start = start, .len = len, .pgoff = pgoff,
			.filename = names[d[11] % 6],
		};
		const struct tally_map *map;
		uint64_t mip;

		switch (d[0] % 5) {
		case 0:
		case 1:
			FUZZ_CHECK(tally_machine__mmap(m, &ev) == 0);
			check_maps(m, tid);
			map = tally_machine__find_map(m, pid, tid, start,
						      d[11] % 6 == 4 ? TALLY_CPUMODE_KERNEL :
						      TALLY_CPUMODE_USER, &mip);
			/* the kernel text map runs on to the next kernel map (as perf) */
			FUZZ_CHECK(map && map->start == start &&
				   (d[11] % 6 == 4 ? map->end > start : map->end == start + len));
			break;
		case 2:
			FUZZ_CHECK(tally_machine__fork(m, d[12] % 2 ? pid : pid + 8, tid + 8,
						       pid, tid) == 0);
			check_maps(m, tid + 8);
			break;
		case 3:
			FUZZ_CHECK(tally_machine__comm(m, pid, tid, "x", d[12] & 1) == 0);
			break;
		case 4: {
			/* an EXIT marks a known thread dead and makes no unknown one (perf's) */
			bool known = tally_machine__thread_dead(m, tid) >= 0;

			FUZZ_CHECK(tally_machine__exit(m, pid, tid) == 0);
			FUZZ_CHECK(tally_machine__thread_dead(m, tid) == (known ? 1 : -ENOENT));
			break;
		}
		}
	}
	tally_machine__free(m);
}

/* Sorted, one per address, non-empty; lookups return a holder. */
static void check_dso(struct tally_dso *dso, const uint8_t *d, size_t n)
{
	const struct tally_symbol *prev = NULL;

	FUZZ_CHECK(dso);
	for (size_t i = 0; i + 8 <= n && i < 256; i += 8) {
		uint64_t a = rd(d + i, 8);
		const struct tally_symbol *s = tally_dso__find_symbol(dso, a);

		if (s)
			FUZZ_CHECK(s->start <= a && a < s->end && s->name);
		if (s && prev && s != prev)
			FUZZ_CHECK(s->start != prev->start);
		prev = s;
	}
}

static int write_memfd(const uint8_t *d, size_t n, char *path, size_t len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (n && write(fd, d, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static int fuzz_symbols_one(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (!size)
		return 0;
	if (data[0] % 4 == 0) {
		fuzz_ops(data + 1, size - 1);
		return 0;
	}
	fd = write_memfd(data + 1, size - 1, path, sizeof(path));
	if (fd < 0)
		return 0;
	if (data[0] % 4 == 1) {
		/* No debug dirs: the input alone decides. */
		TALLY_OPTS(tally_symbols_opts, o, .debug_root = "/nonexistent", .home_debug = "");
		struct tally_symbols *s = tally_symbols__new(&o);

		check_dso(tally_symbols__dso_path(s, path), data + 1, size - 1);
		tally_symbols__free(s);
	} else if (data[0] % 4 == 2) {
		TALLY_OPTS(tally_symbols_opts, o, .kallsyms = path);
		struct tally_symbols *s = tally_symbols__new(&o);
		struct tally_map km = { .filename = "[kernel.kallsyms]_text", .kernel = true };
		struct tally_machine *m = tally_machine__new();

		check_dso(tally_symbols__dso(s, &km, -1), data + 1, size - 1);
		tally_machine__add_kernel_maps(m, path, "/nonexistent");
		tally_machine__free(m);
		tally_symbols__free(s);
	} else {
		/* A perf-1.map in a private directory made once per process. */
		static char dir[64];
		char jit[128];
		FILE *f;

		if (!dir[0]) {
			snprintf(dir, sizeof(dir), "/tmp/tally-fuzz-jit.XXXXXX");
			if (!mkdtemp(dir)) {
				dir[0] = '\0';
				close(fd);
				return 0;
			}
		}
		snprintf(jit, sizeof(jit), "%s/perf-1.map", dir);
		f = fopen(jit, "w");
		if (f) {
			fwrite(data + 1, 1, size - 1, f);
			fclose(f);
		}
		TALLY_OPTS(tally_symbols_opts, o, .jit_dir = dir);
		struct tally_symbols *s = tally_symbols__new(&o);
		struct tally_map am = { .filename = "//anon", .anon = true,
					.start = 0, .end = UINT64_MAX };

		check_dso(tally_symbols__dso(s, &am, 1), data + 1, size - 1);
		tally_symbols__free(s);
		unlink(jit);
	}
	close(fd);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_symbols_one(data, size);
}
#endif
