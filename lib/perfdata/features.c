/*
 * Header features of perf.data (the HEADER_* sections after the data
 * section, or the payloads of pipe-mode HEADER_FEATURE records): the
 * dispatcher pk_features_parse(), the simple fixed-size and string features,
 * the bounded cursor they all read through, and pk_features_release().
 * Topology-like features live in features_topology.c, the event, build-id
 * and PMU features in features_events.c.
 *
 * Every count read from the file is bounded by the bytes left in the
 * section before anything is allocated; a string must hold its NUL inside
 * its declared length. Failures go through PK_CORRUPT with the absolute
 * file offset of the bad field.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/features_int.h"

/* ---- the cursor ------------------------------------------------------------ */

void pk_fcur_init(struct pk_fcur *c, const void *buf, size_t len, int swap, uint64_t base,
		  const char *what, struct pk_diag *d)
{
	c->p = buf;
	c->len = buf ? len : 0;
	c->off = 0;
	c->swap = swap;
	c->base = base;
	c->what = what ? what : "feature";
	c->d = d;
}

int pk_fcur_short(struct pk_fcur *c, size_t need)
{
	return PK_CORRUPT(c->d, pk_fcur_pos(c), "truncated %s feature: need %zu bytes, %zu left",
			  c->what, need, pk_fcur_left(c));
}

int pk_fcur_skip(struct pk_fcur *c, size_t n)
{
	if (n > pk_fcur_left(c))
		return pk_fcur_short(c, n);
	c->off += n;
	return 0;
}

int pk_fcur_u16(struct pk_fcur *c, uint16_t *v)
{
	if (pk_fcur_left(c) < sizeof(*v))
		return pk_fcur_short(c, sizeof(*v));
	memcpy(v, c->p + c->off, sizeof(*v));
	if (c->swap)
		*v = bswap_16(*v);
	c->off += sizeof(*v);
	return 0;
}

int pk_fcur_u32(struct pk_fcur *c, uint32_t *v)
{
	if (pk_fcur_left(c) < sizeof(*v))
		return pk_fcur_short(c, sizeof(*v));
	memcpy(v, c->p + c->off, sizeof(*v));
	if (c->swap)
		*v = bswap_32(*v);
	c->off += sizeof(*v);
	return 0;
}

int pk_fcur_u64(struct pk_fcur *c, uint64_t *v)
{
	if (pk_fcur_left(c) < sizeof(*v))
		return pk_fcur_short(c, sizeof(*v));
	memcpy(v, c->p + c->off, sizeof(*v));
	if (c->swap)
		*v = bswap_64(*v);
	c->off += sizeof(*v);
	return 0;
}

/*
 * struct perf_header_string (perf-data.md §7):
 *   OFFSET  SIZE  FIELD
 *   0       4     len   (includes the NUL and padding to 64, NAME_ALIGN)
 *   4       len   str   (NUL-terminated inside len)
 */
int pk_fcur_string(struct pk_fcur *c, char **out)
{
	uint64_t at = pk_fcur_pos(c);
	const char *s, *nul;
	uint32_t len;
	int err;

	*out = NULL;
	err = pk_fcur_u32(c, &len);
	if (err)
		return err;
	if (len > pk_fcur_left(c))
		return PK_CORRUPT(c->d, at, "%s feature: string length %u runs past the section "
				  "(%zu bytes left)", c->what, len, pk_fcur_left(c));
	s = (const char *)c->p + c->off;
	nul = len ? memchr(s, '\0', len) : NULL;
	if (!nul)
		return PK_CORRUPT(c->d, at, "%s feature: string of length %u is not NUL-terminated",
				  c->what, len);
	*out = strndup(s, (size_t)(nul - s));
	if (!*out)
		return -ENOMEM;
	c->off += len;
	return 0;
}

int pk_fcur_count(struct pk_fcur *c, size_t min_item, uint32_t *nr)
{
	uint64_t at = pk_fcur_pos(c);
	int err = pk_fcur_u32(c, nr);

	if (err)
		return err;
	if (min_item && *nr > pk_fcur_left(c) / min_item)
		return PK_CORRUPT(c->d, at, "%s feature: count %u does not fit in the %zu bytes left",
				  c->what, *nr, pk_fcur_left(c));
	return 0;
}

