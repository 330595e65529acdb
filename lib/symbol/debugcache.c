// SPDX-License-Identifier: MIT
/*
 * Debug files with their sections decompressed, kept by build id.
 *
 * Debian's -dbg packages compress their DWARF (SHF_COMPRESSED, zlib);
 * libdw inflates every debug section when it opens such a file: 37 ms for
 * libc's, each run, more than the rest of a dwarf report. The inflated
 * copy is written once to $XDG_CACHE_HOME/tally/debug/BUILDID.debug
 * (~/.cache/tally) and read from there by later runs. A build id names
 * one content, so a copy is never stale; one that does not open as ELF
 * with the same build id is rewritten. TALLY_DEBUG_CACHE=0 turns it off.
 * Files with a .gnu_debugaltlink (dwz) are left alone: libdw finds their
 * shared part relative to where they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cachedir.h"
#include "debugcache.h"
#include "elf_util.h"

/* Compressed debug sections and no dwz link: worth a copy. */
static bool wants_copy(Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	bool compressed = false;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			return false;
		if (!strcmp(name, ".gnu_debugaltlink"))
			return false;
		if ((sh.sh_flags & SHF_COMPRESSED) && !strncmp(name, ".debug_", 7))
			compressed = true;
	}
	return compressed;
}

/* src's sections, inflated, into a new file at fd (libelf lays it out). */
static int write_copy(Elf *src, int fd)
{
	Elf *dst = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int err = -EIO;

	if (!dst)
		return -EIO;
	if (!gelf_getehdr(src, &eh) || !gelf_newehdr(dst, gelf_getclass(src)))
		goto out;
	eh.e_phnum = 0;		/* a debug file's program headers describe nothing here */
	eh.e_phoff = 0;
	if (!gelf_update_ehdr(dst, &eh))
		goto out;
	while ((scn = elf_nextscn(src, scn))) {
		GElf_Shdr sh;
		Elf_Scn *ns;
		Elf_Data *d, *nd;

		if (!gelf_getshdr(scn, &sh))
			goto out;
		if ((sh.sh_flags & SHF_COMPRESSED) && (elf_compress(scn, 0, 0) < 0 ||
						       !gelf_getshdr(scn, &sh)))
			goto out;
		if (!(ns = elf_newscn(dst)) || !gelf_update_shdr(ns, &sh))
			goto out;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;	/* an empty section */
		if (!(nd = elf_newdata(ns)))
			goto out;
		nd->d_buf = d->d_buf;
		nd->d_type = d->d_type;
		nd->d_size = d->d_size;
		nd->d_align = d->d_align ? d->d_align : 1;
		nd->d_version = d->d_version;
	}
	if (elf_update(dst, ELF_C_WRITE) < 0)
		goto out;
	err = 0;
out:
	elf_end(dst);
	return err;
}

/* The copy, if it is one: ELF with the same build id, nothing compressed. */
static bool copy_ok(const char *path, const uint8_t *bid, int bid_len)
{
	size_t size;
	int fd = tally__cache_open(path, &size);
	uint8_t got[64];
	bool ok = false;
	Elf *e;

	if (fd < 0)
		return false;
	if (tally__elf_shdrs_in_file(fd) && (e = tally__elf_begin(fd))) {
		ok = elf_kind(e) == ELF_K_ELF && tally__elf_build_id(e, got, sizeof(got)) == bid_len &&
		     !memcmp(got, bid, (size_t)bid_len) && !wants_copy(e);
		elf_end(e);
	}
	close(fd);
	return ok;
}

char *tally__debugcache_path(const char *path)
{
	const char *off = getenv("TALLY_DEBUG_CACHE");
	char name[200], out[4096], tmp[4200];
	uint8_t bid[64];
	int fd, bid_len, wfd, err;
	Elf *elf;

	if ((off && !strcmp(off, "0")) || elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!tally__elf_shdrs_in_file(fd) || !(elf = tally__elf_begin(fd))) {
		close(fd);
		return NULL;
	}
	bid_len = elf_kind(elf) == ELF_K_ELF ? tally__elf_build_id(elf, bid, sizeof(bid)) : 0;
	if (bid_len <= 0 || !wants_copy(elf))
		goto none;
	memcpy(name, "debug/", 6);
	for (int i = 0; i < bid_len && 6 + 2 * i + 3 < (int)sizeof(name); i++)
		snprintf(name + 6 + 2 * i, 3, "%02x", bid[i]);
	strcat(name, ".debug");
	if (tally__cache_path(out, sizeof(out), name, false))
		goto none;
	if (copy_ok(out, bid, bid_len))
		goto found;
	/* make it: the cache's debug/ directory, then the file aside and renamed */
	if (tally__cache_path(tmp, sizeof(tmp), "debug", true) ||
	    (mkdir(tmp, 0700) && errno != EEXIST))
		goto none;
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", out);
	wfd = mkostemp(tmp, O_CLOEXEC);
	if (wfd < 0)
		goto none;
	err = write_copy(elf, wfd);
	if (close(wfd) || err || rename(tmp, out)) {
		unlink(tmp);
		goto none;
	}
	(void)tally__cache_trim(out);
found:
	elf_end(elf);
	close(fd);
	return strdup(out);
none:
	elf_end(elf);
	close(fd);
	return NULL;
}
