/*
 * Tests of bare kernel streams (pk_oa_stream_read_*) and of topologies
 * built from counts (pk_oa_topology_uniform), against the recordings of
 * $PK_SHARED/data/i915-perf (../shared when unset):
 *
 *  1. the topology that counts build equals, byte for byte and in its
 *     derived variables, the one the kernel gave each recording's device;
 *  2. each regular recording with its IGT records taken out (what read()
 *     on the perf fd returned) and its device given as a caller would give
 *     it reads to the same reports, losses, device and timelines (contexts,
 *     GPU times, every accumulated delta) as the recording, with no CPU
 *     times;
 *  3. an IGT record inside a stream, truncation, short samples and an
 *     unknown device are errors with the offset; an empty stream has no
 *     reports; a stream without a set name asks for one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "../shared_data.h"
#include "../tap.h"

static char DIR_[1024];

static const char *const regular[] = {
	"hsw_renderbasic", "bdw_renderbasic", "bdw_testoa", "skl_renderbasic", "tgl_renderbasic",
	"dg2_renderbasic",
};

/* The kernel's records of @data (SAMPLE and LOST), as the perf fd gave them. */
static uint8_t *kernel_records(const uint8_t *data, size_t len, size_t *out_len)
{
	uint8_t *out = malloc(len ? len : 1);
	size_t pos = 0, n = 0;

	while (out && pos + 8 <= len) {
		uint32_t type;
		uint16_t size;

		memcpy(&type, data + pos, 4);
		memcpy(&size, data + pos + 6, 2);
		if (size < 8 || pos + size > len)
			break;
		if (type == PK_OA_RECORD_SAMPLE || type == PK_OA_RECORD_REPORT_LOST ||
		    type == PK_OA_RECORD_BUFFER_LOST) {
			memcpy(out + n, data + pos, size);
			n += size;
		}
		pos += size;
	}
	*out_len = n;
	return out;
}

static struct pk_oa_recording *read_recording(const char *base, uint8_t **data, size_t *len)
{
	char path[2048];
	struct pk_oa_recording *rec = NULL;
	struct pk_diag d;
	struct pk_buf b;

	snprintf(path, sizeof(path), "%s/%s.i915perf", DIR_, base);
	pk_diag_init(&d);
	pk_buf_init(&b);
	if (pk_file_read_all(path, &b, 1 << 24) || pk_oa_recording_read_mem(b.data, b.len, path, &rec, &d)) {
		ok(0, "%s: reads (%s)", base, d.msg);
		pk_buf_release(&b);
		return NULL;
	}
	*data = (uint8_t *)b.data;
	*len = b.len;
	return rec;
}

/* 1. counts -> the kernel's topology */
static void check_topology(const char *base)
{
	const struct pk_oa_topology *t;
	struct pk_oa_recording *rec;
	struct pk_oa_topology u;
	uint8_t *data;
	size_t len;
	bool rest_zero = true;

	if (!(rec = read_recording(base, &data, &len)))
		return;
	t = pk_oa_recording_topology(rec);
	is_int(pk_oa_topology_uniform(&u, t->max_slices, t->max_subslices, t->max_eus_per_subslice), 0,
	       "%s: topology %u,%u,%u from counts", base, t->max_slices, t->max_subslices,
	       t->max_eus_per_subslice);
	ok(u.subslice_offset == t->subslice_offset && u.subslice_stride == t->subslice_stride &&
	   u.eu_offset == t->eu_offset && u.eu_stride == t->eu_stride,
	   "%s: offsets and strides are the kernel's (%u/%u/%u/%u)", base, u.subslice_offset,
	   u.subslice_stride, u.eu_offset, u.eu_stride);
	ok(u.data_len <= t->data_len && memcmp(u.data, t->data, u.data_len) == 0,
	   "%s: %u mask bytes are the kernel's", base, u.data_len);
	for (uint32_t i = u.data_len; i < t->data_len; i++)
		rest_zero &= t->data[i] == 0;
	ok(rest_zero, "%s: the recording's bytes past them are padding", base);
	pk_oa_topology_derive(&u, pk_oa_recording_graphics_ver(rec));
	ok(u.slice_mask == t->slice_mask && u.subslice_mask == t->subslice_mask && u.n_eus == t->n_eus &&
	   u.n_eu_slices == t->n_eu_slices && u.n_eu_sub_slices == t->n_eu_sub_slices,
	   "%s: derived variables equal (%u EUs, subslice mask 0x%llx)", base, u.n_eus,
	   (unsigned long long)u.subslice_mask);
	pk_oa_recording_free(rec);
	free(data);
}

