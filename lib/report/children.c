/*
 * Children (cumulative) accumulation, as perf report --children does it:
 * every distinct entry a sample's call chain passes through gets the
 * sample's period once in its Children column (recursion counted once,
 * the first occurrence in call-chain order wins), and with call graphs the
 * part of the chain from that frame on. Frames are walked in the order of
 * the call-chain cursor (root first for caller order, leaf first for callee);
 * the entries already credited for this sample live in a reused scratch
 * array, so nothing is allocated per sample.
 */
#include <errno.h>
#include <stdlib.h>
#include "internal.h"

#define RP_FCACHE_SIZE 65536

static uint32_t rp_frame_entry(struct pk_report *r, struct rp_keyctx *c)
{
	const struct pk_location *l = c->loc;
	uint64_t a, b, cc;
	struct rp_fcache *f;
	uint32_t ei;

	if (!r->frame_cache_ok || c->placeholder_comm)
		return rp_entry_get(r, c);
	a = (uint64_t)c->comm_id << 32 | (uint32_t)(c->rs->evsel ? c->rs->evsel->idx : 0);
	b = l->sym ? (uintptr_t)l->sym : ((uintptr_t)l->dso | 1);
	cc = l->sym ? 0 : l->ip;
	f = &r->fcache[rp_mix(a ^ rp_mix(b ^ cc)) & (RP_FCACHE_SIZE - 1)];
	if (f->valid && f->a == a && f->b == b && f->c == cc)
		return f->entry;
	ei = rp_entry_get(r, c);
	if (ei != UINT32_MAX) {
		*f = (struct rp_fcache){ a, b, cc, ei, 1 };
	}
	return ei;
}

static void rp_frame_cache_init(struct pk_report *r)
{
	if (r->fcache_decided)
		return;
	r->fcache_decided = 1;
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id != RP_K_COMM && r->keys[i]->id != RP_K_DSO && r->keys[i]->id != RP_K_SYM)
			return;
	r->fcache = calloc(RP_FCACHE_SIZE, sizeof(*r->fcache));
	if (r->fcache)
		r->frame_cache_ok = 1;
}

static int rp_child_frame(struct pk_report *r, const struct pk_rsample *rs, struct rp_keyctx *c,
			  uint32_t i, uint32_t *nseen)
{
	uint32_t ei;
	struct rp_entry *e;

	c->loc = &rs->frames[i];
	c->inlined = rs->inlined ? rs->inlined[i] : 0;
	/* perf keeps the level of the last frame that had a map for frames without one */
	if (c->loc->map)
		c->level = c->loc->dso && c->loc->dso->kernel ? 'k' : '.';
	ei = rp_frame_entry(r, c);
	if (ei == UINT32_MAX)
		return -ENOMEM;
	for (uint32_t j = 0; j < *nseen; j++)
		if (r->scratch_ent[j] == ei)
			return 0;
	r->scratch_ent[(*nseen)++] = ei;
	e = &r->ent[ei];
	e->acc += rs->period;
	e->nr_acc++;
	if (r->use_callchain) {
		uint32_t depth = r->nodes[r->scratch_node[i]].depth, pair;
		int err;

		if (depth > e->max_depth)
			e->max_depth = depth;
		if ((err = rp_pair_add(r, ei, r->scratch_node[i], rs->period, &pair)))
			return err;
		return rp_memo_op(r, ei, pair, RP_MEMO_ACC);
	}
	return rp_memo_op(r, ei, UINT32_MAX, RP_MEMO_ACC);
}

int rp_children_add(struct pk_report *r, const struct pk_rsample *rs, const struct rp_keyctx *self,
		    uint32_t self_entry)
{
	struct rp_keyctx c = *self;
	uint32_t n = rs->nr_frames, nseen = 1;
	int err;

	rp_frame_cache_init(r);
	c.self = 0;
	c.level = r->ent[self_entry].level;
	r->scratch_ent[0] = self_entry;   /* scratch holds n + 1 slots */
	if (r->cg_order == PK_CG_CALLER) {
		for (uint32_t i = n; i-- > 0;)
			if ((err = rp_child_frame(r, rs, &c, i, &nseen)))
				return err;
	} else {
		for (uint32_t i = 0; i < n; i++)
			if ((err = rp_child_frame(r, rs, &c, i, &nseen)))
				return err;
	}
	return 0;
}
