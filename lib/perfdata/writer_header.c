/*
 * The metadata half of the perf.data writer: the file header (written at
 * open and rewritten at close), the feature block after the data section,
 * the file-mode attrs and id arrays, and the pipe-mode header records
 * (HEADER_ATTR, HEADER_FEATURE, HEADER_TRACING_DATA, HEADER_BUILD_ID).
 * Feature payloads come from pk_features_encode() (features_encode.c);
 * EVENT_DESC is made from the writer's evsels and COMPRESSED from its
 * compressor.
 *
 * Layouts: ../shared/reference/perf-data.md §1 (file layout and header),
 * §7 (features), §8 (pipe mode).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/writer_int.h"

/* Features perfkit writes from the caller's struct (the rest come from the writer). */
static int feat_from_caller(unsigned feat)
{
	switch (feat) {
	case PK_FEAT_TRACING_DATA: case PK_FEAT_BUILD_ID: case PK_FEAT_HOSTNAME:
	case PK_FEAT_OSRELEASE: case PK_FEAT_VERSION: case PK_FEAT_ARCH: case PK_FEAT_NRCPUS:
	case PK_FEAT_CPUDESC: case PK_FEAT_CPUID: case PK_FEAT_TOTAL_MEM: case PK_FEAT_CMDLINE:
	case PK_FEAT_CPU_TOPOLOGY: case PK_FEAT_NUMA_TOPOLOGY: case PK_FEAT_PMU_MAPPINGS:
	case PK_FEAT_GROUP_DESC: case PK_FEAT_SAMPLE_TIME: case PK_FEAT_CLOCKID:
	case PK_FEAT_CLOCK_DATA:
		return 1;
	default:
		return 0;
	}
}

/*
 * Encode feature @feat as this file will carry it: EVENT_DESC from the
 * evsels, COMPRESSED from the writer, the others from @f. 1 if encoded into
 * @out, 0 if the file goes without it, -errno.
 */
static int feat_encode(struct pk_perfdata_writer *w, const struct pk_features *f, unsigned feat,
		       struct pk_buf *out)
{
	struct pk_features tmp;
	int err;

