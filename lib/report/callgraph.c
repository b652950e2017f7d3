/*
 * Call graphs. While samples stream in, each call path is interned once in a
 * trie of (parent node, function) -> node, oriented so that the chain an
 * entry shows is always the walk from one trie node back to the root, and
 * periods are summed per (entry, node) pair. Only at print time is a tree
 * per printed entry built from its pairs, then sorted, cut at the threshold
 * and printed in perf report --stdio's graph, fractal, flat or folded form.
 *
 * Tree shape: perf keeps runs of frames without a branch in one node; here
 * a run is a chain of nodes where every node but the last has no samples
 * ending at it and exactly one child, which prints the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

static int rp_scratch(struct pk_report *r, size_t n)
{
	if (n <= r->scratch_cap)
		return 0;
	size_t ncap = n < 256 ? 256 : n * 2;
	uint32_t *a = realloc(r->scratch_ent, ncap * sizeof(*a));

	if (!a)
		return -ENOMEM;
	r->scratch_ent = a;
	a = realloc(r->scratch_node, ncap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	r->scratch_node = a;
	r->scratch_cap = ncap;
	return 0;
}

/*
 * A frame's identity in the trie: its symbol, or (DSO, ip) when it has none
 * or @by_addr (-g address). Inline frames compare by name, as perf's
 * match_chain() does (their synthesized symbols share one interned name
 * pointer per name).
 */
static inline void rp_fkey(const struct pk_sym *sym, const struct pk_dso *dso, uint64_t ip,
			   int inlined, int by_addr, uint64_t *fa, uint64_t *fb)
{
	if (by_addr) {
		*fa = (uintptr_t)dso | 1;
		*fb = ip;
	} else if (sym && inlined) {
		*fa = (uintptr_t)sym->name;
		*fb = 1;
	} else if (sym) {
		*fa = (uintptr_t)sym;
		*fb = 0;
	} else {
		*fa = (uintptr_t)dso | 1;   /* odd: never a symbol pointer */
		*fb = ip;
	}
}

static inline int rp_node_is(const struct rp_node *c, const struct pk_location *l, uint8_t inlined,
			     int by_addr)
{
	if (by_addr)
		return c->inlined == inlined && c->dso == l->dso && c->ip == l->ip;
	return c->inlined == inlined &&
	       (inlined ? c->sym->name == l->sym->name :
		l->sym ? c->sym == l->sym : (!c->sym && c->dso == l->dso && c->ip == l->ip));
}

struct rp_child_key {
	const struct pk_report *r;
	uint32_t parent;
	uint8_t inlined;
	const struct pk_location *l;
};

static int rp_child_eq(const void *ctx, uint32_t idx)
{
	const struct rp_child_key *k = ctx;
	const struct rp_node *c = &k->r->nodes[idx];

	return c->parent == k->parent && rp_node_is(c, k->l, k->inlined, k->r->o.cg_by_address);
}

static uint32_t rp_node_child(struct pk_report *r, uint32_t parent, const struct pk_location *l,
			      uint8_t inlined)
{
	struct rp_child_key k = { r, parent, inlined, l };
	uint64_t fa, fb;
	uint32_t h, last = r->nodes[parent].last_child;
	struct rp_ix *slot;

	if (last != UINT32_MAX && rp_node_is(&r->nodes[last], l, inlined, r->o.cg_by_address))
		return last;
	rp_fkey(l->sym, l->dso, l->ip, inlined, r->o.cg_by_address, &fa, &fb);
	h = (uint32_t)rp_hash3(parent, fa, fb);
	if (rp_ixmap_reserve(&r->trie))
		return UINT32_MAX;
	slot = rp_ixmap_probe(&r->trie, h, rp_child_eq, &k);
	if (slot->idx1) {
		r->nodes[parent].last_child = slot->idx1 - 1;
		return slot->idx1 - 1;
	}
	if (pk_array_grow((void **)&r->nodes, &r->cap_nodes, r->nr_nodes + 1, sizeof(*r->nodes), 0))
		return UINT32_MAX;
	rp_ixmap_fill(&r->trie, slot, h, (uint32_t)r->nr_nodes);
	r->nodes[r->nr_nodes] = (struct rp_node){ .parent = parent, .depth = r->nodes[parent].depth + 1,
		.sym = l->sym, .dso = l->dso, .ip = l->ip, .addr = l->addr, .inlined = inlined,
		.last_child = UINT32_MAX,
		.last_pair = UINT32_MAX, .first_pair = UINT32_MAX };
	r->nodes[parent].last_child = (uint32_t)r->nr_nodes;
	return (uint32_t)r->nr_nodes++;
}

