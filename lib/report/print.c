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

void rp_print_title(struct pk_report *r, FILE *out, uint64_t nr_samples, int plural, const char *name)
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
	fputc('\n', out);
}

static void rp_dots(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('.', out);
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

void rp_print_columns(struct pk_report *r, const size_t *width, int nr, FILE *out)
{
	/* a group shows one percentage (and sample count) per member under one title */
	int pw = 8 * nr, sw = 12 * nr;
	const char *sep = r->o.field_sep ? r->o.field_sep : "  ";

	if (r->o.quiet)
		return;
	fputs("# ", out);
	if (r->children)
		fprintf(out, "%*s%s%*s", pw, "Children", sep, pw, "Self");
	else
		fprintf(out, "%*s", pw, "Overhead");
	if (r->o.show_nr_samples)
		fprintf(out, "%s%*s", sep, sw, "Samples");
	if (r->o.show_total_period)
		fprintf(out, "%s%*s", sep, sw, "Period");
	for (int k = 0; k < r->nr_keys; k++)
		if (!r->elided[k])
			fprintf(out, "%s%-*s", sep, (int)width[k], r->keys[k]->header);
	fputc('\n', out);
	if (r->o.field_sep)             /* perf: no rulers between separated columns */
		return;
	fputs("# ", out);
	rp_dots(out, (size_t)pw);
	if (r->children) {
		fputs("  ", out);
		rp_dots(out, (size_t)pw);
	}
	for (int c = 0; c < r->o.show_nr_samples + r->o.show_total_period; c++) {
		fputs("  ", out);
		rp_dots(out, (size_t)sw);
	}
	for (int k = 0; k < r->nr_keys; k++) {
		if (r->elided[k])
			continue;
		fputs("  ", out);
		rp_dots(out, width[k]);
	}
	fputs("\n#\n", out);
}

void rp_print_values(struct pk_report *r, const struct rp_entry *const *ents, uint32_t nr,
		     const uint64_t *total, FILE *out)
{
	const char *sep = r->o.field_sep;
	char buf[2048];
	int first = 1;

	for (int col = r->children ? 0 : 1; col < 4; col++) {   /* Children, Self, Samples, Period */
		size_t len = 0;

		if ((col == 2 && !r->o.show_nr_samples) || (col == 3 && !r->o.show_total_period))
			continue;
		buf[0] = '\0';
		for (uint32_t k = 0; k < nr && len < sizeof(buf); k++) {
			const struct rp_entry *e = ents[k];
			uint64_t v = !e ? 0 : col == 0 ? e->acc : col == 1 ? e->self :
				     col == 2 ? e->nr_self : e->self;
			double pct = total[k] ? (double)v * 100.0 / (double)total[k] : 0.0;

			/*
			 * perf's " %*.2f%%" and " %*" PRIu64 in columns of 8 and 12 per
			 * member (a value wider keeps its blank); with a separator, of width 1
			 */
			if (col < 2)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, sep ? " %.2f%%" : " %6.2f%%", pct);
			else
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, sep ? " %" PRIu64 : "%12" PRIu64, v);
		}
		if (sep)        /* padded to the column's width: a key column always follows */
			fprintf(out, "%s%-*s", first ? "" : sep, (col < 2 ? 8 : 12) * (int)nr, buf);
		else
			fprintf(out, "  %s", buf);
		first = 0;
	}
}

void rp_print_keys(struct pk_report *r, const struct rp_entry *e, const size_t *width, FILE *out)
{
	const char *sep = r->o.field_sep;
	char buf[1024], cell[1536];

	for (int k = 0; k < r->nr_keys; k++) {
		if (r->elided[k])
			continue;
		rp_key_text(r, r->keys[k], e, buf, sizeof(buf));
		/* perf pads a column to its width only when it is not the last one, and
		 * the own formats of sym, symoff, srcline, srcfile and time do not pad */
		if (k + 1 == r->nr_keys && (r->keys[k]->id == RP_K_SYM || r->keys[k]->id == RP_K_SYMOFF ||
					    r->keys[k]->id == RP_K_SRCLINE || r->keys[k]->id == RP_K_SRCFILE ||
					    r->keys[k]->id == RP_K_TIME))
			snprintf(cell, sizeof(cell), "%s", buf);
		else if (rp_key_right_align(r->keys[k]))
			snprintf(cell, sizeof(cell), "%*s", (int)width[k], buf);
		else if (r->keys[k]->id == RP_K_COMM)   /* perf cuts a comm wider than the column */
			snprintf(cell, sizeof(cell), "%-*.*s", (int)width[k], (int)width[k], buf);
		else
			snprintf(cell, sizeof(cell), "%-*s", (int)width[k], buf);
		if (sep) {      /* perf's repsep_snprintf: the separator's first character, padding too */
			for (char *c = cell; (c = strchr(c, sep[0])); c++)
				*c = '.';
		}
		fputs(sep ? sep : "  ", out);
		fputs(cell, out);
	}
}

int rp_event_totals(const struct pk_report *r, size_t idx, struct rp_totals *t)
{
	const struct rp_hists *h = idx < r->nr_hists && r->hists[idx].used ? &r->hists[idx] : NULL;

	t->nr = h ? h->nr_samples : 0;
	t->period = t->graph_period = h ? h->total_period : 0;
	if (!r->o.add_filtered) {       /* perf's non-filtered totals: what the entries it shows hold */
		t->nr = t->period = 0;
		for (size_t i = 0; i < r->nr_ent; i++) {
			const struct rp_entry *e = &r->ent[i];

			if (e->evsel == idx && !e->filtered) {
				t->nr += e->nr_self;
				t->period += e->self;
			}
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

	rp_event_totals(r, idx, &t);
	total = t.period;
	order = rp_sorted_entries(r, (uint32_t)idx, &n);
	if (!order)
		return -ENOMEM;
	rp_key_widths(r, order, n, width);
	if (!r->o.quiet) {
		rp_print_title(r, out, t.nr, idx < r->grp_n && r->grp_nr[idx] > 1, name);
		fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", total);
	}
	rp_print_columns(r, width, 1, out);

	for (size_t i = 0; i < n; i++) {
		const struct rp_entry *e = &r->ent[order[i]];
		double self = total ? (double)e->self * 100.0 / (double)total : 0.0;
		double acc = total ? (double)e->acc * 100.0 / (double)total : 0.0;

		if (e->filtered || (r->children ? acc : self) < r->o.percent_limit)
			continue;
		rp_print_values(r, &e, 1, &total, out);
		rp_print_keys(r, e, width, out);
		fputc('\n', out);
		if (r->use_callchain && pair_order && rp_callgraph_print(r, e, pair_order, t.graph_period, total, out)) {
			free(order);
			return -ENOMEM;
		}
	}
	fputs("\n\n", out);
	free(order);
	return 0;
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
	{
		const struct pk_session_filter *f = ss ? pk_session_filter(ss) : NULL;

		r->time_range = f ? f->time : NULL;
		rp_elide_setup(r, f, out);
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
