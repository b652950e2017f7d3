/*
 * State carried by perf-tool records: attrs and their ids (HEADER_ATTR),
 * features (HEADER_FEATURE), tracing data (HEADER_TRACING_DATA), extra ids
 * (ID_INDEX) and evsel names (EVENT_UPDATE). Records arrive here with their
 * header in native order and an 8-byte aligned body still in the writer's
 * byte order (p->swapped); fields are read through pk_pd_u32/pk_pd_u64.
 * Layouts: ../shared/reference/perf-data.md §6.2 and §8.
 */
#include <errno.h>
#include <string.h>
#include "perfdata/internal.h"

uint64_t pk_perfdata_record_extra(const struct pk_perfdata *p, uint32_t type, const uint8_t *rec,
				  uint32_t size)
{
	/*
	 * AUXTRACE (71): off 8 u64 size, 16 u64 offset, 24 u64 reference,
	 *   32 u32 idx, tid, cpu, reserved; then `size` trace bytes.
	 * HEADER_TRACING_DATA (66): off 8 u32 size, 12 pad; then `size` bytes
	 *   padded to 8.
	 */
	if (type == PK_RECORD_AUXTRACE && size >= 16)
		return pk_pd_u64(rec + 8, p->swapped);
	if (type == PK_RECORD_HEADER_TRACING_DATA && size >= 12) {
		uint64_t n = pk_pd_u32(rec + 8, p->swapped);

		return (n + 7) & ~7ull;
	}
	return 0;
}

void pk_perfdata_feature(struct pk_perfdata *p, unsigned feat, const void *buf, uint64_t len,
			 uint64_t off)
{
	struct pk_diag fd;
	int r;

	pk_diag_init(&fd);
	r = pk_features_parse(&p->feat, feat, buf, (size_t)len, p->swapped, off, &fd);
	if (r == -ENOENT) {
		if (pk_perfdata_once_warn(p->warned_feats, &p->nr_warned_feats, 32, feat))
			return;
		if (feat >= 128)
			pk_log(PK_LOG_INFO, "'%s': skipping simpleperf feature %u", p->path, feat);
		else
			pk_log(PK_LOG_WARN, "'%s': skipping unknown feature %u", p->path, feat);
		return;
	}
	if (r) {
		char msg[900];

		if (!fd.err)
			fd.err = r;     /* a failure the parser did not describe: out of memory */
		pk_diag_str(&fd, msg, sizeof(msg));
		pk_log(PK_LOG_WARN, "'%s': feature %s: %s", p->path,
		       pk_feature_name(feat) ? pk_feature_name(feat) : "?", msg);
		return;
	}
	if (feat == PK_FEAT_EVENT_DESC || feat == PK_FEAT_TRACING_DATA)
		pk_perfdata_names_refresh(p);
}

/*
 * HEADER_ATTR (64):
 *   off 0  perf_event_header
 *       8  perf_event_attr (attr.size bytes; attr.size at off 12, 0 = 64)
 *       8+attr.size  u64 id[] (rest of the record)
 */
static int header_attr(struct pk_perfdata *p, const uint8_t *rec, uint32_t size, uint64_t off,
		       struct pk_diag *d)
{
	struct pk_attr a;
	struct pk_evsel *ev;
	uint32_t asz;
	uint64_t i, n;
	int r;

	if (size < 16)
		return PK_CORRUPT(d, off, "HEADER_ATTR record too short (%u bytes)", size);
	asz = pk_pd_u32(rec + 12, p->swapped);
	if (!asz)
		asz = 64;
	if (asz < 64 || asz > size - 8u)
		return PK_CORRUPT(d, off + 12, "HEADER_ATTR attr size %u does not fit the record "
				  "(%u bytes)", asz, size);
	r = pk_attr_import(&a, rec + 8, asz, p->swapped, off + 8, d);
	if (r)
		return r;
	ev = pk_perfdata_evsel_add(p, &a, d);
	if (!ev)
		return -ENOMEM;
	n = (size - 8u - asz) / 8;
	for (i = 0; i < n; i++) {
		r = pk_perfdata_id_add(p, ev, pk_pd_u64(rec + 8 + asz + i * 8, p->swapped), 1);
		if (r)
			return pk_diag_fail(d, r, "out of memory");
	}
	pk_perfdata_names_refresh(p);
	return 0;
}

