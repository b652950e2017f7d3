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
 *
 * A -c all run prints hundreds of thousands of lines, so they are not
 * printed one by one through stdio: each counter's label ("   Name: ", or
 * "\"Name\":" in JSON) is built once, lines are formatted into core's
 * output buffer (core/obuf.h) and written in large pieces, and blocks
 * of segments (with per-report, of report pairs) are formatted on two
 * threads.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "core/obuf.h"

/* ---- text --------------------------------------------------------------------- */

static char *put(char *p, const char *str, size_t n)
{
	memcpy(p, str, n);
	return p + n;
}

#define PUT_LITERAL(p, lit) put(p, lit, sizeof(lit) - 1)

static char *put_str(char *p, const char *str)
{
	return put(p, str, strlen(str));
}

static char *put_uint(char *p, uint64_t v)
{
	return p + pk_fmt_uint(p, v);
}

/* @v as "%016" PRIx64. */
static char *put_hex16(char *p, uint64_t v)
{
	for (int i = 15; i >= 0; i--, v >>= 4)
		p[i] = pk_hex_digits[v & 15];
	return p + 16;
}

/* Byte @c of a JSON string, escaped where it must be (at most 6 bytes). */
static char *put_json_char(char *p, unsigned char c)
{
	if (c == '"' || c == '\\') {
		*p++ = '\\';
	} else if (c < 0x20) {
		p = PUT_LITERAL(p, "\\u00");
		*p++ = pk_hex_digits[c >> 4];
		c = (unsigned char)pk_hex_digits[c & 15];
	}
	*p++ = (char)c;
	return p;
}

/* @str as a JSON string, with its quotes (names from a metric file: any length). */
static void obuf_json_str(struct pk_obuf *o, const char *str)
{
	pk_obuf_putc(o, '"');
	for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
		char *p = pk_obuf_room(o, 6);

		if (p)
			pk_obuf_wrote(o, put_json_char(p, *c));
	}
	pk_obuf_putc(o, '"');
}

/* ---- counter values ------------------------------------------------------------- */

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
 * Labels up to this long are copied as this many bytes (a fixed-size copy,
 * no call): the text has this many bytes of padding after the last.
 */
#define LABEL_COPY 32

/* The selected counters' labels, back to back: label k ends at end[k], the next starts there. */
struct labels {
	char *text;
	size_t *end;
};

/* Labels "   Name: " (text) or "\"Name\":" (@json; ",\"Name\":" after the first) of @s's selected counters. */
static int labels_init(struct labels *l, const struct pk_oa_summary *s, bool json)
{
	size_t len = 0;
	char *p;

	memset(l, 0, sizeof(*l));
	for (size_t k = 0; k < s->n_sel; k++)
		len += 6 * strlen(s->set->counters[s->sel[k]].symbol_name) + 6;
	l->text = calloc(1, len + LABEL_COPY);
	l->end = calloc(s->n_sel ? s->n_sel : 1, sizeof(*l->end));
	if (!l->text || !l->end)
		return -ENOMEM;
	p = l->text;
	for (size_t k = 0; k < s->n_sel; k++) {
		const char *name = s->set->counters[s->sel[k]].symbol_name;

		if (json) {
			if (k)
				*p++ = ',';
			*p++ = '"';
			for (const char *c = name; *c; c++)
				p = put_json_char(p, (unsigned char)*c);
			p = PUT_LITERAL(p, "\":");
		} else {
			p = PUT_LITERAL(p, "   ");
			p = put_str(p, name);
			p = PUT_LITERAL(p, ": ");
		}
		l->end[k] = (size_t)(p - l->text);
	}
	return 0;
}

static void labels_release(struct labels *l)
{
	free(l->text);
	free(l->end);
}

/*
 * Counter values evaluated PK_OA_EVAL_BATCH at a time, several times faster
 * than one by one: those of segments (or report pairs) first to first + n - 1,
 * counter k of first + j in v[k * PK_OA_EVAL_BATCH + j].
 */
struct batch {
	struct pk_oa_value *v;     /* PK_OA_EVAL_BATCH per counter; NULL without a set */
	bool ok[PK_OA_EVAL_BATCH]; /* which have values */
	size_t first, n;
};

/* What one printing thread evaluates into: segments, and report pairs for per-report. */
struct evals {
	struct batch seg, pair;
};

