/*
 * The segments of a recording (timeline.c gives their rules), built in
 * blocks of BLOCK_REPORTS reports on up to two threads, and joined in order
 * as blocks are done. Adjacent blocks share one report (block k is reports
 * [k * B, (k + 1) * B]); a segment's counters are sums over report pairs,
 * so a block's first segment continues the previous block's last one.
 *
 * The blocks can be built while the recording is still being read
 * (oa_segments_follow): the reader publishes how many reports it has
 * indexed, a worker builds each block soon after its reports were read,
 * while they are still in the cache, and the reader's thread takes its
 * share of the blocks when the worker falls behind (LAG_BLOCKS) and when
 * the reading is done. Memory is then read once, not twice (once to find
 * the reports, once to accumulate them).
 *
 * CPU times are not set here: they need every correlation point, which the
 * reader has seen only at the end.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "recording_int.h"

/* Reports per block: 2 MB of 256-byte reports, still in the last-level cache when built. */
#define BLOCK_REPORTS 8192
/* Reports accumulated at a time while a segment is open (in the cache after their headers). */
#define ACCUMULATE_CHUNK 256
/* How many reports ahead of the header being read its lines are fetched. */
#define PREFETCH_AHEAD 8
/*
 * Ready blocks the worker may leave unbuilt before the reader builds one
 * itself: further behind, its reports would have left the cache.
 */
#define LAG_BLOCKS 4
/* From this many reports on, a second thread builds blocks. */
#define TWO_THREADS_MIN_REPORTS 65536

/* The segments over reports [lo, hi]: each pair (i, i + 1), lo <= i < hi, goes to report i's. */
struct span {
	size_t lo, hi;
	bool final;               /* hi is the recording's last report */
	bool built;
	struct pk_oa_segment *segs;
	size_t n, cap;
	int err;
};

struct oa_segments {
	struct pk_oa_decoder dec;
	const uint8_t *const *reports;
	size_t stride;
	pthread_mutex_t lock;
	pthread_cond_t more;      /* ready grew, or all_ready or cancelled was set */
	size_t ready;             /* reports indexed so far */
	bool all_ready;           /* ready is the recording's report count */
	bool cancelled;
	size_t next;              /* the next block to claim */
	size_t joined;            /* blocks joined into result */
	struct span *blocks;
	size_t max_blocks;
	struct span result;
	pthread_t worker;
	bool have_worker;
	int err;
};

static size_t blocks_for(size_t n)
{
	return n <= 1 ? n : (n - 2) / BLOCK_REPORTS + 1;
}

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
 * there already) to @end, and its GPU times.
 */
static void close_segment(const struct oa_segments *job, struct span *sp, size_t done,
			  size_t end, bool last)
{
	struct pk_oa_segment *seg = &sp->segs[sp->n - 1];
	struct pk_oa_report h;

	seg->end = end;
	seg->n_reports = end - seg->first + (last ? 1 : 0);
	oa_accumulate_range(&job->dec, job->reports, done, end, seg->deltas);
	pk_oa_report_header(&job->dec, job->reports[seg->first], &h);
	seg->gpu_ts_start = h.timestamp;
	pk_oa_report_header(&job->dec, job->reports[end], &h);
	seg->gpu_ts_end = h.timestamp;
}

/*
 * One pass over the span: the open segment's counters are accumulated every
 * ACCUMULATE_CHUNK reports and when it closes, while the reports whose
 * headers were just read are still in the cache.
 */
