/*
 * Tests of OA stream records, report decoding, accumulation and device
 * knowledge (lib/oa/records.c, report.c, devinfo.c, the topology part of
 * recording_read.c) on reports built by hand: every layout of gpu.md 3.4,
 * 40-bit counters across 2^32 and 2^40, timestamp wraps, DG2's shift, the
 * reason and context-valid rules of each generation, and the corrupt-record
 * list (truncated header, zero size, huge size, wrong size for the type).
 * Runs of reports (pk_oa_accumulate_run, which counts wraps instead of
 * adding deltas) against the pairs accumulated one by one, on reports whose
 * counters wrap at random, never, or between values at the edges.
 */
#include <errno.h>
#include <string.h>
#include <stdlib.h>
#include <perfkit/oa.h>
#include "oa/recording_int.h"
#include "../tap.h"

static uint8_t R0[256], R1[256];

static void put32(uint8_t *r, unsigned dw, uint32_t v) { memcpy(r + 4 * dw, &v, 4); }

static void put_rec(uint8_t *p, uint32_t type, uint16_t size)
{
	memset(p, 0, 8);
	memcpy(p, &type, 4);
	memcpy(p + 6, &size, 2);
}

static void test_records(void)
{
	uint8_t buf[64];
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	struct pk_diag d;

	put_rec(buf, PK_OA_RECORD_REPORT_LOST, 8);
	put_rec(buf + 8, PK_OA_RECORD_CORRELATION, 24);
	put_rec(buf + 32, 0x777, 8);
	pk_oa_record_iter_init(&it, buf, 40);
	is_int(pk_oa_record_next(&it, &r, NULL), 1, "lost record");
	ok(r.type == PK_OA_RECORD_REPORT_LOST && r.offset == 0 && r.payload_len == 0, "lost fields");
	is_int(pk_oa_record_next(&it, &r, NULL), 1, "correlation record");
	ok(r.offset == 8 && r.payload_len == 16 && r.payload == buf + 16, "correlation fields");
	is_int(pk_oa_record_next(&it, &r, NULL), 1, "unknown type returned");
	is_int(pk_oa_record_next(&it, &r, NULL), 0, "end");

	struct { const char *what; uint32_t type; uint16_t size; size_t len; uint64_t off; } bad[] = {
		{ "truncated header", 1, 264, 5, 0 },
		{ "zero size", 1, 0, 64, 0 },
		{ "size below header", 1, 7, 64, 0 },
		{ "size past the end", 1, 264, 64, 0 },
		{ "lost record of 16 bytes", 2, 16, 64, 0 },
		{ "buffer-lost of 16 bytes", 3, 16, 64, 0 },
		{ "device info of 48 bytes", 0x10001, 48, 64, 0 },
		{ "correlation of 16 bytes", 0x10003, 16, 64, 0 },
		{ "version of 8 bytes", 0x10000, 8, 64, 0 },
		{ "topology of 16 bytes", 0x10002, 16, 64, 0 },
		{ "sample of 8 bytes", 1, 8, 64, 0 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(buf, 0, sizeof(buf));
		put_rec(buf, bad[i].type, bad[i].size);
		pk_diag_init(&d);
		pk_oa_record_iter_init(&it, buf, bad[i].len);
		is_int(pk_oa_record_next(&it, &r, &d), -EBADMSG, "%s: corrupt (%s)", bad[i].what, d.msg);
		is_int(d.offset, bad[i].off, "%s: offset", bad[i].what);
	}
	/* the offset names the bad record, not the start */
	put_rec(buf, 2, 8);
	put_rec(buf + 8, 1, 0);
	pk_diag_init(&d);
	pk_oa_record_iter_init(&it, buf, 64);
	pk_oa_record_next(&it, &r, &d);
	is_int(pk_oa_record_next(&it, &r, &d), -EBADMSG, "second record corrupt");
	is_int(d.offset, 8, "offset of the second record");
}

static void test_formats(void)
{
	const struct pk_oa_format_info *f;

	f = pk_oa_format_info(10);
	ok(f && f->gpu_time == 0 && f->gpu_clock == 1 && f->a == 2 && f->b == 38 && f->c == 46 &&
	   f->perfcnt == 54 && f->n_values == 54, "A32u40 offsets");
	ok(f && f->u40_mask == (((1ull << 32) - 1) << 2), "A32u40: A0-A31 are 40-bit");
	ok(pk_oa_format_info(11) == f, "OAR shares the layout");
	f = pk_oa_format_info(12);
	ok(f && f->a == 2 && f->b == 40 && f->c == 48 && f->perfcnt == 56, "A24u40 offsets");
	ok(f && f->u40_mask == ((((1ull << 20) - 1) << 6) | (0xfull << 30)), "A24u40: A4-A23, A28-A31 40-bit");
	f = pk_oa_format_info(5);
	ok(f && f->gpu_clock == -1 && f->a == 1 && f->b == 46 && f->c == 54 && f->perfcnt == 62,
	   "A45 offsets");
	ok(pk_oa_format_info(9) == NULL && pk_oa_format_info(0) == NULL, "unknown formats");
}

static void test_gen8(void)
{
	struct pk_oa_decoder d;
	struct pk_oa_report a, b;
	uint64_t dl[PK_OA_MAX_VALUES] = { 0 };

	is_int(pk_oa_decoder_init(&d, 10, 8, 0), 0, "gen8 decoder");
	is_int(pk_oa_decoder_init(&d, 42, 8, 0), -EINVAL, "unknown format refused");
	pk_oa_decoder_init(&d, 10, 8, 0);
	memset(R0, 0, 256);
	memset(R1, 0, 256);
	put32(R0, 0, (1u << 25) | (1u << 19));          /* valid, timer */
	put32(R0, 1, 0xfffffff0);                        /* timestamp about to wrap */
	put32(R0, 2, 0x20);
	put32(R0, 3, 0xffffff00);
	put32(R0, 4, 0xffffffff);                        /* A0 = 0x01_ffffffff */
	R0[160] = 0x01;
	put32(R0, 35, 0xfffffff0);                       /* A31 = 0xff_fffffff0 */
	R0[191] = 0xff;
	put32(R0, 36, 7);                                /* A32 */
	put32(R0, 48, 100);                              /* B0 */
	put32(R0, 63, 0xffffffff);                       /* C7 */
	put32(R1, 0, (1u << 22) | (1u << 20));           /* invalid ctx, ctx-switch + trigger1 */
	put32(R1, 1, 0x10);
	put32(R1, 2, 0x40);
	put32(R1, 3, 0x100);
	put32(R1, 4, 0x00000005);                        /* A0 = 0x03_00000005 */
	R1[160] = 0x03;
	put32(R1, 35, 0x10);                             /* A31 = 0x00_00000010: 2^40 wrap */
	put32(R1, 36, 3);                                /* A32 wraps 2^32 */
	put32(R1, 48, 150);
	put32(R1, 63, 1);

	pk_oa_report_decode(&d, R0, &a);
	pk_oa_report_decode(&d, R1, &b);
	ok(a.ctx_valid && a.ctx_id == 0x20, "gen8: bit 25 makes the context valid");
	ok(!b.ctx_valid && b.ctx_id == PK_OA_CTX_INVALID, "gen8: without it, idle");
	is_int(a.reason, PK_OA_REASON_TIMER, "reason timer");
	is_int(b.reason, PK_OA_REASON_TRIGGER1, "lowest set reason bit");
	is_str(pk_oa_reason_name(b.reason), "trigger1", "reason name");
	is_int(a.v[0], 0xfffffff0, "gpu time");
	is_int(a.v[1], 0xffffff00, "gpu clock");
	is_int(a.v[2], 0x1ffffffffull, "A0 rebuilt from its high byte");
	is_int(a.v[33], 0xfffffffff0ull, "A31 rebuilt");
	is_int(a.v[34], 7, "A32 (u32)");
	is_int(a.v[38], 100, "B0");
	is_int(a.v[53], 0xffffffff, "C7");

	pk_oa_accumulate(&d, R0, R1, dl);
	is_int(dl[0], 0x20, "timestamp across the 32-bit wrap");
	is_int(dl[1], 0x200, "clock across the wrap");
	is_int(dl[2], 0x100000006ull, "A0 40-bit delta above 2^32");
	is_int(dl[33], 0x20, "A31 across the 2^40 wrap");
	is_int(dl[34], 0xfffffffcull, "A32 modulo 2^32");
	is_int(dl[38], 50, "B0 delta");
	is_int(dl[53], 2, "C7 across the wrap");
	{
		uint64_t d2[PK_OA_MAX_VALUES] = { 0 };

		pk_oa_accumulate_decoded(&d, &a, &b, d2);
		ok(memcmp(dl, d2, sizeof(dl)) == 0, "decoded and raw accumulation agree");
	}
	{
		uint8_t run[3][256];
		uint64_t d3[PK_OA_MAX_VALUES] = { 0 };

		memcpy(run[0], R0, 256);
		memcpy(run[1], R1, 256);
		memcpy(run[2], R0, 256);   /* back: every counter wraps once more */
		pk_oa_accumulate_run(&d, run, 256, 3, d3);
		is_int(d3[0], 1ull << 32, "run: two half wraps of the timestamp");
		is_int(d3[2], 1ull << 40, "run: A0 all the way round");
	}
}

static void test_generations(void)
{
	struct pk_oa_decoder d;
	struct pk_oa_report h;

	memset(R0, 0, 256);
	put32(R0, 0, (1u << 16) | (1u << 24));     /* bit 16; reason bit 5 (clock ratio) */
	put32(R0, 2, 0x99);
	pk_oa_decoder_init(&d, 10, 9, 0);
	pk_oa_report_header(&d, R0, &h);
	ok(h.ctx_valid && h.ctx_id == 0x99, "gen9: bit 16");
	is_int(h.reason, PK_OA_REASON_CLOCK_RATIO_CHANGE, "gen9: clock ratio change");
	pk_oa_decoder_init(&d, 10, 8, 0);
	pk_oa_report_header(&d, R0, &h);
	ok(!h.ctx_valid, "gen8 ignores bit 16");
	is_int(h.reason, 0, "gen8 has no clock-ratio reason");
	pk_oa_decoder_init(&d, 10, 12, 0);
	put32(R0, 0, 1u << 25);
	pk_oa_report_header(&d, R0, &h);
	ok(h.ctx_valid && h.ctx_id == 0x99, "gen12: always valid");
	is_int(h.reason, PK_OA_REASON_MMIO_TRIGGER, "gen12: reason bit 6, MMIO trigger");
	pk_oa_decoder_init(&d, 10, 11, 0);
	pk_oa_report_header(&d, R0, &h);
	is_int(h.reason, 0, "gen9-11 have no MMIO-trigger reason");
	pk_oa_decoder_init(&d, 5, 7, 0);
	put32(R0, 0, 1u << 25 | 1u << 16);
	pk_oa_report_header(&d, R0, &h);
	ok(!h.ctx_valid && h.reason == PK_OA_REASON_TIMER, "gen7: never valid, always timer");

	/* HSW layout: A0 = dw3, B0 = dw48, C2 = dw58 */
	{
		struct pk_oa_report r;

		put32(R0, 3, 11);
		put32(R0, 48, 22);
		put32(R0, 58, 33);
		put32(R0, 1, 44);
		pk_oa_report_decode(&d, R0, &r);
		ok(r.v[0] == 44 && r.v[1] == 11 && r.v[46] == 22 && r.v[56] == 33 && r.n_values == 62,
		   "A45_B8_C8 layout");
	}
	/* DG2: shift, A3 u32, A4 40-bit at byte 164, A28 at 188, A37 at dw46 */
	{
		struct pk_oa_report r;
		uint64_t dl[PK_OA_MAX_VALUES] = { 0 };
		const struct pk_oa_platform *p = pk_oa_platform_by_pci_id(0x56a0);

		memset(R0, 0, 256);
		memset(R1, 0, 256);
		is_int(pk_oa_decoder_for_platform(&d, p, 0), 0, "dg2 decoder");
		is_int(d.ts_shift, 1, "dg2 shift");
		put32(R0, 1, 0x20030d40);
		put32(R0, 7, 5);
		R0[163] = 9;                  /* unused high byte of A3 */
		put32(R0, 8, 1);
		R0[164] = 3;
		put32(R0, 32, 2);
		R0[188] = 4;
		put32(R0, 40, 6);
		put32(R0, 46, 7);
		pk_oa_report_decode(&d, R0, &r);
		is_int(r.timestamp, 0x100186a0, "dg2 timestamp shifted");
		is_int(r.raw_timestamp, 0x20030d40, "dg2 raw timestamp");
		is_int(r.v[pk_oa_format_info(PK_OA_FORMAT_A24u40_A14u32_B8_C8)->gpu_time], 0x100186a0,
		       "dg2: the GPU time value is the shifted timestamp");
		is_int(r.v[5], 5, "A3 is 32-bit");
		is_int(r.v[6], 0x300000001ull, "A4 40-bit");
		is_int(r.v[30], 0x400000002ull, "A28 40-bit");
		is_int(r.v[38], 6, "A36 at dw40");
		is_int(r.v[39], 7, "A37 at dw46");
		put32(R1, 1, 0x20030d40 + 2000000);
		pk_oa_accumulate(&d, R0, R1, dl);
		is_int(dl[0], 1000000, "dg2 timestamp delta shifted");
	}
}

static void test_platforms(void)
{
	struct { uint32_t id; const char *name, *metrics; int ver; uint64_t hz; } t[] = {
		{ 0x0416, "haswell", "hsw", 7, 12500000 },
		{ 0x1616, "broadwell", "bdw", 8, 12500000 },
		{ 0x1916, "skylake", "sklgt2", 9, 12000000 },
		{ 0x9a49, "tigerlake", "tglgt2", 12, 19200000 },
		{ 0x56a0, "dg2", "acmgt3", 12, 100000000 },
		{ 0x0402, "haswell", "hsw", 7, 12500000 },
		{ 0x9af8, "tigerlake", "tglgt2", 12, 19200000 },
		{ 0x193d, "skylake", "sklgt4", 9, 12000000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		const struct pk_oa_platform *p = pk_oa_platform_by_pci_id(t[i].id);

		ok(p && strcmp(p->name, t[i].name) == 0 && strcmp(p->metrics, t[i].metrics) == 0 &&
		   p->graphics_ver == t[i].ver && p->timestamp_frequency == t[i].hz,
		   "pci id 0x%x: %s %s gen %d", t[i].id, t[i].name, t[i].metrics, t[i].ver);
	}
	ok(pk_oa_platform_by_pci_id(0) == NULL && pk_oa_platform_by_pci_id(0xffff) == NULL,
	   "unknown ids");
	ok(pk_oa_platform_by_pci_id(0x0416)->oa_format == 5 &&
	   pk_oa_platform_by_pci_id(0x1616)->oa_format == 10 &&
	   pk_oa_platform_by_pci_id(0x56a0)->oa_format == 12, "default formats");
	/* the table is sorted: every id from 0 to 0xffff found at most once by bisection is checked
	 * by walking all ids and counting hits against the expected total */
	{
		unsigned hits = 0;

		for (uint32_t id = 0; id <= 0xffff; id++)
			hits += pk_oa_platform_by_pci_id(id) != NULL;
		is_int(hits, 139, "every table entry reachable (sorted table)");
	}
}

static void test_topology(void)
{
	struct pk_oa_topology t;

	/* BDW GT2-like: 1 slice, 3 subslices, 8 EUs each (one fused off) */
	memset(&t, 0, sizeof(t));
	t.max_slices = 1;
	t.max_subslices = 3;
	t.max_eus_per_subslice = 8;
	t.subslice_offset = 1;
	t.subslice_stride = 1;
	t.eu_offset = 2;
	t.eu_stride = 1;
	t.data_len = 5;
	t.data[0] = 0x1;
	t.data[1] = 0x7;
	t.data[2] = 0xff;
	t.data[3] = 0xff;
	t.data[4] = 0x7f;
	pk_oa_topology_derive(&t, 8);
	ok(t.slice_mask == 1 && t.subslice_mask == 7 && t.n_eus == 23 && t.n_eu_slices == 1 &&
	   t.n_eu_sub_slices == 3, "gen8 topology");
	/* two slices: gen9 uses 3 bits per slice, gen11+ 8 */
	memset(&t, 0, sizeof(t));
	t.max_slices = 2;
	t.max_subslices = 2;
	t.max_eus_per_subslice = 8;
	t.subslice_offset = 1;
	t.subslice_stride = 1;
	t.eu_offset = 3;
	t.eu_stride = 1;
	t.data_len = 7;
	t.data[0] = 0x3;
	t.data[1] = 0x3;
	t.data[2] = 0x1;
	memset(t.data + 3, 0x0f, 4);
	pk_oa_topology_derive(&t, 9);
	is_int(t.subslice_mask, 0xb, "gen9: slice 1 at bit 3");
	is_int(t.n_eus, 12, "gen9: EUs of present subslices");
	pk_oa_topology_derive(&t, 11);
	is_int(t.subslice_mask, 0x103, "gen11: slice 1 at bit 8");
	pk_oa_topology_derive(&t, 12);
	is_int(t.subslice_mask, 0x103, "gen12: slice 1 at bit 8");
	/* the most the masks hold: 8 slices of 8 subslices (bit 63 the last), 64 slices */
	pk_oa_topology_uniform(&t, 8, 8, 1);
	pk_oa_topology_derive(&t, 12);
	ok(t.subslice_mask == UINT64_MAX && t.n_eus == 64,
	   "8 slices of 8 subslices: every bit of the subslice mask, 64 EUs");
	pk_oa_topology_uniform(&t, 64, 1, 1);
	pk_oa_topology_derive(&t, 12);
	ok(t.slice_mask == UINT64_MAX && t.n_eus == 64 && t.n_eu_slices == 64, "64 slices: every bit of the slice mask");
	/* hostile header: huge maxima, nothing outside the data */
	memset(&t, 0, sizeof(t));
	t.max_slices = t.max_subslices = t.max_eus_per_subslice = 0xffff;
	t.subslice_offset = t.eu_offset = 0xffff;
	t.eu_stride = 0xffff;
	t.data_len = 1;
	t.data[0] = 0xff;
	pk_oa_topology_derive(&t, 12);
	ok(t.slice_mask == 0xff && t.subslice_mask == 0 && t.n_eus == 0, "hostile topology bounded");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

enum fill { FILL_RANDOM, FILL_RISING, FILL_EDGES, FILL_SAME };

/* Report @i of a run: every byte random, counters rising by random steps, edge values, or one report repeated. */
static void fill_report(uint8_t *r, size_t i, enum fill how)
{
	static const uint32_t edge_lo[] = { 0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
	static const uint8_t edge_hi[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };

	for (unsigned b = 0; b < 256; b += 4) {
		uint32_t v;

		switch (how) {
		case FILL_RANDOM:
			v = (uint32_t)rng();
			break;
		case FILL_RISING:   /* a step of up to 2^27 a report: a wrap now and then */
			v = (uint32_t)(0xf0000000u + b * 0x01000000u + i * ((b / 4) * 0x00200000u + 1));
			break;
		case FILL_EDGES:
			v = b >= 160 && b < 192 ?
			    (uint32_t)edge_hi[rng() % 6] | (uint32_t)edge_hi[rng() % 6] << 8 |
			    (uint32_t)edge_hi[rng() % 6] << 16 | (uint32_t)edge_hi[rng() % 6] << 24 :
			    edge_lo[rng() % 6];
			break;
		default:
			v = 0x12345678u * (b + 1);
			break;
		}
		memcpy(r + b, &v, 4);
	}
	if (how == FILL_RISING)   /* the high bytes follow: +1 every 16 reports, from near 0xff */
		for (unsigned k = 0; k < 32; k++)
			r[160 + k] = (uint8_t)(0xf8 + k + i / 16);
}

static void test_runs(void)
{
	static const struct { int format, graphics_ver; unsigned shift; } decs[] = {
		{ 10, 8, 0 }, { 10, 12, 1 }, { 12, 12, 1 }, { 5, 7, 0 },
	};
	static const size_t counts[] = { 1, 2, 3, 17, 257, 1100 };
	const size_t stride = 264, max_n = 1100;
	uint8_t *buf = malloc(max_n * stride);
	int mismatches = 0, parts_mismatches = 0, checks = 0;

	if (!buf) {
		ok(0, "runs: out of memory");
		return;
	}
	for (size_t di = 0; di < sizeof(decs) / sizeof(decs[0]); di++) {
		struct pk_oa_decoder d;

		pk_oa_decoder_init(&d, decs[di].format, decs[di].graphics_ver, decs[di].shift);
		for (int how = FILL_RANDOM; how <= FILL_SAME; how++) {
			for (size_t i = 0; i < max_n; i++)
				fill_report(buf + i * stride, i, (enum fill)how);
			for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
				size_t n = counts[ci];
				uint64_t start[PK_OA_MAX_VALUES], want[PK_OA_MAX_VALUES], got[PK_OA_MAX_VALUES];

				for (int k = 0; k < PK_OA_MAX_VALUES; k++)
					start[k] = rng();   /* deltas add to what is there */
				memcpy(want, start, sizeof(want));
				for (size_t i = 1; i < n; i++)
					pk_oa_accumulate(&d, buf + (i - 1) * stride, buf + i * stride, want);
				memcpy(got, start, sizeof(got));
				pk_oa_accumulate_run(&d, buf, stride, n, got);
				checks++;
				if (memcmp(got, want, sizeof(got))) {
					mismatches++;
					diag("format %d shift %u fill %d: %zu reports differ", decs[di].format,
					     decs[di].shift, how, n);
				}
				for (size_t parts = 1; parts <= 8; parts += 3) {
					memcpy(got, start, sizeof(got));
					oa_accumulate_run_parts(&d, buf, stride, n, parts, got);
					if (memcmp(got, want, sizeof(got))) {
						parts_mismatches++;
						diag("format %d fill %d: %zu reports in parts of %zu pairs differ",
						     decs[di].format, how, n, parts);
					}
				}
			}
		}
	}
	is_int(checks, 4 * 4 * 6, "runs: every format, fill and length checked");
	is_int(mismatches, 0, "runs: a run's sums equal its pairs accumulated one by one");
	is_int(parts_mismatches, 0, "runs: the same taken in parts (1, 4, 7 pairs)");
	free(buf);
}

int main(void)
{
	test_records();
	test_formats();
	test_gen8();
	test_generations();
	test_platforms();
	test_topology();
	test_runs();
	return done_testing();
}
