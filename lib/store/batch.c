// SPDX-License-Identifier: MIT
/*
 * A batch: one interval of one host's samples, aggregated by stack, as
 * two TabSeparated bodies (the new stacks, the rows) ready to send.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hash.h>
#include "store_internal.h"

struct tally_store_batch {
	char *host;
	uint64_t id;
	time_t start;
	char date[16];			/* the interval's UTC day: its partition */
	struct tally__buf stacks, rows;
	size_t nrows, nstacks;
	uint64_t samples;
	uint64_t *ids;			/* the stacks in it: an open-addressed set, 0 empty */
	size_t nids, cap;
};

void tally__tsv_str(struct tally__buf *b, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '\\': tally__buf_add(b, "\\\\", 2); break;
		case '\t': tally__buf_add(b, "\\t", 2); break;
		case '\n': tally__buf_add(b, "\\n", 2); break;
		case '\r': tally__buf_add(b, "\\r", 2); break;
		default: tally__buf_add(b, p, 1);
		}
	}
}

void tally__tsv_arr_str(struct tally__buf *b, const char *s)
{
	tally__buf_add(b, "'", 1);
	for (const char *p = s ? s : ""; *p; p++) {
		switch (*p) {
		case '\\': tally__buf_add(b, "\\\\", 2); break;
		case '\'': tally__buf_add(b, "\\'", 2); break;
		case '\t': tally__buf_add(b, "\\t", 2); break;
		case '\n': tally__buf_add(b, "\\n", 2); break;
		case '\r': tally__buf_add(b, "\\r", 2); break;
		default: tally__buf_add(b, p, 1);
		}
	}
	tally__buf_add(b, "'", 1);
}

static void add_fmt(struct tally__buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_fmt(struct tally__buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	tally__buf_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

struct tally_store_batch *tally_store_batch__new(const char *host, uint64_t batch_id, time_t start)
{
	struct tally_store_batch *b;
	struct tm tm;

	if (!host) {
		errno = EINVAL;
		return NULL;
	}
	if (!(b = calloc(1, sizeof(*b))) || !(b->host = strdup(host))) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	b->id = batch_id;
	b->start = start;
	gmtime_r(&start, &tm);
	strftime(b->date, sizeof(b->date), "%Y-%m-%d", &tm);
	return b;
}

void tally_store_batch__free(struct tally_store_batch *b)
{
	if (!b)
		return;
	free(b->host);
	tally__buf_free(&b->stacks);
	tally__buf_free(&b->rows);
	free(b->ids);
	free(b);
}

uint64_t tally_store__stack_id(const struct tally_store_frame *f, int n)
{
	uint64_t h = TALLY_FNV_BASIS;

	if (!f || n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		h = tally_fnv(h, &f[i].level, 1);
		h = tally_fnv_str(h, f[i].func ? f[i].func : "");
		h = tally_fnv(h, &f[i].symoff, sizeof(f[i].symoff));
		h = tally_fnv_str(h, f[i].dso ? f[i].dso : "");
		h = tally_fnv(h, f[i].build_id ? f[i].build_id : (const uint8_t *)"", f[i].build_id ? f[i].build_id_size : 0);
		h = tally_fnv(h, &f[i].offset, sizeof(f[i].offset));
		h = tally_fnv_str(h, f[i].srcline ? f[i].srcline : "");
		h = tally_fnv(h, "|", 1);	/* frames' borders: ab|c is not a|bc */
	}
	h = tally_hash_mix(h);
	return h ? h : 1;
}

/* 1: id was there; 0: added; -ENOMEM */
static int ids_add(struct tally_store_batch *b, uint64_t id)
{
	size_t i;

	if ((b->nids + 1) * 2 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < b->cap; k++)
			if (b->ids[k]) {
				for (i = b->ids[k] & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
					;
				v[i] = b->ids[k];
			}
		free(b->ids);
		b->ids = v;
		b->cap = cap;
	}
	for (i = id & (b->cap - 1); b->ids[i]; i = (i + 1) & (b->cap - 1))
		if (b->ids[i] == id)
			return 1;
	b->ids[i] = id;
	b->nids++;
	return 0;
}

static void hex(struct tally__buf *b, const uint8_t *id, int n)
{
	static const char dig[] = "0123456789abcdef";

	for (int i = 0; i < n; i++) {
		char two[2] = { dig[id[i] >> 4], dig[id[i] & 15] };

		tally__buf_add(b, two, 2);
	}
}

uint64_t tally_store_batch__stack(struct tally_store_batch *b, const struct tally_store_frame *f, int n)
{
	uint64_t id = tally_store__stack_id(f, n);
	struct tally__buf *o;
	int r;

	if (!b || !id) {
		errno = EINVAL;
		return 0;
	}
	if ((r = ids_add(b, id)) < 0) {
		errno = ENOMEM;
		return 0;
	}
	if (r)
		return id;
	o = &b->stacks;
	add_fmt(o, "%s\t%" PRIu64 "\t[", b->date, id);
	for (int i = 0; i < n; i++)
		add_fmt(o, "%s%u", i ? "," : "", (unsigned)(unsigned char)f[i].level);
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++) {
		if (i)
			tally__buf_add(o, ",", 1);
		tally__tsv_arr_str(o, f[i].func);
	}
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++)
		add_fmt(o, "%s%" PRIu64, i ? "," : "", f[i].symoff);
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++) {
		if (i)
			tally__buf_add(o, ",", 1);
		tally__tsv_arr_str(o, f[i].dso);
	}
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++) {
		tally__buf_add(o, i ? ",'" : "'", i ? 2 : 1);
		if (f[i].build_id)
			hex(o, f[i].build_id, f[i].build_id_size);
		tally__buf_add(o, "'", 1);
	}
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++)
		add_fmt(o, "%s%" PRIu64, i ? "," : "", f[i].offset);
	tally__buf_add(o, "]\t[", 3);
	for (int i = 0; i < n; i++) {
		if (i)
			tally__buf_add(o, ",", 1);
		tally__tsv_arr_str(o, f[i].srcline);
	}
	tally__buf_add(o, "]\n", 2);
	if (o->oom) {
		errno = ENOMEM;
		return 0;
	}
	b->nstacks++;
	return id;
}

