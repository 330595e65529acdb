/* SPDX-License-Identifier: MIT */
/*
 * Where in a function the samples fell, as perf annotate 6.1 shows it:
 * the samples of a session gathered per (event, DSO, symbol) and
 * address, then one symbol's lines as perf builds them from objdump's
 * `-l -d -S` (section and symbol headers, function names, source lines
 * with objdump's context, instructions with their samples), made here
 * with capstone (tally/disasm.h) and libdw. The command, the browser and
 * the HTML page print these lines their own way.
 */
#ifndef TALLY_ANNOTATE_H
#define TALLY_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/core.h>
#include <tally/disasm.h>
#include <tally/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_annotate;

struct tally_annotate_opts {
	size_t sz;
	const char *symbol;		/* only this symbol's samples (perf's filter) */
	const char *dsos;		/* only these DSOs' samples: "a.so,b" (names or paths) */
	bool no_source;			/* no source lines (--no-source) */
	bool asm_raw;			/* the instruction bytes too (--asm-raw) */
	enum tally_disasm_syntax syntax;
	/* kernel code: from this ELF file (-k/--vmlinux), else from kcore */
	const char *vmlinux;
	const char *kcore;		/* NULL: /proc/kcore */
	size_t :0;
};
#define tally_annotate_opts__last_field kcore

/* perf's --percent-type */
enum tally_percent_type {
	TALLY_PERCENT_LOCAL_PERIOD = 0,
	TALLY_PERCENT_GLOBAL_PERIOD,
	TALLY_PERCENT_LOCAL_HITS,
	TALLY_PERCENT_GLOBAL_HITS,
	TALLY_PERCENT__NR,
};

/* One annotated symbol, in perf's order (tally_annotate__sort). */
struct tally_annotate_sym {
	int attr;			/* the event (the file's attr index) */
	struct tally_dso *dso;
	const char *dso_name;		/* the DSO's path ("[kernel.kallsyms]") */
	const char *name;
	uint64_t start, end;		/* ELF addresses */
	uint64_t nr_samples, period;
};

/* One line of an annotation. */
struct tally_annotate_line {
	int64_t offset;			/* from the symbol's start; -1: not an instruction */
	uint64_t addr;			/* the instruction's address */
	int line_nr;			/* perf's running source line number */
	const char *text;		/* after "addr:" for an instruction, else the whole line */
	uint64_t nr_samples, period;	/* from this instruction to the next */
	double percent[TALLY_PERCENT__NR];
};

/* The symbol's lines, freed by tally_annotate_lines__free. */
struct tally_annotate_lines {
	struct tally_annotate_line *v;
	int nr;
	int addr_width;			/* hex digits of the last instruction's address */
	const char *file;		/* the DSO (its code may be a copy in the build-id cache); kernel code: the vmlinux or /proc/kcore read */
	char *mem;
};

/* One line of a function's source with what its instructions got. */
struct tally_annotate_srcline {
	const char *file;		/* the first line of each file: its path; else NULL */
	int line;
	const char *text;		/* the line as in the file, "" when unreadable */
	uint64_t nr_samples, period;	/* of the instructions the line table puts on it */
	double percent[TALLY_PERCENT__NR];
};

/* A function's source lines, freed by tally_annotate_source__free. */
struct tally_annotate_source {
	struct tally_annotate_srcline *v;
	int nr;
	char *mem;
};

/* NULL + errno. The session stays the caller's. */
TALLY_API struct tally_annotate *tally_annotate__new(struct tally_session *s,
						     const struct tally_annotate_opts *opts);
TALLY_API void tally_annotate__free(struct tally_annotate *a);
/* Count a sample (from the session's sample callback): 0 or -errno. */
TALLY_API int tally_annotate__add(struct tally_annotate *a,
				  const struct tally_session_sample *smp);
/* The symbols with samples, by event then samples' period (perf's order): their number. */
TALLY_API int tally_annotate__sort(struct tally_annotate *a);
TALLY_API const struct tally_annotate_sym *tally_annotate__sym(const struct tally_annotate *a,
							       int idx);
/* All samples counted for an event, and their period (global percents). */
TALLY_API void tally_annotate__totals(const struct tally_annotate *a, int attr,
				      uint64_t *nr_samples, uint64_t *period);
/*
 * The lines of symbol idx. 0, or -errno with the reason in
 * tally_annotate__strerror: -ENOENT the DSO is gone, -ESTALE its build
 * id differs from the recorded one (a vmlinux or kcore: from the
 * running kernel's), -ENOEXEC kernel code without a vmlinux or kcore,
 * -EACCES kcore unreadable (not root), -ERANGE a vmlinux linked
 * elsewhere, -ENOTSUP JIT code, -ENODATA no code at the symbol.
 */
TALLY_API int tally_annotate__lines(struct tally_annotate *a, int idx,
				    struct tally_annotate_lines *out);
TALLY_API void tally_annotate_lines__free(struct tally_annotate_lines *l);
/*
 * The source-only view of symbol idx: each file its code comes from (its
 * own first), the lines from the first to the last one the line table
 * names there, each with the sum of its instructions' samples (inlined
 * code counts where it was written). Errors as tally_annotate__lines.
 */
TALLY_API int tally_annotate__source(struct tally_annotate *a, int idx,
				     struct tally_annotate_source *out);
TALLY_API void tally_annotate_source__free(struct tally_annotate_source *s);
/* Why the last tally_annotate__lines failed, in perf's words. */
TALLY_API const char *tally_annotate__strerror(const struct tally_annotate *a);

#ifdef __cplusplus
}
#endif
#endif