/* Timeline @a of recording @ra and @b of @rb have the same segments and counters. */
static bool same_timelines(const struct pk_oa_timeline *a, const struct pk_oa_recording *ra,
			   const struct pk_oa_timeline *b, const struct pk_oa_recording *rb)
{
	if (a->n_segments != b->n_segments || a->n_reports != b->n_reports ||
	    a->ts_first != b->ts_first || a->ts_last != b->ts_last)
		return false;
	for (size_t i = 0; i < a->n_segments; i++) {
		const struct pk_oa_segment *x = &a->segments[i], *y = &b->segments[i];
		uint64_t dx[PK_OA_MAX_VALUES], dy[PK_OA_MAX_VALUES];

		if (x->ctx_id != y->ctx_id || x->first != y->first || x->end != y->end ||
		    x->gpu_ts_start != y->gpu_ts_start || x->gpu_ts_end != y->gpu_ts_end ||
		    pk_oa_timeline_deltas(a, ra, i, dx) || pk_oa_timeline_deltas(b, rb, i, dy) ||
		    memcmp(dx, dy, sizeof(dx)))
			return false;
	}
	return true;
}

static bool no_cpu_times(const struct pk_oa_timeline *t)
{
	for (size_t i = 0; i < t->n_segments; i++)
		if (t->segments[i].cpu_ns_start || t->segments[i].cpu_ns_end)
			return false;
	return !t->cpu_valid && t->n_correlations == 0;
}

/* 2. the recording's kernel records, its device given by the caller */
static void check_stream(const char *base)
{
	struct pk_oa_recording *rec, *st = NULL;
	struct pk_oa_stream_device sd;
	struct pk_oa_timeline t1, t2;
	const struct pk_oa_device_info *di;
	uint8_t *data, *raw;
	size_t len, raw_len;
	struct pk_diag d;
	bool same;
	int err;

	if (!(rec = read_recording(base, &data, &len)))
		return;
	di = pk_oa_recording_device(rec);
	raw = kernel_records(data, len, &raw_len);
	memset(&sd, 0, sizeof(sd));
	sd.info.device_id = di->device_id;
	sd.info.gt_min_frequency = di->gt_min_frequency;
	sd.info.gt_max_frequency = di->gt_max_frequency;
	/* format and frequency left to the platform: they must come out as recorded */
	pk_oa_topology_uniform(&sd.topo, pk_oa_recording_topology(rec)->max_slices,
			       pk_oa_recording_topology(rec)->max_subslices,
			       pk_oa_recording_topology(rec)->max_eus_per_subslice);
	pk_diag_init(&d);
	err = pk_oa_stream_read_mem(raw, raw_len, base, &sd, &st, &d);
	is_int(err, 0, "%s: its %zu bytes of kernel records read as a stream (%s)", base, raw_len, d.msg);
	if (err)
		goto out;
	ok(pk_oa_recording_is_stream(st) && !pk_oa_recording_is_stream(rec), "%s: marked a stream", base);
	is_int(pk_oa_recording_device(st)->oa_format, di->oa_format, "%s: the platform's format is the recorded one",
	       base);
	ok(pk_oa_recording_timestamp_frequency(st) == di->timestamp_frequency &&
	   pk_oa_recording_device(st)->timestamp_frequency == di->timestamp_frequency,
	   "%s: the platform's timestamp frequency is the recorded one (%llu Hz)", base,
	   (unsigned long long)di->timestamp_frequency);
	same = pk_oa_recording_n_reports(st) == pk_oa_recording_n_reports(rec) &&
	       pk_oa_recording_n_reports(st) > 0;
	for (size_t i = 0; same && i < pk_oa_recording_n_reports(rec); i++)
		same = memcmp(pk_oa_recording_report(st, i), pk_oa_recording_report(rec, i),
			      pk_oa_recording_decoder(rec)->fmt->report_size) == 0;
	ok(same, "%s: the same %zu reports", base, pk_oa_recording_n_reports(rec));
	ok(pk_oa_recording_reports_lost(st) == pk_oa_recording_reports_lost(rec) &&
	   pk_oa_recording_buffers_lost(st) == pk_oa_recording_buffers_lost(rec),
	   "%s: the same losses", base);
	ok(!memcmp(&pk_oa_recording_topology(st)->slice_mask, &pk_oa_recording_topology(rec)->slice_mask,
		   sizeof(uint64_t) * 2) &&
	   pk_oa_recording_topology(st)->n_eus == pk_oa_recording_topology(rec)->n_eus,
	   "%s: the same derived topology", base);
	if (pk_oa_timeline_build(rec, &t1, &d) == 0) {
		if (pk_oa_timeline_build(st, &t2, &d) == 0) {
			ok(same_timelines(&t1, rec, &t2, st), "%s: the same %zu segments: contexts, GPU times, deltas",
			   base, t1.n_segments);
			ok(no_cpu_times(&t2), "%s: no correlation points, no CPU times", base);
			pk_oa_timeline_release(&t2);
		}
		pk_oa_timeline_release(&t1);
	}
	pk_oa_recording_free(st);
out:
	free(raw);
	pk_oa_recording_free(rec);
	free(data);
}

