/* SPDX-License-Identifier: MIT */
/*
 * Address spaces and symbols: which function (and source line) a sample's
 * ip belongs to, with perf 6.1's answers.
 *
 * Two objects, kept apart so the first stays pure:
 *  - tally_machine: threads and their maps, fed from the side-band records
 *    (MMAP/MMAP2/COMM/FORK/EXIT) as plain structs. No I/O.
 *  - tally_symbols: DSOs loaded from disk (ELF .symtab/.dynsym/
 *    .gnu_debugdata, separate debug files by build id and debuglink,
 *    /proc/kallsyms, /tmp/perf-PID.map), each loaded once and cached, with
 *    demangling, source lines (libdw, in process) and a per-DSO account of
 *    what could not be resolved and why.
 */
#ifndef TALLY_SYMBOLS_H
#define TALLY_SYMBOLS_H

#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- address spaces ------------------------------------------------ */

struct tally_machine;

#define TALLY_BUILD_ID_MAX 20

/*
 * One mapping. The machine owns it; a pointer returned by a lookup stays
 * valid until the next call that changes that thread's or the kernel's
 * maps. `filename` lives as long as the machine.
 */
struct tally_map {
	uint64_t start;
	uint64_t end;			/* exclusive */
	uint64_t pgoff;			/* file offset of start */
	const char *filename;
	uint32_t prot;			/* PROT_* (MMAP2); PROT_EXEC alone for MMAP, as perf */
	uint32_t flags;			/* MAP_* (MMAP2) */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id[TALLY_BUILD_ID_MAX];
	uint8_t build_id_size;		/* 0: the record carried none */
	bool kernel;			/* kernel or module map */
	bool anon;			/* //anon and friends: map_ip = ip (JIT) */
	bool ksym;			/* a KSYMBOL's range (BPF): one symbol, the map's name (0.4) */
};

/* What an MMAP or MMAP2 record says, decoded. */
struct tally_mmap_event {
	int32_t pid, tid;		/* pid -1: the kernel's own maps */
	uint64_t start, len, pgoff;
	const char *filename;
	uint32_t prot, flags;		/* 0, 0 from a plain MMAP: taken as --x (perf's PROT_EXEC) */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	const uint8_t *build_id;	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint8_t build_id_size;
};

/* Sample cpumode, as PERF_RECORD_MISC_CPUMODE_MASK gives it. */
enum tally_cpumode {
	TALLY_CPUMODE_UNKNOWN = 0,
	TALLY_CPUMODE_KERNEL = 1,
	TALLY_CPUMODE_USER = 2,
	TALLY_CPUMODE_HYPERVISOR = 3,
	TALLY_CPUMODE_GUEST_KERNEL = 4,
	TALLY_CPUMODE_GUEST_USER = 5,
};

TALLY_API struct tally_machine *tally_machine__new(void);
TALLY_API void tally_machine__free(struct tally_machine *m);

/*
 * MMAP/MMAP2. A new map replaces what it overlaps; the parts of old maps
 * sticking out either side survive with their pgoff moved along (perf's
 * maps__fixup_overlappings). pid -1 or a filename starting with
 * "[kernel.kallsyms]" goes to the kernel maps. 0 or -errno.
 */
TALLY_API int tally_machine__mmap(struct tally_machine *m,
				  const struct tally_mmap_event *ev);
/* COMM; on exec the old maps stay (as perf): the new MMAP2s replace them. */
TALLY_API int tally_machine__comm(struct tally_machine *m, int32_t pid,
				  int32_t tid, const char *comm, bool exec);
/*
 * FORK: a new thread of the same process (pid == ppid) shares the
 * parent's maps; a new process gets a copy of them, and the parent's comm.
 */
TALLY_API int tally_machine__fork(struct tally_machine *m, int32_t pid,
				  int32_t tid, int32_t ppid, int32_t ptid);
/* EXIT: the thread is marked dead; its maps stay for late samples. */
TALLY_API int tally_machine__exit(struct tally_machine *m, int32_t pid,
				  int32_t tid);

