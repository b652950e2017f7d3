/*
 * Tracepoint payloads as text (tracing.c): the file's TRACING_DATA through
 * libtraceevent. perf script's trace field and perf report's trace sort
 * key print the same text.
 */
#ifndef PK_SCRIPT_TRACING_H
#define PK_SCRIPT_TRACING_H

#include <stdint.h>
#include "core/obuf.h"

struct tep_handle;

/* Build a tep handle from a TRACING_DATA blob. NULL (and a pk_log warning) if it cannot be parsed. */
struct tep_handle *pk_tracing_parse(const void *blob, size_t len);
void pk_tracing_free(struct tep_handle *tep);
/*
 * tracing_check.c: whether tracepoint format @text (@n bytes) holds what
 * libtraceevent 1.7 would crash on: 1 with its offset in *@at and its
 * words in @what (@sz bytes); 0 if not; -1 out of memory.
 */
int pk_tracing_format_fault(const char *text, size_t n, size_t *at, char *what, size_t sz);
/*
 * tracing_check.c: the name of a dynamic field of record @data (@size
 * bytes) of event @ev that libtraceevent 1.7 would print from garbage
 * (its bytes outside the record, or an empty bitmask); NULL if none.
 */
struct tep_event;
const char *pk_tracing_record_fault(struct tep_handle *tep, const struct tep_event *ev, const uint8_t *data,
				    uint32_t size);

/*
 * tracing_trial.c: run @body, which makes its libtraceevent calls as steps
 * (each only when pk_trace_trial_step() says so), one step behind a child
 * process running it first; a step that crashes the child is left out
 * (and a new child runs on without it), and so is one it spends more than
 * @stall_ms on. 0 when done; -1 when PK_TRACE_TRIAL_MAX steps crashed
 * children and the rest were left out.
 */
#define PK_TRACE_TRIAL_MAX 8
struct pk_trace_trial {
	uint32_t crashed[PK_TRACE_TRIAL_MAX];   /* steps left out */
	size_t n_crashed;
	uint32_t step;                          /* the next step's number */
	int gave_up;                            /* PK_TRACE_TRIAL_MAX crashed: no more steps */
	void (*body)(void *ctx, struct pk_trace_trial *t);
	void *ctx;
	int is_child;
	int fd;                                 /* the step pipe: the child writes, the caller reads */
	int pid;                                /* the caller's child, 0 none (no trial) */
	uint32_t child_at;                      /* the step the child started last */
	int child_seen, child_done;
	int stall_ms;                           /* a child this long without a message hangs */
};
int pk_trace_trial_run(struct pk_trace_trial *t, void (*body)(void *ctx, struct pk_trace_trial *t), void *ctx,
		       int stall_ms);
/* How long pk_tracing_parse's child may spend on one step (libtraceevent takes microseconds): more hangs. */
#define PK_TRACE_TRIAL_STALL_MS 20000
/* Before a step: 1 make it, 0 leave it out (it crashed a child). */
int pk_trace_trial_step(struct pk_trace_trial *t);
/*
 * Append the TEP_PRINT_INFO text of the tracepoint sample to @o (nothing if
 * the event is unknown), or with @fields every field as " name=value"
 * (perf report --raw-trace, trace_fields.c). @scratch: PK_TRACE_SCRATCH zeroed bytes. 0, or
 * -ENOMEM when libtraceevent ran out of memory in @seq (the text is then
 * short or missing; @seq stays failed).
 */
#define PK_TRACE_SCRATCH (256u << 10)
struct trace_seq;
int pk_tracing_print(struct tep_handle *tep, struct trace_seq *seq, uint8_t *scratch,
		     uint64_t id, int cpu, const void *raw, uint32_t raw_size, int fields,
		     struct pk_obuf *o);

/*
 * trace_fields.c: where field @f's bytes lie in record @data (@size bytes):
 * its own, or for a __data_loc / __rel_loc field those its location word
 * names. 0, or -1 where they do not lie inside the record.
 */
struct tep_format_field;
int pk_tracing_field_bytes(struct tep_handle *tep, const struct tep_format_field *f, const uint8_t *data,
			   size_t size, size_t *off, size_t *len);
/* trace_fields.c: every field of @ev's payload @data (@size bytes readable) as perf 6.1's --raw-trace. */
struct tep_event;
void pk_tracing_print_fields(struct tep_handle *tep, struct tep_event *ev, const uint8_t *data, size_t size,
			     struct pk_obuf *o);

#endif
