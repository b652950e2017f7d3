/*
 * perfkit oa: Intel i915 OA hardware counters, decoded exactly.
 *
 * The pieces, each usable on its own:
 *
 *   pk_oa_record_*       walk the records of an i915 perf stream or of an
 *                        IGT recording ({u32 type; u16 pad; u16 size}),
 *                        every size checked (../shared/specs/i915-perf-stream-format.txt)
 *   pk_oa_format_* / pk_oa_decoder_* / pk_oa_report_*
 *                        the 256-byte OA report formats: one report decoded
 *                        into a flat u64 array laid out like IGT's
 *                        accumulator (gpu_time, gpu_clock, A, B, C), with
 *                        reason, context id and timestamp
 *   pk_oa_accumulate*    deltas between two reports (u32 modulo 2^32, u40
 *                        modulo 2^40, timestamps shifted as the platform needs)
 *   pk_oa_platform_*     PCI id -> platform, graphics version, OA format,
 *                        timestamp frequency and shift
 *   pk_oa_recording_*    IGT's i915-perf-recorder file format, read and written
 *   pk_oa_timeline_*     segments per context as IGT's i915-perf-reader
 *                        builds them, with CPU times from the correlation points
 *
 *   pk_oa_metrics_* / pk_oa_devvars_* / pk_oa_eval_* / pk_oa_expr_*
 *                        metric sets: the XML equations evaluated on the deltas
 *   pk_oa_summary_*      a recording and a metric set -> per-segment values,
 *                        printed as i915-perf-reader does or as JSON
 *
 * Facts: ../shared/reference/gpu.md sections 1-4.
 *
 * Metric sets (pk_oa_metrics_*: Intel's oa-<platform>.xml files as IGT and
 * Mesa ship them, loaded with libxml2; pk_oa_devvars_*: the $ variables of
 * the device from the topology and DEVICE_INFO; pk_oa_eval_*: a set compiled
 * once for one device, counters ordered so that $Counter references come
 * first; pk_oa_expr_*: one equation) evaluate with the exact C semantics of
 * the code IGT generates from the same files, so values match
 * i915-perf-reader to the last digit (gpu.md section 4). READ of a counter
 * namespace reads the deltas at the offsets of pk_oa_format_info().
 *
 * Equation semantics (IGT's perf-equations code generator, reproduced):
 * each value on the stack is a uint64 or a double. U-operators (UADD, USUB,
 * UMUL, UMIN) compute with C's usual arithmetic conversions and store the
 * result as uint64 (so a double operand makes the operation a double one,
 * truncated afterwards; USUB wraps); UDIV converts both operands to uint64
 * first; F-operators (FADD, FSUB, FMUL) compute with the usual conversions
 * and store a double (two uint64 operands add, subtract and multiply as
 * uint64, wrapping, before the conversion); FDIV and FMAX convert both
 * operands to double first; UDIV and FDIV give 0 when the divisor is 0.
 * READ gives deltas[offset(namespace) + n] as uint64, a $Counter reference
 * the other counter's value with its own type (uint64 or double), numbers and
 * device variables are uint64. The result is converted to the counter's
 * data_type. A double converted to uint64 outside [0, 2^64) gives what x86-64
 * code compiled by GCC gives (negative values above -2^63 wrap, NaN and other
 * values give 2^63 or 0), without undefined behaviour.
 *
 * Availability predicates use the same machine with AND (bitwise), OR, &&,
 * ||, ULT, ULTE, UGT, UGTE, EQUALS, NOT, << and >>, and the words true and
 * false; a counter is available when its predicate is non-zero.
 */
#ifndef PERFKIT_OA_H
#define PERFKIT_OA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- stream records --------------------------------------------------------- */

enum pk_oa_record_type {
	PK_OA_RECORD_SAMPLE = 1,            /* kernel: one OA report (payload as configured) */
	PK_OA_RECORD_REPORT_LOST = 2,       /* kernel: the hardware dropped a report */
	PK_OA_RECORD_BUFFER_LOST = 3,       /* kernel: the OA buffer overflowed */
	PK_OA_RECORD_VERSION = 0x10000,     /* IGT recording: {u32 version; u32 pad} */
	PK_OA_RECORD_DEVICE_INFO = 0x10001, /* IGT recording: 336-byte device info */
	PK_OA_RECORD_TOPOLOGY = 0x10002,    /* IGT recording: drm_i915_query_topology_info */
	PK_OA_RECORD_CORRELATION = 0x10003, /* IGT recording: {u64 cpu_ns; u64 gpu_ts} */
};

#define PK_OA_RECORD_HEADER_SIZE 8
#define PK_OA_DEVICE_INFO_RECORD_SIZE 344
#define PK_OA_DEVICE_INFO_SIZE 336
#define PK_OA_VERSION_RECORD_SIZE 16
#define PK_OA_CORRELATION_RECORD_SIZE 24

/* "sample", "report-lost", ..., or "unknown". */
PK_API const char *pk_oa_record_type_name(uint32_t type);

/* One record, pointing into the caller's buffer. */
struct pk_oa_record {
	uint32_t type;
	uint16_t size;          /* whole record, header included */
	uint64_t offset;        /* of the header in the buffer */
	const uint8_t *payload; /* size - 8 bytes */
	size_t payload_len;
};

/* A cursor over a buffer of records. */
struct pk_oa_record_iter {
	const uint8_t *buf;
	size_t len;
	size_t pos;
};

PK_API void pk_oa_record_iter_init(struct pk_oa_record_iter *it, const void *buf, size_t len);

/*
 * The next record into *@rec: 1, 0 at the end of the buffer, or -EBADMSG
 * (PK_CORRUPT with the record's offset) for a truncated header, a size below
 * 8, a size past the end, or a size wrong for its type (LOST records 8 bytes,
 * VERSION at least 16, DEVICE_INFO exactly 344, TOPOLOGY at least 24,
 * CORRELATION at least 24, SAMPLE at least 16). Unknown types are returned
 * as they are (the caller skips them). Every call advances by at least 8
 * bytes, so a loop over it always ends.
 */
PK_API int pk_oa_record_next(struct pk_oa_record_iter *it, struct pk_oa_record *rec,
			     struct pk_diag *diag);

/* ---- report formats ----------------------------------------------------------- */

/* enum drm_i915_oa_format values perfkit decodes. */
enum pk_oa_format {
	PK_OA_FORMAT_A45_B8_C8 = 5,              /* Haswell */
	PK_OA_FORMAT_A32u40_A4u32_B8_C8 = 10,    /* Gen8 - Gen12 */
	PK_OA_FORMAT_OAR_A32u40_A4u32_B8_C8 = 11,/* render-context reports, same layout */
	PK_OA_FORMAT_A24u40_A14u32_B8_C8 = 12,   /* DG2, MTL */
};

#define PK_OA_MAX_VALUES 64   /* accumulator entries, as IGT's u64 deltas[64] */

/* Where each counter class starts in the accumulator (gpu.md 3.4). */
struct pk_oa_format_info {
	int format;               /* enum pk_oa_format */
	const char *name;         /* "A32u40_A4u32_B8_C8" */
	uint32_t report_size;     /* bytes, 256 for all */
	uint32_t n_values;        /* accumulator entries used */
	int gpu_time;             /* offset of GPU_TIME */
	int gpu_clock;            /* offset of GPU_CLOCK, -1 when the format has none (HSW) */
	int a, b, c, perfcnt;     /* offsets of A0, B0, C0, PERFCNT0 */
	uint32_t n_a, n_b, n_c;   /* counters of each class */
	uint64_t u40_mask;        /* bit i set: entry i is a 40-bit counter */
};

/* The layout of @format, or NULL when perfkit does not decode it. */
PK_API const struct pk_oa_format_info *pk_oa_format_info(int format);

