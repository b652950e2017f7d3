/*
 * perf's symbol tree, replayed where a table's symbols overlap.
 *
 * perf keeps a DSO's symbols in a red-black tree keyed by start (an equal
 * start goes right) and finds an address by walking down from the root:
 * left when the address is below a symbol's start, right when it is past
 * its end, else that symbol. Where symbols do not overlap, that is the one
 * symbol holding the address, as a binary search finds it. Where they do
 * (a zero-sized _init stretched over the .plt whose name@plt entries are
 * added afterwards, nested or overlapping sized symbols, JIT map entries),
 * perf answers with whichever holding symbol lies higher in its tree, so
 * the answer depends on the tree's shape.
 *
 * That shape follows from the order of insertions and erasures, which a
 * table's sym_rawvec records: symbols added with idx 0, 1, ... in turn, and
 * those sym_fixup_duplicate dropped, each erased after the first @at were
 * added. Replaying it with the Linux kernel's red-black rules (lib/rbtree.c:
 * insertion rebalancing by recolouring and rotations; erasure by the
 * in-order successor, then rebalancing from the removed black node's
 * parent) gives perf's tree, which is kept as left/right indices into the
 * final sorted table.
 */
#include <errno.h>
#include <stdlib.h>
#include "symbols/internal.h"

#define NIL UINT32_MAX
#define ERASED (UINT32_MAX - 1)   /* pos[] of a symbol erased on the way */

struct rbt {
	uint64_t *key;
	uint32_t (*kid)[2];     /* [0] left, [1] right */
	uint32_t *parent;
	uint8_t *red;
	uint32_t root;
};

static int is_red(const struct rbt *t, uint32_t n)
{
	return n != NIL && t->red[n];
}

/* Put @new where @old hangs from @parent (the root when @parent is NIL). */
static void change_child(struct rbt *t, uint32_t old, uint32_t new, uint32_t parent)
{
	if (parent == NIL)
		t->root = new;
	else
		t->kid[parent][t->kid[parent][0] != old] = new;
}

static void set_parent(struct rbt *t, uint32_t n, uint32_t parent)
{
	if (n != NIL)
		t->parent[n] = parent;
}

/* Rotate @n's child on side @up (0 left, 1 right) up into @n's place. */
static void rotate(struct rbt *t, uint32_t n, int up)
{
	uint32_t c = t->kid[n][up], p = t->parent[n];

	t->kid[n][up] = t->kid[c][!up];
	set_parent(t, t->kid[c][!up], n);
	t->kid[c][!up] = n;
	t->parent[n] = c;
	t->parent[c] = p;
	change_child(t, n, c, p);
}

static void insert(struct rbt *t, uint32_t n)
{
	uint32_t p = NIL, c = t->root;

	while (c != NIL) {
		p = c;
		c = t->kid[c][t->key[n] >= t->key[c]];
	}
	t->kid[n][0] = t->kid[n][1] = NIL;
	t->parent[n] = p;
	t->red[n] = 1;
	if (p == NIL)
		t->root = n;
	else
		t->kid[p][t->key[n] >= t->key[p]] = n;
	for (;;) {
		uint32_t parent = t->parent[n], g, uncle;
		int side;

		if (parent == NIL) {
			t->red[n] = 0;
			return;
		}
		if (!t->red[parent])
			return;
		g = t->parent[parent];
		side = t->kid[g][1] == parent;
		uncle = t->kid[g][!side];
		if (is_red(t, uncle)) {
			t->red[uncle] = t->red[parent] = 0;
			t->red[g] = 1;
			n = g;
			continue;
		}
		if (n == t->kid[parent][!side]) {
			rotate(t, parent, !side);
			parent = n;
		}
		rotate(t, g, side);
		t->red[parent] = 0;
		t->red[g] = 1;
		return;
	}
}

/*
 * A black node left @parent's subtree on the side whose child is now @n
 * (NIL or black). Where @n is NIL, the other side holds the sibling: a
 * NIL right child means @n is it.
 */
static void erase_rebalance(struct rbt *t, uint32_t n, uint32_t parent)
{
	while (parent != NIL) {
		int side = n == t->kid[parent][1];
		uint32_t sib = t->kid[parent][!side], near, far;

		if (t->red[sib]) {
			t->red[sib] = 0;
			t->red[parent] = 1;
			rotate(t, parent, !side);
			sib = t->kid[parent][!side];
		}
		near = t->kid[sib][side];
		far = t->kid[sib][!side];
		if (!is_red(t, far) && !is_red(t, near)) {
			t->red[sib] = 1;
			if (t->red[parent]) {
				t->red[parent] = 0;
				return;
			}
			n = parent;
			parent = t->parent[n];
			continue;
		}
		if (!is_red(t, far)) {
			t->red[near] = 0;
			t->red[sib] = 1;
			rotate(t, sib, side);
			far = sib;
			sib = near;
		}
		t->red[sib] = t->red[parent];
		t->red[parent] = 0;
		t->red[far] = 0;
		rotate(t, parent, !side);
		return;
	}
}

