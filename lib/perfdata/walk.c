/*
 * The record loop of pk_perfdata_foreach(): read each record header, check
 * its size against the bytes that exist, bring the record into native byte
 * order at an 8-byte aligned address (in place when the file is mapped,
 * native and aligned; otherwise a copy in a scratch buffer), find its evsel,
 * and either deliver it, queue it for time ordering (order.c), expand it
 * (COMPRESSED, decompress.c) or apply it (perf-tool records, user_records.c).
 *
 * Bytes that do not form a record:
 *  - header.size < 8 anywhere is corrupt: the walk stops with -EBADMSG at the
 *    record's offset (perf: "bad event header size"); the same for a zero-size
 *    record in the middle of a pipe stream;
 *  - a record (or its AUXTRACE / tracing-data payload) that runs past the end
 *    of the input (pipe mode: end of stream; file mode: end of the data
 *    section), or fewer than 8 bytes left over, is trailing garbage: nothing
 *    after it can be a record. It is counted in stats.trailing_bytes/offset,
 *    reported once through pk_log() and the walk ends normally. This covers
 *    perf's stderr text appended to a pipe file
 *    (linux-perf-data/sleep.compressed2.pipe.data) and inputs cut short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/internal.h"

static int is_header_class(uint32_t type)
{
	switch (type) {
	case PK_RECORD_HEADER_ATTR:
	case PK_RECORD_HEADER_EVENT_TYPE:
	case PK_RECORD_HEADER_TRACING_DATA:
	case PK_RECORD_HEADER_BUILD_ID:
	case PK_RECORD_HEADER_FEATURE:
	case PK_RECORD_COMPRESSED:
	case PK_RECORD_COMPRESSED2:
		return 1;
	default:
		return 0;
	}
}

int pk_perfdata_deliver(struct pk_perfdata *p, const struct perf_event_header *h,
			uint64_t off, int compressed, const struct pk_evsel *ev,
			const void *payload, uint64_t payload_size, struct pk_diag *d)
{
	struct pk_record r;
	int ret;

	r.hdr = h;
	r.file_offset = off;
	r.compressed = compressed;
	r.evsel = ev;
	r.payload = payload;
	r.payload_size = payload_size;
	if (ev && h->type == PERF_RECORD_SAMPLE) {
		ret = pk_sample_parse(&ev->layout, h, h->size, &r.sample, off, d);
		if (ret)
			return ret;
	} else if (ev && h->type < PK_RECORD_HEADER_ATTR) {
		ret = pk_sample_id_parse(&ev->layout, h, h->size, &r.sample, off, d);
		if (ret)
			return ret;
	} else {
		memset(&r.sample, 0, sizeof(r.sample));
		r.sample.misc = h->misc;
	}
	ret = p->fn(p->ctx, &r);
	p->consumer_failed |= ret != 0;
	return ret;
}

static uint64_t *scratch_get(struct pk_perfdata *p, size_t size, struct pk_diag *d)
{
	size_t words = (size + 7) / 8;

	if (words > p->scratch_cap) {
		size_t cap = words < 8192 ? 8192 : words;
		uint64_t *s = realloc(p->scratch, cap * 8);

		if (!s) {
			pk_diag_fail(d, -ENOMEM, "out of memory");
			return NULL;
		}
		p->scratch = s;
		p->scratch_cap = cap;
	}
	return p->scratch;
}

static void unknown_type(struct pk_perfdata *p, uint32_t type, uint64_t off)
{
	p->stats.nr_unknown++;
	if (pk_perfdata_once_warn(p->warned_types, &p->nr_warned_types, 64, type))
		return;
	if (type >= 32768 && type < 65536)
		pk_log(PK_LOG_INFO, "'%s': skipping simpleperf record type %u", p->path, type);
	else
		pk_log(PK_LOG_WARN, "'%s': skipping unknown record type %u at offset %llu", p->path,
		       type, (unsigned long long)off);
}

static int kernel_record(struct pk_perfdata *p, uint8_t *rec, uint32_t size, uint64_t off,
			 int in_place, struct pk_diag *d)
{
	struct perf_event_header *h = (struct perf_event_header *)rec;
	const struct pk_evsel *ev;
	uint64_t t;

	if (p->swapped && p->nr_evsels) {
		const struct pk_evsel *first = &p->evsels[0]->ev, *sev = first;
		uint64_t id;
		int r;

		if (p->nr_evsels > 1 && (h->type == PERF_RECORD_SAMPLE ||
					 first->attr.attr.sample_id_all) &&
		    !pk_sample_swapped_id(rec, size, &first->layout, &id) && id) {
			sev = pk_perfdata_evsel_by_id(p, id);
			if (!sev)
				sev = first;
		}
		r = pk_record_swap(rec, size, &sev->layout, off, d);
		if (r)
			return r;
	}
	ev = pk_perfdata_evsel_of(p, rec, size);
	if (h->type == PERF_RECORD_LOST && size >= 24) {
		uint64_t n;

		memcpy(&n, rec + 16, 8);
		p->stats.nr_lost_events += n;
	} else if (h->type == PERF_RECORD_LOST_SAMPLES && size >= 16) {
		uint64_t n;

		memcpy(&n, rec + 8, 8);
		p->stats.nr_lost_samples += n;
	}
	if (p->opts.ordered && ev && pk_perfdata_record_time(&ev->layout, rec, size, &t) &&
	    t && t != UINT64_MAX) {
		if (pk_perfdata_order_queue(p, h, t, off, p->in_compressed, ev, in_place))
			return pk_diag_fail(d, -ENOMEM, "out of memory");
		return 0;
	}
	return pk_perfdata_deliver(p, h, off, p->in_compressed, ev, NULL, 0, d);
}

static int user_record(struct pk_perfdata *p, uint8_t *rec, uint32_t size, uint64_t off,
		       const uint8_t *payload, uint64_t payload_size, struct pk_diag *d)
{
	struct perf_event_header *h = (struct perf_event_header *)rec;
	uint32_t type = h->type;
	int r;

	if (!(p->pipe && off < p->pipe_hdr_end && !p->in_compressed)) {
		r = pk_perfdata_user_record(p, rec, size, off, payload, payload_size, d);
		if (r)
			return r;
	}
	if (type == PK_RECORD_COMPRESSED || type == PK_RECORD_COMPRESSED2) {
		const uint8_t *data = rec + 8;
		uint64_t n = size - 8u;

		if (p->in_compressed)
			return PK_CORRUPT(d, off, "compressed record inside compressed data");
		if (type == PK_RECORD_COMPRESSED2) {
			/* off 8 u64 data_size; 16 data[data_size]; padded to 8 */
			if (size < 16)
				return PK_CORRUPT(d, off, "COMPRESSED2 record too short (%u bytes)",
						  size);
			n = pk_pd_u64(rec + 8, p->swapped);
			if (n > size - 16u)
				return PK_CORRUPT(d, off + 8, "COMPRESSED2 data size %llu exceeds the "
						  "record (%u bytes)", (unsigned long long)n, size);
			data = rec + 16;
		}
		if (p->opts.deliver_header_records) {
			r = pk_perfdata_deliver(p, h, off, 0, NULL, NULL, 0, d);
			if (r)
				return r;
		}
		return pk_perfdata_decompress(p, data, (size_t)n, off, d);
	}
	if (p->swapped && type != PK_RECORD_HEADER_ATTR && type != PK_RECORD_HEADER_FEATURE) {
		r = pk_record_swap(rec, size, NULL, off, d);
		if (r && r != -ENOENT)
			return r;
	}
	if (!is_header_class(type) || p->opts.deliver_header_records) {
		r = pk_perfdata_deliver(p, h, off, p->in_compressed, NULL, payload, payload_size, d);
		if (r)
			return r;
	}
	if (type == PK_RECORD_FINISHED_ROUND && p->opts.ordered)
		return pk_perfdata_order_round(p, d);
	return 0;
}

