/*
 * perf's delivery of PERF_SAMPLE_READ samples (evlist__deliver_sample): a
 * sample whose attr has SAMPLE_READ stands for one sample per read value
 * (one, or each member of a PERF_FORMAT_GROUP read), of the event that owns
 * the value's id, with the value's increase since that id's previous value
 * as its period. Increases of zero are dropped; values whose id no attr
 * owns are counted (perf's nr_unknown_id) and dropped. The previous values live in a hash keyed
 * by id, holding only ids the file's attrs own, so it stays bounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "session/internal.h"

struct pk_read_state {
	uint64_t *ids, *last;
	uint8_t *used;               /* used[s]: slot s holds an id */
	size_t cap, n;               /* cap: a power of two */
};

struct pk_read_state *pk_read_state_new(void)
{
	return calloc(1, sizeof(struct pk_read_state));
}

void pk_read_state_free(struct pk_read_state *st)
{
	if (!st)
		return;
	free(st->ids);
	free(st->last);
	free(st->used);
	free(st);
}

static size_t slot_of(uint64_t id, size_t cap)
{
	uint64_t h = id * 0x9E3779B97F4A7C15ull;

	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static int grow(struct pk_read_state *st)
{
	struct pk_read_state g = { .cap = st->cap ? st->cap * 2 : 16 };

	g.ids = calloc(g.cap, sizeof(*g.ids));
	g.last = calloc(g.cap, sizeof(*g.last));
	g.used = calloc(g.cap, 1);
	if (!g.ids || !g.last || !g.used) {
		free(g.ids);
		free(g.last);
		free(g.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->cap; i++) {
		size_t s;

		if (!st->used[i])
			continue;
		for (s = slot_of(st->ids[i], g.cap); g.used[s]; s = (s + 1) & (g.cap - 1))
			;
		g.ids[s] = st->ids[i];
		g.last[s] = st->last[i];
		g.used[s] = 1;
	}
	free(st->ids);
	free(st->last);
	free(st->used);
	st->ids = g.ids;
	st->last = g.last;
	st->used = g.used;
	st->cap = g.cap;
	return 0;
}

/* The previous value of @id (0 the first time), replaced by @value. -ENOMEM. */
static int swap_last(struct pk_read_state *st, uint64_t id, uint64_t value, uint64_t *prev)
{
	size_t s;

	if ((st->n + 1) * 2 > st->cap && grow(st))
		return -ENOMEM;
	for (s = slot_of(id, st->cap); st->used[s]; s = (s + 1) & (st->cap - 1))
		if (st->ids[s] == id)
			break;
	if (!st->used[s]) {
		st->used[s] = 1;
		st->ids[s] = id;
		st->last[s] = 0;
		st->n++;
	}
	*prev = st->last[s];
	st->last[s] = value;
	return 0;
}

int pk_read_deliver(struct pk_read_state *st, const struct pk_perfdata *data,
		    struct pk_rsample *rs, int (*deliver)(void *ctx, struct pk_rsample *rs),
		    void *ctx, uint64_t *nr_unknown)
{
	const struct pk_sample *s = rs->s;
	uint64_t rf = rs->evsel->attr.attr.read_format;

	for (uint64_t i = 0; i < s->read.nr; i++) {
		struct pk_read_value v;
		const struct pk_evsel *owner;
		uint64_t prev;
		int ret;

		pk_sample_read_value(&s->read, rf, i, &v);
		owner = (rf & PERF_FORMAT_ID) ? pk_perfdata_id_owner(data, v.id) : NULL;
		if (!owner) {
			(*nr_unknown)++;
			continue;
		}
		if (swap_last(st, v.id, v.value, &prev))
			return -ENOMEM;
		if (v.value == prev)
			continue;
		rs->evsel = owner;
		rs->period = v.value - prev;
		if ((ret = deliver(ctx, rs)) != 0)
			return ret;
	}
	return 0;
}
