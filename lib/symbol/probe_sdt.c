// SPDX-License-Identifier: MIT
/*
 * SDT markers (sys/sdt.h's .note.stapsdt) as probe events: perf probe
 * sdt_PROVIDER:NAME. Each note gives the marker's address (moved by the
 * .stapsdt.base section as prelink may have moved it), its semaphore
 * (a reference counter the kernel raises while probed) and its
 * arguments in the assembler's "SIZE@OPERAND" form, which become perf's
 * arg1=%ax:s32 fetches.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/dynprobe.h>
#include "probe_dbg.h"

/* the assembler's register names, by the kernel's x86-64 name */
static const char *const sdt_regs[][5] = {
	{ "%ax", "rax", "eax", "ax", "al" }, { "%bx", "rbx", "ebx", "bx", "bl" },
	{ "%cx", "rcx", "ecx", "cx", "cl" }, { "%dx", "rdx", "edx", "dx", "dl" },
	{ "%si", "rsi", "esi", "si", "sil" }, { "%di", "rdi", "edi", "di", "dil" },
	{ "%bp", "rbp", "ebp", "bp", "bpl" }, { "%sp", "rsp", "esp", "sp", "spl" },
	{ "%ip", "rip", "eip", "ip", NULL },
};

static const char *kreg(const char *r, size_t n)
{
	char name[8];

	if (n >= sizeof(name))
		return NULL;
	memcpy(name, r, n);
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		for (int k = 1; k < 5; k++)
			if (sdt_regs[i][k] && !strcmp(name, sdt_regs[i][k]))
				return sdt_regs[i][0];
	/* r8..r15 with their b/w/d forms */
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		static char out[8][6];
		int num = atoi(name + 1);

		if (num >= 8 && num <= 15) {
			snprintf(out[num - 8], sizeof(out[0]), "%%r%d", num);
			return out[num - 8];
		}
	}
	return NULL;
}

/* "-4@%eax" -> "%ax:s32"; "8@-16(%rbp)" -> "-16(%bp):u64"; false if unknown */
static bool sdt_arg(const char *a, char *out, size_t len)
{
	char *at = strchr(a, '@'), *end;
	long size;
	const char *op, *r;

	if (!at)
		return false;
	size = strtol(a, &end, 10);
	if (end != at || !size)
		return false;
	op = at + 1;
	if (op[0] == '%') {
		if (!(r = kreg(op + 1, strlen(op + 1))))
			return false;
		snprintf(out, len, "%s:%c%ld", r, size < 0 ? 's' : 'u', labs(size) * 8);
		return true;
	}
	{
		long off = 0;
		const char *p = strchr(op, '('), *q;

		if (!p || !(q = strchr(p, ')')) || p[1] != '%')
			return false;
		if (p != op) {
			off = strtol(op, &end, 0);
			if (end != p)
				return false;
		}
		if (!(r = kreg(p + 2, (size_t)(q - p - 2))))
			return false;
		snprintf(out, len, "%+ld(%s):%c%ld", off, r, size < 0 ? 's' : 'u', labs(size) * 8);
		return true;
	}
}

static Elf_Scn *scn_named(Elf *elf, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) && (n = elf_strptr(elf, shstrndx, sh->sh_name)) &&
		    !strcmp(n, want))
			return scn;
	}
	return NULL;
}

int tally__probe_sdt_events(struct probe_dbg *d, const struct probe_point *pp,
			    struct tally_probe_events *out, char *err, size_t len)
{
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = scn_named(d->elf, ".note.stapsdt", &sh);
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	bool have_base = scn_named(d->elf, ".stapsdt.base", &bsh) != NULL;
	const char *want = pp->sdt_group + 4;	/* "sdt_" */
	size_t off = 0, noff, doff, found = 0;
	GElf_Nhdr nh;

	while (data && (noff = gelf_getnote(data, off, &nh, &off, &doff)) > 0) {
		const char *name = (const char *)data->d_buf + off, *desc = (const char *)data->d_buf + doff;
		const char *prov, *ev, *args, *lim = desc + nh.n_descsz;
		uint64_t pc, base, sem;
		struct tally_probe_event e = { 0 };
		char buf[4096];
		size_t n = 0;
		int k = 0;

		off = noff;
		if (nh.n_type != 3 || nh.n_namesz != 8 || memcmp(name, "stapsdt", 8) || nh.n_descsz < 24)
			continue;
		memcpy(&pc, desc, 8);
		memcpy(&base, desc + 8, 8);
		memcpy(&sem, desc + 16, 8);
		prov = desc + 24;
		ev = memchr(prov, 0, (size_t)(lim - prov));
		if (!ev++ || ev >= lim || !(args = memchr(ev, 0, (size_t)(lim - ev))) || ++args >= lim ||
		    !memchr(args, 0, (size_t)(lim - args)))
			continue;
		if (strcmp(prov, want) || strcmp(ev, pp->sdt_name))
			continue;
		if (have_base && base)
			pc += bsh.sh_addr - base;
		if (tally__probe_file_offset(d, pc, &e.offset))
			continue;
		if (sem && tally__probe_file_offset(d, sem, &e.ref_ctr))
			e.ref_ctr = 0;
		buf[0] = '\0';
		for (const char *a = args; *a && n < sizeof(buf);) {
			char one[256], fetch[256];
			size_t w;

			while (*a == ' ')
				a++;
			w = strcspn(a, " ");
			if (!w)
				break;
			snprintf(one, sizeof(one), "%.*s", (int)w, a);
			a += w;
			k++;
			if (!sdt_arg(one, fetch, sizeof(fetch)))
				continue;	/* perf skips what it cannot convert */
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " arg%d=%s", k, fetch);
		}
		e.group = strdup(pp->group ? pp->group : pp->sdt_group);
		e.event = strdup(pp->event ? pp->event : pp->sdt_name);
		e.path = strdup(d->path);
		e.args = strdup(buf);
		if (asprintf(&e.where, "%%%s", pp->sdt_name) < 0)
			e.where = NULL;
		e.argnames = strdup("");
		if (!e.group || !e.event || !e.path || !e.args || !e.where || !e.argnames) {
			free(e.group), free(e.event), free(e.path), free(e.args);
			free(e.where), free(e.argnames);
			return -ENOMEM;
		}
		{
			struct tally_probe_event *nv = realloc(out->ev, (out->nr + 1) * sizeof(*nv));

			if (!nv) {
				free(e.group), free(e.event), free(e.path), free(e.args);
				free(e.where), free(e.argnames);
				return -ENOMEM;
			}
			out->ev = nv;
			nv[out->nr++] = e;
		}
		found++;
	}
	if (!found) {
		tally__probe_err(err, len, "SDT event %s:%s is not found in %s.", pp->sdt_group, pp->sdt_name,
				 d->path);
		return -ENOENT;
	}
	return 0;
}
