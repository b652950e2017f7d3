/*
 * Tests of the oa metric-set loader and the RPN equation evaluator
 * (include/perfkit/oa_metrics.h):
 *
 *  1. the four metric files of $PK_SHARED/data/intel-oa (../shared when
 *     unset) load, with the documented set and counter counts, and the
 *     sets, GUIDs and equations named in gpu.md; every equation,
 *     max_equation and availability predicate of every set compiles;
 *  2. the worked example of gpu.md 4.5 from hand-built deltas;
 *  3. the oracle: for every regular recording of data/i915-perf whose
 *     metric file is here (HSW, BDW RenderBasic and TestOa, SKL, TGL), the
 *     reports are accumulated by this test (a plain reading of gpu.md 3.4,
 *     independent of lib/oa's decoder), every counter of every timeline and
 *     of every per-report block is evaluated and printed as IGT prints it
 *     ("%" PRIu64 or "%f"), and must equal i915-perf-reader's output text
 *     exactly; the reader prints only available counters, so the number of
 *     available counters must match too;
 *  4. operator semantics (C conversions, division by zero, USUB wrap, UDIV
 *     of a double truncating, double to uint64 outside the range);
 *  5. malformed equations, bad XML, cycles of counter references;
 *  6. a set compiled for a device (device variables and format folded in,
 *     operations on constants done once) computes bit for bit what the
 *     plain interpreter (pk_oa_expr_eval, nothing folded) computes: every
 *     equation and max equation of every set of the four files, on zero,
 *     small, 40-bit-range and random deltas, a set of equations that
 *     fold every operator on edge values, and every operator on every
 *     pair of run-time operands of both types (the typed program of
 *     lib/oa/eval_typed.c);
 *  7. a batch (pk_oa_eval_run_batch) gives what one array at a time gives,
 *     bit for bit and in each array's place, on the same sets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"

static bool have_metric_files(void)
{
	return shared_has("data/intel-oa/oa-hsw.xml") && shared_has("data/intel-oa/oa-bdw.xml") &&
	       shared_has("data/intel-oa/oa-sklgt2.xml") && shared_has("data/intel-oa/oa-tglgt2.xml");
}

static struct pk_oa_metrics *load(const char *file)
{
	char path[1024];
	struct pk_diag d;
	struct pk_oa_metrics *m = NULL;
	int err;

	pk_diag_init(&d);
	snprintf(path, sizeof(path), "%s/data/intel-oa/%s", shared_dir(), file);
	err = pk_oa_metrics_load(path, &m, &d);
	if (err) {
		char b[1024];

		diag("%s", pk_diag_str(&d, b, sizeof(b)));
	}
	return m;
}

/* ---- 1. the files ------------------------------------------------------------- */

static const struct {
	const char *file;
	size_t sets, counters;
} files[] = {
	{ "oa-hsw.xml", 6, 313 },
	{ "oa-bdw.xml", 24, 863 },
	{ "oa-sklgt2.xml", 22, 721 },
	{ "oa-tglgt2.xml", 26, 574 },
};

static void test_files(void)
{
	size_t total_eq = 0, total_avail = 0;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pk_oa_metrics *m = load(files[f].file);
		size_t n_ctr = 0, bad = 0;
		struct pk_oa_devvars vars = { .eu_cores_total = 24, .slice_mask = 1, .subslice_mask = 7,
					      .timestamp_frequency = 12500000 };
		const struct pk_oa_format_info *lay = pk_oa_format_info(f == 0 ? 5 : 10);

		ok(m != NULL, "%s loads", files[f].file);
		if (!m)
			continue;
		is_int(pk_oa_metrics_n_sets(m), files[f].sets, "%s: %zu sets", files[f].file, files[f].sets);
		for (size_t i = 0; i < pk_oa_metrics_n_sets(m); i++) {
			const struct pk_oa_set_info *s = pk_oa_metrics_set(m, i);
			struct pk_oa_eval *ev = NULL;
			struct pk_diag d;

			n_ctr += s->n_counters;
			pk_diag_init(&d);
			if (pk_oa_eval_new(s, &vars, lay, &ev, &d)) {
				char b[1024];

				bad++;
				diag("%s", pk_diag_str(&d, b, sizeof(b)));
			}
			for (size_t k = 0; k < s->n_counters; k++) {
				total_eq += 1 + (s->counters[k].max_equation != NULL);
				total_avail += s->counters[k].availability != NULL;
			}
			pk_oa_eval_free(ev);
		}
		is_int(n_ctr, files[f].counters, "%s: %zu counters", files[f].file, files[f].counters);
		is_int(bad, 0, "%s: every equation, max_equation and availability compiles", files[f].file);
		pk_oa_metrics_free(m);
	}
	/* gpu.md 4.1: 2471 counters, 1129 max equations; 254 counter availabilities */
	is_int(total_eq, 2471 + 1129, "3600 equations and max equations compiled");
	is_int(total_avail, 254, "254 availability predicates compiled");
}

static void test_bdw_lookup(void)
{
	struct pk_oa_metrics *m = load("oa-bdw.xml");
	const struct pk_oa_set_info *s, *g;
	int i;
	char path[1024], dir[600];
	struct pk_diag d;

	if (!m) {
		ok(0, "oa-bdw.xml loads");
		return;
	}
	s = pk_oa_metrics_find_set(m, "RenderBasic");
	ok(s != NULL, "find RenderBasic by symbol name");
	if (!s)
		goto out;
	is_str(s->hw_config_guid, "b541bd57-0e0f-4154-b4c0-5858010a2bf7", "RenderBasic GUID");
	is_str(s->name, "Render Metrics Basic set", "RenderBasic name");
	is_str(s->chipset, "BDW", "RenderBasic chipset");
	is_str(s->underscore_name, "render_basic", "RenderBasic underscore_name");
	ok(s->oa_format == NULL, "RenderBasic has no oa_format");
	ok(s->n_register_configs > 0, "RenderBasic register configs counted (%zu)", s->n_register_configs);
	g = pk_oa_metrics_find_set(m, "B541BD57-0E0F-4154-B4C0-5858010A2BF7");
	ok(g == s, "find RenderBasic by GUID, case-insensitive");
	ok(pk_oa_metrics_find_set(m, "Render Metrics Basic set") == s, "find RenderBasic by name");
	ok(pk_oa_metrics_find_set(m, "renderBASIC") == s, "find RenderBasic by symbol name ignoring case, as i915-perf-recorder -m");
	ok(pk_oa_metrics_find_set(m, "NoSuchSet") == NULL, "unknown set not found");
	{
		/* "did you mean": the closest symbol name, ignoring case, or nothing */
		static const struct { const char *key, *hint; } sets[] = {
			{ "renderbasic", "did you mean 'RenderBasic'?" },
			{ "RenderBsic", "did you mean 'RenderBasic'?" },
			{ "ComputBasic", "did you mean 'ComputeBasic'?" },
			{ "NoSuchSet", "" },
		};

		for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
			pk_diag_init(&d);
			pk_oa_metrics_suggest_set(m, sets[k].key, &d);
			is_str(d.hint, sets[k].hint, "unknown set '%s': hint", sets[k].key);
		}
		pk_diag_init(&d);
		pk_oa_set_suggest_counter(s, "gputime,EuActive", 7, &d);
		is_str(d.hint, "did you mean 'GpuTime'?", "unknown counter 'gputime' (7 bytes of a list): hint");
		pk_diag_init(&d);
		pk_oa_set_suggest_counter(s, "EUActiv", 7, &d);
		is_str(d.hint, "did you mean 'EuActive'?", "unknown counter 'EUActiv': hint");
		pk_diag_init(&d);
		pk_oa_set_suggest_counter(s, "Zzzzzz", 6, &d);
		is_str(d.hint, "", "unknown counter 'Zzzzzz': no hint");
	}
	ok(pk_oa_metrics_find_set(m, "TestOa") != NULL, "TestOa present");
	i = pk_oa_set_counter_index(s, "GpuBusy");
	ok(i >= 0, "GpuBusy in RenderBasic");
	if (i >= 0) {
		const struct pk_oa_counter_info *c = &s->counters[i];

		is_str(c->equation, "A 0 READ 100 UMUL $GpuCoreClocks FDIV", "GpuBusy equation");
		is_str(c->max_equation, "100", "GpuBusy max_equation");
		is_str(c->name, "GPU Busy", "GpuBusy name");
		is_str(c->units, "percent", "GpuBusy units");
		is_str(c->semantic_type, "duration", "GpuBusy semantic_type");
		is_str(c->underscore_name, "gpu_busy", "GpuBusy underscore_name");
		ok(c->description && *c->description, "GpuBusy has a description");
		is_int(c->data_type, PK_OA_FLOAT, "GpuBusy is float");
		ok(c->line > 1, "GpuBusy line recorded (%u)", c->line);
	}
	i = pk_oa_set_counter_index(s, "GpuTime");
	ok(i >= 0 && s->counters[i].data_type == PK_OA_UINT64, "GpuTime is uint64");

	/* platform search */
	snprintf(dir, sizeof(dir), "%s/data/intel-oa", shared_dir());
	pk_diag_init(&d);
	is_int(pk_oa_metrics_find_platform(dir, "bdw", path, sizeof(path), &d), 0, "platform bdw found");
	ok(strstr(path, "/oa-bdw.xml") != NULL, "bdw -> oa-bdw.xml");
	is_int(pk_oa_metrics_find_platform(dir, "SKLGT2", path, sizeof(path), &d), 0, "platform SKLGT2 found");
	ok(strstr(path, "/oa-sklgt2.xml") != NULL, "SKLGT2 -> oa-sklgt2.xml");
	pk_diag_init(&d);
	is_int(pk_oa_metrics_find_platform(dir, "acmgt3", path, sizeof(path), &d), -ENOENT,
	       "platform acmgt3 absent: -ENOENT");
	ok(strstr(d.msg, "acmgt3") != NULL, "message names the platform: %s", d.msg);
	is_int(pk_oa_metrics_find_platform(dir, "../x", path, sizeof(path), &d), -EINVAL,
	       "platform with a path rejected");
