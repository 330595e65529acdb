// SPDX-License-Identifier: MIT
/*
 * Events at an address: hardware breakpoints (mem:ADDR[/LEN][:rwx]) and
 * uprobes (uprobe:PATH:SYM[+OFF], uretprobe:).
 * Moved from events.c.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <tally/events.h>
#include <tally/sys.h>
#include <unistd.h>
#include "internal.h"
#include "events_internal.h"
#include "events_parse.h"

int tally__ev_parse_breakpoint(struct parser *p, const char *s, size_t n, size_t col)
{
	struct perf_event_attr attr;
	size_t i = 4, alen, first = p->evs.nr;
	uint64_t addr, len = 0;
	bool has_len = false, mods = false;
	int bp_type = 0;
	char name[64];

	alen = 0;
	while (i + alen < n && s[i + alen] != '/' && s[i + alen] != ':')
		alen++;
	if (!parse_u64(s + i, alen, &addr))
		return tally__ev_err(p, EINVAL, col + i, s + i, alen ? alen : n - i,
			    "bad breakpoint address: expected a number like 0x4010a0");
	i += alen;
	if (i < n && s[i] == '/') {
		size_t l = 0;

		i++;
		while (i + l < n && s[i + l] != ':')
			l++;
		if (!parse_u64(s + i, l, &len) || (len != 1 && len != 2 && len != 4 && len != 8))
			return tally__ev_err(p, EINVAL, col + i, s + i, l,
				    "bad breakpoint length: use 1, 2, 4 or 8");
		has_len = true;
		i += l;
	}
	/*
	 * ":ACCESS" then modifiers, in one token or two: perf's lexer takes
	 * up to three of r/w/x first ("mem:0x1000:wu" is w, then u;
	 * "mem:0x1000:u" is u alone), then an optional ':' before the
	 * modifiers, which may be empty ("mem:0x1000:w:").
	 */
	if (i < n && s[i] == ':') {
		size_t l = 0;

		i++;
		while (l < 3 && i + l < n && s[i + l] && strchr("rwx", s[i + l]))
			l++;
		for (size_t k = 0; k < l; k++) {
			int bit = s[i + k] == 'r' ? HW_BREAKPOINT_R :
				  s[i + k] == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;

			if (bp_type & bit)	/* perf refuses "ww" too */
				return tally__ev_err(p, EINVAL, col + i + k, s + i, l,
					    "breakpoint access '%c' repeated", s[i + k]);
			bp_type |= bit;
		}
		if ((bp_type & HW_BREAKPOINT_X) && (bp_type & HW_BREAKPOINT_RW))
			return tally__ev_err(p, EINVAL, col + i, s + i, l,
				    "an execute breakpoint cannot also watch reads or writes");
		i += l;
		if (l && i < n && s[i] == ':')
			i++;	/* the ':' before modifiers */
		mods = true;
	} else if (i < n) {
		return tally__ev_err(p, EINVAL, col + i, s + i, n - i, "unexpected text after breakpoint");
	}
	if (!bp_type)
		bp_type = HW_BREAKPOINT_RW;
	if (!has_len)	/* perf: an instruction is sizeof(long), data 4 bytes */
		len = bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_addr = addr;
	attr.bp_type = (uint32_t)bp_type;
	attr.bp_len = len;
	if (has_len) {	/* perf 6.1 names a sized breakpoint "mem:ADDR" */
		snprintf(name, sizeof(name), "mem:%.*s", (int)alen, s + 4);
		if (!tally__ev_add(p, &attr, name, strlen(name), "breakpoint", col))
			return -errno;
	} else if (!tally__ev_add(p, &attr, s, n, "breakpoint", col)) {
		return -errno;
	}
	if (mods)
		return tally__ev_apply_mods(p, first, s + i, n - i, col + i, false);
	return 0;
}

int tally__ev_parse_uprobe(struct parser *p, const char *s, size_t n, size_t col, bool ret_probe)
{
	struct perf_event_attr attr;
	size_t i = ret_probe ? 10 : 7, plen, slen, first = p->evs.nr;
	char path[PATH_MAX], real[PATH_MAX], sym[256];
	const char *interned;
	uint64_t off = 0, add = 0, mask;
	int type, word, ret;
	char *plus;

	plen = span(s + i, n - i, ':');
	if (plen == 0 || i + plen >= n)
		return tally__ev_err(p, EINVAL, col + i, s + i, plen ? plen : n - i,
			    "uprobe needs PATH:SYMBOL");
	if (plen >= sizeof(path))
		return tally__ev_err(p, ENAMETOOLONG, col + i, s + i, plen, "path too long");
	memcpy(path, s + i, plen);
	path[plen] = '\0';
	i += plen + 1;
	slen = span(s + i, n - i, ':');
	if (slen == 0 || slen >= sizeof(sym))
		return tally__ev_err(p, EINVAL, col + i, s + i, slen, "bad uprobe symbol");
	memcpy(sym, s + i, slen);
	sym[slen] = '\0';
	if (memchr(path, '\0', plen) || memchr(sym, '\0', slen))
		return tally__ev_err(p, EINVAL, col, s, n, "bad uprobe");
	plus = strchr(sym, '+');
	if (plus) {
		if (!parse_u64(plus + 1, strlen(plus + 1), &add))
			return tally__ev_err(p, EINVAL, col + i + (size_t)(plus - sym), plus,
				    strlen(plus), "bad offset after '+'");
		*plus = '\0';
	}
	type = tally__pmu_type(p->sysfs, "uprobe");
	if (type < 0)
		return tally__ev_err(p, ENOENT, col, s, i - 1, "this kernel has no uprobe PMU");
	if (!realpath(path, real))
		return tally__ev_err(p, errno ? errno : ENOENT, col + (ret_probe ? 10 : 7), path, plen,
			    "cannot open '%s': %s", path, strerror(errno));
	if (isdigit((unsigned char)sym[0])) {
		if (!parse_u64(sym, strlen(sym), &off))
			return tally__ev_err(p, EINVAL, col + i, sym, strlen(sym), "bad file offset");
	} else {
		ret = tally__elf_sym_offset(real, sym, &off);
		if (ret == -ENOENT)
			return tally__ev_err(p, ENOENT, col + i, sym, strlen(sym),
				    "no symbol '%s' in %s", sym, real);
		if (ret)
			return tally__ev_err(p, -ret, col + i, sym, strlen(sym),
				    "cannot read the symbols of %s: %s", real, strerror(-ret));
	}
	interned = tally__intern(real);
	if (!interned)
		return tally__ev_nomem(p, col);
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)interned;
	attr.config2 = off + add;
	if (ret_probe) {
		if (tally__pmu_format(p->sysfs, "uprobe", "retprobe", &word, &mask) || word != 0)
			mask = 1;	/* config:0 on every kernel so far */
		attr.config |= mask;
	}
	i += slen;
	if (!tally__ev_add(p, &attr, s, n, "uprobe", col))	/* as typed, like perf's names */
		return -errno;
	if (i < n)
		return tally__ev_apply_mods(p, first, s + i + 1, n - i - 1, col + i + 1, false);
	return 0;
}
