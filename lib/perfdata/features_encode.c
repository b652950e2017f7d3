/*
 * Header features encoded as perf writes their sections: the inverse of
 * pk_features_parse() (features.c, features_events.c, features_topology.c)
 * for every feature the writer emits. Output is in native byte order and
 * packed exactly as perf's do_write() sequences lay it out (no padding
 * between fields; u64 members after a u32 may be unaligned).
 *
 * Layouts: ../shared/reference/perf-data.md §6.2 (build-id entries) and §7.
 */
#include <errno.h>
#include <string.h>
#include "perfdata/features_int.h"

#define NAME_ALIGN 64
#define BID_MISC_SIZE 0x8000

static int put(struct pk_buf *o, const void *p, size_t n)
{
	return pk_buf_append(o, p, n);
}

static int put_u32(struct pk_buf *o, uint32_t v)
{
	return put(o, &v, 4);
}

static int put_u64(struct pk_buf *o, uint64_t v)
{
	return put(o, &v, 8);
}

static int put_zero(struct pk_buf *o, size_t n)
{
	static const char zero[NAME_ALIGN];
	int err = 0;

	while (!err && n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);

		err = put(o, zero, k);
		n -= k;
	}
	return err;
}

/*
 * struct perf_header_string (perf-data.md §7):
 *   OFFSET  SIZE  FIELD
 *   0       4     len   (strlen + 1 rounded up to 64, NAME_ALIGN)
 *   4       len   str   (NUL-padded)
 * A NULL string is written as "".
 */
