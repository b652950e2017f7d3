/*
 * The stack memo: most samples of a profile repeat a stack seen before
 * (the bench's 1.2M-sample system-wide file has 95,637 distinct stacks),
 * and when the sort keys are only comm, dso and sym, everything a sample
 * adds to the histogram follows from (event, comm, sampled location,
 * call-chain frames).
 * The first sample of each distinct stack runs the full path (entry
 * lookups, trie, children, pairs) and records what it touched as a list of
 * operations; later samples of the same stack find it with one hash over the
 * frames and replay the list, adding their period without any other lookup.
 *
 * Key words: [event << 32 | comm, cpumode, self a, self b, frame a, frame b, ...]
 * where a location's (a, b) is (symbol, 0) or (DSO | 1, ip), the same
 * identity the trie and the frame cache use, and comm is the comm text's
 * number in the memo's own string table.
 *
 * Two sides, which the pipeline (pipeline.c) runs on two threads: the
 * lookup (slots, keys, comm numbers) where samples arrive, and the replay
 * (each stack's operations, by stack number) where they are added. A stack
 * is numbered when first seen; the adding side meets that sample first, in
 * order, and records its operations under the number.
 *
 * The slots hold the stacks themselves (open addressing), so a sample
 * finds its stack with one cache miss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Stacks deeper than this are not memoized (rare; they take the full path). */
#define RP_MEMO_MAX_FRAMES 512

static inline void rp_loc_key(const struct pk_location *l, uint64_t *a, uint64_t *b)
{
	if (l->sym) {
		*a = (uintptr_t)l->sym;
		*b = 0;
	} else {
		*a = (uintptr_t)l->dso | 1;
		*b = l->ip;
	}
}

static size_t rp_memo_key(const struct pk_rsample *rs, uint32_t comm, uint64_t *k)
{
	size_t n = 0;

	k[n++] = (uint64_t)(rs->evsel ? rs->evsel->idx : 0) << 32 | comm;
	k[n++] = rs->cpumode;
	rp_loc_key(&rs->self, &k[n], &k[n + 1]);
	n += 2;
	for (uint32_t i = 0; i < rs->nr_frames; i++, n += 2)
		rp_loc_key(&rs->frames[i], &k[n], &k[n + 1]);
	return n;
}

static uint64_t rp_memo_hash(const uint64_t *k, size_t n)
{
	uint64_t h = 0x51ed270b27f9a4c3ULL ^ n;

	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 0x9e3779b97f4a7c15ULL;
	return rp_mix(h);
}

int rp_memo_usable(const struct pk_report *r)
{
	/* (its key names a frame by symbol: -g address's call paths differ within one) */
	if (r->branch_mode || r->has_parent_key || r->cpu_columns || r->o.cg_by_address ||
	    (!r->children && !r->use_callchain))
		return 0;
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id != RP_K_COMM && r->keys[i]->id != RP_K_DSO && r->keys[i]->id != RP_K_SYM)
			return 0;
	return 1;
}

static int rp_memo_grow(struct rp_memo *m)
{
	size_t ncap = m->mask ? (m->mask + 1) * 2 : 4096;
	struct rp_memo_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; m->slots && i <= m->mask; i++) {
		size_t j = m->slots[i].hash & (ncap - 1);

		if (!m->slots[i].key_n)
			continue;
		while (ns[j].key_n)
			j = (j + 1) & (ncap - 1);
		ns[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = ns;
	m->mask = ncap - 1;
	return 0;
}

void rp_memo_replay(struct pk_report *r, uint32_t stack, uint64_t period)
{
	const struct rp_memo_ops *st = &r->memo.stacks[stack];
	const struct rp_memo_op *op = &r->memo.ops[st->first];

	for (uint32_t i = 0; i < st->n; i++, op++) {
		struct rp_entry *e = &r->ent[op->entry];

		if (op->kind & RP_MEMO_SELF) {
			e->self += period;
			e->nr_self++;
		}
		if (op->kind & RP_MEMO_ACC) {
			e->acc += period;
			e->nr_acc++;
		}
		if (op->pair != UINT32_MAX) {
			r->pairs[op->pair].period += period;
			r->pairs[op->pair].count++;
		}
	}
}

int rp_memo_lookup(struct pk_report *r, const struct pk_rsample *rs, uint32_t *stack, int *hit)
{
	struct rp_memo *m = &r->memo;
	uint32_t comm;
	size_t n, i;
	uint64_t h;

	*stack = RP_NO_STACK;
	*hit = 0;
	if (rs->nr_frames > RP_MEMO_MAX_FRAMES)
		return 0;
	n = 4 + 2 * (size_t)rs->nr_frames;
	if (n > m->kcap) {
		uint64_t *nk = realloc(m->kbuf, n * 2 * sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		m->kbuf = nk;
		m->kcap = n * 2;
	}
	comm = rp_comm_text_id(&m->comms, rs, rs->thread);
	if (comm == UINT32_MAX)
		return -ENOMEM;
	n = rp_memo_key(rs, comm, m->kbuf);
	h = rp_memo_hash(m->kbuf, n);
	if ((m->nr + 1) * 2 > m->mask + 1 && rp_memo_grow(m))
		return -ENOMEM;
	for (i = h & m->mask; m->slots[i].key_n; i = (i + 1) & m->mask) {
		const struct rp_memo_slot *sl = &m->slots[i];

		if (sl->hash == h && sl->key_n == n &&
		    !memcmp(&m->keys[sl->key_first], m->kbuf, n * sizeof(uint64_t))) {
			*stack = sl->stack;
			*hit = 1;
			return 0;
		}
	}
	/* a new stack: remember its key; the adding side records its operations */
	if (m->nr >= RP_NO_STACK)
		return 0;
	if (pk_array_grow((void **)&m->keys, &m->cap_keys, m->nr_keys + n, sizeof(*m->keys), 4096))
		return -ENOMEM;
	memcpy(&m->keys[m->nr_keys], m->kbuf, n * sizeof(uint64_t));
	m->slots[i] = (struct rp_memo_slot){ .hash = h, .key_first = m->nr_keys, .key_n = (uint32_t)n,
					     .stack = (uint32_t)m->nr };
	m->nr_keys += n;
	*stack = (uint32_t)m->nr++;
	return 0;
}

int rp_memo_record(struct pk_report *r, uint32_t stack)
{
	struct rp_memo *m = &r->memo;

	if (pk_array_grow((void **)&m->stacks, &m->cap_stacks, (size_t)stack + 1, sizeof(*m->stacks),
			  4096))
		return -ENOMEM;
	m->stacks[stack] = (struct rp_memo_ops){ .first = m->nr_ops, .n = 0 };
	m->nr_stacks = (size_t)stack + 1;
	m->recording = 1;
	return 0;
}

int rp_memo_op(struct pk_report *r, uint32_t entry, uint32_t pair, unsigned kind)
{
	struct rp_memo *m = &r->memo;

	if (!m->recording)
		return 0;
	if (pk_array_grow((void **)&m->ops, &m->cap_ops, m->nr_ops + 1, sizeof(*m->ops), 16384))
		return -ENOMEM;
	m->ops[m->nr_ops++] = (struct rp_memo_op){ entry, pair, kind };
	m->stacks[m->nr_stacks - 1].n++;
	return 0;
}

void rp_memo_end(struct pk_report *r)
{
	r->memo.recording = 0;
}

void rp_memo_release(struct rp_memo *m)
{
	free(m->slots);
	free(m->keys);
	free(m->kbuf);
	rp_strtab_release(&m->comms);
	free(m->stacks);
	free(m->ops);
	memset(m, 0, sizeof(*m));
}
