/*
 * The text output buffer (core/obuf.h): text written to the caller's FILE
 * with one fwrite per PK_OBUF_SIZE bytes, or kept in memory without a FILE,
 * and number formatting done by hand (decimal, hex, padding), because
 * long outputs are mostly numbers and printf's parsing dominates a
 * printf-based printer.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include "core/obuf.h"

int pk_obuf_init(struct pk_obuf *o, FILE *f)
{
	o->buf = malloc(PK_OBUF_SIZE);
	o->len = 0;
	o->cap = o->buf ? PK_OBUF_SIZE : 0;
	o->f = f;
	o->err = o->buf ? 0 : -ENOMEM;
	return o->err;
}

int pk_obuf_grow(struct pk_obuf *o, size_t n)
{
	if (o->err)
		return o->err;
	if (pk_array_grow((void **)&o->buf, &o->cap, o->len + n, 1, PK_OBUF_SIZE))
		o->err = -ENOMEM;
	return o->err;
}

void pk_obuf_release(struct pk_obuf *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
	o->cap = 0;
}

int pk_obuf_flush(struct pk_obuf *o)
{
	if (!o->f)
		return o->err;
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->err = errno ? -errno : -EIO;
	o->len = 0;
	return o->err;
}

void pk_obuf_write(struct pk_obuf *o, const char *s, size_t n)
{
	if (!o->buf)
		return;
	if (!o->f) {
		char *p = n ? pk_obuf_room(o, n) : NULL;

		if (p) {
			memcpy(p, s, n);
			o->len += n;
		}
		return;
	}
	while (n) {
		size_t room, k;

		if (o->len == o->cap)
			pk_obuf_flush(o);
		room = o->cap - o->len;
		k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void pk_obuf_spaces(struct pk_obuf *o, size_t n)
{
	static const char sp[] = "                                                                ";

	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;

		pk_obuf_write(o, sp, k);
		n -= k;
	}
}

void pk_obuf_pad(struct pk_obuf *o, const char *s, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -width : width);

	if (width > 0 && n < w)
		pk_obuf_spaces(o, w - n);
	pk_obuf_write(o, s, n);
	if (width < 0 && n < w)
		pk_obuf_spaces(o, w - n);
}

const char pk_hex_digits[17] = "0123456789abcdef";

void pk_fmt_bytes_hex(char *out, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = pk_hex_digits[b[i] >> 4];
		out[2 * i + 1] = pk_hex_digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

size_t pk_fmt_hex(char *p, uint64_t v)
{
	char tmp[16];
	size_t n = 0, i;

	do {
		tmp[n++] = pk_hex_digits[v & 15];
		v >>= 4;
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

void pk_obuf_uint(struct pk_obuf *o, uint64_t v, int width)
{
	char tmp[24];

	pk_obuf_pad(o, tmp, pk_fmt_uint(tmp, v), width);
}

void pk_obuf_int(struct pk_obuf *o, int64_t v, int width)
{
	char tmp[24];
	size_t n = 0;

	if (v < 0) {
		tmp[n++] = '-';
		n += pk_fmt_uint(tmp + n, (uint64_t)0 - (uint64_t)v);
	} else {
		n = pk_fmt_uint(tmp, (uint64_t)v);
	}
	pk_obuf_pad(o, tmp, n, width);
}

void pk_obuf_hex(struct pk_obuf *o, uint64_t v, int width)
{
	char tmp[16];

	pk_obuf_pad(o, tmp, pk_fmt_hex(tmp, v), width);
}

void pk_obuf_hex_alt(struct pk_obuf *o, uint64_t v)
{
	if (v)
		pk_obuf_write(o, "0x", 2);
	pk_obuf_hex(o, v, 0);
}

void pk_obuf_printf(struct pk_obuf *o, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		pk_obuf_write(o, tmp, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);

		if (!big)
			return;
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		pk_obuf_write(o, big, (size_t)n);
		free(big);
	}
}
