// SPDX-License-Identifier: MIT
/*
 * Address spaces: threads, their comms and map sets, built from the
 * side-band records' contents. Pure: no I/O except
 * tally_machine__add_kernel_maps(), which reads the two /proc files perf
 * synthesizes the kernel's maps from.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include "internal.h"
#include "strpool.h"
#include "symbols_internal.h"

/* A sorted, non-overlapping set of maps; shared by a process's threads. */
struct mapset {
	struct tally_map *v;
	size_t nr, alloc;
	int refcnt;
};

struct thread {
	int32_t pid, tid;
	int32_t ppid;		/* the tid that forked it (a FORK), else -1 (perf's thread->ppid) */
	const char *comm;
	bool comm_set;		/* by a COMM, not the ":TID" default (perf's comm_set) */
	bool dead;
	bool reap;		/* dead at the last tally_machine__release_exited: goes at the next */
	bool side_band;		/* made or named by a COMM or FORK (perf's --tasks lists those) */
	struct mapset *maps;
};

struct tally_machine {
	struct thread *threads;		/* open addressing on tid */
	size_t nr_threads, cap;
	struct mapset kmaps;
	struct tally__strpool pool;
	uint64_t id;
	bool in_task_record;		/* a COMM or FORK applied: the threads it makes are side_band */
};

uint64_t tally__machine_id(const struct tally_machine *m)
{
	return m->id;
}

static struct mapset *mapset_new(void)
{
	struct mapset *ms = calloc(1, sizeof(*ms));

	if (ms)
		ms->refcnt = 1;
	return ms;
}

static void mapset_put(struct mapset *ms)
{
	if (!ms || --ms->refcnt > 0)
		return;
	free(ms->v);
	free(ms);
}

static struct mapset *mapset_clone(const struct mapset *src)
{
	struct mapset *ms = mapset_new();

	if (!ms || !src->nr)
		return ms;
	ms->v = tally__calloc(src->nr, sizeof(*ms->v));
	if (!ms->v) {
		free(ms);
		return NULL;
	}
	memcpy(ms->v, src->v, src->nr * sizeof(*ms->v));
	ms->nr = ms->alloc = src->nr;
	return ms;
}

/* First index whose end > addr. */
static size_t mapset_lower(const struct mapset *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ms->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int mapset_reserve(struct mapset *ms, size_t extra)
{
	if (ms->nr + extra <= ms->alloc)
		return 0;
	size_t n = ms->alloc ? ms->alloc * 2 : 16;

	while (n < ms->nr + extra)
		n *= 2;
	void *v = tally__reallocarray(ms->v, n, sizeof(*ms->v));

	if (!v)
		return -ENOMEM;
	ms->v = v;
	ms->alloc = n;
	return 0;
}

static int mapset_insert(struct mapset *ms, const struct tally_map *nm)
{
	size_t i, j;
	struct tally_map head, tail;
	bool have_head = false, have_tail = false;

	/* Room for the new map plus one split-off piece either side. */
	if (mapset_reserve(ms, 3))
		return -ENOMEM;
	i = mapset_lower(ms, nm->start);
	j = i;
	/*
	 * Overlapped maps go; what sticks out before the new start or past
	 * its end survives, the tail's pgoff moved by the cut length, as
	 * perf's maps__fixup_overlappings.
	 */
	while (j < ms->nr && ms->v[j].start < nm->end) {
		const struct tally_map *o = &ms->v[j];

		if (o->start < nm->start) {
			head = *o;
			head.end = nm->start;
			have_head = true;
		}
		if (o->end > nm->end) {
			tail = *o;
			tail.start = nm->end;
			if (!o->kernel)
				tail.pgoff += nm->end - o->start;
			else
				tail.pgoff = tail.start;
			have_tail = true;
		}
		j++;
	}
	size_t nnew = 1 + have_head + have_tail;
	size_t nold = j - i;

	memmove(&ms->v[i + nnew], &ms->v[j], (ms->nr - j) * sizeof(*ms->v));
	ms->nr = ms->nr - nold + nnew;
	if (have_head)
		ms->v[i++] = head;
	ms->v[i++] = *nm;
	if (have_tail)
		ms->v[i] = tail;
	return 0;
}

static const struct tally_map *mapset_find(const struct mapset *ms, uint64_t ip)
{
	size_t i = mapset_lower(ms, ip);

	if (i < ms->nr && ms->v[i].start <= ip)
		return &ms->v[i];
	return NULL;
}

/* ---- thread table ---- */

static size_t hash_tid(int32_t tid, size_t cap)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static struct thread *thread_slot(const struct tally_machine *m, int32_t tid)
{
	if (!m->cap)
		return NULL;
	for (size_t h = hash_tid(tid, m->cap);; h = (h + 1) & (m->cap - 1)) {
		struct thread *t = &m->threads[h];

		if (!t->maps || t->tid == tid)
			return t;
	}
}

static struct thread *thread_find(const struct tally_machine *m, int32_t tid)
{
	struct thread *t = thread_slot(m, tid);

	return t && t->maps ? t : NULL;
}

static int grow(struct tally_machine *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct thread *old = m->threads, *nt = tally__calloc(cap, sizeof(*nt));
	size_t ocap = m->cap;

	if (!nt)
		return -ENOMEM;
	m->threads = nt;
	m->cap = cap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].maps)
			*thread_slot(m, old[i].tid) = old[i];
	free(old);
	return 0;
}

