/*
 * Unit tests for the perf.data header features (lib/perfdata/features*.c)
 * and perf's --header-only printer (header_print.c, attr_print.c).
 *
 * 1. Every parser on hand-built sections, in both byte orders, with values
 *    checked field by field; every truncation of each section must fail
 *    with -EBADMSG and an offset inside the section (or parse, for the
 *    lengths where the layout legitimately ends), never crash.
 * 2. The oracle: for every file in $PK_SHARED/data/perf.data/<dir>/, the output
 *    of pk_perfdata_header_print() is compared line by line with Linux perf
 *    6.1's `perf report --header-only -i FILE`, and with -I (the topology
 *    features in full) (skipped without perf).
 */
#include <byteswap.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include "perfdata/features_int.h"
#include "../shared_data.h"
#include "../tap.h"

#define OFF 4096   /* file offset the sections pretend to live at */

/* ---- building sections ---------------------------------------------------------- */

struct bb {
	uint8_t b[16384];
	size_t n;
	int swap;   /* write in the other byte order */
};

static void put(struct bb *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put16(struct bb *b, uint16_t v)
{
	if (b->swap)
		v = bswap_16(v);
	put(b, &v, 2);
}

static void put32(struct bb *b, uint32_t v)
{
	if (b->swap)
		v = bswap_32(v);
	put(b, &v, 4);
}

static void put64(struct bb *b, uint64_t v)
{
	if (b->swap)
		v = bswap_64(v);
	put(b, &v, 8);
}

/* perf_header_string: len rounded up to 64 including the NUL. */
static void putstr(struct bb *b, const char *s)
{
	size_t l = strlen(s) + 1, padded = (l + 63) / 64 * 64;

	put32(b, (uint32_t)padded);
	memset(b->b + b->n, 0, padded);
	memcpy(b->b + b->n, s, l - 1);
	b->n += padded;
}

/* Parse @len bytes from an exact-size heap copy so ASan sees any overread. */
static int parse(struct pk_features *f, unsigned feat, const void *buf, size_t len, int swap,
		 struct pk_diag *d)
{
	void *copy = malloc(len ? len : 1);
	int err;

	memcpy(copy, buf, len);
	pk_diag_init(d);
	err = pk_features_parse(f, feat, copy, len, swap, OFF, d);
	/* raw pointers point into copy: drop them before freeing it */
	f->tracing_data = NULL;
	if (feat < PK_FEAT_LAST)
		f->raw[feat] = NULL;
	free(copy);
	return err;
}

/*
 * Every prefix of the section: parse must give 0 only at the lengths in
 * @ok_lens (terminated by -1; the full length is implied), otherwise -EBADMSG
 * with an offset inside [OFF, OFF + n].
 */
static void truncations(const char *what, unsigned feat, const struct bb *b, const long *ok_lens,
			uint32_t nr_cpus_avail)
{
	int bad = 0;
	char why[1024] = "";

	for (size_t n = 0; n < b->n; n++) {
		struct pk_features f = { 0 };
		struct pk_diag d;
		int allowed = 0, err;

		for (const long *l = ok_lens; l && *l >= 0; l++)
			allowed |= (size_t)*l == n;
		f.nr_cpus_avail = nr_cpus_avail;
		err = parse(&f, feat, b->b, n, b->swap, &d);
		if (allowed ? err != 0 : err != -EBADMSG) {
			if (!bad++)
				snprintf(why, sizeof(why), "len %zu: err %d (%s)", n, err, d.msg);
		} else if (err && (d.offset < OFF || d.offset > OFF + n)) {
			if (!bad++)
				snprintf(why, sizeof(why), "len %zu: offset %llu outside", n,
					 (unsigned long long)d.offset);
		}
		pk_features_release(&f);
	}
	ok(!bad, "%s: every truncation of %zu bytes handled (%d bad)", what, b->n, bad);
	if (bad)
		diag("first: %s", why);
}

/* ---- hand-built sections ------------------------------------------------------------- */

static void test_names(void)
{
	is_str(pk_feature_name(PK_FEAT_TRACING_DATA), "tracing_data", "name of feature 1");
	is_str(pk_feature_name(PK_FEAT_CPU_TOPOLOGY), "cpu_topology", "name of feature 13");
	is_str(pk_feature_name(PK_FEAT_PMU_CAPS), "pmu_caps", "name of feature 31");
	is_str(pk_feature_name(PK_FEAT_CLN_SIZE), "cln_size", "name of feature 34");
	ok(pk_feature_name(0) == NULL && pk_feature_name(PK_FEAT_LAST) == NULL &&
	   pk_feature_name(128) == NULL, "no name for 0, 35 and simpleperf's 128");
	is_str(pk_feature_name_upper(PK_FEAT_BPF_PROG_INFO), "BPF_PROG_INFO", "upper-case name");
}

static void test_strings(int swap)
{
	/* hand-written bytes: len 8 (little-endian) "host" + NUL padding */
	static const uint8_t host_le[] = { 8, 0, 0, 0, 'h', 'o', 's', 't', 0, 0, 0, 0 };
	static const uint8_t nonul_le[] = { 4, 0, 0, 0, 'a', 'b', 'c', 'd' };
	static const uint8_t zero_le[] = { 0, 0, 0, 0 };
	int host_be = (*(const uint16_t *)"\1\0") != 1;
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };

	is_int(parse(&f, PK_FEAT_HOSTNAME, host_le, sizeof(host_le), host_be, &d), 0,
	       "hostname from literal bytes");
	is_str(f.hostname, "host", "hostname text stops at the NUL");
	ok(pk_features_has(&f, PK_FEAT_HOSTNAME) && !pk_features_has(&f, PK_FEAT_ARCH),
	   "present bit set for hostname only");
	is_int(parse(&f, PK_FEAT_ARCH, nonul_le, sizeof(nonul_le), host_be, &d), -EBADMSG,
	       "string without NUL inside len is corrupt");
	is_int(d.offset, OFF, "offset of the bad string");
	ok(!pk_features_has(&f, PK_FEAT_ARCH) && f.arch == NULL, "failed feature stays absent");
	is_int(parse(&f, PK_FEAT_ARCH, zero_le, sizeof(zero_le), host_be, &d), -EBADMSG,
	       "string of length 0 is corrupt");
	pk_features_release(&f);

	putstr(&b, "6.1.187");
	is_int(parse(&f, PK_FEAT_VERSION, b.b, b.n, swap, &d), 0, "version string (swap %d)", swap);
	is_str(f.version, "6.1.187", "version text");
	is_int(b.n, 68, "a short string takes 4 + 64 bytes");
	truncations("version", PK_FEAT_VERSION, &b, NULL, 0);
	/* the same feature again replaces the first (pipe mode may repeat one) */
	b.n = 0;
	putstr(&b, "6.5");
	is_int(parse(&f, PK_FEAT_VERSION, b.b, b.n, swap, &d), 0, "second version record");
	is_str(f.version, "6.5", "second one replaces the first");
	pk_features_release(&f);

	b.n = 0;
	put32(&b, 3);
	putstr(&b, "/usr/bin/perf");
	putstr(&b, "record");
	putstr(&b, "-e 'cycles'");
	is_int(parse(&f, PK_FEAT_CMDLINE, b.b, b.n, swap, &d), 0, "cmdline list");
	ok(f.cmdline.nr == 3 && !strcmp(f.cmdline.s[0], "/usr/bin/perf") &&
	   !strcmp(f.cmdline.s[2], "-e 'cycles'"), "cmdline words");
	truncations("cmdline", PK_FEAT_CMDLINE, &b, NULL, 0);
	pk_features_release(&f);

	/* a count far beyond the bytes: rejected before allocating */
	b.n = 0;
	put32(&b, 0xffffffff);
	putstr(&b, "x");
	is_int(parse(&f, PK_FEAT_CMDLINE, b.b, b.n, swap, &d), -EBADMSG, "huge string count");
	is_int(d.offset, OFF, "offset of the count");
	pk_features_release(&f);
}

