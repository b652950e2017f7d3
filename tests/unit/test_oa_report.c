/*
 * oa reports (pk_oa_summary_*, include/perfkit/oa.h): a recording read through
 * its metric set gives the segments, CPU and GPU times and counter values
 * that IGT's i915-perf-reader prints.
 *
 * 1. Every regular recording of ../shared/data/i915-perf against its saved
 *    reader output (-c all -r): segments, times, contexts, every counter of
 *    every timeline and every report pair (integers exact, floats to 1e-6
 *    relative or the 6 decimals %f keeps), and the text printer byte for
 *    byte; the values evaluated in batches (pk_oa_summary_values_batch,
 *    pk_oa_summary_pairs_batch) as one at a time. DG2 (no acmgt3 metric
 *    file): decoding only.
 * 2. The edge_* recordings: clear errors or the documented results.
 * 3. With i915-perf-reader installed: recordings written by perfkit's writer
 *    (HSW, BDW, SKL, TGL; RenderBasic, TestOa, ComputeBasic, ...; 40-bit,
 *    32-bit and timestamp wraps, LOST records, invalid contexts, reasons
 *    other than timer) read by both, every value compared, and -c list
 *    byte for byte; then each of the 78 metric sets of the four files in a
 *    short recording; and where the two part on purpose, a segment in which
 *    the GPU clock wraps twice (perfkit sums its pairs, the reader takes one
 *    delta). Then random recordings from fixed seeds (check_random; set
 *    PK_OA_RANDOM_SEEDS for more), compared in the same ways, and random
 *    DG2 recordings, decoding only (check_random_dg2).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"
#include "oa_gen.h"

static char data_dir[1200], xml_dir[1200];

/* ---- the reader's output, parsed ------------------------------------------------ */

struct rd_block {
	size_t n;
	char (*name)[64];
	char (*value)[64];
	char reason[32];
};

struct rd_seg {
	uint64_t cpu0, cpu1, gpu0, gpu1;
	uint32_t hw_id;
	struct rd_block ctr;
	size_t n_rep;
	struct rd_block *rep;
};

struct rd_out {
	size_t reports, ctx_switches, n_seg;
	bool warning;
	struct rd_seg *seg;
};

static void block_add(struct rd_block *b, const char *name, const char *value)
{
	b->name = realloc(b->name, (b->n + 1) * sizeof(*b->name));
	b->value = realloc(b->value, (b->n + 1) * sizeof(*b->value));
	snprintf(b->name[b->n], 64, "%.63s", name);
	snprintf(b->value[b->n], 64, "%.63s", value);
	b->n++;
}

static void rd_free(struct rd_out *o)
{
	for (size_t i = 0; i < o->n_seg; i++) {
		struct rd_seg *s = &o->seg[i];

		for (size_t k = 0; k < s->n_rep; k++) {
			free(s->rep[k].name);
			free(s->rep[k].value);
		}
		free(s->rep);
		free(s->ctr.name);
		free(s->ctr.value);
	}
	free(o->seg);
	memset(o, 0, sizeof(*o));
}

static int rd_parse(const char *text, struct rd_out *o)
{
	struct rd_block *cur = NULL;
	const char *p = text;

	memset(o, 0, sizeof(*o));
	while (*p) {
		char line[512], *colon;
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)(n < 511 ? n : 511), p);
		p += n + (p[n] == '\n');
		if (sscanf(line, "Reports: %zu", &o->reports) == 1 ||
		    sscanf(line, "Context switches: %zu", &o->ctx_switches) == 1)
			continue;
		if (!strncmp(line, "WARNING: Recording used", 23))
			o->warning = true;
		if (!strncmp(line, "Time: ", 6)) {
			struct rd_seg *s;

			o->seg = realloc(o->seg, (o->n_seg + 1) * sizeof(*o->seg));
			s = &o->seg[o->n_seg++];
			memset(s, 0, sizeof(*s));
			if (sscanf(line, "Time: CPU=0x%" SCNx64 "-0x%" SCNx64 " GPU=0x%" SCNx64 "-0x%" SCNx64,
				   &s->cpu0, &s->cpu1, &s->gpu0, &s->gpu1) != 4)
				return -1;
			cur = NULL;
			continue;
		}
		if (!strncmp(line, "hw_id=", 6) && o->n_seg) {
			o->seg[o->n_seg - 1].hw_id = (uint32_t)strtoul(line + 6, NULL, 16);
			cur = &o->seg[o->n_seg - 1].ctr;
			continue;
		}
		if (!strncmp(line, " report", 7) && o->n_seg) {
			struct rd_seg *s = &o->seg[o->n_seg - 1];
			const char *eq = strstr(line, " = ");

			s->rep = realloc(s->rep, (s->n_rep + 1) * sizeof(*s->rep));
			cur = &s->rep[s->n_rep++];
			memset(cur, 0, sizeof(*cur));
			snprintf(cur->reason, sizeof(cur->reason), "%s", eq ? eq + 3 : "");
			continue;
		}
		if (!strncmp(line, "   ", 3) && cur && (colon = strstr(line, ": "))) {
			*colon = '\0';
			block_add(cur, line + 3, colon + 2);
		}
	}
	return 0;
}

/* ---- comparison ----------------------------------------------------------------- */

/* @v against the reader's printed @text: integers exact, floats 1e-6 relative (or %f's rounding). */
static bool same_value(const struct pk_oa_value *v, const char *text)
{
	if (v->type == PK_OA_UINT64)
		return strtoull(text, NULL, 10) == v->u && strchr(text, '.') == NULL;
	{
		double t = strtod(text, NULL), d = fabs(v->f - t);

		return d <= 1e-6 * fabs(t) || d <= 5.0000001e-7;
	}
}

static size_t compare_block(const struct pk_oa_summary *s, const struct pk_oa_value *v,
			    const struct rd_block *b, const char *what)
{
	size_t bad = 0;

	if (b->n != s->n_sel) {
		diag("%s: the reader printed %zu counters, perfkit %zu", what, b->n, s->n_sel);
		bad++;
	}
	for (size_t k = 0; k < b->n && k < s->n_sel; k++) {
		const struct pk_oa_counter_info *c = &s->set->counters[s->sel[k]];

		if (strcmp(c->symbol_name, b->name[k])) {
			diag("%s: counter %zu is %s, the reader's %s", what, k, c->symbol_name, b->name[k]);
			bad++;
		} else if (!same_value(&v[s->sel[k]], b->value[k])) {
			diag("%s: %s = %.17g, the reader printed %s", what, b->name[k],
			     pk_oa_value_as_double(&v[s->sel[k]]), b->value[k]);
			bad++;
		}
	}
	return bad;
}

