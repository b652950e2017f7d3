/*
 * The GPU client tracker: successive scans of DRM fdinfo samples (one per
 * fd) become clients with utilization, and per-process and per-device sums.
 *
 * A client is keyed by (device key, drm-client-id), the device key being
 * drm-pdev, else the known device owning the fd's DRM node, else the node's
 * "major:minor"; a file without drm-client-id is keyed by (device, pid, fd).
 * The first sample of a client in a scan gives its values; further fds or
 * processes reaching the same client only add holders, so a client shared
 * by dup() or fork() is counted once.
 *
 * Per engine the tracker keeps the effective (never decreasing) ns, cycles
 * and total-cycles: a value below the largest seen keeps the larger one
 * until the counter catches up, as the specification asks, so a dip is a
 * zero delta and the recovery is measured from the larger value. The busy
 * percentage is chosen as gpu.h says: total-cycles, else ns over the
 * client's measured interval, else cycles over maxfreq times the interval;
 * divided by the capacity and clamped to [0, 100].
 *
 * The snapshot (clients, processes, devices) is rebuilt at every scan's end
 * (tracker_snapshot.c) into arrays the tracker keeps and reuses; pointers
 * in it stay valid until the next scan begins.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracker_int.h"

PK_API const char *pk_gpu_basis_name(enum pk_gpu_basis b)
{
	switch (b) {
	case PK_BASIS_TOTAL_CYCLES: return "total-cycles";
	case PK_BASIS_NS: return "ns";
	case PK_BASIS_MAXFREQ: return "maxfreq";
	default: return "none";
	}
}

PK_API struct pk_gpu_tracker *pk_gpu_tracker_new(void)
{
	return calloc(1, sizeof(struct pk_gpu_tracker));
}

/*
 * pk_array_grow() for a client array that starts in the client's inline
 * storage @inl (of @inl_cap elements) and moves to the heap when it outgrows it.
 */
static int grow(void **p, size_t *cap, size_t need, size_t elem, void *inl, size_t inl_cap)
{
	size_t n = inl_cap;
	void *q;

	if (!*p) {
		*p = inl;
		*cap = inl_cap;
	}
	if (need <= *cap)
		return 0;
	if (*p != inl)
		return pk_array_grow(p, cap, need, elem, inl_cap);
	while (n < need) {
		if (n > SIZE_MAX / 2 / elem)
			return -ENOMEM;
		n *= 2;
	}
	q = malloc(n * elem);
	if (!q)
		return -ENOMEM;
	memcpy(q, inl, inl_cap * elem);
	*p = q;
	*cap = n;
	return 0;
}

static void client_free(struct tclient *c)
{
	if (!c)
		return;
	if (c->es != c->es_in)
		free(c->es);
	if (c->uses != c->uses_in)
		free(c->uses);
	if (c->use_iname != c->use_iname_in)
		free(c->use_iname);
	if (c->mem != c->mem_in)
		free(c->mem);
	if (c->mem_iname != c->mem_iname_in)
		free(c->mem_iname);
	free(c->extras);
	pk_buf_release(&c->xstore);
	if (c->holders != c->holders_in)
		free(c->holders);
	if (c->holder_comm != c->holder_comm_in)
		free(c->holder_comm);
	free(c);
}

PK_API void pk_gpu_tracker_free(struct pk_gpu_tracker *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n_clients; i++)
		client_free(t->clients[i]);
	free(t->clients);
	free(t->table);
	free(t->devices);
	for (i = 0; i < t->names_cap; i++)
		free(t->names[i]);
	free(t->names);
	free(t->sum_iname);
	free(t->msum_iname);
	free(t->ce);
	free(t->cm);
	free(t->dev_view);
	free(t->offs);
	free(t->out_clients);
	free(t->out_devices);
	free(t->out_procs);
	free(t->proc_client_idx);
	free(t->pairs);
	free(t->sums);
	free(t->msums);
	free(t->order);
	free(t);
}

