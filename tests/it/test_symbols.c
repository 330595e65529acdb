// SPDX-License-Identifier: MIT
/*
 * Symbols on real binaries built here: PIE and non-PIE, stripped with a
 * debuglink or a build-id debug file, MiniDebugInfo, C++; JIT maps and
 * kallsyms. The names must be the ones perf 6.1 shows (perf record +
 * perf script on the same binary), source lines the ones addr2line gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/tally.h>

static char dir[256];

static const char prog_c[] =
	"#include <fcntl.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <unistd.h>\n"
	"volatile long sink;\n"
	"__attribute__((noinline)) static long hot_static(long n)\n"
	"{\n"
	"	long s = 0;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		s += i ^ (s >> 3);\n"
	"	return s;\n"
	"}\n"
	"__attribute__((noinline)) long hot_global(long n)\n"
	"{\n"
	"	long s = 1;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		s = s * 3 + i;\n"
	"	return s;\n"
	"}\n"
	"long hot_alias(long n) __attribute__((alias(\"hot_global\")));\n"
	"__attribute__((noinline, weak)) long hot_weak(long n)\n"
	"{\n"
	"	long s = 2;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		s += (s << 1) ^ i;\n"
	"	return s;\n"
	"}\n"
	"/* Time in libc (memmove's aliases) and in the kernel (read). */\n"
	"static void libc_and_kernel(long n)\n"
	"{\n"
	"	static char a[1 << 16], b[1 << 16];\n"
	"	int fd = open(\"/dev/zero\", O_RDONLY);\n"
	"	for (long i = 0; i < n; i++) {\n"
	"		memcpy(a, b, sizeof(a));\n"
	"		memset(b, (int)i, sizeof(b));\n"
	"		sink += (long)strlen(a + (i & 1023));\n"
	"		if (read(fd, b, 4096) < 0)\n"
	"			break;\n"
	"		sink += getppid();\n"
	"	}\n"
	"	close(fd);\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 1000;\n"
	"	if (argc > 2) {\n"
	"		libc_and_kernel(n);\n"
	"		return 0;\n"
	"	}\n"
	"	for (int r = 0; r < 20; r++) {\n"
	"		sink += hot_static(n);\n"
	"		sink += hot_global(n / 2);\n"
	"		sink += hot_weak(n / 4);\n"
	"	}\n"
	"	return 0;\n"
	"}\n";

/* Two levels of inlining in one out-of-line function. */
static const char prog_inl[] =
	"#include <stdlib.h>\n"
	"static inline __attribute__((always_inline)) long mix(long s, long i)\n"
	"{\n"
	"	return s * 31 + (i ^ (s >> 7));\n"
	"}\n"
	"static inline __attribute__((always_inline)) long step(long s, long i)\n"
	"{\n"
	"	long a = mix(s, i);\n"
	"	return a + mix(i, a);\n"
	"}\n"
	"__attribute__((noinline)) long outer(long n)\n"
	"{\n"
	"	long s = 0;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		s = step(s, i);\n"
	"	return s;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	return (int)outer(argc > 1 ? atol(argv[1]) : 10);\n"
	"}\n";

/* Calls through the PLT, which perf 6.1 names after _init (no size: it runs on). */
static const char prog_plt[] =
	"#include <stdlib.h>\n"
	"volatile long sink;\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 1000;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		sink += labs(i - n / 2);\n"
	"	return 0;\n"
	"}\n";

static const char prog_cc[] =
	"#include <cstdlib>\n"
	"namespace geo {\n"
	"namespace detail {\n"
	"template <typename T> struct Acc {\n"
	"	T sum = 0;\n"
	"	__attribute__((noinline)) void add(T v)\n"
	"	{\n"
	"		for (int i = 0; i < 1000; i++)\n"
	"			sum += v * i;\n"
	"	}\n"
	"};\n"
	"}\n"
	"template <typename T> __attribute__((noinline)) T run(long n)\n"
	"{\n"
	"	detail::Acc<T> a;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		a.add((T)i);\n"
	"	return a.sum;\n"
	"}\n"
	"}\n"
	"namespace {\n"
	"__attribute__((noinline)) long anon_hot(long n)\n"
	"{\n"
	"	long s = 0;\n"
	"	for (long i = 0; i < n * 300; i++)\n"
	"		s += i % 7;\n"
	"	return s;\n"
	"}\n"
	"}\n"
	"volatile double d;\n"
	"volatile long l;\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	long n = argc > 1 ? atol(argv[1]) : 1000;\n"
	"	d = geo::run<double>(n);\n"
	"	l = geo::run<long>(n);\n"
	"	l += anon_hot(n);\n"
	"	return 0;\n"
	"}\n";

