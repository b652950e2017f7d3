/*
 * Unit tests for the printers of lib/gpu (format.c, prom.c) on snapshots
 * built by hand, so they do not depend on the tracker: the exact Prometheus
 * exposition of a small snapshot (families, labels, label escaping, the
 * client_id of a file without drm-client-id, invalid UTF-8), CSV rows and
 * RFC 4180 quoting, the text view (device section, client and process
 * tables, footers, width), and the filters and sort orders of view rows.
 */
#include <stdlib.h>
#include <string.h>
#include <perfkit/gpu.h>
#include "../tap.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

/* ---- a hand-built snapshot ---------------------------------------------------- */

static struct pk_gpu_device devs[2];
static struct pk_gpu_device_view views[2];
static struct pk_gpu_engine_sum dev0_engines[1], dev1_engines[2];
static struct pk_fdinfo_region dev0_memory[1];

static struct pk_gpu_holder h0[] = { { 100, 5 } };
static struct pk_gpu_holder h1[] = { { 200, 7 } };
static struct pk_gpu_holder h2[] = { { 200, 8 }, { 300, 3 } };
static struct pk_gpu_engine_use e0[2], e1[1], e2[2];
static struct pk_fdinfo_region m0[1], m1[2];
static struct pk_gpu_client clients[3];
static uint32_t p100_clients[] = { 0 }, p200_clients[] = { 1, 2 }, p300_clients[] = { 2 };
static struct pk_gpu_engine_sum p100_engines[1], p200_engines[2], p300_engines[1];
static struct pk_gpu_process procs[3];

static void engine(struct pk_gpu_engine_use *e, const char *name, unsigned fields, uint64_t ns,
		   uint32_t capacity, bool has_busy, double busy)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->raw.name, sizeof(e->raw.name), "%s", name);
	e->raw.fields = fields;
	e->raw.ns = e->ns = ns;
	e->raw.capacity = capacity;
	e->has_busy = has_busy;
	e->busy_pct = busy;
	e->basis = has_busy ? PK_BASIS_NS : PK_BASIS_NONE;
}

static void region(struct pk_fdinfo_region *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
}

static void region_set(struct pk_fdinfo_region *r, enum pk_gpu_mem_kind k, uint64_t bytes)
{
	r->fields |= 1u << k;
	r->bytes[k] = bytes;
}

/*
 * Two devices (an i915 iGPU with card0/renderD128, an amdgpu dGPU) and
 * three clients:
 *   0  i915 id 39, pid 100 comm we"ird\app, render 12.5 % (1.5 s), video (capacity 2) 0 %,
 *      system0 total/resident 6044 KiB, purgeable 1688 KiB
 *   1  amdgpu without client id, pid 200 glxgears fd 7, gfx 50 % (39.456116802 s),
 *      vram total/resident 544428 KiB, gtt resident 22 MiB
 *   2  amdgpu id 30, held by 200 (fd 8) and 300 (fd 3), new: compute with cycles,
 *      total cycles and maxfreq, no memory
 */