/* ID_INDEX (69): off 8 u64 nr; 16 { u64 id, idx, cpu, tid }[nr]. */
static int id_index(struct pk_perfdata *p, const uint8_t *rec, uint32_t size, uint64_t off,
		    struct pk_diag *d)
{
	uint64_t nr, i;

	if (size < 16)
		return PK_CORRUPT(d, off, "ID_INDEX record too short (%u bytes)", size);
	nr = pk_pd_u64(rec + 8, p->swapped);
	if (nr > (size - 16u) / 32)
		return PK_CORRUPT(d, off + 8, "ID_INDEX has %llu entries, room for %u",
				  (unsigned long long)nr, (size - 16u) / 32);
	for (i = 0; i < nr; i++) {
		const uint8_t *e = rec + 16 + i * 32;
		uint64_t id = pk_pd_u64(e, p->swapped), idx = pk_pd_u64(e + 8, p->swapped);
		int r;

		if (idx >= p->nr_evsels)
			continue;
		r = pk_perfdata_id_add(p, &p->evsels[idx]->ev, id, 0);
		if (r)
			return pk_diag_fail(d, r, "out of memory");
	}
	return 0;
}

/* EVENT_UPDATE (78): off 8 u64 type (2 = NAME); 16 u64 id; 24 payload (NAME: char[]). */
static void event_update(struct pk_perfdata *p, const uint8_t *rec, uint32_t size)
{
	const struct pk_evsel *ev;
	char name[256];
	size_t n;

	if (size <= 24 || pk_pd_u64(rec + 8, p->swapped) != 2)
		return;
	ev = pk_perfdata_evsel_by_id(p, pk_pd_u64(rec + 16, p->swapped));
	if (!ev)
		return;
	n = strnlen((const char *)rec + 24, size - 24);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, rec + 24, n);
	name[n] = '\0';
	if (n)
		pk_perfdata_evsel_rename(p, (struct pk_evsel *)ev, name, PK_NAME_UPDATE);
}

/* HEADER_FEATURE (80): off 8 u64 feat_id; 16 the feature's file-mode section bytes. */
static int header_feature(struct pk_perfdata *p, const uint8_t *rec, uint32_t size,
			  uint64_t off, struct pk_diag *d)
{
	uint64_t feat;
	void *copy;

	if (size < 16)
		return PK_CORRUPT(d, off, "HEADER_FEATURE record too short (%u bytes)", size);
	feat = pk_pd_u64(rec + 8, p->swapped);
	if (size == 16) {          /* empty: the end of the feature block, not a feature */
		p->pipe_feat_done = 1;
		return 0;
	}
	if (feat > 0xffff) {
		if (!pk_perfdata_once_warn(p->warned_feats, &p->nr_warned_feats, 32, 0xffff))
			pk_log(PK_LOG_WARN, "'%s': skipping unknown feature %llu at offset %llu",
			       p->path, (unsigned long long)feat, (unsigned long long)off);
		return 0;
	}
	copy = pk_perfdata_own(p, rec + 16, size - 16u);
	if (!copy)
		return pk_diag_fail(d, -ENOMEM, "out of memory");
	pk_perfdata_feature(p, (unsigned)feat, copy, size - 16u, off + 16);
	return 0;
}

int pk_perfdata_user_record(struct pk_perfdata *p, const uint8_t *rec, uint32_t size,
			    uint64_t off, const uint8_t *payload, uint64_t payload_size,
			    struct pk_diag *d)
{
	uint32_t type = pk_pd_u32(rec, 0);   /* header already native */

	switch (type) {
	case PK_RECORD_HEADER_ATTR:
		return p->pipe ? header_attr(p, rec, size, off, d) : 0;
	case PK_RECORD_HEADER_FEATURE:
		return p->pipe ? header_feature(p, rec, size, off, d) : 0;
	case PK_RECORD_HEADER_TRACING_DATA:
		if (payload_size && !p->feat.tracing_data) {
			const void *blob = payload;

			if (p->in.stream || p->in_compressed) {
				blob = pk_perfdata_own(p, payload, payload_size);
				if (!blob)
					return pk_diag_fail(d, -ENOMEM, "out of memory");
			}
			p->feat.tracing_data = blob;
			p->feat.tracing_data_size = pk_pd_u32(rec + 8, p->swapped);
			pk_perfdata_names_refresh(p);
		}
		return 0;
	case PK_RECORD_ID_INDEX:
		return id_index(p, rec, size, off, d);
	case PK_RECORD_EVENT_UPDATE:
		event_update(p, rec, size);
		return 0;
	default:
		return 0;
	}
}
