// SPDX-License-Identifier: MIT
/*
 * lib/trace_fmt.c: every event format of the running kernel is read as
 * undamaged (maple_tree's tabs, kvmmmu's statement expressions), and a
 * %s of a kernel string's address prints the string the tracing data's
 * printk formats give it, as perf's; a record's fields come out for
 * perf trace's printer, none read outside the record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/events.h>
#include <tally/syscalls.h>
#include <tally/trace_fmt.h>
#include "internal.h"
#include "data_write_internal.h"

/* TRACING_DATA of every event in tracefs, through the recorder's writer. */
static void test_running_kernel_formats(void **state)
{
	const char *dir = tally_tracing_dir(NULL, 0);
	struct tally__buf b = { 0 };
	struct perf_event_attr *attrs;
	const struct perf_event_attr **pa;
	struct tally_trace_fmt *f;
	const char *ev, *why;
	char pat[4096];
	int nr_dmg = 0;
	glob_t g;

	if (!dir)
		skip();
	snprintf(pat, sizeof(pat), "%s/events/*/*/id", dir);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc < 100) {
		globfree(&g);
		skip();
	}
	attrs = calloc(g.gl_pathc, sizeof(*attrs));
	pa = calloc(g.gl_pathc, sizeof(*pa));
	assert_non_null(attrs);
	assert_non_null(pa);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *fp = fopen(g.gl_pathv[i], "r");
		unsigned long long id = 0;

		assert_non_null(fp);
		assert_int_equal(fscanf(fp, "%llu", &id), 1);
		fclose(fp);
		attrs[i].type = PERF_TYPE_TRACEPOINT;
		attrs[i].config = id;
		pa[i] = &attrs[i];
	}
	assert_int_equal(tally__tracing_data(&b, pa, g.gl_pathc), 0);
	f = tally_trace_fmt__new(b.p, b.len);
	assert_non_null(f);
	for (int i = 0; tally_trace_fmt__damaged(f, i, &ev, &why) >= 0; i++, nr_dmg++)
		print_error("%s: %s\n", ev, why);
	print_message("# %zu formats, %d read as damaged\n", g.gl_pathc, nr_dmg);
	assert_int_equal(nr_dmg, 0);
	tally_trace_fmt__free(f);
	tally__buf_free(&b);
	free(pa);
	free(attrs);
	globfree(&g);
}

static const char format[] =
	"name: ev\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:const char * fn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\tNode: <%s>\", REC->fn, REC->fn\n";

/* Lines a damaged printk_formats may hold: none may be read outside. */
static const char printk[] =
	"0x1000 : \"mas_split\"\n"
	"0x2000 : \"a\"\n"
	"0x3000 : \"\"\n"
	"no colon\n"
	"\n"
	"0x4000 : \"ends in a newline\\n\"\n"
	"0x5000 :";

static struct tally_trace_fmt *crafted(struct tally__buf *b)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44 };
	uint8_t le = 0, lsz = 8;

	tally__buf_add(b, magic, sizeof(magic));
	tally__buf_add(b, "tracing0.6", 11);
	tally__buf_add(b, &le, 1);
	tally__buf_add(b, &lsz, 1);
	tally__buf_u32(b, 4096);
	tally__buf_add(b, "header_page", 12);
	tally__buf_u64(b, 0);
	tally__buf_add(b, "header_event", 13);
	tally__buf_u64(b, 0);
	tally__buf_u32(b, 0);			/* ftrace formats */
	tally__buf_u32(b, 1);			/* systems */
	tally__buf_add(b, "sys", 4);
	tally__buf_u32(b, 1);
	tally__buf_u64(b, sizeof(format) - 1);
	tally__buf_add(b, format, sizeof(format) - 1);
	tally__buf_u32(b, 0);			/* kallsyms */
	tally__buf_u32(b, sizeof(printk) - 1);
	tally__buf_add(b, printk, sizeof(printk) - 1);
	tally__buf_u64(b, 0);			/* saved cmdlines */
	assert_false(b->oom);
	return tally_trace_fmt__new(b->p, b->len);
}

static void print_fn(struct tally_trace_fmt *f, uint64_t fn, const char *want)
{
	unsigned char raw[16] = { 7 };
	char buf[256];

	memcpy(raw + 8, &fn, 8);
	assert_true(tally_trace_fmt__print(f, raw, sizeof(raw), buf, sizeof(buf)) > 0);
	assert_string_equal(buf, want);
}

/* The tab in the string is kept, the address prints its printk string. */
static void test_printk_strings(void **state)
{
	struct tally__buf b = { 0 };
	struct tally_trace_fmt *f = crafted(&b);

	assert_non_null(f);
	assert_int_equal(tally_trace_fmt__damaged(f, 0, NULL, NULL), -ENOENT);
	print_fn(f, 0x1000, "mas_split\tNode: <mas_split>");
	print_fn(f, 0x2000, "a\tNode: <a>");
	print_fn(f, 0x3000, "\tNode: <>");
	print_fn(f, 0x4000, "ends in a newline\tNode: <ends in a newline>");
	print_fn(f, 0x6000, "6000\tNode: <6000>");	/* none: the address, as perf */
	tally_trace_fmt__free(f);
	tally__buf_free(&b);
}

static const char exec_format[] =
	"name: exec\n"
	"ID: 9\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:char comm[4];\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:void * ptr;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d\", __get_str(filename), REC->pid\n";

/* The tracing data with exec_format only, and a record of it in raw[48] (37 bytes). */
static struct tally_trace_fmt *exec_fmt(struct tally__buf *bp, unsigned char *raw)
{
	struct tally__buf b = { 0 };
	struct tally_trace_fmt *f;
	uint32_t loc = (5u << 16) | 32;	/* "/bin" and its NUL at 32 */
	int32_t pid = -1;
	uint64_t ptr = 0xffff888012345678;