static void test_fixed(int swap)
{
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };

	/* NRCPUS stores avail first (perf-data.md §7: generated_by_linux_perf.data has {40, 39}) */
	put32(&b, 40);
	put32(&b, 39);
	is_int(parse(&f, PK_FEAT_NRCPUS, b.b, b.n, swap, &d), 0, "nrcpus");
	ok(f.nr_cpus_avail == 40 && f.nr_cpus_online == 39, "nrcpus avail 40, online 39");
	truncations("nrcpus", PK_FEAT_NRCPUS, &b, NULL, 0);

	b.n = 0;
	put64(&b, 24684084);
	is_int(parse(&f, PK_FEAT_TOTAL_MEM, b.b, b.n, swap, &d), 0, "total_mem");
	is_int(f.total_mem, 24684084, "total_mem in kB as stored");
	truncations("total_mem", PK_FEAT_TOTAL_MEM, &b, NULL, 0);

	b.n = 0;
	put64(&b, 101132490000ULL);
	put64(&b, 101132592000ULL);
	is_int(parse(&f, PK_FEAT_SAMPLE_TIME, b.b, b.n, swap, &d), 0, "sample_time");
	ok(f.first_sample_time == 101132490000ULL && f.last_sample_time == 101132592000ULL,
	   "first and last sample time");
	truncations("sample_time", PK_FEAT_SAMPLE_TIME, &b, NULL, 0);

	b.n = 0;
	put64(&b, 1);
	is_int(parse(&f, PK_FEAT_CLOCKID, b.b, b.n, swap, &d), 0, "clockid");
	is_int(f.clockid_res_ns, 1, "clockid resolution");
	is_int(parse(&f, PK_FEAT_DIR_FORMAT, b.b, b.n, swap, &d), 0, "dir_format");
	is_int(f.dir_format_version, 1, "dir_format version");

	b.n = 0;
	put32(&b, 0);
	put32(&b, 1);
	put32(&b, 1);
	put32(&b, 4);
	put32(&b, 528384);
	is_int(parse(&f, PK_FEAT_COMPRESSED, b.b, b.n, swap, &d), 0, "compressed");
	ok(f.comp_version == 0 && f.comp_type == 1 && f.comp_level == 1 && f.comp_ratio == 4 &&
	   f.comp_mmap_len == 528384, "compressed {0, 1, 1, 4, 528384}");
	truncations("compressed", PK_FEAT_COMPRESSED, &b, NULL, 0);

	b.n = 0;
	put32(&b, 1);
	put32(&b, 1);
	put64(&b, 1762878703344339000ULL);
	put64(&b, 1642884550397ULL);
	is_int(parse(&f, PK_FEAT_CLOCK_DATA, b.b, b.n, swap, &d), 0, "clock_data");
	ok(f.clock_data_version == 1 && f.clock_data_clockid == 1 &&
	   f.clock_wall_ns == 1762878703344339000ULL && f.clock_clockid_ns == 1642884550397ULL,
	   "clock_data fields");
	truncations("clock_data", PK_FEAT_CLOCK_DATA, &b, NULL, 0);

	b.n = 0;
	put32(&b, 62);
	put32(&b, 0x5);
	is_int(parse(&f, PK_FEAT_E_MACHINE, b.b, b.n, swap, &d), 0, "e_machine");
	ok(f.e_machine == 62 && f.e_flags == 5, "e_machine 62, e_flags 5");

	b.n = 0;
	put32(&b, 64);
	is_int(parse(&f, PK_FEAT_CLN_SIZE, b.b, b.n, swap, &d), 0, "cln_size as u32");
	is_int(f.cln_size, 64, "cln_size 64");
	b.n = 0;
	put64(&b, 128);
	is_int(parse(&f, PK_FEAT_CLN_SIZE, b.b, b.n, swap, &d), 0, "cln_size as u64");
	is_int(f.cln_size, 128, "cln_size 128");

	is_int(parse(&f, PK_FEAT_BRANCH_STACK, "", 0, swap, &d), 0, "branch_stack has no payload");
	is_int(parse(&f, PK_FEAT_STAT, "", 0, swap, &d), 0, "stat has no payload");
	ok(pk_features_has(&f, PK_FEAT_BRANCH_STACK) && pk_features_has(&f, PK_FEAT_STAT),
	   "flag features present");
	is_int(parse(&f, 128, "abcd", 4, swap, &d), -ENOENT, "simpleperf feature 128 is unknown");
	is_int(parse(&f, 0, "abcd", 4, swap, &d), -ENOENT, "feature 0 is not a feature");
	pk_features_release(&f);

	/* kept raw: the pointer and size are those given */
	{
		static const uint8_t blob[] = "\x17\x08\x44tracing0.6";
		struct pk_features g = { 0 };

		pk_diag_init(&d);
		is_int(pk_features_parse(&g, PK_FEAT_TRACING_DATA, blob, sizeof(blob), swap, OFF, &d),
		       0, "tracing_data");
		ok(g.tracing_data == blob && g.tracing_data_size == sizeof(blob),
		   "tracing_data points at the section");
		is_int(pk_features_parse(&g, PK_FEAT_CPU_DOMAIN_INFO, blob, 5, swap, OFF, &d), 0,
		       "cpu_domain_info kept raw");
		ok(g.raw[PK_FEAT_CPU_DOMAIN_INFO] == blob && g.raw_size[PK_FEAT_CPU_DOMAIN_INFO] == 5,
		   "raw pointer and size");
		pk_features_release(&g);
		ok(g.tracing_data == NULL && g.present[0] == 0, "release clears everything");
	}
}

