/*
 * perf report --stdio's layout: the preamble, per event the "# Samples" and
 * "# Event count (approx.)" lines, the column titles and dot rulers sized to
 * the widest value, one line per entry (percentages "%7.2f%%", sort-key
 * columns left-aligned, the symbol unpadded when it is the last column),
 * the call graph under each entry, and the closing lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/session.h>
#include "internal.h"

static void rp_print_title(FILE *out, uint64_t nr_samples, const char *name)
{
	unsigned long v = (unsigned long)nr_samples;
	char unit = ' ';

	if (v > 1000) { v /= 1000; unit = 'K'; }
	if (v > 1000) { v /= 1000; unit = 'M'; }
	if (v > 1000) { v /= 1000; unit = 'G'; }
	fprintf(out, "# Samples: %lu%c of event '%s'\n", v, unit, name);
}

static void rp_dots(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc('.', out);
}

static int rp_print_event(struct pk_report *r, struct pk_session *ss, size_t idx, const char *name,
			  const uint32_t *pair_order, FILE *out)
{
	struct rp_hists *h = &r->hists[idx];
	uint64_t nr = h->nr_samples, total = h->total_period;
	size_t width[RP_MAX_KEYS], n;
	uint32_t *order;
	char buf[1024];

	if (r->o.add_filtered && ss) {
		const struct pk_session_counts *sc = pk_session_counts(ss, idx);

		if (sc) {
			nr += sc->nr_filtered;
			total += sc->filtered_period;
		}
	}
	order = rp_sorted_entries(r, (uint32_t)idx, &n);
	if (!order)
		return -ENOMEM;
	for (int k = 0; k < r->nr_keys; k++) {
		width[k] = strlen(r->keys[k]->header);
		for (size_t i = 0; i < n; i++) {
			size_t w = rp_key_width(r, r->keys[k], &r->ent[order[i]]);

			if (w > width[k])
				width[k] = w;
		}
	}
	rp_print_title(out, nr, name);
	fprintf(out, "# Event count (approx.): %" PRIu64 "\n#\n", total);

	/* column titles and rulers */
	fputs("# ", out);
	if (r->children)
		fprintf(out, "%8s  %8s", "Children", "Self");
	else
		fprintf(out, "%8s", "Overhead");
	if (r->o.show_nr_samples)
		fprintf(out, "  %12s", "Samples");
	for (int k = 0; k < r->nr_keys; k++)
		fprintf(out, "  %-*s", (int)width[k], r->keys[k]->header);
	fputs("\n# ", out);
	rp_dots(out, 8);
	if (r->children) {
		fputs("  ", out);
		rp_dots(out, 8);
	}
	if (r->o.show_nr_samples) {
		fputs("  ", out);
		rp_dots(out, 12);
	}
	for (int k = 0; k < r->nr_keys; k++) {
		fputs("  ", out);
		rp_dots(out, width[k]);
	}
	fputs("\n#\n", out);

	for (size_t i = 0; i < n; i++) {
		const struct rp_entry *e = &r->ent[order[i]];
		double self = total ? (double)e->self * 100.0 / (double)total : 0.0;
		double acc = total ? (double)e->acc * 100.0 / (double)total : 0.0;

		if ((r->children ? acc : self) < r->o.percent_limit)
			continue;
		if (r->children)
			fprintf(out, "  %7.2f%%  %7.2f%%", acc, self);
		else
			fprintf(out, "  %7.2f%%", self);
		if (r->o.show_nr_samples)
			fprintf(out, "  %12" PRIu64, e->nr_self);
		for (int k = 0; k < r->nr_keys; k++) {
			rp_key_text(r, r->keys[k], e, buf, sizeof(buf));
			if (k + 1 == r->nr_keys && (r->keys[k]->id == RP_K_SYM || r->keys[k]->id == RP_K_SYMOFF))
				fprintf(out, "  %s", buf);
			else if (r->keys[k]->id == RP_K_COMM)   /* perf cuts a comm wider than the column */
				fprintf(out, "  %-*.*s", (int)width[k], (int)width[k], buf);
			else
				fprintf(out, "  %-*s", (int)width[k], buf);
		}
		fputc('\n', out);
		if (r->use_callchain && pair_order)
			rp_callgraph_print(r, e, pair_order, total, out);
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
	int err = 0;

	if (!r->o.header)
		fputs("# To display the perf.data header info, please use --header/--header-only options.\n#\n",
		      out);
	fprintf(out, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", st ? st->nr_lost_samples : 0);
	if (r->use_callchain && (err = rp_pairs_group(r, &pair_order)))
		return err;
	for (size_t i = 0; i < nev && !err; i++) {
		const struct pk_evsel *ev = p ? pk_perfdata_evsel(p, i) : (i < r->nr_hists ? r->hists[i].evsel : NULL);
		size_t idx = ev ? (size_t)ev->idx : i;
		char name[64];

		if (idx >= r->nr_hists || !r->hists[idx].used || !r->hists[idx].nr_samples)
			continue;
		if (!ev || !ev->name)
			snprintf(name, sizeof(name), "event%zu", idx);
		err = rp_print_event(r, ss, idx, ev && ev->name ? ev->name : name, pair_order, out);
	}
	fputs("#\n# (Tip: perfkit report --header shows the recording's header)\n#\n", out);
	free(pair_order);
	return err;
}
