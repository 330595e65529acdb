// SPDX-License-Identifier: MIT
/*
 * Records perf synthesizes for what exists before recording starts: the
 * kernel map (and modules), COMM/FORK per thread, MMAP2 per executable
 * mapping (perf's synthetic-events.c, as perf 6.1 writes them: time 0).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <tally/data_write.h>
#include "internal.h"
#include "data_write_internal.h"

size_t tally__sid_size(const struct perf_event_attr *a)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	size_t n = 0;

	if (!a || !a->sample_id_all)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		n += a->sample_type & bits[i] ? 8 : 0;
	return n;
}

void tally__sid_add(struct tally__buf *b, const struct perf_event_attr *a,
		    uint32_t pid, uint32_t tid)
{
	size_t n = tally__sid_size(a);

	if (!n)
		return;
	if (a->sample_type & PERF_SAMPLE_TID) {
		tally__buf_u32(b, pid);
		tally__buf_u32(b, tid);
		n -= 8;
	}
	tally__buf_zero(b, n);
}

static void put_hdr(struct tally__buf *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	tally__buf_add(b, &h, sizeof(h));
}

/* Pad the string to 8, trailer, then set the record's size. */
static void put_str(struct tally__buf *b, const char *s)
{
	size_t n = strlen(s) + 1, al = (n + 7) & ~(size_t)7;

	tally__buf_add(b, s, n);
	tally__buf_zero(b, al - n);
}

static int emit(struct tally_data_writer *w, struct tally__buf *b, size_t start)
{
	struct perf_event_header *h = (void *)(b->p + start);

	if (b->oom)
		return tally__err(ENOMEM);
	if (b->len - start > 0xffff)
		return tally__err(E2BIG);
	h->size = (uint16_t)(b->len - start);
	return 0;
}

static int flush(struct tally_data_writer *w, struct tally__buf *b)
{
	int err = 0;

	if (b->oom)
		err = tally__err(ENOMEM);
	else if (b->len)
		err = tally_data_writer__write(w, b->p, b->len);
	b->len = 0;
	return err;
}

/* Truncating copy, always NUL-terminated. */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = 0;
}

/*
 * The kernel text's [_text, _etext): _text is in kallsyms' first lines;
 * its length is /proc/iomem's "Kernel code" range (_text.._etext - 1 in
 * physical addresses), which costs nothing, where a full pass over
 * kallsyms for _etext costs ~40 ms. Without iomem (not root) the same
 * pass goes on to _etext (or _edata). *end 0: not found.
 */
static int kernel_text(uint64_t *text, uint64_t *end)
{
	char line[512], name[256], t;
	unsigned long long a, lo, hi;
	FILE *f = fopen("/proc/kallsyms", "re");
	bool have_text = false;

	if (!f)
		return -errno;
	*end = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &t, name) != 3)
			continue;
		if (!have_text) {
			if (strcmp(name, "_text"))
				continue;
			*text = a;
			have_text = true;
			FILE *io = fopen("/proc/iomem", "re");

			while (a && io && fgets(line, sizeof(line), io))
				if (strstr(line, " : Kernel code") &&
				    sscanf(line, " %llx-%llx", &lo, &hi) == 2 && hi > lo) {
					*end = a + (hi + 1 - lo);
					break;
				}
			if (io)
				fclose(io);
			if (*end || !a)
				break;
		} else if (!strcmp(name, "_etext") || !strcmp(name, "_edata")) {
			*end = a;
			break;
		}
	}
	fclose(f);
	return have_text ? 0 : -ENOENT;
}

/* modules.dep: "kernel/fs/xfs/xfs.ko.zst: deps" -> path of module `mod`. */
static bool module_path(const char *dep, const char *mod, char *out, size_t len)
{
	char line[4096];
	FILE *f = fopen(dep, "r");
	bool ok = false;

	while (f && !ok && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':'), *base, *dot;
		char name[256];
		size_t i;

		if (!c)
			continue;
		*c = 0;
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		copy(name, sizeof(name), base);
		dot = strstr(name, ".ko");
		if (dot)
			*dot = 0;
		for (i = 0; name[i]; i++)
			if (name[i] == '-')
				name[i] = '_';
		if (!strcmp(name, mod)) {
			size_t dl = (size_t)(strrchr(dep, '/') - dep);

			if (dl + 1 + strlen(line) + 1 <= len) {
				memcpy(out, dep, dl + 1);
				strcpy(out + dl + 1, line);
				ok = true;
			}
		}
	}
	if (f)
		fclose(f);
	return ok;
}

