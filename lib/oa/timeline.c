/*
 * Timelines of a recording as IGT's i915-perf-reader builds them, and the
 * CPU time of a report timestamp.
 *
 * Segments: a new one starts at each report whose context (dw2 when the
 * generation's valid bit says so, else "idle") differs from the current
 * segment's; a segment's counters run from its first report to the next
 * segment's first (the last one to the last report), summed over
 * consecutive pairs so that counters wrapping between distant reports stay
 * exact; a context starting at the last report has no pair, so no segment.
 * Being sums over pairs, they are built in blocks, on two threads for long
 * recordings, even while the recording is read (segments.c); short
 * segments' counters are summed only when asked.
 *
 * CPU time: reports carry 32 bits of timestamp (31 usable on DG2/MTL:
 * ts_mask), correlation points the full 36-bit register. Correlation points
 * are taken in GPU time order, whatever their order in the file (IGT's
 * reader brackets by file order, so out-of-order points give it CPU ranges
 * that are not), and grouped in "chunks" of neighbours sharing their bits
 * above the mask;
 * a timestamp inside a chunk's masked range belongs to that chunk's window.
 * Otherwise (IGT: "prior to the first point", which is wrong after a wrap)
 * perfkit takes the window that puts it nearest the correlated range. Then
 * linear interpolation between the bracketing points, extrapolation from
 * the first two points before the first and from the last two after the
 * last (where IGT asserts). One point: the slope is the timestamp frequency.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "recording_int.h"

typedef __int128 i128;

#define I128_MIN ((i128)((unsigned __int128)1 << 127))

static uint64_t clamp_u64(i128 v)
{
	if (v < 0)
		return 0;
	if (v > (i128)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)v;
}

static uint64_t clamp_ld(long double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551616.0L)
		return UINT64_MAX;
	return (uint64_t)v;
}

/*
 * @base + @x * @y / @z (@z non-zero) in 128 bits, clamped to 0..UINT64_MAX.
 * Only timestamps and correlation points some 2^63 ticks and nanoseconds
 * apart (centuries: a hostile file) overflow 128 bits: those are computed
 * in long double instead, to a few ns.
 */
static uint64_t interpolate(i128 base, i128 x, i128 y, i128 z)
{
	i128 p, v;

	if (!__builtin_mul_overflow(x, y, &p) && p != I128_MIN &&
	    !__builtin_add_overflow(base, p / z, &v))
		return clamp_u64(v);
	return clamp_ld((long double)base + (long double)x * (long double)y / (long double)z);
}

