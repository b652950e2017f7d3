/*
 * A generator of IGT recordings for the oa tests and benchmark
 * (tests/unit/test_oa_report.c, bench/oa_report.c): reports of a chosen
 * format with pseudo-random but plausible counter increments (every counter
 * advances by less than the GPU clock count of its period), contexts that
 * change every few reports, optional invalid contexts, LOST records, report
 * reasons other than timer, and start values close to 2^32 and 2^40 so that
 * counters and the timestamp wrap. Written with perfkit's writer
 * (pk_oa_write_*).
 */
#ifndef PERFKIT_TESTS_OA_GEN_H
#define PERFKIT_TESTS_OA_GEN_H

#include <string.h>
#include <perfkit/oa.h>

struct oa_gen {
	uint32_t pci_id;
	int format;                  /* PK_OA_FORMAT_* */
	int graphics_ver;            /* selects the context-valid bit */
	unsigned ts_shift;           /* 1 on DG2 */
	uint64_t ts_freq;
	const char *set, *uuid;
	const struct pk_oa_topology *topo;
	size_t n_reports;
	uint32_t period;             /* timestamp ticks between reports */
	uint64_t ts0;                /* 64-bit GPU timestamp of the first report */
	uint64_t a40_start;          /* first value of the 40-bit counters */
	uint32_t u32_start;          /* first value of the 32-bit counters */
	unsigned ctx_every;          /* a new context every N reports (0: one context) */
	unsigned invalid_every;      /* every Nth report without a valid context (0: none) */
	unsigned lost_every;         /* a REPORT_LOST record after every Nth report (0: none) */
	unsigned reason_every;       /* every Nth report one of reason_bits (0: all timer) */
	uint32_t reason_bits;        /* those reports' reason field (1 << 3: context switch) */
	unsigned corr_every;         /* a correlation point every N reports (0: first and last) */
	unsigned clk_per_tick;       /* GPU clock ticks per timestamp tick, about (0: 1) */
	uint64_t seed;
	uint64_t *clk_total;         /* if set: how far the 32-bit GPU clock advanced in all, unwrapped */
};

static inline uint32_t oa_gen_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static inline void oa_gen_put32(uint8_t *r, unsigned dw, uint32_t v)
{
	memcpy(r + 4 * dw, &v, 4);
}

static inline void oa_gen_put40(uint8_t *r, unsigned dw, unsigned hi, uint64_t v)
{
	oa_gen_put32(r, dw, (uint32_t)v);
	r[hi] = (uint8_t)(v >> 32);
}

static inline uint64_t oa_gen_cpu(const struct oa_gen *g, uint64_t gpu)
{
	return 1000000000000ull + (uint64_t)((__int128)(gpu - g->ts0 + g->period) * 1000000000 /
					     (__int128)g->ts_freq);
}