int tally_synth__kernel_mmap(struct tally_data_writer *w, const struct perf_event_attr *sid_attr)
{
	struct tally__buf b = { 0 };
	uint64_t text = 0, end = 0;
	char line[512];
	struct utsname u;
	FILE *f;
	int err;

	if (!w)
		return tally__err(EINVAL);
	err = kernel_text(&text, &end);
	if (err)
		return tally__err(-err);
	if (!text)	/* kptr_restrict hides addresses */
		return tally__err(EACCES);
	if (end <= text)
		end = ~0ULL;
	put_hdr(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	tally__buf_u32(&b, (uint32_t)-1);
	tally__buf_u32(&b, 0);
	tally__buf_u64(&b, text);
	tally__buf_u64(&b, end - text);
	tally__buf_u64(&b, text);
	put_str(&b, "[kernel.kallsyms]_text");
	tally__sid_add(&b, sid_attr, 0, 0);
	err = emit(w, &b, 0);
	if (err)
		goto out;

	/* modules: "name size refs deps state addr", as perf one MMAP each */
	f = fopen("/proc/modules", "r");
	if (uname(&u) < 0)
		memset(&u, 0, sizeof(u));
	while (f && fgets(line, sizeof(line), f)) {
		char name[256], dep[PATH_MAX], path[PATH_MAX];
		unsigned long long size, addr;
		size_t start = b.len;

		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size, &addr) != 3 || !addr)
			continue;
		snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", u.release);
		if (!module_path(dep, name, path, sizeof(path)))
			snprintf(path, sizeof(path), "[%s]", name);
		put_hdr(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
		tally__buf_u32(&b, (uint32_t)-1);
		tally__buf_u32(&b, 0);
		tally__buf_u64(&b, addr);
		tally__buf_u64(&b, size);
		tally__buf_u64(&b, 0);
		put_str(&b, path);
		tally__sid_add(&b, sid_attr, 0, 0);
		if (emit(w, &b, start))
			b.len = start;
	}
	if (f)
		fclose(f);
	err = flush(w, &b);
out:
	tally__buf_free(&b);
	return err;
}

/* Tgid and PPid of a task from its status file; -ENOENT once it exited. */
static int task_status(pid_t pid, pid_t tid, char *comm, size_t len, pid_t *tgid, pid_t *ppid)
{
	char path[128], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -ENOENT;
	*tgid = pid;
	*ppid = 0;
	comm[0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:", 5)) {
			char *s = line + 5, *e;

			while (*s == ' ' || *s == '\t')
				s++;
			e = strchr(s, '\n');
			if (e)
				*e = 0;
			copy(comm, len, s);
		} else if (!strncmp(line, "Tgid:", 5)) {
			*tgid = atoi(line + 5);
		} else if (!strncmp(line, "PPid:", 5)) {
			*ppid = atoi(line + 5);
		}
	}
	fclose(f);
	return 0;
}

static void put_comm(struct tally__buf *b, const struct perf_event_attr *a, pid_t tgid, pid_t tid,
		     const char *comm)
{
	size_t start = b->len;

	put_hdr(b, PERF_RECORD_COMM, 0);
	tally__buf_u32(b, (uint32_t)tgid);
	tally__buf_u32(b, (uint32_t)tid);
	put_str(b, comm);
	tally__sid_add(b, a, (uint32_t)tgid, (uint32_t)tid);
	emit(NULL, b, start);
}

static void put_fork(struct tally__buf *b, const struct perf_event_attr *a, pid_t tgid, pid_t tid,
		     pid_t ppid)
{
	size_t start = b->len;
	/* a clone, synthesized as fork: the leader's parent is PPid, a thread's its tgid */
	pid_t parent = tgid == tid ? ppid : tgid;

	put_hdr(b, PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC);
	tally__buf_u32(b, (uint32_t)tgid);
	tally__buf_u32(b, (uint32_t)parent);
	tally__buf_u32(b, (uint32_t)tid);
	tally__buf_u32(b, (uint32_t)parent);
	tally__buf_u64(b, 0);
	tally__sid_add(b, a, (uint32_t)tgid, (uint32_t)tid);
	emit(NULL, b, start);
}

