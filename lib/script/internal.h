/*
 * Private declarations of the script module: the output buffer with its
 * hand-written number formatting, per-event-type field sets, and the
 * tracing-data (libtraceevent) glue.
 */
#ifndef PK_SCRIPT_INTERNAL_H
#define PK_SCRIPT_INTERNAL_H

#include <stdio.h>
#include <string.h>
#include <perfkit/script.h>

/* ---- output buffer (out.c) ---- */

#define PK_OBUF_SIZE (1u << 20)

struct pk_obuf {
	char *buf;
	size_t len;
	FILE *f;
	int err;                     /* first write error, -errno */
};

int pk_obuf_init(struct pk_obuf *o, FILE *f);
void pk_obuf_release(struct pk_obuf *o);
int pk_obuf_flush(struct pk_obuf *o);

/* Make sure @n more bytes fit (flushes when the buffer is nearly full). */
static inline char *pk_obuf_room(struct pk_obuf *o, size_t n)
{
	if (o->len + n > PK_OBUF_SIZE) {
		pk_obuf_flush(o);
		if (n > PK_OBUF_SIZE)
			return NULL;
	}
	return o->buf + o->len;
}

void pk_obuf_write(struct pk_obuf *o, const char *s, size_t n);
static inline void pk_obuf_puts(struct pk_obuf *o, const char *s)
{
	pk_obuf_write(o, s, strlen(s));
}
static inline void pk_obuf_putc(struct pk_obuf *o, char c)
{
	char *p = pk_obuf_room(o, 1);

	if (p) {
		*p = c;
		o->len++;
	}
}
void pk_obuf_spaces(struct pk_obuf *o, size_t n);
/* @s right-aligned in @width ("%*s"), or left-aligned when @width < 0 ("%-*s"). */
void pk_obuf_pad(struct pk_obuf *o, const char *s, size_t n, int width);
/* Decimal (signed) right-aligned in @width, or left-aligned when @width < 0. */
void pk_obuf_int(struct pk_obuf *o, int64_t v, int width);
void pk_obuf_uint(struct pk_obuf *o, uint64_t v, int width);
/* Lower-case hex without prefix, right-aligned in @width ("%*lx"). */
void pk_obuf_hex(struct pk_obuf *o, uint64_t v, int width);
/* printf's "%#lx": "0" for zero, else "0x..." */
void pk_obuf_hex_alt(struct pk_obuf *o, uint64_t v);
void pk_obuf_printf(struct pk_obuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Format into a small char array: helpers return the length (decimal: pk_fmt_uint, core.h). */
size_t pk_fmt_hex(char *p, uint64_t v);

/* ---- field sets (fields.c) ---- */

/* perf's output types: PERF_TYPE_HARDWARE..BREAKPOINT, then everything else. */
enum { PK_OT_OTHER = 6, PK_OT_MAX = 7 };

struct pk_field_set {
	uint32_t fields;             /* what is printed */
	uint32_t user_set_fields;    /* named by the user: missing sample bits are errors */
	uint32_t user_unset_fields;  /* removed with -field */
	int user_set;                /* -F touched this type */
	int wildcard_set;            /* set by an -F without a type prefix */
};

static inline int pk_output_type(uint32_t attr_type)
{
	return attr_type < PK_OT_OTHER ? (int)attr_type : PK_OT_OTHER;
}

void pk_script_default_fields(struct pk_field_set set[PK_OT_MAX]);
/* Apply one -F argument to @set. 0 or -EINVAL. */
int pk_script_apply_fields(struct pk_field_set set[PK_OT_MAX], const char *spec, struct pk_diag *d);
/*
 * Check @set against the first event of each type in @data, dropping default
 * fields the events cannot give and failing on requested ones, as perf's
 * evsel__check_attr(). Sets *use_callchain. 0 or -EINVAL with @d set.
 */
int pk_script_check_fields(struct pk_field_set set[PK_OT_MAX], struct pk_perfdata *data,
			   int no_callchain, int *use_callchain, struct pk_diag *d);

/* ---- tracing data (tracing.c) ---- */

struct tep_handle;
/* Build a tep handle from a TRACING_DATA blob. NULL (and a pk_log warning) if it cannot be parsed. */
struct tep_handle *pk_tracing_parse(const void *blob, size_t len);
void pk_tracing_free(struct tep_handle *tep);
/*
 * Append the TEP_PRINT_INFO text of the tracepoint sample to @o (nothing if
 * the event is unknown). @scratch: PK_TRACE_SCRATCH zeroed bytes.
 */
#define PK_TRACE_SCRATCH (256u << 10)
struct trace_seq;
void pk_tracing_print(struct tep_handle *tep, struct trace_seq *seq, uint8_t *scratch,
		      uint64_t id, int cpu, const void *raw, uint32_t raw_size, struct pk_obuf *o);

#endif
