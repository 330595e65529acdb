// SPDX-License-Identifier: MIT
/*
 * A histogram of a whole file in one call: its session run with each
 * sample counted, the caller's own sample callback still called after.
 */
#include <errno.h>
#include <tally/hist.h>
#include "internal.h"
#include "hist_internal.h"
#include "session_internal.h"

struct hist_run {
	struct tally_hist *h;
	tally_session_sample_fn fn;	/* the session's callback before */
	void *ctx;
	int err;
};

static int run_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct hist_run *r = ctx;
	int err = tally_hist__add(r->h, smp);

	if (err) {
		r->err = err;
		return err;
	}
	return r->fn ? r->fn(s, smp, r->ctx) : 0;
}

int tally_hist__run(struct tally_hist *h)
{
	struct tally_session *s = h ? tally__hist_session(h) : NULL;
	struct hist_run r;
	int err, rerr;

	if (!s)
		return tally__err(EINVAL);
	r = (struct hist_run){ h, s->o.sample, s->sample_ctx, 0 };
	tally_session__set_sample(s, run_sample, &r);
	err = tally_session__run(s);
	/* the caller's again: r lives on this stack */
	tally_session__set_sample(s, r.fn, r.ctx);
	/* the rows of what was read, a damaged file's too */
	if (err != -EALREADY && (rerr = tally_hist__resort(h)) && !err)
		err = rerr;
	if (r.err)
		err = r.err;
	return err < 0 ? tally__err(-err) : err;
}
