// SPDX-License-Identifier: MIT
/*
 * tally script: the fields a PMU (or the kernel for a page fault or a
 * breakpoint) fills, on a sample's line as perf script 6.1 prints them:
 * the data address (a page fault's named by functions and data objects),
 * the data source, weights, registers, branch stacks, the instruction at
 * the sample's address, the physical address and page sizes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "script.h"

/* perf's map name of a resolved address (frame_text's) */
const char *script_dso_name(const struct tally_addr_info *ai)
{
	if (!ai->map)
		return "[unknown]";
	return ai->map->kernel && !strncmp(ai->map->filename, "[kernel.kallsyms]", 17) ?
	       "[kernel.kallsyms]" : ai->map->filename;
}

static bool resolve_in(struct script_ctx *s, struct tally_symbols *syms,
		       const struct tally_sample *smp, uint64_t a, enum tally_cpumode mode,
		       struct tally_addr_info *ai)
{
	bool found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid,
					     a, mode, ai);

	/* as perf's thread__find_map_fb: a kernel address in a user sample, and back */
	if (!ai->map && mode == TALLY_CPUMODE_USER)
		found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid,
						(int32_t)smp->tid, a, TALLY_CPUMODE_KERNEL, ai);
	else if (!ai->map && mode == TALLY_CPUMODE_KERNEL)
		found = !tally_symbols__resolve(syms, s->m, (int32_t)smp->pid,
						(int32_t)smp->tid, a, TALLY_CPUMODE_USER, ai);
	return found;
}

static bool resolve(struct script_ctx *s, const struct tally_sample *smp, uint64_t a,
		    enum tally_cpumode mode, struct tally_addr_info *ai)
{
	return resolve_in(s, s->syms, smp, a, mode, ai);
}

static void sym_off(struct script_ctx *s, const struct tally_addr_info *ai, bool found)
{
	if (!found) {
		ob_str(s, "[unknown]");
		return;
	}
	ob_str(s, ai->sym->name);
	ob_str(s, "+0x");
	ob_num(s, ai->sym_off, 16, 0, '0');
}

