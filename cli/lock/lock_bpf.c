// SPDX-License-Identifier: MIT
/*
 * tally lock contention -b (perf 6.1's option, which Debian's perf lacks):
 * no file; a BPF program (lib/sample/lockcon.c) sums the waits in the
 * kernel while a workload runs (or -a, -C, -p, --tid until Ctrl-C), then
 * each stack's sums become the rows the file's reader would make of the
 * same waits: the same caller rules (lock_callers.c), the same table.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/lockcon.h>
#include <tally/symbols.h>
#include "lock_cmd.h"
#include "target.h"
#include "tp_cmd.h"
#include "wait.h"

#define CMD "lock contention"

struct comm {
	int32_t tid;
	char name[17];
};

struct lb {
	const struct lock_opts *o;
	struct lock_stats stats;
	struct lock_callers callers;
	struct tally_machine *m;
	struct tally_symbols *syms;
	struct comm *comms;		/* -t: each waiter's name */
	size_t nr_comms;
	bool no_mem;
};

/* A kernel address as the file's reader resolves it: its map, symbol and offset. */
static void kframe(struct lb *b, uint64_t ip, struct tally_frame *f)
{
	const struct tally_map *map;
	const struct tally_symbol *sym;
	struct tally_dso *d;
	uint64_t map_ip = ip;

	*f = (struct tally_frame){ .ip = ip, .mode = TALLY_CPUMODE_KERNEL, .level = 'k', .addr = ip };
	if (!b->m || !(map = tally_machine__find_map(b->m, -1, -1, ip, TALLY_CPUMODE_KERNEL, &map_ip)))
		return;
	f->addr = map_ip;
	if (!(d = tally_symbols__dso(b->syms, map, -1)))
		return;
	if ((sym = tally_dso__find_symbol(d, tally_dso__map_ip_to_vaddr(d, map_ip)))) {
		f->sym = sym->name;
		f->sym_start = sym->start;
	}
}

/* -v: the row's stack, each frame named ("" where no symbol), as the file's reader keeps it. */
static void keep_stack(struct lb *b, struct lock_stat *st, const struct tally_frame *fr, int n)
{
	if (!(st->stack = calloc((size_t)n + 1, sizeof(*st->stack))) ||
	    !(st->stack_ip = calloc((size_t)n + 1, sizeof(*st->stack_ip)))) {
		b->no_mem = true;
		return;
	}
	for (int i = 0; i < n; i++) {
		char buf[256];

		if (!lock_frame_name(&fr[i], buf, sizeof(buf)))
			buf[0] = 0;
		st->stack_ip[i] = fr[i].ip;
		if (!(st->stack[i] = strdup(buf))) {
			b->no_mem = true;
			return;
		}
		st->nr_stack++;
	}
}

static int add_entry(void *arg, const struct tally_lockcon_entry *e)
{
	struct lb *b = arg;
	struct tally_frame fr[128];
	char name[256] = "Unknown";
	struct lock_stat *st;
	uint64_t key;
	int n = e->nr_stack < 128 ? e->nr_stack : 128;

	for (int i = 0; i < n; i++)
		kframe(b, e->stack[i], &fr[i]);
	if (b->o->threads) {
		key = (uint64_t)e->tid;
		if (e->comm) {
			struct comm *c = realloc(b->comms, (b->nr_comms + 1) * sizeof(*c));

			if (!c)
				return -ENOMEM;
			b->comms = c;
			c[b->nr_comms].tid = e->tid;
			snprintf(c[b->nr_comms++].name, sizeof(c->name), "%s", e->comm);
		}
	} else {
		key = lock_callchain_id(&b->callers, fr, n);
		lock_caller(&b->callers, fr, n, name, sizeof(name));
	}
	if (!(st = lock_stats_findnew(&b->stats, key, name, e->flags)))
		return -ENOMEM;
	if (!st->nr_contended && !b->o->threads && b->o->verbose)
		keep_stack(b, st, fr, n);
	/* every wait counted ended: contended and acquired alike */
	st->nr_contended += e->count;
	st->nr_acquired += e->count;
	st->total += e->total;
	if (e->max > st->max)
		st->max = e->max;
	if (e->min < st->min)
		st->min = e->min;
	st->avg = st->nr_acquired ? st->total / st->nr_acquired : 0;
	return 0;
}

static const char *comm_of(void *ctx, int32_t tid)
{
	struct lb *b = ctx;
	static char buf[24];

	for (size_t i = 0; i < b->nr_comms; i++)
		if (b->comms[i].tid == tid)
			return b->comms[i].name;
	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	return buf;
}