int rp_path_intern(struct pk_report *r, const struct pk_rsample *rs)
{
	uint32_t n = rs->nr_frames, node = 0;

	if (rp_scratch(r, (size_t)n + 1))
		return -ENOMEM;
	if (!r->nodes) {
		r->cap_nodes = 4096;
		r->nodes = calloc(r->cap_nodes, sizeof(*r->nodes));
		if (!r->nodes)
			return -ENOMEM;
		r->nr_nodes = 1;                /* node 0: the root, the empty chain */
		r->nodes[0].last_child = r->nodes[0].last_pair = r->nodes[0].first_pair = UINT32_MAX;
	}
	if (r->cg_order == PK_CG_CALLER) {
		/* leaf-first trie: the chain of frame i is frames i..0, caller to callee */
		for (uint32_t i = 0; i < n; i++) {
			node = rp_node_child(r, node, &rs->frames[i], rs->inlined ? rs->inlined[i] : 0);
			if (node == UINT32_MAX)
				return -ENOMEM;
			r->scratch_node[i] = node;
		}
	} else {
		/* root-first trie: the chain of frame i is frames i..n-1, callee to caller */
		for (uint32_t i = n; i-- > 0;) {
			node = rp_node_child(r, node, &rs->frames[i], rs->inlined ? rs->inlined[i] : 0);
			if (node == UINT32_MAX)
				return -ENOMEM;
			r->scratch_node[i] = node;
		}
	}
	r->scratch_node[n] = node;
	return 0;
}

struct rp_pair_key {
	const struct pk_report *r;
	uint32_t entry, node;
};

static int rp_pair_eq(const void *ctx, uint32_t idx)
{
	const struct rp_pair_key *k = ctx;

	return k->r->pairs[idx].entry == k->entry && k->r->pairs[idx].node == k->node;
}

/*
 * The pair (entry, node), created with period 0 when new; UINT32_MAX on
 * ENOMEM. Nearly every node reaches one entry only: that first pair lives in
 * the node, and only the others go through the hash index.
 */
static uint32_t rp_pair_find(struct pk_report *r, uint32_t entry, uint32_t node)
{
	struct rp_node *n = r->nodes ? &r->nodes[node] : NULL;
	struct rp_pair_key k = { r, entry, node };
	struct rp_ix *slot = NULL;
	uint32_t h = 0, idx;

	if (n && n->last_pair != UINT32_MAX && r->pairs[n->last_pair].entry == entry)
		return n->last_pair;
	if (n && n->first_pair != UINT32_MAX && r->pairs[n->first_pair].entry == entry)
		return n->last_pair = n->first_pair;
	if (!n || n->first_pair != UINT32_MAX) {
		h = (uint32_t)rp_hash3(entry, node, 0);
		if (rp_ixmap_reserve(&r->pair_idx))
			return UINT32_MAX;
		slot = rp_ixmap_probe(&r->pair_idx, h, rp_pair_eq, &k);
		if (slot->idx1)
			return n ? (n->last_pair = slot->idx1 - 1) : slot->idx1 - 1;
	}
	if (pk_array_grow((void **)&r->pairs, &r->cap_pairs, r->nr_pairs + 1, sizeof(*r->pairs), 4096))
		return UINT32_MAX;
	idx = (uint32_t)r->nr_pairs++;
	r->pairs[idx] = (struct rp_pair){ entry, node, 0, 0 };
	if (slot)
		rp_ixmap_fill(&r->pair_idx, slot, h, idx);
	else
		n->first_pair = idx;
	if (n)
		n->last_pair = idx;
	return idx;
}