void pk_feat_string_list_free(struct pk_feat_string_list *l)
{
	if (l->s)
		for (uint32_t i = 0; i < l->nr; i++)
			free(l->s[i]);
	free(l->s);
	l->s = NULL;
	l->nr = 0;
}

/* String list: { u32 nr; perf_header_string s[nr]; } (each string at least 4 bytes). */
int pk_fcur_string_list(struct pk_fcur *c, struct pk_feat_string_list *l)
{
	uint32_t nr;
	int err;

	l->nr = 0;
	l->s = NULL;
	err = pk_fcur_count(c, 4, &nr);
	if (err)
		return err;
	if (nr) {
		l->s = calloc(nr, sizeof(*l->s));
		if (!l->s)
			return -ENOMEM;
	}
	l->nr = nr;
	for (uint32_t i = 0; i < nr; i++) {
		err = pk_fcur_string(c, &l->s[i]);
		if (err)
			return err;   /* caller frees; unread slots are NULL */
	}
	return 0;
}

/* ---- per-feature release ----------------------------------------------------- */

static void free_caps(struct pk_feat_caps *caps)
{
	for (uint32_t i = 0; i < caps->nr; i++) {
		if (caps->name)
			free(caps->name[i]);
		if (caps->value)
			free(caps->value[i]);
	}
	free(caps->name);
	free(caps->value);
	free(caps->pmu_name);
	memset(caps, 0, sizeof(*caps));
}

