/*
 * perf report's event-group view (perf report --group, perf 6.1's default
 * for files with the GROUP_DESC feature): the events of a group share one
 * block headed by the leader, titled "anon group { a, b }" (or the group's
 * name), with the summed sample count and event count, one entry per
 * sort-key value seen in any member and one percentage (and -n sample)
 * column per member. Entries stay per event while samples stream in; the
 * rows are matched by their key words here, at print time only.
 *
 * Order (perf's __hpp__sort): Children of the leader (callers above callees
 * on ties, as for one event), then Self of the leader and of each member in
 * turn, then the sort keys, applied as perf's output tree applies them
 * (rbtree_order.c). The call graph under a row is the leader's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/session.h>
#include "internal.h"

/*
 * Group membership from GROUP_DESC {name, leader_idx, nr_members}: the
 * members follow their leader in the evlist. --group on a file without
 * groups puts every event under the first (perf's forced leader).
 */
int rp_groups_setup(struct pk_report *r, struct pk_perfdata *p, size_t nev)
{
	const struct pk_features *f = p ? pk_perfdata_features(p) : NULL;
	int any = 0;

	free(r->grp_leader);
	free(r->grp_nr);
	r->grp_leader = r->grp_nr = NULL;
	r->grp_n = 0;
	r->grp_view = r->grp_forced = 0;
	if (!nev)
		return 0;
	r->grp_leader = malloc(nev * sizeof(*r->grp_leader));
	r->grp_nr = malloc(nev * sizeof(*r->grp_nr));
	if (!r->grp_leader || !r->grp_nr)
		return -ENOMEM;
	r->grp_n = nev;
	for (size_t i = 0; i < nev; i++) {
		r->grp_leader[i] = (uint32_t)i;
		r->grp_nr[i] = 1;
	}
	if (f && pk_features_has(f, PK_FEAT_GROUP_DESC)) {
		for (uint32_t g = 0; g < f->nr_groups; g++) {
			uint32_t l = f->groups[g].leader_idx, m = f->groups[g].nr_members;

			if (l >= nev || m < 1 || m > nev - l || r->grp_nr[l] != 1 || r->grp_leader[l] != l)
				continue;       /* out of range or overlapping: perf drops it too */
			r->grp_nr[l] = m;
			for (uint32_t k = 1; k < m; k++)
				r->grp_leader[l + k] = l;
			if (m > 1)
				any = 1;
		}
	}
	if (r->o.group && !any && nev > 1) {      /* --no-group too: perf forces the leader, then shows each event alone */
		r->grp_forced = 1;
		r->grp_nr[0] = (uint32_t)nev;
		for (size_t i = 1; i < nev; i++)
			r->grp_leader[i] = 0;
	}
	r->grp_view = r->o.group >= 0;
	return 0;
}

/* The group's title: "anon group { a, b }", "NAME { a, b }" or, forced, "a, b". */
static void rp_group_name(struct pk_perfdata *p, uint32_t leader, uint32_t nr, int forced,
			  char *buf, size_t sz)
{
	const struct pk_features *f = p ? pk_perfdata_features(p) : NULL;
	const char *gname = "anon group";
	size_t len = 0;

	if (f && !forced)
		for (uint32_t g = 0; g < f->nr_groups; g++)
			if (f->groups[g].leader_idx == leader && f->groups[g].name &&
			    strcmp(f->groups[g].name, "{anon_group}"))
				gname = f->groups[g].name;
	buf[0] = '\0';
	if (!forced)
		len += (size_t)snprintf(buf, sz, "%s { ", gname);
	for (uint32_t k = 0; k < nr && len < sz; k++) {
		const struct pk_evsel *ev = p ? pk_perfdata_evsel(p, leader + k) : NULL;

		if (ev && ev->name)
			len += (size_t)snprintf(buf + len, sz - len, "%s%s", k ? ", " : "", ev->name);
		else
			len += (size_t)snprintf(buf + len, sz - len, "%sevent%u", k ? ", " : "", leader + k);
	}
	if (!forced && len < sz)
		snprintf(buf + len, sz - len, " }");
}

/* ---- rows: one per key, an entry (or none) per member --------------------- */

struct rp_gsort {
	struct pk_report *r;
	uint32_t nr;                /* members */
	const uint32_t *rows;       /* nr entry indices per row, UINT32_MAX: none */
};
static struct rp_gsort gs;