static void copy_str(char *dst, size_t sz, const char *src)
{
	size_t n = src ? strnlen(src, sz - 1) : 0;

	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

PK_API int pk_gpu_tracker_set_devices(struct pk_gpu_tracker *t, const struct pk_gpu_device *devs,
				      uint32_t n)
{
	uint32_t i;

	if (pk_array_grow((void **)&t->devices, &t->devices_cap, n, sizeof(*t->devices), 8))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t->devices[i].dev = devs[i];
	}
	t->n_devices = t->n_known = n;
	return 0;
}

PK_API int pk_gpu_tracker_begin(struct pk_gpu_tracker *t, uint64_t time_ns)
{
	t->seq++;
	t->prev_scan_time = t->scan_time;
	t->scan_time = time_ns;
	t->in_scan = true;
	t->n_ce = t->n_cm = 0;
	/* devices seen only in fdinfo are found again in every scan */
	t->n_devices = t->n_known;
	return 0;
}

/* ---- names and client lookup -------------------------------------------------- */

static uint64_t hash_str(const char *s, uint64_t h)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The one copy of @name the tracker keeps (engine and region names). NULL without memory. */
static const char *intern(struct pk_gpu_tracker *t, const char *name)
{
	size_t j;

	if ((t->n_names + 1) * 2 > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap * 2 : 64, i;
		char **tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return NULL;
		for (i = 0; i < t->names_cap; i++) {
			if (!t->names[i])
				continue;
			for (j = hash_str(t->names[i], 0xcbf29ce484222325ULL) & (cap - 1); tab[j];
			     j = (j + 1) & (cap - 1))
				;
			tab[j] = t->names[i];
		}
		free(t->names);
		t->names = tab;
		t->names_cap = cap;
	}
	for (j = hash_str(name, 0xcbf29ce484222325ULL) & (t->names_cap - 1); t->names[j];
	     j = (j + 1) & (t->names_cap - 1))
		if (strcmp(t->names[j], name) == 0)
			return t->names[j];
	t->names[j] = strdup(name);
	if (t->names[j])
		t->n_names++;
	return t->names[j];
}

static uint64_t client_hash(const char *dev_key, bool has_id, uint64_t id, pid_t pid, int fd)
{
	uint64_t h = hash_str(dev_key, 0xcbf29ce484222325ULL);

	if (has_id)
		return pk_hash_mix64(h ^ pk_hash_mix64(id));
	return pk_hash_mix64(h ^ pk_hash_mix64(((uint64_t)(uint32_t)pid << 32 | (uint32_t)fd) + 1) ^
			     0x9e3779b97f4a7c15ULL);
}

static bool client_is(const struct tclient *c, uint64_t hash, const char *dev_key, bool has_id,
		      uint64_t id, pid_t pid, int fd)
{
	if (c->hash != hash || c->has_id != has_id || strcmp(c->dev_key, dev_key) != 0)
		return false;
	return has_id ? c->id == id : (c->key_pid == pid && c->key_fd == fd);
}

static int table_rebuild(struct pk_gpu_tracker *t, size_t want)
{
	size_t cap = 64, i;
	uint32_t *tab;

	while (cap < want * 2)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->n_clients; i++) {
		size_t j = t->clients[i]->hash & (cap - 1);

		while (tab[j])
			j = (j + 1) & (cap - 1);
		tab[j] = (uint32_t)i + 1;
	}
	free(t->table);
	t->table = tab;
	t->table_cap = cap;
	return 0;
}

static struct tclient *client_find(struct pk_gpu_tracker *t, uint64_t hash, const char *dev_key,
				   bool has_id, uint64_t id, pid_t pid, int fd)
{
	size_t j;

	if (!t->table_cap)
		return NULL;
	for (j = hash & (t->table_cap - 1); t->table[j]; j = (j + 1) & (t->table_cap - 1)) {
		struct tclient *c = t->clients[t->table[j] - 1];

		if (client_is(c, hash, dev_key, has_id, id, pid, fd))
			return c;
	}
	return NULL;
}