static void build_span(const struct oa_segments *job, struct span *sp)
{
	const uint8_t *const *reports = job->reports;
	size_t done = sp->lo;

	if ((sp->err = open_segment(sp, oa_report_ctx(&job->dec, reports[sp->lo]), sp->lo)))
		return;
	for (size_t i = sp->lo + 1; i <= sp->hi; i++) {
		uint32_t cur = sp->segs[sp->n - 1].ctx_id, ctx;

		if (i + PREFETCH_AHEAD <= sp->hi)
			for (size_t b = 0; b < job->stride; b += 64)
				__builtin_prefetch(reports[i + PREFETCH_AHEAD] + b);
		ctx = oa_report_ctx(&job->dec, reports[i]);
		if (ctx == cur) {
			if (i - done >= ACCUMULATE_CHUNK) {
				oa_accumulate_range(&job->dec, reports, done, i,
						    sp->segs[sp->n - 1].deltas);
				done = i;
			}
			continue;
		}
		close_segment(job, sp, done, i, false);
		done = i;
		if ((sp->err = open_segment(sp, ctx, i)))
			return;
	}
	close_segment(job, sp, done, sp->hi, sp->final);
}

/*
 * Join span @b onto @a, which ends at @b's first report. That report is in
 * both: @a's last segment holds it as its end (empty when a new context
 * starts there) and @b's first as its start, so the two are one segment of
 * one context. Its sums add (they are sums over report pairs); its end and
 * report count follow from @b's. @b's segments are released.
 */
static int join_span(struct span *a, struct span *b)
{
	struct pk_oa_segment *tail;
	const struct pk_oa_segment *head = &b->segs[0];
	int err = 0;

	if (!a->n) {
		*a = *b;
		b->segs = NULL;
		return 0;
	}
	tail = &a->segs[a->n - 1];
	for (size_t k = 0; k < PK_OA_MAX_VALUES; k++)
		tail->deltas[k] += head->deltas[k];
	tail->end = head->end;
	tail->n_reports += head->n_reports;
	tail->gpu_ts_end = head->gpu_ts_end;
	if (pk_array_grow((void **)&a->segs, &a->cap, a->n + b->n - 1, sizeof(*a->segs), 8)) {
		err = -ENOMEM;
	} else {
		memcpy(a->segs + a->n, b->segs + 1, (b->n - 1) * sizeof(*b->segs));
		a->n += b->n - 1;
	}
	free(b->segs);
	b->segs = NULL;
	return err;
}

/* Block @k can be built: its reports are indexed, and whether it is the last is known. */
static bool block_ready(const struct oa_segments *job, size_t k)
{
	if (job->all_ready)
		return k < blocks_for(job->ready);
	return (k + 1) * BLOCK_REPORTS + 2 <= job->ready;
}

/* Claim the next block, which is ready (the lock held): its index, its span's bounds set. */
static size_t claim_locked(struct oa_segments *job)
{
	size_t k = job->next++, n = job->ready;
	struct span *sp = &job->blocks[k];

	sp->lo = k * BLOCK_REPORTS;
	sp->hi = (k + 1) * BLOCK_REPORTS;
	if (job->all_ready && sp->hi >= n - 1)
		sp->hi = n - 1;
	sp->final = job->all_ready && sp->hi == n - 1;
	return k;
}

/*
 * Claim the next block once it is ready: its index (SIZE_MAX when none is
 * left, or the job was cancelled or failed).
 */
static size_t claim_block(struct oa_segments *job)
{
	size_t k = SIZE_MAX;

	pthread_mutex_lock(&job->lock);
	while (!job->cancelled && !job->err && !block_ready(job, job->next) &&
	       !(job->all_ready && job->next >= blocks_for(job->ready)))
		pthread_cond_wait(&job->more, &job->lock);
	if (!job->cancelled && !job->err && block_ready(job, job->next))
		k = claim_locked(job);
	pthread_mutex_unlock(&job->lock);
	return k;
}

/* Block @k is built: join every built block that follows the joined ones. */
static void block_built(struct oa_segments *job, size_t k)
{
	pthread_mutex_lock(&job->lock);
	job->blocks[k].built = true;
	if (job->blocks[k].err && !job->err)
		job->err = job->blocks[k].err;
	while (!job->err && job->joined < job->max_blocks && job->blocks[job->joined].built) {
		int err = join_span(&job->result, &job->blocks[job->joined]);

		if (err)
			job->err = err;
		job->joined++;
	}
	if (job->err)
		pthread_cond_broadcast(&job->more);
	pthread_mutex_unlock(&job->lock);
}

