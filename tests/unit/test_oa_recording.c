/*
 * Tests of the IGT recording reader, the timelines and the writer
 * (lib/oa/recording_*.c, lib/oa/timeline.c) against IGT's own decoding:
 *
 *  1. every regular recording in $PK_SHARED/data/i915-perf (../shared when
 *     unset): the header lines i915-perf-reader printed (device, reports,
 *     context switches, correlation points and ranges, OA timestamp ranges),
 *     each timeline's "Time: CPU=... GPU=..." and hw_id line, and the raw
 *     counters GpuTime (GPU_TIME * 1e9 / frequency) and GpuCoreClocks
 *     (GPU_CLOCK, C2 on Haswell) for the timeline and for every per-report
 *     delta (-r), parsed from the saved *.reader-output.txt;
 *  2. every edge_*.i915perf: a clear error or the documented result;
 *  3. the writer: each recording rewritten by perfkit reads back to the same
 *     reports, and when i915-perf-reader is installed it prints for the
 *     rewritten file exactly what it printed for the original;
 *  4. CPU times from correlation points out of order and 2^64 apart (found
 *     by fuzzing: the 128-bit product overflowed): near the exact value,
 *     and exact where 128 bits suffice;
 *  5. pk_oa_recording_accumulate over reports in runs of several strides,
 *     against pk_oa_accumulate pair by pair.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"

static char DIR_[1024];

static char *slurp(const char *path, size_t *len)
{
	struct pk_buf b;

	pk_buf_init(&b);
	if (pk_file_read_all(path, &b, 1 << 24) != 0) {
		pk_buf_release(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	if (!b.data)
		return calloc(1, 1);
	return b.data;
}

/* The value of the counter @name in the block of lines starting at @p (up to the next block). */
static int block_counter(const char *p, const char *name, uint64_t *v)
{
	char key[128];
	size_t kl = (size_t)snprintf(key, sizeof(key), "   %s: ", name);

	while (p && *p) {
		const char *nl = strchr(p, '\n');

		if (strncmp(p, "   ", 3) != 0 && p[0] != 0)
			return -1;
		if (strncmp(p, key, kl) == 0) {
			*v = strtoull(p + kl, NULL, 10);
			return 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	return -1;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

static uint64_t gpu_time_ns(const struct pk_oa_recording *rec, const uint64_t *d)
{
	const struct pk_oa_decoder *dec = pk_oa_recording_decoder(rec);

	return d[dec->fmt->gpu_time] * 1000000000ull / pk_oa_recording_timestamp_frequency(rec);
}

static uint64_t core_clocks(const struct pk_oa_recording *rec, const uint64_t *d)
{
	const struct pk_oa_format_info *f = pk_oa_recording_decoder(rec)->fmt;

	return f->gpu_clock >= 0 ? d[f->gpu_clock] : d[f->c + 2];
}

/* Compare one regular recording with the reader's saved output. */
static void check_regular(const char *base, bool full)
{
	char path[2048], want[256], got[256];
	struct pk_oa_recording *rec;
	struct pk_oa_timeline tl;
	struct pk_diag d;
	const char *p, *t;
	char *txt;
	size_t seg = 0;
	int err;

	pk_diag_init(&d);
	snprintf(path, sizeof(path), "%s/%s.i915perf", DIR_, base);
	err = pk_oa_recording_read_file(path, &rec, &d);
	is_int(err, 0, "%s: reads (%s)", base, d.msg);
	if (err)
		return;
	snprintf(path, sizeof(path), "%s/%s.reader-output.txt", DIR_, base);
	txt = slurp(path, NULL);
	ok(txt != NULL, "%s: reader output present", base);
	if (!txt) {
		pk_oa_recording_free(rec);
		return;
	}
	is_int(pk_oa_timeline_build(rec, &tl, &d), 0, "%s: timeline builds", base);

	snprintf(got, sizeof(got), "Recorded on device=0x%x(%s) graphics_ver=%d",
		 pk_oa_recording_device(rec)->device_id, pk_oa_recording_platform(rec)->name,
		 pk_oa_recording_graphics_ver(rec));
	snprintf(want, sizeof(want), "%.*s", (int)strcspn(txt, "\n"), txt);
	is_str(got, want, "%s: device line", base);

#define HDR(fmt, ...) do { \
		snprintf(got, sizeof(got), fmt, __VA_ARGS__); \
		ok(strstr(txt, got) != NULL, "%s: header %.*s", base, (int)strlen(got) - 2, got + 1); \
	} while (0)
	HDR("\nReports: %zu\n", tl.n_reports);
	HDR("\nContext switches: %zu\n", tl.n_segments);
	HDR("\nTimestamp correlation points: %zu\n", tl.n_correlations);
	HDR("\nTimestamp correlation CPU range:       0x%016" PRIx64 "-0x%016" PRIx64 "\n",
	    tl.corr_cpu_first, tl.corr_cpu_last);
	HDR("\nTimestamp correlation GPU range (64b): 0x%016" PRIx64 "-0x%016" PRIx64 "\n",
	    tl.corr_gpu_first, tl.corr_gpu_last);
	HDR("\nTimestamp correlation GPU range (32b): 0x%016" PRIx64 "-0x%016" PRIx64 "\n",
	    tl.corr_gpu_first & 0xffffffffu, tl.corr_gpu_last & 0xffffffffu);
	HDR("\nOA data timestamp range:               0x%016" PRIx64 "-0x%016" PRIx64 "\n",
	    (uint64_t)tl.ts_first, (uint64_t)tl.ts_last);
	HDR("\nOA raw data timestamp range:           0x%016" PRIx64 "-0x%016" PRIx64 "\n",
	    (uint64_t)tl.raw_ts_first, (uint64_t)tl.raw_ts_last);

	for (p = txt; (t = strstr(p, "\nTime: ")) != NULL; p = t + 1, seg++) {
		const struct pk_oa_segment *s = seg < tl.n_segments ? &tl.segments[seg] : NULL;
		const char *l = t + 1, *hw = next_line(l), *body = next_line(hw);
		uint64_t v, deltas[PK_OA_MAX_VALUES] = { 0 };
		size_t k = 0;

		if (!ok(s != NULL && pk_oa_timeline_deltas(&tl, rec, seg, deltas) == 0,
			"%s: timeline %zu exists, with its counters", base, seg))
			break;
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(l, "\n"), l);
		snprintf(got, sizeof(got), "Time: CPU=0x%016" PRIx64 "-0x%016" PRIx64
			 " GPU=0x%016" PRIx64 "-0x%016" PRIx64, s->cpu_ns_start, s->cpu_ns_end,
			 (uint64_t)s->gpu_ts_start, (uint64_t)s->gpu_ts_end);
		is_str(got, want, "%s: timeline %zu time line", base, seg);
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(hw, "\n"), hw);
		snprintf(got, sizeof(got), "hw_id=0x%x %s", s->ctx_id,
			 s->ctx_id == PK_OA_CTX_INVALID ? "(idle)" : "");
		is_str(got, want, "%s: timeline %zu hw_id", base, seg);
		if (block_counter(body, "GpuTime", &v) == 0)
			is_int(gpu_time_ns(rec, deltas), v, "%s: timeline %zu GpuTime", base, seg);
		else
			ok(0, "%s: timeline %zu has GpuTime", base, seg);
		if (!full)
			continue;
		if (block_counter(body, "GpuCoreClocks", &v) == 0)
			is_int(core_clocks(rec, deltas), v, "%s: timeline %zu GpuCoreClocks", base, seg);
		else
			ok(0, "%s: timeline %zu has GpuCoreClocks", base, seg);

		/* -r: one block per consecutive pair in [first, end] */
		for (const char *r = body; *r && strncmp(r, "Time: ", 6) != 0; r = next_line(r)) {
			char reason[64];
			unsigned idx;
			uint64_t dl[PK_OA_MAX_VALUES] = { 0 };
			struct pk_oa_report h;
			const uint8_t *r0, *r1;

			if (sscanf(r, " report%u = %63[^\n]", &idx, reason) != 2 || r[0] != ' ' || r[1] != 'r')
				continue;
			if (!ok(idx == k && s->first + k + 1 <= s->end, "%s: timeline %zu report%u in range",
				base, seg, idx))
				break;
			r0 = pk_oa_recording_report(rec, s->first + k);
			r1 = pk_oa_recording_report(rec, s->first + k + 1);
			pk_oa_accumulate(pk_oa_recording_decoder(rec), r0, r1, dl);
			pk_oa_report_header(pk_oa_recording_decoder(rec), r1, &h);
			is_str(pk_oa_reason_name(h.reason), reason, "%s: timeline %zu report%u reason",
			       base, seg, idx);
			if (block_counter(next_line(r), "GpuTime", &v) == 0)
				is_int(gpu_time_ns(rec, dl), v, "%s: timeline %zu report%u GpuTime",
				       base, seg, idx);
			if (block_counter(next_line(r), "GpuCoreClocks", &v) == 0)
				is_int(core_clocks(rec, dl), v, "%s: timeline %zu report%u GpuCoreClocks",
				       base, seg, idx);
			k++;
		}
		is_int(k, s->end - s->first, "%s: timeline %zu per-report deltas", base, seg);
	}
	is_int(seg, tl.n_segments, "%s: every timeline printed", base);
	pk_oa_timeline_release(&tl);
	pk_oa_recording_free(rec);
	free(txt);
}

