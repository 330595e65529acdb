// SPDX-License-Identifier: MIT
/*
 * tally record, one recording: the targets (a corked workload, -p/-t
 * threads, CPUs, a -G cgroup), the events configured for sampling, one
 * ring per CPU (per thread with --per-thread), the perf.data writer fed
 * straight from the mapped ring pages, the synthesized records for what
 * existed before (the kernel, -p/-a processes), the wait loop (rings, the
 * workload's exit, signals), SIGUSR2 snapshots, build ids of the DSOs the
 * run mapped, and perf's closing lines. Lost samples are always shown.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <tally/tally.h>
#include <tally/data_write.h>
#include <tally/offcpu.h>
#include "record_rec.h"
#include "wait.h"

static const char progname[] = RECORD_PROGNAME;
static volatile sig_atomic_t got_usr2;

/* -------------------------------------------------------------------- */
/* what goes by in the rings */

static void dso_add(struct rec *r, const char *name, pid_t pid, bool kernel)
{
	struct dso_seen *n;

	/* [vdso] is the kernel's image, noted by its build id as perf does */
	if (!name[0] || (name[0] == '[' && !kernel && strcmp(name, "[vdso]")) ||
	    !strncmp(name, "//anon", 6) ||
	    !strncmp(name, "/memfd:", 7))
		return;
	for (size_t i = 0; i < r->nr_dsos; i++)
		if (!strcmp(r->dsos[i].name, name))
			return;
	if (r->nr_dsos == r->cap_dsos) {
		size_t cap = r->cap_dsos ? r->cap_dsos * 2 : 32;

		n = realloc(r->dsos, cap * sizeof(*n));
		if (!n)
			return;	/* a build id less, not data */
		r->dsos = n;
		r->cap_dsos = cap;
	}
	r->dsos[r->nr_dsos].name = strdup(name);
	if (!r->dsos[r->nr_dsos].name)
		return;
	r->dsos[r->nr_dsos].pid = pid;
	r->dsos[r->nr_dsos].kernel = kernel;
	r->nr_dsos++;
}

/* Each record of a drain: count samples and losses, note mapped DSOs. */
static int on_record(void *ctx, const struct perf_event_header *h, int ring)
{
	struct rec *r = ctx;
	struct tally_record rec;
	bool kernel = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;

	int err = 0;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r->samples++;
		if (r->strs)
			record_strings_sample(r->strs, r->l, h);
		break;
	case PERF_RECORD_LOST:
		err = tally_record__parse(h, h->size, &r->side, &rec);
		if (!err)
			r->lost += rec.u.lost.lost;
		break;
	case PERF_RECORD_MMAP2:
		err = tally_record__parse(h, h->size, &r->side, &rec);
		if (!err && (rec.u.mmap2.prot & PROT_EXEC))
			dso_add(r, rec.u.mmap2.filename, (pid_t)rec.u.mmap2.pid, kernel);
		break;
	case PERF_RECORD_MMAP:
		err = tally_record__parse(h, h->size, &r->side, &rec);
		if (!err && !(h->misc & PERF_RECORD_MISC_MMAP_DATA))
			dso_add(r, rec.u.mmap.filename, (pid_t)rec.u.mmap.pid, kernel);
		break;
	}
	/* written to the file all the same; said at the end, never silently */
	if (err && !r->bad++) {
		r->bad_type = h->type;
		r->bad_ring = ring;
	}
	return 0;
}

/* The bytes of the records just walked go to the file as they lie in the ring. */
static int on_bytes(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct rec *r = ctx;
	int err;

	(void)ring;
	err = tally_data_writer__writev(r->w, iov, n);
	if (err) {
		if (!r->write_err)
			r->write_err = err;
		return err;
	}
	r->wrote = true;
	return 0;
}

/* One pass over the rings; a FINISHED_ROUND after a pass that wrote. */
static int drain(struct rec *r)
{
	int n;

	if (r->write_err)
		return r->write_err;
	if (r->strs)
		record_strings_before_drain(r->strs);
	n = tally_evlist__drain(r->l, on_record, on_bytes, r);
	if (n < 0)
		return r->write_err ? r->write_err : n;
	if (r->strs)
		record_strings_flush(r->strs, r->w, false);
	if (r->wrote) {
		r->wakeups++;
		r->wrote = false;
		n = tally_data_writer__finished_round(r->w);
		if (n && !r->write_err)
			r->write_err = n;
	}
	return r->write_err;
}