int rp_pair_add(struct pk_report *r, uint32_t entry, uint32_t node, uint64_t period, uint32_t *idx)
{
	uint32_t i = rp_pair_find(r, entry, node);

	if (i == UINT32_MAX)
		return -ENOMEM;
	r->pairs[i].period += period;
	r->pairs[i].count++;
	if (idx)
		*idx = i;
	return 0;
}

int rp_pairs_group(struct pk_report *r, uint32_t **order)
{
	uint32_t *o = malloc((r->nr_pairs ? r->nr_pairs : 1) * sizeof(*o));
	uint32_t pos = 0;

	*order = o;
	if (!o)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_ent; i++)
		r->ent[i].chain_n = 0;
	for (size_t i = 0; i < r->nr_pairs; i++)
		r->ent[r->pairs[i].entry].chain_n++;
	for (size_t i = 0; i < r->nr_ent; i++) {
		r->ent[i].chain_first = pos;
		pos += r->ent[i].chain_n;
		r->ent[i].chain_n = 0;
	}
	for (size_t i = 0; i < r->nr_pairs; i++) {
		struct rp_entry *e = &r->ent[r->pairs[i].entry];

		o[e->chain_first + e->chain_n++] = (uint32_t)i;
	}
	return 0;
}

/* ---- the printed tree of one entry ---------------------------------------- */

struct pt_node {
	uint32_t trie;              /* the trie node naming this frame (0 for the root) */
	uint32_t first, next, last; /* first child, next sibling, last child (0 = none) */
	uint32_t nchild;
	uint64_t hit, chit;         /* period of the samples ending here; in the children */
	uint64_t cnt, ccnt;         /* the numbers of those samples */
};

struct pt {
	struct pk_report *r;
	struct pt_node *n;
	size_t nr, cap;
	struct rp_map idx;          /* (parent, fa, fb) -> node */
	uint64_t total;             /* the event's total period (graph, flat, folded) */
	uint64_t min_total;         /* what the threshold is a share of (see rp_callgraph_print) */
	double min_pct;
	enum pk_callgraph_mode mode;
	enum pk_callgraph_value value;
	uint32_t limit;             /* print limit (0: none) */
	FILE *out;
	char *name;                 /* pt_name's text, perf's 1024 bytes */
};

static uint32_t pt_add(struct pt *t, uint32_t parent, uint32_t trie)
{
	const struct rp_node *tn = &t->r->nodes[trie];
	uint64_t fa, fb;
	uint32_t *v;
	int found;

	rp_fkey(tn->sym, tn->dso, tn->ip, tn->inlined, t->r->o.cg_by_address, &fa, &fb);
	v = rp_map_get(&t->idx, parent, fa, fb, &found, (uint32_t)t->nr);
	if (!v)
		return UINT32_MAX;
	if (found)
		return *v;
	if (pk_array_grow((void **)&t->n, &t->cap, t->nr + 1, sizeof(*t->n), 256))
		return UINT32_MAX;
	t->n[t->nr] = (struct pt_node){ .trie = trie, .first = 0, .next = 0 };
	/* append at the end of the sibling list: keeps first-seen order for ties */
	if (!t->n[parent].first)
		t->n[parent].first = (uint32_t)t->nr;
	else
		t->n[t->n[parent].last].next = (uint32_t)t->nr;
	t->n[parent].last = (uint32_t)t->nr;
	t->n[parent].nchild++;
	return (uint32_t)t->nr++;
}

#define PT_NAME_MAX 1024

/* The source line of trie node @n (its innermost position), into *@out: 1, or 0 if unknown. */
static int rp_node_srcline(struct pk_report *r, const struct rp_node *n, struct pk_srcline *out)
{
	struct pk_location l = { .ip = n->ip, .dso = (struct pk_dso *)n->dso, .sym = n->sym,
				 .addr = n->addr };

	if (!r->syms || pk_symbols_srcline(r->syms, &l, out, 1) < 1 || !out->file)
		return 0;
	return 1;
}

/*
 * A node's text: its symbol's name, or its address without one. With -g
 * address, a named node adds its source line, or without one its offset
 * in the symbol ("+241", perf's callchain_srcline).
 */