/* Free what feature @feat put into @f and mark it absent. */
static void feat_clear(struct pk_features *f, unsigned feat)
{
	uint32_t i;

	switch (feat) {
	case PK_FEAT_TRACING_DATA:
		f->tracing_data = NULL;
		f->tracing_data_size = 0;
		break;
	case PK_FEAT_BUILD_ID:
		for (i = 0; f->build_ids && i < f->nr_build_ids; i++)
			free(f->build_ids[i].filename);
		free(f->build_ids);
		f->build_ids = NULL;
		f->nr_build_ids = 0;
		break;
	case PK_FEAT_HOSTNAME: free(f->hostname); f->hostname = NULL; break;
	case PK_FEAT_OSRELEASE: free(f->osrelease); f->osrelease = NULL; break;
	case PK_FEAT_VERSION: free(f->version); f->version = NULL; break;
	case PK_FEAT_ARCH: free(f->arch); f->arch = NULL; break;
	case PK_FEAT_CPUDESC: free(f->cpudesc); f->cpudesc = NULL; break;
	case PK_FEAT_CPUID: free(f->cpuid); f->cpuid = NULL; break;
	case PK_FEAT_NRCPUS: f->nr_cpus_avail = f->nr_cpus_online = 0; break;
	case PK_FEAT_TOTAL_MEM: f->total_mem = 0; break;
	case PK_FEAT_CMDLINE: pk_feat_string_list_free(&f->cmdline); break;
	case PK_FEAT_EVENT_DESC:
		for (i = 0; f->event_desc && i < f->nr_event_desc; i++) {
			free(f->event_desc[i].name);
			free(f->event_desc[i].ids);
		}
		free(f->event_desc);
		f->event_desc = NULL;
		f->nr_event_desc = 0;
		break;
	case PK_FEAT_CPU_TOPOLOGY:
		pk_feat_string_list_free(&f->cpu_topo.core_siblings);
		pk_feat_string_list_free(&f->cpu_topo.thread_siblings);
		pk_feat_string_list_free(&f->cpu_topo.die_siblings);
		free(f->cpu_topo.core_id);
		free(f->cpu_topo.socket_id);
		free(f->cpu_topo.die_id);
		memset(&f->cpu_topo, 0, sizeof(f->cpu_topo));
		break;
	case PK_FEAT_NUMA_TOPOLOGY:
		for (i = 0; f->numa_nodes && i < f->nr_numa_nodes; i++)
			free(f->numa_nodes[i].cpus);
		free(f->numa_nodes);
		f->numa_nodes = NULL;
		f->nr_numa_nodes = 0;
		break;
	case PK_FEAT_PMU_MAPPINGS:
		for (i = 0; f->pmu_mappings && i < f->nr_pmu_mappings; i++)
			free(f->pmu_mappings[i].name);
		free(f->pmu_mappings);
		f->pmu_mappings = NULL;
		f->nr_pmu_mappings = 0;
		break;
	case PK_FEAT_GROUP_DESC:
		for (i = 0; f->groups && i < f->nr_groups; i++)
			free(f->groups[i].name);
		free(f->groups);
		f->groups = NULL;
		f->nr_groups = 0;
		break;
	case PK_FEAT_AUXTRACE:
		free(f->auxtrace);
		f->auxtrace = NULL;
		f->nr_auxtrace = 0;
		break;
	case PK_FEAT_CACHE:
		for (i = 0; f->caches && i < f->nr_caches; i++) {
			free(f->caches[i].type);
			free(f->caches[i].size);
			free(f->caches[i].map);
		}
		free(f->caches);
		f->caches = NULL;
		f->nr_caches = f->cache_version = 0;
		break;
	case PK_FEAT_SAMPLE_TIME: f->first_sample_time = f->last_sample_time = 0; break;
	case PK_FEAT_MEM_TOPOLOGY:
		for (i = 0; f->mem_nodes && i < f->nr_mem_nodes; i++)
			free(f->mem_nodes[i].bitmap);
		free(f->mem_nodes);
		f->mem_nodes = NULL;
		f->nr_mem_nodes = f->mem_topo_version = f->mem_block_size = 0;
		break;
	case PK_FEAT_CLOCKID: f->clockid_res_ns = 0; break;
	case PK_FEAT_DIR_FORMAT: f->dir_format_version = 0; break;
	case PK_FEAT_BPF_PROG_INFO: f->nr_bpf_prog_info = 0; break;
	case PK_FEAT_BPF_BTF: f->nr_bpf_btf = 0; break;
	case PK_FEAT_COMPRESSED:
		f->comp_version = f->comp_type = f->comp_level = 0;
		f->comp_ratio = f->comp_mmap_len = 0;
		break;
	case PK_FEAT_CPU_PMU_CAPS: free_caps(&f->cpu_pmu_caps); break;
	case PK_FEAT_CLOCK_DATA:
		f->clock_data_version = f->clock_data_clockid = 0;
		f->clock_wall_ns = f->clock_clockid_ns = 0;
		break;
	case PK_FEAT_HYBRID_TOPOLOGY:
		for (i = 0; f->hybrid && i < f->nr_hybrid; i++) {
			free(f->hybrid[i].pmu_name);
			free(f->hybrid[i].cpus);
		}
		free(f->hybrid);
		f->hybrid = NULL;
		f->nr_hybrid = 0;
		break;
	case PK_FEAT_PMU_CAPS:
		for (i = 0; f->pmu_caps && i < f->nr_pmu_caps; i++)
			free_caps(&f->pmu_caps[i]);
		free(f->pmu_caps);
		f->pmu_caps = NULL;
		f->nr_pmu_caps = 0;
		break;
	case PK_FEAT_E_MACHINE: f->e_machine = f->e_flags = 0; break;
	case PK_FEAT_CLN_SIZE: f->cln_size = 0; break;
	default:
		break;
	}
	if (feat < PK_FEAT_LAST) {
		f->raw[feat] = NULL;
		f->raw_size[feat] = 0;
	}
	if (feat < 256)
		f->present[feat / 64] &= ~(1ULL << (feat % 64));
}

void pk_features_release(struct pk_features *f)
{
	if (!f)
		return;
	for (unsigned feat = 1; feat < PK_FEAT_LAST; feat++)
		feat_clear(f, feat);
	memset(f, 0, sizeof(*f));
}

/* ---- small features ------------------------------------------------------------ */

/*
 * PMU_MAPPINGS (perf-data.md §7):
 *   u32 nr; { u32 type; perf_header_string name; }[nr]
 */
