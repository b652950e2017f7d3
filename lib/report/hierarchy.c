/*
 * perf report --hierarchy, as perf 6.1 prints it with --stdio: the rows of
 * a block become a tree with a level per sort key (comm, then the DSOs
 * under each comm, then the symbols under each DSO), each node showing the
 * values summed over the rows under it.
 *
 *  - Nodes: the rows that perf's collapse comparison of the level's key
 *    finds equal make one node (perf merges them so). A node's other fields
 *    are those of its first row in perf's insertion order (perf copies the
 *    entry that made the node): they size the columns and break ties.
 *  - Order: siblings are inserted in the order of their key and printed as
 *    perf's output tree orders them, by the same comparison as the flat
 *    report's rows (rbtree_order.c).
 *  - Filters: a node is hidden when every row under it is, or when its first
 *    row is hidden by -x (perf lifts no parent filter); its values still
 *    count every row. Column widths come from the nodes shown. In relative
 *    mode the total is that of the top-level nodes shown, with what their
 *    hidden rows hold (perf's hierarchy_recalc_total_periods()).
 *  - Layout: a node's line is indented 3 blanks per level, then the value
 *    columns, then 3 blanks per level below the first, then the key's text
 *    without leading blanks. The call graph is printed under the leaves.
 *    When --percent-limit hides every child of a node shown, a line says
 *    "no entry >= P%".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

#define HIER_INDENT 3               /* perf's HIERARCHY_INDENT */
#define HIER_RULER_MAX 207          /* perf cuts the keys' ruler to its string of dots */

struct hnode {
	uint32_t first, n;              /* its rows: h->sorted[first .. first + n) */
	uint32_t kids, nr_kids;         /* its children: h->kids[kids ..], in output order */
	uint8_t level, filtered;
	struct rp_entry *sum;           /* one per member: the rows' values summed */
};

struct hier {
	struct pk_report *r;
	const struct rp_hblock *b;
	int lev[RP_MAX_KEYS];           /* the key of each level */
	int nlev;
	uint32_t *sorted;               /* row numbers, grouped level by level */
	uint32_t *rank;                 /* row number -> place in b->order */
	struct hnode *nodes;
	size_t nr_nodes, cap_nodes;
	uint32_t *kids;                 /* children lists, one after another */
	size_t nr_kids, cap_kids;
	uint32_t *top;                  /* the top-level nodes, in output order */
	uint32_t nr_top;
	uint64_t total[64];             /* the percentages' base per member */
};

static const struct rp_entry *row_ent(const struct hier *h, uint32_t row, uint32_t k)
{
	uint32_t e = h->b->rows[(size_t)row * h->b->nr + k];

	return e == UINT32_MAX ? NULL : &h->r->ent[e];
}

static const struct rp_entry *row_rep(const struct hier *h, uint32_t row)
{
	for (uint32_t k = 0; k < h->b->nr; k++)
		if (row_ent(h, row, k))
			return row_ent(h, row, k);
	return NULL;
}

/* Rows by the levels' keys in turn (perf's collapse comparison), then by insertion order. */
static int row_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct hier *h = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct rp_entry *ea = row_rep(h, a), *eb = row_rep(h, b);

	for (int l = 0; l < h->nlev; l++) {
		int c = rp_key_collapse_cmp(h->r, h->r->keys[h->lev[l]], ea, eb);

		if (c)
			return c;
	}
	return (h->rank[a] > h->rank[b]) - (h->rank[a] < h->rank[b]);
}

static int same_node(const struct hier *h, uint32_t a, uint32_t b, int level)
{
	return !rp_key_collapse_cmp(h->r, h->r->keys[h->lev[level]], row_rep(h, a), row_rep(h, b));
}

