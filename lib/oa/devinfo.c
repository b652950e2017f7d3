/*
 * Device knowledge for OA: PCI id -> platform (IGT's chipset name, the
 * metric XML's name, graphics version, the OA format its metric sets use,
 * the default OA timestamp frequency and DG2/MTL's timestamp shift).
 *
 * PCI ids from the kernel's i915_pciids.h for the platforms of the shared
 * recordings and metric files (../shared/data/intel-oa: hsw, bdw, sklgt2,
 * tglgt2; DG2 for the acmgt* sets). Frequencies: ../shared/reference/gpu.md
 * 3.7 and the recordings' DEVICE_INFO (HSW/BDW 12.5 MHz, SKL 12 MHz, Gen11+
 * 19.2 MHz, DG2 100 MHz); the device's own value wins whenever it has one.
 */
#include <errno.h>
#include <stddef.h>
#include <perfkit/oa.h>

enum {
	P_HSW_GT1, P_HSW_GT2, P_HSW_GT3,
	P_BDW_GT1, P_BDW_GT2, P_BDW_GT3,
	P_SKL_GT1, P_SKL_GT2, P_SKL_GT3, P_SKL_GT4,
	P_TGL_GT1, P_TGL_GT2,
	P_DG2_G10, P_DG2_G11, P_DG2_G12,
};

#define HSW(m) { "haswell", m, 7, PK_OA_FORMAT_A45_B8_C8, 12500000, 0, 7 }
#define BDW(m) { "broadwell", m, 8, PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0, 7 }
#define SKL(m) { "skylake", m, 9, PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12000000, 0, 7 }
#define TGL(m) { "tigerlake", m, 12, PK_OA_FORMAT_A32u40_A4u32_B8_C8, 19200000, 0, 7 }
#define DG2(m) { "dg2", m, 12, PK_OA_FORMAT_A24u40_A14u32_B8_C8, 100000000, 1, 8 }

static const struct pk_oa_platform platforms[] = {
	[P_HSW_GT1] = HSW("hsw"), [P_HSW_GT2] = HSW("hsw"), [P_HSW_GT3] = HSW("hsw"),
	[P_BDW_GT1] = BDW("bdw"), [P_BDW_GT2] = BDW("bdw"), [P_BDW_GT3] = BDW("bdw"),
	[P_SKL_GT1] = SKL("sklgt1"), [P_SKL_GT2] = SKL("sklgt2"),
	[P_SKL_GT3] = SKL("sklgt3"), [P_SKL_GT4] = SKL("sklgt4"),
	[P_TGL_GT1] = TGL("tglgt1"), [P_TGL_GT2] = TGL("tglgt2"),
	[P_DG2_G10] = DG2("acmgt3"), [P_DG2_G11] = DG2("acmgt1"), [P_DG2_G12] = DG2("acmgt2"),
};

struct pci_id {
	uint16_t id;
	uint8_t platform;
};

