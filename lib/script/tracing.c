/*
 * The TRACING_DATA blob (HEADER_TRACING_DATA feature or pipe-mode record 66)
 * fed to libtraceevent, so tracepoint payloads print as perf prints them.
 *
 * Layout (../shared/reference/perf-data.md §7, feature 1), integers in the
 * writer's byte order as the endianness byte says:
 *
 *   off  size  field
 *   0    10    "\x17\x08\x44tracing"
 *   10   n+1   version string, NUL-terminated ("0.5", "0.6")
 *   .    1     endianness: 1 = big-endian writer
 *   .    1     sizeof(long)
 *   .    4     page size
 *   .    12    "header_page\0"      . 8  size   . size  header_page format
 *   .    13    "header_event\0"     . 8  size   . size  header_event format
 *   .    4     nr ftrace formats    then nr x { u64 size; format text }
 *   .    4     nr systems           then per system { name\0; u32 nr; nr x { u64 size; text } }
 *   .    4     kallsyms size        . size  "addr type name" lines
 *   .    4     printk size          . size  "addr : \"fmt\"" lines
 *   .    8     saved cmdlines size  . size  "pid comm" lines (version >= 0.6)
 *
 * A blob that does not parse leaves trace output empty, with a warning.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include <perfkit/core.h>
#include "script/internal.h"

struct tcur {
	const uint8_t *p;
	size_t len, off;
	int swap;
};

static int take(struct tcur *c, void *out, size_t n)
{
	if (!pk_range_ok(c->off, n, c->len))
		return -1;
	memcpy(out, c->p + c->off, n);
	c->off += n;
	return 0;
}

static int take_u32(struct tcur *c, uint32_t *v)
{
	if (take(c, v, 4))
		return -1;
	if (c->swap)
		*v = bswap_32(*v);
	return 0;
}

static int take_u64(struct tcur *c, uint64_t *v)
{
	if (take(c, v, 8))
		return -1;
	if (c->swap)
		*v = bswap_64(*v);
	return 0;
}

/* A NUL-terminated string at the cursor; NULL if none. */
static const char *take_str(struct tcur *c)
{
	const char *s = (const char *)c->p + c->off;
	const void *nul = memchr(s, 0, c->len - c->off);

	if (!nul)
		return NULL;
	c->off += (size_t)((const char *)nul - s) + 1;
	return s;
}

/* @n bytes at the cursor copied with a NUL appended (libtraceevent wants C strings). */
static char *take_text(struct tcur *c, uint64_t n)
{
	char *t;

	if (!pk_range_ok(c->off, n, c->len))
		return NULL;
	t = malloc((size_t)n + 1);
	if (!t)
		return NULL;
	memcpy(t, c->p + c->off, (size_t)n);
	t[n] = 0;
	c->off += (size_t)n;
	return t;
}

/* The tracepoint name of format @text ("name: NAME" first, the space optional), or "?". */
static void format_name(const char *text, char *name, size_t sz)
{
	if (!strncmp(text, "name:", 5)) {
		text += 5 + strspn(text + 5, " \t");
		snprintf(name, sz, "%.*s", (int)strcspn(text, "\n"), text);
	} else {
		snprintf(name, sz, "?");
	}
}

/*
 * libtraceevent could not read the format of tracepoint @sys:@name
 * (a format it does not understand, or no memory: it reports some of its
 * failed allocations as a bad format, and a bad name as no memory). The
 * event's fields are not printed. (A format whose print line it cannot
 * read is kept, and its lines say "[FAILED TO PARSE]".)
 */
static void warn_bad_format(struct tep_handle *tep, enum tep_errno err, const char *sys,
			    const char *name)
{
	char why[128];

	if (tep_strerror(tep, err, why, sizeof(why)))
		snprintf(why, sizeof(why), "error %d", (int)err);
	pk_log(PK_LOG_WARN, "tracepoint '%s:%s': libtraceevent cannot read its format (%s): its "
	       "fields will not be printed", sys, name, why);
}

