// SPDX-License-Identifier: MIT
/* Error messages that say what to do, and the fd limit. */
#include <dirent.h>
#include <stdio.h>
#include <sys/resource.h>
#include <linux/perf_event.h>
#include "internal.h"

static bool is_hw_event(const struct perf_event_attr *attr)
{
	return attr && (attr->type == PERF_TYPE_HARDWARE ||
			attr->type == PERF_TYPE_HW_CACHE ||
			attr->type == PERF_TYPE_RAW);
}

/* Does this machine expose a core (CPU) PMU at all? */
static bool have_core_pmu(void)
{
	static const char *const prefixes[] = { "cpu", "armv", "arm_", "riscv" };
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/sys/bus/event_source/devices");

	if (!d)
		return false;
	while (!found && (de = readdir(d)) != NULL) {
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
			if (!strncmp(de->d_name, prefixes[i], strlen(prefixes[i])))
				found = true;
	}
	closedir(d);
	return found;
}

const char *tally_strerror(int err, const struct perf_event_attr *attr,
			   const char *event, char *buf, size_t len)
{
	char ev[160] = "";
	char par[32];
	int e = err < 0 ? -err : err;

	if (!buf || !len)
		return "";
	if (event && *event)
		snprintf(ev, sizeof(ev), "%s: ", event);
	/*
	 * Not an event's open: no perf_event_open advice (a missing perf.data
	 * is not "an event that does not exist"), the text and its name.
	 */
	if (!attr) {
		const char *name = strerrorname_np(e);

		if (name)
			snprintf(buf, len, "%s%s (%s)", ev, strerror(e), name);
		else
			snprintf(buf, len, "%s%s", ev, strerror(e));
		return buf;
	}
	switch (e) {
	case EACCES:
	case EPERM:
		if (tally__read_file("/proc/sys/kernel/perf_event_paranoid", par,
				     sizeof(par)) < 0)
			snprintf(par, sizeof(par), "unknown");
		/* ':u' only helps an event that counts the kernel too */
		snprintf(buf, len,
			 "%sAccess to performance monitoring is restricted (%s).\n"
			 "/proc/sys/kernel/perf_event_paranoid is %s; lower it (e.g. "
			 "'sysctl kernel.perf_event_paranoid=-1'),\n"
			 "or run with CAP_PERFMON (Linux 5.8+; CAP_SYS_ADMIN before)%s",
			 ev, strerror(e), par,
			 attr && attr->exclude_kernel ? "." :
			 ", or count only user space with ':u'.");
		break;
	case EMFILE:
		snprintf(buf, len,
			 "%sToo many open files (EMFILE): each event needs one fd per "
			 "CPU and thread.\nRaise RLIMIT_NOFILE ('ulimit -n'; the hard "
			 "limit is raised with 'ulimit -Hn' as root or in "
			 "/etc/security/limits.conf), or count fewer events/CPUs/threads.",
			 ev);
		break;
	case ENOENT:
	case EOPNOTSUPP:
		if (is_hw_event(attr) && have_core_pmu())
			snprintf(buf, len,
				 "%sThe hardware event is not supported by this CPU's "
				 "PMU (%s).\nCheck 'tally list' for the events it has.",
				 ev, strerror(e));
		else if (is_hw_event(attr))
			snprintf(buf, len,
				 "%sThe hardware event is not supported (%s): this "
				 "machine has no hardware PMU\n(no 'cpu' PMU in "
				 "/sys/bus/event_source/devices; common in VMs). "
				 "Use software events such as task-clock or cpu-clock.",
				 ev, strerror(e));
		else if (e == ENOENT)
			snprintf(buf, len,
				 "%sThe event does not exist here (ENOENT): check "
				 "'tally list' for its name and PMU.", ev);
		else
			snprintf(buf, len,
				 "%sThe event or one of its attributes is not "
				 "supported by this PMU/kernel (EOPNOTSUPP): drop "
				 "sampling/exclude modifiers, or check 'tally list'.", ev);
		break;
	case ENODEV:
		snprintf(buf, len,
			 "%sNo such device (ENODEV): the event's PMU is not on the "
			 "requested CPUs, or the feature is missing.", ev);
		break;
	case EINVAL:
		snprintf(buf, len,
			 "%sInvalid argument (EINVAL): the kernel rejected the event's "
			 "attributes (config, modifiers or period); check the event "
			 "spelling with 'tally list'.", ev);
		break;
	case E2BIG:
		snprintf(buf, len,
			 "%sThe kernel is older than this tool and does not know a "
			 "requested attribute field (E2BIG); drop the newer option.", ev);
		break;
	case EBUSY:
		snprintf(buf, len,
			 "%sThe PMU is busy (EBUSY): another tool holds it exclusively "
			 "(e.g. a pinned or exclusive event, or the NMI watchdog).", ev);
		break;
	case ESRCH:
		snprintf(buf, len, "%sNo such process (ESRCH): the task to count "
			 "has exited or the pid is wrong.", ev);
		break;
	case ENOSPC:
		snprintf(buf, len, "%sNo space left (ENOSPC): too many breakpoints "
			 "(the CPU has few debug registers) or a buffer is too small.", ev);
		break;
	case EOVERFLOW:
		snprintf(buf, len, "%sValue too large (EOVERFLOW): sample_max_stack "
			 "exceeds /proc/sys/kernel/perf_event_max_stack.", ev);
		break;
	default:
		snprintf(buf, len, "%s%s", ev, strerror(e));
		break;
	}
	return buf;
}

int tally_raise_nofile_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_cur == rl.rlim_max)
		return 0;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	pr_debug("tally: raised RLIMIT_NOFILE to %llu\n",
		 (unsigned long long)rl.rlim_max);
	return 0;
}
