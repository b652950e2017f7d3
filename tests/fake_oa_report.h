/*
 * The OA reports of perfkit's fake i915 devices: the fake behind the ioctl
 * layer in tests/unit/test_oa_capture.c and the LD_PRELOAD one that stands
 * in front of libc for the command (tests/workload/pk-fake-i915.c). Both are
 * a Broadwell GT2 (PCI id 0x1616, 12.5 MHz timestamps, 1 slice of 3
 * subslices of 8 EUs) whose stream gives A32u40_A4u32_B8_C8 reports.
 */
#ifndef PERFKIT_TESTS_FAKE_OA_REPORT_H
#define PERFKIT_TESTS_FAKE_OA_REPORT_H

#include <stdint.h>
#include <string.h>

#define FAKE_OA_PCI_ID 0x1616
#define FAKE_OA_REVISION 9
#define FAKE_OA_FREQ 12500000ull
#define FAKE_OA_REPORT_SIZE 256

/* DRM_I915_QUERY_TOPOLOGY_INFO of the BDW GT2: the eight u16, then the masks. */
static const uint16_t fake_oa_topology_header[8] = { 0, 1, 3, 8, 1, 1, 2, 1 };
static const uint8_t fake_oa_topology_masks[5] = { 0x01, 0x07, 0xff, 0xff, 0xff };

static inline void fake_oa_put32(uint8_t *r, unsigned dw, uint32_t v)
{
	memcpy(r + dw * 4, &v, 4);
}

/*
 * Report n at GPU timestamp @ts: contexts 0x20 (reports 0-39), 0x40 (40-79,
 * the first marked as a context switch), then idle (context-valid bit
 * clear). A0 is a 40-bit counter that starts 2^16 below 2^40; A1 counts by
 * 7; B0 and C7 by 3 and 5.
 */
static inline void fake_oa_report(uint8_t *r, uint32_t n, uint64_t ts)
{
	uint32_t reason = n == 40 ? 1u << 3 : 1u << 0;
	uint32_t ctx = n < 40 ? 0x20 : n < 80 ? 0x40 : 0;
	uint64_t a0 = ((1ull << 40) - 65536 + (uint64_t)n * 4096) & ((1ull << 40) - 1);

	memset(r, 0, FAKE_OA_REPORT_SIZE);
	fake_oa_put32(r, 0, reason << 19 | (n < 80 ? 1u << 25 : 0) | 0x1);
	fake_oa_put32(r, 1, (uint32_t)ts);
	fake_oa_put32(r, 2, ctx);
	fake_oa_put32(r, 3, (uint32_t)(ts * 64));            /* 800 MHz */
	fake_oa_put32(r, 4, (uint32_t)a0);
	r[160] = (uint8_t)(a0 >> 32);
	fake_oa_put32(r, 5, n * 7);
	fake_oa_put32(r, 48, n * 3);
	fake_oa_put32(r, 63, n * 5);
}

#endif