static int parse_formats(struct tep_handle *tep, struct tcur *c, const char *sys, struct pk_trace_trial *t)
{
	enum tep_errno err;
	uint32_t nr;
	char what[96];
	size_t at;
	int fault;

	if (take_u32(c, &nr))
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t size;
		char *text, name[65];

		if (take_u64(c, &size) || !(text = take_text(c, size)))
			return -1;
		format_name(text, name, sizeof(name));
		if ((fault = pk_tracing_format_fault(text, (size_t)size, &at, what, sizeof(what))) < 0) {
			pk_log(PK_LOG_WARN, "tracepoint '%s:%s': out of memory checking its format: its "
			       "fields will not be printed", sys, name);
		} else if (fault) {
			pk_log(PK_LOG_WARN, "tracepoint '%s:%s': its format has %s (byte %zu of the format), "
			       "which libtraceevent cannot read: its fields will not be printed", sys, name,
			       what, at);
		} else if (!pk_trace_trial_step(t)) {
			if (!t->gave_up)     /* (when it did, pk_tracing_parse says so) */
				pk_log(PK_LOG_WARN, "tracepoint '%s:%s': libtraceevent crashed reading its format "
				       "in a trial run: its fields will not be printed", sys, name);
		} else if ((err = tep_parse_event(tep, text, (unsigned long)size, sys))) {
			warn_bad_format(tep, err, sys, name);
		}
		free(text);
	}
	return 0;
}

/*
 * libtraceevent's printk parser reads one byte past a line's ':' without
 * checking the line has one, and before a format shorter than 3 bytes:
 * keep only lines of the form `ADDR : "fmt"` (the kernel's), blanking the
 * others in place. Returns 1 if any is left.
 */
static int keep_printk_lines(char *text)
{
	char *out = text, *line = text;

	while (*line) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *colon = memchr(line, ':', n);
		int good = colon && colon > line && (size_t)(colon - line) + 3 <= n && colon[1] == ' ' &&
			   ((*line >= '0' && *line <= '9') || (*line >= 'a' && *line <= 'f'));

		/*
		 * and it steps back two bytes from the format's last (after a
		 * leading quote) to look for "\n": a format of 3 bytes at least
		 */
		if (good) {
			size_t rest = n - (size_t)(colon - line) - 2;

			if (colon[2] == '"')
				rest--;
			good = rest >= 3;
		}

		if (good) {
			memmove(out, line, n);
			out += n;
			if (nl)         /* (a last line has its NUL there: keep it) */
				*out++ = '\n';
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	*out = 0;
	return out != text;
}

/* A section libtraceevent crashed on in a trial run (not a format: formats say which they are). */
static void warn_crashed(const struct pk_trace_trial *t, const char *section, const char *consequence)
{
	if (!t->gave_up)
		pk_log(PK_LOG_WARN, "tracing data: libtraceevent crashed reading its %s in a trial run: %s",
		       section, consequence);
}

/* The tep handle of blob @blob (@len bytes), each libtraceevent call a step of trial @t. */
static struct tep_handle *parse_blob(const void *blob, size_t len, struct pk_trace_trial *t)
{
	static const char magic[10] = "\x17\x08\x44tracing";
	struct tcur c = { .p = blob, .len = len };
	struct tep_handle *tep;
	const char *version;
	uint8_t big, long_size;
	uint32_t page_size, nr_sys, sz32;
	uint64_t size;
	char tag[13], *text;

	if (!blob || len < sizeof(magic) || memcmp(blob, magic, sizeof(magic)))
		goto bad;
	c.off = sizeof(magic);
	version = take_str(&c);
	if (!version || take(&c, &big, 1) || take(&c, &long_size, 1))
		goto bad;
	c.swap = (big != 0) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (take_u32(&c, &page_size))
		goto bad;
	tep = tep_alloc();
	if (!tep) {
		pk_log(PK_LOG_WARN, "out of memory reading the tracing data: tracepoint fields will not be "
		       "printed");
		return NULL;
	}
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									      : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, (int)page_size);

	if (take(&c, tag, 12) || memcmp(tag, "header_page", 12) || take_u64(&c, &size) ||
	    !(text = take_text(&c, size)))
		goto bad_tep;
	if (pk_trace_trial_step(t))
		tep_parse_header_page(tep, text, (unsigned long)size, long_size);
	else
		warn_crashed(t, "header_page", "tracepoint fields may print wrong");
	free(text);
	if (take(&c, tag, 13) || memcmp(tag, "header_event", 13) || take_u64(&c, &size) ||
	    !pk_range_ok(c.off, size, c.len))
		goto bad_tep;
	c.off += (size_t)size;
	if (parse_formats(tep, &c, "ftrace", t))
		goto bad_tep;
	if (take_u32(&c, &nr_sys))
		goto bad_tep;
	for (uint32_t i = 0; i < nr_sys; i++) {
		const char *sys = take_str(&c);

		if (!sys || parse_formats(tep, &c, sys, t))
			goto bad_tep;
	}
	/* the rest only improves symbol and string printing: stop quietly if short */
	if (take_u32(&c, &sz32) || !(text = take_text(&c, sz32)))
		return tep;
	if (sz32 && pk_trace_trial_step(t))
		tep_parse_kallsyms(tep, text);
	else if (sz32)
		warn_crashed(t, "kallsyms", "kernel symbols in tracepoint fields will not be named");
	free(text);
	if (take_u32(&c, &sz32) || !(text = take_text(&c, sz32)))
		return tep;
	if (sz32 && keep_printk_lines(text)) {
		if (pk_trace_trial_step(t))
			tep_parse_printk_formats(tep, text);
		else
			warn_crashed(t, "printk formats", "some tracepoint strings will print as addresses");
	}
	free(text);
	if (strcmp(version, "0.6") >= 0 && !take_u64(&c, &size) && (text = take_text(&c, size))) {
		if (size && pk_trace_trial_step(t))
			tep_parse_saved_cmdlines(tep, text);
		else if (size)
			warn_crashed(t, "saved command lines", "some tracepoint fields will not name their task");
		free(text);
	}
	return tep;
bad_tep:
	tep_free(tep);
bad:
	pk_log(PK_LOG_WARN, "tracing data cannot be parsed: tracepoint fields will not be printed");
	return NULL;
}