__attribute__((format(printf, 1, 2)))
static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		fprintf(stderr, "# command failed (%d): %s\n", rc, cmd);
	return rc;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char src[512];

	snprintf(dir, sizeof(dir), "/tmp/tally-symbols.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	write_file(src, prog_c);
	snprintf(src, sizeof(src), "%s/inl.c", dir);
	write_file(src, prog_inl);
	snprintf(src, sizeof(src), "%s/plt.c", dir);
	write_file(src, prog_plt);
	snprintf(src, sizeof(src), "%s/cxx.cc", dir);
	write_file(src, prog_cc);
	if (sh("cd %s && cc -O1 -g -fno-omit-frame-pointer -pie -fPIE -o pie prog.c && "
	       "cc -O1 -g -no-pie -fno-pie -o nopie prog.c", dir))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	if (!getenv("KEEP"))
		sh("rm -rf %s", dir);
	return 0;
}

static bool have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

/* ---- nm as the reference for which function holds an address ---- */

struct nmsym {
	uint64_t addr, size;
	char name[256];
};

static size_t nm_funcs(const char *path, struct nmsym *out, size_t max)
{
	char cmd[1024], line[1024];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p) && n < max) {
		unsigned long long a, s;
		char t, name[256];

		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &t, name) != 4)
			continue;
		if (t != 'T' && t != 't' && t != 'W' && t != 'w')
			continue;
		out[n].addr = a;
		out[n].size = s;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		n++;
	}
	pclose(p);
	return n;
}

/* Names of nm's functions must be what we find at start and mid-body. */
static void check_against_nm(const char *bin, const char *symfile,
			     const struct tally_symbols_opts *opts,
			     const char *want_src)
{
	struct tally_symbols *s = tally_symbols__new(opts);
	struct nmsym syms[512];
	char path[512], ref[512];
	size_t n, ok = 0, tried = 0;
	struct tally_dso *d;

	snprintf(path, sizeof(path), "%s/%s", dir, bin);
	snprintf(ref, sizeof(ref), "%s/%s", dir, symfile);
	n = nm_funcs(ref, syms, 512);
	assert_true(n >= 4);
	d = tally_symbols__dso_path(s, path);
	assert_non_null(d);
	assert_int_equal(tally_dso__status(d), TALLY_DSO_OK);
	if (want_src)
		assert_non_null(strstr(tally_dso__symsrc(d), want_src));
	for (size_t i = 0; i < n; i++) {
		uint64_t probes[2] = { syms[i].addr, syms[i].addr + syms[i].size / 2 };

		for (int k = 0; k < 2; k++) {
			const struct tally_symbol *sym = tally_dso__find_symbol(d, probes[k]);
			const char *want = syms[i].name;

			tried++;
			/* hot_alias and hot_global share an address: perf keeps the longer. */
			if (!strcmp(want, "hot_alias"))
				want = "hot_global";
			if (sym && !strcmp(sym->name, want))
				ok++;
			else
				printf("# %s %#" PRIx64 ": nm %s, we %s\n", bin, probes[k],
				       want, sym ? sym->name : "(none)");
		}
	}
	printf("# %s: %zu/%zu nm addresses named as nm\n", bin, ok, tried);
	assert_int_equal(ok, tried);
	tally_symbols__free(s);
}

static void test_nm_pie(void **state)
{
	check_against_nm("pie", "pie", NULL, ".symtab");
}

static void test_nm_nopie(void **state)
{
	check_against_nm("nopie", "nopie", NULL, ".symtab");
}

