/*
 * Delivery in timestamp order, emulating perf's ordered_events so that the
 * sequence a caller sees equals perf script's:
 *  - kernel records with a known, non-zero timestamp (SAMPLE TIME or the
 *    sample_id_all trailer's TIME) are queued; everything else is delivered
 *    at once by the walk;
 *  - FINISHED_ROUND flushes the queued records with time <= next_flush, then
 *    sets next_flush to max_timestamp (perf's OE_FLUSH__ROUND);
 *    max_timestamp is the time of the newest record appended at the tail
 *    of the queue, stale while the queue is empty, as in perf;
 *  - FINISHED_INIT (82) does not flush: perf 6.1 knows the type but its
 *    handler is a stub (checked: a perf 6.1 recording with FINISHED_INIT,
 *    2.27M samples, gives perf script's exact time order);
 *  - the end of the input flushes everything;
 *  - equal timestamps keep arrival order (sort key (time, seq));
 *  - a record older than the last flushed one counts in stats.nr_unordered
 *    and is still queued.
 * The queue is a vector: new entries are appended, sorted at flush time and
 * merged with the already sorted rest. Records that cannot be referenced in
 * place (pipe input, swapped, unaligned, decompressed) are copied into an
 * arena of chunks, each freed when its last record has been delivered, so
 * memory follows the ordering window, not the input.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/internal.h"

#define CHUNK_SIZE (1u << 20)

struct pk_pd_chunk {
	struct pk_pd_chunk *prev, *next;   /* every chunk of the arena */
	struct pk_pd_chunk *next_free;
	size_t used, cap, live;
	uint64_t data[];
};

