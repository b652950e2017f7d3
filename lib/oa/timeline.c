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
 * Being sums over pairs, they can be built over two halves of a long
 * recording on two threads and joined where the halves meet.
 *
 * CPU time: reports carry 32 bits of timestamp (31 usable on DG2/MTL:
 * ts_mask), correlation points the full 36-bit register. Correlation points
 * are grouped in "chunks" of neighbours sharing their bits above the mask;
 * a timestamp inside a chunk's masked range belongs to that chunk's window.
 * Otherwise (IGT: "prior to the first point", which is wrong after a wrap)
 * perfkit takes the window that puts it nearest the correlated range. Then
 * linear interpolation between the bracketing points, extrapolation from
 * the first two points before the first and from the last two after the
 * last (where IGT asserts). One point: the slope is the timestamp frequency.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "recording_int.h"

typedef __int128 i128;

static uint64_t clamp_u64(i128 v)
{
	if (v < 0)
		return 0;
	if (v > (i128)UINT64_MAX)
		return UINT64_MAX;
	return (uint64_t)v;
}

int oa_index_correlations(struct pk_oa_recording *rec)
{
	const struct pk_oa_correlation *c = rec->corr;
	uint64_t mask = rec->dec.ts_mask, period = mask + 1;
	size_t cap = 0;

	rec->corr_sorted = true;
	rec->corr_lo = UINT64_MAX;
	rec->corr_hi = 0;
	rec->n_chunks = 0;
	for (size_t i = 0; i < rec->n_corr; i++) {
		uint64_t w = c[i].gpu_ts / period;

		if (i && c[i].gpu_ts < c[i - 1].gpu_ts)
			rec->corr_sorted = false;
		if (c[i].gpu_ts < rec->corr_lo)
			rec->corr_lo = c[i].gpu_ts;
		if (c[i].gpu_ts > rec->corr_hi)
			rec->corr_hi = c[i].gpu_ts;
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

	return clamp_u64((i128)p->cpu_ns + ((i128)g - (i128)p->gpu_ts) * 1000000000 / (i128)f);
}

static uint64_t line(const struct pk_oa_recording *rec, const struct pk_oa_correlation *a,
		     const struct pk_oa_correlation *b, uint64_t g)
{
	if (a->gpu_ts == b->gpu_ts)
		return by_frequency(rec, a, g);
	return clamp_u64((i128)a->cpu_ns + ((i128)g - (i128)a->gpu_ts) *
			 ((i128)b->cpu_ns - (i128)a->cpu_ns) / ((i128)b->gpu_ts - (i128)a->gpu_ts));
}

uint64_t pk_oa_recording_cpu_time(const struct pk_oa_recording *rec, uint32_t ts)
{
	const struct pk_oa_correlation *c = rec->corr;
	size_t n = rec->n_corr;
	uint64_t g;

	if (n == 0)
		return 0;
	g = unwrap(rec, ts);
	if (n == 1)
		return by_frequency(rec, &c[0], g);
	if (rec->corr_sorted) {
		/* the last point at or below g, at most the one before last */
		size_t lo = 0, hi = n - 1;

		if (g < c[0].gpu_ts)
			return line(rec, &c[0], &c[1], g);
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (c[mid].gpu_ts <= g)
				lo = mid;
			else
				hi = mid;
		}
		return line(rec, &c[lo], &c[lo + 1], g);
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (c[i].gpu_ts <= g && g < c[i + 1].gpu_ts)
			return line(rec, &c[i], &c[i + 1], g);
	if (g < c[0].gpu_ts)
		return line(rec, &c[0], &c[1], g);
	return line(rec, &c[n - 2], &c[n - 1], g);
}

void pk_oa_timeline_release(struct pk_oa_timeline *tl)
{
	free(tl->segments);
	memset(tl, 0, sizeof(*tl));
}

/* Reports accumulated at a time while a segment is open (in the cache after their headers). */
#define ACCUMULATE_CHUNK 256
/* How many reports ahead of the header being read its lines are fetched. */
#define PREFETCH_AHEAD 8
/* Recordings from this many reports on are split in two halves, one per thread. */
#define SPLIT_MIN_REPORTS 65536

/*
 * The segments over reports [lo, hi]: each pair (i, i + 1), lo <= i < hi,
 * goes to the segment of report i. @final: hi is the recording's last report.
 */
struct span {
	const struct pk_oa_recording *rec;
	size_t lo, hi;
	bool final;
	struct pk_oa_segment *segs;
	size_t n, cap;
	int err;
};

/* Open a segment of context @ctx at report @first: appended, its deltas zero. */
static int open_segment(struct span *sp, uint32_t ctx, size_t first)
{
	struct pk_oa_segment *seg;

	if (pk_array_grow((void **)&sp->segs, &sp->cap, sp->n + 1, sizeof(*sp->segs), 8))
		return -ENOMEM;
	seg = &sp->segs[sp->n++];
	memset(seg, 0, sizeof(*seg));
	seg->ctx_id = ctx;
	seg->first = first;
	return 0;
}

/*
 * Close the open segment at report @end (@last: the final report, which then
 * counts as one of its reports): the deltas from @done (accumulated up to
 * there already) to @end, and its times.
 */
static void close_segment(struct span *sp, size_t done, size_t end, bool last)
{
	const struct pk_oa_recording *rec = sp->rec;
	struct pk_oa_segment *seg = &sp->segs[sp->n - 1];
	struct pk_oa_report h;

	seg->end = end;
	seg->n_reports = end - seg->first + (last ? 1 : 0);
	pk_oa_recording_accumulate(rec, done, end, seg->deltas);
	pk_oa_report_header(&rec->dec, pk_oa_recording_report(rec, seg->first), &h);
	seg->gpu_ts_start = h.timestamp;
	pk_oa_report_header(&rec->dec, pk_oa_recording_report(rec, end), &h);
	seg->gpu_ts_end = h.timestamp;
	seg->cpu_ns_start = pk_oa_recording_cpu_time(rec, seg->gpu_ts_start);
	seg->cpu_ns_end = pk_oa_recording_cpu_time(rec, seg->gpu_ts_end);
}

/*
 * One pass over the span: the open segment's counters are accumulated every
 * ACCUMULATE_CHUNK reports and when it closes, while the reports whose
 * headers were just read are still in the cache.
 */
static void *build_span(void *arg)
{
	struct span *sp = arg;
	const struct pk_oa_recording *rec = sp->rec;
	struct pk_oa_report h;
	size_t done = sp->lo;

	pk_oa_report_header(&rec->dec, rec->reports[sp->lo], &h);
	if ((sp->err = open_segment(sp, h.ctx_id, sp->lo)))
		return NULL;
	for (size_t i = sp->lo + 1; i <= sp->hi; i++) {
		uint32_t cur = sp->segs[sp->n - 1].ctx_id;

		if (i + PREFETCH_AHEAD <= sp->hi)
			for (size_t b = 0; b < rec->stride; b += 64)
				__builtin_prefetch(rec->reports[i + PREFETCH_AHEAD] + b);
		pk_oa_report_header(&rec->dec, rec->reports[i], &h);
		if (h.ctx_id == cur) {
			if (i - done >= ACCUMULATE_CHUNK) {
				pk_oa_recording_accumulate(rec, done, i, sp->segs[sp->n - 1].deltas);
				done = i;
			}
			continue;
		}
		close_segment(sp, done, i, false);
		done = i;
		if ((sp->err = open_segment(sp, h.ctx_id, i)))
			return NULL;
	}
	close_segment(sp, done, sp->hi, sp->final);
	return NULL;
}

/*
 * Join span @b onto @a, which ends at @b's first report. That report is in
 * both: @a's last segment holds it as its end (empty when a new context
 * starts there) and @b's first as its start, so the two are one segment of
 * one context. Its sums add (they are sums over report pairs); its end and
 * report count follow from @b's.
 */
static int join_spans(struct span *a, struct span *b)
{
	struct pk_oa_segment *tail = &a->segs[a->n - 1];
	const struct pk_oa_segment *head = &b->segs[0];

	for (size_t k = 0; k < PK_OA_MAX_VALUES; k++)
		tail->deltas[k] += head->deltas[k];
	tail->end = head->end;
	tail->n_reports += head->n_reports;
	tail->gpu_ts_end = head->gpu_ts_end;
	tail->cpu_ns_end = head->cpu_ns_end;
	if (pk_array_grow((void **)&a->segs, &a->cap, a->n + b->n - 1, sizeof(*a->segs), 8))
		return -ENOMEM;
	memcpy(a->segs + a->n, b->segs + 1, (b->n - 1) * sizeof(*b->segs));
	a->n += b->n - 1;
	return 0;
}

/*
 * The segments of every report: in two halves on two threads for long
 * recordings on machines with two CPUs or more (memory is read faster by
 * two cores), else in one pass. The result is the same either way.
 */
static int build_segments(const struct pk_oa_recording *rec, size_t n, struct span *all)
{
	struct span second;
	pthread_t thread;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t mid = n / 2;
	int err;

	*all = (struct span){ .rec = rec, .lo = 0, .hi = n - 1, .final = true };
	if (n < SPLIT_MIN_REPORTS || cpus < 2) {
		build_span(all);
		return all->err;
	}
	all->hi = mid;
	all->final = false;
	second = (struct span){ .rec = rec, .lo = mid, .hi = n - 1, .final = true };
	if (pthread_create(&thread, NULL, build_span, &second) != 0) {
		build_span(&second);
	} else {
		build_span(all);
		pthread_join(thread, NULL);
	}
	err = all->err ? all->err : second.err ? second.err : join_spans(all, &second);
	free(second.segs);
	return err;
}

int pk_oa_timeline_build(const struct pk_oa_recording *rec, struct pk_oa_timeline *tl,
			 struct pk_diag *diag)
{
	const struct pk_oa_decoder *d = &rec->dec;
	struct pk_oa_report h;
	struct span all;
	size_t n = rec->n_reports;

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
	if (!n)
		return 0;
	pk_oa_report_header(d, pk_oa_recording_report(rec, 0), &h);
	tl->ts_first = h.timestamp;
	tl->raw_ts_first = h.raw_timestamp;
	pk_oa_report_header(d, pk_oa_recording_report(rec, n - 1), &h);
	tl->ts_last = h.timestamp;
	tl->raw_ts_last = h.raw_timestamp;
	if (build_segments(rec, n, &all)) {
		free(all.segs);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	/* a context whose only report is the last one holds no pair: no segment */
	if (all.n && all.segs[all.n - 1].first == n - 1)
		all.n--;
	tl->segments = all.segs;
	tl->n_segments = all.n;
	return 0;
}
