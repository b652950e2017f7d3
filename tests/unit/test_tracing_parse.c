/*
 * The TRACING_DATA parser (lib/script/tracing.c) on hand-built blobs: the
 * printk-format section, whose lines are filtered before libtraceevent
 * reads them, with its last line ending the section without a newline (a
 * read past the section's copy before, which ASan reports), with only lines
 * it drops, with a well-formed list, and with formats of fewer than 3
 * bytes (libtraceevent read before them); then a payload printed through a
 * format of the blob, as text and as --raw-trace's fields; formats
 * libtraceevent would crash on, left out with a warning, by the checks or
 * by a trial run; and no format of the running kernel refused.
 */
#include <glob.h>
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
#include "tracing_blob.h"

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
 * The blob of the "test" system: @copies copies of format @extra
 * (@extra_len bytes), then event "demo"; @printk its printk section. Its
 * size (0 out of memory: nothing parses).
 */
static size_t build_copies(struct pk_buf *x, const char *printk, const char *extra, size_t extra_len,
			   unsigned copies)
{
	struct tracing_blob_format f[16];

	if (copies >= sizeof(f) / sizeof(f[0]))
		return 0;
	for (unsigned i = 0; i < copies; i++)
		f[i] = (struct tracing_blob_format){ extra, extra_len };
	f[copies] = (struct tracing_blob_format){ event_format, sizeof(event_format) - 1 };
	return tracing_blob(x, "test", f, copies + 1, printk, strlen(printk)) ? 0 : x->len;
}

/* The blob with event "demo" after format @extra (@extra_len bytes) when given. */
static size_t build(struct pk_buf *x, const char *printk, const char *extra, size_t extra_len)
{
	return build_copies(x, printk, extra, extra_len, extra ? 1 : 0);
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

static unsigned n_warnings;

static void on_log(enum pk_log_level level, const char *fmt, va_list ap)
{
	if (level == PK_LOG_WARN) {
		vsnprintf(warning, sizeof(warning), fmt, ap);
		n_warnings++;
	}
}

#define BAD_HEAD "name: bad\nID: 8\nformat:\n\tfield:int x"
/* A format as the kernel lays it out: common fields, a blank line, the event's, a blank line. */
#define KERNEL_HEAD "name: bad\nID: 8\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n" \
	"\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\nprint fmt: "
#define BAD_PRINT(text, warning) { KERNEL_HEAD text, sizeof(KERNEL_HEAD text) - 1, warning }
#define BAD(text, warning) { BAD_HEAD text, sizeof(BAD_HEAD text) - 1, warning }

/*
 * Formats libtraceevent 1.7 crashes on (found by fuzz_report and
 * fuzz_tracing): each is left out with a warning naming it, what it holds
 * and where, and the blob's other event still prints. Formats close to them
 * that it reads are kept.
 */
static void test_crashing_formats(struct pk_buf *x)
{
	static const struct { const char *text; size_t len; const char *warning; } bad[] = {
		BAD("[", "a '[' with nothing after it (byte 36 of"),
		BAD("[ \t", "a '[' with nothing after it (byte 36 of"),
		BAD("[\xfb;\toffset:8;", "a byte 0xfb that is not text (byte 37 of"),
		BAD("[\x01]", "a byte 0x01 that is not text (byte 37 of"),
		BAD("[ \0" "4];\toffset:8;", "a byte 0x00 that is not text (byte 38 of"),
		BAD(" [\t\r\v\f\x80", "a byte 0x80 that is not text (byte 42 of"),
		BAD_PRINT("\"%d\",__print_symbolic(REC->i, {1, \"a\"})\n", "REC->i, which is none of its fields (byte 164 of"),
		BAD_PRINT("\"%d\", __print_flags(REC->xy, \"|\", {1, \"a\"})\n",
			  "REC->xy, which is none of its fields (byte 162 of"),
	};
	static const char *const good[] = {
		BAD_HEAD "[\r\n2];\toffset:8;\tsize:8;\tsigned:1;\n\nprint fmt: \"%d\", REC->x[0]\n",
		BAD_HEAD "s[2];\toffset:8;\tsize:8;\tsigned:1;\n\tfield:__data_loc char[] name;\toffset:16;\t"
		"size:4;\tsigned:0;\n\nprint fmt: \"%s REC->y \\\" REC->z %s\", __print_symbolic(REC->xs[0], "
		"{1, \"a\"}), __get_str(name)\n",
		KERNEL_HEAD "\"%d %s\", REC->x, __print_flags(REC->x, \"|\", {1, \"a\"})\n",
	};

	pk_log_set_callback(on_log);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tep_handle *tep;

		warning[0] = 0;
		tep = pk_tracing_parse(x->data, build(x, "", bad[i].text, bad[i].len));
		ok(tep != NULL, "crashing format %zu: the blob parses, no crash", i);
		ok(strstr(warning, "tracepoint 'test:bad': its format has ") && strstr(warning, bad[i].warning),
		   "crashing format %zu: warned, %s: %s", i, bad[i].warning, warning);
		ok(tep && !tep_find_event(tep, 8) && tep_find_event(tep, 7),
		   "crashing format %zu: its event is left out, the other read", i);
		if (tep)
			demo_prints(tep, false, "crashing format, the other event:", i);
		pk_tracing_free(tep);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct tep_handle *tep;

		warning[0] = 0;
		tep = pk_tracing_parse(x->data, build(x, "", good[i], strlen(good[i])));
		ok(tep && tep_find_event(tep, 8) && !warning[0], "a format close to them %zu is read, no warning (%s)",
		   i, warning);
		pk_tracing_free(tep);
	}
	pk_log_set_callback(NULL);
}

