/*
 * Statistics over repeated runs (perf stat -r): a running mean and sum of
 * squared deviations updated with Welford's method, which stays accurate
 * for large counts, and the standard deviation of the mean that perf
 * prints as "( +- x.xx% )".
 */
#include <math.h>
#include <perfkit/counter.h>

void pk_stats_update(struct pk_stats *s, double v)
{
	double delta;

	s->n += 1;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

double pk_stats_stddev_mean(const struct pk_stats *s)
{
	double var;

	if (s->n < 2)
		return 0;
	var = s->m2 / (s->n - 1);
	return sqrt(var / s->n);
}

double pk_stats_rel_pct(const struct pk_stats *s)
{
	if (s->mean == 0)
		return 0;
	return 100.0 * pk_stats_stddev_mean(s) / s->mean;
}