/* Stripped, the symbols in prog.debug beside it through .gnu_debuglink. */
static void test_debuglink(void **state)
{
	struct tally_symbols *s;
	struct tally_dso *d;
	char path[512];

	assert_int_equal(sh("cd %s && mkdir -p dl && objcopy --only-keep-debug pie dl/prog.debug && "
			    "strip --strip-all -o dl/prog pie && "
			    "cd dl && objcopy --add-gnu-debuglink=prog.debug prog", dir), 0);
	/* No build-id lookup may find it: point the debug root elsewhere. */
	TALLY_OPTS(tally_symbols_opts, o, .debug_root = dir, .home_debug = "");
	check_against_nm("dl/prog", "pie", &o, "dl/prog.debug");

	/* A debug file whose CRC differs is not used. */
	assert_int_equal(sh("cd %s && mkdir -p dl2 && cp dl/prog dl2/prog && "
			    "objcopy --only-keep-debug nopie dl2/prog.debug && "
			    "objcopy --remove-section .note.gnu.build-id dl2/prog.debug", dir), 0);
	s = tally_symbols__new(&o);
	snprintf(path, sizeof(path), "%s/dl2/prog", dir);
	d = tally_symbols__dso_path(s, path);
	assert_non_null(d);
	assert_null(strstr(tally_dso__symsrc(d), "prog.debug"));
	assert_int_equal(tally_dso__status(d), TALLY_DSO_STRIPPED);
	tally_symbols__free(s);
}

/* Stripped, debug file found by build id under a temporary root. */
static void test_build_id_root(void **state)
{
	char cmd[1024], id[128] = "", path[512];
	struct tally_symbols *s;
	struct tally_dso *d;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "readelf -n %s/pie | sed -n 's/.*Build ID: *//p'", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(id, sizeof(id), p));
	pclose(p);
	id[strcspn(id, "\n")] = '\0';
	assert_true(strlen(id) == 40);
	assert_int_equal(sh("cd %s && mkdir -p root/usr/lib/debug/.build-id/%.2s bid && "
			    "objcopy --only-keep-debug pie root/usr/lib/debug/.build-id/%.2s/%s.debug && "
			    "strip --strip-all -o bid/prog pie", dir, id, id, id + 2), 0);
	snprintf(path, sizeof(path), "%s/root", dir);
	TALLY_OPTS(tally_symbols_opts, o, .debug_root = path, .home_debug = "");
	check_against_nm("bid/prog", "pie", &o, ".build-id/");

	/* Without the root: stripped, and the account says so. */
	TALLY_OPTS(tally_symbols_opts, o2, .debug_root = dir, .home_debug = "");
	s = tally_symbols__new(&o2);
	snprintf(path, sizeof(path), "%s/bid/prog", dir);
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = { .pid = 50, .tid = 50, .start = 0x555555554000,
				       .len = 0x10000, .pgoff = 0, .filename = path };
	struct tally_addr_info ai;
	const struct tally_unresolved *u;

	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_int_equal(tally_symbols__resolve(s, m, 50, 50, 0x555555555100,
						TALLY_CPUMODE_USER, &ai), -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_STRIPPED);
	d = ai.dso;
	assert_int_equal(tally_dso__status(d), TALLY_DSO_STRIPPED);
	assert_int_equal(tally_symbols__unresolved(s, &u), 1);
	assert_string_equal(u[0].dso, path);
	assert_int_equal(u[0].status, TALLY_DSO_STRIPPED);
	assert_int_equal(u[0].addrs, 1);
	tally_machine__free(m);
	tally_symbols__free(s);
}

/* A map that recorded another build id: said, not silently used. */
static void test_build_id_mismatch(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_machine *m = tally_machine__new();
	uint8_t bogus[20] = { 0xde, 0xad, 0xbe, 0xef };
	char path[512];
	struct tally_addr_info ai;
	const struct tally_unresolved *u;

	snprintf(path, sizeof(path), "%s/nopie", dir);
	struct tally_mmap_event ev = { .pid = 7, .tid = 7, .start = 0x401000, .len = 0x1000,
				       .pgoff = 0x1000, .filename = path,
				       .build_id = bogus, .build_id_size = 20 };
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_int_equal(tally_symbols__resolve(s, m, 7, 7, 0x401100, TALLY_CPUMODE_USER, &ai),
			 -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_BUILD_ID_MISMATCH);
	assert_int_equal(tally_symbols__unresolved(s, &u), 1);
	assert_int_equal(u[0].status, TALLY_DSO_BUILD_ID_MISMATCH);
	assert_non_null(strstr(u[0].detail, "deadbeef"));
	printf("# %s: %s (%s)\n", u[0].dso, tally_dso_status__str(u[0].status), u[0].detail);

	/* A missing file and an address with no map are accounted too. */
	ev.filename = "/nonexistent/libgone.so";
	ev.build_id = NULL;
	ev.build_id_size = 0;
	ev.start = 0x7f0000000000;
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_int_equal(tally_symbols__resolve(s, m, 7, 7, 0x7f0000000010, TALLY_CPUMODE_USER,
						&ai), -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_MISSING);
	assert_int_equal(tally_symbols__resolve(s, m, 7, 7, 0x10, TALLY_CPUMODE_USER, &ai),
			 -ENOENT);
	assert_null(ai.map);
	assert_int_equal(tally_symbols__unresolved(s, &u), 3);
	assert_int_equal(u[1].status, TALLY_DSO_MISSING);
	assert_string_equal(u[2].dso, "[unknown]");
	tally_machine__free(m);
	tally_symbols__free(s);
}

