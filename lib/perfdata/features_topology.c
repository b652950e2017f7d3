/*
 * The header features that describe the recording machine's layout:
 * CPU_TOPOLOGY (with its optional core/socket and die tails), NUMA_TOPOLOGY,
 * CACHE, MEM_TOPOLOGY and HYBRID_TOPOLOGY.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/features_int.h"

static int read_u32_array(struct pk_fcur *c, uint32_t n, uint32_t **out)
{
	*out = NULL;
	if (n > pk_fcur_left(c) / 4)
		return pk_fcur_short(c, (size_t)n * 4);
	if (n && !(*out = malloc((size_t)n * 4)))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		pk_fcur_u32(c, &(*out)[i]);   /* cannot fail: checked above */
	return 0;
}

/*
 * CPU_TOPOLOGY (perf-data.md §7); each tail is present only if bytes remain:
 *
 *   string list   core_siblings
 *   string list   thread_siblings
 *   tail 1:       { u32 core_id; u32 socket_id; }[nr_cpus_avail]   (NRCPUS feature)
 *   tail 2:       string list die_siblings; u32 die_id[nr_cpus_avail]
 *
 * Without NRCPUS (nr_cpus_avail 0) the tails cannot be sized and are ignored.
 */
/*
 * The bytes perf 6.1 counts for a string list: each string as perf writes
 * it (u32 length, text padded to 64), whatever padding the file has.
 */
static uint64_t perf_list_size(const struct pk_feat_string_list *l)
{
	uint64_t size = 4;

	for (uint32_t i = 0; i < l->nr; i++)
		size += 4 + ((strlen(l->s[i]) + 1 + 63) & ~(uint64_t)63);
	return size;
}

int pk_feat_parse_cpu_topology(struct pk_features *f, struct pk_fcur *c)
{
	struct pk_feat_cpu_topo *t = &f->cpu_topo;
	uint32_t n = f->nr_cpus_avail;
	uint64_t perf_size;
	int err;

	err = pk_fcur_string_list(c, &t->core_siblings);
	if (!err)
		err = pk_fcur_string_list(c, &t->thread_siblings);
	if (err || !pk_fcur_left(c) || !n)
		return err;
	/*
	 * perf takes the section to end where its count of the lists' bytes
	 * reaches the section's size: a file whose strings are padded less
	 * than perf pads them (quipper's) has no core and socket ids for perf
	 */
	perf_size = perf_list_size(&t->core_siblings) + perf_list_size(&t->thread_siblings);
	if (c->len <= perf_size)
		return 0;
	if (n > pk_fcur_left(c) / 8)
		return PK_CORRUPT(c->d, pk_fcur_pos(c), "cpu_topology feature: %u core/socket ids do "
				  "not fit in the %zu bytes left", n, pk_fcur_left(c));
	t->core_id = malloc((size_t)n * 4);
	t->socket_id = malloc((size_t)n * 4);
	if (!t->core_id || !t->socket_id)
		return -ENOMEM;
	t->nr_cpus = n;
	for (uint32_t i = 0; i < n; i++) {
		pk_fcur_u32(c, &t->core_id[i]);   /* cannot fail: checked above */
		pk_fcur_u32(c, &t->socket_id[i]);
	}
	if (!pk_fcur_left(c) || c->len <= perf_size + (uint64_t)n * 8)
		return 0;
	err = pk_fcur_string_list(c, &t->die_siblings);
	if (!err)
		err = read_u32_array(c, n, &t->die_id);
	return err;
}

/*
 * NUMA_TOPOLOGY (perf-data.md §7):
 *   u32 nr; { u32 node; u64 mem_total; u64 mem_free; perf_header_string cpus; }[nr]
 */
int pk_feat_parse_numa(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 24, &nr);

	if (err)
		return err;
	if (nr && !(f->numa_nodes = calloc(nr, sizeof(*f->numa_nodes))))
		return -ENOMEM;
	f->nr_numa_nodes = nr;
	for (uint32_t i = 0; i < nr; i++) {
		struct pk_feat_numa_node *n = &f->numa_nodes[i];

		err = pk_fcur_u32(c, &n->node);
		if (!err)
			err = pk_fcur_u64(c, &n->mem_total);
		if (!err)
			err = pk_fcur_u64(c, &n->mem_free);
		if (!err)
			err = pk_fcur_string(c, &n->cpus);
		if (err)
			return err;
	}
	return 0;
}

