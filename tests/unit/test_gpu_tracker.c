/*
 * Tests of the GPU client tracker (lib/gpu/tracker.c): fdinfo samples fed
 * scan by scan, with utilization, deduplication and the per-process and
 * per-device sums checked against values computed by hand.
 */
#include <stdio.h>
#include <string.h>
#include <perfkit/gpu.h>
#include "../tap.h"

#define SEC 1000000000ULL

static struct pk_gpu_tracker *T;
static struct pk_fdinfo FI;

/* Feed one fd: @text is its fdinfo, read at @time. */
static void feed(pid_t pid, const char *comm, int fd, int minor, uint64_t time, const char *text)
{
	struct pk_gpu_fd_sample s = {
		.pid = pid, .comm = comm, .fd = fd, .major = 226, .minor = minor,
		.time_ns = time, .fdinfo = &FI,
	};

	if (pk_fdinfo_parse(&FI, text, strlen(text)) != 0)
		diag("fdinfo without drm-driver: %s", text);
	if (pk_gpu_tracker_add(T, &s) != 0)
		diag("tracker_add failed");
}

static const struct pk_gpu_snapshot *end_scan(void)
{
	struct pk_gpu_scan_stats st = { .processes = 3 };

	ok(pk_gpu_tracker_end(T, &st) == 0, "scan ends");
	return pk_gpu_tracker_snapshot(T);
}

static const struct pk_gpu_client *client(const struct pk_gpu_snapshot *s, const char *dev, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i].has_client_id && s->clients[i].client_id == id &&
		    strcmp(s->devices[s->clients[i].device].dev->key, dev) == 0)
			return &s->clients[i];
	return NULL;
}

static const struct pk_gpu_engine_use *engine(const struct pk_gpu_client *c, const char *name)
{
	uint32_t i;

	for (i = 0; c && i < c->n_engines; i++)
		if (strcmp(c->engines[i].raw.name, name) == 0)
			return &c->engines[i];
	return NULL;
}

static const struct pk_gpu_engine_sum *sum(const struct pk_gpu_engine_sum *e, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (strcmp(e[i].name, name) == 0)
			return &e[i];
	return NULL;
}

static void fresh(void)
{
	pk_gpu_tracker_free(T);
	T = pk_gpu_tracker_new();
}

static void test_engine_time(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const struct pk_gpu_engine_use *e;

	fresh();
	pk_gpu_tracker_begin(T, 10 * SEC);
	feed(100, "game", 5, 128, 10 * SEC,
	     "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t7\n"
	     "drm-engine-render:\t1000000000 ns\ndrm-engine-video:\t0 ns\ndrm-engine-capacity-video:\t2\n");
	s = end_scan();
	c = client(s, "0000:00:02.0", 7);
	ok(c && c->is_new && c->interval_ns == 0, "first sample: new, no interval");
	e = engine(c, "render");
	ok(e && !e->has_busy && e->basis == PK_BASIS_NONE, "first sample: no utilization");
	is_int(s->seq, 1, "seq 1");
	is_int(s->interval_ns, 0, "first scan has no interval");

	/* 1 s later (the fd read 0.5 s into the scan): render +250 ms, video +1.5 s over 2 engines */
	pk_gpu_tracker_begin(T, 11 * SEC);
	feed(100, "game", 5, 128, 11 * SEC + SEC / 2,
	     "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t7\n"
	     "drm-engine-render:\t1250000000 ns\ndrm-engine-video:\t1500000000 ns\ndrm-engine-capacity-video:\t2\n");
	s = end_scan();
	c = client(s, "0000:00:02.0", 7);
	ok(c && !c->is_new, "second sample not new");
	is_int(c->interval_ns, 1500000000ULL, "interval is between the client's reads (1.5 s)");
	is_int(s->interval_ns, SEC, "scan interval 1 s");
	e = engine(c, "render");
	ok(e && e->has_busy && e->basis == PK_BASIS_NS, "render busy from ns");
	is_int(e->d_ns, 250000000, "render delta 250 ms");
	is_dbl(e->busy_pct, 100.0 * 0.25 / 1.5, 1e-9, "render busy = 0.25 s / 1.5 s");
	e = engine(c, "video");
	is_int(e->raw.capacity, 2, "video capacity 2");
	is_dbl(e->busy_pct, 100.0 * 1.5 / 1.5 / 2, 1e-9, "video busy = 1.5 s / 1.5 s / 2 = 50%%");
	is_dbl(c->busy_pct, 100.0 * 0.25 / 1.5 + 50.0, 1e-9, "client busy is the sum of engines");

	/* capacity 4, and a value beyond the wall time clamps to 100 % */
	pk_gpu_tracker_begin(T, 12 * SEC);
	feed(100, "game", 5, 128, 12 * SEC + SEC / 2,
	     "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t7\n"
	     "drm-engine-render:\t3250000000 ns\ndrm-engine-video:\t4500000000 ns\ndrm-engine-capacity-video:\t4\n");
	s = end_scan();
	c = client(s, "0000:00:02.0", 7);
	is_dbl(engine(c, "render")->busy_pct, 100.0, 1e-9, "2 s busy in 1 s clamps to 100%%");
	is_dbl(engine(c, "video")->busy_pct, 100.0 * 3.0 / 1.0 / 4, 1e-9, "video busy 3 s / 1 s / 4 = 75%%");
}