/* -------------------------------------------------------------------- */
/* the output */

/* perf's name for a switched output: FILE.YYYYMMDDHHMMSScc (its fetch_current_timestamp) */
static void stamped_path(const char *base, char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	snprintf(buf, len, "%s.%04d%02d%02d%02d%02d%02d%02d", base, tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (int)(tv.tv_usec / 10000));
}

static int create_output(struct rec *r)
{
	r->out_fd = open(r->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (r->out_fd < 0) {
		fprintf(stderr, "%s: cannot create %s: %s\n", progname, r->path, strerror(errno));
		return -1;
	}
	return 0;
}

static int open_output(struct rec *r)
{
	const char *out = r->cfg->output ? r->cfg->output : "perf.data";
	struct stat st;

	if (r->pipe)
		return 0;	/* stdout was kept aside before the workload was made */
	snprintf(r->path, sizeof(r->path), "%s", out);
	/* as perf: the previous file is kept as FILE.old */
	if (!stat(r->path, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		char old[4200];

		snprintf(old, sizeof(old), "%s.old", r->path);
		if (rename(r->path, old))
			fprintf(stderr, "%s: cannot keep %s as %s: %s\n", progname, r->path, old,
				strerror(errno));
	}
	return create_output(r);
}

/* Some event samples the kernel: perf synthesizes the kernel's map only then. */
static bool samples_kernel(struct rec *r)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(r->l, e)
		if (!tally_evsel__attr(e)->exclude_kernel)
			return true;
	return false;
}

/*
 * The kernel's map, from /proc/kallsyms and /proc/iomem. A reader that may
 * not see kernel addresses (kptr_restrict, perf_event_paranoid, no
 * CAP_SYSLOG) gets zeros there: as perf, a warning and no kernel map (its
 * samples stay unresolved), not a failed recording. -EACCES/-ENOENT/-EPERM
 * come from reading /proc, before anything is written; other errors are
 * the writer's.
 */
static int synth_kernel(struct rec *r)
{
	int err;

	if (!samples_kernel(r))
		return 0;
	err = tally_synth__kernel_mmap(r->w, r->sid_attr);
	if (err != -EACCES && err != -ENOENT && err != -EPERM)
		return err;
	if (!r->cfg->quiet && !r->kmap_warned) {
		r->kmap_warned = true;
		fprintf(stderr, "%s: warning: %s: no kernel map recorded, kernel samples will "
			"not be resolved.\n"
			"Check /proc/sys/kernel/kptr_restrict and "
			"/proc/sys/kernel/perf_event_paranoid, or run as root.\n", progname,
			err == -EACCES ? "/proc/kallsyms hides the kernel's addresses from this user" :
			err == -ENOENT ? "/proc/kallsyms has no _text" :
			"/proc/kallsyms cannot be read");
	}
	return 0;
}

/* The processes that existed before: -p/-t targets, every one with -a. */
static int synth_targets(struct rec *r, bool workload)
{
	const struct cli_target *t = &r->cfg->target;
	int err = synth_kernel(r);

	if (err)
		return err;
	/* as perf: the cgroups there are, before the processes */
	if (r->cfg->all_cgroups) {
		err = tally_synth__cgroups(r->w, r->sid_attr);
		if (err && err != -ENOENT)
			return err;
	}
	if (r->ts.system_wide) {
		err = tally_synth__all(r->w, r->sid_attr);
		/* --namespaces: every thread's, as perf's synthesized ones */
		return err || !r->cfg->namespaces ? err : tally_synth__namespaces(r->w, r->sid_attr, -1);
	}
	if (t->pids || t->tids || t->uid) {
		struct tally_thread_map *m = r->ts.threads;
		int n = tally_thread_map__nr(m), ndone = 0;
		/* each listed process once (a -t thread: its process); -u's threads come by tid */
		pid_t *done = calloc((size_t)n + 1, sizeof(*done));

		if (!done)
			return -ENOMEM;
		for (int i = 0; i < n && !err; i++) {
			pid_t pid = tally_thread_map__pid(m, i);
			char p[64], buf[256];
			bool seen = false;
			FILE *f;

			snprintf(p, sizeof(p), "/proc/%d/status", pid);
			f = fopen(p, "r");
			if (f) {
				while (fgets(buf, sizeof(buf), f))
					if (sscanf(buf, "Tgid: %d", &pid) == 1)
						break;
				fclose(f);
			}
			for (int k = ndone - 1; k >= 0 && !seen; k--)
				seen = done[k] == pid;
			if (seen)
				continue;
			done[ndone++] = pid;
			err = tally_synth__process(r->w, r->sid_attr, pid, true);
			if (!err && r->cfg->namespaces)
				err = tally_synth__namespaces(r->w, r->sid_attr, pid);
			if (err == -ESRCH || err == -ENOENT)
				err = 0;	/* gone meanwhile */
		}
		free(done);
		if (err)
			return err;
	}
	if (workload && r->ts.wl && r->ts.wl_is_target) {
		err = tally_synth__process(r->w, r->sid_attr, tally_workload__pid(r->ts.wl), true);
		if (err && err != -ESRCH && err != -ENOENT)
			return err;
	}
	/* the workload's namespaces, as perf's: it forked before the events opened */
	if (r->cfg->namespaces && r->ts.wl && r->ts.wl_is_target) {
		err = tally_synth__namespaces(r->w, r->sid_attr, tally_workload__pid(r->ts.wl));
		if (err && err != -ESRCH && err != -ENOENT)
			return err;
	}
	return 0;
}

/* A new writer on r->out_fd: attrs with their ids, the synthesized prologue. */
static int start_writer(struct rec *r, bool workload_maps)
{
	struct tally_data_writer_opts wo = {
		.sz = sizeof(wo),
		.pipe = r->pipe,
		.zstd_level = r->cfg->zstd_level,
		.cmdline = (const char *const *)r->cfg->orig_argv,
		.cmdline_nr = r->cfg->orig_argc,
	};
	struct tally_evsel *e;
	int err;

	r->w = tally_data_writer__new_fd(r->out_fd, &wo);
	if (!r->w) {
		fprintf(stderr, "%s: %s\n", progname, strerror(errno));
		return -1;
	}
	int idx = 0;

	tally_evlist__for_each_evsel(r->l, e) {
		int nc = tally_evsel__nr_cpus(e), nt = tally_evsel__nr_threads(e), k = 0;

		/* -e '{a,b}': perf's GROUP_DESC, so that report shows the group's columns */
		if (tally_evsel__is_leader(e) && tally_evsel__nr_members(e) > 1 &&
		    (err = tally_data_writer__add_group(r->w, idx, tally_evsel__nr_members(e), NULL)))
			goto fail;
		idx++;
		uint64_t *ids = calloc((size_t)nc * (size_t)nt + 1, sizeof(*ids));

		if (!ids) {
			err = -ENOMEM;
			goto fail;
		}
		for (int c = 0; c < nc; c++)
			for (int t = 0; t < nt; t++) {
				uint64_t id;

				if (tally_evsel__fd(e, c, t) >= 0 && !tally_evsel__id(e, c, t, &id))
					ids[k++] = id;
			}
		err = tally_data_writer__add_attr(r->w, tally_evsel__attr(e), ids, (size_t)k,
						  tally_evsel__name(e));
		free(ids);
		if (err)
			goto fail;
	}
	/*
	 * The kernel's build id heads the table, as perf's (its kernel DSO
	 * is made first): perf makes a DSO for each entry in table order and
	 * orders equal call-graph branches of two DSOs by where those lie in
	 * its heap, so a kernel entry last (or none) drew them the other way
	 */
	tally_evlist__for_each_evsel(r->l, e)
		if (!tally_evsel__attr(e)->exclude_kernel) {
			dso_add(r, "[kernel.kallsyms]", -1, true);
			break;
		}
	err = tally_data_writer__begin(r->w);
	if (!err)
		err = synth_targets(r, workload_maps);
	if (!err)
		return 0;
fail:
	fprintf(stderr, "%s: writing %s: %s\n", progname, r->pipe ? "stdout" : r->path,
		strerror(-err));
	if (!r->write_err)
		r->write_err = err;
	return -1;
}

/*
 * The build ids of the DSOs the run mapped; then the file is whole. Each
 * file is kept in perf's build-id cache too (unless -N), as perf record
 * keeps those it sampled, so that annotate and report still read the
 * recorded code after a rebuild. A file the cache cannot take is only a
 * copy less: perf says nothing either.
 */
static int finish_writer(struct rec *r)
{
	int err;

	if (r->strs)
		record_strings_flush(r->strs, r->w, true);
	if (!r->cfg->no_buildid && !r->write_err) {
		for (size_t i = 0; i < r->nr_dsos; i++) {
			const struct dso_seen *ds = &r->dsos[i];
			bool vdso = !ds->kernel && !strcmp(ds->name, "[vdso]");
			uint8_t id[64];
			int n = ds->kernel ? tally_build_id__kernel(id, sizeof(id)) :
				vdso ? tally_build_id__vdso(id, sizeof(id)) :
				tally_build_id__file(ds->name, id, sizeof(id));

			if (n <= 0)
				continue;
			/*
			 * pid -1 (perf's HOST_KERNEL_ID) for every host file, as
			 * perf writes it: perf files a build id of another pid
			 * under a guest machine, and the host's files had none
			 */
			tally_data_writer__add_build_id(r->w, -1,
				ds->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
				id, (size_t)n, ds->kernel ? "[kernel.kallsyms]" : ds->name);
			/* as perf: a pipe's reader has the build ids, no copies are kept */
			if (!r->cfg->no_buildid_cache && !ds->kernel && !r->pipe)
				(void)tally_build_id_cache__add(NULL, ds->name, id, (size_t)n);
		}
	}
	err = tally_data_writer__finish(r->w);
	if (err && !r->write_err)
		r->write_err = err;
	return err;
}

/*
 * What the finished output holds: the file's size (a full disk cut it
 * short of what was written), the bytes sent down a pipe.
 */
static uint64_t written(struct rec *r)
{
	struct stat st;

	if (!r->pipe && !fstat(r->out_fd, &st))
		return (uint64_t)st.st_size;
	return tally_data_writer__bytes(r->w);
}

static void print_summary(struct rec *r, const char *path, uint64_t bytes, uint64_t samples)
{
	uint64_t z = tally_data_writer__compressed(r->w);

	if (r->cfg->quiet)
		return;
	fprintf(stderr, "[ %s: Woken up %llu times to write data ]\n", progname,
		(unsigned long long)r->wakeups);
	fprintf(stderr, "[ %s: Captured and wrote %.3f MB %s (%llu samples)", progname,
		bytes / 1048576.0, path, (unsigned long long)samples);
	/* perf's: the records' bytes before zstd, and their ratio to the COMPRESSED ones */
	if (z)
		fprintf(stderr, ", compressed (original %.3f MB, ratio is %.3f)",
			tally_data_writer__uncompressed(r->w) / 1048576.0,
			(double)tally_data_writer__uncompressed(r->w) / (double)z);
	fprintf(stderr, " ]\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --switch-max-files N: the last N switched files kept, the one before them removed (perf's ring) */
static void keep_last(struct rec *r, const char *path)
{
	int n = r->cfg->switch_max_files;

	if (n <= 0)
		return;
	if (!r->switched) {
		r->switched = calloc((size_t)n, sizeof(*r->switched));
		if (!r->switched)
			return;	/* every file kept */
	}
	r->switched_cur = (r->switched_cur + 1) % n;
	if (r->switched[r->switched_cur]) {
		unlink(r->switched[r->switched_cur]);
		free(r->switched[r->switched_cur]);
	}
	r->switched[r->switched_cur] = strdup(path);
}

/*
 * --switch-output=signal: the file so far becomes FILE.<timestamp> (with
 * --overwrite: what the rings hold now, after the processes' maps) and,
 * unless at exit, recording goes on into a new FILE.
 */
static int switch_output(struct rec *r, bool at_exit)
{
	char stamped[4200];
	uint64_t bytes, samples;

	if (r->cfg->overwrite) {
		if (r->ts.wl && r->ts.wl_is_target)
			tally_synth__process(r->w, r->sid_attr, tally_workload__pid(r->ts.wl), true);
		tally_evlist__pause(r->l, true);
		drain(r);
		tally_evlist__pause(r->l, false);
	}
	finish_writer(r);
	bytes = written(r);
	samples = tally_data_writer__samples(r->w);
	tally_data_writer__free(r->w);
	r->w = NULL;
	close(r->out_fd);
	r->out_fd = -1;
	stamped_path(r->path, stamped, sizeof(stamped));
	/*
	 * two switches within one hundredth of a second (a size reached at
	 * consecutive wake-ups, then the exit) would give the same name, the
	 * second file replacing the first: the next hundredth's name instead
	 */
	for (int i = 0; i < 50 && !access(stamped, F_OK); i++) {
		usleep(2000);
		stamped_path(r->path, stamped, sizeof(stamped));
	}
	if (rename(r->path, stamped)) {
		fprintf(stderr, "%s: cannot rename %s to %s: %s\n", progname, r->path, stamped,
			strerror(errno));
		return -1;
	}
	r->switched_at = now_s();
	keep_last(r, stamped);
	if (!r->cfg->quiet) {
		fprintf(stderr, "[ %s: dump data: Woken up %llu times ]\n", progname,
			(unsigned long long)r->wakeups);
		fprintf(stderr, "[ %s: Dump %s (%.3f MB, %llu samples) ]\n", progname, stamped,
			bytes / 1048576.0, (unsigned long long)samples);
	}
	if (at_exit)
		return 0;
	if (create_output(r))
		return -1;
	return start_writer(r, true);
}

/*
 * The kernel's own count of what it could not write (PERF_FORMAT_LOST,
 * Linux 6.0): it includes samples lost while a ring was full at the very
 * end, for which no LOST record could be written any more. As perf 6.1,
 * each fd's count goes in the file as a LOST_SAMPLES record (perf report's
 * "Total Lost Samples"), and that total is the one said.
 */
static uint64_t lost_total(struct rec *r)
{
	uint64_t n = 0;
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(r->l, e)
		if (!(tally_evsel__attr(e)->read_format & PERF_FORMAT_LOST))
			return r->lost;
	if (tally_evlist__read(r->l))
		return r->lost;
	tally_evlist__for_each_evsel(r->l, e)
		for (int c = 0; c < tally_evsel__nr_cpus(e); c++)
			for (int t = 0; t < tally_evsel__nr_threads(e); t++) {
				const struct tally_counts *v = tally_evsel__counts(e, c, t);
				uint64_t id = 0;
				int err;

				if (!v || !v->lost)
					continue;
				n += v->lost;
				if (!r->w || r->write_err)
					continue;
				tally_evsel__id(e, c, t, &id);
				err = tally_synth__lost_samples(r->w, tally_evsel__attr(e), id, v->lost);
				if (err)
					r->write_err = err;
			}
	return n;
}

/* -------------------------------------------------------------------- */
/* the loop */

static void on_usr2(int sig)
{
	(void)sig;
	got_usr2 = 1;
}

/* the side-band's dummy (-D's, -a's) or every other event, turned on or off */
static void set_events(struct rec *r, bool dummy, bool on)
{
	struct tally_evsel *e;

	tally_evlist__for_each_evsel(r->l, e) {
		const struct perf_event_attr *a = tally_evsel__attr(e);

		if ((a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY) != dummy)
			continue;
		if (on)
			tally_evsel__enable(e);
		else
			tally_evsel__disable(e);
	}
}

/* --control: the events but the side-band's dummy on or off (perf's *_non_dummy) */
static void on_ctl_cmd(void *arg, enum cli_ctl_cmd cmd)
{
	struct rec *r = arg;

	/* perf's snapshot: with --switch-output, the file so far (as SIGUSR2, at the next tick) */
	if (cmd == CLI_CTL_SNAPSHOT && r->cfg->switch_output_signal)
		got_usr2 = 1;
	if (cmd != CLI_CTL_ENABLE && cmd != CLI_CTL_DISABLE)
		return;
	set_events(r, false, cmd == CLI_CTL_ENABLE);
	if (!r->cfg->quiet)
		fprintf(stderr, cmd == CLI_CTL_ENABLE ? "Events enabled\n" : "Events disabled\n");
}

static int on_fds(void *arg, struct pollfd *fds, int nfds)
{
	struct rec *r = arg;

	int err = 0;

	if (!r->cfg->overwrite)	/* overwrite rings are read when a snapshot is asked */
		err = drain(r);
	/* --max-size: as perf, said once, the command sent SIGTERM, the recording over */
	if (!err && r->cfg->max_size && r->w && written(r) > r->cfg->max_size) {
		if (!r->cfg->quiet)
			fprintf(stderr, "[ %s: size limit reached (%llu KB), stopping session ]\n",
				progname, (unsigned long long)(written(r) >> 10));
		if (r->ts.wl && r->ts.wl_is_target)
			tally_workload__kill(r->ts.wl, SIGTERM);
		return 1;
	}
	/* --switch-output=SIZE: the file switched as soon as a drain passed the size, as perf's */
	if (!err && r->cfg->switch_output_size && r->w && !r->switch_failed &&
	    written(r) >= r->cfg->switch_output_size && switch_output(r, false))
		r->switch_failed = true;
	/* a -p target that exited must not keep the poll awake */
	if (!err && (fds[0].revents & (POLLIN | POLLHUP)))
		tally_evlist__prune_hup(r->l);
	if (!err && nfds > 1 && fds[1].revents) {
		int stop = cli_control_read(&r->ctl, on_ctl_cmd, r);

		if (r->ctl.closed)
			fds[1].fd = -1;	/* its writers gone: not polled again */
		if (stop == CLI_CTL_STOP)
			return 1;
	}
	return err;
}

/* Every 100 ms with --switch-output: SIGUSR2 asks for a snapshot. */
static void on_tick(void *arg, double now)
{
	struct rec *r = arg;

	(void)now;
	/* the strings' ring wakes nobody: drained with the rings, 10 times a second */
	if (r->strs && !r->cfg->overwrite)
		drain(r);
	/* --switch-output=TIME: checked here, at most 100 ms late (SIZE: at each drain, on_fds) */
	if (!got_usr2 && r->w && !r->switch_failed && r->cfg->switch_output_secs &&
	    now_s() - r->switched_at >= r->cfg->switch_output_secs)
		got_usr2 = 1;
	if (!got_usr2)
		return;
	got_usr2 = 0;
	if (switch_output(r, false))
		r->switch_failed = true;
}

/* -D's time came: the events start (the side-band dummy ran already) */
static void on_enable(void *arg, double now)
{
	struct rec *r = arg;

	(void)now;
	tally_evlist__enable(r->l);
}

/* the events of targets already running start now; with -D only the side-band's dummy */
static void enable_now(struct rec *r)
{
	if (!r->cfg->delay_ms)
		tally_evlist__enable(r->l);
	else
		set_events(r, true, true);
}

/* A command that died of a signal: its name and the signal, as a shell says it. */
static void print_wl_signal(const struct rec *r, const struct cli_wait *w)
{
	if (r->ts.wl && r->ts.wl_is_target && WIFSIGNALED(w->status))
		fprintf(stderr, "%s: %s\n", r->cfg->cmd_argv[0], strsignal(WTERMSIG(w->status)));
}

static void release(struct rec *r)
{
	cli_control_close(&r->ctl);
	tally_data_writer__free(r->w);
	if (r->out_fd >= 0)
		close(r->out_fd);
	tally_offcpu__close(r->offcpu);
	record_strings_close(r->strs, r->cfg->quiet);
	tally_evlist__free(r->l);
	cg_fds_close(&r->cg);
	cli_targets__release(&r->ts);
	for (size_t i = 0; i < r->nr_dsos; i++)
		free(r->dsos[i].name);
	free(r->dsos);
	for (int i = 0; r->switched && i < r->cfg->switch_max_files; i++)
		free(r->switched[i]);
	free(r->switched);
}

int record_run(const struct record_config *cfg)
{
	struct rec r = { .cfg = cfg, .out_fd = -1, .ts = CLI_TARGETS_INIT("record"),
			 .ctl = { .ctl_fd = -1, .ack_fd = -1 } };
	struct tally_evlist_mmap_opts mo = {
		.sz = sizeof(mo),
		.pages = cfg->mmap_pages > 0 ? (size_t)cfg->mmap_pages : 0,
		.overwrite = cfg->overwrite,
	};
	struct pollfd pfd[2];
	struct cli_wait w;
	struct tally_evsel *e;
	int ret = 1, err;
	bool wl_ran = false, stopped;

	/* perf opens it first: its ACK FIFO waits for the controlling program */
	if (cfg->control && (ret = cli_control_open(&r.ctl, cfg->control, "record")))
		return ret;
	ret = 1;
	r.pipe = cfg->output && !strcmp(cfg->output, "-");
	if (r.pipe) {
		/*
		 * The data owns stdout: keep it aside and point fd 1 at
		 * stderr, so the workload's output cannot corrupt the stream.
		 */
		r.out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (r.out_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			fprintf(stderr, "%s: %s\n", progname, strerror(errno));
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe is a write error, said once */
	/* perf's line for -F max: the rate it is */
	if (cfg->freq_max && !cfg->quiet)
		fprintf(stderr, "info: Using a maximum frequency rate of %llu Hz\n",
			(unsigned long long)record_max_sample_rate());
	if (cli_signals_setup())
		goto out;
	/* a pipe's reader cannot take a section of tally's: perf 6.1 would warn */
	if (cfg->syscall_strings && !r.pipe && !cfg->overwrite)
		r.strs = record_strings_open(cfg->quiet);
	if (cli_targets__open(&r.ts, &cfg->target, cfg->cmd_argc ? cfg->cmd_argv : NULL, 0) ||
	    record_cpus_for_threads(&r) || record_open_events(&r))
		goto out;
	if (r.strs)
		record_strings_events(r.strs, r.l);
	if (cfg->off_cpu && !(r.offcpu = record_offcpu_open(cfg, &r.ts)))
		goto out;
	/* -r: the recorder alone, the command forked (corked) before it */
	if (cfg->realtime) {
		struct sched_param sp = { .sched_priority = cfg->realtime };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			fprintf(stderr, "Could not set realtime priority: %s\n", strerror(errno));	/* perf's words */
			goto out;
		}
	}
	if (cfg->verbose)
		tally_evlist__for_each_evsel(r.l, e)
			fprintf(stderr, "%s: %s: type %u config %#llx sample_type %#llx\n", progname,
				tally_evsel__name(e), tally_evsel__attr(e)->type,
				(unsigned long long)tally_evsel__attr(e)->config,
				(unsigned long long)tally_evsel__attr(e)->sample_type);
	err = tally_evlist__mmap(r.l, &mo);
	if (err) {
		fprintf(stderr, "%s: cannot map the ring buffers (%ld pages each): %s\n%s", progname,
			cfg->mmap_pages > 0 ? cfg->mmap_pages : 128, strerror(-err),
			err == -EPERM || err == -ENOMEM ?
			"Each ring is locked memory: raise /proc/sys/kernel/perf_event_mlock_kb "
			"or ask for fewer pages with -m.\n" : "");
		goto out;
	}
	/* the side-band records and the synthesized ones share a layout */
	r.sid_attr = tally_evsel__attr(tally_evlist__first(r.l));
	tally_evlist__for_each_evsel(r.l, e)
		if (tally_evsel__attr(e)->mmap) {
			tally_record_layout__from_attr(&r.side, tally_evsel__attr(e));
			break;
		}
	if (open_output(&r) || start_writer(&r, false))
		goto out;
	if (cfg->switch_output_signal)
		signal(SIGUSR2, on_usr2);
	cli_targets__watch(&r.ts, &cfg->target);
	if (!(r.ts.wl && r.ts.wl_is_target))
		enable_now(&r);
	tally_offcpu__enable(r.offcpu, true);
	err = cli_targets__start(&r.ts);
	if (err) {
		ret = err;	/* 127/126, said why */
		finish_writer(&r);
		goto out;
	}
	wl_ran = r.ts.wl != NULL;
	pfd[0] = (struct pollfd){ .fd = tally_evlist__pollfd(r.l), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = r.ctl.ctl_fd, .events = POLLIN };
	w = (struct cli_wait){
		.ts = &r.ts,
		.t0 = cli_now_ns(),
		.interval_ms = cfg->switch_output_signal || r.strs ? 100 : 0,
		.fds = pfd,
		.nfds = r.ctl.ctl_fd >= 0 ? 2 : 1,
		.arg = &r,
		.on_fds = on_fds,
		.on_tick = on_tick,
	};
	if (cfg->delay_ms > 0) {
		w.enable_at = w.t0 + (double)cfg->delay_ms * 1e6;
		w.on_enable = on_enable;
	} else if (cfg->delay_ms < 0 && !cfg->quiet) {
		fprintf(stderr, "Events disabled\n");	/* -D -1: till --control enables, as perf */
	}
	r.switched_at = now_s();
	err = cli_wait(&w);
	tally_evlist__disable(r.l);
	if (cfg->overwrite && !cfg->switch_output_signal) {
		tally_evlist__pause(r.l, true);
		if (r.ts.wl && r.ts.wl_is_target)
			tally_synth__process(r.w, r.sid_attr, tally_workload__pid(r.ts.wl), true);
	}
	if (!r.switch_failed && r.w && (!cfg->overwrite || !cfg->switch_output_signal))
		drain(&r);
	/* as perf: the off-CPU sums after every other record */
	if (r.offcpu && r.w && !r.write_err) {
		int oerr = record_offcpu_write(r.offcpu, r.l, r.w);

		if (oerr == -ENOSPC || oerr == -EPIPE || oerr == -EIO)
			r.write_err = oerr;
		else if (oerr)
			fprintf(stderr, "%s: --off-cpu: cannot read the BPF maps: %s\n", progname,
				strerror(-oerr));
	}
	r.lost = lost_total(&r);
	ret = 0;
	stopped = r.write_err != 0;	/* the error ended the recording, not the command */
	if (wl_ran)
		ret = tally_workload__exit_code(r.ts.wl);
	if (cfg->switch_output_signal) {
		print_wl_signal(&r, &w);
		if (r.switch_failed || !r.w || switch_output(&r, true))
			ret = ret ? ret : 1;
	} else {
		finish_writer(&r);
		/* --timestamp-filename: the file, written, takes the time in its name (perf's) */
		if (cfg->timestamp_filename && !r.write_err && !r.pipe) {
			char stamped[sizeof(r.path)];

			stamped_path(r.path, stamped, sizeof(stamped));
			if (strlen(r.path) + 18 >= sizeof(r.path) || rename(r.path, stamped)) {
				fprintf(stderr, "%s: cannot rename %s to %s: %s\n", progname, r.path,
					stamped, strerror(errno));
				ret = ret ? ret : 1;
			} else {
				memcpy(r.path, stamped, sizeof(r.path));
				if (!cfg->quiet)
					fprintf(stderr, "[ %s: Dump %s ]\n", progname, r.path);
			}
		}
		/* the error first, then what the file holds: nothing claimed past it */
		if (r.write_err) {
			fprintf(stderr, "%s: writing %s: %s\n", progname,
				r.pipe ? "stdout" : r.path, strerror(-r.write_err));
			if (stopped && wl_ran && r.ts.wl_is_target && WIFSIGNALED(w.status) &&
			    WTERMSIG(w.status) == SIGTERM)
				fprintf(stderr, "%s: recording stopped there, and %s was sent SIGTERM "
					"(as perf ends its command on an error)\n", progname,
					cfg->cmd_argv[0]);
		}
		print_wl_signal(&r, &w);
		if (!r.write_err)
			print_summary(&r, r.pipe ? "(pipe)" : r.path, written(&r),
				      tally_data_writer__samples(r.w));
		else if (!cfg->quiet)
			fprintf(stderr, "[ %s: %s holds %.3f MB (%llu samples): what was written "
				"before the error ]\n", progname, r.pipe ? "the pipe" : r.path,
				written(&r) / 1048576.0,
				(unsigned long long)tally_data_writer__samples(r.w));
	}
	if (r.lost)
		fprintf(stderr, "[ %s: Lost %llu samples: the rings were full (a bigger -m or a "
			"lower -F keeps them) ]\n", progname, (unsigned long long)r.lost);
	if (r.bad)
		fprintf(stderr, "%s: %llu records the decoder could not read (the first: %s "
			"on ring %d); they are in the file as the kernel wrote them\n", progname,
			(unsigned long long)r.bad, tally_record__type_name(r.bad_type), r.bad_ring);
	if (err && !r.write_err)
		fprintf(stderr, "%s: %s\n", progname, strerror(-err));
	if (r.write_err && cfg->switch_output_signal)
		fprintf(stderr, "%s: writing %s: %s; the file holds what was written before\n",
			progname, r.pipe ? "stdout" : r.path, strerror(-r.write_err));
	/* a write error is tally's: 1, whatever the command it stopped says */
	if (r.write_err)
		ret = 1;
out:
	if (r.usage_err)
		ret = 129;
	release(&r);
	return ret;
}
