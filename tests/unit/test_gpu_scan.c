/*
 * Unit tests for lib/gpu/scan.c: fixture /proc and /sys trees built in a
 * temporary directory (the layout of tests/cli/gpu-lib.bash: fd links to
 * /dev/dri/... that dangle here and are recognized by their target, links
 * to /dev/null and pipe:[N] that are not DRM) scanned with a scripted clock
 * so every figure is exact. Discovery (drivers, client ids, a comm holding
 * ')'), dedup of one client behind several fds and processes, the same
 * client id on two devices, files without a client id, processes that
 * vanish or cannot be read, the fd-identification cache and its
 * revalidation, -p process trees, accel nodes, a real character device
 * (root only), then utilization and memory through the scanner with
 * hand-computed values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/gpu.h>
#include "../tap.h"

#define SEC 1000000000ULL

static char tmp[256];
static uint64_t clock_now;

static uint64_t test_clock(void *ctx)
{
	return clock_now;
}

/* ---- fixture trees --------------------------------------------------------- */

struct fx {
	char root[512];
	char proc[600];
	char sys[600];
};

#include "fixture_files.h"

/* gpu_tree: an empty tree with drm 226 and accel 261. */
static void fx_new(struct fx *f, const char *name)
{
	snprintf(f->root, sizeof(f->root), "%s/%s", tmp, name);
	snprintf(f->proc, sizeof(f->proc), "%s/proc", f->root);
	snprintf(f->sys, sizeof(f->sys), "%s/sys", f->root);
	mkdirs("%s/class/drm", f->sys);
	mkdirs("%s/class/accel", f->sys);
	mkdirs("%s", f->proc);
	put("Character devices:\n  1 mem\n  4 /dev/vc/0\n226 drm\n261 accel\n\nBlock devices:\n  8 sd\n",
	    "%s/devices", f->proc);
}

/* gpu_proc: a process with no fds yet. */
static void fx_proc(struct fx *f, int pid, const char *comm, int ppid)
{
	char stat[256];

	mkdirs("%s/%d/fd", f->proc, pid);
	mkdirs("%s/%d/fdinfo", f->proc, pid);
	snprintf(stat, sizeof(stat),
		 "%d (%s) S %d %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n", pid, comm,
		 ppid, pid, pid);
	put(stat, "%s/%d/stat", f->proc, pid);
}

static void fx_fdinfo(struct fx *f, int pid, int fd, const char *text)
{
	put(text, "%s/%d/fdinfo/%d", f->proc, pid, fd);
}

/* gpu_fd: an fd linking to @target with fdinfo @text. */
static void fx_fd(struct fx *f, int pid, int fd, const char *target, const char *text)
{
	lnk(target, "%s/%d/fd/%d", f->proc, pid, fd);
	fx_fdinfo(f, pid, fd, text);
}

static const char plain_fdinfo[] = "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t7\n";

/* gpu_other_fds: fds 0..n-1 that are not DRM. */
static void fx_other_fds(struct fx *f, int pid, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fx_fd(f, pid, i, "/dev/null", plain_fdinfo);
}

/* gpu_pci_dev: a PCI GPU with its DRM nodes. */
static void fx_pci_dev(struct fx *f, const char *pdev, const char *driver, const char *vendor,
		       const char *device, const char *const *nodes)
{
	char d[800], buf[300];

	snprintf(d, sizeof(d), "%s/devices/pci0000:00/%s", f->sys, pdev);
	mkdirs("%s", d);
	mkdirs("%s/bus/pci/drivers/%s", f->sys, driver);
	snprintf(buf, sizeof(buf), "%s\n", vendor);
	put(buf, "%s/vendor", d);
	snprintf(buf, sizeof(buf), "%s\n", device);
	put(buf, "%s/device", d);
	put("0x0000\n", "%s/subsystem_vendor", d);
	put("0x0000\n", "%s/subsystem_device", d);
	put("0x00\n", "%s/revision", d);
	snprintf(buf, sizeof(buf), "../../../bus/pci/drivers/%s", driver);
	lnk(buf, "%s/driver", d);
	for (; *nodes; nodes++) {
		const char *node = *nodes, *m = node + strlen(node);

		while (m > node && m[-1] >= '0' && m[-1] <= '9')
			m--;
		mkdirs("%s/drm/%s", d, node);
		snprintf(buf, sizeof(buf), "226:%s\n", m);
		put(buf, "%s/drm/%s/dev", d, node);
		lnk("../..", "%s/drm/%s/device", d, node);
		snprintf(buf, sizeof(buf), "../../devices/pci0000:00/%s/drm/%s", pdev, node);
		lnk(buf, "%s/class/drm/%s", f->sys, node);
	}
}

static struct pk_gpu_scanner *fx_scanner(struct fx *f, pid_t pid, uint64_t revalidate_ns)
{
	struct pk_gpu_scan_opts o;
	struct pk_gpu_scanner *s;
	struct pk_diag d;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.proc_root = f->proc;
	o.sys_root = f->sys;
	o.pid = pid;
	o.revalidate_ns = revalidate_ns;
	o.clock = test_clock;
	pk_diag_init(&d);
	s = pk_gpu_scanner_new(&o, &d);
	if (!s)
		diag("scanner: %s", d.msg);
	return s;
}

static const struct pk_gpu_snapshot *scan_at(struct pk_gpu_scanner *s, uint64_t t)
{
	struct pk_diag d;
	int err;

	clock_now = t;
	pk_diag_init(&d);
	err = pk_gpu_scanner_refresh(s, &d);
	if (err) {
		diag("refresh: %d %s", err, d.msg);
		return NULL;
	}
	return pk_gpu_scanner_snapshot(s);
}

/* i915-style fdinfo text: header, then @body. */
static const char *fdi(const char *driver, const char *pdev, long client_id, const char *body)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];
	int n;

	n = snprintf(b, 4096, "pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t284\ndrm-driver:\t%s\n",
		     driver);
	if (client_id >= 0)
		n += snprintf(b + n, 4096 - (size_t)n, "drm-client-id:\t%ld\n", client_id);
	if (pdev)
		n += snprintf(b + n, 4096 - (size_t)n, "drm-pdev:\t%s\n", pdev);
	snprintf(b + n, 4096 - (size_t)n, "%s", body ? body : "");
	return b;
}

/* ---- lookups in a snapshot ------------------------------------------------------ */