out:
	pk_oa_metrics_free(m);
}

/* ---- 2. the worked example ---------------------------------------------------- */

static const struct pk_oa_value *value_of(const struct pk_oa_set_info *s, const struct pk_oa_value *v,
					  const char *sym)
{
	int i = pk_oa_set_counter_index(s, sym);

	return i >= 0 ? &v[i] : NULL;
}

static void test_worked_example(void)
{
	struct pk_oa_metrics *m = load("oa-bdw.xml");
	const struct pk_oa_set_info *s = m ? pk_oa_metrics_find_set(m, "RenderBasic") : NULL;
	struct pk_oa_devvars vars = { .eu_cores_total = 24, .eu_slices_total = 1, .eu_subslices_total = 3,
				      .eu_threads_count = 7, .slice_mask = 1, .subslice_mask = 7,
				      .timestamp_frequency = 12500000, .gt_max_freq = 1000000000 };
	const struct pk_oa_format_info *lay = pk_oa_format_info(10);
	struct pk_oa_eval *ev = NULL;
	struct pk_oa_value *v, mx;
	uint64_t deltas[PK_OA_MAX_VALUES] = { 0 };
	const struct pk_oa_value *x;
	struct pk_diag d;

	pk_diag_init(&d);
	if (!s || !lay || pk_oa_eval_new(s, &vars, lay, &ev, &d)) {
		ok(0, "BDW RenderBasic compiles: %s", d.msg);
		pk_oa_metrics_free(m);
		return;
	}
	deltas[0] = 37500;        /* GPU_TIME */
	deltas[1] = 2400000;      /* GPU_CLOCK */
	deltas[2 + 0] = 1800000;  /* A0 */
	deltas[2 + 7] = 2088;     /* A7: 2088 / 24 EUs * 100 / 2400000 = 0.003625 */
	v = calloc(s->n_counters, sizeof(*v));
	pk_oa_eval_run(ev, deltas, v);
	x = value_of(s, v, "GpuTime");
	ok(x && x->type == PK_OA_UINT64 && x->u == 3000000, "4.5 GpuTime = 3000000 ns");
	x = value_of(s, v, "GpuCoreClocks");
	ok(x && x->u == 2400000, "4.5 GpuCoreClocks = 2400000");
	x = value_of(s, v, "AvgGpuCoreFrequency");
	ok(x && x->u == 800000000, "4.5 AvgGpuCoreFrequency = 800000000 Hz");
	x = value_of(s, v, "GpuBusy");
	ok(x && x->type == PK_OA_FLOAT && x->f == 75.0, "4.5 GpuBusy = 75.0");
	x = value_of(s, v, "EuActive");
	ok(x && x->type == PK_OA_FLOAT && fabs(x->f - 0.003625) < 1e-12, "4.5 EuActive = 0.003625");
	is_int(pk_oa_eval_max(ev, (size_t)pk_oa_set_counter_index(s, "GpuBusy"), deltas, v, &mx), 0,
	       "GpuBusy has a max");
	ok(mx.type == PK_OA_FLOAT && mx.f == 100.0, "GpuBusy max = 100");
	is_int(pk_oa_eval_max(ev, (size_t)pk_oa_set_counter_index(s, "GpuTime"), deltas, v, &mx), -ENOENT,
	       "GpuTime has no max");
	x = value_of(s, v, "AvgGpuCoreFrequency");
	if (pk_oa_eval_max(ev, (size_t)pk_oa_set_counter_index(s, "AvgGpuCoreFrequency"), deltas, v, &mx) == 0)
		ok(mx.u == 1000000000, "AvgGpuCoreFrequency max = $GpuMaxFrequency");
	free(v);
	pk_oa_eval_free(ev);
	pk_oa_metrics_free(m);
}

/* ---- 3. the oracle ------------------------------------------------------------- */

struct recording {
	uint8_t *buf;
	size_t len;
	uint64_t ts_freq;
	uint32_t devid, revision, gt_min, gt_max, oa_format;
	char set_name[257], uuid[41];
	const uint8_t *topo;
	size_t topo_len;
	const uint8_t *rep[64];
	size_t n_rep;
};

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The records of an IGT recording (gpu.md 1.1-1.3); 0 or -1. */
static int read_recording(const char *path, struct recording *r)
{
	struct pk_buf b;
	size_t off = 0;

	memset(r, 0, sizeof(*r));
	pk_buf_init(&b);
	if (pk_file_read_all(path, &b, 1 << 20))
		return -1;
	r->buf = (uint8_t *)b.data;
	r->len = b.len;
	while (off + 8 <= r->len) {
		const uint8_t *p = r->buf + off;
		uint32_t type = le32(p);
		uint16_t size = (uint16_t)(p[6] | p[7] << 8);

		if (size < 8 || size > r->len - off)
			return -1;
		if (type == 1 && size == 8 + 256 && r->n_rep < 64)
			r->rep[r->n_rep++] = p + 8;
		if (type == 0x10001 && size == 344) {
			r->ts_freq = le64(p + 8);
			r->devid = le32(p + 16);
			r->revision = le32(p + 20);
			r->gt_min = le32(p + 24);
			r->gt_max = le32(p + 28);
			r->oa_format = le32(p + 40);
			memcpy(r->set_name, p + 44, 256);
			memcpy(r->uuid, p + 300, 40);
		}
		if (type == 0x10002) {
			r->topo = p + 8;
			r->topo_len = size - 8u;
		}
		off += size;
	}
	return r->topo && r->ts_freq && r->n_rep ? 0 : -1;
}

