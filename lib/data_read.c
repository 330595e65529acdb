// SPDX-License-Identifier: MIT
/* perf.data reader: header, attrs and ids, records in file order. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tally/data_read.h>

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" */

struct section { uint64_t offset, size; };

struct file_header {
	uint64_t magic, size, attr_size;
	struct section attrs, data, event_types;
	uint64_t adds_features[4];
};

struct rattr {
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr_ids;
};

struct tally_data_reader {
	const uint8_t *buf;
	size_t len;
	bool mapped;
	struct file_header h;
	struct rattr *attrs;
	int nr_attrs;
	struct tally_data_error error;
	bool has_error;
};

/* [off, off+size) inside the file, without overflow. */
static bool in_file(const struct tally_data_reader *r, uint64_t off,
		    uint64_t size)
{
	return off <= r->len && size <= r->len - off;
}

static int read_attrs(struct tally_data_reader *r)
{
	const struct file_header *h = &r->h;
	uint64_t asz = h->attr_size, n;

	/* each entry: attr (attr_size bytes) + ids section */
	if (asz < PERF_ATTR_SIZE_VER0 + 16 || !in_file(r, h->attrs.offset, h->attrs.size) ||
	    h->attrs.size % asz)
		return -EBADMSG;
	n = h->attrs.size / asz;
	if (n > 65536)
		return -EBADMSG;
	r->attrs = calloc(n ? n : 1, sizeof(*r->attrs));
	if (!r->attrs)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = r->buf + h->attrs.offset + i * asz;
		size_t fsz = asz - 16, cp = fsz < sizeof(struct perf_event_attr) ?
					      fsz : sizeof(struct perf_event_attr);
		struct section ids;

		memcpy(&r->attrs[i].attr, p, cp);
		r->attrs[i].attr.size = sizeof(struct perf_event_attr);
		memcpy(&ids, p + fsz, sizeof(ids));
		if (!in_file(r, ids.offset, ids.size) || ids.size % 8)
			return -EBADMSG;
		r->attrs[i].nr_ids = ids.size / 8;
		if (r->attrs[i].nr_ids) {
			r->attrs[i].ids = malloc(ids.size);
			if (!r->attrs[i].ids)
				return -ENOMEM;
			memcpy(r->attrs[i].ids, r->buf + ids.offset, ids.size);
		}
		r->nr_attrs++;
	}
	return 0;
}

struct tally_data_reader *tally_data_reader__open_mem(const void *buf,
						      size_t len)
{
	struct tally_data_reader *r = calloc(1, sizeof(*r));
	int err;

	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->buf = buf;
	r->len = len;
	if (len < sizeof(r->h)) {
		err = -EBADMSG;
		goto fail;
	}
	memcpy(&r->h, buf, sizeof(r->h));
	if (r->h.magic != PERF_MAGIC2) {
		/* byte-swapped files and pipe mode are not read yet */
		err = __builtin_bswap64(r->h.magic) == PERF_MAGIC2 ?
			      -EOPNOTSUPP : -EBADMSG;
		goto fail;
	}
	if (r->h.size < sizeof(r->h)) {
		err = -EBADMSG;
		goto fail;
	}
	err = read_attrs(r);
	if (err)
		goto fail;
	return r;
fail:
	tally_data_reader__close(r);
	errno = -err;
	return NULL;
}

struct tally_data_reader *tally_data_reader__open(const char *path)
{
	struct tally_data_reader *r;
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size == 0) {
		err = st.st_size == 0 ? EBADMSG : errno;
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
	r = tally_data_reader__open_mem(p, st.st_size);
	if (!r) {
		err = errno;
		munmap(p, st.st_size);
		errno = err;
		return NULL;
	}
	r->mapped = true;
	return r;
}

void tally_data_reader__close(struct tally_data_reader *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr_attrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	if (r->mapped)
		munmap((void *)r->buf, r->len);
	free(r);
}

int tally_data_reader__nr_attrs(const struct tally_data_reader *r)
{
	return r->nr_attrs;
}

const struct perf_event_attr *
tally_data_reader__attr(const struct tally_data_reader *r, int idx)
{
	if (idx < 0 || idx >= r->nr_attrs) {
		errno = ENOENT;
		return NULL;
	}
	return &r->attrs[idx].attr;
}

int tally_data_reader__attr_of_id(const struct tally_data_reader *r,
				  uint64_t id)
{
	for (int i = 0; i < r->nr_attrs; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++)
			if (r->attrs[i].ids[j] == id)
				return i;
	return -ENOENT;
}

static void set_error(struct tally_data_reader *r, uint64_t off,
		      uint32_t type, int err, const char *what)
{
	r->has_error = true;
	r->error.offset = off;
	r->error.type = type;
	r->error.err = err;
	snprintf(r->error.msg, sizeof(r->error.msg), "%s at offset %#llx",
		 what, (unsigned long long)off);
}

int tally_data_reader__foreach(struct tally_data_reader *r,
			       tally_data_record_fn fn, void *ctx)
{
	uint64_t off = r->h.data.offset, end;
	/* aligned copy: the mapping is aligned but open_mem buffers may not be */
	union { struct perf_event_header h; uint8_t b[65536]; } *rec;
	int ret = 0;

	r->has_error = false;
	if (off > r->len) {
		set_error(r, off, 0, -ENODATA, "data section past end of file");
		return -ENODATA;
	}
	/* data.size 0 or past EOF: a truncated file, read what is there */
	end = r->h.data.size && in_file(r, off, r->h.data.size) ?
		      off + r->h.data.size : r->len;
	rec = malloc(sizeof(*rec));
	if (!rec)
		return -ENOMEM;
	while (off < end) {
		struct perf_event_header h;
		int idx = -1;

		if (end - off < sizeof(h)) {
			set_error(r, off, 0, -ENODATA, "truncated header");
			ret = -ENODATA;
			break;
		}
		memcpy(&h, r->buf + off, sizeof(h));
		if (h.size < sizeof(h)) {
			set_error(r, off, h.type, -EBADMSG, "bad record size");
			ret = -EBADMSG;
			break;
		}
		if (h.size > end - off) {
			set_error(r, off, h.type, -ENODATA, "truncated");
			ret = -ENODATA;
			break;
		}
		memcpy(rec->b, r->buf + off, h.size);
		if (r->nr_attrs == 1 && h.type == PERF_RECORD_SAMPLE)
			idx = 0;
		ret = fn(ctx, &rec->h, off, idx);
		if (ret)
			break;
		off += h.size;
	}
	free(rec);
	return ret;
}

const struct tally_data_error *
tally_data_reader__error(const struct tally_data_reader *r)
{
	return r->has_error ? &r->error : NULL;
}
