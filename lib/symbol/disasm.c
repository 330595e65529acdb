// SPDX-License-Identifier: MIT
/*
 * x86-64 instructions in objdump's text, through capstone: capstone's
 * AT&T (or Intel) text is re-spelt operand by operand where the two
 * differ (suffixes only where no register gives the size, hex
 * displacements, an explicit scale of 1, no spaces) and targets get
 * their symbols. What is still different is listed in docs/annotate.md.
 */
#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/disasm.h>

struct tally_disasm {
	csh cs;
	cs_insn *insn;
	enum tally_disasm_syntax syntax;
};

struct tally_disasm *tally_disasm__new(enum tally_disasm_syntax syntax)
{
	struct tally_disasm *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
		free(d);
		errno = ENOSYS;
		return NULL;
	}
	d->syntax = syntax;
	cs_option(d->cs, CS_OPT_SYNTAX,
		  syntax == TALLY_DISASM_INTEL ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = cs_malloc(d->cs);
	if (!d->insn) {
		cs_close(&d->cs);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void tally_disasm__free(struct tally_disasm *d)
{
	if (!d)
		return;
	cs_free(d->insn, 1);
	cs_close(&d->cs);
	free(d);
}

/* A bounded string being built. */
struct out {
	char *p;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + (size_t)n < o->size ? o->len + (size_t)n : o->size - 1;
}

/* objdump's signed hex: "-0x18", "0x2ec5" */
static void put_shex(struct out *o, int64_t v)
{
	if (v < 0)
		put(o, "-0x%" PRIx64, -(uint64_t)v);
	else
		put(o, "0x%" PRIx64, (uint64_t)v);
}

static void put_target(struct out *o, uint64_t addr, tally_disasm_sym_fn sym, void *ctx)
{
	uint64_t off = 0;
	const char *name = sym ? sym(ctx, addr, &off) : NULL;

	/* no symbol table at all: objdump's "0x" form, no name */
	put(o, sym ? "%" PRIx64 : "0x%" PRIx64, addr);
	if (name && off)
		put(o, " <%s+0x%" PRIx64 ">", name, off);
	else if (name)
		put(o, " <%s>", name);
}

static bool is_branch(const cs_insn *in)
{
	const cs_detail *dt = in->detail;

	for (int i = 0; i < dt->groups_count; i++)
		if (dt->groups[i] == CS_GRP_JUMP || dt->groups[i] == CS_GRP_CALL ||
		    dt->groups[i] == CS_GRP_RET)
			return true;
	return false;
}

/* An AT&T memory operand from capstone's details: seg:disp(base,index,scale). */
/* A displacement byte or word is in the encoding (ModRM mod 1 or 2): objdump shows it, 0 too. */
static bool disp_encoded(const cs_x86 *x)
{
	return (x->modrm >> 6) == 1 || (x->modrm >> 6) == 2;
}

static void put_mem_att(struct out *o, csh cs, const cs_x86 *x, const cs_x86_op *op)
{
	const x86_op_mem *m = &op->mem;

	if (m->segment != X86_REG_INVALID)
		put(o, "%%%s:", cs_reg_name(cs, m->segment));
	if (m->base == X86_REG_INVALID && m->index == X86_REG_INVALID) {
		put(o, "0x%" PRIx64, (uint64_t)m->disp);
		return;
	}
	if (m->disp || m->base == X86_REG_INVALID || disp_encoded(x))
		put_shex(o, m->disp);
	put(o, "(");
	if (m->base != X86_REG_INVALID)
		put(o, "%%%s", cs_reg_name(cs, m->base));
	if (m->index != X86_REG_INVALID)
		put(o, ",%%%s,%d", cs_reg_name(cs, m->index), m->scale);
	put(o, ")");
}

static uint64_t imm_mask(uint64_t v, unsigned size)
{
	return size && size < 8 ? v & ((1ull << (size * 8)) - 1) : v;
}

static const char *const intel_size[] = {
	[1] = "BYTE PTR ", [2] = "WORD PTR ", [4] = "DWORD PTR ", [8] = "QWORD PTR ",
	[10] = "TBYTE PTR ", [16] = "XMMWORD PTR ", [32] = "YMMWORD PTR ", [64] = "ZMMWORD PTR ",
};

static void put_mem_intel(struct out *o, csh cs, const cs_x86 *x, const cs_x86_op *op, bool sized)
{
	const x86_op_mem *m = &op->mem;
	bool any = false;

	if (sized && op->size < sizeof(intel_size) / sizeof(intel_size[0]) && intel_size[op->size])
		put(o, "%s", intel_size[op->size]);
	if (m->segment != X86_REG_INVALID)
		put(o, "%s:", cs_reg_name(cs, m->segment));
	if (m->base == X86_REG_INVALID && m->index == X86_REG_INVALID) {
		put(o, "0x%" PRIx64, (uint64_t)m->disp);
		return;
	}
	put(o, "[");
	if (m->base != X86_REG_INVALID) {
		put(o, "%s", cs_reg_name(cs, m->base));
		any = true;
	}
	if (m->index != X86_REG_INVALID) {
		put(o, "%s%s*%d", any ? "+" : "", cs_reg_name(cs, m->index), m->scale);
		any = true;
	}
	if (m->disp || !any || disp_encoded(x) || m->base == X86_REG_INVALID) {
		/* objdump -M intel adds a negative RIP offset as its 64-bit two's complement */
		if (m->disp < 0 && m->base != X86_REG_RIP)
			put(o, "-0x%" PRIx64, -(uint64_t)m->disp);
		else
			put(o, "%s0x%" PRIx64, any ? "+" : "", (uint64_t)m->disp);
	}
	put(o, "]");
}

/*
 * The mnemonic objdump prints: capstone's AT&T one carries a size suffix
 * always, objdump only where no register operand gives the size; branches,
 * push and pop never carry one in 64-bit code.
 */
static void mnemonic(const struct tally_disasm *d, const cs_insn *in, char *buf, size_t size)
{
	const cs_x86 *x = &in->detail->x86;
	const char *name = cs_insn_name(d->cs, in->id);
	const char *m = in->mnemonic, *last = strrchr(m, ' ');
	size_t plen = last ? (size_t)(last + 1 - m) : 0, nlen = name ? strlen(name) : 0;
	const char *base = m + plen;
	bool reg = false;

	snprintf(buf, size, "%s", m);
	if (d->syntax != TALLY_DISASM_ATT || !name)
		return;
	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_REG)
			reg = true;
	if (strlen(base) == nlen + 1 && !strncmp(base, name, nlen) && strchr("bwlq", base[nlen]) &&
	    (reg || is_branch(in) || !strcmp(name, "push") || !strcmp(name, "pop")))
		snprintf(buf, size, "%.*s%s", (int)plen, m, name);
	/*
	 * an integer converted from memory: capstone leaves the size out,
	 * objdump names it (cvtsi2sdq -0x10(%rbp),%xmm0), as the operand's
	 * size is nowhere else
	 */
	if (!strcmp(buf + plen, name) && (!strcmp(name, "cvtsi2sd") || !strcmp(name, "cvtsi2ss") ||
				    !strcmp(name, "vcvtsi2sd") || !strcmp(name, "vcvtsi2ss") ||
				    !strcmp(name, "vcvtusi2sd") || !strcmp(name, "vcvtusi2ss")))
		for (int i = 0; i < x->op_count; i++)
			if (x->operands[i].type == X86_OP_MEM &&
			    (x->operands[i].size == 4 || x->operands[i].size == 8)) {
				snprintf(buf, size, "%.*s%s%c", (int)plen, m, name,
					 x->operands[i].size == 8 ? 'q' : 'l');
				break;
			}
}

/*
 * Instructions objdump spells its own way whatever their operands: the
 * string instructions (their implicit operands shown), x87 register
 * forms (the implicit %st shown), xchg %ax,%ax and movq to an xmm
 * register. true when o holds the whole text.
 */
static bool fixed_text(const struct tally_disasm *d, const cs_insn *in, const uint8_t *code,
		       char *mn, struct out *o)
{
	static const char *const acc[] = { ['b'] = "%al", ['w'] = "%ax", ['l'] = "%eax", ['q'] = "%rax" };
	const cs_x86 *x = &in->detail->x86;
	char *base = strrchr(mn, ' ') ? strrchr(mn, ' ') + 1 : mn;
	size_t plen = (size_t)(base - mn), blen = strlen(base);
	char sz = blen ? base[blen - 1] : 0;
	unsigned op0 = x->opcode[0];

	if (in->size == 2 && code[0] == 0x66 && code[1] == 0x90) {
		put(o, d->syntax == TALLY_DISASM_ATT ? "xchg   %%ax,%%ax" : "xchg   ax,ax");
		return true;
	}
	if (d->syntax != TALLY_DISASM_ATT)
		return false;
	if (!strcmp(base, "movd") && (x->rex & 8))
		base[3] = 'q';
	if (blen == 5 && strchr("bwlq", sz) && sz < 'x' && acc[(int)sz]) {
		const char *a = acc[(int)sz];

		if (!strncmp(base, "stos", 4))
			put(o, "%.*sstos %s,%%es:(%%rdi)", (int)plen, mn, a);
		else if (!strncmp(base, "lods", 4))
			put(o, "%.*slods %%ds:(%%rsi),%s", (int)plen, mn, a);
		else if (!strncmp(base, "scas", 4))
			put(o, "%.*sscas %%es:(%%rdi),%s", (int)plen, mn, a);
		else if (!strncmp(base, "movs", 4))
			put(o, "%-6s %%ds:(%%rsi),%%es:(%%rdi)", mn);
		else if (!strncmp(base, "cmps", 4))
			put(o, "%-6s %%es:(%%rdi),%%ds:(%%rsi)", mn);
		else
			return false;
		return true;
	}
	/* x87 register forms: D8/DB/DF st(i) is the source, DC/DE the destination */
	if (x->op_count == 1 && x->operands[0].type == X86_OP_REG && op0 >= 0xd8 && op0 <= 0xdf &&
	    !strncmp(cs_reg_name(d->cs, x->operands[0].reg), "st", 2)) {
		const char *r = cs_reg_name(d->cs, x->operands[0].reg);

		if (op0 == 0xd8 || op0 == 0xdb || op0 == 0xdf)
			put(o, "%-6s %%%s,%%st", mn, r);
		else if (op0 == 0xdc || op0 == 0xde)
			put(o, "%-6s %%st,%%%s", mn, r);
		else
			return false;
		return true;
	}
	return false;
}

int tally_disasm__insn(struct tally_disasm *d, const uint8_t *code, size_t len, uint64_t addr,
		       tally_disasm_sym_fn sym, void *ctx, char *text, size_t size)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t a = addr;
	struct out o = { text, size, 0 };
	cs_insn *in = d->insn;
	const cs_x86 *x;
	char mn[64];
	bool att = d->syntax == TALLY_DISASM_ATT, rip = false, nop_seg, shift1;
	int64_t rip_disp = 0;

	if (!len || !size)
		return -EINVAL;
	text[0] = '\0';
	if (!cs_disasm_iter(d->cs, &p, &left, &a, in)) {
		put(&o, "(bad)");
		return 1;
	}
	x = &in->detail->x86;
	mnemonic(d, in, mn, sizeof(mn));
	/* a segment override on a nop is padding: objdump names it as a prefix */
	nop_seg = !strncmp(mn, "nop", 3) && x->op_count == 1 && x->operands[0].type == X86_OP_MEM &&
		  x->operands[0].mem.segment != X86_REG_INVALID;
	if (nop_seg) {
		char tmp[96];

		size_t k = 0, n66 = 0;

		/* each 0x66 beyond the one that makes it nopw is objdump's "data16" */
		for (; k < in->size && code[k] != 0x0f; k++)
			n66 += code[k] == 0x66;
		tmp[0] = '\0';
		for (; n66 > 1; n66--)
			strcat(tmp, "data16 ");
		snprintf(tmp + strlen(tmp), sizeof(tmp) - strlen(tmp), "%s %.16s",
			 cs_reg_name(d->cs, x->operands[0].mem.segment), mn);
		snprintf(mn, sizeof(mn), "%.*s", (int)sizeof(mn) - 1, tmp);	/* fits: data16 runs are short */
	}
	if (fixed_text(d, in, code, mn, &o))
		return in->size;
	/* D0-D3 shift or rotate by one: objdump shows no count */
	shift1 = (x->opcode[0] == 0xd0 || x->opcode[0] == 0xd1) && x->op_count == 2;
	put(&o, "%-6s", mn);
	if (x->op_count)
		put(&o, " ");
	for (int i = 0, n = 0; i < x->op_count; i++) {
		cs_x86_op opv = x->operands[i];
		const cs_x86_op *op = &opv;

		if (shift1 && op->type == X86_OP_IMM) {
			if (!att)
				put(&o, ",1");
			continue;
		}
		if (nop_seg)
			opv.mem.segment = X86_REG_INVALID;
		if (n++)
			put(&o, ",");
		switch (op->type) {
		case X86_OP_REG:
			if (is_branch(in) && att)
				put(&o, "*");
			put(&o, att ? "%%%s" : "%s", cs_reg_name(d->cs, op->reg));
			break;
		case X86_OP_IMM:
			if (is_branch(in))
				put_target(&o, (uint64_t)op->imm, sym, ctx);
			else
				put(&o, att ? "$0x%" PRIx64 : "0x%" PRIx64,
				    imm_mask((uint64_t)op->imm, op->size));
			break;
		case X86_OP_MEM:
			if (op->mem.base == X86_REG_RIP) {
				rip = true;
				rip_disp = op->mem.disp;
			}
			if (att) {
				if (is_branch(in))
					put(&o, "*");
				put_mem_att(&o, d->cs, x, op);
			} else {
				/* lea computes an address: objdump gives it no size */
				put_mem_intel(&o, d->cs, x, op, in->id != X86_INS_LEA);
			}
			break;
		default:
			break;
		}
	}
	if (rip) {
		put(&o, "        # ");
		put_target(&o, in->address + in->size + (uint64_t)rip_disp, sym, ctx);
	}
	return in->size;
}

