/*
 * Unit tests for the gpu recording (lib/gpu/recording.c), the snapshot JSON
 * printer (lib/gpu/json.c) and the per-client summary (lib/gpu/summary.c),
 * without /proc: the test drives a tracker itself with fdinfo texts (the
 * published samples of ../shared/data/fdinfo and hand-written ones whose
 * counters change between scans), records every text and scan, replays the
 * file and checks that every replayed snapshot equals the live one, then
 * checks hand-computed utilization, summary totals, averages and peaks, the
 * JSON forms parsed back, a write error (ENOSPC on /dev/full) and a list of
 * corrupt recordings, each rejected with -EBADMSG at the right line offset.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <perfkit/gpu.h>
#include "../shared_data.h"
#include "../tap.h"

/* ---- snapshot digests: every field, as text, to compare live and replay ---- */

static void dig_mem(struct pk_buf *b, const struct pk_fdinfo_region *m, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		pk_buf_printf(b, "  mem %s %x", m[i].name, m[i].fields);
		for (int k = 0; k < PK_MEM_KINDS; k++)
			pk_buf_printf(b, " %llu", (unsigned long long)m[i].bytes[k]);
		pk_buf_printf(b, "\n");
	}
}

static void dig_sums(struct pk_buf *b, const struct pk_gpu_engine_sum *e, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		pk_buf_printf(b, "  sum %s %d %.17g %llu %llu %u\n", e[i].name, e[i].has_busy,
			      e[i].busy_pct, (unsigned long long)e[i].d_ns,
			      (unsigned long long)e[i].d_cycles, e[i].capacity);
}

static void digest(const struct pk_gpu_snapshot *s, struct pk_buf *b)
{
	const struct pk_gpu_scan_stats *st = &s->stats;

	pk_buf_printf(b, "seq %llu time %llu interval %llu stats %u %u %d %u %u %u %u %u\n",
		      (unsigned long long)s->seq, (unsigned long long)s->time_ns,
		      (unsigned long long)s->interval_ns, st->processes, st->unreadable,
		      st->first_unreadable, st->vanished, st->drm_fds, st->fds_identified,
		      st->fdinfo_read, st->malformed);
	for (uint32_t i = 0; i < s->n_devices; i++) {
		const struct pk_gpu_device_view *d = &s->devices[i];

		pk_buf_printf(b, "device %s %s %u\n", d->dev ? d->dev->key : "?",
			      d->dev ? d->dev->driver : "?", d->n_clients);
		dig_sums(b, d->engines, d->n_engines);
		dig_mem(b, d->memory, d->n_memory);
	}
	for (uint32_t i = 0; i < s->n_clients; i++) {
		const struct pk_gpu_client *c = &s->clients[i];

		pk_buf_printf(b, "client dev %u %s %s '%s' id %d %llu pid %d '%s' t %llu iv %llu new %d "
			      "busy %.17g pids %u holders", c->device, c->driver, c->pdev, c->name,
			      c->has_client_id, (unsigned long long)c->client_id, c->pid, c->comm,
			      (unsigned long long)c->time_ns, (unsigned long long)c->interval_ns,
			      c->is_new, c->busy_pct, c->n_pids);
		for (uint32_t k = 0; k < c->n_holders; k++)
			pk_buf_printf(b, " %d/%d", c->holders[k].pid, c->holders[k].fd);
		pk_buf_printf(b, "\n");
		for (uint32_t k = 0; k < c->n_engines; k++) {
			const struct pk_gpu_engine_use *u = &c->engines[k];

			pk_buf_printf(b, "  engine %s %x cap %u mf %llu eff %llu %llu %llu d %llu %llu %llu "
				      "busy %d %.17g %s\n", u->raw.name, u->raw.fields, u->raw.capacity,
				      (unsigned long long)u->raw.maxfreq_hz,
				      (unsigned long long)u->ns, (unsigned long long)u->cycles,
				      (unsigned long long)u->total_cycles, (unsigned long long)u->d_ns,
				      (unsigned long long)u->d_cycles,
				      (unsigned long long)u->d_total_cycles, u->has_busy, u->busy_pct,
				      pk_gpu_basis_name(u->basis));
		}
		dig_mem(b, c->memory, c->n_memory);
		for (uint32_t k = 0; k < c->n_extras; k++)
			pk_buf_printf(b, "  extra %s=%s\n", c->extras[k].key, c->extras[k].value);
	}
	for (uint32_t i = 0; i < s->n_processes; i++) {
		const struct pk_gpu_process *p = &s->processes[i];

		pk_buf_printf(b, "process %d '%s' shared %u busy %.17g clients", p->pid, p->comm,
			      p->n_shared, p->busy_pct);
		for (uint32_t k = 0; k < p->n_clients; k++)
			pk_buf_printf(b, " %u", p->clients[k]);
		pk_buf_printf(b, "\n");
		dig_sums(b, p->engines, p->n_engines);
		dig_mem(b, p->memory, p->n_memory);
	}
}

/* ---- what a run saw: digests and JSON per snapshot ---------------------------- */

#define MAX_SCANS 8

struct seen {
	int n;
	char *digest[MAX_SCANS];
	char *json[MAX_SCANS];
	struct pk_gpu_summary *sm;
	int stop_after;           /* > 0: return 42 after this many */
};

static int seen_add(void *ctx, const struct pk_gpu_snapshot *s)
{
	struct seen *w = ctx;
	struct pk_buf b, j;

	if (w->n >= MAX_SCANS)
		return -E2BIG;
	pk_buf_init(&b);
	pk_buf_init(&j);
	digest(s, &b);
	pk_gpu_snapshot_json(s, &j);
	w->digest[w->n] = b.data;
	w->json[w->n] = j.data;
	w->n++;
	if (w->sm && pk_gpu_summary_add(w->sm, s))
		return -ENOMEM;
	if (w->stop_after && w->n >= w->stop_after)
		return 42;
	return 0;
}