static void build(struct pk_gpu_snapshot *s)
{
	memset(s, 0, sizeof(*s));

	memset(devs, 0, sizeof(devs));
	strcpy(devs[0].key, "0000:00:02.0");
	strcpy(devs[0].driver, "i915");
	strcpy(devs[0].pdev, "0000:00:02.0");
	devs[0].vendor_id = 0x8086;
	devs[0].device_id = 0x46a6;
	strcpy(devs[0].vendor_name, "Intel Corporation");
	strcpy(devs[0].device_name, "Alder Lake-P GT2");
	devs[0].n_nodes = 2;
	devs[0].nodes[0] = (struct pk_gpu_node){ "card0", 226, 0 };
	devs[0].nodes[1] = (struct pk_gpu_node){ "renderD128", 226, 128 };
	strcpy(devs[1].key, "0000:03:00.0");
	strcpy(devs[1].driver, "amdgpu");
	strcpy(devs[1].pdev, "0000:03:00.0");
	devs[1].vendor_id = 0x1002;
	devs[1].device_id = 0x73bf;
	devs[1].n_nodes = 1;
	devs[1].nodes[0] = (struct pk_gpu_node){ "renderD129", 226, 129 };

	engine(&e0[0], "render", PK_ENGINE_NS, 1500000000ull, 1, true, 12.5);
	engine(&e0[1], "video", PK_ENGINE_NS | PK_ENGINE_CAPACITY, 0, 2, true, 0.0);
	region(&m0[0], "system0");
	region_set(&m0[0], PK_MEM_TOTAL, 6044 * KIB);
	region_set(&m0[0], PK_MEM_RESIDENT, 6044 * KIB);
	region_set(&m0[0], PK_MEM_PURGEABLE, 1688 * KIB);

	engine(&e1[0], "gfx", PK_ENGINE_NS, 39456116802ull, 1, true, 50.0);
	region(&m1[0], "vram");
	region_set(&m1[0], PK_MEM_TOTAL, 544428 * KIB);
	region_set(&m1[0], PK_MEM_RESIDENT, 544428 * KIB);
	region(&m1[1], "gtt");
	region_set(&m1[1], PK_MEM_RESIDENT, 22 * MIB);

	engine(&e2[0], "compute", PK_ENGINE_CYCLES | PK_ENGINE_TOTAL_CYCLES, 0, 1, false, 0);
	e2[0].cycles = e2[0].raw.cycles = 1000;
	e2[0].total_cycles = e2[0].raw.total_cycles = 4000;
	engine(&e2[1], "gfx", PK_ENGINE_CYCLES | PK_ENGINE_MAXFREQ, 0, 1, false, 0);
	e2[1].cycles = e2[1].raw.cycles = 77;
	e2[1].raw.maxfreq_hz = 800000000ull;

	memset(clients, 0, sizeof(clients));
	clients[0] = (struct pk_gpu_client){
		.device = 0, .driver = "i915", .pdev = "0000:00:02.0", .name = "",
		.has_client_id = true, .client_id = 39, .pid = 100, .comm = "we\"ird\\app",
		.holders = h0, .n_holders = 1, .n_pids = 1, .busy_pct = 12.5,
		.engines = e0, .n_engines = 2, .memory = m0, .n_memory = 1,
	};
	clients[1] = (struct pk_gpu_client){
		.device = 1, .driver = "amdgpu", .pdev = "0000:03:00.0", .name = "",
		.pid = 200, .comm = "glxgears", .holders = h1, .n_holders = 1, .n_pids = 1,
		.busy_pct = 50.0, .engines = e1, .n_engines = 1, .memory = m1, .n_memory = 2,
	};
	clients[2] = (struct pk_gpu_client){
		.device = 1, .driver = "amdgpu", .pdev = "0000:03:00.0", .name = "my, \"app\"",
		.has_client_id = true, .client_id = 30, .pid = 200, .comm = "glxgears",
		.holders = h2, .n_holders = 2, .n_pids = 2, .is_new = true,
		.engines = e2, .n_engines = 2,
	};

	dev0_engines[0] = (struct pk_gpu_engine_sum){ "render", true, 12.5, 0, 0, 1 };
	dev1_engines[0] = (struct pk_gpu_engine_sum){ "gfx", true, 50.0, 0, 0, 1 };
	dev1_engines[1] = (struct pk_gpu_engine_sum){ "compute", false, 0, 0, 0, 1 };
	dev0_memory[0] = m0[0];
	views[0] = (struct pk_gpu_device_view){ &devs[0], 1, dev0_engines, 1, dev0_memory, 1 };
	views[1] = (struct pk_gpu_device_view){ &devs[1], 2, dev1_engines, 2, m1, 2 };

	p100_engines[0] = dev0_engines[0];
	p200_engines[0] = (struct pk_gpu_engine_sum){ "gfx", true, 50.0, 0, 0, 1 };
	p200_engines[1] = (struct pk_gpu_engine_sum){ "compute", false, 0, 0, 0, 1 };
	p300_engines[0] = (struct pk_gpu_engine_sum){ "compute", false, 0, 0, 0, 1 };
	procs[0] = (struct pk_gpu_process){ 100, "we\"ird\\app", p100_clients, 1, 0, 12.5,
					    p100_engines, 1, m0, 1 };
	procs[1] = (struct pk_gpu_process){ 200, "glxgears", p200_clients, 2, 1, 50.0,
					    p200_engines, 2, m1, 2 };
	procs[2] = (struct pk_gpu_process){ 300, "helper", p300_clients, 1, 1, 0,
					    p300_engines, 1, NULL, 0 };

	s->seq = 2;
	s->time_ns = 5000000000ull;
	s->interval_ns = 1000000000ull;
	s->stats.processes = 40;
	s->stats.unreadable = 3;
	s->stats.first_unreadable = 1;
	s->stats.drm_fds = 4;
	s->devices = views;
	s->n_devices = 2;
	s->clients = clients;
	s->n_clients = 3;
	s->processes = procs;
	s->n_processes = 3;
}