static const struct pk_gpu_client *find_client(const struct pk_gpu_snapshot *s, const char *dev_key,
					       long id)
{
	uint32_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n_clients; i++) {
		const struct pk_gpu_client *c = &s->clients[i];

		if (c->device >= s->n_devices || !s->devices[c->device].dev)
			continue;
		if (dev_key && strcmp(s->devices[c->device].dev->key, dev_key) != 0)
			continue;
		if (id < 0 ? c->has_client_id : (!c->has_client_id || c->client_id != (uint64_t)id))
			continue;
		return c;
	}
	return NULL;
}

static const struct pk_gpu_client *find_client_fd(const struct pk_gpu_snapshot *s, pid_t pid, int fd)
{
	uint32_t i, j;

	if (!s)
		return NULL;
	for (i = 0; i < s->n_clients; i++)
		for (j = 0; j < s->clients[i].n_holders; j++)
			if (s->clients[i].holders[j].pid == pid && s->clients[i].holders[j].fd == fd)
				return &s->clients[i];
	return NULL;
}

static const struct pk_gpu_process *find_proc(const struct pk_gpu_snapshot *s, pid_t pid)
{
	uint32_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n_processes; i++)
		if (s->processes[i].pid == pid)
			return &s->processes[i];
	return NULL;
}

static const struct pk_gpu_device_view *find_dev(const struct pk_gpu_snapshot *s, const char *key)
{
	uint32_t i;

	if (!s)
		return NULL;
	for (i = 0; i < s->n_devices; i++)
		if (s->devices[i].dev && strcmp(s->devices[i].dev->key, key) == 0)
			return &s->devices[i];
	return NULL;
}

static const struct pk_gpu_engine_use *find_use(const struct pk_gpu_client *c, const char *name)
{
	uint32_t i;

	if (!c)
		return NULL;
	for (i = 0; i < c->n_engines; i++)
		if (strcmp(c->engines[i].raw.name, name) == 0)
			return &c->engines[i];
	return NULL;
}

static const struct pk_gpu_engine_sum *find_sum(const struct pk_gpu_engine_sum *e, uint32_t n,
						const char *name)
{
	uint32_t i;

	for (i = 0; e && i < n; i++)
		if (strcmp(e[i].name, name) == 0)
			return &e[i];
	return NULL;
}

static const struct pk_fdinfo_region *find_region(const struct pk_fdinfo_region *r, uint32_t n,
						  const char *name)
{
	uint32_t i;

	for (i = 0; r && i < n; i++)
		if (strcmp(r[i].name, name) == 0)
			return &r[i];
	return NULL;
}

static const struct pk_gpu_scan_stats none_stats;

#define STATS(s) ((s) ? &(s)->stats : &none_stats)

/* ---- discovery and the identification cache -------------------------------------- */

static const char *const intel_nodes[] = { "card0", "renderD128", NULL };
static const char *const amd_nodes[] = { "card1", "renderD129", NULL };

static void build_discovery(struct fx *f)
{
	fx_new(f, "disc");
	fx_pci_dev(f, "0000:00:02.0", "i915", "0x8086", "0x5917", intel_nodes);
	fx_proc(f, 100, "a) b", 1);
	fx_other_fds(f, 100, 3);
	fx_fd(f, 100, 3, "pipe:[1234]", plain_fdinfo);
	fx_fd(f, 100, 4, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 7, "drm-engine-render:\t1000 ns\n"));
	fx_proc(f, 200, "Xorg", 1);
	fx_other_fds(f, 200, 1);
	fx_fd(f, 200, 5, "/dev/dri/card0", fdi("i915", "0000:00:02.0", 8, "drm-engine-render:\t5 ns\n"));
	fx_proc(f, 300, "cat", 1);
	fx_other_fds(f, 300, 2);
	/* looks like a render node, but its fdinfo has no drm-driver */
	fx_proc(f, 400, "odd", 1);
	fx_fd(f, 400, 3, "/dev/dri/renderD129", plain_fdinfo);
}