static void seen_release(struct seen *w)
{
	for (int i = 0; i < w->n; i++) {
		free(w->digest[i]);
		free(w->json[i]);
	}
	pk_gpu_summary_free(w->sm);
	memset(w, 0, sizeof(*w));
}

/* ---- the live run ----------------------------------------------------------- */

struct live {
	struct pk_gpu_tracker *t;
	struct pk_gpu_recorder *rec;
	struct pk_fdinfo fi;
	uint32_t n_fds, malformed;
	int errors;
};

static void live_fd(struct live *L, pid_t pid, const char *comm, int fd, int minor, uint64_t t,
		    const char *text, size_t len)
{
	struct pk_gpu_fd_sample s = { .pid = pid, .comm = comm, .fd = fd, .major = 226,
				      .minor = minor, .time_ns = t, .fdinfo = &L->fi };
	int err;

	L->n_fds++;
	if (pk_gpu_rec_fdinfo(L->rec, &s, text, len))
		L->errors++;
	err = pk_fdinfo_parse(&L->fi, text, len);
	if (err == -ENOENT)
		return;
	if (err) {
		L->errors++;
		return;
	}
	L->malformed += L->fi.n_malformed;
	if (pk_gpu_tracker_add(L->t, &s))
		L->errors++;
}

static void live_fdf(struct live *L, pid_t pid, const char *comm, int fd, int minor, uint64_t t,
		     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void live_fdf(struct live *L, pid_t pid, const char *comm, int fd, int minor, uint64_t t,
		     const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	live_fd(L, pid, comm, fd, minor, t, text, strlen(text));
}

/* The published fdinfo samples (name, text), all but xe's (used by hand below). */
#define MAX_FILES 16
static char *sample_name[MAX_FILES], *sample_text[MAX_FILES], *xe_text;
static size_t sample_len[MAX_FILES], xe_len;
static int n_samples;

static void load_samples(void)
{
	char dir[1024], path[2048];
	struct dirent **ents;
	int n;

	snprintf(dir, sizeof(dir), "%s/data/fdinfo", shared_dir());
	n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		struct pk_buf b;
		size_t l = strlen(nm);

		pk_buf_init(&b);
		if (l > 7 && strcmp(nm + l - 7, ".fdinfo") == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, nm);
			if (pk_file_read_all(path, &b, 1 << 20) == 0 && b.data) {
				if (strncmp(nm, "xe_", 3) == 0) {
					xe_text = b.data, xe_len = b.len;
					b.data = NULL;
				} else if (n_samples < MAX_FILES) {
					sample_name[n_samples] = strdup(nm);
					sample_text[n_samples] = b.data;
					sample_len[n_samples++] = b.len;
					b.data = NULL;
				}
			}
		}
		pk_buf_release(&b);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static const char *i915_fmt =
	"pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t284\ndrm-driver:\ti915\n"
	"drm-client-id:\t1\ndrm-pdev:\t0000:00:02.0\ndrm-client-name:\tgame\n"
	"drm-total-system0:\t%llu KiB\ndrm-resident-system0:\t%llu KiB\n"
	"drm-engine-render:\t%llu ns\ndrm-engine-video:\t%llu ns\ndrm-engine-capacity-video:\t2\n";

static const char *msm_fmt =
	"drm-driver:\tmsm\ndrm-client-id:\t9\ndrm-cycles-gpu:\t%llu\ndrm-maxfreq-gpu:\t800 MHz\n";

static const char *noid_fmt = "drm-driver:\tv3d\ndrm-engine-render:\t%llu ns\n";

static void live_scan(struct live *L, int k, uint64_t t)
{
	/* per scan: i915 memory (KiB), render ns, video ns; xe rcs cycles/total; msm cycles; v3d ns */
	static const unsigned long long tot[] = { 4096, 8192, 6144 }, res[] = { 2048, 4096, 6144 };
	static const unsigned long long render[] = { 0, 500000000, 800000000 };
	static const unsigned long long video[] = { 1000, 1000001000, 500 };
	static const unsigned long long rcs[] = { 28257900, 128257900, 128257900 };
	static const unsigned long long rcs_total[] = { 7655183225ull, 8055183225ull, 8855183225ull };
	static const unsigned long long ccs[] = { 0, 800000000, 800000000 };
	static const unsigned long long msm[] = { 0, 0, 400000000 };
	static const unsigned long long v3d[] = { 0, 100000000, 100000000 };
	struct pk_gpu_scan_stats st;
	char xe[8192];
	int n;

	L->n_fds = 0;
	L->malformed = 0;
	if (pk_gpu_tracker_begin(L->t, t))
		L->errors++;
	live_fdf(L, 100, "game", 5, 0, t, i915_fmt, tot[k], res[k], render[k], video[k]);
	live_fdf(L, 100, "game", 6, 128, t + 10, i915_fmt, tot[k], res[k], render[k], video[k]);
	if (k > 0)      /* a child holding the same client */
		live_fdf(L, 101, "game-child", 4, 128, t + 20, i915_fmt, tot[k], res[k], render[k],
			 video[k]);
	if (xe_text) {
		n = snprintf(xe, sizeof(xe), "%.*sdrm-cycles-rcs:\t%llu\ndrm-total-cycles-rcs:\t%llu\n"
			     "drm-cycles-ccs:\t%llu\ndrm-total-cycles-ccs:\t%llu\n",
			     (int)xe_len, xe_text, rcs[k], rcs_total[k], ccs[k], rcs_total[k]);
		live_fd(L, 200, "xe-app", 3, 1, t, xe, (size_t)n);
	}
	live_fdf(L, 300, "not-drm", 7, 0, t, "pos:\t0\nflags:\t02\nmnt_id:\t1\nino:\t5\n");
	if (k > 0)      /* appears in the second scan */
		live_fdf(L, 400, "msm-app", 6, 129, t, msm_fmt, msm[k]);
	live_fdf(L, 500, "v3d-app", 9, 130, t, noid_fmt, v3d[k]);
	live_fdf(L, 500, "v3d-app", 10, 130, t, noid_fmt, 0ull);
	/* invalid UTF-8 in the client name: recorded as base64 */
	live_fdf(L, 600, "w\xc3\xa9ird", 3, 0, t, "drm-driver:\ti915\ndrm-client-id:\t2\n"
		 "drm-pdev:\t0000:00:02.0\ndrm-client-name:\t\xff\xfe%d\n", k);
	for (int i = 0; i < n_samples; i++)
		live_fd(L, 1000 + i, sample_name[i], 3, 200 + i, t + (uint64_t)i, sample_text[i],
			sample_len[i]);
	st = (struct pk_gpu_scan_stats){ .processes = 20u + (unsigned)k, .unreadable = (unsigned)k,
		.first_unreadable = k ? 4242 : 0, .vanished = (unsigned)k * 2, .drm_fds = L->n_fds,
		.fds_identified = L->n_fds / 2, .fdinfo_read = L->n_fds, .malformed = L->malformed };
	if (pk_gpu_tracker_end(L->t, &st))
		L->errors++;
}

static const struct pk_gpu_device devices[] = {
	{ .key = "0000:00:02.0", .driver = "i915", .pdev = "0000:00:02.0", .vendor_id = 0x8086,
	  .device_id = 0x9a49, .subsys_vendor_id = 0x1028, .subsys_device_id = 0xa0a, .revision = 1,
	  .vendor_name = "Intel Corporation", .device_name = "TigerLake-LP GT2 \"Iris\" Xe/Graphics",
	  .n_nodes = 2, .nodes = { { "card0", 226, 0 }, { "renderD128", 226, 128 } } },
	{ .key = "0000:03:00.0", .driver = "xe", .pdev = "0000:03:00.0", .vendor_id = 0x8086,
	  .device_id = 0x56a0, .n_nodes = 1, .nodes = { { "card1", 226, 1 } } },
	{ .key = "vpu", .driver = "ivpu", .accel = true, .n_nodes = 1,
	  .nodes = { { "accel0", 261, 0 } } },
};

/* ---- JSON helpers -------------------------------------------------------------- */

static json_object *jget(json_object *o, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strtok_r(buf, ".", &save); p && o; p = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(p));
		else if (!json_object_object_get_ex(o, p, &o))
			return (json_object *)-1;   /* absent: distinct from null */
	}
	return o;
}