static void test_lists(int swap)
{
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };

	/* PMU_MAPPINGS */
	put32(&b, 2);
	put32(&b, 1);
	putstr(&b, "software");
	put32(&b, 4294901760u);
	putstr(&b, "hwmon_acpitz");
	is_int(parse(&f, PK_FEAT_PMU_MAPPINGS, b.b, b.n, swap, &d), 0, "pmu_mappings");
	ok(f.nr_pmu_mappings == 2 && f.pmu_mappings[0].type == 1 &&
	   !strcmp(f.pmu_mappings[0].name, "software") && f.pmu_mappings[1].type == 4294901760u &&
	   !strcmp(f.pmu_mappings[1].name, "hwmon_acpitz"), "pmu_mappings entries");
	truncations("pmu_mappings", PK_FEAT_PMU_MAPPINGS, &b, NULL, 0);

	/* GROUP_DESC */
	b.n = 0;
	put32(&b, 1);
	putstr(&b, "{anon_group}");
	put32(&b, 0);
	put32(&b, 2);
	is_int(parse(&f, PK_FEAT_GROUP_DESC, b.b, b.n, swap, &d), 0, "group_desc");
	ok(f.nr_groups == 1 && !strcmp(f.groups[0].name, "{anon_group}") &&
	   f.groups[0].leader_idx == 0 && f.groups[0].nr_members == 2, "group_desc entry");
	truncations("group_desc", PK_FEAT_GROUP_DESC, &b, NULL, 0);

	/* CPU_PMU_CAPS */
	b.n = 0;
	put32(&b, 2);
	putstr(&b, "branches");
	putstr(&b, "32");
	putstr(&b, "max_precise");
	putstr(&b, "3");
	is_int(parse(&f, PK_FEAT_CPU_PMU_CAPS, b.b, b.n, swap, &d), 0, "cpu_pmu_caps");
	ok(f.cpu_pmu_caps.nr == 2 && !strcmp(f.cpu_pmu_caps.name[1], "max_precise") &&
	   !strcmp(f.cpu_pmu_caps.value[1], "3") && f.cpu_pmu_caps.pmu_name == NULL,
	   "cpu_pmu_caps entries");
	truncations("cpu_pmu_caps", PK_FEAT_CPU_PMU_CAPS, &b, NULL, 0);

	/* PMU_CAPS: two PMUs */
	b.n = 0;
	put32(&b, 2);
	put32(&b, 1);
	putstr(&b, "branches");
	putstr(&b, "32");
	putstr(&b, "cpu_core");
	put32(&b, 0);
	putstr(&b, "cpu_atom");
	is_int(parse(&f, PK_FEAT_PMU_CAPS, b.b, b.n, swap, &d), 0, "pmu_caps");
	ok(f.nr_pmu_caps == 2 && f.pmu_caps[0].nr == 1 && !strcmp(f.pmu_caps[0].pmu_name, "cpu_core") &&
	   !strcmp(f.pmu_caps[0].value[0], "32") && f.pmu_caps[1].nr == 0 &&
	   !strcmp(f.pmu_caps[1].pmu_name, "cpu_atom"), "pmu_caps entries");
	truncations("pmu_caps", PK_FEAT_PMU_CAPS, &b, NULL, 0);

	/* HYBRID_TOPOLOGY */
	b.n = 0;
	put32(&b, 2);
	putstr(&b, "cpu_core");
	putstr(&b, "0-3");
	putstr(&b, "cpu_atom");
	putstr(&b, "4-11");
	is_int(parse(&f, PK_FEAT_HYBRID_TOPOLOGY, b.b, b.n, swap, &d), 0, "hybrid_topology");
	ok(f.nr_hybrid == 2 && !strcmp(f.hybrid[1].pmu_name, "cpu_atom") &&
	   !strcmp(f.hybrid[1].cpus, "4-11"), "hybrid entries");
	truncations("hybrid_topology", PK_FEAT_HYBRID_TOPOLOGY, &b, NULL, 0);

	/* NUMA_TOPOLOGY */
	b.n = 0;
	put32(&b, 1);
	put32(&b, 0);
	put64(&b, 24684084);
	put64(&b, 1234567);
	putstr(&b, "0-3");
	is_int(parse(&f, PK_FEAT_NUMA_TOPOLOGY, b.b, b.n, swap, &d), 0, "numa_topology");
	ok(f.nr_numa_nodes == 1 && f.numa_nodes[0].mem_total == 24684084 &&
	   f.numa_nodes[0].mem_free == 1234567 && !strcmp(f.numa_nodes[0].cpus, "0-3"),
	   "numa node 0");
	truncations("numa_topology", PK_FEAT_NUMA_TOPOLOGY, &b, NULL, 0);

	/* CACHE */
	b.n = 0;
	put32(&b, 1);
	put32(&b, 1);
	put32(&b, 1);
	put32(&b, 64);
	put32(&b, 64);
	put32(&b, 8);
	putstr(&b, "Data");
	putstr(&b, "32K");
	putstr(&b, "0-1");
	is_int(parse(&f, PK_FEAT_CACHE, b.b, b.n, swap, &d), 0, "cache");
	ok(f.cache_version == 1 && f.nr_caches == 1 && f.caches[0].level == 1 &&
	   f.caches[0].line_size == 64 && f.caches[0].sets == 64 && f.caches[0].ways == 8 &&
	   !strcmp(f.caches[0].type, "Data") && !strcmp(f.caches[0].size, "32K") &&
	   !strcmp(f.caches[0].map, "0-1"), "cache entry");
	truncations("cache", PK_FEAT_CACHE, &b, NULL, 0);
	b.b[swap ? 3 : 0] = 2;
	is_int(parse(&f, PK_FEAT_CACHE, b.b, b.n, swap, &d), -EBADMSG, "cache version 2 rejected");

	/* MEM_TOPOLOGY: one node, 70 bits = 2 words */
	b.n = 0;
	put64(&b, 1);
	put64(&b, 0x8000000);
	put64(&b, 1);
	put64(&b, 0);
	put64(&b, 70);
	put64(&b, 70);
	put64(&b, ~0ULL);
	put64(&b, 0x3f);
	is_int(parse(&f, PK_FEAT_MEM_TOPOLOGY, b.b, b.n, swap, &d), 0, "mem_topology");
	ok(f.mem_block_size == 0x8000000 && f.nr_mem_nodes == 1 && f.mem_nodes[0].nbits == 70 &&
	   f.mem_nodes[0].bitmap[0] == ~0ULL && f.mem_nodes[0].bitmap[1] == 0x3f,
	   "mem_topology node bitmap");
	truncations("mem_topology", PK_FEAT_MEM_TOPOLOGY, &b, NULL, 0);

	/* AUXTRACE index: 2 entries */
	b.n = 0;
	put64(&b, 2);
	put64(&b, 4096);
	put64(&b, 12288);
	put64(&b, 20480);
	put64(&b, 512);
	is_int(parse(&f, PK_FEAT_AUXTRACE, b.b, b.n, swap, &d), 0, "auxtrace index");
	ok(f.nr_auxtrace == 2 && f.auxtrace[1].file_offset == 20480 && f.auxtrace[1].size == 512,
	   "auxtrace entries");
	truncations("auxtrace", PK_FEAT_AUXTRACE, &b, (const long[]){ 0, -1 }, 0);
	pk_features_release(&f);

	/* simpleperf writes the index entries without the count (etm_perf_etm.data) */
	b.n = 0;
	put64(&b, 9896);
	put64(&b, 48);
	pk_diag_init(&d);
	is_int(pk_features_parse(&f, PK_FEAT_AUXTRACE, b.b, b.n, swap, OFF, &d), -EBADMSG,
	       "auxtrace index without its count is corrupt");
	ok(!pk_features_has(&f, PK_FEAT_AUXTRACE) && f.raw[PK_FEAT_AUXTRACE] == b.b &&
	   f.raw_size[PK_FEAT_AUXTRACE] == 16, "a feature that fails is kept raw, not present");
	pk_features_release(&f);
}

