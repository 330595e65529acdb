// SPDX-License-Identifier: MIT
/*
 * The BPF programs a perf.data file says were loaded while it was
 * recorded (HEADER_BPF_PROG_INFO) and the BTF blobs that name their
 * functions (HEADER_BPF_BTF), parsed as perf 6.1 writes them: a u32
 * count; then per program u32 info_len, u32 data_len, u64 arrays (a bit
 * per array field that holds an offset into data), struct bpf_prog_info
 * (info_len bytes of it) and data; per BTF u32 id, u32 size and the blob.
 * Names as perf's synthesize_bpf_prog_name: "bpf_prog_<tag>" then "_" and
 * the function's BTF name, else the program's name (a single function),
 * else "F". libbpf reads the BTF. Kept in id order, a repeated id once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <tally/data_read.h>
#include "data_read_internal.h"
#include "internal.h"

/* perf's array bits (util/bpf-utils.h, the order of libbpf's old enum) */
enum { ARR_JITED_KSYMS = 3, ARR_JITED_FUNC_LENS = 4, ARR_FUNC_INFO = 5, ARR_PROG_TAGS = 8 };

struct btf_blob {
	uint32_t id, size;
	const unsigned char *data;
};

struct tally__bpf_infos {
	struct tally_bpf_prog *progs;
	int nr_progs;
	uint32_t *btf_ids;
	int nr_btfs;
	struct tally_bpf_func *funcs;	/* every program's, one block */
	char *names;			/* their names, one block */
};

static void bpf_infos_free(struct tally__bpf_infos *b)
{
	if (!b)
		return;
	free(b->progs);
	free(b->btf_ids);
	free(b->funcs);
	free(b->names);
	free(b);
}

static int cmp_blob(const void *a, const void *b)
{
	const struct btf_blob *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->data < y->data ? -1 : x->data > y->data;
}

static int cmp_prog(const void *a, const void *b)
{
	const struct tally_bpf_prog *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->funcs < y->funcs ? -1 : x->funcs > y->funcs;	/* file order */
}

/* The BTF section: blobs sorted by id, a repeated id dropped (perf keeps the first). */
static int read_btfs(const struct tally_data_reader *r, struct btf_blob **out)
{
	const unsigned char *p;
	const void *v;
	size_t len, pos = 4;
	uint32_t n;
	int nr = 0;

	*out = NULL;
	if (tally_data_reader__feature(r, TALLY_HEADER_BPF_BTF, &v, &len) || len < 4)
		return 0;
	p = v;
	memcpy(&n, p, 4);
	if (n > len / 8 || !(*out = calloc(n ? n : 1, sizeof(**out))))
		return 0;
	for (uint32_t i = 0; i < n && len - pos >= 8; i++) {
		struct btf_blob b;

		memcpy(&b.id, p + pos, 4);
		memcpy(&b.size, p + pos + 4, 4);
		if (b.size > len - pos - 8)
			break;
		b.data = p + pos + 8;
		pos += 8 + (size_t)b.size;
		(*out)[nr++] = b;
	}
	/* a repeated id: the first in the file stays, as perf's (ties by position) */
	qsort(*out, nr, sizeof(**out), cmp_blob);
	int k = 0;

	for (int i = 0; i < nr; i++)
		if (!k || (*out)[k - 1].id != (*out)[i].id)
			(*out)[k++] = (*out)[i];
	return k;
}

/* An array field of the info: its offset into data, checked to hold n items of sz. */
static const unsigned char *array_at(const struct bpf_prog_info *info, uint64_t arrays, int bit,
				     uint64_t off, const unsigned char *data, uint32_t data_len,
				     uint64_t n, size_t sz)
{
	(void)info;
	if (!(arrays & (1ULL << bit)) || off > data_len || n > (data_len - off) / (sz ? sz : 1))
		return NULL;
	return data + off;
}

/* "bpf_prog_<tag>[_name]" for function i, as perf names it. */
static void func_name(char *buf, size_t size, const struct bpf_prog_info *info,
		      const unsigned char *tag, const unsigned char *finfo, struct btf *btf,
		      uint32_t i, uint32_t nr)
{
	const char *short_name = NULL;
	int n = snprintf(buf, size, "bpf_prog_");

	for (int b = 0; b < BPF_TAG_SIZE && n + 2 < (int)size; b++)
		n += snprintf(buf + n, size - n, "%02x", tag[b]);
	if (btf && finfo) {
		uint32_t type_id;
		const struct btf_type *t;

		memcpy(&type_id, finfo + (size_t)i * info->func_info_rec_size + 4, 4);
		t = btf__type_by_id(btf, type_id);
		short_name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
	} else if (i == 0 && nr == 1) {
		if (info->name[0])
			short_name = info->name;
	} else {
		short_name = "F";
	}
	if (short_name && n < (int)size)
		snprintf(buf + n, size - n, "_%.*s", (int)BPF_OBJ_NAME_LEN * 8, short_name);
}

static struct tally__bpf_infos *parse(const struct tally_data_reader *r)
{
	struct tally__bpf_infos *b = calloc(1, sizeof(*b));
	struct btf_blob *btfs = NULL;
	const unsigned char *p;
	size_t len, pos = 4, nf = 0, names_len = 0, cap_f = 0;
	const void *v;
	uint32_t n;
	int nb;

