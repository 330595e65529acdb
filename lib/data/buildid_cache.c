// SPDX-License-Identifier: MIT
/*
 * perf's build-id cache, written as perf record 6.1 writes it, so a
 * recording outlives a rebuild of what it sampled (annotate and report
 * find the recorded copy by build id; perf's tools read the same tree):
 *
 *   DIR/<real path>/<build id>/elf       the file: a hard link, else a copy
 *   DIR/[vdso]/<build id>/vdso           the kernel's vdso image
 *   DIR/.build-id/<xx>/<rest of id>  ->  ../../<real path>/<build id>
 *
 * DIR is perf's buildid dir (tally__buildid_dir). Entries are only added:
 * one that is there stays (a build id names one content).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include <link.h>
#include <tally/data_write.h>
#include "internal.h"
#include "buildid_dir.h"
#include "elf_util.h"

/* mkdir -p, 0755 as perf's mkdir_p */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* len bytes to a new file at path (mode), through a temporary name. */
static int write_file(const char *path, const void *buf, size_t len, mode_t mode)
{
	char tmp[PATH_MAX + 16];
	const char *p = buf;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return -errno;
	while (len && !err) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			err = n < 0 ? -errno : -EIO;
		else {
			p += n;
			len -= (size_t)n;
		}
	}
	if (!err && fchmod(fd, mode & 07777))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* from's bytes into a new file at to (perf's copyfile: the mode kept). */
static int copy_file(const char *from, const char *to)
{
	struct stat st;
	void *buf;
	ssize_t n;
	int fd, err;

	if ((fd = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		err = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		close(fd);
		return err;
	}
	if (!(buf = malloc(st.st_size ? (size_t)st.st_size : 1))) {
		close(fd);
		return -ENOMEM;
	}
	n = pread(fd, buf, (size_t)st.st_size, 0);
	err = n < 0 ? -errno : n != st.st_size ? -EIO : 0;
	close(fd);
	if (!err)
		err = write_file(to, buf, (size_t)st.st_size, st.st_mode);
	free(buf);
	return err;
}

/* This process's vdso image: the kernel maps the same one into every process. */
static const void *vdso_image(size_t *len)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return NULL;
	*len = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return eh;
}

int tally_build_id__vdso(uint8_t *id, size_t max)
{
	size_t len;
	const void *img = vdso_image(&len);
	Elf *elf;
	int n;

	if (!id || !max)
		return tally__err(EINVAL);
	if (!img)
		return tally__err(ENOENT);
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_memory((char *)img, len)))
		return tally__err(ENOEXEC);
	n = elf_kind(elf) == ELF_K_ELF ? tally__elf_build_id(elf, id, max) : -ENOEXEC;
	elf_end(elf);
	return n < 0 ? tally__err(-n) : n;
}

int tally_build_id_cache__add(const char *dir, const char *name, const uint8_t *id,
			      size_t id_len)
{
	char root[PATH_MAX], real[PATH_MAX], hex[2 * 64 + 1], entry[3 * PATH_MAX];
	char lnk[PATH_MAX + 160], target[3 * PATH_MAX];
	bool vdso;
	struct stat st;
	size_t n;
	int err;

	if (!name || !id || !id_len || id_len > 64)
		return tally__err(EINVAL);
	vdso = !strcmp(name, "[vdso]");
	if (!vdso && name[0] != '/')
		return tally__err(EINVAL);	/* [kernel.kallsyms] and other images: not kept */
	if (dir) {
		if (snprintf(root, sizeof(root), "%s", dir) >= (int)sizeof(root))
			return tally__err(ENAMETOOLONG);
	} else if ((err = tally__buildid_dir(root, sizeof(root)))) {
		return tally__err(-err);
	}
	if (vdso)
		strcpy(real, "/[vdso]");
	else if (!realpath(name, real))
		return tally__err(errno);
	for (size_t i = 0; i < id_len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	if (snprintf(entry, sizeof(entry), "%s%s/%s", root, real, hex) >= PATH_MAX)
		return tally__err(ENAMETOOLONG);
	if ((err = mkdirs(entry)))
		return tally__err(-err);
	n = strlen(entry);
	strcpy(entry + n, vdso ? "/vdso" : "/elf");
	if (stat(entry, &st)) {
		if (vdso) {
			size_t len;
			const void *img = vdso_image(&len);

			err = img ? write_file(entry, img, len, 0600) : -ENOENT;
		} else if (link(real, entry) && errno != EEXIST) {
			err = copy_file(real, entry);
		}
		if (err)
			return tally__err(-err);
	}
	entry[n] = '\0';
	/* the link: .build-id/xx/rest -> ../../<real path>/<id> */
	snprintf(lnk, sizeof(lnk), "%s/.build-id/%.2s", root, hex);
	if ((err = mkdirs(lnk)))
		return tally__err(-err);
	snprintf(lnk + strlen(lnk), sizeof(lnk) - strlen(lnk), "/%s", hex + 2);
	snprintf(target, sizeof(target), "../..%s/%s", real, hex);
	if (symlink(target, lnk) && errno != EEXIST)
		return tally__err(errno);
	return 0;
}
