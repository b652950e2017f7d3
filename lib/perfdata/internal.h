/*
 * Private to lib/perfdata: the body of struct pk_perfdata shared by the
 * reader's parts: input.c (the bytes: an mmapped file or a buffered stream),
 * reader.c (open: file header, attrs, ids, feature sections; accessors),
 * evlist.c (evsels and the id -> evsel map), evsel_name.c (perf's default
 * event names), user_records.c (HEADER_ATTR, HEADER_FEATURE, ID_INDEX,
 * EVENT_UPDATE, tracing data), walk.c (the record loop, byte swapping,
 * delivery), order.c (the FINISHED_ROUND time-ordering queue) and
 * decompress.c (zstd COMPRESSED/COMPRESSED2 records).
 *
 * Layout references: ../shared/reference/perf-data.md §1 (file header), §6
 * (record types), §8 (pipe mode), §9 (compression).
 */
#ifndef PERFKIT_LIB_PERFDATA_INTERNAL_H
#define PERFKIT_LIB_PERFDATA_INTERNAL_H

#include <stdint.h>
#include <stddef.h>
#include <perfkit/perfdata.h>

#define PK_PD_PIPE_HDR_SIZE 16
#define PK_PD_FILE_HDR_SIZE 104
#define PK_PD_OLD_HDR_SIZE 72       /* no adds_features bitmap */
#define PK_PD_MAX_RECORD 65535
/* Upper bound for one decompressed chunk (plus the tail carried over). */
#define PK_PD_ZSTD_MAX_OUT (64u << 20)
/* Upper bound for the bytes that follow an AUXTRACE / HEADER_TRACING_DATA record. */
#define PK_PD_MAX_PAYLOAD (1ull << 32)
/* Upper bound for the leading header records read ahead at open (pipe mode). */
#define PK_PD_MAX_HEADER_SCAN (256u << 20)

/* ---- input: bytes of the file, mapped or streamed ----------------------- */

struct pk_pd_input {
	int fd;
	int stream;                 /* 1: read(2) into buf; 0: mem holds everything */
	const uint8_t *mem;         /* !stream: the whole file (mmap or malloc) */
	size_t mem_len;
	int mem_mapped;             /* mem came from mmap (else malloc) */
	uint64_t pos;               /* absolute offset of the next unconsumed byte */
	uint64_t limit;             /* !stream: end of the bytes the walk may read */
	/* stream: buf[start, end) holds the bytes from absolute offset pos on */
	uint8_t *buf;
	size_t cap, start, end;
	int eof;
	uint64_t total_read;        /* stream: bytes read so far */
};

/*
 * Make @need bytes from @rel past the current position available. On return
 * *ptr points at them and *avail says how many there are (less than @need
 * only at the end of the input). Pointers stay valid until the next call.
 * 0 or -errno (read error, -ENOMEM).
 */
int pk_perfdata_in_peek(struct pk_perfdata *p, uint64_t rel, uint64_t need, const uint8_t **ptr,
			uint64_t *avail);
void pk_perfdata_in_consume(struct pk_perfdata *p, uint64_t n);
/* Read the whole rest of a stream into memory and switch to !stream. */
int pk_perfdata_in_slurp(struct pk_perfdata *p);
void pk_perfdata_in_release(struct pk_pd_input *in);

/* ---- evsels -------------------------------------------------------------- */

enum pk_pd_name_src { PK_NAME_DEFAULT, PK_NAME_TRACING, PK_NAME_DESC, PK_NAME_UPDATE };

struct pk_pd_evsel {
	struct pk_evsel ev;         /* public part: first member */
	enum pk_pd_name_src name_src;
};

struct pk_pd_idmap {
	uint64_t *keys;
	struct pk_evsel **vals;     /* NULL = empty slot */
	uint32_t *nums;             /* each id's number, in the order ids were added */
	size_t cap, n;
};

/* ---- the time-ordering queue (order.c) ----------------------------------- */

struct pk_pd_chunk;

struct pk_pd_qent {
	uint64_t time;
	uint64_t seq;
	const struct perf_event_header *rec;
	uint64_t file_offset;
	const struct pk_evsel *evsel;
	struct pk_pd_chunk *chunk;  /* arena chunk holding the copy, NULL if in place */
	int compressed;
};

struct pk_pd_order {
	struct pk_pd_qent *v, *tmp;
	size_t n, cap, nsorted, tmpcap;
	uint64_t seq;
	uint64_t max_timestamp, next_flush, last_flush;
	struct pk_pd_chunk *all, *cur, *free_chunks;
	size_t nr_free;
};

/* ---- zstd (decompress.c) -------------------------------------------------- */

struct pk_pd_zstd {
	void *dctx;                 /* ZSTD_DCtx */
	uint8_t *out;
	size_t len, cap;            /* out[0, len): decompressed bytes not yet consumed */
};

/* ---- the reader ----------------------------------------------------------- */

struct pk_pd_owned {              /* copies that must live as long as the reader */
	struct pk_pd_owned *next;
	uint64_t size;
	uint64_t data[];
};

struct pk_perfdata {
	char *path;
	struct pk_perfdata_opts opts;
	struct pk_pd_input in;
	int pipe, swapped, version1;
	uint64_t file_size;

	/* file mode header */
	uint64_t header_size, attr_size;
	uint64_t attrs_off, attrs_size, data_off, data_size, feat_off;
	uint64_t adds_features[4];

