/*
 * pk_features_collect_host(): the header features perf record gathers about
 * the recording machine, read from uname(2), /proc and /sys the way perf 6.1
 * does, so that `perf report --header-only` prints the same host lines for a
 * perfkit file as for perf's own:
 *
 *   HOSTNAME, OSRELEASE, ARCH   uname nodename, release, machine
 *   NRCPUS        max present CPU + 1 (/sys/devices/system/cpu/present), online CPUs
 *   CPUDESC       /proc/cpuinfo "model name", whitespace squeezed
 *   CPUID         "vendor,family,model,stepping" (perf's x86 format)
 *   TOTAL_MEM     /proc/meminfo MemTotal (kB)
 *   CPU_TOPOLOGY  per online CPU: package_cpus_list (or core_siblings_list),
 *                 die_cpus_list (x86_64/s390x only), core_cpus_list (or
 *                 thread_siblings_list), each list deduplicated in CPU order;
 *                 then core_id / physical_package_id / die_id of every CPU
 *   NUMA_TOPOLOGY /sys/devices/system/node/online, nodeN/meminfo, nodeN/cpulist
 *   PMU_MAPPINGS  /sys/bus/event_source/devices/<name>/type in directory order
 *   CLOCKID, CLOCK_DATA  clock_getres() and a (CLOCK_REALTIME, clockid) pair
 *
 * Layouts of the features: ../shared/reference/perf-data.md §7.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/features_int.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"

/* One "key<spaces>: value" line of /proc/cpuinfo (first CPU), value copied. */
static int cpuinfo_value(const char *text, const char *key, char *buf, size_t sz)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);

		if (n == 0)
			break;                 /* end of the first CPU's block */
		if (n > klen && !strncmp(line, key, klen)) {
			const char *c = line + klen;

			while (*c == ' ' || *c == '\t')
				c++;
			if (*c == ':') {
				c++;
				if (*c == ' ')
					c++;
				n -= (size_t)(c - line);
				if (n >= sz)
					n = sz - 1;
				memcpy(buf, c, n);
				buf[n] = '\0';
				return 0;
			}
		}
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

