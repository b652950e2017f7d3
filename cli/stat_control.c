/*
 * perf stat's --control interface: "fifo:CTL[,ACK]" names FIFOs, "fd:N[,M]"
 * inherited descriptors. Commands are lines ("enable", "disable", "ping",
 * "stop"; perf also accepts a trailing NUL); each is acknowledged with
 * "ack\n". The FIFOs are opened read-write so that writers coming and going
 * never make the read end report EOF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "stat_control.h"

struct stat_control {
	int ctl_fd;
	int ack_fd;
	bool close_fds;
	char line[256];
	size_t len;
};

static int open_fifo(const char *path, struct pk_diag *diag)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		pk_diag_subject(diag, path);
		return pk_diag_fail(diag, -errno, "cannot open control fifo: %s", strerror(errno));
	}
	return fd;
}

static int parse_fd(const char *s, struct pk_diag *diag)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 65535 || fcntl((int)v, F_GETFD) < 0)
		return pk_diag_fail(diag, -EINVAL, "invalid control fd '%s'", s);
	fcntl((int)v, F_SETFL, fcntl((int)v, F_GETFL) | O_NONBLOCK);
	return (int)v;
}

int stat_control_open(struct stat_control **out, const char *spec, struct pk_diag *diag)
{
	struct stat_control *ctl;
	bool fifo = !strncmp(spec, "fifo:", 5), fd = !strncmp(spec, "fd:", 3);
	char *copy, *ack;
	int err = 0;

	*out = NULL;
	if (!fifo && !fd)
		return pk_diag_fail(diag, -EINVAL,
				    "invalid --control '%s': use fifo:CTL[,ACK] or fd:CTL[,ACK]", spec);
	ctl = calloc(1, sizeof(*ctl));
	copy = strdup(spec + (fifo ? 5 : 3));
	if (!ctl || !copy) {
		free(ctl);
		free(copy);
		return -ENOMEM;
	}
	ctl->ack_fd = -1;
	ctl->close_fds = fifo;
	ack = strchr(copy, ',');
	if (ack)
		*ack++ = '\0';
	ctl->ctl_fd = fifo ? open_fifo(copy, diag) : parse_fd(copy, diag);
	if (ctl->ctl_fd < 0)
		err = ctl->ctl_fd;
	else if (ack && *ack) {
		ctl->ack_fd = fifo ? open_fifo(ack, diag) : parse_fd(ack, diag);
		if (ctl->ack_fd < 0)
			err = ctl->ack_fd;
	}
	free(copy);
	if (err) {
		if (ctl->close_fds && ctl->ctl_fd >= 0)
			close(ctl->ctl_fd);
		free(ctl);
		return err;
	}
	*out = ctl;
	return 0;
}

void stat_control_close(struct stat_control *ctl)
{
	if (!ctl)
		return;
	if (ctl->close_fds) {
		close(ctl->ctl_fd);
		if (ctl->ack_fd >= 0)
			close(ctl->ack_fd);
	}
	free(ctl);
}

int stat_control_fd(const struct stat_control *ctl)
{
	return ctl ? ctl->ctl_fd : -1;
}

static enum stat_ctl_cmd parse_cmd(const char *s)
{
	if (!strcmp(s, "enable"))
		return STAT_CTL_ENABLE;
	if (!strcmp(s, "disable"))
		return STAT_CTL_DISABLE;
	if (!strcmp(s, "ping"))
		return STAT_CTL_PING;
	if (!strcmp(s, "stop"))
		return STAT_CTL_STOP;
	return STAT_CTL_NONE;
}

enum stat_ctl_cmd stat_control_read(struct stat_control *ctl)
{
	for (;;) {
		char c;
		ssize_t n = read(ctl->ctl_fd, &c, 1);

		if (n <= 0)
			return STAT_CTL_NONE;
		if (c == '\n' || c == '\0') {
			enum stat_ctl_cmd cmd;

			if (!ctl->len)
				continue;
			ctl->line[ctl->len] = '\0';
			ctl->len = 0;
			cmd = parse_cmd(ctl->line);
			if (cmd != STAT_CTL_NONE)
				return cmd;
			continue;
		}
		if (ctl->len < sizeof(ctl->line) - 1)
			ctl->line[ctl->len++] = c;
	}
}

void stat_control_ack(struct stat_control *ctl)
{
	if (ctl->ack_fd >= 0 && write(ctl->ack_fd, "ack\n", 4) < 0) {
		/* a reader that went away is not our failure */
	}
}
