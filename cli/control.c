// SPDX-License-Identifier: MIT
/* --control: commands from another program over a FIFO or an fd (control.h). */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_fd(const char *s, size_t n, int *fd)
{
	char buf[16], *end;
	long v;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	if (*end || v < 0 || v > 1 << 20)
		return -1;
	*fd = (int)v;
	return 0;
}

int cli_control_open(struct cli_control *c, const char *spec, const char *cmd)
{
	const char *rest, *comma;
	bool fifo;

	*c = (struct cli_control){ .ctl_fd = -1, .ack_fd = -1 };
	fifo = !strncmp(spec, "fifo:", 5);
	if (!fifo && strncmp(spec, "fd:", 3))
		goto bad;
	rest = spec + (fifo ? 5 : 3);
	comma = strchr(rest, ',');
	if (!*rest || comma == rest || (comma && !comma[1]))
		goto bad;
	if (!fifo) {
		if (parse_fd(rest, comma ? (size_t)(comma - rest) : strlen(rest), &c->ctl_fd) ||
		    (comma && parse_fd(comma + 1, strlen(comma + 1), &c->ack_fd)))
			goto bad;
		if (fcntl(c->ctl_fd, F_GETFD) < 0 || (c->ack_fd >= 0 && fcntl(c->ack_fd, F_GETFD) < 0) ||
		    fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK) < 0) {
			fprintf(stderr, "tally %s: --control %s: %s\n", cmd, spec, strerror(EBADF));
			*c = (struct cli_control){ .ctl_fd = -1, .ack_fd = -1 };
			return 1;
		}
		return 0;
	}
	{
		char ctl[4096];

		snprintf(ctl, sizeof(ctl), "%.*s", comma ? (int)(comma - rest) : (int)strlen(rest), rest);
		/* read and write: the FIFO never reads as closed between two writers */
		c->ctl_fd = open(ctl, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (c->ctl_fd < 0) {
			fprintf(stderr, "tally %s: --control: cannot open %s: %s\n", cmd, ctl,
				strerror(errno));
			return 1;
		}
		c->own_ctl = true;
		if (comma) {
			/* as perf: waits here for the controlling program to open it */
			c->ack_fd = open(comma + 1, O_WRONLY | O_CLOEXEC);
			if (c->ack_fd < 0) {
				fprintf(stderr, "tally %s: --control: cannot open %s: %s\n", cmd,
					comma + 1, strerror(errno));
				cli_control_close(c);
				return 1;
			}
			c->own_ack = true;
		}
	}
	return 0;
bad:
	fprintf(stderr, "tally %s: --control '%s': fifo:CTL[,ACK] or fd:CTL[,ACK]\n", cmd, spec);
	return 129;
}

static enum cli_ctl_cmd parse_cmd(const char *s)
{
	static const struct { const char *name; enum cli_ctl_cmd cmd; } cmds[] = {
		{ "enable", CLI_CTL_ENABLE }, { "disable", CLI_CTL_DISABLE },
		{ "ping", CLI_CTL_PING }, { "stop", CLI_CTL_STOP }, { "snapshot", CLI_CTL_SNAPSHOT },
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(s, cmds[i].name))
			return cmds[i].cmd;
	return CLI_CTL_NONE;
}

int cli_control_read(struct cli_control *c, void (*fn)(void *arg, enum cli_ctl_cmd cmd),
		     void *arg)
{
	int ret = 0;

	if (c->ctl_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			c->closed = true;	/* its writers gone */
		if (n <= 0)
			break;	/* EAGAIN: all read */
		c->len += (size_t)n;
		while ((nl = memchr(c->buf, '\n', c->len)) || c->len == sizeof(c->buf) - 1) {
			size_t line = nl ? (size_t)(nl - c->buf) : c->len;
			enum cli_ctl_cmd cmd;

			c->buf[line] = '\0';
			/* perf's commands are whole words; a NUL-ended one is taken too */
			cmd = parse_cmd(c->buf);
			if (cmd != CLI_CTL_NONE) {
				fn(arg, cmd);
				if (cmd == CLI_CTL_STOP)
					ret = CLI_CTL_STOP;
			}
			if (c->ack_fd >= 0 && write(c->ack_fd, "ack\n", 4) < 0)
				c->ack_fd = -1;	/* nobody reads the answers any more */
			c->len -= nl ? line + 1 : line;
			memmove(c->buf, c->buf + (nl ? line + 1 : line), c->len);
		}
	}
	return ret;
}

void cli_control_close(struct cli_control *c)
{
	if (c->own_ctl && c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->own_ack && c->ack_fd >= 0)
		close(c->ack_fd);
	c->ctl_fd = c->ack_fd = -1;
}
