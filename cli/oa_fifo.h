/*
 * The command fifo of perfkit oa record -f (cli/oa_fifo.c): the commands of
 * IGT's i915-perf-control, DUMP (write the circular buffer to a file) and
 * QUIT, read while the capture runs.
 */
#ifndef PERFKIT_OA_FIFO_H
#define PERFKIT_OA_FIFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/oa.h>

struct oa_fifo {
	const char *path;
	int fd;
	bool created;
	size_t len;                           /* bytes of a command not yet whole */
	uint8_t buf[PK_OA_CONTROL_MAX];
};

/* Make the fifo @path and open it, non-blocking; an error is printed. 0 or -errno. */
int oa_fifo_open(struct oa_fifo *f, const char *path);

/* Close the fifo and remove it. */
void oa_fifo_close(struct oa_fifo *f);

/*
 * A pk_oa_capture_opts.control callback (@ctx: the struct oa_fifo): read
 * what was written to the fifo and run each whole command; DUMPs write a
 * snapshot and say so on stderr. 1 after a QUIT, else 0.
 */
int oa_fifo_control(void *ctx, struct pk_oa_capture *cap);

#endif