/*
 * The thread tid of pid, created when new: a thread (tid != pid) shares
 * its leader's maps, as perf's thread__init_maps does.
 */
static struct thread *thread_findnew(struct tally_machine *m, int32_t pid,
				     int32_t tid, struct mapset *share)
{
	struct thread *t = thread_find(m, tid);

	if (t) {
		if (pid >= 0 && t->pid < 0)
			t->pid = pid;
		return t;
	}
	if ((m->nr_threads + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	struct mapset *ms = share;

	if (ms) {
		ms->refcnt++;
	} else if (pid >= 0 && pid != tid) {
		struct thread *leader = thread_findnew(m, pid, pid, NULL);

		if (!leader)
			return NULL;
		ms = leader->maps;
		ms->refcnt++;
	} else {
		ms = mapset_new();
		if (!ms)
			return NULL;
	}
	t = thread_slot(m, tid);
	t->pid = pid;
	t->tid = tid;
	t->ppid = -1;
	t->comm = NULL;
	t->comm_set = false;
	t->dead = false;
	t->reap = false;
	t->side_band = m->in_task_record;
	t->maps = ms;
	m->nr_threads++;
	return t;
}

struct tally_machine *tally_machine__new(void)
{
	static uint64_t next_id;
	struct tally_machine *m = calloc(1, sizeof(*m));

	if (!m)
		return tally__err_ptr(ENOMEM);
	m->id = __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	return m;
}

void tally_machine__free(struct tally_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->cap; i++)
		if (m->threads[i].maps)
			mapset_put(m->threads[i].maps);
	free(m->threads);
	free(m->kmaps.v);
	tally__strpool_free(&m->pool);
	free(m);
}

static bool is_kernel_name(const char *f)
{
	return !strncmp(f, "[kernel.kallsyms]", 17) || !strncmp(f, "[guest.kernel", 13);
}

/* perf's is_anon_memory(): JIT code, symbolized by absolute address. */
static bool is_anon_memory(const char *f)
{
	return !strcmp(f, "//anon") || !strncmp(f, "/dev/zero", 9) ||
	       !strncmp(f, "/anon_hugepage", 14);
}

const char *tally__map_name(const struct tally_mmap_event *ev, char *buf, size_t len)
{
	unsigned prot = ev->prot ? ev->prot : PROT_EXEC;

	/*
	 * perf's map__new: executable anonymous code takes its process's
	 * perf map's name, which report shows as "[JIT] tid PID" and
	 * script as (/tmp/perf-PID.map), a map file or not.
	 */
	if (ev->pid >= 0 && (prot & PROT_EXEC) && is_anon_memory(ev->filename)) {
		snprintf(buf, len, "/tmp/perf-%d.map", (int)ev->pid);
		return buf;
	}
	return ev->filename;
}

int tally_machine__mmap(struct tally_machine *m, const struct tally_mmap_event *ev)
{
	struct tally_map nm = { 0 };
	struct mapset *ms;
	char jit[64];

	if (!m || !ev || !ev->filename || !ev->len || ev->start + ev->len < ev->start ||
	    ev->build_id_size > TALLY_BUILD_ID_MAX)
		return tally__err(EINVAL);
	nm.start = ev->start;
	nm.end = ev->start + ev->len;
	nm.pgoff = ev->pgoff;
	nm.filename = tally__strpool_add(&m->pool, tally__map_name(ev, jit, sizeof(jit)));
	if (!nm.filename)
		return tally__err(ENOMEM);
	/* a plain MMAP's code: perf's map__new gets PROT_EXEC alone ("--xp" in its --mmaps) */
	nm.prot = ev->prot ? ev->prot : PROT_EXEC;
	nm.flags = ev->flags;
	nm.maj = ev->maj;
	nm.min = ev->min;
	nm.ino = ev->ino;
	nm.ino_generation = ev->ino_generation;
	if (ev->build_id && ev->build_id_size) {
		memcpy(nm.build_id, ev->build_id, ev->build_id_size);
		nm.build_id_size = ev->build_id_size;
	}
	nm.anon = is_anon_memory(ev->filename);
	if (ev->pid < 0 || is_kernel_name(ev->filename)) {
		nm.kernel = true;
		/*
		 * Kernel addresses are absolute: [kernel.kallsyms]_text
		 * carries pgoff = _text = start; a module map gets pgoff =
		 * start, so map_ip = ip for both (perf's identity map_ip).
		 */
		if (strcmp(ev->filename, "[kernel.kallsyms]_text")) {
			nm.pgoff = nm.start;
		} else if (nm.end == nm.start) {
			/*
			 * A zero-sized kernel map, as some writers leave it:
			 * perf takes the whole top of the address space.
			 */
			nm.end = UINT64_MAX;
		}
		/*
		 * Otherwise the kernel map ends where the record says, as
		 * perf 6.1 reading a file sets it (start + len, _etext for
		 * perf record's): an address above it and in no module's
		 * map (a BPF program's JIT code) is [unknown], not the kernel.
		 */
		ms = &m->kmaps;
	} else {
		struct thread *t = thread_findnew(m, ev->pid, ev->tid, NULL);

		if (!t)
			return tally__err(ENOMEM);
		ms = t->maps;
	}
	int err = mapset_insert(ms, &nm);

	return err ? tally__err(-err) : 0;
}

/*
 * A KSYMBOL record (a BPF program's JIT code, a trampoline): perf 6.1's
 * machine__process_ksymbol. Registered, it is a kernel map of its own,
 * named by the symbol, whose one symbol spans it, unless a kernel map
 * already holds the address (perf then adds the symbol to that map's DSO:
 * not done here, the map's own symbols stand). Unregistered, its map goes.
 */
int tally__machine_ksymbol(struct tally_machine *m, uint64_t addr, uint32_t len,
			   const char *name, bool unregister)
{
	const struct tally_map *o;
	struct tally_map nm = { 0 };

	if (!m || !name || !*name || !len || addr + len < addr)
		return tally__err(EINVAL);
	o = mapset_find(&m->kmaps, addr);
	if (unregister) {
		if (o && o->ksym) {
			size_t i = (size_t)(o - m->kmaps.v);

			memmove(&m->kmaps.v[i], &m->kmaps.v[i + 1],
				(m->kmaps.nr - i - 1) * sizeof(*m->kmaps.v));
			m->kmaps.nr--;
		}
		return 0;
	}
	if (o)
		return 0;
	nm.start = addr;
	nm.end = addr + len;
	/*
	 * map_ip = ip - addr, its symbol at [0, len) as perf's map__new2(0):
	 * the same program loaded twice is one row of report's -s sym there
	 * (perf's sort__sym_cmp compares the symbols' starts)
	 */
	nm.pgoff = 0;
	nm.prot = PROT_READ | PROT_EXEC;
	nm.kernel = true;
	nm.ksym = true;
	nm.filename = tally__strpool_add(&m->pool, name);
	if (!nm.filename)
		return tally__err(ENOMEM);
	int err = mapset_insert(&m->kmaps, &nm);

	return err ? tally__err(-err) : 0;
}

const struct tally_map *tally__machine_kernel_map(const struct tally_machine *m)
{
	for (size_t i = 0; m && i < m->kmaps.nr; i++)
		if (!strcmp(m->kmaps.v[i].filename, "[kernel.kallsyms]_text"))
			return &m->kmaps.v[i];
	return NULL;
}

int tally_machine__comm(struct tally_machine *m, int32_t pid, int32_t tid,
			const char *comm, bool exec)
{
	struct thread *t;

	if (!m || !comm)
		return tally__err(EINVAL);
	m->in_task_record = true;
	t = thread_findnew(m, pid, tid, NULL);
	m->in_task_record = false;
	if (!t)
		return tally__err(ENOMEM);
	t->side_band = true;
	t->comm = tally__strpool_add(&m->pool, comm);
	if (!t->comm)
		return tally__err(ENOMEM);
	t->comm_set = true;
	/*
	 * exec: the old maps stay, as in perf. The kernel writes COMM exec
	 * before the old program's stack is gone: a sample inside execve()
	 * still unwinds through the old libc, and the new program's MMAP2
	 * records replace whatever they overlap.
	 */
	(void)exec;
	return 0;
}

int tally_machine__fork(struct tally_machine *m, int32_t pid, int32_t tid,
			int32_t ppid, int32_t ptid)
{
	return tally__machine_fork(m, pid, tid, ppid, ptid, false);
}

int tally__machine_fork(struct tally_machine *m, int32_t pid, int32_t tid, int32_t ppid,
			int32_t ptid, bool exec)
{
	struct thread *parent, *t;
	struct mapset *ms;

	if (!m)
		return tally__err(EINVAL);
	m->in_task_record = true;
	parent = thread_findnew(m, ppid, ptid, NULL);
	m->in_task_record = false;
	if (!parent)
		return tally__err(ENOMEM);
	parent->side_band = true;
	if (pid == ppid) {
		/* A thread of the same process: same address space. */
		ms = parent->maps;
		ms->refcnt++;
	} else if (exec) {
		/* perf's FORK_EXEC (a synthesized process): its own MMAPs follow, nothing cloned */
		if (!(ms = mapset_new()))
			return tally__err(ENOMEM);
	} else {
		ms = mapset_clone(parent->maps);
		if (!ms)
			return tally__err(ENOMEM);
	}
	t = thread_find(m, tid);
	if (t) {
		/* A tid reused after an EXIT we may not have seen: start afresh. */
		mapset_put(t->maps);
		t->maps = ms;
		t->pid = pid;
		t->dead = false;
		t->reap = false;
		t->comm = NULL;
		t->comm_set = false;
	} else {
		m->in_task_record = true;
		t = thread_findnew(m, pid, tid, ms);
		m->in_task_record = false;
		mapset_put(ms);		/* findnew took its own reference */
	}
	if (!t)
		return tally__err(ENOMEM);
	t->side_band = true;
	t->ppid = ptid;
	parent = thread_find(m, ptid);	/* the table may have grown */
	if (parent && parent->comm && parent->comm_set) {
		/* as perf's thread__fork: a parent's ":PID" default is not passed on */
		t->comm = parent->comm;
		t->comm_set = true;
	} else if (ptid == 0 && (!parent || !parent->comm)) {
		/* perf's idle thread is named swapper (machine__idle_thread): its children take it */
		if (!(t->comm = tally__strpool_add(&m->pool, "swapper")))
			return tally__err(ENOMEM);
		t->comm_set = true;
	}
	return 0;
}

int tally__machine_default_comm(struct tally_machine *m, int32_t pid, int32_t tid,
				const char *comm)
{
	int err = tally_machine__comm(m, pid, tid, comm, false);
	struct thread *t = err ? NULL : thread_find(m, tid);

	if (t)
		t->comm_set = false;
	return err;
}

int tally_machine__exit(struct tally_machine *m, int32_t pid, int32_t tid)
{
	struct thread *t;

	(void)pid;
	if (!m)
		return tally__err(EINVAL);
	/* an EXIT of a thread nothing made is none (perf's machine__find_thread) */
	t = thread_find(m, tid);
	if (t)
		t->dead = true;
	return 0;
}

int tally_machine__release_exited(struct tally_machine *m)
{
	struct thread *old, *nt;
	int gone = 0;

	if (!m)
		return tally__err(EINVAL);
	for (size_t i = 0; i < m->cap; i++) {
		struct thread *t = &m->threads[i];

		if (t->maps && t->dead)
			gone += t->reap;
	}
	if (gone && !(nt = tally__calloc(m->cap, sizeof(*nt))))
		return tally__err(ENOMEM);	/* kept till a call with memory */
	old = m->threads;
	if (gone)
		m->threads = nt;
	for (size_t i = 0; i < m->cap; i++) {
		struct thread *t = &old[i];

		if (!t->maps)
			continue;
		if (t->dead && t->reap && gone) {
			mapset_put(t->maps);	/* a living thread of the process keeps them */
			m->nr_threads--;
			continue;
		}
		if (t->dead)
			t->reap = true;
		if (gone)	/* open addressing has no deletes: the rest placed again */
			*thread_slot(m, t->tid) = *t;
	}
	if (gone)
		free(old);
	return gone;
}

int tally_machine__for_each_thread(const struct tally_machine *m, tally_thread_fn fn, void *arg)
{
	if (!m || !fn)
		return tally__err(EINVAL);
	for (size_t i = 0; i < m->cap; i++) {
		const struct thread *t = &m->threads[i];
		struct tally_thread_info ti;
		int ret;

		if (!t->maps)
			continue;
		ti = (struct tally_thread_info){ .pid = t->pid, .tid = t->tid, .ppid = t->ppid,
						 .comm = t->comm, .comm_set = t->comm_set,
						 .dead = t->dead, .side_band = t->side_band };
		if ((ret = fn(&ti, arg)))
			return ret;
	}
	return 0;
}

int tally_machine__nr_threads(const struct tally_machine *m)
{
	return m ? (int)m->nr_threads : tally__err(EINVAL);
}

const char *tally_machine__comm_of(const struct tally_machine *m, int32_t tid)
{
	struct thread *t = m ? thread_find(m, tid) : NULL;

	if (!t || !t->comm) {
		if (m && tid == 0)
			return "swapper";	/* the idle task, as perf names it */
		return tally__err_ptr(ENOENT);
	}
	return t->comm;
}

int tally_machine__thread_dead(const struct tally_machine *m, int32_t tid)
{
	struct thread *t = m ? thread_find(m, tid) : NULL;

	if (!t)
		return tally__err(ENOENT);
	return t->dead;
}

const struct tally_map *tally_machine__find_map(struct tally_machine *m, int32_t pid,
						int32_t tid, uint64_t ip,
						enum tally_cpumode cpumode,
						uint64_t *map_ip)
{
	const struct tally_map *map = NULL;
	struct thread *t;

	if (!m)
		return tally__err_ptr(EINVAL);
	bool kernel = cpumode == TALLY_CPUMODE_KERNEL ||
		      cpumode == TALLY_CPUMODE_GUEST_KERNEL;

	if (kernel || cpumode == TALLY_CPUMODE_UNKNOWN)
		map = mapset_find(&m->kmaps, ip);
	if (!map && !kernel) {
		t = thread_find(m, tid);
		if (!t && pid >= 0)
			t = thread_find(m, pid);
		if (t)
			map = mapset_find(t->maps, ip);
	}
	if (!map)
		return tally__err_ptr(ENOENT);
	if (map_ip)
		*map_ip = map->anon ? ip : ip - map->start + map->pgoff;
	return map;
}

int tally_machine__nr_maps(const struct tally_machine *m, int32_t tid)
{
	struct thread *t = m ? thread_find(m, tid) : NULL;

	if (!t)
		return tally__err(ENOENT);
	return (int)t->maps->nr;
}

const struct tally_map *tally_machine__map_at(const struct tally_machine *m,
					      int32_t tid, size_t idx)
{
	struct thread *t = m ? thread_find(m, tid) : NULL;

	if (!t || idx >= t->maps->nr)
		return tally__err_ptr(ENOENT);
	return &t->maps->v[idx];
}

/* "ffffffff81000000 T _text" -> address, type, name, [module]. */
int tally__kallsyms_line(char *line, uint64_t *addr, char *type, char **name,
			 char **module)
{
	char *end = line, *p;
	uint64_t a = 0;

	/* the address by hand: strtoull was a fifth of reading kallsyms */
	for (int n = 0; n < 16; n++, end++) {
		unsigned c = (unsigned char)*end, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		a = a << 4 | d;
	}
	*addr = a;
	if (end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return -EINVAL;
	*type = end[1];
	p = end + 3;
	*name = p;
	*module = NULL;
	while (*p && *p != '\t' && *p != '\n' && *p != ' ')
		p++;
	if (*p == '\t' || *p == ' ') {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[') {
			*module = p + 1;
			p = strchr(p, ']');
			if (p)
				*p = '\0';
		}
	} else {
		*p = '\0';
	}
	return **name ? 0 : -EINVAL;
}

int tally_machine__add_kernel_maps(struct tally_machine *m, const char *kallsyms,
				   const char *modules)
{
	char line[512];
	uint64_t text = 0;
	FILE *f;
	int err;

	if (!m)
		return tally__err(EINVAL);
	f = fopen(kallsyms ? kallsyms : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	/*
	 * _text alone, in kallsyms' first lines: the kernel map runs from it
	 * up to the first module (tally_machine__mmap, as perf's fixup), so
	 * nothing of the rest is needed, and the rest is the cost (~40 ms of
	 * the kernel's formatting; seconds when top shares the CPUs with
	 * hundreds of busy threads).
	 */
	while (fgets(line, sizeof(line), f)) {
		uint64_t a;
		char type, *name, *mod;

		if (tally__kallsyms_line(line, &a, &type, &name, &mod) || mod)
			continue;
		if (!strcmp(name, "_text")) {
			text = a;
			break;
		}
	}
	fclose(f);
	if (!text)
		return tally__err(EACCES);	/* kptr_restrict zeroes them */
	/*
	 * The live kernel map runs from _text up to the first module, or the
	 * top (perf's machine fixup for a map whose end kallsyms did not say):
	 * a file's kernel map ends where its record says instead.
	 */
	uint64_t end = UINT64_MAX;

	/* "name size refs deps state 0xaddr" per module. */
	f = fopen(modules ? modules : "/proc/modules", "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long size, start;

		if (sscanf(line, "%*s %llu %*s %*s %*s %llx", &size, &start) == 2 && start > text &&
		    start < end)
			end = start;
	}
	struct tally_mmap_event kev = {
		.pid = -1, .tid = 0, .start = text, .len = end - text,
		.pgoff = text, .filename = "[kernel.kallsyms]_text",
	};
	err = tally_machine__mmap(m, &kev);
	if (err || !f) {
		if (f)
			fclose(f);
		return err;	/* no modules (or no CONFIG_MODULES): not an error */
	}
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		char name[128], path[160];
		unsigned long long size, start;

		if (sscanf(line, "%127s %llu %*s %*s %*s %llx", name, &size, &start) != 3 ||
		    !start || !size)
			continue;
		snprintf(path, sizeof(path), "[%s]", name);
		struct tally_mmap_event mev = {
			.pid = -1, .start = start, .len = size, .pgoff = start,
			.filename = path,
		};
		if ((err = tally_machine__mmap(m, &mev))) {
			fclose(f);
			return err;
		}
	}
	fclose(f);
	return 0;
}