static int jnull(json_object *o, const char *path)
{
	return jget(o, path) == NULL;
}

static double jdbl(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && v != (json_object *)-1 ? json_object_get_double(v) : -12345;
}

static long long jint(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && v != (json_object *)-1 ? (long long)json_object_get_int64(v) : -12345;
}

static const char *jstr(json_object *o, const char *path)
{
	json_object *v = jget(o, path);

	return v && v != (json_object *)-1 ? json_object_get_string(v) : "(absent)";
}

/* The client of a snapshot JSON with that pid and driver. */
static json_object *jclient(json_object *root, int pid, const char *driver)
{
	json_object *cl = jget(root, "clients");

	for (size_t i = 0; cl && cl != (json_object *)-1 && i < json_object_array_length(cl); i++) {
		json_object *c = json_object_array_get_idx(cl, i);

		if (jint(c, "pid") == pid && strcmp(jstr(c, "driver"), driver) == 0)
			return c;
	}
	return NULL;
}

/* ---- tests ----------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/pk-gpu-rec-XXXXXX";

static void test_round_trip(void)
{
	struct seen live = { 0 }, replay = { 0 };
	struct live L = { 0 };
	struct pk_diag d;
	char path[128];
	int err;

	snprintf(path, sizeof(path), "%s/rec.jsonl", tmpdir);
	pk_diag_init(&d);
	L.t = pk_gpu_tracker_new();
	pk_fdinfo_init(&L.fi);
	ok(L.t != NULL, "tracker created");
	if (!L.t)
		return;
	pk_gpu_tracker_set_devices(L.t, devices, 3);
	L.rec = pk_gpu_rec_open(path, devices, 3, 1000000000, &d);
	ok(L.rec != NULL, "recorder opened on %s", path);
	if (!L.rec)
		return;
	live.sm = pk_gpu_summary_new();
	for (int k = 0; k < 3; k++) {
		static const uint64_t times[] = { 1000000000, 2000000000, 4000000000 };

		live_scan(&L, k, times[k]);
		seen_add(&live, pk_gpu_tracker_snapshot(L.t));
		err = pk_gpu_rec_scan(L.rec, pk_gpu_tracker_snapshot(L.t), &d);
		is_int(err, 0, "scan %d recorded", k + 1);
	}
	is_int(L.errors, 0, "live run without errors");
	err = pk_gpu_rec_close(L.rec, &d);
	is_int(err, 0, "recorder closed");
	pk_gpu_tracker_free(L.t);
	pk_fdinfo_release(&L.fi);

	replay.sm = pk_gpu_summary_new();
	pk_diag_init(&d);
	err = pk_gpu_replay_file(path, seen_add, &replay, &d);
	is_int(err, 0, "replay of the recording: %s", d.msg);
	is_int(replay.n, 3, "three scans replayed");
	for (int k = 0; k < 3 && k < replay.n; k++) {
		is_str(replay.digest[k], live.digest[k], "scan %d: replayed snapshot equals the live one",
		       k + 1);
		is_str(replay.json[k], live.json[k], "scan %d: same JSON", k + 1);
	}
	if (replay.n == 3) {
		struct pk_buf a, b;

		pk_buf_init(&a);
		pk_buf_init(&b);
		pk_gpu_summary_json(live.sm, &a);
		pk_gpu_summary_json(replay.sm, &b);
		is_str(b.data, a.data, "replayed summary equals the live one");
		pk_buf_release(&a);
		pk_buf_release(&b);
	}

	/* hand-computed values, from the JSON of the replayed snapshots */
	if (replay.n == 3) {
		json_object *s1 = json_tokener_parse(replay.json[0]);
		json_object *s2 = json_tokener_parse(replay.json[1]);
		json_object *s3 = json_tokener_parse(replay.json[2]);
		json_object *c;

		ok(s1 && s2 && s3, "snapshot JSON parses back");
		is_int(replay.json[0][strlen(replay.json[0]) - 1], '\n', "snapshot JSON ends in a newline");
		ok(!strchr(replay.json[0], '\n') || strchr(replay.json[0], '\n')[1] == '\0',
		   "snapshot JSON is one line");
		is_int(jint(s1, "seq"), 1, "seq 1");
		is_int(jint(s2, "seq"), 2, "seq 2");
		is_int(jint(s3, "time_ns"), 4000000000, "time_ns of scan 3");
		is_int(jint(s3, "interval_ns"), 2000000000, "interval_ns of scan 3");
		is_int(jint(s2, "unreadable_processes"), 1, "unreadable_processes");
		is_int(jint(s3, "vanished"), 4, "vanished");
		if (n_samples)
			ok(jint(s1, "malformed_lines") > 0, "malformed lines of the samples counted (%lld)",
			   jint(s1, "malformed_lines"));
		else
			ok(1, "# SKIP malformed lines of the samples: no fdinfo samples (set PK_SHARED)");
		ok(jint(s1, "drm_fds") > 5, "drm_fds");

		c = jclient(s1, 100, "i915");
		ok(c != NULL, "scan 1: the i915 client");
		if (c) {
			ok(jnull(c, "engines.render.busy_pct"), "scan 1: busy_pct null (new client)");
			ok(json_object_get_boolean(jget(c, "new")), "scan 1: new");
			is_int(jint(c, "engines.render.ns"), 0, "scan 1: render ns 0 (present)");
			ok(jnull(c, "engines.render.cycles"), "scan 1: cycles null (absent)");
			ok(jnull(c, "engines.render.maxfreq_hz"), "scan 1: maxfreq null (absent)");
			is_int(jint(c, "engines.video.capacity"), 2, "scan 1: video capacity 2");
			is_int(jint(c, "memory.system0.total"), 4096 * 1024, "scan 1: memory total");
			ok(jget(c, "memory.system0.shared") == (json_object *)-1,
			   "scan 1: kinds not present are left out");
			is_str(jstr(c, "device"), "0000:00:02.0", "scan 1: device key");
			is_int(jint(c, "client_id"), 1, "scan 1: client id");
			is_str(jstr(c, "name"), "game", "scan 1: client name");
			is_int(json_object_array_length(jget(c, "holders")), 2, "scan 1: two holders");
		}
		c = jclient(s2, 100, "i915");
		ok(c != NULL, "scan 2: the i915 client");
		if (c) {
			is_dbl(jdbl(c, "engines.render.busy_pct"), 50.0, 1e-9, "scan 2: render 50 %%");
			is_dbl(jdbl(c, "engines.video.busy_pct"), 50.0, 1e-9,
			       "scan 2: video 1 s busy over 1 s with capacity 2: 50 %%");
			is_str(jstr(c, "engines.render.basis"), "ns", "scan 2: basis ns");
			is_int(jint(c, "interval_ns"), 1000000000, "scan 2: client interval");
			is_int(json_object_array_length(jget(c, "holders")), 3,
			       "scan 2: three holders (dup and fork)");
			is_int(jint(c, "holders.2.pid"), 101, "scan 2: the child holds it");
			is_int(jint(c, "memory.system0.resident"), 4096 * 1024, "scan 2: resident");
		}
		c = jclient(s3, 100, "i915");
		if (c) {
			is_dbl(jdbl(c, "engines.render.busy_pct"), 15.0, 1e-9, "scan 3: render 15 %%");
			is_dbl(jdbl(c, "engines.video.busy_pct"), 0.0, 1e-9, "scan 3: dip gives 0 %%");
			is_int(jint(c, "engines.video.ns"), 1000001000, "scan 3: video keeps the larger value");
		}
		c = jclient(s2, 200, "xe");
		if (xe_text) {
			ok(c != NULL, "scan 2: the xe client");
			is_dbl(jdbl(c, "engines.rcs.busy_pct"), 25.0, 1e-9, "scan 2: xe rcs 25 %% (cycles)");
			is_dbl(jdbl(c, "engines.ccs.busy_pct"), 50.0, 1e-9,
			       "scan 2: xe ccs 8e8 / 4e8 / capacity 4 = 50 %%");
			is_str(jstr(c, "engines.rcs.basis"), "total-cycles", "scan 2: basis total-cycles");
			ok(jnull(c, "engines.rcs.ns"), "scan 2: xe has no ns");
			is_str(jstr(c, "device"), "0000:03:00.0", "xe client on the xe device");
		}
		c = jclient(s3, 400, "msm");
		ok(c != NULL, "scan 3: the msm client");
		if (c) {
			is_dbl(jdbl(c, "engines.gpu.busy_pct"), 25.0, 1e-9,
			       "scan 3: msm 4e8 cycles over 2 s at 800 MHz: 25 %%");
			is_str(jstr(c, "engines.gpu.basis"), "maxfreq", "scan 3: basis maxfreq");
			is_int(jint(c, "engines.gpu.maxfreq_hz"), 800000000, "scan 3: maxfreq in Hz");
		}
		c = jclient(s2, 500, "v3d");
		ok(c != NULL, "scan 2: a client without id");
		if (c) {
			ok(jnull(c, "client_id"), "client_id null without drm-client-id");
			is_int(json_object_array_length(jget(c, "holders")), 1, "one holder");
		}
		c = jclient(s1, 600, "i915");
		ok(c != NULL, "base64-recorded client replayed");
		if (c)
			is_str(jstr(c, "name"), "\xff\xfe" "0", "its name bytes survive");
		/* processes and devices */
		{
			json_object *procs = jget(s2, "processes"), *p = NULL, *dv = NULL;
			json_object *devs = jget(s2, "devices");

			for (size_t i = 0; procs && i < json_object_array_length(procs); i++)
				if (jint(json_object_array_get_idx(procs, i), "pid") == 101)
					p = json_object_array_get_idx(procs, i);
			ok(p != NULL, "process 101 listed");
			if (p) {
				is_int(jint(p, "shared_clients"), 1, "process 101: its client is shared");
				is_str(jstr(p, "comm"), "game-child", "process 101: comm");
				is_dbl(jdbl(p, "engines.render.busy_pct"), 50.0, 1e-9,
				       "process 101: render 50 %%");
			}
			for (size_t i = 0; devs && i < json_object_array_length(devs); i++)
				if (strcmp(jstr(json_object_array_get_idx(devs, i), "key"), "0000:00:02.0") == 0)
					dv = json_object_array_get_idx(devs, i);
			ok(dv != NULL, "device 0000:00:02.0 listed");
			if (dv) {
				is_str(jstr(dv, "vendor"), "Intel Corporation", "device vendor from the recording");
				is_int(jint(dv, "vendor_id"), 0x8086, "device vendor id");
				is_str(jstr(dv, "nodes.1.name"), "renderD128", "device node");
				is_int(jint(dv, "nodes.1.minor"), 128, "device node minor");
				if (n_samples)  /* game, the invalid name, and the shared i915 sample */
					is_int(jint(dv, "clients"), 3, "device: three clients");
				else
					is_int(jint(dv, "clients"), 2, "device: two clients (no fdinfo samples)");
				is_int(jint(dv, "engines.render.ns"), 500000000, "device: render delta ns");
			}
		}
		json_object_put(s1);
		json_object_put(s2);
		json_object_put(s3);
	}

	/* summary, hand-computed */
	{
		struct pk_buf b;
		json_object *root, *cl, *c = NULL;

		pk_buf_init(&b);
		is_int(pk_gpu_summary_json(replay.sm, &b), 0, "summary JSON");
		root = json_tokener_parse(b.data ? b.data : "");
		ok(root != NULL, "summary JSON parses back");
		is_int(jint(root, "summary.scans"), 3, "summary: 3 scans");
		is_int(jint(root, "summary.duration_ns"), 3000000000, "summary: duration");
		cl = jget(root, "summary.clients");
		for (size_t i = 0; cl && cl != (json_object *)-1 && i < json_object_array_length(cl); i++) {
			json_object *x = json_object_array_get_idx(cl, i);

			if (jint(x, "pid") == 100 && jint(x, "client_id") == 1)
				c = x;
		}
		ok(c != NULL, "summary: the i915 client");
		if (c) {
			is_str(jstr(c, "driver"), "i915", "summary: driver");
			is_str(jstr(c, "device"), "0000:00:02.0", "summary: device");
			is_str(jstr(c, "comm"), "game", "summary: comm");
			is_int(jint(c, "samples"), 3, "summary: samples");
			is_int(jint(c, "first_ns"), 1000000000, "summary: first_ns");
			is_int(jint(c, "last_ns"), 4000000000, "summary: last_ns");
			is_int(jint(c, "engines.render.busy_ns"), 800000000, "summary: render busy 0.8 s");
			is_dbl(jdbl(c, "engines.render.avg_busy_pct"), (50.0 * 1 + 15.0 * 2) / 3, 1e-9,
			       "summary: render average weighted by interval");
			is_dbl(jdbl(c, "engines.render.peak_busy_pct"), 50.0, 1e-9, "summary: render peak");
			is_int(jint(c, "engines.video.busy_ns"), 1000000000, "summary: video busy 1 s");
			is_dbl(jdbl(c, "engines.video.avg_busy_pct"), 50.0 / 3, 1e-9,
			       "summary: video average (50 %% for 1 s, 0 %% for 2 s)");
			is_int(jint(c, "memory.system0.peak_total"), 8192 * 1024, "summary: peak total");
			is_int(jint(c, "memory.system0.peak_resident"), 6144 * 1024, "summary: peak resident");
			ok(jnull(c, "memory.system0.peak_shared"), "summary: kind never present is null");
		}
		c = NULL;
		for (size_t i = 0; cl && cl != (json_object *)-1 && i < json_object_array_length(cl); i++) {
			json_object *x = json_object_array_get_idx(cl, i);

			if (jint(x, "pid") == 400)
				c = x;
		}
		if (c) {
			is_int(jint(c, "samples"), 2, "summary msm: 2 samples");
			is_int(jint(c, "engines.gpu.busy_cycles"), 400000000, "summary msm: cycles summed");
			is_dbl(jdbl(c, "engines.gpu.avg_busy_pct"), 25.0, 1e-9, "summary msm: average");
		}
		json_object_put(root);
		b.len = 0;
		is_int(pk_gpu_summary_text(replay.sm, &b), 0, "summary text");
		ok(b.data && strstr(b.data, "3 scans over 3.000 s"), "summary text: header");
		ok(b.data && strstr(b.data, "render") && strstr(b.data, "26.7") &&
		   strstr(b.data, "8.0 MiB"), "summary text: render average and peak memory");
		if (b.data && getenv("PK_VERBOSE"))
			fputs(b.data, stdout);
		pk_buf_release(&b);
	}

	/* the callback stops the replay */
	{
		struct seen w = { .stop_after = 2 };

		is_int(pk_gpu_replay_file(path, seen_add, &w, &d), 42, "callback's return stops the replay");
		is_int(w.n, 2, "after two scans");
		seen_release(&w);
	}
	seen_release(&live);
	seen_release(&replay);
	unlink(path);
}

