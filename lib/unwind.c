// SPDX-License-Identifier: MIT
/*
 * The libdwfl wrapper (tally/unwind.h). Per process, the files it had
 * mapped executable are reported to a Dwfl at their load bias; the
 * thread state comes from the sample: registers mapped from perf's order
 * to DWARF's, memory reads served from the stack copy only. libdwfl
 * finds the CFI and walks; every walk is bounded by max.
 *
 * What a file is does not depend on the process: each file's ELF is
 * opened and read once for the whole session and handed to every
 * process's Dwfl that maps it (libelf counts the references), and only
 * when a walk reaches it (dwfl_report_module + find_elf, not
 * dwfl_report_elf, which opens every mapped file of every process). A
 * process's Dwfl is rebuilt only when its own executable maps change.
 */
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "dso_internal.h"
#include <tally/unwind.h>

#define CACHE_SLOTS 64

/* The sample being unwound (the thread callbacks' argument). */
struct cur {
	int32_t pid;
	uint64_t regs[17];		/* DWARF numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
	bool have_regs;
	uint64_t sp;
	const uint8_t *stack;
	uint64_t size;
	bool short_read;		/* a read fell outside the copy */
	bool given;			/* next_thread handed out the thread */
};

/* A file some process maps, read once for all of them. */
struct sfile {
	char *path;
	int fd;
	Elf *elf;			/* NULL: not an ELF we can read */
	uint64_t lo, hi;		/* its PT_LOADs' extent (lo aligned as libdwfl aligns it) */
	GElf_Phdr *loads;
	size_t nloads;
};

struct proc {
	int32_t pid;
	uint64_t gen;
	uint64_t sig;			/* of its executable maps, when built */
	Dwfl *dwfl;
	bool attached;
	struct cur cur;
	uint64_t lru;
};

struct tally_unwind {
	struct proc slot[CACHE_SLOTS];
	uint64_t tick;
	struct sfile **files;		/* open addressing on the path */
	size_t nfiles, cap;
};

/* libdwfl asks for a module's ELF: the shared one, one more reference. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct sfile *f = *userdata;

	(void)mod;
	(void)modname;
	(void)base;
	*elfp = NULL;
	if (!f || !f->elf)
		return -1;
	*elfp = elf_begin(-1, ELF_C_READ_MMAP, f->elf);	/* the same Elf, counted */
	if (*elfp)
		*file_name = strdup(f->path);
	return -1;	/* no descriptor of its own to close */
}

static char *debuginfo_path;
static const Dwfl_Callbacks shared_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

static void sfile_free(struct sfile *f)
{
	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->loads);
	free(f->path);
	free(f);
}

/* Read path's ELF header and PT_LOADs; the file is NULL-elf when it is not one. */
static void sfile_read(struct sfile *f)
{
	GElf_Ehdr eh;
	size_t n;

	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || !tally__elf_shdrs_in_file(f->fd) || !(f->elf = tally__elf_begin(f->fd)))
		return;
	if (elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh) || elf_getphdrnum(f->elf, &n) ||
	    !(f->loads = calloc(n + 1, sizeof(*f->loads)))) {
		elf_end(f->elf);
		f->elf = NULL;
		return;
	}
	f->lo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads++] = ph;
		/* libdwfl's module start: the first PT_LOAD, aligned down to p_align */
		if (f->nloads == 1)
			f->lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		if (ph.p_vaddr + ph.p_memsz > f->hi)
			f->hi = ph.p_vaddr + ph.p_memsz;
	}
	if (!f->nloads) {
		elf_end(f->elf);
		f->elf = NULL;
	}
}

static struct sfile *sfile_get(struct tally_unwind *u, const char *path)
{
	size_t i;

	if (u->nfiles * 2 >= u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct sfile **t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < u->cap; k++) {
			if (!u->files[k])
				continue;
			for (i = tally__fnv_str(TALLY__FNV_BASIS, u->files[k]->path) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = u->files[k];
		}
		free(u->files);
		u->files = t;
		u->cap = cap;
	}
	for (i = tally__fnv_str(TALLY__FNV_BASIS, path) & (u->cap - 1); u->files[i]; i = (i + 1) & (u->cap - 1))
		if (!strcmp(u->files[i]->path, path))
			return u->files[i];
	struct sfile *f = calloc(1, sizeof(*f));

	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->fd = -1;
	sfile_read(f);
	u->files[i] = f;
	u->nfiles++;
	return f;
}