	if (!b)
		return NULL;
	nb = read_btfs(r, &btfs);
	if (nb && (b->btf_ids = calloc(nb, sizeof(*b->btf_ids))))
		for (int i = 0; i < nb; i++)
			b->btf_ids[b->nr_btfs++] = btfs[i].id;
	if (tally_data_reader__feature(r, TALLY_HEADER_BPF_PROG_INFO, &v, &len) || len < 4)
		goto out;
	p = v;
	memcpy(&n, p, 4);
	if (n > len / 16 || !(b->progs = calloc(n ? n : 1, sizeof(*b->progs))))
		goto out;
	for (uint32_t i = 0; i < n && len - pos >= 16; i++) {
		struct bpf_prog_info info = { 0 };
		uint32_t info_len, data_len;
		uint64_t arrays;

		memcpy(&info_len, p + pos, 4);
		memcpy(&data_len, p + pos + 4, 4);
		memcpy(&arrays, p + pos + 8, 8);
		/* perf stops at an info bigger than the one it knows */
		if (info_len > sizeof(info) || info_len > len - pos - 16 ||
		    data_len > len - pos - 16 - info_len)
			break;
		memcpy(&info, p + pos + 16, info_len);
		const unsigned char *data = p + pos + 16 + info_len;

		pos += 16 + (size_t)info_len + data_len;
		uint32_t nr = info.nr_jited_ksyms;
		const unsigned char *ksyms = array_at(&info, arrays, ARR_JITED_KSYMS, info.jited_ksyms,
						      data, data_len, nr, 8);
		const unsigned char *lens = array_at(&info, arrays, ARR_JITED_FUNC_LENS,
						     info.jited_func_lens, data, data_len, nr, 4);
		const unsigned char *tags = array_at(&info, arrays, ARR_PROG_TAGS, info.prog_tags,
						     data, data_len, nr, BPF_TAG_SIZE);
		const unsigned char *finfo = NULL;

		/* perf prints nothing for a program whose counts disagree */
		if (nr != info.nr_prog_tags || nr != info.nr_jited_func_lens || (nr && (!ksyms || !lens || !tags)))
			continue;
		struct btf *btf = NULL;

		if (info.btf_id && info.func_info_rec_size >= 8 && info.nr_func_info >= nr)
			finfo = array_at(&info, arrays, ARR_FUNC_INFO, info.func_info, data, data_len,
					 nr, info.func_info_rec_size);
		if (info.btf_id && finfo) {
			struct btf_blob key = { .id = info.btf_id }, *hit;

			hit = bsearch(&key, btfs, nb, sizeof(*btfs), cmp_blob);
			if (hit)
				btf = btf__new(hit->data, hit->size);
			if (btf && libbpf_get_error(btf))
				btf = NULL;
		}
		if (nf + nr > cap_f) {
			size_t nc = (cap_f + nr) * 2;
			struct tally_bpf_func *nfs = realloc(b->funcs, nc * sizeof(*nfs));

			if (!nfs) {
				btf__free(btf);
				break;
			}
			b->funcs = nfs;
			cap_f = nc;
		}
		struct tally_bpf_prog *pr = &b->progs[b->nr_progs++];

		pr->id = info.id;
		pr->nr_funcs = nr;
		pr->funcs = (void *)(uintptr_t)nf;	/* an index until the block stops moving */
		for (uint32_t f = 0; f < nr; f++) {
			char name[256];
			struct tally_bpf_func *fn = &b->funcs[nf++];

			func_name(name, sizeof(name), &info, tags + (size_t)f * BPF_TAG_SIZE,
				  btf ? finfo : NULL, btf, f, nr);
			memcpy(&fn->addr, ksyms + (size_t)f * 8, 8);
			memcpy(&fn->size, lens + (size_t)f * 4, 4);
			char *nn = realloc(b->names, names_len + strlen(name) + 1);

			if (!nn) {
				fn->name = (void *)(uintptr_t)SIZE_MAX;
				continue;
			}
			b->names = nn;
			fn->name = (void *)(uintptr_t)names_len;
			strcpy(b->names + names_len, name);
			names_len += strlen(name) + 1;
		}
		btf__free(btf);
	}
	if (b->nr_progs > 1) {
		qsort(b->progs, b->nr_progs, sizeof(*b->progs), cmp_prog);
		int k = 1;

		for (int i = 1; i < b->nr_progs; i++)
			if (b->progs[i].id != b->progs[k - 1].id)
				b->progs[k++] = b->progs[i];
		b->nr_progs = k;
	}
	/* offsets into pointers, now that the blocks are final */
	for (int i = 0; i < b->nr_progs; i++) {
		struct tally_bpf_prog *pr = &b->progs[i];
		size_t first = (size_t)(uintptr_t)pr->funcs;

		pr->funcs = b->funcs + first;
		for (uint32_t f = 0; f < pr->nr_funcs; f++) {
			struct tally_bpf_func *fn = &b->funcs[first + f];
			size_t off = (size_t)(uintptr_t)fn->name;

			fn->name = off == SIZE_MAX ? "" : b->names + off;
		}
	}
out:
	free(btfs);
	return b;
}

static struct tally__bpf_infos *infos(const struct tally_data_reader *r)
{
	struct tally__bpf_infos **slot = tally__data_reader_bpf_infos(r, bpf_infos_free);

	if (!slot)
		return NULL;
	if (!*slot)
		*slot = parse(r);
	return *slot;
}

int tally_data_reader__bpf_progs(const struct tally_data_reader *r,
				 const struct tally_bpf_prog **out)
{
	struct tally__bpf_infos *b;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(b = infos(r)))
		return tally__err(ENOMEM);
	*out = b->progs;
	return b->nr_progs;
}

int tally_data_reader__btf_ids(const struct tally_data_reader *r, const uint32_t **out)
{
	struct tally__bpf_infos *b;

	if (!r || !out)
		return tally__err(EINVAL);
	if (!(b = infos(r)))
		return tally__err(ENOMEM);
	*out = b->btf_ids;
	return b->nr_btfs;
}
