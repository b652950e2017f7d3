/*
 * The report pipeline: with the stack memo (memo.c) in use and two CPUs,
 * the caller's thread reads, resolves and looks each sample's stack up,
 * while a worker thread adds the samples to the histogram (entries, trie,
 * pairs, children), in the same order, so the result is the one a single
 * thread gives.
 *
 * The two sides share no mutable state:
 *  - a sample whose stack was seen before travels as its stack number and
 *    period (16 bytes); any other as a copy of what the adding side reads:
 *    event, period, cpumode, the sampled location and the frames, and the
 *    thread's pid, tid and comm as they were then (a later COMM or FORK
 *    changes the live thread; comm texts stay in the symbols' arena), with
 *    the live thread kept for printing;
 *  - symbols, maps and DSOs are only read, except a DSO's short name and
 *    kernel flag, which a kernel module's MMAP or build-id can still set:
 *    the symbols module calls back before that (pk_symbols_on_dso_change)
 *    and the caller's thread waits until the worker has caught up.
 * Samples travel in blocks of RP_BLOCK_SIZE bytes, at most RP_MAX_BLOCKS
 * of them in flight, so memory stays bounded whatever the worker's pace.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/core.h>
#include <perfkit/symbols.h>
#include "internal.h"

#define RP_BLOCK_SIZE (256u << 10)
#define RP_MAX_BLOCKS 16

enum { RP_MSG_HIT = 1, RP_MSG_SAMPLE = 2 };

/* Every message starts so; a hit is only this. */
struct rp_msg {
	uint32_t kind;
	uint32_t stack;             /* RP_NO_STACK: not memoized */
	uint64_t period;
};

/* A sample the worker adds by the full path. */
struct rp_msg_sample {
	struct rp_msg m;
	const struct pk_evsel *evsel;
	struct pk_thread *thread;   /* the live thread, for printing */
	struct pk_thread who;       /* its pid, tid and comm when the sample was taken */
	uint64_t present;           /* the sample's PERF_SAMPLE_CPU bit */
	uint32_t pid, tid, cpu;     /* the sample's own */
	uint32_t nr_frames;
	uint8_t cpumode, has_inlined, filtered;
	struct pk_location self;
	/* then pk_location frames[nr_frames], then with has_inlined uint8_t inlined[nr_frames] */
};

struct rp_block {
	struct rp_block *next;
	size_t len, cap;
	uint64_t data[];            /* messages, each 8-byte aligned */
};

struct rp_pipeline {
	struct pk_report *r;
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* any change below; waiters check their condition */
	struct rp_block *head, *tail; /* filled, waiting for the worker */
	struct rp_block *spare;     /* emptied, for reuse */
	size_t in_flight;           /* filled blocks the worker has not finished */
	int done;                   /* no more blocks will come */
	int err;                    /* the worker's first error */
	struct rp_block *cur;       /* the block the caller's thread is filling */
	int seen_err;               /* err as the caller's thread last saw it (its own copy) */
};

/* Bytes of a sample message with @nr_frames frames, rounded up to 8. */
static size_t sample_size(uint32_t nr_frames, int has_inlined)
{
	size_t n = sizeof(struct rp_msg_sample) + (size_t)nr_frames * sizeof(struct pk_location);

	if (has_inlined)
		n += nr_frames;
	return (n + 7) & ~(size_t)7;
}

static size_t msg_size(const struct rp_msg *m)
{
	const struct rp_msg_sample *s = (const struct rp_msg_sample *)m;

	return m->kind == RP_MSG_HIT ? sizeof(*m) : sample_size(s->nr_frames, s->has_inlined);
}

/* The full path for one copied sample. */
static int add_copied(struct pk_report *r, const struct rp_msg_sample *m)
{
	const struct pk_location *frames = (const struct pk_location *)(m + 1);
	struct pk_sample s;
	struct pk_rsample rs = {
		.evsel = m->evsel, .s = &s, .thread = m->thread, .cpumode = m->cpumode,
		.period = m->m.period, .self = m->self, .nr_frames = m->nr_frames,
		.frames = m->nr_frames ? frames : NULL,
		.inlined = m->has_inlined ? (const uint8_t *)(frames + m->nr_frames) : NULL,
		.filtered = m->filtered,
	};

	memset(&s, 0, sizeof(s));
	s.present = m->present;
	s.pid = m->pid;
	s.tid = m->tid;
	s.cpu = m->cpu;
	return rp_add_sample(r, &rs, m->thread ? &m->who : NULL, m->m.stack, 0);
}