static int by_gpu_time(const void *a, const void *b)
{
	const struct pk_oa_correlation *x = a, *y = b;

	if (x->gpu_ts != y->gpu_ts)
		return x->gpu_ts < y->gpu_ts ? -1 : 1;
	return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

/* rec->corr_sorted: a sorted copy of rec->corr when its points are not in GPU time order. */
static int order_correlations(struct pk_oa_recording *rec)
{
	size_t n = rec->n_corr;

	free(rec->corr_sorted);
	rec->corr_sorted = NULL;
	for (size_t i = 1; i < n; i++) {
		if (by_gpu_time(&rec->corr[i - 1], &rec->corr[i]) <= 0)
			continue;
		if (!(rec->corr_sorted = malloc(n * sizeof(*rec->corr_sorted))))
			return -ENOMEM;
		memcpy(rec->corr_sorted, rec->corr, n * sizeof(*rec->corr_sorted));
		qsort(rec->corr_sorted, n, sizeof(*rec->corr_sorted), by_gpu_time);
		break;
	}
	return 0;
}

/* The correlation points in GPU time order. */
static const struct pk_oa_correlation *by_gpu(const struct pk_oa_recording *rec)
{
	return rec->corr_sorted ? rec->corr_sorted : rec->corr;
}

int oa_index_correlations(struct pk_oa_recording *rec)
{
	const struct pk_oa_correlation *c;
	uint64_t mask = rec->dec.ts_mask, period = mask + 1;
	size_t cap = 0;

	if (order_correlations(rec))
		return -ENOMEM;
	c = by_gpu(rec);
	rec->corr_lo = rec->n_corr ? c[0].gpu_ts : UINT64_MAX;
	rec->corr_hi = rec->n_corr ? c[rec->n_corr - 1].gpu_ts : 0;
	rec->n_chunks = 0;
	for (size_t i = 0; i < rec->n_corr; i++) {
		uint64_t w = c[i].gpu_ts / period;

		if (rec->n_chunks && rec->chunks[rec->n_chunks - 1].window == w) {
			rec->chunks[rec->n_chunks - 1].hi = c[i].gpu_ts & mask;
			continue;
		}
		if (pk_array_grow((void **)&rec->chunks, &cap, rec->n_chunks + 1, sizeof(*rec->chunks), 4))
			return -ENOMEM;
		rec->chunks[rec->n_chunks++] = (struct oa_chunk){ w, c[i].gpu_ts & mask, c[i].gpu_ts & mask };
	}
	return 0;
}

/* The full GPU timestamp (in ticks, above-mask bits from a window) of report timestamp @ts. */
static uint64_t unwrap(const struct pk_oa_recording *rec, uint32_t ts)
{
	uint64_t mask = rec->dec.ts_mask, period = mask + 1;
	uint64_t lo = rec->corr_lo, hi = rec->corr_hi, best = 0, best_d = UINT64_MAX;
	uint64_t wl = lo / period, wh = hi / period;
	uint64_t cand[4] = { wl ? wl - 1 : 0, wl, wh, wh + 1 };

	ts &= (uint32_t)mask;
	for (size_t i = 0; i < rec->n_chunks; i++)
		if (rec->chunks[i].lo <= ts && ts <= rec->chunks[i].hi)
			return rec->chunks[i].window * period + ts;
	for (size_t i = 0; i < 4; i++) {
		uint64_t g = cand[i] * period + ts, d;

		d = g < lo ? lo - g : g > hi ? g - hi : 0;
		if (d < best_d)
			best_d = d, best = g;
	}
	return best;
}

static uint64_t by_frequency(const struct pk_oa_recording *rec, const struct pk_oa_correlation *p,
			     uint64_t g)
{
	uint64_t f = rec->timestamp_frequency ? rec->timestamp_frequency : 1;

	return interpolate(p->cpu_ns, (i128)g - (i128)p->gpu_ts, 1000000000, f);
}

static uint64_t line(const struct pk_oa_recording *rec, const struct pk_oa_correlation *a,
		     const struct pk_oa_correlation *b, uint64_t g)
{
	if (a->gpu_ts == b->gpu_ts)
		return by_frequency(rec, a, g);
	return interpolate(a->cpu_ns, (i128)g - (i128)a->gpu_ts, (i128)b->cpu_ns - (i128)a->cpu_ns,
			   (i128)b->gpu_ts - (i128)a->gpu_ts);
}

uint64_t pk_oa_recording_cpu_time(const struct pk_oa_recording *rec, uint32_t ts)
{
	const struct pk_oa_correlation *c = by_gpu(rec);
	size_t n = rec->n_corr, lo, hi;
	uint64_t g;

	if (n == 0)
		return 0;
	g = unwrap(rec, ts);
	if (n == 1)
		return by_frequency(rec, &c[0], g);
	/* the last point at or below g, but at least the first and at most the one before last */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid].gpu_ts <= g)
			lo = mid;
		else
			hi = mid;
	}
	return line(rec, &c[lo], &c[lo + 1], g);
}

void pk_oa_timeline_release(struct pk_oa_timeline *tl)
{
	free(tl->segments);
	free(tl->sums);
	memset(tl, 0, sizeof(*tl));
}

