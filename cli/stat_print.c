/*
 * Rendering of perfkit stat results, mirroring perf stat 6.1 column for
 * column so that scripts written for perf keep working:
 *   text:  [prefix] value(18) unit(4) event(32) " # " metric(8) unit ... noise
 *   CSV:   [prefix,]value,unit,event,[noise%,]run time,pct running,metric,metric unit
 *   JSON:  {[prefix keys,] "counter-value" : "...", "unit" : ..., "event" : ...,
 *           ["variance" : x,] "event-runtime" : ns, "pcnt-running" : pct,
 *           "metric-value" : v, "metric-unit" : "..."}
 * A second metric (stalled cycles per insn) gets a line of its own, as in
 * perf: the prefix, then blanks up to the metric column (text; the noise
 * and running share move there), empty fields (CSV), or only the metric's
 * keys (JSON).
 * Values are scaled by time_enabled/time_running; "<not counted>" marks an
 * event that never ran and "<not supported>" one the kernel rejected.
 */
#include <json-c/json.h>
#include <math.h>
#include <string.h>
#include "stat_print.h"

#define EVENT_WIDTH 32
#define METRIC_LEN 35
#define NO_METRIC_PAD 28
/* perf's blanks before a second metric line's value (new_line_std), 8 more with -A */
#define EXTRA_LINE_PAD 49
#define EXTRA_LINE_PAD_CPU 8
/* The CSV fields a second metric line leaves empty: value, unit, event (then runtime, share). */
#define EXTRA_LINE_EMPTY_FIELDS 3

/* The event's display unit and the scale from counted to displayed value. */
static const char *event_unit(const struct pk_event *ev, double *scale)
{
	*scale = ev->scale > 0 ? ev->scale : 1.0;
	return ev->scale_unit ? ev->scale_unit : "";
}

static void print_prefix(const struct stat_printer *p, const struct stat_view *v,
			 const struct stat_unit *u)
{
	FILE *f = p->out;
	bool csv = p->fmt == FMT_CSV;
	const char *sep = csv ? p->sep : " ";

	if (v->interval && p->fmt != FMT_JSON)
		fprintf(f, "%6llu.%09llu%s", (unsigned long long)(v->interval_ns / 1000000000ull),
			(unsigned long long)(v->interval_ns % 1000000000ull), sep);
	if (p->fmt == FMT_JSON) {
		if (v->interval)
			fprintf(f, "\"interval\" : %llu.%09llu, ",
				(unsigned long long)(v->interval_ns / 1000000000ull),
				(unsigned long long)(v->interval_ns % 1000000000ull));
		switch (p->aggr) {
		case AGGR_CPU:
			fprintf(f, "\"cpu\" : \"%d\", ", u->cpu);
			break;
		case AGGR_CORE:
			fprintf(f, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
				u->socket, u->die, u->core, u->nr_cpus);
			break;
		case AGGR_SOCKET:
			fprintf(f, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ",
				u->socket, u->nr_cpus);
			break;
		case AGGR_GLOBAL:
			break;
		}
		return;
	}
	switch (p->aggr) {
	case AGGR_CPU:
		fprintf(f, csv ? "CPU%d%s" : "CPU%-7d%s", u->cpu, sep);
		break;
	case AGGR_CORE:
		fprintf(f, "S%d-D%d-C%*d%s%*d%s", u->socket, u->die, csv ? 0 : -8, u->core, sep,
			csv ? 0 : 4, u->nr_cpus, sep);
		break;
	case AGGR_SOCKET:
		fprintf(f, "S%*d%s%*d%s", csv ? 0 : -5, u->socket, sep, csv ? 0 : 4, u->nr_cpus,
			sep);
		break;
	case AGGR_GLOBAL:
		break;
	}
}

/* perf's metric column: " # " value unit, or padding when there is none. */
static void print_metric_text(FILE *f, const struct pk_metric *m, bool have)
{
	char num[64];
	int n;

	if (!have) {
		fprintf(f, "%-*s", METRIC_LEN, "");
		return;
	}
	snprintf(num, sizeof(num), m->fmt, m->value);
	n = fprintf(f, " # %s", num);
	fprintf(f, " %-*s", METRIC_LEN - n - 1 > 0 ? METRIC_LEN - n - 1 : 0, m->unit);
}

/* The metric's value in CSV: its text form without blanks or '%', as perf cuts it. */
static void metric_csv_value(const struct pk_metric *m, char *buf, size_t sz)
{
	char num[64];
	const char *p = num;
	size_t n = 0;

	snprintf(num, sizeof(num), m->fmt, m->value);
	while (*p == ' ')
		p++;
	while (n + 1 < sz && (p[n] == '.' || (p[n] >= '0' && p[n] <= '9') || p[n] == '-'))
		n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

static void json_string(FILE *f, const char *s)
{
	struct json_object *o = json_object_new_string(s ? s : "");

	fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					     JSON_C_TO_STRING_NOSLASHESCAPE), f);
	json_object_put(o);
}

