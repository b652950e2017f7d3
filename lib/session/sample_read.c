/*
 * perf's delivery of PERF_SAMPLE_READ samples (evlist__deliver_sample): a
 * sample whose attr has SAMPLE_READ stands for one sample per read value
 * (one, or each member of a PERF_FORMAT_GROUP read), of the event that owns
 * the value's id, with the value's increase since that id's previous value
 * as its period. Increases of zero are dropped; values whose id no attr
 * owns are counted (perf's nr_unknown_id) and dropped. The previous values
 * sit in an array indexed by the id's number in the file's id map
 * (pk_perfdata_id_owner), so it holds only ids the attrs own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "session/internal.h"

void pk_read_state_release(struct pk_read_state *st)
{
	free(st->last);
	memset(st, 0, sizeof(*st));
}

/* Room for id number @num. -ENOMEM. */
static int reserve(struct pk_read_state *st, uint32_t num)
{
	size_t ncap = st->cap ? st->cap : 16;
	uint64_t *v;

	if (num < st->cap)
		return 0;
	while (ncap <= num)
		ncap *= 2;
	v = realloc(st->last, ncap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + st->cap, 0, (ncap - st->cap) * sizeof(*v));
	st->last = v;
	st->cap = ncap;
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
		const struct pk_evsel *owner = NULL;
		uint64_t prev;
		uint32_t num;
		int ret;

		pk_sample_read_value(&s->read, rf, i, &v);
		if (rf & PERF_FORMAT_ID)
			owner = pk_perfdata_id_owner(data, v.id, &num);
		if (!owner) {
			(*nr_unknown)++;
			continue;
		}
		if (reserve(st, num))
			return -ENOMEM;
		prev = st->last[num];
		st->last[num] = v.value;
		if (v.value == prev)
			continue;
		rs->evsel = owner;
		rs->period = v.value - prev;
		if ((ret = deliver(ctx, rs)) != 0)
			return ret;
	}
	return 0;
}