/*
 * Added in 0.5: a long session's bound. Each call lets go the threads
 * whose EXIT came before the previous call, with their maps where no
 * living thread shares them; the threads that exited since are let go by
 * the next (a sample after its thread's EXIT still finds its name and
 * maps meanwhile). A tid used again (a FORK) is a new thread. Returns
 * the threads let go, or -errno.
 */
TALLY_API int tally_machine__release_exited(struct tally_machine *m);
/* A thread as tally_machine__for_each_thread shows it (0.5). */
struct tally_thread_info {
	int32_t pid, tid;
	int32_t ppid;		/* the tid of the thread whose FORK made it, else -1 (perf's ppid) */
	const char *comm;	/* NULL: nothing named it */
	bool comm_set;		/* by a COMM or its parent's, not a default name */
	bool dead;		/* its EXIT came */
	/*
	 * a COMM or FORK made or named it (as the record's thread, its
	 * leader or its parent), not only an MMAP or a sample: perf
	 * report --tasks lists those alone
	 */
	bool side_band;
};
/*
 * Added in 0.5: fn for each thread known (the dead ones not let go
 * included), in no particular order, until it returns non-zero (that
 * value returned). 0 or -EINVAL.
 */
typedef int (*tally_thread_fn)(const struct tally_thread_info *t, void *arg);
TALLY_API int tally_machine__for_each_thread(const struct tally_machine *m, tally_thread_fn fn,
					     void *arg);
/* Added in 0.5: the threads known (the dead ones not let go included). */
TALLY_API int tally_machine__nr_threads(const struct tally_machine *m);
/* The thread's comm, or NULL (errno ENOENT) when nothing named it. */
TALLY_API const char *tally_machine__comm_of(const struct tally_machine *m,
					     int32_t tid);
/* 1 dead, 0 alive, -ENOENT unknown. */
TALLY_API int tally_machine__thread_dead(const struct tally_machine *m,
					 int32_t tid);

/*
 * The map holding ip for that thread and cpumode: user modes search the
 * process's maps, kernel modes the kernel's (and user ones as a fallback
 * when cpumode is unknown). *map_ip gets the DSO-relative address as
 * perf's map__map_ip: ip - start + pgoff, the file offset for a file
 * map and the address itself for the kernel and its modules.
 * NULL with errno ENOENT when no map holds ip.
 */
TALLY_API const struct tally_map *
tally_machine__find_map(struct tally_machine *m, int32_t pid, int32_t tid,
			uint64_t ip, enum tally_cpumode cpumode,
			uint64_t *map_ip);

/* Number of user maps of the process of tid (tests, dumps); -ENOENT. */
TALLY_API int tally_machine__nr_maps(const struct tally_machine *m, int32_t tid);
/* The idx-th map of tid's process in address order, or NULL. */
TALLY_API const struct tally_map *
tally_machine__map_at(const struct tally_machine *m, int32_t tid, size_t idx);

/*
 * The kernel map perf records: "[kernel.kallsyms]_text" from the _text
 * address in kallsyms (pgoff = _text) up to the first module, and one map
 * per module from /proc/modules. Reads `kallsyms` (NULL: the /proc file)
 * up to its _text line only, and `modules`. 0 or -errno (-EACCES:
 * addresses are zeroed).
 */
TALLY_API int tally_machine__add_kernel_maps(struct tally_machine *m,
					     const char *kallsyms,
					     const char *modules);
/*
 * What runs already, as perf's synthesized records give it: each
 * process's name, its threads and executable maps read from /proc, and
 * the kernel's maps (tally_machine__add_kernel_maps). pids[0..npids-1],
 * or every process with npids <= 0. Added in 0.3. 0; -ENOENT (none of
 * pids runs); -EINVAL; -errno (no /proc).
 */
TALLY_API int tally_machine__synthesize(struct tally_machine *m, const int *pids, int npids);

/* ---- DSOs and symbols ---------------------------------------------- */

