// SPDX-License-Identifier: MIT
/*
 * tally script's fields of source and time (see script.h): srcline and
 * srccode as perf 6.1's addr2line answers print them, tod from the
 * file's CLOCK_DATA, and a NAMESPACES record's text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "script.h"

int script_clock_init(struct script_ctx *s, bool need)
{
	struct tally_data_reader *rd = tally_session__reader(s->ss);
	const unsigned char *p;
	const void *data;
	size_t len;

	/* perf's write_clock_data: version, clockid, the wall clock's ns, the clock's ns */
	if (rd && !tally_data_reader__feature(rd, TALLY_HEADER_CLOCK_DATA, &data, &len) &&
	    len >= 24) {
		p = data;
		memcpy(&s->tod_ns, p + 8, 8);
		memcpy(&s->clockid_ns, p + 16, 8);
		s->clock_ok = true;
	}
	if (need && !s->clock_ok) {
		fprintf(stderr, "Can't provide 'tod' time, missing clock data. "
			"Please record with -k/--clockid option.\n");
		return -1;
	}
	return 0;
}

void script_print_tod(struct script_ctx *s, uint64_t time)
{
	uint64_t tod = s->tod_ns;
	char date[64], out[128];
	struct tm tm;
	time_t sec;
	unsigned long nsec;

	if (!s->clock_ok) {
		ob_str(s, "disabled ");
		return;
	}
	/* perf's tod_scnprintf: the clock's distance from its reference, unsigned */
	if (time > s->clockid_ns)
		tod += time - s->clockid_ns;
	else
		tod -= s->clockid_ns - time;
	sec = (time_t)(tod / 1000000000ull);
	nsec = (unsigned long)(tod - (uint64_t)sec * 1000000000ull);
	if (!localtime_r(&sec, &tm)) {
		ob_str(s, "failed ");
		return;
	}
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
	if (s->ns)
		snprintf(out, sizeof(out), "%s.%09lu ", date, nsec);
	else
		snprintf(out, sizeof(out), "%s.%06lu ", date, nsec / 1000);
	ob_str(s, out);
}

/* The file and line perf's addr2line gives (innermost); NULL where it has none */
static const char *src_of(const struct tally_addr_info *ai, int *line)
{
	const char *file;

	if (!ai->map || !ai->dso || tally_dso__srcline(ai->dso, ai->vaddr, &file, line))
		return NULL;
	return file;
}

void script_print_srcline(struct script_ctx *s, const struct tally_addr_info *ai)
{
	const char *file, *name;
	char t[64];
	int line;

	if (!ai->map || !ai->dso)
		return;
	if ((file = src_of(ai, &line))) {
		const char *b = strrchr(file, '/');

		ob_str(s, "\n  ");
		ob_str(s, b ? b + 1 : file);
		snprintf(t, sizeof(t), ":%d", line);
		ob_str(s, t);
		return;
	}
	/*
	 * no line: a file on disk gives addr2line's "??:0", which perf does
	 * not print; another (the kernel's, [vdso]) perf's "dso[addr]"
	 */
	name = tally_dso__name(ai->dso);
	if (!name || name[0] == '/')
		return;
	ob_str(s, "\n  ");
	ob_str(s, name);
	snprintf(t, sizeof(t), "[%llx]", (unsigned long long)ai->vaddr);
	ob_str(s, t);
}

void script_print_node_srcline(struct script_ctx *s, const struct tally_addr_info *ai,
			       const struct tally_srcline *ln)
{
	const char *file = ln ? ln->file : NULL, *b;
	char t[32];
	int line = ln ? ln->line : 0;

	if (!ai->map)
		return;
	if (!file)
		file = src_of(ai, &line);
	if (!file) {	/* perf's node line is addr2line's answer, unknown included */
		ob_str(s, "\n  ??:0");
		return;
	}
	b = strrchr(file, '/');
	ob_str(s, "\n  ");
	ob_str(s, b ? b + 1 : file);
	snprintf(t, sizeof(t), ":%d", line);
	ob_str(s, t);
}

/* path's bytes (NULL: unreadable) */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(text);
		text = NULL;
	}
	if (f)
		fclose(f);
	return text;
}

