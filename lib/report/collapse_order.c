/*
 * The order of perf's collapsed tree: its hist entries ordered by the sort
 * keys alone (rp_key_collapse_cmp(): symbols by DSO and address), which is
 * the order perf inserts them into its output tree (rbtree_order.c).
 *
 * For the keys comm, dso and symbol (perf's default; symbol after dso) each
 * entry's place is first packed into a few integers (string ranks, the
 * symbol's address), so the sort reads one small array instead of chasing
 * entries and symbols through memory. Other keys, a symbol key without dso
 * before it and inline symbols (compared by name) take the comparison
 * function, and always perf's trees (below): a symbol key without dso is
 * itself circular when unresolved symbols of several DSOs meet resolved
 * ones (perf compares DSOs inside it, but not for two unresolved symbols:
 * U2 before U1 by address, U1 before R by DSO, R before U2 as resolved).
 *
 * perf compares two unresolved symbols by the signed difference of their
 * addresses, which goes round in a circle for addresses 2^63 or more apart
 * (garbage frames of a broken frame-pointer chain: 0x56d5... before
 * 0x99cf... before 0x7fff... before 0x56d5...). Its order then depends on
 * how its trees grew: the input tree, in the order the entries were made,
 * and, when a key has a collapse function (comm), the collapsed tree, in the
 * input tree's order. When the addresses allow such a circle, those trees
 * are built here the same way (rbtree_order.c); otherwise a sort of the
 * packed keys gives the same order. tests/unit/test_report_circle.c checks
 * both against perf. Not reproduced: perf's searches of its input tree, in
 * which a circular comparison can miss an entry and make a second one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define PACK_WORDS 5            /* comm 1 + dso 1 + symbol 3 */

struct packed {
	uint64_t w[PACK_WORDS];
	uint32_t entry;
};

static int packed_cmp(const void *pa, const void *pb, void *words)
{
	const struct packed *a = pa, *b = pb;

	for (int i = 0; i < *(const int *)words; i++)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static int id_cmp(const void *pa, const void *pb, void *str)
{
	const char *const *s = str;

	return strcmp(s[*(const uint32_t *)pa], s[*(const uint32_t *)pb]);
}

/* rank[id]: the place of string @id among the table's strings in strcmp order */
static uint32_t *string_ranks(const struct rp_strtab *t)
{
	uint32_t *ids = malloc((t->n ? t->n : 1) * sizeof(*ids));
	uint32_t *rank = malloc((t->n ? t->n : 1) * sizeof(*rank));

	if (!ids || !rank) {
		free(ids);
		free(rank);
		return NULL;
	}
	for (uint32_t i = 0; i < t->n; i++)
		ids[i] = i;
	qsort_r(ids, t->n, sizeof(*ids), id_cmp, t->str);
	for (uint32_t i = 0; i < t->n; i++)
		rank[ids[i]] = i;
	free(ids);
	return rank;
}

/*
 * Words per entry when every key packs (comm, dso, or symbol after dso; no
 * inline symbol among @v), else 0. Bit i of *@addr_words: word i holds an
 * address (pack()).
 */
static int packed_words(const struct pk_report *r, const uint32_t *v, size_t n, uint32_t *addr_words)
{
	int words = 0, dso_seen = 0;

	*addr_words = 0;
	for (int i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]->id) {
		case RP_K_COMM:
			words++;
			break;
		case RP_K_DSO:
			words++;
			dso_seen = 1;
			break;
		case RP_K_SYM:
			if (!dso_seen)
				return 0;
			*addr_words |= 3u << (words + 1);
			words += 3;
			break;
		default:
			return 0;
		}
	}
	if (words > PACK_WORDS)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (r->ent[v[i]].inlined)
			return 0;
	return words;
}

/*
 * The words of @e, compared as unsigned integers in rp_key_collapse_cmp()'s
 * order: an unknown DSO after every named one; within a DSO, resolved symbols
 * first, by start and end, then unresolved ones by address as a signed number
 * (perf's signed difference, but for addresses 2^63 or more apart).
 */
static void pack(const struct pk_report *r, const uint32_t *rank, const struct rp_entry *e, uint64_t *w)
{
	const uint64_t sign = 1ULL << 63;
	int k = 0;

	for (int i = 0; i < r->nr_keys; i++) {
		switch (r->keys[i]->id) {
		case RP_K_COMM:
			w[k++] = rank[e->comm_id];
			break;
		case RP_K_DSO:
			w[k++] = e->dso_id ? rank[e->dso_id] : UINT64_MAX;
			break;
		default:        /* RP_K_SYM */
			w[k++] = !e->sym;
			w[k++] = (e->sym ? e->sym->start : e->ip) ^ sign;
			w[k++] = e->sym ? e->sym->end ^ sign : 0;
			break;
		}
	}
}

