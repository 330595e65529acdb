// SPDX-License-Identifier: MIT
/*
 * The histogram's cgroup, cgroup_id and transaction keys over what the
 * session keeps of the side band: a file of CGROUP records (an id named
 * twice keeps its first name), NAMESPACES records (a thread's last one
 * gives its cgroup namespace; a FORK of its tid forgets it) and samples
 * with known cgroup ids and transaction flags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>

static struct tally_data_writer *w;
static uint64_t buf[64];
static size_t n;

static void begin(uint32_t type)
{
	n = 1;
	buf[0] = type;		/* header: type, misc 0, size at end() */
}

static void put(uint64_t v) { buf[n++] = v; }

static void put_str(const char *s)	/* NUL-padded to 8 bytes */
{
	size_t l = strlen(s) + 1, words = (l + 7) / 8;

	memset(&buf[n], 0, words * 8);
	memcpy(&buf[n], s, l);
	n += words;
}

/* the sample_id_all trailer (TID TIME), then the record */
static void end(uint32_t pid, uint32_t tid, uint64_t time, bool trailer)
{
	struct perf_event_header h;

	if (trailer) {
		put((uint64_t)tid << 32 | pid);
		put(time);
	}
	memcpy(&h, buf, sizeof(h));
	h.size = (uint16_t)(n * 8);
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(tally_data_writer__write(w, buf, n * 8), 0);
}

static void cgroup(uint64_t id, const char *path, uint64_t t)
{
	begin(PERF_RECORD_CGROUP);
	put(id);
	put_str(path);
	end(42, 42, t, true);
}

static void namespaces(uint32_t tid, uint64_t ino, uint64_t t)
{
	begin(PERF_RECORD_NAMESPACES);
	put((uint64_t)tid << 32 | 42);
	put(NR_NAMESPACES);
	for (int i = 0; i < NR_NAMESPACES; i++) {
		put(4);
		put(i == CGROUP_NS_INDEX ? ino : 0xeff00000 + i);
	}
	end(42, tid, t, true);
}

static void sample(uint32_t tid, uint64_t t, uint64_t txn, uint64_t cg)
{
	begin(PERF_RECORD_SAMPLE);
	buf[0] |= (uint64_t)PERF_RECORD_MISC_USER << 32;
	put(0x1000);			/* IP */
	put((uint64_t)tid << 32 | 42);	/* pid, tid */
	put(t);				/* TIME */
	put(txn);			/* TRANSACTION */
	put(cg);			/* CGROUP */
	end(0, 0, 0, false);
}

static char *write_file(void)
{
	static char path[64];
	struct perf_event_attr a = {
		.type = PERF_TYPE_RAW, .size = sizeof(a), .config = 0x1cd, .sample_period = 1,
		.sample_id_all = 1, .cgroup = 1, .namespaces = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_CGROUP,
	};
	uint64_t id = 1;
	int fd;

	strcpy(path, "/tmp/test_hist_cgroup.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "raw 0x1cd"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	cgroup(7, "/a", 1);
	cgroup(7, "/b", 2);		/* perf keeps an id's first name */
	cgroup(9, "/c", 3);
	namespaces(42, 0x100, 4);
	namespaces(42, 0x101, 5);	/* the thread's last one counts */
	namespaces(43, 0x200, 6);
	begin(PERF_RECORD_FORK);	/* a new thread 43: no namespaces */
	put((uint64_t)42 << 32 | 43);	/* pid, ppid */
	put((uint64_t)42 << 32 | 43);	/* tid, ptid */
	put(7);
	end(43, 43, 7, true);
	sample(42, 10, 0, 7);
	sample(42, 11, PERF_TXN_ASYNC | PERF_TXN_RETRY | 3ull << PERF_TXN_ABORT_SHIFT, 7);
	sample(43, 12, 0, 11);
	sample(42, 13, PERF_TXN_ASYNC | PERF_TXN_RETRY | 3ull << PERF_TXN_ABORT_SHIFT, 0);
	sample(43, 14, 0, 11);
	sample(43, 15, 0, 11);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
	return path;
}

/* The rows of key as "samples cgroup name dev/ino txn" lines */
static char *rows_text(enum tally_hist_key key)
{
	char *path = write_file(), *text = NULL;
	size_t len = 0;
	TALLY_OPTS(tally_hist_opts, ho, .keys = &key, .nr_keys = 1);
	struct tally_session *ss = tally_session__open(path, NULL);
	struct tally_hist *h;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(ss);
	assert_non_null(out);
	unlink(path);
	h = tally_hist__new(ss, &ho);
	assert_non_null(h);
	assert_int_equal(tally_hist__run(h), 0);
	for (size_t i = 0; i < tally_hist__nr_rows(h, 0); i++) {
		TALLY_OPTS(tally_hist_row, v);

		assert_int_equal(tally_hist__row(h, 0, i, &v), 0);
		fprintf(out, "%llu %llu %s %llu/%#llx %#llx\n", (unsigned long long)v.samples,
			(unsigned long long)v.cgroup, v.cgroup_name ? v.cgroup_name : "-",
			(unsigned long long)v.cgroup_dev, (unsigned long long)v.cgroup_ino,
			(unsigned long long)v.transaction);
	}
	fclose(out);
	tally_hist__free(h);
	tally_session__close(ss);
	return text;
}

/* cgroup: by id, named by the first CGROUP record of it, none for an unnamed one */
static void test_cgroup(void **state)
{
	char *s = rows_text(TALLY_HIST_CGROUP);

	(void)state;
	assert_string_equal(s, "3 11 - 0/0 0\n"
			       "2 7 /a 0/0 0\n"
			       "1 0 - 0/0 0x300000018\n");
	free(s);
}

/* cgroup_id: the thread's last NAMESPACES' cgroup one; a forked tid starts without (perf report's rows on this file, equal ones in its order) */
static void test_cgroup_id(void **state)
{
	char *s = rows_text(TALLY_HIST_CGROUP_ID);

	(void)state;
	assert_string_equal(s, "3 7 /a 4/0x101 0\n"	/* equal: perf's order */
			       "3 11 - 0/0 0\n");
	free(s);
}

/* transaction: the flags and abort code make the rows */
static void test_transaction(void **state)
{
	char *s = rows_text(TALLY_HIST_TRANSACTION);

	(void)state;
	assert_string_equal(s, "4 7 /a 0/0 0\n"
			       "2 7 /a 0/0 0x300000018\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup),
		cmocka_unit_test(test_cgroup_id),
		cmocka_unit_test(test_transaction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