static void erase(struct rbt *t, uint32_t n)
{
	uint32_t l = t->kid[n][0], r = t->kid[n][1], p = t->parent[n];
	uint32_t child, parent, succ;
	int removed_black;

	if (l == NIL || r == NIL) {
		/* at most one child, which is red: it takes @n's place and colour */
		child = l == NIL ? r : l;
		change_child(t, n, child, p);
		if (child != NIL) {
			t->parent[child] = p;
			t->red[child] = t->red[n];
			return;
		}
		if (!t->red[n])
			erase_rebalance(t, NIL, p);
		return;
	}
	/* two children: the in-order successor takes @n's place and colour */
	succ = r;
	while (t->kid[succ][0] != NIL)
		succ = t->kid[succ][0];
	child = t->kid[succ][1];
	removed_black = !t->red[succ];
	if (succ == r) {
		parent = succ;
	} else {
		parent = t->parent[succ];
		t->kid[parent][0] = child;
		set_parent(t, child, parent);
		t->kid[succ][1] = r;
		t->parent[r] = succ;
	}
	t->kid[succ][0] = l;
	t->parent[l] = succ;
	change_child(t, n, succ, p);
	t->parent[succ] = p;
	t->red[succ] = t->red[n];
	if (child != NIL)
		t->red[child] = 0;
	else if (removed_black)
		erase_rebalance(t, NIL, parent);
}

size_t sym_tree_size(const struct sym_rawvec *rv)
{
	size_t i;

	for (i = 1; i < rv->n; i++)
		if (rv->v[i - 1].end > rv->v[i].start || rv->v[i - 1].start == rv->v[i].start)
			return 2 * rv->n;
	return 0;
}

int sym_tree_build(const struct sym_rawvec *rv, uint32_t *tree, uint32_t *root)
{
	size_t n = rv->next_idx, i, e = 0;
	struct rbt t = { .root = NIL };
	uint32_t *pos = malloc(n * sizeof(*pos));   /* idx -> place in the final table */
	int err = 0;

	t.key = malloc(n * sizeof(*t.key));
	t.kid = malloc(n * sizeof(*t.kid));
	t.parent = malloc(n * sizeof(*t.parent));
	t.red = malloc(n);
	if (!pos || !t.key || !t.kid || !t.parent || !t.red) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		pos[i] = NIL;
	for (i = 0; i < rv->n; i++) {
		t.key[rv->v[i].idx] = rv->v[i].start;
		pos[rv->v[i].idx] = (uint32_t)i;
	}
	for (i = 0; i < rv->nr_erased; i++) {
		t.key[rv->erased[i].idx] = rv->erased[i].start;
		pos[rv->erased[i].idx] = ERASED;
	}
	/* a symbol taken out without a record (moved to a module's table) is left out */
	for (i = 0; i <= n; i++) {
		for (; e < rv->nr_erased && rv->erased[e].at <= i; e++)
			erase(&t, rv->erased[e].idx);
		if (i < n && pos[i] != NIL)
			insert(&t, (uint32_t)i);
	}
	for (i = 0; i < rv->n; i++) {
		uint32_t x = rv->v[i].idx;

		tree[2 * i] = t.kid[x][0] == NIL ? NIL : pos[t.kid[x][0]];
		tree[2 * i + 1] = t.kid[x][1] == NIL ? NIL : pos[t.kid[x][1]];
	}
	*root = t.root == NIL ? NIL : pos[t.root];
out:
	free(pos);
	free(t.key);
	free(t.kid);
	free(t.parent);
	free(t.red);
	return err;
}

/* perf's symbols__find(): left below a symbol's start, that symbol where it holds @addr, else right. */
const struct pk_sym *sym_tree_find(const struct pk_sym *syms, const uint32_t *tree, uint32_t root,
				   uint64_t addr)
{
	uint32_t n = root;

	while (n != NIL) {
		const struct pk_sym *s = &syms[n];

		if (addr < s->start)
			n = tree[2 * n];
		else if (sym_holds(s, addr))
			return s;
		else
			n = tree[2 * n + 1];
	}
	return NULL;
}