static void test_discovery(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const struct pk_gpu_scan_stats *st;
	const struct pk_gpu_device *devs;
	struct pk_gpu_scanner *sc;
	struct fx f;
	uint32_t nd = 0;

	build_discovery(&f);
	sc = fx_scanner(&f, 0, 0);
	ok(sc != NULL, "discovery: scanner created");
	if (!sc)
		return;
	devs = pk_gpu_scanner_devices(sc, &nd);
	is_int(nd, 1, "discovery: one sysfs device");
	if (nd == 1)
		is_str(devs[0].key, "0000:00:02.0", "discovery: device key");

	s = scan_at(sc, 10 * SEC);
	ok(s != NULL, "discovery: first refresh");
	st = STATS(s);
	is_int(st->processes, 4, "discovery: processes looked at");
	is_int(st->drm_fds, 2, "discovery: drm fds");
	is_int(st->fds_identified, 10, "discovery: every fd identified once");
	is_int(st->fdinfo_read, 3, "discovery: fdinfo read for DRM-looking fds");
	is_int(st->unreadable, 0, "discovery: none unreadable");
	is_int(st->first_unreadable, 0, "discovery: first_unreadable 0");
	is_int(st->vanished, 0, "discovery: none vanished");
	is_int(st->malformed, 0, "discovery: no malformed lines");
	if (!s)
		goto out;
	is_int(s->seq, 1, "discovery: seq 1");
	is_int(s->time_ns, 10 * SEC, "discovery: scan time from the clock");
	is_int(s->n_clients, 2, "discovery: two clients");
	is_int(s->n_processes, 2, "discovery: two processes with clients");
	is_int(s->n_devices, 1, "discovery: one device");
	c = find_client(s, "0000:00:02.0", 7);
	ok(c != NULL, "discovery: client 7");
	if (c) {
		is_str(c->driver, "i915", "discovery: client 7 driver");
		is_str(c->pdev, "0000:00:02.0", "discovery: client 7 pdev");
		is_int(c->pid, 100, "discovery: client 7 pid");
		is_str(c->comm, "a) b", "discovery: comm up to the last ')'");
		is_int(c->n_holders, 1, "discovery: client 7 one holder");
		is_int(c->holders[0].fd, 4, "discovery: client 7 fd");
		ok(c->is_new, "discovery: client 7 new");
		is_int(c->time_ns, 10 * SEC, "discovery: sample time from the clock");
	}
	c = find_client(s, "0000:00:02.0", 8);
	ok(c != NULL, "discovery: client 8 through card0");
	if (c) {
		is_int(c->pid, 200, "discovery: client 8 pid");
		is_str(c->comm, "Xorg", "discovery: client 8 comm");
	}
	if (s->n_devices == 1)
		is_int(s->devices[0].n_clients, 2, "discovery: device view has both clients");

	/* unchanged: no fstatat, only the DRM fds' fdinfo */
	s = scan_at(sc, 11 * SEC);
	st = STATS(s);
	is_int(st->fds_identified, 0, "cache: unchanged tree identifies nothing");
	is_int(st->fdinfo_read, 2, "cache: fdinfo of the DRM fds only (non-client remembered)");
	is_int(st->drm_fds, 2, "cache: drm fds still 2");
	is_int(st->processes, 4, "cache: processes 4");
	if (s) {
		is_int(s->seq, 2, "cache: seq 2");
		is_int(s->interval_ns, SEC, "cache: interval from the clock");
		is_int(s->n_clients, 2, "cache: clients kept");
	}

	/* one more fd in one process: only that process is identified again */
	fx_fd(&f, 300, 9, "/dev/null", plain_fdinfo);
	s = scan_at(sc, 12 * SEC);
	st = STATS(s);
	is_int(st->fds_identified, 3, "cache: a new fd re-identifies only its process's fds");
	is_int(st->drm_fds, 2, "cache: drm fds 2 after the new fd");

	/* a DRM fd replacing a closed one (same count) */
	{
		char p[800];

		snprintf(p, sizeof(p), "%s/300/fd/9", f.proc);
		unlink(p);
	}
	fx_fd(&f, 300, 8, "/dev/dri/renderD128", fdi("i915", "0000:00:02.0", 9, ""));
	s = scan_at(sc, 13 * SEC);
	st = STATS(s);
	is_int(st->fds_identified, 3, "cache: same count, other numbers: re-identified");
	is_int(st->drm_fds, 3, "cache: the new DRM fd found");
	c = find_client(s, "0000:00:02.0", 9);
	ok(c && c->pid == 300 && strcmp(c->comm, "cat") == 0, "cache: its client, comm read");

	/* the default revalidation period (5 s) passes: everything again */
	s = scan_at(sc, 19 * SEC);
	st = STATS(s);
	is_int(st->fds_identified, 11, "revalidate: after 5 s every fd is identified again");
	is_int(st->fdinfo_read, 4, "revalidate: the non-client fd is read again");
	is_int(st->drm_fds, 3, "revalidate: drm fds 3");
out:
	pk_gpu_scanner_free(sc);

	/* revalidate_ns = 1: every scan identifies everything */
	sc = fx_scanner(&f, 0, 1);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		is_int(STATS(s)->fds_identified, 11, "revalidate 1: first scan");
		s = scan_at(sc, 10 * SEC + 1);
		is_int(STATS(s)->fds_identified, 11, "revalidate 1: second scan identifies all");
		is_int(STATS(s)->drm_fds, 3, "revalidate 1: drm fds");
		pk_gpu_scanner_free(sc);
	}
}

/* ---- sharing and identity -------------------------------------------------------- */

static void build_share(struct fx *f)
{
	fx_new(f, "share");
	fx_pci_dev(f, "0000:00:02.0", "i915", "0x8086", "0x5917", intel_nodes);
	fx_pci_dev(f, "0000:03:00.0", "amdgpu", "0x1002", "0x73bf", amd_nodes);
	/* client 42: two fds of 500 (dup) and one of its child 501 (fork) */
	fx_proc(f, 500, "parent", 1);
	fx_other_fds(f, 500, 3);
	fx_fd(f, 500, 3, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 42, "drm-engine-render:\t100 ns\ndrm-total-system0:\t1 MiB\n"));
	fx_fd(f, 500, 4, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 42, "drm-engine-render:\t100 ns\ndrm-total-system0:\t1 MiB\n"));
	fx_proc(f, 501, "child", 500);
	fx_fd(f, 501, 3, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 42, "drm-engine-render:\t100 ns\ndrm-total-system0:\t1 MiB\n"));
	/* 502: client 43 on the Intel GPU, client 42 on the AMD GPU */
	fx_proc(f, 502, "other", 1);
	fx_fd(f, 502, 3, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 43, "drm-engine-render:\t0 ns\ndrm-total-system0:\t3 MiB\n"));
	fx_fd(f, 502, 4, "/dev/dri/renderD129",
	      fdi("amdgpu", "0000:03:00.0", 42, "drm-engine-gfx:\t0 ns\ndrm-memory-vram:\t2048 KiB\n"));
	/* 503: two fds without drm-client-id */
	fx_proc(f, 503, "noid", 1);
	fx_fd(f, 503, 3, "/dev/dri/renderD128", fdi("i915", "0000:00:02.0", -1, "drm-engine-render:\t0 ns\n"));
	fx_fd(f, 503, 4, "/dev/dri/renderD128", fdi("i915", "0000:00:02.0", -1, "drm-engine-render:\t0 ns\n"));
}

