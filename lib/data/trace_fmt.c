// SPDX-License-Identifier: MIT
/*
 * libtraceevent behind tally_trace_fmt: the TRACING_DATA blob's layout
 * (perf's trace-event-info: magic, version, endianness, long and page
 * size, header_page, header_event, ftrace formats, then per system its
 * event formats, kallsyms, printk formats, saved cmdlines) walked with
 * bounds checks, each format handed to tep_parse_event(). A format's
 * fields are parsed first on their own, in a scratch handle: its print
 * format is checked against them (trace_fmt_check.c) and, if damaged,
 * left out, so libtraceevent prints that event's fields raw. The printk
 * formats are registered, so a %s of a kernel string's address prints
 * the string, as perf's.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tally/syscalls.h>
#include <tally/trace_fmt.h>
#include "internal.h"
#include "data_write_internal.h"
#include "trace_fmt_internal.h"

struct damaged {
	char *event;		/* "sys:name" */
	char why[96];
	bool unread;		/* its fields too: not parsed at all */
};

struct tally_trace_fmt {
	struct tep_handle *tep;
	struct tep_handle *scratch;	/* fields-only parses, while reading */
	char *copy;		/* libtraceevent keeps pointers into the formats */
	char **tabbed;		/* formats rewritten by untab(), kept as copy */
	int nr_tabbed;
	struct damaged *dmg;
	int nr_dmg;
	tally_trace_fmt_resolver resolve;	/* kernel symbols for %pS, or NULL */
	void *resolve_priv;
};

struct cur {
	char *p;
	size_t left;
	bool bad;
};

static void *take(struct cur *c, size_t n)
{
	void *p = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static uint64_t get_u(struct cur *c, size_t n)
{
	uint64_t v = 0;
	void *p = take(c, n);

	if (p)
		memcpy(&v, p, n);	/* little-endian files on a little-endian host */
	return v;
}

static char *get_str(struct cur *c)
{
	char *s = c->p, *nul = c->bad ? NULL : memchr(c->p, 0, c->left);

	if (!nul) {
		c->bad = true;
		return NULL;
	}
	take(c, (size_t)(nul - s) + 1);
	return s;
}

static bool item_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_';
}

/* The first word w of fmt[from, len) that stands alone as libtraceevent's token would. */
static size_t find_word(const char *fmt, size_t from, size_t len, const char *w)
{
	size_t n = strlen(w);

	for (size_t i = from; i + n <= len; i++)
		if (!memcmp(fmt + i, w, n) && (i == 0 || !item_char(fmt[i - 1])) &&
		    (i + n == len || !item_char(fmt[i + n])))
			return i;
	return len;
}

static int field_size(void *ctx, const char *name)
{
	struct tep_format_field *fl = tep_find_any_field(ctx, name);

	return fl ? fl->size : -1;
}

static void note_damaged(struct tally_trace_fmt *f, const char *sys, const char *name, int len,
			 const char *why, bool unread)
{
	struct damaged *d = realloc(f->dmg, (size_t)(f->nr_dmg + 1) * sizeof(*d));

	if (!d)
		return;
	f->dmg = d;
	d += f->nr_dmg;
	if (asprintf(&d->event, "%s:%.*s", sys, len, name) < 0)
		return;
	for (char *p = d->event; *p; p++)	/* the name may be as damaged as the rest */
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	snprintf(d->why, sizeof(d->why), "%s", why);
	d->unread = unread;
	f->nr_dmg++;
}

/* The event's name as its text says, for a format not parsed at all. */
static void note_damaged_text(struct tally_trace_fmt *f, const char *fmt, size_t sz,
			      const char *sys, const char *why)
{
	size_t i = find_word(fmt, 0, sz, "name"), n;

	for (i += 4; i < sz && (fmt[i] == ':' || fmt[i] == ' '); i++)
		;
	for (n = 0; i + n < sz && n < 64 && item_char(fmt[i + n]); n++)
		;
	note_damaged(f, sys, n ? fmt + i : "?", n ? (int)n : 1, why, true);
}

/*
 * The kernel writes a TP_printk string's "\t" as a tab byte (maple_tree's
 * formats), where libtraceevent's tokenizer ends the string, so the print
 * format fails to parse (perf 6.1's own copy of it did not). Each tab
 * inside a string of the print format (from cut on) is written back as
 * "\t", which libtraceevent prints as a tab: fmt itself, or a copy kept
 * in f (NULL: no memory).
 */
