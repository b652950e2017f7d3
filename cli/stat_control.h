/*
 * perf stat's --control interface: commands written to a FIFO (or an
 * inherited fd) switch counting on and off from outside, each answered with
 * "ack" on the optional ack FIFO.
 */
#ifndef PERFKIT_CLI_STAT_CONTROL_H
#define PERFKIT_CLI_STAT_CONTROL_H

#include <perfkit/core.h>

enum stat_ctl_cmd { STAT_CTL_NONE, STAT_CTL_ENABLE, STAT_CTL_DISABLE, STAT_CTL_PING, STAT_CTL_STOP };

struct stat_control;

/* Parse "fifo:CTL[,ACK]" or "fd:N[,M]" and open the channels. 0 or -errno. */
int stat_control_open(struct stat_control **out, const char *spec, struct pk_diag *diag);
void stat_control_close(struct stat_control *ctl);
/* The fd to poll for commands. */
int stat_control_fd(const struct stat_control *ctl);
/* Read one command after poll said the fd is readable (STAT_CTL_NONE if none or unknown). */
enum stat_ctl_cmd stat_control_read(struct stat_control *ctl);
/* Write "ack\n" to the ack channel, if there is one. */
void stat_control_ack(struct stat_control *ctl);

#endif
