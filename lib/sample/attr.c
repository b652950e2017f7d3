/*
 * perf_event_attr as stored in perf.data: import any size version (VER0 64
 * bytes .. VER8 136 bytes, larger when the tail is zero), in either byte
 * order.
 *
 * Layout (../shared/reference/perf-data.md §2.1-§2.3):
 *   off  size  field
 *     0   4    type
 *     4   4    size
 *     8   8    config
 *    16   8    sample_period / sample_freq
 *    24   8    sample_type
 *    32   8    read_format
 *    40   8    flag bitfield (disabled, inherit, ..., precise_ip:2, ...)
 *    48   4    wakeup_events / wakeup_watermark
 *    52   4    bp_type
 *    56   8    bp_addr / config1                  (end of VER0, 64)
 *    64   8    bp_len / config2                   (VER1, 72)
 *    72   8    branch_sample_type                 (VER2, 80)
 *    80   8    sample_regs_user
 *    88   4    sample_stack_user
 *    92   4    clockid                            (VER3, 96)
 *    96   8    sample_regs_intr                   (VER4, 104)
 *   104   4    aux_watermark
 *   108   2    sample_max_stack
 *   110   2    __reserved_2                       (VER5, 112)
 *   112   4    aux_sample_size
 *   116   4    __reserved_3                       (VER6, 120)
 *   120   8    sig_data                           (VER7, 128)
 *   128   8    config3                            (VER8, 136)
 */
#include <errno.h>
#include "internal.h"

struct attr_field {
	uint8_t off, size;
};

/* Every integer field except the flag word at 40, which is a bitfield. */
static const struct attr_field attr_fields[] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 },
	{ 48, 4 }, { 52, 4 }, { 56, 8 }, { 64, 8 }, { 72, 8 }, { 80, 8 },
	{ 88, 4 }, { 92, 4 }, { 96, 8 }, { 104, 4 }, { 108, 2 }, { 110, 2 },
	{ 112, 4 }, { 116, 4 }, { 120, 8 }, { 128, 8 },
};

void pk_attr_swap_inplace(uint8_t *a, size_t size)
{
	for (size_t i = 0; i < sizeof(attr_fields) / sizeof(attr_fields[0]); i++) {
		const struct attr_field *f = &attr_fields[i];

		if ((size_t)f->off + f->size > size)
			break;
		if (f->size == 2)
			pk_sw16(a + f->off);
		else if (f->size == 4)
			pk_sw32(a + f->off);
		else
			pk_sw64(a + f->off);
	}
	if (size >= 48) {
		uint64_t flags = pk_attr_flags_from_other(pk_ld64(a + 40));

		memcpy(a + 40, &flags, sizeof(flags));
	}
}

int pk_attr_import(struct pk_attr *out, const void *buf, size_t len, int swap,
		   uint64_t off, struct pk_diag *d)
{
	uint8_t tmp[PK_ATTR_SIZE_MAX];
	const uint8_t *b = buf;
	size_t size = len ? len : PERF_ATTR_SIZE_VER0;
	size_t known, attr_bytes;

	memset(out, 0, sizeof(*out));
	if (size < PERF_ATTR_SIZE_VER0)
		return PK_CORRUPT(d, off, "attr size %zu is below the minimum 64", size);
	known = size < sizeof(tmp) ? size : sizeof(tmp);
	for (size_t i = known; i < size; i++)
		if (b[i])
			return PK_CORRUPT(d, off + i,
					  "attr of %zu bytes has non-zero byte 0x%02x beyond the %d bytes perfkit knows",
					  size, b[i], PK_ATTR_SIZE_MAX);
	memset(tmp, 0, sizeof(tmp));
	memcpy(tmp, b, known);
	if (swap)
		pk_attr_swap_inplace(tmp, known);
	attr_bytes = sizeof(out->attr) < sizeof(tmp) ? sizeof(out->attr) : sizeof(tmp);
	memcpy(&out->attr, tmp, attr_bytes);
	out->config3 = pk_ld64(tmp + 128);
	return 0;
}
