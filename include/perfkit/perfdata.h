/*
 * perfkit perfdata: reading and writing perf.data, the file format of Linux
 * `perf record`, in file mode and pipe mode, in either byte order, with any
 * perf_event_attr size, zstd-compressed records (COMPRESSED and COMPRESSED2),
 * and delivery in timestamp order through FINISHED_ROUND windows.
 *
 * Layout: ../shared/reference/perf-data.md and ../shared/specs/perf-data-file-format.txt.
 *
 * Records reach the caller through pk_perfdata_foreach() in native byte
 * order, 8-byte aligned, already decoded by the sample module. Corrupt input
 * stops the walk with -EBADMSG and a pk_diag naming the file and the byte
 * offset; trailing bytes that do not form a record end the walk with a
 * warning through pk_log(). simpleperf's own record types and features are
 * skipped with one notice each.
 */
#ifndef PERFKIT_PERFDATA_H
#define PERFKIT_PERFDATA_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>
#include <perfkit/core.h>
#include <perfkit/sample.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf-tool record types (tools/lib/perf/include/perf/event.h). */
enum pk_user_record {
	PK_RECORD_HEADER_ATTR = 64,
	PK_RECORD_HEADER_EVENT_TYPE = 65,
	PK_RECORD_HEADER_TRACING_DATA = 66,
	PK_RECORD_HEADER_BUILD_ID = 67,
	PK_RECORD_FINISHED_ROUND = 68,
	PK_RECORD_ID_INDEX = 69,
	PK_RECORD_AUXTRACE_INFO = 70,
	PK_RECORD_AUXTRACE = 71,
	PK_RECORD_AUXTRACE_ERROR = 72,
	PK_RECORD_THREAD_MAP = 73,
	PK_RECORD_CPU_MAP = 74,
	PK_RECORD_STAT_CONFIG = 75,
	PK_RECORD_STAT = 76,
	PK_RECORD_STAT_ROUND = 77,
	PK_RECORD_EVENT_UPDATE = 78,
	PK_RECORD_TIME_CONV = 79,
	PK_RECORD_HEADER_FEATURE = 80,
	PK_RECORD_COMPRESSED = 81,
	PK_RECORD_FINISHED_INIT = 82,
	PK_RECORD_COMPRESSED2 = 83,
	PK_RECORD_BPF_METADATA = 84,
	PK_RECORD_SCHEDSTAT_CPU = 85,
	PK_RECORD_SCHEDSTAT_DOMAIN = 86,
	PK_RECORD_USER_MAX = 87,
};

/* Header feature bits (HEADER_*). */
enum pk_feature {
	PK_FEAT_TRACING_DATA = 1, PK_FEAT_BUILD_ID, PK_FEAT_HOSTNAME, PK_FEAT_OSRELEASE,
	PK_FEAT_VERSION, PK_FEAT_ARCH, PK_FEAT_NRCPUS, PK_FEAT_CPUDESC, PK_FEAT_CPUID,
	PK_FEAT_TOTAL_MEM, PK_FEAT_CMDLINE, PK_FEAT_EVENT_DESC, PK_FEAT_CPU_TOPOLOGY,
	PK_FEAT_NUMA_TOPOLOGY, PK_FEAT_BRANCH_STACK, PK_FEAT_PMU_MAPPINGS, PK_FEAT_GROUP_DESC,
	PK_FEAT_AUXTRACE, PK_FEAT_STAT, PK_FEAT_CACHE, PK_FEAT_SAMPLE_TIME, PK_FEAT_MEM_TOPOLOGY,
	PK_FEAT_CLOCKID, PK_FEAT_DIR_FORMAT, PK_FEAT_BPF_PROG_INFO, PK_FEAT_BPF_BTF,
	PK_FEAT_COMPRESSED, PK_FEAT_CPU_PMU_CAPS, PK_FEAT_CLOCK_DATA, PK_FEAT_HYBRID_TOPOLOGY,
	PK_FEAT_PMU_CAPS, PK_FEAT_CPU_DOMAIN_INFO, PK_FEAT_E_MACHINE, PK_FEAT_CLN_SIZE,
	PK_FEAT_LAST = 35,
};