/* What a segment printer needs: the summary, its labels, and how to print. */
struct print_ctx;
/*
 * Prints into @k the part of segment @i that falls in reports [@lo, @hi):
 * its head (lines, values) with its first report, its pairs (per-report)
 * with their first reports, and what closes it with its last pair's first
 * report (its first without pairs). Values are evaluated in @ev.
 */
typedef void print_segment_fn(const struct print_ctx *c, struct pk_obuf *k, size_t i, size_t lo,
			      size_t hi, struct evals *ev);

struct print_ctx {
	const struct pk_oa_summary *s;
	print_segment_fn *fn;
	bool per_report;
	struct labels lab;
};

/* Where label @j starts in l->text, and its length in *@n. */
static const char *label_at(const struct labels *l, size_t j, size_t *n)
{
	size_t from = j ? l->end[j - 1] : 0;

	*n = l->end[j] - from;
	return l->text + from;
}

/* Label @text (@n bytes) at @p, which has room for max(@n, LABEL_COPY) bytes: where it ends. */
static char *copy_label(char *p, const char *text, size_t n)
{
	if (n <= LABEL_COPY)
		memcpy(p, text, LABEL_COPY);    /* a fixed size: no call */
	else
		memcpy(p, text, n);
	return p + n;
}

/*
 * Label @j written, and where @value_max more bytes fit after it (NULL: out
 * of memory). A label longer than the buffer (a hostile metric file) is
 * written in pieces.
 */
static char *put_label(struct pk_obuf *o, const struct labels *l, size_t j, size_t value_max)
{
	size_t n;
	const char *text = label_at(l, j, &n);
	char *p = pk_obuf_room(o, (n > LABEL_COPY ? n : LABEL_COPY) + value_max);

	if (p)
		return copy_label(p, text, n);
	pk_obuf_write(o, text, n);
	return pk_obuf_room(o, value_max);
}

/* Value @x after its label, as the reader prints it (%f for floats, through pk_format_fixed6), and '\n'. */
static char *text_value(char *p, const struct pk_oa_value *x)
{
	if (x->type == PK_OA_FLOAT)
		p += pk_format_fixed6(x->f, p);
	else
		p = put_uint(p, x->u);
	*p++ = '\n';
	return p;
}

/*
 * "   Name: value" lines: most of the output of -c all. @v: values in a
 * batch. Room for all of them is asked for once (labels copied as
 * LABEL_COPY bytes, at most PK_FIXED6_MAX + 1 for each value); where the
 * buffer cannot give that much (labels of a hostile metric file), line by line.
 */
static void text_counters(const struct print_ctx *c, struct pk_obuf *o, const struct pk_oa_value *v)
{
	const struct pk_oa_summary *s = c->s;
	const struct labels *l = &c->lab;
	size_t n_sel = s->n_sel;
	char *p = n_sel ? pk_obuf_room(o, l->end[n_sel - 1] + LABEL_COPY +
					     n_sel * (PK_FIXED6_MAX + 1)) : NULL;

	if (p) {
		for (size_t j = 0; j < n_sel; j++) {
			size_t n;
			const char *text = label_at(l, j, &n);

			p = text_value(copy_label(p, text, n), &v[s->sel[j] * PK_OA_EVAL_BATCH]);
		}
		pk_obuf_wrote(o, p);
		return;
	}
	for (size_t j = 0; j < n_sel; j++) {
		if (!(p = put_label(o, l, j, PK_FIXED6_MAX + 1)))
			return;
		pk_obuf_wrote(o, text_value(p, &v[s->sel[j] * PK_OA_EVAL_BATCH]));
	}
}

/* "counters":{"Name":value,...}, empty without values (@v NULL; else in a batch). */
static void json_counters(const struct print_ctx *c, struct pk_obuf *o, const struct pk_oa_value *v)
{
	const struct pk_oa_summary *s = c->s;

	pk_obuf_puts(o, "\"counters\":{");
	for (size_t j = 0; v && j < s->n_sel; j++) {
		const struct pk_oa_value *x = &v[s->sel[j] * PK_OA_EVAL_BATCH];
		char *p = put_label(o, &c->lab, j, PK_G17_MAX);

		if (!p)
			return;
		if (x->type == PK_OA_UINT64)
			p = put_uint(p, x->u);
		else if (isfinite(x->f))
			p += pk_format_g17(x->f, p);
		else
			p = PUT_LITERAL(p, "null");
		pk_obuf_wrote(o, p);
	}
	pk_obuf_putc(o, '}');
}