/* Everything of @s against the reader's output @o; the number of values compared. */
static void compare(const struct pk_oa_summary *s, const struct rd_out *o, const char *what,
		    bool counters, bool per_report)
{
	struct pk_oa_value *row = s->set ? calloc(s->set->n_counters + 1, sizeof(*row)) : NULL;
	size_t bad = 0, checked = 0;

	is_int(s->tl.n_reports, o->reports, "%s: %zu reports", what, o->reports);
	is_int(s->tl.n_segments, o->n_seg, "%s: %zu segments", what, o->n_seg);
	for (size_t i = 0; i < s->tl.n_segments && i < o->n_seg; i++) {
		const struct pk_oa_segment *g = &s->tl.segments[i];
		const struct rd_seg *r = &o->seg[i];
		char w[300];

		snprintf(w, sizeof(w), "%s segment %zu", what, i);
		if (g->ctx_id != r->hw_id || g->gpu_ts_start != r->gpu0 || g->gpu_ts_end != r->gpu1 ||
		    g->cpu_ns_start != r->cpu0 || g->cpu_ns_end != r->cpu1) {
			diag("%s: ctx 0x%x GPU %#x-%#x CPU %#" PRIx64 "-%#" PRIx64 ", the reader's 0x%x %#" PRIx64
			     "-%#" PRIx64 " %#" PRIx64 "-%#" PRIx64, w, g->ctx_id, g->gpu_ts_start, g->gpu_ts_end,
			     g->cpu_ns_start, g->cpu_ns_end, r->hw_id, r->gpu0, r->gpu1, r->cpu0, r->cpu1);
			bad++;
		}
		checked += 5;
		if (counters) {
			if (pk_oa_summary_values(s, i, row)) {
				diag("%s: no values for segment %zu", w, i);
				bad++;
			}
			bad += compare_block(s, row, &r->ctr, w);
			checked += r->ctr.n;
		}
		if (!per_report)
			continue;
		if (r->n_rep != g->end - g->first) {
			diag("%s: %zu report pairs, the reader %zu", w, g->end - g->first, r->n_rep);
			bad++;
		}
		for (size_t k = 0; k < r->n_rep && g->first + k < g->end; k++) {
			struct pk_oa_report h;
			const char *rn;
			char w2[340];

			snprintf(w2, sizeof(w2), "%s report %zu", w, k);
			pk_oa_report_header(pk_oa_recording_decoder(s->rec),
					    pk_oa_recording_report(s->rec, g->first + k), &h);
			rn = pk_oa_reason_name(h.reason);
			/* perfkit's names use spaces where IGT's use hyphens */
			{
				char igt[32];

				snprintf(igt, sizeof(igt), "%s", rn);
				for (char *c = igt; *c; c++)
					if (*c == ' ')
						*c = '-';
				if (strcmp(igt, r->rep[k].reason)) {
					diag("%s: reason %s, the reader's %s", w2, igt, r->rep[k].reason);
					bad++;
				}
			}
			if (counters && row) {
				pk_oa_summary_pair(s, g->first + k, row, NULL);
				bad += compare_block(s, row, &r->rep[k], w2);
				checked += r->rep[k].n;
			}
		}
	}
	ok(bad == 0 && checked > 0, "%s: %zu values equal the reader's (%zu differ)", what, checked, bad);
	free(row);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = 0;
	fclose(f);
	return buf;
}

static int summarize(const char *path, const char *counters, struct pk_oa_recording **rec,
		     struct pk_oa_summary *s, struct pk_diag *d)
{
	struct pk_oa_timeline tl;
	PK_OA_SUMMARY_OPTS(o, .metrics_dir = xml_dir, .counters = counters, .timeline = &tl);
	int err;

	pk_diag_init(d);
	*rec = NULL;
	/* as `perfkit oa report`: the timeline built while the file is read */
	if ((err = pk_oa_timeline_read_file(path, NULL, rec, &tl, d)))
		return err;
	pk_diag_subject(d, path);
	if ((err = pk_oa_summary_init(s, *rec, &o, d))) {
		pk_oa_recording_free(*rec);
		*rec = NULL;
	}
	return err;
}

/* ---- 1. the shared recordings --------------------------------------------------- */

/* Segment (@pairs: report pair) @i's values one at a time into @v. */
static int values_one(const struct pk_oa_summary *s, bool pairs, size_t i, struct pk_oa_value *v)
{
	return pairs ? pk_oa_summary_pair(s, i, v, NULL) : pk_oa_summary_values(s, i, v);
}

/*
 * pk_oa_summary_values_batch() and pk_oa_summary_pairs_batch() against one
 * at a time, bit for bit: every segment and report pair, in full batches
 * from the first and in batches of 37 from the sixth, both running past
 * the end, where there are no values.
 */
static void check_batches(const struct pk_oa_summary *s, const char *what)
{
	size_t n_reports = pk_oa_recording_n_reports(s->rec), nc = s->set->n_counters;
	struct pk_oa_value *one = calloc(nc + 1, sizeof(*one));
	struct pk_oa_value *all = calloc(nc * PK_OA_EVAL_BATCH + 1, sizeof(*all));
	size_t bad = 0, checked = 0;
	bool got[PK_OA_EVAL_BATCH];

	for (int pairs = 0; one && all && pairs < 2; pairs++) {
		size_t total = pairs ? (n_reports ? n_reports - 1 : 0) : s->tl.n_segments;

		for (int odd = 0; odd < 2; odd++) {
			size_t n = odd ? 37 : PK_OA_EVAL_BATCH;

			for (size_t first = odd ? 5 : 0; first < total; first += n) {
				int err = pairs ? pk_oa_summary_pairs_batch(s, first, n, all, got) :
						  pk_oa_summary_values_batch(s, first, n, all, got);

				bad += err != 0;
				for (size_t j = 0; !err && j < n; j++) {
					bool want = first + j < total;

					if (got[j] != want || (values_one(s, pairs, first + j, one) == 0) != want) {
						bad++;
						continue;
					}
					for (size_t i = 0; want && i < nc; i++, checked++) {
						const struct pk_oa_value *b = &all[i * PK_OA_EVAL_BATCH + j];

						bad += b->type != one[i].type || b->u != one[i].u;
					}
				}
			}
		}
	}
	ok(bad == 0 && checked > 0, "%s: segments and report pairs in batches: %zu values as one at a time (%zu differ)",
	   what, checked, bad);
	ok(all && pk_oa_summary_values_batch(s, 0, PK_OA_EVAL_BATCH + 1, all, got) == -EINVAL &&
	   pk_oa_summary_pairs_batch(s, 0, PK_OA_EVAL_BATCH + 1, all, got) == -EINVAL,
	   "%s: a batch of more than %d: -EINVAL", what, PK_OA_EVAL_BATCH);
	free(one);
	free(all);
}