static char *untab(struct tally_trace_fmt *f, char *fmt, size_t *sz, size_t cut)
{
	size_t tabs = 0, n = 0;
	char **kept, *out, q = 0;

	for (size_t i = cut; i < *sz; i++) {
		if (q && fmt[i] == '\\')
			i++;	/* an escaped byte, tab or not, is the string's */
		else if (q && fmt[i] == q)
			q = 0;
		else if (!q && (fmt[i] == '"' || fmt[i] == '\''))
			q = fmt[i];
		else if (q && fmt[i] == '\t')
			tabs++;
	}
	if (!tabs)
		return fmt;
	kept = realloc(f->tabbed, (size_t)(f->nr_tabbed + 1) * sizeof(*kept));
	if (!kept)
		return NULL;
	f->tabbed = kept;
	out = malloc(*sz + tabs + 1);
	if (!out)
		return NULL;
	q = 0;
	for (size_t i = 0; i < *sz; i++) {
		bool esc = i >= cut && q && fmt[i] == '\\';

		if (i >= cut && q && fmt[i] == '\t') {
			out[n++] = '\\';
			out[n++] = 't';
			continue;
		}
		if (i >= cut && !esc && q && fmt[i] == q)
			q = 0;
		else if (i >= cut && !q && (fmt[i] == '"' || fmt[i] == '\''))
			q = fmt[i];
		out[n++] = fmt[i];
		if (esc && i + 1 < *sz)
			out[n++] = fmt[++i];
	}
	out[n] = '\0';
	f->tabbed[f->nr_tabbed++] = out;
	*sz = n;
	return out;
}

/*
 * libtraceevent reads the print format only after the word "print"
 * following "format": the text from the first such word on is what is
 * checked; the fields before it are parsed alone first to check against.
 */
static void parse_one(struct tally_trace_fmt *f, char *fmt, size_t sz, const char *sys)
{
	size_t cut = find_word(fmt, find_word(fmt, 0, sz, "format"), sz, "print");
	struct tep_event *ev = NULL;
	char why[96];
	int ret;

	if (cut < sz && !(fmt = untab(f, fmt, &sz, cut)))
		return;

	if (tally__trace_fmt_check_fields(fmt, cut, why, sizeof(why))) {
		note_damaged_text(f, fmt, cut, sys, why);	/* not parsed: no fields to show */
		return;
	}
	if (cut == sz) {	/* no print format to parse: harmless as it is */
		tep_parse_event(f->tep, fmt, (unsigned long)sz, sys);
		return;
	}
	tep_parse_format(f->scratch, &ev, fmt, (unsigned long)cut, sys);
	if (!ev)
		return;		/* no name or ID: not an event libtraceevent would keep */
	ret = tally__trace_fmt_check(fmt + cut, sz - cut, field_size, ev, why, sizeof(why));
	if (!ret) {
		tep_parse_event(f->tep, fmt, (unsigned long)sz, sys);
		return;
	}
	if (ret < 0)
		note_damaged(f, sys, ev->name, (int)strlen(ev->name), why, false);
	tep_parse_event(f->tep, fmt, (unsigned long)cut, sys);	/* its fields, printed raw */
}

/*
 * printk_formats' lines, "0xaddr : \"string\"", registered as
 * tep_parse_printk_formats() would (its quotes, then a final \n, dropped)
 * but bounded: it reads past a line with no ':' and
 * tep_register_print_string() before a string under 3 bytes, so each
 * string goes in with a "\n\"" of its own for it to drop.
 */
static void add_printk(struct tep_handle *tep, const char *text, size_t len)
{
	for (const char *end, *p = text; p < text + len; p = end + 1) {
		char *line, *s, *b, *reg;
		size_t n;

		end = memchr(p, '\n', (size_t)(text + len - p));
		if (!end)
			end = text + len;
		line = strndup(p, (size_t)(end - p));
		s = line ? strchr(line, ':') : NULL;
		if (s) {
			*s++ = '\0';
			s += *s == ' ';
			b = s + (*s == '"');	/* its leading quote: dropped by it */
			n = strlen(b);
			if (n && b[n - 1] == '"') {
				b[--n] = '\0';
				if (n >= 2 && !strcmp(b + n - 2, "\\n"))
					b[n - 2] = '\0';
			}
			if (asprintf(&reg, "%s\\n\"", s) >= 0) {
				tep_register_print_string(tep, reg, strtoull(line, NULL, 16));
				free(reg);
			}
		}
		free(line);
	}
}

static void parse_formats(struct tally_trace_fmt *f, struct cur *c, const char *sys)
{
	uint32_t n = (uint32_t)get_u(c, 4);

	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint64_t sz = get_u(c, 8);
		char *fmt = take(c, (size_t)sz);

		if (fmt)
			parse_one(f, fmt, (size_t)sz, sys);	/* one bad format: the rest still print */
	}
}