/* ---- Prometheus ---------------------------------------------------------------- */

static const char prom_want[] =
	"# HELP perfkit_gpu_engine_busy_seconds_total Time the engine spent busy with the client's work (drm-engine-<engine>).\n"
	"# TYPE perfkit_gpu_engine_busy_seconds_total counter\n"
	"perfkit_gpu_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",engine=\"render\"} 1.500000000\n"
	"perfkit_gpu_engine_busy_seconds_total{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",engine=\"video\"} 0.000000000\n"
	"perfkit_gpu_engine_busy_seconds_total{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"pid200-fd7\",engine=\"gfx\"} 39.456116802\n"
	"# HELP perfkit_gpu_engine_busy_cycles_total Busy cycles of the engine for the client (drm-cycles-<engine>).\n"
	"# TYPE perfkit_gpu_engine_busy_cycles_total counter\n"
	"perfkit_gpu_engine_busy_cycles_total{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"compute\"} 1000\n"
	"perfkit_gpu_engine_busy_cycles_total{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"gfx\"} 77\n"
	"# HELP perfkit_gpu_engine_total_cycles_total GPU timestamp advancing at the rate of the busy cycles (drm-total-cycles-<engine>).\n"
	"# TYPE perfkit_gpu_engine_total_cycles_total counter\n"
	"perfkit_gpu_engine_total_cycles_total{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"compute\"} 4000\n"
	"# HELP perfkit_gpu_engine_capacity Identical engines behind the engine name (drm-engine-capacity-<engine>, 1 when absent).\n"
	"# TYPE perfkit_gpu_engine_capacity gauge\n"
	"perfkit_gpu_engine_capacity{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",engine=\"render\"} 1\n"
	"perfkit_gpu_engine_capacity{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",engine=\"video\"} 2\n"
	"perfkit_gpu_engine_capacity{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"pid200-fd7\",engine=\"gfx\"} 1\n"
	"perfkit_gpu_engine_capacity{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"compute\"} 1\n"
	"perfkit_gpu_engine_capacity{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"gfx\"} 1\n"
	"# HELP perfkit_gpu_engine_max_frequency_hertz Maximum frequency of the engine (drm-maxfreq-<engine>).\n"
	"# TYPE perfkit_gpu_engine_max_frequency_hertz gauge\n"
	"perfkit_gpu_engine_max_frequency_hertz{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"30\",engine=\"gfx\"} 800000000\n"
	"# HELP perfkit_gpu_memory_total_bytes Size of all buffers the client requested in the region, shared and private (drm-total-<region>).\n"
	"# TYPE perfkit_gpu_memory_total_bytes gauge\n"
	"perfkit_gpu_memory_total_bytes{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",region=\"system0\"} 6189056\n"
	"perfkit_gpu_memory_total_bytes{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"pid200-fd7\",region=\"vram\"} 557494272\n"
	"# HELP perfkit_gpu_memory_resident_bytes Size of the client's buffers resident in the region (drm-resident-<region>).\n"
	"# TYPE perfkit_gpu_memory_resident_bytes gauge\n"
	"perfkit_gpu_memory_resident_bytes{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",region=\"system0\"} 6189056\n"
	"perfkit_gpu_memory_resident_bytes{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"pid200-fd7\",region=\"vram\"} 557494272\n"
	"perfkit_gpu_memory_resident_bytes{device=\"0000:03:00.0\",driver=\"amdgpu\",pid=\"200\",comm=\"glxgears\",client_id=\"pid200-fd7\",region=\"gtt\"} 23068672\n"
	"# HELP perfkit_gpu_memory_purgeable_bytes Size of the client's resident buffers in the region that are purgeable (drm-purgeable-<region>).\n"
	"# TYPE perfkit_gpu_memory_purgeable_bytes gauge\n"
	"perfkit_gpu_memory_purgeable_bytes{device=\"0000:00:02.0\",driver=\"i915\",pid=\"100\",comm=\"we\\\"ird\\\\app\",client_id=\"39\",region=\"system0\"} 1728512\n"
	"# HELP perfkit_gpu_clients DRM clients of the device (open DRM files, each counted once).\n"
	"# TYPE perfkit_gpu_clients gauge\n"
	"perfkit_gpu_clients{device=\"0000:00:02.0\",driver=\"i915\"} 1\n"
	"perfkit_gpu_clients{device=\"0000:03:00.0\",driver=\"amdgpu\"} 2\n"
	"# HELP perfkit_gpu_processes_unreadable Processes whose file descriptors could not be read (run as root or with CAP_SYS_PTRACE).\n"
	"# TYPE perfkit_gpu_processes_unreadable gauge\n"
	"perfkit_gpu_processes_unreadable 3\n"
	"# HELP perfkit_gpu_drm_fds DRM file descriptors found by the scan.\n"
	"# TYPE perfkit_gpu_drm_fds gauge\n"
	"perfkit_gpu_drm_fds 4\n";

