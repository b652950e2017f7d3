/*
 * perf report --stdio's layout: the preamble, per event the "# Samples" and
 * "# Event count (approx.)" lines, the column titles and dot rulers sized to
 * the widest value, one line per entry (percentages " %6.2f%%", sort-key
 * columns left-aligned, the symbol unpadded when it is the last column),
 * the call graph under each entry, and the closing lines. With -t SEP the
 * columns are joined by SEP instead (each still padded to its width but for
 * the last, no rulers); with -q only the entries and the hidden columns'
 * names are printed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/session.h>
#include "internal.h"

void rp_print_title(struct pk_report *r, FILE *out, uint64_t nr_samples, uint64_t count, int plural,
		    const char *name)
{
	const char *time = r->time_range;
	unsigned long v = (unsigned long)nr_samples;
	char unit = ' ';

	if (v > 1000) { v /= 1000; unit = 'K'; }
	if (v > 1000) { v /= 1000; unit = 'M'; }
	if (v > 1000) { v /= 1000; unit = 'G'; }
	/* "events" whenever the event leads a group of several (perf: nr_members > 1) */
	fprintf(out, "# Samples: %lu%c of event%s '%s'", v, unit, plural ? "s" : "", name);
	if (time)       /* perf names the --time range as given */
		fprintf(out, " (time slices: %s)", time);
	fprintf(out, "\n# Event count (approx.): %" PRIu64 "\n#\n", count);
}

void rp_key_widths(struct pk_report *r, const uint32_t *ents, size_t n, size_t *width)
{
	for (int k = 0; k < r->nr_keys; k++) {
		width[k] = 0;
		if (r->elided[k])
			continue;
		width[k] = strlen(r->keys[k]->header);
		for (size_t i = 0; i < n; i++) {
			size_t w;

			if (r->ent[ents[i]].filtered)
				continue;
			w = rp_key_width(r, r->keys[k], &r->ent[ents[i]]);

			if (w > width[k])
				width[k] = w;
		}
	}
}

int rp_event_totals(const struct pk_report *r, size_t idx, struct rp_totals *t)
{
	const struct rp_hists *h = idx < r->nr_hists && r->hists[idx].used ? &r->hists[idx] : NULL;

	t->nr = h ? h->nr_samples : 0;
	t->period = t->graph_period = t->min_period = h ? h->total_period : 0;
	if (!r->o.add_filtered) {       /* perf's non-filtered totals: what the entries it shows hold */
		t->nr = t->period = t->min_period = 0;
		for (size_t i = 0; i < r->nr_ent; i++) {
			const struct rp_entry *e = &r->ent[i];

			/* perf's sample count leaves out the session's filters only */
			if (e->evsel == idx && !(e->filtered & (RP_FILTERED_SAMPLE | RP_FILTERED_PARENT))) {
				t->nr += e->nr_self;
				t->min_period += e->self;
			}
			if (e->evsel == idx && !e->filtered)
				t->period += e->self;
		}
	}
	return h && h->nr_samples;
}

static int rp_print_event(struct pk_report *r, struct pk_session *ss, size_t idx, const char *name,
			  const uint32_t *pair_order, FILE *out)
{
	struct rp_totals t;
	uint64_t total;
	size_t width[RP_MAX_KEYS], n;
	uint32_t *order;
	int plural = idx < r->grp_n && r->grp_nr[idx] > 1;

	rp_event_totals(r, idx, &t);
	if (r->o.hierarchy) {
		struct rp_hblock b = { .nr = 1, .nr_samples = t.nr, .name = name, .t = &t, .plural = plural };
		int err;

		if (!(order = rp_collapsed_entries(r, (uint32_t)idx, &b.n)))
			return -ENOMEM;
		b.rows = order;
		err = rp_hierarchy_print(r, &b, pair_order, out);
		free(order);
		return err;
	}
	total = t.period;
	order = rp_sorted_entries(r, (uint32_t)idx, &n);
	if (!order)
		return -ENOMEM;
	rp_key_widths(r, order, n, width);
	if (!r->o.quiet) {
		rp_print_title(r, out, t.nr, total, plural, name);
	}
	rp_print_columns(r, width, 1, out);

	for (size_t i = 0; i < n; i++) {
		const struct rp_entry *e = &r->ent[order[i]];
		double self = total ? (double)e->self * 100.0 / (double)total : 0.0;
		double acc = total ? (double)e->acc * 100.0 / (double)total : 0.0;

		if (e->filtered || (r->children ? acc : self) < r->o.percent_limit)
			continue;
		rp_print_row(r, &e, 1, &total, e, width, out);
		if (r->use_callchain && pair_order &&
		    rp_callgraph_print(r, e, pair_order, t.graph_period, t.min_period, out)) {
			free(order);
			return -ENOMEM;
		}
	}
	fputs("\n\n", out);
	free(order);
	return 0;
}

