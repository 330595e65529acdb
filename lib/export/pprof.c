// SPDX-License-Identifier: MIT
/*
 * The stacks model as pprof's profile.proto (protobuf-c, generated from
 * proto/profile.proto at build time), gzip-compressed with zlib, as
 * `go tool pprof`, Pyroscope, Parca and Grafana read it. One location per
 * frame at a source line, one function per frame (a name in a file, its
 * source file), one mapping per file with its build id.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "internal.h"
#include "stacks_internal.h"

/* the string table: index 0 is "" */
struct strtab {
	char **v;
	size_t n, cap;
	int *tab;
	size_t tsize;
};

static uint64_t hs(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static int64_t str_id(struct strtab *t, const char *s)
{
	size_t i;

	if (!s || !*s)
		return 0;
	if ((t->n + 1) * 2 > t->tsize) {
		size_t n = t->tsize ? t->tsize * 2 : 1024;
		int *v = calloc(n, sizeof(*v));

		if (!v)
			return -1;
		for (size_t k = 1; k < t->n; k++) {
			for (i = hs(t->v[k]) & (n - 1); v[i]; i = (i + 1) & (n - 1))
				;
			v[i] = (int)k;
		}
		free(t->tab);
		t->tab = v;
		t->tsize = n;
	}
	for (i = hs(s) & (t->tsize - 1); t->tab[i]; i = (i + 1) & (t->tsize - 1))
		if (!strcmp(t->v[t->tab[i]], s))
			return t->tab[i];
	if (t->n == t->cap) {
		size_t n = t->cap ? t->cap * 2 : 1024;
		void *p = realloc(t->v, n * sizeof(*t->v));

		if (!p)
			return -1;
		t->v = p;
		t->cap = n;
	}
	if (!(t->v[t->n] = strdup(s)))
		return -1;
	t->tab[i] = (int)t->n;
	return (int64_t)t->n++;
}

/* gzip of buf to fp */
static int gzip_out(FILE *fp, const uint8_t *buf, size_t len)
{
	z_stream z = { 0 };
	uint8_t out[65536];
	int rc;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;	/* profiles stay far below 4 GiB */
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		rc = deflate(&z, Z_FINISH);
		if (rc == Z_STREAM_ERROR)
			break;
		if (fwrite(out, 1, sizeof(out) - z.avail_out, fp) != sizeof(out) - z.avail_out) {
			rc = Z_ERRNO;
			break;
		}
	} while (rc != Z_STREAM_END);
	deflateEnd(&z);
	return rc == Z_STREAM_END ? 0 : -EIO;
}

