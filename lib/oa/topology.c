/*
 * The i915 topology (DRM_I915_QUERY_TOPOLOGY_INFO's answer, as IGT's
 * recordings keep it): bit tests on its masks, the variables IGT derives
 * from it for the metric equations, and a full topology built from counts
 * for a bare kernel stream described on the command line.
 *
 * Layout (../shared/reference/gpu.md 1.5): max_slices, max_subslices,
 * max_eus_per_subslice; data[] holds the slice mask (from byte 0), then per
 * slice its subslice mask (subslice_offset + s * subslice_stride), then per
 * (slice, subslice) its EU mask (eu_offset + (s * max_subslices + ss) *
 * eu_stride), each a little bit field.
 */
#include <errno.h>
#include <string.h>
#include <perfkit/oa.h>

static bool data_bit(const struct pk_oa_topology *t, uint64_t byte, unsigned bit)
{
	return byte < t->data_len && (t->data[byte] >> bit) & 1;
}

bool pk_oa_topology_has_slice(const struct pk_oa_topology *t, unsigned s)
{
	return s < t->max_slices && data_bit(t, s / 8, s % 8);
}

bool pk_oa_topology_has_subslice(const struct pk_oa_topology *t, unsigned s, unsigned ss)
{
	if (s >= t->max_slices || ss >= t->max_subslices)
		return false;
	return data_bit(t, (uint64_t)t->subslice_offset + (uint64_t)s * t->subslice_stride + ss / 8,
			ss % 8);
}

bool pk_oa_topology_has_eu(const struct pk_oa_topology *t, unsigned s, unsigned ss, unsigned eu)
{
	if (s >= t->max_slices || ss >= t->max_subslices || eu >= t->max_eus_per_subslice)
		return false;
	return data_bit(t, (uint64_t)t->eu_offset +
			((uint64_t)s * t->max_subslices + ss) * t->eu_stride + eu / 8, eu % 8);
}

/*
 * Slices, subslices and EUs are each considered up to 64 (no i915 device has
 * more), which bounds the work on hostile headers (u16 maxima) to 64^3 tests.
 */
int pk_oa_topology_derive(struct pk_oa_topology *t, int graphics_ver)
{
	unsigned bps = graphics_ver >= 11 ? 8 : 3;
	unsigned ns = t->max_slices < 64 ? t->max_slices : 64;
	unsigned nss = t->max_subslices < 64 ? t->max_subslices : 64;
	unsigned neu = t->max_eus_per_subslice < 64 ? t->max_eus_per_subslice : 64;

	t->slice_mask = t->subslice_mask = 0;
	t->n_eus = 0;
	for (unsigned s = 0; s < ns; s++) {
		if (pk_oa_topology_has_slice(t, s))
			t->slice_mask |= 1ull << s;
		for (unsigned ss = 0; ss < nss; ss++) {
			unsigned bit = s * bps + ss;

			if (!pk_oa_topology_has_subslice(t, s, ss))
				continue;
			if (bit < 64)
				t->subslice_mask |= 1ull << bit;
			for (unsigned eu = 0; eu < neu; eu++)
				t->n_eus += pk_oa_topology_has_eu(t, s, ss, eu);
		}
	}
	t->n_eu_slices = (uint32_t)__builtin_popcountll(t->slice_mask);
	t->n_eu_sub_slices = (uint32_t)__builtin_popcountll(t->subslice_mask);
	return 0;
}

static void set_bits(uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i / 8] |= (uint8_t)(1u << (i % 8));
}

/*
 * The layout the kernel's query gives: each mask rounded up to whole bytes,
 * the subslice masks after the slice mask, the EU masks after those.
 */
int pk_oa_topology_uniform(struct pk_oa_topology *t, unsigned slices, unsigned subslices,
			   unsigned eus)
{
	unsigned ss_stride = (subslices + 7) / 8, eu_stride = (eus + 7) / 8;
	uint64_t ss_off = (slices + 7) / 8, eu_off, len;

	if (!slices || !subslices || !eus || slices > 64 || subslices > 64 || eus > 64)
		return -EINVAL;
	eu_off = ss_off + (uint64_t)slices * ss_stride;
	len = eu_off + (uint64_t)slices * subslices * eu_stride;
	if (len > PK_OA_TOPOLOGY_MAX_DATA)
		return -E2BIG;
	memset(t, 0, sizeof(*t));
	t->max_slices = (uint16_t)slices;
	t->max_subslices = (uint16_t)subslices;
	t->max_eus_per_subslice = (uint16_t)eus;
	t->subslice_offset = (uint16_t)ss_off;
	t->subslice_stride = (uint16_t)ss_stride;
	t->eu_offset = (uint16_t)eu_off;
	t->eu_stride = (uint16_t)eu_stride;
	t->data_len = (uint32_t)len;
	set_bits(t->data, slices);
	for (unsigned s = 0; s < slices; s++) {
		set_bits(t->data + ss_off + s * ss_stride, subslices);
		for (unsigned ss = 0; ss < subslices; ss++)
			set_bits(t->data + eu_off + ((uint64_t)s * subslices + ss) * eu_stride, eus);
	}
	return 0;
}