/* Report reasons, as bits of (dw0 >> 19) (gpu.md 3.2). */
enum pk_oa_reason {
	PK_OA_REASON_TIMER = 1u << 0,
	PK_OA_REASON_TRIGGER1 = 1u << 1,
	PK_OA_REASON_TRIGGER2 = 1u << 2,
	PK_OA_REASON_CTX_SWITCH = 1u << 3,
	PK_OA_REASON_GO_TRANSITION = 1u << 4,
	PK_OA_REASON_CLOCK_RATIO_CHANGE = 1u << 5,
	PK_OA_REASON_MMIO_TRIGGER = 1u << 6,
};

/* "timer", "trigger1", "trigger2", "context switch", "go transition",
 * "clock ratio change", "mmio trigger"; "unknown" for 0 or several bits. */
PK_API const char *pk_oa_reason_name(uint32_t reason);

#define PK_OA_CTX_INVALID 0xffffffffu

/* How to read the reports of one device. */
struct pk_oa_decoder {
	const struct pk_oa_format_info *fmt;
	int graphics_ver;         /* 7 = HSW, 8 = BDW, 9..11, 12 = TGL/DG2/MTL */
	unsigned ts_shift;        /* report timestamp = dw1 >> ts_shift (1 on DG2/MTL) */
	uint32_t ts_mask;         /* bits of that timestamp usable for comparisons */
	uint32_t reason_mask;     /* reason bits the generation defines */
};

/* Fill @d for @format on a @graphics_ver device with @ts_shift. 0 or -EINVAL (unknown format). */
PK_API int pk_oa_decoder_init(struct pk_oa_decoder *d, int format, int graphics_ver,
			      unsigned ts_shift);

/* One decoded report. */
struct pk_oa_report {
	uint32_t reason;          /* lowest set reason bit (PK_OA_REASON_*), 0 if none; TIMER on Gen7 */
	uint32_t ctx_id;          /* dw2 when valid, else PK_OA_CTX_INVALID */
	bool ctx_valid;           /* the generation's context-valid rule (gpu.md 3.3) */
	uint32_t raw_timestamp;   /* dw1 as written */
	uint32_t timestamp;       /* dw1 >> ts_shift */
	uint32_t n_values;
	uint64_t v[PK_OA_MAX_VALUES]; /* absolute values in accumulator layout; v[gpu_time] = timestamp */
};

/* Decode one report of d->fmt->report_size bytes (the caller checked the length). */
PK_API void pk_oa_report_decode(const struct pk_oa_decoder *d, const void *report,
				struct pk_oa_report *out);

/* Only the header fields (reason, context, timestamps), much cheaper. */
PK_API void pk_oa_report_header(const struct pk_oa_decoder *d, const void *report,
				struct pk_oa_report *out);

/* ---- accumulation --------------------------------------------------------------- */

/*
 * Add the deltas from report @r0 to report @r1 (raw bytes) into
 * @deltas[0 .. fmt->n_values): u32 counters modulo 2^32, u40 counters modulo
 * 2^40, the timestamp as (u32)(dw1' - dw1) >> ts_shift. One wrap at most
 * between the two reports is assumed, so accumulate neighbours.
 */
PK_API void pk_oa_accumulate(const struct pk_oa_decoder *d, const void *r0, const void *r1,
			     uint64_t *deltas);

/* The same for two decoded reports. */
PK_API void pk_oa_accumulate_decoded(const struct pk_oa_decoder *d, const struct pk_oa_report *r0,
				     const struct pk_oa_report *r1, uint64_t *deltas);

/*
 * Sum the deltas of the consecutive pairs of @n reports laid out @stride
 * bytes apart (report i at reports + i * stride) into @deltas.
 */
PK_API void pk_oa_accumulate_run(const struct pk_oa_decoder *d, const void *reports, size_t stride,
				 size_t n, uint64_t *deltas);

/* ---- device knowledge ------------------------------------------------------------ */

struct pk_oa_platform {
	const char *name;         /* as IGT prints it: "broadwell", "skylake", "dg2" */
	const char *metrics;      /* the metric XML's name: "bdw", "sklgt2", "acmgt3" */
	int graphics_ver;
	int oa_format;            /* the format IGT's metric sets use */
	uint64_t timestamp_frequency; /* Hz, a default when the device does not say */
	unsigned ts_shift;        /* report timestamps shifted left this much: the decoder masks to match */
	unsigned eu_threads;      /* $EuThreadsCount */
};

/* The platform of PCI device @pci_id, or NULL when unknown. */
PK_API const struct pk_oa_platform *pk_oa_platform_by_pci_id(uint32_t pci_id);

/* Fill @d for platform @p (format 0: the platform's default). 0 or -EINVAL. */
PK_API int pk_oa_decoder_for_platform(struct pk_oa_decoder *d, const struct pk_oa_platform *p,
				      int format);

/* ---- IGT recordings --------------------------------------------------------------- */

/* DEVICE_INFO (gpu.md 1.3). */
struct pk_oa_device_info {
	uint64_t timestamp_frequency;  /* Hz */
	uint32_t device_id;            /* PCI id */
	uint32_t revision;
	uint32_t gt_min_frequency;     /* Hz */
	uint32_t gt_max_frequency;     /* Hz */
	uint32_t engine_class, engine_instance;
	uint32_t oa_format;
	char metric_set_name[257];     /* NUL-terminated copy of the 256-byte field */
	char metric_set_uuid[41];      /* NUL-terminated copy of the 40-byte field */
};

#define PK_OA_TOPOLOGY_MAX_DATA 4096

/* DEVICE_TOPOLOGY (gpu.md 1.5) with IGT's derived variables. */
struct pk_oa_topology {
	uint16_t flags, max_slices, max_subslices, max_eus_per_subslice;
	uint16_t subslice_offset, subslice_stride, eu_offset, eu_stride;
	uint32_t data_len;
	uint8_t data[PK_OA_TOPOLOGY_MAX_DATA];
	/* derived by pk_oa_topology_derive() */
	uint64_t slice_mask;
	uint64_t subslice_mask;        /* bit s * bits_per_subslice + ss */
	uint32_t n_eus, n_eu_slices, n_eu_sub_slices;
};

/*
 * Compute the derived fields of @t for a @graphics_ver device
 * (bits_per_subslice 3 before Gen11, else 8). Bits that fall outside the data
 * or past 64 mask bits are ignored, as are slices, subslices and EUs beyond
 * the 64th of each. Returns 0.
 */
PK_API int pk_oa_topology_derive(struct pk_oa_topology *t, int graphics_ver);

/*
 * A full topology of @slices slices, each with @subslices subslices of @eus
 * EUs (every bit set), in the kernel query's layout (masks rounded up to
 * whole bytes); derived fields left for pk_oa_topology_derive(). -EINVAL for
 * a count of 0 or above 64, -E2BIG past PK_OA_TOPOLOGY_MAX_DATA bytes.
 */
PK_API int pk_oa_topology_uniform(struct pk_oa_topology *t, unsigned slices, unsigned subslices,
				  unsigned eus);

/* Present in a slice/subslice/EU: bit tests on the raw data (false outside it). */
PK_API bool pk_oa_topology_has_slice(const struct pk_oa_topology *t, unsigned s);
PK_API bool pk_oa_topology_has_subslice(const struct pk_oa_topology *t, unsigned s, unsigned ss);
PK_API bool pk_oa_topology_has_eu(const struct pk_oa_topology *t, unsigned s, unsigned ss,
				  unsigned eu);

struct pk_oa_correlation {
	uint64_t cpu_ns;          /* CLOCK_MONOTONIC unless the recorder was told otherwise */
	uint64_t gpu_ts;          /* full render-ring TIMESTAMP (36 bits) */
};

struct pk_oa_recording;