struct tally_trace_fmt *tally_trace_fmt__new(const void *data, size_t len)
{
	static const char magic[] = "\027\010\104tracing";
	struct tally_trace_fmt *f = calloc(1, sizeof(*f));
	struct cur c;
	char *m, *ver;
	uint64_t sz;
	uint32_t nsys;
	int big, lsize, page;

	if (!f)
		return NULL;
	f->copy = malloc(len + 1);
	f->tep = tep_alloc();
	f->scratch = tep_alloc();
	if (!f->copy || !f->tep || !f->scratch)
		goto nomem;
	memcpy(f->copy, data, len);
	f->copy[len] = 0;
	c = (struct cur){ .p = f->copy, .left = len };
	m = take(&c, 10);
	if (!m || memcmp(m, magic, 10))
		goto bad;
	ver = get_str(&c);
	big = (int)get_u(&c, 1);
	lsize = (int)get_u(&c, 1);
	page = (int)get_u(&c, 4);
	if (c.bad || !ver || big)
		goto bad;	/* big-endian tracing data: not read here (yet) */
	tep_set_file_bigendian(f->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(f->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(f->tep, lsize);
	tep_set_page_size(f->tep, page);
	tep_set_long_size(f->scratch, lsize);
	if (!get_str(&c))	/* "header_page" */
		goto bad;
	sz = get_u(&c, 8);
	m = take(&c, (size_t)sz);
	if (m)
		tep_parse_header_page(f->tep, m, (unsigned long)sz, lsize);
	if (!get_str(&c))	/* "header_event" */
		goto bad;
	sz = get_u(&c, 8);
	take(&c, (size_t)sz);
	parse_formats(f, &c, "ftrace");
	nsys = (uint32_t)get_u(&c, 4);
	for (uint32_t i = 0; i < nsys && !c.bad; i++) {
		const char *sys = get_str(&c);

		if (sys)
			parse_formats(f, &c, sys);
	}
	if (c.bad && !tep_get_events_count(f->tep) && !f->nr_dmg)
		goto bad;
	/* kallsyms (perf writes none) and saved cmdlines: not needed here */
	take(&c, (size_t)get_u(&c, 4));
	sz = get_u(&c, 4);
	m = take(&c, (size_t)sz);
	if (m)
		add_printk(f->tep, m, (size_t)sz);
	tep_free(f->scratch);
	f->scratch = NULL;
	return f;
bad:
	tally_trace_fmt__free(f);
	errno = EBADMSG;
	return NULL;
nomem:
	tally_trace_fmt__free(f);
	errno = ENOMEM;
	return NULL;
}

void tally_trace_fmt__free(struct tally_trace_fmt *f)
{
	if (!f)
		return;
	if (f->tep)
		tep_free(f->tep);
	if (f->scratch)
		tep_free(f->scratch);
	for (int i = 0; i < f->nr_dmg; i++)
		free(f->dmg[i].event);
	free(f->dmg);
	for (int i = 0; i < f->nr_tabbed; i++)
		free(f->tabbed[i]);
	free(f->tabbed);
	free(f->copy);
	free(f);
}

int tally_trace_fmt__damaged(const struct tally_trace_fmt *f, int i, const char **event,
			     const char **why)
{
	if (!f || i < 0)
		return tally__err(EINVAL);
	if (i >= f->nr_dmg)
		return -ENOENT;
	if (event)
		*event = f->dmg[i].event;
	if (why)
		*why = f->dmg[i].why;
	return f->dmg[i].unread;
}

static bool inside(long off, long size, size_t len)
{
	return off >= 0 && size >= 0 && (unsigned long)(off + size) <= len;
}

/*
 * Every field of the event inside the sample's RAW data, a dynamic
 * one's data too: libtraceevent reads them without looking at the size.
 */
struct tep_handle *tally__trace_fmt_tep(struct tally_trace_fmt *f)
{
	return f ? f->tep : NULL;
}

bool tally__trace_fields_inside(struct tep_event *ev, const unsigned char *raw, size_t len)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };

	for (int k = 0; k < 2; k++)
		for (struct tep_format_field *fl = lists[k]; fl; fl = fl->next) {
			uint32_t loc = 0;
			long off;

			if (!inside(fl->offset, fl->size, len))
				return false;
			if (!(fl->flags & TEP_FIELD_IS_DYNAMIC))
				continue;
			/* __data_loc: offset in the low 16 bits, length above (2 bytes: to the end) */
			memcpy(&loc, raw + fl->offset, fl->size < 4 ? (size_t)fl->size : 4);
			off = (long)(loc & 0xffff);
			if (fl->flags & TEP_FIELD_IS_RELATIVE)
				off += fl->offset + fl->size;
			if (!inside(off, fl->size == 2 ? 0 : (long)(loc >> 16), len))
				return false;
		}
	return true;
}

