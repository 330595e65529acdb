// SPDX-License-Identifier: MIT
/*
 * tally probe -l: the uprobe events, each mapped back to a place in its
 * binary as perf probe 6.1 prints it: "  GROUP:EVENT (on FUNC[:RLN|+OFF]
 * [%return]@FILE in BINARY [with ARGS])", the lines in the sorted order
 * of perf's list of raw lines. The place is perf's
 * debuginfo__find_probe_point: the function holding the address, the
 * line relative to its declaration (an inlined copy's entry counts as
 * its call site), an offset where no line fits.
 */
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/dynprobe.h>
#include "probe_dbg.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* file offset -> vaddr through the PT_LOAD holding it */
static bool offset_vaddr(struct probe_dbg *d, uint64_t off, uint64_t *vaddr)
{
	size_t n;

	if (elf_getphdrnum(d->elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(d->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return true;
		}
	}
	return false;
}

/* perf's debuginfo__find_probe_point, then synthesize_perf_probe_point */
static void describe(struct probe_dbg *d, uint64_t vaddr, bool ret, char *buf, size_t len)
{
	Dwarf_Die cu, fn, in;
	const char *func = NULL, *basefunc = NULL, *fname = NULL, *tmp;
	int lineno = 0, baseline = 0;
	Dwarf_Addr base = 0, a;
	char file[300] = "", where[64] = "";

	if (d->dw && dwarf_addrdie(d->dw, vaddr, &cu)) {
		tally__probe_line_reversible(&cu, "", 0, vaddr, &fname, &lineno);
		if (tally__probe_realfunc_at(&cu, vaddr, &fn)) {
			func = basefunc = tally__probe_die_name(&fn);
			if (!func || tally__probe_entrypc(&fn, &base) || dwarf_decl_line(&fn, &baseline)) {
				lineno = 0;
				goto post;
			}
			fname = dwarf_decl_file(&fn);
			if (vaddr == base) {
				lineno = baseline;
				goto post;
			}
			while (tally__probe_inlined_at(&fn, vaddr, &in)) {
				if (!tally__probe_entrypc(&in, &a) && a == vaddr) {
					Dwarf_Attribute at;
					Dwarf_Word cl = 0;

					dwarf_formudata(dwarf_attr(&in, DW_AT_call_line, &at), &cl);
					lineno = (int)cl;
					fname = tally__probe_call_file(&in, &cu);
					break;
				}
				tmp = tally__probe_die_name(&in);
				if (!tmp || dwarf_decl_line(&in, &baseline))
					break;
				func = tmp;
				fn = in;
			}
			tmp = dwarf_decl_file(&fn);
			if (!tmp || (fname && strcmp(tmp, fname)))
				lineno = 0;
		}
	}
post:
	if (!basefunc) {
		uint64_t start;

		fname = NULL;
		if (tally__probe_sym_at(d, vaddr, &func, &start)) {
			snprintf(where, sizeof(where), "+%llu", (unsigned long long)(vaddr - start));
			if (vaddr == start)
				where[0] = '\0';
		} else {
			snprintf(buf, len, "0x%llx%s", (unsigned long long)vaddr, ret ? "%return" : "");
			return;
		}
	} else if (lineno && lineno - baseline) {
		snprintf(where, sizeof(where), ":%d", lineno - baseline);
	} else if (!lineno && vaddr != base) {
		func = basefunc;
		snprintf(where, sizeof(where), "+%llu", (unsigned long long)(vaddr - base));
	}
	if (fname) {
		size_t fl = strlen(fname);
		const char *f = fname;

		/* perf's last 30 characters, from a '/' */
		if (fl > 30) {
			const char *sl = strchr(f + fl - 30, '/');

			f = sl ? sl + 1 : f + fl - 30;
		}
		snprintf(file, sizeof(file), "@%s", f);
	}
	/* perf: FUNC, then the offset, %return, the line, the file */
	if (where[0] == ':')
		snprintf(buf, len, "%s%s%s%s", func, ret ? "%return" : "", where, file);
	else
		snprintf(buf, len, "%s%s%s%s", func, where, ret ? "%return" : "", file);
}

int tally_probe__show_list(FILE *fp, char **globs, size_t nglobs, char *err, size_t len)
{
	char **lines, *cur = NULL;
	size_t n;
	struct probe_dbg d = { .fd = -1, .dfd = -1 };
	bool open_ok = false;
	int e = tally_uprobe_events__list(&lines, &n);

	if (e) {
		tally__probe_err(err, len, "Failed to read uprobe_events: %s", strerror(-e));
		return e;
	}
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char name[600], path[4096], place[1024], with[1024] = "";
		const char *c = strchr(lines[i], ':'), *sp, *sl, *colon, *args;
		unsigned long long off;
		uint64_t vaddr;
		bool ok = !nglobs;
		size_t w = 0;

		if (!c || !(sp = strchr(c, ' ')) || !(sl = memchr(c, '/', (size_t)(sp - c))))
			continue;
		snprintf(name, sizeof(name), "%.*s:%.*s", (int)(sl - c - 1), c + 1, (int)(sp - sl - 1), sl + 1);
		for (size_t k = 0; k < nglobs && !ok; k++)
			ok = !fnmatch(globs[k], strchr(globs[k], ':') ? name : strchr(name, ':') + 1, 0);
		if (!ok)
			continue;
		args = strchr(sp + 1, ' ');
		colon = memrchr(sp + 1, ':', args ? (size_t)(args - sp - 1) : strlen(sp + 1));
		if (!colon || sscanf(colon + 1, "%llx", &off) != 1)
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)(colon - sp - 1), sp + 1);
		if (!cur || strcmp(cur, path)) {
			if (open_ok)
				tally__probe_dbg_close(&d);
			free(cur);
			cur = strdup(path);
			open_ok = !tally__probe_dbg_open(&d, path, NULL, 0, false);
		}
		if (open_ok && offset_vaddr(&d, off, &vaddr))
			describe(&d, vaddr, lines[i][0] == 'r', place, sizeof(place));
		else
			snprintf(place, sizeof(place), "0x%llx", off);
		/* the arguments by the names the kernel gives them */
		for (const char *a = args; a && *a && w < sizeof(with);) {
			const char *eq, *end;

			while (*a == ' ')
				a++;
			end = a + strcspn(a, " ");
			eq = memchr(a, '=', (size_t)(end - a));
			if (eq)
				w += (size_t)snprintf(with + w, sizeof(with) - w, "%s%.*s", w ? " " : " with ",
						      (int)(eq - a), a);
			a = end;
		}
		fprintf(fp, "  %-20s (on %s in %s%s)\n", name, place, path, with);
	}
	if (open_ok)
		tally__probe_dbg_close(&d);
	free(cur);
	tally_uprobe_events__free_list(lines, n);
	return 0;
}