/*
 * Read an IGT recording from @len bytes at @data (copied: the caller may
 * free them). @name names the input in messages. Record order is free; the
 * last DEVICE_INFO and TOPOLOGY win; VERSION may be absent, but a VERSION
 * other than 1 is refused ("unsupported recording version 2 (expected 1)",
 * -EPROTO). Missing DEVICE_INFO or TOPOLOGY: -ENODATA, "missing device or
 * topology info". Unknown OA format or a SAMPLE shorter than its report:
 * -EBADMSG with the offset. Unknown record types are skipped. A PCI id
 * perfkit does not know: -ENOTSUP, "recording made on an unsupported device".
 */
PK_API int pk_oa_recording_read_mem(const void *data, size_t len, const char *name,
				    struct pk_oa_recording **out, struct pk_diag *diag);

/* The same from a file. */
PK_API int pk_oa_recording_read_file(const char *path, struct pk_oa_recording **out,
				     struct pk_diag *diag);

PK_API void pk_oa_recording_free(struct pk_oa_recording *rec);

/*
 * A bare kernel stream: the bytes read() returned from an i915 perf fd
 * (SAMPLE, REPORT_LOST and BUFFER_LOST records) with nothing to say which
 * device made them, so the caller says it. @dev->info.device_id is needed;
 * a timestamp_frequency or oa_format of 0 is the platform's; the metric set
 * name and uuid may be empty (the set is then chosen by the caller). A
 * topology with data_len 0 leaves the device variables taken from it at 0.
 * There are no correlation points, so CPU times are not known (cpu_valid
 * false). An IGT record in the stream (VERSION, DEVICE_INFO, TOPOLOGY,
 * TIMESTAMP_CORRELATION) is refused with its offset: the file is an IGT
 * recording, read with pk_oa_recording_read_*. The result is a recording
 * like any other (pk_oa_recording_is_stream() true).
 */
struct pk_oa_stream_device {
	struct pk_oa_device_info info;
	struct pk_oa_topology topo;
};

PK_API int pk_oa_stream_read_mem(const void *data, size_t len, const char *name,
				 const struct pk_oa_stream_device *dev, struct pk_oa_recording **out,
				 struct pk_diag *diag);
PK_API int pk_oa_stream_read_file(const char *path, const struct pk_oa_stream_device *dev,
				  struct pk_oa_recording **out, struct pk_diag *diag);

/* True when @rec was read from a bare kernel stream. */
PK_API bool pk_oa_recording_is_stream(const struct pk_oa_recording *rec);

/* 0 when the recording had no VERSION record. */
PK_API uint32_t pk_oa_recording_version(const struct pk_oa_recording *rec);
PK_API const struct pk_oa_device_info *pk_oa_recording_device(const struct pk_oa_recording *rec);
PK_API const struct pk_oa_topology *pk_oa_recording_topology(const struct pk_oa_recording *rec);
PK_API const struct pk_oa_platform *pk_oa_recording_platform(const struct pk_oa_recording *rec);
PK_API const struct pk_oa_decoder *pk_oa_recording_decoder(const struct pk_oa_recording *rec);
PK_API int pk_oa_recording_graphics_ver(const struct pk_oa_recording *rec);
/* DEVICE_INFO's timestamp frequency, or the platform's default when it is 0. */
PK_API uint64_t pk_oa_recording_timestamp_frequency(const struct pk_oa_recording *rec);

PK_API size_t pk_oa_recording_n_reports(const struct pk_oa_recording *rec);
/*
 * Raw bytes of report @i (fmt->report_size of them), in file order. They
 * point into the recording itself (a file is mapped, not copied), valid
 * until pk_oa_recording_free().
 */
PK_API const uint8_t *pk_oa_recording_report(const struct pk_oa_recording *rec, size_t i);
/*
 * Add the deltas of every consecutive pair of reports from @first to @last
 * into @deltas (pk_oa_accumulate() of each pair; runs of evenly spaced
 * reports go through pk_oa_accumulate_run()).
 */
PK_API void pk_oa_recording_accumulate(const struct pk_oa_recording *rec, size_t first, size_t last,
				       uint64_t *deltas);

/* Correlation points in file order. */
PK_API const struct pk_oa_correlation *pk_oa_recording_correlations(const struct pk_oa_recording *rec,
								   size_t *n);

/* OA_REPORT_LOST and OA_BUFFER_LOST records seen. */
PK_API uint64_t pk_oa_recording_reports_lost(const struct pk_oa_recording *rec);
PK_API uint64_t pk_oa_recording_buffers_lost(const struct pk_oa_recording *rec);
/*
 * Records of types perfkit does not know, skipped (as i915-perf-reader skips
 * them): how many, and the first one's type and byte offset in the file
 * (both 0 when there is none).
 */
PK_API uint64_t pk_oa_recording_unknown_records(const struct pk_oa_recording *rec, uint32_t *first_type,
						uint64_t *first_offset);

/* ---- writing ------------------------------------------------------------------------ */

/* Append one record each to @b. 0, -EINVAL (too large for a u16 size) or -ENOMEM. */
PK_API int pk_oa_write_version(struct pk_buf *b, uint32_t version);
PK_API int pk_oa_write_device_info(struct pk_buf *b, const struct pk_oa_device_info *di);
PK_API int pk_oa_write_topology(struct pk_buf *b, const struct pk_oa_topology *t);
PK_API int pk_oa_write_correlation(struct pk_buf *b, uint64_t cpu_ns, uint64_t gpu_ts);
PK_API int pk_oa_write_sample(struct pk_buf *b, const void *report, size_t size);
PK_API int pk_oa_write_lost(struct pk_buf *b, uint32_t type);

/*
 * Write @rec as IGT's recorder would: VERSION 1, DEVICE_INFO, TOPOLOGY, the
 * first correlation point, the reports (with the LOST records where they
 * were), then the other correlation points.
 */
PK_API int pk_oa_recording_write(const struct pk_oa_recording *rec, struct pk_buf *b);

/* ---- timelines ---------------------------------------------------------------------- */

/*
 * One timeline item as IGT's i915-perf-reader prints it: the run of reports
 * of one context. It starts at its first report and ends at the first
 * report of the next segment (the last segment at the last report); its
 * counters (pk_oa_timeline_deltas) sum the consecutive pairs over that
 * range. Every segment holds a pair: when the last report starts a context
 * of its own it makes no segment (as in the reader; a one-report recording
 * has none), and it is then only the end of the segment before.
 */
struct pk_oa_segment {
	uint32_t ctx_id;          /* PK_OA_CTX_INVALID: idle (no valid context) */
	size_t first, end;        /* report indices: the range is [first, end] */
	size_t n_reports;         /* reports of this context: end - first, 1 + that for the last
				     unless the last report starts a context of its own */
	uint32_t gpu_ts_start, gpu_ts_end;  /* report timestamps (shifted) */
	uint64_t cpu_ns_start, cpu_ns_end;
	size_t stored;            /* private: its counters in the timeline's sums[], or SIZE_MAX */
};

/* The recording's summary, as the reader's header lines. */
struct pk_oa_timeline {
	size_t n_reports;
	size_t n_segments;
	struct pk_oa_segment *segments;
	size_t n_correlations;
	uint64_t corr_cpu_first, corr_cpu_last;
	uint64_t corr_gpu_first, corr_gpu_last;        /* 64-bit values */
	uint32_t ts_first, ts_last;                    /* first and last report, shifted */
	uint32_t raw_ts_first, raw_ts_last;            /* dw1 as written */
	bool cpu_valid;           /* false without correlation points: cpu_ns_* are 0 */
	/* private, for pk_oa_timeline_deltas: the counters of the segments that keep theirs */
	uint64_t (*sums)[PK_OA_MAX_VALUES];
	size_t n_sums;
};

/*
 * Build the timelines of @rec into @tl (release with pk_oa_timeline_release).
 *
 * CPU times: a report timestamp is placed in the window of 2^32 ticks
 * (2^31 on DG2/MTL: ts_mask + 1) of the correlation chunk whose masked range
 * contains it, as IGT does; outside every chunk, in the window that puts it
 * nearest the correlated range. Then it is interpolated linearly between the
 * bracketing correlation points, and extrapolated from the first two points
 * before the first one and - where IGT asserts - from the last two after the
 * last one. One correlation point: slope from the device's timestamp
 * frequency (IGT asserts). None: cpu_valid false and all CPU times 0.
 * No reports: zero segments (IGT crashes); one report: zero segments, as
 * in IGT. 0, -ENOMEM.
 */