/* deltas[] += report b - report a, in the accumulator layout of gpu.md 3.4. */
static void accumulate(uint64_t *d, unsigned format, const uint8_t *a, const uint8_t *b)
{
#define DW(p, i) le32((p) + 4 * (i))
	if (format == 5) {
		d[0] += (uint32_t)(DW(b, 1) - DW(a, 1));
		for (int k = 0; k < 61; k++)
			d[1 + k] += (uint32_t)(DW(b, 3 + k) - DW(a, 3 + k));
		return;
	}
	d[0] += (uint32_t)(DW(b, 1) - DW(a, 1));
	d[1] += (uint32_t)(DW(b, 3) - DW(a, 3));
	for (int i = 0; i < 32; i++) {
		uint64_t va = DW(a, 4 + i) | (uint64_t)a[160 + i] << 32;
		uint64_t vb = DW(b, 4 + i) | (uint64_t)b[160 + i] << 32;

		d[2 + i] += vb >= va ? vb - va : (1ull << 40) + vb - va;
	}
	for (int i = 0; i < 4; i++)
		d[34 + i] += (uint32_t)(DW(b, 36 + i) - DW(a, 36 + i));
	for (int i = 0; i < 16; i++)
		d[38 + i] += (uint32_t)(DW(b, 48 + i) - DW(a, 48 + i));
#undef DW
}

/* The context of a report as IGT's reader sees it (gpu.md 3.3). */
static uint32_t ctx_of(const uint8_t *rep, unsigned gen)
{
	uint32_t dw0 = le32(rep);

	if (gen == 7)
		return 0xffffffff;
	if (gen == 8)
		return dw0 & (1u << 25) ? le32(rep + 8) : 0xffffffff;
	if (gen < 12)
		return dw0 & (1u << 16) ? le32(rep + 8) : 0xffffffff;
	return le32(rep + 8);
}

/* One block of the reader output: "   Name: value" lines. */
struct block {
	char names[128][64];
	char values[128][64];
	size_t n;
};

struct oracle {
	struct block timeline[8];
	struct block report[8][16];
	size_t n_reports[8];
	size_t n_timelines;
};

static int read_oracle(const char *path, struct oracle *o)
{
	FILE *f = fopen(path, "r");
	char line[512];
	struct block *cur = NULL;

	memset(o, 0, sizeof(*o));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "hw_id=", 6) == 0) {
			cur = o->n_timelines < 8 ? &o->timeline[o->n_timelines++] : NULL;
			continue;
		}
		if (strncmp(line, " report", 7) == 0 && o->n_timelines) {
			size_t t = o->n_timelines - 1;

			cur = o->n_reports[t] < 16 ? &o->report[t][o->n_reports[t]++] : NULL;
			continue;
		}
		if (strncmp(line, "   ", 3) != 0) {
			cur = NULL;
			continue;
		}
		colon = strstr(line, ": ");
		if (!cur || !colon || cur->n == 128)
			continue;
		*colon = '\0';
		if (strlen(line + 3) >= 64 || strlen(colon + 2) >= 64)
			continue;
		memcpy(cur->names[cur->n], line + 3, strlen(line + 3) + 1);
		memcpy(cur->values[cur->n], colon + 2, strlen(colon + 2) + 1);
		cur->n++;
	}
	fclose(f);
	return 0;
}

/* Compare @b with the values of @ev on @deltas; the number of differences. */
static size_t compare_block(const struct pk_oa_eval *ev, const uint64_t *deltas, const struct block *b,
			    const char *what)
{
	const struct pk_oa_set_info *s = pk_oa_eval_set(ev);
	struct pk_oa_value *v = calloc(s->n_counters, sizeof(*v));
	size_t bad = 0;

	pk_oa_eval_run(ev, deltas, v);
	if (b->n != pk_oa_eval_n_available(ev)) {
		diag("%s: the reader printed %zu counters, %zu are available", what, b->n,
		     pk_oa_eval_n_available(ev));
		bad++;
	}
	for (size_t k = 0; k < b->n; k++) {
		int i = pk_oa_set_counter_index(s, b->names[k]);
		char mine[64];

		if (i < 0 || !pk_oa_eval_available(ev, (size_t)i)) {
			diag("%s: %s %s", what, b->names[k], i < 0 ? "not in the set" : "not available");
			bad++;
			continue;
		}
		if (v[i].type == PK_OA_FLOAT)
			snprintf(mine, sizeof(mine), "%f", v[i].f);
		else
			snprintf(mine, sizeof(mine), "%" PRIu64, v[i].u);
		if (strcmp(mine, b->values[k]) != 0) {
			diag("%s: %s = %s, the reader printed %s", what, b->names[k], mine, b->values[k]);
			bad++;
		}
	}
	free(v);
	return bad;
}

static void test_oracle(const char *rec_name, const char *xml, unsigned gen)
{
	char path[1024];
	struct recording r = { 0 };
	struct oracle *o = calloc(1, sizeof(*o));
	struct pk_oa_metrics *m = NULL;
	const struct pk_oa_set_info *s;
	struct pk_oa_devvars vars = { 0 };
	struct pk_oa_recording *rec = NULL;
	const struct pk_oa_format_info *lay;
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;
	size_t seg_start[16], n_seg = 0, checked = 0, bad = 0;

	pk_diag_init(&d);
	snprintf(path, sizeof(path), "data/i915-perf/%s.i915perf", rec_name);
	if (!shared_has(path)) {
		ok(1, "# SKIP %s: no recording under %s/data/i915-perf", rec_name, shared_dir());
		goto out;
	}
	snprintf(path, sizeof(path), "%s/data/i915-perf/%s.i915perf", shared_dir(), rec_name);
	if (read_recording(path, &r)) {
		ok(0, "%s: recording read", rec_name);
		goto out;
	}
	snprintf(path, sizeof(path), "%s/data/i915-perf/%s.reader-output.txt", shared_dir(), rec_name);
	if (read_oracle(path, o) || !o->n_timelines) {
		ok(0, "%s: reader output read", rec_name);
		goto out;
	}
	m = load(xml);
	s = m ? pk_oa_metrics_find_set(m, r.set_name) : NULL;
	ok(s != NULL, "%s: metric set '%s' found in %s", rec_name, r.set_name, xml);
	if (!s)
		goto out;
	is_str(s->hw_config_guid, r.uuid, "%s: recording uuid is the set's GUID", rec_name);
	snprintf(path, sizeof(path), "%s/data/i915-perf/%s.i915perf", shared_dir(), rec_name);
	if (pk_oa_recording_read_file(path, &rec, &d)) {
		ok(0, "%s: pk_oa_recording_read_file: %s", rec_name, d.msg);
		goto out;
	}
	pk_oa_devvars_from_recording(&vars, rec);
	ok(vars.timestamp_frequency == r.ts_freq && vars.revision == r.revision &&
	   vars.gt_min_freq == r.gt_min && vars.gt_max_freq == r.gt_max && vars.eu_threads_count == 7,
	   "%s: device variables from DEVICE_INFO and the platform", rec_name);
	lay = pk_oa_format_info((int)r.oa_format);
	if (!lay || pk_oa_eval_new(s, &vars, lay, &ev, &d)) {
		ok(0, "%s: device variables, layout and set: %s", rec_name, d.msg);
		goto out;
	}
	diag("%s: %" PRIu64 " EUs, slices 0x%" PRIx64 ", subslices 0x%" PRIx64 ", %zu of %zu counters available",
	     rec_name, vars.eu_cores_total, vars.slice_mask, vars.subslice_mask,
	     pk_oa_eval_n_available(ev), s->n_counters);

	/* timelines: a new one at each report whose context differs */
	for (size_t i = 0; i < r.n_rep && n_seg < 16; i++)
		if (i == 0 || ctx_of(r.rep[i], gen) != ctx_of(r.rep[i - 1], gen))
			seg_start[n_seg++] = i;
	is_int(n_seg, o->n_timelines, "%s: %zu timelines, as the reader", rec_name, n_seg);
	for (size_t t = 0; t < n_seg && t < o->n_timelines; t++) {
		size_t a = seg_start[t], e = t + 1 < n_seg ? seg_start[t + 1] : r.n_rep - 1;
		uint64_t deltas[PK_OA_MAX_VALUES] = { 0 };
		char what[128];

		for (size_t i = a; i < e; i++)
			accumulate(deltas, r.oa_format, r.rep[i], r.rep[i + 1]);
		snprintf(what, sizeof(what), "%s timeline %zu", rec_name, t);
		bad += compare_block(ev, deltas, &o->timeline[t], what);
		checked += o->timeline[t].n;
		for (size_t k = 0; k < o->n_reports[t] && a + k + 1 < r.n_rep; k++) {
			uint64_t rd[PK_OA_MAX_VALUES] = { 0 };

			accumulate(rd, r.oa_format, r.rep[a + k], r.rep[a + k + 1]);
			snprintf(what, sizeof(what), "%s timeline %zu report %zu", rec_name, t, k);
			bad += compare_block(ev, rd, &o->report[t][k], what);
			checked += o->report[t][k].n;
		}
	}
	ok(checked > 0 && bad == 0, "%s: %zu counter values equal i915-perf-reader's (%zu differ)",
	   rec_name, checked, bad);
out:
	pk_oa_recording_free(rec);
	pk_oa_eval_free(ev);
	pk_oa_metrics_free(m);
	free(r.buf);
	free(o);
}