/* Print the first line where @got and @want differ. */
static void diag_first_diff(const char *got, const char *want)
{
	const char *g = got, *w = want;

	while (*g && *g == *w)
		g++, w++;
	while (g > got && g[-1] != '\n')
		g--, w--;
	diag("first difference:");
	diag("got:  %.*s", (int)strcspn(g, "\n"), g);
	diag("want: %.*s", (int)strcspn(w, "\n"), w);
}

static void test_prom(void)
{
	struct pk_gpu_snapshot s;
	struct pk_buf b;
	int err;

	build(&s);
	pk_buf_init(&b);
	err = pk_gpu_prom_write(&s, &b);
	is_int(err, 0, "prom: writes a snapshot");
	if (!ok(b.data && !strcmp(b.data, prom_want), "prom: exact exposition of the snapshot"))
		diag_first_diff(b.data ? b.data : "", prom_want);

	/* a comm with a newline and bytes that are not UTF-8 */
	clients[1].comm = "a\nb\xff\xc3(";
	clients[0].comm = "caf\xc3\xa9";
	b.len = 0;
	err = pk_gpu_prom_write(&s, &b);
	is_int(err, 0, "prom: writes a snapshot with odd names");
	ok(strstr(b.data, "comm=\"a\\nb\xef\xbf\xbd\xef\xbf\xbd(\",client_id=\"pid200-fd7\"") != NULL,
	   "prom: newline escaped, invalid UTF-8 replaced by U+FFFD");
	ok(strstr(b.data, "comm=\"caf\xc3\xa9\"") != NULL, "prom: valid UTF-8 kept as is");

	/* an empty snapshot: only the scan gauges */
	memset(&s, 0, sizeof(s));
	b.len = 0;
	err = pk_gpu_prom_write(&s, &b);
	is_int(err, 0, "prom: writes an empty snapshot");
	is_str(b.data,
	       "# HELP perfkit_gpu_clients DRM clients of the device (open DRM files, each counted once).\n"
	       "# TYPE perfkit_gpu_clients gauge\n"
	       "# HELP perfkit_gpu_processes_unreadable Processes whose file descriptors could not be read (run as root or with CAP_SYS_PTRACE).\n"
	       "# TYPE perfkit_gpu_processes_unreadable gauge\n"
	       "perfkit_gpu_processes_unreadable 0\n"
	       "# HELP perfkit_gpu_drm_fds DRM file descriptors found by the scan.\n"
	       "# TYPE perfkit_gpu_drm_fds gauge\n"
	       "perfkit_gpu_drm_fds 0\n",
	       "prom: an empty snapshot has only the scan gauges");

	/* appends to what the buffer holds */
	build(&s);
	pk_buf_release(&b);
	pk_buf_printf(&b, "x\n");
	pk_gpu_prom_write(&s, &b);
	ok(b.len > 2 && !strncmp(b.data, "x\n# HELP", 8), "prom: appends to the buffer");
	pk_buf_release(&b);
}

/* ---- CSV -------------------------------------------------------------------------- */