/* ---- header features ------------------------------------------------------ */

struct pk_feat_string_list {
	uint32_t nr;
	char **s;
};

struct pk_feat_event_desc {
	struct pk_attr attr;
	char *name;
	uint32_t nr_ids;
	uint64_t *ids;
};

struct pk_feat_cpu_topo {
	struct pk_feat_string_list core_siblings, thread_siblings, die_siblings;
	uint32_t nr_cpus;            /* entries in core_id/socket_id/die_id, 0 if absent */
	uint32_t *core_id, *socket_id, *die_id;   /* die_id NULL if absent */
};

struct pk_feat_numa_node {
	uint32_t node;
	uint64_t mem_total, mem_free;   /* kB */
	char *cpus;
};

struct pk_feat_pmu_mapping {
	uint32_t type;
	char *name;
};

struct pk_feat_group_desc {
	char *name;
	uint32_t leader_idx, nr_members;
};

struct pk_feat_cache {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;
};

struct pk_feat_mem_node {
	uint64_t node, size, nbits;
	uint64_t *bitmap;            /* (nbits + 63) / 64 words */
};

struct pk_feat_caps {
	uint32_t nr;
	char **name, **value;
	char *pmu_name;              /* PMU_CAPS: the PMU; CPU_PMU_CAPS: NULL */
};

struct pk_feat_hybrid {
	char *pmu_name, *cpus;
};

struct pk_feat_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;
	uint8_t build_id[20];
	char *filename;
};

struct pk_feat_auxtrace_entry {
	uint64_t file_offset, size;
};

/*
 * Everything the header features of a file say. A feature that is absent
 * leaves its members zero/NULL; pk_features_has() tells which were present.
 */
struct pk_features {
	uint64_t present[4];         /* bitmap of features parsed (bit = enum pk_feature) */
	const void *tracing_data;    /* TRACING_DATA blob (points into the file or a copy) */
	uint64_t tracing_data_size;
	uint32_t nr_build_ids;
	struct pk_feat_build_id *build_ids;
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem;          /* kB */
	struct pk_feat_string_list cmdline;
	uint32_t nr_event_desc;
	struct pk_feat_event_desc *event_desc;
	struct pk_feat_cpu_topo cpu_topo;
	uint32_t nr_numa_nodes;
	struct pk_feat_numa_node *numa_nodes;
	uint32_t nr_pmu_mappings;
	struct pk_feat_pmu_mapping *pmu_mappings;
	uint32_t nr_groups;
	struct pk_feat_group_desc *groups;
	uint32_t nr_auxtrace;
	struct pk_feat_auxtrace_entry *auxtrace;
	uint32_t cache_version, nr_caches;
	struct pk_feat_cache *caches;
	uint64_t first_sample_time, last_sample_time;
	uint64_t mem_topo_version, mem_block_size, nr_mem_nodes;
	struct pk_feat_mem_node *mem_nodes;
	uint64_t clockid_res_ns;
	uint64_t dir_format_version;
	uint32_t nr_bpf_prog_info, nr_bpf_btf;
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	struct pk_feat_caps cpu_pmu_caps;
	uint32_t clock_data_version, clock_data_clockid;
	uint64_t clock_wall_ns, clock_clockid_ns;
	uint32_t nr_hybrid;
	struct pk_feat_hybrid *hybrid;
	uint32_t nr_pmu_caps;
	struct pk_feat_caps *pmu_caps;
	uint32_t e_machine, e_flags;
	uint64_t cln_size;
	/* features whose payload is kept but not interpreted (CPU_DOMAIN_INFO, ...) */
	const void *raw[PK_FEAT_LAST];
	uint64_t raw_size[PK_FEAT_LAST];
};

