// SPDX-License-Identifier: MIT
/*
 * The DWARF unwinder (tally/unwind.h) on libdw's CFI. What a file is
 * does not depend on the process: each file's ELF and its CFI (.eh_frame,
 * else .debug_frame; libdw caches the CIEs and FDEs it has parsed) are
 * read once for the whole session, and every process that maps the file
 * steps through the same Dwarf_CFI at its own load bias. A process needs
 * no state of its own beyond its maps: a frame is stepped by finding the
 * file that holds its pc, asking libdw for the rules at pc - bias, and
 * evaluating them on the sample's registers and stack copy.
 *
 * (libdwfl keeps the CFI per Dwfl module, so per process: a file of many
 * short processes parsed each library's CFI once per process.)
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"
#include "dso_internal.h"
#include "elf_util.h"
#include <tally/unwind.h>

#define NREGS_MAX 32

/*
 * What an architecture's samples and CFI mean: the DWARF registers the
 * rules name, which of perf's sample registers (PERF_REG_*) each is, and
 * the columns the walk needs. Chosen by the recording's architecture
 * (tally_unwind__set_arch), not the host's.
 */
struct uw_arch {
	const char *name;
	int nregs;		/* DWARF 0..nregs-1 */
	int ra, sp, fp;		/* the return address column, stack and frame pointers */
	int pc_perf;		/* perf's register of the interrupted pc */
	int8_t perf_reg[NREGS_MAX];
};

/* DWARF x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, 16 = ra (perf's ip) */
static const struct uw_arch arch_x86_64 = {
	.name = "x86_64", .nregs = 17, .ra = 16, .sp = 7, .fp = 6, .pc_perf = 8,
	.perf_reg = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 },
};

/*
 * DWARF AArch64: x0..x30 (x29 the frame pointer, x30 the link register,
 * the return address column), 31 sp; perf's PERF_REG_ARM64_X0..LR, SP are
 * the same numbers and PC is 32.
 */
static const struct uw_arch arch_aarch64 = {
	.name = "aarch64", .nregs = 32, .ra = 30, .sp = 31, .fp = 29, .pc_perf = 32,
	.perf_reg = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
		      20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 },
};

static const struct uw_arch *host_arch(void)
{
#if defined(__x86_64__)
	return &arch_x86_64;
#elif defined(__aarch64__)
	return &arch_aarch64;
#else
	return NULL;	/* no register map for this host: samples need set_arch */
#endif
}

/* A file some process maps, read once for all of them. */
struct sfile {
	char *path;
	int fd;
	Elf *elf;			/* NULL: not an ELF we can read */
	GElf_Phdr *loads;
	size_t nloads;
	Dwarf_CFI *eh;			/* .eh_frame's, NULL: none */
	Dwarf *dw;			/* for .debug_frame, opened when .eh_frame has no rule */
	Dwarf_CFI *dbg;
	bool eh_tried, dbg_tried;
};

struct tally_unwind {
	struct sfile **files;		/* open addressing on the path */
	size_t nfiles, cap;
	/* a map's filename (interned by the machine) -> its file, the last few */
	struct { const char *name; struct sfile *f; } recent[8];
	unsigned next_recent;
	const struct uw_arch *arch;	/* NULL: none known */
	/* the recorded build's file behind a map, where another sits at its path (the session's) */
	const char *(*path_of)(void *ctx, const struct tally_map *map, int32_t pid);
	void *path_ctx;
	int32_t pid;			/* the sample's, for path_of */
};

void tally__unwind_set_path_of(struct tally_unwind *u,
			       const char *(*fn)(void *ctx, const struct tally_map *map, int32_t pid),
			       void *ctx)
{
	if (u) {
		u->path_of = fn;
		u->path_ctx = ctx;
	}
}