/* .gnu_debugdata, made the way Fedora makes it (gdb's manual). */
static void test_minidebuginfo(void **state)
{
	if (!have("xz"))
		skip();
	assert_int_equal(sh("cd %s && mkdir -p mini && cd mini && "
			    "nm -D ../pie --format=posix --defined-only | awk '{print $1}' | sort > dyn && "
			    "nm ../pie --format=posix --defined-only | awk '$2 ~ /[TtWw]/ {print $1}' | sort > funcs && "
			    "comm -13 dyn funcs > keep && "
			    "objcopy --only-keep-debug ../pie mini && "
			    "objcopy -S --remove-section .gdb_index --remove-section .comment "
			    "--keep-symbols=keep mini && xz -f mini && "
			    "strip --strip-all -R .comment -o prog ../pie && "
			    "objcopy --add-section .gnu_debugdata=mini.xz prog", dir), 0);
	TALLY_OPTS(tally_symbols_opts, o, .debug_root = dir, .home_debug = "");
	check_against_nm("mini/prog", "pie", &o, ".gnu_debugdata");
}

/* JIT code through /tmp/perf-PID.map (here a private directory). */
static void test_jit_map(void **state)
{
	char path[512];
	struct tally_addr_info ai;

	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	write_file(path, "7f0000001000 40 jit_add\n"
			 "7f0000001040 0 jit_zero_size\n"
			 "7f0000002000 100 Interpreter::run(int)\n"
			 "garbage line\n"
			 "7f0000003000 10 _ZN3foo3barEv\n");
	TALLY_OPTS(tally_symbols_opts, o, .jit_dir = dir);
	struct tally_symbols *s = tally_symbols__new(&o);
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = { .pid = 4242, .tid = 4242, .start = 0x7f0000000000,
				       .len = 0x10000, .filename = "//anon", .prot = 7 };

	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	ev.pid = ev.tid = 4243;
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_int_equal(tally_symbols__resolve(s, m, 4242, 4242, 0x7f0000001010,
						TALLY_CPUMODE_USER, &ai), 0);
	assert_string_equal(ai.sym->name, "jit_add");
	assert_int_equal(ai.sym_off, 0x10);
	/* A zero size runs to the next symbol, as perf. */
	assert_int_equal(tally_symbols__resolve(s, m, 4242, 4242, 0x7f0000001f00,
						TALLY_CPUMODE_USER, &ai), 0);
	assert_string_equal(ai.sym->name, "jit_zero_size");
	assert_int_equal(tally_symbols__resolve(s, m, 4242, 4242, 0x7f00000020ff,
						TALLY_CPUMODE_USER, &ai), 0);
	assert_string_equal(ai.sym->name, "Interpreter::run(int)");
	assert_int_equal(tally_symbols__resolve(s, m, 4242, 4242, 0x7f0000003001,
						TALLY_CPUMODE_USER, &ai), 0);
	assert_string_equal(ai.sym->name, "foo::bar");
	/* Past the last sized symbol: nothing. */
	assert_int_equal(tally_symbols__resolve(s, m, 4242, 4242, 0x7f0000003010,
						TALLY_CPUMODE_USER, &ai), -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_OK);
	/* Another pid has no map file. */
	assert_int_equal(tally_symbols__resolve(s, m, 4243, 4243, 0x7f0000001010,
						TALLY_CPUMODE_USER, &ai), -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_NO_JIT_MAP);
	tally_machine__free(m);
	tally_symbols__free(s);
}

