/*
 * The per-client summary of `perfkit gpu report`: snapshots (live or
 * replayed from a recording) are folded into one entry per DRM client, keyed
 * by (device key, drm-client-id), or by (device key, pid, fd of the first
 * holder) for files without a client id. Per engine it keeps the busy time
 * and cycles summed over the intervals (the deltas, so time before the
 * client's first sample is not counted), the time-weighted average busy
 * (sum of busy_pct x interval over the intervals that had utilization,
 * divided by the sum of those intervals) and the peak; per memory region
 * the peak of every kind. Printed as an aligned text table or one JSON line.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <perfkit/gpu.h>

struct sm_engine {
	char name[PK_GPU_NAME_MAX];
	uint64_t busy_ns, busy_cycles;
	double weighted;            /* sum of busy_pct * interval_ns */
	uint64_t busy_interval_ns;  /* sum of the intervals with utilization */
	bool has_busy;
	double peak;
	enum pk_gpu_basis basis;    /* the last one that was not "none" */
};

struct sm_region {
	char name[PK_GPU_NAME_MAX];
	unsigned fields;            /* kinds ever present */
	uint64_t peak[PK_MEM_KINDS];
};

struct sm_client {
	/* key */
	char device[PK_GPU_NAME_MAX];
	bool has_client_id;
	uint64_t client_id;
	pid_t key_pid;              /* without a client id: the first holder */
	int key_fd;
	/* identity, as first seen (the name as last set) */
	pid_t pid;
	char *comm;
	char driver[PK_GPU_NAME_MAX];
	char name[PK_GPU_CLIENT_NAME_MAX];
	uint64_t first_ns, last_ns, samples;
	struct sm_engine *engines;
	size_t engines_cap;
	uint32_t n_engines;
	struct sm_region *regions;
	size_t regions_cap;
	uint32_t n_regions;
};

struct pk_gpu_summary {
	uint64_t scans, first_ns, last_ns;
	struct sm_client *clients;
	size_t clients_cap;
	uint32_t n_clients;
	uint32_t *slots;            /* open addressing: client index + 1, 0 = empty */
	size_t n_slots;             /* a power of two, at least twice n_clients */
};

struct pk_gpu_summary *pk_gpu_summary_new(void)
{
	return calloc(1, sizeof(struct pk_gpu_summary));
}

