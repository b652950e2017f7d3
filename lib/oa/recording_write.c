/*
 * The writer of IGT's i915-perf recording format (layouts: the top of
 * lib/oa/recording_read.c and ../shared/reference/gpu.md 1.8). What it
 * writes is read by IGT 1.27.1's i915-perf-reader when the PCI id and the
 * metric set name are ones IGT knows.
 */
#include <errno.h>
#include <string.h>
#include <perfkit/oa.h>
#include "recording_int.h"

static int put_header(struct pk_buf *b, uint32_t type, size_t size)
{
	uint8_t h[8] = { 0 };
	uint16_t sz = (uint16_t)size;

	if (size > UINT16_MAX || size < 8)
		return -EINVAL;
	memcpy(h, &type, 4);
	memcpy(h + 6, &sz, 2);
	return pk_buf_append(b, h, 8);
}

int pk_oa_write_version(struct pk_buf *b, uint32_t version)
{
	uint32_t p[2] = { version, 0 };

	return put_header(b, PK_OA_RECORD_VERSION, 16) ?: pk_buf_append(b, p, sizeof(p));
}

int pk_oa_write_device_info(struct pk_buf *b, const struct pk_oa_device_info *di)
{
	uint8_t p[PK_OA_DEVICE_INFO_SIZE] = { 0 };

	memcpy(p, &di->timestamp_frequency, 8);
	memcpy(p + 8, &di->device_id, 4);
	memcpy(p + 12, &di->revision, 4);
	memcpy(p + 16, &di->gt_min_frequency, 4);
	memcpy(p + 20, &di->gt_max_frequency, 4);
	memcpy(p + 24, &di->engine_class, 4);
	memcpy(p + 28, &di->engine_instance, 4);
	memcpy(p + 32, &di->oa_format, 4);
	memcpy(p + 36, di->metric_set_name, strnlen(di->metric_set_name, 256));
	memcpy(p + 292, di->metric_set_uuid, strnlen(di->metric_set_uuid, 40));
	return put_header(b, PK_OA_RECORD_DEVICE_INFO, PK_OA_DEVICE_INFO_RECORD_SIZE) ?:
	       pk_buf_append(b, p, sizeof(p));
}

int pk_oa_write_topology(struct pk_buf *b, const struct pk_oa_topology *t)
{
	uint16_t h[8] = { t->flags, t->max_slices, t->max_subslices, t->max_eus_per_subslice,
			  t->subslice_offset, t->subslice_stride, t->eu_offset, t->eu_stride };
	size_t n = t->data_len > PK_OA_TOPOLOGY_MAX_DATA ? PK_OA_TOPOLOGY_MAX_DATA : t->data_len;
	size_t padded = (16 + n + 7) & ~(size_t)7;
	static const uint8_t zero[8];
	int err;

	if ((err = put_header(b, PK_OA_RECORD_TOPOLOGY, 8 + padded)))
		return err;
	return pk_buf_append(b, h, sizeof(h)) ?: pk_buf_append(b, t->data, n) ?:
	       pk_buf_append(b, zero, padded - 16 - n);
}

int pk_oa_write_correlation(struct pk_buf *b, uint64_t cpu_ns, uint64_t gpu_ts)
{
	uint64_t p[2] = { cpu_ns, gpu_ts };

	return put_header(b, PK_OA_RECORD_CORRELATION, 24) ?: pk_buf_append(b, p, sizeof(p));
}

int pk_oa_write_sample(struct pk_buf *b, const void *report, size_t size)
{
	if (size < 8)
		return -EINVAL;
	return put_header(b, PK_OA_RECORD_SAMPLE, 8 + size) ?: pk_buf_append(b, report, size);
}

int pk_oa_write_lost(struct pk_buf *b, uint32_t type)
{
	if (type != PK_OA_RECORD_REPORT_LOST && type != PK_OA_RECORD_BUFFER_LOST)
		return -EINVAL;
	return put_header(b, type, 8);
}

static int write_mark(const struct pk_oa_recording *rec, const struct oa_mark *m, struct pk_buf *b)
{
	if (m->type == PK_OA_RECORD_CORRELATION)
		return pk_oa_write_correlation(b, rec->corr[m->corr].cpu_ns, rec->corr[m->corr].gpu_ts);
	return pk_oa_write_lost(b, m->type);
}

int pk_oa_recording_write(const struct pk_oa_recording *rec, struct pk_buf *b)
{
	size_t m = 0;
	int err;

	if ((err = pk_oa_write_version(b, 1)) || (err = pk_oa_write_device_info(b, &rec->dev)) ||
	    (err = pk_oa_write_topology(b, &rec->topo)))
		return err;
	/* the first correlation point goes before every report, as the recorder writes it */
	for (size_t i = 0; i < rec->n_marks; i++)
		if (rec->marks[i].type == PK_OA_RECORD_CORRELATION) {
			if ((err = write_mark(rec, &rec->marks[i], b)))
				return err;
			break;
		}
	for (size_t r = 0; r <= rec->n_reports; r++) {
		for (; m < rec->n_marks && rec->marks[m].before <= r; m++) {
			if (rec->marks[m].type == PK_OA_RECORD_CORRELATION && rec->marks[m].corr == 0)
				continue;
			if ((err = write_mark(rec, &rec->marks[m], b)))
				return err;
		}
		if (r < rec->n_reports &&
		    (err = pk_oa_write_sample(b, rec->reports[r], rec->stride)))
			return err;
	}
	return 0;
}