/* Run the reader on @path with @args; its stdout+stderr into a malloc'd string. */
static char *run_reader(const char *args, const char *path)
{
	char cmd[4096], *out;
	FILE *f;
	size_t n = 0, cap = 1 << 16;
	size_t r;

	snprintf(cmd, sizeof(cmd), "cd '%s' && i915-perf-reader %s '%s' 2>&1", DIR_, args, path);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	out = malloc(cap);
	while (out && (r = fread(out + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n < 2) {
			char *q = realloc(out, cap *= 2);

			if (!q) {
				free(out);
				out = NULL;
			}
			out = q;
		}
	}
	pclose(f);
	if (out)
		out[n] = 0;
	return out;
}

static bool have_reader(void)
{
	return system("command -v i915-perf-reader >/dev/null 2>&1") == 0;
}

/* Rewrite @base with perfkit's writer; compare reports, then the reader's output. */
static void check_rewrite(const char *base, const char *args, bool reader)
{
	char path[2048], tmp[] = "/tmp/pk-oa-XXXXXX.i915perf";
	struct pk_oa_recording *rec, *back;
	struct pk_diag d;
	struct pk_buf b;
	int fd, err;

	pk_diag_init(&d);
	pk_buf_init(&b);
	snprintf(path, sizeof(path), "%s/%s.i915perf", DIR_, base);
	if (pk_oa_recording_read_file(path, &rec, &d) != 0) {
		ok(0, "%s: rewrite: reads", base);
		return;
	}
	is_int(pk_oa_recording_write(rec, &b), 0, "%s: rewrite: writes", base);
	err = pk_oa_recording_read_mem(b.data, b.len, "rewritten", &back, &d);
	is_int(err, 0, "%s: rewrite: reads back (%s)", base, d.msg);
	if (!err) {
		size_t n1, n2;

		pk_oa_recording_correlations(rec, &n1);
		pk_oa_recording_correlations(back, &n2);
		bool same = pk_oa_recording_n_reports(back) == pk_oa_recording_n_reports(rec);

		for (size_t i = 0; same && i < pk_oa_recording_n_reports(rec); i++)
			same = memcmp(pk_oa_recording_report(back, i), pk_oa_recording_report(rec, i),
				      pk_oa_recording_decoder(rec)->fmt->report_size) == 0;
		ok(same && n1 == n2 &&
		   pk_oa_recording_reports_lost(back) == pk_oa_recording_reports_lost(rec) &&
		   pk_oa_recording_buffers_lost(back) == pk_oa_recording_buffers_lost(rec) &&
		   memcmp(pk_oa_recording_device(back), pk_oa_recording_device(rec),
			  sizeof(struct pk_oa_device_info)) == 0,
		   "%s: rewrite: same device, reports, correlations and losses", base);
		pk_oa_recording_free(back);
	}
	if (reader) {
		fd = mkstemps(tmp, 9);
		ok(fd >= 0, "%s: temporary file", base);
		if (fd >= 0 && write(fd, b.data, b.len) == (ssize_t)b.len) {
			char *a = run_reader(args, path), *w = run_reader(args, tmp);

			ok(a && w && strcmp(a, w) == 0, "%s: i915-perf-reader %s prints the same for perfkit's copy",
			   base, args);
			if (a && w && strcmp(a, w))
				diag("original:\n%s\nrewritten:\n%s", a, w);
			free(a);
			free(w);
		}
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	pk_buf_release(&b);
	pk_oa_recording_free(rec);
}

static struct pk_oa_recording *read_edge(const char *name, int *err, struct pk_diag *d)
{
	char path[2048];
	struct pk_oa_recording *rec = NULL;

	pk_diag_init(d);
	snprintf(path, sizeof(path), "%s/%s.i915perf", DIR_, name);
	*err = pk_oa_recording_read_file(path, &rec, d);
	return rec;
}

static void check_edges(void)
{
	struct pk_oa_recording *rec;
	struct pk_oa_timeline tl;
	struct pk_diag d;
	int err;

	rec = read_edge("edge_badversion", &err, &d);
	is_int(err, -EPROTO, "edge_badversion: refused");
	is_str(d.msg, "unsupported recording version 2 (expected 1)", "edge_badversion: message");
	is_int(d.offset, 0, "edge_badversion: offset of the VERSION record");

	rec = read_edge("edge_notopo", &err, &d);
	is_int(err, -ENODATA, "edge_notopo: refused");
	is_str(d.msg, "invalid file, missing topology info", "edge_notopo: message");

	/* documented: one point, CPU time from the timestamp frequency (IGT asserts) */
	rec = read_edge("edge_onecorr", &err, &d);
	is_int(err, 0, "edge_onecorr: reads");
	if (rec) {
		size_t n;
		const struct pk_oa_correlation *c = pk_oa_recording_correlations(rec, &n);

		is_int(n, 1, "edge_onecorr: one correlation point");
		is_int(pk_oa_timeline_build(rec, &tl, &d), 0, "edge_onecorr: timeline builds");
		ok(tl.cpu_valid && tl.n_segments >= 1, "edge_onecorr: segments with CPU times");
		if (tl.n_segments) {
			uint64_t ticks = tl.segments[0].gpu_ts_start - (c[0].gpu_ts & 0xffffffffu);

			is_int(tl.segments[0].cpu_ns_start,
			       c[0].cpu_ns + ticks * 1000000000ull / pk_oa_recording_timestamp_frequency(rec),
			       "edge_onecorr: CPU time by the timestamp frequency");
		}
		pk_oa_timeline_release(&tl);
		pk_oa_recording_free(rec);
	}

	/* documented: extrapolated from the last two points (IGT asserts) */
	rec = read_edge("edge_ts_past_last_corr", &err, &d);
	is_int(err, 0, "edge_ts_past_last_corr: reads");
	if (rec) {
		size_t n;
		const struct pk_oa_correlation *c = pk_oa_recording_correlations(rec, &n);

		is_int(pk_oa_timeline_build(rec, &tl, &d), 0, "edge_ts_past_last_corr: timeline builds");
		if (tl.n_segments && n >= 2) {
			const struct pk_oa_segment *s = &tl.segments[tl.n_segments - 1];
			uint64_t g = (c[n - 1].gpu_ts & ~0xffffffffull) | s->gpu_ts_end;
			uint64_t want = c[n - 2].cpu_ns + (g - c[n - 2].gpu_ts) *
					(c[n - 1].cpu_ns - c[n - 2].cpu_ns) / (c[n - 1].gpu_ts - c[n - 2].gpu_ts);

			ok(g > c[n - 1].gpu_ts, "edge_ts_past_last_corr: last report after the last point");
			is_int(s->cpu_ns_end, want, "edge_ts_past_last_corr: extrapolated CPU time");
			ok(s->cpu_ns_end > c[n - 1].cpu_ns, "edge_ts_past_last_corr: after the last CPU point");
		} else {
			ok(0, "edge_ts_past_last_corr: has segments");
		}
		pk_oa_timeline_release(&tl);
		pk_oa_recording_free(rec);
	}

	/* the metric set is not this module's business: the recording itself reads */
	rec = read_edge("edge_unknownmetric", &err, &d);
	is_int(err, 0, "edge_unknownmetric: reads (the metric set is resolved by oa_metrics)");
	if (rec) {
		is_str(pk_oa_recording_device(rec)->metric_set_name, "NoSuchSet",
		       "edge_unknownmetric: metric set name kept");
		pk_oa_recording_free(rec);
	}

	/* documented: no reports, no segments (IGT crashes) */
	rec = read_edge("edge_zero_reports", &err, &d);
	is_int(err, 0, "edge_zero_reports: reads");
	if (rec) {
		is_int(pk_oa_recording_n_reports(rec), 0, "edge_zero_reports: no reports");
		is_int(pk_oa_timeline_build(rec, &tl, &d), 0, "edge_zero_reports: timeline builds");
		is_int(tl.n_segments, 0, "edge_zero_reports: zero segments");
		is_int(tl.n_correlations, 2, "edge_zero_reports: two correlation points");
		pk_oa_timeline_release(&tl);
		pk_oa_recording_free(rec);
	}

	rec = read_edge("edge_lost", &err, &d);
	is_int(err, 0, "edge_lost: reads");
	if (rec) {
		is_int(pk_oa_recording_reports_lost(rec), 1, "edge_lost: one report lost");
		is_int(pk_oa_recording_buffers_lost(rec), 1, "edge_lost: one buffer lost");
		pk_oa_recording_free(rec);
	}
	/* edge_lost, edge_ctx_invalid and edge_noversion_reordered also against the reader's output */
	check_regular("edge_lost", false);
	check_regular("edge_ctx_invalid", false);
	check_regular("edge_noversion_reordered", false);
	rec = read_edge("edge_noversion_reordered", &err, &d);
	if (rec) {
		is_int(pk_oa_recording_version(rec), 0, "edge_noversion_reordered: no VERSION");
		pk_oa_recording_free(rec);
	}
}

/* Corrupt variants of one good recording: each a clean error with an offset inside it. */
static void check_corrupt(void)
{
	char path[2048];
	size_t len;
	uint8_t *buf, *c;
	struct pk_oa_recording *rec;
	struct pk_diag d;
	uint16_t sz;
	int err;

	snprintf(path, sizeof(path), "%s/bdw_renderbasic.i915perf", DIR_);
	buf = (uint8_t *)slurp(path, &len);
	if (!buf || len < 1000) {
		ok(0, "bdw recording loads for corruption tests");
		free(buf);
		return;
	}
	c = malloc(len);
	/* records: VERSION@0 (16), DEVICE_INFO@16 (344), TOPOLOGY@360 */
	for (size_t cut = 1; cut < len; cut += 37) {
		pk_diag_init(&d);
		err = pk_oa_recording_read_mem(buf, cut, "cut", &rec, &d);
		ok(err < 0 && rec == NULL && (err == -ENODATA || d.offset < cut),
		   "truncated at %zu: error %d at offset %" PRIu64, cut, err, d.offset);
	}
	/* version 0, as version 2 (edge_badversion): refused, as i915-perf-reader refuses it */
	memcpy(c, buf, len);
	memset(c + 8, 0, 4);
	pk_diag_init(&d);
	is_int(pk_oa_recording_read_mem(c, len, "v0", &rec, &d), -EPROTO, "version 0: refused");
	is_str(d.msg, "unsupported recording version 0 (expected 1)", "version 0: message");
	memcpy(c, buf, len);
	sz = 0;
	memcpy(c + 16 + 6, &sz, 2);
	pk_diag_init(&d);
	is_int(pk_oa_recording_read_mem(c, len, "zero", &rec, &d), -EBADMSG, "zero size: corrupt");
	is_int(d.offset, 16, "zero size: offset of the record");
	memcpy(c, buf, len);
	sz = 0xffff;
	memcpy(c + 16 + 6, &sz, 2);
	pk_diag_init(&d);
	is_int(pk_oa_recording_read_mem(c, len, "huge", &rec, &d), -EBADMSG, "huge size: corrupt");
	is_int(d.offset, 16, "huge size: offset of the record");
	memcpy(c, buf, len);
	sz = 340;
	memcpy(c + 16 + 6, &sz, 2);
	pk_diag_init(&d);
	is_int(pk_oa_recording_read_mem(c, len, "short", &rec, &d), -EBADMSG,
	       "device info of 340 bytes: corrupt (%s)", d.msg);
	memcpy(c, buf, len);
	{
		uint32_t fmt = 99, id = 0xdead;

		memcpy(c + 16 + 8 + 32, &fmt, 4);
		pk_diag_init(&d);
		is_int(pk_oa_recording_read_mem(c, len, "fmt", &rec, &d), -ENOTSUP, "unknown format refused");
		is_str(d.msg, "unsupported oa format 99", "unknown format: message");
		memcpy(c, buf, len);
		memcpy(c + 16 + 8 + 8, &id, 4);
		pk_diag_init(&d);
		is_int(pk_oa_recording_read_mem(c, len, "id", &rec, &d), -ENOTSUP, "unknown PCI id refused");
		is_str(d.msg, "recording made on an unsupported device (0xdead)", "unknown PCI id: message");
	}
	pk_diag_init(&d);
	is_int(pk_oa_recording_read_mem(NULL, 0, "empty", &rec, &d), -ENODATA, "empty input: missing info");
	{
		/* a TOPOLOGY record (at 360, of 32 bytes) whose masks are 8 bytes more than perfkit takes */
		size_t big = 8 + 16 + PK_OA_TOPOLOGY_MAX_DATA + 8, n = 360 + big + (len - 392);
		uint8_t *t = calloc(1, n);
		uint32_t type = PK_OA_RECORD_TOPOLOGY;
		uint16_t size = (uint16_t)big;

		memcpy(t, buf, 360);
		memcpy(t + 360, &type, 4);
		memcpy(t + 366, &size, 2);
		memcpy(t + 368, buf + 368, 16);
		memcpy(t + 360 + big, buf + 392, len - 392);
		pk_diag_init(&d);
		is_int(pk_oa_recording_read_mem(t, n, "topo", &rec, &d), -EBADMSG, "a topology too large: corrupt");
		is_int(d.offset, 360, "a topology too large: offset of the record");
		is_str(d.msg, "topology data too large (4104 bytes, at most 4096)", "a topology too large: message");
		free(t);
	}
	free(c);
	free(buf);
}

/*
 * The header of a Broadwell GT2 RenderBasic recording into @b: VERSION,
 * DEVICE_INFO (saying timestamp frequency @hz), TOPOLOGY.
 */
static int write_bdw_header(struct pk_buf *b, uint64_t hz)
{
	struct pk_oa_device_info di = { .timestamp_frequency = hz, .device_id = 0x1616,
					.oa_format = PK_OA_FORMAT_A32u40_A4u32_B8_C8 };
	struct pk_oa_topology topo = { .max_slices = 1, .max_subslices = 3, .max_eus_per_subslice = 8,
				       .subslice_offset = 1, .subslice_stride = 1, .eu_offset = 2,
				       .eu_stride = 1, .data_len = 5, .data = { 1, 7, 0xff, 0xff, 0xff } };

	snprintf(di.metric_set_name, sizeof(di.metric_set_name), "RenderBasic");
	return pk_oa_write_version(b, 1) ?: pk_oa_write_device_info(b, &di) ?: pk_oa_write_topology(b, &topo);
}

/*
 * A Broadwell recording whose DEVICE_INFO says timestamp frequency @hz, with
 * correlation points @corr (cpu, gpu pairs) and one report at @ts.
 */
static struct pk_oa_recording *bdw_recording(uint64_t hz, const uint64_t (*corr)[2], size_t n, uint32_t ts)
{
	struct pk_oa_recording *rec = NULL;
	uint8_t report[256] = { 0 };
	struct pk_buf b;
	struct pk_diag d;
	int err;

	memcpy(report + 4, &ts, 4);
	pk_buf_init(&b);
	err = write_bdw_header(&b, hz);
	for (size_t i = 0; i < n && !err; i++)
		err = pk_oa_write_correlation(&b, corr[i][0], corr[i][1]);
	if (!err)
		err = pk_oa_write_sample(&b, report, sizeof(report));
	pk_diag_init(&d);
	if (!err && (err = pk_oa_recording_read_mem(b.data, b.len, "points", &rec, &d)))
		diag("%s", d.msg);
	pk_buf_release(&b);
	return rec;
}

/* The same at 12.5 MHz, Broadwell's frequency. */
static struct pk_oa_recording *with_points(const uint64_t (*corr)[2], size_t n, uint32_t ts)
{
	return bdw_recording(12500000, corr, n, ts);
}

static void check_far_points(void)
{
	/* out of order: the report (at 2^31) lies before the first point, 2^64 - 2^31 - 1 ticks off */
	static const uint64_t far[2][2] = { { 0, UINT64_MAX }, { UINT64_MAX, 0 } };
	/* in order: the same line shifted, where 128 bits suffice */
	static const uint64_t near[2][2] = { { 1000, 1ull << 32 }, { 3000, (1ull << 32) + 1000 } };
	struct pk_oa_recording *rec = with_points(far, 2, 0x80000000u);
	uint64_t want = UINT64_MAX - 0x80000000u, got;

	ok(rec != NULL, "far points: the recording reads");
	if (rec) {
		got = pk_oa_recording_cpu_time(rec, 0x80000000u);
		ok(got >= want - 4 && got <= want + 4, "far points: %#" PRIx64 " is %#" PRIx64 " to 4 ns",
		   got, want);
		is_int(pk_oa_recording_cpu_time(rec, 0xffffffffu), 0, "far points: at the first point, its CPU time");
		pk_oa_recording_free(rec);
	}
	rec = with_points(near, 2, 0x1f4u);
	ok(rec != NULL, "near points: the recording reads");
	if (rec) {
		is_int(pk_oa_recording_cpu_time(rec, 0x1f4u), 2000, "near points: interpolated exactly");
		is_int(pk_oa_recording_cpu_time(rec, 0x7d0u), 5000, "near points: extrapolated exactly");
		pk_oa_recording_free(rec);
	}
}

/*
 * Report timestamps (32 bits) outside the correlated range, across a 2^32
 * boundary from it: before the first point, in the window below the
 * points', and after the last, in the window above; and two points at one
 * GPU time, whose line has no slope: the timestamp frequency gives it, from
 * the first of them. One tick a nanosecond in the first two, so the values
 * are exact.
 */
static void check_points_across_wraps(void)
{
	static const uint64_t above[2][2] = { { 10000000, 0x100000100ull }, { 10000256, 0x100000200ull } };
	static const uint64_t below[2][2] = { { 10000000, 0xfffffe00ull }, { 10000256, 0xffffff00ull } };
	static const uint64_t same[2][2] = { { 10000000, 0x100000000ull }, { 20000000, 0x100000000ull } };
	struct pk_oa_recording *rec = with_points(above, 2, 0xffffff00u);

	if (ok(rec != NULL, "points just above 2^32: the recording reads")) {
		/* 0xffffff00 is 0xffffff00, 512 ticks before the first point, not 0x1ffffff00 */
		is_int(pk_oa_recording_cpu_time(rec, 0xffffff00u), 10000000 - 512,
		       "a report in the window below the points: extrapolated back from the first");
		pk_oa_recording_free(rec);
	}
	rec = with_points(below, 2, 0x100u);
	if (ok(rec != NULL, "points just below 2^32: the recording reads")) {
		/* 0x100 is 0x100000100, 512 ticks after the last point, not 0x100 */
		is_int(pk_oa_recording_cpu_time(rec, 0x100u), 10000256 + 512,
		       "a report in the window above the points: extrapolated on from the last");
		pk_oa_recording_free(rec);
	}
	rec = with_points(same, 2, 0x1000u);
	if (ok(rec != NULL, "two points at one GPU time: the recording reads")) {
		/* 0x1000 ticks at 12.5 MHz are 327,680 ns (i915-perf-reader asserts here) */
		is_int(pk_oa_recording_cpu_time(rec, 0x1000u), 10000000 + 327680,
		       "two points at one GPU time: from the first of them at the timestamp frequency");
		pk_oa_recording_free(rec);
	}
}

/*
 * A DEVICE_INFO timestamp frequency of 0: the platform's (Broadwell: 12.5
 * MHz) for CPU times and for $GpuTimestampFrequency.
 */
static void check_frequency_of_zero(void)
{
	struct pk_oa_recording *rec = bdw_recording(0, NULL, 0, 0);
	struct pk_oa_devvars v;

	if (!ok(rec != NULL, "frequency 0: reads"))
		return;
	is_int(pk_oa_recording_timestamp_frequency(rec), 12500000, "frequency 0: the platform's");
	pk_oa_devvars_from_recording(&v, rec);
	is_int(v.timestamp_frequency, 12500000, "frequency 0: $GpuTimestampFrequency the platform's");
	pk_oa_recording_free(rec);
}

/*
 * Correlation points out of GPU time order in the file (D, A, C, B; CPU
 * time not on one line): a report between B and C is placed between B and
 * C, not between A and C, which follow each other in the file (as
 * i915-perf-reader brackets); before A and after D, extrapolated from A-B
 * and C-D.
 */
static void check_points_out_of_order(void)
{
	static const uint64_t pts[4][2] = {
		{ 40000, 0x4000 }, { 10000, 0x1000 }, { 22000, 0x3000 }, { 20000, 0x2000 },
	};
	struct pk_oa_recording *rec = with_points(pts, 4, 0x2800);
	size_t n;

	if (!ok(rec != NULL, "points out of order: the recording reads"))
		return;
	is_int(pk_oa_recording_cpu_time(rec, 0x2800u), 21000, "points out of order: between its neighbours in GPU time");
	is_int(pk_oa_recording_cpu_time(rec, 0x800u), 5000, "points out of order: before the first, from the first two");
	is_int(pk_oa_recording_cpu_time(rec, 0x4800u), 49000, "points out of order: after the last, from the last two");
	ok(pk_oa_recording_correlations(rec, &n)[0].gpu_ts == 0x4000 && n == 4,
	   "points out of order: the recording's list keeps the file's order");
	pk_oa_recording_free(rec);
	/* two of them at one GPU time, the later CPU time first in the file: taken in CPU time order */
	{
		static const uint64_t tie[3][2] = { { 30000, 0x2000 }, { 10000, 0x1000 }, { 20000, 0x2000 } };

		rec = with_points(tie, 3, 0x1800);
		if (ok(rec != NULL, "points out of order, two at one GPU time: the recording reads")) {
			is_int(pk_oa_recording_cpu_time(rec, 0x1800u), 15000,
			       "two at one GPU time: the earlier CPU time ends the line before them");
			pk_oa_recording_free(rec);
		}
	}
}

/*
 * pk_oa_recording_accumulate (what bench/oa_report.c times) against the sum
 * of pk_oa_accumulate over each pair: 600 Broadwell reports of random
 * counters (each drawn near its wrap now and then), with LOST and
 * correlation records between some of them, so that the reports lie in
 * runs of several strides; ranges across those breaks, of one pair, of
 * none, and a last report past the end (nothing added).
 */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd32(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

static void check_recording_accumulate(void)
{
	enum { N = 600, SIZE = 256 };
	static const size_t ranges[][2] = { { 0, N - 1 }, { 3, 250 }, { 97, 98 }, { 401, 599 }, { 7, 7 } };
	struct pk_oa_recording *rec = NULL;
	struct pk_buf b;
	struct pk_diag d;
	int err;

	pk_buf_init(&b);
	err = write_bdw_header(&b, 12500000) ?: pk_oa_write_correlation(&b, 1000, 0);
	for (int i = 0; i < N && !err; i++) {
		uint32_t r[SIZE / 4];

		for (int k = 0; k < SIZE / 4; k++)
			r[k] = rnd32() % 5 ? rnd32() : 0xffffffffu - rnd32() % 16;
		r[0] = 0;                   /* reason and context flags: none */
		if (!err && i % 61 == 60)
			err = pk_oa_write_lost(&b, PK_OA_RECORD_REPORT_LOST);
		if (!err && i % 151 == 150)
			err = pk_oa_write_correlation(&b, 1000 + (uint64_t)i, (uint64_t)i);
		if (!err)
			err = pk_oa_write_sample(&b, r, SIZE);
	}
	pk_diag_init(&d);
	if (!err)
		err = pk_oa_recording_read_mem(b.data, b.len, "accumulate", &rec, &d);
	pk_buf_release(&b);
	is_int(err, 0, "accumulate: the recording reads (%s)", d.msg);
	if (err)
		return;
	is_int(pk_oa_recording_n_reports(rec), N, "accumulate: %d reports", N);
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const struct pk_oa_decoder *dec = pk_oa_recording_decoder(rec);
		uint64_t got[PK_OA_MAX_VALUES], want[PK_OA_MAX_VALUES];
		size_t first = ranges[i][0], last = ranges[i][1];

		for (int k = 0; k < PK_OA_MAX_VALUES; k++)
			got[k] = want[k] = (uint64_t)k << 40;      /* added to, not replaced */
		for (size_t j = first; j < last; j++)
			pk_oa_accumulate(dec, pk_oa_recording_report(rec, j), pk_oa_recording_report(rec, j + 1), want);
		pk_oa_recording_accumulate(rec, first, last, got);
		ok(!memcmp(got, want, sizeof(got)), "accumulate: reports %zu to %zu, as pair by pair", first, last);
	}
	{
		uint64_t got[PK_OA_MAX_VALUES] = { 0 }, zero[PK_OA_MAX_VALUES] = { 0 };

		pk_oa_recording_accumulate(rec, 0, N, got);
		ok(!memcmp(got, zero, sizeof(got)), "accumulate: a last report past the end adds nothing");
	}
	pk_oa_recording_free(rec);
}

int main(void)
{
	struct dirent **ents;
	bool reader;
	int n;

	char rel[512], abs_[PATH_MAX];

	/* absolute, since the reader runs in a directory of its own */
	snprintf(rel, sizeof(rel), "%.400s/data/i915-perf", shared_dir());
	snprintf(DIR_, sizeof(DIR_), "%.1000s", realpath(rel, abs_) ? abs_ : rel);
	n = scandir(DIR_, &ents, NULL, alphasort);
	if (n < 0) {
		skip_all("no shared i915-perf recordings (set PK_SHARED)");
		return 0;
	}
	reader = have_reader();
	if (!reader)
		diag("i915-perf-reader not installed: writer checked without the oracle");
	for (int i = 0; i < n; i++) {
		const char *nm = ents[i]->d_name;
		size_t l = strlen(nm);

		if (l > 9 && strcmp(nm + l - 9, ".i915perf") == 0 && strncmp(nm, "edge_", 5) != 0) {
			char base[256];

			snprintf(base, sizeof(base), "%.*s", (int)(l - 9), nm);
			check_regular(base, true);
			check_rewrite(base, "-c all -r", reader);
		}
		free(ents[i]);
	}
	free(ents);
	check_edges();
	check_rewrite("edge_lost", "-c GpuTime,GpuBusy", reader);
	check_rewrite("edge_ctx_invalid", "-c GpuTime,GpuBusy", reader);
	check_rewrite("edge_noversion_reordered", "-c GpuTime,GpuBusy", reader);
	check_corrupt();
	check_far_points();
	check_points_across_wraps();
	check_points_out_of_order();
	check_frequency_of_zero();
	check_recording_accumulate();
	return done_testing();
}