int pk_perfdata_process(struct pk_perfdata *p, const uint8_t *raw, uint32_t size, uint64_t off,
			const uint8_t *payload, uint64_t payload_size, int in_place,
			struct pk_diag *d)
{
	struct perf_event_header h;
	uint8_t *rec = (uint8_t *)raw;

	memcpy(&h, raw, sizeof(h));
	if (p->swapped) {
		h.type = __builtin_bswap32(h.type);
		h.misc = pk_pd_bswap16(h.misc);
		h.size = pk_pd_bswap16(h.size);
	}
	if (p->swapped || ((uintptr_t)raw & 7) || !in_place) {
		/*
		 * A private copy: swapping writes to it, and a mapped file is
		 * read-only. Kernel records that will be queued are copied again
		 * into the ordering arena, so the scratch buffer can be reused.
		 */
		if (p->swapped || ((uintptr_t)raw & 7)) {
			rec = (uint8_t *)scratch_get(p, size, d);
			if (!rec)
				return -ENOMEM;
			memcpy(rec, raw, size);
			memcpy(rec, &h, sizeof(h));
		}
		in_place = 0;
	}
	if (h.type < PK_RECORD_USER_MAX)
		p->stats.nr_records[h.type]++;
	if (h.type >= 1 && h.type <= 22)
		return kernel_record(p, rec, size, off, in_place, d);
	if (h.type >= PK_RECORD_HEADER_ATTR && h.type < PK_RECORD_USER_MAX)
		return user_record(p, rec, size, off, payload, payload_size, d);
	unknown_type(p, h.type, off);
	return 0;
}