/* ---- 4. operators --------------------------------------------------------------- */

static struct pk_oa_value ev_expr(const char *text, enum pk_oa_data_type type, const struct pk_oa_env *env)
{
	static const char *const names[] = { "IntCtr", "FloatCtr" };
	struct pk_oa_expr *e = NULL;
	struct pk_diag d;
	struct pk_oa_value v = { .type = type };

	pk_diag_init(&d);
	if (pk_oa_expr_compile(text, names, 2, &e, &d)) {
		diag("'%s' does not compile: %s", text, d.msg);
		v.u = 0xdeadbeef;
		return v;
	}
	v = pk_oa_expr_eval(e, env, type);
	pk_oa_expr_free(e);
	return v;
}

#define U64(text, want, ...) do { \
	struct pk_oa_value v_ = ev_expr(text, PK_OA_UINT64, &env); \
	if (!ok(v_.u == (uint64_t)(want), __VA_ARGS__)) \
		diag("'%s' gave %" PRIu64 ", want %" PRIu64, text, v_.u, (uint64_t)(want)); \
} while (0)
#define DBL(text, want, ...) do { \
	struct pk_oa_value v_ = ev_expr(text, PK_OA_FLOAT, &env); \
	if (!ok(v_.f == (double)(want), __VA_ARGS__)) \
		diag("'%s' gave %.17g, want %.17g", text, v_.f, (double)(want)); \
} while (0)

static void test_operators(void)
{
	uint64_t deltas[PK_OA_MAX_VALUES] = { 0 };
	struct pk_oa_devvars vars = { .eu_cores_total = 24, .slice_mask = 3, .subslice_mask = 0x3f,
				      .timestamp_frequency = 12500000, .revision = 3, .query_mode = 0 };
	struct pk_oa_value ctrs[2] = { { .type = PK_OA_UINT64, .u = 10 }, { .type = PK_OA_FLOAT, .f = 2.5 } };
	struct pk_oa_env env = { .deltas = deltas, .fmt = pk_oa_format_info(10), .vars = &vars, .counters = ctrs };

	deltas[0] = 100;        /* GPU_TIME 0 */
	deltas[1] = 200;        /* GPU_CLOCK 0 */
	deltas[2 + 3] = 7;      /* A 3 */
	deltas[38 + 1] = 11;    /* B 1 */
	deltas[46 + 7] = 13;    /* C 7 */
	deltas[54 + 2] = 17;    /* PERFCNT 2 */

	U64("GPU_TIME 0 READ", 100, "READ GPU_TIME");
	U64("GPU_CLOCK 0 READ", 200, "READ GPU_CLOCK");
	U64("A 3 READ B 1 READ UADD C 7 READ UADD", 31, "READ A/B/C at their offsets");
	U64("PERFCNT 2 READ", 17, "READ PERFCNT");
	U64("A 62 READ", 0, "READ past the deltas gives 0");
	U64("0x10 10 UADD", 26, "hex and decimal literals");
	U64("5 3 USUB", 2, "USUB");
	U64("3 5 USUB", UINT64_MAX - 1, "USUB wraps below zero");
	U64("7 2 UDIV", 3, "UDIV truncates");
	U64("7 0 UDIV", 0, "UDIV by zero gives 0");
	U64("$FloatCtr 2 UDIV", 1, "UDIV converts a double operand to uint64 first (2.5 -> 2)");
	U64("5 $FloatCtr UDIV", 2, "UDIV by a double 2.5 divides by 2");
	U64("1 $FloatCtr 4 FDIV UDIV", 0, "UDIV by a double below 1 divides by 0: 0");
	U64("$FloatCtr 3 UMUL", 7, "UMUL with a double computes 7.5, truncated");
	U64("$FloatCtr 3 UADD", 5, "UADD with a double computes 5.5, truncated");
	U64("$FloatCtr 3 USUB", 0, "USUB 2.5 - 3 = -0.5 truncates to 0");
	U64("1 $FloatCtr USUB", UINT64_MAX, "USUB 1 - 2.5 = -1.5 truncates to -1, wraps");
	U64("4 9 UMIN", 4, "UMIN");
	U64("$FloatCtr 9 UMIN", 2, "UMIN with a double");
	U64("0x100000000 0x100000000 UMUL", 0, "UMUL wraps modulo 2^64");
	U64("$IntCtr 3 UMUL", 30, "counter reference (uint64)");
	U64("$EuCoresTotalCount", 24, "device variable alone");
	U64("$GpuTimestampFrequency 1000 UDIV", 12500, "device variable in an equation");
	DBL("7 2 FDIV", 3.5, "FDIV");
	DBL("7 0 FDIV", 0, "FDIV by zero gives 0");
	DBL("0 0 FDIV", 0, "FDIV 0/0 gives 0, not NaN");
	DBL("1 2 FADD", 3, "FADD");
	DBL("3 5 FSUB", 18446744073709551614.0, "FSUB of two uint64 wraps as uint64 first (IGT's C)");
	DBL("3 $FloatCtr FSUB", 0.5, "FSUB with a double");
	DBL("$FloatCtr 4 FSUB", -1.5, "FSUB to a negative double");
	DBL("$FloatCtr 2 FMUL", 5, "FMUL");
	DBL("0x100000000 0x100000000 FMUL", 0, "FMUL of two uint64 wraps as uint64 first");
	DBL("2 3 FMAX", 3, "FMAX");
	DBL("$FloatCtr 1 FMAX", 2.5, "FMAX with a double");
	DBL("1.5 2 FMUL", 3, "decimal fraction literal");
	DBL("$IntCtr", 10, "uint64 result converted to float");
	U64("$FloatCtr", 2, "float result converted to uint64 truncates");
	/* availability machinery */
	U64("$SliceMask 0x2 AND", 2, "AND");
	U64("$SliceMask 0x4 AND", 0, "AND false");
	U64("true $QueryMode &&", 0, "true $QueryMode && is false for streams");
	U64("true 1 &&", 1, "&&");
	U64("0 5 ||", 1, "||");
	U64("1 4 OR", 5, "OR");
	U64("$SkuRevisionId 0x02 UGTE", 1, "UGTE");
	U64("$SkuRevisionId 0x05 ULT $SkuRevisionId 0x02 UGTE &&", 1, "ULT && UGTE");
	U64("$SkuRevisionId 3 ULTE", 1, "ULTE");
	U64("$SkuRevisionId 3 UGT", 0, "UGT");
	U64("3 3 EQUALS", 1, "EQUALS");
	U64("0 NOT", 1, "NOT");
	U64("1 4 <<", 16, "<<");
	U64("1 64 <<", 0, "<< by 64 gives 0");
	U64("256 4 >>", 16, ">>");
	U64("$DualSubsliceMask 32 AND", 32, "DualSubsliceMask is the subslice mask");
	/* double to uint64 outside the range, as x86-64 does it */
	U64("0 1 FSUB 1.5 FMUL", 0, "(u64) of 2^64 * 1.5 gives 0");
	U64("0 $FloatCtr FSUB 0 UADD", UINT64_MAX - 1, "(u64) -2.5 wraps to 2^64 - 2");
}