/* perf's __write_cpudesc(): every run of white space becomes one blank. */
static void squeeze_spaces(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (isspace((unsigned char)*r)) {
			*w++ = ' ';
			while (isspace((unsigned char)r[1]))
				r++;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static int set_str(char **dst, const char *s, unsigned feat, struct pk_features *f)
{
	*dst = strdup(s);
	if (!*dst)
		return -ENOMEM;
	pk_features_set(f, feat);
	return 0;
}

static int collect_cpuinfo(struct pk_features *f)
{
	static const char *const desc_keys[] = { "model name", "Processor", "cpu model", "cpu" };
	struct pk_buf b;
	char v[256], fam[32], model[32], step[32];
	int err = 0;

	pk_buf_init(&b);
	if (pk_file_read_all("/proc/cpuinfo", &b, 16 << 20) || !b.data)
		goto out;
	for (size_t i = 0; i < sizeof(desc_keys) / sizeof(desc_keys[0]); i++) {
		if (!cpuinfo_value(b.data, desc_keys[i], v, sizeof(v)) && v[0]) {
			squeeze_spaces(v);
			err = set_str(&f->cpudesc, v, PK_FEAT_CPUDESC, f);
			break;
		}
	}
	if (!err && !cpuinfo_value(b.data, "vendor_id", v, 128) &&
	    !cpuinfo_value(b.data, "cpu family", fam, sizeof(fam)) &&
	    !cpuinfo_value(b.data, "model", model, sizeof(model)) &&
	    !cpuinfo_value(b.data, "stepping", step, sizeof(step))) {
		char id[512];

		snprintf(id, sizeof(id), "%s,%s,%s,%s", v, fam, model, step);
		err = set_str(&f->cpuid, id, PK_FEAT_CPUID, f);
	}
out:
	pk_buf_release(&b);
	return err;
}

static int collect_meminfo(struct pk_features *f)
{
	struct pk_buf b;
	const char *p;

	pk_buf_init(&b);
	if (!pk_file_read_all("/proc/meminfo", &b, 1 << 20) && b.data &&
	    (p = strstr(b.data, "MemTotal:"))) {
		f->total_mem = strtoull(p + 9, NULL, 10);
		pk_features_set(f, PK_FEAT_TOTAL_MEM);
	}
	pk_buf_release(&b);
	return 0;
}

/* CPUs of a cpulist file, as a sorted array; count or -errno. */
static int read_cpulist(const char *path, int **cpus)
{
	char line[4096];
	int err = pk_file_read_line(path, line, sizeof(line));

	*cpus = NULL;
	if (err)
		return err;
	return pk_cpulist_parse(line, cpus, NULL);
}

static int has_cpu(const int *cpus, int n, int cpu)
{
	for (int i = 0; i < n; i++)
		if (cpus[i] == cpu)
			return 1;
	return 0;
}

/* Append @s to @l unless an equal string is there already (perf's order). */
static int list_add_unique(struct pk_feat_string_list *l, const char *s)
{
	char **ns;

	for (uint32_t i = 0; i < l->nr; i++)
		if (!strcmp(l->s[i], s))
			return 0;
	ns = realloc(l->s, (l->nr + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	l->s = ns;
	l->s[l->nr] = strdup(s);
	if (!l->s[l->nr])
		return -ENOMEM;
	l->nr++;
	return 0;
}

/* The first of two topology files of @cpu that can be read, added to @l. */
static int topo_list(struct pk_feat_string_list *l, int cpu, const char *name, const char *alt)
{
	char path[256], line[4096];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	if (pk_file_read_line(path, line, sizeof(line))) {
		if (!alt)
			return 0;
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, alt);
		if (pk_file_read_line(path, line, sizeof(line)))
			return 0;
	}
	return list_add_unique(l, line);
}

static uint32_t topo_id(int cpu, const char *name)
{
	char path[256];
	int64_t v;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	return pk_file_read_s64(path, &v) ? UINT32_MAX : (uint32_t)v;
}

static int collect_cpus(struct pk_features *f, const char *arch)
{
	struct pk_feat_cpu_topo *t = &f->cpu_topo;
	int *present = NULL, *online = NULL;
	int np, no, ncpus, has_die, err = 0;

	np = read_cpulist(SYS_CPU "/present", &present);
	no = read_cpulist(SYS_CPU "/online", &online);
	if (np > 0)
		ncpus = present[np - 1] + 1;
	else
		ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus <= 0)
		goto out;
	f->nr_cpus_avail = (uint32_t)ncpus;
	f->nr_cpus_online = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
	pk_features_set(f, PK_FEAT_NRCPUS);
	if (no <= 0)
		goto out;

	has_die = (!strcmp(arch, "x86_64") || !strcmp(arch, "s390x")) &&
		  access(SYS_CPU "/cpu0/topology/die_cpus_list", R_OK) == 0;
	for (int cpu = 0; cpu < ncpus && !err; cpu++) {
		if (!has_cpu(online, no, cpu))
			continue;
		err = topo_list(&t->core_siblings, cpu, "package_cpus_list", "core_siblings_list");
		if (!err && has_die)
			err = topo_list(&t->die_siblings, cpu, "die_cpus_list", NULL);
		if (!err)
			err = topo_list(&t->thread_siblings, cpu, "core_cpus_list",
					"thread_siblings_list");
	}
	if (err)
		goto out;
	t->core_id = malloc((size_t)ncpus * 4);
	t->socket_id = malloc((size_t)ncpus * 4);
	t->die_id = has_die ? malloc((size_t)ncpus * 4) : NULL;
	if (!t->core_id || !t->socket_id || (has_die && !t->die_id)) {
		err = -ENOMEM;
		goto out;
	}
	t->nr_cpus = (uint32_t)ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		t->core_id[cpu] = topo_id(cpu, "core_id");
		t->socket_id[cpu] = topo_id(cpu, "physical_package_id");
		if (has_die)
			t->die_id[cpu] = topo_id(cpu, "die_id");
	}
	pk_features_set(f, PK_FEAT_CPU_TOPOLOGY);
out:
	free(present);
	free(online);
	return err;
}

/* One node's meminfo: "Node N MemTotal:   123 kB" lines. */
static void node_meminfo(int node, uint64_t *total, uint64_t *freemem)
{
	char path[256], field[32];
	struct pk_buf b;

	*total = *freemem = 0;
	snprintf(path, sizeof(path), SYS_NODE "/node%d/meminfo", node);
	pk_buf_init(&b);
	if (!pk_file_read_all(path, &b, 1 << 20) && b.data) {
		for (char *line = b.data; line && *line;) {
			char *end = strchr(line, '\n');
			unsigned long long v;

			if (end)
				*end = '\0';
			if (strchr(line, ':') &&
			    sscanf(line, "%*s %*d %31s %llu", field, &v) == 2) {
				if (!strcmp(field, "MemTotal:"))
					*total = v;
				else if (!strcmp(field, "MemFree:"))
					*freemem = v;
			}
			line = end ? end + 1 : NULL;
		}
	}
	pk_buf_release(&b);
}

static int collect_numa(struct pk_features *f)
{
	int *nodes = NULL;
	int n = read_cpulist(SYS_NODE "/online", &nodes);
	int err = 0;

	if (n <= 0) {
		free(nodes);
		return 0;
	}
	f->numa_nodes = calloc((size_t)n, sizeof(*f->numa_nodes));
	if (!f->numa_nodes) {
		free(nodes);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct pk_feat_numa_node *nn = &f->numa_nodes[f->nr_numa_nodes++];
		char path[256], line[4096];

		nn->node = (uint32_t)nodes[i];
		node_meminfo(nodes[i], &nn->mem_total, &nn->mem_free);
		snprintf(path, sizeof(path), SYS_NODE "/node%d/cpulist", nodes[i]);
		if (pk_file_read_line(path, line, sizeof(line)))
			line[0] = '\0';
		nn->cpus = strdup(line);
		if (!nn->cpus) {
			err = -ENOMEM;
			break;
		}
	}
	free(nodes);
	if (!err)
		pk_features_set(f, PK_FEAT_NUMA_TOPOLOGY);
	return err;
}

static int collect_pmus(struct pk_features *f)
{
	DIR *dir = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	uint32_t cap = 0;
	int err = 0;

	if (!dir)
		return 0;
	while (!err && (de = readdir(dir))) {
		struct pk_feat_pmu_mapping *m;
		char path[512];
		uint64_t type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
		if (pk_file_read_u64(path, &type) || type > UINT32_MAX)
			continue;
		if (f->nr_pmu_mappings == cap) {
			cap = cap ? cap * 2 : 16;
			m = realloc(f->pmu_mappings, cap * sizeof(*m));
			if (!m) {
				err = -ENOMEM;
				break;
			}
			f->pmu_mappings = m;
		}
		m = &f->pmu_mappings[f->nr_pmu_mappings];
		m->type = (uint32_t)type;
		m->name = strdup(de->d_name);
		if (!m->name)
			err = -ENOMEM;
		else
			f->nr_pmu_mappings++;
	}
	closedir(dir);
	if (!err && f->nr_pmu_mappings)
		pk_features_set(f, PK_FEAT_PMU_MAPPINGS);
	return err;
}

static int collect_cmdline(struct pk_features *f, int argc, char *const argv[])
{
	if (argc <= 0 || !argv)
		return 0;
	f->cmdline.s = calloc((size_t)argc, sizeof(char *));
	if (!f->cmdline.s)
		return -ENOMEM;
	for (int i = 0; i < argc; i++) {
		f->cmdline.s[i] = strdup(argv[i] ? argv[i] : "");
		if (!f->cmdline.s[i])
			return -ENOMEM;
		f->cmdline.nr++;
	}
	pk_features_set(f, PK_FEAT_CMDLINE);
	return 0;
}

static int collect_clock(struct pk_features *f, int clockid)
{
	struct timespec res, wall, clk;

	if (clock_getres(clockid, &res) == 0) {
		f->clockid_res_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
		pk_features_set(f, PK_FEAT_CLOCKID);
	}
	if (clock_gettime(CLOCK_REALTIME, &wall) == 0 && clock_gettime(clockid, &clk) == 0) {
		f->clock_data_version = 1;
		f->clock_data_clockid = (uint32_t)clockid;
		f->clock_wall_ns = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
		f->clock_clockid_ns = (uint64_t)clk.tv_sec * 1000000000ull + (uint64_t)clk.tv_nsec;
		pk_features_set(f, PK_FEAT_CLOCK_DATA);
	}
	return 0;
}

int pk_features_collect_host(struct pk_features *f, const char *version, int argc,
			     char *const argv[], int clockid)
{
	struct utsname u;
	int err = 0;

	if (!f)
		return -EINVAL;
	if (uname(&u) == 0) {
		err = set_str(&f->hostname, u.nodename, PK_FEAT_HOSTNAME, f);
		if (!err)
			err = set_str(&f->osrelease, u.release, PK_FEAT_OSRELEASE, f);
		if (!err)
			err = set_str(&f->arch, u.machine, PK_FEAT_ARCH, f);
	} else {
		u.machine[0] = '\0';
	}
	if (!err && version)
		err = set_str(&f->version, version, PK_FEAT_VERSION, f);
	if (!err)
		err = collect_cpus(f, u.machine);
	if (!err)
		err = collect_cpuinfo(f);
	if (!err)
		err = collect_meminfo(f);
	if (!err)
		err = collect_cmdline(f, argc, argv);
	if (!err)
		err = collect_numa(f);
	if (!err)
		err = collect_pmus(f);
	if (!err && clockid >= 0)
		err = collect_clock(f, clockid);
	return err;
}
