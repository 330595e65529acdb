// SPDX-License-Identifier: MIT
/*
 * tally record's events: the CPUs threads are followed on, the events of
 * -e (or perf's default) configured for sampling and opened, with perf's
 * fallbacks (cycles to cpu-clock) and its words for what the kernel
 * refuses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "record_rec.h"

static int config_events(struct rec *r)
{
	const struct record_config *cfg = r->cfg;
	uint64_t max = 0;
	struct tally_config_opts co = {
		.sz = sizeof(co),
		.sample = true,
		.period = cfg->period,
		.freq = cfg->freq_max ? record_max_sample_rate() : cfg->freq,
		.sample_type = cfg->sample_type | (cfg->sample_cpu ? PERF_SAMPLE_CPU : 0) |
			       (cfg->all_cgroups ? PERF_SAMPLE_CGROUP : 0),
		.branch_sample_type = cfg->branch_filter,
		.intr_regs = cfg->intr_regs,
		.user_regs = cfg->user_regs,
		.inherit_stat = cfg->inherit_stat,
		.namespaces = cfg->namespaces,
		.delayed = cfg->delay_ms != 0,
		.all_user = cfg->all_user,
		.all_kernel = cfg->all_kernel,
		.exclude_callchain_kernel = cfg->user_callchains,
		.exclude_callchain_user = cfg->kernel_callchains,
		.system_wide = r->ts.system_wide,
		.no_inherit = cfg->target.no_inherit || cfg->per_thread,
		.enable_on_exec = r->ts.wl && r->ts.wl_is_target,
		.switch_events = cfg->switch_events,
		.callchain = cfg->callchain,
		.stack_size = cfg->stack_size,
		.overwrite = cfg->overwrite,
		/*
		 * -k's clock; the path strings are matched to the samples by
		 * the BPF program's clock, which then wins
		 */
		.use_clockid = cfg->use_clockid || r->strs != NULL,
		.clockid = r->strs ? CLOCK_MONOTONIC : cfg->clockid,
		.freq_max_out = &max,
		/*
		 * Wake at a quarter of the ring, not the kernel's half: the
		 * drain then has three quarters of headroom while it runs.
		 */
		.wakeup_watermark = cfg->overwrite || cfg->no_buffering ? 0 :
			(uint32_t)((cfg->mmap_pages > 0 ? cfg->mmap_pages : 128) * sysconf(_SC_PAGESIZE) / 4),
		/* --no-buffering, as perf's: each sample wakes the reader */
		.wakeup_events = cfg->no_buffering && !cfg->overwrite ? 1 : 0,
	};
	int err = tally_evlist__config(r->l, &co);

	if (err == -ERANGE && cfg->strict_freq) {
		fprintf(stderr, "%s: -F %llu is above the kernel's maximum of %llu samples a second\n"
			"(/proc/sys/kernel/perf_event_max_sample_rate): use -F max or a lower -F\n",
			RECORD_PROGNAME, (unsigned long long)cfg->freq, (unsigned long long)max);
		return -1;
	}
	if (err == -ERANGE) {
		/* perf 6.1 throttles to the maximum and says so (its words) */
		if (!cfg->quiet && !r->freq_warned)
			fprintf(stderr, "warning: Maximum frequency rate (%llu Hz) exceeded, throttling "
				"from %llu Hz to %llu Hz.\n"
				"         The limit can be raised via "
				"/proc/sys/kernel/perf_event_max_sample_rate.\n"
				"         The kernel will lower it when tally's interrupts take too long.\n"
				"         Use --strict-freq to disable this throttling, refusing to record.\n",
				(unsigned long long)max, (unsigned long long)cfg->freq,
				(unsigned long long)max);
		r->freq_warned = true;
		co.freq = max;
		err = tally_evlist__config(r->l, &co);
	}
	if (err) {
		fprintf(stderr, "%s: cannot configure the events: %s\n", RECORD_PROGNAME, strerror(-err));
		return -1;
	}
	return 0;
}

static bool unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV || err == -EINVAL;
}

/*
 * The events of -e, or perf's default: cycles, and cpu-clock where the
 * machine has no hardware PMU (perf's fallback).
 */
/* The events that failed and can fall back did: open again (closed first). */
static bool fallback(struct rec *r)
{
	struct tally_evsel *e;
	bool any = false;

	tally_evlist__for_each_evsel(r->l, e)
		if (tally_evsel__fallback(e)) {
			any = true;
			if (r->cfg->verbose)
				fprintf(stderr, "%s: The cycles event is not supported, "
					"trying to fall back to cpu-clock-ticks\n", RECORD_PROGNAME);
		}
	if (any)
		tally_evlist__close(r->l);
	return any;
}

int record_open_events(struct rec *r)
{
	const struct record_config *cfg = r->cfg;
	bool dflt = cfg->events.nr == 0;
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .cgroup_fd = -1 };
	int err = 0;

	if (r->ts.cgroup_fd >= 0) {
		oo.flags = PERF_FLAG_PID_CGROUP;
		oo.cgroup_fd = r->ts.cgroup_fd;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		r->l = record_build_events(cfg, dflt ? (attempt ? "cpu-clock" : "cycles") : NULL, &r->cg,
				    &r->usage_err);
		if (r->l && cfg->off_cpu && record_offcpu_add_event(r->l)) {
			fprintf(stderr, "%s: %s\n", RECORD_PROGNAME, strerror(errno));
			return -1;
		}
		if (!r->l || config_events(r))
			return -1;
		err = tally_evlist__open(r->l, r->ts.cpus, r->ts.threads, &oo);
		/* an asked-for cycles falls back to cpu-clock as perf's (evsel__fallback) */
		while (err && !dflt && fallback(r))
			err = tally_evlist__open(r->l, r->ts.cpus, r->ts.threads, &oo);
		if (!err)
			return 0;
		if (!dflt || attempt || !unsupported(err))
			break;
		if (cfg->verbose)
			fprintf(stderr, "%s: cycles is not supported here: cpu-clock instead\n",
				RECORD_PROGNAME);
		tally_evlist__free(r->l);
		r->l = NULL;
	}
	{
		struct tally_evsel *e, *bad = tally_evlist__first(r->l);

		tally_evlist__for_each_evsel(r->l, e)
			if (tally_evsel__open_error(e)) {
				bad = e;
				err = tally_evsel__open_error(e);
				break;
			}
		if (bad && (record_branch_refused(cfg, tally_evsel__name(bad),
						  tally_evsel__attr(bad), err) ||
			    record_phys_refused(tally_evsel__name(bad), tally_evsel__attr(bad), err) ||
			    record_namespaces_refused(tally_evsel__name(bad), tally_evsel__attr(bad), err)))
			return -1;
	}
	cli_print_open_error("record", r->l, err, &cfg->target);
	return -1;
}

/*
 * Sampling a workload or -p/-t threads with inheritance needs a ring per
 * CPU: the kernel will not map an inherited event on "any CPU". So the
 * threads are followed on every online CPU, as perf record does.
 */
int record_cpus_for_threads(struct rec *r)
{
	const struct record_config *cfg = r->cfg;

	if (r->ts.system_wide || cfg->per_thread)
		return 0;
	tally_cpu_map__put(r->ts.cpus);
	r->ts.cpus = tally_cpu_map__new_online();
	if (!r->ts.cpus) {
		fprintf(stderr, "%s: online CPUs: %s\n", RECORD_PROGNAME, strerror(errno));
		return -1;
	}
	return 0;
}