struct row {
	const struct pk_event *ev;
	bool supported;
	struct pk_scaled sc;
	const struct pk_counts *counts;
	const struct pk_stats *noise;
	struct pk_metric metric, extra;
	bool have_metric, have_extra;
};

/* What perf prints after the last metric of a row: the noise of -r and the running share. */
static void print_text_tail(FILE *f, const struct row *r)
{
	if (r->noise && pk_stats_rel_pct(r->noise) != 0)
		fprintf(f, "  ( +-%6.2f%% )", pk_stats_rel_pct(r->noise));
	if (r->sc.multiplexed)
		fprintf(f, "  (%.2f%%)", r->sc.pct_running);
}

static void print_row_text(const struct stat_printer *p, const struct row *r)
{
	FILE *f = p->out;
	double scale;
	const char *unit = event_unit(r->ev, &scale);

	if (!r->supported || !r->sc.counted) {
		fprintf(f, "%18s %-4s %-*s%*s", r->supported ? "<not counted>" : "<not supported>",
			unit, EVENT_WIDTH, r->ev->name, NO_METRIC_PAD, "");
	} else {
		double v = r->sc.value * scale;
		bool frac = floor(scale) != scale;

		if (p->big_num)
			fprintf(f, frac ? "%'18.2f" : "%'18.0f", v);
		else
			fprintf(f, frac ? "%18.2f" : "%18.0f", v);
		fprintf(f, " %-4s %-*s", unit, EVENT_WIDTH, r->ev->name);
		print_metric_text(f, &r->metric, r->have_metric);
		if (!r->have_extra)
			print_text_tail(f, r);
	}
	fputc('\n', f);
}

static void format_value(char *buf, size_t sz, const struct row *r, double scale, bool json)
{
	if (!r->supported)
		snprintf(buf, sz, "<not supported>");
	else if (!r->sc.counted)
		snprintf(buf, sz, "<not counted>");
	else if (json)
		snprintf(buf, sz, "%f", r->sc.value * scale);
	else
		snprintf(buf, sz, floor(scale) != scale ? "%.2f" : "%.0f", r->sc.value * scale);
}

static void print_row_csv(const struct stat_printer *p, const struct row *r)
{
	FILE *f = p->out;
	const char *s = p->sep;
	double scale;
	const char *unit = event_unit(r->ev, &scale);
	char val[64];

	format_value(val, sizeof(val), r, scale, false);
	fprintf(f, "%s%s%s%s%s", val, s, unit, s, r->ev->name);
	if (r->noise)
		fprintf(f, "%s%.2f%%", s, pk_stats_rel_pct(r->noise));
	fprintf(f, "%s%llu%s%.2f%s", s, (unsigned long long)r->counts->run, s,
		r->supported ? r->sc.pct_running : 100.0, s);
	if (r->have_metric) {
		char num[64];

		metric_csv_value(&r->metric, num, sizeof(num));
		fprintf(f, "%s%s%s", num, s, r->metric.unit);
	} else {
		fputs(s, f);
	}
	fputc('\n', f);
}

static void print_row_json(const struct stat_printer *p, const struct row *r)
{
	FILE *f = p->out;
	double scale;
	const char *unit = event_unit(r->ev, &scale);
	char val[64];
	bool computed = r->supported && r->sc.counted;
	const char *metric_unit = "";

	/* without its denominator perf still names the unit, or prints a NULL one */
	if (computed)
		metric_unit = r->metric.unit ? r->metric.unit : "(null)";
	format_value(val, sizeof(val), r, scale, true);
	fprintf(f, "\"counter-value\" : \"%s\", \"unit\" : ", val);
	json_string(f, unit);
	fputs(", \"event\" : ", f);
	json_string(f, r->ev->name);
	if (r->noise)
		fprintf(f, ", \"variance\" : %.2f", pk_stats_rel_pct(r->noise));
	fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, \"metric-value\" : %f, "
		"\"metric-unit\" : ", (unsigned long long)r->counts->run,
		r->supported ? r->sc.pct_running : 100.0, r->have_metric ? r->metric.value : 0.0);
	json_string(f, metric_unit);
	fputs("}\n", f);
}

/* Aggregation columns before the value in CSV (CPU; socket or core and its CPU count). */
static int aggr_columns(enum stat_aggr aggr)
{
	return aggr == AGGR_CPU ? 1 : aggr == AGGR_GLOBAL ? 0 : 2;
}

/* The line of a row's second metric, as perf prints it (see the top of this file). */
static void print_extra_line(const struct stat_printer *p, const struct stat_view *v,
			     const struct stat_unit *u, const struct row *r)
{
	FILE *f = p->out;

	if (p->fmt == FMT_JSON)
		fputc('{', f);
	print_prefix(p, v, u);
	if (p->fmt == FMT_CSV) {
		char num[64];

		for (int i = 0; i < EXTRA_LINE_EMPTY_FIELDS + aggr_columns(p->aggr); i++)
			fputs(p->sep, f);
		metric_csv_value(&r->extra, num, sizeof(num));
		fprintf(f, "%s%s%s%s\n", p->sep, num, p->sep, r->extra.unit);
	} else if (p->fmt == FMT_JSON) {
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : ", r->extra.value);
		json_string(f, r->extra.unit);
		fputs("}\n", f);
	} else {
		fprintf(f, "%*s", EXTRA_LINE_PAD + (p->aggr == AGGR_CPU ? EXTRA_LINE_PAD_CPU : 0), "");
		print_metric_text(f, &r->extra, true);
		print_text_tail(f, r);
		fputc('\n', f);
	}
}

