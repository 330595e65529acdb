// SPDX-License-Identifier: MIT
/*
 * /proc/kcore read as perf does: libelf over the file (ELF_C_READ: its
 * size is the whole address space, nothing can map it), the PT_LOAD
 * segments kept, bytes read with pread at the segment's offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "kcore.h"

struct seg {
	uint64_t vaddr, size, off;
};

struct tally__kcore {
	int fd;
	struct seg *segs;
	size_t nr;
};

int tally__kcore_open(const char *path, struct tally__kcore **out)
{
	struct tally__kcore *k;
	GElf_Ehdr eh;
	size_t n = 0;
	Elf *elf;
	int err = -ENOEXEC;

	*out = NULL;
	if (!(k = calloc(1, sizeof(*k))))
		return -ENOMEM;
	if ((k->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		err = -errno;
		free(k);
		return err;
	}
	elf_version(EV_CURRENT);
	if (!(elf = elf_begin(k->fd, ELF_C_READ, NULL)))
		goto fail;
	if (!gelf_getehdr(elf, &eh) || eh.e_type != ET_CORE || elf_getphdrnum(elf, &n) ||
	    !(k->segs = calloc(n + 1, sizeof(*k->segs))))
		goto fail_elf;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_filesz)
			k->segs[k->nr++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	elf_end(elf);
	if (!k->nr)
		goto fail;
	*out = k;
	return 0;
fail_elf:
	elf_end(elf);
fail:
	tally__kcore_close(k);
	return err;
}

void tally__kcore_close(struct tally__kcore *k)
{
	if (!k)
		return;
	if (k->fd >= 0)
		close(k->fd);
	free(k->segs);
	free(k);
}

ssize_t tally__kcore_read(struct tally__kcore *k, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; k && i < k->nr; i++) {
		const struct seg *s = &k->segs[i];
		ssize_t n;

		if (addr < s->vaddr || addr - s->vaddr >= s->size)
			continue;
		if (len > s->size - (addr - s->vaddr))
			len = s->size - (addr - s->vaddr);
		n = pread(k->fd, buf, len, (off_t)(s->off + (addr - s->vaddr)));
		return n < 0 ? -errno : n ? n : -EIO;
	}
	return -ENOENT;
}