/* A source file's text, read once (NULL: unreadable) */
static const struct src_file *src_file(struct script_ctx *s, const char *path)
{
	struct src_file *f;
	size_t len;
	char *text;

	for (int i = 0; i < s->nsrc_files; i++)
		if (!strcmp(s->src_files[i].path, path))
			return s->src_files[i].text ? &s->src_files[i] : NULL;
	text = slurp(path, &len);
	if (s->nsrc_files == (int)(sizeof(s->src_files) / sizeof(s->src_files[0]))) {
		/* full: the oldest goes */
		free(s->src_files[0].path);
		free(s->src_files[0].text);
		memmove(s->src_files, s->src_files + 1,
			(size_t)(s->nsrc_files - 1) * sizeof(s->src_files[0]));
		s->nsrc_files--;
	}
	f = &s->src_files[s->nsrc_files];
	*f = (struct src_file){ .path = strdup(path), .text = text, .len = text ? len : 0 };
	if (!f->path) {
		free(text);
		return NULL;
	}
	s->nsrc_files++;
	return text ? f : NULL;
}

/* The thread's last shown line (perf's thread->srccode_state) */
static struct src_last *src_last(struct script_ctx *s, int32_t tid)
{
	struct src_last *v;

	for (size_t i = 0; i < s->nsrc_last; i++)
		if (s->src_last[i].tid == tid)
			return &s->src_last[i];
	v = realloc(s->src_last, (s->nsrc_last + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->src_last = v;
	v[s->nsrc_last] = (struct src_last){ .tid = tid };
	return &v[s->nsrc_last++];
}

void script_print_srccode(struct script_ctx *s, const struct tally_sample *smp,
			  enum tally_cpumode mode)
{
	struct tally_addr_info ai;
	const struct src_file *f;
	struct src_last *last;
	const char *file, *p, *end, *nl, *cdir;
	char t[32], path[4096];
	int line;

	tally_symbols__resolve(s->syms, s->m, (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode,
			       &ai);
	if (!(file = src_of(&ai, &line)) || line <= 0)
		return;
	/* binutils' addr2line names it under the unit's directory, as perf opens it */
	if (file[0] != '/' && (cdir = tally_dso__comp_dir(ai.dso, ai.vaddr))) {
		snprintf(path, sizeof(path), "%s/%s", cdir, file);
		file = path;
	}
	/* perf prints a line once while the thread stays on it */
	last = src_last(s, (int32_t)smp->tid);
	if (last && last->file && !strcmp(last->file, file) && last->line == line)
		return;
	if (!(f = src_file(s, file)))
		return;
	p = f->text;
	end = f->text + f->len;
	for (int n = 1; n < line && p < end; n++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	if (p >= end)
		return;
	nl = memchr(p, '\n', (size_t)(end - p));
	snprintf(t, sizeof(t), "|%-8d ", line);
	ob_str(s, t);
	ob_mem(s, p, (size_t)((nl ? nl : end) - p));
	ob_chr(s, '\n');
	if (last) {
		char *c = strdup(file);

		if (c) {
			free(last->file);
			last->file = c;
			last->line = line;
		}
	}
}

void script_print_namespaces(struct script_ctx *s, const struct tally_record_namespaces *n)
{
	static const char *const names[] = { "net", "uts", "ipc", "pid", "user", "mnt", "cgroup" };
	char t[160];

	snprintf(t, sizeof(t), " %d/%d - nr_namespaces: %u\n\t\t[", (int)n->pid, (int)n->tid,
		 (unsigned)n->nr);
	ob_str(s, t);
	for (uint64_t i = 0; i < n->nr; i++) {
		if (i && i % 4 == 0)
			ob_str(s, "\n\t\t ");
		snprintf(t, sizeof(t), "%u/%s: %llu/%#llx%s", (unsigned)i,
			 i < sizeof(names) / sizeof(names[0]) ? names[i] : "UNKNOWN",
			 (unsigned long long)n->link_info[i].dev,
			 (unsigned long long)n->link_info[i].ino, i + 1 != n->nr ? ", " : "]\n");
		ob_str(s, t);
	}
}

void script_src_release(struct script_ctx *s)
{
	for (int i = 0; i < s->nsrc_files; i++) {
		free(s->src_files[i].path);
		free(s->src_files[i].text);
	}
	s->nsrc_files = 0;
	for (size_t i = 0; i < s->nsrc_last; i++)
		free(s->src_last[i].file);
	free(s->src_last);
	s->src_last = NULL;
	s->nsrc_last = 0;
}
