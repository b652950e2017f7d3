/*
 * The report's columns and its output sort, built as perf 6.1 builds its
 * hpp lists from --sort and -F/--fields. An item is a value (Children,
 * Self/Overhead, Samples, Period) or a sort key.
 *
 *  - Without -F: the columns are Children (with children), Self (titled
 *    Overhead without children), Samples (-n), Period (--show-total-period),
 *    then the --sort items; the output sort is overhead_children and
 *    overhead unless --sort names them, the --sort items, then the other
 *    columns (perf's setup_overhead and perf_hpp__append_sort_keys).
 *  - With -F LIST (perf's strict field order): the columns are LIST, then
 *    the --sort keys LIST lacks; the output sort is the --sort items (none
 *    without --sort), then LIST's. A sample groups by every key of either.
 *    "-F +sample,period" adds to the default columns instead.
 *
 * Values sort largest first (Children with perf's caller-above-callee tie
 * rule), keys as rp_key_cmp() says, hidden keys not at all. Headers and
 * rows are printed here: each column after two blanks (or -t's separator),
 * values as perf's " %*.2f%%" and " %*lu" in columns of 8 and 12 per group
 * member, keys padded to their width unless last with a format that does
 * not pad.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "internal.h"

static const char *const value_names[] = {
	[RP_I_CHILDREN] = "overhead_children", [RP_I_SELF] = "overhead",
	[RP_I_SYS] = "overhead_sys", [RP_I_US] = "overhead_us",
	[RP_I_SAMPLES] = "sample", [RP_I_PERIOD] = "period",
};

static int item_eq(struct rp_item a, struct rp_item b)
{
	return a.kind == b.kind && (a.kind != RP_I_KEY || a.key == b.key);
}

static int item_in(const struct rp_item *v, int n, struct rp_item it)
{
	for (int i = 0; i < n; i++)
		if (item_eq(v[i], it))
			return 1;
	return 0;
}

static int item_add(struct rp_item *v, int *n, struct rp_item it)
{
	if (item_in(v, *n, it))
		return 0;
	if (*n == RP_MAX_ITEMS)
		return -E2BIG;
	v[(*n)++] = it;
	return 0;
}

/* The key @k as an item: its index in r->keys, added there on first sight. */
static int key_item(struct pk_report *r, const struct rp_keydef *k, struct rp_item *it)
{
	int i;

	for (i = 0; i < r->nr_keys; i++)
		if (r->keys[i]->id == k->id)
			break;
	if (i == r->nr_keys) {
		if (r->nr_keys == RP_MAX_KEYS)
			return -E2BIG;
		r->keys[r->nr_keys++] = k;
		r->has_sym_key |= k->id == RP_K_SYM || k->id == RP_K_SYMOFF;
		r->has_parent_key |= k->id == RP_K_PARENT;
		r->has_srcline_key |= k->id == RP_K_SRCLINE;
	}
	*it = (struct rp_item){ .kind = RP_I_KEY, .key = (uint8_t)i };
	return 0;
}

int rp_items_add_key(struct pk_report *r, const struct rp_keydef *k, struct rp_item *items, int *n)
{
	struct rp_item it;
	int err = key_item(r, k, &it);

	return err ? err : item_add(items, n, it);
}

int rp_items_parse(struct pk_report *r, const char *list, const char *what, struct rp_item *items,
		   int *n, struct pk_diag *d)
{
	char buf[512], *save = NULL, *tok;

	if (strlen(list) >= sizeof(buf))
		return pk_diag_fail(d, -EINVAL, "%s list too long: '%s'", what, list);
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct rp_item it = { .kind = RP_I_KEY };
		const struct rp_keydef *k;
		int err = 0;

		while (*tok == ' ')
			tok++;
		if (tok == buf && *tok == '+')  /* "+a,b": the whole list adds to the defaults */
			tok++;
		for (unsigned v = 0; v < sizeof(value_names) / sizeof(value_names[0]); v++)
			if (!strcmp(tok, value_names[v]))
				it.kind = (uint8_t)v;
		if (it.kind == RP_I_KEY) {
			if (!(k = rp_keydef_find(tok)))
				return pk_diag_fail(d, -EINVAL, "unknown %s key: '%s'", what, tok);
			err = key_item(r, k, &it);
		}
		if (!err)
			err = item_add(items, n, it);
		if (err)
			return pk_diag_fail(d, -EINVAL, "too many %s keys in '%s'", what, list);
	}
	return 0;
}

