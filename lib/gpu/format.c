/*
 * The plain printers of `perfkit gpu`: which rows a view shows (filters and
 * sort order), the text of a snapshot (a device section, then a client or
 * process table, then what the scan could not see), and CSV.
 *
 * Text layout, in the spirit of intel_gpu_top and nvtop in text mode:
 *
 *   0000:00:02.0 i915 Intel Corporation Alder Lake-P GT2: 2 clients
 *     busy: render 12.5%  copy 0.0%  video -  video-enhance 0.0%
 *     memory (resident/total): system0 5.9/5.9 MiB  stolen-system0 0.0/0.0 MiB
 *
 *     PID  COMM   DRIVER  DEVICE        ID  render   copy  video      MEM
 *    1234  glxgears i915  0000:00:02.0  39   12.5%   0.0%      -  5.9 MiB
 *
 * Busy values are percentages of one unit of the engine's capacity with
 * one decimal, "-" when unknown (a client's first sample, an engine the
 * client does not list); the tracker clamps them to 100, and sums over a
 * process's clients are clamped here too, so ">100" never shows. MEM is
 * the resident size summed over regions (a region without a resident
 * value counts its total). With @width nonzero, device lines wrap and
 * table lines are cut to @width columns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>

#define MIB (1024.0 * 1024.0)

/* ---- rows of a view ------------------------------------------------------------- */

static const struct pk_gpu_device *client_dev(const struct pk_gpu_snapshot *s,
					       const struct pk_gpu_client *c)
{
	return c->device < s->n_devices ? s->devices[c->device].dev : NULL;
}

static const char *client_dev_key(const struct pk_gpu_snapshot *s, const struct pk_gpu_client *c)
{
	const struct pk_gpu_device *d = client_dev(s, c);

	if (d)
		return d->key;
	return c->pdev ? c->pdev : "";
}

static bool device_matches(const struct pk_gpu_device *d, const char *want)
{
	if (!d)
		return false;
	if (!strcmp(d->key, want) || (d->pdev[0] && !strcmp(d->pdev, want)))
		return true;
	for (uint32_t i = 0; i < d->n_nodes && i < PK_GPU_MAX_NODES; i++)
		if (!strcmp(d->nodes[i].name, want))
			return true;
	return false;
}

static bool client_passes(const struct pk_gpu_snapshot *s, const struct pk_gpu_client *c,
			  const struct pk_gpu_view_opts *o, bool check_pid)
{
	if (check_pid && o->pid > 0) {
		bool held = c->pid == o->pid;

		for (uint32_t i = 0; i < c->n_holders && !held; i++)
			held = c->holders[i].pid == o->pid;
		if (!held)
			return false;
	}
	if (o->driver) {
		const struct pk_gpu_device *d = client_dev(s, c);

		if (!(c->driver && !strcmp(c->driver, o->driver)) &&
		    !(d && !strcmp(d->driver, o->driver)))
			return false;
	}
	if (o->device && !device_matches(client_dev(s, c), o->device) &&
	    !(c->pdev && c->pdev[0] && !strcmp(c->pdev, o->device)))
		return false;
	return true;
}

static bool process_passes(const struct pk_gpu_snapshot *s, const struct pk_gpu_process *p,
			   const struct pk_gpu_view_opts *o)
{
	if (o->pid > 0 && p->pid != o->pid)
		return false;
	if (!o->driver && !o->device)
		return true;
	for (uint32_t i = 0; i < p->n_clients; i++)
		if (p->clients[i] < s->n_clients &&
		    client_passes(s, &s->clients[p->clients[i]], o, false))
			return true;
	return false;
}

/* Resident bytes summed over regions; a region without resident counts its total. */
static uint64_t regions_memory(const struct pk_fdinfo_region *r, uint32_t n, bool *known)
{
	uint64_t sum = 0;

	*known = false;
	for (uint32_t i = 0; i < n; i++) {
		if (r[i].fields & (1u << PK_MEM_RESIDENT)) {
			sum += r[i].bytes[PK_MEM_RESIDENT];
			*known = true;
		} else if (r[i].fields & (1u << PK_MEM_TOTAL)) {
			sum += r[i].bytes[PK_MEM_TOTAL];
			*known = true;
		}
	}
	return sum;
}