static void test_cycles(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const struct pk_gpu_engine_use *e;
	static const struct { const char *unit; uint64_t mult; } units[] = {
		{ "Hz", 1 }, { "KHz", 1000 }, { "MHz", 1000000 },
	};
	char text[512];
	size_t i;

	fresh();
	pk_gpu_tracker_begin(T, SEC);
	feed(200, "xe-app", 4, 129,  SEC,
	     "drm-driver:\txe\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t3\n"
	     "drm-cycles-rcs:\t1000\ndrm-total-cycles-rcs:\t50000\n"
	     "drm-cycles-ccs:\t0\ndrm-total-cycles-ccs:\t50000\ndrm-engine-capacity-ccs:\t4\n");
	end_scan();
	/* the wall clock says 3 s, but cycles are measured in the GPU's domain */
	pk_gpu_tracker_begin(T, 4 * SEC);
	feed(200, "xe-app", 4, 129, 4 * SEC,
	     "drm-driver:\txe\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t3\n"
	     "drm-cycles-rcs:\t1001000\ndrm-total-cycles-rcs:\t4050000\n"
	     "drm-cycles-ccs:\t2000000\ndrm-total-cycles-ccs:\t4050000\ndrm-engine-capacity-ccs:\t4\n");
	s = end_scan();
	c = client(s, "0000:03:00.0", 3);
	e = engine(c, "rcs");
	ok(e && e->basis == PK_BASIS_TOTAL_CYCLES, "rcs from total-cycles");
	is_dbl(e->busy_pct, 25.0, 1e-9, "rcs 1e6 / 4e6 = 25%%");
	e = engine(c, "ccs");
	is_dbl(e->busy_pct, 12.5, 1e-9, "ccs 2e6 / 4e6 / 4 = 12.5%%");

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t f = 800000000ULL / units[i].mult;

		fresh();
		pk_gpu_tracker_begin(T, SEC);
		snprintf(text, sizeof(text),
			 "drm-driver:\tmsm\ndrm-client-id:\t9\ndrm-cycles-gpu:\t100\n"
			 "drm-maxfreq-gpu:\t%llu %s\n", (unsigned long long)f, units[i].unit);
		feed(300, "glmark2", 6, 128, SEC, text);
		end_scan();
		pk_gpu_tracker_begin(T, 3 * SEC);
		snprintf(text, sizeof(text),
			 "drm-driver:\tmsm\ndrm-client-id:\t9\ndrm-cycles-gpu:\t%llu\n"
			 "drm-maxfreq-gpu:\t%llu %s\n", 100ULL + 400000000ULL, (unsigned long long)f,
			 units[i].unit);
		feed(300, "glmark2", 6, 128, 3 * SEC, text);
		s = end_scan();
		c = client(s, "226:128", 9);
		e = engine(c, "gpu");
		ok(e && e->basis == PK_BASIS_MAXFREQ, "maxfreq in %s: basis", units[i].unit);
		is_int(e ? e->raw.maxfreq_hz : 0, 800000000, "maxfreq in %s is 800 MHz", units[i].unit);
		is_dbl(e ? e->busy_pct : -1, 25.0, 1e-9, "4e8 cycles / (8e8 Hz * 2 s) = 25%% (%s)",
		       units[i].unit);
	}
}