static struct tclient *client_new(struct pk_gpu_tracker *t, uint64_t hash, const char *dev_key,
				  bool has_id, uint64_t id, pid_t pid, int fd)
{
	struct tclient *c;
	size_t j;

	if ((t->n_clients + 1) * 2 > t->table_cap && table_rebuild(t, t->n_clients + 1))
		return NULL;
	if (pk_array_grow((void **)&t->clients, &t->clients_cap, t->n_clients + 1,
			  sizeof(*t->clients), 64))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->hash = hash;
	copy_str(c->dev_key, sizeof(c->dev_key), dev_key);
	c->has_id = has_id;
	c->id = id;
	c->key_pid = pid;
	c->key_fd = fd;
	pk_buf_init(&c->xstore);
	t->clients[t->n_clients] = c;
	for (j = hash & (t->table_cap - 1); t->table[j]; j = (j + 1) & (t->table_cap - 1))
		;
	t->table[j] = (uint32_t)t->n_clients + 1;
	t->n_clients++;
	return c;
}

/* ---- devices ------------------------------------------------------------------ */

/* The device index for a sample, adding a device seen only in fdinfo. -1 without memory. */
static int32_t device_for(struct pk_gpu_tracker *t, const struct pk_fdinfo *fi, int major, int minor,
			  char *key, size_t key_sz)
{
	struct tdevice *d;
	size_t i, k;

	if (fi->has & PK_FDINFO_PDEV) {
		copy_str(key, key_sz, fi->pdev);
	} else {
		key[0] = '\0';
		for (i = 0; i < t->n_known && !key[0]; i++)
			for (k = 0; k < t->devices[i].dev.n_nodes && k < PK_GPU_MAX_NODES; k++)
				if (t->devices[i].dev.nodes[k].major == major &&
				    t->devices[i].dev.nodes[k].minor == minor) {
					copy_str(key, key_sz, t->devices[i].dev.key);
					break;
				}
		if (!key[0]) {
			if (major >= 0)
				snprintf(key, key_sz, "%d:%d", major, minor);
			else
				snprintf(key, key_sz, "%s", fi->driver);
		}
	}
	if (t->last_device < t->n_devices && strcmp(t->devices[t->last_device].dev.key, key) == 0)
		return (int32_t)t->last_device;
	for (i = 0; i < t->n_devices; i++)
		if (strcmp(t->devices[i].dev.key, key) == 0 ||
		    (t->devices[i].dev.pdev[0] && strcmp(t->devices[i].dev.pdev, key) == 0)) {
			t->last_device = i;
			return (int32_t)i;
		}
	if (pk_array_grow((void **)&t->devices, &t->devices_cap, t->n_devices + 1,
			  sizeof(*t->devices), 8))
		return -1;
	d = &t->devices[t->n_devices];
	memset(d, 0, sizeof(*d));
	copy_str(d->dev.key, sizeof(d->dev.key), key);
	copy_str(d->dev.driver, sizeof(d->dev.driver), fi->driver);
	if (fi->has & PK_FDINFO_PDEV)
		copy_str(d->dev.pdev, sizeof(d->dev.pdev), fi->pdev);
	if (major >= 0) {
		d->dev.n_nodes = 1;
		snprintf(d->dev.nodes[0].name, sizeof(d->dev.nodes[0].name), "%d:%d", major, minor);
		d->dev.nodes[0].major = major;
		d->dev.nodes[0].minor = minor;
	}
	t->last_device = t->n_devices;
	return (int32_t)t->n_devices++;
}

/* ---- one sample ------------------------------------------------------------------ */

static int holder_add(struct tclient *c, pid_t pid, int fd, const char *comm)
{
	if (grow((void **)&c->holders, &c->holders_cap, c->n_holders + 1, sizeof(*c->holders),
		 c->holders_in, INLINE_HOLDERS) ||
	    grow((void **)&c->holder_comm, &c->holder_comm_cap, c->n_holders + 1,
		 sizeof(*c->holder_comm), c->holder_comm_in, INLINE_HOLDERS))
		return -ENOMEM;
	c->holders[c->n_holders].pid = pid;
	c->holders[c->n_holders].fd = fd;
	copy_str(c->holder_comm[c->n_holders], COMM_MAX, comm);
	c->n_holders++;
	return 0;
}

