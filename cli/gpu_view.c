/*
 * The full-screen view of `perfkit gpu` over ncurses. Layout, top to bottom:
 * a title line in reverse video (scan, interval, counts, sort, filter); per
 * device its name and nodes, the busy of each engine summed over its
 * clients (a bar per engine), and its clients' memory per region; then the
 * client table (or process table, key p) in the order and with the filters
 * of pk_gpu_view_rows(); then what the scan could not see (unreadable
 * processes); and a key line at the bottom. The filter prompt (key f) is
 * edited in the key line without stopping the refreshes. newterm() is used
 * rather than initscr() so that a terminal ncurses cannot drive is an error
 * returned to the caller instead of an exit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ncurses.h>
#include "gpu_view.h"

#define FILTER_MAX 128

struct gpu_view {
	SCREEN *scr;
	int color;
	double delay_s;
	struct pk_gpu_view_opts vo;
	char driver[PK_GPU_NAME_MAX];      /* storage of vo.driver */
	char device[PK_GPU_NAME_MAX];      /* storage of vo.device */
	char filter[FILTER_MAX];           /* the filter as typed, "" for none */
	int editing;                       /* the key line is the filter prompt */
	char edit[FILTER_MAX];
	size_t edit_len;
	int help;                          /* the key line explains the keys */
	char status[160];                  /* a one-time message (bad filter) */
};

enum { PAIR_HOT = 1, PAIR_WARM = 2, PAIR_BAR = 3 };

static const char *const sort_names[] = { "busy", "memory", "pid", "name" };

int gpu_view_open(struct gpu_view **out, double delay_s)
{
	struct gpu_view *v;

	static const short colors[] = {
		[PAIR_HOT - 1] = COLOR_RED, [PAIR_WARM - 1] = COLOR_GREEN, [PAIR_BAR - 1] = COLOR_CYAN,
	};
	int err;

	*out = NULL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = pk_screen_open(&v->scr, colors, 3, &v->color);
	if (err) {
		free(v);
		return err;
	}
	v->delay_s = delay_s;
	v->vo.sort = PK_GPU_SORT_BUSY;
	*out = v;
	return 0;
}

void gpu_view_close(struct gpu_view *v)
{
	if (!v)
		return;
	pk_screen_close(v->scr);
	free(v);
}

/* ---- filters ------------------------------------------------------------------ */

/*
 * Apply a typed filter: space-separated pid=N, driver=NAME, device=KEY
 * (empty clears all). 0, or -EINVAL with v->status saying why and the
 * previous filters kept.
 */
static int set_filter(struct gpu_view *v, const char *text)
{
	char copy[FILTER_MAX], driver[PK_GPU_NAME_MAX] = "", device[PK_GPU_NAME_MAX] = "";
	char *save = NULL, *tok;
	long pid = 0;

	snprintf(copy, sizeof(copy), "%s", text);
	for (tok = strtok_r(copy, " \t,", &save); tok; tok = strtok_r(NULL, " \t,", &save)) {
		char *eq = strchr(tok, '='), *end;

		if (!eq || !eq[1])
			goto bad;
		*eq = '\0';
		if (!strcmp(tok, "pid")) {
			pid = strtol(eq + 1, &end, 10);
			if (*end || pid <= 0 || pid > INT32_MAX)
				goto bad;
		} else if (!strcmp(tok, "driver") && strlen(eq + 1) < sizeof(driver)) {
			snprintf(driver, sizeof(driver), "%s", eq + 1);
		} else if (!strcmp(tok, "device") && strlen(eq + 1) < sizeof(device)) {
			snprintf(device, sizeof(device), "%s", eq + 1);
		} else {
			goto bad;
		}
	}
	v->vo.pid = (pid_t)pid;
	snprintf(v->driver, sizeof(v->driver), "%s", driver);
	snprintf(v->device, sizeof(v->device), "%s", device);
	v->vo.driver = v->driver[0] ? v->driver : NULL;
	v->vo.device = v->device[0] ? v->device : NULL;
	snprintf(v->filter, sizeof(v->filter), "%s", text);
	v->status[0] = '\0';
	return 0;
bad:
	snprintf(v->status, sizeof(v->status),
		 "invalid filter '%.60s': give pid=N, driver=NAME or device=PDEV", text);
	return -EINVAL;
}

/* ---- drawing ---------------------------------------------------------------- */

