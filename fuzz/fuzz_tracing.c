/*
 * libFuzzer target for tracepoint formats and payloads (lib/script/tracing.c
 * and trace_fields.c), straight to libtraceevent without a perf.data file
 * around them. The input: a u16 (little-endian) length L, L bytes of one
 * event's format text (as /sys/kernel/tracing/events/SYS/EVENT/format
 * holds it), then a printk section of up to 255 bytes (its length in one
 * byte), then the payload. They are put into a TRACING_DATA blob (one
 * system "fz"), parsed with pk_tracing_parse, and the payload is printed
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static void put(uint8_t *b, size_t *n, const void *p, size_t len)
{
	memcpy(b + *n, p, len);
	*n += len;
}

static void put_u32(uint8_t *b, size_t *n, uint32_t v) { put(b, n, &v, 4); }
static void put_u64(uint8_t *b, size_t *n, uint64_t v) { put(b, n, &v, 8); }

/* The blob around @format (@len bytes) and @printk (@plen bytes): malloc'd, its size in *@n. */
static uint8_t *blob_of(const uint8_t *format, size_t len, const uint8_t *printk, size_t plen, size_t *n)
{
	uint8_t *b = malloc(len + plen + sizeof(header_page) + 128);

	if (!b)
		return NULL;
	*n = 0;
	put(b, n, "\x17\x08\x44tracing", 10);
	put(b, n, "0.6", 4);
	put(b, n, "\0\x08", 2);                 /* little-endian, 8-byte longs */
	put_u32(b, n, 4096);
	put(b, n, "header_page", 12);
	put_u64(b, n, sizeof(header_page) - 1);
	put(b, n, header_page, sizeof(header_page) - 1);
	put(b, n, "header_event", 13);
	put_u64(b, n, 0);
	put_u32(b, n, 0);                       /* ftrace formats */
	put_u32(b, n, 1);                       /* systems */
	put(b, n, "fz", 3);
	put_u32(b, n, 1);
	put_u64(b, n, len);
	put(b, n, format, len);
	put_u32(b, n, 0);                       /* kallsyms */
	put_u32(b, n, (uint32_t)plen);
	put(b, n, printk, plen);
	put_u64(b, n, 0);                       /* saved cmdlines */
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *scratch;
	size_t len, plen, n, raw_size;
	struct tep_handle *tep;
	struct tep_event **events;
	uint8_t *blob, *raw;

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
	blob = blob_of(data + 2, len, data + 3 + len, plen, &n);
	if (!blob)
		return 0;
	tep = pk_tracing_parse(blob, n);
	free(blob);
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