	/* evsels */
	struct pk_pd_evsel **evsels;
	size_t nr_evsels, evsels_cap;
	struct pk_pd_idmap ids;
	char **old_names;           /* replaced names, freed at close */
	size_t nr_old_names;

	struct pk_features feat;
	struct pk_pd_owned *owned;

	/* pipe mode: header records up to this offset were processed at open */
	uint64_t pipe_hdr_end;
	int pipe_feat_done;

	/* walk state */
	int walked;
	int consumer_failed;        /* the caller's record function returned an error */
	struct pk_perfdata_stats stats;
	uint64_t *scratch;          /* one record, 8-byte aligned, native order */
	size_t scratch_cap;         /* in u64 words */
	uint32_t warned_types[64];  /* record types warned about once */
	size_t nr_warned_types;
	uint32_t warned_feats[32];
	size_t nr_warned_feats;
	struct pk_pd_order order;
	struct pk_pd_zstd zstd;
	int in_compressed;          /* processing records out of a compressed chunk */
	pk_record_fn fn;
	void *ctx;
};

/* reader.c */
int pk_perfdata_once_warn(uint32_t *list, size_t *n, size_t max, uint32_t v);
void *pk_perfdata_own(struct pk_perfdata *p, const void *src, uint64_t size);

/* evlist.c */
struct pk_evsel *pk_perfdata_evsel_add(struct pk_perfdata *p, const struct pk_attr *attr,
				       struct pk_diag *d);
int pk_perfdata_id_add(struct pk_perfdata *p, struct pk_evsel *ev, uint64_t id, int keep_in_evsel);
/* The evsel of a native record (perf's evlist__event2evsel rules), NULL if none. */
const struct pk_evsel *pk_perfdata_evsel_of(const struct pk_perfdata *p, const void *rec,
					    size_t len);
/* Name @ev @name (from @src), keeping the old name until close; out of memory: warned, unchanged. */
void pk_perfdata_evsel_rename(struct pk_perfdata *p, struct pk_evsel *ev, const char *name,
			      enum pk_pd_name_src src);
/* Apply EVENT_DESC names and tracepoint names from tracing data. */
void pk_perfdata_names_refresh(struct pk_perfdata *p);
void pk_perfdata_evlist_release(struct pk_perfdata *p);

/* evsel_name.c */
size_t pk_perfdata_attr_name(const struct perf_event_attr *attr, char *buf, size_t sz);
/* "sys:name" of tracepoint @id from a tracing-data blob; 0 if found. */
int pk_perfdata_tracing_name(const void *blob, uint64_t size, uint64_t id, char *buf, size_t sz);

/* user_records.c: state changes carried by perf-tool records */
int pk_perfdata_user_record(struct pk_perfdata *p, const uint8_t *rec, uint32_t size,
			    uint64_t off, const uint8_t *payload, uint64_t payload_size,
			    struct pk_diag *d);
/* Bytes that follow record @rec outside header.size (AUXTRACE, HEADER_TRACING_DATA). */
uint64_t pk_perfdata_record_extra(const struct pk_perfdata *p, uint32_t type, const uint8_t *rec,
				  uint32_t size);
/* Feature @feat from @len bytes at @buf (kept alive by the caller); warns on errors. */
void pk_perfdata_feature(struct pk_perfdata *p, unsigned feat, const void *buf, uint64_t len,
			 uint64_t off);

/* walk.c */
int pk_perfdata_process(struct pk_perfdata *p, const uint8_t *raw, uint32_t size, uint64_t off,
			const uint8_t *payload, uint64_t payload_size, int in_place,
			struct pk_diag *d);
int pk_perfdata_deliver(struct pk_perfdata *p, const struct perf_event_header *h,
			uint64_t off, int compressed, const struct pk_evsel *ev,
			const void *payload, uint64_t payload_size, struct pk_diag *d);

/* order.c */
int pk_perfdata_order_queue(struct pk_perfdata *p, const struct perf_event_header *h,
			    uint64_t time, uint64_t off, int compressed,
			    const struct pk_evsel *ev, int in_place);
int pk_perfdata_order_flush(struct pk_perfdata *p, uint64_t limit, struct pk_diag *d);
int pk_perfdata_order_round(struct pk_perfdata *p, struct pk_diag *d);
void pk_perfdata_order_release(struct pk_pd_order *o);
/* The timestamp of a native kernel record under @l; 0 if it has none. */
int pk_perfdata_record_time(const struct pk_sample_layout *l, const void *rec, size_t len,
			    uint64_t *time);

/* decompress.c */
int pk_perfdata_decompress(struct pk_perfdata *p, const uint8_t *src, size_t n, uint64_t off,
			   struct pk_diag *d);
/* Bytes left undecoded in the decompression tail at the end of input. */
size_t pk_perfdata_zstd_pending(const struct pk_perfdata *p);
void pk_perfdata_zstd_release(struct pk_pd_zstd *z);

static inline uint16_t pk_pd_bswap16(uint16_t v) { return __builtin_bswap16(v); }

static inline uint32_t pk_pd_u32(const void *b, int swap)
{
	uint32_t v;

	__builtin_memcpy(&v, b, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t pk_pd_u64(const void *b, int swap)
{
	uint64_t v;

	__builtin_memcpy(&v, b, 8);
	return swap ? __builtin_bswap64(v) : v;
}

#endif
