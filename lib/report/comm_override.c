/*
 * perf's comm__override() in the report: a thread sampled before it had a
 * comm shows ":TID" then, and its first COMM (or the comm it inherits at
 * FORK) renames that placeholder in place, so those samples print the new
 * name, and perf's collapse by comm text merges their rows with the rows
 * the name already has. A system-wide recording holds such samples when a
 * process starts while the others are being synthesized.
 *
 * While samples are added, a placeholder comm's rows are keyed by the
 * thread too (sort_keys.c), as the thread may be renamed later. Once all
 * samples are in, each such row takes the thread's first comm (or stays
 * ":TID"), and rows whose keys then match become one: the first row of a
 * run of equal keys keeps its place, the others add their periods, sample
 * counts and call-graph pairs to it and leave the report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct merge_ctx {
	const struct pk_report *r;
	int comm_key;               /* index of the comm key among r->keys */
};

/* Key word @w of @e, the comm words as its final comm text's id and 0. */
static uint64_t key_word(int comm_key, const struct rp_entry *e, int w)
{
	if (w == 1 + 2 * comm_key)
		return e->comm_id;
	if (w == 2 + 2 * comm_key)
		return 0;
	return e->key[w];
}

/* Entries @ia and @ib by event and final key words. */
static int keys_cmp(const struct merge_ctx *m, uint32_t ia, uint32_t ib)
{
	const struct rp_entry *a = &m->r->ent[ia], *b = &m->r->ent[ib];
	int words = 1 + 2 * m->r->nr_keys;

	if (a->evsel != b->evsel)
		return a->evsel < b->evsel ? -1 : 1;
	for (int w = 1; w < words; w++) {
		uint64_t x = key_word(m->comm_key, a, w), y = key_word(m->comm_key, b, w);

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* keys_cmp(), then the earlier made row first: it keeps its place */
static int final_key_cmp(const void *pa, const void *pb, void *arg)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = keys_cmp(arg, a, b);

	return c ? c : (a > b) - (a < b);
}

static void merge_into(struct pk_report *r, uint32_t to, uint32_t from, uint32_t *moved)
{
	struct rp_entry *t = &r->ent[to], *f = &r->ent[from];

	t->self += f->self;
	t->self_sys += f->self_sys;
	t->self_us += f->self_us;
	t->acc += f->acc;
	t->nr_self += f->nr_self;
	t->nr_acc += f->nr_acc;
	if (f->max_depth > t->max_depth)
		t->max_depth = f->max_depth;
	t->filtered &= f->filtered;
	f->self = f->self_sys = f->self_us = f->acc = f->nr_self = f->nr_acc = 0;
	f->evsel = UINT32_MAX;          /* out of every event's rows */
	moved[from] = to;
}

int rp_first_comms(struct pk_report *r)
{
	struct merge_ctx m = { .r = r, .comm_key = -1 };
	uint32_t *v, *moved;
	int any = 0;

	r->placeholder_comms = 0;
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id == RP_K_COMM)
			m.comm_key = i;
	if (m.comm_key < 0)
		return 0;
	for (size_t i = 0; i < r->nr_ent; i++) {
		struct rp_entry *e = &r->ent[i];
		const struct pk_thread *t;

		if (!(e->key[1 + 2 * m.comm_key] & RP_COMM_PLACEHOLDER))
			continue;
		any = 1;
		t = (const struct pk_thread *)(uintptr_t)e->key[2 + 2 * m.comm_key];
		if (t && t->first_comm) {
			uint32_t id = rp_strtab_id(&r->strs, t->first_comm);

			if (id == UINT32_MAX)
				return -ENOMEM;
			e->comm_id = id;
		}
	}
	if (!any)
		return 0;
	v = malloc(r->nr_ent * sizeof(*v));
	moved = malloc(r->nr_ent * sizeof(*moved));
	if (!v || !moved) {
		free(v);
		free(moved);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nr_ent; i++)
		v[i] = moved[i] = (uint32_t)i;
	qsort_r(v, r->nr_ent, sizeof(*v), final_key_cmp, &m);
	for (size_t i = 1, lead = 0; i < r->nr_ent; i++) {
		if (keys_cmp(&m, v[lead], v[i]))
			lead = i;
		else
			merge_into(r, v[lead], v[i], moved);
	}
	for (size_t i = 0; i < r->nr_pairs; i++)
		r->pairs[i].entry = moved[r->pairs[i].entry];
	/* the rows that stay: their comm words as any other row's, for the group rows' matching */
	for (size_t i = 0; i < r->nr_ent; i++) {
		struct rp_entry *e = &r->ent[i];

		e->key[1 + 2 * m.comm_key] = e->comm_id;
		e->key[2 + 2 * m.comm_key] = 0;
	}
	free(v);
	free(moved);
	return 0;
}