/* [vdso]: the image is the same in every process, so our own serves. */
static void test_vdso(void **state)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long long lo = 0, hi = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]"))
			sscanf(line, "%llx-%llx", &lo, &hi);
	fclose(f);
	if (!lo)
		skip();
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = { .pid = 3, .tid = 3, .start = lo, .len = hi - lo,
				       .filename = "[vdso]" };
	struct tally_addr_info ai;
	size_t named = 0;
	bool gettime = false;

	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	for (uint64_t a = lo; a < hi; a += 4) {
		if (tally_symbols__resolve(s, m, 3, 3, a, TALLY_CPUMODE_USER, &ai))
			continue;
		named++;
		gettime |= strstr(ai.sym->name, "clock_gettime") != NULL;
	}
	printf("# [vdso]: %zu symbols, %zu addresses named\n", tally_dso__nr_symbols(ai.dso), named);
	assert_true(named > 0);
	assert_true(gettime);
	tally_machine__free(m);
	tally_symbols__free(s);
}

/* Kernel symbols from /proc/kallsyms at their own addresses. */
static void test_kallsyms(void **state)
{
	struct tally_machine *m = tally_machine__new();
	struct tally_symbols *s = tally_symbols__new(NULL);
	const char *names[] = { "schedule", "do_syscall_64", "vfs_read", "__x64_sys_getpid",
				"ksys_write", "do_sys_openat2", "kmem_cache_alloc" };
	size_t found = 0, checked = 0;
	uint64_t kaddr = 0;
	const char *kname = NULL;
	int err = tally_machine__add_kernel_maps(m, NULL, NULL);

	if (err == -EACCES)
		skip();		/* kptr_restrict: nothing to check */
	assert_int_equal(err, 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char cmd[256], line[256];
		unsigned long long a;
		FILE *p;

		snprintf(cmd, sizeof(cmd), "grep -m1 ' [Tt] %s$' /proc/kallsyms", names[i]);
		p = popen(cmd, "r");
		if (fgets(line, sizeof(line), p) && sscanf(line, "%llx", &a) == 1) {
			struct tally_addr_info ai;

			checked++;
			if (!kaddr) {
				kaddr = a;
				kname = names[i];
			}
			if (!tally_symbols__resolve(s, m, -1, 0, a + 1, TALLY_CPUMODE_KERNEL, &ai) &&
			    !strcmp(ai.sym->name, names[i]))
				found++;
			else
				printf("# %s at %llx: we %s\n", names[i], a,
				       ai.sym ? ai.sym->name : "(none)");
		}
		pclose(p);
	}
	assert_true(checked >= 3);
	assert_int_equal(found, checked);

	/* A module symbol, when modules are loaded. */
	/* Pseudo-modules ([__builtin__ftrace], [bpf]) have no map: perf drops them. */
	FILE *p = popen("m=$(awk 'NR==1{print $1}' /proc/modules 2>/dev/null); "
			"[ -n \"$m\" ] && grep -m1 -E \"^[0-9a-f]+ [tT] [a-z_0-9]+\t\\[$m\\]\" "
			"/proc/kallsyms", "r");
	char line[256], name[128], mod[128];
	unsigned long long a;

	if (fgets(line, sizeof(line), p) &&
	    sscanf(line, "%llx %*c %127s [%127[^]]", &a, name, mod) == 3) {
		struct tally_addr_info ai;
		char want[140];

		assert_int_equal(tally_symbols__resolve(s, m, -1, 0, a, TALLY_CPUMODE_KERNEL, &ai), 0);
		assert_string_equal(ai.sym->name, name);
		snprintf(want, sizeof(want), "[%s]", mod);
		assert_string_equal(tally_dso__name(ai.dso), want);
	}
	pclose(p);

	/*
	 * Data from another boot: its kernel map put _text 2 MiB lower
	 * (KASLR); names still come out right, shifted by the difference.
	 */
	{
		char line2[256];
		unsigned long long text = 0;
		FILE *t = popen("grep -m1 ' T _text$' /proc/kallsyms", "r");

		if (fgets(line2, sizeof(line2), t))
			sscanf(line2, "%llx", &text);
		pclose(t);
		assert_true(text != 0);
		struct tally_machine *old = tally_machine__new();
		struct tally_mmap_event kev = {
			.pid = -1, .start = text - 0x200000, .len = 0x2000000,
			.pgoff = text - 0x200000, .filename = "[kernel.kallsyms]_text",
		};
		struct tally_addr_info ai;

		assert_int_equal(tally_machine__mmap(old, &kev), 0);
		assert_int_equal(tally_symbols__resolve(s, old, -1, 0, kaddr + 1 - 0x200000,
							TALLY_CPUMODE_KERNEL, &ai), 0);
		assert_int_equal(ai.vaddr, kaddr + 1);
		assert_string_equal(ai.sym->name, kname);
		tally_machine__free(old);
	}

	/* Zeroed addresses are said, not guessed. */
	char ks[512];

	snprintf(ks, sizeof(ks), "%s/kallsyms0", dir);
	write_file(ks, "0000000000000000 T _text\n0000000000000000 T schedule\n");
	TALLY_OPTS(tally_symbols_opts, o, .kallsyms = ks);
	struct tally_symbols *s0 = tally_symbols__new(&o);
	struct tally_addr_info ai;
	const struct tally_unresolved *u;

	assert_int_equal(tally_symbols__resolve(s0, m, -1, 0, kaddr, TALLY_CPUMODE_KERNEL, &ai),
			 -ENOENT);
	assert_int_equal(ai.status, TALLY_DSO_KALLSYMS_RESTRICTED);
	assert_true(tally_symbols__unresolved(s0, &u) >= 1);
	assert_non_null(strstr(u[0].detail, "kptr_restrict"));
	tally_symbols__free(s0);
	tally_machine__free(m);
	tally_symbols__free(s);
}