static void test_dip(void)
{
	static const uint64_t raw[] = { 1000, 800, 900, 1600 };
	static const uint64_t want_delta[] = { 0, 0, 0, 600 };
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_engine_use *e;
	char text[256];
	size_t i;

	fresh();
	for (i = 0; i < 4; i++) {
		pk_gpu_tracker_begin(T, (i + 1) * SEC);
		snprintf(text, sizeof(text),
			 "drm-driver:\tamdgpu\ndrm-pdev:\t0000:04:00.0\ndrm-client-id:\t30\n"
			 "drm-engine-gfx:\t%llu ns\n", (unsigned long long)raw[i] * 1000000ULL);
		feed(400, "glxgears", 3, 128, (i + 1) * SEC, text);
		s = end_scan();
		e = engine(client(s, "0000:04:00.0", 30), "gfx");
		is_int(e->d_ns, want_delta[i] * 1000000ULL, "dip scan %zu: delta", i + 1);
		is_int(e->ns, (raw[i] > 1000 ? raw[i] : 1000) * 1000000ULL,
		       "dip scan %zu: the larger value is kept", i + 1);
		if (i)
			is_dbl(e->busy_pct, 100.0 * (double)want_delta[i] / 1000.0, 1e-9,
			       "dip scan %zu: busy", i + 1);
	}
}

static void test_new_engine_and_memory(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const struct pk_fdinfo_region *r;

	fresh();
	pk_gpu_tracker_begin(T, SEC);
	feed(500, "blender", 9, 128, SEC,
	     "drm-driver:\tamdgpu\ndrm-pdev:\t0000:04:00.0\ndrm-client-id:\t31\n"
	     "drm-engine-gfx:\t0 ns\ndrm-total-vram:\t1024\ndrm-resident-vram:\t2 KiB\n"
	     "drm-memory-vram:\t4 KiB\ndrm-total-gtt:\t3 MiB\ndrm-total-cpu:\t1 GiB\ndrm-memory-gtt: \t8 KiB\n");
	s = end_scan();
	c = client(s, "0000:04:00.0", 31);
	r = NULL;
	for (uint32_t i = 0; c && i < c->n_memory; i++)
		if (strcmp(c->memory[i].name, "vram") == 0)
			r = &c->memory[i];
	ok(r && r->bytes[PK_MEM_TOTAL] == 1024, "memory in bytes");
	ok(r && r->bytes[PK_MEM_RESIDENT] == 2048, "drm-resident wins over drm-memory (KiB)");
	for (uint32_t i = 0; c && i < c->n_memory; i++) {
		if (strcmp(c->memory[i].name, "gtt") == 0) {
			is_int(c->memory[i].bytes[PK_MEM_TOTAL], 3ULL << 20, "MiB");
			is_int(c->memory[i].bytes[PK_MEM_RESIDENT], 8192, "drm-memory alone is resident");
		}
		if (strcmp(c->memory[i].name, "cpu") == 0)
			is_int(c->memory[i].bytes[PK_MEM_TOTAL], 1ULL << 30, "GiB");
	}
	/* the compute engine appears once used: it counts from 0 */
	pk_gpu_tracker_begin(T, 2 * SEC);
	feed(500, "blender", 9, 128, 2 * SEC,
	     "drm-driver:\tamdgpu\ndrm-pdev:\t0000:04:00.0\ndrm-client-id:\t31\n"
	     "drm-engine-gfx:\t100000000 ns\ndrm-engine-compute:\t300000000 ns\n");
	s = end_scan();
	c = client(s, "0000:04:00.0", 31);
	is_dbl(engine(c, "gfx")->busy_pct, 10.0, 1e-9, "gfx 10%%");
	is_dbl(engine(c, "compute")->busy_pct, 30.0, 1e-9, "an engine new on a known client counts from 0");
	is_int(c->n_memory, 0, "memory follows the latest sample");
}