/* The state of engine @name, looked up first at @hint (engines keep their order). */
static struct estate *estate_get(struct pk_gpu_tracker *t, struct tclient *c, const char *name,
				 size_t hint)
{
	struct estate *e;
	size_t i;

	if (hint < c->n_es && strcmp(c->es[hint].name, name) == 0)
		return &c->es[hint];
	for (i = 0; i < c->n_es; i++)
		if (strcmp(c->es[i].name, name) == 0)
			return &c->es[i];
	if (grow((void **)&c->es, &c->es_cap, c->n_es + 1, sizeof(*c->es), c->es_in, INLINE_ENGINES))
		return NULL;
	e = &c->es[c->n_es];
	memset(e, 0, sizeof(*e));
	copy_str(e->name, PK_GPU_NAME_MAX, name);
	e->iname = intern(t, e->name);
	if (!e->iname)
		return NULL;
	c->n_es++;
	return e;
}

/*
 * Advance one effective counter: the new effective value is the larger of
 * the old and the raw one. @known: there is an old value (else the
 * baseline is 0 for a known client and "no delta" for a new one).
 */
static void advance(uint64_t *eff, bool known, bool baseline_zero, uint64_t raw, uint64_t *delta)
{
	if (known) {
		uint64_t v = raw > *eff ? raw : *eff;

		*delta = v - *eff;
		*eff = v;
	} else {
		*delta = baseline_zero ? raw : 0;
		*eff = raw;
	}
}

static double clamp_pct(double x)
{
	if (!(x > 0))
		return 0;
	return x > 100 ? 100 : x;
}

static int engine_update(struct pk_gpu_tracker *t, struct tclient *c, const struct pk_fdinfo_engine *raw,
			 size_t index)
{
	struct pk_gpu_engine_use *u = &c->uses[index];
	bool had_ns, had_cyc, had_tot;
	bool known_client = c->has_prev;
	struct estate *es = estate_get(t, c, raw->name, index);
	uint64_t cap = raw->capacity ? raw->capacity : 1;

	if (!es)
		return -ENOMEM;
	c->use_iname[index] = es->iname;
	memset(u, 0, sizeof(*u));
	u->raw = *raw;
	had_ns = es->fields & PK_ENGINE_NS;
	had_cyc = es->fields & PK_ENGINE_CYCLES;
	had_tot = es->fields & PK_ENGINE_TOTAL_CYCLES;
	/* A counter first seen on a known client counted from 0 (amdgpu lists engines once used). */
	if (raw->fields & PK_ENGINE_NS)
		advance(&es->ns, had_ns, known_client, raw->ns, &u->d_ns);
	if (raw->fields & PK_ENGINE_CYCLES)
		advance(&es->cycles, had_cyc, known_client, raw->cycles, &u->d_cycles);
	if (raw->fields & PK_ENGINE_TOTAL_CYCLES)
		advance(&es->total, had_tot, false, raw->total_cycles, &u->d_total_cycles);
	es->fields |= raw->fields & (PK_ENGINE_NS | PK_ENGINE_CYCLES | PK_ENGINE_TOTAL_CYCLES);
	u->ns = es->ns;
	u->cycles = es->cycles;
	u->total_cycles = es->total;

	u->basis = PK_BASIS_NONE;
	if (!known_client)
		return 0;
	if ((raw->fields & PK_ENGINE_CYCLES) && (raw->fields & PK_ENGINE_TOTAL_CYCLES) && had_tot &&
	    u->d_total_cycles > 0) {
		u->basis = PK_BASIS_TOTAL_CYCLES;
		u->busy_pct = 100.0 * (double)u->d_cycles / (double)u->d_total_cycles / (double)cap;
	} else if ((raw->fields & PK_ENGINE_NS) && c->interval > 0) {
		u->basis = PK_BASIS_NS;
		u->busy_pct = 100.0 * (double)u->d_ns / (double)c->interval / (double)cap;
	} else if ((raw->fields & PK_ENGINE_CYCLES) && (raw->fields & PK_ENGINE_MAXFREQ) &&
		   raw->maxfreq_hz > 0 && c->interval > 0) {
		u->basis = PK_BASIS_MAXFREQ;
		u->busy_pct = 100.0 * (double)u->d_cycles * 1e9 /
			      ((double)raw->maxfreq_hz * (double)c->interval) / (double)cap;
	}
	if (u->basis != PK_BASIS_NONE) {
		u->has_busy = true;
		u->busy_pct = clamp_pct(u->busy_pct);
	}
	return 0;
}