static const char *pt_name(const struct pt *t, uint32_t pn)
{
	const struct rp_node *tn = &t->r->nodes[t->n[pn].trie];
	char *buf = t->name;
	size_t sz = PT_NAME_MAX;
	struct pk_srcline sl;

	if (!tn->sym) {
		snprintf(buf, sz, "%#" PRIx64, tn->ip);
		return buf;
	}
	if (!t->r->o.cg_by_address)
		return tn->sym->name;
	if (rp_node_srcline(t->r, tn, &sl))
		snprintf(buf, sz, "%s %s:%" PRIu32, tn->sym->name,
			 pk_srcline_shown_file(sl.file, t->r->o.full_source_path), sl.line);
	else
		snprintf(buf, sz, "%s +%" PRIu64, tn->sym->name, tn->addr - tn->sym->start);
	return buf;
}

/* perf's callchain_list__sym_name() marks inline frames. */
static const char *pt_suffix(const struct pt *t, uint32_t pn)
{
	return t->r->nodes[t->n[pn].trie].inlined ? " (inlined)" : "";
}

static inline uint64_t pt_cumul(const struct pt *t, uint32_t pn)
{
	return t->n[pn].hit + t->n[pn].chit;
}

static inline uint64_t pt_cumul_count(const struct pt *t, uint32_t pn)
{
	return t->n[pn].cnt + t->n[pn].ccnt;
}

/* @i more chains or children were printed: the print limit is reached. */
static inline int pt_limit_reached(const struct pt *t, size_t i)
{
	return t->limit && i >= t->limit;
}

/* The last node of the run starting at @pn. */
static uint32_t pt_run_end(const struct pt *t, uint32_t pn)
{
	while (t->n[pn].hit == 0 && t->n[pn].nchild == 1)
		pn = t->n[pn].first;
	return pn;
}

/* The least period a node needs outside fractal mode: a share of the event's total. */
static uint64_t pt_abs_min(uint64_t total, double min_pct)
{
	return (uint64_t)((double)total * (min_pct / 100.0));
}

static const struct pt *cmp_t;

/*
 * Ties: perf walks children in its rb-tree order, which is descending
 * (DSO object address, then symbol start when both frames have a symbol,
 * else their ips, as match_chain() compares them: a start is relative to
 * the DSO, an ip is not; ip with -g address). DSO objects are created in
 * the order the file mentions them in both tools, so their addresses
 * compare alike.
 */
static int pt_tie(const struct pt *t, uint32_t a, uint32_t b)
{
	const struct rp_node *na = &t->r->nodes[t->n[a].trie], *nb = &t->r->nodes[t->n[b].trie];
	uintptr_t da = (uintptr_t)na->dso, db = (uintptr_t)nb->dso;
	int by_start = na->sym && nb->sym && !t->r->o.cg_by_address;
	uint64_t ia = by_start ? na->sym->start : na->ip;
	uint64_t ib = by_start ? nb->sym->start : nb->ip;

	if (da != db)
		return da > db ? -1 : 1;
	if (ia != ib)
		return ia > ib ? -1 : 1;
	return a < b ? -1 : (a > b);
}

static int pt_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t ca = pt_cumul(cmp_t, a), cb = pt_cumul(cmp_t, b);

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return pt_tie(cmp_t, a, b);
}

static int pt_tie_cmp(const void *pa, const void *pb)
{
	return pt_tie(cmp_t, *(const uint32_t *)pa, *(const uint32_t *)pb);
}

/* Flat and folded order: hits, descending; ties in the order collected (perf's rb-tree inserts). */
static const uint32_t *cmp_pos;

static int pt_hit_cmp(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t ca = cmp_t->n[a].hit, cb = cmp_t->n[b].hit;

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return cmp_pos[a] < cmp_pos[b] ? -1 : (cmp_pos[a] > cmp_pos[b]);
}