/* MMAP2 of pid's executable maps (perf without -d). */
static void put_mmaps(struct tally__buf *b, const struct perf_event_attr *a, pid_t pid)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned int maj, min;
		char perm[8];
		int n = 0, prot = 0, flags;
		const char *name;
		char *nl;
		size_t at = b->len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perm, &pgoff,
			   &maj, &min, &ino, &n) < 7)
			continue;
		if (perm[2] != 'x')
			continue;
		name = line + n;
		nl = strchr(line + n, '\n');
		if (nl)
			*nl = 0;
		if (!*name)
			name = "//anon";
		prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) |
		       PROT_EXEC;
		flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		put_hdr(b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		tally__buf_u32(b, (uint32_t)pid);
		tally__buf_u32(b, (uint32_t)pid);
		tally__buf_u64(b, start);
		tally__buf_u64(b, end - start);
		tally__buf_u64(b, pgoff);
		tally__buf_u32(b, maj);
		tally__buf_u32(b, min);
		tally__buf_u64(b, ino);
		tally__buf_u64(b, 0);
		tally__buf_u32(b, (uint32_t)prot);
		tally__buf_u32(b, (uint32_t)flags);
		put_str(b, name);
		tally__sid_add(b, a, (uint32_t)pid, (uint32_t)pid);
		if (emit(NULL, b, at))
			b->len = at;
	}
	if (f)
		fclose(f);
}

static int is_num(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* One process: its threads' (FORK +) COMM, then the leader's maps. */
static int synth_one(struct tally_data_writer *w, const struct perf_event_attr *a, pid_t pid,
		     bool mmaps, bool fork)
{
	struct tally__buf b = { 0 };
	char path[64], comm[64];
	struct dirent *de;
	pid_t tgid, ppid;
	bool any = false;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return tally__err(errno == ENOENT ? ESRCH : errno);
	while ((de = readdir(d))) {
		pid_t tid;

		if (!is_num(de->d_name))
			continue;
		tid = atoi(de->d_name);
		if (task_status(pid, tid, comm, sizeof(comm), &tgid, &ppid))
			continue;	/* exited meanwhile */
		if (fork)
			put_fork(&b, a, tgid, tid, ppid);
		put_comm(&b, a, tgid, tid, comm);
		any = true;
	}
	closedir(d);
	if (!any) {
		tally__buf_free(&b);
		return tally__err(ESRCH);
	}
	if (mmaps)
		put_mmaps(&b, a, pid);
	err = flush(w, &b);
	tally__buf_free(&b);
	return err;
}

int tally_synth__process(struct tally_data_writer *w, const struct perf_event_attr *sid_attr,
			 pid_t pid, bool mmaps)
{
	if (!w || pid <= 0)
		return tally__err(EINVAL);
	return synth_one(w, sid_attr, pid, mmaps, false);
}

int tally_synth__all(struct tally_data_writer *w, const struct perf_event_attr *sid_attr)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (!w)
		return tally__err(EINVAL);
	d = opendir("/proc");
	if (!d)
		return tally__err(errno);
	while ((de = readdir(d)) && !err) {
		if (!is_num(de->d_name))
			continue;
		err = synth_one(w, sid_attr, atoi(de->d_name), true, true);
		if (err == -ESRCH || err == -ENOENT || err == -EACCES)
			err = 0;	/* gone, or not ours to read */
	}
	closedir(d);
	return err;
}

/* perf's names of the kernel's namespaces, in its link_info order (NET_NS_INDEX...) */
static const char *const ns_names[NR_NAMESPACES] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

