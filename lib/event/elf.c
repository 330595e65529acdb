// SPDX-License-Identifier: MIT
/*
 * ELF through elfutils libelf for events: a symbol's file offset, which
 * the uprobe PMU wants in config2 (the kernel maps the probe through the
 * file, not through a process's addresses). Symbol tables for profiles
 * (libelf, libdw, liblzma) are dso.c's.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"
#include "elf_util.h"
#include "events_internal.h"

/* vaddr -> file offset through the PT_LOAD segment that holds it. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static int find_sym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *sym,
		    uint64_t *value)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;

	if (!data || !sh->sh_entsize)
		return -ENOENT;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (s.st_shndx == SHN_UNDEF || !s.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, s.st_name);
		if (name && !strcmp(name, sym)) {
			*value = s.st_value;
			return 0;
		}
	}
	return -ENOENT;
}

int tally__elf_sym_offset(const char *path, const char *sym, uint64_t *off)
{
	Elf *elf;
	Elf_Scn *scn;
	uint64_t value = 0;
	struct stat st;
	int fd, err = -ENOENT;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return tally__err(EINVAL);

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* A FIFO or a device would block or never end: probes go on files. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return tally__err(ENOEXEC);
	}
	elf = tally__elf_begin(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	/* .symtab first (has local functions), then .dynsym (stripped files). */
	for (int pass = 0; pass < 2 && err; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		scn = NULL;
		while ((scn = elf_nextscn(elf, scn)) && err) {
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != want)
				continue;
			err = find_sym(elf, scn, &sh, sym, &value);
		}
	}
	if (!err)
		err = vaddr_to_offset(elf, value, off);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err ? tally__err(-err) : 0;
}