static void test_topology(int swap)
{
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };
	long lists_end, ids_end;

	put32(&b, 1);
	putstr(&b, "0-1");
	put32(&b, 2);
	putstr(&b, "0");
	putstr(&b, "1");
	lists_end = (long)b.n;
	put32(&b, 0);   /* cpu 0 core, socket */
	put32(&b, 0);
	put32(&b, 1);   /* cpu 1 */
	put32(&b, 0);
	ids_end = (long)b.n;
	put32(&b, 1);
	putstr(&b, "0-1");
	put32(&b, 0);
	put32(&b, 0);

	/* without NRCPUS the tails cannot be sized: only the lists are read */
	is_int(parse(&f, PK_FEAT_CPU_TOPOLOGY, b.b, b.n, swap, &d), 0, "cpu_topology without nrcpus");
	ok(f.cpu_topo.core_siblings.nr == 1 && f.cpu_topo.thread_siblings.nr == 2 &&
	   f.cpu_topo.nr_cpus == 0 && f.cpu_topo.core_id == NULL, "lists only");
	pk_features_release(&f);

	f.nr_cpus_avail = 2;
	is_int(parse(&f, PK_FEAT_CPU_TOPOLOGY, b.b, b.n, swap, &d), 0, "cpu_topology with tails");
	ok(f.cpu_topo.nr_cpus == 2 && f.cpu_topo.core_id[1] == 1 && f.cpu_topo.socket_id[1] == 0 &&
	   !strcmp(f.cpu_topo.thread_siblings.s[1], "1") && f.cpu_topo.die_siblings.nr == 1 &&
	   !strcmp(f.cpu_topo.die_siblings.s[0], "0-1") && f.cpu_topo.die_id &&
	   f.cpu_topo.die_id[1] == 0, "core, socket and die ids");
	pk_features_release(&f);
	f.nr_cpus_avail = 2;
	is_int(parse(&f, PK_FEAT_CPU_TOPOLOGY, b.b, (size_t)ids_end, swap, &d), 0,
	       "cpu_topology without die tail");
	ok(f.cpu_topo.nr_cpus == 2 && f.cpu_topo.die_id == NULL && f.cpu_topo.die_siblings.nr == 0,
	   "die tail absent");
	pk_features_release(&f);
	truncations("cpu_topology", PK_FEAT_CPU_TOPOLOGY, &b,
		    (const long[]){ lists_end, ids_end, -1 }, 2);
}

