/*
 * OA report formats: one 256-byte report decoded into a flat array laid out
 * like IGT's accumulator, and the deltas between two reports.
 *
 * Layouts (../shared/reference/gpu.md 3.1-3.6; dwN = little-endian u32 at
 * byte 4N):
 *
 *   all:   dw0  reason bits at 19 and up, context-valid bit (Gen8: 25,
 *               Gen9-11: 16; Gen12: always valid; Gen7: never)
 *          dw1  timestamp low 32 bits (DG2/MTL: ticks << 1, read as dw1 >> 1)
 *          dw2  context id             dw3  GPU clock ticks (Gen8+)
 *
 *   A32u40_A4u32_B8_C8 (10, 11)        entry   source
 *          GPU_TIME, GPU_CLOCK          0, 1    dw1, dw3
 *          A0-A31 (40 bits)             2-33    dw4-35 | byte (160 + i) << 32
 *          A32-A35                      34-37   dw36-39
 *          B0-B7, C0-C7                 38-53   dw48-63
 *
 *   A24u40_A14u32_B8_C8 (12)
 *          GPU_TIME, GPU_CLOCK          0, 1    dw1 >> shift, dw3
 *          A0-A3                        2-5     dw4-7
 *          A4-A23 (40 bits)             6-25    dw8-27 | byte (160 + i) << 32
 *          A24-A27                      26-29   dw28-31
 *          A28-A31 (40 bits)            30-33   dw32-35 | byte (160 + i) << 32
 *          A32-A36                      34-38   dw36-40
 *          A37                          39      dw46
 *          B0-B7, C0-C7                 40-55   dw48-63
 *
 *   A45_B8_C8 (5, Haswell)
 *          GPU_TIME                     0       dw1
 *          A0-A44, B0-B7, C0-C7         1-61    dw3-63
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <perfkit/oa.h>
#include "recording_int.h"

/* Where accumulator entry i comes from: dword, and the byte of bits 32-39 (0: none). */
struct slot {
	uint8_t dw;
	uint8_t hi;
};

struct format {
	struct pk_oa_format_info info;
	struct slot slot[PK_OA_MAX_VALUES];
};

static struct format formats[3];
static pthread_once_t formats_once = PTHREAD_ONCE_INIT;

static void set_slots(struct format *f, int first, int dw, int n, int hi)
{
	for (int i = 0; i < n; i++) {
		f->slot[first + i].dw = (uint8_t)(dw + i);
		f->slot[first + i].hi = hi ? (uint8_t)(hi + i) : 0;
		if (hi)
			f->info.u40_mask |= 1ull << (first + i);
	}
}

/* Built once (pthread_once), from the tables in the comment above. */
static void build_formats(void)
{
	struct format *f;

	f = &formats[0];
	f->info = (struct pk_oa_format_info){
		.format = PK_OA_FORMAT_A45_B8_C8, .name = "A45_B8_C8", .report_size = 256,
		.n_values = 62, .gpu_time = 0, .gpu_clock = -1, .a = 1, .b = 46, .c = 54,
		.perfcnt = 62, .n_a = 45, .n_b = 8, .n_c = 8,
	};
	set_slots(f, 0, 1, 1, 0);
	set_slots(f, 1, 3, 61, 0);

	f = &formats[1];
	f->info = (struct pk_oa_format_info){
		.format = PK_OA_FORMAT_A32u40_A4u32_B8_C8, .name = "A32u40_A4u32_B8_C8",
		.report_size = 256, .n_values = 54, .gpu_time = 0, .gpu_clock = 1, .a = 2, .b = 38,
		.c = 46, .perfcnt = 54, .n_a = 36, .n_b = 8, .n_c = 8,
	};
	set_slots(f, 0, 1, 1, 0);
	set_slots(f, 1, 3, 1, 0);
	set_slots(f, 2, 4, 32, 160);
	set_slots(f, 34, 36, 4, 0);
	set_slots(f, 38, 48, 16, 0);

	f = &formats[2];
	f->info = (struct pk_oa_format_info){
		.format = PK_OA_FORMAT_A24u40_A14u32_B8_C8, .name = "A24u40_A14u32_B8_C8",
		.report_size = 256, .n_values = 56, .gpu_time = 0, .gpu_clock = 1, .a = 2, .b = 40,
		.c = 48, .perfcnt = 56, .n_a = 38, .n_b = 8, .n_c = 8,
	};
	set_slots(f, 0, 1, 1, 0);
	set_slots(f, 1, 3, 1, 0);
	set_slots(f, 2, 4, 4, 0);
	set_slots(f, 6, 8, 20, 164);
	set_slots(f, 26, 28, 4, 0);
	set_slots(f, 30, 32, 4, 188);
	set_slots(f, 34, 36, 5, 0);
	set_slots(f, 39, 46, 1, 0);
	set_slots(f, 40, 48, 16, 0);
}