/* A new node for rows [first, first + n) at @level, its sums made. UINT32_MAX: ENOMEM. */
static uint32_t node_new(struct hier *h, uint32_t first, uint32_t n, int level)
{
	uint32_t nr = h->b->nr;
	struct hnode *d;

	if (h->nr_nodes == h->cap_nodes) {
		size_t cap = h->cap_nodes ? 2 * h->cap_nodes : 64;
		struct hnode *v = realloc(h->nodes, cap * sizeof(*v));

		if (!v)
			return UINT32_MAX;
		h->nodes = v;
		h->cap_nodes = cap;
	}
	d = &h->nodes[h->nr_nodes];
	*d = (struct hnode){ .first = first, .n = n, .level = (uint8_t)level, .filtered = 1 };
	d->sum = calloc(nr, sizeof(*d->sum));
	if (!d->sum)
		return UINT32_MAX;
	for (uint32_t k = 0; k < nr; k++) {
		/* the node's fields: its first row's (perf copies the entry that made it) */
		d->sum[k] = *row_rep(h, h->sorted[first]);
		d->sum[k].self = d->sum[k].self_sys = d->sum[k].self_us = 0;
		d->sum[k].nr_self = d->sum[k].acc = d->sum[k].nr_acc = 0;
	}
	for (uint32_t i = first; i < first + n; i++) {
		uint32_t row = h->sorted[i];

		if (!row_rep(h, row)->filtered)
			d->filtered = 0;
		for (uint32_t k = 0; k < nr; k++) {
			const struct rp_entry *e = row_ent(h, row, k);

			if (!e)
				continue;
			d->sum[k].self += e->self;
			d->sum[k].self_sys += e->self_sys;
			d->sum[k].self_us += e->self_us;
			d->sum[k].nr_self += e->nr_self;
		}
	}
	/* perf lifts a node's filter when a row under it passes, but not -x's: its first row's stays */
	if (row_rep(h, h->sorted[first])->filtered & RP_FILTERED_PARENT)
		d->filtered = 1;
	return (uint32_t)h->nr_nodes++;
}

/* perf's hist_entry__sort() of two sibling nodes, negated: < 0 when @a prints first */
static int node_before(uint32_t a, uint32_t b, void *ctx)
{
	const struct hier *h = ctx;
	const struct rp_entry *ea[64], *eb[64];

	for (uint32_t k = 0; k < h->b->nr; k++) {
		ea[k] = &h->nodes[a].sum[k];
		eb[k] = &h->nodes[b].sum[k];
	}
	return rp_rows_before(h->r, ea, eb, h->b->nr);
}

/*
 * The nodes of rows [first, first + n) at @level and, below, their children;
 * their numbers into *@out (*@nr_out of them) in output order. 0 or -ENOMEM.
 */
static int build(struct hier *h, uint32_t first, uint32_t n, int level, uint32_t **out, uint32_t *nr_out)
{
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v)), k = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t i = first; i < first + n;) {
		uint32_t j = i + 1, id;

		while (j < first + n && same_node(h, h->sorted[i], h->sorted[j], level))
			j++;
		if ((id = node_new(h, i, j - i, level)) == UINT32_MAX) {
			free(v);
			return -ENOMEM;
		}
		v[k++] = id;
		i = j;
	}
	if (rp_rbtree_order(v, k, node_before, h)) {
		free(v);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < k && level + 1 < h->nlev; i++) {
		uint32_t *kids = NULL, nk = 0;
		struct hnode *d = &h->nodes[v[i]];
		int err = build(h, d->first, d->n, level + 1, &kids, &nk);
		uint32_t *all;

		if (err) {
			free(v);
			return err;
		}
		if (h->nr_kids + nk > h->cap_kids) {
			size_t cap = 2 * (h->nr_kids + nk) + 64;

			if (!(all = realloc(h->kids, cap * sizeof(*all)))) {
				free(kids);
				free(v);
				return -ENOMEM;
			}
			h->kids = all;
			h->cap_kids = cap;
		}
		memcpy(&h->kids[h->nr_kids], kids, nk * sizeof(*kids));
		h->nodes[v[i]].kids = (uint32_t)h->nr_kids;     /* nodes may have moved */
		h->nodes[v[i]].nr_kids = nk;
		h->nr_kids += nk;
		free(kids);
	}
	*out = v;
	*nr_out = k;
	return 0;
}

static double node_percent(const struct hier *h, const struct hnode *d)
{
	return h->total[0] ? (double)d->sum[0].self * 100.0 / (double)h->total[0] : 0.0;
}