int tally_store_batch__add(struct tally_store_batch *b, const struct tally_store_row *r)
{
	struct tally__buf *o;

	if (!b || !r || !r->stack_id)
		return -EINVAL;
	o = &b->rows;
	add_fmt(o, "%s\t%lld\t", b->date, (long long)b->start);
	tally__tsv_str(o, b->host);
	add_fmt(o, "\t%" PRIu64 "\t%zu\t", b->id, b->nrows);
	tally__tsv_str(o, r->kind ? r->kind : "cpu");
	tally__buf_add(o, "\t", 1);
	tally__tsv_str(o, r->event ? r->event : "cpu-clock");
	add_fmt(o, "\t%u\t%u\t", (uint32_t)r->pid, (uint32_t)r->tid);
	tally__tsv_str(o, r->comm);
	tally__buf_add(o, "\t", 1);
	tally__tsv_str(o, r->thread);
	tally__buf_add(o, "\t", 1);
	tally__tsv_str(o, r->exe);
	tally__buf_add(o, "\t", 1);
	tally__tsv_str(o, r->cgroup);
	add_fmt(o, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", r->stack_id, r->value, r->period);
	if (o->oom)
		return -ENOMEM;
	b->nrows++;
	b->samples += r->value;
	return 0;
}

size_t tally_store_batch__rows(const struct tally_store_batch *b)
{
	return b ? b->nrows : 0;
}

size_t tally_store_batch__stacks(const struct tally_store_batch *b)
{
	return b ? b->nstacks : 0;
}

uint64_t tally_store_batch__samples(const struct tally_store_batch *b)
{
	return b ? b->samples : 0;
}

uint64_t tally_store_batch__id(const struct tally_store_batch *b)
{
	return b ? b->id : 0;
}

size_t tally_store_batch__bytes(const struct tally_store_batch *b)
{
	return b ? b->stacks.len + b->rows.len : 0;
}

int tally_store_batch__give_stacks(struct tally_store_batch *b, struct tally_store_batch *to)
{
	if (!b || !to)
		return -EINVAL;
	/* the ids come along so that `to` does not put them twice */
	for (size_t k = 0; k < b->cap; k++)
		if (b->ids[k] && ids_add(to, b->ids[k]) < 0)
			return -ENOMEM;
	tally__buf_add(&to->stacks, b->stacks.p, b->stacks.len);
	if (to->stacks.oom)
		return -ENOMEM;
	to->nstacks += b->nstacks;
	return 0;
}

int tally_store__send(struct tally_store *s, const struct tally_store_batch *b)
{
	char sql[256];
	int err;

	if (!s || !b)
		return -EINVAL;
	if (b->stacks.len) {
		snprintf(sql, sizeof(sql), "INSERT INTO %s.stacks FORMAT TabSeparated", s->db);
		if ((err = tally_store__query(s, sql, b->stacks.p, b->stacks.len, NULL, NULL)))
			return err;
	}
	if (b->rows.len) {
		snprintf(sql, sizeof(sql), "INSERT INTO %s.samples FORMAT TabSeparated", s->db);
		if ((err = tally_store__query(s, sql, b->rows.p, b->rows.len, NULL, NULL)))
			return err;
	}
	return 0;
}