static int parse_pmu_mappings(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 8, &nr);

	if (err)
		return err;
	if (nr && !(f->pmu_mappings = calloc(nr, sizeof(*f->pmu_mappings))))
		return -ENOMEM;
	f->nr_pmu_mappings = nr;
	for (uint32_t i = 0; i < nr; i++) {
		err = pk_fcur_u32(c, &f->pmu_mappings[i].type);
		if (!err)
			err = pk_fcur_string(c, &f->pmu_mappings[i].name);
		if (err)
			return err;
	}
	return 0;
}

/*
 * GROUP_DESC (perf-data.md §7):
 *   u32 nr; { perf_header_string name; u32 leader_idx; u32 nr_members; }[nr]
 */
static int parse_group_desc(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 12, &nr);

	if (err)
		return err;
	if (nr && !(f->groups = calloc(nr, sizeof(*f->groups))))
		return -ENOMEM;
	f->nr_groups = nr;
	for (uint32_t i = 0; i < nr; i++) {
		err = pk_fcur_string(c, &f->groups[i].name);
		if (!err)
			err = pk_fcur_u32(c, &f->groups[i].leader_idx);
		if (!err)
			err = pk_fcur_u32(c, &f->groups[i].nr_members);
		if (err)
			return err;
	}
	return 0;
}

/*
 * AUXTRACE index (perf-data.md §7; perf's auxtrace_index__write):
 *   repeated until the end: u64 nr; { u64 file_offset; u64 size; }[nr]
 * perf writes a single block; further blocks are accepted and appended.
 */
static int parse_auxtrace(struct pk_features *f, struct pk_fcur *c)
{
	struct pk_fcur scan = *c;
	uint64_t total = 0, nr;
	int err;

	/* First pass: validate the blocks and count the entries. */
	while (pk_fcur_left(&scan)) {
		uint64_t at = pk_fcur_pos(&scan);

		err = pk_fcur_u64(&scan, &nr);
		if (err)
			return err;
		if (nr > pk_fcur_left(&scan) / 16)
			return PK_CORRUPT(c->d, at, "auxtrace feature: %llu entries do not fit in "
					  "the %zu bytes left", (unsigned long long)nr,
					  pk_fcur_left(&scan));
		scan.off += nr * 16;
		total += nr;
	}
	if (total > UINT32_MAX)
		return PK_CORRUPT(c->d, c->base, "auxtrace feature: too many entries");
	if (total && !(f->auxtrace = calloc(total, sizeof(*f->auxtrace))))
		return -ENOMEM;
	while (pk_fcur_left(c)) {
		err = pk_fcur_u64(c, &nr);
		for (uint64_t i = 0; !err && i < nr; i++) {
			struct pk_feat_auxtrace_entry *e = &f->auxtrace[f->nr_auxtrace++];

			err = pk_fcur_u64(c, &e->file_offset);
			if (!err)
				err = pk_fcur_u64(c, &e->size);
		}
		if (err)
			return err;
	}
	return 0;
}

/* Walk { u32 a; u32 len; u8 data[len]; }-style entries to count and check them. */
static int walk_bpf(struct pk_fcur *c, int prog_info, uint32_t *count)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 8, &nr);

	if (err)
		return err;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t at = pk_fcur_pos(c);
		uint32_t a = 0, b = 0;
		uint64_t skip;

		err = pk_fcur_u32(c, &a);
		if (!err)
			err = pk_fcur_u32(c, &b);
		if (err)
			return err;
		/* BPF_PROG_INFO: info_len, data_len, u64 arrays, info, data; BTF: id, size, data */
		skip = prog_info ? 8 + (uint64_t)a + b : b;
		if (skip > pk_fcur_left(c))
			return PK_CORRUPT(c->d, at, "%s feature: entry %u of %llu bytes runs past "
					  "the section (%zu bytes left)", c->what, i,
					  (unsigned long long)skip, pk_fcur_left(c));
		c->off += skip;
	}
	*count = nr;
	return 0;
}

/* One string into *dst (HOSTNAME, OSRELEASE, ...). */
static int parse_string(struct pk_fcur *c, char **dst)
{
	return pk_fcur_string(c, dst);
}

