// SPDX-License-Identifier: MIT
/*
 * perf.data reader: opening a file (header, attrs and ids; data_walk.c
 * hands over its records in file order). perf's directory format (record
 * --threads): the header and its records in DIR/data, then DIR/data.N.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data_read_internal.h"
#include "data_reader.h"
#include "asan.h"
#include "data_swap.h"
#include "internal.h"
#include <tally/data_read.h>

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" */

struct tally__feat_cache **tally__data_reader_feat_cache(const struct tally_data_reader *r,
							 void (*release)(struct tally__feat_cache *))
{
	/* a cache of what the file says: filled on a const reader */
	((struct tally_data_reader *)r)->fcache_free = release;
	return &((struct tally_data_reader *)r)->fcache;
}

struct tally__bpf_infos **tally__data_reader_bpf_infos(const struct tally_data_reader *r,
						      void (*release)(struct tally__bpf_infos *))
{
	((struct tally_data_reader *)r)->bpf_free = release;
	return &((struct tally_data_reader *)r)->bpf;
}

static bool pipe_header_record(uint32_t type);

/* A foreign pipe header record at p, copied and brought to host order (kept until close). */
static const uint8_t *swapped_copy(struct tally_data_reader *r, const uint8_t *p, uint16_t size)
{
	void **n = realloc(r->pcopies, (r->nr_pcopies + 1) * sizeof(*n));
	uint8_t *c;

	if (!n)
		return NULL;
	r->pcopies = n;
	if (!(c = malloc(size)))
		return NULL;
	memcpy(c, p, size);
	tally__swap_header((struct perf_event_header *)(void *)c);
	tally__swap_record(c, NULL, NULL);
	r->pcopies[r->nr_pcopies++] = c;
	return c;
}

/*
 * Why the last open on this thread failed on the file's content: no
 * reader is left to ask, so the failing open leaves it here (as errno).
 */
static __thread struct tally_data_error open_err;
static __thread bool open_failed;

static void open_error_clear(void)
{
	open_failed = false;
}