void rp_layout(struct pk_report *r)
{
	/* Children, Self, sys, usr, Samples, Period */
	struct rp_item values[6];
	int nv = 0;

	r->nr_cols = r->nr_sorts = 0;
	if (r->fields_strict) {
		for (int i = 0; i < r->nr_sort_items; i++)
			item_add(r->sorts, &r->nr_sorts, r->sort_items[i]);
		for (int i = 0; i < r->nr_field_items; i++) {
			item_add(r->sorts, &r->nr_sorts, r->field_items[i]);
			item_add(r->cols, &r->nr_cols, r->field_items[i]);
		}
		for (int i = 0; i < r->nr_sort_items; i++)
			if (r->sort_items[i].kind == RP_I_KEY)
				item_add(r->cols, &r->nr_cols, r->sort_items[i]);
		return;
	}
	if (r->children)
		values[nv++] = (struct rp_item){ .kind = RP_I_CHILDREN };
	values[nv++] = (struct rp_item){ .kind = RP_I_SELF };
	if (r->o.show_cpu_utilization) {
		values[nv++] = (struct rp_item){ .kind = RP_I_SYS };
		values[nv++] = (struct rp_item){ .kind = RP_I_US };
	}
	if (r->o.show_nr_samples)
		values[nv++] = (struct rp_item){ .kind = RP_I_SAMPLES };
	if (r->o.show_total_period)
		values[nv++] = (struct rp_item){ .kind = RP_I_PERIOD };
	/* perf's setup_overhead: overhead_children, overhead in front unless --sort names them */
	for (int i = 0; i < (r->children ? 2 : 1); i++)
		if (!item_in(r->sort_items, r->nr_sort_items, values[i]))
			item_add(r->sorts, &r->nr_sorts, values[i]);
	for (int i = 0; i < r->nr_sort_items; i++)
		item_add(r->sorts, &r->nr_sorts, r->sort_items[i]);
	for (int i = 0; i < nv; i++) {
		item_add(r->cols, &r->nr_cols, values[i]);
		item_add(r->sorts, &r->nr_sorts, values[i]);
	}
	for (int i = 0; i < r->nr_sort_items; i++)
		item_add(r->cols, &r->nr_cols, r->sort_items[i]);
}

/* ---- the output sort ---------------------------------------------------------- */

static int u64_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : (a > b ? -1 : 1);
}

static uint64_t value_of(const struct rp_entry *e, unsigned kind)
{
	if (!e)
		return 0;
	switch (kind) {
	case RP_I_CHILDREN: return e->acc;
	case RP_I_SYS: return e->self_sys;
	case RP_I_US: return e->self_us;
	case RP_I_SAMPLES: return e->nr_self;
	default: return e->self;
	}
}

/*
 * One value column of two rows of @nr members, perf's __hpp__sort: the
 * leader's, then each member's in turn; with --group-sort-idx N (a member
 * of the group) member N's, then the other members' but not the leader's
 * (equal rows go by their keys); with another number than 0, the leader's
 * only.
 */
static int group_values_cmp(const struct pk_report *r, unsigned kind, const struct rp_entry *const *a,
			    const struct rp_entry *const *b, uint32_t nr)
{
	int idx = r->o.group_sort_idx, c;

	if (nr > 1 && idx) {
		if (idx < 0 || (uint32_t)idx >= nr)
			return u64_desc(value_of(a[0], kind), value_of(b[0], kind));
		if ((c = u64_desc(value_of(a[idx], kind), value_of(b[idx], kind))))
			return c;
		for (uint32_t k = 1; k < nr; k++)
			if ((int)k != idx && (c = u64_desc(value_of(a[k], kind), value_of(b[k], kind))))
				return c;
		return 0;
	}
	for (uint32_t k = 0; k < nr; k++)
		if ((c = u64_desc(value_of(a[k], kind), value_of(b[k], kind))))
			return c;
	return 0;
}

