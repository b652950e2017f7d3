/*
 * pk-fake-pmu.so: a CPU PMU for machines without one, loaded with LD_PRELOAD
 * into perf and perfkit alike so that both can be compared on hardware
 * events. It stands in front of libc's syscall(2) and answers
 * perf_event_open(2) for PERF_TYPE_HARDWARE events as a PMU whose highest
 * precision is $PK_FAKE_PMU_MAX_PRECISE (0 to 3, default 0): a higher
 * precise_ip gets EOPNOTSUPP, as x86 returns it; an accepted event is opened
 * as the software cpu-clock, so it counts and samples (in nanoseconds, not
 * cycles). Every other call goes to libc unchanged. With $PK_FAKE_PMU_LOG
 * set, each hardware open appends a line to that file: the event's config,
 * precise_ip, exclude_guest and exclude_host, and the result. With
 * $PK_FAKE_PMU_NO_READ_LOST set, every open (of any type) whose read_format
 * has PERF_FORMAT_LOST fails with EINVAL, as on kernels before 6.0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, ...);

static void log_open(const struct perf_event_attr *a, const char *result)
{
	const char *path = getenv("PK_FAKE_PMU_LOG");
	char line[128];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "config=%llu precise_ip=%u exclude_guest=%u exclude_host=%u %s\n",
		     (unsigned long long)a->config, (unsigned)a->precise_ip,
		     (unsigned)a->exclude_guest, (unsigned)a->exclude_host, result);
	if (write(fd, line, (size_t)n) != n)
		n = 0;
	close(fd);
}

static long fake_hw_open(syscall_fn real, const struct perf_event_attr *attr, long pid, long cpu,
			 long group_fd, long flags)
{
	const char *max = getenv("PK_FAKE_PMU_MAX_PRECISE");
	size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	struct perf_event_attr sw;
	long fd;

	if (attr->precise_ip > (max ? strtoul(max, NULL, 10) : 0)) {
		log_open(attr, "EOPNOTSUPP");
		errno = EOPNOTSUPP;
		return -1;
	}
	memset(&sw, 0, sizeof(sw));
	memcpy(&sw, attr, size < sizeof(sw) ? size : sizeof(sw));
	sw.size = sizeof(sw);
	sw.type = PERF_TYPE_SOFTWARE;
	sw.config = PERF_COUNT_SW_CPU_CLOCK;
	sw.precise_ip = 0;
	fd = real(__NR_perf_event_open, &sw, pid, cpu, group_fd, flags);
	log_open(attr, fd < 0 ? strerror(errno) : "ok");
	return fd;
}

long syscall(long nr, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;

	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == __NR_perf_event_open && a[0] && getenv("PK_FAKE_PMU_NO_READ_LOST") &&
	    (((const struct perf_event_attr *)a[0])->read_format & PERF_FORMAT_LOST)) {
		errno = EINVAL;
		return -1;
	}
	if (nr == __NR_perf_event_open && a[0] &&
	    (((const struct perf_event_attr *)a[0])->type == PERF_TYPE_HARDWARE ||
	     ((const struct perf_event_attr *)a[0])->type == PERF_TYPE_HW_CACHE))
		return fake_hw_open(real, (const struct perf_event_attr *)a[0], a[1], a[2], a[3],
				    a[4]);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
