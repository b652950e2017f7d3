/*
 * The segments of a recording (timeline.c gives their rules), built in
 * blocks of BLOCK_REPORTS reports on up to two threads, and joined in order
 * as blocks are done. Adjacent blocks share one report (block k is reports
 * [k * B, (k + 1) * B]); a segment's counters are sums over report pairs,
 * so a block's first segment continues the previous block's last one.
 *
 * Only segments of STORE_MIN_PAIRS pairs and more keep their sums (512
 * bytes), in an array beside the segments (64 bytes each); shorter ones are
 * summed when asked (pk_oa_timeline_deltas), from a few reports. A block's
 * first and last segments keep theirs whatever their length, because they
 * may be parts of one segment with the neighbouring block's. So a recording
 * whose context changes at every report needs 64 bytes a report, not 568,
 * and the sums take at most an eighth of the reports' own size.
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
#include <perfkit/oa.h>
#include "recording_int.h"

/* Reports per block: 2 MB of 256-byte reports, still in the last-level cache when built. */
#define BLOCK_REPORTS 8192
/* Pairs from which a segment keeps its sums. */
#define STORE_MIN_PAIRS 16
/* Reports accumulated at a time while a segment is open (in the cache after their headers). */
#define ACCUMULATE_CHUNK 256
_Static_assert(STORE_MIN_PAIRS <= ACCUMULATE_CHUNK, "a segment that sums as it goes keeps its sums");
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
	uint64_t (*sums)[PK_OA_MAX_VALUES];   /* of the segments that keep theirs, in order */
	size_t n_sums, cap_sums;
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
	bool joining;             /* a thread is joining blocks (outside the lock) */
	struct span *blocks;
	size_t max_blocks;
	size_t expected_blocks;   /* what the recording likely holds: the joined arrays grow for it */
	struct span result;
	pthread_t worker;
	bool have_worker;
	int err;
};

static size_t blocks_for(size_t n)
{
	return n <= 1 ? n : (n - 2) / BLOCK_REPORTS + 1;
}

/* The timestamp of report @i. */
static uint32_t report_ts(const struct oa_segments *job, size_t i)
{
	struct pk_oa_report h;

	pk_oa_report_header(&job->dec, job->reports[i], &h);
	return h.timestamp;
}

/* Open a segment of context @ctx at report @first: appended. */
static int open_segment(const struct oa_segments *job, struct span *sp, uint32_t ctx, size_t first)
{
	struct pk_oa_segment *seg;

	if (pk_array_grow((void **)&sp->segs, &sp->cap, sp->n + 1, sizeof(*sp->segs), 64))
		return -ENOMEM;
	seg = &sp->segs[sp->n++];
	memset(seg, 0, sizeof(*seg));
	seg->ctx_id = ctx;
	seg->first = first;
	seg->gpu_ts_start = report_ts(job, first);
	return 0;
}

/*
 * Close the open segment at report @end (@last: the final report, which
 * then counts as one of its reports). @sum holds its pairs up to @done; it
 * keeps them, with the rest added, when it is long or at an end of the
 * span, and @sum is cleared for the next. 0 or -ENOMEM.
 */
static int close_segment(const struct oa_segments *job, struct span *sp, uint64_t *sum,
			 size_t done, size_t end, bool last)
{
	struct pk_oa_segment *seg = &sp->segs[sp->n - 1];

	seg->end = end;
	seg->n_reports = end - seg->first + (last ? 1 : 0);
	seg->gpu_ts_end = report_ts(job, end);
	seg->stored = SIZE_MAX;
	if (end - seg->first >= STORE_MIN_PAIRS || sp->n == 1 || end == sp->hi) {
		if (pk_array_grow((void **)&sp->sums, &sp->cap_sums, sp->n_sums + 1,
				  sizeof(*sp->sums), 8))
			return -ENOMEM;
		oa_accumulate_range(&job->dec, job->reports, done, end, sum);
		memcpy(sp->sums[sp->n_sums], sum, sizeof(*sp->sums));
		memset(sum, 0, sizeof(*sp->sums));
		seg->stored = sp->n_sums++;
	}
	/* a short segment added nothing to @sum: it is summed only from ACCUMULATE_CHUNK pairs on */
	return 0;
}

