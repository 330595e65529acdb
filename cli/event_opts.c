// SPDX-License-Identifier: MIT
/*
 * -e and --filter shared by the commands: collecting the specs, building
 * the event list, and printing parse and open errors (see event_opts.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tally/tally.h>
#include "event_opts.h"
#include "target.h"

int cli_events_push(struct cli_parse *p, struct cli_events *ev, const char *spec)
{
	if (ev->nr == CLI_MAX_EVENTS)
		return cli_error(p, "%s", "too many -e options");
	ev->v[ev->nr++] = (struct cli_event_opt){ .spec = spec };
	return 0;
}

int cli_opt_event(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	return cli_events_push(p, opt->value, arg);
}

int cli_opt_filter(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct cli_events *ev = opt->value;

	if (!ev->nr)
		return cli_error(p, "%s", "--filter must follow a tracepoint -e");
	ev->v[ev->nr - 1].filter = arg;
	return 0;
}

/*
 * The terminal's width as perf's get_term_dimensions(): LINES and COLUMNS
 * when both are set, stdout's window, else 80.
 */
static int term_width(void)
{
	const char *lines = getenv("LINES"), *cols = getenv("COLUMNS");
	struct winsize ws;

	if (lines && cols && atoi(lines) > 0 && atoi(cols) > 0)
		return atoi(cols);
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col)
		return ws.ws_col;
	return 80;
}

void cli_print_parse_error(const char *cmd, const char *spec,
			   const struct tally_parse_error *pe, int err)
{
	int width = term_width(), n = -1;
	char *buf = NULL;

	if (err == -ENOSYS) {
		fprintf(stderr, "tally %s: the event parser is not available in this build\n", cmd);
		return;
	}
	/* perf's window on a long spec, never a fixed buffer's cut */
	if (pe->msg[0]) {
		char one;

		n = tally_parse_error__format_width(pe, spec, width, &one, 1);
		if (n >= 0 && (buf = malloc((size_t)n + 1)))
			n = tally_parse_error__format_width(pe, spec, width, buf, (size_t)n + 1);
	}
	if (n >= 0 && buf)
		fprintf(stderr, "%s\n", buf);
	else
		fprintf(stderr, "event syntax error: '%s': %s\n", spec, strerror(-err));
	fprintf(stderr, "Run 'tally list' for a list of valid events\n");
	free(buf);
}

int cli_events_add(struct tally_evlist *l, const char *spec, const char *filter,
		   const char *cmd)
{
	struct tally_parse_error pe;
	struct tally_evsel *last;
	int err;

	/* perf stat's term set: sampling terms are "not usable" there */
	struct tally_parse_opts popts = { .sz = sizeof(popts), .stat_terms = !strcmp(cmd, "stat") };

	memset(&pe, 0, sizeof(pe));
	err = tally_evlist__add_parsed(l, spec, &popts, &pe);
	if (err) {
		cli_print_parse_error(cmd, spec, &pe, err);
		return err == -ENOMEM || err == -ENOSYS ? -1 : CLI_EVENTS_USAGE;
	}
	if (!filter)
		return 0;
	/* the filter goes to the spec's last event, which must be a tracepoint */
	last = tally_evlist__last(l);
	if (!last || tally_evsel__attr(last)->type != PERF_TYPE_TRACEPOINT) {
		fprintf(stderr, "tally %s: --filter '%s' must follow a tracepoint event\n", cmd,
			filter);
		return CLI_EVENTS_USAGE;
	}
	err = tally_evsel__set_filter(last, filter);
	if (err) {
		fprintf(stderr, "tally %s: --filter: %s\n", cmd, strerror(-err));
		return -1;
	}
	return 0;
}

int cli_events_group_all(struct tally_evlist *l, const char *cmd)
{
	int nr = tally_evlist__nr(l), err;

	if (nr < 2)
		return 0;
	/* as perf's -g: one group of every event, led by the first */
	err = tally_evlist__set_group(l, tally_evlist__first(l), nr);
	if (err) {
		fprintf(stderr, "tally %s: -g: %s\n", cmd, err == -EINVAL ?
			"the events already form groups ({...})" : strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * A permission error's real cause when it is not the event itself:
 * system-wide counting, or a process of another user. Says it when
 * print, and returns whether there was one.
 */
static bool target_hint(const struct cli_target *t, bool print)
{
	const char *list = t->pids ? t->pids : t->tids;

	if (cli_target_system_wide(t)) {
		if (print)
			fprintf(stderr, "Counting system-wide (-a, -C) needs perf_event_paranoid <= 0 "
					"or CAP_PERFMON, whatever the event's modifiers.\n");
		return true;
	}
	for (const char *p = list; p && *p;) {
		char path[64];
		struct stat st;
		long pid = strtol(p, (char **)&p, 10);

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		if (!stat(path, &st) && st.st_uid != geteuid()) {
			if (print)
				fprintf(stderr, "Process %ld belongs to another user (uid %u): watching it "
						"needs CAP_PERFMON or CAP_SYS_PTRACE (or that user's rights);\n"
						"perf_event_paranoid alone does not allow it.\n",
					pid, (unsigned)st.st_uid);
			return true;
		}
		while (*p && *p != ',')
			p++;
		if (*p == ',')
			p++;
	}
	return false;
}

void cli_print_open_error(const char *cmd, struct tally_evlist *l, int err,
			  const struct cli_target *t)
{
	struct tally_evsel *e, *culprit = tally_evlist__first(l);
	char buf[1024];

	tally_evlist__for_each_evsel(l, e)
		if (tally_evsel__open_error(e)) {
			culprit = e;
			break;
		}
	if (culprit && tally_evsel__open_error(culprit))
		err = tally_evsel__open_error(culprit);
	/* the event opened; its --filter was what the kernel refused */
	if (culprit && tally_evsel__filter_rejected(culprit)) {
		fprintf(stderr, "tally %s: failed to set filter \"%s\" on event %s: %s "
			"(the kernel rejected it: check its syntax and the tracepoint's field names)\n",
			cmd, tally_evsel__filter(culprit), tally_evsel__name(culprit),
			strerror(err < 0 ? -err : err));
		return;
	}
	bool perm = err == -EACCES || err == -EPERM || err == EACCES || err == EPERM;
	bool other_cause = t && perm && target_hint(t, false);
	struct perf_event_attr a;
	const struct perf_event_attr *ap = culprit ? tally_evsel__attr(culprit) : NULL;

	/* the cause is the target, not the event: no ':u' advice */
	if (other_cause && ap) {
		a = *ap;
		a.exclude_kernel = 1;
		ap = &a;
	}
	tally_strerror(err, ap, culprit ? tally_evsel__name(culprit) : NULL, buf, sizeof(buf));
	fprintf(stderr, "tally %s: %s\n", cmd, buf);
	if (other_cause)
		target_hint(t, true);
}
