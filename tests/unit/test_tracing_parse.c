/*
 * The TRACING_DATA parser (lib/script/tracing.c) on hand-built blobs: the
 * printk-format section, whose lines are filtered before libtraceevent
 * reads them, with its last line ending the section without a newline (a
 * read past the section's copy before, which ASan reports), with only lines
 * it drops, with a well-formed list, and with formats of fewer than 3
 * bytes (libtraceevent read before them); then a payload printed through a
 * format of the blob, as text and as --raw-trace's fields; formats with a
 * '[' libtraceevent would crash on, left out with a warning.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

/*
 * A version 0.6 little-endian blob with the "test" system's event "demo"
 * (after @extra, @extra_len bytes, when given) and @printk as its printk
 * section.
 */
static size_t build(struct blob *x, const char *printk, const char *extra, size_t extra_len)
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
	put_u32(x, extra ? 2 : 1);
	if (extra) {
		put_u64(x, extra_len);
		put(x, extra, extra_len);
	}
	put_u64(x, sizeof(event_format) - 1);
	put(x, event_format, sizeof(event_format) - 1);
	put_u32(x, 0);                          /* kallsyms */
	put_u32(x, (uint32_t)strlen(printk));
	put(x, printk, strlen(printk));
	put_u64(x, 0);                          /* saved cmdlines */
	return x->n;
}

/* Event 7's payload: fd 3, name "abc", buf 0x2010. */
static const uint8_t demo_raw[32] = { 7, 0, 0, 0, 42, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c', [24] = 0x10, [25] = 0x20 };

/* Event "demo" of @tep prints its payload as its format says, and with @raw_fields as perf 6.1's raw fields. */
static void demo_prints(struct tep_handle *tep, bool raw_fields, const char *what, size_t i)
{
	static uint8_t scratch[PK_TRACE_SCRATCH];
	struct trace_seq seq;
	struct pk_obuf o;

	if (pk_obuf_init(&o, NULL))
		return;
	trace_seq_init(&seq);
	is_int(pk_tracing_print(tep, &seq, scratch, 7, 0, demo_raw, sizeof(demo_raw), 0, &o), 0,
	       "%s %zu: the payload prints", what, i);
	pk_obuf_putc(&o, '\0');
	is_str((const char *)o.buf, "fd=3 name=abc", "%s %zu: as its format says", what, i);
	if (raw_fields) {
		o.len = 0;
		pk_tracing_print(tep, &seq, scratch, 7, 0, demo_raw, sizeof(demo_raw), 1, &o);
		pk_obuf_putc(&o, '\0');
		is_str((const char *)o.buf, " fd=3 name=abc buf=0x2010", "%s %zu: perf 6.1's raw fields", what, i);
	}
	trace_seq_destroy(&seq);
	pk_obuf_release(&o);
}

static char warning[512];

static void on_log(enum pk_log_level level, const char *fmt, va_list ap)
{
	if (level == PK_LOG_WARN)
		vsnprintf(warning, sizeof(warning), fmt, ap);
}

#define BAD_HEAD "name: bad\nID: 8\nformat:\n\tfield:int x"

/*
 * Formats whose field has a '[' with no token after it, on which
 * libtraceevent 1.7 crashes (found by fuzz_report): each is left out with
 * a warning naming it and the '[' byte, and the blob's other event still
 * prints; a real array field is read.
 */
static void test_bracket(struct blob *x)
{
	static const struct { const char *text; size_t len; } bad[] = {
		{ BAD_HEAD "[", sizeof(BAD_HEAD "[") - 1 },
		{ BAD_HEAD "[ \t", sizeof(BAD_HEAD "[ \t") - 1 },
		{ BAD_HEAD "[\xfb;\toffset:8;", sizeof(BAD_HEAD "[\xfb;\toffset:8;") - 1 },
		{ BAD_HEAD "[\x01]", sizeof(BAD_HEAD "[\x01]") - 1 },
		{ BAD_HEAD "[ \0" "4];\toffset:8;", sizeof(BAD_HEAD "[ \0" "4];\toffset:8;") - 1 },
		{ BAD_HEAD " [\t\r\v\f\x80", sizeof(BAD_HEAD " [\t\r\v\f\x80") - 1 },
	};
	static const char good[] = BAD_HEAD "[\r\n2];\toffset:8;\tsize:8;\tsigned:1;\n\n"
				   "print fmt: \"%d\", REC->x[0]\n";
	pk_log_set_callback(on_log);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tep_handle *tep;
		char want[80];
		size_t at = (size_t)(strchr(bad[i].text, '[') - bad[i].text);

		warning[0] = 0;
		tep = pk_tracing_parse(x->b, build(x, "", bad[i].text, bad[i].len));
		ok(tep != NULL, "bad '[' %zu: the blob parses, no crash", i);
		snprintf(want, sizeof(want), "(byte %zu of the format)", at);
		ok(strstr(warning, "tracepoint 'test:bad'") && strstr(warning, want),
		   "bad '[' %zu: warned, %s: %s", i, want, warning);
		ok(tep && !tep_find_event(tep, 8) && tep_find_event(tep, 7),
		   "bad '[' %zu: its event is left out, the other read", i);
		if (tep)
			demo_prints(tep, false, "bad '[', the other event:", i);
		pk_tracing_free(tep);
	}
	warning[0] = 0;
	{
		struct tep_handle *tep = pk_tracing_parse(x->b, build(x, "", good, sizeof(good) - 1));

		ok(tep && tep_find_event(tep, 8) && !warning[0],
		   "an array field 'int x[\\r\\n2]' (a newline is a token) is read, no warning (%s)",
		   warning);
		pk_tracing_free(tep);
	}
	pk_log_set_callback(NULL);
}

int main(void)
{
	static const char *const printks[] = {
		"ffffffff81000000 : \"last line without a newline\"",
		"not an address line\nffffffff81000010 :\"no blank\"",
		"ffffffff81000000 : \"one\"\nffffffff81000008 : \"two\"\n",
		"ffffffff81000000 : \"x\nffffffff81000008 : \"\nffffffff81000010 : ab\n",
	};
	struct blob *x = malloc(sizeof(*x));

	for (size_t i = 0; x && i < sizeof(printks) / sizeof(printks[0]); i++) {
		struct tep_handle *tep = pk_tracing_parse(x->b, build(x, printks[i], NULL, 0));

		ok(tep != NULL, "printk section %zu: the blob parses", i);
		if (tep)
			demo_prints(tep, true, "printk section", i);
		pk_tracing_free(tep);
	}
	if (x)
		test_bracket(x);
	free(x);
	return done_testing();
}