static int add_block(struct pk_report *r, const struct rp_block *b)
{
	const unsigned char *p = (const unsigned char *)b->data, *end = p + b->len;

	while (p < end) {
		const struct rp_msg *m = (const struct rp_msg *)p;
		int err;

		if (m->kind == RP_MSG_HIT) {
			rp_memo_replay(r, m->stack, m->period);
		} else if ((err = add_copied(r, (const struct rp_msg_sample *)m))) {
			return err;
		}
		p += msg_size(m);
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct rp_pipeline *pl = arg;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		struct rp_block *b;
		int err = 0;

		while (!pl->head && !pl->done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (!pl->head)
			break;
		b = pl->head;
		pl->head = b->next;
		if (!pl->head)
			pl->tail = NULL;
		/* after an error the rest is dropped: the report is not printed whole */
		if (!pl->err) {
			pthread_mutex_unlock(&pl->mu);
			err = add_block(pl->r, b);
			pthread_mutex_lock(&pl->mu);
		}
		if (err && !pl->err)
			pl->err = err;
		b->len = 0;
		if (b->cap == RP_BLOCK_SIZE) {
			b->next = pl->spare;
			pl->spare = b;
		} else {
			free(b);
		}
		pl->in_flight--;
		pthread_cond_broadcast(&pl->cv);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* Hand the block being filled to the worker. */
static void publish(struct rp_pipeline *pl)
{
	struct rp_block *b = pl->cur;

	if (!b || !b->len)
		return;
	pl->cur = NULL;
	b->next = NULL;
	pthread_mutex_lock(&pl->mu);
	if (pl->tail)
		pl->tail->next = b;
	else
		pl->head = b;
	pl->tail = b;
	pl->in_flight++;
	pl->seen_err = pl->err;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

/* Room for @size bytes in the block being filled; NULL on ENOMEM. */
static void *room(struct rp_pipeline *pl, size_t size)
{
	struct rp_block *b = pl->cur;
	void *p;

	if (b && b->cap - b->len < size) {
		publish(pl);
		b = NULL;
	}
	if (!b) {
		size_t cap = size > RP_BLOCK_SIZE ? size : RP_BLOCK_SIZE;

		pthread_mutex_lock(&pl->mu);
		while (pl->in_flight >= RP_MAX_BLOCKS && !pl->err)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (cap == RP_BLOCK_SIZE && pl->spare) {
			b = pl->spare;
			pl->spare = b->next;
		}
		pthread_mutex_unlock(&pl->mu);
		if (!b) {
			b = malloc(sizeof(*b) + cap);
			if (!b)
				return NULL;
			b->cap = cap;
			b->len = 0;
		}
		pl->cur = b;
	}
	p = (unsigned char *)b->data + b->len;
	b->len += size;
	return p;
}

int rp_pipeline_push(struct pk_report *r, const struct pk_rsample *rs, uint32_t stack, int hit)
{
	struct rp_pipeline *pl = r->pl;
	struct rp_msg_sample *m;

	if (hit) {
		struct rp_msg *h = room(pl, sizeof(*h));

		if (!h)
			return -ENOMEM;
		*h = (struct rp_msg){ .kind = RP_MSG_HIT, .stack = stack, .period = rs->period };
		return pl->seen_err;
	}
	m = room(pl, sample_size(rs->nr_frames, rs->inlined != NULL));
	if (!m)
		return -ENOMEM;
	*m = (struct rp_msg_sample){
		.m = { .kind = RP_MSG_SAMPLE, .stack = stack, .period = rs->period },
		.evsel = rs->evsel, .thread = rs->thread, .present = rs->s->present & PERF_SAMPLE_CPU,
		.pid = rs->s->pid, .tid = rs->s->tid, .cpu = rs->s->cpu, .nr_frames = rs->nr_frames,
		.cpumode = rs->cpumode, .has_inlined = rs->inlined != NULL, .filtered = rs->filtered,
		.self = rs->self,
	};
	if (rs->thread)
		m->who = *rs->thread;
	if (rs->nr_frames)
		memcpy(m + 1, rs->frames, (size_t)rs->nr_frames * sizeof(struct pk_location));
	if (rs->inlined && rs->nr_frames)
		memcpy((struct pk_location *)(m + 1) + rs->nr_frames, rs->inlined, rs->nr_frames);
	/* the worker's error as of the last block handed over */
	return pl->seen_err;
}

/* Wait until the worker has added every sample handed over. */
static int drain(struct rp_pipeline *pl)
{
	int err;

	publish(pl);
	pthread_mutex_lock(&pl->mu);
	while (pl->in_flight)
		pthread_cond_wait(&pl->cv, &pl->mu);
	err = pl->err;
	pthread_mutex_unlock(&pl->mu);
	return err;
}

/* pk_symbols_on_dso_change: a DSO the worker may be reading is about to change. */
static void dso_change(void *ctx)
{
	drain(ctx);
}

int rp_pipeline_start(struct pk_report *r)
{
	struct rp_pipeline *pl;

	r->pl_tried = 1;
	/* without the session's symbols no one would say when a DSO changes */
	if (!r->memo_ok || r->o.threads == 1 || !r->syms || pk_cpus_usable() < 2)
		return 0;
	pl = calloc(1, sizeof(*pl));
	/* another pipeline on the same symbols already listens for DSO changes */
	if (!pl || pk_symbols_on_dso_change(r->syms, dso_change, pl)) {
		free(pl);
		return 0;
	}
	pl->r = r;
	if (pthread_mutex_init(&pl->mu, NULL))
		goto fail;
	if (pthread_cond_init(&pl->cv, NULL)) {
		pthread_mutex_destroy(&pl->mu);
		goto fail;
	}
	if (pthread_create(&pl->worker, NULL, worker_main, pl)) {
		pthread_cond_destroy(&pl->cv);
		pthread_mutex_destroy(&pl->mu);
		goto fail;
	}
	r->pl = pl;
	return 1;
fail:
	pk_symbols_on_dso_change(r->syms, NULL, NULL);
	free(pl);
	return 0;
}

int rp_pipeline_stop(struct pk_report *r)
{
	struct rp_pipeline *pl = r->pl;
	int err;

	if (!pl)
		return 0;
	err = drain(pl);
	pthread_mutex_lock(&pl->mu);
	pl->done = 1;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	pthread_join(pl->worker, NULL);
	pk_symbols_on_dso_change(r->syms, NULL, NULL);
	while (pl->spare) {
		struct rp_block *b = pl->spare;

		pl->spare = b->next;
		free(b);
	}
	free(pl->cur);
	pthread_cond_destroy(&pl->cv);
	pthread_mutex_destroy(&pl->mu);
	free(pl);
	r->pl = NULL;
	return err;
}