static void check_share(const struct pk_gpu_snapshot *s, const char *what)
{
	const struct pk_gpu_client *c;
	const struct pk_gpu_process *p;
	const struct pk_gpu_device_view *dv;
	const struct pk_fdinfo_region *r;

	if (!s) {
		ok(0, "%s: no snapshot", what);
		return;
	}
	is_int(s->n_clients, 5, "%s: five clients (42 twice, 43, two without id)", what);
	c = find_client(s, "0000:00:02.0", 42);
	ok(c != NULL, "%s: client 42 on the Intel GPU", what);
	if (c) {
		is_int(c->n_holders, 3, "%s: client 42 has 3 holders", what);
		is_int(c->n_pids, 2, "%s: client 42 in 2 processes", what);
		is_int(c->pid, 500, "%s: attributed to the lowest pid", what);
		is_str(c->comm, "parent", "%s: comm of the lowest pid", what);
		if (c->n_holders == 3) {
			ok(c->holders[0].pid == 500 && c->holders[0].fd == 3, "%s: holder 500/3", what);
			ok(c->holders[1].pid == 500 && c->holders[1].fd == 4, "%s: holder 500/4", what);
			ok(c->holders[2].pid == 501 && c->holders[2].fd == 3, "%s: holder 501/3", what);
		}
	}
	c = find_client(s, "0000:03:00.0", 42);
	ok(c != NULL, "%s: client 42 on the AMD GPU is another client", what);
	if (c) {
		is_int(c->pid, 502, "%s: AMD client 42 pid", what);
		is_str(c->driver, "amdgpu", "%s: AMD client driver", what);
		is_int(c->n_holders, 1, "%s: AMD client 42 one holder", what);
	}
	ok(find_client_fd(s, 503, 3) && find_client_fd(s, 503, 4) &&
	   find_client_fd(s, 503, 3) != find_client_fd(s, 503, 4),
	   "%s: without client id each fd is a client", what);
	ok(find_client_fd(s, 503, 3) && !find_client_fd(s, 503, 3)->has_client_id,
	   "%s: has_client_id false", what);
	p = find_proc(s, 500);
	ok(p && p->n_clients == 1 && p->n_shared == 1, "%s: 500 lists the shared client", what);
	p = find_proc(s, 501);
	ok(p && p->n_clients == 1 && p->n_shared == 1, "%s: 501 lists the shared client", what);
	if (p && p->n_clients == 1)
		ok(s->clients[p->clients[0]].client_id == 42, "%s: 501's client is 42", what);
	p = find_proc(s, 502);
	ok(p && p->n_clients == 2 && p->n_shared == 0, "%s: 502 two unshared clients", what);
	p = find_proc(s, 503);
	ok(p && p->n_clients == 2 && p->n_shared == 0, "%s: 503 two clients", what);
	dv = find_dev(s, "0000:00:02.0");
	ok(dv && dv->n_clients == 4, "%s: Intel device has 4 clients", what);
	r = dv ? find_region(dv->memory, dv->n_memory, "system0") : NULL;
	ok(r && r->bytes[PK_MEM_TOTAL] == 4u << 20, "%s: device memory sums clients once (1 + 3 MiB)",
	   what);
	dv = find_dev(s, "0000:03:00.0");
	ok(dv && dv->n_clients == 1, "%s: AMD device has 1 client", what);
	r = dv ? find_region(dv->memory, dv->n_memory, "vram") : NULL;
	ok(r && r->bytes[PK_MEM_RESIDENT] == 2u << 20, "%s: drm-memory-vram is resident", what);
}

/* on_fdinfo hook: removes a process directory mid-scan once. */
struct remover {
	struct fx *f;
	pid_t when, victim;
	int done, calls;
	size_t bytes;
};

static int remove_hook(void *ctx, const struct pk_gpu_fd_sample *smp, const char *text, size_t len)
{
	struct remover *r = ctx;
	char p[800];

	r->calls++;
	r->bytes += len;
	if (!r->done && smp->pid == r->when) {
		r->done = 1;
		snprintf(p, sizeof(p), "%s/%d", r->f->proc, r->victim);
		rm_tree(p);
	}
	return 0;
}

static int abort_hook(void *ctx, const struct pk_gpu_fd_sample *smp, const char *text, size_t len)
{
	return -ECANCELED;
}

static void test_share(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	struct pk_gpu_scan_opts o;
	struct pk_gpu_scanner *sc;
	struct remover rm;
	struct pk_diag d;
	struct fx f;
	char p[800];
	int err;

	build_share(&f);
	sc = fx_scanner(&f, 0, 0);
	if (!sc) {
		ok(0, "share: scanner");
		return;
	}
	s = scan_at(sc, 10 * SEC);
	is_int(STATS(s)->drm_fds, 7, "share: 7 drm fds");
	is_int(STATS(s)->processes, 4, "share: 4 processes");
	check_share(s, "share");
	s = scan_at(sc, 11 * SEC);
	check_share(s, "share scan 2");

	/* 501 exits between scans: the client stays, with 500's two fds */
	snprintf(p, sizeof(p), "%s/501", f.proc);
	rm_tree(p);
	s = scan_at(sc, 12 * SEC);
	is_int(STATS(s)->processes, 3, "gone: 3 processes");
	is_int(STATS(s)->vanished, 0, "gone: a process gone between scans is not 'vanished'");
	c = find_client(s, "0000:00:02.0", 42);
	ok(c && c->n_holders == 2 && c->n_pids == 1, "gone: client 42 held by 500 only");
	ok(find_proc(s, 501) == NULL, "gone: no process view for 501");
	pk_gpu_scanner_free(sc);

	/* a process directory removed mid-scan (502, after 500 was read), and one without fd dir */
	build_share(&f);
	fx_proc(&f, 504, "nofd", 1);
	snprintf(p, sizeof(p), "%s/504/fd", f.proc);
	rmdir(p);
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.proc_root = f.proc;
	o.sys_root = f.sys;
	o.clock = test_clock;
	memset(&rm, 0, sizeof(rm));
	rm.f = &f;
	rm.when = 500;
	rm.victim = 502;
	o.on_fdinfo = remove_hook;
	o.on_fdinfo_ctx = &rm;
	pk_diag_init(&d);
	sc = pk_gpu_scanner_new(&o, &d);
	if (!sc) {
		ok(0, "vanish: scanner");
		return;
	}
	s = scan_at(sc, 10 * SEC);
	is_int(STATS(s)->vanished, 2, "vanish: 502 removed mid-scan and 504 without fd dir");
	is_int(STATS(s)->processes, 5, "vanish: 5 processes looked at");
	is_int(STATS(s)->drm_fds, 5, "vanish: drm fds of the others");
	is_int(rm.calls, 5, "on_fdinfo: called once per DRM fd read");
	ok(rm.bytes > 0, "on_fdinfo: given the text");
	ok(find_proc(s, 502) == NULL, "vanish: no view of 502");
	ok(find_client(s, "0000:03:00.0", 42) == NULL, "vanish: 502's clients are absent");
	ok(find_client(s, "0000:00:02.0", 42) != NULL, "vanish: the others are there");
	pk_gpu_scanner_free(sc);
	snprintf(p, sizeof(p), "%s/504", f.proc);
	rm_tree(p);

	/* on_fdinfo returning nonzero aborts the refresh with that error */
	o.on_fdinfo = abort_hook;
	sc = pk_gpu_scanner_new(&o, &d);
	if (sc) {
		clock_now = 10 * SEC;
		err = pk_gpu_scanner_refresh(sc, &d);
		is_int(err, -ECANCELED, "on_fdinfo: nonzero aborts the refresh");
		pk_gpu_scanner_free(sc);
	}
}

/* ---- unreadable processes (root) --------------------------------------------------- */