/* ---- corrupt and edge-case recordings -------------------------------------------- */

#define HDR "{\"format\":\"perfkit-gpu-recording\",\"version\":1,\"clock\":\"CLOCK_MONOTONIC\"}\n"
#define DEV "{\"type\":\"device\",\"key\":\"0000:00:02.0\",\"driver\":\"i915\",\"nodes\":[{\"name\":\"card0\",\"major\":226,\"minor\":0}]}\n"
#define FD(pid) "{\"pid\":" #pid ",\"comm\":\"a\",\"fd\":3,\"major\":226,\"minor\":0,\"time_ns\":5,\"fdinfo\":\"drm-driver:\\ti915\\ndrm-client-id:\\t1\\n\"}"
#define SCAN "{\"type\":\"scan\",\"seq\":1,\"time_ns\":5,\"processes\":1,\"fds\":[" FD(7) "]}\n"

static int count_scans(void *ctx, const struct pk_gpu_snapshot *s)
{
	(void)s;
	++*(int *)ctx;
	return 0;
}

/* Replay @text; check the result, the offset and a part of the message. */
static void corrupt(const char *text, size_t len, int want_err, uint64_t want_off,
		    const char *want_msg, const char *what)
{
	struct pk_diag d;
	int n = 0, err;

	pk_diag_init(&d);
	err = pk_gpu_replay_mem(text, len, "t.jsonl", count_scans, &n, &d);
	is_int(err, want_err, "%s: %s", what, want_err ? "rejected" : "accepted");
	if (want_err) {
		is_int(d.offset, want_off, "%s: offset", what);
		ok(strstr(d.msg, want_msg) != NULL, "%s: message '%s'", what, d.msg);
		is_str(d.subject, "t.jsonl", "%s: subject", what);
	}
}