static void test_csv(void)
{
	struct pk_gpu_snapshot s;
	struct pk_buf b;
	int err;

	build(&s);
	pk_buf_init(&b);
	err = pk_gpu_snapshot_csv(&s, true, &b);
	is_int(err, 0, "csv: writes a snapshot");
	is_str(b.data,
	       "time_ns,interval_ns,pid,comm,driver,pdev,client_id,name,kind,key,busy_pct,ns,cycles,"
	       "total_cycles,capacity,total,shared,resident,purgeable,active\n"
	       "5000000000,1000000000,100,\"we\"\"ird\\app\",i915,0000:00:02.0,39,,engine,render,12.50,1500000000,,,1,,,,,\n"
	       "5000000000,1000000000,100,\"we\"\"ird\\app\",i915,0000:00:02.0,39,,engine,video,0.00,0,,,2,,,,,\n"
	       "5000000000,1000000000,100,\"we\"\"ird\\app\",i915,0000:00:02.0,39,,memory,system0,,,,,,6189056,,6189056,1728512,\n"
	       "5000000000,1000000000,200,glxgears,amdgpu,0000:03:00.0,,,engine,gfx,50.00,39456116802,,,1,,,,,\n"
	       "5000000000,1000000000,200,glxgears,amdgpu,0000:03:00.0,,,memory,vram,,,,,,557494272,,557494272,,\n"
	       "5000000000,1000000000,200,glxgears,amdgpu,0000:03:00.0,,,memory,gtt,,,,,,,,23068672,,\n"
	       "5000000000,1000000000,200,glxgears,amdgpu,0000:03:00.0,30,\"my, \"\"app\"\"\",engine,compute,,,1000,4000,1,,,,,\n"
	       "5000000000,1000000000,200,glxgears,amdgpu,0000:03:00.0,30,\"my, \"\"app\"\"\",engine,gfx,,,77,,1,,,,,\n",
	       "csv: header, engine and memory rows, quoting, empty fields");

	/* every row has the header's 20 fields when quotes are honoured */
	{
		int rows = 0, bad = 0;
		const char *p = b.data;

		while (*p) {
			int fields = 1;
			bool q = false;

			for (; *p && (q || *p != '\n'); p++) {
				if (*p == '"')
					q = !q;
				else if (*p == ',' && !q)
					fields++;
			}
			if (*p)
				p++;
			rows++;
			bad += fields != 20;
		}
		is_int(rows, 9, "csv: nine lines");
		is_int(bad, 0, "csv: every line has 20 fields");
	}

	clients[1].comm = "a\nb";
	b.len = 0;
	pk_gpu_snapshot_csv(&s, false, &b);
	ok(!strncmp(b.data, "5000000000,", 11), "csv: no header when not asked");
	ok(strstr(b.data, ",200,\"a\nb\",amdgpu,") != NULL, "csv: a newline is quoted");
	pk_buf_release(&b);
}

/* ---- view rows ------------------------------------------------------------------------ */

static int rows_of(const struct pk_gpu_snapshot *s, struct pk_gpu_view_opts o, char *out, size_t sz)
{
	uint32_t *rows;
	int n = pk_gpu_view_rows(s, &o, &rows);

	out[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), sz - strlen(out), "%s%u", i ? "," : "", rows[i]);
	free(rows);
	return n;
}