static void test_unreadable(void)
{
	int pipefd[2], status;
	uint32_t got[4] = { 0 };
	char p[800];
	struct fx f;
	pid_t child;

	if (geteuid() != 0) {
		ok(1, "# SKIP unreadable: needs root to make a directory unreadable to another uid");
		return;
	}
	build_share(&f);
	chmod(tmp, 0755);
	chmod(f.root, 0755);
	snprintf(p, sizeof(p), "%s/502/fd", f.proc);
	chmod(p, 0700);
	if (pipe(pipefd) < 0) {
		ok(0, "unreadable: pipe");
		return;
	}
	child = fork();
	if (child == 0) {
		struct pk_gpu_scanner *sc;
		const struct pk_gpu_snapshot *s;
		uint32_t out[4] = { 0 };

		close(pipefd[0]);
		if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(3);
		sc = fx_scanner(&f, 0, 0);
		if (!sc)
			_exit(4);
		s = scan_at(sc, 10 * SEC);
		if (!s)
			_exit(5);
		out[0] = s->stats.unreadable;
		out[1] = (uint32_t)s->stats.first_unreadable;
		out[2] = s->stats.processes;
		out[3] = s->n_clients;
		if (write(pipefd[1], out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(6);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], got, sizeof(got)) != (ssize_t)sizeof(got))
		diag("unreadable: no answer from the child");
	close(pipefd[0]);
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unreadable: child scanned (status %d)",
	   status);
	is_int(got[0], 1, "unreadable: one process counted");
	is_int(got[1], 502, "unreadable: first_unreadable is its pid");
	is_int(got[2], 4, "unreadable: still looked at, not fatal");
	is_int(got[3], 3, "unreadable: the readable processes' clients (42 and two without id)");
	chmod(p, 0755);
}

/* ---- -p, accel, real character devices --------------------------------------------- */

static void test_tree(void)
{
	static const int procs[][2] = { { 10, 1 }, { 20, 10 }, { 30, 20 }, { 40, 1 }, { 5, 30 }, { 50, 40 } };
	const struct pk_gpu_snapshot *s;
	struct pk_gpu_scanner *sc;
	struct fx f;
	size_t i;

	fx_new(&f, "tree");
	for (i = 0; i < sizeof(procs) / sizeof(procs[0]); i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "p%d", procs[i][0]);
		fx_proc(&f, procs[i][0], comm, procs[i][1]);
		fx_other_fds(&f, procs[i][0], 2);
		fx_fd(&f, procs[i][0], 3, "/dev/dri/renderD128",
		      fdi("i915", "0000:00:02.0", procs[i][0], ""));
	}
	sc = fx_scanner(&f, 10, 0);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		is_int(STATS(s)->processes, 4, "-p 10: the process and its descendants (10 20 30 5)");
		is_int(s ? s->n_clients : 0, 4, "-p 10: their 4 clients");
		ok(find_client(s, NULL, 5) && find_client(s, NULL, 30) && !find_client(s, NULL, 40) &&
		   !find_client(s, NULL, 50), "-p 10: a lower pid child is in, other trees out");
		s = scan_at(sc, 11 * SEC);
		is_int(STATS(s)->processes, 4, "-p 10: second scan (cached ppids)");
		is_int(STATS(s)->fds_identified, 0, "-p 10: second scan identifies nothing");
		pk_gpu_scanner_free(sc);
	}
	sc = fx_scanner(&f, 40, 0);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		is_int(STATS(s)->processes, 2, "-p 40: 40 and 50");
		ok(find_client(s, NULL, 50) && !find_client(s, NULL, 10), "-p 40: its tree only");
		pk_gpu_scanner_free(sc);
	}
	sc = fx_scanner(&f, 99, 0);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		is_int(STATS(s)->processes, 0, "-p 99 (absent): nothing scanned");
		pk_gpu_scanner_free(sc);
	}
}

static void test_accel_and_chr(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	struct pk_gpu_scanner *sc;
	char d[800];
	struct fx f;

	fx_new(&f, "accel");
	/* an NPU under class/accel, 261:0 */
	snprintf(d, sizeof(d), "%s/devices/pci0000:00/0000:00:0b.0", f.sys);
	mkdirs("%s/accel/accel0", d);
	put("261:0\n", "%s/accel/accel0/dev", d);
	lnk("../..", "%s/accel/accel0/device", d);
	put("0x8086\n", "%s/vendor", d);
	put("0x7d1d\n", "%s/device", d);
	lnk("../../devices/pci0000:00/0000:00:0b.0/accel/accel0", "%s/class/accel/accel0", f.sys);
	fx_proc(&f, 700, "npu", 1);
	fx_fd(&f, 700, 3, "/dev/accel/accel0",
	      fdi("amdxdna", NULL, 1, "drm-engine-npu-amdxdna:\t100 ns\n"));
	sc = fx_scanner(&f, 0, 0);
	if (!sc) {
		ok(0, "accel: scanner");
		return;
	}
	s = scan_at(sc, 10 * SEC);
	is_int(STATS(s)->drm_fds, 1, "accel: the accel fd is a DRM client");
	c = find_client(s, "0000:00:0b.0", 1);
	ok(c != NULL, "accel: matched to the accel device by node 261:0");
	if (c)
		ok(s->devices[c->device].dev->accel, "accel: device is an accelerator");
	pk_gpu_scanner_free(sc);

	/* the accel major read from <proc>/devices */
	put("Character devices:\n226 drm\n511 accel\n", "%s/devices", f.proc);
	put("511:0\n", "%s/accel/accel0/dev", d);
	sc = fx_scanner(&f, 0, 0);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		ok(find_client(s, "0000:00:0b.0", 1) != NULL, "accel: major 511 from proc/devices");
		pk_gpu_scanner_free(sc);
	}

	if (geteuid() != 0) {
		ok(1, "# SKIP chr: mknod needs root");
		return;
	}
	fx_new(&f, "chr");
	snprintf(d, sizeof(d), "%s/renderD129", f.root);
	if (mknod(d, S_IFCHR | 0600, makedev(226, 129)) < 0) {
		ok(1, "# SKIP chr: mknod failed: %s", strerror(errno));
		return;
	}
	fx_proc(&f, 800, "real", 1);
	fx_fd(&f, 800, 3, d, fdi("i915", NULL, 5, ""));
	fx_fd(&f, 800, 4, "/dev/null", plain_fdinfo);
	sc = fx_scanner(&f, 0, 0);
	if (sc) {
		s = scan_at(sc, 10 * SEC);
		is_int(STATS(s)->drm_fds, 1, "chr: 226:129 found through fstatat");
		is_int(STATS(s)->fds_identified, 2, "chr: two fds identified");
		c = find_client(s, "226:129", 5);
		ok(c != NULL, "chr: client on the device known as 226:129");
		pk_gpu_scanner_free(sc);
	}
}

