/*
 * The in-memory IGT recording shared by the reader, the writer and the
 * timeline builder (lib/oa/recording_*.c, lib/oa/timeline.c).
 */
#ifndef PERFKIT_OA_RECORDING_INT_H
#define PERFKIT_OA_RECORDING_INT_H

#include <stdbool.h>
#include <string.h>
#include <perfkit/oa.h>

/* Neighbouring correlation points sharing their timestamp bits above the mask. */
struct oa_chunk {
	uint64_t window;          /* gpu_ts / (ts_mask + 1) */
	uint64_t lo, hi;          /* masked timestamps of its first and last point */
};

/* A record that is not a report, kept with its place among the reports. */
struct oa_mark {
	size_t before;            /* number of reports that came before it */
	uint32_t type;            /* PK_OA_RECORD_REPORT_LOST/BUFFER_LOST/CORRELATION */
	uint32_t corr;            /* index in corr[] for CORRELATION */
};

struct pk_oa_recording {
	uint32_t version;
	bool is_stream;                /* a bare kernel stream, its device given by the caller */
	struct pk_oa_device_info dev;
	struct pk_oa_topology topo;
	const struct pk_oa_platform *platform;
	struct pk_oa_decoder dec;
	uint64_t timestamp_frequency;  /* the device's, else the platform's */

	const uint8_t **reports;       /* each report, where it lies in the buffer */
	size_t n_reports, stride;      /* stride: the format's report size */
	struct pk_file_data file;      /* the recording's bytes, owned: mapped, read or copied */

	struct pk_oa_correlation *corr;  /* in file order */
	size_t n_corr;
	/* when corr is not in GPU time order: its points in that order (ties by CPU time), else NULL */
	struct pk_oa_correlation *corr_sorted;
	uint64_t corr_lo, corr_hi;     /* smallest and largest gpu_ts */
	struct oa_chunk *chunks;       /* built once the mask is known (oa_index_correlations) */
	size_t n_chunks;

	struct oa_mark *marks;
	size_t n_marks;

	uint64_t reports_lost, buffers_lost, unknown;
	uint32_t unknown_first_type;   /* the first record of a type perfkit does not know */
	uint64_t unknown_first_off;
};

/* Index the correlation points for pk_oa_recording_cpu_time() (timeline.c). 0 or -ENOMEM. */
int oa_index_correlations(struct pk_oa_recording *rec);

/*
 * Whether a report with first dword @dw0 holds a valid context in dw2:
 * Gen8 dw0 bit 25, Gen9-11 bit 16, Gen12 always, Gen7 never.
 */
static inline bool oa_report_ctx_valid(const struct pk_oa_decoder *d, uint32_t dw0)
{
	if (d->graphics_ver >= 12)
		return true;
	if (d->graphics_ver == 8)
		return dw0 & (1u << 25);
	return d->graphics_ver > 8 && (dw0 & (1u << 16));
}

/* The context of report @r (PK_OA_CTX_INVALID: none). Inline: the segment loop asks every report. */
static inline uint32_t oa_report_ctx(const struct pk_oa_decoder *d, const uint8_t *r)
{
	uint32_t dw0, dw2;

	memcpy(&dw0, r, 4);
	memcpy(&dw2, r + 8, 4);
	return oa_report_ctx_valid(d, dw0) ? dw2 : PK_OA_CTX_INVALID;
}

/*
 * pk_oa_accumulate_run taking the run in parts of at most @max_pairs pairs
 * (report.c; the public function's parts are as long as its 32-bit wrap
 * counts allow, tests give shorter ones). @max_pairs >= 1.
 */
void oa_accumulate_run_parts(const struct pk_oa_decoder *d, const void *reports, size_t stride,
			     size_t n, size_t max_pairs, uint64_t *deltas);

/* The pairs of reports[first..last] summed into @deltas (recording_read.c). */
void oa_accumulate_range(const struct pk_oa_decoder *dec, const uint8_t *const *reports,
			 size_t first, size_t last, uint64_t *deltas);

/*
 * Segments (segments.c): built from reports[0..n) with @dec into
 * tl->segments, all CPU times 0 (timeline.c sets them), the last report's
 * lone context included (the caller drops it), and the counters of the
 * segments that keep theirs into tl->sums. 0 or -ENOMEM.
 */
int oa_segments_build(const struct pk_oa_decoder *dec, const uint8_t *const *reports, size_t n,
		      struct pk_oa_timeline *tl);

/*
 * The same, built while a recording is read: a worker thread builds blocks
 * of reports as the reader publishes them. @reports must hold room for
 * @max_reports pointers from the start (it is never moved); the recording
 * likely holds @expected_reports (its records all of the first's size),
 * for which the joined segments make room. NULL: not
 * started (no memory or no thread); the caller builds the segments once
 * the recording is read.
 */
struct oa_segments;
/* Whether @n_reports reports are worth a second thread (two CPUs or more). */
bool oa_segments_two_threads(size_t n_reports);
struct oa_segments *oa_segments_follow(const struct pk_oa_decoder *dec,
				       const uint8_t *const *reports, size_t max_reports,
				       size_t expected_reports);
/* reports[0..n_ready) are indexed (n_ready <= max_reports). */
void oa_segments_publish(struct oa_segments *job, size_t n_ready);
/* The recording has @n reports: build what is left, join into @tl as above, and free the job. */
int oa_segments_finish(struct oa_segments *job, size_t n, struct pk_oa_timeline *tl);
/* Stop the worker and free the job (NULL: nothing). */
void oa_segments_cancel(struct oa_segments *job);

/* What a reader asked to follow gets: the job, or NULL when none runs. */
struct oa_follow {
	struct oa_segments *job;
	size_t stride;            /* the report size the job decodes */
};

/* Read @path (a bare stream when @sd) as pk_oa_recording_read_file, building segments on the way. */
int oa_recording_read_file_following(const char *path, const struct pk_oa_stream_device *sd,
				     struct pk_oa_recording **out, struct oa_follow *fw,
				     struct pk_diag *diag);

#endif