/* The filters: the workload's process, -p's processes or --tid's threads; -C's CPUs. */
static int fill(struct tally_lockcon *c, const struct cli_targets *ts,
		const struct lock_bpf_target *t)
{
	int err = 0;

	if (ts->wl && ts->wl_is_target)
		err = tally_lockcon__add_task(c, tally_workload__pid(ts->wl));
	else if (!ts->system_wide)
		for (int i = 0; !err && i < tally_thread_map__nr(ts->threads); i++)
			err = tally_lockcon__add_task(c, tally_thread_map__pid(ts->threads, i));
	if (!err && t->cpus)
		for (int i = 0; !err && i < tally_cpu_map__nr(ts->cpus); i++)
			err = tally_lockcon__add_cpu(c, tally_cpu_map__cpu(ts->cpus, i).cpu);
	if (err)
		fprintf(stderr, "tally " CMD ": -b: cannot fill the BPF filters: %s\n", strerror(-err));
	return err;
}

int lock_contention_bpf(const struct lock_opts *o, const struct lock_bpf_target *t)
{
	struct cli_target ct = {
		.pids = t->pids, .tids = t->tids, .cpu_list = t->cpus, .system_wide = t->system_wide,
	};
	struct cli_targets ts = CLI_TARGETS_INIT("lock contention");
	struct tally_lockcon_opts co = {
		.sz = sizeof(co),
		.by_tid = t->tids != NULL,
		.cpu_filtered = t->cpus != NULL,
		.per_thread = o->threads,
		.max_stack = o->max_stack,
		.map_entries = t->map_entries,
	};
	struct lock_table tab = { .o = o, .contention = true, .comm = comm_of, .cmd = CMD };
	static const int no_bad[BROKEN_MAX];
	struct lb *b = calloc(1, sizeof(*b));
	struct tally_lockcon *c = NULL;
	struct lock_stat **rows = NULL;
	struct cli_wait w;
	char why[256];
	int ret = 1, err, status = 0;
	size_t n = 0;

	if (!b)
		return 1;
	b->o = o;
	b->callers.o = o;
	if (!t->argv && !t->system_wide && !t->cpus && !t->pids && !t->tids) {
		fprintf(stderr, "tally " CMD ": -b needs something to watch: a command, -a, -C, -p "
			"or --tid\n");
		ret = 129;
		goto out;
	}
	if (lock_table_keys(&tab, o->fields ? o->fields : "contended,wait_total,wait_max,avg_wait",
			    o->key ? o->key : "wait_total")) {
		ret = 234;
		goto out;
	}
	/* said before a workload is forked; -1 (no tracefs to tell): the attach says it */
	for (int i = 0; i < 2; i++) {
		const char *tp = i ? "contention_end" : "contention_begin";

		if (!cli_have_tp("lock", tp)) {
			fprintf(stderr, "tally " CMD ": -b: this kernel has no tracepoint lock:%s "
				"(Linux 5.19 added it)\n", tp);
			goto out;
		}
	}
	if (cli_signals_setup() || cli_targets__open(&ts, &ct, t->argv, 0))
		goto out;
	co.filtered = !ts.system_wide;
	if (!(c = tally_lockcon__open(&co, why, sizeof(why)))) {
		fprintf(stderr, "tally " CMD ": -b: %s\n", why);
		goto out;
	}
	if (fill(c, &ts, t))
		goto out;
	cli_targets__watch(&ts, &ct);
	tally_lockcon__enable(c, true);
	if ((status = cli_targets__start(&ts))) {
		ret = status;
		goto out;
	}
	w = (struct cli_wait){ .ts = &ts, .t0 = cli_now_ns() };
	err = cli_wait(&w);
	tally_lockcon__enable(c, false);
	if (err) {
		fprintf(stderr, "tally " CMD ": %s\n", strerror(-err));
		goto out;
	}
	/* the kernel's symbols, as the file's reader has them from the recording's maps */
	if ((b->m = tally_machine__new()) && tally_machine__add_kernel_maps(b->m, NULL, NULL)) {
		tally_machine__free(b->m);
		b->m = NULL;
	}
	if (!(b->syms = tally_symbols__new(NULL)) && b->m) {
		tally_machine__free(b->m);
		b->m = NULL;
	}
	if ((err = tally_lockcon__for_each(c, add_entry, b)) || b->no_mem || b->stats.no_mem) {
		fprintf(stderr, "tally " CMD ": cannot read the BPF sums: %s\n",
			strerror(err ? -err : ENOMEM));
		goto out;
	}
	if (tally_lockcon__lost(c))
		fprintf(stderr, "tally " CMD ": %llu waits were not counted: a BPF map was full "
			"(a bigger --map-nr-entries keeps them)\n",
			(unsigned long long)tally_lockcon__lost(c));
	if (!(rows = lock_stats_rows(&b->stats, &n)))
		goto out;
	tab.bad_hist = no_bad;
	tab.ctx = b;
	lock_table_print(&tab, rows, n);
	fflush(stdout);
	ret = ts.wl && ts.wl_is_target ? tally_workload__exit_code(ts.wl) : 0;
	cli_reraise_interrupt();
out:
	free(rows);
	tally_lockcon__close(c);
	cli_targets__release(&ts);
	lock_stats_free(&b->stats);
	if (b->syms)
		tally_symbols__free(b->syms);
	if (b->m)
		tally_machine__free(b->m);
	free(b->comms);
	free(b);
	return ret;
}
