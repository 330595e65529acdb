// SPDX-License-Identifier: MIT
/*
 * What a reader says of its file besides reading the records: its attrs,
 * the feature sections (brought to host order for a swapped file), the
 * events' names, where the parts lie, the pages of records done with.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tally/data_read.h>
#include "data_read_internal.h"
#include "data_reader.h"
#include "internal.h"

int tally_data_reader__feature(const struct tally_data_reader *r, int feat,
			       const void **data, size_t *len)
{
	const void *raw;
	int err = tally__data_raw_feature(r, feat, &raw, len);

	if (err)
		return err;
	*data = r->swap ? r->sfeat[feat] : raw;
	return *data ? 0 : -ENOMEM;
}

int tally__data_raw_feature(const struct tally_data_reader *r, int feat, const void **data, size_t *len)
{
	uint64_t table, off;
	int k = 0;

	if (r && r->pipe && feat > 0 && feat < 256) {
		if (!r->pfeat[feat].p)
			return -ENOENT;
		*data = r->pfeat[feat].p;
		*len = r->pfeat[feat].len;
		return 0;
	}
	if (!r || feat <= 0 || feat >= 256 || !(r->h.adds_features[feat / 64] >> (feat % 64) & 1))
		return -ENOENT;
	/* the table follows the data: one {offset, size} per set bit, in bit order */
	for (int b = 1; b < feat; b++)
		k += (int)(r->h.adds_features[b / 64] >> (b % 64) & 1);
	table = r->h.data.offset + r->h.data.size;
	off = table + (uint64_t)k * 16;
	if (table < r->h.data.offset || !in_file(r, off, 16))
		return -ENOENT;
	{
		struct section sec;

		memcpy(&sec, r->buf + off, sizeof(sec));
		if (r->swap) {
			sec.offset = __builtin_bswap64(sec.offset);
			sec.size = __builtin_bswap64(sec.size);
		}
		if (!in_file(r, sec.offset, sec.size))
			return -ENOENT;
		*data = r->buf + sec.offset;
		*len = (size_t)sec.size;
	}
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string, ids. */
static void read_names(struct tally_data_reader *r)
{
	const uint8_t *p;
	size_t len, pos = 8;
	uint32_t nr, asz;

	r->names_read = true;
	if (r->nr_pnames && r->nr_attrs) {
		r->names = calloc((size_t)r->nr_attrs, sizeof(*r->names));
		for (size_t i = 0; r->names && i < r->nr_pnames; i++) {
			int idx = tally_data_reader__attr_of_id(r, r->pnames[i].id);

			if (idx >= 0 && !r->names[idx])
				r->names[idx] = strdup(r->pnames[i].name);
		}
		return;
	}
	if (tally_data_reader__feature(r, TALLY_HEADER_EVENT_DESC, (const void **)&p, &len) || len < 8)
		return;
	memcpy(&nr, p, 4);
	memcpy(&asz, p + 4, 4);
	if (nr > 4096 || !r->nr_attrs)
		return;
	r->names = calloc((size_t)r->nr_attrs, sizeof(*r->names));
	if (!r->names)
		return;
	for (uint32_t i = 0; i < nr; i++) {
		struct perf_event_attr a = { 0 };
		uint32_t nids, slen;
		uint64_t id = 0;
		const char *name;
		int idx = -1;

		if (len - pos < (size_t)asz + 8)
			return;
		memcpy(&a, p + pos, asz < sizeof(a) ? asz : sizeof(a));
		pos += asz;
		memcpy(&nids, p + pos, 4);
		memcpy(&slen, p + pos + 4, 4);
		pos += 8;
		if (slen > len - pos || (uint64_t)nids * 8 > len - pos - slen)
			return;
		name = (const char *)p + pos;
		pos += slen;
		if (nids)
			memcpy(&id, p + pos, 8);
		pos += (size_t)nids * 8;
		idx = nids ? tally_data_reader__attr_of_id(r, id) : -1;
		if (idx < 0 && i < (uint32_t)r->nr_attrs)
			idx = (int)i;	/* files without ids list events in attr order */
		if (idx >= 0 && !r->names[idx] && memchr(name, 0, slen))
			r->names[idx] = strdup(name);
	}
}

const char *tally_data_reader__event_name(struct tally_data_reader *r, int idx)
{
	if (!r || idx < 0 || idx >= r->nr_attrs)
		return NULL;
	if (!r->names_read) {
		read_names(r);
		if (!r->names)
			r->names = calloc((size_t)r->nr_attrs, sizeof(*r->names));
		/* no name given (no EVENT_DESC, a cut file): the attr's own, as perf derives it */
		for (int i = 0; r->names && i < r->nr_attrs; i++)
			if (!r->names[i])
				r->names[i] = tally__perf_attr_name(tally_data_reader__attr(r, i));
	}
	return r->names ? r->names[idx] : NULL;
}

