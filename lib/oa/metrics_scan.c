/*
 * Finding the <set> elements of a metric file that may be the one asked for,
 * without parsing the file: a scan of its markup only (start and end tags,
 * comments, processing instructions, CDATA), enough to know each element's
 * depth and each set's bytes. libxml2 then parses only those bytes
 * (metrics.c). A 790 KB file takes well under a millisecond to scan against
 * about 6 ms to parse, and `perfkit oa report` needs one set of it.
 *
 * The scan relies on what XML guarantees of a well-formed file: '<' appears
 * only where markup starts (text and attribute values escape it), so every
 * '<' outside comments, processing instructions and CDATA opens a tag.
 * Anything the scan cannot be sure about is refused with -ENOTSUP and the
 * caller parses the whole file instead.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <perfkit/core.h>
#include "metrics_int.h"

struct spans {
	struct oa_set_span *v;
	size_t n, cap;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool only_spaces(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_space(*p))
			return false;
	return true;
}

static bool starts(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - p) >= n && memcmp(p, s, n) == 0;
}

/* Just past the first @s at or after @p, NULL when there is none. */
static const char *past(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	const char *q = memmem(p, (size_t)(end - p), s, n);

	return q ? q + n : NULL;
}

/* The '>' closing the tag whose name starts at @p; NULL if unclosed or odd. */
static const char *tag_end(const char *p, const char *end)
{
	while (p < end) {
		char c = *p;

		if (c == '"' || c == '\'') {
			p = memchr(p + 1, c, (size_t)(end - p - 1));
			if (!p)
				return NULL;
		} else if (c == '>') {
			return p;
		} else if (c == '<') {
			return NULL;
		}
		p++;
	}
	return NULL;
}

static bool holds(const char *p, const char *end, const char *key, size_t klen)
{
	for (; (size_t)(end - p) >= klen; p++)
		if (strncasecmp(p, key, klen) == 0)
			return true;
	return false;
}

/* The XML declaration, if any, is past and names no encoding but UTF-8. */
static const char *skip_decl(const char *p, const char *end)
{
	const char *q, *enc;

	if (starts(p, end, "\xEF\xBB\xBF"))
		p += 3;
	if (!starts(p, end, "<?xml") || (size_t)(end - p) < 6 || !is_space(p[5]))
		return p;
	if (!(q = past(p, end, "?>")))
		return NULL;
	enc = memmem(p, (size_t)(q - p), "encoding", 8);
	if (enc && !holds(enc, q, "\"utf-8\"", 7) && !holds(enc, q, "'utf-8'", 7))
		return NULL;
	return q;
}

static int add_span(struct spans *s, size_t start, unsigned line)
{
	if (s->n == s->cap && pk_array_grow((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v), 8))
		return -ENOMEM;
	s->v[s->n++] = (struct oa_set_span){ .start = start, .end = 0, .line = line };
	return 0;
}

/* Lines from @from to @to, counted once: the scan moves forward only. */
static unsigned count_lines(const char **from, const char *to, unsigned line)
{
	const char *p = *from;

	while ((p = memchr(p, '\n', (size_t)(to - p))))
		line++, p++;
	*from = to;
	return line;
}

static int scan(const char *buf, const char *end, const char *key, struct spans *s)
{
	const char *p = skip_decl(buf, end), *lines_at = buf;
	size_t klen = strlen(key);
	unsigned line = 1;
	int depth = 0;
	bool root_done = false, in_span = false;

	if (!p)
		return -ENOTSUP;
	for (;;) {
		const char *lt = memchr(p, '<', (size_t)(end - p)), *name, *gt;
		size_t name_len;

		if (depth == 0 && !only_spaces(p, lt ? lt : end))
			return -ENOTSUP;
		if (!lt)
			break;
		if (end - lt < 2)
			return -ENOTSUP;
		if (starts(lt, end, "<!--") || starts(lt, end, "<?") ||
		    (depth > 0 && starts(lt, end, "<![CDATA["))) {
			bool pi = lt[1] == '?', comment = !pi && lt[2] == '-';
			const char *open = pi ? "<?" : comment ? "<!--" : "<![CDATA[";

			/* the close is looked for past the whole opener: "<!-->" does not close */
			p = past(lt + strlen(open), end, pi ? "?>" : comment ? "-->" : "]]>");
			if (!p)
				return -ENOTSUP;
			continue;
		}
		if (lt[1] == '!')
			return -ENOTSUP;       /* DOCTYPE: its entities would change the text */
		if (!(gt = tag_end(lt + 1, end)))
			return -ENOTSUP;
		p = gt + 1;
		if (lt[1] == '/') {
			if (--depth < 0)
				return -ENOTSUP;
			if (depth == 1 && in_span) {
				s->v[s->n - 1].end = (size_t)(p - buf);
				in_span = false;
			}
			root_done = depth == 0;
			continue;
		}
		name = lt + 1;
		for (name_len = 0; name + name_len < gt && !is_space(name[name_len]) &&
				   name[name_len] != '/'; name_len++)
			;
		if (depth == 0 && (root_done || name_len != 7 || memcmp(name, "metrics", 7) ||
				   memmem(lt, (size_t)(gt - lt), "xmlns", 5)))
			return -ENOTSUP;
		if (depth == 1 && name_len == 3 && !memcmp(name, "set", 3)) {
			if (memchr(lt, '&', (size_t)(gt - lt)))
				return -ENOTSUP;
			if (holds(lt, gt, key, klen)) {
				line = count_lines(&lines_at, lt, line);
				if (add_span(s, (size_t)(lt - buf), line))
					return -ENOMEM;
				in_span = true;
			}
		}
		if (gt[-1] != '/') {
			depth++;
		} else if (depth == 0) {
			root_done = true;
		} else if (depth == 1 && in_span) {
			s->v[s->n - 1].end = (size_t)(p - buf);
			in_span = false;
		}
	}
	return root_done && depth == 0 ? 0 : -ENOTSUP;
}

int oa_metrics_scan_sets(const char *buf, size_t len, const char *key, struct oa_set_span **spans,
			 size_t *n)
{
	struct spans s = { 0 };
	int err;

	*spans = NULL;
	*n = 0;
	if (!key || !key[0] || strpbrk(key, "<>&\"'"))
		return -ENOTSUP;
	err = scan(buf, buf + len, key, &s);
	if (err) {
		free(s.v);
		return err;
	}
	*spans = s.v;
	*n = s.n;
	return 0;
}