static inline int pk_features_has(const struct pk_features *f, unsigned feat)
{
	return feat < 256 && (f->present[feat / 64] >> (feat % 64)) & 1;
}

/*
 * Parse feature @feat from the @len bytes at @buf (writer's byte order per
 * @swap; @off = file offset of @buf) into @f. Pointers kept in @f (tracing
 * data, raw payloads) point into @buf, which must outlive @f. Unknown ids
 * (simpleperf's 128+) return -ENOENT and leave @f alone. 0 or -EBADMSG/-ENOMEM.
 * On -EBADMSG the section is kept in raw[feat]/raw_size[feat] with its
 * present bit clear (the file has the feature, but it could not be read).
 */
PK_API int pk_features_parse(struct pk_features *f, unsigned feat, const void *buf, size_t len,
			     int swap, uint64_t off, struct pk_diag *d);
PK_API void pk_features_release(struct pk_features *f);

/* perf's name of feature @feat ("hostname", "cpu_topology", ...), NULL if unknown. */
PK_API const char *pk_feature_name(unsigned feat);

/* ---- the reader ------------------------------------------------------------ */

struct pk_perfdata;

/* One event (attr) of the file. */
struct pk_evsel {
	int idx;
	struct pk_attr attr;
	struct pk_sample_layout layout;
	char *name;                  /* from EVENT_DESC / EVENT_UPDATE, else perf's name for the attr */
	uint32_t nr_ids;
	uint64_t *ids;
};

struct pk_perfdata_opts {
	size_t sz;
	int ordered;                 /* deliver records in timestamp order (FINISHED_ROUND windows) */
	int deliver_header_records;  /* also deliver HEADER_ATTR/FEATURE/... records (for -D) */
};

/* A record as delivered. */
struct pk_record {
	const struct perf_event_header *hdr;   /* native order, 8-byte aligned */
	uint64_t file_offset;        /* where the record starts in the file; for records that came
	                                out of a COMPRESSED record, the offset of that record */
	int compressed;              /* came out of a COMPRESSED/COMPRESSED2 record */
	const struct pk_evsel *evsel;   /* the record's attr; NULL for perf-tool records or no match */
	struct pk_sample sample;     /* SAMPLE: decoded; other kernel records: the sample_id trailer */
	const void *payload;         /* AUXTRACE / HEADER_TRACING_DATA bytes that follow the record */
	uint64_t payload_size;
};

/* Return 0 to go on, anything else stops the walk and is returned by pk_perfdata_foreach(). */
typedef int (*pk_record_fn)(void *ctx, const struct pk_record *r);

/*
 * Open @path ("-" reads standard input, which may be a pipe) and read its
 * header: attrs, ids, features (file mode), or the leading header records
 * (pipe mode). 0 or -errno with @d naming the file and offset.
 */
PK_API int pk_perfdata_open(const char *path, const struct pk_perfdata_opts *opts,
			    struct pk_perfdata **out, struct pk_diag *d);
/* The same on an open descriptor; @name is used in messages. Takes ownership of @fd. */
PK_API int pk_perfdata_open_fd(int fd, const char *name, const struct pk_perfdata_opts *opts,
			       struct pk_perfdata **out, struct pk_diag *d);
PK_API void pk_perfdata_close(struct pk_perfdata *p);

/*
 * Walk the records (once). Returns 0 at the end, the callback's non-zero
 * value (@fn is not called again after it), or a negative errno with @d
 * set. In pipe mode header records that arrive during the walk update
 * evsels and features before later records.
 */
PK_API int pk_perfdata_foreach(struct pk_perfdata *p, pk_record_fn fn, void *ctx,
			       struct pk_diag *d);