/* Not thread-safe: one tally_symbols per thread, or a lock around it. */
struct tally_symbols;
struct tally_dso;

struct tally_symbols_opts {
	size_t sz;
	/*
	 * Prepended to the global debug directory: "<root>/usr/lib/debug".
	 * NULL or "": the real one. Tests point it at a temporary tree.
	 */
	const char *debug_root;
	/* Per-user build-id cache, "~/.debug" by default ("" disables). */
	const char *home_debug;
	/* /proc/kallsyms and /proc/modules by default. */
	const char *kallsyms;
	/* Directory of perf-PID.map files, /tmp by default. */
	const char *jit_dir;
	bool no_demangle;
	/*
	 * Do not compare a map's recorded build id (MMAP2) with the file's:
	 * by default a rebuilt file is refused (TALLY_DSO_BUILD_ID_MISMATCH).
	 */
	bool ignore_build_id;
	/*
	 * Added in 0.4: the recorded build id of a file whose map gives none
	 * (a perf.data's build-id table): its length, 0 when none. A file
	 * whose build id is another is read from perf's build-id cache
	 * (home_debug) when the recorded build is kept there.
	 */
	int (*build_id)(void *ctx, const char *path, uint8_t *id, size_t max);
	void *build_id_ctx;
	/*
	 * Added in 0.5: each file's data objects (STT_OBJECT) are symbols
	 * too, as perf's lookup of a data address finds them (a page
	 * fault's "buf+0x10"): for data addresses, not code (a function
	 * table without them is what perf's samples resolve against).
	 */
	bool data_objects;
	/*
	 * Added in 0.5: perf's --symfs: each file's path (and its global
	 * debug dir, /usr/lib/debug) is read under this root, no fallback
	 * to the host's path; the build-id cache is <root>/.debug and
	 * kallsyms <root>/proc/kallsyms unless home_debug / kallsyms say.
	 * NULL, "" or "/": none.
	 */
	const char *symfs;
};

/* Why a DSO, or an address in it, got no symbol. */
enum tally_dso_status {
	TALLY_DSO_OK = 0,
	TALLY_DSO_MISSING,		/* file not found (deleted, other machine) */
	TALLY_DSO_NOT_ELF,		/* not an ELF file we can read */
	TALLY_DSO_STRIPPED,		/* no symbol table and no debug file */
	TALLY_DSO_BUILD_ID_MISMATCH,	/* file differs from the one recorded */
	TALLY_DSO_KALLSYMS_RESTRICTED,	/* kallsyms unreadable or zeroed */
	TALLY_DSO_NO_JIT_MAP,		/* anonymous code, no /tmp/perf-PID.map */
	TALLY_DSO_ANON,			/* [vdso]-like or anonymous, not loaded */
};

TALLY_API const char *tally_dso_status__str(enum tally_dso_status s);

TALLY_API struct tally_symbols *
tally_symbols__new(const struct tally_symbols_opts *opts);
TALLY_API void tally_symbols__free(struct tally_symbols *s);
/*
 * Added in 0.2: start reading /proc/kallsyms on a thread of its own, so
 * that the first kernel address finds it read (a reader calls this when
 * it opens a file with kernel samples). 0, or -errno.
 */
TALLY_API int tally_symbols__preload_kernel(struct tally_symbols *s);
/*
 * Added in 0.5: true while that thread is still reading kallsyms (a
 * kernel address's lookup would wait for it): a reader may keep such
 * addresses to resolve later and go on with the rest.
 */
TALLY_API bool tally_symbols__kernel_pending(struct tally_symbols *s);
/*
 * Added in 0.5: read the symbol table of the ELF file at path (as a
 * recording names it: its build-id table lists the files it sampled) on
 * a helper thread, so that its first lookup finds it loaded; a lookup
 * that comes first waits for it, or loads it itself if the helper has
 * not begun. Names that are no file's (the kernel's, [vdso], anonymous
 * memory) and files already known are left alone. 0, or -errno.
 */