/* Width of every key column over the nodes shown, perf's hists__calc_col_len() on each. */
static void key_widths(const struct hier *h, size_t *width)
{
	struct pk_report *r = h->r;

	for (int k = 0; k < r->nr_keys; k++)
		width[k] = strlen(r->keys[k]->header);
	for (size_t i = 0; i < h->nr_nodes; i++) {
		if (h->nodes[i].filtered)
			continue;
		for (int k = 0; k < r->nr_keys; k++) {
			size_t w = rp_key_width(r, r->keys[k], &h->nodes[i].sum[0]);

			if (w > width[k])
				width[k] = w;
		}
	}
}

static void repeat(FILE *out, char c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(c, out);
}

/* The value columns' total width with the blanks between them (perf's hists__overhead_width()). */
static int values_width(const struct pk_report *r, uint32_t nr)
{
	int w = 0, first = 1;

	for (int i = 0; i < r->nr_cols; i++) {
		if (r->cols[i].kind == RP_I_KEY)
			continue;
		w += (first ? 0 : 2) + rp_value_width(r->cols[i].kind, (int)nr);
		first = 0;
	}
	return w;
}

/* Column heads: the values', then the keys' joined by " / "; under them the dot rulers. */
static void print_heads(const struct hier *h, const size_t *width, FILE *out)
{
	struct pk_report *r = h->r;
	const char *sep = r->o.field_sep;
	size_t heads = 0, ruler = 0;
	int first = 1;

	if (r->o.quiet)
		return;
	fputs("# ", out);
	if (!sep)
		repeat(out, ' ', (size_t)(h->nlev - 1) * HIER_INDENT);
	for (int i = 0; i < r->nr_cols; i++)
		if (r->cols[i].kind != RP_I_KEY)
			fprintf(out, "%*s%s", rp_value_width(r->cols[i].kind, (int)h->b->nr),
				rp_item_title(r, r->cols[i]), sep ? sep : "  ");
	for (int l = 0; l < h->nlev; l++) {
		const char *t = r->keys[h->lev[l]]->header;
		size_t w = (size_t)l * HIER_INDENT + width[h->lev[l]], tn;

		/* the title without its blanks (perf's trim()) */
		while (*t == ' ')
			t++;
		for (tn = strlen(t); tn && t[tn - 1] == ' '; tn--)
			;
		heads += (size_t)fprintf(out, "%s%.*s", l ? " / " : "", (int)tn, t);
		ruler = w > ruler ? w : ruler;
	}
	fputs("\n# ", out);
	if (!sep)
		repeat(out, '.', (size_t)(h->nlev - 1) * HIER_INDENT);
	for (int i = 0; i < r->nr_cols; i++) {
		if (r->cols[i].kind == RP_I_KEY)
			continue;
		fputs(first ? "" : (sep ? sep : ".."), out);
		repeat(out, '.', (size_t)rp_value_width(r->cols[i].kind, (int)h->b->nr));
		first = 0;
	}
	fputs(sep ? sep : "  ", out);
	ruler = heads > ruler ? heads : ruler;
	repeat(out, '.', ruler < HIER_RULER_MAX ? ruler : HIER_RULER_MAX);
	fputs("\n#\n", out);
}

static void print_line(const struct hier *h, const struct hnode *d, const size_t *width, FILE *out)
{
	struct pk_report *r = h->r;
	const char *sep = r->o.field_sep;
	const struct rp_entry *ents[64];
	char cell[1536], *text = cell;
	int first = 1;

	for (uint32_t k = 0; k < h->b->nr; k++)
		ents[k] = &d->sum[k];
	repeat(out, ' ', (size_t)d->level * HIER_INDENT);
	for (int i = 0; i < r->nr_cols; i++) {
		if (r->cols[i].kind == RP_I_KEY)
			continue;
		fputs(sep ? (first ? "" : sep) : "  ", out);
		rp_print_value(r, r->cols[i].kind, ents, h->b->nr, h->total, 0, out);
		first = 0;
	}
	if (!sep)
		repeat(out, ' ', (size_t)(h->nlev - 1) * HIER_INDENT);
	/* the level's key, as the last column of its own list, without leading blanks */
	rp_key_cell(r, h->lev[d->level], &d->sum[0], width, 1, cell, sizeof(cell));
	while (*text == ' ')
		text++;
	fprintf(out, "%s%s\n", sep ? sep : "  ", text);
}