/* The sample being unwound. */
struct cur {
	const struct uw_arch *a;
	uint64_t regs[NREGS_MAX];
	uint64_t valid;			/* bit per register known */
	uint64_t pc;
	uint64_t sp;			/* of the copy */
	const uint8_t *stack;
	uint64_t size;
	bool short_read;		/* a read fell outside the copy */
};

static void sfile_free(struct sfile *f)
{
	if (!f)
		return;
	if (f->eh)
		dwarf_cfi_end(f->eh);
	if (f->dw)
		dwarf_end(f->dw);
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
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads++] = ph;
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
			for (i = tally_fnv_str(TALLY_FNV_BASIS, u->files[k]->path) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = u->files[k];
		}
		free(u->files);
		u->files = t;
		u->cap = cap;
	}
	for (i = tally_fnv_str(TALLY_FNV_BASIS, path) & (u->cap - 1); u->files[i]; i = (i + 1) & (u->cap - 1))
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
	struct tally_unwind *u;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return tally__err_ptr(ENOSYS);
	u = calloc(1, sizeof(*u));
	if (!u)
		return tally__err_ptr(ENOMEM);
	u->arch = host_arch();
	return u;
}

int tally_unwind__set_arch(struct tally_unwind *u, const char *arch)
{
	if (!u || !arch)
		return tally__err(EINVAL);
	/* perf's header says uname -m; its own name for arm64 too */
	if (!strcmp(arch, "x86_64"))
		u->arch = &arch_x86_64;
	else if (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		u->arch = &arch_aarch64;
	else {
		u->arch = NULL;	/* its samples are not unwound, never misread */
		return tally__err(EOPNOTSUPP);
	}
	return 0;
}

void tally_unwind__free(struct tally_unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->cap; i++)
		sfile_free(u->files[i]);
	free(u->files);
	free(u);
}

static bool exec_file_map(const struct tally_map *map)
{
	return map && !map->anon && !map->kernel && (map->prot & 4) && map->filename &&
	       map->filename[0] == '/';
}

/*
 * The file behind a map, through the recent ones: a machine interns its
 * filenames, so the pointer finds it (the path is compared too: another
 * machine's string may sit at a freed one's address).
 */
static struct sfile *file_of(struct tally_unwind *u, const struct tally_map *map)
{
	struct sfile *f;

	for (int i = 0; i < 8; i++)
		if (u->recent[i].name == map->filename && !strcmp(u->recent[i].f->path, map->filename))
			return u->recent[i].f;
	/*
	 * a file rebuilt since the recording: the rules of the recorded
	 * build's copy (perf's build-id cache), as perf unwinds it
	 */
	const char *path = u->path_of ? u->path_of(u->path_ctx, map, u->pid) : NULL;

	f = sfile_get(u, path ? path : map->filename);
	if (!f)
		return NULL;
	u->recent[u->next_recent].name = map->filename;
	u->recent[u->next_recent].f = f;
	u->next_recent = (u->next_recent + 1) % 8;
	return f;
}

/*
 * The rules at file address addr: .eh_frame's, else .debug_frame's (the
 * latter only in the file itself; distribution code has .eh_frame).
 */
static Dwarf_Frame *rules_at(struct sfile *f, uint64_t addr)
{
	Dwarf_Frame *fr = NULL;

	if (!f->eh_tried) {
		f->eh_tried = true;
		f->eh = dwarf_getcfi_elf(f->elf);
	}
	if (f->eh && !dwarf_cfi_addrframe(f->eh, addr, &fr))
		return fr;
	if (!f->dbg_tried) {
		f->dbg_tried = true;
		f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
		f->dbg = f->dw ? dwarf_getcfi(f->dw) : NULL;
	}
	if (f->dbg && !dwarf_cfi_addrframe(f->dbg, addr, &fr))
		return fr;
	return NULL;
}

static bool mem_read(struct cur *c, uint64_t addr, uint64_t *out)
{
	if (addr < c->sp || addr - c->sp > c->size || c->size - (addr - c->sp) < sizeof(*out)) {
		c->short_read = true;
		return false;
	}
	memcpy(out, c->stack + (addr - c->sp), sizeof(*out));
	return true;
}