TALLY_API int tally_symbols__preload_file(struct tally_symbols *s, const char *path);
/*
 * Added in 0.2: open d's DWARF (decompressing its debug sections, the
 * costly part) on a helper thread, for the inline frames and source
 * lines asked of it later; those wait for it if it is not done. 0, or
 * -EINVAL.
 */
TALLY_API int tally_symbols__preload_dwarf(struct tally_symbols *s, struct tally_dso *d);

/*
 * The DSO behind a map, loaded on first use and cached by name (and pid
 * for JIT maps). Owned by s. A DSO that failed to load is still returned,
 * with its status set; NULL + errno only for bad arguments or ENOMEM.
 */
TALLY_API struct tally_dso *tally_symbols__dso(struct tally_symbols *s,
					       const struct tally_map *map,
					       int32_t pid);
/* Load a file by path, no map (tests, tools): same cache. */
TALLY_API struct tally_dso *tally_symbols__dso_path(struct tally_symbols *s,
						    const char *path);

TALLY_API const char *tally_dso__name(const struct tally_dso *d);
TALLY_API enum tally_dso_status tally_dso__status(const struct tally_dso *d);
/* Where the symbols came from: the file, a debug file, kallsyms... */
TALLY_API const char *tally_dso__symsrc(const struct tally_dso *d);
/*
 * Added in 0.5: where the DSO's code is read from when the file at its
 * path is another build than the recorded one (perf's build-id cache
 * copy, ~/.debug/.build-id/..., as its symbols were); NULL: its own path.
 * Known once its symbols were loaded.
 */
TALLY_API const char *tally_dso__code_path(const struct tally_dso *d);
TALLY_API size_t tally_dso__nr_symbols(const struct tally_dso *d);
/*
 * map_ip (file offset, as tally_machine__find_map gives it) -> the ELF
 * virtual address, through the PT_LOAD segment holding that offset.
 * Identity for kallsyms and JIT DSOs.
 */
TALLY_API uint64_t tally_dso__map_ip_to_vaddr(const struct tally_dso *d,
					      uint64_t map_ip);

struct tally_symbol {
	uint64_t start;			/* ELF vaddr (kernel: address) */
	uint64_t end;			/* exclusive */
	const char *name;		/* demangled unless no_demangle */
	uint8_t binding;		/* STB_* */
	bool object;			/* STT_OBJECT: a data object in executable code (0.3) */
};
/*
 * Added in 0.4: d's symbol i (0 .. tally_dso__nr_symbols - 1), in start
 * order, its name demangled as lookups give it; NULL past the end or for
 * a table read at lookups (the kernel's cached kallsyms).
 */
TALLY_API const struct tally_symbol *tally_dso__symbol_at(struct tally_dso *d, size_t i);
/* Added in 0.4: tally_dso__map_ip_to_vaddr's inverse: an ELF address's file offset. */
TALLY_API uint64_t tally_dso__vaddr_to_map_ip(const struct tally_dso *d, uint64_t vaddr);
/*
 * Added in 0.4: the DSO name (a map's file; "[kernel.kallsyms]" for the
 * kernel's text) gets its functions from syms[0..n-1] (start, end in the
 * map's own addresses, map_ip: a file offset for a file's map, the
 * address for the kernel; name; binding, 0: global) instead of a file,
 * which is not read: a profile from another host whose names came with
 * it (a store's). symsrc: what tally_dso__symsrc says (NULL: "table").
 * Call before the first address of it resolves; the kernel's table
 * replaces kallsyms. 0, -EEXIST (that DSO is loaded already), -EINVAL,
 * -ENOMEM.
 */
TALLY_API int tally_symbols__set_table(struct tally_symbols *s, const char *name,
				       const struct tally_symbol *syms, size_t n,
				       const char *symsrc);

