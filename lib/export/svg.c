/*
 * Flame graph SVG: the folded stacks drawn as an icicle turned upside down,
 * root ("all") at the bottom, each frame a rectangle as wide as the samples
 * that pass through it, siblings ordered by name, in one self-contained SVG
 * file (no external resources) whose embedded script (svg_script.c) gives
 * hover details, click to zoom, reset and search.
 *
 * Frames narrower than 0.1 pixel at full width are left out, as are their
 * descendants. Colours are a warm palette chosen by a hash of the name, so
 * a function keeps its colour across graphs. Every frame group carries its
 * start, width (samples) and depth as data-s/data-c/data-d.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "export/internal.h"
#include "export/svg.h"

#define SVG_W 1200
#define XPAD 10
#define FRAME_H 16
#define FONT 12
#define MIN_W 0.1

struct svg {
	struct pk_export *e;
	uint64_t *tot;               /* inclusive weight per node */
	uint64_t *start;             /* start offset per node */
	uint32_t *order;             /* nodes sorted by (parent, name) */
};

static const char *node_name(const struct pk_export *e, uint32_t n)
{
	const struct pk_exp_node *nd = &e->trie.nodes[n];

	if (!n)
		return "all";
	return pk_exp_str(&e->str, nd->depth == 1 ? (uint32_t)(nd->key & 0xffffffffu) : (uint32_t)nd->key);
}

static int cmp_sib(const void *a, const void *b, void *ctx)
{
	const struct pk_export *sort_e = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct pk_exp_node *nx = &sort_e->trie.nodes[x], *ny = &sort_e->trie.nodes[y];

	if (nx->parent != ny->parent)
		return nx->parent < ny->parent ? -1 : 1;
	return strcmp(node_name(sort_e, x), node_name(sort_e, y));
}

/* XML text with &<>"' escaped; control characters and invalid UTF-8 become '?'. */
static void xml_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, shown = 0;

	while (i < len && shown < max) {
		unsigned char c = p[i];
		int n = 1;

		if (c >= 0x80) {
			n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
			for (int k = 1; k < n; k++)
				if (i + (size_t)k >= len || (p[i + k] & 0xc0) != 0x80)
					n = 0;
			if (!n) {
				fputc('?', f);
				i++;
				shown++;
				continue;
			}
			fwrite(p + i, 1, (size_t)n, f);
		} else if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&apos;", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f);
		else
			fputc(c, f);
		i += (size_t)n;
		shown++;
	}
}

static void colour(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	*r = 205 + (int)(h % 51);
	*g = (int)((h >> 8) % 231);
	*b = (int)((h >> 20) % 56);
}

static void frame(FILE *f, struct svg *s, uint32_t n, double scale, int height, uint64_t total)
{
	const char *name = node_name(s->e, n);
	uint32_t depth = n ? s->e->trie.nodes[n].depth : 0;
	double x = XPAD + (double)s->start[n] * scale, w = (double)s->tot[n] * scale;
	double y = height - 2 * FONT - 10 - (double)(depth + 1) * FRAME_H;
	size_t fit = w < 3 * FONT * 0.59 + 6 ? 0 : (size_t)((w - 6) / (FONT * 0.59));
	size_t len = strlen(name);
	int r, g, b;

	colour(name, &r, &g, &b);
	fprintf(f, "<g class=\"f\" data-s=\"%" PRIu64 "\" data-c=\"%" PRIu64 "\" data-d=\"%u\"><title>",
		s->start[n], s->tot[n], depth);
	xml_text(f, name, SIZE_MAX);
	fprintf(f, " (%" PRIu64 " %s, %.2f%%)</title>", s->tot[n],
		s->e->opts.weight_by_period ? "period" : s->tot[n] == 1 ? "sample" : "samples",
		total ? 100.0 * (double)s->tot[n] / (double)total : 0.0);
	fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
		"data-fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
		x, y, w, FRAME_H - 1, r, g, b, r, g, b);
	fprintf(f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + 10.5);
	if (fit >= 3) {
		if (len > fit) {
			xml_text(f, name, fit - 2);
			fputs("..", f);
		} else
			xml_text(f, name, SIZE_MAX);
	}
	fputs("</text></g>\n", f);
}