#define CORRUPT(s, err, off, msg, what) corrupt(s, sizeof(s) - 1, err, off, msg, what)

static void test_corrupt(void)
{
	const size_t scan_off = sizeof(HDR DEV) - 1;
	struct pk_diag d;
	int n = 0;

	/* valid */
	pk_diag_init(&d);
	is_int(pk_gpu_replay_mem(HDR DEV SCAN SCAN, sizeof(HDR DEV SCAN SCAN) - 1, "t", count_scans,
				 &n, &d), 0, "valid recording: %s", d.msg);
	is_int(n, 2, "valid recording: two scans");
	n = 0;
	is_int(pk_gpu_replay_mem("", 0, "t", count_scans, &n, &d), 0, "empty file: ok");
	is_int(n, 0, "empty file: no scan");
	is_int(pk_gpu_replay_mem(NULL, 0, "t", count_scans, &n, &d), 0, "no bytes at all: ok");
	CORRUPT(HDR, 0, 0, "", "header only");
	CORRUPT(HDR DEV, 0, 0, "", "header and devices only");
	{
		static const char s[] = HDR DEV SCAN;
		int k = 0;

		pk_diag_init(&d);
		is_int(pk_gpu_replay_mem(s, sizeof(s) - 2, "t", count_scans, &k, &d), 0,
		       "last line without newline but complete: ok");
		is_int(k, 1, "last line without newline: replayed");
	}
	CORRUPT(HDR DEV "\n\r\n" SCAN "\n", 0, 0, "", "blank lines ignored");
	CORRUPT(HDR DEV "{\"type\":\"gpu-pmu\",\"x\":[1,2]}\n" SCAN, 0, 0, "", "unknown type skipped");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"new_key\":{\"a\":1},\"fds\":[]}\n", 0, 0, "",
		"unknown keys ignored");
	CORRUPT(HDR "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":0,\"fdinfo\":\"pos: 0\\n\"}]}\n",
		0, 0, "", "an fd that is not a DRM client is skipped");
	CORRUPT(HDR "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":0,"
		"\"fdinfo_base64\":\"ZHJtLWRyaXZlcjogaTkxNQo=\"}]}\n", 0, 0, "", "base64 text");

	/* corrupt */
	{
		static const char s[] = HDR DEV SCAN;

		corrupt(s, sizeof(s) - 20, -EBADMSG, scan_off, "truncated", "last line cut mid-object");
	}
	CORRUPT(HDR DEV "this is not json\n" SCAN, -EBADMSG, scan_off, "not valid JSON", "not JSON");
	CORRUPT(HDR DEV "[1,2]\n", -EBADMSG, scan_off, "not a JSON object", "an array line");
	CORRUPT(HDR DEV SCAN "{\"type\":\"scan\"} x\n", -EBADMSG, scan_off + sizeof(SCAN) - 1, "",
		"text after the object");
	CORRUPT(SCAN, -EBADMSG, 0, "not a perfkit gpu recording", "header missing");
	CORRUPT(DEV HDR SCAN, -EBADMSG, 0, "not a perfkit gpu recording", "header not first");
	CORRUPT("{\"format\":\"perf-data\",\"version\":1}\n", -EBADMSG, 0, "unknown format",
		"other format");
	CORRUPT("{\"format\":\"perfkit-gpu-recording\",\"version\":2}\n" DEV SCAN, -EBADMSG, 0,
		"version 2 is newer", "version 2");
	CORRUPT("{\"format\":\"perfkit-gpu-recording\",\"version\":\"1\"}\n", -EBADMSG, 0,
		"header line: 'version' is not a positive integer", "version a string");
	CORRUPT("{\"format\":\"perfkit-gpu-recording\"}\n", -EBADMSG, 0, "'version' is missing",
		"version missing");
	CORRUPT(HDR DEV HDR SCAN, -EBADMSG, scan_off, "second header", "two headers");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":\"5\",\"fds\":[]}\n", -EBADMSG, scan_off,
		"scan line: 'time_ns' is not a non-negative integer", "time_ns a string");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":-5,\"fds\":[]}\n", -EBADMSG, scan_off,
		"'time_ns' is not a non-negative integer", "negative time");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":99999999999999999999999,\"fds\":[]}\n",
		-EBADMSG, scan_off, "'time_ns' is out of range", "huge time");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":1.5,\"fds\":[]}\n", -EBADMSG, scan_off,
		"'time_ns' is not a non-negative integer", "fractional time");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5}\n", -EBADMSG, scan_off, "'fds' is missing",
		"fds missing");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":{\"pid\":1}}\n", -EBADMSG, scan_off,
		"'fds' is not an array", "fds not an array");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[" FD(1) "," FD(2) "," FD(-3) "]}\n",
		-EBADMSG, scan_off, "scan line: 'fds[2].pid' is not a positive integer", "negative pid");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[" FD(0) "]}\n", -EBADMSG, scan_off,
		"'fds[0].pid' is not a positive integer", "pid 0");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[" FD(2147483648) "]}\n", -EBADMSG,
		scan_off, "'fds[0].pid' is out of range", "pid above INT_MAX");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[" FD(18446744073709551616) "]}\n",
		-EBADMSG, scan_off, "'fds[0].pid' is out of range", "pid above 2^64");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":-1,\"fdinfo\":\"\"}]}\n",
		-EBADMSG, scan_off, "'fds[0].fd' is not a non-negative integer", "negative fd");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":1,\"minor\":4294967296,"
		"\"fdinfo\":\"\"}]}\n", -EBADMSG, scan_off, "'fds[0].minor' is out of range", "huge minor");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":1,\"fdinfo\":5}]}\n",
		-EBADMSG, scan_off, "'fds[0].fdinfo' is not a string", "fdinfo a number");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":1}]}\n",
		-EBADMSG, scan_off, "'fds[0].fdinfo' is missing", "fdinfo missing");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":1,"
		"\"fdinfo_base64\":\"@@@@\"}]}\n", -EBADMSG, scan_off, "is not base64", "bad base64");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[{\"pid\":1,\"fd\":1,\"comm\":\"a\\u0000b\","
		"\"fdinfo\":\"\"}]}\n", -EBADMSG, scan_off, "'fds[0].comm' contains a NUL", "NUL in comm");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[7]}\n", -EBADMSG, scan_off,
		"'fds[0]' is not an object", "fd entry a number");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":5}\n", -EBADMSG, sizeof(HDR) - 1,
		"device line: 'key' is not a string", "device key a number");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}\n",
		-EBADMSG, sizeof(HDR) - 1, "'key' is longer than 63 bytes", "device key too long");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"a\",\"vendor_id\":4294967296}\n", -EBADMSG,
		sizeof(HDR) - 1, "'vendor_id' is out of range", "vendor id above 2^32");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"a\",\"nodes\":\"card0\"}\n", -EBADMSG,
		sizeof(HDR) - 1, "'nodes' is not an array", "nodes not an array");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"a\",\"nodes\":[{},{},{},{},{},{},{},{},{}]}\n",
		-EBADMSG, sizeof(HDR) - 1, "more than 8 nodes", "too many nodes");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"a\",\"nodes\":[{\"name\":\"card0\",\"major\":226}]}\n",
		-EBADMSG, sizeof(HDR) - 1, "'nodes[0].minor' is missing", "node minor missing");
	CORRUPT(HDR "{\"type\":\"device\",\"key\":\"a\"}\n{\"type\":\"device\",\"key\":\"a\"}\n",
		-EBADMSG, sizeof(HDR) + 27, "listed twice", "duplicate device");
	CORRUPT(HDR SCAN DEV, -EBADMSG, sizeof(HDR SCAN) - 1, "after the first scan",
		"device after a scan");
	CORRUPT(HDR "{\"type\":5}\n", -EBADMSG, sizeof(HDR) - 1, "'type' is missing or not a string",
		"type a number");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[" "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]" "]}\n", -EBADMSG, scan_off, "not valid JSON",
		"nesting too deep");
	CORRUPT(HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\"fds\":[],\"x\":\"\xff\"}\n", -EBADMSG,
		scan_off, "not valid JSON", "invalid UTF-8");
	{
		static const char s[] = HDR DEV "{\"type\":\"scan\",\"time_ns\":5,\0\"fds\":[]}\n";

		corrupt(s, sizeof(s) - 1, -EBADMSG, scan_off, "NUL byte", "NUL byte in the middle");
	}
	{
		/* a line claiming a 100 MB string */
		size_t big = 100u << 20, pre = sizeof(HDR DEV) - 1;
		char *s = malloc(big + 256);

		if (s) {
			int k = sprintf(s, "%s%s{\"type\":\"scan\",\"time_ns\":5,\"fds\":[],\"x\":\"", HDR, DEV);

			memset(s + k, 'a', big);
			memcpy(s + k + big, "\"}\n", 3);
			corrupt(s, k + big + 3, -EBADMSG, pre, "line longer than 64 MiB", "100 MB string");
			free(s);
		}
	}
	{
		/* more values than a line may hold: bounded memory */
		size_t nvals = (1u << 20) + 10, k;
		char *s = malloc(nvals * 2 + 256);

		if (s) {
			k = (size_t)sprintf(s, "%s{\"type\":\"scan\",\"time_ns\":5,\"fds\":[],\"x\":[", HDR);
			for (size_t i = 0; i < nvals; i++) {
				s[k++] = '1';
				s[k++] = ',';
			}
			memcpy(s + k - 1, "]}\n", 3);
			corrupt(s, k + 2, -EBADMSG, sizeof(HDR) - 1, "JSON values", "too many values");
			free(s);
		}
	}
	/* the scans before a bad line have been replayed */
	{
		static const char s[] = HDR SCAN SCAN "{\"type\":\"scan\"}\n";
		int k = 0;

		pk_diag_init(&d);
		is_int(pk_gpu_replay_mem(s, sizeof(s) - 1, "t", count_scans, &k, &d), -EBADMSG,
		       "bad third line");
		is_int(k, 2, "the two scans before it were replayed");
		is_int(d.offset, sizeof(HDR SCAN SCAN) - 1, "offset of the third line");
	}
}