static void append(uint8_t **buf, size_t *len, uint32_t type, uint16_t size, uint8_t fill)
{
	*buf = realloc(*buf, *len + size);
	memcpy(*buf + *len, &type, 4);
	memset(*buf + *len + 4, 0, 2);
	memcpy(*buf + *len + 6, &size, 2);
	memset(*buf + *len + 8, fill, size - 8u);
	*len += size;
}

static int read_stream(const uint8_t *buf, size_t len, uint32_t pci_id, struct pk_diag *d,
		       struct pk_oa_recording **out)
{
	struct pk_oa_stream_device sd;

	memset(&sd, 0, sizeof(sd));
	sd.info.device_id = pci_id;
	pk_oa_topology_uniform(&sd.topo, 1, 6, 16);
	pk_diag_init(d);
	return pk_oa_stream_read_mem(buf, len, "s.bin", &sd, out, d);
}

/* 3. what a stream may not hold */
static void check_errors(void)
{
	static const uint32_t igt_types[] = { PK_OA_RECORD_VERSION, PK_OA_RECORD_DEVICE_INFO,
					       PK_OA_RECORD_TOPOLOGY, PK_OA_RECORD_CORRELATION };
	static const uint16_t igt_sizes[] = { 16, PK_OA_DEVICE_INFO_RECORD_SIZE, 32, 24 };
	struct pk_oa_recording *rec = NULL;
	struct pk_oa_topology t;
	struct pk_diag d;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err;

	err = read_stream(NULL, 0, 0x9a49, &d, &rec);
	is_int(err, 0, "empty stream: read");
	if (!err) {
		ok(pk_oa_recording_n_reports(rec) == 0, "empty stream: no reports");
		pk_oa_recording_free(rec);
	}
	for (size_t k = 0; k < 4; k++) {
		buf = NULL;
		len = 0;
		append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
		append(&buf, &len, PK_OA_RECORD_REPORT_LOST, 8, 0);
		append(&buf, &len, igt_types[k], igt_sizes[k], 0);
		append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
		err = read_stream(buf, len, 0x9a49, &d, &rec);
		ok(err == -EBADMSG && d.offset == 272 &&
		   strstr(d.msg, pk_oa_record_type_name(igt_types[k])) && strstr(d.msg, "IGT recording"),
		   "%s record inside a stream: refused at offset 272 (%s)",
		   pk_oa_record_type_name(igt_types[k]), d.msg);
		free(buf);
	}
	buf = NULL;
	len = 0;
	append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
	append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
	err = read_stream(buf, len - 10, 0x9a49, &d, &rec);
	ok(err == -EBADMSG && d.offset == 264, "truncated stream: offset 264 (%s)", d.msg);
	err = read_stream(buf, len, 0x1234, &d, &rec);
	ok(err == -ENOTSUP && strstr(d.msg, "0x1234"), "unknown PCI id: refused (%s)", d.msg);
	free(buf);
	buf = NULL;
	len = 0;
	append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
	append(&buf, &len, PK_OA_RECORD_SAMPLE, 136, 0);
	err = read_stream(buf, len, 0x9a49, &d, &rec);
	ok(err == -EBADMSG && d.offset == 264 && strstr(d.msg, "too short"),
	   "short sample: offset 264 (%s)", d.msg);
	free(buf);

	/* a set must be chosen: the stream names none */
	buf = NULL;
	len = 0;
	append(&buf, &len, PK_OA_RECORD_SAMPLE, 264, 0);
	if (read_stream(buf, len, 0x9a49, &d, &rec) == 0) {
		char xml[1100];
		struct pk_oa_summary s;

		snprintf(xml, sizeof(xml), "%s/../intel-oa/oa-tglgt2.xml", DIR_);
		PK_OA_SUMMARY_OPTS(so, .metrics_file = xml);
		pk_diag_init(&d);
		err = pk_oa_summary_init(&s, rec, &so, &d);
		ok(err == -ENOENT && strstr(d.msg, "stream does not name its metric set"),
		   "no set named or chosen: asks for one (%s)", d.msg);
		PK_OA_SUMMARY_OPTS(so2, .metrics_file = xml, .set = "RenderBasic");
		pk_diag_init(&d);
		err = pk_oa_summary_init(&s, rec, &so2, &d);
		is_int(err, 0, "-m RenderBasic: evaluated (%s)", d.msg);
		if (!err) {
			ok(!s.uuid_mismatch, "the chosen set is not a uuid mismatch");
			pk_oa_summary_release(&s);
		}
		pk_oa_recording_free(rec);
	}
	free(buf);

	ok(pk_oa_topology_uniform(&t, 0, 1, 1) == -EINVAL && pk_oa_topology_uniform(&t, 1, 65, 1) == -EINVAL &&
	   pk_oa_topology_uniform(&t, 1, 1, 65) == -EINVAL, "uniform topology: counts 0 or above 64 refused");
	is_int(pk_oa_topology_uniform(&t, 64, 64, 64), -E2BIG, "uniform topology: more than 4096 bytes refused");
	is_int(pk_oa_topology_uniform(&t, 2, 3, 8), 0, "uniform topology: 2 slices of 3 subslices of 8 EUs");
	pk_oa_topology_derive(&t, 9);
	ok(t.n_eus == 48 && t.slice_mask == 3 && t.subslice_mask == 0x3f && t.n_eu_sub_slices == 6,
	   "gen9: 48 EUs, slices 0x3, subslices 0x3f at 3 bits a slice (got %u, 0x%llx, 0x%llx)", t.n_eus,
	   (unsigned long long)t.slice_mask, (unsigned long long)t.subslice_mask);
	pk_oa_topology_derive(&t, 12);
	ok(t.subslice_mask == 0x707, "gen12: subslices 0x707 at 8 bits a slice (got 0x%llx)",
	   (unsigned long long)t.subslice_mask);
}

int main(void)
{
	char rel[512], abs_[PATH_MAX];
	FILE *probe;

	snprintf(rel, sizeof(rel), "%.400s/data/i915-perf", shared_dir());
	snprintf(DIR_, sizeof(DIR_), "%.1000s", realpath(rel, abs_) ? abs_ : rel);
	snprintf(rel, sizeof(rel), "%.400s/hsw_renderbasic.i915perf", DIR_);
	if (!(probe = fopen(rel, "rb"))) {
		skip_all("no shared i915-perf recordings (set PK_SHARED)");
		return 0;
	}
	fclose(probe);
	for (size_t i = 0; i < sizeof(regular) / sizeof(regular[0]); i++) {
		check_topology(regular[i]);
		check_stream(regular[i]);
	}
	check_stream("edge_lost");
	check_stream("edge_ctx_invalid");
	check_errors();
	return done_testing();
}