/* Added in 0.4: a source line at an address of a table DSO. */
struct tally_symbol_line {
	uint64_t addr;			/* as the table's starts: map_ip */
	const char *file;
	int line;
};
/*
 * Added in 0.4: the source lines of the table DSO name (after
 * tally_symbols__set_table), v[0..n-1]: what tally_dso__srcline and
 * tally_dso__srcline_inlines give at those addresses (and at the one
 * before each: a caller's return address is looked up less one), none
 * elsewhere. Copied. 0, -ENOENT (no such table DSO), -EINVAL, -ENOMEM.
 */
TALLY_API int tally_symbols__set_lines(struct tally_symbols *s, const char *name,
				       const struct tally_symbol_line *v, size_t n);

/*
 * The symbol holding vaddr (ELF address), or NULL (errno ENOENT). Aliases
 * are settled as perf does: the sized one, then global over weak over
 * local, fewer leading underscores, the longest name. A zero-sized
 * symbol runs to the next one. The pointer lives as long as s.
 */
TALLY_API const struct tally_symbol *tally_dso__find_symbol(struct tally_dso *d,
							    uint64_t vaddr);

/*
 * Source line of vaddr through libdw, in process (the DSO's own DWARF or
 * the debug file its symbols came from; opened once, on first use).
 * The innermost line, as `addr2line -e FILE ADDR` prints it. *file lives
 * as long as s. 0, -ENOENT (no line info), -errno.
 */
TALLY_API int tally_dso__srcline(struct tally_dso *d, uint64_t vaddr,
				 const char **file, int *line);

/* One frame of an address's inline chain. Strings live as long as s. */
struct tally_srcline {
	const char *func;	/* the function this frame is in, or NULL */
	const char *file;
	int line;
};

/*
 * The inline chain at vaddr, innermost first, as `addr2line -f -i`
 * prints it: frame 0 is the line-table row in the innermost inlined
 * function; each next frame is the call site in its caller, the last
 * one in the real (out-of-line) function. Returns the number of frames
 * written (at most max), -ENOENT without line info, or -errno.
 */
TALLY_API int tally_dso__srcline_inlines(struct tally_dso *d, uint64_t vaddr,
					 struct tally_srcline *out, int max);

/*
 * Added in 0.2: the functions whose code is at vaddr, as perf's --inline
 * shows a call chain's frame: the innermost inlined function first, then
 * each one it was inlined into, ending with the out-of-line function.
 * Names are linkage names demangled as the DSO's symbols are (else
 * DW_AT_name), as binutils' addr2line gives them. Returns how many were
 * written (1 when nothing is inlined there), -ENOENT without DWARF for
 * vaddr, or -errno. The strings live as long as the DSO.
 */
TALLY_API int tally_dso__inline_funcs(struct tally_dso *d, uint64_t vaddr, const char **names,
				      int max);

/*
 * Added in 0.3: a DSO's machine code, for disassembly (tally_disasm).
 * NULL + errno: ENOENT the file is gone, ESTALE it is not the one
 * recorded (build id), ENOEXEC kernel code (no vmlinux read), ENOTSUP
 * JIT or anonymous code (no file holds it), ENOMEM.
 */
struct tally_dso_code;
/*
 * flags: TALLY_DSO_CODE_DEBUG_NAMES takes a stripped file's names from
 * its debug file, as objdump does when it reads the source (-S).
 */
#define TALLY_DSO_CODE_DEBUG_NAMES (1u << 0)
TALLY_API struct tally_dso_code *tally_dso_code__open(struct tally_dso *d, unsigned flags);
TALLY_API void tally_dso_code__close(struct tally_dso_code *c);
/*
 * Added in 0.3: kernel code for d, a kernel DSO (others: as
 * tally_dso_code__open), as perf annotate finds it: from vmlinux, an ELF
 * file with the kernel's code linked where it ran (NULL: none; modules
 * are not in it), else from kcore (NULL: /proc/kcore), the running
 * kernel's memory, readable by root only; its code has no names
 * (tally_dso_code__has_names). NULL + errno as tally_dso_code__open, and
 * ENOEXEC no vmlinux and no kcore, EACCES kcore unreadable, ERANGE the
 * vmlinux's _text is not the running kernel's (KASLR moved it).
 */
