// SPDX-License-Identifier: MIT
/*
 * Symbolization cost: loading libc's symbols, 1e6 lookups of addresses
 * in libc after the load (symbol table only, and the full path through
 * the address space), loading kallsyms, and source lines through libdw
 * against one forked addr2line per address (what Debian's perf 6.1 does).
 * Prints markdown table rows; bench/symbols.sh wraps them in a section.
 *
 * usage: symbols [LOOKUPS]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tally/symbols.h>

#define REPS 7

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return v[n / 2];
}

/*
 * The executable mapping of this process holding addr (or, with addr 0,
 * libc's), as an MMAP2 would say it.
 */
static int self_map(uint64_t addr, struct tally_mmap_event *ev, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], p[512];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &s, &e, perms, &off, p) != 5)
			continue;
		if (perms[2] != 'x' || (addr ? addr < s || addr >= e : !strstr(p, "/libc.so")))
			continue;
		snprintf(path, len, "%s", p);
		*ev = (struct tally_mmap_event){ .pid = getpid(), .tid = getpid(), .start = s,
						 .len = e - s, .pgoff = off, .filename = path };
		fclose(f);
		return 0;
	}
	fclose(f);
	return -1;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct tally_mmap_event ev;
	char path[512];
	double t[REPS], t0;
	struct tally_dso *d = NULL;
	struct tally_symbols *s = NULL;
	uint64_t x = 88172645463325252ull, lo = 0, hi = 0, hits = 0;

	if (self_map(0, &ev, path, sizeof(path))) {
		fprintf(stderr, "no libc mapping found\n");
		return 1;
	}
	for (int r = 0; r < REPS; r++) {
		tally_symbols__free(s);
		s = tally_symbols__new(NULL);
		t0 = now();
		d = tally_symbols__dso_path(s, path);
		t[r] = now() - t0;
	}
	printf("| load %s (%zu symbols from %s) | %.2f ms |\n", path,
	       tally_dso__nr_symbols(d), tally_dso__symsrc(d), median(t, REPS) * 1e3);

	/* Addresses spread over libc's text, through both paths. */
	struct tally_machine *m = tally_machine__new();

	tally_machine__mmap(m, &ev);
	lo = ev.start;
	hi = ev.start + ev.len;
	struct tally_addr_info ai;

	/* Warm: the DSO is loaded once, before the clock. */
	tally_symbols__resolve(s, m, ev.pid, ev.tid, lo, TALLY_CPUMODE_USER, &ai);
	for (int r = 0; r < REPS; r++) {
		t0 = now();
		for (long i = 0; i < n; i++) {
			uint64_t vaddr = tally_dso__map_ip_to_vaddr(d, ev.pgoff + rnd(&x) % (hi - lo));

			hits += tally_dso__find_symbol(d, vaddr) != NULL;
		}
		t[r] = now() - t0;
	}
	printf("| %ld lookups in libc: tally_dso__find_symbol | %.1f ns each (%.1f ms total) |\n",
	       n, median(t, REPS) / n * 1e9, median(t, REPS) * 1e3);
	for (int r = 0; r < REPS; r++) {
		t0 = now();
		for (long i = 0; i < n; i++)
			hits += !tally_symbols__resolve(s, m, ev.pid, ev.tid, lo + rnd(&x) % (hi - lo),
							TALLY_CPUMODE_USER, &ai);
		t[r] = now() - t0;
	}
	printf("| %ld lookups in libc: tally_symbols__resolve (map + DSO + symbol) | %.1f ns each (%.1f ms total) |\n",
	       n, median(t, REPS) / n * 1e9, median(t, REPS) * 1e3);

	/* kallsyms: every kernel and module symbol at once, read and from the cache. */
	if (!tally_machine__add_kernel_maps(m, NULL, NULL)) {
		struct tally_map km = { .filename = "[kernel.kallsyms]_text", .kernel = true };

		for (int cached = 0; cached < 2; cached++) {
			setenv("TALLY_KALLSYMS_CACHE", cached ? "1" : "0", 1);
			for (int r = 0; r < REPS; r++) {
				struct tally_symbols *k = tally_symbols__new(NULL);

				t0 = now();
				d = tally_symbols__dso(k, &km, -1);
				t[r] = now() - t0;
				if (r == REPS - 1)
					printf("| load /proc/kallsyms (%zu kernel symbols)%s | %.1f ms |\n",
					       tally_dso__nr_symbols(d),
					       cached ? ", from tally's per-boot cache" : ", read and parsed",
					       median(t, REPS) * 1e3);
				tally_symbols__free(k);
			}
		}
		unsetenv("TALLY_KALLSYMS_CACHE");
	}

	/* Source lines of this very program: libdw in process vs addr2line. */
	char self[512];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (sl > 0) {
		self[sl] = '\0';
		struct tally_symbols *k = tally_symbols__new(NULL);
		struct tally_dso *me = tally_symbols__dso_path(k, self);
		struct tally_mmap_event sev;
		char sp[512];
		const struct tally_symbol *sym = NULL;
		const char *file;
		int line, lines = 0, ln = 10000;

		/* main's ELF address through our own mapping (PIE or not). */
		if (!self_map((uintptr_t)main, &sev, sp, sizeof(sp)))
			sym = tally_dso__find_symbol(me, tally_dso__map_ip_to_vaddr(me,
					(uintptr_t)main - sev.start + sev.pgoff));
		if (sym) {
			t0 = now();
			for (int i = 0; i < ln; i++)
				lines += !tally_dso__srcline(me, sym->start + (uint64_t)i % (sym->end - sym->start),
							     &file, &line);
			double us = (now() - t0) / ln * 1e6;
			char cmd[1024];

			snprintf(cmd, sizeof(cmd), "addr2line -e %s %#" PRIx64 " >/dev/null", self,
				 sym->start);
			t0 = now();
			for (int i = 0; i < 20; i++)
				if (system(cmd))
					break;
			double fork_us = (now() - t0) / 20 * 1e6;

			printf("| source line, libdw in process (%d of %d found) | %.2f us each |\n",
			       lines, ln, us);
			printf("| source line, one forked addr2line (perf 6.1's way) | %.0f us each |\n",
			       fork_us);
		}
		tally_symbols__free(k);
	}
	fprintf(stderr, "(%" PRIu64 " hits)\n", hits);
	tally_machine__free(m);
	tally_symbols__free(s);
	return 0;
}