/* ---- utilization through the scanner ----------------------------------------------- */

/* One process, one client: @a at 10 s, @b at 11 s. Returns the scanner (client via snapshot). */
static struct pk_gpu_scanner *two_scans(struct fx *f, const char *name, const char *a, const char *b,
					 const struct pk_gpu_client **c)
{
	struct pk_gpu_scanner *sc;
	const struct pk_gpu_snapshot *s;

	*c = NULL;
	fx_new(f, name);
	fx_proc(f, 900, "gl", 1);
	fx_other_fds(f, 900, 3);
	fx_fd(f, 900, 3, "/dev/dri/renderD128", a);
	sc = fx_scanner(f, 0, 0);
	if (!sc)
		return NULL;
	s = scan_at(sc, 10 * SEC);
	if (s && s->n_clients == 1) {
		ok(s->clients[0].is_new &&
		   (!s->clients[0].n_engines || !s->clients[0].engines[0].has_busy),
		   "%s: first sample has no busy", name);
	} else {
		ok(0, "%s: first scan has the client", name);
	}
	fx_fdinfo(f, 900, 3, b);
	s = scan_at(sc, 11 * SEC);
	if (s && s->n_clients == 1)
		*c = &s->clients[0];
	return sc;
}

static void check_busy(const char *what, const char *a, const char *b, const char *engine,
		       double want, enum pk_gpu_basis basis)
{
	const struct pk_gpu_engine_use *u;
	const struct pk_gpu_client *c;
	struct pk_gpu_scanner *sc;
	struct fx f;

	sc = two_scans(&f, what, a, b, &c);
	u = find_use(c, engine);
	ok(u != NULL, "%s: engine %s", what, engine);
	if (u) {
		ok(u->has_busy, "%s: has busy", what);
		is_dbl(u->busy_pct, want, 1e-9, "%s: busy %%", what);
		is_int(u->basis, basis, "%s: basis %s", what, pk_gpu_basis_name(basis));
		ok(!c->is_new && c->interval_ns == SEC, "%s: interval 1 s", what);
	}
	pk_gpu_scanner_free(sc);
}

#define I915(body) fdi("i915", "0000:00:02.0", 1, body)

static void test_util_basic(void)
{
	const struct pk_gpu_engine_use *u;
	const struct pk_gpu_client *c;
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_device_view *dv;
	const struct pk_gpu_engine_sum *es;
	struct pk_gpu_scanner *sc;
	struct fx f;

	sc = two_scans(&f, "ns", I915("drm-engine-render:\t1000000000 ns\n"),
		       I915("drm-engine-render:\t1250000000 ns\n"), &c);
	u = find_use(c, "render");
	ok(u && u->has_busy, "ns: has busy");
	if (u) {
		is_dbl(u->busy_pct, 25.0, 1e-9, "ns: 250 ms over 1 s is 25 %%");
		is_int(u->d_ns, 250000000, "ns: d_ns");
		is_int(u->ns, 1250000000, "ns: effective ns");
		is_int(u->basis, PK_BASIS_NS, "ns: basis ns");
		is_dbl(c->busy_pct, 25.0, 1e-9, "ns: client busy");
	}
	s = sc ? pk_gpu_scanner_snapshot(sc) : NULL;
	dv = s && s->n_devices ? &s->devices[0] : NULL;
	es = dv ? find_sum(dv->engines, dv->n_engines, "render") : NULL;
	ok(es && es->has_busy, "ns: device view has render");
	if (es) {
		is_dbl(es->busy_pct, 25.0, 1e-9, "ns: device busy = the client's");
		is_int(es->d_ns, 250000000, "ns: device d_ns");
	}
	pk_gpu_scanner_free(sc);

	check_busy("capacity 2", I915("drm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\n"),
		   I915("drm-engine-video:\t1500000000 ns\ndrm-engine-capacity-video:\t2\n"), "video",
		   75.0, PK_BASIS_NS);
	check_busy("capacity 4", I915("drm-engine-ccs:\t1000 ns\ndrm-engine-capacity-ccs:\t4\n"),
		   I915("drm-engine-ccs:\t2000001000 ns\ndrm-engine-capacity-ccs:\t4\n"), "ccs", 50.0,
		   PK_BASIS_NS);
	check_busy("xe total-cycles",
		   fdi("xe", "0000:03:00.0", 3,
		       "drm-cycles-ccs:\t1000000\ndrm-total-cycles-ccs:\t10000000\ndrm-engine-capacity-ccs:\t4\n"),
		   fdi("xe", "0000:03:00.0", 3,
		       "drm-cycles-ccs:\t3000000\ndrm-total-cycles-ccs:\t14000000\ndrm-engine-capacity-ccs:\t4\n"),
		   "ccs", 12.5, PK_BASIS_TOTAL_CYCLES);
	check_busy("maxfreq MHz", fdi("msm", NULL, 4, "drm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t800 MHz\n"),
		   fdi("msm", NULL, 4, "drm-cycles-gpu:\t400000000\ndrm-maxfreq-gpu:\t800 MHz\n"), "gpu",
		   50.0, PK_BASIS_MAXFREQ);
	check_busy("maxfreq KHz", fdi("msm", NULL, 4, "drm-cycles-gpu:\t0\ndrm-maxfreq-gpu:\t800000 KHz\n"),
		   fdi("msm", NULL, 4, "drm-cycles-gpu:\t200000000\ndrm-maxfreq-gpu:\t800000 KHz\n"),
		   "gpu", 25.0, PK_BASIS_MAXFREQ);
	check_busy("maxfreq Hz", fdi("panfrost", NULL, 4, "drm-cycles-fragment:\t100\ndrm-maxfreq-fragment:\t800000000 Hz\n"),
		   fdi("panfrost", NULL, 4, "drm-cycles-fragment:\t600000100\ndrm-maxfreq-fragment:\t800000000 Hz\n"),
		   "fragment", 75.0, PK_BASIS_MAXFREQ);
	check_busy("clamped", I915("drm-engine-render:\t0 ns\n"), I915("drm-engine-render:\t3000000000 ns\n"),
		   "render", 100.0, PK_BASIS_NS);
}