PK_API int pk_oa_timeline_build(const struct pk_oa_recording *rec, struct pk_oa_timeline *tl,
				struct pk_diag *diag);
PK_API void pk_oa_timeline_release(struct pk_oa_timeline *tl);

/*
 * The counters of segment @i of @tl, a timeline of @rec, into @deltas
 * (PK_OA_MAX_VALUES, overwritten): its consecutive report pairs summed, as
 * pk_oa_recording_accumulate(rec, first, end) sums them. Segments of 16
 * pairs and more keep theirs, summed when the timeline was built; shorter
 * ones are summed now (at most 15 pairs), so that a recording whose context
 * changes at every report does not need 512 bytes per report. Safe from
 * several threads. -ERANGE for @i out of range, -EINVAL when @tl is not a
 * timeline of @rec.
 */
PK_API int pk_oa_timeline_deltas(const struct pk_oa_timeline *tl, const struct pk_oa_recording *rec,
				 size_t i, uint64_t *deltas);

/*
 * Read the recording at @path (a bare kernel stream of device @sd, else an
 * IGT recording: NULL) and build its timeline: pk_oa_recording_read_file
 * (or pk_oa_stream_read_file) and pk_oa_timeline_build in one, with the
 * same results and errors. Long recordings are faster this way: the
 * segments are built on a second thread while the reports are read, when
 * the device comes before the first report (as IGT and perfkit write it).
 * Release both on success; nothing to release on failure.
 */
PK_API int pk_oa_timeline_read_file(const char *path, const struct pk_oa_stream_device *sd,
				    struct pk_oa_recording **out, struct pk_oa_timeline *tl,
				    struct pk_diag *diag);

/* CPU time of report timestamp @ts (shifted, 32 bits) per the rules above. */
PK_API uint64_t pk_oa_recording_cpu_time(const struct pk_oa_recording *rec, uint32_t ts);

/* ==== metric sets ========================================================================= */

/* ---- metric XML ------------------------------------------------------------- */

enum pk_oa_data_type {
	PK_OA_UINT64,   /* data_type="uint64" */
	PK_OA_FLOAT,    /* data_type="float", computed as double */
};

/* One <counter>. Strings are owned by the pk_oa_metrics; absent attributes are NULL. */
struct pk_oa_counter_info {
	const char *name;            /* "GPU Busy" */
	const char *symbol_name;     /* "GpuBusy", what $GpuBusy refers to */
	const char *underscore_name; /* "gpu_busy" */
	const char *description;
	const char *units;           /* percent, ns, hz, events, ... */
	const char *semantic_type;   /* event, duration, throughput, ratio */
	const char *equation;        /* RPN, always present */
	const char *max_equation;    /* NULL, "100" or an RPN equation */
	const char *availability;    /* RPN predicate, NULL if always available */
	enum pk_oa_data_type data_type;
	unsigned line;               /* line of the element in the XML file */
};

/* One <set>. */
struct pk_oa_set_info {
	const char *name;            /* "Render Metrics Basic set" */
	const char *chipset;         /* "BDW" */
	const char *symbol_name;     /* "RenderBasic", DEVICE_INFO's metric_set_name */
	const char *underscore_name; /* "render_basic" */
	const char *hw_config_guid;  /* "b541bd57-0e0f-4154-b4c0-5858010a2bf7" */
	const char *oa_format;       /* NULL unless the set names one (MTL media) */
	const char *file;            /* the file it was loaded from */
	unsigned line;
	size_t n_counters;
	const struct pk_oa_counter_info *counters;  /* in file order */
	size_t n_register_configs;   /* <register_config> elements (not kept) */
};

/* A loaded metric file. */
struct pk_oa_metrics;

/*
 * Load the metric file @path. Errors: -ENOENT/-EACCES/... when it cannot be
 * read, -EBADMSG when it is not well-formed XML or lacks a required attribute
 * (symbol_name and name of a set; symbol_name, equation and a data_type of
 * uint64 or float of a counter), with the file as @diag's subject and the
 * message starting "line N: ". Equations are not compiled here.
 */
PK_API int pk_oa_metrics_load(const char *path, struct pk_oa_metrics **out,
			      struct pk_diag *diag);

/* Same from memory; @name is used in messages and as each set's file. */
PK_API int pk_oa_metrics_load_buf(const void *buf, size_t len, const char *name,
				  struct pk_oa_metrics **out, struct pk_diag *diag);

/*
 * Load what pk_oa_metrics_find_set(@key) needs from the metric file @path:
 * the result holds the set it would find in the whole file, with the same
 * fields and lines, and may hold only that set and others whose start tag
 * mentions @key. Where the file splits safely into sets (no DOCTYPE, UTF-8,
 * no reference in a set's start tag), only those sets are parsed and the
 * rest of the file is not checked; otherwise, or when nothing matches or
 * those sets do not load, the whole file is loaded as pk_oa_metrics_load()
 * does, with its errors. A NULL or empty @key loads the whole file.
 */
PK_API int pk_oa_metrics_load_for(const char *path, const char *key,
				  struct pk_oa_metrics **out, struct pk_diag *diag);
PK_API int pk_oa_metrics_load_buf_for(const void *buf, size_t len, const char *name,
				      const char *key, struct pk_oa_metrics **out,
				      struct pk_diag *diag);

/*
 * Start loading what reading a metric file needs (libxml2, opened at its
 * first use) on a thread of its own, so that it overlaps the caller's other
 * work; the first load waits for it. Only the first call does anything; a
 * thread that cannot be made leaves the loading to the first load.
 */
PK_API void pk_oa_metrics_prepare(void);

PK_API void pk_oa_metrics_free(struct pk_oa_metrics *m);

PK_API size_t pk_oa_metrics_n_sets(const struct pk_oa_metrics *m);
/* Set @i in file order, NULL when out of range. */
PK_API const struct pk_oa_set_info *pk_oa_metrics_set(const struct pk_oa_metrics *m, size_t i);

/*
 * The set whose symbol_name is @key (exact), else whose hw_config_guid is
 * @key (case-insensitive), else whose name is @key, else whose symbol_name
 * is @key ignoring case (as i915-perf-recorder -m); NULL if none.
 */
PK_API const struct pk_oa_set_info *pk_oa_metrics_find_set(const struct pk_oa_metrics *m,
							   const char *key);

/* Index of the counter with symbol name @sym in @set, -1 if none. */
PK_API int pk_oa_set_counter_index(const struct pk_oa_set_info *set, const char *sym);

/*
 * After a lookup failed: "did you mean 'X'?" as @diag's hint, X the set's
 * symbol name (pk_oa_metrics_suggest_set) or the counter's (the @len bytes
 * at @name, pk_oa_set_suggest_counter) closest to what was asked, when one
 * is close (a third of its length, ignoring case).
 */
PK_API void pk_oa_metrics_suggest_set(const struct pk_oa_metrics *m, const char *key,
				      struct pk_diag *diag);
PK_API void pk_oa_set_suggest_counter(const struct pk_oa_set_info *set, const char *name,
				      size_t len, struct pk_diag *diag);

/*
 * The metric file of @platform in directory @dir: "<dir>/oa-<platform>.xml"
 * with the platform lowercased ("BDW" and "bdw" give oa-bdw.xml, "sklgt2"
 * oa-sklgt2.xml). Written to @path (size @sz). -ENOENT with a message naming
 * the directory when there is none, -ENAMETOOLONG, -EINVAL for a platform
 * that is empty or holds '/' or '.'.
 */
PK_API int pk_oa_metrics_find_platform(const char *dir, const char *platform,
				       char *path, size_t sz, struct pk_diag *diag);