static int print_nodes(const struct hier *h, const uint32_t *v, uint32_t n, const size_t *width,
		       const uint32_t *pair_order, FILE *out)
{
	struct pk_report *r = h->r;
	double limit = r->o.percent_limit;

	for (uint32_t i = 0; i < n; i++) {
		const struct hnode *d = &h->nodes[v[i]];
		int err = 0;

		/* perf goes down a node it does not show: a row under it may be shown */
		if (d->filtered || node_percent(h, d) < limit) {
			if (d->level + 1 < h->nlev &&
			    (err = print_nodes(h, &h->kids[d->kids], d->nr_kids, width, pair_order, out)))
				return err;
			continue;
		}
		print_line(h, d, width, out);
		if (d->level + 1 == h->nlev) {          /* a leaf: its call graph */
			const struct rp_entry *le = row_ent(h, h->sorted[d->first], 0);

			if (r->use_callchain && pair_order && le &&
			    (err = rp_callgraph_print(r, le, pair_order, h->total[0], h->b->t[0].min_period, out)))
				return err;
			continue;
		}
		{
			const uint32_t *kids = &h->kids[d->kids];
			uint32_t j = 0;

			while (j < d->nr_kids && h->nodes[kids[j]].filtered)
				j++;
			if (j == d->nr_kids || node_percent(h, &h->nodes[kids[j]]) < limit) {
				if (!r->o.field_sep)
					repeat(out, ' ', (size_t)(h->nlev + d->level) * HIER_INDENT);
				fprintf(out, "%*sno entry >= %.2f%%\n", values_width(r, h->b->nr) + 4, "", limit);
			}
		}
		if ((err = print_nodes(h, &h->kids[d->kids], d->nr_kids, width, pair_order, out)))
			return err;
	}
	return 0;
}

static void hier_release(struct hier *h)
{
	for (size_t i = 0; i < h->nr_nodes; i++)
		free(h->nodes[i].sum);
	free(h->nodes);
	free(h->kids);
	free(h->top);
	free(h->sorted);
	free(h->rank);
}

int rp_hierarchy_print(struct pk_report *r, const struct rp_hblock *b, const uint32_t *pair_order, FILE *out)
{
	struct hier h = { .r = r, .b = b };
	size_t width[RP_MAX_KEYS];
	uint64_t count = 0;
	int err = 0;

	for (int i = 0; i < r->nr_cols; i++)
		if (r->cols[i].kind == RP_I_KEY)
			h.lev[h.nlev++] = r->cols[i].key;
	h.sorted = malloc((b->n ? b->n : 1) * sizeof(*h.sorted));
	h.rank = malloc((b->n ? b->n : 1) * sizeof(*h.rank));
	if (!h.sorted || !h.rank || !h.nlev) {
		hier_release(&h);
		return h.nlev ? -ENOMEM : -EINVAL;
	}
	for (size_t i = 0; i < b->n; i++) {
		h.sorted[i] = b->order ? b->order[i] : (uint32_t)i;
		h.rank[h.sorted[i]] = (uint32_t)i;
	}
	qsort_r(h.sorted, b->n, sizeof(*h.sorted), row_cmp, &h);
	if ((err = build(&h, 0, (uint32_t)b->n, 0, &h.top, &h.nr_top))) {
		hier_release(&h);
		return err;
	}
	for (uint32_t k = 0; k < b->nr; k++) {
		h.total[k] = b->t[k].period;
		/* relative: the top-level nodes shown, all they hold */
		if (!r->o.add_filtered) {
			h.total[k] = 0;
			for (uint32_t i = 0; i < h.nr_top; i++)
				if (!h.nodes[h.top[i]].filtered)
					h.total[k] += h.nodes[h.top[i]].sum[k].self;
		}
		count += h.total[k];
	}
	key_widths(&h, width);
	if (!r->o.quiet) {
		rp_print_title(r, out, b->nr_samples, count, b->plural, b->name);
	}
	print_heads(&h, width, out);
	err = print_nodes(&h, h.top, h.nr_top, width, pair_order, out);
	if (!err)
		fputs("\n\n", out);
	hier_release(&h);
	return err;
}
