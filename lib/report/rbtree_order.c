/*
 * perf's output order, reproduced by building perf's tree.
 *
 * perf report inserts its hist entries one by one, in the order of its
 * collapsed tree (the sort keys' own order), into a red-black tree: a new
 * entry goes left of a node when it sorts before it, right otherwise (ties
 * too), and the tree is printed in order. perf's comparison is not always
 * transitive: in children mode, equal Children put a caller above its callee
 * only for entries of the same thread, and other pairs fall through to Self.
 * Three entries can then sort in a circle, and the order printed depends on
 * which nodes each new entry meets on its way down, that is on the
 * insertion order and on the tree's shape. A sort cannot reproduce that, so
 * this builds the same tree: Linux's red-black insertion (lib/rbtree.c, the
 * classic recoloring and rotations), the same insertion order, the same
 * comparison. For a transitive comparison the result is simply sorted.
 */
#include <errno.h>
#include <stdlib.h>
#include "internal.h"

#define NIL UINT32_MAX

/* Make @child take @old's place under @old's parent. */
static void replace_child(struct rp_rbtree *t, uint32_t old, uint32_t child)
{
	uint32_t p = t->parent[old];

	t->parent[child] = p;
	if (p == NIL)
		t->root = child;
	else
		t->kid[t->kid[1][p] == old][p] = child;
}

/* Rotate at @x: its child on side !@dir rises, @x goes down on side @dir. */
static void rotate(struct rp_rbtree *t, uint32_t x, int dir)
{
	uint32_t y = t->kid[!dir][x];

	t->kid[!dir][x] = t->kid[dir][y];
	if (t->kid[dir][y] != NIL)
		t->parent[t->kid[dir][y]] = x;
	replace_child(t, x, y);
	t->kid[dir][y] = x;
	t->parent[x] = y;
}

/* Restore the red-black properties after linking red node @z. */
static void insert_fixup(struct rp_rbtree *t, uint32_t z)
{
	while (t->parent[z] != NIL && t->red[t->parent[z]]) {
		uint32_t p = t->parent[z], g = t->parent[p];
		int side = t->kid[1][g] == p;             /* p's side under g */
		uint32_t uncle = t->kid[!side][g];

		if (uncle != NIL && t->red[uncle]) {      /* recolor, go up */
			t->red[p] = t->red[uncle] = 0;
			t->red[g] = 1;
			z = g;
			continue;
		}
		if (z == t->kid[!side][p]) {              /* inner child: straighten */
			rotate(t, p, side);
			z = p;
			p = t->parent[z];
		}
		rotate(t, g, !side);
		t->red[p] = 0;
		t->red[g] = 1;
		break;
	}
	t->red[t->root] = 0;
}

int rp_rbtree_init(struct rp_rbtree *t, size_t cap)
{
	*t = (struct rp_rbtree){ .root = NIL };
	if (cap >= NIL)
		return -ENOMEM;
	t->mem = malloc((cap ? cap : 1) * 4 * sizeof(*t->mem));
	t->red = malloc(cap ? cap : 1);
	if (!t->mem || !t->red) {
		rp_rbtree_free(t);
		return -ENOMEM;
	}
	t->kid[0] = t->mem;
	t->kid[1] = t->mem + cap;
	t->parent = t->mem + 2 * cap;
	t->item = t->mem + 3 * cap;
	t->cap = cap;
	return 0;
}

void rp_rbtree_free(struct rp_rbtree *t)
{
	free(t->mem);
	free(t->red);
	*t = (struct rp_rbtree){ .root = NIL };
}

void rp_rbtree_insert(struct rp_rbtree *t, uint32_t item, rp_before_fn before, void *ctx)
{
	uint32_t p = NIL, cur = t->root, i = (uint32_t)t->n;
	int go_left = 0;

	if (t->n >= t->cap)
		return;         /* rp_rbtree_init()'s caller sized it */
	while (cur != NIL) {
		p = cur;
		go_left = before(item, t->item[cur], ctx) < 0;
		cur = t->kid[!go_left][cur];
	}
	t->item[i] = item;
	t->kid[0][i] = t->kid[1][i] = NIL;
	t->parent[i] = p;
	t->red[i] = 1;
	if (p == NIL)
		t->root = i;
	else
		t->kid[!go_left][p] = i;
	insert_fixup(t, i);
	t->n++;
}

size_t rp_rbtree_inorder(const struct rp_rbtree *t, uint32_t *out)
{
	size_t k = 0;

	/* down the left spine, then up through parents: no stack */
	for (uint32_t cur = t->root; cur != NIL;) {
		while (t->kid[0][cur] != NIL)
			cur = t->kid[0][cur];
		for (;;) {
			out[k++] = t->item[cur];
			if (t->kid[1][cur] != NIL) {
				cur = t->kid[1][cur];
				break;
			}
			while (t->parent[cur] != NIL && t->kid[1][t->parent[cur]] == cur)
				cur = t->parent[cur];
			cur = t->parent[cur];
			if (cur == NIL)
				break;
		}
	}
	return k;
}

int rp_rbtree_order(uint32_t *v, size_t n, rp_before_fn before, void *ctx)
{
	struct rp_rbtree t;

	if (n < 2)
		return 0;
	if (rp_rbtree_init(&t, n))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rp_rbtree_insert(&t, v[i], before, ctx);
	rp_rbtree_inorder(&t, v);
	rp_rbtree_free(&t);
	return 0;
}
