// SPDX-License-Identifier: MIT
/*
 * libtraceevent behind tally_trace_fmt: the TRACING_DATA blob's layout
 * (perf's trace-event-info: magic, version, endianness, long and page
 * size, header_page, header_event, ftrace formats, then per system its
 * event formats, kallsyms, printk formats, saved cmdlines) walked with
 * bounds checks, each format handed to tep_parse_event().
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <tally/trace_fmt.h>
#include "internal.h"

struct tally_trace_fmt {
	struct tep_handle *tep;
	char *copy;		/* libtraceevent keeps pointers into the formats */
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

static void parse_formats(struct tally_trace_fmt *f, struct cur *c, const char *sys)
{
	uint32_t n = (uint32_t)get_u(c, 4);

	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint64_t sz = get_u(c, 8);
		char *fmt = take(c, (size_t)sz);

		if (fmt)
			tep_parse_event(f->tep, fmt, (unsigned long)sz, sys);	/* one bad format: the rest still print */
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
	if (!f->copy || !f->tep)
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
	if (c.bad && !tep_get_events_count(f->tep))
		goto bad;
	/* kallsyms, printk formats and saved cmdlines: not needed for fields */
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
	free(f->copy);
	free(f);
}

int tally_trace_fmt__print(struct tally_trace_fmt *f, const void *raw, size_t len,
			   char *buf, size_t buflen)
{
	struct tep_record rec = { .data = (void *)raw, .size = (int)len };
	struct trace_seq s;
	int n;

	if (!f || !raw || !buf || !buflen)
		return tally__err(EINVAL);
	if (!tep_find_event_by_record(f->tep, &rec))
		return tally__err(ENOENT);
	trace_seq_init(&s);
	tep_print_event(f->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	n = snprintf(buf, buflen, "%s", s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return n;
}