static int rp_keywords_cmp(const void *pa, const void *pb)
{
	const struct rp_entry *a = &gs.r->ent[*(const uint32_t *)pa], *b = &gs.r->ent[*(const uint32_t *)pb];
	int nw = 1 + 2 * gs.r->nr_keys;

	for (int i = 1; i < nw; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	return (a->evsel > b->evsel) - (a->evsel < b->evsel);
}

static const struct rp_entry *rp_row_ent(const uint32_t *row, uint32_t k)
{
	return row[k] == UINT32_MAX ? NULL : &gs.r->ent[row[k]];
}

static const struct rp_entry *rp_row_rep(const uint32_t *row)
{
	for (uint32_t k = 0; k < gs.nr; k++)
		if (row[k] != UINT32_MAX)
			return &gs.r->ent[row[k]];
	return NULL;
}

/*
 * perf's insertion order into its output tree, into @ord (@n rows of the
 * group led by @leader, @nr members): the leader's collapsed tree after
 * hists__link(), which adds the rows only members have, member by member,
 * each in that member's collapsed order.
 */
static int rp_rows_collapse_order(struct pk_report *r, uint32_t leader, uint32_t nr, const uint32_t *rows,
				  size_t n, uint32_t *ord)
{
	uint32_t *row_of = malloc((r->nr_ent ? r->nr_ent : 1) * sizeof(*row_of));
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v));
	uint8_t *linked = calloc(n ? n : 1, 1);
	size_t k = 0, nl;
	int err = -ENOMEM;

	if (!row_of || !v || !linked)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (uint32_t m = 0; m < nr; m++)
			if (rows[i * nr + m] != UINT32_MAX)
				row_of[rows[i * nr + m]] = (uint32_t)i;
	for (size_t i = 0; i < r->nr_ent; i++)         /* the leader's, in the order made */
		if (r->ent[i].evsel == leader && k < n)
			v[k++] = (uint32_t)i;
	nl = k;
	for (uint32_t m = 1; m < nr; m++) {
		size_t nm;
		uint32_t *vm = rp_collapsed_entries(r, leader + m, &nm);

		if (!vm)
			goto out;
		for (size_t j = 0; j < nm; j++) {
			uint32_t row = row_of[vm[j]];

			if (rows[row * nr] == UINT32_MAX && !linked[row] && k < n) {
				linked[row] = 1;
				v[k++] = vm[j];
			}
		}
		free(vm);
	}
	if ((err = rp_collapse_order_linked(r, v, nl, k)))
		goto out;
	for (size_t i = 0; i < k; i++)
		ord[i] = row_of[v[i]];
out:
	free(row_of);
	free(v);
	free(linked);
	return err;
}

/* The entries of a row, NULL where a member has none. */
static void rp_row_ents(const uint32_t *row, const struct rp_entry **ents)
{
	for (uint32_t k = 0; k < gs.nr; k++)
		ents[k] = rp_row_ent(row, k);
}

/* perf's hist_entry__sort() of two rows, negated: < 0 when row @ia prints first */
static int rp_row_before(uint32_t ia, uint32_t ib, void *ctx)
{
	const struct rp_entry *a[64], *b[64];

	rp_row_ents(&gs.rows[ia * gs.nr], a);
	rp_row_ents(&gs.rows[ib * gs.nr], b);
	return rp_rows_before(gs.r, a, b, gs.nr);
}

/*
 * Rows of the group led by @leader with @nr members, sorted as printed:
 * *@rows gets nr entry indices per row, *@order the row order. Caller frees both.
 */