/* ---- 5. errors ------------------------------------------------------------------ */

static void expect_reject(const char *text, const char *want_in_msg, const char *name)
{
	static const char *const names[] = { "GpuTime" };
	struct pk_oa_expr *e = NULL;
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_oa_expr_compile(text, names, 1, &e, &d);
	ok(err == -EINVAL && e == NULL && strstr(d.msg, want_in_msg), "%s rejected: %s", name, d.msg);
	pk_oa_expr_free(e);
}

static void test_malformed(void)
{
	expect_reject("A 0 READ UMUL", "UMUL needs 2 operands, the stack holds 1 at token 4", "stack underflow");
	expect_reject("1 2 3 UADD", "2 values left", "leftover values");
	expect_reject("1 FOO UADD", "unknown token 'FOO' at token 2", "unknown token");
	expect_reject("$NoSuchVar 1 UADD", "unknown variable '$NoSuchVar' at token 1", "unknown $variable");
	expect_reject("", "empty expression", "empty equation");
	expect_reject("A $GpuTime READ", "READ needs a literal counter number", "READ of a non-literal");
	expect_reject("1 0 READ", "READ needs a namespace", "READ without namespace");
	expect_reject("A 1 UADD", "namespace 'A' used as a value", "namespace as a value");
	expect_reject("B", "namespace 'B' without READ", "namespace alone");
	expect_reject("A 64 READ", "past the 64", "READ past the accumulator");
	expect_reject("99999999999999999999", "does not fit in 64 bits", "number overflow");
	expect_reject("READ", "READ needs a namespace and a counter number", "READ alone");
	expect_reject("1 NOT NOT UADD", "UADD needs 2 operands", "unary then binary underflow");
	{
		char deep[2048] = "";

		for (int i = 0; i < 70; i++)
			strcat(deep, "1 ");
		expect_reject(deep, "deeper than 64", "stack deeper than 64");
	}
}

static void test_set_errors(void)
{
	struct pk_oa_counter_info c[3] = {
		{ .name = "X", .symbol_name = "X", .equation = "$Y 1 UADD", .data_type = PK_OA_UINT64 },
		{ .name = "Y", .symbol_name = "Y", .equation = "$Z 1 UADD", .data_type = PK_OA_UINT64 },
		{ .name = "Z", .symbol_name = "Z", .equation = "$X 1 UADD", .data_type = PK_OA_UINT64 },
	};
	struct pk_oa_set_info s = { .name = "Loop", .symbol_name = "Loop", .n_counters = 3, .counters = c };
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_oa_eval_new(&s, NULL, NULL, &ev, &d);
	ok(err == -ELOOP && ev == NULL && strstr(d.msg, "cycle") && strstr(d.msg, "X -> Y -> Z -> X"),
	   "cycle of references rejected: %s", d.msg);
	/* a cycle entered from outside it (X -> Y -> Z -> Y): the chain names the cycle only */
	c[2].equation = "$Y 1 UADD";
	pk_diag_init(&d);
	err = pk_oa_eval_new(&s, NULL, NULL, &ev, &d);
	ok(err == -ELOOP && ev == NULL && strstr(d.msg, ": Y -> Z -> Y") && !strstr(d.msg, "X ->"),
	   "a cycle entered from outside it: only its counters named: %s", d.msg);
	c[2].equation = "$X 1 UADD";

	/* forward references are evaluated in dependency order */
	c[2].equation = "5";
	c[1].data_type = PK_OA_FLOAT;
	c[1].equation = "$Z 2 FDIV";
	c[0].equation = "$Y 4 UMUL";
	pk_diag_init(&d);
	err = pk_oa_eval_new(&s, NULL, NULL, &ev, &d);
	is_int(err, 0, "forward references compile");
	if (!err) {
		struct pk_oa_value v[3];

		pk_oa_eval_run(ev, NULL, v);
		ok(v[2].u == 5 && v[1].f == 2.5 && v[0].u == 10,
		   "dependency order: Z=5, Y=2.5 (float), X=Y*4=10");
		pk_oa_eval_free(ev);
	}

	/* availability and error messages naming set, counter, token */
	c[0].equation = "$Y 4 UMUL";
	c[1].availability = "$SliceMask 2 AND";
	c[2].equation = "1 BOGUS";
	pk_diag_init(&d);
	err = pk_oa_eval_new(&s, NULL, NULL, &ev, &d);
	ok(err == -EINVAL && strstr(d.msg, "metric set 'Loop' counter 'Z' equation") &&
	   strstr(d.msg, "unknown token 'BOGUS' at token 2"), "set error names set, counter and token: %s", d.msg);
	c[2].equation = "5";
	c[2].availability = "$Y 1 AND";
	pk_diag_init(&d);
	err = pk_oa_eval_new(&s, NULL, NULL, &ev, &d);
	ok(err == -EINVAL && strstr(d.msg, "availability") && strstr(d.msg, "unknown variable '$Y'"),
	   "availability may not reference counters: %s", d.msg);
	c[2].availability = NULL;
	{
		struct pk_oa_devvars vars = { .slice_mask = 1 };

		err = pk_oa_eval_new(&s, &vars, NULL, &ev, &d);
		ok(!err && pk_oa_eval_available(ev, 0) && !pk_oa_eval_available(ev, 1) &&
		   pk_oa_eval_n_available(ev) == 2, "availability predicate false drops the counter");
		pk_oa_eval_free(ev);
		vars.slice_mask = 3;
		err = pk_oa_eval_new(&s, &vars, NULL, &ev, &d);
		ok(!err && pk_oa_eval_available(ev, 1) && pk_oa_eval_n_available(ev) == 3,
		   "availability predicate true keeps it");
		pk_oa_eval_free(ev);
	}
}

static void expect_xml_error(const char *xml, const char *want, const char *name)
{
	struct pk_oa_metrics *m = NULL;
	struct pk_diag d;
	int err;

	pk_diag_init(&d);
	err = pk_oa_metrics_load_buf(xml, strlen(xml), "t.xml", &m, &d);
	ok(err == -EBADMSG && m == NULL && strstr(d.msg, want) && strcmp(d.subject, "t.xml") == 0,
	   "%s: '%s': %s", name, d.subject, d.msg);
	pk_oa_metrics_free(m);
}