TALLY_API struct tally_dso_code *tally_dso_code__open_kernel(struct tally_dso *d,
							     const char *vmlinux,
							     const char *kcore, unsigned flags);
/*
 * Added in 0.3: the function objdump -l names at addr where no line
 * table covers it (bfd's fallback): from the file's .symtab, the function
 * symbol holding addr. 0 and *name, or -ENOENT.
 */
TALLY_API int tally_dso_code__func(const struct tally_dso_code *c, uint64_t addr,
				   const char **name);
/* Added in 0.3: the file the code is read from (the DSO's, a vmlinux, kcore). */
TALLY_API const char *tally_dso_code__path(const struct tally_dso_code *c);
/*
 * Added in 0.3: false for code without a symbol table (kcore's), where
 * objdump prints targets as bare "0x..." addresses: disassemble it with
 * no tally_disasm_sym_fn.
 */
TALLY_API bool tally_dso_code__has_names(const struct tally_dso_code *c);
/*
 * The bytes from vaddr (*len of them: to the end of the DSO's symbol
 * there, else to the end of the executable section holding it, 64 KiB
 * at most) and that section's name; valid until the next call or
 * close. NULL +
 * errno: ENOENT no such section, ENODATA it holds no bytes here (a
 * debug file's).
 */
TALLY_API const uint8_t *tally_dso_code__bytes(struct tally_dso_code *c, uint64_t vaddr,
					       size_t *len, const char **section);
/*
 * Added in 0.3: the code of the lowest executable section starting in
 * (after, end) (its start in *start, *len bytes, to end at most) and its
 * name, for a range that passes its section's end as objdump's
 * --stop-address does. Valid until the next call or close. NULL + errno
 * ENOENT when no section starts there.
 */
TALLY_API const uint8_t *tally_dso_code__next_section(struct tally_dso_code *c, uint64_t after,
						      uint64_t end, uint64_t *start, size_t *len,
						      const char **section);
/*
 * Added in 0.3: objdump's name for the start of the executable section
 * at start: the first symbol in it (at *at, which may lie past start),
 * or NULL when the section has none (objdump then names the section).
 */
TALLY_API const char *tally_dso_code__section_sym(const struct tally_dso_code *c, uint64_t start,
						  uint64_t *at);
/*
 * Added in 0.3: frees d's DWARF (libdw's units and line tables, the
 * indexes made of them); a later lookup opens it again. For a reader
 * going through many of a DSO's functions once each (annotate), whose
 * memory would otherwise hold every unit it touched. Strings from
 * earlier lookups die with it; not while another thread looks d up.
 */
TALLY_API void tally_dso__release_dwarf(struct tally_dso *d);
/*
 * Added in 0.3: the line `objdump -l -C` prints where the function at
 * vaddr begins ("name():", or "demangled(args):"), inlined functions
 * included. 0, -ENOENT without DWARF there.
 */
TALLY_API int tally_dso__objdump_func(struct tally_dso *d, uint64_t vaddr, char *buf,
				      size_t size);
/*
 * Added in 0.3: the line-table row at vaddr as `objdump -l` shows it:
 * its file (as the table names it), line and discriminator (0: none).
 * 0, -ENOENT.
 */
TALLY_API int tally_dso__objdump_line(struct tally_dso *d, uint64_t vaddr, const char **file,
				      int *line, unsigned *discriminator);
/* Added in 0.3: DW_AT_comp_dir of the unit holding vaddr, or NULL. Lives as long as d. */
TALLY_API const char *tally_dso__comp_dir(struct tally_dso *d, uint64_t vaddr);
/* Added in 0.3: the build id of the file c read (its length, 0: none). */
TALLY_API int tally_dso_code__build_id(const struct tally_dso_code *c, uint8_t *id, size_t max);
/* A tally_disasm_sym_fn over c: the name objdump gives addr. */
TALLY_API const char *tally_dso_code__sym(void *c, uint64_t addr, uint64_t *off);