/* libtraceevent's resolver: the name only, no module (it prints none) */
static char *resolve_tramp(void *priv, unsigned long long *addrp, char **modp)
{
	struct tally_trace_fmt *f = priv;
	uint64_t a = *addrp;
	const char *name = f->resolve(f->resolve_priv, &a);

	*modp = NULL;
	if (name)
		*addrp = a;
	return (char *)name;
}

int tally_trace_fmt__set_resolver(struct tally_trace_fmt *f, tally_trace_fmt_resolver fn,
				  void *priv)
{
	if (!f)
		return tally__err(EINVAL);
	f->resolve = fn;
	f->resolve_priv = priv;
	if (!fn) {
		tep_reset_function_resolver(f->tep);
		return 0;
	}
	return tep_set_function_resolver(f->tep, resolve_tramp, f) ? tally__err(ENOMEM) : 0;
}

/* The event of a sample's RAW data, its fields checked inside it: 0 or -errno. */
int tally__trace_event_of(struct tally_trace_fmt *f, struct tep_record *rec, struct tep_event **evp)
{
	struct tep_format_field *type = NULL;
	struct tep_event *ev;

	/* the type is read where the first event's format puts it */
	ev = tep_get_first_event(f->tep);
	if (ev)
		type = tep_find_common_field(ev, "common_type");
	if (!type || !inside(type->offset, type->size, (size_t)rec->size))
		return tally__err(ENOENT);
	ev = tep_find_event_by_record(f->tep, rec);
	if (!ev)
		return tally__err(ENOENT);
	if (!tally__trace_fields_inside(ev, rec->data, (size_t)rec->size))
		return tally__err(EBADMSG);
	*evp = ev;
	return 0;
}

int tally_trace_fmt__print(struct tally_trace_fmt *f, const void *raw, size_t len,
			   char *buf, size_t buflen)
{
	struct tep_record rec = { .data = (void *)raw, .size = (int)len };
	struct tep_event *ev;
	struct trace_seq s;
	int n;

	if (!f || !raw || !buf || !buflen || len > INT32_MAX)
		return tally__err(EINVAL);
	if ((n = tally__trace_event_of(f, &rec, &ev)))
		return n;
	trace_seq_init(&s);
	tep_print_event(f->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	n = snprintf(buf, buflen, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return n;
}

struct tally_trace_fmt *tally_trace_fmt__new_live(const struct perf_event_attr *const *attrs,
						  size_t nr)
{
	struct tally__buf b = { 0 };
	struct tally_trace_fmt *f;
	int err = tally__tracing_data(&b, attrs, nr);

	if (err) {
		tally__buf_free(&b);
		errno = -err;
		return NULL;
	}
	f = tally_trace_fmt__new(b.p, b.len);
	err = errno;
	tally__buf_free(&b);
	errno = err;
	return f;
}

/* The unsigned value of an integer field, as perf's format_field__intval */
int tally_trace_fmt__fields(struct tally_trace_fmt *f, const void *raw, size_t len,
			    struct tally_tp_field *out, int max)
{
	struct tep_record rec = { .data = (void *)raw, .size = (int)len };
	const unsigned char *r = raw;
	struct tep_event *ev;
	int n = 0, err;

	if (!f || !raw || (max && !out) || len > INT32_MAX)
		return tally__err(EINVAL);
	if ((err = tally__trace_event_of(f, &rec, &ev)))
		return err;
	for (struct tep_format_field *fl = ev->format.fields; fl; fl = fl->next, n++) {
		struct tally_tp_field *o = &out[n];

		if (n >= max)
			continue;
		*o = (struct tally_tp_field){
			.name = fl->name,
			.type = fl->type,
			.is_pointer = fl->flags & TEP_FIELD_IS_POINTER,
			.is_array = fl->flags & TEP_FIELD_IS_ARRAY,
		};
		if (!o->is_array) {
			o->val = tally__trace_field_val(fl, r);
		} else if (fl->flags & TEP_FIELD_IS_DYNAMIC) {
			/* __data_loc: offset in the low 16 bits, length above (checked inside) */
			uint32_t loc = (uint32_t)tally__trace_field_val(fl, r);
			long off = (long)(loc & 0xffff);

			if (fl->flags & TEP_FIELD_IS_RELATIVE)
				off += fl->offset + fl->size;
			o->data = r + off;
			o->data_len = fl->size == 2 ? (uint32_t)(len - (size_t)off) : loc >> 16;
		} else {
			o->data = r + fl->offset;
			o->data_len = (uint32_t)fl->size;
		}
	}
	return n;
}
