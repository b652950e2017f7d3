/*
 * The JSON printer of `perfkit gpu --json`: one snapshot as one JSON object
 * on one line (JSON Lines), written with json-c. The layout is documented
 * at pk_gpu_snapshot_json() in include/perfkit/gpu.h; counters a client's
 * fdinfo did not carry are null rather than 0, so a consumer can tell "idle"
 * from "not reported" (DESIGN.md principle 5).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <perfkit/gpu.h>

/* Builds a JSON tree, remembering whether any allocation failed. */
struct jb {
	int err;
};

static json_object *jb_check(struct jb *b, json_object *o)
{
	if (!o)
		b->err = -ENOMEM;
	return o;
}

/* Add @val (NULL only after an allocation failure, which is then recorded) under @key. */
static void jb_add(struct jb *b, json_object *obj, const char *key, json_object *val)
{
	if (!obj || !val) {
		b->err = -ENOMEM;
		json_object_put(val);
		return;
	}
	if (json_object_object_add(obj, key, val) != 0) {
		b->err = -ENOMEM;
		json_object_put(val);
	}
}

static void jb_null(struct jb *b, json_object *obj, const char *key)
{
	if (!obj || json_object_object_add(obj, key, NULL) != 0)
		b->err = -ENOMEM;
}

static void jb_push(struct jb *b, json_object *arr, json_object *val)
{
	if (!arr || !val || json_object_array_add(arr, val) != 0) {
		b->err = -ENOMEM;
		json_object_put(val);
	}
}

static void jb_u64(struct jb *b, json_object *obj, const char *key, uint64_t v)
{
	jb_add(b, obj, key, json_object_new_uint64(v));
}

static void jb_i64(struct jb *b, json_object *obj, const char *key, int64_t v)
{
	jb_add(b, obj, key, json_object_new_int64(v));
}

static void jb_str(struct jb *b, json_object *obj, const char *key, const char *s)
{
	jb_add(b, obj, key, json_object_new_string(s ? s : ""));
}

static void jb_bool(struct jb *b, json_object *obj, const char *key, bool v)
{
	jb_add(b, obj, key, json_object_new_boolean(v));
}

/* A percentage, or null when @has is false (or the value is not finite). */
static void jb_pct(struct jb *b, json_object *obj, const char *key, bool has, double v)
{
	if (has && isfinite(v))
		jb_add(b, obj, key, json_object_new_double(v));
	else
		jb_null(b, obj, key);
}

/* {"<region>": {"<kind>": bytes, ...}} with only the kinds present. */
static json_object *memory_json(struct jb *b, const struct pk_fdinfo_region *r, uint32_t n)
{
	json_object *mem = jb_check(b, json_object_new_object());

	for (uint32_t i = 0; mem && i < n; i++) {
		json_object *o = jb_check(b, json_object_new_object());

		for (int k = 0; o && k < PK_MEM_KINDS; k++)
			if (r[i].fields & (1u << k))
				jb_u64(b, o, pk_gpu_mem_kind_name((enum pk_gpu_mem_kind)k), r[i].bytes[k]);
		jb_add(b, mem, r[i].name, o);
	}
	return mem;
}

/* Engines summed over clients (devices and processes). */
static json_object *engine_sums_json(struct jb *b, const struct pk_gpu_engine_sum *e, uint32_t n)
{
	json_object *eng = jb_check(b, json_object_new_object());

	for (uint32_t i = 0; eng && i < n; i++) {
		json_object *o = jb_check(b, json_object_new_object());

		jb_pct(b, o, "busy_pct", e[i].has_busy, e[i].busy_pct);
		jb_u64(b, o, "ns", e[i].d_ns);
		jb_u64(b, o, "cycles", e[i].d_cycles);
		jb_u64(b, o, "capacity", e[i].capacity);
		jb_add(b, eng, e[i].name ? e[i].name : "", o);
	}
	return eng;
}

static json_object *device_json(struct jb *b, const struct pk_gpu_device_view *v)
{
	static const struct pk_gpu_device none;
	const struct pk_gpu_device *d = v->dev ? v->dev : &none;
	json_object *o = jb_check(b, json_object_new_object());
	json_object *nodes = jb_check(b, json_object_new_array());

	jb_str(b, o, "key", d->key);
	jb_str(b, o, "driver", d->driver);
	jb_str(b, o, "pdev", d->pdev);
	jb_u64(b, o, "vendor_id", d->vendor_id);
	jb_u64(b, o, "device_id", d->device_id);
	jb_str(b, o, "vendor", d->vendor_name);
	jb_str(b, o, "name", d->device_name);
	jb_bool(b, o, "accel", d->accel);
	for (uint32_t i = 0; nodes && i < d->n_nodes && i < PK_GPU_MAX_NODES; i++) {
		json_object *n = jb_check(b, json_object_new_object());

		jb_str(b, n, "name", d->nodes[i].name);
		jb_i64(b, n, "major", d->nodes[i].major);
		jb_i64(b, n, "minor", d->nodes[i].minor);
		jb_push(b, nodes, n);
	}
	jb_add(b, o, "nodes", nodes);
	jb_u64(b, o, "clients", v->n_clients);
	jb_add(b, o, "engines", engine_sums_json(b, v->engines, v->n_engines));
	jb_add(b, o, "memory", memory_json(b, v->memory, v->n_memory));
	return o;
}

