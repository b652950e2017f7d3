/*
 * The text of `perfkit top --stdio`: per event, perf top's header line
 * (samples per second, kernel and exact-ip shares, lost samples, the event
 * and the target), a dashed rule, and the rows of the interval as
 * "Overhead  Shared Object  Symbol" with the DSO column as wide as its
 * longest name. Written into a pk_buf: the caller decides where it goes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/top.h>

PK_API const char *pk_top_row_symbol(const struct pk_top_row *r, char *buf, size_t sz)
{
	if (r->sym)
		snprintf(buf, sz, "[%c] %s", r->level, r->sym);
	else
		snprintf(buf, sz, "[%c] %#.16" PRIx64, r->level, r->addr);
	return buf;
}

PK_API const char *pk_top_event_desc(const struct pk_top_event_stats *ev, char *buf, size_t sz)
{
	const struct perf_event_attr *a = ev->attr;

	if (a && a->freq)
		snprintf(buf, sz, "%" PRIu64 "Hz %s", (uint64_t)a->sample_freq, ev->name);
	else if (a && a->sample_period)
		snprintf(buf, sz, "%" PRIu64 " %s", (uint64_t)a->sample_period, ev->name);
	else
		snprintf(buf, sz, "%s", ev->name);
	return buf;
}

static int row_shown(const struct pk_top_row *r, const struct pk_top_format_opts *o)
{
	int kernel = r->level == 'k' || r->level == 'g';

	if (o->hide_kernel && kernel)
		return 0;
	if (o->hide_user && !kernel)
		return 0;
	return 1;
}

/* Append @line cut at @width columns (0: whole) and a newline. */
static int put_line(struct pk_buf *out, const char *line, unsigned width)
{
	size_t n = strlen(line);

	if (width && n > width)
		n = width;
	if (pk_buf_append(out, line, n) || pk_buf_append(out, "\n", 1))
		return -ENOMEM;
	return 0;
}

static int format_event(const struct pk_top_interval *iv, size_t evi, const struct pk_top_format_opts *o,
			struct pk_buf *out)
{
	const struct pk_top_event_stats *ev = &iv->events[evi];
	double secs = (double)iv->duration_ns / 1e9;
	double rate = secs > 0 ? (double)ev->samples / secs : 0.0;
	double kpct = ev->samples ? (double)ev->kernel * 100.0 / (double)ev->samples : 0.0;
	double epct = ev->samples ? (double)ev->exact * 100.0 / (double)ev->samples : 0.0;
	unsigned rule = o->width ? o->width : 79;
	char desc[256], line[1024], sym[512];
	int dso_w = (int)strlen("Shared Object");
	size_t shown = 0;

	pk_top_event_desc(ev, desc, sizeof(desc));
	snprintf(line, sizeof(line),
		 "   PerfTop:%8.0f irqs/sec  kernel:%4.1f%%  exact: %4.1f%% lost: %" PRIu64 "/%" PRIu64
		 " [%s]%s%s%s",
		 rate, kpct, epct, iv->nr_lost, iv->nr_lost_total, desc,
		 o->target ? ",  (" : "", o->target ? o->target : "", o->target ? ")" : "");
	if (put_line(out, line, 0))
		return -ENOMEM;
	for (unsigned i = 0; i < rule; i++)
		if (pk_buf_append(out, "-", 1))
			return -ENOMEM;
	if (pk_buf_append(out, "\n\n", 2))
		return -ENOMEM;

	/* the DSO column fits the longest name among the rows shown */
	for (size_t i = 0; i < iv->nr_rows; i++) {
		const struct pk_top_row *r = &iv->rows[i];

		if (r->event != evi || !row_shown(r, o))
			continue;
		if (o->max_rows && shown == o->max_rows)
			break;
		shown++;
		if ((int)strlen(r->dso) > dso_w)
			dso_w = (int)strlen(r->dso);
	}
	snprintf(line, sizeof(line), "  Overhead  %-*s  Symbol", dso_w, "Shared Object");
	if (put_line(out, line, o->width))
		return -ENOMEM;
	shown = 0;
	for (size_t i = 0; i < iv->nr_rows; i++) {
		const struct pk_top_row *r = &iv->rows[i];

		if (r->event != evi || !row_shown(r, o))
			continue;
		if (o->max_rows && shown == o->max_rows)
			break;
		shown++;
		snprintf(line, sizeof(line), "  %7.2f%%  %-*s  %s", r->percent, dso_w, r->dso,
			 pk_top_row_symbol(r, sym, sizeof(sym)));
		if (put_line(out, line, o->width))
			return -ENOMEM;
	}
	return 0;
}

PK_API int pk_top_format(const struct pk_top_interval *iv, const struct pk_top_format_opts *opts,
			 struct pk_buf *out)
{
	struct pk_top_format_opts o = { .sz = sizeof(o) };

	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	for (size_t i = 0; i < iv->nr_events; i++) {
		if (i && pk_buf_append(out, "\n", 1))
			return -ENOMEM;
		if (format_event(iv, i, &o, out))
			return -ENOMEM;
	}
	return 0;
}