/* NAMESPACES of one thread: each /proc/TID/ns/ link's dev and inode (0s where unreadable) */
static void put_namespaces(struct tally__buf *b, const struct perf_event_attr *a, pid_t tgid,
			   pid_t tid)
{
	size_t start = b->len;

	put_hdr(b, PERF_RECORD_NAMESPACES, 0);
	tally__buf_u32(b, (uint32_t)tgid);
	tally__buf_u32(b, (uint32_t)tid);
	tally__buf_u64(b, NR_NAMESPACES);
	for (int i = 0; i < NR_NAMESPACES; i++) {
		char path[96];
		struct stat st;
		bool ok;

		snprintf(path, sizeof(path), "/proc/%d/ns/%s", tid, ns_names[i]);
		ok = !stat(path, &st);
		tally__buf_u64(b, ok ? (uint64_t)st.st_dev : 0);
		tally__buf_u64(b, ok ? (uint64_t)st.st_ino : 0);
	}
	tally__sid_add(b, a, (uint32_t)tgid, (uint32_t)tid);
	emit(NULL, b, start);
}

static int synth_ns_one(struct tally_data_writer *w, const struct perf_event_attr *a, pid_t pid)
{
	struct tally__buf b = { 0 };
	char path[64];
	struct dirent *de;
	bool any = false;
	DIR *d;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if (!(d = opendir(path)))
		return tally__err(errno == ENOENT ? ESRCH : errno);
	while ((de = readdir(d))) {
		if (!is_num(de->d_name))
			continue;
		put_namespaces(&b, a, pid, atoi(de->d_name));
		any = true;
	}
	closedir(d);
	err = any ? flush(w, &b) : tally__err(ESRCH);
	tally__buf_free(&b);
	return err;
}

int tally_synth__namespaces(struct tally_data_writer *w, const struct perf_event_attr *sid_attr,
			    pid_t pid)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (!w || !pid || pid < -1)
		return tally__err(EINVAL);
	if (pid > 0)
		return synth_ns_one(w, sid_attr, pid);
	if (!(d = opendir("/proc")))
		return tally__err(errno);
	while ((de = readdir(d)) && !err) {
		if (!is_num(de->d_name))
			continue;
		err = synth_ns_one(w, sid_attr, atoi(de->d_name));
		if (err == -ESRCH || err == -ENOENT || err == -EACCES)
			err = 0;	/* gone, or not ours to read */
	}
	closedir(d);
	return err;
}

int tally_synth__lost_samples(struct tally_data_writer *w, const struct perf_event_attr *sid_attr,
			      uint64_t id, uint64_t lost)
{
	const struct perf_event_attr *a = sid_attr;
	struct tally__buf b = { 0 };
	uint64_t st = a && a->sample_id_all ? a->sample_type : 0;
	int err;

	if (!w)
		return tally__err(EINVAL);
	put_hdr(&b, PERF_RECORD_LOST_SAMPLES, 0);
	tally__buf_u64(&b, lost);
	/* the trailer in the kernel's order: TID TIME ID STREAM_ID CPU IDENTIFIER */
	if (st & PERF_SAMPLE_TID)
		tally__buf_u64(&b, 0);
	if (st & PERF_SAMPLE_TIME)
		tally__buf_u64(&b, 0);
	if (st & PERF_SAMPLE_ID)
		tally__buf_u64(&b, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		tally__buf_u64(&b, 0);
	if (st & PERF_SAMPLE_CPU)
		tally__buf_u64(&b, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		tally__buf_u64(&b, id);
	err = emit(w, &b, 0);
	if (!err)
		err = flush(w, &b);
	tally__buf_free(&b);
	return err;
}

/*
 * An offcpu-time sample as perf 6.1's off_cpu_write() makes one: its
 * period the time waited (ns), IP the innermost frame, the call chain
 * kernel then user frames, CPU 0. The time is a dummy past every real one
 * (perf's ~0 << 32 plus a count) so readers sort them last; tally puts
 * the wait state in bits 28-29 of it (perf ignores the value).
 */
int tally_synth__offcpu(struct tally_data_writer *w, const struct perf_event_attr *attr,
			uint64_t id, const struct tally_offcpu_entry *e, uint32_t nth)
{
	const uint64_t ok = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	uint64_t st = attr ? attr->sample_type : 0;
	bool kernel = e && e->nr_kstack > 0;
	struct tally__buf b = { 0 };
	int err;

	if (!w || !e || !attr || (st & ~ok) || nth >= TALLY_OFFCPU_NTH_MAX ||
	    e->nr_kstack < 0 || e->nr_ustack < 0)
		return tally__err(EINVAL);
	put_hdr(&b, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	if (st & PERF_SAMPLE_IDENTIFIER)
		tally__buf_u64(&b, id);
	if (st & PERF_SAMPLE_IP)
		tally__buf_u64(&b, kernel ? e->kstack[0] : e->nr_ustack ? e->ustack[0] : 0);
	if (st & PERF_SAMPLE_TID)
		tally__buf_u64(&b, (uint64_t)(uint32_t)e->tid << 32 | (uint32_t)e->pid);
	if (st & PERF_SAMPLE_TIME)
		tally__buf_u64(&b, TALLY_OFFCPU_TIME | (uint64_t)(e->state & 3) << 28 | nth);
	if (st & PERF_SAMPLE_ID)
		tally__buf_u64(&b, id);
	if (st & PERF_SAMPLE_CPU)
		tally__buf_u64(&b, 0);
	if (st & PERF_SAMPLE_PERIOD)
		tally__buf_u64(&b, e->ns);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		tally__buf_u64(&b, (uint64_t)(e->nr_kstack ? e->nr_kstack + 1 : 0) +
				   (uint64_t)(e->nr_ustack ? e->nr_ustack + 1 : 0));
		if (e->nr_kstack) {
			tally__buf_u64(&b, PERF_CONTEXT_KERNEL);
			tally__buf_add(&b, e->kstack, (size_t)e->nr_kstack * 8);
		}
		if (e->nr_ustack) {
			tally__buf_u64(&b, PERF_CONTEXT_USER);
			tally__buf_add(&b, e->ustack, (size_t)e->nr_ustack * 8);
		}
	}
	err = emit(w, &b, 0);
	if (!err)
		err = flush(w, &b);
	tally__buf_free(&b);
	return err;
}

/* The cgroup hierarchy perf names cgroups by: perf_event's (v1), else v2's. */
static int cgroup_mount(char *buf, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64], opts[1024];
	FILE *f = fopen("/proc/mounts", "re");
	bool v2 = false;
	char *save;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %1023s %*s %*s", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup")) {
			for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, "perf_event")) {
					copy(buf, len, dir);
					fclose(f);
					return 0;
				}
		} else if (!strcmp(type, "cgroup2") && !v2) {
			copy(buf, len, dir);
			v2 = true;
		}
	}
	fclose(f);
	return v2 ? 0 : tally__err(ENOENT);
}

