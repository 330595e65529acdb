// SPDX-License-Identifier: MIT
/*
 * tally script -F brstackinsn (and brstackinsnlen): the instructions of
 * each basic block a sample's branch stack went through, oldest first,
 * read from the files as mapped, as perf script 6.1 prints them
 * (perf_sample__fprintf_brstackinsn): the first branch's own jump, each
 * block from a branch's target to the next branch's source, the last
 * from the newest target up to the sample. perf's x86 decoder measures
 * the instructions; here capstone does (tally/disasm.h).
 */
#include <stdlib.h>
#include <errno.h>
#include "script.h"

#define MAXBB 16384UL	/* perf's longest block */
#define MAXINSN 15	/* an x86 instruction at most */

/* One sample's walk: the block's bytes, where they came from, the last symbol named */
struct walk {
	struct script_ctx *s;
	const struct tally_sample *smp;
	enum tally_cpumode mode;	/* the last block's (perf's x.cpumode) */
	const struct tally_symbol *lastsym;
	int total_cycles;
	bool len_too;			/* brstackinsnlen */
	uint8_t buf[MAXBB];
};

/* perf's machine__kernel_ip on x86-64: above 2^63 */
static bool kernel_ip(uint64_t a)
{
	return a >= 1ull << 63;
}

static bool find(struct walk *w, uint64_t a, struct tally_addr_info *ai)
{
	tally_symbols__resolve(w->s->syms, w->s->m, (int32_t)w->smp->pid, (int32_t)w->smp->tid, a,
			       w->mode, ai);
	return ai->map != NULL;
}

/*
 * perf's grab_bb: the bytes of start..end and an instruction more, from
 * the file mapped at start. 0: none (no map, no file, too long);
 * -ENXIO: the block goes between kernel and user.
 */
static long grab_bb(struct walk *w, uint64_t start, uint64_t end)
{
	struct tally_addr_info ai;
	const char *file;
	ssize_t len;

	if (!start || !end)
		return 0;
	w->mode = kernel_ip(start) ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
	if (kernel_ip(start) != kernel_ip(end))
		return -ENXIO;
	if (end - start > MAXBB - MAXINSN)
		return 0;
	/* the kernel's code is not read (perf reads none from a file's kallsyms either) */
	if (!find(w, start, &ai) || !(file = script_code_file(w->s, &ai)))
		return 0;
	len = script_read_at(w->s, file, w->buf, (size_t)(end - start + MAXINSN), ai.map_ip);
	return len > 0 ? len : 0;
}

/* capstone's length of the instruction at p, 0 where it does not decode one */
static int cs_len(struct walk *w, uint64_t ip, const uint8_t *p, long len, char *text, size_t size)
{
	int n = len > 0 && w->s->dis ?
		tally_disasm__insn(w->s->dis, p, (size_t)len, ip, NULL, NULL, text, size) : 0;

	return n <= 0 || n > len || !strncmp(text, "(bad)", 5) ? 0 : n;
}

/*
 * The instruction's length as perf's x86 decoder measures it, which
 * measures what capstone calls invalid too: a lock prefix where there is
 * no memory operand (the instruction after its prefixes), and the
 * opcodes x86-64 dropped (daa, push %es, pusha, aam, into, a far call's
 * pointer...), their 32-bit lengths.
 */
static int insn_len(struct walk *w, uint64_t ip, const uint8_t *p, long len, char *text,
		    size_t size)
{
	static const uint8_t one[] = { 0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37,
				       0x3f, 0x60, 0x61, 0xce, 0xd6 };
	int n = cs_len(w, ip, p, len, text, size), pre = 0;

	if (n || len <= 0)
		return n;
	while (pre < len && pre < MAXINSN - 1 && memchr("\xf0\xf2\xf3\x2e\x36\x3e\x26\x64\x65\x66\x67",
							  p[pre], 11))
		pre++;
	if (pre == len)
		return 0;	/* prefixes to the end of what was read */
	if (pre && (n = cs_len(w, ip + (uint64_t)pre, p + pre, len - pre, text, size)))
		return pre + n;
	snprintf(text, size, "%s", p[pre] == 0xce ? "into" : "");	/* into: perf's INT branch */
	if (memchr(one, p[pre], sizeof(one)))
		n = pre + 1;
	else if (p[pre] == 0xd4 || p[pre] == 0xd5)
		n = pre + 2;
	else if (p[pre] == 0x9a || p[pre] == 0xea)
		n = pre + 7;
	return n <= len ? n : 0;
}