/* ---- perf parity: the same samples, the same names ---- */

static size_t plt_init_samples;

struct perf_cmp {
	size_t samples, same, hot, hot_same;
};

static bool is_hot(const char *n)
{
	return strstr(n, "hot_") || strstr(n, "geo::") || strstr(n, "anon_hot") ||
	       strstr(n, "memmove") || strstr(n, "memset") || !strcmp(n, "vfs_read") ||
	       !strcmp(n, "do_syscall_64");
}

static void perf_compare(const char *bin, const char *arg, struct perf_cmp *c)
{
	char cmd[2048], line[4096], data[512];
	struct tally_machine *m = tally_machine__new();
	struct tally_symbols *s = tally_symbols__new(NULL);
	FILE *p;

	memset(c, 0, sizeof(*c));
	snprintf(data, sizeof(data), "%s/%s%s.data", dir, strchr(bin, '/') ? "dl-prog" : bin,
		 strchr(arg, ' ') ? "-2" : "");
	if (sh("cd %s && perf record -q -o %s -F 999 -- ./%s %s >/dev/null 2>&1", dir, data,
	       bin, arg)) {
		tally_machine__free(m);
		tally_symbols__free(s);
		skip();
	}
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s --show-mmap-events -F pid,tid,ip,sym,dso 2>/dev/null", data);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *rec, fname[2048], perms[8];
		int pid, tid;
		unsigned long long start, len, pgoff, ino, gen;
		unsigned int maj, min;
		char kind;

		line[strcspn(line, "\n")] = '\0';
		if ((rec = strstr(line, "PERF_RECORD_MMAP2 "))) {
			if (sscanf(rec, "PERF_RECORD_MMAP2 %d/%d: [%llx(%llx) @ %llx %x:%x %llu %llu]: %7s %2047[^\n]",
				   &pid, &tid, &start, &len, &pgoff, &maj, &min, &ino, &gen,
				   perms, fname) != 11)
				continue;
			struct tally_mmap_event ev = {
				.pid = pid, .tid = tid, .start = start, .len = len,
				.pgoff = pgoff, .filename = fname, .maj = maj, .min = min,
				.ino = ino, .prot = strchr(perms, 'x') ? 5 : 1,
			};
			assert_int_equal(tally_machine__mmap(m, &ev), 0);
			continue;
		}
		if ((rec = strstr(line, "PERF_RECORD_MMAP "))) {
			if (sscanf(rec, "PERF_RECORD_MMAP %d/%d: [%llx(%llx) @ %llx]: %c %2047[^\n]",
				   &pid, &tid, &start, &len, &pgoff, &kind, fname) != 7)
				continue;
			struct tally_mmap_event ev = {
				.pid = pid, .tid = tid, .start = start, .len = len,
				.pgoff = pgoff, .filename = fname,
			};
			assert_int_equal(tally_machine__mmap(m, &ev), 0);
			continue;
		}
		if (strstr(line, "PERF_RECORD_"))
			continue;
		/* "  pid/tid  ip sym (dso)" */
		unsigned long long ip;
		int off = 0;

		if (sscanf(line, " %d/%d %llx %n", &pid, &tid, &ip, &off) != 3 || !off)
			continue;
		char *sym = line + off, *paren = strrchr(sym, '(');

		if (!paren || paren == sym)
			continue;
		paren[-1] = '\0';
		struct tally_addr_info ai;
		enum tally_cpumode mode = ip >> 63 ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
		const char *ours = tally_symbols__resolve(s, m, pid, tid, ip, mode, &ai) ?
				   "[unknown]" : ai.sym->name;

		c->samples++;
		if (!strcmp(ours, sym))
			c->same++;
		else
			printf("# %s: %llx perf '%s' we '%s' (%s)\n", bin, ip, sym, ours,
			       ai.dso ? tally_dso__name(ai.dso) : "no map");
		plt_init_samples += !strcmp(sym, "_init");
		if (is_hot(sym)) {
			c->hot++;
			c->hot_same += !strcmp(ours, sym);
		}
	}
	pclose(p);
	printf("# perf parity %s: %zu/%zu samples same name, hot %zu/%zu\n", bin, c->same,
	       c->samples, c->hot_same, c->hot);
	const struct tally_unresolved *u;
	int nu = tally_symbols__unresolved(s, &u);

	for (int i = 0; i < nu; i++)
		printf("#   unresolved: %s: %" PRIu64 " addresses, %s\n", u[i].dso, u[i].addrs,
		       tally_dso_status__str(u[i].status));
	tally_machine__free(m);
	tally_symbols__free(s);
}