/* The metric context of aggregation unit @u: the counted values of all its events. */
static void unit_ctx(const struct stat_view *v, size_t u, struct pk_metric_ctx *ctx)
{
	const struct pk_counts *row_counts = v->counts + u * v->nr_events;

	memset(ctx, 0, sizeof(*ctx));
	ctx->wall_ns = v->wall_ns;
	for (size_t e = 0; e < v->nr_events; e++) {
		struct pk_scaled sc;

		if (!v->supported[e])
			continue;
		pk_counts_scale(&row_counts[e], &sc);
		if (sc.counted)
			pk_metric_ctx_add(ctx, v->events[e], sc.value);
	}
}

/* The row of event @e in unit @u, and its second metric's line if it has one. */
static void print_row(const struct stat_printer *p, const struct stat_view *v, size_t u,
		      size_t e, const struct pk_metric_ctx *ctx)
{
	struct row r = {
		.ev = v->events[e],
		.supported = v->supported[e],
		.counts = &v->counts[u * v->nr_events + e],
		.noise = v->noise ? &v->noise[u * v->nr_events + e] : NULL,
	};

	pk_counts_scale(r.counts, &r.sc);
	if (r.supported && r.sc.counted) {
		r.have_metric = pk_metric_compute(ctx, r.ev, r.sc.value, &r.metric);
		r.have_extra = pk_metric_extra(ctx, r.ev, r.sc.value, &r.extra);
	}
	if (p->fmt == FMT_JSON)
		fputc('{', p->out);
	print_prefix(p, v, &v->units[u]);
	if (p->fmt == FMT_CSV)
		print_row_csv(p, &r);
	else if (p->fmt == FMT_JSON)
		print_row_json(p, &r);
	else
		print_row_text(p, &r);
	if (r.have_extra)
		print_extra_line(p, v, &v->units[u], &r);
}

void stat_print_counters(const struct stat_printer *p, const struct stat_view *v)
{
	struct pk_metric_ctx ctx;

	if (p->aggr == AGGR_CPU) {   /* perf 6.1 prints -A event by event, each over the CPUs */
		for (size_t e = 0; e < v->nr_events; e++)
			for (size_t u = 0; u < v->nr_units; u++) {
				unit_ctx(v, u, &ctx);
				print_row(p, v, u, e, &ctx);
			}
		return;
	}
	for (size_t u = 0; u < v->nr_units; u++) {
		unit_ctx(v, u, &ctx);
		for (size_t e = 0; e < v->nr_events; e++)
			print_row(p, v, u, e, &ctx);
	}
}

void stat_print_interval_header(const struct stat_printer *p)
{
	/* perf's header columns before "counts", per aggregation. */
	static const char *const unit_col[] = {
		[AGGR_GLOBAL] = "            ",
		[AGGR_CPU] = "CPU                    ",
		[AGGR_CORE] = "core            cpus             ",
		[AGGR_SOCKET] = "socket cpus             ",
	};

	if (p->fmt != FMT_PLAIN)
		return;
	fprintf(p->out, "#           time %scounts unit events\n", unit_col[p->aggr]);
}

void stat_print_title(const struct stat_printer *p, const char *target, int runs)
{
	if (p->fmt != FMT_PLAIN)
		return;
	fprintf(p->out, "\n Performance counter stats for %s", target);
	if (runs > 1)
		fprintf(p->out, " (%d runs)", runs);
	fprintf(p->out, ":\n\n");
}

/* Digits perf shows for a value whose noise is @sd: enough to show the noise. */
static int noise_precision(double sd)
{
	if (sd > 1 || sd <= 0)
		return 2;
	return (int)lround(ceil(-log10(sd))) + 2;
}

void stat_print_footer(const struct stat_printer *p, const struct pk_stats *wall_s, int runs,
		       double user_s, double sys_s, bool show_rusage)
{
	FILE *f = p->out;

	if (p->fmt != FMT_PLAIN)
		return;
	fputc('\n', f);
	if (runs > 1) {
		double sd = pk_stats_stddev_mean(wall_s);
		int prec = noise_precision(sd);

		fprintf(f, " %17.*f +- %.*f seconds time elapsed", prec, wall_s->mean, prec, sd);
		fprintf(f, "  ( +-%6.2f%% )\n", pk_stats_rel_pct(wall_s));
	} else {
		fprintf(f, " %17.9f seconds time elapsed\n", wall_s->mean);
	}
	fputc('\n', f);
	if (show_rusage) {
		fprintf(f, " %17.9f seconds user\n", user_s);
		fprintf(f, " %17.9f seconds sys\n", sys_s);
		fputc('\n', f);
	}
	fputc('\n', f);
}
