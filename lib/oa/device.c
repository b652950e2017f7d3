/*
 * The one place where perfkit oa reaches the kernel: open, close, ioctl,
 * read and poll of the i915 DRM node and its perf stream, and reads of small
 * sysfs/procfs files. Everything above (lib/oa/capture.c) calls through a
 * struct pk_oa_dev_ops, so a test can answer in the kernel's place.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <perfkit/oa.h>

static int sys_open(void *ctx, const char *path, int flags)
{
	int fd;

	(void)ctx;
	do
		fd = open(path, flags | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : fd;
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd) ? -errno : 0;
}

/* As libdrm's drmIoctl: interrupted calls are restarted. */
static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	int r;

	(void)ctx;
	do
		r = ioctl(fd, request, arg);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	return r < 0 ? -errno : r;
}

static ssize_t sys_read(void *ctx, int fd, void *buf, size_t len)
{
	ssize_t n;

	(void)ctx;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int sys_poll(void *ctx, int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	(void)ctx;
	r = poll(&p, 1, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 0;
	/* an error or hangup is reported by the read() that follows */
	return 1;
}

static int sys_sysfs_read(void *ctx, const char *path, char *buf, size_t sz)
{
	(void)ctx;
	return pk_file_read_line(path, buf, sz);
}

static const struct pk_oa_dev_ops system_ops = {
	.sz = sizeof(struct pk_oa_dev_ops),
	.open = sys_open,
	.close = sys_close,
	.ioctl = sys_ioctl,
	.read = sys_read,
	.poll = sys_poll,
	.sysfs_read = sys_sysfs_read,
};

const struct pk_oa_dev_ops *pk_oa_dev_ops_system(void)
{
	return &system_ops;
}
