/*
 * The header features perf prints only with -I (--show-info), in perf
 * 6.1's layout (tools/perf/util/header.c): CPU_TOPOLOGY (sibling lists,
 * then a core/die/socket line per CPU), NUMA_TOPOLOGY (each node's memory
 * and CPU list), CACHE (a line per cache), MEM_TOPOLOGY (each node's memory
 * blocks as a size and a bit list) and HYBRID_TOPOLOGY (each PMU's CPUs).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/features_int.h"

static int print_list(const struct pk_feat_string_list *l, const char *label, struct pk_buf *o)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < l->nr; i++)
		err = pk_buf_printf(o, "# %s : %s\n", label, l->s[i]);
	return err;
}

static int print_cpu_topology(const struct pk_features *f, struct pk_buf *o)
{
	const struct pk_feat_cpu_topo *t = &f->cpu_topo;
	int dies = t->die_siblings.nr > 0;
	int err = print_list(&t->core_siblings, "sibling sockets", o);

	if (!err)
		err = print_list(&t->die_siblings, "sibling dies   ", o);
	if (!err)
		err = print_list(&t->thread_siblings, "sibling threads", o);
	if (err)
		return err;
	/* one line per CPU the file counts as available; perf's ids are signed */
	if (!t->nr_cpus || !t->core_id || !t->socket_id || (dies && !t->die_id))
		return pk_buf_printf(o, dies ? "# Core ID, Die ID and Socket ID information is not available\n"
					     : "# Core ID and Socket ID information is not available\n");
	for (uint32_t i = 0; !err && i < f->nr_cpus_avail && i < t->nr_cpus; i++) {
		if (dies)
			err = pk_buf_printf(o, "# CPU %u: Core ID %d, Die ID %d, Socket ID %d\n", i,
					    (int)t->core_id[i], (int)t->die_id[i], (int)t->socket_id[i]);
		else
			err = pk_buf_printf(o, "# CPU %u: Core ID %d, Socket ID %d\n", i,
					    (int)t->core_id[i], (int)t->socket_id[i]);
	}
	return err;
}

/* A CPU list as perf prints its cpu maps: ranges "0-3,8", from the file's text. */
static int print_cpus(const char *list, struct pk_buf *o)
{
	int *cpus = NULL, n = pk_cpulist_parse(list ? list : "", &cpus, NULL), err = 0;

	if (n < 0)                      /* not a list perfkit reads: as written */
		return pk_buf_printf(o, "%s\n", list ? list : "");
	for (int i = 0; !err && i < n;) {
		int j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		err = j > i ? pk_buf_printf(o, "%s%d-%d", i ? "," : "", cpus[i], cpus[j])
			    : pk_buf_printf(o, "%s%d", i ? "," : "", cpus[i]);
		i = j + 1;
	}
	free(cpus);
	return err ? err : pk_buf_printf(o, "\n");
}

static int print_numa(const struct pk_features *f, struct pk_buf *o)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < f->nr_numa_nodes; i++) {
		const struct pk_feat_numa_node *n = &f->numa_nodes[i];

		err = pk_buf_printf(o, "# node%u meminfo  : total = %" PRIu64 " kB, free = %" PRIu64 " kB\n"
				    "# node%u cpu list : ", n->node, n->mem_total, n->mem_free, n->node);
		if (!err)
			err = print_cpus(n->cpus, o);
	}
	return err;
}

static int print_cache(const struct pk_features *f, struct pk_buf *o)
{
	int err = pk_buf_printf(o, "# CPU cache info:\n");

	for (uint32_t i = 0; !err && i < f->nr_caches; i++) {
		const struct pk_feat_cache *c = &f->caches[i];

		err = pk_buf_printf(o, "#  L%d %-15s %8s [%s]\n", (int)c->level, c->type ? c->type : "",
				    c->size ? c->size : "", c->map ? c->map : "");
	}
	return err;
}

static int bit_set(const struct pk_feat_mem_node *n, uint64_t b)
{
	return (n->bitmap[b / 64] >> (b % 64)) & 1;
}

/* perf's unit_number__scnprintf(): divided by 1024 while that leaves more than 1 */
static void unit_number(uint64_t v, char *buf, size_t size)
{
	static const char unit[] = "BKMGTPE";
	int i = 0;

	while (v / 1024 > 1 && i < 6) {
		v /= 1024;
		i++;
	}
	snprintf(buf, size, "%" PRIu64 "%c", v, unit[i]);
}

/* Append to @buf (perf's 100-byte buffer: what does not fit is cut). */
static void append(char *buf, size_t size, const char *fmt, uint64_t a, uint64_t b)
{
	size_t len = strlen(buf);

	if (len + 1 < size)
		snprintf(buf + len, size - len, fmt, a, b);
}

static int print_mem_topology(const struct pk_features *f, struct pk_buf *o)
{
	int err = pk_buf_printf(o, "# memory nodes (nr %d, block size 0x%" PRIx64 "):\n",
				(int)f->nr_mem_nodes, f->mem_block_size);

	for (uint64_t i = 0; !err && i < f->nr_mem_nodes; i++) {
		const struct pk_feat_mem_node *n = &f->mem_nodes[i];
		char map[100] = "", size[50];
		uint64_t weight = 0;

		for (uint64_t b = 0; n->bitmap && b < n->nbits; b++) {
			uint64_t top = b;

			if (!bit_set(n, b))
				continue;
			while (top + 1 < n->nbits && bit_set(n, top + 1))
				top++;
			weight += top - b + 1;
			append(map, sizeof(map), map[0] ? "," : "", 0, 0);
			if (top > b)
				append(map, sizeof(map), "%" PRIu64 "-%" PRIu64, b, top);
			else
				append(map, sizeof(map), "%" PRIu64, b, 0);
			b = top;
		}
		unit_number(f->mem_block_size * weight, size, sizeof(size));
		err = pk_buf_printf(o, "#  %3" PRIu64 " [%s]: %s\n", n->node, size, map);
	}
	return err;
}

static int print_hybrid(const struct pk_features *f, struct pk_buf *o)
{
	int err = pk_buf_printf(o, "# hybrid cpu system:\n");

	for (uint32_t i = 0; !err && i < f->nr_hybrid; i++)
		err = pk_buf_printf(o, "# %s cpu list : %s\n", f->hybrid[i].pmu_name ? f->hybrid[i].pmu_name : "",
				    f->hybrid[i].cpus ? f->hybrid[i].cpus : "");
	return err;
}

int pk_header_print_full_only(const struct pk_features *f, unsigned feat, struct pk_buf *o)
{
	switch (feat) {
	case PK_FEAT_CPU_TOPOLOGY: return print_cpu_topology(f, o);
	case PK_FEAT_NUMA_TOPOLOGY: return print_numa(f, o);
	case PK_FEAT_CACHE: return print_cache(f, o);
	case PK_FEAT_MEM_TOPOLOGY: return print_mem_topology(f, o);
	case PK_FEAT_HYBRID_TOPOLOGY: return print_hybrid(f, o);
	default: return 0;
	}
}
