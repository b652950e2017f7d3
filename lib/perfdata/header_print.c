/*
 * `perf report --header-only`: the "# ========" block with the file header
 * fields and one or more lines per header feature present, in the layout of
 * perf 6.1 (tools/perf/util/header.c print_* functions, observed against
 * the corpus in ../shared/data/perf.data/). Topology-like features print
 * only "info available" as perf does without -I, and themselves with it
 * (header_print_topology.c).
 *
 * Uses only the public reader API; the capture time is the file's mtime
 * (perf prints ctime() of fstat's st_mtime) and the header version comes
 * from the file's magic ("PERFFILE" is version 0).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "perfdata/features_int.h"

/* perf 6.1 knows features 1..31 (HEADER_LAST_FEATURE = 32). */
#define PERF61_LAST_FEATURE 32

/* The "# event :" lines from EVENT_DESC. */
static int print_event_desc(const struct pk_features *f, struct pk_buf *o)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < f->nr_event_desc; i++) {
		const struct pk_feat_event_desc *e = &f->event_desc[i];

		err = pk_buf_printf(o, "# event : name = %s, ", e->name ? e->name : "(null)");
		if (!err && e->nr_ids) {
			err = pk_buf_printf(o, ", id = {");
			for (uint32_t j = 0; !err && j < e->nr_ids; j++)
				err = pk_buf_printf(o, "%s %" PRIu64, j ? "," : "", e->ids[j]);
			if (!err)
				err = pk_buf_printf(o, " }");
		}
		if (!err)
			err = pk_attr_print(&e->attr, o);
		if (!err)
			err = pk_buf_printf(o, "\n");
	}
	return err;
}

/* perf escapes single quotes in the command line as \' and ends each word with a space. */
static int print_cmdline(const struct pk_features *f, struct pk_buf *o)
{
	int err = pk_buf_printf(o, "# cmdline : ");

	for (uint32_t i = 0; !err && i < f->cmdline.nr; i++) {
		const char *s = f->cmdline.s[i], *q;

		while (!err && (q = strchr(s, '\''))) {
			err = pk_buf_append(o, s, (size_t)(q - s));
			if (!err)
				err = pk_buf_printf(o, "\\'");
			s = q + 1;
		}
		if (!err)
			err = pk_buf_printf(o, "%s ", s);
	}
	return err ? err : pk_buf_printf(o, "\n");
}

static const char *evsel_name(const struct pk_perfdata *p, const struct pk_features *f,
			      uint32_t idx)
{
	const struct pk_evsel *ev = p && idx < pk_perfdata_nr_evsels(p) ?
				    pk_perfdata_evsel(p, idx) : NULL;

	if (ev && ev->name)
		return ev->name;
	if (idx < f->nr_event_desc && f->event_desc[idx].name)
		return f->event_desc[idx].name;
	return "(null)";
}

/* "# group: [name]{leader,member,...}" for groups of more than one event. */
static int print_groups(const struct pk_perfdata *p, const struct pk_features *f,
			struct pk_buf *o)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < f->nr_groups; i++) {
		const struct pk_feat_group_desc *g = &f->groups[i];
		const char *name = g->name && strcmp(g->name, "{anon_group}") ? g->name : "";

		if (g->nr_members <= 1)
			continue;
		err = pk_buf_printf(o, "# group: %s{", name);
		for (uint32_t j = 0; !err && j < g->nr_members; j++)
			err = pk_buf_printf(o, "%s%s", j ? "," : "",
					    evsel_name(p, f, g->leader_idx + j));
		if (!err)
			err = pk_buf_printf(o, "}\n");
	}
	return err;
}

static int print_pmu_mappings(const struct pk_features *f, struct pk_buf *o)
{
	int err;

	if (!f->nr_pmu_mappings)
		return pk_buf_printf(o, "# pmu mappings: not available\n");
	err = pk_buf_printf(o, "# pmu mappings: ");
	for (uint32_t i = 0; !err && i < f->nr_pmu_mappings; i++)
		err = pk_buf_printf(o, "%s%s = %" PRIu32, i ? ", " : "", f->pmu_mappings[i].name,
				    f->pmu_mappings[i].type);
	return err ? err : pk_buf_printf(o, "\n");
}

/* perf keeps capabilities as "name=value" strings and prints them comma-separated. */
static int print_caps(const struct pk_feat_caps *c, const char *pmu, struct pk_buf *o)
{
	int err;

	if (!c->nr)
		return pk_buf_printf(o, "# %s pmu capabilities: not available\n", pmu);
	err = pk_buf_printf(o, "# %s pmu capabilities: ", pmu);
	for (uint32_t i = 0; !err && i < c->nr; i++)
		err = pk_buf_printf(o, "%s%s=%s", i ? ", " : "", c->name[i], c->value[i]);
	return err ? err : pk_buf_printf(o, "\n");
}