static bool reg_get(const struct cur *c, uint64_t regno, uint64_t *out)
{
	if (regno >= (uint64_t)c->a->nregs || !(c->valid >> regno & 1))
		return false;
	*out = c->regs[regno];
	return true;
}

#define STACK_MAX 64

/*
 * A DWARF expression of the CFI (DWARF 5, 2.5): the CFA's, or a
 * register's rule (DW_OP_call_frame_cfa is cfa). The value, or where it
 * is: *loc says which (a register op alone names the register itself).
 */
static bool eval(struct cur *c, const Dwarf_Op *ops, size_t nops, uint64_t cfa, bool has_cfa,
		 uint64_t *out, bool *loc)
{
	uint64_t st[STACK_MAX], a, b;
	size_t sp = 0;

	*loc = true;
	if (nops && ops[nops - 1].atom == DW_OP_stack_value) {
		*loc = false;
		nops--;
	}
	if (nops == 1 && ((ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) ||
			  ops[0].atom == DW_OP_regx)) {
		*loc = false;	/* a register location: the value is in it */
		return reg_get(c, ops[0].atom == DW_OP_regx ? ops[0].number :
				  (uint64_t)(ops[0].atom - DW_OP_reg0), out);
	}
#define PUSH(v) do { uint64_t v_ = (v); if (sp == STACK_MAX) return false; st[sp++] = v_; } while (0)
#define POP(v) do { if (!sp) return false; (v) = st[--sp]; } while (0)
	for (size_t i = 0; i < nops; i++) {
		const Dwarf_Op *op = &ops[i];
		uint8_t at = op->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH((uint64_t)(at - DW_OP_lit0));
			continue;
		}
		if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
			if (!reg_get(c, (uint64_t)(at - DW_OP_breg0), &a))
				return false;
			PUSH(a + op->number);
			continue;
		}
		switch (at) {
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
		case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
		case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
			PUSH(op->number);
			break;
		case DW_OP_bregx:
			if (!reg_get(c, op->number, &a))
				return false;
			PUSH(a + op->number2);
			break;
		case DW_OP_call_frame_cfa:
			if (!has_cfa)
				return false;
			PUSH(cfa);
			break;
		case DW_OP_dup:
			if (!sp)
				return false;
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			POP(a);
			break;
		case DW_OP_over:
			if (sp < 2)
				return false;
			PUSH(st[sp - 2]);
			break;
		case DW_OP_pick:
			if (op->number >= sp)
				return false;
			PUSH(st[sp - 1 - op->number]);
			break;
		case DW_OP_swap:
			POP(a); POP(b); PUSH(a); PUSH(b);
			break;
		case DW_OP_rot:
			if (sp < 3)
				return false;
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = st[sp - 3];
			st[sp - 3] = a;
			break;
		case DW_OP_deref:
			POP(a);
			if (!mem_read(c, a, &b))
				return false;
			PUSH(b);
			break;
		case DW_OP_deref_size:
			POP(a);
			if (op->number > 8 || !mem_read(c, a, &b))
				return false;
			if (op->number < 8)
				b &= (1ull << (8 * op->number)) - 1;
			PUSH(b);
			break;
		case DW_OP_plus_uconst:
			POP(a); PUSH(a + op->number);
			break;
		case DW_OP_abs:
			POP(a); PUSH((int64_t)a < 0 ? -a : a);
			break;
		case DW_OP_neg:
			POP(a); PUSH(-a);
			break;
		case DW_OP_not:
			POP(a); PUSH(~a);
			break;
#define BIN(op_, expr) case op_: POP(b); POP(a); PUSH(expr); break
		BIN(DW_OP_and, a & b);
		BIN(DW_OP_or, a | b);
		BIN(DW_OP_xor, a ^ b);
		BIN(DW_OP_plus, a + b);
		BIN(DW_OP_minus, a - b);
		BIN(DW_OP_mul, a * b);
		BIN(DW_OP_shl, b < 64 ? a << b : 0);
		BIN(DW_OP_shr, b < 64 ? a >> b : 0);
		BIN(DW_OP_shra, b < 64 ? (uint64_t)((int64_t)a >> b) : (uint64_t)((int64_t)a >> 63));
		BIN(DW_OP_le, (int64_t)a <= (int64_t)b);
		BIN(DW_OP_ge, (int64_t)a >= (int64_t)b);
		BIN(DW_OP_eq, a == b);
		BIN(DW_OP_lt, (int64_t)a < (int64_t)b);
		BIN(DW_OP_gt, (int64_t)a > (int64_t)b);
		BIN(DW_OP_ne, a != b);
#undef BIN
		case DW_OP_div:
			POP(b); POP(a);
			if (!b)
				return false;
			PUSH((uint64_t)((int64_t)a / (int64_t)b));
			break;
		case DW_OP_mod:
			POP(b); POP(a);
			if (!b)
				return false;
			PUSH(a % b);
			break;
		case DW_OP_nop:
			break;
		default:	/* skip/bra (no such CFI met), and anything else: no value */
			return false;
		}
	}
