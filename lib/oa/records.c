/*
 * i915 perf stream records: the framing shared by the kernel stream and IGT's
 * recording format. Every size is checked before the payload is touched, and
 * the cursor always moves forward by at least one header, so a walk over
 * arbitrary bytes ends.
 *
 * Layout (../shared/specs/i915-perf-stream-format.txt, i915_drm.h, and
 * ../shared/reference/gpu.md 1.1-1.2), little-endian:
 *
 *   OFF  SIZE  FIELD
 *   0    4     type    1 SAMPLE, 2 OA_REPORT_LOST, 3 OA_BUFFER_LOST,
 *                      0x10000 VERSION, 0x10001 DEVICE_INFO,
 *                      0x10002 DEVICE_TOPOLOGY, 0x10003 TIMESTAMP_CORRELATION
 *   4    2     pad
 *   6    2     size    of the whole record, header included (>= 8)
 *   8    ...   payload (size - 8 bytes)
 */
#include <errno.h>
#include <string.h>
#include <perfkit/oa.h>

const char *pk_oa_record_type_name(uint32_t type)
{
	switch (type) {
	case PK_OA_RECORD_SAMPLE: return "sample";
	case PK_OA_RECORD_REPORT_LOST: return "report-lost";
	case PK_OA_RECORD_BUFFER_LOST: return "buffer-lost";
	case PK_OA_RECORD_VERSION: return "version";
	case PK_OA_RECORD_DEVICE_INFO: return "device-info";
	case PK_OA_RECORD_TOPOLOGY: return "topology";
	case PK_OA_RECORD_CORRELATION: return "timestamp-correlation";
	}
	return "unknown";
}

void pk_oa_record_iter_init(struct pk_oa_record_iter *it, const void *buf, size_t len)
{
	it->buf = buf;
	it->len = buf ? len : 0;
	it->pos = 0;
}

/* Smallest and largest legal size per type (0: no bound). */
static void size_bounds(uint32_t type, unsigned *min, unsigned *max)
{
	*min = PK_OA_RECORD_HEADER_SIZE;
	*max = 0;
	switch (type) {
	case PK_OA_RECORD_SAMPLE:
		*min = 16;
		break;
	case PK_OA_RECORD_REPORT_LOST:
	case PK_OA_RECORD_BUFFER_LOST:
		*min = *max = PK_OA_RECORD_HEADER_SIZE;
		break;
	case PK_OA_RECORD_VERSION:
		*min = PK_OA_VERSION_RECORD_SIZE;
		break;
	case PK_OA_RECORD_DEVICE_INFO:
		*min = *max = PK_OA_DEVICE_INFO_RECORD_SIZE;
		break;
	case PK_OA_RECORD_TOPOLOGY:
		*min = PK_OA_RECORD_HEADER_SIZE + 16;
		break;
	case PK_OA_RECORD_CORRELATION:
		*min = PK_OA_CORRELATION_RECORD_SIZE;
		break;
	}
}

int pk_oa_record_next(struct pk_oa_record_iter *it, struct pk_oa_record *rec,
		      struct pk_diag *diag)
{
	size_t left = it->len - it->pos;
	const uint8_t *p;
	uint32_t type;
	uint16_t size;
	unsigned min, max;

	if (it->pos >= it->len)
		return 0;
	p = it->buf + it->pos;
	if (left < PK_OA_RECORD_HEADER_SIZE)
		return PK_CORRUPT(diag, it->pos, "truncated record header (%zu bytes left)", left);
	memcpy(&type, p, 4);
	memcpy(&size, p + 6, 2);
	if (size < PK_OA_RECORD_HEADER_SIZE)
		return PK_CORRUPT(diag, it->pos, "%s record size %u smaller than its header",
				  pk_oa_record_type_name(type), size);
	if (size > left)
		return PK_CORRUPT(diag, it->pos, "truncated %s record (size %u, %zu bytes left)",
				  pk_oa_record_type_name(type), size, left);
	size_bounds(type, &min, &max);
	if (size < min)
		return PK_CORRUPT(diag, it->pos, "%s record too short (size %u, at least %u)",
				  pk_oa_record_type_name(type), size, min);
	if (max && size > max)
		return PK_CORRUPT(diag, it->pos, "%s record too long (size %u, expected %u)",
				  pk_oa_record_type_name(type), size, max);
	/* the header of a record some way ahead (records are mostly one size):
	 * the scan waits on memory otherwise, one record after another; 64
	 * records of reports (17 KB) ahead, not 16: 5% off a 1M-report read */
	if (64 * (size_t)size < left)
		__builtin_prefetch(p + 64 * (size_t)size);
	rec->type = type;
	rec->size = size;
	rec->offset = it->pos;
	rec->payload = p + PK_OA_RECORD_HEADER_SIZE;
	rec->payload_len = size - PK_OA_RECORD_HEADER_SIZE;
	it->pos += size;
	return 1;
}