static int put_string(struct pk_buf *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	size_t len = (n + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	int err;

	if (len > UINT32_MAX)
		return -EOVERFLOW;
	err = put_u32(o, (uint32_t)len);
	if (!err && n)
		err = put(o, s, n);
	return err ? err : put_zero(o, len - n);
}

/* String list: { u32 nr; perf_header_string s[nr]; } */
static int put_string_list(struct pk_buf *o, const struct pk_feat_string_list *l)
{
	int err = put_u32(o, l->nr);

	for (uint32_t i = 0; !err && i < l->nr; i++)
		err = put_string(o, l->s ? l->s[i] : NULL);
	return err;
}

/*
 * BUILD_ID: entries back to back, each the HEADER_BUILD_ID layout with
 * header.type 0 (perf-data.md §6.2):
 *   0 u32 type (0); 4 u16 misc (bit 15: byte 32 valid); 6 u16 size
 *   8 s32 pid; 12 u8 build_id[20]; 32 u8 size; 33 u8[3] reserved
 *   36 filename, NUL-padded to a multiple of 64
 */
static int put_build_ids(struct pk_buf *o, const struct pk_features *f)
{
	for (uint32_t i = 0; i < f->nr_build_ids; i++) {
		const struct pk_feat_build_id *b = &f->build_ids[i];
		const char *name = b->filename ? b->filename : "";
		size_t nlen = (strlen(name) + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		uint8_t hdr[36];
		uint16_t misc = b->misc, size;
		uint32_t type = 0;
		int err;

		if (36 + nlen > UINT16_MAX)
			return -EOVERFLOW;
		if (b->size != 20)
			misc |= BID_MISC_SIZE;
		size = (uint16_t)(36 + nlen);
		memset(hdr, 0, sizeof(hdr));
		memcpy(hdr, &type, 4);
		memcpy(hdr + 4, &misc, 2);
		memcpy(hdr + 6, &size, 2);
		memcpy(hdr + 8, &b->pid, 4);
		memcpy(hdr + 12, b->build_id, 20);
		hdr[32] = b->size;
		err = put(o, hdr, sizeof(hdr));
		if (!err)
			err = put(o, name, strlen(name));
		if (!err)
			err = put_zero(o, nlen - strlen(name));
		if (err)
			return err;
	}
	return 0;
}

/*
 * EVENT_DESC (perf-data.md §7):
 *   u32 nr; u32 attr_size;
 *   { attr (attr_size bytes); u32 nr_ids; string name; u64 ids[nr_ids]; }[nr]
 * attr_size is this machine's sizeof(struct perf_event_attr), or 136 when an
 * attr carries VER8's config3.
 */
static int put_event_desc(struct pk_buf *o, const struct pk_features *f)
{
	uint32_t attr_size = sizeof(struct perf_event_attr);
	int err;

	for (uint32_t i = 0; i < f->nr_event_desc; i++)
		if (f->event_desc[i].attr.config3 && attr_size < 136)
			attr_size = 136;
	err = put_u32(o, f->nr_event_desc);
	if (!err)
		err = put_u32(o, attr_size);
	for (uint32_t i = 0; !err && i < f->nr_event_desc; i++) {
		const struct pk_feat_event_desc *e = &f->event_desc[i];
		uint8_t attr[136];

		memset(attr, 0, sizeof(attr));
		memcpy(attr, &e->attr.attr, sizeof(e->attr.attr));
		if (attr_size >= 136)
			memcpy(attr + 128, &e->attr.config3, 8);
		err = put(o, attr, attr_size);
		if (!err)
			err = put_u32(o, e->nr_ids);
		if (!err)
			err = put_string(o, e->name);
		for (uint32_t j = 0; !err && j < e->nr_ids; j++)
			err = put_u64(o, e->ids[j]);
	}
	return err;
}

/*
 * CPU_TOPOLOGY (perf-data.md §7):
 *   string list core_siblings; string list thread_siblings;
 *   { u32 core_id, socket_id; }[nr_cpus_avail];
 *   string list die_siblings; u32 die_id[nr_cpus_avail]
 * The per-CPU tails are written only when they cover NRCPUS' nr_cpus_avail
 * CPUs (the reader sizes them by it); the die tail only with die ids.
 */
static int put_cpu_topology(struct pk_buf *o, const struct pk_features *f)
{
	const struct pk_feat_cpu_topo *t = &f->cpu_topo;
	int err = put_string_list(o, &t->core_siblings);

	if (!err)
		err = put_string_list(o, &t->thread_siblings);
	if (err || !t->nr_cpus || t->nr_cpus != f->nr_cpus_avail || !t->core_id || !t->socket_id)
		return err;
	for (uint32_t i = 0; !err && i < t->nr_cpus; i++) {
		err = put_u32(o, t->core_id[i]);
		if (!err)
			err = put_u32(o, t->socket_id[i]);
	}
	if (err || !t->die_id)
		return err;
	err = put_string_list(o, &t->die_siblings);
	for (uint32_t i = 0; !err && i < t->nr_cpus; i++)
		err = put_u32(o, t->die_id[i]);
	return err;
}

/* NUMA_TOPOLOGY: u32 nr; { u32 node; u64 mem_total; u64 mem_free; string cpus; }[nr] */
static int put_numa(struct pk_buf *o, const struct pk_features *f)
{
	int err = put_u32(o, f->nr_numa_nodes);

	for (uint32_t i = 0; !err && i < f->nr_numa_nodes; i++) {
		const struct pk_feat_numa_node *n = &f->numa_nodes[i];

		err = put_u32(o, n->node);
		if (!err)
			err = put_u64(o, n->mem_total);
		if (!err)
			err = put_u64(o, n->mem_free);
		if (!err)
			err = put_string(o, n->cpus);
	}
	return err;
}

/* PMU_MAPPINGS: u32 nr; { u32 type; string name; }[nr] */
static int put_pmu_mappings(struct pk_buf *o, const struct pk_features *f)
{
	int err = put_u32(o, f->nr_pmu_mappings);

	for (uint32_t i = 0; !err && i < f->nr_pmu_mappings; i++) {
		err = put_u32(o, f->pmu_mappings[i].type);
		if (!err)
			err = put_string(o, f->pmu_mappings[i].name);
	}
	return err;
}

/* GROUP_DESC: u32 nr; { string name; u32 leader_idx; u32 nr_members; }[nr] */
static int put_group_desc(struct pk_buf *o, const struct pk_features *f)
{
	int err = put_u32(o, f->nr_groups);

	for (uint32_t i = 0; !err && i < f->nr_groups; i++) {
		const struct pk_feat_group_desc *g = &f->groups[i];

		err = put_string(o, g->name ? g->name : "{anon_group}");
		if (!err)
			err = put_u32(o, g->leader_idx);
		if (!err)
			err = put_u32(o, g->nr_members);
	}
	return err;
}

/*
 * Fixed-size features (perf-data.md §7):
 *   NRCPUS      u32 nr_cpus_avail; u32 nr_cpus_online
 *   TOTAL_MEM   u64 kB
 *   SAMPLE_TIME u64 first; u64 last
 *   CLOCKID     u64 resolution ns
 *   COMPRESSED  u32 version, type, level, ratio, mmap_len
 *   CLOCK_DATA  u32 version; u32 clockid; u64 wall_clock_ns; u64 clockid_time_ns
 */
static int put_fixed(struct pk_buf *o, const struct pk_features *f, unsigned feat)
{
	int err;

	switch (feat) {
	case PK_FEAT_NRCPUS:
		err = put_u32(o, f->nr_cpus_avail);
		return err ? err : put_u32(o, f->nr_cpus_online);
	case PK_FEAT_TOTAL_MEM:
		return put_u64(o, f->total_mem);
	case PK_FEAT_SAMPLE_TIME:
		err = put_u64(o, f->first_sample_time);
		return err ? err : put_u64(o, f->last_sample_time);
	case PK_FEAT_CLOCKID:
		return put_u64(o, f->clockid_res_ns);
	case PK_FEAT_COMPRESSED: {
		uint32_t v[5] = { f->comp_version, f->comp_type, f->comp_level, f->comp_ratio,
				  f->comp_mmap_len };

		return put(o, v, sizeof(v));
	}
	case PK_FEAT_CLOCK_DATA:
		err = put_u32(o, f->clock_data_version);
		if (!err)
			err = put_u32(o, f->clock_data_clockid);
		if (!err)
			err = put_u64(o, f->clock_wall_ns);
		return err ? err : put_u64(o, f->clock_clockid_ns);
	default:
		return -ENOENT;
	}
}

int pk_features_encode(const struct pk_features *f, unsigned feat, struct pk_buf *out)
{
	size_t start;
	int err;

	if (!f || !out)
		return -EINVAL;
	start = out->len;
	switch (feat) {
	case PK_FEAT_TRACING_DATA:
		err = f->tracing_data_size ? put(out, f->tracing_data, f->tracing_data_size) : 0;
		break;
	case PK_FEAT_BUILD_ID: err = put_build_ids(out, f); break;
	case PK_FEAT_HOSTNAME: err = put_string(out, f->hostname); break;
	case PK_FEAT_OSRELEASE: err = put_string(out, f->osrelease); break;
	case PK_FEAT_VERSION: err = put_string(out, f->version); break;
	case PK_FEAT_ARCH: err = put_string(out, f->arch); break;
	case PK_FEAT_CPUDESC: err = put_string(out, f->cpudesc); break;
	case PK_FEAT_CPUID: err = put_string(out, f->cpuid); break;
	case PK_FEAT_CMDLINE: err = put_string_list(out, &f->cmdline); break;
	case PK_FEAT_EVENT_DESC: err = put_event_desc(out, f); break;
	case PK_FEAT_CPU_TOPOLOGY: err = put_cpu_topology(out, f); break;
	case PK_FEAT_NUMA_TOPOLOGY: err = put_numa(out, f); break;
	case PK_FEAT_PMU_MAPPINGS: err = put_pmu_mappings(out, f); break;
	case PK_FEAT_GROUP_DESC: err = put_group_desc(out, f); break;
	default: err = put_fixed(out, f, feat); break;
	}
	if (err) {
		out->len = start;   /* leave @out as it was */
		if (out->data && out->cap > start)
			out->data[start] = '\0';
	}
	return err;
}
