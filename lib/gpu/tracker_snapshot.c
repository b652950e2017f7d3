/*
 * The snapshot of a GPU tracker scan: the clients in a stable order, the
 * device views (known devices and those seen only in fdinfo, each with the
 * sums of its clients) and the process views (each process with every
 * client it holds, shared ones included and counted in n_shared).
 *
 * Everything is rebuilt at the end of each scan into arrays the tracker
 * keeps. The engine and memory sums of all views live in two shared arrays
 * that grow while the views are built, so each view records offsets first
 * and gets its pointers once the arrays stop moving. Sums match engines and
 * regions by interned name (a pointer comparison).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracker_int.h"

static int cmp_holder(const void *a, const void *b)
{
	const struct pk_gpu_holder *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->fd > y->fd) - (x->fd < y->fd);
}

/* Sort a client's holders (with their comms) and count distinct pids. */
static void holders_sort(struct tclient *c)
{
	size_t i, j;

	for (i = 1; i < c->n_holders; i++) {
		struct pk_gpu_holder h = c->holders[i];
		char comm[COMM_MAX];

		if (cmp_holder(&c->holders[i - 1], &h) <= 0)
			continue;
		memcpy(comm, c->holder_comm[i], COMM_MAX);
		for (j = i; j > 0 && cmp_holder(&c->holders[j - 1], &h) > 0; j--) {
			c->holders[j] = c->holders[j - 1];
			memcpy(c->holder_comm[j], c->holder_comm[j - 1], COMM_MAX);
		}
		c->holders[j] = h;
		memcpy(c->holder_comm[j], comm, COMM_MAX);
	}
	c->n_pids = 0;
	for (i = 0; i < c->n_holders; i++)
		if (i == 0 || c->holders[i].pid != c->holders[i - 1].pid)
			c->n_pids++;
}

static int cmp_client(const void *a, const void *b, void *ctx)
{
	const struct pk_gpu_tracker *t = ctx;
	const struct tclient *x = t->clients[*(const uint32_t *)a];
	const struct tclient *y = t->clients[*(const uint32_t *)b];
	uint32_t dx = t->dev_view[x->device], dy = t->dev_view[y->device];

	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (x->has_id != y->has_id)
		return x->has_id ? -1 : 1;
	if (x->has_id && x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return cmp_holder(&x->holders[0], &y->holders[0]);
}

static int cmp_device(const void *a, const void *b, void *ctx)
{
	const struct pk_gpu_tracker *t = ctx;

	return strcmp(t->devices[*(const uint32_t *)a].dev.key, t->devices[*(const uint32_t *)b].dev.key);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pid_client *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->client > y->client) - (x->client < y->client);
}

/* Fold one client (index @ci of the sorted clients) into the sums of the view at @o. */
static int sums_add(struct pk_gpu_tracker *t, const struct span_off *o, uint32_t ci)
{
	const struct tclient *tc = t->clients[t->order[ci]];
	const struct contrib_engine *ce = tc->n_uses ? t->ce + tc->ce_off : NULL;
	const struct contrib_mem *cm = tc->n_mem ? t->cm + tc->cm_off : NULL;
	size_t i, j, k;

	for (i = 0; i < tc->n_uses; i++) {
		struct pk_gpu_engine_sum *s = NULL;

		for (j = o->sum0; j < t->n_sums; j++)
			if (t->sum_iname[j] == ce[i].iname) {
				s = &t->sums[j];
				break;
			}
		if (!s) {
			if (pk_array_grow((void **)&t->sums, &t->sums_cap, t->n_sums + 1,
					  sizeof(*t->sums), 64) ||
			    pk_array_grow((void **)&t->sum_iname, &t->sum_iname_cap, t->n_sums + 1,
					  sizeof(*t->sum_iname), 64))
				return -ENOMEM;
			t->sum_iname[t->n_sums] = ce[i].iname;
			s = &t->sums[t->n_sums++];
			memset(s, 0, sizeof(*s));
			s->name = ce[i].iname;
		}
		if (ce[i].has_busy) {
			s->has_busy = true;
			s->busy_pct += ce[i].busy;
		}
		s->d_ns += ce[i].d_ns;
		s->d_cycles += ce[i].d_cycles;
		if (ce[i].capacity > s->capacity)
			s->capacity = ce[i].capacity;
	}
	for (i = 0; i < tc->n_mem; i++) {
		struct pk_fdinfo_region *m = NULL;

		for (j = o->mem0; j < t->n_msums; j++)
			if (t->msum_iname[j] == cm[i].iname) {
				m = &t->msums[j];
				break;
			}
		if (!m) {
			if (pk_array_grow((void **)&t->msums, &t->msums_cap, t->n_msums + 1,
					  sizeof(*t->msums), 64) ||
			    pk_array_grow((void **)&t->msum_iname, &t->msum_iname_cap, t->n_msums + 1,
					  sizeof(*t->msum_iname), 64))
				return -ENOMEM;
			t->msum_iname[t->n_msums] = cm[i].iname;
			m = &t->msums[t->n_msums++];
			memset(m, 0, sizeof(*m));
			snprintf(m->name, sizeof(m->name), "%s", cm[i].iname);
		}
		m->fields |= cm[i].fields;
		for (k = 0; k < PK_MEM_KINDS; k++)
			m->bytes[k] += cm[i].bytes[k];
	}
	return 0;
}

