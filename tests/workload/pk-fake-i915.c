/*
 * pk-fake-i915.so: an i915 GPU with OA counters for machines without one,
 * loaded with LD_PRELOAD into perfkit so that a test can run perfkit oa
 * record end to end (with --sys-root and --dev-root pointing at a fixture
 * tree). It stands in front of libc's ioctl, read, poll and close:
 *
 *   ioctl on the card          (any fd open on the file $PK_FAKE_I915_NODE)
 *                              GETPARAM (PCI id 0x1616, revision 9, CS
 *                              timestamp frequency 12.5 MHz, perf revision
 *                              $PK_FAKE_I915_PERF_REVISION, default 7),
 *                              QUERY of the topology (BDW GT2), REG_READ of
 *                              the render ring's TIMESTAMP (a clock at
 *                              12.5 MHz from the first call), PERF_OPEN (the
 *                              stream: /dev/null underneath, or the errno
 *                              $PK_FAKE_I915_OPEN_ERRNO)
 *   read of the stream         every report whose time has come, built by
 *                              tests/fake_oa_report.h, at the exponent asked
 *   poll of the stream         readable after at most 2 ms
 *
 * Every other call goes to libc unchanged; clock_gettime is watched on the
 * way. With $PK_FAKE_I915_LOG set, each PERF_OPEN appends its properties to
 * that file, one "key value" line each, then "open N" (the properties'
 * numbers are i915_drm.h's), and each REG_READ a line "reg_read clock C":
 * the clock id of the clock_gettime just before it, the clock of the
 * correlation point it is part of.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libdrm/i915_drm.h>
#include "../fake_oa_report.h"

static int stream_fd = -1;
static uint64_t t0_ns, next_ts, period_ticks;
static uint32_t n_reports;

static clockid_t last_clock = -1;

static int real_clock_gettime(clockid_t id, struct timespec *ts)
{
	int (*fn)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");

	return fn(id, ts);
}

/* The clock perfkit read last: the one that times its correlation points around REG_READ. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	last_clock = id;
	return real_clock_gettime(id, ts);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The GPU clock: 12.5 MHz from the card's first use, from a base that wraps its low 32 bits 2 s in. */
static uint64_t gpu_now(void)
{
	if (!t0_ns)
		t0_ns = mono_ns();
	return 0x300000000ull - 2 * FAKE_OA_FREQ + (mono_ns() - t0_ns) * FAKE_OA_FREQ / 1000000000ull;
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

/* Whether @fd is open on $PK_FAKE_I915_NODE (same device and inode). */
static int is_card(int fd)
{
	const char *node = getenv("PK_FAKE_I915_NODE");
	struct stat a, b;

	return fd >= 0 && node && fstat(fd, &a) == 0 && stat(node, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

static int getparam(drm_i915_getparam_t *gp)
{
	switch (gp->param) {
	case I915_PARAM_CHIPSET_ID: *gp->value = FAKE_OA_PCI_ID; return 0;
	case I915_PARAM_REVISION: *gp->value = FAKE_OA_REVISION; return 0;
	case I915_PARAM_CS_TIMESTAMP_FREQUENCY: *gp->value = (int)FAKE_OA_FREQ; return 0;
	case I915_PARAM_PERF_REVISION: *gp->value = env_int("PK_FAKE_I915_PERF_REVISION", 7); return 0;
	default: return fail(EINVAL);
	}
}

static int query(struct drm_i915_query *q)
{
	struct drm_i915_query_item *item = (void *)(uintptr_t)q->items_ptr;
	int len = 16 + (int)sizeof(fake_oa_topology_masks);

	if (q->num_items != 1 || item->query_id != DRM_I915_QUERY_TOPOLOGY_INFO)
		return fail(EINVAL);
	if (item->length == 0) {
		item->length = len;
		return 0;
	}
	if (item->length < len)
		return fail(EINVAL);
	memcpy((void *)(uintptr_t)item->data_ptr, fake_oa_topology_header, 16);
	memcpy((uint8_t *)(uintptr_t)item->data_ptr + 16, fake_oa_topology_masks, sizeof(fake_oa_topology_masks));
	return 0;
}

static int perf_open(const struct drm_i915_perf_open_param *p)
{
	const uint64_t *props = (const void *)(uintptr_t)p->properties_ptr;
	const char *log = getenv("PK_FAKE_I915_LOG");
	int err = env_int("PK_FAKE_I915_OPEN_ERRNO", 0);
	FILE *f = log ? fopen(log, "a") : NULL;

	period_ticks = 2u << 13;
	for (uint32_t i = 0; i < p->num_properties; i++) {
		if (f)
			fprintf(f, "%llu %llu\n", (unsigned long long)props[2 * i],
				(unsigned long long)props[2 * i + 1]);
		if (props[2 * i] == DRM_I915_PERF_PROP_OA_EXPONENT && props[2 * i + 1] < 31)
			period_ticks = 2ull << props[2 * i + 1];
	}
	if (f) {
		fprintf(f, "open %d\n", err ? -err : 0);
		fclose(f);
	}
	if (err)
		return fail(err);
	next_ts = gpu_now() + period_ticks;
	stream_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return stream_fd;
}

int ioctl(int fd, unsigned long req, ...)
{
	int (*fn)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!is_card(fd))
		return fn(fd, req, arg);
	if (req == DRM_IOCTL_I915_GETPARAM)
		return getparam(arg);
	if (req == DRM_IOCTL_I915_QUERY)
		return query(arg);
	if (req == DRM_IOCTL_I915_PERF_OPEN)
		return perf_open(arg);
	if (req == DRM_IOCTL_I915_REG_READ) {
		struct drm_i915_reg_read *rr = arg;
		const char *log = getenv("PK_FAKE_I915_LOG");
		FILE *f = log ? fopen(log, "a") : NULL;

		if (f) {
			fprintf(f, "reg_read clock %d\n", (int)last_clock);
			fclose(f);
		}
		rr->val = gpu_now();
		return 0;
	}
	return fail(ENOTTY);
}

ssize_t read(int fd, void *buf, size_t len)
{
	ssize_t (*fn)(int, void *, size_t) = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	uint8_t *p = buf;
	size_t off = 0;
	uint64_t now;

	if (fd < 0 || fd != stream_fd)
		return fn(fd, buf, len);
	now = gpu_now();
	while (next_ts < now && off + 8 + FAKE_OA_REPORT_SIZE <= len) {
		struct drm_i915_perf_record_header h = { .type = DRM_I915_PERF_RECORD_SAMPLE,
							  .size = 8 + FAKE_OA_REPORT_SIZE };

		memcpy(p + off, &h, 8);
		fake_oa_report(p + off + 8, n_reports++, next_ts);
		off += 8 + FAKE_OA_REPORT_SIZE;
		next_ts += period_ticks;
	}
	if (!off)
		return fail(EAGAIN);
	return (ssize_t)off;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int (*fn)(struct pollfd *, nfds_t, int) = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");

	if (n == 1 && fds[0].fd == stream_fd && stream_fd >= 0) {
		struct timespec ts = { 0, (timeout_ms < 2 ? timeout_ms : 2) * 1000000L };

		nanosleep(&ts, NULL);
		fds[0].revents = POLLIN;
		return 1;
	}
	return fn(fds, n, timeout_ms);
}

int close(int fd)
{
	int (*fn)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");

	if (fd >= 0 && fd == stream_fd)
		stream_fd = -1;
	return fn(fd);
}