void pk_report_print_hidden(struct pk_report *r, struct pk_session *ss, FILE *out)
{
	rp_elide_setup(r, ss ? pk_session_filter(ss) : NULL, out);
}

int pk_report_print(struct pk_report *r, struct pk_session *ss, FILE *out)
{
	struct pk_perfdata *p = ss ? pk_session_data(ss) : NULL;
	const struct pk_perfdata_stats *st = p ? pk_perfdata_stats(p) : NULL;
	uint32_t *pair_order = NULL;
	size_t nev = p ? pk_perfdata_nr_evsels(p) : r->nr_hists;
	int err = pk_report_finish(r);

	if (err)
		return err;
	if (!r->o.header && !r->o.quiet)
		fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n",
		      out);
	if (!r->nr_ent)         /* perf: "The FILE data has no samples!", nothing more */
		return -ENODATA;
	/* perf's hists__filter_by_symbol(): a row without a symbol, or of another name, is hidden */
	for (size_t i = 0; r->o.symbol_filter && i < r->nr_ent; i++)
		if (!r->ent[i].sym || !strstr(r->ent[i].sym->name, r->o.symbol_filter))
			r->ent[i].filtered |= RP_FILTERED_SYMBOL;
	{
		const struct pk_session_filter *f = ss ? pk_session_filter(ss) : NULL;

		r->time_range = f ? f->time : NULL;
		rp_elide_setup(r, f, out);
		if (r->o.hierarchy)     /* perf names the one value but keeps its level */
			memset(r->elided, 0, sizeof(r->elided));
	}
	if (!r->o.quiet)
		fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", st ? st->nr_lost_samples : 0);
	if (r->use_callchain && (err = rp_pairs_group(r, &pair_order)))
		return err;
	if ((err = rp_groups_setup(r, p, nev))) {
		free(pair_order);
		return err;
	}
	for (size_t i = 0; i < nev && !err; i++) {
		const struct pk_evsel *ev = p ? pk_perfdata_evsel(p, i) : (i < r->nr_hists ? r->hists[i].evsel : NULL);
		size_t idx = ev ? (size_t)ev->idx : i;
		char name[64];
		struct rp_totals t;

		/* perf skips an event without samples, but not one whose samples were all filtered */
		if (!rp_event_totals(r, idx, &t))
			continue;
		if (r->grp_view && idx < r->grp_n && r->grp_leader[idx] != idx)
			continue;       /* shown in its leader's block */
		if (r->grp_view && idx < r->grp_n && r->grp_nr[idx] > 1) {
			err = rp_group_print(r, ss, (uint32_t)idx, pair_order, out);
			continue;
		}
		if (!ev || !ev->name)
			snprintf(name, sizeof(name), "event%zu", idx);
		err = rp_print_event(r, ss, idx, ev && ev->name ? ev->name : name, pair_order, out);
	}
	if (!r->o.quiet)
		fputs("#\n# (Tip: perfkit report --header shows the recording's header)\n#\n", out);
	free(pair_order);
	return err;
}