/*
 * The length of a VEX (C4, C5) or EVEX (62) encoded instruction in 64-bit
 * code, from its encoding alone: capstone 4 does not know some of them
 * (AVX-512's opmask moves, kmovd, in glibc's EVEX string functions),
 * where perf's own decoder gives their length. The prefix, the opcode,
 * ModRM with its SIB and displacement, and the imm8 of map 3 and of the
 * map-1 opcodes that take one. 0: not such an instruction, or cut short.
 */
static size_t vex_length(const uint8_t *c, size_t len)
{
	size_t at = 0, need;
	unsigned map, op;
	uint8_t modrm;

	while (at < len && at < 4 && (c[at] == 0x67 || c[at] == 0x2e || c[at] == 0x3e ||
				      c[at] == 0x26 || c[at] == 0x36 || c[at] == 0x64 || c[at] == 0x65))
		at++;	/* the address-size and segment prefixes VEX allows before it */
	if (at >= len)
		return 0;
	/* C5: 2 bytes, map 0F; C4: 3, map in mmmmm; 62 (EVEX): 4, map in mmm */
	if (c[at] != 0xc5 && c[at] != 0xc4 && c[at] != 0x62)
		return 0;
	if (c[at] != 0xc5 && at + 1 >= len)
		return 0;
	map = c[at] == 0xc5 ? 1 : c[at + 1] & (c[at] == 0xc4 ? 0x1f : 0x7);
	at += c[at] == 0xc5 ? 2 : c[at] == 0xc4 ? 3 : 4;
	if (map < 1 || map > 3 || at >= len)
		return 0;
	op = c[at++];
	/* vzeroupper, vzeroall: no ModRM */
	if (map == 1 && op == 0x77)
		return at;
	if (at >= len)
		return 0;
	modrm = c[at++];
	need = 0;
	if ((modrm >> 6) != 3) {
		unsigned mod = modrm >> 6, rm = modrm & 7;

		if (rm == 4) {
			if (at >= len)
				return 0;
			if (mod == 0 && (c[at] & 7) == 5)
				need += 4;	/* no base: disp32 */
			at++;
		}
		if (mod == 0 && rm == 5)
			need += 4;	/* rip-relative */
		else if (mod == 1)
			need += 1;
		else if (mod == 2)
			need += 4;
	}
	if (map == 3 || (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || op == 0xc4 ||
				     op == 0xc5 || op == 0xc6)))
		need += 1;
	return at + need <= len ? at + need : 0;
}

int tally_disasm__length(struct tally_disasm *d, const uint8_t *code, size_t len)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t a = 0;

	if (!d || !code || !len)
		return -EINVAL;
	if (cs_disasm_iter(d->cs, &p, &left, &a, d->insn))
		return (int)d->insn->size;
	return (int)vex_length(code, len);
}