static const struct format *find_format(int format)
{
	pthread_once(&formats_once, build_formats);
	switch (format) {
	case PK_OA_FORMAT_A45_B8_C8:
		return &formats[0];
	case PK_OA_FORMAT_A32u40_A4u32_B8_C8:
	case PK_OA_FORMAT_OAR_A32u40_A4u32_B8_C8:
		return &formats[1];
	case PK_OA_FORMAT_A24u40_A14u32_B8_C8:
		return &formats[2];
	}
	return NULL;
}

static const struct format *format_of(const struct pk_oa_decoder *d)
{
	/* info is the first member of struct format */
	return (const struct format *)d->fmt;
}

const struct pk_oa_format_info *pk_oa_format_info(int format)
{
	const struct format *f = find_format(format);

	return f ? &f->info : NULL;
}

const char *pk_oa_reason_name(uint32_t reason)
{
	switch (reason) {
	case PK_OA_REASON_TIMER: return "timer";
	case PK_OA_REASON_TRIGGER1: return "trigger1";
	case PK_OA_REASON_TRIGGER2: return "trigger2";
	case PK_OA_REASON_CTX_SWITCH: return "context switch";
	case PK_OA_REASON_GO_TRANSITION: return "go transition";
	case PK_OA_REASON_CLOCK_RATIO_CHANGE: return "clock ratio change";
	case PK_OA_REASON_MMIO_TRIGGER: return "mmio trigger";
	}
	return "unknown";
}

int pk_oa_decoder_init(struct pk_oa_decoder *d, int format, int graphics_ver, unsigned ts_shift)
{
	const struct format *f = find_format(format);

	if (!f || ts_shift > 8)
		return -EINVAL;
	d->fmt = &f->info;
	d->graphics_ver = graphics_ver;
	d->ts_shift = ts_shift;
	d->ts_mask = 0xffffffffu >> ts_shift;
	if (graphics_ver >= 12)
		d->reason_mask = 0x7f;
	else if (graphics_ver >= 9)
		d->reason_mask = 0x3f;
	else
		d->reason_mask = 0x1f;
	return 0;
}

static inline uint32_t dw(const uint8_t *r, unsigned i)
{
	uint32_t v;

	memcpy(&v, r + 4 * i, 4);
	return v;
}

/* A 40-bit counter: its low 32 bits at dword @i, bits 32-39 at byte @hi. */
static inline uint64_t u40(const uint8_t *r, unsigned i, unsigned hi)
{
	return dw(r, i) | (uint64_t)r[hi] << 32;
}

/* A counter's deltas over a run: from @first to @last, going round its 2^@bits @wraps times. */
static inline uint64_t run_total(uint64_t first, uint64_t last, uint32_t wraps, unsigned bits)
{
	return last - first + ((uint64_t)wraps << bits);
}

void pk_oa_report_header(const struct pk_oa_decoder *d, const void *report,
			 struct pk_oa_report *out)
{
	const uint8_t *r = report;
	uint32_t dw0 = dw(r, 0), bits;

	if (d->graphics_ver < 8) {
		out->reason = PK_OA_REASON_TIMER;
	} else {
		bits = (dw0 >> 19) & d->reason_mask;
		out->reason = bits & -bits;
	}
	out->ctx_valid = oa_report_ctx_valid(d, dw0);
	out->ctx_id = out->ctx_valid ? dw(r, 2) : PK_OA_CTX_INVALID;
	out->raw_timestamp = dw(r, 1);
	out->timestamp = out->raw_timestamp >> d->ts_shift;
}

void pk_oa_report_decode(const struct pk_oa_decoder *d, const void *report,
			 struct pk_oa_report *out)
{
	const struct format *f = format_of(d);
	const uint8_t *r = report;
	uint32_t n = f->info.n_values;

	pk_oa_report_header(d, report, out);
	out->n_values = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct slot *s = &f->slot[i];
		out->v[i] = s->hi ? u40(r, s->dw, s->hi) : dw(r, s->dw);
	}
	out->v[f->info.gpu_time] = out->timestamp;
	memset(out->v + n, 0, sizeof(out->v) - n * sizeof(out->v[0]));
}

void pk_oa_accumulate(const struct pk_oa_decoder *d, const void *r0, const void *r1,
		      uint64_t *deltas)
{
	const struct format *f = format_of(d);
	const uint8_t *a = r0, *b = r1;
	uint32_t n = f->info.n_values;

	for (uint32_t i = 0; i < n; i++) {
		const struct slot *s = &f->slot[i];
		uint32_t lo = dw(b, s->dw) - dw(a, s->dw);

		if (s->hi) {
			deltas[i] += (u40(b, s->dw, s->hi) - u40(a, s->dw, s->hi)) &
				     ((1ull << 40) - 1);
		} else {
			deltas[i] += lo;
		}
	}
	/* entry gpu_time was added unshifted above */
	if (d->ts_shift) {
		uint32_t t = dw(b, 1) - dw(a, 1);

		deltas[f->info.gpu_time] -= t;
		deltas[f->info.gpu_time] += t >> d->ts_shift;
	}
}