static int synth_cgroup(struct tally_data_writer *w, const struct perf_event_attr *a,
			const char *path, size_t mount_len)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh.handle_bytes = sizeof(uint64_t) };
	struct tally__buf b = { 0 };
	int mount_id, err;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return 0;	/* gone meanwhile: as perf, not an error */
	put_hdr(&b, PERF_RECORD_CGROUP, 0);
	tally__buf_u64(&b, h.id);
	put_str(&b, path + mount_len);
	tally__sid_add(&b, a, 0, 0);
	err = emit(w, &b, 0);
	if (!err)
		err = flush(w, &b);
	tally__buf_free(&b);
	return err;
}

/* The cgroup at path (its name from mount_len on), then its children, depth first. */
static int walk_cgroups(struct tally_data_writer *w, const struct perf_event_attr *a,
			char *path, size_t mount_len, int depth)
{
	size_t pos = strlen(path);
	struct dirent *de;
	DIR *d;
	int err = synth_cgroup(w, a, path, mount_len);

	if (err || depth > 64)
		return err;
	d = opendir(path);
	if (!d)
		return 0;
	while (!err && (de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (pos + strlen(de->d_name) + 2 >= PATH_MAX)
			continue;
		snprintf(path + pos, PATH_MAX - pos, "%s%s", path[pos - 1] == '/' ? "" : "/",
			 de->d_name);
		err = walk_cgroups(w, a, path, mount_len, depth + 1);
		path[pos] = '\0';
	}
	closedir(d);
	return err;
}

int tally_synth__cgroups(struct tally_data_writer *w, const struct perf_event_attr *sid_attr)
{
	char path[PATH_MAX];
	size_t n;
	int err;

	if (!w)
		return tally__err(EINVAL);
	err = cgroup_mount(path, sizeof(path) - 1);
	if (err)
		return err;
	n = strlen(path);
	/* the root's name is "/", every other one "/a/b" (perf's) */
	path[n] = '/';
	path[n + 1] = '\0';
	return walk_cgroups(w, sid_attr, path, n, 0);
}
