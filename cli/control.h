/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's --control: another program enables and disables the counting
 * through a FIFO or a file descriptor, a command a line ("enable",
 * "disable", "ping", "stop", "snapshot"), each answered "ack\n" on the ack channel
 * when there is one. perf stat -D -1 --control fifo:ctl,ack is how
 * benchmark harnesses count their measured phase alone.
 */
#ifndef TALLY_CLI_CONTROL_H
#define TALLY_CLI_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

enum cli_ctl_cmd {
	CLI_CTL_NONE,
	CLI_CTL_ENABLE,
	CLI_CTL_DISABLE,
	CLI_CTL_PING,		/* answered, nothing done */
	CLI_CTL_STOP,		/* the measuring ends, as at the command's exit */
	CLI_CTL_SNAPSHOT,	/* record --switch-output: the file so far, as SIGUSR2 */
};

struct cli_control {
	int ctl_fd, ack_fd;	/* -1: none */
	bool own_ctl, own_ack;	/* opened here (fifo:), closed at the end */
	char buf[256];		/* a line not yet whole */
	size_t len;
	bool closed;		/* its writers gone (fd:): poll it no more */
};

/*
 * spec: "fifo:CTL[,ACK]" (paths: the ACK FIFO opened for writing, which
 * waits for its reader, as perf's) or "fd:CTL[,ACK]" (open descriptors).
 * 0; or 129 for a spec that does not parse, 1 for a FIFO that cannot be
 * opened, each said with cmd's name.
 */
int cli_control_open(struct cli_control *c, const char *spec, const char *cmd);
/*
 * The commands that came (the control fd was readable): each to fn in
 * order, then "ack\n". Returns CLI_CTL_STOP if one was stop, else 0
 * (the channel closed: 0 too, and closed set).
 */
int cli_control_read(struct cli_control *c, void (*fn)(void *arg, enum cli_ctl_cmd cmd),
		     void *arg);
void cli_control_close(struct cli_control *c);

#endif
