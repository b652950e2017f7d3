/*
 * Tracepoint formats libtraceevent 1.7 would crash on (a NULL strcmp or a
 * NULL field), found by fuzz_report and fuzz_tracing, so that tracing.c
 * leaves them out with a warning instead of handing them over. None of them
 * is a format a kernel writes:
 *
 *   - a byte that is not text (a NUL, a control byte other than a space,
 *     0x7f and up): its tokenizer gives no token for one, and its parser
 *     takes the token it got in places (a field's '[', print-fmt
 *     arguments). Kernel formats are ASCII.
 *   - a '[' followed only by spaces up to the end: no token after a
 *     field's '[', the same NULL.
 *   - REC->NAME in the print line where NAME is none of the format's
 *     fields: inside __print_flags() and __print_symbolic() it marks the
 *     field it did not find. The kernel writes the print line from the
 *     same declaration as the fields (__entry->NAME), so each is one.
 *
 * and records it would allocate gigabytes for (pk_tracing_record_fault):
 *
 *   - a __data_loc or __rel_loc field whose bytes lie outside the record,
 *     or an empty one printed as a bitmask or cpumask: its bitmask printer
 *     then sizes its buffer from an uninitialized length (found by
 *     fuzz_tracing: malloc(3183856186)). The kernel writes neither.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <perfkit/core.h>
#include "script/tracing.h"

struct span {
	const char *p;
	size_t n;
};

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);

	return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* Offset of a byte that is not text, or of a '[' with only spaces after it; -1 if none. */
static long lexical_fault(const char *text, size_t n, int *bracket)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)text[i];

		if ((ch < ' ' && (ch < '\t' || ch > '\r')) || ch > '~') {
			*bracket = 0;
			return (long)i;
		}
	}
	/* (every byte is text now: only the last '[' can have nothing after it) */
	while (n && text[n - 1] != '\n' && is_space(text[n - 1]))
		n--;
	if (n && text[n - 1] == '[') {
		*bracket = 1;
		return (long)n - 1;
	}
	return -1;
}

/*
 * The names of the fields declared in @text (@n bytes, up to its print
 * line @print): in each "field:DECL;" the identifier that ends DECL, less
 * any [..] after it. Sorted, malloc'd (*@out), their count; -1 out of memory.
 */
static long field_names(const char *text, const char *print, struct span **out)
{
	size_t cap = 0, count = 0;
	struct span *v = NULL;

	for (const char *f = memmem(text, (size_t)(print - text), "field:", 6); f;
	     f = memmem(f + 6, (size_t)(print - f - 6), "field:", 6)) {
		const char *decl = f + 6, *semi = memchr(decl, ';', (size_t)(print - decl)), *e, *s;

		if (!semi)
			break;
		e = semi;
		while (e > decl && (is_space(e[-1]) || e[-1] == ']')) {
			if (e[-1] == ']') {
				while (e > decl && e[-1] != '[')
					e--;
				if (e > decl)
					e--;
			} else {
				e--;
			}
		}
		s = e;
		while (s > decl && is_ident(s[-1]))
			s--;
		if (s == e)
			continue;
		if (pk_array_grow((void **)&v, &cap, count + 1, sizeof(*v), 16)) {
			free(v);
			return -1;
		}
		v[count++] = (struct span){ s, (size_t)(e - s) };
	}
	if (count)
		qsort(v, count, sizeof(*v), span_cmp);
	*out = v;
	return (long)count;
}

/* Offset of a REC->NAME outside quotes in @print..@end naming none of @names; -1 if none. */
static long unknown_field(const char *text, const char *print, const char *end, const struct span *names,
			  size_t n_names, struct span *which)
{
	int quoted = 0;

	for (const char *p = print; p < end; p++) {
		const char *s;
		struct span key;

		if (quoted) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				quoted = 0;
			continue;
		}
		if (*p == '"') {
			quoted = 1;
			continue;
		}
		if ((size_t)(end - p) < 5 || memcmp(p, "REC->", 5) || (p > print && is_ident(p[-1])))
			continue;
		for (s = p + 5; s < end && is_ident(*s); s++)
			;
		key = (struct span){ p + 5, (size_t)(s - p - 5) };
		if (!n_names || !bsearch(&key, names, n_names, sizeof(*names), span_cmp)) {
			*which = key;
			return p - text;
		}
		p = s - 1;
	}
	return -1;
}

int pk_tracing_format_fault(const char *text, size_t n, size_t *at, char *what, size_t sz)
{
	const char *print = memmem(text, n, "print fmt:", 10);
	struct span *names = NULL, which;
	long off, count;
	int bracket;

	if ((off = lexical_fault(text, n, &bracket)) >= 0) {
		*at = (size_t)off;
		if (bracket)
			snprintf(what, sz, "a '[' with nothing after it");
		else
			snprintf(what, sz, "a byte 0x%02x that is not text", (unsigned char)text[off]);
		return 1;
	}
	if (!print)
		return 0;
	if ((count = field_names(text, print, &names)) < 0)
		return -1;
	off = unknown_field(text, print, text + n, names, (size_t)count, &which);
	free(names);
	if (off < 0)
		return 0;
	*at = (size_t)off;
	snprintf(what, sz, "REC->%.*s, which is none of its fields", (int)(which.n < 64 ? which.n : 64), which.p);
	return 1;
}

/* Whether field @f is the field of a top-level __get_bitmask() or __get_cpumask() argument of @ev. */
static int printed_as_bitmask(const struct tep_event *ev, const struct tep_format_field *f)
{
	for (const struct tep_print_arg *a = ev->print_fmt.args; a; a = a->next)
		if ((a->type == TEP_PRINT_BITMASK || a->type == TEP_PRINT_CPUMASK) && a->bitmask.field == f)
			return 1;
	return 0;
}

const char *pk_tracing_record_fault(struct tep_handle *tep, const struct tep_event *ev, const uint8_t *data,
				    uint32_t size)
{
	for (const struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		size_t off, len;

		if ((f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    (pk_tracing_field_bytes(tep, f, data, size, &off, &len) || (len == 0 && printed_as_bitmask(ev, f))))
			return f->name;
	}
	return NULL;
}
