/*
 * The trace sort key (perf report --sort trace): a tracepoint sample's
 * payload as perf script's trace field prints it (the file's TRACING_DATA
 * through libtraceevent, lib/script/tracing.c), or with --raw-trace every
 * field as " name=value", "N/A" for other samples.
 * The text is interned: rows with equal payloads are one.
 */
#include <errno.h>
#include <stdlib.h>
#include <trace-seq.h>
#include <linux/perf_event.h>
#include "internal.h"
#include "script/tracing.h"

struct rp_trace {
	struct tep_handle *tep;      /* NULL: no tracing data, or it cannot be parsed */
	struct trace_seq seq;
	uint8_t *scratch;
	struct pk_obuf text;         /* in memory: one payload at a time */
};

void rp_trace_release(struct pk_report *r)
{
	struct rp_trace *t = r->trace;

	if (!t)
		return;
	pk_tracing_free(t->tep);
	trace_seq_destroy(&t->seq);
	free(t->scratch);
	pk_obuf_release(&t->text);
	free(t);
	r->trace = NULL;
}

/*
 * The formatter, made on first use (a tracepoint sample: a pipe's
 * TRACING_DATA record has come by then) from the file's tracing data.
 */
static struct rp_trace *trace_of(struct pk_report *r)
{
	struct rp_trace *t = r->trace;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->scratch = calloc(1, PK_TRACE_SCRATCH);
	if (!t->scratch || pk_obuf_init(&t->text, NULL)) {
		free(t->scratch);
		free(t);
		return NULL;
	}
	trace_seq_init(&t->seq);
	if (r->feat && r->feat->tracing_data)
		t->tep = pk_tracing_parse(r->feat->tracing_data, r->feat->tracing_data_size);
	r->trace = t;
	return t;
}

uint32_t rp_trace_text_id(struct pk_report *r, const struct pk_rsample *rs)
{
	const struct pk_sample *s = rs->s;
	struct rp_trace *t;

	if (rs->evsel->attr.attr.type != PERF_TYPE_TRACEPOINT || !s->raw)
		return rp_strtab_id(&r->strs, "N/A");
	if (!(t = trace_of(r)))
		return UINT32_MAX;
	t->text.len = 0;
	if (pk_tracing_print(t->tep, &t->seq, t->scratch, rs->evsel->attr.attr.config,
			     (s->present & PERF_SAMPLE_CPU) ? (int)s->cpu : -1, s->raw, s->raw_size,
			     r->o.raw_trace, &t->text) == -ENOMEM)
		return UINT32_MAX;
	pk_obuf_putc(&t->text, '\0');
	if (t->text.err)
		return UINT32_MAX;
	return rp_strtab_id(&r->strs, t->text.buf);
}