static void put_bid(struct bb *b, uint16_t misc, int32_t pid, uint8_t fill, uint8_t size,
		    const char *name, uint16_t total)
{
	size_t start = b->n;

	put32(b, 0);
	put16(b, misc);
	put16(b, total);
	put32(b, (uint32_t)pid);
	memset(b->b + b->n, fill, 20);
	b->n += 20;
	b->b[b->n++] = size;
	memset(b->b + b->n, 0, 3);
	b->n += 3;
	memset(b->b + b->n, 0, total - 36);
	memcpy(b->b + b->n, name, strlen(name));
	b->n = start + total;
}

static void test_build_id(int swap)
{
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };
	long first_end;

	put_bid(&b, 0x8001, -1, 0xab, 20, "[kernel.kallsyms]", 100);
	first_end = (long)b.n;
	put_bid(&b, 0x0002, 1234, 0xcd, 0, "/usr/lib/libc.so.6", 64);
	is_int(parse(&f, PK_FEAT_BUILD_ID, b.b, b.n, swap, &d), 0, "build_id");
	ok(f.nr_build_ids == 2 && f.build_ids[0].pid == -1 && f.build_ids[0].misc == 0x8001 &&
	   f.build_ids[0].size == 20 && f.build_ids[0].build_id[19] == 0xab &&
	   !strcmp(f.build_ids[0].filename, "[kernel.kallsyms]"), "kernel build-id entry");
	ok(f.build_ids[1].pid == 1234 && f.build_ids[1].size == 20 &&
	   f.build_ids[1].build_id[0] == 0xcd && !strcmp(f.build_ids[1].filename, "/usr/lib/libc.so.6"),
	   "user build-id entry (no size bit: 20 bytes)");
	truncations("build_id", PK_FEAT_BUILD_ID, &b, (const long[]){ 0, first_end, -1 }, 0);
	pk_features_release(&f);

	b.n = 0;
	put_bid(&b, 0x8001, -1, 0xab, 21, "k", 40);
	is_int(parse(&f, PK_FEAT_BUILD_ID, b.b, b.n, swap, &d), -EBADMSG, "build-id size 21 rejected");
	b.n = 0;
	put_bid(&b, 0, -1, 0xab, 0, "k", 40);
	b.b[swap ? 7 : 6] = 8;   /* header.size 8 < 36: would loop forever if trusted */
	b.b[swap ? 6 : 7] = 0;
	is_int(parse(&f, PK_FEAT_BUILD_ID, b.b, b.n, swap, &d), -EBADMSG, "build-id size below 36");
	is_int(d.offset, OFF, "offset of the bad build-id entry");
	b.n = 0;
	put_bid(&b, 0, -1, 0xab, 0, "", 36);
	is_int(parse(&f, PK_FEAT_BUILD_ID, b.b, b.n, swap, &d), 0, "build-id without file name");
	is_str(f.nr_build_ids == 1 ? f.build_ids[0].filename : NULL, "", "empty file name");
	pk_features_release(&f);
}