static int rp_group_rows(struct pk_report *r, uint32_t leader, uint32_t nr, uint32_t **rows,
			 uint32_t **order, size_t *nrows)
{
	uint32_t *v = malloc((r->nr_ent ? r->nr_ent : 1) * sizeof(*v)), *rw = NULL, *ord = NULL;
	size_t k = 0, n = 0;

	*rows = *order = NULL;
	*nrows = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_ent; i++) {
		uint32_t ev = r->ent[i].evsel;

		if (ev >= leader && ev - leader < nr && ev < r->grp_n && r->grp_leader[ev] == leader)
			v[k++] = (uint32_t)i;
	}
	gs = (struct rp_gsort){ .r = r, .nr = nr };
	qsort(v, k, sizeof(*v), rp_keywords_cmp);
	rw = malloc((k ? k : 1) * nr * sizeof(*rw));
	ord = malloc((k ? k : 1) * sizeof(*ord));
	if (!rw || !ord) {
		free(v);
		free(rw);
		free(ord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++) {
		const struct rp_entry *e = &r->ent[v[i]];

		/* a new key: entries of one key differ only by their event */
		if (!i || memcmp(&r->ent[v[i - 1]].key[1], &e->key[1],
				 (size_t)(2 * r->nr_keys) * sizeof(e->key[0]))) {
			for (uint32_t m = 0; m < nr; m++)
				rw[n * nr + m] = UINT32_MAX;
			ord[n] = (uint32_t)n;
			n++;
		}
		rw[(n - 1) * nr + (e->evsel - leader)] = v[i];
	}
	free(v);
	gs.rows = rw;
	if (rp_rows_collapse_order(r, leader, nr, rw, n, ord) || rp_rbtree_order(ord, n, rp_row_before, NULL)) {
		free(rw);
		free(ord);
		return -ENOMEM;
	}
	*rows = rw;
	*order = ord;
	*nrows = n;
	return 0;
}

/* ---- printing ------------------------------------------------------------- */

int rp_group_print(struct pk_report *r, struct pk_session *ss, uint32_t leader,
		   const uint32_t *pair_order, FILE *out)
{
	struct pk_perfdata *p = ss ? pk_session_data(ss) : NULL;
	uint32_t nr = r->grp_nr[leader], *rows, *order, *reps;
	uint64_t nr_samples = 0, count = 0, total[64], graph_total[64];
	struct rp_totals tt[64];
	size_t width[RP_MAX_KEYS], n;
	char name[1024];
	int err;

	if (nr > 64)
		nr = 64;                /* columns beyond 64 members are not shown */
	for (uint32_t k = 0; k < nr; k++) {
		size_t idx = (size_t)leader + k;

		rp_event_totals(r, idx, &tt[k]);
		nr_samples += tt[k].nr;
		total[k] = tt[k].period;
		graph_total[k] = tt[k].graph_period;
		count += total[k];
	}
	rp_layout(r);
	if ((err = rp_group_rows(r, leader, nr, &rows, &order, &n)))
		return err;
	rp_group_name(p, leader, nr, r->grp_forced, name, sizeof(name));
	if (r->o.hierarchy) {
		struct rp_hblock b = { .rows = rows, .order = order, .n = n, .nr = nr,
				       .nr_samples = nr_samples, .name = name, .plural = 1, .t = tt };

		err = rp_hierarchy_print(r, &b, pair_order, out);
		free(rows);
		free(order);
		return err;
	}
	reps = malloc((n ? n : 1) * sizeof(*reps));
	if (!reps) {
		free(rows);
		free(order);
		return -ENOMEM;
	}
	gs.r = r;
	gs.nr = nr;
	for (size_t i = 0; i < n; i++)
		reps[i] = (uint32_t)(rp_row_rep(&rows[order[i] * nr]) - r->ent);
	rp_key_widths(r, reps, n, width);
	if (!r->o.quiet) {
		rp_print_title(r, out, nr_samples, count, 1, name);
	}
	rp_print_columns(r, width, (int)nr, out);

	for (size_t i = 0; i < n; i++) {
		const uint32_t *row = &rows[order[i] * nr];
		const struct rp_entry *le = rp_row_ent(row, 0);
		uint64_t lv = le ? (r->children ? le->acc : le->self) : 0;

		if (r->ent[reps[i]].filtered ||
		    (total[0] ? (double)lv * 100.0 / (double)total[0] : 0.0) < r->o.percent_limit)
			continue;
		const struct rp_entry *ents[64];

		rp_row_ents(row, ents);
		rp_print_row(r, ents, nr, total, &r->ent[reps[i]], width, out);
		if (r->use_callchain && pair_order && le &&
		    (err = rp_callgraph_print(r, le, pair_order, graph_total[0], total[0], out)))
			break;
	}
	if (!err)
		fputs("\n\n", out);
	free(reps);
	free(rows);
	free(order);
	return err;
}