/* A size as "512B", "12.0K", "3.5M", "1.2G". */
static void fmt_size(char *buf, size_t sz, uint64_t bytes)
{
	static const char units[] = "KMGTP";
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, sz, "%lluB", (unsigned long long)bytes);
		return;
	}
	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, sz, "%.1f%c", v, units[u]);
}

/* A region's size to show: total when printed, else resident. */
static uint64_t region_bytes(const struct pk_fdinfo_region *r)
{
	if (r->fields & (1u << PK_MEM_TOTAL))
		return r->bytes[PK_MEM_TOTAL];
	return r->bytes[PK_MEM_RESIDENT];
}

/* The memory column: the regions' sizes summed, "-" when the file has no memory keys. */
static void fmt_memory(char *buf, size_t sz, const struct pk_fdinfo_region *m, uint32_t n)
{
	uint64_t sum = 0;

	if (!n) {
		snprintf(buf, sz, "-");
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		sum += region_bytes(&m[i]);
	fmt_size(buf, sz, sum);
}

/* Whether a device passes the driver and device filters (the pid filter keeps all). */
static bool device_shown(const struct gpu_view *v, const struct pk_gpu_device_view *dv)
{
	const struct pk_gpu_device *d = dv->dev;

	if (!d)
		return !v->vo.driver && !v->vo.device;
	if (v->vo.driver && strcmp(v->vo.driver, d->driver))
		return false;
	if (v->vo.device && strcmp(v->vo.device, d->key) && strcmp(v->vo.device, d->pdev)) {
		for (uint32_t i = 0; i < d->n_nodes; i++)
			if (!strcmp(v->vo.device, d->nodes[i].name))
				return true;
		return false;
	}
	return true;
}

/* A busy percentage in a @width column ("-" when unknown). */
static int fmt_pct(char *buf, size_t sz, bool has, double pct, int width)
{
	if (has)
		return snprintf(buf, sz, "%*.1f%%", width - 1, pct);
	return snprintf(buf, sz, "%*s", width, "-");
}

/*
 * Line @y: @text cut to @cols (never wrapped), then the busy cell that
 * starts at column @pct_x (width @pct_w; -1: none) colored by its value.
 */
static void put_line(struct gpu_view *v, int y, const char *text, int cols, int pct_x, int pct_w,
		     bool has, double pct)
{
	int pair = !v->color || !has ? 0 : pct >= 50 ? PAIR_HOT : pct >= 1 ? PAIR_WARM : 0;

	mvaddnstr(y, 0, text, cols);
	if (pair && pct_x >= 0 && pct_x + pct_w <= cols)
		mvchgat(y, pct_x, pct_w, A_NORMAL, (short)pair, NULL);
}

/* Append to the line @buf (of @sz) at *@len, never past its end. */
static void line_add(char *buf, size_t sz, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void line_add(char *buf, size_t sz, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= sz)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, sz - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < sz ? *len + (size_t)n : sz - 1;
}

/* The line of a device: key, driver, name, nodes, client count. */
static void draw_device_title(const struct pk_gpu_device_view *dv, int y, int cols)
{
	char line[512];
	size_t len = 0;
	const struct pk_gpu_device *d = dv->dev;

	if (!d) {
		snprintf(line, sizeof(line), " (unknown device)  %u client%s", dv->n_clients,
			 dv->n_clients == 1 ? "" : "s");
	} else {
		len = (size_t)snprintf(line, sizeof(line), " %s  %s", d->key, d->driver);
		if ((d->vendor_name[0] || d->device_name[0]) && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, "  %s%s%s", d->vendor_name,
						d->vendor_name[0] && d->device_name[0] ? " " : "",
						d->device_name);
		for (uint32_t i = 0; i < d->n_nodes && len < sizeof(line); i++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", i ? " " : "  (",
						d->nodes[i].name);
		if (d->n_nodes && len < sizeof(line))
			len += (size_t)snprintf(line + len, sizeof(line) - len, ")");
		if (len < sizeof(line))
			snprintf(line + len, sizeof(line) - len, "  %u client%s", dv->n_clients,
				 dv->n_clients == 1 ? "" : "s");
	}
	attron(A_BOLD);
	mvaddnstr(y, 0, line, cols);
	attroff(A_BOLD);
}

/* A device: its title, one line per engine with a bar, one memory line. Returns the next y. */
static int draw_device(struct gpu_view *v, const struct pk_gpu_device_view *dv, int y, int max_y,
		       int cols)
{
	char line[512];
	int bar_w = cols - 40;

	if (y >= max_y)
		return y;
	draw_device_title(dv, y++, cols);
	if (bar_w > 50)
		bar_w = 50;
	for (uint32_t i = 0; i < dv->n_engines && y < max_y; i++, y++) {
		const struct pk_gpu_engine_sum *e = &dv->engines[i];
		int fill = e->has_busy ? (int)(e->busy_pct / 100.0 * bar_w + 0.5) : 0;
		size_t len = 0;

		line_add(line, sizeof(line), &len, "   %-14.14s", e->name);
		len += (size_t)fmt_pct(line + len, sizeof(line) - len, e->has_busy, e->busy_pct, 7);
		if (e->capacity > 1)
			line_add(line, sizeof(line), &len, " x%-3u", e->capacity);
		else
			line_add(line, sizeof(line), &len, "     ");
		if (bar_w >= 10) {
			line_add(line, sizeof(line), &len, " [");
			for (int k = 0; k < bar_w; k++)
				line_add(line, sizeof(line), &len, "%c", k < fill ? '|' : ' ');
			line_add(line, sizeof(line), &len, "]");
		}
		put_line(v, y, line, cols, 17, 7, e->has_busy, e->busy_pct);
		/* the bar's filled part: after name (17), busy (7), capacity (5) and " [" */
		if (v->color && bar_w >= 10 && fill > 0 && 31 + fill <= cols)
			mvchgat(y, 31, fill, A_NORMAL, PAIR_BAR, NULL);
	}
	if (dv->n_memory && y < max_y) {
		size_t len = 0;

		line_add(line, sizeof(line), &len, "   memory        ");
		for (uint32_t i = 0; i < dv->n_memory; i++) {
			const struct pk_fdinfo_region *m = &dv->memory[i];
			char tot[16], res[16];

			fmt_size(tot, sizeof(tot), region_bytes(m));
			if ((m->fields & (1u << PK_MEM_TOTAL)) && (m->fields & (1u << PK_MEM_RESIDENT))) {
				fmt_size(res, sizeof(res), m->bytes[PK_MEM_RESIDENT]);
				line_add(line, sizeof(line), &len, "%s %s (res %s)  ", m->name, tot, res);
			} else {
				line_add(line, sizeof(line), &len, "%s %s  ", m->name, tot);
			}
		}
		put_line(v, y++, line, cols, -1, 0, false, 0);
	}
	return y;
}

/* The engines of a client or process as "render 45.2 copy 0.0", into @buf. */
static void engines_text(char *buf, size_t sz, const struct pk_gpu_client *c,
			 const struct pk_gpu_process *p)
{
	size_t len = 0;
	uint32_t n = c ? c->n_engines : p->n_engines;

	buf[0] = '\0';
	for (uint32_t i = 0; i < n && len < sz; i++) {
		const char *name = c ? c->engines[i].raw.name : p->engines[i].name;
		bool has = c ? c->engines[i].has_busy : p->engines[i].has_busy;
		double pct = c ? c->engines[i].busy_pct : p->engines[i].busy_pct;

		if (has)
			len += (size_t)snprintf(buf + len, sz - len, "%s%s %.1f", len ? " " : "", name, pct);
		else
			len += (size_t)snprintf(buf + len, sz - len, "%s%s -", len ? " " : "", name);
	}
}

static bool client_has_busy(const struct pk_gpu_client *c)
{
	for (uint32_t i = 0; i < c->n_engines; i++)
		if (c->engines[i].has_busy)
			return true;
	return false;
}

static bool process_has_busy(const struct pk_gpu_process *p)
{
	for (uint32_t i = 0; i < p->n_engines; i++)
		if (p->engines[i].has_busy)
			return true;
	return false;
}

static const char *device_key(const struct pk_gpu_snapshot *s, uint32_t dev)
{
	if (dev < s->n_devices && s->devices[dev].dev)
		return s->devices[dev].dev->key;
	return "?";
}

/* The header and the rows @rows[0..n) (indices from pk_gpu_view_rows) that fit above @max_y. */
static int draw_rows(struct gpu_view *v, const struct pk_gpu_snapshot *s, const uint32_t *rows, int n,
		     int y, int max_y, int cols)
{
	char eng[256], mem[16], line[512];

	if (y >= max_y)
		return y;
	if (v->vo.per_process)
		snprintf(line, sizeof(line), "%7s %-16s %7s %6s %7s %8s  %s", "PID", "COMM", "CLIENTS",
			 "SHARED", "BUSY", "MEMORY", "ENGINES");
	else
		snprintf(line, sizeof(line), "%7s %-16s %-8s %-13s %6s %7s %8s  %s", "PID", "COMM",
			 "DRIVER", "DEVICE", "ID", "BUSY", "MEMORY", "ENGINES");
	attron(A_REVERSE);
	mvaddnstr(y, 0, line, cols);
	for (int x = (int)strlen(line); x < cols; x++)
		addch(' ');
	attroff(A_REVERSE);
	y++;
	if (n == 0 && y < max_y)
		mvaddnstr(y++, 0, v->filter[0] ? "   (no client matches the filter)" : "   (no GPU clients)",
			  cols);
	for (int i = 0; i < n && y < max_y; i++, y++) {
		char pct[16];
		bool has;
		double busy;
		int pct_x;

		if (v->vo.per_process) {
			const struct pk_gpu_process *p = &s->processes[rows[i]];

			fmt_memory(mem, sizeof(mem), p->memory, p->n_memory);
			engines_text(eng, sizeof(eng), NULL, p);
			has = process_has_busy(p);
			busy = p->busy_pct;
			fmt_pct(pct, sizeof(pct), has, busy, 7);
			pct_x = 7 + 1 + 16 + 1 + 7 + 1 + 6 + 1;
			snprintf(line, sizeof(line), "%7d %-16.16s %7u %6u %s %8s  %s", (int)p->pid,
				 p->comm ? p->comm : "", p->n_clients, p->n_shared, pct, mem, eng);
		} else {
			const struct pk_gpu_client *c = &s->clients[rows[i]];
			char id[24];

			if (c->has_client_id)
				snprintf(id, sizeof(id), "%llu", (unsigned long long)c->client_id);
			else
				snprintf(id, sizeof(id), "-");
			fmt_memory(mem, sizeof(mem), c->memory, c->n_memory);
			engines_text(eng, sizeof(eng), c, NULL);
			has = client_has_busy(c);
			busy = c->busy_pct;
			fmt_pct(pct, sizeof(pct), has, busy, 7);
			pct_x = 7 + 1 + 16 + 1 + 8 + 1 + 13 + 1 + 6 + 1;
			snprintf(line, sizeof(line), "%7d %-16.16s %-8.8s %-13.13s %6.6s %s %8s  %s",
				 (int)c->pid, c->comm ? c->comm : "", c->driver ? c->driver : "",
				 device_key(s, c->device), id, pct, mem, eng);
		}
		put_line(v, y, line, cols, pct_x, 7, has, busy);
	}
	return y;
}

/* Screen lines a device takes in draw_device(). */
static int device_lines(const struct pk_gpu_device_view *dv)
{
	return 1 + (int)dv->n_engines + (dv->n_memory ? 1 : 0);
}

static void draw_key_line(struct gpu_view *v, int y, int cols)
{
	char line[256];

	if (v->editing) {
		snprintf(line, sizeof(line), " filter (pid=N driver=NAME device=PDEV, empty clears): %s",
			 v->edit);
		mvaddnstr(y, 0, line, cols);
		return;
	}
	if (v->help)
		snprintf(line, sizeof(line),
			 " q quit  s sort by busy, memory, pid, name  p clients or processes  "
			 "f filter: pid=N driver=NAME device=PDEV  h help");
	else
		snprintf(line, sizeof(line), " q quit  s sort (%s)  p %s  f filter%s%s  h help",
			 sort_names[v->vo.sort], v->vo.per_process ? "per-process" : "per-client",
			 v->filter[0] ? ": " : "", v->filter);
	attron(A_REVERSE);
	mvaddnstr(y, 0, line, cols);
	for (int x = (int)strlen(line); x < cols; x++)
		addch(' ');
	attroff(A_REVERSE);
}

int gpu_view_draw(struct gpu_view *v, const struct pk_gpu_snapshot *s)
{
	int rows = LINES, cols = COLS, y = 0, foot = rows - 1, n, avail, dev_lines = 0, dev_max;
	uint32_t *idx = NULL;
	char title[256];

	erase();
	if (!s) {
		mvaddstr(0, 0, " perfkit gpu: waiting for the first scan...");
		draw_key_line(v, foot, cols);
		refresh();
		return 0;
	}
	snprintf(title, sizeof(title),
		 " perfkit gpu  scan %llu  interval %.2fs  %u device%s  %u client%s  %u process%s"
		 "  sort %s%s%s",
		 (unsigned long long)s->seq, s->interval_ns ? s->interval_ns / 1e9 : v->delay_s,
		 s->n_devices, s->n_devices == 1 ? "" : "s", s->n_clients, s->n_clients == 1 ? "" : "s",
		 s->n_processes, s->n_processes == 1 ? "" : "es", sort_names[v->vo.sort],
		 v->filter[0] ? "  filter " : "", v->filter);
	attron(A_REVERSE);
	mvaddnstr(y, 0, title, cols);
	for (int x = (int)strlen(title); x < cols; x++)
		addch(' ');
	attroff(A_REVERSE);
	y += 2;
	v->vo.max_rows = 0;
	n = pk_gpu_view_rows(s, &v->vo, &idx);
	if (n < 0)
		return -ENOMEM;
	/*
	 * Lines: title, blank, devices, blank, table header, rows, notes, keys.
	 * The devices leave room for the rows, but keep at least half the
	 * screen when both do not fit.
	 */
	avail = foot - 1 - y;
	for (uint32_t i = 0; i < s->n_devices; i++)
		if (device_shown(v, &s->devices[i]))
			dev_lines += device_lines(&s->devices[i]);
	dev_max = avail - 2 - (n > 0 ? n : 1);
	if (dev_max < avail / 2)
		dev_max = avail / 2;
	if (dev_max > dev_lines)
		dev_max = dev_lines;
	for (uint32_t i = 0; i < s->n_devices && y < 2 + dev_max; i++)
		if (device_shown(v, &s->devices[i]))
			y = draw_device(v, &s->devices[i], y, 2 + dev_max, cols);
	y++;
	y = draw_rows(v, s, idx, n, y, foot - 1, cols);
	free(idx);
	if (v->status[0]) {
		mvaddnstr(foot - 1, 0, v->status, cols);
	} else if (s->stats.unreadable || s->stats.vanished) {
		char note[200];

		if (s->stats.unreadable)
			snprintf(note, sizeof(note),
				 " %u process%s not readable (pid %d...): run as root or with "
				 "CAP_SYS_PTRACE",
				 s->stats.unreadable, s->stats.unreadable == 1 ? "" : "es",
				 (int)s->stats.first_unreadable);
		else
			snprintf(note, sizeof(note), " %u process%s or fds vanished during the scan",
				 s->stats.vanished, s->stats.vanished == 1 ? "" : "es");
		mvaddnstr(foot - 1, 0, note, cols);
	}
	draw_key_line(v, foot, cols);
	refresh();
	return 0;
}

/* ---- keys --------------------------------------------------------------------- */

/* One key while the filter is being typed. */
static void edit_key(struct gpu_view *v, int k)
{
	if (k == '\n' || k == '\r' || k == KEY_ENTER) {
		v->editing = 0;
		set_filter(v, v->edit);
	} else if (k == 27) {
		v->editing = 0;
	} else if (k == KEY_BACKSPACE || k == 127 || k == 8) {
		if (v->edit_len)
			v->edit[--v->edit_len] = '\0';
	} else if (k >= 32 && k < 127 && v->edit_len + 1 < sizeof(v->edit)) {
		v->edit[v->edit_len++] = (char)k;
		v->edit[v->edit_len] = '\0';
	}
}

int gpu_view_keys(struct gpu_view *v, const struct pk_gpu_snapshot *s, int timeout_ms)
{
	int k, redraw = 0;

	timeout(timeout_ms);
	while ((k = getch()) != ERR) {
		timeout(0);
		redraw = 1;
		if (v->editing) {
			edit_key(v, k);
			continue;
		}
		switch (k) {
		case 'q':
		case 'Q':
		case 3:   /* ^C typed while the terminal is in cbreak mode */
			return GPU_VIEW_QUIT;
		case 's':
			v->vo.sort = (enum pk_gpu_sort)((v->vo.sort + 1) % 4);
			break;
		case 'p':
			v->vo.per_process = !v->vo.per_process;
			break;
		case 'f':
			v->editing = 1;
			snprintf(v->edit, sizeof(v->edit), "%s", v->filter);
			v->edit_len = strlen(v->edit);
			break;
		case 'h':
		case '?':
			v->help = !v->help;
			break;
		case KEY_RESIZE:
			break;
		default:
			v->status[0] = '\0';
			break;
		}
	}
	if (redraw && gpu_view_draw(v, s))
		return GPU_VIEW_GO_ON;
	return GPU_VIEW_GO_ON;
}