/*
 * Order the devices by key: dev_view[d] is device d's view index and
 * dev_view[n + v] view v's device. 0 or -ENOMEM.
 */
static int order_devices(struct pk_gpu_tracker *t)
{
	size_t i, n = t->n_devices;

	if (pk_array_grow((void **)&t->dev_view, &t->dev_view_cap, 2 * n + 1, sizeof(*t->dev_view), 16))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t->dev_view[n + i] = (uint32_t)i;
	if (n > 1)
		qsort_r(t->dev_view + n, n, sizeof(*t->dev_view), cmp_device, t);
	for (i = 0; i < n; i++)
		t->dev_view[t->dev_view[n + i]] = (uint32_t)i;
	return 0;
}

static int build_clients(struct pk_gpu_tracker *t)
{
	size_t i, n = t->n_clients;

	if (pk_array_grow((void **)&t->order, &t->order_cap, n, sizeof(*t->order), 64) ||
	    pk_array_grow((void **)&t->out_clients, &t->out_clients_cap, n, sizeof(*t->out_clients), 64))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		holders_sort(t->clients[i]);
		t->order[i] = (uint32_t)i;
	}
	if (n > 1)
		qsort_r(t->order, n, sizeof(*t->order), cmp_client, t);
	for (i = 0; i < n; i++) {
		struct tclient *c = t->clients[t->order[i]];
		struct pk_gpu_client *o = &t->out_clients[i];

		o->device = t->dev_view[c->device];
		o->driver = c->driver;
		o->pdev = c->pdev;
		o->name = c->name;
		o->has_client_id = c->has_id;
		o->client_id = c->id;
		o->pid = c->holders[0].pid;
		o->comm = c->holder_comm[0];
		o->holders = c->holders;
		o->n_holders = (uint32_t)c->n_holders;
		o->n_pids = c->n_pids;
		o->time_ns = c->time;
		o->interval_ns = c->interval;
		o->is_new = c->is_new;
		o->busy_pct = c->busy;
		o->engines = c->uses;
		o->n_engines = (uint32_t)c->n_uses;
		o->memory = c->mem;
		o->n_memory = (uint32_t)c->n_mem;
		o->extras = c->extras;
		o->n_extras = (uint32_t)c->n_extras;
	}
	t->snap.clients = n ? t->out_clients : NULL;
	t->snap.n_clients = (uint32_t)n;
	return 0;
}

/* Offsets of one more view's sums (the views of devices first, then of processes). */
static struct span_off *view_offsets(struct pk_gpu_tracker *t, size_t index)
{
	struct span_off *o;

	if (pk_array_grow((void **)&t->offs, &t->offs_cap, index + 1, sizeof(*t->offs), 64))
		return NULL;
	o = &t->offs[index];
	o->sum0 = o->sum1 = t->n_sums;
	o->mem0 = o->mem1 = t->n_msums;
	return o;
}

static int build_devices(struct pk_gpu_tracker *t)
{
	size_t i, j, n = t->n_devices, nc = t->snap.n_clients;

	if (pk_array_grow((void **)&t->out_devices, &t->out_devices_cap, n, sizeof(*t->out_devices), 8))
		return -ENOMEM;
	/* the clients are sorted by device view already */
	for (i = 0, j = 0; i < n; i++) {
		struct pk_gpu_device_view *v = &t->out_devices[i];
		struct span_off *o = view_offsets(t, i);

		if (!o)
			return -ENOMEM;
		memset(v, 0, sizeof(*v));
		v->dev = &t->devices[t->dev_view[n + i]].dev;
		for (; j < nc && t->out_clients[j].device == i; j++) {
			v->n_clients++;
			if (sums_add(t, o, (uint32_t)j))
				return -ENOMEM;
		}
		o->sum1 = t->n_sums;
		o->mem1 = t->n_msums;
	}
	t->snap.devices = n ? t->out_devices : NULL;
	t->snap.n_devices = (uint32_t)n;
	return 0;
}

