/* SPDX-License-Identifier: MIT */
/* Opening ELF files safely and reading their build id: shared by the
 * symbol tables (dso.c), source lines (srcline.c), the debug cache,
 * build ids, uprobes and the unwinder. */
#ifndef TALLY_ELF_UTIL_H
#define TALLY_ELF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

/* NT_GNU_BUILD_ID from the notes (sections, else program headers): its length. */
int tally__elf_build_id(Elf *elf, uint8_t *id, size_t max);
/* elf_begin(ELF_C_READ_MMAP), safe under AddressSanitizer. */
Elf *tally__elf_begin(int fd);
/*
 * The read-only mapping of fd's file that libelf made for elf (its
 * ELF_C_READ_MMAP), checked in /proc/self/maps: its pages can leave the
 * resident set and come back from the page cache. False where libelf
 * read the file into memory instead (its mmap failed): that must stay.
 */
bool tally__elf_mapping(Elf *elf, int fd, void **addr, size_t *len);
/* The section headers lie inside the file (checked before libelf reads them). */
bool tally__elf_shdrs_in_file(int fd);

/* An ELF file opened read-only for libelf (closed by tally__elf_file_close). */
struct tally__elf_file {
	int fd;
	Elf *elf;
	void *mem;		/* backing buffer for elf_memory(), or NULL */
};
/* 0, or -ENOEXEC (not a regular file, not ELF, headers past its end),
 * -errno. */
int tally__elf_file_open(struct tally__elf_file *f, const char *path);
void tally__elf_file_close(struct tally__elf_file *f);

#endif
