/*
 * The reader of IGT's i915-perf recording format (written by
 * i915-perf-recorder, read by i915-perf-reader and gpuvis). The framing is
 * lib/oa/records.c; this file interprets the IGT records and keeps the
 * reports. One pass over the records keeps a pointer to each report (record
 * order is free and the last DEVICE_INFO / TOPOLOGY wins, so the report size
 * is known only at the end, when the shortest SAMPLE is checked against it).
 * The same reader takes a bare kernel stream, whose device the caller gives.
 * Asked to (oa_recording_read_file_following), it starts a segment builder
 * at the first SAMPLE when the device is known by then, and publishes the
 * reports to it as it indexes them (segments.c); a later DEVICE_INFO or a
 * short SAMPLE stops the builder, and the timeline is built at the end.
 *
 * VERSION payload:     0 u32 version (1), 4 u32 pad
 * DEVICE_INFO payload (336 bytes, ../shared/reference/gpu.md 1.3):
 *   OFF  SIZE  FIELD
 *   0    8     timestamp_frequency (Hz)
 *   8    4     device_id            12   4   device_revision
 *   16   4     gt_min_frequency     20   4   gt_max_frequency (Hz)
 *   24   4     engine_class         28   4   engine_instance
 *   32   4     oa_format (enum drm_i915_oa_format)
 *   36   256   metric_set_name      292  40  metric_set_uuid    332 4 pad
 * TOPOLOGY payload (gpu.md 1.5): 8 x u16 flags, max_slices, max_subslices,
 *   max_eus_per_subslice, subslice_offset, subslice_stride, eu_offset,
 *   eu_stride; then the mask bytes, padded to 8
 * TIMESTAMP_CORRELATION payload: 0 u64 cpu_timestamp, 8 u64 gpu_timestamp
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/oa.h>
#include "recording_int.h"

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void parse_device_info(const uint8_t *p, struct pk_oa_device_info *di)
{
	memset(di, 0, sizeof(*di));
	di->timestamp_frequency = get64(p);
	di->device_id = get32(p + 8);
	di->revision = get32(p + 12);
	di->gt_min_frequency = get32(p + 16);
	di->gt_max_frequency = get32(p + 20);
	di->engine_class = get32(p + 24);
	di->engine_instance = get32(p + 28);
	di->oa_format = get32(p + 32);
	memcpy(di->metric_set_name, p + 36, 256);
	di->metric_set_name[256] = 0;
	memcpy(di->metric_set_uuid, p + 292, 40);
	di->metric_set_uuid[40] = 0;
}

static int parse_topology(const struct pk_oa_record *r, struct pk_oa_topology *t,
			  struct pk_diag *diag)
{
	const uint8_t *p = r->payload;
	size_t n = r->payload_len - 16;

	if (n > PK_OA_TOPOLOGY_MAX_DATA)
		return PK_CORRUPT(diag, r->offset, "topology data too large (%zu bytes, at most %d)",
				  n, PK_OA_TOPOLOGY_MAX_DATA);
	memset(t, 0, sizeof(*t));
	t->flags = get16(p);
	t->max_slices = get16(p + 2);
	t->max_subslices = get16(p + 4);
	t->max_eus_per_subslice = get16(p + 6);
	t->subslice_offset = get16(p + 8);
	t->subslice_stride = get16(p + 10);
	t->eu_offset = get16(p + 12);
	t->eu_stride = get16(p + 14);
	t->data_len = (uint32_t)n;
	memcpy(t->data, p + 16, n);
	return 0;
}

/* What scan() found about the SAMPLE records. */
struct scan_state {
	size_t n_samples;
	size_t min_len;          /* the shortest payload */
	uint64_t min_off;        /* and its record's offset and size */
	uint32_t min_size;
};