/* A client's engine: counters absent from its fdinfo are null. */
static json_object *engine_use_json(struct jb *b, const struct pk_gpu_engine_use *u)
{
	json_object *o = jb_check(b, json_object_new_object());
	unsigned f = u->raw.fields;

	jb_pct(b, o, "busy_pct", u->has_busy, u->busy_pct);
	if (f & PK_ENGINE_NS)
		jb_u64(b, o, "ns", u->ns);
	else
		jb_null(b, o, "ns");
	if (f & PK_ENGINE_CYCLES)
		jb_u64(b, o, "cycles", u->cycles);
	else
		jb_null(b, o, "cycles");
	if (f & PK_ENGINE_TOTAL_CYCLES)
		jb_u64(b, o, "total_cycles", u->total_cycles);
	else
		jb_null(b, o, "total_cycles");
	jb_u64(b, o, "capacity", u->raw.capacity);
	if (f & PK_ENGINE_MAXFREQ)
		jb_u64(b, o, "maxfreq_hz", u->raw.maxfreq_hz);
	else
		jb_null(b, o, "maxfreq_hz");
	jb_str(b, o, "basis", pk_gpu_basis_name(u->basis));
	return o;
}

static json_object *client_json(struct jb *b, const struct pk_gpu_snapshot *s,
				const struct pk_gpu_client *c)
{
	json_object *o = jb_check(b, json_object_new_object());
	json_object *holders = jb_check(b, json_object_new_array());
	json_object *eng = jb_check(b, json_object_new_object());
	json_object *keys = jb_check(b, json_object_new_object());
	const char *dev = "";

	if (c->device < s->n_devices && s->devices[c->device].dev)
		dev = s->devices[c->device].dev->key;
	jb_i64(b, o, "pid", c->pid);
	jb_str(b, o, "comm", c->comm);
	jb_str(b, o, "driver", c->driver);
	jb_str(b, o, "pdev", c->pdev);
	if (c->has_client_id)
		jb_u64(b, o, "client_id", c->client_id);
	else
		jb_null(b, o, "client_id");
	jb_str(b, o, "name", c->name);
	jb_str(b, o, "device", dev);
	for (uint32_t i = 0; holders && i < c->n_holders; i++) {
		json_object *h = jb_check(b, json_object_new_object());

		jb_i64(b, h, "pid", c->holders[i].pid);
		jb_i64(b, h, "fd", c->holders[i].fd);
		jb_push(b, holders, h);
	}
	jb_add(b, o, "holders", holders);
	jb_u64(b, o, "interval_ns", c->interval_ns);
	jb_bool(b, o, "new", c->is_new);
	for (uint32_t i = 0; eng && i < c->n_engines; i++)
		jb_add(b, eng, c->engines[i].raw.name, engine_use_json(b, &c->engines[i]));
	jb_add(b, o, "engines", eng);
	jb_add(b, o, "memory", memory_json(b, c->memory, c->n_memory));
	for (uint32_t i = 0; keys && i < c->n_extras; i++)
		if (c->extras[i].key)
			jb_str(b, keys, c->extras[i].key, c->extras[i].value);
	jb_add(b, o, "driver_keys", keys);
	return o;
}

static json_object *process_json(struct jb *b, const struct pk_gpu_process *p)
{
	json_object *o = jb_check(b, json_object_new_object());
	json_object *cl = jb_check(b, json_object_new_array());

	jb_i64(b, o, "pid", p->pid);
	jb_str(b, o, "comm", p->comm);
	for (uint32_t i = 0; cl && i < p->n_clients; i++)
		jb_push(b, cl, json_object_new_uint64(p->clients[i]));
	jb_add(b, o, "clients", cl);
	jb_u64(b, o, "shared_clients", p->n_shared);
	jb_pct(b, o, "busy_pct", true, p->busy_pct);
	jb_add(b, o, "engines", engine_sums_json(b, p->engines, p->n_engines));
	jb_add(b, o, "memory", memory_json(b, p->memory, p->n_memory));
	return o;
}

int pk_gpu_snapshot_json(const struct pk_gpu_snapshot *s, struct pk_buf *out)
{
	struct jb b = { 0 };
	json_object *root, *devs, *clients, *procs;
	const char *text;
	size_t len = 0;
	int err;

	if (!s || !out)
		return -EINVAL;
	root = jb_check(&b, json_object_new_object());
	jb_u64(&b, root, "time_ns", s->time_ns);
	jb_u64(&b, root, "interval_ns", s->interval_ns);
	jb_u64(&b, root, "seq", s->seq);
	devs = jb_check(&b, json_object_new_array());
	for (uint32_t i = 0; devs && i < s->n_devices; i++)
		jb_push(&b, devs, device_json(&b, &s->devices[i]));
	jb_add(&b, root, "devices", devs);
	clients = jb_check(&b, json_object_new_array());
	for (uint32_t i = 0; clients && i < s->n_clients; i++)
		jb_push(&b, clients, client_json(&b, s, &s->clients[i]));
	jb_add(&b, root, "clients", clients);
	procs = jb_check(&b, json_object_new_array());
	for (uint32_t i = 0; procs && i < s->n_processes; i++)
		jb_push(&b, procs, process_json(&b, &s->processes[i]));
	jb_add(&b, root, "processes", procs);
	jb_u64(&b, root, "unreadable_processes", s->stats.unreadable);
	jb_u64(&b, root, "vanished", s->stats.vanished);
	jb_u64(&b, root, "malformed_lines", s->stats.malformed);
	jb_u64(&b, root, "drm_fds", s->stats.drm_fds);
	if (b.err) {
		json_object_put(root);
		return b.err;
	}
	text = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (!text) {
		json_object_put(root);
		return -ENOMEM;
	}
	err = pk_buf_append(out, text, len);
	if (!err)
		err = pk_buf_append(out, "\n", 1);
	json_object_put(root);
	return err;
}
