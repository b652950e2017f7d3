/*
 * The evsels (attrs) of a perf.data input and the map from sample id to
 * evsel: an open-addressing hash (files carry thousands of ids, one per
 * event per CPU or thread). Finding the evsel of a record follows perf's
 * evlist__event2evsel(): a single attr matches everything; a non-sample
 * record of a file without sample_id_all belongs to the first attr; the id
 * sits at the first attr's position (PERF_SAMPLE_IDENTIFIER or
 * PERF_SAMPLE_ID, ../shared/reference/perf-data.md §4-§5); id 0
 * (synthesized records) means the first attr.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/internal.h"

static size_t id_slot(uint64_t id, size_t cap)
{
	uint64_t h = id * 0x9E3779B97F4A7C15ull;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

static int idmap_grow(struct pk_pd_idmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64, i;
	uint64_t *keys = calloc(ncap, sizeof(*keys));
	struct pk_evsel **vals = calloc(ncap, sizeof(*vals));
	uint32_t *nums = calloc(ncap, sizeof(*nums));

	if (!keys || !vals || !nums) {
		free(keys);
		free(vals);
		free(nums);
		return -ENOMEM;
	}
	for (i = 0; i < m->cap; i++) {
		size_t s;

		if (!m->vals[i])
			continue;
		s = id_slot(m->keys[i], ncap);
		while (vals[s])
			s = (s + 1) & (ncap - 1);
		keys[s] = m->keys[i];
		vals[s] = m->vals[i];
		nums[s] = m->nums[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->nums);
	m->keys = keys;
	m->vals = vals;
	m->nums = nums;
	m->cap = ncap;
	return 0;
}

int pk_perfdata_id_add(struct pk_perfdata *p, struct pk_evsel *ev, uint64_t id, int keep_in_evsel)
{
	struct pk_pd_idmap *m = &p->ids;
	size_t s;

	if ((m->n + 1) * 2 > m->cap) {
		int r = idmap_grow(m);

		if (r)
			return r;
	}
	s = id_slot(id, m->cap);
	while (m->vals[s]) {
		if (m->keys[s] == id)
			return 0;          /* first owner wins, as in perf */
		s = (s + 1) & (m->cap - 1);
	}
	m->keys[s] = id;
	m->vals[s] = ev;
	m->nums[s] = (uint32_t)m->n++;
	if (keep_in_evsel) {
		uint64_t *ids;

		/* grow by doubling: nr_ids is a power of two or below the first step */
		if (ev->nr_ids >= 8 && (ev->nr_ids & (ev->nr_ids - 1)) == 0) {
			ids = realloc(ev->ids, (size_t)ev->nr_ids * 2 * sizeof(*ids));
			if (!ids)
				return -ENOMEM;
			ev->ids = ids;
		} else if (ev->nr_ids == 0) {
			ev->ids = malloc(8 * sizeof(*ev->ids));
			if (!ev->ids)
				return -ENOMEM;
		}
		ev->ids[ev->nr_ids++] = id;
	}
	return 0;
}

const struct pk_evsel *pk_perfdata_evsel_by_id(const struct pk_perfdata *p, uint64_t id)
{
	if (p->nr_evsels == 1)
		return &p->evsels[0]->ev;
	return pk_perfdata_id_owner(p, id, NULL);
}

const struct pk_evsel *pk_perfdata_id_owner(const struct pk_perfdata *p, uint64_t id,
					    uint32_t *num)
{
	const struct pk_pd_idmap *m = &p->ids;
	size_t s;

	if (!m->cap)
		return NULL;
	s = id_slot(id, m->cap);
	while (m->vals[s]) {
		if (m->keys[s] == id) {
			if (num)
				*num = m->nums[s];
			return m->vals[s];
		}
		s = (s + 1) & (m->cap - 1);
	}
	return NULL;
}

struct pk_evsel *pk_perfdata_evsel_add(struct pk_perfdata *p, const struct pk_attr *attr,
				       struct pk_diag *d)
{
	struct pk_pd_evsel *e;
	char name[160];

	if (p->nr_evsels == p->evsels_cap) {
		size_t ncap = p->evsels_cap ? p->evsels_cap * 2 : 8;
		struct pk_pd_evsel **v = realloc(p->evsels, ncap * sizeof(*v));

		if (!v) {
			pk_diag_fail(d, -ENOMEM, "out of memory");
			return NULL;
		}
		p->evsels = v;
		p->evsels_cap = ncap;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		pk_diag_fail(d, -ENOMEM, "out of memory");
		return NULL;
	}
	e->ev.idx = (int)p->nr_evsels;
	e->ev.attr = *attr;
	pk_sample_layout_init(&e->ev.layout, &attr->attr);
	pk_perfdata_attr_name(&attr->attr, name, sizeof(name));
	e->ev.name = strdup(name);
	if (!e->ev.name) {
		free(e);
		pk_diag_fail(d, -ENOMEM, "out of memory");
		return NULL;
	}
	e->name_src = PK_NAME_DEFAULT;
	p->evsels[p->nr_evsels++] = e;
	return &e->ev;
}

