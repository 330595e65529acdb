// SPDX-License-Identifier: MIT
/*
 * A tracepoint sample's fields by name, typed (see tally/trace_fmt.h's
 * tally_tp_reader): the names a command reads are looked up in each
 * event's format once (libtraceevent's tep_find_field), then each sample
 * reads those fields where the format puts them, checked as
 * tally_trace_fmt__fields checks them, with no name compared per sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tally/syscalls.h>
#include <tally/trace_fmt.h>
#include "internal.h"
#include "trace_fmt_internal.h"

/* One event's fields for the reader's names, NULL where it has none. */
struct ev_fields {
	struct tep_event *ev;
	struct tep_format_field **fl;	/* [nr] */
};

struct tally_tp_reader {
	struct tally_trace_fmt *f;
	char **names;
	int nr;
	struct ev_fields *evs;
	size_t nr_evs, cap;
	size_t last;			/* the last event found: samples come in runs */
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
	for (size_t i = 0; i < r->nr_evs; i++)
		free(r->evs[i].fl);
	free(r->evs);
	for (int i = 0; r->names && i < r->nr; i++)
		free(r->names[i]);
	free(r->names);
	free(r);
}

/* ev's fields for the names, looked up at its first sample; NULL without memory. */
static struct ev_fields *fields_of(struct tally_tp_reader *r, struct tep_event *ev)
{
	struct ev_fields *e;

	if (r->last < r->nr_evs && r->evs[r->last].ev == ev)
		return &r->evs[r->last];
	for (size_t i = 0; i < r->nr_evs; i++)
		if (r->evs[i].ev == ev)
			return &r->evs[r->last = i];
	if (r->nr_evs == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct ev_fields *n = realloc(r->evs, cap * sizeof(*n));

		if (!n)
			return NULL;
		r->evs = n;
		r->cap = cap;
	}
	e = &r->evs[r->nr_evs];
	if (!(e->fl = calloc((size_t)r->nr, sizeof(*e->fl))))
		return NULL;
	e->ev = ev;
	/* the event's own fields, as tally_trace_fmt__fields lists them (not the common ones) */
	for (int i = 0; i < r->nr; i++)
		e->fl[i] = tep_find_field(ev, r->names[i]);
	r->last = r->nr_evs++;
	return e;
}

int tally_tp_reader__read(struct tally_tp_reader *r, const void *raw, size_t len,
			  struct tally_tp_val *out)
{
	struct tep_record rec = { .data = (void *)raw, .size = (int)len };
	const unsigned char *d = raw;
	struct tep_event *ev;
	struct ev_fields *e;
	int err, mask = 0;

	if (!r || !raw || !out || len > INT32_MAX)
		return tally__err(EINVAL);
	if ((err = tally__trace_event_of(r->f, &rec, &ev)))
		return err;
	if (!(e = fields_of(r, ev)))
		return tally__err(ENOMEM);
	for (int i = 0; i < r->nr; i++) {
		const struct tep_format_field *fl = e->fl[i];
		struct tally_tp_val *o = &out[i];

		*o = (struct tally_tp_val){ 0 };
		if (!fl)
			continue;
		mask |= 1 << i;
		if (!(fl->flags & TEP_FIELD_IS_ARRAY)) {
			o->val = tally__trace_field_val(fl, d);
		} else if (fl->flags & TEP_FIELD_IS_DYNAMIC) {
			/* __data_loc: offset in the low 16 bits, length above (checked by event_of) */
			uint32_t loc = (uint32_t)tally__trace_field_val(fl, d);
			long off = (long)(loc & 0xffff);

			if (fl->flags & TEP_FIELD_IS_RELATIVE)
				off += fl->offset + fl->size;
			o->data = d + off;
			o->data_len = fl->size == 2 ? (uint32_t)(len - (size_t)off) : loc >> 16;
		} else {
			o->data = d + fl->offset;
			o->data_len = (uint32_t)fl->size;
		}
	}
	return mask;
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