void pk_oa_accumulate_decoded(const struct pk_oa_decoder *d, const struct pk_oa_report *r0,
			      const struct pk_oa_report *r1, uint64_t *deltas)
{
	const struct pk_oa_format_info *fi = d->fmt;

	for (uint32_t i = 0; i < fi->n_values; i++) {
		if (i == (uint32_t)fi->gpu_time)
			deltas[i] += (uint32_t)(r1->raw_timestamp - r0->raw_timestamp) >> d->ts_shift;
		else if (fi->u40_mask & (1ull << i))
			deltas[i] += (r1->v[i] - r0->v[i]) & ((1ull << 40) - 1);
		else
			deltas[i] += (uint32_t)(r1->v[i] - r0->v[i]);
	}
}

/*
 * A32u40_A4u32_B8_C8 over a run of reports with the layout spelled out
 * (constant trip counts, no slot table), so that the compiler vectorizes it,
 * with AVX2 where the CPU has it (a clone chosen at load time).
 *
 * A counter's deltas over a run add up to its last value less its first,
 * plus one modulus for each pair in which it wrapped: sum over pairs of
 * (b - a) mod 2^w = last - first + 2^w * #{pairs with b < a}. So a pair
 * costs a compare per counter, counted in 32-bit lanes, and the 64-bit sums
 * are made once per run (modulo 2^64, as adding each delta would give).
 * A 40-bit counter wrapped when its high byte fell, or stayed with the low
 * 32 bits falling: hb < ha + (lb < la). The timestamp with a shift cannot
 * be counted so ((b - a) mod 2^32 >> shift does not add up): it is summed.
 *
 * The sanitizer build (PK_NO_TARGET_CLONES) has only the baseline version,
 * so that its tests run it on CPUs with AVX2 too; ThreadSanitizer cannot
 * start with an ifunc resolver either.
 */
#ifndef PK_NO_TARGET_CLONES
__attribute__((target_clones("avx2", "default")))
#endif
static void run_a32u40(const uint8_t *p, size_t stride, size_t n, unsigned shift, uint64_t *deltas)
{
	uint32_t clock_wraps = 0, a_wraps[32] = { 0 }, a4_wraps[4] = { 0 }, bc_wraps[16] = { 0 };
	const uint8_t *first = p, *last = p + (n - 1) * stride;
	uint64_t time = 0;

	for (size_t i = 1; i < n; i++) {
		const uint8_t *a = p + (i - 1) * stride, *b = p + i * stride;

		time += (uint32_t)(dw(b, 1) - dw(a, 1)) >> shift;
		clock_wraps += dw(b, 3) < dw(a, 3);
		for (unsigned k = 0; k < 32; k++) {
			uint32_t low_fell = dw(b, 4 + k) < dw(a, 4 + k);

			a_wraps[k] += b[160 + k] < a[160 + k] + low_fell;
		}
		for (unsigned k = 0; k < 4; k++)
			a4_wraps[k] += dw(b, 36 + k) < dw(a, 36 + k);
		for (unsigned k = 0; k < 16; k++)
			bc_wraps[k] += dw(b, 48 + k) < dw(a, 48 + k);
	}
	deltas[0] += time;
	deltas[1] += run_total(dw(first, 3), dw(last, 3), clock_wraps, 32);
	for (unsigned k = 0; k < 32; k++)
		deltas[2 + k] += run_total(u40(first, 4 + k, 160 + k), u40(last, 4 + k, 160 + k),
					   a_wraps[k], 40);
	for (unsigned k = 0; k < 4; k++)
		deltas[34 + k] += run_total(dw(first, 36 + k), dw(last, 36 + k), a4_wraps[k], 32);
	for (unsigned k = 0; k < 16; k++)
		deltas[38 + k] += run_total(dw(first, 48 + k), dw(last, 48 + k), bc_wraps[k], 32);
}

void oa_accumulate_run_parts(const struct pk_oa_decoder *d, const void *reports, size_t stride,
			     size_t n, size_t max_pairs, uint64_t *deltas)
{
	const uint8_t *p = reports;

	if (n > 1 && d->fmt == &formats[1].info) {
		/* parts share their boundary report */
		for (size_t i = 0; i + 1 < n; i += max_pairs)
			run_a32u40(p + i * stride, stride, n - 1 - i < max_pairs ? n - i : max_pairs + 1,
				   d->ts_shift, deltas);
		return;
	}
	for (size_t i = 1; i < n; i++)
		pk_oa_accumulate(d, p + (i - 1) * stride, p + i * stride, deltas);
}

void pk_oa_accumulate_run(const struct pk_oa_decoder *d, const void *reports, size_t stride,
			  size_t n, uint64_t *deltas)
{
	/* run_a32u40 counts wraps in 32 bits */
	oa_accumulate_run_parts(d, reports, stride, n, UINT32_MAX, deltas);
}