const struct pk_evsel *pk_perfdata_evsel_of(const struct pk_perfdata *p, const void *rec,
					    size_t len)
{
	const struct perf_event_header *h = rec;
	const struct pk_evsel *first;
	const struct pk_sample_layout *l;
	uint64_t id;

	if (!p->nr_evsels)
		return NULL;
	first = &p->evsels[0]->ev;
	if (p->nr_evsels == 1)
		return first;
	l = &first->layout;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (l->id_pos < 0)
			return first;
		if ((size_t)l->id_pos + 16 > len)
			return NULL;
		memcpy(&id, (const uint8_t *)rec + 8 + l->id_pos, 8);
	} else {
		if (!first->attr.attr.sample_id_all || l->id_pos_from_end < 0)
			return first;
		if ((size_t)l->id_pos_from_end < 8 || (size_t)l->id_pos_from_end + 8 > len)
			return NULL;
		memcpy(&id, (const uint8_t *)rec + len - l->id_pos_from_end, 8);
	}
	if (!id)
		return first;
	return pk_perfdata_evsel_by_id(p, id);
}

void pk_perfdata_evsel_rename(struct pk_perfdata *p, struct pk_evsel *ev, const char *name,
			      enum pk_pd_name_src src)
{
	struct pk_pd_evsel *e = (struct pk_pd_evsel *)ev;
	char *n = strdup(name), **old;

	/* the old name may still be referenced by a caller: keep it until close */
	old = n ? realloc(p->old_names, (p->nr_old_names + 1) * sizeof(*old)) : NULL;
	if (!old) {
		free(n);
		pk_log(PK_LOG_WARN, "'%s': out of memory naming event '%s' '%s'", p->path, ev->name,
		       name);
		return;
	}
	p->old_names = old;
	p->old_names[p->nr_old_names++] = ev->name;
	ev->name = n;
	e->name_src = src;
}

void pk_perfdata_names_refresh(struct pk_perfdata *p)
{
	size_t i;

	for (i = 0; i < p->nr_evsels; i++) {
		struct pk_pd_evsel *e = p->evsels[i];
		char buf[256];

		/* perf: EVENT_DESC names the evsel of the same index */
		if (e->name_src < PK_NAME_DESC && i < p->feat.nr_event_desc &&
		    p->feat.event_desc && p->feat.event_desc[i].name &&
		    p->feat.event_desc[i].name[0]) {
			pk_perfdata_evsel_rename(p, &e->ev, p->feat.event_desc[i].name, PK_NAME_DESC);
			continue;
		}
		if (e->name_src == PK_NAME_DEFAULT && e->ev.attr.attr.type == PERF_TYPE_TRACEPOINT &&
		    p->feat.tracing_data &&
		    !pk_perfdata_tracing_name(p->feat.tracing_data, p->feat.tracing_data_size,
					      e->ev.attr.attr.config, buf, sizeof(buf)))
			pk_perfdata_evsel_rename(p, &e->ev, buf, PK_NAME_TRACING);
	}
}

void pk_perfdata_evlist_release(struct pk_perfdata *p)
{
	size_t i;

	for (i = 0; i < p->nr_evsels; i++) {
		free(p->evsels[i]->ev.name);
		free(p->evsels[i]->ev.ids);
		free(p->evsels[i]);
	}
	free(p->evsels);
	for (i = 0; i < p->nr_old_names; i++)
		free(p->old_names[i]);
	free(p->old_names);
	free(p->ids.keys);
	free(p->ids.vals);
	free(p->ids.nums);
	p->evsels = NULL;
	p->nr_evsels = 0;
}

int pk_perfdata_only_tracepoints(const struct pk_perfdata *p)
{
	size_t n = pk_perfdata_nr_evsels(p);

	for (size_t i = 0; i < n; i++) {
		const struct pk_evsel *ev = pk_perfdata_evsel(p, i);

		if (!ev || ev->attr.attr.type != PERF_TYPE_TRACEPOINT)
			return 0;
	}
	return n && !pk_perfdata_is_pipe(p);
}