static void check_parity(const struct perf_cmp *c)
{
	assert_true(c->samples >= 50);
	assert_true(c->hot >= 20);
	assert_int_equal(c->hot_same, c->hot);
	assert_true(c->same * 100 >= c->samples * 99);
}

static void test_perf_parity_pie(void **state)
{
	struct perf_cmp c;

	if (!have("perf"))
		skip();
	perf_compare("pie", "60000000", &c);
	check_parity(&c);
}

static void test_perf_parity_nopie(void **state)
{
	struct perf_cmp c;

	if (!have("perf"))
		skip();
	perf_compare("nopie", "60000000", &c);
	check_parity(&c);
}

/* libc and the kernel: shared-library offsets, memmove's aliases, kallsyms. */
static void test_perf_parity_libc_kernel(void **state)
{
	struct perf_cmp c;

	if (!have("perf"))
		skip();
	perf_compare("pie", "200000 libc", &c);
	check_parity(&c);
}

/* Stripped, symbols from the debuglink file: perf finds it too. */
static void test_perf_parity_debuglink(void **state)
{
	struct perf_cmp c;
	char path[512];

	snprintf(path, sizeof(path), "%s/dl/prog", dir);
	if (!have("perf") || access(path, X_OK))
		skip();
	perf_compare("dl/prog", "60000000", &c);
	check_parity(&c);
}

static void test_perf_parity_plt(void **state)
{
	struct perf_cmp c;

	if (!have("perf"))
		skip();
	assert_int_equal(sh("cd %s && cc -O1 -fno-builtin -no-pie -fno-pie -o plt plt.c", dir), 0);
	perf_compare("plt", "60000000", &c);
	assert_true(c.samples >= 50);
	assert_true(c.same * 100 >= c.samples * 99);
	printf("# plt: %zu samples named _init by perf\n", plt_init_samples);
}

static void test_perf_parity_cxx(void **state)
{
	struct perf_cmp c;

	if (!have("perf") || !have("g++"))
		skip();
	assert_int_equal(sh("cd %s && g++ -O1 -g -o cxx cxx.cc", dir), 0);
	perf_compare("cxx", "150000", &c);
	check_parity(&c);
}

/* ---- source lines: addr2line as the reference ---- */