#undef PUSH
#undef POP
	if (!sp)
		return false;
	*out = st[sp - 1];
	return true;
}

/*
 * One step: the caller's registers from the rules at addr (a file
 * address). Returns false when the rules cannot be followed; *end when
 * they say the chain ends here (the return address undefined, _start).
 */
static bool step_cfi(struct cur *c, Dwarf_Frame *fr, bool *end, bool *signal)
{
	struct cur next = *c;
	Dwarf_Op ops_mem[3], *ops;
	size_t nops;
	uint64_t cfa, v;
	bool loc;
	int ra = dwarf_frame_info(fr, NULL, NULL, signal);

	*end = false;
	if (ra != c->a->ra || dwarf_frame_cfa(fr, &ops, &nops) || !nops ||
	    !eval(c, ops, nops, 0, false, &cfa, &loc))
		return false;
	next.valid = 0;
	for (int r = 0; r < c->a->nregs; r++) {
		if (dwarf_frame_register(fr, r, ops_mem, &ops, &nops))
			continue;
		if (!nops) {
			if (ops == ops_mem) {		/* undefined */
				if (r == c->a->ra) {
					*end = true;
					return true;
				}
				continue;
			}
			if (reg_get(c, (uint64_t)r, &v)) {	/* same value */
				next.regs[r] = v;
				next.valid |= 1ull << r;
			}
			continue;
		}
		if (!eval(c, ops, nops, cfa, true, &v, &loc) || (loc && !mem_read(c, v, &v)))
			continue;
		next.regs[r] = v;
		next.valid |= 1ull << r;
	}
	if (!(next.valid >> c->a->ra & 1))
		return false;
	/* the CFA is the caller's stack pointer, where no rule says otherwise */
	if (!(next.valid >> c->a->sp & 1)) {
		next.regs[c->a->sp] = cfa;
		next.valid |= 1ull << c->a->sp;
	}
	next.pc = next.regs[c->a->ra];
	memcpy(c->regs, next.regs, sizeof(c->regs));
	c->valid = next.valid;
	c->pc = next.pc;
	return true;
}

/*
 * No CFI for the pc: the frame pointer chain, as libdwfl's x86-64
 * backend falls back to (saved rbp at [rbp], return address above it).
 */
static bool step_fp(struct cur *c)
{
	uint64_t fp, sp, ra, prev;

	const struct uw_arch *a = c->a;

	if (!reg_get(c, (uint64_t)a->fp, &fp) || !reg_get(c, (uint64_t)a->sp, &sp) || !fp)
		return false;
	if (!mem_read(c, fp + 8, &ra) || !mem_read(c, fp, &prev))
		return false;
	c->regs[a->ra] = ra;
	c->regs[a->fp] = prev;
	c->regs[a->sp] = fp + 16;
	c->valid = 1ull << a->ra | 1ull << a->fp | 1ull << a->sp;
	c->pc = ra;
	return true;
}