static void test_view_rows(void)
{
	struct pk_gpu_snapshot s;
	char got[64];

	build(&s);
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_BUSY }, got, sizeof(got));
	is_str(got, "1,0,2", "rows: busy descending");
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_MEMORY }, got, sizeof(got));
	is_str(got, "1,0,2", "rows: memory descending (resident summed over regions)");
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_PID }, got, sizeof(got));
	is_str(got, "0,1,2", "rows: pid ascending, ties in snapshot order");
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_NAME }, got, sizeof(got));
	is_str(got, "1,2,0", "rows: name ascending");

	/* memory ties broken by busy; total counts when resident is absent */
	m0[0].fields = 1u << PK_MEM_TOTAL;
	m0[0].bytes[PK_MEM_TOTAL] = 1000 * MIB;
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_MEMORY }, got, sizeof(got));
	is_str(got, "0,1,2", "rows: a region without resident counts its total");
	build(&s);
	clients[0].busy_pct = 50.0;
	rows_of(&s, (struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_BUSY }, got, sizeof(got));
	is_str(got, "1,0,2", "rows: equal busy sorted by memory");
	build(&s);

	rows_of(&s, (struct pk_gpu_view_opts){ .pid = 300 }, got, sizeof(got));
	is_str(got, "2", "rows: -p matches any holder");
	rows_of(&s, (struct pk_gpu_view_opts){ .pid = 200, .sort = PK_GPU_SORT_PID }, got, sizeof(got));
	is_str(got, "1,2", "rows: -p matches the lowest pid");
	rows_of(&s, (struct pk_gpu_view_opts){ .pid = 999 }, got, sizeof(got));
	is_str(got, "", "rows: -p of no client gives none");
	rows_of(&s, (struct pk_gpu_view_opts){ .driver = "amdgpu" }, got, sizeof(got));
	is_str(got, "1,2", "rows: driver filter");
	rows_of(&s, (struct pk_gpu_view_opts){ .device = "renderD128" }, got, sizeof(got));
	is_str(got, "0", "rows: device by node name");
	rows_of(&s, (struct pk_gpu_view_opts){ .device = "0000:03:00.0" }, got, sizeof(got));
	is_str(got, "1,2", "rows: device by key");
	rows_of(&s, (struct pk_gpu_view_opts){ .device = "card0", .driver = "amdgpu" }, got, sizeof(got));
	is_str(got, "", "rows: filters combine");
	is_int(rows_of(&s, (struct pk_gpu_view_opts){ .max_rows = 2 }, got, sizeof(got)), 2,
	       "rows: max_rows counts");
	is_str(got, "1,0", "rows: max_rows keeps the first rows of the order");

	rows_of(&s, (struct pk_gpu_view_opts){ .per_process = true }, got, sizeof(got));
	is_str(got, "1,0,2", "process rows: busy descending");
	rows_of(&s, (struct pk_gpu_view_opts){ .per_process = true, .sort = PK_GPU_SORT_NAME },
		got, sizeof(got));
	is_str(got, "1,2,0", "process rows: name ascending");
	rows_of(&s, (struct pk_gpu_view_opts){ .per_process = true, .pid = 300 }, got, sizeof(got));
	is_str(got, "2", "process rows: pid filter");
	rows_of(&s, (struct pk_gpu_view_opts){ .per_process = true, .driver = "i915" }, got, sizeof(got));
	is_str(got, "0", "process rows: driver filter through the clients");

	{
		struct pk_gpu_snapshot empty = { 0 };
		uint32_t *rows = NULL;

		is_int(pk_gpu_view_rows(&empty, &(struct pk_gpu_view_opts){ 0 }, &rows), 0,
		       "rows: an empty snapshot has none");
		free(rows);
	}
}

/* ---- text ------------------------------------------------------------------------------ */