/* Children of (the run ending at) @pn that pass the threshold, sorted. Caller frees. */
static uint32_t *pt_children(const struct pt *t, uint32_t pn, size_t *n)
{
	uint32_t *v = malloc((t->n[pn].nchild + 1) * sizeof(*v));
	uint64_t min_hit;
	size_t k = 0;

	*n = 0;
	if (!v)
		return NULL;
	if (t->mode == PK_CG_FRACTAL)
		min_hit = (uint64_t)ceil((double)t->n[pn].chit * (t->min_pct / 100.0));
	else
		min_hit = pt_abs_min(t->min_total, t->min_pct);
	for (uint32_t c = t->n[pn].first; c; c = t->n[c].next)
		if (pt_cumul(t, c) >= min_hit)
			v[k++] = c;
	cmp_t = t;
	qsort(v, k, sizeof(*v), pt_cmp);
	*n = k;
	return v;
}

static void pt_margin(FILE *f, int left)
{
	fprintf(f, "            %*s", left, "");
}

static void pt_graph_line(const struct pt *t, int depth, uint64_t mask, int left)
{
	pt_margin(t->out, left);
	for (int i = 0; i < depth; i++)
		fputs(i < 64 && (mask >> i & 1) ? "|          " : "           ", t->out);
	fputc('\n', t->out);
}

/*
 * A node's value as -g's value asks: @hits of @total as a percentage, the
 * period @hits, or the sample count @count (perf's callchain_node__fprintf_value).
 */
static void pt_value(const struct pt *t, uint64_t hits, uint64_t count, uint64_t total)
{
	if (t->value == PK_CG_PERIOD)
		fprintf(t->out, "%" PRIu64, hits);
	else if (t->value == PK_CG_COUNT)
		fprintf(t->out, "%u", (unsigned)count);     /* perf's unsigned count */
	else
		fprintf(t->out, "%.2f%%", total ? (double)hits * 100.0 / (double)total : 0.0);
}

static void pt_chain_line(const struct pt *t, uint64_t hits, uint64_t count, const char *name,
			  const char *suffix, int depth, uint64_t mask, int first, uint64_t total, int left)
{
	pt_margin(t->out, left);
	for (int i = 0; i < depth; i++) {
		fputc(i < 64 && (mask >> i & 1) ? '|' : ' ', t->out);
		if (first && i == depth - 1) {
			fputs("--", t->out);
			pt_value(t, hits, count, total);
			fputs("--", t->out);
		} else {
			fputs("          ", t->out);
		}
	}
	fprintf(t->out, "%s%s\n", name, suffix);
}

static int pt_graph(const struct pt *t, uint32_t parent, uint64_t total, int depth, uint64_t mask,
		    int left)
{
	size_t n;
	uint32_t *kids = pt_children(t, parent, &n);
	uint64_t remaining = total, new_mask = mask, counted = 0;
	int printed = 0;

	if (!kids)
		return -ENOMEM;
	for (size_t i = 0; i < n && !pt_limit_reached(t, i); i++) {
		uint32_t c = kids[i], end = pt_run_end(t, c), pn = c;
		uint64_t cum = pt_cumul(t, c), cum_count = pt_cumul_count(t, c);
		int idx = 0;

		remaining -= cum;
		counted += cum_count;
		if (i + 1 == n && (t->mode != PK_CG_FRACTAL || !remaining))
			new_mask &= ~(1ULL << ((depth - 1) & 63));
		pt_graph_line(t, depth, mask, left);
		for (;;) {
			pt_chain_line(t, cum, cum_count, pt_name(t, pn), pt_suffix(t, pn),
				      depth, new_mask, idx++ == 0, total, left);
			if (pn == end)
				break;
			pn = t->n[pn].first;
		}
		printed = 1;
		if (pt_graph(t, end, t->mode == PK_CG_FRACTAL ? t->n[end].chit : total, depth + 1,
			     new_mask | (depth < 64 ? 1ULL << depth : 0), left) < 0) {
			free(kids);
			return -ENOMEM;
		}
	}
	/*
	 * The share no child printed shows as "[...]"; counting samples, only
	 * when some are left (perf's unsigned count, 0 or wrapped)
	 */
	if (t->mode == PK_CG_FRACTAL && remaining && remaining != total &&
	    !(t->value == PK_CG_COUNT && (unsigned)(t->n[parent].ccnt - counted) == 0)) {
		new_mask &= ~(1ULL << ((depth - 1) & 63));
		pt_chain_line(t, remaining, t->n[parent].ccnt - counted, "[...]", "", depth, new_mask, 1,
			      total, left);
		printed = 1;
	}
	free(kids);
	return printed;
}

