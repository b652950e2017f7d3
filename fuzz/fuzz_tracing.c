/*
 * libFuzzer target for tracepoint formats and payloads (lib/script/tracing.c
 * and trace_fields.c), straight to libtraceevent without a perf.data file
 * around them. The input: a u16 (little-endian) length L, L bytes of one
 * event's format text (as /sys/kernel/tracing/events/SYS/EVENT/format
 * holds it), then a printk section of up to 255 bytes (its length in one
 * byte), then the payload. They are put into a TRACING_DATA blob (one
 * system "fz", tests/unit/tracing_blob.h), parsed with pk_tracing_parse, and the payload is printed
 * through the event as perf script's trace field and as --raw-trace's
 * fields. The payload is an exact-size heap copy, so ASan catches any read
 * past it. Formats libtraceevent cannot read are expected; crashes, hangs
 * and leaks are not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "core/obuf.h"
#include "script/tracing.h"
#include "../tests/unit/tracing_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *scratch;
	struct tracing_blob_format format;
	size_t len, plen, raw_size;
	struct tep_handle *tep;
	struct tep_event **events;
	struct pk_buf blob;
	uint8_t *raw;

	if (size < 3)
		return 0;
	len = (size_t)data[0] | (size_t)data[1] << 8;
	if (len > size - 3)
		return 0;
	plen = data[2 + len];
	if (plen > size - 3 - len)
		return 0;
	raw_size = size - 3 - len - plen;
	if (!scratch && !(scratch = calloc(1, PK_TRACE_SCRATCH)))
		return 0;
	pk_buf_init(&blob);
	format = (struct tracing_blob_format){ data + 2, len };
	tep = tracing_blob(&blob, "fz", &format, 1, data + 3 + len, plen) ? NULL
		: pk_tracing_parse(blob.data, blob.len);
	pk_buf_release(&blob);
	if (!tep)
		return 0;
	events = tep_list_events(tep, TEP_EVENT_SORT_ID);
	raw = malloc(raw_size ? raw_size : 1);
	if (events && events[0] && raw) {
		struct trace_seq seq;
		struct pk_obuf o;

		memcpy(raw, data + 3 + len + plen, raw_size);
		if (pk_obuf_init(&o, NULL) == 0) {
			trace_seq_init(&seq);
			for (int fields = 0; fields < 2; fields++) {
				o.len = 0;
				pk_tracing_print(tep, &seq, scratch, (uint64_t)events[0]->id, 0, raw,
						 (uint32_t)raw_size, fields, &o);
			}
			trace_seq_destroy(&seq);
			pk_obuf_release(&o);
		}
	}
	free(raw);
	pk_tracing_free(tep);
	return 0;
}