void pk_gpu_summary_free(struct pk_gpu_summary *sm)
{
	if (!sm)
		return;
	for (uint32_t i = 0; i < sm->n_clients; i++) {
		free(sm->clients[i].comm);
		free(sm->clients[i].engines);
		free(sm->clients[i].regions);
	}
	free(sm->clients);
	free(sm->slots);
	free(sm);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;    /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t key_hash(const char *dev, bool has_id, uint64_t id, pid_t pid, int fd)
{
	uint64_t h = str_hash(dev);

	if (has_id)
		return pk_hash_mix64(h ^ pk_hash_mix64(id));
	return pk_hash_mix64(h ^ pk_hash_mix64(((uint64_t)(uint32_t)pid << 32 | (uint32_t)fd) + 1) ^
			     0x9e3779b97f4a7c15ull);
}

static bool key_eq(const struct sm_client *c, const char *dev, bool has_id, uint64_t id, pid_t pid,
		   int fd)
{
	if (c->has_client_id != has_id || strcmp(c->device, dev) != 0)
		return false;
	return has_id ? c->client_id == id : c->key_pid == pid && c->key_fd == fd;
}

static int rehash(struct pk_gpu_summary *sm, size_t n_slots)
{
	uint32_t *slots = calloc(n_slots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t i = 0; i < sm->n_clients; i++) {
		const struct sm_client *c = &sm->clients[i];
		size_t j = key_hash(c->device, c->has_client_id, c->client_id, c->key_pid, c->key_fd) &
			   (n_slots - 1);

		while (slots[j])
			j = (j + 1) & (n_slots - 1);
		slots[j] = i + 1;
	}
	free(sm->slots);
	sm->slots = slots;
	sm->n_slots = n_slots;
	return 0;
}

/* The entry of snapshot client @c, created when new. NULL on -ENOMEM. */
static struct sm_client *client_get(struct pk_gpu_summary *sm, const struct pk_gpu_snapshot *s,
				    const struct pk_gpu_client *c)
{
	const char *dev = "";
	pid_t kpid = 0;
	int kfd = -1;
	struct sm_client *e;
	size_t j;

	if (c->device < s->n_devices && s->devices[c->device].dev)
		dev = s->devices[c->device].dev->key;
	if (!c->has_client_id) {
		kpid = c->n_holders ? c->holders[0].pid : c->pid;
		kfd = c->n_holders ? c->holders[0].fd : -1;
	}
	if ((size_t)sm->n_clients + 1 > sm->n_slots / 2 &&
	    rehash(sm, sm->n_slots ? sm->n_slots * 2 : 64))
		return NULL;
	j = key_hash(dev, c->has_client_id, c->client_id, kpid, kfd) & (sm->n_slots - 1);
	for (; sm->slots[j]; j = (j + 1) & (sm->n_slots - 1)) {
		e = &sm->clients[sm->slots[j] - 1];
		if (key_eq(e, dev, c->has_client_id, c->client_id, kpid, kfd))
			return e;
	}
	if (pk_array_grow((void **)&sm->clients, &sm->clients_cap, (size_t)sm->n_clients + 1,
			  sizeof(*sm->clients), 16))
		return NULL;
	e = &sm->clients[sm->n_clients];
	memset(e, 0, sizeof(*e));
	e->comm = strdup(c->comm ? c->comm : "");
	if (!e->comm)
		return NULL;
	snprintf(e->device, sizeof(e->device), "%s", dev);
	e->has_client_id = c->has_client_id;
	e->client_id = c->has_client_id ? c->client_id : 0;
	e->key_pid = kpid;
	e->key_fd = kfd;
	e->pid = c->pid;
	snprintf(e->driver, sizeof(e->driver), "%s", c->driver ? c->driver : "");
	e->first_ns = c->time_ns;
	sm->slots[j] = ++sm->n_clients;
	return e;
}

static struct sm_engine *engine_get(struct sm_client *c, const char *name)
{
	struct sm_engine *e;

	for (uint32_t i = 0; i < c->n_engines; i++)
		if (strcmp(c->engines[i].name, name) == 0)
			return &c->engines[i];
	if (pk_array_grow((void **)&c->engines, &c->engines_cap, (size_t)c->n_engines + 1,
			  sizeof(*c->engines), 4))
		return NULL;
	e = &c->engines[c->n_engines++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e;
}

static struct sm_region *region_get(struct sm_client *c, const char *name)
{
	struct sm_region *r;

	for (uint32_t i = 0; i < c->n_regions; i++)
		if (strcmp(c->regions[i].name, name) == 0)
			return &c->regions[i];
	if (pk_array_grow((void **)&c->regions, &c->regions_cap, (size_t)c->n_regions + 1,
			  sizeof(*c->regions), 4))
		return NULL;
	r = &c->regions[c->n_regions++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

int pk_gpu_summary_add(struct pk_gpu_summary *sm, const struct pk_gpu_snapshot *s)
{
	if (!sm || !s)
		return -EINVAL;
	if (!sm->scans++)
		sm->first_ns = s->time_ns;
	sm->last_ns = s->time_ns;
	for (uint32_t i = 0; i < s->n_clients; i++) {
		const struct pk_gpu_client *c = &s->clients[i];
		struct sm_client *e = client_get(sm, s, c);

		if (!e)
			return -ENOMEM;
		e->samples++;
		e->last_ns = c->time_ns;
		if (c->name && c->name[0])
			snprintf(e->name, sizeof(e->name), "%s", c->name);
		for (uint32_t k = 0; k < c->n_engines; k++) {
			const struct pk_gpu_engine_use *u = &c->engines[k];
			struct sm_engine *g = engine_get(e, u->raw.name);

			if (!g)
				return -ENOMEM;
			g->busy_ns += u->d_ns;
			g->busy_cycles += u->d_cycles;
			if (u->basis != PK_BASIS_NONE)
				g->basis = u->basis;
			if (u->has_busy && isfinite(u->busy_pct)) {
				g->weighted += u->busy_pct * (double)c->interval_ns;
				g->busy_interval_ns += c->interval_ns;
				if (!g->has_busy || u->busy_pct > g->peak)
					g->peak = u->busy_pct;
				g->has_busy = true;
			}
		}
		for (uint32_t k = 0; k < c->n_memory; k++) {
			const struct pk_fdinfo_region *m = &c->memory[k];
			struct sm_region *r = region_get(e, m->name);

			if (!r)
				return -ENOMEM;
			for (int kind = 0; kind < PK_MEM_KINDS; kind++) {
				if (!(m->fields & (1u << kind)))
					continue;
				if (!(r->fields & (1u << kind)) || m->bytes[kind] > r->peak[kind])
					r->peak[kind] = m->bytes[kind];
				r->fields |= 1u << kind;
			}
		}
	}
	return 0;
}

/* The average busy of @g, or NAN without any interval with utilization. */
static double engine_avg(const struct sm_engine *g)
{
	if (!g->has_busy)
		return NAN;
	if (!g->busy_interval_ns)
		return g->peak;         /* only zero-length intervals: nothing to weigh */
	return g->weighted / (double)g->busy_interval_ns;
}

/* ---- text -------------------------------------------------------------------- */

#define SM_CELL 80
#define SM_COLS 11

struct table {
	char (*cells)[SM_COLS][SM_CELL];
	size_t n, cap;
	int ncols;
	int width[SM_COLS];
	bool right[SM_COLS];
};

static int table_row(struct table *t, const char *const *v)
{
	if (pk_array_grow((void **)&t->cells, &t->cap, t->n + 1, sizeof(*t->cells), 16))
		return -ENOMEM;
	for (int i = 0; i < t->ncols; i++) {
		int len;

		snprintf(t->cells[t->n][i], SM_CELL, "%s", v[i] ? v[i] : "");
		len = (int)strlen(t->cells[t->n][i]);
		if (len > t->width[i])
			t->width[i] = len;
	}
	t->n++;
	return 0;
}

static int table_print(const struct table *t, struct pk_buf *out)
{
	int err = 0;

	for (size_t r = 0; r < t->n && !err; r++) {
		for (int i = 0; i < t->ncols && !err; i++) {
			const char *sep = i ? "  " : "";
			bool last = i == t->ncols - 1;

			if (t->right[i])
				err = pk_buf_printf(out, "%s%*s", sep, t->width[i], t->cells[r][i]);
			else if (last)
				err = t->cells[r][i][0] ? pk_buf_printf(out, "%s%s", sep, t->cells[r][i]) : 0;
			else
				err = pk_buf_printf(out, "%s%-*s", sep, t->width[i], t->cells[r][i]);
		}
		if (!err)
			err = pk_buf_append(out, "\n", 1);
	}
	return err;
}

static void fmt_bytes(char *buf, size_t sz, uint64_t b)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)b;
	int u = -1;

	if (b < 1024) {
		snprintf(buf, sz, "%llu B", (unsigned long long)b);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, sz, "%.1f %s", v, unit[u]);
}

static void fmt_pct(char *buf, size_t sz, double v)
{
	if (isnan(v))
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%.1f", v);
}

static void client_id_str(const struct sm_client *c, char *buf, size_t sz)
{
	if (c->has_client_id)
		snprintf(buf, sz, "%llu", (unsigned long long)c->client_id);
	else
		snprintf(buf, sz, "fd %d", c->key_fd);
}

int pk_gpu_summary_text(const struct pk_gpu_summary *sm, struct pk_buf *out)
{
	static const char *const eng_head[] = { "PID", "COMM", "DRIVER", "DEVICE", "CLIENT", "ENGINE",
						"BUSY_S", "CYCLES", "AVG%", "PEAK%", "NAME" };
	static const char *const mem_head[] = { "PID", "COMM", "CLIENT", "REGION", "TOTAL", "SHARED",
						"RESIDENT", "PURGEABLE", "ACTIVE" };
	struct table eng = { .ncols = 11, .right = { true, [6] = true, true, true, true } };
	struct table mem = { .ncols = 9, .right = { true, [4] = true, true, true, true, true } };
	int err;

	if (!sm || !out)
		return -EINVAL;
	err = pk_buf_printf(out, "%llu scans over %.3f s, %u clients\n",
			    (unsigned long long)sm->scans,
			    (double)(sm->last_ns - sm->first_ns) / 1e9, sm->n_clients);
	err = err ? err : table_row(&eng, eng_head);
	err = err ? err : table_row(&mem, mem_head);
	for (uint32_t i = 0; i < sm->n_clients && !err; i++) {
		const struct sm_client *c = &sm->clients[i];
		char pid[16], id[32], busy[32], cyc[32], avg[16], peak[16], b[PK_MEM_KINDS][32];

		snprintf(pid, sizeof(pid), "%d", (int)c->pid);
		client_id_str(c, id, sizeof(id));
		for (uint32_t k = 0; k < c->n_engines && !err; k++) {
			const struct sm_engine *g = &c->engines[k];
			const char *row[] = { pid, c->comm, c->driver, c->device, id, g->name,
					      busy, cyc, avg, peak, c->name };

			snprintf(busy, sizeof(busy), "%.3f", (double)g->busy_ns / 1e9);
			snprintf(cyc, sizeof(cyc), "%llu", (unsigned long long)g->busy_cycles);
			fmt_pct(avg, sizeof(avg), engine_avg(g));
			fmt_pct(peak, sizeof(peak), g->has_busy ? g->peak : NAN);
			err = table_row(&eng, row);
		}
		if (!c->n_engines && !err) {
			const char *row[] = { pid, c->comm, c->driver, c->device, id, "-",
					      "-", "-", "-", "-", c->name };

			err = table_row(&eng, row);
		}
		for (uint32_t k = 0; k < c->n_regions && !err; k++) {
			const struct sm_region *r = &c->regions[k];
			const char *row[] = { pid, c->comm, id, r->name, b[0], b[1], b[2], b[3], b[4] };

			for (int kind = 0; kind < PK_MEM_KINDS; kind++) {
				if (r->fields & (1u << kind))
					fmt_bytes(b[kind], sizeof(b[kind]), r->peak[kind]);
				else
					snprintf(b[kind], sizeof(b[kind]), "-");
			}
			err = table_row(&mem, row);
		}
	}
	if (!err)
		err = table_print(&eng, out);
	if (!err && mem.n > 1) {
		err = pk_buf_printf(out, "\npeak memory\n");
		if (!err)
			err = table_print(&mem, out);
	}
	free(eng.cells);
	free(mem.cells);
	return err;
}

/* ---- JSON -------------------------------------------------------------------- */

/* Add @val under @key (NULL @val: JSON null); false on allocation failure. */
static bool jput(json_object *obj, const char *key, json_object *val, bool want)
{
	if (want && !val)
		return false;
	if (json_object_object_add(obj, key, val) != 0) {
		json_object_put(val);
		return false;
	}
	return true;
}

static bool jput_u64(json_object *obj, const char *key, uint64_t v)
{
	return jput(obj, key, json_object_new_uint64(v), true);
}

static bool jput_pct(json_object *obj, const char *key, double v)
{
	if (!isfinite(v))
		return jput(obj, key, NULL, false);
	return jput(obj, key, json_object_new_double(v), true);
}

static json_object *client_json(const struct sm_client *c)
{
	json_object *o = json_object_new_object();
	json_object *eng = json_object_new_object(), *mem = json_object_new_object();
	bool ok = o && eng && mem;

	ok = ok && jput(o, "pid", json_object_new_int64(c->pid), true) &&
	     jput(o, "comm", json_object_new_string(c->comm), true) &&
	     jput(o, "driver", json_object_new_string(c->driver), true) &&
	     jput(o, "device", json_object_new_string(c->device), true) &&
	     (c->has_client_id ? jput_u64(o, "client_id", c->client_id)
			       : jput(o, "client_id", NULL, false)) &&
	     jput(o, "name", json_object_new_string(c->name), true) &&
	     jput_u64(o, "first_ns", c->first_ns) && jput_u64(o, "last_ns", c->last_ns) &&
	     jput_u64(o, "samples", c->samples);
	for (uint32_t k = 0; ok && k < c->n_engines; k++) {
		const struct sm_engine *g = &c->engines[k];
		json_object *e = json_object_new_object();

		ok = e && jput_u64(e, "busy_ns", g->busy_ns) &&
		     jput_u64(e, "busy_cycles", g->busy_cycles) &&
		     jput_pct(e, "avg_busy_pct", engine_avg(g)) &&
		     jput_pct(e, "peak_busy_pct", g->has_busy ? g->peak : NAN) &&
		     jput(e, "basis", json_object_new_string(pk_gpu_basis_name(g->basis)), true);
		if (!ok)
			json_object_put(e);
		else
			ok = jput(eng, g->name, e, true);     /* frees e on failure */
	}
	for (uint32_t k = 0; ok && k < c->n_regions; k++) {
		const struct sm_region *r = &c->regions[k];
		json_object *m = json_object_new_object();

		for (int kind = 0; ok && m && kind < PK_MEM_KINDS; kind++) {
			char key[32];

			snprintf(key, sizeof(key), "peak_%s", pk_gpu_mem_kind_name((enum pk_gpu_mem_kind)kind));
			if (r->fields & (1u << kind))
				ok = jput_u64(m, key, r->peak[kind]);
			else
				ok = jput(m, key, NULL, false);
		}
		if (!ok || !m) {
			json_object_put(m);
			ok = false;
		} else {
			ok = jput(mem, r->name, m, true);
		}
	}
	if (ok && jput(o, "engines", eng, true)) {
		eng = NULL;
		if (jput(o, "memory", mem, true))
			return o;
		mem = NULL;
	}
	json_object_put(eng);
	json_object_put(mem);
	json_object_put(o);
	return NULL;
}

int pk_gpu_summary_json(const struct pk_gpu_summary *sm, struct pk_buf *out)
{
	json_object *root, *sum, *clients;
	const char *text;
	size_t len = 0;
	bool ok;
	int err;

	if (!sm || !out)
		return -EINVAL;
	root = json_object_new_object();
	sum = json_object_new_object();
	clients = json_object_new_array();
	ok = root && sum && clients && jput_u64(sum, "scans", sm->scans) &&
	     jput_u64(sum, "duration_ns", sm->last_ns - sm->first_ns);
	for (uint32_t i = 0; ok && i < sm->n_clients; i++) {
		json_object *c = client_json(&sm->clients[i]);

		ok = c && json_object_array_add(clients, c) == 0;
		if (!ok)
			json_object_put(c);
	}
	if (ok && (ok = json_object_object_add(sum, "clients", clients) == 0))
		clients = NULL;
	if (ok && (ok = json_object_object_add(root, "summary", sum) == 0))
		sum = NULL;
	json_object_put(clients);
	json_object_put(sum);
	if (!ok) {
		json_object_put(root);
		return -ENOMEM;
	}
	text = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	err = text ? pk_buf_append(out, text, len) : -ENOMEM;
	if (!err)
		err = pk_buf_append(out, "\n", 1);
	json_object_put(root);
	return err;
}