int pk_perfdata_record_time(const struct pk_sample_layout *l, const void *rec, size_t len,
			    uint64_t *time)
{
	const struct perf_event_header *h = rec;
	size_t off;

	if (!(l->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		/* header, [IDENTIFIER], [IP], [TID pid/tid], TIME */
		off = 8 + 8 * !!(l->sample_type & PERF_SAMPLE_IDENTIFIER) +
		      8 * !!(l->sample_type & PERF_SAMPLE_IP) +
		      8 * !!(l->sample_type & PERF_SAMPLE_TID);
	} else {
		if (!l->sample_id_all || len < 8 + (size_t)l->id_trailer_size)
			return 0;
		/* sample_id trailer: [TID pid/tid], TIME, ... */
		off = len - l->id_trailer_size + 8 * !!(l->sample_type & PERF_SAMPLE_TID);
	}
	if (off + 8 > len)
		return 0;
	memcpy(time, (const uint8_t *)rec + off, 8);
	return 1;
}

/* A chunk nothing references any more: keep two for reuse, free the rest. */
static void chunk_park(struct pk_pd_order *o, struct pk_pd_chunk *c)
{
	if (o->nr_free < 2) {
		c->next_free = o->free_chunks;
		o->free_chunks = c;
		o->nr_free++;
		return;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		o->all = c->next;
	if (c->next)
		c->next->prev = c->prev;
	free(c);
}

static void *arena_alloc(struct pk_pd_order *o, size_t size, struct pk_pd_chunk **out)
{
	struct pk_pd_chunk *c = o->cur;
	size_t words = (size + 7) / 8;
	void *ptr;

	if (c && c->cap - c->used < words && !c->live && c->cap >= words)
		c->used = 0;
	if (!c || c->cap - c->used < words) {
		struct pk_pd_chunk *old = c, **pp = &o->free_chunks;

		c = NULL;
		while (*pp) {
			if ((*pp)->cap >= words) {
				c = *pp;
				*pp = c->next_free;
				o->nr_free--;
				break;
			}
			pp = &(*pp)->next_free;
		}
		if (!c) {
			size_t cap = words > CHUNK_SIZE / 8 ? words : CHUNK_SIZE / 8;

			c = malloc(sizeof(*c) + cap * 8);
			if (!c)
				return NULL;
			c->cap = cap;
			c->prev = NULL;
			c->next = o->all;
			if (o->all)
				o->all->prev = c;
			o->all = c;
		}
		c->used = 0;
		c->live = 0;
		o->cur = c;
		if (old && !old->live)
			chunk_park(o, old);
	}
	ptr = c->data + c->used;
	c->used += words;
	c->live++;
	*out = c;
	return ptr;
}

static void chunk_put(struct pk_pd_order *o, struct pk_pd_chunk *c)
{
	if (!c || --c->live)
		return;
	if (c == o->cur)
		c->used = 0;
	else
		chunk_park(o, c);
}

int pk_perfdata_order_queue(struct pk_perfdata *p, const struct perf_event_header *h,
			    uint64_t time, uint64_t off, int compressed,
			    const struct pk_evsel *ev, int in_place)
{
	struct pk_pd_order *o = &p->order;
	struct pk_pd_qent *e;

	if (o->n == o->cap) {
		size_t ncap = o->cap ? o->cap * 2 : 4096;
		struct pk_pd_qent *v = realloc(o->v, ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = ncap;
	}
	e = &o->v[o->n];
	e->chunk = NULL;
	if (in_place) {
		e->rec = h;
	} else {
		void *copy = arena_alloc(o, h->size, &e->chunk);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, h, h->size);
		e->rec = copy;
	}
	if (time < o->last_flush)
		p->stats.nr_unordered++;
	if (!o->n || time >= o->max_timestamp)
		o->max_timestamp = time;
	e->time = time;
	e->seq = o->seq++;
	e->file_offset = off;
	e->evsel = ev;
	e->compressed = compressed;
	o->n++;
	return 0;
}

static int qent_cmp(const void *a, const void *b)
{
	const struct pk_pd_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int qent_less(const struct pk_pd_qent *x, const struct pk_pd_qent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Sort the appended tail and merge it with the sorted prefix. */
static int order_sort(struct pk_pd_order *o)
{
	size_t i, j, k, ns = o->nsorted, n = o->n;
	int sorted = 1;

	for (i = ns + 1; i < n && sorted; i++)
		sorted = !qent_less(&o->v[i], &o->v[i - 1]);
	if (!sorted)
		qsort(o->v + ns, n - ns, sizeof(*o->v), qent_cmp);
	if (ns && ns < n && qent_less(&o->v[ns], &o->v[ns - 1])) {
		if (o->tmpcap < n) {
			struct pk_pd_qent *t = realloc(o->tmp, o->cap * sizeof(*t));

			if (!t)
				return -ENOMEM;
			o->tmp = t;
			o->tmpcap = o->cap;
		}
		for (i = 0, j = ns, k = 0; i < ns || j < n; k++) {
			if (j >= n || (i < ns && !qent_less(&o->v[j], &o->v[i])))
				o->tmp[k] = o->v[i++];
			else
				o->tmp[k] = o->v[j++];
		}
		memcpy(o->v, o->tmp, n * sizeof(*o->v));
	}
	o->nsorted = n;
	return 0;
}

int pk_perfdata_order_flush(struct pk_perfdata *p, uint64_t limit, struct pk_diag *d)
{
	struct pk_pd_order *o = &p->order;
	size_t i;
	int r = 0;

	if (!o->n)
		return 0;
	if (order_sort(o))
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	for (i = 0; i < o->n && o->v[i].time <= limit; i++) {
		struct pk_pd_qent *e = &o->v[i];

		r = pk_perfdata_deliver(p, e->rec, e->file_offset, e->compressed, e->evsel, NULL, 0,
					d);
		o->last_flush = e->time;
		chunk_put(o, e->chunk);
		if (r) {
			i++;
			break;
		}
	}
	memmove(o->v, o->v + i, (o->n - i) * sizeof(*o->v));
	o->n -= i;
	o->nsorted = o->n;
	return r;
}

int pk_perfdata_order_round(struct pk_perfdata *p, struct pk_diag *d)
{
	int r = pk_perfdata_order_flush(p, p->order.next_flush, d);

	if (!r)
		p->order.next_flush = p->order.max_timestamp;
	return r;
}

void pk_perfdata_order_release(struct pk_pd_order *o)
{
	struct pk_pd_chunk *c, *next;

	for (c = o->all; c; c = next) {
		next = c->next;
		free(c);
	}
	free(o->v);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}