/* ---- segments on two threads -------------------------------------------------- */

/*
 * Segments per block, or with per-report reports per block (a multiple of
 * PK_OA_EVAL_BATCH, so that a block's pairs are evaluated in whole
 * batches); from PARALLEL_MIN_BLOCKS blocks on, two threads format them.
 */
#define BLOCK_ITEMS 256
#define PARALLEL_MIN_BLOCKS 4

/* A block formatted in memory, in a buffer kept from block to block. */
struct block_text {
	struct pk_obuf k;
	bool ready;
};

/*
 * The main thread formats the even blocks straight into the output and
 * writes the odd ones, which a worker formats in memory meanwhile, in order;
 * the worker has two slots, so at most two blocks wait in memory.
 */
struct printer {
	const struct print_ctx *c;
	size_t n_blocks;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct block_text slot[2];
	size_t taken;              /* worker blocks written out (their slots free again) */
};

/* The report with which segment @g closes: its last pair's first, or its first without pairs. */
static size_t closing_report(const struct pk_oa_segment *g)
{
	return g->end > g->first ? g->end - 1 : g->first;
}

/* The first report pair of segment @g in reports [@lo, @hi); *@to: the end of its pairs there. */
static size_t pairs_in(const struct pk_oa_segment *g, size_t lo, size_t hi, size_t *to)
{
	*to = g->end < hi ? g->end : hi;
	return g->first > lo ? g->first : lo;
}

/* Block @b: segments, or with per-report, whatever falls in its reports (see print_segment_fn). */
static void print_block(const struct print_ctx *c, struct pk_obuf *k, size_t b, struct evals *ev)
{
	const struct pk_oa_timeline *tl = &c->s->tl;
	size_t lo = b * BLOCK_ITEMS, hi = lo + BLOCK_ITEMS, i = 0, n = tl->n_segments;

	if (!c->per_report) {
		for (i = lo; i < hi && i < n; i++)
			c->fn(c, k, i, 0, SIZE_MAX, ev);
		return;
	}
	/* the first segment that closes in or after the block: segments close in report order */
	for (size_t top = n; i < top;) {
		size_t mid = i + (top - i) / 2;

		if (closing_report(&tl->segments[mid]) < lo)
			i = mid + 1;
		else
			top = mid;
	}
	for (; i < n && tl->segments[i].first < hi; i++)
		c->fn(c, k, i, lo, hi, ev);
}

/* How many blocks print_block() is given. */
static size_t n_blocks(const struct print_ctx *c)
{
	size_t n = c->per_report ? pk_oa_recording_n_reports(c->s->rec) : c->s->tl.n_segments;

	return n / BLOCK_ITEMS + (n % BLOCK_ITEMS != 0);
}

static void evals_release(struct evals *ev)
{
	free(ev->seg.v);
	free(ev->pair.v);
	ev->seg.v = ev->pair.v = NULL;
}