static void test_xml_errors(void)
{
	struct pk_oa_metrics *m = NULL;
	struct pk_diag d;
	const char *good =
		"<?xml version=\"1.0\"?>\n<metrics>\n"
		"  <set name=\"S\" symbol_name=\"Sym\" chipset=\"X\" hw_config_guid=\"abc\">\n"
		"    <counter symbol_name=\"C\" equation=\"1\" data_type=\"uint64\"/>\n"
		"    <register_config type=\"OA\"><register type=\"OA\" address=\"0x1\" value=\"0x2\"/></register_config>\n"
		"  </set>\n</metrics>\n";

	expect_xml_error("<metrics>\n<set name=\"a\">\n</metrics>", "line 3", "mismatched tag names the line");
	expect_xml_error("", "line", "empty file");
	expect_xml_error("<foo/>", "root element is <foo>", "wrong root");
	expect_xml_error("<metrics>\n<set name=\"S\"/>\n</metrics>", "line 2: <set> without symbol_name",
			 "set without symbol_name");
	expect_xml_error("<metrics><set name=\"S\" symbol_name=\"S\">\n<counter symbol_name=\"C\" data_type=\"uint64\"/>"
			 "</set></metrics>", "line 2: <counter> without equation", "counter without equation");
	expect_xml_error("<metrics><set name=\"S\" symbol_name=\"S\">\n\n<counter symbol_name=\"C\" equation=\"1\" "
			 "data_type=\"int\"/></set></metrics>", "line 3: counter 'C' has data_type 'int'",
			 "bad data_type");
	pk_diag_init(&d);
	ok(pk_oa_metrics_load_buf(good, strlen(good), "good.xml", &m, &d) == 0 && pk_oa_metrics_n_sets(m) == 1,
	   "minimal file loads");
	if (m) {
		const struct pk_oa_set_info *s = pk_oa_metrics_set(m, 0);

		ok(s->n_counters == 1 && s->n_register_configs == 1 && s->line == 3 && s->counters[0].line == 4 &&
		   strcmp(s->counters[0].name, "C") == 0 && s->counters[0].max_equation == NULL &&
		   strcmp(s->file, "good.xml") == 0, "minimal file: counts, lines, defaults");
		ok(pk_oa_metrics_set(m, 1) == NULL, "set index past the end is NULL");
	}
	pk_oa_metrics_free(m);
	{
		const char *ext = "<!DOCTYPE metrics [<!ENTITY x SYSTEM \"http://example.invalid/x\">]>"
				  "<metrics>&x;</metrics>";

		pk_diag_init(&d);
		ok(pk_oa_metrics_load_buf(ext, strlen(ext), "ext.xml", &m, &d) == 0 && pk_oa_metrics_n_sets(m) == 0,
		   "external entity left unexpanded, nothing fetched");
		pk_oa_metrics_free(m);
	}
	pk_diag_init(&d);
	ok(pk_oa_metrics_load("/nonexistent/oa-x.xml", &m, &d) == -ENOENT && m == NULL &&
	   strcmp(d.subject, "/nonexistent/oa-x.xml") == 0, "missing file: -ENOENT naming it");
}

static void test_topology(void)
{
	/* 1 slice of 3 subslices with 8 EUs each, one subslice fused down to 6 */
	static const uint8_t data[] = { 0x1, 0x7, 0xff, 0x3f, 0xff };
	static struct pk_oa_topology t = {
		.max_slices = 1, .max_subslices = 3, .max_eus_per_subslice = 8,
		.subslice_offset = 1, .subslice_stride = 1, .eu_offset = 2, .eu_stride = 1,
	};
	struct pk_oa_device_info di = { .timestamp_frequency = 12500000, .revision = 2,
					.gt_min_frequency = 300000000, .gt_max_frequency = 1000000000 };
	struct pk_oa_devvars v;

	memcpy(t.data, data, sizeof(data));
	t.data_len = sizeof(data);
	pk_oa_topology_derive(&t, 8);
	pk_oa_devvars_init(&v, &t, &di, pk_oa_platform_by_pci_id(0x1616));
	ok(v.eu_cores_total == 22 && v.slice_mask == 1 && v.subslice_mask == 7 && v.eu_slices_total == 1 &&
	   v.eu_subslices_total == 3 && v.eu_threads_count == 7, "EUs 22, slices 1, subslices 0x7");
	ok(v.timestamp_frequency == 12500000 && v.revision == 2 && v.gt_min_freq == 300000000 &&
	   v.gt_max_freq == 1000000000 && v.query_mode == 0, "frequencies and revision from DEVICE_INFO");
	pk_oa_devvars_init(&v, &t, &di, pk_oa_platform_by_pci_id(0x56a0));
	is_int(v.eu_threads_count, 8, "DG2: 8 threads per EU");
	pk_oa_devvars_init(&v, NULL, NULL, NULL);
	ok(v.eu_cores_total == 0 && v.timestamp_frequency == 0 && v.eu_threads_count == 7,
	   "no topology, device or platform: zeros and 7 threads");
	/* a mask past the data counts nothing: the last EU byte is cut off */
	t.data_len = sizeof(data) - 1;
	pk_oa_topology_derive(&t, 8);
	pk_oa_devvars_init(&v, &t, &di, NULL);
	is_int(v.eu_cores_total, 14, "EU mask past the data ignored");
}

/* ---- 6. folded programs ------------------------------------------------------------ */

static void bits_equal(const struct pk_oa_value *a, const struct pk_oa_value *b, size_t *bad)
{
	*bad += a->type != b->type || memcmp(&a->u, &b->u, sizeof(a->u)) != 0;
}

/*
 * Every counter of @s (and its max equation) through pk_oa_eval_new/run/max
 * and through pk_oa_expr_eval of the same equations: how many values differ
 * in type or bits, SIZE_MAX when something does not compile.
 */
static size_t folded_differs(const struct pk_oa_set_info *s, const struct pk_oa_devvars *vars,
			     const struct pk_oa_format_info *fmt, const uint64_t *deltas)
{
	size_t n = s->n_counters, bad = 0;
	const char **names = calloc(n + 1, sizeof(*names));
	struct pk_oa_expr **eq = calloc(n + 1, sizeof(*eq)), **mx = calloc(n + 1, sizeof(*mx));
	struct pk_oa_value *got = calloc(n + 1, sizeof(*got)), *want = calloc(n + 1, sizeof(*want));
	struct pk_oa_env env = { .deltas = deltas, .fmt = fmt, .vars = vars, .counters = want };
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	if (!names || !eq || !mx || !got || !want || pk_oa_eval_new(s, vars, fmt, &ev, &d))
		bad = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		names[i] = s->counters[i].symbol_name;
	for (size_t i = 0; bad != SIZE_MAX && i < n; i++)
		if (pk_oa_expr_compile(s->counters[i].equation, names, n, &eq[i], &d) ||
		    (s->counters[i].max_equation &&
		     pk_oa_expr_compile(s->counters[i].max_equation, names, n, &mx[i], &d)))
			bad = SIZE_MAX;
	if (bad != SIZE_MAX) {
		pk_oa_eval_run(ev, deltas, got);
		/* references resolve once those they name have: as many passes as counters, at most */
		for (size_t pass = 0; pass <= n && pass < 8; pass++)
			for (size_t i = 0; i < n; i++)
				want[i] = pk_oa_expr_eval(eq[i], &env, s->counters[i].data_type);
		for (size_t i = 0; i < n; i++) {
			struct pk_oa_value gm, wm;

			bits_equal(&got[i], &want[i], &bad);
			if (!mx[i])
				continue;
			wm = pk_oa_expr_eval(mx[i], &env, s->counters[i].data_type);
			if (pk_oa_eval_max(ev, i, deltas, got, &gm))
				bad++;
			else
				bits_equal(&gm, &wm, &bad);
		}
	}
	if (bad == SIZE_MAX && d.msg[0])
		diag("%s", d.msg);
	for (size_t i = 0; i < n; i++) {
		pk_oa_expr_free(eq[i]);
		pk_oa_expr_free(mx[i]);
	}
	pk_oa_eval_free(ev);
	free(names);
	free(eq);
	free(mx);
	free(got);
	free(want);
	return bad;
}

/*
 * Every operator on every pair of run-time operands of both types (the
 * typed program's conversions and its operands taken from a literal, a
 * delta or a counter: eval_typed.c): uint64s from deltas, one wrapping,
 * doubles from them (half, negative, infinite, NaN, 0, -0, above 2^64,
 * between 2^63 and 2^64), each result stored as a uint64 and as a double.
 * The number of values that differ from the plain interpreter's, as
 * folded_differs().
 */
struct typed_set {
	struct pk_oa_set_info set;
	struct pk_oa_counter_info *c;
	char (*text)[96], (*name)[16];
};

