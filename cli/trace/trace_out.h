/* SPDX-License-Identifier: MIT */
/*
 * tally trace's output, the same for a live trace and a file: records in
 * time order in, perf trace's lines and summary out.
 */
#ifndef TALLY_CLI_TRACE_OUT_H
#define TALLY_CLI_TRACE_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <tally/syscalls.h>

struct tally_evlist;
struct tally_machine;
struct tally_symbols;
struct tally_record;
struct tally_trace_fmt;
struct tally_sc_tracer;
struct tally_sc_strings;
struct trace_config;
struct trace_thread;
struct trace_fds;

/* What a record is: a syscall's enter or exit, an event -e added, the side-band. */
enum trace_kind {
	TRACE_ENTER, TRACE_EXIT, TRACE_EVENT, TRACE_FAULT_MAJ, TRACE_FAULT_MIN, TRACE_OTHER,
};

struct trace_out {
	const struct trace_config *cfg;
	FILE *fp;
	bool own_fp;
	bool summary_only, summary;
	bool multiple_threads;		/* the comm/tid column */
	bool live;			/* comms from /proc */
	bool trace_syscalls;		/* the duration column: perf shows it with syscalls */
	const char *tracing_dir;	/* the syscalls' argument names */
	struct tally_sc_tracer *sc;
	struct trace_fds *fds;		/* the fd tables: the files fds name */
	int nr_clone;
	bool show[TALLY_SYSCALL_MAX];	/* -e's syscalls: the others only feed the fd tables */
	struct tally_sc_strings *strs;	/* path strings through BPF, or NULL: pointers */
	struct tally_trace_fmt *tpf;	/* the -e tracepoints' formats, or NULL */
	struct tally_machine *mach;	/* --pf: the address spaces, from the side-band */
	struct tally_symbols *syms;	/* --pf: where a fault's ip is */
	struct tally_syscall_fmt *fmts[TALLY_SYSCALL_MAX];
	bool fmt_tried[TALLY_SYSCALL_MAX];
	struct trace_thread **threads;	/* hashed by tid */
	size_t nthreads, nbuckets;
	pid_t current;			/* the thread whose call may be open on screen */
	uint64_t base_time;
	uint64_t lost;
	uint64_t unpaired;		/* enters whose exit never came */
};

/* 0, or -1 said (-o cannot be created). */
int trace_out__init(struct trace_out *o, const struct trace_config *cfg);
void trace_out__record(struct trace_out *o, const struct tally_record *r, enum trace_kind k);
/* A sample of an event -e added (a tracepoint...): its line, named name. */
void trace_out__event(struct trace_out *o, const struct tally_record *r, const char *name);
/*
 * --pf: the address spaces faults are placed in (the processes of pids,
 * npids of them, read from /proc now; none: every process, -1: only what
 * the side-band says). 0, or -1 said.
 */
int trace_out__faults(struct trace_out *o, const int *pids, int npids);
/* A page fault's sample: its line, its count. */
void trace_out__fault(struct trace_out *o, const struct tally_record *r, bool maj);
/* The formats of l's tracepoints, for their fields. 0, or -1 said. */
int trace_out__formats(struct trace_out *o, struct tally_evlist *l);
/* A thread that existed before the trace: its comm now (NULL: from /proc). */
void trace_out__thread(struct trace_out *o, pid_t tid, const char *comm);
/* -e's syscalls shown; wants: those traced for the fd tables too */
void trace_out__select(struct trace_out *o, const bool *sel, bool *wants);
/* Syscall nr's path argument names an fd table's file (open, chdir): read it even with --no-strings. */
bool trace_out__fd_paths(const struct trace_out *o, int nr);
/* tid's fds as /proc says now: a process that was there before the trace. */
void trace_out__seed_fds(struct trace_out *o, pid_t tid);
/* Bit i of masks[nr]: argument i of syscall nr is a string to read (-e's syscalls). */
void trace_out__string_masks(struct trace_out *o, const bool *sel, uint32_t *masks);
/* The kernel's count of records it could not write. */
void trace_out__lost(struct trace_out *o, uint64_t lost);
/* The calls still open, the summary, the losses. */
void trace_out__finish(struct trace_out *o);
void trace_out__release(struct trace_out *o);

#endif
