/*
 * Printing a pk_oa_summary: the text IGT's i915-perf-reader 1.27.1 prints
 * for -c (and -r), so that the two can be compared line by line, and the
 * JSON form of `perfkit oa report --json`.
 *
 * Text, line by line (the reader's, except "Lost:", printed only when loss
 * records were seen):
 *   Recorded on device=0x<pci>(<platform>) graphics_ver=<n>
 *   Metric used : <symbol> (<name>) uuid=<set GUID>
 *   Reports / Context switches (segments) / Timestamp correlation points
 *   correlation CPU and GPU ranges (GPU: 64 bits and low 32 bits), OA data
 *   timestamp range (shifted) and raw range (dw1), all 0x%016
 *   WARNING lines when the recording's uuid is not the set's GUID
 *   per segment: "Time: CPU=a-b GPU=a-b", "hw_id=0x<ctx> " or
 *   "hw_id=0xffffffff (idle)", then "   Symbol: value" (floats %f);
 *   with per-report, " report<k> = <reason>" and its values for each pair
 *   (the reason of the pair's first report, as the reader prints it).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>

/* IGT's spelling of a report reason: "context-switch" for "context switch". */
static const char *igt_reason(const struct pk_oa_summary *s, size_t i)
{
	static const char *const names[] = { "timer", "trigger1", "trigger2", "context-switch",
					     "go-transition", "clock-ratio-change", "mmio-trigger" };
	struct pk_oa_report h;

	pk_oa_report_header(pk_oa_recording_decoder(s->rec), pk_oa_recording_report(s->rec, i), &h);
	if (h.reason && (h.reason & (h.reason - 1)) == 0)
		return names[__builtin_ctz(h.reason)];
	return "unknown";
}

/*
 * "   Name: value" lines, as the reader prints them (%f for floats, through
 * pk_format_fixed6). One line is built and written at once: this is most
 * of the output of -c all.
 */
static void print_counters(const struct pk_oa_summary *s, FILE *f, const struct pk_oa_value *v)
{
	char line[PK_FIXED6_MAX + 64];

	for (size_t k = 0; k < s->n_sel; k++) {
		const char *name = s->set->counters[s->sel[k]].symbol_name;
		const struct pk_oa_value *x = &v[s->sel[k]];
		size_t n = strlen(name);

		if (n > 40) {
			fprintf(f, "   %s: ", name);
			n = 0;
		} else {
			memcpy(line, "   ", 3);
			memcpy(line + 3, name, n);
			memcpy(line + 3 + n, ": ", 2);
			n += 5;
		}
		if (x->type == PK_OA_FLOAT) {
			n += pk_format_fixed6(x->f, line + n);
		} else {
			n += pk_fmt_uint(line + n, x->u);
		}
		line[n++] = '\n';
		fwrite_unlocked(line, 1, n, f);
	}
}

static int finish(FILE *f, struct pk_diag *diag)
{
	if (fflush(f) || ferror(f))
		return pk_diag_fail(diag, -EIO, "cannot write the report: %s", strerror(errno ? errno : EIO));
	return 0;
}

static struct pk_oa_value *alloc_row(const struct pk_oa_summary *s)
{
	size_t n = s->set ? s->set->n_counters : 0;

	return calloc(n ? n : 1, sizeof(struct pk_oa_value));
}

/* ---- segments on two threads -------------------------------------------------- */

/* Prints segment @i to @f, with its report pairs if @per_report. */
typedef void print_segment_fn(const struct pk_oa_summary *s, FILE *f, size_t i, bool per_report,
			      struct pk_oa_value *row);

/* Segments per block; from PARALLEL_MIN_BLOCKS blocks on, two threads format them. */
#define BLOCK_SEGMENTS 256
#define PARALLEL_MIN_BLOCKS 4

/* A block formatted in memory (NULL: formatting failed, the writer does it). */
struct block_text {
	char *buf;
	size_t len;
	bool ready;
};

/*
 * The main thread formats the even blocks straight into the output and
 * writes the odd ones, which a worker formats in memory meanwhile, in order;
 * the worker has two slots, so at most two blocks wait in memory.
 */
struct printer {
	const struct pk_oa_summary *s;
	print_segment_fn *fn;
	size_t n_blocks;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block_text slot[2];
	size_t taken;              /* worker blocks written out */
};

static void print_block(const struct printer *p, FILE *f, size_t k, struct pk_oa_value *row)
{
	size_t n = p->s->tl.n_segments, end = (k + 1) * BLOCK_SEGMENTS;

	for (size_t i = k * BLOCK_SEGMENTS; i < end && i < n; i++)
		p->fn(p->s, f, i, false, row);
}

/* Block @k formatted in memory. */
static struct block_text format_block(const struct printer *p, size_t k, struct pk_oa_value *row)
{
	struct block_text t = { .ready = true };
	FILE *m = row || !p->s->set ? open_memstream(&t.buf, &t.len) : NULL;
	bool bad;