static void typed_set_free(struct typed_set *t)
{
	free(t->c);
	free(t->text);
	free(t->name);
	*t = (struct typed_set){ 0 };
}

/* The set of every operator on every pair of run-time operands: 0 or -ENOMEM. */
static int typed_set_init(struct typed_set *t)
{
	static const char *const base[][2] = {
		{ "Du", "A 3 READ" },
		{ "Uhi", "$Du 18446744073709551615 UADD" },
		{ "Fh", "$Du 2 UADD 0.5 FMUL" },
		{ "Fneg", "0.0 $Fh FSUB" },
		{ "Finf", "$Fh 1.0 FADD 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL "
			  "10000000000000000000.0 FMUL 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL "
			  "10000000000000000000.0 FMUL 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL "
			  "10000000000000000000.0 FMUL 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL "
			  "10000000000000000000.0 FMUL 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL "
			  "10000000000000000000.0 FMUL 10000000000000000000.0 FMUL 10000000000000000000.0 FMUL" },
		{ "Fnan", "$Finf $Finf FSUB" },
		{ "Fz", "$Fh 0.0 FMUL" },
		{ "Fmz", "$Fneg 0.0 FMUL" },
		{ "F64", "$Fh 0.0 FMUL 10000000000000000000.0 2.0 FMUL FADD" },
		{ "F63", "$Fh 0.0 FMUL 10000000000000000000.0 FADD" },
	};
	static const char *const ops[] = { "UADD", "USUB", "UMUL", "UDIV", "UMIN", "FADD", "FSUB", "FMUL",
					   "FDIV", "FMAX", "AND", "OR", "<<", ">>", "&&", "||", "ULT",
					   "ULTE", "UGT", "UGTE", "EQUALS" };
	size_t nb = sizeof(base) / sizeof(base[0]), n_ops = sizeof(ops) / sizeof(ops[0]);
	/* the base counters, every operator on every pair twice, and NOT of each */
	size_t n = nb + 2 * nb * nb * n_ops + nb, k = 0;
	struct pk_oa_counter_info *c = calloc(n, sizeof(*c));
	char (*text)[96] = calloc(n, sizeof(*text)), (*name)[16] = calloc(n, sizeof(*name));

	*t = (struct typed_set){ .set = { .name = "Typed", .symbol_name = "Typed", .n_counters = n, .counters = c },
				 .c = c, .text = text, .name = name };
	if (!c || !text || !name) {
		typed_set_free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nb; i++, k++) {
		c[k].symbol_name = base[i][0];
		c[k].equation = base[i][1];
		c[k].data_type = base[i][0][0] == 'F' ? PK_OA_FLOAT : PK_OA_UINT64;
	}
	for (size_t o = 0; o < n_ops; o++)
		for (size_t x = 0; x < nb; x++)
			for (size_t y = 0; y < nb; y++)
				for (int as_f = 0; as_f < 2; as_f++, k++) {
					snprintf(name[k], sizeof(name[k]), "T%zu", k);
					snprintf(text[k], sizeof(text[k]), "$%s $%s %s", base[x][0], base[y][0], ops[o]);
					c[k] = (struct pk_oa_counter_info){ .symbol_name = name[k], .equation = text[k],
									.data_type = as_f ? PK_OA_FLOAT : PK_OA_UINT64 };
				}
	for (size_t x = 0; x < nb; x++, k++) {
		snprintf(name[k], sizeof(name[k]), "T%zu", k);
		snprintf(text[k], sizeof(text[k]), "$%s NOT", base[x][0]);
		c[k] = (struct pk_oa_counter_info){ .symbol_name = name[k], .equation = text[k] };
	}
	return 0;
}

static size_t typed_operators_differ(const struct pk_oa_devvars *vars, const struct pk_oa_format_info *fmt,
				     const uint64_t *deltas)
{
	struct typed_set t;
	size_t bad;

	if (typed_set_init(&t))
		return SIZE_MAX;
	bad = folded_differs(&t.set, vars, fmt, deltas);
	typed_set_free(&t);
	return bad;
}

/* Equations that fold every operator on edge values, beside the same on counter values. */
static struct pk_oa_counter_info fold_counters[] = {
	{ .symbol_name = "Big", .equation = "18446744073709551615", .data_type = PK_OA_UINT64 },
	{ .symbol_name = "Half", .equation = "0.5", .data_type = PK_OA_FLOAT },
	{ .symbol_name = "U", .equation = "$GpuMaxFrequency 3 UDIV 7 UMUL 2 USUB 5 UADD 9 UMIN",
	  .max_equation = "$EuCoresTotalCount 0 UDIV", .data_type = PK_OA_UINT64 },
	{ .symbol_name = "F", .equation = "$EuCoresTotalCount 0 FDIV 1.5 FADD 2 FMUL 3 FSUB 0.25 FMAX",
	  .max_equation = "1 3 FDIV", .data_type = PK_OA_FLOAT },
	{ .symbol_name = "Bits", .equation = "$SliceMask 70 << $SubsliceMask 64 >> OR 255 AND 1 << 3 >>",
	  .data_type = PK_OA_UINT64 },
	{ .symbol_name = "Logic", .equation = "$SkuRevisionId 2 ULT $QueryMode NOT && 3 4 UGTE || 5 5 EQUALS 1 1 ULTE UGT UADD",
	  .data_type = PK_OA_UINT64 },
	{ .symbol_name = "Wrap", .equation = "0 1 USUB 2.5 UMUL 9999999999.0 9999999999.0 FMUL UADD 0 1.5 FSUB UMIN",
	  .data_type = PK_OA_UINT64 },
	{ .symbol_name = "Mixed", .equation = "$Big 1 UADD $Half 3 UMUL UADD A 3 READ 2 UMUL UADD 7 $Half FDIV FMUL",
	  .data_type = PK_OA_FLOAT },
	{ .symbol_name = "DoubleToInt", .equation = "10000000000000000000.0 2 UDIV 0 3.5 FSUB 4 UDIV OR 0 0 FDIV 1 UMUL UADD",
	  .data_type = PK_OA_UINT64 },
	{ .symbol_name = "Reads", .equation = "GPU_TIME 0 READ C 7 READ B 0 READ PERFCNT 1 READ UADD UADD UADD A 62 READ UADD",
	  .data_type = PK_OA_UINT64 },
};
#define FOLD_SET { .name = "Fold", .symbol_name = "Fold", \
		   .n_counters = sizeof(fold_counters) / sizeof(fold_counters[0]), .counters = fold_counters }

/* Two devices, and one with every variable 0. */
static const struct pk_oa_devvars test_vars[] = {
	{ .eu_cores_total = 24, .eu_slices_total = 1, .eu_subslices_total = 3, .eu_threads_count = 7,
	  .slice_mask = 1, .subslice_mask = 7, .timestamp_frequency = 12500000,
	  .gt_min_freq = 300000000, .gt_max_freq = 1150000000, .revision = 2 },
	{ .eu_cores_total = 96, .eu_slices_total = 1, .eu_subslices_total = 6, .eu_threads_count = 7,
	  .slice_mask = 1, .subslice_mask = 0x3f, .timestamp_frequency = 19200000,
	  .gt_min_freq = 100000000, .gt_max_freq = 1300000000, .revision = 1, .query_mode = 1 },
	{ 0 },
};
#define N_TEST_VARS (sizeof(test_vars) / sizeof(test_vars[0]))

/* Zero, small, 40-bit-range and random deltas. */
static void test_deltas(uint64_t (*deltas)[PK_OA_MAX_VALUES])
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (size_t k = 0; k < PK_OA_MAX_VALUES; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		deltas[0][k] = 0;
		deltas[1][k] = 1 + k * 37;
		deltas[2][k] = (1ull << 40) - 1 - k * 1000003;
		deltas[3][k] = x;
	}
}