PK_API int pk_perfdata_is_pipe(const struct pk_perfdata *p);
PK_API int pk_perfdata_is_swapped(const struct pk_perfdata *p);
PK_API const char *pk_perfdata_path(const struct pk_perfdata *p);
/* File size in bytes (file mode), or bytes consumed so far (pipe mode). */
PK_API uint64_t pk_perfdata_size(const struct pk_perfdata *p);
/* Bytes consumed so far: for a progress indicator. */
PK_API uint64_t pk_perfdata_position(const struct pk_perfdata *p);
/* The data section (file mode); 0,0 in pipe mode. */
PK_API void pk_perfdata_data_section(const struct pk_perfdata *p, uint64_t *offset, uint64_t *size);

PK_API size_t pk_perfdata_nr_evsels(const struct pk_perfdata *p);
PK_API const struct pk_evsel *pk_perfdata_evsel(const struct pk_perfdata *p, size_t idx);
/* 1 when the file (not a pipe, whose attrs come later) has events and all are tracepoints. */
PK_API int pk_perfdata_only_tracepoints(const struct pk_perfdata *p);
/* The evsel a sample id belongs to, NULL if none (a single-attr file matches anything). */
PK_API const struct pk_evsel *pk_perfdata_evsel_by_id(const struct pk_perfdata *p, uint64_t id);
/*
 * The evsel whose ids include @id (perf's evlist__id2sid), or NULL: no
 * single-attr shortcut. *@num (if not NULL) gets the id's number among the
 * file's ids, 0 for the first one added: dense, for per-id arrays.
 */
PK_API const struct pk_evsel *pk_perfdata_id_owner(const struct pk_perfdata *p, uint64_t id,
						   uint32_t *num);
PK_API const struct pk_features *pk_perfdata_features(const struct pk_perfdata *p);

/* Counts kept while walking: per record type, and records out of order. */
struct pk_perfdata_stats {
	uint64_t nr_records[PK_RECORD_USER_MAX];   /* index = record type */
	uint64_t nr_unknown;         /* records of types perfkit does not know (skipped) */
	uint64_t nr_unordered;       /* records with a timestamp below the last flush */
	uint64_t nr_lost_events;     /* sum of PERF_RECORD_LOST.lost */
	uint64_t nr_lost_samples;    /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t trailing_bytes;     /* ignored bytes after the last record */
	uint64_t trailing_offset;
};
PK_API const struct pk_perfdata_stats *pk_perfdata_stats(const struct pk_perfdata *p);

/*
 * perf report --header-only: the "# ========" block with the header fields
 * and every feature present, in perf's layout, appended to @out. @full
 * (perf's -I): the topology features too, not just "info available".
 */
PK_API int pk_perfdata_header_print(const struct pk_perfdata *p, int full, struct pk_buf *out);

/* ---- the writer ------------------------------------------------------------ */

/*
 * Feature @feat of @f encoded as perf writes its section (native byte order,
 * strings as perf_header_string: u32 len incl. NUL padded to 8, then bytes),
 * appended to @out. The inverse of pk_features_parse() for every feature
 * perfkit writes: TRACING_DATA, BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH,
 * NRCPUS, CPUDESC, CPUID, TOTAL_MEM, CMDLINE, EVENT_DESC, CPU_TOPOLOGY,
 * NUMA_TOPOLOGY, PMU_MAPPINGS, GROUP_DESC, SAMPLE_TIME, CLOCKID, CLOCK_DATA,
 * COMPRESSED. 0, -ENOENT for other features, -ENOMEM.
 */
PK_API int pk_features_encode(const struct pk_features *f, unsigned feat, struct pk_buf *out);

/*
 * Fill @f with what this machine says, as perf record does: HOSTNAME,
 * OSRELEASE, VERSION (@version), ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM,
 * CMDLINE (@argc/@argv), CPU_TOPOLOGY, NUMA_TOPOLOGY, PMU_MAPPINGS, and
 * CLOCKID (resolution of @clockid) with CLOCK_DATA (a wall/clock reference
 * pair) when @clockid >= 0. Strings are allocated (pk_features_release()
 * frees them). Features the machine cannot give are left out. 0 or -ENOMEM.
 */
