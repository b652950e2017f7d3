/*
 * Private helpers of the sample module: unaligned-safe loads and stores of
 * record fields (always through memcpy, never by casting untrusted bytes),
 * in-place byte swaps, and the constants newer than the installed uapi
 * header that the decoders need.
 */
#ifndef PK_SAMPLE_INTERNAL_H
#define PK_SAMPLE_INTERNAL_H

#include <byteswap.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfkit/sample.h>

/* branch_sample_type bits (../shared/reference/perf-data.md §2.5). */
#define PK_BRANCH_HW_INDEX   (1ULL << 17)
#define PK_BRANCH_COUNTERS   (1ULL << 19)

/* sample_type bits this module decodes (0..24). */
#define PK_SAMPLE_KNOWN      ((1ULL << 25) - 1)

/* The trailer's fields (§5). */
#define PK_ID_TRAILER_BITS   (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			      PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

/* Largest attr size perfkit knows (VER8, with config3). */
#define PK_ATTR_SIZE_MAX     136

/* perf-tool record types (tools/lib/perf/include/perf/event.h, §6.2). */
enum {
	PK_REC_HEADER_ATTR = 64,
	PK_REC_HEADER_EVENT_TYPE = 65,
	PK_REC_HEADER_TRACING_DATA = 66,
	PK_REC_HEADER_BUILD_ID = 67,
	PK_REC_FINISHED_ROUND = 68,
	PK_REC_ID_INDEX = 69,
	PK_REC_AUXTRACE_INFO = 70,
	PK_REC_AUXTRACE = 71,
	PK_REC_AUXTRACE_ERROR = 72,
	PK_REC_THREAD_MAP = 73,
	PK_REC_CPU_MAP = 74,
	PK_REC_STAT_CONFIG = 75,
	PK_REC_STAT = 76,
	PK_REC_STAT_ROUND = 77,
	PK_REC_EVENT_UPDATE = 78,
	PK_REC_TIME_CONV = 79,
	PK_REC_HEADER_FEATURE = 80,
	PK_REC_COMPRESSED = 81,
	PK_REC_FINISHED_INIT = 82,
	PK_REC_COMPRESSED2 = 83,
	PK_REC_BPF_METADATA = 84,
	PK_REC_SCHEDSTAT_CPU = 85,
	PK_REC_SCHEDSTAT_DOMAIN = 86,
};

/* Kernel record 22 (newer than the installed header). */
#define PK_REC_CALLCHAIN_DEFERRED 22

static inline uint16_t pk_ld16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t pk_ld32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t pk_ld64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void pk_sw16(void *p)
{
	uint16_t v = bswap_16(pk_ld16(p));

	memcpy(p, &v, sizeof(v));
}

static inline void pk_sw32(void *p)
{
	uint32_t v = bswap_32(pk_ld32(p));

	memcpy(p, &v, sizeof(v));
}

static inline void pk_sw64(void *p)
{
	uint64_t v = bswap_64(pk_ld64(p));

	memcpy(p, &v, sizeof(v));
}

/* Swap @n consecutive u64 starting at @p. */
static inline void pk_sw64_n(void *p, size_t n)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		pk_sw64(b + 8 * i);
}

/*
 * MMAP2 as kernels 3.12-3.15 wrote it had no prot/flags: the file name
 * starts at byte 64. Recognised by bytes at 64 that start a NUL-terminated
 * printable name where the payload (ending at @end) is too short for
 * prot/flags and a name, or where "prot" has bits no kernel reports
 * (> 0xffff; @swapped: the record is still in the other byte order).
 */
static inline int pk_mmap2_no_prot(const uint8_t *r, size_t end, int swapped)
{
	uint32_t prot;

	if (end <= 64 || r[64] < 0x20 || r[64] >= 0x7f || !memchr(r + 64, '\0', end - 64))
		return 0;
	if (end < 73)
		return 1;
	prot = pk_ld32(r + 64);
	return (swapped ? bswap_32(prot) : prot) > 0xffff;
}

/* Convert the attr flag word / branch-entry flag word of the other byte order (bitfield.c). */
uint64_t pk_attr_flags_from_other(uint64_t raw);
uint64_t pk_branch_flags_from_other(uint64_t raw);

/* Swap a perf_event_attr of @size bytes in place, flags included (attr.c). */
void pk_attr_swap_inplace(uint8_t *a, size_t size);

/* Swap a PERF_RECORD_SAMPLE body in place by layout (swap_sample.c). */
int pk_swap_sample(uint8_t *r, size_t len, const struct pk_sample_layout *l,
		   uint64_t off, struct pk_diag *d);

#endif
