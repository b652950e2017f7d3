/*
 * The record ring of a capture in circular-buffer mode: see ring_int.h.
 * Only the capture's own records come here (written by
 * pk_oa_write_sample/lost/correlation); they are walked with
 * pk_oa_record_next all the same, which checks every size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>

#include "ring_int.h"

int oa_ring_init(struct oa_ring *r, size_t limit, size_t max_record)
{
	memset(r, 0, sizeof(*r));
	if (limit < max_record || limit > SIZE_MAX / 2)
		return -EINVAL;
	r->data = malloc(2 * limit);
	if (!r->data)
		return -ENOMEM;
	r->limit = limit;
	return 0;
}

void oa_ring_release(struct oa_ring *r)
{
	free(r->data);
	r->data = NULL;
}

/* The oldest record goes. */
static void drop_oldest(struct oa_ring *r)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record rec;
	struct pk_diag d;

	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, r->data + r->start, r->len);
	if (pk_oa_record_next(&it, &rec, &d) != 1) {   /* cannot be: only whole records come in */
		r->start = r->len = 0;
		return;
	}
	switch (rec.type) {
	case PK_OA_RECORD_SAMPLE:
		r->reports--;
		r->reports_dropped++;
		break;
	case PK_OA_RECORD_CORRELATION:
		if (rec.size == sizeof(r->dropped_corr)) {
			memcpy(r->dropped_corr, r->data + r->start, rec.size);
			r->have_dropped_corr = true;
		}
		break;
	}
	r->start += rec.size;
	r->len -= rec.size;
}

static void append_one(struct oa_ring *r, const struct pk_oa_record *rec)
{
	while (r->len + rec->size > r->limit)
		drop_oldest(r);
	if (r->start + r->len + rec->size > 2 * r->limit) {
		memmove(r->data, r->data + r->start, r->len);
		r->start = 0;
	}
	memcpy(r->data + r->start + r->len, rec->payload - PK_OA_RECORD_HEADER_SIZE, rec->size);
	r->len += rec->size;
	if (rec->type == PK_OA_RECORD_SAMPLE)
		r->reports++;
}

void oa_ring_append(struct oa_ring *r, const void *records, size_t len)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record rec;
	struct pk_diag d;

	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, records, len);
	while (pk_oa_record_next(&it, &rec, &d) == 1 && rec.size <= r->limit)
		append_one(r, &rec);
}
