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

struct rb_tree {
	uint32_t *kid[2];           /* left (0) and right (1) children */
	uint32_t *parent;
	uint8_t *red;
	uint32_t root;
};

/* Make @child take @old's place under @old's parent. */
static void replace_child(struct rb_tree *t, uint32_t old, uint32_t child)
{
	uint32_t p = t->parent[old];

	t->parent[child] = p;
	if (p == NIL)
		t->root = child;
	else
		t->kid[t->kid[1][p] == old][p] = child;
}

/* Rotate at @x: its child on side !@dir rises, @x goes down on side @dir. */
static void rotate(struct rb_tree *t, uint32_t x, int dir)
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
static void insert_fixup(struct rb_tree *t, uint32_t z)
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

int rp_rbtree_order(uint32_t *v, size_t n, rp_before_fn before, void *ctx)
{
	struct rb_tree t = { .root = NIL };
	uint32_t *out, *mem;
	size_t k = 0;

	if (n < 2)
		return 0;
	if (n >= NIL)
		return -ENOMEM;
	mem = malloc(n * 4 * sizeof(*mem));
	t.red = malloc(n);
	if (!mem || !t.red) {
		free(mem);
		free(t.red);
		return -ENOMEM;
	}
	t.kid[0] = mem;
	t.kid[1] = mem + n;
	t.parent = mem + 2 * n;
	out = mem + 3 * n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = NIL, cur = t.root;
		int go_left = 0;

		while (cur != NIL) {
			p = cur;
			go_left = before(v[i], v[cur], ctx) < 0;
			cur = t.kid[!go_left][cur];
		}
		t.kid[0][i] = t.kid[1][i] = NIL;
		t.parent[i] = p;
		t.red[i] = 1;
		if (p == NIL)
			t.root = i;
		else
			t.kid[!go_left][p] = i;
		insert_fixup(&t, i);
	}
	/* in order, without a stack: down the left spine, then up through parents */
	for (uint32_t cur = t.root; cur != NIL;) {
		while (t.kid[0][cur] != NIL)
			cur = t.kid[0][cur];
		for (;;) {
			out[k++] = v[cur];
			if (t.kid[1][cur] != NIL) {
				cur = t.kid[1][cur];
				break;
			}
			while (t.parent[cur] != NIL && t.kid[1][t.parent[cur]] == cur)
				cur = t.parent[cur];
			cur = t.parent[cur];
			if (cur == NIL)
				break;
		}
	}
	for (size_t i = 0; i < n; i++)
		v[i] = out[i];
	free(mem);
	free(t.red);
	return 0;
}