int rp_rows_before(const struct pk_report *r, const struct rp_entry *const *a,
		   const struct rp_entry *const *b, uint32_t nr)
{
	const struct rp_entry *ra = NULL, *rb = NULL;
	int c;

	for (uint32_t k = 0; k < nr && !ra; k++)
		ra = a[k];
	for (uint32_t k = 0; k < nr && !rb; k++)
		rb = b[k];
	for (int i = 0; i < r->nr_sorts; i++) {
		struct rp_item it = r->sorts[i];

		if (it.kind == RP_I_KEY) {
			if (!r->elided[it.key] && (c = rp_key_cmp(r, r->keys[it.key], ra, rb)))
				return c;
		} else if (it.kind == RP_I_CHILDREN) {
			uint32_t da, db;

			if (!r->children)
				continue;
			/* the leader only (perf's __hpp__sort_acc), then a caller above its callee */
			if ((c = u64_desc(value_of(a[0], it.kind), value_of(b[0], it.kind))))
				return c;
			if (!r->use_callchain || ra->pid != rb->pid || ra->tid != rb->tid)
				continue;
			da = a[0] ? a[0]->max_depth : 0;
			db = b[0] ? b[0]->max_depth : 0;
			if (da != db) {
				c = da > db ? -1 : 1;
				return r->cg_order == PK_CG_CALLEE ? -c : c;
			}
		} else if ((c = group_values_cmp(r, it.kind, a, b, nr))) {
			return c;
		}
	}
	return 0;
}

/* ---- printing --------------------------------------------------------------------- */

/* A percentage column (Children, Self, sys, usr), not a count. */
static int is_percent(unsigned kind)
{
	return kind == RP_I_CHILDREN || kind == RP_I_SELF || kind == RP_I_SYS || kind == RP_I_US;
}

int rp_value_width(unsigned kind, int nr)
{
	return (is_percent(kind) ? 8 : 12) * nr;
}

const char *rp_item_title(const struct pk_report *r, struct rp_item it)
{
	switch (it.kind) {
	case RP_I_CHILDREN: return "Children";
	case RP_I_SELF: return r->children && !r->fields_strict ? "Self" : "Overhead";
	case RP_I_SYS: return "sys";
	case RP_I_US: return "usr";
	case RP_I_SAMPLES: return "Samples";
	case RP_I_PERIOD: return "Period";
	default: return r->keys[it.key]->header;
	}
}

static void dots(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('.', out);
}

void rp_print_columns(struct pk_report *r, const size_t *width, int nr, FILE *out)
{
	const char *sep = r->o.field_sep ? r->o.field_sep : "  ";
	int first = 1;

	if (r->o.quiet)
		return;
	fputs("# ", out);
	for (int i = 0; i < r->nr_cols; i++) {
		struct rp_item it = r->cols[i];

		if (it.kind == RP_I_KEY && r->elided[it.key])
			continue;
		fputs(first ? "" : sep, out);
		if (it.kind == RP_I_KEY)
			fprintf(out, "%-*s", (int)width[it.key], rp_item_title(r, it));
		else
			fprintf(out, "%*s", rp_value_width(it.kind, nr), rp_item_title(r, it));
		first = 0;
	}
	fputc('\n', out);
	if (r->o.field_sep)             /* perf: no rulers between separated columns */
		return;
	fputs("# ", out);
	first = 1;
	for (int i = 0; i < r->nr_cols; i++) {
		struct rp_item it = r->cols[i];

		if (it.kind == RP_I_KEY && r->elided[it.key])
			continue;
		fputs(first ? "" : "  ", out);
		dots(out, it.kind == RP_I_KEY ? width[it.key] : (size_t)rp_value_width(it.kind, nr));
		first = 0;
	}
	fputs("\n#\n", out);
}