static bool page_fault(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
						 a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

/* The data address; a page fault's named by symbol and DSO (perf's rule) */
void script_print_addr(struct script_ctx *s, const struct perf_event_attr *a,
		       const struct tally_sample *smp, enum tally_cpumode mode, uint64_t f)
{
	struct tally_addr_info ai;
	bool found;

	ob_num(s, smp->addr, 16, 16, ' ');
	if (!page_fault(a))
		return;
	/* perf names data addresses by the files' objects as well as functions */
	if (!s->dsyms) {
		TALLY_OPTS(tally_symbols_opts, so, .data_objects = true, .symfs = s->symfs,
			   .kallsyms = s->kallsyms);

		s->dsyms = tally_symbols__new(&so);
	}
	found = resolve_in(s, s->dsyms ? s->dsyms : s->syms, smp, smp->addr, mode, &ai);
	if (f & F_SYM) {
		ob_chr(s, ' ');
		if (f & F_SYMOFF)
			sym_off(s, &ai, found);
		else
			ob_str(s, found ? ai.sym->name : "[unknown]");
	}
	if (f & F_DSO) {
		ob_str(s, " (");
		ob_str(s, script_dso_name(&ai));
		ob_chr(s, ')');
	}
}

/* perf's "%16lx |OP ...", padded to the widest one printed so far, cut at 99 */
void script_print_data_src(struct script_ctx *s, uint64_t v)
{
	char decode[256], out[300];
	int n;

	script_mem_decode(decode, 100, v);
	n = snprintf(out, 100, "%16llx %s", (unsigned long long)v, decode);
	if (n > 99)
		n = 99;
	if (n > s->mem_width)
		s->mem_width = n;
	ob_mem(s, out, (size_t)n);
	for (; n < s->mem_width; n++)
		ob_chr(s, ' ');
}

/*
 * A branch's address for brstackoff: in its DSO, unless perf keeps it
 * (ET_EXEC, BPF). A kernel map's is its offset from the map's start:
 * perf's kernel maps have pgoff 0 (the [kernel.kallsyms]_text record's
 * pgoff is its start) and its kallsyms DSO does not adjust symbols.
 */
static uint64_t branch_off(const struct tally_addr_info *ai, uint64_t a)
{
	if (!ai->map || ai->map->ksym)
		return a;
	if (ai->map->kernel)
		return a - ai->map->start;
	if (ai->vaddr == a)
		return a;
	return ai->map_ip;
}

/*
 * A branch end as f shows it (after brstack's "0x"): its address, sym+off
 * or DSO offset, then (dso); from s->bc while the maps did not change
 */
static void print_end(struct script_ctx *s, const struct tally_sample *smp, uint64_t a,
		      enum tally_cpumode mode, uint64_t f)
{
	uint64_t h = (a ^ (a >> 17) ^ ((uint64_t)smp->pid << 7) ^ ((uint64_t)mode << 3) ^ f) *
		     0x9e3779b97f4a7c15ULL;
	struct bc_ent *e = s->bc ? &s->bc[(h >> 40) & (BC_SLOTS - 1)] : NULL;
	size_t before = s->len;
	uint64_t flushes = s->flushes;
	struct tally_addr_info ai;
	bool found = false;

	if (e && e->len && e->a == a && e->pid == (int32_t)smp->pid && e->mode == mode &&
	    e->f == f && e->gen == s->gen) {
		if (s->len + sizeof(e->text) > sizeof(s->buf)) {
			ob_mem(s, e->text, e->len);
			return;
		}
		/* the whole slot: a copy of constant size, not rep movsb's start-up */
		memcpy(s->buf + s->len, e->text, sizeof(e->text));
		s->len += e->len;
		return;
	}
	if (f & (F_DSO | F_BRSTACKSYM | F_BRSTACKOFF))
		found = resolve(s, smp, a, mode, &ai);
	if (f & F_BRSTACK)
		ob_num(s, a, 16, 0, '0');
	else if (f & F_BRSTACKSYM)
		sym_off(s, &ai, found);
	else
		ob_num(s, branch_off(&ai, a), 16, 0, '0');
	if (f & F_DSO) {
		ob_chr(s, '(');
		ob_str(s, script_dso_name(&ai));
		ob_chr(s, ')');
	}
	if (!e || flushes != s->flushes || s->len - before > sizeof(e->text))
		return;
	memcpy(e->text, s->buf + before, s->len - before);
	e->len = (uint8_t)(s->len - before);
	e->a = a;
	e->gen = s->gen;
	e->f = f;
	e->pid = (int32_t)smp->pid;
	e->mode = (uint8_t)mode;
}

static void print_branches(struct script_ctx *s, const struct tally_sample *smp,
			   enum tally_cpumode mode, uint64_t f)
{
	const struct perf_branch_entry *e = smp->branch_stack.entries;

	f &= F_BRSTACK | F_BRSTACKSYM | F_BRSTACKOFF | F_DSO;
	if (e && !s->bc)
		s->bc = calloc(BC_SLOTS, sizeof(*s->bc));	/* none: each end made anew */
	for (uint64_t i = 0; e && i < smp->branch_stack.nr; i++, e++) {
		/* "/M/X/A/cycles/TYPE ": made here, one copy out */
		char t[48], *p = t;
		const char *type = script_branch_type(e);
		char num[8];
		int n = 0;

		if (!(f & F_BRSTACKSYM))
			ob_mem(s, " 0x", 3);
		print_end(s, smp, e->from, mode, f);
		ob_mem(s, f & F_BRSTACKSYM ? "/" : "/0x", f & F_BRSTACKSYM ? 1 : 3);
		print_end(s, smp, e->to, mode, f);
		*p++ = '/';
		*p++ = e->mispred ? 'M' : e->predicted ? 'P' : '-';
		*p++ = '/';
		*p++ = e->in_tx ? 'X' : '-';
		*p++ = '/';
		*p++ = e->abort ? 'A' : '-';
		*p++ = '/';
		for (unsigned c = e->cycles; n == 0 || c; c /= 10)
			num[n++] = (char)('0' + c % 10);
		while (n)
			*p++ = num[--n];
		*p++ = '/';
		ob_mem(s, t, (size_t)(p - t));
		ob_str(s, type);
		ob_chr(s, ' ');
	}
}

/* n bytes of path at off: its fd kept open (the first 64 files), else opened for this read */
ssize_t script_read_at(struct script_ctx *s, const char *path, void *buf, size_t n, uint64_t off)
{
	const size_t max = sizeof(s->code) / sizeof(s->code[0]);
	ssize_t got;
	size_t i;
	int fd;

	for (i = 0; i < max && s->code[i].path; i++)
		if (!strcmp(s->code[i].path, path))
			return s->code[i].fd < 0 ? -1 : pread(s->code[i].fd, buf, n, (off_t)off);
	if (i < max && (s->code[i].path = strdup(path))) {
		s->code[i].fd = open(path, O_RDONLY | O_CLOEXEC);
		return s->code[i].fd < 0 ? -1 : pread(s->code[i].fd, buf, n, (off_t)off);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	got = pread(fd, buf, n, (off_t)off);
	close(fd);
	return got;
}

/*
 * The file a map's code is read from at map_ip: its own, or for [vdso]
 * the image record kept in the build-id cache, as perf reads it; NULL:
 * none (the kernel's, anonymous or JIT code, a [vdso] not kept).
 */
const char *script_code_file(struct script_ctx *s, const struct tally_addr_info *ai)
{
	if (!ai->map || ai->map->kernel || ai->map->anon)
		return NULL;
	/* a file rebuilt since: the recorded build's copy, as perf reads its bytes */
	if (ai->dso && tally_dso__code_path(ai->dso))
		return tally_dso__code_path(ai->dso);
	if (ai->map->filename[0] == '/')
		return ai->map->filename;
	if (!ai->dso || strcmp(ai->map->filename, "[vdso]"))
		return NULL;
	if (s->vdso.dso != ai->dso) {
		struct tally_dso_code *c = tally_dso_code__open(ai->dso, 0);
		const char *p = c ? tally_dso_code__path(c) : NULL;

		free(s->vdso.path);
		s->vdso.path = p && p[0] == '/' ? strdup(p) : NULL;
		tally_dso_code__close(c);
		s->vdso.dso = ai->dso;
	}
	return s->vdso.path;
}

/*
 * perf's insnlen and insn: the instruction at the sample's address, read
 * from its file at the map's offset as perf reads it (16 bytes at most;
 * none from the kernel's, anonymous or JIT code)
 */
static void print_insn(struct script_ctx *s, const struct tally_sample *smp,
		       enum tally_cpumode mode, uint64_t f)
{
	struct tally_addr_info ai;
	const char *file;
	uint8_t bytes[16];
	ssize_t len = 0;
	int n = 0;

	if (smp->ip && !s->dis)
		s->dis = tally_disasm__new(TALLY_DISASM_ATT);
	tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode,
			       &ai);
	if (smp->ip && s->dis && (file = script_code_file(s, &ai)) &&
	    (len = script_read_at(s, file, bytes, sizeof(bytes), ai.map_ip)) > 0) {
		/* capstone's length, or the encoding's where capstone 4 is behind perf's decoder */
		n = tally_disasm__length(s->dis, bytes, (size_t)len);
		if (n <= 0 || n > len)
			n = 0;
	}
	if (f & F_INSNLEN) {
		ob_str(s, " ilen: ");
		ob_num(s, (unsigned)n, 10, 0, ' ');
	}
	if ((f & F_INSN) && n > 0) {
		ob_str(s, " insn:");
		for (int i = 0; i < n; i++) {
			ob_chr(s, ' ');
			ob_num(s, bytes[i], 16, 2, '0');
		}
	}
}

/* After the address or chain: registers, branches, physical address, page sizes */
void script_print_tail(struct script_ctx *s, const struct tally_sample *smp,
		       enum tally_cpumode mode, uint64_t f)
{
	char t[4096];

	if (f & F_IREGS) {
		script_regs(t, sizeof(t), &smp->regs_intr);
		ob_str(s, t);
	}
	if (f & F_UREGS) {
		script_regs(t, sizeof(t), &smp->regs_user);
		ob_str(s, t);
	}
	/* one of them, in this order (perf's) */
	if (f & F_BRANCHES)
		print_branches(s, smp, mode, f & F_BRSTACK ? f & ~(F_BRSTACKSYM | F_BRSTACKOFF) :
				  f & F_BRSTACKSYM ? f & ~F_BRSTACKOFF : f);
	if (f & (F_INSN | F_INSNLEN))
		print_insn(s, smp, mode, f);
	if (f & F_BRSTACKINSN)
		script_print_brstackinsn(s, smp, s->brinsn_len);
	if (f & F_PHYS_ADDR)
		ob_num(s, smp->phys_addr, 16, 16, ' ');
	if (f & F_DATA_PAGE_SIZE) {
		script_page_size(t, sizeof(t), smp->data_page_size);
		ob_chr(s, ' ');
		ob_str(s, t);
	}
	if (f & F_CODE_PAGE_SIZE) {
		script_page_size(t, sizeof(t), smp->code_page_size);
		ob_chr(s, ' ');
		ob_str(s, t);
	}
}

/* perf's misc letters, padded to 6 */
void script_print_misc(struct script_ctx *s, uint16_t misc)
{
	unsigned m = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int n = 0;

#define HAS(x) ((m & (x)) == (x))
	if (HAS(PERF_RECORD_MISC_KERNEL))
		ob_chr(s, 'K'), n++;
	if (HAS(PERF_RECORD_MISC_USER))
		ob_chr(s, 'U'), n++;
	if (HAS(PERF_RECORD_MISC_HYPERVISOR))
		ob_chr(s, 'H'), n++;
	if (HAS(PERF_RECORD_MISC_GUEST_KERNEL))
		ob_chr(s, 'G'), n++;
	if (HAS(PERF_RECORD_MISC_GUEST_USER))
		ob_chr(s, 'g'), n++;
#undef HAS
	/* perf's "%*s" of 6 - n over " ": at least one space */
	for (int w = 6 - n < 1 ? 1 : 6 - n; w > 0; w--)
		ob_chr(s, ' ');
}

void script_print_release(struct script_ctx *s)
{
	tally_symbols__free(s->dsyms);
	tally_disasm__free(s->dis);
	for (size_t i = 0; i < sizeof(s->code) / sizeof(s->code[0]) && s->code[i].path; i++) {
		free(s->code[i].path);
		if (s->code[i].fd >= 0)
			close(s->code[i].fd);
	}
	free(s->vdso.path);
	s->vdso.path = NULL;
	s->dsyms = NULL;
	s->dis = NULL;
}