/*
 * Formats that pass those checks and still crash libtraceevent 1.7 (found
 * by fuzz_tracing, minimized): a division by zero, NULL fields. A trial run
 * in a child process finds them; each is left out with a warning, and the
 * blob's other event prints.
 */
static void test_trial(struct pk_buf *x)
{
	static const struct { const char *text, *name; int id; } crashing[] = {
		{ "name:o\nID:5\nformat:\nfield:r d;offset:4;size:4;signed:1;\n\nfield:e v;offset:8;size:4;signed:0;\n"
		  "field:t r;offset:6;size:8;signed:0;\nfield:t r;offset:4;size:4;signed:0;\n"
		  "field:t s;offset:8;size:4;signed:0;\nfield:p d;offset:0;size:4;signed:0;\n\n"
		  "print fmt:\"\",((t)((v))),((u)((v)((0))))>w%l", "o", 5 },
		{ "name:t\nID:2\nformat:\nfield:s r;offset:4;size:4;signed:1;\n\nfield:r m[];offset:0;size:4;signed:1;\n\n"
		  "print fmt:\"\",1?e:6;", "t", 2 },
		{ "name:o\nID:5\nformat:\nfield:s d;offset:4;size:4;signed:1;\n\nfield:t v;offset:8;size:4;signed:0;\n"
		  "field:t r;offset:6;size:8;signed:0;\nfield:t r;offset:4;size:0;\nfield:t b;offset:8;size:4;signed:0;\n"
		  "field:n o;offset:2;size:2;signed:0;\nfield:h d;offset:0;size:4;signed:0;\n\nprint fmt:\"\",s[0];", "o", 5 },
	};

	pk_log_set_callback(on_log);
	for (size_t i = 0; i < sizeof(crashing) / sizeof(crashing[0]); i++) {
		struct tep_handle *tep;
		char want[96];

		warning[0] = 0;
		tep = pk_tracing_parse(x->data, build(x, "", crashing[i].text, strlen(crashing[i].text)));
		ok(tep != NULL, "trial %zu: the blob parses, no crash", i);
		snprintf(want, sizeof(want), "tracepoint 'test:%s': libtraceevent crashed reading its format in a trial run",
			 crashing[i].name);
		ok(strstr(warning, want) != NULL, "trial %zu: warned: %s", i, warning);
		ok(tep && !tep_find_event(tep, crashing[i].id) && tep_find_event(tep, 7),
		   "trial %zu: its event is left out, the other read", i);
		if (tep)
			demo_prints(tep, false, "trial, the other event:", i);
		pk_tracing_free(tep);
	}

	/* seven crashing formats in a row: each left out, by seven children; eight: the blob */
	for (unsigned copies = 7; copies <= 8; copies++) {
		struct tep_handle *tep;

		warning[0] = 0;
		n_warnings = 0;
		tep = pk_tracing_parse(x->data, build_copies(x, "", crashing[1].text, strlen(crashing[1].text), copies));
		if (copies == 7) {
			ok(tep && tep_find_event(tep, 7) && n_warnings == 7,
			   "7 crashing formats: each left out with a warning (%u), the other read", n_warnings);
			if (tep)
				demo_prints(tep, false, "7 crashing formats, the other event:", 0);
		} else {
			ok(!tep && strstr(warning, "libtraceevent crashed on 8 of its parts in trial runs") && n_warnings == 8,
			   "8 crashing formats: no tracing data, 7 warnings and then: %s (%u)", warning, n_warnings);
		}
		pk_tracing_free(tep);
	}
	pk_log_set_callback(NULL);
}