/* The load bias of a map of f: where its file offset's segment landed. */
static bool map_bias(const struct sfile *f, const struct tally_map *map, uint64_t *bias)
{
	for (size_t i = 0; i < f->nloads; i++) {
		const GElf_Phdr *ph = &f->loads[i];
		uint64_t page = 4096, off = ph->p_offset & ~(page - 1), va = ph->p_vaddr & ~(page - 1);

		if (map->pgoff >= off && map->pgoff < ph->p_offset + ph->p_filesz) {
			*bias = map->start - (va + (map->pgoff - off));
			return true;
		}
	}
	return false;
}

const char *tally_unwind_stop__str(enum tally_unwind_stop why)
{
	switch (why) {
	case TALLY_UNWIND_DONE: return "complete";
	case TALLY_UNWIND_STACK_SHORT: return "stack copy too short";
	case TALLY_UNWIND_NO_MAP: return "address outside the mapped files (JIT?)";
	case TALLY_UNWIND_NO_CFI: return "no CFI for the address";
	case TALLY_UNWIND_NO_REGS: return "no user registers in the sample";
	default: return "?";
	}
}

struct tally_unwind *tally_unwind__new(void)
{
	struct tally_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return tally__err_ptr(ENOMEM);
	return u;
}

static void proc_drop(struct proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	memset(p, 0, sizeof(*p));
}