struct parse_run {
	const void *blob;
	size_t len;
	struct tep_handle *tep;
};

static void parse_body(void *ctx, struct pk_trace_trial *t)
{
	struct parse_run *r = ctx;

	r->tep = parse_blob(r->blob, r->len, t);
}

struct tep_handle *pk_tracing_parse(const void *blob, size_t len)
{
	struct parse_run r = { blob, len, NULL };
	struct pk_trace_trial t;

	if (pk_trace_trial_run(&t, parse_body, &r, PK_TRACE_TRIAL_STALL_MS)) {
		pk_log(PK_LOG_WARN, "tracing data: libtraceevent crashed on %d of its parts in trial runs: "
		       "tracepoint fields will not be printed", PK_TRACE_TRIAL_MAX);
		pk_tracing_free(r.tep);
		return NULL;
	}
	return r.tep;
}

void pk_tracing_free(struct tep_handle *tep)
{
	if (tep)
		tep_free(tep);
}

int pk_tracing_print(struct tep_handle *tep, struct trace_seq *seq, uint8_t *scratch,
		     uint64_t id, int cpu, const void *raw, uint32_t raw_size, int fields,
		     struct pk_obuf *o)
{
	struct tep_record rec;
	struct tep_event *ev;
	const char *bad;

	if (!tep || !raw || id > INT32_MAX)
		return 0;
	ev = tep_find_event(tep, (int)id);
	if (!ev)
		return 0;
	if (raw_size > PK_TRACE_SCRATCH / 2)
		return 0;
	/*
	 * libtraceevent reads fields at the offsets the format text gives,
	 * __data_loc ones up to 64 KiB + 64 KiB past the start: print from a
	 * zero-padded copy so a lying record cannot make it read past the end.
	 */
	memcpy(scratch, raw, raw_size);
	memset(&rec, 0, sizeof(rec));
	rec.cpu = cpu;
	rec.size = (int)raw_size;
	rec.data = scratch;
	trace_seq_reset(seq);
	if (fields) {
		pk_tracing_print_fields(tep, ev, scratch, PK_TRACE_SCRATCH, o);
		memset(scratch, 0, raw_size);
		return o->err ? -ENOMEM : 0;
	}
	if ((bad = pk_tracing_record_fault(tep, ev, scratch, raw_size))) {
		static int warned;

		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			pk_log(PK_LOG_WARN, "tracepoint '%s:%s': a sample's dynamic field '%s' lies outside it "
			       "or is empty: such samples print without their fields", ev->system, ev->name, bad);
		memset(scratch, 0, raw_size);
		return 0;
	}
	tep_print_event(tep, seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(seq);
	memset(scratch, 0, raw_size);
	if (seq->buffer)
		pk_obuf_write(o, seq->buffer, seq->len);
	return seq->state == TRACE_SEQ__MEM_ALLOC_FAILED ? -ENOMEM : 0;
}