int pk_oa_timeline_deltas(const struct pk_oa_timeline *tl, const struct pk_oa_recording *rec,
			  size_t i, uint64_t *deltas)
{
	const struct pk_oa_segment *g;

	if (i >= tl->n_segments)
		return -ERANGE;
	g = &tl->segments[i];
	if (tl->n_reports != rec->n_reports || g->first > g->end || g->end >= rec->n_reports ||
	    (g->stored != SIZE_MAX && g->stored >= tl->n_sums))
		return -EINVAL;
	if (g->stored != SIZE_MAX) {
		memcpy(deltas, tl->sums[g->stored], sizeof(*tl->sums));
		return 0;
	}
	memset(deltas, 0, sizeof(*tl->sums));
	oa_accumulate_range(&rec->dec, rec->reports, g->first, g->end, deltas);
	return 0;
}

/*
 * The timeline of @rec from its segments (@job: built while it was read;
 * NULL: built now): the summary, the segments' CPU times, and the lone
 * last report's segment dropped.
 */
static int fill(const struct pk_oa_recording *rec, struct oa_segments *job,
		struct pk_oa_timeline *tl, struct pk_diag *diag)
{
	const struct pk_oa_decoder *d = &rec->dec;
	struct pk_oa_report h;
	size_t n = rec->n_reports;
	int err;

	memset(tl, 0, sizeof(*tl));
	tl->n_reports = n;
	tl->n_correlations = rec->n_corr;
	tl->cpu_valid = rec->n_corr > 0;
	if (rec->n_corr) {
		tl->corr_cpu_first = rec->corr[0].cpu_ns;
		tl->corr_gpu_first = rec->corr[0].gpu_ts;
		tl->corr_cpu_last = rec->corr[rec->n_corr - 1].cpu_ns;
		tl->corr_gpu_last = rec->corr[rec->n_corr - 1].gpu_ts;
	}
	if (!n) {
		oa_segments_cancel(job);
		return 0;
	}
	pk_oa_report_header(d, pk_oa_recording_report(rec, 0), &h);
	tl->ts_first = h.timestamp;
	tl->raw_ts_first = h.raw_timestamp;
	pk_oa_report_header(d, pk_oa_recording_report(rec, n - 1), &h);
	tl->ts_last = h.timestamp;
	tl->raw_ts_last = h.raw_timestamp;
	err = job ? oa_segments_finish(job, n, tl) : oa_segments_build(d, rec->reports, n, tl);
	if (err) {
		pk_oa_timeline_release(tl);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	/* a context whose only report is the last one holds no pair: no segment */
	if (tl->n_segments && tl->segments[tl->n_segments - 1].first == n - 1)
		tl->n_segments--;
	for (size_t i = 0; i < tl->n_segments; i++) {
		struct pk_oa_segment *seg = &tl->segments[i];

		seg->cpu_ns_start = pk_oa_recording_cpu_time(rec, seg->gpu_ts_start);
		seg->cpu_ns_end = pk_oa_recording_cpu_time(rec, seg->gpu_ts_end);
	}
	return 0;
}

int pk_oa_timeline_build(const struct pk_oa_recording *rec, struct pk_oa_timeline *tl,
			 struct pk_diag *diag)
{
	return fill(rec, NULL, tl, diag);
}

int pk_oa_timeline_read_file(const char *path, const struct pk_oa_stream_device *sd,
			     struct pk_oa_recording **out, struct pk_oa_timeline *tl,
			     struct pk_diag *diag)
{
	struct oa_follow fw = { 0 };
	int err;

	memset(tl, 0, sizeof(*tl));
	if ((err = oa_recording_read_file_following(path, sd, out, &fw, diag)))
		return err;
	if ((err = fill(*out, fw.job, tl, diag))) {
		pk_diag_subject(diag, path);
		pk_oa_recording_free(*out);
		*out = NULL;
	}
	return err;
}