/* The interned names of a client's regions, reusing the previous sample's where they match. */
static int region_names(struct pk_gpu_tracker *t, struct tclient *c, const struct pk_fdinfo *fi)
{
	uint32_t i;

	for (i = 0; i < fi->n_regions; i++) {
		const char *name = fi->regions[i].name;

		if (i < c->n_mem && c->mem_iname[i] && strcmp(c->mem_iname[i], name) == 0)
			continue;
		c->mem_iname[i] = intern(t, name);
		if (!c->mem_iname[i])
			return -ENOMEM;
	}
	return 0;
}

/* Record what @c adds to the sums, while its data is hot. */
static int contribute(struct pk_gpu_tracker *t, struct tclient *c)
{
	size_t i;

	if (pk_array_grow((void **)&t->ce, &t->ce_cap, t->n_ce + c->n_uses, sizeof(*t->ce), 256) ||
	    pk_array_grow((void **)&t->cm, &t->cm_cap, t->n_cm + c->n_mem, sizeof(*t->cm), 256))
		return -ENOMEM;
	c->ce_off = t->n_ce;
	c->cm_off = t->n_cm;
	for (i = 0; i < c->n_uses; i++) {
		struct contrib_engine *e = &t->ce[t->n_ce++];
		const struct pk_gpu_engine_use *u = &c->uses[i];

		e->iname = c->use_iname[i];
		e->busy = u->busy_pct;
		e->has_busy = u->has_busy;
		e->d_ns = u->d_ns;
		e->d_cycles = u->d_cycles;
		e->capacity = u->raw.capacity;
	}
	for (i = 0; i < c->n_mem; i++) {
		struct contrib_mem *m = &t->cm[t->n_cm++];

		m->iname = c->mem_iname[i];
		m->fields = c->mem[i].fields;
		memcpy(m->bytes, c->mem[i].bytes, sizeof(m->bytes));
	}
	return 0;
}

static int client_sample(struct pk_gpu_tracker *t, struct tclient *c, const struct pk_gpu_fd_sample *s)
{
	const struct pk_fdinfo *fi = s->fdinfo;
	uint32_t i;

	copy_str(c->driver, sizeof(c->driver), fi->driver);
	copy_str(c->pdev, sizeof(c->pdev), (fi->has & PK_FDINFO_PDEV) ? fi->pdev : "");
	copy_str(c->name, sizeof(c->name), (fi->has & PK_FDINFO_CLIENT_NAME) ? fi->client_name : "");
	c->time = s->time_ns;
	c->is_new = !c->has_prev;
	c->interval = c->has_prev && s->time_ns > c->prev_time ? s->time_ns - c->prev_time : 0;
	c->n_holders = 0;

	if (grow((void **)&c->uses, &c->uses_cap, fi->n_engines, sizeof(*c->uses), c->uses_in,
		 INLINE_ENGINES) ||
	    grow((void **)&c->use_iname, &c->use_iname_cap, fi->n_engines, sizeof(*c->use_iname),
		 c->use_iname_in, INLINE_ENGINES))
		return -ENOMEM;
	c->n_uses = 0;
	c->busy = 0;
	for (i = 0; i < fi->n_engines; i++) {
		if (engine_update(t, c, &fi->engines[i], c->n_uses))
			return -ENOMEM;
		if (c->uses[c->n_uses].has_busy)
			c->busy += c->uses[c->n_uses].busy_pct;
		c->n_uses++;
	}

	if (grow((void **)&c->mem, &c->mem_cap, fi->n_regions, sizeof(*c->mem), c->mem_in,
		 INLINE_REGIONS) ||
	    grow((void **)&c->mem_iname, &c->mem_iname_cap, fi->n_regions, sizeof(*c->mem_iname),
		 c->mem_iname_in, INLINE_REGIONS))
		return -ENOMEM;
	if (c->mem_iname_cap > c->n_mem)
		memset(c->mem_iname + c->n_mem, 0, (c->mem_iname_cap - c->n_mem) * sizeof(*c->mem_iname));
	if (region_names(t, c, fi))
		return -ENOMEM;
	if (fi->n_regions)
		memcpy(c->mem, fi->regions, fi->n_regions * sizeof(*c->mem));
	c->n_mem = fi->n_regions;

	/* extras: keys and values copied, pointers set once the store stops moving */
	c->xstore.len = 0;
	if (pk_array_grow((void **)&c->extras, &c->extras_cap, fi->n_extras, sizeof(*c->extras), 8))
		return -ENOMEM;
	for (i = 0; i < fi->n_extras; i++) {
		size_t ko = c->xstore.len, vo;

		if (pk_buf_append(&c->xstore, fi->extras[i].key, strlen(fi->extras[i].key) + 1))
			return -ENOMEM;
		vo = c->xstore.len;
		if (pk_buf_append(&c->xstore, fi->extras[i].value, strlen(fi->extras[i].value) + 1))
			return -ENOMEM;
		c->extras[i].key = (const char *)(uintptr_t)ko;
		c->extras[i].value = (const char *)(uintptr_t)vo;
	}
	for (i = 0; i < fi->n_extras; i++) {
		c->extras[i].key = c->xstore.data + (uintptr_t)c->extras[i].key;
		c->extras[i].value = c->xstore.data + (uintptr_t)c->extras[i].value;
	}
	c->n_extras = fi->n_extras;
	if (contribute(t, c))
		return -ENOMEM;
	c->has_prev = true;
	c->prev_time = s->time_ns;
	return holder_add(c, s->pid, s->fd, s->comm);
}