static void test_sharing(void)
{
	const struct pk_gpu_snapshot *s;
	const struct pk_gpu_client *c;
	const char *shared = "drm-driver:\ti915\ndrm-pdev:\t0000:00:02.0\ndrm-client-id:\t40\n"
			     "drm-engine-render:\t%llu ns\ndrm-total-system0:\t4 KiB\n";
	const char *other = "drm-driver:\txe\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t40\n"
			    "drm-engine-rcs:\t%llu ns\n";
	char a[256], b[256];
	uint32_t i;

	fresh();
	for (int scan = 0; scan < 2; scan++) {
		unsigned long long v = scan ? 500000000ULL : 0;

		snprintf(a, sizeof(a), shared, v);
		snprintf(b, sizeof(b), other, v / 5);
		pk_gpu_tracker_begin(T, (scan + 1) * SEC);
		/* pid 700 and its fork 701 hold client 40 of the iGPU through fds 4, 5 and 4 */
		feed(701, "child", 4, 128, (scan + 1) * SEC, a);
		feed(700, "parent", 4, 128, (scan + 1) * SEC, a);
		feed(700, "parent", 5, 128, (scan + 1) * SEC, a);
		/* client id 40 again, on another device */
		feed(700, "parent", 6, 129, (scan + 1) * SEC, b);
		/* no client id: one client per fd */
		feed(702, "noid", 3, 130, (scan + 1) * SEC, "drm-driver:\tv3d\ndrm-engine-bin:\t5 ns\n");
		feed(702, "noid", 4, 130, (scan + 1) * SEC, "drm-driver:\tv3d\ndrm-engine-bin:\t5 ns\n");
		s = end_scan();
	}
	is_int(s->n_clients, 4, "4 clients: shared one, same id on another device, two without id");
	c = client(s, "0000:00:02.0", 40);
	ok(c != NULL, "shared client found");
	is_int(c->n_holders, 3, "3 holders");
	is_int(c->n_pids, 2, "2 processes");
	is_int(c->pid, 700, "attributed to the lowest pid");
	is_str(c->comm, "parent", "comm of that pid");
	ok(c->holders[0].pid == 700 && c->holders[0].fd == 4 && c->holders[1].fd == 5 &&
	   c->holders[2].pid == 701, "holders sorted");
	is_dbl(engine(c, "render")->busy_pct, 50.0, 1e-9, "shared client counted once: 50%%");
	ok(client(s, "0000:03:00.0", 40) != NULL, "same client id on another device is another client");
	is_int(s->n_devices, 3, "devices: 2 pdevs and one node without sysfs");
	is_str(s->devices[2].dev->key, "226:130", "a device without pdev or sysfs is keyed by node");
	is_int(s->n_processes, 3, "3 processes");
	is_int(s->processes[0].pid, 700, "process 700");
	is_int(s->processes[0].n_clients, 2, "700 holds 2 clients");
	is_int(s->processes[0].n_shared, 1, "one of them shared");
	is_int(s->processes[1].pid, 701, "process 701");
	is_int(s->processes[1].n_shared, 1, "701's client is shared");
	is_str(s->processes[1].comm, "child", "701's comm");
	is_dbl(sum(s->processes[1].engines, s->processes[1].n_engines, "render")->busy_pct, 50.0, 1e-9,
	       "the shared client counts in 701's view");
	is_dbl(sum(s->processes[0].engines, s->processes[0].n_engines, "rcs")->busy_pct, 10.0, 1e-9,
	       "700's rcs 10%%");
	is_dbl(s->processes[0].busy_pct, 60.0, 1e-9, "700 busy = 50 + 10");
	is_int(s->processes[2].n_clients, 2, "702 holds its two id-less clients");
	for (i = 0; i < s->n_devices; i++)
		if (strcmp(s->devices[i].dev->key, "0000:00:02.0") == 0) {
			is_int(s->devices[i].n_clients, 1, "iGPU: one client");
			is_dbl(sum(s->devices[i].engines, s->devices[i].n_engines, "render")->busy_pct, 50.0,
			       1e-9, "iGPU render 50%% (not 150%%)");
			is_int(s->devices[i].memory[0].bytes[PK_MEM_TOTAL], 4096, "iGPU memory counted once");
		}

	/* pid 701 exits and 702 closes fd 4: their clients go, the shared one stays */
	pk_gpu_tracker_begin(T, 3 * SEC);
	snprintf(a, sizeof(a), shared, 900000000ULL);
	feed(700, "parent", 4, 128, 3 * SEC, a);
	feed(702, "noid", 3, 130, 3 * SEC, "drm-driver:\tv3d\ndrm-engine-bin:\t5 ns\n");
	s = end_scan();
	is_int(s->n_clients, 2, "clients not seen are dropped");
	c = client(s, "0000:00:02.0", 40);
	is_int(c->n_pids, 1, "one holder left");
	is_dbl(engine(c, "render")->busy_pct, 40.0, 1e-9, "and its history kept");
	is_int(s->n_devices, 2, "the device seen only through the dropped client is gone");
}