/*
 * The sample's registers in DWARF's numbering. A register the sample lacks
 * stays unknown (a rule naming it fails); the pc and the stack pointer
 * are needed.
 */
static bool load_regs(struct cur *c, const struct uw_arch *a, const struct tally_sample_regs *regs)
{
	uint64_t known = 0;

	if (!a || !regs || !regs->nr || !regs->regs)
		return false;
	c->a = a;
	for (int i = 0; i < a->nregs + 1; i++) {
		int bit = i < a->nregs ? a->perf_reg[i] : a->pc_perf;
		uint64_t idx, v;

		if (bit >= 64 || !(regs->mask & (1ULL << bit)))
			continue;
		idx = (uint64_t)__builtin_popcountll(regs->mask & ((1ULL << bit) - 1));
		if (idx >= regs->nr)
			continue;
		v = regs->regs[idx];
		if (i < a->nregs) {
			c->regs[i] = v;
			known |= 1ull << i;
		} else {
			c->pc = v;
			known |= 1ull << 63;
		}
	}
	if (!(known >> 63 & 1) || !(known >> a->sp & 1))
		return false;
	c->valid = known & ~(1ull << 63);
	c->sp = c->regs[a->sp];
	return true;
}

int tally_unwind__sample(struct tally_unwind *u, struct tally_machine *m, int32_t pid,
			 int32_t tid, uint64_t maps_gen, const struct tally_sample_regs *regs,
			 const void *stack, uint64_t stack_size, uint64_t *ips, int max,
			 enum tally_unwind_stop *why)
{
	struct cur c = { 0 };
	bool activation = true;
	int n = 0;

	(void)maps_gen;	/* no per-process state to rebuild: maps are looked up per frame */
	*why = TALLY_UNWIND_DONE;
	if (!u || !m || !ips || max <= 0)
		return -EINVAL;
	if (!load_regs(&c, u->arch, regs)) {
		*why = TALLY_UNWIND_NO_REGS;
		return 0;
	}
	c.stack = stack;
	c.size = stack ? stack_size : 0;
	u->pid = pid;
	while (n < max) {
		const struct tally_map *map;
		struct sfile *f;
		Dwarf_Frame *fr;
		uint64_t pc = c.pc, lookup, map_ip, bias;
		bool end = false, signal = false, ok;

		/*
		 * A caller's pc is a return address: one byte back is inside
		 * the call, where its rules are and where perf's unwinder (and
		 * its symbols) put it. A pc no map holds ends the chain without
		 * it (as perf's unwinder); in the interrupted pc: no frames.
		 */
		lookup = activation ? pc : pc - 1;
		map = tally_machine__find_map(m, pid, tid, lookup, TALLY_CPUMODE_USER, &map_ip);
		if (!map) {
			*why = TALLY_UNWIND_NO_MAP;
			break;
		}
		ips[n++] = lookup;
		if (n == max)
			break;
		/* a file without readable ELF has no rules: the frame pointer's, as libdwfl */
		f = exec_file_map(map) ? file_of(u, map) : NULL;
		fr = f && f->elf && map_bias(f, map, &bias) ? rules_at(f, lookup - bias) : NULL;
		if (fr) {
			ok = step_cfi(&c, fr, &end, &signal);
			free(fr);
		} else {
			ok = step_fp(&c);
		}
		if (end)
			break;
		if (!ok) {
			*why = c.short_read ? TALLY_UNWIND_STACK_SHORT : TALLY_UNWIND_NO_CFI;
			break;
		}
		/* the frame a signal frame's rules give was interrupted, not calling */
		activation = signal;
	}
	return n;
}