/* The open fails at off for why: -EBADMSG, what the open returns. */
static int __attribute__((format(printf, 2, 3))) bad_file(uint64_t off, const char *fmt, ...)
{
	char why[96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tally__data_open_fail(off, -EBADMSG, why);
	return -EBADMSG;
}

void tally__data_open_fail(uint64_t off, int err, const char *why)
{
	open_failed = true;
	open_err.offset = off;
	open_err.type = 0;
	open_err.err = err;
	snprintf(open_err.msg, sizeof(open_err.msg), "%s at offset %#llx", why,
		 (unsigned long long)off);
}

const struct tally_data_error *tally_data_reader__open_error(void)
{
	return open_failed ? &open_err : NULL;
}

static int read_attrs(struct tally_data_reader *r)
{
	const struct file_header *h = &r->h;
	uint64_t asz = h->attr_size, n;

	/* each entry: attr (attr_size bytes) + ids section; the header's fields at 16, 24 */
	if (asz < PERF_ATTR_SIZE_VER0 + 16)
		return bad_file(16, "attr size %llu is too small for an attr and its ids",
				(unsigned long long)asz);
	if (!in_file(r, h->attrs.offset, h->attrs.size))
		return bad_file(24, "the attrs section [%#llx, +%#llx) runs past the file's end (%#zx)",
				(unsigned long long)h->attrs.offset,
				(unsigned long long)h->attrs.size, r->len);
	if (h->attrs.size % asz)
		return bad_file(24, "the attrs section's size %#llx is not a multiple of the attr size %llu",
				(unsigned long long)h->attrs.size, (unsigned long long)asz);
	n = h->attrs.size / asz;
	if (n > 65536)
		return bad_file(24, "the attrs section holds %llu attrs", (unsigned long long)n);
	r->attrs = calloc(n ? n : 1, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = r->buf + h->attrs.offset + i * asz;
		size_t fsz = asz - 16, cp = fsz < sizeof(struct perf_event_attr) ?
					      fsz : sizeof(struct perf_event_attr);
		struct section ids;

		memcpy(&r->attrs[i].attr, p, cp);
		memcpy(&ids, p + fsz, sizeof(ids));
		if (r->swap) {
			tally__swap_attr(&r->attrs[i].attr, cp);
			ids.offset = __builtin_bswap64(ids.offset);
			ids.size = __builtin_bswap64(ids.size);
		}
		r->attrs[i].attr.size = sizeof(struct perf_event_attr);
		if (!in_file(r, ids.offset, ids.size) || ids.size % 8)
			return bad_file(h->attrs.offset + i * asz + fsz,
					"event %llu's ids [%#llx, +%#llx) %s", (unsigned long long)i,
					(unsigned long long)ids.offset, (unsigned long long)ids.size,
					ids.size % 8 ? "are not 8-byte ids" : "run past the file's end");
		r->attrs[i].nr_ids = ids.size / 8;
		if (r->attrs[i].nr_ids) {
			r->attrs[i].ids = malloc(ids.size);
			if (!r->attrs[i].ids)
				return -ENOMEM;
			memcpy(r->attrs[i].ids, r->buf + ids.offset, ids.size);
			for (size_t k = 0; r->swap && k < r->attrs[i].nr_ids; k++)
				r->attrs[i].ids[k] = __builtin_bswap64(r->attrs[i].ids[k]);
		}
		r->nr_attrs++;
	}
	return tally__data_reader_index_ids(r);
}


/*
 * Pipe format (perf's `-o -`): a 16-byte header, then records only; the
 * attrs, features, names and tracing data come as perf's own record
 * types ahead of the data. TRACING_DATA's blob follows its record,
 * outside the record's size, padded to 8.
 */
static int open_pipe(struct tally_data_reader *r)
{
	uint64_t pos = 16;

	r->pipe = true;
	r->h.data.offset = 16;
	r->h.data.size = r->len - 16;
	r->attrs = calloc(64, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	while (pos < r->len && r->len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const uint8_t *p = r->buf + pos, *orig = p;

		memcpy(&h, p, sizeof(h));
		if (r->swap)
			tally__swap_header(&h);
		if (h.size < sizeof(h) || h.size > r->len - pos)
			break;	/* the walk over the data reports it */
		/* the other byte order: a header record is read from a host-order copy */
		if (r->swap && pipe_header_record(h.type) && !(p = swapped_copy(r, orig, h.size)))
			return -ENOMEM;
		if (h.type == TALLY_RECORD_HEADER_ATTR && h.size >= 8 + PERF_ATTR_SIZE_VER0 &&
		    r->nr_attrs < 64) {
			struct rattr *a = &r->attrs[r->nr_attrs];
			uint32_t asz;

			memcpy(&asz, p + 8 + 4, 4);
			if (asz < PERF_ATTR_SIZE_VER0 || asz > h.size - 8U)
				return bad_file(pos, "a HEADER_ATTR record's attr size %u does not fit it",
						asz);
			memcpy(&a->attr, p + 8, asz < sizeof(a->attr) ? asz : sizeof(a->attr));
			a->attr.size = sizeof(a->attr);
			a->nr_ids = (h.size - 8U - asz) / 8;
			if (a->nr_ids) {
				a->ids = malloc(a->nr_ids * 8);
				if (!a->ids)
					return -ENOMEM;
				memcpy(a->ids, p + 8 + asz, a->nr_ids * 8);
			}
			r->nr_attrs++;
			if (tally__data_reader_index_ids(r))
				return -ENOMEM;
		} else if (h.type == TALLY_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
			uint32_t tsz;

			memcpy(&tsz, p + 8, 4);
			if (tsz > r->len - pos - h.size)
				return bad_file(pos, "the tracing data (%u bytes) runs past the end", tsz);
			r->pfeat[1].p = orig + h.size;	/* the blob says its own byte order */
			r->pfeat[1].len = tsz;
		} else if (h.type == TALLY_RECORD_HEADER_FEATURE && h.size >= 16) {
			uint64_t feat;

			memcpy(&feat, p + 8, 8);
			if (feat < 256) {
				r->pfeat[feat].p = p + 16;
				r->pfeat[feat].len = h.size - 16U;
			}
		} else if (h.type == TALLY_RECORD_EVENT_UPDATE && h.size > 24) {
			uint64_t type, id;
			void *nn;

			memcpy(&type, p + 8, 8);
			memcpy(&id, p + 16, 8);
			/* perf_event_update types: UNIT 0, SCALE 1, NAME 2, CPUS 3 */
			if (type == 2 && memchr(p + 24, 0, h.size - 24U)) {
				nn = realloc(r->pnames, (r->nr_pnames + 1) * sizeof(*r->pnames));
				if (!nn)
					return -ENOMEM;
				r->pnames = nn;
				r->pnames[r->nr_pnames].id = id;
				r->pnames[r->nr_pnames++].name = (const char *)p + 24;
			}
		}
		pos += h.size;
		if (h.type == TALLY_RECORD_HEADER_TRACING_DATA)
			pos += (r->pfeat[1].len + 7) & ~7ULL;
	}
	return r->nr_attrs ? 0 : bad_file(pos, "no HEADER_ATTR record before the data (a pipe's events)");
}

/*
 * The header of a file from the other byte order. The feature bitmap was
 * written as the writer's longs: perf tries them as u64s and checks that
 * HOSTNAME (bit 3), always written, is there; else as u32s.
 */
static void swap_file_header(struct file_header *h)
{
	uint64_t *w = &h->size;
	uint64_t f64[4], f32[4];

	h->magic = PERF_MAGIC2;
	for (; w < h->adds_features; w++)
		*w = __builtin_bswap64(*w);
	for (int i = 0; i < 4; i++) {
		uint32_t lo = (uint32_t)h->adds_features[i], hi = (uint32_t)(h->adds_features[i] >> 32);

		f64[i] = __builtin_bswap64(h->adds_features[i]);
		f32[i] = (uint64_t)__builtin_bswap32(hi) << 32 | __builtin_bswap32(lo);
	}
	memcpy(h->adds_features, f64[0] & (1u << 3) ? f64 : f32, sizeof(f64));
}


/* Each feature section copied and brought to host order once, at the open. */
static void swap_features(struct tally_data_reader *r)
{
	for (int f = 1; f < 256; f++) {
		const void *p;
		size_t len;
		void *copy;

		if (tally__data_raw_feature(r, f, &p, &len) || !(copy = malloc(len ? len : 1)))
			continue;
		memcpy(copy, p, len);
		tally__swap_feature(f, copy, len);
		r->sfeat[f] = copy;
	}
}

struct tally_data_reader *tally_data_reader__open_mem(const void *buf,
						      size_t len)
{
	struct tally_data_reader *r = calloc(1, sizeof(*r));
	int err;

	open_error_clear();
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->buf = buf;
	r->len = len;
	r->stream_fd = -1;
	if (len >= 16) {
		uint64_t hd[2];

		memcpy(hd, buf, sizeof(hd));
		if (hd[0] == PERF_MAGIC2 && hd[1] == 16) {
			err = open_pipe(r);
			if (err)
				goto fail;
			return r;
		}
		if (__builtin_bswap64(hd[0]) == PERF_MAGIC2 && __builtin_bswap64(hd[1]) == 16) {
			r->swap = true;	/* a pipe from the other byte order */
			err = open_pipe(r);
			if (err)
				goto fail;
			return r;
		}
	}
	if (len < 8 || (memcpy(&r->h.magic, buf, 8), r->h.magic != PERF_MAGIC2 &&
			 __builtin_bswap64(r->h.magic) != PERF_MAGIC2)) {
		err = len ? bad_file(0, "not a perf.data file (no PERFILE2 magic)") :
			    bad_file(0, "empty file");
		goto fail;
	}
	if (len < sizeof(r->h)) {
		err = bad_file(len, "the file ends inside its header (%zu of %zu bytes)", len,
			       sizeof(r->h));
		goto fail;
	}
	memcpy(&r->h, buf, sizeof(r->h));
	if (r->h.magic != PERF_MAGIC2) {
		swap_file_header(&r->h);
		r->swap = true;
	}
	if (r->h.size < sizeof(r->h)) {
		err = bad_file(8, "header size %llu is under perf's %zu",
			       (unsigned long long)r->h.size, sizeof(r->h));
		goto fail;
	}
	if (r->h.data.offset > len) {	/* perf refuses it too: nothing to read */
		err = bad_file(40, "the data section's offset %#llx is past the file's end (%#zx)",
			       (unsigned long long)r->h.data.offset, len);
		goto fail;
	}
	err = read_attrs(r);
	if (err)
		goto fail;
	if (r->swap)
		swap_features(r);
	return r;
fail:
	tally_data_reader__close(r);
	errno = -err;
	return NULL;
}

/* The records perf's pipe format puts ahead of the data (attrs, features, names). */
static bool pipe_header_record(uint32_t type)
{
	switch (type) {
	case TALLY_RECORD_HEADER_ATTR: case TALLY_RECORD_HEADER_EVENT_TYPE:
	case TALLY_RECORD_HEADER_TRACING_DATA: case TALLY_RECORD_HEADER_BUILD_ID:
	case TALLY_RECORD_ID_INDEX: case TALLY_RECORD_AUXTRACE_INFO: case TALLY_RECORD_THREAD_MAP:
	case TALLY_RECORD_CPU_MAP: case TALLY_RECORD_STAT_CONFIG: case TALLY_RECORD_EVENT_UPDATE:
	case TALLY_RECORD_TIME_CONV: case TALLY_RECORD_HEADER_FEATURE:
		return true;
	default:
		return false;
	}
}

/*
 * How far the header records of a pipe stream reach in buf[0, len):
 * *end past the last whole one; true once a data record (or a bad size)
 * shows they are over.
 */
static bool pipe_prefix(const uint8_t *buf, size_t len, size_t *end, bool swap)
{
	size_t pos = 16;

	while (len - pos >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		size_t need;

		memcpy(&h, buf + pos, sizeof(h));
		if (swap)
			tally__swap_header(&h);
		if (h.size < sizeof(h) || !pipe_header_record(h.type))
			break;
		need = h.size;
		if (h.type == TALLY_RECORD_HEADER_TRACING_DATA && h.size >= 12) {
			uint32_t tsz;

			memcpy(&tsz, buf + pos + 8, 4);
			if (swap)
				tsz = __builtin_bswap32(tsz);
			need += ((size_t)tsz + 7) & ~(size_t)7;	/* its blob follows it */
		}
		if (need > len - pos) {
			*end = pos;
			return false;	/* a header record not all here yet */
		}
		pos += need;
	}
	*end = pos;
	return len - pos >= sizeof(struct perf_event_header);
}

/*
 * "-": stdin. perf's pipe format is streamed: its header records are
 * read first and kept; the data records are read as the walk goes, a
 * window at a time, so a stream of any length takes the window's memory.
 * A whole file on stdin (not the pipe format) is read into memory.
 */
static struct tally_data_reader *open_stream(int fd)
{
	size_t cap = 1 << 20, len = 0, end = 0;
	uint8_t *buf = malloc(cap);
	struct tally_data_reader *r;
	bool eof = false, stream = false, swap = false;
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (len >= 16 && !stream) {
			uint64_t hd[2];

			memcpy(hd, buf, sizeof(hd));
			swap = __builtin_bswap64(hd[0]) == PERF_MAGIC2 && __builtin_bswap64(hd[1]) == 16;
			stream = swap || (hd[0] == PERF_MAGIC2 && hd[1] == 16);
		}
		if (eof || (stream && pipe_prefix(buf, len, &end, swap)))
			break;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			errno = e;
			return NULL;
		}
		if (!n)
			eof = true;
		len += (size_t)n;
	}
	r = tally_data_reader__open_mem(buf, len);
	if (!r) {
		int e = errno;

		free(buf);
		errno = e;
		return NULL;
	}
	r->owned = buf;
	r->stream_fd = stream && !eof ? fd : -1;
	return r;
}