static int add_mark(struct pk_oa_recording *rec, size_t *cap, size_t before, uint32_t type,
		    uint32_t corr)
{
	if (pk_array_grow((void **)&rec->marks, cap, rec->n_marks + 1, sizeof(*rec->marks), 16))
		return -ENOMEM;
	rec->marks[rec->n_marks++] = (struct oa_mark){ .before = before, .type = type, .corr = corr };
	return 0;
}

/* The platform and decoder of device @di. 0, or -ENOTSUP (-EINVAL: the OA format). */
static int decoder_of(const struct pk_oa_device_info *di, const struct pk_oa_platform **platform,
		      struct pk_oa_decoder *dec)
{
	*platform = pk_oa_platform_by_pci_id(di->device_id);
	if (!*platform)
		return -ENOTSUP;
	return pk_oa_decoder_for_platform(dec, *platform, (int)di->oa_format) ? -EINVAL : 0;
}

/* Reports indexed between two publications to the segment builder. */
#define PUBLISH_EVERY 4096

/*
 * Room for @want reports in the index, *@cap updated. 0 or -ENOMEM.
 *
 * The walk over the records fills the index 8 bytes a report, so in 4 KB
 * pages it faults once every 512 reports (2,048 faults for a million, on
 * the walk's thread). An index of a huge page or more is therefore
 * allocated in huge pages (pk_realloc_huge); it is sized for the rest of the file at once, and only
 * the pages the reports use are touched. Growing it later (records of
 * another size than the first) reallocates.
 */
static int index_reserve(struct pk_oa_recording *rec, size_t *cap, size_t want)
{
	void *index;

	if (rec->reports || want < 1024 || want > SIZE_MAX / sizeof(*rec->reports))
		return pk_array_grow((void **)&rec->reports, cap, want, sizeof(*rec->reports), 1024);
	if (!(index = pk_realloc_huge(NULL, 0, want * sizeof(*rec->reports))))
		return -ENOMEM;
	rec->reports = index;
	*cap = want;
	return 0;
}

/*
 * At the first SAMPLE (@left bytes after it, records of @size bytes): start
 * building segments alongside when the device @di is known. The report
 * index then gets room for every SAMPLE the rest could hold (16 bytes at
 * least each), so that it never moves while the builder reads it. For
 * few reports, one CPU, no device, no memory or no thread, nothing happens.
 */
static void follow(struct pk_oa_recording *rec, const struct pk_oa_device_info *di, size_t left,
		   unsigned size, size_t *reports_cap, struct oa_follow *fw)
{
	const struct pk_oa_platform *platform;
	struct pk_oa_decoder dec;

	if (!di || !oa_segments_two_threads(1 + left / size) || decoder_of(di, &platform, &dec) ||
	    index_reserve(rec, reports_cap, 1 + left / 16))
		return;
	fw->stride = dec.fmt->report_size;
	fw->job = oa_segments_follow(&dec, rec->reports, *reports_cap, 1 + left / size);
	if (!fw->job) {
		free(rec->reports);
		rec->reports = NULL;
		*reports_cap = 0;
	}
}

/*
 * One pass over the records: framing, VERSION, the last DEVICE_INFO and
 * TOPOLOGY, the reports (pointers into the buffer: they are not copied),
 * correlations and where the loss records were. The shortest SAMPLE is
 * remembered, to be checked once the device gives the report size.
 */
static int scan(struct pk_oa_recording *rec, const uint8_t *data, size_t len,
		const struct pk_oa_stream_device *sd, uint64_t *devinfo_off, struct scan_state *st,
		struct oa_follow *fw, struct pk_diag *diag)
{
	struct pk_oa_record_iter it;
	struct pk_oa_record r;
	bool have_dev = false, have_topo = false;
	size_t reports_cap = 0, corr_cap = 0, marks_cap = 0;
	int err;