static void test_known_devices(void)
{
	struct pk_gpu_device devs[2];
	const struct pk_gpu_snapshot *s;

	memset(devs, 0, sizeof(devs));
	snprintf(devs[0].key, sizeof(devs[0].key), "fd00000.gpu");
	snprintf(devs[0].driver, sizeof(devs[0].driver), "msm");
	devs[0].n_nodes = 2;
	snprintf(devs[0].nodes[0].name, 32, "card0");
	devs[0].nodes[0].major = 226;
	devs[0].nodes[0].minor = 0;
	snprintf(devs[0].nodes[1].name, 32, "renderD128");
	devs[0].nodes[1].major = 226;
	devs[0].nodes[1].minor = 128;
	snprintf(devs[1].key, sizeof(devs[1].key), "0000:00:02.0");
	snprintf(devs[1].pdev, sizeof(devs[1].pdev), "0000:00:02.0");
	fresh();
	ok(pk_gpu_tracker_set_devices(T, devs, 2) == 0, "devices set");
	pk_gpu_tracker_begin(T, SEC);
	feed(800, "a", 3, 128, SEC, "drm-driver:\tmsm\ndrm-client-id:\t1\ndrm-engine-gpu:\t1 ns\n");
	feed(800, "a", 4, 0, SEC, "drm-driver:\tmsm\ndrm-client-id:\t2\ndrm-engine-gpu:\t1 ns\n");
	s = end_scan();
	is_int(s->n_devices, 2, "known devices listed even without clients");
	is_str(s->devices[1].dev->key, "fd00000.gpu", "sorted by key");
	is_int(s->devices[1].n_clients, 2, "render and card node clients belong to the platform device");
	is_int(s->devices[0].n_clients, 0, "the PCI device has none");
	is_int(s->clients[0].device, 1, "client device index points at the view");
}

int main(void)
{
	pk_fdinfo_init(&FI);
	test_engine_time();
	test_cycles();
	test_dip();
	test_new_engine_and_memory();
	test_sharing();
	test_known_devices();
	pk_gpu_tracker_free(T);
	pk_fdinfo_release(&FI);
	return done_testing();
}