static void test_bpf(int swap)
{
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };

	/* BPF_PROG_INFO: { u32 info_len, data_len; u64 arrays; info; data } */
	put32(&b, 2);
	put32(&b, 16);
	put32(&b, 8);
	put64(&b, 0);
	memset(b.b + b.n, 0x11, 24);
	b.n += 24;
	put32(&b, 8);
	put32(&b, 0);
	put64(&b, 0);
	memset(b.b + b.n, 0x22, 8);
	b.n += 8;
	is_int(parse(&f, PK_FEAT_BPF_PROG_INFO, b.b, b.n, swap, &d), 0, "bpf_prog_info");
	is_int(f.nr_bpf_prog_info, 2, "two programs");
	truncations("bpf_prog_info", PK_FEAT_BPF_PROG_INFO, &b, NULL, 0);

	b.n = 0;
	put32(&b, 2);
	put32(&b, 11);
	put32(&b, 3);
	put(&b, "abc", 3);
	put32(&b, 10);
	put32(&b, 0);
	is_int(parse(&f, PK_FEAT_BPF_BTF, b.b, b.n, swap, &d), 0, "bpf_btf");
	is_int(f.nr_bpf_btf, 2, "two btf blobs");
	truncations("bpf_btf", PK_FEAT_BPF_BTF, &b, NULL, 0);
	pk_features_release(&f);
}

/* A VER7 attr (128 bytes) written with @swap; its flag bitfields laid out as that writer does. */
static void put_attr(struct bb *b, uint64_t flags)
{
	size_t start = b->n;

	put32(b, 1);               /* type SOFTWARE */
	put32(b, 128);             /* size */
	put64(b, 9);               /* config: dummy */
	put64(b, 4000);            /* sample_freq */
	put64(b, 0x147);           /* IP|TID|TIME|ID|PERIOD */
	put64(b, 4);               /* read_format ID */
	if (b->swap) {
		/* big-endian bitfields: bytes in little-endian order, bits reversed in each */
		for (int i = 0; i < 8; i++) {
			uint8_t v = (uint8_t)(flags >> (8 * i)), r = 0;

			for (int k = 0; k < 8; k++)
				r |= (uint8_t)(((v >> k) & 1) << (7 - k));
			b->b[b->n++] = r;
		}
	} else {
		put64(b, flags);
	}
	memset(b->b + b->n, 0, start + 128 - b->n);
	b->n = start + 128;
}

static void test_event_desc(int swap)
{
	/* inherit mmap comm freq task sample_id_all mmap2 comm_exec ksymbol bpf_event */
	const uint64_t flags = (1ULL << 1) | (1ULL << 8) | (1ULL << 9) | (1ULL << 10) |
			       (1ULL << 13) | (1ULL << 18) | (1ULL << 23) | (1ULL << 24) |
			       (1ULL << 29) | (1ULL << 30);
	struct pk_features f = { 0 };
	struct pk_diag d;
	struct bb b = { .swap = swap };
	struct pk_buf out;

	put32(&b, 2);
	put32(&b, 128);
	put_attr(&b, flags);
	put32(&b, 3);
	putstr(&b, "dummy:HG");
	put64(&b, 41);
	put64(&b, 42);
	put64(&b, 43);
	put_attr(&b, 1);
	put32(&b, 0);
	putstr(&b, "second");
	is_int(parse(&f, PK_FEAT_EVENT_DESC, b.b, b.n, swap, &d), 0, "event_desc (swap %d): %s",
	       swap, d.msg);
	if (f.nr_event_desc != 2) {
		ok(0, "two events");
		return;
	}
	ok(f.event_desc[0].attr.attr.type == 1 && f.event_desc[0].attr.attr.size == 128 &&
	   f.event_desc[0].attr.attr.config == 9 && f.event_desc[0].attr.attr.sample_type == 0x147,
	   "attr fields");
	ok(f.event_desc[0].nr_ids == 3 && f.event_desc[0].ids[2] == 43 &&
	   !strcmp(f.event_desc[0].name, "dummy:HG"), "ids and name");
	ok(f.event_desc[1].nr_ids == 0 && f.event_desc[1].ids == NULL &&
	   f.event_desc[1].attr.attr.disabled == 1, "second event without ids");
	/* perf 6.1 prints this attr (quipper/perf.data.hybrid_topology, dummy:HG) as: */
	pk_buf_init(&out);
	pk_attr_print(&f.event_desc[0].attr, &out);
	is_str(out.data, ", type = 1, size = 128, config = 0x9, { sample_period, sample_freq } = 4000, "
	       "sample_type = IP|TID|TIME|ID|PERIOD, read_format = ID, inherit = 1, mmap = 1, "
	       "comm = 1, freq = 1, task = 1, sample_id_all = 1, mmap2 = 1, comm_exec = 1, "
	       "ksymbol = 1, bpf_event = 1", "attr printed as perf 6.1 does");
	pk_buf_release(&out);
	truncations("event_desc", PK_FEAT_EVENT_DESC, &b, NULL, 0);
	pk_features_release(&f);

	/* a hostile id count */
	b.n = 0;
	put32(&b, 1);
	put32(&b, 128);
	put_attr(&b, flags);
	put32(&b, 0x40000000);
	putstr(&b, "x");
	is_int(parse(&f, PK_FEAT_EVENT_DESC, b.b, b.n, swap, &d), -EBADMSG, "huge nr_ids");
	is_int(d.offset, OFF + 8 + 128 + 4 + 68, "offset after the name");
	pk_features_release(&f);
}