/*
 * The metric file to use for @platform (its metric-file name, e.g. "bdw"):
 * @file when given; else the platform's file in @dir; else in
 * pk_oa_metrics_default(): $PERFKIT_OA_METRICS (a directory, or a file used
 * as is), else the installed directory. Written to @path (size @sz). 0, or
 * the -errno of pk_oa_metrics_find_platform() with @diag set.
 */
PK_API int pk_oa_metrics_path(const char *file, const char *dir, const char *platform, char *path,
			      size_t sz, struct pk_diag *diag);

/* Where metric files are looked for when neither a file nor a directory is given. */
enum pk_oa_metrics_source {
	PK_OA_METRICS_ENV_FILE,    /* $PERFKIT_OA_METRICS, a file */
	PK_OA_METRICS_ENV_DIR,     /* $PERFKIT_OA_METRICS, not a file: a directory */
	/*
	 * the directory installed with the running program, PREFIX/share/perfkit/oa
	 * for PREFIX/bin/perfkit (make install puts Intel's files there), when it
	 * exists; else PK_OA_METRICS_DIR
	 */
	PK_OA_METRICS_INSTALLED,
};

/* The place of pk_oa_metrics_source, written to @path (size @sz, truncated), and which it is. */
PK_API enum pk_oa_metrics_source pk_oa_metrics_default(char *path, size_t sz);

/* ---- device variables ------------------------------------------------------- */

/* Values of the $ variables that describe the device (IGT's names in comments). */
struct pk_oa_devvars {
	uint64_t eu_cores_total;      /* $EuCoresTotalCount: EUs present */
	uint64_t eu_slices_total;     /* $EuSlicesTotalCount: popcount(slice_mask) */
	uint64_t eu_subslices_total;  /* $EuSubslicesTotalCount: popcount(subslice_mask) */
	uint64_t eu_threads_count;    /* $EuThreadsCount: 7, 8 on DG2 and MTL */
	uint64_t slice_mask;          /* $SliceMask */
	uint64_t subslice_mask;       /* $SubsliceMask, $DualSubsliceMask */
	uint64_t timestamp_frequency; /* $GpuTimestampFrequency, Hz */
	uint64_t gt_min_freq;         /* $GpuMinFrequency, Hz */
	uint64_t gt_max_freq;         /* $GpuMaxFrequency, Hz */
	uint64_t revision;            /* $SkuRevisionId */
	uint64_t query_mode;          /* $QueryMode: 0 for streams and recordings */
};

/*
 * Fill @v from a topology whose derived fields pk_oa_topology_derive() has
 * computed, a DEVICE_INFO (timestamp frequency, min/max GT frequency,
 * revision) and the platform (eu_threads_count: 7, 8 on DG2 and MTL; 7 when
 * @p is NULL). @t or @di may be NULL: their fields are then 0.
 */
PK_API void pk_oa_devvars_init(struct pk_oa_devvars *v, const struct pk_oa_topology *t,
			       const struct pk_oa_device_info *di, const struct pk_oa_platform *p);

/* The same for a recording (its timestamp frequency: the platform's when DEVICE_INFO has 0). */
PK_API void pk_oa_devvars_from_recording(struct pk_oa_devvars *v, const struct pk_oa_recording *rec);

/* The counter namespaces of READ in the equations: deltas[off + n], the
 * offsets being pk_oa_format_info()'s a, b, c, gpu_time, gpu_clock, perfcnt. */
enum pk_oa_ns {
	PK_OA_NS_A,
	PK_OA_NS_B,
	PK_OA_NS_C,
	PK_OA_NS_GPU_TIME,
	PK_OA_NS_GPU_CLOCK,
	PK_OA_NS_PERFCNT,
	PK_OA_NS_COUNT
};

/* ---- values ----------------------------------------------------------------- */

struct pk_oa_value {
	enum pk_oa_data_type type;
	union {
		uint64_t u;   /* PK_OA_UINT64 */
		double f;     /* PK_OA_FLOAT */
	};
};

/* @v as a double (uint64 converted). */
static inline double pk_oa_value_as_double(const struct pk_oa_value *v)
{
	return v->type == PK_OA_FLOAT ? v->f : (double)v->u;
}

/* ---- a compiled metric set -------------------------------------------------- */

struct pk_oa_eval;

/*
 * Compile every equation, max_equation and availability predicate of @set
 * for the device described by @vars and deltas accumulated from reports of
 * format @fmt (pk_oa_format_info(); NULL: every READ gives 0). Fails
 * with -EINVAL and a message naming the set, the counter, which expression,
 * the token and its position (1-based) for: an unknown token, an unknown $
 * variable, an operator without enough operands, values left over, a READ
 * whose counter number is not a literal or whose first operand is not a
 * namespace, a namespace used as a value, an expression nested deeper than
 * 64; with -ELOOP when counters reference each other in a cycle. @set must
 * outlive the result.
 */
PK_API int pk_oa_eval_new(const struct pk_oa_set_info *set, const struct pk_oa_devvars *vars,
			  const struct pk_oa_format_info *fmt, struct pk_oa_eval **out,
			  struct pk_diag *diag);
PK_API void pk_oa_eval_free(struct pk_oa_eval *ev);

PK_API const struct pk_oa_set_info *pk_oa_eval_set(const struct pk_oa_eval *ev);

/*
 * Whether counter @i (index in the set) is available on the device: its
 * predicate is non-zero. Unavailable counters are still evaluated (others may
 * reference them, as in IGT) but a reader leaves them out.
 */
PK_API bool pk_oa_eval_available(const struct pk_oa_eval *ev, size_t i);
/* How many counters are available. */
PK_API size_t pk_oa_eval_n_available(const struct pk_oa_eval *ev);

/*
 * Evaluate every counter on @deltas (PK_OA_MAX_VALUES entries) into @values
 * (one per counter of the set, in set order). A READ beyond the deltas or of
 * a namespace the format lacks (GPU_CLOCK on Haswell) gives 0.
 */
PK_API void pk_oa_eval_run(const struct pk_oa_eval *ev, const uint64_t *deltas,
			   struct pk_oa_value *values);

/* How many delta arrays pk_oa_eval_run_batch() evaluates in one call. */
#define PK_OA_EVAL_BATCH 64

/*
 * pk_oa_eval_run() on PK_OA_EVAL_BATCH delta arrays at once, with the same
 * values bit for bit, about three times faster per array: counter i of
 * deltas[j] into values[i * PK_OA_EVAL_BATCH + j] (@values: PK_OA_EVAL_BATCH
 * per counter of the set). Every array is evaluated: a caller with fewer
 * fills the rest with anything (zeros) and ignores their values.
 */
PK_API void pk_oa_eval_run_batch(const struct pk_oa_eval *ev,
				 const uint64_t (*deltas)[PK_OA_MAX_VALUES], struct pk_oa_value *values);

/*
 * The maximum of counter @i (its max_equation) for @deltas and the @values
 * pk_oa_eval_run() gave for them. -ENOENT when the counter has none.
 */
PK_API int pk_oa_eval_max(const struct pk_oa_eval *ev, size_t i, const uint64_t *deltas,
			  const struct pk_oa_value *values, struct pk_oa_value *out);

/* ---- one expression --------------------------------------------------------- */

struct pk_oa_expr;

/* Everything an expression may read. Pointers may be NULL when not used. */
struct pk_oa_env {
	const uint64_t *deltas;
	const struct pk_oa_format_info *fmt;  /* where READ reads; NULL: READ gives 0 */
	const struct pk_oa_devvars *vars;     /* NULL: variables are 0 */
	const struct pk_oa_value *counters;   /* values of the names given at compile time */
};

/*
 * Compile @text. $Name resolves to a device variable first (as in IGT),
 * else to counters[i] when @counter_names[i] is Name. Errors as for
 * pk_oa_eval_new(), with "equation" as the subject.
 */