static int collapse_before(uint32_t a, uint32_t b, void *r)
{
	const struct pk_report *rep = r;

	return rp_entry_collapse_cmp(rep, &rep->ent[a], &rep->ent[b]);
}

struct packed_tree {
	const struct packed *p;
	int words;
	uint32_t addr_words;
};

/*
 * rp_key_collapse_cmp()'s order on packed entries @a and @b (places in the
 * array): addresses by their signed difference, which the sign bit pack()
 * flips leaves unchanged
 */
static int packed_before(uint32_t a, uint32_t b, void *ctx)
{
	const struct packed_tree *t = ctx;
	const uint64_t *wa = t->p[a].w, *wb = t->p[b].w;

	for (int i = 0; i < t->words; i++) {
		if (wa[i] == wb[i])
			continue;
		if (t->addr_words >> i & 1)
			return (int64_t)(wa[i] - wb[i]) < 0 ? -1 : 1;
		return wa[i] < wb[i] ? -1 : 1;
	}
	return 0;
}

/* perf builds its collapsed tree only when a key has a collapse function: of perf 6.1's, comm */
static int has_collapse_key(const struct pk_report *r)
{
	for (int i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id == RP_K_COMM)
			return 1;
	return 0;
}

/* perf's input tree, then (when a key collapses) its collapsed tree, on @v */
static int grow_trees(const struct pk_report *r, uint32_t *v, size_t n, rp_before_fn before, void *ctx)
{
	int err = rp_rbtree_order(v, n, before, ctx);

	return err || !has_collapse_key(r) ? err : rp_rbtree_order(v, n, before, ctx);
}

/* 1 when no half of the address circle holds every unresolved address of @v */
static int unresolved_may_circle(const struct pk_report *r, const uint32_t *v, size_t n)
{
	uint64_t umin = UINT64_MAX, umax = 0;
	int64_t smin = INT64_MAX, smax = INT64_MIN;
	const uint64_t half = 1ULL << 63;

	for (size_t i = 0; i < n; i++) {
		const struct rp_entry *e = &r->ent[v[i]];

		if (e->sym)
			continue;
		umin = e->ip < umin ? e->ip : umin;
		umax = e->ip > umax ? e->ip : umax;
		smin = (int64_t)e->ip < smin ? (int64_t)e->ip : smin;
		smax = (int64_t)e->ip > smax ? (int64_t)e->ip : smax;
	}
	return umin <= umax && umax - umin >= half && (uint64_t)smax - (uint64_t)smin >= half;
}

/* @v: the entries of one event in the order they were made */
int rp_collapse_order(struct pk_report *r, uint32_t *v, size_t n)
{
	uint32_t addr_words, *rank;
	int words = packed_words(r, v, n, &addr_words), err = 0, circle;
	struct packed *p;

	if (!words)
		return grow_trees(r, v, n, collapse_before, r);
	circle = unresolved_may_circle(r, v, n);
	rank = string_ranks(&r->strs);
	p = malloc((n ? n : 1) * sizeof(*p));
	if (!rank || !p) {
		free(rank);
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		pack(r, rank, &r->ent[v[i]], p[i].w);
		p[i].entry = v[i];
	}
	if (circle) {
		struct packed_tree t = { p, words, addr_words };

		for (uint32_t i = 0; i < n; i++)
			v[i] = i;       /* places in p, still in the order the entries were made */
		err = grow_trees(r, v, n, packed_before, &t);
		for (size_t i = 0; !err && i < n; i++)
			v[i] = p[v[i]].entry;
	} else {
		qsort_r(p, n, sizeof(*p), packed_cmp, &words);
		for (size_t i = 0; i < n; i++)
			v[i] = p[i].entry;
	}
	free(p);
	free(rank);
	return err;
}

/*
 * perf's hists__link(): each entry of a member that the leader lacks goes
 * into the leader's tree as a dummy entry, searched for from its root like
 * any other, after the leader's own entries made that tree: its input tree,
 * in the order they were made, or, when a key collapses, its collapsed
 * tree, in the input tree's order (grow_trees()). Where no circle is
 * possible, the order is simply that of every entry sorted.
 */
int rp_collapse_order_linked(struct pk_report *r, uint32_t *v, size_t nr_leader, size_t n)
{
	struct rp_rbtree t;
	uint32_t addr_words;

	if (nr_leader == n || (packed_words(r, v, n, &addr_words) && !unresolved_may_circle(r, v, n)))
		return rp_collapse_order(r, v, n);
	if ((has_collapse_key(r) && rp_rbtree_order(v, nr_leader, collapse_before, r)) || rp_rbtree_init(&t, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rp_rbtree_insert(&t, v[i], collapse_before, r);
	rp_rbtree_inorder(&t, v);
	rp_rbtree_free(&t);
	return 0;
}