static void test_attr_print(void)
{
	struct pk_attr a;
	struct pk_buf out;

	memset(&a, 0, sizeof(a));
	a.attr.size = 136;
	a.attr.sample_period = 997;
	a.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			     PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER |
			     PERF_SAMPLE_STACK_USER | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_DATA_SRC;
	a.attr.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a.attr.disabled = a.attr.inherit = a.attr.freq = 1;
	a.attr.precise_ip = 3;
	a.attr.sample_id_all = a.attr.exclude_callchain_kernel = a.attr.exclude_callchain_user = 1;
	a.attr.use_clockid = 1;
	a.attr.sample_regs_user = 0xff0fff;
	a.attr.sample_stack_user = 8192;
	a.attr.clockid = 1;
	pk_buf_init(&out);
	pk_attr_print(&a, &out);
	/* perf 6.1 on linux-perf-data/fibo.compressed2.pipe.data, event cycles:P */
	is_str(out.data, ", size = 136, { sample_period, sample_freq } = 997, sample_type = "
	       "IP|TID|TIME|ADDR|CALLCHAIN|PERIOD|REGS_USER|STACK_USER|IDENTIFIER|DATA_SRC, "
	       "read_format = ID|LOST, disabled = 1, inherit = 1, freq = 1, precise_ip = 3, "
	       "sample_id_all = 1, exclude_callchain_kernel = 1, exclude_callchain_user = 1, "
	       "use_clockid = 1, sample_regs_user = 0xff0fff, sample_stack_user = 8192, clockid = 1",
	       "attr with regs, stack and clockid");
	pk_buf_release(&out);

	memset(&a, 0, sizeof(a));
	a.attr.branch_sample_type = 0xc801;
	a.attr.read_format = 7;
	a.attr.bp_len = 0xa7c3dddd00000000ULL;
	pk_buf_init(&out);
	pk_attr_print(&a, &out);
	is_str(out.data, ", read_format = TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID, "
	       "{ bp_len, config2 } = 0xa7c3dddd00000000, "
	       "branch_sample_type = USER|CALL_STACK|NO_FLAGS|NO_CYCLES", "bit sets and config2");
	pk_buf_release(&out);
}

/* ---- the oracle: perf report --header-only ----------------------------------------------- */

static int have_perf(void)
{
	return access("/usr/bin/perf", X_OK) == 0 ||
	       system("command -v perf >/dev/null 2>&1") == 0;
}

/* perf's output for @path, 0 if perf read it (exit 0 and some output). */
static int perf_header(const char *path, int full, struct pk_buf *out)
{
	char cmd[12600];
	static char line[65536];
	FILE *fp;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "perf report --header-only %s -i '%s' 2>/dev/null", full ? "-I" : "", path);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	while ((n = fread(line, 1, sizeof(line), fp)) > 0)
		pk_buf_append(out, line, n);
	st = pclose(fp);
	return st == 0 && out->len ? 0 : -1;
}