static int parse_caps(struct pk_fcur *c, struct pk_feat_caps *caps, uint32_t nr)
{
	if (nr) {
		caps->name = calloc(nr, sizeof(*caps->name));
		caps->value = calloc(nr, sizeof(*caps->value));
		if (!caps->name || !caps->value)
			return -ENOMEM;
	}
	caps->nr = nr;
	for (uint32_t i = 0; i < nr; i++) {
		int err = pk_fcur_string(c, &caps->name[i]);

		if (!err)
			err = pk_fcur_string(c, &caps->value[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * PMU_CAPS (perf-data.md §7):
 *   u32 nr_pmu; { u32 nr_caps; { string name; string value; }[nr_caps]; string pmu_name; }[nr_pmu]
 */
static int parse_pmu_caps(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 8, &nr);

	if (err)
		return err;
	if (nr && !(f->pmu_caps = calloc(nr, sizeof(*f->pmu_caps))))
		return -ENOMEM;
	f->nr_pmu_caps = nr;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t ncaps;

		err = pk_fcur_count(c, 8, &ncaps);
		if (!err)
			err = parse_caps(c, &f->pmu_caps[i], ncaps);
		if (!err)
			err = pk_fcur_string(c, &f->pmu_caps[i].pmu_name);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Fixed-size features (perf-data.md §7), all in the writer's byte order:
 *   NRCPUS      u32 nr_cpus_avail; u32 nr_cpus_online
 *   TOTAL_MEM   u64 kB
 *   SAMPLE_TIME u64 first; u64 last
 *   CLOCKID     u64 resolution ns
 *   DIR_FORMAT  u64 version
 *   COMPRESSED  u32 version, type, level, ratio, mmap_len
 *   CLOCK_DATA  u32 version; u32 clockid; u64 wall_clock_ns; u64 clockid_time_ns
 *   E_MACHINE   u32 e_machine; u32 e_flags
 *   CLN_SIZE    u32 or u64 cache-line size (newer than perf 6.16, kept raw as well)
 */
static int parse_fixed(struct pk_features *f, unsigned feat, struct pk_fcur *c)
{
	int err = 0;

	switch (feat) {
	case PK_FEAT_NRCPUS:
		err = pk_fcur_u32(c, &f->nr_cpus_avail);
		if (!err)
			err = pk_fcur_u32(c, &f->nr_cpus_online);
		break;
	case PK_FEAT_TOTAL_MEM:
		err = pk_fcur_u64(c, &f->total_mem);
		break;
	case PK_FEAT_SAMPLE_TIME:
		err = pk_fcur_u64(c, &f->first_sample_time);
		if (!err)
			err = pk_fcur_u64(c, &f->last_sample_time);
		break;
	case PK_FEAT_CLOCKID:
		err = pk_fcur_u64(c, &f->clockid_res_ns);
		break;
	case PK_FEAT_DIR_FORMAT:
		err = pk_fcur_u64(c, &f->dir_format_version);
		break;
	case PK_FEAT_COMPRESSED:
		err = pk_fcur_u32(c, &f->comp_version);
		if (!err)
			err = pk_fcur_u32(c, &f->comp_type);
		if (!err)
			err = pk_fcur_u32(c, &f->comp_level);
		if (!err)
			err = pk_fcur_u32(c, &f->comp_ratio);
		if (!err)
			err = pk_fcur_u32(c, &f->comp_mmap_len);
		break;
	case PK_FEAT_CLOCK_DATA:
		err = pk_fcur_u32(c, &f->clock_data_version);
		if (!err)
			err = pk_fcur_u32(c, &f->clock_data_clockid);
		if (!err)
			err = pk_fcur_u64(c, &f->clock_wall_ns);
		if (!err)
			err = pk_fcur_u64(c, &f->clock_clockid_ns);
		break;
	case PK_FEAT_E_MACHINE:
		err = pk_fcur_u32(c, &f->e_machine);
		if (!err)
			err = pk_fcur_u32(c, &f->e_flags);
		break;
	case PK_FEAT_CLN_SIZE:
		if (pk_fcur_left(c) >= 8) {
			err = pk_fcur_u64(c, &f->cln_size);
		} else {
			uint32_t v = 0;

			err = pk_fcur_u32(c, &v);
			f->cln_size = v;
		}
		break;
	}
	return err;
}

static int parse_one(struct pk_features *f, unsigned feat, struct pk_fcur *c)
{
	uint32_t nr;
	int err;

	switch (feat) {
	case PK_FEAT_TRACING_DATA:
		f->tracing_data = c->p;
		f->tracing_data_size = c->len;
		return 0;
	case PK_FEAT_BUILD_ID: return pk_feat_parse_build_id(f, c);
	case PK_FEAT_HOSTNAME: return parse_string(c, &f->hostname);
	case PK_FEAT_OSRELEASE: return parse_string(c, &f->osrelease);
	case PK_FEAT_VERSION: return parse_string(c, &f->version);
	case PK_FEAT_ARCH: return parse_string(c, &f->arch);
	case PK_FEAT_CPUDESC: return parse_string(c, &f->cpudesc);
	case PK_FEAT_CPUID: return parse_string(c, &f->cpuid);
	case PK_FEAT_CMDLINE: return pk_fcur_string_list(c, &f->cmdline);
	case PK_FEAT_EVENT_DESC: return pk_feat_parse_event_desc(f, c);
	case PK_FEAT_CPU_TOPOLOGY: return pk_feat_parse_cpu_topology(f, c);
	case PK_FEAT_NUMA_TOPOLOGY: return pk_feat_parse_numa(f, c);
	case PK_FEAT_BRANCH_STACK:
	case PK_FEAT_STAT:
		return 0;   /* flags without payload */
	case PK_FEAT_PMU_MAPPINGS: return parse_pmu_mappings(f, c);
	case PK_FEAT_GROUP_DESC: return parse_group_desc(f, c);
	case PK_FEAT_AUXTRACE: return parse_auxtrace(f, c);
	case PK_FEAT_CACHE: return pk_feat_parse_cache(f, c);
	case PK_FEAT_MEM_TOPOLOGY: return pk_feat_parse_mem_topology(f, c);
	case PK_FEAT_BPF_PROG_INFO: return walk_bpf(c, 1, &f->nr_bpf_prog_info);
	case PK_FEAT_BPF_BTF: return walk_bpf(c, 0, &f->nr_bpf_btf);
	case PK_FEAT_CPU_PMU_CAPS:
		err = pk_fcur_count(c, 8, &nr);
		return err ? err : parse_caps(c, &f->cpu_pmu_caps, nr);
	case PK_FEAT_HYBRID_TOPOLOGY: return pk_feat_parse_hybrid(f, c);
	case PK_FEAT_PMU_CAPS: return parse_pmu_caps(f, c);
	case PK_FEAT_CPU_DOMAIN_INFO:
		return 0;   /* kept raw only */
	default:
		return parse_fixed(f, feat, c);
	}
}

int pk_features_parse(struct pk_features *f, unsigned feat, const void *buf, size_t len,
		      int swap, uint64_t off, struct pk_diag *d)
{
	struct pk_fcur c;
	int err;

	if (feat == 0 || feat >= PK_FEAT_LAST)
		return -ENOENT;
	/* A feature seen twice (pipe mode) replaces the earlier one. */
	feat_clear(f, feat);
	pk_fcur_init(&c, buf, len, swap, off, pk_feature_name(feat), d);
	err = parse_one(f, feat, &c);
	if (err) {
		/*
		 * The section stays known as raw bytes with the present bit
		 * clear: the file has the feature but it could not be read
		 * (perf still prints "# contains AUX area data" for
		 * simpleperf's AUXTRACE index, which lacks the count).
		 */
		feat_clear(f, feat);
		f->raw[feat] = buf;
		f->raw_size[feat] = len;
		return err;
	}
	f->raw[feat] = buf;
	f->raw_size[feat] = len;
	f->present[feat / 64] |= 1ULL << (feat % 64);
	return 0;
}
