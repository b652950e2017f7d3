/*
 * perf's precision fallback for events with the P modifier ("the highest
 * precision the PMU takes"): perf asks for precise_ip 3 and, while the
 * kernel refuses, asks again one level lower, down to 0. x86 refuses a
 * precision above its PMU's with EOPNOTSUPP; other PMUs say EINVAL.
 */
#include <errno.h>
#include "internal.h"

int pk_perf_open_stepping(struct perf_event_attr *attr, bool precise_max, pid_t pid, int cpu,
			  int group_fd, bool *fell_back)
{
	unsigned first = attr->precise_ip;
	int fd = pk_perf_open(attr, pid, cpu, group_fd, fell_back);

	while (precise_max && (fd == -EOPNOTSUPP || fd == -EINVAL) && attr->precise_ip > 0) {
		attr->precise_ip--;
		pk_log(PK_LOG_DEBUG, "precise_ip %u refused, trying %u", attr->precise_ip + 1,
		       attr->precise_ip);
		fd = pk_perf_open(attr, pid, cpu, group_fd, fell_back);
	}
	if (fd < 0)
		attr->precise_ip = first;
	return fd;
}