static void test_files(void)
{
	struct pk_diag d;
	struct pk_gpu_recorder *rec;
	char path[128];
	int n = 0, err;

	pk_diag_init(&d);
	err = pk_gpu_replay_file("/nonexistent/rec.jsonl", count_scans, &n, &d);
	is_int(err, -ENOENT, "missing file: -ENOENT");
	is_str(d.subject, "/nonexistent/rec.jsonl", "missing file: named");

	snprintf(path, sizeof(path), "%s/empty.jsonl", tmpdir);
	fclose(fopen(path, "w"));
	pk_diag_init(&d);
	is_int(pk_gpu_replay_file(path, count_scans, &n, &d), 0, "empty file: 0");
	is_int(n, 0, "empty file: no scan");
	unlink(path);

	/* header-only recording written by the recorder, read back */
	snprintf(path, sizeof(path), "%s/hdr.jsonl", tmpdir);
	rec = pk_gpu_rec_open(path, devices, 3, 2000000000, &d);
	ok(rec != NULL, "recorder without scans");
	is_int(pk_gpu_rec_close(rec, &d), 0, "closed");
	pk_diag_init(&d);
	is_int(pk_gpu_replay_file(path, count_scans, &n, &d), 0, "header and devices only: ok (%s)",
	       d.msg);
	{
		struct pk_buf b;
		json_object *h;

		pk_buf_init(&b);
		pk_file_read_all(path, &b, 1 << 20);
		h = b.data ? json_tokener_parse(b.data) : NULL;     /* the first line */
		is_str(jstr(h, "format"), "perfkit-gpu-recording", "header: format");
		is_int(jint(h, "version"), 1, "header: version");
		is_int(jint(h, "interval_ns"), 2000000000, "header: interval");
		is_str(jstr(h, "perfkit"), PK_VERSION, "header: perfkit version");
		ok(jint(h, "start_realtime_ns") > 1600000000ll * 1000000000ll, "header: realtime start");
		json_object_put(h);
		pk_buf_release(&b);
	}
	unlink(path);

	/* a comm that is not UTF-8 is recorded with '?' for the bad bytes */
	snprintf(path, sizeof(path), "%s/comm.jsonl", tmpdir);
	rec = pk_gpu_rec_open(path, NULL, 0, 1, &d);
	if (rec) {
		static const char text[] = "drm-driver:\ti915\ndrm-client-id:\t5\n";
		struct pk_gpu_fd_sample s = { .pid = 9, .comm = "bad\xff\xc3", .fd = 4, .major = -1,
					      .minor = -1, .time_ns = 7 };
		struct pk_gpu_snapshot snap = { .seq = 1, .time_ns = 7 };
		struct seen w = { 0 };

		is_int(pk_gpu_rec_fdinfo(rec, &s, text, sizeof(text) - 1), 0, "fd recorded");
		is_int(pk_gpu_rec_scan(rec, &snap, &d), 0, "scan recorded");
		is_int(pk_gpu_rec_close(rec, &d), 0, "closed");
		is_int(pk_gpu_replay_file(path, seen_add, &w, &d), 0, "replayed");
		ok(w.n == 1 && strstr(w.digest[0], "pid 9 'bad?" "?'") != NULL, "comm with bad bytes replayed as '?'");
		ok(w.n == 1 && strstr(w.digest[0], "t 7 ") != NULL, "fd time replayed");
		seen_release(&w);
		unlink(path);
	}

	/* a write error is reported with the path */
	if (access("/dev/full", W_OK) == 0) {
		struct pk_gpu_snapshot snap = { .seq = 1, .time_ns = 1 };

		pk_diag_init(&d);
		rec = pk_gpu_rec_open("/dev/full", devices, 3, 1, &d);
		ok(rec != NULL, "/dev/full opened (writes are buffered)");
		if (rec) {
			pk_gpu_rec_scan(rec, &snap, &d);
			err = pk_gpu_rec_close(rec, &d);
			is_int(err, -ENOSPC, "/dev/full: -ENOSPC at close");
			is_str(d.subject, "/dev/full", "/dev/full: named");
			ok(strstr(d.msg, "No space left") != NULL, "/dev/full: message '%s'", d.msg);
		}
	}
	pk_diag_init(&d);
	rec = pk_gpu_rec_open("/nonexistent/x.jsonl", NULL, 0, 1, &d);
	ok(rec == NULL && d.err == -ENOENT, "cannot create: -ENOENT");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		skip_all("cannot create a temporary directory");
		return 0;
	}
	load_samples();
	if (!n_samples)
		diag("fdinfo samples not found (set PK_SHARED): hand-written texts only");
	test_round_trip();
	test_corrupt();
	test_files();
	rmdir(tmpdir);
	for (int i = 0; i < n_samples; i++) {
		free(sample_name[i]);
		free(sample_text[i]);
	}
	free(xe_text);
	return done_testing();
}
