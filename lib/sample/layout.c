/*
 * Per-attr record layout: which sample fields are present, how long the
 * sample_id trailer of non-sample kernel records is, and where the event id
 * sits in each kind of record, so a reader with several attrs can find a
 * record's attr before decoding it (../shared/reference/perf-data.md §4-§5).
 *
 * Id position in a SAMPLE, counted after the 8-byte header:
 *   IDENTIFIER            -> 0
 *   ID (no IDENTIFIER)    -> 8 * (IP + TID + TIME + ADDR present)
 * Id position in the trailer, counted back from the record end:
 *   IDENTIFIER            -> 8
 *   ID (no IDENTIFIER)    -> 8 + 8 * (STREAM_ID + CPU present)
 */
#include <errno.h>
#include "internal.h"

void pk_sample_layout_init(struct pk_sample_layout *l, const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;

	memset(l, 0, sizeof(*l));
	l->sample_type = t;
	l->read_format = attr->read_format;
	l->branch_sample_type = attr->branch_sample_type;
	l->regs_user_mask = attr->sample_regs_user;
	l->regs_intr_mask = attr->sample_regs_intr;
	l->sample_id_all = attr->sample_id_all;

	l->id_pos = -1;
	if (t & PERF_SAMPLE_IDENTIFIER)
		l->id_pos = 0;
	else if (t & PERF_SAMPLE_ID)
		l->id_pos = 8 * (!!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID) +
				 !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ADDR));

	l->id_pos_from_end = -1;
	if (!l->sample_id_all)
		return;
	l->id_trailer_size = 8 * __builtin_popcountll(t & PK_ID_TRAILER_BITS);
	if (t & PERF_SAMPLE_IDENTIFIER)
		l->id_pos_from_end = 8;
	else if (t & PERF_SAMPLE_ID)
		l->id_pos_from_end = 8 + 8 * (!!(t & PERF_SAMPLE_STREAM_ID) +
					      !!(t & PERF_SAMPLE_CPU));
}

/*
 * The header may be in either byte order: record types are below 65536, so
 * a type word of 65536 or more is a header not yet swapped.
 */
int pk_sample_swapped_id(const void *rec, size_t len, const struct pk_sample_layout *l,
			 uint64_t *id)
{
	const uint8_t *r = rec;
	uint32_t type;
	uint64_t pos;

	if (!rec || !l || len < sizeof(struct perf_event_header))
		return -ENOENT;
	type = pk_ld32(r);
	if (type > 0xffff)
		type = bswap_32(type);
	if (type == PERF_RECORD_SAMPLE) {
		if (l->id_pos < 0)
			return -ENOENT;
		pos = 8 + (uint64_t)l->id_pos;
	} else if (type >= 1 && type < PK_REC_HEADER_ATTR) {
		if (l->id_pos_from_end < 0 || len < 8 + (uint64_t)l->id_trailer_size)
			return -ENOENT;
		pos = len - (uint64_t)l->id_pos_from_end;
	} else {
		return -ENOENT;
	}
	if (!pk_range_ok(pos, 8, len))
		return -ENOENT;
	*id = bswap_64(pk_ld64(r + pos));
	return 0;
}