struct row_key {
	uint32_t idx;
	pid_t pid;
	double busy;
	uint64_t mem;
	const char *name;
};

static int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static int cmp_pid(pid_t a, pid_t b) { return a < b ? -1 : a > b; }

static int cmp_busy(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;

	if (a->busy != b->busy)
		return a->busy > b->busy ? -1 : 1;
	if (a->mem != b->mem)
		return a->mem > b->mem ? -1 : 1;
	return cmp_pid(a->pid, b->pid) ? cmp_pid(a->pid, b->pid) : cmp_u32(a->idx, b->idx);
}

static int cmp_memory(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;

	if (a->mem != b->mem)
		return a->mem > b->mem ? -1 : 1;
	if (a->busy != b->busy)
		return a->busy > b->busy ? -1 : 1;
	return cmp_pid(a->pid, b->pid) ? cmp_pid(a->pid, b->pid) : cmp_u32(a->idx, b->idx);
}

static int cmp_pid_key(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;

	return cmp_pid(a->pid, b->pid) ? cmp_pid(a->pid, b->pid) : cmp_u32(a->idx, b->idx);
}

static int cmp_name(const void *pa, const void *pb)
{
	const struct row_key *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return cmp_pid(a->pid, b->pid) ? cmp_pid(a->pid, b->pid) : cmp_u32(a->idx, b->idx);
}

