/*
 * perf_event_open(2) and what stands in its way: the perf_event_paranoid
 * sysctl. Holds the one syscall wrapper of the counter module, with perf's
 * fallback for unprivileged users (at paranoid >= 2 an event that counts
 * the kernel is refused, so retry it user-only and call it "name:u"), and
 * the message that explains a permission failure the way perf does; and
 * whether the kernel takes PERF_FORMAT_LOST (Linux 6.0 and later).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "internal.h"

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

int pk_paranoid_level(void)
{
	int64_t v;

	/* Unreadable or absurd: assume Linux's default, 2. */
	if (pk_file_read_s64(PARANOID_PATH, &v) || v < -1000 || v > 1000)
		return 2;
	return (int)v;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			       int group_fd)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			  PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

int pk_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		 bool *fell_back)
{
	int fd = sys_perf_event_open(attr, pid, cpu, group_fd);

	if (fell_back)
		*fell_back = false;
	if (fd != -EACCES && fd != -EPERM)
		return fd;
	/* An event that already leaves out user space is not made user-only. */
	if (attr->exclude_kernel || attr->exclude_user || pk_paranoid_level() < 2)
		return fd;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	fd = sys_perf_event_open(attr, pid, cpu, group_fd);
	if (fd < 0) {
		attr->exclude_kernel = 0;
		attr->exclude_hv = 0;
		return fd;
	}
	if (fell_back)
		*fell_back = true;
	return fd;
}

bool pk_perf_reads_lost(void)
{
	/* A disabled dummy event on this thread, user space only: any paranoid level takes it. */
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_DUMMY,
		.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST,
		.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = sys_perf_event_open(&a, 0, -1, -1);

	if (fd >= 0)
		close(fd);
	/* Only EINVAL says "unknown read_format bit"; other errors the real open will tell. */
	return fd != -EINVAL;
}

char *pk_user_only_name(const char *name)
{
	/* perf appends a bare "u" when the name already has modifiers or is a pmu/../ term. */
	const char *sep = strchr(name, ':') || strchr(name, '/') ? "" : ":";
	size_t n = strlen(name) + strlen(sep) + 2;
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s%su", name, sep);
	return s;
}

/* What each value of the sysctl forbids to unprivileged users (levels are cumulative). */
static const char *paranoid_forbids(int level)
{
	if (level < 0)
		return "nothing";
	if (level == 0)
		return "raw tracepoint access for unprivileged users";
	if (level == 1)
		return "CPU-wide (-a) events and raw tracepoint access for unprivileged users";
	if (level == 2)
		return "kernel profiling, CPU-wide (-a) events and raw tracepoint access "
		       "for unprivileged users";
	return "all use of perf events by unprivileged users";
}

int pk_perm_diag(struct pk_diag *diag, const char *name, int err)
{
	int level = pk_paranoid_level();

	pk_diag_subject(diag, name);
	pk_diag_fail(diag, err, "no permission to open the event (%s): "
		     PARANOID_PATH " is %d, which forbids %s",
		     strerror(-err), level, paranoid_forbids(level));
	if (level < 0)
		pk_diag_hint(diag, "check access to the target process, run as root, "
			     "or add CAP_PERFMON");
	else
		pk_diag_hint(diag, "set " PARANOID_PATH " to %d or run as root, "
			     "or add CAP_PERFMON", level >= 2 ? 1 : level - 1);
	return err;
}
