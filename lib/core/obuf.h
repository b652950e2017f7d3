/*
 * The library's text output buffer (obuf.c), for printers of hundreds of
 * thousands of lines (perf script, oa report): text is formatted into a
 * buffer with hand-written number formatting and written to a FILE 128 KB
 * at a time; or, without a FILE, kept in memory, growing, for another
 * thread to write. 128 KB stays in the L2 cache and is few pages to fault
 * in a fresh process: with 1 MB, `perfkit oa report` of a 20,000-report
 * recording took 114 page faults more (2 ms in a VM) and perf script was
 * no faster.
 */
#ifndef PK_CORE_OBUF_H
#define PK_CORE_OBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/core.h>

#define PK_OBUF_SIZE (128u << 10)

struct pk_obuf {
	char *buf;
	size_t len, cap;
	FILE *f;                     /* NULL: in memory, the buffer grows */
	int err;                     /* first write error (-errno), or -ENOMEM in memory */
};

/* A buffer writing to @f, or kept in memory when @f is NULL. 0 or -ENOMEM. */
int pk_obuf_init(struct pk_obuf *o, FILE *f);
void pk_obuf_release(struct pk_obuf *o);
/* Write the text to the FILE (in memory: nothing). Returns o->err. */
int pk_obuf_flush(struct pk_obuf *o);
/* Room for @n bytes in memory: 0, or -ENOMEM (also recorded in o->err). */
int pk_obuf_grow(struct pk_obuf *o, size_t n);

/*
 * Where @n more bytes fit (flushes when the buffer is nearly full; in
 * memory, grows). NULL: @n is more than a buffer holds, or out of memory.
 */
static inline char *pk_obuf_room(struct pk_obuf *o, size_t n)
{
	if (n > o->cap - o->len) {
		if (!o->f)
			return pk_obuf_grow(o, n) ? NULL : o->buf + o->len;
		pk_obuf_flush(o);
		if (n > o->cap)
			return NULL;
	}
	return o->buf + o->len;
}

/* The text written after pk_obuf_room() now ends at @end. */
static inline void pk_obuf_wrote(struct pk_obuf *o, const char *end)
{
	o->len = (size_t)(end - o->buf);
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
/* "0123456789abcdef": for printers that write hex digits themselves. */
extern const char pk_hex_digits[17];

#endif
