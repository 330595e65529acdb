// SPDX-License-Identifier: MIT
/*
 * A tracepoint sample's fields by name, typed (see tally/trace_fmt.h's
 * tally_tp_reader): the names a command reads are looked up in each
 * event's format once (libtraceevent's tep_find_field), then each sample
 * reads those fields where the format puts them, checked as
 * tally_trace_fmt__fields checks them (every field inside the record, a
 * dynamic one's data too), with no name compared and no format walked
 * per sample: each event's bounds are worked out at its first sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tally/syscalls.h>
#include <tally/trace_fmt.h>
#include "internal.h"
#include "trace_fmt_internal.h"

/*
 * A field the event has, as each sample reads it: where, how long, which
 * kind (no format structure followed per sample).
 */
struct fast_field {
	int i;				/* the reader's name index */
	enum { FF_INT, FF_DYN, FF_ARRAY } kind;
	long off, size;
	bool relative;			/* a __rel_loc: its offset counts from after the field */
};

/*
 * A __data_loc field as each sample checks it: copied from its format
 * (the format's field, followed per sample, was a cache miss each)
 */
struct dyn_field {
	int off, size;
	bool relative;
};

/* One event's fields for the reader's names, NULL where it has none. */
struct ev_fields {
	int id;
	struct fast_field *ff;		/* the names it has, nr_ff of them */
	int nr_ff;
	int mask;			/* bit i: names[i] is one of its fields */
	long end;			/* where its last field ends; -1: a field before 0 */
	struct dyn_field *dyn;		/* its __data_loc fields, whose data is checked too */
	int nr_dyn;
};

struct tally_tp_reader {
	struct tally_trace_fmt *f;
	char **names;
	int nr;
	struct ev_fields *evs;
	size_t nr_evs, cap;
	/*
	 * events found by id, direct-mapped: kmem's four events come
	 * interleaved, a search of the list a sample when only the last was kept
	 */
	struct { int id; unsigned idx1; } found[8];	/* idx1: its index + 1; 0: none */
	long type_off, type_size;	/* common_type, from the first format; size 0: none */
	bool type_known;
	bool type_host;			/* the file's byte order is ours: common_type read in place */
};

struct tally_tp_reader *tally_tp_reader__new(struct tally_trace_fmt *f, const char *const *names,
					      int nr)
{
	struct tally_tp_reader *r;

	if (!f || !names || nr <= 0 || nr > TALLY_TP_READER_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if (!(r = calloc(1, sizeof(*r))) || !(r->names = calloc((size_t)nr, sizeof(*r->names))))
		goto nomem;
	r->f = f;
	r->nr = nr;
	for (int i = 0; i < nr; i++)
		if (!names[i] || !(r->names[i] = strdup(names[i])))
			goto nomem;
	return r;
nomem:
	tally_tp_reader__free(r);
	errno = ENOMEM;
	return NULL;
}

void tally_tp_reader__free(struct tally_tp_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_evs; i++) {
		free(r->evs[i].ff);
		free(r->evs[i].dyn);
	}
	free(r->evs);
	for (int i = 0; r->names && i < r->nr; i++)
		free(r->names[i]);
	free(r->names);
	free(r);
}

/* The event id's fields for the names and its bounds, made at its first sample; NULL: -err. */
static struct ev_fields *fields_of(struct tally_tp_reader *r, int id, int *err)
{
	struct tep_format_field *lists[2];
	struct tep_event *ev;
	struct ev_fields *e;

	unsigned slot = (unsigned)id & 7;

