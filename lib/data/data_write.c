// SPDX-License-Identifier: MIT
/*
 * The perf.data writer: file mode (header, ids, attrs, data, features,
 * header patched at the end) and pipe mode (header records), zstd
 * COMPRESSED records. Layout and traps: docs perf-data-format.md. The
 * features' payloads: data_write_feat.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_write.h>
#include "internal.h"
#include "data_write_internal.h"
#include "sc_strings_feat.h"
#include "zstd_wrap.h"

#define HDR_SIZE	104
#define ZCHUNK		(256 * 1024)	/* data bytes per compressed frame */
#define ZREC_MAX	65528		/* a COMPRESSED record, header included */
#define MARK_STEP	4096

/* ---- the writer ---- */

static char *dupstr(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct tally_data_writer *tally_data_writer__new_fd(int fd, const struct tally_data_writer_opts *opts)
{
	struct tally_data_writer *w;
	const char *const *argv;
	int argc;

	if (fd < 0 || !TALLY_OPTS_VALID(opts, tally_data_writer_opts))
		return tally__err_ptr(EINVAL);
	w = calloc(1, sizeof(*w));
	if (!w)
		return tally__err_ptr(ENOMEM);
	w->fd = fd;
	w->time_off = -1;
	w->pipe = TALLY_OPTS_GET(opts, pipe, false);
	w->level = TALLY_OPTS_GET(opts, zstd_level, 0);
	argv = TALLY_OPTS_GET(opts, cmdline, NULL);
	argc = TALLY_OPTS_GET(opts, cmdline_nr, 0);
	if (w->level > 22)
		w->level = 22;
	if (argv && argc > 0) {
		w->cmdline = calloc((size_t)argc, sizeof(char *));
		if (!w->cmdline)
			goto nomem;
		for (int i = 0; i < argc; i++)
			if (!(w->cmdline[w->cmdline_nr++] = dupstr(argv[i] ? argv[i] : "")))
				goto nomem;
	}
	if (w->level > 0 && !(w->z = tally__zstd_new(w->level)))
		goto nomem;
	return w;
nomem:
	tally_data_writer__free(w);
	return tally__err_ptr(ENOMEM);
}

void tally_data_writer__free(struct tally_data_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (size_t i = 0; i < w->nr_groups; i++)
		free(w->groups[i].name);
	free(w->groups);
	for (size_t i = 0; i < w->nr_bids; i++)
		free(w->bids[i].name);
	free(w->bids);
	for (int i = 0; i < w->cmdline_nr; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	free(w->marks);
	tally__buf_free(&w->scs);
	tally__zstd_free(w->z);
	tally__buf_free(&w->zin);
	free(w->zout);
	free(w);
}

uint64_t tally_data_writer__bytes(const struct tally_data_writer *w)
{
	return w ? w->bytes : 0;
}

uint64_t tally_data_writer__samples(const struct tally_data_writer *w)
{
	return w ? w->samples : 0;
}

uint64_t tally_data_writer__uncompressed(const struct tally_data_writer *w)
{
	return w ? w->uncompressed : 0;
}

uint64_t tally_data_writer__compressed(const struct tally_data_writer *w)
{
	return w ? w->zbytes : 0;
}

int tally_data_writer__add_group(struct tally_data_writer *w, int leader, int nr, const char *name)
{
	struct wgroup *g;

	if (!w || leader < 0 || nr < 2 || nr > INT32_MAX - leader)
		return tally__err(EINVAL);
	if (w->begun)
		return tally__err(EBUSY);
	for (size_t i = 0; i < w->nr_groups; i++)
		if (leader < w->groups[i].leader + w->groups[i].nr &&
		    w->groups[i].leader < leader + nr)
			return tally__err(EINVAL);	/* an attr is in one group */
	if (!(g = tally__reallocarray(w->groups, w->nr_groups + 1, sizeof(*g))))
		return tally__err(ENOMEM);
	w->groups = g;
	g += w->nr_groups;
	*g = (struct wgroup){ .leader = leader, .nr = nr };
	if (name && !(g->name = strdup(name)))
		return tally__err(ENOMEM);
	w->nr_groups++;
	return 0;
}

int tally_data_writer__add_attr(struct tally_data_writer *w, const struct perf_event_attr *attr,
				const uint64_t *ids, size_t nr_ids, const char *name)
{
	struct wattr *a;
	size_t sz;

	if (!w || !attr || (nr_ids && !ids))
		return tally__err(EINVAL);
	if (w->begun)
		return tally__err(EBUSY);
	a = tally__reallocarray(w->attrs, w->nr_attrs + 1, sizeof(*a));
	if (!a)
		return tally__err(ENOMEM);
	w->attrs = a;
	a += w->nr_attrs;
	memset(a, 0, sizeof(*a));
	sz = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	if (sz > sizeof(a->attr))
		sz = sizeof(a->attr);
	memcpy(&a->attr, attr, sz);
	a->attr.size = FILE_ATTR_SIZE;
	if (nr_ids) {
		a->ids = tally__calloc(nr_ids, sizeof(uint64_t));
		if (!a->ids)
			return tally__err(ENOMEM);
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
	}
	a->nr_ids = nr_ids;
	if (name && !(a->name = strdup(name))) {
		free(a->ids);
		return tally__err(ENOMEM);
	}
	w->nr_attrs++;
	return 0;
}

/* Every byte or the error; partial writes are counted in bytes. */
static int out_raw(struct tally_data_writer *w, const void *p, size_t n)
{
	const unsigned char *c = p;

	if (w->err)
		return -w->err;
	while (n) {
		ssize_t r = write(w->fd, c, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			w->err = errno;
			return -w->err;
		}
		if (r == 0) {
			w->err = EIO;
			return -EIO;
		}
		w->bytes += (uint64_t)r;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

static void add_mark(struct tally_data_writer *w, uint64_t off)
{
	uint64_t last = w->nr_marks ? w->marks[w->nr_marks - 1].off : w->data_off;

	if (w->pipe || off - last < MARK_STEP)
		return;
	if (w->nr_marks == w->cap_marks) {
		size_t cap = w->cap_marks ? w->cap_marks * 2 : 64;
		struct mark *m = tally__reallocarray(w->marks, cap, sizeof(*m));

		if (!m)
			return;	/* fewer marks: only a coarser cut on a full disk */
		w->marks = m;
		w->cap_marks = cap;
	}
	w->marks[w->nr_marks++] = (struct mark){ off, w->samples };
}

/* A whole unit (records, nsamples of them samples) went out: remember the boundary. */
static void whole(struct tally_data_writer *w, uint64_t nsamples)
{
	w->samples += nsamples;
	w->good = w->bytes;
	add_mark(w, w->good);
}

/* SAMPLE records among the whole records of buf[0, len). */
static uint64_t buf_samples(const unsigned char *buf, size_t len)
{
	struct perf_event_header h;
	uint64_t n = 0;

	for (size_t at = 0; at + sizeof(h) <= len; at += h.size) {
		memcpy(&h, buf + at, sizeof(h));
		if (h.size < sizeof(h) || at + h.size > len)
			break;
		n += h.type == PERF_RECORD_SAMPLE;
	}
	return n;
}

static int zflush(struct tally_data_writer *w)
{
	size_t off = 0;
	int err = 0;

	while (off < w->zin.len && !err) {
		size_t end = off;
		ssize_t n;

		/* cut at record boundaries, ZCHUNK at most (one record more if huge) */
		while (end + sizeof(struct perf_event_header) <= w->zin.len) {
			struct perf_event_header h;

			memcpy(&h, w->zin.p + end, sizeof(h));
			if (h.size < sizeof(h) || end + h.size > w->zin.len) {
				end = w->zin.len;
				break;
			}
			if (end > off && end + h.size - off > ZCHUNK)
				break;
			end += h.size;
		}
		if (end == off)
			end = w->zin.len;
		if (tally__zstd_bound(end - off) > w->zout_cap) {
			size_t cap = tally__zstd_bound(end - off);
			void *p = realloc(w->zout, cap);

			if (!p)
				return tally__err(ENOMEM);
			w->zout = p;
			w->zout_cap = cap;
		}
		n = tally__zstd_compress(w->z, w->zin.p + off, end - off, w->zout, w->zout_cap);
		if (n < 0)
			return (int)n;
		if ((uint64_t)(end - off) > w->zmax_chunk)
			w->zmax_chunk = end - off;
		for (size_t done = 0; done < (size_t)n && !err;) {
			size_t piece = (size_t)n - done;
			struct perf_event_header h = { .type = TALLY_RECORD_COMPRESSED };

			if (piece > ZREC_MAX - sizeof(h))
				piece = ZREC_MAX - sizeof(h);
			h.size = (uint16_t)(piece + sizeof(h));
			err = out_raw(w, &h, sizeof(h));
			if (!err)
				err = out_raw(w, w->zout + done, piece);
			w->zbytes += h.size;
			done += piece;
		}
		if (!err)
			whole(w, buf_samples(w->zin.p + off, end - off));
		off = end;
	}
	w->zin.len = 0;
	return err;
}

/* Byte `at` of the iovec stream. */
static unsigned char iov_byte(const struct iovec *iov, int n, uint64_t at)
{
	for (int i = 0; i < n; i++) {
		if (at < iov[i].iov_len)
			return ((const unsigned char *)iov[i].iov_base)[at];
		at -= iov[i].iov_len;
	}
	return 0;
}

/* n bytes of the iovec stream from `at` into out; false past its end. */
static bool iov_copy(const struct iovec *iov, int n, uint64_t at, void *out, size_t len)
{
	unsigned char *o = out;

	for (int i = 0; i < n && len; i++) {
		size_t k;

		if (at >= iov[i].iov_len) {
			at -= iov[i].iov_len;
			continue;
		}
		k = iov[i].iov_len - at < len ? iov[i].iov_len - at : len;
		memcpy(o, (const unsigned char *)iov[i].iov_base + at, k);
		o += k;
		len -= k;
		at = 0;
	}
	return len == 0;
}

/* SAMPLE records of the iovec stream. */
/*
 * One walk over the records: the first and last sample time (the
 * SAMPLE_TIME feature) and the count of samples, returned.
 */
static uint64_t sample_times(struct tally_data_writer *w, const struct iovec *iov, int n)
{
	struct perf_event_header h;
	uint64_t at = 0, t, k = 0;

	while (iov_copy(iov, n, at, &h, sizeof(h)) && h.size >= sizeof(h)) {
		k += h.type == PERF_RECORD_SAMPLE;
		if (h.type == PERF_RECORD_SAMPLE && w->time_off >= 0 &&
		    h.size >= sizeof(h) + (size_t)w->time_off + 8 &&
		    iov_copy(iov, n, at + sizeof(h) + (size_t)w->time_off, &t, 8)) {
			if (!w->first_time || t < w->first_time)
				w->first_time = t;
			if (t > w->last_time)
				w->last_time = t;
		}
		at += h.size;
	}
	return k;
}

/*
 * A write failed after `done` bytes of the records in iov went out: the
 * file keeps every record that went out whole.
 */
static void keep_whole(struct tally_data_writer *w, const struct iovec *iov, int n, uint64_t done)
{
	uint64_t at = 0, start = w->good;

	for (;;) {
		uint16_t size = (uint16_t)(iov_byte(iov, n, at + 6) |
					   iov_byte(iov, n, at + 7) << 8);
		struct perf_event_header h;

		if (size < 8 || at + size > done || !iov_copy(iov, n, at, &h, sizeof(h)))
			break;
		w->samples += h.type == PERF_RECORD_SAMPLE;
		at += size;
		add_mark(w, start + at);
	}
	w->good = start + at;	/* finish truncates the partial record after it */
}

int tally_data_writer__writev(struct tally_data_writer *w, const struct iovec *iov, int n)
{
	uint64_t before, nsamples;
	int err = 0;

	if (!w || (n && !iov) || n < 0)
		return tally__err(EINVAL);
	if (!w->begun || w->finished)
		return tally__err(EINVAL);
	if (w->err)
		return tally__err(w->err);
	for (int i = 0; i < n; i++)
		w->uncompressed += iov[i].iov_len;
	nsamples = sample_times(w, iov, n);
	if (w->z) {	/* counted as the compressed records reach the file (zflush) */
		for (int i = 0; i < n; i++)
			tally__buf_add(&w->zin, iov[i].iov_base, iov[i].iov_len);
		if (w->zin.oom) {
			w->zin.oom = false;
			w->zin.len = 0;
			return tally__err(ENOMEM);
		}
		if (w->zin.len >= ZCHUNK)
			err = zflush(w);
		return err < 0 ? tally__err(-err) : 0;
	}
	before = w->bytes;
	for (int i = 0; i < n && !err; i++)
		err = out_raw(w, iov[i].iov_base, iov[i].iov_len);
	if (err) {
		if (!w->pipe && w->good == before)
			keep_whole(w, iov, n, w->bytes - before);
		return tally__err(-err);
	}
	whole(w, nsamples);
	return 0;
}

int tally_data_writer__write(struct tally_data_writer *w, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return tally_data_writer__writev(w, &iov, 1);
}

int tally_data_writer__finished_round(struct tally_data_writer *w)
{
	struct perf_event_header h = { .type = TALLY_RECORD_FINISHED_ROUND, .size = sizeof(h) };
	int err;

	if (!w || !w->begun || w->finished)
		return tally__err(EINVAL);
	if (w->z && w->zin.len && (err = zflush(w)) < 0)
		return tally__err(-err);
	err = out_raw(w, &h, sizeof(h));
	if (err)
		return tally__err(-err);
	whole(w, 0);
	return 0;
}

int tally_data_writer__add_build_id(struct tally_data_writer *w, int32_t pid, uint16_t misc,
				    const uint8_t *id, size_t id_len, const char *filename)
{
	struct wbid *b;

	if (!w || !id || !filename || !id_len || id_len > 20 || w->finished)
		return tally__err(EINVAL);
	b = tally__reallocarray(w->bids, w->nr_bids + 1, sizeof(*b));
	if (!b)
		return tally__err(ENOMEM);
	w->bids = b;
	b += w->nr_bids;
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->misc = misc;
	memcpy(b->id, id, id_len);
	b->len = (uint8_t)id_len;
	if (!(b->name = strdup(filename)))
		return tally__err(ENOMEM);
	w->nr_bids++;
	return 0;
}

int tally_data_writer__add_sc_string(struct tally_data_writer *w, const struct tally_sc_string *s)
{
	size_t len;
	int err;

	if (!w || !s || w->finished)
		return tally__err(EINVAL);
	if (w->pipe)
		return tally__err(EOPNOTSUPP);
	len = w->scs.len;
	err = tally__sc_string_put(&w->scs, s);
	if (!err && w->scs.oom) {
		/* the strings so far stay whole */
		w->scs.oom = false;
		err = -ENOMEM;
	}
	if (err) {
		w->scs.len = len;
		return tally__err(-err);
	}
	w->nr_scs++;
	return 0;
}

/* ---- file header ---- */

struct file_header {
	uint64_t magic, size, attr_size;
	uint64_t attrs_off, attrs_size, data_off, data_size, evt_off, evt_size;
	uint64_t features[4];
};

#define MAGIC2 0x32454c4946524550ULL

static int full_pwrite(struct tally_data_writer *w, const void *p, size_t n, uint64_t off)
{
	const unsigned char *c = p;

	while (n) {
		ssize_t r = pwrite(w->fd, c, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -(r < 0 ? errno : EIO);
		w->bytes += (uint64_t)r;
		c += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

static int begin_file(struct tally_data_writer *w)
{
	struct tally__buf b = { 0 };
	struct file_header h = { 0 };
	uint64_t off = HDR_SIZE;
	int err;
	off_t pos = lseek(w->fd, 0, SEEK_CUR);

	if (pos < 0)
		return tally__err(errno);	/* ESPIPE: a pipe wants opts.pipe */
	if (pos != 0)
		return tally__err(EINVAL);
	for (size_t i = 0; i < w->nr_attrs; i++)
		off += w->attrs[i].nr_ids * 8;
	w->attrs_off = off;
	w->data_off = off + w->nr_attrs * (FILE_ATTR_SIZE + 16);
	h.magic = MAGIC2;
	h.size = HDR_SIZE;
	h.attr_size = FILE_ATTR_SIZE + 16;
	h.attrs_off = w->attrs_off;
	h.attrs_size = w->nr_attrs * (FILE_ATTR_SIZE + 16);
	h.data_off = w->data_off;
	tally__buf_add(&b, &h, sizeof(h));
	for (size_t i = 0; i < w->nr_attrs; i++)
		tally__buf_add(&b, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	off = HDR_SIZE;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		uint64_t ids[2] = { w->attrs[i].nr_ids ? off : 0, w->attrs[i].nr_ids * 8 };

		tally__put_attr(&b, &w->attrs[i].attr);
		tally__buf_add(&b, ids, sizeof(ids));
		off += w->attrs[i].nr_ids * 8;
	}
	if (b.oom) {
		tally__buf_free(&b);
		return tally__err(ENOMEM);
	}
	err = out_raw(w, b.p, b.len);
	tally__buf_free(&b);
	if (err)
		return tally__err(-err);
	w->good = w->bytes;
	return 0;
}

/* Features perf sends as HEADER_FEATURE in a pipe (its "synthesize" ones). */
static const int pipe_feats[] = {
	TALLY_HEADER_HOSTNAME, TALLY_HEADER_OSRELEASE, TALLY_HEADER_VERSION, TALLY_HEADER_ARCH,
	TALLY_HEADER_NRCPUS, TALLY_HEADER_CPUDESC, TALLY_HEADER_CPUID, TALLY_HEADER_TOTAL_MEM,
	TALLY_HEADER_CMDLINE, TALLY_HEADER_EVENT_DESC, TALLY_HEADER_CPU_TOPOLOGY,
	TALLY_HEADER_NUMA_TOPOLOGY, TALLY_HEADER_GROUP_DESC, TALLY_HEADER_CLOCKID,
	TALLY_HEADER_COMPRESSED, TALLY_HEADER_CLOCK_DATA,
};

static void put_header(struct tally__buf *b, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };

	tally__buf_add(b, &h, sizeof(h));
}

static int begin_pipe(struct tally_data_writer *w)
{
	struct tally__buf b = { 0 }, f = { 0 };
	uint64_t head[2] = { MAGIC2, 16 };
	int err;

	tally__buf_add(&b, head, sizeof(head));
	for (size_t i = 0; i < w->nr_attrs; i++) {
		size_t sz = 8 + FILE_ATTR_SIZE + w->attrs[i].nr_ids * 8;

		if (sz > 0xffff) {
			tally__buf_free(&b);
			return tally__err(E2BIG);
		}
		put_header(&b, TALLY_RECORD_HEADER_ATTR, sz);
		tally__put_attr(&b, &w->attrs[i].attr);
		tally__buf_add(&b, w->attrs[i].ids, w->attrs[i].nr_ids * 8);
	}
	for (size_t i = 0; i < ARRAY_SIZE(pipe_feats); i++) {
		f.len = 0;
		if (!tally__data_write_feature(w, pipe_feats[i], &f) || f.oom || 16 + f.len > 0xffff)
			continue;
		put_header(&b, TALLY_RECORD_HEADER_FEATURE, 16 + f.len);
		tally__buf_u64(&b, (uint64_t)pipe_feats[i]);
		tally__buf_add(&b, f.p, f.len);
	}
	put_header(&b, TALLY_RECORD_HEADER_FEATURE, 16);
	tally__buf_u64(&b, TALLY_HEADER_LAST_FEATURE);
	f.len = 0;
	if (tally__data_write_feature(w, TALLY_HEADER_TRACING_DATA, &f) && !f.oom) {
		size_t al = (f.len + 7) & ~(size_t)7;

		put_header(&b, TALLY_RECORD_HEADER_TRACING_DATA, 16);
		tally__buf_u32(&b, (uint32_t)al);
		tally__buf_zero(&b, 4);
		tally__buf_add(&b, f.p, f.len);
		tally__buf_zero(&b, al - f.len);
	}
	tally__buf_free(&f);
	/* names: EVENT_UPDATE NAME with the evsel's first id */
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct wattr *a = &w->attrs[i];
		size_t n;

		if (!a->name || !a->nr_ids)
			continue;
		n = (strlen(a->name) + 1 + 7) & ~(size_t)7;
		put_header(&b, TALLY_RECORD_EVENT_UPDATE, 24 + n);
		tally__buf_u64(&b, 2);	/* PERF_EVENT_UPDATE__NAME */
		tally__buf_u64(&b, a->ids[0]);
		tally__buf_add(&b, a->name, strlen(a->name));
		tally__buf_zero(&b, n - strlen(a->name));
	}
	if (b.oom) {
		tally__buf_free(&b);
		return tally__err(ENOMEM);
	}
	err = out_raw(w, b.p, b.len);
	tally__buf_free(&b);
	return err ? tally__err(-err) : 0;
}

int tally_data_writer__begin(struct tally_data_writer *w)
{
	int err;

	if (!w || w->begun)
		return tally__err(EINVAL);
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const uint64_t before = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
		uint64_t st = w->attrs[i].attr.sample_type;
		int off = __builtin_popcountll(st & before) * 8;

		if (!(st & PERF_SAMPLE_TIME) || (i && off != w->time_off)) {
			w->time_off = -1;
			break;
		}
		w->time_off = off;
	}
	err = w->pipe ? begin_pipe(w) : begin_file(w);
	if (!err)
		w->begun = true;
	return err;
}

/* Feature table + payloads at w->good; the bitmap of what was written. */
static int write_features(struct tally_data_writer *w, bool essential, uint64_t bits[4])
{
	/* perf's, then tally's own (bit order: the table is read so) */
	enum { NR_FEATS = TALLY_HEADER_LAST_FEATURE + 1 };
	struct tally__buf payload[NR_FEATS] = { { 0 } };
	struct tally__buf all = { 0 };
	int feats[NR_FEATS], nr = 0, err = 0;
	uint64_t off;

	memset(bits, 0, 4 * sizeof(uint64_t));
	for (int i = 1; i < NR_FEATS; i++) {
		int f = i < TALLY_HEADER_LAST_FEATURE ? i : TALLY_HEADER_SC_STRINGS;

		if (essential && f != TALLY_HEADER_TRACING_DATA && f != TALLY_HEADER_EVENT_DESC &&
		    f != TALLY_HEADER_COMPRESSED)
			continue;
		if (!tally__data_write_feature(w, f, &payload[i]) || payload[i].oom) {
			tally__buf_free(&payload[i]);
			continue;
		}
		feats[nr++] = i;
	}
	off = w->good + (uint64_t)nr * 16;
	for (int i = 0; i < nr; i++) {
		uint64_t sec[2] = { off, payload[feats[i]].len };

		tally__buf_add(&all, sec, sizeof(sec));
		off += payload[feats[i]].len;
	}
	for (int i = 0; i < nr; i++) {
		int f = feats[i] < TALLY_HEADER_LAST_FEATURE ? feats[i] : TALLY_HEADER_SC_STRINGS;

		tally__buf_add(&all, payload[feats[i]].p, payload[feats[i]].len);
		tally__buf_free(&payload[feats[i]]);
		bits[f / 64] |= 1ULL << (f % 64);
	}
	if (all.oom)
		err = -ENOMEM;
	else if (all.len)
		err = full_pwrite(w, all.p, all.len, w->good);
	tally__buf_free(&all);
	if (err)
		memset(bits, 0, 4 * sizeof(uint64_t));
	return err;
}

static int finish_file(struct tally_data_writer *w)
{
	struct file_header h = { 0 };
	uint64_t bits[4];
	int err;

	if (w->err && ftruncate(w->fd, (off_t)w->good) < 0)
		pr_debug("perf.data: truncate: %s\n", strerror(errno));
	err = write_features(w, false, bits);
	if (err && ftruncate(w->fd, (off_t)w->good) == 0) {
		/* a full disk: the features that perf needs, then fewer data to make room */
		err = write_features(w, true, bits);
		for (int tries = 0; err && tries < 8; tries++) {
			uint64_t need = (uint64_t)MARK_STEP << (tries + 2), cut = w->data_off;
			uint64_t kept = 0;

			for (size_t i = w->nr_marks; i-- > 0;)
				if (w->marks[i].off + need <= w->good) {
					cut = w->marks[i].off;
					kept = w->marks[i].samples;
					break;
				}
			if (cut == w->good || ftruncate(w->fd, (off_t)cut) < 0)
				break;
			w->good = cut;
			w->samples = kept;
			err = write_features(w, true, bits);
		}
		if (err && ftruncate(w->fd, (off_t)w->good) < 0)
			pr_debug("perf.data: truncate: %s\n", strerror(errno));
	}
	if (err && !w->err)
		w->err = -err;
	h.magic = MAGIC2;
	h.size = HDR_SIZE;
	h.attr_size = FILE_ATTR_SIZE + 16;
	h.attrs_off = w->attrs_off;
	h.attrs_size = w->nr_attrs * (FILE_ATTR_SIZE + 16);
	h.data_off = w->data_off;
	h.data_size = w->good - w->data_off;
	memcpy(h.features, bits, sizeof(bits));
	err = full_pwrite(w, &h, sizeof(h), 0);
	if (err && !w->err)
		w->err = -err;
	return w->err ? tally__err(w->err) : 0;
}

static int finish_pipe(struct tally_data_writer *w)
{
	struct tally__buf b = { 0 };
	int err;

	for (size_t i = 0; i < w->nr_bids; i++)
		tally__put_build_id(&b, &w->bids[i], TALLY_RECORD_HEADER_BUILD_ID);
	if (b.oom)
		err = -ENOMEM;
	else
		err = out_raw(w, b.p, b.len);
	tally__buf_free(&b);
	if (err && !w->err)
		w->err = -err;
	return w->err ? tally__err(w->err) : 0;
}

int tally_data_writer__finish(struct tally_data_writer *w)
{
	int err;

	if (!w || !w->begun || w->finished)
		return tally__err(EINVAL);
	if (w->z && w->zin.len && !w->err) {
		err = zflush(w);
		if (err && !w->err)
			w->err = -err;
	}
	w->finished = true;
	return w->pipe ? finish_pipe(w) : finish_file(w);
}