	pk_oa_record_iter_init(&it, data, len);
	while ((err = pk_oa_record_next(&it, &r, diag)) > 0) {
		if (sd && r.type >= PK_OA_RECORD_VERSION && r.type <= PK_OA_RECORD_CORRELATION)
			return PK_CORRUPT(diag, r.offset,
					  "a %s record: this is an IGT recording, not a bare kernel stream, and has its own device description",
					  pk_oa_record_type_name(r.type));
		switch (r.type) {
		case PK_OA_RECORD_VERSION:
			rec->version = get32(r.payload);
			if (rec->version != 1)
				return pk_diag_fail_at(diag, -EPROTO, r.offset,
						       "unsupported recording version %u (expected 1)",
						       rec->version);
			break;
		case PK_OA_RECORD_DEVICE_INFO:
			if (fw && fw->job) {
				/* the decoder may change: the segments wait for the end */
				oa_segments_cancel(fw->job);
				fw->job = NULL;
			}
			parse_device_info(r.payload, &rec->dev);
			*devinfo_off = r.offset;
			have_dev = true;
			break;
		case PK_OA_RECORD_TOPOLOGY:
			if ((err = parse_topology(&r, &rec->topo, diag)))
				return err;
			have_topo = true;
			break;
		case PK_OA_RECORD_CORRELATION:
			if (pk_array_grow((void **)&rec->corr, &corr_cap, rec->n_corr + 1,
					  sizeof(*rec->corr), 16) ||
			    add_mark(rec, &marks_cap, rec->n_reports, r.type, (uint32_t)rec->n_corr))
				return -ENOMEM;
			rec->corr[rec->n_corr].cpu_ns = get64(r.payload);
			rec->corr[rec->n_corr].gpu_ts = get64(r.payload + 8);
			rec->n_corr++;
			break;
		case PK_OA_RECORD_SAMPLE:
			if (fw && !rec->n_reports)
				follow(rec, sd ? &sd->info : have_dev ? &rec->dev : NULL,
				       len - it.pos, r.size, &reports_cap, fw);
			/* room for the rest of the file in samples of this size, at once */
			if (rec->n_reports == reports_cap &&
			    index_reserve(rec, &reports_cap,
					  rec->n_reports + 1 + (len - it.pos) / r.size))
				return -ENOMEM;
			rec->reports[rec->n_reports++] = r.payload;
			if (fw && fw->job) {
				if (r.payload_len < fw->stride) {
					/* too short (an error at the end): the builder
					 * is given only reports of full size */
					oa_segments_cancel(fw->job);
					fw->job = NULL;
				} else if (!(rec->n_reports % PUBLISH_EVERY)) {
					oa_segments_publish(fw->job, rec->n_reports);
				}
			}
			if (!st->n_samples++ || r.payload_len < st->min_len) {
				st->min_len = r.payload_len;
				st->min_off = r.offset;
				st->min_size = r.size;
			}
			break;
		case PK_OA_RECORD_REPORT_LOST:
		case PK_OA_RECORD_BUFFER_LOST:
			if (add_mark(rec, &marks_cap, rec->n_reports, r.type, 0))
				return -ENOMEM;
			if (r.type == PK_OA_RECORD_REPORT_LOST)
				rec->reports_lost++;
			else
				rec->buffers_lost++;
			break;
		default:
			if (!rec->unknown++) {
				rec->unknown_first_type = r.type;
				rec->unknown_first_off = r.offset;
			}
			break;
		}
	}
	if (err < 0)
		return err;
	if (sd) {
		rec->dev = sd->info;
		rec->topo = sd->topo;
		rec->is_stream = true;
		return 0;
	}
	if (!have_dev || !have_topo)
		return pk_diag_fail(diag, -ENODATA, "invalid file, missing %s info",
				    !have_dev && !have_topo ? "device and topology" :
				    !have_dev ? "device" : "topology");
	return 0;
}