PK_API int pk_features_collect_host(struct pk_features *f, const char *version, int argc,
				    char *const argv[], int clockid);

/* Mark feature @feat present in @f. */
static inline void pk_features_set(struct pk_features *f, unsigned feat)
{
	if (feat < 256)
		f->present[feat / 64] |= 1ULL << (feat % 64);
}

struct pk_perfdata_writer;

/* One event of the file being written. */
struct pk_writer_evsel {
	const struct perf_event_attr *attr;
	const char *name;            /* for EVENT_DESC */
	const uint64_t *ids;         /* the kernel ids of its fds (PERF_EVENT_IOC_ID) */
	uint32_t nr_ids;
};

struct pk_writer_opts {
	size_t sz;
	int pipe;                    /* pipe mode: a stream perf reads from `-i -` */
	int compress_level;          /* 0: plain; 1..22: records as PERF_RECORD_COMPRESSED (zstd) */
	/*
	 * Pipe mode only: the features to send up front as HEADER_FEATURE
	 * records (and TRACING_DATA as HEADER_TRACING_DATA), as perf does.
	 */
	const struct pk_features *pipe_features;
};

/*
 * Start a perf.data on @fd (@name for messages): file mode writes the
 * header, the attrs and their ids, and places the data section after them
 * (the header is finished by pk_writer_close()); pipe mode writes the pipe
 * header, one HEADER_ATTR record per event, the features of
 * opts->pipe_features and, with compression, the COMPRESSED feature.
 * 0 or -errno with @d naming the file.
 */
PK_API int pk_writer_open(struct pk_perfdata_writer **out, int fd, const char *name,
			  const struct pk_writer_evsel *evs, size_t nr,
			  const struct pk_writer_opts *opts, struct pk_diag *d);

/*
 * Append whole records (native order, as the kernel wrote them) from @n
 * spans. With compression they are fed to the zstd stream. 0 or -errno
 * (ENOSPC, EIO, ...) with @d set; after an error every later call fails and
 * pk_writer_close() keeps the data up to the last complete round.
 */
PK_API int pk_writer_writev(struct pk_perfdata_writer *w, const struct iovec *iov, int n,
			    struct pk_diag *d);
PK_API int pk_writer_write(struct pk_perfdata_writer *w, const void *buf, size_t len,
			   struct pk_diag *d);

/*
 * End a round: flush the compressor (its output as COMPRESSED records) and
 * write PERF_RECORD_FINISHED_ROUND. Everything written so far is then a
 * complete round that survives a later error.
 */
PK_API int pk_writer_round(struct pk_perfdata_writer *w, struct pk_diag *d);

/* Bytes of the data section so far (compressed size when compressing), and uncompressed. */
PK_API uint64_t pk_writer_data_bytes(const struct pk_perfdata_writer *w);
PK_API uint64_t pk_writer_raw_bytes(const struct pk_perfdata_writer *w);

/*
 * Finish and free the writer. File mode: when no write failed, the features
 * of @f that perfkit writes (plus EVENT_DESC from the evsels, and COMPRESSED
 * with compression) go after the data and the header is rewritten with the
 * data size and the feature bits. After a write error the file is cut back
 * to the last complete round and the header says so (no features are
 * added, except COMPRESSED for a compressed file, which perf needs to
 * decompress), so perf and perfkit still read it; the original write error
 * is returned again with its message. Pipe mode: flushes. The fd is not
 * closed. 0 or -errno with @d set.
 */
PK_API int pk_writer_close(struct pk_perfdata_writer *w, const struct pk_features *f,
			   struct pk_diag *d);

#ifdef __cplusplus
}
#endif
#endif
