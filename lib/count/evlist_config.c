// SPDX-License-Identifier: MIT
/*
 * tally_evlist__config: counting or sampling, decided once for the whole
 * list (perf's evsel__config and record__config in one place). The parser
 * leaves sample_period/freq at zero unless the user wrote period=/freq=,
 * so a non-zero value here is the user's and is kept.
 */
#include <stdio.h>
#include <linux/perf_event.h>
#include <tally/probe.h>
#include "internal.h"
#include "evsel_internal.h"

#define DEFAULT_FREQ		4000
#define DEFAULT_STACK		8192

/* The registers a DWARF unwinder needs, as perf's PERF_REGS_MASK. */
static uint64_t arch_unwind_regs(void)
{
#if defined(__x86_64__)
	/* AX..R15 (0..23) without DS, ES, FS, GS (12..15) */
	return ((1ull << 24) - 1) & ~(0xfull << 12);
#elif defined(__aarch64__)
	return (1ull << 33) - 1;	/* x0..x30, sp, pc */
#elif defined(__i386__)
	return (1ull << 9) - 1;		/* ax..ip (no segments) */
#else
	return 0;
#endif
}

static uint64_t max_sample_rate(void)
{
	char buf[32];

	if (tally__read_file("/proc/sys/kernel/perf_event_max_sample_rate", buf, sizeof(buf)) <= 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

static bool samples_every_hit(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_TRACEPOINT || a->type == PERF_TYPE_BREAKPOINT;
}

static void config_counting(struct tally_evsel *e)
{
	e->attr.sample_period = 0;
	e->attr.freq = 0;
	e->attr.sample_type = 0;
}

static int config_sampling(struct tally_evsel *e, const struct tally_config_opts *o,
			   uint64_t freq, bool several)
{
	struct perf_event_attr *a = &e->attr;
	uint64_t period = TALLY_OPTS_GET(o, period, 0);
	bool user_set = a->sample_period != 0;	/* period= or freq= term */

	if (!user_set) {
		if (period) {
			a->freq = 0;
			a->sample_period = period;
		} else if (samples_every_hit(a) && !TALLY_OPTS_GET(o, freq, 0)) {
			a->freq = 0;
			a->sample_period = 1;
		} else {
			a->freq = 1;
			a->sample_freq = freq;
		}
	}
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  TALLY_OPTS_GET(o, sample_type, 0);
	/*
	 * The period in each sample only when it varies (freq). With a
	 * fixed period, PERIOD makes the kernel sample a software event or
	 * tracepoint on every hit (perf_swevent_event); readers take the
	 * attr's sample_period instead, as perf does. But a tracepoint
	 * sampled at every hit has it, as perf's always do: one that counts
	 * more than one per hit (sched_stat_runtime counts its runtime in
	 * ns) would otherwise give a copy of the same sample for each.
	 */
	if (a->freq || (a->type == PERF_TYPE_TRACEPOINT && a->sample_period == 1))
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (TALLY_OPTS_GET(o, system_wide, false))
		a->sample_type |= PERF_SAMPLE_CPU;
	if (a->type == PERF_TYPE_TRACEPOINT)
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;	/* the trace fields */
	if (several)
		a->sample_type |= PERF_SAMPLE_IDENTIFIER;
	a->read_format |= PERF_FORMAT_ID;
	if (tally_kernel_has(TALLY_FEAT_READ_LOST))
		a->read_format |= PERF_FORMAT_LOST;
	if (tally_kernel_has(TALLY_FEAT_SAMPLE_ID_ALL))
		a->sample_id_all = 1;

	switch (TALLY_OPTS_GET(o, callchain, TALLY_CALLCHAIN_NONE)) {
	case TALLY_CALLCHAIN_NONE:
		break;
	case TALLY_CALLCHAIN_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case TALLY_CALLCHAIN_DWARF: {
		uint32_t stack = TALLY_OPTS_GET(o, stack_size, 0);
		uint64_t regs = TALLY_OPTS_GET(o, user_regs, 0);

		if (!regs)
			regs = arch_unwind_regs();
		if (!regs)
			return tally__err(EOPNOTSUPP);
		/* the kernel wants a multiple of 8, below 64 KiB per sample */
		stack = stack ? (stack + 7) & ~7u : DEFAULT_STACK;
		if (stack > 65528)
			return tally__err(EINVAL);
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = regs;
		a->sample_stack_user = stack;
		a->exclude_callchain_user = 1;	/* the unwinder makes the user part */
		break;
	}
	case TALLY_CALLCHAIN_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type |= PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					 PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
					 PERF_SAMPLE_BRANCH_HW_INDEX;
		break;
	default:
		return tally__err(EINVAL);
	}
	if (TALLY_OPTS_GET(o, exclude_callchain_kernel, false))
		a->exclude_callchain_kernel = 1;
	if (TALLY_OPTS_GET(o, exclude_callchain_user, false))
		a->exclude_callchain_user = 1;
	/* the registers of --intr-regs/--user-regs (perf's masks), added to dwarf's */
	if (a->sample_type & PERF_SAMPLE_REGS_INTR)
		a->sample_regs_intr = TALLY_OPTS_GET(o, intr_regs, 0);
	if ((a->sample_type & PERF_SAMPLE_REGS_USER) &&
	    TALLY_OPTS_GET(o, callchain, TALLY_CALLCHAIN_NONE) != TALLY_CALLCHAIN_DWARF)
		a->sample_regs_user = TALLY_OPTS_GET(o, user_regs, 0);
	if ((a->sample_type & (PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER)) &&
	    !(a->sample_regs_intr | a->sample_regs_user))
		return tally__err(EINVAL);
	if (TALLY_OPTS_GET(o, inherit_stat, false)) {
		/* each thread's count at its exit, with the times to scale it */
		a->inherit_stat = 1;
		a->read_format |= PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	}
	if (TALLY_OPTS_GET(o, branch_sample_type, 0)) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type |= TALLY_OPTS_GET(o, branch_sample_type, 0);
	}
	if (TALLY_OPTS_GET(o, use_clockid, false)) {
		a->use_clockid = 1;
		a->clockid = TALLY_OPTS_GET(o, clockid, 0);
	}
	if (TALLY_OPTS_GET(o, wakeup_watermark, 0)) {
		a->watermark = 1;
		a->wakeup_watermark = TALLY_OPTS_GET(o, wakeup_watermark, 0);
	} else if (TALLY_OPTS_GET(o, wakeup_events, 0)) {
		a->wakeup_events = TALLY_OPTS_GET(o, wakeup_events, 0);
	}
	if (TALLY_OPTS_GET(o, overwrite, false))
		a->write_backward = 1;
	/* :S on a leader: its samples carry the whole group's counts */
	if ((e->ev_flags & TALLY_EV_SAMPLE_READ) && e->leader == e)
		a->sample_type |= PERF_SAMPLE_READ;
	if (e->leader != e && (e->leader->ev_flags & TALLY_EV_SAMPLE_READ)) {
		a->sample_period = 0;	/* read through the leader's samples */
		a->freq = 0;
	}
	return 0;
}

/* Side-band records: process and mapping life, on one event only. */
static void config_sideband(struct perf_event_attr *a, const struct tally_config_opts *o)
{
	a->mmap = 1;
	a->comm = 1;
	a->task = 1;
	/*
	 * DWARF unwinding reads .eh_frame_hdr, which lies in a segment that
	 * is not executable: its mapping must be in the file too (as perf).
	 */
	if (TALLY_OPTS_GET(o, callchain, TALLY_CALLCHAIN_NONE) == TALLY_CALLCHAIN_DWARF)
		a->mmap_data = 1;
	if (tally_kernel_has(TALLY_FEAT_MMAP2))
		a->mmap2 = 1;
	if (tally_kernel_has(TALLY_FEAT_COMM_EXEC))
		a->comm_exec = 1;
	if (tally_kernel_has(TALLY_FEAT_KSYMBOL))
		a->ksymbol = 1;
	if (tally_kernel_has(TALLY_FEAT_BPF_EVENT))
		a->bpf_event = 1;
	if (TALLY_OPTS_GET(o, switch_events, false) && tally_kernel_has(TALLY_FEAT_CONTEXT_SWITCH))
		a->context_switch = 1;
	/* data addresses: the data mappings too, to name them (perf's -d) */
	if (TALLY_OPTS_GET(o, sample_type, 0) & PERF_SAMPLE_ADDR)
		a->mmap_data = 1;
	/* sample cgroup ids: the kernel's CGROUP records name new ones */
	if (TALLY_OPTS_GET(o, sample_type, 0) & PERF_SAMPLE_CGROUP)
		a->cgroup = 1;
	if (TALLY_OPTS_GET(o, namespaces, false))
		a->namespaces = 1;
}

static struct tally_evsel *add_dummy(struct tally_evlist *l)
{
	struct perf_event_attr a = { 0 };
	struct tally_evsel *e;

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.exclude_guest = 1;
	e = tally_evsel__new(&a, "dummy:u");
	if (!e)
		return NULL;
	e->side_dummy = true;
	tally_evlist__add(l, e);
	return e;
}

int tally_evlist__config(struct tally_evlist *l, const struct tally_config_opts *o)
{
	bool sample = TALLY_OPTS_GET(o, sample, false);
	uint64_t freq = TALLY_OPTS_GET(o, freq, 0), max;
	struct tally_evsel *side = NULL;
	bool several;
	int err;

	if (!l || !l->nr || !TALLY_OPTS_VALID(o, tally_config_opts))
		return tally__err(EINVAL);
	tally_evlist__set_attr_bits(l, true, TALLY_OPTS_GET(o, enable_on_exec, false),
				    !TALLY_OPTS_GET(o, no_inherit, false));
	if (!sample) {
		for (int i = 0; i < l->nr; i++)
			config_counting(l->ev[i]);
		return 0;
	}
	max = max_sample_rate();
	if (freq && max && freq > max) {
		uint64_t *out = TALLY_OPTS_GET(o, freq_max_out, NULL);

		if (out)
			*out = max;
		return tally__err(ERANGE);
	}
	if (!freq)
		freq = max && max < DEFAULT_FREQ ? max : DEFAULT_FREQ;

	l->delayed = TALLY_OPTS_GET(o, delayed, false);
	/* perf's --all-user, --all-kernel: every event, whatever its modifiers said */
	for (int i = 0; i < l->nr; i++) {
		if (TALLY_OPTS_GET(o, all_user, false)) {
			l->ev[i]->attr.exclude_kernel = 1;
			l->ev[i]->attr.exclude_user = 0;
		}
		if (TALLY_OPTS_GET(o, all_kernel, false)) {
			l->ev[i]->attr.exclude_kernel = 0;
			l->ev[i]->attr.exclude_user = 1;
		}
	}
	if (!TALLY_OPTS_GET(o, no_sideband, false)) {
		/* delayed: the exec's maps are recorded while the events wait (perf's dummy) */
		if (TALLY_OPTS_GET(o, system_wide, false) || l->delayed) {
			side = add_dummy(l);
			if (!side)
				return -errno;
		} else {
			side = l->ev[0];
		}
	}
	several = l->nr > 1;
	for (int i = 0; i < l->nr; i++) {
		struct tally_evsel *e = l->ev[i];

		if (e->ev_flags & TALLY_EV_TOOL)
			return tally__err(EOPNOTSUPP);	/* duration_time cannot sample */
		err = config_sampling(e, o, freq, several);
		if (err)
			return err;
	}
	if (side) {
		config_sideband(&side->attr, o);
		if (side->attr.config == PERF_COUNT_SW_DUMMY && side->attr.type == PERF_TYPE_SOFTWARE) {
			/* the dummy counts nothing: it only carries side-band records */
			side->attr.sample_period = 1;
			side->attr.freq = 0;
		}
	}
	return 0;
}
