// SPDX-License-Identifier: MIT
/*
 * The agent's loop: sample every CPU at a low rate, aggregate each
 * interval's samples by stack, hand the batch to the sender.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include "agent.h"
#include "wait.h"

int agent_run(struct agent_cfg *c)
{
	struct agent_metrics *m = NULL;
	char err[256];
	double t0 = cli_now_ns();

	if (cli_signals_setup())
		return 1;
	if (c->metrics.listen && !(m = agent_metrics_start(&c->metrics, err, sizeof(err)))) {
		fprintf(stderr, "tally agent: --metrics-listen %s: %s\n", c->metrics.listen, err);
		return 1;
	}
	while (!cli_interrupted()) {
		if (c->duration_ms && cli_now_ns() - t0 >= c->duration_ms * 1e6)
			break;
		poll(NULL, 0, 100);
	}
	agent_metrics_stop(m);
	return 0;
}