static void test_util_dip(void)
{
	static const unsigned long vals[] = { 1000, 800, 900, 1600 };
	const struct pk_gpu_engine_use *u;
	const struct pk_gpu_snapshot *s;
	struct pk_gpu_scanner *sc = NULL;
	struct fx f;
	char body[128];
	int i;

	fx_new(&f, "dip");
	fx_proc(&f, 900, "gl", 1);
	for (i = 0; i < 4; i++) {
		snprintf(body, sizeof(body), "drm-engine-render:\t%lu ns\n", vals[i]);
		if (i == 0)
			fx_fd(&f, 900, 3, "/dev/dri/renderD128", I915(body));
		else
			fx_fdinfo(&f, 900, 3, I915(body));
		if (i == 0) {
			sc = fx_scanner(&f, 0, 0);
			if (!sc) {
				ok(0, "dip: scanner");
				return;
			}
		}
		s = scan_at(sc, (10 + (uint64_t)i) * SEC);
		u = s && s->n_clients == 1 ? find_use(&s->clients[0], "render") : NULL;
		if (!u) {
			ok(0, "dip: scan %d has the engine", i + 1);
			continue;
		}
		switch (i) {
		case 0:
			ok(!u->has_busy, "dip: scan 1 no busy");
			break;
		case 1:
		case 2:
			ok(u->has_busy, "dip: scan %d has busy", i + 1);
			is_dbl(u->busy_pct, 0.0, 1e-9, "dip: scan %d busy 0 (counter below its peak)", i + 1);
			is_int(u->d_ns, 0, "dip: scan %d d_ns 0", i + 1);
			is_int(u->ns, 1000, "dip: scan %d keeps the larger value", i + 1);
			break;
		case 3:
			is_int(u->d_ns, 600, "dip: scan 4 d_ns from the peak");
			is_dbl(u->busy_pct, 600.0 / 1e9 * 100.0, 1e-9, "dip: scan 4 busy (1600-1000)/wall");
			break;
		}
	}
	pk_gpu_scanner_free(sc);
}

static void test_util_memory(void)
{
	const struct pk_fdinfo_region *r;
	const struct pk_gpu_client *c;
	struct pk_gpu_scanner *sc;
	struct fx f;
	const char *text = I915("drm-total-system0:\t4096\n"
				"drm-resident-system0:\t8 KiB\n"
				"drm-total-local0:\t3 MiB\n"
				"drm-shared-local0:\t2 GiB\n"
				"drm-memory-vram:\t16 MiB\n"
				"drm-memory-gtt:\t1 MiB\n"
				"drm-resident-gtt:\t4 KiB\n");

	sc = two_scans(&f, "memory", text, text, &c);
	r = c ? find_region(c->memory, c->n_memory, "system0") : NULL;
	ok(r && r->bytes[PK_MEM_TOTAL] == 4096, "memory: bytes");
	ok(r && r->bytes[PK_MEM_RESIDENT] == 8192, "memory: KiB");
	r = c ? find_region(c->memory, c->n_memory, "local0") : NULL;
	ok(r && r->bytes[PK_MEM_TOTAL] == 3u << 20, "memory: MiB");
	ok(r && r->bytes[PK_MEM_SHARED] == 2ULL << 30, "memory: GiB");
	r = c ? find_region(c->memory, c->n_memory, "vram") : NULL;
	ok(r && r->bytes[PK_MEM_RESIDENT] == 16u << 20, "memory: drm-memory-vram is resident");
	r = c ? find_region(c->memory, c->n_memory, "gtt") : NULL;
	ok(r && r->bytes[PK_MEM_RESIDENT] == 4096, "memory: drm-resident-gtt wins over drm-memory-gtt");
	pk_gpu_scanner_free(sc);
}

