/*
 * Text codecs of the gpu recording: UTF-8 validation (JSON strings must be
 * UTF-8, fdinfo and comm may not be) and base64 for fdinfo text that is not.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "recording_int.h"

/* ---- UTF-8 and base64 ------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at @s (RFC 3629: no overlong forms, no surrogates), or 0. */
size_t utf8_seq(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t k;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		k = 1, cp = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		k = 2, cp = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		k = 3, cp = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n <= k)
		return 0;
	for (size_t j = 1; j <= k; j++) {
		if ((s[j] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[j] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k + 1;
}

bool utf8_valid(const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0, k; i < n; i += k)
		if (!(k = utf8_seq(s + i, n - i)))
			return false;
	return true;
}

static const char b64_alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of @n bytes as a new JSON string, or NULL. */
json_object *b64_json(const unsigned char *s, size_t n)
{
	size_t olen = (n + 2) / 3 * 4, o = 0;
	json_object *j;
	char *out;

	if (n > (SIZE_MAX - 3) / 4 * 3 || !(out = malloc(olen + 1)))
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		out[o++] = b64_alphabet[v >> 18 & 63];
		out[o++] = b64_alphabet[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64_alphabet[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64_alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	j = json_object_new_string_len(out, (int)o);
	free(out);
	return j;
}

static int b64_value(unsigned char c)
{
	const char *p = c ? strchr(b64_alphabet, c) : NULL;

	return p ? (int)(p - b64_alphabet) : -1;
}

/* Decode @n base64 characters into @out. 0, -EINVAL (not base64) or -ENOMEM. */
int b64_decode(const char *s, size_t n, struct pk_buf *out)
{
	int err;

	out->len = 0;
	if (n % 4)
		return -EINVAL;
	err = pk_buf_reserve(out, n / 4 * 3);
	if (err)
		return err;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		uint32_t x = 0;

		for (int k = 0; k < 4; k++) {
			unsigned char c = (unsigned char)s[i + k];

			if (c == '=' && i + 4 == n && k >= 2) {
				v[k] = 0;
				pad++;
			} else if (pad || (v[k] = b64_value(c)) < 0) {
				return -EINVAL;
			}
			x = x << 6 | (uint32_t)v[k];
		}
		out->data[out->len++] = (char)(x >> 16);
		if (pad < 2)
			out->data[out->len++] = (char)(x >> 8);
		if (pad < 1)
			out->data[out->len++] = (char)x;
	}
	out->data[out->len] = '\0';
	return 0;
}