/* Room for @s's values (none without a set; report pairs' only with @per_report). 0 or -ENOMEM. */
static int evals_init(struct evals *ev, const struct pk_oa_summary *s, bool per_report)
{
	size_t n = s->set ? s->set->n_counters * PK_OA_EVAL_BATCH : 0;

	memset(ev, 0, sizeof(*ev));
	if (!n)
		return 0;
	ev->seg.v = calloc(n, sizeof(struct pk_oa_value));
	ev->pair.v = per_report ? calloc(n, sizeof(struct pk_oa_value)) : NULL;
	if (!ev->seg.v || (per_report && !ev->pair.v)) {
		evals_release(ev);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The values of segment @i (@pairs: of report pair @i) in @b, NULL where it
 * has none: the batch from @i is evaluated when @i is not in @b's.
 */
static const struct pk_oa_value *values_at(const struct pk_oa_summary *s, struct batch *b, size_t i,
					   bool pairs)
{
	if (!b->v)
		return NULL;
	if (i < b->first || i - b->first >= b->n) {
		size_t n_reports = pk_oa_recording_n_reports(s->rec);
		size_t end = pairs ? (n_reports ? n_reports - 1 : 0) : s->tl.n_segments;
		size_t n = i < end ? end - i : 0;

		n = n < PK_OA_EVAL_BATCH ? n : PK_OA_EVAL_BATCH;
		b->first = i;
		b->n = 0;
		if (!n || (pairs ? pk_oa_summary_pairs_batch : pk_oa_summary_values_batch)(s, i, n, b->v, b->ok))
			return NULL;
		b->n = n;
	}
	return b->ok[i - b->first] ? &b->v[i - b->first] : NULL;
}

static void *format_odd_blocks(void *arg)
{
	struct printer *p = arg;
	struct evals ev;
	int no_room = evals_init(&ev, p->c->s, p->c->per_report);

	for (size_t j = 0; 2 * j + 1 < p->n_blocks; j++) {
		struct pk_obuf k;

		pthread_mutex_lock(&p->mu);
		while (j >= p->taken + 2)
			pthread_cond_wait(&p->cv, &p->mu);
		k = p->slot[j % 2].k;
		pthread_mutex_unlock(&p->mu);
		k.len = 0;
		k.err = 0;
		/* out of memory: the block fails, and the writer formats it */
		if ((!k.buf && pk_obuf_init(&k, NULL)) || no_room)
			k.err = -ENOMEM;
		else
			print_block(p->c, &k, 2 * j + 1, &ev);
		pthread_mutex_lock(&p->mu);
		p->slot[j % 2].k = k;
		p->slot[j % 2].ready = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	evals_release(&ev);
	return NULL;
}

/* Every segment through c->fn into @k, in order; the same output on one thread or two. */
static void print_segments(const struct print_ctx *c, struct pk_obuf *k, struct evals *ev)
{
	struct printer p = { .c = c, .n_blocks = n_blocks(c), .mu = PTHREAD_MUTEX_INITIALIZER,
			     .cv = PTHREAD_COND_INITIALIZER };
	pthread_t worker;

	if (p.n_blocks < PARALLEL_MIN_BLOCKS || pk_cpus_usable() < 2 ||
	    pthread_create(&worker, NULL, format_odd_blocks, &p) != 0) {
		for (size_t i = 0; i < c->s->tl.n_segments; i++)
			c->fn(c, k, i, 0, SIZE_MAX, ev);
		return;
	}
	for (size_t b = 0; b < p.n_blocks; b++) {
		struct block_text *t = &p.slot[b / 2 % 2];

		if (b % 2 == 0) {
			print_block(c, k, b, ev);
			continue;
		}
		pthread_mutex_lock(&p.mu);
		while (!t->ready)
			pthread_cond_wait(&p.cv, &p.mu);
		pthread_mutex_unlock(&p.mu);
		if (!t->k.err) {
			pk_obuf_flush(k);
			fwrite_unlocked(t->k.buf, 1, t->k.len, k->f);
		} else {
			print_block(c, k, b, ev);
		}
		/* written: the worker may format into this slot again */
		pthread_mutex_lock(&p.mu);
		t->ready = false;
		p.taken++;
		pthread_cond_broadcast(&p.cv);
		pthread_mutex_unlock(&p.mu);
	}
	pthread_join(worker, NULL);
	pk_obuf_release(&p.slot[0].k);
	pk_obuf_release(&p.slot[1].k);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
}

/*
 * Every segment of @s through @fn into @k (writing to @f, after the header
 * it holds), then @tail; @json picks the labels. @k is released. 0,
 * -ENOMEM or -EIO.
 */
static int print_all(const struct pk_oa_summary *s, FILE *f, struct pk_obuf *k, print_segment_fn *fn,
		     bool per_report, bool json, const char *tail, struct pk_diag *diag)
{
	struct print_ctx c = { .s = s, .fn = fn, .per_report = per_report };
	struct evals ev = { 0 };
	int err;

	if (s->set && (labels_init(&c.lab, s, json) || evals_init(&ev, s, per_report))) {
		err = -ENOMEM;
	} else {
		print_segments(&c, k, &ev);
		if (tail)
			pk_obuf_puts(k, tail);
		err = pk_obuf_flush(k);
	}
	evals_release(&ev);
	labels_release(&c.lab);
	pk_obuf_release(k);
	if (err == -ENOMEM)
		return pk_diag_fail(diag, err, "out of memory");
	if (err || fflush(f) || ferror(f))
		return pk_diag_fail(diag, -EIO, "cannot write the report: %s",
				    strerror(err ? -err : errno ? errno : EIO));
	return 0;
}

/* ---- text ----------------------------------------------------------------------- */

/* Segment @i's "Time:" and "hw_id=" lines and its values, as the reader prints them. */
static void text_head(const struct print_ctx *c, struct pk_obuf *k, size_t i, struct evals *ev)
{
	const struct pk_oa_segment *g = &c->s->tl.segments[i];
	const struct pk_oa_value *v;
	char *p = pk_obuf_room(k, 128);

	if (!p)
		return;
	p = PUT_LITERAL(p, "Time: CPU=0x");
	p = put_hex16(p, g->cpu_ns_start);
	p = PUT_LITERAL(p, "-0x");
	p = put_hex16(p, g->cpu_ns_end);
	p = PUT_LITERAL(p, " GPU=0x");
	p = put_hex16(p, (uint64_t)g->gpu_ts_start);
	p = PUT_LITERAL(p, "-0x");
	p = put_hex16(p, (uint64_t)g->gpu_ts_end);
	if (g->ctx_id == PK_OA_CTX_INVALID) {
		p = PUT_LITERAL(p, "\nhw_id=0xffffffff (idle)\n");
	} else {
		p = PUT_LITERAL(p, "\nhw_id=0x");
		p = p + pk_fmt_hex(p, g->ctx_id);
		p = PUT_LITERAL(p, " \n");
	}
	pk_obuf_wrote(k, p);
	if ((v = values_at(c->s, &ev->seg, i, false)))
		text_counters(c, k, v);
}

/* Segment @i as the reader prints it, and with c->per_report its report pairs (print_segment_fn). */
static void text_segment(const struct print_ctx *c, struct pk_obuf *k, size_t i, size_t lo, size_t hi,
			 struct evals *ev)
{
	const struct pk_oa_summary *s = c->s;
	const struct pk_oa_segment *g = &s->tl.segments[i];
	const struct pk_oa_value *v;
	size_t to;
	char *p;

	if (g->first >= lo)
		text_head(c, k, i, ev);
	if (!c->per_report)
		return;
	for (size_t r = pairs_in(g, lo, hi, &to); r < to; r++) {
		const char *reason = igt_reason(s, r);

		if ((p = pk_obuf_room(k, 40 + strlen(reason)))) {
			p = PUT_LITERAL(p, " report");
			p = put_uint(p, r - g->first);
			p = PUT_LITERAL(p, " = ");
			p = put_str(p, reason);
			*p++ = '\n';
			pk_obuf_wrote(k, p);
		}
		if ((v = values_at(s, &ev->pair, r, true)))
			text_counters(c, k, v);
	}
}

int pk_oa_summary_print(const struct pk_oa_summary *s, FILE *f, bool per_report,
			struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = pk_oa_recording_device(s->rec);
	const struct pk_oa_timeline *tl = &s->tl;
	struct pk_obuf k;

	if (pk_obuf_init(&k, f))
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
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
	return print_all(s, f, &k, text_segment, per_report, false, NULL, diag);
}

/* ---- JSON ----------------------------------------------------------------------- */

/* "gpu_ts_start":N,"gpu_ts_end":N,"cpu_ns_start":N,"cpu_ns_end":N (at most 150 bytes) */
static char *put_json_span(char *p, uint64_t gs, uint64_t ge, uint64_t cs, uint64_t ce)
{
	p = PUT_LITERAL(p, "\"gpu_ts_start\":");
	p = put_uint(p, gs);
	p = PUT_LITERAL(p, ",\"gpu_ts_end\":");
	p = put_uint(p, ge);
	p = PUT_LITERAL(p, ",\"cpu_ns_start\":");
	p = put_uint(p, cs);
	p = PUT_LITERAL(p, ",\"cpu_ns_end\":");
	return put_uint(p, ce);
}

/* Segment @i's object up to its values (after a comma unless first), and with per-report its array's start. */
static void json_head(const struct print_ctx *c, struct pk_obuf *k, size_t i, struct evals *ev)
{
	const struct pk_oa_segment *g = &c->s->tl.segments[i];
	char *p = pk_obuf_room(k, 256);

	if (!p)
		return;
	if (i)
		*p++ = ',';
	p = PUT_LITERAL(p, "{\"ctx_id\":");
	p = put_uint(p, g->ctx_id);
	*p++ = ',';
	p = put_json_span(p, g->gpu_ts_start, g->gpu_ts_end, g->cpu_ns_start, g->cpu_ns_end);
	p = PUT_LITERAL(p, ",\"reports\":");
	p = put_uint(p, g->n_reports);
	*p++ = ',';
	pk_obuf_wrote(k, p);
	json_counters(c, k, values_at(c->s, &ev->seg, i, false));
	if (c->per_report)
		pk_obuf_puts(k, ",\"per_report\":[");
}

/* Report pair @r of segment @g as a JSON object (after a comma unless its first). */
static void json_pair(const struct print_ctx *c, struct pk_obuf *k, const struct pk_oa_segment *g,
		      size_t r, struct evals *ev)
{
	const struct pk_oa_summary *s = c->s;
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(s->rec);
	const char *reason = igt_reason(s, r);
	struct pk_oa_report a, b;
	char *p;

	pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r), &a);
	pk_oa_report_header(dec, pk_oa_recording_report(s->rec, r + 1), &b);
	if ((p = pk_obuf_room(k, 200 + strlen(reason)))) {
		if (r > g->first)
			*p++ = ',';
		p = PUT_LITERAL(p, "{\"reason\":\"");
		p = put_str(p, reason);
		p = PUT_LITERAL(p, "\",");
		p = put_json_span(p, a.timestamp, b.timestamp, pk_oa_recording_cpu_time(s->rec, a.timestamp),
				  pk_oa_recording_cpu_time(s->rec, b.timestamp));
		*p++ = ',';
		pk_obuf_wrote(k, p);
	}
	json_counters(c, k, values_at(s, &ev->pair, r, true));
	pk_obuf_putc(k, '}');
}

/* Segment @i as a JSON object, with per-report its pairs (print_segment_fn). */
static void json_segment(const struct print_ctx *c, struct pk_obuf *k, size_t i, size_t lo, size_t hi,
			 struct evals *ev)
{
	const struct pk_oa_segment *g = &c->s->tl.segments[i];
	size_t closes = closing_report(g), to;

	if (g->first >= lo)
		json_head(c, k, i, ev);
	for (size_t r = pairs_in(g, lo, hi, &to); c->per_report && r < to; r++)
		json_pair(c, k, g, r, ev);
	if (closes >= lo && closes < hi)
		pk_obuf_puts(k, c->per_report ? "]}" : "}");
}

int pk_oa_summary_print_json(const struct pk_oa_summary *s, FILE *f, bool per_report,
			     struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = pk_oa_recording_device(s->rec);
	struct pk_obuf k;
	char *p;

	if (pk_obuf_init(&k, f))
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	if ((p = pk_obuf_room(&k, 64))) {
		p = PUT_LITERAL(p, "{\"device\":{\"pci_id\":");
		p = put_uint(p, di->device_id);
		pk_obuf_wrote(&k, PUT_LITERAL(p, ",\"platform\":"));
	}
	obuf_json_str(&k, s->platform ? s->platform->name : "unknown");
	if ((p = pk_obuf_room(&k, 64))) {
		p = PUT_LITERAL(p, ",\"graphics_ver\":");
		p = put_uint(p, (uint64_t)pk_oa_recording_graphics_ver(s->rec));
		pk_obuf_wrote(&k, PUT_LITERAL(p, "},\"metric_set\":{\"name\":"));
	}
	obuf_json_str(&k, s->set ? s->set->name : di->metric_set_name);
	pk_obuf_puts(&k, ",\"symbol\":");
	obuf_json_str(&k, s->set ? s->set->symbol_name : di->metric_set_name);
	pk_obuf_puts(&k, ",\"uuid\":");
	obuf_json_str(&k, s->set && s->set->hw_config_guid ? s->set->hw_config_guid : di->metric_set_uuid);
	if ((p = pk_obuf_room(&k, 80))) {
		p = PUT_LITERAL(p, "},\"reports\":");
		p = put_uint(p, s->tl.n_reports);
		p = PUT_LITERAL(p, ",\"lost\":");
		p = put_uint(p, s->lost);
		pk_obuf_wrote(&k, PUT_LITERAL(p, ",\"segments\":["));
	}
	return print_all(s, f, &k, json_segment, per_report, true, "]}\n", diag);
}
