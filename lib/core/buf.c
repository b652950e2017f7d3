/*
 * Growable byte buffer: append bytes or formatted text, doubling capacity,
 * always NUL-terminated so text can be used as a C string.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/core.h>

void pk_buf_init(struct pk_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void pk_buf_release(struct pk_buf *b)
{
	free(b->data);
	pk_buf_init(b);
}

int pk_buf_reserve(struct pk_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > SIZE_MAX - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int pk_buf_append(struct pk_buf *b, const void *p, size_t n)
{
	int err = pk_buf_reserve(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int pk_buf_printf(struct pk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	err = pk_buf_reserve(b, (size_t)n);
	if (err)
		return err;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int pk_array_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (elem && c > SIZE_MAX / elem)
		return -ENOMEM;
	q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}
