// SPDX-License-Identifier: MIT
/*
 * tally report --tasks and --mmaps: perf 6.1's task tree. Every thread
 * the file's side-band made (COMM, FORK; MMAP with --mmaps alone, perf
 * reads none for --tasks; perf reads no sample there, so a thread only
 * samples name is none), each under the
 * thread that forked it, with its maps under it for --mmaps. The order
 * is perf's: threads walked by (tid & 255, tid), as its machine's 256
 * trees hold them, a thread put under its parent when it or one of its
 * descendants is first reached; a thread whose FORK nothing saw (ppid -1)
 * starts a tree of its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tally/tally.h>
#include "read_file.h"
#include "report.h"

struct task {
	int32_t pid, tid, ppid;
	const char *comm;
	char dflt[16];			/* ":TID", perf's name for a thread nothing named */
	int parent, first, last, next;	/* indexes into the tasks; -1 none */
	int root_next;
	bool listed;
};

struct tasks {
	struct task *v;
	int n, cap;
	int err;
};

static struct task *task_add(struct tasks *t, int32_t pid, int32_t tid, int32_t ppid,
			     const char *comm)
{
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 256;
		struct task *v = realloc(t->v, (size_t)cap * sizeof(*v));

		if (!v) {
			t->err = -ENOMEM;
			return NULL;
		}
		t->v = v;
		t->cap = cap;
	}
	struct task *k = &t->v[t->n++];

	*k = (struct task){ .pid = pid, .tid = tid, .ppid = ppid, .comm = comm, .parent = -1,
			    .first = -1, .last = -1, .next = -1, .root_next = -1 };
	return k;
}

/* --tasks: perf reads no MMAP record then, so a thread only they made is none */
static int on_task(const struct tally_thread_info *ti, void *arg)
{
	if (!ti->side_band)
		return 0;
	return task_add(arg, ti->pid, ti->tid, ti->ppid, ti->comm) ? 0 : -ENOMEM;
}

static int on_thread(const struct tally_thread_info *ti, void *arg)
{
	return task_add(arg, ti->pid, ti->tid, ti->ppid, ti->comm) ? 0 : -ENOMEM;
}

/* perf's machine order: 256 trees by tid's low byte, each in tid order */
static int cmp_perf_order(const void *pa, const void *pb)
{
	const struct task *a = pa, *b = pb;
	uint32_t ka = (uint32_t)a->tid & 255, kb = (uint32_t)b->tid & 255;

	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static bool known(const struct tasks *t, int32_t tid)
{
	for (int i = 0; i < t->n; i++)
		if (t->v[i].tid == tid)
			return true;
	return false;
}

static int find_tid(const struct tasks *t, int32_t tid)
{
	/* sorted by (tid & 255, tid): a binary search on that key */
	int lo = 0, hi = t->n;
	struct task key = { .tid = tid };

	while (lo < hi) {
		int mid = (lo + hi) / 2, c = cmp_perf_order(&t->v[mid], &key);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * perf's tasks_list: link task i under its parent, and on up while the
 * parent was not listed yet; the root reached, or -1 (already listed),
 * or -2 (a parent no thread is).
 */
static int link_up(struct tasks *t, int i)
{
	for (;;) {
		struct task *k = &t->v[i];
		int p;

		if (k->listed)
			return -1;
		if (k->ppid == -1)
			return i;
		if ((p = find_tid(t, k->ppid)) < 0)
			return -2;
		k->listed = true;
		k->parent = p;
		if (t->v[p].last >= 0)
			t->v[t->v[p].last].next = i;
		else
			t->v[p].first = i;
		t->v[p].last = i;
		i = p;
	}
}

static void print_maps(FILE *fp, struct tally_machine *m, const struct task *k, int indent)
{
	int n = tally_machine__nr_maps(m, k->tid);

	for (int i = 0; i < n; i++) {
		const struct tally_map *mp = tally_machine__map_at(m, k->tid, (size_t)i);
		char anon[32];
		const char *name;

		if (!mp)
			break;
		name = mp->filename;
		/*
		 * perf names a 32-bit process's vDSO "[vdso32]" (its DSO of
		 * the thread's ELF class); such a process maps it below 4 GiB
		 */
		if (!strcmp(name, "[vdso]") && mp->end <= (1ull << 32))
			name = "[vdso32]";
		if (mp->anon && !strncmp(name, "//anon", 6)) {	/* perf's map__new: a JIT's map file */
			snprintf(anon, sizeof(anon), "/tmp/perf-%d.map", k->pid);
			name = anon;
		}
		fprintf(fp, "%*s  %llx-%llx %c%c%c%c %08llx %llu %s\n", indent, "",
			(unsigned long long)mp->start, (unsigned long long)mp->end,
			mp->prot & PROT_READ ? 'r' : '-', mp->prot & PROT_WRITE ? 'w' : '-',
			mp->prot & PROT_EXEC ? 'x' : '-', mp->flags & MAP_SHARED ? 's' : 'p',
			(unsigned long long)mp->pgoff, (unsigned long long)mp->ino, name);
	}
}

static void print_task(FILE *fp, struct tally_machine *m, struct tasks *t, int i, int level,
		       bool maps)
{
	/* iterative over siblings, recursive over depth as perf's (trees are shallow) */
	for (; i >= 0; i = t->v[i].next) {
		struct task *k = &t->v[i];
		int indent = fprintf(fp, "  %8d %8d %8d |%*s", k->pid, k->tid, k->ppid, level, "");

		if (!k->comm && !k->tid)
			k->comm = "swapper";	/* perf's idle thread, named at registration */
		if (!k->comm)
			snprintf(k->dflt, sizeof(k->dflt), ":%d", k->tid);
		fprintf(fp, "%s\n", k->comm ? k->comm : k->dflt);
		if (maps)
			print_maps(fp, m, k, indent);
		if (k->first >= 0)
			print_task(fp, m, t, k->first, level + 1, maps);
	}
}

int report_tasks(const char *input, bool maps)
{
	struct tasks t = { 0 };
	TALLY_OPTS(tally_session_opts, so, .ctx = &t, .no_comm = true);
	struct tally_session *ss;
	struct tally_machine *m;
	int ret, root = -1, root_last = -1;

	if (!(ss = cli_session_open("report", input, &so, &ret)))
		return ret;
	ret = cli_session_run(ss, "report", input);
	m = tally_session__machine(ss);
	if (!t.err)
		t.err = tally_machine__for_each_thread(m, maps ? on_thread : on_task, &t);
	/* perf's idle thread, registered by report (its samples make no thread: none are read) */
	if (!t.err && !known(&t, 0))
		task_add(&t, 0, 0, -1, "swapper");
	if (t.n)
		qsort(t.v, (size_t)t.n, sizeof(*t.v), cmp_perf_order);
	if (t.err) {
		fprintf(stderr, "tally report: %s\n", strerror(-t.err));
		ret = 1;
		goto out;
	}
	for (int i = 0; i < t.n; i++) {
		int r = link_up(&t, i);

		if (r == -2) {
			fprintf(stderr, "Error: failed to process tasks\n");	/* perf's words */
			ret = 1;
			goto out;
		}
		if (r >= 0) {
			t.v[r].listed = true;
			if (root_last >= 0)
				t.v[root_last].root_next = r;
			else
				root = r;
			root_last = r;
		}
	}
	printf("# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
	/* a root is no thread's child: its next is none, its siblings the roots after it */
	for (int r = root; r >= 0; r = t.v[r].root_next)
		print_task(stdout, m, &t, r, 0, maps);
out:
	free(t.v);
	tally_session__close(ss);
	return ret;
}
