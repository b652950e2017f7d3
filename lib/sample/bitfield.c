/*
 * Bitfield words of the other byte order. C compilers allocate bitfields
 * from the least significant bit on little-endian targets and from the most
 * significant bit on big-endian ones, so after the u64 holding them is
 * byte-swapped, a field of width w at little-endian bit o sits at bit
 * 64 - o - w. Two such words matter in perf.data: the perf_event_attr flag
 * word (offset 40, ../shared/reference/perf-data.md §2.3) and
 * perf_branch_entry's flags (§3). perf fixes both up when it reads a file of
 * the other byte order; these helpers do the same per field.
 *
 * perf_mem_data_src and the WEIGHT_STRUCT word need no such fix: the uapi
 * header declares them in reverse order on big-endian, so their numeric
 * layout is the same on both and a plain u64 swap is right.
 */
#include "internal.h"

struct bitfield {
	uint8_t off, width;   /* little-endian bit position and width */
};

/* perf_branch_entry flags: mispred, predicted, in_tx, abort, cycles:16, type:4,
 * spec:2, new_type:4, priv:3, reserved:31. */
static const struct bitfield branch_fields[] = {
	{ 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 16 }, { 20, 4 },
	{ 24, 2 }, { 26, 4 }, { 30, 3 }, { 33, 31 },
};

static uint64_t field_get(uint64_t v, unsigned pos, unsigned width)
{
	uint64_t mask = width >= 64 ? ~0ULL : ((1ULL << width) - 1);

	return (v >> pos) & mask;
}

/* Move each field from the writer's position to the host's. */
static uint64_t move_fields(uint64_t swapped, const struct bitfield *f, size_t n)
{
	uint64_t out = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned le = f[i].off, be = 64 - f[i].off - f[i].width;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		out |= field_get(swapped, be, f[i].width) << le;
#else
		out |= field_get(swapped, le, f[i].width) << be;
#endif
	}
	return out;
}

uint64_t pk_branch_flags_from_other(uint64_t raw)
{
	return move_fields(bswap_64(raw), branch_fields,
			   sizeof(branch_fields) / sizeof(branch_fields[0]));
}

static uint64_t bitrev64(uint64_t v)
{
	uint64_t out = 0;

	for (unsigned i = 0; i < 64; i++)
		out |= ((v >> i) & 1) << (63 - i);
	return out;
}

/*
 * The attr flag word: one-bit flags everywhere except precise_ip (bits
 * 15-16), so moving every one-bit field is a bit reversal of the swapped
 * word. perf reverses the bits of each byte, which is the same mapping for
 * one-bit flags but also reverses the two bits of precise_ip; here the
 * field keeps its value (a big-endian precise_ip of 2 stays 2).
 */
uint64_t pk_attr_flags_from_other(uint64_t raw)
{
	uint64_t out = bitrev64(bswap_64(raw));
	uint64_t b15 = (out >> 15) & 1, b16 = (out >> 16) & 1;

	out &= ~(3ULL << 15);
	return out | (b15 << 16) | (b16 << 15);
}