/* Sorted by id (checked by the unit test through lookups of every entry). */
static const struct pci_id ids[] = {
	{ 0x0402, P_HSW_GT1 }, { 0x0406, P_HSW_GT1 }, { 0x040a, P_HSW_GT1 }, { 0x040b, P_HSW_GT1 },
	{ 0x040e, P_HSW_GT1 }, { 0x0412, P_HSW_GT2 }, { 0x0416, P_HSW_GT2 }, { 0x041a, P_HSW_GT2 },
	{ 0x041b, P_HSW_GT2 }, { 0x041e, P_HSW_GT2 }, { 0x0422, P_HSW_GT3 }, { 0x0426, P_HSW_GT3 },
	{ 0x042a, P_HSW_GT3 }, { 0x042b, P_HSW_GT3 }, { 0x042e, P_HSW_GT3 },
	{ 0x0a02, P_HSW_GT1 }, { 0x0a06, P_HSW_GT1 }, { 0x0a0a, P_HSW_GT1 }, { 0x0a0b, P_HSW_GT1 },
	{ 0x0a0e, P_HSW_GT1 }, { 0x0a12, P_HSW_GT2 }, { 0x0a16, P_HSW_GT2 }, { 0x0a1a, P_HSW_GT2 },
	{ 0x0a1b, P_HSW_GT2 }, { 0x0a1e, P_HSW_GT2 }, { 0x0a22, P_HSW_GT3 }, { 0x0a26, P_HSW_GT3 },
	{ 0x0a2a, P_HSW_GT3 }, { 0x0a2b, P_HSW_GT3 }, { 0x0a2e, P_HSW_GT3 },
	{ 0x0c02, P_HSW_GT1 }, { 0x0c06, P_HSW_GT1 }, { 0x0c0a, P_HSW_GT1 }, { 0x0c0b, P_HSW_GT1 },
	{ 0x0c0e, P_HSW_GT1 }, { 0x0c12, P_HSW_GT2 }, { 0x0c16, P_HSW_GT2 }, { 0x0c1a, P_HSW_GT2 },
	{ 0x0c1b, P_HSW_GT2 }, { 0x0c1e, P_HSW_GT2 }, { 0x0c22, P_HSW_GT3 }, { 0x0c26, P_HSW_GT3 },
	{ 0x0c2a, P_HSW_GT3 }, { 0x0c2b, P_HSW_GT3 }, { 0x0c2e, P_HSW_GT3 },
	{ 0x0d02, P_HSW_GT1 }, { 0x0d06, P_HSW_GT1 }, { 0x0d0a, P_HSW_GT1 }, { 0x0d0b, P_HSW_GT1 },
	{ 0x0d0e, P_HSW_GT1 }, { 0x0d12, P_HSW_GT2 }, { 0x0d16, P_HSW_GT2 }, { 0x0d1a, P_HSW_GT2 },
	{ 0x0d1b, P_HSW_GT2 }, { 0x0d1e, P_HSW_GT2 }, { 0x0d22, P_HSW_GT3 }, { 0x0d26, P_HSW_GT3 },
	{ 0x0d2a, P_HSW_GT3 }, { 0x0d2b, P_HSW_GT3 }, { 0x0d2e, P_HSW_GT3 },
	{ 0x1602, P_BDW_GT1 }, { 0x1606, P_BDW_GT1 }, { 0x160a, P_BDW_GT1 }, { 0x160b, P_BDW_GT1 },
	{ 0x160d, P_BDW_GT1 }, { 0x160e, P_BDW_GT1 }, { 0x1612, P_BDW_GT2 }, { 0x1616, P_BDW_GT2 },
	{ 0x161a, P_BDW_GT2 }, { 0x161b, P_BDW_GT2 }, { 0x161d, P_BDW_GT2 }, { 0x161e, P_BDW_GT2 },
	{ 0x1622, P_BDW_GT3 }, { 0x1626, P_BDW_GT3 }, { 0x162a, P_BDW_GT3 }, { 0x162b, P_BDW_GT3 },
	{ 0x162d, P_BDW_GT3 }, { 0x162e, P_BDW_GT3 },
	{ 0x1902, P_SKL_GT1 }, { 0x1906, P_SKL_GT1 }, { 0x190a, P_SKL_GT1 }, { 0x190b, P_SKL_GT1 },
	{ 0x190e, P_SKL_GT1 }, { 0x1912, P_SKL_GT2 }, { 0x1913, P_SKL_GT2 }, { 0x1915, P_SKL_GT2 },
	{ 0x1916, P_SKL_GT2 }, { 0x1917, P_SKL_GT2 }, { 0x191a, P_SKL_GT2 }, { 0x191b, P_SKL_GT2 },
	{ 0x191d, P_SKL_GT2 }, { 0x191e, P_SKL_GT2 }, { 0x1921, P_SKL_GT2 }, { 0x1923, P_SKL_GT3 },
	{ 0x1926, P_SKL_GT3 }, { 0x1927, P_SKL_GT3 }, { 0x192a, P_SKL_GT3 }, { 0x192b, P_SKL_GT3 },
	{ 0x192d, P_SKL_GT3 }, { 0x1932, P_SKL_GT4 }, { 0x193a, P_SKL_GT4 }, { 0x193b, P_SKL_GT4 },
	{ 0x193d, P_SKL_GT4 },
	{ 0x5690, P_DG2_G10 }, { 0x5691, P_DG2_G10 }, { 0x5692, P_DG2_G10 }, { 0x5693, P_DG2_G11 },
	{ 0x5694, P_DG2_G11 }, { 0x5695, P_DG2_G11 }, { 0x5696, P_DG2_G12 }, { 0x5697, P_DG2_G12 },
	{ 0x56a0, P_DG2_G10 }, { 0x56a1, P_DG2_G10 }, { 0x56a2, P_DG2_G10 }, { 0x56a3, P_DG2_G12 },
	{ 0x56a4, P_DG2_G12 }, { 0x56a5, P_DG2_G11 }, { 0x56a6, P_DG2_G11 }, { 0x56b0, P_DG2_G11 },
	{ 0x56b1, P_DG2_G11 }, { 0x56b2, P_DG2_G12 }, { 0x56b3, P_DG2_G12 }, { 0x56ba, P_DG2_G11 },
	{ 0x56bb, P_DG2_G11 }, { 0x56bc, P_DG2_G11 }, { 0x56bd, P_DG2_G11 }, { 0x56be, P_DG2_G10 },
	{ 0x56bf, P_DG2_G10 },
	{ 0x9a40, P_TGL_GT2 }, { 0x9a49, P_TGL_GT2 }, { 0x9a59, P_TGL_GT2 }, { 0x9a60, P_TGL_GT1 },
	{ 0x9a68, P_TGL_GT1 }, { 0x9a70, P_TGL_GT1 }, { 0x9a78, P_TGL_GT2 }, { 0x9ac0, P_TGL_GT2 },
	{ 0x9ac9, P_TGL_GT2 }, { 0x9ad9, P_TGL_GT2 }, { 0x9af8, P_TGL_GT2 },
};

const struct pk_oa_platform *pk_oa_platform_by_pci_id(uint32_t pci_id)
{
	size_t lo = 0, hi = sizeof(ids) / sizeof(ids[0]);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid].id == pci_id)
			return &platforms[ids[mid].platform];
		if (ids[mid].id < pci_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int pk_oa_decoder_for_platform(struct pk_oa_decoder *d, const struct pk_oa_platform *p, int format)
{
	if (!p)
		return -EINVAL;
	return pk_oa_decoder_init(d, format ? format : p->oa_format, p->graphics_ver, p->ts_shift);
}