static const char *line_with(const char *text, const char *needle, char *line, size_t sz)
{
	const char *p = strstr(text, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	snprintf(line, sz, "%.*s", (int)(e ? e - b : (long)strlen(b)), b);
	return line;
}

static void test_text(void)
{
	struct pk_gpu_snapshot s;
	struct pk_buf b;
	char line[512];
	int err;

	build(&s);
	pk_buf_init(&b);
	err = pk_gpu_snapshot_text(&s, &(struct pk_gpu_view_opts){ .sort = PK_GPU_SORT_BUSY }, 0, &b);
	is_int(err, 0, "text: writes a snapshot");
	ok(strstr(b.data, "0000:00:02.0 i915 Intel Corporation Alder Lake-P GT2: 1 client\n") != NULL,
	   "text: device line with names and client count");
	ok(strstr(b.data, "0000:03:00.0 amdgpu [1002:73bf]: 2 clients\n") != NULL,
	   "text: device line with PCI ids when names are unknown");
	ok(strstr(b.data, "  busy: render 12.5%\n") != NULL, "text: device engine busy");
	ok(strstr(b.data, "  busy: gfx 50.0%  compute -\n") != NULL, "text: unknown busy is -");
	ok(strstr(b.data, "system0 5.9/5.9 MiB") != NULL, "text: device memory resident/total in MiB");
	ok(strstr(b.data, "gtt 22.0/- MiB") != NULL, "text: missing total is -");
	is_str(line_with(b.data, "PID", line, sizeof(line)),
	       "PID  COMM        DRIVER  DEVICE        ID  render  video    gfx  compute        MEM",
	       "text: table header with one column per engine");
	is_str(line_with(b.data, "200  glxgears    amdgpu  0000:03:00.0   -", line, sizeof(line)),
	       "200  glxgears    amdgpu  0000:03:00.0   -       -      -  50.0%        -  553.7 MiB",
	       "text: client without id, busy and memory");
	is_str(line_with(b.data, "we\"ird", line, sizeof(line)),
	       "100  we\"ird\\app  i915    0000:00:02.0  39   12.5%   0.0%      -        -    5.9 MiB",
	       "text: client row");
	ok(strstr(b.data, "\n200  glxgears    amdgpu  0000:03:00.0  30       -      -      -        -          -\n") != NULL,
	   "text: a new client shows - everywhere");
	{
		const char *r1 = strstr(b.data, "50.0%  "), *r0 = strstr(b.data, "12.5%   0.0%");

		ok(r1 && r0 && strstr(b.data, "\n200") < strstr(b.data, "\n100"),
		   "text: rows sorted by busy");
	}
	ok(strstr(b.data, "3 processes not readable: run as root or with CAP_SYS_PTRACE\n") != NULL,
	   "text: unreadable processes reported");

	/* per process */
	b.len = 0;
	pk_gpu_snapshot_text(&s, &(struct pk_gpu_view_opts){ .per_process = true, .sort = PK_GPU_SORT_PID },
			     0, &b);
	is_str(line_with(b.data, "PID", line, sizeof(line)),
	       "PID  COMM        DRIVER  DEVICE        CLIENTS  render    gfx  compute        MEM",
	       "text: process table header");
	is_str(line_with(b.data, "glxgears", line, sizeof(line)),
	       "200  glxgears    amdgpu  0000:03:00.0       2*       -  50.0%        -  553.7 MiB",
	       "text: process row marks shared clients");
	ok(strstr(b.data, "* includes clients shared with other processes") != NULL,
	   "text: footnote for shared clients");

	/* width and max_rows */
	b.len = 0;
	pk_gpu_snapshot_text(&s, &(struct pk_gpu_view_opts){ .max_rows = 1 }, 40, &b);
	{
		size_t longest = 0;

		for (const char *p = b.data; *p;) {
			size_t n = strcspn(p, "\n");

			if (n > longest)
				longest = n;
			p += n + (p[n] ? 1 : 0);
		}
		ok(longest <= 40, "text: width 40 limits lines (longest %zu)", longest);
	}
	ok(strstr(b.data, "(2 more not shown)") != NULL, "text: rows left out by max_rows are counted");
	ok(strstr(b.data, "\n    gtt 22.0/- MiB\n") != NULL, "text: device words wrap instead of being cut");
	ok(!strstr(b.data, " \n"), "text: no trailing blanks on cut lines");

	/* filters */
	b.len = 0;
	pk_gpu_snapshot_text(&s, &(struct pk_gpu_view_opts){ .driver = "i915" }, 0, &b);
	ok(!strstr(b.data, "amdgpu"), "text: driver filter hides other devices and clients");
	b.len = 0;
	pk_gpu_snapshot_text(&s, &(struct pk_gpu_view_opts){ .pid = 4242 }, 0, &b);
	ok(strstr(b.data, "no GPU clients match\n") != NULL, "text: filters that match nothing");

	/* nothing at all */
	memset(&s, 0, sizeof(s));
	b.len = 0;
	pk_gpu_snapshot_text(&s, NULL, 0, &b);
	is_str(b.data, "no GPU clients\n", "text: an empty snapshot");
	s.stats.unreadable = 1;
	s.stats.vanished = 2;
	b.len = 0;
	pk_gpu_snapshot_text(&s, NULL, 0, &b);
	is_str(b.data,
	       "no GPU clients\n"
	       "1 process not readable: run as root or with CAP_SYS_PTRACE\n"
	       "2 processes or fds vanished during the scan\n",
	       "text: footers of an empty snapshot");
	pk_buf_release(&b);
}

int main(void)
{
	test_prom();
	test_csv();
	test_view_rows();
	test_text();
	return done_testing();
}
