/*
 * Scaling a raw count the way perf stat does: when the kernel multiplexed
 * the counter (time_running < time_enabled) the value is extrapolated to
 * the whole enabled time and the running percentage is kept for display;
 * a counter that never ran is "<not counted>". Also field-wise deltas for
 * interval printing.
 */
#include <perfkit/counter.h>

void pk_counts_scale(const struct pk_counts *c, struct pk_scaled *out)
{
	out->value = (double)c->val;
	out->counted = c->run != 0;
	out->multiplexed = false;
	out->pct_running = 100.0;
	if (!out->counted) {
		out->value = 0;
		if (c->ena)
			out->pct_running = 0;
		return;
	}
	if (c->ena && c->run < c->ena) {
		out->multiplexed = true;
		out->value = (double)c->val * (double)c->ena / (double)c->run;
		out->pct_running = 100.0 * (double)c->run / (double)c->ena;
	}
}

void pk_counts_delta(const struct pk_counts *a, const struct pk_counts *b,
		     struct pk_counts *out)
{
	out->val = a->val - b->val;
	out->ena = a->ena - b->ena;
	out->run = a->run - b->run;
	out->lost = a->lost - b->lost;
}