/* The device of the recording: platform, decoder, frequency. */
static int setup_device(struct pk_oa_recording *rec, uint64_t off, struct pk_diag *diag)
{
	const struct pk_oa_device_info *di = &rec->dev;
	int err = decoder_of(di, &rec->platform, &rec->dec);

	if (err == -ENOTSUP)
		return pk_diag_fail_at(diag, -ENOTSUP, off,
				       "recording made on an unsupported device (0x%x)", di->device_id);
	if (err)
		return pk_diag_fail_at(diag, -ENOTSUP, off, "unsupported oa format %u", di->oa_format);
	rec->timestamp_frequency = di->timestamp_frequency ? di->timestamp_frequency :
				   rec->platform->timestamp_frequency;
	rec->stride = rec->dec.fmt->report_size;
	if (rec->is_stream) {
		/* the description given stands in for DEVICE_INFO: complete it */
		rec->dev.timestamp_frequency = rec->timestamp_frequency;
		rec->dev.oa_format = (uint32_t)rec->dec.fmt->format;
	}
	pk_oa_topology_derive(&rec->topo, rec->platform->graphics_ver);
	return 0;
}

/*
 * Read the recording in @buf (owned from here on: kept for the reports,
 * which are not copied, and released with the recording or on failure).
 */
/* The recording in @file, which it takes over (released on error too). */
static int read_owned(struct pk_file_data *file, const char *name, const struct pk_oa_stream_device *sd,
		      struct pk_oa_recording **out, struct oa_follow *fw, struct pk_diag *diag)
{
	struct pk_oa_recording *rec = calloc(1, sizeof(*rec));
	struct scan_state st = { 0 };
	uint64_t devinfo_off = 0;
	int err;

	*out = NULL;
	if (!rec) {
		pk_file_data_release(file);
		return -ENOMEM;
	}
	rec->file = *file;
	err = scan(rec, (const uint8_t *)rec->file.data, rec->file.len, sd, &devinfo_off, &st, fw, diag);
	if (!err)
		err = setup_device(rec, devinfo_off, diag);
	if (!err)
		err = oa_index_correlations(rec);
	if (!err && st.n_samples && st.min_len < rec->stride)
		err = PK_CORRUPT(diag, st.min_off,
				 "sample record too short for a %s report (size %u, expected %zu)",
				 rec->dec.fmt->name, st.min_size, rec->stride + 8);
	if (err) {
		if (fw) {
			oa_segments_cancel(fw->job);     /* before the reports go */
			fw->job = NULL;
		}
		if (err == -ENOMEM)
			pk_diag_fail(diag, err, "out of memory");
		pk_diag_subject(diag, name);
		pk_oa_recording_free(rec);
		return err;
	}
	*out = rec;
	return 0;
}

static int read_mem(const void *data, size_t len, const char *name,
		    const struct pk_oa_stream_device *sd, struct pk_oa_recording **out,
		    struct pk_diag *diag)
{
	struct pk_file_data copy = { 0 };

	*out = NULL;
	pk_buf_init(&copy.buf);
	if (pk_buf_append(&copy.buf, data, len)) {
		pk_diag_subject(diag, name);
		return pk_diag_fail(diag, -ENOMEM, "out of memory");
	}
	copy.data = copy.buf.data;
	copy.len = len;
	return read_owned(&copy, name, sd, out, NULL, diag);
}

int oa_recording_read_file_following(const char *path, const struct pk_oa_stream_device *sd,
				     struct pk_oa_recording **out, struct oa_follow *fw,
				     struct pk_diag *diag)
{
	/* a regular file is mapped; a pipe (zstdcat rec.zst |, ssh host cat rec |) is read to its end */
	struct pk_file_data file;
	int err = pk_file_data_load(path, SIZE_MAX, &file);

	*out = NULL;
	if (err) {
		pk_file_data_release(&file);
		pk_diag_fail(diag, err, "cannot read: %s", strerror(-err));
		pk_diag_subject(diag, path);
		return err;
	}
	return read_owned(&file, path, sd, out, fw, diag);
}

int pk_oa_recording_read_mem(const void *data, size_t len, const char *name,
			     struct pk_oa_recording **out, struct pk_diag *diag)
{
	return read_mem(data, len, name, NULL, out, diag);
}