/* Split @s into lines in place; returns the count. */
static size_t split_lines(char *s, size_t len, char ***lines)
{
	size_t n = 0, cap = 64;
	char **v = malloc(cap * sizeof(*v));

	for (char *p = s; p && p < s + len;) {
		char *nl = memchr(p, '\n', (size_t)(s + len - p));

		if (n == cap)
			v = realloc(v, (cap *= 2) * sizeof(*v));
		v[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	*lines = v;
	return n;
}

/*
 * Lines of perf's output that perfkit deliberately does not produce, each
 * with its reason. Returns 1 if @line is one of them.
 */
static int known_perf_only(const char *line)
{
	/*
	 * BPF_PROG_INFO: perf names each program from the BTF func_info that
	 * came with it ("bpf_prog_<tag>_<func>") and lists its sub-programs;
	 * perfkit keeps BPF_PROG_INFO raw (count only) and prints nothing.
	 */
	return !strncmp(line, "# bpf_prog_info ", 16) || !strncmp(line, "# \tsub_prog ", 12);
}

static int is_perffile_v1(const char *path)
{
	char magic[8] = "";
	FILE *fp = fopen(path, "rb");

	if (!fp)
		return 0;
	if (fread(magic, 1, sizeof(magic), fp) != sizeof(magic))
		magic[0] = 0;
	fclose(fp);
	return !memcmp(magic, "PERFFILE", 8);
}

/* @full: with -I (the topology features printed, not just named) */
static void compare_file(const char *path, const char *name, int full)
{
	char label[700];
	struct pk_buf want, got;
	struct pk_perfdata *p = NULL;
	struct pk_diag d;
	char **wl = NULL, **gl = NULL;
	size_t nw, ng, i, j, skipped = 0;
	int err, diff = 0;

	snprintf(label, sizeof(label), "%s%s", name, full ? " -I" : "");
	pk_buf_init(&want);
	pk_buf_init(&got);
	if (perf_header(path, full, &want)) {
		/* perf 6.1 cannot read it (attr size 136, not perf.data, ...): SOURCES.md "no" */
		diag("%s: perf 6.1 does not read it, no comparison", label);
		pk_buf_release(&want);
		return;
	}
	pk_diag_init(&d);
	err = pk_perfdata_open(path, NULL, &p, &d);
	ok(err == 0, "%s: perfkit opens what perf 6.1 reads", label);
	if (err) {
		char msg[1024];

		diag("%s", pk_diag_str(&d, msg, sizeof(msg)));
		pk_buf_release(&want);
		return;
	}
	is_int(pk_perfdata_header_print(p, full, &got), 0, "%s: header printed", label);
	nw = split_lines(want.data, want.len, &wl);
	ng = split_lines(got.data ? got.data : "", got.len, &gl);
	for (i = 0, j = 0; i < nw || j < ng;) {
		if (i < nw && known_perf_only(wl[i])) {
			skipped++;
			i++;
			continue;
		}
		if (i < nw && j < ng && !strcmp(wl[i], gl[j])) {
			i++;
			j++;
			continue;
		}
		if (!diff++) {
			diag("%s: first difference at perf line %zu / perfkit line %zu", label, i + 1,
			     j + 1);
			diag("  perf:    %.300s", i < nw ? wl[i] : "(end)");
			diag("  perfkit: %.300s", j < ng ? gl[j] : "(end)");
		}
		break;
	}
	if (diff && is_perffile_v1(path) && i < nw && !strncmp(wl[i], "# missing features:", 19)) {
		/*
		 * perf reads the feature bitmap of old "PERFFILE" files too
		 * (hotspot/perf.data.true.v1 has BUILD_ID set, with an empty
		 * section) but the reader (lib/perfdata/reader.c) ignores it for
		 * version-1 files, so BUILD_ID is listed as missing. Reported to
		 * the reader's owner; kept visible as a TAP TODO until fixed.
		 */
		printf("not ok %d - %s: feature bitmap of a PERFFILE file # TODO reader ignores it\n",
		       ++tap_count, label);
	} else {
		ok(!diff, "%s: %zu lines match perf 6.1 --header-only", label, nw - skipped);
	}
	if (skipped) {
		const struct pk_features *f = pk_perfdata_features(p);

		ok(f && pk_features_has(f, PK_FEAT_BPF_PROG_INFO),
		   "%s: the %zu perf-only lines are BPF_PROG_INFO's", label, skipped);
	}
	free(wl);
	free(gl);
	pk_perfdata_close(p);
	pk_buf_release(&want);
	pk_buf_release(&got);
}

static void test_oracle(void)
{
	char dir[4096], sub[8192], path[12288];
	DIR *top, *dd;
	struct dirent *e, *e2;
	int files = 0;

	if (!have_perf()) {
		ok(1, "# SKIP perf is not installed: no oracle comparison");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/data/perf.data", shared_dir());
	top = opendir(dir);
	if (!top) {
		ok(1, "# SKIP %s is missing: no oracle comparison", dir);
		return;
	}
	while ((e = readdir(top))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		dd = opendir(sub);
		if (!dd)
			continue;
		while ((e2 = readdir(dd))) {
			const char *n = e2->d_name, *dot = strrchr(n, '.');
			char label[600];

			if (n[0] == '.' || (dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".md"))))
				continue;
			snprintf(path, sizeof(path), "%s/%s", sub, n);
			snprintf(label, sizeof(label), "%s/%s", e->d_name, n);
			compare_file(path, label, 0);
			compare_file(path, label, 1);
			files++;
		}
		closedir(dd);
	}
	closedir(top);
	ok(files > 40, "compared %d corpus files", files);
}

/*
 * Fresh recordings by the installed perf, for features the corpus lacks or
 * has only once: CLOCK_DATA and COMPRESSED (-z -k), a named and an anonymous
 * group (GROUP_DESC), a quote in the command line, TRACING_DATA from a
 * tracepoint, STAT from `perf stat record`, and pipe mode written to a file.
 */
static void test_oracle_recorded(void)
{
	static const struct {
		const char *name, *cmd;
	} rec[] = {
		{ "callgraph", "perf record -q --no-bpf-event -e cpu-clock -F 999 -g -o %s -- true" },
		{ "group_z_k", "perf record -q --no-bpf-event -z -k monotonic "
			       "-e '{cpu-clock,task-clock}' -o %s -- true" },
		{ "named_group", "perf record -q --no-bpf-event "
				 "-e 'mygrp{cpu-clock,task-clock}' -o %s -- true" },
		{ "quote", "perf record -q --no-bpf-event -e cpu-clock -o %s -- "
			   "sh -c \"echo 'x y' >/dev/null\"" },
		{ "tracepoint", "perf record -q --no-bpf-event -e sched:sched_process_exec "
				"-o %s -- true" },
		{ "stat", "perf stat record --quiet -o %s -- true" },
		{ "pipe", "perf record -q --no-bpf-event -e cpu-clock -o - -- true > %s" },
	};
	char dir[] = "/tmp/pk-test-features-XXXXXX", path[256], cmd[1024];

	if (!have_perf() || !mkdtemp(dir)) {
		ok(1, "# SKIP perf is not installed: no recordings to compare");
		return;
	}
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		char label[64];

		snprintf(path, sizeof(path), "%s/%s.data", dir, rec[i].name);
		snprintf(cmd, sizeof(cmd), rec[i].cmd, path);
		snprintf(label, sizeof(label), "recorded %s", rec[i].name);
		strncat(cmd, " 2>/dev/null", sizeof(cmd) - strlen(cmd) - 1);
		if (system(cmd) != 0) {
			diag("%s: perf could not record here (%s), no comparison", label, cmd);
			continue;
		}
		compare_file(path, label, 0);
		compare_file(path, label, 1);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	test_names();
	for (int swap = 0; swap < 2; swap++) {
		test_strings(swap);
		test_fixed(swap);
		test_lists(swap);
		test_topology(swap);
		test_build_id(swap);
		test_bpf(swap);
		test_event_desc(swap);
	}
	test_attr_print();
	test_oracle();
	test_oracle_recorded();
	return done_testing();
}