void tally_unwind__free(struct tally_unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < CACHE_SLOTS; i++)
		proc_drop(&u->slot[i]);
	for (size_t i = 0; i < u->cap; i++)
		sfile_free(u->files[i]);
	free(u->files);
	free(u);
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct cur *c = arg;

	(void)dwfl;
	if (c->given)
		return 0;
	c->given = true;
	*thread_argp = arg;
	return c->pid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct cur *c = arg;

	(void)dwfl;
	if (addr < c->sp || addr - c->sp > c->size || c->size - (addr - c->sp) < sizeof(*result)) {
		c->short_read = true;
		return false;
	}
	memcpy(result, c->stack + (addr - c->sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct cur *c = arg;
	Dwarf_Word r[17];

	if (!c->have_regs)
		return false;
	for (int i = 0; i < 17; i++)
		r[i] = c->regs[i];
	if (!dwfl_thread_state_registers(thread, 0, 17, r))
		return false;
	dwfl_thread_state_register_pc(thread, c->regs[16]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static bool exec_file_map(const struct tally_map *map)
{
	return map && !map->anon && !map->kernel && (map->prot & 4) && map->filename &&
	       map->filename[0] == '/';
}

/* What the process's executable maps are: where each file sits. */
static uint64_t maps_sig(struct tally_machine *m, int32_t tid)
{
	int n = tally_machine__nr_maps(m, tid);
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < n; i++) {
		const struct tally_map *map = tally_machine__map_at(m, tid, (size_t)i);

		if (!exec_file_map(map))
			continue;
		h = (h ^ map->start) * 0xff51afd7ed558ccdULL;
		h = (h ^ map->pgoff ^ (uint64_t)(uintptr_t)map->filename) * 0xc4ceb9fe1a85ec53ULL;
	}
	return h;
}

/* The process's executable file maps, each file once, at its load bias. */
static Dwfl *report_maps(struct tally_unwind *u, struct tally_machine *m, int32_t tid)
{
	Dwfl *dwfl = dwfl_begin(&shared_callbacks);
	int n = tally_machine__nr_maps(m, tid);

	if (!dwfl)
		return NULL;
	dwfl_report_begin(dwfl);
	for (int i = 0; i < n; i++) {
		const struct tally_map *map = tally_machine__map_at(m, tid, (size_t)i);
		struct sfile *f;
		Dwfl_Module *mod;
		uint64_t bias;
		void **ud;

		if (!exec_file_map(map))
			continue;
		/* a file whose ELF cannot be read is left out: its frames stop the walk */
		f = sfile_get(u, map->filename);
		if (!f || !f->elf || !map_bias(f, map, &bias))
			continue;
		mod = dwfl_report_module(dwfl, f->path, bias + f->lo, bias + f->hi);
		if (mod && dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
			*ud = f;
	}
	if (dwfl_report_end(dwfl, NULL, NULL)) {
		dwfl_end(dwfl);
		return NULL;
	}
	return dwfl;
}

static struct proc *proc_for(struct tally_unwind *u, struct tally_machine *m, int32_t pid,
			     int32_t tid, uint64_t gen)
{
	struct proc *p = NULL, *old = &u->slot[0];
	uint64_t sig;

	for (int i = 0; i < CACHE_SLOTS; i++) {
		if (u->slot[i].dwfl && u->slot[i].pid == pid) {
			p = &u->slot[i];
			break;
		}
		if (u->slot[i].lru < old->lru)
			old = &u->slot[i];
	}
	if (p && p->gen == gen)
		goto out;
	/* something changed somewhere: this process's own maps, perhaps */
	sig = maps_sig(m, tid);
	if (p && p->sig == sig) {
		p->gen = gen;
		goto out;
	}
	if (!p)
		p = old;
	proc_drop(p);
	p->dwfl = report_maps(u, m, tid);
	if (!p->dwfl)
		return NULL;
	p->pid = pid;
	p->gen = gen;
	p->sig = sig;
	p->cur.pid = pid;
	p->attached = dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, &p->cur);
out:
	p->lru = ++u->tick;
	return p->attached ? p : NULL;
}

/* perf's x86-64 register numbers for DWARF's 0..16 */
static const int x86_64_perf_reg[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };

static bool load_regs(struct cur *c, const struct tally_sample_regs *regs)
{
	c->have_regs = false;
#if defined(__x86_64__)
	if (!regs || !regs->nr || !regs->regs)
		return false;
	for (int i = 0; i < 17; i++) {
		int bit = x86_64_perf_reg[i];

		if (!(regs->mask & (1ULL << bit)))
			return false;
		c->regs[i] = regs->regs[__builtin_popcountll(regs->mask & ((1ULL << bit) - 1))];
	}
	c->sp = c->regs[7];
	c->have_regs = true;
	return true;
#else
	(void)regs;
	return false;	/* the register map of this arch is not written yet */
#endif
}

struct walk {
	uint64_t *ips;
	int n, max;
	Dwfl *dwfl;
	struct tally_machine *m;
	int32_t pid, tid;
	bool unmapped;			/* the walk reached a pc outside every map */
};

static bool mapped(struct walk *w, uint64_t pc)
{
	uint64_t map_ip;

	return tally_machine__find_map(w->m, w->pid, w->tid, pc, TALLY_CPUMODE_USER, &map_ip);
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/*
	 * A caller's pc is a return address: one byte back is inside the
	 * call, which is where perf's unwinder (and its symbols) puts it.
	 */
	if (!activation)
		pc--;
	/* a pc no map holds ends the chain, without it (as perf's unwinder) */
	if (!mapped(w, pc)) {
		w->unmapped = true;
		return DWARF_CB_ABORT;
	}
	w->ips[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int tally_unwind__sample(struct tally_unwind *u, struct tally_machine *m, int32_t pid,
			 int32_t tid, uint64_t maps_gen, const struct tally_sample_regs *regs,
			 const void *stack, uint64_t stack_size, uint64_t *ips, int max,
			 enum tally_unwind_stop *why)
{
	struct proc *p;
	struct walk w = { .ips = ips, .max = max, .m = m, .pid = pid, .tid = tid };
	struct cur tmp = { 0 };
	int rc;

	*why = TALLY_UNWIND_DONE;
	if (!u || !m || !ips || max <= 0)
		return -EINVAL;
	if (!load_regs(&tmp, regs)) {
		*why = TALLY_UNWIND_NO_REGS;
		return 0;
	}
	/*
	 * A pc outside the process's maps (a sample in execve, before the new
	 * image's maps): no user frames at all, as perf shows none.
	 */
	if (!mapped(&w, tmp.regs[16]) || !(p = proc_for(u, m, pid, tid, maps_gen))) {
		*why = TALLY_UNWIND_NO_MAP;
		return 0;
	}
	memcpy(p->cur.regs, tmp.regs, sizeof(tmp.regs));
	p->cur.have_regs = true;
	p->cur.sp = tmp.sp;
	p->cur.stack = stack;
	p->cur.size = stack ? stack_size : 0;
	p->cur.short_read = false;
	p->cur.given = false;
	w.dwfl = p->dwfl;
	rc = dwfl_getthread_frames(p->dwfl, pid, frame_cb, &w);
	if (!w.n) {
		ips[0] = tmp.regs[16];
		w.n = 1;
	}
	/* libdwfl ends quietly when a read fails: the copy was too short */
	if (p->cur.short_read && w.n < max) {
		*why = TALLY_UNWIND_STACK_SHORT;
	} else if (w.unmapped) {
		*why = TALLY_UNWIND_NO_MAP;
	} else if (rc != 0 && w.n < max) {
		Dwarf_Addr last = ips[w.n - 1];

		if (!dwfl_addrmodule(p->dwfl, last))
			*why = TALLY_UNWIND_NO_MAP;
		else
			*why = TALLY_UNWIND_NO_CFI;
	}
	return w.n;
}
