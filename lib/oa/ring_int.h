/*
 * The record ring of a capture in circular-buffer mode (perfkit oa record
 * -s/-f, as i915-perf-recorder -s/-f): the most recent whole recording
 * records (SAMPLE, the LOST records, CORRELATION), at most @limit bytes of
 * them. When a record does not fit, the oldest records go, whole. The
 * newest CORRELATION that went is kept aside, so that a snapshot can start
 * with a correlation point from before its first report.
 *
 * The bytes are kept in one contiguous run inside a buffer of twice the
 * limit; when the run reaches the end it is moved back to the start, so
 * each byte is moved at most once per @limit bytes appended, and a
 * snapshot is a single write.
 */
#ifndef PERFKIT_OA_RING_INT_H
#define PERFKIT_OA_RING_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct oa_ring {
	uint8_t *data;
	size_t limit;                 /* most bytes of records held */
	size_t start, len;            /* the records: data[start, start + len) */
	uint64_t reports;             /* SAMPLE records held */
	uint64_t reports_dropped;     /* SAMPLE records that went to make room */
	bool have_dropped_corr;
	uint8_t dropped_corr[24];     /* the newest CORRELATION record that went */
};

/* 0, -EINVAL (@limit below one record of @max_record bytes) or -ENOMEM. */
int oa_ring_init(struct oa_ring *r, size_t limit, size_t max_record);
void oa_ring_release(struct oa_ring *r);

/*
 * Append @len bytes of whole records (each {u32 type; u16 pad; u16 size},
 * as the capture's own writer makes them), dropping the oldest records to
 * make room. The walk stops at a record that is not whole or is larger
 * than the limit (none of the capture's are).
 */
void oa_ring_append(struct oa_ring *r, const void *records, size_t len);

#endif
