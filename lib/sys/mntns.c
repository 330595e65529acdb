// SPDX-License-Identifier: MIT
/*
 * Another process's mount namespace, entered for a while (perf's
 * nsinfo__mountns_enter/exit): tally probe --target-ns reads a binary by
 * the path that process sees and writes its uprobe_events line from
 * there, so that the kernel resolves that path as the process does.
 * setns() puts the working directory at the namespace's root: the old
 * one comes back on exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <tally/dynprobe.h>

int tally_mntns__enter(int pid, struct tally_mntns *back)
{
	char path[64];
	int fd, e;

	back->fd = back->cwd = -1;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	back->fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	back->cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (back->fd < 0 || setns(fd, CLONE_NEWNS)) {
		e = -errno;
		close(fd);
		tally_mntns__exit(back);
		return e;
	}
	close(fd);
	return 0;
}

void tally_mntns__exit(struct tally_mntns *back)
{
	if (back->fd >= 0) {
		/* back where we were: the namespace, then its working directory */
		int r = setns(back->fd, CLONE_NEWNS);

		if (!r && back->cwd >= 0)
			r = fchdir(back->cwd);
		(void)r;
		close(back->fd);
	}
	if (back->cwd >= 0)
		close(back->cwd);
	back->fd = back->cwd = -1;
}