PK_API int pk_oa_expr_compile(const char *text, const char *const *counter_names,
			      size_t n_counters, struct pk_oa_expr **out, struct pk_diag *diag);
PK_API void pk_oa_expr_free(struct pk_oa_expr *e);

/* Evaluate @e in @env; the result converted to @type. */
PK_API struct pk_oa_value pk_oa_expr_eval(const struct pk_oa_expr *e, const struct pk_oa_env *env,
					  enum pk_oa_data_type type);

/* ==== reports ============================================================================= */

/*
 * A recording read through a metric set, as i915-perf-reader -c prints it
 * (lib/oa/oareport.c, lib/oa/oareport_print.c).
 */

/*
 * Where metric files are looked for when neither a file nor a directory is
 * given, $PERFKIT_OA_METRICS is unset and the running program has none
 * installed beside it (pk_oa_metrics_default).
 */
#define PK_OA_METRICS_DIR "/usr/share/perfkit/oa"
#define PK_OA_METRICS_ENV "PERFKIT_OA_METRICS"

struct pk_oa_summary_opts {
	size_t sz;                /* sizeof(struct pk_oa_summary_opts) */
	const char *metrics_file; /* an oa-<platform>.xml file */
	/*
	 * Without metrics_file: the directory searched for the platform's file
	 * (pk_oa_metrics_find_platform); NULL: $PERFKIT_OA_METRICS (a directory
	 * or a file), else the installed directory (pk_oa_metrics_default).
	 */
	const char *metrics_dir;
	/*
	 * NULL or "all": every available counter, sorted by symbol name as IGT
	 * prints them; "none": no metric set at all (segments and timestamps
	 * only); else symbol names separated by commas, printed in that order.
	 */
	const char *counters;
	const char *set;          /* metric set to use; NULL: DEVICE_INFO's metric_set_name */
	/*
	 * The recording's timeline, built already (pk_oa_timeline_read_file):
	 * moved into the summary (*timeline is emptied, even on failure);
	 * NULL: pk_oa_summary_init builds it.
	 */
	struct pk_oa_timeline *timeline;
};

struct pk_oa_summary {
	const struct pk_oa_recording *rec;
	const struct pk_oa_platform *platform;  /* NULL: a PCI id perfkit does not know */
	struct pk_oa_timeline tl;
	struct pk_oa_metrics *metrics;          /* NULL with counters "none" */
	char *metrics_path;                     /* the file it was loaded from */
	const struct pk_oa_set_info *set;       /* NULL with counters "none" */
	struct pk_oa_eval *eval;
	bool uuid_mismatch;                     /* DEVICE_INFO's uuid is not the set's GUID */
	size_t n_sel;
	uint32_t *sel;                          /* counters to print: indices in set */
	uint64_t lost;                          /* REPORT_LOST + BUFFER_LOST records */
};

#define PK_OA_SUMMARY_OPTS(name, ...) \
	struct pk_oa_summary_opts name = { .sz = sizeof(struct pk_oa_summary_opts), __VA_ARGS__ }

/*
 * Build the timelines of @rec and load and compile its metric set (the
 * segments are evaluated when asked: pk_oa_summary_values). Errors (release
 * not needed): -ENOENT "metric set 'X' not found in FILE" or "no metric file
 * for platform ...", -ENODEV for a PCI id perfkit
 * does not know without a metric file, -EINVAL "counter 'X' not in metric
 * set 'Y'", the loader's and compiler's errors, -ENOMEM. @rec must outlive @s.
 */
PK_API int pk_oa_summary_init(struct pk_oa_summary *s, const struct pk_oa_recording *rec,
			      const struct pk_oa_summary_opts *opts, struct pk_diag *diag);
PK_API void pk_oa_summary_release(struct pk_oa_summary *s);

/*
 * Values of segment @i into @values (set->n_counters of them). -ERANGE for
 * @i out of range, -ENOENT without a set.
 */
PK_API int pk_oa_summary_values(const struct pk_oa_summary *s, size_t i, struct pk_oa_value *values);

/*
 * Values between report @i and report @i + 1 (i + 1 < n_reports) into
 * @values (set->n_counters), the deltas into @deltas (PK_OA_MAX_VALUES,
 * may be NULL). -ERANGE for @i out of range, -ENOENT without a set
 * (deltas are still filled).
 */
PK_API int pk_oa_summary_pair(const struct pk_oa_summary *s, size_t i, struct pk_oa_value *values,
			      uint64_t *deltas);

/*
 * pk_oa_summary_values() of the @n (at most PK_OA_EVAL_BATCH) segments from
 * @first, evaluated together (pk_oa_eval_run_batch()) and laid out as it
 * lays them: counter k of segment @first + j in values[k * PK_OA_EVAL_BATCH
 * + j] (@values: PK_OA_EVAL_BATCH per counter of the set). @ok[j] tells
 * whether segment @first + j has values: pk_oa_summary_values() gives
 * its error. -EINVAL for @n too large, -ENOENT without a set.
 */
PK_API int pk_oa_summary_values_batch(const struct pk_oa_summary *s, size_t first, size_t n,
				      struct pk_oa_value *values, bool *ok);
/* The same for report pairs @first, @first + 1 to @first + n - 1, @first + n (pk_oa_summary_pair()). */
PK_API int pk_oa_summary_pairs_batch(const struct pk_oa_summary *s, size_t first, size_t n,
				     struct pk_oa_value *values, bool *ok);

/*
 * Print @s to @f: as i915-perf-reader 1.27.1 -c prints (header lines, then
 * per segment "Time: CPU=... GPU=...", "hw_id=..." and "   Name: value",
 * floats with %f) plus a "Lost: ..." line when records were lost; or as
 * JSON {device, metric_set, reports, lost, segments: [{ctx_id, gpu_ts_start,
 * gpu_ts_end, cpu_ns_start, cpu_ns_end, reports, counters: {name: value}}]}.
 * @per_report adds each pair of consecutive reports (text: " reportN =
 * REASON" blocks as -r; JSON: a "per_report" array in each segment).
 * 0, -EIO (errno of the failed write in @diag) or -ENOMEM.
 */
PK_API int pk_oa_summary_print(const struct pk_oa_summary *s, FILE *f, bool per_report,
			       struct pk_diag *diag);
PK_API int pk_oa_summary_print_json(const struct pk_oa_summary *s, FILE *f, bool per_report,
				    struct pk_diag *diag);

/*
 * List the counters @s selected (with counters "all": every one available
 * on the device, by symbol name) to @f: as i915-perf-reader -c list prints
 * them ("Available counters:", then "Symbol:<pad> Name" padded to the
 * longest symbol), or as JSON {metric_set, counters: [{symbol_name, name,
 * description, units, semantic_type, data_type}]}. 0, -ENOENT without a
 * set, -ENOMEM, -EIO.
 */
PK_API int pk_oa_summary_print_counters(const struct pk_oa_summary *s, FILE *f, bool json,
					struct pk_diag *diag);

/* ==== live capture ======================================================================= */

/*
 * An i915 GPU's OA stream recorded in IGT's i915-perf recording format
 * (gpu.md 1.7), as i915-perf-recorder writes it (lib/oa/device.c,
 * lib/oa/capture.c):
 *
 *   pk_oa_dev_ops        every call that reaches the kernel (open, close,
 *                        ioctl, read, poll, sysfs reads) goes through this
 *                        table, so tests put a fake device behind it
 *   pk_oa_device_*       find the i915 card under sysfs, open its DRM node,
 *                        read PCI id, revision, OA timestamp frequency,
 *                        topology, GT frequencies, metric set ids, and the
 *                        GPU timestamp for correlation points
 *   pk_oa_exponent_*     the OA sampling exponent for a period
 *   pk_oa_capture_run    open the stream, read it until told to stop, write
 *                        the recording
 */

/* ---- the kernel, behind a table ------------------------------------------------ */