int pk_exp_write_svg(struct pk_export *e, FILE *f, struct pk_diag *d)
{
	const struct pk_exp_trie *t = &e->trie;
	struct svg s = { .e = e };
	uint64_t *c = NULL, *p = NULL, *rel = NULL, total;
	uint32_t maxdepth = 0, nsib = 0;
	double scale;
	int height, err;
	const char *title = e->opts.sz >= offsetof(struct pk_export_opts, title) + sizeof(e->opts.title) &&
			    e->opts.title ? e->opts.title : "Flame Graph";

	if ((err = pk_exp_totals(t, &c, &p)))
		return pk_diag_fail(d, err, "out of memory");
	s.tot = e->opts.weight_by_period ? p : c;
	s.start = calloc(t->n, sizeof(*s.start));
	rel = calloc(t->n, sizeof(*rel));
	s.order = calloc(t->n, sizeof(*s.order));
	if (!s.start || !rel || !s.order) {
		err = pk_diag_fail(d, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t n = 1; n < t->n; n++) {
		s.order[nsib++] = n;
		if (t->nodes[n].depth > maxdepth)
			maxdepth = t->nodes[n].depth;
	}
	qsort_r(s.order, nsib, sizeof(*s.order), cmp_sib, e);
	for (uint32_t i = 0; i < nsib; i++) {   /* offset of each frame inside its parent */
		uint32_t n = s.order[i], prev = i ? s.order[i - 1] : 0;

		rel[n] = i && t->nodes[prev].parent == t->nodes[n].parent ? rel[prev] + s.tot[prev] : 0;
	}
	for (uint32_t n = 1; n < t->n; n++)   /* parents come before their children */
		s.start[n] = s.start[t->nodes[n].parent] + rel[n];
	total = s.tot[0];
	scale = total ? (double)(SVG_W - 2 * XPAD) / (double)total : 0;
	height = (int)(maxdepth + 1) * FRAME_H + FONT * 3 + 2 * FONT + 10;

	fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init(evt)\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-xpad=\"%d\" data-total=\"%" PRIu64 "\">\n",
		SVG_W, height, SVG_W, height, XPAD, total);
	fputs("<!-- flame graph written by perfkit: frames are g elements of class f with data-s (start), "
	      "data-c (samples) and data-d (depth) -->\n", f);
	fputs("<defs><linearGradient id=\"bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", f);
	fprintf(f, "<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: %dpx; fill: #000; }\n"
		"g.f text { pointer-events: none; } g.f:hover rect { stroke: #000; stroke-width: 0.5; cursor: pointer; }\n"
		"g.parent { opacity: 0.5; } .hide { display: none; } .btn { cursor: pointer; }\n"
		"#title { font-size: 17px; text-anchor: middle; }</style>\n", FONT);
	fputs("<script type=\"text/ecmascript\"><![CDATA[\n", f);
	fputs(pk_exp_svg_script, f);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#bg)\"/>\n", SVG_W, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"%d\">", SVG_W / 2, FONT * 2);
	xml_text(f, title, SIZE_MAX);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" class=\"btn hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n", XPAD, FONT * 2);
	fprintf(f, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"%d\" text-anchor=\"end\">Search</text>\n",
		SVG_W - XPAD, FONT * 2);
	fprintf(f, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		SVG_W - XPAD, height - FONT / 2 - 5);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, height - FONT / 2 - 5);
	fputs("<g id=\"frames\">\n", f);
	frame(f, &s, 0, scale, height, total);
	for (uint32_t n = 1; n < t->n; n++) {
		/* narrow frames are dropped; children are never wider than their parent */
		if ((double)s.tot[n] * scale < MIN_W)
			continue;
		frame(f, &s, n, scale, height, total);
	}
	fputs("</g>\n</svg>\n", f);
	err = 0;
out:
	free(c);
	free(p);
	free(rel);
	free(s.start);
	free(s.order);
	return err;
}