static int build_processes(struct pk_gpu_tracker *t)
{
	size_t n_pairs = 0, i, j, k, np = 0;

	for (i = 0; i < t->snap.n_clients; i++) {
		const struct pk_gpu_client *c = &t->out_clients[i];

		if (pk_array_grow((void **)&t->pairs, &t->pairs_cap, n_pairs + c->n_pids,
				  sizeof(*t->pairs), 64))
			return -ENOMEM;
		for (j = 0; j < c->n_holders; j++) {
			if (j && c->holders[j].pid == c->holders[j - 1].pid)
				continue;
			t->pairs[n_pairs].pid = c->holders[j].pid;
			t->pairs[n_pairs].client = (uint32_t)i;
			t->pairs[n_pairs].comm = t->clients[t->order[i]]->holder_comm[j];
			n_pairs++;
		}
	}
	if (n_pairs > 1)
		qsort(t->pairs, n_pairs, sizeof(*t->pairs), cmp_pair);
	if (pk_array_grow((void **)&t->proc_client_idx, &t->proc_client_idx_cap, n_pairs,
			  sizeof(*t->proc_client_idx), 64))
		return -ENOMEM;
	for (i = 0; i < n_pairs; i++)
		t->proc_client_idx[i] = t->pairs[i].client;
	for (i = 0; i < n_pairs; i = j) {
		struct pk_gpu_process *p;
		struct span_off *o;

		for (j = i; j < n_pairs && t->pairs[j].pid == t->pairs[i].pid; j++)
			;
		if (pk_array_grow((void **)&t->out_procs, &t->out_procs_cap, np + 1,
				  sizeof(*t->out_procs), 64))
			return -ENOMEM;
		o = view_offsets(t, t->snap.n_devices + np);
		if (!o)
			return -ENOMEM;
		p = &t->out_procs[np++];
		memset(p, 0, sizeof(*p));
		p->pid = t->pairs[i].pid;
		p->comm = t->pairs[i].comm;
		p->clients = &t->proc_client_idx[i];
		p->n_clients = (uint32_t)(j - i);
		for (k = i; k < j; k++) {
			if (t->out_clients[t->pairs[k].client].n_pids > 1)
				p->n_shared++;
			if (sums_add(t, o, t->pairs[k].client))
				return -ENOMEM;
		}
		o->sum1 = t->n_sums;
		o->mem1 = t->n_msums;
	}
	t->snap.processes = np ? t->out_procs : NULL;
	t->snap.n_processes = (uint32_t)np;
	return 0;
}

/* Point the views at their sums once the sum arrays no longer move. */
static void attach_sums(struct pk_gpu_tracker *t)
{
	uint32_t i;
	size_t k;

	for (i = 0; i < t->snap.n_devices + t->snap.n_processes; i++) {
		const struct span_off *o = &t->offs[i];
		struct pk_gpu_engine_sum *sums = o->sum1 > o->sum0 ? t->sums + o->sum0 : NULL;
		struct pk_fdinfo_region *mem = o->mem1 > o->mem0 ? t->msums + o->mem0 : NULL;
		uint32_t n_sums = (uint32_t)(o->sum1 - o->sum0), n_mem = (uint32_t)(o->mem1 - o->mem0);

		if (i < t->snap.n_devices) {
			struct pk_gpu_device_view *v = &t->out_devices[i];

			v->engines = sums;
			v->n_engines = n_sums;
			v->memory = mem;
			v->n_memory = n_mem;
			for (k = 0; k < n_sums; k++)
				if (sums[k].busy_pct > 100)
					sums[k].busy_pct = 100;
		} else {
			struct pk_gpu_process *p = &t->out_procs[i - t->snap.n_devices];

			p->engines = sums;
			p->n_engines = n_sums;
			p->memory = mem;
			p->n_memory = n_mem;
			p->busy_pct = 0;
			for (k = 0; k < n_sums; k++)
				if (sums[k].has_busy)
					p->busy_pct += sums[k].busy_pct;
		}
	}
}

int tracker_build_snapshot(struct pk_gpu_tracker *t)
{
	int err;

	t->n_sums = t->n_msums = 0;
	err = order_devices(t);
	if (!err)
		err = build_clients(t);
	if (!err)
		err = build_devices(t);
	if (!err)
		err = build_processes(t);
	if (!err)
		attach_sums(t);
	return err;
}
