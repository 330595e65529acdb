/* SPDX-License-Identifier: MIT */
/*
 * tally probe's view of a binary: its ELF (for file offsets, symbols,
 * CFI) and its DWARF, wherever that is (the file itself, the build-id
 * tree, .gnu_debuglink, debuginfod's cache). probe_dwarf.c resolves
 * specs through it, probe_show.c lists lines, variables and functions.
 */
#ifndef TALLY_PROBE_DBG_H
#define TALLY_PROBE_DBG_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include "probe_internal.h"

struct probe_dbg {
	char *path;		/* the binary, absolute */
	int fd, dfd;
	Elf *elf;		/* the binary */
	Elf *delf;		/* the debug file (may be elf) */
	Dwarf *dw;
	Dwarf_CFI *cfi_eh, *cfi_dbg;
	bool no_inlines;	/* --no-inlines: a function's inlined copies are none of its instances */
};

/* A function instance: an out-of-line subprogram or an inlined copy. */
struct probe_inst {
	Dwarf_Die die, cu;
	bool inlined;
	Dwarf_Addr entry;
};

__attribute__((format(printf, 3, 4)))
int tally__probe_err(char *err, size_t len, const char *fmt, ...);

/*
 * perf's die_walk_lines: the statement line records of cu (in fn and
 * none of its inlined copies, when fn is given), then the functions'
 * declaration lines at their entries and the inlined call sites.
 */
typedef int (*probe_line_cb)(const char *file, int line, Dwarf_Addr addr, void *ctx);
int tally__probe_walk_lines(Dwarf_Die *cu, Dwarf_Die *fn, probe_line_cb cb, void *ctx);
/* -L's check: the address maps back to that line (a function's entry to its decl line) */
bool tally__probe_line_reversible(Dwarf_Die *cu, const char *file, int line, Dwarf_Addr addr,
				  const char **rfile, int *rline);

/* A probe address, where its arguments' names are looked up, its event's base name. */
struct probe_addr {
	Dwarf_Addr addr;
	bool is_offset;		/* addr is a file offset already (a symbol's, no DWARF) */
	Dwarf_Die scope, cu;
	char name[256];
};

/* every address a (non-SDT) spec resolves to; -ENOENT with perf's words if none */
int tally__probe_points(struct probe_dbg *d, const struct probe_point *pp, const char *spec,
			struct probe_addr **out, size_t *nr, char *err, size_t len);

/* perf's text of a point ("work%return", "@prog.c:8"), or of its arguments (" with i s") */
char *tally__probe_where(const struct probe_point *pp, bool args);

/* need_dwarf false: the ELF alone will do (SDT notes), DWARF if found */
int tally__probe_dbg_open(struct probe_dbg *d, const char *binary, char *err, size_t len,
			  bool need_dwarf);
/* SDT markers (probe_sdt.c) */
struct tally_probe_events;
int tally__probe_sdt_events(struct probe_dbg *d, const struct probe_point *pp,
			    struct tally_probe_events *out, char *err, size_t len);
void tally__probe_dbg_close(struct probe_dbg *d);
/* vaddr -> file offset through the PT_LOAD holding it; -ENOENT if none */
int tally__probe_file_offset(struct probe_dbg *d, uint64_t vaddr, uint64_t *off);
/* every instance of the functions matching glob (in file, when given; d->no_inlines: no copies) */
int tally__probe_find_funcs(struct probe_dbg *d, const char *glob, const char *file,
			    struct probe_inst **out, size_t *nr);
/* the innermost function (out-of-line or inlined) at addr in cu */
bool tally__probe_func_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out);
/* the out-of-line function holding addr */
bool tally__probe_realfunc_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out);
const char *tally__probe_die_name(Dwarf_Die *die);
/* an instance's entry, as perf 6.1 finds it (DW_AT_entry_pc or low_pc); 0 or -1 */
int tally__probe_entrypc(Dwarf_Die *die, Dwarf_Addr *addr);
/* "a/b/c.c" ends with "c.c" at a path boundary (perf's strtailcmp) */
bool tally__probe_tail_match(const char *path, const char *tail);
/* the line-table file of a line, absolute (comp_dir prepended) */
char *tally__probe_src_path(Dwarf_Die *cu, const char *file);
/* the ELF symbol holding vaddr (name, its start), false if none */
bool tally__probe_sym_at(struct probe_dbg *d, uint64_t vaddr, const char **name, uint64_t *start);
/* the entry address perf probes for an instance (prologue skipped or not) */
Dwarf_Addr tally__probe_entry(struct probe_inst *in, bool skip_prologue);

/*
 * The fetch of one variable at addr: "-20(%bp):s32"-like text in buf
 * without its name. scope is where to look for the name (the function
 * or inlined instance), cu its unit. 0, or -errno with perf's message.
 */
int tally__probe_fetch_var(struct probe_dbg *d, Dwarf_Die *scope, Dwarf_Die *cu,
			   Dwarf_Addr addr, const struct probe_arg *arg, Dwarf_Die *var,
			   char *buf, size_t len, char *err, size_t errlen);
/*
 * -V --range: may var be listed at addr in fn (the out-of-line function)?
 * 0: it has a location there ([VAL]); -ERANGE: a variable whose location
 * begins past addr in fn ([INV]); else no (perf's convert_variable_location)
 */
int tally__probe_var_state(struct probe_dbg *d, Dwarf_Die *var, Dwarf_Die *cu, Dwarf_Die *fn,
			   Dwarf_Addr addr);
/*
 * the variables with a location at addr (params only, or all), in DWARF
 * order; listing: as -V lists them (a location expression's first
 * operation will do), else only those a fetch can read
 */
int tally__probe_collect_vars(struct probe_dbg *d, Dwarf_Die *scope, Dwarf_Die *cu,
			      Dwarf_Addr addr, bool params_only, bool children, bool listing,
			      Dwarf_Die **out, size_t *nr);
/* the topmost inlined copy under parent (through lexical blocks) holding addr */
bool tally__probe_inlined_at(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out);
/* an inlined copy's DW_AT_call_file, NULL without one */
const char *tally__probe_call_file(Dwarf_Die *in, Dwarf_Die *cu);
/* perf's "type\tname" for -V */
int tally__probe_var_typename(Dwarf_Die *var, char *buf, size_t len);

#endif
