// SPDX-License-Identifier: MIT
/* Build ids: of an ELF file (NT_GNU_BUILD_ID) and of the running kernel. */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_write.h>
#include "internal.h"
#include "elf_util.h"

int tally_build_id__file(const char *path, uint8_t *id, size_t max)
{
	Elf *elf;
	int fd, n;

	if (!path || !id || !max)
		return tally__err(EINVAL);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tally__err(EINVAL);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return tally__err(errno);
	if (!tally__elf_shdrs_in_file(fd)) {
		close(fd);
		return tally__err(ENOEXEC);
	}
	elf = tally__elf_begin(fd);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return tally__err(ENOEXEC);
	}
	n = tally__elf_build_id(elf, id, max);
	elf_end(elf);
	close(fd);
	return n;
}

/* /sys/kernel/notes: ELF notes back to back, 4-byte aligned. */
int tally_build_id__kernel(uint8_t *id, size_t max)
{
	unsigned char buf[4096];
	ssize_t len;
	size_t off = 0;
	int fd;

	if (!id || !max)
		return tally__err(EINVAL);
	fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tally__err(errno);
	len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len < 0)
		return tally__err(errno);
	while (off + 12 <= (size_t)len) {
		uint32_t nsz, dsz, type;
		size_t name, desc;

		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name = off + 12;
		desc = name + ((nsz + 3) & ~3u);
		if (desc + dsz > (size_t)len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 && !memcmp(buf + name, "GNU", 4)) {
			size_t n = dsz < max ? dsz : max;

			memcpy(id, buf + desc, n);
			return (int)n;
		}
		off = desc + ((dsz + 3) & ~3u);
	}
	return tally__err(ENOENT);
}
