// SPDX-License-Identifier: MIT
/* --metrics-listen: the OpenMetrics endpoint (being written: see issue 30). */
#include <stdio.h>
#include "agent.h"

struct agent_metrics *agent_metrics_start(const struct agent_metrics_opts *o, char *err, size_t n)
{
	snprintf(err, n, "--metrics-listen is not built yet");
	return NULL;
}

void agent_metrics_stop(struct agent_metrics *m)
{
}
