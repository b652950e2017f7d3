/*
 * The in-memory IGT recording shared by the reader, the writer and the
 * timeline builder (lib/oa/recording_*.c, lib/oa/timeline.c).
 */
#ifndef PERFKIT_OA_RECORDING_INT_H
#define PERFKIT_OA_RECORDING_INT_H

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
	void *buf;                     /* the recording's bytes, owned: mapped or copied */
	size_t buf_len;
	bool buf_mapped;

	struct pk_oa_correlation *corr;
	size_t n_corr;
	bool corr_sorted;              /* gpu_ts never decreases: bracketing by binary search */
	uint64_t corr_lo, corr_hi;     /* smallest and largest gpu_ts */
	struct oa_chunk *chunks;       /* built once the mask is known (oa_index_correlations) */
	size_t n_chunks;

	struct oa_mark *marks;
	size_t n_marks;

	uint64_t reports_lost, buffers_lost, unknown;
};

/* Index the correlation points for pk_oa_recording_cpu_time() (timeline.c). 0 or -ENOMEM. */
int oa_index_correlations(struct pk_oa_recording *rec);

#endif
