/*
 * The full-screen view of `perfkit top` over ncurses: pk_top_format()'s
 * text of an interval cut to the screen's width and height, the header line
 * in reverse video, percentages colored as perf colors them (red from 5%,
 * green from 0.5%), and a key line at the bottom. newterm() is used rather
 * than initscr() so that a terminal ncurses cannot drive is an error
 * returned to the caller instead of an exit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ncurses.h>
#include <perfkit/top.h>

struct pk_top_view {
	SCREEN *scr;
	int color;
};

enum { PAIR_HOT = 1, PAIR_WARM = 2 };

PK_API int pk_top_view_open(struct pk_top_view **out)
{
	struct pk_top_view *v;

	static const short colors[] = { [PAIR_HOT - 1] = COLOR_RED, [PAIR_WARM - 1] = COLOR_GREEN };
	int err;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = pk_screen_open(&v->scr, colors, 2, &v->color);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	return 0;
}

PK_API void pk_top_view_close(struct pk_top_view *v)
{
	if (!v)
		return;
	pk_screen_close(v->scr);
	free(v);
}

/* The color pair of a row line ("  %7.2f%%  ..."), 0 for other lines. */
static int row_pair(const char *line)
{
	char *end;
	double pct;

	if (strncmp(line, "  ", 2) || !strchr(line, '%'))
		return 0;
	pct = strtod(line, &end);
	if (end == line || *end != '%')
		return 0;
	return pct >= 5.0 ? PAIR_HOT : pct >= 0.5 ? PAIR_WARM : 0;
}

PK_API int pk_top_view_draw(struct pk_top_view *v, const struct pk_top_interval *iv,
			    const struct pk_top_format_opts *opts)
{
	struct pk_top_format_opts o = { .sz = sizeof(o) };
	struct pk_buf text;
	char keys[160];
	int y = 0, rows = LINES, cols = COLS;
	const char *p;

	if (opts)
		memcpy(&o, opts, opts->sz && opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	o.width = cols > 0 ? (unsigned)cols : 80;
	/* header, rule, blank, column header above the rows; key line below */
	o.max_rows = rows > 6 ? (size_t)(rows - 6) : 1;
	pk_buf_init(&text);
	if (iv && pk_top_format(iv, &o, &text)) {
		pk_buf_release(&text);
		return -ENOMEM;
	}
	erase();
	if (!iv)
		mvaddstr(0, 0, "   PerfTop: waiting for the first interval...");
	for (p = text.data; p && *p && y < rows - 1; y++) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		int pair = v->color ? row_pair(p) : 0;

		if (len > cols)
			len = cols;
		if (!strncmp(p, "   PerfTop:", 11))
			attron(A_REVERSE);
		if (pair && len >= 10) {
			/* only the percentage is colored, as perf does */
			attron(COLOR_PAIR(pair));
			mvaddnstr(y, 0, p, 10);
			attroff(COLOR_PAIR(pair));
			addnstr(p + 10, len - 10);
		} else {
			mvaddnstr(y, 0, p, len);
		}
		attroff(A_REVERSE);
		p = nl ? nl + 1 : p + strlen(p);
	}
	snprintf(keys, sizeof(keys), " q quit   K hide kernel symbols (%s)   U hide user symbols (%s)",
		 o.hide_kernel ? "yes" : "no", o.hide_user ? "yes" : "no");
	attron(A_REVERSE);
	mvaddnstr(rows - 1, 0, keys, cols);
	attroff(A_REVERSE);
	refresh();
	pk_buf_release(&text);
	return 0;
}

PK_API int pk_top_view_key(struct pk_top_view *v, int timeout_ms)
{
	int c;

	(void)v;
	timeout(timeout_ms);
	c = getch();
	if (c == ERR)
		return 0;
	if (c == KEY_RESIZE)
		return PK_TOP_VIEW_RESIZE;
	return c;
}