/* Build blocks until none is left: the worker's loop, and the reader's once it has read all. */
static void *build_blocks(void *arg)
{
	struct oa_segments *job = arg;
	size_t k;

	while ((k = claim_block(job)) != SIZE_MAX) {
		build_span(job, &job->blocks[k]);
		block_built(job, k);
	}
	return NULL;
}

static void job_free(struct oa_segments *job)
{
	for (size_t k = 0; k < job->max_blocks; k++)
		free(job->blocks[k].segs);
	free(job->blocks);
	free(job->result.segs);
	pthread_cond_destroy(&job->more);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

/* A job over at most @max_reports reports, and its worker when @worker. NULL: out of memory. */
static struct oa_segments *job_new(const struct pk_oa_decoder *dec,
				   const uint8_t *const *reports, size_t max_reports, bool worker)
{
	struct oa_segments *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->dec = *dec;
	job->reports = reports;
	job->stride = dec->fmt->report_size;
	job->max_blocks = blocks_for(max_reports);
	pthread_mutex_init(&job->lock, NULL);
	pthread_cond_init(&job->more, NULL);
	if (job->max_blocks && !(job->blocks = calloc(job->max_blocks, sizeof(*job->blocks)))) {
		job_free(job);
		return NULL;
	}
	if (worker)
		job->have_worker = pthread_create(&job->worker, NULL, build_blocks, job) == 0;
	return job;
}

bool oa_segments_two_threads(size_t n_reports)
{
	return n_reports >= TWO_THREADS_MIN_REPORTS && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

struct oa_segments *oa_segments_follow(const struct pk_oa_decoder *dec,
				       const uint8_t *const *reports, size_t max_reports)
{
	struct oa_segments *job = job_new(dec, reports, max_reports, true);

	if (job && !job->have_worker) {
		job_free(job);
		return NULL;
	}
	return job;
}

void oa_segments_publish(struct oa_segments *job, size_t n_ready)
{
	size_t k = SIZE_MAX;

	pthread_mutex_lock(&job->lock);
	job->ready = n_ready;
	pthread_cond_signal(&job->more);
	/* the worker fell behind: the reader builds the oldest block waiting */
	if (!job->err && !job->cancelled && block_ready(job, job->next + LAG_BLOCKS))
		k = claim_locked(job);
	pthread_mutex_unlock(&job->lock);
	if (k != SIZE_MAX) {
		build_span(job, &job->blocks[k]);
		block_built(job, k);
	}
}

void oa_segments_cancel(struct oa_segments *job)
{
	if (!job)
		return;
	pthread_mutex_lock(&job->lock);
	job->cancelled = true;
	pthread_cond_broadcast(&job->more);
	pthread_mutex_unlock(&job->lock);
	if (job->have_worker)
		pthread_join(job->worker, NULL);
	job_free(job);
}

int oa_segments_finish(struct oa_segments *job, size_t n, struct pk_oa_segment **segs,
		       size_t *n_segs)
{
	int err;

	pthread_mutex_lock(&job->lock);
	job->ready = n;
	job->all_ready = true;
	pthread_cond_broadcast(&job->more);
	pthread_mutex_unlock(&job->lock);
	build_blocks(job);
	if (job->have_worker)
		pthread_join(job->worker, NULL);
	err = job->err;
	if (!err && job->joined != blocks_for(n))
		err = -EPROTO;        /* cannot happen: every block was claimed and built */
	*segs = err ? NULL : job->result.segs;
	*n_segs = err ? 0 : job->result.n;
	if (!err)
		job->result.segs = NULL;
	job_free(job);
	return err;
}

int oa_segments_build(const struct pk_oa_decoder *dec, const uint8_t *const *reports, size_t n,
		      struct pk_oa_segment **segs, size_t *n_segs)
{
	/* a worker waits until finish says every report is ready */
	struct oa_segments *job = job_new(dec, reports, n, oa_segments_two_threads(n));

	*segs = NULL;
	*n_segs = 0;
	return job ? oa_segments_finish(job, n, segs, n_segs) : -ENOMEM;
}