/*
 * perf's dump_insn: "insn: " and the instruction's bytes, each "%02x "
 * ("<bad>" where it does not decode); *ilen its length (0 bad), *branch
 * whether it jumps (perf's arch_is_branch).
 */
static const char *dump_insn(struct walk *w, uint64_t ip, const uint8_t *p, long len, int *ilen,
			     bool *branch, char *out, size_t size)
{
	char text[256];
	int n = 0;
	size_t k;

	*ilen = 0;
	if (branch)
		*branch = false;
	if ((n = insn_len(w, ip, p, len, text, sizeof(text))) <= 0)
		return "<bad>";
	*ilen = n;
	if (branch)
		*branch = script_insn_is_branch(text);
	k = (size_t)snprintf(out, size, "insn: ");
	for (int i = 0; i < n && k + 4 < size; i++)
		k += (size_t)snprintf(out + k, size - k, "%02x ", p[i]);
	return out;
}

/* perf's ip__fprintf_sym: "\tname+off:" where the walk enters another symbol */
static void print_sym(struct walk *w, uint64_t a)
{
	struct tally_addr_info ai;

	find(w, a, &ai);
	if (!ai.sym || ai.sym == w->lastsym)
		return;
	ob_chr(w->s, '\t');
	ob_str(w->s, ai.sym->name);
	if (ai.sym_off) {
		char t[32];

		snprintf(t, sizeof(t), "%+d", (int)ai.sym_off);
		ob_str(w->s, t);
	}
	ob_str(w->s, ":\n");
	w->lastsym = ai.sym;
}

/* An instruction's line: "\t%016lx\t%s" [ilen] */
static int print_insn(struct walk *w, uint64_t ip, const uint8_t *p, long len, bool *branch)
{
	char out[128], t[40];
	int ilen;
	const char *d = dump_insn(w, ip, p, len, &ilen, branch, out, sizeof(out));

	snprintf(t, sizeof(t), "\t%016llx\t", (unsigned long long)ip);
	ob_str(w->s, t);
	ob_str(w->s, d);
	if (w->len_too) {
		ob_str(w->s, "\tilen: ");
		ob_num(w->s, (unsigned)ilen, 10, 0, ' ');
	}
	ob_chr(w->s, '\n');
	return ilen;
}

/* perf's ip__fprintf_jump: the branch's own instruction, its flags, cycles and IPC */
static void print_jump(struct walk *w, uint64_t ip, const struct perf_branch_entry *en,
		       const uint8_t *p, long len, int insn)
{
	char out[128], t[160];
	int ilen;

	snprintf(t, sizeof(t), "\t%016llx\t%-30s\t", (unsigned long long)ip,
		 dump_insn(w, ip, p, len, &ilen, NULL, out, sizeof(out)));
	ob_str(w->s, t);
	if (w->len_too) {
		snprintf(t, sizeof(t), "ilen: %d\t", ilen);
		ob_str(w->s, t);
	}
	ob_chr(w->s, '#');
	if (en->predicted)
		ob_str(w->s, " PRED");
	if (en->mispred)
		ob_str(w->s, " MISPRED");
	if (en->in_tx)
		ob_str(w->s, " INTX");
	if (en->abort)
		ob_str(w->s, " ABORT");
	if (en->cycles) {
		w->total_cycles += en->cycles;
		snprintf(t, sizeof(t), " %d cycles [%d]", en->cycles, w->total_cycles);
		ob_str(w->s, t);
		if (insn) {
			snprintf(t, sizeof(t), " %.2f IPC", (double)((float)insn / en->cycles));
			ob_str(w->s, t);
		}
	}
	ob_chr(w->s, '\n');
}

