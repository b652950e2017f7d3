/*
 * The TRACING_DATA parser (lib/script/tracing.c) on hand-built blobs: the
 * printk-format section, whose lines are filtered before libtraceevent
 * reads them, with its last line ending the section without a newline (a
 * read past the section's copy before, which ASan reports), with only lines
 * it drops, with a well-formed list, and with formats of fewer than 3
 * bytes (libtraceevent read before them); then a payload printed through a
 * format of the blob, as text and as --raw-trace's fields.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "core/obuf.h"
#include "script/tracing.h"
#include "../tap.h"

struct blob {
	uint8_t b[8192];
	size_t n;
};

static void put(struct blob *x, const void *p, size_t n)
{
	memcpy(x->b + x->n, p, n);
	x->n += n;
}

static void put_u32(struct blob *x, uint32_t v) { put(x, &v, 4); }
static void put_u64(struct blob *x, uint64_t v) { put(x, &v, 8); }

static const char event_format[] =
	"name: demo\nID: 7\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int fd;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char name[8];\toffset:12;\tsize:8;\tsigned:1;\n"
	"\tfield:void * buf;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd=%d name=%s\", REC->fd, REC->name\n";

/* A version 0.6 little-endian blob with one "test" system event and @printk as its printk section. */
static size_t build(struct blob *x, const char *printk)
{
	static const char magic[10] = "\x17\x08\x44tracing";
	static const char page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";

	x->n = 0;
	put(x, magic, sizeof(magic));
	put(x, "0.6", 4);
	put(x, "\0\x08", 2);                    /* little-endian, 8-byte longs */
	put_u32(x, 4096);
	put(x, "header_page", 12);
	put_u64(x, sizeof(page) - 1);
	put(x, page, sizeof(page) - 1);
	put(x, "header_event", 13);
	put_u64(x, 0);
	put_u32(x, 0);                          /* ftrace formats */
	put_u32(x, 1);                          /* systems */
	put(x, "test", 5);
	put_u32(x, 1);
	put_u64(x, sizeof(event_format) - 1);
	put(x, event_format, sizeof(event_format) - 1);
	put_u32(x, 0);                          /* kallsyms */
	put_u32(x, (uint32_t)strlen(printk));
	put(x, printk, strlen(printk));
	put_u64(x, 0);                          /* saved cmdlines */
	return x->n;
}

int main(void)
{
	static const char *const printks[] = {
		"ffffffff81000000 : \"last line without a newline\"",
		"not an address line\nffffffff81000010 :\"no blank\"",
		"ffffffff81000000 : \"one\"\nffffffff81000008 : \"two\"\n",
		"ffffffff81000000 : \"x\nffffffff81000008 : \"\nffffffff81000010 : ab\n",
	};
	static uint8_t scratch[PK_TRACE_SCRATCH];
	uint8_t raw[32] = { 7, 0, 0, 0, 42, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c' };
	struct blob *x = malloc(sizeof(*x));

	raw[24] = 0x10;
	raw[25] = 0x20;
	for (size_t i = 0; x && i < sizeof(printks) / sizeof(printks[0]); i++) {
		struct tep_handle *tep = pk_tracing_parse(x->b, build(x, printks[i]));
		struct pk_obuf o;

		ok(tep != NULL, "printk section %zu: the blob parses", i);
		if (!tep || pk_obuf_init(&o, NULL))
			continue;
		struct trace_seq seq;

		trace_seq_init(&seq);
		is_int(pk_tracing_print(tep, &seq, scratch, 7, 0, raw, sizeof(raw), 0, &o), 0,
		       "printk section %zu: the payload prints", i);
		pk_obuf_putc(&o, '\0');
		is_str((const char *)o.buf, "fd=3 name=abc", "printk section %zu: as its format says", i);
		o.len = 0;
		pk_tracing_print(tep, &seq, scratch, 7, 0, raw, sizeof(raw), 1, &o);
		pk_obuf_putc(&o, '\0');
		is_str((const char *)o.buf, " fd=3 name=abc buf=0x2010", "printk section %zu: perf 6.1's raw fields", i);
		trace_seq_destroy(&seq);
		pk_obuf_release(&o);
		pk_tracing_free(tep);
	}
	free(x);
	return done_testing();
}