int tally_data_reader__file_info(const struct tally_data_reader *r,
				 struct tally_data_file_info *out)
{
	if (!r || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->file_size = r->len;
	if (r->pipe) {
		for (int f = 1; f < 256; f++)
			if (r->pfeat[f].p)
				out->features[f / 64] |= 1ULL << (f % 64);
		return 0;
	}
	out->data_offset = r->h.data.offset;
	out->data_size = r->h.data.size;
	out->feat_offset = r->h.data.offset + r->h.data.size;
	memcpy(out->features, r->h.adds_features, sizeof(out->features));
	return 0;
}

bool tally_data_reader__is_pipe(const struct tally_data_reader *r)
{
	return r && r->pipe;
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

static int id_attr_cmp(const void *pa, const void *pb)
{
	const struct id_attr *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->attr > b->attr) - (a->attr < b->attr);
}

int tally__data_reader_index_ids(struct tally_data_reader *r)
{
	size_t n = 0;
	struct id_attr *v;

	for (int i = 0; i < r->nr_attrs; i++)
		n += r->attrs[i].nr_ids;
	free(r->id_index);
	r->id_index = NULL;
	r->nr_id_index = 0;
	if (!n)
		return 0;
	if (!(v = malloc(n * sizeof(*v))))
		return -ENOMEM;
	n = 0;
	for (int i = 0; i < r->nr_attrs; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++)
			v[n++] = (struct id_attr){ .id = r->attrs[i].ids[j], .attr = i };
	qsort(v, n, sizeof(*v), id_attr_cmp);
	r->id_index = v;
	r->nr_id_index = n;
	return 0;
}

int tally_data_reader__attr_of_id(const struct tally_data_reader *r,
				  uint64_t id)
{
	if (r->nr_id_index) {
		/* the first attr holding id, as the walk below finds it */
		size_t lo = 0, hi = r->nr_id_index;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (r->id_index[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < r->nr_id_index && r->id_index[lo].id == id ? r->id_index[lo].attr
									: -ENOENT;
	}
	for (int i = 0; i < r->nr_attrs; i++)
		for (size_t j = 0; j < r->attrs[i].nr_ids; j++)
			if (r->attrs[i].ids[j] == id)
				return i;
	return -ENOENT;
}

uint64_t tally__data_reader_nr_compressed(const struct tally_data_reader *r)
{
	return r ? r->nr_compressed : 0;
}

void tally__data_reader_caller_releases(struct tally_data_reader *r)
{
	if (r)
		r->caller_releases = true;
}

#define EXTENT ((uintptr_t)2 << 20)

void tally__data_reader_release(struct tally_data_reader *r, const void *lo, const void *hi)
{
	const uint8_t *a = lo, *b = hi, *base = r->map;
	size_t len = r->map_len;

	if (!r->mapped || a >= b)
		return;
	if (a >= base && b <= base + len) {
		/*
		 * The file's mapping up to a watermark, whole 2 MiB extents:
		 * the file's large folios are mapped a PMD at a time, and a
		 * range ending inside one split it first, with a TLB flush
		 * that interrupted the other thread's CPU (a page at a time,
		 * 424 flushes in an 848 MB file took a tenth of report
		 * --sort mem). A record still queued below the mark faults
		 * back from the page cache.
		 */
		uintptr_t from = r->dropped_to, to = (uintptr_t)b & ~(EXTENT - 1);

		if (!from)
			from = ((uintptr_t)base + 4095) & ~(uintptr_t)4095;
		if (to > from) {
			madvise((void *)from, to - from, MADV_DONTNEED);
			r->dropped_to = to;
		}
		return;
	}
	for (int i = 0; i < r->nr_parts && !(a >= base && b <= base + len); i++) {
		base = r->parts[i].buf;
		len = r->parts[i].len;
	}
	if (a < base || b > base + len)
		return;
	/* a directory's part: whole pages (a page shared with a later record comes back) */
	uintptr_t from = (uintptr_t)a & ~(uintptr_t)4095;
	uintptr_t to = ((uintptr_t)b + 4095) & ~(uintptr_t)4095;

	madvise((void *)from, to - from, MADV_DONTNEED);
}

bool tally_data_reader__record_stays(const struct tally_data_reader *r,
				     const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;

	if (!r || !r->mapped || r->swap)
		return false;
	for (int i = 0; i < r->nr_parts; i++)
		if (p >= r->parts[i].buf && p < r->parts[i].buf + r->parts[i].len)
			return true;
	return p >= r->buf && p < r->buf + r->len;
}

const struct tally_data_error *
tally_data_reader__error(const struct tally_data_reader *r)
{
	return r->has_error ? &r->error : NULL;
}