/*
 * The operations the capture performs on the device. Each returns what the
 * system call returns, but failures as -errno instead of -1. @ctx is the
 * table's own ctx field. Interrupted calls (EINTR) are retried by the
 * system table, except poll, which returns 0 then so that the caller can
 * look at its stop condition.
 */
struct pk_oa_dev_ops {
	size_t sz;                    /* sizeof(struct pk_oa_dev_ops) */
	void *ctx;
	/* open(2) of a device node: fd or -errno */
	int (*open)(void *ctx, const char *path, int flags);
	int (*close)(void *ctx, int fd);
	/* ioctl(2): >= 0 or -errno */
	int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
	/* read(2): bytes read or -errno (-EAGAIN: nothing yet on a non-blocking fd) */
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	/* wait for @fd to be readable: 1 readable, 0 timeout or EINTR, -errno */
	int (*poll)(void *ctx, int fd, int timeout_ms);
	/* the first line of a small sysfs or procfs file, without newline: 0 or -errno */
	int (*sysfs_read)(void *ctx, const char *path, char *buf, size_t sz);
};

/* The table that calls the kernel. */
PK_API const struct pk_oa_dev_ops *pk_oa_dev_ops_system(void);

/* ---- the device ----------------------------------------------------------------- */

struct pk_oa_device_opts {
	size_t sz;                    /* sizeof(struct pk_oa_device_opts) */
	const char *sys_root;         /* NULL: "/sys" (directories are listed on the real file system) */
	const char *dev_root;         /* NULL: "/dev" */
	const char *proc_root;        /* NULL: "/proc" (perf_stream_paranoid, for hints) */
	int card;                     /* -1 or less: the first i915 card; else cardN */
	const struct pk_oa_dev_ops *ops;  /* NULL: pk_oa_dev_ops_system() */
};

/* ---- the i915 cards of this machine ----------------------------------------------- */

/* A metric set the kernel offers: @sys_root/class/drm/cardN/metrics/GUID/id. */
struct pk_oa_kernel_set {
	char guid[40];
	uint64_t id;
};

struct pk_oa_card {
	int card;                            /* N of cardN */
	uint32_t pci_id;                     /* device/device; 0 when unreadable */
	const struct pk_oa_platform *platform;  /* NULL when perfkit does not know the id */
	struct pk_oa_kernel_set *sets;       /* by id */
	size_t n_sets;
};

/*
 * The i915 cards under @sys_root/class/drm (NULL: /sys), by card number,
 * each with its metric sets; none (0, *@n 0) when the directory is missing.
 * 0 or -ENOMEM. Free with pk_oa_cards_free().
 */
PK_API int pk_oa_cards_list(const char *sys_root, struct pk_oa_card **cards, size_t *n,
			    struct pk_diag *diag);
PK_API void pk_oa_cards_free(struct pk_oa_card *cards, size_t n);

/* An opened i915 device and what a recording says about it. */
struct pk_oa_device;

/*
 * Find the i915 card (a @sys_root/class/drm/cardN whose device/driver link
 * ends in "i915"), open @dev_root/dri/cardN (its renderD node when that
 * fails), read the PCI id and revision (DRM_IOCTL_I915_GETPARAM), the OA
 * timestamp frequency (I915_PARAM_OA_TIMESTAMP_FREQUENCY, else
 * I915_PARAM_CS_TIMESTAMP_FREQUENCY, else the platform's default), the
 * topology (DRM_IOCTL_I915_QUERY, DRM_I915_QUERY_TOPOLOGY_INFO) and the GT
 * frequencies (gt_min_freq_mhz, gt_max_freq_mhz; 0 when absent).
 * Errors: -ENODEV "no i915 GPU found under DIR/class/drm"; the open's
 * -errno (-EACCES with a hint); -EOPNOTSUPP when the PCI id is not a
 * platform perfkit knows; the ioctls' -errno.
 */
PK_API int pk_oa_device_open(const struct pk_oa_device_opts *opts, struct pk_oa_device **out,
			     struct pk_diag *diag);
PK_API void pk_oa_device_close(struct pk_oa_device *dev);

PK_API int pk_oa_device_card(const struct pk_oa_device *dev);
/* The node opened: "/dev/dri/card0". */
PK_API const char *pk_oa_device_node(const struct pk_oa_device *dev);
PK_API const struct pk_oa_platform *pk_oa_device_platform(const struct pk_oa_device *dev);
/*
 * DEVICE_INFO as far as the device knows it: timestamp frequency, PCI id,
 * revision, GT min/max frequency in Hz (sysfs MHz x 10^6), render engine,
 * the platform's OA format; metric set name and uuid empty.
 */
PK_API const struct pk_oa_device_info *pk_oa_device_info(const struct pk_oa_device *dev);
/* The i915 topology query's answer, derived for the platform. */
PK_API const struct pk_oa_topology *pk_oa_device_topology(const struct pk_oa_device *dev);

/*
 * The i915 id of the metric set with @guid: @sys_root/class/drm/cardN/
 * metrics/GUID/id. -ENOENT with a message naming the set and a hint when the
 * kernel does not have it.
 */
PK_API int pk_oa_device_metric_id(const struct pk_oa_device *dev, const char *guid, uint64_t *id,
				  struct pk_diag *diag);

/* The CPU clock of the correlation points (IGT's recorder -k mono, mono_raw, boot). */
enum pk_oa_cpu_clock {
	PK_OA_CLOCK_MONOTONIC,       /* CLOCK_MONOTONIC, the recorder's default */
	PK_OA_CLOCK_MONOTONIC_RAW,   /* CLOCK_MONOTONIC_RAW */
	PK_OA_CLOCK_BOOTTIME,        /* CLOCK_BOOTTIME */
};

/* The clock named @name ("mono", "monotonic", "mono_raw", "monotonic_raw", "raw", "boot", "boottime"); -1 if none. */
PK_API int pk_oa_cpu_clock_parse(const char *name);

/* @clock's time now in ns (CLOCK_MONOTONIC for an unknown one). */
PK_API uint64_t pk_oa_cpu_clock_now(enum pk_oa_cpu_clock clock);

/*
 * A correlation point: the render ring TIMESTAMP register (0x2358, read
 * with DRM_IOCTL_I915_REG_READ and I915_REG_READ_8B_WA) and the CPU clock
 * @clock, as IGT's recorder takes it: three reads, each between two
 * clock_gettime() calls; the read with the shortest CPU window wins and its
 * midpoint is the CPU time. 0 or the ioctl's -errno.
 */
PK_API int pk_oa_device_correlation(const struct pk_oa_device *dev, enum pk_oa_cpu_clock clock,
				    struct pk_oa_correlation *c, struct pk_diag *diag);

/* ---- sampling period ---------------------------------------------------------------- */

#define PK_OA_EXPONENT_MAX 31

/*
 * The OA exponent for a sampling period of @period_ns on a device whose OA
 * timestamps tick at @freq Hz. The kernel samples every 2^(e+1) ticks
 * (i915_perf.c, oa_exponent_to_ns; gpu.md 3.7); perfkit picks the e whose
 * real period 2^(e+1) ticks is closest to the one asked for (ties: the
 * shorter), within 0 .. PK_OA_EXPONENT_MAX, so the real period is as near
 * the request as the hardware allows. IGT's recorder instead picks the e
 * whose 2^e ticks is closest, whose real period is one step longer:
 * 1 ms at 12 MHz gives perfkit e = 12 (0.683 ms), IGT e = 13 (1.365 ms);
 * at 12.5 MHz perfkit e = 13 (1.311 ms), IGT e = 14 (2.621 ms).
 * -EINVAL for a zero period or frequency.
 */
PK_API int pk_oa_exponent_for_period(uint64_t period_ns, uint64_t freq);

/* The period of exponent @e in ns: 2^(e+1) * 10^9 / @freq (0 when @freq is 0). */
PK_API uint64_t pk_oa_exponent_period_ns(int e, uint64_t freq);

/* ---- capture ---------------------------------------------------------------------- */

