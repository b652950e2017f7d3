/*
 * Targets from the running system: the online CPUs (sysfs cpu list), the
 * threads of a process (/proc/PID/task, sorted by tid) and where a CPU sits
 * (socket, die, core from sysfs topology), for -a, -p and the per-socket,
 * per-die and per-core aggregations of perf stat.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/counter.h>

int pk_cpus_online(int **cpus)
{
	char line[4096];
	int err;

	*cpus = NULL;
	err = pk_file_read_line("/sys/devices/system/cpu/online", line, sizeof(line));
	if (err)
		return err;
	return pk_cpulist_parse(line, cpus, NULL);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* A tid directory name: decimal digits only, within pid_t. */
static int parse_tid(const char *s, pid_t *tid)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT32_MAX)
		return -1;
	*tid = (pid_t)v;
	return 0;
}

int pk_proc_threads(pid_t pid, pid_t **tids)
{
	struct pk_buf b;	/* a growing array of pid_t */
	struct dirent *de;
	char path[64];
	size_t n;
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	pk_buf_init(&b);
	while ((de = readdir(d))) {
		pid_t tid;

		if (!parse_tid(de->d_name, &tid) && pk_buf_append(&b, &tid, sizeof(tid))) {
			closedir(d);
			pk_buf_release(&b);
			return -ENOMEM;
		}
	}
	closedir(d);
	n = b.len / sizeof(pid_t);
	if (!n) {
		pk_buf_release(&b);
		return -ESRCH;
	}
	qsort(b.data, n, sizeof(pid_t), cmp_pid);
	*tids = (pid_t *)(void *)b.data;
	return (int)n;
}

/* A signed integer from a topology file (physical_package_id may be -1). */
static int read_int(int cpu, const char *name, int *out)
{
	char path[128];
	int64_t v;
	int err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	err = pk_file_read_s64(path, &v);
	if (err)
		return err;
	if (v < INT32_MIN || v > INT32_MAX)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int pk_cpu_topology(int cpu, struct pk_cpu_topo *topo)
{
	int err;

	if (cpu < 0)
		return -EINVAL;
	err = read_int(cpu, "physical_package_id", &topo->socket);
	if (!err)
		err = read_int(cpu, "core_id", &topo->core);
	if (err)
		return err;
	/* die_id appeared in Linux 5.2; older kernels have one die per package. */
	if (read_int(cpu, "die_id", &topo->die))
		topo->die = 0;
	return 0;
}