	if (r->found[slot].idx1 && r->found[slot].id == id)
		return &r->evs[r->found[slot].idx1 - 1];
	for (size_t i = 0; i < r->nr_evs; i++)
		if (r->evs[i].id == id) {
			r->found[slot].id = id;
			r->found[slot].idx1 = (unsigned)i + 1;
			return &r->evs[i];
		}
	if (!(ev = tep_find_event(tally__trace_fmt_tep(r->f), id))) {
		*err = -ENOENT;
		return NULL;
	}
	*err = -ENOMEM;
	if (r->nr_evs == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct ev_fields *n = realloc(r->evs, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->evs = n;
		r->cap = cap;
	}
	e = &r->evs[r->nr_evs];
	*e = (struct ev_fields){ .id = id };
	if (!(e->ff = calloc((size_t)r->nr, sizeof(*e->ff))))
		return NULL;
	/* the event's own fields, as tally_trace_fmt__fields lists them (not the common ones) */
	for (int i = 0; i < r->nr; i++) {
		const struct tep_format_field *fl = tep_find_field(ev, r->names[i]);
		struct fast_field *f = &e->ff[e->nr_ff];

		if (!fl)
			continue;
		e->mask |= 1 << i;
		e->nr_ff++;
		*f = (struct fast_field){ .i = i, .off = fl->offset, .size = fl->size,
					  .relative = !!(fl->flags & TEP_FIELD_IS_RELATIVE) };
		if (!(fl->flags & TEP_FIELD_IS_ARRAY))
			f->kind = FF_INT;
		else if (fl->flags & TEP_FIELD_IS_DYNAMIC)
			f->kind = FF_DYN;
		else
			f->kind = FF_ARRAY;
	}
	/* every field, the common ones too, as tally__trace_fields_inside checks them */
	lists[0] = ev->format.common_fields;
	lists[1] = ev->format.fields;
	for (int k = 0; k < 2; k++)
		for (struct tep_format_field *fl = lists[k]; fl; fl = fl->next) {
			struct dyn_field *d;

			if (fl->offset < 0 || fl->size < 0)
				e->end = -1;
			else if (e->end >= 0 && (long)fl->offset + fl->size > e->end)
				e->end = (long)fl->offset + fl->size;
			if (!(fl->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			if (!(d = realloc(e->dyn, ((size_t)e->nr_dyn + 1) * sizeof(*d)))) {
				free(e->ff);
				free(e->dyn);
				return NULL;
			}
			e->dyn = d;
			d[e->nr_dyn++] = (struct dyn_field){
				.off = fl->offset, .size = fl->size,
				.relative = !!(fl->flags & TEP_FIELD_IS_RELATIVE) };
		}
	r->found[slot].id = id;
	r->found[slot].idx1 = (unsigned)++r->nr_evs;
	return e;
}

/* The record's event, its fields all inside it (tally__trace_event_of's checks). */
static struct ev_fields *event_of(struct tally_tp_reader *r, const unsigned char *d, size_t len,
				  int *err)
{
	struct ev_fields *e;
	int id;

	if (!r->type_known) {
		struct tep_event *first = tep_get_first_event(tally__trace_fmt_tep(r->f));
		struct tep_format_field *t = first ? tep_find_common_field(first, "common_type") : NULL;

		r->type_known = true;
		if (t && t->offset >= 0 && t->size > 0) {
			r->type_off = t->offset;
			r->type_size = t->size;
			r->type_host = (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8) &&
				       tep_is_file_bigendian(tally__trace_fmt_tep(r->f)) ==
					       tep_is_local_bigendian(tally__trace_fmt_tep(r->f));
		}
	}
	*err = -ENOENT;
	if (!r->type_size || (size_t)(r->type_off + r->type_size) > len)
		return NULL;
	/* a sample's event: tep_data_type's number without its calls (a sample each) */
	if (r->type_host) {
		id = (int)tally__trace_field_val_at(d + r->type_off, r->type_size);
	} else {
		struct tep_record rec = { .data = (void *)d, .size = (int)len };

		id = tep_data_type(tally__trace_fmt_tep(r->f), &rec);
	}
	if (!(e = fields_of(r, id, err)))
		return NULL;
	*err = -EBADMSG;
	if (e->end < 0 || (size_t)e->end > len)
		return NULL;
	for (int i = 0; i < e->nr_dyn; i++) {
		const struct dyn_field *fl = &e->dyn[i];
		uint32_t loc = 0;
		uint16_t l16;
		long off;

		/*
		 * __data_loc: offset in the low 16 bits, length above (2 bytes:
		 * to the end); its first 4 bytes at most, in the host's order.
		 * Loaded whole: bytes copied one at a time and read back as one
		 * word stalled the load (store forwarding)
		 */
		if (fl->size >= 4) {
			memcpy(&loc, d + fl->off, 4);
		} else if (fl->size == 2) {
			memcpy(&l16, d + fl->off, 2);
			loc = l16;
		} else {
			memcpy(&loc, d + fl->off, (size_t)fl->size);
		}
		off = (long)(loc & 0xffff);
		if (fl->relative)
			off += fl->off + fl->size;
		if ((size_t)off + (fl->size == 2 ? 0 : (loc >> 16)) > len)
			return NULL;
	}
	return e;
}

int tally_tp_reader__read(struct tally_tp_reader *r, const void *raw, size_t len,
			  struct tally_tp_val *out)
{
	const unsigned char *d = raw;
	struct ev_fields *e;
	int err;

	if (!r || !raw || !out || len > INT32_MAX)
		return tally__err(EINVAL);
	if (!(e = event_of(r, d, len, &err)))
		return tally__err(-err);
	/*
	 * each value set whole below; those of names the event lacks zeroed
	 * (an event with all of them, sched's readers', zeroes nothing)
	 */
	if (e->nr_ff != r->nr)
		memset(out, 0, (size_t)r->nr * sizeof(*out));
	for (int k = 0; k < e->nr_ff; k++) {
		const struct fast_field *f = &e->ff[k];
		struct tally_tp_val *o = &out[f->i];

		o->val = 0;
		o->data = NULL;
		o->data_len = 0;
		if (f->kind == FF_INT) {
			o->val = tally__trace_field_val_at(d + f->off, f->size);
		} else if (f->kind == FF_DYN) {
			/* __data_loc: offset in the low 16 bits, length above (checked by event_of) */
			uint32_t loc = (uint32_t)tally__trace_field_val_at(d + f->off, f->size);
			long off = (long)(loc & 0xffff);

			if (f->relative)
				off += f->off + f->size;
			o->data = d + off;
			o->data_len = f->size == 2 ? (uint32_t)(len - (size_t)off) : loc >> 16;
		} else {
			o->data = d + f->off;
			o->data_len = (uint32_t)f->size;
		}
	}
	return e->mask;
}

size_t tally_tp_val__str(const struct tally_tp_val *v, char *buf, size_t len)
{
	size_t n;

	if (!len)
		return 0;
	n = v->data ? strnlen(v->data, v->data_len) : 0;
	if (n >= len)
		n = len - 1;
	if (n)
		memcpy(buf, v->data, n);
	buf[n] = 0;
	return n;
}