void rp_print_value(const struct pk_report *r, unsigned kind, const struct rp_entry *const *ents,
		    uint32_t nr, const uint64_t *total, int last, FILE *out)
{
	const char *sep = r->o.field_sep;
	char buf[2048];
	size_t len = 0;

	buf[0] = '\0';
	if (kind == RP_I_CHILDREN && !r->children) {     /* perf: in one member's width */
		snprintf(buf, sizeof(buf), " %*s", rp_value_width(kind, 1) - 1, "N/A");
	} else {
		for (uint32_t k = 0; k < nr && len < sizeof(buf); k++) {
			uint64_t v = value_of(ents[k], kind);
			double pct = total[k] ? (double)v * 100.0 / (double)total[k] : 0.0;

			/*
			 * perf's " %*.2f%%" and " %*" PRIu64 in columns of 8 and 12 per
			 * member (a value wider keeps its blank); with a separator, of width 1
			 */
			if (is_percent(kind))
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, sep ? " %.2f%%" : " %6.2f%%", pct);
			else
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, sep ? " %" PRIu64 : "%12" PRIu64, v);
		}
	}
	/* padded to the column's width unless last (perf's hist_entry__snprintf_alignment) */
	fprintf(out, "%-*s", last ? 0 : rp_value_width(kind, (int)nr), buf);
}

void rp_key_cell(const struct pk_report *r, int k, const struct rp_entry *e, const size_t *width,
		 int last, char *cell, size_t size)
{
	const char *sep = r->o.field_sep;
	enum rp_key_id id = r->keys[k]->id;
	char buf[1024];

	rp_key_text(r, r->keys[k], e, buf, sizeof(buf));
	if (id == RP_K_TRACE && strlen(buf) > width[k])     /* perf's "%-.*s" */
		buf[width[k]] = '\0';
	/* perf pads a column to its width only when it is not the last one, and
	 * the own formats of sym, symoff, srcline, srcfile, time, the cgroup
	 * keys, the branch symbols and trace do not pad */
	if (last && (id == RP_K_SYM || id == RP_K_SYMOFF || id == RP_K_SRCLINE || id == RP_K_SRCFILE ||
		     id == RP_K_TIME || id == RP_K_CGROUP || id == RP_K_CGROUP_ID || id == RP_K_SYM_FROM ||
		     id == RP_K_SYM_TO || id == RP_K_TRACE))
		snprintf(cell, size, "%s", buf);
	else if (rp_key_right_align(r->keys[k]))
		snprintf(cell, size, "%*s", (int)width[k], buf);
	else if (id == RP_K_COMM || id == RP_K_DSO_FROM || id == RP_K_DSO_TO)   /* perf cuts them to the column */
		snprintf(cell, size, "%-*.*s", (int)width[k], (int)width[k], buf);
	else
		snprintf(cell, size, "%-*s", (int)width[k], buf);
	if (sep) {      /* perf's repsep_snprintf: the separator's first character, padding too */
		for (char *c = cell; (c = strchr(c, sep[0])); c++)
			*c = '.';
	}
}

void rp_print_row(struct pk_report *r, const struct rp_entry *const *ents, uint32_t nr,
		  const uint64_t *total, const struct rp_entry *rep, const size_t *width, FILE *out)
{
	const char *sep = r->o.field_sep;
	int first = 1, last_col = -1;

	for (int i = 0; i < r->nr_cols; i++)
		if (r->cols[i].kind != RP_I_KEY || !r->elided[r->cols[i].key])
			last_col = i;
	for (int i = 0; i < r->nr_cols; i++) {
		struct rp_item it = r->cols[i];

		if (it.kind == RP_I_KEY && r->elided[it.key])
			continue;
		/* two blanks before every column, the first too; a separator between them */
		fputs(sep ? (first ? "" : sep) : "  ", out);
		if (it.kind == RP_I_KEY) {
			char cell[1536];

			rp_key_cell(r, it.key, rep, width, i == last_col, cell, sizeof(cell));
			fputs(cell, out);
		} else {
			rp_print_value(r, it.kind, ents, nr, total, i == last_col, out);
		}
		first = 0;
	}
	fputc('\n', out);
}