/* timestamp__scnprintf_usec: seconds and truncated microseconds. */
static int print_sample_time(const struct pk_features *f, struct pk_buf *o)
{
	uint64_t a = f->first_sample_time, b = f->last_sample_time;

	return pk_buf_printf(o, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n"
			     "# time of last sample : %" PRIu64 ".%06" PRIu64 "\n"
			     "# sample duration : %10.3f ms\n",
			     a / 1000000000, a % 1000000000 / 1000,
			     b / 1000000000, b % 1000000000 / 1000,
			     (double)(b - a) / 1000000.0);
}

static const char *clockid_name(uint32_t id)
{
	switch (id) {
	case 0: return "realtime";
	case 1: return "monotonic";
	case 4: return "monotonic_raw";
	case 7: return "boottime";
	case 11: return "tai";
	default: return "(not found)";
	}
}

static int print_clock_data(const struct pk_features *f, struct pk_buf *o)
{
	time_t sec = (time_t)(f->clock_wall_ns / 1000000000);
	int usec = (int)(f->clock_wall_ns % 1000000000 / 1000);
	uint64_t csec = f->clock_clockid_ns / 1000000000, cnsec = f->clock_clockid_ns % 1000000000;
	const char *cn = clockid_name(f->clock_data_clockid);
	char date[64], tstr[96];
	struct tm tm;

	if (!localtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%F %T", &tm))
		snprintf(tstr, sizeof(tstr), "<error>");
	else
		snprintf(tstr, sizeof(tstr), "%s.%06d", date, usec);
	return pk_buf_printf(o, "# clockid: %s (%u)\n"
			     "# reference time: %s = %ld.%06d (TOD) = %ld.%09ld (%s)\n",
			     cn, f->clock_data_clockid, tstr, (long)sec, usec, (long)csec,
			     (long)cnsec, cn);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "# btf info of id N" for each distinct id, ascending (perf keeps them in an rbtree). */
static int print_btf(const struct pk_features *f, int swap, struct pk_buf *o)
{
	struct pk_fcur c;
	uint32_t nr, *ids;
	int err = 0;

	pk_fcur_init(&c, f->raw[PK_FEAT_BPF_BTF], f->raw_size[PK_FEAT_BPF_BTF], swap, 0,
		     "bpf_btf", NULL);
	if (pk_fcur_count(&c, 8, &nr) || !nr)
		return 0;
	ids = calloc(nr, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t sz;

		/* Walked once by the parser already; re-check anyway. */
		if (pk_fcur_u32(&c, &ids[i]) || pk_fcur_u32(&c, &sz) || pk_fcur_skip(&c, sz)) {
			nr = i;
			break;
		}
	}
	qsort(ids, nr, sizeof(*ids), cmp_u32);
	for (uint32_t i = 0; !err && i < nr; i++)
		if (!i || ids[i] != ids[i - 1])
			err = pk_buf_printf(o, "# btf info of id %u\n", ids[i]);
	free(ids);
	return err;
}

/* The file has feature @feat: parsed, or kept raw because it could not be parsed. */
static int in_file(const struct pk_features *f, unsigned feat)
{
	return f && (pk_features_has(f, feat) || (feat < PK_FEAT_LAST && f->raw[feat]));
}

/*
 * Features whose line does not depend on their payload print even when the
 * payload could not be parsed, as in perf (whose print callbacks for them
 * read nothing).
 */
static int payload_free(unsigned feat)
{
	switch (feat) {
	case PK_FEAT_CPU_TOPOLOGY: case PK_FEAT_NUMA_TOPOLOGY: case PK_FEAT_CACHE:
	case PK_FEAT_MEM_TOPOLOGY: case PK_FEAT_HYBRID_TOPOLOGY: case PK_FEAT_BRANCH_STACK:
	case PK_FEAT_AUXTRACE: case PK_FEAT_STAT:
		return 1;
	default:
		return 0;
	}
}

static int print_feature(const struct pk_perfdata *p, const struct pk_features *f,
			 unsigned feat, int full, struct pk_buf *o)
{
	switch (feat) {
	case PK_FEAT_HOSTNAME: return pk_buf_printf(o, "# hostname : %s\n", f->hostname);
	case PK_FEAT_OSRELEASE: return pk_buf_printf(o, "# os release : %s\n", f->osrelease);
	case PK_FEAT_VERSION: return pk_buf_printf(o, "# perf version : %s\n", f->version);
	case PK_FEAT_ARCH: return pk_buf_printf(o, "# arch : %s\n", f->arch);
	case PK_FEAT_NRCPUS:
		return pk_buf_printf(o, "# nrcpus online : %u\n# nrcpus avail : %u\n",
				     f->nr_cpus_online, f->nr_cpus_avail);
	case PK_FEAT_CPUDESC: return pk_buf_printf(o, "# cpudesc : %s\n", f->cpudesc);
	case PK_FEAT_CPUID: return pk_buf_printf(o, "# cpuid : %s\n", f->cpuid);
	case PK_FEAT_TOTAL_MEM:
		return pk_buf_printf(o, "# total memory : %" PRIu64 " kB\n", f->total_mem);
	case PK_FEAT_CMDLINE: return print_cmdline(f, o);
	case PK_FEAT_EVENT_DESC: return print_event_desc(f, o);
	case PK_FEAT_CPU_TOPOLOGY:
	case PK_FEAT_NUMA_TOPOLOGY:
	case PK_FEAT_CACHE:
	case PK_FEAT_MEM_TOPOLOGY:
	case PK_FEAT_HYBRID_TOPOLOGY:
		if (full)
			return pk_header_print_full_only(f, feat, o);
		return pk_buf_printf(o, "# %s info available, use -I to display\n",
				     pk_feature_name_upper(feat));
	case PK_FEAT_BRANCH_STACK:
		return pk_buf_printf(o, "# contains samples with branch stack\n");
	case PK_FEAT_PMU_MAPPINGS: return print_pmu_mappings(f, o);
	case PK_FEAT_GROUP_DESC: return print_groups(p, f, o);
	case PK_FEAT_AUXTRACE:
		return pk_buf_printf(o, "# contains AUX area data (e.g. instruction trace)\n");
	case PK_FEAT_STAT: return pk_buf_printf(o, "# contains stat data\n");
	case PK_FEAT_SAMPLE_TIME: return print_sample_time(f, o);
	case PK_FEAT_CLOCKID:
		return pk_buf_printf(o, "# clockid frequency: %" PRIu64 " MHz\n",
				     f->clockid_res_ns * 1000);
	case PK_FEAT_DIR_FORMAT:
		return pk_buf_printf(o, "# directory data version : %" PRIu64 "\n",
				     f->dir_format_version);
	case PK_FEAT_BPF_BTF: return print_btf(f, p ? pk_perfdata_is_swapped(p) : 0, o);
	case PK_FEAT_COMPRESSED:
		return pk_buf_printf(o, "# compressed : %s, level = %d, ratio = %d\n",
				     f->comp_type == 1 ? "Zstd" : "Unknown", (int)f->comp_level,
				     (int)f->comp_ratio);
	case PK_FEAT_CPU_PMU_CAPS: return print_caps(&f->cpu_pmu_caps, "cpu", o);
	case PK_FEAT_CLOCK_DATA: return print_clock_data(f, o);
	case PK_FEAT_PMU_CAPS: {
		int err = 0;

		for (uint32_t i = 0; !err && i < f->nr_pmu_caps; i++)
			err = print_caps(&f->pmu_caps[i], f->pmu_caps[i].pmu_name, o);
		return err;
	}
	default:
		/*
		 * TRACING_DATA and BUILD_ID print nothing in perf; BPF_PROG_INFO
		 * needs the programs' BTF to name them and is not printed here;
		 * 32.. are unknown to perf 6.1.
		 */
		return 0;
	}
}

/* Header version from the magic: "PERFFILE" (version 1 of the format) prints 0. */
static int header_version(const char *path)
{
	char magic[8];
	int fd, v = 1;

	if (!path || !strcmp(path, "-"))
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	if (read(fd, magic, sizeof(magic)) == (ssize_t)sizeof(magic) &&
	    !memcmp(magic, "PERFFILE", 8))
		v = 0;
	close(fd);
	return v;
}

int pk_perfdata_header_print(const struct pk_perfdata *p, int full, struct pk_buf *out)
{
	const struct pk_features *f = pk_perfdata_features(p);
	const char *path = pk_perfdata_path(p);
	int pipe = pk_perfdata_is_pipe(p);
	uint64_t doff = 0, dsize = 0;
	char tbuf[64] = "\n";
	struct stat st;
	int err, rc;

	pk_perfdata_data_section(p, &doff, &dsize);
	if (pipe)
		doff = dsize = 0;
	rc = (!path || !strcmp(path, "-")) ? fstat(STDIN_FILENO, &st) : stat(path, &st);
	if (rc == 0) {
		time_t t = st.st_mtime;

		if (!ctime_r(&t, tbuf))
			snprintf(tbuf, sizeof(tbuf), "\n");
	}
	err = pk_buf_printf(out, "# ========\n"
			    "# captured on    : %s"
			    "# header version : %d\n"
			    "# data offset    : %" PRIu64 "\n"
			    "# data size      : %" PRIu64 "\n"
			    "# feat offset    : %" PRIu64 "\n",
			    tbuf, header_version(path), doff, dsize, doff + dsize);
	/* In pipe mode perf prints the features as their records arrive, after the block. */
	if (!err && pipe)
		err = pk_buf_printf(out, "# ========\n#\n");
	for (unsigned feat = 1; !err && f && feat < PERF61_LAST_FEATURE; feat++)
		if (pk_features_has(f, feat) || (in_file(f, feat) && payload_free(feat)))
			err = print_feature(p, f, feat, full, out);
	if (err || pipe)
		return err;
	err = pk_buf_printf(out, "# missing features: ");
	for (unsigned feat = 1; !err && feat < PERF61_LAST_FEATURE; feat++)
		if (!in_file(f, feat))
			err = pk_buf_printf(out, "%s ", pk_feature_name_upper(feat));
	if (!err)
		err = pk_buf_printf(out, "\n# ========\n#\n");
	return err;
}