/*
 * One pass over the span: an open segment's pairs are summed every
 * ACCUMULATE_CHUNK reports and when it closes, while the reports whose
 * headers were just read are still in the cache (short segments are not:
 * they are summed when asked).
 */
static void build_span(const struct oa_segments *job, struct span *sp)
{
	const uint8_t *const *reports = job->reports;
	uint64_t sum[PK_OA_MAX_VALUES] = { 0 };
	size_t done = sp->lo;

	if ((sp->err = open_segment(job, sp, oa_report_ctx(&job->dec, reports[sp->lo]), sp->lo)))
		return;
	for (size_t i = sp->lo + 1; i <= sp->hi; i++) {
		uint32_t ctx;

		if (i + PREFETCH_AHEAD <= sp->hi)
			for (size_t b = 0; b < job->stride; b += 64)
				__builtin_prefetch(reports[i + PREFETCH_AHEAD] + b);
		ctx = oa_report_ctx(&job->dec, reports[i]);
		if (ctx == sp->segs[sp->n - 1].ctx_id) {
			if (i - done >= ACCUMULATE_CHUNK) {
				oa_accumulate_range(&job->dec, reports, done, i, sum);
				done = i;
			}
			continue;
		}
		if ((sp->err = close_segment(job, sp, sum, done, i, false)))
			return;
		done = i;
		if ((sp->err = open_segment(job, sp, ctx, i)))
			return;
	}
	sp->err = close_segment(job, sp, sum, done, sp->hi, sp->final);
}

static void span_release(struct span *sp)
{
	free(sp->segs);
	free(sp->sums);
	sp->segs = NULL;
	sp->sums = NULL;
}

/*
 * Make room in array @p (capacity @cap) for @need items of @elem bytes, the
 * contents of @joined blocks of @total. When it must grow, it grows by what
 * the rest of the blocks will likely bring too (a sixteenth more per block
 * than so far), so that the arrays, megabytes in the end, grow once or
 * twice rather than at each doubling. Not into huge pages, as the report
 * index is: realloc moves a mapped block without copying it (mremap), where
 * a huge-page copy writes it all again, each time into fresh 2 MB pages;
 * in a VM whose free memory goes back to the host (virtio-balloon free page
 * reporting, which reports whole free blocks of 2 MB or more), a fresh huge
 * page is one the host must fault in again, 4 KB at a time. 0 or -ENOMEM.
 */
static int grow_joined(void **p, size_t *cap, size_t need, size_t elem, size_t joined,
		       size_t total)
{
	size_t per_block = need / joined + need / joined / 16 + 1, want = need;
	void *q;

	if (need <= *cap)
		return 0;
	if (total > joined && per_block <= SIZE_MAX / total)
		want = per_block * total;
	if (want / 2 < *cap)
		want = *cap * 2;
	if (want > SIZE_MAX / elem || !(q = realloc(*p, want * elem)))
		return -ENOMEM;
	*p = q;
	*cap = want;
	return 0;
}

/*
 * Join span @b onto @a, which ends at @b's first report. That report is in
 * both: @a's last segment holds it as its end (empty when a new context
 * starts there) and @b's first as its start, so the two are one segment of
 * one context. Its sums add (both keep theirs: they end a span); its end and
 * report count follow from @b's. @b is released; @a holds @joined blocks
 * of @total.
 */