static void test_srcline(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct nmsym syms[512];
	char path[512];
	size_t n, checked = 0, same = 0;
	struct tally_dso *d;
	struct timespec t0, t1;

	snprintf(path, sizeof(path), "%s/pie", dir);
	n = nm_funcs(path, syms, 512);
	d = tally_symbols__dso_path(s, path);
	assert_non_null(d);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n && checked < 16; i++) {
		if (strncmp(syms[i].name, "hot_", 4) && strcmp(syms[i].name, "main"))
			continue;
		for (uint64_t k = 0; k < 4; k++) {
			uint64_t a = syms[i].addr + syms[i].size * k / 4;
			char cmd[1024], ref[1024] = "";
			const char *file;
			int line;
			FILE *p;

			snprintf(cmd, sizeof(cmd), "addr2line -e %s %#" PRIx64, path, a);
			p = popen(cmd, "r");
			if (!fgets(ref, sizeof(ref), p))
				ref[0] = '\0';
			pclose(p);
			ref[strcspn(ref, "\n")] = '\0';
			/* addr2line appends " (discriminator N)"; the line is what matters. */
			char *disc = strstr(ref, " (discriminator");

			if (disc)
				*disc = '\0';
			char ours[1024] = "??:0";

			if (!tally_dso__srcline(d, a, &file, &line))
				snprintf(ours, sizeof(ours), "%s:%d", file, line);
			checked++;
			if (!strcmp(ours, ref))
				same++;
			else
				printf("# srcline %#" PRIx64 ": addr2line %s, we %s\n", a, ref, ours);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# srcline: %zu/%zu equal to addr2line\n", same, checked);
	assert_true(checked >= 12);
	assert_int_equal(same, checked);

	/* Through the debuglink file of the stripped copy, when the test made one. */
	snprintf(path, sizeof(path), "%s/dl/prog", dir);
	TALLY_OPTS(tally_symbols_opts, o, .debug_root = dir, .home_debug = "");
	struct tally_symbols *s2 = tally_symbols__new(&o);

	if (!access(path, R_OK)) {
		const struct tally_symbol *sym;
		const char *file;
		int line;

		d = tally_symbols__dso_path(s2, path);
		for (size_t i = 0; i < n; i++) {
			if (strcmp(syms[i].name, "hot_static"))
				continue;
			sym = tally_dso__find_symbol(d, syms[i].addr + 4);
			assert_non_null(sym);
			assert_int_equal(tally_dso__srcline(d, syms[i].addr + 4, &file, &line), 0);
			assert_non_null(strstr(file, "prog.c"));
		}
	}
	tally_symbols__free(s2);
	tally_symbols__free(s);
}

/* Inline chains: addr2line -f -i as the reference, frame by frame. */
static void test_srcline_inlines(void **state)
{
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct nmsym syms[256];
	char path[512];
	size_t n, checked = 0, same = 0, deep = 0;
	uint64_t start = 0, size = 0;

	assert_int_equal(sh("cd %s && cc -O2 -g -o inl inl.c", dir), 0);
	snprintf(path, sizeof(path), "%s/inl", dir);
	n = nm_funcs(path, syms, 256);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(syms[i].name, "outer")) {
			start = syms[i].addr;
			size = syms[i].size;
		}
	assert_true(size > 0);
	struct tally_dso *d = tally_symbols__dso_path(s, path);

	for (uint64_t k = 0; k < 12; k++) {
		uint64_t a = start + size * k / 12;
		struct tally_srcline fr[8];
		char cmd[1024], ref[4096] = "", ours[4096] = "", buf[512];
		int nf = tally_dso__srcline_inlines(d, a, fr, 8);
		FILE *p;

		snprintf(cmd, sizeof(cmd), "addr2line -f -i -e %s %#" PRIx64, path, a);
		p = popen(cmd, "r");
		while (fgets(buf, sizeof(buf), p)) {
			char *disc = strstr(buf, " (discriminator");

			if (disc)
				strcpy(disc, "\n");
			strncat(ref, buf, sizeof(ref) - strlen(ref) - 1);
		}
		pclose(p);
		for (int i = 0; i < nf; i++) {
			snprintf(buf, sizeof(buf), "%s\n%s:%d\n", fr[i].func ? fr[i].func : "??",
				 fr[i].file, fr[i].line);
			strncat(ours, buf, sizeof(ours) - strlen(ours) - 1);
		}
		checked++;
		deep += nf > 1;
		if (!strcmp(ref, ours))
			same++;
		else
			printf("# inlines %#" PRIx64 ":\n# addr2line:\n%s# we:\n%s", a, ref, ours);
	}
	printf("# inline chains: %zu/%zu equal to addr2line -f -i (%zu with inlined frames)\n",
	       same, checked, deep);
	assert_int_equal(same, checked);
	assert_true(deep >= 3);
	tally_symbols__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nm_pie),
		cmocka_unit_test(test_nm_nopie),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_build_id_root),
		cmocka_unit_test(test_build_id_mismatch),
		cmocka_unit_test(test_minidebuginfo),
		cmocka_unit_test(test_jit_map),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_perf_parity_pie),
		cmocka_unit_test(test_perf_parity_nopie),
		cmocka_unit_test(test_perf_parity_libc_kernel),
		cmocka_unit_test(test_perf_parity_debuglink),
		cmocka_unit_test(test_perf_parity_plt),
		cmocka_unit_test(test_perf_parity_cxx),
		cmocka_unit_test(test_srcline),
		cmocka_unit_test(test_srcline_inlines),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