static void test_folded(bool have_files)
{
	const struct pk_oa_devvars *vars = test_vars;
	uint64_t deltas[4][PK_OA_MAX_VALUES];

	test_deltas(deltas);
	if (!have_files)
		ok(1, "# SKIP the four files: no metric files under %s/data/intel-oa", shared_dir());
	for (size_t f = 0; have_files && f < sizeof(files) / sizeof(files[0]); f++) {
		struct pk_oa_metrics *m = load(files[f].file);
		const struct pk_oa_format_info *fmt = pk_oa_format_info(f == 0 ? 5 : 10);
		size_t bad = 0, values = 0;

		for (size_t i = 0; m && i < pk_oa_metrics_n_sets(m); i++) {
			const struct pk_oa_set_info *s = pk_oa_metrics_set(m, i);

			for (size_t v = 0; v < N_TEST_VARS; v++)
				for (size_t k = 0; k < 4; k++) {
					size_t b = folded_differs(s, &vars[v], k == 3 ? NULL : fmt, deltas[k]);

					bad = b == SIZE_MAX || bad == SIZE_MAX ? SIZE_MAX : bad + b;
					values += s->n_counters;
				}
		}
		ok(m && bad == 0, "%s: folded programs give the plain interpreter's %zu values bit for bit (%zu differ)",
		   files[f].file, values, bad);
		pk_oa_metrics_free(m);
	}
	{
		/* every operator folded on edge values, beside the same on counter values */
		struct pk_oa_set_info s = FOLD_SET;
		size_t bad = 0;

		for (size_t v = 0; v < N_TEST_VARS; v++)
			for (size_t k = 0; k < 4; k++) {
				size_t b = folded_differs(&s, &vars[v], pk_oa_format_info(k & 1 ? 5 : 10), deltas[k]);

				bad = b == SIZE_MAX || bad == SIZE_MAX ? SIZE_MAX : bad + b;
			}
		is_int(bad, 0, "every operator folded on edge values gives the plain interpreter's values");
	}
	{
		size_t bad = 0;

		/* no device variable in them: one device */
		for (size_t k = 0; k < 4; k++) {
			size_t b = typed_operators_differ(&vars[0], pk_oa_format_info(10), deltas[k]);

			bad = b == SIZE_MAX || bad == SIZE_MAX ? SIZE_MAX : bad + b;
		}
		is_int(bad, 0, "every operator on run-time uint64s and doubles gives the plain interpreter's values");
	}
}

/* ---- 7. batches ------------------------------------------------------------------- */

/*
 * Every counter of @s through pk_oa_eval_run_batch() on PK_OA_EVAL_BATCH
 * different delta arrays (@deltas's four, then each of them plus a step
 * that grows with the array's place) and through pk_oa_eval_run() on each
 * array: how many values differ in type or bits, or sit in another array's
 * place; SIZE_MAX when the set does not compile.
 */
static size_t batch_differs(const struct pk_oa_set_info *s, const struct pk_oa_devvars *vars,
			    const struct pk_oa_format_info *fmt, const uint64_t (*deltas)[PK_OA_MAX_VALUES])
{
	static uint64_t rows[PK_OA_EVAL_BATCH][PK_OA_MAX_VALUES];
	size_t n = s->n_counters, bad = 0;
	struct pk_oa_value *one = calloc(n + 1, sizeof(*one));
	struct pk_oa_value *all = calloc(n * PK_OA_EVAL_BATCH + 1, sizeof(*all));
	struct pk_oa_eval *ev = NULL;
	struct pk_diag d;

	pk_diag_init(&d);
	if (!one || !all || pk_oa_eval_new(s, vars, fmt, &ev, &d)) {
		diag("%s", d.msg);
		bad = SIZE_MAX;
		goto out;
	}
	for (size_t j = 0; j < PK_OA_EVAL_BATCH; j++)
		for (size_t k = 0; k < PK_OA_MAX_VALUES; k++)
			rows[j][k] = deltas[j % 4][k] + (j / 4) * (k + 1) * 0x10001;
	pk_oa_eval_run_batch(ev, (const uint64_t (*)[PK_OA_MAX_VALUES])rows, all);
	for (size_t j = 0; j < PK_OA_EVAL_BATCH; j++) {
		pk_oa_eval_run(ev, rows[j], one);
		for (size_t i = 0; i < n; i++)
			bits_equal(&all[i * PK_OA_EVAL_BATCH + j], &one[i], &bad);
	}
out:
	pk_oa_eval_free(ev);
	free(one);
	free(all);
	return bad;
}

static void add_bad(size_t *bad, size_t b)
{
	*bad = b == SIZE_MAX || *bad == SIZE_MAX ? SIZE_MAX : *bad + b;
}

/*
 * pk_oa_eval_run_batch() gives pk_oa_eval_run()'s values bit for bit, each
 * in its array's place: every set of the four files, the folding set and
 * every operator on run-time operands, on each device and format.
 */
static void test_batch(bool have_files)
{
	uint64_t deltas[4][PK_OA_MAX_VALUES];
	struct pk_oa_set_info fold = FOLD_SET;
	struct typed_set typed;
	size_t bad = 0, values = 0;

	test_deltas(deltas);
	if (!have_files)
		ok(1, "# SKIP batches of the four files: no metric files under %s/data/intel-oa", shared_dir());
	for (size_t f = 0; have_files && f < sizeof(files) / sizeof(files[0]); f++) {
		struct pk_oa_metrics *m = load(files[f].file);

		for (size_t i = 0; m && i < pk_oa_metrics_n_sets(m); i++) {
			const struct pk_oa_set_info *s = pk_oa_metrics_set(m, i);

			for (size_t v = 0; v < N_TEST_VARS; v++)
				add_bad(&bad, batch_differs(s, &test_vars[v], pk_oa_format_info(f == 0 ? 5 : 10),
							    (const uint64_t (*)[PK_OA_MAX_VALUES])deltas));
			values += N_TEST_VARS * s->n_counters * PK_OA_EVAL_BATCH;
		}
		ok(m && bad == 0, "%s: a batch of %d delta arrays gives each array's values bit for bit (%zu values, %zu differ)",
		   files[f].file, PK_OA_EVAL_BATCH, values, bad);
		pk_oa_metrics_free(m);
		bad = values = 0;
	}
	for (size_t v = 0; v < N_TEST_VARS; v++)
		for (unsigned fmt = 5; fmt <= 10; fmt += 5)
			add_bad(&bad, batch_differs(&fold, &test_vars[v], pk_oa_format_info(fmt),
						    (const uint64_t (*)[PK_OA_MAX_VALUES])deltas));
	is_int(bad, 0, "the folding set in batches gives each array's values");
	bad = typed_set_init(&typed) ? SIZE_MAX :
	      batch_differs(&typed.set, &test_vars[0], pk_oa_format_info(10),
			    (const uint64_t (*)[PK_OA_MAX_VALUES])deltas);
	typed_set_free(&typed);
	is_int(bad, 0, "every operator on run-time operands in batches gives each array's values");
}

int main(void)
{
	bool have_files = have_metric_files();

	if (have_files) {
		test_files();
		test_bdw_lookup();
		test_worked_example();
		test_oracle("bdw_renderbasic", "oa-bdw.xml", 8);
		test_oracle("bdw_testoa", "oa-bdw.xml", 8);
		test_oracle("skl_renderbasic", "oa-sklgt2.xml", 9);
		test_oracle("tgl_renderbasic", "oa-tglgt2.xml", 12);
		test_oracle("hsw_renderbasic", "oa-hsw.xml", 7);
	} else {
		ok(1, "# SKIP sections 1 to 3: no metric files under %s/data/intel-oa", shared_dir());
	}
	test_operators();
	test_malformed();
	test_set_errors();
	test_xml_errors();
	test_topology();
	test_folded(have_files);
	test_batch(have_files);
	return done_testing();
}