	if (feat == PK_FEAT_EVENT_DESC) {
		struct pk_feat_event_desc *ed;

		if (!w->nr)
			return 0;
		ed = calloc(w->nr, sizeof(*ed));
		if (!ed)
			return -ENOMEM;
		memset(&tmp, 0, sizeof(tmp));
		for (size_t i = 0; i < w->nr; i++) {
			ed[i].attr.attr = w->evs[i].attr;
			ed[i].name = w->evs[i].name;
			ed[i].ids = w->evs[i].ids;
			ed[i].nr_ids = w->evs[i].nr_ids;
		}
		tmp.event_desc = ed;
		tmp.nr_event_desc = (uint32_t)w->nr;
		err = pk_features_encode(&tmp, feat, out);
		free(ed);
		return err ? err : 1;
	}
	if (feat == PK_FEAT_COMPRESSED) {
		if (!w->cctx)
			return 0;
		memset(&tmp, 0, sizeof(tmp));
		tmp.comp_version = 0;
		tmp.comp_type = 1;                  /* zstd */
		tmp.comp_level = (uint32_t)w->level;
		tmp.comp_ratio = w->zout ? (uint32_t)((double)w->zin / (double)w->zout + 0.5) : 0;
		tmp.comp_mmap_len = COMP_MMAP_LEN;
		err = pk_features_encode(&tmp, feat, out);
		return err ? err : 1;
	}
	if (!f || !feat_from_caller(feat) || !pk_features_has(f, feat))
		return 0;
	if (feat == PK_FEAT_TRACING_DATA && !f->tracing_data_size)
		return 0;
	err = pk_features_encode(f, feat, out);
	return err ? err : 1;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * perf_file_header (perf-data.md §1.1), rewritten in place at offset 0:
 *   0 u64 magic "PERFILE2"; 8 u64 size (104); 16 u64 attr_size;
 *   24 attrs {offset, size}; 40 data {offset, size}; 56 event_types {0, 0};
 *   72 u64 adds_features[4]
 */
int pk_wr_file_header(struct pk_perfdata_writer *w, uint64_t data_size,
			     const uint64_t feats[4], struct pk_diag *d)
{
	uint8_t h[PK_PD_FILE_HDR_SIZE];
	uint64_t attr_size = sizeof(struct perf_event_attr) + 16;

	memset(h, 0, sizeof(h));
	put_u64(h, PERF_MAGIC2);
	put_u64(h + 8, PK_PD_FILE_HDR_SIZE);
	put_u64(h + 16, attr_size);
	put_u64(h + 24, w->attrs_off);
	put_u64(h + 32, w->nr * attr_size);
	put_u64(h + 40, w->data_off);
	put_u64(h + 48, data_size);
	for (int i = 0; i < 4; i++)
		put_u64(h + 72 + 8 * i, feats[i]);
	return pk_wr_raw(w, h, sizeof(h), 0, d);
}

/*
 * The feature block at @at: one perf_file_section {u64 offset, size} per
 * set bit in ascending order, then the payloads back to back. With
 * @only_comp only COMPRESSED is written (after an error). Sets @bits and
 * *@endp (the offset after the block).
 */
int pk_wr_features(struct pk_perfdata_writer *w, const struct pk_features *f, uint64_t at,
			  int only_comp, uint64_t bits[4], uint64_t *endp, struct pk_diag *d)
{
	struct pk_buf payload, table;
	uint64_t sec[2 * PK_FEAT_LAST];
	unsigned nsec = 0;
	size_t starts[PK_FEAT_LAST];
	int err = 0;

	memset(bits, 0, 4 * sizeof(uint64_t));
	pk_buf_init(&payload);
	pk_buf_init(&table);
	for (unsigned feat = 1; feat < PK_FEAT_LAST; feat++) {
		int r;

		if (only_comp && feat != PK_FEAT_COMPRESSED)
			continue;
		starts[feat] = payload.len;
		r = feat_encode(w, f, feat, &payload);
		if (r < 0) {
			err = pk_wr_fail(w, r, d, "cannot encode feature %s", pk_feature_name(feat));
			goto out;
		}
		if (r == 0)
			continue;
		bits[feat / 64] |= 1ULL << (feat % 64);
		sec[2 * nsec] = feat;                       /* filled in below */
		sec[2 * nsec + 1] = payload.len - starts[feat];
		nsec++;
	}
	for (unsigned i = 0; i < nsec; i++) {
		uint64_t ent[2] = { at + nsec * 16 + starts[sec[2 * i]], sec[2 * i + 1] };

		if ((err = pk_buf_append(&table, ent, sizeof(ent))) != 0) {
			err = pk_wr_fail(w, err, d, "out of memory");
			goto out;
		}
	}
	if (table.len)
		err = pk_wr_raw(w, table.data, table.len, at, d);
	if (!err && payload.len)
		err = pk_wr_raw(w, payload.data, payload.len, at + table.len, d);
	*endp = at + table.len + payload.len;
out:
	pk_buf_release(&payload);
	pk_buf_release(&table);
	return err;
}

/*
 * File mode start (perf-data.md §1): header (data size 0, no features),
 * then each event's u64 ids, then the attrs section
 *   { perf_event_attr (sizeof, attr.size = sizeof); perf_file_section ids; }[nr]
 * and the data section right after it (all sizes are multiples of 8).
 */
int pk_wr_open_file(struct pk_perfdata_writer *w, struct pk_diag *d)
{
	static const uint64_t none[4];
	uint64_t off = PK_PD_FILE_HDR_SIZE;
	uint8_t zero[PK_PD_FILE_HDR_SIZE];
	int err;

	memset(zero, 0, sizeof(zero));
	w->wpos = 0;
	err = pk_wr_put(w, zero, sizeof(zero), d);     /* the header, written at the end of open */
	for (size_t i = 0; !err && i < w->nr; i++) {
		w->evs[i].ids_off = off;
		err = pk_wr_put(w, w->evs[i].ids, (size_t)w->evs[i].nr_ids * 8, d);
		off += (uint64_t)w->evs[i].nr_ids * 8;
	}
	w->attrs_off = off;
	for (size_t i = 0; !err && i < w->nr; i++) {
		uint64_t sec[2] = { w->evs[i].ids_off, (uint64_t)w->evs[i].nr_ids * 8 };

		err = pk_wr_put(w, &w->evs[i].attr, sizeof(w->evs[i].attr), d);
		if (!err)
			err = pk_wr_put(w, sec, sizeof(sec), d);
	}
	if (!err)
		err = pk_wr_flush(w, d);
	w->data_off = pk_wr_pos(w);
	w->round_end = w->data_off;
	if (!err)
		err = pk_wr_file_header(w, 0, none, d);
	return err;
}

/* HEADER_FEATURE (80): { header; u64 feat_id; payload } unpadded, as perf 6.1 writes it. */
static int pipe_feature(struct pk_perfdata_writer *w, unsigned feat, const struct pk_buf *b,
			struct pk_diag *d)
{
	uint64_t id = feat;
	int err;

	if (16 + b->len > MAX_REC) {
		pk_log(PK_LOG_WARN, "'%s': feature %s (%zu bytes) does not fit in a pipe-mode "
		       "record, left out", w->name, pk_feature_name(feat), b->len);
		return 0;
	}
	err = pk_wr_header(w, PK_RECORD_HEADER_FEATURE, (uint32_t)(16 + b->len), d);
	if (!err)
		err = pk_wr_put(w, &id, 8, d);
	if (!err && b->len)
		err = pk_wr_put(w, b->data, b->len, d);
	return err;
}

/*
 * HEADER_TRACING_DATA (66): { header (size 16); u32 size; u32 pad } and then
 * the blob padded to 8, outside header.size; size is the padded length
 * (perf's reader checks it against what it consumed plus the padding).
 */
static int pipe_tracing(struct pk_perfdata_writer *w, const struct pk_features *f,
			struct pk_diag *d)
{
	static const uint8_t zero[8];
	uint64_t padded = (f->tracing_data_size + 7) & ~7ull;
	uint32_t v[2] = { (uint32_t)padded, 0 };
	int err;