/* The tree in perf's graph layout. 0 or -ENOMEM. */
static int pt_print_graph(struct pt *t, uint64_t parent_samples, int skip_first)
{
	size_t n;
	uint32_t *kids = pt_children(t, 0, &n);
	uint32_t root = 0;
	int left = 0, printed = 0, any = 0, err;
	uint64_t total = t->total;

	if (!kids)
		return -ENOMEM;
	if (n == 1 && pt_cumul(t, kids[0]) == parent_samples) {
		uint32_t pn = kids[0], end = pt_run_end(t, pn);
		size_t lines = 0;
		int i = 0;

		for (;;) {
			if (!(i++ == 0 && skip_first)) {
				if (!printed) {
					pt_margin(t->out, left);
					fputs("|\n", t->out);
					pt_margin(t->out, left);
					fputs("---", t->out);
					left += 3;
					printed = 1;
				} else {
					pt_margin(t->out, left);
				}
				fprintf(t->out, "%s%s\n", pt_name(t, pn), pt_suffix(t, pn));
				any = 1;
				if (pt_limit_reached(t, ++lines))
					break;      /* the rest of the run too: its children follow */
			}
			if (pn == end)
				break;
			pn = t->n[pn].first;
		}
		root = end;
	}
	free(kids);
	if (t->mode == PK_CG_FRACTAL)
		total = parent_samples;
	err = pt_graph(t, root, total, 1, 1, left);
	if (err < 0)
		return err;
	if (any || err > 0)
		fputc('\n', t->out);
	return 0;
}

/*
 * The nodes with hits of at least @min_hit below @pn into @v, in perf's
 * order (its __sort_chain_flat): children first, in perf's rb-tree order
 * (pt_tie), then the node. 0 or -ENOMEM.
 */
static int pt_collect_hits(const struct pt *t, uint32_t pn, uint64_t min_hit, uint32_t *v, size_t *k)
{
	uint32_t nk = t->n[pn].nchild, *kids = nk ? malloc(nk * sizeof(*kids)) : NULL, i = 0;
	int err = 0;

	if (nk && !kids)
		return -ENOMEM;
	for (uint32_t c = t->n[pn].first; c && i < nk; c = t->n[c].next)
		kids[i++] = c;
	cmp_t = t;
	if (i > 1)                      /* (qsort's array must not be NULL, even empty) */
		qsort(kids, i, sizeof(*kids), pt_tie_cmp);
	for (uint32_t j = 0; j < i && !err; j++)
		err = pt_collect_hits(t, kids[j], min_hit, v, k);
	free(kids);
	if (pn && t->n[pn].hit && t->n[pn].hit >= min_hit)
		v[(*k)++] = pn;
	return err;
}

static void pt_path(const struct pt *t, uint32_t pn, uint32_t *parent_of, int folded, int *first)
{
	if (!pn)
		return;
	pt_path(t, parent_of[pn], parent_of, folded, first);
	if (folded) {
		/* perf joins folded frames with -t's separator when there is one */
		fprintf(t->out, "%s%s%s", *first ? "" : t->r->o.field_sep ? t->r->o.field_sep : ";", pt_name(t, pn),
			pt_suffix(t, pn));
		*first = 0;
	} else {
		fprintf(t->out, "                %s%s\n", pt_name(t, pn),
			pt_suffix(t, pn));
	}
}

