// SPDX-License-Identifier: MIT
/*
 * The fallbacks after a refused open (open_retry.h): E2BIG from a kernel
 * older than our attr, exclude_guest/host on PMUs that cannot tell.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include "internal.h"
#include "open_retry.h"

/* True when every byte of attr from offset `from` to our size is zero. */
static bool attr_tail_zero(const struct perf_event_attr *attr, size_t from)
{
	const unsigned char *p = (const unsigned char *)attr;

	for (size_t i = from; i < sizeof(*attr); i++)
		if (p[i])
			return false;
	return true;
}

bool tally__retry_e2big(struct perf_event_attr *attr)
{
	/*
	 * The kernel is older than our header and wrote the size it knows
	 * into attr->size. Retry only if we asked for nothing past it:
	 * dropping a requested field would be wrong data.
	 */
	size_t ksize = attr->size;

	if (ksize && ksize < sizeof(*attr) && attr_tail_zero(attr, ksize)) {
		pr_debug("perf_event_open: E2BIG, retrying with attr size %zu\n", ksize);
		return true;
	}
	attr->size = sizeof(*attr);
	return false;
}

bool tally__retry_drop_exclude_guest(struct perf_event_attr *attr, int err)
{
	/*
	 * As perf's missing-feature probe: PMUs that cannot tell host from
	 * guest (msr, software on some kernels) refuse the bits; count
	 * without them.
	 */
	if ((err != -EINVAL && err != -EOPNOTSUPP) ||
	    !(attr->exclude_guest || attr->exclude_host))
		return false;
	attr->exclude_guest = 0;
	attr->exclude_host = 0;
	return true;
}
