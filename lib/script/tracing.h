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

/* trace_fields.c: every field of @ev's payload @data (@size bytes readable) as perf 6.1's --raw-trace. */
struct tep_event;
void pk_tracing_print_fields(struct tep_handle *tep, struct tep_event *ev, const uint8_t *data, size_t size,
			     struct pk_obuf *o);

#endif