static int join_span(struct span *a, struct span *b, size_t joined, size_t total)
{
	struct pk_oa_segment *tail;
	const struct pk_oa_segment *head = &b->segs[0];
	size_t base;
	int err = 0;

	if (!a->n) {
		span_release(a);
		*a = *b;
		b->segs = NULL;
		b->sums = NULL;
		return 0;
	}
	tail = &a->segs[a->n - 1];
	base = a->n_sums - 1;    /* b's sums after its first (added to a's last) go from a->n_sums */
	for (size_t k = 0; k < PK_OA_MAX_VALUES; k++)
		a->sums[tail->stored][k] += b->sums[head->stored][k];
	tail->end = head->end;
	tail->n_reports += head->n_reports;
	tail->gpu_ts_end = head->gpu_ts_end;
	if (grow_joined((void **)&a->segs, &a->cap, a->n + b->n - 1, sizeof(*a->segs),
			joined + 1, total) ||
	    grow_joined((void **)&a->sums, &a->cap_sums, a->n_sums + b->n_sums - 1,
			sizeof(*a->sums), joined + 1, total)) {
		err = -ENOMEM;
	} else {
		/* megabytes in all, written once: mapped at once, not a fault per page */
		pk_prefault_write(a->segs + a->n, (b->n - 1) * sizeof(*a->segs));
		pk_prefault_write(a->sums + a->n_sums, (b->n_sums - 1) * sizeof(*b->sums));
		for (size_t k = 1; k < b->n; k++) {
			struct pk_oa_segment *seg = &a->segs[a->n++];

			*seg = b->segs[k];
			if (seg->stored != SIZE_MAX)
				seg->stored += base;
		}
		memcpy(a->sums + a->n_sums, b->sums + 1, (b->n_sums - 1) * sizeof(*b->sums));
		a->n_sums += b->n_sums - 1;
	}
	span_release(b);
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

/*
 * Block @k is built: join every built block that follows the joined ones.
 * One thread joins at a time, outside the lock (a join copies a block's
 * segments and sums): the reader publishing reports and the other thread
 * claiming a block do not wait for it. A block built meanwhile is joined
 * by the thread joining, which looks again under the lock before it stops.
 */
static void block_built(struct oa_segments *job, size_t k)
{
	pthread_mutex_lock(&job->lock);
	job->blocks[k].built = true;
	if (job->blocks[k].err && !job->err)
		job->err = job->blocks[k].err;
	if (job->joining) {
		pthread_mutex_unlock(&job->lock);
		return;
	}
	job->joining = true;
	while (!job->err && job->joined < job->max_blocks && job->blocks[job->joined].built) {
		size_t j = job->joined;
		int err;

		pthread_mutex_unlock(&job->lock);
		err = join_span(&job->result, &job->blocks[j], j, job->expected_blocks);
		pthread_mutex_lock(&job->lock);
		if (err && !job->err)
			job->err = err;
		job->joined++;
	}
	job->joining = false;
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
	/* only claimed blocks hold memory: the rest of the array was never touched */
	for (size_t k = 0; k < job->next; k++)
		span_release(&job->blocks[k]);
	free(job->blocks);
	span_release(&job->result);
	pthread_cond_destroy(&job->more);
	pthread_mutex_destroy(&job->lock);
	free(job);
}

/* A job over at most @max_reports reports, and its worker when @worker. NULL: out of memory. */
static struct oa_segments *job_new(const struct pk_oa_decoder *dec,
				   const uint8_t *const *reports, size_t max_reports,
				   size_t expected_reports, bool worker)
{
	struct oa_segments *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->dec = *dec;
	job->reports = reports;
	job->stride = dec->fmt->report_size;
	job->max_blocks = blocks_for(max_reports);
	job->expected_blocks = blocks_for(expected_reports < max_reports ? expected_reports : max_reports);
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
	return n_reports >= TWO_THREADS_MIN_REPORTS && pk_cpus_usable() >= 2;
}

struct oa_segments *oa_segments_follow(const struct pk_oa_decoder *dec,
				       const uint8_t *const *reports, size_t max_reports,
				       size_t expected_reports)
{
	struct oa_segments *job = job_new(dec, reports, max_reports, expected_reports, true);

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

int oa_segments_finish(struct oa_segments *job, size_t n, struct pk_oa_timeline *tl)
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
	if (!err) {
		tl->segments = job->result.segs;
		tl->n_segments = job->result.n;
		tl->sums = job->result.sums;
		tl->n_sums = job->result.n_sums;
		job->result.segs = NULL;
		job->result.sums = NULL;
	}
	job_free(job);
	return err;
}

int oa_segments_build(const struct pk_oa_decoder *dec, const uint8_t *const *reports, size_t n,
		      struct pk_oa_timeline *tl)
{
	/* a worker waits until finish says every report is ready */
	struct oa_segments *job = job_new(dec, reports, n, n, oa_segments_two_threads(n));

	return job ? oa_segments_finish(job, n, tl) : -ENOMEM;
}