int pk_gpu_view_rows(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
		     uint32_t **rows)
{
	static const struct pk_gpu_view_opts none = { .sort = PK_GPU_SORT_BUSY };
	uint32_t total = o && o->per_process ? s->n_processes : s->n_clients;
	struct row_key *keys;
	uint32_t n = 0, *out;
	int (*cmp)(const void *, const void *);
	bool known;

	if (!o)
		o = &none;
	*rows = NULL;
	keys = malloc((total ? total : 1) * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < total; i++) {
		struct row_key *k = &keys[n];

		if (o->per_process) {
			const struct pk_gpu_process *p = &s->processes[i];

			if (!process_passes(s, p, o))
				continue;
			k->pid = p->pid;
			k->busy = p->busy_pct;
			k->mem = regions_memory(p->memory, p->n_memory, &known);
			k->name = p->comm ? p->comm : "";
		} else {
			const struct pk_gpu_client *c = &s->clients[i];

			if (!client_passes(s, c, o, true))
				continue;
			k->pid = c->pid;
			k->busy = c->busy_pct;
			k->mem = regions_memory(c->memory, c->n_memory, &known);
			k->name = c->comm ? c->comm : "";
		}
		if (k->busy != k->busy) /* NaN sorts last */
			k->busy = -1;
		k->idx = i;
		n++;
	}
	switch (o->sort) {
	case PK_GPU_SORT_MEMORY: cmp = cmp_memory; break;
	case PK_GPU_SORT_PID: cmp = cmp_pid_key; break;
	case PK_GPU_SORT_NAME: cmp = cmp_name; break;
	case PK_GPU_SORT_BUSY:
	default: cmp = cmp_busy; break;
	}
	qsort(keys, n, sizeof(*keys), cmp);
	if (o->max_rows && n > o->max_rows)
		n = o->max_rows;
	out = malloc((n ? n : 1) * sizeof(*out));
	if (!out) {
		free(keys);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = keys[i].idx;
	free(keys);
	*rows = out;
	return (int)n;
}

/* ---- text ------------------------------------------------------------------------- */

/* Bytes of @s that fit @max bytes without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* Append @line (without newline) cut to @width, then a newline. */
static int put_line(struct pk_buf *out, const char *line, size_t len, unsigned width)
{
	int err;

	if (width)
		len = utf8_cut(line, len, width);
	while (len && line[len - 1] == ' ')
		len--;
	err = pk_buf_append(out, line, len);
	return err ? err : pk_buf_append(out, "\n", 1);
}

/*
 * A label, then words joined by two spaces, wrapped at @width with a
 * 4-column indent. state: 0 nothing on the line (after a wrap), 1 only
 * the label (the caller appends it), 2 words after the label.
 */
struct wrap {
	struct pk_buf *out;
	struct pk_buf line;
	unsigned width;
	int state;
	int err;
};

static void wrap_word(struct wrap *w, const char *word)
{
	size_t n = strlen(word);

	if (w->err)
		return;
	if (w->state == 2 && w->width && w->line.len + 2 + n > w->width) {
		w->err = put_line(w->out, w->line.data, w->line.len, w->width);
		w->line.len = 0;
		if (!w->err)
			w->err = pk_buf_append(&w->line, "    ", 4);
		w->state = 0;
	}
	if (!w->err && w->state)
		w->err = pk_buf_append(&w->line, "  ", w->state == 1 ? 1 : 2);
	if (!w->err)
		w->err = pk_buf_append(&w->line, word, n);
	w->state = 2;
}

static int wrap_end(struct wrap *w)
{
	if (!w->err && w->line.len)
		w->err = put_line(w->out, w->line.data, w->line.len, w->width);
	pk_buf_release(&w->line);
	return w->err;
}

static void fmt_busy(char *buf, size_t sz, bool has, double pct)
{
	if (!has || pct != pct) {
		snprintf(buf, sz, "-");
		return;
	}
	if (pct > 100)
		pct = 100;
	if (pct < 0)
		pct = 0;
	snprintf(buf, sz, "%.1f%%", pct);
}

static void fmt_mib(char *buf, size_t sz, const struct pk_fdinfo_region *r, enum pk_gpu_mem_kind k)
{
	if (r->fields & (1u << k))
		snprintf(buf, sz, "%.1f", (double)r->bytes[k] / MIB);
	else
		snprintf(buf, sz, "-");
}

static bool device_shown(const struct pk_gpu_snapshot *s, uint32_t di, const struct pk_gpu_view_opts *o)
{
	const struct pk_gpu_device *d = s->devices[di].dev;

	if (o->device && !device_matches(d, o->device))
		return false;
	if (o->driver && !(d && !strcmp(d->driver, o->driver))) {
		for (uint32_t i = 0; i < s->n_clients; i++)
			if (s->clients[i].device == di && s->clients[i].driver &&
			    !strcmp(s->clients[i].driver, o->driver))
				return true;
		return false;
	}
	return true;
}

static int text_devices(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
			unsigned width, struct pk_buf *out)
{
	int err = 0;

	for (uint32_t di = 0; di < s->n_devices && !err; di++) {
		const struct pk_gpu_device_view *v = &s->devices[di];
		const struct pk_gpu_device *d = v->dev;
		struct wrap w = { .out = out, .width = width };
		char word[PK_GPU_NAME_MAX + 96], a[32], b[32];

		if (!device_shown(s, di, o))
			continue;
		pk_buf_init(&w.line);
		err = pk_buf_printf(&w.line, "%s %s", d ? d->key : "?", d && d->driver[0] ? d->driver : "-");
		if (!err && d && d->vendor_name[0])
			err = pk_buf_printf(&w.line, " %s", d->vendor_name);
		if (!err && d && d->device_name[0])
			err = pk_buf_printf(&w.line, " %s", d->device_name);
		if (!err && d && !d->vendor_name[0] && !d->device_name[0] && d->vendor_id)
			err = pk_buf_printf(&w.line, " [%04" PRIx32 ":%04" PRIx32 "]", d->vendor_id,
					    d->device_id);
		if (!err)
			err = pk_buf_printf(&w.line, ": %" PRIu32 " client%s", v->n_clients,
					    v->n_clients == 1 ? "" : "s");
		if (!err)
			err = put_line(out, w.line.data, w.line.len, width);
		w.line.len = 0;
		if (!err && v->n_engines) {
			w.err = pk_buf_append(&w.line, "  busy:", 7);
			w.state = 1;
			for (uint32_t i = 0; i < v->n_engines; i++) {
				fmt_busy(a, sizeof(a), v->engines[i].has_busy, v->engines[i].busy_pct);
				snprintf(word, sizeof(word), "%s %s",
					 v->engines[i].name ? v->engines[i].name : "?", a);
				wrap_word(&w, word);
			}
			err = w.err;
			if (!err && w.line.len)
				err = put_line(out, w.line.data, w.line.len, width);
			w.line.len = 0;
		}
		if (!err && v->n_memory) {
			w.err = pk_buf_append(&w.line, "  memory (resident/total):", 26);
			w.state = 1;
			for (uint32_t i = 0; i < v->n_memory; i++) {
				fmt_mib(a, sizeof(a), &v->memory[i], PK_MEM_RESIDENT);
				fmt_mib(b, sizeof(b), &v->memory[i], PK_MEM_TOTAL);
				snprintf(word, sizeof(word), "%s %s/%s MiB", v->memory[i].name, a, b);
				wrap_word(&w, word);
			}
		}
		w.err = w.err ? w.err : err;
		err = wrap_end(&w);
	}
	return err;
}

/* The table: fixed columns, then one per engine name, then MEM. */
enum { COL_PID, COL_COMM, COL_DRIVER, COL_DEVICE, COL_ID, COL_FIXED };

struct table {
	const struct pk_gpu_snapshot *s;
	bool per_process;
	const char **engines;
	uint32_t n_engines;
	size_t *widths;
	bool starred;
};

static uint32_t table_cols(const struct table *t) { return COL_FIXED + t->n_engines + 1; }

static bool col_right(const struct table *t, uint32_t col)
{
	return col == COL_PID || col >= COL_ID;
}

static const char *col_title(const struct table *t, uint32_t col)
{
	static const char *const fixed[COL_FIXED] = { "PID", "COMM", "DRIVER", "DEVICE", "ID" };

	if (col < COL_FIXED)
		return col == COL_ID && t->per_process ? "CLIENTS" : fixed[col];
	if (col < COL_FIXED + t->n_engines)
		return t->engines[col - COL_FIXED];
	return "MEM";
}

/* Append @v to the comma-separated list in @buf unless it is there. */
static void list_add(char *buf, size_t sz, const char *v)
{
	size_t len = strlen(buf), n = strlen(v);

	for (const char *p = buf; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (l == n && !strncmp(p, v, n))
			return;
		p += l + (e ? 1 : 0);
	}
	snprintf(buf + len, sz - len, "%s%s", len ? "," : "", v);
}

static void cell(struct table *t, uint32_t row, uint32_t col, char *buf, size_t sz)
{
	const struct pk_gpu_snapshot *s = t->s;
	const char *comm, *name;
	bool known;
	uint64_t mem;

	buf[0] = '\0';
	if (t->per_process) {
		const struct pk_gpu_process *p = &s->processes[row];

		comm = p->comm ? p->comm : "";
		switch (col) {
		case COL_PID: snprintf(buf, sz, "%d", (int)p->pid); return;
		case COL_COMM: snprintf(buf, sz, "%.*s", (int)utf8_cut(comm, strlen(comm), 16), comm); return;
		case COL_DRIVER:
		case COL_DEVICE:
			for (uint32_t i = 0; i < p->n_clients; i++) {
				const struct pk_gpu_client *c;

				if (p->clients[i] >= s->n_clients)
					continue;
				c = &s->clients[p->clients[i]];
				list_add(buf, sz, col == COL_DRIVER ? (c->driver ? c->driver : "")
								    : client_dev_key(s, c));
			}
			return;
		case COL_ID:
			snprintf(buf, sz, "%" PRIu32 "%s", p->n_clients, p->n_shared ? "*" : "");
			if (p->n_shared)
				t->starred = true;
			return;
		}
		if (col < COL_FIXED + t->n_engines) {
			name = t->engines[col - COL_FIXED];
			snprintf(buf, sz, "-");
			for (uint32_t i = 0; i < p->n_engines; i++)
				if (p->engines[i].name && !strcmp(p->engines[i].name, name))
					fmt_busy(buf, sz, p->engines[i].has_busy, p->engines[i].busy_pct);
			return;
		}
		mem = regions_memory(p->memory, p->n_memory, &known);
	} else {
		const struct pk_gpu_client *c = &s->clients[row];

		comm = c->comm ? c->comm : "";
		switch (col) {
		case COL_PID: snprintf(buf, sz, "%d", (int)c->pid); return;
		case COL_COMM: snprintf(buf, sz, "%.*s", (int)utf8_cut(comm, strlen(comm), 16), comm); return;
		case COL_DRIVER: snprintf(buf, sz, "%s", c->driver ? c->driver : ""); return;
		case COL_DEVICE: snprintf(buf, sz, "%s", client_dev_key(s, c)); return;
		case COL_ID:
			if (c->has_client_id)
				snprintf(buf, sz, "%" PRIu64, c->client_id);
			else
				snprintf(buf, sz, "-");
			return;
		}
		if (col < COL_FIXED + t->n_engines) {
			name = t->engines[col - COL_FIXED];
			snprintf(buf, sz, "-");
			for (uint32_t i = 0; i < c->n_engines; i++)
				if (!strcmp(c->engines[i].raw.name, name))
					fmt_busy(buf, sz, c->engines[i].has_busy, c->engines[i].busy_pct);
			return;
		}
		mem = regions_memory(c->memory, c->n_memory, &known);
	}
	if (known)
		snprintf(buf, sz, "%.1f MiB", (double)mem / MIB);
	else
		snprintf(buf, sz, "-");
}

/* Engine names of the shown rows, in snapshot order of first appearance. */
static int table_engines(struct table *t, const uint32_t *rows, int n)
{
	const struct pk_gpu_snapshot *s = t->s;
	uint32_t total = t->per_process ? s->n_processes : s->n_clients;
	size_t cap = 0;
	bool *shown = calloc(total ? total : 1, sizeof(*shown));
	int err = 0;

	if (!shown)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		shown[rows[i]] = true;
	for (uint32_t r = 0; r < total && !err; r++) {
		uint32_t ne = t->per_process ? s->processes[r].n_engines : s->clients[r].n_engines;

		if (!shown[r])
			continue;
		for (uint32_t e = 0; e < ne && !err; e++) {
			const char *name = t->per_process ? s->processes[r].engines[e].name
							  : s->clients[r].engines[e].raw.name;
			bool seen = false;

			if (!name)
				continue;
			for (uint32_t k = 0; k < t->n_engines && !seen; k++)
				seen = !strcmp(t->engines[k], name);
			if (seen)
				continue;
			err = pk_array_grow((void **)&t->engines, &cap, t->n_engines + 1,
					    sizeof(*t->engines), 8);
			if (!err)
				t->engines[t->n_engines++] = name;
		}
	}
	free(shown);
	return err;
}

static int put_row(struct table *t, const uint32_t *row, unsigned width, struct pk_buf *line,
		   struct pk_buf *out)
{
	char buf[512];
	uint32_t ncols = table_cols(t);
	int err = 0;

	line->len = 0;
	for (uint32_t col = 0; col < ncols && !err; col++) {
		size_t n;

		if (row)
			cell(t, *row, col, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "%s", col_title(t, col));
		n = strlen(buf);
		if (col)
			err = pk_buf_append(line, "  ", 2);
		if (!err && col_right(t, col) && n < t->widths[col])
			err = pk_buf_printf(line, "%*s", (int)(t->widths[col] - n), "");
		if (!err)
			err = pk_buf_append(line, buf, n);
		if (!err && !col_right(t, col) && n < t->widths[col])
			err = pk_buf_printf(line, "%*s", (int)(t->widths[col] - n), "");
	}
	return err ? err : put_line(out, line->data, line->len, width);
}

static int text_table(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
		      const uint32_t *rows, int n, unsigned width, struct pk_buf *out)
{
	struct table t = { .s = s, .per_process = o->per_process };
	struct pk_buf line;
	char buf[512];
	int err;

	pk_buf_init(&line);
	err = table_engines(&t, rows, n);
	if (!err) {
		t.widths = calloc(table_cols(&t), sizeof(*t.widths));
		if (!t.widths)
			err = -ENOMEM;
	}
	for (uint32_t col = 0; !err && col < table_cols(&t); col++) {
		t.widths[col] = strlen(col_title(&t, col));
		for (int i = 0; i < n; i++) {
			cell(&t, rows[i], col, buf, sizeof(buf));
			if (strlen(buf) > t.widths[col])
				t.widths[col] = strlen(buf);
		}
	}
	if (!err)
		err = put_row(&t, NULL, width, &line, out);
	for (int i = 0; i < n && !err; i++)
		err = put_row(&t, &rows[i], width, &line, out);
	if (!err && t.starred) {
		snprintf(buf, sizeof(buf),
			 "* includes clients shared with other processes, counted in each of them");
		err = put_line(out, buf, strlen(buf), width);
	}
	pk_buf_release(&line);
	free(t.widths);
	free(t.engines);
	return err;
}

int pk_gpu_snapshot_text(const struct pk_gpu_snapshot *s, const struct pk_gpu_view_opts *o,
			 unsigned width, struct pk_buf *out)
{
	static const struct pk_gpu_view_opts none = { .sort = PK_GPU_SORT_BUSY };
	struct pk_gpu_view_opts all;
	uint32_t *rows = NULL;
	char buf[256];
	int n, shown, err;

	if (!o)
		o = &none;
	all = *o;
	all.max_rows = 0;
	err = text_devices(s, o, width, out);
	if (err)
		return err;
	if (s->n_devices && (err = pk_buf_append(out, "\n", 1)))
		return err;
	n = pk_gpu_view_rows(s, &all, &rows);
	if (n < 0)
		return n;
	shown = o->max_rows && (uint32_t)n > o->max_rows ? (int)o->max_rows : n;
	if (s->n_clients == 0)
		snprintf(buf, sizeof(buf), "no GPU clients");
	else if (n == 0)
		snprintf(buf, sizeof(buf), "no GPU clients match");
	else
		buf[0] = '\0';
	if (buf[0])
		err = put_line(out, buf, strlen(buf), width);
	else
		err = text_table(s, o, rows, shown, width, out);
	if (!err && shown < n) {
		snprintf(buf, sizeof(buf), "(%d more not shown)", n - shown);
		err = put_line(out, buf, strlen(buf), width);
	}
	free(rows);
	if (!err && s->stats.unreadable) {
		snprintf(buf, sizeof(buf), "%" PRIu32 " process%s not readable: run as root or with CAP_SYS_PTRACE",
			 s->stats.unreadable, s->stats.unreadable == 1 ? "" : "es");
		err = put_line(out, buf, strlen(buf), width);
	}
	if (!err && s->stats.vanished) {
		snprintf(buf, sizeof(buf), "%" PRIu32 " process%s or fds vanished during the scan",
			 s->stats.vanished, s->stats.vanished == 1 ? "" : "es");
		err = put_line(out, buf, strlen(buf), width);
	}
	return err;
}

/* ---- CSV ----------------------------------------------------------------------------- */

/* A field: quoted (RFC 4180) when it holds a comma, a double quote, CR or LF. */
static int csv_str(struct pk_buf *out, const char *v)
{
	int err;

	v = v ? v : "";
	if (!strpbrk(v, ",\"\r\n"))
		return pk_buf_append(out, v, strlen(v));
	err = pk_buf_append(out, "\"", 1);
	for (const char *p = v; *p && !err; p++)
		err = *p == '"' ? pk_buf_append(out, "\"\"", 2) : pk_buf_append(out, p, 1);
	return err ? err : pk_buf_append(out, "\"", 1);
}

/* time_ns,...,name,kind,key, — the part every row starts with. */
static int csv_client(struct pk_buf *out, const struct pk_gpu_snapshot *s,
		      const struct pk_gpu_client *c, const char *kind, const char *key)
{
	int err;

	if ((err = pk_buf_printf(out, "%" PRIu64 ",%" PRIu64 ",%d,", s->time_ns, s->interval_ns,
				 (int)c->pid)) ||
	    (err = csv_str(out, c->comm)) || (err = pk_buf_append(out, ",", 1)) ||
	    (err = csv_str(out, c->driver)) || (err = pk_buf_append(out, ",", 1)) ||
	    (err = csv_str(out, c->pdev)) || (err = pk_buf_append(out, ",", 1)))
		return err;
	if (c->has_client_id && (err = pk_buf_printf(out, "%" PRIu64, c->client_id)))
		return err;
	if ((err = pk_buf_append(out, ",", 1)) || (err = csv_str(out, c->name)) ||
	    (err = pk_buf_printf(out, ",%s,", kind)) || (err = csv_str(out, key)))
		return err;
	return pk_buf_append(out, ",", 1);
}

static int csv_u64(struct pk_buf *out, bool present, uint64_t v, const char *sep)
{
	return present ? pk_buf_printf(out, "%" PRIu64 "%s", v, sep) : pk_buf_printf(out, "%s", sep);
}

int pk_gpu_snapshot_csv(const struct pk_gpu_snapshot *s, bool header, struct pk_buf *out)
{
	size_t start = out->len;
	int err = 0;

	if (header)
		err = pk_buf_printf(out, "time_ns,interval_ns,pid,comm,driver,pdev,client_id,name,kind,key,"
				    "busy_pct,ns,cycles,total_cycles,capacity,total,shared,resident,"
				    "purgeable,active\n");
	for (uint32_t i = 0; i < s->n_clients && !err; i++) {
		const struct pk_gpu_client *c = &s->clients[i];

		for (uint32_t j = 0; j < c->n_engines && !err; j++) {
			const struct pk_gpu_engine_use *e = &c->engines[j];
			unsigned f = e->raw.fields;

			if ((err = csv_client(out, s, c, "engine", e->raw.name)))
				break;
			if (e->has_busy && e->busy_pct == e->busy_pct)
				err = pk_buf_printf(out, "%.2f", e->busy_pct);
			if (!err)
				err = pk_buf_append(out, ",", 1);
			if (!err)
				err = csv_u64(out, f & PK_ENGINE_NS, e->ns, ",");
			if (!err)
				err = csv_u64(out, f & PK_ENGINE_CYCLES, e->cycles, ",");
			if (!err)
				err = csv_u64(out, f & PK_ENGINE_TOTAL_CYCLES, e->total_cycles, ",");
			if (!err)
				err = pk_buf_printf(out, "%" PRIu32 ",,,,,\n",
						    e->raw.capacity ? e->raw.capacity : 1);
		}
		for (uint32_t j = 0; j < c->n_memory && !err; j++) {
			const struct pk_fdinfo_region *r = &c->memory[j];

			if ((err = csv_client(out, s, c, "memory", r->name)) ||
			    (err = pk_buf_append(out, ",,,,,", 5)))
				break;
			for (int k = 0; k < PK_MEM_KINDS && !err; k++)
				err = csv_u64(out, r->fields & (1u << k), r->bytes[k],
					      k == PK_MEM_KINDS - 1 ? "\n" : ",");
		}
	}
	if (err) {
		out->len = start;
		if (out->data)
			out->data[start] = '\0';
	}
	return err;
}
