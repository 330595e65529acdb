// SPDX-License-Identifier: MIT
/* ELF files opened safely, and their build ids (elf_util.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "asan.h"
#include "elf_util.h"

/*
 * The section header table inside the file, before libelf reads it: a
 * file cut short (being written, truncated) would have libelf read past
 * its mapping.
 */
bool tally__elf_shdrs_in_file(int fd)
{
	Elf64_Ehdr eh;
	struct stat st;

	if (fstat(fd, &st) || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		return false;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return eh.e_ident[EI_CLASS] == ELFCLASS32;	/* 32-bit: libelf checks these */
	if (!eh.e_shoff)
		return true;
	return eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shoff <= (uint64_t)st.st_size &&
	       (uint64_t)eh.e_shnum * eh.e_shentsize <= (uint64_t)st.st_size - eh.e_shoff;
}

/*
 * elf_begin over a file mapping. Under AddressSanitizer the mapping
 * libelf makes itself can land on memory whose shadow still says "stack
 * redzone" from an earlier, unmapped fake stack: clear it.
 */
Elf *tally__elf_begin(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t len = 0;
	char *raw = elf ? elf_rawfile(elf, &len) : NULL;

	if (raw && len)
		tally__asan_unpoison(raw, len);
	return elf;
}

bool tally__elf_mapping(Elf *elf, int fd, void **addr, size_t *len)
{
	size_t n = 0;
	char *raw = elf ? elf_rawfile(elf, &n) : NULL;
	unsigned long lo, hi, off, ino;
	unsigned maj, mnr;
	char perm[8], line[512];
	struct stat st;
	bool ok = false;
	FILE *f;

	if (!raw || !n || fstat(fd, &st) || !(f = fopen("/proc/self/maps", "re")))
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perm, &off, &maj, &mnr, &ino) != 7)
			continue;
		/* libelf maps the whole file from offset 0, never writable */
		ok = lo == (uintptr_t)raw && hi - lo >= n && !off && perm[1] != 'w' &&
		     ino == st.st_ino && maj == major(st.st_dev) && mnr == minor(st.st_dev);
	}
	fclose(f);
	if (ok) {
		*addr = raw;
		*len = n;
	}
	return ok;
}

/* NT_GNU_BUILD_ID from the notes (sections, else program headers). */
int tally__elf_build_id(Elf *elf, uint8_t *id, size_t max)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + noff, "GNU", 4)) {
				size_t n = nh.n_descsz < max ? nh.n_descsz : max;

				memcpy(id, (char *)d->d_buf + doff, n);
				return (int)n;
			}
		}
	}
	return 0;
}

void tally__elf_file_close(struct tally__elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	f->elf = NULL;
	f->fd = -1;
	f->mem = NULL;
}

int tally__elf_file_open(struct tally__elf_file *f, const char *path)
{
	struct stat st;

	f->fd = -1;
	f->elf = NULL;
	f->mem = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (f->fd < 0)
		return -errno;
	if (fstat(f->fd, &st) || !S_ISREG(st.st_mode) || !tally__elf_shdrs_in_file(f->fd)) {
		tally__elf_file_close(f);
		return -ENOEXEC;
	}
	f->elf = tally__elf_begin(f->fd);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		tally__elf_file_close(f);
		return -ENOEXEC;
	}
	return 0;
}