	if (!m)
		return t;
	print_block(p, m, k, row);
	bad = ferror(m);
	if (fclose(m) != 0 || bad) {
		free(t.buf);
		t.buf = NULL;
	}
	return t;
}

static void *format_odd_blocks(void *arg)
{
	struct printer *p = arg;
	struct pk_oa_value *row = p->s->set ? alloc_row(p->s) : NULL;

	for (size_t j = 0; 2 * j + 1 < p->n_blocks; j++) {
		struct block_text t;

		pthread_mutex_lock(&p->mu);
		while (j >= p->taken + 2)
			pthread_cond_wait(&p->cv, &p->mu);
		pthread_mutex_unlock(&p->mu);
		t = format_block(p, 2 * j + 1, row);
		pthread_mutex_lock(&p->mu);
		p->slot[j % 2] = t;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	free(row);
	return NULL;
}

/* Every segment through @fn, in order; the same output on one thread or two. */
static void print_segments(const struct pk_oa_summary *s, FILE *f, print_segment_fn *fn,
			   bool per_report, struct pk_oa_value *row)
{
	size_t n = s->tl.n_segments;
	struct printer p = { .s = s, .fn = fn, .n_blocks = (n + BLOCK_SEGMENTS - 1) / BLOCK_SEGMENTS,
			     .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	pthread_t worker;

	/* with per_report one segment may print millions of lines: not in memory */
	if (per_report || p.n_blocks < PARALLEL_MIN_BLOCKS || sysconf(_SC_NPROCESSORS_ONLN) < 2 ||
	    pthread_create(&worker, NULL, format_odd_blocks, &p) != 0) {
		for (size_t i = 0; i < n; i++)
			fn(s, f, i, per_report, row);
		return;
	}
	for (size_t k = 0; k < p.n_blocks; k++) {
		struct block_text t;

		if (k % 2 == 0) {
			print_block(&p, f, k, row);
			continue;
		}
		pthread_mutex_lock(&p.mu);
		while (!p.slot[k / 2 % 2].ready)
			pthread_cond_wait(&p.cv, &p.mu);
		t = p.slot[k / 2 % 2];
		p.slot[k / 2 % 2].ready = false;
		p.taken++;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
		if (t.buf)
			fwrite_unlocked(t.buf, 1, t.len, f);
		else
			print_block(&p, f, k, row);
		free(t.buf);
	}
	pthread_join(worker, NULL);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
}

/* Segment @i as the reader prints it, and with @per_report its report pairs. */
static void text_segment(const struct pk_oa_summary *s, FILE *f, size_t i, bool per_report,
			 struct pk_oa_value *row)
{
	const struct pk_oa_segment *g = &s->tl.segments[i];

	fprintf(f, "Time: CPU=0x%016" PRIx64 "-0x%016" PRIx64 " GPU=0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		g->cpu_ns_start, g->cpu_ns_end, (uint64_t)g->gpu_ts_start, (uint64_t)g->gpu_ts_end);
	if (g->ctx_id == PK_OA_CTX_INVALID)
		fputs("hw_id=0xffffffff (idle)\n", f);
	else
		fprintf(f, "hw_id=0x%x \n", g->ctx_id);
	if (row && pk_oa_summary_values(s, i, row) == 0)
		print_counters(s, f, row);
	if (!per_report)
		return;
	for (size_t r = g->first; r < g->end; r++) {
		fprintf(f, " report%zu = %s\n", r - g->first, igt_reason(s, r));
		if (row && pk_oa_summary_pair(s, r, row, NULL) == 0)
			print_counters(s, f, row);
	}
}

int pk_oa_summary_print(const struct pk_oa_summary *s, FILE *f, bool per_report,
			struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = pk_oa_recording_device(s->rec);
	const struct pk_oa_timeline *tl = &s->tl;
	struct pk_oa_value *row = NULL;

	fprintf(f, "Recorded on device=0x%x(%s) graphics_ver=%d\n", di->device_id,
		s->platform ? s->platform->name : "unknown", pk_oa_recording_graphics_ver(s->rec));
	if (s->set)
		fprintf(f, "Metric used : %s (%s) uuid=%s\n", s->set->symbol_name, s->set->name,
			s->set->hw_config_guid ? s->set->hw_config_guid : "");
	else
		fprintf(f, "Metric used : %s uuid=%s\n", di->metric_set_name, di->metric_set_uuid);
	fprintf(f, "Reports: %zu\n", tl->n_reports);
	fprintf(f, "Context switches: %zu\n", tl->n_segments);
	fprintf(f, "Timestamp correlation points: %zu\n", tl->n_correlations);
	fprintf(f, "Timestamp correlation CPU range:       0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		tl->corr_cpu_first, tl->corr_cpu_last);
	fprintf(f, "Timestamp correlation GPU range (64b): 0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		tl->corr_gpu_first, tl->corr_gpu_last);
	fprintf(f, "Timestamp correlation GPU range (32b): 0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		tl->corr_gpu_first & 0xffffffffu, tl->corr_gpu_last & 0xffffffffu);
	fprintf(f, "OA data timestamp range:               0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		(uint64_t)tl->ts_first, (uint64_t)tl->ts_last);
	fprintf(f, "OA raw data timestamp range:           0x%016" PRIx64 "-0x%016" PRIx64 "\n",
		(uint64_t)tl->raw_ts_first, (uint64_t)tl->raw_ts_last);
	if (s->uuid_mismatch)
		fputs("WARNING: Recording used a different HW configuration.\n"
		      "WARNING: This could lead to inconsistent counter values.\n", f);
	if (s->lost)
		fprintf(f, "Lost: %" PRIu64 " report-lost and %" PRIu64 " buffer-overflow records\n",
			pk_oa_recording_reports_lost(s->rec), pk_oa_recording_buffers_lost(s->rec));
	if (s->set && !(row = alloc_row(s)))
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	print_segments(s, f, text_segment, per_report, row);
	free(row);
	return finish(f, diag);
}

/* ---- JSON ----------------------------------------------------------------------- */

static void json_str(FILE *f, const char *str)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_value(FILE *f, const struct pk_oa_value *v)
{
	if (v->type == PK_OA_UINT64)
		fprintf(f, "%" PRIu64, v->u);
	else if (isfinite(v->f))
		fprintf(f, "%.17g", v->f);
	else
		fputs("null", f);
}

static void json_counters(const struct pk_oa_summary *s, FILE *f, const struct pk_oa_value *v)
{
	fputs("\"counters\":{", f);
	for (size_t k = 0; v && k < s->n_sel; k++) {
		if (k)
			fputc(',', f);
		json_str(f, s->set->counters[s->sel[k]].symbol_name);
		fputc(':', f);
		json_value(f, &v[s->sel[k]]);
	}
	fputc('}', f);
}

static void json_span(FILE *f, uint64_t gs, uint64_t ge, uint64_t cs, uint64_t ce)
{
	fprintf(f, "\"gpu_ts_start\":%" PRIu64 ",\"gpu_ts_end\":%" PRIu64 ",\"cpu_ns_start\":%" PRIu64
		",\"cpu_ns_end\":%" PRIu64, gs, ge, cs, ce);
}

/* Segment @i as a JSON object (after a comma unless first). */
static void json_segment(const struct pk_oa_summary *s, FILE *f, size_t i, bool per_report,
			 struct pk_oa_value *row)
{
	const struct pk_oa_segment *g = &s->tl.segments[i];
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(s->rec);

	fprintf(f, "%s{\"ctx_id\":%" PRIu32 ",", i ? "," : "", g->ctx_id);
	json_span(f, g->gpu_ts_start, g->gpu_ts_end, g->cpu_ns_start, g->cpu_ns_end);
	fprintf(f, ",\"reports\":%zu,", g->n_reports);
	json_counters(s, f, row && pk_oa_summary_values(s, i, row) == 0 ? row : NULL);
	if (per_report) {
		fputs(",\"per_report\":[", f);
		for (size_t r = g->first; r < g->end; r++) {
			struct pk_oa_report a, b;

			pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r), &a);
			pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r + 1), &b);
			fprintf(f, "%s{\"reason\":\"%s\",", r > g->first ? "," : "", igt_reason(s, r));
			json_span(f, a.timestamp, b.timestamp,
				  pk_oa_recording_cpu_time(s->rec, a.timestamp),
				  pk_oa_recording_cpu_time(s->rec, b.timestamp));
			fputc(',', f);
			json_counters(s, f, row && pk_oa_summary_pair(s, r, row, NULL) == 0 ? row : NULL);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputc('}', f);
}

int pk_oa_summary_print_json(const struct pk_oa_summary *s, FILE *f, bool per_report,
			     struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = pk_oa_recording_device(s->rec);
	const struct pk_oa_timeline *tl = &s->tl;
	struct pk_oa_value *row = NULL;

	fprintf(f, "{\"device\":{\"pci_id\":%u,\"platform\":", di->device_id);
	json_str(f, s->platform ? s->platform->name : "unknown");
	fprintf(f, ",\"graphics_ver\":%d},\"metric_set\":{\"name\":", pk_oa_recording_graphics_ver(s->rec));
	json_str(f, s->set ? s->set->name : di->metric_set_name);
	fputs(",\"symbol\":", f);
	json_str(f, s->set ? s->set->symbol_name : di->metric_set_name);
	fputs(",\"uuid\":", f);
	json_str(f, s->set && s->set->hw_config_guid ? s->set->hw_config_guid : di->metric_set_uuid);
	fprintf(f, "},\"reports\":%zu,\"lost\":%" PRIu64 ",\"segments\":[", tl->n_reports, s->lost);
	if (s->set && !(row = alloc_row(s)))
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	print_segments(s, f, json_segment, per_report, row);
	fputs("]}\n", f);
	free(row);
	return finish(f, diag);
}