/* The tree's hit paths, one block (or folded line) each. 0 or -ENOMEM. */
static int pt_print_flat(struct pt *t, int folded)
{
	uint32_t *v = malloc(t->nr * sizeof(*v)), *parent_of = calloc(t->nr, sizeof(*parent_of));
	uint32_t *pos = malloc(t->nr * sizeof(*pos));
	uint64_t min_hit = pt_abs_min(t->min_total, t->min_pct);
	size_t k = 0;
	int err = -ENOMEM;

	if (!v || !parent_of || !pos)
		goto out;
	for (uint32_t i = 0; i < t->nr; i++)
		for (uint32_t c = t->n[i].first; c; c = t->n[c].next)
			parent_of[c] = i;
	if ((err = pt_collect_hits(t, 0, min_hit, v, &k)))
		goto out;
	for (size_t i = 0; i < k; i++)
		pos[v[i]] = (uint32_t)i;
	cmp_t = t;
	cmp_pos = pos;
	qsort(v, k, sizeof(*v), pt_hit_cmp);
	for (size_t i = 0; i < k && !pt_limit_reached(t, i); i++) {
		int first = 1;

		if (folded) {
			pt_value(t, t->n[v[i]].hit, t->n[v[i]].cnt, t->total);
			fputc(' ', t->out);
			pt_path(t, v[i], parent_of, 1, &first);
			fputc('\n', t->out);
		} else {
			fputs("           ", t->out);
			pt_value(t, pt_cumul(t, v[i]), pt_cumul_count(t, v[i]), t->total);
			fputc('\n', t->out);
			pt_path(t, v[i], parent_of, 0, &first);
			fputc('\n', t->out);
		}
	}
out:
	free(v);
	free(parent_of);
	free(pos);
	return err;
}

int rp_callgraph_print(struct pk_report *r, const struct rp_entry *e, const uint32_t *pair_order,
		       uint64_t total, uint64_t min_total, FILE *out)
{
	char name[PT_NAME_MAX];
	struct pt t = { .r = r, .total = total, .min_total = min_total, .min_pct = r->o.cg_threshold,
			.mode = r->cg_mode, .value = r->o.cg_value, .limit = r->o.cg_print_limit,
			.out = out, .name = name };
	uint32_t chain[4096];
	uint64_t sum = 0;
	int err = -ENOMEM;

	/*
	 * Outside fractal mode a node must reach a fixed share of the event's
	 * total; when the whole entry falls short nothing would print, so most
	 * entries of a large profile need no tree at all. The sum saturates: a
	 * read value that went back gives a period near 2^64 (-e EVENT:S), and
	 * a sum that wrapped past it would skip a tree whose nodes print.
	 */
	if (r->cg_mode != PK_CG_FRACTAL) {
		for (uint32_t i = 0; i < e->chain_n; i++)
			if (__builtin_add_overflow(sum, r->pairs[pair_order[e->chain_first + i]].period,
						   &sum))
				sum = UINT64_MAX;
		if (sum < pt_abs_min(min_total, t.min_pct))
			return 0;
	}
	t.n = calloc(256, sizeof(*t.n));
	if (!t.n)
		return -ENOMEM;
	t.cap = 256;
	t.nr = 1;
	for (uint32_t i = 0; i < e->chain_n; i++) {
		const struct rp_pair *p = &r->pairs[pair_order[e->chain_first + i]];
		uint32_t len = 0, cur = 0;

		for (uint32_t tn = p->node; tn && len < 4096; tn = r->nodes[tn].parent)
			chain[len++] = tn;
		if (!len) {
			t.n[0].hit += p->period;
			t.n[0].cnt += p->count;
			continue;
		}
		t.n[0].chit += p->period;
		t.n[0].ccnt += p->count;
		for (uint32_t j = 0; j < len; j++) {
			cur = pt_add(&t, cur, chain[j]);
			if (cur == UINT32_MAX)
				goto out;
			if (j + 1 == len) {
				t.n[cur].hit += p->period;
				t.n[cur].cnt += p->count;
			} else {
				t.n[cur].chit += p->period;
				t.n[cur].ccnt += p->count;
			}
		}
	}
	switch (r->cg_mode) {
	case PK_CG_FLAT:
		err = pt_print_flat(&t, 0);
		break;
	case PK_CG_FOLDED:
		err = pt_print_flat(&t, 1);
		break;
	default:
		err = pt_print_graph(&t, r->children ? e->acc : e->self, r->sort_starts_sym);
		break;
	}
out:
	free(t.n);
	rp_map_release(&t.idx);
	return err;
}