/* One resolved address. Strings live as long as s. */
struct tally_addr_info {
	const struct tally_map *map;	/* NULL: no map held ip */
	struct tally_dso *dso;		/* NULL when map is NULL */
	uint64_t map_ip;		/* ip - start + pgoff */
	uint64_t vaddr;			/* ELF address (kernel: ip) */
	const struct tally_symbol *sym;	/* NULL: unresolved, see status */
	uint64_t sym_off;		/* vaddr - sym->start */
	enum tally_dso_status status;	/* why sym is NULL */
};

/*
 * ip of (pid, tid, cpumode) -> map, DSO and symbol. Returns 0 when a
 * symbol was found, -ENOENT otherwise (out still says how far it got and
 * why); each miss is counted against its DSO for
 * tally_symbols__unresolved(). Callers should aggregate first and ask
 * once per distinct address.
 */
TALLY_API int tally_symbols__resolve(struct tally_symbols *s,
				     struct tally_machine *m, int32_t pid,
				     int32_t tid, uint64_t ip,
				     enum tally_cpumode cpumode,
				     struct tally_addr_info *out);

/* One line of the report's closing account. */
struct tally_unresolved {
	const char *dso;		/* DSO name, "[unknown]" for no map */
	enum tally_dso_status status;	/* OK: addresses outside any symbol */
	uint64_t addrs;			/* resolve() calls that missed */
	const char *detail;		/* e.g. the build ids, or NULL */
};

/*
 * The DSOs with misses, in first-seen order: *out is an array owned by s,
 * valid until the next resolve. Returns the count.
 */
TALLY_API int tally_symbols__unresolved(struct tally_symbols *s,
					const struct tally_unresolved **out);

/*
 * Added in 0.5: the files' symbol tables under a budget, for a session
 * that runs all day (tally agent). Without one (0, the default) every
 * table loaded stays until s is freed. With one, tally_symbols__trim
 * lets the least recently asked-for tables go until those loaded take at
 * most bytes (the kernel's, kept in its own cache, and JIT maps' are not
 * counted); a table let go is loaded again from the same file, with the
 * same build id, at its next ask, and gives the same names. 0, -EINVAL.
 */
TALLY_API int tally_symbols__set_cache_size(struct tally_symbols *s, size_t bytes);
/*
 * Added in 0.5: the budget applied, at a point where the caller holds
 * nothing it got from s since the last trim that names a file's symbol
 * (a tally_symbol, its name, a tally_dso of a file): those of a table
 * let go are stale after. A file's DSO neither asked for since the last
 * trim nor named in the account of misses is forgotten whole once its
 * table went. Returns the tables let go.
 */
TALLY_API size_t tally_symbols__trim(struct tally_symbols *s);

/* Added in 0.5: the file tables' cache (tally_symbols__set_cache_size). */
struct tally_symbols_cache_stats {
	size_t sz;
	uint64_t budget;		/* bytes; 0: none */
	uint64_t bytes;			/* of the tables loaded now */
	uint64_t tables;		/* files' tables loaded now */
	uint64_t dsos;			/* DSOs known (loaded, let go, kernel, anonymous) */
	uint64_t evictions;		/* tables let go by trims */
	uint64_t reloads;		/* tables loaded again after */
	size_t :0;
};
#define tally_symbols_cache_stats__last_field reloads
/* 0, or -EINVAL (a bad sz). */
TALLY_API int tally_symbols__cache_stats(const struct tally_symbols *s,
					 struct tally_symbols_cache_stats *st);

/*
 * Demangle a C++ (Itanium, through libstdc++'s __cxa_demangle as
 * Debian's perf does) or Rust (legacy: the ::h<16 hex> hash dropped; v0)
 * name. Returns a malloc'ed string, or NULL (errno EINVAL) when name is
 * not mangled.
 */
TALLY_API char *tally_demangle(const char *name);

#ifdef __cplusplus
}
#endif
#endif