	if (padded > UINT32_MAX)
		return pk_wr_fail(w, -EOVERFLOW, d, "tracing data of %llu bytes is too large",
			       (unsigned long long)f->tracing_data_size);
	err = pk_wr_header(w, PK_RECORD_HEADER_TRACING_DATA, 16, d);
	if (!err)
		err = pk_wr_put(w, v, sizeof(v), d);
	if (!err)
		err = pk_wr_put(w, f->tracing_data, f->tracing_data_size, d);
	if (!err && padded > f->tracing_data_size)
		err = pk_wr_put(w, zero, padded - f->tracing_data_size, d);
	return err;
}

/*
 * HEADER_BUILD_ID (67) records: the BUILD_ID feature's entries with
 * header.type 67 (perf-data.md §6.2). perf does not take BUILD_ID as a
 * HEADER_FEATURE record.
 */
static int pipe_build_ids(struct pk_perfdata_writer *w, const struct pk_features *f,
			  struct pk_diag *d)
{
	struct pk_buf b;
	int err;

	pk_buf_init(&b);
	err = pk_features_encode(f, PK_FEAT_BUILD_ID, &b);
	if (err) {
		pk_buf_release(&b);
		return pk_wr_fail(w, err, d, "cannot encode the build ids");
	}
	for (size_t off = 0; !err && off + 8 <= b.len;) {
		uint32_t type = PK_RECORD_HEADER_BUILD_ID;
		uint16_t size;

		memcpy(&size, b.data + off + 6, 2);
		memcpy(b.data + off, &type, 4);
		err = pk_wr_put(w, b.data + off, size, d);
		off += size;
	}
	pk_buf_release(&b);
	return err;
}

/*
 * Pipe mode start (perf-data.md §8): { u64 magic; u64 size = 16 }, one
 * HEADER_ATTR { header; attr; u64 ids[] } per event, the features in bit
 * order as HEADER_FEATURE records ended by an empty one (feat_id 32, as
 * perf 6.1), then HEADER_TRACING_DATA and HEADER_BUILD_ID records.
 */
int pk_wr_open_pipe(struct pk_perfdata_writer *w, const struct pk_features *pf,
		     struct pk_diag *d)
{
	uint64_t ph[2] = { PERF_MAGIC2, PK_PD_PIPE_HDR_SIZE };
	struct pk_buf b;
	int err;

	err = pk_wr_put(w, ph, sizeof(ph), d);
	for (size_t i = 0; !err && i < w->nr; i++) {
		size_t size = 8 + sizeof(struct perf_event_attr) + (size_t)w->evs[i].nr_ids * 8;

		if (size > MAX_REC)
			return pk_wr_fail(w, -E2BIG, d, "event %zu has too many ids (%u) for a "
				       "HEADER_ATTR record", i, w->evs[i].nr_ids);
		err = pk_wr_header(w, PK_RECORD_HEADER_ATTR, (uint32_t)size, d);
		if (!err)
			err = pk_wr_put(w, &w->evs[i].attr, sizeof(w->evs[i].attr), d);
		if (!err)
			err = pk_wr_put(w, w->evs[i].ids, (size_t)w->evs[i].nr_ids * 8, d);
	}
	pk_buf_init(&b);
	for (unsigned feat = 1; !err && feat < PK_FEAT_LAST; feat++) {
		int r;

		if (feat == PK_FEAT_TRACING_DATA || feat == PK_FEAT_BUILD_ID)
			continue;               /* records of their own, below */
		b.len = 0;
		r = feat_encode(w, pf, feat, &b);
		if (r < 0)
			err = pk_wr_fail(w, r, d, "cannot encode feature %s", pk_feature_name(feat));
		else if (r > 0)
			err = pipe_feature(w, feat, &b, d);
	}
	pk_buf_release(&b);
	if (!err) {
		uint64_t id = PERF61_LAST_FEATURE;

		err = pk_wr_header(w, PK_RECORD_HEADER_FEATURE, 16, d);
		if (!err)
			err = pk_wr_put(w, &id, 8, d);
	}
	if (!err && pf && pk_features_has(pf, PK_FEAT_TRACING_DATA) && pf->tracing_data_size)
		err = pipe_tracing(w, pf, d);
	if (!err && pf && pk_features_has(pf, PK_FEAT_BUILD_ID) && pf->nr_build_ids)
		err = pipe_build_ids(w, pf, d);
	if (!err)
		err = pk_wr_flush(w, d);
	w->data_off = pk_wr_pos(w);
	w->round_end = w->data_off;
	return err;
}