/* The whole recording into @b. 0 or a negative errno. */
static inline int oa_gen_write(const struct oa_gen *g, struct pk_buf *b)
{
	struct pk_oa_device_info di = { 0 };
	uint64_t a40[64], u32[64], seed = g->seed ? g->seed : 1;
	uint32_t clk = g->u32_start;
	uint64_t clk_span = (uint64_t)g->period * (g->clk_per_tick ? g->clk_per_tick : 1);
	uint8_t r[256];
	int err;

	di.timestamp_frequency = g->ts_freq;
	di.device_id = g->pci_id;
	di.revision = 0;
	di.gt_min_frequency = 300000000;
	di.gt_max_frequency = 1000000000;
	di.oa_format = (uint32_t)g->format;
	snprintf(di.metric_set_name, sizeof(di.metric_set_name), "%s", g->set);
	snprintf(di.metric_set_uuid, sizeof(di.metric_set_uuid), "%s", g->uuid);
	for (int i = 0; i < 64; i++) {
		a40[i] = g->a40_start + (uint64_t)i * 977;
		u32[i] = (uint64_t)g->u32_start + (uint64_t)i * 131;
	}
	if (g->clk_total)
		*g->clk_total = 0;
	if ((err = pk_oa_write_version(b, 1)) || (err = pk_oa_write_device_info(b, &di)) ||
	    (err = pk_oa_write_topology(b, g->topo)) ||
	    (err = pk_oa_write_correlation(b, oa_gen_cpu(g, g->ts0 - g->period), g->ts0 - g->period)))
		return err;
	for (size_t i = 0; i < g->n_reports; i++) {
		uint64_t ts = g->ts0 + (uint64_t)i * g->period;
		uint32_t ctx = 0x20u * (uint32_t)(1 + (g->ctx_every ? i / g->ctx_every % 5 : 0));
		bool valid = !(g->invalid_every && i % g->invalid_every == g->invalid_every - 1);
		/* reports 1, N + 1, 2N + 1, ... (N = 1: all) */
		bool other = g->reason_every && i % g->reason_every == (g->reason_every > 1);
		uint32_t reason = other ? g->reason_bits : 1u << 0;
		/* clock ticks since the last report: below 2^32 (clk_span is) */
		uint64_t dclk = clk_span - clk_span / 5 + oa_gen_rand(&seed) % (clk_span / 5 + 1);
		uint32_t dw0 = reason << 19;

		if (valid && g->graphics_ver == 8)
			dw0 |= 1u << 25;
		else if (valid && g->graphics_ver >= 9 && g->graphics_ver < 12)
			dw0 |= 1u << 16;
		memset(r, 0, sizeof(r));
		clk += i ? (uint32_t)dclk : 0;
		if (g->clk_total && i)
			*g->clk_total += dclk;
		for (int k = 0; k < 64; k++) {
			uint32_t inc = i ? (uint32_t)(oa_gen_rand(&seed) % (dclk + 1)) : 0;

			a40[k] = (a40[k] + inc) & ((1ull << 40) - 1);
			u32[k] = (uint32_t)(u32[k] + inc);
		}
		oa_gen_put32(r, 0, dw0);
		oa_gen_put32(r, 1, (uint32_t)(ts << g->ts_shift));
		oa_gen_put32(r, 2, ctx);
		if (g->format == PK_OA_FORMAT_A45_B8_C8) {
			for (unsigned k = 3; k < 64; k++)
				oa_gen_put32(r, k, (uint32_t)u32[k]);
		} else if (g->format == PK_OA_FORMAT_A24u40_A14u32_B8_C8) {
			oa_gen_put32(r, 3, clk);
			for (unsigned k = 4; k < 64; k++)
				oa_gen_put32(r, k, (uint32_t)u32[k]);
			for (unsigned k = 8; k < 28; k++)
				oa_gen_put40(r, k, 160 + (k - 4), a40[k]);
			for (unsigned k = 32; k < 36; k++)
				oa_gen_put40(r, k, 160 + (k - 4), a40[k]);
		} else {
			oa_gen_put32(r, 3, clk);
			for (unsigned k = 4; k < 36; k++)
				oa_gen_put40(r, k, 160 + (k - 4), a40[k]);
			for (unsigned k = 36; k < 40; k++)
				oa_gen_put32(r, k, (uint32_t)u32[k]);
			for (unsigned k = 48; k < 64; k++)
				oa_gen_put32(r, k, (uint32_t)u32[k]);
		}
		if ((err = pk_oa_write_sample(b, r, sizeof(r))))
			return err;
		if (g->lost_every && i % g->lost_every == g->lost_every - 1 &&
		    (err = pk_oa_write_lost(b, PK_OA_RECORD_REPORT_LOST)))
			return err;
		if (g->corr_every && i && i % g->corr_every == 0 && i + 1 < g->n_reports &&
		    (err = pk_oa_write_correlation(b, oa_gen_cpu(g, ts + g->period / 2), ts + g->period / 2)))
			return err;
	}
	{
		uint64_t last = g->ts0 + (uint64_t)g->n_reports * g->period;

		return pk_oa_write_correlation(b, oa_gen_cpu(g, last), last);
	}
}

#endif