/* path/data.N mapped as part N; 1 when there is no such file. */
static int map_part(struct tally_data_reader *r, const char *path, int n)
{
	char name[4096];
	struct stat st;
	void *p = NULL, *parts;
	int fd, err;

	if (snprintf(name, sizeof(name), "%s/data.%d", path, n) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	if (fstat(fd, &st) < 0 ||
	    (st.st_size && (p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)) {
		err = errno;
		close(fd);
		return -err;
	}
	close(fd);
	if (!(parts = realloc(r->parts, (r->nr_parts + 1) * sizeof(*r->parts)))) {
		if (p)
			munmap(p, st.st_size);
		return -ENOMEM;
	}
	r->parts = parts;
	if (p)
		tally__asan_unpoison(p, st.st_size);
	r->parts[r->nr_parts].buf = p;
	r->parts[r->nr_parts++].len = st.st_size;
	return 0;
}

/* perf record --threads' directory: the header in path/data, records in data.0, data.1... */
static struct tally_data_reader *open_dir(const char *path)
{
	struct tally_data_reader *r;
	char name[4096];
	int err = 0;

	if (snprintf(name, sizeof(name), "%s/data", path) >= (int)sizeof(name)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (!(r = tally_data_reader__open(name)))
		return NULL;
	if (r->pipe || r->swap) {	/* perf writes neither into a directory */
		tally_data_reader__close(r);
		errno = -bad_file(0, "%s is in %s, which perf never writes into a directory", name,
				  r->pipe ? "pipe format" : "the other byte order");
		return NULL;
	}
	for (int n = 0; !err; n++)
		err = map_part(r, path, n);
	if (err < 0) {
		tally_data_reader__close(r);
		errno = -err;
		return NULL;
	}
	return r;
}

/*
 * A file read from disk is read a 2 MiB folio at a time, and a folio of
 * that size is mapped by one page-table entry, not 512: report --sort mem
 * of an 848 MB file read first 0.31 -> 0.25 s, and 0.080 s when a writer
 * had left the file in 4 KiB pages against 0.042 s once it was in large
 * folios. Advice: where the kernel has no transparent huge pages, nothing.
 */
static void map_advise(void *p, size_t len)
{
	if (len >= (4u << 20))
		(void)madvise(p, len, MADV_HUGEPAGE);
}

struct tally_data_reader *tally_data_reader__open(const char *path)
{
	struct tally_data_reader *r;
	struct stat st;
	void *p;
	int fd, err;

	open_error_clear();
	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (!strcmp(path, "-"))
		return open_stream(STDIN_FILENO);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return open_dir(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		err = st.st_size == 0 ? -bad_file(0, "empty file") : errno;
		close(fd);
		errno = err;
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	map_advise(p, (size_t)st.st_size);
	tally__asan_unpoison(p, st.st_size);	/* seen when record reads its file back */
	r = tally_data_reader__open_mem(p, st.st_size);
	if (!r) {
		err = errno;
		munmap(p, st.st_size);
		errno = err;
		return NULL;
	}
	r->mapped = true;
	r->map = p;
	r->map_len = (size_t)st.st_size;
	return r;
}

struct tally_data_reader *tally_data_reader__open_fd(int fd)
{
	struct tally_data_reader *r;
	struct stat st;
	void *p;

	open_error_clear();
	if (fd < 0 || fstat(fd, &st) < 0) {
		errno = fd < 0 ? EINVAL : errno;
		return NULL;
	}
	if (!S_ISREG(st.st_mode))
		return open_stream(fd);	/* a pipe: streamed as stdin is */
	if (st.st_size == 0) {
		errno = -bad_file(0, "empty file");
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	map_advise(p, (size_t)st.st_size);
	tally__asan_unpoison(p, st.st_size);
	r = tally_data_reader__open_mem(p, st.st_size);
	if (!r) {
		int err = errno;

		munmap(p, st.st_size);
		errno = err;
		return NULL;
	}
	r->mapped = true;
	r->map = p;
	r->map_len = (size_t)st.st_size;
	return r;
}

void tally_data_reader__close(struct tally_data_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i].ids);
		if (r->names)
			free(r->names[i]);
	}
	free(r->names);
	free(r->attrs);
	free(r->id_index);
	free(r->pnames);
	for (int f = 0; f < 256; f++)
		free(r->sfeat[f]);
	for (size_t i = 0; i < r->nr_pcopies; i++)
		free(r->pcopies[i]);
	free(r->pcopies);
	if (r->fcache && r->fcache_free)
		r->fcache_free(r->fcache);
	if (r->bpf && r->bpf_free)
		r->bpf_free(r->bpf);
	free(r->owned);
	if (r->mapped)
		munmap((void *)r->buf, r->len);
	for (int i = 0; i < r->nr_parts; i++)
		if (r->parts[i].len)
			munmap((void *)r->parts[i].buf, r->parts[i].len);
	free(r->parts);
	free(r);
}