static void check_shared(const char *base, const char *list, bool per_report)
{
	char path[2048], *want, *got = NULL;
	struct pk_oa_recording *rec;
	struct pk_oa_summary s;
	struct pk_diag d;
	struct rd_out o;
	size_t len = 0;
	FILE *mf;

	snprintf(path, sizeof(path), "%s/%s.reader-output.txt", data_dir, base);
	want = slurp(path);
	if (!ok(want && rd_parse(want, &o) == 0, "%s: reader output parsed", base)) {
		free(want);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.i915perf", data_dir, base);
	bool counters = strcmp(list, "none") != 0;

	if (!ok(summarize(path, list, &rec, &s, &d) == 0, "%s: summary: %s", base,
		d.msg)) {
		rd_free(&o);
		free(want);
		return;
	}
	ok(s.uuid_mismatch == o.warning || !counters, "%s: uuid warning %s", base, o.warning ? "given" : "absent");
	compare(&s, &o, base, counters, per_report);
	if (counters) {
		check_batches(&s, base);
	} else {
		bool has[1];
		struct pk_oa_value v[1];

		ok(pk_oa_summary_values_batch(&s, 0, 1, v, has) == -ENOENT &&
		   pk_oa_summary_pairs_batch(&s, 0, 1, v, has) == -ENOENT, "%s: no set, no batch: -ENOENT", base);
	}
	if (counters) {
		mf = open_memstream(&got, &len);
		pk_oa_summary_print(&s, mf, per_report, &d);
		fclose(mf);
		ok(got && strcmp(got, want) == 0, "%s: text output equals the reader's byte for byte", base);
		free(got);
	}
	pk_oa_summary_release(&s);
	pk_oa_recording_free(rec);
	rd_free(&o);
	free(want);
}

/* ---- 2. edge cases -------------------------------------------------------------- */

static void check_edges(void)
{
	char path[2048];
	struct pk_oa_recording *rec;
	struct pk_oa_summary s;
	struct pk_diag d;
	int err;

#define EDGE(name) (snprintf(path, sizeof(path), "%s/" name ".i915perf", data_dir), path)
	err = summarize(EDGE("edge_badversion"), "all", &rec, &s, &d);
	ok(err == -EPROTO && strstr(d.msg, "version 2"), "edge_badversion: -EPROTO, '%s'", d.msg);
	err = summarize(EDGE("edge_notopo"), "all", &rec, &s, &d);
	ok(err == -ENODATA && strstr(d.msg, "topology"), "edge_notopo: -ENODATA, '%s'", d.msg);
	err = summarize(EDGE("edge_unknownmetric"), "all", &rec, &s, &d);
	ok(err == -ENOENT && strstr(d.msg, "metric set 'NoSuchSet' not found in ") &&
	   strstr(d.msg, "oa-bdw.xml") && strstr(d.subject, "edge_unknownmetric"),
	   "edge_unknownmetric: -ENOENT, '%s: %s'", d.subject, d.msg);

	if (ok(summarize(EDGE("edge_zero_reports"), "all", &rec, &s, &d) == 0, "edge_zero_reports reads")) {
		struct pk_oa_value v[1];

		ok(s.tl.n_reports == 0 && s.tl.n_segments == 0 && pk_oa_summary_values(&s, 0, v) == -ERANGE,
		   "edge_zero_reports: no reports, zero segments (values of segment 0: -ERANGE)");
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
	if (ok(summarize(EDGE("edge_lost"), "GpuTime,GpuBusy", &rec, &s, &d) == 0, "edge_lost reads")) {
		struct pk_oa_value *v = calloc(s.set->n_counters, sizeof(*v));

		ok(v && pk_oa_summary_values(&s, 0, v) == 0 && s.lost == 2 && s.tl.n_segments == 1 &&
		   s.n_sel == 2 && v[s.sel[0]].u == 2000000 && v[s.sel[1]].f == 75.0, "edge_lost: 2 lost, GpuTime 2000000, GpuBusy 75 (as the reader)");
		free(v);
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
	/* one correlation point: the slope is the timestamp frequency (IGT asserts) */
	if (ok(summarize(EDGE("edge_onecorr"), "GpuTime", &rec, &s, &d) == 0, "edge_onecorr reads")) {
		size_t n;
		const struct pk_oa_correlation *c = pk_oa_recording_correlations(rec, &n);
		const struct pk_oa_segment *g = &s.tl.segments[0];
		uint64_t f = pk_oa_recording_timestamp_frequency(rec);
		uint64_t base = c[0].gpu_ts & ~0xffffffffull;

		ok(n == 1 && s.tl.n_segments == 1 &&
		   g->cpu_ns_start == c[0].cpu_ns + (base + g->gpu_ts_start - c[0].gpu_ts) * 1000000000 / f &&
		   g->cpu_ns_end == c[0].cpu_ns + (base + g->gpu_ts_end - c[0].gpu_ts) * 1000000000 / f,
		   "edge_onecorr: CPU times extrapolated at the timestamp frequency (%" PRIu64 " Hz)", f);
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
	/* past the last point: extrapolated from the last two (IGT asserts) */
	if (ok(summarize(EDGE("edge_ts_past_last_corr"), "GpuTime", &rec, &s, &d) == 0,
	       "edge_ts_past_last_corr reads")) {
		size_t n;
		const struct pk_oa_correlation *c = pk_oa_recording_correlations(rec, &n);
		const struct pk_oa_segment *g = &s.tl.segments[s.tl.n_segments - 1];
		uint64_t gl = (c[n - 1].gpu_ts & ~0xffffffffull) + g->gpu_ts_end;
		__int128 want = (__int128)c[n - 2].cpu_ns + ((__int128)gl - c[n - 2].gpu_ts) *
				((__int128)c[n - 1].cpu_ns - c[n - 2].cpu_ns) /
				((__int128)c[n - 1].gpu_ts - c[n - 2].gpu_ts);

		ok(n >= 2 && gl > c[n - 1].gpu_ts && g->cpu_ns_end == (uint64_t)want &&
		   g->cpu_ns_end > c[n - 1].cpu_ns,
		   "edge_ts_past_last_corr: the last report's CPU time extrapolated from the last two points");
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
	/* options: an unknown counter, no metric file, counters "none" */
	if (ok(pk_oa_recording_read_file(EDGE("edge_lost"), &rec, &d) == 0, "edge_lost read again")) {
		PK_OA_SUMMARY_OPTS(o1, .metrics_dir = xml_dir, .counters = "GpuTime,NoSuchCounter");
		PK_OA_SUMMARY_OPTS(o2, .metrics_dir = "/nonexistent");
		PK_OA_SUMMARY_OPTS(o3, .metrics_dir = "/nonexistent", .counters = "none");

		pk_diag_init(&d);
		err = pk_oa_summary_init(&s, rec, &o1, &d);
		ok(err == -EINVAL && strstr(d.msg, "counter 'NoSuchCounter' not in metric set 'RenderBasic'"),
		   "unknown counter: '%s'", d.msg);
		pk_diag_init(&d);
		err = pk_oa_summary_init(&s, rec, &o2, &d);
		ok(err == -ENOENT && strstr(d.msg, "oa-bdw.xml"), "no metric file: '%s'", d.msg);
		pk_diag_init(&d);
		err = pk_oa_summary_init(&s, rec, &o3, &d);
		ok(err == 0 && s.set == NULL && s.tl.n_segments == 1 && s.n_sel == 0,
		   "counters none: segments without a metric file");
		if (!err)
			pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
#undef EDGE
}

/* ---- 3. generated recordings against the reader ---------------------------------- */

/* i915-perf-reader @flags ("-c all -r") on @path: its output, NULL when it fails. */
static char *run_reader(const char *path, const char *flags)
{
	char cmd[4096], *out = NULL;
	size_t len = 0, n;
	char chunk[65536];
	FILE *f, *m;

	snprintf(cmd, sizeof(cmd), "i915-perf-reader %s '%s' 2>&1", flags, path);
	if (!(f = popen(cmd, "r")))
		return NULL;
	m = open_memstream(&out, &len);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	if (pclose(f) != 0) {
		diag("i915-perf-reader failed on %s:\n%.2000s", path, out ? out : "");
		free(out);
		return NULL;
	}
	return out;
}

/*
 * The topology of a shared recording, reused for generated ones, and (@freq
 * not NULL) its timestamp frequency.
 */
static bool shared_device(const char *base, struct pk_oa_topology *t, uint64_t *freq)
{
	char path[2048];
	struct pk_oa_recording *rec;
	struct pk_diag d;

	snprintf(path, sizeof(path), "%s/%s.i915perf", data_dir, base);
	pk_diag_init(&d);
	if (pk_oa_recording_read_file(path, &rec, &d))
		return false;
	*t = *pk_oa_recording_topology(rec);
	if (freq)
		*freq = pk_oa_recording_device(rec)->timestamp_frequency;
	pk_oa_recording_free(rec);
	return true;
}

struct gen_case {
	const char *what, *device, *xml, *set;
	uint32_t pci_id;
	int gen, format;
	uint64_t freq;
	uint64_t ts0, a40;
	uint32_t u32;
	unsigned ctx_every, invalid_every, lost_every, reason_every;
	size_t n_reports;
};

/*
 * What check_random() chooses beside a gen_case; without it, a period that
 * keeps the recording under 2^31 ticks, a correlation point every 8
 * reports, about one GPU clock tick a timestamp tick, context switches as
 * the reason other than timer, and the PCI id as seed.
 */
struct gen_timing {
	uint32_t period;
	unsigned corr_every, clk_per_tick;
	uint32_t reason_bits;
	uint64_t seed;
};

/* Whether the last report starts a context of its own (it then makes no segment). */
static bool lone_last_report(const struct pk_oa_recording *rec)
{
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(rec);
	size_t n = pk_oa_recording_n_reports(rec);
	struct pk_oa_report a, b;

	if (n < 2)
		return n == 1;
	pk_oa_report_header(dec, pk_oa_recording_report(rec, n - 2), &a);
	pk_oa_report_header(dec, pk_oa_recording_report(rec, n - 1), &b);
	return a.ctx_id != b.ctx_id;
}

/*
 * What perfkit prints for @s: its report text (pk_oa_summary_print, with
 * @per_report) or with @list its counter list (pk_oa_summary_print_counters);
 * NULL when printing fails.
 */
static char *printed(const struct pk_oa_summary *s, bool list, bool per_report)
{
	char *text = NULL;
	size_t len = 0;
	struct pk_diag d;
	FILE *m = open_memstream(&text, &len);
	int err;

	pk_diag_init(&d);
	if (!m)
		return NULL;
	err = list ? pk_oa_summary_print_counters(s, m, false, &d) : pk_oa_summary_print(s, m, per_report, &d);
	fclose(m);
	if (err) {
		free(text);
		return NULL;
	}
	return text;
}

/* @text (may be NULL) without its lines that start with @prefix, in place. */
static char *drop_lines(char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	char *in = text, *out = text;

	while (in && *in) {
		char *eol = strchr(in, '\n');
		size_t len = eol ? (size_t)(eol - in) + 1 : strlen(in);

		if (strncmp(in, prefix, n) != 0) {
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	if (out)
		*out = 0;
	return text;
}

/*
 * perfkit's text, without its "Lost:" line (the reader prints none), to
 * compare with the reader's stdout and stderr.
 */
static char *print_text(const struct pk_oa_summary *s, bool per_report)
{
	return drop_lines(printed(s, false, per_report), "Lost: ");
}

static uint64_t json_u64(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_uint64(v) : UINT64_MAX;
}

/* The selected counters in JSON object @ctrs are @row's (integers exact, floats as %.17g prints them). */
static bool json_counters_same(const struct pk_oa_summary *s, json_object *ctrs, const struct pk_oa_value *row)
{
	bool same = true;

	for (size_t k = 0; same && k < s->n_sel; k++) {
		const struct pk_oa_value *v = &row[s->sel[k]];
		json_object *x;

		same = json_object_object_get_ex(ctrs, s->set->counters[s->sel[k]].symbol_name, &x) &&
		       (v->type == PK_OA_UINT64 ? (uint64_t)json_object_get_uint64(x) == v->u :
			!isfinite(v->f) || json_object_get_double(x) == v->f);
	}
	return same;
}

/*
 * Report pairs of segment @g in its "per_report" array @pairs: as many, each
 * with its two reports' GPU times and its values (pk_oa_summary_pair()).
 * How many differ (all of them when the array is missing or its length
 * is wrong).
 */
static size_t json_pairs_differ(const struct pk_oa_summary *s, const struct pk_oa_segment *g,
				json_object *seg, struct pk_oa_value *row)
{
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(s->rec);
	size_t bad = 0;
	json_object *pairs;

	if (!json_object_object_get_ex(seg, "per_report", &pairs) ||
	    json_object_array_length(pairs) != g->end - g->first)
		return g->end - g->first + 1;
	for (size_t r = g->first; r < g->end; r++) {
		json_object *j = json_object_array_get_idx(pairs, r - g->first), *ctrs;
		struct pk_oa_report a, b;

		pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r), &a);
		pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r + 1), &b);
		bad += !(json_u64(j, "gpu_ts_start") == a.timestamp && json_u64(j, "gpu_ts_end") == b.timestamp &&
			 json_object_object_get_ex(j, "counters", &ctrs) &&
			 pk_oa_summary_pair(s, r, row, NULL) == 0 && json_counters_same(s, ctrs, row));
	}
	return bad;
}

/*
 * The --json form of @s parses, and its segments are the summary's: context,
 * times, report count and every selected counter (integers exact, floats
 * as printed with %.17g, so exact too); with @per_report, each segment's
 * report pairs too. How many segments and pairs differ.
 */
static size_t json_differs(const struct pk_oa_summary *s, bool per_report)
{
	char *text = NULL;
	size_t len = 0, bad = 0;
	struct pk_diag d;
	struct pk_oa_value *row = calloc(s->set->n_counters, sizeof(*row));
	FILE *m = open_memstream(&text, &len);
	json_object *root, *segs;

	pk_diag_init(&d);
	if (!m || !row) {
		free(row);
		return SIZE_MAX;
	}
	pk_oa_summary_print_json(s, m, per_report, &d);
	fclose(m);
	root = json_tokener_parse(text);
	free(text);
	if (!root || !json_object_object_get_ex(root, "segments", &segs) ||
	    json_object_array_length(segs) != s->tl.n_segments) {
		json_object_put(root);
		free(row);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < s->tl.n_segments; i++) {
		json_object *j = json_object_array_get_idx(segs, i), *ctrs;
		const struct pk_oa_segment *g = &s->tl.segments[i];

		bad += !(json_u64(j, "ctx_id") == g->ctx_id && json_u64(j, "reports") == g->n_reports &&
			 json_u64(j, "gpu_ts_start") == g->gpu_ts_start &&
			 json_u64(j, "gpu_ts_end") == g->gpu_ts_end &&
			 json_u64(j, "cpu_ns_start") == g->cpu_ns_start &&
			 json_u64(j, "cpu_ns_end") == g->cpu_ns_end &&
			 json_object_object_get_ex(j, "counters", &ctrs) &&
			 pk_oa_summary_values(s, i, row) == 0 && json_counters_same(s, ctrs, row));
		if (per_report)
			bad += json_pairs_differ(s, g, j, row);
	}
	json_object_put(root);
	free(row);
	return bad;
}

/* Write the recording @g describes to @path (a test named @what). */
static void write_generated(const struct oa_gen *g, const char *path, const char *what)
{
	FILE *f = fopen(path, "w");
	struct pk_buf b;
	bool written;

	pk_buf_init(&b);
	written = oa_gen_write(g, &b) == 0 && f && fwrite(b.data, 1, b.len, f) == b.len;
	ok(written, "%s: written (%zu bytes)", what, b.len);
	if (f)
		fclose(f);
	pk_buf_release(&b);
}

/* The generator's settings for @c (with @timing, or its defaults), @uuid and @topo. */
static struct oa_gen gen_of(const struct gen_case *c, const struct gen_timing *timing, const char *uuid,
			    const struct pk_oa_topology *topo)
{
	size_t n_reports = c->n_reports;
	/*
	 * 100,000 ticks between reports, or less for long recordings: the
	 * reader loses 2^32 ticks on each timestamp wrap it does not assert on
	 * (perfkit does not), so long ones stay within 2^31 ticks
	 */
	uint64_t period = timing ? timing->period
			  : n_reports * 100000 <= (1ull << 31) ? 100000 : (1ull << 31) / n_reports;

	return (struct oa_gen){
		.pci_id = c->pci_id, .format = c->format, .graphics_ver = c->gen,
		.ts_freq = c->freq, .set = c->set, .uuid = uuid, .topo = topo,
		.n_reports = n_reports, .period = (uint32_t)period, .ts0 = c->ts0, .a40_start = c->a40,
		.u32_start = c->u32, .ctx_every = c->ctx_every, .invalid_every = c->invalid_every,
		.lost_every = c->lost_every, .reason_every = c->reason_every,
		.corr_every = timing ? timing->corr_every : 8,
		.clk_per_tick = timing ? timing->clk_per_tick : 0,
		.reason_bits = timing ? timing->reason_bits : 1u << 3,
		.seed = timing ? timing->seed : c->pci_id,
	};
}

static void check_generated(const struct gen_case *c, const struct gen_timing *timing,
			    const char *tmpdir)
{
	size_t n_reports = c->n_reports;
	bool per_report = n_reports <= 2000;     /* -r on longer ones prints millions of lines */
	uint64_t period;
	static struct pk_oa_topology topo;
	char path[2048], xml[2048], what[200];
	struct pk_oa_metrics *m = NULL;
	const struct pk_oa_set_info *set = NULL;
	struct pk_oa_recording *rec;
	struct pk_oa_summary s;
	struct pk_diag d;
	struct rd_out o;
	char *out;

	snprintf(what, sizeof(what), "generated %s", c->what);
	snprintf(xml, sizeof(xml), "%s/%s", xml_dir, c->xml);
	pk_diag_init(&d);
	if (!ok(shared_device(c->device, &topo, NULL) && pk_oa_metrics_load(xml, &m, &d) == 0 &&
		(set = pk_oa_metrics_find_set(m, c->set)), "%s: device and metric set", what)) {
		pk_oa_metrics_free(m);
		return;
	}
	{
		struct oa_gen g = gen_of(c, timing, set->hw_config_guid, &topo);

		period = g.period;
		snprintf(path, sizeof(path), "%s/%s.i915perf", tmpdir, c->what);
		write_generated(&g, path, what);
	}
	pk_oa_metrics_free(m);
	out = run_reader(path, per_report ? "-c all -r" : "-c all");
	if (!out && c->ts0 >> 32 != (c->ts0 + n_reports * period) >> 32) {
		/* IGT asserts on a timestamp wrap inside the recording: check perfkit alone */
		uint64_t t = 0, prev = 0;
		bool mono = true;

		if (ok(summarize(path, "all", &rec, &s, &d) == 0, "%s: perfkit decodes it", what)) {
			for (size_t i = 0; i < s.tl.n_segments; i++) {
				uint64_t deltas[PK_OA_MAX_VALUES] = { 0 };

				pk_oa_timeline_deltas(&s.tl, rec, i, deltas);
				t += deltas[0];
				mono &= s.tl.segments[i].cpu_ns_start >= prev &&
					s.tl.segments[i].cpu_ns_end >= s.tl.segments[i].cpu_ns_start;
				prev = s.tl.segments[i].cpu_ns_end;
			}
			ok(t == (n_reports - 1) * period && mono,
			   "%s: the reader asserts on the timestamp wrap; perfkit's GPU time is whole (%" PRIu64
			   " ticks) and CPU times increase", what, t);
			pk_oa_summary_release(&s);
			pk_oa_recording_free(rec);
		}
		return;
	}
	if (!ok(out && rd_parse(out, &o) == 0, "%s: i915-perf-reader -c all%s decodes it", what,
		per_report ? " -r" : "")) {
		free(out);
		return;
	}
	if (ok(summarize(path, "all", &rec, &s, &d) == 0, "%s: perfkit decodes it: %s", what, d.msg)) {
		size_t counted = 0, want = n_reports - (lone_last_report(rec) ? 1 : 0);
		char *text = print_text(&s, per_report);

		compare(&s, &o, what, true, per_report);
		for (size_t i = 0; i < s.tl.n_segments; i++)
			counted += s.tl.segments[i].n_reports;
		ok(counted == want, "%s: the segments' report counts add up to %zu (%zu)", what, want,
		   counted);
		ok(text && strcmp(text, out) == 0,
		   "%s: text output equals the reader's byte for byte (%zu segments)", what,
		   s.tl.n_segments);
		{
			char *list = printed(&s, true, false), *want_list = run_reader(path, "-c list");

			ok(list && want_list && strcmp(list, want_list) == 0,
			   "%s: -c list equals the reader's byte for byte (%zu counters)", what, s.n_sel);
			free(list);
			free(want_list);
		}
		is_int(json_differs(&s, false), 0, "%s: --json gives every segment and counter", what);
		if (per_report)
			is_int(json_differs(&s, true), 0,
			       "%s: --json --per-report gives every segment and report pair", what);
		check_batches(&s, what);
		free(text);
		pk_oa_summary_release(&s);
		pk_oa_recording_free(rec);
	}
	rd_free(&o);
	free(out);
}

/* The reader's printed value of counter @name in block @b, or NULL. */
static const char *rd_value(const struct rd_block *b, const char *name)
{
	for (size_t k = 0; k < b->n; k++)
		if (!strcmp(b->name[k], name))
			return b->value[k];
	return NULL;
}

/* perfkit's value of counter @name in @row, as a double (0 when the set has none). */
static double pk_value(const struct pk_oa_summary *s, const struct pk_oa_value *row, const char *name)
{
	int k = pk_oa_set_counter_index(s->set, name);

	return k < 0 ? 0 : pk_oa_value_as_double(&row[k]);
}

/*
 * Where perfkit and the reader part, on purpose: one context for 1,000
 * reports of 10 ms while the 32-bit GPU clock runs at 80 ticks a timestamp
 * tick (0.8 to 1 GHz against 12.5 MHz), so it wraps twice within the one
 * segment and the timestamp not at all. The reader takes a segment's
 * counters as one delta from its first report to its end, modulo 2^32;
 * perfkit sums every pair. Oracles: the clock's unwrapped advance, which
 * the generator counts, and the reader itself: every report pair (-r) the
 * same in both, the segment's GpuTime the same, its GpuCoreClocks the
 * whole advance in perfkit and the advance modulo 2^32 in the reader.
 */
static void check_reader_clock_wraps(const char *tmpdir)
{
	static const char what[] = "one segment, the GPU clock wrapping twice";
	uint64_t clk_total = 0;
	static struct pk_oa_topology topo;
	struct pk_oa_metrics *m = NULL;
	const struct pk_oa_set_info *set = NULL;
	struct pk_oa_recording *rec;
	struct pk_oa_summary s;
	struct pk_oa_value *row;
	struct pk_diag d;
	struct rd_out o;
	char path[2048], xml[2048], *out;
	size_t bad = 0;

	pk_diag_init(&d);
	snprintf(xml, sizeof(xml), "%s/oa-bdw.xml", xml_dir);
	if (!ok(shared_device("bdw_renderbasic", &topo, NULL) && pk_oa_metrics_load(xml, &m, &d) == 0 &&
		(set = pk_oa_metrics_find_set(m, "RenderBasic")), "%s: device and metric set", what)) {
		pk_oa_metrics_free(m);
		return;
	}
	{
		struct oa_gen g = {
			.pci_id = 0x1616, .format = PK_OA_FORMAT_A32u40_A4u32_B8_C8, .graphics_ver = 8,
			.ts_freq = 12500000, .set = "RenderBasic", .uuid = set->hw_config_guid,
			.topo = &topo, .n_reports = 1000, .period = 125000, .ts0 = 0x310000000ull,
			.a40_start = 12345, .u32_start = 0xf0000000u, .corr_every = 8,
			.clk_per_tick = 80, .seed = 7, .clk_total = &clk_total,
		};

		snprintf(path, sizeof(path), "%s/clock_wraps.i915perf", tmpdir);
		write_generated(&g, path, what);
	}
	pk_oa_metrics_free(m);
	ok(clk_total > (2ull << 32) && clk_total < (3ull << 32),
	   "%s: the clock advances %" PRIu64 " ticks, past two wraps", what, clk_total);
	out = run_reader(path, "-c all -r");
	if (!ok(out && rd_parse(out, &o) == 0 && o.n_seg == 1, "%s: the reader decodes one segment",
		what)) {
		free(out);
		return;
	}
	if (!ok(summarize(path, "all", &rec, &s, &d) == 0 && s.tl.n_segments == 1,
		"%s: perfkit decodes one segment: %s", what, d.msg)) {
		rd_free(&o);
		free(out);
		return;
	}
	/* the segment's context and times, and each pair's reason */
	compare(&s, &o, what, false, true);
	row = calloc(s.set->n_counters + 1, sizeof(*row));
	if (ok(row && o.seg[0].n_rep == 999, "%s: the reader prints 999 report pairs", what)) {
		for (size_t k = 0; k < o.seg[0].n_rep; k++) {
			char w[200];

			snprintf(w, sizeof(w), "%s: report pair %zu", what, k);
			pk_oa_summary_pair(&s, k, row, NULL);
			bad += compare_block(&s, row, &o.seg[0].rep[k], w);
		}
		is_int(bad, 0, "%s: every report pair's values equal the reader's", what);
	}
	if (row && pk_oa_summary_values(&s, 0, row) == 0) {
		const char *rd_clk = rd_value(&o.seg[0].ctr, "GpuCoreClocks");
		const char *rd_time = rd_value(&o.seg[0].ctr, "GpuTime");
		double freq = pk_value(&s, row, "AvgGpuCoreFrequency");

		is_int((uint64_t)pk_value(&s, row, "GpuCoreClocks"), clk_total,
		       "%s: perfkit's GpuCoreClocks is the clock's whole advance", what);
		is_int(rd_clk ? strtoull(rd_clk, NULL, 10) : 1, clk_total & 0xffffffffu,
		       "%s: the reader's is the advance modulo 2^32 (its one delta)", what);
		is_int(rd_time ? strtoull(rd_time, NULL, 10) : 0,
		       (uint64_t)pk_value(&s, row, "GpuTime"),
		       "%s: GpuTime the same in both (the timestamp does not wrap)", what);
		ok(freq >= 0.8e9 && freq <= 1.0e9,
		   "%s: perfkit's AvgGpuCoreFrequency %.0f Hz is the generated 0.8 to 1 GHz", what, freq);
	}
	free(row);
	pk_oa_summary_release(&s);
	pk_oa_recording_free(rec);
	rd_free(&o);
	free(out);
}

/* The four platforms of the shared recordings, for recordings of any set of their metric file. */
static const struct gen_case gen_devices[] = {
	{ "hsw", "hsw_renderbasic", "oa-hsw.xml", NULL, 0x0416, 7, PK_OA_FORMAT_A45_B8_C8,
	  12500000, 0x310000000ull, 0, 0xfff00000u, 5, 0, 0, 0, 40 },
	{ "bdw", "bdw_renderbasic", "oa-bdw.xml", NULL, 0x1616, 8, PK_OA_FORMAT_A32u40_A4u32_B8_C8,
	  12500000, 0x310000000ull, (1ull << 40) - 3000000, 0xfff00000u, 5, 0, 0, 0, 40 },
	{ "skl", "skl_renderbasic", "oa-sklgt2.xml", NULL, 0x1916, 9, PK_OA_FORMAT_A32u40_A4u32_B8_C8,
	  12000000, 0x310000000ull, (1ull << 40) - 3000000, 0xfff00000u, 5, 0, 0, 0, 40 },
	{ "tgl", "tgl_renderbasic", "oa-tglgt2.xml", NULL, 0x9a49, 12, PK_OA_FORMAT_A32u40_A4u32_B8_C8,
	  19200000, 0x310000000ull, (1ull << 40) - 3000000, 0xfff00000u, 5, 0, 0, 0, 40 },
};

/*
 * Every metric set of every metric file, each in a short recording (40
 * reports, a context every 5, 40-bit and 32-bit counters wrapping): the
 * reader's -c all -r and -c list outputs, byte for byte, and everything
 * else check_generated() compares. Sets whose counters depend on the
 * topology or the stepping ($SkuRevisionId) are among them, so this also
 * checks which counters are available on each device.
 */
static void check_every_set(const char *tmpdir)
{
	for (size_t i = 0; i < sizeof(gen_devices) / sizeof(gen_devices[0]); i++) {
		struct pk_oa_metrics *m = NULL;
		char xml[2048], what[200];
		struct pk_diag d;
		size_t n;

		snprintf(xml, sizeof(xml), "%s/%s", xml_dir, gen_devices[i].xml);
		pk_diag_init(&d);
		if (!ok(pk_oa_metrics_load(xml, &m, &d) == 0, "%s loads: %s", gen_devices[i].xml, d.msg))
			continue;
		n = pk_oa_metrics_n_sets(m);
		for (size_t k = 0; k < n; k++) {
			const struct pk_oa_set_info *set = pk_oa_metrics_set(m, k);
			struct gen_case c = gen_devices[i];

			snprintf(what, sizeof(what), "%s_%s", gen_devices[i].what, set->symbol_name);
			c.what = what;
			c.set = set->symbol_name;
			if (!set->hw_config_guid) {
				ok(1, "# SKIP %s: the set has no GUID to record", what);
				continue;
			}
			check_generated(&c, NULL, tmpdir);
		}
		pk_oa_metrics_free(m);
	}
}

/* 62 random bits (oa_gen_rand() gives 31). */
static uint64_t gen_rand64(uint64_t *s)
{
	uint64_t hi = oa_gen_rand(s);

	return hi << 31 | oa_gen_rand(s);
}

/* A random number below @n one time in @one_in, else 0. */
static unsigned gen_sometimes(uint64_t *s, unsigned one_in, unsigned n)
{
	if (oa_gen_rand(s) % one_in)
		return 0;
	return oa_gen_rand(s) % n;
}

/* PK_OA_RANDOM_SEEDS, else @otherwise. */
static uint64_t random_seeds(uint64_t otherwise)
{
	const char *env = getenv("PK_OA_RANDOM_SEEDS");

	return env ? strtoull(env, NULL, 10) : otherwise;
}

/*
 * A random recording's shape into @c and @t, from @s: 2 to 60 reports (one
 * in four up to 3,000), a period of 1,000 to 200,000 ticks, 1 to 3 GPU clock
 * ticks a timestamp tick, a first timestamp anywhere that leaves the
 * recording's span before the next multiple of @ts_wrap (the reader
 * asserts on a wrap inside: check_generated's own case), counters starting
 * anywhere or just before their wraps, and contexts, invalid contexts, LOST
 * records, reports with other reasons (any of the generation's reason
 * bits, several or none) and correlation points every few reports or none.
 * The GPU clock advances less than 2^31 in all, so it never wraps twice in
 * a segment (check_reader_clock_wraps). One oa_gen_rand() a statement or
 * condition: the same numbers from every compiler.
 */
static void random_shape(uint64_t *s, uint64_t ts_wrap, struct gen_case *c, struct gen_timing *t)
{
	uint64_t ts_high;
	unsigned reason_width;

	c->n_reports = oa_gen_rand(s) % 4 ? 60 : 3000;
	c->n_reports = 2 + oa_gen_rand(s) % c->n_reports;
	t->period = 1000 + oa_gen_rand(s) % 200000;
	t->clk_per_tick = 1 + oa_gen_rand(s) % 3;
	while ((uint64_t)c->n_reports * t->period * t->clk_per_tick >= ts_wrap / 2)
		t->period /= 2;
	ts_high = gen_rand64(s) & 0xfffffffffull & ~(ts_wrap - 1);     /* in the register's 36 bits */
	c->ts0 = ts_high + t->period + gen_rand64(s) % (ts_wrap - (c->n_reports + 2) * (uint64_t)t->period);
	c->a40 = oa_gen_rand(s) % 2 ? (1ull << 40) - 1 - gen_rand64(s) % 100000000
				   : gen_rand64(s) & ((1ull << 40) - 1);
	c->u32 = oa_gen_rand(s) % 2 ? UINT32_MAX - oa_gen_rand(s) % 100000000 : oa_gen_rand(s);
	c->ctx_every = oa_gen_rand(s) % 12;
	c->invalid_every = gen_sometimes(s, 3, 8);
	c->lost_every = gen_sometimes(s, 3, 10);
	c->reason_every = gen_sometimes(s, 3, 6);
	/*
	 * the generation's reason bits (5 on Gen8, 6 on Gen9-11, 7 on Gen12,
	 * none on Gen7): two times in three one of them, else any set, none too
	 */
	reason_width = c->gen >= 12 ? 7 : c->gen >= 9 ? 6 : 5;
	t->reason_bits = oa_gen_rand(s) % 3;
	t->reason_bits = t->reason_bits ? 1u << oa_gen_rand(s) % reason_width
					: oa_gen_rand(s) % (1u << reason_width);
	t->corr_every = 1 + oa_gen_rand(s) % 60;  /* past the end: the first and last only */
}

/* The shape of random case @what, for a failure to be made again. */
static void diag_shape(const char *what, const struct gen_case *c, const struct gen_timing *t)
{
	diag("%s: %zu reports, period %u, GPU clock ticks a timestamp tick %u, ts0 %#" PRIx64
	     ", a40 %#" PRIx64 ", u32 %#x, a context every %u, invalid %u, lost %u, reason %#x every %u,"
	     " correlation %u", what, c->n_reports, t->period, t->clk_per_tick, c->ts0, c->a40, c->u32,
	     c->ctx_every, c->invalid_every, c->lost_every, t->reason_bits, c->reason_every, t->corr_every);
}

/*
 * Random recordings, from fixed seeds so that a failure is the same on every
 * run: each a platform, any set of its metric file and a random_shape(),
 * then everything check_generated() compares. Seeds 1 to 40 on every run;
 * PK_OA_RANDOM_SEEDS=N runs 1 to N instead, for a longer search.
 */
static void check_random(const char *tmpdir)
{
	struct pk_oa_metrics *m[sizeof(gen_devices) / sizeof(gen_devices[0])] = { NULL };
	size_t n_devices = sizeof(gen_devices) / sizeof(gen_devices[0]);
	uint64_t n_seeds = random_seeds(40);

	for (size_t i = 0; i < n_devices; i++) {
		char xml[2048];
		struct pk_diag d;

		snprintf(xml, sizeof(xml), "%s/%s", xml_dir, gen_devices[i].xml);
		pk_diag_init(&d);
		if (!ok(pk_oa_metrics_load(xml, &m[i], &d) == 0, "random: %s loads: %s", gen_devices[i].xml,
			d.msg))
			goto out;
	}
	for (uint64_t seed = 1; seed <= n_seeds; seed++) {
		uint64_t s = seed * 2654435761u + 7;
		size_t dev = oa_gen_rand(&s) % n_devices;
		const struct pk_oa_set_info *set =
			pk_oa_metrics_set(m[dev], oa_gen_rand(&s) % pk_oa_metrics_n_sets(m[dev]));
		struct gen_case c = gen_devices[dev];
		struct gen_timing t = { .seed = seed };
		char what[200];

		c.set = set->symbol_name;
		random_shape(&s, 1ull << 32, &c, &t);
		snprintf(what, sizeof(what), "random_%" PRIu64 "_%s_%s", seed, c.what, c.set);
		diag_shape(what, &c, &t);
		c.what = what;
		if (!set->hw_config_guid) {
			ok(1, "# SKIP %s: the set has no GUID to record", what);
			continue;
		}
		check_generated(&c, &t, tmpdir);
	}
out:
	for (size_t i = 0; i < n_devices; i++)
		pk_oa_metrics_free(m[i]);
}

/*
 * Every report reason i915 has, each as the reason of every second report
 * of a short Tiger Lake recording: the names in -r's report lines
 * (trigger1, ..., mmio-trigger), several bits (the lowest named), none
 * ("unknown"); and on Skylake bits 5 and 6, of which Gen9 has only 5.
 */
static void check_reasons(const char *tmpdir)
{
	static const uint32_t tgl[] = { 1u << 1, 1u << 2, 1u << 3, 1u << 4, 1u << 5, 1u << 6, 0x6c, 0 };
	static const uint32_t skl[] = { 1u << 5, 1u << 6, 0x60 };

	for (size_t i = 0; i < sizeof(tgl) / sizeof(tgl[0]) + sizeof(skl) / sizeof(skl[0]); i++) {
		bool on_tgl = i < sizeof(tgl) / sizeof(tgl[0]);
		struct gen_case c = gen_devices[on_tgl ? 3 : 2];
		struct gen_timing t = { .period = 100000, .corr_every = 8, .clk_per_tick = 1, .seed = i + 1 };
		char what[100];

		t.reason_bits = on_tgl ? tgl[i] : skl[i - sizeof(tgl) / sizeof(tgl[0])];
		c.set = "RenderBasic";
		c.n_reports = 12;
		c.reason_every = 2;
		snprintf(what, sizeof(what), "%s_reason_%#x", c.what, t.reason_bits);
		c.what = what;
		check_generated(&c, &t, tmpdir);
	}
}

/*
 * Random DG2 recordings (A24u40_A14u32_B8_C8, each report's timestamp
 * written shifted left by one, so it wraps at 2^31), from fixed seeds as
 * check_random()'s. No acmgt3 metric file here: decoding only. perfkit's
 * -c none -r against the reader's -c GpuTime -r: every segment's and report
 * pair's times, context, reports and reason (compare()), and the text byte
 * for byte without the reader's counter lines and the "Metric used" line
 * (without the file perfkit cannot spell out the set's name). Seeds 1 to
 * 20; PK_OA_RANDOM_SEEDS=N runs 1 to N.
 */
static void check_random_dg2(const char *tmpdir)
{
	static struct pk_oa_topology topo;
	uint64_t freq, n_seeds = random_seeds(20);

	if (!ok(shared_device("dg2_renderbasic", &topo, &freq), "random DG2: dg2_renderbasic's device"))
		return;
	for (uint64_t seed = 1; seed <= n_seeds; seed++) {
		uint64_t s = seed * 2654435761u + 7;
		struct gen_case c = { "", "dg2_renderbasic", NULL, "RenderBasic", 0x56a0, 12,
				      PK_OA_FORMAT_A24u40_A14u32_B8_C8, freq, 0, 0, 0, 0, 0, 0, 0, 0 };
		struct gen_timing t = { .seed = seed };
		struct pk_oa_recording *rec;
		struct pk_oa_summary sum;
		struct pk_diag d;
		struct rd_out o;
		char what[100], path[2048], *out, *text;

		random_shape(&s, 1ull << 31, &c, &t);
		snprintf(what, sizeof(what), "random_dg2_%" PRIu64, seed);
		diag_shape(what, &c, &t);
		{
			struct oa_gen g = gen_of(&c, &t, "47b237c5-ed48-465b-b869-0d7ef59a6982", &topo);

			g.ts_shift = 1;
			snprintf(path, sizeof(path), "%s/%s.i915perf", tmpdir, what);
			write_generated(&g, path, what);
		}
		out = run_reader(path, "-c GpuTime -r");
		if (!ok(out && rd_parse(out, &o) == 0, "%s: i915-perf-reader -c GpuTime -r decodes it", what)) {
			free(out);
			continue;
		}
		if (ok(summarize(path, "none", &rec, &sum, &d) == 0, "%s: perfkit -c none decodes it: %s",
		       what, d.msg)) {
			text = drop_lines(print_text(&sum, true), "Metric used");
			compare(&sum, &o, what, false, true);
			drop_lines(drop_lines(out, "Metric used"), "   ");
			ok(text && strcmp(text, out) == 0,
			   "%s: the text is the reader's without its counters, byte for byte (%zu segments)", what,
			   sum.tl.n_segments);
			free(text);
			pk_oa_summary_release(&sum);
			pk_oa_recording_free(rec);
		}
		rd_free(&o);
		free(out);
	}
}

static void check_reader(void)
{
	static const struct gen_case cases[] = {
		{ "hsw_renderbasic", "hsw_renderbasic", "oa-hsw.xml", "RenderBasic", 0x0416, 7,
		  PK_OA_FORMAT_A45_B8_C8, 12500000, 0x310000000ull, 0, 0xffff0000u, 0, 0, 0, 0, 24 },
		{ "hsw_computebasic_u32wrap", "hsw_renderbasic", "oa-hsw.xml", "ComputeBasic", 0x0416, 7,
		  PK_OA_FORMAT_A45_B8_C8, 12500000, 0x310000000ull, 0, 0xfff00000u, 0, 0, 3, 0, 24 },
		{ "bdw_renderbasic_40bit", "bdw_renderbasic", "oa-bdw.xml", "RenderBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 3000000,
		  0xfff00000u, 6, 0, 0, 0, 24 },
		{ "bdw_testoa_lost", "bdw_renderbasic", "oa-bdw.xml", "TestOa", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, 1ull << 32, 7, 5, 0, 4, 0, 24 },
		{ "bdw_computebasic_invalid", "bdw_renderbasic", "oa-bdw.xml", "ComputeBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, 12345, 0, 4, 5, 0, 3, 24 },
		{ "bdw_memoryreads_tswrap", "bdw_renderbasic", "oa-bdw.xml", "MemoryReads", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x3ffff0000ull, (1ull << 40) - 100000,
		  0xffffff00u, 10, 0, 7, 0, 24 },
		{ "skl_renderbasic", "skl_renderbasic", "oa-sklgt2.xml", "RenderBasic", 0x1916, 9,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12000000, 0x310000000ull, (1ull << 40) - 500000, 1, 6, 7, 0, 5, 24 },
		{ "skl_computebasic", "skl_renderbasic", "oa-sklgt2.xml", "ComputeBasic", 0x1916, 9,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12000000, 0x310000000ull, 99, 0xfffff000u, 5, 0, 0, 0, 24 },
		{ "tgl_renderbasic", "tgl_renderbasic", "oa-tglgt2.xml", "RenderBasic", 0x9a49, 12,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 19200000, 0x310000000ull, (1ull << 40) - 700000, 0, 6, 0, 5, 4, 24 },
		{ "tgl_computebasic", "tgl_renderbasic", "oa-tglgt2.xml", "ComputeBasic", 0x9a49, 12,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 19200000, 0x310000000ull, 5, 0xffff0000u, 8, 0, 0, 0, 24 },
		/* segments of 600 reports: accumulated 256 at a time while open, across the wraps */
		{ "bdw_renderbasic_long_segments", "bdw_renderbasic", "oa-bdw.xml", "RenderBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 30000000,
		  0xff000000u, 600, 0, 0, 0, 1500 },
		/*
		 * 70,000 reports: built in blocks of 8,192 on two threads where
		 * there are two CPUs, while the file is read, joined where blocks
		 * meet; there a context starts (every 8,192), or segments go on
		 * (every 6,000), or the one segment of a single context goes on
		 */
		{ "bdw_renderbasic_blocks_at_change", "bdw_renderbasic", "oa-bdw.xml", "RenderBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 30000000,
		  0xff000000u, 8192, 0, 0, 0, 70000 },
		{ "bdw_renderbasic_blocks_in_segment", "bdw_renderbasic", "oa-bdw.xml", "RenderBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 30000000,
		  0xff000000u, 6000, 0, 0, 0, 70000 },
		{ "bdw_testoa_blocks_one_context", "bdw_renderbasic", "oa-bdw.xml", "TestOa", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, 1ull << 32, 7, 0, 0, 0, 0, 70000 },
		/* the last report starts a context of its own: no segment (as the reader) */
		{ "bdw_renderbasic_lone_last_report", "bdw_renderbasic", "oa-bdw.xml", "RenderBasic", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 3000000,
		  0xfff00000u, 3, 0, 0, 0, 25 },
		/*
		 * -r in blocks of 256 reports on two threads: segments of 7 reports
		 * across the blocks' edges, idle ones, lost records, reasons, and a
		 * last report that starts a context of its own
		 */
		{ "bdw_testoa_per_report_blocks", "bdw_renderbasic", "oa-bdw.xml", "TestOa", 0x1616, 8,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12500000, 0x310000000ull, (1ull << 40) - 3000000,
		  0xfff00000u, 7, 5, 300, 3, 1996 },
		/* 4,999 segments: printed in blocks of 256 on two threads, in order */
		{ "skl_renderbasic_many_segments", "skl_renderbasic", "oa-sklgt2.xml", "RenderBasic", 0x1916, 9,
		  PK_OA_FORMAT_A32u40_A4u32_B8_C8, 12000000, 0x310000000ull, (1ull << 40) - 500000, 1, 1, 0, 0, 0, 5000 },
	};
	char tmpdir[] = "/tmp/pk-oa-report-XXXXXX";

	if (system("command -v i915-perf-reader >/dev/null 2>&1") != 0) {
		ok(1, "# SKIP i915-perf-reader not installed (intel-gpu-tools): generated recordings not compared");
		return;
	}
	if (!ok(mkdtemp(tmpdir) != NULL, "temporary directory"))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_generated(&cases[i], NULL, tmpdir);
	check_reader_clock_wraps(tmpdir);
	check_every_set(tmpdir);
	check_reasons(tmpdir);
	check_random(tmpdir);
	check_random_dg2(tmpdir);
	{
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			diag("could not remove %s", tmpdir);
	}
}

int main(void)
{
	snprintf(data_dir, sizeof(data_dir), "%s/data/i915-perf", shared_dir());
	snprintf(xml_dir, sizeof(xml_dir), "%s/data/intel-oa", shared_dir());
	if (access(data_dir, R_OK) != 0 || access(xml_dir, R_OK) != 0) {
		skip_all("no recordings or metric files in ../shared/data (set PK_SHARED)");
		return 0;
	}
	check_shared("bdw_renderbasic", "all", true);
	check_shared("bdw_testoa", "all", true);
	check_shared("skl_renderbasic", "all", true);
	check_shared("tgl_renderbasic", "all", true);
	check_shared("hsw_renderbasic", "all", true);
	check_shared("edge_ctx_invalid", "GpuTime,GpuBusy", false);
	check_shared("edge_noversion_reordered", "GpuTime,GpuBusy", false);
	check_shared("dg2_renderbasic", "none", true);
	check_edges();
	check_reader();
	return done_testing();
}