/*
 * A record whose __data_loc cpumask lies outside it, or is empty: libtraceevent
 * 1.7 would size its bitmask buffer from an uninitialized length
 * (malloc(3183856186), found by fuzz_tracing). It prints without its
 * fields, warned once; a good record of the same event prints its mask.
 */
static void test_bad_records(struct pk_buf *x)
{
	static const char cpumask[] =
		"name: ipi_send_cpumask\nID: 9\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:__data_loc cpumask_t cpumask;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"cpumask=%s callsite=%p\", __get_cpumask(cpumask), REC->callsite\n";
	static const struct { uint16_t off, len; const char *want; } rec[] = {
		{ 24, 8, "cpumask=0-3 callsite=(nil)" },
		{ 40, 8, "" },           /* past the record's 32 bytes */
		{ 30, 8, "" },           /* across its end */
		{ 24, 0, "" },           /* empty */
		{ 24, 8, "cpumask=0-3 callsite=(nil)" },
	};
	static uint8_t scratch[PK_TRACE_SCRATCH];
	struct tep_handle *tep = pk_tracing_parse(x->data, build(x, "", cpumask, sizeof(cpumask) - 1));
	struct trace_seq seq;
	struct pk_obuf o;

	ok(tep && tep_find_event(tep, 9), "the cpumask event is read");
	if (!tep || pk_obuf_init(&o, NULL)) {
		pk_tracing_free(tep);
		return;
	}
	pk_log_set_callback(on_log);
	n_warnings = 0;
	trace_seq_init(&seq);
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++) {
		uint8_t raw[32] = { 9, 0 };

		memcpy(raw + 8, &rec[i].off, 2);
		memcpy(raw + 10, &rec[i].len, 2);
		raw[24] = 0x0f;
		o.len = 0;
		pk_tracing_print(tep, &seq, scratch, 9, 0, raw, sizeof(raw), 0, &o);
		pk_obuf_putc(&o, '\0');
		is_str((const char *)o.buf, rec[i].want, "cpumask at %u, %u bytes: '%s'", rec[i].off, rec[i].len,
		       rec[i].want);
	}
	ok(n_warnings == 1 && strstr(warning, "tracepoint 'test:ipi_send_cpumask': a sample's dynamic field "
				     "'cpumask' lies outside it or is empty"),
	   "warned once (%u): %s", n_warnings, warning);
	pk_log_set_callback(NULL);
	trace_seq_destroy(&seq);
	pk_obuf_release(&o);
	pk_tracing_free(tep);
}

/*
 * Every format of the running kernel (/sys/kernel/tracing/events, where
 * readable) passes the check: the kernel writes none it refuses.
 */
static void test_kernel_formats(void)
{
	const char *pattern = "/sys/kernel/tracing/events/*/*/format";
	size_t n = 0, refused = 0;
	char *buf = malloc(1 << 20);
	glob_t g;

	if (!buf || glob(pattern, 0, NULL, &g) != 0) {
		ok(1, "# SKIP no readable %s", pattern);
		free(buf);
		return;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f = fopen(g.gl_pathv[i], "r");
		size_t len, at;
		char what[96];

		if (!f)
			continue;
		len = fread(buf, 1, (1 << 20) - 1, f);
		fclose(f);
		n++;
		if (pk_tracing_format_fault(buf, len, &at, what, sizeof(what))) {
			if (refused++ < 5)
				diag("%s: %s (byte %zu)", g.gl_pathv[i], what, at);
		}
	}
	globfree(&g);
	free(buf);
	if (n < 10) {
		ok(1, "# SKIP only %zu kernel formats readable", n);
		return;
	}
	is_int(refused, 0, "none of the kernel's %zu tracepoint formats is refused", n);
}

int main(void)
{
	static const char *const printks[] = {
		"ffffffff81000000 : \"last line without a newline\"",
		"not an address line\nffffffff81000010 :\"no blank\"",
		"ffffffff81000000 : \"one\"\nffffffff81000008 : \"two\"\n",
		"ffffffff81000000 : \"x\nffffffff81000008 : \"\nffffffff81000010 : ab\n",
	};
	struct pk_buf blob, *x = &blob;

	pk_buf_init(x);
	for (size_t i = 0; i < sizeof(printks) / sizeof(printks[0]); i++) {
		struct tep_handle *tep = pk_tracing_parse(x->data, build(x, printks[i], NULL, 0));

		ok(tep != NULL, "printk section %zu: the blob parses", i);
		if (tep)
			demo_prints(tep, true, "printk section", i);
		pk_tracing_free(tep);
	}
	test_crashing_formats(x);
	test_trial(x);
	test_bad_records(x);
	test_kernel_formats();
	pk_buf_release(x);
	return done_testing();
}