int tally_stacks__write_pprof(const struct tally_stacks *s, FILE *fp)
{
	Perftools__Profiles__Profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType vt[3], *vtp[2];
	Perftools__Profiles__Mapping *maps = NULL, **mapp = NULL;
	Perftools__Profiles__Location *locs = NULL, **locp = NULL;
	Perftools__Profiles__Line *lines = NULL, **linep = NULL;
	Perftools__Profiles__Function *funcs = NULL, **funcp = NULL;
	Perftools__Profiles__Sample *smp = NULL, **smpp = NULL;
	Perftools__Profiles__Label *labels = NULL, **labelp = NULL;
	uint64_t *locids = NULL;
	int64_t *values = NULL;
	int *frame_map = NULL, *frame_func = NULL;
	const char **frame_src = NULL;
	struct strtab st = { 0 };
	size_t depth = s ? tally__stacks_max_depth(s) : 0, nmaps = 0, nfuncs = 0, nloc = 0;
	uint8_t *buf = NULL;
	int err = -ENOMEM;

	if (!s || !fp)
		return -EINVAL;
	if (!(st.v = calloc(1024, sizeof(*st.v))))
		return -ENOMEM;
	st.cap = 1024;
	if (!(st.v[0] = strdup("")))
		goto out;
	st.n = 1;
	maps = calloc(s->nframes + 1, sizeof(*maps));
	mapp = calloc(s->nframes + 1, sizeof(*mapp));
	locs = calloc(s->nlocs + 1, sizeof(*locs));
	locp = calloc(s->nlocs + 1, sizeof(*locp));
	lines = calloc(s->nlocs + 1, sizeof(*lines));
	linep = calloc(s->nlocs + 1, sizeof(*linep));
	funcs = calloc(s->nframes + 1, sizeof(*funcs));
	funcp = calloc(s->nframes + 1, sizeof(*funcp));
	frame_map = calloc(s->nframes + 1, sizeof(*frame_map));
	frame_func = calloc(s->nframes + 1, sizeof(*frame_func));
	frame_src = calloc(s->nframes + 1, sizeof(*frame_src));
	smp = calloc(s->naggs + 1, sizeof(*smp));
	smpp = calloc(s->naggs + 1, sizeof(*smpp));
	labels = calloc(3 * s->naggs + 1, sizeof(*labels));
	labelp = calloc(3 * s->naggs + 1, sizeof(*labelp));
	values = calloc(2 * s->naggs + 1, sizeof(*values));
	if (!maps || !mapp || !locs || !locp || !lines || !linep || !funcs || !funcp ||
	    !frame_map || !frame_func || !frame_src || !smp || !smpp || !labels || !labelp || !values)
		goto out;
	/*
	 * mappings: one per file, the program's first (pprof takes the first
	 * for the main binary: the file of "main", else the first user file).
	 */
	for (size_t pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < s->nframes; i++) {
			const struct stk_frame *f = &s->frames[i];
			size_t m;
			bool want = pass == 0 ? !f->kernel && f->name && !strcmp(f->name, "main") :
				    pass == 1 ? !f->kernel : true;

			if (!f->dso || !want)
				continue;
			for (m = 0; m < nmaps; m++)
				if (!strcmp(st.v[maps[m].filename], f->dso))
					break;
			if (m < nmaps)
				continue;
			perftools__profiles__mapping__init(&maps[m]);
			maps[m].id = m + 1;
			maps[m].memory_start = f->map_start;
			maps[m].memory_limit = f->map_end;
			maps[m].file_offset = f->map_pgoff;
			if ((maps[m].filename = str_id(&st, f->dso)) < 0 ||
			    (maps[m].build_id = str_id(&st, f->build_id)) < 0)
				goto out;
			maps[m].has_functions = true;	/* false below where a frame has no name */
			mapp[m] = &maps[m];
			nmaps++;
		}
	/*
	 * functions: one per frame (a name in a file, at a level), its file
	 * the source file of its lines (DWARF), "" without them
	 */
	for (size_t i = 0; i < s->nlocs; i++)
		if (s->locs[i].file && !frame_src[s->locs[i].frame])
			frame_src[s->locs[i].frame] = s->locs[i].file;
	for (size_t i = 0; i < s->nframes; i++) {
		const struct stk_frame *f = &s->frames[i];
		size_t m, k;

		frame_map[i] = -1;
		for (m = 0; f->dso && m < nmaps; m++)
			if (!strcmp(st.v[maps[m].filename], f->dso)) {
				frame_map[i] = (int)m;
				break;
			}
		frame_func[i] = -1;
		if (!f->name)
			continue;
		int64_t name = str_id(&st, f->name), file = str_id(&st, frame_src[i]);

		if (name < 0 || file < 0)
			goto out;
		k = nfuncs;
		perftools__profiles__function__init(&funcs[k]);
		funcs[k].id = k + 1;
		funcs[k].name = funcs[k].system_name = name;
		funcs[k].filename = file;
		funcp[k] = &funcs[k];
		nfuncs++;
		frame_func[i] = (int)k;
	}
	/* locations: one per frame at a line, at its first address */
	for (size_t i = 0; i < s->nlocs; i++) {
		const struct stk_loc *l = &s->locs[i];
		const struct stk_frame *f = &s->frames[l->frame];
		int m = frame_map[l->frame];

		perftools__profiles__location__init(&locs[i]);
		locs[i].id = i + 1;
		if (m >= 0) {
			locs[i].mapping_id = (uint64_t)m + 1;
			locs[i].address = f->kernel || f->map_end <= f->map_start ? l->addr :
					  f->map_start + l->addr - f->map_pgoff;
			if (frame_func[l->frame] < 0)
				maps[m].has_functions = false;
			if (l->file) {
				maps[m].has_filenames = true;
				maps[m].has_line_numbers = true;
			}
		} else {
			locs[i].address = l->addr;
		}
		if (frame_func[l->frame] >= 0) {
			perftools__profiles__line__init(&lines[i]);
			lines[i].function_id = (uint64_t)frame_func[l->frame] + 1;
			lines[i].line = l->line;
			linep[i] = &lines[i];
			locs[i].n_line = 1;
			locs[i].line = &linep[i];
		}
		locp[i] = &locs[i];
		nloc++;
	}
	locids = calloc(s->naggs * (depth + 1) + 1, sizeof(*locids));
	if (!locids)
		goto out;
	{
		int64_t k_comm = str_id(&st, "comm"), k_pid = str_id(&st, "pid"),
			k_tid = str_id(&st, "tid");
		uint64_t *ids = locids;

		if (k_comm < 0 || k_pid < 0 || k_tid < 0)
			goto out;
		for (size_t i = 0; i < s->naggs; i++) {
			const struct stk_agg *a = &s->aggs[i];
			const struct stk_thread *t = &s->threads[a->thread];
			size_t np = 0;
			Perftools__Profiles__Label *l = &labels[3 * i];

			perftools__profiles__sample__init(&smp[i]);
			for (int n = a->node; n >= 0; n = s->nodes[n].parent)	/* leaf first */
				ids[np++] = (uint64_t)s->nodes[n].loc + 1;
			smp[i].location_id = ids;
			smp[i].n_location_id = np;
			ids += np;
			values[2 * i] = (int64_t)a->count;
			values[2 * i + 1] = (int64_t)a->weight;
			smp[i].value = &values[2 * i];
			smp[i].n_value = 2;
			for (int k = 0; k < 3; k++) {
				perftools__profiles__label__init(&l[k]);
				labelp[3 * i + k] = &l[k];
			}
			l[0].key = k_comm;
			if ((l[0].str = str_id(&st, t->comm)) < 0)
				goto out;
			l[1].key = k_pid;
			l[1].num = t->pid;
			l[2].key = k_tid;
			l[2].num = t->tid;
			smp[i].label = &labelp[3 * i];
			smp[i].n_label = 3;
			smpp[i] = &smp[i];
		}
	}
	for (int k = 0; k < 3; k++)
		perftools__profiles__value_type__init(&vt[k]);
	if ((vt[0].type = str_id(&st, "samples")) < 0 || (vt[0].unit = str_id(&st, "count")) < 0 ||
	    (vt[1].type = str_id(&st, s->info.event ? s->info.event : "events")) < 0 ||
	    (vt[1].unit = str_id(&st, s->info.unit ? s->info.unit : "count")) < 0)
		goto out;
	vt[2] = vt[1];
	vtp[0] = &vt[0];
	vtp[1] = &vt[1];
	prof.sample_type = vtp;
	prof.n_sample_type = 2;
	prof.period_type = &vt[2];
	prof.period = (int64_t)s->info.period;
	prof.time_nanos = (int64_t)s->info.time_ns;
	prof.duration_nanos = (int64_t)s->info.duration_ns;
	prof.sample = smpp;
	prof.n_sample = s->naggs;
	prof.mapping = mapp;
	prof.n_mapping = nmaps;
	prof.location = locp;
	prof.n_location = nloc;
	prof.function = funcp;
	prof.n_function = nfuncs;
	prof.string_table = st.v;
	prof.n_string_table = st.n;
	{
		size_t len = perftools__profiles__profile__get_packed_size(&prof);

		if (!(buf = malloc(len + 1)))
			goto out;
		perftools__profiles__profile__pack(&prof, buf);
		err = gzip_out(fp, buf, len);
	}
out:
	for (size_t i = 0; i < st.n; i++)
		free(st.v[i]);
	free(st.v);
	free(st.tab);
	free(maps);
	free(mapp);
	free(locs);
	free(locp);
	free(lines);
	free(linep);
	free(funcs);
	free(funcp);
	free(frame_map);
	free(frame_func);
	free(frame_src);
	free(smp);
	free(smpp);
	free(labels);
	free(labelp);
	free(values);
	free(locids);
	free(buf);
	return err;
}