PK_API int pk_gpu_tracker_add(struct pk_gpu_tracker *t, const struct pk_gpu_fd_sample *s)
{
	const struct pk_fdinfo *fi = s->fdinfo;
	char key[PK_GPU_NAME_MAX];
	bool has_id = fi->has & PK_FDINFO_CLIENT_ID;
	int32_t dev;
	uint64_t h;
	struct tclient *c;

	if (!t->in_scan)
		return -EINVAL;
	dev = device_for(t, fi, s->major, s->minor, key, sizeof(key));
	if (dev < 0)
		return -ENOMEM;
	h = client_hash(key, has_id, fi->client_id, s->pid, s->fd);
	c = client_find(t, h, key, has_id, fi->client_id, s->pid, s->fd);
	if (c && c->mark == t->seq)
		return holder_add(c, s->pid, s->fd, s->comm);
	if (!c) {
		c = client_new(t, h, key, has_id, fi->client_id, s->pid, s->fd);
		if (!c)
			return -ENOMEM;
	}
	c->mark = t->seq;
	c->device = dev;
	return client_sample(t, c, s);
}

/* Drop the clients the scan did not see and rebuild the lookup table. */
static int drop_unseen(struct pk_gpu_tracker *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->n_clients; i++) {
		if (t->clients[i]->mark == t->seq)
			t->clients[n++] = t->clients[i];
		else
			client_free(t->clients[i]);
	}
	if (n == t->n_clients)
		return 0;
	t->n_clients = n;
	return table_rebuild(t, n ? n : 1);
}

PK_API int pk_gpu_tracker_end(struct pk_gpu_tracker *t, const struct pk_gpu_scan_stats *stats)
{
	int err;

	if (!t->in_scan)
		return -EINVAL;
	t->in_scan = false;
	err = drop_unseen(t);
	if (err)
		return err;
	t->snap.seq = t->seq;
	t->snap.time_ns = t->scan_time;
	t->snap.interval_ns = t->seq > 1 && t->scan_time > t->prev_scan_time ?
			      t->scan_time - t->prev_scan_time : 0;
	if (stats)
		t->snap.stats = *stats;
	else
		memset(&t->snap.stats, 0, sizeof(t->snap.stats));
	return tracker_build_snapshot(t);
}

PK_API const struct pk_gpu_snapshot *pk_gpu_tracker_snapshot(const struct pk_gpu_tracker *t)
{
	return &t->snap;
}