/* The driver's shortest poll period (i915_drm.h, DRM_I915_PERF_PROP_POLL_OA_PERIOD): 100 us. */
#define PK_OA_POLL_PERIOD_MIN_NS 100000ull

/* A running capture, given to pk_oa_capture_opts.control. */
struct pk_oa_capture;

struct pk_oa_capture_opts {
	size_t sz;                     /* sizeof(struct pk_oa_capture_opts) */
	const char *metric_set_name;   /* DEVICE_INFO's name: the set's symbol name ("RenderBasic") */
	const char *metric_set_uuid;   /* its hw_config_guid; needed unless metric_id is given */
	uint64_t metric_id;            /* 0: read from sysfs by metric_set_uuid */
	int oa_format;                 /* 0: the platform's */
	int exponent;                  /* < 0: from period_ns */
	uint64_t period_ns;            /* 0 with exponent < 0: 1 ms */
	uint64_t duration_ns;          /* 0: until should_stop says so */
	uint64_t correlation_period_ns;/* 0: 1 s, as the recorder */
	size_t read_size;              /* bytes per read(); 0: 4 MiB */
	int poll_timeout_ms;           /* 0: 100 */
	/* asked after every poll; non-zero ends the capture */
	int (*should_stop)(void *ctx);
	void *stop_ctx;
	enum pk_oa_cpu_clock cpu_clock;/* of the correlation points; 0: CLOCK_MONOTONIC */
	/*
	 * How often the driver looks for new reports in the OA buffer
	 * (DRM_I915_PERF_PROP_POLL_OA_PERIOD, i915 perf revision 5 and
	 * later; at least PK_OA_POLL_PERIOD_MIN_NS); 0: the driver's default
	 * (5 ms).
	 */
	uint64_t poll_period_ns;
	/*
	 * Circular-buffer mode (i915-perf-recorder -s): keep only the most
	 * recent ring_size bytes of records in memory, and write them to the
	 * file when the capture ends (pk_oa_capture_snapshot writes them
	 * elsewhere meanwhile); until then the file holds the header and the
	 * first correlation point, a recording of no reports. 0: every record
	 * goes to the file as it comes.
	 */
	size_t ring_size;
	/*
	 * Called after every poll with the running capture, for
	 * pk_oa_capture_snapshot (perfkit oa record's command fifo);
	 * non-zero ends the capture.
	 */
	int (*control)(void *ctx, struct pk_oa_capture *cap);
	void *control_ctx;
};

/* What a capture did. */
struct pk_oa_capture_stats {
	uint64_t metric_id;
	int exponent;
	uint64_t period_ns;            /* the kernel's period for exponent */
	uint64_t reads, bytes;         /* read() calls that returned data, and their bytes */
	uint64_t reports;              /* SAMPLE records */
	uint64_t reports_lost;         /* OA_REPORT_LOST records */
	uint64_t buffers_lost;         /* OA_BUFFER_LOST records, ENOSPC included */
	uint64_t enospc;               /* reads refused with ENOSPC */
	uint64_t correlations;         /* points taken (in circular-buffer mode the ring may
	                                  have dropped some, and snapshots take one each) */
	uint64_t file_bytes;           /* the recording's size */
	uint64_t reports_written;      /* SAMPLE records in the file (reports, unless a write failed
	                                  or the ring had to drop some) */
	uint64_t reports_dropped;      /* SAMPLE records the ring dropped to make room */
	uint64_t snapshots;            /* files pk_oa_capture_snapshot wrote */
};

/*
 * Open the OA stream of @dev (DRM_IOCTL_I915_PERF_OPEN: sample OA, metric
 * set, format, exponent; close-on-exec, non-blocking) and record it to
 * @path (created, replaced) in IGT's format: VERSION, DEVICE_INFO (with the
 * metric set's name and uuid), TOPOLOGY, a CORRELATION, then every record
 * read from the stream (checked, written through pk_oa_write_sample and
 * pk_oa_write_lost, which gives the kernel's bytes back), a CORRELATION
 * each correlation period and a last one at the end. Stops after
 * @duration_ns, or when should_stop() or control() says so. The file is
 * complete whichever way it stops, also after a read error (it is then
 * returned). With ring_size, the records go to the ring instead, and the
 * file is written from it at the end (pk_oa_capture_snapshot's layout).
 * With poll_period_ns, the stream also gets DRM_I915_PERF_PROP_POLL_OA_PERIOD;
 * -EOPNOTSUPP when the kernel's i915 perf revision is below 5.
 *
 * Errors, each with a message and where known a hint: -EACCES (the
 * perf_stream_paranoid setting, or a period below the kernel's limit),
 * -EINVAL (metric set id, format or exponent refused), -ENODEV (no OA on the
 * device), -ENOENT (metric set unknown to the kernel), -EIO (the stream
 * failed while reading), the output file's -errno: when a write fails (a
 * full disk), the file is cut back to the whole records written before it,
 * the records that did not fit are dropped, the last correlation point is
 * still tried, and stats say what the file holds. ENOSPC from read() is
 * not an error: the data the kernel could not give is lost, an
 * OA_BUFFER_LOST record marks the place and stats count it; an ENOSPC
 * on every read of a row of 100 ends the capture with -ENOSPC.
 */
PK_API int pk_oa_capture_run(struct pk_oa_device *dev, const struct pk_oa_capture_opts *opts,
			     const char *path, struct pk_oa_capture_stats *stats,
			     struct pk_diag *diag);

/*
 * From a control() callback of a capture in circular-buffer mode: read what
 * the stream holds now, then write what the ring holds to @path (created,
 * replaced) as a recording IGT's reader decodes: VERSION, DEVICE_INFO,
 * TOPOLOGY, the newest correlation point the ring dropped (so that one
 * comes before every report), the ring's records, and a correlation point
 * taken now. *@reports (may be NULL): the SAMPLE records in the file.
 * -EINVAL when the capture has no ring; the file's -errno when it cannot be
 * written (it then keeps whole records only). The capture goes on either way.
 */
PK_API int pk_oa_capture_snapshot(struct pk_oa_capture *cap, const char *path, uint64_t *reports,
				  struct pk_diag *diag);

/* ---- i915-perf-control's commands ------------------------------------------------- */

/*
 * What IGT's i915-perf-control writes into a recorder's command fifo
 * (IGT tools/i915-perf/i915_perf_recorder_commands.h), host byte order:
 *
 *   offset  size      field
 *   0       4         command: 1 DUMP, 2 QUIT
 *   4       4         size of the whole command, these 8 bytes included
 *   8       size - 8  DUMP: the path to write the circular buffer to,
 *                     NUL-terminated (i915-perf-control makes it absolute)
 */
enum pk_oa_control_command {
	PK_OA_CONTROL_DUMP = 1,
	PK_OA_CONTROL_QUIT = 2,
};

#define PK_OA_CONTROL_PATH_MAX 4096
/* The longest command accepted: a DUMP with a path of PK_OA_CONTROL_PATH_MAX - 1 bytes. */
#define PK_OA_CONTROL_MAX (8 + PK_OA_CONTROL_PATH_MAX)

struct pk_oa_control_msg {
	uint32_t command;              /* also one perfkit does not know */
	char path[PK_OA_CONTROL_PATH_MAX];  /* DUMP's, NUL-terminated */
};

/*
 * The first command in @buf[0..@len): the bytes it takes (> 0) with *@msg
 * filled, 0 when @buf does not hold a whole command yet, or -EBADMSG with
 * a message and the offset in @diag when the bytes are not a command (a
 * size below 8 or above PK_OA_CONTROL_MAX, a DUMP without a path, or a
 * path without its NUL): the writer and the reader are out of step then,
 * and what is buffered should be dropped. An unknown command is returned
 * with its number, for the caller to report.
 */
PK_API int pk_oa_control_parse(const void *buf, size_t len, struct pk_oa_control_msg *msg,
			       struct pk_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