/* The blocks between the branches, oldest first */
static void print_blocks(struct walk *w, const struct perf_branch_entry *e, int nr)
{
	for (int i = nr - 2; i >= 0; i--) {
		uint64_t start = e[i + 1].to, end = e[i].from, off;
		long len = grab_bb(w, start, end);
		int insn = 0, ilen = 0;

		/* perf patches up a kernel entry its ring filter left out */
		if (len == -ENXIO && i > 0) {
			end = e[--i].from;
			len = grab_bb(w, start, end);
		}
		if (len <= 0)
			continue;
		for (off = 0; off < (uint64_t)len; off += (uint64_t)ilen) {
			uint64_t ip = start + off;

			print_sym(w, ip);
			if (ip == end) {
				print_jump(w, ip, &e[i], w->buf + off, len - (long)off, ++insn);
				break;
			}
			if (!(ilen = print_insn(w, ip, w->buf + off, len - (long)off, NULL)))
				break;
			insn++;
		}
		if (off != end - start)
			ob_str(w->s, "\tmismatch of LBR data and executable\n");
	}
}

/* From the newest branch's target up to the sample (perf scans 128 bytes when it lies before) */
static void print_last(struct walk *w, const struct perf_branch_entry *e)
{
	uint64_t start = e[0].to, end = w->smp->ip, ip = w->smp->ip;
	long len;
	bool branch;

	if (end < start)
		end = start + 128;
	len = grab_bb(w, start, end);
	print_sym(w, start);
	if (len <= 0) {
		/* at least the sample's own instruction */
		if ((len = grab_bb(w, ip, ip)) > 0)
			print_insn(w, ip, w->buf, len, NULL);
		return;
	}
	for (uint64_t off = 0; off <= end - start; ) {
		int ilen = print_insn(w, start + off, w->buf + off, len - (long)off, &branch);

		if (!ilen)
			break;
		if (branch && start + off != ip) {
			ob_str(w->s, "\t... not reaching sample ...\n");
			break;
		}
		off += (uint64_t)ilen;
	}
}

void script_print_brstackinsn(struct script_ctx *s, const struct tally_sample *smp, bool len_too)
{
	const struct perf_branch_entry *e = smp->branch_stack.entries;
	int nr = (int)smp->branch_stack.nr;
	struct walk *w;
	long len;

	if (!e || nr <= 0)
		return;
	if (!s->dis)
		s->dis = tally_disasm__new(TALLY_DISASM_ATT);
	if (!(w = malloc(sizeof(*w))))
		return;
	*w = (struct walk){ .s = s, .smp = smp, .mode = TALLY_CPUMODE_USER, .len_too = len_too };
	ob_chr(s, '\n');
	/* the oldest branch's own jump: where its block began is not known */
	if ((len = grab_bb(w, e[nr - 1].from, e[nr - 1].from)) > 0) {
		print_sym(w, e[nr - 1].from);
		print_jump(w, e[nr - 1].from, &e[nr - 1], w->buf, len, 0);
	}
	print_blocks(w, e, nr);
	/* the sample at the newest branch, or an aborted one: its target did not run */
	if (e[0].from != smp->ip && !e[0].abort)
		print_last(w, e);
	free(w);
}

bool script_insn_is_branch(const char *text)
{
	static const char *const prefixes[] = {
		"rep", "repz", "repe", "repnz", "repne", "lock", "bnd", "notrack", "data16",
		"addr32", "cs", "ds", "es", "ss", "fs", "gs",
	};
	static const char *const branches[] = {
		"call", "lcall", "ret", "lret", "iret", "loop", "ljmp", "syscall", "sysret",
		"sysenter", "sysexit", "int", "vmlaunch", "vmresume", "vmcall",
	};
	char word[32];

	for (const char *p = text; *p;) {
		size_t n = 0, i;

		while (*p == ' ')
			p++;
		while (p[n] && p[n] != ' ' && n + 1 < sizeof(word))
			n++;
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && strcmp(word, prefixes[i]); i++)
			;
		if (n && i < sizeof(prefixes) / sizeof(prefixes[0]))
			continue;	/* a prefix: the mnemonic follows */
		if (word[0] == 'j')	/* jmp, jcc, jrcxz... */
			return true;
		for (i = 0; i < sizeof(branches) / sizeof(branches[0]); i++)
			if (!strncmp(word, branches[i], strlen(branches[i])))
				return true;
		return false;
	}
	return false;
}