/*
 * CACHE (perf-data.md §7):
 *   u32 version (1); u32 nr;
 *   { u32 level, line_size, sets, ways; string type, size, map; }[nr]
 */
int pk_feat_parse_cache(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_u32(c, &f->cache_version);

	if (err)
		return err;
	if (f->cache_version != 1)
		return PK_CORRUPT(c->d, c->base, "cache feature: unknown version %u", f->cache_version);
	err = pk_fcur_count(c, 28, &nr);
	if (err)
		return err;
	if (nr && !(f->caches = calloc(nr, sizeof(*f->caches))))
		return -ENOMEM;
	f->nr_caches = nr;
	for (uint32_t i = 0; i < nr; i++) {
		struct pk_feat_cache *k = &f->caches[i];

		err = pk_fcur_u32(c, &k->level);
		if (!err)
			err = pk_fcur_u32(c, &k->line_size);
		if (!err)
			err = pk_fcur_u32(c, &k->sets);
		if (!err)
			err = pk_fcur_u32(c, &k->ways);
		if (!err)
			err = pk_fcur_string(c, &k->type);
		if (!err)
			err = pk_fcur_string(c, &k->size);
		if (!err)
			err = pk_fcur_string(c, &k->map);
		if (err)
			return err;
	}
	return 0;
}

/*
 * MEM_TOPOLOGY (perf-data.md §7):
 *   u64 version (1); u64 block_size; u64 nr;
 *   { u64 node; u64 size; u64 nbits; u64 bitmap[(nbits + 63) / 64]; }[nr]
 */
int pk_feat_parse_mem_topology(struct pk_features *f, struct pk_fcur *c)
{
	uint64_t nr, at;
	int err;

	err = pk_fcur_u64(c, &f->mem_topo_version);
	if (!err)
		err = pk_fcur_u64(c, &f->mem_block_size);
	if (err)
		return err;
	if (f->mem_topo_version != 1)
		return PK_CORRUPT(c->d, c->base, "mem_topology feature: unknown version %llu",
				  (unsigned long long)f->mem_topo_version);
	at = pk_fcur_pos(c);
	err = pk_fcur_u64(c, &nr);
	if (err)
		return err;
	if (nr > pk_fcur_left(c) / 24)
		return PK_CORRUPT(c->d, at, "mem_topology feature: %llu nodes do not fit in the %zu "
				  "bytes left", (unsigned long long)nr, pk_fcur_left(c));
	if (nr && !(f->mem_nodes = calloc(nr, sizeof(*f->mem_nodes))))
		return -ENOMEM;
	f->nr_mem_nodes = nr;
	for (uint64_t i = 0; i < nr; i++) {
		struct pk_feat_mem_node *n = &f->mem_nodes[i];
		uint64_t words;

		err = pk_fcur_u64(c, &n->node);
		if (!err)
			err = pk_fcur_u64(c, &n->size);
		at = pk_fcur_pos(c);
		if (!err)
			err = pk_fcur_u64(c, &n->nbits);
		if (err)
			return err;
		words = n->nbits / 64 + (n->nbits % 64 != 0);
		if (words > pk_fcur_left(c) / 8) {
			uint64_t bad = n->nbits;

			n->nbits = 0;
			return PK_CORRUPT(c->d, at, "mem_topology feature: bitmap of %llu bits does not "
					  "fit in the %zu bytes left", (unsigned long long)bad,
					  pk_fcur_left(c));
		}
		if (words && !(n->bitmap = malloc(words * 8)))
			return -ENOMEM;
		for (uint64_t w = 0; w < words; w++)
			pk_fcur_u64(c, &n->bitmap[w]);   /* cannot fail: checked above */
	}
	return 0;
}

/*
 * HYBRID_TOPOLOGY (perf-data.md §7):
 *   u32 nr; { perf_header_string pmu_name; perf_header_string cpus; }[nr]
 */
int pk_feat_parse_hybrid(struct pk_features *f, struct pk_fcur *c)
{
	uint32_t nr;
	int err = pk_fcur_count(c, 8, &nr);

	if (err)
		return err;
	if (nr && !(f->hybrid = calloc(nr, sizeof(*f->hybrid))))
		return -ENOMEM;
	f->nr_hybrid = nr;
	for (uint32_t i = 0; i < nr; i++) {
		err = pk_fcur_string(c, &f->hybrid[i].pmu_name);
		if (!err)
			err = pk_fcur_string(c, &f->hybrid[i].cpus);
		if (err)
			return err;
	}
	return 0;
}