static void trailing(struct pk_perfdata *p, uint64_t off, uint64_t n, const char *why)
{
	p->stats.trailing_bytes = n;
	p->stats.trailing_offset = off;
	pk_log(PK_LOG_WARN, "'%s': ignoring %llu trailing bytes at offset %llu (%s)", p->path,
	       (unsigned long long)n, (unsigned long long)off, why);
}

/* Bytes from the current position to the end of the input (consumes a stream). */
static int rest_size(struct pk_perfdata *p, uint64_t *n)
{
	const uint8_t *ptr;
	uint64_t avail, total = 0;
	int r;

	for (;;) {
		r = pk_perfdata_in_peek(p, 0, 1u << 20, &ptr, &avail);
		if (r)
			return r;
		if (!avail)
			break;
		total += avail;
		pk_perfdata_in_consume(p, avail);
	}
	*n = total;
	return 0;
}

static int walk(struct pk_perfdata *p, struct pk_diag *d)
{
	for (;;) {
		const uint8_t *ptr;
		uint64_t avail, off = p->in.pos, extra, rest;
		struct perf_event_header h;
		int r;

		r = pk_perfdata_in_peek(p, 0, 8, &ptr, &avail);
		if (r)
			return pk_diag_fail(d, r, "read failed at offset %llu",
					    (unsigned long long)off);
		if (!avail)
			return 0;
		if (avail < 8) {
			trailing(p, off, avail, "not a whole record header");
			pk_perfdata_in_consume(p, avail);
			return 0;
		}
		memcpy(&h, ptr, 8);
		if (p->swapped) {
			h.type = __builtin_bswap32(h.type);
			h.size = pk_pd_bswap16(h.size);
		}
		if (h.size < 8)
			return PK_CORRUPT(d, off, "bad record header size %u (type %u)", h.size,
					  h.type);
		r = pk_perfdata_in_peek(p, 0, h.size, &ptr, &avail);
		if (r)
			return pk_diag_fail(d, r, "read failed at offset %llu",
					    (unsigned long long)off);
		if (avail < h.size) {
			if (rest_size(p, &rest))
				rest = avail;
			trailing(p, off, rest, "record runs past the end");
			return 0;
		}
		extra = pk_perfdata_record_extra(p, h.type, ptr, h.size);
		if (extra > PK_PD_MAX_PAYLOAD)
			return PK_CORRUPT(d, off + 8, "%s payload of %llu bytes is implausible",
					  h.type == PK_RECORD_AUXTRACE ? "AUXTRACE" : "tracing data",
					  (unsigned long long)extra);
		if (extra) {
			r = pk_perfdata_in_peek(p, 0, h.size + extra, &ptr, &avail);
			if (r)
				return pk_diag_fail(d, r, "read failed at offset %llu",
						    (unsigned long long)off);
			if (avail < h.size + extra) {
				if (rest_size(p, &rest))
					rest = avail;
				trailing(p, off, rest, "record payload runs past the end");
				return 0;
			}
		}
		r = pk_perfdata_process(p, ptr, h.size, off, extra ? ptr + h.size : NULL, extra,
					!p->in.stream, d);
		if (r)
			return r;
		pk_perfdata_in_consume(p, h.size + extra);
	}
}

int pk_perfdata_foreach(struct pk_perfdata *p, pk_record_fn fn, void *ctx, struct pk_diag *d)
{
	int r;

	pk_diag_subject(d, p->path);
	if (p->walked)
		return pk_diag_fail(d, -EINVAL, "the records can be walked only once");
	p->walked = 1;
	p->fn = fn;
	p->ctx = ctx;
	if (!p->pipe) {
		p->in.pos = p->data_off;
		p->in.limit = p->data_off + p->data_size;
	}
	r = walk(p, d);
	if (!r && pk_perfdata_zstd_pending(p)) {
		pk_log(PK_LOG_WARN, "'%s': %zu bytes of decompressed data do not form a record",
		       p->path, pk_perfdata_zstd_pending(p));
	}
	if (!r && p->opts.ordered)
		r = pk_perfdata_order_flush(p, UINT64_MAX, d);
	else if (r < 0 && p->opts.ordered && !p->consumer_failed) {
		/*
		 * corrupt input: still deliver what was queued before it, keep the
		 * first error (not when the caller's function failed: it has stopped)
		 */
		struct pk_diag later;
		int r2;

		pk_diag_init(&later);
		r2 = pk_perfdata_order_flush(p, UINT64_MAX, &later);
		if (r2 > 0)
			r = r2;
	}
	return r;
}