/* Several clients, shared and not, on two devices, with processes coming and going. */
static void test_util_multi(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const struct pk_gpu_process *p;
	const struct pk_gpu_device_view *dv;
	const struct pk_gpu_engine_sum *es;
	const struct pk_fdinfo_region *r;
	struct pk_gpu_scanner *sc;
	char p502[800];
	struct fx f;

#define SH(ns) fdi("i915", "0000:00:02.0", 42, "drm-engine-render:\t" ns " ns\ndrm-total-system0:\t1 MiB\n")
#define O43(ns) fdi("i915", "0000:00:02.0", 43, "drm-engine-render:\t" ns " ns\ndrm-total-system0:\t3 MiB\n")
#define AMD(ns) fdi("amdgpu", "0000:03:00.0", 42, "drm-engine-gfx:\t" ns " ns\ndrm-memory-vram:\t2048 KiB\n")
	fx_new(&f, "multi");
	fx_pci_dev(&f, "0000:00:02.0", "i915", "0x8086", "0x5917", intel_nodes);
	fx_pci_dev(&f, "0000:03:00.0", "amdgpu", "0x1002", "0x73bf", amd_nodes);
	fx_proc(&f, 500, "parent", 1);
	fx_fd(&f, 500, 3, "/dev/dri/renderD128", SH("1000000000"));
	fx_fd(&f, 500, 4, "/dev/dri/renderD128", SH("1000000000"));
	fx_proc(&f, 501, "child", 500);
	fx_fd(&f, 501, 3, "/dev/dri/renderD128", SH("1000000000"));
	fx_proc(&f, 502, "other", 1);
	fx_fd(&f, 502, 3, "/dev/dri/renderD128", O43("0"));
	fx_proc(&f, 503, "amd", 1);
	fx_fd(&f, 503, 3, "/dev/dri/renderD129", AMD("500000000"));
	sc = fx_scanner(&f, 0, 0);
	if (!sc) {
		ok(0, "multi: scanner");
		return;
	}
	s = scan_at(sc, 10 * SEC);
	is_int(s ? s->n_clients : 0, 3, "multi: 3 clients");

	/* scan 2 at +2 s: shared 42 +500 ms (25 %), 43 +1 s (50 %), AMD 42 +200 ms (10 %) */
	fx_fdinfo(&f, 500, 3, SH("1500000000"));
	fx_fdinfo(&f, 500, 4, SH("1500000000"));
	fx_fdinfo(&f, 501, 3, SH("1500000000"));
	fx_fdinfo(&f, 502, 3, O43("1000000000"));
	fx_fdinfo(&f, 503, 3, AMD("700000000"));
	/* a new client in scan 2 */
	fx_proc(&f, 504, "late", 1);
	fx_fd(&f, 504, 3, "/dev/dri/renderD128",
	      fdi("i915", "0000:00:02.0", 44, "drm-engine-render:\t5000000000 ns\n"));
	s = scan_at(sc, 12 * SEC);
	is_int(s ? s->n_clients : 0, 4, "multi: 4 clients in scan 2");
	c = find_client(s, "0000:00:02.0", 42);
	ok(c && c->n_holders == 3 && c->n_pids == 2, "multi: shared client once, 3 holders");
	if (c) {
		is_dbl(c->busy_pct, 25.0, 1e-9, "multi: shared client 25 %% over 2 s");
		is_int(c->interval_ns, 2 * SEC, "multi: interval 2 s");
	}
	c = find_client(s, "0000:00:02.0", 43);
	if (c)
		is_dbl(c->busy_pct, 50.0, 1e-9, "multi: client 43 50 %%");
	c = find_client(s, "0000:03:00.0", 42);
	if (c)
		is_dbl(c->busy_pct, 10.0, 1e-9, "multi: AMD client 42 (same id, other device) 10 %%");
	c = find_client(s, "0000:00:02.0", 44);
	ok(c && c->is_new && c->engines && !c->engines[0].has_busy && c->busy_pct == 0,
	   "multi: new client in scan 2 has no busy");
	p = find_proc(s, 500);
	ok(p && p->n_shared == 1, "multi: 500 shares its client");
	if (p)
		is_dbl(p->busy_pct, 25.0, 1e-9, "multi: 500 view counts the shared client");
	p = find_proc(s, 501);
	if (p)
		is_dbl(p->busy_pct, 25.0, 1e-9, "multi: 501 view counts it too");
	dv = find_dev(s, "0000:00:02.0");
	es = dv ? find_sum(dv->engines, dv->n_engines, "render") : NULL;
	ok(es != NULL, "multi: Intel device render sum");
	if (es) {
		is_dbl(es->busy_pct, 75.0, 1e-9, "multi: device busy = 25 + 50 (+ new client nothing)");
		is_int(es->d_ns, 1500000000, "multi: device d_ns sums the clients once");
	}
	r = dv ? find_region(dv->memory, dv->n_memory, "system0") : NULL;
	ok(r && r->bytes[PK_MEM_TOTAL] == 4u << 20, "multi: device memory 1 + 3 MiB");
	dv = find_dev(s, "0000:03:00.0");
	es = dv ? find_sum(dv->engines, dv->n_engines, "gfx") : NULL;
	if (es)
		is_dbl(es->busy_pct, 10.0, 1e-9, "multi: AMD device gfx 10 %%");
	else
		ok(0, "multi: AMD device gfx");

	/* scan 3: 502 gone (its client dropped), 501 gone (client stays with 500) */
	snprintf(p502, sizeof(p502), "%s/502", f.proc);
	rm_tree(p502);
	snprintf(p502, sizeof(p502), "%s/501", f.proc);
	rm_tree(p502);
	fx_fdinfo(&f, 500, 3, SH("2500000000"));
	fx_fdinfo(&f, 500, 4, SH("2500000000"));
	s = scan_at(sc, 13 * SEC);
	ok(find_client(s, "0000:00:02.0", 43) == NULL, "multi: client of a vanished process dropped");
	c = find_client(s, "0000:00:02.0", 42);
	ok(c && c->n_pids == 1 && c->n_holders == 2, "multi: shared client now in one process");
	if (c)
		is_dbl(c->busy_pct, 100.0, 1e-9, "multi: 1 s busy over 1 s");
	is_int(s ? s->n_clients : 0, 3, "multi: 3 clients in scan 3");
	pk_gpu_scanner_free(sc);
#undef SH
#undef O43
#undef AMD
}

static void test_big_fdinfo(void)
{
	const struct pk_gpu_snapshot *s;
	struct pk_gpu_scanner *sc;
	size_t big = 2u << 20, n;
	char *text;
	struct fx f;

	fx_new(&f, "big");
	fx_proc(&f, 900, "gl", 1);
	/* 64 KiB of driver keys: read to EOF, not cut at 4 KiB */
	text = malloc(big + 1);
	if (!text)
		return;
	n = (size_t)snprintf(text, big, "%s", I915("drm-engine-render:\t1 ns\n"));
	while (n < (64u << 10))
		n += (size_t)snprintf(text + n, big - n, "amd-evicted-vram:\t%zu KiB\n", n);
	snprintf(text + n, big - n, "drm-client-name:\ttail\n");
	fx_fd(&f, 900, 3, "/dev/dri/renderD128", text);
	/* 2 MiB: treated as malformed and skipped */
	memset(text, 'x', big);
	text[big] = '\0';
	fx_fd(&f, 900, 4, "/dev/dri/renderD128", text);
	free(text);
	sc = fx_scanner(&f, 0, 0);
	if (!sc)
		return;
	s = scan_at(sc, 10 * SEC);
	is_int(STATS(s)->drm_fds, 1, "big: 64 KiB fdinfo read whole, 2 MiB one skipped");
	is_int(STATS(s)->malformed, 1, "big: the oversized file counted as malformed");
	ok(s && s->n_clients == 1 && strcmp(s->clients[0].name, "tail") == 0,
	   "big: key at the end of 64 KiB seen");
	pk_gpu_scanner_free(sc);
}

static void test_errors(void)
{
	struct pk_gpu_scan_opts o;
	struct pk_diag d;
	char p[600];

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	snprintf(p, sizeof(p), "%s/no-such-proc", tmp);
	o.proc_root = p;
	pk_diag_init(&d);
	ok(pk_gpu_scanner_new(&o, &d) == NULL && d.err == -ENOENT,
	   "errors: missing proc root fails with -ENOENT");
}

int main(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/pk-gpu-scan-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp)) {
		skip_all("cannot create a temporary directory");
		return 0;
	}
	test_discovery();
	test_share();
	test_unreadable();
	test_tree();
	test_accel_and_chr();
	test_util_basic();
	test_util_dip();
	test_util_memory();
	test_util_multi();
	test_big_fdinfo();
	test_errors();
	rm_tree(tmp);
	return done_testing();
}
