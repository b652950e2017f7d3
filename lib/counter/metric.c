/*
 * The derived metrics perf stat (6.1) prints after '#': CPUs utilized for
 * the clocks, GHz and insn per cycle, miss ratios against their access
 * counts, stalled-cycle percentages, and for every other event its rate
 * per second of task-clock with a K/M/G prefix, each in perf's format;
 * and the second line perf adds under instructions, stalled cycles per
 * insn. Two tables drive it: which events feed the context, and which
 * ratio each event shows.
 */
#include <stddef.h>
#include <perfkit/counter.h>

#define CACHE_CFG(cache, op, result) \
	((__u64)(cache) | ((__u64)(op) << 8) | ((__u64)(result) << 16))
#define CACHE_LOADS(cache) \
	CACHE_CFG(cache, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS)
#define CACHE_LOAD_MISSES(cache) \
	CACHE_CFG(cache, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)

#define CTX(field) offsetof(struct pk_metric_ctx, field)

/* Events whose values the metrics of other events refer to. */
static const struct ctx_input {
	__u32 type;
	__u64 config;
	size_t off;
} ctx_inputs[] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CTX(task_clock_ns) },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, CTX(task_clock_ns) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, CTX(cycles) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, CTX(instructions) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, CTX(branches) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, CTX(cache_refs) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, CTX(stalled_front) },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, CTX(stalled_back) },
	{ PERF_TYPE_HW_CACHE, CACHE_LOADS(PERF_COUNT_HW_CACHE_L1D), CTX(l1d_loads) },
	{ PERF_TYPE_HW_CACHE, CACHE_LOADS(PERF_COUNT_HW_CACHE_L1I), CTX(l1i_loads) },
	{ PERF_TYPE_HW_CACHE, CACHE_LOADS(PERF_COUNT_HW_CACHE_LL), CTX(llc_loads) },
	{ PERF_TYPE_HW_CACHE, CACHE_LOADS(PERF_COUNT_HW_CACHE_DTLB), CTX(dtlb_loads) },
	{ PERF_TYPE_HW_CACHE, CACHE_LOADS(PERF_COUNT_HW_CACHE_ITLB), CTX(itlb_loads) },
};

/* perf 6.1's value formats after '#' (stat-shadow.c) */
#define F_NUM "%8.3f"        /* rates, CPUs utilized, GHz */
#define F_PCT "%7.2f%%"      /* most miss and idle ratios */
#define F_IPC "%7.2f "       /* insn per cycle, stalled cycles per insn */
#define F_PCT_SP "%8.3f %%"  /* cache misses */

/* Events shown as value / denominator (times 100 for percentages). */
static const struct ratio_rule {
	__u32 type;
	__u64 config;
	size_t denom;
	const char *unit;
	bool percent;
	const char *fmt;
	const char *absent_unit;   /* perf's JSON unit without a denominator, if not @unit */
} ratio_rules[] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, CTX(wall_ns), "CPUs utilized", false,
	  F_NUM, NULL },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, CTX(wall_ns), "CPUs utilized", false,
	  F_NUM, NULL },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, CTX(task_clock_ns), "GHz", false, F_NUM,
	  "Ghz" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, CTX(cycles), "insn per cycle", false,
	  F_IPC, NULL },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, CTX(branches), "of all branches",
	  true, F_PCT, NULL },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, CTX(cache_refs), "of all cache refs",
	  true, F_PCT_SP, NULL },
	{ PERF_TYPE_HW_CACHE, CACHE_LOAD_MISSES(PERF_COUNT_HW_CACHE_L1D), CTX(l1d_loads),
	  "of all L1-dcache accesses", true, F_PCT, NULL },
	{ PERF_TYPE_HW_CACHE, CACHE_LOAD_MISSES(PERF_COUNT_HW_CACHE_L1I), CTX(l1i_loads),
	  "of all L1-icache accesses", true, F_PCT, NULL },
	{ PERF_TYPE_HW_CACHE, CACHE_LOAD_MISSES(PERF_COUNT_HW_CACHE_LL), CTX(llc_loads),
	  "of all LL-cache accesses", true, F_PCT, NULL },
	{ PERF_TYPE_HW_CACHE, CACHE_LOAD_MISSES(PERF_COUNT_HW_CACHE_DTLB), CTX(dtlb_loads),
	  "of all dTLB cache accesses", true, F_PCT, NULL },
	{ PERF_TYPE_HW_CACHE, CACHE_LOAD_MISSES(PERF_COUNT_HW_CACHE_ITLB), CTX(itlb_loads),
	  "of all iTLB cache accesses", true, F_PCT, NULL },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, CTX(cycles),
	  "frontend cycles idle", true, F_PCT, NULL },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, CTX(cycles),
	  "backend cycles idle", true, F_PCT, NULL },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static double *ctx_field(struct pk_metric_ctx *m, size_t off)
{
	return (double *)((char *)m + off);
}

static double ctx_value(const struct pk_metric_ctx *m, size_t off)
{
	return *(const double *)((const char *)m + off);
}

void pk_metric_ctx_add(struct pk_metric_ctx *m, const struct pk_event *ev, double value)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(ctx_inputs); i++) {
		if (pk_event_is(ev, ctx_inputs[i].type, ctx_inputs[i].config)) {
			*ctx_field(m, ctx_inputs[i].off) += value;
			return;
		}
	}
}

/* Events per second of task-clock, with perf's K/M/G prefixes ("76.440 K/sec"). */
static void rate_metric(double value, double task_clock_ns, struct pk_metric *out)
{
	double r = value * 1e9 / task_clock_ns;

	out->fmt = F_NUM;
	if (r > 1e9) {
		out->value = r / 1e9;
		out->unit = "G/sec";
	} else if (r > 1e6) {
		out->value = r / 1e6;
		out->unit = "M/sec";
	} else if (r > 1e3) {
		out->value = r / 1e3;
		out->unit = "K/sec";
	} else {
		out->value = r;
		out->unit = "/sec";
	}
}

bool pk_metric_compute(const struct pk_metric_ctx *ctx, const struct pk_event *ev,
		       double value, struct pk_metric *out)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(ratio_rules); i++) {
		const struct ratio_rule *r = &ratio_rules[i];
		double denom;

		if (!pk_event_is(ev, r->type, r->config))
			continue;
		denom = ctx_value(ctx, r->denom);
		out->unit = r->unit;
		out->fmt = r->fmt;
		if (!(denom > 0)) {
			if (r->absent_unit)
				out->unit = r->absent_unit;
			return false;
		}
		out->value = (r->percent ? 100.0 : 1.0) * value / denom;
		return true;
	}
	if (!(ctx->task_clock_ns > 0)) {
		out->unit = NULL;
		return false;
	}
	rate_metric(value, ctx->task_clock_ns, out);
	return true;
}

bool pk_metric_extra(const struct pk_metric_ctx *ctx, const struct pk_event *ev, double value,
		     struct pk_metric *out)
{
	double stalled = ctx->stalled_front > ctx->stalled_back ? ctx->stalled_front :
								 ctx->stalled_back;

	if (!pk_event_is(ev, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS) || !(stalled > 0) ||
	    !(value > 0))
		return false;
	out->value = stalled / value;
	out->unit = "stalled cycles per insn";
	out->fmt = F_IPC;
	return true;
}