int pk_oa_recording_read_file(const char *path, struct pk_oa_recording **out,
			      struct pk_diag *diag)
{
	return oa_recording_read_file_following(path, NULL, out, NULL, diag);
}

int pk_oa_stream_read_mem(const void *data, size_t len, const char *name,
			  const struct pk_oa_stream_device *dev, struct pk_oa_recording **out,
			  struct pk_diag *diag)
{
	return read_mem(data, len, name, dev, out, diag);
}

int pk_oa_stream_read_file(const char *path, const struct pk_oa_stream_device *dev,
			   struct pk_oa_recording **out, struct pk_diag *diag)
{
	return oa_recording_read_file_following(path, dev, out, NULL, diag);
}

bool pk_oa_recording_is_stream(const struct pk_oa_recording *rec) { return rec->is_stream; }

void pk_oa_recording_free(struct pk_oa_recording *rec)
{
	if (!rec)
		return;
	free(rec->reports);
	pk_file_data_release(&rec->file);
	free(rec->corr_sorted);
	free(rec->corr);
	free(rec->chunks);
	free(rec->marks);
	free(rec);
}

uint32_t pk_oa_recording_version(const struct pk_oa_recording *rec) { return rec->version; }

const struct pk_oa_device_info *pk_oa_recording_device(const struct pk_oa_recording *rec)
{
	return &rec->dev;
}

const struct pk_oa_topology *pk_oa_recording_topology(const struct pk_oa_recording *rec)
{
	return &rec->topo;
}

const struct pk_oa_platform *pk_oa_recording_platform(const struct pk_oa_recording *rec)
{
	return rec->platform;
}

const struct pk_oa_decoder *pk_oa_recording_decoder(const struct pk_oa_recording *rec)
{
	return &rec->dec;
}

int pk_oa_recording_graphics_ver(const struct pk_oa_recording *rec)
{
	return rec->dec.graphics_ver;
}

uint64_t pk_oa_recording_timestamp_frequency(const struct pk_oa_recording *rec)
{
	return rec->timestamp_frequency;
}

size_t pk_oa_recording_n_reports(const struct pk_oa_recording *rec) { return rec->n_reports; }

const uint8_t *pk_oa_recording_report(const struct pk_oa_recording *rec, size_t i)
{
	return i < rec->n_reports ? rec->reports[i] : NULL;
}

void oa_accumulate_range(const struct pk_oa_decoder *dec, const uint8_t *const *reports,
			 size_t first, size_t last, uint64_t *deltas)
{
	size_t i = first;

	/* runs of reports evenly spaced in the file go through the fast run loop */
	while (i < last) {
		ptrdiff_t step = reports[i + 1] - reports[i];
		size_t j = i + 1;

		while (j < last && reports[j + 1] - reports[j] == step)
			j++;
		if (step > 0)
			pk_oa_accumulate_run(dec, reports[i], (size_t)step, j - i + 1, deltas);
		else
			for (size_t k = i; k < j; k++)
				pk_oa_accumulate(dec, reports[k], reports[k + 1], deltas);
		i = j;
	}
}

void pk_oa_recording_accumulate(const struct pk_oa_recording *rec, size_t first, size_t last,
				uint64_t *deltas)
{
	if (last < rec->n_reports)
		oa_accumulate_range(&rec->dec, rec->reports, first, last, deltas);
}

const struct pk_oa_correlation *pk_oa_recording_correlations(const struct pk_oa_recording *rec,
							    size_t *n)
{
	*n = rec->n_corr;
	return rec->corr;
}

uint64_t pk_oa_recording_reports_lost(const struct pk_oa_recording *rec) { return rec->reports_lost; }
uint64_t pk_oa_recording_buffers_lost(const struct pk_oa_recording *rec) { return rec->buffers_lost; }
uint64_t pk_oa_recording_unknown_records(const struct pk_oa_recording *rec, uint32_t *first_type,
					 uint64_t *first_offset)
{
	*first_type = rec->unknown_first_type;
	*first_offset = rec->unknown_first_off;
	return rec->unknown;
}
