/*
 * perf report --raw-trace: a tracepoint payload as " name=value" for each
 * of its fields (not the common ones), by the rules of the libtraceevent
 * that perf 6.1 carries (its tep_print_fields), which newer libtraceevents
 * changed (they print by the event's format string): pointers and longs in
 * hex, other integers in decimal (signed ones by their size, shorts and
 * chars padded to 2 and 1), strings as text while they are printable, other
 * arrays as "ARRAY[0a, 0b]" (after which perf prints that field so always).
 * Reads stay inside the zero-padded copy of the payload.
 */
#include <ctype.h>
#include <string.h>
#include <event-parse.h>
#include "script/tracing.h"

static int printable(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return 0;
	return 1;
}

int pk_tracing_field_bytes(struct tep_handle *tep, const struct tep_format_field *f, const uint8_t *data,
			   size_t size, size_t *off, size_t *len)
{
	if (f->offset < 0 || f->size < 0 || (size_t)f->offset + (size_t)f->size > size)
		return -1;
	*off = (size_t)f->offset;
	*len = (size_t)f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long loc = tep_read_number(tep, data + f->offset, f->size);

		*off = loc & 0xffff;
		*len = (loc >> 16) & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			*off += (size_t)f->offset + (size_t)f->size;
	}
	return *off + *len > size ? -1 : 0;
}

static void print_array(struct tep_handle *tep, struct tep_format_field *f, const uint8_t *data, size_t size,
			struct pk_obuf *o)
{
	size_t off, len;

	if (pk_tracing_field_bytes(tep, f, data, size, &off, &len))
		return;
	if ((f->flags & TEP_FIELD_IS_STRING) && printable(data + off, len)) {
		pk_obuf_write(o, (const char *)data + off, strnlen((const char *)data + off, size - off));
		return;
	}
	pk_obuf_puts(o, "ARRAY[");
	for (size_t i = 0; i < len; i++)
		pk_obuf_printf(o, "%s%02x", i ? ", " : "", data[off + i]);
	pk_obuf_putc(o, ']');
	f->flags &= ~(unsigned long)TEP_FIELD_IS_STRING;
}

static void print_number(struct tep_handle *tep, const struct tep_format_field *f, const uint8_t *data,
			 struct pk_obuf *o)
{
	unsigned long long v = tep_read_number(tep, data + f->offset, f->size);

	if (f->flags & TEP_FIELD_IS_POINTER)
		pk_obuf_printf(o, "0x%llx", v);
	else if (!(f->flags & TEP_FIELD_IS_SIGNED))
		pk_obuf_printf(o, (f->flags & TEP_FIELD_IS_LONG) ? "0x%llx" : "%llu", v);
	else if (f->size == 4)
		pk_obuf_printf(o, (f->flags & TEP_FIELD_IS_LONG) ? "0x%x" : "%d", (int)v);
	else if (f->size == 2)
		pk_obuf_printf(o, "%2d", (short)v);
	else if (f->size == 1)
		pk_obuf_printf(o, "%1d", (signed char)v);
	else
		pk_obuf_printf(o, "%lld", (long long)v);
}

void pk_tracing_print_fields(struct tep_handle *tep, struct tep_event *ev, const uint8_t *data, size_t size,
			     struct pk_obuf *o)
{
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		size_t off, len;

		pk_obuf_printf(o, " %s=", f->name);
		if (f->flags & TEP_FIELD_IS_ARRAY)
			print_array(tep, f, data, size, o);
		else if (!pk_tracing_field_bytes(tep, f, data, size, &off, &len))
			print_number(tep, f, data, o);
	}
}
