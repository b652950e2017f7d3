/*
 * The command fifo of perfkit oa record -f: i915-perf-control (or anything
 * that writes its commands, pk_oa_control_parse) asks the recorder to dump
 * its circular buffer into a file, or to stop. The fifo is opened for
 * reading and writing, so that it never reads end-of-file when a writer
 * goes, and non-blocking, so that the capture never waits for it: it is
 * read after every poll of the stream. Bytes that are not a command are
 * reported and dropped, so that one bad writer does not stop the ones that
 * come after.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "oa_fifo.h"

int oa_fifo_open(struct oa_fifo *f, const char *path)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->path = path;
	f->fd = -1;
	if (mkfifo(path, 0666) != 0) {
		err = -errno;
		cli_error("'%s': cannot make the command fifo: %s", path, strerror(-err));
		if (err == -EEXIST)
			fprintf(stderr, "hint: another recorder may be using it; if none is, remove it\n");
		return err;
	}
	f->created = true;
	f->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0) {
		err = -errno;
		cli_error("'%s': cannot open the command fifo: %s", path, strerror(-err));
		oa_fifo_close(f);
		return err;
	}
	return 0;
}

void oa_fifo_close(struct oa_fifo *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	if (f->created)
		unlink(f->path);
	f->created = false;
}

static void dump(struct oa_fifo *f, struct pk_oa_capture *cap, const char *path)
{
	struct pk_diag d;
	uint64_t reports = 0;
	int err;

	pk_diag_init(&d);
	err = pk_oa_capture_snapshot(cap, path, &reports, &d);
	if (err) {
		cli_diag(&d, err);
		fprintf(stderr, "[ perfkit oa record: the DUMP from %s failed; recording goes on ]\n", f->path);
		return;
	}
	fprintf(stderr, "[ perfkit oa record: wrote the circular buffer to %s (%llu report%s) ]\n", path,
		(unsigned long long)reports, reports == 1 ? "" : "s");
}

int oa_fifo_control(void *ctx, struct pk_oa_capture *cap)
{
	static struct pk_oa_control_msg msg;
	struct oa_fifo *f = ctx;
	int quit = 0;

	for (;;) {
		ssize_t n = read(f->fd, f->buf + f->len, sizeof(f->buf) - f->len);
		size_t off = 0;
		struct pk_diag d;
		int used;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return quit;
		f->len += (size_t)n;
		pk_diag_init(&d);
		while ((used = pk_oa_control_parse(f->buf + off, f->len - off, &msg, &d)) > 0) {
			off += (size_t)used;
			if (msg.command == PK_OA_CONTROL_DUMP)
				dump(f, cap, msg.path);
			else if (msg.command == PK_OA_CONTROL_QUIT)
				quit = 1;
			else
				cli_error("'%s': unknown command %u, ignored", f->path, msg.command);
		}
		if (used < 0) {
			cli_error("'%s': %s (byte %zu of the command); dropped %zu bytes", f->path, d.msg,
				  (size_t)d.offset, f->len - off);
			off = f->len;
		}
		memmove(f->buf, f->buf + off, f->len - off);
		f->len -= off;
	}
}