	tally__buf_add(&b, (const unsigned char[]){ 0x17, 0x08, 0x44 }, 3);
	tally__buf_add(&b, "tracing0.6", 11);
	tally__buf_add(&b, (const uint8_t[]){ 0, 8 }, 2);
	tally__buf_u32(&b, 4096);
	tally__buf_add(&b, "header_page", 12);
	tally__buf_u64(&b, 0);
	tally__buf_add(&b, "header_event", 13);
	tally__buf_u64(&b, 0);
	tally__buf_u32(&b, 0);
	tally__buf_u32(&b, 1);
	tally__buf_add(&b, "sched", 6);
	tally__buf_u32(&b, 1);
	tally__buf_u64(&b, sizeof(exec_format) - 1);
	tally__buf_add(&b, exec_format, sizeof(exec_format) - 1);
	tally__buf_u32(&b, 0);
	tally__buf_u32(&b, 0);
	tally__buf_u64(&b, 0);
	f = tally_trace_fmt__new(b.p, b.len);
	assert_non_null(f);
	memset(raw, 0, 48);
	raw[0] = 9;
	memcpy(raw + 8, &loc, 4);
	memcpy(raw + 12, &pid, 4);
	memcpy(raw + 16, "ls", 3);
	memcpy(raw + 24, &ptr, 8);
	memcpy(raw + 32, "/bin", 5);
	*bp = b;
	return f;
}

/* The fields of a record, as the tracer's printer takes them; none read outside it. */
static void test_fields(void **state)
{
	struct tally__buf b = { 0 };
	struct tally_tp_field fl[8];
	struct tally_trace_fmt *f;
	unsigned char raw[48];
	uint64_t ptr = 0xffff888012345678;

	(void)state;
	f = exec_fmt(&b, raw);
	assert_int_equal(tally_trace_fmt__fields(f, raw, 37, fl, 8), 4);
	assert_string_equal(fl[0].name, "filename");
	assert_true(fl[0].is_array);
	assert_int_equal(fl[0].data_len, 5);
	assert_memory_equal(fl[0].data, "/bin", 5);
	assert_string_equal(fl[1].type, "pid_t");
	assert_true(fl[1].val == 0xffffffff);	/* unsigned, of its size */
	assert_true(fl[2].is_array);
	assert_int_equal(fl[2].data_len, 4);
	assert_string_equal(fl[2].data, "ls");
	assert_true(fl[3].is_pointer);
	assert_true(fl[3].val == ptr);
	/* fewer slots: the count still says how many */
	assert_int_equal(tally_trace_fmt__fields(f, raw, 37, fl, 1), 4);
	/* the string past the record's end, a record short of its fields */
	assert_int_equal(tally_trace_fmt__fields(f, raw, 36, fl, 8), -EBADMSG);
	assert_int_equal(tally_trace_fmt__fields(f, raw, 20, fl, 8), -EBADMSG);
	raw[0] = 8;	/* an id with no format */
	assert_int_equal(tally_trace_fmt__fields(f, raw, 37, fl, 8), -ENOENT);
	tally_trace_fmt__free(f);
	tally__buf_free(&b);
}

/*
 * The typed reader (sched, lock and kmem read through it): the names
 * asked, in their order, with the mask of those the event has; the
 * values as tally_trace_fmt__fields gives them; the same errors.
 */
static void test_reader(void **state)
{
	static const char *const names[] = { "comm", "nosuch", "pid", "filename", "ptr" };
	struct tally__buf b = { 0 };
	struct tally_tp_val v[5];
	struct tally_tp_reader *r;
	struct tally_trace_fmt *f;
	unsigned char raw[48];
	char s[3];

	(void)state;
	f = exec_fmt(&b, raw);
	assert_null(tally_tp_reader__new(f, names, 0));
	assert_null(tally_tp_reader__new(NULL, names, 5));
	r = tally_tp_reader__new(f, names, 5);
	assert_non_null(r);
	for (int round = 0; round < 2; round++) {	/* the second: the event's fields cached */
		memset(v, 0xa5, sizeof(v));
		assert_int_equal(tally_tp_reader__read(r, raw, 37, v), 1 | 4 | 8 | 16);
		assert_int_equal(v[0].data_len, 4);
		assert_string_equal(v[0].data, "ls");
		assert_true(v[1].val == 0 && v[1].data == NULL);	/* not in the event: zeroed */
		assert_true(v[2].val == 0xffffffff);
		assert_int_equal(v[3].data_len, 5);
		assert_memory_equal(v[3].data, "/bin", 5);
		assert_true(v[4].val == 0xffff888012345678);
	}
	assert_int_equal(tally_tp_val__str(&v[3], s, sizeof(s)), 2);	/* cut to fit */
	assert_string_equal(s, "/b");
	assert_int_equal(tally_tp_val__str(&v[1], s, sizeof(s)), 0);
	assert_string_equal(s, "");
	assert_int_equal(tally_tp_reader__read(r, raw, 36, v), -EBADMSG);
	assert_int_equal(tally_tp_reader__read(r, raw, 20, v), -EBADMSG);
	raw[0] = 8;
	assert_int_equal(tally_tp_reader__read(r, raw, 37, v), -ENOENT);
	assert_int_equal(tally_tp_reader__read(NULL, raw, 37, v), -EINVAL);
	tally_tp_reader__free(r);
	tally_tp_reader__free(NULL);
	tally_trace_fmt__free(f);
	tally__buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_running_kernel_formats),
		cmocka_unit_test(test_printk_strings),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_reader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
